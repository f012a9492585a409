# cython: language_level=3, annotation_typing=False
"""DABA Lite, compiled (paper 000 §6).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.daba_lite`: one deque of partial
aggregates, pointers F ≤ L ≤ R ≤ A ≤ B ≤ E and the two aggregates ``aggRA`` and ``aggB``; ``fixup`` runs one of
singleton, [flip], shift or shrink after each insert and evict.

Complexity (Theorem 6.2): n+2 stored partial aggregates; worst-case ⊗ per operation: query 1, insert 3, evict 2
(on average 2 per insert and 1 per evict); pointer operations worst-case O(1) on a chunked array
(Definition 1). Typed kinds store 8 bytes per element in chunks of 512 (plus one spare chunk).

Exception safety: *strong*, like the reference. Every operation makes O(1) ⊗ calls and the generic path computes
them all before it changes anything: ``insert`` computes ``aggB ⊗ v`` before the push; ``fixup`` works out its
case on local copies of the pointers and of ``aggRA``/``aggB``, and computes shrink's two ⊗ before it writes
``*L`` and ``*(A−1)`` and moves the pointers; ``evict`` pops the front only after ``fixup`` has returned, and
``insert`` undoes its push if ``fixup`` raises. No transient memory. Typed kinds cannot fail mid-operation. Every
public method that reads the state or calls user code takes the re-entry guard (``busy``) first -- before
insert's first ⊗ --, so a re-entrant or concurrent call raises ``ReentrantCallError`` before anything changes;
the structure is not thread-safe. Copies and pickles go by snapshot.
"""

include "_common.pxi"

from swagkit.spec.snapshots import DABALiteState
from swagkit.reference.daba_lite import check_snapshot as _check_snapshot

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
    bint busy        # a public method is running (the re-entry guard: combine/lift/lower/__del__, threads)


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
    s.busy = False
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

cdef int st_fixup_g(State* s, Ptr F, object aggB, object comb) except -1:
    """``fixup`` for the window whose front is ``F`` and whose ``aggB`` is ``aggB`` (``evict`` passes F+1 before
    it pops; ``insert`` its new aggB). The case is worked out on local copies of the pointers and aggregates,
    and shrink's two ⊗ are computed before any field is written: when ``comb`` raises, nothing has changed."""
    cdef bint flip = False
    cdef Ptr L = s.L, R = s.R, A = s.A, B = s.B, E = s.d.back, am1
    one = slot_get(s.one)
    if F.p == B.p:  # singleton
        s.B = E
        s.A = E
        s.R = E
        s.L = E
        old_ra = slot_get(s.aggRA)  # released on return, when the state is consistent
        old_b = slot_get(s.aggB)
        slot_set(&s.aggRA, one)
        slot_set(&s.aggB, one)
        s.last_case = C_SINGLETON
        return 0
    aggRA = slot_get(s.aggRA)
    if L.p == B.p:  # flip
        L = F
        A = E
        B = E
        aggRA = aggB
        aggB = one
        flip = True
    if L.p == R.p:  # shift
        s.A = p_inc(A, 1)
        s.R = p_inc(R, 1)
        s.L = p_inc(L, 1)
        s.B = B
        s.last_case = C_FLIP_SHIFT if flip else C_SHIFT
    else:  # shrink: *L ← ΠL ⊗ aggRA; L ← L + 1; *(A−1) ← *(A−1) ⊗ ΠA; A ← A − 1  (A−1 ≠ L)
        am1 = p_dec(A, 1)
        s.count += 1
        new_l = comb(slot_get(L.p[0]), aggRA)
        s.count += 1
        new_am1 = comb(slot_get(am1.p[0]), one if A.p == B.p else slot_get(A.p[0]))
        old_l = slot_get(L.p[0])  # every ⊗ returned: commit
        slot_set(L.p, new_l)
        old_am1 = slot_get(am1.p[0])
        slot_set(am1.p, new_am1)
        s.L = p_inc(L, 1)
        s.R = R
        s.A = am1
        s.B = B
        s.last_case = C_FLIP_SHRINK if flip else C_SHRINK
    old_ra = slot_get(s.aggRA)
    old_b = slot_get(s.aggB)
    slot_set(&s.aggRA, aggRA)
    slot_set(&s.aggB, aggB)
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
    r = comb(slot_get(s.aggB), v)  # line 9 before the push (no ⊗ in between): a raise here changes nothing
    slot = dq_push(&s.d, 1)
    if slot == NULL:
        raise MemoryError()
    slot_put(slot, v)
    try:
        st_fixup_g(s, s.d.front, r, comb)  # commits aggB (r, or its successor after a flip/singleton)
    except BaseException:
        slot_clear(slot)  # fixup changed nothing: drop the pushed value
        dq_unpush(&s.d, 1)
        raise
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    cdef PyObject* old
    st_fixup_g(s, p_inc(s.d.front, 1), slot_get(s.aggB), comb)  # raises before any change
    old = s.d.front.p[0].o
    s.d.front.p[0].o = NULL
    dq_pop(&s.d, 1)
    Py_XDECREF(old)  # released after the pop (a value's __del__ sees a consistent state)
    return 0


cdef object st_query_g(State* s, object comb):
    pi_f = slot_get(s.one) if s.d.front.p == s.B.p else slot_get(s.d.front.p[0])
    s.count += 1
    return comb(pi_f, slot_get(s.aggB))


include "_swag_shell.pxi"


cdef class DABALite(SWAGShell):
    """DABALite(monoid)
--

DABA Lite SWAG (id ``daba_lite``), compiled: worst-case O(1) ⊗ per operation, n+2 partial aggregates
    (paper 000 §6, Theorem 6.2).

    Typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots, ``combine_count``, exception safety (strong: every ⊗ of an
    operation is computed before anything changes) and the re-entry guard are those of
    :class:`swagkit.reference.DABALite`; copies and pickles go by snapshot.
    """

    algorithm = "daba_lite"

    def snapshot(self) -> DABALiteState:
        """:class:`~swagkit.spec.snapshots.DABALiteState`, pointers as offsets from F, values as Python
        objects."""
        cdef Deque* d = &self.st.d
        cdef Ptr p
        self._enter("snapshot")
        try:
            p = d.front
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
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The shape is
        checked first (``F = 0 ≤ L ≤ R ≤ A ≤ B ≤ E = len(deque)`` with DABA Lite's size invariants, else
        ``ValueError``/``TypeError``); typed values are validated like ``insert``."""
        cdef DABALite agg
        cdef State* s
        cdef Slot* slot
        cdef Slot x, y
        cdef Py_ssize_t i, k, oL, oR, oA, oB
        _check_snapshot(snapshot)
        agg = cls(monoid)
        s = &agg.st
        oL, oR, oA, oB = snapshot.L, snapshot.R, snapshot.A, snapshot.B
        for i, val in enumerate(snapshot.deque):
            agg._store(&x, val)  # validated before the slot exists (nothing half-written on a refusal)
            slot = dq_push(&s.d, 1)
            if slot == NULL:
                agg._release(&x)
                raise MemoryError()
            slot[0] = x
            k = i + 1  # pointers at offset k address the current end (offset 0: the front, as initialized)
            if oL == k:
                s.L = s.d.back
            if oR == k:
                s.R = s.d.back
            if oA == k:
                s.A = s.d.back
            if oB == k:
                s.B = s.d.back
        agg._store(&x, snapshot.aggRA)
        try:
            agg._store(&y, snapshot.aggB)
        except BaseException:
            agg._release(&x)
            raise
        agg._release(&s.aggRA)
        s.aggRA = x
        agg._release(&s.aggB)
        s.aggB = y
        return agg

    @property
    def last_case(self):
        """Name of the last fixup case (``singleton``, ``flip+shrink`` …), as in the reference."""
        return _CASES[self.st.last_case]

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the chunk storage (chunks with headers, including the spare chunk)."""
        return dq_bytes(&self.st.d, 1)


document_costs(
    query="``ΠF ⊗ aggB``, lowered. One ⊗.",
    insert="``deque.pushBack(v); E ← E + 1; aggB ← aggB ⊗ v; fixup()``. At most 3 ⊗ (the guard is taken before the first).",
    evict="``F ← F + 1; deque.popFront(); fixup()``. At most 2 ⊗.",
)
