"""The monoid library: the papers' operators as :class:`~swagkit.spec.monoid.Monoid` objects.

Every factory returns a fresh monoid that declares its algebraic properties truthfully; ``tests/test_laws.py``
and ``swagkit verify`` check each declaration with :func:`~swagkit.spec.monoid.check_laws`. ``LIBRARY`` maps
ids to factories and to deterministic example inputs for those checks.

Typed monoids (``sum_f64``, ``max_i64`` …) carry a ``kind`` that lets :mod:`swagkit.optimized` run them with
no Python call per combine. Their ``lift`` validates the value exactly as the compiled fast path does, so both
implementations reject the same bad input with the same exception:

* ``*_f64`` accept ``float`` and ``int`` values exactly representable as a float64 (|x| ≤ 2**53); NaN is
  rejected (it would break associativity of max/min and equality of sums); other types raise ``TypeError``.
* ``*_i64`` accept ``int`` in [-2**63, 2**63); other types raise ``TypeError``, out-of-range ints
  ``OverflowError``. ``sum_i64`` adds modulo 2**64 (two's complement, like C): that is a group, so every
  algorithm's result equals the true window sum whenever the true sum fits in int64, even if a partial
  aggregate of a sub-window overflows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .monoid import Monoid

__all__ = [
    "LIBRARY",
    "LibraryEntry",
    "sum_monoid",
    "string_concat",
    "max_count",
    "matrix2x2",
    "max_monoid",
    "sum_f64",
    "sum_i64",
    "max_f64",
    "min_f64",
    "max_i64",
    "min_i64",
    "float_close",
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
    """Validate a value for a float64 fast path (see the module docstring)."""
    if isinstance(x, bool) or not isinstance(x, (float, int)):
        raise TypeError(f"float64 monoid expects a float (or an exactly representable int), got {type(x).__name__}")
    if isinstance(x, int):
        if -F64_EXACT_INT <= x <= F64_EXACT_INT:
            return float(x)
        raise TypeError(f"int {x} is not exactly representable as float64; convert it explicitly")
    if x != x:
        raise ValueError("NaN is not a valid float64 monoid value")
    return float(x)


def as_i64(x: Any) -> int:
    """Validate a value for an int64 fast path (see the module docstring)."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"int64 monoid expects an int, got {type(x).__name__}")
    if not INT64_MIN <= x <= INT64_MAX:
        raise OverflowError(f"int {x} does not fit in int64")
    return int(x)


def _wrap64(x: int) -> int:
    return ((x + 2**63) % 2**64) - 2**63


def _add(a: Any, b: Any) -> Any:
    return a + b


def _neg(a: Any) -> Any:
    return -a


# --------------------------------------------------------------------------------------------------------------
# generic exact monoids


def sum_monoid() -> Monoid[Any, Any, Any]:
    """Sum over exact numbers (int, Fraction): commutative and invertible."""
    return Monoid(identity=0, combine=_add, name="sum", commutative=True, invertible=True, inverse=_neg)


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
        lift=lambda e: (e, 1),
        lower=lambda v: v[1],
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


def _max(a: Any, b: Any) -> Any:
    return a if a >= b else b


def max_monoid() -> Monoid[Any, Any, Any]:
    """Maximum over totally ordered values (identity ``-inf``): commutative, selective, non-invertible."""
    return Monoid(identity=-math.inf, combine=_max, name="max", commutative=True, selective=True)


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
        kind="sum_f64",
    )


def _min(a: Any, b: Any) -> Any:
    return a if a <= b else b


def max_f64() -> Monoid[Any, float, float]:
    """float64 maximum (identity ``-inf``). Exact: max never rounds."""
    return Monoid(identity=-math.inf, combine=_max, lift=as_f64, name="max_f64", commutative=True, selective=True, kind="max_f64")


def min_f64() -> Monoid[Any, float, float]:
    """float64 minimum (identity ``+inf``)."""
    return Monoid(identity=math.inf, combine=_min, lift=as_f64, name="min_f64", commutative=True, selective=True, kind="min_f64")


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
        kind="sum_i64",
    )


def max_i64() -> Monoid[Any, int, int]:
    """int64 maximum (identity ``-2**63``)."""
    return Monoid(identity=INT64_MIN, combine=_max, lift=as_i64, name="max_i64", commutative=True, selective=True, kind="max_i64")


def min_i64() -> Monoid[Any, int, int]:
    """int64 minimum (identity ``2**63 - 1``)."""
    return Monoid(identity=INT64_MAX, combine=_min, lift=as_i64, name="min_i64", commutative=True, selective=True, kind="min_i64")


# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LibraryEntry:
    """A library monoid: its factory and deterministic example inputs for law checks and smoke runs."""

    factory: Callable[[], Monoid[Any, Any, Any]]
    examples: Sequence[Any]


LIBRARY: dict[str, LibraryEntry] = {
    "sum": LibraryEntry(sum_monoid, [0, 1, -2, 7, 10**20, -(10**20)]),
    "string_concat": LibraryEntry(string_concat, ["", "a", "b", "cd", "ba"]),
    "max_count": LibraryEntry(max_count, [4, 5, 3, 4, 0, -1]),
    "matrix2x2": LibraryEntry(matrix2x2, [(1, 1, 0, 1), (0, 1, 1, 0), (2, -1, 3, 5), (1, 0, 0, 1)]),
    "max": LibraryEntry(max_monoid, [3, -1, 7, 7, 0]),
    "sum_f64": LibraryEntry(sum_f64, [0.0, 1.5, -2.25, 1e6, 3]),
    "max_f64": LibraryEntry(max_f64, [0.0, 1.5, -2.25, 1e300, -math.inf]),
    "min_f64": LibraryEntry(min_f64, [0.0, 1.5, -2.25, -1e300, math.inf]),
    "sum_i64": LibraryEntry(sum_i64, [0, 1, -5, INT64_MAX, INT64_MIN]),
    "max_i64": LibraryEntry(max_i64, [0, 1, -5, INT64_MAX, INT64_MIN]),
    "min_i64": LibraryEntry(min_i64, [0, 1, -5, INT64_MAX, INT64_MIN]),
}
