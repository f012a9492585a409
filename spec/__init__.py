"""swagkit.spec -- the executable specification.

* :mod:`.monoid` -- :class:`Monoid`, counting, law checkers.
* :mod:`.library` -- the papers' operators as monoids.
* :mod:`.adt` -- the FIFO SWAG ADT model (:class:`FifoSwag`, also the ``recalc`` algorithm) and
  :class:`TimestampedWindow`.
* :mod:`.ooo` -- the out-of-order timestamped window ADT model (:class:`~swagkit.spec.ooo.TimedWindow`) of FiBA;
  :mod:`.fiba` / :mod:`.fiba_budgets` -- FiBA's split decomposition (Claim 1) and operation budgets.
* :mod:`.algorithms` -- one card per algorithm (title, paper, class, ADT, snapshot, checker, budget, space
  rule, guarantees, requirements); the tables below are read off the cards.
* :mod:`.snapshots` -- plain state snapshots; :mod:`.checkers` -- per-algorithm invariant checkers;
  :mod:`.budgets` -- the budget meter (the budgets themselves are on the cards).
* :mod:`.nonfifo`, :mod:`.slickdeque` / :mod:`.slickdeque_plan` -- the handle-based window of the Reactive
  Aggregator; SlickDeque's requirements, multi-query budgets and range plans.
* :mod:`.decay` -- paper 004: decay functions (the package itself), :mod:`.decay.bounds` (error and space
  contracts, with the notes' corrected constants), :mod:`.decay.oracle` (exact answers), :mod:`.decay.input`
  and :mod:`.decay.errors` (the input contract), :mod:`.decay.snapshots`, :mod:`.decay.streams` (test streams).
"""

from .adt import FifoSwag, TimestampedWindow
from .algorithms import BUDGETS, CHECKERS, stored_aggregates  # first: fills checkers.CHECKERS from the cards
from .budgets import Budget, BudgetMeter
from .errors import (
    BrokenAggregatorError,
    BudgetExceeded,
    EmptyWindowError,
    InvariantViolation,
    ModelMismatch,
    OutOfOrderError,
    ReentrantCallError,
    RegistryError,
    SwagkitError,
    UnsupportedMonoidError,
)
from .monoid import LawViolation, Monoid, check_laws, counted, fold

__all__ = [
    "Monoid",
    "LawViolation",
    "check_laws",
    "counted",
    "fold",
    "FifoSwag",
    "TimestampedWindow",
    "BUDGETS",
    "Budget",
    "BudgetMeter",
    "stored_aggregates",
    "CHECKERS",
    "SwagkitError",
    "ReentrantCallError",
    "RegistryError",
    "BrokenAggregatorError",
    "EmptyWindowError",
    "OutOfOrderError",
    "InvariantViolation",
    "BudgetExceeded",
    "ModelMismatch",
    "UnsupportedMonoidError",
]

from .ooo import TimedWindow  # noqa: E402  (the out-of-order ADT, paper 003)

__all__ += ["TimedWindow"]
