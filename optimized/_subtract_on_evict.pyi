"""Type stub of the compiled Subtract-on-Evict (paper 000 §8.3); see the ``.pyx`` for complexity and the paper
reference."""

from collections.abc import Iterable
from typing import Any, Self

from swagkit.spec.checkers.subtract_on_evict import SubtractOnEvictState
from swagkit.spec.monoid import Monoid

from ._stub_bases import SWAGShell

class SubtractOnEvict(SWAGShell[SubtractOnEvictState]):
    """Subtract-on-Evict (paper 000 §8.3), compiled; same API, snapshots, ``combine_count``, ``inverse_count``,
    exception safety, re-entry guard and copy/pickle as ``swagkit.reference.SubtractOnEvict``."""

    inverse_count: int
    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: SubtractOnEvictState, inverse_count: int = 0
    ) -> Self: ...

def _window_array(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled ``window_array`` fast path (``UnsupportedMonoidError`` for a monoid that is not a group):
    ``array.array`` ('q') for sum_i64, else a list."""
