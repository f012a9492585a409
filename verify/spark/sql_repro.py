"""A disagreement between Spark SQL and swagkit as a minimal DataFrame and a runnable reproduction (issue 15 §2).

A mismatch found by the group checker (:mod:`.sql_check`) names a key, a row and its frame ``[lo, hi)``. The
driver fetches the key's rows and looks for the smallest DataFrame on which Spark, in the same frame mode
(the same session settings), still disagrees with swagkit's answer under the same tolerance
(:func:`find_reproduction`), trying in turn:

1. the frame's own rows with the current row, contiguous (``rows(a, b)`` at the current row of that DataFrame
   covers exactly the same rows; ``range(a, b)`` too, since it selects by time);
2. the key's rows up to the frame's end (Spark's segment tree cuts a partition into blocks from its first row, so
   a disagreement that depends on where the frame falls in the blocks needs the prefix);
3. all the key's rows.

The reproduction (:func:`reproduction_code`) is a Python script: the rows as a DataFrame, the session settings
of the frame mode, the window expression, and the two answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .sql_check import agree
from .sql_frames import AGGREGATES, Frame, presorted

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["Mismatch", "find_reproduction", "reproduction_code", "run_window_on_rows"]


@dataclass(frozen=True)
class Mismatch:
    """One disagreement: in frame mode ``mode``, ``aggregate`` of ``column`` over ``frame`` at row
    ``(key, seq)`` is ``spark`` on Spark's side and ``swagkit`` on swagkit's (``tolerance`` allowed).
    ``rows`` is the smallest DataFrame found on which Spark still disagrees (its answer there:
    ``repro_spark``; ``reproduced`` False when even the whole key did not show it), ``repro`` the script."""

    mode: str
    frame: Frame
    column: str
    aggregate: str
    key: str
    seq: int
    spark: Any
    swagkit: Any
    tolerance: float
    #: whether the comparison ordered by time (it had range frames; rows frames then order by ``(time, seq)``)
    by_time: bool = False
    rows: tuple[tuple[Any, ...], ...] = ()
    schema: str = ""
    repro_spark: Any = None
    reproduced: bool = False
    repro: str = ""

    @property
    def expression(self) -> str:
        return AGGREGATES[self.aggregate].format(c=repr(self.column))


def run_window_on_rows(spark: SparkSession, mismatch: Mismatch, rows: Sequence[tuple[Any, ...]], schema: str) -> Any:
    """Spark's answer to ``mismatch``'s window expression at its row, on a DataFrame of ``rows`` (DDL ``schema``;
    the session settings as they are), ordered as the comparison orders (:func:`.sql_frames.presorted`)."""
    from pyspark.sql import functions as F

    from .sql_frames import spark_expression

    m = mismatch
    df = spark.createDataFrame(list(rows), schema=schema)
    answer = spark_expression(m.aggregate, m.column).over(m.frame.spark_window(m.by_time)).alias("answer")
    ordered = df.repartition("key").sortWithinPartitions(*presorted(m.by_time))
    return ordered.select("seq", answer).where(F.col("seq") == m.seq).first()["answer"]  # type: ignore[index]


def find_reproduction(
    spark: SparkSession,
    mismatch: Mismatch,
    key_rows: Sequence[tuple[Any, ...]],
    schema: str,
    index: int,
    lo: int,
    hi: int,
    conf: Mapping[str, str],
) -> Mismatch:
    """``mismatch`` with its minimal DataFrame and reproduction: ``key_rows`` are the key's rows in ``seq``
    order (the checked row at ``index``, its frame ``[lo, hi)``), ``schema`` their DDL, ``conf`` the frame mode's
    session settings (set by the caller)."""
    from dataclasses import replace

    candidates = [(min(index, lo), max(index + 1, hi)), (0, max(index + 1, hi)), (0, len(key_rows))]
    rows: tuple[tuple[Any, ...], ...] = ()
    answer: Any = None
    reproduced = False
    for start, end in dict.fromkeys(candidates):
        rows = tuple(key_rows[start:end])
        answer = run_window_on_rows(spark, mismatch, rows, schema)
        if not agree(mismatch.aggregate, answer, mismatch.swagkit, mismatch.tolerance):
            reproduced = True
            break
    found = replace(mismatch, rows=rows, schema=schema, repro_spark=answer, reproduced=reproduced)
    return replace(found, repro=reproduction_code(found, conf))


def reproduction_code(mismatch: Mismatch, conf: Mapping[str, str]) -> str:
    """A standalone PySpark script showing the disagreement: run it (or ``exec`` it with a session active) and
    it prints Spark's answer next to swagkit's; it leaves them in ``spark_value`` and ``swagkit_value``."""
    m = mismatch
    rows = "".join(f"    {row!r},\n" for row in m.rows)
    sort = ", ".join(f'"{c}"' for c in presorted(m.by_time))
    settings = "".join(f"spark.conf.set({name!r}, {value!r})\n" for name, value in conf.items())
    note = (
        ""
        if m.reproduced
        else "# NOTE: on these rows alone Spark agreed with swagkit; the disagreement needs more data\n"
    )
    return (
        f'"""Spark SQL disagrees with swagkit (frame mode {m.mode}): {m.expression} over {m.frame.label}\n'
        f"at key {m.key!r}, seq {m.seq}: Spark {m.spark!r}, swagkit {m.swagkit!r} (tolerance {m.tolerance!r}).\n"
        f'Found by `swagkit verify --spark-sql` (swagkit.verify.spark.sql)."""\n'
        "from pyspark.sql import SparkSession, Window\n"
        "from pyspark.sql import functions as F\n\n"
        "spark = SparkSession.builder.getOrCreate()\n"
        f"{settings}{note}"
        f"rows = [\n{rows}]\n"
        f"df = spark.createDataFrame(rows, schema={m.schema!r})\n"
        f"window = {m.frame.window_code(m.by_time)}\n"
        "# peers (rows with equal order values) in seq order, as the comparison has them\n"
        f'ordered = df.repartition("key").sortWithinPartitions({sort})\n'
        f'answers = ordered.select("seq", {m.expression}.over(window).alias("answer"))\n'
        f'spark_value = answers.where(F.col("seq") == {m.seq}).first()["answer"]\n'
        f"swagkit_value = {m.swagkit!r}\n"
        'print(f"Spark: {spark_value!r}  swagkit: {swagkit_value!r}")\n'
    )
