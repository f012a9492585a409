"""What the SQL engines share (issue 24): a case as SQL text, run in one SELECT, read back in table order.

:class:`SqlEngine` is the :class:`~.engine.Engine` of a SQL dialect. A dialect (:mod:`.sqlite`,
:mod:`.duckdb_engine`, :mod:`.datafusion_engine`, :mod:`.spark_engine`) sets class attributes -- its type names,
its spelling of each aggregate, what it lacks and why -- and implements five small methods (connect and close,
execute a statement, fetch a SELECT's rows, classify an error, the version); rendering, capability checks,
running and the repro are here.

**The SQL text.** The table ``t(id, p, o, x, s, b)`` is created with the columns typed for the case and loaded
with one ``INSERT ... VALUES`` of typed literals (doubles always carry an exponent, so no dialect reads them as
DECIMAL; ``±inf``, dates and timestamps are spelled as each dialect wants; control characters in text go through
the dialect's ``chr`` so that no literal spans lines). Every query is one column of one SELECT::

    SELECT id, <call> OVER (PARTITION BY p ORDER BY o [DESC] NULLS FIRST|LAST[, id] <frame>) AS a0, ...
    FROM t ORDER BY id

``ROWS`` frames order by ``o, id`` (``id`` ascending whatever the direction of ``o``: membership is then
determined); ``RANGE``/``GROUPS`` and the default frame by ``o`` alone. A ``RANGE`` offset over a ``date`` key is
``INTERVAL 'n' DAY``, over a ``timestamp`` key ``INTERVAL 'n' SECOND``. An aggregate gets no ``ORDER BY`` of its
own: inside a window, the frame's order is the aggregate's order, which is what ``string_agg``/``array_agg`` are
checked against (peers' order within a ``RANGE``/``GROUPS`` frame is left open by SQL).

**Capabilities.** :meth:`SqlEngine.unsupported` declares, with a reason: what is not SQL at all (a dataframe
frame -- an open bound or peers not following --, ``min_count``, bound combinations the standard's syntax rules
forbid such as ``CURRENT ROW AND 1 PRECEDING``, a negative or fractional row offset, ``DISTINCT`` or ``IGNORE
NULLS`` where they mean nothing); then what the dialect documents it lacks (its ``lacks_*`` tables). Everything
else is supported, and an engine error on it is a finding.

**Running.** :meth:`SqlEngine.run` loads the table once and runs all queries in one SELECT; if that fails, it
runs one SELECT per query to pin the error on its query. An error the engine reports as a user error (parse,
bind, plan, and also execution errors such as an overflow; the message names the exception class) is a
``refused`` query; a panic, an internal error, any other exception, or rows that do not match the table's ids
one-to-one are a ``crash``. Answers are aligned to the table's row order by ``id``.

**Repro.** ``case.sql`` holds the statements, one per ``;`` at the end of a line; the code connects with the
engine's own Python package, runs them, and aligns the rows with the same :func:`align_rows` (its source is
copied into the script, which must not import swagkit).
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal

from .engine import Answers, Failure, Repro
from .frames_api import error_text
from .model import AGGREGATES, Bound, Call, Case, Frame, Query, Table

__all__ = [
    "dbapi_prelude",
    "DISTINCT_AGGREGATES",
    "STANDARD_FUNCTIONS",
    "TABLE",
    "VALUE_FUNCTIONS",
    "SqlEngine",
    "align_rows",
    "not_sql",
    "reversed_frame",
]

#: the name of the case's table in every dialect
TABLE = "t"
#: the separator of statements in a rendered case: no literal ever holds a newline (see :meth:`SqlEngine.text`)
STATEMENT_END = ";\n"

LogicalType = Literal["int", "double", "date", "timestamp", "text", "bool"]
FailureKind = Literal["refused", "crash"]

#: the SQL standard's window functions that take IGNORE NULLS (and never DISTINCT)
VALUE_FUNCTIONS = frozenset({"first_value", "last_value", "nth_value"})
#: the aggregates ``DISTINCT`` applies to (``count(DISTINCT *)`` and ``first_value(DISTINCT x)`` are not SQL)
DISTINCT_AGGREGATES = frozenset(AGGREGATES) - VALUE_FUNCTIONS - {"count_star"}
#: aggregates over integer values only
BIT_AGGREGATES = frozenset({"bit_and", "bit_or", "bit_xor"})

#: aggregate -> its standard (or most common) spelling: ``{arg}`` is the argument column, ``DISTINCT``-prefixed
#: when asked; ``{param}`` the parameter as a literal (nth_value's n, the separator, the fraction)
STANDARD_FUNCTIONS: Mapping[str, str] = {
    "sum": "sum({arg})",
    "count": "count({arg})",
    "count_star": "count(*)",
    "avg": "avg({arg})",
    "min": "min({arg})",
    "max": "max({arg})",
    "var_pop": "var_pop({arg})",
    "var_samp": "var_samp({arg})",
    "stddev_pop": "stddev_pop({arg})",
    "stddev_samp": "stddev_samp({arg})",
    "first_value": "first_value({arg})",
    "last_value": "last_value({arg})",
    "nth_value": "nth_value({arg}, {param})",
    "string_agg": "string_agg({arg}, {param})",
    "array_agg": "array_agg({arg})",
    "bit_and": "bit_and({arg})",
    "bit_or": "bit_or({arg})",
    "bit_xor": "bit_xor({arg})",
    "bool_and": "bool_and({arg})",
    "bool_or": "bool_or({arg})",
    "median": "median({arg})",
    "quantile_cont": "quantile_cont({arg}, {param})",
    "quantile_disc": "quantile_disc({arg}, {param})",
}

#: standard type names; a dialect overrides what it spells otherwise
STANDARD_TYPES: Mapping[LogicalType, str] = {
    "int": "BIGINT",
    "double": "DOUBLE",
    "date": "DATE",
    "timestamp": "TIMESTAMP",
    "text": "VARCHAR",
    "bool": "BOOLEAN",
}

_FATAL = (KeyboardInterrupt, SystemExit)
_CONTROL = re.compile(r"([\x00-\x1f\x7f])")


def column_types(table: Table) -> tuple[tuple[str, LogicalType], ...]:
    """The case's schema: each column of :attr:`Table.COLUMNS` with its logical type."""
    return (("id", "int"), ("p", "int"), ("o", table.order_type), ("x", table.value_type), ("s", "text"), ("b", "bool"))


def align_rows(rows: list[tuple[object, ...]], ids: list[object], count: int) -> list[list[object]]:
    """The answers of ``count`` queries in the row order ``ids``, from ``rows`` of ``(id, a0, a1, ...)`` in any
    order; ``ValueError`` unless the rows' ids are exactly ``ids``, once each. O(rows + ids).

    Its source is copied into every SQL repro, so it uses builtins only."""
    by_id = {}
    for row in rows:
        if row[0] in by_id:
            raise ValueError(f"id {row[0]!r} came back twice")
        by_id[row[0]] = row
    if len(by_id) != len(ids) or any(i not in by_id for i in ids):
        raise ValueError(f"{len(rows)} rows came back for a table of {len(ids)} (ids do not match)")
    return [[by_id[i][1 + k] for i in ids] for k in range(count)]


def _offset_ok(bound: Bound, integral: bool) -> bool:
    offset = bound.offset
    if isinstance(offset, bool) or not isinstance(offset, (int, float)):
        return False
    if integral and not isinstance(offset, int):
        return False
    return math.isfinite(offset) and offset >= 0


def _bounds_not_sql(frame: Frame, order_type: str) -> str | None:
    """Why the frame's bounds break the standard's syntax rules (ISO 9075-2, <window frame clause>), or None."""
    start, end = frame.start.kind, frame.end.kind
    if start == "unbounded_following" or end == "unbounded_preceding":
        return f"not SQL: a frame cannot start at UNBOUNDED FOLLOWING or end at UNBOUNDED PRECEDING ({frame.sql})"
    if (start == "current_row" and end == "preceding") or (
        start == "following" and end in ("preceding", "current_row")
    ):
        return f"not SQL: the standard's syntax rules forbid this pair of bounds ({frame.sql})"
    integral = frame.unit != "range" or order_type in ("date", "timestamp")
    for bound in (frame.start, frame.end):
        if bound.kind in ("preceding", "following") and not _offset_ok(bound, integral):
            what = "a non-negative integer" if integral else "a non-negative finite number"
            return (
                f"not SQL: a {frame.unit.upper()} offset over a {order_type} key must be {what}, not {bound.offset!r}"
            )
    return None


def _call_not_sql(table: Table, call: Call) -> str | None:
    """Why the call is not SQL (or not meaningful as SQL), or None."""
    name, param = call.aggregate, call.param
    if call.distinct and name not in DISTINCT_AGGREGATES:
        return f"not SQL: DISTINCT does not apply to {name}"
    if call.ignore_nulls and name not in VALUE_FUNCTIONS:
        return f"not SQL: IGNORE NULLS applies to first_value/last_value/nth_value only, not {name}"
    if name in BIT_AGGREGATES and table.value_type != "int":
        return f"not SQL: {name} needs integer values, not {table.value_type}"
    if name == "nth_value" and (isinstance(param, bool) or not isinstance(param, int) or param < 1):
        return f"not SQL: nth_value needs n >= 1, not {param!r}"
    if name == "string_agg" and not isinstance(param, str):
        return f"string_agg needs its separator as Call.param, not {param!r}"
    if name.startswith("quantile") and (
        isinstance(param, bool) or not isinstance(param, (int, float)) or not 0 <= param <= 1
    ):
        return f"not SQL: {name} needs a fraction in [0, 1], not {param!r}"
    return None


def not_sql(table: Table, query: Query) -> str | None:
    """Why no SQL dialect can express ``query`` (a dataframe knob, a frame or call the standard forbids), or
    None."""
    frame = query.window.frame
    if query.call.min_count:
        return "not SQL: min_count is pandas' min_periods / Polars' min_samples"
    if query.call.weights is not None:
        return "not SQL: weights are pandas' win_type / Polars' weights="
    if frame is not None:
        if not frame.is_sql:
            return "not SQL: an open bound or a frame whose later peers do not follow is a dataframe frame"
        reason = _bounds_not_sql(frame, table.order_type)
        if reason:
            return reason
    return _call_not_sql(table, query.call)


def _signed(bound: Bound) -> float | None:
    """A bound's position relative to the current row (PRECEDING negative), for offset bounds only."""
    if bound.kind == "preceding":
        return -float(bound.offset or 0)
    if bound.kind == "following":
        return float(bound.offset or 0)
    return None


def reversed_frame(frame: Frame | None) -> bool:
    """Whether both bounds are offsets and the start lies after the end (``3 PRECEDING AND 5 PRECEDING``): a
    valid standard frame that is always empty."""
    if frame is None:
        return False
    start, end = _signed(frame.start), _signed(frame.end)
    return start is not None and end is not None and start > end


def _range_offset(frame: Frame | None) -> bool:
    return (
        frame is not None
        and frame.unit == "range"
        and any(b.kind in ("preceding", "following") for b in (frame.start, frame.end))
    )


class SqlEngine:
    """The :class:`~.engine.Engine` of one SQL dialect (see the module docstring). Subclasses set the class
    attributes below and implement :meth:`version`, :meth:`failure_kind`, :meth:`_execute`, :meth:`_fetch` and
    :meth:`close`, and the :attr:`repro_prelude`."""

    name: ClassVar[str]
    #: logical type -> the dialect's column type
    types: ClassVar[Mapping[LogicalType, str]] = STANDARD_TYPES
    #: aggregate -> the dialect's spelling (see :data:`STANDARD_FUNCTIONS`); an aggregate left out is unsupported
    functions: Mapping[str, str] = STANDARD_FUNCTIONS
    #: IGNORE NULLS after the call (``first_value(x) IGNORE NULLS OVER``, the standard) or inside its parentheses
    ignore_nulls_inside: ClassVar[bool] = False
    #: the function that makes a character from its code point (control characters in text literals)
    chr_function: ClassVar[str] = "chr"
    #: what the dialect lacks, each with the reason (None: it has it)
    lacks_functions: ClassVar[Mapping[str, str]] = {}
    lacks_units: ClassVar[Mapping[str, str]] = {}
    lacks_order_types: ClassVar[Mapping[str, str]] = {}
    lacks_range_offset: ClassVar[Mapping[str, str]] = {}
    lacks_exclude: ClassVar[str | None] = None
    lacks_distinct: ClassVar[str | None] = None
    lacks_ignore_nulls: ClassVar[str | None] = None
    lacks_nulls_order: ClassVar[str | None] = None
    lacks_reversed_frames: ClassVar[str | None] = None
    #: statements run before loading a table (not part of the rendered case: a repro starts from nothing)
    reset_statements: ClassVar[tuple[str, ...]] = (f"DROP TABLE IF EXISTS {TABLE}",)
    #: repro code that defines ``execute(sql)``, ``fetch(sql) -> list of row tuples`` and ``version`` (a class
    #: attribute; an adapter whose repros depend on its options sets its own)
    repro_prelude: str

    # ------------------------------------------------------------------------------------------------------------
    # the engine's own part

    def version(self) -> str:
        raise NotImplementedError

    def failure_kind(self, error: BaseException) -> FailureKind:
        """``refused`` for an error the engine reports as the query's (parse, bind, plan, execution), ``crash``
        for a panic, an internal error or anything else."""
        raise NotImplementedError

    def _execute(self, statement: str) -> None:
        raise NotImplementedError

    def _fetch(self, select: str) -> list[tuple[Any, ...]]:
        """The rows of ``select`` as tuples of plain Python values."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------------------------
    # capabilities

    def unsupported(self, table: Table, query: Query) -> str | None:
        """Why this dialect cannot express ``query``: not SQL at all (:func:`not_sql`), or a gap the dialect
        documents (its ``lacks_*`` tables); None when it can."""
        return not_sql(table, query) or self._gap(table, query)

    def _gap(self, table: Table, query: Query) -> str | None:
        """The first documented gap of the dialect that ``query`` runs into, or None."""
        call, frame = query.call, query.window.frame
        if call.aggregate not in self.functions:
            return self.lacks_functions.get(call.aggregate, f"{self.name} has no {call.aggregate} usable in a window")
        checks: list[tuple[bool, str | None]] = [
            (True, self.lacks_order_types.get(table.order_type)),
            (True, self.lacks_nulls_order),  # NULLS FIRST|LAST is always spelled out
            (call.distinct, self.lacks_distinct),
            (call.ignore_nulls, self.lacks_ignore_nulls),
            (frame is not None, None if frame is None else self.lacks_units.get(frame.unit)),
            (frame is not None and frame.exclude != "no_others", self.lacks_exclude),
            (_range_offset(frame), self.lacks_range_offset.get(table.order_type)),
            (reversed_frame(frame), self.lacks_reversed_frames),
        ]
        return next((reason for applies, reason in checks if applies and reason), None)

    # ------------------------------------------------------------------------------------------------------------
    # literals

    def literal(self, value: Any, kind: LogicalType) -> str:
        """``value`` (a plain Python value of the model) as a literal of the column type ``kind``."""
        if value is None:
            return "NULL"
        if kind == "bool":
            return "TRUE" if value else "FALSE"
        if kind == "int":
            return str(int(value))
        if kind == "double":
            return self.double(float(value))
        if kind == "text":
            return self.text(str(value))
        if kind == "date":
            return self.date(value)
        return self.timestamp(value)

    def double(self, value: float) -> str:
        """A DOUBLE literal: ``repr`` (shortest round trip) with an exponent, ``±inf`` as :meth:`infinity`."""
        if math.isinf(value):
            return self.infinity(value < 0)
        text = repr(value)
        return text if "e" in text else text + "e0"

    def infinity(self, negative: bool) -> str:
        return f"CAST('{'-' if negative else ''}Infinity' AS DOUBLE)"

    def text(self, value: str) -> str:
        """A text literal; control characters (a newline, say) go through :attr:`chr_function`, so that no
        literal spans lines and ``;\\n`` always ends a statement."""
        parts = _CONTROL.split(value)  # plain, control, plain, ...: odd indices hold one control character
        if len(parts) == 1:
            return self.quote(value)
        pieces = [f"{self.chr_function}({ord(p)})" if i % 2 else self.quote(p) for i, p in enumerate(parts)]
        return "(" + " || ".join(piece for piece in pieces if piece != "''") + ")"

    def quote(self, plain: str) -> str:
        return "'" + plain.replace("'", "''") + "'"

    def date(self, value: dt.date) -> str:
        return f"DATE '{value.isoformat()}'"

    def timestamp(self, value: dt.datetime) -> str:
        return f"TIMESTAMP '{value.isoformat(sep=' ', timespec='microseconds')}'"

    def interval(self, offset: int | float, order_type: str) -> str:
        """A RANGE offset over ``order_type``: days for dates, seconds for timestamps, a number otherwise."""
        if order_type == "date":
            return f"INTERVAL '{offset}' DAY"
        if order_type == "timestamp":
            return f"INTERVAL '{offset}' SECOND"
        if order_type == "double":
            return self.double(float(offset))
        return str(offset)

    # ------------------------------------------------------------------------------------------------------------
    # rendering

    def load_statements(self, table: Table) -> list[str]:
        """CREATE TABLE with the case's types, then one INSERT of every row (none for an empty table)."""
        schema = column_types(table)
        columns = ", ".join(f"{name} {self.types[kind]}" for name, kind in schema)
        statements = [f"CREATE TABLE {TABLE} ({columns})"]
        if table.rows:
            values = ",\n  ".join(self.row_values(table, row) for row in table.rows)
            statements.append(f"INSERT INTO {TABLE} VALUES\n  {values}")
        return statements

    def row_values(self, table: Table, row: Sequence[Any]) -> str:
        return "(" + ", ".join(self.literal(v, kind) for v, (_, kind) in zip(row, column_types(table))) + ")"

    def bound(self, bound: Bound, unit: str, order_type: str) -> str:
        if bound.kind in ("preceding", "following"):
            assert bound.offset is not None  # not_sql refuses offset bounds without an offset
            amount = self.interval(bound.offset, order_type) if unit == "range" else str(bound.offset)
            return f"{amount} {bound.kind.upper()}"
        return bound.sql

    def frame_clause(self, frame: Frame, order_type: str) -> str:
        text = (
            f"{frame.unit.upper()} BETWEEN {self.bound(frame.start, frame.unit, order_type)}"
            f" AND {self.bound(frame.end, frame.unit, order_type)}"
        )
        if frame.exclude != "no_others":
            text += " EXCLUDE " + {"current_row": "CURRENT ROW", "group": "GROUP", "ties": "TIES"}[frame.exclude]
        return text

    def over(self, table: Table, query: Query) -> str:
        """The window: ``PARTITION BY p ORDER BY o [DESC] NULLS FIRST|LAST[, id] [frame]``."""
        window = query.window
        parts = ["PARTITION BY p"] if window.partitioned else []
        order = "o" + (" DESC" if window.descending else "") + (" NULLS FIRST" if window.nulls_first else " NULLS LAST")
        parts.append("ORDER BY " + order + (", id" if window.order_by_id else ""))
        if window.frame is not None:
            parts.append(self.frame_clause(window.frame, table.order_type))
        return "(" + " ".join(parts) + ")"

    def call(self, call: Call) -> str:
        """The aggregate call before ``OVER`` (DISTINCT and IGNORE NULLS included)."""
        arg = ("DISTINCT " if call.distinct else "") + call.column
        param = "" if call.param is None else self._param(call)
        text = self.functions[call.aggregate].format(arg=arg, param=param)
        if call.ignore_nulls:
            text = (text[:-1] + " IGNORE NULLS)") if self.ignore_nulls_inside else (text + " IGNORE NULLS")
        return text

    def _param(self, call: Call) -> str:
        if isinstance(call.param, str):
            return self.text(call.param)
        if isinstance(call.param, float):
            return repr(call.param)
        return str(call.param)

    def select(self, table: Table, queries: Sequence[Query]) -> str:
        """``SELECT id, <q0> AS a0, ... FROM t ORDER BY id``."""
        columns = ["id"] + [f"{self.call(q.call)} OVER {self.over(table, q)} AS a{i}" for i, q in enumerate(queries)]
        return "SELECT " + ",\n  ".join(columns) + f"\nFROM {TABLE} ORDER BY id"

    def statements(self, table: Table, queries: Sequence[Query]) -> list[str]:
        return [*self.load_statements(table), self.select(table, queries)]

    def render(self, table: Table, queries: Sequence[Query]) -> str:
        """The case as one SQL script: the table's creation and load, then the SELECT; each statement ends with
        ``;`` at the end of a line."""
        return "".join(statement + STATEMENT_END for statement in self.statements(table, queries))

    # ------------------------------------------------------------------------------------------------------------
    # running

    def run(self, table: Table, queries: Sequence[Query]) -> Answers:
        """Every query's answers in table order (see the module docstring: one SELECT, then one per query if
        that one fails). O(engine time of the SELECTs + rows x queries)."""
        queries = list(queries)
        try:
            for statement in [*self.reset_statements, *self.load_statements(table)]:
                self._execute(statement)
        except _FATAL:
            raise
        except BaseException as error:
            failure = Failure(self.failure_kind(error), "loading the table: " + error_text(error))
            return [failure for _ in queries]
        ids: list[object] = table.column("id")
        if len(queries) > 1:
            try:
                return list(align_rows(self._fetch(self.select(table, queries)), ids, len(queries)))
            except _FATAL:
                raise
            except BaseException:
                pass  # some query failed: one SELECT each says which
        return [self._one(table, ids, query) for query in queries]

    def _one(self, table: Table, ids: list[object], query: Query) -> list[Any] | Failure:
        try:
            rows = self._fetch(self.select(table, [query]))
        except _FATAL:
            raise
        except BaseException as error:
            return Failure(self.failure_kind(error), error_text(error))
        try:
            return list(align_rows(rows, ids, 1)[0])
        except ValueError as error:
            return Failure("crash", f"wrong rows: {error}")

    def repro(self, case: Case) -> Repro:
        """``case.sql`` (:meth:`render`) and a standalone script that runs it with the engine's package and sets
        ``answers`` (table order) and ``version``."""
        ids = case.table.column("id")
        code = "\n".join(
            [
                self.repro_prelude.strip(),
                "",
                "",
                inspect.getsource(align_rows).strip(),
                "",
                "",
                'with open("case.sql", encoding="utf-8") as sql_file:',
                f"    statements = [s for s in sql_file.read().split({STATEMENT_END!r}) if s.strip()]",
                "for statement in statements[:-1]:",
                "    execute(statement)",
                f"answers = align_rows(fetch(statements[-1]), {ids!r}, {len(case.queries)})",
                "",
            ]
        )
        return Repro(files={"case.sql": self.render(case.table, case.queries)}, code=code)


def dbapi_prelude(module: str, connect: str, version: str) -> str:
    """The repro prelude of an engine reached through a DB-API connection: ``import module``,
    ``connection = connect``, ``version = version`` and the ``execute``/``fetch`` a repro calls."""
    return f"""
import {module}

connection = {connect}
version = {version}


def execute(sql):
    connection.execute(sql)


def fetch(sql):
    return connection.execute(sql).fetchall()
"""
