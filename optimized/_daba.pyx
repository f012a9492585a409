# cython: language_level=3, annotation_typing=False
"""DABA, the De-Amortized Banker's Aggregator, compiled (paper 000 §5).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.daba`: one deque of ``(val, agg)``
elements and pointers F ≤ L ≤ R ≤ A ≤ B ≤ E; every ``insert`` and ``evict`` runs one step of ``fixup``
(singleton, [flip], shift or shrink), reversing the aggregation direction incrementally.

Complexity (Theorem 5.2): 2n stored partial aggregates; worst-case ⊗ per operation: query 1, insert 4, evict 3
(on average 2.5 per insert and 1.5 per evict); pointer operations worst-case O(1) on a chunked array
(Definition 1). Typed kinds store 16 bytes per element in chunks of 512 (plus one spare chunk).
"""

include "_common.pxi"

from swagkit.spec.errors import SwagkitError
from swagkit.spec.snapshots import DABAState

cdef enum:
    C_NONE = 0
    C_SINGLETON = 1
    C_SHIFT = 2
    C_SHRINK = 3
    C_FLIP_SHIFT = 4
    C_FLIP_SHRINK = 5

_CASES = ("", "singleton", "shift", "shrink", "flip+shift", "flip+shrink")

# an element is two slots: p.p[0] is val, p.p[1] is agg

ctypedef struct State:
    Deque d          # d.front is F, d.back is E
    Ptr L
    Ptr R
    Ptr A
    Ptr B
    Slot one
    int64_t count
    int last_case
    bint broken      # generic path: a combine raised half-way through an update (see st_check_g)


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.d.n


cdef int st_init(State* s, int kind, Slot one) noexcept:
    if dq_init(&s.d, 2) < 0:
        return -1
    s.L = s.d.front
    s.R = s.d.front
    s.A = s.d.front
    s.B = s.d.front
    s.one = one
    s.count = 0
    s.last_case = C_NONE
    s.broken = False
    if kind == K_GENERIC:
        Py_XINCREF(one.o)
    return 0


cdef void st_free(State* s, int kind) noexcept:
    cdef Ptr p
    if s.d.front.c == NULL:
        return
    if kind == K_GENERIC:
        p = s.d.front
        while p.p != s.d.back.p:
            slot_clear(&p.p[0])
            slot_clear(&p.p[1])
            p = p_inc(p, 2)
        slot_clear(&s.one)
    dq_free(&s.d)


# ---------------------------------------------------------------------------------------------------- typed
# Π helpers: the aggregate of a sublist, or 1 when it is empty

cdef inline Slot pi_f_t(State* s) noexcept nogil:
    return s.one if s.d.front.p == s.B.p else s.d.front.p[1]


cdef inline Slot pi_b_t(State* s) noexcept nogil:
    return s.one if s.B.p == s.d.back.p else p_dec(s.d.back, 2).p[1]


cdef inline Slot pi_l_t(State* s) noexcept nogil:
    return s.one if s.L.p == s.R.p else s.L.p[1]


cdef inline Slot pi_r_t(State* s) noexcept nogil:
    return s.one if s.R.p == s.A.p else p_dec(s.A, 2).p[1]


cdef inline Slot pi_a_t(State* s) noexcept nogil:
    return s.one if s.A.p == s.B.p else s.A.p[1]


cdef inline void st_fixup_t(State* s, int kind) noexcept nogil:
    cdef bint flip = False
    cdef Ptr a1
    cdef Slot t
    if s.d.front.p == s.B.p:  # singleton
        s.B = s.d.back
        s.A = s.d.back
        s.R = s.d.back
        s.L = s.d.back
        s.last_case = C_SINGLETON
        return
    if s.L.p == s.B.p:  # flip
        s.L = s.d.front
        s.A = s.d.back
        s.B = s.d.back
        flip = True
    if s.L.p == s.R.p:  # shift
        s.A = p_inc(s.A, 2)
        s.R = p_inc(s.R, 2)
        s.L = p_inc(s.L, 2)
        s.last_case = C_FLIP_SHIFT if flip else C_SHIFT
    else:  # shrink
        s.count += 1
        t = tcomb(kind, pi_l_t(s), pi_r_t(s))
        s.count += 1
        s.L.p[1] = tcomb(kind, t, pi_a_t(s))
        s.L = p_inc(s.L, 2)
        a1 = p_dec(s.A, 2)
        s.count += 1
        a1.p[1] = tcomb(kind, a1.p[0], pi_a_t(s))
        s.A = a1
        s.last_case = C_FLIP_SHRINK if flip else C_SHRINK


cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept nogil:
    cdef Slot agg
    cdef Slot* slot
    s.count += 1
    agg = tcomb(kind, pi_b_t(s), v)
    slot = dq_push(&s.d, 2)
    if slot == NULL:
        s.count -= 1
        return -1
    slot[0] = v
    slot[1] = agg
    st_fixup_t(s, kind)
    return 0


cdef inline void st_evict_t(State* s, int kind) noexcept nogil:
    dq_pop(&s.d, 2)
    st_fixup_t(s, kind)


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    s.count += 1
    return tcomb(kind, pi_f_t(s), pi_b_t(s))


# -------------------------------------------------------------------------------------------------- generic

cdef inline object pi_f_g(State* s):
    return slot_get(s.one) if s.d.front.p == s.B.p else slot_get(s.d.front.p[1])


cdef inline object pi_b_g(State* s):
    return slot_get(s.one) if s.B.p == s.d.back.p else slot_get(p_dec(s.d.back, 2).p[1])


cdef inline object pi_l_g(State* s):
    return slot_get(s.one) if s.L.p == s.R.p else slot_get(s.L.p[1])


cdef inline object pi_r_g(State* s):
    return slot_get(s.one) if s.R.p == s.A.p else slot_get(p_dec(s.A, 2).p[1])


cdef inline object pi_a_g(State* s):
    return slot_get(s.one) if s.A.p == s.B.p else slot_get(s.A.p[1])


cdef int st_fixup_g(State* s, object comb) except -1:
    cdef bint flip = False
    cdef Ptr a1
    if s.d.front.p == s.B.p:  # singleton
        s.B = s.d.back
        s.A = s.d.back
        s.R = s.d.back
        s.L = s.d.back
        s.last_case = C_SINGLETON
        return 0
    if s.L.p == s.B.p:  # flip
        s.L = s.d.front
        s.A = s.d.back
        s.B = s.d.back
        flip = True
    if s.L.p == s.R.p:  # shift
        s.A = p_inc(s.A, 2)
        s.R = p_inc(s.R, 2)
        s.L = p_inc(s.L, 2)
        s.last_case = C_FLIP_SHIFT if flip else C_SHIFT
    else:  # shrink
        s.count += 1
        t = comb(pi_l_g(s), pi_r_g(s))
        s.count += 1
        r = comb(t, pi_a_g(s))
        slot_set(&s.L.p[1], r)
        s.L = p_inc(s.L, 2)
        a1 = p_dec(s.A, 2)
        s.count += 1
        r = comb(slot_get(a1.p[0]), pi_a_g(s))
        slot_set(&a1.p[1], r)
        s.A = a1
        s.last_case = C_FLIP_SHRINK if flip else C_SHRINK
    return 0


cdef int st_check_g(State* s) except -1:
    """A combine that raises half-way through ``fixup`` leaves the pointers breaking the size invariants; going on
    from there could move a pointer out of the deque (the reference would compute garbage or fail an assertion),
    so the compiled generic path refuses further updates instead."""
    if s.broken:
        raise SwagkitError(
            "daba: a combine call raised during an earlier insert/evict (or re-entered one); the aggregator "
            "is inconsistent and can no longer be updated"
        )
    return 0


cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot* slot
    st_check_g(s)
    s.count += 1
    agg = comb(pi_b_g(s), v)
    slot = dq_push(&s.d, 2)
    if slot == NULL:
        raise MemoryError()
    slot_put(&slot[0], v)
    slot_put(&slot[1], agg)
    s.broken = True
    st_fixup_g(s, comb)
    s.broken = False
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    st_check_g(s)
    s.broken = True
    slot_clear(&s.d.front.p[0])
    slot_clear(&s.d.front.p[1])
    dq_pop(&s.d, 2)
    st_fixup_g(s, comb)
    s.broken = False
    return 0


cdef object st_query_g(State* s, object comb):
    s.count += 1
    return comb(pi_f_g(s), pi_b_g(s))


include "_template.pxi"


cdef class DABA:
    """DABA(monoid)
--

DABA SWAG (id ``daba``), compiled: worst-case O(1) ⊗ per operation, 2n partial aggregates
    (paper 000 §5, Theorem 5.2).

    Typed monoids (``monoid.kind`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots and ``combine_count`` are those of
    :class:`swagkit.reference.DABA`.
    """

    cdef State st
    cdef int kind
    cdef bint lower_id
    cdef readonly object monoid
    cdef object _combine
    cdef object _lift
    cdef object _lower

    algorithm = "daba"

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
        """``ΠF ⊗ ΠB``, lowered. One ⊗."""
        cdef Slot r
        if self.kind != K_GENERIC:
            r = st_query_t(&self.st, self.kind)
            if self.lower_id:
                return box(self.kind, r)
            return self._lower(box(self.kind, r))
        return self._lower(st_query_g(&self.st, self._combine))

    def insert(self, value: Any) -> None:
        """``deque.pushBack(v, ΠB ⊗ v); E ← E + 1; fixup()``. At most 4 ⊗.

        Typed kinds validate ``value`` like ``as_f64``/``as_i64`` before anything changes."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if st_insert_t(&self.st, v, self.kind) < 0:
                raise MemoryError()
        else:
            st_insert_g(&self.st, self._lift(value), self._combine)

    def evict(self) -> None:
        """``F ← F + 1; deque.popFront(); fixup()``. At most 3 ⊗. Raises ``EmptyWindowError`` when empty."""
        if self.st.d.n == 0:
            raise EmptyWindowError("daba: evict() on an empty window")
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
            raise EmptyWindowError(f"daba: evict_many({count}) on a window of {self.st.d.n}")
        k = count
        if self.kind != K_GENERIC:
            for i in range(k):
                st_evict_t(&self.st, self.kind)
        else:
            for i in range(k):
                st_evict_g(&self.st, self._combine)

    def snapshot(self) -> DABAState:
        """:class:`~swagkit.spec.snapshots.DABAState`, pointers as offsets from F, values as Python
        objects."""
        cdef Deque* d = &self.st.d
        cdef Ptr p = d.front
        vals = []
        aggs = []
        while p.p != d.back.p:
            vals.append(self._val(p.p[0]))
            aggs.append(self._val(p.p[1]))
            p = p_inc(p, 2)
        return DABAState(
            vals=tuple(vals),
            aggs=tuple(aggs),
            F=0,
            L=p_off(d, self.st.L, 2),
            R=p_off(d, self.st.R, 2),
            A=p_off(d, self.st.A, 2),
            B=p_off(d, self.st.B, 2),
            E=p_off(d, d.back, 2),
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
        return dq_bytes(&self.st.d, 2)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
