"""Differential testing at scale on Spark.

Each :class:`DiffTask` is one seeded random run of one algorithm over one library monoid: a few thousand
operations applied in lock-step to the reference implementation, the optimized one, and the ADT model (or an
exact oracle). :func:`run_task` hands it to the differential runner of the algorithm's kind
(:attr:`Kind.diff_runner <swagkit.verify.kinds.kind.Kind>`), which compares the answers, the snapshots and the
⊗ counts and reports the first difference with its seed and step so it can be replayed locally
(``run_task(task)`` is a plain function). Spark only fans the tasks out: :func:`run_on_spark`
parallelizes them over a local (or any) cluster, so millions of operations are compared in one job.

The session comes from :mod:`.session` (the embedded default: local Spark that retries a failed task).
:func:`run_on_spark` checks that the job accounts for every task exactly once, and
raises :class:`SparkJobError` when the job itself failed (a failure of the machinery, not of a verification).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from swagkit.spec.library import LIBRARY

from .. import registry
from ..kinds.differential import MODEL_EVERY, DiffResult, DiffTask
from .session import SparkJobError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "DiffTask",
    "DiffResult",
    "make_tasks",
    "run_task",
    "run_on_spark",
    "summarize",
    "differential_algorithms",
    "MODEL_EVERY",
    "replay_failure",
]


def differential_algorithms(requested: Sequence[str] | None = None) -> list[str]:
    """Algorithms the Spark stage can compare: those of a kind with a differential runner, in registry order;
    without ``requested``, only those a card does not mark as sharing another's code (``verify_share`` 1: FiBA's
    other μ and its looped bulk operations are left out)."""
    return [
        a.id
        for a in registry.ALGORITHMS.values()
        if a.kind.diff_runner is not None and (a.id in requested if requested else a.verify_share == 1)
    ]


def make_tasks(algorithms: Iterable[str], monoids: Iterable[str], seeds: int, steps: int = 2000) -> list[DiffTask]:
    """Every algorithm × monoid × seed in ``range(seeds)``, leaving out monoids an algorithm does not support
    (e.g. a non-selective monoid for SlickDeque Non-Inv) and, for a structure that takes no monoid (paper 004),
    every monoid but the placeholder it is listed under (``AlgorithmInfo.monoids``)."""
    monoid_list = list(monoids)
    return [
        DiffTask(a, m, s, steps)
        for a in algorithms
        for m in monoid_list
        if _runs_over(registry.algorithm(a), m)
        for s in range(seeds)
    ]


def _runs_over(info: registry.AlgorithmInfo, monoid_id: str) -> bool:
    if info.monoids is not None and monoid_id not in info.monoids:
        return False
    return info.supports(LIBRARY[monoid_id].factory())


def run_task(task: DiffTask) -> DiffResult:
    """Run ``task`` locally with the differential runner of its algorithm's kind (see the module docstring).

    Never raises for a problem found: an unexpected exception is a failed result with its message."""
    try:
        info = registry.algorithm(task.algorithm)
        runner = info.kind.diff_runner
        if runner is None:
            raise registry.RegistryError(f"the {info.kind.name} kind has no differential run")
        reference, optimized = (registry.subject(task.algorithm, impl) for impl in ("reference", "optimized"))
        return runner(task, reference, optimized)
    except Exception as exc:  # reported, with the seed, rather than failing the whole Spark job
        return DiffResult(task, False, -1, f"raised {exc!r}", 0, 0, False)


def _run_partition(tasks: Iterable[DiffTask]) -> Iterable[DiffResult]:
    for task in tasks:
        yield run_task(task)


def run_on_spark(
    spark: SparkSession,
    tasks: list[DiffTask],
    partitions: int | None = None,
    run_partition: Callable[[Iterable[DiffTask]], Iterable[DiffResult]] = _run_partition,
) -> list[DiffResult]:
    """Fan ``tasks`` out over ``spark`` and collect the results (in task order).

    A task whose Python worker dies is retried by Spark (on the embedded default, see :func:`local_session`), so
    a retried partition is run again from its first task; the results are checked to account for every task
    exactly once. Raises :class:`SparkJobError` when the job fails or the results do not match the tasks.
    ``run_partition`` replaces the per-partition loop (tests inject faults with it)."""
    sc = spark.sparkContext
    parts = partitions or max(1, min(len(tasks), sc.defaultParallelism * 4))
    try:
        results: list[DiffResult] = sc.parallelize(tasks, parts).mapPartitions(run_partition).collect()
    except Exception as exc:  # Py4JJavaError and friends: the job, not a verification, failed
        first = next((ln for ln in str(exc).splitlines() if ln.strip()), type(exc).__name__)
        raise SparkJobError(f"the Spark job failed: {first[:300]}") from exc
    if [r.task for r in results] != list(tasks):
        raise SparkJobError(
            f"the Spark job returned {len(results)} results for {len(tasks)} tasks (lost or duplicated seeds)"
        )
    return results


def summarize(results: list[DiffResult]) -> dict[str, Any]:
    """Totals for a report: tasks, failures, operations and combines compared, soft findings by invariant."""
    failures = [asdict(r) for r in results if not r.ok]
    soft: dict[str, int] = {}
    for r in results:
        for name, count in r.soft:
            soft[name] = soft.get(name, 0) + count
    return {
        "tasks": len(results),
        "failures": failures,
        "operations": sum(r.operations for r in results),
        "combines": sum(r.combines for r in results),
        "compiled": all(r.compiled for r in results) if results else False,
        "soft": sorted(soft.items()),
    }


def replay_failure(result: DiffResult, directory: str | None = None, seconds: float = 20.0) -> str:
    """Bring a failed Spark run back as a replay file (issue 14 §3); its path ("": the kind has no differential
    run, or the run passes when re-run locally). The driver re-runs the task's seed locally under the kind's own
    runner with the optimized implementation recorded.

    For a kind with a protocol trace (fifo, ooo) the trace is cut at the first operation where it fails -- under
    the kind's checked wrapper (model, invariants, budgets) or against the reference (answers, refusals, ⊗
    counts, snapshots) -- and shrunk by dropping operations while it still fails (delta debugging, for at most
    ``seconds``); ``swagkit replay FILE`` runs it the same way (header ``against``). Every other failure (a
    decay structure's run, or a protocol kind's failure the trace alone does not show) is written as a
    ``python_only: "diff"`` file (:func:`~swagkit.verify.recording.write_diff`) that re-runs the whole task
    (:func:`rediff`)."""
    from .. import replayfile
    from ..recording import Recorder, write_diff
    from ..replayfile import registered_header, replay_dir

    task = result.task
    info = registry.algorithm(task.algorithm)
    runner = info.kind.diff_runner
    if runner is None:
        return ""
    reference, optimized = (registry.subject(task.algorithm, impl_id) for impl_id in ("reference", "optimized"))
    seen = Recorder()
    if runner(task, reference, seen.subject(optimized)).ok:
        return ""
    header = registered_header(optimized, task.monoid)
    header.update(failure=f"spark seed {task.seed}: {result.detail}")
    header.update(against=reference.implementation, spark={"seed": task.seed, "steps": task.steps})
    if info.kind.name in replayfile.PROTOCOL_KINDS and len(seen.instances) == 1:
        path = _protocol_replay(info, reference, optimized, seen.instances[0], header, directory, seconds)
        if path:
            return path
    # the task's fields re-run it exactly (over the registered classes and their registered parameters)
    header.update(kind=info.kind.name, diff=asdict(task), step=result.step)
    return write_diff(directory or replay_dir(), header, seen.instances)


def _protocol_replay(
    info: registry.AlgorithmInfo,
    reference: Any,
    optimized: Any,
    instance: Any,
    header: dict[str, Any],
    directory: str | None,
    seconds: float,
) -> str:
    """The cut and shrunk trace of a fifo/ooo failure (see :func:`replay_failure`); "" when the recorded calls
    pass under the checked wrapper."""
    from .. import replayfile
    from ..trace import Step

    operations = info.kind.traced()
    trial = _Trial(info, reference, optimized, LIBRARY[str(header["monoid"])].factory)
    calls = [Step(c.name, c.args) for c in instance.calls if c.name in operations]
    first = trial.first_failure(calls)
    if first is None:
        return ""
    calls = _minimized(calls[: first + 1], trial.fails, time.monotonic() + seconds)
    trace, _ = trial.run(calls)
    return replayfile.write(directory or replayfile.replay_dir(), header, trace, info.kind.name)


class _Trial:
    """Runs a trace as ``swagkit replay`` does: the optimized implementation in its kind's checked wrapper, the
    reference beside it in lock-step (:class:`~swagkit.verify.lockstep.Against`)."""

    def __init__(self, info: registry.AlgorithmInfo, reference: Any, optimized: Any, monoid: Any) -> None:
        self.info, self.reference, self.optimized, self.monoid = info, reference, optimized, monoid

    def run(self, steps: list[Any]) -> tuple[Any, tuple[int, str] | None]:
        """The trace of ``steps`` on a new pair, and the first failure (``None``: none)."""
        from ..lockstep import Against
        from ..replay import Target, run_steps

        m = self.monoid()

        def beside(obj: Any) -> Any:
            return Against(self.reference.new(m), m).wrap(obj)

        target = Target(self.optimized.new, algorithm=self.info.id, facts=self.info, guard=beside)
        return run_steps(target, self.info.kind, m, steps)

    def first_failure(self, steps: list[Any]) -> int | None:
        """The index of the first step that fails (``None``: the trace passes)."""
        failure = self.run(steps)[1]
        return None if failure is None else max(failure[0] - 1, 0)

    def fails(self, steps: list[Any]) -> bool:
        return self.first_failure(steps) is not None


def _minimized(calls: list[Any], fails: Callable[[list[Any]], bool], deadline: float) -> list[Any]:
    """Delta debugging (ddmin's complement step): drop chunks of ``calls``, halving the chunk size, while the
    rest still fails, until single calls cannot be dropped or ``deadline`` (``time.monotonic()``) passes."""
    size = max(1, len(calls) // 2)
    while time.monotonic() < deadline:
        start, dropped = 0, False
        while start < len(calls) and time.monotonic() < deadline:
            rest = calls[:start] + calls[start + size :]
            if rest and fails(rest):
                calls, dropped = rest, True
            else:
                start += size
        if size == 1 and not dropped:
            break
        size = max(1, size // 2) if not dropped else size
    return calls
