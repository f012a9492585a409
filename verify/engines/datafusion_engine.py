"""Apache DataFusion as a window engine (issue 24), through the ``datafusion`` Python package (a SessionContext).

The table is created and loaded by SQL (``CREATE TABLE`` with the case's types, ``INSERT ... VALUES``), the same
statements the repro runs, so a repro is the run itself; the result comes back as Arrow and is read with
``to_pylist`` (lists as ``list``, DECIMAL as ``Decimal``).

What DataFusion has, by experiment on 55 and its documentation: ``ROWS``/``RANGE``/``GROUPS`` frames with offsets
(``RANGE`` over dates and timestamps with ``INTERVAL``), ``NULLS FIRST``/``LAST``, the standard's ``IGNORE
NULLS`` after ``first_value``/``last_value``/``nth_value``, ``DISTINCT`` in window aggregates, and every
aggregate of the model but ``quantile_disc`` (no exact discrete percentile); ``quantile_cont`` is
``percentile_cont(x, q)`` (``WITHIN GROUP`` cannot be combined with ``OVER``). Its documented window grammar has
no ``EXCLUDE``. Refusals that are findings, not gaps: a reversed frame (``3 PRECEDING AND 5 PRECEDING``, valid
and empty) is rejected at planning, and aggregates without ``retract_batch`` (``string_agg``, ``bit_and``,
``bool_and`` ...) are "not implemented" as soon as the frame's start moves.

Errors: DataFusion raises plain ``ValueError``/``Exception`` for the query's errors (parser, planning,
execution); a message naming an internal error, a Rust panic (pyo3's ``PanicException``, a ``BaseException``) or
any other exception is a crash.
"""

from __future__ import annotations

import importlib
from typing import Any

from .sql import STANDARD_FUNCTIONS, FailureKind, SqlEngine

__all__ = ["DatafusionEngine"]

_FUNCTIONS = {name: spelling for name, spelling in STANDARD_FUNCTIONS.items() if name != "quantile_disc"} | {
    "quantile_cont": "percentile_cont({arg}, {param})",
}


def _datafusion() -> Any:
    return importlib.import_module("datafusion")


def _rows(table: Any) -> list[tuple[Any, ...]]:
    """An Arrow table's rows as tuples of Python values. O(cells)."""
    columns = [column.to_pylist() for column in table.columns]
    return list(zip(*columns)) if columns else []


class DatafusionEngine(SqlEngine):
    """DataFusion (see the module docstring); one SessionContext per adapter, made on first use."""

    name = "datafusion"
    functions = _FUNCTIONS
    lacks_functions = {"quantile_disc": "DataFusion has no exact discrete percentile (quantile_disc)"}
    lacks_exclude = "DataFusion's window frame grammar has no EXCLUDE"
    repro_prelude = """
import datafusion

context = datafusion.SessionContext()
version = datafusion.__version__


def execute(sql):
    context.sql(sql).collect()


def fetch(sql):
    table = context.sql(sql).to_arrow_table()
    return list(zip(*[column.to_pylist() for column in table.columns]))
"""

    def __init__(self) -> None:
        self._datafusion = _datafusion()
        self._context: Any = None

    def version(self) -> str:
        return str(self._datafusion.__version__)

    def failure_kind(self, error: BaseException) -> FailureKind:
        if type(error) in (ValueError, Exception):
            text = str(error)
            return "crash" if "Internal error" in text or "panicked" in text else "refused"
        return "crash"

    def _connect(self) -> Any:
        if self._context is None:
            self._context = self._datafusion.SessionContext()
        return self._context

    def _execute(self, statement: str) -> None:
        self._connect().sql(statement).collect()

    def _fetch(self, select: str) -> list[tuple[Any, ...]]:
        return _rows(self._connect().sql(select).to_arrow_table())

    def close(self) -> None:
        self._context = None
