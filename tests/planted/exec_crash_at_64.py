"""The C driver of the protocol (``tests/protocol/daba_lite.c``) built with ``-DBUG_CRASH_AT_64``: the process exits
(status 1) when the window reaches 64 values: a crash at a capacity boundary. Reached through ``--exec`` (a program
swagkit did not write); ``{exec:BUG_CRASH_AT_64}`` in ``argv`` is that build."""

from __future__ import annotations

BUG = {
    "argv": ["--exec", "{exec:BUG_CRASH_AT_64}", "--monoid", "sum_i64"],
    "flag": "BUG_CRASH_AT_64",
    "origin": "a fixed-size buffer overflowing at its capacity",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.34,
    "shrink_s": 2.63,
    "replay_steps": 1,
}
