"""Exceptions shared by every layer of swagkit.

Every algorithm raises the *same* documented exception for the same misuse, whichever implementation
(reference or optimized) is in use, and leaves the structure usable with nothing lost.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "SwagkitError",
    "EmptyWindowError",
    "OutOfOrderError",
    "InvariantViolation",
    "BudgetExceeded",
    "ModelMismatch",
    "UnsupportedMonoidError",
    "RegistryError",
    "ReentrantCallError",
    "BrokenAggregatorError",
]


class SwagkitError(Exception):
    """Base class of swagkit's own errors."""


class EmptyWindowError(SwagkitError, IndexError):
    """``evict()`` (or ``oldest()``/``youngest()``) on an empty window.

    A subclass of :class:`IndexError`, like popping an empty list. The aggregator is unchanged and usable.
    """


class OutOfOrderError(SwagkitError, ValueError):
    """A timestamp older than the youngest one in an in-order (FIFO) window. Nothing is changed."""


class UnsupportedMonoidError(SwagkitError, TypeError):
    """The algorithm needs a property (commutative, invertible, selective) the monoid does not declare."""


class RegistryError(SwagkitError, LookupError):
    """Unknown algorithm / implementation / monoid id, or an implementation that does not provide an algorithm
    (raised by the factories, :func:`swagkit.optimized.create` and :func:`swagkit.verify.registry.create`)."""


class ReentrantCallError(SwagkitError, RuntimeError):
    """A structure was called while one of its own operations was still running: a ``combine`` (or ``lift``,
    ``lower``, a value's ``__del__``) called back into it, or a second thread used it.

    swagkit's structures are **not thread-safe**; they detect such overlapping use instead of corrupting their
    state. The refused call changes nothing; the operation that was running goes on (or, if the refusal propagates
    out of its ``combine``, fails like any raising ``combine``: see the structure's exception guarantee).
    """


class BrokenAggregatorError(SwagkitError, RuntimeError):
    """A structure whose ``combine`` raised half-way through an operation that it cannot roll back.

    Only structures documented with the *refuse* exception guarantee can get here (see the README's table). Every
    later update and query raises this error instead of answering from an inconsistent state; ``salvage()``
    returns what the structure holds and ``repair()`` rebuilds it from that in place.
    """


class InvariantViolation(SwagkitError, AssertionError):
    """An algorithm's state breaks one of its paper's invariants.

    Attributes: ``algorithm``, ``invariant`` (a short name), ``wording`` (the paper's words), ``detail`` (what
    exactly differs) and ``state`` (the offending snapshot).
    """

    def __init__(self, algorithm: str, invariant: str, wording: str, detail: str, state: Any) -> None:
        self.algorithm = algorithm
        self.invariant = invariant
        self.wording = wording
        self.detail = detail
        self.state = state
        super().__init__(
            f"{algorithm}: invariant '{invariant}' violated\n  paper: {wording}\n  found: {detail}\n  state: {state!r}"
        )


class BudgetExceeded(SwagkitError, AssertionError):
    """An operation invoked ``⊗`` more often than its theorem allows."""

    def __init__(self, algorithm: str, operation: str, used: int, allowed: float, source: str) -> None:
        self.algorithm = algorithm
        self.operation = operation
        self.used = used
        self.allowed = allowed
        self.source = source
        super().__init__(f"{algorithm}: {operation} used {used} combine calls, budget is {allowed:g} ({source})")


class ModelMismatch(SwagkitError, AssertionError):
    """An aggregator's answer differs from the executable ADT model's."""
