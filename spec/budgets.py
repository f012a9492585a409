"""Operation budgets: how many ``⊗`` invocations each operation may use, from the papers' theorems.

A :class:`Budget` states per-operation worst-case bounds as functions of the window size ``n`` *before* the
operation, amortized/average bounds, and the space claim (stored partial aggregates as a function of ``n``).
A :class:`BudgetMeter` follows one aggregator's run and raises :class:`~swagkit.spec.errors.BudgetExceeded`
the moment a bound is broken.

Each algorithm's budget, space rule and their justification are on its card (:mod:`swagkit.spec.algorithms`,
e.g. :mod:`swagkit.spec.algorithms.flatfit`); this module re-exports the tables read off the cards
(:data:`BUDGETS`, :func:`stored_aggregates`) and FlatFAT's budget functions, and holds the meter.

Combine calls are counted the way the pseudocode performs them, including combines with the identity
(e.g. Two-Stacks ``insert`` always computes ``ΠB ⊗ v``), so the theorems' "exactly one" holds literally.

Amortized and average claims are checked as potential inequalities that hold at *every* step:
``combines(insert+evict) ≤ avg_insert·#inserts + avg_evict·#evicts + slack(n)``. For Two-Stacks the slack is
zero on the evict side (each element is flipped at most once, 000 Theorem 3.2); for DABA and DABA Lite the
slack covers an unfinished flip cycle whose shrink steps have run ahead of their shift steps (000 Theorem 5.2
and 6.2: "an equal number of shrink steps as shift steps").
"""

from __future__ import annotations

from typing import Any

from .algorithms import BUDGETS, stored_aggregates
from .algorithms.card import Budget
from .algorithms.flatfat import flatfat_new_combines, flatfat_query_bound, flatfat_update_bound, flatfat_update_exact
from .errors import BudgetExceeded

__all__ = [
    "Budget",
    "BudgetMeter",
    "BUDGETS",
    "stored_aggregates",
    "flatfat_new_combines",
    "flatfat_update_bound",
    "flatfat_update_exact",
    "flatfat_query_bound",
]


class BudgetMeter:
    """Follows a run and checks every operation against a :class:`Budget`.

    Call :meth:`record` after each operation with the window size before it and the combines it used.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.inserts = 0
        self.evicts = 0
        self.queries = 0  # queries billed to the amortized claim (only when ``avg_query`` is set)
        self.update_combines = 0  # combines spent in insert and evict (the amortized claims' subject)
        self.max_seen: dict[str, int] = {"query": 0, "insert": 0, "evict": 0}

    def record(self, operation: str, n_before: int, used: int) -> None:
        """Check one operation; raises :class:`BudgetExceeded` when a bound is broken."""
        b = self.budget
        allowed = b.bound(operation, n_before)
        if used > allowed:
            raise BudgetExceeded(b.algorithm, f"{operation} (n={n_before})", used, allowed, b.source)
        self.max_seen[operation] = max(self.max_seen[operation], used)
        if operation == "query":
            if b.avg_query is None:
                return
            self.queries += 1
        elif operation == "insert":
            self.inserts += 1
        else:
            self.evicts += 1
        self.update_combines += used
        self.check_amortized(max(n_before, n_before + {"insert": 1, "evict": -1}.get(operation, 0)))

    def check_amortized(self, n: int) -> None:
        """The amortized/average claims as a potential inequality over everything recorded so far:
        ``combines ≤ avg_insert·#inserts + avg_evict·#evicts (+ avg_query·#queries) + slack(n)``, with ``n`` the
        larger window size around the last operation. Raises :class:`BudgetExceeded`."""
        b = self.budget
        amortized = b.avg_insert * self.inserts + b.avg_evict * self.evicts + b.slack(n)
        amortized += (b.avg_query or 0.0) * self.queries
        if self.update_combines > amortized:
            raise BudgetExceeded(
                b.algorithm,
                f"amortized insert/evict after {self.inserts} inserts and {self.evicts} evicts",
                self.update_combines,
                amortized,
                b.source + " (average/amortized bound)",
            )

    def check_space(self, state: Any, n: int) -> None:
        """Check the space claim for a snapshot of a window of ``n`` elements."""
        stored, claimed = stored_aggregates(state), self.budget.space(n)
        if stored > claimed or (self.budget.space_exact and stored != claimed):
            raise BudgetExceeded(
                self.budget.algorithm, f"space (n={n})", stored, claimed, self.budget.source + " (space claim)"
            )
