"""A size counter kept by the single-entry operations and never updated by the bulk ones (issue 14's opening:
a bulk that changes the size)."""

from __future__ import annotations

from typing import Any

from swagkit.spec.ooo import TimedWindow

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "issue 14's opening: a cached size the bulk operations forget",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.13,
    "shrink_s": 0.51,
    "replay_steps": 1,
}


class BulkSizeStale(TimedWindow[Any, Any, Any]):
    """A size counter that the single-entry operations keep and the bulk operations never update."""

    def __init__(self, monoid: Any) -> None:
        super().__init__(monoid)
        self._n = 0

    def insert(self, time: Any, value: Any) -> None:
        fresh = time not in self
        super().insert(time, value)
        self._n += fresh

    def evict(self) -> None:
        super().evict()
        self._n -= 1

    def remove(self, time: Any) -> None:
        super().remove(time)
        self._n -= 1

    def __len__(self) -> int:
        return self._n
