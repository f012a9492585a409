"""DABA Lite (paper 000 §6, Theorem 6.2): DABA in one deque of partial aggregates plus ``aggRA`` and ``aggB``."""

from __future__ import annotations

from ..checkers.daba_lite import check_daba_lite
from ..snapshots import DABALiteState
from .card import AlgorithmCard, Budget, Guarantees


def stored(state: DABALiteState) -> int:
    """One partial aggregate per element, plus ``aggRA`` and ``aggB``."""
    return (state.E - state.F) + 2


BUDGET = Budget(
    "daba_lite",
    "000 Theorem 6.2",
    query=lambda n: 1,
    insert=lambda n: 3,
    evict=lambda n: 2,
    avg_insert=2.0,
    avg_evict=1.0,
    slack=lambda n: 1.0 * n + 2,  # as DABA's: an unfinished flip cycle (000 Theorem 6.2)
    space=lambda n: n + 2,
)

CARD = AlgorithmCard(
    id="daba_lite",
    title="DABA Lite",
    paper="000 §6 (Thm 6.2)",
    class_name="DABALite",
    adt="fifo",
    snapshot=DABALiteState,
    checker=check_daba_lite,
    checker_id="daba_lite",
    budget=BUDGET,
    budget_id="daba_lite",
    stored=stored,
    guarantees=Guarantees(
        query="1", insert="3", evict="2", amortized="O(1) (insert 2, evict 1)", worst_case="O(1)", space="n+2"
    ),
)
