# cython: language_level=3, annotation_typing=False
"""DABA, the De-Amortized Banker's Aggregator, compiled (paper 000 §5).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.daba`: one deque of ``(val, agg)``
elements and pointers F ≤ L ≤ R ≤ A ≤ B ≤ E; every ``insert`` and ``evict`` runs one step of ``fixup``
(singleton, [flip], shift or shrink), reversing the aggregation direction incrementally.

Complexity (Theorem 5.2): 2n stored partial aggregates; worst-case ⊗ per operation: query 1, insert 4, evict 3
(on average 2.5 per insert and 1.5 per evict); pointer operations worst-case O(1) on a chunked array
(Definition 1). Typed kinds store 16 bytes per element in chunks of 512 (plus one spare chunk).

Exception safety: *strong*, like the reference. Every operation makes O(1) ⊗ calls and the generic path computes
them all before it changes anything: ``insert`` computes ``ΠB ⊗ v`` before the push; ``fixup`` works out its
case on local copies of the pointers and computes shrink's three ⊗ before it writes the two ``agg`` fields and
moves the pointers; ``evict`` pops the front only after ``fixup`` has returned, and ``insert`` undoes its push if
``fixup`` raises. No transient memory. Typed kinds cannot fail mid-operation. Every public method that reads the
state or calls user code takes the re-entry guard (``busy``) first, so a re-entrant or concurrent call raises
``ReentrantCallError`` before anything changes; the structure is not thread-safe. Copies and pickles go by
snapshot.
"""

include "_common.pxi"

from swagkit.spec.snapshots import DABAState
from swagkit.reference.daba import check_snapshot as _check_snapshot

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
    bint busy        # a public method is running (the re-entry guard: combine/lift/lower/__del__, threads)


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
    s.busy = False
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


cdef int st_fixup_g(State* s, Ptr F, object comb) except -1:
    """``fixup`` for the window whose front is ``F`` (``evict`` passes F+1 before it pops). The case is worked out
    on local copies of the pointers, and shrink's three ⊗ are computed before any field is written: when
    ``comb`` raises, nothing has changed."""
    cdef bint flip = False
    cdef Ptr L = s.L, R = s.R, A = s.A, B = s.B, E = s.d.back, a1
    if F.p == B.p:  # singleton
        s.B = E
        s.A = E
        s.R = E
        s.L = E
        s.last_case = C_SINGLETON
        return 0
    if L.p == B.p:  # flip
        L = F
        A = E
        B = E
        flip = True
    if L.p == R.p:  # shift
        s.A = p_inc(A, 2)
        s.R = p_inc(R, 2)
        s.L = p_inc(L, 2)
        s.B = B
        s.last_case = C_FLIP_SHIFT if flip else C_SHIFT
        return 0
    # shrink: *L.agg ← ΠL ⊗ ΠR ⊗ ΠA; L ← L + 1; *(A−1).agg ← *(A−1).val ⊗ ΠA; A ← A − 1  (A ≠ L)
    one = slot_get(s.one)
    a1 = p_dec(A, 2)
    pi_r = one if R.p == A.p else slot_get(a1.p[1])
    pi_a = one if A.p == B.p else slot_get(A.p[1])
    s.count += 1
    t = comb(slot_get(L.p[1]), pi_r)
    s.count += 1
    agg_l = comb(t, pi_a)
    s.count += 1
    agg_a1 = comb(slot_get(a1.p[0]), pi_a)
    old_l = slot_get(L.p[1])  # every ⊗ returned: commit (the old aggregates are released on return, when
    slot_set(&L.p[1], agg_l)  # the state is consistent again)
    old_a1 = slot_get(a1.p[1])
    slot_set(&a1.p[1], agg_a1)
    s.L = p_inc(L, 2)
    s.R = R
    s.A = a1
    s.B = B
    s.last_case = C_FLIP_SHRINK if flip else C_SHRINK
    return 0


cdef inline void dq_unpush(Deque* d, int W) noexcept nogil:
    """Undo the last ``dq_push`` (its slots already released): a chunk that it linked is unlinked again and
    becomes the spare (or is freed when there already is one)."""
    cdef Chunk* c = d.back.c
    cdef Chunk* t
    if d.back.p == c.data:
        t = c.prev
        t.next = NULL
        d.back.c = t
        d.back.p = t.end - W
        if d.spare == NULL:
            d.spare = c
        else:
            free(c)
            d.nchunks -= 1
    else:
        d.back.p -= W
    d.n -= 1


cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot* slot
    s.count += 1
    agg = comb(pi_b_g(s), v)  # before the push: a raise here changes nothing
    slot = dq_push(&s.d, 2)
    if slot == NULL:
        raise MemoryError()
    slot_put(&slot[0], v)
    slot_put(&slot[1], agg)
    try:
        st_fixup_g(s, s.d.front, comb)
    except BaseException:
        slot_clear(&slot[0])  # fixup changed nothing: drop the pushed element
        slot_clear(&slot[1])
        dq_unpush(&s.d, 2)
        raise
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    cdef PyObject* val
    cdef PyObject* agg
    st_fixup_g(s, p_inc(s.d.front, 2), comb)  # raises before any change
    val = s.d.front.p[0].o
    agg = s.d.front.p[1].o
    s.d.front.p[0].o = NULL
    s.d.front.p[1].o = NULL
    dq_pop(&s.d, 2)
    Py_XDECREF(val)  # released after the pop (a value's __del__ sees a consistent state)
    Py_XDECREF(agg)
    return 0


cdef object st_query_g(State* s, object comb):
    s.count += 1
    return comb(pi_f_g(s), pi_b_g(s))


include "_swag_shell.pxi"


cdef class DABA(SWAGShell):
    """DABA(monoid)
--

DABA SWAG (id ``daba``), compiled: worst-case O(1) ⊗ per operation, 2n partial aggregates
    (paper 000 §5, Theorem 5.2).

    Typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots, ``combine_count``, exception safety (strong: every ⊗ of an
    operation is computed before anything changes) and the re-entry guard are those of
    :class:`swagkit.reference.DABA`; copies and pickles go by snapshot.
    """

    algorithm = "daba"

    def snapshot(self) -> DABAState:
        """:class:`~swagkit.spec.snapshots.DABAState`, pointers as offsets from F, values as Python
        objects."""
        cdef Deque* d = &self.st.d
        cdef Ptr p
        self._enter("snapshot")
        try:
            p = d.front
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
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The shape is
        checked first (``F = 0 ≤ L ≤ R ≤ A ≤ B ≤ E = n`` with DABA's size invariants, else
        ``ValueError``/``TypeError``); typed values are validated like ``insert``."""
        cdef DABA agg
        cdef State* s
        cdef Slot* slot
        cdef Slot x, y
        cdef Py_ssize_t i, k, oL, oR, oA, oB
        _check_snapshot(snapshot)
        agg = cls(monoid)
        s = &agg.st
        oL, oR, oA, oB = snapshot.L, snapshot.R, snapshot.A, snapshot.B
        for i, (val, a) in enumerate(zip(snapshot.vals, snapshot.aggs)):
            agg._store(&x, val)  # validated before the slots exist (nothing half-written on a refusal)
            try:
                agg._store(&y, a)
            except BaseException:
                agg._release(&x)
                raise
            slot = dq_push(&s.d, 2)
            if slot == NULL:
                agg._release(&x)
                agg._release(&y)
                raise MemoryError()
            slot[0] = x
            slot[1] = y
            k = i + 1  # pointers at offset k address the current end (offset 0: the front, as initialized)
            if oL == k:
                s.L = s.d.back
            if oR == k:
                s.R = s.d.back
            if oA == k:
                s.A = s.d.back
            if oB == k:
                s.B = s.d.back
        return agg

    @property
    def last_case(self):
        """Name of the last fixup case (``singleton``, ``flip+shrink`` …), as in the reference."""
        return _CASES[self.st.last_case]

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the chunk storage (chunks with headers, including the spare chunk)."""
        return dq_bytes(&self.st.d, 2)


document_costs(
    query="``ΠF ⊗ ΠB``, lowered. One ⊗.",
    insert="``deque.pushBack(v, ΠB ⊗ v); E ← E + 1; fixup()``. At most 4 ⊗.",
    evict="``F ← F + 1; deque.popFront(); fixup()``. At most 3 ⊗.",
)
