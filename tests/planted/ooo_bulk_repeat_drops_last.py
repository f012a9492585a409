"""A bulk insert that repeats a time keeps all but the last value of the run: an off-by-one in the fold of
equal times (issue 14's opening: bulks of mostly repeated times)."""

from __future__ import annotations

from itertools import groupby
from typing import Any

from swagkit.spec.ooo import TimedWindow, check_bulk_order

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "issue 14's opening: the fold of a run of equal times in one bulk",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.17,
    "shrink_s": 0.63,
    "replay_steps": 2,
}


class BulkRepeatDropsLast(TimedWindow[Any, Any, Any]):
    """A bulk that repeats a time keeps all but the last value of the run (an off-by-one in the fold of equal
    times)."""

    def bulk_insert(self, pairs: Any) -> None:
        items = list(pairs)
        check_bulk_order([t for t, _ in items])
        kept: list[tuple[Any, Any]] = []
        for _, run in groupby(items, key=lambda p: p[0]):
            group = list(run)
            kept.extend(group[:-1] if len(group) > 1 else group)
        super().bulk_insert(kept)
