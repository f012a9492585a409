"""DuckDB as a window engine (issue 24), through the ``duckdb`` Python package and an in-memory database.

DuckDB has every frame the model spells (``ROWS``/``RANGE``/``GROUPS``, ``EXCLUDE``, ``RANGE`` offsets over
numbers, dates -- ``INTERVAL 'n' DAY`` -- and timestamps -- ``INTERVAL 'n' SECOND``), ``DISTINCT`` inside window
aggregates, and every aggregate of the model under its standard name (``array_agg`` keeps NULLs;
``quantile_cont``/``quantile_disc`` take the fraction as their second argument). Its one dialect quirk: ``IGNORE
NULLS`` goes inside the parentheses, ``first_value(x IGNORE NULLS)``, as DuckDB documents it (the standard's
``first_value(x) IGNORE NULLS OVER`` is a parser error).

Values come back as DuckDB's Python client makes them: ``sum`` of BIGINT is HUGEINT (a Python ``int``, no
overflow), DECIMAL a ``Decimal``, lists ``list``. DuckDB's internal (``InternalError``) and fatal errors are
crashes; its other errors (parser, binder, conversion, out of range ...) are the query's.
"""

from __future__ import annotations

import importlib
from typing import Any

from .sql import FailureKind, SqlEngine, dbapi_prelude

__all__ = ["DuckdbEngine"]


def _duckdb() -> Any:
    return importlib.import_module("duckdb")


class DuckdbEngine(SqlEngine):
    """DuckDB (see the module docstring); one in-memory connection per adapter, opened on first use."""

    name = "duckdb"
    ignore_nulls_inside = True
    repro_prelude = dbapi_prelude("duckdb", 'duckdb.connect(":memory:")', "duckdb.__version__")

    def __init__(self) -> None:
        self._duckdb = _duckdb()
        self._connection: Any = None

    def version(self) -> str:
        return str(self._duckdb.__version__)

    def failure_kind(self, error: BaseException) -> FailureKind:
        duckdb = self._duckdb
        if isinstance(error, (duckdb.InternalError, duckdb.FatalException)):
            return "crash"
        return "refused" if isinstance(error, duckdb.Error) else "crash"

    def _connect(self) -> Any:
        if self._connection is None:
            self._connection = self._duckdb.connect(":memory:")
        return self._connection

    def _execute(self, statement: str) -> None:
        self._connect().execute(statement)

    def _fetch(self, select: str) -> list[tuple[Any, ...]]:
        return list(self._connect().execute(select).fetchall())

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
