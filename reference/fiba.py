"""FiBA: the finger B-tree aggregator with bulk eviction and bulk insertion (paper 003; FiBA 2019 for the
single operations). The paper's text has no pseudocode; the control flow follows the authors' artifact as the
notes rebuild it (003 notes §3), with the artifact's bulk-insert bug fixed by construction (notes §7 item 1).

The window is a B-tree over timestamps with minimum arity μ (``min_arity``) and maximum arity 2μ. It has a
**left finger** and a **right finger** (the leftmost and rightmost leaves), and each node stores one of four
position-dependent partial aggregates (003 §3.2): Π↑ (*up*, the whole subtree) at non-spine nodes, Π| (*inner*,
without the two spine children) at the root, Π↙ (*left*) on the left spine and Π↘ (*right*) on the right spine.
A spine aggregate includes its parent's, so a change near either end stops climbing at the first spine node and
is then pushed *down* that spine. Hence ``query() = Π↙(leftFinger) ⊗ Π|(root) ⊗ Π↘(rightFinger)`` in O(1).

Operations and their costs in ⊗ calls (n entries, m bulk size, d out-of-order distance; the amortized bounds
rest on the imaginary-coin argument of 003 §3.2 and FiBA 2019 Lemma 9):

* ``query()``: 2 ⊗ worst case (0 for a leaf root); ``oldest()``/``youngest()``/``len()``: O(1), no ⊗;
* ``insert(t, v)``: finger search from the nearer end, then split upward: amortized O(log d), O(1) in order;
  worst case O(log n). A time already present combines in place, ``old ⊗ new``, at any level;
* ``evict()``: amortized O(1), worst case O(log n); ``remove(t)``: amortized O(log d), worst O(log n);
* ``bulk_evict(t)`` (003 §4, Theorem 1): boundary search, batch moves and non-sibling merges on the pass up,
  make-node-root / make-child-root, pass down the spines: amortized O(log m), worst case O(log n);
* ``bulk_insert(pairs)`` (003 §5, Theorem 3): one sweep of finger searches from the right finger, level-by-level
  treelet processing with splits into pieces of arity μ+1 and one of arity in [μ, 2μ] (Claim 1), pass down the
  spines: amortized O(log d + m(1 + log(d/m))), worst case O(log d + m·log((m+n)/m));
* ``range_query(t_from, t_to)`` (FiBA 2019): O(log n), and O(log d) for a range near either end.

Space: n values plus one aggregate (and one entry count) per node, at most n/(μ−1) + 1 nodes; evicted nodes
wait on a **deferred free list** (003 §6) and are recycled by later allocations, O(1) each: freeing the m
evicted entries eagerly would cost O(m) and destroy bulk eviction's O(log m) (in CPython, dropping the last
reference to a subtree frees it recursively, and parent pointers make it cyclic garbage).

**Exception safety: refuse** (issue 12). A user's ``combine`` that raises (or a Ctrl-C arriving inside it as
``KeyboardInterrupt``) part-way through an update cannot be rolled back here: the tree surgery (splits, merges,
batch moves) is interleaved with the aggregate recomputations, and undoing it would need a journal of every node
an operation touches. What FiBA does instead:

* a ⊗ whose result becomes an *entry's value* (``old ⊗ new`` at an existing time, equal times inside a bulk) or an
  *answer* (``query``, ``range_query``) is computed before anything changes, so its failure leaves the tree and
  its entries exactly as they were, and the tree stays usable (strong, for these failures);
* a ⊗ that recomputes a node's *aggregate* may fail in the middle of the surgery: the operation then finishes its
  surgery without calling ⊗ again (the aggregates it skips are left stale) and re-raises at its end, so the
  entries are exactly those after the operation, and the structure then **refuses** every update and query (and
  ``items``, ``times``, ``snapshot``, copies) with :class:`~swagkit.spec.errors.BrokenAggregatorError` --
  ``exception_safety = "refuse"`` --, never answering from stale aggregates. ``salvage()`` returns the
  ``(time, value)`` entries (like ``items()``): exactly those before or after the failed operation, never a mix;
  ``repair()`` rebuilds the tree from them in place by one bulk insertion (if ⊗ raises again there, the structure
  stays broken and keeps the entries).

:class:`FiBALoop`'s bulk operations are loops of single ones but still one operation each: a failed
``bulk_evict(t)`` salvages the entries after it (those above t) and a failed ``bulk_insert`` those before it (the
loop logs each touched time's previous value). ``slide`` is a loop of single operations: a failure at pair j
leaves the first j pairs applied (the exception's note says so) and the failed one follows the rules above.

**Re-entrancy, threads, copies.** Every public method but ``len()``/``repr()`` holds the structure's re-entry
guard (:mod:`swagkit.reference._guard`): a call from inside ``combine``/``lift``/``lower`` or from a second
thread raises :class:`~swagkit.spec.errors.ReentrantCallError` before changing anything (FiBA is not
thread-safe). ``copy``/``deepcopy``/``pickle`` go by snapshot (:meth:`FiBA._from_snapshot`, which checks the
snapshot's shape first: arities, order, parent ids, spine flags, fingers, counts); recursion is bounded by the
tree's height. Numpy scalars are accepted as timestamps (stored as the Python ``int``/``float`` they equal).

Counters: ``combine_count`` (⊗ calls, identity operands included, in the order below) and ``touched_count``
(node visits: every node a search or a structural pass inspects, every aggregate recomputation and every node
allocation), the machine-independent work the paper's bounds speak about. A node's aggregate is recomputed as the fold
of its operands left to right (``k`` operands, ``k − 1`` ⊗); the one incremental shortcut is an in-order append to the
right finger without a split (``Π↘ ⊗ v``), as the artifact's ``pushBackEntry``.
"""

from __future__ import annotations

import numbers
import operator
from collections.abc import Iterable, Iterator
from typing import Any

from swagkit.spec.errors import BrokenAggregatorError, EmptyWindowError
from swagkit.spec.fiba import split_pieces
from swagkit.spec.monoid import Monoid, as_monoid
from swagkit.spec.ooo import MissingTimeError, check_bulk_order, check_time
from swagkit.spec.snapshots import FiBANodeState, FiBAState

from ._guard import Guarded, guarded

__all__ = ["FiBA", "FiBALoop", "Node", "DEFAULT_MIN_ARITY"]

#: the paper's experiments use μ = 4 (``b_fiba4``) and μ = 8
DEFAULT_MIN_ARITY = 4
#: the largest minimum arity (the compiled nodes are one block of about 48·μ bytes)
MAX_MIN_ARITY = 1 << 20


class _Missing:
    """No value: a time absent before an operation (in :class:`FiBALoop`'s undo log)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


_MISSING = _Missing()


def _check_min_arity(min_arity: Any) -> int:
    """μ: an integer (numpy integers too), not a bool, in 2 … 2^20 (shared by both implementations)."""
    if isinstance(min_arity, bool) or not hasattr(type(min_arity), "__index__"):
        raise ValueError(f"fiba: min_arity must be an integer ≥ 2, got {min_arity!r}")
    mu = operator.index(min_arity)
    if not 2 <= mu <= MAX_MIN_ARITY:
        raise ValueError(f"fiba: min_arity must be an integer ≥ 2 (at most 2^20), got {min_arity!r}")
    return mu


def _check_window(window: Any) -> int:
    """``slide``'s window: an integer ≥ 1 (numpy integers too, not a bool)."""
    if isinstance(window, bool) or not hasattr(type(window), "__index__") or operator.index(window) < 1:
        raise ValueError("slide: window must be an integer ≥ 1")
    return operator.index(window)


def _norm_time(t: Any) -> Any:
    """A numpy scalar timestamp as the Python ``int``/``float`` it equals (so both implementations store and
    compare it alike, the compiled one in C); any other timestamp as it is."""
    tp = type(t)
    if tp is int or tp is float or tp.__module__ != "numpy":
        return t
    if isinstance(t, numbers.Integral):
        return int(t)
    if isinstance(t, float) or tp.__name__ in ("float32", "float16"):
        return float(t)
    return t


def _slide_inputs(times: Iterable[Any], values: Iterable[Any]) -> tuple[list[Any], list[Any]]:
    """``slide``'s pairs as two lists of equal length (``ValueError`` before anything changes otherwise)."""
    ts, vs = list(times), list(values)
    if len(ts) != len(vs):
        raise ValueError(f"slide: {len(ts)} times but {len(vs)} values")
    return ts, vs


_TYPED_KINDS = ("sum_f64", "max_f64", "min_f64", "sum_i64", "max_i64", "min_i64")


def _typed_check(monoid: Any) -> Any:
    """``as_f64``/``as_i64`` for a monoid of a typed kind (whose identity validates), else None: what the
    compiled implementation validates (and converts) stored values with."""
    from swagkit.spec.library import as_f64, as_i64

    kind = getattr(monoid, "fast_path", None)
    if kind not in _TYPED_KINDS:
        return None
    check = as_f64 if kind.endswith("f64") else as_i64
    try:
        check(monoid.identity)
    except (TypeError, ValueError, OverflowError):
        return None
    return check


def _salvaged(items: list[tuple[Any, Any]], fix: Any) -> list[tuple[Any, Any]]:
    """The entries a broken structure holds, from its tree's ``items`` and the failed operation's record ``fix``:
    ``None`` (the tree's entries are those before or after it), ``("held", entries)`` (a failed repair),
    ``("above", t)`` (a failed loop of evictions up to
    ``t``: the entries after it are those above t) or ``("undo", log)`` (a failed loop of inserts: ``log`` holds
    ``(time, value before or _MISSING)`` in bulk order; the entries before it)."""
    if fix is None:
        return items
    what, arg = fix
    if what == "held":  # a repair that failed: the entries it was rebuilding from
        return list(arg)
    if what == "above":
        return [(t, v) for t, v in items if arg < t]
    log: list[tuple[Any, Any]] = arg
    out: list[tuple[Any, Any]] = []
    k = 0
    for t, v in items:
        while k < len(log) and log[k][0] < t:
            k += 1
        if k < len(log) and log[k][0] == t:
            old = log[k][1]  # the first record of a time holds its value before the bulk
            while k < len(log) and not t < log[k][0]:
                k += 1
            if old is not _MISSING:
                out.append((t, old))
            continue
        out.append((t, v))
    return out


def _snapshot_order(snapshot: Any, min_arity: int, algorithm: str) -> list[tuple[FiBANodeState, int | None]]:
    """Check a snapshot's shape before a structure is rebuilt from it, without ⊗ (O(n), iterative): a
    :class:`FiBAState` of this μ; nodes numbered in preorder with matching parent ids, each node once; values as
    many as times; arities in μ … 2μ (root: 1 … 2μ as a leaf, 2 … 2μ internal) with a child per arity; every leaf
    at one depth; spine flags as their position requires; times strictly increasing in order (none NaN); fingers
    on the extreme leaves; counts and size as the entries require. Returns ``(node, parent index)`` in preorder;
    raises ``TypeError``/``ValueError`` (never builds a malformed tree). Both implementations use it."""
    if not isinstance(snapshot, FiBAState):
        raise TypeError(f"{algorithm}: expected a FiBAState snapshot, got {type(snapshot).__name__}")

    def bad(why: str) -> ValueError:
        return ValueError(f"{algorithm}: malformed snapshot: {why}")

    mu = min_arity
    if snapshot.min_arity != mu:
        raise bad(f"min_arity {snapshot.min_arity!r}, the structure's is {mu}")
    order: list[tuple[FiBANodeState, int | None]] = []
    kids: list[list[int]] = []
    seen: set[int] = set()
    leaves: list[int] = []
    leaf_depth = -1
    stack: list[tuple[Any, int | None, int, bool, bool]] = [(snapshot.root, None, 0, True, True)]
    while stack:
        st, p, depth, on_left, on_right = stack.pop()
        if not isinstance(st, FiBANodeState):
            raise TypeError(f"{algorithm}: malformed snapshot: a node is a {type(st).__name__}")
        if id(st) in seen:
            raise bad("a node appears twice")
        seen.add(id(st))
        index = len(order)
        if not (type(st.times) is type(st.values) is type(st.children) is tuple):
            raise TypeError(
                f"{algorithm}: malformed snapshot: node {index}'s times, values and children must be tuples"
            )
        if len(st.values) != len(st.times):
            raise bad(f"node {index} has {len(st.times)} times and {len(st.values)} values")
        a = len(st.times) + 1
        low = (2 if st.children else 1) if p is None else mu
        if not low <= a <= 2 * mu:
            raise bad(f"node {index} has arity {a}, allowed {low} … {2 * mu}")
        if st.children and len(st.children) != a:
            raise bad(f"node {index} has arity {a} and {len(st.children)} children")
        if type(st.id) is not int or st.id != index or st.parent != p or (p is not None and type(st.parent) is not int):
            raise bad(f"node {index} has id {st.id!r} and parent {st.parent!r}: not the preorder numbering")
        if type(st.left_spine) is not bool or type(st.right_spine) is not bool or type(st.count) is not int:
            raise TypeError(f"{algorithm}: malformed snapshot: node {index}'s flags must be bools, its count an int")
        if (st.left_spine, st.right_spine) != (p is not None and on_left, p is not None and on_right):
            raise bad(f"node {index}'s spine flags do not match its position")
        order.append((st, p))
        kids.append([])
        if p is not None:
            kids[p].append(index)
        if st.children:
            for i in range(len(st.children) - 1, -1, -1):
                stack.append((st.children[i], index, depth + 1, on_left and i == 0, on_right and i == a - 1))
        else:
            if leaf_depth < 0:
                leaf_depth = depth
            elif depth != leaf_depth:
                raise bad(f"leaf {index} is at depth {depth}, another leaf at depth {leaf_depth}")
            leaves.append(index)
    # times strictly increasing in order (an in-order walk: children before the entries right of them)
    prev: Any = _MISSING
    walk: list[tuple[int, int]] = [(0, 0)]
    while walk:
        index, i = walk.pop()
        st = order[index][0]
        if not st.children:
            run = st.times
        else:
            run = st.times[i - 1 : i] if i > 0 else ()
            if i < len(st.children) - 1:
                walk.append((index, i + 1))
            walk.append((kids[index][i], 0))
        for t in run:
            check_time(t)
            if prev is not _MISSING and not prev < t:
                raise bad(f"times are not increasing in order: {t!r} after {prev!r}")
            prev = t
    # counts: entries of each subtree (children first), then each node's count by its kind (parents first)
    up = [0] * len(order)
    for index in range(len(order) - 1, -1, -1):
        up[index] = len(order[index][0].times) + sum(up[c] for c in kids[index])
    for index, (st, p) in enumerate(order):
        ch = kids[index]
        inner = len(st.times) + sum(up[c] for c in ch[1:-1])
        grand = p is not None and order[p][1] is not None
        if p is None:
            want = inner
        elif st.left_spine:
            want = inner + (up[ch[-1]] if ch else 0) + (order[p][0].count if grand else 0)
        elif st.right_spine:
            want = (order[p][0].count if grand else 0) + (up[ch[0]] if ch else 0) + inner
        else:
            want = up[index]
        if st.count != want:
            raise bad(f"node {index} has count {st.count}, its entries require {want}")
    if type(snapshot.size) is not int or snapshot.size != up[0]:
        raise bad(f"size {snapshot.size!r}, the tree holds {up[0]} entries")
    if snapshot.left_finger != leaves[0] or snapshot.right_finger != leaves[-1]:
        raise bad(
            f"fingers {snapshot.left_finger!r}/{snapshot.right_finger!r}, the extreme leaves are "
            f"{leaves[0]}/{leaves[-1]}"
        )
    return order


class Node:
    """A FiBA node (003 §3.2): ``times``/``values`` (a−1 entries), ``children`` (a of them, ``None`` for a
    leaf), the ``parent`` pointer, the two spine flags, the stored aggregate ``agg`` and its entry ``count``."""

    __slots__ = ("times", "values", "children", "parent", "agg", "count", "left_spine", "right_spine")

    def __init__(self, leaf: bool, identity: Any) -> None:
        self.times: list[Any] = []
        self.values: list[Any] = []
        self.children: list[Node] | None = None if leaf else []
        self.parent: Node | None = None
        self.agg: Any = identity
        self.count = 0
        self.left_spine = False
        self.right_spine = False

    @property
    def is_leaf(self) -> bool:
        return self.children is None

    @property
    def arity(self) -> int:
        return len(self.times) + 1

    def has_up_agg(self) -> bool:
        """Non-root, non-spine nodes store Π↑ (003 §3.2); the others' aggregates involve their position."""
        return not (self.parent is None or self.left_spine or self.right_spine)

    def child_index(self, child: Node) -> int:
        assert self.children is not None
        for i, c in enumerate(self.children):
            if c is child:
                return i
        raise AssertionError("child not found in its parent")  # pragma: no cover - a broken parent link

    def __repr__(self) -> str:
        return f"Node({self.times!r}{', leaf' if self.is_leaf else ''})"


class _Event:
    """A treelet (003 §5): insert ``time``/``value`` (and ``child`` as its right child) into ``target`` before
    the target's original entry ``slot``, or, with ``insert=False``, only recompute ``target``'s aggregate.
    ``seq`` is the bulk position of the earliest key behind the event: sorting by it sorts by tree position."""

    __slots__ = ("seq", "target", "insert", "slot", "time", "value", "child")

    def __init__(
        self,
        seq: int,
        target: Node,
        insert: bool,
        slot: int = 0,
        time: Any = None,
        value: Any = None,
        child: Node | None = None,
    ) -> None:
        self.seq = seq
        self.target = target
        self.insert = insert
        self.slot = slot
        self.time = time
        self.value = value
        self.child = child


class _Tops:
    """Where the pass down (Step 3 of 003 §5) starts: the highest touched node of each spine, whether the root
    was touched, and whether a spine's top child changed identity under the root (then walk from the root)."""

    __slots__ = ("left", "right", "root", "left_from_root", "right_from_root")

    def __init__(self) -> None:
        self.left: Node | None = None
        self.right: Node | None = None
        self.root = False
        self.left_from_root = False
        self.right_from_root = False


class FiBA(Guarded):
    """Finger B-tree aggregator (id ``fiba``; paper 003 with FiBA 2019), out-of-order timestamped window.

    ``FiBA(monoid, min_arity=4)``: minimum arity μ ≥ 2 (maximum 2μ). API: ``insert(time, value)``,
    ``evict()``, ``remove(time)``, ``bulk_evict(time) -> int``, ``bulk_insert(pairs)``, ``query()``,
    ``range_query(t_from, t_to)``, ``oldest()``, ``youngest()``, ``len()``, ``items()``, ``times()``,
    ``slide(times, values, window)``, ``snapshot()``, ``salvage()``, ``repair()``, ``combine_count``,
    ``touched_count`` and ``_check()``. The ADT (including bad input) is :class:`swagkit.spec.ooo.TimedWindow`'s;
    see the module docstring for the complexity of each operation.

    Exception safety: ``"refuse"``. A ``combine`` that raises inside ``insert``, ``evict``, ``remove``,
    ``bulk_evict`` or ``bulk_insert`` leaves the entries exactly as after the operation when it failed in an
    aggregate recomputation (the tree surgery is finished without ⊗), or exactly as before when it failed in a ⊗
    that makes an entry's value (``old ⊗ new`` at an existing time, equal times in a bulk); ``query`` and
    ``range_query`` change nothing when their ⊗ fails. In every case the structure then raises
    :class:`~swagkit.spec.errors.BrokenAggregatorError` on every update and query until ``repair()``;
    ``salvage()`` returns the entries. Not thread-safe: overlapping calls raise ``ReentrantCallError``.
    """

    algorithm = "fiba"
    exception_safety = "refuse"

    def __init__(self, monoid: Monoid[Any, Any, Any], min_arity: int = DEFAULT_MIN_ARITY) -> None:
        monoid = as_monoid(monoid, self.algorithm)
        min_arity = _check_min_arity(min_arity)
        self.monoid = monoid
        self.min_arity = min_arity
        self.max_arity = 2 * min_arity
        self.combine_count = 0
        self.touched_count = 0
        self._combine = monoid.combine
        self._lift = monoid.lift
        self._one: Any = monoid.identity
        #: roots of dead subtrees, recycled one node at a time (003 §6: the deferred free list)
        self._free: list[Node] = []
        self.root = Node(True, self._one)
        self.left_finger = self.root
        self.right_finger = self.root
        self._init_guard()
        #: set when a ⊗ raised during an operation: every update and query refuses until :meth:`repair`
        self._broken = False
        #: the first failure of the running update's aggregate ⊗ (the rest of the update skips ⊗)
        self._fault: BaseException | None = None
        #: how :meth:`salvage` derives the entries from the tree after a failed loop (see :func:`_salvaged`)
        self._fix: Any = None

    def _params(self) -> dict[str, Any]:
        return {"min_arity": self.min_arity}

    def _counts(self) -> dict[str, int]:
        """Copies keep both work counters."""
        return {"combine_count": self.combine_count, "touched_count": self.touched_count}

    # ====================================================================================== bookkeeping

    def _otimes(self, a: Any, b: Any) -> Any:
        """``a ⊗ b`` of an aggregate recomputation, counted. Once one of them raised during the running update,
        the update's later ones are skipped (neither called nor counted, ``a`` stands in: aggregates left stale)
        so that it finishes its tree surgery; it re-raises at its end (:meth:`_finish`)."""
        if self._fault is not None:
            return a
        self.combine_count += 1
        try:
            return self._combine(a, b)
        except BaseException as err:
            self._fault = err
            self._broken = True
            return a

    def _otimes_now(self, a: Any, b: Any) -> Any:
        """``a ⊗ b`` that makes an entry's value or an answer, counted; computed before anything changes, so the
        caller just marks the structure broken (:meth:`_failed`) and lets the error through."""
        self.combine_count += 1
        return self._combine(a, b)

    def _failed(self) -> None:
        """An operation raised after its read-only phase: refuse from now on (see the module docstring)."""
        self._broken = True
        self._fault = None

    def _finish(self) -> None:
        """End of an update: re-raise the first failure of its aggregate ⊗, if any (it is broken then)."""
        err = self._fault
        if err is not None:
            self._fault = None
            self._broken = True
            raise err

    def _check_usable(self) -> None:
        if self._broken:
            raise BrokenAggregatorError(
                f"{self.algorithm}: a combine call raised during an earlier operation, so its aggregates cannot be "
                "trusted: it refuses every update and query; salvage() returns its (time, value) entries and "
                "repair() rebuilds it from them"
            )

    def _new_node(self, leaf: bool) -> Node:
        """A fresh node, recycled from the deferred free list when possible: pop one dead node and push its
        children (they are the roots of dead subtrees), O(μ) (003 §6)."""
        self.touched_count += 1
        if not self._free:
            return Node(leaf, self._one)
        node = self._free.pop()
        if node.children:
            self._free.extend(node.children)
        node.times = []
        node.values = []
        node.children = None if leaf else []
        node.parent = None
        node.agg = self._one
        node.count = 0
        node.left_spine = node.right_spine = False
        return node

    def _free_subtree(self, node: Node) -> None:
        """Defer freeing the dead subtree under ``node``: O(1) now, its nodes are reclaimed by later
        allocations."""
        self._free.append(node)

    def _free_node(self, node: Node) -> None:
        """Defer freeing one node whose children were moved elsewhere."""
        node.children = None
        node.times = []
        node.values = []
        self._free.append(node)

    # ====================================================================================== aggregates

    def _inner_operands(self, node: Node, ops: list[Any], counts: list[int]) -> None:
        """Append Π|'s operands: ``v0, Π↑(c1), v1, …, Π↑(c(a−2)), v(a−2)`` (a leaf: its values)."""
        ch = node.children
        for i, v in enumerate(node.values):
            if ch is not None and i > 0:
                ops.append(ch[i].agg)
                counts.append(ch[i].count)
            ops.append(v)
            counts.append(1)

    def _recompute(self, node: Node) -> None:
        """``localRepairAgg``: recompute ``node``'s aggregate (and count) by the formula of its kind (003 §3.2),
        from its children's and its parent's stored aggregates. A fold of k operands costs k − 1 ⊗."""
        self.touched_count += 1
        ops: list[Any] = []
        counts: list[int] = []
        parent = node.parent
        ch = node.children
        if parent is None or (node.left_spine and node.right_spine):  # inner (both spines: a transient only child)
            self._inner_operands(node, ops, counts)
        elif node.left_spine:  # Π↙(y) = Π|(y) ⊗ Π↑(c_last) ⊗ (1 if the parent is the root, else Π↙(parent))
            self._inner_operands(node, ops, counts)
            if ch is not None:
                ops.append(ch[-1].agg)
                counts.append(ch[-1].count)
            if parent.parent is not None:
                ops.append(parent.agg)
                counts.append(parent.count)
        elif node.right_spine:  # Π↘(y) = (1 if the parent is the root, else Π↘(parent)) ⊗ Π↑(c0) ⊗ Π|(y)
            if parent.parent is not None:
                ops.append(parent.agg)
                counts.append(parent.count)
            if ch is not None:
                ops.append(ch[0].agg)
                counts.append(ch[0].count)
            self._inner_operands(node, ops, counts)
        else:  # Π↑(y) = Π↑(c0) ⊗ v0 ⊗ Π↑(c1) ⊗ … ⊗ v(a−2) ⊗ Π↑(c(a−1))
            if ch is not None:
                ops.append(ch[0].agg)
                counts.append(ch[0].count)
            self._inner_operands(node, ops, counts)
            if ch is not None:
                ops.append(ch[-1].agg)
                counts.append(ch[-1].count)
        node.agg = self._fold(ops)
        node.count = sum(counts)

    def _fold(self, ops: list[Any]) -> Any:
        if not ops:
            return self._one
        acc = ops[0]
        for x in ops[1:]:
            acc = self._otimes(acc, x)
        return acc

    def _recompute_if_up(self, node: Node) -> None:
        """``localRepairAggIfUp``: spine and root aggregates wait for the pass down (they include the parent's)."""
        if node.has_up_agg():
            self._recompute(node)

    def _repair_aggs(self, node: Node, hit_left: bool, hit_right: bool, climb: int = 0) -> None:
        """``repairAggs`` (notes §3.4): recompute ``node`` and its up-aggregate ancestors up to the first spine
        node or the root (at least ``climb`` levels above ``node``), then pass down the spine(s) that the top
        is on -- for the root, those flagged ``hit_left``/``hit_right`` (their top child changed)."""
        while True:
            self._recompute(node)
            parent = node.parent
            if parent is None:
                break
            if climb > 0:
                climb -= 1
                hit_left |= node.left_spine
                hit_right |= node.right_spine
            elif node.left_spine or node.right_spine:
                break
            node = parent
        if node.parent is not None:
            hit_left, hit_right = node.left_spine, node.right_spine
        if hit_left:
            self._walk_spine(node, 0)
        if hit_right:
            self._walk_spine(node, -1)

    def _walk_spine(self, top: Node, end: int) -> None:
        """Pass down: recompute every node below ``top`` on the spine that follows child ``end`` (0 or −1)."""
        node = top
        while node.children is not None:
            node = node.children[end]
            self._recompute(node)

    # ====================================================================================== search

    def _local_search(self, node: Node, t: Any) -> tuple[int, bool]:
        """``localSearch``: the first index i with ``t ≤ times[i]`` (a−1 when none) and whether it is equal."""
        for i, x in enumerate(node.times):
            if t < x:
                return i, False
            if t == x:
                return i, True
        return len(node.times), False

    def _search_start(self, t: Any) -> Node:
        """Finger search, the climb (FiBA 2019 ``searchNode``): below the root's first entry start at the left
        finger and climb while the node's last time is < t; above the root's last entry, mirror from the right
        finger; else the root. O(log d)."""
        root = self.root
        if root.children is None:
            return root
        if t < root.times[0]:
            node = self.left_finger
            self.touched_count += 1
            while node is not root and node.times[-1] < t:
                node = node.parent  # type: ignore[assignment]
                self.touched_count += 1
            return node
        if root.times[-1] < t:
            node = self.right_finger
            self.touched_count += 1
            while node is not root and t < node.times[0]:
                node = node.parent  # type: ignore[assignment]
                self.touched_count += 1
            return node
        return root

    def _search(self, t: Any) -> tuple[Node, int, bool, int]:
        """Finger search for ``t``: ``(node, index, found, depth)``; ``node`` holds ``t`` (at any level) or is the
        leaf where it belongs; ``depth`` counts the descents. Reads only: a raising comparison changes nothing."""
        node = self._search_start(t)
        depth = 0
        while True:
            self.touched_count += 1
            i, found = self._local_search(node, t)
            if found or node.children is None:
                return node, i, found, depth
            node = node.children[i]
            depth += 1

    # ====================================================================================== single insert

    @guarded
    def insert(self, time: Any, value: Any) -> None:
        """Insert ``value`` at ``time`` (FiBA 2019): finger search; at an existing time (leaf or internal) combine
        ``old ⊗ new`` in place, else insert into the leaf and split upward while a node overflows; then repair
        the aggregates. Amortized O(log d) ⊗ (O(1) in order), worst case O(log n). ``value`` is lifted and
        ``time`` located before anything changes."""
        self._check_usable()
        time = _norm_time(time)
        check_time(time)
        self._insert(time, self._lift(value))

    def _insert(self, time: Any, v: Any, log: list[tuple[Any, Any]] | None = None) -> None:
        """insert's steps for a checked time and a lifted value. ``log`` (:class:`FiBALoop`'s bulk insert) gets
        ``(time, its value before or _MISSING)`` once the search is done, before anything changes."""
        node, i, found, _ = self._search(time)  # reads only: a raising comparison changes nothing
        if log is not None:
            log.append((time, node.values[i] if found else _MISSING))
        if found:  # the entry's new value before anything changes: a failing ⊗ leaves the tree usable
            value = self._otimes_now(node.values[i], v)
        try:
            if found:
                node.values[i] = value
                self._repair_aggs(node, False, False)
            elif node is self.right_finger and i == len(node.times) and len(node.times) + 2 <= self.max_arity:
                # in-order append without overflow: Π↘ (or the leaf root's Π|) just grows by v (pushBackEntry)
                node.times.append(time)
                node.values.append(v)
                node.agg = self._otimes(node.agg, v) if node.times[:-1] else v
                node.count += 1
            else:
                node.times.insert(i, time)
                node.values.insert(i, v)
                top, hit_left, hit_right = self._rebalance_after_insert(node)
                self._repair_aggs(top, hit_left, hit_right)
        except BaseException:
            self._failed()
            raise
        self._finish()

    def _rebalance_after_insert(self, node: Node) -> tuple[Node, bool, bool]:
        """``rebalanceAfterInsert``: while ``node`` overflows (a > 2μ), split it -- growing a new root first when
        it is the root. Returns the top changed node and whether each spine was hit."""
        hit_left = hit_right = False
        while node.arity > self.max_arity:
            if node.parent is None:
                self._height_increase()
                hit_left = hit_right = True
            hit_left |= node.left_spine
            hit_right |= node.right_spine
            self._split(node)
            node = node.parent  # type: ignore[assignment]
        return node, hit_left, hit_right

    def _height_increase(self) -> None:
        """``heightIncrease``: a new root whose only child is the old root (on both spines until it splits)."""
        old = self.root
        root = self._new_node(leaf=False)
        assert root.children is not None
        root.children.append(old)
        old.parent = root
        old.left_spine = old.right_spine = True
        self.root = root

    def _split(self, left: Node) -> None:
        """``split`` of an arity-(2μ+1) node: entry μ goes up, the new right node takes entries μ+1… and
        children μ+1… (arity μ), ``left`` keeps arity μ+1 (Claim 1 with p = 2μ+1). Moves the right-spine flag
        and the right finger to the new node."""
        mu = self.min_arity
        parent = left.parent
        assert parent is not None and parent.children is not None
        right = self._new_node(leaf=left.is_leaf)
        sep_t, sep_v = left.times[mu], left.values[mu]
        right.times = left.times[mu + 1 :]
        right.values = left.values[mu + 1 :]
        del left.times[mu:]
        del left.values[mu:]
        if left.children is not None:
            right.children = left.children[mu + 1 :]
            del left.children[mu + 1 :]
            for c in right.children:
                c.parent = right
        right.parent = parent
        j = parent.child_index(left)
        parent.times.insert(j, sep_t)
        parent.values.insert(j, sep_v)
        parent.children.insert(j + 1, right)
        if left.right_spine:
            left.right_spine = False
            right.right_spine = True
        if self.right_finger is left:
            self.right_finger = right
        self._recompute_if_up(left)
        self._recompute_if_up(right)

    # ====================================================================================== single evict

    @guarded
    def evict(self) -> None:
        """Remove the oldest entry: pop it from the left finger, rebalance, repair. Amortized O(1) ⊗, worst
        case O(log n). :class:`EmptyWindowError` (nothing changes) on an empty window."""
        self._check_usable()
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: evict() on an empty window")
        self._evict()

    def _evict(self) -> None:
        """evict's steps on a non-empty window."""
        try:
            leaf = self.left_finger
            del leaf.times[0]
            del leaf.values[0]
            top, hit_left, hit_right = self._rebalance_after_evict(leaf, leaf.left_spine, leaf.right_spine)
            self._repair_aggs(top, hit_left, hit_right)
        except BaseException:
            self._failed()
            raise
        self._finish()

    @guarded
    def remove(self, time: Any) -> None:
        """Remove the entry at ``time`` (FiBA 2019 ``evict(t)``). In a leaf it is deleted there; in an internal
        node it is replaced by its neighbor entry from a leaf (the oldest of the right subtree when that child
        has spare arity, else the youngest of the left subtree), which is then deleted. Amortized O(log d) ⊗,
        worst case O(log n). :class:`MissingTimeError` (nothing changes) when ``time`` is not present."""
        self._check_usable()
        time = _norm_time(time)
        node, i, found, _ = self._search(time)
        if not found:
            raise MissingTimeError(f"{self.algorithm}: remove({time!r}): no entry has this timestamp")
        try:
            self._remove_at(node, i)
        except BaseException:
            self._failed()
            raise
        self._finish()

    def _remove_at(self, node: Node, i: int) -> None:
        extra = 0
        if node.children is None:
            leaf = node
            del leaf.times[i]
            del leaf.values[i]
        else:
            right = node.children[i + 1]
            if right.arity > self.min_arity:  # take the oldest entry of the right subtree
                leaf = right
                extra = 1
                while leaf.children is not None:
                    leaf = leaf.children[0]
                    extra += 1
                node.times[i], node.values[i] = leaf.times.pop(0), leaf.values.pop(0)
            else:  # the youngest entry of the left subtree
                leaf = node.children[i]
                extra = 1
                while leaf.children is not None:
                    leaf = leaf.children[-1]
                    extra += 1
                node.times[i], node.values[i] = leaf.times.pop(), leaf.values.pop()
            self.touched_count += extra
        top, hit_left, hit_right, climbed = self._rebalance_after_evict(
            leaf, leaf.left_spine, leaf.right_spine, count_levels=True
        )
        # the node that held ``time`` changed too: climb at least up to it
        self._repair_aggs(top, hit_left, hit_right, climb=max(0, extra - climbed))

    def _rebalance_after_evict(self, node: Node, hit_left: bool, hit_right: bool, count_levels: bool = False) -> Any:
        """``rebalanceAfterEvict``: while ``node`` (not the root) underflows (a < μ), merge it with a sibling
        (the right one; the left one for a last child) when that has arity μ, else move one entry over through
        the parent. OR-ing both nodes' spine flags into the hits is the artifact's issue-#77 fix. Returns the top
        changed node, the hits (and, with ``count_levels``, how many levels it climbed)."""
        mu = self.min_arity
        climbed = 0
        while node.parent is not None and node.arity < mu:
            parent = node.parent
            assert parent.children is not None
            j = parent.child_index(node)
            if j == len(parent.children) - 1:
                sibling, sep = parent.children[j - 1], j - 1
            else:
                sibling, sep = parent.children[j + 1], j
            hit_left, hit_right = self._spine_hits(node, sibling, hit_left, hit_right)
            climbed += 1
            if sibling.arity <= mu:
                self._merge(parent, sep)
                if parent.parent is None and parent.arity == 1:
                    self._height_decrease()
                    node = self.root
                    hit_left = hit_right = True
                    break
                node = parent
            else:
                self._move(parent, sep, node)
                node = parent
                break
        if count_levels:
            return node, hit_left, hit_right, climbed
        return node, hit_left, hit_right

    @staticmethod
    def _spine_hits(node: Node, sibling: Node, hit_left: bool, hit_right: bool) -> tuple[bool, bool]:
        """The spines a rebalance step of ``node`` with ``sibling`` touches: both nodes' flags (the artifact ORed
        only the sibling's right flag in until its issue-#77 fix added ``hitLeft |= sibling.leftSpine``)."""
        return hit_left or sibling.left_spine or node.left_spine, hit_right or sibling.right_spine or node.right_spine

    def _merge(self, parent: Node, i: int) -> None:
        """``merge(parent, i, i+1)``: child i absorbs separator i and all of child i+1, which is freed; the
        parent loses one entry and one child. Moves the right-spine flag and the right finger."""
        assert parent.children is not None
        left, right = parent.children[i], parent.children[i + 1]
        left.times.append(parent.times[i])
        left.values.append(parent.values[i])
        left.times.extend(right.times)
        left.values.extend(right.values)
        if left.children is not None:
            assert right.children is not None
            for c in right.children:
                c.parent = left
            left.children.extend(right.children)
        del parent.times[i]
        del parent.values[i]
        del parent.children[i + 1]
        if right.right_spine:
            left.right_spine = True
        if self.right_finger is right:
            self.right_finger = left
        self._free_node(right)
        self._recompute_if_up(left)

    def _move(self, parent: Node, i: int, into: Node) -> None:
        """Rotate one entry between children i and i+1 of ``parent`` into ``into`` (one of them): the separator
        comes down, the sibling's nearest entry goes up, and the sibling's nearest child moves across."""
        assert parent.children is not None
        left, right = parent.children[i], parent.children[i + 1]
        if into is left:
            left.times.append(parent.times[i])
            left.values.append(parent.values[i])
            parent.times[i], parent.values[i] = right.times.pop(0), right.values.pop(0)
            if left.children is not None:
                assert right.children is not None
                c = right.children.pop(0)
                c.parent = left
                left.children.append(c)
        else:
            right.times.insert(0, parent.times[i])
            right.values.insert(0, parent.values[i])
            parent.times[i], parent.values[i] = left.times.pop(), left.values.pop()
            if right.children is not None:
                assert left.children is not None
                c = left.children.pop()
                c.parent = right
                right.children.insert(0, c)
        self._recompute_if_up(left)
        self._recompute_if_up(right)

    def _height_decrease(self) -> None:
        """``heightDecrease``: the root's only child becomes the root."""
        old = self.root
        assert old.children is not None and len(old.children) == 1
        child = old.children[0]
        self._free_node(old)
        self._become_root(child)

    def _become_root(self, node: Node) -> None:
        """``becomeRoot``: no parent, no spine flags; its aggregate is now the inner one (recomputed by the
        caller's repair)."""
        node.parent = None
        node.left_spine = node.right_spine = False
        self.root = node

    # ====================================================================================== bulk evict

    @guarded
    def bulk_evict(self, time: Any) -> int:
        """Remove every entry with timestamp ≤ ``time`` and return how many (003 §4). Step 1: the boundary
        search; Step 2: the pass up (local evictions, batch moves, sibling and non-sibling merges, make node /
        child root, then classic rebalancing above the boundary); Step 3: the pass down the spines. Amortized
        O(log m) ⊗ and node visits (Theorem 1), worst case O(log n); nothing is touched when ``time`` is below
        the oldest entry, and a ``time`` at or above the youngest clears the window in O(1)."""
        self._check_usable()
        time = _norm_time(time)
        check_time(time)
        n = len(self)
        if n == 0 or time < self.left_finger.times[0]:
            return 0
        if not time < self.right_finger.times[-1]:  # everything goes
            self._clear()
            return n
        boundary = self._search_boundary(time)  # reads only
        try:
            top = self._evict_pass_up(boundary)
            self._evict_repair(top)
        except BaseException:
            self._failed()
            raise
        self._finish()
        return n - len(self)

    def _clear(self) -> None:
        """Drop every entry in O(1): the tree goes to the deferred free list, a fresh leaf is the root."""
        self._free_subtree(self.root)
        self.root = self.left_finger = self.right_finger = self._new_node(leaf=True)

    def _search_boundary(self, t: Any) -> list[tuple[Node, Node | None, Node | None, int, int]]:
        """Step 1, ``searchBoundary``: climb from the nearer finger to the top of the boundary (the lowest spine
        node whose subtree straddles ``t``), then descend to a leaf or an exact match, keeping at each level the
        node, its right ``neighbor`` on that level and their least common ``ancestor`` with the index of the
        separator between them in it -- so every rebalancing step of the pass up is O(1) -- and how many of the
        node's entries are ≤ t (so the pass up compares no timestamps). Reads only. O(log m)."""
        root = self.root
        node = self._search_start(t)
        if node is root:
            neighbor: Node | None = None
            ancestor: Node | None = None
            a = -1
        else:
            ancestor = node.parent
            assert ancestor is not None and ancestor.children is not None
            j = ancestor.child_index(node)
            neighbor = ancestor.children[j + 1] if j + 1 < len(ancestor.children) else None
            a = j
        boundary = []
        while True:
            self.touched_count += 1
            i, found = self._local_search(node, t)
            boundary.append((node, neighbor, ancestor, a, i + 1 if found else i))
            if found or node.children is None:
                return boundary  # an exact match ends the boundary at an internal node
            if i == len(node.times):  # t is right of every entry: follow the last child
                if neighbor is not None:
                    assert neighbor.children is not None
                    neighbor = neighbor.children[0]
            else:
                ancestor, neighbor, a = node, node.children[i + 1], i
            node = node.children[i]

    def _evict_pass_up(self, boundary: list[tuple[Node, Node | None, Node | None, int, int]]) -> Node:
        """Step 2, the eviction loop up the boundary (leaf level first). At each level: evict the node's entries
        ≤ t (and the children left of them), then repair underflow with the neighbor -- a batch move when the
        neighbor's surplus covers the deficit, else a merge (with a sibling, or a non-sibling merge that skips
        the dead levels up to the ancestor). A level without a neighbor is on the right spine: the tree shrinks
        from the top (make node root / make child root). Up and inner aggregates are repaired on the way; left
        and right ones wait for Step 3. The boundary becomes the new left spine. Returns the top changed node."""
        mu = self.min_arity
        top: Node | None = None
        skip_up_to: Node | None = None
        for level, (node, neighbor, ancestor, a, k) in enumerate(reversed(boundary)):
            if neighbor is not None and level > 0:
                self._recompute_if_up(neighbor)  # its child 0 may have changed one level below
            if skip_up_to is None or skip_up_to is node:
                if skip_up_to is node:
                    k = 0  # the non-sibling merge below already dropped its entries ≤ t (and e_a)
                skip_up_to = None
                self._local_evict_front(node, k)
                self._recompute_if_up(node)
                if neighbor is None:  # node is the root or on the right spine: everything above goes
                    old_root = self.root
                    new_root = node.children[0] if node.children is not None and node.arity == 1 else node
                    if new_root is not old_root:
                        holder = new_root.parent
                        assert holder is not None and holder.children is not None
                        holder.children.pop()  # detach it (its last child) before the old tree is freed
                        if holder is node:
                            node.times.clear()
                            node.values.clear()
                        self._free_subtree(old_root)
                        self._become_root(new_root)
                    self._repair_left_spine_info(self.root, recurse=level == 0)
                    return self.root
                if node.arity >= mu:
                    top = node
                else:
                    assert ancestor is not None
                    deficit = mu - node.arity
                    surplus = neighbor.arity - mu
                    if deficit <= surplus:
                        self._move_batch(node, neighbor, ancestor, a, deficit)
                    elif node.parent is ancestor:
                        self._merge(ancestor, a)
                    else:
                        self._merge_not_sibling(node, neighbor, ancestor, a)
                        skip_up_to = ancestor
                    top = ancestor
            self._repair_left_spine_info(
                node if skip_up_to is None else neighbor,  # type: ignore[arg-type]
                recurse=level == 0,
            )
        assert top is not None
        return top

    def _local_evict_front(self, node: Node, k: int) -> None:
        """``localEvictUpTo``: drop the node's first ``k`` entries (those ≤ t) and the children left of them
        (onto the free list); the straddling child, or the one right of an exact match, becomes child 0."""
        self.touched_count += 1
        if k:
            del node.times[:k]
            del node.values[:k]
            if node.children is not None:
                for dead in node.children[:k]:
                    self._free_subtree(dead)
                del node.children[:k]

    def _move_batch(self, node: Node, neighbor: Node, ancestor: Node, a: int, k: int) -> None:
        """Move batch (003 Fig. 2): rotate the separator e_a of the ancestor into ``node`` together with the
        neighbor's entries e0 … e(k−2) and children c0 … c(k−1), and e(k−1) up into the ancestor. ``node`` ends
        with arity μ; the neighbor keeps ≥ μ since its surplus covered the deficit k."""
        node.times.append(ancestor.times[a])
        node.values.append(ancestor.values[a])
        node.times.extend(neighbor.times[: k - 1])
        node.values.extend(neighbor.values[: k - 1])
        ancestor.times[a] = neighbor.times[k - 1]
        ancestor.values[a] = neighbor.values[k - 1]
        del neighbor.times[:k]
        del neighbor.values[:k]
        if node.children is not None:
            assert neighbor.children is not None
            moved = neighbor.children[:k]
            del neighbor.children[:k]
            for c in moved:
                c.parent = node
            node.children.extend(moved)
        self._recompute_if_up(node)
        self._recompute_if_up(neighbor)

    def _merge_not_sibling(self, node: Node, neighbor: Node, ancestor: Node, a: int) -> None:
        """Merge with a non-sibling neighbor (003 Fig. 3): the neighbor absorbs what is left of ``node`` and the
        separator e_a (> t) rotated down from the ancestor; ``node`` (its parent's last child) is detached and
        freed, and the ancestor drops its entries 0 … a and children 0 … a -- every node strictly between
        ``node`` and the ancestor lies entirely ≤ t. Arity 2μ + (surplus − deficit) ∈ [μ+1, 2μ−1]."""
        assert node.parent is not None and node.parent.children is not None and ancestor.children is not None
        neighbor.times[:0] = node.times + [ancestor.times[a]]
        neighbor.values[:0] = node.values + [ancestor.values[a]]
        if node.children is not None:
            assert neighbor.children is not None
            for c in node.children:
                c.parent = neighbor
            neighbor.children[:0] = node.children
        node.parent.children.pop()
        self._free_node(node)
        for dead in ancestor.children[: a + 1]:
            self._free_subtree(dead)
        del ancestor.times[: a + 1]
        del ancestor.values[: a + 1]
        del ancestor.children[: a + 1]
        self._recompute_if_up(neighbor)

    def _repair_left_spine_info(self, node: Node, recurse: bool) -> None:
        """``repairLeftSpineInfo``: ``node`` is now the leftmost node of its level, so on the left spine (unless
        it is the root). At the lowest boundary level (``recurse``) an exact match may have left a new child 0
        that was never on the boundary: flag its child-0 chain down to a leaf, which is the new left finger."""
        node.left_spine = node.parent is not None
        if recurse:
            while node.children is not None:
                node = node.children[0]
                node.left_spine = True
                self.touched_count += 1
            self.left_finger = node

    def _evict_repair(self, top: Node) -> None:
        """The repair loop above the boundary (classic rebalancing, amortized O(1): the top can underflow by
        one entry at most), then Step 3, the pass down: the left spine always, the right one if touched."""
        if top.parent is None:
            if top.children is not None and top.arity == 1:
                self._height_decrease()
                top = self.root
            self._repair_aggs(top, True, True)
            return
        if top.arity >= self.min_arity:
            self._repair_aggs(top, top.left_spine, top.right_spine)
            return
        top, hit_left, hit_right = self._rebalance_after_evict(top, top.left_spine, top.right_spine)
        self._repair_aggs(top, hit_left, hit_right)

    # ====================================================================================== bulk insert

    @guarded
    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """Insert ``(time, value)`` pairs given in non-decreasing time order (003 §5); equal times in one bulk
        fold earlier ⊗ later, so this equals ``for t, v in pairs: insert(t, v)``. Step 1: one sweep of finger
        searches from the right finger finds every insertion site (new keys go to leaves; a key already present
        is combined in place, at any level); Step 2: level by level, interleave each target node's treelets and
        split an overflowing node into pieces of arity μ+1 and one of arity in [μ, 2μ] (Claim 1), promoting the
        separators as the next level's treelets; Step 3: the pass down the touched spines. Amortized
        O(log d + m(1 + log(d/m))) ⊗ (Theorem 3). Out-of-order pairs raise :class:`UnorderedBulkError` and a bad
        value the monoid's error, before anything changes."""
        self._check_usable()
        lifted = self._checked_bulk(pairs)
        if lifted:
            self._bulk_insert(lifted)

    def _checked_bulk(self, pairs: Iterable[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
        """The bulk as ``(time, lifted value)`` pairs, its order checked (before anything changes)."""
        items = [(_norm_time(t), v) for t, v in pairs]
        check_bulk_order([t for t, _ in items])
        lift = self._lift
        return [(t, lift(v)) for t, v in items]

    def _bulk_insert(self, lifted: list[tuple[Any, Any]]) -> None:
        """bulk_insert's steps for a checked, non-empty bulk of lifted values."""
        keys: list[Any] = []
        vals: list[Any] = []
        for t, v in lifted:  # duplicates inside the bulk: earlier ⊗ later (the artifact's doInitialMultisearch)
            if keys and keys[-1] == t:
                vals[-1] = self._otimes_now(vals[-1], v)  # nothing changed yet: a failure leaves all as it was
            else:
                keys.append(t)
                vals.append(v)
        leaf_events, matches = self._multisearch(keys, vals)  # reads only
        # existing timestamps: every ``old ⊗ new`` first (a failure changes nothing: the tree stays usable)
        combined = [self._otimes_now(node.values[i], vals[seq]) for seq, node, i, _ in matches]
        try:
            dirty: dict[int, list[_Event]] = {}
            for (seq, node, i, level), value in zip(matches, combined):  # recompute at their level
                node.values[i] = value
                dirty.setdefault(level, []).append(_Event(seq, node, False))
            top_dirty = max(dirty, default=-1)
            tops = _Tops()
            level = 0
            events = leaf_events
            while events or level <= top_dirty:
                nxt: list[_Event] = []
                for target, group in self._groups(self._merged(events, dirty.get(level, []))):
                    self._bulk_local_insert(target, group, nxt, tops)
                events = nxt
                level += 1
            self._bulk_insert_pass_down(tops)
        except BaseException:
            self._failed()
            raise
        self._finish()

    def _multisearch(self, keys: list[Any], vals: list[Any]) -> tuple[list[_Event], list[tuple[Any, ...]]]:
        """Step 1, ``doInitialMultisearch``: the first key by finger search from the right finger (climb while
        the key is below the node's first time), every later key by climbing only as far as needed -- to the
        lowest node on the previous path whose subtree still covers it (breadcrumbs of exclusive upper bounds;
        keys only grow, so lower bounds never matter) -- and descending from there (Lemma 1). Returns the
        leaf-level insertion treelets and the in-place matches ``(seq, node, index, level)``. Reads only."""
        root = self.root
        node = self.right_finger
        level = 0
        self.touched_count += 1
        t0 = keys[0]
        while node is not root and t0 < node.times[0]:
            node = node.parent  # type: ignore[assignment]
            level += 1
            self.touched_count += 1
        path: list[tuple[Node, Any, int]] = [(node, None, level)]  # (node, exclusive upper bound or None, level)
        leaf_events: list[_Event] = []
        matches: list[tuple[Any, ...]] = []
        for seq, t in enumerate(keys):
            while len(path) > 1 and path[-1][1] is not None and not t < path[-1][1]:
                path.pop()  # t lies right of this subtree (an upper bound of None is +∞)
            node, ub, level = path[-1]
            while True:
                self.touched_count += 1
                i, found = self._local_search(node, t)
                if found:
                    matches.append((seq, node, i, level))
                    break
                if node.children is None:
                    leaf_events.append(_Event(seq, node, True, i, t, vals[seq]))
                    break
                ub = node.times[i] if i < len(node.times) else ub
                node = node.children[i]
                level -= 1
                path.append((node, ub, level))
        return leaf_events, matches

    @staticmethod
    def _merged(events: list[_Event], dirty: list[_Event]) -> list[_Event]:
        """The level's treelets in tree order: promotions/recomputations (already ordered) merged with the
        recomputations of existing keys found at this level, by ``seq``."""
        if not dirty:
            return events
        out: list[_Event] = []
        i = j = 0
        while i < len(events) or j < len(dirty):
            if j == len(dirty) or (i < len(events) and events[i].seq < dirty[j].seq):
                out.append(events[i])
                i += 1
            else:
                out.append(dirty[j])
                j += 1
        return out

    @staticmethod
    def _groups(events: list[_Event]) -> Iterator[tuple[Node, list[_Event]]]:
        """Consecutive treelets with the same target node, one group per node. Grouping by node *identity* on
        every append is what the artifact missed: its forwarded ride-along recomputation could open a second
        group for a node that then was split before the second group reached it (notes §7 item 1)."""
        group: list[_Event] = []
        for e in events:
            if group and e.target is not group[0].target:
                yield group[0].target, group
                group = []
            group.append(e)
        if group:
            yield group[0].target, group

    def _bulk_local_insert(self, node: Node, group: list[_Event], nxt: list[_Event], tops: _Tops) -> None:
        """Process one target of the current level: interleave its insertion treelets (merge step of merge sort,
        by slot, so no comparisons), split it if it overflows, and emit the next level's treelets (promoted
        separators, or a recomputation of the parent when ``node`` has an up aggregate); spine nodes and the
        root stop the propagation and are recorded as tops for the pass down."""
        seq = group[0].seq
        self.touched_count += 1
        inserts = [e for e in group if e.insert]
        split = False
        if inserts:
            times, values, children = self._interleave(node, inserts)
            if len(times) + 1 > self.max_arity:
                self._bulk_split(node, times, values, children, seq, nxt, tops)
                split = True
            else:
                last = node.children[-1] if node.children else None
                node.times, node.values = times, values
                if children is not None:
                    node.children = children
                    for c in children:
                        c.parent = node
                    if node.parent is None and children[-1] is not last:
                        tops.right_from_root = True
        if node.has_up_agg():
            if not split:
                self._recompute(node)
                assert node.parent is not None
                nxt.append(_Event(seq, node.parent, False))
        else:
            if node.left_spine:
                tops.left = node
            if node.right_spine:
                tops.right = node
            if node.parent is None:
                tops.root = True

    @staticmethod
    def _interleave(node: Node, inserts: list[_Event]) -> tuple[list[Any], list[Any], list[Node] | None]:
        """The node's entries (and children) with the treelets' entries (and right children) merged in: the
        treelets of slot s go just before the node's original entry s."""
        times: list[Any] = []
        values: list[Any] = []
        old = node.children
        children: list[Node] | None = None if old is None else [old[0]]
        k = 0
        for e in range(len(node.times) + 1):
            while k < len(inserts) and inserts[k].slot == e:
                times.append(inserts[k].time)
                values.append(inserts[k].value)
                if children is not None:
                    children.append(inserts[k].child)  # type: ignore[arg-type]
                k += 1
            if e < len(node.times):
                times.append(node.times[e])
                values.append(node.values[e])
                if children is not None:
                    assert old is not None
                    children.append(old[e + 1])
        return times, values, children

    def _bulk_split(
        self,
        node: Node,
        times: list[Any],
        values: list[Any],
        children: list[Node] | None,
        seq: int,
        nxt: list[_Event],
        tops: _Tops,
    ) -> None:
        """``bulkSplit`` (003 §5, Claim 1): cut the interleaved arity-p sequence into pieces of arity μ+1 and a
        last one of arity in [μ, 2μ]; ``node`` keeps the first piece (its identity, child 0 and left-spine flag),
        the others are new; each separator in between is promoted as an insertion treelet into the parent, right
        after ``node``. A root grows a new root first. The last piece takes the right-spine flag and the right
        finger. Non-spine pieces get their up aggregates now."""
        if node.parent is None:
            self._height_increase()
            tops.left_from_root = tops.right_from_root = True
        parent = node.parent
        assert parent is not None and parent.children is not None
        sizes = split_pieces(len(times) + 1, self.min_arity)
        pieces = [node] + [self._new_node(leaf=children is None) for _ in sizes[1:]]
        slot = parent.child_index(node)
        from_right = node.right_spine
        e = c = 0
        for k, b in enumerate(sizes):
            piece = pieces[k]
            piece.times = times[e : e + b - 1]
            piece.values = values[e : e + b - 1]
            e += b - 1
            if children is not None:
                piece.children = children[c : c + b]
                for ch in piece.children:
                    ch.parent = piece
                c += b
            piece.parent = parent
            if k + 1 < len(sizes):
                nxt.append(_Event(seq, parent, True, slot, times[e], values[e], pieces[k + 1]))
                e += 1
        if from_right:
            node.right_spine = False
            pieces[-1].right_spine = True
            if self.right_finger is node:
                self.right_finger = pieces[-1]
        for piece in pieces:
            self._recompute_if_up(piece)
        if node.left_spine:
            tops.left = node
        if pieces[-1].right_spine:
            tops.right = pieces[-1]

    def _bulk_insert_pass_down(self, tops: _Tops) -> None:
        """Step 3: recompute the root if touched, then every node down each touched spine from its highest
        touched node (from the root when the root's spine child changed)."""
        root = self.root
        if tops.root:
            self._recompute(root)
        for top, from_root, end in ((tops.left, tops.left_from_root, 0), (tops.right, tops.right_from_root, -1)):
            if from_root:
                top = root
            if top is None:
                continue
            if top is not root:
                self._recompute(top)
            self._walk_spine(top, end)

    # ====================================================================================== queries

    @guarded
    def query(self) -> Any:
        """``Π↙(leftFinger) ⊗ Π|(root) ⊗ Π↘(rightFinger)``, lowered (the root's aggregate when it is a leaf).
        2 ⊗ (0 for a leaf root)."""
        self._check_usable()
        return self._query()

    def _query(self) -> Any:
        root = self.root
        if root.children is None:
            return self.monoid.lower(root.agg)
        # reads only: a failing ⊗ changes nothing, the tree stays usable
        agg = self._otimes_now(self._otimes_now(self.left_finger.agg, root.agg), self.right_finger.agg)
        return self.monoid.lower(agg)

    @guarded
    def range_query(self, t_from: Any, t_to: Any) -> Any:
        """The fold of the values with ``t_from ≤ time ≤ t_to`` in time order, lowered (FiBA 2019
        ``rangeQuery``, inclusive at both ends; ``lower(identity)`` for an empty range). Starts at the lowest
        spine node (or the root) whose subtree covers the range, found by climbing from the nearer finger, and
        recurses into the children that intersect the range, using the stored Π↑ of every fully covered
        non-spine subtree. O(log n) ⊗; O(log d) for a range near either end."""
        self._check_usable()
        t_from = _norm_time(t_from)
        t_to = _norm_time(t_to)
        check_time(t_from)
        check_time(t_to)
        if not t_from <= t_to or len(self) == 0:
            return self.monoid.lower(self._one)
        root = self.root
        node = root
        if root.children is not None:
            if t_to < root.times[0]:
                node = self.left_finger
                while node is not root and node.times[-1] < t_to:
                    node = node.parent  # type: ignore[assignment]
                    self.touched_count += 1
            elif root.times[-1] < t_from:
                node = self.right_finger
                while node is not root and t_from < node.times[0]:
                    node = node.parent  # type: ignore[assignment]
                    self.touched_count += 1
        ops: list[Any] = []
        self._range_operands(node, t_from, t_to, ops)  # reads only
        agg = self._fold_now(ops)  # a failing ⊗ changes nothing: the tree stays usable
        return self.monoid.lower(agg)

    def _fold_now(self, ops: list[Any]) -> Any:
        if not ops:
            return self._one
        acc = ops[0]
        for x in ops[1:]:
            acc = self._otimes_now(acc, x)
        return acc

    def _range_operands(self, node: Node, lo: Any, hi: Any, ops: list[Any]) -> None:
        """Append the operands of ``node``'s subtree restricted to ``[lo, hi]`` (``None``: unbounded on that
        side because the subtree lies inside the range there)."""
        self.touched_count += 1
        if lo is None and hi is None and node.has_up_agg():
            ops.append(node.agg)
            return
        times, ch = node.times, node.children
        last = len(times)
        for i in range(last + 1):
            if ch is not None:
                # child i holds the times strictly between times[i-1] and times[i]
                if (hi is None or i == 0 or times[i - 1] < hi) and (lo is None or i == last or lo < times[i]):
                    c_lo = None if lo is None or (i > 0 and not times[i - 1] < lo) else lo
                    c_hi = None if hi is None or (i < last and not hi < times[i]) else hi
                    self._range_operands(ch[i], c_lo, c_hi, ops)
            if i < last and (lo is None or not times[i] < lo) and (hi is None or not hi < times[i]):
                ops.append(node.values[i])

    @guarded
    def oldest(self) -> Any:
        """The smallest timestamp: the left finger's first (O(1)). :class:`EmptyWindowError` when empty."""
        self._check_usable()
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: oldest() on an empty window")
        return self.left_finger.times[0]

    @guarded
    def youngest(self) -> Any:
        """The largest timestamp: the right finger's last (O(1)). :class:`EmptyWindowError` when empty."""
        self._check_usable()
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: youngest() on an empty window")
        return self.right_finger.times[-1]

    def __len__(self) -> int:
        """O(1): the entry counts stored with the aggregates, ``count(leftFinger) + count(root) +
        count(rightFinger)`` (the root's count for a leaf root)."""
        root = self.root
        if root.children is None:
            return len(root.times)
        return self.left_finger.count + root.count + self.right_finger.count

    @guarded
    def items(self) -> list[tuple[Any, Any]]:
        """``(time, lifted value)`` pairs in time order (an in-order traversal, O(n))."""
        self._check_usable()
        return self._items()

    def _items(self) -> list[tuple[Any, Any]]:
        out: list[tuple[Any, Any]] = []
        stack: list[tuple[Node, int]] = [(self.root, 0)]
        while stack:
            node, i = stack.pop()
            if node.children is None:
                out.extend(zip(node.times, node.values))
                continue
            if i > 0:
                out.append((node.times[i - 1], node.values[i - 1]))
            if i < len(node.children) - 1:
                stack.append((node, i + 1))
            stack.append((node.children[i], 0))
        return out

    @guarded
    def times(self) -> list[Any]:
        """The timestamps in time order, O(n)."""
        self._check_usable()
        return [t for t, _ in self._items()]

    @guarded
    def slide(self, times: Iterable[Any], values: Iterable[Any], window: int) -> Any:
        """The array driver of a count-based window over an (in-order or not) stream: for each pair, evict the
        oldest while ``len() ≥ window``, ``insert(t, v)``, record ``query()``; returns the answers (a list).
        ``times`` and ``values`` must have the same length (``ValueError`` before anything changes). A loop of
        single operations: if one fails at pair j, the first j pairs stay applied (the exception's note says
        so)."""
        self._check_usable()
        window = _check_window(window)
        ts, vs = _slide_inputs(times, values)
        out: list[Any] = []
        for j in range(len(ts)):
            try:
                while len(self) >= window:
                    self._evict()
                t = _norm_time(ts[j])
                check_time(t)
                self._insert(t, self._lift(vs[j]))
                out.append(self._query())
            except BaseException as err:
                err.add_note(f"swagkit {self.algorithm}: slide processed {j} of {len(ts)} pairs")
                raise
        return out

    # ====================================================================================== recovery

    @guarded
    def salvage(self) -> list[tuple[Any, Any]]:
        """The ``(time, lifted value)`` entries held, in time order, like ``items()`` -- also on a structure that
        refuses after a failed ⊗ (see the module docstring): then exactly the entries before or after the failed
        operation. No ⊗ call; O(n)."""
        return _salvaged(self._items(), self._fix)

    @guarded
    def repair(self) -> None:
        """Rebuild a broken structure in place from :meth:`salvage`'s entries (one bulk insertion into an empty
        tree: O(n) ⊗), after which it answers again; nothing to do on a structure that is not broken. If ⊗
        raises during the rebuild, the structure stays broken and keeps the entries."""
        if not self._broken:
            return
        entries = _salvaged(self._items(), self._fix)
        self._clear()
        self._fix = ("held", entries)  # until the rebuild succeeds, salvage() returns them whatever the tree holds
        if entries:
            self._bulk_insert(entries)
        self._broken = False
        self._fix = None

    # ====================================================================================== state

    @guarded
    def snapshot(self) -> FiBAState:
        """:class:`~swagkit.spec.snapshots.FiBAState`: nodes numbered in preorder, with the ids their parent
        pointers and the fingers designate."""
        self._check_usable()
        return self._snapshot()

    def _snapshot(self) -> FiBAState:
        ids: dict[int, int] = {}
        order: list[Node] = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            ids[id(node)] = len(order)
            order.append(node)
            if node.children is not None:
                stack.extend(reversed(node.children))

        def build(node: Node) -> FiBANodeState:
            parent = None if node.parent is None else ids.get(id(node.parent), -1)
            return FiBANodeState(
                id=ids[id(node)],
                parent=parent,
                times=tuple(node.times),
                values=tuple(node.values),
                agg=node.agg,
                count=node.count,
                left_spine=node.left_spine,
                right_spine=node.right_spine,
                children=tuple(build(c) for c in node.children) if node.children is not None else (),
            )

        return FiBAState(
            min_arity=self.min_arity,
            root=build(self.root),
            left_finger=ids.get(id(self.left_finger), -1),
            right_finger=ids.get(id(self.right_finger), -1),
            size=len(self),
        )

    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: FiBAState, min_arity: int = DEFAULT_MIN_ARITY
    ) -> FiBA:
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call, O(n)). The
        snapshot's shape is checked first (:func:`_snapshot_order`): a malformed one raises ``TypeError`` or
        ``ValueError``; so does a value a typed kind refuses. Its aggregates are taken as they are."""
        agg = cls(monoid, min_arity)
        order = _snapshot_order(snapshot, agg.min_arity, cls.algorithm)
        check = _typed_check(agg.monoid)
        nodes: list[Node] = []
        for st, p in order:
            node = Node(not st.children, agg._one)
            node.times = [_norm_time(t) for t in st.times]
            node.values = list(st.values) if check is None else [check(v) for v in st.values]
            node.agg = st.agg if check is None else check(st.agg)
            node.count = st.count
            node.left_spine = st.left_spine
            node.right_spine = st.right_spine
            if p is not None:
                parent = nodes[p]
                node.parent = parent
                assert parent.children is not None
                parent.children.append(node)
            nodes.append(node)
        agg.root = nodes[0]
        agg.left_finger = nodes[snapshot.left_finger]
        agg.right_finger = nodes[snapshot.right_finger]
        return agg

    @guarded
    def _check(self) -> None:
        """Check every invariant of 003 §3.2 (notes §2.5) against the structure's own contents, locally and
        globally (:func:`swagkit.spec.checkers.fiba.check_fiba`). O(n) ⊗."""
        from swagkit.spec.checkers.fiba import check_fiba

        self._check_usable()
        check_fiba(self._snapshot(), self.monoid, self._items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


class FiBALoop(FiBA):
    """FiBA with bulk operations emulated by loops of single operations (id ``fiba_loop``): the paper's
    ``nb_fiba`` baseline (003 §7; the artifact's ``BulkAdapter``), with ``oldest()`` from the left finger as the
    notes advise. ``bulk_evict(t)``: ``evict()`` while the oldest time is ≤ t, O(m) amortized;
    ``bulk_insert(pairs)``: checks the whole bulk, then ``insert`` each pair, O(m log d) amortized.

    Exception safety: ``"refuse"``, like :class:`FiBA`; each bulk operation is still one operation: after a ⊗
    failed in it, ``salvage()`` holds the entries after the whole ``bulk_evict`` (those above its time) or before
    the whole ``bulk_insert`` (each insert logs its time's previous value before changing anything)."""

    algorithm = "fiba_loop"

    @guarded
    def bulk_evict(self, time: Any) -> int:
        """``evict()`` while the oldest entry's time is ≤ ``time``; returns how many. Amortized O(m) ⊗. One
        operation: if a ⊗ fails part-way, the structure refuses and :meth:`salvage` gives the entries after the
        whole bulk eviction (those above ``time``)."""
        self._check_usable()
        time = _norm_time(time)
        check_time(time)
        evicted = 0
        try:
            while len(self) > 0 and not time < self.left_finger.times[0]:
                self._evict()
                evicted += 1
        except BaseException:
            if evicted or self._broken:
                self._failed()
                self._fix = ("above", time)
            raise
        return evicted

    @guarded
    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """Check the bulk (order, values) like :meth:`FiBA.bulk_insert`, then ``insert`` each pair in order.
        Amortized O(m log d) ⊗. One operation: each insert logs the previous value of its time first, so if a ⊗
        fails part-way the structure refuses and :meth:`salvage` gives the entries before the bulk."""
        self._check_usable()
        lifted = self._checked_bulk(pairs)
        log: list[tuple[Any, Any]] = []
        try:
            for t, v in lifted:
                self._insert(t, v, log)
        except BaseException:
            if log:  # something may have changed: refuse, salvaging the entries before the bulk
                self._failed()
                self._fix = ("undo", log)
            raise
