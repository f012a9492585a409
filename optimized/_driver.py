"""``window_array`` of :mod:`swagkit.optimized`: the array driver of :mod:`swagkit.reference.driver` (paper 000
§7.1's static-window experiment as one call) with a compiled fast path.
"""

from __future__ import annotations

import array
from collections.abc import Callable, Iterable
from typing import Any

from swagkit.reference.driver import check_window

from ._support import is_f64_kind, lower_is_identity, typed_kind

__all__ = ["window_array", "register_fast_path"]

_FAST: dict[Any, Callable[[Any, Any, Any, int], Any]] = {}


def register_fast_path(cls: Any, fn: Callable[[Any, Any, Any, int], Any]) -> None:
    """Let :func:`window_array` run ``fn(cls, monoid, values, window)`` for the compiled class ``cls``."""
    _FAST[cls] = fn


def window_array(cls: Callable[[Any], Any], monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Query results of a count-based window of size ``window`` slid over ``values``.

    Same semantics as :func:`swagkit.reference.window_array`: for each item, evict when the window already
    holds ``window`` items, insert, record ``query()``; the i-th result is the lowered aggregate of
    ``values[max(0, i-window+1) : i+1]``. Cost: that of n evicts, inserts and queries of ``cls``.

    Returns an ``array.array`` -- typecode ``'d'`` for the ``*_f64`` kinds, ``'q'`` for the ``*_i64`` kinds --
    when ``monoid`` is a typed kind whose ``lower`` is the identity (elementwise equal to the reference's
    list), and a ``list`` otherwise. For a compiled class and a typed kind the whole run is one C loop with no
    Python call per item, reading ``array.array``/``memoryview`` buffers directly (any iterable works).
    """
    window = check_window(window)
    fast = _FAST.get(cls)
    if fast is not None:
        return fast(cls, monoid, values, window)
    agg = cls(monoid)
    out: list[Any] = []
    for v in values:
        if len(agg) == window:
            agg.evict()
        agg.insert(v)
        out.append(agg.query())
    code = typed_kind(monoid)
    if code and lower_is_identity(monoid):
        return array.array("d" if is_f64_kind(code) else "q", out)
    return out
