"""Reactive Aggregator (paper 002 §5): a FlatFAT whose leaves form a resizable circular buffer, so it also
removes any live element by the handle its insertion returned."""

from __future__ import annotations

import math

from ..checkers.reactive import check_reactive
from ..snapshots import ReactiveState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: ReactiveState) -> int:
    """The tree's nodes (1 … 2·capacity−1)."""
    return 2 * state.capacity - 1


def capacity(n: int) -> int:
    """``C(n) = max(m0, 4n)`` with the default ``min_capacity`` m0 = 2: the capacity before an operation on n
    elements is at most this (it is m0, or at most 4n)."""
    return max(2, 4 * n)


# insert: one leaf-to-root walk (log2 C) after an optional rebuild (compact or double: ≤ C − 1); evict: a walk, or
# a rebuild when it halves (≤ C/2 − 1); query: the root (0) or, wrapped, suffix(F) ⊕ prefix(B) (≤ 2·log2 C + 1).
# The amortized claim is O(log n) per operation (resizes O(1) amortized, 002 §5.1.1), not a constant: the
# potential inequality is disabled (infinite slack) and tests/test_reactive.py checks the resize amortization.
BUDGET = Budget(
    "reactive",
    "002 Theorem 4.2 and §5.1.1",
    query=lambda n: 2 * math.log2(capacity(n)) + 1,
    insert=lambda n: capacity(n) - 1 + math.log2(capacity(n)),
    evict=lambda n: capacity(n) / 2 + math.log2(capacity(n)),
    avg_insert=0.0,
    avg_evict=0.0,
    slack=lambda n: math.inf,
    space=lambda n: 2 * capacity(n) - 1,
    space_exact=False,
)

CARD = AlgorithmCard(
    id="reactive",
    title="Reactive Aggregator",
    paper="002 §5 (Thm 4.2, §5.1.1)",
    class_name="ReactiveAggregator",
    adt="handles",
    snapshot=ReactiveState,
    checker=check_reactive,
    checker_id="reactive",
    budget=BUDGET,
    budget_id="reactive",
    stored=stored,
    guarantees=Guarantees(
        query="2·log2 C+1",
        insert="C−1+log2 C",
        evict="C/2+log2 C",
        amortized="O(log n) (resize O(1))",
        worst_case="O(n)",
        space="2C−1 (C ≤ max(2, 4n))",
    ),
)
