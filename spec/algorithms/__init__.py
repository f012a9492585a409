"""One card per algorithm, and the registries read off them.

Each module of this package describes one algorithm as an :class:`~.card.AlgorithmCard` named ``CARD`` (and, for
the same algorithm under other constructor parameters, a tuple ``VARIANTS``): title, paper, implementing class,
ADT, snapshot type, invariant checker, ⊗ budget, space rule, table texts and monoid requirements.
:data:`CARD_MODULES` lists the modules in presentation order (baseline first), and everything that enumerates
algorithms is derived from it:

* :data:`CARDS` -- every card, in that order (``swagkit.verify.registry.ALGORITHMS`` is built from it);
* :data:`CHECKERS` -- invariant checkers by ``checker_id`` (also ``swagkit.spec.CHECKERS``);
* :data:`BUDGETS` -- ⊗ budgets by ``budget_id`` (also ``swagkit.spec.BUDGETS``);
* :func:`stored_aggregates` -- the space rule of a snapshot, found by its type.

Adding an algorithm is one new module here and one line in :data:`CARD_MODULES`.

>>> card("daba_lite").budget.bound("insert", 10)
3
>>> card("slickdeque_noninv").requires, card("slickdeque_noninv").kind
(('selective',), 'fifo')
"""

from __future__ import annotations

import importlib
from typing import Any

from .. import checkers
from ..checkers import CheckerFn
from .card import AlgorithmCard, Budget, SpaceRule

__all__ = ["CARD_MODULES", "CARDS", "CHECKERS", "BUDGETS", "AlgorithmCard", "card", "stored_aggregates"]

#: The card modules of this package, in presentation order: one line per algorithm.
CARD_MODULES: tuple[str, ...] = (
    "recalc",
    "two_stacks",
    "two_stacks_lite",
    "daba",
    "daba_lite",
    "reactive",
    "flatfat",
    "subtract_on_evict",
    "slickdeque_inv",  # with its multi-query variant slickdeque_inv_ranges
    "slickdeque_noninv",  # with slickdeque_noninv_ranges
    "flatfit",
    "fiba",  # with its variants fiba_mu2 and fiba_mu8
    "fiba_loop",
    "qdigest",
    "window_count",
    "window_quantiles",
    "value_division",
)


def _load(name: str) -> tuple[AlgorithmCard, ...]:
    """The cards of module ``name``: its ``CARD``, then its ``VARIANTS``."""
    # Imported by name so that listing a module is the only edit a new algorithm needs here.
    module = importlib.import_module(f"{__name__}.{name}")
    cards = (module.CARD, *getattr(module, "VARIANTS", ()))
    for c in cards:
        if not isinstance(c, AlgorithmCard):
            raise TypeError(f"{module.__name__}: {c!r} is not an AlgorithmCard")
    return cards


def _unique(what: str, pairs: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """``dict(pairs)``, refusing a key that two cards give different values (a copy-paste error)."""
    out: dict[Any, Any] = {}
    for key, value in pairs:
        if key in out and out[key] is not value:
            raise ValueError(f"two algorithm cards give different {what} for {key!r}")
        out[key] = value
    return out


#: Every card, in presentation order.
CARDS: tuple[AlgorithmCard, ...] = tuple(c for name in CARD_MODULES for c in _load(name))

_BY_ID: dict[str, AlgorithmCard] = _unique("cards", [(c.id, c) for c in CARDS])

#: Invariant checkers ``checker(snapshot, monoid, window)`` by ``checker_id``. The dict is the one
#: ``swagkit.spec.checkers`` exports: that package cannot import this one (the cards import its checkers), so it
#: declares the dict and the cards fill it here.
CHECKERS: dict[str, CheckerFn] = checkers.CHECKERS
CHECKERS.update(_unique("checkers", [(c.checker_id, c.checker) for c in CARDS if c.checker_id is not None]))

#: ⊗ budgets by ``budget_id`` (:class:`~.card.Budget`; FiBA's contracts are in :mod:`swagkit.spec.fiba_budgets`).
BUDGETS: dict[str, Budget] = _unique("budgets", [(c.budget_id, c.budget) for c in CARDS if c.budget is not None])

_SPACE_RULES: dict[type, SpaceRule] = _unique(
    "space rules", [(c.snapshot, c.stored) for c in CARDS if c.stored is not None]
)


def card(algorithm_id: str) -> AlgorithmCard:
    """The card of ``algorithm_id`` (:class:`KeyError` when there is none)."""
    return _BY_ID[algorithm_id]


def stored_aggregates(state: Any) -> int:
    """Number of partial aggregates a snapshot stores (the quantity of the papers' space claims), by the space
    rule of the card whose snapshot type ``state`` is (or derives from). :class:`TypeError` when no card has one.

    >>> from swagkit.spec.snapshots import TwoStacksLiteState
    >>> stored_aggregates(TwoStacksLiteState(deque=("a", "ab"), F=0, B=1, E=2, aggB="b"))
    3
    """
    for cls in type(state).__mro__:
        rule = _SPACE_RULES.get(cls)
        if rule is not None:
            return rule(state)
    raise TypeError(f"no space rule for {type(state).__name__}")
