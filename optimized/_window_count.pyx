# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""Sliding-window count with out-of-order arrivals, compiled (paper 004 §3.1, Theorem 1).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.window_count`: Q_0 is an ordered map
timestamp -> weight (evict from the front), the levels are C++ q-digests over the time universe (inserts append
to a buffer; SWCOMPRESS runs the shared fixed-point compress at the fixed cap ``2^j``, copies the top level up
before its first discard and truncates to the α rightmost ranges in post-order).

Complexity: update O(J + log α) (a map insert and one vector append per level) plus the amortized SWCOMPRESS
(O(J·α log α) every α updates); query O(α + J). Space: at most α ranges per level after compress.
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow
from libcpp.map cimport map as cmap
from cython.operator cimport dereference as deref, preincrement as inc

from swagkit.spec.decay_bounds import window_count_alpha_min
from swagkit.spec.decay_errors import InvalidParameterError
from swagkit.spec.decay_input import (
    check_accuracy,
    check_advance,
    check_bits,
    check_int,
    check_timestamp,
    check_total,
    check_weight,
    check_window,
)
from swagkit.spec.decay_snapshots import CountLevelState, WindowCountState

DEF MAX_TOTAL = 4611686018427387904  # 2**62


cdef cppclass CountLevel:
    int64_t gamma
    int64_t tau
    QDCore* d


cdef class SlidingWindowCount:
    """SlidingWindowCount(time_bits, eps, alpha=None)
--

Out-of-order sliding-window count with relative error ε (paper 004 §3.1), compiled; same API, snapshots
    and answers as ``swagkit.reference.SlidingWindowCount``."""

    cdef int T
    cdef double _eps
    cdef int64_t _alpha, _now, _total, tau0, q0_weight, _pending
    cdef cmap[int64_t, int64_t] q0
    cdef vector[CountLevel] levels
    cdef public object alpha_min

    algorithm = "window_count"

    def __cinit__(self, time_bits, eps, alpha=None):
        self.T = check_bits(time_bits, "time_bits")
        self._eps = check_accuracy(eps, "eps")
        self.alpha_min = window_count_alpha_min(self.T, self._eps)
        if alpha is None:
            alpha = self.alpha_min
        a = check_int(alpha, "alpha")
        if a < 1:
            raise InvalidParameterError(f"alpha must be >= 1, got {a}")
        if a > MAX_TOTAL:
            raise InvalidParameterError(f"alpha must be < 2**62, got {a}")
        self._free()
        self._alpha = a
        self._now = 0
        self._total = 0
        self.tau0 = -1
        self.q0_weight = 0
        self._pending = 0
        self.q0.clear()
        self._add_level(2, -1, NULL)

    cdef void _add_level(self, int64_t gamma, int64_t tau, QDCore* src) except *:
        cdef CountLevel lv
        lv.gamma = gamma
        lv.tau = tau
        lv.d = qd_copy(src) if src != NULL else qd_new(self.T, 1, 0, 0.0, 1)
        self.levels.push_back(lv)

    cdef void _free(self) noexcept:
        cdef size_t i
        for i in range(self.levels.size()):
            del self.levels[i].d
        self.levels.clear()

    def __dealloc__(self) -> None:
        self._free()

    @property
    def time_bits(self) -> int:
        """T: timestamps lie in ``[0, 2**T)``."""
        return self.T

    @property
    def eps(self) -> float:
        """ε: relative error of every window count."""
        return self._eps

    @property
    def alpha(self) -> int:
        """α: size of Q_0 (in weight units) and range budget of every level."""
        return self._alpha

    @property
    def total(self) -> int:
        """Total weight received."""
        return self._total

    @property
    def now(self) -> int:
        """The current time."""
        return self._now

    @property
    def compress_period(self) -> int:
        """Updates between SWCOMPRESS runs."""
        return self._alpha

    def level_count(self) -> int:
        """J, the number of q-digest levels."""
        return self.levels.size()

    def node_count(self) -> int:
        """Stored ranges over all levels plus distinct timestamps in Q_0."""
        cdef size_t i, n = self.q0.size()
        for i in range(self.levels.size()):
            qd_fold(self.levels[i].d)
            n += self.levels[i].d.nodes.size()
        return n

    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``)."""
        self._now = check_advance(t, self.T, self._now)

    cdef int _insert(self, int64_t t, int64_t w) except -1:
        cdef size_t j
        cdef int64_t leaf = ((<int64_t>1) << self.T) + t
        self._total += w
        self._buffer_insert(t, w)
        for j in range(self.levels.size()):
            if t > self.levels[j].tau:
                self.levels[j].d.buf.push_back(Node(leaf, w))
                self.levels[j].d.total += w
        self._pending += 1
        if self._pending >= self._alpha:
            self._compress()
        return 0

    cdef void _buffer_insert(self, int64_t t, int64_t w) noexcept:
        """Q_0 ← Q_0 ∪ {t}; evict the smallest timestamps' weight beyond α, raising τ_0."""
        cdef cmap[int64_t, int64_t].iterator it = self.q0.find(t)
        cdef int64_t excess, take, oldest, cur
        if it == self.q0.end():
            self.q0[t] = w
        else:
            self.q0[t] = deref(it).second + w
        self.q0_weight += w
        excess = self.q0_weight - self._alpha
        while excess > 0:
            it = self.q0.begin()
            oldest = deref(it).first
            cur = deref(it).second
            take = excess if excess < cur else cur
            self.q0_weight -= take
            excess -= take
            if oldest > self.tau0:
                self.tau0 = oldest
            if take == cur:
                self.q0.erase(it)
            else:
                self.q0[oldest] = cur - take

    def insert(self, timestamp: int, weight: int = 1) -> None:
        """SWUPDATE: record ``weight`` items stamped ``timestamp <= now`` (validated first)."""
        cdef int overflow = 0
        cdef long long t, w
        if type(timestamp) is int and type(weight) is int:
            t = PyLong_AsLongLongAndOverflow(timestamp, &overflow)
            if overflow == 0 and 0 <= t <= self._now:
                w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                if overflow == 0 and 0 < w < MAX_TOTAL and self._total + w < MAX_TOTAL:
                    self._insert(t, w)
                    return
        t = check_timestamp(timestamp, self.T, self._now)
        w = check_weight(weight)
        check_total(self._total, w)
        if w:
            self._insert(t, w)

    def insert_many(self, timestamps: Iterable[int]) -> None:
        """Insert each timestamp with weight 1 (all validated first: on bad input nothing is inserted)."""
        cdef vector[int64_t] ts
        cdef size_t i
        for t in timestamps:
            ts.push_back(check_timestamp(t, self.T, self._now))
        check_total(self._total, ts.size())
        for i in range(ts.size()):
            self._insert(ts[i], 1)

    cdef int _compress(self) except -1:
        cdef size_t j = 0
        cdef int64_t tau
        self._pending = 0
        while j < self.levels.size():
            qd_compress_lim(self.levels[j].d, self.levels[j].gamma, NULL)
            if self.levels[j].d.nodes.size() > <size_t>self._alpha:
                if j == self.levels.size() - 1:
                    self._add_level(self.levels[j].gamma * 2, -1, self.levels[j].d)
                tau = self.levels[j].tau
                truncate_level(self.levels[j].d, &tau, self._alpha, NULL)
                self.levels[j].tau = tau
                self._recount(j)
            j += 1
        return 0

    cdef void _recount(self, size_t j) noexcept:
        cdef int64_t total = 0
        cdef size_t i
        cdef QDCore* d = self.levels[j].d
        for i in range(d.nodes.size()):
            total += d.nodes[i].second
        d.total = total

    def compress(self) -> None:
        """SWCOMPRESS (Alg. 3.2)."""
        self._compress()

    def count(self, w: int) -> int:
        """SWQUERY(w): estimate of ``D_w(now)`` within ``ε·D_w`` (never above it); exact when ``now - w >= τ_0``."""
        cdef int64_t cut = self._now - check_window(w)
        cdef int64_t acc = 0
        cdef size_t j, i
        cdef QDCore* d
        cdef cmap[int64_t, int64_t].iterator it
        if cut < -1:
            cut = -1
        if cut >= self.tau0:
            it = self.q0.upper_bound(cut)
            while it != self.q0.end():
                acc += deref(it).second
                inc(it)
            return acc
        for j in range(self.levels.size()):
            if self.levels[j].tau <= cut:
                d = self.levels[j].d
                qd_fold(d)
                for i in range(d.nodes.size()):
                    if qd_lo(d.nodes[i].first, self.T) > cut:
                        acc += d.nodes[i].second
                return acc
        raise AssertionError("the top level never discards")

    def level_for(self, w: int) -> int:
        """The level ℓ SWQUERY(w) uses (0: the exact buffer)."""
        cdef int64_t cut = self._now - check_window(w)
        cdef size_t j
        if cut < -1:
            cut = -1
        if cut >= self.tau0:
            return 0
        for j in range(self.levels.size()):
            if self.levels[j].tau <= cut:
                return j + 1
        raise AssertionError("the top level never discards")

    def cutoffs(self) -> list[int]:
        """``[τ_0, τ_1, …, τ_J]``."""
        return [self.tau0] + [self.levels[j].tau for j in range(self.levels.size())]

    def snapshot(self) -> WindowCountState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_count`."""
        cdef size_t j
        cdef cmap[int64_t, int64_t].iterator it
        levels = []
        for j in range(self.levels.size()):
            qd_fold(self.levels[j].d)
            levels.append(CountLevelState(j + 1, self.levels[j].gamma, self.levels[j].tau, qd_state_nodes(self.levels[j].d)))
        buffer = []
        it = self.q0.begin()
        while it != self.q0.end():
            buffer.append((deref(it).first, deref(it).second))
            inc(it)
        return WindowCountState(
            time_bits=self.T,
            eps=self._eps,
            alpha=self._alpha,
            now=self._now,
            total=self._total,
            buffer=tuple(buffer),
            tau0=self.tau0,
            levels=tuple(levels),
            compressed=self._pending == 0,
            pending=self._pending,
            compress_period=self._alpha,
        )

    def _memory_bytes(self) -> int:
        """Bytes of the level arrays (capacity) and Q_0's map nodes (about 48 bytes each)."""
        cdef size_t j, n = self.q0.size() * 48
        for j in range(self.levels.size()):
            n += (self.levels[j].d.nodes.capacity() + self.levels[j].d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)
        return n

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(time_bits={self.T}, eps={self._eps!r}, alpha={self._alpha}, "
                f"now={self._now}, total={self._total}, levels={self.levels.size()})")
