"""The C driver of the protocol (``tests/protocol/daba_lite.c``) built with ``-DBUG_GARBAGE``: a query of a window of
exactly 10 values writes a line that is not JSON. Reached through ``--exec`` (a program swagkit did not write);
``{exec:BUG_GARBAGE}`` in ``argv`` is that build."""

from __future__ import annotations

BUG = {
    "argv": ["--exec", "{exec:BUG_GARBAGE}", "--monoid", "sum_i64"],
    "flag": "BUG_GARBAGE",
    "origin": "a protocol writer's broken output on one path",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.25,
    "shrink_s": 10.25,
    "replay_steps": 4,
}
