"""Two-Stacks (paper 000 §3, Theorem 3.2): a front stack of suffix aggregates and a back stack of prefix
aggregates; evict flips the back stack when the front one is empty."""

from __future__ import annotations

from ..checkers.two_stacks import check_two_stacks
from ..snapshots import TwoStacksState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: TwoStacksState) -> int:
    """A value and an aggregate per element."""
    return 2 * (len(state.front) + len(state.back))


BUDGET = Budget(
    "two_stacks",
    "000 Theorem 3.2",
    query=lambda n: 1,
    insert=lambda n: 1,
    evict=lambda n: n,
    # banker's method: bill each insert 2 coins (its own combine + one for its later flip), evict 0
    avg_insert=2.0,
    avg_evict=0.0,
    slack=lambda n: 0.0,
    space=lambda n: 2 * n,
)

CARD = AlgorithmCard(
    id="two_stacks",
    title="Two-Stacks",
    paper="000 §3 (Thm 3.2)",
    class_name="TwoStacks",
    adt="fifo",
    snapshot=TwoStacksState,
    checker=check_two_stacks,
    checker_id="two_stacks",
    budget=BUDGET,
    budget_id="two_stacks",
    stored=stored,
    guarantees=Guarantees(query="1", insert="1", evict="n", amortized="O(1)", worst_case="O(n)", space="2n"),
)
