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
# Exact invertible monoids only: sum_f64's refolds (the class accepts it with drift control, spec/f64_track.py) are
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

#: the ranges of the multi-query variant (001 §4): several answered per partial, one of them the capacity W = 8
RANGES = (1, 2, 5, 8)

# Multi-query mode (Algorithm 1 lines 16–35): an insert updates every range with 2 ⊗ (identity padding, the
# eviction of a full window included), an evict ≤ 1 ⊗ per range covering the oldest partial, queries 0; the ring
# holds W slots plus one running aggregate per range.
RANGES_BUDGET = Budget(
    "slickdeque_inv_ranges",
    f"001 §4 (Inv, multi-query: 2 ⊗ per range and partial, ranges {RANGES})",
    query=lambda n: 0,
    insert=lambda n: 2 * len(RANGES),
    evict=lambda n: len(RANGES),
    avg_insert=2.0 * len(RANGES),
    avg_evict=float(len(RANGES)),
    slack=lambda n: 0.0,
    space=lambda n: max(RANGES) + len(RANGES),
)

#: the paper's multi-query mode: a window of capacity W = max(ranges) answering every registered range
VARIANTS = (
    CARD.variant(
        "slickdeque_inv_ranges",
        f"SlickDeque (Inv, ranges {'/'.join(map(str, RANGES))})",
        params={"ranges": RANGES},
        contract={"capacity": max(RANGES), "ranges": RANGES},
        checker_id="slickdeque_inv_ranges",  # the same checker (it reads the ranges off the snapshot)
        budget=RANGES_BUDGET,
        budget_id="slickdeque_inv_ranges",
        guarantees=Guarantees(
            query="0",
            insert="2 per range",
            evict="≤ 1 per range",
            amortized="O(#ranges)",
            worst_case="O(#ranges)",
            space="W + #ranges",
        ),
    ),
)
