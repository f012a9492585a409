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
"""

include "_common.pxi"
include "_flatfat_core.pxi"

from libc.string cimport memset

from swagkit.spec.errors import SwagkitError
from swagkit.spec.nonfifo import InvalidHandleError
from swagkit.spec.snapshots import ReactiveState

DEF_MIN_CAPACITY = 2

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
    bint broken


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.size


cdef int st_arrays(State* s, Py_ssize_t cap, Slot** T, int64_t** seq, unsigned char** live, Py_ssize_t** dirty,
                   unsigned char** dmark) noexcept nogil:
    T[0] = tree_new_array(cap)
    seq[0] = <int64_t*>malloc(cap * sizeof(int64_t))
    live[0] = <unsigned char*>malloc(cap)
    dirty[0] = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    dmark[0] = <unsigned char*>malloc(cap)
    if T[0] == NULL or seq[0] == NULL or live[0] == NULL or dirty[0] == NULL or dmark[0] == NULL:
        free(T[0]); free(seq[0]); free(live[0]); free(dirty[0]); free(dmark[0])
        return -1
    memset(seq[0], 0, cap * sizeof(int64_t))
    memset(live[0], 0, cap)
    memset(dmark[0], 0, cap)
    return 0


cdef void st_free_arrays(State* s) noexcept nogil:
    free(s.seq); free(s.live); free(s.dirty); free(s.dmark)
    s.seq = NULL
    s.live = NULL
    s.dirty = NULL
    s.dmark = NULL


cdef int st_init_cap(State* s, int kind, Slot one, Py_ssize_t minc) noexcept:
    cdef Slot* T
    s.t.T = NULL
    s.seq = NULL
    s.live = NULL
    s.dirty = NULL
    s.dmark = NULL
    if st_arrays(s, minc, &T, &s.seq, &s.live, &s.dirty, &s.dmark) < 0:
        return -1
    s.t.T = T
    s.t.n = minc
    s.t.one = one
    s.t.count = 0
    s.t.broken = False
    tree_fill_one(T, 0, 2 * minc, one, kind)  # the empty tree of ⊥ (no ⊕ counted: not an operation)
    s.ndirty = 0
    s.F = 0
    s.span = 0
    s.size = 0
    s.minc = minc
    s.next_handle = 0
    s.broken = False
    if kind == K_GENERIC:
        Py_XINCREF(one.o)  # s.t.one holds a reference
    return 0


cdef int st_init(State* s, int kind, Slot one) noexcept:
    return st_init_cap(s, kind, one, DEF_MIN_CAPACITY)


cdef void st_free(State* s, int kind) noexcept:
    if s.t.T == NULL:
        return
    tree_release(s.t.T, s.t.n, kind)
    s.t.T = NULL
    st_free_arrays(s)
    if kind == K_GENERIC:
        slot_clear(&s.t.one)


cdef inline void st_mark(State* s, Py_ssize_t slot) noexcept nogil:
    if not s.dmark[slot]:
        s.dmark[slot] = 1
        s.dirty[s.ndirty] = slot
        s.ndirty += 1


cdef int st_relocate(State* s, Py_ssize_t newcap, int kind) noexcept:
    """The data movement of a rebuild: live leaves read circularly from F go to slots 0…k−1 of fresh arrays of
    ``newcap`` leaves, everything else is ⊥; the dirty set is dropped (the whole tree is rebuilt next).
    -1: no memory (nothing changed)."""
    cdef Slot* T
    cdef int64_t* seq
    cdef unsigned char* live
    cdef Py_ssize_t* dirty
    cdef unsigned char* dmark
    cdef Py_ssize_t cap = s.t.n, j, slot, k = 0, i
    if st_arrays(s, newcap, &T, &seq, &live, &dirty, &dmark) < 0:
        return -1
    for j in range(s.span):
        slot = (s.F + j) % cap
        if s.live[slot]:
            T[newcap + k] = s.t.T[cap + slot]  # moves the reference (generic)
            seq[k] = s.seq[slot]
            live[k] = 1
            k += 1
        elif kind == K_GENERIC:
            Py_XDECREF(s.t.T[cap + slot].o)
    if kind == K_GENERIC:
        for i in range(cap):
            Py_XDECREF(s.t.T[i].o)
        for j in range(s.span, cap):  # slots outside the buffer
            Py_XDECREF(s.t.T[cap + (s.F + j) % cap].o)
    tree_fill_one(T, 0, newcap, s.t.one, kind)
    tree_fill_one(T, newcap + k, 2 * newcap, s.t.one, kind)
    free(s.t.T)
    st_free_arrays(s)
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


cdef inline Py_ssize_t st_put_slot(State* s, int kind) noexcept:
    """Make room (compact or double when full); return the slot for the next element (-1: no memory)."""
    cdef Py_ssize_t cap = s.t.n
    if s.span == cap:
        if st_relocate(s, 2 * cap if 4 * s.size > 3 * cap else cap, kind) < 0:
            return -1
        if kind != K_GENERIC:
            tree_build_t(&s.t, kind)
        cap = s.t.n
    return (s.F + s.span) % cap


cdef inline void st_put_done(State* s, Py_ssize_t slot) noexcept nogil:
    s.seq[slot] = s.next_handle
    s.next_handle += 1
    s.live[slot] = 1
    s.span += 1
    s.size += 1
    st_mark(s, slot)


cdef inline void st_take(State* s, Py_ssize_t slot, int kind) noexcept:
    """Remove the live element of ``slot`` (leaf ← ⊥) and move the buffer's ends past holes. No ⊕."""
    cdef Py_ssize_t cap = s.t.n
    s.live[slot] = 0
    if kind != K_GENERIC:
        s.t.T[cap + slot] = s.t.one
    else:
        slot_set(&s.t.T[cap + slot], slot_get(s.t.one))
    s.size -= 1
    st_mark(s, slot)
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


cdef inline void st_clear_marks(State* s) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(s.ndirty):
        s.dmark[s.dirty[k]] = 0


# ---------------------------------------------------------------------------------------------------- typed

cdef inline int st_finish_t(State* s, int kind) noexcept:
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
    cdef Py_ssize_t slot = st_put_slot(s, kind)
    if slot < 0:
        return -1
    s.t.T[s.t.n + slot] = v
    st_put_done(s, slot)
    return st_finish_t(s, kind)


cdef inline void st_evict_t(State* s, int kind) noexcept:
    st_take(s, s.F, kind)
    st_finish_t(s, kind)  # a halving that finds no memory keeps the larger capacity (propagates instead)


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
    cdef Py_ssize_t cap = s.t.n
    cdef Py_ssize_t slot
    if s.span == cap:
        if st_relocate(s, 2 * cap if 4 * s.size > 3 * cap else cap, K_GENERIC) < 0:
            raise MemoryError()
        tree_build_g(&s.t, comb)
    slot = (s.F + s.span) % s.t.n
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


cdef Py_ssize_t st_find(State* s, object handle):
    """Slot of the live element ``handle``, or -1 (binary search: handles increase along the buffer)."""
    cdef Py_ssize_t lo = 0, hi = s.span, mid, slot, cap = s.t.n
    cdef int64_t h
    if type(handle) is not int or not 0 <= handle < s.next_handle:
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
                        st_evict_t(&st, kind)
                    if st_insert_t(&st, inp[i], kind) < 0:
                        raise MemoryError()
                    outp[i] = st_query_t(&st, kind)
            return out
        out = new_out_array(kind, 0)
        i = 0
        for x in values:
            to_slot(kind, x, &v)
            if st.size == window:
                st_evict_t(&st, kind)
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
    removal by handle. API, snapshots and ``combine_count`` are those of
    :class:`swagkit.reference.ReactiveAggregator`.
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

    def __cinit__(self, monoid, min_capacity=DEF_MIN_CAPACITY):
        cdef Slot one
        self.st.t.T = NULL
        if type(min_capacity) is not int or min_capacity < 1 or min_capacity & (min_capacity - 1):
            raise ValueError(f"reactive: min_capacity must be a power of two ≥ 1, got {min_capacity!r}")
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

    cdef int _usable(self) except -1:
        if self.st.broken or self.st.t.broken:
            raise SwagkitError(
                "reactive: a combine call raised during an earlier update; the aggregator is inconsistent and can "
                "no longer be updated"
            )
        return 0

    cdef object _out(self, Slot r):
        if self.lower_id:
            return box(self.kind, r)
        return self._lower(box(self.kind, r))

    # single events (the typed path cannot raise once the value is validated, except MemoryError)

    cdef object _insert1(self, object value):
        cdef Slot v
        cdef int64_t h
        self._usable()
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            h = self.st.next_handle
            if st_insert_t(&self.st, v, self.kind) < 0:
                raise MemoryError()
            return h
        x = self._lift(value)
        h = self.st.next_handle
        self.st.broken = True
        st_put_g(&self.st, x, self._combine)
        st_finish_g(&self.st, self._combine)
        self.st.broken = False
        return h

    cdef int _take1(self, Py_ssize_t slot) except -1:
        self._usable()
        if self.kind != K_GENERIC:
            st_take(&self.st, slot, self.kind)
            if st_finish_t(&self.st, self.kind) < 0:
                raise MemoryError()
            return 0
        self.st.broken = True
        st_take(&self.st, slot, K_GENERIC)
        st_finish_g(&self.st, self._combine)
        self.st.broken = False
        return 0

    cdef int _put(self, object value) except -1:
        """One insert inside a batch (value already lifted/validated by the caller for generic; raw for typed)."""
        cdef Slot v
        cdef Py_ssize_t slot
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            slot = st_put_slot(&self.st, self.kind)
            if slot < 0:
                raise MemoryError()
            self.st.t.T[self.st.t.n + slot] = v
            st_put_done(&self.st, slot)
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
        if self.kind != K_GENERIC:
            return self._out(st_query_t(&self.st, self.kind))
        return self._lower(st_query_g(&self.st, self._combine))

    def insert(self, value: Any) -> None:
        """Append ``value`` (lifted first: a bad value changes nothing). log2 C ⊕, plus a rebuild when full."""
        self._insert1(value)

    def insert_with_handle(self, value: Any) -> Handle:
        """:meth:`insert`, returning the new element's handle (its insertion sequence number)."""
        return self._insert1(value)

    def evict(self) -> None:
        """Remove the oldest live element (:class:`EmptyWindowError` when empty). log2 C ⊕, or a halving."""
        if self.st.size == 0:
            raise EmptyWindowError("reactive: evict() on an empty window")
        self._take1(self.st.F)

    def remove(self, handle: Handle) -> None:
        """Remove the live element ``handle`` (non-FIFO eviction; :class:`InvalidHandleError` when it is not
        live, changing nothing). log2 C ⊕, or a halving."""
        cdef Py_ssize_t slot = st_find(&self.st, handle)
        if slot < 0:
            raise InvalidHandleError(f"reactive: remove({handle!r}): no live element has this handle")
        self._take1(slot)

    def __len__(self) -> int:
        return self.st.size

    def insert_many(self, values: Iterable[Any]) -> None:
        """Insert ``values`` in order as one batch (all lifted first: a bad value inserts nothing); one
        propagation over the distinct slots written."""
        self.insert_many_with_handles(values)

    def insert_many_with_handles(self, values: Iterable[Any]) -> list[Handle]:
        """:meth:`insert_many`, returning the new handles in order."""
        cdef Slot v
        cdef int64_t first
        self._usable()
        if self.kind != K_GENERIC:
            vs = list(values)
            for x in vs:
                to_slot(self.kind, x, &v)
        else:
            lift = self._lift
            vs = [lift(x) for x in values]
        first = self.st.next_handle
        self.st.broken = True
        for x in vs:
            self._put(x)
        self._finish()
        self.st.broken = False
        return list(range(first, first + len(vs)))

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest live elements as one batch. Raises :class:`EmptyWindowError` (evicting
        nothing) when fewer than ``count`` are held and ``ValueError`` for a negative count."""
        cdef Py_ssize_t i, k
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.st.size:
            raise EmptyWindowError(f"reactive: evict_many({count}) on a window of {self.st.size}")
        self._usable()
        k = count
        self.st.broken = True
        for i in range(k):
            st_take(&self.st, self.st.F, self.kind)
        self._finish()
        self.st.broken = False

    def remove_many(self, handles: Iterable[Handle]) -> None:
        """Remove the live elements ``handles`` as one batch. Every handle must be live and given once, else
        :class:`InvalidHandleError` and nothing changes."""
        hs = list(handles)
        seen = set()
        for h in hs:
            if st_find(&self.st, h) < 0 or h in seen:
                raise InvalidHandleError(f"reactive: remove_many: handle {h!r} is not live (or given twice)")
            seen.add(h)
        self._usable()
        self.st.broken = True
        for h in hs:
            st_take(&self.st, st_find(&self.st, h), self.kind)
        self._finish()
        self.st.broken = False

    def batch(self, events: Iterable[tuple[Any, ...]]) -> list[Handle | None]:
        """Apply ``events`` in order as one batch and propagate once (002 §2.3: insert/evict events, then the
        trigger). Events: ``("insert", value)``, ``("evict",)``, ``("remove", handle)``. Returns, per event,
        the new handle of an insert and ``None`` otherwise. Slots written twice keep the last write.

        A bad event (unknown kind, bad value, evict on empty, dead handle) raises after the events before it
        were applied (and propagated), like a prefix of the batch."""
        cdef Slot v
        cdef Py_ssize_t slot
        self._usable()
        out = []
        try:
            for ev in events:
                kind = ev[0] if isinstance(ev, tuple) and ev else None
                if kind == "insert" and len(ev) == 2:
                    if self.kind != K_GENERIC:
                        to_slot(self.kind, ev[1], &v)
                        x = ev[1]
                    else:
                        x = self._lift(ev[1])
                    h = self.st.next_handle
                    self.st.broken = True
                    self._put(x)
                    out.append(h)
                elif kind == "evict" and len(ev) == 1:
                    if self.st.size == 0:
                        raise EmptyWindowError("reactive: batch: evict on an empty window")
                    self.st.broken = True
                    st_take(&self.st, self.st.F, self.kind)
                    out.append(None)
                elif kind == "remove" and len(ev) == 2:
                    slot = st_find(&self.st, ev[1])
                    if slot < 0:
                        raise InvalidHandleError(f"reactive: batch: remove({ev[1]!r}): no live element has this handle")
                    self.st.broken = True
                    st_take(&self.st, slot, self.kind)
                    out.append(None)
                else:
                    raise ValueError(f"reactive: batch: bad event {ev!r}")
        finally:
            if not self.st.t.broken:
                self.st.broken = True
                self._finish()
                self.st.broken = False
        return out

    def handles(self) -> list[Handle]:
        """Handles of the live elements, oldest first."""
        cdef Py_ssize_t k, slot
        out = []
        for k in range(self.st.span):
            slot = (self.st.F + k) % self.st.t.n
            if self.st.live[slot]:
                out.append(self.st.seq[slot])
        return out

    def snapshot(self) -> ReactiveState:
        cdef Py_ssize_t i, cap = self.st.t.n
        return ReactiveState(
            capacity=cap,
            nodes=tuple([tree_val(self.kind, self.st.t.T[i]) for i in range(2 * cap)]),
            handles=tuple([self.st.seq[i] if self.st.live[i] else None for i in range(cap)]),
            F=self.st.F,
            span=self.st.span,
            size=self.st.size,
            min_capacity=self.st.minc,
        )

    def _memory_bytes(self) -> int:
        """Bytes malloc'd: the node array and the per-slot bookkeeping."""
        cdef Py_ssize_t cap = self.st.t.n
        return 2 * cap * sizeof(Slot) + cap * (sizeof(int64_t) + 2 + sizeof(Py_ssize_t))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
