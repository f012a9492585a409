# cython: language_level=3, annotation_typing=False
"""Two-Stacks, compiled (paper 000 §3).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.two_stacks`: a front stack F (aggregated
to the right, for eviction) and a back stack B (aggregated to the left, for insertion) of ``(val, agg)`` pairs;
evicting from an empty F first *flips* B onto F.

Complexity (Theorem 3.2): 2n stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once. The stacks are two growable C arrays (capacity doubling, which
is amortized O(1) like the algorithm itself); F's capacity is kept ≥ n on insert so a flip never allocates.
"""

include "_common.pxi"

from swagkit.spec.errors import SwagkitError
from swagkit.spec.snapshots import TwoStacksState

# a stack element is two slots: [2*i] is val, [2*i+1] is agg; the top is the last element

ctypedef struct State:
    Slot* F
    Py_ssize_t nF
    Py_ssize_t capF
    Slot* B
    Py_ssize_t nB
    Py_ssize_t capB
    Slot one
    int64_t count
    bint busy        # generic path: inside an update (guards against re-entry from combine/__del__)
    bint ok


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.nF + s.nB


cdef int st_init(State* s, int kind, Slot one) noexcept:
    s.capF = 16
    s.capB = 16
    s.nF = 0
    s.nB = 0
    s.F = <Slot*>malloc(2 * s.capF * sizeof(Slot))
    s.B = <Slot*>malloc(2 * s.capB * sizeof(Slot))
    s.one = one
    s.count = 0
    s.busy = False
    s.ok = s.F != NULL and s.B != NULL
    if not s.ok:
        free(s.F)
        free(s.B)
        s.F = NULL
        s.B = NULL
        return -1
    if kind == K_GENERIC:
        Py_XINCREF(one.o)
    return 0


cdef void st_free(State* s, int kind) noexcept:
    cdef Py_ssize_t i
    if not s.ok:
        return
    if kind == K_GENERIC:
        for i in range(2 * s.nF):
            slot_clear(&s.F[i])
        for i in range(2 * s.nB):
            slot_clear(&s.B[i])
        slot_clear(&s.one)
    free(s.F)
    free(s.B)
    s.F = NULL
    s.B = NULL
    s.ok = False


cdef inline int grow(Slot** arr, Py_ssize_t* cap, Py_ssize_t need) noexcept nogil:
    cdef Py_ssize_t c = cap[0]
    cdef Slot* p
    if need <= c:
        return 0
    while c < need:
        c *= 2
    p = <Slot*>realloc(arr[0], 2 * c * sizeof(Slot))
    if p == NULL:
        return -1
    arr[0] = p
    cap[0] = c
    return 0


cdef inline int st_reserve(State* s) noexcept nogil:
    """Room for one more element in B and for all n+1 elements in F (so a flip never allocates)."""
    if SWAG_UNLIKELY(s.nB + 1 > s.capB):
        if grow(&s.B, &s.capB, s.nB + 1) < 0:
            return -1
    if SWAG_UNLIKELY(s.nF + s.nB + 1 > s.capF):
        if grow(&s.F, &s.capF, s.nF + s.nB + 1) < 0:
            return -1
    return 0


# ---------------------------------------------------------------------------------------------------- typed

cdef inline Slot pi_f_t(State* s) noexcept nogil:
    return s.one if s.nF == 0 else s.F[2 * s.nF - 1]


cdef inline Slot pi_b_t(State* s) noexcept nogil:
    return s.one if s.nB == 0 else s.B[2 * s.nB - 1]


cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept nogil:
    if st_reserve(s) < 0:
        return -1
    s.count += 1
    s.B[2 * s.nB + 1] = tcomb(kind, pi_b_t(s), v)
    s.B[2 * s.nB] = v
    s.nB += 1
    return 0


cdef inline void st_flip_t(State* s, int kind) noexcept nogil:
    cdef Slot val
    while s.nB > 0:
        val = s.B[2 * s.nB - 2]
        s.count += 1
        s.F[2 * s.nF + 1] = tcomb(kind, val, pi_f_t(s))
        s.F[2 * s.nF] = val
        s.nF += 1
        s.nB -= 1


cdef inline void st_evict_t(State* s, int kind) noexcept nogil:
    if SWAG_UNLIKELY(s.nF == 0):
        st_flip_t(s, kind)
    s.nF -= 1


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    s.count += 1
    return tcomb(kind, pi_f_t(s), pi_b_t(s))


# -------------------------------------------------------------------------------------------------- generic

cdef inline object pi_f_g(State* s):
    return slot_get(s.one) if s.nF == 0 else slot_get(s.F[2 * s.nF - 1])


cdef inline object pi_b_g(State* s):
    return slot_get(s.one) if s.nB == 0 else slot_get(s.B[2 * s.nB - 1])


cdef int st_enter_g(State* s) except -1:
    if s.busy:
        raise SwagkitError("two_stacks: insert/evict re-entered from a combine call")
    s.busy = True
    return 0


cdef int st_insert_g(State* s, object v, object comb) except -1:
    st_enter_g(s)
    try:
        if st_reserve(s) < 0:
            raise MemoryError()
        s.count += 1
        agg = comb(pi_b_g(s), v)
        slot_put(&s.B[2 * s.nB], v)
        slot_put(&s.B[2 * s.nB + 1], agg)
        s.nB += 1
    finally:
        s.busy = False
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    st_enter_g(s)
    try:
        if s.nF == 0:  # flip
            while s.nB > 0:
                val = slot_get(s.B[2 * s.nB - 2])
                s.count += 1
                agg = comb(val, pi_f_g(s))
                slot_put(&s.F[2 * s.nF], val)
                slot_put(&s.F[2 * s.nF + 1], agg)
                s.nF += 1
                s.nB -= 1
                slot_clear(&s.B[2 * s.nB])
                slot_clear(&s.B[2 * s.nB + 1])
        s.nF -= 1
        slot_clear(&s.F[2 * s.nF])
        slot_clear(&s.F[2 * s.nF + 1])
    finally:
        s.busy = False
    return 0


cdef object st_query_g(State* s, object comb):
    s.count += 1
    return comb(pi_f_g(s), pi_b_g(s))


include "_template.pxi"


cdef class TwoStacks:
    """TwoStacks(monoid)
--

Two-Stacks SWAG (id ``two_stacks``), compiled: amortized O(1), worst-case O(n) ⊗ per operation, 2n
    partial aggregates (paper 000 §3, Theorem 3.2).

    Typed monoids (``monoid.kind`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots and ``combine_count`` are those of
    :class:`swagkit.reference.TwoStacks`.
    """

    cdef State st
    cdef int kind
    cdef bint lower_id
    cdef readonly object monoid
    cdef object _combine
    cdef object _lift
    cdef object _lower

    algorithm = "two_stacks"

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
        """``B.push(v, ΠB ⊗ v)``. One ⊗.

        Typed kinds validate ``value`` like ``as_f64``/``as_i64`` before anything changes."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if st_insert_t(&self.st, v, self.kind) < 0:
                raise MemoryError()
        else:
            st_insert_g(&self.st, self._lift(value), self._combine)

    def evict(self) -> None:
        """Pop F, flipping B onto F first when F is empty. At most n ⊗, amortized one. Raises
        ``EmptyWindowError`` when empty."""
        if st_len(&self.st) == 0:
            raise EmptyWindowError("two_stacks: evict() on an empty window")
        if self.kind != K_GENERIC:
            st_evict_t(&self.st, self.kind)
        else:
            st_evict_g(&self.st, self._combine)

    def __len__(self) -> int:
        return st_len(&self.st)

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
        if count > st_len(&self.st):
            raise EmptyWindowError(f"two_stacks: evict_many({count}) on a window of {st_len(&self.st)}")
        k = count
        if self.kind != K_GENERIC:
            for i in range(k):
                st_evict_t(&self.st, self.kind)
        else:
            for i in range(k):
                st_evict_g(&self.st, self._combine)

    def snapshot(self) -> TwoStacksState:
        """:class:`~swagkit.spec.snapshots.TwoStacksState`, pointers as offsets from F, values as Python
        objects."""
        cdef Py_ssize_t i
        front = []
        back = []
        for i in range(self.st.nF - 1, -1, -1):
            front.append((self._val(self.st.F[2 * i]), self._val(self.st.F[2 * i + 1])))
        for i in range(self.st.nB):
            back.append((self._val(self.st.B[2 * i]), self._val(self.st.B[2 * i + 1])))
        return TwoStacksState(front=tuple(front), back=tuple(back))

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
        """Bytes malloc'd for the two stacks (their capacities)."""
        return (self.st.capF + self.st.capB) * 2 * <Py_ssize_t>sizeof(Slot)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
