"""Invariants of FlatFAT (paper 002 §4.2–4.3) over :class:`~swagkit.spec.snapshots.FlatFATState`.

* ``capacity``: the capacity n is a power of two and the flat array holds the 2n−1 nodes (plus unused slot 0);
* ``node``: (4.1) every internal node equals the combine of its two children, ``T(v) = T(left(v)) ⊕ T(right(v))``;
* ``leaves`` (optional): the leaves hold the expected values ``a[0..n−1]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import FlatFATState
from ._common import Checker

WORDING = {
    "capacity": "n is a power of two and the flat array holds the 2n − 1 tree nodes (heap order, root at 1)",
    "node": "(4.1) T(v) = T(left(v)) ⊕ T(right(v)) for every internal node v",
    "leaves": "h(leaf(i)) = n + i holds a[i]",
}


def is_power_of_two(n: int) -> bool:
    return n >= 1 and n & (n - 1) == 0


def check_tree(c: Checker, capacity: int, nodes: Sequence[Any]) -> None:
    """The ``capacity`` and ``node`` invariants of a flat tree (shared with the Reactive Aggregator's checker)."""
    c.require(
        is_power_of_two(capacity) and len(nodes) == 2 * capacity,
        "capacity",
        WORDING["capacity"],
        f"capacity = {capacity}, len(nodes) = {len(nodes)} (expected 2·capacity)",
    )
    combine = c.monoid.combine
    for h in range(capacity - 1, 0, -1):
        want = combine(nodes[2 * h], nodes[2 * h + 1])
        if not c.equal(nodes[h], want):
            c.fail(
                "node",
                WORDING["node"],
                f"node h={h}: stored {nodes[h]!r}, T({2 * h}) ⊕ T({2 * h + 1}) = {want!r}",
            )


def check_flatfat(state: FlatFATState, monoid: Monoid[Any, Any, Any], leaves: Sequence[Any] | None = None) -> None:
    """Check every FlatFAT invariant of ``state``; with ``leaves`` also that leaf i holds ``leaves[i]``.
    O(n) combines."""
    c = Checker("flatfat", monoid, state, list(leaves) if leaves is not None else [])
    check_tree(c, state.capacity, state.nodes)
    if leaves is not None:
        c.require(
            len(leaves) == state.capacity,
            "leaves",
            WORDING["leaves"],
            f"{len(leaves)} expected leaves for capacity {state.capacity}",
        )
        c.check_range("leaves", WORDING["leaves"], state.nodes[state.capacity :], list(leaves), 0, "a[i]")
