"""Issue 23: the user's door without traps, tried as a new user would -- classes of their own with planted bugs,
the C protocol driver with its planted bugs, and the bad inputs a stranger types.

* **One trace.** A counterexample is one list of steps with one numbering: ``swagkit verify`` prints it, the
  replay file holds it (injected ⊗ faults included), ``swagkit replay`` fails at the same step number while the
  bug is there and passes once it is fixed -- for every failure class (wrong answer, misuse, fault injection,
  budget, invariant, size, hang, crash; and through ``--exec``: wrong answer, crash, hang, garbage).
* **Contract families never hide a bug.** A class that raises its own exception on an empty window has its
  misuse finding reported, and its ordering bug is found in the same run; ``--empty-error`` maps the exception.
* **User-side mistakes are one line, exit 2**; every run is bounded; a user's monoid is law-checked first.
* **Replay files are data**: nothing a file names is imported or run; malformed files are one-line errors.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import needs_cc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swagkit import reference
from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.monoid import Monoid
from swagkit.verify.cli import main
from swagkit.verify.replayfile import ReplayFileError, parse, read

#: independent of swagkit.optimized: run once, in tools/check.sh's pure-Python pass (conftest.py balances them)
pytestmark = pytest.mark.once
ONCE_PASS = "pure"

HERE = __name__

# ----------------------------------------------------------------------------------------------------------------
# a user's Two-Stacks, and its planted bugs


class Empty(Exception):
    """A user's own empty-window exception."""


class TwoStacks:
    """A correct Two-Stacks (000 §3) written by a user: front stack of suffix aggregates, back stack and its sum."""

    def __init__(self, monoid: Any) -> None:
        self.m = monoid
        self.front: list[Any] = []
        self.back: list[Any] = []
        self.back_agg = monoid.identity

    def insert(self, value: Any) -> None:
        x = self.m.lift(value)
        agg = self.m.combine(self.back_agg, x)  # every ⊗ before any change: a raising ⊗ changes nothing
        self.back.append(x)
        self.back_agg = agg

    def _flip(self) -> None:
        agg, front = self.m.identity, []
        for x in reversed(self.back):
            agg = self.m.combine(x, agg)
            front.append(agg)
        self.front, self.back, self.back_agg = front, [], self.m.identity

    def evict(self) -> None:
        if not self.front:
            if not self.back:
                raise EmptyWindowError("evict() on an empty window")
            self._flip()
        self.front.pop()

    def query(self) -> Any:
        f = self.front[-1] if self.front else self.m.identity
        return self.m.lower(self.m.combine(f, self.back_agg))

    def __len__(self) -> int:
        return len(self.front) + len(self.back)


class SwappedFlip(TwoStacks):
    """Wrong answer: the flip combines with the operands swapped (non-commutative monoids only)."""

    def _flip(self) -> None:
        agg, front = self.m.identity, []
        for x in reversed(self.back):
            agg = self.m.combine(agg, x)
            front.append(agg)
        self.front, self.back, self.back_agg = front, [], self.m.identity


class OwnEmpty(TwoStacks):
    """Misuse: its own exception on an empty window (the issue's trap: it hid the ordering bug)."""

    def evict(self) -> None:
        if not len(self):
            raise Empty("nothing to evict")
        super().evict()


class OwnEmptySwapped(OwnEmpty, SwappedFlip):
    """Both: its own empty exception *and* the swapped flip."""


class NotExceptionSafe(TwoStacks):
    """Fault injection: appends before ⊗, so a raising ⊗ leaves the value half-inserted."""

    def insert(self, value: Any) -> None:
        x = self.m.lift(value)
        self.back.append(x)
        self.back_agg = self.m.combine(self.back_agg, x)


class SizeOff(TwoStacks):
    """Size: len() forgets the front stack's last element."""

    def __len__(self) -> int:
        return len(self.front) + len(self.back) - (1 if len(self.front) == 2 else 0)


class Crashes(TwoStacks):
    """Crash: raises RuntimeError on the evict that empties a window of three."""

    def evict(self) -> None:
        if len(self) == 3:
            raise RuntimeError("boom")
        super().evict()


class Hangs(TwoStacks):
    """Hang: an evict from a window of three never returns (a loop that even swallows exceptions)."""

    def evict(self) -> None:
        while len(self) == 3:
            try:
                time.sleep(0.001)
            except Exception:
                pass
        super().evict()


class OverBudget(reference.TwoStacks):  # type: ignore[misc]
    """Budget: every query refolds the back stack (O(n) ⊗ where Theorem 3.2 allows 1)."""

    def _query(self) -> Any:
        acc = self._one
        for e in self.B:
            acc = self._otimes(acc, e.val)
        return self._otimes(self._pi_F(), acc)


class BadSnapshot(reference.TwoStacks):  # type: ignore[misc]
    """Invariant: the snapshot's back stack shows its bottom aggregate one value short."""

    def snapshot(self) -> Any:
        state = super().snapshot()
        if len(state.back) < 2:
            return state
        (v, _), *rest = state.back
        return type(state)(front=state.front, back=((v, self._one), *rest))


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _replays(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.jsonl"), key=lambda p: p.stat().st_mtime)


def _failing_step(out: str) -> int:
    return int(re.findall(r"\n  #(\d+) [^\n]*<- FAILS", out)[-1])


# ----------------------------------------------------------------------------------------------------------------
# one trace: every failure class replays, fails at the same step while the bug is there, passes once fixed

CLASSES = {
    # class: (family expected, extra flags, the fixed implementation)
    "SwappedFlip": ("correctness", [], f"{HERE}:TwoStacks"),
    "OwnEmpty": ("misuse", [], f"{HERE}:TwoStacks"),
    "NotExceptionSafe": ("faults", [], f"{HERE}:TwoStacks"),
    "SizeOff": ("correctness", [], f"{HERE}:TwoStacks"),
    "Crashes": ("correctness", [], f"{HERE}:TwoStacks"),
    "Hangs": ("correctness", ["--timeout", "1"], f"{HERE}:TwoStacks"),
    "OverBudget": ("budget", ["--combine-budget", "two_stacks"], "swagkit.reference:TwoStacks"),
    "BadSnapshot": ("correctness", ["--checker", "two_stacks"], "swagkit.reference:TwoStacks"),
}


@pytest.mark.parametrize("name", list(CLASSES))
def test_each_failure_class_replays_until_fixed(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    family, flags, fixed = CLASSES[name]
    monoid = "string_concat"
    start = time.perf_counter()
    argv = ["verify", "--impl", f"{HERE}:{name}", "--monoid", monoid, "--replay-dir", str(tmp_path), *flags]
    argv += ["--budget", "5"]  # a contract family's finding lets the search go on for the budget
    code, out, err = _run(argv, capsys)
    seconds = time.perf_counter() - start
    assert code == 1, out + err
    assert f"-- {_title(family)}" in out, out
    assert "(it reproduces the failure)" in out and "does NOT reproduce" not in out
    files = _replays(tmp_path)
    assert files, out
    replay_flags = [f for f in flags if f in ("--timeout", "1")]
    for path in files:
        file = read(str(path))
        failed_at = file.header["failed_at"]
        assert f"FAIL at #{failed_at} " in _replay(path, f"{HERE}:{name}", replay_flags, 1, capsys)
        _replay(path, fixed, replay_flags, 0, capsys)  # the fix passes the very same steps
    steps = max(len(read(str(p)).steps) for p in files)
    print(f"{name}: {family} found, shrunk and checked in {seconds:.1f} s, {steps} steps")


def _title(family: str) -> str:
    return {
        "correctness": "wrong answer or state (correctness)",
        "misuse": "misuse rule",
        "faults": "fault injection",
        "budget": "⊗ budget",
    }[family]


def _replay(path: Path, impl: str, flags: list[str], status: int, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = _run(["replay", str(path), "--impl", impl, *flags], capsys)
    assert code == status, out + err
    return out


def test_verify_and_replay_number_the_steps_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        ["verify", "--impl", f"{HERE}:SwappedFlip", "--monoid", "string_concat", "--replay-dir", str(tmp_path)],
        capsys,
    )
    assert code == 1
    number = _failing_step(out)
    (path,) = _replays(tmp_path)
    lines = path.read_text().splitlines()
    assert len(lines) == 2 + number  # header, new, then exactly the steps #1..#n the output shows
    replayed = _replay(path, f"{HERE}:SwappedFlip", [], 1, capsys)
    assert f"FAIL at #{number} " in replayed and "(as recorded)" in replayed
    assert "state = " not in out and "insert_many(" not in out  # no Hypothesis program, no call it lacks


def test_a_fault_found_under_injection_is_in_the_replay_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The issue's worst trap: the fault-injection failure's replay left the fault out and passed."""
    argv = ["verify", "--impl", f"{HERE}:NotExceptionSafe", "--monoid", "string_concat", "--replay-dir", str(tmp_path)]
    assert _run([*argv, "--budget", "5"], capsys)[0] == 1
    rows = [json.loads(line) for path in _replays(tmp_path) for line in path.read_text().splitlines()[2:]]
    faulted = [row for row in rows if "fault" in row]
    assert faulted and all(row["family"] == "faults" and row["fault"] >= 1 for row in faulted)


# ----------------------------------------------------------------------------------------------------------------
# contract families never hide a correctness bug


def test_an_own_empty_exception_does_not_hide_the_ordering_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["verify", "--impl", f"{HERE}:OwnEmptySwapped", "--monoid", "string_concat", "--replay-dir", str(tmp_path)]
    code, out, _ = _run(argv, capsys)
    assert code == 1
    assert "misuse rule" in out and "wrong answer or state (correctness)" in out
    assert "--no-misuse" in out and "--empty-error MODULE:EXC" in out  # the flags that act on the misuse finding
    code, out, _ = _run([*argv, "--empty-error", f"{HERE}:Empty"], capsys)
    assert code == 1 and "-- misuse rule" not in out and "-- wrong answer" in out
    assert f"--empty-error {HERE}:Empty" in out  # the reproduce line carries it
    argv = ["verify", "--impl", f"{HERE}:OwnEmpty", "--empty-error", f"{HERE}:Empty", "--budget", "4"]
    code, out, _ = _run(argv, capsys)
    assert code == 0, out


# ----------------------------------------------------------------------------------------------------------------
# user-side mistakes: one line, exit 2


def factory_raises(monoid: Any) -> Any:
    raise RuntimeError("the factory is broken")


not_callable = 42


@pytest.mark.parametrize(
    "argv",
    [
        ["--impl", f"{HERE}:factory_raises"],
        ["--impl", f"{HERE}:not_callable"],
        ["--impl", "no_such_module_anywhere:X"],
        ["--impl", f"{HERE}:NoSuchName"],
        ["--impl", "nocolon"],
        ["--impl", f"{HERE}:TwoStacks", "--tolerance", "nan"],
        ["--impl", f"{HERE}:TwoStacks", "--tolerance", "-1"],
        ["--impl", f"{HERE}:TwoStacks", "--tolerance", "inf"],
        ["--impl", f"{HERE}:TwoStacks", "--timeout", "0"],
        ["--impl", f"{HERE}:TwoStacks", "--empty-error", f"{HERE}:TwoStacks"],
        ["--impl", f"{HERE}:TwoStacks", "--contract", "capacity=zero"],
        ["--max-window", "100000000000000000000", "--quick"],
        ["--max-window", "1000000"],
        ["--max-window", "0"],
        ["--exec", "/no/such/program"],
    ],
)
def test_user_mistakes_are_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    start = time.perf_counter()
    code, out, err = _run(["verify", "--no-spark", *argv], capsys)
    assert code == 2, out + err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert time.perf_counter() - start < 10


def test_a_frozen_monoid_given_a_strategy_attribute_gets_one_line(tmp_path: Path) -> None:
    """The README's old advice (``OBJ.strategy`` on a Monoid) raises FrozenInstanceError in the user's module."""
    (tmp_path / "frozen_monoid.py").write_text(
        "from hypothesis import strategies as st\nfrom swagkit.spec.library import sum_monoid\n"
        "m = sum_monoid()\nm.strategy = st.integers()\n"
    )
    done = _cli_in(tmp_path, "verify", "--impl", "swagkit.reference:TwoStacks", "--monoid", "frozen_monoid:m")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--values MODULE:STRATEGY" in done.stderr


def _cli_in(cwd: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The ``swagkit`` console script run in ``cwd``, as a user runs it."""
    script = Path(sys.executable).parent / "swagkit"
    return subprocess.run([str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=timeout)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        from swagkit.verify.cli import build_parser

        build_parser().parse_args(["--version"])
    assert done.value.code == 0
    assert re.fullmatch(r"swagkit \S+\n", capsys.readouterr().out)
    assert main(["--version"]) == 0


# ----------------------------------------------------------------------------------------------------------------
# a user's monoid is law-checked before any aggregator is blamed


def nan_sum() -> Monoid[float, float, float]:
    """Floats that can make NaN (inf + -inf): its identity law fails on NaN."""
    return Monoid(identity=0.0, combine=lambda a, b: a + b, name="nan_sum", commutative=True)


nan_sum.strategy = st.sampled_from([1.0, float("inf"), float("-inf")])  # type: ignore[attr-defined]


def test_a_users_monoid_that_makes_nan_is_blamed_not_the_aggregator(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["verify", "--impl", f"{HERE}:TwoStacks", "--monoid", f"{HERE}:nan_sum"], capsys)
    assert code == 1
    assert "monoid laws" in out and "nan" in out.lower() and "query() returned" not in out


# ----------------------------------------------------------------------------------------------------------------
# replay files are data


def test_a_replay_file_names_no_code_that_runs(tmp_path: Path) -> None:
    """A file naming ``--impl mod:F`` and a ``MODULE:OBJ`` monoid from the working directory imports neither."""
    (tmp_path / "evil.py").write_text("open('IMPORTED', 'w').write('yes')\nclass F: pass\nm = None\n")
    for header in (
        {"impl": "evil:F", "monoid": "string_concat"},
        {"exec": "touch IMPORTED", "monoid": "string_concat"},
        {"algorithm": "daba", "implementation": "reference", "monoid": "evil:m"},
    ):
        head = {"op": "hello", "swagkit_replay": 2, "kind": "fifo", **header}
        (tmp_path / "f.jsonl").write_text(json.dumps(head) + '\n{"op":"insert","id":1,"value":"a"}\n')
        done = _cli_in(tmp_path, "replay", "f.jsonl")
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert not (tmp_path / "IMPORTED").exists()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        st.text(max_size=200),
        st.lists(
            st.one_of(
                st.dictionaries(
                    st.sampled_from(["op", "id", "kind", "monoid", "swagkit_replay", "value", "values", "expect"]),
                    st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3)),
                ),
                st.integers(),
                st.text(max_size=5),
            ),
            max_size=6,
        ).map(lambda rows: "\n".join(json.dumps(r) for r in rows)),
        st.just('{"op":"hello","swagkit_replay":2,"kind":"fifo","monoid":"string_concat"}\n').flatmap(
            lambda head: st.lists(
                st.fixed_dictionaries(
                    {
                        "op": st.sampled_from(["insert", "evict", "query", "batch", "remove", "bulk_insert", "size"]),
                    },
                    optional={
                        "value": st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2)),
                        "values": st.one_of(st.integers(), st.lists(st.text(max_size=2), max_size=3)),
                        "events": st.lists(st.lists(st.one_of(st.text(max_size=6), st.integers()), max_size=3)),
                        "fault": st.one_of(st.integers(), st.text(max_size=2), st.booleans()),
                        "family": st.text(max_size=8),
                        "expect": st.one_of(st.integers(), st.text(max_size=3)),
                    },
                ),
                max_size=5,
            ).map(lambda rows: head + "\n".join(json.dumps(r) for r in rows))
        ),
    )
)
def test_the_replay_parser_answers_every_file_with_a_file_or_one_line(text: str) -> None:
    try:
        parse(text, "fuzzed.jsonl")
    except ReplayFileError as exc:
        assert "\n" not in str(exc) and str(exc)


def test_malformed_replay_files_are_one_line_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = [
        "",
        "not json\n",
        '{"op":"hello"}\n',
        '{"op":"hello","swagkit_replay":2,"kind":"fifo","monoid":"string_concat"}\n{"op":"bogus","id":1}\n',
        '{"op":"hello","swagkit_replay":2,"kind":"fifo","monoid":"string_concat"}\n{"op":"insert","id":1}\n',
        '{"op":"hello","swagkit_replay":1,"kind":"fifo","monoid":"string_concat"}\n'
        '{"op":"insert","id":1,"args_pickle":"gASVAAAAAAAAAAAu"}\n',
        '{"op":"hello","swagkit_replay":2,"kind":"tree","monoid":"sum"}\n',
    ]
    for text in cases:
        path = tmp_path / "bad.jsonl"
        path.write_text(text)
        code, out, err = _run(["replay", str(path), "--impl", f"{HERE}:TwoStacks"], capsys)
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, (text, err)
    code, _, err = _run(["replay", str(tmp_path / "missing.jsonl")], capsys)
    assert code == 2 and "cannot read" in err


# ----------------------------------------------------------------------------------------------------------------
# a shadowing clone


def test_a_swagkit_folder_in_the_working_directory_is_not_used_silently(tmp_path: Path) -> None:
    (tmp_path / "swagkit" / "optimized").mkdir(parents=True)
    (tmp_path / "swagkit" / "optimized" / "__init__.py").write_text("raise SystemExit('the clone was imported')\n")
    (tmp_path / "own.py").write_text(
        "from swagkit.spec.errors import EmptyWindowError\nfrom swagkit.reference import TwoStacks as Agg\n"
    )
    done = _cli_in(tmp_path, "verify", "--impl", "own:Agg", "--monoid", "string_concat", "--examples", "2")
    assert done.returncode == 0, done.stdout + done.stderr  # --impl's import of . did not let the clone in
    done = subprocess.run(
        [sys.executable, "-m", "swagkit.verify", "list"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    # python -m puts the working directory first: the clone shadows, and swagkit says so before anything else
    assert "WARNING" in done.stderr and "working directory" in done.stderr or "clone was imported" in done.stderr


# ----------------------------------------------------------------------------------------------------------------
# any language: the C driver's planted bugs through --exec


@needs_cc
@pytest.mark.parametrize("bug", ["BUG_FLIP_ORDER", "BUG_HANG", "BUG_GARBAGE"])  # a crash: tests/test_process.py
def test_exec_findings_carry_the_protocol_lines_and_replay(
    bug: str, c_driver: Callable[[str], str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad, good = c_driver(bug), c_driver("")
    argv = ["verify", "--exec", bad, "--monoid", "string_concat", "--replay-dir", str(tmp_path), "--timeout", "2"]
    code, out, err = _run(argv, capsys)
    assert code == 1, out + err
    assert "protocol lines of the failing instance" in out and "\n  -> {" in out and "impl:" not in out
    assert f"--exec {bad}" in out
    (path, *_) = _replays(tmp_path)
    for program, status in ((bad, 1), (good, 0)):
        code, text, err = _run(["replay", str(path), "--exec", program, "--timeout", "2"], capsys)
        assert code == status, text + err
