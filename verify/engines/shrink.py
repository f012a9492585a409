"""Shrinking a failing case to a minimal repro: greedy, deterministic, bounded in time (issue 24 §5).

:func:`shrink` keeps taking the first simpler candidate (:func:`.generate.simplify`: fewer queries, rows,
partitions; smaller offsets; simpler values) on which the failure still shows, until no candidate does or the
budget is spent. Every candidate is strictly smaller by :func:`.generate.simplify`'s measure, so it terminates;
each check runs the engine once on a small case, so a shrink takes a few hundred engine calls at most.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from .model import Case

__all__ = ["shrink"]


def shrink(
    case: Case,
    still_fails: Callable[[Case], bool],
    candidates: Callable[[Case], Iterable[Case]],
    budget_seconds: float = 10.0,
) -> tuple[Case, int]:
    """The smallest case reached from ``case`` through ``candidates`` on which ``still_fails`` holds, and the
    number of candidates tried. ``still_fails(case)`` must hold on entry; a candidate that raises counts as not
    failing (the shrinker looks for the same failure, not any)."""
    deadline = time.monotonic() + budget_seconds
    tried = 0
    current = case
    improved = True
    while improved and time.monotonic() < deadline:
        improved = False
        for candidate in candidates(current):
            if time.monotonic() >= deadline:
                break
            tried += 1
            try:
                failing = still_fails(candidate)
            except Exception:  # noqa: BLE001 - a different failure is not the one being shrunk
                failing = False
            if failing:
                current = candidate
                improved = True
                break
    return current, tried
