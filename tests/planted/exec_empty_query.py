"""The C driver of the protocol (``tests/protocol/daba_lite.c``) built with ``-DBUG_EMPTY_QUERY``: a query of an empty
window answers the representation's zero instead of the monoid's identity. Reached through ``--exec`` (a program
swagkit did not write); ``{exec:BUG_EMPTY_QUERY}`` in ``argv`` is that build."""

from __future__ import annotations

BUG = {
    "argv": ["--exec", "{exec:BUG_EMPTY_QUERY}", "--monoid", "max_i64"],
    "flag": "BUG_EMPTY_QUERY",
    "origin": "the identity of a selective monoid taken as 0 (a common port bug)",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.07,
    "shrink_s": 0.07,
    "replay_steps": 1,
}
