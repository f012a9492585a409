# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""Value division for smooth decay functions, compiled (paper 004 §4.2, Theorem 4).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.value_division`: the summaries are a
vector of (lo, hi, C++ q-digest) ordered by time (binary search for the covering summary), maintenance merges
adjacent summaries newest first while the union's spread is at most ``1 + θ``; built-in decays are evaluated
in C with the reference's formulas (identical floats), others through Python.

Robustness (issue 12), as the reference: input validated before anything changes (numpy integers and floats
accepted; weights and totals checked as Python ints: ``WeightOverflowError``, never a raw ``OverflowError``).
Exception safety *strong*: a user decay's ``weight`` is called only while maintenance *decides* its merges
(``_plan``, nothing changed yet) and during queries (read-only); the merges are then performed in C with new
digests built aside and installed by a swap. A ``busy`` flag refuses overlapping calls -- a decay calling back,
a second thread -- with ``ReentrantCallError`` before anything changes (not thread-safe). Copies and pickles go
by snapshot, validated by the reference's ``check_value_division_state`` before anything reaches C.

Complexity: insert O(log m) (plus O(m) to open a new summary, which is rare: one per new time instant) and the
digest insert; maintenance O(m) plus the digest merges, amortized O(1) per new summary; queries O(space).
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow
from libcpp.map cimport map as cmap
from cython.operator cimport dereference as deref, preincrement as inc

from libcpp.algorithm cimport reverse

from swagkit.reference._guard import reentered as _reentered, restore as _restore
from swagkit.reference.qdigest import checked_size_bound as _checked_size_bound, int_arg as _int_arg, real_arg as _real_arg
from swagkit.reference.value_division import (
    check_decay_weight as _check_decay_weight,
    check_smooth_decay,
    check_value_division_state as _check_value_division_state,
)
from swagkit.spec.decay import Decay
from swagkit.spec.decay.bounds import value_division_error
from swagkit.spec.decay.input import (
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
from swagkit.spec.decay.snapshots import QDigestState, SummaryState, ValueDivisionState

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
    compiled; same API, snapshots and answers as ``swagkit.reference.ValueDivision``. Exception safety: strong
    (a decay that raises leaves the structure exactly as before). Not thread-safe: an overlapping call (from the
    decay, or a second thread) raises ``ReentrantCallError``."""

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
    cdef bint busy

    algorithm = "value_division"
    exception_safety = "strong"

    def __cinit__(self, time_bits, value_bits, decay, theta, beta):
        self.T = check_bits(_int_arg(time_bits), "time_bits")
        self.B = check_bits(_int_arg(value_bits), "value_bits")
        self._theta = check_spread(_real_arg(theta), "theta")
        self._beta = check_accuracy(_real_arg(beta), "beta")
        self.bperiod = _checked_size_bound(self.B, self._beta, "beta")
        self._decay = check_smooth_decay(decay, self.T)
        decay_init(&self.g, self._decay)
        self._free()
        self.bm, self.be = eps_exact(self._beta)
        self._now = 0
        self._total = 0
        self._maintained = True
        self.maintained_len = 0
        self.busy = False

    cdef void _free(self) noexcept:
        cdef size_t i
        for i in range(self.sums.size()):
            del self.sums[i].d
        self.sums.clear()

    def __dealloc__(self) -> None:
        self._free()

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.busy:
            raise _reentered("value_division", operation)
        self.busy = True
        return 0

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
        self._enter("node_count")
        try:
            for i in range(self.sums.size()):
                qd_fold(self.sums[i].d)
                n += self.sums[i].d.nodes.size()
            return n
        finally:
            self.busy = False

    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``)."""
        self._enter("advance")
        try:
            v = check_advance(_int_arg(t), self.T, self._now)
            if v != self._now:
                self._now = v
                self._maintained = False
        finally:
            self.busy = False

    # -- updates: decide (the decay's calls), then change (C only) ---------------------------------------------

    cdef double _g(self, int64_t age) except? -1.0:
        """The decay's weight at ``age``; a user decay's value is checked (the reference's ``check_decay_weight``)."""
        cdef double v = decay_at(&self.g, age)
        if self.g.kind == 0 and not (0.0 <= v <= 1.0):
            _check_decay_weight(self._decay, age, v)
        return v

    cdef int _spread_ok(self, int64_t newer_hi, int64_t older_lo) except -1:
        """V3 for the union: ``g(t - hi) <= (1 + θ)·g(t - lo)`` (1 or 0)."""
        cdef double a = self._g(self._now - newer_hi)
        return a <= (1.0 + self._theta) * self._g(self._now - older_lo)

    cdef int _plan(self, vector[Summary]* sums, vector[size_t]* bots) except -1:
        """Maintenance's decisions on ``sums`` (oldest first), every call of the decay and nothing changed: the
        oldest index of each group of adjacent summaries to merge, newest group first (as the reference)."""
        cdef Py_ssize_t i = <Py_ssize_t>sums.size() - 1
        cdef int64_t hi
        bots.clear()
        while i >= 0:
            hi = sums[0][i].hi
            i -= 1
            while i >= 0 and self._spread_ok(hi, sums[0][i].lo):
                i -= 1
            bots.push_back(<size_t>(i + 1))
        return 0

    cdef int _apply(self, vector[Summary]* sums, vector[size_t]* bots, vector[Summary]* out) except -1:
        """The merged summaries, newest first, into ``out`` (no Python code): a group of several gets a new digest
        (a copy of its newest one absorbing the others, compressed once); ``sums`` is not modified. On failure
        (memory) the new digests are freed and nothing changed."""
        cdef size_t top = sums.size(), bot, k, g
        cdef Summary cur
        cdef vector[QDCore*] fresh
        out.clear()
        try:
            for g in range(bots.size()):
                bot = bots[0][g]
                cur = sums[0][top - 1]
                if bot + 1 < top:
                    cur.lo = sums[0][bot].lo
                    cur.d = qd_copy(sums[0][top - 1].d)
                    fresh.push_back(cur.d)
                    k = top - 1
                    while k > bot:
                        k -= 1
                        qd_absorb(cur.d, sums[0][k].d)
                    qd_compress(cur.d, NULL)
                out.push_back(cur)
                top = bot
        except BaseException:
            for k in range(fresh.size()):
                del fresh[k]
            out.clear()
            raise
        return 0

    cdef void _install(self, vector[Summary]* sums, vector[size_t]* bots, vector[Summary]* out) noexcept:
        """Make ``out`` (newest first, from :meth:`_apply` on ``sums``) the summary list: free the digests of the
        merged groups' members and swap (nothing here can fail)."""
        cdef size_t top = sums.size(), bot, k, g
        for g in range(bots.size()):
            bot = bots[0][g]
            if bot + 1 < top:
                for k in range(bot, top):
                    del sums[0][k].d
            top = bot
        reverse(out.begin(), out.end())
        self.sums.swap(out[0])
        self._maintained = True
        self.maintained_len = self.sums.size()

    cdef int _maintain(self) except -1:
        cdef vector[size_t] bots
        cdef vector[Summary] out
        self._plan(&self.sums, &bots)
        self._apply(&self.sums, &bots, &out)
        self._install(&self.sums, &bots, &out)
        return 0

    cdef int _insert(self, int64_t x, int64_t t, int64_t w) except -1:
        """Insert validated input, all or nothing: a new summary that makes maintenance due is decided on the
        would-be list (a copy of the summary vector) before anything changes."""
        cdef size_t lo = 0, hi = self.sums.size(), mid
        cdef Summary s
        cdef vector[Summary] tmp
        cdef vector[size_t] bots
        cdef vector[Summary] out
        while lo < hi:  # first summary with hi >= t
            mid = (lo + hi) // 2
            if self.sums[mid].hi < t:
                lo = mid + 1
            else:
                hi = mid
        if lo < self.sums.size() and self.sums[lo].lo <= t:
            qd_insert(self.sums[lo].d, ((<int64_t>1) << self.B) + x, w)
            self._total += w
            return 0
        s.lo = t
        s.hi = t
        s.d = qd_new(self.B, self.bm, self.be, self._beta, self.bperiod)
        try:
            qd_insert(s.d, ((<int64_t>1) << self.B) + x, w)
            if self.sums.size() + 1 >= 2 * self.maintained_len + 8:
                tmp = self.sums
                tmp.insert(tmp.begin() + lo, s)
                self._plan(&tmp, &bots)  # the decay may raise here: nothing changed yet
                self._apply(&tmp, &bots, &out)
            else:
                self.sums.insert(self.sums.begin() + lo, s)
                self._maintained = False
                self._total += w
                return 0
        except BaseException:
            del s.d
            raise
        self._install(&tmp, &bots, &out)
        self._total += w
        return 0

    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """Add ``weight`` copies of ``value`` stamped ``timestamp <= now`` to the summary covering it (validated
        first; all or nothing, also when the decay raises during the maintenance it triggers)."""
        cdef int overflow = 0
        cdef long long x, t, w
        self._enter("insert")
        try:
            if type(value) is int and type(timestamp) is int and type(weight) is int:
                x = PyLong_AsLongLongAndOverflow(value, &overflow)
                if overflow == 0 and 0 <= x < ((<int64_t>1) << self.B):
                    t = PyLong_AsLongLongAndOverflow(timestamp, &overflow)
                    if overflow == 0 and 0 <= t <= self._now:
                        w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                        if overflow == 0 and 0 < w < MAX_TOTAL and self._total + w < MAX_TOTAL:
                            self._insert(x, t, w)
                            return
            xx = check_value(_int_arg(value), self.B)
            tt = check_timestamp(_int_arg(timestamp), self.T, self._now)
            ww = check_weight(_int_arg(weight))
            check_total(self._total, ww)  # on Python ints: WeightOverflowError, never a raw OverflowError
            if ww:
                self._insert(xx, tt, ww)
        finally:
            self.busy = False

    def insert_many(self, items: Iterable[tuple[int, int]]) -> None:
        """Insert ``(value, timestamp)`` pairs with weight 1 (all validated first). Each insertion is all or
        nothing: if the decay raises during the j-th one, the first j stay inserted (the exception's note says
        so)."""
        cdef vector[Node] pairs
        cdef size_t i = 0
        self._enter("insert_many")
        try:
            for x, t in items:
                pairs.push_back(Node(check_value(_int_arg(x), self.B), check_timestamp(_int_arg(t), self.T, self._now)))
            check_total(self._total, pairs.size())
            try:
                while i < pairs.size():
                    self._insert(pairs[i].first, pairs[i].second, 1)
                    i += 1
            except BaseException as err:
                err.add_note(f"swagkit value_division: insert_many inserted {i} of {pairs.size()} values")
                raise
        finally:
            self.busy = False

    def maintain(self) -> None:
        """Merge adjacent summaries while the union's spread is at most ``1 + θ`` (newest first). Strong: every
        call of the decay comes first; if one raises, nothing changed."""
        self._enter("maintain")
        try:
            self._maintain()
        finally:
            self.busy = False

    # -- queries -----------------------------------------------------------------------------------------------

    def decayed_count(self) -> float:
        """``D̂ = Σ g(now - hi_j)·n_j``: ``D <= D̂ <= (1+θ)·D``."""
        cdef double acc = 0.0
        cdef Py_ssize_t i
        self._enter("decayed_count")
        try:
            for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1):
                acc += self._g(self._now - self.sums[i].hi) * <double>self.sums[i].d.total
            return acc
        finally:
            self.busy = False

    def decayed_rank(self, x: int) -> float:
        """``R̂(x) = Σ g(now - hi_j)·r̂_j(x)``: decayed weight with value ``< x``, within ``(θ + β + θβ)·D``."""
        cdef int64_t q
        cdef double acc = 0.0, k
        cdef Py_ssize_t i
        self._enter("decayed_rank")
        try:
            q = check_rank_point(_int_arg(x), self.B)
            for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1):
                k = self._g(self._now - self.sums[i].hi)
                qd_fold(self.sums[i].d)
                acc += k * <double>qd_rank(self.sums[i].d, q)
            return acc
        finally:
            self.busy = False

    cdef double _ranges(self, vector[Ranged]* out) except? -1.0:
        cdef double total = 0.0, k
        cdef Py_ssize_t i
        cdef size_t r
        cdef vector[Node] post
        for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1):
            k = self._g(self._now - self.sums[i].hi)
            total += k * <double>self.sums[i].d.total
            qd_fold(self.sums[i].d)
            post.clear()
            qd_post_order(self.sums[i].d, &post)
            for r in range(post.size()):
                out.push_back(Ranged(post[r].first, k * <double>post[r].second))
        return total

    def decayed_quantile(self, phi: float) -> int | None:
        """Smallest x with ``R̂(x+1) >= φ·D̂`` (two-sided test with ``ε = θ + β + θβ``); None when empty."""
        self._enter("decayed_quantile")
        try:
            return self._quantile(check_phi(_real_arg(phi)))
        finally:
            self.busy = False

    cdef object _quantile(self, double p):
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
        self._enter("decayed_heavy_hitters")
        try:
            return self._heavy(check_phi(_real_arg(phi), open_low=True))
        finally:
            self.busy = False

    cdef list _heavy(self, double p):
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
        self._enter("intervals")
        try:
            return [(self.sums[i].lo, self.sums[i].hi, self.sums[i].d.total)
                    for i in range(<Py_ssize_t>self.sums.size() - 1, -1, -1)]
        finally:
            self.busy = False

    def snapshot(self) -> ValueDivisionState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.value_division`."""
        self._enter("snapshot")
        try:
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
        finally:
            self.busy = False

    def _params(self):
        # maintained_len is not in the snapshot (it schedules the next maintenance): saved alongside
        return {"time_bits": self.T, "value_bits": self.B, "decay": self._decay, "theta": self._theta,
                "beta": self._beta, "maintained_len": self.maintained_len}

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, *, time_bits, value_bits, decay, theta, beta, maintained_len=None):
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling). The shape is validated in
        Python first (the reference's ``check_value_division_state``): a malformed snapshot raises
        ``TypeError``/``ValueError`` and nothing reaches C."""
        cdef ValueDivision obj = cls(time_bits, value_bits, decay, theta, beta)
        cdef Summary s
        now, total, sums, maintained, ml = _check_value_division_state(
            snapshot, time_bits=obj.T, value_bits=obj.B, decay_name=obj._decay.name, theta=obj._theta,
            beta=obj._beta, maintained_len=maintained_len)
        obj._now, obj._total, obj._maintained, obj.maintained_len = now, total, maintained, ml
        obj.sums.reserve(len(sums))
        for lo, hi, (nodes, dtotal, pending) in sums:
            s.lo = lo
            s.hi = hi
            s.d = qd_new(obj.B, obj.bm, obj.be, obj._beta, obj.bperiod)
            obj.sums.push_back(s)  # owned by the structure from here on (freed with it)
            for node, count in nodes:
                s.d.nodes.push_back(Node(node, count))
            s.d.total = dtotal
            s.d.pending = pending
        return obj

    def __reduce__(self):
        return (_restore, (type(self), None, self._params(), self.snapshot(), None))

    def __copy__(self):
        return _restore(type(self), None, self._params(), self.snapshot(), None)

    def _memory_bytes(self) -> int:
        """Bytes of the summary vector and the digests' arrays (capacity)."""
        cdef size_t i, n = self.sums.capacity() * sizeof(Summary)
        for i in range(self.sums.size()):
            n += (self.sums[i].d.nodes.capacity() + self.sums[i].d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)
        return n

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(time_bits={self.T}, value_bits={self.B}, decay={self._decay.name}, "
                f"theta={self._theta!r}, beta={self._beta!r}, now={self._now}, summaries={self.sums.size()})")
