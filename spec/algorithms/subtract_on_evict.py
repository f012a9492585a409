"""Subtract-on-Evict (paper 000 §8.3, related work; paper 001 §2 "Panes (Inv)", R-Int): a FIFO of the window's
values and one running aggregate, updated by ``agg ⊗ v`` on insert and ``inverse(oldest) ⊗ agg`` on evict.
Invertible monoids only (a group; non-commutative ones too, thanks to the left inverse)."""

from __future__ import annotations

from ..checkers.subtract_on_evict import SubtractOnEvictState, check_subtract_on_evict
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: SubtractOnEvictState) -> int:
    """The n values and the running aggregate."""
    return len(state.values) + 1


# insert ``agg ⊗ v``, evict ``inverse(old) ⊗ agg`` (0 when it empties the window: agg ← identity), query 0.
# Like SlickDeque (Inv) in plain mode (001 §4), whose single range it is; exact groups only (no drift control,
# so sum_f64 is refused), hence no slack: every operation costs at most its credit.
BUDGET = Budget(
    "subtract_on_evict",
    "000 §8.3 (subtract-on-evict: one ⊗ with the inverse per evict)",
    query=lambda n: 0,
    insert=lambda n: 1,
    evict=lambda n: 1,
    avg_insert=1.0,
    avg_evict=1.0,
    slack=lambda n: 0.0,
    space=lambda n: n + 1,
)

CARD = AlgorithmCard(
    id="subtract_on_evict",
    title="Subtract-on-Evict",
    paper="000 §8.3",
    class_name="SubtractOnEvict",
    adt="fifo",
    snapshot=SubtractOnEvictState,
    checker=check_subtract_on_evict,
    checker_id="subtract_on_evict",
    budget=BUDGET,
    budget_id="subtract_on_evict",
    stored=stored,
    requires=("invertible",),
    guarantees=Guarantees(
        query="0", insert="1", evict="1", amortized="O(1) (insert 1, evict 1)", worst_case="O(1)", space="n+1"
    ),
)
