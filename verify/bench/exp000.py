"""Experiment 000: in-order SWAGs on a static window (paper 000 §7, Figs. 7-9).

1. **Throughput versus window size** (000 Figs. 7-8): ``window_array`` (evict when full, insert, query per item)
   for windows 2^0 … 2^22, every in-order algorithm of :mod:`swagkit.optimized` that accepts the operator, with a
   cheap (``sum_f64``, the typed C path), a medium (``geomean``: a Python ``⊗`` on (count, log-sum) pairs) and an
   expensive operator (``bloom``: OR of 4096-bit Bloom filters, lifted once before timing so the hash does not
   hide the ``⊗``). Each window's contenders run alternately; DABA Lite is the baseline of the paired ratios.
   Beside every rate: ``⊗`` calls per item of the same run.
2. **Latency** at window 2^14 (000 Fig. 9): CPU nanoseconds of each ``evict(); insert(v); query()`` round through the
   per-call API, contenders interleaved in chunks, Python's garbage collector off (its pauses would land on
   whichever algorithm is running); percentiles up to p99.999 and violin plots. The paper's claim: DABA's and DABA
   Lite's worst case is O(1), so their p99.999 sits far below Two-Stacks', whose flip costs O(n) once per n
   evictions. The largest ``⊗`` count of one round is recorded too: deterministic, and bounded by the cards'
   worst-case budgets (insert + evict + query), which for Two-Stacks is the flip of the whole window.
"""

from __future__ import annotations

import array
import gc
import operator
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.algorithms import CARDS
from swagkit.spec.library import bloom_filter, geomean, sum_f64
from swagkit.spec.monoid import Monoid

from .report import Check, Figure, Outcome, Ratio, Row
from .timing import Progress, alternate, combines_per_item, driver_rate, percentile

__all__ = ["ID", "TITLE", "Sizes", "FULL", "QUICK", "TINY", "run", "ALGORITHMS", "BASELINE", "round_combines"]

ID = "000"
TITLE = "in-order SWAGs, static window: throughput vs window size, latency tails (000 Figs. 7-9)"
ALGORITHMS = (
    "DABALite",
    "DABA",
    "TwoStacksLite",
    "TwoStacks",
    "FlatFIT",
    "ReactiveAggregator",
    "SlickDequeInv",
    "SlickDequeNonInv",
)
BASELINE = "DABALite"
LATENCY_ALGORITHMS = ("DABALite", "DABA", "TwoStacksLite", "TwoStacks", "FlatFIT")
TAIL = (99.9, 99.999)


@dataclass(frozen=True)
class Sizes:
    """The grid of one run: windows ``2^k`` for k in ``log2_windows`` (the Python-``⊗`` operators stop at
    ``python_max_log2``), items per run ``max(items, 3·window)``, rounds, and the latency run."""

    log2_windows: tuple[int, ...]
    items: int
    python_items: int
    python_max_log2: int
    repeat: int
    latency_window: int
    latency_ops: int


FULL = Sizes(tuple(range(0, 23)), 1 << 20, 1 << 15, 16, 5, 1 << 14, 1 << 20)
QUICK = Sizes(tuple(range(0, 17, 2)), 1 << 17, 1 << 13, 14, 3, 1 << 14, 1 << 18)
TINY = Sizes((0, 4, 8), 1 << 10, 1 << 9, 8, 2, 1 << 8, 1 << 12)


def _prelifted_bloom() -> Monoid[Any, int, int]:
    """The Bloom operator with lift and lower taken out (inputs are lifted masks): what is timed is the ``⊗``."""
    return Monoid(identity=0, combine=operator.or_, name="bloom", commutative=True)


def _inputs(n: int) -> dict[str, tuple[Monoid[Any, Any, Any], Sequence[Any]]]:
    rng = random.Random(1)
    floats = array.array("d", (rng.uniform(0.5, 2.0) for _ in range(n)))  # positive: geomean takes logs
    lift = bloom_filter(4096, 4).lift
    masks = [lift(i % 65521) for i in range(n)]
    return {
        "sum_f64": (sum_f64(), floats),
        "geomean": (geomean(), floats.tolist()),
        "bloom": (_prelifted_bloom(), masks),
    }


def _accepts(cls: Any, monoid: Any) -> bool:
    try:
        cls(monoid)
    except Exception:  # UnsupportedMonoidError and friends: the card's requirements (e.g. invertible, selective)
        return False
    return True


def run(sizes: Sizes, progress: Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    _throughput(sizes, progress, outcome)
    _latency(sizes, progress, outcome)
    return outcome


def _throughput(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    biggest = max(sizes.items, 3 << max(sizes.log2_windows))
    inputs = _inputs(biggest)
    for mname, (monoid, values) in inputs.items():
        python_op = mname != "sum_f64"
        ks = [k for k in sizes.log2_windows if not python_op or k <= sizes.python_max_log2]
        algos = [a for a in ALGORITHMS if _accepts(getattr(opt, a), monoid)]
        fig = Figure(
            f"000_throughput_{mname}",
            f"000: throughput vs window, {mname} (static window, evict+insert+query per item)",
            "window size",
            "items/s",
        )
        ratio_fig = Figure(
            f"000_ratio_{mname}",
            f"000: throughput / DABA Lite, {mname} (median of paired ratios)",
            "window size",
            "ratio to DABA Lite",
            logy=False,
        )
        reported = sizes.latency_window if sizes.latency_window in [1 << k for k in ks] else 1 << ks[-1]
        for i, k in enumerate(ks):
            w = 1 << k
            n = max(sizes.python_items if python_op else sizes.items, 3 * w)
            data = values[:n]
            progress.step(ID, f"throughput {mname} window 2^{k} ({i + 1}/{len(ks)}), {len(algos)} algorithms")
            contenders = {a: _driver(getattr(opt, a), monoid, data, w) for a in algos}
            rates = alternate(contenders, BASELINE, sizes.repeat)
            for a in algos:
                comb = combines_per_item(getattr(opt, a), monoid, data, w)
                outcome.rows.append(Row(fig.name, a, mname, "uniform", "window", w, "items_per_s", rates[a].best, comb))
                outcome.rows.append(Row(fig.name, a, mname, "uniform", "window", w, "ratio", rates[a].ratio, comb))
                fig.series.setdefault(a, ([], []))
                fig.series[a][0].append(w)
                fig.series[a][1].append(rates[a].best)
                ratio_fig.series.setdefault(a, ([], []))
                ratio_fig.series[a][0].append(w)
                ratio_fig.series[a][1].append(rates[a].ratio)
                if w == reported and a != BASELINE:
                    outcome.ratios.append(Ratio(f"{mname}, window {w}", a, BASELINE, rates[a].ratio, sizes.repeat))
        outcome.figures += [fig, ratio_fig]


def _driver(cls: Any, monoid: Any, values: Sequence[Any], window: int) -> Callable[[], float]:
    return lambda: driver_rate(opt.window_array, cls, monoid, values, window)


def round_combines(cls: Any, monoid: Any, values: Sequence[Any], window: int) -> list[int]:
    """``⊗`` calls of every ``evict(); insert(v); query()`` round on a full window (deterministic)."""
    agg = cls(monoid)
    agg.insert_many(values[:window])
    out = []
    for v in values[window:]:
        c = agg.combine_count
        agg.evict()
        agg.insert(v)
        agg.query()
        out.append(agg.combine_count - c)
    return out


def _latency(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    w, ops = sizes.latency_window, sizes.latency_ops
    inputs = _inputs(w + ops)
    chunks = 16  # contenders interleaved chunk by chunk, so load drift reaches them alike
    for mname, (monoid, values) in inputs.items():
        progress.step(ID, f"latency {mname} window {w}: {ops} rounds × {len(LATENCY_ALGORITHMS)} algorithms")
        samples: dict[str, list[float]] = {a: [] for a in LATENCY_ALGORITHMS}
        aggs = {a: getattr(opt, a)(monoid) for a in LATENCY_ALGORITHMS}
        for agg in aggs.values():
            agg.insert_many(values[:w])
        per_chunk = ops // chunks
        overhead = clock_overhead_ns()
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for c in range(chunks):
                chunk = values[w + c * per_chunk : w + (c + 1) * per_chunk]
                for a, agg in aggs.items():
                    samples[a] += _time_rounds(agg, chunk, overhead)
        finally:
            if was_enabled:
                gc.enable()
        worst = {a: max(round_combines(getattr(opt, a), monoid, values[: w + min(ops, 2 * w + 2)], w)) for a in aggs}
        fig = Figure(
            f"000_latency_{mname}",
            f"000 Fig. 9: latency of evict+insert+query, window {w}, {mname} (p99.9, p99.999 marked)",
            "algorithm",
            "log10 CPU ns per round",
            kind="violin",
            logx=False,
            logy=False,
            samples=samples,
            marks=TAIL,
        )
        outcome.figures.append(fig)
        tails: dict[str, float] = {}
        for a, s in samples.items():
            s.sort()
            for q in (50.0, 99.0, *TAIL, 100.0):
                value = percentile(s, q)
                outcome.rows.append(Row(fig.name, a, mname, "uniform", "window", w, f"p{q:g}_ns", value, worst[a]))
            tails[a] = percentile(s, 99.999)
        for a in ("DABA", "DABALite"):
            factor = tails["TwoStacks"] / tails[a]
            outcome.checks.append(
                Check(
                    f"{a} p99.999 ≥ 20× below Two-Stacks' ({mname}, window {w})",
                    f"{tails[a] / 1e3:.1f} µs vs {tails['TwoStacks'] / 1e3:.1f} µs: {factor:.1f}×",
                    factor >= 20,
                )
            )
        budgets = {c.class_name: c.budget for c in CARDS if c.budget is not None}
        for a in aggs:
            b = budgets[a]
            bound = b.bound("evict", w) + b.bound("insert", w - 1) + b.bound("query", w)
            outcome.checks.append(
                Check(
                    f"{a}: most ⊗ in one round ≤ the card's evict + insert + query ({b.source})",
                    f"{worst[a]} ≤ {bound:g}",
                    worst[a] <= bound,
                )
            )
    outcome.notes.append(
        "Latencies are CPU nanoseconds of this thread per Python-level round (call overhead included, the "
        "clock's own cost subtracted, garbage collector off): time spent descheduled on a shared machine does not "
        "count, cache misses after it do. p99.999 of a run is one of its few largest samples; the ⊗ columns are "
        "the deterministic side of the same claim."
    )


def clock_overhead_ns(clock: Callable[[], int] = time.thread_time_ns) -> int:
    """The smallest difference of two back-to-back reads of ``clock``: subtracted from every latency sample."""
    best = 1 << 62
    for _ in range(1000):
        t = clock()
        best = min(best, clock() - t)
    return best


def _time_rounds(agg: Any, values: Sequence[Any], overhead: int) -> list[float]:
    """CPU nanoseconds of this thread per round (``CLOCK_THREAD_CPUTIME_ID``): time spent descheduled does not
    count, so the tails are the algorithm's, not the other processes' on a shared machine."""
    clock = time.thread_time_ns
    evict, insert, query = agg.evict, agg.insert, agg.query
    out: list[float] = []
    append = out.append
    for v in values:
        t = clock()
        evict()
        insert(v)
        query()
        append(max(0, clock() - t - overhead))
    return out
