"""The scale run (``swagkit verify --spark``, :mod:`swagkit.verify.spark.scale`): long traces of every window
shape against a fast oracle, for registered algorithms, a user's Python class and a user's program; findings come
back shrunk as replay files; a worker killed mid-run loses no seed and counts none twice."""

from __future__ import annotations

import io
import os
import random
import shutil
import signal
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest

from swagkit.optimized import TwoStacksLite
from swagkit.spec.library import LIBRARY
from swagkit.verify import replay, replayfile
from swagkit.verify.cli import main
from swagkit.verify.spark import scale_job, scale_target
from swagkit.verify.spark.patterns import FIFO_PATTERNS, OOO_PATTERNS, trace, weight
from swagkit.verify.spark.scale import PIPELINE, ScaleTask, Target, lockstep, make_scale_tasks, run_scale_task
from swagkit.verify.spark.scale_job import replay_finding, run_scale

#: a bug only windows of more than this many values show: beyond the Hypothesis machines' windows (tens of
#: values), well inside the scale run's (up to 4096)
BIG = 200


class DropsWhenBig:
    """A user's FIFO aggregator with a planted bug: an insert into a window of exactly :data:`BIG` values is
    silently dropped (a fixed buffer that is full)."""

    def __init__(self, monoid: Any) -> None:
        self.inner = TwoStacksLite(monoid)

    def insert(self, value: Any) -> None:
        if len(self.inner) != BIG:
            self.inner.insert(value)

    def evict(self) -> None:
        self.inner.evict()

    def query(self) -> Any:
        return self.inner.query()

    def __len__(self) -> int:
        return len(self.inner)


class Correct(DropsWhenBig):
    def insert(self, value: Any) -> None:
        self.inner.insert(value)


# ------------------------------------------------------------------------------------------------ patterns


@pytest.mark.parametrize("pattern", FIFO_PATTERNS)
def test_fifo_traces_stay_within_their_window_and_never_evict_an_empty_one(pattern: str) -> None:
    for seed in range(3):
        window = (1, 7, 64)[seed]
        size = peak = made = 0
        calls = list(trace("fifo", pattern, random.Random(seed), [1, 2], 5000, window, frozenset({"insert_many"})))
        for name, args in calls:
            made += weight((name, args))
            if name in ("insert", "evict"):
                size += 1 if name == "insert" else -1
            elif name in ("insert_many", "evict_many"):
                size += len(args[0]) if name == "insert_many" else -args[0]
            assert 0 <= size <= window, (pattern, seed, name)
            peak = max(peak, size)
        assert 5000 <= made < 5000 + window + 1  # the length counts operations, a bulk call as its elements
        assert peak == window or pattern in ("see_saw", "bursts", "bulk")  # the shaped ones fill it exactly


@pytest.mark.parametrize("pattern", OOO_PATTERNS)
def test_out_of_order_traces_keep_bulk_inserts_sorted_and_mix_operations(pattern: str) -> None:
    offered = frozenset({"bulk_insert", "range_query"})
    calls = list(trace("ooo", pattern, random.Random(1), ["a"], 4000, 64, offered))
    names = {name for name, _ in calls}
    assert {"insert", "query", "bulk_evict"} <= names
    for name, args in calls:
        if name == "bulk_insert":
            times = [t for t, _ in args[0]]
            assert times == sorted(times)
    times = [args[0] for name, args in calls if name == "insert"]
    late = sum(1 for a, b in zip(times, times[1:]) if b < a)
    assert (late == 0) == (pattern == "in_order")  # out-of-order distance 0 only in order


# ---------------------------------------------------------------------------------------------- one task


def test_registered_tasks_agree_with_the_oracle_and_rerun_identically() -> None:
    for algorithm, monoid in (("daba", "string_concat"), ("fiba", "affine_int"), ("slickdeque_noninv", "argmax")):
        task = ScaleTask(Target("registry", algorithm), monoid, seed=3, operations=30_000, trace_length=5_000)
        first, second = run_scale_task(task), run_scale_task(task)
        assert first.finding is None, first.finding
        assert first.operations >= 30_000 and first.traces == 6 and first.sampled > 0
        assert (first.operations, first.traces, first.sampled) == (second.operations, second.traces, second.sampled)


def test_the_oracle_is_never_the_target_itself() -> None:
    daba_lite = scale_target.resolve(Target("registry", "daba_lite"))
    daba = scale_target.resolve(Target("registry", "daba"))
    fiba = scale_target.resolve(Target("registry", "fiba"))
    fiba2 = scale_target.resolve(Target("registry", "fiba_mu2"))
    monoid = LIBRARY["sum_i64"].factory()
    assert type(daba_lite.oracle(monoid)).__name__ == "TwoStacksLite"  # type: ignore[misc]
    assert type(daba.oracle(monoid)).__name__ == "DABALite"  # type: ignore[misc]
    assert fiba.oracle(monoid).min_arity == 2 and fiba2.oracle(monoid).min_arity == 4  # type: ignore[misc]


def test_lockstep_reports_a_wrong_answer_a_crash_and_a_refusal_mismatch() -> None:
    m = LIBRARY["string_concat"].factory()
    calls = [("insert", ("a",)), ("insert", ("b",)), ("query", ()), ("evict", ()), ("evict", ()), ("evict", ())]

    class Wrong(Correct):
        def query(self) -> Any:
            return super().query()[::-1]

    class Crashes(Correct):
        def evict(self) -> None:
            if len(self.inner) == 1:
                raise RuntimeError("boom")
            super().evict()

    class NoRefusal(Correct):
        def evict(self) -> None:
            if len(self.inner):
                super().evict()

    assert lockstep(Correct(m), TwoStacksLite(m), calls, m) is None
    wrong = lockstep(Wrong(m), TwoStacksLite(m), calls, m)
    assert wrong is not None and wrong.step == 2 and "answered 'ba', the oracle 'ab'" in wrong.detail
    crash = lockstep(Crashes(m), TwoStacksLite(m), calls, m)
    assert crash is not None and crash.step == 4 and "RuntimeError('boom')" in crash.detail
    silent = lockstep(NoRefusal(m), TwoStacksLite(m), calls, m)
    assert silent is not None and silent.step == 5 and "the oracle raised EmptyWindowError" in silent.detail


def test_a_bug_only_big_windows_show_is_found_shrunk_and_replayed(tmp_path: Path) -> None:
    target = Target("impl", f"{__name__}:DropsWhenBig", "fifo", paths=(str(Path(__file__).parent),))
    task = ScaleTask(target, "string_concat", seed=0, operations=100_000, trace_length=5_000)
    result = run_scale_task(task)
    finding = result.finding
    assert finding is not None and finding.window > BIG, result
    path = replay_finding(result, str(tmp_path), seconds=20)
    file = replayfile.read(path)
    header, ops = file.header, file.steps
    assert header["impl"] == target.spec and header["spark"]["seed"] == 0
    inserts = sum(1 for op in ops if op.name == "insert")
    assert BIG + 1 <= inserts and len(ops) <= inserts + 4  # shrunk to the inserts that fill it, and the symptom
    out = io.StringIO()
    assert replay.run(path, DropsWhenBig, out=out) == 1, out.getvalue()  # swagkit replay still fails it
    assert replay.run(path, Correct, out=io.StringIO()) == 0  # and the fixed class passes


# ------------------------------------------------------------------------------------------------ --exec


@pytest.fixture(scope="module")
def c_program(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    import subprocess

    source = Path(__file__).parent / "protocol" / "daba_lite.c"
    out = tmp_path_factory.mktemp("scale_c")

    def build(flag: str) -> str:
        exe = out / f"daba_lite{flag.lower()}"
        if not exe.exists():
            cmd = ["cc", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=200809L", *([f"-D{flag}"] if flag else [])]
            subprocess.run([*cmd, "-o", str(exe), str(source)], check=True)
        return str(exe)

    return build


def test_a_program_is_driven_by_one_long_lived_process_and_a_crash_is_a_finding(c_program: Any) -> None:
    good = ScaleTask(Target("exec", c_program(""), "fifo"), "affine_int", seed=1, operations=20_000, trace_length=4_000)
    result = run_scale_task(good)
    assert result.finding is None and result.operations >= 20_000, result.finding
    assert len([k for k in scale_target.EXEC if k[0] == c_program("")]) == 1  # one process served every trace
    crash = Target("exec", c_program("BUG_CRASH_AT_64"), "fifo")
    found = run_scale_task(ScaleTask(crash, "max_i64", seed=1, operations=40_000, trace_length=4_000))
    assert found.finding is not None and found.finding.trace >= 0
    assert "exited" in found.finding.detail or "died" in found.finding.detail, found.finding.detail
    # the next seed gets a fresh process: the crash is the program's finding, not a broken worker
    again = run_scale_task(ScaleTask(crash, "max_i64", seed=2, operations=40_000, trace_length=4_000))
    assert again.finding is not None and again.operations > 0


# ------------------------------------------------------------------------------------------------ on Spark


@pytest.mark.spark
def test_a_killed_worker_is_retried_and_every_seed_is_counted_once(spark: Any, tmp_path: Path) -> None:
    tasks = make_scale_tasks(
        [Target("registry", "daba_lite"), Target("registry", "fiba")],
        ["sum_i64"],
        80_000,
        per_task=10_000,
        trace_length=2_000,
    )
    assert len(tasks) == 8
    marker = str(tmp_path / "killed")

    def kills_seed_5_once(part: Any) -> Any:
        items = list(part)
        if any(t.seed == 5 for t in items):
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                pass
            else:  # the first attempt dies half-way through its seed
                os.close(fd)
                os.kill(os.getpid(), signal.SIGKILL)
        return scale_job._run_partition(items)

    seen: list[tuple[int, int]] = []
    results = run_scale(
        spark, tasks, progress=lambda p: seen.append((p.done, p.operations)), every=0.2, run_partition=kills_seed_5_once
    )
    assert os.path.exists(marker), "the fault was not injected"
    assert [r.task for r in results] == tasks  # every seed exactly once, in order
    assert all(r.finding is None for r in results)
    assert [r.attempt > 0 for r in results] == [t.seed == 5 for t in tasks]  # only the killed seed was rerun
    assert seen[-1] == (8, sum(r.operations for r in results))  # the display's totals end at the results'


@pytest.mark.spark
def test_the_cli_runs_registered_algorithms_and_a_users_class_at_scale(spark: Any, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        ok = main(["verify", "--spark", "--algorithm", "daba_lite", "fiba", "--spark-ops", "60000"])
    assert ok == 0, out.getvalue()
    assert "OK: spark scale" in out.getvalue() and "per core" in out.getvalue()
    assert "seeds" in err.getvalue()  # the progress display
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        found = main(
            [
                "verify",
                "--spark",
                "--impl",
                f"{__name__}:DropsWhenBig",
                "--monoid",
                "string_concat",
                "--spark-ops",
                "200000",
                "--replay-dir",
                str(tmp_path),
            ]
        )
    text = out.getvalue()
    assert found == 1 and "SPARK FINDING" in text and "replay: swagkit replay" in text, text
    path = text.split("replay: swagkit replay ", 1)[1].split()[0]
    assert f"{path} --impl {__name__}:DropsWhenBig" in text  # the command to run, whole
    assert main(["replay", path]) == 2  # a file names no code: the command line does
    assert main(["replay", path, "--impl", f"{__name__}:DropsWhenBig"]) == 1


def test_a_contract_is_kept_while_shrinking_and_rollings_max_bug_is_found(tmp_path: Path) -> None:
    """PyPI ``rolling`` 0.5.0's ``Max`` inside its own contract (capacity 3, evicts only drain a full window, never
    empty): the scale run finds the drain-and-refill bug tests/test_outside.py documents, and the shrunk trace
    stays inside the contract (a shrinker free to leave it would end at a query on an empty window, which
    ``rolling`` may refuse any way it likes)."""
    pytest.importorskip("rolling")
    from swagkit.verify.kinds.fifo.contract import Contract

    contract = "capacity=3,no-evict-before-full,no-empty-ops"
    tests = str(Path(__file__).parent)
    target = Target("impl", "outside.rolling_adapter:rolling_max", "fifo", paths=(tests,), contract=contract)
    result = run_scale_task(ScaleTask(target, "max_i64", seed=0, operations=50_000, trace_length=5_000))
    assert result.finding is not None and result.finding.pattern == "static", result
    path = replay_finding(result, str(tmp_path), seconds=20)
    file = replayfile.read(path)
    header = file.header
    calls = [(step.name, step.args) for step in file.steps]
    assert Contract.of(header["contract"]) == Contract.of(contract) and Contract.of(contract).admits(calls)
    assert len(calls) <= 10 and calls[-1][0] == "query"
    from outside.rolling_adapter import rolling_max

    assert replay.run(path, rolling_max, out=io.StringIO()) == 1


# tests/conftest.py: the scale run's driver and its Spark plumbing do not depend on the compiled switch;
# it runs in one pass only, the pure-Python one (it balances the two)
pytestmark = pytest.mark.once
ONCE_PASS = "pure"


class OneAtATime:
    """A program's instance with its ``pipeline`` hidden: :func:`lockstep` then sends one request per reply."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "pipeline":
            raise AttributeError(name)
        return getattr(self._inner, name)

    def __len__(self) -> int:
        return len(self._inner)


@pytest.mark.parametrize("bug", ["", "BUG_FLIP_ORDER", "BUG_SIZE", "BUG_EMPTY_QUERY", "BUG_CRASH_AT_64", "BUG_GARBAGE"])
def test_a_pipelined_program_is_judged_as_one_request_at_a_time(
    c_program: Any, bug: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 25 §5: an ``--exec`` program's instance takes :data:`~swagkit.verify.spark.scale.PIPELINE` calls at a
    time (its ``batch`` lines, or request lines back to back) and finds what the one-at-a-time lock-step finds: a
    wrong answer at the same step in the same words; a death or garbage somewhere in its chunk (the scale task
    then re-runs the trace one call at a time to name the call: the next test)."""
    import time

    from swagkit.verify.process import process_factory

    factory = process_factory(c_program(bug), "fifo")
    name = "max_i64" if bug == "BUG_EMPTY_QUERY" else "string_concat"  # the empty window's zero is "" for strings
    monoid = LIBRARY[name].factory()
    values: list[Any] = list(range(-40, 24)) if name == "max_i64" else [chr(97 + k % 26) for k in range(64)]
    calls = list(trace("fifo", "see_saw", random.Random(5), values, 6000, 300, frozenset({"insert", "evict"})))
    try:
        seconds = {}
        found = {}
        for how in ("pipelined", "one at a time"):
            subject = factory(monoid) if how == "pipelined" else OneAtATime(factory(monoid))
            started = time.perf_counter()
            found[how] = lockstep(subject, TwoStacksLite(monoid), calls, monoid)
            seconds[how] = time.perf_counter() - started
    finally:
        factory.close()
    piped, single = found["pipelined"], found["one at a time"]
    assert (piped is None) == (bug == "") and (single is None) == (bug == ""), (piped, single)
    if piped is not None and single is not None:
        if "ProcessFailure" in single.detail:
            chunk = PIPELINE * (piped.step // PIPELINE)
            assert "ProcessFailure" in piped.detail and chunk <= single.step < chunk + PIPELINE, (piped, single)
        else:
            assert (piped.step, piped.detail) == (single.step, single.detail)
    if bug == "":
        with capsys.disabled():
            rate = {how: len(calls) / s for how, s in seconds.items()}
            print(f"\n  {rate['pipelined']:,.0f} ops/s pipelined, {rate['one at a time']:,.0f} one at a time", end="")


@pytest.mark.parametrize("bug", ["BUG_CRASH_AT_64", "BUG_GARBAGE", "BUG_EMPTY_QUERY"])
def test_a_scale_task_names_the_call_a_pipelined_program_failed_on(c_program: Any, bug: str) -> None:
    """A finding of the pipelined lock-step is re-run one call at a time: the task reports the step and words of
    the one-at-a-time lock-step."""
    from swagkit.verify.spark import scale

    monoid = "max_i64" if bug == "BUG_EMPTY_QUERY" else "string_concat"
    task = ScaleTask(Target("exec", c_program(bug), "fifo"), monoid, seed=1, operations=40_000, trace_length=4_000)
    piped = run_scale_task(task)
    assert piped.finding is not None
    original = scale.lockstep
    try:
        scale.lockstep = lambda *args, **kwargs: original(*args, **{**kwargs, "pipelined": False})  # type: ignore[assignment]
        single = run_scale_task(task)
    finally:
        scale.lockstep = original
    assert single.finding is not None
    assert (piped.finding.trace, piped.finding.step) == (single.finding.trace, single.finding.step)
    assert piped.finding.detail.split(" raised ")[0] == single.finding.detail.split(" raised ")[0]
