"""Timing helpers of ``swagkit bench``: contenders run alternately, judged by the median of paired ratios.

On a shared machine the load drifts during a run, so absolute rates from one moment are not comparable with rates
from another; a *round* runs every contender once, back to back, under nearly the same load, and the ratio of
each contender to the baseline within a round is the robust number. :func:`alternate` returns, per contender,
the best rate and the median of its per-round ratios to the baseline (benchmarks/bench_fiba.py's method, moved
here; :func:`paired` is its two-contender form).

The machine-independent companion of every timing is the number of ``⊗`` calls per item
(:func:`combines_per_item`): the same items through the per-call API of the same class, reading
``combine_count``. It is deterministic, equal in the reference and the compiled implementation, and its
worst-case and amortized bounds are the algorithm cards' budgets (:mod:`swagkit.spec.algorithms`).
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

__all__ = [
    "Rates",
    "alternate",
    "paired",
    "fit",
    "powers",
    "driver_rate",
    "combines_per_item",
    "percentile",
    "Progress",
]


@dataclass(frozen=True)
class Rates:
    """One contender's result from :func:`alternate`: its best rate, its median rate, and the median of its
    per-round ratios to the baseline (1.0 for the baseline itself)."""

    best: float
    median: float
    ratio: float


def alternate(contenders: Mapping[str, Callable[[], float]], baseline: str, repeat: int) -> dict[str, Rates]:
    """Run every contender once per round (each call returns a rate, higher is better), ``repeat`` rounds."""
    rates: dict[str, list[float]] = {name: [] for name in contenders}
    ratios: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(repeat):
        for name, run in contenders.items():
            gc.collect()
            rates[name].append(run())
        base = rates[baseline][-1]
        for name in contenders:
            ratios[name].append(rates[name][-1] / base)
    return {
        name: Rates(max(rates[name]), statistics.median(rates[name]), statistics.median(ratios[name]))
        for name in contenders
    }


def paired(base: Callable[[], float], other: Callable[[], float], repeat: int) -> tuple[float, float, float]:
    """Run ``base`` and ``other`` alternately ``repeat`` times (each returns a rate): (best base rate, best other
    rate, median of the per-pair ratios other/base). On a shared machine the load drifts during a run; a pair is
    measured under nearly the same load, so the median paired ratio is the steadier number."""
    r = alternate({"base": base, "other": other}, "base", repeat)
    return r["base"].best, r["other"].best, r["other"].ratio


def fit(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float, float]:
    """Least-squares line ``y = a + b·x``: (slope b, intercept a, R²)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    b = sxy / sxx if sxx else 0.0
    a = my - b * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return b, a, (1 - ss_res / ss_tot) if ss_tot else 1.0


def powers(lo: int, hi: int, step: int = 2) -> list[int]:
    """``[2^lo, 2^(lo+step), …]`` up to ``2^hi``."""
    return [1 << k for k in range(lo, hi + 1, step)]


def driver_rate(window_array: Callable[..., Any], cls: Any, monoid: Any, values: Any, window: int) -> float:
    """Items per second of one ``window_array(cls, monoid, values, window)`` run (000 §7.1's static window:
    evict when full, insert, query, per item)."""
    t = time.perf_counter()
    out = window_array(cls, monoid, values, window)
    dt = time.perf_counter() - t
    assert len(out) == len(values)
    return len(values) / dt


def combines_per_item(cls: Any, monoid: Any, values: Sequence[Any], window: int) -> float:
    """``⊗`` calls per item of the run :func:`driver_rate` times, counted through the per-call API (the counter
    is the same in both paths: the driver runs the same operations in C)."""
    agg = cls(monoid)
    evict, insert, query = agg.evict, agg.insert, agg.query
    for v in values:
        if len(agg) == window:
            evict()
        insert(v)
        query()
    return float(agg.combine_count) / max(1, len(values))


def percentile(sorted_samples: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0 ≤ q ≤ 100) of already sorted samples, nearest rank (no interpolation: the tail
    percentiles of 000 Fig. 9 are single observed latencies)."""
    if not sorted_samples:
        return float("nan")
    rank = min(len(sorted_samples) - 1, max(0, int(round(q / 100 * len(sorted_samples))) - 1))
    return float(sorted_samples[rank])


class Progress:
    """One stderr line per step (``[000 12.3s] throughput sum w=2^8 (3/27)``); on a terminal the line is
    rewritten in place, in a log each step keeps its own line."""

    def __init__(self, err: TextIO | None = None) -> None:
        self.err = err if err is not None else sys.stderr
        self.start = time.perf_counter()
        self.tty = bool(getattr(self.err, "isatty", lambda: False)())
        self._width = 0

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def step(self, experiment: str, what: str) -> None:
        line = f"[{experiment} {self.elapsed():6.1f}s] {what}"
        if self.tty:
            self.err.write("\r" + line.ljust(self._width))
            self._width = len(line)
        else:
            self.err.write(line + "\n")
        self.err.flush()

    def done(self, message: str) -> None:
        if self.tty and self._width:
            self.err.write("\r" + " " * self._width + "\r")
        self.err.write(message + "\n")
        self.err.flush()
        self._width = 0
