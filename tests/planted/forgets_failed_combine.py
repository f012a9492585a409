"""FiBA that swallows a ⊗ failing in the middle of its tree surgery and stays usable with stale aggregates
(issue 12's refuse guarantee broken): later answers are silently wrong. The machines' ``combine_raises`` rule
must catch it."""

from __future__ import annotations

from swagkit.reference.fiba import FiBA

BUG = {
    "argv": ["--kind", "ooo", "--monoid", "string_concat"],
    "origin": "issue 12: exception safety of a user's ⊗ (a structure that forgets it failed)",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.39,
    "shrink_s": 2.22,
    "replay_steps": 7,
}


class ForgetsFailedCombine(FiBA):
    """FiBA that swallows a ⊗ failing in the middle of its tree surgery and stays usable: its aggregates are stale,
    so later answers are silently wrong (issue 12). The machines' ``combine_raises`` rule must catch it."""

    def _finish(self) -> None:
        self._fault = None
        self._broken = False
