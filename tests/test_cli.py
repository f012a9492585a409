"""``swagkit verify`` / ``swagkit list`` run in-process through ``main(argv)``."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from swagkit.reference import TwoStacks
from swagkit.verify import registry
from swagkit.verify.cli import main

TINY = ["--examples", "4", "--steps", "12", "--jobs", "1"]


def test_verify_tiny_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "verify",
            "--no-spark",
            "--algorithm",
            "daba",
            "two_stacks",
            "--monoid",
            "string_concat",
            "--implementation",
            "reference",
            "-v",
            *TINY,
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, out + err
    header = out.splitlines()[0].split()
    assert header == ["algorithm", "monoid", "impl", "examples", "steps", "result", "time"]
    rows = [ln.split() for ln in out.splitlines()[1:4]]
    assert rows[0][:3] == ["laws", "string_concat", "-"] and rows[0][5] == "PASS"
    assert [r[:3] for r in rows[1:]] == [
        ["daba", "string_concat", "reference"],  # in the order asked for
        ["two_stacks", "string_concat", "reference"],
    ]
    assert all(r[5] == "PASS" and int(r[3]) >= 4 and int(r[4]) > 0 for r in rows[1:])
    assert "OK: 2 combinations and 1 monoid law sets passed" in out
    assert "2 combinations" in err and "[3/3]" in err  # progress on stderr, a line per task with -v


def test_the_default_summary_is_a_row_per_algorithm_and_a_progress_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", "--no-spark", "--algorithm", "daba", "two_stacks", "--monoid", "string_concat", *TINY])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert out.splitlines()[0].split() == ["algorithm", "impl", "monoids", "failed", "examples", "steps", "time"]
    rows = [ln.split() for ln in out.splitlines()[1:] if ln.startswith(("daba ", "two_stacks ", "laws "))]
    assert [r[:3] for r in rows][:1] == [["laws", "-", "1"]] and len(rows) >= 3
    assert len(err.splitlines()) <= 4  # the run's description, the implementations, one progress line


class _BrokenTwoStacks(TwoStacks):
    """Flips with the operands of ⊗ swapped: wrong for non-commutative monoids only."""

    algorithm = "broken_two_stacks"

    def _evict(self) -> None:
        if not self.F:
            while self.B:
                top = self.B.pop()
                self.F.append(type(top)(top.val, self._otimes(self._pi_F(), top.val)))
        self.F.pop()


class _FlipNotAtomic(TwoStacks):
    """The flip of swagkit 0.1 (issue 12): it moves B's elements onto F one by one, so a ⊗ that raises
    half-way leaves part of B on F -- afterwards the window answers 'dab' for 'bcd'."""

    algorithm = "flip_not_atomic"

    def _evict(self) -> None:
        if not self.F:
            while self.B:
                top = self.B[-1]
                self.F.append(type(top)(top.val, self._otimes(top.val, self._pi_F())))
                self.B.pop()
        self.F.pop()


def test_verify_catches_a_structure_a_raising_combine_leaves_wrong(capsys: pytest.CaptureFixture[str]) -> None:
    """The machines' ``combine_raises`` rule: a transient fault inside ⊗ must not lead to a wrong answer."""
    info = registry.AlgorithmInfo(
        "flip_not_atomic", "_FlipNotAtomic", "planted (test only)", "-", checker="two_stacks", budget="two_stacks"
    )
    with registry.registered(info, {"reference": _FlipNotAtomic}):
        code = main(
            [
                "verify",
                "--no-spark",
                "--algorithm",
                "flip_not_atomic",
                "--monoid",
                "string_concat",
                "--no-laws",
                "--jobs",
                "1",
            ]
        )  # the defaults find it
    out = capsys.readouterr().out
    assert code == 1, out
    assert "raising InjectedFault" in out and "of it raises (injected fault)]" in out  # the fault, in the trace
    assert "fault injection" in out and "--no-faults" in out  # its family, and the flag that skips it


@pytest.fixture
def broken() -> Iterator[str]:
    info = registry.AlgorithmInfo(
        "broken_two_stacks", "_BrokenTwoStacks", "broken (test only)", "-", checker="two_stacks", budget="two_stacks"
    )
    with registry.registered(info, {"reference": _BrokenTwoStacks}):
        yield info.id


def _verify_broken(seed: int, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(
        [
            "verify",
            "--no-spark",
            "--algorithm",
            "broken_two_stacks",
            "--monoid",
            "string_concat",
            "max_count",
            "--no-laws",
            "--examples",
            "30",
            "--steps",
            "30",
            "--seed",
            str(seed),
            "--jobs",
            "1",
        ]
    )
    return code, capsys.readouterr().out


def test_failure_exits_nonzero_with_replayable_counterexample(broken: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _verify_broken(7, capsys)
    assert code == 1
    assert "FAIL: broken_two_stacks × string_concat × reference" in out
    assert "invariant 'F.agg' violated" in out
    assert "counterexample (" in out and "\n  #1 " in out  # the numbered trace
    # max_count is commutative, so the swapped operands are invisible there -- but the flip is not atomic either
    # (it moves B onto F element by element), which the combine_raises rule catches for every generic monoid
    assert "FAILED: 2 of 2 tasks failed" in out
    reproduce = [ln for ln in out.splitlines() if ln.startswith("re-run the search: ") and "string_concat" in ln]
    assert len(reproduce) == 1
    argv = shlex.split(reproduce[0].removeprefix("re-run the search: "))
    assert argv[:2] == ["swagkit", "verify"] and "--seed" in argv
    # the printed command replays the very same shrunk counterexample
    first = out[out.index("=== FAIL") : out.index("re-run the search: ")]
    assert main(argv[1:]) == 1
    again = capsys.readouterr().out
    assert first in again


def test_a_card_running_a_share_of_the_examples_is_re_run_with_the_examples_it_was_given(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A card with a ``verify_share`` (FiBA's other μ) runs a third of ``--examples``; its re-run command names the
    examples the run was given, which the command shares the same way (it used to name the third, and re-running
    it searched a ninth)."""
    info = registry.AlgorithmInfo(
        "broken_shared", "_BrokenTwoStacks", "broken (test only)", "-", "two_stacks", "two_stacks", verify_share=3
    )
    with registry.registered(info, {"reference": _BrokenTwoStacks}):
        argv = ["verify", "--no-spark", "--algorithm", "broken_shared", "--monoid", "string_concat", "--no-laws"]
        assert main([*argv, "--examples", "30", "--steps", "30", "--seed", "7", "--jobs", "1"]) == 1
        out = capsys.readouterr().out
        (line,) = [ln for ln in out.splitlines() if ln.startswith("re-run the search: ")]
        again = shlex.split(line.removeprefix("re-run the search: "))
        assert again[again.index("--examples") + 1] == "30", line
        assert main(again[1:]) == 1
        assert out[out.index("=== FAIL") : out.index("re-run the search: ")] in capsys.readouterr().out


def test_same_seed_same_run(broken: str, capsys: pytest.CaptureFixture[str]) -> None:
    _, a = _verify_broken(3, capsys)
    _, b = _verify_broken(3, capsys)

    def strip_times(text: str) -> list[str]:
        return [
            " ".join(w for w in ln.split() if not w.endswith("s") or not w[:-1].replace(".", "").isdigit())
            for ln in text.splitlines()
            if "passed in" not in ln and "tasks failed" not in ln
        ]

    assert strip_times(a) == strip_times(b)


def test_parallel_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "verify",
            "--no-spark",
            "--algorithm",
            "daba_lite",
            "--monoid",
            "max_count",
            "string_concat",
            "--implementation",
            "reference",
            "--no-laws",
            "--examples",
            "3",
            "--steps",
            "10",
            "--jobs",
            "2",
            "-v",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    rows = [ln.split()[:3] for ln in out.splitlines()[1:3]]
    assert rows == [["daba_lite", "max_count", "reference"], ["daba_lite", "string_concat", "reference"]]


def test_quick_laws_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--no-spark", "--laws-only", "--quick", "--monoid", "sum", "max_count", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "OK: 0 combinations and 2 monoid law sets passed" in out


def test_skips_are_noted(capsys: pytest.CaptureFixture[str]) -> None:
    info = registry.AlgorithmInfo(
        "needs_inverse", "DABA", "t", "-", checker="daba", budget="daba", requires=("invertible",)
    )
    from swagkit.reference import DABA

    with registry.registered(info, {"reference": DABA}):
        code = main(
            [
                "verify",
                "--no-spark",
                "--algorithm",
                "needs_inverse",
                "--monoid",
                "string_concat",
                "--no-laws",
                "--implementation",
                "reference",
                *TINY,
            ]
        )
    out = capsys.readouterr().out
    assert code == 3  # explicitly requested implementation ran nothing
    code = 0
    with registry.registered(info, {"reference": DABA}):
        code = main(
            [
                "verify",
                "--no-spark",
                "--algorithm",
                "needs_inverse",
                "--monoid",
                "string_concat",
                "sum",
                "--no-laws",
                *TINY,
            ]
        )
    out = capsys.readouterr().out
    assert code == 0
    skipped = len(registry.available_implementations("daba"))  # string_concat, once per implementation
    assert f"skipped {skipped} combination(s): needs an invertible monoid" in out


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["verify", "--algorithm", "nope"], 2),
        (["verify", "--monoid", "nope"], 2),
        (["verify", "--implementation", "nope"], 2),
        (["verify", "--examples", "0"], 2),
        (["verify", "--no-laws", "--laws-only"], 2),
        (["frobnicate"], 2),
        ([], 2),
        (["--help"], 0),
        (["verify", "--help"], 0),
    ],
)
def test_usage(argv: list[str], code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert "usage: swagkit" in out + err or "unknown" in err or "must be positive" in err


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for aid in registry.algorithm_ids():
        assert f"\n  {aid}: " in out or f"\n  {aid} (" in out
    for mid in registry.monoid_ids():
        assert f"\n  {mid}: " in out
    assert "reference" in out and "optimized" in out
    assert max(len(line) for line in out.splitlines()) <= 100  # fits a terminal of 100 columns
    assert main(["list", "--markdown"]) == 0
    assert capsys.readouterr().out == registry.guarantees_markdown() + "\n"


def test_python_dash_m() -> None:
    env = dict(os.environ)
    result = subprocess.run(
        [sys.executable, "-m", "swagkit.verify", "--help"], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0
    assert "usage: swagkit" in result.stdout and "verify" in result.stdout


@pytest.mark.spark
def test_verify_runs_the_spark_differential_stage(spark: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """The main job's Spark part (embedded local Spark): reference vs optimized vs model on Spark workers."""
    code = main(
        [
            "verify",
            "--algorithm",
            "daba_lite",
            "two_stacks",
            "--monoid",
            "string_concat",
            "sum_i64",
            "--no-laws",
            "--quick",
            "--jobs",
            "1",
            "--spark-seeds",
            "2",
            "--spark-steps",
            "300",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "OK: spark differential, 8 runs, 2,400 operations" in out


@pytest.mark.spark
def test_spark_stage_covers_paper_004_and_the_merge_run(spark: Any) -> None:
    """``swagkit verify --algorithm qdigest window_quantiles``'s Spark stage: one task per seed for each (they
    take no monoid), and the q-digest merge run with its own summary line."""
    import io

    from swagkit.verify.cli import build_parser
    from swagkit.verify.cli.main_job import spark_stage

    args = build_parser().parse_args(
        ["verify", "--algorithm", "qdigest", "window_quantiles", "--spark-seeds", "1", "--spark-steps", "200"]
    )
    out, err = io.StringIO(), io.StringIO()
    assert spark_stage(args, out, err) == 0, out.getvalue()
    text = out.getvalue()
    assert "OK: spark differential, 2 runs" in text and "0 ⊗ calls compared" in text
    from swagkit.spec.decay.bounds import qdigest_size_bound

    assert "OK: spark qdigest merge, 1 run(s) of 4,000 items" in text
    assert f"(bound {qdigest_size_bound(10, 0.05)})" in text
    assert "; optimized merge == reference merge (" in text


@pytest.mark.crosshair
def test_verify_crosshair_stage(capsys: pytest.CaptureFixture[str]) -> None:
    """``--crosshair`` runs CrossHair over the symbolic contracts (a short budget here; the full one runs in
    tests/test_crosshair.py) and reports that no counterexample was found."""
    code = main(["verify", "--laws-only", "--no-spark", "--monoid", "sum", "--crosshair", "--crosshair-timeout", "1"])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert "crosshair: no counterexample" in out and "crosshair: contracts of swagkit.verify.symbolic" in err


def test_verify_crosshair_stage_reports_a_counterexample(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A counterexample from CrossHair fails the run (exit 1) and its report is printed."""
    report = "symbolic.py:99: error: false when calling agrees_fiba(3) (which returns False)\n"

    def fake_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        assert cmd[1:4] == ["-m", "crosshair", "check"] and "--per_condition_timeout=3" in cmd
        return subprocess.CompletedProcess(cmd, 1, report, "")

    monkeypatch.setattr(subprocess, "run", fake_run)
    code = main(["verify", "--laws-only", "--no-spark", "--monoid", "sum", "--crosshair", "--crosshair-timeout", "3"])
    out, _ = capsys.readouterr()
    assert code == 1
    assert "crosshair: FAILED (exit 1" in out and "agrees_fiba(3)" in out


def test_verify_catches_an_out_of_order_structure_that_forgets_a_raising_combine(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The out-of-order machine's ``combine_raises``: after a ⊗ fails mid-surgery the structure must be as
    before or refuse (BrokenAggregatorError) until repair(); one that carries on with stale aggregates fails."""
    sys.path.insert(0, os.path.dirname(__file__))
    try:
        from planted.forgets_failed_combine import ForgetsFailedCombine
    finally:
        sys.path.pop(0)
    info = registry.AlgorithmInfo(
        "fiba_forgets",
        "ForgetsFailedCombine",
        "planted (test only)",
        "-",
        kind="out_of_order",
        checker="fiba",
        budget="fiba",
        params={"min_arity": 2},
    )
    with registry.registered(info, {"reference": ForgetsFailedCombine}):
        code = main(
            [
                "verify",
                "--no-spark",
                "--algorithm",
                "fiba_forgets",
                "--monoid",
                "string_concat",
                "--no-laws",
                "--jobs",
                "1",
            ]
        )
    out = capsys.readouterr().out
    assert code == 1, out
    assert "of it raises (injected fault)]" in out and "violated" in out  # the stale aggregates, in the trace


def test_a_selection_that_runs_nothing_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    """SlickDeque Inv needs an invertible monoid: with only string_concat nothing can run -- not an OK."""
    code = main(["verify", "--no-spark", "--algorithm", "slickdeque_inv", "--monoid", "string_concat", *TINY])
    out, err = capsys.readouterr()
    assert code == 3, out + err
    assert "runs no combination" in err and "needs an invertible monoid" in err and "OK" not in out


def test_verify_names_the_implementation_it_ran(capsys: pytest.CaptureFixture[str]) -> None:
    import swagkit.optimized

    code = main(["verify", "--no-spark", "--no-laws", "--algorithm", "daba_lite", "--monoid", "sum_i64", *TINY])
    out = capsys.readouterr().out
    assert code == 0, out
    if swagkit.optimized.COMPILED:
        assert "implementations: optimized (compiled), reference" in out
    else:
        assert "optimized (pure-Python fallback" in out


def test_a_failed_spark_job_exits_4_not_1(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A Spark job that fails (lost executors, a worker killed more often than retried) is not a verification
    result: exit status 4 and a message saying so, never the 1 of a found bug."""
    from swagkit.verify import spark

    def broken_job(*args: Any, **kwargs: Any) -> Any:
        raise spark.SparkJobError("the Spark job failed: Python worker exited unexpectedly (crashed)")

    monkeypatch.setattr(spark, "run_on_spark", broken_job)
    monkeypatch.setattr(spark, "local_session", lambda *a, **k: None)
    code = main(["verify", "--algorithm", "daba_lite", "--monoid", "sum_i64", "--spark-steps", "20", *TINY])
    out = capsys.readouterr().out
    assert code == 4, out
    assert "spark: FAILED TO RUN (SparkJobError)" in out and "not a verification result" in out


# tests/conftest.py: the command line's behaviour does not depend on the compiled switch;
# it runs in one pass only (the compiled one)
pytestmark = pytest.mark.once
