"""Two-Stacks Lite (paper 000 §4, Theorem 4.2): Two-Stacks in one deque of partial aggregates plus ``aggB``."""

from __future__ import annotations

from ..checkers.two_stacks_lite import check_two_stacks_lite
from ..snapshots import TwoStacksLiteState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: TwoStacksLiteState) -> int:
    """One partial aggregate per element, plus ``aggB``."""
    return (state.E - state.F) + 1


BUDGET = Budget(
    "two_stacks_lite",
    "000 Theorem 4.2",
    query=lambda n: 1,
    insert=lambda n: 1,
    evict=lambda n: n,
    avg_insert=2.0,
    avg_evict=0.0,
    slack=lambda n: 0.0,
    space=lambda n: n + 1,
)

CARD = AlgorithmCard(
    id="two_stacks_lite",
    title="Two-Stacks Lite",
    paper="000 §4 (Thm 4.2)",
    class_name="TwoStacksLite",
    adt="fifo",
    snapshot=TwoStacksLiteState,
    checker=check_two_stacks_lite,
    checker_id="two_stacks_lite",
    budget=BUDGET,
    budget_id="two_stacks_lite",
    stored=stored,
    guarantees=Guarantees(query="1", insert="1", evict="n", amortized="O(1)", worst_case="O(n)", space="n+1"),
)
