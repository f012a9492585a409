"""``--exec``: programs in any language verified over the JSON Lines protocol (docs/protocol.md).

The C DABA Lite of ``tests/protocol/daba_lite.c`` (compiled here with the system compiler) passes the FIFO
machine over every conformance monoid through :func:`~swagkit.verify.process.process_factory`; each planted-bug
variant (``-DBUG_...``) is caught as a FAIL -- a check failure or a :class:`ProcessFailure` carrying the trace,
never a harness error -- at the CLI's default examples; a program that dies, hangs or answers garbage is a FAIL;
operations a program does not offer are never sent. ``tests/protocol/py_driver.py`` (the reference classes behind
the protocol) tests the driver itself, including the out-of-order kind.
"""

from __future__ import annotations

import io
import json
import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis.stateful import run_state_machine_as_test

from swagkit.spec.errors import EmptyWindowError, UnsupportedMonoidError
from swagkit.spec.library import LIBRARY
from swagkit.verify import checked, kind
from swagkit.verify.kinds.base import Subject
from swagkit.verify.kinds.machines import (
    DEFAULT_SHRINK_SECONDS,
    machine_settings,
    run_machine_class,
    shrink_deadline,
)
from swagkit.verify.process import (
    CONFORMANCE,
    ProcessFactory,
    ProcessFailure,
    conformance_monoids_registered,
    process_factory,
)

PROTOCOL = Path(__file__).parent / "protocol"
PY_DRIVER = shlex.join([sys.executable, str(PROTOCOL / "py_driver.py")])
#: ``swagkit verify``'s defaults (verify/cli.py): every planted bug must be caught within them
EXAMPLES, STEPS = 12, 40
#: planted bug -> the conformance monoids that can show it (a bug in operand order needs a non-commutative one;
#: a wrong identity on an empty window shows where the identity is not the representation's zero)
BUGS = {
    "BUG_FLIP_ORDER": ("string_concat", "affine_int"),
    "BUG_SIZE": tuple(CONFORMANCE),
    "BUG_EMPTY_QUERY": ("max_i64", "affine_int"),
    "BUG_CRASH_AT_64": tuple(CONFORMANCE),
    "BUG_GARBAGE": tuple(CONFORMANCE),
}

#: independent of swagkit.optimized: run once (tools/check.sh's compiled pass)
pytestmark = [pytest.mark.once, pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")]
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)


@pytest.fixture
def build(c_driver: Callable[[str], str]) -> Callable[[str], str]:
    """``build(flag)``: the C driver compiled with ``-D<flag>`` (conftest's ``c_driver``)."""
    return c_driver


@pytest.fixture(autouse=True)
def conformance() -> Iterator[None]:
    with conformance_monoids_registered():
        yield


def _machine(factory: ProcessFactory, monoid: str) -> Any:
    return kind("fifo").make_machine(Subject("daba_lite_c", factory, implementation="exec"), monoid, 80)


def _first_failure(factory: ProcessFactory, monoid: str, *, shrink: bool = True) -> tuple[BaseException, float]:
    """Run the FIFO machine at the CLI's defaults; the failure it raises and the seconds it took."""
    machine = _machine(factory, monoid)
    phases = list(Phase) if shrink else [Phase.generate]
    start = time.perf_counter()
    with pytest.raises(BaseException) as info, shrink_deadline(DEFAULT_SHRINK_SECONDS / 2):
        run_state_machine_as_test(
            machine, settings=settings(machine_settings(EXAMPLES, STEPS, derandomize=True), phases=phases)
        )
    return info.value, time.perf_counter() - start


def _is_fail(exc: BaseException) -> bool:
    """A verdict on the implementation (swagkit's FAIL), not an error of the harness."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_fail(e) for e in exc.exceptions)
    return isinstance(exc, AssertionError)


# ----------------------------------------------------------------------------------------------- correct code


@pytest.mark.parametrize("monoid", list(CONFORMANCE))
def test_correct_c_daba_lite_passes_the_fifo_machine(build: Callable[[str], str], monoid: str) -> None:
    factory = process_factory(build(""), "fifo")
    try:
        assert factory.monoids == tuple(CONFORMANCE)
        machine = _machine(factory, monoid)
        run_machine_class(machine, 60, 50, seed=1)
        assert machine.stats.max_window > 64  # past the C ring buffer's first growths
    finally:
        factory.close()


@pytest.mark.parametrize("monoid", ["string_concat", "affine_int", "sum_f64"])
def test_python_driver_passes_the_fifo_machine(monoid: str) -> None:
    factory = process_factory(PY_DRIVER, "fifo")
    try:
        run_machine_class(_machine(factory, monoid), EXAMPLES, STEPS, seed=2)
    finally:
        factory.close()


# ------------------------------------------------------------------------------------------------ planted bugs


@pytest.mark.parametrize(("bug", "monoid"), [(b, m) for b, ms in BUGS.items() for m in ms])
def test_planted_bug_is_a_fail_at_the_defaults(
    build: Callable[[str], str], bug: str, monoid: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every planted bug, over every monoid that can show it, is a FAIL within the CLI's defaults (seconds to
    the first failing example printed; no shrinking here, see the next test)."""
    factory = process_factory(build(bug), "fifo")
    try:
        exc, seconds = _first_failure(factory, monoid, shrink=False)
    finally:
        factory.close()
    assert _is_fail(exc), f"{bug} over {monoid} was not a FAIL: {exc!r}"
    if isinstance(exc, ProcessFailure):
        assert exc.trace and exc.trace[0].startswith('{"op":"new"'), exc.trace
    with capsys.disabled():
        print(f"\n  {bug} over {monoid}: {type(exc).__name__}, first failure after {seconds:.2f} s", end="")


@pytest.mark.parametrize("bug", list(BUGS))
def test_planted_bug_shrinks_to_a_short_trace(
    build: Callable[[str], str], bug: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """With shrinking (as ``swagkit verify`` runs), over the bug's fastest monoid: still a FAIL, and the failing
    instance's protocol trace is short."""
    monoid = "sum_f64" if "sum_f64" in BUGS[bug] else BUGS[bug][0]
    factory = process_factory(build(bug), "fifo")
    try:
        exc, seconds = _first_failure(factory, monoid)
    finally:
        factory.close()
    assert _is_fail(exc)
    shown = f", trace of {len(exc.trace)} requests" if isinstance(exc, ProcessFailure) else ""
    with capsys.disabled():
        print(f"\n  {bug} over {monoid}: shrunk {type(exc).__name__} after {seconds:.2f} s{shown}", end="")


def test_planted_bugs_that_need_a_non_commutative_monoid_pass_the_others(build: Callable[[str], str]) -> None:
    """The conformance set is not redundant: a commutative monoid does not see the operand-order bug."""
    factory = process_factory(build("BUG_FLIP_ORDER"), "fifo")
    try:
        run_machine_class(_machine(factory, "sum_i64"), EXAMPLES, STEPS, seed=3)
    finally:
        factory.close()


def test_a_crash_is_a_fail_with_the_trace_and_the_process_restarts(build: Callable[[str], str]) -> None:
    factory = process_factory(build("BUG_CRASH_AT_64"), "fifo")
    try:
        agg = factory(LIBRARY["sum_i64"].factory())
        agg.insert_many(range(63))
        with pytest.raises(ProcessFailure, match=r"died \(exit status 1\)") as info:
            agg.insert(63)
        assert info.value.trace[-1] == '{"op":"insert","id":1,"value":63}'
        assert info.value.trace[0] == '{"op":"new","id":1,"kind":"fifo","monoid":"sum_i64"}'
        with pytest.raises(ProcessFailure) as again:  # the instance stays failed with the first verdict
            len(agg)
        assert again.value is info.value
        fresh = factory(LIBRARY["sum_i64"].factory())  # a new process
        fresh.insert(5)
        assert fresh.query() == 5 and factory.driver.generation == 2
    finally:
        factory.close()


def test_a_hang_is_a_fail_after_the_timeout(build: Callable[[str], str]) -> None:
    factory = process_factory(build("BUG_HANG"), "fifo", timeout=0.5)
    try:
        exc, seconds = _first_failure(factory, "max_i64", shrink=False)
    finally:
        factory.close()
    # the first hang waits the whole --timeout (0.5 s); Hypothesis' final re-run of the example waits the shortened
    # one: max(0.2 s, 50 × the slowest healthy reply), never more than the timeout
    found = re.search(r"no reply within ([0-9.]+) s \(a hang", str(exc))
    assert isinstance(exc, ProcessFailure) and found and 0.2 <= float(found[1]) <= 0.5, exc
    assert exc.trace[-1].startswith('{"op":"evict') and seconds < 30


def test_garbage_is_a_fail_and_the_process_is_replaced() -> None:
    factory = process_factory(f"{PY_DRIVER} --garbage-after 4", "fifo")
    try:
        agg = factory(LIBRARY["string_concat"].factory())  # requests 1 (hello) and 2 (new)
        agg.insert("a")
        with pytest.raises(ProcessFailure, match="not JSON") as info:
            agg.query()
        assert info.value.replies[-1].startswith("Traceback")
        assert not factory.driver.alive  # its later replies could be out of step: killed
        assert factory(LIBRARY["string_concat"].factory()).query() == ""
    finally:
        factory.close()


def test_protocol_errors_map_to_the_kinds_exceptions() -> None:
    factory = process_factory(PY_DRIVER, "fifo")
    try:
        agg = factory(LIBRARY["max_i64"].factory())
        with pytest.raises(EmptyWindowError):
            agg.evict()
        with pytest.raises(ValueError):
            agg.evict_many(-1)
        assert agg.query() == -(2**63) and len(agg) == 0
        with pytest.raises(UnsupportedMonoidError, match="does not offer the monoid 'sum'"):
            factory(LIBRARY["sum"].factory())
    finally:
        factory.close()


def test_a_program_that_does_not_start_or_greet_is_a_fail(tmp_path: Path) -> None:
    with pytest.raises(ProcessFailure, match="cannot start"):
        process_factory(str(tmp_path / "missing"), "fifo")
    with pytest.raises(ProcessFailure, match="not JSON"):
        process_factory(shlex.join([sys.executable, "-c", "print('hi')"]), "fifo")
    with pytest.raises(ProcessFailure, match="died"):
        process_factory(shlex.join([sys.executable, "-c", "pass"]), "fifo")


# ---------------------------------------------------------------------------------------------- capabilities


def test_operations_not_offered_are_never_sent(build: Callable[[str], str]) -> None:
    """NO_BULK: hello lists no insert_many/evict_many (and the program refuses them): the instance has no such
    methods, the kind's wrapper falls back to single operations, and the machine passes."""
    factory = process_factory(build("NO_BULK"), "fifo")
    try:
        assert "insert_many" not in factory.operations
        agg = factory(LIBRARY["string_concat"].factory())
        assert not hasattr(agg, "insert_many") and not hasattr(agg, "evict_many")
        run_machine_class(_machine(factory, "string_concat"), EXAMPLES, STEPS, seed=4)
    finally:
        factory.close()


def test_a_program_without_size_lacks_a_required_operation() -> None:
    factory = process_factory(f"{PY_DRIVER} --ops new,insert,evict,query,drop", "fifo")
    try:
        agg = factory(LIBRARY["string_concat"].factory())
        assert kind("fifo").check_implements(agg) == ["__len__"]
        assert not hasattr(agg, "combine_count")
    finally:
        factory.close()


def test_combine_count_comes_from_stats(build: Callable[[str], str]) -> None:
    factory = process_factory(build(""), "fifo")
    try:
        agg = factory(LIBRARY["string_concat"].factory())
        agg.insert_many("abc")
        before = agg.combine_count
        agg.query()
        assert agg.combine_count == before + 1  # DABA Lite's query: one ⊗ (000 Theorem 6.2)
    finally:
        factory.close()


# -------------------------------------------------------------------------------------- the out-of-order kind


def test_out_of_order_instances_follow_the_model() -> None:
    factory = process_factory(PY_DRIVER, "ooo")
    try:
        w = checked(factory(LIBRARY["string_concat"].factory()), kind="out_of_order")
        w.insert(5, "a")
        w.bulk_insert([(1, "x"), (2, "y"), (9, "z")])
        w.insert(2, "w")
        assert w.query() == "xywaz" and w.range_query(2, 5) == "ywa"
        assert (w.oldest(), w.youngest(), len(w)) == (1, 9, 4)
        assert w.bulk_evict(2) == 2
        w.remove(9)
        w.evict()
        assert w.query() == "" and len(w) == 0
    finally:
        factory.close()


# ------------------------------------------------------------------------------------------------- throughput


@pytest.mark.parametrize("program", ["c", "python"])
def test_throughput_through_the_pipe(
    build: Callable[[str], str], program: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Operations per second, one request per line and batched (printed; asserted only to be positive)."""
    factory = process_factory(build("") if program == "c" else PY_DRIVER, "fifo")
    try:
        agg = factory(LIBRARY["sum_i64"].factory())
        n = 4000 if program == "c" else 1000
        start = time.perf_counter()
        for k in range(n // 2):
            agg.insert(k)
            agg.query()
        single = n / (time.perf_counter() - start)
        ops = [{"op": "insert", "id": 99, "value": k} if k % 2 else {"op": "query", "id": 99} for k in range(n)]
        factory.driver.batch([{"op": "new", "id": 99, "kind": "fifo", "monoid": "sum_i64"}])
        start = time.perf_counter()
        for at in range(0, n, 500):
            replies = factory.driver.batch(ops[at : at + 500])
            assert all(r["ok"] for r in replies)
        batched = n / (time.perf_counter() - start)
    finally:
        factory.close()
    assert single > 0 and batched > single
    with capsys.disabled():
        print(f"\n  {program}: {single:,.0f} ops/s one per line, {batched:,.0f} ops/s in batches of 500", end="")


# ------------------------------------------------------------------ the command line: --exec, replay, CMD < file


def test_the_cli_verifies_a_program_and_its_replay_file_runs_without_python(
    build: Callable[[str], str], tmp_path: Path
) -> None:
    """``swagkit verify --exec`` runs every conformance monoid the program offers; a planted bug is a FAIL with
    a replay file that ``swagkit replay`` reproduces (exit 1; 0 on the correct program) and that the program
    itself replays from stdin, answering differently from the file's ``expect`` at the failing query."""
    from swagkit.verify.cli import main
    from swagkit.verify.replay import read

    good, bad = build(""), build("BUG_FLIP_ORDER")
    replays = tmp_path / "replays"
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["verify", "--exec", good, "--kind", "fifo", "--replay-dir", str(replays), "--budget", "5"]) == 0
    assert all(f"{m} " in out.getvalue() for m in CONFORMANCE) and not replays.exists()
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(
            ["verify", "--exec", bad, "--kind", "fifo", "--monoid", "string_concat", "--replay-dir", str(replays)]
        )
    assert status == 1 and "FAIL" in out.getvalue()
    (path,) = replays.glob("*.jsonl")
    assert str(path) in out.getvalue()
    file = read(str(path))
    header, ops = file.header, file.steps
    assert header["exec"] == bad and header["monoid"] == "string_concat" and len(ops) <= 10
    with redirect_stdout(io.StringIO()):
        assert main(["replay", str(path), "--exec", bad]) == 1
        assert main(["replay", str(path), "--exec", good]) == 0
    # the file is a protocol session: hello, new, then the operations; the program's last answer is not "expect"
    replies = subprocess.run([bad], stdin=path.open(), capture_output=True, text=True, timeout=30).stdout.splitlines()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(replies) == len(lines) and all(json.loads(r)["ok"] for r in replies)
    assert json.loads(replies[-1])["value"] != lines[-1]["expect"]


def test_the_cli_refuses_a_command_that_cannot_start_and_a_monoid_the_program_lacks(
    build: Callable[[str], str],
) -> None:
    from swagkit.verify.cli import main

    err = io.StringIO()
    with redirect_stderr(err):
        assert main(["verify", "--exec", "/nonexistent/program", "--kind", "fifo"]) == 2
        assert main(["verify", "--exec", build(""), "--kind", "fifo", "--monoid", "geomean"]) == 2
    assert "cannot start" in err.getvalue() and "not a conformance monoid" in err.getvalue()
