"""Deliberately broken algorithms: the verification tools must catch each of these.

Not collected by pytest (no ``test_`` prefix); imported by tests and by CrossHair runs.
"""

from __future__ import annotations

from swagkit.reference.daba_lite import DABALite
from swagkit.verify.symbolic import _run


class SwappedShrink(DABALite):
    """DABA Lite with the operands of shrink's second ⊗ swapped (``ΠA ⊗ *(A−1)`` instead of
    ``*(A−1) ⊗ ΠA``): correct for every commutative monoid, wrong for non-commutative ones."""

    def _fixup(self) -> None:
        if self.F == self.B or self.L == self.B or self.L == self.R:
            super()._fixup()
            return
        d = self.deque
        d.set(self.L, self._otimes(self._pi_L(), self.aggRA))
        self.L = self.L + 1
        d.set(self.A - 1, self._otimes(self._pi_A(), d.get(self.A - 1)))
        self.A = self.A - 1
        self.last_case = "shrink"


def agrees_swapped_shrink(pattern: int) -> bool:
    """The planted bug under the same contract as :mod:`swagkit.verify.symbolic`.

    post: __return__
    """
    return _run(SwappedShrink, pattern)
