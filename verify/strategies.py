"""Hypothesis strategies of *input* values for each library monoid (by library id).

``strategy_for(monoid_id)`` returns a strategy of values suitable for ``insert`` into an aggregator over
``LIBRARY[monoid_id].factory()`` (i.e. values its ``lift`` accepts). Ranges are kept small enough that ties,
duplicates and hash collisions actually occur (they are where argmax tie rules, max_count and sketches go
wrong) and, for float monoids, that the monoid's stated tolerance covers the rounding of any bracketing.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

_SMALL_INTS = st.integers(min_value=-50, max_value=50)
_INT64 = st.integers(min_value=-(2**63), max_value=2**63 - 1)


def _exact_numbers() -> st.SearchStrategy[Any]:
    """ints and Fractions with small numerators/denominators (exact arithmetic stays fast)."""
    return st.one_of(
        _SMALL_INTS,
        st.fractions(min_value=-50, max_value=50, max_denominator=12),
    )


def _positive_exact() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.integers(min_value=1, max_value=100),
        st.fractions(min_value=Fraction(1, 12), max_value=100, max_denominator=12).filter(lambda f: f > 0),
    )


def _key_payload() -> st.SearchStrategy[Any]:
    # few keys and few payloads, so equal keys with different payloads (ties) are common
    return st.tuples(st.integers(min_value=-3, max_value=3), st.sampled_from("abcdefgh"))


def _hashable_items() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.text(alphabet="abcde", min_size=0, max_size=3),
        st.integers(min_value=-20, max_value=20),
    )


_STAT_FLOATS = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)

STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "sum": lambda: _SMALL_INTS,
    "count": lambda: st.one_of(st.none(), _SMALL_INTS, st.text(max_size=2)),
    "mean": _exact_numbers,
    "geomean": lambda: st.one_of(
        st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False),
        st.integers(min_value=1, max_value=1000),
    ),
    "stddev_pop": lambda: _STAT_FLOATS,
    "stddev_sample": lambda: _STAT_FLOATS,
    "variance_pop_exact": _exact_numbers,
    "variance_sample_exact": _exact_numbers,
    "variance_moments_exact": _exact_numbers,
    "string_concat": lambda: st.text(alphabet="abcdefgh", min_size=1, max_size=2),
    "max_count": lambda: st.integers(min_value=0, max_value=6),
    "min_count": lambda: st.integers(min_value=0, max_value=6),
    "matrix2x2": lambda: st.tuples(*[st.integers(min_value=-2, max_value=2)] * 4),
    "affine": lambda: st.tuples(
        st.sampled_from([-2, -1, 1, 2, Fraction(1, 2)]), st.integers(min_value=-3, max_value=3)
    ),
    "max": lambda: _SMALL_INTS,
    "min": _exact_numbers,
    "argmax": _key_payload,
    "argmax_first": _key_payload,
    "argmin": _key_payload,
    "argmin_first": _key_payload,
    "first": lambda: st.one_of(_SMALL_INTS, st.text(alphabet="xyz", max_size=2)),
    "last": lambda: st.one_of(_SMALL_INTS, st.text(alphabet="xyz", max_size=2)),
    "collect": lambda: st.one_of(_SMALL_INTS, st.text(alphabet="xyz", max_size=2)),
    "bloom": _hashable_items,
    "count_min": _hashable_items,
    "relative_variation": _positive_exact,
    "relative_variation_mean": _positive_exact,
    "sum_f64": lambda: st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    "max_f64": lambda: st.floats(allow_nan=False),
    "min_f64": lambda: st.floats(allow_nan=False),
    "sum_i64": lambda: _INT64,
    "max_i64": lambda: _INT64,
    "min_i64": lambda: _INT64,
}


def strategy_for(monoid_id: str) -> st.SearchStrategy[Any]:
    """Strategy of input values for the library monoid ``monoid_id``."""
    try:
        return STRATEGIES[monoid_id]()
    except KeyError:
        raise KeyError(f"no input strategy for monoid {monoid_id!r}") from None
