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

Hardening (issue 12), the same in :mod:`swagkit.optimized`:

* **Exception safety: strong** for all three classes. Every operation computes all its ``⊗`` (and ``inverse``)
  results before it changes anything -- Inv's new running aggregates, and the drift-control refold when this
  update makes it due (it folds the window as it will be after the update); Non-Inv's dominance tests -- so a
  ``combine``, ``inverse``, ``lift`` or ``lower`` that raises (a ``KeyboardInterrupt`` inside ``combine``
  included) leaves the structure exactly as it was. The ``⊗`` call sequence is the paper's, unchanged;
  ``combine_count``/``inverse_count`` count every call, including one that raised.
* **Re-entrant or concurrent use** (a ``combine``/``lift``/``lower`` calling back into the structure, a second
  thread) is refused with :class:`~swagkit.spec.errors.ReentrantCallError` before anything changes. Structures
  are not thread-safe.
* **Sizes**: a range beyond ``sys.maxsize`` raises ``OverflowError``; Inv, which allocates its ring of W partials
  at construction, raises ``MemoryError`` for ``W > sys.maxsize // 16`` (bytes no allocator can provide) before
  allocating, as the compiled classes do; Non-Inv allocates as its deque grows. ``recompute_every`` beyond
  ``sys.maxsize`` raises ``OverflowError``.
* **Copies and pickles** go by snapshot (``copy.copy``, ``copy.deepcopy``, ``pickle``), with the counters.
"""

from __future__ import annotations

import functools
import sys
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from swagkit.spec import f64_track
from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import as_f64, as_i64, max_monoid, min_monoid
from swagkit.spec.monoid import Monoid, as_monoid
from swagkit.spec.slickdeque import normalize_ranges, require_invertible, require_selective, selects_right
from swagkit.spec.snapshots import SlickDequeInvState, SlickDequeNonInvState

from ._base import InOrderAggregator
from ._guard import Guarded, check_count, guarded, reentered

__all__ = [
    "SlickDequeInv",
    "SlickDequeNonInv",
    "SlickRange",
    "MAX_RING_SLOTS",
    "check_index_size",
    "check_ring_size",
    "check_recompute_every",
    "restored_value_check",
    "refuse_reinit",
]

#: the largest ring (in partials) SlickDeque Inv tries to allocate: 16 bytes a slot is more than any allocator can
#: provide beyond it (the compiled ring holds 8-byte slots, the reference list 8-byte references)
MAX_RING_SLOTS = sys.maxsize // 16


def check_index_size(n: int, algorithm: str, what: str = "range") -> int:
    """``n`` (an int ≥ 0) must be addressable: ``OverflowError`` beyond ``sys.maxsize`` (shared by both
    implementations, which store sizes as ``Py_ssize_t``)."""
    if n > sys.maxsize:
        raise OverflowError(f"{algorithm}: {what} {n} does not fit in a Py_ssize_t (at most {sys.maxsize})")
    return n


def check_ring_size(w: int, algorithm: str) -> int:
    """A ring of ``w`` partials to allocate now: ``OverflowError`` beyond ``sys.maxsize``, ``MemoryError`` beyond
    :data:`MAX_RING_SLOTS`, raised before anything is allocated (both implementations)."""
    check_index_size(w, algorithm)
    if w > MAX_RING_SLOTS:
        raise MemoryError(f"{algorithm}: a ring of {w} partials cannot be allocated (at most {MAX_RING_SLOTS})")
    return w


def check_recompute_every(recompute_every: Any, algorithm: str) -> int:
    """A non-negative int (``ValueError`` otherwise) that fits in a ``Py_ssize_t`` (``OverflowError``)."""
    if isinstance(recompute_every, bool) or not isinstance(recompute_every, int) or recompute_every < 0:
        raise ValueError(f"recompute_every must be a non-negative int, got {recompute_every!r}")
    return check_index_size(recompute_every, algorithm, "recompute_every")


def _newest(window: Callable[[], list[Any]], count: int) -> list[Any]:
    """The newest ``count`` items of ``window()``."""
    items = window()
    return items[len(items) - count :]


def _negate(x: Any) -> Any:
    return -x


_TYPED_KINDS = frozenset({"sum_f64", "max_f64", "min_f64", "sum_i64", "max_i64", "min_i64"})


def _restored_f64(x: Any) -> float:
    return x if isinstance(x, float) else as_f64(x)  # a stored aggregate may be NaN (inf + -inf)


def restored_value_check(monoid: Any) -> Callable[[Any], Any] | None:
    """How a snapshot's stored values are checked when a structure is restored (copies, pickles), for the typed
    monoids the compiled classes store as C doubles/int64 (``kind`` a typed name and the identity valid): any
    float, or what ``as_f64`` accepts, for the f64 kinds (a stored aggregate may be NaN: ``inf + -inf``);
    ``as_i64`` for the i64 kinds. None for every other monoid (stored values are not checked). Shared by both
    implementations, so both refuse the same snapshots with the same exception."""
    kind = getattr(monoid, "fast_path", None)
    if not isinstance(kind, str) or kind not in _TYPED_KINDS:
        return None
    f64 = kind.endswith("_f64")
    try:
        (as_f64 if f64 else as_i64)(monoid.identity)
    except (TypeError, ValueError, OverflowError):
        return None
    return _restored_f64 if f64 else as_i64


def refuse_reinit(obj: Any, algorithm: str) -> None:
    """``__init__`` called again on a structure: ``TypeError`` (as the compiled classes), nothing changed."""
    if "_lock" in getattr(obj, "__dict__", ()):
        raise TypeError(f"{algorithm}: __init__ called on an initialized structure")


def _is_range(r: Any) -> bool:
    return not isinstance(r, bool) and isinstance(r, int)


class SlickDequeInv(InOrderAggregator[Any, Any, Any]):
    """SlickDeque (Inv), id ``slickdeque_inv`` (001 Algorithm 1): one running aggregate per distinct range,
    ``ans ← inv(old) ⊗ (ans ⊗ new)`` — the left inverse, so any invertible monoid works, commutative or not.

    ``sum_f64`` (declared not invertible) is accepted with drift control, so that every answer is one some
    summation order of its own window's values could give (:mod:`swagkit.spec.f64_track`): each running sum
    counts its infinities apart and tracks its own rounding error exactly; when that error passes half the
    window's any-order bound (a large value left, say) the running sum is refolded from the stored partials.
    ``recompute_every=K`` (default 0: never) refolds every running sum after every ``max(K, n)`` updates besides,
    for any monoid. Refold ⊗ calls are counted in ``combine_count`` (n − 1 for n partials). ``inverse_count``
    counts calls of the inverse (one per ⊗ with an expiring partial).

    Exception safety: *strong*. An insert or evict computes every new running aggregate (``inverse`` and both ⊗
    per range), and the refold when this update makes it due, before it writes anything; a raising ``combine``
    or ``inverse`` leaves the ring, the answers, the size and the drift counter exactly as before.
    """

    algorithm = "slickdeque_inv"
    exception_safety = "strong"

    def __init__(
        self,
        monoid: Monoid[Any, Any, Any],
        ranges: Iterable[int] | None = None,
        *,
        recompute_every: int | None = None,
    ) -> None:
        refuse_reinit(self, self.algorithm)
        monoid = as_monoid(monoid, self.algorithm)
        require_invertible(monoid)
        super().__init__(monoid)
        self.ranges: tuple[int, ...] = normalize_ranges(ranges)
        self.capacity: int | None = check_ring_size(self.ranges[0], self.algorithm) if self.ranges else None
        self._inverse: Callable[[Any], Any] = monoid.inverse if monoid.inverse is not None else _negate
        self.inverse_count = 0
        if recompute_every is None:
            recompute_every = 0  # exact monoids never drift; sum_f64's drift control needs no period
        self.recompute_every = check_recompute_every(recompute_every, self.algorithm)
        self._since = 0
        self._n = 0
        self._inserted = 0
        self._cursor = 0
        #: drift control of ``sum_f64``: one track per running sum (plain mode: one), None for other monoids
        self._tracks: list[f64_track.F64Track] | None = None
        if f64_track.tracked(monoid):
            self._tracks = [f64_track.EMPTY] * max(len(self.ranges), 1)
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

    # drift control: whether the update that leaves ``n_after`` partials makes a refold due
    def _refold_due(self, n_after: int) -> bool:
        return bool(self.recompute_every) and self._since + 1 >= max(self.recompute_every, n_after)

    def _next_since(self, refold: bool) -> int:
        if not self.recompute_every:
            return self._since
        return 0 if refold else self._since + 1

    def _window(self) -> list[Any]:
        """The stored partials, oldest first."""
        if self.capacity is None:
            return list(self._values)
        W, n, cur = self.capacity, self._n, self._cursor
        return [self._ring[(cur - n + i) % W] for i in range(n)]

    def _refold(self, window: list[Any]) -> list[Any]:
        """Every running aggregate folded from ``window`` (drift control for ``sum_f64``), ranges longest first
        (plain mode: one, the whole window)."""
        if self.capacity is None:
            return [self._fold(window)]
        n = len(window)
        return [self._fold(window[max(n - r, 0) :]) for r in self.ranges]

    def _settled(self, track: f64_track.F64Track, window: Callable[[], list[Any]]) -> f64_track.F64Track:
        """``track``, or -- when its error passed half its window's any-order bound -- its window refolded (the
        refold's n − 1 ⊗ counted, as every refold's). ``window()``: the running sum's partials after the update."""
        if f64_track.within_bound(track):
            return track
        values = window()
        self._fold(values)
        return f64_track.fold(values)

    def _tracked(
        self,
        n: int,
        refold: bool,
        update: Callable[[int, f64_track.F64Track], f64_track.F64Track],
        window_after: Callable[[], list[Any]],
    ) -> list[f64_track.F64Track] | None:
        """The new track of every running sum (ranges longest first; plain mode: one) after an update that leaves
        ``n`` partials: ``update(i, track)`` applies it to running sum ``i``, then :meth:`_settled`; a due periodic
        refold folds them all from ``window_after()``, the window after the update. None when nothing is
        tracked."""
        if self._tracks is None:
            return None
        if refold:
            window = window_after()
            window = window[len(window) - n :]  # (multi-query: a full ring's oldest partial leaves as v enters)
            spans = [window] if self.capacity is None else [window[max(n - r, 0) :] for r in self.ranges]
            return [f64_track.fold(span) for span in spans]
        tracks = []
        for i, track in enumerate(self._tracks):
            new = update(i, track)
            if new is not track:  # a running sum the update left alone is not checked again
                span = n if self.capacity is None else min(self.ranges[i], n)
                new = self._settled(new, functools.partial(_newest, window_after, span))
            tracks.append(new)
        return tracks

    def _insert(self, v: Any) -> None:
        """Plain: ``agg ← agg ⊗ v`` (1 ⊗). Multi-query: Algorithm 1 lines 16–35 — for every range R,
        ``ans_R ← inv(partials[currPos − R]) ⊗ (ans_R ⊗ v)`` *before* ``partials[currPos] ← v`` (2 ⊗ per range).
        Every result (and a due refold) is computed before anything is written."""
        if self.capacity is None:
            agg = self._otimes(self._agg, v)
            n = self._n + 1
            refold = self._refold_due(n)
            if refold:
                window = self._window()
                window.append(v)
                agg = self._refold(window)[0]
            tracks = self._tracked(n, refold, lambda i, t: f64_track.add(t, v, 1), lambda: [*self._window(), v])
            if tracks is not None:
                agg = f64_track.answer(tracks[0])
                self._tracks = tracks
            self._values.append(v)
            self._agg = agg
        else:
            W, cur, ring = self.capacity, self._cursor, self._ring
            new = [self._otimes(self._inv(ring[(cur - r) % W]), self._otimes(self._answers[r], v)) for r in self.ranges]
            n = self._n + 1 if self._n < W else W
            refold = self._refold_due(n)
            if refold:
                window = self._window()
                window.append(v)
                new = self._refold(window[len(window) - n :])
            before = self._n

            def enter(i: int, track: f64_track.F64Track) -> f64_track.F64Track:
                # v enters range R; the partial R back leaves it when it was in the window (else a padding e)
                r = self.ranges[i]
                track = f64_track.add(track, v, 1)
                return f64_track.add(track, ring[(cur - r) % W], -1) if r <= before else track

            tracks = self._tracked(n, refold, enter, lambda: [*self._window(), v])
            if tracks is not None:
                new = [f64_track.answer(t) for t in tracks]
                self._tracks = tracks
            for r, a in zip(self.ranges, new):
                self._answers[r] = a
            ring[cur] = v
            self._cursor = (cur + 1) % W
            self._inserted += 1
        self._n = n
        self._since = self._next_since(refold)

    def _evict(self) -> None:
        """Remove the oldest partial: ``ans_R ← inv(old) ⊗ ans_R`` for the whole window (plain) or for every range
        R ≥ n (the ranges that cover it); its ring slot becomes ``e``. An emptied window resets to ``e``."""
        n = self._n - 1
        if self.capacity is None:
            old = self._values[0]
            agg = self._otimes(self._inv(old), self._agg) if self._n > 1 else self._one
            refold = self._refold_due(n)
            if refold:
                agg = self._refold(self._window()[1:])[0]
            tracks = self._tracked(n, refold, lambda i, t: f64_track.add(t, old, -1), lambda: self._window()[1:])
            if tracks is not None:
                agg = f64_track.answer(tracks[0])
                self._tracks = tracks
            self._values.popleft()
            self._agg = agg
        else:
            W = self.capacity
            slot = (self._cursor - self._n) % W
            old = self._ring[slot]
            if self._n == 1:
                new = [self._one for _ in self.ranges]
            else:
                new = [
                    self._otimes(self._inv(old), self._answers[r]) if r >= self._n else self._answers[r]
                    for r in self.ranges
                ]
            refold = self._refold_due(n)
            if refold:
                new = self._refold(self._window()[1:])
            before = self._n

            def leave(i: int, track: f64_track.F64Track) -> f64_track.F64Track:
                # the oldest partial leaves the ranges that cover the whole window (R >= n), no other
                return f64_track.add(track, old, -1) if self.ranges[i] >= before else track

            tracks = self._tracked(n, refold, leave, lambda: self._window()[1:])
            if tracks is not None:
                new = [f64_track.answer(t) for t in tracks]
                self._tracks = tracks
            for r, a in zip(self.ranges, new):
                self._answers[r] = a
            self._ring[slot] = self._one
        self._n = n
        self._since = self._next_since(refold)

    def _fold(self, values: list[Any]) -> Any:
        if not values:
            return self._one
        acc = values[0]
        for x in values[1:]:
            acc = self._otimes(acc, x)
        return acc

    def _query(self) -> Any:
        """The whole window (not lowered). 0 ⊗."""
        if self.capacity is None:
            return self._agg
        return self._answers[self.capacity]

    @guarded
    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered; ``r`` must be a registered range (``ValueError``). 0 ⊗."""
        if self.capacity is None or not _is_range(r) or r not in self._answers:
            raise ValueError(f"slickdeque_inv answers only its registered ranges {list(self.ranges)}, not {r!r}")
        return self.monoid.lower(self._answers[r])

    def _query_all(self) -> dict[int, Any]:
        if self.capacity is None:
            return {}
        lower = self.monoid.lower
        return {r: lower(self._answers[r]) for r in self.ranges}

    @guarded
    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first. 0 ⊗."""
        return self._query_all()

    @guarded
    def step(self, value: Any) -> dict[int, Any]:
        """One iteration of the paper's loop: ``insert(value)`` then ``query_all()``."""
        self._insert(self.monoid.lift(value))
        return self._query_all()

    @guarded
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

    def _params(self) -> dict[str, Any]:
        """The constructor's ranges and period, plus the drift counter and ``inverse_count`` (not in the snapshot)."""
        return {
            "ranges": self.ranges,
            "recompute_every": self.recompute_every,
            "since": self._since,
            "inverse_count": self.inverse_count,
            "tracks": None if self._tracks is None else tuple(tuple(t) for t in self._tracks),
        }

    @classmethod
    def _from_snapshot(
        cls,
        monoid: Monoid[Any, Any, Any],
        snapshot: SlickDequeInvState,
        ranges: Iterable[int] | None = None,
        recompute_every: int | None = None,
        since: int = 0,
        inverse_count: int = 0,
        tracks: Any = None,
    ) -> SlickDequeInv:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). A snapshot
        whose shape does not fit the ranges raises ``ValueError``/``TypeError``. ``tracks``: the drift control's
        state of ``sum_f64`` (:func:`swagkit.spec.f64_track.restore`); without it the tracks are refolded from the
        partials and the answers follow them."""
        agg = cls(monoid, ranges, recompute_every=recompute_every)
        partials, answers = inv_snapshot_shape(snapshot, agg.ranges, since, inverse_count)
        check = restored_value_check(agg.monoid)
        if check is not None:
            for x in (*partials, *answers):
                check(x)
        if agg.capacity is None:
            agg._values = deque(partials)
            agg._agg = answers[0]
        else:
            agg._ring = list(partials)
            agg._answers = dict(zip(agg.ranges, answers))
            agg._cursor = snapshot.cursor
            agg._inserted = snapshot.inserted
        agg._n = snapshot.length
        agg._since = since
        agg.inverse_count = inverse_count
        if agg._tracks is not None:
            agg._restore_tracks(tracks)
        return agg

    def _restore_tracks(self, tracks: Any) -> None:
        """The drift control's tracks from a snapshot's ``tracks`` (checked), or refolded from the partials."""
        if tracks is not None:
            self._tracks = f64_track.restore(tracks, max(len(self.ranges), 1))
            return
        window = self._window()
        n = len(window)
        spans = [window] if self.capacity is None else [window[max(n - r, 0) :] for r in self.ranges]
        self._tracks = [f64_track.fold(span) for span in spans]
        if self.capacity is None:
            self._agg = f64_track.answer(self._tracks[0])
        else:
            self._answers = {r: f64_track.answer(t) for r, t in zip(self.ranges, self._tracks, strict=True)}


def _nonneg_int(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"snapshot: {what} must be an int, got {type(x).__name__}")
    if x < 0 or x > sys.maxsize:
        raise ValueError(f"snapshot: {what} out of range: {x}")
    return x


def inv_snapshot_shape(
    s: Any, ranges: tuple[int, ...], since: Any = 0, inverse_count: Any = 0
) -> tuple[tuple[Any, ...], list[Any]]:
    """Check that ``s`` is a :class:`SlickDequeInvState` a SlickDeque (Inv) with ``ranges`` can hold (shared by
    both implementations' ``_from_snapshot``); returns ``(partials, running aggregates longest first)``.
    ``TypeError``/``ValueError`` otherwise."""
    if not isinstance(s, SlickDequeInvState):
        raise TypeError(f"slickdeque_inv: expected a SlickDequeInvState, got {type(s).__name__}")
    partials, answers = tuple(s.partials), tuple(s.answers)
    n = _nonneg_int(s.length, "length")
    cursor = _nonneg_int(s.cursor, "cursor")
    inserted = _nonneg_int(s.inserted, "inserted")
    _nonneg_int(since, "since")
    _nonneg_int(inverse_count, "inverse_count")
    if any(not isinstance(a, tuple) or len(a) != 2 for a in answers):
        raise ValueError("slickdeque_inv: a snapshot's answers are (range, aggregate) pairs")
    keys = tuple(a[0] for a in answers)
    if not ranges:
        if s.capacity is not None or keys != (None,) or cursor or inserted or len(partials) != n:
            raise ValueError("slickdeque_inv: not the snapshot of a plain-mode SlickDeque (Inv)")
    else:
        w = ranges[0]
        if s.capacity != w or keys != ranges or len(partials) != w or n > w or cursor != inserted % w or n > inserted:
            raise ValueError(f"slickdeque_inv: not the snapshot of a SlickDeque (Inv) with ranges {list(ranges)}")
    return partials, [a[1] for a in answers]


class SlickDequeNonInv(InOrderAggregator[Any, Any, Any]):
    """SlickDeque (Non-Inv), id ``slickdeque_noninv`` (001 Algorithm 2) for **selective** monoids: a deque of
    ``(seq, val)`` nodes where each ``val`` is the aggregate of everything from its partial to the newest
    (notes N3); a new partial pops every node it dominates (``back ⊗ new`` selects ``new``, tested by
    :func:`~swagkit.spec.slickdeque.selects_right`), eviction pops the head only when it is the oldest partial,
    and answers take the first node younger than ``t − R`` (the corrected answer loop, notes §3.2).

    Exception safety: *strong*. An insert runs all its dominance tests (its only ⊗) before it pops, evicts or
    pushes anything; evictions and queries call no ⊗."""

    algorithm = "slickdeque_noninv"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any], ranges: Iterable[int] | None = None) -> None:
        refuse_reinit(self, self.algorithm)
        monoid = as_monoid(monoid, self.algorithm)
        require_selective(monoid)
        super().__init__(monoid)
        self.ranges: tuple[int, ...] = normalize_ranges(ranges)
        self.capacity: int | None = check_index_size(self.ranges[0], self.algorithm) if self.ranges else None
        self.nodes: deque[tuple[int, Any]] = deque()
        self.first = 0
        self.inserted = 0

    def __len__(self) -> int:
        return self.inserted - self.first

    # an insert in two phases (SlickRange runs both deques' tests before committing either)
    def _lift_value(self, value: Any) -> Any:
        return self.monoid.lift(value)

    def _plan_insert(self, v: Any) -> int:
        """The dominance tests of lines 16–18 for the lifted ``v``: how many tail nodes it pops. Changes nothing
        (but counts its ⊗)."""
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
        return pops

    def _commit_insert(self, v: Any, pops: int) -> None:
        """Evict (lines 13–15, capacity mode, window full), pop ``pops`` dominated nodes, push (19). No ⊗."""
        nodes = self.nodes
        if self.capacity is not None and self.inserted - self.first == self.capacity:
            self._evict()
        for _ in range(pops):
            nodes.pop()
        nodes.append((self.inserted, v))
        self.inserted += 1

    def _insert(self, v: Any) -> None:
        """Evict (lines 13–15, capacity mode, window full), dominance pops (16–18), push (19). The ⊗ tests run
        before anything changes, so a raising ``combine`` leaves the structure as it was."""
        self._commit_insert(v, self._plan_insert(v))

    def _evict(self) -> None:
        """Remove the oldest partial: pop the head iff it is that partial (an ``if``: one partial per call). 0 ⊗."""
        if self.nodes and self.nodes[0][0] == self.first:
            self.nodes.popleft()
        self.first += 1

    def _query(self) -> Any:
        """The head's value (the whole window). 0 ⊗."""
        if not self.nodes:
            return self._one
        return self.nodes[0][1]

    def _query_range(self, r: int) -> Any:
        if not _is_range(r) or r < 1:
            raise ValueError(f"range must be an int ≥ 1, got {r!r}")
        if not self.nodes:
            return self.monoid.lower(self._one)
        limit = self.inserted - 1 - r
        for seq, val in self.nodes:
            if seq > limit:
                return self.monoid.lower(val)
        raise AssertionError("unreachable: the tail is the newest partial")  # pragma: no cover

    @guarded
    def query_range(self, r: int) -> Any:
        """The newest ``min(r, n)`` partials, lowered: the first node with ``seq > t − r``. Any ``r ≥ 1``. 0 ⊗."""
        return self._query_range(r)

    def _query_all(self) -> dict[int, Any]:
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

    @guarded
    def query_all(self) -> dict[int, Any]:
        """``{r: query_range(r)}`` for every registered range, longest first, in one pass over the deque with a
        cursor carried across ranges (Algorithm 2 lines 20–41, corrected). 0 ⊗."""
        return self._query_all()

    @guarded
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

    @guarded
    def step(self, value: Any) -> dict[int, Any]:
        """One iteration of the paper's loop: ``insert(value)`` then ``query_all()``."""
        self._insert(self.monoid.lift(value))
        return self._query_all()

    @guarded
    def snapshot(self) -> SlickDequeNonInvState:
        return SlickDequeNonInvState(self.capacity, tuple(self.nodes), self.first, self.inserted, self.ranges)

    def _params(self) -> dict[str, Any]:
        return {"ranges": self.ranges}

    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: SlickDequeNonInvState, ranges: Iterable[int] | None = None
    ) -> SlickDequeNonInv:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). A snapshot
        whose shape does not fit the ranges raises ``ValueError``/``TypeError``."""
        agg = cls(monoid, ranges)
        nodes = noninv_snapshot_shape(snapshot, agg.ranges)
        check = restored_value_check(agg.monoid)
        if check is not None:
            for _, x in nodes:
                check(x)
        agg.nodes = deque(nodes)
        agg.first = snapshot.first
        agg.inserted = snapshot.inserted
        return agg

    # the re-entry guard held across several operations (SlickRange)
    def _acquire(self, operation: str) -> None:
        if not self._lock.acquire(blocking=False):
            raise reentered(self.algorithm, operation)

    def _release(self) -> None:
        self._lock.release()


def noninv_snapshot_shape(s: Any, ranges: tuple[int, ...]) -> list[tuple[int, Any]]:
    """Check that ``s`` is a :class:`SlickDequeNonInvState` a SlickDeque (Non-Inv) with ``ranges`` can hold:
    sequence numbers increasing inside ``[first, inserted)``, the tail the newest partial, the window within the
    capacity (shared by both implementations' ``_from_snapshot``). Returns the nodes; ``TypeError``/``ValueError``
    otherwise."""
    if not isinstance(s, SlickDequeNonInvState):
        raise TypeError(f"slickdeque_noninv: expected a SlickDequeNonInvState, got {type(s).__name__}")
    first = _nonneg_int(s.first, "first")
    inserted = _nonneg_int(s.inserted, "inserted")
    nodes = list(s.nodes)
    cap = ranges[0] if ranges else None
    if (
        s.capacity != cap
        or tuple(s.ranges) != ranges
        or inserted < first
        or (cap is not None and inserted - first > cap)
    ):
        raise ValueError(f"slickdeque_noninv: not the snapshot of a SlickDeque (Non-Inv) with ranges {list(ranges)}")
    prev = first - 1
    for node in nodes:
        if not isinstance(node, tuple) or len(node) != 2:
            raise ValueError("slickdeque_noninv: a snapshot's nodes are (seq, value) pairs")
        seq = node[0]
        if isinstance(seq, bool) or not isinstance(seq, int) or not prev < seq < inserted:
            raise ValueError("slickdeque_noninv: node sequence numbers must increase inside [first, inserted)")
        prev = seq
    if (inserted > first) != bool(nodes) or (nodes and nodes[-1][0] != inserted - 1):
        raise ValueError("slickdeque_noninv: the deque's tail must be the newest partial of a non-empty window")
    return nodes


def _rebuild_range(cls: Any, hi: Any, lo: Any) -> Any:
    return cls._from_parts(hi, lo)


class SlickRange(Guarded):
    """Range (max − min) served as two Non-Inv deques (notes §7.4: the pair operator ``(max, min)`` is not
    selective, so it cannot be one deque). Same modes and methods as :class:`SlickDequeNonInv`; answers are
    ``max − min`` of the newest ``min(r, n)`` partials, ``None`` for an empty window.

    ``noninv`` is the Non-Inv class to use (the reference one by default; ``swagkit.optimized`` passes its own),
    ``maximum``/``minimum`` the two selective monoids (``max``/``min`` by default; ``max_f64``/``min_f64`` …).
    ``combine_count`` is the sum of both deques' counts.

    Exception safety: *strong*. An insert lifts the value and runs the dominance tests of *both* deques before it
    changes either, so a raising ``combine`` or ``lift`` of one monoid leaves both as they were. Every operation
    holds the re-entry guards of the range and of both deques (a call back into any of them is refused), and
    copies and pickles carry both deques."""

    algorithm: ClassVar[str] = "slick_range"
    exception_safety: ClassVar[str] = "strong"

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
        self._init_guard()

    @classmethod
    def _from_parts(cls, hi: Any, lo: Any) -> SlickRange:
        obj = cls.__new__(cls)
        obj.ranges = tuple(hi.ranges)
        obj.hi = hi
        obj.lo = lo
        obj._init_guard()
        return obj

    @property
    def combine_count(self) -> int:
        return int(self.hi.combine_count) + int(self.lo.combine_count)

    def __len__(self) -> int:
        return len(self.hi)

    def _hold(self, operation: str) -> None:
        self.hi._acquire(operation)
        try:
            self.lo._acquire(operation)
        except BaseException:
            self.hi._release()
            raise

    def _unhold(self) -> None:
        self.lo._release()
        self.hi._release()

    def _insert_held(self, vh: Any, vl: Any) -> None:
        ph = self.hi._plan_insert(vh)
        pl = self.lo._plan_insert(vl)
        self.hi._commit_insert(vh, ph)
        self.lo._commit_insert(vl, pl)

    def _query_all_held(self) -> dict[int, Any]:
        his, los = self.hi._query_all(), self.lo._query_all()
        return {r: (None if len(self) == 0 else his[r] - los[r]) for r in self.ranges}

    @guarded
    def insert(self, value: Any) -> None:
        self._hold("insert")
        try:
            vh = self.hi._lift_value(value)
            vl = self.lo._lift_value(value)
            self._insert_held(vh, vl)
        finally:
            self._unhold()

    @guarded
    def insert_many(self, values: Iterable[Any]) -> None:
        """Every value lifted for both deques first (a refused one changes nothing), then inserted one by one;
        if ``combine`` raises at the j-th, the first j stay inserted (the exception's note says so)."""
        self._hold("insert_many")
        try:
            items = list(values)
            his = [self.hi._lift_value(v) for v in items]
            los = [self.lo._lift_value(v) for v in items]
            for j, (vh, vl) in enumerate(zip(his, los)):
                try:
                    self._insert_held(vh, vl)
                except BaseException as err:
                    err.add_note(f"swagkit {self.algorithm}: insert_many inserted {j} of {len(items)} values")
                    raise
        finally:
            self._unhold()

    @guarded
    def evict(self) -> None:
        self._hold("evict")
        try:
            if len(self.hi) == 0:
                raise EmptyWindowError("slick_range: evict() on an empty window")
            self.hi._evict()
            self.lo._evict()
        finally:
            self._unhold()

    @guarded
    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest partials from both deques (``EmptyWindowError``, nothing evicted, beyond the
        size; ``ValueError``/``TypeError`` for a negative or non-integer count). 0 ⊗."""
        self._hold("evict_many")
        try:
            count = check_count(count)
            if count > len(self.hi):
                raise EmptyWindowError(f"slick_range: evict_many({count}) on a window of {len(self.hi)}")
            for _ in range(count):
                self.hi._evict()
                self.lo._evict()
        finally:
            self._unhold()

    @guarded
    def query(self) -> Any:
        self._hold("query")
        try:
            if len(self) == 0:
                return None
            return self.hi.monoid.lower(self.hi._query()) - self.lo.monoid.lower(self.lo._query())
        finally:
            self._unhold()

    @guarded
    def query_range(self, r: int) -> Any:
        self._hold("query_range")
        try:
            hi, lo = self.hi._query_range(r), self.lo._query_range(r)
            return None if len(self) == 0 else hi - lo
        finally:
            self._unhold()

    @guarded
    def query_all(self) -> dict[int, Any]:
        self._hold("query_all")
        try:
            return self._query_all_held()
        finally:
            self._unhold()

    @guarded
    def step(self, value: Any) -> dict[int, Any]:
        self._hold("step")
        try:
            vh = self.hi._lift_value(value)
            vl = self.lo._lift_value(value)
            self._insert_held(vh, vl)
            return self._query_all_held()
        finally:
            self._unhold()

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its two deques (each flat, by snapshot)."""
        if not self._lock.acquire(blocking=False):
            raise reentered(self.algorithm, "__reduce__")
        try:
            return (_rebuild_range, (type(self), self.hi, self.lo))
        finally:
            self._lock.release()

    def __copy__(self) -> SlickRange:
        import copy

        if not self._lock.acquire(blocking=False):
            raise reentered(self.algorithm, "__copy__")
        try:
            return type(self)._from_parts(copy.copy(self.hi), copy.copy(self.lo))
        finally:
            self._lock.release()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(ranges={list(self.ranges)}, n={len(self)})"
