"""SlickDeque (Non-Inv) (paper 001 Algorithm 2, §4): a deque of undominated partials, for selective monoids
(``a ⊗ b ∈ {a, b}``: max, min, argmax …). Registered in plain FIFO mode (no ranges)."""

from __future__ import annotations

from ..checkers.slickdeque import check_slickdeque_noninv
from ..snapshots import SlickDequeNonInvState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: SlickDequeNonInvState) -> int:
    """One value per node (data-dependent: 1 … n for a non-empty window)."""
    return len(state.nodes)


# insert tests the tail until a node survives (≤ deque size ≤ n ⊗, worst O(n)); evict and query 0. Each partial
# is tested once when pushed onto a non-empty deque and once when popped: ≤ 2 per insert (≤ 2N − 1 over N
# inserts), no slack. Space: one node per undominated partial, between 1 and n.
BUDGET = Budget(
    "slickdeque_noninv",
    "001 §4 (Non-Inv: < 2 amortized, worst n)",
    query=lambda n: 0,
    insert=lambda n: n,
    evict=lambda n: 0,
    avg_insert=2.0,
    avg_evict=0.0,
    slack=lambda n: 0.0,
    space=lambda n: n,
    space_exact=False,
)

CARD = AlgorithmCard(
    id="slickdeque_noninv",
    title="SlickDeque (Non-Inv)",
    paper="001 Algorithm 2, §4",
    class_name="SlickDequeNonInv",
    adt="fifo",
    snapshot=SlickDequeNonInvState,
    checker=check_slickdeque_noninv,
    checker_id="slickdeque_noninv",
    budget=BUDGET,
    budget_id="slickdeque_noninv",
    stored=stored,
    requires=("selective",),
    guarantees=Guarantees(
        query="0", insert="n", evict="0", amortized="O(1) (insert < 2)", worst_case="O(n)", space="1…n"
    ),
)

#: the ranges of the multi-query variant (001 §4): several answered per partial, one of them the capacity W = 8
RANGES = (1, 2, 5, 8)

#: the paper's multi-query mode: a window of capacity W = max(ranges) answering every registered range by the
#: corrected answer loop (notes §3.2); the plain budget holds (the head's eviction of a full window costs no ⊗)
VARIANTS = (
    CARD.variant(
        "slickdeque_noninv_ranges",
        f"SlickDeque (Non-Inv, ranges {'/'.join(map(str, RANGES))})",
        params={"ranges": RANGES},
        contract={"capacity": max(RANGES), "ranges": RANGES},
        guarantees=Guarantees(
            query="0", insert="≤ W", evict="0", amortized="O(1) (insert < 2)", worst_case="O(W)", space="1…W"
        ),
    ),
)
