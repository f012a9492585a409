"""Pure-Python fallback of :mod:`swagkit.optimized` (used when ``SWAGKIT_PUREPYTHON`` is set or the compiled
extensions are missing): the reference algorithms themselves, so API, snapshots and ``combine_count`` agree by
construction. Each class adds ``_memory_bytes()`` (None: not measurable for Python objects).
"""

from __future__ import annotations

from swagkit.reference import daba, daba_lite, two_stacks, two_stacks_lite
from swagkit.reference import DABA as _RefDABA
from swagkit.reference import DABALite as _RefDABALite
from swagkit.reference import TwoStacks as _RefTwoStacks
from swagkit.reference import TwoStacksLite as _RefTwoStacksLite

__all__ = ["TwoStacks", "TwoStacksLite", "DABA", "DABALite"]


class TwoStacks(_RefTwoStacks):
    __doc__ = two_stacks.TwoStacks.__doc__

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class TwoStacksLite(_RefTwoStacksLite):
    __doc__ = two_stacks_lite.TwoStacksLite.__doc__

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class DABA(_RefDABA):
    __doc__ = daba.DABA.__doc__

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None


class DABALite(_RefDABALite):
    __doc__ = daba_lite.DABALite.__doc__

    def _memory_bytes(self) -> None:
        """Not measurable for the pure-Python fallback."""
        return None
