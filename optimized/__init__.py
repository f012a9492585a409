"""swagkit.optimized -- the structures of :mod:`swagkit.reference`, compiled with Cython.

Same names, constructors, methods, snapshots, exception safety and ``combine_count`` as the reference (the ⊗
call sequence is identical, so float results are bit-identical), for every paper: 000 (``TwoStacks``,
``TwoStacksLite``, ``DABA``, ``DABALite``), 001 (``SlickDequeInv``, ``SlickDequeNonInv``, ``FlatFIT``), 002
(``FlatFAT``, ``ReactiveAggregator``), 003 (``FiBA``, ``FiBALoop``) and 004 (``QDigest``,
``SlidingWindowCount``, ``SlidingWindowQuantiles``, ``ValueDivision``). ``Recalc`` is the reference one (O(n)
per query, not worth compiling); ``SlickRange`` and ``qdigest_monoid`` are the reference recipes over this
package's classes.

* Typed monoids (``monoid.fast_path`` in ``sum_f64, max_f64, min_f64, sum_i64, max_i64, min_i64``) store C doubles
  / int64 and call no Python function per ⊗; other monoids call ``monoid.combine``.
* ``window_array`` runs a whole count-based window in one C loop for the classes whose extension registers a
  fast path, returning an ``array.array`` for typed kinds (a list otherwise). ``window_sum`` (beyond the
  reference API) sums ``sum_f64``/``sum_i64`` windows by subtract-on-evict at bottleneck's speed, floats within a
  stated error bound (:mod:`._window_sum`).
* Each extension is optional at build time. One that cannot be imported is replaced by its pure-Python fallback
  (the reference class, :mod:`._fallback`; 100-700x slower), importing this package then warns with
  :class:`PurePythonFallbackWarning`, and ``FALLBACK_REASONS`` maps the extension to its import error.
  ``COMPILED`` is True when every extension is in use. Setting ``SWAGKIT_PUREPYTHON`` (to anything but
  ``""``/``"0"``) asks for the fallback everywhere, silently.

>>> from swagkit.optimized import DABALite, window_array
>>> from swagkit.spec.library import sum_i64
>>> list(window_array(DABALite, sum_i64(), [1, 2, 3, 4], 2))
[1, 3, 5, 7]
"""

from __future__ import annotations

import importlib
import os
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from swagkit.reference import Recalc
from swagkit.reference.qdigest import qdigest_monoid as _ref_qdigest_monoid
from swagkit.reference.slickdeque import SlickRange as _RefSlickRange
from swagkit.spec.monoid import Monoid

from . import _fallback
from ._driver import register_fast_path, window_array
from ._window_sum import window_sum as window_sum  # beyond the reference API (issue 16): not in __all__

#: classes of swagkit.reference that this package does not compile (it exports the reference class itself)
REFERENCE_ONLY = ("Recalc",)
#: the ``window_array`` fast path of an extension, when it has one under another name than ``_window_array``
_FAST_PATH_NAMES = {"_flatfit": "_window_array_clamped"}


def _extensions() -> dict[str, tuple[str, ...]]:
    """Every compiled extension -> the classes it defines, read off the algorithm cards: ``optimized/_<m>.pyx``
    compiles ``reference/<m>.py`` (setup.py builds each ``optimized/_*.pyx``, optionally), so the class of a card
    comes from the extension named after its reference module (SlickDequeInv/SlickDequeNonInv: ``_slickdeque``)."""
    import swagkit.reference as reference
    from swagkit.spec.algorithms import CARDS

    table: dict[str, tuple[str, ...]] = {}
    for card in CARDS:
        if card.class_name in REFERENCE_ONLY:
            continue
        ext = "_" + getattr(reference, card.class_name).__module__.rpartition(".")[2]
        if card.class_name not in table.get(ext, ()):
            table[ext] = (*table.get(ext, ()), card.class_name)
    return table


#: every compiled extension -> the classes it defines (each also a class of swagkit.reference by that name)
EXTENSIONS: dict[str, tuple[str, ...]] = _extensions()

if TYPE_CHECKING:  # the stubs (``.pyi``) of the compiled classes give the static types
    from ._daba import DABA as DABA
    from ._daba_lite import DABALite as DABALite
    from ._fiba import FiBA as FiBA
    from ._fiba import FiBALoop as FiBALoop
    from ._flatfat import FlatFAT as FlatFAT
    from ._flatfit import FlatFIT as FlatFIT
    from ._qdigest import QDigest as QDigest
    from ._reactive import ReactiveAggregator as ReactiveAggregator
    from ._slickdeque import SlickDequeInv as SlickDequeInv
    from ._slickdeque import SlickDequeNonInv as SlickDequeNonInv
    from ._subtract_on_evict import SubtractOnEvict as SubtractOnEvict
    from ._two_stacks import TwoStacks as TwoStacks
    from ._two_stacks_lite import TwoStacksLite as TwoStacksLite
    from ._value_division import ValueDivision as ValueDivision
    from ._window_count import SlidingWindowCount as SlidingWindowCount
    from ._window_quantiles import SlidingWindowQuantiles as SlidingWindowQuantiles


class PurePythonFallbackWarning(RuntimeWarning):
    """Some compiled extensions could not be imported, so :mod:`swagkit.optimized` runs (partly) on its
    pure-Python fallback: same answers, 100-700x slower. Not issued when ``SWAGKIT_PUREPYTHON`` asks for it."""


_PURE_PYTHON_ASKED = os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0")

#: why each missing extension could not be imported (empty when compiled, or when the fallback was asked for)
FALLBACK_REASONS: dict[str, str] = {}

for _ext, _names in EXTENSIONS.items():
    try:
        if _PURE_PYTHON_ASKED:
            _classes = [_fallback.fallback_class(name) for name in _names]
        else:
            _module = importlib.import_module(f"{__name__}.{_ext}")
            _classes = [getattr(_module, name) for name in _names]
            _fast_path: Callable[[Any, Any, Any, int], Any] | None = getattr(
                _module, _FAST_PATH_NAMES.get(_ext, "_window_array"), None
            )
            if _fast_path is not None:  # FlatFAT, FiBA and paper 004's structures have none
                for _cls in _classes:
                    register_fast_path(_cls, _fast_path)
    except ImportError as err:
        FALLBACK_REASONS[_ext] = str(err) or type(err).__name__
        _classes = [_fallback.fallback_class(name) for name in _names]
    globals().update(zip(_names, _classes))

#: True when every extension is in use
COMPILED: bool = not _PURE_PYTHON_ASKED and not FALLBACK_REASONS

if FALLBACK_REASONS:
    warnings.warn(
        f"swagkit.optimized: {len(FALLBACK_REASONS)} of {len(EXTENSIONS)} compiled extensions are not available "
        f"({', '.join(sorted(FALLBACK_REASONS))}); using the pure-Python fallback, 100-700x slower. Reinstall "
        "swagkit with a C compiler and the Python headers (see the README), or set SWAGKIT_PUREPYTHON=1 to choose "
        "the fallback explicitly and silence this warning.",
        PurePythonFallbackWarning,
        stacklevel=2,
    )


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


def qdigest_monoid(
    universe_bits: int, eps: float, digest_class: Callable[[int, float], Any] | None = None
) -> Monoid[int, Any, Any]:
    """:func:`swagkit.reference.qdigest.qdigest_monoid` over this package's :class:`QDigest` by default."""
    return _ref_qdigest_monoid(universe_bits, eps, digest_class if digest_class is not None else QDigest)


__all__ = [
    "Recalc",
    "SlickRange",
    "qdigest_monoid",
    "window_array",
    "COMPILED",
    "FALLBACK_REASONS",
    "PurePythonFallbackWarning",
    *(name for names in EXTENSIONS.values() for name in names),
]
