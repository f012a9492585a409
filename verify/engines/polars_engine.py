"""Polars as a window engine (issue 24): a case becomes a Polars program, the program runs, its answers are read.

Each query takes the first of three spellings that fits it (:func:`plan`):

* ``rolling`` -- ``pl.col("x").rolling_<f>(k, min_samples=m, center=c)``, for ``ROWS`` frames that are count
  windows (trailing or centred, :class:`~.frames_api.RowsWindow`) and the aggregates with a rolling function
  (:data:`ROLLING`), where ``m <= k`` (Polars refuses a larger ``min_samples``); a weighted ``sum``/``avg``
  (:attr:`~.model.Call.weights`) is ``rolling_sum``/``rolling_mean`` with ``weights=[...]`` (the shape's weights
  as doubles), over tables without NULL values (Polars panics on weights with NULLs: declared unsupported);
* ``by`` -- ``pl.col("x").rolling_<f>_by("o", "<w><unit>", min_samples=m, closed=...)``, for ``RANGE`` frames
  ``t-w .. t`` (:class:`~.frames_api.ValueWindow` with ``w > 0``) and the same aggregates;
* ``expr`` -- ``<aggregation>.rolling(index_column, period=..., offset=..., closed=...)``, the expression form of
  ``DataFrame.rolling``, for every other bounded frame that is not always empty and every aggregation
  :data:`AGGREGATIONS` spells (``count``, ``first``, ``get``, ``str.join``, ``all`` ...): ``RANGE`` frames index by
  ``o``; ``ROWS`` frames by ``pos``, the row's position in its sorted partition (``(pos+lo-1, pos+hi]``).

Partitions are ``.over("p")`` (a NULL ``p`` is a group of its own); rows are sorted by ``o, id`` first (DESC and
NULLS FIRST/LAST as the window says). Polars' windows are by value, so a ``RANGE`` frame's later peers are in
(``peers_follow`` True); offset windows need ascending, non-NULL ``int``/``date``/``timestamp`` keys; durations are
``i``, ``d`` and ``s`` (days for dates, seconds for timestamps, model.py's units).

**NULLs.** ``min_samples`` counts non-NULL values (checked by experiment), so ``Call.min_count`` maps to it as
:func:`~.frames_api.min_samples` says. The ``expr`` spelling has no ``min_samples``; where Polars' own empty
answer is not SQL's NULL (``sum`` and ``count`` of no value are 0, ``all`` of none is true, ``str.join`` of none
is ``""``) or ``min_count`` asks for more, the aggregation is guarded the way a Polars user writes it:
``pl.when(pl.col("x").count() >= m).then(...)``. Polars keeps NULL and NaN apart: answers come back as they are
(``None``, ``nan``, ``inf``); an integer ``sum`` is Polars' wrapping ``Int64`` sum.

Errors: a Polars exception (``PolarsError``, or a ``ValueError``/``TypeError`` raised inside ``polars``) is a
``refused`` query; a Rust panic (``PanicException``, a ``BaseException``) or any other error a ``crash``.
Polars is imported when a query runs, never at import.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .engine import Failure
from .frames_api import (
    Program,
    ProgramEngine,
    RowsWindow,
    ValueWindow,
    common_problem,
    describe,
    error_text,
    list_source,
    min_samples,
    order_columns,
    raised_inside,
    range_order_problem,
    rows_window,
    value_window,
)
from .model import Frame, Query, Table, weight_values

__all__ = ["AGGREGATIONS", "ROLLING", "PolarsEngine", "Plan", "plan"]

#: aggregate -> (rolling function stem, its extra keywords): ``rolling_<stem>(...)``, ``rolling_<stem>_by(...)``
ROLLING: dict[str, tuple[str, str]] = {
    "sum": ("sum", ""),
    "avg": ("mean", ""),
    "min": ("min", ""),
    "max": ("max", ""),
    "var_pop": ("var", "ddof=0"),
    "var_samp": ("var", "ddof=1"),
    "stddev_pop": ("std", "ddof=0"),
    "stddev_samp": ("std", "ddof=1"),
    "median": ("median", ""),
    # 'equiprobable' is the inverse of the empirical CDF, SQL's quantile_disc (pola-rs/polars#19139)
    "quantile_cont": ("quantile", 'interpolation="linear"'),
    "quantile_disc": ("quantile", 'interpolation="equiprobable"'),
}

#: aggregate -> the aggregation expression: ``{v}`` the argument column (IGNORE NULLS: its non-NULL values),
#: ``{q}`` the parameter (quantile fraction, separator), ``{n}`` nth_value's index from 0
AGGREGATIONS: dict[str, str] = {
    "sum": "{v}.sum()",
    "avg": "{v}.mean()",
    "min": "{v}.min()",
    "max": "{v}.max()",
    "var_pop": "{v}.var(ddof=0)",
    "var_samp": "{v}.var(ddof=1)",
    "stddev_pop": "{v}.std(ddof=0)",
    "stddev_samp": "{v}.std(ddof=1)",
    "median": "{v}.median()",
    "quantile_cont": '{v}.quantile({q}, interpolation="linear")',
    "quantile_disc": '{v}.quantile({q}, interpolation="equiprobable")',
    "count": "{v}.count()",
    "count_star": "pl.len()",
    "first_value": "{v}.first()",
    "last_value": "{v}.last()",
    "nth_value": "{v}.get({n}, null_on_oob=True)",
    "array_agg": "{v}.implode()",  # one list per frame (a guard over the bare column would null its items)
    "string_agg": "{v}.str.join({q})",
    "bool_and": "{v}.all()",
    "bool_or": "{v}.any()",
    "bit_and": "{v}.bitwise_and()",
    "bit_or": "{v}.bitwise_or()",
    "bit_xor": "{v}.bitwise_xor()",
}

#: how many non-NULL values Polars' own aggregation needs before it answers anything but NULL (the rest: 1);
#: where that is less than SQL's rule or ``min_count``, the ``expr`` spelling is guarded
_OWN_THRESHOLD: dict[str, int] = {
    "sum": 0,
    "count": 0,
    "count_star": 0,
    "string_agg": 0,
    "bool_and": 0,
    "bool_or": 0,
    "array_agg": 0,
    "var_samp": 2,
    "stddev_samp": 2,
}
_VALUE_FUNCTIONS = frozenset({"first_value", "last_value", "nth_value"})
_UNITS = {"int": "i", "date": "d", "timestamp": "s"}
_DTYPES = {"int": "pl.Int64", "double": "pl.Float64", "date": "pl.Date", "timestamp": 'pl.Datetime("us")'}


@dataclass(frozen=True)
class Plan:
    """How one query is spelled: ``spelling`` (see the module docstring) and its window."""

    spelling: Literal["rolling", "by", "expr"]
    window: RowsWindow | ValueWindow


def plan(table: Table, query: Query) -> Plan | str:
    """The spelling of ``query`` over ``table``, or why Polars cannot express it."""
    problem = common_problem(query) or _call_problem(table, query)
    if problem is not None:
        return problem
    frame = query.window.frame
    assert frame is not None  # common_problem refuses the default frame
    if query.call.weights is not None:
        return _weighted_plan(table, query, frame)
    rolling = query.call.aggregate in ROLLING and not query.call.ignore_nulls
    if frame.unit == "rows":
        rows = rows_window(frame)
        if isinstance(rows, str):
            return rows
        size = rows.trailing or rows.centred
        # Polars refuses min_samples > window_size (an error, by design): such a query takes the guarded `expr`
        if rolling and size and min_samples(query.call.aggregate, query.call.min_count) <= size:
            return Plan("rolling", rows)
        if rows.lo > rows.hi:
            return "an always-empty ROWS frame has no rolling period (Polars wants it positive)"
        return Plan("expr", rows)
    values = value_window(table, frame)
    if isinstance(values, str):
        return values
    problem = range_order_problem(table, query.window)
    if problem is not None:
        return problem
    if not frame.peers_follow and values.holds_current_value:
        return "Polars' windows are by value: a frame ending at the current row without its later peers"
    if values.hi <= values.lo:
        return "a RANGE frame of one value (or none) has no rolling period (Polars wants it positive)"
    if rolling and values.width:
        return Plan("by", values)
    return Plan("expr", values)


def _weighted_plan(table: Table, query: Query, frame: Frame) -> Plan | str:
    """``rolling_sum``/``rolling_mean`` with ``weights=``: count windows only, trailing or centred."""
    rows = rows_window(frame)
    if isinstance(rows, str):
        return rows
    size = rows.trailing or rows.centred
    if not size:
        return "Polars' weights apply to rolling(k) and rolling(k, center=True) windows"
    if any(x is None for x in table.column("x")):
        return "Polars panics on weights over NULL values ('weights not yet supported on array with null values')"
    if min_samples(query.call.aggregate, query.call.min_count) > size:
        return "Polars refuses min_samples larger than the window (an error, by design)"
    return Plan("rolling", rows)


def _call_problem(table: Table, query: Query) -> str | None:
    call = query.call
    if call.aggregate not in AGGREGATIONS:
        return f"Polars has no rolling {call.aggregate}"
    if call.ignore_nulls and call.aggregate not in _VALUE_FUNCTIONS:
        return "IGNORE NULLS applies to first_value/last_value/nth_value"
    if call.aggregate.startswith("bit_") and table.value_type != "int":
        return "bitwise aggregates take integers"
    if call.aggregate in ("quantile_cont", "quantile_disc") and not isinstance(call.param, (int, float)):
        return "a quantile needs its fraction"
    if call.aggregate == "nth_value" and not (isinstance(call.param, int) and call.param >= 1):
        return "nth_value needs n >= 1"
    if call.aggregate == "string_agg" and not isinstance(call.param, str):
        return "string_agg needs its separator"
    return None


# ----------------------------------------------------------------------------------------------------------------
# the program


def _duration(table: Table, amount: int) -> str:
    return f'"{amount}{_UNITS[table.order_type]}"'


def _closed(window: ValueWindow) -> str:
    closed = window.closed
    return '"none"' if closed == "neither" else f'"{closed}"'


def _aggregation(query: Query) -> str:
    """The ``expr`` spelling's aggregation, guarded where Polars' empty answer or ``min_count`` need it."""
    call = query.call
    column = f'pl.col("{call.column}")'
    values = f"{column}.drop_nulls()" if call.ignore_nulls else column
    n = call.param - 1 if isinstance(call.param, int) else 0
    expression = AGGREGATIONS[call.aggregate].format(v=values, q=repr(call.param), n=n)
    counted = "pl.len()" if call.column == "*" else f"{column}.count()"
    needed = min_samples(call.aggregate, call.min_count)
    conditions = [f"{counted} >= {needed}"] if needed > _OWN_THRESHOLD.get(call.aggregate, 1) else []
    if call.aggregate == "array_agg":  # SQL: NULL on an empty frame; Polars: []
        conditions.insert(0, "pl.len() > 0")
    if not conditions:
        return expression
    condition = " & ".join(f"({c})" for c in conditions) if len(conditions) > 1 else conditions[0]
    return f"pl.when({condition}).then({expression})"


def _expression(table: Table, query: Query, chosen: Plan) -> str:
    """The answer column's expression, ``.over("p")`` when partitioned."""
    call = query.call
    window = chosen.window
    over = '.over("p")' if query.window.partitioned else ""
    if chosen.spelling == "expr":
        if isinstance(window, RowsWindow):  # (pos+lo-1, pos+hi]: the rows pos+lo .. pos+hi
            index, offset, period, closed = '"pos"', f'"{window.lo - 1}i"', f'"{window.hi - window.lo + 1}i"', '"right"'
        else:
            index, closed = '"o"', _closed(window)
            offset, period = _duration(table, window.lo), _duration(table, window.hi - window.lo)
        rolling = f".rolling(index_column={index}, period={period}, offset={offset}, closed={closed})"
        return _aggregation(query) + rolling + over
    stem, extra = ROLLING[call.aggregate]
    keywords = [f"min_samples={min_samples(call.aggregate, call.min_count)}"]
    if extra:
        keywords.insert(0, extra)
    if call.aggregate.startswith("quantile"):
        keywords.insert(0, f"quantile={call.param!r}")
    if isinstance(window, RowsWindow):
        size = window.trailing or window.centred
        keywords.insert(0, f"window_size={size}")
        if call.weights is not None:  # the weights as doubles, the frame's first row first
            weights = ", ".join(repr(float(w)) for w in weight_values(call.weights, size or 0))
            keywords.insert(1, f"weights=[{weights}]")
        if window.trailing is None:
            keywords.append("center=True")
        function = f"rolling_{stem}"
    else:
        keywords[:0] = ['"o"', f"window_size={_duration(table, window.width or 0)}"]
        keywords.append(f"closed={_closed(window)}")
        function = f"rolling_{stem}_by"
    return f'pl.col("{call.column}").{function}({", ".join(keywords)}){over}'


def _block(table: Table, query: Query) -> str:
    chosen = plan(table, query)
    if isinstance(chosen, str):
        raise ValueError(f"polars cannot run {describe(query)}: {chosen}")
    columns, descending, nulls_last = order_columns(query.window)
    names = ", ".join(f'"{c}"' for c in columns)
    rows = f"df.sort({names}, descending={list(descending)}, nulls_last={nulls_last})"
    if chosen.spelling == "expr" and isinstance(chosen.window, RowsWindow):  # the row's place in its partition
        position = "pl.int_range(pl.len())" + ('.over("p")' if query.window.partitioned else "")
        rows += f".with_columns(pos={position})"
    return "\n".join(
        (
            f"# {describe(query)}",
            f"rows = {rows}",
            f'answers.append(table_order(rows.select("id", answer={_expression(table, query, chosen)})))',
        )
    )


_HELPERS = '''

def table_order(result):
    """The "answer" column of ``result`` in the table's row order, matched by id."""
    if result.height != df.height:
        raise RuntimeError(f"polars answered {result.height} rows for {df.height}")
    by_id = dict(zip(result["id"].to_list(), result["answer"].to_list()))
    return [by_id[i] for i in df["id"].to_list()]


answers = []'''


def _prelude(table: Table) -> str:
    schema = {
        "id": "pl.Int64",
        "p": "pl.Int64",
        "o": _DTYPES[table.order_type],
        "x": _DTYPES[table.value_type],
        "s": "pl.String",
        "b": "pl.Boolean",
    }
    columns = "\n".join(f'        "{name}": {list_source(table.column(name))},' for name in table.COLUMNS)
    schema_source = ", ".join(f'"{k}": {v}' for k, v in schema.items())
    frame = f"df = pl.DataFrame(\n    {{\n{columns}\n    }},\n    schema={{{schema_source}}},\n)"
    return "import datetime\n\nimport polars as pl\n\n" + frame + "\n" + _HELPERS


def program(table: Table, queries: Sequence[Query]) -> Program:
    """The case as a Polars program (see :class:`~.frames_api.Program`)."""
    return Program(_prelude(table), tuple(_block(table, q) for q in queries))


# ----------------------------------------------------------------------------------------------------------------
# the engine


def _failure(error: BaseException) -> Failure:
    """A panic is a crash; an error Polars raised on purpose refuses the query; anything else is a crash."""
    if type(error).__name__ == "PanicException" or not isinstance(error, Exception):
        return Failure("crash", error_text(error))
    polars_error = getattr(importlib.import_module("polars.exceptions"), "PolarsError", ())
    if isinstance(error, polars_error) or (
        isinstance(error, (ValueError, TypeError, NotImplementedError)) and raised_inside(error, "polars")
    ):
        return Failure("refused", error_text(error))
    return Failure("crash", error_text(error))


class PolarsEngine(ProgramEngine):
    """Polars' rolling windows as an :class:`~.engine.Engine` (see the module docstring)."""

    name = "polars"
    package = "polars"
    alias = "pl"
    namespace = "polars_case"

    def plan(self, table: Table, query: Query) -> Plan | str:
        return plan(table, query)

    def program(self, table: Table, queries: Sequence[Query]) -> Program:
        return program(table, queries)

    def failure(self, error: BaseException) -> Failure:
        return _failure(error)
