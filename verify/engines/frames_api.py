"""What the dataframe adapters (:mod:`.polars_engine`, :mod:`.pandas_engine`, :mod:`.swagkit_engine`) share: a
:class:`~.model.Query`'s frame read as a rolling window, the reasons a rolling API cannot spell a query, and the
machinery that writes a case as a standalone Python program and runs that very text.

**Rolling windows as frames.** Dataframe rolling windows are frames that end at (or are centred on) the current row:

* a *count window* ``rolling(k)`` is ``ROWS BETWEEN k-1 PRECEDING AND CURRENT ROW`` over the rows in their sorted
  order; ``center=True`` is ``ROWS BETWEEN k//2 PRECEDING AND (k-1)//2 FOLLOWING`` (pandas 2.3 and Polars 2.1 agree
  for even ``k``: ``rolling(4, center=True)`` holds rows i-2 .. i+1; checked by experiment). :class:`RowsWindow`
  is any ``ROWS`` frame as the positions ``i+lo .. i+hi``, open bounds folded in (an open ``ROWS`` bound leaves
  out the row at its offset, so ``lo``/``hi`` move one row inwards);
* an *offset window* ``rolling('3s', closed=...)`` (pandas), ``rolling_sum_by('o', '3i', closed=...)`` (Polars)
  is a ``RANGE`` frame over the values ``t-w .. t``; ``closed`` says which ends are in: ``'right'`` is
  ``(t-w, t]`` (start open), ``'both'`` ``[t-w, t]``, ``'left'`` ``[t-w, t)`` (end open: every row whose value
  is ``t`` is out, the current one included), ``'neither'`` (pandas; Polars spells it ``'none'``) ``(t-w, t)``.
  :class:`ValueWindow` is any ``RANGE`` frame as the values ``t+lo .. t+hi`` with an openness flag per end.
  pandas' offset windows end at the current row *itself*: a later row with the same value is not in the frame
  (``Frame.peers_follow`` False); Polars' windows are by value, so later peers are in (``peers_follow`` True).
  Where the frame does not hold the current value (an end open there), no peer is in either way, and both
  spellings fit (:attr:`ValueWindow.holds_current_value`). Rows with equal order values are sorted by ``id``,
  the order the exact oracle gives peers when ``peers_follow`` is False.

**NULLs.** ``Call.min_count`` is pandas' ``min_periods`` and Polars' ``min_samples``: fewer non-NULL values in the
frame than that and the answer is NULL. SQL's rules (``min_count`` 0) give NULL without a non-NULL value for
every aggregate but the counts and ``array_agg``, so the others get ``max(min_count, 1)`` (:func:`min_samples`);
``var_samp``/``stddev_samp`` are NULL below two values by both libraries' own rule (ddof=1 divides by zero).

**Programs.** An adapter writes a case as one standalone Python program (:class:`Program`: the table as literal
rows, then a block per query) and :func:`run_program` runs that very text, so the code a repro shows is the code
that produced the answers. Apart from :func:`run_program`, everything here is pure and O(rows) at most; nothing
imports an engine.
"""

from __future__ import annotations

import abc
import importlib
import importlib.util
import math
import os
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .engine import Answers, Failure, Repro
from .model import Bound, Case, Frame, Query, Table, Window

__all__ = [
    "ProgramEngine",
    "Closed",
    "Program",
    "RowsWindow",
    "ValueWindow",
    "closed_of",
    "common_problem",
    "describe",
    "error_text",
    "literal",
    "list_source",
    "min_samples",
    "order_columns",
    "raised_inside",
    "range_order_problem",
    "rows_window",
    "run_program",
    "value_window",
]

Closed = Literal["right", "both", "left", "neither"]

#: aggregates with an answer for a frame without a non-NULL value (0, or a list of NULLs): SQL's rule asks for none
_ANSWERED_WITHOUT_VALUES = frozenset({"count", "count_star", "array_agg"})


@dataclass(frozen=True)
class RowsWindow:
    """A ``ROWS`` frame as positions relative to the current row ``i``: the rows ``i+lo .. i+hi`` of its
    partition in window order (empty when ``lo > hi``)."""

    lo: int
    hi: int

    @property
    def trailing(self) -> int | None:
        """``k`` when the frame is ``rolling(k)``: the ``k`` rows ending at the current one."""
        return 1 - self.lo if self.hi == 0 and self.lo <= 0 else None

    @property
    def centred(self) -> int | None:
        """``k`` when the frame is ``rolling(k, center=True)`` and reaches past the current row (``hi >= 1``;
        a centred window that does not is a trailing one and is spelled so)."""
        k = self.hi - self.lo + 1
        return k if self.hi >= 1 and self.lo == -(k // 2) and self.hi == (k - 1) // 2 else None


@dataclass(frozen=True)
class ValueWindow:
    """A ``RANGE`` frame as order values relative to the current row's ``t``: ``t+lo .. t+hi``, each end in or
    out (``lo_open``/``hi_open``), in the order key's unit (days for dates, seconds for timestamps)."""

    lo: int
    hi: int
    lo_open: bool
    hi_open: bool

    @property
    def width(self) -> int | None:
        """``w`` when the frame is an offset window ending at the current value, ``t-w .. t``, else None."""
        return -self.lo if self.hi == 0 and self.lo <= 0 else None

    @property
    def closed(self) -> Closed:
        return closed_of(self.lo_open, self.hi_open)

    @property
    def holds_current_value(self) -> bool:
        """Whether the frame's values include the current row's own, so that its later peers are in it unless
        ``Frame.peers_follow`` is False (which then matters; where it is not, it changes nothing)."""
        starts_before = self.lo < 0 or (self.lo == 0 and not self.lo_open)
        return starts_before and (self.hi > 0 or (self.hi == 0 and not self.hi_open))


def closed_of(start_open: bool, end_open: bool) -> Closed:
    """The ``closed=`` argument (pandas' spelling) that leaves out the open ends."""
    if start_open:
        return "neither" if end_open else "right"
    return "left" if end_open else "both"


def _position(bound: Bound, sign_open: int) -> int | None:
    """A bounded ``ROWS``/``RANGE`` bound as a signed offset (preceding negative), an open bound moved one
    unit inwards by ``sign_open`` (``ROWS`` only); None for an unbounded one or a non-integral offset."""
    if bound.kind in ("unbounded_preceding", "unbounded_following"):
        return None
    offset = 0 if bound.kind == "current_row" else bound.offset
    if isinstance(offset, float):
        if not offset.is_integer():
            return None
        offset = int(offset)
    if not isinstance(offset, int) or offset < 0:
        return None
    value = -offset if bound.kind == "preceding" else offset
    return value + (sign_open if bound.open else 0)


def rows_window(frame: Frame) -> RowsWindow | str:
    """The ``ROWS`` frame as :class:`RowsWindow`, or why no rolling window is that frame."""
    if frame.unit != "rows":
        return f"{frame.unit.upper()} frames are not count windows"
    lo, hi = _position(frame.start, +1), _position(frame.end, -1)
    if lo is None or hi is None:
        return "unbounded (or non-integral) ROWS bounds have no rolling spelling"
    return RowsWindow(lo, hi)


def value_window(table: Table, frame: Frame) -> ValueWindow | str:
    """The ``RANGE`` frame as :class:`ValueWindow`, or why no offset window is that frame (only integral
    offsets over ``int``, ``date`` and ``timestamp`` keys: durations are whole units)."""
    if frame.unit != "range":
        return f"{frame.unit.upper()} frames are not offset windows"
    if table.order_type == "double":
        return "offset windows over a double order key have no duration"
    lo, hi = _position(frame.start, 0), _position(frame.end, 0)
    if lo is None or hi is None:
        return "unbounded (or non-integral) RANGE bounds have no offset-window spelling"
    return ValueWindow(lo, hi, frame.start.open, frame.end.open)


def common_problem(query: Query) -> str | None:
    """Why no rolling API spells ``query`` whatever the table, or None: the default frame, ``GROUPS``,
    ``EXCLUDE`` and ``DISTINCT`` are SQL's alone."""
    frame = query.window.frame
    if frame is None:
        return "the default frame (RANGE UNBOUNDED PRECEDING .. CURRENT ROW, peers in) has no rolling spelling"
    if frame.unit == "groups":
        return "GROUPS frames have no rolling spelling"
    if frame.exclude != "no_others":
        return "EXCLUDE has no rolling spelling"
    if query.call.distinct:
        return "DISTINCT aggregates have no rolling spelling"
    return None


def range_order_problem(table: Table, window: Window) -> str | None:
    """Why an offset window cannot order the table as ``window`` does: it needs ascending, non-NULL keys."""
    if window.descending:
        return "offset windows need an ascending order key (DESC has no spelling)"
    if any(value is None for value in table.column("o")):
        return "offset windows have no rule for NULL order keys"
    return None


def order_columns(window: Window) -> tuple[tuple[str, str], tuple[bool, bool], bool]:
    """How the rows are sorted before a rolling window runs over them: ``(("o", "id"), (o descending, False),
    nulls last)``. ``id`` breaks ties in both units: ``ROWS`` frames order by it (:class:`~.model.Window`), and
    it is the order in which a ``RANGE`` frame with ``peers_follow`` False ends at the current row."""
    return ("o", "id"), (window.descending, False), not window.nulls_first


def min_samples(aggregate: str, min_count: int) -> int:
    """The non-NULL values an aggregate's frame needs for an answer: ``min_count``, and at least 1 (SQL's NULL
    for a frame without a non-NULL value) except for the counts and ``array_agg``."""
    return min_count if aggregate in _ANSWERED_WITHOUT_VALUES else max(min_count, 1)


# ----------------------------------------------------------------------------------------------------------------
# the case as Python source


def literal(value: Any) -> str:
    """``value`` (a table value: None, bool, int, float with ±inf, str, date, naive datetime) as Python source
    that evaluates to it exactly, using only ``datetime`` (imported as such) besides builtins."""
    if isinstance(value, float) and math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)  # dates and datetimes: datetime.date(...), datetime.datetime(...)


def list_source(values: Sequence[Any]) -> str:
    """``values`` as a Python list display, a dozen items a line (indented for a column of a dict display)."""
    if not values:
        return "[]"
    items = [literal(v) for v in values]
    lines = (", ".join(items[i : i + 12]) for i in range(0, len(items), 12))
    return "[\n            " + ",\n            ".join(lines) + ",\n        ]"


def _bound_sql(bound: Bound) -> str:
    return bound.sql + (" (open)" if bound.open else "")


def describe(query: Query) -> str:
    """The query in SQL's words, with the dataframe knobs appended: the comment above its rendered code."""
    call, window, frame = query.call, query.window, query.window.frame
    argument = "*" if call.column == "*" else ("DISTINCT " if call.distinct else "") + call.column
    if call.param is not None:
        argument += f", {call.param!r}"
    over = ["PARTITION BY p"] if window.partitioned else []
    order = "o" + (" DESC" if window.descending else "") + (" NULLS FIRST" if window.nulls_first else " NULLS LAST")
    over.append("ORDER BY " + order + (", id" if window.order_by_id else ""))
    if frame is not None:
        text = f"{frame.unit.upper()} BETWEEN {_bound_sql(frame.start)} AND {_bound_sql(frame.end)}"
        if frame.exclude != "no_others":
            text += " EXCLUDE " + frame.exclude.upper().replace("_", " ")
        over.append(text)
    extras = [" IGNORE NULLS" if call.ignore_nulls else ""]
    if call.min_count:
        extras.append(f", min_count={call.min_count}")
    if call.weights is not None:
        extras.append(f", weights={call.weights}")
    if frame is not None and not frame.peers_follow:
        extras.append(", later peers out")
    aggregate = "count" if call.aggregate == "count_star" else call.aggregate
    return f"{aggregate}({argument}){extras[0]} OVER ({' '.join(over)}){''.join(extras[1:])}"


@dataclass(frozen=True)
class Program:
    """A case as one Python program: ``prelude`` (imports, the table as literal rows, the helpers; it sets
    ``answers = []``) and one ``block`` per query that appends that query's answers in table order. The
    engine's :meth:`render` is this text, its repro runs it, and :func:`run_program` runs the very same
    text block by block."""

    prelude: str
    blocks: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n\n".join((self.prelude, *self.blocks)) + "\n"


def run_program(program: Program, namespace: dict[str, Any], failure: Callable[[BaseException], Failure]) -> Answers:
    """Run ``program`` in ``namespace``: the prelude, then each block on its own, so that one query's error
    does not cost the others their answers. A block that raises becomes ``failure(error)``; one that does not
    append exactly one list of answers becomes a ``crash``. ``KeyboardInterrupt``/``SystemExit`` propagate;
    every other ``BaseException`` (a Rust panic surfaces as one) is the engine's."""
    exec(compile(program.prelude, "<prelude>", "exec"), namespace)
    answers: list[Any] = namespace["answers"]
    out: Answers = []
    for number, block in enumerate(program.blocks):
        before = len(answers)
        try:
            exec(compile(block, f"<query {number}>", "exec"), namespace)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as error:  # noqa: BLE001 -- an engine's panic is a BaseException, and an answer
            out.append(failure(error))
            del answers[before:]
            continue
        if len(answers) != before + 1 or not isinstance(answers[-1], list):
            out.append(Failure("crash", f"query {number} left {len(answers) - before} answer lists"))
            del answers[before:]
            continue
        out.append(answers[-1])
    return out


def error_text(error: BaseException) -> str:
    """``Type: message`` of an engine error, on one line and at most 500 characters."""
    message = " ".join(str(error).split())
    return f"{type(error).__name__}: {message}"[:500]


def raised_inside(error: BaseException, *packages: str) -> bool:
    """Whether the innermost frame of ``error``'s traceback is in the files of one of ``packages`` (an error the
    engine raised, as opposed to one of the program's own lines). Finding a package's folder imports its parent
    package at most (the engine itself is imported already when it raised)."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    innermost = os.path.abspath(frames[-1].filename)
    for package in packages:
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            if innermost.startswith(os.path.abspath(folder) + os.sep):
                return True
    return False


class ProgramEngine(abc.ABC):
    """A dataframe engine whose case runs as a Python program (pandas, Polars): an adapter sets ``name``,
    ``package`` (imported for its ``__version__``), ``alias`` (the program's name for it: ``pd``, ``pl``) and
    ``namespace`` (the program's ``__name__``), and implements :meth:`plan`, :meth:`program` and
    :meth:`failure`."""

    name: str
    package: str
    alias: str
    namespace: str

    @abc.abstractmethod
    def plan(self, table: Table, query: Query) -> Any:
        """The query's spelling (any object), or a string: why the engine cannot express it."""

    @abc.abstractmethod
    def program(self, table: Table, queries: Sequence[Query]) -> Program:
        """The program that answers ``queries`` over ``table``."""

    @abc.abstractmethod
    def failure(self, error: BaseException) -> Failure:
        """How an error the program raised is classed (refused or crash)."""

    def version(self) -> str:
        return str(importlib.import_module(self.package).__version__)

    def unsupported(self, table: Table, query: Query) -> str | None:
        chosen = self.plan(table, query)
        return chosen if isinstance(chosen, str) else None

    def run(self, table: Table, queries: Sequence[Query]) -> Answers:
        """The answers of ``queries`` (each declared supported: ``ValueError`` otherwise), by running the text
        :meth:`render` returns."""
        return run_program(self.program(table, queries), {"__name__": self.namespace}, self.failure)

    def render(self, table: Table, queries: Sequence[Query]) -> str:
        return self.program(table, queries).text

    def repro(self, case: Case) -> Repro:
        return Repro(files={}, code=self.render(case.table, case.queries) + f"version = {self.alias}.__version__\n")

    def close(self) -> None:  # noqa: B027 (nothing to release: each run builds its own DataFrame)
        """Nothing to release: each run builds its own DataFrame."""
