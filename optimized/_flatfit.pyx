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
"""

include "_common.pxi"

from swagkit.spec.errors import SwagkitError
from swagkit.spec.snapshots import FlatFITState

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
    bint busy            # generic path: inside a query (guards against re-entry from combine)


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.n


cdef int st_alloc(State* s, Py_ssize_t cap) noexcept nogil:
    """Allocate empty arrays of ``cap`` slots into ``s`` (fields left untouched on failure)."""
    cdef Slot* p = <Slot*>malloc(cap * sizeof(Slot))
    cdef Py_ssize_t* q = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    cdef Py_ssize_t* r = <Py_ssize_t*>malloc(cap * sizeof(Py_ssize_t))
    cdef Py_ssize_t i
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
        if st_resize(s, 2 * s.cap) < 0:
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

cdef int st_enter_g(State* s) except -1:
    if s.busy:
        raise SwagkitError("flatfit: the aggregator was re-entered from a combine call during a query")
    return 0


cdef int st_insert_g(State* s, object v) except -1:
    cdef Slot slot
    st_enter_g(s)
    Py_INCREF(v)
    slot.o = <PyObject*>v
    if st_put(s, slot) < 0:
        Py_XDECREF(slot.o)
        raise MemoryError()
    return 0


cdef int st_evict_g(State* s) except -1:
    cdef PyObject* old
    st_enter_g(s)
    old = s.partials[s.head].o
    st_drop(s)
    Py_XDECREF(old)
    return 0


cdef object st_query_g(State* s, object comb):
    return st_stitch_from_g(s, comb, s.head)


cdef object st_stitch_from_g(State* s, object comb, Py_ssize_t start):
    cdef Py_ssize_t i, j, tail
    st_enter_g(s)
    tail = s.tail
    s.busy = True
    try:
        i = start
        while s.pointers[i] != tail:
            s.positions[s.top] = i
            s.top += 1
            i = s.pointers[i]
        acc = slot_get(s.partials[i])
        while s.top > 0:
            j = s.positions[s.top - 1]
            s.count += 1
            acc = comb(slot_get(s.partials[j]), acc)
            slot_set(&s.partials[j], acc)
            s.pointers[j] = tail
            s.top -= 1
    finally:
        s.top = 0
        s.busy = False
    return acc


include "_template.pxi"


cdef class FlatFIT:
    """FlatFIT(monoid)
--

FlatFIT SWAG (id ``flatfit``), resizable, compiled: no ⊗ on insert/evict, at most n − 1 (amortized O(1)) per
    query; n partial aggregates and n pointers in a buffer of at most max(2, 4n) slots (papers 001 §2, 000 §7).

    Typed monoids (``monoid.kind`` in sum/max/min × f64/i64) run without any Python call per ⊗; any other
    monoid calls ``monoid.combine``. API, snapshots and ``combine_count`` are those of
    :class:`swagkit.reference.FlatFIT`.
    """

    cdef State st
    cdef int kind
    cdef bint lower_id
    cdef readonly object monoid
    cdef object _identity
    cdef object _combine
    cdef object _lift
    cdef object _lower

    algorithm = "flatfit"

    def __cinit__(self, monoid):
        cdef Slot one
        one.o = NULL
        self.kind = choose_kind(monoid, &one)
        self.monoid = monoid
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._lower = monoid.lower
        self._identity = monoid.identity
        self.lower_id = _lower_is_identity(monoid)
        if st_init(&self.st, self.kind, one) < 0:
            raise MemoryError()

    def __dealloc__(self):
        st_free(&self.st, self.kind)

    def query(self) -> Any:
        """Traverse from ``head`` by the pointers, pushing slots onto ``Positions``; pop them, stitching each range
        up to ``tail``. One ⊗ per pushed slot (at most n − 1)."""
        cdef Slot r
        if self.kind != K_GENERIC:
            r = st_query_t(&self.st, self.kind)
            if self.lower_id:
                return box(self.kind, r)
            return self._lower(box(self.kind, r))
        st_enter_g(&self.st)
        if self.st.n == 0:
            return self._lower(self._identity)
        return self._lower(st_query_g(&self.st, self._combine))

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` elements, lowered: :meth:`query`'s traversal started ``min(r, n)`` slots
        before ``tail``. At most ``min(r, n) − 1`` ⊗."""
        cdef Slot v
        cdef Py_ssize_t start, k
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"range must be an int ≥ 1, got {r!r}")
        if self.kind == K_GENERIC:
            st_enter_g(&self.st)
        if self.st.n == 0:
            return self._lower(self._identity)
        k = self.st.n if r >= self.st.n else <Py_ssize_t>r  # (a Python int r may exceed Py_ssize_t)
        start = (self.st.tail - k + self.st.cap) % self.st.cap  # C's % keeps the sign: stay non-negative
        if self.kind != K_GENERIC:
            v = st_stitch_from_t(&self.st, self.kind, start)
            if self.lower_id:
                return box(self.kind, v)
            return self._lower(box(self.kind, v))
        return self._lower(st_stitch_from_g(&self.st, self._combine, start))

    def insert(self, value: Any) -> None:
        """Write v at ``tail`` with a pointer to its successor (growing a full buffer first). No ⊗.

        Typed kinds validate ``value`` like ``as_f64``/``as_i64`` before anything changes."""
        cdef Slot v
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            if st_insert_t(&self.st, v, self.kind) < 0:
                raise MemoryError()
        else:
            st_enter_g(&self.st)
            st_insert_g(&self.st, self._lift(value))

    def evict(self) -> None:
        """Drop the slot at ``head`` (shrinking when a quarter full or less). No ⊗. Raises ``EmptyWindowError``
        when empty."""
        if self.kind == K_GENERIC:
            st_enter_g(&self.st)
        if self.st.n == 0:
            raise EmptyWindowError("flatfit: evict() on an empty window")
        if self.kind != K_GENERIC:
            st_evict_t(&self.st, self.kind)
        else:
            st_evict_g(&self.st)

    def __len__(self) -> int:
        return self.st.n

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same state as that many ``insert`` calls); the loop runs in C,
        over the raw buffer for ``array.array``/``memoryview`` input of a typed kind."""
        if self.kind != K_GENERIC:
            _insert_many_typed(&self.st, self.kind, values)
            return
        lift = self._lift
        for x in values:
            st_enter_g(&self.st)
            st_insert_g(&self.st, lift(x))

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest values in a C loop. Raises ``EmptyWindowError`` (evicting nothing) when
        fewer than ``count`` are held and ``ValueError`` for a negative count."""
        cdef Py_ssize_t i, k
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.st.n:
            raise EmptyWindowError(f"flatfit: evict_many({count}) on a window of {self.st.n}")
        k = count
        if self.kind != K_GENERIC:
            for i in range(k):
                st_evict_t(&self.st, self.kind)
        else:
            for i in range(k):
                st_evict_g(&self.st)

    def snapshot(self) -> FlatFITState:
        """:class:`~swagkit.spec.snapshots.FlatFITState`: the physical circular arrays (``None``/``-1`` outside
        the window), values as Python objects."""
        cdef State* s = &self.st
        cdef Py_ssize_t i, k, cap = s.cap
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

    cdef object _val(self, Slot v):
        if self.kind != K_GENERIC:
            return box(self.kind, v)
        return slot_get(v)

    @property
    def combine_count(self):
        """Number of ⊗ invocations so far, counted as the pseudocode performs them."""
        return self.st.count

    @combine_count.setter
    def combine_count(self, value):
        self.st.count = value

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the three arrays (``capacity`` slots of a value, a pointer and a stack entry)."""
        return self.st.cap * (sizeof(Slot) + 2 * sizeof(Py_ssize_t))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
