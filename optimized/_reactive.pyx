# cython: language_level=3, annotation_typing=False
"""Reactive Aggregator, compiled (paper 002 §5).

Same algorithm, policy, snapshots and ⊕ call sequence as :mod:`swagkit.reference.reactive`: a FlatFAT (one flat
C array, see ``_flatfat_core.pxi``) whose leaves form a circular buffer; compact/double when full, halve below
1/4; wrap-around answered as ``suffix(F) ⊕ prefix(B)`` by full walks; non-FIFO removal by handle; batches
propagate once over the distinct slots written (last write wins).

Handles are insertion sequence numbers; every slot keeps the number of the element last written there (holes
keep theirs), so the numbers increase along the buffer from F and ``remove(handle)`` finds its slot by binary
search (O(log n), no ⊕, no hash map).

Complexity (⊕ calls, capacity C ≤ max(min_capacity, 4n)): query 0 or ≤ 2·log2 C + 1; insert/evict/remove
log2 C plus a rebuild (≤ 2C − 1) when compacting or resizing, O(1) amortized. Typed kinds store 8 bytes per tree
node plus 9 bytes per leaf slot of bookkeeping.

Exception safety: *strong*, like the reference. Every operation runs as a transaction: at its start the arrays
and pointers are remembered (``st_begin``); the first write of each leaf slot of those arrays is journaled (its
old value, handle number and liveness); a rebuild builds new arrays and keeps the old ones; the propagation
keeps the nodes it overwrites (``tree_propagate_g``). A combine that raises (or a MemoryError) rolls everything
back (``st_rollback``); success releases what was kept (``st_commit``). Capacities are checked against
``MAX_CAPACITY`` (``OverflowError``) before any allocation. Re-entrant or concurrent calls raise
``ReentrantCallError`` before any change (a ``busy`` flag; not thread-safe). Copies and pickles go by snapshot.
"""

include "_common.pxi"
include "_flatfat_core.pxi"

from libc.string cimport memset

from swagkit.spec.nonfifo import InvalidHandleError
from swagkit.spec.snapshots import ReactiveState
from swagkit.spec.monoid import as_monoid as _as_monoid
from swagkit.reference._guard import check_count as _check_count, reentered as _reentered, restore as _restore
from swagkit.reference.flatfat import MAX_CAPACITY as _MAX_CAPACITY, check_capacity as _check_capacity
from swagkit.reference.reactive import as_handle as _as_handle, check_reactive_snapshot as _check_snapshot

DEF_MIN_CAPACITY = 2
cdef Py_ssize_t MAXCAP = _MAX_CAPACITY
#: journals longer than this are freed at the end of the operation (a big batch's), shorter ones kept
cdef Py_ssize_t JOURNAL_KEEP = 64

ctypedef struct State:
    Tree t
    int64_t* seq            # per leaf slot: handle of the element last written there
    unsigned char* live     # per leaf slot: 1 when it holds a live element
    Py_ssize_t* dirty       # distinct leaf slots written since the last propagation
    unsigned char* dmark    # per leaf slot: 1 when in ``dirty``
    Py_ssize_t ndirty
    Py_ssize_t F
    Py_ssize_t span
    Py_ssize_t size
    Py_ssize_t minc
    int64_t next_handle
    bint busy               # an operation is running (the re-entry guard)
    # the running operation's transaction (``jon``): the arrays and pointers at its start ...
    bint jon
    Slot* oT
    Py_ssize_t on
    int64_t* oseq
    unsigned char* olive
    Py_ssize_t* odirty
    unsigned char* odmark
    Py_ssize_t oF
    Py_ssize_t ospan
    Py_ssize_t osize
    int64_t onext
    # ... and the journal of the leaf slots of those arrays it wrote: slot, old leaf (a reference on the generic
    # path), old handle number, old liveness
    Py_ssize_t* jslot
    Slot* jleaf
    int64_t* jseq
    unsigned char* jlive
    Py_ssize_t jn
    Py_ssize_t jcap


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.size


cdef int st_arrays(Py_ssize_t cap, Slot** T, int64_t** seq, unsigned char** live, Py_ssize_t** dirty,
                   unsigned char** dmark) noexcept nogil:
    """Fresh arrays for ``cap`` leaves (-1: no memory, or a size that does not fit; nothing allocated)."""
    T[0] = tree_new_array(cap)
    if T[0] == NULL:
        return -1
    seq[0] = <int64_t*>malloc(cap * sizeof(int64_t))
    live[0] = <unsigned char*>malloc(cap)
    dirty[0] = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    dmark[0] = <unsigned char*>malloc(cap)
    if seq[0] == NULL or live[0] == NULL or dirty[0] == NULL or dmark[0] == NULL:
        free(T[0]); free(seq[0]); free(live[0]); free(dirty[0]); free(dmark[0])
        return -1
    memset(seq[0], 0, cap * sizeof(int64_t))
    memset(live[0], 0, cap)
    memset(dmark[0], 0, cap)
    return 0


cdef void st_release_arrays(Slot* T, Py_ssize_t n, int64_t* seq, unsigned char* live, Py_ssize_t* dirty,
                            unsigned char* dmark, int kind) noexcept:
    tree_release(T, n, kind)
    free(seq); free(live); free(dirty); free(dmark)


cdef int st_init_cap(State* s, int kind, Slot one, Py_ssize_t minc) noexcept:
    cdef Slot* T
    s.t.T = NULL
    s.seq = NULL
    s.live = NULL
    s.dirty = NULL
    s.dmark = NULL
    s.jslot = NULL
    s.jleaf = NULL
    s.jseq = NULL
    s.jlive = NULL
    s.jn = 0
    s.jcap = 0
    s.jon = False
    s.oT = NULL
    s.busy = False
    if st_arrays(minc, &T, &s.seq, &s.live, &s.dirty, &s.dmark) < 0:
        return -1
    s.t.T = T
    s.t.n = minc
    s.t.one = one
    s.t.count = 0
    tree_fill_one(T, 0, 2 * minc, one, kind)  # the empty tree of ⊥ (no ⊕ counted: not an operation)
    s.ndirty = 0
    s.F = 0
    s.span = 0
    s.size = 0
    s.minc = minc
    s.next_handle = 0
    if kind == K_GENERIC:
        Py_XINCREF(one.o)  # s.t.one holds a reference
    return 0


cdef int st_init(State* s, int kind, Slot one) noexcept:
    return st_init_cap(s, kind, one, DEF_MIN_CAPACITY)


cdef void st_free_journal(State* s) noexcept:
    free(s.jslot); free(s.jleaf); free(s.jseq); free(s.jlive)
    s.jslot = NULL
    s.jleaf = NULL
    s.jseq = NULL
    s.jlive = NULL
    s.jcap = 0


cdef void st_free(State* s, int kind) noexcept:
    if s.t.T == NULL:
        return
    st_release_arrays(s.t.T, s.t.n, s.seq, s.live, s.dirty, s.dmark, kind)
    s.t.T = NULL
    s.seq = NULL
    s.live = NULL
    s.dirty = NULL
    s.dmark = NULL
    st_free_journal(s)
    if kind == K_GENERIC:
        slot_clear(&s.t.one)


# ------------------------------------------------------------------------------------------------ transactions

cdef int st_reserve(State* s, Py_ssize_t need) noexcept:
    """Room for ``need`` journal entries (capped at the starting capacity: one entry per distinct slot).
    -1: no memory (nothing changed)."""
    cdef void* p
    cdef Py_ssize_t c
    if need > s.on:
        need = s.on
    if need <= s.jcap:
        return 0
    c = s.jcap * 2 if s.jcap * 2 > need else need
    if c > s.on:
        c = s.on
    p = realloc(s.jslot, c * sizeof(Py_ssize_t))
    if p == NULL:
        return -1
    s.jslot = <Py_ssize_t*>p
    p = realloc(s.jleaf, c * sizeof(Slot))
    if p == NULL:
        return -1
    s.jleaf = <Slot*>p
    p = realloc(s.jseq, c * sizeof(int64_t))
    if p == NULL:
        return -1
    s.jseq = <int64_t*>p
    p = realloc(s.jlive, c)
    if p == NULL:
        return -1
    s.jlive = <unsigned char*>p
    s.jcap = c
    return 0


cdef int st_begin(State* s, Py_ssize_t need) noexcept:
    """Start an operation that writes at most ``need`` leaf slots before any rebuild. -1: no memory."""
    s.oT = s.t.T
    s.on = s.t.n
    s.oseq = s.seq
    s.olive = s.live
    s.odirty = s.dirty
    s.odmark = s.dmark
    s.oF = s.F
    s.ospan = s.span
    s.osize = s.size
    s.onext = s.next_handle
    s.jn = 0
    if st_reserve(s, need) < 0:
        return -1
    s.jon = True
    return 0


cdef inline void st_touch(State* s, Py_ssize_t slot, int kind) noexcept:
    """Before the first write of leaf ``slot`` since the last propagation: journal it (when the tree is the one
    the operation started with) and add it to the dirty set."""
    cdef Py_ssize_t j
    if not s.dmark[slot]:
        if s.jon and s.t.T == s.oT:
            j = s.jn
            s.jslot[j] = slot
            s.jleaf[j] = s.t.T[s.t.n + slot]
            if kind == K_GENERIC:
                Py_XINCREF(s.jleaf[j].o)
            s.jseq[j] = s.seq[slot]
            s.jlive[j] = s.live[slot]
            s.jn = j + 1
        s.dmark[slot] = 1
        s.dirty[s.ndirty] = slot
        s.ndirty += 1


cdef void st_end_journal(State* s) noexcept:
    s.jn = 0
    s.jon = False
    s.oT = NULL
    if s.jcap > JOURNAL_KEEP:
        st_free_journal(s)


cdef void st_commit(State* s, int kind) noexcept:
    """The operation succeeded: release the arrays it replaced and the journaled old leaves."""
    cdef Py_ssize_t j
    if s.t.T != s.oT:
        st_release_arrays(s.oT, s.on, s.oseq, s.olive, s.odirty, s.odmark, kind)
    if kind == K_GENERIC:
        for j in range(s.jn):
            Py_XDECREF(s.jleaf[j].o)
    st_end_journal(s)


cdef void st_rollback(State* s, int kind) noexcept:
    """The operation failed: put back the arrays, journaled leaves and pointers it started with (the nodes were
    restored by the propagation that failed, or never touched)."""
    cdef Py_ssize_t j, slot, n
    cdef PyObject* cur
    if s.t.T != s.oT:
        st_release_arrays(s.t.T, s.t.n, s.seq, s.live, s.dirty, s.dmark, kind)
        s.t.T = s.oT
        s.t.n = s.on
        s.seq = s.oseq
        s.live = s.olive
        s.dirty = s.odirty
        s.dmark = s.odmark
    n = s.t.n
    j = s.jn
    while j > 0:
        j -= 1
        slot = s.jslot[j]
        if kind == K_GENERIC:
            cur = s.t.T[n + slot].o
            s.t.T[n + slot] = s.jleaf[j]  # the journal's reference moves back
            Py_XDECREF(cur)
        else:
            s.t.T[n + slot] = s.jleaf[j]
        s.seq[slot] = s.jseq[j]
        s.live[slot] = s.jlive[j]
        s.dmark[slot] = 0
    s.ndirty = 0
    s.F = s.oF
    s.span = s.ospan
    s.size = s.osize
    s.next_handle = s.onext
    st_end_journal(s)


# ------------------------------------------------------------------------------------------------- primitives

cdef int st_relocate(State* s, Py_ssize_t newcap, int kind) noexcept:
    """The data movement of a rebuild: live leaves read circularly from F go to slots 0…k−1 of fresh arrays of
    ``newcap`` leaves (new references on the generic path), everything else is ⊥; the dirty set is dropped (the
    whole tree is rebuilt next). The old arrays are released, unless they are the ones the running operation
    started with (kept for a roll-back). -1: no memory (nothing changed)."""
    cdef Slot* T
    cdef int64_t* seq
    cdef unsigned char* live
    cdef Py_ssize_t* dirty
    cdef unsigned char* dmark
    cdef Py_ssize_t cap = s.t.n, j, slot, k = 0
    if st_arrays(newcap, &T, &seq, &live, &dirty, &dmark) < 0:
        return -1
    for j in range(s.span):
        slot = (s.F + j) % cap
        if s.live[slot]:
            T[newcap + k] = s.t.T[cap + slot]
            if kind == K_GENERIC:
                Py_XINCREF(T[newcap + k].o)
            seq[k] = s.seq[slot]
            live[k] = 1
            k += 1
    tree_fill_one(T, 0, newcap, s.t.one, kind)
    tree_fill_one(T, newcap + k, 2 * newcap, s.t.one, kind)
    if not (s.jon and s.t.T == s.oT):
        st_release_arrays(s.t.T, cap, s.seq, s.live, s.dirty, s.dmark, kind)
    s.t.T = T
    s.t.n = newcap
    s.seq = seq
    s.live = live
    s.dirty = dirty
    s.dmark = dmark
    s.ndirty = 0
    s.F = 0
    s.span = k
    return 0


cdef inline Py_ssize_t st_room_cap(State* s) noexcept nogil:
    """The capacity of the rebuild that makes room in a full buffer (compact, or double when > 3/4 live);
    -1 when doubling would exceed MAXCAP."""
    cdef Py_ssize_t cap = s.t.n
    if 4 * s.size > 3 * cap:
        if cap > MAXCAP // 2:
            return -1
        return 2 * cap
    return cap


cdef inline void st_put_done(State* s, Py_ssize_t slot) noexcept nogil:
    s.seq[slot] = s.next_handle
    s.next_handle += 1
    s.live[slot] = 1
    s.span += 1
    s.size += 1


cdef inline void st_take(State* s, Py_ssize_t slot, int kind) noexcept:
    """Remove the live element of ``slot`` (leaf ← ⊥) and move the buffer's ends past holes. No ⊕."""
    cdef Py_ssize_t cap = s.t.n
    st_touch(s, slot, kind)
    s.live[slot] = 0
    if kind != K_GENERIC:
        s.t.T[cap + slot] = s.t.one
    else:
        slot_set(&s.t.T[cap + slot], slot_get(s.t.one))
    s.size -= 1
    if s.size == 0:
        s.F = 0
        s.span = 0
        return
    while not s.live[s.F]:
        s.F = (s.F + 1) % cap
        s.span -= 1
    while not s.live[(s.F + s.span - 1) % cap]:
        s.span -= 1


cdef inline Py_ssize_t st_target(State* s) noexcept nogil:
    cdef Py_ssize_t target = s.t.n
    while target > s.minc and 4 * s.size < target:
        target //= 2
    return target


cdef inline bint st_halves_at(State* s, Py_ssize_t size) noexcept nogil:
    """Whether the end step of an operation leaving ``size`` live elements halves the capacity."""
    return s.t.n > s.minc and 4 * size < s.t.n


cdef inline void st_clear_marks(State* s) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(s.ndirty):
        s.dmark[s.dirty[k]] = 0


# ---------------------------------------------------------------------------------------------------- typed
# (a typed ⊕ cannot raise: the only failures are MemoryError/OverflowError, reported by return codes before the
# step changes anything; the methods then roll the operation back)

cdef inline Py_ssize_t st_room_t(State* s, int kind) noexcept:
    """Make room (compact or double when full); return the slot for the next element (-1: no memory, -2: the
    capacity would exceed MAXCAP; nothing changed by this step)."""
    cdef Py_ssize_t newcap
    if s.span == s.t.n:
        newcap = st_room_cap(s)
        if newcap < 0:
            return -2
        if st_relocate(s, newcap, kind) < 0:
            return -1
        tree_build_t(&s.t, kind)
    return (s.F + s.span) % s.t.n


cdef inline void st_put_t(State* s, Py_ssize_t slot, Slot v, int kind) noexcept:
    st_touch(s, slot, kind)
    s.t.T[s.t.n + slot] = v
    st_put_done(s, slot)


cdef inline int st_finish_t(State* s, int kind) noexcept:
    """End of an operation: halve (one rebuild) or propagate the dirty slots. -1: no memory."""
    cdef Py_ssize_t target = st_target(s)
    if target != s.t.n:
        if st_relocate(s, target, kind) < 0:
            return -1
        tree_build_t(&s.t, kind)
    elif s.ndirty:
        st_clear_marks(s)
        tree_propagate_t(&s.t, s.dirty, s.ndirty, kind)
    s.ndirty = 0
    return 0


cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept:
    """Insert without a transaction (``_window_typed``'s private state). -1: no memory."""
    cdef Py_ssize_t slot = st_room_t(s, kind)
    if slot < 0:
        return -1
    st_put_t(s, slot, v, kind)
    return st_finish_t(s, kind)


cdef inline int st_evict_t(State* s, int kind) noexcept:
    st_take(s, s.F, kind)
    return st_finish_t(s, kind)


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    cdef Slot a, b
    cdef Py_ssize_t cap = s.t.n
    if s.F + s.span <= cap:
        return s.t.T[1]
    a = tree_suffix_t(&s.t, s.F, kind)
    b = tree_prefix_t(&s.t, (s.F + s.span - 1) % cap, kind)
    s.t.count += 1
    return tcomb(kind, a, b)


# -------------------------------------------------------------------------------------------------- generic

cdef int st_finish_g(State* s, object comb) except -1:
    cdef Py_ssize_t target = st_target(s)
    if target != s.t.n:
        if st_relocate(s, target, K_GENERIC) < 0:
            raise MemoryError()
        tree_build_g(&s.t, comb)
    elif s.ndirty:
        st_clear_marks(s)
        tree_propagate_g(&s.t, s.dirty, s.ndirty, comb)
    s.ndirty = 0
    return 0


cdef int st_put_g(State* s, object v, object comb) except -1:
    """Append ``v`` after the buffer (compacting or doubling first when it is full)."""
    cdef Py_ssize_t slot, newcap
    if s.span == s.t.n:
        newcap = st_room_cap(s)
        if newcap < 0:
            raise OverflowError(f"reactive: cannot grow beyond {MAXCAP} leaves")
        if st_relocate(s, newcap, K_GENERIC) < 0:
            raise MemoryError()
        tree_build_g(&s.t, comb)
    slot = (s.F + s.span) % s.t.n
    st_touch(s, slot, K_GENERIC)
    slot_set(&s.t.T[s.t.n + slot], v)
    st_put_done(s, slot)
    return 0


cdef object st_query_g(State* s, object comb):
    cdef Py_ssize_t cap = s.t.n
    if s.F + s.span <= cap:
        return slot_get(s.t.T[1])
    a = tree_suffix_g(&s.t, s.F, comb)
    b = tree_prefix_g(&s.t, (s.F + s.span - 1) % cap, comb)
    s.t.count += 1
    return comb(a, b)


cdef Py_ssize_t st_find(State* s, object handle) except -2:
    """Slot of the live element ``handle``, or -1 (binary search: handles increase along the buffer)."""
    cdef Py_ssize_t lo = 0, hi = s.span, mid, slot, cap = s.t.n
    cdef int64_t h
    if type(handle) is not int:
        handle = _as_handle(handle)
        if handle is None:
            return -1
    if not 0 <= handle < s.next_handle:
        return -1
    h = handle
    while lo < hi:
        mid = (lo + hi) // 2
        if s.seq[(s.F + mid) % cap] < h:
            lo = mid + 1
        else:
            hi = mid
    if lo < s.span:
        slot = (s.F + lo) % cap
        if s.seq[slot] == h and s.live[slot]:
            return slot
    return -1


cdef inline const Slot* _buffer_address(object buf, int kind):
    cdef const double[::1] dv
    cdef const int64_t[::1] iv
    if kind <= K_MIN_F:
        dv = buf
        return <const Slot*>&dv[0] if dv.shape[0] > 0 else NULL
    iv = buf
    return <const Slot*>&iv[0] if iv.shape[0] > 0 else NULL


cdef object _window_typed(int kind, Slot one, object values, Py_ssize_t window):
    """``window_array`` for a typed kind with the identity ``lower``: one C loop, an ``array.array``."""
    cdef State st
    cdef Py_ssize_t n_ok = 0, n, i
    cdef Slot v
    cdef cpython.array.array out
    cdef Slot* outp
    cdef const Slot* inp
    memset(&st, 0, sizeof(State))
    if st_init(&st, kind, one) < 0:
        raise MemoryError()
    try:
        buf = typed_input(kind, values, &n_ok)
        if buf is not None:
            n = len(buf)
            if n_ok < n:
                to_slot(kind, values[n_ok], &v)  # raises
                raise AssertionError("unreachable: invalid item accepted")  # pragma: no cover
            out = new_out_array(kind, n)
            if n > 0:
                outp = <Slot*>out.data.as_voidptr
                inp = _buffer_address(buf, kind)
                for i in range(n):
                    if st.size == window:
                        if st_evict_t(&st, kind) < 0:
                            raise MemoryError()
                    if st_insert_t(&st, inp[i], kind) < 0:
                        raise MemoryError()
                    outp[i] = st_query_t(&st, kind)
            return out
        out = new_out_array(kind, 0)
        i = 0
        for x in values:
            to_slot(kind, x, &v)
            if st.size == window:
                if st_evict_t(&st, kind) < 0:
                    raise MemoryError()
            if st_insert_t(&st, v, kind) < 0:
                raise MemoryError()
            v = st_query_t(&st, kind)
            cpython.array.resize_smart(out, i + 1)
            (<Slot*>out.data.as_voidptr)[i] = v
            i += 1
        return out
    finally:
        st_free(&st, kind)


def _window_array(cls, monoid, values, window):
    """Fast path of :func:`swagkit.optimized.window_array` for :class:`ReactiveAggregator`: typed kinds with the
    identity ``lower`` run as one C loop (``array.array`` 'd'/'q'); otherwise the class's methods (a list)."""
    cdef Slot one
    cdef Py_ssize_t w = window
    cdef int kind = choose_kind(monoid, &one)
    if w < 1:
        raise ValueError("window must be at least 1")
    if kind != K_GENERIC and _lower_is_identity(monoid):
        return _window_typed(kind, one, values, w)
    agg = cls(monoid)
    out = []
    for v in values:
        if len(agg) == w:
            agg.evict()
        agg.insert(v)
        out.append(agg.query())
    return out


cdef class ReactiveAggregator:
    """ReactiveAggregator(monoid, min_capacity=2)
--

Reactive Aggregator SWAG (id ``reactive``; paper 002 §5), compiled: O(log n) ⊕ per event, non-FIFO
    removal by handle. API, snapshots, ``combine_count``, exception safety (strong: every operation, batches
    included, is all or nothing) and the re-entry guard are those of
    :class:`swagkit.reference.ReactiveAggregator`; copies and pickles go by snapshot.
    """

    cdef State st
    cdef int kind
    cdef bint lower_id
    cdef readonly object monoid
    cdef readonly Py_ssize_t min_capacity
    cdef object _combine
    cdef object _lift
    cdef object _lower

    algorithm = "reactive"
    exception_safety = "strong"

    def __cinit__(self, monoid, min_capacity=DEF_MIN_CAPACITY):
        cdef Slot one
        self.st.t.T = NULL
        monoid = _as_monoid(monoid, "reactive")
        min_capacity = _check_capacity(min_capacity, "min_capacity", "reactive")
        self.kind = choose_kind(monoid, &one)
        self.monoid = monoid
        self.min_capacity = min_capacity
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._lower = monoid.lower
        self.lower_id = _lower_is_identity(monoid)
        identity = monoid.identity
        if self.kind == K_GENERIC:
            one.o = <PyObject*>identity
        if st_init_cap(&self.st, self.kind, one, min_capacity) < 0:
            raise MemoryError()

    def __dealloc__(self):
        st_free(&self.st, self.kind)

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.st.busy:
            raise _reentered("reactive", operation)
        self.st.busy = True
        return 0

    cdef int _begin(self, Py_ssize_t need) except -1:
        if st_begin(&self.st, need) < 0:
            raise MemoryError()
        return 0

    cdef int _fail_t(self, Py_ssize_t code) except -1:
        """Roll back a typed operation that found no memory (-1) or would exceed MAXCAP (-2), and raise."""
        st_rollback(&self.st, self.kind)
        if code == -2:
            raise OverflowError(f"reactive: cannot grow beyond {MAXCAP} leaves")
        raise MemoryError()

    cdef object _out(self, Slot r):
        if self.lower_id:
            return box(self.kind, r)
        return self._lower(box(self.kind, r))

    # the operations' bodies: the caller holds the guard; each is one transaction

    cdef object _insert1(self, object value):
        cdef Slot v
        cdef int64_t h = self.st.next_handle
        cdef Py_ssize_t slot
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            # making room fails (no memory) before changing anything; then, unless the end step would halve
            # (only after a restore from a sparse snapshot), nothing can fail: no transaction needed
            slot = st_room_t(&self.st, self.kind)
            if slot < 0:
                if slot == -2:
                    raise OverflowError(f"reactive: cannot grow beyond {MAXCAP} leaves")
                raise MemoryError()
            if SWAG_LIKELY(not st_halves_at(&self.st, self.st.size + 1)):
                st_put_t(&self.st, slot, v, self.kind)
                st_finish_t(&self.st, self.kind)  # a propagation: cannot fail
                return h
            self._begin(1)
            st_put_t(&self.st, slot, v, self.kind)
            if st_finish_t(&self.st, self.kind) < 0:
                self._fail_t(-1)
            st_commit(&self.st, self.kind)
            return h
        x = self._lift(value)
        self._begin(1)
        try:
            st_put_g(&self.st, x, self._combine)
            st_finish_g(&self.st, self._combine)
        except BaseException:
            st_rollback(&self.st, K_GENERIC)
            raise
        st_commit(&self.st, K_GENERIC)
        return h

    cdef int _take1(self, Py_ssize_t slot) except -1:
        if self.kind != K_GENERIC:
            if SWAG_LIKELY(not st_halves_at(&self.st, self.st.size - 1)):
                st_take(&self.st, slot, self.kind)
                st_finish_t(&self.st, self.kind)  # a propagation: cannot fail
                return 0
            self._begin(1)  # a halving allocates after the removal: a transaction
            st_take(&self.st, slot, self.kind)
            if st_finish_t(&self.st, self.kind) < 0:
                self._fail_t(-1)
            st_commit(&self.st, self.kind)
            return 0
        self._begin(1)
        try:
            st_take(&self.st, slot, K_GENERIC)
            st_finish_g(&self.st, self._combine)
        except BaseException:
            st_rollback(&self.st, K_GENERIC)
            raise
        st_commit(&self.st, K_GENERIC)
        return 0

    cdef int _put(self, object value) except -1:
        """One insert inside a transaction (generic: lifted; typed: validated by the caller)."""
        cdef Slot v
        cdef Py_ssize_t slot
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            slot = st_room_t(&self.st, self.kind)
            if slot == -2:
                raise OverflowError(f"reactive: cannot grow beyond {MAXCAP} leaves")
            if slot < 0:
                raise MemoryError()
            st_put_t(&self.st, slot, v, self.kind)
        else:
            st_put_g(&self.st, value, self._combine)
        return 0

    cdef int _finish(self) except -1:
        if self.kind != K_GENERIC:
            if st_finish_t(&self.st, self.kind) < 0:
                raise MemoryError()
        else:
            st_finish_g(&self.st, self._combine)
        return 0

    @property
    def combine_count(self):
        """Number of ⊕ invocations so far (identity operands included)."""
        return self.st.t.count

    @combine_count.setter
    def combine_count(self, value):
        self.st.t.count = value

    @property
    def capacity(self):
        """Current number of leaves (a power of two ``≥ min_capacity``)."""
        return self.st.t.n

    def query(self) -> Any:
        """The window's aggregate in arrival order, lowered: the root when the buffer does not wrap (0 ⊕),
        ``suffix(F) ⊕ prefix(B)`` when it does (≤ 2·log2 capacity + 1 ⊕)."""
        self._enter("query")
        try:
            if self.kind != K_GENERIC:
                return self._out(st_query_t(&self.st, self.kind))
            return self._lower(st_query_g(&self.st, self._combine))
        finally:
            self.st.busy = False

    def insert(self, value: Any) -> None:
        """Append ``value`` (lifted first: a bad value changes nothing). log2 C ⊕, plus a rebuild when full."""
        self._enter("insert")
        try:
            self._insert1(value)
        finally:
            self.st.busy = False

    def insert_with_handle(self, value: Any) -> Handle:
        """:meth:`insert`, returning the new element's handle (its insertion sequence number)."""
        self._enter("insert_with_handle")
        try:
            return self._insert1(value)
        finally:
            self.st.busy = False

    def evict(self) -> None:
        """Remove the oldest live element (:class:`EmptyWindowError` when empty). log2 C ⊕, or a halving."""
        self._enter("evict")
        try:
            if self.st.size == 0:
                raise EmptyWindowError("reactive: evict() on an empty window")
            self._take1(self.st.F)
        finally:
            self.st.busy = False

    def remove(self, handle: Handle) -> None:
        """Remove the live element ``handle`` (non-FIFO eviction; :class:`InvalidHandleError` when it is not
        live, changing nothing). log2 C ⊕, or a halving."""
        cdef Py_ssize_t slot
        self._enter("remove")
        try:
            slot = st_find(&self.st, handle)
            if slot < 0:
                raise InvalidHandleError(f"reactive: remove({handle!r}): no live element has this handle")
            self._take1(slot)
        finally:
            self.st.busy = False

    def __len__(self) -> int:
        return self.st.size

    def insert_many(self, values: Iterable[Any]) -> None:
        """Insert ``values`` in order as one batch (all lifted first: a bad value inserts nothing); one
        propagation over the distinct slots written. All or nothing."""
        self._enter("insert_many")
        try:
            self._insert_many(values)
        finally:
            self.st.busy = False

    def insert_many_with_handles(self, values: Iterable[Any]) -> list[Handle]:
        """:meth:`insert_many`, returning the new handles in order."""
        self._enter("insert_many_with_handles")
        try:
            return self._insert_many(values)
        finally:
            self.st.busy = False

    cdef object _insert_many(self, object values):
        cdef Slot v
        cdef int64_t first
        if self.kind != K_GENERIC:
            vs = list(values)
            for x in vs:
                to_slot(self.kind, x, &v)
        else:
            lift = self._lift
            vs = [lift(x) for x in values]
        first = self.st.next_handle
        self._begin(len(vs))
        try:
            for x in vs:
                self._put(x)
            self._finish()
        except BaseException:
            st_rollback(&self.st, self.kind)
            raise
        st_commit(&self.st, self.kind)
        return list(range(first, first + len(vs)))

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest live elements as one batch (all or nothing). Raises
        :class:`EmptyWindowError` (evicting nothing) when fewer than ``count`` are held, ``ValueError`` /
        ``TypeError`` for a negative or non-integer count."""
        cdef Py_ssize_t i, k
        self._enter("evict_many")
        try:
            k = _check_count(count)
            if k > self.st.size:
                raise EmptyWindowError(f"reactive: evict_many({k}) on a window of {self.st.size}")
            self._begin(k)
            try:
                for i in range(k):
                    st_take(&self.st, self.st.F, self.kind)
                self._finish()
            except BaseException:
                st_rollback(&self.st, self.kind)
                raise
            st_commit(&self.st, self.kind)
        finally:
            self.st.busy = False

    def remove_many(self, handles: Iterable[Handle]) -> None:
        """Remove the live elements ``handles`` as one batch (all or nothing). Every handle must be live and
        given once, else :class:`InvalidHandleError` and nothing changes."""
        cdef Py_ssize_t slot
        self._enter("remove_many")
        try:
            slots = []
            seen = set()
            for h in handles:
                slot = st_find(&self.st, h)
                if slot < 0 or slot in seen:
                    raise InvalidHandleError(f"reactive: remove_many: handle {h!r} is not live (or given twice)")
                seen.add(slot)
                slots.append(slot)
            self._begin(len(slots))
            try:
                for slot in slots:
                    st_take(&self.st, slot, self.kind)
                self._finish()
            except BaseException:
                st_rollback(&self.st, self.kind)
                raise
            st_commit(&self.st, self.kind)
        finally:
            self.st.busy = False

    def batch(self, events: Iterable[tuple[Any, ...]]) -> list[Handle | None]:
        """Apply ``events`` in order as one batch and propagate once (002 §2.3: insert/evict events, then the
        trigger). Events: ``("insert", value)``, ``("evict",)``, ``("remove", handle)``. Returns, per event,
        the new handle of an insert and ``None`` otherwise. Slots written twice keep the last write.

        A bad event (unknown kind, bad value, evict on empty, dead handle) raises after the events before it
        were applied (and propagated), like a prefix of the batch. A ``combine`` that raises undoes the whole
        batch (strong)."""
        self._enter("batch")
        try:
            return self._batch(events)
        finally:
            self.st.busy = False

    cdef object _batch(self, object events):
        cdef Slot v
        cdef Py_ssize_t slot, done = 0
        cdef bint applying = False
        out = []
        self._begin(1)
        try:
            for ev in events:
                if st_reserve(&self.st, done + 1) < 0:
                    raise MemoryError()
                kind = ev[0] if isinstance(ev, tuple) and ev else None
                if kind == "insert" and len(ev) == 2:
                    if self.kind != K_GENERIC:
                        to_slot(self.kind, ev[1], &v)
                        x = ev[1]
                    else:
                        x = self._lift(ev[1])
                    h = self.st.next_handle
                    applying = True
                    self._put(x)
                    out.append(h)
                elif kind == "evict" and len(ev) == 1:
                    if self.st.size == 0:
                        raise EmptyWindowError("reactive: batch: evict on an empty window")
                    applying = True
                    st_take(&self.st, self.st.F, self.kind)
                    out.append(None)
                elif kind == "remove" and len(ev) == 2:
                    slot = st_find(&self.st, ev[1])
                    if slot < 0:
                        raise InvalidHandleError(f"reactive: batch: remove({ev[1]!r}): no live element has this handle")
                    applying = True
                    st_take(&self.st, slot, self.kind)
                    out.append(None)
                else:
                    raise ValueError(f"reactive: batch: bad event {ev!r}")
                applying = False
                done += 1
        except BaseException:
            if applying:  # an event failed half-applied (a combine of a rebuild raised): undo the batch
                st_rollback(&self.st, self.kind)
                raise
            self._end()  # a bad event: the events before it stay applied, propagated
            raise
        self._end()
        return out

    cdef int _end(self) except -1:
        """The end of a batch: its propagation (or resize), then commit; all undone if that raises."""
        try:
            self._finish()
        except BaseException:
            st_rollback(&self.st, self.kind)
            raise
        st_commit(&self.st, self.kind)
        return 0

    def handles(self) -> list[Handle]:
        """Handles of the live elements, oldest first."""
        cdef Py_ssize_t k, slot
        self._enter("handles")
        try:
            out = []
            for k in range(self.st.span):
                slot = (self.st.F + k) % self.st.t.n
                if self.st.live[slot]:
                    out.append(self.st.seq[slot])
            return out
        finally:
            self.st.busy = False

    def snapshot(self) -> ReactiveState:
        cdef Py_ssize_t i, cap = self.st.t.n
        self._enter("snapshot")
        try:
            return ReactiveState(
                capacity=cap,
                nodes=tuple([tree_val(self.kind, self.st.t.T[i]) for i in range(2 * cap)]),
                handles=tuple([self.st.seq[i] if self.st.live[i] else None for i in range(cap)]),
                F=self.st.F,
                span=self.st.span,
                size=self.st.size,
                min_capacity=self.st.minc,
            )
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, next_handle=None):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` and whose next handle is ``next_handle``
        (default: one past the youngest live handle). Copying and pickling; no ⊕ call. The shape is validated
        (``ValueError``/``TypeError``), typed values like ``insert``."""
        cdef ReactiveAggregator agg
        cdef State* s
        cdef Slot* T
        cdef int64_t* seq
        cdef unsigned char* live
        cdef Py_ssize_t* dirty
        cdef unsigned char* dmark
        cdef Py_ssize_t cap, minc, i, slot, k
        cdef int64_t last = 0
        cap, minc, handles = _check_snapshot(snapshot, "reactive")
        live_hs = [h for h in handles if h is not None]
        nxt = max(live_hs) + 1 if live_hs else 0
        if next_handle is not None:
            nh = _as_handle(next_handle)
            if nh is None or nh < nxt:
                raise ValueError(f"reactive: next_handle {next_handle!r} must be an int beyond every live handle")
            nxt = nh
        if nxt >= 2 ** 63:
            raise OverflowError("reactive: handles must fit in int64")
        nodes = list(snapshot.nodes)
        agg = cls(monoid, minc)
        s = &agg.st
        if st_arrays(cap, &T, &seq, &live, &dirty, &dmark) < 0:
            raise MemoryError()
        if agg.kind != K_GENERIC:
            try:
                for i in range(2 * cap):
                    to_slot(agg.kind, nodes[i], &T[i])
            except BaseException:
                st_release_arrays(T, cap, seq, live, dirty, dmark, agg.kind)
                raise
        else:
            for i in range(2 * cap):
                slot_put(&T[i], nodes[i])
        for k in range(snapshot.span):  # holes keep the handle before them: numbers increase along the buffer
            slot = (snapshot.F + k) % cap
            if handles[slot] is not None:
                last = handles[slot]
                live[slot] = 1
            seq[slot] = last
        st_release_arrays(s.t.T, s.t.n, s.seq, s.live, s.dirty, s.dmark, agg.kind)
        s.t.T = T
        s.t.n = cap
        s.seq = seq
        s.live = live
        s.dirty = dirty
        s.dmark = dmark
        s.F = snapshot.F
        s.span = snapshot.span
        s.size = snapshot.size
        s.next_handle = nxt
        return agg

    def _saved(self):
        return (type(self), self.monoid, {"next_handle": self.st.next_handle}, self.snapshot(), self.st.t.count)

    def __reduce__(self):
        return (_restore, self._saved())

    def __copy__(self):
        return _restore(*self._saved())

    def _memory_bytes(self) -> int:
        """Bytes malloc'd: the node array, the per-slot bookkeeping and the operations' journal."""
        cdef Py_ssize_t cap = self.st.t.n
        return (2 * cap * sizeof(Slot) + cap * (sizeof(int64_t) + 2 + sizeof(Py_ssize_t))
                + self.st.jcap * (sizeof(Py_ssize_t) + sizeof(Slot) + sizeof(int64_t) + 1))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
