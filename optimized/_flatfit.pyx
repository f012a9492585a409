# cython: language_level=3, annotation_typing=False
"""FlatFIT, compiled (papers 001 §2 and §4, 000 §7 and §8.1), resizable variant.

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.flatfit` (whose docstring lists the
choices the papers leave open): two circular arrays ``Partials`` and ``Pointers`` of ``capacity`` slots (a power
of two, doubled when an insert finds them full, halved when an evict leaves them a quarter full or less, the
pointers re-based so the stitched ranges are unchanged) and the reused index stack ``Positions``. Slot ``i`` with
pointer ``j`` holds ``v_i ⊗ … ⊗ v_(j−1)``. ``insert`` and ``evict`` call no ⊗; ``query`` follows the pointers
from ``head`` to ``tail`` pushing slots on ``Positions`` and pops them, stitching each range up to ``tail``: one
⊗ per pushed slot, at most n − 1, amortized O(1).

Typed kinds store one C double / int64 per slot plus two ``Py_ssize_t`` (its pointer and a stack entry).

Hardening (issue 12), as the reference (its module docstring, choice 5): exception safety *strong* (a generic
query stitches its ranges aside and writes them only when its last ⊗ has returned; typed ⊗ cannot fail), a
re-entry guard on every public method (``busy``: refused before any change), every value validated before a
bulk insert changes anything, and copies/pickles by snapshot (validated by ``check_snapshot``, so a malformed
one raises instead of leaving pointers a traversal could loop on).
"""

include "_common.pxi"

from cpython.pyport cimport PY_SSIZE_T_MAX

from swagkit.spec.snapshots import FlatFITState
from swagkit.reference.flatfit import check_snapshot as _check_snapshot

cdef enum:
    MIN_CAPACITY = 2

ctypedef struct State:
    Slot* partials       # Partials, ``cap`` slots
    Py_ssize_t* pointers  # Pointers, ``cap`` slots (-1 outside the window)
    Py_ssize_t* positions  # Positions, the index stack (``cap`` slots; at most n − 1 used)
    Py_ssize_t top       # number of indices on Positions
    Py_ssize_t cap
    Py_ssize_t head
    Py_ssize_t tail
    Py_ssize_t n
    Slot one
    int64_t count
    bint busy            # inside a public method (the re-entry guard)


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.n


cdef int st_alloc(State* s, Py_ssize_t cap) noexcept nogil:
    """Allocate empty arrays of ``cap`` slots into ``s`` (fields left untouched on failure, or when ``cap`` slots
    of 8 bytes would overflow malloc's byte count)."""
    cdef Slot* p
    cdef Py_ssize_t* q
    cdef Py_ssize_t* r
    cdef Py_ssize_t i
    if cap < 1 or cap > PY_SSIZE_T_MAX // 16:
        return -1
    p = <Slot*>malloc(cap * sizeof(Slot))
    q = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    r = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    if p == NULL or q == NULL or r == NULL:
        free(p)
        free(q)
        free(r)
        return -1
    for i in range(cap):
        p[i].o = NULL
        q[i] = -1
    s.partials = p
    s.pointers = q
    s.positions = r
    s.cap = cap
    return 0


cdef int st_init(State* s, int kind, Slot one) noexcept:
    s.partials = NULL
    if st_alloc(s, MIN_CAPACITY) < 0:
        return -1
    s.top = 0
    s.head = 0
    s.tail = 0
    s.n = 0
    s.one = one
    s.count = 0
    s.busy = False
    return 0


cdef void st_free(State* s, int kind) noexcept:
    cdef Py_ssize_t k
    if s.partials == NULL:
        return
    if kind == K_GENERIC:
        for k in range(s.n):
            slot_clear(&s.partials[(s.head + k) & (s.cap - 1)])
    free(s.partials)
    free(s.pointers)
    free(s.positions)
    s.partials = NULL


cdef int st_resize(State* s, Py_ssize_t new_cap) noexcept nogil:
    """Move the live slots to ``0 … n−1`` of new arrays, re-basing each pointer by the same shift (references
    of generic slots move with them). -1 (nothing changed) when out of memory."""
    cdef State t = s[0]
    cdef Py_ssize_t k, i, skip, cap = s.cap
    if st_alloc(&t, new_cap) < 0:
        return -1
    for k in range(s.n):
        i = (s.head + k) & (cap - 1)
        skip = ((s.pointers[i] - i - 1) & (cap - 1)) + 1
        t.partials[k] = s.partials[i]
        t.pointers[k] = (k + skip) & (new_cap - 1)
    free(s.partials)
    free(s.pointers)
    free(s.positions)
    t.head = 0
    t.tail = s.n & (new_cap - 1)
    s[0] = t
    return 0


cdef inline int st_put(State* s, Slot v) noexcept nogil:
    """Write ``v`` at ``tail`` with a pointer to its successor, growing a full buffer first."""
    cdef Py_ssize_t t, nxt
    if SWAG_UNLIKELY(s.n == s.cap):
        if s.cap > PY_SSIZE_T_MAX // 32 or st_resize(s, 2 * s.cap) < 0:
            return -1
    t = s.tail
    nxt = (t + 1) & (s.cap - 1)
    s.partials[t] = v
    s.pointers[t] = nxt
    s.tail = nxt
    s.n += 1
    return 0


cdef inline void st_drop(State* s) noexcept nogil:
    """Drop the slot at ``head`` (its reference, if any, already released); shrink when a quarter full."""
    cdef Py_ssize_t h = s.head
    s.partials[h].o = NULL
    s.pointers[h] = -1
    s.head = (h + 1) & (s.cap - 1)
    s.n -= 1
    if s.cap > MIN_CAPACITY and s.n <= s.cap // 4:
        st_resize(s, s.cap // 2)  # out of memory: keep the larger buffer (still correct)


# ---------------------------------------------------------------------------------------------------- typed

cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept nogil:
    return st_put(s, v)


cdef inline void st_evict_t(State* s, int kind) noexcept nogil:
    st_drop(s)


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    if s.n == 0:
        return s.one
    return st_stitch_from_t(s, kind, s.head)


cdef inline Slot st_stitch_from_t(State* s, int kind, Py_ssize_t start) noexcept nogil:
    """Follow the pointers from ``start`` to ``tail``, then stitch the pushed slots (one ⊗ each)."""
    cdef Py_ssize_t i, j, tail = s.tail, top = 0
    cdef Slot acc
    cdef Slot* P = s.partials
    cdef Py_ssize_t* Q = s.pointers
    cdef Py_ssize_t* stack = s.positions
    i = start
    while Q[i] != tail:
        stack[top] = i
        top += 1
        i = Q[i]
    acc = P[i]
    while top > 0:
        top -= 1
        j = stack[top]
        s.count += 1
        acc = tcomb(kind, P[j], acc)
        P[j] = acc
        Q[j] = tail
    return acc


# -------------------------------------------------------------------------------------------------- generic
# The callers hold the re-entry guard (``busy``) around these.

cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot slot
    Py_INCREF(v)
    slot.o = <PyObject*>v
    if st_put(s, slot) < 0:
        Py_XDECREF(slot.o)
        raise MemoryError()
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    cdef PyObject* old
    old = s.partials[s.head].o
    st_drop(s)
    Py_XDECREF(old)  # after the state is whole
    return 0


cdef object st_stitch_from_g(State* s, object comb, Py_ssize_t start):
    """``st_stitch_from_t`` for a generic ⊗, strongly exception safe: the pushed slots' stitched aggregates are
    computed first, in the pop order (the same ⊗ calls), and written with their pointers to ``tail`` only when
    the last ⊗ has returned; Positions is emptied in any case."""
    cdef Py_ssize_t i, j, t, tail = s.tail
    try:
        i = start
        while s.pointers[i] != tail:
            s.positions[s.top] = i
            s.top += 1
            i = s.pointers[i]
        acc = slot_get(s.partials[i])
        stitched = []
        for t in range(s.top - 1, -1, -1):
            j = s.positions[t]
            s.count += 1
            acc = comb(slot_get(s.partials[j]), acc)
            stitched.append(acc)
        for t in range(len(stitched)):
            j = s.positions[s.top - 1 - t]
            slot_set(&s.partials[j], stitched[t])  # the old partial stays alive in no list: __del__ is refused
            s.pointers[j] = tail
    finally:
        s.top = 0
    return acc


cdef object st_query_g(State* s, object comb):
    if s.n == 0:
        return slot_get(s.one)
    return st_stitch_from_g(s, comb, s.head)


include "_swag_shell.pxi"


def _window_array_clamped(cls, monoid, values, window):
    """``_window_array`` with a window beyond ``Py_ssize_t`` clamped (such a window is never reached)."""
    return _window_array(cls, monoid, values, window if window < PY_SSIZE_T_MAX else PY_SSIZE_T_MAX)


cdef class FlatFIT(SWAGShell):
    """FlatFIT(monoid)
--

FlatFIT SWAG (id ``flatfit``), resizable, compiled: no ⊗ on insert/evict, at most n − 1 (amortized O(1)) per
    query; n partial aggregates and n pointers in a buffer of at most max(2, 4n) slots (papers 001 §2, 000 §7).

    Typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots, ``combine_count``, exception safety (strong) and the
    re-entry guard are those of :class:`swagkit.reference.FlatFIT`; copies and pickles go by snapshot.
    """

    cdef bint inited

    algorithm = "flatfit"

    def __init__(self, monoid):
        """(The structure is built by ``__cinit__``; a second ``__init__`` is refused like the reference's.)"""
        if self.inited:
            raise TypeError("flatfit: __init__ called on an initialized structure")
        self.inited = True

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` elements, lowered: :meth:`query`'s traversal started ``min(r, n)`` slots
        before ``tail``. At most ``min(r, n) − 1`` ⊗."""
        cdef Slot v
        cdef Py_ssize_t start, k
        self._enter("query_range")
        try:
            if isinstance(r, bool) or not isinstance(r, int) or r < 1:
                raise ValueError(f"range must be an int ≥ 1, got {r!r}")
            if self.st.n == 0:
                return self._lower(self.monoid.identity)
            k = self.st.n if r >= self.st.n else <Py_ssize_t>r  # (a Python int r may exceed Py_ssize_t)
            start = (self.st.tail - k + self.st.cap) % self.st.cap  # C's % keeps the sign: stay non-negative
            if self.kind != K_GENERIC:
                v = st_stitch_from_t(&self.st, self.kind, start)
                return box(self.kind, v) if self.lower_id else self._lower(box(self.kind, v))
            return self._lower(st_stitch_from_g(&self.st, self._combine, start))
        finally:
            self.st.busy = False

    def snapshot(self) -> FlatFITState:
        """:class:`~swagkit.spec.snapshots.FlatFITState`: the physical circular arrays (``None``/``-1`` outside
        the window), values as Python objects."""
        cdef State* s = &self.st
        cdef Py_ssize_t i, k, cap = s.cap
        self._enter("snapshot")
        try:
            partials = [None] * cap
            pointers = [-1] * cap
            for k in range(s.n):
                i = (s.head + k) & (cap - 1)
                partials[i] = self._val(s.partials[i])
                pointers[i] = s.pointers[i]
            return FlatFITState(
                capacity=cap,
                partials=tuple(partials),
                pointers=tuple(pointers),
                head=s.head,
                tail=s.tail,
                size=s.n,
                positions=tuple([s.positions[k] for k in range(s.top)]),
            )
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The snapshot is
        checked like the reference's (``check_snapshot``: ``ValueError``/``TypeError``), typed values like
        ``insert``."""
        cdef FlatFIT agg
        cdef State t
        cdef State* s
        cdef Py_ssize_t k, i, cap
        snap = _check_snapshot(snapshot)
        agg = cls(monoid)
        s = &agg.st
        cap = snap.capacity
        if cap != s.cap:
            t = s[0]
            if st_alloc(&t, cap) < 0:
                raise MemoryError()
            free(s.partials)
            free(s.pointers)
            free(s.positions)
            s[0] = t
        s.head = snap.head
        s.tail = snap.head  # grows as the live slots are filled (the state stays whole for __dealloc__)
        for k in range(snap.size):
            i = (snap.head + k) % cap
            agg._store(&s.partials[i], snap.partials[i])
            s.pointers[i] = snap.pointers[i]
            s.n = k + 1
        s.tail = snap.tail
        return agg

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the three arrays (``capacity`` slots of a value, a pointer and a stack entry)."""
        return self.st.cap * (sizeof(Slot) + 2 * sizeof(Py_ssize_t))


document_costs(
    query="Traverse from ``head`` by the pointers, pushing slots onto ``Positions``; pop them, stitching each "
          "range up to ``tail``. One ⊗ per pushed slot (at most n − 1).",
    insert="Write v at ``tail`` with a pointer to its successor (growing a full buffer first). No ⊗.",
    evict="Drop the slot at ``head`` (shrinking when a quarter full or less). No ⊗.",
)
