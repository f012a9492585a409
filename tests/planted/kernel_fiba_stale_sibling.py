"""The compiled FiBA's two-level eviction (the leaf merges, its parent underflows and takes an entry from its
sibling) without recomputing that sibling's up-aggregate: the sibling lost its first entry and child, but its
Π↑ still folds them in, so the root's aggregate -- every query -- counts an evicted entry while the sibling
stays unchanged. A stale partial aggregate after a rotation (the class of the FiBA artifact's issue #77,
notes 003 §6); compiled only (``slide``, deep trees)."""

from __future__ import annotations

BUG = {
    "argv": ["--algorithm", "fiba_mu2", "--implementation", "optimized", "--no-laws"],
    "origin": "optimized/include/fiba_inorder.h: swag_fevict_level2's move case (a stale aggregate)",
    # tools/find_rates.py --seeds 20 --shrunk 1 (a variant build, the registered runs of argv at their defaults),
    # 2026-11-28: seeds that find it, median seconds to the first failure (shrinking off), seconds to the shrunk
    # call (the whole run: every failing array task shrinks), and the replay: one call
    "found": "20/20",
    "find_s": 3.19,
    "shrink_s": 12.34,
    "replay_steps": 1,
    "kernel": {
        "module": "_fiba",
        "header": "fiba_inorder.h",
        "old": "        st->cc += swag_rc_inner_up(ps, kind);\n",
        "new": "",
    },
}
