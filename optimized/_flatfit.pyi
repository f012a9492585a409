"""Type stub of the compiled FlatFIT (papers 001 §2, 000 §7); see the ``.pyx`` for complexity, exception safety
(strong) and the paper reference."""

from collections.abc import Iterable
from typing import Any

from swagkit.spec.snapshots import FlatFITState

from ._stub_bases import SWAGShell

class FlatFIT(SWAGShell[FlatFITState]):
    """FlatFIT (papers 001 §2, 000 §7), compiled; same API, snapshots, ``combine_count``, exception safety and
    re-entry guard as ``swagkit.reference.FlatFIT``."""

    def query_range(self, r: int) -> Any: ...

def _window_array(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled ``window_array`` fast path: ``array.array`` ('d'/'q') for typed kinds, else a list."""

def _window_array_clamped(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """``_window_array`` with a window beyond ``Py_ssize_t`` clamped (never reached)."""
