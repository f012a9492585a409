"""Spark SQL window frames as an independent oracle for swagkit, and swagkit as an oracle for Spark (issue 15 §2).

The same per-key streams ``(key, seq, time, <value columns>)`` are aggregated twice:

* by Spark SQL: for every frame (:class:`~.sql_frames.Frame`: ``rowsBetween`` over ``seq`` for count windows,
  ``rangeBetween`` over the event time ``time`` for time windows, ties included), value column (``bigint`` or
  ``double``, NULLs allowed) and aggregate (:data:`~.sql_frames.AGGREGATES`: ``sum``, ``count``, ``min``,
  ``max``, ``avg``, ``first``/``last`` with and without ``ignorenulls``, ``stddev_samp``) one window column;
* by swagkit, on the Spark workers, one key at a time: the optimized DABA Lite (paper 000 §6) over library
  monoids, frame by frame (:func:`~.sql_frames.swagkit_frame_aggregates`, NULLs lifted to the identity).

They are compared value by value on the workers (:mod:`.sql_check`, which states the tolerance rules: exact but
for ``sum``/``avg`` of doubles and ``stddev``), once per *frame mode* (:data:`FRAME_MODES`): Spark's default
sliding frame, and its block-chunked segment tree (``spark.sql.window.segmentTree.enabled``, new in Spark 4.2 and
off by default) with small blocks and fanout and no small-partition fallback, so that the tree itself is exercised
on test-sized keys. Spark's own SQL metrics (``numSegmentTreeFrames``) show which implementation ran.

*Frame order.* ``rows`` frames follow ``seq``. A ``range`` frame holds whole groups of peers (rows with equal
``time``); which peer comes first matters to ``first``/``last`` only, and SQL leaves it unspecified. The
comparison fixes it to ``seq`` order, swagkit's order: the input is sorted by ``(key, time, seq)`` within hash
partitions by key and every window's ORDER BY is a prefix of that (:func:`~.sql_frames.presorted`), so Spark
sorts nothing more and peers reach the windows in ``seq`` order. ``time`` must be non-decreasing in ``seq``.

A disagreement becomes a :class:`~.sql_repro.Mismatch` with a minimal DataFrame on which Spark still shows it and
a runnable script (:mod:`.sql_repro`). :func:`generated_frame` makes seeded streams on the executors (any size);
:func:`random_streams` the same rows on the driver.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .sql_check import CHECK_SCHEMA, KeySplitError, arrow, column_name, make_partition_checker
from .sql_frames import (
    AGGREGATES,
    VALUE_TYPES,
    Frame,
    SwagkitSide,
    default_frames,
    presorted,
    spark_expression,
    swagkit_frame_aggregates,
)
from .sql_repro import Mismatch, find_reproduction

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "AGGREGATES",
    "FRAME_MODES",
    "SEGMENT_TREE_CONF",
    "SEGMENT_TREE_BLOCK_CONF",
    "STREAM_SCHEMA",
    "Frame",
    "FrameComparison",
    "Mismatch",
    "SqlComparison",
    "compare_window_frames",
    "default_frames",
    "frame_mode_conf",
    "generated_frame",
    "key_rows",
    "random_streams",
    "run_at_scale",
    "spark_frames",
    "streams_frame",
    "swagkit_frame_aggregates",
]

SEGMENT_TREE_CONF = "spark.sql.window.segmentTree.enabled"
SEGMENT_TREE_BLOCK_CONF = "spark.sql.window.segmentTree.blockSize"
SEGMENT_TREE_FANOUT_CONF = "spark.sql.window.segmentTree.fanout"
#: partitions (keys) with fewer rows fall back to the default frame (Spark's default: 64)
SEGMENT_TREE_MIN_ROWS_CONF = "spark.sql.window.segmentTree.minPartitionRows"
#: frame mode -> whether it turns the segment-tree frame on
FRAME_MODES = {"default": False, "segment_tree": True}
#: the generated streams: a key, its row order, an event time (non-decreasing in seq, gaps and ties), an int64
#: and a float64 value, both with NULLs
STREAM_SCHEMA = "key string, seq bigint, time bigint, ival bigint, fval double"
#: a row of the generated streams
Row = tuple[str, int, int, int | None, float | None]


@dataclass
class FrameComparison:
    """The comparison in one frame mode: ``rows`` DataFrame rows, ``compared`` values (rows × frames × value
    columns × aggregates), ``mismatch_count`` disagreements of which the first few are in ``mismatches``."""

    frame: str
    conf: dict[str, str]
    rows: int = 0
    keys: int = 0
    compared: int = 0
    #: values that differed but within the tolerance (:mod:`.sql_check`), and the largest share of the tolerance
    #: such a difference used (0 to 1)
    inexact: int = 0
    worst_by_aggregate: dict[str, float] = field(default_factory=dict)
    mismatch_count: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    seconds: float = 0.0
    #: Spark's own count of the frames its window operator prepared as segment trees, and of those that fell back
    #: to the default frame (SQL metrics ``numSegmentTreeFrames``/``numSegmentTreeFallbackFrames`` of ``Window``)
    segment_tree_frames: int = 0
    segment_tree_fallbacks: int = 0

    @property
    def worst_tolerance_share(self) -> float:
        """The largest share of its tolerance a difference that was allowed used (0 when all were exact)."""
        return max(self.worst_by_aggregate.values(), default=0.0)

    @property
    def ok(self) -> bool:
        return self.mismatch_count == 0


@dataclass
class SqlComparison:
    """Every frame mode's comparison of the same streams over the same frames, value columns and aggregates."""

    frames: tuple[Frame, ...]
    columns: tuple[tuple[str, str], ...]
    aggregates: tuple[str, ...]
    modes: dict[str, FrameComparison]

    @property
    def ok(self) -> bool:
        return all(m.ok for m in self.modes.values())


def frame_mode_conf(mode: str, block_size: int = 16, fanout: int = 2) -> dict[str, str]:
    """The session settings of a frame mode. The segment tree gets ``block_size`` rows per leaf block (Spark's
    minimum is 16; its default 65536 would make any test-sized key one leaf), ``fanout`` children per node
    (minimum 2: the deepest trees) and no fallback to the default frame for small keys."""
    if mode not in FRAME_MODES:
        raise ValueError(f"unknown frame mode {mode!r} (known: {', '.join(FRAME_MODES)})")
    if not FRAME_MODES[mode]:
        return {SEGMENT_TREE_CONF: "false"}
    return {
        SEGMENT_TREE_CONF: "true",
        SEGMENT_TREE_BLOCK_CONF: str(block_size),
        SEGMENT_TREE_FANOUT_CONF: str(fanout),
        SEGMENT_TREE_MIN_ROWS_CONF: "1",
    }


def compare_window_frames(
    spark: SparkSession,
    df: DataFrame,
    frames: Sequence[Frame] | None = None,
    *,
    modes: Sequence[str] = tuple(FRAME_MODES),
    aggregates: Sequence[str] = tuple(AGGREGATES),
    swagkit_side: SwagkitSide = swagkit_frame_aggregates,
    block_size: int = 16,
    fanout: int = 2,
    max_reported: int = 5,
) -> SqlComparison:
    """Compare Spark's window frames over ``df`` with ``swagkit_side`` for every frame in ``frames``
    (:func:`default_frames` by default), every value column of ``df`` (its ``bigint``/``double`` columns but
    ``seq`` and ``time``), every aggregate and every frame mode in ``modes``. ``df`` has a string ``key``, a
    ``seq`` unique per key and, for ``range`` frames, a numeric ``time`` non-decreasing in ``seq``. The first
    ``max_reported`` mismatches of each mode come back with a minimal DataFrame and a reproduction script."""
    frames = tuple(frames if frames is not None else default_frames())
    unknown = [a for a in aggregates if a not in AGGREGATES]
    if not frames or unknown:
        raise ValueError(f"nothing to compare: frames {frames!r}, unknown aggregates {unknown}")
    columns = _value_columns(df)
    result = SqlComparison(frames, columns, tuple(aggregates), {})
    checker = make_partition_checker(frames, columns, aggregates, swagkit_side, max_reported)
    for mode in modes:
        conf = frame_mode_conf(mode, block_size, fanout)
        comparison = FrameComparison(mode, conf)
        started = time.perf_counter()
        with session_conf(spark, conf):
            query = spark_frames(df, frames, columns, aggregates).mapInArrow(checker, CHECK_SCHEMA)
            per_key = query.collect()
            comparison.seconds = time.perf_counter() - started
            comparison.segment_tree_frames, comparison.segment_tree_fallbacks = _segment_tree_metrics(query)
            details = []
            if len({row["key"] for row in per_key}) != len(per_key):
                raise KeySplitError("a key was checked in pieces (its rows were in several partitions)")
            for row in per_key:
                comparison.keys += 1
                comparison.rows += row["rows"]
                comparison.compared += row["compared"]
                comparison.inexact += row["inexact"]
                for aggregate, share in json.loads(row["worst"]).items():
                    comparison.worst_by_aggregate[aggregate] = max(
                        comparison.worst_by_aggregate.get(aggregate, 0), share
                    )
                comparison.mismatch_count += row["mismatches"]
                details += [(row["key"], d) for d in json.loads(row["detail"] or "[]")]
            details.sort(key=lambda kd: (kd[0], kd[1][3], kd[1][0]))
            comparison.mismatches = [
                _reproduce(spark, df, mode, conf, frames, key, detail) for key, detail in details[:max_reported]
            ]
        result.modes[mode] = comparison
    return result


def run_at_scale(
    spark: SparkSession,
    keys: int,
    mean_rows: int,
    seed: int = 0,
    frames: Sequence[Frame] | None = None,
    **options: Any,
) -> SqlComparison:
    """:func:`compare_window_frames` over ``keys`` seeded streams of about ``mean_rows`` rows each, generated on
    the executors (:func:`generated_frame`) and cached for the frame modes; ``options`` go to
    :func:`compare_window_frames`. Each frame mode's ``seconds`` covers Spark's windows and the comparison."""
    df = generated_frame(spark, keys, mean_rows, seed).cache()
    try:
        df.count()  # generate once, outside the frame modes' time
        return compare_window_frames(spark, df, frames, **options)
    finally:
        df.unpersist()


def _value_columns(df: DataFrame) -> tuple[tuple[str, str], ...]:
    """``(name, type)`` of ``df``'s value columns: every ``bigint``/``double`` column but ``seq`` and ``time``."""
    found = tuple(
        (f.name, f.dataType.simpleString())
        for f in df.schema.fields
        if f.name not in ("key", "seq", "time") and f.dataType.simpleString() in VALUE_TYPES
    )
    if not found:
        raise ValueError(f"no bigint or double value column in {df.schema.simpleString()}")
    return found


def spark_frames(
    df: DataFrame, frames: Sequence[Frame], columns: Sequence[tuple[str, str]], aggregates: Sequence[str]
) -> DataFrame:
    """Spark's side: the input columns and one window column per frame × value column × aggregate, computed with
    peers in ``seq`` order (see the module docstring)."""
    from pyspark.sql import functions as F

    by_time = any(f.kind == "range" for f in frames)
    keep = ["key", "seq", *(["time"] if by_time else []), *(c for c, _ in columns)]
    selected = [F.col(c) for c in keep]
    for index, frame in enumerate(frames):
        window = frame.spark_window(by_time)
        for value_column, _ in columns:
            selected += [
                spark_expression(a, value_column).over(window).alias(column_name(a, value_column, index))
                for a in aggregates
            ]
    return df.repartition("key").sortWithinPartitions(*presorted(by_time)).select(*selected)


def _reproduce(
    spark: SparkSession,
    df: DataFrame,
    mode: str,
    conf: Mapping[str, str],
    frames: Sequence[Frame],
    key: str,
    detail: Sequence[Any],
) -> Mismatch:
    """A checker's mismatch ``detail`` (:data:`.sql_check.DETAIL_FIELDS`) as a :class:`Mismatch` with its
    minimal DataFrame (the caller holds the mode's session settings)."""
    from pyspark.sql import functions as F

    frame_index, value_column, aggregate, seq, index, lo, hi, theirs, ours, allowed = detail
    frame = frames[frame_index]
    by_time = any(f.kind == "range" for f in frames)
    keep = ["key", "seq", *(["time"] if by_time else []), value_column]
    types = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    schema = ", ".join(f"{c} {types[c]}" for c in keep)
    key_rows = sorted((tuple(r) for r in df.where(F.col("key") == key).select(*keep).collect()), key=lambda r: r[1])
    found = Mismatch(mode, frame, value_column, aggregate, key, seq, theirs, ours, allowed, by_time)
    return find_reproduction(spark, found, key_rows, schema, index, lo, hi, conf)


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


@contextmanager
def session_conf(spark: SparkSession, conf: Mapping[str, str]) -> Iterator[None]:
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


# ----------------------------------------------------------------------------------------------------------------
# seeded streams


def key_rows(seed: int, key_index: int, mean_rows: int) -> list[Row]:
    """The stream of key ``k<key_index>``: between 1 and ``2·mean_rows - 1`` rows; ``time`` steps by 0 (a tie,
    30%), 1-3, or now and then a gap of 50-150; NULLs come in runs, at a rate drawn per key (none, few, many,
    all); ``ival`` in [-1000, 1000] with repeats, ``fval`` of magnitudes 1e-3..1e6, for some keys near 1e6 with a
    small spread (cancellation in sums and in the variance)."""
    rng = random.Random(f"swagkit-sql/{seed}/{key_index}")
    length = rng.randint(1, max(1, 2 * mean_rows - 1))
    null_rate = rng.choice((0.0, 0.08, 0.08, 0.3, 1.0))
    offset = rng.choice((0.0, 0.0, 0.0, 1e6))
    t = rng.randint(-1000, 1000)
    null = False
    ival = 0
    rows: list[Row] = []
    for seq in range(length):
        step = rng.random()
        if seq:
            t += 0 if step < 0.3 else rng.randint(50, 150) if step > 0.97 else rng.randint(1, 3)
        null = rng.random() < (0.6 if null and null_rate else null_rate)
        ival = ival if rng.random() < 0.1 and seq else rng.randint(-1000, 1000)
        fval = offset + rng.uniform(-1.0, 1.0) * 10.0 ** rng.randint(-3, 0 if offset else 6)
        rows.append((f"k{key_index}", seq, t, None if null else ival, None if null or rng.random() < 0.05 else fval))
    return rows


def random_streams(keys: int, mean_rows: int, seed: int) -> list[Row]:
    """:func:`key_rows` of keys ``0 .. keys-1``, interleaved round-robin (so partitioning matters)."""
    streams = [key_rows(seed, k, mean_rows) for k in range(keys)]
    longest = max((len(s) for s in streams), default=0)
    return [s[i] for i in range(longest) for s in streams if i < len(s)]


def streams_frame(spark: SparkSession, rows: Sequence[Row]) -> DataFrame:
    """The rows as a DataFrame of :data:`STREAM_SCHEMA`."""
    return spark.createDataFrame(list(rows), schema=STREAM_SCHEMA)


def generated_frame(
    spark: SparkSession, keys: int, mean_rows: int, seed: int, partitions: int | None = None
) -> DataFrame:
    """:func:`random_streams` generated on the executors (``keys`` keys spread over ``partitions`` tasks): the
    same rows, at any size, without the driver holding them."""

    def generate(batches: Iterable[Any]) -> Iterator[Any]:
        pa = arrow()
        schema = _stream_arrow_schema(pa)
        for batch in batches:
            rows = [r for k in batch.column(0).to_pylist() for r in key_rows(seed, k, mean_rows)]
            columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
            arrays = [pa.array(c, type=f.type) for c, f in zip(columns, schema, strict=True)]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)

    parts = partitions or spark.sparkContext.defaultParallelism
    return spark.range(keys, numPartitions=parts).mapInArrow(generate, STREAM_SCHEMA)


def _stream_arrow_schema(pa: Any) -> Any:
    """:data:`STREAM_SCHEMA` in Arrow's terms."""
    types = {"string": pa.string(), "bigint": pa.int64(), "double": pa.float64()}
    return pa.schema([(name, types[kind]) for name, kind in (part.split() for part in STREAM_SCHEMA.split(", "))])
