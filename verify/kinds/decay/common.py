"""What paper 004's wrappers, machines and differential runs read off a structure instead of its id.

:class:`Capabilities` says how a time-decayed structure is driven (does it hold values? does it have a fixed
decay?), from the structure or from its constructor parameters; :func:`run_checker` calls a card's checker with
the arguments its family takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from swagkit.spec.checkers._decay_common import CheckReport
from swagkit.spec.decay import Decay
from swagkit.spec.decay.streams import Arrival

__all__ = ["Capabilities", "run_checker"]


@dataclass(frozen=True)
class Capabilities:
    """``values``: the structure holds values of a ``value_bits`` universe (``insert(value, timestamp,
    weight)``; else ``insert(timestamp, weight)``, a count); ``fixed_decay``: it has one decay, given at
    construction (value division: decayed queries take no decay, maintenance is ``maintain()``)."""

    values: bool
    fixed_decay: bool

    @classmethod
    def of(cls, structure: Any) -> Capabilities:
        return cls(hasattr(structure, "value_bits"), isinstance(getattr(structure, "decay", None), Decay))

    @classmethod
    def of_params(cls, params: Mapping[str, Any]) -> Capabilities:
        """From the registered constructor parameters (before a structure exists)."""
        return cls("value_bits" in params, "decay" in params)

    def insert_args(self, a: Arrival) -> tuple[Any, ...]:
        """The arguments of ``insert`` for one arrival."""
        return (a.value, a.timestamp, a.weight) if self.values else (a.timestamp, a.weight)

    @property
    def maintenance(self) -> str:
        """The name of the compaction operation: ``maintain`` (fixed decay) or ``compress``."""
        return "maintain" if self.fixed_decay else "compress"


def run_checker(
    checker: Callable[..., Any] | None,
    can: Capabilities,
    state: Any,
    oracle: Any,
    previous: Any,
    report: CheckReport,
    decays: Sequence[Decay],
    decay: Decay | None,
) -> None:
    """Run a time-decayed structure's checker on ``state`` against the exact ``oracle``: with the fixed decay,
    or with the previous snapshot (cutoffs only rise) and -- for structures of values -- the decays queried."""
    if checker is None:
        return
    if can.fixed_decay:
        checker(state, decay, oracle, report=report)
    elif can.values:
        checker(state, oracle, previous, report=report, decays=list(decays))
    else:
        checker(state, oracle, previous, report=report)
