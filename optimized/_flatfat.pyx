# cython: language_level=3, annotation_typing=False
"""FlatFAT, compiled (paper 002 §4).

Same tree, snapshots and ⊕ call sequence as :mod:`swagkit.reference.flatfat`: one flat C array of 2n slots in
heap order (root 1, children 2h, 2h+1, leaf i at n+i). Typed kinds (sum/max/min × f64/i64) store 8 bytes per
node and call no Python function per ⊕.

Complexity (Theorem 4.2, ceiling form of the notes' erratum P1): ``new`` n−1 ⊕; ``update`` of m distinct leaves
at most m·(1 + ⌈log2(n/m)⌉) ⊕; ``aggregate`` 0; ``prefix``/``suffix`` at most log2 n each.

Exception safety: *strong*, like the reference: ``new`` builds before the object exists; ``update`` keeps the
leaves and nodes it overwrites (their references) and puts them back if a combine raises. Capacities are
checked (``check_capacity``: ``ValueError``, ``OverflowError`` above ``MAX_CAPACITY``) before any allocation.
Re-entrant or concurrent calls raise ``ReentrantCallError`` before any change (a ``busy`` flag; not
thread-safe). Copies and pickles go by snapshot.
"""

include "_common.pxi"
include "_flatfat_core.pxi"

from swagkit.spec.snapshots import FlatFATState
from swagkit.spec.monoid import as_monoid as _as_monoid
from swagkit.reference._guard import reentered as _reentered, restore as _restore
from swagkit.reference.flatfat import check_capacity as _check_capacity, leaf_index as _leaf_index


cdef class FlatFAT:
    """FlatFAT(monoid, values=(), capacity=None)
--

FlatFAT (id ``flatfat``; paper 002 §4), compiled: ``capacity`` (a power of two) leaves of partial
    aggregates. API, snapshots, ``combine_count``, exception safety (strong) and the re-entry guard are those of
    :class:`swagkit.reference.FlatFAT`; copies and pickles go by snapshot.
    """

    cdef Tree t
    cdef int kind
    cdef bint busy
    cdef readonly object monoid
    cdef object _combine

    algorithm = "flatfat"
    exception_safety = "strong"

    def __cinit__(self, monoid, values=(), capacity=None):
        cdef Slot one
        cdef Slot tmp
        cdef Py_ssize_t i, n
        self.t.T = NULL
        self.t.n = 0
        self.t.count = 0
        self.busy = False
        monoid = _as_monoid(monoid, "flatfat")
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
            _check_capacity(n)
        else:
            n = _check_capacity(capacity)
            if n < len(vals):
                raise ValueError(
                    f"flatfat: capacity must be a power of two ≥ len(values) = {len(vals)}, got {capacity!r}"
                )
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

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.busy:
            raise _reentered("flatfat", operation)
        self.busy = True
        return 0

    cdef Py_ssize_t _loc(self, object i) except -1:
        if type(i) is int and 0 <= i < self.t.n:
            return i
        return _leaf_index(i, self.t.n)

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
        pair changes nothing. Strong: a raising ``combine`` leaves the tree exactly as before."""
        self._enter("update")
        try:
            self._update(pairs)
        finally:
            self.busy = False

    cdef int _update(self, object pairs) except -1:
        cdef Slot tmp
        cdef Py_ssize_t m, k, loc, n = self.t.n
        cdef Py_ssize_t* locs
        cdef Slot* old
        cdef PyObject* cur
        writes = {}
        for loc_obj, val in pairs:
            loc = self._loc(loc_obj)
            if self.kind != K_GENERIC:
                to_slot(self.kind, val, &tmp)
            writes[loc] = val
        m = len(writes)
        if m == 0:
            return 0
        # locs[0:m] is the scratch list the propagation rewrites, locs[m:2m] the written leaves
        locs = <Py_ssize_t*>malloc(2 * m * sizeof(Py_ssize_t))
        if locs == NULL:
            raise MemoryError()
        if self.kind != K_GENERIC:
            try:
                k = 0
                for loc_obj, val in writes.items():
                    loc = loc_obj
                    locs[k] = loc
                    k += 1
                    to_slot(self.kind, val, &self.t.T[n + loc])  # validated above: cannot fail
                tree_propagate_t(&self.t, locs, m, self.kind)
            finally:
                free(locs)
            return 0
        old = <Slot*>malloc(m * sizeof(Slot))
        if old == NULL:
            free(locs)
            raise MemoryError()
        k = 0
        for loc_obj, val in writes.items():
            loc = loc_obj
            locs[k] = loc
            locs[m + k] = loc
            old[k] = self.t.T[n + loc]  # the old leaf's reference moves to ``old``
            slot_put(&self.t.T[n + loc], val)
            k += 1
        try:
            tree_propagate_g(&self.t, locs, m, self._combine)
        except BaseException:
            for k in range(m):  # put the old leaves back (the propagation restored the nodes)
                cur = self.t.T[n + locs[m + k]].o
                self.t.T[n + locs[m + k]] = old[k]
                Py_XDECREF(cur)
            free(old)
            free(locs)
            raise
        for k in range(m):
            Py_XDECREF(old[k].o)
        free(old)
        free(locs)
        return 0

    def aggregate(self) -> Any:
        """``a[0] ⊕ … ⊕ a[n−1]``: the root. No combine."""
        self._enter("aggregate")
        try:
            return tree_val(self.kind, self.t.T[1])
        finally:
            self.busy = False

    def prefix(self, i: int) -> Any:
        """``a[0] ⊕ … ⊕ a[i]`` (the paper's ``prefix(i+1)``). At most ``log2 n`` combines."""
        cdef Py_ssize_t k
        self._enter("prefix")
        try:
            k = self._loc(i)
            if self.kind != K_GENERIC:
                return box(self.kind, tree_prefix_t(&self.t, k, self.kind))
            return tree_prefix_g(&self.t, k, self._combine)
        finally:
            self.busy = False

    def suffix(self, j: int) -> Any:
        """``a[j] ⊕ … ⊕ a[n−1]`` (the paper's ``suffix(j+1)``). At most ``log2 n`` combines."""
        cdef Py_ssize_t k
        self._enter("suffix")
        try:
            k = self._loc(j)
            if self.kind != K_GENERIC:
                return box(self.kind, tree_suffix_t(&self.t, k, self.kind))
            return tree_suffix_g(&self.t, k, self._combine)
        finally:
            self.busy = False

    def leaf(self, i: int) -> Any:
        """``a[i]``."""
        self._enter("leaf")
        try:
            return tree_val(self.kind, self.t.T[self.t.n + self._loc(i)])
        finally:
            self.busy = False

    def leaves(self) -> list[Any]:
        """``[a[0], …, a[n−1]]``."""
        cdef Py_ssize_t i
        self._enter("leaves")
        try:
            return [tree_val(self.kind, self.t.T[self.t.n + i]) for i in range(self.t.n)]
        finally:
            self.busy = False

    def snapshot(self) -> FlatFATState:
        cdef Py_ssize_t i
        self._enter("snapshot")
        try:
            return FlatFATState(
                capacity=self.t.n, nodes=tuple([tree_val(self.kind, self.t.T[i]) for i in range(2 * self.t.n)])
            )
        finally:
            self.busy = False

    @classmethod
    def _from_snapshot(cls, monoid, snapshot):
        """The tree whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊕ call). The shape is
        validated (``ValueError``/``OverflowError``), typed values like :meth:`update`'s."""
        cdef FlatFAT tree
        cdef Py_ssize_t n, i
        cdef Slot* T
        n = _check_capacity(snapshot.capacity)
        nodes = list(snapshot.nodes)
        if len(nodes) != 2 * n:
            raise ValueError(f"flatfat: a snapshot of capacity {n} has {2 * n} nodes, got {len(nodes)}")
        tree = cls(monoid, (), 1)
        T = tree_new_array(n)
        if T == NULL:
            raise MemoryError()
        if tree.kind != K_GENERIC:
            try:
                for i in range(2 * n):
                    to_slot(tree.kind, nodes[i], &T[i])
            except BaseException:
                free(T)
                raise
        else:
            for i in range(2 * n):
                slot_put(&T[i], nodes[i])
        tree_release(tree.t.T, tree.t.n, tree.kind)
        tree.t.T = T
        tree.t.n = n
        return tree

    def __reduce__(self):
        return (_restore, (type(self), self.monoid, {}, self.snapshot(), self.t.count))

    def __copy__(self):
        return _restore(type(self), self.monoid, {}, self.snapshot(), self.t.count)

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
