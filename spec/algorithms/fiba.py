"""FiBA, the finger B-tree aggregator (paper 003 §3–§5, FiBA 2019): out-of-order timestamped windows with bulk
eviction and bulk insertion. One card per minimum arity μ the registry runs (4, the paper's default, 2 and 8).

Its ⊗ and node-visit budgets are functions of μ and the operation's shape (:mod:`swagkit.spec.fiba_budgets`,
metered by the card's ``meter``, :class:`~swagkit.spec.fiba_budgets.FiBABudgetMeter`). The worst-case columns
below are in ⊗ with ``u = 4μ−2`` per node recomputation and ``L`` the height bound; space is in stored partial
aggregates (one per entry and one per node; not metered: :func:`~swagkit.spec.stored_aggregates` has no rule for
it).
"""

from __future__ import annotations

from ..checkers.fiba import check_fiba
from ..fiba_budgets import FiBABudgetMeter
from ..snapshots import FiBAState
from .card import AlgorithmCard, Guarantees

PAPER = "003 §3–§5 (Thms 1, 3); FiBA 2019"


def guarantees(amortized: str) -> Guarantees:
    """The table row shared by every FiBA card but its amortized summary."""
    return Guarantees(
        query="2",
        insert="u(5L+1)+1",
        evict="u(5L+2)",
        amortized=amortized,
        worst_case="O(log n)",
        space="n + #nodes (≤ n/(μ−1)+1)",
    )


CARD = AlgorithmCard(
    id="fiba",
    title="FiBA (μ=4, bulk evict/insert)",
    paper=PAPER,
    class_name="FiBA",
    adt="out_of_order",
    snapshot=FiBAState,
    checker=check_fiba,  # window: (time, lifted value) pairs of the out-of-order model (swagkit.spec.ooo)
    checker_id="fiba",
    budget_id="fiba",
    meter=FiBABudgetMeter,
    params={"min_arity": 4},
    guarantees=guarantees("insert O(log d), evict O(1); bulk evict O(log m), bulk insert O(log d + m(1+log(d/m)))"),
)

#: The same algorithm with other minimum arities (shallower and deeper trees); all of FiBA's code is shared, so
#: they run a third of the verification (``verify_share``).
VARIANTS = (
    CARD.variant("fiba_mu2", "FiBA (μ=2)", params={"min_arity": 2}, guarantees=guarantees("as fiba"), verify_share=3),
    CARD.variant("fiba_mu8", "FiBA (μ=8)", params={"min_arity": 8}, guarantees=guarantees("as fiba"), verify_share=3),
)
