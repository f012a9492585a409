"""The monoid library: the papers' operators as :class:`~swagkit.spec.monoid.Monoid` objects.

Every factory returns a fresh monoid that declares its algebraic properties truthfully; ``tests/test_laws.py``
and ``swagkit verify`` check each declaration with :func:`~swagkit.spec.monoid.check_laws`. ``LIBRARY`` maps
ids to factories and to deterministic example inputs for those checks.

Sources. The operators are those of paper 000 (DABA / DABA Lite) Table 1 -- *sum-like*: sum, count, mean,
geomean, stddev; *max-like*: max, min, argMax, maxCount; *mergeable sketches*: Bloom, CountMin -- and §7.3
(relative variation); and of paper 002 (Reactive Aggregator) Table 1 (lift/combine/lower decompositions) and
Table 2 (properties), plus First, Last and Sum<String> from its §1. Where this library deliberately departs
from a table it says so in the factory's docstring; in short:

* **stddev** keeps ``(n, mean, M2)`` and merges with Chan et al.'s parallel formula, not paper 002's
  ``(n, Σ, Σx²)``: the sum-of-squares form cancels catastrophically in floating point. Over exact numbers the
  sum-of-squares form is sound and is a group; it is offered as ``variance_moments_exact`` (invertible).
* **argmax / argmin** prefer the **right (younger)** operand on ties (swagkit's convention); paper 002 Table 1
  prefers the first (left) one, which is offered as ``argmax_first`` / ``argmin_first``. Both are selective and
  **non-commutative** (ties with different payloads); paper 002 Table 2 agrees on the latter.
* **collect** is declared **non-invertible**: paper 002 Table 2 marks it invertible in the sense of "remove a
  known suffix", but no *element* ``inv(a)`` with ``inv(a) ⊗ a == 1`` exists among finite sequences, and
  ``Monoid.inverse`` means an element.
* Floating-point sum-like monoids (``sum_f64``, ``geomean``, ``stddev_*``) are declared non-invertible, like
  ``sum_f64``: ``a + b - b != a`` under rounding, so subtract-on-evict would drift.

Conventions.

* **Empty windows.** Statistics that are undefined on an empty window (mean, geomean, stddev, variance,
  relative variation, argmax payload, first, last) lower the identity to ``None``; the sample statistics also
  lower a one-element window to ``None`` (their ``n - 1`` denominator is zero), and relative variation lowers
  to ``None`` when its denominator is zero.
* **NEUTRAL.** Monoids without a natural neutral value (first, last, argmax, argmin) use the singleton
  :data:`NEUTRAL` as identity. It is never a valid input; ``combine`` tests for it by identity (``is``), so any
  key / payload type works, and it survives ``copy`` and ``pickle`` as the same object.
* **Exactness.** Generic monoids are exact over ``int`` and ``fractions.Fraction`` (their law checks use ``==``);
  ``*_exact`` ones validate that inputs are ``int``/``Fraction`` (:func:`as_exact`). Float monoids state their
  tolerance in ``Monoid.tolerance`` and compare with ``Monoid.eq``.
* **Hashing.** Sketches hash with BLAKE2b over ``f"{type(x).__qualname__}:{x!r}"`` (:func:`stable_key`), never
  Python's per-process randomized ``hash()``: the same input sets the same bits in every process.

Typed monoids (``sum_f64``, ``max_i64`` …) carry a ``kind`` that lets :mod:`swagkit.optimized` run them with
no Python call per combine. Their ``lift`` validates the value exactly as the compiled fast path does, so both
implementations reject the same bad input with the same exception:

* ``*_f64`` accept real numbers whose value is exactly a float64: ``float`` (``numpy.float64`` is one), other
  real types such as ``numpy.float32`` or ``Fraction(1, 2)`` when converting loses nothing, and integers
  (``int``, numpy integers) with |x| ≤ 2**53; NaN is rejected (it would break associativity of max/min and
  equality of sums); other values (``bool``, ``Decimal``, ``Fraction(1, 3)``, strings) raise ``TypeError``.
* ``*_i64`` accept integers (``int``, numpy integers, anything ``numbers.Integral``) in [-2**63, 2**63); other types
  (``bool`` included) raise ``TypeError``, out-of-range integers ``OverflowError``. ``sum_i64`` adds modulo 2**64 (two's
  complement, like C): that is a group, so every algorithm's result equals the true window sum whenever the true sum
  fits in int64, even if a partial aggregate of a sub-window overflows.
"""

from __future__ import annotations

import functools
import hashlib
import math
import numbers
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from .errors import RegistryError
from .monoid import Monoid

__all__ = [
    "LIBRARY",
    "LibraryEntry",
    "resolve_monoid",
    "NEUTRAL",
    "sum_monoid",
    "count_monoid",
    "mean_monoid",
    "geomean",
    "stddev",
    "variance_exact",
    "variance_moments_exact",
    "string_concat",
    "max_count",
    "min_count",
    "matrix2x2",
    "affine",
    "max_monoid",
    "min_monoid",
    "argmax",
    "argmin",
    "first",
    "last",
    "collect",
    "bloom_filter",
    "BloomFilter",
    "bloom_positions",
    "count_min_sketch",
    "CountMinSketch",
    "count_min_positions",
    "relative_variation",
    "relative_variation_mean",
    "sum_f64",
    "sum_i64",
    "max_f64",
    "min_f64",
    "max_i64",
    "min_i64",
    "float_close",
    "as_f64",
    "as_i64",
    "as_exact",
    "ordered",
    "stable_key",
]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
F64_EXACT_INT = 2**53


def float_close(a: Any, b: Any, rel: float = 1e-9, abs_tol: float = 1e-9) -> bool:
    """Tolerant float equality used by float monoids (infinities must match exactly)."""
    if a == b:
        return True
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_tol)


# --------------------------------------------------------------------------------------------------------------
# value validation shared with the compiled fast paths


def as_f64(x: Any) -> float:
    """Validate a value for a float64 fast path (see the module docstring).

    >>> as_f64(2), as_f64(0.5)
    (2.0, 0.5)
    """
    if isinstance(x, float):  # numpy.float64 is a float
        if x != x:
            raise ValueError("NaN is not a valid float64 monoid value")
        return float(x)
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"float64 monoid expects a float (or an exactly representable int), got {type(x).__name__}")
    if isinstance(x, numbers.Integral):  # int, numpy integers
        i = operator.index(x)
        if -F64_EXACT_INT <= i <= F64_EXACT_INT:
            return float(i)
        raise TypeError(f"int {x} is not exactly representable as float64; convert it explicitly")
    f = float(x)  # other reals: numpy.float32/float16, Fraction
    if f != f:
        raise ValueError("NaN is not a valid float64 monoid value")
    if f != x:
        raise TypeError(f"{type(x).__name__} {x} is not exactly representable as float64; convert it explicitly")
    return f


def as_i64(x: Any) -> int:
    """Validate a value for an int64 fast path (see the module docstring): ``int`` or any integer type
    (numpy's ``int64``, ``uint8`` ... through ``__index__``), not ``bool``.

    >>> as_i64(7)
    7
    """
    if isinstance(x, bool) or not (isinstance(x, int) or isinstance(x, numbers.Integral)):
        raise TypeError(f"int64 monoid expects an int, got {type(x).__name__}")
    i = operator.index(x)
    if not INT64_MIN <= i <= INT64_MAX:
        raise OverflowError(f"int {x} does not fit in int64")
    return int(i)


def _wrap64(x: int) -> int:
    return ((x + 2**63) % 2**64) - 2**63


def _add(a: Any, b: Any) -> Any:
    return a + b


def _neg(a: Any) -> Any:
    return -a


# --------------------------------------------------------------------------------------------------------------
# generic exact monoids


def sum_monoid() -> Monoid[Any, Any, Any]:
    """Sum over exact numbers (int, numpy integers, Fraction): commutative and invertible.

    ``lift`` is :func:`as_exact`: floats are refused, because this monoid declares an inverse and algorithms
    that subtract on eviction (SlickDeque Inv) would drift or stay NaN after an ``inf`` left the window. Float
    sums are :func:`sum_f64` (no inverse declared).
    """
    return Monoid(identity=0, combine=_add, lift=as_exact, name="sum", commutative=True, invertible=True, inverse=_neg)


def string_concat() -> Monoid[str, str, str]:
    """String concatenation: associative, **non-commutative**, non-invertible (paper 000's letter notation)."""
    return Monoid(identity="", combine=_add, name="string_concat")


def _maxcount_combine(x: tuple[Any, int], y: tuple[Any, int]) -> tuple[Any, int]:
    if x[0] > y[0]:
        return x
    if x[0] < y[0]:
        return y
    return (x[0], x[1] + y[1])


def max_count() -> Monoid[Any, tuple[Any, int], int]:
    """maxcount of 000 §2.2: how often the maximum occurs. Commutative, **non-invertible**, not selective.

    ``lift(e) = (e, 1)``, identity ``(-inf, 0)``, ``lower(v) = v.count``.
    """
    return Monoid(
        identity=(-math.inf, 0),
        combine=_maxcount_combine,
        lift=_value_once,
        lower=_second,
        name="max_count",
        commutative=True,
    )


Matrix = tuple[int, int, int, int]


def _matmul(x: Matrix, y: Matrix) -> Matrix:
    a, b, c, d = x
    e, f, g, h = y
    return (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)


def matrix2x2() -> Monoid[Matrix, Matrix, Matrix]:
    """2×2 integer matrix product, row-major tuples: associative, **non-commutative**, non-invertible."""
    return Monoid(identity=(1, 0, 0, 1), combine=_matmul, name="matrix2x2")


Affine = tuple[Any, Any]


def _affine_lift(x: Any) -> Affine:
    """An input of :func:`affine`: a pair ``(a, b)`` of exact numbers with ``a != 0`` (the map ``t ↦ a·t + b``)."""
    if not isinstance(x, tuple) or len(x) != 2:
        raise TypeError(f"affine expects a pair (a, b) for the map t -> a*t + b, got {x!r}")
    a, b = as_exact(x[0]), as_exact(x[1])
    if a == 0:
        raise ValueError(f"affine needs a != 0 (an invertible map), got {x!r}")
    return (a, b)


def _affine_then(x: Affine, y: Affine) -> Affine:
    # x, then y: t ↦ a2·(a1·t + b1) + b2
    return (x[0] * y[0], y[0] * x[1] + y[1])


def _affine_inverse(x: Affine) -> Affine:
    # t ↦ (t − b) / a
    return (Fraction(1) / x[0], Fraction(-x[1]) / x[0])


def affine() -> Monoid[Any, Affine, Affine]:
    """Composition of affine maps ``t ↦ a·t + b`` over exact numbers (``a != 0``), the older map applied first:
    a **non-commutative group** (``inverse``: ``t ↦ (t − b)/a``). The test operator that lets algorithms which
    need an inverse (SlickDeque Inv, Subtract-on-Evict) show that they subtract on the correct side.

    >>> m = affine()
    >>> m.combine(m.lift((2, 1)), m.lift((3, 0))), m.combine(m.lift((3, 0)), m.lift((2, 1)))
    ((6, 3), (6, 1))
    >>> m.combine(m.inverse(m.lift((2, 1))), m.lift((2, 1))) == m.identity
    True
    """
    return Monoid(
        identity=(1, 0),
        combine=_affine_then,
        lift=_affine_lift,
        name="affine",
        invertible=True,
        inverse=_affine_inverse,
    )


def _max(a: Any, b: Any) -> Any:
    return a if a >= b else b


def max_monoid() -> Monoid[Any, Any, Any]:
    """Maximum over totally ordered values (identity ``-inf``): commutative, selective, non-invertible. NaN is
    refused (:func:`ordered`)."""
    return Monoid(identity=-math.inf, combine=_max, lift=ordered, name="max", commutative=True, selective=True)


# --------------------------------------------------------------------------------------------------------------
# typed monoids with compiled fast paths


def sum_f64() -> Monoid[Any, float, float]:
    """float64 sum. Commutative, invertible up to rounding (declared not invertible: ``a + b - b != a``).

    Equality is tolerant: relative and absolute 1e-9, because algorithms associate differently.
    """
    return Monoid(
        identity=0.0,
        combine=_add,
        lift=as_f64,
        name="sum_f64",
        commutative=True,
        eq=float_close,
        tolerance="rel 1e-9, abs 1e-9",
        fast_path="sum_f64",
    )


def _min(a: Any, b: Any) -> Any:
    return a if a <= b else b


def max_f64() -> Monoid[Any, float, float]:
    """float64 maximum (identity ``-inf``). Exact: max never rounds."""
    return Monoid(
        identity=-math.inf,
        combine=_max,
        lift=as_f64,
        name="max_f64",
        commutative=True,
        selective=True,
        fast_path="max_f64",
    )


def min_f64() -> Monoid[Any, float, float]:
    """float64 minimum (identity ``+inf``)."""
    return Monoid(
        identity=math.inf,
        combine=_min,
        lift=as_f64,
        name="min_f64",
        commutative=True,
        selective=True,
        fast_path="min_f64",
    )


def _add64(a: int, b: int) -> int:
    return _wrap64(a + b)


def _neg64(a: int) -> int:
    return _wrap64(-a)


def sum_i64() -> Monoid[Any, int, int]:
    """int64 sum modulo 2**64 (see the module docstring): commutative and invertible, exact."""
    return Monoid(
        identity=0,
        combine=_add64,
        lift=as_i64,
        name="sum_i64",
        commutative=True,
        invertible=True,
        inverse=_neg64,
        fast_path="sum_i64",
    )


def max_i64() -> Monoid[Any, int, int]:
    """int64 maximum (identity ``-2**63``)."""
    return Monoid(
        identity=INT64_MIN,
        combine=_max,
        lift=as_i64,
        name="max_i64",
        commutative=True,
        selective=True,
        fast_path="max_i64",
    )


def min_i64() -> Monoid[Any, int, int]:
    """int64 minimum (identity ``2**63 - 1``)."""
    return Monoid(
        identity=INT64_MAX,
        combine=_min,
        lift=as_i64,
        name="min_i64",
        commutative=True,
        selective=True,
        fast_path="min_i64",
    )


# --------------------------------------------------------------------------------------------------------------
# shared helpers of the remaining operators


class _Neutral:
    """Type of :data:`NEUTRAL`, the identity of monoids with no natural neutral value (a singleton)."""

    __slots__ = ()
    _instance: _Neutral | None = None

    def __new__(cls) -> _Neutral:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NEUTRAL"

    def __reduce__(self) -> str:
        # pickle / copy refer to the module-level name, so the singleton stays a singleton
        return "NEUTRAL"


NEUTRAL: Final = _Neutral()
"""Identity of first, last, argmax and argmin: ``NEUTRAL ⊗ a == a == a ⊗ NEUTRAL``. Never a valid input."""


def as_exact(x: Any) -> int | Fraction:
    """Validate a value for an exact monoid: an integer (``int``, numpy integers: returned as ``int``; not
    ``bool``) or a ``Fraction``; anything else -- floats above all, whose sums round, so that subtracting on
    eviction would drift -- raises ``TypeError``.

    >>> as_exact(3), as_exact(Fraction(1, 2))
    (3, Fraction(1, 2))
    """
    if isinstance(x, Fraction) or (isinstance(x, int) and not isinstance(x, bool)):
        return x
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return int(operator.index(x))
    hint = " (float sums round: use sum_f64, which declares no inverse)" if isinstance(x, numbers.Real) else ""
    raise TypeError(f"exact monoid expects an int or a Fraction, got {type(x).__name__}{hint}; convert it explicitly")


def ordered(x: Any) -> Any:
    """Validate a value for the order-based monoids (max, min, their counts and args, relative variation):
    anything that is not equal to itself -- a float NaN, ``numpy.nan``, ``Decimal('NaN')`` -- is refused with
    ``ValueError``. NaN is unordered: ``max`` over it would depend on the operand order, so two algorithms (or two
    association orders) would answer differently. Every algorithm of both implementations sees the same refusal,
    before anything changes; the typed ``*_f64`` kinds refuse NaN the same way.

    >>> ordered(3)
    3
    >>> ordered(float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: NaN is not a valid value of an order-based monoid (it is unordered)
    """
    try:
        unordered = bool(x != x)  # numpy answers numpy.bool_
    except Exception:  # != raises, or answers an array: not a NaN scalar; its comparisons will speak for themselves
        return x
    if unordered:
        raise ValueError("NaN is not a valid value of an order-based monoid (it is unordered)")
    return x


def _div(a: Any, b: Any) -> Any:
    """``a / b``, exactly (a ``Fraction``) when both are ``int``/``Fraction``; float division otherwise."""
    if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
        return Fraction(a) / Fraction(b)
    return a / b


def _is_exact(x: Any) -> bool:
    return isinstance(x, (int, Fraction))


# --------------------------------------------------------------------------------------------------------------
# sum-like: count, mean, geomean, stddev (paper 000 Table 1 row "Sum-like"; paper 002 Table 1)


def _one(_: Any) -> int:
    return 1


def count_monoid() -> Monoid[Any, int, int]:
    """Count (paper 002 Table 1: ``lift(v) = 1``, ``a + b``). Commutative, invertible (negation), exact.

    Any input is accepted; only its presence counts.
    """
    return Monoid(identity=0, combine=_add, lift=_one, name="count", commutative=True, invertible=True, inverse=_neg)


SumCount = tuple[Any, int]


def _pair_add(a: SumCount, b: SumCount) -> SumCount:
    return (a[0] + b[0], a[1] + b[1])


def _pair_neg(a: SumCount) -> SumCount:
    return (-a[0], -a[1])


def _mean_lift(x: Any) -> SumCount:
    return (as_exact(x), 1)


def _mean_lower(v: SumCount) -> Any:
    s, n = v
    return None if n == 0 else _div(s, n)


def mean_monoid() -> Monoid[Any, SumCount, Any]:
    """Arithmetic mean as a ``(sum, count)`` pair (paper 002 Table 1 ArithmeticMean; paper 000 Table 1).

    ``lift(x) = (x, 1)``, combine adds componentwise, identity ``(0, 0)``, ``lower((s, n)) = s / n`` -- a
    ``Fraction`` for int/Fraction inputs (exact) -- and ``None`` for the empty window (``n == 0``). Commutative
    and invertible: ``(s, n)`` pairs under addition form the group Z×Q, inverse ``(-s, -n)``. Inputs are
    validated by :func:`as_exact` (int/Fraction): a float sum would round, and the declared inverse would let
    subtract-on-evict drift.
    """
    return Monoid(
        identity=(0, 0),
        combine=_pair_add,
        lift=_mean_lift,
        lower=_mean_lower,
        name="mean",
        commutative=True,
        invertible=True,
        inverse=_pair_neg,
    )


CountLog = tuple[int, float]


def _geomean_lift(x: Any) -> CountLog:
    v = as_f64(x)
    if not (v > 0.0 and math.isfinite(v)):
        raise ValueError(f"geometric mean needs positive finite inputs, got {x!r}")
    return (1, math.log(v))


def _geomean_lower(v: CountLog) -> float | None:
    n, log_sum = v
    return None if n == 0 else math.exp(log_sum / n)


def _count_log_add(a: CountLog, b: CountLog) -> CountLog:
    return (a[0] + b[0], a[1] + b[1])


def _count_log_close(a: CountLog, b: CountLog) -> bool:
    return a[0] == b[0] and float_close(a[1], b[1])


def geomean() -> Monoid[Any, CountLog, float | None]:
    """Geometric mean in log space: ``(n, Σ log x)``, ``lower = exp(Σ log x / n)`` (``None`` when empty).

    Paper 000 Table 1 ("geomean", also its §7 benchmark operator); paper 002 Table 1 lists the product form
    ``(n, Π)``, which over- and underflows, so this follows the authors' benchmark suite and sums logs. Inputs
    must be positive finite floats (or ints exactly representable as float64, see :func:`as_f64`); others
    raise ``TypeError``/``ValueError``. Commutative. Declared **non-invertible** because the float log sum
    rounds (``L + l - l != L``), although ``(-n, -L)`` inverts it mathematically. Equality: ``n`` exact, the
    log sum within rel/abs 1e-9.
    """
    return Monoid(
        identity=(0, 0.0),
        combine=_count_log_add,
        lift=_geomean_lift,
        lower=_geomean_lower,
        name="geomean",
        commutative=True,
        eq=_count_log_close,
        tolerance="count exact; log-sum rel 1e-9, abs 1e-9",
    )


Moments = tuple[int, Any, Any]
"""``(n, mean, M2)`` with ``M2 = Σ (x - mean)²`` over the window; the empty window is ``(0, 0, 0)``."""


def _chan_combine(a: Moments, b: Moments) -> Moments:
    """Chan, Golub & LeVeque's pairwise update of ``(n, mean, M2)``: exact over Fractions, stable over floats.

    ``δ = mean_b - mean_a``, ``n = n_a + n_b``, ``mean = mean_a + δ·n_b/n``, ``M2 = M2_a + M2_b + δ²·n_a·n_b/n``.
    """
    na, ma, qa = a
    nb, mb, qb = b
    if na == 0:
        return b
    if nb == 0:
        return a
    n = na + nb
    delta = mb - ma
    return (n, ma + delta * nb / n, qa + qb + delta * delta * (na * nb) / n)


def _moments_lift_f64(x: Any) -> Moments:
    return (1, as_f64(x), 0.0)


def _moments_close(a: Moments, b: Moments) -> bool:
    return a[0] == b[0] and float_close(a[1], b[1]) and float_close(a[2], b[2], rel=1e-9, abs_tol=1e-6)


def _pop_stddev(v: Moments) -> float | None:
    n, _, m2 = v
    return None if n < 1 else math.sqrt(m2 / n)


def _sample_stddev(v: Moments) -> float | None:
    n, _, m2 = v
    return None if n < 2 else math.sqrt(m2 / (n - 1))


def stddev(sample: bool = False) -> Monoid[Any, Moments, float | None]:
    """Population (``sample=False``) or sample (``sample=True``) standard deviation over float64 inputs.

    Paper 000 Table 1 ("stddev"), paper 002 Table 1 (PopulationStdDev / SampleStdDev). The aggregate is
    ``(n, mean, M2)`` merged with Chan et al.'s parallel formula (see :func:`_chan_combine`), **not** the
    tables' ``(n, Σx, Σx²)``: ``Σx² - (Σx)²/n`` loses all precision when the mean is large compared with the
    spread (e.g. readings near 1e9 that differ by units). ``lower`` is ``sqrt(M2/n)`` resp.
    ``sqrt(M2/(n-1))``, ``None`` for ``n == 0`` resp. ``n < 2``.

    Inputs are validated by :func:`as_f64`. Commutative (within tolerance). Declared **non-invertible**: a
    ``(n, mean, M2)`` triple with ``n == 0`` cannot represent a non-zero sum, so no inverse element exists
    (and float cancellation would drift anyway); see :func:`variance_moments_exact` for an invertible exact
    variant. Equality: ``n`` exact, mean within rel/abs 1e-9, ``M2`` within rel 1e-9 / abs 1e-6.
    """
    return Monoid(
        identity=(0, 0.0, 0.0),
        combine=_chan_combine,
        lift=_moments_lift_f64,
        lower=_sample_stddev if sample else _pop_stddev,
        name="stddev_sample" if sample else "stddev_pop",
        commutative=True,
        eq=_moments_close,
        tolerance="n exact; mean rel 1e-9 abs 1e-9; M2 rel 1e-9 abs 1e-6",
    )


def _moments_lift_exact(x: Any) -> Moments:
    return (1, Fraction(as_exact(x)), Fraction(0))


def _pop_variance(v: Moments) -> Fraction | None:
    n, _, m2 = v
    return None if n < 1 else Fraction(m2) / n


def _sample_variance(v: Moments) -> Fraction | None:
    n, _, m2 = v
    return None if n < 2 else Fraction(m2) / (n - 1)


def variance_exact(sample: bool = False) -> Monoid[Any, Moments, Fraction | None]:
    """Exact population / sample **variance** over int/Fraction inputs, with the same Chan merge as
    :func:`stddev` carried out in ``Fraction`` arithmetic (so every bracketing gives the identical triple).

    The variance rather than the standard deviation is lowered because a square root is not exact; take
    ``math.sqrt`` of it if needed. ``lower`` is ``M2/n`` resp. ``M2/(n-1)`` as a ``Fraction``, ``None`` when
    ``n == 0`` resp. ``n < 2``. Commutative, exact, declared non-invertible (as :func:`stddev`).
    """
    return Monoid(
        identity=(0, Fraction(0), Fraction(0)),
        combine=_chan_combine,
        lift=_moments_lift_exact,
        lower=_sample_variance if sample else _pop_variance,
        name="variance_sample_exact" if sample else "variance_pop_exact",
        commutative=True,
    )


PowerSums = tuple[int, Any, Any]
"""``(n, Σx, Σx²)``."""


def _power_sums_lift(x: Any) -> PowerSums:
    v = as_exact(x)
    return (1, v, v * v)


def _power_sums_add(a: PowerSums, b: PowerSums) -> PowerSums:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def _power_sums_neg(a: PowerSums) -> PowerSums:
    return (-a[0], -a[1], -a[2])


def _power_sums_pop_variance(v: PowerSums) -> Fraction | None:
    n, s, q = v
    if n < 1:
        return None
    fs = Fraction(s)
    return (Fraction(q) * n - fs * fs) / (n * n)


def variance_moments_exact() -> Monoid[Any, PowerSums, Fraction | None]:
    """Exact population variance from power sums ``(n, Σx, Σx²)`` over int/Fraction inputs: paper 002 Table 1's
    StdDev decomposition, which is numerically harmless in exact arithmetic.

    ``lower = (n·Σx² - (Σx)²) / n²`` (``None`` when ``n < 1``). Commutative and **invertible**: power sums under
    addition are the group Z×Q×Q, inverse ``(-n, -Σx, -Σx²)`` -- matching paper 002 Table 2's "invertible" for
    StdDev. Exact.
    """
    return Monoid(
        identity=(0, 0, 0),
        combine=_power_sums_add,
        lift=_power_sums_lift,
        lower=_power_sums_pop_variance,
        name="variance_moments_exact",
        commutative=True,
        invertible=True,
        inverse=_power_sums_neg,
    )


# --------------------------------------------------------------------------------------------------------------
# max-like: min, mincount, argmax, argmin, first, last (paper 000 Table 1 row "Max-like"; paper 002 Table 1, §1)


def min_monoid() -> Monoid[Any, Any, Any]:
    """Minimum over totally ordered values (identity ``+inf``; paper 002 Table 1 Min): commutative, selective,
    idempotent, non-invertible; exact over int/Fraction. Values must be comparable with a float infinity; NaN is
    refused (:func:`ordered`)."""
    return Monoid(identity=math.inf, combine=_min, lift=ordered, name="min", commutative=True, selective=True)


def _mincount_combine(x: tuple[Any, int], y: tuple[Any, int]) -> tuple[Any, int]:
    if x[0] < y[0]:
        return x
    if x[0] > y[0]:
        return y
    return (x[0], x[1] + y[1])


def _value_once(e: Any) -> tuple[Any, int]:
    return (ordered(e), 1)


def _second(v: tuple[Any, Any]) -> Any:
    return v[1]


def min_count() -> Monoid[Any, tuple[Any, int], int]:
    """mincount (paper 002 Table 1 MinCount), the mirror of :func:`max_count`: how often the minimum occurs.

    ``lift(e) = (e, 1)``, identity ``(+inf, 0)``, ``lower(v) = v.count``. Commutative, non-invertible, not
    selective (equal minima add their counts).
    """
    return Monoid(
        identity=(math.inf, 0),
        combine=_mincount_combine,
        lift=_value_once,
        lower=_second,
        name="min_count",
        commutative=True,
    )


KeyPayload = tuple[Any, Any]


def _key_payload(v: Any) -> KeyPayload:
    if not (isinstance(v, tuple) and len(v) == 2):
        raise TypeError(f"argmax/argmin expects a (key, payload) pair, got {v!r}")
    ordered(v[0])
    return v


def _argmax_right(a: Any, b: Any) -> Any:
    if a is NEUTRAL:
        return b
    if b is NEUTRAL:
        return a
    return b if b[0] >= a[0] else a


def _argmax_left(a: Any, b: Any) -> Any:
    if a is NEUTRAL:
        return b
    if b is NEUTRAL:
        return a
    return a if a[0] >= b[0] else b


def _argmin_right(a: Any, b: Any) -> Any:
    if a is NEUTRAL:
        return b
    if b is NEUTRAL:
        return a
    return b if b[0] <= a[0] else a


def _argmin_left(a: Any, b: Any) -> Any:
    if a is NEUTRAL:
        return b
    if b is NEUTRAL:
        return a
    return a if a[0] <= b[0] else b


def _payload_or_none(v: Any) -> Any:
    return None if v is NEUTRAL else v[1]


def _check_ties(ties: str) -> None:
    if ties not in ("right", "left"):
        raise ValueError(f"ties must be 'right' (younger wins) or 'left' (older wins), got {ties!r}")


def argmax(ties: str = "right") -> Monoid[KeyPayload, Any, Any]:
    """argMax over ``(key, payload)`` inputs: the payload of the largest key (paper 000 Table 1 argMax; paper
    002 Table 1 ArgMax, e.g. ``ArgMax(len, caller)`` of its §3.1).

    The aggregate is the winning ``(key, payload)`` pair, identity :data:`NEUTRAL`, ``lower`` its payload
    (``None`` for the empty window). **Ties:** with ``ties="right"`` (the default, swagkit's convention) the
    right, i.e. younger, operand wins, so a window yields the payload of the *last* maximal element;
    ``ties="left"`` keeps the older one, as paper 002 Table 1 ("if equal pick first") and the authors' C++
    suite (``a.max >= b.max ? a : b``) do. Either way the operator is max over ``(key, position)``, hence
    associative. **Selective** (the result is always an operand), **non-commutative** (ties with different
    payloads), non-invertible. Keys need a total order; inputs must be 2-tuples (``TypeError`` otherwise).
    """
    _check_ties(ties)
    return Monoid(
        identity=NEUTRAL,
        combine=_argmax_right if ties == "right" else _argmax_left,
        lift=_key_payload,
        lower=_payload_or_none,
        name="argmax" if ties == "right" else "argmax_first",
        selective=True,
    )


def argmin(ties: str = "right") -> Monoid[KeyPayload, Any, Any]:
    """argMin over ``(key, payload)`` inputs, the mirror of :func:`argmax` (paper 002 Table 1 ArgMin).

    Same tie options (``"right"`` = younger wins, default; ``"left"`` = paper 002's first); selective,
    non-commutative, non-invertible; identity :data:`NEUTRAL`; ``lower`` the payload or ``None``.
    """
    _check_ties(ties)
    return Monoid(
        identity=NEUTRAL,
        combine=_argmin_right if ties == "right" else _argmin_left,
        lift=_key_payload,
        lower=_payload_or_none,
        name="argmin" if ties == "right" else "argmin_first",
        selective=True,
    )


def _first_combine(a: Any, b: Any) -> Any:
    return b if a is NEUTRAL else a


def _last_combine(a: Any, b: Any) -> Any:
    return a if b is NEUTRAL else b


def _value_or_none(v: Any) -> Any:
    return None if v is NEUTRAL else v


def first() -> Monoid[Any, Any, Any]:
    """First (oldest) element of the window (paper 002 §1: non-invertible, non-commutative).

    ``combine(a, b) = a`` unless ``a`` is :data:`NEUTRAL`; ``lower`` gives the element, ``None`` for the empty
    window (so a ``None`` input is indistinguishable from emptiness). Selective, idempotent,
    **non-commutative**, non-invertible.
    """
    return Monoid(identity=NEUTRAL, combine=_first_combine, lower=_value_or_none, name="first", selective=True)


def last() -> Monoid[Any, Any, Any]:
    """Last (youngest) element of the window, the mirror of :func:`first`: selective, idempotent,
    **non-commutative**, non-invertible; ``lower`` of the empty window is ``None``."""
    return Monoid(identity=NEUTRAL, combine=_last_combine, lower=_value_or_none, name="last", selective=True)


def _singleton(x: Any) -> tuple[Any, ...]:
    return (x,)


def collect() -> Monoid[Any, tuple[Any, ...], tuple[Any, ...]]:
    """Collect the window's elements in arrival order (paper 002 Table 1 Collect: ``[v]``, ``concat``).

    Aggregates and the output are **tuples** (immutable, so a partial aggregate shared between algorithm
    nodes can never be mutated in place); identity ``()``. Associative, **non-commutative**, not selective,
    declared **non-invertible** (paper 002 Table 2 says invertible, meaning removal of a known part; no inverse
    *element* exists). Each combine copies, so it costs O(length).
    """
    return Monoid(identity=(), combine=_add, lift=_singleton, name="collect")


# --------------------------------------------------------------------------------------------------------------
# mergeable sketches: Bloom filter, count-min (paper 000 Table 1 row "Mergeable sketch", §2.2 and §7)


def stable_key(x: Any) -> bytes:
    """The bytes sketches hash for an input: ``f"{type(x).__qualname__}:{x!r}"`` in UTF-8.

    Deterministic across processes for values with a deterministic ``repr`` (int, str, bytes, float, and
    tuples of those). ``1`` and ``1.0`` and ``True`` are different keys.
    """
    return f"{type(x).__qualname__}:{x!r}".encode()


def bloom_positions(x: Any, m_bits: int, k: int) -> tuple[int, ...]:
    """The ``k`` bit positions (in ``[0, m_bits)``) of input ``x``: Kirsch–Mitzenmacher double hashing
    ``h1 + i·h2 mod m`` of a 128-bit BLAKE2b digest of :func:`stable_key` (``h2`` forced odd)."""
    d = hashlib.blake2b(stable_key(x), digest_size=16, person=b"swagkit-bloom").digest()
    h1 = int.from_bytes(d[:8], "little")
    h2 = int.from_bytes(d[8:], "little") | 1
    return tuple((h1 + i * h2) % m_bits for i in range(k))


@dataclass(frozen=True)
class BloomFilter:
    """A lowered Bloom filter: ``bits`` is an ``m_bits``-bit mask, ``k`` hashes per element."""

    bits: int
    m_bits: int
    k: int

    def might_contain(self, x: Any) -> bool:
        """False means ``x`` is certainly not in the window; True means it may be (no false negatives)."""
        return all((self.bits >> p) & 1 for p in bloom_positions(x, self.m_bits, self.k))


def _bitor(a: int, b: int) -> int:
    return a | b


def bloom_filter(m_bits: int = 1024, k: int = 4) -> Monoid[Any, int, BloomFilter]:
    """Bloom filter of the window's elements (Bloom 1970; paper 000 Table 1, §2.2 and the ``bloom`` operator of
    §7; the authors' suite uses a bitset with ``combine = a | b``).

    Aggregate: an ``int`` bitmask of ``m_bits`` bits; ``lift(x)`` sets the ``k`` bits of
    :func:`bloom_positions`; ``combine`` is bitwise OR; identity ``0``; ``lower`` wraps the mask in a
    :class:`BloomFilter` that answers ``might_contain``. Commutative, **idempotent** (``a | a == a``),
    **non-invertible** (OR forgets), not selective. Exact.
    """
    if m_bits < 1 or k < 1:
        raise ValueError("bloom_filter needs m_bits >= 1 and k >= 1")
    # partials of module-level functions, not closures: the monoid (and structures holding it) must pickle
    return Monoid(
        identity=0,
        combine=_bitor,
        lift=functools.partial(_bloom_lift, m_bits=m_bits, k=k),
        lower=functools.partial(_bloom_lower, m_bits=m_bits, k=k),
        name="bloom",
        commutative=True,
    )


def _bloom_lift(x: Any, m_bits: int, k: int) -> int:
    bits = 0
    for p in bloom_positions(x, m_bits, k):
        bits |= 1 << p
    return bits


def _bloom_lower(bits: int, m_bits: int, k: int) -> BloomFilter:
    return BloomFilter(bits, m_bits, k)


Table = tuple[tuple[int, ...], ...]


def count_min_positions(x: Any, width: int, depth: int) -> tuple[int, ...]:
    """The counter column of ``x`` in each of the ``depth`` rows: one BLAKE2b hash per row, salted by the row
    number, of :func:`stable_key`, modulo ``width``."""
    key = stable_key(x)
    return tuple(
        int.from_bytes(
            hashlib.blake2b(key, digest_size=8, salt=row.to_bytes(16, "little"), person=b"swagkit-cms").digest(),
            "little",
        )
        % width
        for row in range(depth)
    )


@dataclass(frozen=True)
class CountMinSketch:
    """A lowered count-min sketch: ``table[row][column]`` counters (``depth`` rows × ``width`` columns)."""

    table: Table

    def estimate(self, x: Any) -> int:
        """Estimated multiplicity of ``x``: the minimum of its counters. For a window (all counts ≥ 0) this
        never underestimates and overestimates by at most the colliding elements' counts."""
        depth, width = len(self.table), len(self.table[0])
        return min(row[c] for row, c in zip(self.table, count_min_positions(x, width, depth)))


def _table_add(a: Table, b: Table) -> Table:
    return tuple(tuple(map(operator.add, ra, rb)) for ra, rb in zip(a, b))


def _table_neg(a: Table) -> Table:
    return tuple(tuple(-c for c in row) for row in a)


def count_min_sketch(width: int = 32, depth: int = 4) -> Monoid[Any, Table, CountMinSketch]:
    """Count-min sketch (Cormode & Muthukrishnan 2005; paper 000 Table 1 "CountMin", §2.2).

    Aggregate: ``depth`` rows of ``width`` integer counters as a tuple of tuples; ``lift(x)`` puts a 1 in the
    column :func:`count_min_positions` gives for each row; ``combine`` adds elementwise; identity all zeros;
    ``lower`` wraps the table in a :class:`CountMinSketch` (``estimate(x)``). Commutative and **invertible**:
    integer tables under addition form the group Z^(depth×width), inverse the elementwise negation (exact, so
    subtract-on-evict is sound). Not selective, not idempotent.
    """
    if width < 1 or depth < 1:
        raise ValueError("count_min_sketch needs width >= 1 and depth >= 1")
    zero: Table = tuple((0,) * width for _ in range(depth))
    return Monoid(
        identity=zero,
        combine=_table_add,
        lift=functools.partial(_count_min_lift, width=width, depth=depth),
        lower=CountMinSketch,
        name="count_min",
        commutative=True,
        invertible=True,
        inverse=_table_neg,
    )


def _count_min_lift(x: Any, width: int, depth: int) -> Table:
    cols = count_min_positions(x, width, depth)
    return tuple(tuple(1 if j == c else 0 for j in range(width)) for c in cols)


# --------------------------------------------------------------------------------------------------------------
# relative variation (paper 000 §7.3, "inspired by Query 2 of the DEBS 2012 Grand Challenge")


MinMax = tuple[Any, Any]


def _minmax_lift(x: Any) -> MinMax:
    return (ordered(x), x)


def _minmax_combine(a: MinMax, b: MinMax) -> MinMax:
    return (_min(a[0], b[0]), _max(a[1], b[1]))


def _relvar_max_lower(v: MinMax) -> Any:
    lo, hi = v
    if lo > hi or hi == 0:  # empty window (lo = +inf > hi = -inf) or zero denominator
        return None
    return _div(hi - lo, hi)


def relative_variation() -> Monoid[Any, MinMax, Any]:
    """Relative variation ``(max - min) / max`` of the window (paper 000 §7.3).

    Paper 000 names the operator only ("an aggregation operation inspired by Query 2 of the DEBS 2012 Grand
    Challenge: relative variation"; it does not give a formula, and the Grand Challenge text itself is not in this
    repository). Its experiments ran the authors' public suite (IBM/sliding-window-aggregators, ``RelativeVariation`` in
    ``cpp/src/AggregationFunctions.hpp``), whose partial aggregate is ``{min, max}`` with ``lower = (max - min) / max``;
    this factory follows that definition. (That suite's identity, ``{min: INT64_MIN, max: INT64_MAX}``, is absorbing
    rather than neutral; here it is ``(+inf, -inf)``.)

    Aggregate ``(min, max)``, ``lift(x) = (x, x)``, combine takes min and max. ``lower`` is exact (``Fraction``)
    over int/Fraction inputs and ``None`` for the empty window or ``max == 0``. Meaningful for positive
    readings. Commutative, idempotent, not selective (``(1,1) ⊗ (3,3) = (1,3)``), non-invertible; exact for
    every totally ordered numeric input (min/max never round). See :func:`relative_variation_mean` for the
    mean-relative variant.
    """
    return Monoid(
        identity=(math.inf, -math.inf),
        combine=_minmax_combine,
        lift=_minmax_lift,
        lower=_relvar_max_lower,
        name="relative_variation",
        commutative=True,
    )


RangeSum = tuple[int, Any, Any, Any]
"""``(count, sum, min, max)``."""


def _rangesum_lift(x: Any) -> RangeSum:
    return (1, ordered(x), x, x)


def _rangesum_combine(a: RangeSum, b: RangeSum) -> RangeSum:
    return (a[0] + b[0], a[1] + b[1], _min(a[2], b[2]), _max(a[3], b[3]))


def _relvar_mean_lower(v: RangeSum) -> Any:
    n, s, lo, hi = v
    if n == 0 or s == 0:
        return None
    return _div((hi - lo) * n, s)


def relative_variation_mean() -> Monoid[Any, RangeSum, Any]:
    """Relative variation measured against the mean, ``(max - min) / mean`` (the range as a fraction of the
    average level), over ``(count, sum, min, max)``.

    A variant of :func:`relative_variation` (paper 000 §7.3) for readings whose scale is better described by
    their mean than by their peak. ``lower = (max - min)·count / sum``: exact (``Fraction``) over int/Fraction
    inputs, ``None`` for the empty window or a zero sum. Commutative, not selective, non-invertible (min/max),
    exact over int/Fraction.
    """
    return Monoid(
        identity=(0, 0, math.inf, -math.inf),
        combine=_rangesum_combine,
        lift=_rangesum_lift,
        lower=_relvar_mean_lower,
        name="relative_variation_mean",
        commutative=True,
    )


# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LibraryEntry:
    """A library monoid: its factory and deterministic example inputs for law checks and smoke runs.

    ``source`` names the paper table/section the operator comes from. Every entry's examples are chosen so
    that ``check_laws`` succeeds *and* every property the monoid does **not** declare (commutative,
    selective) has a counterexample among them (``tests/test_library.py`` checks that).
    """

    factory: Callable[[], Monoid[Any, Any, Any]]
    examples: Sequence[Any]
    source: str = ""


_ARG_EXAMPLES = [(3, "a"), (7, "b"), (7, "c"), (-1, "d"), (3, "e"), (-1, "f")]
_STAT_EXAMPLES = [0, 1, -3, Fraction(1, 2), 10**12, 7, Fraction(-5, 3)]

LIBRARY: dict[str, LibraryEntry] = {
    "sum": LibraryEntry(sum_monoid, [0, 1, -2, 7, 10**20, -(10**20)], "000 Table 1; 002 Table 1 Sum"),
    "count": LibraryEntry(count_monoid, [0, "x", None, 3.5, (1, 2)], "000 Table 1; 002 Table 1 Count"),
    "mean": LibraryEntry(mean_monoid, [0, 1, -2, 7, Fraction(1, 3), 10**20], "000 Table 1; 002 Table 1 ArithmeticMean"),
    "geomean": LibraryEntry(geomean, [1.0, 2.0, 0.5, 10, 1e-3, 3.25], "000 Table 1 and §7; 002 Table 1 GeometricMean"),
    "stddev_pop": LibraryEntry(
        stddev, [0.0, 1.5, -2.25, 1e3, 3, 1e3 + 0.5], "000 Table 1; 002 Table 1 PopulationStdDev"
    ),
    "stddev_sample": LibraryEntry(
        lambda: stddev(sample=True), [0.0, 1.5, -2.25, 1e3, 3, 1e3 + 0.5], "000 Table 1; 002 Table 1 SampleStdDev"
    ),
    "variance_pop_exact": LibraryEntry(variance_exact, _STAT_EXAMPLES, "002 Table 1 PopulationStdDev (squared)"),
    "variance_sample_exact": LibraryEntry(
        lambda: variance_exact(sample=True), _STAT_EXAMPLES, "002 Table 1 SampleStdDev (squared)"
    ),
    "variance_moments_exact": LibraryEntry(
        variance_moments_exact, _STAT_EXAMPLES, "002 Tables 1-2 StdDev (power sums)"
    ),
    "string_concat": LibraryEntry(string_concat, ["", "a", "b", "cd", "ba"], "000 letter notation; 002 §1 Sum<String>"),
    "max_count": LibraryEntry(max_count, [4, 5, 3, 4, 0, -1], "000 §2.2 maxcount; 002 Table 1 MaxCount"),
    "min_count": LibraryEntry(min_count, [4, 5, 3, 4, 0, -1, 0], "002 Table 1 MinCount"),
    "affine": LibraryEntry(
        affine, [(2, 1), (3, 0), (1, -1), (Fraction(1, 2), 5), (-1, 0)], "non-commutative test group"
    ),
    "matrix2x2": LibraryEntry(
        matrix2x2, [(1, 1, 0, 1), (0, 1, 1, 0), (2, -1, 3, 5), (1, 0, 0, 1)], "non-commutative test operator"
    ),
    "max": LibraryEntry(max_monoid, [3, -1, 7, 7, 0], "000 Table 1; 002 Table 1 Max"),
    "min": LibraryEntry(min_monoid, [3, -1, 7, -1, 0, Fraction(-3, 2)], "000 Table 1; 002 Table 1 Min"),
    "argmax": LibraryEntry(argmax, _ARG_EXAMPLES, "000 Table 1 argMax; 002 Table 1 ArgMax (ties: younger)"),
    "argmax_first": LibraryEntry(lambda: argmax(ties="left"), _ARG_EXAMPLES, "002 Table 1 ArgMax (ties: first)"),
    "argmin": LibraryEntry(argmin, _ARG_EXAMPLES, "002 Table 1 ArgMin (ties: younger)"),
    "argmin_first": LibraryEntry(lambda: argmin(ties="left"), _ARG_EXAMPLES, "002 Table 1 ArgMin (ties: first)"),
    "first": LibraryEntry(first, [3, "x", (1, 2), 3, None], "002 §1 First"),
    "last": LibraryEntry(last, [3, "x", (1, 2), 3, None], "002 §1 Last"),
    "collect": LibraryEntry(collect, [0, 1, "a", (2,), 1], "002 Table 1 Collect"),
    "bloom": LibraryEntry(bloom_filter, ["apple", "banana", 42, b"raw", 3.5, "apple"], "000 Table 1, §2.2, §7 bloom"),
    "count_min": LibraryEntry(count_min_sketch, ["apple", "banana", 42, "apple", b"raw"], "000 Table 1 CountMin, §2.2"),
    "relative_variation": LibraryEntry(
        relative_variation, [10, 12, 8, Fraction(19, 2), 10, 0, -4], "000 §7.3 (DEBS 2012 GC Query 2)"
    ),
    "relative_variation_mean": LibraryEntry(
        relative_variation_mean, [10, 12, 8, Fraction(19, 2), 10, 0, -4], "000 §7.3 variant"
    ),
    "sum_f64": LibraryEntry(sum_f64, [0.0, 1.5, -2.25, 1e6, 3], "typed fast path of sum"),
    "max_f64": LibraryEntry(max_f64, [0.0, 1.5, -2.25, 1e300, -math.inf], "typed fast path of max"),
    "min_f64": LibraryEntry(min_f64, [0.0, 1.5, -2.25, -1e300, math.inf], "typed fast path of min"),
    "sum_i64": LibraryEntry(sum_i64, [0, 1, -5, INT64_MAX, INT64_MIN], "typed fast path of sum"),
    "max_i64": LibraryEntry(max_i64, [0, 1, -5, INT64_MAX, INT64_MIN], "typed fast path of max"),
    "min_i64": LibraryEntry(min_i64, [0, 1, -5, INT64_MAX, INT64_MIN], "typed fast path of min"),
}


def resolve_monoid(monoid: Monoid[Any, Any, Any] | str) -> Monoid[Any, Any, Any]:
    """A :class:`Monoid` from a monoid (returned as is) or a library id (a fresh instance from the entry's factory);
    :class:`~swagkit.spec.errors.RegistryError` for an unknown id.

    >>> resolve_monoid("sum_i64").name
    'sum_i64'
    """
    if isinstance(monoid, Monoid):
        return monoid
    try:
        return LIBRARY[monoid].factory()
    except KeyError:
        raise RegistryError(f"unknown monoid {monoid!r}; known: {', '.join(LIBRARY)}") from None
