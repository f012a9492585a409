"""In-order inserts wait in a tail buffer; the first query answers window ⊗ tail, then moves the tail into the
window and keeps the window's cached aggregate: the second query in a row misses the tail (issue 14's opening:
two queries in a row)."""

from __future__ import annotations

from typing import Any

from swagkit.spec.ooo import TimedWindow

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "sum_i64"],
    "origin": "issue 14's opening: a cached aggregate behind an append buffer",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.23,
    "shrink_s": 6.42,
    "replay_steps": 4,
}


class StaleSecondQuery(TimedWindow[Any, Any, Any]):
    """In-order inserts wait in a tail buffer; ``query()`` answers window ⊗ tail correctly, then moves the tail
    into the window but keeps the window's cached aggregate: the second query in a row misses the tail."""

    def __init__(self, monoid: Any) -> None:
        super().__init__(monoid)
        self._tail: list[tuple[Any, Any]] = []
        self._cache: Any = None

    def _flush(self) -> None:
        for t, v in self._tail:
            super().insert(t, v)
        self._tail = []
        self._cache = None

    def insert(self, time: Any, value: Any) -> None:
        last = self._tail[-1][0] if self._tail else (self._times[-1] if self._times else None)
        if last is not None and last < time:
            self.monoid.lift(value)  # a bad value raises before anything changes
            self._tail.append((time, value))
            return
        self._flush()
        super().insert(time, value)

    def query(self) -> Any:
        if self._cache is None:
            self._cache = self.aggregate()
        agg = self._cache
        for _, v in self._tail:
            agg = self.monoid.combine(agg, self.monoid.lift(v))
        for t, v in self._tail:  # the bug: the tail joins the window, the cache stays as it was
            TimedWindow.insert(self, t, v)
        self._tail = []
        return self.monoid.lower(agg)

    def __len__(self) -> int:
        return len(self._times) + len(self._tail)


def _flushing(name: str) -> Any:
    def method(self: StaleSecondQuery, *args: Any) -> Any:
        self._flush()
        return getattr(TimedWindow, name)(self, *args)

    method.__name__ = name
    return method


for _name in ("evict", "remove", "bulk_evict", "bulk_insert", "range_query", "oldest", "youngest", "times"):
    setattr(StaleSecondQuery, _name, _flushing(_name))
