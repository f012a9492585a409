"""Every failure writes a replay file (issue 14 §3): ``swagkit verify`` over a registered algorithm, the test
suite's machines, and the Spark stage. The file names its implementation by registry id, ``swagkit replay FILE``
re-runs it there (exit 1 while it fails, 0 once the implementation is fixed), and a Spark mismatch comes back
as a short trace cut at the first divergence and shrunk by delta debugging (a decay structure's mismatch, and a
failed merge run, as a file that re-runs the task locally)."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from swagkit.reference.daba_lite import DABALite
from swagkit.spec.errors import InvariantViolation, ModelMismatch
from swagkit.verify import registry
from swagkit.verify.cli import main
from swagkit.verify.machine import run_machine
from swagkit.verify.replayfile import read

sys.path.insert(0, str(Path(__file__).parent))
from planted_bugs import SwappedShrink  # noqa: E402

sys.path.pop(0)

PLANTED = registry.AlgorithmInfo(
    "planted_replay",
    "SwappedShrink",
    "DABA Lite with a swapped shrink",
    "tests/planted_bugs.py",
    "daba_lite",
    "daba_lite",
)


@pytest.fixture
def replay_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SWAGKIT_REPLAY_DIR", str(tmp_path))
    return tmp_path


@pytest.fixture
def planted() -> Iterator[str]:
    with registry.registered(PLANTED, {"reference": SwappedShrink}):
        yield PLANTED.id


def _replay(path: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["replay", path])
    return code, capsys.readouterr().out


@pytest.mark.once
def test_verify_failure_writes_a_replay_that_fails_until_the_bug_is_fixed(
    planted: str, replay_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["verify", "--no-spark", "--no-laws", "--algorithm", planted, "--monoid", "string_concat"]
    code = main([*args, "--examples", "60", "--steps", "50", "--seed", "0", "--jobs", "1"])
    out = capsys.readouterr().out
    assert code == 1
    line = next(ln for ln in out.splitlines() if ln.startswith("reproduce: swagkit replay "))
    path = shlex.split(line)[-1]
    assert Path(path).parent == replay_dir and f"replay file: {path} (it reproduces the failure)" in out
    file = read(path)
    header, ops = file.header, file.steps
    assert (header["algorithm"], header["implementation"], header["kind"]) == (planted, "reference", "fifo")
    assert header["monoid"] == "string_concat" and header["checker"] == "daba_lite"
    assert "invariant" in header["failure"] and header["rerun"]["examples"] == 60
    assert 1 <= len(ops) <= 10  # the shrunk trace
    code, text = _replay(path, capsys)
    assert code == 1 and "invariant 'lA' violated" in text
    registry.unregister_algorithm(planted)
    with registry.registered(PLANTED, {"reference": DABALite}):  # the same id, the bug fixed
        code, text = _replay(path, capsys)
    assert code == 0 and "PASS" in text


@pytest.mark.once
def test_a_failing_test_suite_machine_writes_its_file_and_names_it(planted: str, replay_dir: Path) -> None:
    with pytest.raises((InvariantViolation, ModelMismatch)) as caught:
        run_machine(planted, "string_concat", max_examples=60, steps=50, seed=0)
    path = caught.value.swagkit_replay  # type: ignore[attr-defined]
    assert f"replay file: {path}" in caught.value.__notes__  # what pytest prints under the failure
    assert Path(path).parent == replay_dir and read(path).header["algorithm"] == planted
    assert caught.value.swagkit_reproduces is True  # type: ignore[attr-defined]


@pytest.mark.once
def test_a_machine_without_an_operation_trace_replays_its_seeded_search(replay_dir: Path) -> None:
    """A kind whose machine builds several objects from drawn parameters (here the sketch kind) writes a
    Python-only file that re-runs the same seeded search."""
    from swagkit.reference.qdigest import QDigest

    class LosesWeight(QDigest):  # type: ignore[misc]
        def insert(self, value: int, weight: int = 1) -> None:
            super().insert(value, weight - 1 if weight > 1 else weight)

    info = replace(registry.algorithm("qdigest"), id="planted_qdigest", class_name="LosesWeight")
    with registry.registered(info, {"reference": LosesWeight}):
        with pytest.raises(AssertionError) as caught:
            run_machine(info.id, "count", max_examples=20, steps=20, seed=1)
        path = caught.value.swagkit_replay  # type: ignore[attr-defined]
        header = json.loads(Path(path).read_text().splitlines()[0])
        assert header["python_only"] == "rerun" and header["kind"] == "sketch"
        assert main(["replay", path]) == 1


@pytest.mark.spark
def test_a_spark_mismatch_comes_back_as_a_short_replay(
    spark: Any, replay_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import swagkit.optimized
    from swagkit.verify.spark import DiffTask, replay_failure, run_on_spark

    def planted_partition(tasks: Any) -> Any:  # nested: cloudpickle ships it (and the planted class) by value
        import swagkit.optimized as optimized
        from swagkit.verify.spark import run_task

        base = optimized.DABA

        class OffAtSeven(base):  # type: ignore[misc, valid-type]
            def query(self) -> Any:
                answer = super().query()
                return answer + "!" if len(self) == 7 else answer

        optimized.DABA = OffAtSeven
        try:
            return [run_task(t) for t in tasks]
        finally:
            optimized.DABA = base

    [result] = run_on_spark(spark, [DiffTask("daba", "string_concat", seed=1, steps=500)], 1, planted_partition)
    assert not result.ok and "!= reference" in result.detail
    base = swagkit.optimized.DABA

    class OffAtSeven(base):  # type: ignore[misc, valid-type]  # the same bug on the driver, where the seed re-runs
        def query(self) -> Any:
            answer = super().query()
            return answer + "!" if len(self) == 7 else answer

    monkeypatch.setattr(swagkit.optimized, "DABA", OffAtSeven)
    path = replay_failure(result)
    file = read(path)
    header, ops = file.header, file.steps
    assert (header["implementation"], header["against"], header["spark"]["seed"]) == ("optimized", "reference", 1)
    assert len(ops) <= 10  # 7 inserts and the query that answers wrong
    assert _replay(path, capsys)[0] == 1
    monkeypatch.setattr(swagkit.optimized, "DABA", base)
    code, text = _replay(path, capsys)
    assert code == 0, text


@pytest.mark.spark
def test_a_decay_kind_spark_mismatch_and_a_failed_merge_come_back_as_replays(
    spark: Any, replay_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A q-digest whose optimized class answers one rank too high once it holds 60 items and whose merge adds
    a stray count: the CLI's Spark stage prints a replay file for the differential run and for the merge run;
    ``swagkit replay`` re-runs each locally (exit 1), and exits 0 with the correct class under the same id."""
    import io

    import swagkit.optimized
    from swagkit.verify import spark as spark_mod
    from swagkit.verify.cli import build_parser
    from swagkit.verify.cli.main_job import spark_stage
    from swagkit.verify.kinds.decay.spark import spark_slices

    planted_id = "planted_qdigest_spark"

    def planted() -> Any:  # local: cloudpickle ships it (and so the class) to the workers by value
        import swagkit.optimized as optimized

        class OffAfterSixty(optimized.QDigest):  # type: ignore[misc, name-defined]
            def rank(self, x: int) -> int:
                return int(super().rank(x)) + (self.total > 60)

            def merge(self, other: Any) -> None:
                super().merge(other)
                self.insert(0)

        return OffAfterSixty

    def planted_partition(tasks: Any) -> Any:  # the planted id is registered in the worker too
        from dataclasses import replace

        from swagkit.verify import registry
        from swagkit.verify.spark import run_task

        with registry.registered(replace(registry.algorithm("qdigest"), id=planted_id), {"optimized": planted()}):
            return [run_task(t) for t in tasks]

    run_on_spark = spark_mod.run_on_spark
    monkeypatch.setattr(spark_mod, "run_on_spark", lambda s, tasks: run_on_spark(s, tasks, 1, planted_partition))
    info = replace(registry.algorithm("qdigest"), id=planted_id)
    args = ["verify", "--algorithm", planted_id, "--monoid", "count", "--spark-seeds", "1", "--spark-steps", "300"]
    out = io.StringIO()
    with registry.registered(info, {"optimized": planted()}):
        assert spark_stage(build_parser().parse_args(args), out, io.StringIO()) == 1
        paths = [shlex.split(ln)[-1] for ln in out.getvalue().splitlines() if ln.startswith("replay: swagkit replay ")]
        assert len(paths) == 2, out.getvalue()  # the differential run, then the merge run
        (diff, diff_ops), (merge, merge_ops) = ((f.header, f.rows) for f in map(read, paths))
        assert (diff["python_only"], diff["kind"], diff["algorithm"]) == ("diff", "sketch", planted_id)
        assert (diff["implementation"], diff["against"], diff["diff"]["seed"]) == ("optimized", "reference", 0)
        assert "optimized answered" in diff["failure"] and diff_ops[-1]["op"] == "rank"  # cut where it diverged
        assert merge["python_only"] == "merge" and merge["merge"]["items"] == 6000
        items = list(range(merge["merge"]["items"]))  # the local replay slices as parallelize does
        assert spark_slices(items, 8) == spark.sparkContext.parallelize(items, 8).glom().collect()
        for path in paths:
            code, text = _replay(path, capsys)
            assert code == 1 and "replay: FAIL" in text
    with registry.registered(info, {"optimized": swagkit.optimized.QDigest}):  # the same id, the bug fixed
        for path in paths:
            code, text = _replay(path, capsys)
            assert code == 0 and "replay: PASS" in text, text
