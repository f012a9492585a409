"""FlatFIT class of :mod:`swagkit.optimized` (papers 001 §2, 000 §7): the compiled ``_flatfit`` extension when it
is built and ``SWAGKIT_PUREPYTHON`` is not set, else the pure-Python fallback (the reference class). Same API,
snapshots and ``combine_count`` either way.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

__all__ = ["FlatFIT", "FLATFIT_COMPILED"]

if TYPE_CHECKING:
    from ._fallback import FlatFIT

    FLATFIT_COMPILED: bool
else:

    def _load() -> tuple[bool, type]:
        from . import _fallback as fb

        if os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
            return False, fb.FlatFIT
        try:
            from . import _flatfit
        except ImportError:
            return False, fb.FlatFIT
        from ._driver import register_fast_path

        register_fast_path(_flatfit.FlatFIT, _flatfit._window_array_clamped)
        return True, _flatfit.FlatFIT

    FLATFIT_COMPILED, FlatFIT = _load()
    del _load
