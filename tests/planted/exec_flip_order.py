"""The C driver of the protocol (``tests/protocol/daba_lite.c``) built with ``-DBUG_FLIP_ORDER``: shrink folds the
flipped sublist as aggRA ⊗ *L instead of *L ⊗ aggRA: wrong for non-commutative monoids only. Reached through
``--exec`` (a program swagkit did not write); ``{exec:BUG_FLIP_ORDER}`` in ``argv`` is that build."""

from __future__ import annotations

BUG = {
    "argv": ["--exec", "{exec:BUG_FLIP_ORDER}", "--monoid", "string_concat"],
    "flag": "BUG_FLIP_ORDER",
    "origin": "DABA Lite's shrink operand order (paper 000 §5), the class of swagkit's own SwappedShrink",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.15,
    "shrink_s": 2.51,
    "replay_steps": 3,
}
