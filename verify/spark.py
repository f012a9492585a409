"""Differential testing at scale on Spark.

Each :class:`DiffTask` is one seeded random run of one algorithm over one library monoid: a few thousand
inserts, evicts and queries applied in lock-step to the reference implementation, the optimized one, and the
ADT model. :func:`run_task` compares, after every operation, the three answers, the two snapshots and the two
``combine_count`` values, and reports the first difference with its seed and step so it can be replayed
locally (``run_task(task)`` is a plain function). Spark only fans the tasks out: :func:`run_on_spark`
parallelizes them over a local (or any) cluster, so millions of operations are compared in one job.

The embedded default is local Spark (``local[2,4]``: two cores, and a failed task -- a Python worker killed by
the OOM killer, say -- is retried up to 4 times; plain ``local[N]`` never retries), UI off, loopback only: see
:func:`local_session`. :func:`run_on_spark` checks that the job accounts for every task exactly once, and
raises :class:`SparkJobError` when the job itself failed (a failure of the machinery, not of a verification).
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from swagkit.spec.adt import FifoSwag
from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import LIBRARY

from . import registry
from .debug import same_output

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["DiffTask", "DiffResult", "make_tasks", "run_task", "run_on_spark", "local_session", "session_for", "summarize", "fifo_algorithms"]
__all__ += ["DIFF_RUNNERS", "differential_algorithms", "SparkJobError", "TASK_RETRIES"]

#: how often the embedded local session retries a failed task (``local[N,F]`` allows F failures per task)
TASK_RETRIES = 4


class SparkJobError(RuntimeError):
    """The Spark job failed or lost results (e.g. a task failed more than ``TASK_RETRIES`` times): the
    machinery broke, nothing was verified. ``swagkit verify`` exits with status 4 for it."""

#: how often (in steps) the O(n) model fold and the snapshots are compared
MODEL_EVERY = 16


#: Differential runners of non-FIFO kinds: registry kind -> (module, function, ids run by default). The default
#: ids keep the stage cheap (FiBA's other ids differ only in μ or in looping the bulk operations).
DIFF_RUNNERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "out_of_order": ("swagkit.verify.spark_ooo", "run_ooo_task", ("fiba",)),
    # paper 004 (take no monoid: one task per seed, under the registry's placeholder monoid)
    "sketch": ("swagkit.verify.spark_decay", "run_decay_task", ("qdigest",)),
    "time_decayed": ("swagkit.verify.spark_decay", "run_decay_task", ("window_count", "window_quantiles", "value_division")),
}


def differential_algorithms(requested: Sequence[str] | None = None) -> list[str]:
    """Algorithms the Spark stage can compare: the FIFO ones and those of a kind with a runner; without
    ``requested``, a kind contributes only its default ids."""
    ids = fifo_algorithms()
    for kind, (_, _, defaults) in DIFF_RUNNERS.items():
        of_kind = [a.id for a in registry.ALGORITHMS.values() if a.kind == kind]
        ids += [a for a in of_kind if (a in requested if requested else a in defaults)]
    return ids


def fifo_algorithms() -> list[str]:
    """Registered FIFO algorithms (the ones the differential run drives through insert/evict/query)."""
    return [a.id for a in registry.ALGORITHMS.values() if a.kind == "fifo"]


@dataclass(frozen=True)
class DiffTask:
    """One seeded differential run: ``steps`` random operations on ``algorithm`` over ``monoid``."""

    algorithm: str
    monoid: str
    seed: int
    steps: int = 2000
    max_window: int = 300


@dataclass(frozen=True)
class DiffResult:
    """Outcome of a :class:`DiffTask`: ``ok``, the first difference (``detail``, at ``step``), and totals."""

    task: DiffTask
    ok: bool
    step: int
    detail: str
    operations: int
    combines: int
    compiled: bool
    #: soft findings of the spec checkers (paper 004 runs): (invariant, how many checks reported it)
    soft: tuple[tuple[str, int], ...] = ()


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
    """Run ``task`` locally: reference, optimized and model in lock-step (see the module docstring).

    Never raises for a problem found: an unexpected exception is a failed result with its message."""
    try:
        other = DIFF_RUNNERS.get(registry.algorithm(task.algorithm).kind)
        if other is not None:  # another ADT: its own runner (imported here, also in Spark workers)
            runner: Any = getattr(importlib.import_module(other[0]), other[1])
            return runner(task)  # type: ignore[no-any-return]
        return _run_task(task)
    except Exception as exc:  # reported, with the seed, rather than failing the whole Spark job
        return DiffResult(task, False, -1, f"raised {exc!r}", 0, 0, False)


def _run_task(task: DiffTask) -> DiffResult:
    import swagkit.optimized as optimized
    import swagkit.reference as reference

    entry = LIBRARY[task.monoid]
    monoid = entry.factory()
    examples = list(entry.examples)
    info = registry.algorithm(task.algorithm)
    ref = getattr(reference, info.class_name)(monoid, **info.params)
    opt = getattr(optimized, info.class_name)(monoid, **info.params)
    model: FifoSwag[Any, Any, Any] = FifoSwag(monoid)
    rng = random.Random(f"{task.algorithm}/{task.monoid}/{task.seed}")
    compiled = bool(getattr(optimized, "COMPILED", False))
    # a drifting insert probability makes windows grow, shrink and sometimes drain completely
    bias = 0.5
    for step in range(task.steps):
        if step % 97 == 0:
            bias = rng.choice((0.2, 0.5, 0.5, 0.8))
        op = "insert" if (len(model) == 0 or rng.random() < bias) and len(model) < task.max_window else "evict"
        try:
            if op == "insert":
                value = rng.choice(examples)
                ref.insert(value)
                opt.insert(value)
                model.insert(value)
            else:
                ref.evict()
                opt.evict()
                model.evict()
        except EmptyWindowError as err:  # pragma: no cover - the model guards evicts
            return DiffResult(task, False, step, f"{op}: unexpected {err!r}", step, ref.combine_count, compiled)
        got_ref, got_opt = ref.query(), opt.query()
        problem = ""
        # reference and optimized perform the same ⊗ sequence, so they must agree at every step; the model
        # (an O(n) fold) is consulted every MODEL_EVERY steps and at the end
        if not same_output(monoid, got_opt, got_ref):
            problem = f"optimized query {got_opt!r} != reference {got_ref!r}"
        elif ref.combine_count != opt.combine_count:
            problem = f"combine_count reference {ref.combine_count} != optimized {opt.combine_count}"
        elif step % MODEL_EVERY == 0 or step == task.steps - 1:
            want = model.query()
            if not same_output(monoid, got_ref, want):
                problem = f"reference query {got_ref!r} != model {want!r}"
            elif not same_output(monoid, got_opt, want):
                problem = f"optimized query {got_opt!r} != model {want!r}"
            elif ref.snapshot() != opt.snapshot():
                problem = "snapshots differ"
        if problem:
            return DiffResult(task, False, step, f"after {op} (step {step}): {problem}", step + 1, ref.combine_count, compiled)
    return DiffResult(task, True, task.steps, "", task.steps, ref.combine_count, compiled)


def _run_partition(tasks: Iterable[DiffTask]) -> Iterable[DiffResult]:
    for task in tasks:
        yield run_task(task)


def local_session(app_name: str = "swagkit-verify", cores: int = 2, retries: int = TASK_RETRIES) -> "SparkSession":
    """The embedded default: local Spark on loopback with the UI off and small shuffles; a failed task is
    retried (``local[cores,retries]``)."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master(f"local[{cores},{retries}]")
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(cores))
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    return session


def session_for(master: str, app_name: str = "swagkit-verify") -> "SparkSession":
    """A session on an explicit master URL (a cluster, or ``local[N]``)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    session = SparkSession.builder.master(master).appName(app_name).config("spark.ui.enabled", "false").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session


def run_on_spark(
    spark: "SparkSession",
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
