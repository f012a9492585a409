"""Two implementations in lock-step: every call made on both, and any difference a failure (Spark's findings).

A Spark differential run compares an implementation with another one call by call (answers, refusals, ⊗ counts,
snapshots). Its replay file names the other one (header ``against``): :class:`Against` rebuilds it and
:meth:`Against.wrap` makes every call of the replay run on both again, so the replay checks what the Spark run
checked. :func:`differs` is the comparison both use.
"""

from __future__ import annotations

from typing import Any

from .kinds.base import same_output

__all__ = ["Against", "differs"]


class Against:
    """The lock-step check of a Spark replay (header ``against``: the implementation the failing one was compared
    with): :meth:`wrap` makes every call run on both, and the answers, refusals, ⊗ counts and snapshots must
    agree."""

    def __init__(self, other: Any, monoid: Any) -> None:
        self.other = other
        self.monoid = monoid

    @classmethod
    def of(cls, header: dict[str, Any], monoid: Any) -> Against | None:
        """The other implementation of ``header`` (``None`` when the file names none)."""
        from . import registry  # registered algorithms only: a Spark finding is over the registry's classes

        name = header.get("against")
        if not name:
            return None
        return cls(registry.subject(str(header["algorithm"]), str(name)).new(monoid), monoid)

    def wrap(self, obj: Any) -> Any:
        """``obj`` with every call also made on the other implementation and compared
        (:class:`AssertionError` naming the first difference)."""
        return _Compared(obj, self)

    def step(self, name: str, args: tuple[Any, ...], got: Any, obj: Any) -> str:
        """Run ``name(args)`` on the other implementation; what differs from ``got`` (what ``obj`` answered,
        or the :class:`SwagkitError` it raised) -- ``""`` when nothing does."""
        return differs(self.monoid, name, _outcome(self.other, name, args), got, obj, self.other)


class _Compared:
    """One implementation in lock-step with another (see :meth:`Against.wrap`)."""

    def __init__(self, obj: Any, against: Against) -> None:
        self._obj = obj
        self._against = against

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        attr = getattr(self._obj, name)
        if not callable(attr) or name in ("snapshot", "salvage", "repair"):
            return attr
        return lambda *args: self._both(name, args)

    def __len__(self) -> int:
        return int(self._both("size", ()))

    def _both(self, name: str, args: tuple[Any, ...]) -> Any:
        ours = _outcome(self._obj, name, args)
        problem = self._against.step(name, args, ours, self._obj)
        if problem:
            raise AssertionError(f"lock-step with the other implementation: {problem}")
        if isinstance(ours, BaseException):
            raise ours
        return ours


def _outcome(obj: Any, name: str, args: tuple[Any, ...]) -> Any:
    try:
        return len(obj) if name == "size" else getattr(obj, name)(*args)
    except Exception as exc:  # an outcome to compare, like an answer
        return exc


def differs(monoid: Any, name: str, theirs: Any, ours: Any, obj: Any, other: Any) -> str:
    """What differs between two implementations after the same call: the outcome (an answer, or the type of
    the exception raised), then ``combine_count`` ("": nothing)."""
    if isinstance(theirs, BaseException) or isinstance(ours, BaseException):
        if type(theirs) is not type(ours):
            return f"{name}: {_shown(ours)}, the other implementation: {_shown(theirs)}"
    elif not same_output(monoid, ours, theirs):
        return f"{name} answered {ours!r}, the other implementation {theirs!r}"
    for counter in ("combine_count", "touched_count"):  # the twins' ⊗ and node-visit counts
        mine, yours = getattr(obj, counter, None), getattr(other, counter, None)
        if isinstance(mine, int) and isinstance(yours, int) and mine != yours:
            return f"after {name}: {counter} {mine}, the other implementation {yours}"
    # twins promise the same snapshots too (the Spark runs compare them)
    mine, yours = getattr(obj, "snapshot", None), getattr(other, "snapshot", None)
    if callable(mine) and callable(yours) and mine() != yours():
        return f"after {name}: the snapshots differ from the other implementation's"
    return ""


def _shown(outcome: Any) -> str:
    return f"raised {type(outcome).__name__}" if isinstance(outcome, BaseException) else f"returned {outcome!r}"
