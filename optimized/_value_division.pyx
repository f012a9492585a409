# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""Value division for smooth decay functions, compiled (paper 004 §4.2, Theorem 4).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.value_division`: the summaries are a
vector of (lo, hi, C++ q-digest) ordered by time (binary search for the covering summary), maintenance merges
adjacent summaries newest first while the union's spread is at most ``1 + θ``; built-in decays are evaluated
in C with the reference's formulas (identical floats), others through Python.

Complexity: insert O(log m) (plus O(m) to open a new summary, which is rare: one per new time instant) and the
digest insert; maintenance O(m) plus the digest merges, amortized O(1) per new summary; queries O(space).
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow
from libcpp.map cimport map as cmap
from cython.operator cimport dereference as deref, preincrement as inc

from swagkit.reference.value_division import check_smooth_decay
from swagkit.spec.decay import Decay
from swagkit.spec.decay_bounds import qdigest_size_bound, value_division_error
from swagkit.spec.decay_input import (
    check_accuracy,
    check_advance,
    check_bits,
    check_phi,
    check_rank_point,
    check_spread,
    check_timestamp,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay_snapshots import QDigestState, SummaryState, ValueDivisionState

DEF MAX_TOTAL = 4611686018427387904  # 2**62

ctypedef pair[int64_t, double] Ranged


cdef struct Summary:
    int64_t lo
    int64_t hi
    QDCore* d


cdef inline bint ranged_less(const Ranged& a, const Ranged& b) noexcept nogil:
    return a.first < b.first


cdef class ValueDivision:
    """ValueDivision(time_bits, value_bits, decay, theta, beta)
--

Decayed ranks, quantiles and heavy hitters for a smooth decay, error ``(θ + β + θβ)·D`` (paper 004 §4.2),
    compiled; same API, snapshots and answers as ``swagkit.reference.ValueDivision``."""

    cdef int T, B
    cdef double _theta, _beta
    cdef int64_t bm
    cdef int be
    cdef int64_t bperiod
    cdef int64_t _now, _total
    cdef vector[Summary] sums       # oldest first, disjoint
    cdef bint _maintained
    cdef size_t maintained_len
    cdef DecayEval g
    cdef object _decay

    algorithm = "value_division"

    def __cinit__(self, time_bits, value_bits, decay, theta, beta):
        self.T = check_bits(time_bits, "time_bits")
        self.B = check_bits(value_bits, "value_bits")
        self._theta = check_spread(theta, "theta")
        self._beta = check_accuracy(beta, "beta")
        self._decay = check_smooth_decay(decay, self.T)
        decay_init(&self.g, self._decay)
        self._free()
        self.bm, self.be = eps_exact(self._beta)
        self.bperiod = qdigest_size_bound(self.B, self._beta)
        self._now = 0
        self._total = 0
        self._maintained = True
        self.maintained_len = 0

    cdef void _free(self) noexcept:
        cdef size_t i
        for i in range(self.sums.size()):
            del self.sums[i].d
        self.sums.clear()

    def __dealloc__(self) -> None:
        self._free()

    @property
    def time_bits(self) -> int:
        return self.T

    @property
    def value_bits(self) -> int:
        return self.B

    @property
    def decay(self) -> Decay:
        return self._decay

    @property
    def theta(self) -> float:
        return self._theta

    @property
    def beta(self) -> float:
        return self._beta

    @property
    def eps(self) -> float:
        """The error factor ``θ + β + θβ`` (notes §5.2)."""
        return value_division_error(self._theta, self._beta)

    @property
    def total(self) -> int:
        return self._total

    @property
    def now(self) -> int:
        """The current time."""
        return self._now

    def summary_count(self) -> int:
        """m, the number of summaries."""
        return self.sums.size()

    def node_count(self) -> int:
        """Stored ranges over all summaries (the paper's space unit)."""
        cdef size_t i, n = 0
        for i in range(self.sums.size()):
            qd_fold(self.sums[i].d)
            n += self.sums[i].d.nodes.size()
        return n

    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``)."""
        cdef int64_t v = check_advance(t, self.T, self._now)
        if v != self._now:
            self._now = v
            self._maintained = False

    cdef int _insert(self, int64_t x, int64_t t, int64_t w) except -1:
        cdef size_t lo = 0, hi = self.sums.size(), mid
        cdef Summary s
        while lo < hi:  # first summary with hi >= t
            mid = (lo + hi) // 2
            if self.sums[mid].hi < t:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.sums.size() and self.sums[lo].lo <= t:
            qd_insert(self.sums[lo].d, ((<int64_t>1) << self.B) + x, w)
        else:
            s.lo = t
            s.hi = t
            s.d = qd_new(self.B, self.bm, self.be, self._beta, self.bperiod)
            qd_insert(s.d, ((<int64_t>1) << self.B) + x, w)
            self.sums.insert(self.sums.begin() + lo, s)
            self._maintained = False
        self._total += w
        if self.sums.size() >= 2 * self.maintained_len + 8:
            self._maintain()
        return 0

    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """Add ``weight`` copies of ``value`` stamped ``timestamp <= now`` to the summary covering it."""
        cdef int overflow = 0
        cdef long long x, t, w
        if type(value) is int and type(timestamp) is int and type(weight) is int:
            x = PyLong_AsLongLongAndOverflow(value, &overflow)
            if overflow == 0 and 0 <= x < ((<int64_t>1) << self.B):
                t = PyLong_AsLongLongAndOverflow(timestamp, &overflow)
                if overflow == 0 and 0 <= t <= self._now:
                    w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                    if overflow == 0 and 0 < w < MAX_TOTAL and self._total + w < MAX_TOTAL:
                        self._insert(x, t, w)
                        return
        x = check_value(value, self.B)
        t = check_timestamp(timestamp, self.T, self._now)
        w = check_weight(weight)
        check_total(self._total, w)
        if w:
            self._insert(x, t, w)

    def insert_many(self, items: Iterable[tuple[int, int]]) -> None:
        """Insert ``(value, timestamp)`` pairs with weight 1 (all validated first)."""
        cdef vector[Node] pairs
        cdef size_t i
        for x, t in items:
            pairs.push_back(Node(check_value(x, self.B), check_timestamp(t, self.T, self._now)))
        check_total(self._total, pairs.size())
        for i in range(pairs.size()):
            self._insert(pairs[i].first, pairs[i].second, 1)

    cdef bint _spread_ok(self, int64_t newer_hi, int64_t older_lo) except -1:
        return decay_at(&self.g, self._now - newer_hi) <= (1.0 + self._theta) * decay_at(&self.g, self._now - older_lo)

    cdef int _maintain(self) except -1:
        cdef vector[Summary] out  # newest first
        cdef Py_ssize_t i = <Py_ssize_t>self.sums.size() - 1
        cdef Summary cur
        cdef bint merged
        cdef size_t k
        while i >= 0:
            cur = self.sums[i]
            i -= 1
            merged = False
            while i >= 0 and self._spread_ok(cur.hi, self.sums[i].lo):
                cur.lo = self.sums[i].lo
                qd_absorb(cur.d, self.sums[i].d)
                del self.sums[i].d
                merged = True
                i -= 1
            if merged:
                qd_compress(cur.d, NULL)
            out.push_back(cur)
        self.sums.clear()
        for k in range(out.size()):
            self.sums.push_back(out[out.size() - 1 - k])
        self._maintained = True
        self.maintained_len = self.sums.size()
        return 0

    def maintain(self) -> None:
        """Merge adjacent summaries while the union's spread is at most ``1 + θ`` (newest first)."""
        self._maintain()

    # -- queries -----------------------------------------------------------------------------------------------

    def decayed_count(self) -> float:
        """``D̂ = Σ g(now - hi_j)·n_j``: ``D <= D̂ <= (1+θ)·D``."""
        cdef double acc = 0.0
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1):
            acc += decay_at(&self.g, self._now - self.sums[i].hi) * <double>self.sums[i].d.total
        return acc

    def decayed_rank(self, x: int) -> float:
        """``R̂(x) = Σ g(now - hi_j)·r̂_j(x)``: decayed weight with value ``< x``, within ``(θ + β + θβ)·D``."""
        cdef int64_t q = check_rank_point(x, self.B)
        cdef double acc = 0.0
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1):
            qd_fold(self.sums[i].d)
            acc += decay_at(&self.g, self._now - self.sums[i].hi) * <double>qd_rank(self.sums[i].d, q)
        return acc

    cdef double _ranges(self, vector[Ranged]* out) except? -1.0:
        cdef double total = 0.0, k
        cdef Py_ssize_t i
        cdef size_t r
        cdef vector[Node] post
        for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1):
            k = decay_at(&self.g, self._now - self.sums[i].hi)
            total += k * <double>self.sums[i].d.total
            qd_fold(self.sums[i].d)
            post.clear()
            qd_post_order(self.sums[i].d, &post)
            for r in range(post.size()):
                out.push_back(Ranged(post[r].first, k * <double>post[r].second))
        return total

    def decayed_quantile(self, phi: float) -> int | None:
        """Smallest x with ``R̂(x+1) >= φ·D̂`` (two-sided test with ``ε = θ + β + θβ``); None when empty."""
        cdef double p = check_phi(phi)
        cdef vector[Ranged] ranges
        cdef double total = self._ranges(&ranges), acc = 0.0
        cdef size_t i
        if total <= 0:
            return None
        cdef double target = p * total
        if target <= 0:
            return 0
        stable_sort(ranges.begin(), ranges.end(), ranged_less)
        for i in range(ranges.size()):
            acc += ranges[i].second
            if acc >= target:
                return ranges[i].first
        return ranges[ranges.size() - 1].first

    def decayed_heavy_hitters(self, phi: float) -> list[int]:
        """Values with ``f̂(p) >= φ·D̂`` (Definition 4 with ``ε = θ + β + θβ``), sorted."""
        cdef double p = check_phi(phi, open_low=True)
        cdef vector[Ranged] ranges
        cdef double total = self._ranges(&ranges)
        cdef cmap[int64_t, double] freq
        cdef size_t i
        if total <= 0:
            return []
        for i in range(ranges.size()):
            freq[ranges[i].first] += ranges[i].second
        cdef double target = p * total
        out = []
        it = freq.begin()
        while it != freq.end():
            if deref(it).second >= target:
                out.append(deref(it).first)
            inc(it)
        return out

    def intervals(self) -> list[tuple[int, int, int]]:
        """``(lo, hi, weight)`` of every summary, newest first."""
        return [(self.sums[i].lo, self.sums[i].hi, self.sums[i].d.total)
                for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1)]

    def snapshot(self) -> ValueDivisionState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.value_division`."""
        summaries = tuple(
            SummaryState(self.sums[i].lo, self.sums[i].hi, qd_snapshot(self.sums[i].d, QDigestState))
            for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1)
        )
        return ValueDivisionState(
            time_bits=self.T,
            value_bits=self.B,
            theta=self._theta,
            beta=self._beta,
            decay=self._decay.name,
            now=self._now,
            total=self._total,
            summaries=summaries,
            maintained=self._maintained,
        )

    def _memory_bytes(self) -> int:
        """Bytes of the summary vector and the digests' arrays (capacity)."""
        cdef size_t i, n = self.sums.capacity() * sizeof(Summary)
        for i in range(self.sums.size()):
            n += (self.sums[i].d.nodes.capacity() + self.sums[i].d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)
        return n

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(time_bits={self.T}, value_bits={self.B}, decay={self._decay.name}, "
                f"theta={self._theta!r}, beta={self._beta!r}, now={self._now}, summaries={self.sums.size()})")
