"""DABA (paper 000 §5, Theorem 5.2): De-Amortized Banker's Aggregator, worst-case O(1) ⊗ per operation."""

from __future__ import annotations

from ..checkers.daba import check_daba
from ..snapshots import DABAState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: DABAState) -> int:
    """A value and an aggregate per element."""
    return 2 * (state.E - state.F)


BUDGET = Budget(
    "daba",
    "000 Theorem 5.2",
    query=lambda n: 1,
    insert=lambda n: 4,
    evict=lambda n: 3,
    avg_insert=2.5,
    avg_evict=1.5,
    # an unfinished flip cycle whose shrink steps ran ahead of its shift steps ("an equal number of shrink
    # steps as shift steps", 000 Theorem 5.2)
    slack=lambda n: 1.5 * n + 3,
    space=lambda n: 2 * n,
)

CARD = AlgorithmCard(
    id="daba",
    title="DABA",
    paper="000 §5 (Thm 5.2)",
    class_name="DABA",
    adt="fifo",
    snapshot=DABAState,
    checker=check_daba,
    checker_id="daba",
    budget=BUDGET,
    budget_id="daba",
    stored=stored,
    guarantees=Guarantees(
        query="1", insert="4", evict="3", amortized="O(1) (insert 2.5, evict 1.5)", worst_case="O(1)", space="2n"
    ),
)
