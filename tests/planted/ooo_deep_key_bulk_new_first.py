"""A bulk insert whose key sits two or more levels above the leaves folds new ⊗ old there: needs a tree of
height three or more before the bulk collides (issue 14's opening, the deep variant of an internal-key
collision)."""

from __future__ import annotations

from typing import Any

from swagkit.reference import FiBA

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "issue 14's opening: the same collision in a tree of height ≥ 3",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.39,
    "shrink_s": 9.66,
    "replay_steps": 41,
}


class _CollidingBulkNewFirst(FiBA):
    """A FiBA whose bulk insert, at a key already held by a node ``min_level`` or more levels above the leaves,
    combines new ⊗ old (the wrong order) -- invisible to commutative monoids and to leaf collisions."""

    min_level = 1

    def _multisearch(self, keys: list[Any], vals: list[Any]) -> tuple[list[Any], list[tuple[Any, ...]]]:
        leaf_events, matches = super()._multisearch(keys, vals)
        for seq, node, i, level in matches:
            if level >= self.min_level:  # the caller folds node.values[i] ⊗ vals[seq]: swap the operands
                vals[seq], node.values[i] = node.values[i], vals[seq]
        return leaf_events, matches


class DeepKeyBulkNewFirst(_CollidingBulkNewFirst):
    """Bulk key colliding with a key two or more levels above the leaves (a tree of height ≥ 3): new ⊗ old."""

    min_level = 2
