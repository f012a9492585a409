"""The C driver of the protocol (``tests/protocol/daba_lite.c``) built with ``-DBUG_SIZE``: evict does not decrement
the size counter: the program's size disagrees after the first evict. Reached through ``--exec`` (a program swagkit
did not write); ``{exec:BUG_SIZE}`` in ``argv`` is that build."""

from __future__ import annotations

BUG = {
    "argv": ["--exec", "{exec:BUG_SIZE}", "--monoid", "sum_i64"],
    "flag": "BUG_SIZE",
    "origin": "a size kept apart from the pointers and forgotten by one operation",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.17,
    "shrink_s": 0.75,
    "replay_steps": 2,
}
