"""Invariants of the finger B-tree aggregator (FiBA; paper 003 §3.2, FiBA 2019) over
:class:`~swagkit.spec.snapshots.FiBAState`, numbered as in the notes (003 notes §2.5).

``window`` is the out-of-order model's contents: ``(time, lifted value)`` pairs, oldest first
(:meth:`swagkit.spec.ooo.TimedWindow.items`). Checked, in this order, naming the node that breaks each one (by
its path from the root, e.g. ``root.c2.c0``, and its timestamps):

* structure -- A3 (entries and children), S1 (parent links), H1 (height), O1/O2 (order), A1/A2 (arity), S2
  (spine flags), S3 (fingers), ``size``, and Q1/Q2 (the tree holds exactly the model's entries);
* G1-G4 and C (the per-node entry counts, a swagkit addition) **locally**: every stored aggregate equals its formula
  evaluated on the *stored* aggregates of its children and parent (the artifact's ``localCheckInvariant``);
* G1-G4 **globally**: every stored aggregate equals its formula evaluated on aggregates recomputed *from
  scratch* from the entries (Π↑ of every subtree folded from its entries), which also catches stored aggregates
  that are wrong in a mutually consistent way.

Aggregates are compared with ``monoid.eq`` (tolerant for float monoids, whose groupings differ). Cost O(n) ⊗.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from ..errors import InvariantViolation
from ..monoid import Monoid
from ..snapshots import FiBANodeState, FiBAState

__all__ = ["check_fiba", "WORDING", "node_label"]

WORDING = {
    "H1 height": "The height invariant requires all leaves to have the exact same distance from the root.",
    "O1 order": "the times t0, …, t(a−2) within each node are ordered, i.e., ∀i: t_i < t_(i+1)",
    "O2 order": "for all i, t_i is greater than all times in c_i or its descendants and smaller than all times in "
    "c_(i+1) or its descendants",
    "A1 arity": "MIN_ARITY ≤ a ≤ MAX_ARITY = 2·MIN_ARITY for all non-root nodes",
    "A2 root arity": "for the root, 2 ≤ a ≤ MAX_ARITY (an internal root); a leaf root holds 0 … 2·MIN_ARITY−1 "
    "entries (notes §2.2: the paper's root bound cannot hold for windows of 0 or 1 entries)",
    "A3 entries": "For non-leaf nodes, a is the number of children. All nodes have a−1 entries, i.e., parallel "
    "arrays of a−1 timestamps and a−1 values.",
    "S1 parent": "each node … has pointers to its parent and children: child.parent = node, root.parent = NULL",
    "S2 spine flags": "each node stores two Boolean flags to indicate whether it is on the left or right spine: "
    "leftSpine(y) ⇔ y ≠ root ∧ y = parent(y).c_0 ∧ (parent(y) = root ∨ leftSpine(parent(y))), and the mirror",
    "S3 fingers": "left finger to the left-most leaf; … right finger to the right-most leaf",
    "size": "the entry count equals the number of entries in the tree",
    "Q contents": "the tree's entries, in order, are the window's [t1/v1, …, tn/vn] with t_i < t_(i+1)",
    "G1 up": "All non-spine, non-root nodes store the up aggregate: Π↑(y) = Π↑(c0) ⊗ v0 ⊗ Π↑(c1) ⊗ … ⊗ "
    "v(a−2) ⊗ Π↑(c(a−1))",
    "G2 left": "Nodes that are on the left spine but not the root store the left aggregate: Π↙(y) = Π|(y) ⊗ "
    "Π↑(c(a−1)) ⊗ (1 if x is root, else Π↙(x))",
    "G3 right": "Nodes that are on the right spine but not the root store the right aggregate: Π↘(y) = (1 if x is "
    "root, else Π↘(x)) ⊗ Π↑(c0) ⊗ Π|(y)",
    "G4 inner": "the root stores the inner aggregate: Π|(y) = v0 ⊗ Π↑(c1) ⊗ v1 ⊗ … ⊗ Π↑(c(a−2)) ⊗ v(a−2)",
    "C counts": "(swagkit) every node also stores how many entries its aggregate covers, by the same kind "
    "(up, inner, left, right) over the counting monoid, so len() = count(leftFinger) + count(root) + "
    "count(rightFinger)",
}

_KIND_INVARIANT = {"up": "G1 up", "left": "G2 left", "right": "G3 right", "inner": "G4 inner"}


def node_label(path: str, node: FiBANodeState) -> str:
    """``root.c1.c0 [times 9, 12]``: how failures name a node."""
    shown = ", ".join(repr(t) for t in node.times[:6]) + (", …" if len(node.times) > 6 else "")
    return f"{path} [times {shown}]"


def _walk(node: FiBANodeState, path: str = "root") -> Iterator[tuple[str, FiBANodeState, int]]:
    """Preorder ``(path, node, depth)``."""
    stack: list[tuple[str, FiBANodeState, int]] = [(path, node, 0)]
    while stack:
        p, n, depth = stack.pop()
        yield p, n, depth
        for i in range(len(n.children) - 1, -1, -1):
            stack.append((f"{p}.c{i}", n.children[i], depth + 1))


class _FiBAChecker:
    def __init__(self, state: FiBAState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
        self.state = state
        self.monoid = monoid
        self.window = list(window)
        self.mu = state.min_arity

    def fail(self, invariant: str, detail: str) -> None:
        raise InvariantViolation("fiba", invariant, WORDING[invariant], detail, self.state)

    def fold(self, operands: Sequence[Any]) -> Any:
        if not operands:
            return self.monoid.identity
        acc = operands[0]
        for x in operands[1:]:
            acc = self.monoid.combine(acc, x)
        return acc

    # ------------------------------------------------------------------------------------------- structure

    def structure(self) -> list[tuple[str, FiBANodeState, FiBANodeState | None, int]]:
        """Check everything but the aggregates; returns preorder ``(path, node, parent, depth)``."""
        s, mu = self.state, self.mu
        if type(mu) is not int or mu < 2:
            self.fail("A1 arity", f"min_arity = {mu!r}; MIN_ARITY must be an integer > 1")
        if s.root.parent is not None:
            self.fail("S1 parent", f"the root's parent pointer designates node {s.root.parent}, not NULL")
        nodes: list[tuple[str, FiBANodeState, FiBANodeState | None, int]] = []
        parents: dict[int, FiBANodeState | None] = {s.root.id: None}
        leaf_depth: int | None = None
        leaves: list[tuple[str, FiBANodeState]] = []
        for path, node, depth in _walk(s.root):
            parent = parents[node.id]
            nodes.append((path, node, parent, depth))
            label = node_label(path, node)
            if len(node.values) != len(node.times) or (node.children and len(node.children) != node.arity):
                self.fail(
                    "A3 entries",
                    f"node {label}: {len(node.times)} times, {len(node.values)} values, {len(node.children)} children",
                )
            for child in node.children:
                if child.parent != node.id:
                    self.fail(
                        "S1 parent",
                        f"node {node_label(path, child)} (child of node {node.id}) has a parent "
                        f"pointer to node {child.parent}",
                    )
                parents[child.id] = node
            if not node.children:
                leaves.append((path, node))
                if leaf_depth is None:
                    leaf_depth = depth
                elif depth != leaf_depth:
                    self.fail("H1 height", f"leaf {label} is at depth {depth}, another leaf at depth {leaf_depth}")
            for i in range(len(node.times) - 1):
                if not node.times[i] < node.times[i + 1]:
                    self.fail(
                        "O1 order", f"node {label}: t{i} = {node.times[i]!r} is not < t{i + 1} = {node.times[i + 1]!r}"
                    )
            a = node.arity
            if parent is None:
                low = 1 if not node.children else 2
                if not low <= a <= 2 * mu:
                    self.fail(
                        "A2 root arity",
                        f"root {label} ({'leaf' if low == 1 else 'internal'}) has arity {a}, allowed {low} … {2 * mu}",
                    )
            elif not mu <= a <= 2 * mu:
                self.fail("A1 arity", f"node {label} has arity {a}, allowed {mu} … {2 * mu} (μ = {mu})")
            want_left, want_right = self._expected_flags(node, parent)
            if (node.left_spine, node.right_spine) != (want_left, want_right):
                self.fail(
                    "S2 spine flags",
                    f"node {label} has leftSpine={node.left_spine}, rightSpine="
                    f"{node.right_spine}; its position requires {want_left}, {want_right}",
                )
        ordered = self._in_order(s.root)
        for k in range(len(ordered) - 1):
            if not ordered[k][0] < ordered[k + 1][0]:
                self.fail("O2 order", f"in-order traversal has {ordered[k][0]!r} before {ordered[k + 1][0]!r}")
        first_leaf, last_leaf = leaves[0][1], leaves[-1][1]
        if s.left_finger != first_leaf.id:
            self.fail(
                "S3 fingers",
                f"leftFinger designates node {s.left_finger}; the leftmost leaf is "
                f"{node_label(leaves[0][0], first_leaf)} (node {first_leaf.id})",
            )
        if s.right_finger != last_leaf.id:
            self.fail(
                "S3 fingers",
                f"rightFinger designates node {s.right_finger}; the rightmost leaf is "
                f"{node_label(leaves[-1][0], last_leaf)} (node {last_leaf.id})",
            )
        if s.size != len(ordered):
            self.fail("size", f"size = {s.size}, the tree holds {len(ordered)} entries")
        if len(ordered) != len(self.window):
            self.fail("Q contents", f"the tree holds {len(ordered)} entries, the window {len(self.window)}")
        for k, ((t, v), (wt, wv)) in enumerate(zip(ordered, self.window)):
            if not (t == wt) or not self.monoid.eq(v, wv):
                self.fail("Q contents", f"entry {k}: the tree has {t!r}/{v!r}, the window {wt!r}/{wv!r}")
        return nodes

    def _expected_flags(self, node: FiBANodeState, parent: FiBANodeState | None) -> tuple[bool, bool]:
        if parent is None:
            return False, False
        is_root = parent.parent is None
        left = node is parent.children[0] and (is_root or parent.left_spine)
        right = node is parent.children[-1] and (is_root or parent.right_spine)
        return left, right

    @staticmethod
    def _in_order(root: FiBANodeState) -> list[tuple[Any, Any]]:
        out: list[tuple[Any, Any]] = []
        stack: list[tuple[FiBANodeState, int]] = [(root, 0)]
        while stack:
            node, i = stack.pop()
            if not node.children:
                out.extend(zip(node.times, node.values))
                continue
            if i > 0:
                out.append((node.times[i - 1], node.values[i - 1]))
            if i < len(node.children) - 1:
                stack.append((node, i + 1))
            stack.append((node.children[i], 0))
        return out

    # ------------------------------------------------------------------------------------------ aggregates

    @staticmethod
    def inner_operands(node: FiBANodeState, child_val: Any, entry_val: Any) -> list[Any]:
        """v0 ⊗ Π↑(c1) ⊗ v1 ⊗ … ⊗ Π↑(c(a−2)) ⊗ v(a−2) as a list of operands (a leaf: its values)."""
        if not node.children:
            return [entry_val(v) for v in node.values]
        ops: list[Any] = []
        for i, v in enumerate(node.values):
            if i > 0:
                ops.append(child_val(node.children[i]))
            ops.append(entry_val(v))
        return ops

    @classmethod
    def operands(
        cls,
        kind: str,
        node: FiBANodeState,
        parent: FiBANodeState | None,
        child_val: Any,
        parent_val: Any,
        entry_val: Any = lambda v: v,
    ) -> list[Any]:
        """The operands, in order, of the ``kind`` aggregate of ``node`` (003 §3.2), from its children's
        (``child_val``) and parent's (``parent_val``) aggregates."""
        inner = cls.inner_operands(node, child_val, entry_val)
        uses_parent = parent is not None and parent.parent is not None
        if kind == "inner":
            return inner
        if kind == "up":
            if not node.children:
                return inner
            return [child_val(node.children[0])] + inner + [child_val(node.children[-1])]
        if kind == "left":
            ops = inner + ([child_val(node.children[-1])] if node.children else [])
            return ops + ([parent_val(parent)] if uses_parent else [])
        ops = ([child_val(node.children[0])] if node.children else []) + inner
        return ([parent_val(parent)] if uses_parent else []) + ops

    def aggregates(self, nodes: list[tuple[str, FiBANodeState, FiBANodeState | None, int]]) -> None:
        # local: formulas over the stored aggregates (and counts) of children and parent
        for path, node, parent, _ in nodes:
            want = self.fold(self.operands(node.kind, node, parent, lambda c: c.agg, lambda p: p.agg))
            if not self.monoid.eq(node.agg, want):
                self.fail(
                    _KIND_INVARIANT[node.kind],
                    f"(local) node {node_label(path, node)} stores "
                    f"{node.agg!r}; from its children's and parent's stored "
                    f"aggregates it must be {want!r}",
                )
            count = sum(self.operands(node.kind, node, parent, lambda c: c.count, lambda p: p.count, lambda v: 1))
            if node.count != count:
                self.fail(
                    "C counts",
                    f"(local) node {node_label(path, node)} stores count {node.count}; from its "
                    f"children's and parent's stored counts it must be {count}",
                )
        # global: Π↑ of every subtree from scratch (postorder), then every node's kind from those
        scratch_up: dict[int, Any] = {}
        scratch_n: dict[int, int] = {}
        for _path, node, parent, _ in reversed(nodes):  # children before parents
            scratch_up[node.id] = self.fold(self.operands("up", node, parent, lambda c: scratch_up[c.id], None))
            scratch_n[node.id] = sum(self.operands("up", node, parent, lambda c: scratch_n[c.id], None, lambda v: 1))
        expected: dict[int, Any] = {}
        expected_n: dict[int, int] = {}
        for path, node, parent, _ in nodes:  # parents before children
            want = self.fold(
                self.operands(node.kind, node, parent, lambda c: scratch_up[c.id], lambda p: expected[p.id])
            )
            expected[node.id] = want
            if not self.monoid.eq(node.agg, want):
                self.fail(
                    _KIND_INVARIANT[node.kind],
                    f"(global) node {node_label(path, node)} stores "
                    f"{node.agg!r}; recomputed from the entries it must be "
                    f"{want!r}",
                )
            expected_n[node.id] = sum(
                self.operands(
                    node.kind, node, parent, lambda c: scratch_n[c.id], lambda p: expected_n[p.id], lambda v: 1
                )
            )
            if node.count != expected_n[node.id]:
                self.fail(
                    "C counts",
                    f"(global) node {node_label(path, node)} stores count {node.count}; "
                    f"counted from the entries it must be {expected_n[node.id]}",
                )


def check_fiba(state: FiBAState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check every FiBA invariant of ``state`` against ``window`` (``(time, lifted value)`` pairs, oldest
    first). Raises :class:`~swagkit.spec.errors.InvariantViolation` naming the invariant and the node. O(n) ⊗."""
    c = _FiBAChecker(state, monoid, window)
    nodes = c.structure()
    c.aggregates(nodes)
