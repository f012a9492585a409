"""The public FiBA artifact's bulk-insert bug (notes 003 §7 item 1): a bulk whose time already sits in an internal
node makes that node's recomputation ride along to the next level as a treelet group of its own, not merged
with the promotions of the same target; when the first group splits the node, the second group is inserted into
what is now only its leftmost piece (an order violation or a wrong query). Found by differential tests of the
artifact in 897 of 900 random runs with existing timestamps in the bulks."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from swagkit.reference import FiBA

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "notes 003 §7 item 1: the artifact's doBulkLocalInsert forwards a ride-along without consolidating",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.20,
    "shrink_s": 12.99,
    "replay_steps": 3,
}


class ArtifactRideAlong(FiBA):
    """Bulk insert grouping treelets as the artifact did: a recomputation opens a group of its own."""

    @staticmethod
    def _groups(events: list[Any]) -> Iterator[tuple[Any, list[Any]]]:
        group: list[Any] = []
        for e in events:
            if group and (e.target is not group[0].target or not e.insert):
                yield group[0].target, group
                group = []
            group.append(e)
        if group:
            yield group[0].target, group
