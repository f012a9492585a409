"""Monoid law checks for the library: are the declared properties true?

Every algorithm's correctness rests on associativity and identity, and some on declared extra properties
(commutative, invertible, selective). :func:`check_monoid` checks them for one library monoid, first on the
library's fixed example inputs, then on Hypothesis-generated samples from the monoid's input strategy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid, check_laws

from .strategies import strategy_for

__all__ = ["LawStats", "LawFailure", "check_monoid", "check_laws_of"]


class LawFailure(AssertionError):
    """A library monoid breaks a law it relies on or a property it declares."""


@dataclass
class LawStats:
    """How many sample sets were checked, and whether generated samples were available."""

    examples: int = 0
    generated: bool = False


def check_monoid(monoid_id: str, *, max_examples: int = 50, seed: int | None = None) -> LawStats:
    """Check the laws of library monoid ``monoid_id``; raises :class:`LawFailure` naming law and operands."""
    entry = LIBRARY[monoid_id]
    try:
        values: st.SearchStrategy[Any] | None = strategy_for(monoid_id)
    except KeyError:
        values = None  # no generator for this monoid yet: examples only
    return check_laws_of(entry.factory, list(entry.examples), values, max_examples=max_examples, seed=seed)


def check_laws_of(
    factory: Callable[[], Monoid[Any, Any, Any]],
    examples: Sequence[Any],
    values: st.SearchStrategy[Any] | None,
    *,
    max_examples: int = 50,
    seed: int | None = None,
) -> LawStats:
    """Check the laws of ``factory()``'s monoid on ``examples`` (fixed inputs), then on lists drawn from
    ``values`` (``None``: examples only); raises :class:`LawFailure` naming law and operands. A user's own
    monoid is checked so before any aggregator over it is blamed (``swagkit verify --impl``)."""
    stats = LawStats(examples=1)
    found = check_laws(factory(), list(examples))
    if found:
        raise LawFailure("; ".join(str(v) for v in found) + " (example inputs)")
    if values is None:
        return stats
    stats.generated = True

    @settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(st.lists(values, min_size=1, max_size=4))
    def laws_hold(inputs: list[Any]) -> None:
        stats.examples += 1
        violations = check_laws(factory(), inputs)
        if violations:
            raise LawFailure("; ".join(str(v) for v in violations))

    if seed is not None:
        laws_hold = hypothesis.seed(seed)(laws_hold)
    laws_hold()
    return stats
