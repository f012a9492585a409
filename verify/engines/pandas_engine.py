"""pandas as a window engine (issue 24): a case becomes a pandas program, the program runs, its answers are read.

The rows are sorted by ``o, id`` (DESC and NULLS FIRST/LAST as the window says) and each query is one rolling
aggregation, over the rows (``df["x"].rolling(...)``) or, partitioned, ``df.groupby("p", dropna=False)`` (a NULL
``p`` is a group of its own) followed by ``.rolling(...)`` -- :func:`plan` says which window:

* a *count window* for a ``ROWS`` frame (:class:`~.frames_api.RowsWindow`): ``rolling(k)`` (the ``k`` rows ending
  at the current one), ``rolling(k, closed="left")`` (the ``k`` rows before it), ``rolling(k, center=True)`` or
  ``rolling(FixedForwardWindowIndexer(window_size=k))`` (the current row and ``k-1`` after it);
* an *offset window* ``rolling("<w>D"|"<w>s", on="o", closed=...)`` for a ``RANGE`` frame ``t-w .. t`` over a
  ``date`` (days) or ``timestamp`` (seconds) key, ascending and without NULLs. pandas' offset window ends at the
  current row itself: later rows of the same value are out (``Frame.peers_follow`` False; checked by experiment
  with duplicate timestamps); ``closed="left"``/``"neither"`` leave out every row of the current value.

Aggregates: ``sum``, ``mean``, ``min``, ``max``, ``var``/``std`` with ``ddof`` 0 or 1, ``median``,
``quantile(q, interpolation="linear")`` (``quantile_cont``; no interpolation is ``quantile_disc``: ``lower``,
``higher`` and ``nearest`` pick other order statistics for some n and q) and ``count``; ``count(*)`` is the count
of ``id``, never NULL. A weighted ``sum``/``avg`` (:attr:`~.model.Call.weights`: the ``triang`` shape) is
``rolling(k, win_type="triang")`` (SciPy's window; trailing or centred count windows), ``.sum()``/``.mean()``.

**NULLs.** pandas has one missing marker for floats, NaN, and its window functions turn ±inf inputs into NaN
before they aggregate (``_prep_values``; pandas-dev/pandas#57549): every NaN a rolling aggregation returns is
pandas' "missing", and the program reads it back as NULL (``None``). ``Call.min_count`` is ``min_periods`` (at
least 1: SQL's NULL for a frame without a non-NULL value). ``count`` is the exception: its ``min_periods`` counts
the window's rows, NaN included (pandas-dev/pandas#30923, #34466), so ``count(x)`` runs with ``min_periods=0``
(SQL's 0 for an empty frame) and a ``count(x)`` with ``min_count >= 1`` is declared unsupported; for
``count(*)`` rows are what ``min_count`` counts, and ``min_periods=min_count`` is exact. pandas refuses a
``min_periods`` larger than an integer window: declared unsupported too. Answers are floats:
pandas computes every rolling aggregate in float64, integer inputs included.

Errors: a ``ValueError``/``TypeError``/``NotImplementedError`` raised inside ``pandas`` is a ``refused`` query;
any other error a ``crash``. pandas is imported when a query runs, never at import.
"""

from __future__ import annotations

import importlib.util
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
from .model import Call, Query, Table

__all__ = ["METHODS", "PandasEngine", "Plan", "plan"]

#: aggregate -> the rolling method call (``{q}``: the quantile's fraction)
METHODS: dict[str, str] = {
    "sum": "sum()",
    "avg": "mean()",
    "min": "min()",
    "max": "max()",
    "var_pop": "var(ddof=0)",
    "var_samp": "var(ddof=1)",
    "stddev_pop": "std(ddof=0)",
    "stddev_samp": "std(ddof=1)",
    "median": "median()",
    "quantile_cont": 'quantile({q}, interpolation="linear")',
    "count": "count()",
    "count_star": "count()",
}
_UNITS = {"date": "D", "timestamp": "s"}
#: the :data:`~.model.WEIGHT_SHAPES` pandas spells, as ``win_type`` (SciPy's windows)
_WIN_TYPES = frozenset({"triang"})


@dataclass(frozen=True)
class Plan:
    """How one query is spelled: a ``count`` window or an ``offset`` window (see the module docstring)."""

    kind: Literal["count", "offset"]
    window: RowsWindow | ValueWindow


def plan(table: Table, query: Query) -> Plan | str:
    """The window of ``query`` over ``table``, or why pandas cannot express it."""
    problem = common_problem(query) or _call_problem(query)
    if problem is not None:
        return problem
    frame = query.window.frame
    assert frame is not None  # common_problem refuses the default frame
    if frame.unit == "rows":
        rows = rows_window(frame)
        if isinstance(rows, str):
            return rows
        if query.call.weights is not None and not (rows.trailing or rows.centred):
            return "pandas' weighted windows (win_type) are rolling(k) or rolling(k, center=True)"
        if _count_window(rows) is None:
            return "pandas' count windows end at (or just before) the current row, centre on it or start at it"
        size = rows.trailing or rows.centred or (-rows.lo if rows.hi == -1 else None)
        if size is not None and _min_periods(query.call) > size:
            return "pandas refuses min_periods larger than an integer window (an error, by design)"
        return Plan("count", rows)
    if query.call.weights is not None:
        return "pandas' weighted windows (win_type) count rows"
    if table.order_type not in _UNITS:
        return "pandas' offset windows need a date or timestamp order key"
    values = value_window(table, frame)
    if isinstance(values, str):
        return values
    problem = range_order_problem(table, query.window)
    if problem is not None:
        return problem
    if values.width is None:
        return "pandas' offset windows end at the current row"
    if frame.peers_follow and values.holds_current_value:
        return "pandas' offset windows end at the current row: later peers are out"
    return Plan("offset", values)


def _call_problem(query: Query) -> str | None:
    call = query.call
    if call.aggregate not in METHODS:
        return f"pandas has no rolling {call.aggregate}"
    if call.ignore_nulls:
        return "IGNORE NULLS applies to value functions, which pandas' rolling windows lack"
    if call.aggregate == "quantile_cont" and not isinstance(call.param, (int, float)):
        return "a quantile needs its fraction"
    if call.aggregate == "count" and call.min_count >= 1:
        return "pandas' rolling count applies min_periods to the window's rows, NaN included (pandas-dev/pandas#34466)"
    if call.weights is not None:
        if call.weights not in _WIN_TYPES:
            return f"pandas' weights are SciPy's window shapes (win_type): none is {call.weights!r}"
        if importlib.util.find_spec("scipy") is None:
            return "pandas' win_type needs SciPy, which is not installed"
    return None


def _min_periods(call: Call) -> int:
    """``min_periods``: :func:`~.frames_api.min_samples`, but 0 for ``count(x)`` (pandas counts rows for it)."""
    return 0 if call.aggregate == "count" else min_samples(call.aggregate, call.min_count)


def _count_window(rows: RowsWindow) -> str | None:
    """The ``rolling(...)`` window argument(s) for ``rows``, or None."""
    if rows.trailing:
        return str(rows.trailing)
    if rows.hi == -1 and rows.lo <= -1:
        return f'{-rows.lo}, closed="left"'
    if rows.centred:
        return f"{rows.centred}, center=True"
    if rows.lo == 0 and rows.hi >= 1:
        return f"pd.api.indexers.FixedForwardWindowIndexer(window_size={rows.hi + 1})"
    return None


# ----------------------------------------------------------------------------------------------------------------
# the program


def _block(table: Table, query: Query) -> str:
    chosen = plan(table, query)
    if isinstance(chosen, str):
        raise ValueError(f"pandas cannot run {describe(query)}: {chosen}")
    call, window = query.call, chosen.window
    columns, descending, nulls_last = order_columns(query.window)
    ascending = [not d for d in descending]
    position = "last" if nulls_last else "first"
    names = ", ".join(f'"{c}"' for c in columns)
    sort = f'rows = df.sort_values([{names}], ascending={ascending}, na_position="{position}")'
    column = "id" if call.column == "*" else call.column
    periods = _min_periods(call)
    method = METHODS[call.aggregate].format(q=repr(call.param))
    grouped = 'rows.groupby("p", dropna=False)'
    if isinstance(window, RowsWindow):
        arguments = f"{_count_window(window)}, min_periods={periods}"
        if call.weights is not None:
            arguments += f', win_type="{call.weights}"'
        source = f'{grouped}["{column}"]' if query.window.partitioned else f'rows["{column}"]'
        result = f"{source}.rolling({arguments}).{method}"
    else:  # an offset window: pandas keeps the row index only when it aggregates a DataFrame
        width = f'"{window.width}{_UNITS[table.order_type]}"'
        arguments = f'{width}, on="o", closed="{window.closed}", min_periods={periods}'
        picked = f'["p", "o", "{column}"]' if query.window.partitioned else f'["o", "{column}"]'
        source = f'rows[{picked}].groupby("p", dropna=False)' if query.window.partitioned else f"rows[{picked}]"
        result = f'{source}.rolling({arguments}).{method}["{column}"]'
    return "\n".join((f"# {describe(query)}", sort, f"answers.append(table_order({result}))"))


def _column_source(name: str, table: Table) -> str:
    """One column of the ``pd.DataFrame`` display; an order key of dates or timestamps as ``datetime64``."""
    body = list_source(table.column(name))
    if name == "o" and table.order_type in _UNITS:
        body = f"pd.to_datetime({body})"
    return f'        "{name}": {body},'


_HELPERS = '''

def table_order(result):
    """The answers of ``result`` in the table's row order: its index (the last level, under groupby) is the
    row's position in the table. NaN is pandas' missing value: None."""
    if len(result) != len(df):
        raise RuntimeError(f"pandas answered {len(result)} rows for {len(df)}")
    if result.index.nlevels > 1:
        result = result.droplevel(list(range(result.index.nlevels - 1)))
    values = result.sort_index().tolist()
    return [None if value != value else value for value in values]


answers = []'''


def _prelude(table: Table) -> str:
    columns = "\n".join(_column_source(name, table) for name in table.COLUMNS)
    frame = f"df = pd.DataFrame(\n    {{\n{columns}\n    }}\n)"
    return "import datetime\n\nimport pandas as pd\n\n" + frame + "\n" + _HELPERS


def program(table: Table, queries: Sequence[Query]) -> Program:
    """The case as a pandas program (see :class:`~.frames_api.Program`)."""
    return Program(_prelude(table), tuple(_block(table, q) for q in queries))


# ----------------------------------------------------------------------------------------------------------------
# the engine


def _failure(error: BaseException) -> Failure:
    if isinstance(error, (ValueError, TypeError, NotImplementedError)) and raised_inside(error, "pandas"):
        return Failure("refused", error_text(error))
    return Failure("crash", error_text(error))


class PandasEngine(ProgramEngine):
    """pandas' rolling windows as an :class:`~.engine.Engine` (see the module docstring)."""

    nan_is_null = True  # pandas has one missing marker for floats, NaN, read back as NULL (engine.py)

    name = "pandas"
    package = "pandas"
    alias = "pd"
    namespace = "pandas_case"

    def plan(self, table: Table, query: Query) -> Plan | str:
        return plan(table, query)

    def program(self, table: Table, queries: Sequence[Query]) -> Program:
        return program(table, queries)

    def failure(self, error: BaseException) -> Failure:
        return _failure(error)
