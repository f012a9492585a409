# cython: language_level=3, annotation_typing=False
"""Two-Stacks Lite, compiled (paper 000 §4).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.two_stacks_lite`: one deque with pointers
F ≤ B ≤ E; the front sublist lF = [F, B) holds suffix aggregates, the back sublist lB = [B, E) plain values with
their aggregate in ``aggB``. Evicting from an empty lF flips lB in place.

Complexity (Theorem 4.2): n+1 stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once. Pointer operations are worst-case O(1) on a chunked array
(Definition 1). Typed kinds store 8 bytes per element in chunks of 512 (plus one spare chunk).
"""

include "_common.pxi"

from swagkit.spec.errors import SwagkitError
from swagkit.spec.snapshots import TwoStacksLiteState

ctypedef struct State:
    Deque d          # d.front is F, d.back is E
    Ptr B
    Slot aggB
    Slot one
    int64_t count
    bint busy        # generic path: inside an update (guards against re-entry from combine/__del__)


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.d.n


cdef int st_init(State* s, int kind, Slot one) noexcept:
    if dq_init(&s.d, 1) < 0:
        return -1
    s.B = s.d.front
    s.one = one
    s.aggB = one
    s.count = 0
    s.busy = False
    if kind == K_GENERIC:
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
        slot_clear(&s.aggB)
    dq_free(&s.d)


# ---------------------------------------------------------------------------------------------------- typed

cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept nogil:
    cdef Slot* slot = dq_push(&s.d, 1)
    if slot == NULL:
        return -1
    slot[0] = v
    s.count += 1
    s.aggB = tcomb(kind, s.aggB, v)
    return 0


cdef inline void st_flip_t(State* s, int kind) noexcept nogil:
    cdef Ptr i = p_dec(s.d.back, 1)
    cdef Ptr nxt
    while i.p != s.d.front.p:
        nxt = i
        i = p_dec(i, 1)
        s.count += 1
        i.p[0] = tcomb(kind, i.p[0], nxt.p[0])
    s.B = s.d.back
    s.aggB = s.one


cdef inline void st_evict_t(State* s, int kind) noexcept nogil:
    if SWAG_UNLIKELY(s.d.front.p == s.B.p and s.B.p != s.d.back.p):
        st_flip_t(s, kind)
    dq_pop(&s.d, 1)


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    s.count += 1
    return tcomb(kind, s.one if s.d.front.p == s.B.p else s.d.front.p[0], s.aggB)


# -------------------------------------------------------------------------------------------------- generic

cdef int st_enter_g(State* s) except -1:
    if s.busy:
        raise SwagkitError("two_stacks_lite: insert/evict re-entered from a combine call")
    s.busy = True
    return 0


cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot* slot = dq_push(&s.d, 1)
    st_enter_g(s)
    try:
        if slot == NULL:
            raise MemoryError()
        slot_put(slot, v)
        s.count += 1
        r = comb(slot_get(s.aggB), v)
        slot_set(&s.aggB, r)
    finally:
        s.busy = False
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    cdef Ptr i, nxt
    st_enter_g(s)
    try:
        if s.d.front.p == s.B.p and s.B.p != s.d.back.p:  # flip
            i = p_dec(s.d.back, 1)
            while i.p != s.d.front.p:
                nxt = i
                i = p_dec(i, 1)
                s.count += 1
                r = comb(slot_get(i.p[0]), slot_get(nxt.p[0]))
                slot_set(i.p, r)
            s.B = s.d.back
            slot_set(&s.aggB, slot_get(s.one))
        slot_clear(s.d.front.p)
        dq_pop(&s.d, 1)
    finally:
        s.busy = False
    return 0


cdef object st_query_g(State* s, object comb):
    pi_f = slot_get(s.one) if s.d.front.p == s.B.p else slot_get(s.d.front.p[0])
    s.count += 1
    return comb(pi_f, slot_get(s.aggB))


include "_template.pxi"


cdef class TwoStacksLite:
    """TwoStacksLite(monoid)
--

Two-Stacks Lite SWAG (id ``two_stacks_lite``), compiled: amortized O(1), worst-case O(n) ⊗ per operation,
    n+1 partial aggregates (paper 000 §4, Theorem 4.2).

    Typed monoids (``monoid.kind`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots and ``combine_count`` are those of
    :class:`swagkit.reference.TwoStacksLite`.
    """

    cdef State st
    cdef int kind
    cdef bint lower_id
    cdef readonly object monoid
    cdef object _combine
    cdef object _lift
    cdef object _lower

    algorithm = "two_stacks_lite"

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
        """Push v onto lB and fold it into aggB. One ⊗.

        Typed kinds validate ``value`` like ``as_f64``/``as_i64`` before anything changes."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if st_insert_t(&self.st, v, self.kind) < 0:
                raise MemoryError()
        else:
            st_insert_g(&self.st, self._lift(value), self._combine)

    def evict(self) -> None:
        """Pop the front; if lF is empty, first flip lB into suffix aggregates in place. At most n ⊗, amortized
        one. Raises ``EmptyWindowError`` when empty."""
        if self.st.d.n == 0:
            raise EmptyWindowError("two_stacks_lite: evict() on an empty window")
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
            raise EmptyWindowError(f"two_stacks_lite: evict_many({count}) on a window of {self.st.d.n}")
        k = count
        if self.kind != K_GENERIC:
            for i in range(k):
                st_evict_t(&self.st, self.kind)
        else:
            for i in range(k):
                st_evict_g(&self.st, self._combine)

    def snapshot(self) -> TwoStacksLiteState:
        """:class:`~swagkit.spec.snapshots.TwoStacksLiteState`, pointers as offsets from F, values as Python
        objects."""
        cdef Deque* d = &self.st.d
        cdef Ptr p = d.front
        items = []
        while p.p != d.back.p:
            items.append(self._val(p.p[0]))
            p = p_inc(p, 1)
        return TwoStacksLiteState(
            deque=tuple(items),
            F=0,
            B=p_off(d, self.st.B, 1),
            E=p_off(d, d.back, 1),
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

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the chunk storage (chunks with headers, including the spare chunk)."""
        return dq_bytes(&self.st.d, 1)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
