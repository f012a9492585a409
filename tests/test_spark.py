"""The Spark differential pipeline: local runs are replayable, Spark runs agree with them, bugs are caught."""

from __future__ import annotations

from typing import Any

import pytest

import swagkit.optimized
import swagkit.reference
from swagkit.verify.spark import DiffTask, make_tasks, run_on_spark, run_task, summarize

pytestmark = pytest.mark.spark


def test_run_task_is_deterministic_and_passes() -> None:
    task = DiffTask("daba_lite", "string_concat", seed=3, steps=1500)
    first, second = run_task(task), run_task(task)
    assert first == second
    assert first.ok and first.operations == 1500 and first.combines > 1500


def test_run_task_reports_the_first_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A wrong optimized class (its query is off whenever the window holds exactly 7 items) is caught,
    with the step at which it first answered wrong."""
    base = swagkit.optimized.DABA

    class OffAtSeven(base):  # type: ignore[misc, valid-type]
        def query(self) -> Any:
            answer = super().query()
            return answer + "!" if len(self) == 7 else answer

    monkeypatch.setattr(swagkit.optimized, "DABA", OffAtSeven)
    result = run_task(DiffTask("daba", "string_concat", seed=1, steps=500))
    assert not result.ok
    assert "optimized query" in result.detail and "!= reference" in result.detail and result.step < 500


def test_spark_runs_every_in_order_algorithm(spark: Any) -> None:
    tasks = make_tasks(
        ["two_stacks", "two_stacks_lite", "daba", "daba_lite", "recalc"],
        ["string_concat", "max_count", "sum_i64", "geomean", "stddev_sample"],
        seeds=2,
        steps=800,
    )
    results = run_on_spark(spark, tasks)
    assert [r.task for r in results] == tasks
    summary = summarize(results)
    assert summary["failures"] == [] and summary["tasks"] == len(tasks)
    assert summary["operations"] == 800 * len(tasks)
    # the workers computed exactly what a local replay computes
    assert results[4] == run_task(tasks[4])


# ---------------------------------------------------------------------------------------------- paper 004

DECAY_IDS = ["qdigest", "window_count", "window_quantiles", "value_division"]


def test_decay_runner_passes_for_every_paper_004_structure_on_spark(spark: Any) -> None:
    """Every paper-004 id, the three parameter settings (seeds 0-2), reference vs optimized vs the exact oracle
    on Spark workers. These structures take no monoid: one task per seed, under the placeholder ``count``."""
    tasks = make_tasks(DECAY_IDS, ["string_concat", "count", "sum_i64"], seeds=3, steps=400)
    assert [(t.algorithm, t.monoid, t.seed) for t in tasks] == [(a, "count", s) for a in DECAY_IDS for s in range(3)]
    results = run_on_spark(spark, tasks)
    assert [r.task for r in results] == tasks
    assert [r.detail for r in results if not r.ok] == []
    for r in results:
        # 200 arrivals (each a lock-step insert, plus clock advances), 50 lock-step queries, checkpoint answers
        assert r.step == 200 and r.operations >= 250 and r.combines == 0
        assert r.compiled == swagkit.optimized.COMPILED
    # the spec checkers ran and reported the soft findings they report (P3 closure gaps of every q-digest)
    assert dict(results[0].soft).get("closure", 0) > 0
    # the workers computed exactly what a local replay computes
    assert results[7] == run_task(tasks[7])


def test_decay_runner_reports_a_wrong_optimized_answer_with_its_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    """An optimized window-quantile structure whose quantile is one too high once the window holds 64 items is
    caught at the lock-step comparison, with its seed and step (the reference stays right)."""
    base = swagkit.optimized.SlidingWindowQuantiles

    class OffByOne(base):  # type: ignore[misc, valid-type]
        def quantile(self, phi: float, w: int) -> Any:
            q = super().quantile(phi, w)
            return q + 1 if q is not None and self.count(w) >= 64 else q

    monkeypatch.setattr(swagkit.optimized, "SlidingWindowQuantiles", OffByOne)
    result = run_task(DiffTask("window_quantiles", "count", seed=5, steps=600))
    assert not result.ok and result.task.seed == 5 and 0 <= result.step < 300
    assert "quantile(" in result.detail and "optimized answered" in result.detail


def test_decay_runner_reports_a_corrupted_snapshot(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers agree but the optimized snapshot claims one more unit of weight: caught at the first checkpoint."""
    import dataclasses

    base = swagkit.optimized.QDigest

    class Corrupt(base):  # type: ignore[misc, valid-type]
        def snapshot(self) -> Any:
            s = super().snapshot()
            return dataclasses.replace(s, total=s.total + 1)

    monkeypatch.setattr(swagkit.optimized, "QDigest", Corrupt)
    result = run_task(DiffTask("qdigest", "count", seed=2, steps=400))
    assert not result.ok and result.task.seed == 2
    assert "snapshots differ: total" in result.detail and result.step == 50  # the first checkpoint


def test_decay_runner_checks_answers_against_the_exact_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both implementations overcount non-empty windows by one, identically: lock-step comparison and snapshots
    agree, so only the oracle check (Theorem 1: 0 <= D_w - D̂_w <= ε·D_w) can catch it -- and does."""
    import swagkit.reference

    for module in (swagkit.reference, swagkit.optimized):

        class Overcounts(module.SlidingWindowCount):  # type: ignore[misc, name-defined]
            def count(self, w: int) -> int:
                c = super().count(w)
                return c + 1 if c else c

        monkeypatch.setattr(module, "SlidingWindowCount", Overcounts)
    result = run_task(DiffTask("window_count", "count", seed=1, steps=400))
    assert not result.ok and "answer outside the guarantee: count(" in result.detail


def test_qdigest_merge_run_on_spark(spark: Any) -> None:
    """q-digests per partition merged by reduce: whole-stream rank and size bounds, compiled == reference."""
    from swagkit.spec.decay.bounds import qdigest_size_bound
    from swagkit.verify.kinds.decay.spark import MergeTask, run_merge_on_spark

    task = MergeTask("qdigest", seed=1, items=6000, partitions=4, chunk=400)
    result = run_merge_on_spark(spark, task, (swagkit.reference.QDigest, swagkit.optimized.QDigest))
    assert result.ok, result.detail
    # one digest per started chunk of 400 items in every partition (pyspark slices by serialized batches)
    sizes = spark.sparkContext.parallelize(list(range(task.items)), task.partitions).glom().map(len).collect()
    assert sum(sizes) == 6000 and result.digests == sum(-(-n // 400) for n in sizes) > 15
    assert result.size_bound == qdigest_size_bound(10, 0.05) and 0 < result.nodes <= result.size_bound
    assert 0.0 <= result.rank_error <= 1.0
    assert result.compiled == swagkit.optimized.COMPILED


def test_qdigest_merge_run_catches_a_lossy_merge(spark: Any) -> None:
    """A merge that forgets one range of the other digest: as the optimized class it differs from the reference
    merge; used on both sides, the merged digest breaks conservation against the exact stream."""
    from pathlib import Path

    from swagkit.reference.qdigest import QDigest
    from swagkit.verify.kinds.decay.spark import MergeTask, run_merge_on_spark

    spark.sparkContext.addPyFile(str(Path(__file__).with_name("planted_decay_bugs.py")))
    from planted_decay_bugs import DropsLastRange

    task = MergeTask("qdigest", seed=3, items=3000, partitions=3, chunk=500)
    # the lost range is caught by the comparison with the reference merge or, as soon as Spark pickles the
    # broken digest between tasks, by the snapshot check every unpickling runs (total ≠ sum of the counts)
    broken_snapshot = "differs from the sum of the counts"
    one_sided = run_merge_on_spark(spark, task, classes=(QDigest, DropsLastRange))
    assert not one_sided.ok and one_sided.task.seed == 3
    assert "merged snapshots differ" in one_sided.detail or broken_snapshot in one_sided.detail
    both = run_merge_on_spark(spark, task, classes=(DropsLastRange, DropsLastRange))
    assert not both.ok and ("conservation" in both.detail or broken_snapshot in both.detail)


# ---------------------------------------------------------------------------------------------- faults (issue 12)


def test_a_killed_python_worker_is_retried_and_every_seed_counted_once(spark: Any, tmp_path: Any) -> None:
    """The first attempt of one partition kills its Python worker (as the OOM killer would); the embedded
    default ``local[2,4]`` retries the task, and the results account for every seed exactly once."""
    import os
    import signal

    from swagkit.verify.spark import differential as spark_mod

    marker = str(tmp_path / "killed-once")
    tasks = make_tasks(["daba_lite", "two_stacks"], ["string_concat", "sum_i64"], seeds=3, steps=200)

    def killing_partition(part: Any) -> Any:  # nested: cloudpickle ships it by value to the workers
        items = list(part)
        if any(t.seed == 1 and t.algorithm == "two_stacks" for t in items):
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
        return spark_mod._run_partition(items)

    results = run_on_spark(spark, tasks, run_partition=killing_partition)
    assert os.path.exists(marker), "the fault was not injected"
    assert [r.task for r in results] == tasks
    assert all(r.ok for r in results)
    for r in results:  # the retried partition's results are what a local replay computes
        if r.task.algorithm == "two_stacks" and r.task.seed == 1:
            assert r == run_task(r.task)


def test_a_job_failure_is_a_spark_job_error_not_a_verification_result(spark: Any) -> None:
    from swagkit.verify.spark import SparkJobError

    tasks = make_tasks(["daba_lite"], ["string_concat"], seeds=2, steps=50)

    def always_dies(part: Any) -> Any:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
        return []

    with pytest.raises(SparkJobError, match="the Spark job failed"):
        run_on_spark(spark, tasks, run_partition=always_dies)


def test_lost_results_are_a_spark_job_error(spark: Any) -> None:
    from swagkit.verify.spark import SparkJobError

    tasks = make_tasks(["daba_lite"], ["string_concat"], seeds=4, steps=50)

    def drops_one(part: Any) -> Any:
        from swagkit.verify.spark import differential as spark_mod

        items = [t for t in part if t.seed != 2]
        return spark_mod._run_partition(items)

    with pytest.raises(SparkJobError, match="lost or duplicated"):
        run_on_spark(spark, tasks, run_partition=drops_one)
