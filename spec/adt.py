"""Executable models of the abstract data types (recompute from scratch).

* :class:`FifoSwag` is the first-in first-out SWAG ADT of paper 000 §2.1, implemented the obvious way: keep the
  lifted window and fold it on every query. It is the oracle every algorithm is compared with, and it is also
  the algorithm ``recalc`` (000 §8.1, "Recalculate-from-scratch": O(n) combines per query, n stored values).
* :class:`TimestampedWindow` adds event time to any FIFO aggregator (000 §7.3): oldest/youngest timestamps
  and "evict while older than a bound", rejecting out-of-order timestamps.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, Generic, Protocol, TypeVar

from .errors import EmptyWindowError, OutOfOrderError
from .monoid import Monoid, as_monoid
from .snapshots import RecalcState

In = TypeVar("In")
Agg = TypeVar("Agg")
Out = TypeVar("Out")

__all__ = ["FifoSwag", "FifoAggregator", "TimestampedWindow"]


class FifoAggregator(Protocol):
    """What every in-order SWAG in swagkit offers (and what :func:`swagkit.verify.checked` needs)."""

    def insert(self, value: Any) -> None: ...
    def evict(self) -> None: ...
    def query(self) -> Any: ...
    def __len__(self) -> int: ...


class FifoSwag(Generic[In, Agg, Out]):
    """The FIFO SWAG ADT as an executable model (paper 000 §2.1).

    ``query()`` returns ``lower(v0 ⊗ v1 ⊗ … ⊗ v(n-1))`` for the lifted window ``v0..v(n-1)`` in arrival order,
    and ``lower(1)`` for the empty window. ``insert`` and ``evict`` cost O(1); ``query`` costs n-1 combines.

    >>> from swagkit.spec.library import string_concat
    >>> w = FifoSwag(string_concat())
    >>> for ch in "abc": w.insert(ch)
    >>> w.evict(); w.query()
    'bc'
    """

    algorithm = "recalc"

    def __init__(self, monoid: Monoid[In, Agg, Out]) -> None:
        self.monoid = as_monoid(monoid, self.algorithm)
        self.combine_count = 0
        self._values: deque[Agg] = deque()

    def insert(self, value: In) -> None:
        """Append ``value`` (lifted) at the young end. O(1), no combine."""
        self._values.append(self.monoid.lift(value))

    def evict(self) -> None:
        """Remove the oldest value. O(1). Raises :class:`EmptyWindowError` on an empty window."""
        if not self._values:
            raise EmptyWindowError("evict() on an empty window")
        self._values.popleft()

    def aggregate(self) -> Agg:
        """The unlowered ordered product (``identity`` when empty). n-1 combines."""
        values = iter(self._values)
        acc = next(values, self.monoid.identity)
        combine = self.monoid.combine
        for v in values:
            acc = combine(acc, v)
            self.combine_count += 1
        return acc

    def query(self) -> Out:
        """``lower`` of the ordered product of the window."""
        return self.monoid.lower(self.aggregate())

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (all lifted first: a refused value changes nothing)."""
        self._values.extend([self.monoid.lift(v) for v in values])

    def evict_many(self, count: int) -> None:
        """Evict ``count`` oldest values; raises :class:`EmptyWindowError` (evicting nothing) if fewer are held,
        ``TypeError``/``ValueError`` for a count that is not a non-negative integer."""
        if isinstance(count, bool) or not hasattr(type(count), "__index__"):
            raise TypeError(f"evict_many: count must be an int, got {type(count).__name__}")
        count = count.__index__()
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > len(self._values):
            raise EmptyWindowError(f"evict_many({count}) on a window of {len(self._values)}")
        for _ in range(count):
            self._values.popleft()

    def values(self) -> list[Agg]:
        """The lifted window contents, oldest first."""
        return list(self._values)

    def snapshot(self) -> RecalcState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers`."""
        return RecalcState(values=tuple(self._values))

    def __copy__(self) -> FifoSwag[In, Agg, Out]:
        """An independent window sharing the monoid and the values (the default copy would share the deque)."""
        twin = type(self)(self.monoid)
        twin._values = deque(self._values)
        twin.combine_count = self.combine_count
        return twin

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


class TimestampedWindow:
    """Event-time window over any FIFO aggregator (paper 000 §7.3).

    Timestamps must be non-decreasing: an older timestamp than the youngest raises :class:`OutOfOrderError`
    and changes nothing. ``evict_older_than(bound)`` evicts every entry with timestamp ``< bound``.

    >>> from swagkit.spec.library import sum_monoid
    >>> w = TimestampedWindow(FifoSwag(sum_monoid()))
    >>> w.insert(1.0, 5); w.insert(2.5, 7); w.insert(4.0, 1)
    >>> w.evict_older_than(2.0), w.query(), w.oldest(), w.youngest()
    (1, 8, 2.5, 4.0)
    """

    def __init__(self, aggregator: FifoAggregator) -> None:
        if isinstance(aggregator, Monoid):
            raise TypeError(
                "TimestampedWindow wraps a FIFO aggregator, not a monoid: TimestampedWindow(DABALite(monoid)) "
                "or TimestampedWindow(FifoSwag(monoid))"
            )
        if len(aggregator) != 0:
            raise ValueError("TimestampedWindow needs an empty aggregator (its timestamps would be unknown)")
        self.aggregator = aggregator
        self._times: deque[Any] = deque()

    def insert(self, time: Any, value: Any) -> None:
        """Insert ``value`` stamped ``time``; ``time`` must not be older than :meth:`youngest`."""
        if self._times and time < self._times[-1]:
            raise OutOfOrderError(f"timestamp {time!r} is older than the youngest in the window ({self._times[-1]!r})")
        self.aggregator.insert(value)  # may raise (bad value) before the timestamp is recorded
        self._times.append(time)

    def evict(self) -> None:
        """Evict the oldest entry."""
        if not self._times:
            raise EmptyWindowError("evict() on an empty window")
        self.aggregator.evict()
        self._times.popleft()

    def evict_older_than(self, bound: Any) -> int:
        """Evict every entry whose timestamp is ``< bound``; return how many were evicted."""
        evicted = 0
        while self._times and self._times[0] < bound:
            self.evict()
            evicted += 1
        return evicted

    def oldest(self) -> Any:
        """Timestamp of the oldest entry (:class:`EmptyWindowError` when empty)."""
        if not self._times:
            raise EmptyWindowError("oldest() on an empty window")
        return self._times[0]

    def youngest(self) -> Any:
        """Timestamp of the youngest entry (:class:`EmptyWindowError` when empty)."""
        if not self._times:
            raise EmptyWindowError("youngest() on an empty window")
        return self._times[-1]

    def times(self) -> Sequence[Any]:
        """The timestamps, oldest first."""
        return tuple(self._times)

    def query(self) -> Any:
        """The aggregator's query."""
        return self.aggregator.query()

    def __len__(self) -> int:
        return len(self._times)
