"""Issue 25 §1: budgets in seconds. ``--budget SECONDS`` searches in rounds of further seeds with more examples each
(:func:`swagkit.verify.runner.search_rounds`), ``--jobs`` deals the seeds to forked workers
(:mod:`swagkit.verify.rounds`); the ⊗ bounds moved to ``--combine-budget ALGO``.

* The rounds are bounded: a passing run ends within its budget plus one round's overrun, and runs more examples
  than one round of ``--examples`` when the budget allows.
* A finding names its round as a command line (``--seed S --examples N``), and that command, run without a
  budget, finds the failure again: a round is a plain run.
* ``--jobs`` over an ``--exec`` program: each worker starts a program of its own; the parent's keeps running.
* The old spelling ``--budget ALGO`` is one line and exit 2 naming ``--combine-budget``.
* The main job shares its budget: a first round for every combination, then the seconds left in equal shares
  sized by each first round's measured speed (no search overdraws its share by more than an example); a search
  whose one example would not fit gets none. By default a selection gets seconds in proportion to its size.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from conftest import needs_cc

from swagkit.verify.cli import main
from swagkit.verify.cli.main_job import FIRST_ROUND_EXAMPLES, MIN_RUN_SECONDS, SECONDS_PER_SEARCH
from swagkit.verify.options import Options, UsageError
from swagkit.verify.rounds import further_rounds, search_rounds_parallel
from swagkit.verify.runner import Finding, Outcome, Task, search_rounds

#: independent of swagkit.optimized: run once, in the pure-Python pass
pytestmark = pytest.mark.once
ONCE_PASS = "pure"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_rounds_double_the_examples_on_consecutive_seeds_until_the_budget_is_spent() -> None:
    ran: list[tuple[int, int]] = []

    def run_round(seed: int, examples: int) -> Outcome:
        ran.append((seed, examples))
        time.sleep(0.001 * examples)
        return Outcome("m", "PASS", 0.0, examples, examples)

    start = time.perf_counter()
    total = search_rounds(run_round, seconds=0.5, examples=4, seed=10)
    took = time.perf_counter() - start
    assert [s for s, _ in ran] == list(range(10, 10 + len(ran)))
    assert all(b <= 2 * a for (_, a), (_, b) in zip(ran, ran[1:]))
    assert total.examples == sum(n for _, n in ran) > 4
    assert took < 0.5 + 0.2  # the last round is cut to the time left at the speed measured
    assert total.details["rounds"] == len(ran) and total.status == "PASS"


def test_a_finding_of_a_stopping_family_ends_the_rounds_and_a_contract_one_does_not() -> None:
    from swagkit.verify.runner import Finding

    def failing_at(seed_of_failure: int, family: str):  # type: ignore[no-untyped-def]
        def run_round(seed: int, examples: int) -> Outcome:
            findings = [Finding(family, "boom")] if seed == seed_of_failure else []
            return Outcome("m", "FAIL" if findings else "PASS", 0.0, examples, 0, findings)

        return run_round

    total = search_rounds(failing_at(2, "correctness"), seconds=60, examples=1, seed=0)
    assert total.status == "FAIL" and total.details["rounds"] == 3 and total.details["seed"] == 2
    total = search_rounds(failing_at(0, "misuse"), seconds=0.05, examples=1, seed=0)
    assert total.status == "FAIL" and total.details["rounds"] > 1  # reported, and the search went on


def test_parallel_rounds_deal_the_seeds_and_stop_when_one_worker_fails() -> None:
    def run_round(seed: int, examples: int) -> Outcome:
        from swagkit.verify.runner import Finding

        time.sleep(0.01)
        findings = [Finding("correctness", f"seed {seed}")] if seed == 5 else []
        return Outcome("m", "FAIL" if findings else "PASS", 0.01, examples, 0, findings)

    start = time.perf_counter()
    total = search_rounds_parallel(run_round, seconds=30, examples=1, seed=0, jobs=2)
    assert time.perf_counter() - start < 20  # the other worker stopped at its next round
    assert total.status == "FAIL" and total.findings[0].failure == "seed 5" and total.details["seed"] == 5


def test_the_budget_is_seconds_and_the_old_spelling_names_the_new_flag(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["verify", "--impl", "swagkit.reference:TwoStacks", "--budget", "two_stacks"], capsys)
    assert code == 2 and "--combine-budget two_stacks" in err and "Traceback" not in err
    for bad in ("0", "-3", "nan", "inf"):
        code, _, err = _run(["verify", "--impl", "swagkit.reference:TwoStacks", "--budget", bad, "--no-spark"], capsys)
        assert code == 2 and "--budget" in err and len(err.strip().splitlines()) == 1, err
    with pytest.raises(UsageError, match="combine_budget='fiba'"):
        Options.of(kind="ooo", budget="fiba")


def test_a_budgeted_run_names_its_failing_round_and_that_round_alone_fails_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    impl = "planted_ooo_bugs:BulkSizeStale"
    base = ["verify", "--impl", impl, "--kind", "ooo", "--monoid", "string_concat", "--no-spark"]
    base += ["--replay-dir", str(tmp_path), "--seed", "3"]
    code, out, _ = _run([*base, "--budget", "60", "--jobs", "1"], capsys)
    assert code == 1, out
    found = re.search(r"\[--seed (\d+) --examples (\d+)\]", out)
    assert found, out
    seed, examples = found.groups()
    assert int(seed) >= 3
    rest = base[: base.index("--seed")]
    code, out, _ = _run([*rest, "--seed", seed, "--examples", examples], capsys)
    assert code == 1 and "BulkSizeStale" in out


def test_a_passing_budgeted_run_searches_more_than_one_round_within_its_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["verify", "--impl", "swagkit.reference:TwoStacks", "--monoid", "string_concat", "sum_i64"]
    argv += ["--no-spark", "--replay-dir", str(tmp_path), "--budget", "4", "--jobs", "1"]
    start = time.perf_counter()
    code, out, _ = _run(argv, capsys)
    took = time.perf_counter() - start
    assert code == 0, out
    counts = [int(n) for n in re.findall(r"PASS +[\d.]+s +(\d+) examples", out)]
    assert len(counts) == 2 and all(n > 12 for n in counts), out
    assert took < 4 + 6, took  # the budget, plus at most one round's overrun per monoid


@needs_cc
def test_parallel_workers_over_a_program_start_their_own_and_leave_the_parents(tmp_path: Path) -> None:
    import subprocess

    from swagkit.verify.impl import run_all
    from swagkit.verify.options import conformance_choices
    from swagkit.verify.process import process_factory

    exe = tmp_path / "daba_lite"
    src = Path(__file__).parent / "protocol" / "daba_lite.c"
    subprocess.run(["cc", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-o", str(exe), str(src)], check=True)
    factory = process_factory(str(exe), "fifo")
    try:
        pid = factory.driver._proc.pid if factory.driver._proc else None
        choices = conformance_choices(factory, ["sum_i64", "max_i64"])
        options = Options.of(kind="fifo", budget=2.0, jobs=2, replay_dir=None)
        results = run_all(factory, choices, options, after_fork=factory.restart)
        assert [r.status for r in results] == ["PASS", "PASS"]
        assert all(r.details["rounds"] >= 2 for r in results)  # both workers ran
        assert factory.driver.alive and factory.driver._proc is not None and factory.driver._proc.pid == pid
    finally:
        factory.close()


def test_a_shrink_budget_bounds_the_shrink_and_the_replay_still_reproduces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 §4: ``--shrink-budget`` stops Hypothesis' shrinking; the example reported is the smallest failing one
    found by then, re-run last, so its replay file reproduces the failure."""
    argv = ["verify", "--impl", "planted_ooo_bugs:DeepKeyBulkNewFirst", "--kind", "ooo", "--monoid", "string_concat"]
    argv += ["--no-spark", "--replay-dir", str(tmp_path), "--examples", "12", "--jobs", "1"]
    timed = {}
    for shrink in ("0.2", "6"):
        start = time.perf_counter()
        code, out, _ = _run([*argv, "--shrink-budget", shrink], capsys)
        timed[shrink] = time.perf_counter() - start
        assert code == 1 and "(it reproduces the failure)" in out, out
    assert timed["0.2"] < timed["6"]
    code, _, err = _run([*argv, "--shrink-budget", "0"], capsys)
    assert code == 2 and "--shrink-budget" in err


def test_the_main_job_spends_its_budget_after_a_first_round_of_every_combination(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["verify", "--no-spark", "--no-engines", "--algorithm", "daba_lite", "two_stacks", "--monoid"]
    argv += ["string_concat", "sum_i64", "--implementation", "reference", "--no-laws", "--jobs", "1", "-v"]
    start = time.perf_counter()
    code, out, err = _run([*argv, "--budget", "3"], capsys)
    took = time.perf_counter() - start
    assert code == 0, out
    assert f"a first round of {FIRST_ROUND_EXAMPLES} examples" in err and "further rounds: 4 searches" in err, err
    counts = [int(n) for n in re.findall(r"reference +(\d+) +\d+ +PASS", out)]
    assert len(counts) == 4 and all(n > FIRST_ROUND_EXAMPLES for n in counts), out
    assert took < 3 + 2, took  # the budget, overdrawn by at most an example per search
    # by default the selection's size sets the seconds, at least a floor (four cheap searches: two seconds)
    start = time.perf_counter()
    code, out, err = _run(argv, capsys)
    took = time.perf_counter() - start
    default = max(MIN_RUN_SECONDS, 4 * SECONDS_PER_SEARCH)
    assert code == 0 and f"until {default:.3g} s are spent" in err, err
    assert took < default + 3, took


def test_further_rounds_share_the_seconds_left_by_measured_speed() -> None:
    tasks = [Task("machine", m, None, examples=6, seed=4) for m in ("cheap", "dear", "failed", "dearest")]
    first = [
        Outcome("cheap", "PASS", 0.06, 6, task=tasks[0]),  # 0.01 s an example
        Outcome("dear", "PASS", 0.6, 6, task=tasks[1]),  # 0.1 s an example
        Outcome(
            "failed", "FAIL", 0.06, 6, findings=[Finding("correctness", "x")], task=tasks[2]
        ),  # stopped: no more rounds
        Outcome("dearest", "PASS", 60.0, 6, task=tasks[3]),  # 10 s an example: more than a share
    ]
    further = further_rounds(first, seconds=1.0, jobs=2)  # 2 worker-seconds for the two that may go on
    assert [(t.monoid, t.seed, t.examples, t.seconds) for t in further] == [("cheap", 5, 12, 1.0), ("dear", 5, 10, 1.0)]
    assert further_rounds(first, seconds=0.0, jobs=2) == []


def test_a_deadline_holds_a_search_to_the_run_s_end_whatever_its_estimates_missed() -> None:
    now, ran = [0.0], []

    def run_round(seed: int, examples: int) -> Outcome:
        ran.append((seed, examples))
        now[0] += examples  # a second an example
        return Outcome("m", "PASS", float(examples), examples, 0)

    total = search_rounds(run_round, seconds=100, examples=4, seed=0, clock=lambda: now[0], deadline=7, per_example=1.0)
    assert ran == [(0, 4), (1, 3)] and now[0] == 7 and total.details["rounds"] == 2  # the second round cut to fit
    ran.clear()
    late = search_rounds(run_round, seconds=100, examples=4, seed=0, clock=lambda: now[0], deadline=7.5, per_example=1)
    assert ran == [] and late.examples == 0 and late.details["rounds"] == 0  # its turn came too late: no round
