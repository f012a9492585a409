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
# The callers hold the re-entry guard (``busy``) around these; each leaves the state exactly as it was when
# ``comb`` raises (strong exception safety, like the reference).

cdef inline object pi_f_g(State* s):
    return slot_get(s.one) if s.nF == 0 else slot_get(s.F[2 * s.nF - 1])


cdef inline object pi_b_g(State* s):
    return slot_get(s.one) if s.nB == 0 else slot_get(s.B[2 * s.nB - 1])


cdef int st_insert_g(State* s, object v, object comb) except -1:
    if st_reserve(s) < 0:
        raise MemoryError()
    s.count += 1
    agg = comb(pi_b_g(s), v)
    slot_put(&s.B[2 * s.nB], v)
    slot_put(&s.B[2 * s.nB + 1], agg)
    s.nB += 1
    return 0


cdef int st_flip_g(State* s, object comb) except -1:
    """Flip B onto F (F is empty and has room for all of B): F's slots are written while ``nF`` stays 0 and B
    stays whole, and only when the last ⊗ has returned are the stacks switched."""
    cdef Py_ssize_t j = 0, b
    try:
        for b in range(s.nB - 1, -1, -1):
            val = slot_get(s.B[2 * b])
            s.count += 1
            agg = comb(val, slot_get(s.one) if j == 0 else slot_get(s.F[2 * j - 1]))
            slot_put(&s.F[2 * j], val)
            slot_put(&s.F[2 * j + 1], agg)
            j += 1
    except BaseException:
        while j > 0:  # drop the half-built F; B is untouched
            j -= 1
            slot_clear(&s.F[2 * j])
            slot_clear(&s.F[2 * j + 1])
        raise
    s.nF = j
    for b in range(2 * s.nB):
        slot_clear(&s.B[b])
    s.nB = 0
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    if s.nF == 0:
        st_flip_g(s, comb)
    s.nF -= 1
    slot_clear(&s.F[2 * s.nF])
    slot_clear(&s.F[2 * s.nF + 1])
    return 0


cdef object st_query_g(State* s, object comb):
    s.count += 1
    return comb(pi_f_g(s), pi_b_g(s))


include "_swag_shell.pxi"


cdef class TwoStacks(SWAGShell):
    """TwoStacks(monoid)
--

Two-Stacks SWAG (id ``two_stacks``), compiled: amortized O(1), worst-case O(n) ⊗ per operation, 2n
    partial aggregates (paper 000 §3, Theorem 3.2).

    Typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots, ``combine_count``, exception safety (strong) and the
    re-entry guard are those of :class:`swagkit.reference.TwoStacks`; copies and pickles go by snapshot.
    """

    algorithm = "two_stacks"

    def snapshot(self) -> TwoStacksState:
        """:class:`~swagkit.spec.snapshots.TwoStacksState`, values as Python objects."""
        cdef Py_ssize_t i
        self._enter("snapshot")
        try:
            front = []
            back = []
            for i in range(self.st.nF - 1, -1, -1):
                front.append((self._val(self.st.F[2 * i]), self._val(self.st.F[2 * i + 1])))
            for i in range(self.st.nB):
                back.append((self._val(self.st.B[2 * i]), self._val(self.st.B[2 * i + 1])))
            return TwoStacksState(front=tuple(front), back=tuple(back))
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). Typed values
        are validated like ``insert``."""
        cdef TwoStacks agg = cls(monoid)
        cdef State* s = &agg.st
        cdef Py_ssize_t i
        front = list(snapshot.front)
        back = list(snapshot.back)
        for pairs, is_front in ((front, True), (back, False)):
            if any(len(p) != 2 for p in pairs):
                raise ValueError("two_stacks: a snapshot's stacks hold (val, agg) pairs")
        if grow(&s.F, &s.capF, len(front) + len(back)) < 0 or grow(&s.B, &s.capB, len(back)) < 0:
            raise MemoryError()
        for i, (val, a) in enumerate(reversed(front)):
            agg._store(&s.F[2 * i], val)
            agg._store(&s.F[2 * i + 1], a)
            s.nF = i + 1
        for i, (val, a) in enumerate(back):
            agg._store(&s.B[2 * i], val)
            agg._store(&s.B[2 * i + 1], a)
            s.nB = i + 1
        return agg

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the two stacks (their capacities)."""
        return (self.st.capF + self.st.capB) * 2 * <Py_ssize_t>sizeof(Slot)


document_costs(
    query="``ΠF ⊗ ΠB``, lowered. One ⊗.",
    insert="``B.push(v, ΠB ⊗ v)``. One ⊗.",
    evict="Pop F, flipping B onto F first when F is empty. At most n ⊗, amortized one.",
)
