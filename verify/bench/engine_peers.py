"""Experiment ``engines``: swagkit's array drivers beside the window engines, fast *and* right (issue 24 §9).

One input of ``n`` floats (standard normal, with twenty ±1e17 spikes: :func:`.sum_accuracy.spiked_floats`) is
loaded once into each engine (not timed), then every contender computes the sliding sum and the sliding max of
the last ``W`` rows for each window ``W`` (a ROWS frame ``W-1 PRECEDING .. CURRENT ROW``; the first rows have
shorter frames), and the answers come back as one float64 array (timed: query and fetch, the best of ``repeat``
runs). Contenders: swagkit's ``window_sum`` (sum) and ``window_array(SlickDequeNonInv, max_f64)`` (max);
SQLite, DuckDB and DataFusion (SQL ``sum(x) OVER (ORDER BY i ROWS ...)``); Polars ``rolling_sum``/``rolling_max``
and pandas ``rolling(W, min_periods=1)``.

Beside each rate, the **correctness column** of the same run: the largest error of the sums as a share of the
frame's any-order bound ``γ_{n−1}·Σ|x|`` (:mod:`.sum_accuracy`; at most 1: some summation order of the frame's
own values gives the answer), and for the max the number of answers that differ from the exact maximum (computed
independently: van Herk / Gil-Werman block maxima in numpy). Exact frame sums come from prefix sums of the inputs
scaled to integers (exact); each contender's answers are screened against the correctly rounded exact sums in
numpy, and the frames that could hold the worst share are rechecked exactly (:func:`worst_share`).

A contender whose probe run (a 16th of the rows) predicts more than :data:`BUDGET_SECONDS` is skipped with a note,
as is an engine that is not installed (``pip install swagkit[engines]``).
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
import sqlite3
import time
from array import array
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, sum_f64

from . import timing
from .report import Check, Outcome, Ratio, Row
from .sum_accuracy import any_order_gamma, spiked_floats

__all__ = ["ID", "TITLE", "Sizes", "FULL", "QUICK", "TINY", "run", "worst_share", "window_max", "contenders"]

ID = "engines"
TITLE = "swagkit beside SQLite, DuckDB, DataFusion, Polars and pandas: rows per second and correctness (issue 24)"
#: a contender predicted (from its probe) to take longer than this per run is skipped
BUDGET_SECONDS = 120.0


@dataclass(frozen=True)
class Sizes:
    """Rows, windows, runs per contender (the best is kept)."""

    rows: int
    windows: tuple[int, ...]
    repeat: int


FULL = Sizes(10_000_000, (16, 256, 4096, 65536), 2)
QUICK = Sizes(1_000_000, (16, 4096, 65536), 1)
TINY = Sizes(4096, (16, 64), 1)

#: a contender: (name, op, load(values) -> state, run(state, op, W) -> answers)
Runner = Callable[[Any, str, int], Any]


@dataclass(frozen=True)
class Contender:
    name: str
    version: str
    load: Callable[[Any], Any]
    run: Runner


def _sql(op: str, w: int) -> str:
    return f"SELECT {op}(x) OVER (ORDER BY i ROWS BETWEEN {w - 1} PRECEDING AND CURRENT ROW) AS a FROM t ORDER BY i"


def _swagkit() -> Contender:
    def load(values: Any) -> Any:
        return array("d", values.tobytes())

    def run(data: Any, op: str, w: int) -> Any:
        if op == "sum":
            return opt.window_sum(sum_f64(), data, w)
        return opt.window_array(opt.SlickDequeNonInv, max_f64(), data, w)

    try:
        version = metadata.version("swagkit")
    except metadata.PackageNotFoundError:  # run from a checkout that is not installed
        version = "(not installed)"
    return Contender("swagkit", f"{version} ({'compiled' if opt.COMPILED else 'pure Python'})", load, run)


def _sqlite() -> Contender:
    def load(values: Any) -> Any:
        con = sqlite3.connect(":memory:")
        con.execute("CREATE TABLE t (i INTEGER PRIMARY KEY, x REAL)")
        con.executemany("INSERT INTO t VALUES (?, ?)", enumerate(values.tolist()))
        return con

    def run(con: Any, op: str, w: int) -> Any:
        return [r[0] for r in con.execute(_sql(op, w))]

    return Contender("sqlite", sqlite3.sqlite_version, load, run)


def _duckdb(np: Any) -> Contender:
    duckdb = importlib.import_module("duckdb")

    def load(values: Any) -> Any:
        con = duckdb.connect()
        pa = importlib.import_module("pyarrow")
        con.register("src", pa.table({"i": np.arange(len(values), dtype=np.int64), "x": values}))
        con.execute("CREATE TABLE t AS SELECT i, x FROM src")
        return con

    def run(con: Any, op: str, w: int) -> Any:
        return con.execute(_sql(op, w)).fetchnumpy()["a"]

    return Contender("duckdb", duckdb.__version__, load, run)


def _datafusion(np: Any) -> Contender:
    datafusion = importlib.import_module("datafusion")
    pa = importlib.import_module("pyarrow")

    def load(values: Any) -> Any:
        ctx = datafusion.SessionContext()
        table = pa.table({"i": np.arange(len(values), dtype=np.int64), "x": values})
        ctx.register_record_batches("t", [table.to_batches()])
        return ctx

    def run(ctx: Any, op: str, w: int) -> Any:
        return ctx.sql(_sql(op, w)).to_arrow_table().column("a").to_numpy()

    return Contender("datafusion", datafusion.__version__, load, run)


def _polars() -> Contender:
    pl = importlib.import_module("polars")

    def run(series: Any, op: str, w: int) -> Any:
        rolled = series.rolling_sum(w, min_samples=1) if op == "sum" else series.rolling_max(w, min_samples=1)
        return rolled.to_numpy()

    return Contender("polars", pl.__version__, lambda values: pl.Series("x", values), run)


def _pandas() -> Contender:
    pd = importlib.import_module("pandas")

    def run(series: Any, op: str, w: int) -> Any:
        rolled = series.rolling(w, min_periods=1)
        return (rolled.sum() if op == "sum" else rolled.max()).to_numpy()

    return Contender("pandas", pd.__version__, lambda values: pd.Series(values), run)


def contenders(np: Any, notes: list[str]) -> list[Contender]:
    """swagkit and every installed engine (a note for each missing one)."""
    found = [_swagkit(), _sqlite()]
    makers: tuple[tuple[str, Callable[[], Contender]], ...] = (
        ("duckdb", lambda: _duckdb(np)),
        ("datafusion", lambda: _datafusion(np)),
        ("polars", _polars),
        ("pandas", _pandas),
    )
    for name, make in makers:
        try:
            found.append(make())
        except ImportError:
            notes.append(f"{name} is not installed (pip install swagkit[engines]): its lines are skipped")
    return found


def window_max(np: Any, values: Any, w: int) -> Any:
    """Exact maxima of the frames ``values[max(0, i−w+1) .. i]`` by van Herk / Gil-Werman: the input padded to
    whole blocks of ``w``, a running max from each block's start (prefix) and from its end (suffix); frame ``i``
    spans at most two blocks, its max is ``max(suffix[i−w+1], prefix[i])``. O(n), independent of swagkit."""
    n = len(values)
    pad = (-(n + w - 1)) % w
    x = np.concatenate([np.full(w - 1, -np.inf), values, np.full(pad, -np.inf)]).reshape(-1, w)
    prefix = np.maximum.accumulate(x, axis=1).ravel()
    suffix = np.maximum.accumulate(x[:, ::-1], axis=1)[:, ::-1].ravel()
    i = np.arange(n) + (w - 1)
    return np.maximum(suffix[i - (w - 1)], prefix[i])


@dataclass(frozen=True)
class ExactSums:
    """Every frame's exact sum and ``Σ|x|`` as scaled ints (``2**k`` times the value), and both correctly rounded
    to float64 (numpy arrays) for screening."""

    k: int
    sums: list[int]
    abs_sums: list[int]
    rounded: Any
    rounded_abs: Any
    sizes: Any


def exact_sums(np: Any, values: Sequence[float], w: int) -> ExactSums:
    """Prefix sums of the scaled inputs (exact Python ints), one subtraction per frame. O(n) big-int operations."""
    k = max((v.as_integer_ratio()[1].bit_length() - 1 for v in values), default=0)
    scaled = [_scaled(v, k) for v in values]
    pre = [0, *itertools.accumulate(scaled)]
    pre_abs = [0, *itertools.accumulate(abs(s) for s in scaled)]
    n = len(values)
    sums = [pre[i + 1] - pre[max(0, i - w + 1)] for i in range(n)]
    abs_sums = [pre_abs[i + 1] - pre_abs[max(0, i - w + 1)] for i in range(n)]
    rounded = np.array([math.ldexp(float(s), -k) for s in sums])
    rounded_abs = np.array([math.ldexp(float(s), -k) for s in abs_sums])
    sizes = np.minimum(np.arange(1, n + 1), w)
    return ExactSums(k, sums, abs_sums, rounded, rounded_abs, sizes)


def _scaled(v: float, k: int) -> int:
    num, den = v.as_integer_ratio()
    return num * ((1 << k) // den)


def _exact_share(exact: ExactSums, i: int, got: float) -> float:
    if not math.isfinite(got):
        return math.inf
    num, den = got.as_integer_ratio()
    err = abs((num << exact.k) - exact.sums[i] * den)
    if err == 0:
        return 0.0
    gamma = any_order_gamma(int(exact.sizes[i]))
    if gamma == 0.0 or exact.abs_sums[i] == 0:
        return math.inf
    return err / (exact.abs_sums[i] * den) / gamma


def worst_share(np: Any, exact: ExactSums, answers: Any, recheck: int = 2000) -> tuple[float, bool]:
    """(the largest ``|got − exact| / (γ_{n−1}·Σ|x|)`` over the frames, whether that figure is exact).

    Screening in numpy against the correctly rounded exact sums misjudges a frame's share by at most about
    ``1/(n−1)`` (the rounding of the exact sum, ``u·|exact|``, against the bound ``(n−1)·u·Σ|x|``); the
    ``recheck`` frames with the largest screened share plus that margin are recomputed exactly. The figure is
    exact when every frame left out could not exceed it."""
    got = np.asarray(answers, dtype=np.float64)
    sizes = exact.sizes
    gamma = (sizes - 1) * 2.0**-53 / (1.0 - (sizes - 1) * 2.0**-53)
    bound = gamma * exact.rounded_abs
    with np.errstate(divide="ignore", invalid="ignore"):
        screened = np.abs(got - exact.rounded) / bound
        margin = 1.01 / np.maximum(sizes - 1, 1) * (exact.rounded_abs > 0)
    screened = np.where(np.isfinite(got), screened, np.inf)
    screened = np.where(np.isnan(screened), 0.0, screened)  # 0/0: a lone or all-zero frame answered exactly
    upper = screened + margin
    order = np.argsort(-upper, kind="stable")[:recheck]
    worst = max((_exact_share(exact, int(i), float(got[i])) for i in order), default=0.0)
    complete = len(order) == len(got) or float(upper[order[-1]]) <= worst
    return worst, complete


def _timed(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, result = math.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def measure(
    sizes: Sizes, progress: timing.Progress, notes: list[str]
) -> Iterator[tuple[Contender, str, int, float, float | None, bool]]:
    """(contender, op, W, rows/s, correctness, exact) per line; correctness: the sums' worst share of the bound,
    the max's count of wrong answers; None when skipped."""
    np = importlib.import_module("numpy")
    values = np.array(spiked_floats(sizes.rows), dtype=np.float64)
    everyone = contenders(np, notes)
    loaded = []
    for c in everyone:
        t0 = time.perf_counter()
        loaded.append((c, c.load(values), c.load(values[: max(1, sizes.rows // 16)])))
        progress.step(ID, f"{c.name} {c.version}: loaded {sizes.rows:,} rows in {time.perf_counter() - t0:.1f} s")
    xs = values.tolist()
    for w in sizes.windows:
        exact = exact_sums(np, xs, w)
        maxima = window_max(np, values, w)
        for op in ("sum", "max"):
            for c, state, probe in loaded:
                probe_s, _ = _timed(functools.partial(c.run, probe, op, w), 1)
                if probe_s * 16 * 1.5 > BUDGET_SECONDS:
                    notes.append(
                        f"{c.name} {op} W={w}: skipped (a 16th of the rows took {probe_s:.1f} s: about "
                        f"{probe_s * 16:.0f} s predicted, over the {BUDGET_SECONDS:.0f} s budget)"
                    )
                    continue
                seconds, answers = _timed(functools.partial(c.run, state, op, w), sizes.repeat)
                got = np.asarray(answers, dtype=np.float64)
                if op == "sum":
                    share, complete = worst_share(np, exact, got)
                    yield c, op, w, sizes.rows / seconds, share, complete
                else:
                    yield c, op, w, sizes.rows / seconds, float(np.count_nonzero(got != maxima)), True


def run(sizes: Sizes, progress: timing.Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    notes: list[str] = []
    table: dict[tuple[str, str], dict[int, str]] = {}
    rates: dict[tuple[str, str, int], float] = {}
    versions: dict[str, str] = {}
    data = f"{sizes.rows:,} normal floats, 20 ±1e17 spikes"
    for c, op, w, rate, correct, complete in measure(sizes, progress, notes):
        versions[c.name] = c.version
        rates[c.name, op, w] = rate
        if op == "sum":
            verdict = f"{correct:.3g}×" + ("" if complete else "+")
            metric = "worst_error_share_of_bound"
        else:
            verdict = f"{int(correct or 0)} wrong"
            metric = "wrong_answers"
        progress.step(ID, f"{c.name} {op} W={w}: {rate / 1e6:.2f} M rows/s, {verdict}")
        table.setdefault((c.name, op), {})[w] = f"{rate / 1e6:.2f} M/s · {verdict}"
        outcome.rows.append(Row("engines", c.name, op, data, "window", w, "rows_per_s", rate))
        outcome.rows.append(Row("engines", c.name, op, data, "window", w, metric, float(correct or 0.0)))
        if c.name == "swagkit":
            ok = (correct or 0.0) <= 1.0 if op == "sum" else correct == 0
            claim = f"window_sum within the any-order bound, W={w}" if op == "sum" else f"window_array max exact, W={w}"
            outcome.checks.append(Check(claim, verdict, ok))
    for (name, op, w), rate in rates.items():
        base = rates.get(("swagkit", op, w))
        if name != "swagkit" and base is not None:
            outcome.ratios.append(Ratio(f"{op}, window {w}", "swagkit", name, base / rate, 1))
    header = "| contender | op | " + " | ".join(f"W = {w}" for w in sizes.windows) + " |"
    lines = [header, "|---|---|" + "---:|" * len(sizes.windows)]
    for (name, op), cells in table.items():
        lines.append(
            f"| {name} {versions[name]} | {op} | " + " | ".join(cells.get(w, "skipped") for w in sizes.windows) + " |"
        )
    outcome.tables.append("\n".join(lines))
    outcome.notes += list(dict.fromkeys(notes))
    outcome.notes.append(
        f"{data}; rows per second = rows / (query + fetch), the best of {sizes.repeat} run(s), loading not "
        "timed. Correctness: sums, the largest error as a share of the frame's any-order bound (≤ 1: some "
        "summation order of the frame's own values gives it; '+': a lower bound, not every frame was rechecked "
        "exactly); max, answers that differ from the exact maximum. Ratios: contender time / swagkit time."
    )
    return outcome
