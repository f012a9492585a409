"""FlatFAT and Reactive Aggregator classes of :mod:`swagkit.optimized` (paper 002): the compiled ``_flatfat`` and
``_reactive`` extensions when they are built and ``SWAGKIT_PUREPYTHON`` is not set, else the pure-Python
fallback (the reference classes). Same API, snapshots and ``combine_count`` either way.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

__all__ = ["FlatFAT", "ReactiveAggregator", "REACTIVE_COMPILED"]

if TYPE_CHECKING:
    from ._fallback import FlatFAT, ReactiveAggregator

    REACTIVE_COMPILED: bool
else:

    def _load() -> tuple[bool, type, type]:
        from . import _fallback as fb

        if os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
            return False, fb.FlatFAT, fb.ReactiveAggregator
        try:
            from . import _flatfat, _reactive
        except ImportError:
            return False, fb.FlatFAT, fb.ReactiveAggregator
        from ._driver import register_fast_path

        register_fast_path(_reactive.ReactiveAggregator, _reactive._window_array)
        return True, _flatfat.FlatFAT, _reactive.ReactiveAggregator

    REACTIVE_COMPILED, FlatFAT, ReactiveAggregator = _load()
    del _load
