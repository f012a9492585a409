"""Experiment 003: FiBA's bulk evict and bulk insert, and in-order FiBA against DABA Lite (paper 003 §7).

1. **Bulk evict work** (003 Theorem 1, Fig. 12's shape): ``⊗`` calls and node visits of one ``bulk_evict`` of the
   m oldest entries in a steady state (evict m, bulk insert m in order) against m, for several window sizes n;
   the loop baseline ``FiBALoop`` (m single evicts) beside it. Native work grows with log m and is flat in n; the
   loop's grows linearly in m.
2. **Bulk insert work** (003 Theorem 3): one ``bulk_insert`` of m keys whose smallest has d younger entries, against
   the out-of-order distance d: one finger search per bulk (native) against m searches (loop).
3. **In-order throughput**, float64 sum, window 2^14: FiBA against DABA Lite alternately, as array drivers
   (``FiBA.slide`` vs ``window_array(DABALite, …)``) and per call; then the drivers at several windows. m = 1
   parity: FiBA's in-order path should stay within a constant factor (the target: ≥ 1/3 of DABA Lite).
4. **Native bulk vs loop wall time** (bulk evict m oldest + bulk insert m, window 2^16, d = 0 and d = 1024):
   alternately, median of paired speedups.

Work is counted, not timed, in 1-2 (``combine_count``, ``touched_count``: deterministic, identical in the
reference and the compiled implementation, :func:`check_counts_match_reference`). benchmarks/bench_fiba.py prints
the same measurements as text, through the functions of this module.
"""

from __future__ import annotations

import array
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.library import sum_f64, sum_i64

from .report import Check, Figure, Outcome, Ratio, Row
from .timing import Progress, alternate, fit, powers

__all__ = [
    "ID",
    "TITLE",
    "MU",
    "Sizes",
    "FULL",
    "QUICK",
    "TINY",
    "run",
    "build",
    "evict_work",
    "insert_work",
    "check_counts_match_reference",
    "Stream",
    "bulk_round_us",
]

ID = "003"
TITLE = "FiBA: bulk evict and bulk insert vs size and out-of-order distance; in-order FiBA vs DABA Lite (003 §7)"
MU = 4


@dataclass(frozen=True)
class Sizes:
    """Window sizes of the work measurements (``ns``; bulk insert at the largest), reps per steady-state point,
    bulk sizes of the insert experiment, throughput items/calls/rounds and windows, μ values, and the wall-time
    grid of section 4 (m values, rounds per run)."""

    ns: tuple[int, ...]
    reps: int
    insert_ms: tuple[int, ...]
    items: int
    calls: int
    repeat: int
    windows: tuple[int, ...]
    mus: tuple[int, ...]
    bulk_ms: tuple[int, ...]
    bulk_rounds: int
    bulk_window: int


FULL = Sizes(
    tuple(powers(12, 20, 1)), 8, (64, 1024), 1 << 20, 1 << 18, 9, tuple(powers(4, 16, 2)), (2, 4, 8),
    (1, 4, 16, 64, 256, 1024, 4096), 50, 1 << 16,
)  # fmt: skip
QUICK = Sizes(
    tuple(powers(12, 16, 2)), 4, (64,), 1 << 19, 1 << 17, 5, (1 << 4, 1 << 10, 1 << 14), (4,),
    (1, 16, 64, 1024), 20, 1 << 16,
)  # fmt: skip
TINY = Sizes((1 << 8, 1 << 10), 2, (16,), 1 << 12, 1 << 11, 2, (1 << 4, 1 << 8), (4,), (1, 16, 64), 3, 1 << 10)


def build(cls: Any, n: int, spacing: int = 1) -> Any:
    """A FiBA (μ = :data:`MU`, ``sum_i64``) holding times ``0, spacing, …, (n-1)·spacing``."""
    f = cls(sum_i64(), MU)
    f.bulk_insert([(t * spacing, 1) for t in range(n)])
    return f


def evict_work(cls: Any, n: int, m: int, reps: int) -> tuple[float, float]:
    """Average (⊗, node visits) of ``bulk_evict`` of the m oldest in a steady state of window n."""
    f = build(cls, n)
    nxt = n
    comb = touched = 0
    for _ in range(reps):
        c0, t0 = f.combine_count, f.touched_count
        assert f.bulk_evict(f.oldest() + m - 1) == m
        comb += f.combine_count - c0
        touched += f.touched_count - t0
        f.bulk_insert([(t, 1) for t in range(nxt, nxt + m)])
        nxt += m
    return comb / reps, touched / reps


def insert_work(cls: Any, n: int, m: int, d: int) -> tuple[int, int]:
    """(⊗, node visits) of one bulk_insert of m keys filling the gap with exactly d younger entries."""
    spacing = m + 1
    f = build(cls, n, spacing)
    lo = (n - d - 1) * spacing
    bulk = [(lo + 1 + j, 1) for j in range(m)]
    c0, t0 = f.combine_count, f.touched_count
    f.bulk_insert(bulk)
    return f.combine_count - c0, f.touched_count - t0


def check_counts_match_reference() -> None:
    """The counters are the reference's: one configuration of each measured operation, both implementations."""
    for op in ("evict", "insert"):
        results = []
        for mod in (ref, opt):
            if op == "evict":
                results.append(evict_work(mod.FiBA, 1 << 10, 37, 3))
            else:
                results.append(insert_work(mod.FiBA, 1 << 10, 64, 100))
        assert results[0] == results[1], (op, results)


class Stream:
    """float64 inputs and their times for the in-order throughput runs, made once outside the timed calls
    (copying 8 MB inside would time the allocator and fresh pages, not the algorithms)."""

    def __init__(self, items: int, calls: int, window: int) -> None:
        self.items, self.calls, self.window = items, calls, window
        n = items + window + calls
        self.values = array.array("d", [((i * 7919) % 1000) / 7.0 for i in range(n)])
        self.times = array.array("d", range(n))
        self.driver_values, self.driver_times = self.values[:items], self.times[:items]

    def daba_driver(self, w: int) -> Callable[[], float]:
        def run() -> float:
            t = time.perf_counter()
            opt.window_array(opt.DABALite, sum_f64(), self.driver_values, w)
            return self.items / (time.perf_counter() - t)

        return run

    def fiba_driver(self, mu: int, w: int) -> Callable[[], float]:
        def run() -> float:
            f = opt.FiBA(sum_f64(), mu)
            t = time.perf_counter()
            f.slide(self.driver_times, self.driver_values, w)
            return self.items / (time.perf_counter() - t)

        return run

    def daba_calls(self) -> float:
        a = opt.DABALite(sum_f64())
        a.insert_many(self.values[: self.window])
        ev, ins, q = a.evict, a.insert, a.query
        xs = self.values[self.window : self.window + self.calls]
        t = time.perf_counter()
        for v in xs:
            ev()
            ins(v)
            q()
        return self.calls / (time.perf_counter() - t)

    def fiba_calls(self, mu: int) -> Callable[[], float]:
        def run() -> float:
            f = opt.FiBA(sum_f64(), mu)
            f.bulk_insert(zip(range(self.window), self.values[: self.window]))
            ev, ins, q = f.evict, f.insert, f.query
            xs = self.values[self.window : self.window + self.calls]
            i = self.window
            t = time.perf_counter()
            for v in xs:
                ev()
                ins(i, v)
                q()
                i += 1
            return self.calls / (time.perf_counter() - t)

        return run


def bulk_round_us(cls: Any, n: int, m: int, d: int, rounds: int) -> float:
    """Microseconds per round of ``bulk_evict`` (m oldest) + ``bulk_insert`` (m keys, d entries younger than the
    smallest), window n, float64 sum, μ = :data:`MU`."""
    spacing = m + 1
    f = cls(sum_f64(), MU)
    f.bulk_insert([(t * spacing, 1.0) for t in range(n - d)] + [((10**9 + t) * spacing, 1.0) for t in range(d)])
    nxt = (n - d) * spacing
    bulks = [[(nxt + (r * m + j) * spacing, 1.0) for j in range(m)] for r in range(rounds)]
    t = time.perf_counter()
    for b in bulks:
        f.bulk_evict(f.oldest() + (m - 1) * spacing)
        f.bulk_insert(b)
    return (time.perf_counter() - t) / rounds * 1e6


def run(sizes: Sizes, progress: Progress) -> Outcome:
    outcome = Outcome(ID, TITLE)
    progress.step(ID, "counters: reference and optimized agree")
    check_counts_match_reference()
    _bulk_evict(sizes, progress, outcome)
    _bulk_insert(sizes, progress, outcome)
    _throughput(sizes, progress, outcome)
    _bulk_vs_loop(sizes, progress, outcome)
    return outcome


def _bulk_evict(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    fig = Figure(
        "003_bulk_evict",
        f"003 Thm 1: node visits of one bulk_evict of the m oldest, μ = {MU} (native —, loop --)",
        "m (entries evicted)",
        "node visits",
    )
    native: dict[tuple[int, int], tuple[float, float]] = {}
    for i, n in enumerate(sizes.ns):
        progress.step(ID, f"bulk evict work, n = 2^{n.bit_length() - 1} ({i + 1}/{len(sizes.ns)})")
        ms = powers(0, n.bit_length() - 3)
        for m in ms:
            native[n, m] = evict_work(opt.FiBA, n, m, sizes.reps)
            loop = evict_work(opt.FiBALoop, n, m, max(1, sizes.reps // 4)) if m <= 1 << 14 else (math.nan, math.nan)
            for who, (comb, visits) in (("FiBA", native[n, m]), ("FiBALoop", loop)):
                data = f"n=2^{n.bit_length() - 1}"
                outcome.rows.append(Row(fig.name, who, "sum_i64", data, "m", m, "node_visits", visits, comb))
                fig.series.setdefault(f"{who} {data}", ([], []))
                fig.series[f"{who} {data}"][0].append(m)
                fig.series[f"{who} {data}"][1].append(visits)
    n_big = sizes.ns[-1]
    ms = [m for (n, m) in native if n == n_big]
    slope, _, r2 = fit([math.log2(m) for m in ms], [native[n_big, m][1] for m in ms])
    outcome.checks.append(
        Check(
            f"native bulk evict: node visits grow with log m (n = 2^{n_big.bit_length() - 1})",
            f"{slope:.2f} visits per doubling of m (R² {r2:.3f})",
            None,
        )
    )
    m_flat = max(m for m in (1, 64) if all((n, m) in native for n in sizes.ns))
    flat, _, _ = fit([math.log2(n) for n in sizes.ns], [native[n, m_flat][1] for n in sizes.ns])
    outcome.checks.append(
        Check(f"native bulk evict is flat in n (m = {m_flat})", f"slope {flat:+.2f} visits per doubling of n", None)
    )
    outcome.figures.append(fig)


def _bulk_insert(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    n = sizes.ns[-1]
    fig = Figure(
        "003_bulk_insert",
        f"003 Thm 3: node visits of one bulk_insert of m keys at distance d, n = 2^{n.bit_length() - 1}, μ = {MU}",
        "out-of-order distance d",
        "node visits",
    )
    for m in sizes.insert_ms:
        progress.step(ID, f"bulk insert work, m = {m}, n = 2^{n.bit_length() - 1}")
        ds = [d for d in powers(0, n.bit_length() - 3) if d + 1 < n]
        slopes = {}
        for who, cls in (("FiBA", opt.FiBA), ("FiBALoop", opt.FiBALoop)):
            visits = []
            for d in ds:
                comb, v = insert_work(cls, n, m, d)
                visits.append(float(v))
                outcome.rows.append(Row(fig.name, who, "sum_i64", f"m={m}", "d", d, "node_visits", v, comb))
            fig.series[f"{who} m={m}"] = ([float(d) for d in ds], visits)
            slopes[who] = fit([math.log2(d) for d in ds], visits)[0]
        outcome.checks.append(
            Check(
                f"bulk insert of m = {m}: one finger search (native) vs m (loop)",
                f"node visits per doubling of d: native {slopes['FiBA']:.1f}, loop {slopes['FiBALoop']:.1f}",
                slopes["FiBA"] < slopes["FiBALoop"],
            )
        )
    outcome.figures.append(fig)


def _throughput(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    window = 1 << 14
    stream = Stream(sizes.items, sizes.calls, window)
    for mu in sizes.mus:
        progress.step(ID, f"in-order throughput, window 2^14, FiBA μ = {mu} vs DABA Lite")
        drv = alternate(
            {"DABALite": stream.daba_driver(window), "FiBA": stream.fiba_driver(mu, window)}, "DABALite", sizes.repeat
        )
        calls = alternate({"DABALite": stream.daba_calls, "FiBA": stream.fiba_calls(mu)}, "DABALite", sizes.repeat)
        for path, r in (("array driver", drv), ("per call", calls)):
            outcome.ratios.append(
                Ratio(
                    f"in-order sum_f64, window 2^14, {path}", f"FiBA μ={mu}", "DABALite", r["FiBA"].ratio, sizes.repeat
                )
            )
            for who in ("DABALite", "FiBA"):
                outcome.rows.append(
                    Row(
                        "003_inorder",
                        f"{who} μ={mu}" if who == "FiBA" else who,
                        "sum_f64",
                        path,
                        "window",
                        window,
                        "items_per_s",
                        r[who].best,
                    )
                )
            outcome.checks.append(
                Check(
                    f"FiBA (μ = {mu}) ≥ 1/3 of DABA Lite in order ({path}, window 2^14)",
                    f"{r['FiBA'].ratio:.2f}",
                    r["FiBA"].ratio >= 1 / 3,
                )
            )
    fig = Figure(
        "003_inorder",
        f"003: in-order array drivers, FiBA.slide (μ = {MU}) / window_array(DABALite)",
        "window size",
        "ratio to DABA Lite",
        logy=False,
    )
    ratios = []
    for w in sizes.windows:
        progress.step(ID, f"in-order drivers, window 2^{w.bit_length() - 1}")
        r = alternate({"DABALite": stream.daba_driver(w), "FiBA": stream.fiba_driver(MU, w)}, "DABALite", sizes.repeat)
        ratios.append(r["FiBA"].ratio)
        outcome.rows.append(
            Row(fig.name, f"FiBA μ={MU}", "sum_f64", "array driver", "window", w, "ratio", r["FiBA"].ratio)
        )
    fig.series[f"FiBA μ={MU} / DABA Lite"] = ([float(w) for w in sizes.windows], ratios)
    outcome.figures.append(fig)


LOOP_AND_NATIVE = (("FiBALoop", opt.FiBALoop), ("FiBA", opt.FiBA))


def _bulk_rate(cls: Any, n: int, m: int, d: int, rounds: int) -> Callable[[], float]:
    return lambda: 1 / bulk_round_us(cls, n, m, d, rounds)


def _bulk_vs_loop(sizes: Sizes, progress: Progress, outcome: Outcome) -> None:
    n = sizes.bulk_window
    fig = Figure(
        "003_bulk_vs_loop",
        f"003: wall time of bulk_evict(m) + bulk_insert(m), window 2^{n.bit_length() - 1}: loop / native",
        "m",
        "speedup of the native bulk operations",
    )
    for d in (0, min(1024, n // 4)):
        speedups = []
        for m in sizes.bulk_ms:
            progress.step(ID, f"native bulk vs loop, wall time, m = {m}, d = {d}")
            contenders = {who: _bulk_rate(cls, n, m, d, sizes.bulk_rounds) for who, cls in LOOP_AND_NATIVE}
            r = alternate(contenders, "FiBALoop", sizes.repeat)
            speedups.append(r["FiBA"].ratio)
            outcome.rows.append(Row(fig.name, "FiBA", "sum_f64", f"d={d}", "m", m, "speedup_vs_loop", r["FiBA"].ratio))
            if m >= 64:
                outcome.ratios.append(
                    Ratio(f"bulk evict+insert, m = {m}, d = {d}", "FiBA", "FiBALoop", r["FiBA"].ratio, sizes.repeat)
                )
        fig.series[f"d = {d}"] = ([float(m) for m in sizes.bulk_ms], speedups)
    worst = min((r.ratio for r in outcome.ratios if r.baseline == "FiBALoop"), default=math.nan)
    outcome.checks.append(
        Check("native bulk beats fiba_loop from m = 64 up (wall time)", f"worst speedup {worst:.2f}×", worst > 1)
    )
    outcome.figures.append(fig)
