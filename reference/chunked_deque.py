"""A double-ended queue with pointers whose every operation is worst-case O(1) (paper 000, Definition 1).

Paper 000 writes its algorithms with *pointers* into a resizable deque: dereference (``*p``), assignment
through a pointer (``*p ← v``), comparison (``p = q``), increment and decrement (``p + 1``, ``p − 1``) and
pointer assignment. It notes these are worst-case O(1) "by implementing that queue using chunked arrays"
(Tangwongsan, Hirzel, Schneider 2015). Neither :class:`collections.deque` (O(n) indexing in the middle) nor a
doubling array (O(1) only amortized) gives that, hence this module.

Layout: a doubly linked list of fixed-size chunks. A pointer is an immutable ``(chunk, slot)`` pair, always
normalized so that ``0 ≤ slot < CHUNK``. The end pointer ("one past the youngest") is always representable
because ``push_back`` links the next chunk as soon as a chunk's last slot is written. Every chunk carries a
sequence number, so pointer differences and order (used only by snapshots and invariants, as the paper allows)
are O(1) too.

``pop_back`` (undoing a ``push_back``) lets an aggregator roll an insertion back when a later ``⊗`` of the same
operation raises. Copying and pickling go by contents (a flat list), never through the linked chunks, whose
recursive object graph would exceed the recursion limit for large deques.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

T = TypeVar("T")

CHUNK = 64

__all__ = ["ChunkedDeque", "Ptr", "CHUNK"]


class _Chunk:
    __slots__ = ("slots", "prev", "next", "seq")

    def __init__(self, seq: int, prev: _Chunk | None) -> None:
        self.slots: list[Any] = [None] * CHUNK
        self.prev = prev
        self.next: _Chunk | None = None
        self.seq = seq


class Ptr:
    """An iterator into a :class:`ChunkedDeque`: ``p + 1``, ``p - 1``, ``p == q`` are worst-case O(1)."""

    __slots__ = ("chunk", "slot")

    def __init__(self, chunk: _Chunk, slot: int) -> None:
        self.chunk = chunk
        self.slot = slot

    def __add__(self, step: int) -> Ptr:
        if step != 1:
            raise ValueError("pointers only move by one step at a time (paper 000, Definition 1)")
        if self.slot + 1 < CHUNK:
            return Ptr(self.chunk, self.slot + 1)
        nxt = self.chunk.next
        assert nxt is not None, "increment past the end pointer"
        return Ptr(nxt, 0)

    def __sub__(self, step: int) -> Ptr:
        if step != 1:
            raise ValueError("pointers only move by one step at a time (paper 000, Definition 1)")
        if self.slot > 0:
            return Ptr(self.chunk, self.slot - 1)
        prv = self.chunk.prev
        assert prv is not None, "decrement before the front pointer"
        return Ptr(prv, CHUNK - 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ptr) and self.chunk is other.chunk and self.slot == other.slot

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((id(self.chunk), self.slot))

    def position(self) -> int:
        """Absolute position (for snapshots and invariants only)."""
        return self.chunk.seq * CHUNK + self.slot

    def __repr__(self) -> str:
        return f"Ptr(@{self.position()})"


class ChunkedDeque(Generic[T]):
    """Deque of ``T`` with worst-case O(1) push_back, pop_front and pointer operations.

    >>> d: ChunkedDeque[str] = ChunkedDeque()
    >>> for ch in "abc": d.push_back(ch)
    >>> d.pop_front(); p = d.front(); d.get(p), d.get(p + 1), (p + 1) + 1 == d.end()
    ('b', 'c', True)
    """

    __slots__ = ("_head", "_head_slot", "_tail", "_tail_slot", "_len")

    def __init__(self) -> None:
        first = _Chunk(0, None)
        self._head = first
        self._head_slot = 0
        self._tail = first
        self._tail_slot = 0
        self._len = 0

    def front(self) -> Ptr:
        """Pointer to the oldest element (equals :meth:`end` when empty)."""
        return Ptr(self._head, self._head_slot)

    def end(self) -> Ptr:
        """Pointer one past the youngest element."""
        return Ptr(self._tail, self._tail_slot)

    def get(self, p: Ptr) -> T:
        """``*p``."""
        value: T = p.chunk.slots[p.slot]
        return value

    def set(self, p: Ptr, value: T) -> None:
        """``*p ← value``."""
        p.chunk.slots[p.slot] = value

    def push_back(self, value: T) -> None:
        """Append at the young end. Worst-case O(1): at most one fixed-size chunk is allocated."""
        tail = self._tail
        tail.slots[self._tail_slot] = value
        self._len += 1
        if self._tail_slot + 1 < CHUNK:
            self._tail_slot += 1
        else:
            nxt = _Chunk(tail.seq + 1, tail)
            tail.next = nxt
            self._tail = nxt
            self._tail_slot = 0

    def pop_back(self) -> None:
        """Remove the youngest element (undoes :meth:`push_back`). Worst-case O(1): a chunk that ``push_back``
        linked is unlinked again. Pointers to the removed element or past it are no longer valid."""
        if self._len == 0:
            raise IndexError("pop_back on an empty ChunkedDeque")
        if self._tail_slot > 0:
            self._tail_slot -= 1
        else:
            prv = self._tail.prev
            assert prv is not None
            prv.next = None
            self._tail = prv
            self._tail_slot = CHUNK - 1
        self._tail.slots[self._tail_slot] = None
        self._len -= 1

    def pop_front(self) -> None:
        """Remove the oldest element. Worst-case O(1): an emptied chunk is unlinked."""
        if self._len == 0:
            raise IndexError("pop_front on an empty ChunkedDeque")
        head = self._head
        head.slots[self._head_slot] = None  # drop the reference now, not when the chunk goes
        self._len -= 1
        if self._head_slot + 1 < CHUNK:
            self._head_slot += 1
        else:
            nxt = head.next
            assert nxt is not None
            nxt.prev = None
            self._head = nxt
            self._head_slot = 0

    def at(self, offset: int) -> Ptr:
        """Pointer ``F + offset`` for ``0 ≤ offset ≤ len`` (restoring snapshots; O(offset / CHUNK))."""
        if not 0 <= offset <= self._len:
            raise IndexError(f"offset {offset} outside 0..{self._len}")
        chunk, slot = self._head, self._head_slot + offset
        while slot >= CHUNK:
            nxt = chunk.next
            assert nxt is not None
            chunk, slot = nxt, slot - CHUNK
        return Ptr(chunk, slot)

    def offset(self, p: Ptr) -> int:
        """``p − F``: distance of ``p`` from the front (for snapshots and invariants)."""
        return p.position() - (self._head.seq * CHUNK + self._head_slot)

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[T]:
        p, end = self.front(), self.end()
        while p != end:
            yield self.get(p)
            p = p + 1

    def to_list(self) -> list[T]:
        """Contents, oldest first (O(n))."""
        return list(self)

    @classmethod
    def from_iterable(cls, values: Iterable[T]) -> ChunkedDeque[T]:
        """A deque holding ``values``, oldest first."""
        d: ChunkedDeque[T] = cls()
        for v in values:
            d.push_back(v)
        return d

    def __reduce__(self) -> tuple[Any, ...]:
        """Copy and pickle flat, by contents (the linked chunks would recurse once per chunk)."""
        return (_rebuild, (type(self), self.to_list()))


def _rebuild(cls: Any, values: list[Any]) -> Any:
    return cls.from_iterable(values)
