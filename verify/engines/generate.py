"""Window cases aimed at the shapes engines get wrong, seeded and reproducible (issue 24), and the simplifications
the shrinker walks (:func:`simplify`).

:func:`generate_case` is a function of ``(seed, index)`` (and of the :class:`Features` asked for): case ``i`` of seed
``s`` is the same on every machine, in every process. What it aims at:

* **tables** of 1-30 rows mostly (a few dozen, a few hundred, or up to ``max_rows`` now and then), in shuffled
  order, with 1-3 partitions, single-row and NULL partitions among them;
* **order keys** of the case's type drawn from a small pool, so that ties are common, with NULL runs, and for doubles
  ±inf and dyadic values (``k/4``: a key plus or minus a generated offset is exact in binary, so every engine and the
  oracle agree on which rows an offset reaches);
* **values** laid out in ``o`` order as runs: small numbers, constant runs, NULL runs, magnitudes ``1e17`` next to
  ``1``, cancelling pairs, ±inf and ``-0.0`` (doubles), large ints (``|x| <= 2**50``, so that sums of a few thousand
  stay in int64);
* **queries** (1-6) drawing aggregates, frame units, bounds (offsets 0, 1, small, wider than the partition;
  reversed frames such as ``ROWS BETWEEN 1 PRECEDING AND 3 PRECEDING``, empty frames), ``EXCLUDE``, ``DESC``,
  ``NULLS FIRST/LAST``, ``DISTINCT``, ``IGNORE NULLS``, ``min_count`` and the dataframe shapes (rolling count and
  centred windows, offset windows with ``closed=``, ``peers_follow`` False) when :class:`Features` allows them.

Every query of a SQL-spellable frame is valid standard SQL (:func:`sql_problem` says why not, and the generator never
makes one it objects to): the frame's end is not earlier in the list ``UNBOUNDED PRECEDING, n PRECEDING, CURRENT
ROW, n FOLLOWING, UNBOUNDED FOLLOWING`` than its start (so ``1 FOLLOWING AND 1 PRECEDING`` is refused by SQL:
reversed frames are ``n PRECEDING AND m PRECEDING`` with ``m > n`` and ``n FOLLOWING AND m FOLLOWING`` with
``m < n``), offsets are non-negative (ints for ``ROWS``/``GROUPS`` and over int/date/timestamp keys), quantile
fractions lie in ``[0, 1]`` (dyadic, see :mod:`.oracle`), ``nth_value``'s ``n >= 1``, ``string_agg``'s separator
is a string that no generated text contains, bit aggregates see ints, ``DISTINCT`` never meets an order-sensitive
aggregate and ``IGNORE NULLS`` only the positional ones.

:class:`Features` restricts what is generated -- to what an engine can run: :meth:`Features.probe` reads it off an
adapter's ``unsupported`` answers on template queries, and keeps that function to redraw (a few times, still
deterministically) a query the engine would skip.

:func:`simplify` yields smaller variants of a case, each strictly smaller by :func:`case_size` (rows, then queries,
then a cost of values and query features), so that greedy shrinking terminates.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .model import (
    AGGREGATES,
    ORDER_SENSITIVE,
    WEIGHT_SHAPES,
    WEIGHTED,
    Bound,
    Call,
    Case,
    Exclude,
    Frame,
    Query,
    Table,
    Unit,
    Window,
)
from .oracle import POSITIONAL, weighted_frame

__all__ = [
    "DATAFRAME",
    "DISTINCT_AGGREGATES",
    "Features",
    "SQL",
    "case_size",
    "generate_case",
    "simplify",
    "sql_problem",
]

ORDER_TYPES = ("int", "double", "date", "timestamp")
VALUE_TYPES = ("int", "double")
UNITS: tuple[Unit, ...] = ("rows", "range", "groups")
EXCLUDES: tuple[Exclude, ...] = ("current_row", "group", "ties")
#: aggregates that take DISTINCT in the generated cases
DISTINCT_AGGREGATES = frozenset(
    {"sum", "count", "avg", "min", "max", "var_pop", "var_samp", "stddev_pop", "stddev_samp"}
)
_INT_ONLY = frozenset({"bit_and", "bit_or", "bit_xor"})
_BOUND_ORDER = ("unbounded_preceding", "preceding", "current_row", "following", "unbounded_following")
_BASE_DATE = dt.date(2024, 1, 1)
_BASE_TIMESTAMP = dt.datetime(2024, 1, 1, 12, 0, 0)
_SEPARATORS = (",", "|", "; ")
_TEXTS = ("a", "b", "c", "ab", "ba", "xyz", "")
_QUANTILES = (0.0, 0.25, 0.5, 0.75, 1.0, 0.125, 0.875)
_REDRAWS = 8  # how often a query the engine would skip is drawn again


@dataclass(frozen=True)
class Features:
    """What :func:`generate_case` may use. The defaults are everything standard SQL can spell.

    ``aggregates``, ``units`` (frame units), ``excludes`` (``EXCLUDE`` kinds; empty: never), ``order_types``,
    ``value_types`` and ``nulls`` (``"first"``/``"last"`` placements) are the allowed choices; the flags allow the
    default frame, ``RANGE`` offsets, ``DESC``, NULL order keys, ``PARTITION BY``, ``DISTINCT``, ``IGNORE NULLS``,
    ``min_count``, ±inf values, reversed (empty) frames; ``dataframe`` allows open bounds and ``peers_follow``
    False, ``weights`` weighted ``sum``/``avg`` over fixed-width ``ROWS`` frames, and ``sql`` False asks for
    dataframe shapes only. ``max_rows`` and ``max_queries`` cap a case.
    ``unsupported`` (not compared, not hashed) is an adapter's :meth:`~.engine.Engine.unsupported`: a query it
    names a reason for is drawn again, up to a few times.
    """

    aggregates: frozenset[str] = frozenset(AGGREGATES)
    units: frozenset[str] = frozenset(UNITS)
    excludes: frozenset[str] = frozenset(EXCLUDES)
    order_types: frozenset[str] = frozenset(ORDER_TYPES)
    value_types: frozenset[str] = frozenset(VALUE_TYPES)
    nulls: frozenset[str] = frozenset({"first", "last"})
    default_frame: bool = True
    range_offsets: bool = True
    descending: bool = True
    null_keys: bool = True
    partitions: bool = True
    distinct: bool = True
    ignore_nulls: bool = True
    min_count: bool = False
    infinities: bool = True
    reversed_frames: bool = True
    dataframe: bool = False
    weights: bool = False
    sql: bool = True
    max_rows: int = 1500
    max_queries: int = 6
    unsupported: Callable[[Table, Query], str | None] | None = field(default=None, compare=False, hash=False)

    def __post_init__(self) -> None:
        for name, allowed in (
            ("aggregates", AGGREGATES),
            ("units", UNITS),
            ("excludes", EXCLUDES),
            ("order_types", ORDER_TYPES),
            ("value_types", VALUE_TYPES),
            ("nulls", ("first", "last")),
        ):
            unknown = set(getattr(self, name)) - set(allowed)
            if unknown:
                raise ValueError(f"Features.{name}: unknown {sorted(unknown)} (known: {', '.join(allowed)})")
        if not (self.aggregates and self.order_types and self.value_types and self.nulls):
            raise ValueError("Features: aggregates, order_types, value_types and nulls need at least one choice each")
        if not (self.units or self.default_frame):
            raise ValueError("Features: no frame unit and no default frame leaves nothing to generate")
        if not (self.sql or self.dataframe):
            raise ValueError("Features: sql=False needs dataframe=True")
        if self.max_rows < 1 or self.max_queries < 1:
            raise ValueError("Features: max_rows and max_queries must be at least 1")

    @classmethod
    def probe(cls, unsupported: Callable[[Table, Query], str | None], **overrides: Any) -> Features:
        """The features an engine declares it can run: each choice tried on a template query that differs from a
        plain supported one in that choice alone (O(number of choices) calls of ``unsupported``). The result keeps
        ``unsupported`` to redraw the queries that are still skipped (combinations the template does not try)."""
        return _probe(cls, unsupported, overrides)


#: every SQL feature (the default)
SQL = Features()
#: SQL's features plus the dataframe knobs (open bounds, peers not following, ``min_count``, weights)
DATAFRAME = Features(dataframe=True, min_count=True, weights=True)
#: the widest frame a generated weighted call gets (each of its rows is folded on its own)
_MAX_WEIGHTED_ROWS = 64


# ----------------------------------------------------------------------------------------------------------------
# validity


def sql_problem(table: Table, query: Query) -> str | None:
    """Why ``query`` over ``table`` is not valid standard SQL (or not a query the oracle defines), or None."""
    call, frame = query.call, query.window.frame
    if call.aggregate in _INT_ONLY and table.value_type != "int":
        return f"{call.aggregate} needs int values"
    if call.distinct and call.aggregate in ORDER_SENSITIVE:
        return f"DISTINCT with the order-sensitive {call.aggregate}"
    if call.ignore_nulls and call.aggregate not in POSITIONAL:
        return f"IGNORE NULLS with {call.aggregate}"
    if call.aggregate == "nth_value" and not (isinstance(call.param, int) and call.param >= 1):
        return "nth_value needs n >= 1"
    if call.aggregate == "string_agg" and not isinstance(call.param, str):
        return "string_agg needs a separator string"
    if call.aggregate in ("quantile_cont", "quantile_disc") and not (
        isinstance(call.param, (int, float)) and 0 <= call.param <= 1
    ):
        return f"{call.aggregate} needs a fraction in [0, 1]"
    if frame is None:
        return None
    start, end = _BOUND_ORDER.index(frame.start.kind), _BOUND_ORDER.index(frame.end.kind)
    if frame.start.kind == "unbounded_following" or frame.end.kind == "unbounded_preceding":
        return "a frame cannot start at UNBOUNDED FOLLOWING or end at UNBOUNDED PRECEDING"
    if end < start:
        return f"the frame's end ({frame.end.sql}) comes before its start ({frame.start.sql}) in SQL's list"
    for bound in (frame.start, frame.end):
        if bound.kind in ("preceding", "following"):
            if bound.offset is None or bound.offset < 0:
                return f"a frame offset must be non-negative, got {bound.offset}"
            integral = isinstance(bound.offset, int)
            if (frame.unit != "range" or table.order_type != "double") and not integral:
                return f"a {frame.unit.upper()} offset over {table.order_type} keys must be an integer"
    return None


# ----------------------------------------------------------------------------------------------------------------
# tables


def _row_count(rng: random.Random, max_rows: int) -> int:
    draw = rng.random()
    if draw < 0.05:
        count = 1
    elif draw < 0.86:
        count = rng.randint(2, 30)
    elif draw < 0.96:
        count = rng.randint(31, 80)
    elif draw < 0.97 or max_rows <= 300:
        count = rng.randint(81, 300)
    else:  # a large table: engines switch data structures as a frame grows (SQLite's min/max past ~264 rows)
        count = rng.randint(301, max_rows)
    return max(1, min(count, max_rows))


def _key_pool(rng: random.Random, order_type: str, size: int, features: Features) -> list[Any]:
    """Distinct order values; drawn from with replacement, they tie."""
    spread = rng.choice((3, 10, 50, 1000))
    size = min(size, 2 * spread + 1)  # (ints have only 2·spread + 1 values to draw from)
    pool: set[Any] = set()
    while len(pool) < size:
        k = rng.randint(-spread, spread)
        if order_type == "int":
            pool.add(k)
        elif order_type == "double":
            pool.add(k / 4 if rng.random() < 0.8 else k / 4 + rng.choice((1e6, -1e6, 2.0**40)))
        elif order_type == "date":
            pool.add(_BASE_DATE + dt.timedelta(days=k))
        else:
            micros = rng.choice((0, 0, 0, 500_000, 250_000, 1))
            pool.add(_BASE_TIMESTAMP + dt.timedelta(seconds=k, microseconds=micros))
    values = sorted(pool)
    if order_type == "double" and features.infinities and rng.random() < 0.15:
        values.append(rng.choice((math.inf, -math.inf)))
    return values


def _order_keys(rng: random.Random, count: int, order_type: str, features: Features) -> list[Any]:
    size = max(1, round(count * rng.choice((0.15, 0.4, 0.7, 1.0))))
    pool = _key_pool(rng, order_type, size, features)
    keys: list[Any] = [rng.choice(pool) for _ in range(count)]
    if features.null_keys and rng.random() < 0.4:
        for position in rng.sample(range(count), rng.randint(1, max(1, count // 3))):
            keys[position] = None
    return keys


def _value_run(rng: random.Random, value_type: str, length: int, features: Features) -> list[Any]:
    """One run of values: small, constant, NULL, mixed magnitudes, cancelling, infinite."""
    double = value_type == "double"
    kinds = ["small", "small", "constant", "null", "magnitude", "cancel"]
    if double and features.infinities:
        kinds.append("inf")
    kind = rng.choice(kinds)
    if kind == "null":
        return [None] * length
    if kind == "constant":
        value: Any = rng.choice((0.1, 3.0, -2.5, 1e17, 7.0)) if double else rng.choice((0, 3, -7, 2**40))
        return [value] * length
    if kind == "inf":
        return [rng.choice((math.inf, -math.inf, 1.0, -0.0)) for _ in range(length)]
    if kind == "magnitude":
        bigs: tuple[Any, ...] = (1e17, -1e17, 2.0**60, 1e16) if double else (2**50, -(2**50), 10**15)
        smalls: tuple[Any, ...] = (1.0, 0.5, -1.0, 3.0) if double else (1, -1, 2)
        return [rng.choice(bigs) if rng.random() < 0.5 else rng.choice(smalls) for _ in range(length)]
    if kind == "cancel":
        big: Any = rng.choice((1e17, 2.0**55, 1e16 + 1.0)) if double else rng.choice((2**50, 10**15))
        return [big if position % 2 == 0 else -big for position in range(length)]
    if double:
        return [rng.choice((0.1, 0.2, 0.3, 1 / 3, -0.7, 2.0, 0.5, rng.randint(-9, 9) / 4)) for _ in range(length)]
    return [rng.randint(-5, 9) for _ in range(length)]


def _values(rng: random.Random, count: int, value_type: str, features: Features) -> list[Any]:
    out: list[Any] = []
    while len(out) < count:
        out += _value_run(rng, value_type, rng.randint(1, 4), features)
    return out[:count]


def _table(rng: random.Random, count: int, features: Features) -> Table:
    order_type = rng.choice(sorted(features.order_types))
    value_type = rng.choice(sorted(features.value_types))
    ids = rng.sample(range(1, 10 * count + 10), count)
    partition_keys: list[int | None] = rng.sample(range(0, 9), rng.choice((1, 2, 2, 3)))
    if rng.random() < 0.25:
        partition_keys.append(None)
    partitions = [rng.choice(partition_keys) for _ in range(count)]
    if len(partition_keys) > 1 and count > 2 and rng.random() < 0.3:  # a partition of one row
        single = rng.choice(partition_keys)
        partitions = [p if p != single else rng.choice([k for k in partition_keys if k != single]) for p in partitions]
        partitions[rng.randrange(count)] = single
    keys = _order_keys(rng, count, order_type, features)
    # values and texts run along the order key, so that runs (constant, NULL, cancelling) sit inside frames

    def order(r: int) -> tuple[Any, ...]:
        p, o = partitions[r], keys[r]
        return (p is None, p or 0, o is None, 0 if o is None else o, ids[r])

    by_order = sorted(range(count), key=order)
    values = _values(rng, count, value_type, features)
    texts = [None if rng.random() < 0.2 else rng.choice(_TEXTS) for _ in range(count)]
    bools = [rng.choice((True, False, None)) for _ in range(count)]
    rows: list[tuple[Any, ...]] = [()] * count
    for rank, r in enumerate(by_order):
        rows[r] = (ids[r], partitions[r], keys[r], values[rank], texts[rank], bools[rank])
    rng.shuffle(rows)
    return Table(order_type, value_type, tuple(rows))  # type: ignore[arg-type]


# ----------------------------------------------------------------------------------------------------------------
# queries


def _call(rng: random.Random, table: Table, features: Features) -> Call:
    choices = sorted(a for a in features.aggregates if not (a in _INT_ONLY and table.value_type != "int"))
    aggregate = rng.choice(choices or ["count_star"])
    param: int | float | str | None = None
    if aggregate == "nth_value":
        param = rng.choice((1, 1, 2, 3, 5))
    elif aggregate == "string_agg":
        param = rng.choice(_SEPARATORS)
    elif aggregate in ("quantile_cont", "quantile_disc"):
        param = rng.choice(_QUANTILES)
    distinct = features.distinct and aggregate in DISTINCT_AGGREGATES and rng.random() < 0.2
    ignore_nulls = features.ignore_nulls and aggregate in POSITIONAL and rng.random() < 0.35
    min_count = rng.randint(1, 4) if features.min_count and rng.random() < 0.3 else 0
    return Call(aggregate, distinct, ignore_nulls, param, min_count)


def _partition_size(table: Table) -> int:
    sizes: dict[Any, int] = {}
    for row in table.rows:
        sizes[row[1]] = sizes.get(row[1], 0) + 1
    return max(sizes.values(), default=1)


def _offset(rng: random.Random, unit: str, table: Table) -> int | float:
    """An offset: 0, 1, small, or wider than the partition (in rows, groups, or the key's unit)."""
    wide = _partition_size(table) + rng.randint(0, 3)
    if unit != "range":
        return rng.choice((0, 1, 1, 2, 3, wide))
    if table.order_type == "double":
        return rng.choice((0.0, 0.5, 1.0, 1.5, 2.25, 10.0, float(wide)))
    if table.order_type == "timestamp":
        return rng.choice((0, 1, 2, 30, 100))
    return rng.choice((0, 1, 2, 3, 7, 40))


def _bound(rng: random.Random, kind: str, unit: str, table: Table) -> Bound:
    if kind in ("preceding", "following"):
        return Bound(kind, _offset(rng, unit, table))  # type: ignore[arg-type]
    return Bound(kind)  # type: ignore[arg-type]


def _sql_frame(rng: random.Random, unit: str, table: Table, features: Features) -> Frame:
    offsets = unit != "range" or features.range_offsets
    kinds = [k for k in _BOUND_ORDER if offsets or k not in ("preceding", "following")]
    start_kind = rng.choice([k for k in kinds if k != "unbounded_following"])
    after = _BOUND_ORDER.index(start_kind)
    end_kind = rng.choice([k for k in kinds if k != "unbounded_preceding" and _BOUND_ORDER.index(k) >= after])
    start, end = _bound(rng, start_kind, unit, table), _bound(rng, end_kind, unit, table)
    if start_kind == end_kind in ("preceding", "following") and not features.reversed_frames:
        # not reversed: PRECEDING from the farther offset to the nearer, FOLLOWING from the nearer to the farther
        near, far = sorted((start.offset or 0, end.offset or 0))
        first, last = (far, near) if start_kind == "preceding" else (near, far)
        start, end = replace(start, offset=first), replace(end, offset=last)
    excludes = [e for e in EXCLUDES if e in features.excludes]
    exclude: Exclude = rng.choice(excludes) if excludes and rng.random() < 0.25 else "no_others"
    return Frame(unit, start, end, exclude)  # type: ignore[arg-type]


def _dataframe_frame(rng: random.Random, units: Sequence[str], table: Table) -> Frame:
    """The rolling shapes: a count window ``rolling(k)``, a centred one, an offset window ``rolling(w, closed)``."""
    shape = rng.choice(("count", "center", "offset", "offset"))
    closed = rng.choice(("right", "both", "left", "neither"))
    start_open, end_open = closed in ("right", "neither"), closed in ("left", "neither")
    if shape == "offset" and "range" in units:
        width = _offset(rng, "range", table)
        return Frame(
            "range",
            Bound("preceding", width, start_open),
            Bound("current_row", None, end_open),
            peers_follow=rng.random() < 0.5,
        )
    unit = "rows" if "rows" in units else rng.choice(sorted(units))
    size = rng.choice((1, 2, 3, 4, 5))
    if shape == "center":
        return Frame(unit, Bound("preceding", size // 2), Bound("following", (size - 1) // 2))  # type: ignore[arg-type]
    return Frame(unit, Bound("preceding", size, start_open), Bound("current_row", None, end_open))  # type: ignore[arg-type]


def _window(rng: random.Random, table: Table, features: Features) -> Window:
    partitioned = features.partitions and rng.random() < 0.7
    descending = features.descending and rng.random() < 0.3
    nulls_first = rng.choice(sorted(features.nulls)) == "first"
    units = sorted(features.units)
    frame: Frame | None
    dataframe = features.dataframe and units and (not features.sql or rng.random() < 0.5)
    if dataframe:
        frame = _dataframe_frame(rng, units, table)
    elif not units or (features.default_frame and rng.random() < 0.1):
        frame = None
    else:
        frame = _sql_frame(rng, rng.choice(units), table, features)
    return Window(partitioned, descending, nulls_first, frame)


def _weighted(rng: random.Random, query: Query, features: Features) -> Query:
    """``query`` with weights now and then, where ``features`` allow them and its frame takes them: half of the
    ``sum``/``avg`` calls, and one query in ten of the others becomes a weighted ``sum``/``avg`` (no draw without
    ``features.weights``: the cases of engines without weights stay what they were)."""
    call = query.call
    if not features.weights:
        return query
    try:
        frame = weighted_frame(replace(query, call=Call("sum", weights=WEIGHT_SHAPES[0])))
    except ValueError:
        return query
    if frame is None or len(frame[1]) > _MAX_WEIGHTED_ROWS:
        return query
    draw, shape = rng.random(), rng.choice(WEIGHT_SHAPES)
    if call.aggregate in WEIGHTED and not call.distinct and draw < 0.5:
        return replace(query, call=replace(call, weights=shape))
    if draw >= 0.9:
        return replace(query, call=Call(rng.choice(sorted(WEIGHTED)), min_count=call.min_count, weights=shape))
    return query


def _query(rng: random.Random, table: Table, features: Features) -> Query:
    """A query valid for ``table`` (:func:`sql_problem`), redrawn while ``features.unsupported`` objects."""
    query = _weighted(rng, Query(_call(rng, table, features), _window(rng, table, features)), features)
    for _ in range(_REDRAWS):
        if features.unsupported is None or features.unsupported(table, query) is None:
            break
        query = _weighted(rng, Query(_call(rng, table, features), _window(rng, table, features)), features)
    return query


def generate_case(seed: int, index: int, *, features: Features = SQL, max_rows: int | None = None) -> Case:
    """Case ``index`` of ``seed``: a table and 1-``features.max_queries`` queries over it (module docstring).
    ``max_rows`` overrides ``features.max_rows`` (large values make the occasional scale case of that size)."""
    rng = random.Random(f"swagkit-engines/{seed}/{index}")
    table = _table(rng, _row_count(rng, max_rows if max_rows is not None else features.max_rows), features)
    queries = tuple(_query(rng, table, features) for _ in range(rng.randint(1, features.max_queries)))
    return Case(table, queries, seed, index)


# ----------------------------------------------------------------------------------------------------------------
# probing an engine


def _template_table(order_type: str = "int", value_type: str = "double", null_key: bool = False) -> Table:
    keys: dict[str, list[Any]] = {
        "int": [1, 2, 2, 4],
        "double": [0.5, 1.0, 1.0, 2.0],
        "date": [_BASE_DATE + dt.timedelta(days=d) for d in (0, 1, 1, 3)],
        "timestamp": [_BASE_TIMESTAMP + dt.timedelta(seconds=s) for s in (0, 1, 1, 3)],
    }
    values: list[Any] = [1.0, 2.5, None, -1.0] if value_type == "double" else [1, 3, None, -2]
    o = keys[order_type]
    if null_key:
        o = [*o[:3], None]
    rows = tuple((i + 1, i % 2, o[i], values[i], "ab"[i % 2], i % 2 == 0) for i in range(4))
    return Table(order_type, value_type, rows)  # type: ignore[arg-type]


def _template_call(aggregate: str) -> Call:
    params: dict[str, int | float | str] = {
        "nth_value": 2,
        "string_agg": ",",
        "quantile_cont": 0.5,
        "quantile_disc": 0.5,
    }
    param = params.get(aggregate)
    return Call(aggregate, param=param)


def _probe(
    cls: type[Features], unsupported: Callable[[Table, Query], str | None], overrides: dict[str, Any]
) -> Features:
    table = _template_table()
    rows_frame = Frame("rows", Bound("preceding", 1), Bound("current_row"))
    bases = (
        Query(Call("sum"), Window(True, frame=rows_frame)),
        Query(Call("sum"), Window(False, frame=rows_frame)),
        Query(Call("sum"), Window(False)),
    )
    base = next((q for q in bases if unsupported(table, q) is None), None)
    if base is None:
        return cls(unsupported=unsupported, **overrides)

    def can(query: Query, on: Table = table) -> bool:
        return unsupported(on, query) is None

    def framed(frame: Frame | None, **flags: Any) -> Query:
        return replace(base, window=replace(base.window, frame=frame, **flags))

    def called(call: Call) -> Query:
        return replace(base, call=call)

    int_table = _template_table(value_type="int")
    current = base.window.frame
    plain = current or rows_frame
    # a unit counts as supported when one of a few ordinary frames of it is (an engine may take only some bounds)
    unit_frames = {
        unit: [
            Frame(unit, Bound("preceding", 1), Bound("current_row")),
            Frame(unit, Bound("unbounded_preceding"), Bound("current_row")),
            Frame(unit, Bound("preceding", 1), Bound("following", 1)),
        ]
        for unit in UNITS
    }
    infinite = replace(table, rows=tuple((*r[:3], math.inf, *r[4:]) for r in table.rows))
    units = frozenset(u for u in UNITS if any(can(framed(f)) for f in unit_frames[u]))
    found = cls(
        aggregates=frozenset(
            a for a in AGGREGATES if can(called(_template_call(a)), int_table if a in _INT_ONLY else table)
        )
        or frozenset({"sum"}),
        units=units,
        excludes=frozenset(e for e in EXCLUDES if can(framed(replace(plain, exclude=e)))),
        order_types=frozenset(o for o in ORDER_TYPES if can(base, _template_table(o))) or frozenset({"int"}),
        value_types=frozenset(v for v in VALUE_TYPES if can(base, _template_table(value_type=v))) or frozenset({"int"}),
        nulls=frozenset(n for n in ("first", "last") if can(framed(current, nulls_first=n == "first")))
        or frozenset({"last"}),
        default_frame=can(framed(None)) or not units,
        range_offsets=can(framed(Frame("range", Bound("preceding", 1), Bound("current_row")))),
        descending=can(framed(current, descending=True)),
        null_keys=can(base, _template_table(null_key=True)),
        partitions=can(framed(current, partitioned=True)),
        distinct=can(called(Call("count", distinct=True))),
        ignore_nulls=can(called(Call("first_value", ignore_nulls=True))),
        min_count=can(called(Call("sum", min_count=2))),
        weights=any(
            can(
                Query(Call("sum", weights=shape), replace(base.window, frame=rows_frame)),
                replace(table, rows=tuple((*r[:3], float(r[0]), *r[4:]) for r in table.rows)),  # no NULL value
            )
            for shape in WEIGHT_SHAPES
        ),
        infinities=can(base, infinite),
        dataframe=can(framed(Frame("rows", Bound("preceding", 2, True), Bound("current_row"))))
        or can(framed(Frame("range", Bound("preceding", 1, True), Bound("current_row"), peers_follow=False))),
        unsupported=unsupported,
    )
    return replace(found, **overrides) if overrides else found


# ----------------------------------------------------------------------------------------------------------------
# simplification (the shrinker's moves)


def _value_cost(value: Any) -> int:
    """How complex a value is; the simplifications only lower it. NULL 0; 0 costs 1, 1 costs 2, integers more
    with their size; fractional doubles more than integral ones, infinities most; dates and timestamps by their
    distance from a fixed base."""
    if value is None:
        return 0
    if isinstance(value, bool):
        return 1
    if isinstance(value, str):
        return 1 + len(value)
    if isinstance(value, int):
        return 1 + abs(value).bit_length()
    if isinstance(value, float):
        if math.isinf(value):
            return 1100
        whole = float(value).is_integer()
        return (1 if whole else 70) + int(abs(value)).bit_length() + (math.copysign(1.0, value) < 0)
    if isinstance(value, dt.datetime):
        seconds = (value - _BASE_TIMESTAMP).total_seconds()
        return 1 + int(abs(seconds)).bit_length() + (value.microsecond != 0)
    if isinstance(value, dt.date):
        return 1 + abs((value - _BASE_DATE).days).bit_length()
    return 1


def _bound_cost(bound: Bound) -> int:
    offset = 0 if bound.offset is None else 2 + _value_cost(float(bound.offset))
    return {"unbounded_preceding": 0, "unbounded_following": 0, "current_row": 1}.get(bound.kind, offset) + bound.open


def _query_cost(query: Query) -> int:
    call, window, frame = query.call, query.window, query.window.frame
    cost = call.distinct + call.ignore_nulls + call.min_count + window.partitioned + window.descending
    cost += call.weights is not None
    cost += window.nulls_first
    if frame is not None:
        cost += 1 + _bound_cost(frame.start) + _bound_cost(frame.end)
        cost += (frame.exclude != "no_others") + (not frame.peers_follow)
    return cost


def case_size(case: Case) -> tuple[int, int, int]:
    """The measure :func:`simplify` lowers: ``(rows, queries, cost)``, compared lexicographically (well-founded:
    three natural numbers); cost adds :func:`_value_cost` of every cell but ``id`` and each query's features."""
    cells = sum(_value_cost(v) for row in case.table.rows for v in row[1:])
    return len(case.table.rows), len(case.queries), cells + sum(_query_cost(q) for q in case.queries)


def _smaller_offsets(offset: int | float) -> list[int | float]:
    if isinstance(offset, float):
        return [0.0, float(math.floor(offset / 2)), float(math.floor(offset))]
    return [0, offset // 2, offset - 1]


def _with_bound(frame: Frame, start: bool, bound: Bound) -> Frame:
    return replace(frame, start=bound) if start else replace(frame, end=bound)


def _frame_variants(frame: Frame) -> Iterator[Frame | None]:
    yield None
    if frame.exclude != "no_others":
        yield replace(frame, exclude="no_others")
    if not frame.peers_follow:
        yield replace(frame, peers_follow=True)
    for start, bound in ((True, frame.start), (False, frame.end)):
        if bound.open:
            yield _with_bound(frame, start, replace(bound, open=False))
        if bound.offset is not None:
            for smaller in _smaller_offsets(bound.offset):
                if 0 <= smaller < bound.offset:
                    yield _with_bound(frame, start, replace(bound, offset=smaller))


def _query_variants(query: Query) -> Iterator[Query]:
    call, window = query.call, query.window
    if window.frame is not None:
        for frame in _frame_variants(window.frame):
            yield replace(query, window=replace(window, frame=frame))
    if window.descending:
        yield replace(query, window=replace(window, descending=False))
    if window.nulls_first:
        yield replace(query, window=replace(window, nulls_first=False))
    if window.partitioned:
        yield replace(query, window=replace(window, partitioned=False))
    if call.distinct:
        yield replace(query, call=replace(call, distinct=False))
    if call.ignore_nulls:
        yield replace(query, call=replace(call, ignore_nulls=False))
    if call.min_count:
        yield replace(query, call=replace(call, min_count=0))
        yield replace(query, call=replace(call, min_count=call.min_count - 1))
    if call.weights is not None:
        yield replace(query, call=replace(call, weights=None))


def _simple_values(column: str, value: Any, table: Table) -> list[Any]:
    if value is None or column == "id":
        return []
    if column == "o":
        base: dict[str, list[Any]] = {
            "int": [0, 1],
            "double": [0.0, 1.0],
            "date": [_BASE_DATE],
            "timestamp": [_BASE_TIMESTAMP],
        }
        options = [None, *base[table.order_type]]
        if isinstance(value, float) and math.isfinite(value):
            options.append(float(math.floor(value)))
        return options
    if column == "x":
        options = [None, 0.0, 1.0] if table.value_type == "double" else [None, 0, 1]
        if isinstance(value, float) and math.isfinite(value):
            options += [float(round(value)), abs(value)]
        return options
    if column == "s":
        return [None, "", "a"]
    if column == "p":
        return [None, 0]
    return [None]  # b


def simplify(case: Case) -> Iterator[Case]:
    """Smaller variants of ``case``, biggest steps first: one query dropped, one partition's rows dropped, half the
    rows dropped, one row dropped, one query made simpler (default frame, no EXCLUDE, peers following, closed
    bounds, smaller offsets, ASC, NULLS LAST, no PARTITION BY, no DISTINCT/IGNORE NULLS/min_count), one cell made
    simpler (NULL, 0, 1, rounded). Each is strictly smaller by :func:`case_size` (others are not yielded) and keeps
    the case valid; deterministic."""
    size = case_size(case)
    for candidate in _candidates(case):
        if case_size(candidate) < size:
            yield candidate


def _candidates(case: Case) -> Iterator[Case]:
    rows, queries = case.table.rows, case.queries
    if len(queries) > 1:
        for i in range(len(queries)):
            yield case.with_queries(queries[:i] + queries[i + 1 :])
    partitions = sorted({row[1] for row in rows}, key=lambda p: (p is None, p or 0))
    if len(partitions) > 1:
        for p in partitions:
            yield case.with_rows([row for row in rows if row[1] != p])
    if len(rows) >= 4:
        half = len(rows) // 2
        yield case.with_rows(rows[:half])
        yield case.with_rows(rows[half:])
    if len(rows) > 1:
        for i in range(len(rows)):
            yield case.with_rows(rows[:i] + rows[i + 1 :])
    for i, query in enumerate(queries):
        for simpler in _query_variants(query):
            yield case.with_queries(queries[:i] + (simpler,) + queries[i + 1 :])
    for i, row in enumerate(rows):
        for column_index, column in enumerate(Table.COLUMNS):
            for value in _simple_values(column, row[column_index], case.table):
                changed = row[:column_index] + (value,) + row[column_index + 1 :]
                yield case.with_rows(rows[:i] + (changed,) + rows[i + 1 :])
