"""Type stub of the compiled DABA Lite (paper 000 §6); see the ``.pyx`` for complexity and the paper reference."""

from collections.abc import Iterable
from typing import Any

from swagkit.spec.snapshots import DABALiteState

from ._stub_bases import SWAGShell

class DABALite(SWAGShell[DABALiteState]):
    """DABA Lite (paper 000 §6), compiled; same API, snapshots, ``combine_count``, exception safety, re-entry guard
    and copy/pickle as ``swagkit.reference.DABALite``."""

    @property
    def last_case(self) -> str:
        """Name of the last fixup case (``singleton``, ``shift``, ``shrink``, ``flip+shift``, ``flip+shrink``)."""

def _window_array(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled ``window_array`` fast path: ``array.array`` ('d'/'q') for typed kinds, else a list."""
