# cython: language_level=3, annotation_typing=False
"""FiBA, compiled (paper 003; FiBA 2019 for the single operations).

Same algorithm, state, snapshots and ⊗ call sequence as :mod:`swagkit.reference.fiba` (so ``combine_count`` and
``touched_count`` agree operation by operation and float results are bit-identical): a B-tree of C nodes with
minimum arity μ, left and right fingers, the four position-dependent aggregates (up, inner, left spine, right
spine) with their entry counts, a deferred free list of dead nodes, bulk evict (boundary search, batch moves,
sibling and non-sibling merges, make node / child root, pass down) and bulk insert (one sweep of finger searches,
level-by-level treelets grouped by target node, Claim 1 splits, pass down).

Values: typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) store C doubles / int64 and call no Python
function per ⊗; any other monoid stores Python objects and calls ``monoid.combine``. Timestamps: the first
timestamp of an empty window decides their representation -- C int64 for ``int`` (in range), C double for
``float``, Python objects otherwise; a later timestamp of another type switches the tree to Python objects once
(O(n), invisible in snapshots). Comparisons happen only in the read-only search phases, so a comparison that
raises (incomparable types) changes nothing.

Exception safety (refuse), the re-entry guard, copies and pickles by snapshot, numpy timestamps: exactly those of
the reference (see :mod:`swagkit.reference.fiba`): an aggregate ⊗ that raises mid-update is stashed, the update
finishes its surgery without calling ⊗ again (``gcomb_agg``) and re-raises at its end; ⊗ that make entry values
or answers run before anything changes. A re-entrant call (from ``combine``, ``lift``, ``lower`` or a value's
``__del__``) or a second thread meets the ``busy`` flag and raises ``ReentrantCallError`` before touching the C
tree. The bulk insert reserves its event buffers and scratch before it changes anything.

Complexity (⊗ calls, as the reference): query 2; insert amortized O(log d), O(1) in order; evict amortized O(1);
remove amortized O(log d); bulk_evict amortized O(log m) (Theorem 1); bulk_insert amortized
O(log d + m(1 + log(d/m))) (Theorem 3); worst case O(log n) per single operation. Memory: one malloc'd block per
node of ``8·(2μ+1) + 16·2μ`` bytes plus a header, at most n/(μ−1) + 1 live nodes.
"""

include "_common.pxi"

from libc.stdlib cimport calloc
from cpython.object cimport PyObject_RichCompareBool, Py_LT, Py_EQ
from cpython.long cimport PyLong_CheckExact
from cpython.float cimport PyFloat_CheckExact

from swagkit.spec.errors import BrokenAggregatorError
from swagkit.spec.monoid import as_monoid as _as_monoid
from swagkit.spec.ooo import MissingTimeError, check_bulk_order, check_time
from swagkit.spec.snapshots import FiBANodeState, FiBAState
from swagkit.reference._guard import reentered as _reentered, restore as _restore
from swagkit.reference.fiba import (
    _MISSING, _check_min_arity, _check_window, _norm_time, _salvaged, _slide_inputs, _snapshot_order,
)

cdef enum:
    T_UNSET = -1
    T_OBJ = 0
    T_I64 = 1
    T_F64 = 2
    MAXLEVELS = 72    # levels of any tree with < 2^63 entries and μ ≥ 2
    M_INNER = 0
    M_LEFT = 1
    M_RIGHT = 2
    M_UP = 3

cdef extern from "fiba_node.h":
    ctypedef struct Node "SwagFNode":
        Node* parent
        Node** children
        Slot* times
        Slot* values
        Slot agg
        int64_t count
        int n
        char leaf
        char left_spine
        char right_spine
        char tobj
        Node* next_free

cdef struct Event:        # a treelet (003 §5)
    int64_t seq
    Node* target
    int insert
    int slot
    Slot time
    Slot value
    Node* child

cdef struct EventBuf:
    Event* e
    Py_ssize_t n
    Py_ssize_t cap

cdef struct Tops:
    Node* left
    Node* right
    bint root
    bint left_from_root
    bint right_from_root


# ------------------------------------------------------------------------------------------------ time keys

cdef inline int time_kind_of(object t):
    cdef int overflow = 0
    if PyLong_CheckExact(t):
        PyLong_AsLongLongAndOverflow(t, &overflow)
        return T_I64 if overflow == 0 else T_OBJ
    if PyFloat_CheckExact(t):
        return T_F64
    return T_OBJ


cdef inline int t_lt(int tk, Slot a, Slot b) except -1:
    if tk == T_I64:
        return a.i < b.i
    if tk == T_F64:
        return a.f < b.f
    return PyObject_RichCompareBool(<object>a.o, <object>b.o, Py_LT)


cdef inline int t_eq(int tk, Slot a, Slot b) except -1:
    if tk == T_I64:
        return a.i == b.i
    if tk == T_F64:
        return a.f == b.f
    return PyObject_RichCompareBool(<object>a.o, <object>b.o, Py_EQ)


cdef inline object t_box(int tk, Slot t):
    if tk == T_I64:
        return PyLong_FromLongLong(t.i)
    if tk == T_F64:
        return PyFloat_FromDouble(t.f)
    return <object>t.o


# ------------------------------------------------------------------------------------------------ helpers

cdef inline void tpush(int kind, Slot* acc, bint* first, int64_t* cc, Slot s) noexcept nogil:
    if first[0]:
        acc[0] = s
        first[0] = False
    else:
        acc[0] = tcomb(kind, acc[0], s)
        cc[0] += 1


cdef int ev_append(EventBuf* b, Event ev) except -1:
    cdef Event* e
    cdef Py_ssize_t cap
    if b.n == b.cap:
        cap = 16 if b.cap == 0 else 2 * b.cap
        e = <Event*>realloc(b.e, cap * sizeof(Event))
        if e == NULL:
            raise MemoryError()
        b.e = e
        b.cap = cap
    b.e[b.n] = ev
    b.n += 1
    return 0


cdef inline int child_index(Node* p, Node* c) noexcept nogil:
    cdef int i
    for i in range(p.n + 1):
        if p.children[i] == c:
            return i
    return -1


cdef inline int mode_of(Node* x) noexcept nogil:
    if x.parent == NULL or (x.left_spine and x.right_spine):
        return M_INNER
    if x.left_spine:
        return M_LEFT
    if x.right_spine:
        return M_RIGHT
    return M_UP


cdef inline bint has_up(Node* x) noexcept nogil:
    return not (x.parent == NULL or x.left_spine or x.right_spine)


cdef class FiBA:
    """FiBA(monoid, min_arity=4)
--

Finger B-tree aggregator (id ``fiba``; paper 003 with FiBA 2019), compiled: out-of-order timestamped
    window with bulk eviction and bulk insertion.

    Typed monoids (``monoid.fast_path`` in sum/max/min × f64/i64) run without any Python call per ⊗; int or float
    timestamps are compared in C. API, snapshots, ``combine_count`` and ``touched_count`` are those of
    :class:`swagkit.reference.FiBA` (``slide`` returns an ``array.array`` for typed kinds), and so are the
    exception safety (``"refuse"``: after a ⊗ failed, every update and query raises ``BrokenAggregatorError``
    until ``repair()``; ``salvage()`` returns the entries before or after the failed operation), the re-entry
    guard (not thread-safe: overlapping calls raise ``ReentrantCallError``) and copy/pickle by snapshot.
    """

    cdef readonly object monoid
    cdef readonly int min_arity
    cdef readonly int max_arity
    cdef int kind
    cdef int tkind
    cdef bint lower_id
    cdef object _combine
    cdef object _lift
    cdef object _lower
    cdef Slot one
    cdef Node* root
    cdef Node* lf
    cdef Node* rf
    cdef Node* free_head
    cdef int64_t ccount
    cdef int64_t tcount
    cdef bint broken
    cdef bint busy
    cdef object fault   # the first failure of the running update's aggregate ⊗
    cdef object fix     # how salvage() derives the entries after a failed loop (the reference's ``_fix``)
    cdef Py_ssize_t nalloc
    cdef size_t node_bytes
    # bulk insert scratch: the interleaved sequence of one target
    cdef Slot* s_times
    cdef Slot* s_values
    cdef Node** s_children
    cdef Node** s_pieces
    cdef Py_ssize_t s_cap

    algorithm = "fiba"
    exception_safety = "refuse"

    def __cinit__(self, monoid, min_arity=4):
        cdef Slot one
        self.root = NULL
        self.free_head = NULL
        self.s_times = NULL
        self.s_values = NULL
        self.s_children = NULL
        self.s_pieces = NULL
        self.s_cap = 0
        monoid = _as_monoid(monoid, self.algorithm)
        min_arity = _check_min_arity(min_arity)
        self.kind = choose_kind(monoid, &one)
        self.monoid = monoid
        self.min_arity = min_arity
        self.max_arity = 2 * min_arity
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._lower = monoid.lower
        self.lower_id = _lower_is_identity(monoid)
        if self.kind == K_GENERIC:
            identity = monoid.identity
            Py_INCREF(identity)
            one.o = <PyObject*>identity
        self.one = one
        self.tkind = T_UNSET
        self.ccount = 0
        self.tcount = 0
        self.broken = False
        self.busy = False
        self.nalloc = 0
        self.node_bytes = sizeof(Node) + (2 * min_arity + 1) * sizeof(Node*) + 4 * min_arity * sizeof(Slot)
        self.root = node_new(self, True)
        self.tcount = 0  # the initial root is not an operation's work (the reference creates it directly)
        self.lf = self.root
        self.rf = self.root

    def __dealloc__(self):
        cdef Node* x
        if self.root != NULL:
            push_free(self, self.root)
            self.root = NULL
        while self.free_head != NULL:
            x = self.free_head
            self.free_head = x.next_free
            node_release(self, x)
            free(x)
        if self.kind == K_GENERIC and self.one.o != NULL:
            Py_XDECREF(self.one.o)
            self.one.o = NULL
        free(self.s_times)
        free(self.s_values)
        free(self.s_children)
        free(self.s_pieces)

    # ========================================================================================== counters

    @property
    def combine_count(self):
        """Number of ⊗ invocations so far, in the reference's order (identity operands included)."""
        return self.ccount

    @combine_count.setter
    def combine_count(self, value):
        self.ccount = value

    @property
    def touched_count(self):
        """Node visits so far (searches, aggregate recomputations, allocations), as the reference counts them."""
        return self.tcount

    @touched_count.setter
    def touched_count(self, value):
        self.tcount = value

    cdef int _usable(self) except -1:
        if self.broken:
            raise BrokenAggregatorError(
                f"{self.algorithm}: a combine call raised during an earlier operation, so its aggregates cannot be "
                "trusted: it refuses every update and query; salvage() returns its (time, value) entries and "
                "repair() rebuilds it from them"
            )
        return 0

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this structure runs (before any change)."""
        if self.busy:
            raise _reentered(self.algorithm, operation)
        self.busy = True
        return 0

    cdef int _failed(self) except -1:
        """An operation raised after its read-only phase: refuse from now on (the reference's ``_failed``)."""
        self.broken = True
        self.fault = None
        return 0

    cdef int _finish(self) except -1:
        """End of an update: re-raise the first failure of its aggregate ⊗, if any (it is broken then)."""
        if self.fault is not None:
            err = self.fault
            self.fault = None
            self.broken = True
            raise err
        return 0

    cdef object _out(self, Slot r):
        if self.kind != K_GENERIC:
            if self.lower_id:
                return box(self.kind, r)
            return self._lower(box(self.kind, r))
        return self._lower(<object>r.o)

    cdef object _val(self, Slot v):
        if self.kind != K_GENERIC:
            return box(self.kind, v)
        return <object>v.o

    # ========================================================================================== public API

    def __len__(self) -> int:
        """O(1): ``count(leftFinger) + count(root) + count(rightFinger)`` (the root's count for a leaf root)."""
        return tree_size(self)

    def query(self) -> Any:
        """``Π↙(leftFinger) ⊗ Π|(root) ⊗ Π↘(rightFinger)``, lowered (the root's aggregate when it is a leaf).
        2 ⊗ (0 for a leaf root)."""
        self._enter("query")
        try:
            self._usable()
            return self._query_now()
        finally:
            self.busy = False

    cdef object _query_now(self):
        if self.kind != K_GENERIC:
            return self._out(query_t(self))
        r = query_g(self)  # reads only: a failing ⊗ changes nothing, the tree stays usable
        return self._lower(r)

    def insert(self, time: Any, value: Any) -> None:
        """Insert ``value`` at ``time``: finger search, combine ``old ⊗ new`` at an existing time (any level),
        else insert into the leaf and split upward; repair. Amortized O(log d) ⊗ (O(1) in order)."""
        self._enter("insert")
        try:
            self._usable()
            self._insert_obj(time, value, None, False)
        finally:
            self.busy = False

    cdef int _insert_obj(self, object time, object value, list log, bint lifted) except -1:
        """insert's steps: check the time, lift/validate the value (unless ``lifted`` for a generic kind), locate,
        then ``insert_core``."""
        cdef Slot v, t
        if PyFloat_CheckExact(time):
            if PyFloat_AS_DOUBLE(time) != PyFloat_AS_DOUBLE(time):
                check_time(time)
        elif not PyLong_CheckExact(time):
            time = _norm_time(time)
            check_time(time)
        if self.kind != K_GENERIC:
            to_slot(self.kind, value, &v)
            time_key(self, time, &t)
            insert_core(self, t, v, None, log, time)
        else:
            x = value if lifted else self._lift(value)
            time_key(self, time, &t)
            v.o = <PyObject*>x
            insert_core(self, t, v, x, log, time)
        return 0

    def evict(self) -> None:
        """Remove the oldest entry. Amortized O(1) ⊗. ``EmptyWindowError`` (nothing changes) when empty."""
        self._enter("evict")
        try:
            self._usable()
            if tree_size(self) == 0:
                raise EmptyWindowError(f"{self.algorithm}: evict() on an empty window")
            evict_op(self)
        finally:
            self.busy = False

    def remove(self, time: Any) -> None:
        """Remove the entry at ``time`` (in an internal node: replaced by a neighbor entry from a leaf).
        Amortized O(log d) ⊗. ``MissingTimeError`` (nothing changes) when ``time`` is not present."""
        cdef Slot t
        cdef Node* x
        cdef int i, depth = 0
        cdef bint found = False
        self._enter("remove")
        try:
            self._usable()
            time = _norm_time(time)
            time_key(self, time, &t)
            x = search(self, t, &i, &found, &depth)
            if not found:
                raise MissingTimeError(f"{self.algorithm}: remove({time!r}): no entry has this timestamp")
            try:
                remove_core(self, x, i)
            except BaseException:
                self._failed()
                raise
            self._finish()
        finally:
            self.busy = False

    def bulk_evict(self, time: Any) -> int:
        """Remove every entry with timestamp ≤ ``time``; return how many (003 §4, Theorem 1: amortized
        O(log m) ⊗, worst case O(log n)). A ``time`` at or above the youngest clears the window in O(1)."""
        cdef Slot t
        cdef int64_t n
        cdef Node* top
        self._enter("bulk_evict")
        try:
            self._usable()
            time = _norm_time(time)
            check_time(time)
            n = tree_size(self)
            if n == 0:
                return 0
            time_key(self, time, &t)
            if t_lt(self.tkind, t, self.lf.times[0]):
                return 0
            if not t_lt(self.tkind, t, self.rf.times[self.rf.n - 1]):
                clear_tree(self)
                return n
            try:
                top = bulk_evict_boundary(self, t)
                evict_repair(self, top)
            except BaseException:
                self._failed()
                raise
            self._finish()
            return n - tree_size(self)
        finally:
            self.busy = False

    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """Insert ``(time, value)`` pairs in non-decreasing time order (003 §5, Theorem 3: amortized
        O(log d + m(1 + log(d/m))) ⊗); equal times fold earlier ⊗ later, exactly like consecutive inserts.
        Unordered pairs raise ``UnorderedBulkError`` and a bad value the monoid's error, changing nothing."""
        self._enter("bulk_insert")
        try:
            self._usable()
            self._bulk_insert_pairs(pairs, False)
        finally:
            self.busy = False

    cdef int _bulk_insert_pairs(self, object pairs, bint lifted) except -1:
        """bulk_insert's steps; ``lifted``: the values are lifted already (repair)."""
        cdef Py_ssize_t n, i
        cdef PyObject** pt = NULL
        cdef PyObject** px = NULL
        cdef Slot* kv = NULL
        cdef list keep = []  # keeps alive what the C arrays borrow (unpacked items, times, lifted values)
        items = pairs if type(pairs) is list else list(pairs)
        n = len(items)
        pt = <PyObject**>malloc((n + 1) * sizeof(PyObject*))
        px = <PyObject**>malloc((n + 1) * sizeof(PyObject*))
        kv = <Slot*>malloc((n + 1) * sizeof(Slot))
        if pt == NULL or px == NULL or kv == NULL:
            free(pt); free(px); free(kv)
            raise MemoryError()
        try:
            for i in range(n):  # unpack every pair first, like the reference's [(t, v) for t, v in pairs]
                it = items[i]
                if type(it) is tuple and len(<tuple>it) == 2:
                    t = (<tuple>it)[0]
                    x = (<tuple>it)[1]
                else:
                    t, x = it
                    keep.append(t)
                    keep.append(x)
                if not (PyLong_CheckExact(t) or PyFloat_CheckExact(t)):
                    t = _norm_time(t)
                    keep.append(t)
                pt[i] = <PyObject*>t
                px[i] = <PyObject*>x
            if not bulk_order_ok(pt, n):  # NaN, incomparable or decreasing: the reference's exact error
                check_bulk_order([<object>pt[i] for i in range(n)])
            if self.kind != K_GENERIC:
                for i in range(n):
                    to_slot(self.kind, <object>px[i], &kv[i])
            elif lifted:
                for i in range(n):
                    kv[i].o = px[i]
            else:
                lift = self._lift
                for i in range(n):
                    y = lift(<object>px[i])
                    keep.append(y)
                    kv[i].o = <PyObject*>y
            if n == 0:
                return 0
            bulk_insert_core(self, pt, kv, n, keep)
        finally:
            free(pt)
            free(px)
            free(kv)
        return 0

    def range_query(self, t_from: Any, t_to: Any) -> Any:
        """The fold of the values with ``t_from ≤ time ≤ t_to`` in time order, lowered (inclusive; the identity
        for an empty range). O(log n) ⊗, O(log d) near either end."""
        cdef Slot a, b
        cdef list ops
        self._enter("range_query")
        try:
            self._usable()
            t_from = _norm_time(t_from)
            t_to = _norm_time(t_to)
            check_time(t_from)
            check_time(t_to)
            if not t_from <= t_to or tree_size(self) == 0:
                return self._out(self.one)
            time_key2(self, t_from, t_to, &a, &b)
            if self.kind != K_GENERIC:
                return self._out(range_t(self, a, b))
            ops = []
            range_ops_g(self, range_start(self, a, b), a, True, b, True, ops)  # reads only
            r = fold_g(self, ops, False)  # a failing ⊗ changes nothing: the tree stays usable
            return self._lower(r)
        finally:
            self.busy = False

    def oldest(self) -> Any:
        """The smallest timestamp (the left finger's first), O(1). ``EmptyWindowError`` when empty."""
        self._enter("oldest")
        try:
            self._usable()
            if tree_size(self) == 0:
                raise EmptyWindowError(f"{self.algorithm}: oldest() on an empty window")
            return t_box(self.tkind, self.lf.times[0])
        finally:
            self.busy = False

    def youngest(self) -> Any:
        """The largest timestamp (the right finger's last), O(1). ``EmptyWindowError`` when empty."""
        self._enter("youngest")
        try:
            self._usable()
            if tree_size(self) == 0:
                raise EmptyWindowError(f"{self.algorithm}: youngest() on an empty window")
            return t_box(self.tkind, self.rf.times[self.rf.n - 1])
        finally:
            self.busy = False

    cdef list _items_list(self):
        cdef list out = []
        items_rec(self, self.root, out)
        return out

    def items(self) -> list[tuple[Any, Any]]:
        """``(time, lifted value)`` pairs in time order (an in-order traversal, O(n))."""
        self._enter("items")
        try:
            self._usable()
            return self._items_list()
        finally:
            self.busy = False

    def times(self) -> list[Any]:
        """The timestamps in time order, O(n)."""
        self._enter("times")
        try:
            self._usable()
            return [t for t, _ in self._items_list()]
        finally:
            self.busy = False

    def slide(self, times: Iterable[Any], values: Iterable[Any], window: int) -> Any:
        """The array driver of a count-based window: for each pair, evict the oldest while ``len() ≥ window``,
        ``insert(t, v)``, record ``query()``. Typed kinds (identity ``lower``) with buffer inputs ('d' or 'q'
        times -- ``array.array``, ``memoryview``, numpy arrays -- and the kind's values) run as one C loop and
        return an ``array.array``; otherwise a loop over the operations returning a list (an ``array.array``
        for typed kinds). ``times`` and ``values`` must have the same length (``ValueError`` before anything
        changes). A loop of single operations: if one fails at pair j, the first j pairs stay applied (the
        exception's note says so)."""
        cdef Py_ssize_t w, j
        self._enter("slide")
        try:
            self._usable()
            w = _check_window(window)
            if self.kind != K_GENERIC and self.lower_id:
                done = slide_typed(self, times, values, w)
                if done is not None:
                    return done
            ts, vs = _slide_inputs(times, values)
            out = []
            for j in range(len(ts)):
                try:
                    while tree_size(self) >= w:
                        evict_op(self)
                    self._insert_obj(ts[j], vs[j], None, False)
                    out.append(self._query_now())
                except BaseException as err:
                    err.add_note(f"swagkit {self.algorithm}: slide processed {j} of {len(ts)} pairs")
                    raise
            if self.kind != K_GENERIC and self.lower_id:
                return _pyarray.array('d' if self.kind <= K_MIN_F else 'q', out)
            return out
        finally:
            self.busy = False

    # ========================================================================================== recovery

    def salvage(self) -> list[tuple[Any, Any]]:
        """The ``(time, lifted value)`` entries held, in time order, like ``items()`` -- also on a structure that
        refuses after a failed ⊗: then exactly the entries before or after the failed operation (see
        :class:`swagkit.reference.FiBA`). No ⊗ call; O(n)."""
        self._enter("salvage")
        try:
            return _salvaged(self._items_list(), self.fix)
        finally:
            self.busy = False

    def repair(self) -> None:
        """Rebuild a broken structure in place from :meth:`salvage`'s entries (one bulk insertion into an empty
        tree: O(n) ⊗), after which it answers again; nothing to do on a structure that is not broken. If ⊗
        raises during the rebuild, the structure stays broken and keeps the entries."""
        self._enter("repair")
        try:
            if not self.broken:
                return
            entries = _salvaged(self._items_list(), self.fix)
            clear_tree(self)
            self.fix = ("held", entries)
            if entries:
                self._bulk_insert_pairs(entries, True)
            self.broken = False
            self.fix = None
        finally:
            self.busy = False

    # ========================================================================================== state

    def snapshot(self) -> FiBAState:
        """:class:`~swagkit.spec.snapshots.FiBAState`, nodes numbered in preorder, values and times as Python
        objects."""
        self._enter("snapshot")
        try:
            self._usable()
            return self._snapshot_obj()
        finally:
            self.busy = False

    cdef object _snapshot_obj(self):
        ids = {}
        order = []
        number_nodes(self.root, ids, order)
        root = snap_node(self, self.root, ids)
        return FiBAState(
            min_arity=self.min_arity,
            root=root,
            left_finger=ids.get(<Py_ssize_t>self.lf, -1),
            right_finger=ids.get(<Py_ssize_t>self.rf, -1),
            size=tree_size(self),
        )

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, min_arity=4):
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call, O(n)). The
        shape is checked first, exactly as the reference checks it (a malformed snapshot raises ``TypeError`` or
        ``ValueError``), and typed values are validated like ``insert``, all before a node is built."""
        cdef FiBA agg = cls(monoid, min_arity)
        cdef Node* x
        cdef Node* parent
        cdef Slot dummy
        cdef int tk = T_UNSET, k
        cdef Py_ssize_t i, nn, p
        order = _snapshot_order(snapshot, agg.min_arity, cls.algorithm)
        times_of = []
        for st, _ in order:
            ts = [_norm_time(t) for t in st.times]
            for t in ts:
                k = time_kind_of(t)
                tk = k if tk == T_UNSET else (tk if tk == k else T_OBJ)
            times_of.append(ts)
            if agg.kind != K_GENERIC:
                for v in st.values:
                    to_slot(agg.kind, v, &dummy)
                to_slot(agg.kind, st.agg, &dummy)
        push_free(agg, agg.root)  # recycled by the first node_new below
        agg.root = NULL
        agg.tkind = tk
        addrs = []
        linked = []
        for k in range(len(order)):
            st, parent_index = order[k]
            ts = times_of[k]
            x = node_new(agg, not st.children)
            nn = len(ts)
            if not x.leaf:
                for i in range(nn + 1):
                    x.children[i] = NULL
            for i in range(nn):
                key_slot(tk, ts[i], &x.times[i])
                if tk == T_OBJ:
                    Py_INCREF(ts[i])
                if agg.kind != K_GENERIC:
                    to_slot(agg.kind, st.values[i], &x.values[i])
                else:
                    slot_put(&x.values[i], st.values[i])
            x.n = <int>nn
            if agg.kind != K_GENERIC:
                to_slot(agg.kind, st.agg, &x.agg)
            else:
                set_agg_g(x, st.agg)
            x.count = st.count
            x.left_spine = st.left_spine
            x.right_spine = st.right_spine
            if parent_index is None:
                agg.root = x
            else:
                p = parent_index
                parent = <Node*><Py_ssize_t>addrs[p]
                x.parent = parent
                parent.children[<Py_ssize_t>linked[p]] = x
                linked[p] += 1
            addrs.append(<Py_ssize_t>x)
            linked.append(0)
        agg.lf = <Node*><Py_ssize_t>addrs[snapshot.left_finger]
        agg.rf = <Node*><Py_ssize_t>addrs[snapshot.right_finger]
        agg.tcount = 0
        return agg

    def __reduce__(self):
        counts = {"combine_count": self.ccount, "touched_count": self.tcount}
        return (_restore, (type(self), self.monoid, {"min_arity": self.min_arity}, self.snapshot(), counts))

    def __copy__(self):
        counts = {"combine_count": self.ccount, "touched_count": self.tcount}
        return _restore(type(self), self.monoid, {"min_arity": self.min_arity}, self.snapshot(), counts)

    def _check(self) -> None:
        """Check every invariant (:func:`swagkit.spec.checkers.fiba.check_fiba`) against the own contents."""
        from swagkit.spec.checkers.fiba import check_fiba

        self._enter("_check")
        try:
            self._usable()
            check_fiba(self._snapshot_obj(), self.monoid, self._items_list())
        finally:
            self.busy = False

    def _memory_bytes(self) -> int:
        """Bytes malloc'd: every node allocated so far (live or on the free list) and the bulk scratch."""
        return self.nalloc * self.node_bytes + self.s_cap * (2 * sizeof(Slot) + 2 * sizeof(Node*))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


cdef class FiBALoop(FiBA):
    """FiBALoop(monoid, min_arity=4)
--

FiBA with bulk operations emulated by loops of single operations (id ``fiba_loop``), compiled: the
    paper's ``nb_fiba`` baseline (003 §7), ``oldest()`` from the left finger. Same API, snapshots, counters,
    exception safety (refuse) and re-entry guard as :class:`swagkit.reference.FiBALoop`.
    """

    algorithm = "fiba_loop"

    def bulk_evict(self, time: Any) -> int:
        """``evict()`` while the oldest entry's time is ≤ ``time``; returns how many. Amortized O(m) ⊗. One
        operation: if a ⊗ fails part-way, the structure refuses and ``salvage()`` gives the entries after the
        whole bulk eviction (those above ``time``)."""
        cdef Slot t
        cdef int64_t evicted = 0
        self._enter("bulk_evict")
        try:
            self._usable()
            time = _norm_time(time)
            check_time(time)
            if tree_size(self) == 0:
                return 0
            time_key(self, time, &t)
            try:
                while tree_size(self) > 0 and not t_lt(self.tkind, t, self.lf.times[0]):
                    evict_op(self)
                    evicted += 1
            except BaseException:
                if evicted or self.broken:
                    self._failed()
                    self.fix = ("above", time)
                raise
            return evicted
        finally:
            self.busy = False

    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """Check the bulk (order, values) like :meth:`FiBA.bulk_insert`, then ``insert`` each pair in order.
        Amortized O(m log d) ⊗. One operation: each insert logs the previous value of its time first, so if a ⊗
        fails part-way the structure refuses and ``salvage()`` gives the entries before the bulk."""
        cdef Slot v
        cdef Py_ssize_t j
        cdef list log = []
        self._enter("bulk_insert")
        try:
            self._usable()
            times = []
            values = []
            for t, x in pairs:
                if not (PyLong_CheckExact(t) or PyFloat_CheckExact(t)):
                    t = _norm_time(t)
                times.append(t)
                values.append(x)
            check_bulk_order(times)
            if self.kind != K_GENERIC:
                for x in values:
                    to_slot(self.kind, x, &v)
            else:
                lift = self._lift
                values = [lift(x) for x in values]
            try:
                for j in range(len(times)):
                    self._insert_obj(times[j], values[j], log, True)
            except BaseException:
                if log:  # something may have changed: refuse, salvaging the entries before the bulk
                    self._failed()
                    self.fix = ("undo", log)
                raise
        finally:
            self.busy = False


cdef int evict_op(FiBA o) except -1:
    """evict's steps on a non-empty window, refusing afterwards if a ⊗ failed."""
    try:
        evict_core(o)
    except BaseException:
        o._failed()
        raise
    o._finish()
    return 0


cdef int clear_tree(FiBA o) except -1:
    """Drop every entry in O(1): the tree goes to the deferred free list, a fresh leaf (the old root, recycled)
    is the root."""
    push_free(o, o.root)
    o.root = node_new(o, True)
    o.lf = o.root
    o.rf = o.root
    return 0


# ================================================================================================ nodes

cdef inline void push_free(FiBA o, Node* x) noexcept nogil:
    """Defer freeing the dead subtree under ``x`` (003 §6): O(1) now, reclaimed by later allocations."""
    x.next_free = o.free_head
    o.free_head = x


cdef inline void free_emptied(FiBA o, Node* x) noexcept nogil:
    """Defer freeing one node whose entries and children were moved elsewhere."""
    x.n = -1
    push_free(o, x)


cdef void node_release(FiBA o, Node* x) noexcept:
    """Release what a dead node still owns (entries, aggregate) and push its children (dead subtrees)."""
    cdef int i
    if x.n >= 0:
        if x.tobj:
            for i in range(x.n):
                Py_XDECREF(x.times[i].o)
        if o.kind == K_GENERIC:
            for i in range(x.n):
                Py_XDECREF(x.values[i].o)
        if not x.leaf:
            for i in range(x.n + 1):
                if x.children[i] != NULL:
                    push_free(o, x.children[i])
    x.n = -1
    if o.kind == K_GENERIC:
        Py_XDECREF(x.agg.o)
        x.agg.o = NULL


cdef Node* node_new(FiBA o, bint leaf) except NULL:
    """A fresh node, recycled from the free list when possible (pop one, push its children: O(μ))."""
    cdef Node* x
    cdef char* mem
    cdef int cap = o.max_arity
    o.tcount += 1
    if o.free_head != NULL:
        x = o.free_head
        o.free_head = x.next_free
        node_release(o, x)
    else:
        mem = <char*>malloc(o.node_bytes)
        if mem == NULL:
            raise MemoryError()
        x = <Node*>mem
        x.children = <Node**>(mem + sizeof(Node))
        x.agg.o = NULL
        o.nalloc += 1
    # the arrays at the start of the block (a recycled node's may have been advanced by the slide kernel)
    x.times = <Slot*>(<char*>x + sizeof(Node) + (cap + 1) * sizeof(Node*))
    x.values = x.times + cap
    x.parent = NULL
    x.n = 0
    x.leaf = leaf
    x.left_spine = 0
    x.right_spine = 0
    x.count = 0
    x.tobj = o.tkind == T_OBJ
    x.next_free = NULL
    x.agg = o.one
    if o.kind == K_GENERIC:
        Py_XINCREF(o.one.o)
    return x


cdef inline int64_t tree_size(FiBA o) noexcept nogil:
    if o.root.leaf:
        return o.root.n
    return o.lf.count + o.root.count + o.rf.count


cdef inline void set_agg_g(Node* x, object v) noexcept:
    cdef PyObject* old = x.agg.o
    Py_INCREF(v)
    x.agg.o = <PyObject*>v
    Py_XDECREF(old)


cdef inline void release_entry(FiBA o, Node* x, int i) noexcept:
    if x.tobj:
        Py_XDECREF(x.times[i].o)
    if o.kind == K_GENERIC:
        Py_XDECREF(x.values[i].o)


# ================================================================================================ times

cdef int convert_to_obj(FiBA o) except -1:
    """Switch every live node to Python-object timestamps (once; dead nodes keep their own flag). Every time is
    boxed first, then written (no allocation while the tree is half converted)."""
    cdef Node* x
    cdef Py_ssize_t k
    cdef int i
    cdef int tk = o.tkind
    cdef list work = []
    cdef list todo = []
    cdef tuple boxes
    # iterative traversal with a Python list of addresses (the tree may be wide)
    work.append(<Py_ssize_t>o.root)
    while work:
        x = <Node*><Py_ssize_t>work.pop()
        if not x.tobj:
            todo.append(<Py_ssize_t>x)
            todo.append(tuple([t_box(tk, x.times[i]) for i in range(x.n)]))
        if not x.leaf:
            for i in range(x.n + 1):
                work.append(<Py_ssize_t>x.children[i])
    for k in range(0, len(todo), 2):
        x = <Node*><Py_ssize_t>todo[k]
        boxes = <tuple>todo[k + 1]
        for i in range(x.n):
            b = boxes[i]
            Py_INCREF(b)
            x.times[i].o = <PyObject*>b
        x.tobj = 1
    o.tkind = T_OBJ
    return 0


cdef int time_key(FiBA o, object t, Slot* out) except -1:
    """The search key for ``t`` in the tree's time representation (switching the tree to objects if needed)."""
    cdef int want = time_kind_of(t)
    cdef int overflow = 0
    if tree_size(o) == 0 and o.root.leaf and o.root.n == 0:
        o.tkind = want
        o.root.tobj = want == T_OBJ
    elif o.tkind != want and o.tkind != T_OBJ:
        convert_to_obj(o)
    if o.tkind == T_I64:
        out.i = PyLong_AsLongLongAndOverflow(t, &overflow)
    elif o.tkind == T_F64:
        out.f = PyFloat_AS_DOUBLE(t)
    else:
        out.o = <PyObject*>t
    return 0


cdef inline void key_slot(int tk, object t, Slot* out) noexcept:
    """``t`` as a search key of time kind ``tk`` (the caller made sure it is of that kind)."""
    cdef int overflow = 0
    if tk == T_I64:
        out.i = PyLong_AsLongLongAndOverflow(t, &overflow)
    elif tk == T_F64:
        out.f = PyFloat_AS_DOUBLE(t)
    else:
        out.o = <PyObject*>t


cdef int time_key2(FiBA o, object a, object b, Slot* sa, Slot* sb) except -1:
    if time_kind_of(a) != o.tkind or time_kind_of(b) != o.tkind:
        if o.tkind != T_OBJ:
            convert_to_obj(o)
    time_key(o, a, sa)
    time_key(o, b, sb)
    return 0


cdef inline void store_time(FiBA o, Slot* dst, Slot t) noexcept:
    """Store a (borrowed) search key into a node slot: the node owns a reference in object mode."""
    dst[0] = t
    if o.tkind == T_OBJ:
        Py_INCREF(<object>t.o)


# ================================================================================================ aggregates

cdef inline int fold_node(Node* x, Slot one, int kind) noexcept nogil:
    """The fold of the node's operands in the reference's order (``_recompute``): [Π↘(parent)] [Π↑(c0)] v0
    Π↑(c1) v1 … v(n−1) [Π↑(cn)] [Π↙(parent)], by its kind, into its aggregate and count. Returns the number
    of ⊗ (k operands cost k − 1: counted, not tallied)."""
    cdef Node* p = x.parent
    cdef Node** ch = x.children
    cdef Slot* vs = x.values
    cdef Node* c
    cdef int n = x.n, i, nops = 0
    cdef int mode = mode_of(x)
    cdef bint internal = not x.leaf
    cdef bint grand = p != NULL and p.parent != NULL
    cdef Slot acc = one
    cdef int64_t cnt = 0
    if mode == M_RIGHT and grand:
        acc = p.agg
        cnt = p.count
        nops = 1
    if internal and (mode == M_RIGHT or mode == M_UP):
        c = ch[0]
        acc = tcomb(kind, acc, c.agg) if nops else c.agg
        cnt += c.count
        nops += 1
    if n > 0:
        acc = tcomb(kind, acc, vs[0]) if nops else vs[0]
        if internal:
            for i in range(1, n):
                c = ch[i]
                acc = tcomb(kind, tcomb(kind, acc, c.agg), vs[i])
                cnt += c.count
            nops += 2 * n - 1
        else:
            for i in range(1, n):
                acc = tcomb(kind, acc, vs[i])
            nops += n
        cnt += n
    if internal and (mode == M_LEFT or mode == M_UP):
        c = ch[n]
        acc = tcomb(kind, acc, c.agg) if nops else c.agg
        cnt += c.count
        nops += 1
    if mode == M_LEFT and grand:
        acc = tcomb(kind, acc, p.agg) if nops else p.agg
        cnt += p.count
        nops += 1
    x.agg = acc
    x.count = cnt
    return nops - 1 if nops else 0


cdef inline void recompute_t_kind(FiBA o, Node* x, int kind) noexcept nogil:
    o.ccount += fold_node(x, o.one, kind)


cdef void recompute_t(FiBA o, Node* x) noexcept:
    cdef int kind = o.kind
    if kind == K_SUM_F:
        recompute_t_kind(o, x, K_SUM_F)
    elif kind == K_MAX_F:
        recompute_t_kind(o, x, K_MAX_F)
    elif kind == K_MIN_F:
        recompute_t_kind(o, x, K_MIN_F)
    elif kind == K_SUM_I:
        recompute_t_kind(o, x, K_SUM_I)
    elif kind == K_MAX_I:
        recompute_t_kind(o, x, K_MAX_I)
    else:
        recompute_t_kind(o, x, K_MIN_I)


cdef int recompute_g(FiBA o, Node* x) except -1:
    cdef Node* p = x.parent
    cdef int n = x.n, i
    cdef bint internal = not x.leaf
    cdef int mode = mode_of(x)
    cdef int64_t cnt = 0
    cdef list ops = []
    if mode == M_RIGHT and p.parent != NULL:
        ops.append(<object>p.agg.o)
        cnt += p.count
    if (mode == M_RIGHT or mode == M_UP) and internal:
        ops.append(<object>x.children[0].agg.o)
        cnt += x.children[0].count
    for i in range(n):
        if internal and i > 0:
            ops.append(<object>x.children[i].agg.o)
            cnt += x.children[i].count
        ops.append(<object>x.values[i].o)
        cnt += 1
    if (mode == M_LEFT or mode == M_UP) and internal:
        ops.append(<object>x.children[n].agg.o)
        cnt += x.children[n].count
    if mode == M_LEFT and p.parent != NULL:
        ops.append(<object>p.agg.o)
        cnt += p.count
    acc = fold_g(o, ops, True)
    set_agg_g(x, acc)
    x.count = cnt
    return 0


cdef object gcomb_agg(FiBA o, object a, object b):
    """``a ⊗ b`` of an aggregate recomputation (the reference's ``_otimes``): once one raised during the running
    update, the later ones are skipped (neither called nor counted; ``a`` stands in) so that the update finishes
    its surgery; the update re-raises at its end (``_finish``)."""
    if o.fault is not None:
        return a
    o.ccount += 1
    try:
        return o._combine(a, b)
    except BaseException as err:
        o.fault = err
        o.broken = True
        return a


cdef object fold_g(FiBA o, list ops, bint skip):
    """The left fold of ``ops``: with ``skip``, an aggregate's (``gcomb_agg``); else an answer's (raises)."""
    cdef Py_ssize_t i
    if not ops:
        return <object>o.one.o
    acc = ops[0]
    if skip:
        for i in range(1, len(ops)):
            acc = gcomb_agg(o, acc, ops[i])
        return acc
    comb = o._combine
    for i in range(1, len(ops)):
        o.ccount += 1
        acc = comb(acc, ops[i])
    return acc


cdef inline int recompute(FiBA o, Node* x) except -1:
    """``localRepairAgg``: recompute by the formula of the node's kind (003 §3.2)."""
    o.tcount += 1
    if o.kind != K_GENERIC:
        recompute_t(o, x)
        return 0
    return recompute_g(o, x)


cdef inline int recompute_if_up(FiBA o, Node* x) except -1:
    if has_up(x):
        recompute(o, x)
    return 0


cdef int walk_spine(FiBA o, Node* top, bint last) except -1:
    cdef Node* x = top
    while not x.leaf:
        x = x.children[x.n] if last else x.children[0]
        recompute(o, x)
    return 0


cdef int repair_aggs(FiBA o, Node* x, bint hit_left, bint hit_right, int climb) except -1:
    """``repairAggs``: climb through up-aggregate nodes (at least ``climb`` levels), then pass down."""
    cdef Node* p
    while True:
        recompute(o, x)
        p = x.parent
        if p == NULL:
            break
        if climb > 0:
            climb -= 1
            hit_left = hit_left or x.left_spine
            hit_right = hit_right or x.right_spine
        elif x.left_spine or x.right_spine:
            break
        x = p
    if x.parent != NULL:
        hit_left = x.left_spine
        hit_right = x.right_spine
    if hit_left:
        walk_spine(o, x, False)
    if hit_right:
        walk_spine(o, x, True)
    return 0


# ================================================================================================ search

cdef inline int local_search(int tk, Node* x, Slot t, bint* found) except -2:
    """First i with t ≤ times[i] (n when none), and whether equal."""
    cdef int i, n = x.n
    if tk != T_OBJ:
        if n == 0 or t_lt(tk, x.times[n - 1], t):
            found[0] = False
            return n
    for i in range(n):
        if t_lt(tk, t, x.times[i]):
            found[0] = False
            return i
        if t_eq(tk, t, x.times[i]):
            found[0] = True
            return i
    found[0] = False
    return n


cdef Node* search_start(FiBA o, Slot t) except NULL:
    cdef Node* root = o.root
    cdef Node* x
    cdef int tk = o.tkind
    if root.leaf:
        return root
    if t_lt(tk, t, root.times[0]):
        x = o.lf
        o.tcount += 1
        while x != root and t_lt(tk, x.times[x.n - 1], t):
            x = x.parent
            o.tcount += 1
        return x
    if t_lt(tk, root.times[root.n - 1], t):
        x = o.rf
        o.tcount += 1
        while x != root and t_lt(tk, t, x.times[0]):
            x = x.parent
            o.tcount += 1
        return x
    return root


cdef Node* search(FiBA o, Slot t, int* idx, bint* found, int* depth) except NULL:
    cdef Node* x = search_start(o, t)
    cdef int i
    depth[0] = 0
    while True:
        o.tcount += 1
        i = local_search(o.tkind, x, t, found)
        if found[0] or x.leaf:
            idx[0] = i
            return x
        x = x.children[i]
        depth[0] += 1


# ================================================================================================ insert

cdef int insert_core(FiBA o, Slot t, Slot v, object vobj, list log, object tobj) except -1:
    """insert's steps (the reference's ``_insert``): the search reads only; ``log`` (FiBALoop's bulk insert) gets
    ``(time, value before or _MISSING)`` before anything changes; a failed value ⊗ (computed first) changes
    nothing and leaves the tree usable, a failed aggregate ⊗ lets the surgery finish and the structure refuses
    afterwards. ``tobj``: the time as a Python object (for the log)."""
    cdef Node* x
    cdef int i, depth = 0
    cdef bint found = False
    x = search(o, t, &i, &found, &depth)
    if log is not None:
        log.append((tobj, o._val(x.values[i]) if found else _MISSING))
    if found and o.kind == K_GENERIC:
        o.ccount += 1
        vobj = o._combine(<object>x.values[i].o, vobj)  # the entry's new value, before anything changes
    try:
        insert_at(o, x, i, found, t, v, vobj)
    except BaseException:
        o._failed()
        raise
    o._finish()
    return 0


cdef int insert_at(FiBA o, Node* x, int i, bint found, Slot t, Slot v, object vobj) except -1:
    """Insert at the searched place; for a ``found`` generic entry ``vobj`` is already ``old ⊗ new``."""
    cdef Node* top
    cdef int n
    cdef bint hl = False, hr = False
    if found:
        if o.kind != K_GENERIC:
            o.ccount += 1
            x.values[i] = tcomb(o.kind, x.values[i], v)
        else:
            slot_set(&x.values[i], vobj)  # generic: the caller computed old ⊗ new before anything changed
        repair_aggs(o, x, False, False, 0)
    elif x == o.rf and i == x.n and x.n + 2 <= o.max_arity:
        n = x.n
        store_time(o, &x.times[n], t)
        x.values[n] = v
        x.n = n + 1
        if o.kind != K_GENERIC:
            if n > 0:
                o.ccount += 1
                x.agg = tcomb(o.kind, x.agg, v)
            else:
                x.agg = v
        else:
            Py_INCREF(vobj)
            if n > 0:
                set_agg_g(x, gcomb_agg(o, <object>x.agg.o, vobj))
            else:
                set_agg_g(x, vobj)
        x.count += 1
    else:
        n = x.n
        move_slots(&x.times[i + 1], &x.times[i], n - i)
        move_slots(&x.values[i + 1], &x.values[i], n - i)
        store_time(o, &x.times[i], t)
        x.values[i] = v
        if o.kind == K_GENERIC:
            Py_INCREF(vobj)
        x.n = n + 1
        top = rebalance_after_insert(o, x, &hl, &hr)
        repair_aggs(o, top, hl, hr, 0)
    return 0


cdef Node* rebalance_after_insert(FiBA o, Node* x, bint* hl, bint* hr) except NULL:
    hl[0] = False
    hr[0] = False
    while x.n + 1 > o.max_arity:
        if x.parent == NULL:
            height_increase(o)
            hl[0] = True
            hr[0] = True
        hl[0] = hl[0] or x.left_spine
        hr[0] = hr[0] or x.right_spine
        split(o, x)
        x = x.parent
    return x


cdef int height_increase(FiBA o) except -1:
    cdef Node* old = o.root
    cdef Node* r = node_new(o, False)
    r.children[0] = old
    r.n = 0
    old.parent = r
    old.left_spine = 1
    old.right_spine = 1
    o.root = r
    return 0


cdef int insert_child(Node* p, int j, Slot t, Slot v, Node* c) noexcept:
    """Entry (t, v) at index j of internal ``p``, ``c`` as child j+1 (references move)."""
    cdef int n = p.n
    move_slots(&p.times[j + 1], &p.times[j], n - j)
    move_slots(&p.values[j + 1], &p.values[j], n - j)
    move_nodes(&p.children[j + 2], &p.children[j + 1], n - j)
    p.times[j] = t
    p.values[j] = v
    p.children[j + 1] = c
    p.n = n + 1
    c.parent = p
    return 0


cdef int split(FiBA o, Node* left) except -1:
    cdef int mu = o.min_arity, i
    cdef Node* parent = left.parent
    cdef Node* right = node_new(o, left.leaf)
    cdef Slot st = left.times[mu]
    cdef Slot sv = left.values[mu]
    right.n = left.n - mu - 1
    move_slots(right.times, &left.times[mu + 1], right.n)
    move_slots(right.values, &left.values[mu + 1], right.n)
    if not left.leaf:
        move_nodes(right.children, &left.children[mu + 1], right.n + 1)
        for i in range(right.n + 1):
            right.children[i].parent = right
    left.n = mu
    right.parent = parent
    insert_child(parent, child_index(parent, left), st, sv, right)
    if left.right_spine:
        left.right_spine = 0
        right.right_spine = 1
    if o.rf == left:
        o.rf = right
    recompute_if_up(o, left)
    recompute_if_up(o, right)
    return 0


# ================================================================================================ evict

cdef inline void shift_left(Slot* a, int n) noexcept nogil:
    """``a[0:n-1] = a[1:n]``."""
    move_slots(a, a + 1, n - 1)


cdef int evict_core(FiBA o) except -1:
    cdef Node* leaf = o.lf
    cdef Node* top
    cdef bint hl, hr
    cdef int climbed = 0
    release_entry(o, leaf, 0)
    shift_left(leaf.times, leaf.n)
    shift_left(leaf.values, leaf.n)
    leaf.n -= 1
    if leaf.parent != NULL and leaf.n + 1 >= o.min_arity:
        # no underflow: the reference's rebalance does nothing and its repair recomputes this left-spine leaf
        # only (the climb stops at it, the pass down starts below it): the same ⊗ and visits, fewer calls
        recompute(o, leaf)
        return 0
    hl = leaf.left_spine
    hr = leaf.right_spine
    top = rebalance_after_evict(o, leaf, &hl, &hr, &climbed)
    repair_aggs(o, top, hl, hr, 0)
    return 0


cdef int remove_core(FiBA o, Node* x, int i) except -1:
    cdef Node* leaf
    cdef Node* top
    cdef int extra = 0, climbed = 0, n
    cdef bint hl, hr
    if x.leaf:
        leaf = x
        release_entry(o, leaf, i)
        n = leaf.n
        move_slots(&leaf.times[i], &leaf.times[i + 1], n - i - 1)
        move_slots(&leaf.values[i], &leaf.values[i + 1], n - i - 1)
        leaf.n = n - 1
    else:
        release_entry(o, x, i)
        if x.children[i + 1].n + 1 > o.min_arity:  # the oldest entry of the right subtree
            leaf = x.children[i + 1]
            extra = 1
            while not leaf.leaf:
                leaf = leaf.children[0]
                extra += 1
            x.times[i] = leaf.times[0]
            x.values[i] = leaf.values[0]
            move_slots(&leaf.times[0], &leaf.times[1], leaf.n - 1)
            move_slots(&leaf.values[0], &leaf.values[1], leaf.n - 1)
            leaf.n -= 1
        else:  # the youngest entry of the left subtree
            leaf = x.children[i]
            extra = 1
            while not leaf.leaf:
                leaf = leaf.children[leaf.n]
                extra += 1
            x.times[i] = leaf.times[leaf.n - 1]
            x.values[i] = leaf.values[leaf.n - 1]
            leaf.n -= 1
        o.tcount += extra
    hl = leaf.left_spine
    hr = leaf.right_spine
    top = rebalance_after_evict(o, leaf, &hl, &hr, &climbed)
    repair_aggs(o, top, hl, hr, extra - climbed if extra > climbed else 0)
    return 0


cdef Node* rebalance_after_evict(FiBA o, Node* x, bint* hl, bint* hr, int* climbed) except NULL:
    cdef int mu = o.min_arity, j, sep
    cdef Node* parent
    cdef Node* sibling
    climbed[0] = 0
    while x.parent != NULL and x.n + 1 < mu:
        parent = x.parent
        j = child_index(parent, x)
        if j == parent.n:
            sibling = parent.children[j - 1]
            sep = j - 1
        else:
            sibling = parent.children[j + 1]
            sep = j
        hl[0] = hl[0] or sibling.left_spine or x.left_spine
        hr[0] = hr[0] or sibling.right_spine or x.right_spine
        climbed[0] += 1
        if sibling.n + 1 <= mu:
            merge(o, parent, sep)
            if parent.parent == NULL and parent.n == 0:
                height_decrease(o)
                hl[0] = True
                hr[0] = True
                return o.root
            x = parent
        else:
            move1(o, parent, sep, x)
            return parent
    return x


cdef int merge(FiBA o, Node* parent, int i) except -1:
    """Child i absorbs separator i and child i+1 (freed); moves the right-spine flag and the right finger."""
    cdef Node* left = parent.children[i]
    cdef Node* right = parent.children[i + 1]
    cdef int ln = left.n, rn = right.n, k, pn = parent.n
    left.times[ln] = parent.times[i]
    left.values[ln] = parent.values[i]
    move_slots(&left.times[ln + 1], right.times, rn)
    move_slots(&left.values[ln + 1], right.values, rn)
    if not left.leaf:
        move_nodes(&left.children[ln + 1], right.children, rn + 1)
        for k in range(ln + 1, ln + rn + 2):
            left.children[k].parent = left
    left.n = ln + 1 + rn
    move_slots(&parent.times[i], &parent.times[i + 1], pn - i - 1)
    move_slots(&parent.values[i], &parent.values[i + 1], pn - i - 1)
    move_nodes(&parent.children[i + 1], &parent.children[i + 2], pn - i - 1)
    parent.n = pn - 1
    if right.right_spine:
        left.right_spine = 1
    if o.rf == right:
        o.rf = left
    free_emptied(o, right)
    recompute_if_up(o, left)
    return 0


cdef int move1(FiBA o, Node* parent, int i, Node* into) except -1:
    """Rotate one entry between children i and i+1 of ``parent`` into ``into``."""
    cdef Node* left = parent.children[i]
    cdef Node* right = parent.children[i + 1]
    cdef Node* c
    cdef int n
    if into == left:
        n = left.n
        left.times[n] = parent.times[i]
        left.values[n] = parent.values[i]
        parent.times[i] = right.times[0]
        parent.values[i] = right.values[0]
        move_slots(&right.times[0], &right.times[1], right.n - 1)
        move_slots(&right.values[0], &right.values[1], right.n - 1)
        if not left.leaf:
            c = right.children[0]
            move_nodes(&right.children[0], &right.children[1], right.n)
            c.parent = left
            left.children[n + 1] = c
        left.n = n + 1
        right.n -= 1
    else:
        n = right.n
        move_slots(&right.times[1], &right.times[0], n)
        move_slots(&right.values[1], &right.values[0], n)
        right.times[0] = parent.times[i]
        right.values[0] = parent.values[i]
        parent.times[i] = left.times[left.n - 1]
        parent.values[i] = left.values[left.n - 1]
        if not right.leaf:
            c = left.children[left.n]
            move_nodes(&right.children[1], &right.children[0], n + 1)
            c.parent = right
            right.children[0] = c
        left.n -= 1
        right.n = n + 1
    recompute_if_up(o, left)
    recompute_if_up(o, right)
    return 0


cdef int height_decrease(FiBA o) except -1:
    cdef Node* old = o.root
    cdef Node* child = old.children[0]
    free_emptied(o, old)
    become_root(o, child)
    return 0


cdef inline void become_root(FiBA o, Node* x) noexcept nogil:
    x.parent = NULL
    x.left_spine = 0
    x.right_spine = 0
    o.root = x


# ================================================================================================ bulk evict

cdef Node* bulk_evict_boundary(FiBA o, Slot t) except NULL:
    """Steps 1 and 2 of 003 §4 (the reference's ``_search_boundary`` and ``_evict_pass_up``)."""
    cdef Node* b_node[MAXLEVELS]
    cdef Node* b_nb[MAXLEVELS]
    cdef Node* b_anc[MAXLEVELS]
    cdef int b_a[MAXLEVELS]
    cdef int b_k[MAXLEVELS]
    cdef int nb = 0, i, j, a, k, level, deficit, surplus, mu = o.min_arity
    cdef bint found = False
    cdef Node* x
    cdef Node* neighbor
    cdef Node* ancestor
    cdef Node* top = NULL
    cdef Node* skip = NULL
    cdef Node* old_root
    cdef Node* new_root
    cdef Node* holder
    cdef Node* left
    cdef int tk = o.tkind
    # Step 1: the boundary search (reads only)
    x = search_start(o, t)
    if x == o.root:
        neighbor = NULL
        ancestor = NULL
        a = -1
    else:
        ancestor = x.parent
        j = child_index(ancestor, x)
        neighbor = ancestor.children[j + 1] if j + 1 <= ancestor.n else NULL
        a = j
    while True:
        o.tcount += 1
        i = local_search(tk, x, t, &found)
        b_node[nb] = x
        b_nb[nb] = neighbor
        b_anc[nb] = ancestor
        b_a[nb] = a
        b_k[nb] = i + 1 if found else i
        nb += 1
        if found or x.leaf:
            break
        if i == x.n:
            if neighbor != NULL:
                neighbor = neighbor.children[0]
        else:
            ancestor = x
            neighbor = x.children[i + 1]
            a = i
        x = x.children[i]
    # Step 2: the pass up, leaf level first
    for level in range(nb):
        x = b_node[nb - 1 - level]
        neighbor = b_nb[nb - 1 - level]
        ancestor = b_anc[nb - 1 - level]
        a = b_a[nb - 1 - level]
        k = b_k[nb - 1 - level]
        if neighbor != NULL and level > 0:
            recompute_if_up(o, neighbor)
        if skip == NULL or skip == x:
            if skip == x:
                k = 0
            skip = NULL
            local_evict_front(o, x, k)
            recompute_if_up(o, x)
            if neighbor == NULL:
                old_root = o.root
                new_root = x.children[0] if (not x.leaf and x.n == 0) else x
                if new_root != old_root:
                    holder = new_root.parent
                    holder.children[holder.n] = NULL  # detach (its last child) before the old tree is freed
                    push_free(o, old_root)
                    become_root(o, new_root)
                repair_left_spine_info(o, o.root, level == 0)
                return o.root
            if x.n + 1 >= mu:
                top = x
            else:
                deficit = mu - (x.n + 1)
                surplus = (neighbor.n + 1) - mu
                if deficit <= surplus:
                    move_batch(o, x, neighbor, ancestor, a, deficit)
                elif x.parent == ancestor:
                    merge(o, ancestor, a)
                else:
                    merge_not_sibling(o, x, neighbor, ancestor, a)
                    skip = ancestor
                top = ancestor
        left = x if skip == NULL else neighbor
        repair_left_spine_info(o, left, level == 0)
    return top


cdef int local_evict_front(FiBA o, Node* x, int k) except -1:
    cdef int i, n = x.n
    o.tcount += 1
    if k:
        for i in range(k):
            release_entry(o, x, i)
        move_slots(&x.times[0], &x.times[k], n - k)
        move_slots(&x.values[0], &x.values[k], n - k)
        if not x.leaf:
            for i in range(k):
                push_free(o, x.children[i])
            move_nodes(&x.children[0], &x.children[k], n - k + 1)
        x.n = n - k
    return 0


cdef int move_batch(FiBA o, Node* x, Node* nb, Node* anc, int a, int k) except -1:
    """Move batch (003 Fig. 2): e_a and the neighbor's first k−1 entries and k children into ``x``."""
    cdef int n = x.n, i, m = nb.n
    x.times[n] = anc.times[a]
    x.values[n] = anc.values[a]
    move_slots(&x.times[n + 1], nb.times, k - 1)
    move_slots(&x.values[n + 1], nb.values, k - 1)
    anc.times[a] = nb.times[k - 1]
    anc.values[a] = nb.values[k - 1]
    move_slots(&nb.times[0], &nb.times[k], m - k)
    move_slots(&nb.values[0], &nb.values[k], m - k)
    if not x.leaf:
        move_nodes(&x.children[n + 1], nb.children, k)
        for i in range(n + 1, n + 1 + k):
            x.children[i].parent = x
        move_nodes(&nb.children[0], &nb.children[k], m - k + 1)
    x.n = n + k
    nb.n = m - k
    recompute_if_up(o, x)
    recompute_if_up(o, nb)
    return 0


cdef int merge_not_sibling(FiBA o, Node* x, Node* nb, Node* anc, int a) except -1:
    """Merge with a non-sibling (003 Fig. 3): the neighbor absorbs ``x`` and e_a at its front; ``x`` is
    detached and freed; the ancestor drops entries and children 0 … a."""
    cdef int n = x.n, m = nb.n, i, an = anc.n
    move_slots(&nb.times[n + 1], &nb.times[0], m)
    move_slots(&nb.values[n + 1], &nb.values[0], m)
    move_slots(&nb.times[0], x.times, n)
    move_slots(&nb.values[0], x.values, n)
    nb.times[n] = anc.times[a]
    nb.values[n] = anc.values[a]
    if not x.leaf:
        move_nodes(&nb.children[n + 1], &nb.children[0], m + 1)
        move_nodes(&nb.children[0], x.children, n + 1)
        for i in range(n + 1):
            nb.children[i].parent = nb
    nb.n = n + 1 + m
    x.parent.children[x.parent.n] = NULL
    free_emptied(o, x)
    for i in range(a):  # entries 0 … a−1 are ≤ t; e_a moved into the neighbor
        release_entry(o, anc, i)
    for i in range(a + 1):
        push_free(o, anc.children[i])
    move_slots(&anc.times[0], &anc.times[a + 1], an - a - 1)
    move_slots(&anc.values[0], &anc.values[a + 1], an - a - 1)
    move_nodes(&anc.children[0], &anc.children[a + 1], an - a)
    anc.n = an - a - 1
    recompute_if_up(o, nb)
    return 0


cdef inline void repair_left_spine_info(FiBA o, Node* x, bint recurse) noexcept:
    x.left_spine = x.parent != NULL
    if recurse:
        while not x.leaf:
            x = x.children[0]
            x.left_spine = 1
            o.tcount += 1
        o.lf = x


cdef int evict_repair(FiBA o, Node* top) except -1:
    cdef bint hl, hr
    cdef int climbed = 0
    if top.parent == NULL:
        if not top.leaf and top.n == 0:
            height_decrease(o)
            top = o.root
        repair_aggs(o, top, True, True, 0)
        return 0
    if top.n + 1 >= o.min_arity:
        repair_aggs(o, top, top.left_spine, top.right_spine, 0)
        return 0
    hl = top.left_spine
    hr = top.right_spine
    top = rebalance_after_evict(o, top, &hl, &hr, &climbed)
    repair_aggs(o, top, hl, hr, 0)
    return 0


# ================================================================================================ bulk insert

cdef bint bulk_order_ok(PyObject** pt, Py_ssize_t n) except -1:
    """Whether the times are valid (not NaN) and non-decreasing; in C for exact ints and floats."""
    cdef Py_ssize_t i
    cdef double a, b
    cdef long long x, y
    cdef int ox = 0, oy = 0
    for i in range(n):
        t = <object>pt[i]
        if PyFloat_CheckExact(t):
            if PyFloat_AS_DOUBLE(t) != PyFloat_AS_DOUBLE(t):
                return False
        elif not PyLong_CheckExact(t):
            check_time(t)
        if i == 0:
            continue
        prev = <object>pt[i - 1]
        if PyFloat_CheckExact(t) and PyFloat_CheckExact(prev):
            if PyFloat_AS_DOUBLE(t) < PyFloat_AS_DOUBLE(prev):
                return False
            continue
        if PyLong_CheckExact(t) and PyLong_CheckExact(prev):
            x = PyLong_AsLongLongAndOverflow(t, &ox)
            y = PyLong_AsLongLongAndOverflow(prev, &oy)
            if ox == 0 and oy == 0:
                if x < y:
                    return False
                continue
        if PyObject_RichCompareBool(t, prev, Py_LT):
            return False
    return True


cdef int bulk_insert_core(FiBA o, PyObject** pt, Slot* kv, Py_ssize_t m_raw, list keep) except -1:
    """003 §5: fold duplicates, Step 1 (multisearch), combine matches, Step 2 (levels), Step 3 (pass down).
    ``pt``/``kv``: the bulk's times (borrowed objects) and checked values (typed, or borrowed objects)."""
    cdef Py_ssize_t m, i, j, s, lv, nmatch = 0
    cdef Slot* kt = NULL
    cdef int tk, want
    cdef EventBuf cur, nxt, mg
    cdef Event ev
    cdef Event* me = NULL
    cdef int* mlevel = NULL
    cdef Tops tops
    cdef int top_dirty = -1, level
    cdef Py_ssize_t* dstart = NULL
    cdef Py_ssize_t* dcount = NULL
    cdef Event* dirty = NULL
    cur.e = NULL; cur.n = 0; cur.cap = 0
    nxt.e = NULL; nxt.n = 0; nxt.cap = 0
    mg.e = NULL; mg.n = 0; mg.cap = 0
    # the time representation for all keys (a switch to objects is invisible)
    if tree_size(o) == 0 and o.root.leaf and o.root.n == 0:
        want = time_kind_of(<object>pt[0])
        for i in range(1, m_raw):
            if time_kind_of(<object>pt[i]) != want:
                want = T_OBJ
                break
        o.tkind = want
        o.root.tobj = want == T_OBJ
    elif o.tkind != T_OBJ:
        for i in range(m_raw):
            if time_kind_of(<object>pt[i]) != o.tkind:
                convert_to_obj(o)
                break
    tk = o.tkind
    kt = <Slot*>malloc(m_raw * sizeof(Slot))
    me = <Event*>malloc(m_raw * sizeof(Event))
    mlevel = <int*>malloc(m_raw * sizeof(int))
    if kt == NULL or me == NULL or mlevel == NULL:
        free(kt); free(me); free(mlevel)
        raise MemoryError()
    try:
        # fold duplicates earlier ⊗ later (counted like the reference), compacting the arrays; nothing changes
        # in the tree before the multisearch is done, so a failure here changes nothing
        m = 0
        for i in range(m_raw):
            key_slot(tk, <object>pt[i], &kt[m])
            if m > 0 and t_eq(tk, kt[m - 1], kt[m]):
                o.ccount += 1
                if o.kind != K_GENERIC:
                    kv[m - 1] = tcomb(o.kind, kv[m - 1], kv[i])
                else:
                    y = o._combine(<object>kv[m - 1].o, <object>kv[i].o)  # nothing changed: the tree stays usable
                    keep.append(y)
                    kv[m - 1].o = <PyObject*>y
            else:
                kv[m] = kv[i]
                m += 1
        multisearch(o, kt, kv, m, &cur, me, mlevel, &nmatch)  # reads only
        # existing timestamps, generic: every ``old ⊗ new`` before anything changes
        if o.kind == K_GENERIC and nmatch > 0:
            combined = []
            for i in range(nmatch):  # a failure changes nothing: the tree stays usable
                o.ccount += 1
                combined.append(o._combine(<object>me[i].target.values[me[i].slot].o, <object>kv[me[i].seq].o))
        for i in range(nmatch):
            if mlevel[i] > top_dirty:
                top_dirty = mlevel[i]
        # every buffer the levels need, before anything changes: a level emits at most as many treelets as it
        # processes, and processes at most the bulk's plus the matches'
        dcount = <Py_ssize_t*>calloc(top_dirty + 2, sizeof(Py_ssize_t))
        dstart = <Py_ssize_t*>calloc(top_dirty + 2, sizeof(Py_ssize_t))
        dirty = <Event*>malloc((nmatch + 1) * sizeof(Event))
        if dcount == NULL or dstart == NULL or dirty == NULL:
            raise MemoryError()
        ev_reserve(&cur, m + nmatch + 1)
        ev_reserve(&nxt, m + nmatch + 1)
        ev_reserve(&mg, m + nmatch + 1)
        ensure_scratch(o, m + o.max_arity + 1)
        try:
            for i in range(nmatch):
                if o.kind != K_GENERIC:
                    o.ccount += 1
                    me[i].target.values[me[i].slot] = tcomb(o.kind, me[i].target.values[me[i].slot], kv[me[i].seq])
                else:
                    slot_set(&me[i].target.values[me[i].slot], combined[i])
            # the new leaf events own their keys and values
            for i in range(cur.n):
                s = cur.e[i].seq
                store_time(o, &cur.e[i].time, kt[s])
                cur.e[i].value = kv[s]
                if o.kind == K_GENERIC:
                    Py_INCREF(<object>kv[s].o)
            # group the matches by level, keeping seq order (a counting sort)
            for i in range(nmatch):
                dcount[mlevel[i]] += 1
            for lv in range(1, top_dirty + 1):
                dstart[lv] = dstart[lv - 1] + dcount[lv - 1]
            for lv in range(top_dirty + 1):
                dcount[lv] = 0
            for i in range(nmatch):
                lv = mlevel[i]
                ev.seq = me[i].seq
                ev.target = me[i].target
                ev.insert = 0
                ev.slot = 0
                ev.child = NULL
                dirty[dstart[lv] + dcount[lv]] = ev
                dcount[lv] += 1
            tops.left = NULL
            tops.right = NULL
            tops.root = False
            tops.left_from_root = False
            tops.right_from_root = False
            level = 0
            while cur.n > 0 or level <= top_dirty:
                nxt.n = 0
                if level <= top_dirty and dcount[level] > 0:
                    merge_events(&cur, &dirty[dstart[level]], dcount[level], &mg)
                    process_level(o, &mg, &nxt, &tops)
                else:
                    process_level(o, &cur, &nxt, &tops)
                cur, nxt = nxt, cur
                level += 1
            pass_down(o, &tops)
        except BaseException:
            o._failed()
            raise
    finally:
        free(kt); free(me); free(mlevel)
        free(cur.e); free(nxt.e); free(mg.e)
        free(dcount); free(dstart); free(dirty)
    o._finish()
    return 0


cdef int ev_reserve(EventBuf* b, Py_ssize_t cap) except -1:
    cdef Event* e
    if cap <= b.cap:
        return 0
    e = <Event*>realloc(b.e, cap * sizeof(Event))
    if e == NULL:
        raise MemoryError()
    b.e = e
    b.cap = cap
    return 0


cdef int multisearch(FiBA o, Slot* kt, Slot* kv, Py_ssize_t m, EventBuf* leaf_events, Event* me, int* mlevel,
                     Py_ssize_t* nmatch) except -1:
    """Step 1, ``doInitialMultisearch`` (reads only): see the reference."""
    cdef Node* p_node[MAXLEVELS]
    cdef Slot p_ub[MAXLEVELS]
    cdef bint p_has[MAXLEVELS]
    cdef int p_level[MAXLEVELS]
    cdef int sp, level, i, tk = o.tkind
    cdef Node* root = o.root
    cdef Node* x = o.rf
    cdef Slot t, ub
    cdef bint has_ub, found = False
    cdef Py_ssize_t seq
    cdef Event ev
    level = 0
    o.tcount += 1
    t = kt[0]
    while x != root and t_lt(tk, t, x.times[0]):
        x = x.parent
        level += 1
        o.tcount += 1
    p_node[0] = x
    p_has[0] = False
    p_level[0] = level
    sp = 1
    for seq in range(m):
        t = kt[seq]
        while sp > 1 and p_has[sp - 1] and not t_lt(tk, t, p_ub[sp - 1]):
            sp -= 1
        x = p_node[sp - 1]
        ub = p_ub[sp - 1]
        has_ub = p_has[sp - 1]
        level = p_level[sp - 1]
        while True:
            o.tcount += 1
            i = local_search(tk, x, t, &found)
            if found:
                me[nmatch[0]].seq = seq
                me[nmatch[0]].target = x
                me[nmatch[0]].slot = i
                mlevel[nmatch[0]] = level
                nmatch[0] += 1
                break
            if x.leaf:
                ev.seq = seq
                ev.target = x
                ev.insert = 1
                ev.slot = i
                ev.time = t
                ev.value = kv[seq]
                ev.child = NULL
                ev_append(leaf_events, ev)
                break
            if i < x.n:
                ub = x.times[i]
                has_ub = True
            x = x.children[i]
            level -= 1
            p_node[sp] = x
            p_ub[sp] = ub
            p_has[sp] = has_ub
            p_level[sp] = level
            sp += 1
    return 0


cdef int merge_events(EventBuf* a, Event* d, Py_ssize_t nd, EventBuf* out) except -1:
    """The level's treelets in tree order: ``a`` merged with this level's recomputations ``d``, by seq."""
    cdef Py_ssize_t i = 0, j = 0
    out.n = 0
    while i < a.n or j < nd:
        if j == nd or (i < a.n and a.e[i].seq < d[j].seq):
            ev_append(out, a.e[i])
            i += 1
        else:
            ev_append(out, d[j])
            j += 1
    a.n = 0
    return 0


cdef int process_level(FiBA o, EventBuf* evs, EventBuf* nxt, Tops* tops) except -1:
    cdef Py_ssize_t g = 0, h
    cdef Node* target
    while g < evs.n:
        target = evs.e[g].target
        h = g + 1
        while h < evs.n and evs.e[h].target == target:
            h += 1
        bulk_local_insert(o, target, &evs.e[g], h - g, nxt, tops)
        g = h
    evs.n = 0
    return 0


cdef int ensure_scratch(FiBA o, Py_ssize_t need) except -1:
    cdef Py_ssize_t cap
    cdef Slot* a
    cdef Slot* b
    cdef Node** c
    if need <= o.s_cap:
        return 0
    cap = max(need, 2 * o.s_cap, 64)
    a = <Slot*>realloc(o.s_times, cap * sizeof(Slot))
    if a == NULL:
        raise MemoryError()
    o.s_times = a
    b = <Slot*>realloc(o.s_values, cap * sizeof(Slot))
    if b == NULL:
        raise MemoryError()
    o.s_values = b
    c = <Node**>realloc(o.s_children, (cap + 1) * sizeof(Node*))
    if c == NULL:
        raise MemoryError()
    o.s_children = c
    c = <Node**>realloc(o.s_pieces, (cap + 1) * sizeof(Node*))
    if c == NULL:
        raise MemoryError()
    o.s_pieces = c
    o.s_cap = cap
    return 0


cdef int bulk_local_insert(FiBA o, Node* x, Event* grp, Py_ssize_t ng, EventBuf* nxt, Tops* tops) except -1:
    cdef int64_t seq = grp[0].seq
    cdef Py_ssize_t ninsert = 0, g, total, e, k
    cdef bint split_done = False
    cdef Node* last
    cdef Event ev
    o.tcount += 1
    for g in range(ng):
        if grp[g].insert:
            ninsert += 1
    if ninsert:
        total = x.n + ninsert
        ensure_scratch(o, total + 1)
        # interleave: the treelets of slot s go just before original entry s (references move)
        k = 0
        g = 0
        if not x.leaf:
            o.s_children[0] = x.children[0]
        for e in range(x.n + 1):
            while g < ng and (not grp[g].insert or grp[g].slot == e):
                if grp[g].insert:
                    o.s_times[k] = grp[g].time
                    o.s_values[k] = grp[g].value
                    if not x.leaf:
                        o.s_children[k + 1] = grp[g].child
                    k += 1
                g += 1
            if e < x.n:
                o.s_times[k] = x.times[e]
                o.s_values[k] = x.values[e]
                if not x.leaf:
                    o.s_children[k + 1] = x.children[e + 1]
                k += 1
        if total + 1 > o.max_arity:
            bulk_split(o, x, total, seq, nxt, tops)
            split_done = True
        else:
            last = x.children[x.n] if not x.leaf else NULL
            move_slots(x.times, o.s_times, total)
            move_slots(x.values, o.s_values, total)
            x.n = <int>total
            if not x.leaf:
                move_nodes(x.children, o.s_children, total + 1)
                for e in range(total + 1):
                    x.children[e].parent = x
                if x.parent == NULL and x.children[total] != last:
                    tops.right_from_root = True
    if has_up(x):
        if not split_done:
            recompute(o, x)
            ev.seq = seq
            ev.target = x.parent
            ev.insert = 0
            ev.slot = 0
            ev.child = NULL
            ev_append(nxt, ev)
    else:
        if x.left_spine:
            tops.left = x
        if x.right_spine:
            tops.right = x
        if x.parent == NULL:
            tops.root = True
    return 0


cdef int bulk_split(FiBA o, Node* x, Py_ssize_t total, int64_t seq, EventBuf* nxt, Tops* tops) except -1:
    """``bulkSplit`` (Claim 1) of the interleaved scratch sequence (``total`` entries, arity total+1)."""
    cdef int mu = o.min_arity, b, kpieces, r, slot, piece_i
    cdef Py_ssize_t p = total + 1, e = 0, c = 0, q
    cdef Node* parent
    cdef Node* piece
    cdef Node* prev
    cdef bint from_right
    cdef Event ev
    cdef Node* pieces_first
    if x.parent == NULL:
        height_increase(o)
        tops.left_from_root = True
        tops.right_from_root = True
    parent = x.parent
    kpieces = <int>(p // (mu + 1))
    r = <int>(p - kpieces * (mu + 1))
    # pieces: (kpieces pieces of μ+1 and a last μ) when r = μ, else (kpieces−1 of μ+1 and a last μ+1+r)
    cdef int npieces = kpieces + 1 if r == mu else kpieces
    cdef int lastsize = mu if r == mu else mu + 1 + r
    slot = child_index(parent, x)
    from_right = x.right_spine
    cdef Node** arr = o.s_pieces  # room for total + 1 ≥ npieces (ensure_scratch)
    if True:
        arr[0] = x
        for piece_i in range(1, npieces):
            arr[piece_i] = node_new(o, x.leaf)
        for piece_i in range(npieces):
            b = lastsize if piece_i == npieces - 1 else mu + 1
            piece = arr[piece_i]
            move_slots(piece.times, &o.s_times[e], b - 1)
            move_slots(piece.values, &o.s_values[e], b - 1)
            e += b - 1
            piece.n = b - 1
            if not x.leaf:
                move_nodes(piece.children, &o.s_children[c], b)
                for q in range(b):
                    piece.children[q].parent = piece
                c += b
            piece.parent = parent
            if piece_i + 1 < npieces:
                ev.seq = seq
                ev.target = parent
                ev.insert = 1
                ev.slot = slot
                ev.time = o.s_times[e]
                ev.value = o.s_values[e]
                ev.child = arr[piece_i + 1]
                ev_append(nxt, ev)
                e += 1
        if from_right:
            x.right_spine = 0
            arr[npieces - 1].right_spine = 1
            if o.rf == x:
                o.rf = arr[npieces - 1]
        for piece_i in range(npieces):
            recompute_if_up(o, arr[piece_i])
        if x.left_spine:
            tops.left = x
        if arr[npieces - 1].right_spine:
            tops.right = arr[npieces - 1]
    return 0


cdef int pass_down(FiBA o, Tops* tops) except -1:
    cdef Node* root = o.root
    cdef Node* top
    if tops.root:
        recompute(o, root)
    top = root if tops.left_from_root else tops.left
    if top != NULL:
        if top != root:
            recompute(o, top)
        walk_spine(o, top, False)
    top = root if tops.right_from_root else tops.right
    if top != NULL:
        if top != root:
            recompute(o, top)
        walk_spine(o, top, True)
    return 0


# ================================================================================================ queries

cdef Slot query_t(FiBA o) noexcept:
    cdef Node* root = o.root
    if root.leaf:
        return root.agg
    o.ccount += 2
    return tcomb(o.kind, tcomb(o.kind, o.lf.agg, root.agg), o.rf.agg)


cdef object query_g(FiBA o):
    cdef Node* root = o.root
    if root.leaf:
        return <object>root.agg.o
    comb = o._combine
    o.ccount += 1
    a = comb(<object>o.lf.agg.o, <object>root.agg.o)
    o.ccount += 1
    return comb(a, <object>o.rf.agg.o)


cdef Node* range_start(FiBA o, Slot a, Slot b) except NULL:
    cdef Node* root = o.root
    cdef Node* x = root
    cdef int tk = o.tkind
    if not root.leaf:
        if t_lt(tk, b, root.times[0]):
            x = o.lf
            while x != root and t_lt(tk, x.times[x.n - 1], b):
                x = x.parent
                o.tcount += 1
        elif t_lt(tk, root.times[root.n - 1], a):
            x = o.rf
            while x != root and t_lt(tk, a, x.times[0]):
                x = x.parent
                o.tcount += 1
    return x


cdef int range_ops_t(FiBA o, Node* x, Slot lo, bint has_lo, Slot hi, bint has_hi, Slot* acc, bint* first,
                     int64_t* cc) except -1:
    cdef int i, last = x.n, tk = o.tkind
    cdef bint c_lo, c_hi
    o.tcount += 1
    if not has_lo and not has_hi and has_up(x):
        tpush(o.kind, acc, first, cc, x.agg)
        return 0
    for i in range(last + 1):
        if not x.leaf:
            if (not has_hi or i == 0 or t_lt(tk, x.times[i - 1], hi)) and (not has_lo or i == last or t_lt(tk, lo, x.times[i])):
                c_lo = has_lo and not (i > 0 and not t_lt(tk, x.times[i - 1], lo))
                c_hi = has_hi and not (i < last and not t_lt(tk, hi, x.times[i]))
                range_ops_t(o, x.children[i], lo, c_lo, hi, c_hi, acc, first, cc)
        if i < last and (not has_lo or not t_lt(tk, x.times[i], lo)) and (not has_hi or not t_lt(tk, hi, x.times[i])):
            tpush(o.kind, acc, first, cc, x.values[i])
    return 0


cdef Slot range_t(FiBA o, Slot a, Slot b) except *:
    cdef Slot acc = o.one
    cdef bint first = True
    cdef int64_t cc = 0
    range_ops_t(o, range_start(o, a, b), a, True, b, True, &acc, &first, &cc)
    o.ccount += cc
    return o.one if first else acc


cdef int range_ops_g(FiBA o, Node* x, Slot lo, bint has_lo, Slot hi, bint has_hi, list ops) except -1:
    cdef int i, last = x.n, tk = o.tkind
    cdef bint c_lo, c_hi
    o.tcount += 1
    if not has_lo and not has_hi and has_up(x):
        ops.append(<object>x.agg.o)
        return 0
    for i in range(last + 1):
        if not x.leaf:
            if (not has_hi or i == 0 or t_lt(tk, x.times[i - 1], hi)) and (not has_lo or i == last or t_lt(tk, lo, x.times[i])):
                c_lo = has_lo and not (i > 0 and not t_lt(tk, x.times[i - 1], lo))
                c_hi = has_hi and not (i < last and not t_lt(tk, hi, x.times[i]))
                range_ops_g(o, x.children[i], lo, c_lo, hi, c_hi, ops)
        if i < last and (not has_lo or not t_lt(tk, x.times[i], lo)) and (not has_hi or not t_lt(tk, hi, x.times[i])):
            ops.append(<object>x.values[i].o)
    return 0


# ================================================================================================ snapshots

cdef void number_nodes(Node* root, dict ids, list order) except *:
    stack = [<Py_ssize_t>root]
    cdef Node* x
    cdef int i
    while stack:
        x = <Node*><Py_ssize_t>stack.pop()
        ids[<Py_ssize_t>x] = len(order)
        order.append(<Py_ssize_t>x)
        if not x.leaf:
            for i in range(x.n, -1, -1):
                stack.append(<Py_ssize_t>x.children[i])


cdef object snap_node(FiBA o, Node* x, dict ids):
    cdef int i
    parent = None if x.parent == NULL else ids.get(<Py_ssize_t>x.parent, -1)
    children = () if x.leaf else tuple([snap_node(o, x.children[i], ids) for i in range(x.n + 1)])
    return FiBANodeState(
        id=ids[<Py_ssize_t>x],
        parent=parent,
        times=tuple([t_box(o.tkind, x.times[i]) for i in range(x.n)]),
        values=tuple([o._val(x.values[i]) for i in range(x.n)]),
        agg=o._val(x.agg),
        count=x.count,
        left_spine=bool(x.left_spine),
        right_spine=bool(x.right_spine),
        children=children,
    )


cdef void items_rec(FiBA o, Node* x, list out) except *:
    cdef int i
    for i in range(x.n + 1):
        if not x.leaf:
            items_rec(o, x.children[i], out)
        if i < x.n:
            out.append((t_box(o.tkind, x.times[i]), o._val(x.values[i])))


# ================================================================================================ array driver

cdef object slide_typed(FiBA o, object times, object values, Py_ssize_t window):
    """The C loop of :meth:`FiBA.slide` for typed values and 'd'/'q' time buffers -- ``array.array``,
    ``memoryview``, numpy arrays (None: not applicable). Times and values of different lengths raise
    ``ValueError`` before anything changes."""
    cdef Py_ssize_t n_ok = 0, n, i
    cdef const double[::1] td
    cdef const int64_t[::1] ti
    cdef int tk
    cdef const Slot* tp
    cdef const Slot* vp
    cdef Slot* outp
    cdef cpython.array.array out
    if not PyObject_CheckBuffer(times):
        return None
    vbuf = typed_input(o.kind, values, &n_ok)
    if vbuf is None:
        return None
    try:
        td = times
        tk = T_F64
    except _BUFFER_MISMATCH:
        try:
            ti = times
            tk = T_I64
        except _BUFFER_MISMATCH:
            return None
    n = td.shape[0] if tk == T_F64 else ti.shape[0]
    if len(vbuf) != n:
        raise ValueError(f"slide: {n} times but {len(vbuf)} values")
    if n_ok < n or (tree_size(o) > 0 and o.tkind != tk) or o.broken:
        return None  # a bad value, NaN, or a different time type: the general loop raises or converts
    # NaN times need no pass of their own: the kernel's in-order test is false for them, and the driver raises
    # check_time's error at that item, after its evictions, as the method loop does
    out = new_out_array(o.kind, n)
    if n == 0:
        return out
    outp = <Slot*>out.data.as_voidptr
    vp = <const Slot*>_vaddr(vbuf, o.kind)
    if tree_size(o) == 0:
        o.tkind = tk
        o.root.tobj = 0
    if tk == T_F64:
        tp = <const Slot*>&td[0]
    else:
        tp = <const Slot*>&ti[0]
    slide_run(o, tp, vp, outp, n, window, tk)
    return out


cdef inline const void* _vaddr(object buf, int kind):
    cdef const double[::1] dv
    cdef const int64_t[::1] iv
    if kind <= K_MIN_F:
        dv = buf
        return &dv[0]
    iv = buf
    return &iv[0]


include "_fiba_inorder.pxi"
