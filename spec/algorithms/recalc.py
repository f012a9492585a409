"""Recalculate-from-scratch (paper 000 §8.1): the baseline that keeps the window and folds it on every query."""

from __future__ import annotations

from ..checkers.recalc import check_recalc
from ..snapshots import RecalcState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: RecalcState) -> int:
    """The window's values, nothing more."""
    return len(state.values)


BUDGET = Budget(
    "recalc",
    "000 §8.1 (recalculate-from-scratch: O(n) per query)",
    query=lambda n: max(n - 1, 0),
    insert=lambda n: 0,
    evict=lambda n: 0,
    avg_insert=0.0,
    avg_evict=0.0,
    slack=lambda n: 0.0,
    space=lambda n: n,
)

CARD = AlgorithmCard(
    id="recalc",
    title="Recalculate-from-scratch",
    paper="000 §8.1",
    class_name="Recalc",
    adt="fifo",
    snapshot=RecalcState,
    checker=check_recalc,
    checker_id="recalc",
    budget=BUDGET,
    budget_id="recalc",
    stored=stored,
    guarantees=Guarantees(query="n−1", insert="0", evict="0", amortized="O(n)", worst_case="O(n)", space="n"),
)
