"""Fault injection into a monoid's ``combine``: the machines' check that a raising ``⊗`` never leads to a silent
wrong answer (issue 12), for swagkit's structures and for a user's own.

:func:`with_faults` wraps a monoid so that ``combine`` raises :class:`InjectedFault` once, at the k-th call after
:meth:`FaultInjector.arm`. The wrapped monoid declares no typed ``kind`` (the compiled code then takes its
generic path, which is the one that calls Python), so the machines wrap only monoids that have no typed kind:
a typed ``⊗`` runs in C and cannot raise.

>>> from swagkit.spec.library import string_concat
>>> m, faults = with_faults(string_concat())
>>> faults.arm(2)
>>> m.combine("a", "b")
'ab'
>>> m.combine("a", "b")
Traceback (most recent call last):
...
swagkit.verify.faults.InjectedFault: combine call 2 after arm() (injected by swagkit)
>>> m.combine("a", "b")  # once only: a transient fault
'ab'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from swagkit.spec.monoid import Monoid

__all__ = ["InjectedFault", "FaultInjector", "with_faults"]


class InjectedFault(Exception):
    """The transient error an armed :class:`FaultInjector` raises from ``combine`` (not a swagkit error: to the
    structure it is any exception a user's ``combine`` may raise)."""


class FaultInjector:
    """A ``combine`` that calls the real one, except once: the k-th call after :meth:`arm` raises."""

    def __init__(self, combine: Callable[[Any, Any], Any]) -> None:
        self._combine = combine
        self._countdown = 0
        self._k = 0
        self.calls = 0
        self.fired = 0
        #: ``calls`` when the last fault fired (a trace places the fault in the operation it hit)
        self.fired_at = 0

    def arm(self, k: int) -> None:
        """Make the k-th call from now (k ≥ 1) raise :class:`InjectedFault`."""
        if k < 1:
            raise ValueError("arm(k) needs k >= 1")
        self._countdown = self._k = k

    def disarm(self) -> bool:
        """Cancel a pending fault; returns whether one was still pending (the operation made fewer calls)."""
        pending = self._countdown > 0
        self._countdown = 0
        return pending

    def __call__(self, a: Any, b: Any) -> Any:
        self.calls += 1
        if self._countdown:
            self._countdown -= 1
            if self._countdown == 0:
                self.fired += 1
                self.fired_at = self.calls
                raise InjectedFault(f"combine call {self._k} after arm() (injected by swagkit)")
        return self._combine(a, b)


def with_faults(monoid: Monoid[Any, Any, Any]) -> tuple[Monoid[Any, Any, Any], FaultInjector]:
    """``monoid`` with a :class:`FaultInjector` as ``combine`` (and ``fast_path=None``), and the injector."""
    injector = FaultInjector(monoid.combine)
    return replace(monoid, combine=injector, fast_path=None), injector
