"""SlickDeque classes of :mod:`swagkit.optimized` (paper 001): the compiled ``_slickdeque`` extension when it is
built and ``SWAGKIT_PUREPYTHON`` is not set, else the pure-Python fallback (the reference classes). Same API,
snapshots and ``combine_count`` either way; ``SlickRange`` is the reference recipe over the chosen Non-Inv class.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Iterable

from swagkit.reference.slickdeque import SlickRange as _RefSlickRange
from swagkit.spec.monoid import Monoid

__all__ = ["SlickDequeInv", "SlickDequeNonInv", "SlickRange", "SLICKDEQUE_COMPILED"]

if TYPE_CHECKING:
    from ._fallback import SlickDequeInv, SlickDequeNonInv

    SLICKDEQUE_COMPILED: bool
else:

    def _load() -> tuple[bool, type, type]:
        from . import _fallback as fb

        if os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
            return False, fb.SlickDequeInv, fb.SlickDequeNonInv
        try:
            from . import _slickdeque
        except ImportError:
            return False, fb.SlickDequeInv, fb.SlickDequeNonInv
        from ._driver import register_fast_path

        for cls in (_slickdeque.SlickDequeInv, _slickdeque.SlickDequeNonInv):
            register_fast_path(cls, _slickdeque._window_array)
        return True, _slickdeque.SlickDequeInv, _slickdeque.SlickDequeNonInv

    SLICKDEQUE_COMPILED, SlickDequeInv, SlickDequeNonInv = _load()
    del _load


class SlickRange(_RefSlickRange):
    """Range (max − min) as two :class:`SlickDequeNonInv` deques of :mod:`swagkit.optimized` (see the reference
    :class:`swagkit.reference.SlickRange`)."""

    def __init__(
        self,
        ranges: Iterable[int] | None = None,
        *,
        maximum: Monoid[Any, Any, Any] | None = None,
        minimum: Monoid[Any, Any, Any] | None = None,
        noninv: Callable[..., Any] = SlickDequeNonInv,
    ) -> None:
        super().__init__(ranges, maximum=maximum, minimum=minimum, noninv=noninv)
