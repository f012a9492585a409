"""swagkit.optimized -- compiled (Cython) versions of the in-order SWAG algorithms of paper 000.

Exports the same names as :mod:`swagkit.reference` (``Recalc, TwoStacks, TwoStacksLite, DABA, DABALite,
window_array``) with the same constructor, methods, snapshots and ``combine_count`` (the ⊗ call sequence is
identical, so float results are bit-identical), plus ``COMPILED``:

* ``COMPILED`` is True when the C extensions are in use (all of them: each extension is optional at build
  time). Setting the environment variable ``SWAGKIT_PUREPYTHON`` (to anything but ``""``/``"0"``) forces the
  pure-Python fallback, which is also used when the extensions cannot be imported (e.g. built without a C
  compiler): then importing this package warns with :class:`PurePythonFallbackWarning` (100-700x slower), and
  ``FALLBACK_REASONS`` maps each missing extension to its import error.
* Typed monoids (``monoid.fast_path`` in ``sum_f64, max_f64, min_f64, sum_i64, max_i64, min_i64``) store C doubles /
  int64 and call no Python function per ⊗; other monoids call ``monoid.combine``.
* DABA, DABA Lite and Two-Stacks Lite use a chunked array (worst-case O(1) pointer operations, Definition 1);
  Two-Stacks uses two growable arrays (it is amortized anyway).
* ``window_array`` returns an ``array.array`` for typed kinds (a list otherwise); ``Recalc`` is the reference
  one (O(n) per query, not worth compiling).
* ``FiBA``/``FiBALoop`` (paper 003, out-of-order, ``_fiba``): typed values and int64/float64/object timestamps;
  ``combine_count`` and ``touched_count`` equal the reference's (``_fiba_api``).
* Paper 004's structures (``QDigest``, ``qdigest_monoid``, ``SlidingWindowCount``, ``SlidingWindowQuantiles``,
  ``ValueDivision``) are compiled too (:mod:`._decay_api`), with the reference's API, snapshots and answers.
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import TYPE_CHECKING

from swagkit.reference import Recalc

from ._driver import register_fast_path, window_array
from ._flatfit_api import FLATFIT_COMPILED, FlatFIT
from ._reactive_api import REACTIVE_COMPILED, FlatFAT, ReactiveAggregator
from ._slickdeque_api import SLICKDEQUE_COMPILED, SlickDequeInv, SlickDequeNonInv, SlickRange
from ._fiba_api import FIBA_COMPILED, FiBA, FiBALoop
from ._decay_api import DECAY_COMPILED, QDigest, SlidingWindowCount, SlidingWindowQuantiles, ValueDivision, qdigest_monoid

__all__ = ["Recalc", "TwoStacks", "TwoStacksLite", "DABA", "DABALite", "SlickDequeInv", "SlickDequeNonInv", "SlickRange", "FlatFAT", "ReactiveAggregator", "FlatFIT", "window_array", "QDigest", "qdigest_monoid", "SlidingWindowCount", "SlidingWindowQuantiles", "ValueDivision", "COMPILED"]

if TYPE_CHECKING:
    from ._daba import DABA
    from ._daba_lite import DABALite
    from ._two_stacks import TwoStacks
    from ._two_stacks_lite import TwoStacksLite

    COMPILED: bool
else:

    def _load() -> tuple[bool, tuple[type, type, type, type]]:
        if os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
            from . import _fallback as fb

            return False, (fb.TwoStacks, fb.TwoStacksLite, fb.DABA, fb.DABALite)
        try:
            from . import _daba, _daba_lite, _two_stacks, _two_stacks_lite
        except ImportError:
            from . import _fallback as fb

            return False, (fb.TwoStacks, fb.TwoStacksLite, fb.DABA, fb.DABALite)
        for mod, cls in (
            (_two_stacks, _two_stacks.TwoStacks),
            (_two_stacks_lite, _two_stacks_lite.TwoStacksLite),
            (_daba, _daba.DABA),
            (_daba_lite, _daba_lite.DABALite),
        ):
            register_fast_path(cls, mod._window_array)
        return True, (_two_stacks.TwoStacks, _two_stacks_lite.TwoStacksLite, _daba.DABA, _daba_lite.DABALite)

    _INORDER_COMPILED, (TwoStacks, TwoStacksLite, DABA, DABALite) = _load()
    del _load
    # True only when every extension is in use (each is optional, so a failed one falls back silently)
    COMPILED = _INORDER_COMPILED and REACTIVE_COMPILED and SLICKDEQUE_COMPILED and FLATFIT_COMPILED
    COMPILED = COMPILED and FIBA_COMPILED
    COMPILED = COMPILED and DECAY_COMPILED

__all__ += ["FiBA", "FiBALoop", "PurePythonFallbackWarning", "FALLBACK_REASONS"]

#: the compiled extensions (setup.py builds each one optionally)
EXTENSIONS = ("_two_stacks", "_two_stacks_lite", "_daba", "_daba_lite", "_slickdeque", "_flatfat", "_reactive",
              "_flatfit", "_fiba", "_qdigest", "_window_count", "_window_quantiles", "_value_division")


class PurePythonFallbackWarning(RuntimeWarning):
    """Some compiled extensions could not be imported, so :mod:`swagkit.optimized` runs (partly) on its
    pure-Python fallback: same answers, 100-700x slower. Not issued when ``SWAGKIT_PUREPYTHON`` asks for it."""


def _fallback_reasons() -> dict[str, str]:
    """Extension -> why it could not be imported (empty when all are in use or the fallback was asked for)."""
    if COMPILED or os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0"):
        return {}
    reasons = {}
    for name in EXTENSIONS:
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ImportError as err:
            reasons[name] = str(err) or type(err).__name__
    return reasons


#: why each missing extension could not be imported (empty when compiled, or when the fallback was asked for)
FALLBACK_REASONS: dict[str, str] = _fallback_reasons()
if FALLBACK_REASONS:
    warnings.warn(
        f"swagkit.optimized: {len(FALLBACK_REASONS)} of {len(EXTENSIONS)} compiled extensions are not available "
        f"({', '.join(sorted(FALLBACK_REASONS))}); using the pure-Python fallback, 100-700x slower. Reinstall "
        "swagkit with a C compiler and the Python headers (see the README), or set SWAGKIT_PUREPYTHON=1 to choose "
        "the fallback explicitly and silence this warning.",
        PurePythonFallbackWarning,
        stacklevel=2,
    )
