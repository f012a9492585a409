"""``swagkit verify --impl`` and :func:`swagkit.verify.verify_aggregator`: a user's own class, planted bugs caught
at the defaults, replay files written and re-run (``swagkit replay``), missing optional operations listed, a
raising implementation a FAIL (never an ERROR)."""

from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stdout
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.monoid import Monoid
from swagkit.spec.nonfifo import OrderedMultisetWindow
from swagkit.spec.ooo import TimedWindow, check_bulk_order
from swagkit.verify import verify_aggregator
from swagkit.verify.cli import main
from swagkit.verify.impl import ImplementationError, VerificationFailed, machine_for
from swagkit.verify.jsonvalues import decode, encode
from swagkit.verify.kinds.machines import run_machine_class

#: independent of swagkit.optimized: run once (tools/check.sh's compiled pass)
pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: this module runs in the pure-Python pass (it balances the two)

# --------------------------------------------------------------------------------------------------------------
# users' classes: a plain Python list, and planted bugs


class ListAgg:
    """A correct FIFO aggregator: the window as a list, folded on every query."""

    def __init__(self, monoid: Any) -> None:
        self.m = monoid
        self.items: list[Any] = []

    def insert(self, value: Any) -> None:
        self.items.append(self.m.lift(value))

    def evict(self) -> None:
        if not self.items:
            raise EmptyWindowError("evict() on an empty window")
        self.items.pop(0)

    def _fold(self, items: list[Any]) -> Any:
        acc = self.m.identity
        for x in items:
            acc = self.m.combine(acc, x)
        return self.m.lower(acc)

    def query(self) -> Any:
        return self._fold(self.items)

    def __len__(self) -> int:
        return len(self.items)


class LifoEvict(ListAgg):
    def evict(self) -> None:
        if not self.items:
            raise EmptyWindowError("evict() on an empty window")
        self.items.pop()  # the youngest, not the oldest


class OffByOneWindow(ListAgg):
    """Lazy deletion with an off-by-one start index: after an evict the query still sees one evicted value."""

    def __init__(self, monoid: Any) -> None:
        super().__init__(monoid)
        self.head = 0

    def evict(self) -> None:
        if self.head == len(self.items):
            raise EmptyWindowError("evict() on an empty window")
        self.head += 1

    def query(self) -> Any:
        return self._fold(self.items[max(self.head - 1, 0) :] if self.head < len(self.items) else [])

    def __len__(self) -> int:
        return len(self.items) - self.head


class SwappedQuery(ListAgg):
    def query(self) -> Any:
        acc = self.m.identity
        for x in self.items:
            acc = self.m.combine(x, acc)  # operands swapped
        return self.m.lower(acc)


class CrashOnLastEvict(ListAgg):
    def evict(self) -> None:
        if len(self.items) == 1:
            raise RuntimeError("cannot evict the last element")
        super().evict()


class LossyInsertMany(ListAgg):
    def insert_many(self, values: list[Any]) -> None:
        for v in values[:-1]:  # the last value is missing
            self.insert(v)


class OldSideBulkInsert(TimedWindow[Any, Any, Any]):
    """Out-of-order: a bulk insert at a present time combines new ⊗ old (the wrong side)."""

    def bulk_insert(self, pairs: Any) -> None:
        pairs = list(pairs)
        check_bulk_order([t for t, _ in pairs])
        for t, v in pairs:
            if t in self.times():
                old = self.range_aggregate(t, t)
                self.remove(t)
                TimedWindow.insert(self, t, v)
                self._values[self._times.index(t)] = self.monoid.combine(self.monoid.lift(v), old)
            else:
                TimedWindow.insert(self, t, v)


def reverse_concat() -> Monoid[str, str, str]:
    """A user's own monoid: concatenation, the younger value first (non-commutative)."""
    return Monoid(identity="", combine=lambda a, b: b + a, name="reverse_concat")


reverse_concat.strategy = st.text(alphabet="xyz", min_size=1, max_size=2)  # type: ignore[attr-defined]


PLANTED = [LifoEvict, OffByOneWindow, SwappedQuery, CrashOnLastEvict, LossyInsertMany]


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(list(args))
    return status, out.getvalue()


# --------------------------------------------------------------------------------------------------------------
# the CLI


def test_a_correct_class_passes_the_defaults_and_missing_optional_operations_are_listed(tmp_path: Path) -> None:
    status, out = _cli(
        "verify", "--impl", "test_impl:ListAgg", "--kind", "fifo", "--replay-dir", str(tmp_path), "--budget", "4"
    )
    assert status == 0, out
    for monoid in ("string_concat", "argmax", "affine", "sum_f64"):  # the default set
        assert f"  {monoid}" in out and "PASS" in out
    assert "operations offered: insert, evict, query, __len__" in out
    missing = out.split("not offered (not exercised): ", 1)[1].split("checks:", 1)[0]
    for name in ("insert_many", "evict_many", "shift", "query_range", "snapshot", "combine_count"):
        assert name in missing, out
    assert not list(tmp_path.iterdir())  # no failure, no replay file


@pytest.mark.parametrize("cls", PLANTED, ids=lambda c: c.__name__)
def test_each_planted_bug_is_caught_through_the_cli_and_replays(cls: type, tmp_path: Path) -> None:
    start = time.perf_counter()
    status, out = _cli(
        "verify", "--impl", f"test_impl:{cls.__name__}", "--monoid", "string_concat", "--replay-dir", str(tmp_path)
    )
    seconds = time.perf_counter() - start
    assert status == 1 and "FAIL" in out and "ERROR" not in out, out
    (replay,) = tmp_path.iterdir()
    assert f"replay file: {replay}" in out and f"swagkit replay {replay} --impl test_impl:{cls.__name__}" in out
    header, *ops = [json.loads(line) for line in replay.read_text().splitlines()]
    assert header["swagkit_replay"] == 2 and header["kind"] == "fifo" and header["monoid"] == "string_concat"
    assert header["impl"] == f"test_impl:{cls.__name__}" and header["failure"]
    assert 1 <= len(ops) <= 40 and all("op" in op for op in ops)
    assert "(it reproduces the failure)" in out
    assert main(["replay", str(replay)]) == 2  # a file names no code to run: the command line does
    assert main(["replay", str(replay), "--impl", f"test_impl:{cls.__name__}"]) == 1  # still fails
    assert main(["replay", str(replay), "--impl", "test_impl:ListAgg"]) == 0  # the correct class passes it
    print(f"{cls.__name__}: caught and shrunk in {seconds:.2f}s, {len(ops)} operations")


def test_a_raising_implementation_is_a_fail_naming_the_operation() -> None:
    with pytest.raises(VerificationFailed) as info:
        verify_aggregator(CrashOnLastEvict, "fifo", "string_concat", replay_dir=None)
    (result,) = info.value.report.results
    failure = result.findings[0].failure
    assert result.status == "FAIL" and "ImplementationError" in failure and "in evict()" in failure
    assert isinstance(info.value, AssertionError) and issubclass(ImplementationError, AssertionError)


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert _cli("verify", "--impl", "no_such_module_here:X")[0] == 2
    assert _cli("verify", "--impl", "test_impl:ListAgg", "--kind", "handles")[0] == 2  # no insert_with_handle
    assert _cli("verify", "--impl", "test_impl:ListAgg", "--checker", "daba_lite")[0] == 2  # no snapshot()
    assert _cli("verify", "--impl", "test_impl:ListAgg", "--monoid", "no_such_monoid")[0] == 2


# --------------------------------------------------------------------------------------------------------------
# the Python API


def test_verify_aggregator_passes_a_correct_class_and_raises_with_the_replay_path(tmp_path: Path) -> None:
    report = verify_aggregator(ListAgg, kind="fifo", monoid=["string_concat", "affine"], replay_dir=str(tmp_path))
    assert report.passed and [r.name for r in report.results] == ["string_concat", "affine"]
    with pytest.raises(VerificationFailed, match=r"replay file: .*\.jsonl") as info:
        verify_aggregator(SwappedQuery, kind="fifo", monoid="affine", replay_dir=str(tmp_path))
    assert "ModelMismatch" in str(info.value) and "#1 " in str(info.value)  # the numbered trace


def test_machine_for_returns_a_state_machine_to_run_or_subclass() -> None:
    machine = machine_for(ListAgg, "fifo", "string_concat")
    run_machine_class(machine, 4, 10, 0)
    assert machine.stats.examples >= 4 and hasattr(machine, "TestCase")
    with pytest.raises(AssertionError):
        run_machine_class(machine_for(LifoEvict, "fifo", "string_concat"), 12, 40, 0)


def test_handles_and_out_of_order_kinds() -> None:
    report = verify_aggregator(OrderedMultisetWindow, "handles", "string_concat", examples=6, replay_dir=None)
    assert report.passed and "remove_many" in report.detected.missing and "batch" in report.detected.missing
    report = verify_aggregator(TimedWindow, "ooo", ["string_concat", "affine"], times="any", replay_dir=None)
    assert report.passed and "snapshot" in report.detected.missing


def test_an_out_of_order_bulk_bug_is_caught_and_replays(tmp_path: Path) -> None:
    with pytest.raises(VerificationFailed) as info:
        verify_aggregator(
            OldSideBulkInsert, "ooo", "string_concat", replay_dir=str(tmp_path), impl="test_impl:OldSideBulkInsert"
        )
    (replay,) = tmp_path.iterdir()
    assert str(replay) in str(info.value)
    assert any('"bulk_insert"' in line for line in replay.read_text().splitlines())
    assert main(["replay", str(replay), "--impl", "test_impl:OldSideBulkInsert"]) == 1
    assert main(["replay", str(replay), "--impl", "swagkit.spec.ooo:TimedWindow"]) == 0


def test_a_users_own_monoid_with_its_strategy() -> None:
    report = verify_aggregator(ListAgg, "fifo", "test_impl:reverse_concat", examples=4, replay_dir=None)
    assert report.passed


# --------------------------------------------------------------------------------------------------------------
# JSON values


@pytest.mark.parametrize(
    ("value", "monoid"),
    [("ab", "string_concat"), ((Fraction(1, 2), -3), "affine"), (0.1, "sum_f64"), ((3, "a"), "argmax"), (None, "")],
)
def test_json_values_round_trip_exactly(value: Any, monoid: str) -> None:
    data = json.loads(json.dumps(encode(value)))
    assert decode(data, monoid) == value and type(decode(data, monoid)) is type(value)
