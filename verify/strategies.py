"""Hypothesis strategies of *input* values for each library monoid (by library id).

``strategy_for(monoid_id)`` returns a strategy of values suitable for ``insert`` into an aggregator over
``LIBRARY[monoid_id].factory()``.
"""

from __future__ import annotations

from typing import Any, Callable

from hypothesis import strategies as st

_SMALL_INTS = st.integers(min_value=-50, max_value=50)

STRATEGIES: dict[str, Callable[[], st.SearchStrategy[Any]]] = {
    "sum": lambda: _SMALL_INTS,
    "string_concat": lambda: st.text(alphabet="abcdefgh", min_size=1, max_size=2),
    "max_count": lambda: st.integers(min_value=0, max_value=6),
    "matrix2x2": lambda: st.tuples(*[st.integers(min_value=-2, max_value=2)] * 4),
    "max": lambda: _SMALL_INTS,
    "sum_f64": lambda: st.floats(min_value=-1e6, max_value=1e6, allow_nan=False),
    "max_f64": lambda: st.floats(allow_nan=False),
    "min_f64": lambda: st.floats(allow_nan=False),
    "sum_i64": lambda: st.integers(min_value=-(2**63), max_value=2**63 - 1),
    "max_i64": lambda: st.integers(min_value=-(2**63), max_value=2**63 - 1),
    "min_i64": lambda: st.integers(min_value=-(2**63), max_value=2**63 - 1),
}


def strategy_for(monoid_id: str) -> st.SearchStrategy[Any]:
    """Strategy of input values for the library monoid ``monoid_id``."""
    try:
        return STRATEGIES[monoid_id]()
    except KeyError:
        raise KeyError(f"no input strategy for monoid {monoid_id!r}") from None
