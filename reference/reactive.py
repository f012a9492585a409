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

Exception safety: *strong*, for both classes. Every operation -- a single event, a batch of 002 §2.3
(``insert_many``, ``evict_many``, ``remove_many``, one operation of the paper: one propagation), a compaction or
resize -- either completes or leaves the aggregator exactly as before it (leaves, nodes, handles, pointers,
capacity, the next handle): rebuilds build the new tree aside and install it only when its last ⊕ has returned,
the propagation keeps the nodes it overwrites (see :class:`~swagkit.reference.flatfat.FlatFAT`), and the
aggregator journals the leaf slots and bookkeeping an operation changes and puts them back if a ``combine``
raises (or Ctrl-C arrives inside it). ``batch(events)`` keeps its documented prefix semantics for a *bad event*
(the events before it stay applied and propagated); a ``combine`` that raises undoes the whole batch. Bad
values, handles and counts are refused before anything changes. Re-entrant or concurrent calls raise
:class:`~swagkit.spec.errors.ReentrantCallError` before any change (the structures are not thread-safe); copies
and pickles go by snapshot (plus the next handle, which a snapshot of an empty window does not show).
Capacities are checked against :data:`~swagkit.reference.flatfat.MAX_CAPACITY` before anything is allocated
(``OverflowError``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.monoid import Monoid, as_monoid
from swagkit.spec.nonfifo import Handle, InvalidHandleError
from swagkit.spec.snapshots import ReactiveState

from ._guard import Guarded, check_count, guarded
from .flatfat import MAX_CAPACITY, FlatFAT, check_capacity

__all__ = ["ReactiveAggregator", "FifoReactiveAggregator", "MIN_CAPACITY"]

#: default ``min_capacity`` (the C++ reference starts at 2; notes P9)
MIN_CAPACITY = 2

R = TypeVar("R")


def as_handle(h: Any) -> int | None:
    """``h`` as a handle (an int, or a numpy integer through ``__index__``; not a bool), else None."""
    if type(h) is int:
        return h
    if isinstance(h, bool) or not hasattr(type(h), "__index__"):
        return None
    return int(h.__index__())


def grown(cap: int, algorithm: str) -> int:
    """``2·cap``, checked against :data:`MAX_CAPACITY` before anything is allocated."""
    if 2 * cap > MAX_CAPACITY:
        raise OverflowError(f"{algorithm}: cannot grow beyond {MAX_CAPACITY} leaves")
    return 2 * cap


def check_reactive_snapshot(snapshot: ReactiveState, algorithm: str) -> tuple[int, int, list[int | None]]:
    """The shape of a :class:`ReactiveState` (both implementations' ``_from_snapshot``): capacities, lengths,
    pointers, live handles increasing along the buffer from F. Returns ``(capacity, min_capacity, handles)``;
    raises ``ValueError``/``TypeError``/``OverflowError``."""
    cap = check_capacity(snapshot.capacity, "capacity", algorithm)
    minc = check_capacity(snapshot.min_capacity, "min_capacity", algorithm)
    if len(snapshot.nodes) != 2 * cap:
        raise ValueError(f"{algorithm}: a snapshot of capacity {cap} has {2 * cap} nodes, got {len(snapshot.nodes)}")
    handles: list[int | None] = []
    for h in snapshot.handles:
        k = as_handle(h) if h is not None else None
        if h is not None and (k is None or k < 0):
            raise TypeError(f"{algorithm}: a snapshot's handles are ints ≥ 0 or None, got {h!r}")
        handles.append(k)
    if len(handles) != cap:
        raise ValueError(f"{algorithm}: a snapshot of capacity {cap} has {cap} handles, got {len(handles)}")
    F, span, size = snapshot.F, snapshot.span, snapshot.size
    if any(type(x) is not int for x in (F, span, size)) or not (0 <= F < cap and 0 <= size <= span <= cap):
        raise ValueError(f"{algorithm}: bad snapshot pointers F={F!r}, span={span!r}, size={size!r}")
    live = [handles[(F + k) % cap] for k in range(span)]
    seq = [h for h in live if h is not None]
    if len(seq) != size or sum(h is not None for h in handles) != size:
        raise ValueError(f"{algorithm}: a snapshot's size {size} is not the number of live handles in its buffer")
    if size and (live[0] is None or live[-1] is None):
        raise ValueError(f"{algorithm}: a snapshot's buffer must start and end at live slots")
    if size == 0 and (F != 0 or span != 0):
        raise ValueError(f"{algorithm}: an empty snapshot has F = span = 0")
    if any(a >= b for a, b in zip(seq, seq[1:])):
        raise ValueError(f"{algorithm}: a snapshot's handles must increase along the buffer")
    return cap, minc, handles


class _Undo:
    """What an operation of :class:`ReactiveAggregator` changes, to put back if a ``combine`` raises: the
    containers and pointers at its start, and the first old value of each leaf slot it writes there."""

    __slots__ = ("T", "n", "sh", "where", "F", "span", "size", "next_handle", "saved")

    def __init__(self, agg: ReactiveAggregator) -> None:
        self.T = agg.fat.T
        self.n = agg.fat.n
        self.sh = agg.slot_handle
        self.where = agg.where
        self.F = agg.F
        self.span = agg.span
        self.size = agg.size
        self.next_handle = agg.next_handle
        self.saved: dict[int, tuple[Any, Handle | None]] = {}


class ReactiveAggregator(Guarded):
    """Reactive Aggregator SWAG (id ``reactive``; paper 002 §5): O(log n) ⊕ per event, non-FIFO removal.

    FIFO API of the in-order family (``insert``, ``evict``, ``query``, ``len``, ``insert_many``,
    ``evict_many``, ``snapshot``, ``combine_count``, ``monoid``, ``algorithm``) plus handles:
    ``insert_with_handle(value) -> Handle``, ``remove(handle)``, ``remove_many(handles)``, ``handles()``, and
    ``batch(events)``. ``capacity`` is the current number of leaves.

    Exception safety: *strong* -- a ``combine`` that raises during any operation (a walk, a batch's single
    propagation, a compaction or resize) leaves the aggregator exactly as before the operation; batches
    (``insert_many``, ``evict_many``, ``remove_many``) are one operation of 002 §2.3 and all-or-nothing as a
    whole. Not thread-safe: overlapping calls raise :class:`~swagkit.spec.errors.ReentrantCallError`.
    """

    algorithm = "reactive"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any], min_capacity: int = MIN_CAPACITY) -> None:
        monoid = as_monoid(monoid, self.algorithm)
        min_capacity = check_capacity(min_capacity, "min_capacity", "reactive")
        self.monoid = monoid
        self.min_capacity = min_capacity
        self._lift = monoid.lift
        self._one: Any = monoid.identity
        self._init_guard()
        self.fat = FlatFAT(monoid, (), 1)
        self.fat._clear(min_capacity)  # the empty tree: all ⊥, no combine
        self.F = 0
        self.span = 0
        self.size = 0
        self.slot_handle: list[Handle | None] = [None] * min_capacity
        self.where: dict[Handle, int] = {}
        self.next_handle: Handle = 0
        #: the journal of the running operation (None between operations)
        self._undo: _Undo | None = None

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

    def _touch(self, slot: int) -> None:
        """Journal leaf ``slot`` before the running operation first writes it (in the tree it started with)."""
        u = self._undo
        if u is not None and self.fat.T is u.T and slot not in u.saved:
            u.saved[slot] = (u.T[u.n + slot], u.sh[slot])

    def _rollback(self, u: _Undo) -> None:
        """Put back everything the operation journaled in ``u`` (a ``combine`` raised)."""
        T, n, sh, where = u.T, u.n, u.sh, u.where
        for slot in u.saved:
            cur = sh[slot]
            if cur is not None:
                where.pop(cur, None)
        for slot, (leaf, h) in u.saved.items():
            T[n + slot] = leaf
            sh[slot] = h
            if h is not None:
                where[h] = slot
        self.fat.T, self.fat.n = T, n
        self.slot_handle, self.where = sh, where
        self.F, self.span, self.size, self.next_handle = u.F, u.span, u.size, u.next_handle

    def _atomic(self, apply: Callable[[set[int]], R]) -> R:
        """Run ``apply(dirty)`` then the end-of-batch step as one all-or-nothing operation."""
        u = self._undo = _Undo(self)
        dirty: set[int] = set()
        try:
            out = apply(dirty)
            self._finish(dirty)
        except BaseException:
            self._rollback(u)
            raise
        finally:
            self._undo = None
        return out

    def _rebuild(self, capacity: int) -> None:
        """Compact (same capacity) or resize: rebuild the tree from the live leaves read circularly from ``F``
        (window order), so ``F = 0`` and there are no holes. ``capacity − 1`` combines, on a new tree installed
        (with new handle tables) only when they have all returned."""
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
        T = self.fat._built(vals, capacity)
        slot_handle: list[Handle | None] = [None] * capacity
        where: dict[Handle, int] = {}
        for slot, h in enumerate(hs):
            slot_handle[slot] = h
            where[h] = slot
        self.fat.T, self.fat.n = T, capacity
        self.slot_handle, self.where = slot_handle, where
        self.F = 0
        self.span = len(hs)

    def _put(self, v: Any, dirty: set[int]) -> Handle:
        """Append the lifted ``v`` after the buffer (compacting or doubling first when it is full)."""
        cap = self.fat.n
        if self.span == cap:
            self._rebuild(grown(cap, self.algorithm) if 4 * self.size > 3 * cap else cap)
            dirty.clear()
            cap = self.fat.n
        slot = (self.F + self.span) % cap
        self._touch(slot)
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
        self._touch(slot)
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

    def _slot_of(self, handle: Any) -> int | None:
        k = as_handle(handle)
        return self.where.get(k) if k is not None else None

    # ------------------------------------------------------------------------------------------ FIFO API

    @guarded
    def query(self) -> Any:
        """The window's aggregate in arrival order, lowered: the root when the buffer does not wrap (0 ⊕),
        ``suffix(F) ⊕ prefix(B)`` when it does (≤ 2·log2 capacity + 1 ⊕)."""
        cap = self.fat.n
        if self.F + self.span <= cap:
            return self.monoid.lower(self.fat.T[1])
        back = (self.F + self.span - 1) % cap
        s = self.fat._suffix(self.F)
        p = self.fat._prefix(back)
        return self.monoid.lower(self.fat._otimes(s, p))

    def _insert_lifted(self, vs: list[Any]) -> list[Handle]:
        return self._atomic(lambda dirty: [self._put(v, dirty) for v in vs])

    @guarded
    def insert(self, value: Any) -> None:
        """Append ``value`` (lifted first: a bad value changes nothing). log2 C ⊕, plus a rebuild when full."""
        self._insert_lifted([self._lift(value)])

    @guarded
    def insert_with_handle(self, value: Any) -> Handle:
        """:meth:`insert`, returning the new element's handle (its insertion sequence number)."""
        return self._insert_lifted([self._lift(value)])[0]

    @guarded
    def evict(self) -> None:
        """Remove the oldest live element (:class:`EmptyWindowError` when empty). log2 C ⊕, or a halving."""
        if self.size == 0:
            raise EmptyWindowError("reactive: evict() on an empty window")
        self._atomic(lambda dirty: self._take(self.F, dirty))

    @guarded
    def remove(self, handle: Handle) -> None:
        """Remove the live element ``handle`` (non-FIFO eviction; :class:`InvalidHandleError` when it is not
        live, changing nothing). log2 C ⊕, or a halving."""
        slot = self._slot_of(handle)
        if slot is None:
            raise InvalidHandleError(f"reactive: remove({handle!r}): no live element has this handle")
        self._atomic(lambda dirty: self._take(slot, dirty))

    def __len__(self) -> int:
        return self.size

    @guarded
    def insert_many(self, values: Iterable[Any]) -> None:
        """Insert ``values`` in order as one batch (all lifted first: a bad value inserts nothing); one
        propagation over the distinct slots written. All or nothing."""
        lift = self._lift
        self._insert_lifted([lift(x) for x in values])

    @guarded
    def insert_many_with_handles(self, values: Iterable[Any]) -> list[Handle]:
        """:meth:`insert_many`, returning the new handles in order."""
        lift = self._lift
        return self._insert_lifted([lift(x) for x in values])

    @guarded
    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest live elements as one batch (all or nothing). Raises
        :class:`EmptyWindowError` (evicting nothing) when fewer than ``count`` are held, ``ValueError`` /
        ``TypeError`` for a negative or non-integer count."""
        k = check_count(count)
        if k > self.size:
            raise EmptyWindowError(f"reactive: evict_many({k}) on a window of {self.size}")

        def apply(dirty: set[int]) -> None:
            for _ in range(k):
                self._take(self.F, dirty)

        self._atomic(apply)

    @guarded
    def remove_many(self, handles: Iterable[Handle]) -> None:
        """Remove the live elements ``handles`` as one batch (all or nothing). Every handle must be live and
        given once, else :class:`InvalidHandleError` and nothing changes."""
        slots: list[int] = []
        seen: set[int] = set()
        for h in handles:
            slot = self._slot_of(h)
            if slot is None or slot in seen:
                raise InvalidHandleError(f"reactive: remove_many: handle {h!r} is not live (or given twice)")
            seen.add(slot)
            slots.append(slot)

        def apply(dirty: set[int]) -> None:
            for slot in slots:
                self._take(slot, dirty)

        self._atomic(apply)

    @guarded
    def batch(self, events: Iterable[tuple[Any, ...]]) -> list[Handle | None]:
        """Apply ``events`` in order as one batch and propagate once (002 §2.3: insert/evict events, then the
        trigger). Events: ``("insert", value)``, ``("evict",)``, ``("remove", handle)``. Returns, per event,
        the new handle of an insert and ``None`` otherwise. Slots written twice keep the last write.

        A bad event (unknown kind, bad value, evict on empty, dead handle) raises after the events before it
        were applied (and propagated), like a prefix of the batch. A ``combine`` that raises undoes the whole
        batch (strong)."""
        out: list[Handle | None] = []
        u = self._undo = _Undo(self)
        dirty: set[int] = set()
        applying = False
        try:
            for ev in events:
                kind = ev[0] if isinstance(ev, tuple) and ev else None
                if kind == "insert" and len(ev) == 2:
                    v = self._lift(ev[1])
                    applying = True
                    out.append(self._put(v, dirty))
                elif kind == "evict" and len(ev) == 1:
                    if self.size == 0:
                        raise EmptyWindowError("reactive: batch: evict on an empty window")
                    applying = True
                    self._take(self.F, dirty)
                    out.append(None)
                elif kind == "remove" and len(ev) == 2:
                    slot = self._slot_of(ev[1])
                    if slot is None:
                        raise InvalidHandleError(f"reactive: batch: remove({ev[1]!r}): no live element has this handle")
                    applying = True
                    self._take(slot, dirty)
                    out.append(None)
                else:
                    raise ValueError(f"reactive: batch: bad event {ev!r}")
                applying = False
        except BaseException:
            if applying:  # an event failed half-applied (a combine of a rebuild raised): undo the batch
                self._rollback(u)
                self._undo = None
                raise
            self._end(u, dirty)  # a bad event: the events before it stay applied, propagated
            raise
        self._end(u, dirty)
        return out

    def _end(self, u: _Undo, dirty: set[int]) -> None:
        """The end of a batch: its single propagation (or resize); all undone if a ``combine`` raises."""
        try:
            self._finish(dirty)
        except BaseException:
            self._rollback(u)
            raise
        finally:
            self._undo = None

    @guarded
    def handles(self) -> list[Handle]:
        """Handles of the live elements, oldest first."""
        cap = self.fat.n
        out: list[Handle] = []
        for k in range(self.span):
            h = self.slot_handle[(self.F + k) % cap]
            if h is not None:
                out.append(h)
        return out

    @guarded
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

    def _params(self) -> dict[str, Any]:
        return {"next_handle": self.next_handle}

    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: ReactiveState, next_handle: int | None = None
    ) -> ReactiveAggregator:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` and whose next handle is ``next_handle``
        (default: one past the youngest live handle). Copying and pickling; no ⊕ call. The shape is validated
        (``ValueError``/``TypeError``), typed values like ``as_f64``/``as_i64``."""
        cap, minc, handles = check_reactive_snapshot(snapshot, cls.algorithm)
        live = [h for h in handles if h is not None]
        nxt = max(live) + 1 if live else 0
        if next_handle is not None:
            k = as_handle(next_handle)
            if k is None or k < nxt:
                raise ValueError(f"reactive: next_handle {next_handle!r} must be an int beyond every live handle")
            nxt = k
        agg = cls(monoid, minc)
        agg.fat.T = agg.fat._validated(snapshot.nodes)
        agg.fat.n = cap
        agg.slot_handle = handles
        agg.where = {h: slot for slot, h in enumerate(handles) if h is not None}
        agg.F, agg.span, agg.size = snapshot.F, snapshot.span, snapshot.size
        agg.next_handle = nxt
        return agg

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"


class FifoReactiveAggregator(Guarded):
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

    Exception safety: *strong* (a raising ``combine`` leaves it exactly as before the operation: rebuilds go to
    a new array, walks journal the nodes they overwrite); ``insert_many``/``evict_many`` are loops of single
    operations -- values are lifted and the count checked first, and if ``combine`` raises at the j-th one the
    first j stay applied (the exception's note says so). Not thread-safe: overlapping calls raise
    :class:`~swagkit.spec.errors.ReentrantCallError`.
    """

    algorithm = "reactive_fifo"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any], min_capacity: int = MIN_CAPACITY) -> None:
        monoid = as_monoid(monoid, self.algorithm)
        min_capacity = check_capacity(min_capacity, "min_capacity", "reactive_fifo")
        self.monoid = monoid
        self.min_capacity = min_capacity
        self._lift = monoid.lift
        self._combine = monoid.combine
        self._one: Any = monoid.identity
        self._init_guard()
        self.combine_count = 0
        self.cap = min_capacity
        self.T: list[Any] = [self._one] * (2 * min_capacity)
        self.F = 0
        self.size = 0
        self.next_handle = 0
        #: the running operation's journal: (T, cap, F, size, next_handle, [(node, old value)])
        self._undo: tuple[list[Any], int, int, int, int, list[tuple[int, Any]]] | None = None

    def _otimes(self, a: Any, b: Any) -> Any:
        self.combine_count += 1
        return self._combine(a, b)

    def _set(self, h: int, v: Any) -> None:
        """``T[h] ← v``, journaled when ``T`` is the array the running operation started with."""
        u = self._undo
        if u is not None and self.T is u[0]:
            u[5].append((h, self.T[h]))
        self.T[h] = v

    def _begin(self) -> None:
        self._undo = (self.T, self.cap, self.F, self.size, self.next_handle, [])

    def _rollback(self) -> None:
        u = self._undo
        assert u is not None
        T, self.cap, self.F, self.size, self.next_handle, writes = u
        for h, old in reversed(writes):
            T[h] = old
        self.T = T

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
            self._set(h, self._otimes(T[2 * h], T[2 * h + 1]))
        elif il:
            self._set(h, T[2 * h])
        elif ir:
            self._set(h, T[2 * h + 1])

    def _walk(self, leaf: int) -> None:
        h, level = (self.cap + leaf) >> 1, 1
        while h >= 1:
            self._masked(h, level)
            h >>= 1
            level += 1

    def _rebuild(self, capacity: int) -> None:
        """Rebuild into a new array (the old one stays intact for a roll-back)."""
        vals = [self.T[self.cap + (self.F + k) % self.cap] for k in range(self.size)]
        T = [self._one] * (2 * capacity)
        T[capacity : capacity + len(vals)] = vals
        self.T = T
        self.cap = capacity
        self.F = 0
        top = capacity.bit_length() - 1
        for h in range(capacity - 1, 0, -1):
            self._masked(h, top - (h.bit_length() - 1))

    @property
    def capacity(self) -> int:
        return self.cap

    @guarded
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

    def _insert(self, v: Any) -> None:
        self._begin()
        try:
            if self.size == self.cap:
                self._rebuild(grown(self.cap, self.algorithm))
            slot = (self.F + self.size) % self.cap
            self._set(self.cap + slot, v)
            self.size += 1
            self.next_handle += 1
            self._walk(slot)
        except BaseException:
            self._rollback()
            raise
        finally:
            self._undo = None

    def _evict(self) -> None:
        self._begin()
        try:
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
        except BaseException:
            self._rollback()
            raise
        finally:
            self._undo = None

    @guarded
    def insert(self, value: Any) -> None:
        self._insert(self._lift(value))

    @guarded
    def evict(self) -> None:
        if self.size == 0:
            raise EmptyWindowError("reactive_fifo: evict() on an empty window")
        self._evict()

    @guarded
    def insert_many(self, values: Iterable[Any]) -> None:
        """Insert each of ``values`` in order; all are lifted first (a refused value changes nothing), and if
        ``combine`` raises at the j-th insertion the first j stay inserted (the exception's note says so)."""
        lifted = [self._lift(v) for v in values]
        for j, v in enumerate(lifted):
            try:
                self._insert(v)
            except BaseException as err:
                err.add_note(f"swagkit {self.algorithm}: insert_many inserted {j} of {len(lifted)} values")
                raise

    @guarded
    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest values (``EmptyWindowError``, evicting nothing, when fewer are held;
        ``ValueError``/``TypeError`` for a negative or non-integer count). If ``combine`` raises at the j-th
        eviction, the first j stay evicted (the exception's note says so)."""
        k = check_count(count)
        if k > self.size:
            raise EmptyWindowError(f"reactive_fifo: evict_many({k}) on a window of {self.size}")
        for j in range(k):
            try:
                self._evict()
            except BaseException as err:
                err.add_note(f"swagkit {self.algorithm}: evict_many evicted {j} of {k} values")
                raise

    def __len__(self) -> int:
        return self.size

    @guarded
    def snapshot(self) -> ReactiveState:
        """Nodes include stale values outside the occupied range; handles are those of the occupied slots."""
        handles: list[Handle | None] = [None] * self.cap
        first = self.next_handle - self.size
        for k in range(self.size):
            handles[(self.F + k) % self.cap] = first + k
        return ReactiveState(
            capacity=self.cap,
            nodes=tuple(self.T),
            handles=tuple(handles),
            F=self.F,
            span=self.size,
            size=self.size,
            min_capacity=self.min_capacity,
        )

    def _params(self) -> dict[str, Any]:
        return {"next_handle": self.next_handle}

    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: ReactiveState, next_handle: int | None = None
    ) -> FifoReactiveAggregator:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊕ call)."""
        cap, minc, handles = check_reactive_snapshot(snapshot, cls.algorithm)
        size = snapshot.size
        if snapshot.span != size:
            raise ValueError("reactive_fifo: a FIFO snapshot has no holes (span = size)")
        first = handles[snapshot.F] if size else None
        nxt = first + size if first is not None else 0
        if first is not None and any(handles[(snapshot.F + k) % cap] != first + k for k in range(size)):
            raise ValueError("reactive_fifo: a FIFO snapshot's handles are consecutive from F")
        if next_handle is not None:
            k = as_handle(next_handle)
            if k is None or k < nxt or (size and k != nxt):
                raise ValueError(f"reactive_fifo: next_handle {next_handle!r} does not match the snapshot")
            nxt = k
        agg = cls(monoid, minc)
        agg.T = list(snapshot.nodes)
        agg.cap = cap
        agg.F, agg.size, agg.next_handle = snapshot.F, size, nxt
        return agg

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
