"""Plain snapshots of each algorithm's state, the common language of implementations and checkers.

Every implementation (reference, optimized, or a user's own) exposes ``snapshot()`` returning one of these
frozen dataclasses. Pointers are integer offsets from the physical front of the deque, so ``F == 0`` in every
healthy state; sublists are half-open ranges (``lL`` is ``[L, R)``, and so on) exactly as in paper 000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "RecalcState",
    "TwoStacksState",
    "TwoStacksLiteState",
    "DABAState",
    "DABALiteState",
    "FlatFATState",
    "ReactiveState",
    "SlickDequeInvState",
    "SlickDequeNonInvState",
    "FlatFITState",
]


@dataclass(frozen=True)
class RecalcState:
    """Recalculate-from-scratch: just the lifted window ``values`` (oldest first)."""

    values: tuple[Any, ...]


@dataclass(frozen=True)
class TwoStacksState:
    """Two-Stacks (000 §3). ``front[i]`` is ``F[i]`` and ``back[i]`` is ``B[i]``, both as ``(val, agg)`` pairs
    indexed from the left as in the paper: ``front[0]`` is the top of F (the oldest element), ``back[0]`` the
    bottom of B, ``back[-1]`` its top (the youngest)."""

    front: tuple[tuple[Any, Any], ...]
    back: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class TwoStacksLiteState:
    """Two-Stacks Lite (000 §4): one ``deque`` of partial aggregates, pointers ``F ≤ B ≤ E`` and ``aggB``."""

    deque: tuple[Any, ...]
    F: int
    B: int
    E: int
    aggB: Any


@dataclass(frozen=True)
class DABAState:
    """DABA (000 §5): per-element ``vals`` and ``aggs`` and pointers ``F ≤ L ≤ R ≤ A ≤ B ≤ E``."""

    vals: tuple[Any, ...]
    aggs: tuple[Any, ...]
    F: int
    L: int
    R: int
    A: int
    B: int
    E: int


@dataclass(frozen=True)
class DABALiteState:
    """DABA Lite (000 §6): one ``deque`` of partial aggregates, pointers ``F ≤ L ≤ R ≤ A ≤ B ≤ E``,
    ``aggRA`` and ``aggB``."""

    deque: tuple[Any, ...]
    F: int
    L: int
    R: int
    A: int
    B: int
    E: int
    aggRA: Any
    aggB: Any


@dataclass(frozen=True)
class FlatFATState:
    """FlatFAT (002 §4.3): the perfect binary tree of ``capacity`` leaves as a flat heap-ordered array.

    ``nodes`` has ``2·capacity`` entries: ``nodes[0]`` is unused (holds the identity), the root is ``nodes[1]``,
    the children of ``h`` are ``2h`` and ``2h+1``, and leaf ``i`` (0-based) is ``nodes[capacity + i]``."""

    capacity: int
    nodes: tuple[Any, ...]


@dataclass(frozen=True)
class ReactiveState:
    """Reactive Aggregator (002 §5): a FlatFAT whose leaves form a circular buffer.

    ``nodes`` as in :class:`FlatFATState`; ``handles[i]`` is the handle (insertion sequence number) of the live
    element in leaf slot ``i``, ``None`` for an empty slot (a hole or outside the buffer). The buffer starts at
    slot ``F`` and spans ``span`` slots circularly (live elements and holes; ``F`` and the last slot are live);
    ``size`` live elements; ``min_capacity`` is the capacity floor of the resize policy."""

    capacity: int
    nodes: tuple[Any, ...]
    handles: tuple[int | None, ...]
    F: int
    span: int
    size: int
    min_capacity: int


@dataclass(frozen=True)
class SlickDequeInvState:
    """SlickDeque (Inv) (001 Algorithm 1). ``capacity`` is W (the longest registered range, in partials) or
    ``None`` for the plain FIFO mode (no ranges: an unbounded window). With W: ``partials`` is the circular array
    of W slots in physical order, ``cursor`` is ``currPos`` and ``inserted`` counts partials ever inserted (t+1);
    slots of evicted or not-yet-seen partials hold the identity. Without W: ``partials`` is the window (oldest
    first) and ``cursor`` is 0. ``answers`` pairs each distinct range (``None`` = the whole window, plain mode)
    with its running aggregate, longest range first; ``length`` is the window size n."""

    capacity: int | None
    partials: tuple[Any, ...]
    cursor: int
    inserted: int
    answers: tuple[tuple[int | None, Any], ...]
    length: int


@dataclass(frozen=True)
class SlickDequeNonInvState:
    """SlickDeque (Non-Inv) (001 Algorithm 2), with absolute sequence numbers instead of ``pos mod W``.
    ``nodes`` are ``(seq, val)`` from head to tail; the window holds the partials numbered ``first`` …
    ``inserted − 1`` (``inserted`` = t+1); ``capacity`` is W or ``None`` (plain FIFO mode); ``ranges`` the
    registered ranges, longest first."""

    capacity: int | None
    nodes: tuple[tuple[int, Any], ...]
    first: int
    inserted: int
    ranges: tuple[int, ...]


@dataclass(frozen=True)
class FlatFITState:
    """FlatFIT (001 §2, 000 §7–8.1), resizable: the circular arrays ``Partials`` (``partials``) and ``Pointers``
    (``pointers``) of ``capacity`` slots in physical order, and the index stack ``Positions`` (``positions``).

    The live slots are ``head``, ``head+1``, … (mod ``capacity``), ``size`` of them, oldest first; ``tail`` =
    ``(head + size) mod capacity`` is the slot of the next insert. A live slot ``i`` with pointer ``j`` stores
    ``v_i ⊗ … ⊗ v_(j−1)`` (half-open, circular; ``j = tail`` means up to the youngest element). Slots outside
    the window hold ``None`` / ``-1``."""

    capacity: int
    partials: tuple[Any, ...]
    pointers: tuple[int, ...]
    head: int
    tail: int
    size: int
    positions: tuple[int, ...]


@dataclass(frozen=True)
class FiBANodeState:
    """One node of a finger B-tree aggregator (003 §3.2) as plain data.

    ``times``/``values`` are the node's a−1 entries (values lifted), ``children`` its a children (``()`` for a
    leaf), ``agg`` its stored partial aggregate, ``left_spine``/``right_spine`` its two flags. ``count`` is the
    number of entries ``agg`` covers (a swagkit addition: the same position-dependent kind as ``agg``, over the
    counting monoid, so ``len()`` stays O(1) after a bulk eviction). ``id`` numbers
    the nodes of one snapshot in preorder (root 0); ``parent`` is the id of the node the *parent pointer*
    designates (``None``: no parent, ``-1``: a node outside the tree), so parent links can be checked."""

    id: int
    parent: int | None
    times: tuple[Any, ...]
    values: tuple[Any, ...]
    agg: Any
    count: int
    left_spine: bool
    right_spine: bool
    children: tuple[FiBANodeState, ...]

    @property
    def arity(self) -> int:
        """a: the number of children of an internal node; entries + 1 for every node."""
        return len(self.times) + 1

    @property
    def is_leaf(self) -> bool:
        return not self.children

    @property
    def kind(self) -> str:
        """Which of 003 §3.2's aggregates the node stores, by its flags: ``inner`` (Π|, the root -- or the
        transient only child of a fresh root, on both spines), ``left`` (Π↙), ``right`` (Π↘) or ``up`` (Π↑)."""
        if self.parent is None or (self.left_spine and self.right_spine):
            return "inner"
        if self.left_spine:
            return "left"
        if self.right_spine:
            return "right"
        return "up"


@dataclass(frozen=True)
class FiBAState:
    """Finger B-tree aggregator (003 §3.2): minimum arity μ (``min_arity``; the maximum is 2μ), the tree from
    ``root``, the node ids the ``left_finger`` and ``right_finger`` pointers designate (``-1``: a node outside
    the tree) and the entry count ``size``."""

    min_arity: int
    root: FiBANodeState
    left_finger: int
    right_finger: int
    size: int


__all__ += ["FiBANodeState", "FiBAState"]
