"""The ``swagkit`` command: ``swagkit verify`` and ``swagkit list``.

``swagkit verify`` checks the monoid laws of every library monoid and runs the state machine of the algorithm's
kind (:mod:`swagkit.verify.kinds`, through :func:`swagkit.verify.machine.run_machine`) for every registered
algorithm × monoid × implementation, skipping (with a note)
combinations that cannot run: an implementation that does not provide the algorithm (e.g. ``optimized`` before
it is built), a monoid lacking a required property, or a monoid without an input strategy. Progress goes to
stderr, one line per task; the summary table and any counterexamples go to stdout; both say which
implementation ran (compiled, or the pure-Python fallback). The exit status is 0 when everything passed, 1 on a
failure, 2 on a usage error, 3 when the selection runs nothing (no combination of the requested algorithms,
monoids and implementations can run, or a requested implementation provides none of them), 4 when the Spark
stage could not run (the job failed, not a verification: e.g. Spark lost its executors).

``swagkit verify --impl MODULE:FACTORY --kind fifo|handles|ooo`` (or ``--exec CMD``) verifies a user's own
aggregator instead (:mod:`swagkit.verify.impl`), writing each failure as a replay file that ``swagkit replay FILE``
re-runs (:mod:`swagkit.verify.replay`).

``--crosshair`` adds a symbolic stage: CrossHair checks the contracts of :mod:`swagkit.verify.symbolic` (the
in-order algorithms and FiBA against their models, 003's Claim 1) on the pure-Python layers.

Runs are reproducible: no example database, and each task's Hypothesis seed is derived from ``--seed`` (default
0) and the task name. A failure prints Hypothesis' shrunk step program and a command that reruns just it.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TextIO

from swagkit.spec.library import LIBRARY

from . import impl as user_impl
from . import registry
from .kinds.fifo.contract import Contract
from .machine import DEFAULT_MAX_WINDOW
from .runner import Result, Task, _first_line, run_task
from .strategies import strategy_for

__all__ = ["main", "build_parser", "DEFAULT_EXAMPLES", "DEFAULT_STEPS"]

DEFAULT_EXAMPLES = 12
DEFAULT_STEPS = 40
QUICK_EXAMPLES = 8
QUICK_STEPS = 25


def _default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``swagkit`` (exposed for documentation and tests)."""
    parser = argparse.ArgumentParser(
        prog="swagkit",
        description="Verification suite for sliding-window aggregation (SWAG) algorithms.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    v = sub.add_parser(
        "verify",
        help="check monoid laws and run stateful verification of algorithms",
        description="Check the library's monoid laws, then run the Hypothesis state machine (model, invariants, "
        "⊗ budgets, space) for every algorithm × monoid × implementation.",
    )
    v.add_argument("--algorithm", action="extend", nargs="+", metavar="ID", help="algorithm ids (default: all)")
    v.add_argument("--monoid", action="extend", nargs="+", metavar="ID", help="library monoid ids (default: all)")
    v.add_argument(
        "--implementation",
        action="extend",
        nargs="+",
        metavar="ID",
        help="implementations, e.g. reference optimized (default: all that are available)",
    )
    v.add_argument("--examples", type=int, metavar="N", help=f"examples per combination (default {DEFAULT_EXAMPLES})")
    v.add_argument("--steps", type=int, metavar="N", help=f"max steps per example (default {DEFAULT_STEPS})")
    v.add_argument("--seed", type=int, default=0, metavar="S", help="base seed of the Hypothesis search (default 0)")
    v.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: {QUICK_EXAMPLES} examples × {QUICK_STEPS} steps unless given explicitly",
    )
    v.add_argument("--max-window", type=int, default=DEFAULT_MAX_WINDOW, metavar="N", help="largest window size")
    v.add_argument("--jobs", "-j", type=int, default=_default_jobs(), metavar="N", help="worker processes")
    group = v.add_mutually_exclusive_group()
    group.add_argument("--no-laws", action="store_true", help="skip the monoid law checks")
    group.add_argument("--laws-only", action="store_true", help="only check the monoid laws")
    v.add_argument(
        "--no-spark",
        action="store_true",
        help="skip the differential stage on Spark (reference vs optimized vs model or exact oracle, and the "
        "q-digest merge run; local Spark by default)",
    )
    v.add_argument(
        "--spark",
        action="store_true",
        help="only the Spark stages, at scale: long traces of every window shape against a fast oracle, for the "
        "registry's algorithms or --impl/--exec (--spark-ops operations; findings come back as replay files)",
    )
    v.add_argument(
        "--spark-ops",
        type=int,
        default=None,
        metavar="N",
        help="operations of the Spark scale run (default 1,000,000 in a full run, 10,000,000 with --spark)",
    )
    v.add_argument("--spark-seeds", type=int, default=2, metavar="N", help="seeded runs per combination on Spark")
    v.add_argument("--spark-steps", type=int, default=1000, metavar="N", help="operations per Spark run")
    v.add_argument(
        "--crosshair",
        action="store_true",
        help="also check the symbolic contracts (swagkit.verify.symbolic) with CrossHair (about a minute)",
    )
    v.add_argument(
        "--crosshair-timeout",
        type=float,
        default=8.0,
        metavar="S",
        help="CrossHair's time per contract, seconds (default 8)",
    )
    v.add_argument(
        "--spark-master",
        default=None,
        metavar="URL",
        help="Spark master (default: the embedded local[2] session on loopback)",
    )
    _add_impl_options(v)
    from .spark import sql_cli  # --spark-sql (verify/spark/sql_cli.py)

    sql_cli.add_arguments(v)
    rep = sub.add_parser(
        "replay",
        help="re-run a replay file (a shrunk failing trace) against an implementation",
        description="Re-run a replay file written by a failing `swagkit verify --impl/--exec` exactly, against the "
        "implementation it names (or the one given): exit 1 while it still fails, 0 when it passes.",
    )
    rep.add_argument("file", metavar="FILE", help="the .jsonl replay file")
    who = rep.add_mutually_exclusive_group()
    who.add_argument("--impl", metavar="MODULE:FACTORY", help="the Python factory to run it against")
    who.add_argument("--exec", dest="exec_cmd", metavar="CMD", help="the protocol program to run it against")
    from . import explain

    explain.add_arguments(
        sub.add_parser(
            "explain",
            help="print the reference's state after every operation, in the papers' notation",
            description="Run operations on an algorithm's reference implementation and draw its state after each "
            "(sublists and pointers, partial aggregates like cd..g, trees, ranges); --svg writes the same pictures.",
        )
    )
    lst = sub.add_parser("list", help="list algorithms, monoids and implementations")
    lst.add_argument("--markdown", action="store_true", help="print the README guarantee table")
    from .corpus import add_subparser as add_corpus_subparser  # swagkit corpus export|run (verify/corpus/)

    add_corpus_subparser(sub)
    from .bench import add_subparser as add_bench_subparser  # swagkit bench (verify/bench/)

    add_bench_subparser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``swagkit`` console script; returns the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error; keep main() callable in-process
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        if args.command == "bench":
            from .bench import run as bench_run

            return bench_run(args, sys.stdout, sys.stderr)
        if args.command == "verify":
            return verify(args, sys.stdout, sys.stderr)
        if args.command == "list":
            return list_command(args, sys.stdout)
        if args.command == "replay":
            return replay_command(args, sys.stdout, sys.stderr)
        if args.command == "corpus":
            return int(args.corpus_command(args, sys.stdout, sys.stderr))
        if args.command == "explain":
            from . import explain

            return explain.run(args, sys.stdout, sys.stderr)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    parser.print_help(sys.stderr)
    return 2


# ----------------------------------------------------------------------------------------------------------------
# swagkit verify


def _check_ids(kind: str, given: Sequence[str] | None, known: Sequence[str], err: TextIO) -> list[str] | None:
    if not given:
        return list(known)
    unknown = [g for g in given if g not in known]
    if unknown:
        print(f"swagkit verify: unknown {kind} {', '.join(unknown)} (known: {', '.join(known)})", file=err)
        return None
    return list(dict.fromkeys(given))


def plan(args: argparse.Namespace, err: TextIO) -> tuple[list[Task], dict[str, int]] | int:
    """The tasks to run and the skipped combinations grouped by reason (or an exit status on a usage error)."""
    algos = _check_ids("algorithm", args.algorithm, registry.algorithm_ids(), err)
    monoids = _check_ids("monoid", args.monoid, registry.monoid_ids(), err)
    impls = _check_ids("implementation", args.implementation, registry.implementation_ids(), err)
    if algos is None or monoids is None or impls is None:
        return 2
    examples = args.examples if args.examples is not None else QUICK_EXAMPLES if args.quick else DEFAULT_EXAMPLES
    steps = args.steps if args.steps is not None else QUICK_STEPS if args.quick else DEFAULT_STEPS
    if examples < 1 or steps < 1 or args.max_window < 1:
        print("swagkit verify: --examples, --steps and --max-window must be positive", file=err)
        return 2
    tasks: list[Task] = []
    if not args.no_laws:
        tasks += [Task("laws", m, None, examples, 0, args.seed) for m in monoids]
    skipped: dict[str, int] = {}
    if not args.laws_only:
        for combo in registry.combos(algos, monoids, impls):
            reason = combo.skip or _machine_skip(combo)
            if reason is not None:
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            tasks.append(Task("machine", combo.monoid, combo, examples, steps, args.seed, args.max_window))
        if not any(t.combo is not None for t in tasks):
            reasons = "; ".join(f"{n} × {r}" for r, n in sorted(skipped.items())) or "no combination selected"
            print(f"swagkit verify: the selection runs no combination ({reasons}); nothing was verified", file=err)
            return 3
        if args.implementation:
            ran = {t.combo.implementation for t in tasks if t.combo is not None}
            idle = [i for i in impls if i not in ran]
            if idle:
                print(
                    f"swagkit verify: implementation {', '.join(idle)} provides none of the requested "
                    f"combinations (is {', '.join(registry.IMPLEMENTATIONS[i].module for i in idle)} built?)",
                    file=err,
                )
                return 3
    return tasks, skipped


def _machine_skip(combo: registry.Combo) -> str | None:
    try:
        strategy_for(combo.monoid)
    except KeyError:
        return "no input strategy for the monoid"
    return None


def _execute(tasks: Sequence[Task], jobs: int, on_result: Callable[[Result], None]) -> list[Result]:
    """Run tasks serially or in forked worker processes (fork keeps registrations made at run time)."""
    results: list[Result] = []
    if jobs <= 1 or len(tasks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        for t in tasks:
            results.append(run_task(t))
            on_result(results[-1])
        return results
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(run_task, t) for t in tasks]
        for fut in as_completed(futures):
            results.append(fut.result())
            on_result(results[-1])
    order = {t: i for i, t in enumerate(tasks)}
    results.sort(key=lambda r: order[r.task])
    return results


def verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit verify``: run the plan, show progress on ``err`` and the summary on ``out``."""
    if args.spark:
        return spark_only(args, out, err)
    if args.spark_sql:
        from .spark import sql_cli

        return sql_cli.run(args, out, err)
    if args.impl is not None or args.exec_cmd is not None:
        return impl_command(args, out, err)
    planned = plan(args, err)
    if isinstance(planned, int):
        return planned
    tasks, skipped = planned
    machines = sum(1 for t in tasks if t.combo is not None)
    laws = len(tasks) - machines
    example = next((t for t in tasks if t.combo is not None), tasks[0] if tasks else None)
    print(
        f"swagkit verify: {laws} monoid law sets + {machines} combinations"
        + (f", {example.examples} examples × {example.steps} steps" if example and machines else "")
        + f", seed {args.seed}, {args.jobs} job(s)",
        file=err,
    )
    impls = sorted({t.combo.implementation for t in tasks if t.combo is not None})
    if impls:
        print(f"implementations: {', '.join(_describe_implementation(i) for i in impls)}", file=err)
    start = time.perf_counter()
    width = len(str(len(tasks)))
    done = 0

    def progress(r: Result) -> None:
        nonlocal done
        done += 1
        examples = "-" if r.failed else str(r.examples)
        steps = "-" if r.failed or r.task.combo is None else str(r.steps)
        counts = f"{examples:>4} ex {steps:>6} steps"
        print(
            f"[{done:>{width}}/{len(tasks)}] {r.task.name:<45} {r.status:<5} {counts} {r.seconds:7.2f}s"
            + (f"  {r.note}" if r.failed else ""),
            file=err,
            flush=True,
        )

    results = _execute(tasks, args.jobs, progress)
    elapsed = time.perf_counter() - start
    print_summary(results, skipped, elapsed, args.seed, out)
    if impls:
        print(f"implementations: {', '.join(_describe_implementation(i) for i in impls)}", file=out)
    status = 1 if any(r.failed for r in results) else 0
    if args.crosshair:
        status = max(status, crosshair_stage(args.crosshair_timeout, out, err))
    if not args.no_spark and not args.laws_only:
        status = max(status, spark_stage(args, out, err))
    return status


def crosshair_stage(timeout: float, out: TextIO, err: TextIO) -> int:
    """CrossHair over :mod:`swagkit.verify.symbolic` (PEP 316 contracts; pure Python only): 0 when no
    counterexample was found within ``timeout`` seconds per contract, 1 with CrossHair's report otherwise."""
    from . import symbolic

    print(f"crosshair: contracts of swagkit.verify.symbolic, {timeout:g} s per contract", file=err, flush=True)
    start = time.perf_counter()
    # a file path, not a module name: CrossHair's module lookup trips over the namespace package
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "crosshair",
            "check",
            "--analysis_kind=PEP316",
            f"--per_condition_timeout={timeout:g}",
            str(symbolic.__file__),
        ],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode == 0:
        print(f"crosshair: no counterexample ({seconds:.1f}s)", file=out)
        return 0
    print(f"crosshair: FAILED (exit {done.returncode}, {seconds:.1f}s)", file=out)
    print((done.stdout + done.stderr).rstrip(), file=out)
    return 1


def spark_stage(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Differential runs at scale: reference vs optimized vs the model, fanned out on Spark
    (:mod:`swagkit.verify.spark`): every algorithm both implementations provide whose kind has a differential
    run (FIFO, FiBA, paper 004's structures: seeded paper-like and adversarial streams, answers and snapshots in
    lock-step, the spec checkers against the exact oracle). Then the further stages the selected algorithms'
    kinds offer (the sketch kind's mergeability run: digests per partition, merged by ``reduce``, checked
    against the whole stream)."""
    from . import spark

    runnable = spark.differential_algorithms(args.algorithm)
    algos = [a for a in (args.algorithm or runnable) if a in runnable]
    # an optimized class that *is* the reference class (e.g. recalc) has nothing to be compared with
    algos = [a for a in algos if registry.resolve_class(a, "optimized") not in (None, registry.resolve_class(a))]
    monoids = [m for m in (args.monoid or registry.monoid_ids()) if m in LIBRARY]
    if not algos or not monoids:
        print(
            "spark: nothing to compare (no algorithm with both implementations and a Spark runner selected)", file=out
        )
        return 0
    if args.spark_seeds < 1 or args.spark_steps < 1:
        print("swagkit verify: --spark-seeds and --spark-steps must be positive", file=err)
        return 2
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("spark: skipped, pyspark is not installed (pip install 'swagkit[spark]')", file=out)
        return 0
    tasks = spark.make_tasks(algos, monoids, args.spark_seeds, args.spark_steps)
    print(
        f"spark: {len(tasks)} differential runs of {args.spark_steps} operations "
        f"({args.spark_master or f'local[2,{spark.TASK_RETRIES}]'})",
        file=err,
        flush=True,
    )
    start = time.perf_counter()
    try:
        session = spark.local_session() if args.spark_master is None else spark.session_for(args.spark_master)
        results = spark.run_on_spark(session, tasks)
    except Exception as exc:  # the job failed (SparkJobError, a JVM that would not start ...): status 4
        print(
            f"spark: FAILED TO RUN ({type(exc).__name__}): {str(exc).splitlines()[0] if str(exc) else ''}\n"
            "spark: this is a failure of the Spark job, not a verification result; nothing was compared",
            file=out,
        )
        return 4
    summary = spark.summarize(results)
    elapsed = time.perf_counter() - start
    for failure, failed in zip(summary["failures"], [r for r in results if not r.ok]):
        t = failure["task"]
        print(
            f"\n==================== SPARK DIFF: {t['algorithm']}/{t['monoid']} seed {t['seed']} "
            f"====================\n{failure['detail']}",
            file=out,
        )
        print(
            'reproduce: python -c "from swagkit.verify.spark import DiffTask, run_task; '
            f'print(run_task(DiffTask({t["algorithm"]!r}, {t["monoid"]!r}, {t["seed"]}, {t["steps"]})))"',
            file=out,
        )
        path = spark.replay_failure(failed)  # the seed re-run on the driver, cut and shrunk
        if path:
            print(f"replay: swagkit replay {shlex.quote(path)}", file=out)
    verdict = "FAILED" if summary["failures"] else "OK"
    print(
        f"\n{verdict}: spark differential, {summary['tasks']} runs, {summary['operations']:,} operations and "
        f"{summary['combines']:,} ⊗ calls compared (optimized {'compiled' if summary['compiled'] else 'pure-Python'}) "
        f"in {elapsed:.1f}s",
        file=out,
    )
    if summary.get("soft"):
        print(
            "spark: soft findings (reported, not failures): "
            + ", ".join(f"{name} ×{count}" for name, count in summary["soft"]),
            file=out,
        )
    status = 1 if summary["failures"] else 0
    status = max(status, _kind_stages(args, session, sorted({t.algorithm for t in tasks}, key=algos.index), out, err))
    status = max(status, _scale(args, algos, out, err))
    if not args.algorithm:  # the whole main job: Spark SQL's frames against swagkit too (about 10 s)
        from .spark import sql_cli

        status = max(status, sql_cli.run(args, out, err))
    return status


def _scale(args: argparse.Namespace, algos: Sequence[str] | None, out: TextIO, err: TextIO) -> int:
    """The scale stage over the registry's ``algos`` (:mod:`swagkit.verify.spark.stage`)."""
    from .spark import stage

    return stage.from_args(args, out, err, algos)


def spark_only(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit verify --spark``: the scale run only, for the registry's algorithms or ``--impl``/``--exec``."""
    from .spark import stage

    unknown = [a for a in args.algorithm or () if a not in registry.algorithm_ids()]
    if unknown:
        print(f"swagkit verify: unknown algorithm {', '.join(unknown)}", file=err)
        return 2
    return stage.from_args(args, out, err, args.algorithm)


def _kind_stages(args: argparse.Namespace, session: Any, algos: Sequence[str], out: TextIO, err: TextIO) -> int:
    """The further Spark stages of the selected algorithms' kinds (``Kind.spark_stages``: the sketch kind's
    merge run), each given the (reference, optimized) subjects of its kind's selected algorithms."""
    status = 0
    for kind in dict.fromkeys(registry.algorithm(a).kind for a in algos):
        subjects = [
            (registry.subject(a, "reference"), registry.subject(a, "optimized"))
            for a in algos
            if registry.algorithm(a).kind is kind
        ]
        for stage in kind.spark_stages:
            status = max(status, stage(session, subjects, args.spark_seeds, args.spark_steps, out, err))
    return status


def _describe_implementation(impl_id: str) -> str:
    info = registry.IMPLEMENTATIONS.get(impl_id)
    compiled = info.compiled() if info is not None else None
    if compiled is None:
        return impl_id
    if compiled:
        return f"{impl_id} (compiled)"
    forced = os.environ.get("SWAGKIT_PUREPYTHON", "") not in ("", "0")
    return f"{impl_id} (pure-Python fallback{', as SWAGKIT_PUREPYTHON asks' if forced else ' -- NOT compiled'})"


def _table(rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append("  ".join(cells).rstrip())
    return lines


def print_summary(results: Sequence[Result], skipped: dict[str, int], elapsed: float, seed: int, out: TextIO) -> None:
    """The summary table, skip notes, counterexamples with reproduce commands, and a verdict line."""
    rows = [["algorithm", "monoid", "impl", "examples", "steps", "result", "time"]]
    for r in results:
        c = r.task.combo
        rows.append(
            [
                c.algorithm if c else "laws",
                r.task.monoid,
                c.implementation if c else "-",
                str(r.examples) if not r.failed else "-",
                str(r.steps) if c and not r.failed else "-",
                r.status + (f" ({r.note})" if r.note and not r.failed else ""),
                f"{r.seconds:.2f}s",
            ]
        )
    print("\n".join(_table(rows, right={3, 4, 6})), file=out)
    for reason, count in sorted(skipped.items()):
        print(f"skipped {count} combination(s): {reason}", file=out)
    failures = [r for r in results if r.failed]
    for r in failures:
        print(f"\n{'=' * 20} {r.status}: {r.task.name} {'=' * 20}", file=out)
        print(r.counterexample, file=out)
        print(f"reproduce: {r.reproduce}", file=out)
        if r.replay:
            print(f"replay: swagkit replay {shlex.quote(r.replay)}", file=out)
    if failures:
        print(f"\nFAILED: {len(failures)} of {len(results)} tasks failed ({elapsed:.1f}s, seed {seed})", file=out)
    else:
        machines = sum(1 for r in results if r.task.combo is not None)
        print(
            f"\nOK: {machines} combinations and {len(results) - machines} monoid law sets passed "
            f"in {elapsed:.1f}s (seed {seed})",
            file=out,
        )


# ----------------------------------------------------------------------------------------------------------------
# swagkit list


def list_command(args: argparse.Namespace, out: TextIO) -> int:
    """``swagkit list``: algorithms with their guarantees, monoids with properties, implementations."""
    if args.markdown:
        print(registry.guarantees_markdown(), file=out)
        return 0
    rows = [
        [
            "algorithm",
            "title",
            "paper",
            "query",
            "insert",
            "evict",
            "amortized",
            "worst",
            "space",
            "requires",
            "implementations",
        ]
    ]
    for a in registry.ALGORITHMS.values():
        impls = ",".join(registry.available_implementations(a.id)) or "-"
        rows.append(
            [
                a.id,
                a.title,
                a.paper,
                a.worst_query,
                a.worst_insert,
                a.worst_evict,
                a.amortized,
                a.worst_case,
                a.space,
                a.requirement_text(),
                impls,
            ]
        )
    print("Algorithms (⊗ invocations per operation, worst case; space in stored partial aggregates):", file=out)
    print("\n".join("  " + ln for ln in _table(rows, right=set())), file=out)
    approximate = [a for a in registry.ALGORITHMS.values() if a.error]
    if approximate:  # paper 004's structures: no ⊗, an accuracy guarantee instead
        rows = [["structure", "kind", "guarantee", "space"]] + [
            [a.id, a.kind.name, a.error, a.space] for a in approximate
        ]
        print("\nApproximate structures (take no monoid; error and space bounds are checked contracts):", file=out)
        print("\n".join("  " + ln for ln in _table(rows, right=set())), file=out)
    rows = [["monoid", "properties", "equality", "fast path", "strategy"]]
    for mid, entry in LIBRARY.items():
        m = entry.factory()
        props = ",".join(p for p, v in m.properties().items() if v) or "-"
        try:
            strategy_for(mid)
            has_strategy = "yes"
        except KeyError:
            has_strategy = "no"
        rows.append([mid, props, m.tolerance, m.fast_path or "-", has_strategy])
    print("\nMonoids:", file=out)
    print("\n".join("  " + ln for ln in _table(rows, right=set())), file=out)
    rows = [["implementation", "module", "provides", "compiled", "description"]]
    for impl in registry.IMPLEMENTATIONS.values():
        provided = [a for a in registry.ALGORITHMS if registry.resolve_class(a, impl.id) is not None]
        compiled = impl.compiled()
        rows.append(
            [
                impl.id,
                impl.module,
                f"{len(provided)}/{len(registry.ALGORITHMS)}",
                "-" if compiled is None else "yes" if compiled else "no",
                impl.description,
            ]
        )
    print("\nImplementations:", file=out)
    print("\n".join("  " + ln for ln in _table(rows, right=set())), file=out)
    return 0


# ----------------------------------------------------------------------------------------------------------------
# swagkit verify --impl / --exec, and swagkit replay


def _add_impl_options(v: argparse.ArgumentParser) -> None:
    g = v.add_argument_group("your own aggregator (instead of the registered algorithms)")
    who = g.add_mutually_exclusive_group()
    who.add_argument("--impl", metavar="MODULE:FACTORY", help="verify FACTORY(monoid), importable from . or PYTHONPATH")
    who.add_argument("--exec", dest="exec_cmd", metavar="CMD", help="verify a program speaking docs/protocol.md")
    g.add_argument("--kind", default="fifo", choices=sorted(user_impl.KIND_NAMES), help="its ADT kind (default fifo)")
    g.add_argument("--times", default="int", choices=sorted(user_impl.TIMES), help="ooo timestamps (default int)")
    g.add_argument("--tolerance", type=float, metavar="X", help="relative/absolute tolerance of answers")
    g.add_argument("--checker", metavar="ALGO", help="run ALGO's paper invariants on the object's snapshot()")
    g.add_argument("--budget", metavar="ALGO", help="check ALGO's ⊗ bounds through the object's combine_count")
    g.add_argument("--values", metavar="MODULE:STRATEGY", help="input strategy of a MODULE:OBJ monoid")
    g.add_argument("--replay-dir", default=".swagkit/replays", metavar="DIR", help="where failures are written")
    g.add_argument("--no-misuse", action="store_true", help="skip the misuse rules (evict on empty, dead handles)")
    g.add_argument("--no-faults", action="store_true", help="skip the rules where a ⊗ call raises once")
    g.add_argument(
        "--contract",
        metavar="SPEC",
        help="what a fifo window promises, comma-separated: capacity=W (an insert into a full window evicts the "
        "oldest), static (no evicts), no-evict-before-full (evicts only drain a full window), no-empty-ops (never "
        "empty once filled, never queried empty), ranges=R1/R2/... (query_range/query_all ranges)",
    )
    g.add_argument(
        "--timeout", type=float, default=10.0, metavar="S", help="--exec: seconds a reply may take (default 10)"
    )


def impl_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit verify --impl/--exec``: every monoid's PASS/FAIL, what was detected and the replay paths."""
    examples = args.examples if args.examples is not None else QUICK_EXAMPLES if args.quick else DEFAULT_EXAMPLES
    steps = args.steps if args.steps is not None else QUICK_STEPS if args.quick else DEFAULT_STEPS
    options: dict[str, Any] = {
        "values": args.values,
        "times": args.times,
        "checker": args.checker,
        "budget": args.budget,
        "tolerance": args.tolerance,
        "misuse": not args.no_misuse,
        "faults": not args.no_faults,
        "max_window": args.max_window,
        "contract": args.contract,
    }
    try:
        options["contract"] = Contract.of(args.contract) if args.contract else None
        if args.contract and user_impl.resolve_kind(args.kind)[0].name != "fifo":
            raise ValueError(f"--contract restricts fifo and handles windows, not --kind {args.kind}")
        if args.exec_cmd is not None:
            factory = user_impl.exec_factory(args.exec_cmd, args.kind, args.timeout)
            label, header = args.exec_cmd, {"exec": args.exec_cmd}
            # a program speaks the protocol's conformance monoids: by default every one its hello lists
            choices = user_impl.conformance_choices(factory, args.monoid, args.tolerance)
        else:
            factory, label, header = user_impl.load(args.impl), args.impl, {"impl": args.impl}
            monoids = list(dict.fromkeys(args.monoid or user_impl.DEFAULT_MONOIDS))
            choices = [user_impl.resolve_monoid(m, args.values, args.tolerance) for m in monoids]
        detected = user_impl.detect(factory(choices[0].factory()), args.kind)
        problem = _impl_usage_problem(args, detected)
    except (ValueError, KeyError) as exc:
        print(f"swagkit verify: {exc}", file=err)
        return 2
    except AssertionError as exc:  # the program died or answered garbage before the first operation
        cannot_start = isinstance(exc.__cause__, OSError)  # a command that cannot start is a usage error
        print(f"swagkit verify: {'' if cannot_start else 'FAIL: '}{exc}", file=err)
        return 2 if cannot_start else 1
    if problem:
        print(f"swagkit verify: {problem}", file=err)
        return 2
    print(
        f"swagkit verify --{'exec' if args.exec_cmd else 'impl'} {label} --kind {args.kind}: {len(choices)} "
        f"monoid(s), {examples} examples × {steps} steps, seed {args.seed}",
        file=out,
    )
    print(f"operations offered: {', '.join(detected.offered)}", file=out)
    if detected.missing:
        print(f"not offered (not exercised): {', '.join(detected.missing)}", file=out)
    checks = ["model"] + [
        f"{what} ({algo})" for what, algo in (("invariants", args.checker), ("budget", args.budget)) if algo
    ]
    print(f"checks: {', '.join(checks)}" + ("" if options["misuse"] else "; misuse rules off"), file=out)

    def show(r: user_impl.MonoidResult) -> None:
        counts = f"{r.examples} examples, {r.steps} steps" if r.status == "PASS" else _first_line(r.failure)
        print(f"  {r.monoid:<16} {r.status:<5} {r.seconds:7.2f}s  {counts}", file=out, flush=True)

    report = user_impl.run_all(
        factory,
        args.kind,
        choices,
        examples,
        steps,
        args.seed,
        args.replay_dir,
        label,
        on_result=show,
        header=header,
        **options,
    )
    failed = [r for r in report.results if r.status != "PASS"]
    for r in failed:
        detail = user_impl.describe_result(r).split("\n", 1)[1]  # below the banner's "FAIL: monoid X"
        print(f"\n{'=' * 20} {r.status}: {r.monoid} {'=' * 20}\n{detail}", file=out)
        if r.replay:
            how = f"--exec {shlex.quote(args.exec_cmd)}" if args.exec_cmd else f"--impl {args.impl}"
            print(f"reproduce: swagkit replay {shlex.quote(r.replay)} {how}", file=out)
    if failed:
        print(f"\nFAILED: {len(failed)} of {len(report.results)} monoid(s)", file=out)
        return 1
    print(f"\nOK: {len(report.results)} monoid(s) passed", file=out)
    return 0


def _impl_usage_problem(args: argparse.Namespace, detected: user_impl.Detected) -> str:
    """Why the options cannot run on the detected object ("": they can)."""
    from swagkit.spec.budgets import BUDGETS
    from swagkit.spec.checkers import CHECKERS

    if detected.lacking:
        return f"the object is not a {args.kind} aggregator: it lacks {', '.join(detected.lacking)}"
    if args.checker and args.checker not in CHECKERS:
        return f"unknown checker {args.checker!r} (known: {', '.join(sorted(CHECKERS))})"
    if args.checker and "snapshot" not in detected.offered:
        return f"--checker {args.checker} reads the object's snapshot(), which it does not offer"
    if args.budget and "combine_count" not in detected.offered:
        return f"--budget {args.budget} meters the object's combine_count, which it does not offer"
    if args.budget and args.kind == "fifo" and args.budget not in BUDGETS:
        return f"unknown budget {args.budget!r} (known: {', '.join(sorted(BUDGETS))})"
    if args.examples is not None and args.examples < 1 or args.steps is not None and args.steps < 1:
        return "--examples and --steps must be positive"
    return ""


def replay_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit replay FILE``: 0 when the trace passes, 1 while it still fails, 2 on a usage error."""
    from . import replay

    try:
        return replay.run(args.file, impl=args.impl, exec_cmd=args.exec_cmd, out=out)
    except (OSError, ValueError, KeyError) as exc:
        print(f"swagkit replay: {exc}", file=err)
        return 2
