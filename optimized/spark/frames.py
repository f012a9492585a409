"""Per-key sliding-window aggregates on Spark DataFrames, computed by swagkit's aggregators (issue 15 §3).

:func:`sliding_aggregate` returns the input rows with one column per aggregate: for every row, the monoid's fold of
the input column over the row's *frame* within its key (``partition_by``), in ``order_by`` order:

* ``rows=W`` -- the W rows ending at the current one: Spark's ``rowsBetween(-(W-1), 0)``. Rows with equal order
  values are in the sort's (unspecified) order, as in Spark; give ``order_by`` a tie-breaking column when it
  matters (non-commutative monoids).
* ``range=T`` -- the rows whose order value ``t'`` lies in ``[t - T, t]``, the current row's *peers* (equal ``t``,
  also those sorted after it) included: exactly Spark's ``rangeBetween(-T, 0)``. ``order_by`` is then one numeric
  column (bigint/int/short/byte with an integer ``T``, or float/double); ``T >= 0``. For a non-commutative monoid
  peers are folded in the sort's order.

**Computation.** ``df.repartition(*keys).sortWithinPartitions(*keys, *order)`` then ``mapInArrow``: each key's
rows stream through one aggregator per output column, carried across Arrow batches (:mod:`.frames_exec`,
:mod:`.frames_keys`), so an executor's memory is bounded by the window and a chunk, not by the key's rows. For
``rows=W`` an in-order algorithm runs each chunk of a key as one :func:`swagkit.optimized.window_array` call (one C
loop for the typed kinds ``sum_f64``, ``max_i64`` ...). The default algorithm is DABA Lite (paper 000 §6:
worst-case O(1) ⊗ per insert, evict and query); any in-order (FIFO) algorithm id of the cards works (its
:mod:`swagkit.optimized` class, as :func:`swagkit.optimized.create` builds it), or a user's class built as
``cls(monoid)``. The output rows come back in partition, key and order, like Spark's window operator's.

**Out of order** (``algorithm="fiba"``, paper 003, with ``range=T``). With an ``arrival`` column the rows of a key
are processed in arrival order -- rows with equal ``arrival`` arrive together -- and each row's output is the fold,
in event-time (``order_by``) order, of the rows *that have arrived so far* (its own arrival group included) whose
event time lies in ``[t - T, t]``: what a stream processor emits when the row arrives. Rows with equal event time
are folded in arrival order. ``lateness=L`` bounds the disorder: once event time ``m`` has arrived, a row older
than ``m - L`` is an error (:class:`~.frames_keys.LateRowError`, raised in the task) and rows older than
``m - L - T`` are evicted, so memory is bounded by ``T + L``; ``lateness=None`` (default) keeps every arrived row
of a key. Without ``arrival``, rows arrive in event-time order with peers together: the result equals the in-order
algorithms' (Spark's ``rangeBetween(-T, 0)``). FiBA also runs ``rows=W`` frames (times are the rows' positions).

**NULLs** (:mod:`.frames_spec`): NULL inputs are skipped and a frame without non-NULL input gives NULL (``count``:
0), as SQL's aggregates do. Float inputs must not be NaN (swagkit's float monoids refuse it: the task fails).

**Debug mode.** ``check=True`` runs the keys of a deterministic sample (``check_fraction`` of them, by a hash of
the key) through the aggregator's debug wrapper (:func:`swagkit.verify.debug.checked`: model, invariants, ⊗
budget after every operation; O(window) per operation), raising :class:`~.frames_keys.FrameCheckError` in the task
if one fails. That is the only path into :mod:`swagkit.verify` (and Hypothesis), taken on the executors; without
``check=True`` nothing here imports verification code. Errors in the arguments (unknown column or monoid id, a
type that does not fit, both or neither of ``rows``/``range``, ``W < 1`` ...) raise ``ValueError``/``TypeError``
before any job runs.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from swagkit.spec.algorithms import CARDS, AlgorithmCard
from swagkit.spec.errors import RegistryError, UnsupportedMonoidError
from swagkit.spec.library import LIBRARY
from swagkit.spec.monoid import Monoid

from .._support import is_f64_kind, lower_is_identity, typed_kind
from ..factory import algorithm_card, algorithm_class
from .frames_spec import AggregateSpec, FrameSpec, input_rule, library_default_output

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import DataType, StructType

__all__ = ["sliding_aggregate", "DEFAULT_CHUNK_ROWS", "DEFAULT_CHECK_FRACTION"]

#: rows an executor gathers before computing (for ``rows=W``: at least W)
DEFAULT_CHUNK_ROWS = 1 << 16
#: share of keys ``check=True`` runs in debug mode by default
DEFAULT_CHECK_FRACTION = 0.1

#: an aggregate: (monoid, input column) or (monoid, input column, output type)
AggregateArg = tuple[Any, ...]

#: what the executor (:mod:`.frames_keys`) calls on an aggregator, by kind and frame (``rows``: ``window_array``
#: or one operation at a time, FiBA's ``slide``; ``range``: a group at a time) -- a user's class must offer it
_CALLS: dict[tuple[str, str], tuple[str, ...]] = {
    ("fifo", "rows"): ("insert", "evict", "query", "__len__"),
    ("fifo", "range"): ("insert_many", "evict_many", "query"),
    ("out_of_order", "rows"): ("slide", "insert", "evict", "query", "__len__"),
    ("out_of_order", "range"): ("insert", "bulk_evict", "query", "range_query"),
}


def sliding_aggregate(
    df: DataFrame,
    *,
    partition_by: str | Sequence[str],
    order_by: str | Sequence[str],
    aggregates: Mapping[str, AggregateArg],
    rows: int | None = None,
    range: int | float | None = None,  # the name; shadows the builtin here only
    algorithm: str | Callable[..., Any] = "daba_lite",
    arrival: str | None = None,
    lateness: int | float | None = None,
    check: bool = False,
    check_fraction: float = DEFAULT_CHECK_FRACTION,
    num_partitions: int | None = None,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> DataFrame:
    """``df``'s rows with one column per entry of ``aggregates`` (``{"out": (monoid, "col")}`` or
    ``{"out": (monoid, "col", "double")}``): the sliding fold of ``col`` per key (see the module docstring).

    ``monoid`` is a library id (:data:`swagkit.spec.library.LIBRARY`: ``"sum_i64"``, ``"max_f64"``,
    ``"string_concat"``, ``"count"``, ``"mean"``, ``"argmax"`` ...) or a :class:`~swagkit.spec.monoid.Monoid`;
    output types follow :mod:`.frames_spec`. ``algorithm``: the id of an in-order (FIFO) algorithm (default
    ``"daba_lite"``) or of FiBA (``"fiba"``, ``"fiba_mu2"`` ...), or a class taking the monoid.
    ``num_partitions``: the shuffle's partition count (default ``spark.sql.shuffle.partitions``). ``chunk_rows``:
    rows an executor gathers before computing (at least W for ``rows=W``; memory is O(chunk + window)).

    Spark hands ``mapInArrow`` batches of ``spark.sql.execution.arrow.maxRecordsPerBatch`` rows (10,000 by
    default); on large inputs a session setting of about 100,000 lowers the cost of the Arrow exchange
    (``benchmarks/spark_frames.py`` measures it)."""
    from pyspark.sql.types import StructField, StructType

    schema = df.schema
    keys = _column_list("partition_by", partition_by, schema)
    order = _column_list("order_by", order_by, schema)
    if not aggregates:
        raise ValueError("sliding_aggregate: aggregates is empty; give at least one {'out': (monoid, 'column')}")
    window_rows, window_range, time_is_float = _window(rows, range, order, schema)
    algorithm_id, cls, params, out_of_order = _algorithm(algorithm, "rows" if window_rows is not None else "range")
    arrival = _arrival(arrival, lateness, window_range, out_of_order, schema)
    if not 0.0 < check_fraction <= 1.0:
        raise ValueError(f"sliding_aggregate: check_fraction must be in (0, 1], got {check_fraction!r}")
    if num_partitions is not None and (not _is_int(num_partitions) or num_partitions < 1):
        raise ValueError(f"sliding_aggregate: num_partitions must be a positive int, got {num_partitions!r}")
    if not _is_int(chunk_rows) or chunk_rows < 1:
        raise ValueError(f"sliding_aggregate: chunk_rows must be a positive int, got {chunk_rows!r}")
    typed_specs = [_aggregate(name, arg, schema) for name, arg in aggregates.items()]
    specs = [spec for spec, _ in typed_specs]
    if algorithm_id is not None:
        _require_monoids(algorithm_id, specs)
    frame = FrameSpec(
        keys=keys,
        order_by=order,
        rows=window_rows,
        range=window_range,
        arrival=arrival,
        lateness=lateness,
        algorithm=algorithm_id,
        algorithm_class=cls,
        algorithm_params=params,
        out_of_order=out_of_order,
        time_is_float=time_is_float,
        check_fraction=check_fraction if check else 0.0,
        chunk_rows=max(chunk_rows, window_rows or 1),
    )
    from .frames_exec import partition_function

    out_schema = StructType([*schema.fields, *(StructField(s.name, t, True) for s, t in typed_specs)])
    sort = [*keys, *([arrival] if arrival is not None else []), *order]
    shuffled = df.repartition(num_partitions, *keys) if num_partitions is not None else df.repartition(*keys)
    return shuffled.sortWithinPartitions(*sort).mapInArrow(partition_function(frame, specs), out_schema)


def _is_int(x: Any) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


def _column_list(what: str, columns: str | Sequence[str], schema: StructType) -> tuple[str, ...]:
    names = (columns,) if isinstance(columns, str) else tuple(columns)
    if not names:
        raise ValueError(f"sliding_aggregate: {what} names no column")
    for name in names:
        _field(what, name, schema)
    return names


def _field(what: str, name: Any, schema: StructType) -> Any:
    if not isinstance(name, str):
        raise TypeError(f"sliding_aggregate: {what} must name columns by string, got {name!r}")
    if name not in schema.names:
        raise ValueError(
            f"sliding_aggregate: {what} column {name!r} is not in the DataFrame ({', '.join(schema.names)})"
        )
    return schema[name]


def _window(
    rows: int | None, span: int | float | None, order: tuple[str, ...], schema: StructType
) -> tuple[int | None, int | float | None, bool]:
    """(W, T, whether the range column is floating point), validated."""
    if (rows is None) == (span is None):
        raise ValueError("sliding_aggregate: give exactly one of rows=W (count-based) and range=T (time-based)")
    if rows is not None:
        if not _is_int(rows):
            raise TypeError(f"sliding_aggregate: rows must be an int, got {rows!r}")
        if rows < 1:
            raise ValueError(f"sliding_aggregate: rows must be >= 1, got {rows}")
        return int(rows), None, False
    from pyspark.sql.types import DoubleType, FloatType, IntegralType

    if len(order) != 1:
        raise ValueError(f"sliding_aggregate: range=T orders by one numeric column, got order_by={list(order)}")
    kind = schema[order[0]].dataType
    is_float = isinstance(kind, (DoubleType, FloatType))
    if not (is_float or isinstance(kind, IntegralType)):
        raise TypeError(
            f"sliding_aggregate: range=T needs a numeric order_by column; {order[0]!r} is {kind.simpleString()} "
            "(cast timestamps to numbers first, e.g. unix_micros)"
        )
    if isinstance(span, bool) or not isinstance(span, numbers.Real) or (not is_float and not _is_int(span)):
        raise TypeError(f"sliding_aggregate: range must be {'a number' if is_float else 'an int'}, got {span!r}")
    if not span >= 0:
        raise ValueError(f"sliding_aggregate: range must be >= 0, got {span!r}")
    return None, float(span) if is_float else int(span), is_float


def _algorithm(
    algorithm: Any, frame: str
) -> tuple[str | None, Callable[..., Any] | None, tuple[tuple[str, Any], ...], bool]:
    """(algorithm id or None, the class -- swagkit.optimized's or the user's --, constructor parameters,
    out-of-order kind), for a ``frame`` of ``"rows"`` or ``"range"``."""
    usable = [c.id for c in CARDS if c.kind == "out_of_order" or (c.kind == "fifo" and not c.params)]
    if isinstance(algorithm, str):
        if algorithm not in usable:
            raise ValueError(f"sliding_aggregate: unknown algorithm {algorithm!r}; use one of {', '.join(usable)}")
        card = algorithm_card(algorithm)
        return (
            algorithm,
            algorithm_class(algorithm, "optimized"),
            tuple(card.params.items()),
            card.kind == "out_of_order",
        )
    if not callable(algorithm):
        raise TypeError(f"sliding_aggregate: algorithm must be an algorithm id or a class, got {algorithm!r}")
    named = _card_of(algorithm)
    if named is not None and named.kind not in ("fifo", "out_of_order"):
        raise TypeError(
            f"sliding_aggregate: {algorithm!r} implements {named.id}, of the {named.kind} kind; sliding_aggregate "
            "runs in-order (fifo) and out-of-order aggregators"
        )
    if named is not None:
        kind = named.kind
    else:  # a class of no algorithm: its face tells
        kind = "out_of_order" if callable(getattr(algorithm, "range_query", None)) else "fifo"
    missing = [name for name in _CALLS[kind, frame] if getattr(algorithm, name, None) is None]
    if missing:
        raise TypeError(
            f"sliding_aggregate: {algorithm!r} lacks {', '.join(missing)} of a {kind} aggregator ({frame} frames)"
        )
    return None, algorithm, (), kind == "out_of_order"


def _card_of(cls: Any) -> AlgorithmCard | None:
    """The card of the algorithm ``cls`` says it implements (its ``algorithm`` attribute), if any."""
    name = getattr(cls, "algorithm", None)
    if not isinstance(name, str):
        return None
    try:
        return algorithm_card(name)
    except RegistryError:
        return None


def _arrival(
    arrival: str | None, lateness: Any, span: int | float | None, out_of_order: bool, schema: StructType
) -> str | None:
    if arrival is None:
        if lateness is not None:
            raise ValueError("sliding_aggregate: lateness applies to an arrival column; give arrival=")
        return None
    _field("arrival", arrival, schema)
    if span is None or not out_of_order:
        raise ValueError("sliding_aggregate: arrival= needs range=T and an out-of-order algorithm (algorithm='fiba')")
    if lateness is not None and (isinstance(lateness, bool) or not isinstance(lateness, numbers.Real) or lateness < 0):
        raise ValueError(f"sliding_aggregate: lateness must be a number >= 0 or None, got {lateness!r}")
    return arrival


def _aggregate(name: Any, arg: Any, schema: StructType) -> tuple[AggregateSpec, DataType]:
    """One output column's :class:`AggregateSpec` and Spark type, checked against the input column's type."""
    from pyspark.sql.pandas.types import to_arrow_type
    from pyspark.sql.types import DoubleType, FloatType, StructType

    if not isinstance(name, str) or not name:
        raise TypeError(f"sliding_aggregate: output column names are non-empty strings, got {name!r}")
    if name in schema.names:
        raise ValueError(f"sliding_aggregate: output column {name!r} is already a column of the DataFrame")
    if not isinstance(arg, tuple) or len(arg) not in (2, 3):
        raise TypeError(f"sliding_aggregate: aggregate {name!r} must be (monoid, column[, output type]), got {arg!r}")
    monoid_arg, column = arg[0], arg[1]
    field = _field(f"aggregate {name!r}", column, schema)
    monoid_id, user_monoid, monoid = _monoid(name, monoid_arg)
    code = typed_kind(monoid)
    value_kind = ("f64" if is_f64_kind(code) else "i64") if code else "object"
    rule = input_rule(monoid_id) or ({"f64": "numeric", "i64": "integral"}.get(value_kind))
    _check_input(name, monoid.name, rule, column, field.dataType)
    if len(arg) == 3:
        out_type = _parse_type(name, arg[2])
    else:
        default = library_default_output(monoid_id) if monoid_id is not None else None
        if monoid_id is None:
            default = ("double" if value_kind == "f64" else "bigint") if code and lower_is_identity(monoid) else "input"
        if default is None:
            raise ValueError(
                f"sliding_aggregate: aggregate {name!r}: monoid {monoid_id!r} has no default output type; "
                f"pass one as a third element, e.g. ({monoid_id!r}, {column!r}, 'string')"
            )
        out_type = _default_type(default, field.dataType)
    spec = AggregateSpec(
        name=name,
        column=column,
        monoid_id=monoid_id,
        user_monoid=user_monoid,
        value_kind=value_kind,
        arrow_type=to_arrow_type(out_type),
        to_double=isinstance(out_type, (DoubleType, FloatType)) and value_kind == "object",
        struct_input=isinstance(field.dataType, StructType),
        empty_value=0 if monoid_id == "count" else None,
        nullable=bool(field.nullable),
    )
    return spec, out_type


def _monoid(name: str, monoid: Any) -> tuple[str | None, Monoid[Any, Any, Any] | None, Monoid[Any, Any, Any]]:
    if isinstance(monoid, str):
        entry = LIBRARY.get(monoid)
        if entry is None:
            raise ValueError(
                f"sliding_aggregate: aggregate {name!r}: unknown monoid id {monoid!r}; known: {', '.join(LIBRARY)}"
            )
        return monoid, None, entry.factory()
    if isinstance(monoid, Monoid):
        return None, monoid, monoid
    raise TypeError(
        f"sliding_aggregate: aggregate {name!r}: expected a library monoid id or a swagkit Monoid, got {monoid!r}"
    )


def _check_input(name: str, monoid_name: str, rule: str | None, column: str, kind: DataType) -> None:
    from pyspark.sql.types import DoubleType, FloatType, IntegralType, StringType, StructType

    fits = {
        None: True,
        "integral": isinstance(kind, IntegralType),
        "numeric": isinstance(kind, (IntegralType, DoubleType, FloatType)),
        "string": isinstance(kind, StringType),
        "pair": isinstance(kind, StructType) and len(kind.fields) == 2,
    }[rule]
    if not fits:
        wanted = {
            "integral": "an integer",
            "numeric": "a numeric",
            "string": "a string",
            "pair": "a struct<key, payload>",
        }[rule or ""]
        raise TypeError(
            f"sliding_aggregate: aggregate {name!r}: {monoid_name} needs {wanted} column; {column!r} is "
            f"{kind.simpleString()}"
        )


def _parse_type(name: str, out_type: Any) -> DataType:
    from pyspark.sql.types import DataType

    if isinstance(out_type, DataType):
        return out_type
    if isinstance(out_type, str):
        try:
            return DataType.fromDDL(out_type)
        except Exception as err:
            raise ValueError(f"sliding_aggregate: aggregate {name!r}: bad output type {out_type!r}: {err}") from err
    raise TypeError(f"sliding_aggregate: aggregate {name!r}: output type must be a DDL string or DataType")


def _default_type(rule: str, input_type: DataType) -> DataType:
    from pyspark.sql.types import DataType, StructType

    if rule == "input":
        return input_type
    if rule == "payload":
        assert isinstance(input_type, StructType)
        return input_type.fields[1].dataType
    return DataType.fromDDL(rule)


def _require_monoids(algorithm_id: str, specs: Sequence[AggregateSpec]) -> None:
    """The algorithm's monoid requirements (SlickDeque: selective or invertible ...), before the job."""
    card = algorithm_card(algorithm_id)
    for spec in specs:
        try:
            card.require_supported(spec.monoid())
        except UnsupportedMonoidError as err:
            raise UnsupportedMonoidError(f"sliding_aggregate: aggregate {spec.name!r}: {err}") from None
