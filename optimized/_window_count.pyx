# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""Sliding-window count with out-of-order arrivals, compiled (paper 004 §3.1, Theorem 1).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.window_count`: Q_0 is an ordered map
timestamp -> weight (evict from the front), the levels are C++ q-digests over the time universe (inserts append
to a buffer; SWCOMPRESS runs the shared fixed-point compress at the fixed cap ``2^j``, copies the top level up
before its first discard and truncates to the α rightmost ranges in post-order). The ladder itself (Q_0, the
compress-and-truncate pass, the choice of ℓ, the window count) is ``_TimeLadder`` of ``_ladder.pxi``, shared with
``_window_quantiles``; this module supplies the level type and the per-level compress and copy.

Robustness (issue 12), as the reference: input validated before anything changes (numpy integers accepted;
weights and totals checked as Python ints: ``WeightOverflowError``, never a raw ``OverflowError``); exception
safety *strong* (no user code runs while the structure changes); overlapping calls refused with
``ReentrantCallError`` (not thread-safe); copies and pickles by snapshot, validated by the reference's
``check_count_state`` before anything reaches C.

Complexity: update O(J + log α) (a map insert and one vector append per level) plus the amortized SWCOMPRESS
(O(J·α log α) every α updates); query O(α + J). Space: at most α ranges per level after compress.
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow
from libcpp.map cimport map as cmap
from cython.operator cimport dereference as deref, preincrement as inc

from swagkit.reference.window_count import check_count_state as _check_count_state
from swagkit.spec.decay.bounds import window_count_alpha_min
from swagkit.spec.decay.input import check_accuracy, check_bits, check_timestamp, check_total, check_weight
from swagkit.spec.decay.snapshots import CountLevelState, WindowCountState


cdef cppclass CountLevel:
    int64_t gamma
    int64_t tau
    QDCore* d


# the ladder's parameters (see _ladder.pxi): Q_0 is keyed by timestamp; the levels are stored by value
ctypedef int64_t Q0Key
ctypedef CountLevel Level


cdef inline int64_t q0_stamp(const Q0Key& k) noexcept nogil:
    return k


cdef inline Q0Key q0_last(int64_t t) noexcept nogil:
    return t


include "_ladder.pxi"


cdef class SlidingWindowCount(_TimeLadder):
    """SlidingWindowCount(time_bits, eps, alpha=None)
--

Out-of-order sliding-window count with relative error ε (paper 004 §3.1), compiled; same API, snapshots
    and answers as ``swagkit.reference.SlidingWindowCount``. Exception safety: strong (no user code runs while it
    changes). Not thread-safe: an overlapping call raises ``ReentrantCallError``."""

    algorithm = "window_count"
    exception_safety = "strong"

    def __cinit__(self, time_bits, eps, alpha=None):
        cdef int T = check_bits(_int_arg(time_bits), "time_bits")
        cdef double e = check_accuracy(_real_arg(eps), "eps")
        self._start(T, e, window_count_alpha_min(T, e), alpha)
        self._free()
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
    def eps(self) -> float:
        """ε: relative error of every window count."""
        return self._eps

    def node_count(self) -> int:
        """Stored ranges over all levels plus distinct timestamps in Q_0."""
        cdef size_t i, n = self.q0.size()
        self._enter("node_count")
        try:
            for i in range(self.levels.size()):
                qd_fold(self.levels[i].d)
                n += self.levels[i].d.nodes.size()
            return n
        finally:
            self.busy = False

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

    def insert(self, timestamp: int, weight: int = 1) -> None:
        """SWUPDATE: record ``weight`` items stamped ``timestamp <= now`` (validated first)."""
        cdef int overflow = 0
        cdef long long t, w
        if self.busy:
            raise _reentered("window_count", "insert")
        if type(timestamp) is int and type(weight) is int:  # fast path: no Python code runs
            t = PyLong_AsLongLongAndOverflow(timestamp, &overflow)
            if overflow == 0 and 0 <= t <= self._now:
                w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                if overflow == 0 and 0 < w < MAX_TOTAL and self._total + w < MAX_TOTAL:
                    self._insert(t, w)
                    return
        self._enter("insert")
        try:
            tt = check_timestamp(_int_arg(timestamp), self.T, self._now)
            ww = check_weight(_int_arg(weight))
            check_total(self._total, ww)  # on Python ints: WeightOverflowError, never a raw OverflowError
            if ww:
                self._insert(tt, ww)
        finally:
            self.busy = False

    def insert_many(self, timestamps: Iterable[int]) -> None:
        """Insert each timestamp with weight 1 (all validated first: on bad input nothing is inserted)."""
        cdef vector[int64_t] ts
        cdef size_t i
        self._enter("insert_many")
        try:
            for t in timestamps:
                ts.push_back(check_timestamp(_int_arg(t), self.T, self._now))
            check_total(self._total, ts.size())
            for i in range(ts.size()):
                self._insert(ts[i], 1)
        finally:
            self.busy = False

    cdef int _compress_level(self, Level lv) except -1:
        qd_compress_lim(lv.d, lv.gamma, NULL)
        return 0

    cdef Level _copy_up(self, Level lv) except *:
        cdef CountLevel up
        up.gamma = lv.gamma * 2
        up.tau = -1
        up.d = qd_copy(lv.d)
        return up

    # -- queries -----------------------------------------------------------------------------------------------

    def count(self, w: int) -> int:
        """SWQUERY(w): estimate of ``D_w(now)`` within ``ε·D_w`` (never above it); exact when ``now - w >= τ_0``."""
        self._enter("count")
        try:
            return self._window_count(self._cut(w))
        finally:
            self.busy = False

    def snapshot(self) -> WindowCountState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_count`."""
        cdef size_t j
        cdef cmap[int64_t, int64_t].iterator it
        self._enter("snapshot")
        try:
            levels = []
            for j in range(self.levels.size()):
                qd_fold(self.levels[j].d)
                levels.append(CountLevelState(j + 1, self.levels[j].gamma, self.levels[j].tau, qd_state_nodes(self.levels[j].d)))
            buffer = []
            it = self.q0.begin()
            while it != self.q0.end():
                buffer.append((deref(it).first, deref(it).second))
                inc(it)
            return WindowCountState(**self._ladder_state(), buffer=tuple(buffer), levels=tuple(levels))
        finally:
            self.busy = False

    def _params(self):
        return {"time_bits": self.T, "eps": self._eps, "alpha": self._alpha}

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, *, time_bits, eps, alpha):
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling). The shape is validated in
        Python first (the reference's ``check_count_state``): a malformed snapshot raises ``TypeError``/
        ``ValueError`` and nothing reaches C."""
        cdef SlidingWindowCount obj = cls(time_bits, eps, alpha)
        cdef CountLevel lv
        cdef int64_t level_total
        now, total, tau0, pending, buffer, levels = _check_count_state(snapshot, obj.T, obj._eps, obj._alpha)
        obj._restore_ladder(now, total, tau0, pending, buffer)
        obj._free()
        for gamma, tau, nodes in levels:
            lv.gamma = gamma
            lv.tau = tau
            lv.d = qd_new(obj.T, 1, 0, 0.0, 1)
            obj.levels.push_back(lv)  # owned by the structure from here on (freed with it)
            level_total = 0
            for node, count in nodes:
                lv.d.nodes.push_back(Node(node, count))
                level_total += <int64_t>count
            lv.d.total = level_total
        return obj

    def _memory_bytes(self) -> int:
        """Bytes of the level arrays (capacity) and Q_0's map nodes (about 48 bytes each)."""
        cdef size_t j, n = self.q0.size() * 48
        for j in range(self.levels.size()):
            n += (self.levels[j].d.nodes.capacity() + self.levels[j].d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)
        return n

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(time_bits={self.T}, eps={self._eps!r}, alpha={self._alpha}, "
                f"now={self._now}, total={self._total}, levels={self.levels.size()})")
