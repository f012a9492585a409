# cython: language_level=3, annotation_typing=False
# SlickDeque (paper 001), compiled: SlickDequeInv (Algorithm 1) and SlickDequeNonInv (Algorithm 2).
#
# Same API, snapshots, combine_count (and inverse_count) as swagkit.reference.slickdeque; the ⊗ call sequence is
# identical, so float results are bit-identical. Typed fast paths (no Python call per ⊗): Inv over sum_f64 /
# sum_i64 (inverse = negation, as the reference uses for sum_f64 and the library's wrapping _neg64 for sum_i64),
# Non-Inv over max/min f64/i64 (the dominance test ``(back ⊗ v) == v`` is the kind's combine and ==). Storage is
# a growable ring buffer of C slots (power-of-two size; O(1) amortized growth, indexing O(1)); Inv in multi-query
# mode uses a fixed ring of W slots as Algorithm 1.

include "_common.pxi"

cimport cython
from libc.stdint cimport INT64_MIN

from swagkit.spec.slickdeque import normalize_ranges, require_invertible, require_selective
from swagkit.spec.snapshots import SlickDequeInvState, SlickDequeNonInvState
from swagkit.reference.slickdeque import DEFAULT_RECOMPUTE_EVERY


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
    r.size = size
    r.head = 0
    r.m = 0
    r.vals = <Slot*>malloc(size * sizeof(Slot))
    r.seqs = <int64_t*>malloc(size * sizeof(int64_t)) if with_seqs else NULL
    if r.vals == NULL or (with_seqs and r.seqs == NULL):
        raise MemoryError()
    return 0


cdef int ring_grow(Ring* r) except -1:
    cdef Py_ssize_t i, n2 = r.size * 2, mask = r.size - 1
    cdef Slot* nv = <Slot*>malloc(n2 * sizeof(Slot))
    cdef int64_t* ns = NULL
    if nv == NULL:
        raise MemoryError()
    if r.seqs != NULL:
        ns = <int64_t*>malloc(n2 * sizeof(int64_t))
        if ns == NULL:
            free(nv)
            raise MemoryError()
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


cdef int ring_grow_ng(Ring* r) noexcept nogil:
    """``ring_grow`` without the GIL: -1 (nothing changed) when out of memory."""
    cdef Py_ssize_t i, n2 = r.size * 2, mask = r.size - 1
    cdef Slot* nv = <Slot*>malloc(n2 * sizeof(Slot))
    cdef int64_t* ns = NULL
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


cdef inline const Slot* _buffer_address(object buf, int kind):
    cdef const double[::1] dv
    cdef const int64_t[::1] iv
    if kind <= K_MIN_F:
        dv = buf
        return <const Slot*>&dv[0] if dv.shape[0] > 0 else NULL
    iv = buf
    return <const Slot*>&iv[0] if iv.shape[0] > 0 else NULL


cdef object _slots_of(int kind, object values, Py_ssize_t* n_out, Slot** ptr):
    """Validated typed slots for ``values`` in ``ptr[0]``: a buffer read in place (returned, keep it alive), or a
    malloc'd copy that the caller frees (``None`` returned)."""
    cdef Py_ssize_t n_ok = 0, n, i
    cdef Slot* out
    cdef Slot v
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


# The Non-Inv steady-state kernel is plain C (below) rather than Cython so that the register selects compile to
# cmov on x86-64: with C ternaries GCC emits branches, which mispredict on random data (whether a node is popped
# is a coin flip), and the portable and/xor form is ~6% slower. Nothing else in it differs from Algorithm 2.
cdef extern from *:
    """
    #include <stdint.h>
    #include <stddef.h>

    /* One deque node of the kernel's private ring: the order key, the sequence number and the value's bits. */
    typedef struct { int64_t key; int64_t seq; int64_t bits; } SwagNvNode;

    /* Order keys: for every typed selective kind, node b is dominated by a new value v -- (b (x) v) == v in
       Algorithm 2, i.e. b <= v for max, b >= v for min -- exactly when key(b) <= key(v) as int64.
       Doubles: the IEEE bits of x + 0.0 (so -0.0 and +0.0 share a key, as they compare equal) with the low 63
       bits flipped for negatives order like the doubles themselves; NaN never gets here (rejected on input).
       Min kinds use the bitwise complement, which reverses the order. */
    static inline int64_t swag_nv_key(int kind, int64_t bits) {
        union { int64_t i; double f; } u;
        int64_t k;
        if (kind == 2 || kind == 3) {          /* K_MAX_F, K_MIN_F */
            u.i = bits; u.f = u.f + 0.0;
            k = u.i ^ (int64_t)(((uint64_t)(u.i >> 63)) >> 1);
        } else {
            k = bits;
        }
        return (kind == 3 || kind == 6) ? ~k : k;   /* K_MIN_F, K_MIN_I */
    }

    /* c ? a : b without a branch. */
    static inline int64_t swag_csel(int64_t c, int64_t a, int64_t b) {
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
        __asm__("test %1, %1; cmovnz %2, %0" : "+r"(b) : "r"(c), "r"(a) : "cc");
        return b;
    #else
        int64_t m = -(int64_t)(c != 0);
        return b ^ ((a ^ b) & m);
    #endif
    }

    #define SWAG_NV_GUARD INT64_MAX   /* key of the guard slots below the head: never dominated (see below) */

    /* Algorithm 2 in steady state over n items: every item first evicts the head if it is the partial leaving
       the window (sequence number seq0 + i - w), then pops the dominated tail and pushes, then records the head.

       The deque lives in q[] (positions unmasked, slot = position & qmask; the ring holds at least w + 3 slots),
       from position *hp_io (the head) to *tp_io (one past the tail). Two guard slots below the head hold key
       SWAG_NV_GUARD, and k1..k3 cache the keys at positions tp-1..tp-3 (the guard key beyond the deque), so the
       common case -- at most two pops, 7 in 8 inserts on random data -- reads no node it is about to overwrite
       and takes no data-dependent branch. Three or more pops test the next four nodes at once, then scan.
       A new value whose key is the guard's (only INT64_MAX for max_i64, INT64_MIN for min_i64) always takes the
       bounded slow path, so a guard is never popped.

       Returns the number of dominance tests that stopped a scan (inserts that left some node); the caller adds
       the popped nodes, which together are the reference's combine count. */
    static Py_ssize_t swag_nv_steady(SwagNvNode* q, Py_ssize_t qmask, Py_ssize_t* hp_io, Py_ssize_t* tp_io,
                                     int64_t seq0, const int64_t* in, Py_ssize_t n, int64_t* out, Py_ssize_t w,
                                     int kind) {
        Py_ssize_t hp = *hp_io, tp = *tp_io, t2, m, lim, c2, i;
        Py_ssize_t stops = 0;
        int64_t sq = seq0, kv, k1, k2, k3, k4, n3, d1, d2, bits;
        SwagNvNode* nd;
        q[(hp - 1) & qmask].key = SWAG_NV_GUARD;
        q[(hp - 2) & qmask].key = SWAG_NV_GUARD;
        m = tp - hp;
        k1 = m >= 1 ? q[(tp - 1) & qmask].key : SWAG_NV_GUARD;
        k2 = m >= 2 ? q[(tp - 2) & qmask].key : SWAG_NV_GUARD;
        k3 = m >= 3 ? q[(tp - 3) & qmask].key : SWAG_NV_GUARD;
        for (i = 0; i < n; i++) {
            if (SWAG_UNLIKELY(q[hp & qmask].seq == sq - w)) {   /* evict the expiring head */
                q[hp & qmask].key = SWAG_NV_GUARD;
                hp++;
                m = tp - hp;
                if (m < 3) { k3 = SWAG_NV_GUARD; if (m < 2) { k2 = SWAG_NV_GUARD; if (m < 1) k1 = SWAG_NV_GUARD; } }
            }
            bits = in[i];
            kv = swag_nv_key(kind, bits);
            if (SWAG_UNLIKELY(k3 <= kv)) {                     /* three or more pops */
                t2 = tp - 3;
                lim = t2 - hp;
                c2 = ((lim >= 1) & (q[(t2 - 1) & qmask].key <= kv)) + ((lim >= 2) & (q[(t2 - 2) & qmask].key <= kv))
                   + ((lim >= 3) & (q[(t2 - 3) & qmask].key <= kv)) + ((lim >= 4) & (q[(t2 - 4) & qmask].key <= kv));
                t2 -= c2;
                if (SWAG_UNLIKELY(c2 == 4)) {
                    while (t2 > hp && q[(t2 - 1) & qmask].key <= kv) t2--;
                }
                k2 = q[(t2 - 1) & qmask].key;
                k3 = q[(t2 - 2) & qmask].key;
            } else {                                                  /* 0, 1 or 2 pops, branch-free */
                d1 = k1 <= kv;
                d2 = k2 <= kv;
                t2 = tp - d1 - d2;
                k4 = q[(tp - 4) & qmask].key;
                n3 = swag_csel(d2, k4, swag_csel(d1, k3, k2));       /* the key c + 2 below the old tail */
                k2 = swag_csel(d2, k3, swag_csel(d1, k2, k1));       /* the key c + 1 below the old tail */
                k3 = n3;
            }
            k1 = kv;
            stops += t2 > hp;
            nd = &q[t2 & qmask];
            nd->key = kv;
            nd->seq = sq;
            nd->bits = bits;
            sq++;
            tp = t2 + 1;
            out[i] = q[hp & qmask].bits;
        }
        *hp_io = hp;
        *tp_io = tp;
        return stops;
    }
    """
    ctypedef struct SwagNvNode:
        int64_t key
        int64_t seq
        int64_t bits
    int64_t swag_nv_key(int kind, int64_t bits) noexcept nogil
    Py_ssize_t swag_nv_steady(SwagNvNode* q, Py_ssize_t qmask, Py_ssize_t* hp_io, Py_ssize_t* tp_io,
                              int64_t seq0, const int64_t* inp, Py_ssize_t n, int64_t* out, Py_ssize_t w,
                              int kind) noexcept nogil


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
    while s < n:
        s *= 2
    return s


# ================================================================================================================
# Non-Inv


@cython.final
cdef class SlickDequeNonInv:
    """SlickDequeNonInv(monoid, ranges=None)
--

    SlickDeque (Non-Inv) (paper 001 Algorithm 2), compiled; same API, snapshots and ``combine_count`` as
    ``swagkit.reference.SlickDequeNonInv``. Selective monoids only."""

    algorithm = "slickdeque_noninv"

    cdef readonly object monoid
    cdef public long long combine_count
    cdef object _combine, _lift, _lower, _one
    cdef int kind
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

    def __init__(self, monoid, ranges=None):
        require_selective(monoid)
        self.monoid = monoid
        self.combine_count = 0
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._lower = monoid.lower
        self._one = monoid.identity
        self.kind = choose_kind(monoid, &self.one_t)
        if self.kind == K_SUM_F or self.kind == K_SUM_I:
            self.kind = K_GENERIC
        self.ranges = normalize_ranges(ranges)
        self.capacity = self.ranges[0] if self.ranges else None
        self.cap = self.ranges[0] if self.ranges else 0
        self.first = 0
        self.inserted = 0
        ring_init(&self.q, _pow2_at_least(self.cap + 1 if self.cap else 16), True)

    def __dealloc__(self):
        ring_free(&self.q, self.kind == K_GENERIC)

    def __len__(self):
        return self.inserted - self.first

    cdef inline void _evict_one(self) noexcept:
        cdef Ring* q = &self.q
        if q.m and q.seqs[q.head] == self.first:
            if self.kind == K_GENERIC:
                slot_clear(&q.vals[q.head])
            q.head = (q.head + 1) & (q.size - 1)
            q.m -= 1
        self.first += 1

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
        """Precondition: ``ring.size ≥ w`` (see ``_window_array``). Returns how many items were done (0 when the
        kernel's scratch ring cannot be allocated; nothing changed then)."""
        cdef Ring* q = &self.q
        cdef Py_ssize_t size = 16, done
        cdef SwagNvNode* sc
        while size < w + 3:
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

    cdef int _insert_g(self, object v) except -1:
        cdef Ring* q = &self.q
        cdef bint evict_head = self.cap != 0 and self.inserted - self.first == self.cap
        cdef Py_ssize_t stop = 1 if (evict_head and q.m and q.seqs[q.head] == self.first) else 0
        cdef Py_ssize_t i = q.m - 1, k, pops
        comb = self._combine
        while i >= stop:
            b = <object>q.vals[ring_idx(q, i)].o
            self.combine_count += 1
            r = comb(b, v)
            if r is v or r == v:
                i -= 1
            else:
                break
        pops = q.m - 1 - i
        for k in range(pops):
            slot_clear(&q.vals[ring_idx(q, q.m - 1 - k)])
        q.m -= pops
        if evict_head:
            self._evict_one()
        if q.m == q.size:
            ring_grow(q)
        k = ring_idx(q, q.m)
        slot_put(&q.vals[k], v)
        q.seqs[k] = self.inserted
        q.m += 1
        self.inserted += 1
        return 0

    def insert(self, value: Any) -> None:
        """Evict (capacity mode, window full), dominance pops, push. ≤ deque-size ⊗, amortized ≤ 2."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if self._insert_k(v) < 0:
                raise MemoryError()
        else:
            self._insert_g(self._lift(value))

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls); a C loop over the raw
        buffer for ``array.array``/``memoryview`` input of a typed kind (an invalid item raises after the valid
        ones before it were inserted, as with one-by-one inserts)."""
        cdef Py_ssize_t n_ok = 0, done
        cdef Slot v
        cdef const Slot* inp
        if self.kind != K_GENERIC:
            buf = typed_input(self.kind, values, &n_ok)
            if buf is not None:
                if n_ok > 0:
                    inp = _buffer_address(buf, self.kind)
                    with nogil:
                        done = self._insert_run(inp, n_ok)
                    if done < n_ok:
                        raise MemoryError()
                if n_ok < len(buf):
                    to_slot(self.kind, values[n_ok], &v)  # raises
                return
            for x in values:
                to_slot(self.kind, x, &v)
                if self._insert_k(v) < 0:
                    raise MemoryError()
        else:
            lift = self._lift
            for x in values:
                self._insert_g(lift(x))

    def evict(self) -> None:
        """Remove the oldest partial (pop the head iff it is that partial). 0 ⊗."""
        if self.inserted == self.first:
            raise EmptyWindowError("slickdeque_noninv: evict() on an empty window")
        self._evict_one()

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest partials; ``EmptyWindowError`` (nothing evicted) beyond the size."""
        cdef Py_ssize_t k
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.inserted - self.first:
            raise EmptyWindowError(
                f"slickdeque_noninv: evict_many({count}) on a window of {self.inserted - self.first}"
            )
        for k in range(count):
            self._evict_one()

    cdef inline object _val(self, Py_ssize_t i):
        cdef Slot s = self.q.vals[ring_idx(&self.q, i)]
        if self.kind == K_GENERIC:
            return <object>s.o
        return box(self.kind, s)

    def query(self) -> Any:
        """The head's value (the whole window), lowered. 0 ⊗."""
        if self.q.m == 0:
            return self._lower(self._one)
        return self._lower(self._val(0))

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered (first node with ``seq > t − r``). 0 ⊗."""
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

    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first, in one pass (cursor carried)."""
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

    def query_runs(self) -> list[tuple[int, Any]]:
        """``[(r, answer), …]`` for every range at once, one pair per node from the tail (``r = 1``) to the head;
        range ``ρ`` is answered by the last pair with ``r ≤ ρ``. O(deque size), 0 ⊗."""
        cdef Py_ssize_t i
        cdef int64_t t = self.inserted - 1
        lower = self._lower
        if self.q.m == 0:
            return [(1, lower(self._one))]
        return [(t - self.q.seqs[ring_idx(&self.q, i)] + 1, lower(self._val(i))) for i in range(self.q.m - 1, -1, -1)]

    def step(self, value: Any) -> dict[int, Any]:
        """``insert(value)`` then ``query_all()``."""
        self.insert(value)
        return self.query_all()

    def snapshot(self) -> SlickDequeNonInvState:
        cdef Py_ssize_t i
        nodes = tuple((self.q.seqs[ring_idx(&self.q, i)], self._val(i)) for i in range(self.q.m))
        return SlickDequeNonInvState(self.capacity, nodes, self.first, self.inserted, self.ranges)

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

    SlickDeque (Inv) (paper 001 Algorithm 1), compiled; same API, snapshots, ``combine_count`` and
    ``inverse_count`` as ``swagkit.reference.SlickDequeInv``. Invertible monoids, or ``sum_f64`` with periodic
    recomputation."""

    algorithm = "slickdeque_inv"

    cdef readonly object monoid
    cdef public long long combine_count
    cdef public long long inverse_count
    cdef object _combine, _inverse, _lift, _lower, _one
    cdef int kind
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

    def __cinit__(self, *args, **kwargs):
        self.q.vals = NULL
        self.q.seqs = NULL
        self.q.m = 0
        self.rs = NULL
        self.answers = NULL
        self.k = 0
        self.agg.o = NULL

    def __init__(self, monoid, ranges=None, *, recompute_every=None):
        cdef Py_ssize_t i
        require_invertible(monoid)
        self.monoid = monoid
        self.combine_count = 0
        self.inverse_count = 0
        self._combine = monoid.combine
        self._inverse = monoid.inverse if monoid.inverse is not None else _negate
        self._lift = monoid.lift
        self._lower = monoid.lower
        self._one = monoid.identity
        self.kind = choose_kind(monoid, &self.one_t)
        if not _is_sum(self.kind):
            self.kind = K_GENERIC
        self.ranges = normalize_ranges(ranges)
        self.capacity = self.ranges[0] if self.ranges else None
        self.cap = self.ranges[0] if self.ranges else 0
        if recompute_every is None:
            recompute_every = 0 if monoid.invertible else (self.cap or DEFAULT_RECOMPUTE_EVERY)
        if isinstance(recompute_every, bool) or not isinstance(recompute_every, int) or recompute_every < 0:
            raise ValueError(f"recompute_every must be a non-negative int, got {recompute_every!r}")
        self.recompute_every = recompute_every
        self.since = 0
        self.n = 0
        self.inserted_ = 0
        self.cursor = 0
        if self.cap == 0:
            ring_init(&self.q, 16, False)
            self._set_agg_one()
        else:
            ring_init(&self.q, self.cap, False)
            self.k = len(self.ranges)
            self.rs = <Py_ssize_t*>malloc(self.k * sizeof(Py_ssize_t))
            self.answers = <Slot*>malloc(self.k * sizeof(Slot))
            if self.rs == NULL or self.answers == NULL:
                raise MemoryError()
            for i in range(self.k):
                self.rs[i] = self.ranges[i]
                self._slot_init(&self.answers[i], self._one, self.one_t)
            for i in range(self.cap):
                self._slot_init(&self.q.vals[i], self._one, self.one_t)
            self.q.m = self.cap

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
        if self.cap:
            if g and self.q.vals != NULL:
                for i in range(self.q.m):
                    slot_clear(&self.q.vals[i])
            self.q.m = 0
            if self.answers != NULL:
                if g:
                    for i in range(self.k):
                        slot_clear(&self.answers[i])
                free(self.answers)
            if self.rs != NULL:
                free(self.rs)
        elif g:
            slot_clear(&self.agg)
        ring_free(&self.q, g)

    def __len__(self):
        return self.n

    cdef inline object _otimes(self, object a, object b):
        self.combine_count += 1
        return self._combine(a, b)

    cdef inline object _inv(self, object x):
        self.inverse_count += 1
        return self._inverse(x)

    # ------------------------------------------------------------------------------------------------------------

    cdef inline int _insert_t(self, Slot v, int kind) noexcept nogil:
        """Typed insert (sum kinds); -1 (nothing changed) when out of memory."""
        cdef Py_ssize_t j, W = self.cap, cur = self.cursor
        cdef Ring* q = &self.q
        if W == 0:
            if q.m == q.size and ring_grow_ng(q) < 0:
                return -1
            self.combine_count += 1
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
            q.vals[cur] = v
            self.cursor = (cur + 1) % W
            self.inserted_ += 1
            if self.n < W:
                self.n += 1
        self._tick_t(kind)
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
        if W == 0:
            if self.n > 1:
                self.combine_count += 1
                self.inverse_count += 1
                self.agg = tcomb(kind, _tneg(kind, q.vals[q.head]), self.agg)
            else:
                self.agg = self.one_t
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
            q.vals[slot] = self.one_t
        self.n -= 1
        self._tick_t(kind)

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

    cdef int _insert_g(self, object v) except -1:
        cdef Py_ssize_t j, W = self.cap, cur = self.cursor
        cdef Ring* q = &self.q
        if W == 0:
            a = self._otimes(<object>self.agg.o, v)
            if q.m == q.size:
                ring_grow(q)
            slot_put(&q.vals[ring_idx(q, q.m)], v)
            q.m += 1
            slot_set(&self.agg, a)
            self.n += 1
        else:
            new = [self._otimes(self._inv(<object>q.vals[(cur - self.rs[j] + W) % W].o),
                                self._otimes(<object>self.answers[j].o, v)) for j in range(self.k)]
            for j in range(self.k):
                slot_set(&self.answers[j], new[j])
            slot_set(&q.vals[cur], v)
            self.cursor = (cur + 1) % W
            self.inserted_ += 1
            if self.n < W:
                self.n += 1
        self._tick()
        return 0

    def insert(self, value: Any) -> None:
        """Plain: ``agg ← agg ⊗ v`` (1 ⊗). Multi-query: ``ans_R ← inv(partials[currPos − R]) ⊗ (ans_R ⊗ v)``
        for every range (2 ⊗ per range), then ``partials[currPos] ← v``."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if self._insert_k(v) < 0:
                raise MemoryError()
        else:
            self._insert_g(self._lift(value))

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls)."""
        cdef Slot v
        if self.kind != K_GENERIC:
            for x in values:
                to_slot(self.kind, x, &v)
                if self._insert_k(v) < 0:
                    raise MemoryError()
        else:
            lift = self._lift
            for x in values:
                self._insert_g(lift(x))

    cdef int _evict(self) except -1:
        cdef Py_ssize_t j, W = self.cap, slot
        cdef Ring* q = &self.q
        if self.kind != K_GENERIC:
            if self.kind == K_SUM_F:
                self._evict_t(K_SUM_F)
            else:
                self._evict_t(K_SUM_I)
            return 0
        if W == 0:
            if self.n > 1:
                a = self._otimes(self._inv(<object>q.vals[q.head].o), <object>self.agg.o)
            else:
                a = self._one
            slot_clear(&q.vals[q.head])
            slot_set(&self.agg, a)
            q.head = (q.head + 1) & (q.size - 1)
            q.m -= 1
        else:
            slot = (self.cursor - self.n + W) % W
            old_o = <object>q.vals[slot].o
            if self.n == 1:
                new = [self._one for j in range(self.k)]
            else:
                new = [self._otimes(self._inv(old_o), <object>self.answers[j].o) if self.rs[j] >= self.n
                       else <object>self.answers[j].o for j in range(self.k)]
            for j in range(self.k):
                slot_set(&self.answers[j], new[j])
            slot_set(&q.vals[slot], self._one)
        self.n -= 1
        self._tick()
        return 0

    def evict(self) -> None:
        """Remove the oldest partial (``inv(old) ⊗`` every aggregate covering it; an emptied window resets)."""
        if self.n == 0:
            raise EmptyWindowError("slickdeque_inv: evict() on an empty window")
        self._evict()

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest partials; ``EmptyWindowError`` (nothing evicted) beyond the size."""
        cdef Py_ssize_t i
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.n:
            raise EmptyWindowError(f"slickdeque_inv: evict_many({count}) on a window of {self.n}")
        for i in range(count):
            self._evict()

    cdef int _tick(self) except -1:
        if self.recompute_every == 0:
            return 0
        self.since += 1
        if self.since >= max(self.recompute_every, self.n):
            self.since = 0
            self._recompute()
        return 0

    cdef int _recompute(self) except -1:
        cdef Py_ssize_t j, i, lo, W = self.cap
        cdef Slot acc
        window = self._window()
        if W == 0:
            self._store_agg(self._fold(window, 0))
            return 0
        for j in range(self.k):
            lo = self.n - self.rs[j]
            self._store_answer(j, self._fold(window, lo if lo > 0 else 0))
        return 0

    cdef object _fold(self, list window, Py_ssize_t lo):
        cdef Py_ssize_t i
        if lo >= len(window):
            return self._one
        acc = window[lo]
        for i in range(lo + 1, len(window)):
            acc = self._otimes(acc, window[i])
        return acc

    cdef void _store_agg(self, object v) except *:
        cdef Slot s
        if self.kind == K_GENERIC:
            slot_set(&self.agg, v)
        else:
            to_slot(self.kind, v, &s)
            self.agg = s

    cdef void _store_answer(self, Py_ssize_t j, object v) except *:
        cdef Slot s
        if self.kind == K_GENERIC:
            slot_set(&self.answers[j], v)
        else:
            to_slot(self.kind, v, &s)
            self.answers[j] = s

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

    def query(self) -> Any:
        """The whole window, lowered. 0 ⊗."""
        if self.cap == 0:
            return self._lower(self._box(self.agg))
        return self._lower(self._box(self.answers[0]))

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered; ``r`` must be a registered range. 0 ⊗."""
        cdef Py_ssize_t j
        if self.cap != 0 and not isinstance(r, bool) and isinstance(r, int):
            for j in range(self.k):
                if self.rs[j] == r:
                    return self._lower(self._box(self.answers[j]))
        raise ValueError(f"slickdeque_inv answers only its registered ranges {list(self.ranges)}, not {r!r}")

    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first. 0 ⊗."""
        cdef Py_ssize_t j
        lower = self._lower
        return {self.ranges[j]: lower(self._box(self.answers[j])) for j in range(self.k)}

    def step(self, value: Any) -> dict[int, Any]:
        """``insert(value)`` then ``query_all()``."""
        self.insert(value)
        return self.query_all()

    def snapshot(self) -> SlickDequeInvState:
        cdef Py_ssize_t i, j
        if self.cap == 0:
            return SlickDequeInvState(None, tuple(self._window()), 0, 0, ((None, self._box(self.agg)),), self.n)
        return SlickDequeInvState(
            self.capacity,
            tuple(self._box(self.q.vals[i]) for i in range(self.cap)),
            self.cursor,
            self.inserted_,
            tuple((self.ranges[j], self._box(self.answers[j])) for j in range(self.k)),
            self.n,
        )

    def _memory_bytes(self):
        """Bytes malloc'd for the partials and the running aggregates."""
        return self.q.size * sizeof(Slot) + self.k * (sizeof(Slot) + sizeof(Py_ssize_t))

    def __repr__(self):
        return f"SlickDequeInv({self.monoid.name}, n={self.n})"


def _negate(x):
    return -x


# ================================================================================================================
# window_array fast path


def _window_array(cls, monoid, values, window):
    """Compiled ``window_array``: per item, evict when full, insert, record ``query()``. For a typed kind whose
    ``lower`` is the identity (Non-Inv max/min, Inv sum in plain mode) one C loop over validated slots returning
    an ``array.array`` ('d'/'q'); otherwise a list."""
    cdef Py_ssize_t w = window, n = 0, done
    cdef Slot* inp = NULL
    cdef Slot* outp
    cdef object keep = None
    cdef int kind = 0
    cdef SlickDequeNonInv a
    cdef SlickDequeInv b
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
    if typed and _lower_is_identity(monoid):
        keep = _slots_of(kind, values, &n, &inp)
        try:
            out = new_out_array(kind, n)
            if n > 0:
                outp = <Slot*>(<cpython.array.array>out).data.as_voidptr
                if isinstance(agg, SlickDequeNonInv):
                    while a.q.size < w:
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
        if len(agg) == window:
            agg.evict()
        agg.insert(x)
        res.append(agg.query())
    return res
