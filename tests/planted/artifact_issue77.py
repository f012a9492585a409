"""The public FiBA artifact before its issue-#77 fix (notes 003 §6, commit 9443d51): ``rebalanceAfterEvict`` did
not OR the sibling's left-spine flag into ``hitLeft``. When a last child borrows from, or merges with, a left
sibling on the left spine, that spine node's left aggregate changes and is never repaired: a stale aggregate and
a wrong query after an evict in the middle of the window. The paper's benchmarks ran with it (they evict only
the oldest entries, where the flag is already set)."""

from __future__ import annotations

from typing import Any

from swagkit.reference import FiBA

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "notes 003 §6: artifact issue #77, rebalanceAfterEvict without hitLeft |= sibling.leftSpine",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 1.99,
    "shrink_s": 26.93,
    "replay_steps": 9,
}


class ArtifactIssue77(FiBA):
    """Rebalance after evict with the artifact's spine flags before the fix."""

    @staticmethod
    def _spine_hits(node: Any, sibling: Any, hit_left: bool, hit_right: bool) -> tuple[bool, bool]:
        return hit_left or node.left_spine, hit_right or sibling.right_spine or node.right_spine
