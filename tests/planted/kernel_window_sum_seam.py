"""``window_sum``'s float kernel run as two halves side by side (issue 24) without the frames that straddle the
cut: the second half's first block never receives the suffix folds of the block before it, so every frame
ending in that block misses the values left of the cut. The class of bug of a partitioned window engine
whose frames do not cross its partition boundaries; compiled only (the pure-Python twin has one stream). Found
by the array check of ``window_sum`` against its twin when the input has at least six blocks."""

from __future__ import annotations

BUG = {
    "argv": ["--monoid", "sum_f64", "--implementation", "optimized", "--no-laws"],
    "origin": "optimized/include/window_sum.h: the seam of the two halves (the partition-boundary class)",
    # tools/find_rates.py --seeds 20 --shrunk 1 (a variant build, the registered runs of argv at their defaults),
    # 2026-11-28: seeds that find it, median seconds to the first failure (shrinking off), seconds to the shrunk
    # call (the whole run: every failing array task shrinks), and the replay: one call
    "found": "20/20",
    "find_s": 2.81,
    "shrink_s": 2.84,
    "replay_steps": 1,
    "kernel": {
        "module": "_slickdeque",
        "header": "window_sum.h",
        "old": "            swag_add_suffix_folds_f64(x, h * w, w, n, out);\n",
        "new": "",
    },
}
