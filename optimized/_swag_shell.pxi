# The Python-facing shell of the compiled FIFO SWAGs (Two-Stacks, Two-Stacks Lite, DABA, DABA Lite, FlatFIT),
# written once. A module defines its algorithm on a C struct ``State`` (with ``int64_t count``, the ⊗ counter,
# and ``bint busy``, the re-entry guard) and
#   st_init(State*, int kind, Slot one) -> int   (-1: no memory)      st_free(State*, int kind)
#   st_len(State*) -> Py_ssize_t
#   st_insert_t(State*, Slot, int kind) -> int   st_evict_t(State*, int kind)   st_query_t(State*, int kind) -> Slot
#   st_insert_g(State*, object v, object comb)   st_evict_g(State*, object comb)   st_query_g(State*, object comb)
# (typed ``_t``: noexcept nogil; generic ``_g``: strong exception safety, raising leaves the state as it was),
# then includes this file, and derives its class from ``SWAGShell`` adding ``algorithm``, ``snapshot``,
# ``_from_snapshot`` and ``_memory_bytes``; ``document_costs`` puts its ⊗ costs in the shell's docstrings.
#
# Why a base class per module rather than one shared (cimported) base: the shell's methods call the module's
# inline ``st_*`` functions directly, so the compiled code of every operation is what it was when each class
# wrote these methods out (no virtual call, the typed kernels inlined), and nothing but this text is shared.

include "_template.pxi"
include "_bulk.pxi"

from swagkit.spec.monoid import as_monoid as _as_monoid
from swagkit.reference._guard import check_count as _check_count, reentered as _reentered, restore as _restore


cdef int _shift_note(object err, str algorithm) except -1:
    """Raise ``err`` noting that ``shift`` evicted before its insertion failed (the window is one shorter)."""
    err.add_note(f"swagkit {algorithm}: shift evicted the oldest value, then the insertion raised")
    raise err


cdef class SWAGShell:
    """What every compiled FIFO SWAG of this module does the same way: construction from a monoid, the re-entry
    guard, ``query``/``insert``/``evict`` and their bulk forms, copies and pickles by snapshot, ``combine_count``.
    """

    cdef State st
    cdef int kind          # K_GENERIC or the monoid's typed kind
    cdef bint lower_id     # ``monoid.lower`` is the identity (typed results need no Python call)
    cdef readonly object monoid
    cdef object _combine
    cdef object _lift
    cdef object _lower

    exception_safety = "strong"

    def __cinit__(self, monoid):
        cdef Slot one
        monoid = _as_monoid(monoid, self.algorithm)
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

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.st.busy:
            raise _reentered(self.algorithm, operation)
        self.st.busy = True
        return 0

    def query(self) -> Out:
        """The window's aggregate, lowered."""
        cdef Slot r
        self._enter("query")
        try:
            if self.kind != K_GENERIC:
                r = st_query_t(&self.st, self.kind)
                result = box(self.kind, r)
            else:
                result = st_query_g(&self.st, self._combine)
            if self.lower_id:
                return result
            return self._lower(result)
        finally:
            self.st.busy = False

    def insert(self, value: In) -> None:
        """Typed kinds validate ``value`` like ``as_f64``/``as_i64`` before anything changes."""
        cdef Slot v
        self._enter("insert")
        try:
            if self.kind != K_GENERIC:
                to_slot(self.kind, value, &v)
                if st_insert_t(&self.st, v, self.kind) < 0:
                    raise MemoryError()
            else:
                st_insert_g(&self.st, self._lift(value), self._combine)
        finally:
            self.st.busy = False

    def evict(self) -> None:
        """Raises ``EmptyWindowError`` when empty."""
        self._enter("evict")
        try:
            if st_len(&self.st) == 0:
                raise EmptyWindowError(f"{self.algorithm}: evict() on an empty window")
            if self.kind != K_GENERIC:
                st_evict_t(&self.st, self.kind)
            else:
                st_evict_g(&self.st, self._combine)
        finally:
            self.st.busy = False

    def shift(self, value: In) -> Out:
        """Evict the oldest value, insert ``value``, return ``query()``: one static-window step in one call, with
        exactly their ⊗ sequence (``combine_count`` too). ``value`` is validated (lifted) and the window checked
        first: a refused value or an empty window (``EmptyWindowError``) changes nothing; if ``combine`` raises
        in the insertion, the eviction stays done (the note says so)."""
        cdef Slot v, r
        self._enter("shift")
        try:
            if self.kind != K_GENERIC:
                to_slot(self.kind, value, &v)
                if st_len(&self.st) == 0:
                    raise EmptyWindowError(f"{self.algorithm}: shift() on an empty window")
                st_evict_t(&self.st, self.kind)
                if st_insert_t(&self.st, v, self.kind) < 0:
                    _shift_note(MemoryError(), self.algorithm)
                r = st_query_t(&self.st, self.kind)
                result = box(self.kind, r)
            else:
                lifted = self._lift(value)
                if st_len(&self.st) == 0:
                    raise EmptyWindowError(f"{self.algorithm}: shift() on an empty window")
                st_evict_g(&self.st, self._combine)
                try:
                    st_insert_g(&self.st, lifted, self._combine)
                except BaseException as err:
                    _shift_note(err, self.algorithm)
                result = st_query_g(&self.st, self._combine)
            if self.lower_id:
                return result
            return self._lower(result)
        finally:
            self.st.busy = False

    def __len__(self) -> int:
        return st_len(&self.st)

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls); the loop runs in
        C, over the raw buffer for ``array.array``/``memoryview``/numpy input of a typed kind. Every value is
        validated (lifted) first, so a refused one changes nothing; if ``combine`` raises at the j-th
        insertion, the first j stay inserted and the exception's note says so."""
        self._enter("insert_many")
        try:
            _insert_many_body(&self.st, self.kind, values, self._lift, self._combine, self.algorithm)
        finally:
            self.st.busy = False

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest values in a C loop. Raises ``EmptyWindowError`` (evicting nothing) when
        fewer than ``count`` are held, ``ValueError``/``TypeError`` for a negative or non-integer count. If
        ``combine`` raises at the j-th eviction, the first j stay evicted (the exception's note says so)."""
        self._enter("evict_many")
        try:
            _evict_many_body(&self.st, self.kind, count, self._combine, self.algorithm)
        finally:
            self.st.busy = False

    cdef int _store(self, Slot* slot, object x) except -1:
        """``*slot ← x`` for an empty slot, from a snapshot (typed kinds: any float for the f64 kinds, else
        validated like ``insert``; generic: a new reference)."""
        if self.kind != K_GENERIC:
            restore_slot(self.kind, x, slot)
        else:
            slot_put(slot, x)
        return 0

    cdef void _release(self, Slot* slot) noexcept:
        if self.kind == K_GENERIC:
            slot_clear(slot)

    cdef object _val(self, Slot v):
        if self.kind != K_GENERIC:
            return box(self.kind, v)
        return slot_get(v)

    def __reduce__(self):
        return (_restore, (type(self), self.monoid, {}, self.snapshot(), self.st.count))

    def __copy__(self):
        return _restore(type(self), self.monoid, {}, self.snapshot(), self.st.count)

    @property
    def combine_count(self):
        """Number of ⊗ invocations so far, counted as the pseudocode performs them (identity included)."""
        return self.st.count

    @combine_count.setter
    def combine_count(self, value):
        self.st.count = value

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


cdef int document_costs(str query, str insert, str evict) except -1:
    """Put the algorithm's steps and ⊗ costs first in the docstrings of this module's ``SWAGShell.query``,
    ``insert`` and ``evict`` (a docstring must be a literal, and the shell's are the same for every algorithm;
    each module compiles its own shell, so these are its algorithm's methods)."""
    for name, cost in (("query", query), ("insert", insert), ("evict", evict)):
        method = SWAGShell.__dict__[name]
        method.__doc__ = f"{cost}\n\n{method.__doc__}"
    return 0
