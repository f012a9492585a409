"""swagkit's ``sliding_aggregate`` against Spark's own window frames on one DataFrame (a script, not a pytest test).

Issue 15 §3: one million rows, 100 keys (``key = id % 100``, ``seq = id // 100``: 10,000 rows per key, a double
``value``), count-based windows W in {16, 256, 4096, 65536}, the sliding sum and max of ``value`` per key, computed

* by swagkit: ``sliding_aggregate(df, partition_by="key", order_by="seq", rows=W, aggregates={sum_f64, max_f64})``
  (DABA Lite through ``window_array``, see :mod:`swagkit.optimized.spark.frames`);
* by Spark's default frame: ``sum``/``max`` over ``Window.partitionBy("key").orderBy("seq").rowsBetween(-(W-1), 0)``;
* by Spark's segment-tree frame: the same with ``spark.sql.window.segmentTree.enabled=true`` (new in Spark 4.2,
  default ``blockSize``).

Each side is forced the same way: the whole result (input columns plus both aggregates) is written to Spark's
``noop`` sink. The input is cached and counted first and every side runs once untimed (JIT, Python workers), then
each cell is the best of ``--repeat`` runs, the three sides interleaved within a round. A run longer than ``--cap``
seconds is cancelled (its job group) and printed as ``> cap`` (Spark's default frame re-aggregates every frame:
O(n·W)); one longer than 20 s is not repeated. Next to wall clock, the CPU seconds of Spark's JVM and its Python
workers (``/proc``, Linux), which other work on a shared machine skews less. Then swagkit's time at W=4096 against
the number of shuffle partitions, and once more with larger Arrow batches
(``spark.sql.execution.arrow.maxRecordsPerBatch``, which only the Arrow exchange of ``mapInArrow`` reads). Targets
of the issue: swagkit flat in W, >= 10x faster than the default frame and >= 2x faster than the segment-tree frame
at W=4096, in the same run. The machine may be shared and noisy.

    python benchmarks/spark_frames.py [--rows N] [--keys K] [--windows 16 256 ...] [--repeat R] [--cap S]
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from swagkit.optimized.spark import sliding_aggregate
from swagkit.verify.engines.spark_engine import SEGMENT_TREE_CONF, session_conf
from swagkit.verify.spark import local_session

WINDOWS = (16, 256, 4096, 65536)
PARTITIONS = (1, 2, 4, 8, 16)
TARGET_W = 4096
#: a query slower than this (seconds) is measured once
SLOW = 20.0
ARROW_BATCH_CONF = "spark.sql.execution.arrow.maxRecordsPerBatch"


@dataclass(frozen=True)
class Timing:
    """One query's seconds: wall clock, and CPU of Spark's JVM and Python workers (``None``: not measurable)."""

    wall: float
    cpu: float | None


HEADER = (
    f"{'W':>7}{'swagkit':>10}{'spark default':>15}{'spark segtree':>15}{'default/swagkit':>17}{'segtree/swagkit':>17}"
)
#: a query to time: (a function making the DataFrame, the session conf it runs under)
Query = tuple[Callable[[], Any], dict[str, str]]
#: the Arrow batch size of the extra swagkit line (Spark's default, spark.sql.execution.arrow.maxRecordsPerBatch, is
#: 10,000; the Spark frames do not use Arrow)
BIG_ARROW_BATCH = 100_000


def make_frame(spark: Any, rows: int, keys: int) -> Any:
    from pyspark.sql import functions as F

    df = spark.range(rows).select(
        (F.col("id") % keys).alias("key"),
        F.floor(F.col("id") / keys).cast("long").alias("seq"),
        ((F.col("id") * 7919) % 1000).cast("double").alias("value"),
    )
    df = df.cache()
    df.count()
    return df


def swagkit_query(df: Any, window: int, partitions: int | None = None) -> Any:
    return sliding_aggregate(
        df,
        partition_by="key",
        order_by="seq",
        rows=window,
        aggregates={"sum": ("sum_f64", "value"), "max": ("max_f64", "value")},
        num_partitions=partitions,
    )


def spark_query(df: Any, window: int) -> Any:
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    frame = Window.partitionBy("key").orderBy("seq").rowsBetween(-(window - 1), Window.currentRow)
    return df.select("*", F.sum("value").over(frame).alias("sum"), F.max("value").over(frame).alias("max"))


def spark_cpu_ticks(spark: Any) -> dict[int, int] | None:
    """CPU clock ticks (user + system) used so far by each process of the Spark JVM's tree -- the JVM and its
    Python workers --, read from ``/proc`` (Linux; ``None`` elsewhere)."""
    proc = getattr(getattr(spark.sparkContext, "_gateway", None), "proc", None)
    root = getattr(proc, "pid", None)
    if root is None or not os.path.isdir("/proc"):
        return None
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        ticks[int(entry)] = int(fields[11]) + int(fields[12])  # utime, stime
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    tree: dict[int, int] = {}
    pending = [root]
    while pending:
        pid = pending.pop()
        tree[pid] = ticks.get(pid, 0)
        pending += children.get(pid, [])
    return tree


def cpu_seconds_between(before: dict[int, int] | None, after: dict[int, int] | None) -> float | None:
    """CPU seconds the tree used between two readings: per process, so a Python worker that exits meanwhile (Spark
    stops idle ones) is not subtracted; its last moments are not counted either."""
    if before is None or after is None:
        return None
    used = sum(ticks - before.get(pid, 0) for pid, ticks in after.items())
    return used / os.sysconf("SC_CLK_TCK")


def run_capped(spark: Any, query: Any, cap: float) -> Timing | None:
    """Wall and CPU seconds to write ``query`` to the noop sink, or ``None`` when it ran longer than ``cap``
    (cancelled)."""
    group = f"spark-frames-{time.monotonic_ns()}"
    failure: list[BaseException] = []

    def write() -> None:
        spark.sparkContext.setJobGroup(group, "benchmark", interruptOnCancel=True)
        try:
            query.write.format("noop").mode("overwrite").save()
        except BaseException as err:  # cancelled, or a real failure
            failure.append(err)

    cpu_before = spark_cpu_ticks(spark)
    started = time.perf_counter()
    worker = threading.Thread(target=write, daemon=True)
    worker.start()
    worker.join(cap)
    elapsed = time.perf_counter() - started
    if worker.is_alive():
        spark.sparkContext.cancelJobGroup(group)
        worker.join()
        return None
    if failure:
        raise failure[0]
    return Timing(elapsed, cpu_seconds_between(cpu_before, spark_cpu_ticks(spark)))


def best_of(spark: Any, makers: dict[str, Query], repeat: int, cap: float) -> dict[str, Timing | None]:
    """The best wall and CPU seconds of each query (made by a function, run under its session conf) over ``repeat``
    rounds, the queries interleaved within a round (a noisy machine then weighs on all alike); a query over the cap
    is not run again (``None``), nor one slower than :data:`SLOW` seconds."""
    runs: dict[str, list[Timing]] = {name: [] for name in makers}
    capped: set[str] = set()
    for _ in range(repeat):
        for name, (make, conf) in makers.items():
            if name in capped or (runs[name] and min(t.wall for t in runs[name]) > SLOW):
                continue
            with session_conf(spark, conf):
                timing = run_capped(spark, make(), cap)
            if timing is None:
                capped.add(name)
            else:
                runs[name].append(timing)
    out: dict[str, Timing | None] = {}
    for name, timings in runs.items():
        cpus = [t.cpu for t in timings if t.cpu is not None]
        out[name] = None if name in capped else Timing(min(t.wall for t in timings), min(cpus) if cpus else None)
    return out


def _seconds(timing: Timing | None, which: str) -> float | None:
    if timing is None:
        return None
    value: float | None = timing.wall if which == "wall" else timing.cpu
    return value


def _row(window: int, found: dict[str, Timing | None], which: str, cap: float) -> str:
    ours, default, tree = (_seconds(found[name], which) for name in ("swagkit", "default", "tree"))
    if which == "cpu" and ours is None:
        return f"{window:>7}{'?':>10}"
    cells = [cell(ours, cap), cell(default, cap), cell(tree, cap)]
    return (
        f"{window:>7}{cells[0]:>10}{cells[1]:>15}{cells[2]:>15}"
        f"{ratio(default, ours, cap):>17}{ratio(tree, ours, cap):>17}"
    )


def cell(seconds: float | None, cap: float) -> str:
    return f"> {cap:.0f}" if seconds is None else f"{seconds:.2f}"


def ratio(theirs: float | None, ours: float | None, cap: float) -> str:
    if ours is None:
        return "?"
    return f"> {cap / ours:.1f}x" if theirs is None else f"{theirs / ours:.1f}x"


def print_targets(results: dict[int, dict[str, Timing | None]], which: str, cap: float) -> None:
    """The issue's three targets, judged on wall clock or on CPU seconds."""
    ours_times = [s for found in results.values() if (s := _seconds(found["swagkit"], which)) is not None]
    if not ours_times:
        return
    print(f"\n== targets ({'wall clock' if which == 'wall' else 'CPU seconds'}) ==")
    if len(ours_times) > 1:
        spread = max(ours_times) / min(ours_times)
        print(f"swagkit flat in W (slowest / fastest <= 1.5):  {spread:.2f}  {'OK' if spread <= 1.5 else 'MISSED'}")
    found = results.get(TARGET_W)
    ours = _seconds(found["swagkit"], which) if found is not None else None
    if found is None or ours is None:
        return
    default, tree = _seconds(found["default"], which), _seconds(found["tree"], which)
    if default is not None or found["default"] is None:  # capped: at least cap / ours
        vs_default = (default if default is not None else cap) / ours
        print(
            f">= 10x faster than the default frame at {TARGET_W}: {'>' if default is None else ''}{vs_default:.1f}x  "
            f"{'OK' if vs_default >= 10 else 'MISSED'}"
        )
    if tree is not None:
        verdict = "OK" if tree / ours >= 2 else "MISSED"
        print(f">= 2x faster than the segment tree at {TARGET_W}:  {tree / ours:.1f}x  {verdict}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--keys", type=int, default=100)
    ap.add_argument("--windows", type=int, nargs="+", default=list(WINDOWS))
    ap.add_argument("--partitions", type=int, nargs="+", default=list(PARTITIONS))
    ap.add_argument("--repeat", type=int, default=3, help="runs per cell; the best is printed")
    ap.add_argument("--cap", type=float, default=120.0, help="seconds before a run is cancelled")
    args = ap.parse_args(argv)

    import swagkit.optimized as opt

    spark = local_session("swagkit-bench-frames")
    spark.sparkContext.setLogLevel("FATAL")  # a cancelled (capped) job logs its killed tasks as errors
    print(
        f"spark {spark.version}, master {spark.sparkContext.master}, shuffle partitions "
        f"{spark.conf.get('spark.sql.shuffle.partitions')}, swagkit.optimized COMPILED={opt.COMPILED}"
    )
    print(
        f"{args.rows} rows, {args.keys} keys, sliding sum and max of a double; best of {args.repeat}, cap {args.cap}s"
    )
    df = make_frame(spark, args.rows, args.keys)
    warm_up: dict[str, Query] = {
        "swagkit": (lambda: swagkit_query(df, 256), {}),
        "default": (lambda: spark_query(df, 256), {SEGMENT_TREE_CONF: "false"}),
        "tree": (lambda: spark_query(df, 256), {SEGMENT_TREE_CONF: "true"}),
    }
    best_of(spark, warm_up, 3, args.cap)  # JIT, Python workers: not timed

    results: dict[int, dict[str, Timing | None]] = {}
    print("\n== seconds per query (noop sink): wall clock, best of the runs ==")
    print(HEADER)
    for w in args.windows:
        queries: dict[str, Query] = {
            "swagkit": (lambda: swagkit_query(df, w), {}),
            "default": (lambda: spark_query(df, w), {SEGMENT_TREE_CONF: "false"}),
            "tree": (lambda: spark_query(df, w), {SEGMENT_TREE_CONF: "true"}),
        }
        results[w] = found = best_of(spark, queries, args.repeat, args.cap)
        print(_row(w, found, "wall", args.cap), flush=True)
    if any(t is not None and t.cpu is not None for found in results.values() for t in found.values()):
        print(
            "\n== CPU seconds of Spark's JVM and its Python workers, least of the runs (a shared machine skews them "
            "less) =="
        )
        print(HEADER)
        for w, found in results.items():
            print(_row(w, found, "cpu", args.cap))

    print(f"\n== swagkit at W={TARGET_W} against the number of shuffle partitions (wall, CPU) ==")
    print(f"{'partitions':>10}{'wall':>10}{'cpu':>10}")
    for p in args.partitions:
        timing = best_of(spark, {"p": (lambda: swagkit_query(df, TARGET_W, p), {})}, args.repeat, args.cap)["p"]
        print(f"{p:>10}{cell(_seconds(timing, 'wall'), args.cap):>10}{cell(_seconds(timing, 'cpu'), args.cap):>10}")

    big_batches = {ARROW_BATCH_CONF: str(BIG_ARROW_BATCH)}
    big = best_of(spark, {"big": (lambda: swagkit_query(df, TARGET_W), big_batches)}, args.repeat, args.cap)["big"]
    tree_w = results.get(TARGET_W, {}).get("tree")
    print(
        f"\nswagkit at W={TARGET_W} with {ARROW_BATCH_CONF}={BIG_ARROW_BATCH} (default 10000; Spark's frames do not "
        f"use Arrow): wall {cell(_seconds(big, 'wall'), args.cap)} s (segtree/swagkit "
        f"{ratio(_seconds(tree_w, 'wall'), _seconds(big, 'wall'), args.cap)}), "
        f"CPU {cell(_seconds(big, 'cpu'), args.cap)} s (segtree/swagkit "
        f"{ratio(_seconds(tree_w, 'cpu'), _seconds(big, 'cpu'), args.cap)})"
    )

    for which in ("wall", "cpu"):
        print_targets(results, which, args.cap)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
