"""``swagkit bench`` (verify/bench/): experiments at tiny sizes, the CSV and report they write, ⊗ counts against the
algorithm cards, and the command line. Timings are not asserted (a shared machine); counts and shapes are."""

from __future__ import annotations

import csv
import importlib.util
import io
import math
import os
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

import swagkit.optimized as opt
from swagkit.spec.algorithms import CARDS
from swagkit.spec.library import sum_i64
from swagkit.verify.bench import EXPERIMENTS, exp000, figures
from swagkit.verify.bench.cli import run_experiments
from swagkit.verify.bench.report import COLUMNS, Check, Outcome, Ratio, write_summary
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
    assert "000_fill_drain_geomean.png" in pngs and "000_event_time_sum_f64.png" in pngs
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
    from swagkit.verify.bench import readme  # the run's summary.json is what --readme renders

    assert "#### 003:" in readme.render(str(tmp_path))


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


def test_000_moving_windows_and_latency_denoising_are_reported(tiny_000: Path) -> None:
    rows = _rows(tiny_000, "000")
    figures_ = {r["figure"] for r in rows}
    assert {"000_fill_drain_sum_f64", "000_fill_drain_geomean", "000_event_time_sum_f64"} <= figures_
    fill = {(r["contender"], int(r["x"])) for r in rows if r["figure"] == "000_fill_drain_sum_f64"}
    assert {("DABALite", 1 << k) for k in exp000.TINY.fill_log2} <= fill and ("TwoStacks", 8) in fill
    bursts = {int(r["x"]) for r in rows if r["figure"] == "000_event_time_geomean" and r["metric"] == "ratio"}
    assert bursts == set(exp000.TINY.bursts)
    latency = [r for r in rows if r["figure"] == "000_latency_sum_f64"]
    assert {r["data"] for r in latency} == {"uniform", f"min_of_{exp000.TINY.latency_replays}_replays"}
    assert {"flip_ns", "flip_min_ns", "noise_p99.999_ns"} <= {r["metric"] for r in latency}
    assert exp000.NOOP in {r["contender"] for r in latency}
    events = [r for r in rows if r["figure"] == "000_event_latency_geomean"]
    replays = f"bursts_min_of_{exp000.TINY.latency_replays}_replays"
    assert {r["data"] for r in events} == {"bursts", replays}
    assert {r["contender"] for r in events} == set(exp000.LATENCY_ALGORITHMS)
    for a in exp000.LATENCY_ALGORITHMS:  # the least of the replays never exceeds the raw run's largest round
        top = {r["data"]: float(r["value"]) for r in events if r["contender"] == a and r["metric"] == "p100_ns"}
        assert 0 < top[replays] <= top["bursts"]
    report = (tiny_000 / "report.md").read_text(encoding="utf-8")
    assert "bursts of evictions give every algorithm a similar maximum latency (geomean" in report
    burst = max(exp000.TINY.bursts)
    assert f"DABALite: most ⊗ in one round ≤ the card's bound for {burst} evictions" in report
    assert "Two-Stacks' flip against the noise floor (sum_f64" in report
    assert f"min of {exp000.TINY.latency_replays} replays per round" in report


def test_burst_times_and_event_time_window() -> None:
    from swagkit.verify.bench.exp000_windows import burst_times, event_time_rate, fill_drain_rate

    assert burst_times(12, 3, 6) == [1, 1, 1, 2, 3, 4, 5, 5, 5, 6, 7, 8]
    times = burst_times(400, 16, 64)
    assert times == sorted(times) and len(times) == 400 and max(times.count(t) for t in times) == 16
    counts: list[tuple[float, int]] = []
    assert event_time_rate(opt.DABALite, sum_i64(), list(range(400)), times, 50, counts) > 0
    b = BUDGETS["DABALite"]
    mean, worst = counts[0]
    # each item is inserted once, evicted at most once, and one query follows it (000 Theorem 6.2's credits)
    assert 0 < mean <= b.avg_insert + b.avg_evict + b.bound("query", 400)
    assert worst >= 16  # the round after a burst ages out evicts its 16 items: at least one ⊗ each here
    combines: list[float] = []
    assert fill_drain_rate(opt.TwoStacks, sum_i64(), list(range(64)), 16, combines) > 0
    # per item: one insert, one evict, two queries; Two-Stacks' flip of the whole window is paid once per drain
    assert combines[0] <= BUDGETS["TwoStacks"].avg_insert + BUDGETS["TwoStacks"].avg_evict + 2


def test_002_flatfat_direct_answers_the_window_in_order() -> None:
    """FlatFAT as a circular buffer (002 §4): after every slide of m, suffix(front) ⊗ prefix(front − 1) is the
    window in arrival order, for a non-commutative monoid; Algorithm 2's ⊗ budget per bulk update."""
    from swagkit.spec.library import string_concat
    from swagkit.verify.bench.exp002 import chunks, flatfat_answer, flatfat_window

    monoid, w, m = string_concat(), 8, 3
    values = [chr(ord("a") + i % 26) for i in range(60)]
    fill, slides = chunks(values, w, m, 15)
    fat, updates = flatfat_window(monoid, fill, slides)
    seen = fill
    for chunk, (pairs, front) in zip(slides, updates):
        before = fat.combine_count
        fat.update(pairs)
        assert fat.combine_count - before <= m * (1 + math.ceil(math.log2(w / m)))
        seen = (seen + chunk)[-w:]
        assert flatfat_answer(fat, monoid, front) == "".join(seen)


def test_peers_lines_ratios_and_targets(monkeypatch: pytest.MonkeyPatch) -> None:
    from swagkit.verify.bench import peers, timing
    from swagkit.verify.bench.timing import Progress

    monkeypatch.setattr(peers, "loops_for", lambda fn, budget=0.03: 1)
    monkeypatch.setattr(timing, "gc", types.SimpleNamespace(collect=lambda: 0))  # timings are not asserted here
    outcome = peers.run(peers.TINY, Progress(io.StringIO()))
    names = {(r.contender, r.data) for r in outcome.rows if r.metric == "ratio"}
    assert ("DABALite max_f64 shift loop", "plain monotonic deque (max)") in names
    assert ("DABALite max_f64 3-call loop", "plain monotonic deque (max)") in names
    assert ("floor: 3 no-op C method calls", "plain running sum (sum)") in names
    assert ("floor: 1 C call returning a float", "plain running sum (sum)") in names
    # the ≥ 3× target is the one-call loop's; the three-call loop and the floors are shown, not judged
    assert {c.claim.split(" ≥ ")[0] for c in outcome.checks if "per" not in c.claim and "loop" in c.claim} == {
        f"{cls} {m} shift loop"
        for cls, m in (
            ("SlickDequeNonInv", "max_f64"),
            ("DABALite", "max_f64"),
            ("SlickDequeInv", "sum_f64"),
            ("DABALite", "sum_f64"),
        )
    }
    if importlib.util.find_spec("bottleneck") is not None:
        assert ("window_sum sum_f64 (bounded error)", "bottleneck move_sum") in names
        assert any(c.claim == "window_array SlickDequeNonInv max_f64 ≥ 2× bottleneck move_max" for c in outcome.checks)
    assert all(r.value > 0 for r in outcome.rows)
    assert len(outcome.ratios) == len(names)
    for c in outcome.checks:  # a target's verdict is its measured ratio against the target
        target = float(c.claim.split("≥ ")[1].split("×")[0])
        assert c.ok == (float(c.measured.rstrip("×")) >= target), c


def test_readme_block_is_rendered_from_the_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The generator is a function of the results directory, and ``--readme`` writes exactly its text between
    the markers of docs/performance.md (idempotent; links that work from docs/); the repository's page holds the
    render of benchmarks/results/ once a run is checked in."""
    from swagkit.verify.bench import readme

    results = tmp_path / "results"
    results.mkdir()
    outcome = Outcome("002", "a title", checks=[Check("a | claim", "≈ 3", None), Check("b", "1.5×", False)])
    outcome.ratios.append(Ratio("sum, window 8", "FlatFAT", "recompute", 1.23456, 3))
    write_summary([outcome], str(results / "summary.json"), ["2026-11-26 03:00 UTC, x86_64", "mode: full"])
    (results / "002_sum.png").write_bytes(b"")
    text = readme.render(str(results))
    assert text == readme.render(str(results))
    assert "mode: full." in text and "#### 002: a title" in text and "| a \\| claim | ≈ 3 |  |" in text
    assert "| b | 1.5× | MISSED |" in text and "| sum, window 8 | FlatFAT | recompute | 1.23 |" in text
    assert "[002_sum](../benchmarks/results/002_sum.png)" in text  # from docs/
    assert "[`benchmarks/results/`](../benchmarks/results/report.md)" in text
    assert "`swagkit bench --out benchmarks/results`" in text

    (tmp_path / "README.md").write_text("# x\n\nPerformance: [docs/performance.md](docs/performance.md)\n", "utf-8")
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "performance.md"
    page.write_text(f"# Performance\n\n{readme.START}\nold numbers\n{readme.END}\n\n## After\n", "utf-8")
    assert readme.page_for(str(tmp_path / "README.md")) == str(page)
    assert readme.update_readme(str(tmp_path / "README.md"), str(results))
    assert not readme.update_readme(str(tmp_path / "README.md"), str(results))
    assert readme.readme_block(page.read_text("utf-8")) == text and page.read_text("utf-8").endswith("## After\n")
    assert readme.START not in (tmp_path / "README.md").read_text("utf-8")
    monkeypatch.chdir(tmp_path)  # the command line: the repository of README.md in the working directory
    assert main(["bench", "--readme", os.fspath(results)]) == 0 and "unchanged" in capsys.readouterr().out
    page.write_text("no markers\n", "utf-8")
    assert main(["bench", "--readme", os.fspath(results)]) == 2 and "no <!-- bench:start -->" in capsys.readouterr().err
    page.unlink()
    assert main(["bench", "--readme", os.fspath(results)]) == 2 and "docs/performance.md" in capsys.readouterr().err

    # a README that still holds the block itself (an older layout) gets it there, linked from the root
    old = tmp_path / "README.md"
    old.write_text(f"# x\n\n{readme.START}\n{readme.END}\n", "utf-8")
    assert readme.update_readme(str(old), str(results))
    assert "[002_sum](benchmarks/results/002_sum.png)" in readme.readme_block(old.read_text("utf-8"))

    root = Path(__file__).resolve().parent.parent
    checked_in = root / readme.RESULTS
    if not (checked_in / "summary.json").exists():
        pytest.skip("no results checked in yet (benchmarks/results/summary.json)")
    published = (root / readme.PAGE).read_text("utf-8")
    assert readme.readme_block(published) == readme.render(os.fspath(checked_in))
    assert readme.START not in (root / "README.md").read_text("utf-8")


def test_violin_sample_keeps_the_extremes_and_the_quantiles() -> None:
    from swagkit.verify.bench.figures import violin_sample

    data = sorted(float((i * 7919) % 100_003) for i in range(100_003))
    picked = violin_sample(data, body=101)
    assert len(picked) == 101 and picked == sorted(picked)
    assert picked[0] == data[0] and picked[-1] == data[-1] and picked[50] == data[len(data) // 2]
    assert violin_sample(data[:50], body=101) == data[:50]


# tests/conftest.py: the benchmark harness and its reports do not depend on the compiled switch;
# it runs in one pass only, the pure-Python one (it balances the two)
pytestmark = pytest.mark.once
ONCE_PASS = "pure"  # tests/conftest.py: the pure pass has room (the TINY runs take seconds either way)


def test_merge_replaces_only_the_experiments_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``swagkit bench --only 004 --merge``: 004's section and summary entry are this run's; another experiment's
    (here a made-up ``zzz`` beside it) stay the earlier run's, in their place; the header keeps the earlier run's
    lines and adds this run's."""
    import json

    from swagkit.verify.bench import readme

    monkeypatch.setattr(figures, "_pyplot", lambda: None)  # no figures: the merge is about the text
    out, err = io.StringIO(), io.StringIO()
    assert run_experiments(["004"], str(tmp_path), "TINY", out, err) == 0
    summary, report = tmp_path / "summary.json", tmp_path / "report.md"
    before = json.loads(summary.read_text(encoding="utf-8"))
    other = {**before["experiments"][0], "id": "zzz", "title": "an experiment not re-run"}
    before["experiments"].insert(0, other)
    summary.write_text(json.dumps(before), encoding="utf-8")
    section = "\n## zzz: an experiment not re-run\n\n| claim | measured | |\n|---|---|---|\n| kept | 1 | OK |\n"
    text = report.read_text(encoding="utf-8")
    cut = text.index("\n## 004:")
    report.write_text(text[:cut] + section + text[cut:], encoding="utf-8")
    assert main(["bench", "--only", "004", "--quick", "--out", os.fspath(tmp_path / "none"), "--merge"]) == 2
    assert run_experiments(["004"], str(tmp_path), "TINY", out, err, merge=True) == 0
    after = json.loads(summary.read_text(encoding="utf-8"))
    assert [e["id"] for e in after["experiments"]] == ["zzz", "004"] and after["experiments"][0] == other
    assert after["header"][: len(before["header"])] == before["header"]
    assert after["header"][-1].startswith("re-run ") and "experiments: 004" in after["header"][-1]
    merged = report.read_text(encoding="utf-8")
    assert section in merged and merged.count("\n## 004:") == 1 and after["header"][-1] in merged
    assert merged.index(section) < merged.index("\n## 004:")
    assert "#### zzz:" in readme.render(str(tmp_path)) and "re-run " in readme.render(str(tmp_path))
