# cython: language_level=3, annotation_typing=False
# SlickDeque (paper 001), compiled: SlickDequeInv (Algorithm 1) and SlickDequeNonInv (Algorithm 2).
#
# Same API, snapshots, combine_count (and inverse_count) as swagkit.reference.slickdeque; the ⊗ call sequence is
# identical, so float results are bit-identical. Typed fast paths (no Python call per ⊗): Inv over sum_f64 /
# sum_i64 (inverse = negation, as the reference uses for sum_f64 and the library's wrapping _neg64 for sum_i64),
# Non-Inv over max/min f64/i64 (the dominance test ``(back ⊗ v) == v`` is the kind's combine and ==). Storage is
# a growable ring buffer of C slots (power-of-two size; O(1) amortized growth, indexing O(1)); Inv in multi-query
# mode uses a fixed ring of W slots as Algorithm 1.
#
# ``_window_sum`` is the compiled kernel of ``swagkit.optimized.window_sum`` (include/window_sum.h, C loops: the
# plain-mode Inv running sum for sum_i64, and for sum_f64 block prefix and suffix folds that keep every answer a
# summation tree over its own frame; see optimized/_window_sum.py), and the sum_i64 ``window_array`` path of
# SlickDequeInv runs it too (exact: any order of wrapping additions agrees).
#
# Hardening (issue 12), as the reference (see its module docstring): exception safety *strong* (every ⊗ and
# inverse result, and a refold made due by the update, is computed before anything is written; the typed paths
# cannot fail half-way), a re-entry guard on every public method (``state``: refused before any change), sizes
# checked before they reach malloc (Inv's ring: ``check_ring_size``; Non-Inv's ring grows with its deque), and
# copies/pickles by snapshot with the counters.

include "_common.pxi"

cimport cython
from libc.stdint cimport INT64_MIN
from cpython.pyport cimport PY_SSIZE_T_MAX

from swagkit.spec.monoid import as_monoid as _as_monoid
from swagkit.spec.f64_track import restore as _restore_tracks
from swagkit.spec.slickdeque import normalize_ranges, require_invertible, require_selective
from swagkit.spec.snapshots import SlickDequeInvState, SlickDequeNonInvState
from swagkit.reference.slickdeque import (
    check_index_size as _check_index_size,
    check_recompute_every as _check_recompute_every,
    check_ring_size as _check_ring_size,
    inv_snapshot_shape as _inv_snapshot_shape,
    noninv_snapshot_shape as _noninv_snapshot_shape,
)
from swagkit.reference._guard import check_count as _check_count, reentered as _reentered, restore as _restore

# the guard's states: not initialized (``__init__`` never ran or raised), ready, inside a public method
cdef enum:
    ST_NEW = 0
    ST_READY = 1
    ST_BUSY = 2

#: the most slots a ring may have (8-byte values and sequence numbers; = reference.slickdeque.MAX_RING_SLOTS):
#: beyond it malloc's byte count could overflow
cdef Py_ssize_t RING_MAX = PY_SSIZE_T_MAX // 16


cdef inline int _restore_slot(int kind, object x, Slot* out) except -1:
    """A snapshot's stored value for a typed kind (``reference.slickdeque.restored_value_check``): any float for
    the f64 kinds (a stored aggregate may be NaN: inf + -inf), else validated like ``insert``."""
    if kind <= K_MIN_F and PyFloat_Check(x):
        out.f = PyFloat_AS_DOUBLE(x)
        return 0
    return to_slot(kind, x, out)


cdef inline bint _is_sum(int kind) noexcept nogil:
    return kind == K_SUM_F or kind == K_SUM_I


cdef inline Slot _tneg(int kind, Slot a) noexcept nogil:
    cdef Slot r
    if kind == K_SUM_F:
        r.f = -a.f
    else:
        r.i = <int64_t>(<uint64_t>0 - <uint64_t>a.i)
    return r


cdef inline bint _teq(int kind, Slot a, Slot b) noexcept nogil:
    if kind <= K_MIN_F:
        return a.f == b.f
    return a.i == b.i


cdef struct Ring:
    Slot* vals
    int64_t* seqs     # NULL when unused
    Py_ssize_t head
    Py_ssize_t m
    Py_ssize_t size   # a power of two


cdef int ring_init(Ring* r, Py_ssize_t size, bint with_seqs) except -1:
    """Empty ring of ``size`` slots (1 ≤ size ≤ RING_MAX, checked before malloc); MemoryError leaves ``r`` empty."""
    r.head = 0
    r.m = 0
    r.size = 0
    r.vals = NULL
    r.seqs = NULL
    if size < 1 or size > RING_MAX:
        raise MemoryError()
    r.vals = <Slot*>malloc(size * sizeof(Slot))
    r.seqs = <int64_t*>malloc(size * sizeof(int64_t)) if with_seqs else NULL
    if r.vals == NULL or (with_seqs and r.seqs == NULL):
        free(r.vals)
        free(r.seqs)
        r.vals = NULL
        r.seqs = NULL
        raise MemoryError()
    r.size = size
    return 0


cdef int ring_grow_ng(Ring* r) noexcept nogil:
    """Double the ring without the GIL: -1 (nothing changed) when out of memory or beyond RING_MAX slots."""
    cdef Py_ssize_t i, n2, mask = r.size - 1
    cdef Slot* nv
    cdef int64_t* ns = NULL
    if r.size > RING_MAX // 2:
        return -1
    n2 = r.size * 2
    nv = <Slot*>malloc(n2 * sizeof(Slot))
    if nv == NULL:
        return -1
    if r.seqs != NULL:
        ns = <int64_t*>malloc(n2 * sizeof(int64_t))
        if ns == NULL:
            free(nv)
            return -1
    for i in range(r.m):
        nv[i] = r.vals[(r.head + i) & mask]
        if ns != NULL:
            ns[i] = r.seqs[(r.head + i) & mask]
    free(r.vals)
    if r.seqs != NULL:
        free(r.seqs)
    r.vals = nv
    r.seqs = ns
    r.head = 0
    r.size = n2
    return 0


cdef int ring_grow(Ring* r) except -1:
    if ring_grow_ng(r) < 0:
        raise MemoryError()
    return 0


cdef inline const Slot* _buffer_address(object buf, int kind):
    cdef const double[::1] dv
    cdef const int64_t[::1] iv
    if kind <= K_MIN_F:
        dv = buf
        return <const Slot*>&dv[0] if dv.shape[0] > 0 else NULL
    iv = buf
    return <const Slot*>&iv[0] if iv.shape[0] > 0 else NULL


cdef extern from "window_sum.h":
    Py_ssize_t swag_first_nan_f64(const double* x, Py_ssize_t n) noexcept nogil
    int swag_window_sum_f64(const double* x, Py_ssize_t n, Py_ssize_t w, double* out) noexcept nogil
    void swag_window_sum_i64(const int64_t* x, Py_ssize_t n, Py_ssize_t w, int64_t* out) noexcept nogil
    void swag_advise_hugepages(void* p, size_t nbytes) noexcept nogil


cdef extern from "f64_track.h":
    ctypedef struct swag_f64_track:
        double fin, err, eabs, mag, merr
        Py_ssize_t count, pinf, ninf, ops
    void swag_f64_track_clear(swag_f64_track* t) noexcept nogil
    void swag_f64_track_add(swag_f64_track* t, double x, int sign) noexcept nogil
    double swag_f64_track_answer(const swag_f64_track* t) noexcept nogil
    int swag_f64_track_within_bound(const swag_f64_track* t) noexcept nogil


cdef object _f64_buffer(object values, Py_ssize_t* n_ok):
    """``values`` as C-contiguous C doubles (read in place) with ``n_ok[0]`` = the index of its first NaN (its
    length when none), found at memory speed (``swag_first_nan_f64``); None when it is no such buffer."""
    cdef const double[::1] dv
    if not PyObject_CheckBuffer(values):
        return None
    try:
        dv = values
    except _BUFFER_MISMATCH:
        return None
    n_ok[0] = swag_first_nan_f64(&dv[0], dv.shape[0]) if dv.shape[0] > 0 else 0
    return dv


cdef object _slots_of(int kind, object values, Py_ssize_t* n_out, Slot** ptr):
    """Validated typed slots for ``values`` in ``ptr[0]``: a buffer read in place (returned, keep it alive), or a
    malloc'd copy that the caller frees (``None`` returned)."""
    cdef Py_ssize_t n_ok = 0, n, i
    cdef Slot* out
    cdef Slot v
    buf = _f64_buffer(values, &n_ok) if kind <= K_MIN_F else None
    if buf is None:
        buf = typed_input(kind, values, &n_ok)
    if buf is not None:
        n = len(buf)
        if n_ok < n:
            to_slot(kind, values[n_ok], &v)  # raises
        n_out[0] = n
        ptr[0] = <Slot*>_buffer_address(buf, kind)
        return buf
    items = values if isinstance(values, (list, tuple)) else list(values)
    n = len(items)
    out = <Slot*>malloc((n if n > 0 else 1) * sizeof(Slot))
    if out == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            to_slot(kind, items[i], &out[i])
    except BaseException:
        free(out)
        raise
    n_out[0] = n
    ptr[0] = out
    return None


cdef inline Py_ssize_t ring_idx(Ring* r, Py_ssize_t i) noexcept nogil:
    return (r.head + i) & (r.size - 1)


cdef inline bint _dominated(int kind, Slot b, Slot v) noexcept nogil:
    """``(b ⊗ v) == v`` for the selective typed kinds, NaN-free (validated): max pops ``b <= v``, min ``b >= v``."""
    if kind == K_MAX_F:
        return b.f <= v.f
    elif kind == K_MIN_F:
        return b.f >= v.f
    elif kind == K_MAX_I:
        return b.i <= v.i
    return b.i >= v.i


cdef inline Py_ssize_t _nv_pop_tail(const Slot* vals, Py_ssize_t lo, Py_ssize_t tp, Py_ssize_t mask, Slot v,
                                    int kind) noexcept nogil:
    """The dominance pops of Algorithm 2 lines 16–18 on a typed (strictly monotone) deque whose candidate nodes
    occupy the unmasked ring positions ``[lo, tp)``: returns the new end position (the dominated nodes form a
    suffix). The last four candidates are tested without branches (on random data 94% of inserts pop fewer than
    four); beyond them a plain linear scan. Slots before ``lo`` may hold stale bits: their tests are masked out.
    The caller charges exactly the reference's linear-scan ⊗ count: one per popped node plus the test that stops
    it (none when every candidate was popped)."""
    cdef Py_ssize_t m = tp - lo, c
    c = (((m >= 1) & _dominated(kind, vals[(tp - 1) & mask], v))
         + ((m >= 2) & _dominated(kind, vals[(tp - 2) & mask], v))
         + ((m >= 3) & _dominated(kind, vals[(tp - 3) & mask], v))
         + ((m >= 4) & _dominated(kind, vals[(tp - 4) & mask], v)))
    if SWAG_LIKELY(c < 4):
        return tp - c
    tp -= 4
    while tp > lo and _dominated(kind, vals[(tp - 1) & mask], v):
        tp -= 1
    return tp


# The Non-Inv steady-state kernel is plain C (include/slickdeque_noninv.h) rather than Cython so that the register selects compile to
# cmov on x86-64: with C ternaries GCC emits branches, which mispredict on random data (whether a node is popped
# is a coin flip), and the portable and/xor form is ~6% slower. Nothing else in it differs from Algorithm 2.
cdef extern from "slickdeque_noninv.h":
    ctypedef struct SwagNvNode:
        int64_t key
        int64_t seq
        int64_t bits
    int64_t swag_nv_key(int kind, int64_t bits) noexcept nogil
    Py_ssize_t swag_nv_steady(SwagNvNode* q, Py_ssize_t qmask, Py_ssize_t* hp_io, Py_ssize_t* tp_io,
                              int64_t seq0, const int64_t* inp, Py_ssize_t n, int64_t* out, Py_ssize_t w,
                              int kind) noexcept nogil


# The ``window_array`` kernel of a fresh Non-Inv deque (the common case: ``_window_array`` builds one), plain C for
# the same cmov reason. Against ``swag_nv_steady`` it drops per-item work that a fresh start makes hoistable: the
# deque lives in a linear buffer (no ring masks; it is moved back to the buffer's start, O(deque), at most once per
# ``min(w, n)`` items), the head's expiry and value sit in registers (the eviction test is the inner loop's bound),
# a node keeps its key and its input index only (the value is read back from the input), and the stopped-scan
# count is taken on the slow path only. Same Algorithm 2 decisions, hence the same results and ⊗ count.
cdef extern from "slickdeque_noninv_fresh.h":
    Py_ssize_t swag_nv_fresh(int64_t* keys, int64_t* idx, Py_ssize_t cap, const int64_t* inp, Py_ssize_t n,
                             int64_t* out, Py_ssize_t w, int kind, Py_ssize_t* hp_out,
                             Py_ssize_t* tp_out) noexcept nogil


cdef Py_ssize_t _nv_window_fresh(Ring* q, int64_t* first_io, int64_t* ins_io, long long* cc_io, const Slot* inp,
                                 Py_ssize_t n, Py_ssize_t w, Slot* out, int kind) noexcept nogil:
    """Non-Inv ``window_array`` loop of a fresh deque (nothing inserted yet) with ``swag_nv_fresh``; the final
    deque is written back into ``q`` (at least ``min(w, n)`` slots). Returns ``n``, or 0 (nothing changed) when the
    kernel's buffers cannot be allocated."""
    cdef Py_ssize_t wm = w if w < n else n, cap, hp = 0, tp = 0, j
    cdef long long cc
    cdef int64_t* keys
    cdef int64_t* idx
    if n == 0:
        return 0
    if wm > (PY_SSIZE_T_MAX // <Py_ssize_t>sizeof(int64_t) - 64) // 2:
        return 0
    cap = 2 * wm + 64
    keys = <int64_t*>malloc(cap * sizeof(int64_t))
    idx = <int64_t*>malloc(cap * sizeof(int64_t))
    if keys == NULL or idx == NULL:
        free(keys)
        free(idx)
        return 0
    # window min(w, n): the same answers (no item of a window ≥ n is ever evicted) with no overflow in i + w
    if kind == K_MAX_F:
        cc = swag_nv_fresh(keys, idx, cap, <const int64_t*>inp, n, <int64_t*>out, wm, K_MAX_F, &hp, &tp)
    elif kind == K_MIN_F:
        cc = swag_nv_fresh(keys, idx, cap, <const int64_t*>inp, n, <int64_t*>out, wm, K_MIN_F, &hp, &tp)
    elif kind == K_MAX_I:
        cc = swag_nv_fresh(keys, idx, cap, <const int64_t*>inp, n, <int64_t*>out, wm, K_MAX_I, &hp, &tp)
    else:
        cc = swag_nv_fresh(keys, idx, cap, <const int64_t*>inp, n, <int64_t*>out, wm, K_MIN_I, &hp, &tp)
    for j in range(tp - hp):  # back into the ring, head at slot 0
        q.vals[j] = inp[idx[hp + j]]
        q.seqs[j] = idx[hp + j]
    q.head = 0
    q.m = tp - hp
    free(keys)
    free(idx)
    first_io[0] = n - wm
    ins_io[0] = n
    cc_io[0] += cc
    return n


cdef inline Py_ssize_t _nv_window_local(Ring* q, int64_t* first_io, int64_t* ins_io, long long* cc_io,
                                        const Slot* inp, Py_ssize_t n, Py_ssize_t w, Slot* out,
                                        int kind, SwagNvNode* sc, Py_ssize_t smask) noexcept nogil:
    """Non-Inv ``window_array`` loop: ``swag_nv_steady`` over all ``n`` items on a scratch ring ``sc`` of at least
    ``w + 3`` nodes (``smask`` + 1, a power of two); the deque is copied in and back (O(deque size)).
    Preconditions: the window holds at most ``w`` partials and the ring ``q`` at least ``w`` slots, so it never
    grows (the deque never exceeds the window). While the window is filling no node has the sequence number
    ``seq − w`` that the kernel evicts (all are ≥ ``first``), so one loop serves both phases. ⊗ count as the
    reference's linear scan: one per popped node (all pushes minus the nodes left and the head evictions) plus
    one per scan stopped by a node."""
    cdef Slot* vals = q.vals
    cdef int64_t* seqs = q.seqs
    cdef Py_ssize_t mask = q.size - 1, m0 = q.m, m1, j, shp = 2, stp
    cdef long long cc = cc_io[0]
    for j in range(m0):  # into the kernel's ring, head at position 2 (the two guard slots below it)
        sc[(2 + j) & smask].key = swag_nv_key(kind, vals[(q.head + j) & mask].i)
        sc[(2 + j) & smask].seq = seqs[(q.head + j) & mask]
        sc[(2 + j) & smask].bits = vals[(q.head + j) & mask].i
    stp = 2 + m0
    if m0 == 0:
        sc[2 & smask].seq = INT64_MIN  # the first eviction test must not match a stale slot
    cc += swag_nv_steady(sc, smask, &shp, &stp, ins_io[0], <const int64_t*>inp, n, <int64_t*>out, w, kind)
    cc += (n + m0) - (stp - shp) - (shp - 2)  # popped nodes: pushed + before − left − evicted at the head
    m1 = stp - shp
    for j in range(m1):  # back into the ring, head at slot 0
        vals[j].i = sc[(shp + j) & smask].bits
        seqs[j] = sc[(shp + j) & smask].seq
    q.head = 0
    q.m = m1
    first_io[0] = ins_io[0] + n - min(w, ins_io[0] + n - first_io[0])
    ins_io[0] += n
    cc_io[0] = cc
    return n


cdef void ring_free(Ring* r, bint generic) noexcept:
    cdef Py_ssize_t i
    if r.vals != NULL:
        if generic:
            for i in range(r.m):
                slot_clear(&r.vals[ring_idx(r, i)])
        free(r.vals)
        r.vals = NULL
    if r.seqs != NULL:
        free(r.seqs)
        r.seqs = NULL
    r.m = 0


cdef Py_ssize_t _pow2_at_least(Py_ssize_t n) noexcept:
    cdef Py_ssize_t s = 16
    while s < n and s <= PY_SSIZE_T_MAX // 4:
        s *= 2
    return s


cdef enum:
    NV_INITIAL_MAX = 4096  # Non-Inv's initial ring size is at most about this many slots (then it grows)


# ================================================================================================================
# Non-Inv


@cython.final
cdef class SlickDequeNonInv:
    """SlickDequeNonInv(monoid, ranges=None)
--

    SlickDeque (Non-Inv) (paper 001 Algorithm 2), compiled; same API, snapshots, ``combine_count``, exception
    safety (strong) and re-entry guard as ``swagkit.reference.SlickDequeNonInv``; copies and pickles go by
    snapshot. Selective monoids only."""

    algorithm = "slickdeque_noninv"
    exception_safety = "strong"

    cdef readonly object monoid
    cdef public long long combine_count
    cdef object _combine, _lift, _lower, _one
    cdef bint lower_id          # ``monoid.lower`` is the identity function
    cdef int kind
    cdef int state
    cdef Slot one_t
    cdef readonly tuple ranges
    cdef readonly object capacity
    cdef Py_ssize_t cap
    cdef readonly int64_t first
    cdef readonly int64_t inserted
    cdef Ring q

    def __cinit__(self, *args, **kwargs):
        self.q.vals = NULL
        self.q.seqs = NULL
        self.q.m = 0
        self.state = ST_NEW

    def __init__(self, monoid, ranges=None):
        if self.state != ST_NEW:
            if self.state == ST_BUSY:
                raise _reentered("slickdeque_noninv", "__init__")
            raise TypeError("slickdeque_noninv: __init__ called on an initialized structure")
        monoid = _as_monoid(monoid, "slickdeque_noninv")
        require_selective(monoid)
        rs = normalize_ranges(ranges)
        cap = _check_index_size(rs[0], "slickdeque_noninv") if rs else None
        self.monoid = monoid
        self.combine_count = 0
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._lower = monoid.lower
        self.lower_id = _lower_is_identity(monoid)
        self._one = monoid.identity
        self.kind = choose_kind(monoid, &self.one_t)
        if self.kind == K_SUM_F or self.kind == K_SUM_I:
            self.kind = K_GENERIC
        self.ranges = rs
        self.capacity = cap
        self.cap = cap if cap is not None else 0
        self.first = 0
        self.inserted = 0
        ring_init(&self.q, _pow2_at_least((self.cap if self.cap < NV_INITIAL_MAX else NV_INITIAL_MAX) + 1), True)
        self.state = ST_READY

    def __dealloc__(self):
        ring_free(&self.q, self.kind == K_GENERIC)

    def __len__(self):
        return self.inserted - self.first

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.state != ST_READY:
            if self.state == ST_BUSY:
                raise _reentered("slickdeque_noninv", operation)
            raise TypeError("slickdeque_noninv: the structure was not initialized")
        self.state = ST_BUSY
        return 0

    cdef inline void _evict_one(self) noexcept:
        cdef Ring* q = &self.q
        cdef PyObject* old = NULL
        if q.m and q.seqs[q.head] == self.first:
            if self.kind == K_GENERIC:
                old = q.vals[q.head].o
                q.vals[q.head].o = NULL
            q.head = (q.head + 1) & (q.size - 1)
            q.m -= 1
        self.first += 1
        Py_XDECREF(old)  # after the state is whole (a __del__ re-entering is refused anyway)

    cdef inline void _evict_one_t(self) noexcept nogil:
        cdef Ring* q = &self.q
        if q.m and q.seqs[q.head] == self.first:
            q.head = (q.head + 1) & (q.size - 1)
            q.m -= 1
        self.first += 1

    cdef inline int _insert_t(self, Slot v, int kind) noexcept nogil:
        """Typed insert; -1 (nothing changed) when out of memory. ``kind`` is a compile-time constant in loops."""
        cdef Ring* q = &self.q
        cdef bint evict_head = self.cap != 0 and self.inserted - self.first == self.cap
        cdef Py_ssize_t stop, i
        cdef Slot b
        if q.m == q.size and ring_grow_ng(q) < 0:
            return -1
        stop = 1 if (evict_head and q.m and q.seqs[q.head] == self.first) else 0
        i = _nv_pop_tail(q.vals, q.head + stop, q.head + q.m, q.size - 1, v, kind) - q.head
        self.combine_count += (q.m - i) + (i > stop)
        q.m = i
        if evict_head:
            self._evict_one_t()
        i = ring_idx(q, q.m)
        q.vals[i] = v
        q.seqs[i] = self.inserted
        q.m += 1
        self.inserted += 1
        return 0

    cdef inline int _insert_k(self, Slot v) noexcept nogil:
        if self.kind == K_MAX_F:
            return self._insert_t(v, K_MAX_F)
        elif self.kind == K_MIN_F:
            return self._insert_t(v, K_MIN_F)
        elif self.kind == K_MAX_I:
            return self._insert_t(v, K_MAX_I)
        return self._insert_t(v, K_MIN_I)

    cdef inline Py_ssize_t _window_loop(self, const Slot* inp, Py_ssize_t n, Py_ssize_t w, Slot* out,
                                        int kind) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            if self.inserted - self.first == w:
                self._evict_one_t()
            if self._insert_t(inp[i], kind) < 0:
                return i
            out[i] = self.q.vals[self.q.head]
        return n

    cdef Py_ssize_t _window_run(self, const Slot* inp, Py_ssize_t n, Py_ssize_t w, Slot* out) noexcept nogil:
        """Precondition: ``ring.size ≥ min(w, deque size + n)`` (see ``_window_array``). Returns how many items
        were done (0 when the kernel's scratch ring cannot be allocated; nothing changed then)."""
        cdef Ring* q = &self.q
        cdef Py_ssize_t size = 16, done, need
        cdef SwagNvNode* sc
        if self.inserted == 0 and n > 0:  # fresh (``_window_array``'s case): the kernel without the copy-in
            return _nv_window_fresh(q, &self.first, &self.inserted, &self.combine_count, inp, n, w, out, self.kind)
        # the deque never holds more than the window, nor more than it holds now plus the n new partials
        need = q.m + n if n <= w - q.m else w
        while size < need + 3:
            if size > PY_SSIZE_T_MAX // (2 * <Py_ssize_t>sizeof(SwagNvNode)):
                return 0
            size *= 2
        sc = <SwagNvNode*>malloc(size * sizeof(SwagNvNode))
        if sc == NULL:
            return 0
        if self.kind == K_MAX_F:
            done = _nv_window_local(q, &self.first, &self.inserted, &self.combine_count, inp, n, w, out, K_MAX_F,
                                    sc, size - 1)
        elif self.kind == K_MIN_F:
            done = _nv_window_local(q, &self.first, &self.inserted, &self.combine_count, inp, n, w, out, K_MIN_F,
                                    sc, size - 1)
        elif self.kind == K_MAX_I:
            done = _nv_window_local(q, &self.first, &self.inserted, &self.combine_count, inp, n, w, out, K_MAX_I,
                                    sc, size - 1)
        else:
            done = _nv_window_local(q, &self.first, &self.inserted, &self.combine_count, inp, n, w, out, K_MIN_I,
                                    sc, size - 1)
        free(sc)
        return done

    cdef Py_ssize_t _insert_run(self, const Slot* inp, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            if self._insert_k(inp[i]) < 0:
                return i
        return n

    # --------------------------------------------------------------------------------------------------------
    # an insert in two phases: the dominance tests (every ⊗; nothing changes), then the pops, eviction and push

    cdef Py_ssize_t _plan_t(self, Slot v) except -1:
        """Typed dominance tests (counted as the reference's linear scan): the number of tail nodes ``v`` pops.
        Grows a full ring first (invisible; MemoryError changes nothing)."""
        cdef Ring* q = &self.q
        cdef bint evict_head = self.cap != 0 and self.inserted - self.first == self.cap
        cdef Py_ssize_t stop, i
        if q.m == q.size:
            ring_grow(q)
        stop = 1 if (evict_head and q.m and q.seqs[q.head] == self.first) else 0
        if self.kind == K_MAX_F:
            i = _nv_pop_tail(q.vals, q.head + stop, q.head + q.m, q.size - 1, v, K_MAX_F) - q.head
        elif self.kind == K_MIN_F:
            i = _nv_pop_tail(q.vals, q.head + stop, q.head + q.m, q.size - 1, v, K_MIN_F) - q.head
        elif self.kind == K_MAX_I:
            i = _nv_pop_tail(q.vals, q.head + stop, q.head + q.m, q.size - 1, v, K_MAX_I) - q.head
        else:
            i = _nv_pop_tail(q.vals, q.head + stop, q.head + q.m, q.size - 1, v, K_MIN_I) - q.head
        self.combine_count += (q.m - i) + (i > stop)
        return q.m - i

    cdef Py_ssize_t _plan_g(self, object v) except -1:
        """Generic dominance tests of Algorithm 2 lines 16–18 (``selects_right``): the number of tail nodes ``v``
        pops. Grows a full ring first; changes nothing else, so a raising ``combine`` (or ``==``) is harmless."""
        cdef Ring* q = &self.q
        cdef bint evict_head = self.cap != 0 and self.inserted - self.first == self.cap
        cdef Py_ssize_t stop, i
        if q.m == q.size:
            ring_grow(q)
        stop = 1 if (evict_head and q.m and q.seqs[q.head] == self.first) else 0
        i = q.m - 1
        comb = self._combine
        while i >= stop:
            b = <object>q.vals[ring_idx(q, i)].o
            self.combine_count += 1
            r = comb(b, v)
            if r is v or r == v:
                i -= 1
            else:
                break
        return q.m - 1 - i

    cdef int _commit(self, Slot v, Py_ssize_t pops) except -1:
        """Pop ``pops`` tail nodes, evict the head partial (capacity mode, window full), push ``v`` (a typed slot,
        or a generic one whose reference this takes). No ⊗, no allocation (the plan grew the ring). Released
        generic values are dropped only when the state is whole again."""
        cdef Ring* q = &self.q
        cdef Py_ssize_t k
        cdef Slot* sl
        cdef bint generic = self.kind == K_GENERIC
        cdef bint evict_head = self.cap != 0 and self.inserted - self.first == self.cap
        if pops < 0 or pops > q.m or q.m - pops + 1 > q.size:
            raise ValueError("slickdeque_noninv: an insert plan that does not fit the deque")
        released = [] if generic else None
        if generic:
            for k in range(pops):
                sl = &q.vals[ring_idx(q, q.m - 1 - k)]
                released.append(<object>sl.o)
                slot_clear(sl)
        q.m -= pops
        if evict_head:
            if q.m and q.seqs[q.head] == self.first:
                if generic:
                    released.append(<object>q.vals[q.head].o)
                    slot_clear(&q.vals[q.head])
                q.head = (q.head + 1) & (q.size - 1)
                q.m -= 1
            self.first += 1
        k = ring_idx(q, q.m)
        if generic:
            Py_XINCREF(v.o)
        q.vals[k] = v
        q.seqs[k] = self.inserted
        q.m += 1
        self.inserted += 1
        return 0

    cdef int _insert_g(self, object v) except -1:
        cdef Slot s
        cdef Py_ssize_t pops = self._plan_g(v)
        s.o = <PyObject*>v
        self._commit(s, pops)
        return 0

    cdef int _insert_one(self, object value) except -1:
        """``insert`` without the guard: lift/validate, then plan and commit."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if self._insert_k(v) < 0:
                raise MemoryError()
        else:
            self._insert_g(self._lift(value))
        return 0

    def insert(self, value: In) -> None:
        """Evict (capacity mode, window full), dominance pops, push. ≤ deque-size ⊗, amortized ≤ 2."""
        self._enter("insert")
        try:
            self._insert_one(value)
        finally:
            self.state = ST_READY

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls); a C loop over the raw
        buffer for ``array.array``/``memoryview``/numpy input of a typed kind. Every value is validated (lifted)
        first, so a refused one changes nothing; if ``combine`` raises at the j-th insertion, the first j stay
        inserted and the exception's note says so."""
        cdef Py_ssize_t n = 0, done, j = 0
        cdef Slot* inp = NULL
        self._enter("insert_many")
        try:
            if self.kind != K_GENERIC:
                keep = _slots_of(self.kind, values, &n, &inp)
                try:
                    with nogil:
                        done = self._insert_run(inp, n)
                    if done < n:
                        err = MemoryError()
                        err.add_note(f"swagkit slickdeque_noninv: insert_many inserted {done} of {n} values")
                        raise err
                finally:
                    if keep is None and inp != NULL:
                        free(inp)
                return
            lift = self._lift
            lifted = [lift(x) for x in values]
            try:
                for v in lifted:
                    self._insert_g(v)
                    j += 1
            except BaseException as err:
                err.add_note(f"swagkit slickdeque_noninv: insert_many inserted {j} of {len(lifted)} values")
                raise
        finally:
            self.state = ST_READY

    def evict(self) -> None:
        """Remove the oldest partial (pop the head iff it is that partial). 0 ⊗."""
        self._enter("evict")
        try:
            if self.inserted == self.first:
                raise EmptyWindowError("slickdeque_noninv: evict() on an empty window")
            self._evict_one()
        finally:
            self.state = ST_READY

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest partials; ``EmptyWindowError`` (nothing evicted) beyond the size,
        ``ValueError``/``TypeError`` for a negative or non-integer count. 0 ⊗."""
        cdef Py_ssize_t k, c
        self._enter("evict_many")
        try:
            count = _check_count(count)
            if count > self.inserted - self.first:
                raise EmptyWindowError(
                    f"slickdeque_noninv: evict_many({count}) on a window of {self.inserted - self.first}"
                )
            c = count
            for k in range(c):
                self._evict_one()
        finally:
            self.state = ST_READY

    def shift(self, value: In) -> Out:
        """One static-window step in one call: ``evict(); insert(value); return query()``, with exactly their ⊗
        sequence and ``combine_count`` (0 ⊗, then amortized ≤ 2: O(1) amortized like them). ``value`` is validated
        (lifted) and the window checked first: a refused value or an empty window (``EmptyWindowError``) changes
        nothing; if ``combine`` raises in the insertion, the eviction stays done (the exception's note says so). A
        typed kind does it in C, touching no Python object but the argument and the boxed result."""
        cdef Slot v
        self._enter("shift")
        try:
            if self.kind != K_GENERIC:
                to_slot(self.kind, value, &v)
                if self.inserted == self.first:
                    raise EmptyWindowError("slickdeque_noninv: shift() on an empty window")
                self._evict_one_t()
                if self._insert_k(v) < 0:
                    err = MemoryError()
                    err.add_note("swagkit slickdeque_noninv: shift evicted the oldest value, "
                                 "then the insertion raised")
                    raise err
                result = box(self.kind, self.q.vals[self.q.head])  # the head: the whole window (never empty here)
            else:
                lifted = self._lift(value)
                if self.inserted == self.first:
                    raise EmptyWindowError("slickdeque_noninv: shift() on an empty window")
                self._evict_one()
                try:
                    self._insert_g(lifted)
                except BaseException as err:
                    err.add_note("swagkit slickdeque_noninv: shift evicted the oldest value, "
                                 "then the insertion raised")
                    raise
                result = <object>self.q.vals[self.q.head].o
            if self.lower_id:  # no Python call to the identity ``lower``, as ``query``
                return result
            return self._lower(result)
        finally:
            self.state = ST_READY

    cdef inline object _val(self, Py_ssize_t i):
        cdef Slot s = self.q.vals[ring_idx(&self.q, i)]
        if self.kind == K_GENERIC:
            return <object>s.o
        return box(self.kind, s)

    def query(self) -> Out:
        """The head's value (the whole window), lowered. 0 ⊗."""
        self._enter("query")
        try:
            if self.q.m == 0:
                return self._lower(self._one)
            if self.lower_id:  # no Python call to the identity ``lower`` (half of a per-call loop's time before)
                return self._val(0)
            return self._lower(self._val(0))
        finally:
            self.state = ST_READY

    cdef object _query_range_c(self, object r):
        cdef Py_ssize_t i = 0
        cdef int64_t limit
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"range must be an int ≥ 1, got {r!r}")
        if self.q.m == 0:
            return self._lower(self._one)
        if r >= self.inserted:
            return self._lower(self._val(0))
        limit = self.inserted - 1 - <int64_t>r
        while self.q.seqs[ring_idx(&self.q, i)] <= limit:
            i += 1
        return self._lower(self._val(i))

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered (first node with ``seq > t − r``). 0 ⊗."""
        self._enter("query_range")
        try:
            return self._query_range_c(r)
        finally:
            self.state = ST_READY

    cdef dict _query_all_c(self):
        cdef Py_ssize_t i = 0
        cdef int64_t t = self.inserted - 1, rr
        lower = self._lower
        if self.q.m == 0:
            e = lower(self._one)
            return {r: e for r in self.ranges}
        out = {}
        for r in self.ranges:
            rr = r
            while self.q.seqs[ring_idx(&self.q, i)] <= t - rr:
                i += 1
            out[r] = lower(self._val(i))
        return out

    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first, in one pass (cursor carried)."""
        self._enter("query_all")
        try:
            return self._query_all_c()
        finally:
            self.state = ST_READY

    def query_runs(self) -> list[tuple[int, Any]]:
        """``[(r, answer), …]`` for every range at once, one pair per node from the tail (``r = 1``) to the head;
        range ``ρ`` is answered by the last pair with ``r ≤ ρ``. O(deque size), 0 ⊗."""
        cdef Py_ssize_t i
        cdef int64_t t = self.inserted - 1
        self._enter("query_runs")
        try:
            lower = self._lower
            if self.q.m == 0:
                return [(1, lower(self._one))]
            return [(t - self.q.seqs[ring_idx(&self.q, i)] + 1, lower(self._val(i)))
                    for i in range(self.q.m - 1, -1, -1)]
        finally:
            self.state = ST_READY

    def step(self, value: Any) -> dict[int, Any]:
        """``insert(value)`` then ``query_all()``."""
        self._enter("step")
        try:
            self._insert_one(value)
            return self._query_all_c()
        finally:
            self.state = ST_READY

    def snapshot(self) -> SlickDequeNonInvState:
        cdef Py_ssize_t i
        self._enter("snapshot")
        try:
            nodes = tuple([(self.q.seqs[ring_idx(&self.q, i)], self._val(i)) for i in range(self.q.m)])
            return SlickDequeNonInvState(self.capacity, nodes, self.first, self.inserted, self.ranges)
        finally:
            self.state = ST_READY

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, ranges=None):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The shape is
        checked like the reference's (``ValueError``/``TypeError``), typed values like ``insert``."""
        cdef SlickDequeNonInv agg = cls(monoid, ranges)
        cdef Ring* q = &agg.q
        cdef Slot s
        cdef Py_ssize_t k
        nodes = _noninv_snapshot_shape(snapshot, agg.ranges)
        while q.size < len(nodes):
            ring_grow(q)
        for seq, val in nodes:
            k = ring_idx(q, q.m)
            if agg.kind != K_GENERIC:
                _restore_slot(agg.kind, val, &s)
                q.vals[k] = s
            else:
                slot_put(&q.vals[k], val)
            q.seqs[k] = seq
            q.m += 1
        agg.first = snapshot.first
        agg.inserted = snapshot.inserted
        return agg

    def __reduce__(self):
        return (_restore, (type(self), self.monoid, {"ranges": self.ranges}, self.snapshot(), self.combine_count))

    def __copy__(self):
        return _restore(type(self), self.monoid, {"ranges": self.ranges}, self.snapshot(), self.combine_count)

    # ---- the held operations SlickRange runs on both deques under their guards (see the reference) ----

    def _acquire(self, operation):
        self._enter(operation)

    def _release(self):
        if self.state == ST_BUSY:
            self.state = ST_READY

    def _lift_value(self, value):
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            return box(self.kind, v)
        return self._lift(value)

    def _plan_insert(self, v):
        cdef Slot s
        if self.kind != K_GENERIC:
            to_slot(self.kind, v, &s)
            return self._plan_t(s)
        return self._plan_g(v)

    def _commit_insert(self, v, pops):
        cdef Slot s
        if self.kind != K_GENERIC:
            to_slot(self.kind, v, &s)
        else:
            s.o = <PyObject*>v
        self._commit(s, pops)

    def _evict(self):
        if self.inserted == self.first:
            raise EmptyWindowError("slickdeque_noninv: evict() on an empty window")
        self._evict_one()

    def _query(self):
        if self.q.m == 0:
            return self._one
        return self._val(0)

    def _query_range(self, r):
        return self._query_range_c(r)

    def _query_all(self):
        return self._query_all_c()

    def _memory_bytes(self):
        """Bytes malloc'd for the ring (values and sequence numbers)."""
        return self.q.size * (sizeof(Slot) + sizeof(int64_t))

    def __repr__(self):
        return f"SlickDequeNonInv({self.monoid.name}, n={self.inserted - self.first})"


# ================================================================================================================
# Inv


@cython.final
cdef class SlickDequeInv:
    """SlickDequeInv(monoid, ranges=None, *, recompute_every=None)
--

    SlickDeque (Inv) (paper 001 Algorithm 1), compiled; same API, snapshots, ``combine_count``,
    ``inverse_count``, exception safety (strong) and re-entry guard as ``swagkit.reference.SlickDequeInv``;
    copies and pickles go by snapshot. Invertible monoids, or ``sum_f64`` with the drift control of
    ``swagkit.spec.f64_track`` (optimized/include/f64_track.h): every answer within its window's any-order bound."""

    algorithm = "slickdeque_inv"
    exception_safety = "strong"

    cdef readonly object monoid
    cdef public long long combine_count
    cdef public long long inverse_count
    cdef object _combine, _inverse, _lift, _lower, _one
    cdef bint lower_id          # ``monoid.lower`` is the identity function
    cdef int kind
    cdef int state
    cdef Slot one_t
    cdef readonly tuple ranges
    cdef readonly object capacity
    cdef Py_ssize_t cap
    cdef Py_ssize_t k           # number of ranges
    cdef Py_ssize_t* rs         # the ranges, longest first
    cdef Slot* answers          # per range (multi-query mode)
    cdef Slot agg               # plain mode
    cdef Ring q                 # plain mode: the window; multi-query: the W-slot ring (head = 0, m = W)
    cdef readonly Py_ssize_t recompute_every
    cdef Py_ssize_t since
    cdef Py_ssize_t n
    cdef int64_t inserted_
    cdef Py_ssize_t cursor
    cdef swag_f64_track* tracks  # sum_f64's drift control (swagkit.spec.f64_track): one per running sum, or NULL
    cdef Py_ssize_t ntracks

    def __cinit__(self, *args, **kwargs):
        self.q.vals = NULL
        self.q.seqs = NULL
        self.q.m = 0
        self.rs = NULL
        self.answers = NULL
        self.tracks = NULL
        self.ntracks = 0
        self.k = 0
        self.cap = 0
        self.agg.o = NULL
        self.state = ST_NEW

    def __init__(self, monoid, ranges=None, *, recompute_every=None):
        cdef Py_ssize_t i, k
        if self.state != ST_NEW:
            if self.state == ST_BUSY:
                raise _reentered("slickdeque_inv", "__init__")
            raise TypeError("slickdeque_inv: __init__ called on an initialized structure")
        monoid = _as_monoid(monoid, "slickdeque_inv")
        require_invertible(monoid)
        rs = normalize_ranges(ranges)
        capacity = _check_ring_size(rs[0], "slickdeque_inv") if rs else None  # before anything is allocated
        if recompute_every is None:
            recompute_every = 0  # exact monoids never drift; sum_f64's drift control needs no period
        self.recompute_every = _check_recompute_every(recompute_every, "slickdeque_inv")
        self.monoid = monoid
        self.combine_count = 0
        self.inverse_count = 0
        self._combine = monoid.combine
        self._inverse = monoid.inverse if monoid.inverse is not None else _negate
        self._lift = monoid.lift
        self._lower = monoid.lower
        self.lower_id = _lower_is_identity(monoid)
        self._one = monoid.identity
        self.kind = choose_kind(monoid, &self.one_t)
        if not _is_sum(self.kind):
            self.kind = K_GENERIC
        self.ranges = rs
        self.capacity = capacity
        self.since = 0
        self.n = 0
        self.inserted_ = 0
        self.cursor = 0
        if capacity is None:
            ring_init(&self.q, 16, False)
            self._set_agg_one()
        else:
            k = len(rs)
            self.rs = <Py_ssize_t*>malloc(k * sizeof(Py_ssize_t))
            self.answers = <Slot*>malloc(k * sizeof(Slot))
            if self.rs == NULL or self.answers == NULL:
                free(self.rs)
                free(self.answers)
                self.rs = NULL
                self.answers = NULL
                raise MemoryError()
            for i in range(k):
                self.rs[i] = rs[i]
                self._slot_init(&self.answers[i], self._one, self.one_t)
            self.k = k
            ring_init(&self.q, capacity, False)
            self.cap = capacity
            for i in range(self.cap):
                self._slot_init(&self.q.vals[i], self._one, self.one_t)
            self.q.m = self.cap
        if self.kind == K_SUM_F:  # swagkit.spec.f64_track.tracked(monoid): the typed sum_f64
            k = self.k if self.k > 0 else 1
            self.tracks = <swag_f64_track*>malloc(k * sizeof(swag_f64_track))
            if self.tracks == NULL:
                raise MemoryError()
            for i in range(k):
                swag_f64_track_clear(&self.tracks[i])
            self.ntracks = k
        self.state = ST_READY

    cdef inline void _slot_init(self, Slot* s, object g, Slot t) noexcept:
        if self.kind == K_GENERIC:
            slot_put(s, g)
        else:
            s[0] = t

    cdef inline void _set_agg_one(self) noexcept:
        if self.kind == K_GENERIC:
            if self.agg.o == NULL:
                slot_put(&self.agg, self._one)
            else:
                slot_set(&self.agg, self._one)
        else:
            self.agg = self.one_t

    def __dealloc__(self):
        cdef Py_ssize_t i
        cdef bint g = self.kind == K_GENERIC
        if self.answers != NULL:
            if g:
                for i in range(self.k):
                    slot_clear(&self.answers[i])
            free(self.answers)
            self.answers = NULL
        if self.rs != NULL:
            free(self.rs)
            self.rs = NULL
        if self.tracks != NULL:
            free(self.tracks)
            self.tracks = NULL
        if self.cap:
            if g and self.q.vals != NULL:
                for i in range(self.q.m):
                    slot_clear(&self.q.vals[i])
            self.q.m = 0
        elif g:
            slot_clear(&self.agg)
        ring_free(&self.q, g)

    def __len__(self):
        return self.n

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.state != ST_READY:
            if self.state == ST_BUSY:
                raise _reentered("slickdeque_inv", operation)
            raise TypeError("slickdeque_inv: the structure was not initialized")
        self.state = ST_BUSY
        return 0

    cdef inline object _otimes(self, object a, object b):
        self.combine_count += 1
        return self._combine(a, b)

    cdef inline object _inv(self, object x):
        self.inverse_count += 1
        return self._inverse(x)

    # ------------------------------------------------------------------------------------------------------------
    # typed paths (sum kinds: nothing can fail half-way)

    cdef inline int _insert_t(self, Slot v, int kind) noexcept nogil:
        """Typed insert (sum kinds); -1 (nothing changed) when out of memory."""
        cdef Py_ssize_t j, W = self.cap, cur = self.cursor
        cdef Ring* q = &self.q
        if W == 0:
            if q.m == q.size and ring_grow_ng(q) < 0:
                return -1
            self.combine_count += 1
            if self.tracks != NULL:  # the running sum is the track's (its answer is written below)
                swag_f64_track_add(&self.tracks[0], v.f, 1)
            else:
                self.agg = tcomb(kind, self.agg, v)
            q.vals[ring_idx(q, q.m)] = v
            q.m += 1
            self.n += 1
        else:
            for j in range(self.k):
                self.combine_count += 2
                self.inverse_count += 1
                self.answers[j] = tcomb(kind, _tneg(kind, q.vals[(cur - self.rs[j] + W) % W]),
                                        tcomb(kind, self.answers[j], v))
                if self.tracks != NULL:
                    # v enters range R; the partial R back leaves it when it was in the window (else a padding e)
                    swag_f64_track_add(&self.tracks[j], v.f, 1)
                    if self.rs[j] <= self.n:
                        swag_f64_track_add(&self.tracks[j], q.vals[(cur - self.rs[j] + W) % W].f, -1)
            q.vals[cur] = v
            self.cursor = (cur + 1) % W
            self.inserted_ += 1
            if self.n < W:
                self.n += 1
        if self.tracks != NULL and not self._due():
            self._settle_tracks(0)
        self._tick_t(kind)
        if self.tracks != NULL:
            self._track_answers()
        return 0

    cdef inline int _insert_k(self, Slot v) noexcept nogil:
        if self.kind == K_SUM_F:
            return self._insert_t(v, K_SUM_F)
        return self._insert_t(v, K_SUM_I)

    cdef inline void _evict_t(self, int kind) noexcept nogil:
        """Typed evict (sum kinds); precondition: non-empty."""
        cdef Py_ssize_t j, W = self.cap, slot
        cdef Ring* q = &self.q
        cdef Slot old
        cdef Py_ssize_t before = self.n
        if W == 0:
            if self.n > 1:
                self.combine_count += 1
                self.inverse_count += 1
                self.agg = tcomb(kind, _tneg(kind, q.vals[q.head]), self.agg)
            else:
                self.agg = self.one_t
            if self.tracks != NULL:
                swag_f64_track_add(&self.tracks[0], q.vals[q.head].f, -1)
            q.head = (q.head + 1) & (q.size - 1)
            q.m -= 1
        else:
            slot = (self.cursor - self.n + W) % W
            old = q.vals[slot]
            for j in range(self.k):
                if self.n == 1:
                    self.answers[j] = self.one_t
                elif self.rs[j] >= self.n:
                    self.combine_count += 1
                    self.inverse_count += 1
                    self.answers[j] = tcomb(kind, _tneg(kind, old), self.answers[j])
                if self.tracks != NULL and self.rs[j] >= self.n:  # it leaves the ranges covering the window
                    swag_f64_track_add(&self.tracks[j], old.f, -1)
            q.vals[slot] = self.one_t
        self.n -= 1
        if self.tracks != NULL and not self._due():
            self._settle_tracks(before)
        self._tick_t(kind)
        if self.tracks != NULL:
            self._track_answers()

    cdef inline void _evict_k(self) noexcept nogil:
        if self.kind == K_SUM_F:
            self._evict_t(K_SUM_F)
        else:
            self._evict_t(K_SUM_I)

    cdef inline void _tick_t(self, int kind) noexcept nogil:
        if self.recompute_every == 0:
            return
        self.since += 1
        if self.since >= (self.recompute_every if self.recompute_every > self.n else self.n):
            self.since = 0
            self._refold_t(kind)

    cdef void _refold_t(self, int kind) noexcept nogil:
        """Refold the running sums from the stored partials, left to right (as the reference's ``_fold``)."""
        cdef Py_ssize_t i, j, lo, W = self.cap
        cdef Slot acc
        cdef Ring* q = &self.q
        if self.tracks != NULL:
            for j in range(self.ntracks):
                self._fold_track(j, False)
        if W == 0:
            if q.m == 0:
                self.agg = self.one_t
                return
            acc = q.vals[q.head]
            for i in range(1, q.m):
                self.combine_count += 1
                acc = tcomb(kind, acc, q.vals[ring_idx(q, i)])
            self.agg = acc
            return
        for j in range(self.k):
            lo = self.n - self.rs[j]
            if lo < 0:
                lo = 0
            if lo >= self.n:
                self.answers[j] = self.one_t
                continue
            acc = q.vals[(self.cursor - self.n + lo + W) % W]
            for i in range(lo + 1, self.n):
                self.combine_count += 1
                acc = tcomb(kind, acc, q.vals[(self.cursor - self.n + i + W) % W])
            self.answers[j] = acc

    # sum_f64's drift control (swagkit.spec.f64_track; the reference's ``_tracked``/``_settled``)

    cdef inline bint _due(self) noexcept nogil:
        """Whether this update (``n`` already updated) makes the periodic refold due (as ``_tick_t`` will)."""
        return self.recompute_every != 0 and self.since + 1 >= (
            self.recompute_every if self.recompute_every > self.n else self.n)

    cdef void _fold_track(self, Py_ssize_t j, bint counted) noexcept nogil:
        """Track ``j`` refolded from its running sum's partials (the newest ``min(R, n)``; plain: all), oldest
        first; ``counted``: the refold's n − 1 ⊗ go into ``combine_count`` (a periodic refold counted its own)."""
        cdef Py_ssize_t i, length, W = self.cap
        cdef swag_f64_track* t = &self.tracks[j]
        cdef Ring* q = &self.q
        swag_f64_track_clear(t)
        if W == 0:
            length = q.m
            for i in range(length):
                swag_f64_track_add(t, q.vals[ring_idx(q, i)].f, 1)
        else:
            length = self.rs[j] if self.rs[j] < self.n else self.n
            for i in range(self.n - length, self.n):
                swag_f64_track_add(t, q.vals[(self.cursor - self.n + i + W) % W].f, 1)
        if counted and length > 1:
            self.combine_count += length - 1

    cdef inline void _settle_tracks(self, Py_ssize_t before) noexcept nogil:
        """Refold each running sum the update changed (an evict from ``before`` partials changes those with
        R >= before; an insert, ``before`` 0, all) whose error passed half its window's any-order bound."""
        cdef Py_ssize_t j
        for j in range(self.ntracks):
            if self.cap != 0 and self.rs[j] < before:
                continue
            if not swag_f64_track_within_bound(&self.tracks[j]):
                self._fold_track(j, True)

    cdef inline void _track_answers(self) noexcept nogil:
        cdef Py_ssize_t j
        if self.cap == 0:
            self.agg.f = swag_f64_track_answer(&self.tracks[0])
        else:
            for j in range(self.k):
                self.answers[j].f = swag_f64_track_answer(&self.tracks[j])

    cdef inline Py_ssize_t _window_loop(self, const Slot* inp, Py_ssize_t n, Py_ssize_t w, Slot* out,
                                        int kind) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            if self.n == w:
                self._evict_t(kind)
            if self._insert_t(inp[i], kind) < 0:
                return i
            out[i] = self.agg
        return n

    cdef Py_ssize_t _window_run(self, const Slot* inp, Py_ssize_t n, Py_ssize_t w, Slot* out) noexcept nogil:
        if self.kind == K_SUM_F:
            return self._window_loop(inp, n, w, out, K_SUM_F)
        return self._window_loop(inp, n, w, out, K_SUM_I)

    cdef Py_ssize_t _insert_run(self, const Slot* inp, Py_ssize_t n) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(n):
            if self._insert_k(inp[i]) < 0:
                return i
        return n

    # ------------------------------------------------------------------------------------------------------------
    # generic path: every ⊗ and inverse result (and a refold the update makes due) before any write

    cdef inline bint _refold_due(self, Py_ssize_t n_after) noexcept:
        return self.recompute_every != 0 and self.since + 1 >= (
            self.recompute_every if self.recompute_every > n_after else n_after)

    cdef inline void _advance_since(self, bint refold) noexcept:
        if self.recompute_every != 0:
            self.since = 0 if refold else self.since + 1

    cdef list _refold(self, list window):
        """Every running aggregate folded from ``window`` (oldest first), longest range first; plain mode: one."""
        cdef Py_ssize_t j, lo, n = len(window)
        if self.cap == 0:
            return [self._fold(window, 0)]
        out = []
        for j in range(self.k):
            lo = n - self.rs[j]
            out.append(self._fold(window, lo if lo > 0 else 0))
        return out

    cdef object _fold(self, list window, Py_ssize_t lo):
        cdef Py_ssize_t i
        if lo >= len(window):
            return self._one
        acc = window[lo]
        for i in range(lo + 1, len(window)):
            acc = self._otimes(acc, window[i])
        return acc

    cdef int _insert_g(self, object v) except -1:
        cdef Py_ssize_t j, W = self.cap, cur = self.cursor, n_after
        cdef Ring* q = &self.q
        cdef bint refold
        if W == 0:
            a = self._otimes(<object>self.agg.o, v)
            n_after = self.n + 1
            refold = self._refold_due(n_after)
            if refold:
                window = self._window()
                window.append(v)
                a = self._refold(window)[0]
            if q.m == q.size:
                ring_grow(q)  # MemoryError: nothing changed
            slot_put(&q.vals[ring_idx(q, q.m)], v)
            q.m += 1
            slot_set(&self.agg, a)
        else:
            new = [self._otimes(self._inv(<object>q.vals[(cur - self.rs[j] + W) % W].o),
                                self._otimes(<object>self.answers[j].o, v)) for j in range(self.k)]
            n_after = self.n + 1 if self.n < W else W
            refold = self._refold_due(n_after)
            if refold:
                window = self._window()
                window.append(v)
                new = self._refold(window[len(window) - n_after:])
            old = <object>q.vals[cur].o  # released when this returns, with the state whole
            for j in range(self.k):
                slot_set(&self.answers[j], new[j])
            slot_set(&q.vals[cur], v)
            self.cursor = (cur + 1) % W
            self.inserted_ += 1
        self.n = n_after
        self._advance_since(refold)
        return 0

    cdef int _evict_g(self) except -1:
        cdef Py_ssize_t j, W = self.cap, slot, n_after = self.n - 1
        cdef Ring* q = &self.q
        cdef bint refold
        if W == 0:
            old = <object>q.vals[q.head].o
            if self.n > 1:
                a = self._otimes(self._inv(old), <object>self.agg.o)
            else:
                a = self._one
            refold = self._refold_due(n_after)
            if refold:
                a = self._refold(self._window()[1:])[0]
            slot_clear(&q.vals[q.head])  # ``old`` keeps it alive until this returns
            slot_set(&self.agg, a)
            q.head = (q.head + 1) & (q.size - 1)
            q.m -= 1
        else:
            slot = (self.cursor - self.n + W) % W
            old = <object>q.vals[slot].o
            if self.n == 1:
                new = [self._one for j in range(self.k)]
            else:
                new = [self._otimes(self._inv(old), <object>self.answers[j].o) if self.rs[j] >= self.n
                       else <object>self.answers[j].o for j in range(self.k)]
            refold = self._refold_due(n_after)
            if refold:
                new = self._refold(self._window()[1:])
            for j in range(self.k):
                slot_set(&self.answers[j], new[j])
            slot_set(&q.vals[slot], self._one)
        self.n = n_after
        self._advance_since(refold)
        return 0

    cdef int _insert_one(self, object value) except -1:
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if self._insert_k(v) < 0:
                raise MemoryError()
        else:
            self._insert_g(self._lift(value))
        return 0

    cdef int _evict_one(self) except -1:
        if self.kind != K_GENERIC:
            self._evict_k()
        else:
            self._evict_g()
        return 0

    # ------------------------------------------------------------------------------------------------------------

    def insert(self, value: In) -> None:
        """Plain: ``agg ← agg ⊗ v`` (1 ⊗). Multi-query: ``ans_R ← inv(partials[currPos − R]) ⊗ (ans_R ⊗ v)``
        for every range (2 ⊗ per range), then ``partials[currPos] ← v``."""
        self._enter("insert")
        try:
            self._insert_one(value)
        finally:
            self.state = ST_READY

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls). Every value is
        validated (lifted) first, so a refused one changes nothing; if ``combine`` or ``inverse`` raises at the
        j-th insertion, the first j stay inserted and the exception's note says so."""
        cdef Py_ssize_t n = 0, done, j = 0
        cdef Slot* inp = NULL
        self._enter("insert_many")
        try:
            if self.kind != K_GENERIC:
                keep = _slots_of(self.kind, values, &n, &inp)
                try:
                    with nogil:
                        done = self._insert_run(inp, n)
                    if done < n:
                        err = MemoryError()
                        err.add_note(f"swagkit slickdeque_inv: insert_many inserted {done} of {n} values")
                        raise err
                finally:
                    if keep is None and inp != NULL:
                        free(inp)
                return
            lift = self._lift
            lifted = [lift(x) for x in values]
            try:
                for v in lifted:
                    self._insert_g(v)
                    j += 1
            except BaseException as err:
                err.add_note(f"swagkit slickdeque_inv: insert_many inserted {j} of {len(lifted)} values")
                raise
        finally:
            self.state = ST_READY

    def evict(self) -> None:
        """Remove the oldest partial (``inv(old) ⊗`` every aggregate covering it; an emptied window resets)."""
        self._enter("evict")
        try:
            if self.n == 0:
                raise EmptyWindowError("slickdeque_inv: evict() on an empty window")
            self._evict_one()
        finally:
            self.state = ST_READY

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest partials; ``EmptyWindowError`` (nothing evicted) beyond the size,
        ``ValueError``/``TypeError`` for a negative or non-integer count. If ``combine`` or ``inverse`` raises at
        the j-th eviction, the first j stay evicted (the exception's note says so)."""
        cdef Py_ssize_t j = 0, c
        self._enter("evict_many")
        try:
            count = _check_count(count)
            if count > self.n:
                raise EmptyWindowError(f"slickdeque_inv: evict_many({count}) on a window of {self.n}")
            c = count
            if self.kind != K_GENERIC:
                for j in range(c):
                    self._evict_k()
                return
            try:
                while j < c:
                    self._evict_g()
                    j += 1
            except BaseException as err:
                err.add_note(f"swagkit slickdeque_inv: evict_many evicted {j} of {c} values")
                raise
        finally:
            self.state = ST_READY

    def shift(self, value: In) -> Out:
        """One static-window step in one call: ``evict(); insert(value); return query()``, with exactly their ⊗
        and inverse sequence, ``combine_count`` and ``inverse_count`` (O(1) amortized like them). ``value`` is
        validated (lifted) and the window checked first: a refused value or an empty window (``EmptyWindowError``)
        changes nothing; if ``combine`` or ``inverse`` raises in the insertion, the eviction stays done (the
        exception's note says so). A typed kind does it in C, touching no Python object but the argument and the
        boxed result."""
        cdef Slot v
        self._enter("shift")
        try:
            if self.kind != K_GENERIC:
                to_slot(self.kind, value, &v)
                if self.n == 0:
                    raise EmptyWindowError("slickdeque_inv: shift() on an empty window")
                self._evict_k()
                if self._insert_k(v) < 0:
                    err = MemoryError()
                    err.add_note("swagkit slickdeque_inv: shift evicted the oldest value, "
                                 "then the insertion raised")
                    raise err
            else:
                lifted = self._lift(value)
                if self.n == 0:
                    raise EmptyWindowError("slickdeque_inv: shift() on an empty window")
                self._evict_g()
                try:
                    self._insert_g(lifted)
                except BaseException as err:
                    err.add_note("swagkit slickdeque_inv: shift evicted the oldest value, "
                                 "then the insertion raised")
                    raise
            result = self._box(self.agg if self.cap == 0 else self.answers[0])  # ``query``'s aggregate
            if self.lower_id:  # no Python call to the identity ``lower``, as ``query``
                return result
            return self._lower(result)
        finally:
            self.state = ST_READY

    cdef inline object _box(self, Slot s):
        if self.kind == K_GENERIC:
            return <object>s.o
        return box(self.kind, s)

    cdef list _window(self):
        cdef Py_ssize_t i, W = self.cap
        if W == 0:
            return [self._box(self.q.vals[ring_idx(&self.q, i)]) for i in range(self.q.m)]
        return [self._box(self.q.vals[(self.cursor - self.n + i + W) % W]) for i in range(self.n)]

    # ------------------------------------------------------------------------------------------------------------

    def query(self) -> Out:
        """The whole window, lowered. 0 ⊗."""
        self._enter("query")
        try:
            if self.cap == 0:
                if self.lower_id:  # no Python call to the identity ``lower``
                    return self._box(self.agg)
                return self._lower(self._box(self.agg))
            return self._lower(self._box(self.answers[0]))
        finally:
            self.state = ST_READY

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered; ``r`` must be a registered range. 0 ⊗."""
        cdef Py_ssize_t j
        self._enter("query_range")
        try:
            if self.cap != 0 and not isinstance(r, bool) and isinstance(r, int):
                for j in range(self.k):
                    if self.rs[j] == r:
                        return self._lower(self._box(self.answers[j]))
            raise ValueError(f"slickdeque_inv answers only its registered ranges {list(self.ranges)}, not {r!r}")
        finally:
            self.state = ST_READY

    cdef dict _query_all_c(self):
        cdef Py_ssize_t j
        lower = self._lower
        return {self.ranges[j]: lower(self._box(self.answers[j])) for j in range(self.k)}

    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first. 0 ⊗."""
        self._enter("query_all")
        try:
            return self._query_all_c()
        finally:
            self.state = ST_READY

    def step(self, value: Any) -> dict[int, Any]:
        """``insert(value)`` then ``query_all()``."""
        self._enter("step")
        try:
            self._insert_one(value)
            return self._query_all_c()
        finally:
            self.state = ST_READY

    def snapshot(self) -> SlickDequeInvState:
        cdef Py_ssize_t i, j
        self._enter("snapshot")
        try:
            if self.cap == 0:
                return SlickDequeInvState(None, tuple(self._window()), 0, 0, ((None, self._box(self.agg)),), self.n)
            return SlickDequeInvState(
                self.capacity,
                tuple([self._box(self.q.vals[i]) for i in range(self.cap)]),
                self.cursor,
                self.inserted_,
                tuple([(self.ranges[j], self._box(self.answers[j])) for j in range(self.k)]),
                self.n,
            )
        finally:
            self.state = ST_READY

    cdef dict _params(self):
        cdef Py_ssize_t j
        tracks = None
        if self.tracks != NULL:
            tracks = tuple([self._track_tuple(j) for j in range(self.ntracks)])
        return {"ranges": self.ranges, "recompute_every": self.recompute_every, "since": self.since,
                "inverse_count": self.inverse_count, "tracks": tracks}

    cdef tuple _track_tuple(self, Py_ssize_t j):
        cdef swag_f64_track* t = &self.tracks[j]
        return (t.fin, t.err, t.eabs, t.mag, t.merr, t.count, t.pinf, t.ninf, t.ops)

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, ranges=None, recompute_every=None, since=0, inverse_count=0,
                       tracks=None):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The shape is
        checked like the reference's (``ValueError``/``TypeError``), typed values like ``insert``; ``tracks``
        (``sum_f64``'s drift control) like the reference's, refolded from the partials when absent."""
        cdef SlickDequeInv agg = cls(monoid, ranges, recompute_every=recompute_every)
        cdef Ring* q = &agg.q
        cdef Py_ssize_t i
        partials, answers = _inv_snapshot_shape(snapshot, agg.ranges, since, inverse_count)
        if agg.cap == 0:
            while q.size < len(partials):
                ring_grow(q)
            for x in partials:
                agg._store_new(&q.vals[ring_idx(q, q.m)], x)
                q.m += 1
            agg._store(&agg.agg, answers[0])
        else:
            for i in range(agg.cap):
                agg._store(&q.vals[i], partials[i])
            for i in range(agg.k):
                agg._store(&agg.answers[i], answers[i])
            agg.cursor = snapshot.cursor
            agg.inserted_ = snapshot.inserted
        agg.n = snapshot.length
        agg.since = since
        agg.inverse_count = inverse_count
        if agg.tracks != NULL:
            if tracks is not None:
                for i, t in enumerate(_restore_tracks(tracks, agg.ntracks)):
                    agg.tracks[i].fin, agg.tracks[i].err, agg.tracks[i].eabs = t.fin, t.err, t.eabs
                    agg.tracks[i].mag, agg.tracks[i].merr, agg.tracks[i].count = t.mag, t.merr, t.finite
                    agg.tracks[i].pinf, agg.tracks[i].ninf, agg.tracks[i].ops = t.pinf, t.ninf, t.ops
            else:
                for i in range(agg.ntracks):
                    agg._fold_track(i, False)
                agg._track_answers()
        return agg

    cdef int _store(self, Slot* slot, object x) except -1:
        """Overwrite a slot that holds a value (generic: a reference) with ``x`` (typed: validated)."""
        cdef Slot s
        if self.kind != K_GENERIC:
            _restore_slot(self.kind, x, &s)
            slot[0] = s
        else:
            slot_set(slot, x)
        return 0

    cdef int _store_new(self, Slot* slot, object x) except -1:
        """Fill an empty slot with ``x`` (typed: validated)."""
        cdef Slot s
        if self.kind != K_GENERIC:
            _restore_slot(self.kind, x, &s)
            slot[0] = s
        else:
            slot_put(slot, x)
        return 0

    def __reduce__(self):
        snap = self.snapshot()
        return (_restore, (type(self), self.monoid, self._params(), snap, self.combine_count))

    def __copy__(self):
        snap = self.snapshot()
        return _restore(type(self), self.monoid, self._params(), snap, self.combine_count)

    def _memory_bytes(self):
        """Bytes malloc'd for the partials and the running aggregates."""
        return self.q.size * sizeof(Slot) + self.k * (sizeof(Slot) + sizeof(Py_ssize_t))

    def __repr__(self):
        return f"SlickDequeInv({self.monoid.name}, n={self.n})"


def _negate(x):
    return -x


# ================================================================================================================
# window_array fast path


cdef object _new_sum_output(int kind, Py_ssize_t n):
    """``new_out_array(kind, n)`` on huge pages when it is large (``swag_advise_hugepages``: bottleneck's numpy
    outputs get them; with 4 KiB pages the page faults of a fresh output cost more than the sums)."""
    out = new_out_array(kind, n)
    if n > 0:
        swag_advise_hugepages((<cpython.array.array>out).data.as_voidptr, <size_t>n * sizeof(Slot))
    return out


cdef object _sum_run_f64_buffer(object values, Py_ssize_t w):
    """``_sum_run`` for a buffer of C doubles, read in place: the kernel notices a NaN from its blocks' folds (a NaN then
    raises here, like ``insert``, and the answers are dropped). None when ``values`` is no such buffer."""
    cdef const double[::1] dv
    cdef Py_ssize_t n
    cdef int bad
    cdef Slot v
    try:
        dv = values
    except _BUFFER_MISMATCH:
        return None
    n = dv.shape[0]
    out = _new_sum_output(K_SUM_F, n)
    if n > 0:
        with nogil:
            bad = swag_window_sum_f64(&dv[0], n, w, <double*>(<cpython.array.array>out).data.as_voidptr)
        if bad:
            to_slot(K_SUM_F, values[first_nan(dv)], &v)  # raises ValueError
    return out


cdef object _sum_run(int kind, object values, Py_ssize_t w):
    """The window sums of ``values`` (validated like ``insert``) by ``include/window_sum.h``: an ``array.array``
    ('d' for sum_f64, 'q' for sum_i64)."""
    cdef Py_ssize_t n = 0
    cdef Slot* inp = NULL
    cdef Slot* outp
    if kind == K_SUM_F and PyObject_CheckBuffer(values):
        out = _sum_run_f64_buffer(values, w)
        if out is not None:
            return out
    keep = _slots_of(kind, values, &n, &inp)
    try:
        out = _new_sum_output(kind, n)
        if n > 0:
            outp = <Slot*>(<cpython.array.array>out).data.as_voidptr
            with nogil:
                if kind == K_SUM_F:
                    swag_window_sum_f64(<const double*>inp, n, w, <double*>outp)  # inp holds no NaN
                else:
                    swag_window_sum_i64(<const int64_t*>inp, n, w, <int64_t*>outp)
        return out
    finally:
        if keep is None and inp != NULL:
            free(inp)


def _window_sum(monoid, values, window):
    """Compiled kernel of :func:`swagkit.optimized.window_sum` (the caller checked ``monoid`` and ``window``; the
    kernel never uses the identity, so it is not validated, as in the pure-Python twin)."""
    cdef int kind = _typed_kind(monoid)
    if not _is_sum(kind):
        raise TypeError("_window_sum: a sum_f64 or sum_i64 monoid is required")
    return _sum_run(kind, values, window if window < PY_SSIZE_T_MAX else PY_SSIZE_T_MAX)


def _window_array(cls, monoid, values, window):
    """Compiled ``window_array``: per item, evict when full, insert, record ``query()``. For a typed kind whose
    ``lower`` is the identity (Non-Inv max/min, Inv sum in plain mode) one C loop over validated slots returning
    an ``array.array`` ('d'/'q'); otherwise a list. (``window`` is checked by the caller; a window beyond
    ``Py_ssize_t`` is never reached, so it is clamped.)"""
    cdef Py_ssize_t w, n = 0, done
    cdef Slot* inp = NULL
    cdef Slot* outp
    cdef object keep = None
    cdef int kind = 0
    cdef SlickDequeNonInv a
    cdef SlickDequeInv b
    w = window if window < PY_SSIZE_T_MAX else PY_SSIZE_T_MAX
    agg = cls(monoid)
    typed = False
    if isinstance(agg, SlickDequeNonInv):
        a = agg
        typed = a.kind != K_GENERIC
        kind = a.kind
    elif isinstance(agg, SlickDequeInv):
        b = agg
        typed = b.kind != K_GENERIC and b.cap == 0
        kind = b.kind
    if typed and kind == K_SUM_I and _lower_is_identity(monoid):
        # a group: any order of the wrapping additions gives the exact window sums the ⊗ sequence gives
        return _sum_run(kind, values, w)
    if typed and _lower_is_identity(monoid):
        keep = _slots_of(kind, values, &n, &inp)
        try:
            out = new_out_array(kind, n)
            if n > 0:
                outp = <Slot*>(<cpython.array.array>out).data.as_voidptr
                if isinstance(agg, SlickDequeNonInv):
                    while a.q.size < (w if w < n else n):  # the deque never exceeds the window nor the input
                        ring_grow(&a.q)
                    with nogil:
                        done = a._window_run(inp, n, w, outp)
                else:
                    with nogil:
                        done = b._window_run(inp, n, w, outp)
                if done < n:
                    raise MemoryError()
            return out
        finally:
            if keep is None and inp != NULL:
                free(inp)
    res = []
    for x in values:
        if len(agg) == w:
            agg.evict()
        agg.insert(x)
        res.append(agg.query())
    return res
