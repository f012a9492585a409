"""Experiment 002: the Reactive Aggregator (FlatFAT's FIFO use) against recomputing from scratch (paper 002 §6).

002's Table 3 reports the window size from which the Reactive Aggregator's O(m log n) updates beat recomputing
the whole window on every query (≈ 370 for Sum, ≈ 260 for Max, ≈ 10 for StdDev, C++). Here: items/s of slides
of m items on a full window (evict m, insert m, one query; the fill is not timed) through the per-call API,
for windows 2^1 … 2^14 and m ∈ {1, 8, 64}, with

* ``ReactiveAggregator`` of :mod:`swagkit.optimized` (``sum_f64``/``max_f64`` on the typed C path, ``stddev`` with
  its Python ``⊗``),
* ``FlatFAT`` used directly (002 §4) as a circular buffer of w leaves: one bulk ``update`` of the m oldest leaves
  per slide (Algorithm 2), the query ``suffix(front) ⊗ prefix(front − 1)`` -- the paper's own use of the tree,
  without the Reactive Aggregator's per-element calls and resizing, and
* **recompute**: a ``collections.deque`` of the window, and per query the best plain-Python fold of it -- the
  built-in ``sum``/``max`` (C loops) for Sum and Max, ``functools.reduce(⊗)`` for StdDev (a C loop calling the
  same Python ``⊗`` the aggregator calls).

At the array level (C loops on both sides, m = 1, when numpy is installed): ``window_array(ReactiveAggregator,
sum_f64 | max_f64)`` against numpy's ``sliding_window_view(x, w).sum(axis=1)`` / ``.max(axis=1)``, a
recompute-from-scratch fold of every window in C -- the comparison closest to the paper's.

The two run alternately; the ratio Reactive / recompute crosses 1 at the **break-even window**, found by
interpolating in log2 of the window. ``⊗`` per item beside every rate: the aggregator's ``combine_count``, and
recompute's ``(w − 1)/m`` (one fold per query). The absolute break-evens differ from the paper's (a Python call
per operation here) -- the shape, a break-even that falls as ``⊗`` gets more expensive and rises with m, is the
comparison.
"""

from __future__ import annotations

import array
import collections
import functools
import importlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, stddev, sum_f64
from swagkit.spec.monoid import Monoid

from .report import Check, Figure, Outcome, Ratio, Row
from .timing import Progress, alternate

__all__ = ["ID", "TITLE", "Sizes", "FULL", "QUICK", "TINY", "run", "break_even", "chunks", "recompute_rate"]
__all__ += ["reactive_rate", "flatfat_window", "flatfat_answer", "flatfat_rate"]

ID = "002"
TITLE = "Reactive Aggregator and FlatFAT vs recompute from scratch: throughput vs window and m, break-even (002 §6)"
TREES = ("ReactiveAggregator", "FlatFAT")  # the contenders against recompute
PAPER_BREAK_EVEN = {"sum_f64": 370, "max_f64": 260, "stddev_pop": 10}


@dataclass(frozen=True)
class Sizes:
    """Windows ``2^k``, slide sizes m, timed items per run (fewer where recomputing would fold more than
    ``folds`` elements in a run; at least ``min_slides`` slides), rounds."""

    log2_windows: tuple[int, ...]
    ms: tuple[int, ...]
    items: int
    folds: int
    min_slides: int
    repeat: int


FULL = Sizes(tuple(range(1, 15)), (1, 8, 64), 1 << 16, 1 << 23, 64, 5)
QUICK = Sizes(tuple(range(1, 13)), (1, 64), 1 << 13, 1 << 20, 32, 3)
TINY = Sizes((1, 3, 5), (1, 4), 1 << 8, 1 << 12, 8, 2)


def _monoids() -> list[tuple[Monoid[Any, Any, Any], Callable[[Any], Any]]]:
    """Each operator with its recompute fold (over a deque of lifted values)."""
    sd = stddev()
    return [
        (sum_f64(), sum),
        (max_f64(), max),
        (sd, functools.partial(functools.reduce, sd.combine)),
    ]


def chunks(values: Sequence[Any], window: int, m: int, slides: int) -> tuple[list[Any], list[list[Any]]]:
    """The first ``window`` values (the untimed fill) and ``slides`` lists of the next m each."""
    fill = list(values[:window])
    rest = values[window : window + slides * m]
    return fill, [list(rest[i : i + m]) for i in range(0, len(rest) - m + 1, m)]


def reactive_rate(monoid: Any, fill: list[Any], slides: list[list[Any]]) -> tuple[float, float]:
    """(items/s, ⊗ per item) of slides (evict m, insert m, query) through ``ReactiveAggregator`` on a full
    window of ``len(fill)`` items."""
    agg = opt.ReactiveAggregator(monoid)
    agg.insert_many(fill)
    evict, insert, query = agg.evict, agg.insert, agg.query
    c0 = agg.combine_count
    t = time.perf_counter()
    for chunk in slides:
        for _ in chunk:
            evict()
        for v in chunk:
            insert(v)
        query()
    dt = time.perf_counter() - t
    items = sum(map(len, slides))
    return items / dt, (agg.combine_count - c0) / items


def flatfat_window(monoid: Any, fill: list[Any], slides: list[list[Any]]) -> tuple[Any, list[tuple[list[Any], int]]]:
    """``FlatFAT`` used directly (002 §4) as a circular buffer of ``len(fill)`` leaves (a power of two), and per
    slide of m its bulk update of the m oldest leaves (lifted, leaf indices computed) with the front after it."""
    n, lift = len(fill), monoid.lift
    fat = opt.FlatFAT(monoid, [lift(v) for v in fill], capacity=n)
    updates, front = [], 0
    for chunk in slides:
        pairs = [((front + i) % n, lift(v)) for i, v in enumerate(chunk)]
        front = (front + len(chunk)) % n
        updates.append((pairs, front))
    return fat, updates


def flatfat_answer(fat: Any, monoid: Any, front: int) -> Any:
    """The window in order for any monoid: ``suffix(front) ⊗ prefix(front − 1)`` (2·log2 n + 1 ⊗), or the root
    when the front is leaf 0."""
    return monoid.lower(monoid.combine(fat.suffix(front), fat.prefix(front - 1)) if front else fat.aggregate())


def flatfat_rate(monoid: Any, fill: list[Any], slides: list[list[Any]]) -> tuple[float, float]:
    """(items/s, ⊗ per item) of the same slides through :func:`flatfat_window`: one bulk ``update`` per slide
    (Algorithm 2: at most m·(1 + ⌈log2(n/m)⌉) ⊗) and :func:`flatfat_answer`. Lifting and the leaf indices are
    prepared before timing, as for recompute."""
    fat, updates = flatfat_window(monoid, fill, slides)
    update = fat.update
    c0 = fat.combine_count
    t = time.perf_counter()
    for pairs, front in updates:
        update(pairs)
        flatfat_answer(fat, monoid, front)
    dt = time.perf_counter() - t
    items = sum(map(len, slides))
    queries = sum(1 for _, front in updates if front)  # the ⊗ of suffix ⊗ prefix, outside the tree's counter
    return items / dt, (fat.combine_count - c0 + queries) / items


def recompute_rate(monoid: Any, fold: Callable[[Any], Any], fill: list[Any], slides: list[list[Any]]) -> float:
    """Items/s of the same slides over a deque of lifted values, folding the whole window on every query."""
    lift, lower = monoid.lift, monoid.lower
    # lifting is the aggregator's cost too, but not a ⊗: done before timing, so both sides time the same work
    lifted = [[lift(v) for v in chunk] for chunk in slides]
    dq: collections.deque[Any] = collections.deque(lift(v) for v in fill)
    popleft, append = dq.popleft, dq.append
    t = time.perf_counter()
    for chunk in lifted:
        for _ in chunk:
            popleft()
        for v in chunk:
            append(v)
        lower(fold(dq))
    return sum(map(len, slides)) / (time.perf_counter() - t)


def break_even(windows: Sequence[int], ratios: Sequence[float]) -> float:
    """The window from which ``ratios`` (Reactive / recompute) stay ≥ 1: the last crossing of 1 from below,
    interpolated in log2 of the window (a noisy point below 1 among larger windows moves it up, never down);
    ``windows[0]`` when every ratio is ≥ 1, NaN when the last one is below 1."""
    below = [i for i, r in enumerate(ratios) if r < 1]
    if not below:
        return float(windows[0]) if windows else math.nan
    i = below[-1]
    if i == len(ratios) - 1:
        return math.nan
    x0, x1, r0, r1 = math.log2(windows[i]), math.log2(windows[i + 1]), ratios[i], ratios[i + 1]
    return float(2 ** (x0 + (x1 - x0) * (1 - r0) / (r1 - r0)))


def _contenders(
    monoid: Any, fold: Callable[[Any], Any], fill: list[Any], slides: list[list[Any]], combines: dict[str, float]
) -> dict[str, Callable[[], float]]:
    """recompute first (the baseline), then the Reactive Aggregator and FlatFAT used directly, whose ⊗ per item
    go to ``combines[name]``."""

    def counted(name: str, measure: Callable[..., tuple[float, float]]) -> Callable[[], float]:
        def rate() -> float:
            r, comb = measure(monoid, fill, slides)
            combines[name] = comb
            return r

        return rate

    return {
        "recompute": lambda: recompute_rate(monoid, fold, fill, slides),
        "ReactiveAggregator": counted("ReactiveAggregator", reactive_rate),
        "FlatFAT": counted("FlatFAT", flatfat_rate),
    }


def run(sizes: Sizes, progress: Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    rng = random.Random(1)
    biggest = (1 << max(sizes.log2_windows)) + max(sizes.items, max(sizes.ms) * sizes.min_slides)
    values = array.array("d", (rng.uniform(0.0, 100.0) for _ in range(biggest)))
    for monoid, fold in _monoids():
        fig = Figure(
            f"002_{monoid.name}",
            f"002 §6: ReactiveAggregator and FlatFAT / recompute from scratch, {monoid.name}, by slide size m",
            "window size",
            "ratio (> 1: the tree is faster)",
            logy=True,
        )
        for m in sizes.ms:
            windows = [1 << k for k in sizes.log2_windows if 1 << k >= m]
            ratios: dict[str, list[float]] = {who: [] for who in TREES}
            for w in windows:
                progress.step(ID, f"{monoid.name}, m = {m}, window {w}")
                # steady state: a full window (untimed fill), then slides; recompute folds w per slide
                slides = max(sizes.min_slides, min(sizes.items // m, sizes.folds // w))
                fill, chunked = chunks(values, w, m, slides)
                combines: dict[str, float] = {"recompute": (w - 1) / m}
                r = alternate(_contenders(monoid, fold, fill, chunked, combines), "recompute", sizes.repeat)
                for who in ("recompute", *TREES):
                    outcome.rows.append(
                        Row(
                            fig.name, who, monoid.name, f"m={m}", "window", w, "items_per_s", r[who].best, combines[who]
                        )
                    )
                for who in TREES:
                    ratios[who].append(r[who].ratio)
                    outcome.rows.append(
                        Row(fig.name, who, monoid.name, f"m={m}", "window", w, "ratio", r[who].ratio, combines[who])
                    )
            for who in TREES:
                label = f"m = {m}" if who == "ReactiveAggregator" else f"{who}, m = {m}"
                fig.series[label] = ([float(w) for w in windows], ratios[who])
                be = break_even(windows, ratios[who])
                outcome.rows.append(Row(fig.name, who, monoid.name, f"m={m}", "m", m, "break_even", be))
                paper = PAPER_BREAK_EVEN.get(monoid.name) if who == "ReactiveAggregator" else None
                outcome.checks.append(
                    Check(
                        f"break-even window, {who}, {monoid.name}, m = {m}"
                        + (f" (002 Table 3: ≈ {paper}, m = 1)" if paper else ""),
                        "not reached" if math.isnan(be) else f"≈ {be:.0f}",
                        None,
                    )
                )
                outcome.ratios.append(
                    Ratio(
                        f"{monoid.name}, m = {m}, window {windows[-1]}", who, "recompute", ratios[who][-1], sizes.repeat
                    )
                )
        outcome.figures.append(fig)
    _array_level(sizes, progress, outcome, values)
    return outcome


def _numpy() -> Any:
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


def _array_level(sizes: Sizes, progress: Progress, outcome: Outcome, values: array.array[float]) -> None:
    np = _numpy()
    if np is None:
        outcome.notes.append("array level skipped: numpy is not installed")
        return
    view = np.lib.stride_tricks.sliding_window_view
    fig = Figure(
        "002_array_level",
        "002 §6 in C: window_array(ReactiveAggregator) / numpy sliding_window_view fold, m = 1",
        "window size",
        "ratio (> 1: Reactive faster)",
    )
    for monoid, reduce_name in ((sum_f64(), "sum"), (max_f64(), "max")):
        windows, ratios = [], []
        for k in sizes.log2_windows:
            w = 1 << k
            progress.step(ID, f"array level, {monoid.name}, window {w}")
            n = max(sizes.min_slides, min(8 * sizes.items, 8 * sizes.folds // w))
            data = values[: w - 1 + n]
            arr = np.frombuffer(data, dtype=np.float64)

            def numpy_fold(arr: Any = arr, w: int = w, name: str = reduce_name) -> float:
                t = time.perf_counter()
                getattr(view(arr, w), name)(axis=1)
                return (len(arr) - w + 1) / (time.perf_counter() - t)

            def reactive(data: Any = data, w: int = w, monoid: Any = monoid) -> float:
                t = time.perf_counter()
                opt.window_array(opt.ReactiveAggregator, monoid, data, w)
                return len(data) / (time.perf_counter() - t)

            r = alternate({"numpy": numpy_fold, "ReactiveAggregator": reactive}, "numpy", sizes.repeat)
            windows.append(float(w))
            ratios.append(r["ReactiveAggregator"].ratio)
            for who in ("numpy", "ReactiveAggregator"):
                outcome.rows.append(Row(fig.name, who, monoid.name, "array", "window", w, "items_per_s", r[who].best))
            outcome.rows.append(
                Row(fig.name, "ReactiveAggregator", monoid.name, "array", "window", w, "ratio", ratios[-1])
            )
        fig.series[monoid.name] = (windows, ratios)
        be = break_even([int(w) for w in windows], ratios)
        outcome.rows.append(Row(fig.name, "ReactiveAggregator", monoid.name, "array", "m", 1, "break_even", be))
        paper = PAPER_BREAK_EVEN[monoid.name]
        outcome.checks.append(
            Check(
                f"break-even window in C, {monoid.name}, m = 1 (002 Table 3: ≈ {paper})",
                "not reached" if math.isnan(be) else f"≈ {be:.0f}",
                None,
            )
        )
    outcome.figures.append(fig)
