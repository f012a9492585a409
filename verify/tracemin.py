"""Shrinking a counterexample's trace directly: delta debugging over its steps (issue 25 §4).

Hypothesis shrinks the *choices* behind an example; once its shrink budget is spent the trace can still hold
steps the failure does not need (for a program behind ``--exec``, each of them a round trip). :func:`ddmin` then
removes chunks of steps -- halves, quarters, … single steps (Zeller and Hildebrandt, "Simplifying and Isolating
Failure-Inducing Input", TSE 2002: the complement-only variant) -- keeping every removal after which the steps
still fail the same way, until no single step can go or the seconds are spent. Each candidate is one fresh
instance of the implementation (:func:`swagkit.verify.replay.shrunk_trace` runs it); a hang costs the shortened
deadline of :class:`swagkit.verify.guard.Deadline`, not the full timeout.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["ddmin"]

T = TypeVar("T")


def ddmin(
    items: Sequence[T],
    fails: Callable[[Sequence[T]], bool],
    *,
    seconds: float,
    clock: Callable[[], float] = time.perf_counter,
) -> list[T]:
    """The smallest failing sublist found within ``seconds`` (``items`` itself when nothing can go): chunks of
    ``len/n`` items are removed, ``n`` doubling while no removal fails, down to single items; order is kept.

    >>> ddmin(list(range(40)), lambda xs: 7 in xs and 31 in xs, seconds=5)
    [7, 31]
    >>> ddmin("abcabc", lambda xs: "".join(xs).count("c") == 2, seconds=5)
    ['c', 'c']
    """
    end = clock() + seconds
    current = list(items)
    n = 2
    while len(current) >= 2 and clock() < end:
        chunk = -(-len(current) // n)
        for start in range(0, len(current), chunk):
            candidate = current[:start] + current[start + chunk :]
            if candidate and fails(candidate):
                current = candidate
                n = max(n - 1, 2)
                break
            if clock() >= end:
                return current
        else:
            if chunk == 1:
                break
            n = min(2 * n, len(current))
    return current
