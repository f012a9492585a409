"""Executable model of the non-FIFO window of the Reactive Aggregator (paper 002 §1, §2.2, §5.1).

With removals by handle the window is no longer a queue: it is the **ordered multiset of live elements in
insertion (arrival) order**. New elements always go to the young end; ``evict()`` removes the oldest live
element; ``remove(handle)`` removes any live element. ``query()`` folds the live elements in arrival order
(paper 002: "RA's window order is always arrival order" -- never timestamp order, see the notes' P22).

Handles are insertion sequence numbers: the k-th insert of an aggregator (0-based, counting every insert,
whichever method did it) gets handle ``k``. A handle is valid while its element is live; a removed, evicted or
never issued handle raises :class:`InvalidHandleError` and changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Generic, TypeVar

from .errors import EmptyWindowError, SwagkitError
from .monoid import Monoid

In = TypeVar("In")
Agg = TypeVar("Agg")
Out = TypeVar("Out")

__all__ = ["Handle", "InvalidHandleError", "OrderedMultisetWindow"]

#: A handle: the insertion sequence number of an element (0, 1, 2, … per aggregator).
Handle = int


class InvalidHandleError(SwagkitError, KeyError):
    """``remove(handle)`` with a handle that is not live (already removed or evicted, or never issued).

    A subclass of :class:`KeyError`, like deleting a missing dict key. The window is unchanged."""

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else ""


class OrderedMultisetWindow(Generic[In, Agg, Out]):
    """The non-FIFO window ADT as an executable model: live ``(handle, lifted value)`` pairs in arrival order.

    Recompute from scratch: ``query`` costs n−1 combines, updates O(n) list operations.

    >>> from swagkit.spec.library import string_concat
    >>> w = OrderedMultisetWindow(string_concat())
    >>> h = [w.insert_with_handle(c) for c in "abcd"]
    >>> w.remove(h[1]); w.evict(); w.query()
    'cd'
    """

    def __init__(self, monoid: Monoid[In, Agg, Out]) -> None:
        self.monoid = monoid
        self._items: list[tuple[Handle, Agg]] = []
        self._next: Handle = 0

    def insert_with_handle(self, value: In) -> Handle:
        """Append ``value`` (lifted) at the young end; return its handle."""
        v = self.monoid.lift(value)
        h = self._next
        self._items.append((h, v))
        self._next += 1
        return h

    def insert(self, value: In) -> None:
        """Like :meth:`insert_with_handle`, returning nothing (the FIFO API)."""
        self.insert_with_handle(value)

    def insert_many(self, values: Iterable[In]) -> None:
        for v in values:
            self.insert_with_handle(v)

    def evict(self) -> None:
        """Remove the oldest live element (:class:`EmptyWindowError` when empty)."""
        if not self._items:
            raise EmptyWindowError("evict() on an empty window")
        del self._items[0]

    def evict_many(self, count: int) -> None:
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > len(self._items):
            raise EmptyWindowError(f"evict_many({count}) on a window of {len(self._items)}")
        del self._items[:count]

    def remove(self, handle: Handle) -> None:
        """Remove the live element with ``handle`` (:class:`InvalidHandleError` when it is not live)."""
        for k, (h, _) in enumerate(self._items):
            if h == handle:
                del self._items[k]
                return
        raise InvalidHandleError(f"remove({handle!r}): no live element has this handle")

    @property
    def next_handle(self) -> Handle:
        """The handle the next insertion will return."""
        return self._next

    def oldest_handle(self) -> Handle:
        if not self._items:
            raise EmptyWindowError("oldest_handle() on an empty window")
        return self._items[0][0]

    def handles(self) -> list[Handle]:
        """Handles of the live elements, oldest first."""
        return [h for h, _ in self._items]

    def values(self) -> list[Agg]:
        """The lifted live elements, oldest first."""
        return [v for _, v in self._items]

    def aggregate(self) -> Agg:
        acc = self.monoid.identity
        first = True
        for _, v in self._items:
            acc = v if first else self.monoid.combine(acc, v)
            first = False
        return acc

    def query(self) -> Out:
        """``lower`` of the live elements folded in arrival order (``lower(identity)`` when empty)."""
        return self.monoid.lower(self.aggregate())

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
