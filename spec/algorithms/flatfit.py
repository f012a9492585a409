"""FlatFIT (paper 001 §2 and §4, paper 000 §7 and §8.1), resizable (:mod:`swagkit.reference.flatfit`): partial
aggregates with pointers that stitch any range of the newest elements; only queries call ⊗."""

from __future__ import annotations

from ..checkers.flatfit import check_flatfit
from ..snapshots import FlatFITState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: FlatFITState) -> int:
    """n partial aggregates + n pointers (000 §8.1); the free slots hold nothing."""
    return 2 * state.size


# insert and evict: no ⊗ ("FlatFIT only calls the aggregation operation on queries", 000 §7.3). query: one ⊗ per
# slot pushed on Positions, i.e. (number of chained ranges from head to tail) − 1 ≤ n − 1; reached by n inserts
# without a query (every range is a single element). Amortized claim, with queries billed too (``avg_query``):
#     combines so far ≤ #inserts + #evicts + #queries        (one ⊗ per operation of any kind, no slack)
# Evidence, not a closed-form proof (see tests/test_flatfit_budget.py): (a) the inequality is a longest-path
# property of the finite state graph of pointer structures on windows of ≤ N elements (edge weight: ⊗ used minus
# credit); the test enumerates every reachable structure for N ≤ 8 and checks, by Bellman-Ford, that no path from
# the empty window has positive weight (checked offline up to N = 10); (b) for 001 §4's fixed-window single-query
# cycle it is the paper's own count: per period of n + 1 slides (an evict, an insert and a query each, 3 credits
# per slide) FlatFIT uses (n − 1) + 2(n − 2) + 2 ≤ 3(n + 1) ⊗; (c) the meter checks it at every step of every
# Hypothesis run. Credits (1, 0, 1) per (insert, evict, query) violate it (exhaustive search finds a positive
# cycle), so evictions must be billed.
BUDGET = Budget(
    "flatfit",
    "001 §4 (FlatFIT: amortized 3 per slide, worst n) and 000 §8.1",
    query=lambda n: max(n - 1, 0),
    insert=lambda n: 0,
    evict=lambda n: 0,
    avg_insert=1.0,
    avg_evict=1.0,
    slack=lambda n: 0.0,
    space=lambda n: 2 * n,
    avg_query=1.0,
)

CARD = AlgorithmCard(
    id="flatfit",
    title="FlatFIT (resizable)",
    paper="001 §2, §4; 000 §7–8.1",
    class_name="FlatFIT",
    adt="fifo",
    snapshot=FlatFITState,
    checker=check_flatfit,
    checker_id="flatfit",
    budget=BUDGET,
    budget_id="flatfit",
    stored=stored,
    guarantees=Guarantees(
        query="n−1",
        insert="0",
        evict="0",
        amortized="O(1) (1 per insert, evict and query)",
        worst_case="O(n)",
        space="2n (buffer ≤ max(2, 4n))",
    ),
)
