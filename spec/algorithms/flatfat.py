"""FlatFAT (paper 002 §4): a perfect binary tree of partial aggregates in a flat array. Not a SWAG but a tree with
bulk leaf updates, prefix and suffix queries; its budgets are functions of the capacity n (a power of two) and of
the number m of distinct leaves an update writes, so they are stated here as functions, not as a :class:`Budget`
(``swagkit.verify.kinds.tree`` meters them)."""

from __future__ import annotations

import math

from ..checkers.flatfat import check_flatfat
from ..snapshots import FlatFATState
from .card import AlgorithmCard, Guarantees

__all__ = [
    "CARD",
    "stored",
    "flatfat_new_combines",
    "flatfat_update_bound",
    "flatfat_update_exact",
    "flatfat_query_bound",
]


def stored(state: FlatFATState) -> int:
    """The tree's nodes (1 … 2·capacity−1)."""
    return 2 * state.capacity - 1


def flatfat_new_combines(n: int) -> int:
    """002 Theorem 4.2(i): building a FlatFAT of ``n`` leaves costs exactly ``n − 1`` combines."""
    return n - 1


def flatfat_update_bound(n: int, m: int) -> int:
    """002 Theorem 4.2(ii) in its ceiling form: an update of ``m`` distinct leaves of an ``n``-leaf FlatFAT costs
    at most ``m·(1 + ⌈log2(n/m)⌉)`` combines (0 for ``m = 0``; ``n − 1`` caps it, the whole tree).

    The proof's last line has ``⌊log2(n/m)⌋``, which is false (notes 002 §2.5: n = 8, m = 5 can recompute 7
    nodes, the floor form allows 5); the ceiling form holds because the ancestors of m leaves number at most m
    per level for the lowest ⌈log2(n/m)⌉ levels and at most n/2^ℓ above them (Claim 4.3). The exact count is
    the number of distinct proper ancestors of the written leaves (:func:`flatfat_update_exact`)."""
    if m <= 0 or n <= 1:
        return 0
    return min(n - 1, m * (1 + math.ceil(math.log2(n / m))))


def flatfat_update_exact(n: int, locs: set[int] | frozenset[int]) -> int:
    """The exact combine count of Algorithm 2: one per distinct proper ancestor of the written leaves (0-based
    leaf indices ``locs`` of an ``n``-leaf tree, heap numbering: leaf ``i`` is node ``n + i``)."""
    nodes: set[int] = set()
    for i in locs:
        h = (n + i) >> 1
        while h >= 1 and h not in nodes:
            nodes.add(h)
            h >>= 1
    return len(nodes)


def flatfat_query_bound(n: int) -> int:
    """002 Algorithm 3: ``prefix``/``suffix`` combine at most once per level, ``log2 n`` times; ``aggregate`` reads
    the root (0)."""
    return max(0, n.bit_length() - 1)


CARD = AlgorithmCard(
    id="flatfat",
    title="FlatFAT (tree, not a SWAG)",
    paper="002 §4 (Thm 4.2)",
    class_name="FlatFAT",
    adt="tree",
    snapshot=FlatFATState,
    checker=check_flatfat,  # called by the tree's debug wrapper against the model's leaves (swagkit.verify.kinds.tree)
    stored=stored,
    guarantees=Guarantees(
        query="log2 n",
        insert="m(1+⌈log2(n/m)⌉)",
        evict="-",
        amortized="-",
        worst_case="O(m + m log(n/m))",
        space="2n−1",
    ),
)
