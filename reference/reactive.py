"""Reactive Aggregator (paper 002 §5; reference pseudocode: notes §3.8, explicit-⊥ mode).

The lifted window lives in the leaves of a :class:`~swagkit.reference.flatfat.FlatFAT` used as a circular
buffer: the oldest live element is at slot ``F``, the buffer spans ``span`` slots circularly (live elements and
holes), empty slots hold the identity ⊥. New elements always go to the slot after the buffer (never into holes:
window order is arrival order). The answer is the root when the buffer does not wrap, and
``suffix(F) ⊕ prefix(B)`` when it does (``B = (F + span − 1) mod capacity``, suffix first: notes P2/P3). It is
computed by full leaf-to-root walks on every query -- the C++ reference's "second query while inverted"
bug (notes P27) cannot happen.

Policy (002 §5.1.1, notes P8/P9): the capacity is a power of two ``≥ min_capacity`` (default 2). When an
element arrives and the buffer is full (``span = capacity``, holes possible): if ``4·size > 3·capacity`` double
the capacity, else compact (same capacity); both rebuild the tree from the live elements read circularly from
``F`` (window order, P6), so afterwards ``F = 0`` and there are no holes. After removals, while ``capacity >
min_capacity`` and ``4·size < capacity`` halve (one rebuild to the final capacity). Pointers (P23): after a
removal ``F`` moves forward to the next live slot and the buffer's end back to the previous live one; an empty
buffer has ``F = span = 0``.

Non-FIFO (002 §2.2): ``insert_with_handle(value)`` returns a :data:`~swagkit.spec.nonfifo.Handle` (the
insertion sequence number: the k-th insert gets ``k``), ``remove(handle)`` removes that live element wherever it
is; ``evict()`` removes the oldest live element. The ADT is :class:`~swagkit.spec.nonfifo.OrderedMultisetWindow`.

Batches (002 §2.3): ``insert_many``, ``evict_many``, ``remove_many`` and ``batch(events)`` write leaves eagerly
and propagate once at the end over the *distinct* slots written (a slot written twice in one batch -- evict
then insert into a full wrapped buffer, insert then remove -- keeps the last write; notes P4), so a batch
writing ``m`` distinct slots costs at most ``m·(1 + ⌈log2(capacity/m)⌉)`` combines plus rebuilds. A rebuild in
the middle of a batch starts from the leaves, which already hold every pending write (P5).

Complexity (⊕ calls, capacity C ≤ max(min_capacity, 4n)): query 0 (not wrapped) or ≤ 2·log2 C + 1;
insert/evict/remove log2 C, plus a rebuild of ≤ 2C − 1 when the capacity changes or the buffer is compacted
(amortized O(1) per event, §5.1.1). Space: the tree's 2C − 1 nodes.
"""

from __future__ import annotations

from typing import Any, Iterable

from swagkit.spec.errors import EmptyWindowError, SwagkitError
from swagkit.spec.monoid import Monoid
from swagkit.spec.nonfifo import Handle, InvalidHandleError
from swagkit.spec.snapshots import ReactiveState

from .flatfat import FlatFAT, is_power_of_two

__all__ = ["ReactiveAggregator", "FifoReactiveAggregator", "MIN_CAPACITY"]

#: default ``min_capacity`` (the C++ reference starts at 2; notes P9)
MIN_CAPACITY = 2


class ReactiveAggregator:
    """Reactive Aggregator SWAG (id ``reactive``; paper 002 §5): O(log n) ⊕ per event, non-FIFO removal.

    FIFO API of the in-order family (``insert``, ``evict``, ``query``, ``len``, ``insert_many``,
    ``evict_many``, ``snapshot``, ``combine_count``, ``monoid``, ``algorithm``) plus handles:
    ``insert_with_handle(value) -> Handle``, ``remove(handle)``, ``remove_many(handles)``, ``handles()``, and
    ``batch(events)``. ``capacity`` is the current number of leaves.
    """

    algorithm = "reactive"

    def __init__(self, monoid: Monoid[Any, Any, Any], min_capacity: int = MIN_CAPACITY) -> None:
        if type(min_capacity) is not int or not is_power_of_two(min_capacity):
            raise ValueError(f"reactive: min_capacity must be a power of two ≥ 1, got {min_capacity!r}")
        self.monoid = monoid
        self.min_capacity = min_capacity
        self._lift = monoid.lift
        self._one: Any = monoid.identity
        self.fat = FlatFAT(monoid, (), 1)
        self.fat._clear(min_capacity)  # the empty tree: all ⊥, no combine
        self.F = 0
        self.span = 0
        self.size = 0
        self.slot_handle: list[Handle | None] = [None] * min_capacity
        self.where: dict[Handle, int] = {}
        self.next_handle: Handle = 0
        #: set while an update runs its ⊕ steps; stays set if a combine raised half-way
        self._broken = False

    # ---------------------------------------------------------------------------------------------- counting

    @property
    def combine_count(self) -> int:
        """Number of ⊕ invocations so far (identity operands included)."""
        return self.fat.combine_count

    @combine_count.setter
    def combine_count(self, value: int) -> None:
        self.fat.combine_count = value

    @property
    def capacity(self) -> int:
        """Current number of leaves (a power of two ``≥ min_capacity``)."""
        return self.fat.n

    # ------------------------------------------------------------------------------------------- primitives

    def _check_usable(self) -> None:
        if self._broken or self.fat._broken:
            raise SwagkitError(
                "reactive: a combine call raised during an earlier update; the aggregator is inconsistent and can "
                "no longer be updated"
            )

    def _rebuild(self, capacity: int) -> None:
        """Compact (same capacity) or resize: rebuild the tree from the live leaves read circularly from ``F``
        (window order), so ``F = 0`` and there are no holes. ``capacity − 1`` combines."""
        cap = self.fat.n
        leaves = self.fat.T
        vals: list[Any] = []
        hs: list[Handle] = []
        for k in range(self.span):
            slot = (self.F + k) % cap
            h = self.slot_handle[slot]
            if h is not None:
                vals.append(leaves[cap + slot])
                hs.append(h)
        self.fat._build(vals, capacity)
        self.slot_handle = [None] * capacity
        self.where = {}
        for slot, h in enumerate(hs):
            self.slot_handle[slot] = h
            self.where[h] = slot
        self.F = 0
        self.span = len(hs)

    def _put(self, v: Any, dirty: set[int]) -> Handle:
        """Append the lifted ``v`` after the buffer (compacting or doubling first when it is full)."""
        cap = self.fat.n
        if self.span == cap:
            self._rebuild(2 * cap if 4 * self.size > 3 * cap else cap)
            dirty.clear()
            cap = self.fat.n
        slot = (self.F + self.span) % cap
        h = self.next_handle
        self.next_handle += 1
        self.fat._write_leaf(slot, v)
        self.slot_handle[slot] = h
        self.where[h] = slot
        self.span += 1
        self.size += 1
        dirty.add(slot)
        return h

    def _take(self, slot: int, dirty: set[int]) -> None:
        """Remove the live element of ``slot`` (its leaf becomes ⊥) and move the buffer's ends past holes."""
        cap = self.fat.n
        h = self.slot_handle[slot]
        assert h is not None
        self.slot_handle[slot] = None
        del self.where[h]
        self.fat._write_leaf(slot, self._one)
        self.size -= 1
        dirty.add(slot)
        if self.size == 0:
            self.F = 0
            self.span = 0
            return
        sh = self.slot_handle
        while sh[self.F] is None:
            self.F = (self.F + 1) % cap
            self.span -= 1
        while sh[(self.F + self.span - 1) % cap] is None:
            self.span -= 1

    def _finish(self, dirty: set[int]) -> None:
        """End of a batch: halve while under 1/4 full (one rebuild), else propagate the distinct dirty slots."""
        target = cap = self.fat.n
        while target > self.min_capacity and 4 * self.size < target:
            target //= 2
        if target != cap:
            self._rebuild(target)
        elif dirty:
            self.fat._propagate(dirty)
        dirty.clear()

    # ------------------------------------------------------------------------------------------ FIFO API

    def query(self) -> Any:
        """The window's aggregate in arrival order, lowered: the root when the buffer does not wrap (0 ⊕),
        ``suffix(F) ⊕ prefix(B)`` when it does (≤ 2·log2 capacity + 1 ⊕)."""
        cap = self.fat.n
        if self.F + self.span <= cap:
            return self.monoid.lower(self.fat.T[1])
        back = (self.F + self.span - 1) % cap
        s = self.fat.suffix(self.F)
        p = self.fat.prefix(back)
        return self.monoid.lower(self.fat._otimes(s, p))

    def insert(self, value: Any) -> None:
        """Append ``value`` (lifted first: a bad value changes nothing). log2 C ⊕, plus a rebuild when full."""
        self.insert_with_handle(value)

    def insert_with_handle(self, value: Any) -> Handle:
        """:meth:`insert`, returning the new element's handle (its insertion sequence number)."""
        self._check_usable()
        v = self._lift(value)
        dirty: set[int] = set()
        self._broken = True
        h = self._put(v, dirty)
        self._finish(dirty)
        self._broken = False
        return h

    def evict(self) -> None:
        """Remove the oldest live element (:class:`EmptyWindowError` when empty). log2 C ⊕, or a halving."""
        if self.size == 0:
            raise EmptyWindowError("reactive: evict() on an empty window")
        self._check_usable()
        dirty: set[int] = set()
        self._broken = True
        self._take(self.F, dirty)
        self._finish(dirty)
        self._broken = False

    def remove(self, handle: Handle) -> None:
        """Remove the live element ``handle`` (non-FIFO eviction; :class:`InvalidHandleError` when it is not
        live, changing nothing). log2 C ⊕, or a halving."""
        slot = self.where.get(handle) if type(handle) is int else None
        if slot is None:
            raise InvalidHandleError(f"reactive: remove({handle!r}): no live element has this handle")
        self._check_usable()
        dirty: set[int] = set()
        self._broken = True
        self._take(slot, dirty)
        self._finish(dirty)
        self._broken = False

    def __len__(self) -> int:
        return self.size

    def insert_many(self, values: Iterable[Any]) -> None:
        """Insert ``values`` in order as one batch (all lifted first: a bad value inserts nothing); one
        propagation over the distinct slots written."""
        self.insert_many_with_handles(values)

    def insert_many_with_handles(self, values: Iterable[Any]) -> list[Handle]:
        """:meth:`insert_many`, returning the new handles in order."""
        self._check_usable()
        lift = self._lift
        vs = [lift(x) for x in values]
        dirty: set[int] = set()
        self._broken = True
        hs = [self._put(v, dirty) for v in vs]
        self._finish(dirty)
        self._broken = False
        return hs

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest live elements as one batch. Raises :class:`EmptyWindowError` (evicting
        nothing) when fewer than ``count`` are held and ``ValueError`` for a negative count."""
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.size:
            raise EmptyWindowError(f"reactive: evict_many({count}) on a window of {self.size}")
        self._check_usable()
        dirty: set[int] = set()
        self._broken = True
        for _ in range(count):
            self._take(self.F, dirty)
        self._finish(dirty)
        self._broken = False

    def remove_many(self, handles: Iterable[Handle]) -> None:
        """Remove the live elements ``handles`` as one batch. Every handle must be live and given once, else
        :class:`InvalidHandleError` and nothing changes."""
        hs = list(handles)
        seen: set[Handle] = set()
        for h in hs:
            if type(h) is not int or h not in self.where or h in seen:
                raise InvalidHandleError(f"reactive: remove_many: handle {h!r} is not live (or given twice)")
            seen.add(h)
        self._check_usable()
        dirty: set[int] = set()
        self._broken = True
        for h in hs:
            self._take(self.where[h], dirty)
        self._finish(dirty)
        self._broken = False

    def batch(self, events: Iterable[tuple[Any, ...]]) -> list[Handle | None]:
        """Apply ``events`` in order as one batch and propagate once (002 §2.3: insert/evict events, then the
        trigger). Events: ``("insert", value)``, ``("evict",)``, ``("remove", handle)``. Returns, per event,
        the new handle of an insert and ``None`` otherwise. Slots written twice keep the last write.

        A bad event (unknown kind, bad value, evict on empty, dead handle) raises after the events before it
        were applied (and propagated), like a prefix of the batch."""
        self._check_usable()
        out: list[Handle | None] = []
        dirty: set[int] = set()
        try:
            for ev in events:
                kind = ev[0] if isinstance(ev, tuple) and ev else None
                if kind == "insert" and len(ev) == 2:
                    v = self._lift(ev[1])
                    self._broken = True
                    out.append(self._put(v, dirty))
                elif kind == "evict" and len(ev) == 1:
                    if self.size == 0:
                        raise EmptyWindowError("reactive: batch: evict on an empty window")
                    self._broken = True
                    self._take(self.F, dirty)
                    out.append(None)
                elif kind == "remove" and len(ev) == 2:
                    slot = self.where.get(ev[1]) if type(ev[1]) is int else None
                    if slot is None:
                        raise InvalidHandleError(f"reactive: batch: remove({ev[1]!r}): no live element has this handle")
                    self._broken = True
                    self._take(slot, dirty)
                    out.append(None)
                else:
                    raise ValueError(f"reactive: batch: bad event {ev!r}")
        finally:
            if not self.fat._broken:  # (a combine that raised leaves the aggregator refusing updates)
                self._broken = True
                self._finish(dirty)
                self._broken = False
        return out

    def handles(self) -> list[Handle]:
        """Handles of the live elements, oldest first."""
        cap = self.fat.n
        out: list[Handle] = []
        for k in range(self.span):
            h = self.slot_handle[(self.F + k) % cap]
            if h is not None:
                out.append(h)
        return out

    def snapshot(self) -> ReactiveState:
        return ReactiveState(
            capacity=self.fat.n,
            nodes=tuple(self.fat.T),
            handles=tuple(self.slot_handle),
            F=self.F,
            span=self.span,
            size=self.size,
            min_capacity=self.min_capacity,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


class FifoReactiveAggregator:
    """The FIFO optimization of the Reactive Aggregator (paper 002 §5.2; notes §3.4), reference only.

    With FIFO eviction the buffer ``[F, F + size)`` (circular) has no holes, so no ⊥ is stored: evicted leaves
    keep stale values and the occupied range is "baked into the update algorithm" by the **masked combine** --
    a node whose two children both intersect the occupied range O gets ``T[2h] ⊕ T[2h+1]``, one that meets O
    only through one child copies that child (no ⊕), one that misses O is left alone. Invariant: every node ``h``
    with ``R(h) ∩ O ≠ ∅`` holds the fold of the occupied leaves of ``R(h)`` in index order
    (:func:`swagkit.spec.checkers.reactive.check_reactive_masked`). The inverted query ``suffix(F) ⊕ prefix(B)``
    reads only nodes inside O. Same capacity policy as :class:`ReactiveAggregator` in FIFO use (full means
    ``size = capacity``, then double; halve below 1/4), so it never needs compaction; it uses at most as many ⊕
    as the explicit-⊥ version, operation by operation (tested differentially). FIFO API only (no handles).
    """

    algorithm = "reactive_fifo"

    def __init__(self, monoid: Monoid[Any, Any, Any], min_capacity: int = MIN_CAPACITY) -> None:
        if type(min_capacity) is not int or not is_power_of_two(min_capacity):
            raise ValueError(f"reactive: min_capacity must be a power of two ≥ 1, got {min_capacity!r}")
        self.monoid = monoid
        self.min_capacity = min_capacity
        self._lift = monoid.lift
        self._combine = monoid.combine
        self._one: Any = monoid.identity
        self.combine_count = 0
        self.cap = min_capacity
        self.T: list[Any] = [self._one] * (2 * min_capacity)
        self.F = 0
        self.size = 0
        self.next_handle = 0

    def _otimes(self, a: Any, b: Any) -> Any:
        self.combine_count += 1
        return self._combine(a, b)

    def _meets(self, h: int, level: int) -> bool:
        """Whether node ``h`` (``level`` above the leaves) covers an occupied leaf."""
        if self.size == 0:
            return False
        lo = (h << level) - self.cap
        hi = lo + (1 << level) - 1
        back = (self.F + self.size - 1) % self.cap
        if self.F + self.size <= self.cap:
            return lo <= back and hi >= self.F
        return lo <= back or hi >= self.F

    def _masked(self, h: int, level: int) -> None:
        """The masked combine at node ``h`` (its children are at ``level − 1``)."""
        T = self.T
        il, ir = self._meets(2 * h, level - 1), self._meets(2 * h + 1, level - 1)
        if il and ir:
            T[h] = self._otimes(T[2 * h], T[2 * h + 1])
        elif il:
            T[h] = T[2 * h]
        elif ir:
            T[h] = T[2 * h + 1]

    def _walk(self, leaf: int) -> None:
        h, level = (self.cap + leaf) >> 1, 1
        while h >= 1:
            self._masked(h, level)
            h >>= 1
            level += 1

    def _rebuild(self, capacity: int) -> None:
        vals = [self.T[self.cap + (self.F + k) % self.cap] for k in range(self.size)]
        self.T = [self._one] * (2 * capacity)
        self.T[capacity : capacity + len(vals)] = vals
        self.cap = capacity
        self.F = 0
        top = capacity.bit_length() - 1
        for h in range(capacity - 1, 0, -1):
            self._masked(h, top - (h.bit_length() - 1))

    @property
    def capacity(self) -> int:
        return self.cap

    def query(self) -> Any:
        """Root when not wrapped (0 ⊕), else ``suffix(F) ⊕ prefix(B)`` (≤ 2·log2 capacity + 1 ⊕)."""
        if self.size == 0:
            return self.monoid.lower(self._one)
        if self.F + self.size <= self.cap:
            return self.monoid.lower(self.T[1])
        T = self.T
        h = self.cap + self.F
        s = T[h]
        while h > 1:
            if not h & 1:
                s = self._otimes(s, T[h + 1])
            h >>= 1
        h = self.cap + (self.F + self.size - 1) % self.cap
        p = T[h]
        while h > 1:
            if h & 1:
                p = self._otimes(T[h - 1], p)
            h >>= 1
        return self.monoid.lower(self._otimes(s, p))

    def insert(self, value: Any) -> None:
        v = self._lift(value)
        if self.size == self.cap:
            self._rebuild(2 * self.cap)
        slot = (self.F + self.size) % self.cap
        self.T[self.cap + slot] = v
        self.size += 1
        self.next_handle += 1
        self._walk(slot)

    def evict(self) -> None:
        if self.size == 0:
            raise EmptyWindowError("reactive_fifo: evict() on an empty window")
        old = self.F
        self.F = (self.F + 1) % self.cap
        self.size -= 1
        if self.size == 0:
            self.F = 0
        target = self.cap
        while target > self.min_capacity and 4 * self.size < target:
            target //= 2
        if target != self.cap:
            self._rebuild(target)
        else:
            self._walk(old)

    def insert_many(self, values: Iterable[Any]) -> None:
        for v in values:
            self.insert(v)

    def evict_many(self, count: int) -> None:
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > self.size:
            raise EmptyWindowError(f"reactive_fifo: evict_many({count}) on a window of {self.size}")
        for _ in range(count):
            self.evict()

    def __len__(self) -> int:
        return self.size

    def snapshot(self) -> ReactiveState:
        """Nodes include stale values outside the occupied range; handles are those of the occupied slots."""
        handles: list[Handle | None] = [None] * self.cap
        first = self.next_handle - self.size
        for k in range(self.size):
            handles[(self.F + k) % self.cap] = first + k
        return ReactiveState(
            capacity=self.cap, nodes=tuple(self.T), handles=tuple(handles), F=self.F, span=self.size,
            size=self.size, min_capacity=self.min_capacity,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
