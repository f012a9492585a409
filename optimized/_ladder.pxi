# The time-wise ladder of paper 004 §3.1 (Fig. 1(b)), compiled, shared by _window_count.pyx and
# _window_quantiles.pyx: the C counterpart of reference/_ladder.py. Included after _qdigest_core.pxi and after the
# module defines
#   ctypedef ... Q0Key                                   key of a Q_0 entry (a timestamp, or (timestamp, value))
#   cdef inline int64_t q0_stamp(const Q0Key& k)          its timestamp                        [noexcept nogil]
#   cdef inline Q0Key q0_last(int64_t t)                 the largest key with timestamp t      [noexcept nogil]
#   ctypedef ... Level                                   an element of the level vector, with .gamma, .tau and
#                                                        .d (the time-wise QDCore*): a struct or a pointer
# and the module's class derives from _TimeLadder, implementing its three hooks (_compress_level, _copy_up,
# _discard). The shared methods are final (direct C calls, inlinable); the hooks run once per level per SWCOMPRESS.
#
# Complexity as in the reference: Q_0 insert O(log α) plus amortized O(1) evictions; SWCOMPRESS O(J·α log α)
# plus the hooks' work; choosing the level ℓ of a window O(J); a window count O(α + J).
#
# Robustness (issue 12), as reference/_ladder.py: α validated by the shared ``check_alpha`` (refused at 2**62);
# a ``busy`` flag (``_enter``) refuses overlapping calls with ReentrantCallError before any change; windows are
# clamped in Python (a window beyond the clock covers everything: no int64 overflow); exception safety strong.

cimport cython
from libcpp.map cimport map as cmap
from cython.operator cimport dereference as deref, preincrement as inc

from swagkit.reference._guard import reentered as _reentered, restore as _restore
from swagkit.reference._ladder import check_alpha as _check_alpha
from swagkit.reference.qdigest import int_arg as _int_arg, real_arg as _real_arg
from swagkit.spec.decay.input import check_advance, check_window

DEF MAX_TOTAL = 4611686018427387904  # 2**62


cdef class _TimeLadder:
    """Q_0 and the levels Q_1 … Q_J of §3.1: the state and the operations that do not depend on what a range
    carries (see reference/_ladder.py)."""

    cdef int T
    cdef double _eps
    cdef int64_t _alpha, _now, _total, tau0, q0_weight, _pending
    cdef cmap[Q0Key, int64_t] q0
    cdef vector[Level] levels
    cdef vector[int64_t] _removed  # ids one truncation discarded (scratch)
    cdef public object alpha_min
    cdef bint busy

    exception_safety = "strong"

    cdef int _start(self, int time_bits, double eps, object alpha_min, object alpha) except -1:
        """Validate α (default: the provable ``alpha_min``) and empty Q_0; the subclass adds level 1."""
        self.T = time_bits
        self._eps = eps
        self.alpha_min = alpha_min
        self._alpha = _check_alpha(alpha, alpha_min)
        self.busy = False
        self._now = 0
        self._total = 0
        self.tau0 = -1
        self.q0_weight = 0
        self._pending = 0
        self.q0.clear()
        return 0

    # -- parameters --------------------------------------------------------------------------------------------

    @property
    def time_bits(self) -> int:
        """T: timestamps lie in ``[0, 2**T)``."""
        return self.T

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

    # -- updates -----------------------------------------------------------------------------------------------

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.busy:
            raise _reentered(self.algorithm, operation)
        self.busy = True
        return 0

    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``)."""
        self._enter("advance")
        try:
            self._now = check_advance(_int_arg(t), self.T, self._now)
        finally:
            self.busy = False

    @cython.final
    cdef void _buffer_insert(self, Q0Key key, int64_t w) noexcept:
        """Q_0 ← Q_0 ∪ {key}; evict the smallest keys' weight beyond α, raising τ_0."""
        cdef cmap[Q0Key, int64_t].iterator it = self.q0.find(key)
        cdef int64_t excess, take, cur
        cdef Q0Key oldest
        if it == self.q0.end():
            self.q0[key] = w
        else:
            self.q0[key] = deref(it).second + w
        self.q0_weight += w
        excess = self.q0_weight - self._alpha
        while excess > 0:
            it = self.q0.begin()
            oldest = deref(it).first
            cur = deref(it).second
            take = excess if excess < cur else cur
            self.q0_weight -= take
            excess -= take
            if q0_stamp(oldest) > self.tau0:
                self.tau0 = q0_stamp(oldest)
            if take == cur:
                self.q0.erase(it)
            else:
                self.q0[oldest] = cur - take

    @cython.final
    cdef int _compress(self) except -1:
        """SWCOMPRESS (Alg. 3.2): per level, compress at the cap (hook), then (if over α ranges) copy the top level
        up before its first discard, truncate to the α rightmost ranges in post-order and raise τ_j."""
        cdef size_t j = 0
        cdef int64_t tau
        self._pending = 0
        while j < self.levels.size():
            self._compress_level(self.levels[j])
            if self.levels[j].d.nodes.size() > <size_t>self._alpha:
                if j == self.levels.size() - 1:
                    self.levels.push_back(self._copy_up(self.levels[j]))
                tau = self.levels[j].tau
                self._removed.clear()
                truncate_level(self.levels[j].d, &tau, self._alpha, &self._removed)
                self.levels[j].tau = tau
                self._discard(self.levels[j], self._removed)
            j += 1
        return 0

    cdef int _compress_level(self, Level lv) except -1:
        """Hook: QDCOMPRESS of one level at its fixed cap ``lv.gamma`` (and whatever the ranges carry)."""
        raise NotImplementedError

    cdef Level _copy_up(self, Level lv) except *:
        """Hook: a copy of the top level ``lv`` as the next level (cap ``2·lv.gamma``, cutoff -1)."""
        raise NotImplementedError

    cdef void _discard(self, Level lv, const vector[int64_t]& removed) noexcept:
        """Hook: the ranges ``removed`` were truncated from ``lv`` (nothing to do for counts alone)."""
        pass

    def compress(self) -> None:
        """SWCOMPRESS (Alg. 3.2)."""
        self._enter("compress")
        try:
            self._compress()
        finally:
            self.busy = False

    # -- choosing the level of a window ------------------------------------------------------------------------

    @cython.final
    cdef int64_t _cut(self, w) except? -3:
        """``t - w`` for a valid window ``w``, clamped to -1: the window is the timestamps ``> cut`` (computed on
        Python ints: any window size is valid, however large)."""
        cut = self._now - check_window(_int_arg(w))
        return -1 if cut < -1 else cut

    @cython.final
    cdef size_t _level_index(self, int64_t cut) noexcept:
        """ℓ for the window ``> cut``: 0 when Q_0 answers exactly (``cut >= τ_0``), else the first level with
        ``τ_ℓ <= cut`` (a linear scan: τ_j need not be monotone in j); J + 1 if none (unreachable: the top level
        never discards)."""
        cdef size_t j
        if cut >= self.tau0:
            return 0
        for j in range(self.levels.size()):
            if self.levels[j].tau <= cut:
                return j + 1
        return self.levels.size() + 1

    @cython.final
    cdef int64_t _window_count(self, int64_t cut) except -1:
        """Weight of the window ``> cut``: exact from Q_0, else ``Σ{c(r) : lo(r) > cut}`` on Q_ℓ."""
        cdef size_t l = self._level_index(cut), i
        cdef int64_t acc = 0
        cdef QDCore* d
        cdef cmap[Q0Key, int64_t].iterator it
        if l == 0:
            it = self.q0.upper_bound(q0_last(cut))
            while it != self.q0.end():
                acc += deref(it).second
                inc(it)
            return acc
        if l > self.levels.size():
            raise AssertionError("the top level never discards")
        d = self.levels[l - 1].d
        qd_fold(d)
        for i in range(d.nodes.size()):
            if qd_lo(d.nodes[i].first, self.T) > cut:
                acc += d.nodes[i].second
        return acc

    def level_for(self, w: int) -> int:
        """The level ℓ a window query for ``w`` uses (0: the exact buffer)."""
        cdef size_t l
        self._enter("level_for")
        try:
            l = self._level_index(self._cut(w))
            if l > self.levels.size():
                raise AssertionError("the top level never discards")
            return l
        finally:
            self.busy = False

    def cutoffs(self) -> list[int]:
        """``[τ_0, τ_1, …, τ_J]``."""
        self._enter("cutoffs")
        try:
            return [self.tau0] + [self.levels[j].tau for j in range(self.levels.size())]
        finally:
            self.busy = False

    cdef int _restore_ladder(self, int64_t now, int64_t total, int64_t tau0, int64_t pending, object buffer) except -1:
        """Install validated snapshot fields (``buffer``: ``(key, weight)`` pairs, keys increasing); the subclass
        installs its levels."""
        cdef int64_t weight = 0
        self._now, self._total, self.tau0, self._pending = now, total, tau0, pending
        self.q0.clear()
        for key, w in buffer:
            self.q0[key] = w
            weight += <int64_t>w
        self.q0_weight = weight
        return 0

    cdef inline tuple _saved(self):
        return (type(self), None, self._params(), self.snapshot(), None)

    def __reduce__(self):
        return (_restore, self._saved())

    def __copy__(self):
        return _restore(*self._saved())

    cdef dict _ladder_state(self):
        """The snapshot fields every ladder has (the buffer and levels are the subclass's)."""
        return dict(time_bits=self.T, eps=self._eps, alpha=self._alpha, now=self._now, total=self._total,
                    tau0=self.tau0, compressed=self._pending == 0, pending=self._pending,
                    compress_period=self._alpha)
