"""``swagkit verify``: the main job over the registered algorithms (and the dispatch to ``--impl``/``--exec``,
``--spark``, ``--spark-sql``).

It checks the monoid laws of every library monoid and runs the state machine of the algorithm's kind
(:mod:`swagkit.verify.kinds`, through :func:`swagkit.verify.runner.run_task`) for every registered algorithm ×
monoid × implementation, skipping (with a note) combinations that cannot run: an implementation that does not
provide the algorithm (e.g. ``optimized`` before it is built), a monoid lacking a required property, or a monoid
without an input strategy. A progress line goes to stderr (``-v``: one line per task); a summary table per
algorithm and implementation (``-v``: per combination), each failure with its counterexample trace, and a
verdict go to stdout; both say which implementation ran (compiled, or the pure-Python fallback).

``--crosshair`` adds a symbolic stage: CrossHair checks the contracts of :mod:`swagkit.verify.symbolic` (the
in-order algorithms and FiBA against their models, 003's Claim 1) on the pure-Python layers. The Spark stages
follow unless ``--no-spark``.

The search spends seconds (:func:`run_budget`; ``--budget``): a first round of every combination, then rounds of
further seeds in each combination's share of what is left (:mod:`swagkit.verify.rounds`). How far it gets
depends on the machine; every round is reproducible: no example database, and each task's Hypothesis seed is
derived from ``--seed`` (default 0, ``S+r`` in round ``r``) and the task name. A failure prints its shrunk trace,
its replay file and the command that re-runs its round (``--seed S+r --examples N``: one round, no budget).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import replace
from typing import Any, TextIO

from swagkit.spec.library import LIBRARY

from .. import registry
from ..kinds.machines import DEFAULT_MAX_WINDOW, DEFAULT_SHRINK_SECONDS
from ..options import MAX_WINDOW_LIMIT, UsageError
from ..rounds import further_rounds, merge_rounds
from ..runner import Outcome, Task, run_task
from ..strategies import strategy_for
from .common import Progress, print_findings, table
from .own import DEFAULT_OWN_BUDGET, add_own_arguments, options_of, own_command

__all__ = ["add_verify_arguments", "verify", "DEFAULT_EXAMPLES", "DEFAULT_STEPS"]

DEFAULT_EXAMPLES = 12
DEFAULT_STEPS = 40
QUICK_EXAMPLES = 2
QUICK_STEPS = 20
#: the main job's default search (issue 25 §1: more than one round of 12 × 40 per combination in the time that
#: round took): a first round of FIRST_ROUND_EXAMPLES examples for every combination, then further rounds of
#: further seeds until SECONDS_PER_SEARCH worker-seconds per combination are spent (:func:`run_budget`)
FIRST_ROUND_EXAMPLES = 6
SECONDS_PER_SEARCH = 0.4
#: the least a default run searches: a narrow selection (one algorithm × one monoid) gets a few rounds, more than
#: the one round of 12 examples it had before the budget
MIN_RUN_SECONDS = 2.0


def _default_jobs() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


def _seconds(text: str) -> float:
    """``--budget``'s value: seconds (a word is the old ``--budget ALGO``, now ``--combine-budget``)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds (e.g. --budget 30); the ⊗ bounds of an algorithm are "
            f"--combine-budget {text}"
        ) from None


def add_verify_arguments(v: argparse.ArgumentParser) -> None:
    """The options of ``swagkit verify``."""
    v.add_argument("--algorithm", action="extend", nargs="+", metavar="ID", help="algorithm ids (default: all)")
    v.add_argument("--monoid", action="extend", nargs="+", metavar="ID", help="library monoid ids (default: all)")
    v.add_argument(
        "--implementation",
        action="extend",
        nargs="+",
        metavar="ID",
        help="implementations, e.g. reference optimized (default: all that are available)",
    )
    v.add_argument(
        "--examples",
        type=int,
        metavar="N",
        help="examples per combination, one round (default: a budget in seconds, see --budget)",
    )
    v.add_argument("--steps", type=int, metavar="N", help=f"max steps per example (default {DEFAULT_STEPS})")
    v.add_argument("--seed", type=int, default=0, metavar="S", help="base seed of the Hypothesis search (default 0)")
    v.add_argument(
        "--quick",
        action="store_true",
        help=f"smoke run: {QUICK_EXAMPLES} examples × {QUICK_STEPS} steps unless given explicitly",
    )
    v.add_argument(
        "--max-window",
        type=int,
        default=DEFAULT_MAX_WINDOW,
        metavar="N",
        help=f"largest window size (default {DEFAULT_MAX_WINDOW}, at most {MAX_WINDOW_LIMIT})",
    )
    v.add_argument(
        "--budget",
        type=_seconds,
        metavar="SECONDS",
        help="seconds to search: rounds of further seeds (--seed S+1, S+2, …) with more examples each until spent; "
        f"--impl/--exec: the whole run's, shared by its monoids (default {DEFAULT_OWN_BUDGET:g} unless --examples "
        f"is given); registered algorithms: a first round of {FIRST_ROUND_EXAMPLES} examples for every combination, "
        f"then equal shares of what is left (default {SECONDS_PER_SEARCH:g} s per combination and job, at least "
        f"{MIN_RUN_SECONDS:g} s; --examples or --quick: one round)",
    )
    v.add_argument(
        "--shrink-budget",
        type=float,
        default=DEFAULT_SHRINK_SECONDS,
        metavar="SECONDS",
        help=f"seconds to shrink one failure; the smallest failing example by then is reported "
        f"(default {DEFAULT_SHRINK_SECONDS:g})",
    )
    v.add_argument(
        "--jobs", "-j", type=int, default=_default_jobs(), metavar="N", help="worker processes (parallel seeds)"
    )
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
    v.add_argument(
        "--no-engines",
        action="store_true",
        help="skip the closing short run of the installed window engines (swagkit engines; it runs when no "
        "--algorithm/--monoid/--implementation selection is given)",
    )
    v.add_argument("-v", "--verbose", action="store_true", help="a line per task, a table row per combination")
    add_own_arguments(v)
    from ..spark import sql_cli  # --spark-sql (verify/spark/sql_cli.py)

    sql_cli.add_arguments(v)


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


def sizes(args: argparse.Namespace) -> tuple[int, int]:
    """``(examples, steps)`` of the run, decided once: the flags, else ``--quick``'s, else the defaults; and the
    other bounds every run must have (:class:`~swagkit.verify.options.UsageError` for a bad value)."""
    examples = args.examples if args.examples is not None else QUICK_EXAMPLES if args.quick else DEFAULT_EXAMPLES
    steps = args.steps if args.steps is not None else QUICK_STEPS if args.quick else DEFAULT_STEPS
    if examples < 1 or steps < 1:
        raise UsageError(f"--examples and --steps must be positive, got {examples} and {steps}")
    if not 1 <= args.max_window <= MAX_WINDOW_LIMIT:
        raise UsageError(
            f"--max-window must be between 1 and {MAX_WINDOW_LIMIT} (the checks cost O(window) per operation), "
            f"got {args.max_window}"
        )
    if args.jobs < 1:
        raise UsageError(f"--jobs must be positive, got {args.jobs}")
    if not 0 < args.shrink_budget < float("inf"):
        raise UsageError(f"--shrink-budget must be a positive number of seconds, got {args.shrink_budget:g}")
    if args.budget is not None and not 0 < args.budget < float("inf"):
        raise UsageError(f"--budget must be a positive number of seconds, got {args.budget:g}")
    return examples, steps


def run_budget(args: argparse.Namespace, searches: int) -> float | None:
    """The wall seconds the main job's searches spend (``None``: one round of ``--examples``): ``--budget``, else
    :data:`SECONDS_PER_SEARCH` worker-seconds per search, at least :data:`MIN_RUN_SECONDS` -- unless ``--examples``
    or ``--quick`` sets the size.

    A run's length then follows its selection: one combination searches for two seconds, the whole registry for
    a few minutes."""
    if args.budget is not None:
        return float(args.budget)
    if args.examples is not None or args.quick or not searches:
        return None
    return max(MIN_RUN_SECONDS, SECONDS_PER_SEARCH * searches / int(args.jobs))


def plan(args: argparse.Namespace, err: TextIO) -> tuple[list[Task], dict[str, int]] | int:
    """The tasks to run (their first rounds) and the skipped combinations grouped by reason (or an exit status on
    a usage error)."""
    algos = _check_ids("algorithm", args.algorithm, registry.algorithm_ids(), err)
    monoids = _check_ids("monoid", args.monoid, registry.monoid_ids(), err)
    impls = _check_ids("implementation", args.implementation, registry.implementation_ids(), err)
    if algos is None or monoids is None or impls is None:
        return 2
    examples, steps = sizes(args)
    tasks: list[Task] = []
    if not args.no_laws:
        tasks += [Task("laws", m, None, examples, 0, args.seed) for m in monoids]
    if args.examples is None and not args.quick:
        examples = FIRST_ROUND_EXAMPLES  # the searches spend seconds (run_budget): rounds follow the first
    skipped: dict[str, int] = {}
    if not args.laws_only:
        for combo in registry.combos(algos, monoids, impls):
            reason = combo.skip or _machine_skip(combo) or _same_class_skip(combo, impls)
            if reason is not None:
                skipped[reason] = skipped.get(reason, 0) + 1
                continue
            task = Task("machine", combo.monoid, combo, examples, steps, args.seed, args.max_window)
            tasks.append(replace(task, shrink_seconds=args.shrink_budget))
        tasks += array_tasks(tasks, monoids, examples, steps, args)
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


def array_tasks(
    tasks: Sequence[Task], monoids: Sequence[str], examples: int, steps: int, args: argparse.Namespace
) -> list[Task]:
    """The array entry points' tasks (:mod:`swagkit.verify.arrays`) of the planned machine runs of a compiled
    implementation: one per combination whose class has an entry point and whose monoid a typed kernel (a fast
    path), and ``window_sum``'s per sum monoid when no ``--algorithm`` narrows the run."""
    from ..arrays import entry_point

    out: list[Task] = []
    compiled = {
        t.combo.implementation
        for t in tasks
        if t.combo is not None and registry.IMPLEMENTATIONS[t.combo.implementation].compiled()
    }
    for t in tasks:
        c = t.combo
        if c is None or c.implementation not in compiled or LIBRARY[c.monoid].factory().fast_path is None:
            continue
        sub = registry.subject(c.algorithm, c.implementation)
        if sub.factory is registry.resolve_class(c.algorithm, "reference"):
            continue  # the class is the reference's own: nothing to compare
        if entry_point(sub, registry.algorithm(c.algorithm).kind.name) is not None:
            out.append(replace(t, kind="arrays"))
    if "optimized" in compiled and not args.algorithm:
        for m in ("sum_f64", "sum_i64"):
            if m in monoids:
                out.append(Task("arrays", m, None, examples, steps, args.seed, shrink_seconds=args.shrink_budget))
    return out


def _same_class_skip(combo: registry.Combo, impls: Sequence[str]) -> str | None:
    """Why ``combo`` need not run: its implementation's class *is* the reference's (``recalc``'s optimized
    entry), which the same run verifies under ``reference`` -- the same machine twice would only spend time."""
    if combo.implementation == "reference" or "reference" not in impls:
        return None
    cls = registry.resolve_class(combo.algorithm, combo.implementation)
    if cls is not None and cls is registry.resolve_class(combo.algorithm, "reference"):
        return "the implementation's class is the reference's (verified once, under reference)"
    return None


def _machine_skip(combo: registry.Combo) -> str | None:
    try:
        strategy_for(combo.monoid)
    except KeyError:
        return "no input strategy for the monoid"
    return None


def _execute(tasks: Sequence[Task], jobs: int, on_result: Callable[[Outcome], None]) -> list[Outcome]:
    """Run tasks serially or in forked worker processes (fork keeps registrations made at run time)."""
    results: list[Outcome] = []
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
    results.sort(key=lambda r: order[r.task] if r.task is not None else 0)
    return results


def verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit verify``: run the plan, show progress on ``err`` and the summary on ``out``."""
    examples, steps = sizes(args)
    if args.tolerance is not None and not (args.impl or args.exec_cmd or args.spark):
        raise UsageError("--tolerance applies to --impl/--exec runs (the library monoids state their own)")
    if args.impl is not None or args.exec_cmd is not None:
        options_of(args, examples, steps)  # every value the user gave is checked before anything runs
    if args.spark:
        return spark_only(args, out, err)
    if args.spark_sql:
        from ..spark import sql_cli

        return sql_cli.run(args, out, err)
    if args.impl is not None or args.exec_cmd is not None:
        return own_command(args, examples, steps, out, err)
    planned = plan(args, err)
    if isinstance(planned, int):
        return planned
    tasks, skipped = planned
    machines = sum(1 for t in tasks if t.kind == "machine")
    arrays = sum(1 for t in tasks if t.kind == "arrays")
    laws = len(tasks) - machines - arrays
    budget = run_budget(args, machines + arrays)
    first = next((t.examples for t in tasks if t.kind == "machine"), examples)
    print(
        f"swagkit verify: {laws} monoid law sets + {machines} combinations"
        + (f" + {arrays} array entry points" if arrays else "")
        + (f", a first round of {first} examples × {steps} steps" if machines and budget else "")
        + (f", {examples} examples × {steps} steps" if machines and not budget else "")
        + (f", then further seeds until {budget:.3g} s are spent (--budget)" if machines and budget else "")
        + f", seed {args.seed}, {args.jobs} job(s)",
        file=err,
    )
    impls = sorted({t.combo.implementation for t in tasks if t.combo is not None})
    if impls:
        print(f"implementations: {', '.join(_describe_implementation(i) for i in impls)}", file=err)
    start = time.perf_counter()
    results = _execute(tasks, args.jobs, Progress(len(tasks), err, verbose=args.verbose))
    if budget is not None:
        took = time.perf_counter() - start
        busy = min(1.0, sum(r.seconds for r in results) / max(took * min(args.jobs, len(tasks)), 1e-9))
        results = _spend(results, budget - took, busy, start + budget, args, err)
    elapsed = time.perf_counter() - start
    print_summary(results, skipped, elapsed, args.seed, out, verbose=args.verbose)
    if impls:
        print(f"implementations: {', '.join(_describe_implementation(i) for i in impls)}", file=out)
    status = 1 if any(r.failed for r in results) else 0
    if args.crosshair:
        status = max(status, crosshair_stage(args.crosshair_timeout, out, err))
    if not args.no_spark and not args.laws_only:
        status = max(status, spark_stage(args, out, err))
    whole_registry = args.algorithm is None and args.monoid is None and args.implementation is None
    if whole_registry and not args.no_engines and not args.laws_only:
        from .engines_cmd import engines_stage

        print("\nengines: a short run of every installed window engine (swagkit engines)", file=out)
        status = max(status, engines_stage(args.seed, out, err))
    return status


def _spend(
    results: list[Outcome], seconds: float, busy: float, deadline: float, args: argparse.Namespace, err: TextIO
) -> list[Outcome]:
    """The further rounds of every search that may go on (:func:`~swagkit.verify.rounds.further_rounds`), in
    ``seconds`` of wall time with the workers as ``busy`` as in the first rounds and none starting a round that
    would end after ``deadline``, each merged into its first round's outcome."""
    further = further_rounds(results, seconds, args.jobs, busy=busy, deadline=deadline)
    if not further:
        return results
    print(
        f"further rounds: {len(further)} searches, {statistics.median(t.seconds or 0.0 for t in further):.2f} "
        f"worker-seconds each (median), {seconds:.1f} s left of --budget",
        file=err,
    )
    more = {r.name: r for r in _execute(further, args.jobs, Progress(len(further), err, verbose=args.verbose))}
    return [merge_rounds(r, more[r.name]) if r.name in more else r for r in results]


def crosshair_stage(timeout: float, out: TextIO, err: TextIO) -> int:
    """CrossHair over :mod:`swagkit.verify.symbolic` (PEP 316 contracts; pure Python only): 0 when no
    counterexample was found within ``timeout`` seconds per contract, 1 with CrossHair's report otherwise."""
    from .. import symbolic

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
    from .. import spark

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
        from ..spark import sql_cli

        status = max(status, sql_cli.run(args, out, err))
    return status


def _scale(args: argparse.Namespace, algos: Sequence[str] | None, out: TextIO, err: TextIO) -> int:
    """The scale stage over the registry's ``algos`` (:mod:`swagkit.verify.spark.stage`)."""
    from ..spark import stage

    return stage.from_args(args, out, err, algos)


def spark_only(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``swagkit verify --spark``: the scale run only, for the registry's algorithms or ``--impl``/``--exec``."""
    from ..spark import stage

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


def print_summary(
    results: Sequence[Outcome],
    skipped: dict[str, int],
    elapsed: float,
    seed: int,
    out: TextIO,
    *,
    verbose: bool = False,
) -> None:
    """The summary table (per algorithm and implementation; ``verbose``: per combination), skip notes, each
    failure with its counterexample, and a verdict line."""
    if verbose:
        rows = [["algorithm", "monoid", "impl", "examples", "steps", "result", "time"]]
        for r in results:
            c = r.task.combo if r.task is not None else None
            is_array = r.task is not None and r.task.kind == "arrays"
            rows.append(
                [
                    (f"{c.algorithm} arrays" if c else "window_sum") if is_array else c.algorithm if c else "laws",
                    r.task.monoid if r.task is not None else r.name,
                    c.implementation if c else "optimized" if is_array else "-",
                    str(r.examples) if not r.failed else "-",
                    str(r.steps) if c and not r.failed else "-",
                    r.status + (f" ({r.note})" if r.note and not r.failed else ""),
                    f"{r.seconds:.2f}s",
                ]
            )
    else:
        rows = [["algorithm", "impl", "monoids", "failed", "examples", "steps", "time"]]
        groups: dict[tuple[str, str], list[Outcome]] = {}
        for r in results:
            c = r.task.combo if r.task is not None else None
            if r.task is not None and r.task.kind == "arrays":
                key = (f"{c.algorithm} arrays" if c else "window_sum", c.implementation if c else "optimized")
            else:
                key = (c.algorithm, c.implementation) if c else ("laws", "-")
            groups.setdefault(key, []).append(r)
        for (algorithm, impl), rs in groups.items():
            failed = sum(r.failed for r in rs)
            rows.append(
                [
                    algorithm,
                    impl,
                    str(len(rs)),
                    str(failed) if failed else "-",
                    str(sum(r.examples for r in rs)),
                    str(sum(r.steps for r in rs)) if impl != "-" else "-",
                    f"{sum(r.seconds for r in rs):.1f}s",
                ]
            )
    print("\n".join(table(rows, right={2, 3, 4, 5, 6})), file=out)
    for reason, count in sorted(skipped.items()):
        print(f"skipped {count} combination(s): {reason}", file=out)
    failures = [r for r in results if r.failed]
    for r in failures:
        print_findings(r, "", out)
    machines = sum(1 for r in results if r.task is not None and r.task.kind == "machine")
    arrays = sum(1 for r in results if r.task is not None and r.task.kind == "arrays")
    if failures:
        print(f"\nFAILED: {len(failures)} of {len(results)} tasks failed ({elapsed:.1f}s, seed {seed})", file=out)
    else:
        print(
            f"\nOK: {machines} combinations"
            + (f", {arrays} array entry points" if arrays else "")
            + f" and {len(results) - machines - arrays} monoid law sets passed "
            f"in {elapsed:.1f}s (seed {seed})",
            file=out,
        )
