"""SlickDeque (Inv) (paper 001 Algorithm 1, §4): one running aggregate per range, updated by ⊗ with the new
partial and with the inverse of the oldest. Registered in plain FIFO mode (no ranges); the multi-query budgets
are in :mod:`swagkit.spec.slickdeque`."""

from __future__ import annotations

from ..checkers.slickdeque import check_slickdeque_inv
from ..snapshots import SlickDequeInvState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: SlickDequeInvState) -> int:
    """The partials (ring or window) and the running aggregates."""
    return len(state.partials) + len(state.answers)


# insert ``agg ⊗ v``, evict ``inv(old) ⊗ agg`` (0 when it empties the window), query 0; n partials + 1 aggregate.
# Exact invertible monoids only: sum_f64's periodic recomputation (accepted by the class with drift control) is
# extra ⊗ that this budget does not cover, so it is not registered.
BUDGET = Budget(
    "slickdeque_inv",
    "001 §4 (Inv: one ⊕ and one ⊖ per partial)",
    query=lambda n: 0,
    insert=lambda n: 1,
    evict=lambda n: 1,
    avg_insert=1.0,
    avg_evict=1.0,
    slack=lambda n: 0.0,
    space=lambda n: n + 1,
)

CARD = AlgorithmCard(
    id="slickdeque_inv",
    title="SlickDeque (Inv)",
    paper="001 Algorithm 1, §4",
    class_name="SlickDequeInv",
    adt="fifo",
    snapshot=SlickDequeInvState,
    checker=check_slickdeque_inv,
    checker_id="slickdeque_inv",
    budget=BUDGET,
    budget_id="slickdeque_inv",
    stored=stored,
    requires=("invertible",),
    guarantees=Guarantees(
        query="0", insert="1", evict="1", amortized="O(1) (insert 1, evict 1)", worst_case="O(1)", space="n+1"
    ),
)
