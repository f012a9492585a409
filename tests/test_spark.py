"""The Spark differential pipeline: local runs are replayable, Spark runs agree with them, bugs are caught."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

import swagkit.optimized
from swagkit.verify.spark import DiffTask, make_tasks, run_on_spark, run_task, summarize

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    from swagkit.verify.spark import local_session

    session = local_session("swagkit-tests")
    yield session
    session.stop()


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
    tasks = make_tasks(["two_stacks", "two_stacks_lite", "daba", "daba_lite", "recalc"],
                       ["string_concat", "max_count", "sum_i64", "geomean", "stddev_sample"], seeds=2, steps=800)
    results = run_on_spark(spark, tasks)
    assert [r.task for r in results] == tasks
    summary = summarize(results)
    assert summary["failures"] == [] and summary["tasks"] == len(tasks)
    assert summary["operations"] == 800 * len(tasks)
    # the workers computed exactly what a local replay computes
    assert results[4] == run_task(tasks[4])
