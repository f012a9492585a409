# cython: language_level=3, annotation_typing=False
"""Two-Stacks Lite, compiled (paper 000 §4).

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.two_stacks_lite`: one deque with pointers
F ≤ B ≤ E; the front sublist lF = [F, B) holds suffix aggregates, the back sublist lB = [B, E) plain values with
their aggregate in ``aggB``. Evicting from an empty lF flips lB in place.

Complexity (Theorem 4.2): n+1 stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once. Pointer operations are worst-case O(1) on a chunked array
(Definition 1). Typed kinds store 8 bytes per element in chunks of 512 (plus one spare chunk).

Exception safety: *strong*, like the reference. ``insert`` computes ``aggB ⊗ v`` before it pushes ``v``; the
generic flip computes lB's suffix aggregates aside (a transient list of up to n−1 references, freed when
``evict`` returns) and writes them into the deque only when its last ⊗ has returned. Typed kinds cannot fail
mid-operation (their flip stays in place, no extra memory). Every public method that reads the state or calls
user code takes the re-entry guard (``busy``) first, so a re-entrant or concurrent call raises
``ReentrantCallError`` before anything changes; the structure is not thread-safe. Copies and pickles go by
snapshot.
"""

include "_common.pxi"

from swagkit.spec.snapshots import TwoStacksLiteState
from swagkit.reference.two_stacks_lite import check_snapshot as _check_snapshot

ctypedef struct State:
    Deque d          # d.front is F, d.back is E
    Ptr B
    Slot aggB
    Slot one
    int64_t count
    bint busy        # a public method is running (the re-entry guard: combine/lift/lower/__del__, threads)


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
# The callers hold the re-entry guard (``busy``) around these; each leaves the state exactly as it was when
# ``comb`` raises (strong exception safety, like the reference).

cdef inline void st_pop_g(State* s) noexcept:
    """Pop the front and only then release its reference (a value's ``__del__`` sees a consistent state)."""
    cdef PyObject* old = s.d.front.p[0].o
    s.d.front.p[0].o = NULL
    dq_pop(&s.d, 1)
    Py_XDECREF(old)


cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot* slot
    s.count += 1
    r = comb(slot_get(s.aggB), v)  # line 5 before the push (no ⊗ in between): a raise here changes nothing
    slot = dq_push(&s.d, 1)
    if slot == NULL:
        raise MemoryError()
    slot_put(slot, v)
    slot_set(&s.aggB, r)
    return 0


cdef int st_flip_g(State* s, object comb) except -1:
    """Flip (lines 10–15): ``*I ← *I ⊗ *(I+1)`` for I = E−2 … F. Each ⊗ reads the previous result, so the
    results go to a list first (up to n−1 references) and into the deque only once the last ⊗ returned."""
    cdef Ptr i = p_dec(s.d.back, 1)
    cdef Py_ssize_t k
    acc = slot_get(i.p[0])
    suffixes = []
    while i.p != s.d.front.p:
        i = p_dec(i, 1)
        s.count += 1
        acc = comb(slot_get(i.p[0]), acc)
        suffixes.append(acc)
    i = p_dec(s.d.back, 1)  # every ⊗ returned: commit; the list takes the overwritten values, released on
    for k in range(len(suffixes)):  # return (when the state is consistent again)
        i = p_dec(i, 1)
        old = slot_get(i.p[0])
        slot_set(i.p, suffixes[k])
        suffixes[k] = old
    old = slot_get(s.aggB)
    s.B = s.d.back
    slot_set(&s.aggB, slot_get(s.one))
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    if s.d.front.p == s.B.p and s.B.p != s.d.back.p:
        st_flip_g(s, comb)
    st_pop_g(s)
    return 0


cdef object st_query_g(State* s, object comb):
    pi_f = slot_get(s.one) if s.d.front.p == s.B.p else slot_get(s.d.front.p[0])
    s.count += 1
    return comb(pi_f, slot_get(s.aggB))


include "_swag_shell.pxi"


cdef class TwoStacksLite(SWAGShell):
    """TwoStacksLite(monoid)
--

Two-Stacks Lite SWAG (id ``two_stacks_lite``), compiled: amortized O(1), worst-case O(n) ⊗ per operation,
    n+1 partial aggregates (paper 000 §4, Theorem 4.2).

    Typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots, ``combine_count``, exception safety (strong: the flip
    computes its suffix aggregates aside, up to n−1 transient references, before writing them) and the
    re-entry guard are those of :class:`swagkit.reference.TwoStacksLite`; copies and pickles go by snapshot.
    """

    algorithm = "two_stacks_lite"

    def snapshot(self) -> TwoStacksLiteState:
        """:class:`~swagkit.spec.snapshots.TwoStacksLiteState`, pointers as offsets from F, values as Python
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
            return TwoStacksLiteState(
                deque=tuple(items),
                F=0,
                B=p_off(d, self.st.B, 1),
                E=p_off(d, d.back, 1),
                aggB=self._val(self.st.aggB),
            )
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The shape is
        checked first (``F = 0 ≤ B ≤ E = len(deque)``, else ``ValueError``/``TypeError``); typed values are
        validated like ``insert``."""
        cdef TwoStacksLite agg
        cdef State* s
        cdef Slot* slot
        cdef Slot x
        cdef Py_ssize_t i, nb
        _check_snapshot(snapshot)
        agg = cls(monoid)
        s = &agg.st
        nb = snapshot.B
        for i, val in enumerate(snapshot.deque):
            agg._store(&x, val)  # validated before the slot exists (nothing half-written on a refusal)
            slot = dq_push(&s.d, 1)
            if slot == NULL:
                agg._release(&x)
                raise MemoryError()
            slot[0] = x
            if i + 1 == nb:
                s.B = s.d.back
        agg._store(&x, snapshot.aggB)
        agg._release(&s.aggB)
        s.aggB = x
        return agg

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the chunk storage (chunks with headers, including the spare chunk)."""
        return dq_bytes(&self.st.d, 1)


document_costs(
    query="``ΠF ⊗ aggB``, lowered. One ⊗.",
    insert="Push v onto lB and fold it into aggB. One ⊗ (computed before the push: a value that ``combine`` refuses changes nothing).",
    evict="Pop the front; if lF is empty, first flip lB into suffix aggregates in place. At most n ⊗, amortized one.",
)
