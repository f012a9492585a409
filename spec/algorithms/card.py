"""What an algorithm card says, and the pieces it is made of.

An :class:`AlgorithmCard` gathers every fact the specification states about one algorithm: who it is (id, title,
paper section, the class that implements it), which abstract data type it implements, what its state looks like
(snapshot type), how that state is checked (the invariant checker, in the paper's words), what it may cost (the
⊗ :class:`Budget`, the space claim and how to count the partial aggregates a snapshot stores), what it promises in
the tables (:class:`Guarantees`), and what it needs (monoid properties, constructor parameters).

Cards are plain data: a card module imports the checker, snapshot type and budget functions it names, and
:mod:`swagkit.spec.algorithms` derives every registry from the list of card modules.

>>> from swagkit.spec.algorithms import card
>>> daba = card("daba")
>>> daba.kind, daba.checker_id, daba.guarantees.insert, daba.guarantees.space
('fifo', 'daba', '4', '2n')
>>> daba.budget is not None and daba.budget.bound("insert", 10)
4
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import UnsupportedMonoidError
from ..monoid import Monoid

__all__ = [
    "ADTS",
    "PROPERTIES",
    "AlgorithmCard",
    "Budget",
    "Guarantees",
    "MonoidRequirements",
    "SpaceRule",
    "approximate",
]

#: The abstract data types cards may name, each with the ADT its verification runs as (``None``: itself). An ADT
#: that extends another is checked by the other's state machine and debug wrapper, which find the extra
#: operations on the aggregator (``handles``: a FIFO SWAG that also removes any live element by the handle its
#: insertion returned, :mod:`swagkit.spec.nonfifo`).
ADTS: Mapping[str, str | None] = {
    "fifo": None,
    "handles": "fifo",
    "tree": None,
    "out_of_order": None,
    "sketch": None,
    "time_decayed": None,
}

#: The monoid properties an algorithm may require (``Monoid`` attributes of the same names).
PROPERTIES = ("commutative", "invertible", "selective")

#: How many partial aggregates a snapshot stores (the quantity of the papers' space claims).
SpaceRule = Callable[[Any], int]


class MonoidRequirements:
    """Mixin of the cards and the registry's entries: which monoids an algorithm may run over, from its
    ``requires`` (the monoid properties it relies on) and ``requires_any`` (one of them suffices)."""

    id: str
    requires: tuple[str, ...]
    requires_any: bool

    def check_requirements(self) -> None:
        """Raise :class:`ValueError` when ``requires`` names a property :data:`PROPERTIES` does not know."""
        unknown = [p for p in self.requires if p not in PROPERTIES]
        if unknown:
            raise ValueError(f"algorithm {self.id!r}: unknown monoid properties {unknown} (known: {PROPERTIES})")

    def missing_properties(self, monoid: Monoid[Any, Any, Any]) -> list[str]:
        """The required properties ``monoid`` does not declare (empty when it is supported)."""
        missing = [p for p in self.requires if not getattr(monoid, p)]
        if self.requires_any and len(missing) < len(self.requires):
            return []
        return missing

    def supports(self, monoid: Monoid[Any, Any, Any]) -> bool:
        """Whether this algorithm may run over ``monoid`` (it declares every required property)."""
        return not self.missing_properties(monoid)

    def requirement_text(self) -> str:
        """``"-"``, ``"invertible"``, ``"selective or invertible"``…, for tables."""
        if not self.requires:
            return "-"
        return (" or " if self.requires_any else " and ").join(self.requires)

    def requirement_phrase(self) -> str:
        """``"an invertible monoid"``, ``"a selective or invertible monoid"``…, for messages."""
        words = self.requirement_text()
        return ("an " if words[:1] in "aeiou" else "a ") + words + " monoid"

    def require_supported(self, monoid: Monoid[Any, Any, Any]) -> Monoid[Any, Any, Any]:
        """``monoid``, if this algorithm may run over it; else
        :class:`~swagkit.spec.errors.UnsupportedMonoidError` naming the properties it does not declare (what every
        factory checks before it builds an aggregator)."""
        missing = self.missing_properties(monoid)
        if missing:
            raise UnsupportedMonoidError(
                f"{self.id} needs {self.requirement_phrase()}; {monoid.name} does not declare {', '.join(missing)}"
            )
        return monoid


@dataclass(frozen=True)
class Budget:
    """Combine-call budget of one algorithm (all bounds are upper bounds on ``⊗`` invocations), enforced by
    :class:`~swagkit.spec.budgets.BudgetMeter`.

    ``query``/``insert``/``evict`` are worst-case bounds as functions of the window size ``n`` *before* the
    operation; ``avg_insert``/``avg_evict`` (and ``avg_query``) the amortized credits of the potential
    inequality, ``slack(n)`` its slack; ``space(n)`` the space claim in stored partial aggregates.
    """

    algorithm: str
    source: str
    query: Callable[[int], float]
    insert: Callable[[int], float]
    evict: Callable[[int], float]
    avg_insert: float
    avg_evict: float
    slack: Callable[[int], float]
    space: Callable[[int], int]
    #: False: ``space(n)`` is an upper bound (capacity-based structures), not the exact count
    space_exact: bool = True
    #: None: query combines stay outside the amortized claim (bounded by ``query`` only); a number: queries
    #: join the potential inequality, each billed ``avg_query`` (FlatFIT, whose only ⊗ are in queries)
    avg_query: float | None = None

    def bound(self, operation: str, n: int) -> float:
        """Worst-case bound for ``operation`` on a window of ``n`` elements (size before the operation)."""
        rule: Callable[[int], float] = getattr(self, operation)
        return rule(n)


@dataclass(frozen=True)
class Guarantees:
    """What ``swagkit list`` and the README tables show: worst-case ⊗ per ``query``/``insert``/``evict``, the
    amortized and worst-case summaries, the space claim (stored partial aggregates) and, for approximate
    structures, the accuracy guarantee (``error``)."""

    query: str
    insert: str
    evict: str
    amortized: str
    worst_case: str
    space: str
    error: str = ""


def approximate(error: str, space: str) -> Guarantees:
    """The :class:`Guarantees` of an approximate structure: no ⊗ columns, an ``error`` and a ``space`` bound."""
    return Guarantees(query="-", insert="-", evict="-", amortized="-", worst_case="-", space=space, error=error)


@dataclass(frozen=True)
class AlgorithmCard(MonoidRequirements):
    """Everything the specification says about one algorithm (see the module docstring).

    ``checker`` is the invariant checker of the snapshot. It is listed in :data:`~swagkit.spec.CHECKERS` under
    ``checker_id`` when it has the common signature ``checker(snapshot, monoid, window)`` that the FIFO and
    out-of-order debug wrappers call; ``checker_id=None`` means its ADT's own debug wrapper calls it (FlatFAT's
    tree checker, paper 004's checkers against an exact oracle). Likewise ``budget`` is listed in
    :data:`~swagkit.spec.BUDGETS` under ``budget_id`` (which must equal ``budget.algorithm``); a ``budget_id``
    without a ``budget`` names a contract kept elsewhere (FiBA's :mod:`~swagkit.spec.fiba_budgets`). ``stored``
    counts the partial aggregates a snapshot of type ``snapshot`` stores (:func:`~swagkit.spec.stored_aggregates`).

    ``params`` are constructor keyword arguments, so one class can have several cards (:meth:`variant`).
    ``requires`` lists the monoid properties it relies on; ``requires_any``: one of them suffices.
    ``takes_monoid=False`` marks structures that are not generic over a monoid (built as ``cls(**params)``);
    ``monoids`` names the library monoid they are listed under.

    Two facts are for verification: ``meter`` builds the meter of a ⊗ contract kept outside :class:`Budget`
    (``meter(min_arity, algorithm)``: FiBA's :class:`~swagkit.spec.fiba_budgets.FiBABudgetMeter`), and
    ``verify_share`` > 1 marks a card whose code another card already exercises (FiBA's other μ, its looped bulk
    operations): its state machine runs ``1/verify_share`` of the examples (at least 3) and the differential
    stage leaves it out unless asked for it. ``stress_params`` are further constructor settings the differential
    runs cycle through by seed (besides ``params``): small ones whose provable budgets are tight enough that the
    structure's compaction runs within one run (paper 004's ladders discarding on several levels). ``contract``
    restricts the window the FIFO kind drives (fields of :class:`swagkit.verify.kinds.fifo.Contract`, e.g.
    ``{"capacity": 8, "ranges": (8, 5, 2, 1)}`` for SlickDeque's multi-query mode, 001 §4); empty: unrestricted.
    """

    id: str
    title: str
    paper: str
    class_name: str
    adt: str
    snapshot: type
    guarantees: Guarantees
    checker: Callable[..., Any] | None = None
    checker_id: str | None = None
    budget: Budget | None = None
    budget_id: str | None = None
    stored: SpaceRule | None = None
    requires: tuple[str, ...] = ()
    requires_any: bool = False
    params: Mapping[str, Any] = field(default_factory=dict)
    takes_monoid: bool = True
    monoids: tuple[str, ...] | None = None
    meter: Callable[..., Any] | None = None
    verify_share: int = 1
    stress_params: tuple[Mapping[str, Any], ...] = ()
    contract: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.check_requirements()
        if self.verify_share < 1:
            raise ValueError(f"algorithm {self.id!r}: verify_share must be at least 1")
        if self.adt not in ADTS:
            raise ValueError(f"algorithm {self.id!r}: unknown ADT {self.adt!r} (known: {', '.join(ADTS)})")
        if self.checker_id is not None and self.checker is None:
            raise ValueError(f"algorithm {self.id!r}: checker_id {self.checker_id!r} without a checker")
        if self.budget is not None and self.budget.algorithm != self.budget_id:
            raise ValueError(
                f"algorithm {self.id!r}: budget_id {self.budget_id!r} but the budget is {self.budget.algorithm!r}'s"
            )

    @property
    def kind(self) -> str:
        """The ADT the algorithm is verified as (``adt``, or the ADT it extends: see :data:`ADTS`)."""
        return ADTS[self.adt] or self.adt

    def variant(self, id: str, title: str, **changes: Any) -> AlgorithmCard:
        """The same algorithm under another id, e.g. other constructor ``params`` (FiBA's μ)."""
        return dataclasses.replace(self, id=id, title=title, **changes)
