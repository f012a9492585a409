"""What the Spark SQL oracle compares (issue 15 §2): window frames, value columns, aggregates, and swagkit's side.

A *frame* is Spark's ``ROWS`` or ``RANGE BETWEEN lower AND upper`` of a window ``PARTITION BY key``: ``rows``
frames order by ``seq`` (unique within a key: row positions), ``range`` frames by the numeric event time ``time``
(gaps and ties allowed). For the row at position ``i`` of its key, a frame is a half-open interval
``[lo_i, hi_i)`` of positions (:meth:`Frame.bounds`):

* ``rows(a, b)``: the positions ``i+a .. i+b`` clipped to the key;
* ``range(a, b)``: every row whose time lies in ``[t_i + a, t_i + b]`` -- Spark's peer semantics: all rows with
  the same time as a bound are inside, also the *later* rows with the current row's own time.

Both ends are non-decreasing in ``i`` (positions for ``rows``, times sorted for ``range``), so every frame of a
key is one FIFO sliding window: swagkit's side (:func:`swagkit_frame_aggregates`) inserts the rows entering at
the right and evicts those leaving at the left of the optimized DABA Lite (paper 000 §6: worst-case O(1) ⊗ per
insert, evict and query), one per library monoid, and queries it once per row.

NULLs are Spark's: ``sum``/``min``/``max``/``avg``/``stddev`` skip them and are NULL when the frame holds no
non-NULL value (an empty frame included), ``count(col)`` counts the non-NULL values (0 for an empty frame),
``first``/``last`` return the frame's first/last *row's* value, NULL or not, and NULL for an empty frame
(``ignorenulls=True``: the first/last non-NULL value). swagkit's side lifts a NULL to the monoid's identity (the
neutral element: ``0`` for sums, ``±inf``/``INT64_MAX``/``INT64_MIN`` for min/max, :data:`NEUTRAL` for
first/last with ``ignorenulls``) and keeps the number of non-NULL values in the frame (``sum_i64`` over 0/1),
which decides NULL: the identity never stands for an answer.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import Column, WindowSpec

    from swagkit.spec.monoid import Monoid

__all__ = [
    "AGGREGATES",
    "Frame",
    "SwagkitSide",
    "VALUE_TYPES",
    "default_frames",
    "presorted",
    "frame_magnitudes",
    "slide",
    "spark_expression",
    "swagkit_frame_aggregates",
]

#: the aggregates compared on every value column, in output order: name -> PySpark expression (``{c}`` the column)
AGGREGATES: dict[str, str] = {
    "sum": "F.sum({c})",
    "count": "F.count({c})",
    "min": "F.min({c})",
    "max": "F.max({c})",
    "avg": "F.avg({c})",
    "first": "F.first({c})",
    "last": "F.last({c})",
    "first_ignorenulls": "F.first({c}, ignorenulls=True)",
    "last_ignorenulls": "F.last({c}, ignorenulls=True)",
    "stddev": "F.stddev_samp({c})",
}
#: the Spark types of value columns swagkit's side handles: bigint (int64 monoids) and double (float64 monoids)
VALUE_TYPES = ("bigint", "double")

#: swagkit's side: (a key's values in frame order, NULL as None; frame starts; frame ends; value type) ->
#: aggregate name -> one answer per row, as Spark states it (None for NULL)
SwagkitSide = Callable[[Sequence[Any], Sequence[int], Sequence[int], str], Mapping[str, Sequence[Any]]]


@dataclass(frozen=True)
class Frame:
    """Spark's ``rowsBetween(lower, upper)`` (``kind="rows"``, ordered by ``seq``) or ``rangeBetween(lower,
    upper)`` (``kind="range"``, ordered by ``time``) over ``Window.partitionBy("key")``; offsets relative to the
    current row (``0`` is ``Window.currentRow``), ``lower <= upper``."""

    kind: str
    lower: int
    upper: int

    def __post_init__(self) -> None:
        if self.kind not in ("rows", "range"):
            raise ValueError(f"a frame is 'rows' or 'range', got {self.kind!r}")
        if self.lower > self.upper:
            raise ValueError(f"frame {self.kind}({self.lower}, {self.upper}): lower must be <= upper")

    def order_by(self, by_time: bool = False) -> tuple[str, ...]:
        """The window's ORDER BY: ``time`` for ``range``; ``seq`` for ``rows``, or ``(time, seq)`` with
        ``by_time`` -- the same row positions, since ``time`` is non-decreasing in ``seq`` (see :func:`presorted`)."""
        if self.kind == "range":
            return ("time",)
        return ("time", "seq") if by_time else ("seq",)

    @property
    def label(self) -> str:
        """The frame as PySpark writes it, e.g. ``rangeBetween(-30, -1)``."""
        return f"{self.kind}Between({self.lower}, {self.upper})"

    def window_code(self, by_time: bool = False) -> str:
        """The PySpark expression of the window (for reproductions)."""
        order = ", ".join(f'"{c}"' for c in self.order_by(by_time))
        return f'Window.partitionBy("key").orderBy({order}).{self.label}'

    def spark_window(self, by_time: bool = False) -> WindowSpec:
        from pyspark.sql import Window

        ordered = Window.partitionBy("key").orderBy(*self.order_by(by_time))
        if self.kind == "rows":
            return ordered.rowsBetween(self.lower, self.upper)
        return ordered.rangeBetween(self.lower, self.upper)

    def bounds(self, times: Sequence[int]) -> tuple[list[int], list[int]]:
        """``(lo, hi)``: the frame of the row at position ``i`` of a key is positions ``lo[i] .. hi[i]-1``.
        ``times`` is the key's ``time`` column in frame order (sorted; only its length matters for ``rows``)."""
        n = len(times)
        if self.kind == "rows":
            lo = [min(max(i + self.lower, 0), n) for i in range(n)]
            hi = [min(max(i + self.upper + 1, 0), n) for i in range(n)]
            return lo, hi
        return (
            [bisect.bisect_left(times, t + self.lower) for t in times],
            [bisect.bisect_right(times, t + self.upper) for t in times],
        )


def presorted(by_time: bool) -> tuple[str, ...]:
    """The sort within hash partitions by key before the windows: ``(key, time, seq)`` when any window orders by
    time, else ``(key, seq)``. Every window's required order is then a prefix of it (with ``rows`` frames ordered
    by ``(time, seq)``, :meth:`Frame.order_by`), so Spark adds no sort of its own: peers -- rows of equal time in
    a ``range`` frame, whose order decides ``first``/``last`` and which SQL leaves open -- reach every window in
    ``seq`` order by construction, not by the stability of Spark's sort (which a spilling sort does not keep)."""
    return ("key", "time", "seq") if by_time else ("key", "seq")


def default_frames(window: int = 40, span: int = 30) -> tuple[Frame, ...]:
    """Count-based frames of ``window`` rows and time frames of ``span`` time units, ending at the current row,
    before it (empty at a key's first row, or after a time gap longer than ``span``), centred, and a short one."""
    if window < 2 or span < 1:
        raise ValueError(f"window must be >= 2 and span >= 1, got {window}, {span}")
    return (
        Frame("rows", -(window - 1), 0),
        Frame("rows", -window, -1),
        Frame("rows", -(window // 2), window // 2),
        Frame("rows", -2, 0),
        Frame("range", -span, 0),
        Frame("range", -span, -1),
        Frame("range", 0, span // 2),
    )


def spark_expression(aggregate: str, column: str) -> Column:
    """Spark's side of ``aggregate`` over ``column`` (before ``.over(window)``): the :data:`AGGREGATES` entry."""
    from pyspark.sql import functions as F

    c = F.col(column)
    build: dict[str, Callable[[], Column]] = {
        "sum": lambda: F.sum(c),
        "count": lambda: F.count(c),
        "min": lambda: F.min(c),
        "max": lambda: F.max(c),
        "avg": lambda: F.avg(c),
        "first": lambda: F.first(c),
        "last": lambda: F.last(c),
        "first_ignorenulls": lambda: F.first(c, ignorenulls=True),
        "last_ignorenulls": lambda: F.last(c, ignorenulls=True),
        "stddev": lambda: F.stddev_samp(c),
    }
    return build[aggregate]()


def slide(monoid: Monoid[Any, Any, Any], items: Sequence[Any], lo: Sequence[int], hi: Sequence[int]) -> list[Any]:
    """The query of each frame ``items[lo[i]:hi[i]]`` (both ends non-decreasing) by one optimized DABA Lite:
    insert what enters at the right, evict what left at the left, query."""
    from swagkit.optimized import DABALite

    agg = DABALite(monoid)
    insert, evict, query = agg.insert, agg.evict, agg.query
    out: list[Any] = []
    start = end = 0
    for low, high in zip(lo, hi, strict=True):
        while end < high:  # insert first: a frame may start past the previous frame's end
            insert(items[end])
            end += 1
        while start < low:
            evict()
            start += 1
        out.append(query())
    return out


@dataclass(frozen=True)
class _NullToIdentity:
    """A lift that sends NULL (None) to the monoid's identity and everything else through the monoid's lift
    (for the generic monoids; the typed ones get the identity itself as input, which they lift to itself)."""

    lift: Callable[[Any], Any]
    identity: Any

    def __call__(self, x: Any) -> Any:
        return self.identity if x is None else self.lift(x)


def _or_identity(values: Sequence[Any], identity: Any) -> list[Any]:
    return [identity if v is None else v for v in values]


def swagkit_frame_aggregates(
    values: Sequence[Any], lo: Sequence[int], hi: Sequence[int], value_type: str
) -> dict[str, list[Any]]:
    """swagkit's answers for one key, one frame and one value column, as Spark states them (None for NULL):
    DABA Lite over ``sum_i64``/``sum_f64``, ``min_*``, ``max_*`` (NULL lifted to the identity), ``first``/``last``
    (NULL kept as a value; lifted to :data:`NEUTRAL` for ``ignorenulls``) and ``stddev_sample`` (NULL lifted to
    its identity); ``count`` is ``sum_i64`` over 0/1 for NULL/non-NULL, ``avg`` is ``sum / count``."""
    from swagkit.spec import library as lib

    if value_type not in VALUE_TYPES:
        raise ValueError(f"value type {value_type!r} is not one of {VALUE_TYPES}")
    f64 = value_type == "double"
    sum_m, min_m, max_m = (
        (lib.sum_f64(), lib.min_f64(), lib.max_f64()) if f64 else (lib.sum_i64(), lib.min_i64(), lib.max_i64())
    )
    counts = slide(lib.sum_i64(), [0 if v is None else 1 for v in values], lo, hi)
    sums = slide(sum_m, _or_identity(values, sum_m.identity), lo, hi)
    std_m = lib.stddev(sample=True)
    std_m = replace(std_m, lift=_NullToIdentity(std_m.lift, std_m.identity))

    def unless_empty(answers: Sequence[Any]) -> list[Any]:
        return [a if n else None for a, n in zip(answers, counts, strict=True)]

    without_nulls = _or_identity(values, lib.NEUTRAL)
    return {
        "sum": unless_empty(sums),
        "count": counts,
        "min": unless_empty(slide(min_m, _or_identity(values, min_m.identity), lo, hi)),
        "max": unless_empty(slide(max_m, _or_identity(values, max_m.identity), lo, hi)),
        "avg": [s / n if n else None for s, n in zip(sums, counts, strict=True)],
        "first": slide(lib.first(), values, lo, hi),
        "last": slide(lib.last(), values, lo, hi),
        "first_ignorenulls": slide(lib.first(), without_nulls, lo, hi),
        "last_ignorenulls": slide(lib.last(), without_nulls, lo, hi),
        "stddev": slide(std_m, values, lo, hi),
    }


def frame_magnitudes(
    values: Sequence[Any], lo: Sequence[int], hi: Sequence[int]
) -> tuple[list[int], list[float], list[float]]:
    """Per frame: the number of non-NULL values, their ``Σ|x|`` and ``Σx²`` (floats) -- the scales of the
    tolerance rules (:mod:`.sql_check`), independent of the swagkit side under test: the count by prefix sums,
    the float sums by DABA Lite over ``sum_f64`` (a prefix-sum difference would cancel)."""
    from itertools import accumulate

    from swagkit.spec.library import sum_f64

    present = [0, *accumulate(0 if v is None else 1 for v in values)]
    floats = [0.0 if v is None else float(v) for v in values]
    return (
        [present[h] - present[low] for low, h in zip(lo, hi, strict=True)],
        slide(sum_f64(), [abs(x) for x in floats], lo, hi),
        slide(sum_f64(), [x * x for x in floats], lo, hi),
    )
