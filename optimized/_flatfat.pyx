# cython: language_level=3, annotation_typing=False
"""FlatFAT, compiled (paper 002 §4).

Same tree, snapshots and ⊕ call sequence as :mod:`swagkit.reference.flatfat`: one flat C array of 2n slots in
heap order (root 1, children 2h, 2h+1, leaf i at n+i). Typed kinds (sum/max/min × f64/i64) store 8 bytes per
node and call no Python function per ⊕.

Complexity (Theorem 4.2, ceiling form of the notes' erratum P1): ``new`` n−1 ⊕; ``update`` of m distinct leaves
at most m·(1 + ⌈log2(n/m)⌉) ⊕; ``aggregate`` 0; ``prefix``/``suffix`` at most log2 n each.
"""

include "_common.pxi"
include "_flatfat_core.pxi"

from swagkit.spec.errors import SwagkitError
from swagkit.spec.snapshots import FlatFATState


cdef class FlatFAT:
    """FlatFAT(monoid, values=(), capacity=None)
--

FlatFAT (id ``flatfat``; paper 002 §4), compiled: ``capacity`` (a power of two) leaves of partial
    aggregates. API, snapshots and ``combine_count`` are those of :class:`swagkit.reference.FlatFAT`.
    """

    cdef Tree t
    cdef int kind
    cdef readonly object monoid
    cdef object _combine

    algorithm = "flatfat"

    def __cinit__(self, monoid, values=(), capacity=None):
        cdef Slot one
        cdef Slot tmp
        cdef Py_ssize_t i, n
        self.t.T = NULL
        self.t.n = 0
        self.t.count = 0
        self.t.broken = False
        self.kind = choose_kind(monoid, &one)
        self.monoid = monoid
        self._combine = monoid.combine
        identity = monoid.identity
        if self.kind == K_GENERIC:
            one.o = <PyObject*>identity
        vals = list(values)
        if self.kind != K_GENERIC:
            for v in vals:
                to_slot(self.kind, v, &tmp)
        if capacity is None:
            n = 1
            while n < len(vals):
                n *= 2
        else:
            if type(capacity) is not int or capacity < 1 or capacity & (capacity - 1) or capacity < len(vals):
                raise ValueError(
                    f"flatfat: capacity must be a power of two ≥ len(values) = {len(vals)}, got {capacity!r}"
                )
            n = capacity
        self.t.T = tree_new_array(n)
        if self.t.T == NULL:
            raise MemoryError()
        self.t.n = n
        self.t.one = one
        tree_fill_one(self.t.T, 0, 2 * n, one, self.kind)
        for i in range(len(vals)):
            if self.kind != K_GENERIC:
                to_slot(self.kind, vals[i], &self.t.T[n + i])
            else:
                slot_set(&self.t.T[n + i], vals[i])
        if self.kind != K_GENERIC:
            tree_build_t(&self.t, self.kind)
        else:
            tree_build_g(&self.t, self._combine)

    def __dealloc__(self):
        tree_release(self.t.T, self.t.n, self.kind)
        self.t.T = NULL

    cdef int _usable(self) except -1:
        if self.t.broken:
            raise SwagkitError(
                "flatfat: a combine call raised during an earlier update; the tree is inconsistent and can no "
                "longer be used"
            )
        return 0

    cdef Py_ssize_t _loc(self, object i) except -1:
        if type(i) is not int or not 0 <= i < self.t.n:
            raise IndexError(f"flatfat: leaf index {i!r} out of range 0..{self.t.n - 1}")
        return i

    @property
    def capacity(self):
        """The number of leaves ``n`` (a power of two)."""
        return self.t.n

    def __len__(self) -> int:
        return self.t.n

    def update(self, pairs: Iterable[tuple[int, Any]]) -> None:
        """Algorithm 2: ``a[loc] ← val`` for each ``(loc, val)``, then recompute the affected internal nodes.

        Duplicate locations are merged, the last write wins; at most ``m·(1 + ⌈log2(n/m)⌉)`` combines for ``m``
        distinct locations. All locations (``IndexError``) and values (typed kinds) are validated first: a bad
        pair changes nothing."""
        cdef Slot tmp
        cdef Py_ssize_t m, k, loc
        cdef Py_ssize_t* locs
        self._usable()
        writes = {}
        for loc_obj, val in pairs:
            loc = self._loc(loc_obj)
            if self.kind != K_GENERIC:
                to_slot(self.kind, val, &tmp)
            writes[loc] = val
        m = len(writes)
        if m == 0:
            return
        locs = <Py_ssize_t*>malloc(m * sizeof(Py_ssize_t))
        if locs == NULL:
            raise MemoryError()
        try:
            k = 0
            for loc_obj, val in writes.items():
                loc = loc_obj
                locs[k] = loc
                k += 1
                if self.kind != K_GENERIC:
                    to_slot(self.kind, val, &self.t.T[self.t.n + loc])
                else:
                    slot_set(&self.t.T[self.t.n + loc], val)
            if self.kind != K_GENERIC:
                tree_propagate_t(&self.t, locs, m, self.kind)
            else:
                tree_propagate_g(&self.t, locs, m, self._combine)
        finally:
            free(locs)

    def aggregate(self) -> Any:
        """``a[0] ⊕ … ⊕ a[n−1]``: the root. No combine."""
        return tree_val(self.kind, self.t.T[1])

    def prefix(self, i: int) -> Any:
        """``a[0] ⊕ … ⊕ a[i]`` (the paper's ``prefix(i+1)``). At most ``log2 n`` combines."""
        cdef Py_ssize_t k = self._loc(i)
        if self.kind != K_GENERIC:
            return box(self.kind, tree_prefix_t(&self.t, k, self.kind))
        return tree_prefix_g(&self.t, k, self._combine)

    def suffix(self, j: int) -> Any:
        """``a[j] ⊕ … ⊕ a[n−1]`` (the paper's ``suffix(j+1)``). At most ``log2 n`` combines."""
        cdef Py_ssize_t k = self._loc(j)
        if self.kind != K_GENERIC:
            return box(self.kind, tree_suffix_t(&self.t, k, self.kind))
        return tree_suffix_g(&self.t, k, self._combine)

    def leaf(self, i: int) -> Any:
        """``a[i]``."""
        return tree_val(self.kind, self.t.T[self.t.n + self._loc(i)])

    def leaves(self) -> list[Any]:
        """``[a[0], …, a[n−1]]``."""
        cdef Py_ssize_t i
        return [tree_val(self.kind, self.t.T[self.t.n + i]) for i in range(self.t.n)]

    def snapshot(self) -> FlatFATState:
        cdef Py_ssize_t i
        return FlatFATState(
            capacity=self.t.n, nodes=tuple([tree_val(self.kind, self.t.T[i]) for i in range(2 * self.t.n)])
        )

    @property
    def combine_count(self):
        """Number of ⊕ invocations so far."""
        return self.t.count

    @combine_count.setter
    def combine_count(self, value):
        self.t.count = value

    def _memory_bytes(self) -> int:
        """Bytes malloc'd for the node array."""
        return 2 * self.t.n * sizeof(Slot)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, capacity={self.t.n})"
