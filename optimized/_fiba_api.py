"""FiBA classes of :mod:`swagkit.optimized` (paper 003): the compiled ``_fiba`` extension when it is built and
``SWAGKIT_PUREPYTHON`` is not set, else the pure-Python fallback (the reference classes). Same API, snapshots,
``combine_count`` and ``touched_count`` either way.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

__all__ = ["FiBA", "FiBALoop", "FIBA_COMPILED"]

if TYPE_CHECKING:
    from ._fallback import FiBA, FiBALoop

    FIBA_COMPILED: bool
else:

    def _load() -> tuple[bool, type, type]:
        from . import _fallback as fb

        if os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
            return False, fb.FiBA, fb.FiBALoop
        try:
            from . import _fiba
        except ImportError:
            return False, fb.FiBA, fb.FiBALoop
        return True, _fiba.FiBA, _fiba.FiBALoop

    FIBA_COMPILED, FiBA, FiBALoop = _load()
    del _load
