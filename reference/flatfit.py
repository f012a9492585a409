"""FlatFIT, the Flat and Fast Index Traverser (Shein, Chrysanthis, Labrinidis 2017), resizable variant.

As paper 001 §2 describes it: FlatFIT "achieves acceleration by dynamically storing the intermediate results and
their corresponding pointers, which indicate how far ahead *FlatFIT* can skip in its calculation. It uses two
circular arrays, *Pointers* and *Partials*, interconnected with their indices and a stack, *Positions*, for
keeping indices that are currently processed." Paper 000 §8.1: "The algorithm stores n partial aggregates as well
as n pointers, which are indices into the window for stitching together the partial aggregates of subranges."
Paper 000 §7.2: "Each query pushes indices onto a stack, and then pops indices from the stack to indirectly access
the window", and (footnote 3) "the same stack is reused across queries. This is safe because the stack is always
empty at the end of a query." Paper 000 §7: "We use a modified version that resizes FlatFIT's circular buffer
using the standard array doubling/shrinking technique without disturbing FlatFIT's internal pointer structure."

State. Two circular arrays of ``capacity`` slots: ``Partials`` and ``Pointers``; the live slots are ``head``,
``head+1``, … (mod capacity), ``size`` of them, oldest first; ``tail = (head + size) mod capacity`` is the slot of
the next insert. For a live slot ``i`` with pointer ``j = Pointers[i]``, ``Partials[i] = v_i ⊗ … ⊗ v_(j−1)``
(the window elements from slot ``i`` up to, excluding, slot ``j``, circularly): the pointer says how far a
traversal may skip from ``i``. ``j = tail`` means "up to the youngest element". ``Positions`` is the index stack.

Operations (the paper gives no pseudocode; this is our reading):

* ``insert(v)``: ``Partials[tail] ← v``, ``Pointers[tail] ← tail + 1``; grow first when full. No ⊗.
* ``evict()``: release ``Partials[head]``, ``head ← head + 1``; shrink afterwards when ``size ≤ capacity/4``.
  No ⊗ ("FlatFIT only calls the aggregation operation on queries", 000 §7.3).
* ``query()``: from ``head``, follow pointers to ``tail``, pushing each slot whose pointer is not ``tail`` onto
  ``Positions``; the last slot reached holds the aggregate of the rest of the window. Then pop the slots, each
  time ``acc ← Partials[i] ⊗ acc`` and store it back with ``Pointers[i] ← tail`` (so later queries skip the
  whole stitched range). Returns ``acc`` = ``Partials[head]``, lowered.

Choices where the papers leave details open (each named with the sentence that leaves it open):

1. *Which range a pointer denotes.* 001 §2: the pointers "indicate how far ahead FlatFIT can skip in its
   calculation" (not whether the target is included). We use a half-open range ``[i, Pointers[i])``, so a fresh
   element points to its successor and ``tail`` ends every stitched range.
2. *When the pointers are updated.* 001 §4 says the "indexes of the entire data structure are updated" during a
   "window reset", but not which slots are rewritten. We rewrite exactly the slots pushed on ``Positions`` (path
   compression toward ``tail``); this reproduces 001 §4's single-query cycle (one slide costing n − 1 ⊗ every
   n + 1 slides, its neighbours one ⊗ each, the others two: see ``tests/test_flatfit_budget.py``).
3. *Growing and shrinking.* 000 §7 only says "the standard array doubling/shrinking technique without
   disturbing FlatFIT's internal pointer structure". We double when an insert finds the buffer full and halve
   after an evict leaves ``size ≤ capacity/4`` (capacity a power of two, at least 2), moving the live slots to
   ``0, 1, …, size−1`` and re-basing each pointer by the same shift, so every slot keeps pointing to the same
   element (the stitched ranges are unchanged). Hence ``size ≤ capacity ≤ max(2, 4·size)`` after every
   operation. Resizing moves O(n) slots and calls no ⊗ (amortized O(1) moves per operation).
4. *The Positions stack.* 000 §7.2 footnote 3 reuses the stack across queries; we keep one list. The slot whose
   pointer is already ``tail`` is not pushed (its partial starts ``acc``), so a query invokes ⊗ exactly
   (number of pushed slots) times.
5. *A raising ⊗.* Not discussed by either paper. Exception safety is *strong*: a query computes the stitched
   aggregates of every pushed slot first (popping ``Positions`` in the same order, the same ⊗ calls) and writes
   them, with their pointers to ``tail``, only when the last ⊗ has returned; ``Positions`` is emptied in a
   ``finally``. A ⊗ that raises mid-query (a ``KeyboardInterrupt`` inside it included) therefore leaves the
   structure exactly as it was. ``insert`` and ``evict`` call no ⊗; a resize builds the new arrays aside.
   Re-entrant or concurrent calls (from ``combine``, ``lift``, ``lower`` or a second thread) are refused with
   :class:`~swagkit.spec.errors.ReentrantCallError` before anything changes (the structure is not
   thread-safe), and copies and pickles go by snapshot (:func:`check_snapshot` validates a snapshot first).

6. *Several queries on one structure.* 001 §2 says FlatFIT "supports multiple queries and reuses partial results
   across queries" without saying how. ``query_range(r)`` runs :meth:`query`'s traversal from the slot ``r``
   before ``tail``, stitching to ``tail`` as usual. Its stitched range may cross an older one (a range query
   starting inside it), so pointer ranges are no longer nested; every range still holds the aggregate of exactly
   its elements, which is all a traversal needs. Answering ranges 1..n longest first after each insert costs at
   most n − 1 ⊗ per step (001 §4's max-multi count; checked in ``tests/test_flatfit.py``).

Complexity: 2n stored values (n partial aggregates and n pointers, 000 §8.1) in a buffer of at most
``max(2, 4n)`` slots. ``insert`` and ``evict``: no ⊗. ``query``: at most n − 1 ⊗ (worst case O(n), reached after n
inserts without a query), amortized O(1) as 000 §8.1 states. Our exact amortized claim,
``combines ≤ #inserts + #evicts + #queries`` (:data:`swagkit.spec.budgets.BUDGETS` ``"flatfit"``), is checked,
not proved in closed form: exhaustively over every reachable pointer structure of windows up to 8 elements
(``tests/test_flatfit_budget.py``; up to 10 offline), against 001 §4's own single-query count, and by the budget
meter on every verified run.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import FlatFITState

from ._base import InOrderAggregator
from ._guard import guarded
from .slickdeque import refuse_reinit, restored_value_check

#: smallest capacity of the circular buffer (a power of two)
MIN_CAPACITY = 2


def check_snapshot(s: Any) -> FlatFITState:
    """Check that ``s`` is a :class:`FlatFITState` FlatFIT can hold (shared by both implementations'
    ``_from_snapshot``): a power-of-two capacity ≥ :data:`MIN_CAPACITY` with arrays of that length, ``tail`` =
    ``head + size`` (mod capacity), an empty ``Positions`` stack, and every live pointer skipping forward inside
    the window (to a later live slot or to ``tail``), so every traversal ends at ``tail``. Raises
    ``TypeError``/``ValueError`` otherwise."""
    if not isinstance(s, FlatFITState):
        raise TypeError(f"flatfit: expected a FlatFITState, got {type(s).__name__}")
    cap, head, tail, size = s.capacity, s.head, s.tail, s.size
    for name, x in (("capacity", cap), ("head", head), ("tail", tail), ("size", size)):
        if isinstance(x, bool) or not isinstance(x, int):
            raise TypeError(f"flatfit: snapshot {name} must be an int, got {type(x).__name__}")
    partials, pointers = tuple(s.partials), tuple(s.pointers)
    if cap < MIN_CAPACITY or cap & (cap - 1) or len(partials) != cap or len(pointers) != cap:
        raise ValueError("flatfit: a snapshot's capacity is a power of two ≥ 2 and both arrays have that length")
    if not (0 <= head < cap and 0 <= size <= cap and tail == (head + size) % cap) or tuple(s.positions):
        raise ValueError("flatfit: a snapshot needs 0 ≤ head < capacity, tail = head + size and empty Positions")
    for k in range(size):
        j = pointers[(head + k) % cap]
        if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < cap:
            raise ValueError("flatfit: a live pointer must be a slot index")
        reach = size if j == tail else (j - head) % cap
        if not k < reach <= size:
            raise ValueError("flatfit: a live pointer must skip forward inside the window")
    return s


class FlatFIT(InOrderAggregator[Any, Any, Any]):
    """FlatFIT SWAG (id ``flatfit``), resizable. Amortized O(1), worst-case O(n) ⊗ per query; no ⊗ on insert/evict.

    Exception safety: *strong* (choice 5 of the module docstring): a query writes its stitched ranges only when
    all its ⊗ have returned."""

    algorithm = "flatfit"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        refuse_reinit(self, self.algorithm)
        super().__init__(monoid)
        self.capacity = MIN_CAPACITY
        self.Partials: list[Any] = [None] * MIN_CAPACITY
        self.Pointers: list[int] = [-1] * MIN_CAPACITY
        self.Positions: list[int] = []
        self.head = 0
        self.tail = 0
        self.size = 0

    def _resize(self, new_capacity: int) -> None:
        """Move the live slots to ``0 … size−1`` of new arrays, re-basing every pointer by the same shift."""
        cap, head = self.capacity, self.head
        partials: list[Any] = [None] * new_capacity
        pointers: list[int] = [-1] * new_capacity
        for k in range(self.size):
            i = (head + k) % cap
            skip = (self.Pointers[i] - i - 1) % cap + 1  # how far ahead the traversal may skip from slot i
            partials[k] = self.Partials[i]
            pointers[k] = (k + skip) % new_capacity
        self.Partials, self.Pointers = partials, pointers
        self.capacity = new_capacity
        self.head = 0
        self.tail = self.size % new_capacity

    def _insert(self, v: Any) -> None:
        """Write v at ``tail`` with a pointer to its successor (growing a full buffer first). No ⊗."""
        if self.size == self.capacity:
            self._resize(2 * self.capacity)
        t = self.tail
        nxt = (t + 1) % self.capacity
        self.Partials[t] = v
        self.Pointers[t] = nxt
        self.tail = nxt
        self.size += 1

    def _evict(self) -> None:
        """Drop the slot at ``head`` (shrinking when a quarter full or less). No ⊗."""
        h = self.head
        self.Partials[h] = None
        self.Pointers[h] = -1
        self.head = (h + 1) % self.capacity
        self.size -= 1
        if self.capacity > MIN_CAPACITY and self.size <= self.capacity // 4:
            self._resize(self.capacity // 2)

    def _query(self) -> Any:
        """Traverse from ``head`` by the pointers, pushing slots onto ``Positions``; pop them, stitching each range
        up to ``tail``. One ⊗ per pushed slot (at most n − 1)."""
        if self.size == 0:
            return self._one
        return self._stitch_from(self.head)

    @guarded
    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` elements, lowered: the traversal of :meth:`query` started ``min(r, n)`` slots
        before ``tail`` (FlatFIT answers several ranges from one structure, 001 §2). At most ``min(r, n) − 1`` ⊗;
        the slots it stitches then point to ``tail``, so ranges 1..n answered longest first after each insert
        cost at most n − 1 ⊗ per step together (001 §4's max-multi count)."""
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"range must be an int ≥ 1, got {r!r}")
        if self.size == 0:
            return self.monoid.lower(self._one)
        start = (self.tail - min(r, self.size)) % self.capacity
        return self.monoid.lower(self._stitch_from(start))

    def _stitch_from(self, start: int) -> Any:
        """Follow the pointers from ``start`` to ``tail`` pushing slots, then pop them stitching each range up to
        ``tail``; returns the aggregate of slots ``start … tail−1``. The stitched aggregates are written (with
        their pointers to ``tail``) only after the last ⊗ returned: a raising ⊗ changes nothing."""
        P, Q, stack, tail = self.Partials, self.Pointers, self.Positions, self.tail
        try:
            i = start
            while Q[i] != tail:
                stack.append(i)
                i = Q[i]
            acc = P[i]
            stitched: list[Any] = []
            for j in reversed(stack):  # the pop order
                acc = self._otimes(P[j], acc)
                stitched.append(acc)
            for a in stitched:
                j = stack.pop()
                P[j] = a
                Q[j] = tail
        finally:
            stack.clear()
        return acc

    def __len__(self) -> int:
        return self.size

    @guarded
    def snapshot(self) -> FlatFITState:
        cap = self.capacity
        live = {(self.head + k) % cap for k in range(self.size)}
        return FlatFITState(
            capacity=cap,
            partials=tuple(self.Partials[i] if i in live else None for i in range(cap)),
            pointers=tuple(self.Pointers[i] if i in live else -1 for i in range(cap)),
            head=self.head,
            tail=self.tail,
            size=self.size,
            positions=tuple(self.Positions),
        )

    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: FlatFITState) -> FlatFIT:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call); a snapshot
        :func:`check_snapshot` refuses raises ``TypeError``/``ValueError``."""
        s = check_snapshot(snapshot)
        agg = cls(monoid)
        cap = s.capacity
        live = {(s.head + k) % cap for k in range(s.size)}
        check = restored_value_check(agg.monoid)
        if check is not None:
            for i in live:
                check(s.partials[i])
        agg.capacity = cap
        agg.Partials = [v if i in live else None for i, v in enumerate(s.partials)]
        agg.Pointers = [p if i in live else -1 for i, p in enumerate(s.pointers)]
        agg.head, agg.tail, agg.size = s.head, s.tail, s.size
        return agg


__all__ = ["FlatFIT", "MIN_CAPACITY", "check_snapshot"]
