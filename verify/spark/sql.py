"""Spark SQL window frames as an independent oracle for swagkit's in-order aggregator (issue 15 §2, first slice).

The same per-key streams ``(key, seq, value)`` are aggregated twice:

* by Spark SQL, with the count-based frame ``Window.partitionBy("key").orderBy("seq").rowsBetween(-(W-1), 0)`` and
  its built-in ``sum``, ``count``, ``min``, ``max`` and ``avg``;
* by swagkit on the driver, with the optimized DABA Lite (paper 000, §5: the in-order algorithm with worst-case O(1)
  ⊗ per operation) over the library monoids ``sum_i64``, ``min_i64`` and ``max_i64`` through
  :func:`swagkit.optimized.window_array`; ``count`` is the number of items in the window and ``avg`` is
  ``sum / count``.

The two are compared row by row, once per *frame mode*: Spark's default sliding frame, and its block-chunked segment
tree (``spark.sql.window.segmentTree.enabled``, new in Spark 4.2 and off by default). The segment-tree mode also
lowers ``spark.sql.window.segmentTree.blockSize`` (65536 rows by default: a test partition of a few hundred rows
would be a single leaf, so the tree itself would never be exercised). Both settings are restored afterwards.

Spark's rules for an empty frame are NULL for ``sum``/``min``/``max``/``avg`` and 0 for ``count``; they are applied
to swagkit's side (:func:`spark_view`), although a frame ``rowsBetween(-(W-1), 0)`` always holds the current row
and so is never empty here. ``avg`` is a double on both sides and is compared with relative tolerance
:data:`AVG_REL_TOL`; everything else must be equal. Values must be small enough that no window sum leaves int64:
``sum_i64`` wraps modulo 2**64 while Spark's ANSI mode (the default since Spark 4.0) raises on overflow. NULL values
are not part of this slice.

Each mismatch carries the frame's own rows (the W rows ending at the disagreeing one): a frame
``rowsBetween(-(W-1), 0)`` at the last of those rows sees exactly them, so they are a minimal DataFrame that shows
the disagreement.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "AGGREGATES",
    "AVG_REL_TOL",
    "FRAME_MODES",
    "SEGMENT_TREE_CONF",
    "SEGMENT_TREE_BLOCK_CONF",
    "Mismatch",
    "FrameComparison",
    "SqlComparison",
    "compare_window_frames",
    "random_streams",
    "spark_view",
    "streams_frame",
    "swagkit_aggregates",
]

#: the aggregates compared, in output order
AGGREGATES = ("sum", "count", "min", "max", "avg")
#: relative tolerance for ``avg`` (a double on both sides; the integer aggregates are compared exactly)
AVG_REL_TOL = 1e-12
SEGMENT_TREE_CONF = "spark.sql.window.segmentTree.enabled"
SEGMENT_TREE_BLOCK_CONF = "spark.sql.window.segmentTree.blockSize"
#: frame mode -> whether it turns the segment-tree frame on
FRAME_MODES = {"default": False, "segment_tree": True}

#: one stream row, as in the DataFrame: (key, seq, value)
Row = tuple[str, int, int]
#: the swagkit side: (values of one key in seq order, window) -> aggregate name -> one result per value
SwagkitSide = Callable[[Sequence[int], int], Mapping[str, Sequence[Any]]]


@dataclass(frozen=True)
class Mismatch:
    """One disagreement: at row ``(key, seq)`` with window ``window``, ``aggregate`` is ``spark`` on Spark's side
    and ``swagkit`` on swagkit's; ``rows`` is the frame's own rows, a minimal DataFrame that shows it."""

    frame: str
    window: int
    aggregate: str
    key: str
    seq: int
    spark: Any
    swagkit: Any
    rows: tuple[Row, ...]


@dataclass
class FrameComparison:
    """The comparison in one frame mode: ``rows`` DataFrame rows, ``compared`` values (rows × windows ×
    aggregates), ``mismatch_count`` disagreements of which the first few are kept in ``mismatches``."""

    frame: str
    conf: dict[str, str]
    rows: int = 0
    compared: int = 0
    mismatch_count: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    #: Spark's own count of the frames its window operator prepared as segment trees, and of those that fell back
    #: to the default frame (SQL metrics ``numSegmentTreeFrames``/``numSegmentTreeFallbackFrames`` of ``Window``)
    segment_tree_frames: int = 0
    segment_tree_fallbacks: int = 0

    @property
    def ok(self) -> bool:
        return self.mismatch_count == 0


@dataclass
class SqlComparison:
    """Every frame mode's comparison of the same streams over the same windows."""

    windows: tuple[int, ...]
    frames: dict[str, FrameComparison]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.frames.values())


def swagkit_aggregates(values: Sequence[int], window: int) -> dict[str, list[Any]]:
    """swagkit's side for one key: the sliding ``sum``/``min``/``max`` of ``values`` by the optimized DABA Lite
    over ``sum_i64``/``min_i64``/``max_i64``, ``count`` (items in the window) and ``avg = sum / count``."""
    from swagkit.optimized import DABALite, window_array
    from swagkit.spec.library import max_i64, min_i64, sum_i64

    sums = list(window_array(DABALite, sum_i64(), values, window))
    counts = [min(i + 1, window) for i in range(len(values))]
    return {
        "sum": sums,
        "count": counts,
        "min": list(window_array(DABALite, min_i64(), values, window)),
        "max": list(window_array(DABALite, max_i64(), values, window)),
        "avg": [s / c for s, c in zip(sums, counts, strict=True)],
    }


def spark_view(aggregate: str, value: Any, count: int) -> Any:
    """swagkit's answer as Spark states it: an empty frame is NULL for every aggregate but ``count`` (0)."""
    if count == 0 and aggregate != "count":
        return None
    return value


def random_streams(keys: int, rows_per_key: int, seed: int, low: int = -1000, high: int = 1000) -> list[Row]:
    """Seeded streams: ``keys`` keys ``k0, k1, ...`` with ``rows_per_key`` rows each, ``seq`` 0.. in order and
    ``value`` uniform in ``[low, high]`` (rows of different keys interleaved, so partitioning matters)."""
    rng = random.Random(seed)
    return [(f"k{k}", seq, rng.randint(low, high)) for seq in range(rows_per_key) for k in range(keys)]


def streams_frame(spark: SparkSession, rows: Sequence[Row]) -> DataFrame:
    """The rows as a DataFrame ``key string, seq bigint, value bigint``."""
    return spark.createDataFrame(list(rows), schema="key string, seq bigint, value bigint")


def compare_window_frames(
    spark: SparkSession,
    df: DataFrame,
    windows: Sequence[int],
    *,
    frames: Sequence[str] = tuple(FRAME_MODES),
    swagkit_side: SwagkitSide = swagkit_aggregates,
    block_size: int = 16,
    max_reported: int = 5,
) -> SqlComparison:
    """Compare Spark's window frames over ``df`` (columns ``key``, ``seq``, ``value``; ``seq`` unique per key) with
    ``swagkit_side`` computed on the driver, for every window in ``windows`` and every frame mode in ``frames``
    (keys of :data:`FRAME_MODES`). ``block_size`` is the segment tree's block size in the ``segment_tree`` mode
    (Spark requires >= 16)."""
    import time

    windows = tuple(windows)
    if not windows or min(windows) < 1:
        raise ValueError(f"windows must be >= 1, got {windows!r}")
    streams = _streams_by_key(df)
    expected = {w: {key: swagkit_side([v for _, v in stream], w) for key, stream in streams.items()} for w in windows}
    result = SqlComparison(windows, {})
    for frame in frames:
        conf = {SEGMENT_TREE_CONF: "true" if FRAME_MODES[frame] else "false"}
        if FRAME_MODES[frame]:
            conf[SEGMENT_TREE_BLOCK_CONF] = str(block_size)
        comparison = FrameComparison(frame, conf)
        started = time.perf_counter()
        with _session_conf(spark, conf):
            query = _spark_frames(df, windows)
            spark_rows = query.collect()
        comparison.segment_tree_frames, comparison.segment_tree_fallbacks = _segment_tree_metrics(query)
        comparison.seconds = time.perf_counter() - started
        comparison.rows = len(spark_rows)
        for row in spark_rows:
            _compare_row(comparison, row.asDict(), windows, streams, expected, max_reported)
        result.frames[frame] = comparison
    return result


def _streams_by_key(df: DataFrame) -> dict[str, list[tuple[int, int]]]:
    """The DataFrame's rows on the driver: key -> [(seq, value)] in seq order."""
    streams: dict[str, list[tuple[int, int]]] = {}
    for row in df.select("key", "seq", "value").collect():
        streams.setdefault(row["key"], []).append((row["seq"], row["value"]))
    for stream in streams.values():
        stream.sort()
    return streams


def _spark_frames(df: DataFrame, windows: tuple[int, ...]) -> DataFrame:
    """Spark's side: one column ``<aggregate>_<W>`` per aggregate and window, all frames ending at the current row."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    columns = [F.col("key"), F.col("seq")]
    for w in windows:
        frame = Window.partitionBy("key").orderBy("seq").rowsBetween(-(w - 1), Window.currentRow)
        value = F.col("value")
        columns += [
            F.sum(value).over(frame).alias(f"sum_{w}"),
            F.count(value).over(frame).alias(f"count_{w}"),
            F.min(value).over(frame).alias(f"min_{w}"),
            F.max(value).over(frame).alias(f"max_{w}"),
            F.avg(value).over(frame).alias(f"avg_{w}"),
        ]
    return df.select(*columns)


def _segment_tree_metrics(query: DataFrame) -> tuple[int, int]:
    """Sums of the ``Window`` operators' segment-tree metrics in ``query``'s executed plan (after it ran): shows
    which frame implementation Spark actually used, which the plan's text does not. Walks adaptive plans and
    query stages too."""
    frames = fallbacks = 0
    pending = [query._jdf.queryExecution().executedPlan()]
    while pending:
        node = pending.pop()
        name = node.nodeName()
        metrics = node.metrics()
        if metrics.contains("numSegmentTreeFrames"):
            frames += int(metrics.apply("numSegmentTreeFrames").value())
            fallbacks += int(metrics.apply("numSegmentTreeFallbackFrames").value())
        children = node.children()
        pending += [children.apply(i) for i in range(children.length())]
        if name.startswith("AdaptiveSparkPlan"):
            pending.append(node.executedPlan())
        elif "QueryStage" in name:
            pending.append(node.plan())
    return frames, fallbacks


def _compare_row(
    comparison: FrameComparison,
    row: dict[str, Any],
    windows: tuple[int, ...],
    streams: dict[str, list[tuple[int, int]]],
    expected: dict[int, dict[str, Mapping[str, Sequence[Any]]]],
    max_reported: int,
) -> None:
    key, seq = row["key"], row["seq"]
    stream = streams[key]
    index = _index_of(stream, seq)
    for w in windows:
        ours = expected[w][key]
        count = ours["count"][index]
        for aggregate in AGGREGATES:
            theirs = row[f"{aggregate}_{w}"]
            mine = spark_view(aggregate, ours[aggregate][index], count)
            comparison.compared += 1
            if _agree(aggregate, theirs, mine):
                continue
            comparison.mismatch_count += 1
            if len(comparison.mismatches) < max_reported:
                frame_rows = tuple((key, s, v) for s, v in stream[max(0, index - w + 1) : index + 1])
                comparison.mismatches.append(
                    Mismatch(comparison.frame, w, aggregate, key, seq, theirs, mine, frame_rows)
                )


def _index_of(stream: list[tuple[int, int]], seq: int) -> int:
    """Position of ``seq`` in a key's stream (seq-sorted, unique): bisect on the seq column."""
    import bisect

    index = bisect.bisect_left(stream, (seq,))
    if index == len(stream) or stream[index][0] != seq:
        raise KeyError(f"seq {seq} not in the driver's copy of the stream")
    return index


def _agree(aggregate: str, spark_value: Any, swagkit_value: Any) -> bool:
    if spark_value is None or swagkit_value is None:
        return spark_value is None and swagkit_value is None
    if aggregate == "avg":
        return math.isclose(spark_value, swagkit_value, rel_tol=AVG_REL_TOL, abs_tol=0.0)
    return bool(spark_value == swagkit_value)


@contextmanager
def _session_conf(spark: SparkSession, conf: Mapping[str, str]) -> Iterator[None]:
    """Set ``conf`` on the session for the block and restore every previous value (or unset it) afterwards."""
    previous: dict[str, str | None] = {}
    for name, value in conf.items():
        previous[name] = spark.conf.get(name, None)
        spark.conf.set(name, value)
    try:
        yield
    finally:
        for name, old_value in previous.items():
            if old_value is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, old_value)
