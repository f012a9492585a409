"""Executable model of the out-of-order timestamped window (paper 003 §3.1; FiBA 2019's ADT with its extras).

The window is a **map from timestamps to lifted values**, folded in increasing time order. Timestamps come from
any totally ordered set (ints, floats, strings, tuples, ...: anything mutually comparable with ``<`` and
``==``), and there is at most one entry per timestamp. Operations:

* ``insert(time, value)``: at any position; a value at a timestamp already present is combined **on the right**,
  ``old ⊗ new`` (003 §3.1, notes §7 item 2);
* ``evict()``: remove the oldest entry; ``remove(time)``: remove the entry at ``time`` (any position);
* ``bulk_evict(time)``: remove every entry with timestamp ``≤ time`` (003 §3.1), returning how many;
* ``bulk_insert(pairs)``: ``(time, value)`` pairs in **non-decreasing** time order. The duplicates policy:
  equal times inside one bulk are folded **earlier ⊗ later**, so ``bulk_insert(pairs)`` is exactly
  ``for t, v in pairs: insert(t, v)`` (003's strict order is the special case without duplicates; the
  authors' artifact folds the same way, notes §1.2). Pairs out of order raise :class:`UnorderedBulkError`;
* ``query()``: the fold of all values in time order (``lower(identity)`` when empty);
  ``range_query(t_from, t_to)``: the fold of the values with ``t_from ≤ time ≤ t_to`` (both ends inclusive,
  like the artifact's ``rangeQuery``; an empty range gives ``lower(identity)``);
* ``oldest()``, ``youngest()``, ``len()``.

Bad input raises before anything changes: :class:`~swagkit.spec.errors.EmptyWindowError` (the same exception as
the in-order family) for ``evict()``/``oldest()``/``youngest()`` on an empty window, :class:`MissingTimeError`
for ``remove`` of an absent time, :class:`UnorderedBulkError` for a bulk out of order, :class:`InvalidTimeError`
for a timestamp that is not equal to itself (NaN), and whatever ``lift`` raises for a bad value. Times of
incomparable types make Python's comparison raise ``TypeError``; nothing is changed then either.

The model recomputes from scratch: ``query`` costs n−1 combines, updates O(n) list operations.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from typing import Any, Generic, Protocol, TypeVar

from .errors import EmptyWindowError, SwagkitError
from .monoid import Monoid

In = TypeVar("In")
Agg = TypeVar("Agg")
Out = TypeVar("Out")

__all__ = [
    "MissingTimeError",
    "UnorderedBulkError",
    "InvalidTimeError",
    "OutOfOrderAggregator",
    "TimedWindow",
    "check_time",
    "check_bulk_order",
]


class MissingTimeError(SwagkitError, KeyError):
    """``remove(time)`` of a timestamp that is not in the window. A :class:`KeyError`; nothing is changed."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else ""


class UnorderedBulkError(SwagkitError, ValueError):
    """``bulk_insert`` pairs whose timestamps decrease somewhere. A :class:`ValueError`; nothing is changed."""


class InvalidTimeError(SwagkitError, ValueError):
    """A timestamp that is not equal to itself (a float NaN): it has no place in a total order."""


def check_time(time: Any) -> None:
    """Raise :class:`InvalidTimeError` for a timestamp that is not equal to itself (NaN)."""
    if time != time:
        raise InvalidTimeError(f"timestamp {time!r} is not equal to itself (NaN has no place in a total order)")


def check_bulk_order(times: list[Any]) -> None:
    """Raise :class:`UnorderedBulkError` unless ``times`` is non-decreasing (and every time valid)."""
    for k, t in enumerate(times):
        check_time(t)
        if k and t < times[k - 1]:
            raise UnorderedBulkError(
                f"bulk_insert: timestamps must be non-decreasing; position {k} has {t!r} after {times[k - 1]!r}"
            )


class OutOfOrderAggregator(Protocol):
    """What every out-of-order SWAG in swagkit offers (and what the out-of-order debug mode needs)."""

    def insert(self, time: Any, value: Any) -> None: ...
    def evict(self) -> None: ...
    def remove(self, time: Any) -> None: ...
    def bulk_evict(self, time: Any) -> int: ...
    def bulk_insert(self, pairs: Iterable[tuple[Any, Any]]) -> None: ...
    def query(self) -> Any: ...
    def range_query(self, t_from: Any, t_to: Any) -> Any: ...
    def oldest(self) -> Any: ...
    def youngest(self) -> Any: ...
    def __len__(self) -> int: ...


class TimedWindow(Generic[In, Agg, Out]):
    """The out-of-order timestamped window as an executable model: a sorted map folded in time order.

    >>> from swagkit.spec.library import string_concat
    >>> w = TimedWindow(string_concat())
    >>> w.insert(5, "c"); w.insert(1, "a"); w.insert(3, "b"); w.insert(3, "B")
    >>> w.query(), w.range_query(2, 5), w.bulk_evict(3), w.query()
    ('abBc', 'bBc', 2, 'c')
    """

    def __init__(self, monoid: Monoid[In, Agg, Out]) -> None:
        self.monoid = monoid
        self._times: list[Any] = []
        self._values: list[Agg] = []

    # ------------------------------------------------------------------------------------------------ updates

    def insert(self, time: Any, value: In) -> None:
        """Insert ``value`` (lifted) at ``time``; at an existing time the stored value becomes ``old ⊗ new``."""
        check_time(time)
        v = self.monoid.lift(value)
        k = bisect_left(self._times, time)
        if k < len(self._times) and self._times[k] == time:
            self._values[k] = self.monoid.combine(self._values[k], v)
        else:
            self._times.insert(k, time)
            self._values.insert(k, v)

    def evict(self) -> None:
        """Remove the oldest entry (:class:`EmptyWindowError` when empty)."""
        if not self._times:
            raise EmptyWindowError("evict() on an empty window")
        del self._times[0]
        del self._values[0]

    def remove(self, time: Any) -> None:
        """Remove the entry at ``time`` (:class:`MissingTimeError` when there is none)."""
        k = bisect_left(self._times, time)
        if k == len(self._times) or self._times[k] != time:
            raise MissingTimeError(f"remove({time!r}): no entry has this timestamp")
        del self._times[k]
        del self._values[k]

    def bulk_evict(self, time: Any) -> int:
        """Remove every entry with timestamp ``≤ time``; return how many were removed."""
        k = bisect_right(self._times, time)
        del self._times[:k]
        del self._values[:k]
        return k

    def bulk_insert(self, pairs: Iterable[tuple[Any, In]]) -> None:
        """``for t, v in pairs: insert(t, v)`` after checking the whole bulk: times non-decreasing
        (:class:`UnorderedBulkError`) and every value liftable -- a bad bulk changes nothing, nor does a ⊗ that
        raises (the bulk is applied to copies, committed at the end)."""
        items = [(t, v) for t, v in pairs]
        check_bulk_order([t for t, _ in items])
        lifted = [(t, self.monoid.lift(v)) for t, v in items]
        times, values = list(self._times), list(self._values)
        for t, v in lifted:
            k = bisect_left(times, t)
            if k < len(times) and times[k] == t:
                values[k] = self.monoid.combine(values[k], v)
            else:
                times.insert(k, t)
                values.insert(k, v)
        self._times, self._values = times, values

    # ------------------------------------------------------------------------------------------------ queries

    def _fold(self, lo: int, hi: int) -> Agg:
        acc = self.monoid.identity
        for k in range(lo, hi):
            acc = self._values[k] if k == lo else self.monoid.combine(acc, self._values[k])
        return acc

    def aggregate(self) -> Agg:
        """The unlowered fold of the window in time order (``identity`` when empty)."""
        return self._fold(0, len(self._values))

    def query(self) -> Out:
        """``lower`` of the fold of all values in time order."""
        return self.monoid.lower(self.aggregate())

    def range_aggregate(self, t_from: Any, t_to: Any) -> Agg:
        """The unlowered fold of the values with ``t_from ≤ time ≤ t_to``."""
        lo = bisect_left(self._times, t_from)
        hi = bisect_right(self._times, t_to)
        return self._fold(lo, max(lo, hi))

    def range_query(self, t_from: Any, t_to: Any) -> Out:
        """``lower`` of the fold of the values with ``t_from ≤ time ≤ t_to`` (inclusive at both ends)."""
        return self.monoid.lower(self.range_aggregate(t_from, t_to))

    def oldest(self) -> Any:
        """The smallest timestamp (:class:`EmptyWindowError` when empty)."""
        if not self._times:
            raise EmptyWindowError("oldest() on an empty window")
        return self._times[0]

    def youngest(self) -> Any:
        """The largest timestamp (:class:`EmptyWindowError` when empty)."""
        if not self._times:
            raise EmptyWindowError("youngest() on an empty window")
        return self._times[-1]

    def __contains__(self, time: Any) -> bool:
        k = bisect_left(self._times, time)
        return k < len(self._times) and self._times[k] == time

    def times(self) -> list[Any]:
        """The timestamps, oldest first."""
        return list(self._times)

    def items(self) -> list[tuple[Any, Agg]]:
        """``(time, lifted value)`` pairs, oldest first."""
        return list(zip(self._times, self._values))

    def values(self) -> list[Agg]:
        """The lifted values, oldest first."""
        return list(self._values)

    def __len__(self) -> int:
        return len(self._times)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
