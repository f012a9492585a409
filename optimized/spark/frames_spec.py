"""What one :func:`~swagkit.optimized.spark.frames.sliding_aggregate` call computes, in plain data (issue 15 §3).

The driver resolves the user's arguments into a :class:`FrameSpec` (partition keys, order, the window, the
algorithm, the check sample) and one :class:`AggregateSpec` per output column; both are pickled to the executors,
which rebuild the monoids and aggregator classes from them (library monoids travel as their ids). Nothing here
imports pyspark or pyarrow.

**Output types** (:data:`OUTPUT_RULES`): a library monoid has a documented default -- ``bigint`` for the int64
kinds and the counts, ``double`` for the float64 kinds and every statistic (a ``Fraction`` result is converted
with ``float``), ``string`` for ``string_concat``, the input column's type for ``sum``/``max``/``min``/``first``/
``last``, the payload's type (the second field of the input struct) for ``argmax``/``argmin`` -- and a user's
:class:`~swagkit.spec.monoid.Monoid` defaults to the input column's type. A third element in the aggregate tuple
overrides the default (a DDL string such as ``"double"`` or a pyspark ``DataType``); the monoids without a default
(``collect``, sketches, ``matrix2x2``, ``affine``) need it.

**NULLs** follow SQL's aggregates: a NULL input is skipped (it still occupies its row in a ``rows`` frame, as in
Spark, but contributes nothing: the aggregator receives the monoid's identity), and a frame without any non-NULL
input gives NULL -- except for ``count``, which gives 0 (:attr:`AggregateSpec.empty_value`). So ``first``/``last``
are Spark's ``first(col, ignorenulls=True)``/``last(col, ignorenulls=True)``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

__all__ = [
    "AggregateSpec",
    "FrameSpec",
    "INPUT_RULES",
    "OUTPUT_RULES",
    "ValueKind",
    "input_rule",
    "library_default_output",
    "with_null_lift",
]

#: how an aggregate's input column reaches the aggregator: a float64 or int64 buffer (typed fast paths; NULLs
#: replaced by the identity), or Python objects (struct values as tuples, NULL as ``None``)
ValueKind = str  # "f64" | "i64" | "object"

#: library id -> default output type: a Spark DDL type name, ``"input"`` (the input column's type) or
#: ``"payload"`` (the second field of the input struct); ids not listed need an explicit output type
OUTPUT_RULES: dict[str, str] = {
    **dict.fromkeys(("sum_i64", "max_i64", "min_i64", "count", "max_count", "min_count"), "bigint"),
    **dict.fromkeys(("sum_f64", "max_f64", "min_f64"), "double"),
    **dict.fromkeys(
        (
            "mean",
            "geomean",
            "stddev_pop",
            "stddev_sample",
            "variance_pop_exact",
            "variance_sample_exact",
            "variance_moments_exact",
            "relative_variation",
            "relative_variation_mean",
        ),
        "double",
    ),
    "string_concat": "string",
    **dict.fromkeys(("sum", "max", "min", "first", "last"), "input"),
    **dict.fromkeys(("argmax", "argmax_first", "argmin", "argmin_first"), "payload"),
}

#: input column requirements checked before the job, by library id: ``integral`` (byte/short/int/bigint),
#: ``numeric`` (integral or float/double), ``string``, ``pair`` (a struct of two fields: key, payload)
INPUT_RULES: dict[str, tuple[str, ...]] = {
    "integral": ("sum_i64", "max_i64", "min_i64", "sum", "mean", "variance_pop_exact", "variance_sample_exact"),
    "numeric": ("sum_f64", "max_f64", "min_f64", "geomean", "stddev_pop", "stddev_sample"),
    "string": ("string_concat",),
    "pair": ("argmax", "argmax_first", "argmin", "argmin_first"),
}


def input_rule(monoid_id: str | None) -> str | None:
    """The input requirement (a key of :data:`INPUT_RULES`) of a library id, or ``None`` (anything goes)."""
    for rule, ids in INPUT_RULES.items():
        if monoid_id in ids:
            return rule
    return None


def library_default_output(monoid_id: str) -> str | None:
    """The default output rule of a library id (:data:`OUTPUT_RULES`), ``None`` when it has none."""
    return OUTPUT_RULES.get(monoid_id)


@dataclass(frozen=True)
class AggregateSpec:
    """One output column: ``name`` = the monoid (library ``monoid_id``, else the user's ``user_monoid``) over the
    input column ``column``.

    ``value_kind`` is how inputs are converted (:data:`ValueKind`); ``arrow_type`` the output's Arrow type (a
    ``pyarrow.DataType``, picklable); ``to_double`` converts each non-NULL result with ``float`` (``Fraction``
    statistics); ``struct_input`` turns struct values (dicts) into tuples in field order; ``empty_value`` is the
    answer of a frame with no non-NULL input (``None``: NULL; ``0`` for ``count``); ``nullable``: the input
    column may hold NULLs (its schema says so)."""

    name: str
    column: str
    monoid_id: str | None
    user_monoid: Monoid[Any, Any, Any] | None
    value_kind: ValueKind
    arrow_type: Any
    to_double: bool = False
    struct_input: bool = False
    empty_value: Any = None
    nullable: bool = True

    def monoid(self) -> Monoid[Any, Any, Any]:
        """A fresh monoid: the library factory's, or the user's own object."""
        if self.monoid_id is not None:
            return LIBRARY[self.monoid_id].factory()
        assert self.user_monoid is not None
        return self.user_monoid


@dataclass(frozen=True)
class FrameSpec:
    """The window every aggregate of one call shares.

    ``keys``: partition columns; ``order_by``: the order within a key (for ``range`` one numeric column, the
    event time); exactly one of ``rows`` (the ``rows`` rows ending at the current one) and ``range`` (the rows
    whose order value lies in ``[t - range, t]``, peers included) is set. ``arrival``: the column giving the order
    in which rows reach the aggregator (``None``: the ``order_by`` order); ``lateness``: how far behind the largest
    event time seen a row may arrive (``None``: unbounded, every arrived row of a key is kept).
    ``algorithm``: an algorithm id (``algorithm_class`` is then its optimized class), or ``None`` when
    ``algorithm_class`` is a user's class; ``algorithm_params``: the constructor's keywords; ``out_of_order``: the
    algorithm is of the out-of-order kind (FiBA: ``insert(t, v)``, ``bulk_evict``, ``range_query``).
    ``time_is_float``: the ``range`` order column is floating point (strict bounds use ``nextafter``).
    ``check_fraction``: the share of keys run in debug mode (0: none). ``chunk_rows``: how many rows the
    executor gathers before computing (at least the window for ``rows``: see :mod:`.frames_exec`)."""

    keys: tuple[str, ...]
    order_by: tuple[str, ...]
    rows: int | None
    range: int | float | None
    arrival: str | None
    lateness: int | float | None
    algorithm: str | None
    algorithm_class: Callable[..., Any] | None
    algorithm_params: tuple[tuple[str, Any], ...]
    out_of_order: bool
    time_is_float: bool
    check_fraction: float
    chunk_rows: int


def with_null_lift(monoid: Monoid[Any, Any, Any]) -> Monoid[Any, Any, Any]:
    """``monoid`` whose ``lift`` maps ``None`` (a SQL NULL) to the identity, i.e. skips it; other inputs are lifted
    as before. The result has no typed fast path (its ``lift`` is Python's)."""
    from dataclasses import replace

    lift, identity = monoid.lift, monoid.identity

    def null_skipping_lift(value: Any) -> Any:
        return identity if value is None else lift(value)

    return replace(monoid, lift=null_skipping_lift, fast_path=None)
