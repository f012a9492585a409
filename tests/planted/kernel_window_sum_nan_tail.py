"""``window_sum``'s NaN scan stopping one item short of the end (``n - 1`` for ``n`` in the tail block): a NaN
in the last slot of a C-double buffer is not found, and the answers holding it come back as NaN instead of the
``ValueError`` the pure-Python twin raises -- a wrong answer instead of a refusal. The off-by-one at a scan's
tail; compiled only, and only for buffers read in place (a list is validated value by value in Python)."""

from __future__ import annotations

BUG = {
    "argv": ["--monoid", "sum_f64", "--implementation", "optimized", "--no-laws"],
    "origin": "optimized/include/window_sum.h: swag_first_nan_f64's last block bound (an off-by-one at a tail)",
    # tools/find_rates.py --seeds 20 --shrunk 1 (a variant build, the registered runs of argv at their defaults),
    # 2026-11-28: seeds that find it, median seconds to the first failure (shrinking off), seconds to the shrunk
    # call (the whole run: every failing array task shrinks), and the replay: one call
    "found": "20/20",
    "find_s": 2.47,
    "shrink_s": 2.31,
    "replay_steps": 1,
    "kernel": {
        "module": "_slickdeque",
        "header": "window_sum.h",
        "old": "        e = n - b < 256 ? n : b + 256;\n",
        "new": "        e = n - b < 256 ? n - 1 : b + 256;\n",
    },
}
