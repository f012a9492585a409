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
  reference API) sums ``sum_f64``/``sum_i64`` windows at bottleneck's speed, each float answer a summation of its
  own frame's values (within the frame's any-order bound; :mod:`._window_sum`).
* ``create(algorithm_id, monoid)`` (:mod:`.factory`) builds any card's algorithm by id, from this package (or
  ``implementation="reference"``), without loading the verification package unless debug mode is on
  (``check=True`` or ``SWAGKIT_CHECK``). :mod:`swagkit.optimized.spark` holds ``sliding_aggregate``, per-key sliding
  aggregates on Spark DataFrames.
* Each extension is optional at build time. One that cannot be imported is replaced by its pure-Python fallback
  (the reference class, :mod:`._fallback`; 100-700x slower), importing this package then warns with
  :class:`PurePythonFallbackWarning`, and ``FALLBACK_REASONS`` maps the extension to its import error
  (:mod:`._loader`; which extension defines which classes: :mod:`._extensions`).
  ``COMPILED`` is True when every extension is in use. Setting ``SWAGKIT_PUREPYTHON`` (to anything but
  ``""``/``"0"``) asks for the fallback everywhere, silently.

>>> from swagkit.optimized import DABALite, window_array
>>> from swagkit.spec.library import sum_i64
>>> list(window_array(DABALite, sum_i64(), [1, 2, 3, 4], 2))
[1, 3, 5, 7]
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from swagkit.reference import Recalc
from swagkit.reference.qdigest import qdigest_monoid as _ref_qdigest_monoid
from swagkit.reference.slickdeque import SlickRange as _RefSlickRange
from swagkit.spec.monoid import Monoid

from ._driver import window_array
from ._extensions import EXTENSIONS as EXTENSIONS
from ._extensions import REFERENCE_ONLY as REFERENCE_ONLY
from ._loader import CLASSES, COMPILED, FALLBACK_REASONS
from ._window_sum import window_sum as window_sum  # beyond the reference API (issue 16): not in __all__
from .factory import create

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


globals().update(CLASSES)  # the classes in use, compiled or fallback (:mod:`._loader`); typed by the stubs above

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
    "create",
    *(name for names in EXTENSIONS.values() for name in names),
]
