"""``swagkit verify --spark-sql``: Spark SQL's window frames checked by the engines' exact oracle (issue 15 §2,
issue 24 §1).

There is one code path: the window engines' (:mod:`swagkit.verify.engines`). Spark SQL is two of its engines --
``spark``, Spark's default window frame, and ``spark-segment-tree``, its block-chunked segment tree of Spark 4.2+
with small blocks (:class:`~swagkit.verify.engines.spark_engine.SparkSegmentTreeEngine`) -- run on this command's
session (the embedded local Spark, or ``--spark-master``) over the engines' generated cases (ROWS and RANGE
frames, ties, NULLs, mixed magnitudes; ``--spark-sql-rows`` caps a case's table), each answer judged exactly,
each finding shrunk and written as a standalone repro with the engine's own settings. The report is
``swagkit engines``' (the table, new findings in full, the known ones counted), followed by the segment-tree
frames Spark's own metrics counted, so a run shows the tree really ran. Exit status: 0 no new finding, 1 a new
finding, 2 a usage error, 4 the Spark job failed (nothing was verified).
"""

from __future__ import annotations

import argparse
import time
from typing import Any, TextIO

from .. import replayfile

__all__ = ["FRAME_MODES", "add_arguments", "run"]

#: ``--spark-sql-modes`` -> the engine that runs it
FRAME_MODES = {"default": "spark", "segment_tree": "spark-segment-tree"}
DEFAULT_CASES = 12
DEFAULT_ROWS = 1500  # the generator's own default (Features.max_rows): the bundled known findings were written with it


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--spark-sql`` options of ``swagkit verify``."""
    group = parser.add_argument_group("Spark SQL window frames (--spark-sql)")
    group.add_argument(
        "--spark-sql",
        action="store_true",
        help="instead of the other stages, check Spark SQL's window frames (default and segment-tree) with the "
        "engines' exact oracle (swagkit engines --engine spark spark-segment-tree)",
    )
    group.add_argument(
        "--spark-sql-cases", type=int, default=DEFAULT_CASES, metavar="N", help=f"cases (default {DEFAULT_CASES})"
    )
    group.add_argument(
        "--spark-sql-rows",
        type=int,
        default=DEFAULT_ROWS,
        metavar="N",
        help=f"largest table of a case (default {DEFAULT_ROWS}; most cases are far smaller)",
    )
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
    """Run the check ``args`` describe; the report on ``out``, progress on ``err``."""
    modes = tuple(dict.fromkeys(args.spark_sql_modes or FRAME_MODES))
    problems = [m for m in modes if m not in FRAME_MODES]
    if problems or min(args.spark_sql_cases, args.spark_sql_rows) < 1 or args.spark_sql_block_size < 16:
        print(
            f"swagkit verify: --spark-sql needs positive --spark-sql-cases/--spark-sql-rows, --spark-sql-block-size "
            f">= 16, --spark-sql-fanout >= 2 and modes among {', '.join(FRAME_MODES)} "
            f"(got {', '.join(problems) or 'bad sizes'})",
            file=err,
        )
        return 2
    if args.spark_sql_fanout < 2:
        print("swagkit verify: --spark-sql-fanout must be at least 2", file=err)
        return 2
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("spark sql: skipped, pyspark is not installed (pip install 'swagkit[spark]')", file=out)
        return 0
    from ..cli.engines_cmd import engines_command
    from .session import local_session, session_for

    names = [FRAME_MODES[m] for m in modes]
    started = time.perf_counter()
    try:
        session = local_session() if args.spark_master is None else session_for(args.spark_master)
    except Exception as exc:  # a JVM that would not start, an unreachable master: status 4
        return _job_failed(exc, out)
    options: dict[str, dict[str, Any]] = {"spark": {"session": session}}
    tree = {"session": session, "block_size": args.spark_sql_block_size, "fanout": args.spark_sql_fanout}
    options["spark-segment-tree"] = tree
    engines_args = argparse.Namespace(
        engine=names,
        budget=24 * 3600.0,  # --spark-sql-cases bounds the run
        cases=args.spark_sql_cases,
        max_rows=args.spark_sql_rows,
        seed=args.seed,
        out=replayfile.replay_dir() or "swagkit-engines",
        known=None,
        accept=None,
        shrink_budget=10.0,
        spark=False,
        master=None,
        engine_options=options,
        made={},
    )
    print(
        f"spark sql: {', '.join(names)}; {args.spark_sql_cases} cases of at most {args.spark_sql_rows} rows "
        f"(seed {args.seed}), {args.spark_master or 'local Spark'}",
        file=err,
        flush=True,
    )
    try:
        status = engines_command(engines_args, out, err)
    except Exception as exc:  # the Spark job itself failed (lost executors ...): not a verification result
        return _job_failed(exc, out)
    tree_engine = engines_args.made.get("spark-segment-tree")
    if tree_engine is not None:
        print(
            f"spark sql: Spark's metrics counted {tree_engine.segment_tree_frames:,} segment-tree frames "
            f"({tree_engine.segment_tree_fallbacks:,} fell back to the default frame); "
            f"{time.perf_counter() - started:.1f} s",
            file=out,
        )
    return status


def _job_failed(exc: BaseException, out: TextIO) -> int:
    first = str(exc).splitlines()[0] if str(exc) else ""
    print(
        f"spark sql: FAILED TO RUN ({type(exc).__name__}): {first}\n"
        "spark sql: this is a failure of the Spark job, not a verification result",
        file=out,
    )
    return 4
