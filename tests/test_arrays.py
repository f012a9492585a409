"""The array entry points' check (``swagkit.verify.arrays``, issue 25 §3): ``window_array``'s typed fast paths,
``slide``'s in-order kernel and ``window_sum`` against their twins, in the main job of a compiled build. The
kernels' planted bugs are in ``tests/test_planted_kernels.py``; here, the check itself: it passes on the real
build, finds and shrinks a broken fast path of a class swagkit did not write, and its replay files are data."""

from __future__ import annotations

import array
import json
from pathlib import Path
from typing import Any

import pytest

from swagkit import optimized, reference
from swagkit.optimized import _driver
from swagkit.spec.library import LIBRARY
from swagkit.verify import registry
from swagkit.verify.arrays import ArrayCase, compare, entry_point
from swagkit.verify.cli import main

#: the compiled pass: the check runs for a compiled implementation only
pytestmark = pytest.mark.once


def test_the_real_build_agrees_with_its_twins_and_the_report_names_each_entry_point(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert optimized.COMPILED
    monkeypatch.setenv("SWAGKIT_REPLAY_DIR", str(tmp_path))
    argv = ["verify", "--implementation", "optimized", "--monoid", "sum_f64", "max_i64", "--no-laws", "--no-spark"]
    assert main([*argv, "--examples", "3", "--steps", "10", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    for row in ("fiba arrays", "daba_lite arrays", "slickdeque_noninv arrays", "window_sum"):
        assert row in out, out
    assert "array entry points" in out and not list(tmp_path.iterdir())


class _OffByOne(reference.DABALite):
    """A user's class whose registered array fast path answers each frame one value short."""


def _short_frames(cls: Any, monoid: Any, values: Any, window: int) -> list[Any]:
    return reference.window_array(reference.DABALite, monoid, values, max(1, window - 1))


@pytest.fixture
def planted_fast_path() -> Any:
    info = registry.AlgorithmInfo(
        "planted_arrays",
        "_OffByOne",
        "DABA Lite, a fast path one short",
        "tests",
        checker="daba_lite",
        budget="daba_lite",
    )
    _driver.register_fast_path(_OffByOne, _short_frames)
    try:
        with registry.registered(info, {"reference": reference.DABALite, "optimized": _OffByOne}):
            yield info.id
    finally:
        del _driver._FAST[_OffByOne]


def test_a_broken_fast_path_is_found_shrunk_and_its_replay_file_is_data(
    planted_fast_path: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SWAGKIT_REPLAY_DIR", str(tmp_path))
    argv = ["verify", "--algorithm", planted_fast_path, "--implementation", "optimized", "--monoid", "sum_i64"]
    assert main([*argv, "--no-laws", "--no-spark", "--jobs", "1", "--shrink-budget", "5"]) == 1
    out = capsys.readouterr().out
    assert "planted_arrays × sum_i64 arrays -- wrong answer or state (correctness)" in out, out
    assert "(it reproduces the failure)" in out
    (path,) = tmp_path.glob("arrays-planted_arrays_optimized-sum_i64-*.jsonl")
    case = ArrayCase.of(json.loads(path.read_text(encoding="utf-8").splitlines()[0])["case"])
    # shrunk: two values and a window of two are the smallest call where one short differs
    assert (len(case.values), case.window) == (2, 2), case
    assert main(["replay", str(path)]) == 1
    assert "replay: FAIL, planted_arrays window_array(sum_i64" in capsys.readouterr().out


def test_a_malformed_or_foreign_arrays_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    head = {"op": "hello", "swagkit_replay": 2, "kind": "arrays", "algorithm": None, "implementation": "optimized"}
    for case in ({"entry": "os.system", "algorithm": None, "monoid": "sum_i64", "values": [], "window": 1}, {}):
        path = tmp_path / "bad.jsonl"
        path.write_text(json.dumps({**head, "monoid": "sum_i64", "python_only": "arrays", "case": case}) + "\n")
        assert main(["replay", str(path)]) == 2
        err = capsys.readouterr().err
        assert "array call is malformed" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("buffer", [False, True])
def test_a_nan_is_refused_alike_and_window_sum_agrees_bit_for_bit(buffer: bool) -> None:
    xs = (1.0, -0.0, 1e300, -1e300, 0.1, float("inf"), 2.5)
    for values in (xs, (*xs, float("nan"))):
        for w in (1, 2, 3, 8):
            assert compare(ArrayCase("window_sum", None, "sum_f64", values, w, (), buffer), None, None) == ""


def test_entry_points_are_read_off_the_class_not_an_algorithm_id() -> None:
    kind = registry.algorithm("fiba").kind.name
    assert entry_point(registry.subject("fiba", "optimized"), kind) == "slide"
    assert entry_point(registry.subject("daba", "optimized"), "fifo") == "window_array"
    # a class built with registered parameters has no fast path of its own (window_array keys it by class)
    assert entry_point(registry.subject("slickdeque_inv_ranges", "optimized"), "fifo") is None
    assert LIBRARY["sum_f64"].factory().fast_path is not None
    assert array.array("d", [1.0]).typecode == "d"
