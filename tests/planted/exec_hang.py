"""The C driver of the protocol (``tests/protocol/daba_lite.c``) built with ``-DBUG_HANG``: an evict of a window of
exactly 7 values never answers: a hang the per-operation timeout must turn into a finding, shrunk without waiting a
full timeout per candidate. Reached through ``--exec`` (a program swagkit did not write); ``{exec:BUG_HANG}`` in
``argv`` is that build."""

from __future__ import annotations

BUG = {
    "argv": ["--exec", "{exec:BUG_HANG}", "--monoid", "max_i64", "--timeout", "1"],
    "flag": "BUG_HANG",
    "origin": "an infinite loop on one shape (a rebalance that never terminates)",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 1.69,
    "shrink_s": 23.94,
    "replay_steps": 8,
}
