# cython: language_level=3, annotation_typing=False
"""DABA Lite, compiled (paper 000 §6).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.daba_lite`: one deque of partial
aggregates, pointers F ≤ L ≤ R ≤ A ≤ B ≤ E and the two aggregates ``aggRA`` and ``aggB``; ``fixup`` runs one of
singleton, [flip], shift or shrink after each insert and evict.

Complexity (Theorem 6.2): n+2 stored partial aggregates; worst-case ⊗ per operation: query 1, insert 3, evict 2
(on average 2 per insert and 1 per evict); pointer operations worst-case O(1) on a chunked array
(Definition 1). Typed kinds store 8 bytes per element in chunks of 512 (plus one spare chunk).
"""

include "_common.pxi"

from swagkit.spec.errors import SwagkitError
from swagkit.spec.snapshots import DABALiteState

cdef enum:
    C_NONE = 0
    C_SINGLETON = 1
    C_SHIFT = 2
    C_SHRINK = 3
    C_FLIP_SHIFT = 4
    C_FLIP_SHRINK = 5

_CASES = ("", "singleton", "shift", "shrink", "flip+shift", "flip+shrink")

ctypedef struct State:
    Deque d          # d.front is F, d.back is E
    Ptr L
    Ptr R
    Ptr A
    Ptr B
    Slot aggRA
    Slot aggB
    Slot one
    int64_t count
    int last_case
    bint broken      # generic path: a combine raised half-way through an update (see st_check_g)


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.d.n


cdef int st_init(State* s, int kind, Slot one) noexcept:
    if dq_init(&s.d, 1) < 0:
        return -1
    s.L = s.d.front
    s.R = s.d.front
    s.A = s.d.front
    s.B = s.d.front
    s.one = one
    s.aggRA = one
    s.aggB = one
    s.count = 0
    s.last_case = C_NONE
    s.broken = False
    if kind == K_GENERIC:
        Py_XINCREF(one.o)
        Py_XINCREF(one.o)
        Py_XINCREF(one.o)
    return 0


cdef void st_free(State* s, int kind) noexcept:
    cdef Ptr p
    if s.d.front.c == NULL:
        return
    if kind == K_GENERIC:
        p = s.d.front
        while p.p != s.d.back.p:
            slot_clear(p.p)
            p = p_inc(p, 1)
        slot_clear(&s.one)
        slot_clear(&s.aggRA)
        slot_clear(&s.aggB)
    dq_free(&s.d)


# ---------------------------------------------------------------------------------------------------- typed

cdef inline void st_fixup_t(State* s, int kind) noexcept nogil:
    cdef bint flip = False
    cdef Ptr am1
    cdef Slot pi_a
    if s.d.front.p == s.B.p:  # singleton
        s.B = s.d.back
        s.A = s.d.back
        s.R = s.d.back
        s.L = s.d.back
        s.aggRA = s.one
        s.aggB = s.one
        s.last_case = C_SINGLETON
        return
    if s.L.p == s.B.p:  # flip
        s.L = s.d.front
        s.A = s.d.back
        s.B = s.d.back
        s.aggRA = s.aggB
        s.aggB = s.one
        flip = True
    if s.L.p == s.R.p:  # shift
        s.A = p_inc(s.A, 1)
        s.R = p_inc(s.R, 1)
        s.L = p_inc(s.L, 1)
        s.last_case = C_FLIP_SHIFT if flip else C_SHIFT
    else:  # shrink
        s.count += 1
        s.L.p[0] = tcomb(kind, s.L.p[0], s.aggRA)
        s.L = p_inc(s.L, 1)
        am1 = p_dec(s.A, 1)
        pi_a = s.one if s.A.p == s.B.p else s.A.p[0]
        s.count += 1
        am1.p[0] = tcomb(kind, am1.p[0], pi_a)
        s.A = am1
        s.last_case = C_FLIP_SHRINK if flip else C_SHRINK


cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept nogil:
    cdef Slot* slot = dq_push(&s.d, 1)
    if slot == NULL:
        return -1
    slot[0] = v
    s.count += 1
    s.aggB = tcomb(kind, s.aggB, v)
    st_fixup_t(s, kind)
    return 0


cdef inline void st_evict_t(State* s, int kind) noexcept nogil:
    dq_pop(&s.d, 1)
    st_fixup_t(s, kind)


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    s.count += 1
    return tcomb(kind, s.one if s.d.front.p == s.B.p else s.d.front.p[0], s.aggB)


# -------------------------------------------------------------------------------------------------- generic

cdef int st_fixup_g(State* s, object comb) except -1:
    cdef bint flip = False
    cdef Ptr am1
    if s.d.front.p == s.B.p:  # singleton
        s.B = s.d.back
        s.A = s.d.back
        s.R = s.d.back
        s.L = s.d.back
        slot_set(&s.aggRA, slot_get(s.one))
        slot_set(&s.aggB, slot_get(s.one))
        s.last_case = C_SINGLETON
        return 0
    if s.L.p == s.B.p:  # flip
        s.L = s.d.front
        s.A = s.d.back
        s.B = s.d.back
        slot_set(&s.aggRA, slot_get(s.aggB))
        slot_set(&s.aggB, slot_get(s.one))
        flip = True
    if s.L.p == s.R.p:  # shift
        s.A = p_inc(s.A, 1)
        s.R = p_inc(s.R, 1)
        s.L = p_inc(s.L, 1)
        s.last_case = C_FLIP_SHIFT if flip else C_SHIFT
    else:  # shrink
        s.count += 1
        r = comb(slot_get(s.L.p[0]), slot_get(s.aggRA))
        slot_set(s.L.p, r)
        s.L = p_inc(s.L, 1)
        am1 = p_dec(s.A, 1)
        pi_a = slot_get(s.one) if s.A.p == s.B.p else slot_get(s.A.p[0])
        s.count += 1
        r = comb(slot_get(am1.p[0]), pi_a)
        slot_set(am1.p, r)
        s.A = am1
        s.last_case = C_FLIP_SHRINK if flip else C_SHRINK
    return 0


cdef int st_check_g(State* s) except -1:
    """A combine that raises half-way through ``fixup`` leaves the pointers breaking the size invariants; going on
    from there could move a pointer out of the deque (the reference would compute garbage or fail an assertion),
    so the compiled generic path refuses further updates instead."""
    if s.broken:
        raise SwagkitError(
            "daba_lite: a combine call raised during an earlier insert/evict (or re-entered one); the aggregator "
            "is inconsistent and can no longer be updated"
        )
    return 0


cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot* slot
    st_check_g(s)
    s.count += 1
    r = comb(slot_get(s.aggB), v)  # before the push (no ⊗ in between): a raise here changes nothing
    slot = dq_push(&s.d, 1)
    if slot == NULL:
        raise MemoryError()
    slot_put(slot, v)
    slot_set(&s.aggB, r)
    s.broken = True
    st_fixup_g(s, comb)
    s.broken = False
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    st_check_g(s)
    s.broken = True
    slot_clear(s.d.front.p)
    dq_pop(&s.d, 1)
    st_fixup_g(s, comb)
    s.broken = False
    return 0


cdef object st_query_g(State* s, object comb):
    pi_f = slot_get(s.one) if s.d.front.p == s.B.p else slot_get(s.d.front.p[0])
    s.count += 1
    return comb(pi_f, slot_get(s.aggB))


include "_template.pxi"


cdef class DABALite:
    """DABALite(monoid)
--

DABA Lite SWAG (id ``daba_lite``), compiled: worst-case O(1) ⊗ per operation, n+2 partial aggregates
    (paper 000 §6, Theorem 6.2).

    Typed monoids (``monoid.kind`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots and ``combine_count`` are those of
    :class:`swagkit.reference.DABALite`.
    """

    cdef State st
    cdef int kind
    cdef bint lower_id
    cdef readonly object monoid
    cdef object _combine
    cdef object _lift
    cdef object _lower

    algorithm = "daba_lite"

    def __cinit__(self, monoid):
        cdef Slot one
        self.kind = choose_kind(monoid, &one)
        self.monoid = monoid
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._lower = monoid.lower
        self.lower_id = _lower_is_identity(monoid)
        identity = monoid.identity
        if self.kind == K_GENERIC:
            one.o = <PyObject*>identity
        if st_init(&self.st, self.kind, one) < 0:
            raise MemoryError()

    def __dealloc__(self):
        st_free(&self.st, self.kind)

    def query(self) -> Any:
        """``ΠF ⊗ aggB``, lowered. One ⊗."""
        cdef Slot r
        if self.kind != K_GENERIC:
            r = st_query_t(&self.st, self.kind)
            if self.lower_id:
                return box(self.kind, r)
            return self._lower(box(self.kind, r))
        return self._lower(st_query_g(&self.st, self._combine))

    def insert(self, value: Any) -> None:
        """``deque.pushBack(v); E ← E + 1; aggB ← aggB ⊗ v; fixup()``. At most 3 ⊗.

        Typed kinds validate ``value`` like ``as_f64``/``as_i64`` before anything changes."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if st_insert_t(&self.st, v, self.kind) < 0:
                raise MemoryError()
        else:
            st_insert_g(&self.st, self._lift(value), self._combine)

    def evict(self) -> None:
        """``F ← F + 1; deque.popFront(); fixup()``. At most 2 ⊗. Raises ``EmptyWindowError`` when empty."""
        if self.st.d.n == 0:
            raise EmptyWindowError("daba_lite: evict() on an empty window")
        if self.kind != K_GENERIC:
            st_evict_t(&self.st, self.kind)
        else:
            st_evict_g(&self.st, self._combine)

    def __len__(self) -> int:
        return self.st.d.n

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls); the loop runs in
        C, over the raw buffer for ``array.array``/``memoryview`` input of a typed kind."""
        if self.kind != K_GENERIC:
            _insert_many_typed(&self.st, self.kind, values)
            return
        lift = self._lift
        comb = self._combine
        for x in values:
            st_insert_g(&self.st, lift(x), comb)

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest values in a C loop. Raises ``EmptyWindowError`` (evicting nothing) when
        fewer than ``count`` are held and ``ValueError`` for a negative count."""
        cdef Py_ssize_t i, k
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.st.d.n:
            raise EmptyWindowError(f"daba_lite: evict_many({count}) on a window of {self.st.d.n}")
        k = count
        if self.kind != K_GENERIC:
            for i in range(k):
                st_evict_t(&self.st, self.kind)
        else:
            for i in range(k):
                st_evict_g(&self.st, self._combine)

    def snapshot(self) -> DABALiteState:
        """:class:`~swagkit.spec.snapshots.DABALiteState`, pointers as offsets from F, values as Python
        objects."""
        cdef Deque* d = &self.st.d
        cdef Ptr p = d.front
        items = []
        while p.p != d.back.p:
            items.append(self._val(p.p[0]))
            p = p_inc(p, 1)
        return DABALiteState(
            deque=tuple(items),
            F=0,
            L=p_off(d, self.st.L, 1),
            R=p_off(d, self.st.R, 1),
            A=p_off(d, self.st.A, 1),
            B=p_off(d, self.st.B, 1),
            E=p_off(d, d.back, 1),
            aggRA=self._val(self.st.aggRA),
            aggB=self._val(self.st.aggB),
        )

    cdef object _val(self, Slot v):
        if self.kind != K_GENERIC:
            return box(self.kind, v)
        return slot_get(v)

    @property
    def combine_count(self):
        """Number of ⊗ invocations so far, counted as the pseudocode performs them (identity included)."""
        return self.st.count

    @combine_count.setter
    def combine_count(self, value):
        self.st.count = value

    @property
    def last_case(self):
        """Name of the last fixup case (``singleton``, ``flip+shrink`` …), as in the reference."""
        return _CASES[self.st.last_case]

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the chunk storage (chunks with headers, including the spare chunk)."""
        return dq_bytes(&self.st.d, 1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
