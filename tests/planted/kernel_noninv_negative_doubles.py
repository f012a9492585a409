"""SlickDeque (Non-Inv)'s typed kernel ordering doubles by their raw IEEE bits: for negative doubles the bits
order the other way round (-1.0's bits exceed -2.0's), so the dominance test keeps the wrong candidate and a
sliding max/min over negative values is wrong. The classic bit-pattern order of floats (radix sorts and
integer-keyed heaps of doubles flip the low bits of negatives for this reason); compiled only."""

from __future__ import annotations

BUG = {
    "argv": ["--algorithm", "slickdeque_noninv", "--implementation", "optimized", "--no-laws"],
    "origin": "optimized/include/slickdeque_noninv_fresh.h: swag_nvf_key without the flip of negative doubles",
    # tools/find_rates.py --seeds 20 --shrunk 1 (a variant build, the registered runs of argv at their defaults),
    # 2026-11-28: seeds that find it, median seconds to the first failure (shrinking off), seconds to the shrunk
    # call (the whole run: every failing array task shrinks), and the replay: one call
    "found": "20/20",
    "find_s": 2.14,
    "shrink_s": 2.50,
    "replay_steps": 1,
    "kernel": {
        "module": "_slickdeque",
        "header": "slickdeque_noninv_fresh.h",
        "old": "        k = (int64_t)(((uint64_t)bits ^ ((uint64_t)s >> 1)) - (uint64_t)s);\n",
        "new": "        k = (int64_t)((uint64_t)bits - (uint64_t)s);\n",
    },
}
