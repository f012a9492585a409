# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""Sliding-window ranges, quantiles and heavy hitters (defer merge) and any decay by reduction to windows,
compiled (paper 004 §3.2-3.3, §4.1).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.window_quantiles`: Q_0 is an ordered map
(timestamp, value) -> weight; every level is a C++ time-wise q-digest whose ranges own C++ value-wise q-digests
(a hash map id -> digest); the shared fixed-point compress reports its merges so the children's value digests
are merged into the parent's (union, one compress). Decayed queries evaluate built-in decays (exponential,
polynomial, sliding window, none) in C with the reference's formulas (so the floats are identical) and call
other decays in Python; the §4.1 atoms are visited in the reference's order (Q_0 sorted, ranges by id, value
ranges in post-order), so float sums agree bit for bit. The ladder itself (Q_0, the compress-and-truncate pass,
the choice of ℓ, the window count) is ``_TimeLadder`` of ``_ladder.pxi``, shared with ``_window_count``; this
module adds the value digests through its hooks (merge along, copy up, drop on discard).

Robustness (issue 12), as the reference: input validated before anything changes (numpy integers accepted;
weights and totals checked as Python ints: ``WeightOverflowError``, never a raw ``OverflowError``; a sliding-window
decay of any size); exception safety *strong* (updates run no user code; the decayed queries call the decay but
only read); a ``busy`` flag refuses overlapping calls -- a decay calling back, a second thread -- with
``ReentrantCallError`` before anything changes (not thread-safe); copies and pickles by snapshot, validated by
the reference's ``check_quantiles_state`` before anything reaches C.

Complexity: update O(J) hash lookups and vector appends (plus a value digest's own compress every
``8b/ε + 1`` of its inserts) and the amortized SWCOMPRESS; window queries O(size of one level); decayed queries
O(total size).
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow
from libcpp.map cimport map as cmap
from libc.string cimport memset
from libc.stdint cimport INT64_MAX
from cython.operator cimport dereference as deref, preincrement as inc

from swagkit.reference.qdigest import checked_size_bound as _checked_size_bound
from swagkit.reference.window_quantiles import check_quantiles_state as _check_quantiles_state
from swagkit.spec.decay import Decay
from swagkit.spec.decay.bounds import window_quantiles_alpha_min
from swagkit.spec.decay.input import (
    check_accuracy,
    check_bits,
    check_phi,
    check_rank_point,
    check_timestamp,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay.snapshots import QDigestState, RangeLevelState, RangeNodeState, WindowQuantilesState

ctypedef pair[int64_t, int64_t] Key       # (timestamp, value) of Q_0
ctypedef pair[int64_t, double] Ranged     # (hi, weight) for decayed answers


# -- open-addressing map heap id -> value digest (linear probing, backward-shift deletion; ids >= 1) --------------

cdef struct PtrMap:
    int64_t* keys
    QDCore** vals
    size_t mask
    size_t used


cdef int pm_alloc(PtrMap* m, size_t cap) except -1:
    m.keys = <int64_t*>PyMem_Malloc(cap * sizeof(int64_t))
    m.vals = <QDCore**>PyMem_Malloc(cap * sizeof(QDCore*))
    if m.keys == NULL or m.vals == NULL:
        PyMem_Free(m.keys)
        PyMem_Free(m.vals)
        raise MemoryError()
    memset(m.keys, 0, cap * sizeof(int64_t))
    m.mask = cap - 1
    m.used = 0
    return 0


cdef inline size_t pm_home(PtrMap* m, int64_t key) noexcept nogil:
    return <size_t>((<uint64_t>key * <uint64_t>0x9E3779B97F4A7C15ULL) >> 20) & m.mask


cdef inline QDCore* pm_get(PtrMap* m, int64_t key) noexcept nogil:
    cdef size_t h = pm_home(m, key)
    while m.keys[h] != 0:
        if m.keys[h] == key:
            return m.vals[h]
        h = (h + 1) & m.mask
    return NULL


cdef int pm_put(PtrMap* m, int64_t key, QDCore* val) except -1:
    """Insert or replace ``key``."""
    cdef size_t h, i, cap
    cdef int64_t* keys
    cdef QDCore** vals
    if 2 * (m.used + 1) > m.mask + 1:
        keys, vals, cap = m.keys, m.vals, m.mask + 1
        pm_alloc(m, 2 * cap)
        for i in range(cap):
            if keys[i] != 0:
                h = pm_home(m, keys[i])
                while m.keys[h] != 0:
                    h = (h + 1) & m.mask
                m.keys[h] = keys[i]
                m.vals[h] = vals[i]
                m.used += 1
        PyMem_Free(keys)
        PyMem_Free(vals)
    h = pm_home(m, key)
    while m.keys[h] != 0 and m.keys[h] != key:
        h = (h + 1) & m.mask
    if m.keys[h] == 0:
        m.used += 1
    m.keys[h] = key
    m.vals[h] = val
    return 0


cdef QDCore* pm_pop(PtrMap* m, int64_t key) noexcept nogil:
    """Remove ``key`` (backward-shift deletion keeps probe chains intact); its value, or NULL."""
    cdef size_t h = pm_home(m, key), j, home
    cdef QDCore* val
    while m.keys[h] != 0 and m.keys[h] != key:
        h = (h + 1) & m.mask
    if m.keys[h] == 0:
        return NULL
    val = m.vals[h]
    m.keys[h] = 0
    m.used -= 1
    j = h
    while True:
        j = (j + 1) & m.mask
        if m.keys[j] == 0:
            break
        home = pm_home(m, m.keys[j])
        # move j back to h when h lies cyclically in [home, j)
        if (h - home) & m.mask < (j - home) & m.mask:
            m.keys[h] = m.keys[j]
            m.vals[h] = m.vals[j]
            m.keys[j] = 0
            h = j
    return val


cdef cppclass RangeLevel:
    int64_t gamma
    int64_t tau
    QDCore* d
    PtrMap digests


# the ladder's parameters (see _ladder.pxi): Q_0 is keyed by (timestamp, value) -- eviction takes the oldest,
# ties smaller value first; the levels are heap-allocated (each owns its digests' hash table)
ctypedef Key Q0Key
ctypedef RangeLevel* Level


cdef inline int64_t q0_stamp(const Q0Key& k) noexcept nogil:
    return k.first


cdef inline Q0Key q0_last(int64_t t) noexcept nogil:
    return Key(t, INT64_MAX)


include "_ladder.pxi"


cdef class SlidingWindowQuantiles(_TimeLadder):
    """SlidingWindowQuantiles(time_bits, value_bits, eps, alpha=None)
--

Window ranges, quantiles and heavy hitters with additive error ``ε·D_w``, and any decay with error
    ``ε·D`` (paper 004 §3.2-3.3, §4.1), compiled; same API, snapshots and answers as
    ``swagkit.reference.SlidingWindowQuantiles``. Exception safety: strong (updates run no user code; decayed
    queries only read). Not thread-safe: an overlapping call (from a decay, or a second thread) raises
    ``ReentrantCallError``."""

    cdef int B
    cdef double veps
    cdef int64_t vm
    cdef int ve
    cdef int64_t vperiod

    algorithm = "window_quantiles"
    exception_safety = "strong"

    def __cinit__(self, time_bits, value_bits, eps, alpha=None):
        cdef int T = check_bits(_int_arg(time_bits), "time_bits")
        self.B = check_bits(_int_arg(value_bits), "value_bits")
        cdef double e = check_accuracy(_real_arg(eps), "eps")
        self.veps = e / 2
        self._start(T, e, window_quantiles_alpha_min(T, e), alpha)
        self._free()
        self.vm, self.ve = eps_exact(self.veps)
        self.vperiod = _checked_size_bound(self.B, self.veps, "eps/2")
        self.levels.push_back(self._new_level(1))

    cdef RangeLevel* _new_level(self, int64_t gamma) except NULL:
        cdef RangeLevel* lv = new RangeLevel()
        lv.gamma = gamma
        lv.tau = -1
        lv.d = qd_new(self.T, 1, 0, 0.0, 1)
        pm_alloc(&lv.digests, 64)
        return lv

    cdef QDCore* _new_digest(self) except NULL:
        return qd_take(self.B, self.vm, self.ve, self.veps, self.vperiod)

    cdef void _free_level(self, RangeLevel* lv) noexcept:
        cdef size_t i
        for i in range(lv.digests.mask + 1):
            if lv.digests.keys[i] != 0:
                del lv.digests.vals[i]
        PyMem_Free(lv.digests.keys)
        PyMem_Free(lv.digests.vals)
        del lv.d
        del lv

    cdef void _free(self) noexcept:
        cdef size_t i
        for i in range(self.levels.size()):
            self._free_level(self.levels[i])
        self.levels.clear()

    def __dealloc__(self) -> None:
        self._free()

    # -- parameters --------------------------------------------------------------------------------------------

    @property
    def value_bits(self) -> int:
        return self.B

    @property
    def eps(self) -> float:
        """ε: additive error ``ε·D_w`` of window ranks (``ε·D`` for decayed ranks)."""
        return self._eps

    def node_count(self) -> int:
        """Space in the paper's unit: Q_0 entries, time-wise ranges and the ranges of all value digests."""
        cdef size_t i, k, n = self.q0.size()
        cdef RangeLevel* lv
        self._enter("node_count")
        try:
            for i in range(self.levels.size()):
                lv = self.levels[i]
                qd_fold(lv.d)
                n += lv.d.nodes.size()
                for k in range(lv.digests.mask + 1):
                    if lv.digests.keys[k] != 0:
                        qd_fold(lv.digests.vals[k])
                        n += lv.digests.vals[k].nodes.size()
            return n
        finally:
            self.busy = False

    # -- updates -----------------------------------------------------------------------------------------------

    cdef int _insert(self, int64_t x, int64_t t, int64_t w) except -1:
        cdef size_t j
        cdef int64_t leaf = ((<int64_t>1) << self.T) + t
        cdef int64_t vleaf = ((<int64_t>1) << self.B) + x
        cdef RangeLevel* lv
        cdef QDCore* vd
        self._total += w
        self._buffer_insert(Key(t, x), w)
        for j in range(self.levels.size()):
            lv = self.levels[j]
            if t > lv.tau:
                lv.d.buf.push_back(Node(leaf, w))
                lv.d.total += w
                vd = pm_get(&lv.digests, leaf)
                if vd == NULL:
                    vd = self._new_digest()
                    pm_put(&lv.digests, leaf, vd)
                qd_insert(vd, vleaf, w)
        self._pending += 1
        if self._pending >= self._alpha:
            self._compress()
        return 0

    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """SWUPDATE: record ``weight`` copies of ``value`` stamped ``timestamp <= now`` (validated first)."""
        cdef int overflow = 0
        cdef long long x, t, w
        if self.busy:
            raise _reentered("window_quantiles", "insert")
        if type(value) is int and type(timestamp) is int and type(weight) is int:  # fast path: no Python code
            x = PyLong_AsLongLongAndOverflow(value, &overflow)
            if overflow == 0 and 0 <= x < ((<int64_t>1) << self.B):
                t = PyLong_AsLongLongAndOverflow(timestamp, &overflow)
                if overflow == 0 and 0 <= t <= self._now:
                    w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                    if overflow == 0 and 0 < w < MAX_TOTAL and self._total + w < MAX_TOTAL:
                        self._insert(x, t, w)
                        return
        self._enter("insert")
        try:
            xx = check_value(_int_arg(value), self.B)
            tt = check_timestamp(_int_arg(timestamp), self.T, self._now)
            ww = check_weight(_int_arg(weight))
            check_total(self._total, ww)  # on Python ints: WeightOverflowError, never a raw OverflowError
            if ww:
                self._insert(xx, tt, ww)
        finally:
            self.busy = False

    def insert_many(self, items: Iterable[tuple[int, int]]) -> None:
        """Insert ``(value, timestamp)`` pairs with weight 1 (all validated first)."""
        cdef vector[Key] pairs
        cdef size_t i
        self._enter("insert_many")
        try:
            for x, t in items:
                pairs.push_back(Key(check_value(_int_arg(x), self.B), check_timestamp(_int_arg(t), self.T, self._now)))
            check_total(self._total, pairs.size())
            for i in range(pairs.size()):
                self._insert(pairs[i].first, pairs[i].second, 1)
        finally:
            self.busy = False

    cdef int _compress_level(self, Level lv) except -1:
        """Compress at the cap; when a time-wise family merges into its parent, the children's value digests are
        merged into the parent's (union, then one compress)."""
        cdef vector[Merge] merges
        cdef size_t k
        cdef QDCore* dp
        cdef QDCore* cd
        cdef int side
        qd_compress_lim(lv.d, lv.gamma, &merges)
        for k in range(merges.size()):
            dp = pm_get(&lv.digests, merges[k].parent)
            if dp == NULL:
                dp = self._new_digest()
                pm_put(&lv.digests, merges[k].parent, dp)
            for side in range(2):
                cd = pm_pop(&lv.digests, merges[k].left if side == 0 else merges[k].right)
                if cd != NULL:
                    qd_absorb(dp, cd)
                    qd_give(cd)
            qd_compress(dp, NULL)
        return 0

    cdef Level _copy_up(self, Level lv) except *:
        cdef RangeLevel* up = new RangeLevel()
        up.gamma = lv.gamma * 2
        up.tau = -1
        up.d = qd_copy(lv.d)
        pm_alloc(&up.digests, lv.digests.mask + 1)
        cdef size_t i
        for i in range(lv.digests.mask + 1):
            if lv.digests.keys[i] != 0:
                pm_put(&up.digests, lv.digests.keys[i], qd_copy(lv.digests.vals[i]))
        return up

    cdef void _discard(self, Level lv, const vector[int64_t]& removed) noexcept:
        """A discarded range drops its value digest."""
        cdef size_t k
        for k in range(removed.size()):
            qd_give(pm_pop(&lv.digests, removed[k]))

    # -- window queries ----------------------------------------------------------------------------------------

    cdef RangeLevel* _level_of(self, int64_t cut) noexcept:
        """NULL: Q_0 answers exactly; else Q_ℓ."""
        cdef size_t l = self._level_index(cut)
        if l == 0 or l > self.levels.size():
            return NULL
        return self.levels[l - 1]

    cdef QDCore* _digest_of(self, RangeLevel* lv, int64_t node) noexcept:
        return pm_get(&lv.digests, node)

    def count(self, w: int) -> int:
        """``D̂_w``: estimated weight with ``now - t_i < w`` (under by at most ``(ε/2)·D_w``)."""
        self._enter("count")
        try:
            return self._count_impl(w)
        finally:
            self.busy = False

    def _count_impl(self, w: int) -> int:
        """``D̂_w``: estimated weight with ``now - t_i < w`` (under by at most ``(ε/2)·D_w``)."""
        return self._window_count(self._cut(w))

    def rank(self, x: int, w: int) -> int:
        """``r̂(w, x)``: estimated weight with value ``< x`` in the window; ``0 <= r - r̂ <= ε·D_w``."""
        self._enter("rank")
        try:
            return self._rank_impl(x, w)
        finally:
            self.busy = False

    def _rank_impl(self, x: int, w: int) -> int:
        """``r̂(w, x)``: estimated weight with value ``< x`` in the window; ``0 <= r - r̂ <= ε·D_w``."""
        cdef int64_t q = check_rank_point(_int_arg(x), self.B)
        cdef int64_t cut = self._cut(w), acc = 0
        cdef RangeLevel* lv = self._level_of(cut)
        cdef size_t i
        cdef QDCore* vd
        cdef cmap[Key, int64_t].iterator it
        if lv == NULL:
            it = self.q0.begin()
            while it != self.q0.end():
                if deref(it).first.first > cut and deref(it).first.second < q:
                    acc += deref(it).second
                inc(it)
            return acc
        qd_fold(lv.d)
        for i in range(lv.d.nodes.size()):
            if qd_lo(lv.d.nodes[i].first, self.T) > cut:
                vd = self._digest_of(lv, lv.d.nodes[i].first)
                qd_fold(vd)
                acc += qd_rank(vd, q)
        return acc

    def range_count(self, lo: int, hi: int, w: int) -> int:
        """Estimated weight with ``lo <= value <= hi`` in the window (error ``<= 2ε·D_w``)."""
        self._enter("range_count")
        try:
            return self._range_count_impl(lo, hi, w)
        finally:
            self.busy = False

    def _range_count_impl(self, lo: int, hi: int, w: int) -> int:
        """Estimated weight with ``lo <= value <= hi`` in the window (error ``<= 2ε·D_w``)."""
        a = check_value(_int_arg(lo), self.B)
        b = check_value(_int_arg(hi), self.B)
        if a > b:
            return 0
        return self._rank_impl(b + 1, w) - self._rank_impl(a, w)

    cdef int64_t _window_ranges(self, w, vector[Node]* out) except -1:
        """D̂_w, and the window's (hi, weight) pairs in ``out``."""
        cdef int64_t cut = self._cut(w), total = 0
        cdef RangeLevel* lv = self._level_of(cut)
        cdef size_t i
        cdef QDCore* vd
        cdef cmap[Key, int64_t].iterator it
        if lv == NULL:
            it = self.q0.begin()
            while it != self.q0.end():
                if deref(it).first.first > cut:
                    out.push_back(Node(deref(it).first.second, deref(it).second))
                    total += deref(it).second
                inc(it)
            return total
        qd_fold(lv.d)
        for i in range(lv.d.nodes.size()):
            if qd_lo(lv.d.nodes[i].first, self.T) > cut:
                total += lv.d.nodes[i].second
                vd = self._digest_of(lv, lv.d.nodes[i].first)
                qd_fold(vd)
                qd_post_order(vd, out)
        return total

    def quantile(self, phi: float, w: int) -> int | None:
        """The smallest x with ``r̂(w, x+1) >= φ·D̂_w`` (None for an empty window)."""
        self._enter("quantile")
        try:
            return self._quantile_impl(phi, w)
        finally:
            self.busy = False

    def _quantile_impl(self, phi: float, w: int) -> int | None:
        """The smallest x with ``r̂(w, x+1) >= φ·D̂_w`` (None for an empty window)."""
        cdef double p = check_phi(_real_arg(phi))
        cdef vector[Node] ranges
        cdef int64_t total = self._window_ranges(w, &ranges), acc = 0
        cdef size_t i
        if total <= 0:
            return None
        cdef double target = p * total
        if target <= 0:
            return 0
        stable_sort(ranges.begin(), ranges.end(), node_less)
        for i in range(ranges.size()):
            acc += ranges[i].second
            if acc >= target:
                return ranges[i].first
        return ranges[ranges.size() - 1].first

    def heavy_hitters(self, phi: float, w: int) -> list[int]:
        """Values p with ``f̂(p) >= φ·D̂_w`` (sorted)."""
        self._enter("heavy_hitters")
        try:
            return self._heavy_hitters_impl(phi, w)
        finally:
            self.busy = False

    def _heavy_hitters_impl(self, phi: float, w: int) -> list[int]:
        """Values p with ``f̂(p) >= φ·D̂_w`` (sorted)."""
        cdef double p = check_phi(_real_arg(phi), open_low=True)
        cdef vector[Node] ranges
        cdef int64_t total = self._window_ranges(w, &ranges)
        cdef cmap[int64_t, int64_t] freq
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

    # -- any decay (§4.1) --------------------------------------------------------------------------------------

    cdef double _ranges_decayed(self, DecayEval* g, vector[Ranged]* out, int64_t q, double* rank, double* count) except? -1.0:
        """Walk the §4.1 atoms in the reference's order: ``count`` = Σ k·weight over all atoms, ``rank`` = the
        decayed rank at ``q`` (if ``q >= 0``), ``out`` = weighted value ranges (if given); returns Σ over k != 0."""
        cdef int64_t t = self._now
        cdef int64_t a0 = self.tau0 if self.tau0 > -1 else -1
        cdef int64_t upper = self.tau0 - 1, lo_u, hi_u, top, s
        cdef double k, total = 0.0
        cdef size_t j, i, r
        cdef RangeLevel* lv
        cdef QDCore* vd
        cdef vector[Node] post
        cdef cmap[Key, int64_t].iterator it = self.q0.begin()
        count[0] = 0.0
        rank[0] = 0.0
        while it != self.q0.end():
            s = deref(it).first.first
            if s - 1 >= a0:
                top = (t - 1) if (t - 1) < (s - 1) else (s - 1)
                k = self._coef(g, t, top, a0)
                count[0] += k * <double>deref(it).second
                if k != 0.0:
                    total += k * <double>deref(it).second
                    if q >= 0:
                        rank[0] += k * <double>deref(it).second if deref(it).first.second < q else 0.0
                    if out != NULL:
                        out.push_back(Ranged(deref(it).first.second, k * <double>deref(it).second))
            inc(it)
        for j in range(self.levels.size()):
            lv = self.levels[j]
            lo_u = lv.tau if lv.tau > -1 else -1
            hi_u = upper if upper < t - 1 else t - 1
            if hi_u >= lo_u:
                qd_fold(lv.d)
                for i in range(lv.d.nodes.size()):
                    top = qd_lo(lv.d.nodes[i].first, self.T) - 1
                    if hi_u < top:
                        top = hi_u
                    if top >= lo_u:
                        k = self._coef(g, t, top, lo_u)
                        count[0] += k * <double>lv.d.nodes[i].second
                        if k != 0.0:
                            total += k * <double>lv.d.nodes[i].second
                            vd = self._digest_of(lv, lv.d.nodes[i].first)
                            qd_fold(vd)
                            if q >= 0:
                                rank[0] += k * <double>qd_rank(vd, q)
                            if out != NULL:
                                post.clear()
                                qd_post_order(vd, &post)
                                for r in range(post.size()):
                                    out.push_back(Ranged(post[r].first, k * <double>post[r].second))
            if lv.tau - 1 < upper:
                upper = lv.tau - 1
        return total

    cdef double _coef(self, DecayEval* g, int64_t t, int64_t u_top, int64_t u_bot) except? -1.0:
        """``max(0, g(t - u_top - 1) - G(t - u_bot))`` with ``G(t+1) = 0`` (the reference's ``coef``)."""
        cdef double G = 0.0 if (t - u_bot) > t else decay_at(g, t - u_bot)
        cdef double v = decay_at(g, t - u_top - 1) - G
        return v if v > 0.0 else 0.0

    def decayed_count(self, decay: Decay) -> float:
        """``D̂`` for decay g at the current time: ``D - (ε/2)·D <= D̂ <= D``."""
        self._enter("decayed_count")
        try:
            return self._decayed_count_impl(decay)
        finally:
            self.busy = False

    def _decayed_count_impl(self, decay: Decay) -> float:
        """``D̂`` for decay g at the current time: ``D - (ε/2)·D <= D̂ <= D``."""
        cdef DecayEval g
        cdef double rank, count
        decay_init(&g, decay)
        self._ranges_decayed(&g, NULL, -1, &rank, &count)
        return count

    def decayed_rank(self, x: int, decay: Decay) -> float:
        """``R̂_g(x)``: decayed weight with value ``< x``; ``0 <= R_g(x) - R̂_g(x) <= ε·D``."""
        self._enter("decayed_rank")
        try:
            return self._decayed_rank_impl(x, decay)
        finally:
            self.busy = False

    def _decayed_rank_impl(self, x: int, decay: Decay) -> float:
        """``R̂_g(x)``: decayed weight with value ``< x``; ``0 <= R_g(x) - R̂_g(x) <= ε·D``."""
        cdef int64_t q = check_rank_point(_int_arg(x), self.B)
        cdef DecayEval g
        cdef double rank, count
        decay_init(&g, decay)
        self._ranges_decayed(&g, NULL, q, &rank, &count)
        return rank

    def decayed_quantile(self, phi: float, decay: Decay) -> int | None:
        """The smallest x with ``R̂_g(x+1) >= φ·D̂`` (two-sided test with ε and the decayed count D)."""
        self._enter("decayed_quantile")
        try:
            return self._decayed_quantile_impl(phi, decay)
        finally:
            self.busy = False

    def _decayed_quantile_impl(self, phi: float, decay: Decay) -> int | None:
        """The smallest x with ``R̂_g(x+1) >= φ·D̂`` (two-sided test with ε and the decayed count D)."""
        cdef double p = check_phi(_real_arg(phi))
        cdef DecayEval g
        cdef vector[Ranged] ranges
        cdef double rank, count, total, acc = 0.0
        cdef size_t i
        decay_init(&g, decay)
        total = self._ranges_decayed(&g, &ranges, -1, &rank, &count)
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

    def decayed_heavy_hitters(self, phi: float, decay: Decay) -> list[int]:
        """Values with ``f̂_g(p) >= φ·D̂`` (Definition 4 with the decayed count)."""
        self._enter("decayed_heavy_hitters")
        try:
            return self._decayed_heavy_hitters_impl(phi, decay)
        finally:
            self.busy = False

    def _decayed_heavy_hitters_impl(self, phi: float, decay: Decay) -> list[int]:
        """Values with ``f̂_g(p) >= φ·D̂`` (Definition 4 with the decayed count)."""
        cdef double p = check_phi(_real_arg(phi), open_low=True)
        cdef DecayEval g
        cdef vector[Ranged] ranges
        cdef double rank, count, total
        cdef size_t i
        cdef cmap[int64_t, double] freq
        decay_init(&g, decay)
        total = self._ranges_decayed(&g, &ranges, -1, &rank, &count)
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

    # -- introspection -----------------------------------------------------------------------------------------

    def snapshot(self) -> WindowQuantilesState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_quantiles`."""
        self._enter("snapshot")
        try:
            return self._snapshot_impl()
        finally:
            self.busy = False

    def _snapshot_impl(self) -> WindowQuantilesState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_quantiles`."""
        cdef size_t j, i
        cdef RangeLevel* lv
        cdef cmap[Key, int64_t].iterator it
        levels = []
        for j in range(self.levels.size()):
            lv = self.levels[j]
            qd_fold(lv.d)
            nodes = []
            for i in range(lv.d.nodes.size()):
                nodes.append(RangeNodeState(lv.d.nodes[i].first, lv.d.nodes[i].second,
                                            qd_snapshot(self._digest_of(lv, lv.d.nodes[i].first), QDigestState)))
            levels.append(RangeLevelState(j + 1, lv.gamma, lv.tau, tuple(nodes)))
        buffer = []
        it = self.q0.begin()
        while it != self.q0.end():
            buffer.append((deref(it).first.first, deref(it).first.second, deref(it).second))
            inc(it)
        return WindowQuantilesState(**self._ladder_state(), value_bits=self.B, buffer=tuple(buffer),
                                    levels=tuple(levels))

    def _params(self):
        return {"time_bits": self.T, "value_bits": self.B, "eps": self._eps, "alpha": self._alpha}

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, *, time_bits, value_bits, eps, alpha):
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling). The shape is validated in
        Python first (the reference's ``check_quantiles_state``): a malformed snapshot raises ``TypeError``/
        ``ValueError`` and nothing reaches C."""
        cdef SlidingWindowQuantiles obj = cls(time_bits, value_bits, eps, alpha)
        cdef RangeLevel* lv
        cdef QDCore* vd
        cdef int64_t level_total
        now, total, tau0, pending, buffer, levels = _check_quantiles_state(
            snapshot, obj.T, obj.B, obj._eps, obj._alpha)
        obj._restore_ladder(now, total, tau0, pending, [((t, v), w) for t, v, w in buffer])
        obj._free()
        for gamma, tau, nodes in levels:
            lv = obj._new_level(gamma)
            obj.levels.push_back(lv)  # owned by the structure from here on (freed with it)
            lv.tau = tau
            level_total = 0
            for node, count, (dnodes, dtotal, dpending) in nodes:
                lv.d.nodes.push_back(Node(node, count))
                level_total += <int64_t>count
                vd = obj._new_digest()
                pm_put(&lv.digests, node, vd)
                for vnode, vcount in dnodes:
                    vd.nodes.push_back(Node(vnode, vcount))
                vd.total = dtotal
                vd.pending = dpending
            lv.d.total = level_total
        return obj

    def _memory_bytes(self) -> int:
        """Bytes of all range arrays (capacity), digest structs, hash tables, and about 64 bytes per Q_0 entry."""
        cdef size_t j, k, n = self.q0.size() * 64
        cdef RangeLevel* lv
        cdef QDCore* vd
        for j in range(self.levels.size()):
            lv = self.levels[j]
            n += (lv.d.nodes.capacity() + lv.d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)
            n += (lv.digests.mask + 1) * (sizeof(int64_t) + sizeof(QDCore*))
            for k in range(lv.digests.mask + 1):
                if lv.digests.keys[k] != 0:
                    vd = lv.digests.vals[k]
                    n += (vd.nodes.capacity() + vd.buf.capacity()) * sizeof(Node) + sizeof(QDCore)
        return n

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(time_bits={self.T}, value_bits={self.B}, eps={self._eps!r}, "
                f"alpha={self._alpha}, now={self._now}, total={self._total}, levels={self.levels.size()})")


cdef inline bint ranged_less(const Ranged& a, const Ranged& b) noexcept nogil:
    return a.first < b.first
