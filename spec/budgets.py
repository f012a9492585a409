"""Operation budgets: how many ``⊗`` invocations each operation may use, from the papers' theorems.

A :class:`Budget` states per-operation worst-case bounds as functions of the window size ``n`` *before* the
operation, amortized/average bounds, and the space claim (stored partial aggregates as a function of ``n``).
A :class:`BudgetMeter` follows one aggregator's run and raises :class:`~swagkit.spec.errors.BudgetExceeded`
the moment a bound is broken.

Combine calls are counted the way the pseudocode performs them, including combines with the identity
(e.g. Two-Stacks ``insert`` always computes ``ΠB ⊗ v``), so the theorems' "exactly one" holds literally.

Amortized and average claims are checked as potential inequalities that hold at *every* step:
``combines(insert+evict) ≤ avg_insert·#inserts + avg_evict·#evicts + slack(n)``. For Two-Stacks the slack is
zero on the evict side (each element is flipped at most once, 000 Theorem 3.2); for DABA and DABA Lite the
slack covers an unfinished flip cycle whose shrink steps have run ahead of their shift steps (000 Theorem 5.2
and 6.2: "an equal number of shrink steps as shift steps").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .errors import BudgetExceeded
from .snapshots import DABALiteState, DABAState, RecalcState, TwoStacksLiteState, TwoStacksState

__all__ = ["Budget", "BudgetMeter", "BUDGETS", "stored_aggregates"]


def stored_aggregates(state: Any) -> int:
    """Number of partial aggregates a snapshot stores (the quantity of the papers' space claims)."""
    if isinstance(state, RecalcState):
        return len(state.values)
    if isinstance(state, TwoStacksState):
        return 2 * (len(state.front) + len(state.back))
    if isinstance(state, TwoStacksLiteState):
        return (state.E - state.F) + 1
    if isinstance(state, DABAState):
        return 2 * (state.E - state.F)
    if isinstance(state, DABALiteState):
        return (state.E - state.F) + 2
    raise TypeError(f"no space rule for {type(state).__name__}")


@dataclass(frozen=True)
class Budget:
    """Combine-call budget of one algorithm (all bounds are upper bounds on ``⊗`` invocations)."""

    algorithm: str
    source: str
    query: Callable[[int], float]
    insert: Callable[[int], float]
    evict: Callable[[int], float]
    avg_insert: float
    avg_evict: float
    slack: Callable[[int], float]
    space: Callable[[int], int]

    def bound(self, operation: str, n: int) -> float:
        """Worst-case bound for ``operation`` on a window of ``n`` elements (size before the operation)."""
        rule: Callable[[int], float] = getattr(self, operation)
        return rule(n)


BUDGETS: dict[str, Budget] = {
    "recalc": Budget(
        "recalc",
        "000 §8.1 (recalculate-from-scratch: O(n) per query)",
        query=lambda n: max(n - 1, 0),
        insert=lambda n: 0,
        evict=lambda n: 0,
        avg_insert=0.0,
        avg_evict=0.0,
        slack=lambda n: 0.0,
        space=lambda n: n,
    ),
    "two_stacks": Budget(
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
    ),
    "two_stacks_lite": Budget(
        "two_stacks_lite",
        "000 Theorem 4.2",
        query=lambda n: 1,
        insert=lambda n: 1,
        evict=lambda n: n,
        avg_insert=2.0,
        avg_evict=0.0,
        slack=lambda n: 0.0,
        space=lambda n: n + 1,
    ),
    "daba": Budget(
        "daba",
        "000 Theorem 5.2",
        query=lambda n: 1,
        insert=lambda n: 4,
        evict=lambda n: 3,
        avg_insert=2.5,
        avg_evict=1.5,
        slack=lambda n: 1.5 * n + 3,
        space=lambda n: 2 * n,
    ),
    "daba_lite": Budget(
        "daba_lite",
        "000 Theorem 6.2",
        query=lambda n: 1,
        insert=lambda n: 3,
        evict=lambda n: 2,
        avg_insert=2.0,
        avg_evict=1.0,
        slack=lambda n: 1.0 * n + 2,
        space=lambda n: n + 2,
    ),
}


class BudgetMeter:
    """Follows a run and checks every operation against a :class:`Budget`.

    Call :meth:`record` after each operation with the window size before it and the combines it used.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.inserts = 0
        self.evicts = 0
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
            return
        if operation == "insert":
            self.inserts += 1
        else:
            self.evicts += 1
        self.update_combines += used
        n_after = n_before + (1 if operation == "insert" else -1)
        amortized = b.avg_insert * self.inserts + b.avg_evict * self.evicts + b.slack(max(n_after, n_before))
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
        if stored != claimed:
            raise BudgetExceeded(
                self.budget.algorithm, f"space (n={n})", stored, claimed, self.budget.source + " (space claim)"
            )
