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

Counters: ``combine_count`` (⊗ calls, identity operands included, in the order below) and ``touched_count``
(node visits: every node a search or a structural pass inspects, every aggregate recomputation and every node
allocation), the machine-independent work the paper's bounds speak about. A node's aggregate is recomputed as the fold of its
operands left to right (``k`` operands, ``k − 1`` ⊗); the one incremental shortcut is an in-order append to
the right finger without a split (``Π↘ ⊗ v``), as the artifact's ``pushBackEntry``.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from swagkit.spec.errors import EmptyWindowError, SwagkitError
from swagkit.spec.fiba import split_pieces
from swagkit.spec.monoid import Monoid
from swagkit.spec.ooo import MissingTimeError, check_bulk_order, check_time
from swagkit.spec.snapshots import FiBANodeState, FiBAState

__all__ = ["FiBA", "FiBALoop", "Node", "DEFAULT_MIN_ARITY"]

#: the paper's experiments use μ = 4 (``b_fiba4``) and μ = 8
DEFAULT_MIN_ARITY = 4


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

    def child_index(self, child: "Node") -> int:
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

    def __init__(self, seq: int, target: Node, insert: bool, slot: int = 0, time: Any = None, value: Any = None,
                 child: Node | None = None) -> None:
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


class FiBA:
    """Finger B-tree aggregator (id ``fiba``; paper 003 with FiBA 2019), out-of-order timestamped window.

    ``FiBA(monoid, min_arity=4)``: minimum arity μ ≥ 2 (maximum 2μ). API: ``insert(time, value)``,
    ``evict()``, ``remove(time)``, ``bulk_evict(time) -> int``, ``bulk_insert(pairs)``, ``query()``,
    ``range_query(t_from, t_to)``, ``oldest()``, ``youngest()``, ``len()``, ``items()``, ``times()``,
    ``slide(times, values, window)``, ``snapshot()``, ``combine_count``, ``touched_count`` and ``_check()``.
    The ADT (including bad input) is :class:`swagkit.spec.ooo.TimedWindow`'s; see the module docstring for
    the complexity of each operation.
    """

    algorithm = "fiba"

    def __init__(self, monoid: Monoid[Any, Any, Any], min_arity: int = DEFAULT_MIN_ARITY) -> None:
        if type(min_arity) is not int or min_arity < 2:
            raise ValueError(f"fiba: min_arity must be an integer ≥ 2, got {min_arity!r}")
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
        #: set while an update runs; stays set if a combine raised half-way (see :meth:`_check_usable`)
        self._broken = False

    # ====================================================================================== bookkeeping

    def _otimes(self, a: Any, b: Any) -> Any:
        """``a ⊗ b``, counted."""
        self.combine_count += 1
        return self._combine(a, b)

    def _check_usable(self) -> None:
        if self._broken:
            raise SwagkitError(
                f"{self.algorithm}: a combine call raised during an earlier update; the aggregator is inconsistent "
                "and can no longer be updated"
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

    def insert(self, time: Any, value: Any) -> None:
        """Insert ``value`` at ``time`` (FiBA 2019): finger search; at an existing time (leaf or internal) combine
        ``old ⊗ new`` in place, else insert into the leaf and split upward while a node overflows; then repair
        the aggregates. Amortized O(log d) ⊗ (O(1) in order), worst case O(log n). ``value`` is lifted and
        ``time`` located before anything changes."""
        check_time(time)
        v = self._lift(value)
        self._check_usable()
        node, i, found, _ = self._search(time)
        self._broken = True
        if found:
            node.values[i] = self._otimes(node.values[i], v)
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
        self._broken = False

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

    def evict(self) -> None:
        """Remove the oldest entry: pop it from the left finger, rebalance, repair. Amortized O(1) ⊗, worst
        case O(log n). :class:`EmptyWindowError` (nothing changes) on an empty window."""
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: evict() on an empty window")
        self._check_usable()
        self._broken = True
        leaf = self.left_finger
        del leaf.times[0]
        del leaf.values[0]
        top, hit_left, hit_right = self._rebalance_after_evict(leaf, leaf.left_spine, leaf.right_spine)
        self._repair_aggs(top, hit_left, hit_right)
        self._broken = False

    def remove(self, time: Any) -> None:
        """Remove the entry at ``time`` (FiBA 2019 ``evict(t)``). In a leaf it is deleted there; in an internal
        node it is replaced by its neighbor entry from a leaf (the oldest of the right subtree when that child
        has spare arity, else the youngest of the left subtree), which is then deleted. Amortized O(log d) ⊗,
        worst case O(log n). :class:`MissingTimeError` (nothing changes) when ``time`` is not present."""
        self._check_usable()
        node, i, found, _ = self._search(time)
        if not found:
            raise MissingTimeError(f"{self.algorithm}: remove({time!r}): no entry has this timestamp")
        self._broken = True
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
        top, hit_left, hit_right, climbed = self._rebalance_after_evict(leaf, leaf.left_spine, leaf.right_spine,
                                                                        count_levels=True)
        # the node that held ``time`` changed too: climb at least up to it
        self._repair_aggs(top, hit_left, hit_right, climb=max(0, extra - climbed))
        self._broken = False

    def _rebalance_after_evict(self, node: Node, hit_left: bool, hit_right: bool,
                               count_levels: bool = False) -> Any:
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
            hit_left |= sibling.left_spine or node.left_spine
            hit_right |= sibling.right_spine or node.right_spine
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

    def bulk_evict(self, time: Any) -> int:
        """Remove every entry with timestamp ≤ ``time`` and return how many (003 §4). Step 1: the boundary
        search; Step 2: the pass up (local evictions, batch moves, sibling and non-sibling merges, make node /
        child root, then classic rebalancing above the boundary); Step 3: the pass down the spines. Amortized
        O(log m) ⊗ and node visits (Theorem 1), worst case O(log n); nothing is touched when ``time`` is below
        the oldest entry, and a ``time`` at or above the youngest clears the window in O(1)."""
        check_time(time)
        self._check_usable()
        n = len(self)
        if n == 0 or time < self.left_finger.times[0]:
            return 0
        self._broken = True
        if not time < self.right_finger.times[-1]:  # everything goes
            self._free_subtree(self.root)
            self.root = self.left_finger = self.right_finger = self._new_node(leaf=True)
        else:
            boundary = self._search_boundary(time)
            top = self._evict_pass_up(boundary)
            self._evict_repair(top)
        self._broken = False
        return n - len(self)

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
            self._repair_left_spine_info(node if skip_up_to is None else neighbor,  # type: ignore[arg-type]
                                         recurse=level == 0)
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

    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """Insert ``(time, value)`` pairs given in non-decreasing time order (003 §5); equal times in one bulk
        fold earlier ⊗ later, so this equals ``for t, v in pairs: insert(t, v)``. Step 1: one sweep of finger
        searches from the right finger finds every insertion site (new keys go to leaves; a key already present
        is combined in place, at any level); Step 2: level by level, interleave each target node's treelets and
        split an overflowing node into pieces of arity μ+1 and one of arity in [μ, 2μ] (Claim 1), promoting the
        separators as the next level's treelets; Step 3: the pass down the touched spines. Amortized
        O(log d + m(1 + log(d/m))) ⊗ (Theorem 3). Out-of-order pairs raise :class:`UnorderedBulkError` and a bad
        value the monoid's error, before anything changes."""
        items = [(t, v) for t, v in pairs]
        check_bulk_order([t for t, _ in items])
        lift = self._lift
        lifted = [(t, lift(v)) for t, v in items]
        self._check_usable()
        if not lifted:
            return
        keys: list[Any] = []
        vals: list[Any] = []
        for t, v in lifted:  # duplicates inside the bulk: earlier ⊗ later (the artifact's doInitialMultisearch)
            if keys and keys[-1] == t:
                vals[-1] = self._otimes(vals[-1], v)
            else:
                keys.append(t)
                vals.append(v)
        leaf_events, matches = self._multisearch(keys, vals)
        self._broken = True
        dirty: dict[int, list[_Event]] = {}
        for seq, node, i, level in matches:  # existing timestamps: combine in place, recompute at their level
            node.values[i] = self._otimes(node.values[i], vals[seq])
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
        self._broken = False

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

    def _bulk_split(self, node: Node, times: list[Any], values: list[Any], children: list[Node] | None, seq: int,
                    nxt: list[_Event], tops: _Tops) -> None:
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

    def query(self) -> Any:
        """``Π↙(leftFinger) ⊗ Π|(root) ⊗ Π↘(rightFinger)``, lowered (the root's aggregate when it is a leaf).
        2 ⊗ (0 for a leaf root)."""
        root = self.root
        if root.children is None:
            return self.monoid.lower(root.agg)
        agg = self._otimes(self._otimes(self.left_finger.agg, root.agg), self.right_finger.agg)
        return self.monoid.lower(agg)

    def range_query(self, t_from: Any, t_to: Any) -> Any:
        """The fold of the values with ``t_from ≤ time ≤ t_to`` in time order, lowered (FiBA 2019
        ``rangeQuery``, inclusive at both ends; ``lower(identity)`` for an empty range). Starts at the lowest
        spine node (or the root) whose subtree covers the range, found by climbing from the nearer finger, and
        recurses into the children that intersect the range, using the stored Π↑ of every fully covered
        non-spine subtree. O(log n) ⊗; O(log d) for a range near either end."""
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
        self._range_operands(node, t_from, t_to, ops)
        return self.monoid.lower(self._fold(ops))

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

    def oldest(self) -> Any:
        """The smallest timestamp: the left finger's first (O(1)). :class:`EmptyWindowError` when empty."""
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: oldest() on an empty window")
        return self.left_finger.times[0]

    def youngest(self) -> Any:
        """The largest timestamp: the right finger's last (O(1)). :class:`EmptyWindowError` when empty."""
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

    def items(self) -> list[tuple[Any, Any]]:
        """``(time, lifted value)`` pairs in time order (an in-order traversal, O(n))."""
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

    def times(self) -> list[Any]:
        """The timestamps in time order, O(n)."""
        return [t for t, _ in self.items()]

    def slide(self, times: Iterable[Any], values: Iterable[Any], window: int) -> Any:
        """The array driver of a count-based window over an (in-order or not) stream: for each pair, evict the
        oldest while ``len() ≥ window``, ``insert(t, v)``, record ``query()``; returns the answers (a list)."""
        if type(window) is not int or window < 1:
            raise ValueError("slide: window must be an integer ≥ 1")
        out: list[Any] = []
        for t, v in zip(times, values):
            while len(self) >= window:
                self.evict()
            self.insert(t, v)
            out.append(self.query())
        return out

    # ====================================================================================== state

    def snapshot(self) -> FiBAState:
        """:class:`~swagkit.spec.snapshots.FiBAState`: nodes numbered in preorder, with the ids their parent
        pointers and the fingers designate."""
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

    def _check(self) -> None:
        """Check every invariant of 003 §3.2 (notes §2.5) against the structure's own contents, locally and
        globally (:func:`swagkit.spec.checkers.fiba.check_fiba`). O(n) ⊗."""
        from swagkit.spec.checkers.fiba import check_fiba

        check_fiba(self.snapshot(), self.monoid, self.items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


class FiBALoop(FiBA):
    """FiBA with bulk operations emulated by loops of single operations (id ``fiba_loop``): the paper's
    ``nb_fiba`` baseline (003 §7; the artifact's ``BulkAdapter``), with ``oldest()`` from the left finger as the
    notes advise. ``bulk_evict(t)``: ``evict()`` while the oldest time is ≤ t, O(m) amortized;
    ``bulk_insert(pairs)``: checks the whole bulk, then ``insert`` each pair, O(m log d) amortized."""

    algorithm = "fiba_loop"

    def bulk_evict(self, time: Any) -> int:
        """``evict()`` while the oldest entry's time is ≤ ``time``; returns how many. Amortized O(m) ⊗."""
        check_time(time)
        self._check_usable()
        evicted = 0
        while len(self) > 0 and not time < self.left_finger.times[0]:
            self.evict()
            evicted += 1
        return evicted

    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None:
        """Check the bulk (order, values) like :meth:`FiBA.bulk_insert`, then ``insert`` each pair in order.
        Amortized O(m log d) ⊗."""
        items = [(t, v) for t, v in pairs]
        check_bulk_order([t for t, _ in items])
        lift = self._lift
        for _, v in items:
            lift(v)  # a bad value must raise before anything changes
        self._check_usable()
        for t, v in items:
            self.insert(t, v)
