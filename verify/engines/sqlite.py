"""SQLite as a window engine (issue 24), through Python's own ``sqlite3`` module and an in-memory database.

What SQLite has, by version (https://sqlite.org/windowfunctions.html): window functions since 3.25; ``GROUPS``
frames, ``EXCLUDE`` and ``RANGE`` offsets since 3.28; ``NULLS FIRST``/``LAST`` since 3.30. The adapter declares
what the linked library lacks. Never: ``IGNORE NULLS``, ``DISTINCT`` in a window function ("DISTINCT is not
supported for window functions"), variance and standard deviation, bit and bool aggregates, median and
quantiles (none is built into the library Python links), and arrays (``array_agg``: SQLite has no array type).
``string_agg`` is ``group_concat(s, sep)``, checked against the frame's order like everywhere else.

**Dates and timestamps** are ISO-8601 text, as SQLite users store them (SQLite has no date type): the text sorts
like the instant, so ``ORDER BY`` and ``ROWS``/``GROUPS``/offset-free ``RANGE`` frames mean what they mean on a
date; a ``RANGE`` offset needs a numeric key (SQLite silently compares text with a number instead), so it is
declared unsupported over dates and timestamps. Numbers would make offsets work, but they would not be dates.

Values: SQLite turns a NaN result (``inf + -inf``) into NULL, as it documents; ``sum`` of integers raises
"integer overflow" (a ``refused`` query, the message says why).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any, ClassVar

from .model import AGGREGATES
from .sql import STANDARD_FUNCTIONS, FailureKind, LogicalType, SqlEngine, dbapi_prelude

__all__ = ["SqliteEngine"]

_NOT_BUILT_IN = "SQLite has no built-in {}"
_FUNCTIONS = {name: STANDARD_FUNCTIONS[name] for name in ("sum", "count", "count_star", "avg", "min", "max")} | {
    "first_value": STANDARD_FUNCTIONS["first_value"],
    "last_value": STANDARD_FUNCTIONS["last_value"],
    "nth_value": STANDARD_FUNCTIONS["nth_value"],
    "string_agg": "group_concat({arg}, {param})",
}


def _since(version: tuple[int, int], what: str) -> str | None:
    """Why the linked SQLite lacks a feature added in ``version``, or None."""
    if sqlite3.sqlite_version_info[:2] >= version:
        return None
    return f"SQLite {sqlite3.sqlite_version} has no {what} (added in {version[0]}.{version[1]})"


def _known(reasons: dict[str, str | None]) -> dict[str, str]:
    return {key: reason for key, reason in reasons.items() if reason}


class SqliteEngine(SqlEngine):
    """SQLite through ``sqlite3`` (see the module docstring); one in-memory database per adapter."""

    nan_is_null = True  # SQLite stores a NaN as NULL (engine.py)

    name = "sqlite"
    types: ClassVar[dict[LogicalType, str]] = {
        "int": "INTEGER",
        "double": "REAL",
        "date": "TEXT",
        "timestamp": "TEXT",
        "text": "TEXT",
        "bool": "BOOLEAN",
    }
    functions = _FUNCTIONS
    chr_function = "char"
    lacks_functions: ClassVar[dict[str, str]] = {
        name: _NOT_BUILT_IN.format(name) for name in AGGREGATES if name not in _FUNCTIONS
    } | {"array_agg": "SQLite has no array type (array_agg)"}
    lacks_units: ClassVar[dict[str, str]] = _known({"groups": _since((3, 28), "GROUPS frames")})
    lacks_range_offset: ClassVar[dict[str, str]] = _known(
        {
            "int": _since((3, 28), "RANGE offsets"),
            "double": _since((3, 28), "RANGE offsets"),
            "date": "SQLite stores dates as ISO-8601 text; a RANGE offset needs a numeric key",
            "timestamp": "SQLite stores timestamps as ISO-8601 text; a RANGE offset needs a numeric key",
        }
    )
    lacks_exclude = _since((3, 28), "EXCLUDE")
    lacks_distinct = "SQLite: DISTINCT is not supported for window functions"
    lacks_ignore_nulls = "SQLite has no IGNORE NULLS"
    lacks_nulls_order = _since((3, 30), "NULLS FIRST/LAST")
    repro_prelude = dbapi_prelude("sqlite3", 'sqlite3.connect(":memory:")', "sqlite3.sqlite_version")

    def __init__(self) -> None:
        if sqlite3.sqlite_version_info < (3, 25):
            raise RuntimeError(f"SQLite {sqlite3.sqlite_version} has no window functions (3.25 or newer needed)")
        self._connection: sqlite3.Connection | None = None

    def version(self) -> str:
        return sqlite3.sqlite_version

    def failure_kind(self, error: BaseException) -> FailureKind:
        """sqlite3's errors are the statement's (syntax, unknown function, overflow), except ``InternalError``."""
        if isinstance(error, sqlite3.Error) and not isinstance(error, sqlite3.InternalError):
            return "refused"
        return "crash"

    def date(self, value: dt.date) -> str:
        return self.quote(value.isoformat())

    def timestamp(self, value: dt.datetime) -> str:
        # always six fractional digits: the texts then sort like the instants
        return self.quote(value.isoformat(sep=" ", timespec="microseconds"))

    def infinity(self, negative: bool) -> str:
        # SQLite has no 'Infinity' text conversion; an overflowing literal is its documented spelling of inf
        return "-9e999" if negative else "9e999"

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = sqlite3.connect(":memory:")
        return self._connection

    def _execute(self, statement: str) -> None:
        self._connect().execute(statement)

    def _fetch(self, select: str) -> list[tuple[Any, ...]]:
        return list(self._connect().execute(select).fetchall())

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
