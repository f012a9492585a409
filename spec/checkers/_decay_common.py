"""Helpers of the paper-004 checkers: hard failures raise :class:`InvariantViolation`, soft findings (properties
the paper states but that cannot always hold, notes §2.3-§2.5) are collected in a :class:`CheckReport`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import InvariantViolation

__all__ = ["SoftFinding", "CheckReport", "DecayChecker"]


@dataclass(frozen=True)
class SoftFinding:
    """A reported, non-fatal deviation: which property, where, and by how much."""

    structure: str
    invariant: str
    detail: str
    count: int = 1


@dataclass
class CheckReport:
    """What a checker verified: ``hard`` lists the invariants that held, ``soft`` the reported deviations and
    ``measures`` the largest observed error divided by its bound (for the measurement scripts)."""

    hard: list[str] = field(default_factory=list)
    soft: list[SoftFinding] = field(default_factory=list)
    measures: dict[str, float] = field(default_factory=dict)

    def measure(self, name: str, error: float, bound: float) -> None:
        """Record ``error / bound`` under ``name`` (keeping the largest; a zero bound with zero error is 0)."""
        ratio = 0.0 if error <= 0 else (error / bound if bound > 0 else float("inf"))
        self.measures[name] = max(self.measures.get(name, 0.0), ratio)

    def extend(self, other: CheckReport) -> None:
        self.hard.extend(h for h in other.hard if h not in self.hard)
        self.soft.extend(other.soft)
        for k, v in other.measures.items():
            self.measures[k] = max(self.measures.get(k, 0.0), v)


class DecayChecker:
    """Raises :class:`InvariantViolation` with the paper's wording, and records what passed in a report."""

    def __init__(self, structure: str, state: Any, report: CheckReport | None = None) -> None:
        self.structure = structure
        self.state = state
        self.report = report if report is not None else CheckReport()

    def require(self, ok: bool, invariant: str, wording: str, detail: str) -> None:
        if not ok:
            raise InvariantViolation(self.structure, invariant, wording, detail, self.state)

    def passed(self, invariant: str) -> None:
        if invariant not in self.report.hard:
            self.report.hard.append(invariant)

    def soft(self, invariant: str, detail: str, count: int = 1) -> None:
        self.report.soft.append(SoftFinding(self.structure, invariant, detail, count))
