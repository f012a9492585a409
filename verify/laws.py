"""Monoid law checks for the library: are the declared properties true?

Every algorithm's correctness rests on associativity and identity, and some on declared extra properties
(commutative, invertible, selective). :func:`check_monoid` checks them for one library monoid, first on the
library's fixed example inputs, then on Hypothesis-generated samples from the monoid's input strategy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import hypothesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import check_laws

from .strategies import strategy_for

__all__ = ["LawStats", "LawFailure", "check_monoid"]


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
    monoid = entry.factory()
    stats = LawStats(examples=1)
    found = check_laws(monoid, list(entry.examples))
    if found:
        raise LawFailure("; ".join(str(v) for v in found) + " (library example inputs)")
    try:
        values = strategy_for(monoid_id)
    except KeyError:
        return stats  # no generator for this monoid yet: examples only
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
        violations = check_laws(entry.factory(), inputs)
        if violations:
            raise LawFailure("; ".join(str(v) for v in violations))

    if seed is not None:
        laws_hold = hypothesis.seed(seed)(laws_hold)
    laws_hold()
    return stats
