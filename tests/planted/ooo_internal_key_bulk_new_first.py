"""A bulk insert whose key already sits in an internal node of the B-tree folds new ⊗ old there (the wrong
order): invisible to commutative monoids and to collisions at the leaves. A shape the machines found in a public
C++ FiBA (issue 14's opening): a bulk colliding with an internal key."""

from __future__ import annotations

from typing import Any

from swagkit.reference import FiBA

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "issue 14's opening: a public C++ FiBA's bulk insert at an internal node's key",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.19,
    "shrink_s": 16.37,
    "replay_steps": 3,
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


class InternalKeyBulkNewFirst(_CollidingBulkNewFirst):
    """Bulk key colliding with an internal node's key: new ⊗ old."""
