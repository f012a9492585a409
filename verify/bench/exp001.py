"""Experiment 001: SlickDeque single- and multi-query throughput, Sum and Max, on four data shapes (paper 001 §5).

1. **Single query versus window size** (001 Exp. 1, Figs. 10-11): ``window_array`` items/s for windows 2^0 …
   2^16 (2^0 … 2^22 in a full run) on uniform, monotone (decreasing: every item stays in Max's deque, the Non-Inv
   worst case), sawtooth and random-walk data; SlickDeque Non-Inv with ``max_f64`` and SlickDeque Inv with
   ``sum_f64`` each against DABA Lite with the same operator, alternately (median of paired ratios), ``⊗`` per
   item beside every rate.
2. **Multi-query** (001 Exp. 2, Figs. 12-13): ranges 1..n all answered after every item (``step``), n = 1 … 256,
   against n DABA Lite instances (one per range; DABA Lite has no multi-query support): steps/s, ``⊗`` per step
   and Non-Inv's mean deque size. Non-Inv's ``⊗`` per step stays below 2 whatever n on uniform data.
3. **Memory per element** (001 §4: Non-Inv keeps only the deque's nodes, Inv one partial per element):
   ``_memory_bytes()`` of the compiled structures after a window of 2^16 (2^20 full) on uniform and decreasing
   data, beside DABA Lite's.

benchmarks/bench_slickdeque.py prints the same measurements through this module's functions.
"""

from __future__ import annotations

import array
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, sum_f64

from .report import Check, Figure, Outcome, Ratio, Row
from .timing import Progress, alternate, combines_per_item, driver_rate

__all__ = [
    "ID",
    "TITLE",
    "Sizes",
    "FULL",
    "QUICK",
    "TINY",
    "run",
    "SHAPES",
    "shaped",
    "multi_rate_slick",
    "multi_rate_daba",
    "multi_rate_flatfit",
    "runs_rate",
]

ID = "001"
TITLE = "SlickDeque: single and multi-query throughput vs window, Sum and Max, four data shapes (001 §5)"
SHAPES = ("uniform", "monotone", "sawtooth", "random_walk")


@dataclass(frozen=True)
class Sizes:
    """Windows ``2^k`` of the single-query runs, items per run (at least 3·window), rounds; range counts and
    steps of the multi-query runs; the window of the memory measurement."""

    log2_windows: tuple[int, ...]
    items: int
    repeat: int
    range_counts: tuple[int, ...]
    multi_items: int
    memory_window: int


FULL = Sizes(tuple(range(0, 23, 2)), 1 << 20, 5, (1, 4, 16, 64, 256), 20_000, 1 << 20)
QUICK = Sizes(tuple(range(0, 17, 4)), 1 << 17, 3, (1, 16, 256), 4_000, 1 << 16)
TINY = Sizes((0, 4, 8), 1 << 10, 2, (1, 4), 200, 1 << 8)


def shaped(shape: str, n: int, seed: int = 1) -> array.array[float]:
    """``n`` floats of one data shape: uniform in [0, 1); monotone (decreasing); sawtooth (ramps up of 1000
    items); a Gaussian random walk."""
    rng = random.Random(seed)
    if shape == "uniform":
        return array.array("d", (rng.random() for _ in range(n)))
    if shape == "monotone":
        return array.array("d", (-float(i) for i in range(n)))
    if shape == "sawtooth":
        return array.array("d", (float(i % 1000) for i in range(n)))
    if shape == "random_walk":
        out = array.array("d", bytes(8 * n))
        x = 0.0
        for i in range(n):
            x += rng.gauss(0.0, 1.0)
            out[i] = x
        return out
    raise ValueError(f"unknown data shape {shape!r} (known: {', '.join(SHAPES)})")


def multi_rate_slick(cls: Any, monoid: Any, values: Sequence[float], n: int) -> tuple[float, float, float]:
    """Steps/s of ``step(x)`` with ranges 1..n (every range answered after every item), ``⊗`` per step, and the
    mean deque size (Non-Inv only, sampled on an untimed second pass of up to 2000 items; 0 otherwise)."""
    agg = cls(monoid, ranges=range(1, n + 1))
    sizes = 0.0
    t = time.perf_counter()
    for x in values:
        agg.step(x)
    dt = time.perf_counter() - t
    if cls is opt.SlickDequeNonInv:
        probe = cls(monoid, ranges=range(1, n + 1))
        sample = values[: min(len(values), 2000)]
        total = 0
        for x in sample:
            probe.insert(x)
            total += len(probe.snapshot().nodes)
        sizes = total / max(1, len(sample))
    return len(values) / dt, agg.combine_count / len(values), sizes


def runs_rate(monoid: Any, values: Sequence[float], n: int) -> tuple[float, float]:
    """Steps/s of ``insert(x); query_runs()`` with ranges 1..n, and the mean number of runs (= deque size)."""
    agg = opt.SlickDequeNonInv(monoid, ranges=range(1, n + 1))
    total = 0
    t = time.perf_counter()
    for x in values:
        agg.insert(x)
        total += len(agg.query_runs())
    dt = time.perf_counter() - t
    return len(values) / dt, total / len(values)


def multi_rate_flatfit(monoid: Any, values: Sequence[float], n: int) -> tuple[float, float]:
    """Max-multi with FlatFIT (001 §2: several queries on one structure): ranges n..1 via ``query_range`` after
    each insert; steps/s and ⊗ per step (001 §4: at most n − 1)."""
    agg = opt.FlatFIT(monoid)
    rs = range(n, 0, -1)
    t = time.perf_counter()
    for x in values:
        if len(agg) == n:
            agg.evict()
        agg.insert(x)
        out = {r: agg.query_range(r) for r in rs}
    dt = time.perf_counter() - t
    del out
    return len(values) / dt, agg.combine_count / len(values)


def multi_rate_daba(monoid: Any, values: Sequence[float], n: int) -> float:
    """Steps/s of n DABA Lite instances, one per range 1..n, fed the same items and all queried each step."""
    aggs = [opt.DABALite(monoid) for _ in range(n)]
    t = time.perf_counter()
    for x in values:
        out = {}
        for r, a in zip(range(1, n + 1), aggs):
            if len(a) == r:
                a.evict()
            a.insert(x)
            out[r] = a.query()
    return len(values) / (time.perf_counter() - t)


PAIRS = (("max_f64", max_f64, "SlickDequeNonInv"), ("sum_f64", sum_f64, "SlickDequeInv"))


def run(sizes: Sizes, progress: Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    _single(sizes, progress, outcome)
    _multi(sizes, progress, outcome)
    _memory(sizes, progress, outcome)
    if not opt.COMPILED:
        outcome.notes.append("the pure-Python fallback ran for some structures: ratios compare unlike builds")
    return outcome


def _driver(cls: Any, monoid: Any, values: Any, window: int) -> Callable[[], float]:
    return lambda: driver_rate(opt.window_array, cls, monoid, values, window)


def _single(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    n_max = max(sizes.items, 3 << max(sizes.log2_windows))
    for mname, make, slick in PAIRS:
        fig = Figure(
            f"001_single_{mname}",
            f"001 Exp. 1: single query, {slick} / DABA Lite, {mname} (median of paired ratios)",
            "window size",
            "ratio to DABA Lite",
            logy=False,
        )
        for shape in SHAPES:
            values = shaped(shape, n_max)
            xs: list[float] = []
            ys: list[float] = []
            for k in sizes.log2_windows:
                w = 1 << k
                data = values[: max(sizes.items, 3 * w)]
                progress.step(ID, f"single query {mname} {shape} window 2^{k}")
                monoid = make()
                rates = alternate(
                    {
                        "DABALite": _driver(opt.DABALite, monoid, data, w),
                        slick: _driver(getattr(opt, slick), monoid, data, w),
                    },
                    "DABALite",
                    sizes.repeat,
                )
                for who in ("DABALite", slick):
                    comb = combines_per_item(getattr(opt, who), monoid, data, w)
                    outcome.rows.append(
                        Row(fig.name, who, mname, shape, "window", w, "items_per_s", rates[who].best, comb)
                    )
                outcome.rows.append(Row(fig.name, slick, mname, shape, "window", w, "ratio", rates[slick].ratio))
                xs.append(w)
                ys.append(rates[slick].ratio)
            fig.series[shape] = (xs, ys)
            mid = sorted(ys)[len(ys) // 2]
            outcome.ratios.append(
                Ratio(f"single query {mname}, {shape}, median over windows", slick, "DABALite", mid, sizes.repeat)
            )
        outcome.figures.append(fig)


def _multi(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    fig = Figure(
        "001_multi",
        "001 Exp. 2: multi-query, ranges 1..n answered every step: steps/s",
        "number of ranges n",
        "steps/s",
    )
    uniform = shaped("uniform", sizes.multi_items).tolist()
    decreasing = shaped("monotone", sizes.multi_items).tolist()
    series: dict[str, tuple[list[float], list[float]]] = {}
    worst_uniform_combines = 0.0
    for n in sizes.range_counts:
        progress.step(ID, f"multi-query, {n} ranges")
        baseline_items = uniform[: max(200, sizes.multi_items // max(1, n // 4))]
        runs: dict[str, tuple[float, float, float]] = {
            "SlickDequeNonInv max uniform": multi_rate_slick(opt.SlickDequeNonInv, max_f64(), uniform, n),
            "SlickDequeNonInv max monotone": multi_rate_slick(opt.SlickDequeNonInv, max_f64(), decreasing, n),
            "SlickDequeInv sum uniform": multi_rate_slick(opt.SlickDequeInv, sum_f64(), uniform, n),
            f"{n}×DABALite max uniform": (multi_rate_daba(max_f64(), baseline_items, n), math.nan, math.nan),
        }
        ff_rate, ff_comb = multi_rate_flatfit(max_f64(), uniform, n)
        runs["FlatFIT max uniform"] = (ff_rate, ff_comb, math.nan)
        worst_uniform_combines = max(worst_uniform_combines, runs["SlickDequeNonInv max uniform"][1])
        base = runs[f"{n}×DABALite max uniform"][0]
        for label, (rate, comb, deque) in runs.items():
            who, mname, shape = label.split(" ")
            key = "n×DABALite" if who.endswith("DABALite") else who
            outcome.rows.append(Row(fig.name, key, mname, shape, "ranges", n, "steps_per_s", rate, comb))
            if not math.isnan(deque):
                outcome.rows.append(Row(fig.name, key, mname, shape, "ranges", n, "deque_nodes", deque, comb))
            series.setdefault(f"{key} {mname} {shape}", ([], []))
            series[f"{key} {mname} {shape}"][0].append(n)
            series[f"{key} {mname} {shape}"][1].append(rate)
            if key != "n×DABALite" and n == sizes.range_counts[-1]:
                # separate runs, not alternated: n DABA Lites are too slow to pair item for item
                outcome.ratios.append(
                    Ratio(
                        f"multi-query {mname}, {n} ranges ({shape}; best rates, not paired)",
                        f"{who} {mname}",
                        f"{n}×DABALite",
                        rate / base,
                        1,
                    )
                )
    fig.series = series
    outcome.figures.append(fig)
    outcome.checks.append(
        Check(
            "Non-Inv multi-query: ⊗ per step < 2 on uniform data, whatever n (001 §4)",
            f"at most {worst_uniform_combines:.2f}",
            worst_uniform_combines < 2,
        )
    )


def _memory(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    n = sizes.memory_window
    progress.step(ID, f"memory per element, window {n}")
    for mname, make, slick in PAIRS:
        for shape in ("uniform", "monotone"):
            values = shaped(shape, n)
            per: dict[str, float] = {}
            for who in (slick, "DABALite"):
                agg = getattr(opt, who)(make())
                agg.insert_many(values)
                mem = agg._memory_bytes()
                per[who] = math.nan if mem is None else mem / len(agg)
                outcome.rows.append(Row("001_memory", who, mname, shape, "window", n, "bytes_per_element", per[who]))
            outcome.checks.append(
                Check(
                    f"{slick} bytes per element, {mname}, {shape} data, window {n}",
                    f"{per[slick]:.2f} (DABA Lite {per['DABALite']:.2f}; NaN: the pure-Python fallback)",
                    None,
                )
            )
