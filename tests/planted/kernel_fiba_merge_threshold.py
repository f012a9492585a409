"""The compiled FiBA's in-order kernel choosing a move where the reference merges: an eviction that leaves a
leaf below the minimum arity takes an entry from its sibling only when the sibling has one to spare (``sn >=
mu``) and merges with it otherwise; the kernel's test is ``sn >= mu - 1``, so a sibling at the minimum gives
an entry away and is left below it. Answers stay right for a while; the tree is no longer the reference's (its
snapshot and ⊗ count differ). The B-tree underflow threshold off by one; compiled only (``slide``)."""

from __future__ import annotations

BUG = {
    "argv": ["--algorithm", "fiba_mu2", "--implementation", "optimized", "--no-laws"],
    "origin": "optimized/include/fiba_inorder.h: the merge-or-move test of an eviction's rebalance",
    # tools/find_rates.py --seeds 20 --shrunk 1 (a variant build, the registered runs of argv at their defaults),
    # 2026-11-28: seeds that find it, median seconds to the first failure (shrinking off), seconds to the shrunk
    # call (the whole run: every failing array task shrinks), and the replay: one call
    "found": "20/20",
    "find_s": 3.05,
    "shrink_s": 4.23,
    "replay_steps": 1,
    "kernel": {
        "module": "_fiba",
        "header": "fiba_inorder.h",
        "old": "                if (sn >= mu) {\n",
        "new": "                if (sn >= mu - 1) {\n",
    },
}
