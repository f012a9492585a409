"""SlickDeque (paper 001): Inv (Algorithm 1) and Non-Inv (Algorithm 2), plus Range as two Non-Inv deques.

Two modes, chosen at construction, with the same methods:

* **Plain FIFO** (``ranges=None`` or ``()``): a dynamic window exactly like the in-order family of paper 000 —
  ``insert(v)`` appends, ``evict()`` removes the oldest, ``query()`` aggregates the whole window. This is what the
  FIFO state machine, debug mode and ``swagkit verify`` exercise.
* **Multi-query** (``ranges=(r1, r2, …)``, every ``r ≥ 1``, in partials): the paper's setting. ``W = max(ranges)``
  is the capacity; ``insert(v)`` is one iteration of the paper's execution loop — when the window already
  holds W partials the oldest is evicted first (it leaves the longest range) — so the window is always the last
  ``min(W, …)`` partials. ``evict()`` may still shrink the window explicitly (FIFO); ranges then see fewer
  partials. ``query()`` is the whole window (= range W).

Answers (both modes; ``n`` = current window size): ``query_range(r)`` is the lowered aggregate of the newest
``min(r, n)`` partials, ``lower(identity)`` for an empty window; ``query_all()`` returns ``{r: query_range(r)}``
for every registered range, longest first (the paper's ``getNextSetOfQueries`` sorted descending), for the newest
partial; ``step(v)`` is ``insert(v)`` then ``query_all()``. Inv answers only registered ranges (it keeps one
running aggregate per distinct range; ``ValueError`` otherwise); Non-Inv answers any ``r ≥ 1`` by searching its
deque.

Costs in ⊗ calls (``combine_count``): Inv plain mode: insert 1, evict 1, query 0; multi-query: insert exactly
2 per distinct range (identity padding, as Algorithm 1), evict ≤ 1 per range covering the oldest partial,
queries 0. Non-Inv: insert ≤ deque size (one test per popped node plus one that stops), amortized ≤ 2 (≤ 2N−1
over N inserts), evict 0, queries 0 (answer loops only step pointers).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import max_monoid, min_monoid
from swagkit.spec.monoid import Monoid
from swagkit.spec.slickdeque import normalize_ranges, require_invertible, require_selective, selects_right
from swagkit.spec.snapshots import SlickDequeInvState, SlickDequeNonInvState

from ._base import InOrderAggregator

__all__ = ["SlickDequeInv", "SlickDequeNonInv", "SlickRange", "DEFAULT_RECOMPUTE_EVERY"]

#: plain-mode recomputation period of ``sum_f64`` (multi-query mode uses W)
DEFAULT_RECOMPUTE_EVERY = 1024


def _negate(x: Any) -> Any:
    return -x


class SlickDequeInv(InOrderAggregator[Any, Any, Any]):
    """SlickDeque (Inv), id ``slickdeque_inv`` (001 Algorithm 1): one running aggregate per distinct range,
    ``ans ← inv(old) ⊗ (ans ⊗ new)`` — the left inverse, so any invertible monoid works, commutative or not.

    ``sum_f64`` (declared not invertible) is accepted with drift control: after every ``max(recompute_every, n)``
    updates (``recompute_every`` defaults to W in multi-query mode, :data:`DEFAULT_RECOMPUTE_EVERY` in plain mode;
    the ``n`` keeps a refold's n ⊗ at ≤ 1 per update amortized) each running sum is refolded from the stored
    partials; the error is then bounded by :func:`swagkit.spec.slickdeque.f64_drift_bound` with
    ``K = max(recompute_every, n)``.
    Recomputation ⊗ calls are counted in ``combine_count``; exact invertible monoids never recompute
    (``recompute_every=0``). ``inverse_count`` counts calls of the inverse (one per ⊗ with an expiring partial).
    """

    algorithm = "slickdeque_inv"

    def __init__(
        self,
        monoid: Monoid[Any, Any, Any],
        ranges: Iterable[int] | None = None,
        *,
        recompute_every: int | None = None,
    ) -> None:
        require_invertible(monoid)
        super().__init__(monoid)
        self.ranges: tuple[int, ...] = normalize_ranges(ranges)
        self.capacity: int | None = self.ranges[0] if self.ranges else None
        self._inverse: Callable[[Any], Any] = monoid.inverse if monoid.inverse is not None else _negate
        self.inverse_count = 0
        if recompute_every is None:
            recompute_every = 0 if monoid.invertible else (self.capacity or DEFAULT_RECOMPUTE_EVERY)
        if isinstance(recompute_every, bool) or not isinstance(recompute_every, int) or recompute_every < 0:
            raise ValueError(f"recompute_every must be a non-negative int, got {recompute_every!r}")
        self.recompute_every = recompute_every
        self._since = 0
        self._n = 0
        self._inserted = 0
        self._cursor = 0
        if self.capacity is None:
            self._values: deque[Any] = deque()
            self._agg: Any = self._one
        else:
            self._ring: list[Any] = [self._one] * self.capacity
            self._answers: dict[int, Any] = {r: self._one for r in self.ranges}

    def _inv(self, x: Any) -> Any:
        self.inverse_count += 1
        return self._inverse(x)

    def __len__(self) -> int:
        return self._n

    def insert(self, value: Any) -> None:
        """Plain: ``agg ← agg ⊗ v`` (1 ⊗). Multi-query: Algorithm 1 lines 16–35 — for every range R,
        ``ans_R ← inv(partials[currPos − R]) ⊗ (ans_R ⊗ v)`` *before* ``partials[currPos] ← v`` (2 ⊗ per range)."""
        self._check_usable()
        v = self.monoid.lift(value)
        if self.capacity is None:
            agg = self._otimes(self._agg, v)
            self._values.append(v)
            self._agg = agg
        else:
            W, cur, ring = self.capacity, self._cursor, self._ring
            new = [self._otimes(self._inv(ring[(cur - r) % W]), self._otimes(self._answers[r], v)) for r in self.ranges]
            for r, a in zip(self.ranges, new):
                self._answers[r] = a
            ring[cur] = v
            self._cursor = (cur + 1) % W
            self._inserted += 1
        self._n = self._n + 1 if self.capacity is None or self._n < self.capacity else self._n
        self._tick()

    def evict(self) -> None:
        """Remove the oldest partial: ``ans_R ← inv(old) ⊗ ans_R`` for the whole window (plain) or for every range
        R ≥ n (the ranges that cover it); its ring slot becomes ``e``. An emptied window resets to ``e``."""
        self._require_nonempty()
        self._check_usable()
        if self.capacity is None:
            old = self._values[0]
            agg = self._otimes(self._inv(old), self._agg) if self._n > 1 else self._one
            self._values.popleft()
            self._agg = agg
        else:
            W, n = self.capacity, self._n
            slot = (self._cursor - n) % W
            old = self._ring[slot]
            if n == 1:
                new = [self._one for _ in self.ranges]
            else:
                new = [self._otimes(self._inv(old), self._answers[r]) if r >= n else self._answers[r] for r in self.ranges]
            for r, a in zip(self.ranges, new):
                self._answers[r] = a
            self._ring[slot] = self._one
        self._n -= 1
        self._tick()

    def _tick(self) -> None:
        if not self.recompute_every:
            return
        self._since += 1
        if self._since >= max(self.recompute_every, self._n):  # ≥ n: a refold's ⊗ amortize to ≤ 1 per update
            self._since = 0
            self._recompute()

    def _recompute(self) -> None:
        """Refold every running aggregate from the stored partials (drift control for ``sum_f64``)."""
        if self.capacity is None:
            self._agg = self._fold(list(self._values))
            return
        W, n, cur = self.capacity, self._n, self._cursor
        window = [self._ring[(cur - n + i) % W] for i in range(n)]
        for r in self.ranges:
            self._answers[r] = self._fold(window[max(n - r, 0):])

    def _fold(self, values: list[Any]) -> Any:
        if not values:
            return self._one
        acc = values[0]
        for x in values[1:]:
            acc = self._otimes(acc, x)
        return acc

    def query(self) -> Any:
        """The whole window, lowered. 0 ⊗."""
        if self.capacity is None:
            return self.monoid.lower(self._agg)
        return self.monoid.lower(self._answers[self.capacity])

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered; ``r`` must be a registered range (``ValueError``). 0 ⊗."""
        if self.capacity is None or r not in self._answers:
            raise ValueError(f"slickdeque_inv answers only its registered ranges {list(self.ranges)}, not {r!r}")
        return self.monoid.lower(self._answers[r])

    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first. 0 ⊗."""
        if self.capacity is None:
            return {}
        lower = self.monoid.lower
        return {r: lower(self._answers[r]) for r in self.ranges}

    def step(self, value: Any) -> dict[int, Any]:
        """One iteration of the paper's loop: ``insert(value)`` then ``query_all()``."""
        self.insert(value)
        return self.query_all()

    def snapshot(self) -> SlickDequeInvState:
        if self.capacity is None:
            return SlickDequeInvState(None, tuple(self._values), 0, 0, ((None, self._agg),), self._n)
        return SlickDequeInvState(
            self.capacity,
            tuple(self._ring),
            self._cursor,
            self._inserted,
            tuple((r, self._answers[r]) for r in self.ranges),
            self._n,
        )


class SlickDequeNonInv(InOrderAggregator[Any, Any, Any]):
    """SlickDeque (Non-Inv), id ``slickdeque_noninv`` (001 Algorithm 2) for **selective** monoids: a deque of
    ``(seq, val)`` nodes where each ``val`` is the aggregate of everything from its partial to the newest
    (notes N3); a new partial pops every node it dominates (``back ⊗ new`` selects ``new``, tested by
    :func:`~swagkit.spec.slickdeque.selects_right`), eviction pops the head only when it is the oldest partial,
    and answers take the first node younger than ``t − R`` (the corrected answer loop, notes §3.2)."""

    algorithm = "slickdeque_noninv"

    def __init__(self, monoid: Monoid[Any, Any, Any], ranges: Iterable[int] | None = None) -> None:
        require_selective(monoid)
        super().__init__(monoid)
        self.ranges: tuple[int, ...] = normalize_ranges(ranges)
        self.capacity: int | None = self.ranges[0] if self.ranges else None
        self.nodes: deque[tuple[int, Any]] = deque()
        self.first = 0
        self.inserted = 0

    def __len__(self) -> int:
        return self.inserted - self.first

    def insert(self, value: Any) -> None:
        """Evict (lines 13–15, capacity mode, window full), dominance pops (16–18), push (19). The ⊗ tests run
        before anything changes, so a raising ``combine`` leaves the structure as it was."""
        self._check_usable()
        v = self.monoid.lift(value)
        nodes = self.nodes
        evict_head = self.capacity is not None and self.inserted - self.first == self.capacity
        stop = 1 if evict_head and nodes and nodes[0][0] == self.first else 0
        pops = 0
        m = self.monoid
        for i in range(len(nodes) - 1, stop - 1, -1):
            back = nodes[i][1]
            if selects_right(m, self._otimes(back, v), back, v):
                pops += 1
            else:
                break
        if evict_head:
            self._evict_one()
        for _ in range(pops):
            nodes.pop()
        nodes.append((self.inserted, v))
        self.inserted += 1

    def _evict_one(self) -> None:
        if self.nodes and self.nodes[0][0] == self.first:
            self.nodes.popleft()
        self.first += 1

    def evict(self) -> None:
        """Remove the oldest partial: pop the head iff it is that partial (an ``if``: one partial per call). 0 ⊗."""
        self._require_nonempty()
        self._check_usable()
        self._evict_one()

    def query(self) -> Any:
        """The head's value (the whole window), lowered. 0 ⊗."""
        if not self.nodes:
            return self.monoid.lower(self._one)
        return self.monoid.lower(self.nodes[0][1])

    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered: the first node with ``seq > t − r``. Any ``r ≥ 1``. 0 ⊗."""
        if isinstance(r, bool) or not isinstance(r, int) or r < 1:
            raise ValueError(f"range must be an int ≥ 1, got {r!r}")
        if not self.nodes:
            return self.monoid.lower(self._one)
        limit = self.inserted - 1 - r
        for seq, val in self.nodes:
            if seq > limit:
                return self.monoid.lower(val)
        raise AssertionError("unreachable: the tail is the newest partial")  # pragma: no cover

    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first, in one pass over the deque with a
        cursor carried across ranges (Algorithm 2 lines 20–41, corrected). 0 ⊗."""
        lower = self.monoid.lower
        if not self.nodes:
            e = lower(self._one)
            return {r: e for r in self.ranges}
        out: dict[int, Any] = {}
        it = iter(self.nodes)
        seq, val = next(it)
        t = self.inserted - 1
        for r in self.ranges:
            while seq <= t - r:
                seq, val = next(it)
            out[r] = lower(val)
        return out

    def query_runs(self) -> list[tuple[int, Any]]:
        """Every range's answer at once, in O(deque size): ``[(r, answer), …]`` with increasing ``r``, one pair
        per node from the tail to the head; range ``ρ ≥ 1`` is answered by the last pair with ``r ≤ ρ``.

        Node ``k`` (sequence number ``p_k``) answers exactly the ranges ``t − p_k < ρ ≤ t − p_(k−1)`` (notes N5),
        so its pair starts at ``r = t − p_k + 1``; the tail (``p = t``) starts at 1 and the head answers every
        longer range, including ranges beyond the window. With W = n registered ranges (the paper's max-multi
        case) this costs as much as the deque holds, not as many queries as are registered. 0 ⊗."""
        lower = self.monoid.lower
        if not self.nodes:
            return [(1, lower(self._one))]
        t = self.inserted - 1
        return [(t - seq + 1, lower(val)) for seq, val in reversed(self.nodes)]

    def step(self, value: Any) -> dict[int, Any]:
        """One iteration of the paper's loop: ``insert(value)`` then ``query_all()``."""
        self.insert(value)
        return self.query_all()

    def snapshot(self) -> SlickDequeNonInvState:
        return SlickDequeNonInvState(self.capacity, tuple(self.nodes), self.first, self.inserted, self.ranges)


class SlickRange:
    """Range (max − min) served as two Non-Inv deques (notes §7.4: the pair operator ``(max, min)`` is not
    selective, so it cannot be one deque). Same modes and methods as :class:`SlickDequeNonInv`; answers are
    ``max − min`` of the newest ``min(r, n)`` partials, ``None`` for an empty window.

    ``noninv`` is the Non-Inv class to use (the reference one by default; ``swagkit.optimized`` passes its own),
    ``maximum``/``minimum`` the two selective monoids (``max``/``min`` by default; ``max_f64``/``min_f64`` …).
    ``combine_count`` is the sum of both deques' counts."""

    def __init__(
        self,
        ranges: Iterable[int] | None = None,
        *,
        maximum: Monoid[Any, Any, Any] | None = None,
        minimum: Monoid[Any, Any, Any] | None = None,
        noninv: Callable[..., Any] = SlickDequeNonInv,
    ) -> None:
        rs = normalize_ranges(ranges)
        self.ranges = rs
        self.hi = noninv(maximum if maximum is not None else max_monoid(), rs)
        self.lo = noninv(minimum if minimum is not None else min_monoid(), rs)

    @property
    def combine_count(self) -> int:
        return int(self.hi.combine_count) + int(self.lo.combine_count)

    def __len__(self) -> int:
        return len(self.hi)

    def insert(self, value: Any) -> None:
        self.hi.insert(value)
        self.lo.insert(value)

    def insert_many(self, values: Iterable[Any]) -> None:
        for v in values:
            self.insert(v)

    def evict(self) -> None:
        if len(self.hi) == 0:
            raise EmptyWindowError("slick_range: evict() on an empty window")
        self.hi.evict()
        self.lo.evict()

    def query(self) -> Any:
        return None if len(self) == 0 else self.hi.query() - self.lo.query()

    def query_range(self, r: int) -> Any:
        hi, lo = self.hi.query_range(r), self.lo.query_range(r)
        return None if len(self) == 0 else hi - lo

    def query_all(self) -> dict[int, Any]:
        his, los = self.hi.query_all(), self.lo.query_all()
        return {r: (None if len(self) == 0 else his[r] - los[r]) for r in self.ranges}

    def step(self, value: Any) -> dict[int, Any]:
        self.insert(value)
        return self.query_all()
