"""``swagkit bench`` (verify/bench/): experiments at tiny sizes, the CSV and report they write, ⊗ counts against the
algorithm cards, and the command line. Timings are not asserted (a shared machine); counts and shapes are."""

from __future__ import annotations

import csv
import io
import math
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import swagkit.optimized as opt
from swagkit.spec.algorithms import CARDS
from swagkit.spec.library import sum_i64
from swagkit.verify.bench import EXPERIMENTS, exp000, figures
from swagkit.verify.bench.cli import run_experiments
from swagkit.verify.bench.report import COLUMNS
from swagkit.verify.cli import main

BUDGETS = {c.class_name: c.budget for c in CARDS if c.budget is not None}


@pytest.fixture(scope="module")
def tiny_000(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("bench")
    stdout, stderr = io.StringIO(), io.StringIO()
    assert run_experiments(["000"], str(out), "TINY", stdout, stderr) == 0
    assert "[000" in stderr.getvalue()  # the progress display
    yield out


def _rows(directory: Path, experiment: str) -> list[dict[str, str]]:
    with open(directory / f"{experiment}.csv", newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames or ()) == COLUMNS
        return list(reader)


def test_000_csv_has_every_algorithm_window_and_operator(tiny_000: Path) -> None:
    rows = _rows(tiny_000, "000")
    rates = {(r["monoid"], r["contender"], int(r["x"])) for r in rows if r["metric"] == "items_per_s"}
    windows = [1 << k for k in exp000.TINY.log2_windows]
    for w in windows:
        for algo in ("DABALite", "DABA", "TwoStacksLite", "TwoStacks", "FlatFIT", "ReactiveAggregator"):
            for monoid in ("sum_f64", "geomean", "bloom"):
                assert (monoid, algo, w) in rates
        assert ("sum_f64", "SlickDequeInv", w) in rates
        assert ("geomean", "SlickDequeInv", w) not in rates  # not invertible: refused, not timed
    for r in rows:
        assert float(r["value"]) >= 0, r
        if r["metric"] in ("items_per_s", "ratio"):
            assert r["combines"] != "", r  # ⊗ counts beside every timing (0 for FlatFIT at window 1)
            assert float(r["combines"]) > 0 or int(r["x"]) == 1, r
    baseline = [float(r["value"]) for r in rows if r["metric"] == "ratio" and r["contender"] == exp000.BASELINE]
    assert baseline and all(v == 1.0 for v in baseline)
    tails = {r["metric"] for r in rows if r["figure"].startswith("000_latency")}
    assert {"p99.9_ns", "p99.999_ns", "p50_ns"} <= tails


def test_000_report_has_the_ratio_table_and_claims(tiny_000: Path) -> None:
    report = (tiny_000 / "report.md").read_text(encoding="utf-8")
    assert "| ratio | contender | baseline | median paired ratio | rounds |" in report
    w = exp000.TINY.latency_window
    assert f"| sum_f64, window {w} | DABA | DABALite |" in report
    assert "p99.999 ≥ 20× below Two-Stacks'" in report
    assert "most ⊗ in one round ≤ the card's evict + insert + query" in report


def test_000_figures_are_png(tiny_000: Path) -> None:
    pytest.importorskip("matplotlib")
    pngs = sorted(p.name for p in tiny_000.glob("*.png"))
    assert "000_latency_sum_f64.png" in pngs and "000_throughput_bloom.png" in pngs
    for name in pngs:
        assert (tiny_000 / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({name})" in (tiny_000 / "report.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("algo", ["TwoStacks", "TwoStacksLite", "DABA", "DABALite", "FlatFIT"])
def test_round_combines_within_the_cards_budgets(algo: str) -> None:
    """⊗ of each evict+insert+query round on a full window: the worst case is the card's bound (000 Theorems 3.2,
    4.2, 5.2, 6.2), and over whole flip cycles the mean is at most the amortized credits plus the query."""
    w = 64
    rounds = exp000.round_combines(getattr(opt, algo), sum_i64(), list(range(5 * w)), w)
    b = BUDGETS[algo]
    assert max(rounds) <= b.bound("evict", w) + b.bound("insert", w - 1) + b.bound("query", w)
    mean = sum(rounds[: 4 * w]) / (4 * w)
    if b.avg_query is None:
        assert mean <= b.avg_insert + b.avg_evict + b.bound("query", w)


def test_round_combines_are_the_papers_counts() -> None:
    """The deterministic statements: Two-Stacks flips the whole window once per w evictions (w ⊗, plus the
    insert's and the query's) and pays exactly 3 per round amortized; DABA Lite's worst round is its 3 + 2 + 1
    and its mean 4 (000 Theorem 6.2: insert 2, evict 1, query 1); DABA's worst 4 + 3 + 1, mean 5."""
    w = 64
    values = list(range(5 * w))

    def counts(algo: str) -> list[int]:
        return exp000.round_combines(getattr(opt, algo), sum_i64(), values, w)

    two_stacks, daba_lite, daba = counts("TwoStacks"), counts("DABALite"), counts("DABA")
    assert max(two_stacks) == w + 2 and sum(1 for c in two_stacks if c > 3) == 4  # one flip per w rounds
    assert sum(two_stacks[: 4 * w]) == 3 * 4 * w
    assert max(daba_lite) == 6 and sum(daba_lite[: 4 * w]) == 4 * 4 * w
    assert max(daba) == 8 and sum(daba[: 4 * w]) == 5 * 4 * w


def test_without_matplotlib_the_report_says_figures_were_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(figures, "_pyplot", lambda: None)
    out = io.StringIO()
    assert run_experiments(["003"], str(tmp_path), "TINY", out, io.StringIO()) == 0
    assert not list(tmp_path.glob("*.png"))
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "figures skipped: matplotlib is not installed" in report and "figures skipped" in out.getvalue()
    rows = _rows(tmp_path, "003")
    assert {r["figure"] for r in rows} >= {"003_bulk_evict", "003_bulk_insert", "003_inorder", "003_bulk_vs_loop"}
    assert "| in-order sum_f64, window 2^14, array driver | FiBA μ=4 | DABALite |" in report


def test_only_rejects_an_unknown_experiment(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["bench", "--only", "000", "999", "--out", os.fspath(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "unknown experiment 999" in err and "000" in err
    assert not (tmp_path / "x").exists()  # nothing ran
    assert list(EXPERIMENTS)[0] == "000"


def test_break_even_is_the_last_crossing_of_one() -> None:
    from swagkit.verify.bench.exp002 import break_even

    assert break_even([2, 4, 8, 16], [0.5, 0.8, 1.2, 2.0]) == pytest.approx(2**2.5)  # log2-interpolated
    assert break_even([2, 4, 8, 16], [1.5, 0.9, 1.1, 2.0]) == pytest.approx(2**2.5)  # a dip moves it up
    assert break_even([2, 4], [1.0, 3.0]) == 2.0
    assert math.isnan(break_even([2, 4], [1.2, 0.9]))


@pytest.mark.parametrize("experiment_id", list(EXPERIMENTS))
def test_every_experiment_has_its_presets(experiment_id: str) -> None:
    from swagkit.verify.bench.cli import experiment

    mod = experiment(experiment_id)
    assert mod.ID == experiment_id and mod.TITLE
    assert all(isinstance(getattr(mod, p), mod.Sizes) for p in ("FULL", "QUICK", "TINY"))
    assert callable(mod.run)


def test_004_bounds_hold_on_a_small_stream() -> None:
    """The measured error of every paper-004 structure is within its bound, and its space within the space bound."""
    from swagkit.verify.bench.exp004 import measure

    results = measure("flow", 2_000, 0.1)
    assert {m.structure for m in results} == {"qdigest", "window_count", "window_quantiles", "value_division"}
    for m in results:
        assert 0 <= m.error <= 1, m
        assert m.space <= m.space_bound, m
