"""The array driver: run a whole sequence through a count-based sliding window.

``window_array(cls, monoid, values, window)`` feeds ``values`` in order into a fresh ``cls(monoid)``; before
each insert it evicts when the window already holds ``window`` items, and after each insert it records
``query()``. The i-th result is the lowered aggregate of ``values[max(0, i-window+1) : i+1]`` -- the paper's
static-window experiment (000 §7.1) as one call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


def check_window(window: Any) -> int:
    """A count-based window size: an integer (numpy integers too), not a bool, at least 1. A float such as 2.5
    would never equal the window's length, so the window would silently grow without bound: it raises
    ``TypeError`` instead, and a size below 1 ``ValueError``."""
    if isinstance(window, bool) or not hasattr(type(window), "__index__"):
        raise TypeError(f"window must be an int, got {type(window).__name__}")
    w = int(window.__index__())
    if w < 1:
        raise ValueError("window must be at least 1")
    return w


def window_array(cls: Callable[[Any], Any], monoid: Any, values: Iterable[Any], window: int) -> list[Any]:
    """Query results of a count-based window of size ``window`` slid over ``values`` (see the module doc)."""
    window = check_window(window)
    agg = cls(monoid)
    out: list[Any] = []
    for v in values:
        if len(agg) == window:
            agg.evict()
        agg.insert(v)
        out.append(agg.query())
    return out


__all__ = ["window_array", "check_window"]
