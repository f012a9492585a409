"""One key's sliding window on an executor: the aggregators of every output column, carried across chunks.

A key's rows reach :mod:`.frames_exec` in order (the sort puts them together) but possibly in several chunks; the
state here survives from one chunk to the next, so memory is bounded by the window, never by the key's rows:

* :class:`RowsKey` -- ``rows=W``: the W rows ending at the current one. With an in-order algorithm each chunk's
  run of the key is one call of :func:`swagkit.optimized.window_array` (a C loop for the typed kinds) over the
  last ``W - 1`` values kept from before plus the run; with FiBA, ``FiBA.slide`` on a FiBA kept across chunks
  (times are the rows' positions within the key).
* :class:`RangeKey` -- ``range=T`` with an in-order algorithm: per group of peers (equal time) the rows entering
  are inserted (``insert_many``), those older than ``t - T`` evicted (``evict_many``) and the window queried once
  for the whole group (Spark's peer rule: the frame of a row holds every row of its time).
* :class:`FibaRangeKey` -- ``range=T`` with FiBA (paper 003: ``insert(t, v)``, ``bulk_evict(t)``, ``query``,
  ``range_query``): rows arrive in groups (equal ``arrival`` value, or equal time without ``arrival``); see
  :mod:`.frames` for the out-of-order semantics.

A key picked for debug mode (``check=True``) runs the same operations one by one on the aggregator wrapped by its
kind's debug wrapper (:func:`swagkit.verify.debug.checked`): every operation is compared with the executable
model and, for registered algorithms, the invariant checker and ⊗ budget; a failure raises
:class:`FrameCheckError` naming the key and the output column.

Each ``run`` returns, per output column, the answers of the run's rows (an ``array.array``/numpy array for typed
kinds, else a list) and a boolean mask of the rows whose frame holds no non-NULL input (``None``: none).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from swagkit.spec.monoid import Monoid

from .frames_spec import AggregateSpec, FrameSpec

__all__ = ["FrameCheckError", "LateRowError", "Lane", "RunData", "Piece", "KeyState", "new_key_state"]

#: "no non-NULL input yet": a position older than any frame's first
_NEVER = -(2**62)
#: one output column's answers for one run: (values, empty mask or None)
Piece = tuple[Any, Any]


class FrameCheckError(AssertionError):
    """``check=True`` found a wrong aggregator: its debug wrapper raised on a sampled key."""


class LateRowError(ValueError):
    """A row arrived more than ``lateness`` behind the largest event time its key had seen."""


@dataclass(frozen=True)
class Lane:
    """One output column as the executor runs it: its spec, the monoid the aggregator gets (NULLs lift to the
    identity for object inputs) and, for typed inputs, the number a NULL is replaced with (the identity)."""

    spec: AggregateSpec
    monoid: Monoid[Any, Any, Any]
    nullable: bool


@dataclass(frozen=True)
class Algorithm:
    """How aggregators are made on the executor: ``make(monoid)`` a plain one, ``make_checked(monoid)`` one in
    debug mode; ``window_class`` is what :func:`~swagkit.optimized.window_array` gets (in-order algorithms)."""

    make: Callable[[Monoid[Any, Any, Any]], Any]
    make_checked: Callable[[Monoid[Any, Any, Any]], Any]
    window_class: Callable[..., Any]


@dataclass
class RunData:
    """One key's rows within a chunk: per lane the input values (numpy for typed kinds, else a list) and the
    validity mask (``None``: no NULL); for ``range`` frames the times (numpy) and the end of every arrival group
    (peers without ``arrival``) relative to the run."""

    size: int
    values: list[Any]
    valid: list[Any]
    times: Any = None
    group_ends: Any = None


class KeyState:
    """The window state of one key (see the module docstring)."""

    def __init__(
        self, key: tuple[Any, ...], frame: FrameSpec, lanes: Sequence[Lane], algorithm: Algorithm, checked: bool
    ) -> None:
        self.key = key
        self.frame = frame
        self.lanes = tuple(lanes)
        self.checked = checked
        self.algorithm = algorithm
        self.seen = 0  # rows of this key so far: positions are 0, 1, ...

    def run(self, data: RunData) -> list[Piece]:
        """The answers for the key's next ``data.size`` rows."""
        try:
            pieces = self._run(data)
        except AssertionError as err:
            if not self.checked:
                raise
            raise FrameCheckError(
                f"swagkit sliding_aggregate check=True: the aggregator failed its debug check on key {self.key!r} "
                f"(rows {self.seen}..{self.seen + data.size - 1} of the key): {type(err).__name__}: {err}"
            ) from err
        self.seen += data.size
        return pieces

    def _run(self, data: RunData) -> list[Piece]:
        raise NotImplementedError

    def _new(self, lane: Lane) -> Any:
        return self.algorithm.make_checked(lane.monoid) if self.checked else self.algorithm.make(lane.monoid)


def _as_python(values: Any) -> list[Any]:
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


class RowsKey(KeyState):
    """``rows=W`` (see the module docstring): in-order algorithms by ``window_array`` over the kept tail plus the
    run, FiBA by ``slide``; a checked key one operation at a time."""

    def __init__(
        self, key: tuple[Any, ...], frame: FrameSpec, lanes: Sequence[Lane], algorithm: Algorithm, checked: bool
    ) -> None:
        super().__init__(key, frame, lanes, algorithm, checked)
        assert frame.rows is not None
        self.window = frame.rows
        self.tails: list[Any] = [None] * len(self.lanes)
        self.last_valid = [_NEVER] * len(self.lanes)  # position of the key's latest non-NULL input, per lane
        persistent = checked or frame.out_of_order
        self.aggs: list[Any] = [self._new(lane) for lane in self.lanes] if persistent else []

    def _run(self, data: RunData) -> list[Piece]:
        positions = np.arange(self.seen, self.seen + data.size, dtype=np.int64)
        pieces: list[Piece] = []
        for i, lane in enumerate(self.lanes):
            values = data.values[i]
            if self.checked:
                answers = self._step(self.aggs[i], values, positions)
            elif self.frame.out_of_order:
                answers = self.aggs[i].slide(positions, values, self.window)
            else:
                answers = self._window_array(i, lane, values)
            pieces.append((answers, self._empty(i, data.valid[i], positions)))
        return pieces

    def _window_array(self, i: int, lane: Lane, values: Any) -> Any:
        from swagkit.optimized import window_array

        tail = self.tails[i]
        if tail is not None:
            values = np.concatenate((tail, values)) if isinstance(values, np.ndarray) else tail + values
        answers = window_array(self.algorithm.window_class, lane.monoid, values, self.window)
        keep = min(self.window - 1, len(values))
        # a copy: a view would keep the whole chunk's buffer alive
        self.tails[i] = (
            (values[len(values) - keep :].copy() if isinstance(values, np.ndarray) else values[len(values) - keep :])
            if keep
            else None
        )
        return answers[len(tail) :] if tail is not None else answers

    def _step(self, agg: Any, values: Any, positions: Any) -> list[Any]:
        answers = []
        for position, value in zip(positions.tolist(), _as_python(values), strict=True):
            if self.frame.out_of_order:
                while len(agg) >= self.window:
                    agg.evict()
                agg.insert(position, value)
            else:
                if len(agg) == self.window:
                    agg.evict()
                agg.insert(value)
            answers.append(agg.query())
        return answers

    def _empty(self, i: int, valid: Any, positions: Any) -> Any:
        """Rows whose frame (positions ``p - W + 1 .. p``) holds no non-NULL input: the latest non-NULL position
        up to each row (a running maximum, carried across runs) is older than the frame."""
        if valid is None:
            self.last_valid[i] = int(positions[-1])
            return None
        latest = np.where(valid, positions, _NEVER)
        latest[0] = max(int(latest[0]), self.last_valid[i])
        latest = np.maximum.accumulate(latest)
        self.last_valid[i] = int(latest[-1])
        empty = latest < positions - (self.window - 1)
        return empty if empty.any() else None


def _group_bounds(data: RunData) -> tuple[Any, Any]:
    """(starts, ends) of the run's groups."""
    ends = data.group_ends
    starts = np.concatenate(([0], ends[:-1]))
    return starts, ends


class _InOrderRange(KeyState):
    """What the in-order ``range`` frames share: the lower bound of every group and which rows' frames hold no
    non-NULL input."""

    def __init__(
        self, key: tuple[Any, ...], frame: FrameSpec, lanes: Sequence[Lane], algorithm: Algorithm, checked: bool
    ) -> None:
        super().__init__(key, frame, lanes, algorithm, checked)
        assert frame.range is not None
        self.span = frame.range
        self.last_valid: list[Any] = [None] * len(self.lanes)  # latest time of a non-NULL input, per lane

    def _empty(self, i: int, valid: Any, times: Any, ends: Any, lower: Any) -> Any:
        """Rows whose frame ``[t - T, t]`` (peers included) holds no non-NULL input: the latest non-NULL time up
        to the end of the row's group is below ``t - T``."""
        if valid is None:
            self.last_valid[i] = times[-1]
            return None
        floor = -np.inf if self.frame.time_is_float else np.iinfo(np.int64).min
        latest = np.where(valid, times, floor)
        if self.last_valid[i] is not None:
            latest[0] = max(latest[0], self.last_valid[i])
        latest = np.maximum.accumulate(latest)
        self.last_valid[i] = latest[-1] if latest[-1] != floor else self.last_valid[i]
        group_empty = latest[ends - 1] < lower
        if not group_empty.any():
            return None
        return np.repeat(group_empty, np.diff(np.concatenate(([0], ends))))


class RangeKey(_InOrderRange):
    """``range=T`` with an in-order (FIFO) algorithm: per peer group, evict the rows older than ``t - T``, insert
    the group, query once (see the module docstring). The times held are kept as (time, rows) pairs, one per
    group, so eviction costs O(1) Python steps per group."""

    def __init__(
        self, key: tuple[Any, ...], frame: FrameSpec, lanes: Sequence[Lane], algorithm: Algorithm, checked: bool
    ) -> None:
        super().__init__(key, frame, lanes, algorithm, checked)
        self.held: deque[tuple[Any, int]] = deque()
        self.aggs = [self._new(lane) for lane in self.lanes]

    def _run(self, data: RunData) -> list[Piece]:
        starts, ends = _group_bounds(data)
        times = data.times
        group_times = times[starts]
        lower = group_times - self.span
        evictions = self._evictions(group_times.tolist(), lower.tolist(), (ends - starts).tolist())
        sizes = ends - starts
        pieces: list[Piece] = []
        for i in range(len(self.lanes)):
            agg, values = self.aggs[i], data.values[i]
            answers = []
            for start, end, evict in zip(starts.tolist(), ends.tolist(), evictions, strict=True):
                if evict:
                    agg.evict_many(evict)
                agg.insert_many(values[start:end])
                answers.append(agg.query())
            pieces.append((self._repeat(answers, sizes), self._empty(i, data.valid[i], times, ends, lower)))
        return pieces

    def _evictions(self, group_times: list[Any], lower: list[Any], sizes: list[int]) -> list[int]:
        """How many rows leave the window before each group enters: the held groups older than its bound."""
        held = self.held
        evictions = []
        for time, bound, size in zip(group_times, lower, sizes, strict=True):
            evict = 0
            while held and held[0][0] < bound:
                evict += held.popleft()[1]
            evictions.append(evict)
            held.append((time, size))
        return evictions

    @staticmethod
    def _repeat(answers: list[Any], sizes: Any) -> Any:
        if answers and isinstance(answers[0], (float, int)) and not isinstance(answers[0], bool):
            try:
                return np.repeat(np.asarray(answers), sizes)
            except (OverflowError, TypeError):  # pragma: no cover - mixed or huge ints: fall back to a list
                pass
        out: list[Any] = []
        for answer, size in zip(answers, sizes.tolist(), strict=True):
            out.extend([answer] * size)
        return out


class FibaRangeKey(_InOrderRange):
    """``range=T`` with FiBA. Rows arrive group by group (equal ``arrival`` value; peers of equal time without
    ``arrival``); every row of a group is inserted (a NULL input is not), then each row gets the fold of the arrived
    rows with times in ``[t - T, t]``: ``query()`` after evicting below ``t - T`` in order, ``range_query`` out of
    order. Out of order, rows older than ``watermark - T`` are evicted, the watermark being the largest time seen
    minus ``lateness`` (nothing is evicted without ``lateness``); a row older than the watermark raises
    :class:`LateRowError`. A per-lane count of non-NULL inputs (FiBA over ``sum_i64``) tells an empty frame."""

    def __init__(
        self, key: tuple[Any, ...], frame: FrameSpec, lanes: Sequence[Lane], algorithm: Algorithm, checked: bool
    ) -> None:
        super().__init__(key, frame, lanes, algorithm, checked)
        self.aggs = [self._new(lane) for lane in self.lanes]
        self.max_time: Any = None
        self.counts: list[Any] = [None] * len(self.lanes)
        if frame.arrival is not None:
            from swagkit.optimized import FiBA
            from swagkit.spec.library import sum_i64

            self.counts = [FiBA(sum_i64()) if lane.nullable else None for lane in self.lanes]

    def _run(self, data: RunData) -> list[Piece]:
        starts, ends = _group_bounds(data)
        times = data.times.tolist()
        pieces: list[list[Any]] = [[] for _ in self.lanes]
        empties: list[list[bool]] = [[] for _ in self.lanes]
        values = [_as_python(v) for v in data.values]
        valid = [None if v is None else v.tolist() for v in data.valid]
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            self._arrive(times, start, end, values, valid)
            for i, agg in enumerate(self.aggs):
                if self.frame.arrival is None:
                    answer = agg.query()
                    pieces[i].extend([answer] * (end - start))
                    continue
                for j in range(start, end):
                    pieces[i].append(agg.range_query(times[j] - self.span, times[j]))
                    empties[i].append(self._arrived_empty(i, valid[i], times, j))
        if self.frame.arrival is None:
            group_times = data.times[starts]
            lower = group_times - self.span
            return [(pieces[i], self._empty(i, data.valid[i], data.times, ends, lower)) for i in range(len(self.lanes))]
        return [(pieces[i], np.asarray(empties[i]) if any(empties[i]) else None) for i in range(len(self.lanes))]

    def _arrive(
        self, times: list[Any], start: int, end: int, values: list[list[Any]], valid: list[list[bool] | None]
    ) -> None:
        """Insert the group ``start..end`` (in order: its times are sorted), then evict what no later row needs."""
        watermark = self._watermark()
        if watermark is not None and times[start] < watermark:
            late = next(t for t in times[start:end] if t < watermark)
            raise LateRowError(
                f"sliding_aggregate: key {self.key!r} got a row at time {late!r} after time {self.max_time!r} had "
                f"arrived, more than lateness={self.frame.lateness!r} behind; raise lateness (or pass None)"
            )
        for i, agg in enumerate(self.aggs):
            mask, count = valid[i], self.counts[i]
            for j in range(start, end):
                if mask is None or mask[j]:
                    agg.insert(times[j], values[i][j])
                    if count is not None:
                        count.insert(times[j], 1)
        group_max = times[end - 1]
        self.max_time = group_max if self.max_time is None else max(self.max_time, group_max)
        if self.frame.arrival is None:
            self._evict_below(self.max_time - self.span)
        else:
            watermark = self._watermark()
            if watermark is not None:
                self._evict_below(watermark - self.span)

    def _watermark(self) -> Any:
        if self.frame.arrival is None or self.frame.lateness is None or self.max_time is None:
            return None
        return self.max_time - self.frame.lateness

    def _evict_below(self, bound: Any) -> None:
        """Evict every entry with time < ``bound`` (``bulk_evict`` removes times ≤ its argument)."""
        last = math.nextafter(bound, -math.inf) if self.frame.time_is_float else bound - 1
        for agg in self.aggs:
            agg.bulk_evict(last)
        for count in self.counts:
            if count is not None:
                count.bulk_evict(last)

    def _arrived_empty(self, i: int, mask: list[bool] | None, times: list[Any], j: int) -> bool:
        if mask is None or mask[j]:
            return False  # the row itself is in its frame
        count = self.counts[i]
        assert count is not None
        return bool(count.range_query(times[j] - self.span, times[j]) == 0)


def new_key_state(
    key: tuple[Any, ...], frame: FrameSpec, lanes: Sequence[Lane], algorithm: Algorithm, checked: bool
) -> KeyState:
    """The state class for ``frame``: :class:`RowsKey`, :class:`RangeKey` or :class:`FibaRangeKey`."""
    if frame.rows is not None:
        return RowsKey(key, frame, lanes, algorithm, checked)
    if frame.out_of_order:
        return FibaRangeKey(key, frame, lanes, algorithm, checked)
    return RangeKey(key, frame, lanes, algorithm, checked)
