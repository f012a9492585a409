"""Spark SQL as a window engine (issue 24), through a SparkSession: the one passed in, the active one, or an
embedded ``local[1]`` session on loopback with the UI off (:func:`swagkit.verify.spark.session.local_session`).

The table is a temporary view over ``VALUES``, each column cast to its type (``BIGINT``, ``DOUBLE``, ``DATE``,
``TIMESTAMP_NTZ`` -- naive, so no session time zone moves an instant --, ``STRING``, ``BOOLEAN``): Spark SQL needs
no catalog for it. Text literals escape backslashes too (Spark's parser reads ``\\`` escapes by default).

What Spark SQL has (its SQL reference and error conditions, checked on 4.3): ``ROWS`` and ``RANGE`` frames, no
``GROUPS`` and no ``EXCLUDE`` (neither is in its grammar); ``RANGE`` offsets over dates (``INTERVAL 'n' DAY``)
and timestamps (``INTERVAL 'n' SECOND``); the standard's ``IGNORE NULLS``; no ``DISTINCT`` in a window function
(``DISTINCT_WINDOW_FUNCTION_UNSUPPORTED``); no reversed frame (``3 PRECEDING AND 5 PRECEDING``:
``SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON``, "the lower bound of a window frame must be less than or equal to the
upper bound"). Aggregates: ``median``, ``percentile_cont`` and ``percentile_disc`` refuse an ordered window
(``INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC``), so ``median`` and ``quantile_cont`` are spelled with Spark's exact
``percentile(x, q)`` (linear interpolation, what ``quantile_cont`` means) and ``quantile_disc`` is unsupported;
``array_agg`` is ``collect_list``, which drops NULLs and answers ``[]`` for an empty frame, so it is not the
model's ``array_agg`` and is unsupported; ``string_agg(s, sep)`` exists since Spark 4.0.

Spark runs in ANSI mode by default (4.0+): an overflowing ``sum`` is an ``ARITHMETIC_OVERFLOW`` error, a
``refused`` query whose message says so. An error with an ``INTERNAL_ERROR`` condition, or one PySpark did not
capture (a bare ``Py4JJavaError``), is a crash.

**Two frame implementations, two engines.** ``spark`` is Spark's default window frame; ``spark-segment-tree``
(:class:`SparkSegmentTreeEngine`) turns on the block-chunked segment tree of Spark 4.2+
(``spark.sql.window.segmentTree.enabled``, off by default) for its queries only, with small blocks and fanout and
no small-partition fallback (:func:`segment_tree_conf`), so that the tree itself runs on case-sized partitions;
Spark's own SQL metrics (``numSegmentTreeFrames``, :func:`segment_tree_metrics`) count the frames it built, and
its repro scripts set the same configuration. ``swagkit verify --spark-sql`` runs the two.
"""

from __future__ import annotations

import datetime as dt
import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, ClassVar

from .model import Table
from .sql import STANDARD_FUNCTIONS, TABLE, FailureKind, LogicalType, SqlEngine, column_types

__all__ = [
    "SEGMENT_TREE_CONF",
    "SparkEngine",
    "SparkSegmentTreeEngine",
    "segment_tree_conf",
    "segment_tree_metrics",
    "session_conf",
]

SEGMENT_TREE_CONF = "spark.sql.window.segmentTree.enabled"
SEGMENT_TREE_BLOCK_CONF = "spark.sql.window.segmentTree.blockSize"
SEGMENT_TREE_FANOUT_CONF = "spark.sql.window.segmentTree.fanout"
#: partitions with fewer rows fall back to the default frame (Spark's default: 64)
SEGMENT_TREE_MIN_ROWS_CONF = "spark.sql.window.segmentTree.minPartitionRows"
#: Spark's smallest segment-tree block and fanout
MIN_BLOCK_SIZE, MIN_FANOUT = 16, 2


def segment_tree_conf(block_size: int = MIN_BLOCK_SIZE, fanout: int = MIN_FANOUT) -> dict[str, str]:
    """The session settings that make Spark's window operator use its segment tree: ``block_size`` rows per leaf
    block (Spark's minimum, 16; its default 65536 would make any case one leaf), ``fanout`` children per node
    (minimum 2: the deepest trees), and no fallback to the default frame for small partitions."""
    if block_size < MIN_BLOCK_SIZE or fanout < MIN_FANOUT:
        raise ValueError(
            f"segment tree: block size >= {MIN_BLOCK_SIZE} and fanout >= {MIN_FANOUT}, got {block_size}, {fanout}"
        )
    return {
        SEGMENT_TREE_CONF: "true",
        SEGMENT_TREE_BLOCK_CONF: str(block_size),
        SEGMENT_TREE_FANOUT_CONF: str(fanout),
        SEGMENT_TREE_MIN_ROWS_CONF: "1",
    }


@contextmanager
def session_conf(spark: Any, conf: Mapping[str, str]) -> Iterator[None]:
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


def segment_tree_metrics(query: Any) -> tuple[int, int]:
    """Sums of the ``Window`` operators' SQL metrics ``numSegmentTreeFrames`` and ``numSegmentTreeFallbackFrames``
    in the executed plan of DataFrame ``query`` (after it ran): which frame implementation Spark used, which the
    plan's text does not say. Walks adaptive plans and query stages too."""
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


_FUNCTIONS = {
    name: spelling for name, spelling in STANDARD_FUNCTIONS.items() if name not in ("quantile_disc", "array_agg")
} | {"median": "percentile({arg}, 0.5)", "quantile_cont": "percentile({arg}, {param})"}

_NO_ORDERED_WINDOW = "Spark refuses {} over an ordered window (INVALID_WINDOW_SPEC_FOR_AGGREGATION_FUNC)"


class SparkEngine(SqlEngine):
    """Spark SQL (see the module docstring). ``session``: the SparkSession to use; by default the active one, or
    an embedded local one made on first use."""

    name = "spark"
    types: ClassVar[dict[LogicalType, str]] = {
        "int": "BIGINT",
        "double": "DOUBLE",
        "date": "DATE",
        "timestamp": "TIMESTAMP_NTZ",
        "text": "STRING",
        "bool": "BOOLEAN",
    }
    functions = _FUNCTIONS
    lacks_functions = {
        "quantile_disc": _NO_ORDERED_WINDOW.format("percentile_disc"),
        "array_agg": "Spark's array_agg is collect_list: it drops NULLs and answers [] for an empty frame",
    }
    lacks_units = {"groups": "Spark SQL has no GROUPS frames (ROWS and RANGE only)"}
    lacks_exclude = "Spark SQL has no EXCLUDE clause"
    lacks_distinct = "Spark: distinct window functions are not supported (DISTINCT_WINDOW_FUNCTION_UNSUPPORTED)"
    lacks_reversed_frames = (
        "Spark requires a frame's lower bound <= its upper bound (SPECIFIED_WINDOW_FRAME_WRONG_COMPARISON)"
    )
    reset_statements = ()
    repro_prelude = """
import os

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
from pyspark.sql import SparkSession

spark = SparkSession.getActiveSession() or (
    SparkSession.builder.master("local[1]")
    .config("spark.ui.enabled", "false")
    .config("spark.ui.showConsoleProgress", "false")
    .getOrCreate()
)
version = spark.version


def execute(sql):
    spark.sql(sql)


def fetch(sql):
    return [tuple(row) for row in spark.sql(sql).collect()]
"""

    def __init__(self, session: Any = None) -> None:
        importlib.import_module("pyspark")  # fail here, not on first use, when PySpark is missing
        self._session = session

    def _spark(self) -> Any:
        if self._session is None:
            sql = importlib.import_module("pyspark.sql")
            active = sql.SparkSession.getActiveSession()
            if active is None:
                from ..spark.session import local_session

                active = local_session("swagkit-engines", cores=1)
            self._session = active
        return self._session

    def version(self) -> str:
        return str(self._spark().version)

    def failure_kind(self, error: BaseException) -> FailureKind:
        captured = importlib.import_module("pyspark.errors").PySparkException
        if not isinstance(error, captured):
            return "crash"
        condition = getattr(error, "getCondition", lambda: None)() or ""
        return "crash" if str(condition).startswith("INTERNAL_ERROR") else "refused"

    def quote(self, plain: str) -> str:
        return super().quote(plain.replace("\\", "\\\\"))  # Spark reads backslash escapes in literals

    def timestamp(self, value: dt.datetime) -> str:
        return f"TIMESTAMP_NTZ '{value.isoformat(sep=' ', timespec='microseconds')}'"

    def load_statements(self, table: Table) -> list[str]:
        """One ``CREATE OR REPLACE TEMPORARY VIEW t AS SELECT CAST(...) ... FROM VALUES ...``; an empty table is
        one row of NULLs filtered out (``VALUES`` needs a row)."""
        schema = column_types(table)
        casts = ", ".join(f"CAST({name} AS {self.types[kind]}) AS {name}" for name, kind in schema)
        rows = [self.row_values(table, row) for row in table.rows] or ["(" + ", ".join("NULL" for _ in schema) + ")"]
        values = ",\n  ".join(rows)
        names = ", ".join(name for name, _ in schema)
        where = "" if table.rows else " WHERE false"
        view = f"CREATE OR REPLACE TEMPORARY VIEW {TABLE} AS SELECT {casts}"
        return [f"{view}\nFROM VALUES\n  {values}\n  AS v({names}){where}"]

    def _execute(self, statement: str) -> None:
        self._spark().sql(statement)

    def _fetch(self, select: str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self._spark().sql(select).collect()]

    def close(self) -> None:
        """Forget the session; it is never stopped here (it may be the caller's, or shared)."""
        self._session = None


class SparkSegmentTreeEngine(SparkEngine):
    """Spark SQL with its segment-tree window frame (module docstring): the session settings of
    :func:`segment_tree_conf` hold for this engine's queries only (the session's own are restored after each).
    ``segment_tree_frames``/``segment_tree_fallbacks`` count what Spark's metrics reported, so a run can show the
    tree really ran."""

    name = "spark-segment-tree"

    def __init__(self, session: Any = None, block_size: int = MIN_BLOCK_SIZE, fanout: int = MIN_FANOUT) -> None:
        super().__init__(session)
        self.block_size, self.fanout = block_size, fanout
        self.tree_conf = segment_tree_conf(block_size, fanout)
        self.segment_tree_frames = 0
        self.segment_tree_fallbacks = 0
        lines = "".join(f'spark.conf.set("{k}", "{v}")\n' for k, v in self.tree_conf.items())
        self.repro_prelude = f"{SparkEngine.repro_prelude.rstrip()}\n\n\n# Spark's segment-tree frame\n{lines}"

    def version(self) -> str:
        return f"{super().version()} (segment tree, block {self.block_size}, fanout {self.fanout})"

    def _fetch(self, select: str) -> list[tuple[Any, ...]]:
        spark = self._spark()
        with session_conf(spark, self.tree_conf):
            query = spark.sql(select)
            rows = [tuple(row) for row in query.collect()]
            frames, fallbacks = segment_tree_metrics(query)
        self.segment_tree_frames += frames
        self.segment_tree_fallbacks += fallbacks
        return rows
