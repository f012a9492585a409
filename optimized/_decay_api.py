"""Paper 004's structures in :mod:`swagkit.optimized`: the compiled ``_qdigest``, ``_window_count``,
``_window_quantiles`` and ``_value_division`` extensions when they are built and ``SWAGKIT_PUREPYTHON`` is not
set, else the pure-Python fallback (the reference classes). Same API, snapshots and answers either way, and the
same robustness (issue 12): input refused alike before anything changes (numpy scalars accepted), exception
safety *strong* (``exception_safety``), overlapping calls refused with ``ReentrantCallError``, copies and pickles
by snapshot (each implementation restores the other's snapshots), q-digests of either implementation merge.

``qdigest_monoid`` builds the q-digest monoid over the class in use here (compiled when available).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

from swagkit.reference.qdigest import qdigest_monoid as _ref_qdigest_monoid
from swagkit.spec.monoid import Monoid

__all__ = ["QDigest", "SlidingWindowCount", "SlidingWindowQuantiles", "ValueDivision", "qdigest_monoid", "DECAY_COMPILED"]

if TYPE_CHECKING:
    from ._fallback import QDigest, SlidingWindowCount, SlidingWindowQuantiles, ValueDivision

    DECAY_COMPILED: bool
else:

    def _load() -> tuple[bool, type, type, type, type]:
        from . import _fallback as fb

        fallback = (False, fb.QDigest, fb.SlidingWindowCount, fb.SlidingWindowQuantiles, fb.ValueDivision)
        if os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
            return fallback
        try:
            from . import _qdigest, _value_division, _window_count, _window_quantiles
        except ImportError:
            return fallback
        return (
            True,
            _qdigest.QDigest,
            _window_count.SlidingWindowCount,
            _window_quantiles.SlidingWindowQuantiles,
            _value_division.ValueDivision,
        )

    DECAY_COMPILED, QDigest, SlidingWindowCount, SlidingWindowQuantiles, ValueDivision = _load()
    del _load


def qdigest_monoid(
    universe_bits: int, eps: float, digest_class: Callable[[int, float], Any] | None = None
) -> Monoid[int, Any, Any]:
    """:func:`swagkit.reference.qdigest.qdigest_monoid` over this module's :class:`QDigest` by default."""
    return _ref_qdigest_monoid(universe_bits, eps, digest_class if digest_class is not None else QDigest)
