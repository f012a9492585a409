"""The scale stage of ``swagkit verify`` (:mod:`.scale` on Spark): what it runs, the progress display, the report.

``swagkit verify`` runs a short scale stage after its differential runs (``--spark-ops``, default
:data:`SHORT_OPS`); ``swagkit verify --spark`` runs the Spark stages only, at scale (default :data:`SCALE_OPS`),
for the registry's algorithms (``--algorithm``/``--implementation`` narrow them), for ``--impl MODULE:FACTORY``
or for ``--exec CMD``. Exit status: 0 all agreed, 1 a finding (each with a replay file), 4 the Spark job failed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from .scale import ScaleResult, Target, make_scale_tasks
from .scale_job import Progress, replay_finding, run_scale

__all__ = [
    "SHORT_OPS",
    "SCALE_OPS",
    "REGISTRY_MONOIDS",
    "USER_MONOIDS",
    "registry_targets",
    "registry_monoids",
    "registry_pace",
    "user_target",
    "user_monoids",
    "scale_stage",
]

#: operations of the scale stage inside a plain ``swagkit verify`` (a few seconds on local[2])
SHORT_OPS = 1_000_000
#: operations of ``swagkit verify --spark`` unless ``--spark-ops`` says otherwise
SCALE_OPS = 10_000_000
#: monoids of the registry's algorithms at scale (each algorithm runs those it supports): typed ints, a
#: non-commutative group of constant size, a selective monoid with ties, a non-commutative non-invertible one
REGISTRY_MONOIDS = ("sum_i64", "max_i64", "affine_int", "argmax", "string_concat")
#: monoids of a user's ``--impl`` at scale (``--monoid`` overrides): the machine's defaults, with the constant-size
#: ``affine_int`` for ``affine`` (whose fractions grow with the window)
USER_MONOIDS = ("string_concat", "argmax", "affine_int", "sum_f64")


def registry_targets(algorithms: Sequence[str] | None, implementations: Sequence[str] | None) -> list[Target]:
    """The registry's algorithms the scale run covers: those whose kind has trace patterns or a differential run
    (``algorithms`` narrows them; else those a card does not mark as sharing another's code), in their
    ``implementations`` (default: optimized)."""
    from .. import registry
    from .differential import differential_algorithms

    return [
        Target("registry", a, implementation=i)
        for a in differential_algorithms(algorithms)
        for i in (implementations or ["optimized"])
        if registry.resolve_class(a, i) is not None
    ]


#: the share of a target whose kind has no trace patterns (paper 004's structures: their differential run checks
#: every operation against the reference and the exact oracle, ~50x slower than a lock-step with the fast oracle)
SLOW_PACE = 0.02


def registry_pace(target: Target) -> float:
    """:data:`SLOW_PACE` for a registered algorithm of a kind without trace patterns, 1 otherwise."""
    from .. import registry
    from ..replayfile import PROTOCOL_KINDS

    if target.how == "registry" and registry.algorithm(target.spec).kind.name not in PROTOCOL_KINDS:
        return SLOW_PACE
    return 1.0


def registry_monoids(chosen: Sequence[str] | None) -> Callable[[Target], list[str]]:
    """A registered target's monoids: those of ``chosen`` (default :data:`REGISTRY_MONOIDS`) it supports; a
    structure that takes no monoid runs once, under its placeholder."""
    from .. import options, registry

    def monoids(target: Target) -> list[str]:
        info = registry.algorithm(target.spec)
        if info.monoids is not None:
            return list(info.monoids)
        known = [m for m in (chosen or REGISTRY_MONOIDS) if _resolves(m)]
        return [m for m in known if info.supports(options.resolve_monoid(m).factory())]

    return monoids


def _resolves(monoid_id: str) -> bool:
    from .. import options

    try:
        options.resolve_monoid(monoid_id)
    except (ValueError, KeyError):
        return False
    return True


def user_target(
    how: str, spec: str, kind: str, timeout: float, contract: str | None, tolerance: float | None = None
) -> Target:
    """The :class:`Target` of ``--impl``/``--exec``: the workers import from (or run in) this directory."""
    cwd = os.getcwd()
    paths = tuple(dict.fromkeys([cwd, *(p for p in sys.path if p and os.path.isdir(p))]))
    if contract:
        from ..kinds.fifo.contract import Contract

        Contract.of(contract)  # a malformed contract is a usage error here, not a finding on every worker
    return Target(
        how,
        spec,
        kind,
        paths=paths if how == "impl" else (),
        timeout=timeout,
        contract=contract,
        tolerance=tolerance,
        cwd=cwd,
    )


def user_monoids(
    how: str, spec: str, kind: str, chosen: Sequence[str] | None, timeout: float, tolerance: float | None
) -> list[str]:
    """The monoids a user's target runs over: ``chosen`` (``--monoid``) or :data:`USER_MONOIDS` for ``--impl``
    (each must resolve: a library id, a conformance id or ``MODULE:OBJ``); for ``--exec`` the conformance monoids
    the program's ``hello`` offers (all, or those ``chosen``). Checked here, on the driver, so that a typo is a
    usage error and not a finding on every seed."""
    from .. import options

    options.resolve_kind(kind)
    if how == "exec":
        from ..process import process_factory

        factory = process_factory(spec, kind, timeout=timeout)
        try:
            return [c.id for c in options.conformance_choices(factory, chosen, tolerance)]
        finally:
            factory.close()
    monoids = list(dict.fromkeys(chosen or USER_MONOIDS))
    for m in monoids:
        options.resolve_monoid(m, tolerance=tolerance)
    options.load(spec)
    return monoids


def from_args(args: argparse.Namespace, out: TextIO, err: TextIO, algorithms: Sequence[str] | None) -> int:
    """The scale stage as ``swagkit verify``'s arguments ask: ``--impl``/``--exec`` (only with ``--spark``), else
    the registry's ``algorithms`` (``--implementation`` too with ``--spark``; ``--monoid`` narrows the monoids);
    ``--spark-ops`` operations (default :data:`SCALE_OPS` with ``--spark``, :data:`SHORT_OPS` otherwise)."""
    from .session import TASK_RETRIES, local_session, session_for

    ops = args.spark_ops if args.spark_ops is not None else SCALE_OPS if args.spark else SHORT_OPS
    if ops < 1:
        print("swagkit verify: --spark-ops must be positive", file=err)
        return 2
    monoids: Sequence[str] | Callable[[Target], Sequence[str]]
    if args.spark and (args.impl is not None or args.exec_cmd is not None):
        how, spec = ("exec", args.exec_cmd) if args.exec_cmd is not None else ("impl", args.impl)
        try:
            monoids = user_monoids(how, spec, args.kind, args.monoid, args.timeout, args.tolerance)
            targets = [user_target(how, spec, args.kind, args.timeout, args.contract, args.tolerance)]
        except (ValueError, KeyError) as exc:
            print(f"swagkit verify: {exc}", file=err)
            return 2
        except AssertionError as exc:  # the program died or answered garbage before the first operation
            print(f"swagkit verify: FAIL: {exc}", file=err)
            return 1
    else:
        targets = registry_targets(algorithms, args.implementation if args.spark else None)
        if not targets:
            print("spark scale: nothing to run (no algorithm of a kind with trace patterns selected)", file=out)
            return 0
        monoids = registry_monoids(args.monoid)
    master = args.spark_master
    return scale_stage(
        lambda: local_session() if master is None else session_for(master),
        targets,
        monoids,
        ops,
        out,
        err,
        seed=args.seed,
        replay_dir=args.replay_dir,
        master=master or f"local[2,{TASK_RETRIES}]",
    )


def scale_stage(
    session_of: Callable[[], Any],
    targets: Sequence[Target],
    monoids: Sequence[str] | Callable[[Target], Sequence[str]] | None,
    operations: int,
    out: TextIO,
    err: TextIO,
    *,
    seed: int = 0,
    replay_dir: str | None = None,
    master: str = "",
) -> int:
    """Run the scale stage and report it (see the module docstring); ``session_of()`` makes the Spark session."""
    from .session import SparkJobError

    chosen = monoids if monoids is not None else registry_monoids(None)
    tasks = make_scale_tasks(targets, chosen, operations, seed=seed, pace=registry_pace)
    if not tasks:
        print("spark scale: nothing to run (no target with a monoid it supports)", file=out)
        return 0
    print(
        f"spark scale: {operations:,} operations in {len(tasks)} seeds over {len(targets)} target(s), traces of "
        f"up to {tasks[0].trace_length:,} operations ({master})",
        file=err,
        flush=True,
    )
    try:
        session = session_of()
        cores = session.sparkContext.defaultParallelism
        started = time.perf_counter()  # the job's time: the JVM's start-up is not the run's
        results = run_scale(session, tasks, progress=_display(err))
    except (SparkJobError, Exception) as exc:  # the job failed, not a verification: status 4
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(
            f"spark scale: FAILED TO RUN ({type(exc).__name__}): {first}\n"
            "spark scale: this is a failure of the Spark job, not a verification result",
            file=out,
        )
        return 4
    elapsed = time.perf_counter() - started
    return _report(results, elapsed, cores, replay_dir, out)


def _display(err: TextIO) -> Callable[[Progress], None]:
    """Progress on ``err``: rewritten in place on a terminal, a line every 10 s otherwise (logs, CI)."""
    tty = err.isatty()
    last = [0.0]
    shown: list[str] = []

    def show(p: Progress) -> None:
        now = time.monotonic()
        final = p.done == p.seeds
        if final and shown:  # the job's last poll and the collected results both report the end: once
            return
        if final:
            shown.append(p.line())
        if tty:
            print(f"\r{p.line()}", end="\n" if final else "", file=err, flush=True)
        elif final or now - last[0] >= 10.0:
            last[0] = now
            print(p.line(), file=err, flush=True)

    return show


def _report(results: Sequence[ScaleResult], elapsed: float, cores: int, replay_dir: str | None, out: TextIO) -> int:
    operations = sum(r.operations for r in results)
    sampled = sum(r.sampled for r in results)
    traces = sum(r.traces for r in results)
    work = sum(r.seconds for r in results)
    retried = sum(1 for r in results if r.attempt > 0)
    findings = [r for r in results if r.finding is not None]
    for r in findings:
        f = r.finding
        assert f is not None
        t = r.task
        print(
            f"\n==================== SPARK FINDING: {t.target.label} over {t.monoid}, seed {t.seed} "
            f"====================\ntrace {f.trace} ({f.pattern}, window {f.window}), operation {f.step}: {f.detail}",
            file=out,
        )
        try:
            path = replay_finding(r, replay_dir)
        except Exception as exc:  # the finding stands; only its replay file could not be written
            path, why = "", f" ({type(exc).__name__}: {exc})"
        else:
            why = " (the trace passes when re-run here: not reproducible on the driver)" if not path else ""
        if path:
            who = f" --{t.target.how} {shlex.quote(t.target.spec)}" if t.target.how in ("impl", "exec") else ""
            print(f"replay: swagkit replay {shlex.quote(path)}{who}", file=out)
        else:
            print(f"replay: none{why}", file=out)
    # per core: the operations over the seconds the tasks themselves ran (what one core does; the wall-clock
    # rate over all cores is the other figure)
    per_core = operations / max(work, 1e-9)
    verdict = "FAILED" if findings else "OK"
    compiled = "compiled" if results and all(r.compiled for r in results) else "pure-Python"
    print(
        f"\n{verdict}: spark scale, {len(results)} seeds, {traces:,} traces, {operations:,} operations compared with "
        f"the fast oracle ({sampled:,} also in debug mode) in {elapsed:.1f}s: {operations / max(elapsed, 1e-9):,.0f} "
        f"operations/s on {cores} cores, {per_core:,.0f}/s per core ({work:.1f} task-seconds; optimized {compiled})"
        + (f"; {retried} seed(s) retried by Spark, each counted once" if retried else "")
        + (f"; {len(findings)} finding(s)" if findings else ""),
        file=out,
    )
    return 1 if findings else 0
