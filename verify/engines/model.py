"""One window case, many dialects: the data every engine adapter renders and the exact oracle judges (issue 24).

A :class:`Case` is a small table and a few window queries over it. The table has a fixed schema, so that every
dialect can spell it:

=========  ==========================================================================================
``id``     int, unique: the row's identity; answers are aligned by it and it breaks ties where a query
           needs a total order (``ROWS`` frames order by ``o, id``)
``p``      int or NULL: the partition key (``PARTITION BY p``; NULL is a partition of its own)
``o``      the order key, of the case's :attr:`Table.order_type` (``int``, ``double``, ``date``,
           ``timestamp``), with ties and NULLs
``x``      the value, of the case's :attr:`Table.value_type` (``int`` or ``double``), NULLs, and for
           doubles ±inf and values of mixed magnitudes
``s``      text or NULL (``string_agg``)
``b``      bool or NULL (``bool_and``/``bool_or``)
=========  ==========================================================================================

A :class:`Query` is one aggregate :class:`Call` over one :class:`Window`. The window's :class:`Frame` is SQL's
(``ROWS``/``RANGE``/``GROUPS``, the five bound kinds, ``EXCLUDE``) plus the two dataframe knobs SQL lacks: an open
bound (pandas' and Polars' ``closed``) and a frame that ends at the current row even when later peers share its
order value (pandas' and Polars' offset windows, :attr:`Frame.peers_follow` False). :attr:`Call.min_count` is
pandas' ``min_periods`` and Polars' ``min_samples``: fewer non-NULL values in the frame than that, and the
answer is NULL. :attr:`Call.weights` is the rolling windows' weights (pandas' ``win_type``, Polars' ``weights=``):
a weighted ``sum``/``avg`` over a ``ROWS`` frame of fixed width ``k``, the ``j``-th row of the frame's ``k``
positions weighted by ``weight_values(shape, k)[j]`` (:data:`WEIGHT_SHAPES`).

Values in a table are plain Python values: ``int``, ``float`` (``inf`` allowed, never NaN), ``str``, ``bool``,
``None`` for NULL; ``date`` columns hold ``datetime.date`` and ``timestamp`` columns naive
``datetime.datetime`` (microseconds). A frame offset on a ``date``/``timestamp`` order key is an ``int`` number
of days (``date``) or seconds (``timestamp``).

Everything here is data: hashable, comparable, printable (``repr`` round-trips through :func:`case_from_json`
too), so a case can be shrunk, deduplicated, written to a repro file and read back.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

__all__ = [
    "AGGREGATES",
    "ORDER_SENSITIVE",
    "Bound",
    "Call",
    "Case",
    "Frame",
    "Query",
    "Table",
    "WEIGHT_SHAPES",
    "WEIGHTED",
    "Window",
    "case_from_json",
    "case_to_json",
    "weight_values",
]

OrderType = Literal["int", "double", "date", "timestamp"]
ValueType = Literal["int", "double"]
Unit = Literal["rows", "range", "groups"]
BoundKind = Literal["unbounded_preceding", "preceding", "current_row", "following", "unbounded_following"]
Exclude = Literal["no_others", "current_row", "group", "ties"]

#: aggregate name -> the argument column it reads (``*`` for ``count(*)``)
AGGREGATES: dict[str, str] = {
    "sum": "x",
    "count": "x",
    "count_star": "*",
    "avg": "x",
    "min": "x",
    "max": "x",
    "var_pop": "x",
    "var_samp": "x",
    "stddev_pop": "x",
    "stddev_samp": "x",
    "first_value": "x",
    "last_value": "x",
    "nth_value": "x",  # Call.param: n >= 1
    "string_agg": "s",  # Call.param: the separator; in frame order
    "array_agg": "x",  # in frame order, NULLs included
    "bit_and": "x",  # int values only
    "bit_or": "x",
    "bit_xor": "x",
    "bool_and": "b",
    "bool_or": "b",
    "median": "x",
    "quantile_cont": "x",  # Call.param: the fraction q in [0, 1]
    "quantile_disc": "x",
}
#: aggregates whose answer depends on the order of the frame's rows (peers' order is left open by SQL)
ORDER_SENSITIVE = frozenset({"first_value", "last_value", "nth_value", "string_agg", "array_agg"})
#: the rolling weights' shapes: ``ramp`` is 1, 2, ..., k (Polars' ``weights=``: asymmetric, so a window that applies
#: them back to front is caught); ``triang`` is SciPy's triangular window (pandas' ``win_type="triang"``)
WEIGHT_SHAPES = ("ramp", "triang")
#: the aggregates a weighted window computes: ``sum`` is Σ w·x, ``avg`` is Σ w·x / Σ w over the non-NULL values
WEIGHTED = frozenset({"sum", "avg"})


def weight_values(shape: str, k: int) -> tuple[Fraction, ...]:
    """The exact weights of a window of ``k`` rows, first row first. ``triang`` is SciPy's definition: for odd
    ``k``, ``2n/(k+1)`` for ``n = 1 .. (k+1)/2`` and back down; for even ``k``, ``(2n-1)/k`` for ``n = 1 .. k/2``
    and back down.

    >>> [str(w) for w in weight_values("triang", 3)], [str(w) for w in weight_values("triang", 4)]
    (['1/2', '1', '1/2'], ['1/4', '3/4', '3/4', '1/4'])
    """
    if k < 1:
        raise ValueError(f"a weighted window has at least one row, not {k}")
    if shape == "ramp":
        return tuple(Fraction(n) for n in range(1, k + 1))
    if shape == "triang":
        if k % 2:
            half = [Fraction(2 * n, k + 1) for n in range(1, (k + 1) // 2 + 1)]
            return (*half, *half[-2::-1])
        half = [Fraction(2 * n - 1, k) for n in range(1, k // 2 + 1)]
        return (*half, *half[::-1])
    raise ValueError(f"unknown weights {shape!r} (known: {', '.join(WEIGHT_SHAPES)})")


@dataclass(frozen=True)
class Table:
    """The rows of a case: tuples ``(id, p, o, x, s, b)`` (see the module docstring)."""

    order_type: OrderType
    value_type: ValueType
    rows: tuple[tuple[Any, ...], ...]

    COLUMNS = ("id", "p", "o", "x", "s", "b")

    def column(self, name: str) -> list[Any]:
        index = self.COLUMNS.index(name)
        return [row[index] for row in self.rows]


@dataclass(frozen=True)
class Bound:
    """One end of a frame: ``kind`` and, for ``preceding``/``following``, a non-negative ``offset`` (rows or
    groups for ``ROWS``/``GROUPS``; a distance in the order key's unit for ``RANGE``). ``open`` excludes the
    bound's own position (dataframe ``closed=``; not SQL)."""

    kind: BoundKind
    offset: int | float | None = None
    open: bool = False

    @property
    def sql(self) -> str:
        words = {
            "unbounded_preceding": "UNBOUNDED PRECEDING",
            "current_row": "CURRENT ROW",
            "unbounded_following": "UNBOUNDED FOLLOWING",
        }
        if self.kind in words:
            return words[self.kind]
        return f"{self.offset} {self.kind.upper()}"


@dataclass(frozen=True)
class Frame:
    """``unit BETWEEN start AND end [EXCLUDE exclude]``; ``peers_follow`` False ends the frame at the current
    row itself even where later rows are its peers (pandas' and Polars' offset windows; not SQL)."""

    unit: Unit
    start: Bound
    end: Bound
    exclude: Exclude = "no_others"
    peers_follow: bool = True

    @property
    def sql(self) -> str:
        text = f"{self.unit.upper()} BETWEEN {self.start.sql} AND {self.end.sql}"
        if self.exclude != "no_others":
            text += " EXCLUDE " + {"current_row": "CURRENT ROW", "group": "GROUP", "ties": "TIES"}[self.exclude]
        return text

    @property
    def is_sql(self) -> bool:
        """Whether standard SQL can spell the frame (no open bound, peers follow)."""
        return self.peers_follow and not self.start.open and not self.end.open


@dataclass(frozen=True)
class Window:
    """``PARTITION BY p`` (when ``partitioned``) ``ORDER BY o [DESC] NULLS FIRST|LAST[, id]`` and a frame
    (``None``: SQL's default frame, ``RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW``). ``ROWS`` frames get
    ``id`` as a tie-breaker (:attr:`order_by_id`), so their membership is determined; ``RANGE``/``GROUPS``
    frames order by ``o`` alone (peers are what they are about)."""

    partitioned: bool = True
    descending: bool = False
    nulls_first: bool = False
    frame: Frame | None = None

    @property
    def order_by_id(self) -> bool:
        return self.frame is not None and self.frame.unit == "rows"


@dataclass(frozen=True)
class Call:
    """An aggregate call: ``aggregate`` (a key of :data:`AGGREGATES`), ``distinct`` (``count(DISTINCT x)``
    and the like), ``ignore_nulls`` (``first_value``/``last_value``/``nth_value``), ``param`` (``nth_value``'s
    n, ``string_agg``'s separator, the quantile's fraction), ``min_count`` (NULL unless the frame holds at
    least that many non-NULL values: pandas' ``min_periods``, Polars' ``min_samples``; 0 is SQL's rules) and
    ``weights`` (a shape of :data:`WEIGHT_SHAPES` for a weighted ``sum``/``avg`` over a fixed-width ``ROWS``
    frame; not SQL)."""

    aggregate: str
    distinct: bool = False
    ignore_nulls: bool = False
    param: int | float | str | None = None
    min_count: int = 0
    weights: str | None = None

    def __post_init__(self) -> None:
        if self.aggregate not in AGGREGATES:
            raise ValueError(f"unknown aggregate {self.aggregate!r} (known: {', '.join(AGGREGATES)})")
        if self.weights is not None:
            if self.weights not in WEIGHT_SHAPES:
                raise ValueError(f"unknown weights {self.weights!r} (known: {', '.join(WEIGHT_SHAPES)})")
            if self.aggregate not in WEIGHTED or self.distinct:
                allowed = " and ".join(sorted(WEIGHTED))
                raise ValueError(f"weights apply to {allowed} (not DISTINCT), not {self.aggregate}")

    @property
    def column(self) -> str:
        return AGGREGATES[self.aggregate]


@dataclass(frozen=True)
class Query:
    """One window column: ``call`` over ``window``."""

    call: Call
    window: Window

    @property
    def frame_kind(self) -> str:
        """The frame's kind as the conformance matrix groups it: ``rows``, ``range``, ``groups``, ``default``,
        with ``+exclude``, ``+dataframe`` (open bound / peers not following) and ``+weighted`` suffixes."""
        frame = self.window.frame
        if frame is None:
            return "default"
        kind: str = frame.unit
        if frame.exclude != "no_others":
            kind += "+exclude"
        if not frame.is_sql:
            kind += "+dataframe"
        if self.call.weights is not None:
            kind += "+weighted"
        return kind


@dataclass(frozen=True)
class Case:
    """A table and the queries over it; ``seed`` and ``index`` say where the generator made it."""

    table: Table
    queries: tuple[Query, ...]
    seed: int | None = None
    index: int | None = None
    notes: Mapping[str, str] = field(default_factory=dict, compare=False, hash=False)

    def with_rows(self, rows: Sequence[tuple[Any, ...]]) -> Case:
        return replace(self, table=replace(self.table, rows=tuple(rows)))

    def with_queries(self, queries: Sequence[Query]) -> Case:
        return replace(self, queries=tuple(queries))


# ----------------------------------------------------------------------------------------------------------------
# JSON: a case as data (repro files, known findings, Spark fan-out)


def _encode_value(value: Any) -> Any:
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return {"float": "inf" if value > 0 else "-inf"}
    if isinstance(value, dt.datetime):
        return {"timestamp": value.isoformat()}
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    return value


def _decode_value(value: Any) -> Any:
    if isinstance(value, dict):
        ((kind, text),) = value.items()
        if kind == "float":
            return float(text)
        if kind == "timestamp":
            return dt.datetime.fromisoformat(text)
        if kind == "date":
            return dt.date.fromisoformat(text)
        raise ValueError(f"unknown value encoding {kind!r}")
    return value


def case_to_json(case: Case) -> str:
    """The case as one JSON document (floats round-trip exactly; ``inf``, dates and timestamps tagged)."""

    def bound(b: Bound) -> dict[str, Any]:
        return {"kind": b.kind, "offset": b.offset, "open": b.open}

    def query(q: Query) -> dict[str, Any]:
        w, f = q.window, q.window.frame
        return {
            "call": {
                "aggregate": q.call.aggregate,
                "distinct": q.call.distinct,
                "ignore_nulls": q.call.ignore_nulls,
                "param": q.call.param,
                "min_count": q.call.min_count,
                "weights": q.call.weights,
            },
            "window": {
                "partitioned": w.partitioned,
                "descending": w.descending,
                "nulls_first": w.nulls_first,
                "frame": None
                if f is None
                else {
                    "unit": f.unit,
                    "start": bound(f.start),
                    "end": bound(f.end),
                    "exclude": f.exclude,
                    "peers_follow": f.peers_follow,
                },
            },
        }

    document = {
        "order_type": case.table.order_type,
        "value_type": case.table.value_type,
        "rows": [[_encode_value(v) for v in row] for row in case.table.rows],
        "queries": [query(q) for q in case.queries],
        "seed": case.seed,
        "index": case.index,
    }
    return json.dumps(document, allow_nan=False)


def case_from_json(text: str) -> Case:
    """:func:`case_to_json` read back (``ValueError`` on a malformed document)."""
    try:
        document = json.loads(text)

        def bound(d: Mapping[str, Any]) -> Bound:
            return Bound(d["kind"], d["offset"], bool(d["open"]))

        def query(d: Mapping[str, Any]) -> Query:
            c, w = d["call"], d["window"]
            f = w["frame"]
            frame = (
                None
                if f is None
                else Frame(f["unit"], bound(f["start"]), bound(f["end"]), f["exclude"], bool(f["peers_follow"]))
            )
            return Query(
                Call(
                    c["aggregate"],
                    bool(c["distinct"]),
                    bool(c["ignore_nulls"]),
                    c["param"],
                    int(c["min_count"]),
                    c.get("weights"),
                ),
                Window(bool(w["partitioned"]), bool(w["descending"]), bool(w["nulls_first"]), frame),
            )

        table = Table(
            document["order_type"],
            document["value_type"],
            tuple(tuple(_decode_value(v) for v in row) for row in document["rows"]),
        )
        return Case(table, tuple(query(q) for q in document["queries"]), document["seed"], document["index"])
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ValueError(f"not a swagkit engine case: {error}") from None
