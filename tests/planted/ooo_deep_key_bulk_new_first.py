"""A bulk insert whose key sits two or more levels above the leaves folds new ⊗ old there: needs a tree of
height three or more before the bulk collides (issue 14's opening, the deep variant of an internal-key
collision; the bulk insert is the internal-key file's, only the level differs)."""

from __future__ import annotations

from planted.ooo_internal_key_bulk_new_first import _CollidingBulkNewFirst

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


class DeepKeyBulkNewFirst(_CollidingBulkNewFirst):
    """Bulk key colliding with a key two or more levels above the leaves (a tree of height ≥ 3): new ⊗ old."""

    min_level = 2
