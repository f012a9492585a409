# cython: language_level=3, annotation_typing=False
"""Subtract-on-Evict, compiled (paper 000 §8.3; paper 001 §2 "Panes (Inv)").

Same algorithm, state and ⊗ call sequence as :mod:`swagkit.reference.subtract_on_evict`: a FIFO of the window's
lifted values (a chunked deque) and one running aggregate ``agg``. ``insert(v)``: ``agg ← agg ⊗ v``;
``evict()``: ``agg ← inverse(v_1) ⊗ agg`` (the identity, with no ⊗, when it empties the window); ``query()``:
``agg``.

Complexity: worst-case 1 ⊗ per insert and evict, 0 per query; n values + 1 aggregate. Typed kinds store 8 bytes
per value in chunks of 512 (plus one spare chunk).

Invertible monoids only, refused at construction like the reference (``UnsupportedMonoidError``, same message):
of the typed kinds only ``sum_i64`` is a group (its inverse is the library's wrapping negation, ``0 − x`` modulo
2**64, and its ⊗ the wrapping addition of ``tcomb``), so it is the one typed fast path; ``sum_f64`` and the
max/min kinds are refused, by the constructor and by ``window_array``'s fast path alike.

Exception safety: *strong*, like the reference. The generic ``evict`` calls ``inverse`` and then ⊗ before it pops
anything; ``insert`` computes ``agg ⊗ v`` before it pushes. The typed path cannot fail mid-operation. Every public
method takes the re-entry guard (``busy``) first. Copies and pickles go by snapshot, with ``combine_count`` and
``inverse_count``.
"""

include "_common.pxi"

from cpython.pyport cimport PY_SSIZE_T_MAX

from swagkit.reference.subtract_on_evict import check_snapshot as _check_snapshot, require_group as _require_group
from swagkit.spec.checkers.subtract_on_evict import SubtractOnEvictState

ctypedef struct State:
    Deque d            # the values, oldest at d.front
    Slot agg           # v_1 ⊗ … ⊗ v_n
    Slot one
    PyObject* inverse  # the monoid's inverse (generic path; an owned reference, NULL until the class sets it)
    int64_t count
    int64_t inv_count  # calls of the inverse (typed: negations), one per ⊗ in evict
    bint busy          # a public method is running (the re-entry guard)


cdef inline Py_ssize_t st_len(State* s) noexcept nogil:
    return s.d.n


cdef int st_init(State* s, int kind, Slot one) noexcept:
    if dq_init(&s.d, 1) < 0:
        return -1
    s.one = one
    s.agg = one
    s.inverse = NULL
    s.count = 0
    s.inv_count = 0
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
        slot_clear(&s.agg)
    Py_XDECREF(s.inverse)
    s.inverse = NULL
    dq_free(&s.d)


# ---------------------------------------------------------------------------------------------------- typed
# Only sum_i64 reaches these at run time (the other kinds are refused); the bulk loops of _bulk.pxi instantiate
# them for every kind, hence a negation for each.

cdef inline Slot _tneg(int kind, Slot a) noexcept nogil:
    """``a⁻¹`` of a sum kind: the library's ``_neg64`` (wrapping) for sum_i64."""
    cdef Slot r
    if kind_is_f64(kind):
        r.f = -a.f
    else:
        r.i = <int64_t>(<uint64_t>0 - <uint64_t>a.i)
    return r


cdef inline int st_insert_t(State* s, Slot v, int kind) noexcept nogil:
    cdef Slot* slot = dq_push(&s.d, 1)
    if slot == NULL:
        return -1
    slot[0] = v
    s.count += 1
    s.agg = tcomb(kind, s.agg, v)
    return 0


cdef inline void st_evict_t(State* s, int kind) noexcept nogil:
    if s.d.n > 1:
        s.inv_count += 1
        s.count += 1
        s.agg = tcomb(kind, _tneg(kind, s.d.front.p[0]), s.agg)
    else:
        s.agg = s.one
    dq_pop(&s.d, 1)


cdef inline Slot st_query_t(State* s, int kind) noexcept nogil:
    return s.agg


# -------------------------------------------------------------------------------------------------- generic
# The callers hold the re-entry guard around these; each computes its ⊗ (and inverse) before changing anything.

cdef int st_insert_g(State* s, object v, object comb) except -1:
    cdef Slot* slot
    s.count += 1
    r = comb(slot_get(s.agg), v)
    slot = dq_push(&s.d, 1)
    if slot == NULL:
        raise MemoryError()
    slot_put(slot, v)
    slot_set(&s.agg, r)
    return 0


cdef int st_evict_g(State* s, object comb) except -1:
    cdef PyObject* old
    if s.d.n > 1:
        s.inv_count += 1
        inv = (<object>s.inverse)(slot_get(s.d.front.p[0]))
        s.count += 1
        r = comb(inv, slot_get(s.agg))
    else:
        r = slot_get(s.one)
    old = s.d.front.p[0].o  # pop, and only then release the value (its ``__del__`` sees a consistent state)
    s.d.front.p[0].o = NULL
    dq_pop(&s.d, 1)
    slot_set(&s.agg, r)
    Py_XDECREF(old)
    return 0


cdef object st_query_g(State* s, object comb):
    return slot_get(s.agg)


include "_swag_shell.pxi"


cdef class SubtractOnEvict(SWAGShell):
    """SubtractOnEvict(monoid)
--

Subtract-on-Evict SWAG (id ``subtract_on_evict``, paper 000 §8.3), compiled: worst-case 1 ⊗ per insert and
    evict, 0 per query, n+1 stored values; invertible monoids only (``UnsupportedMonoidError`` otherwise).

    ``sum_i64`` runs without any Python call per ⊗; any other group calls ``monoid.combine`` and
    ``monoid.inverse``. API, snapshots, ``combine_count``, ``inverse_count``, exception safety (strong) and the
    re-entry guard are those of :class:`swagkit.reference.SubtractOnEvict`; copies and pickles go by snapshot.
    """

    algorithm = "subtract_on_evict"

    def __cinit__(self, monoid):
        # the shell's __cinit__ has run (monoid checked, state initialized, freed by __dealloc__ on a refusal)
        inverse = _require_group(self.monoid)
        Py_INCREF(inverse)
        self.st.inverse = <PyObject*>inverse

    @property
    def inverse_count(self):
        """Number of ``inverse`` calls so far (one per evict that leaves the window non-empty)."""
        return self.st.inv_count

    @inverse_count.setter
    def inverse_count(self, value):
        self.st.inv_count = value

    def snapshot(self) -> SubtractOnEvictState:
        """:class:`~swagkit.spec.checkers.subtract_on_evict.SubtractOnEvictState`, values as Python objects."""
        cdef Deque* d = &self.st.d
        cdef Ptr p
        self._enter("snapshot")
        try:
            p = d.front
            items = []
            while p.p != d.back.p:
                items.append(self._val(p.p[0]))
                p = p_inc(p, 1)
            return SubtractOnEvictState(values=tuple(items), agg=self._val(self.st.agg))
        finally:
            self.st.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, inverse_count=0):
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). The shape is
        checked like the reference's (``ValueError``/``TypeError``); typed values are validated like ``insert``."""
        cdef SubtractOnEvict agg
        cdef State* s
        cdef Slot* slot
        cdef Slot x
        _check_snapshot(snapshot, inverse_count)
        agg = cls(monoid)
        s = &agg.st
        for val in snapshot.values:
            agg._store(&x, val)  # validated before the slot exists (nothing half-written on a refusal)
            slot = dq_push(&s.d, 1)
            if slot == NULL:
                agg._release(&x)
                raise MemoryError()
            slot[0] = x
        agg._store(&x, snapshot.agg)
        agg._release(&s.agg)
        s.agg = x
        s.inv_count = inverse_count
        return agg

    def __reduce__(self):
        return (_restore, (type(self), self.monoid, {"inverse_count": self.st.inv_count}, self.snapshot(),
                           self.st.count))

    def __copy__(self):
        return _restore(type(self), self.monoid, {"inverse_count": self.st.inv_count}, self.snapshot(),
                        self.st.count)

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the chunk storage (chunks with headers, including the spare chunk)."""
        return dq_bytes(&self.st.d, 1)


_shell_window_array = _window_array


cdef extern from "window_sum.h":
    void swag_window_sum_i64(const int64_t* x, Py_ssize_t n, Py_ssize_t w, int64_t* out) noexcept nogil


cdef object _window_sum_i64(object values, Py_ssize_t w):
    """sum_i64 over a buffer of C int64 (read in place): ``include/window_sum.h``'s ``a ← a + (x[i] − x[i−w])``,
    the same exact wrapped sums as the ⊗ sequence (a group: the order of the additions does not matter), in about
    half its time. None for any other input (the shell's loop converts it item by item)."""
    cdef Py_ssize_t n_ok = 0, n
    cdef const int64_t[::1] iv
    buf = typed_input(K_SUM_I, values, &n_ok)
    if buf is None:
        return None
    iv = buf
    n = iv.shape[0]
    out = new_out_array(K_SUM_I, n)
    if n > 0:
        with nogil:
            swag_window_sum_i64(&iv[0], n, w, <int64_t*>(<cpython.array.array>out).data.as_voidptr)
    return out


def _window_array(cls, monoid, values, window):
    """``window_array``'s fast path (see the shell's), after refusing a monoid that is not a group exactly as
    the constructor does: the typed loop builds no instance, so it would not. sum_i64 over an int64 buffer runs
    the two-read loop of ``include/window_sum.h``."""
    cdef Slot one
    _require_group(_as_monoid(monoid, "subtract_on_evict"))
    if 1 <= window < PY_SSIZE_T_MAX and choose_kind(monoid, &one) == K_SUM_I and _lower_is_identity(monoid):
        out = _window_sum_i64(values, window)
        if out is not None:
            return out
    return _shell_window_array(cls, monoid, values, window)


document_costs(
    query="``agg``, lowered. No ⊗.",
    insert="``agg ← agg ⊗ v``, then push v. One ⊗ (computed before the push: a value that ``combine`` refuses changes nothing).",
    evict="``agg ← inverse(v_1) ⊗ agg`` (the identity, with no ⊗, when the window becomes empty), then pop v_1. One ⊗ and one ``inverse`` call, both before anything changes.",
)
