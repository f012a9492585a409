"""Type stub of the compiled Two-Stacks (paper 000 §3); see the ``.pyx`` for complexity and the paper reference."""

from collections.abc import Iterable
from typing import Any

from swagkit.spec.snapshots import TwoStacksState

from ._stub_bases import SWAGShell

class TwoStacks(SWAGShell[TwoStacksState]):
    """Two-Stacks (paper 000 §3), compiled; same API, snapshots, ``combine_count``, exception safety, re-entry guard
    and copy/pickle as ``swagkit.reference.TwoStacks``."""

def _window_array(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled ``window_array`` fast path: ``array.array`` ('d'/'q') for typed kinds, else a list."""
