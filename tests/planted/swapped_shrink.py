"""DABA Lite with the operands of shrink's second ⊗ swapped: right for every commutative monoid, wrong for the
non-commutative ones (paper 000 §5's fixup; the class of the operand-order bugs a commutative test suite never
sees). Also CrossHair's target in ``tests/planted_bugs.py`` and Spark's in ``tests/test_spark_frames.py``."""

from __future__ import annotations

from swagkit.reference.daba_lite import DABALite

BUG = {
    "argv": ["--monoid", "string_concat"],
    "origin": "paper 000 §5: the fixup's shrink case, operands in the wrong order",
    # tools/find_rates.py --seeds 20 --shrunk 1 at the defaults (--budget 30, --jobs 2), 2026-11-28 (stop 32): seeds
    # that find it, median seconds to the first failure (shrinking off), seconds to a shrunk replay, its steps
    "found": "20/20",
    "find_s": 0.21,
    "shrink_s": 5.73,
    "replay_steps": 4,
}


class SwappedShrink(DABALite):
    """DABA Lite with the operands of shrink's second ⊗ swapped (``ΠA ⊗ *(A−1)`` instead of
    ``*(A−1) ⊗ ΠA``): correct for every commutative monoid, wrong for non-commutative ones."""

    def _fixup(self) -> None:
        if self.F == self.B or self.L == self.B or self.L == self.R:
            super()._fixup()
            return
        d = self.deque
        new_l = self._otimes(self._pi_L(), self.aggRA)
        new_am1 = self._otimes(self._pi_A(), d.get(self.A - 1))  # swapped: ΠA ⊗ *(A−1)
        d.set(self.L, new_l)  # both ⊗ returned (atomic like the real fixup: only the operand order is wrong)
        d.set(self.A - 1, new_am1)
        self.L = self.L + 1
        self.A = self.A - 1
        self.last_case = "shrink"
