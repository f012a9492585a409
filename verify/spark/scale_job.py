"""The scale run on Spark and back on the driver: :func:`run_scale` fans the seeds out (one task each, retried
alone, every seed accounted for exactly once, a progress callback while it runs); :func:`replay_finding`
regenerates a finding's trace, cuts it, shrinks it against the oracle and writes a replay file."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .scale import SAMPLE_OPS, ScaleResult, ScaleTask, calls_of, lockstep, plans, run_scale_task, sample
from .scale_target import Built, Target, monoid_values, offered_operations, oracle_for, resolve, restricted_contract

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["Progress", "run_scale", "replay_finding"]


@dataclass
class Progress:
    """The running totals the progress display shows (updated as Spark tasks finish)."""

    seeds: int
    done: int = 0
    operations: int = 0
    findings: int = 0
    started: float = field(default_factory=time.monotonic)

    def line(self) -> str:
        elapsed = max(1e-9, time.monotonic() - self.started)
        return (
            f"spark: {self.done}/{self.seeds} seeds, {self.operations:,} operations "
            f"({self.operations / elapsed:,.0f}/s), {self.findings} finding{'s' * (self.findings != 1)}, "
            f"{elapsed:.0f} s"
        )


def _run_partition(tasks: Iterable[ScaleTask]) -> Iterable[ScaleResult]:
    from pyspark import TaskContext

    context = TaskContext.get()
    attempt = context.attemptNumber() if context is not None else 0
    for task in tasks:
        yield run_scale_task(task, attempt)


def run_scale(
    spark: SparkSession,
    tasks: list[ScaleTask],
    *,
    progress: Callable[[Progress], None] | None = None,
    every: float = 2.0,
    run_partition: Callable[[Iterable[ScaleTask]], Iterable[ScaleResult]] = _run_partition,
) -> list[ScaleResult]:
    """Run ``tasks`` on ``spark``, one partition per task (a retried task reruns one seed), calling
    ``progress`` every ``every`` seconds and at the end with the totals of the tasks finished so far. Raises
    :class:`~.session.SparkJobError` when the job fails or the results do not account for every task exactly
    once. ``run_partition`` replaces the per-partition loop (tests inject faults with it)."""
    from .session import SparkJobError

    sc = spark.sparkContext
    state = Progress(len(tasks))
    ops_acc = sc.accumulator(0)
    done_acc = sc.accumulator(0)
    found_acc = sc.accumulator(0)

    def counted(part: Iterable[ScaleTask]) -> Iterable[ScaleResult]:
        for result in run_partition(part):
            ops_acc.add(result.operations)
            done_acc.add(1)
            found_acc.add(result.finding is not None)
            yield result

    box: dict[str, Any] = {}

    def job() -> None:
        try:
            box["results"] = sc.parallelize(tasks, max(1, len(tasks))).mapPartitions(counted).collect()
        except Exception as exc:  # Py4JJavaError and friends
            box["error"] = exc

    worker = threading.Thread(target=job, name="swagkit-scale", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(every)
        state.done, state.operations, state.findings = done_acc.value, ops_acc.value, found_acc.value
        if progress is not None:
            progress(state)
    if "error" in box:
        exc = box["error"]
        first = next((ln for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
        raise SparkJobError(f"the Spark job failed: {first[:300]}") from exc
    results: list[ScaleResult] = box["results"]
    if [r.task for r in results] != list(tasks):
        raise SparkJobError(
            f"the Spark job returned {len(results)} results for {len(tasks)} seeds (lost or duplicated seeds)"
        )
    state.done = len(results)
    state.operations = sum(r.operations for r in results)
    state.findings = sum(r.finding is not None for r in results)
    if progress is not None:
        progress(state)
    return results


# ------------------------------------------------------------------------------------- back on the driver


def replay_finding(result: ScaleResult, directory: str | None = None, seconds: float = 30.0) -> str:
    """The replay file of ``result``'s finding ("" when there is none to write: no finding, a kind without a
    protocol trace, or the trace no longer fails here). The trace is regenerated from the seed, cut at the
    finding and shrunk against the oracle (delta debugging for at most ``seconds``); the file runs under
    ``swagkit replay`` (the kind's debug wrapper, the model's answers) and, for ``--exec``, as ``CMD < file``."""
    from .. import replay, replayfile
    from ..guard import Deadline, Guarded
    from ..replayfile import registered_header, replay_dir
    from ..trace import Step
    from .differential import _minimized

    finding, task = result.finding, result.task
    if finding is None or finding.trace < 0:
        return ""
    built = resolve(task.target)
    if not built.protocol_kind:
        return ""
    choice, values = monoid_values(task.monoid, task.target.tolerance)
    monoid = choice.factory()
    contract = restricted_contract(built.contract) if built.protocol_kind == "fifo" else None
    offered = offered_operations(built, monoid)
    plan = next(p for p in plans(task, built.protocol_kind, contract) if p.index == finding.trace)
    calls = list(calls_of(plan, built.protocol_kind, values, offered, contract))

    def fails(cs: list[tuple[str, tuple[Any, ...]]]) -> bool:
        if contract is not None and not contract.admits(cs):  # shrinking must not leave the window's contract
            return False
        found = lockstep(built.new(monoid), oracle_for(built, monoid, contract), cs, monoid)
        return found is not None or _sample_all(built, monoid, cs)

    cut = calls[: finding.step + 1]
    if not fails(cut):
        return ""
    cut = _minimized(cut, fails, time.monotonic() + seconds)
    target = task.target
    where = f"spark seed {task.seed}, trace {finding.trace} ({finding.pattern}, window {finding.window})"
    failure = f"{where}: {finding.detail}"
    if target.how == "registry":
        header = {**registered_header(registry_subject(target), task.monoid), "failure": failure}
        run_on = replay.Target(built.new, algorithm=target.spec, facts=built.facts)
    else:
        header = {target.how: target.spec, "monoid": task.monoid, "failure": failure}
        promise = restricted_contract(target.contract) if target.contract else None
        if promise is not None:
            header["contract"] = promise.as_dict()
        deadline = Deadline(target.timeout)
        run_on = replay.Target(built.new, guard=lambda obj: Guarded(obj, deadline=deadline))
    header["spark"] = {"seed": task.seed, "trace": finding.trace, "step": finding.step}
    # the shrunk calls run once more in the kind's debug wrapper: the file is that run's trace, answers and all
    trace, _ = replay.run_steps(run_on, built.kind, monoid, [Step(n, a) for n, a in cut], contract=contract)
    return replayfile.write(directory or replay_dir(), header, trace, built.kind.name)


def _sample_all(built: Built, monoid: Any, calls: list[tuple[str, tuple[Any, ...]]]) -> bool:
    """Whether the debug wrapper finds a problem in ``calls`` (a sampled finding shrinks under it)."""
    return sample(built, monoid, calls[:SAMPLE_OPS]) is not None


def registry_subject(target: Target) -> Any:
    from .. import registry

    return registry.subject(target.spec, target.implementation)
