"""``swagkit verify --spark-sql``: Spark SQL's window frames against swagkit, at any size (issue 15 §2).

Seeded streams are generated on the executors (:func:`.sql.generated_frame`), every frame × value column ×
aggregate is compared in each frame mode (:func:`.sql.compare_window_frames`), and the report gives per frame
mode the rows, the values compared, how many agreed only within the float tolerance, the mismatches, the seconds
and the segment-tree frames Spark's metrics counted. A disagreement is printed as a runnable reproduction (the
minimal DataFrame, the window expression, both answers) and written next to the replay files. Exit status: 0
all agree, 1 a disagreement, 2 a usage error, 4 the Spark job failed (nothing was verified).
"""

from __future__ import annotations

import argparse
import os
import re
import time
from typing import TextIO

from .. import replayfile
from . import sql
from .sql_repro import Mismatch

__all__ = ["add_arguments", "report", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--spark-sql`` options of ``swagkit verify``."""
    group = parser.add_argument_group("Spark SQL window frames (--spark-sql)")
    group.add_argument(
        "--spark-sql",
        action="store_true",
        help="instead of the other stages, compare Spark SQL window frames (rowsBetween, rangeBetween; default and "
        "segment-tree frames) with swagkit's DABA Lite on seeded streams",
    )
    group.add_argument("--spark-sql-keys", type=int, default=24, metavar="K", help="keys (streams), default 24")
    group.add_argument(
        "--spark-sql-rows", type=int, default=100, metavar="N", help="mean rows per key (1 .. 2N-1), default 100"
    )
    group.add_argument("--spark-sql-window", type=int, default=40, metavar="W", help="rows of the count frames")
    group.add_argument("--spark-sql-span", type=int, default=30, metavar="T", help="time span of the range frames")
    group.add_argument(
        "--spark-sql-modes",
        nargs="+",
        default=None,
        metavar="MODE",
        help="frame modes: default segment_tree (default: both)",
    )
    group.add_argument(
        "--spark-sql-block-size", type=int, default=16, metavar="B", help="segment tree rows per block (>= 16)"
    )
    group.add_argument("--spark-sql-fanout", type=int, default=2, metavar="F", help="segment tree fanout (>= 2)")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run the comparison ``args`` describe; print the report on ``out``, progress on ``err``."""
    from .session import TASK_RETRIES, local_session, session_for

    modes = tuple(args.spark_sql_modes or sql.FRAME_MODES)
    problems = [m for m in modes if m not in sql.FRAME_MODES]
    if problems or min(args.spark_sql_keys, args.spark_sql_rows) < 1 or args.spark_sql_block_size < 16:
        print(
            f"swagkit verify: --spark-sql needs positive --spark-sql-keys/--spark-sql-rows, --spark-sql-block-size "
            f">= 16 and modes among {', '.join(sql.FRAME_MODES)} (got {', '.join(problems) or 'bad sizes'})",
            file=err,
        )
        return 2
    try:
        frames = sql.default_frames(args.spark_sql_window, args.spark_sql_span)
    except ValueError as exc:
        print(f"swagkit verify: {exc}", file=err)
        return 2
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("spark sql: skipped, pyspark is not installed (pip install 'swagkit[spark]')", file=out)
        return 0
    master = args.spark_master or f"local[2,{TASK_RETRIES}]"
    print(
        f"spark sql: {len(frames)} frames × value columns ival (bigint), fval (double) × {len(sql.AGGREGATES)} "
        f"aggregates, {args.spark_sql_keys} keys of ~{args.spark_sql_rows} rows (seed {args.seed}), {master}",
        file=err,
        flush=True,
    )
    started = time.perf_counter()
    try:
        session = local_session() if args.spark_master is None else session_for(args.spark_master)
        result = sql.run_at_scale(
            session,
            args.spark_sql_keys,
            args.spark_sql_rows,
            args.seed,
            frames,
            modes=modes,
            block_size=args.spark_sql_block_size,
            fanout=args.spark_sql_fanout,
        )
    except Exception as exc:  # the job failed (a JVM that would not start, lost executors ...): status 4
        print(
            f"spark sql: FAILED TO RUN ({type(exc).__name__}): {str(exc).splitlines()[0] if str(exc) else ''}\n"
            "spark sql: this is a failure of the Spark job, not a verification result",
            file=out,
        )
        return 4
    report(result, time.perf_counter() - started, out, replayfile.replay_dir())
    return 0 if result.ok else 1


def report(result: sql.SqlComparison, seconds: float, out: TextIO, repro_dir: str | None) -> None:
    """Print ``result``: findings first, each with its reproduction (also written to ``repro_dir`` when given),
    then the frames and one line per frame mode, then the verdict."""
    for mode in result.modes.values():
        for m in mode.mismatches:
            title = f"{m.mode}: {m.expression} over {m.frame.label} at {m.key}/{m.seq}"
            shown = "shows it" if m.reproduced else "does NOT show it alone (the whole key's rows are given)"
            print(f"\n==================== SPARK SQL: {title} ====================", file=out)
            print(
                f"Spark {m.spark!r}, swagkit {m.swagkit!r} (tolerance {m.tolerance:g}); a DataFrame of "
                f"{len(m.rows)} rows {shown}:\n{m.repro}",
                file=out,
            )
            if repro_dir is not None:
                print(f"repro: python {_write_repro(repro_dir, m)}", file=out)
    print("\nspark sql frames: " + ", ".join(f.label for f in result.frames), file=out)
    print(
        f"{'frame mode':<14}{'rows':>10}{'values':>14}{'inexact':>10}  {'worst (of tolerance)':<21}{'mismatches':>10}"
        f"{'seconds':>9}  segment-tree frames",
        file=out,
    )
    for c in result.modes.values():
        print(
            f"{c.frame:<14}{c.rows:>10,}{c.compared:>14,}{c.inexact:>10,}  {_worst(c.worst_by_aggregate):<21}"
            f"{c.mismatch_count:>10,}{c.seconds:>9.1f}  {c.segment_tree_frames:,} "
            f"(fallbacks {c.segment_tree_fallbacks})",
            file=out,
        )
    compared = sum(c.compared for c in result.modes.values())
    mismatches = sum(c.mismatch_count for c in result.modes.values())
    comparing = sum(c.seconds for c in result.modes.values())
    verdict = "OK" if result.ok else "FAILED"
    print(
        f"{verdict}: spark sql, {compared:,} values compared, {mismatches:,} mismatches, in {seconds:.1f}s "
        f"({compared / max(comparing, 1e-9):,.0f} values/s while comparing)",
        file=out,
    )


def _worst(shares: dict[str, float]) -> str:
    """The largest share of its tolerance an allowed difference used, and its aggregate (``-``: all exact)."""
    if not shares:
        return "-"
    aggregate = max(shares, key=shares.__getitem__)
    return f"{shares[aggregate]:.2f} {aggregate}"


def _write_repro(directory: str, mismatch: Mismatch) -> str:
    os.makedirs(directory, exist_ok=True)
    name = f"spark-sql-{mismatch.mode}-{mismatch.aggregate}-{mismatch.column}-{mismatch.key}-{mismatch.seq}.py"
    path = os.path.join(directory, re.sub(r"[^\w.-]", "_", name))
    with open(path, "w", encoding="utf-8") as f:
        f.write(mismatch.repro)
    return path
