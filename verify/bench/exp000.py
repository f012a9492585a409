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
   Beside the raw percentiles: the same rounds replayed K times on the same states, each round's least time kept
   (interference is random, the round's own cost is not), the measured cost of Two-Stacks' flips (the rounds
   whose ``⊗`` count says they flip) and the noise floor (the same loop over three no-op C calls).
3. **Fill and drain** and 4. an **event-time window with bursts of evictions** (sum and geometric mean, per-call
   API): :mod:`.exp000_windows`; 5. that window's **latency per round** (000 Fig. 12, bulk evictions):
   :mod:`.exp000_event_latency`.
"""

from __future__ import annotations

import array
import gc
import math
import operator
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.algorithms import CARDS
from swagkit.spec.library import bloom_filter, geomean, sum_f64
from swagkit.spec.monoid import Monoid

from .exp000_event_latency import event_time_latency
from .exp000_windows import Sweep, event_time_bursts, fill_and_drain
from .peers import NoOpCalls
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
NOOP = "no-op calls"  # the latency loop over three no-op C calls: the noise floor


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
    latency_replays: int
    fill_log2: tuple[int, ...]
    bursts: tuple[int, ...]


FULL = Sizes(
    tuple(range(0, 23)), 1 << 20, 1 << 15, 16, 5, 1 << 14, 1 << 20, 5, tuple(range(0, 17, 2)), (1, 16, 256, 4096)
)
QUICK = Sizes(tuple(range(0, 17, 2)), 1 << 17, 1 << 13, 14, 3, 1 << 14, 1 << 18, 3, (0, 4, 8, 12), (1, 64, 1024))
TINY = Sizes((0, 4, 8), 1 << 10, 1 << 9, 8, 2, 1 << 8, 1 << 12, 2, (0, 3, 6), (1, 8))


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
    span = sizes.latency_window
    longest = max(sizes.python_items, 1 << max(sizes.fill_log2), 4 * span)
    moving = {m: v for m, v in _inputs(longest).items() if m != "bloom"}
    sweep = Sweep(ALGORITHMS, BASELINE, sizes.repeat, progress, outcome)
    fill_and_drain(moving, sizes.fill_log2, sizes.python_items, sweep)
    event_time_bursts(moving, sizes.bursts, span, max(sizes.python_items, 4 * span), sweep)
    _latency(sizes, progress, outcome)
    rounds = sizes.latency_ops
    bursty = {m: (monoid, values[:rounds]) for m, (monoid, values) in _inputs(rounds).items() if m != "bloom"}
    event_time_latency(
        bursty,
        LATENCY_ALGORITHMS,
        span,
        max(sizes.bursts),
        rounds,
        sizes.latency_replays,
        clock_overhead_ns(),
        progress,
        outcome,
    )
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
    w, ops, k = sizes.latency_window, sizes.latency_ops, sizes.latency_replays
    inputs = _inputs(w + ops)
    overhead = clock_overhead_ns()
    for mname, (monoid, values) in inputs.items():
        replays: list[dict[str, array.array[float]]] = []
        for r in range(k):
            progress.step(
                ID,
                f"latency {mname} window {w}: {ops} rounds × {len(LATENCY_ALGORITHMS)} algorithms, replay {r + 1}/{k}",
            )
            replays.append(_replay(monoid, values, w, ops, overhead))
        raw = {a: list(s) for a, s in replays[0].items()}
        # the same rounds replayed on the same states: interference is random, a round's own cost is not
        least = {a: sorted(map(min, *(rep[a] for rep in replays))) if k > 1 else sorted(raw[a]) for a in raw}
        worst = {
            a: max(round_combines(getattr(opt, a), monoid, values[: w + min(ops, 2 * w + 2)], w))
            for a in LATENCY_ALGORITHMS
        }
        worst[NOOP] = 0
        fig = Figure(
            f"000_latency_{mname}",
            f"000 Fig. 9: latency of evict+insert+query, window {w}, {mname} (p99.9, p99.999 marked)",
            "algorithm",
            "log10 CPU ns per round",
            kind="violin",
            logx=False,
            logy=False,
            samples=raw,
            marks=TAIL,
        )
        outcome.figures.append(fig)
        flips = [i for i, c in enumerate(round_combines(opt.TwoStacks, monoid, values[: w + ops], w)) if c > 3]
        tails: dict[str, dict[str, float]] = {"raw": {}, "least": {}}
        for data, samples in (("raw", raw), ("least", least)):
            for a, s in samples.items():
                if data == "raw":
                    s.sort()
                for q in (50.0, 99.0, *TAIL, 100.0):
                    row_data = "uniform" if data == "raw" else f"min_of_{k}_replays"
                    outcome.rows.append(
                        Row(fig.name, a, mname, row_data, "window", w, f"p{q:g}_ns", percentile(s, q), worst[a])
                    )
                tails[data][a] = percentile(s, 99.999)
        for a in ("DABA", "DABALite"):
            for data, how in (("raw", ""), ("least", f", min of {k} replays per round")):
                factor = tails[data]["TwoStacks"] / max(tails[data][a], 1.0)
                outcome.checks.append(
                    Check(
                        f"{a} p99.999 ≥ 20× below Two-Stacks' ({mname}, window {w}{how})",
                        f"{tails[data][a] / 1e3:.2f} µs vs {tails[data]['TwoStacks'] / 1e3:.1f} µs: {factor:.1f}×",
                        factor >= 20,
                    )
                )
        flip_raw = statistics.median(replays[0]["TwoStacks"][i] for i in flips) if flips else math.nan
        flip_least = (
            statistics.median(min(rep["TwoStacks"][i] for rep in replays) for i in flips) if flips else math.nan
        )
        noise = tails["raw"][NOOP]
        for metric, value in (("flip_ns", flip_raw), ("flip_min_ns", flip_least), ("noise_p99.999_ns", noise)):
            outcome.rows.append(
                Row(
                    fig.name,
                    "TwoStacks" if metric != "noise_p99.999_ns" else NOOP,
                    mname,
                    "uniform",
                    "window",
                    w,
                    metric,
                    value,
                    worst["TwoStacks"],
                )
            )
        outcome.checks.append(
            Check(
                f"Two-Stacks' flip against the noise floor ({mname}, window {w})",
                f"flip (median of {len(flips)}, ≤ {worst['TwoStacks']} ⊗ in its round) {flip_raw / 1e3:.1f} µs, "
                f"{flip_least / 1e3:.1f} µs min of {k}; p99.999 of a no-op round {noise / 1e3:.1f} µs, "
                f"{tails['least'][NOOP] / 1e3:.2f} µs min of {k}; "
                f"20× below the flip is {flip_least / 20e3:.2f} µs",
                None,
            )
        )
        budgets = {c.class_name: c.budget for c in CARDS if c.budget is not None}
        for a in LATENCY_ALGORITHMS:
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
        "count, cache misses and interrupts after it do. p99.999 of a run is one of its few largest samples, so "
        "on a shared machine it is set by 10-100 µs interference spikes as soon as the algorithm's own worst "
        'round is cheaper: the "min of K replays" rows replay the same rounds on the same states K times and '
        f"keep each round's least time (interference is random, a round's own cost is not), and \"{NOOP}\" "
        "is the same loop over three no-op C calls: its p99.999 is the noise floor. The ⊗ columns are the "
        "deterministic side of the same claim."
    )


def _replay(
    monoid: Monoid[Any, Any, Any], values: Sequence[Any], w: int, ops: int, overhead: int
) -> dict[str, array.array[float]]:
    """One timed pass of ``ops`` rounds on fresh, full windows of ``w``: every contender (and the no-op loop) on
    the same values, interleaved in chunks so load drift reaches them alike; the garbage collector is off."""
    chunks = 16
    aggs: dict[str, Any] = {a: getattr(opt, a)(monoid) for a in LATENCY_ALGORITHMS}
    for agg in aggs.values():
        agg.insert_many(values[:w])
    aggs[NOOP] = NoOpCalls()
    samples: dict[str, array.array[float]] = {a: array.array("d") for a in aggs}
    per_chunk = ops // chunks
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for c in range(chunks):
            chunk = values[w + c * per_chunk : w + (c + 1) * per_chunk]
            for a, agg in aggs.items():
                samples[a].extend(_time_rounds(agg, chunk, overhead))
    finally:
        if was_enabled:
            gc.enable()
    return samples


def clock_overhead_ns(clock: Callable[[], int] = time.thread_time_ns) -> int:
    """The smallest difference of two back-to-back reads of ``clock``: subtracted from every latency sample."""
    best = 1 << 62
    for _ in range(1000):
        t = clock()
        best = min(best, clock() - t)
    return best


def _time_rounds(agg: Any, values: Sequence[Any], overhead: int) -> list[float]:
    """CPU nanoseconds of this thread per round (``CLOCK_THREAD_CPUTIME_ID``): time spent descheduled does not
    count, so the tails are the algorithm's, not the other processes' on a shared machine.

    A few untimed, timed-like reads come first: the first round after another contender's chunk otherwise pays
    for caches that chunk evicted (≈ 1-2 µs at window 2^14, in the no-op loop as much as in DABA: the harness, not
    the algorithm), and with chunks a multiple of the window it would always be Two-Stacks' flip round. The window
    answered a query at the end of its last round, so the repeated queries leave its snapshot as it was (FlatFIT's
    pointer compression included) and the timed rounds are the same as without them."""
    clock = time.thread_time_ns
    evict, insert, query = agg.evict, agg.insert, agg.query
    for _ in range(3):
        t = clock()
        query()
        max(0, clock() - t - overhead)
    out: list[float] = []
    append = out.append
    for v in values:
        t = clock()
        evict()
        insert(v)
        query()
        append(max(0, clock() - t - overhead))
    return out
