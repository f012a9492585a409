"""Throughput of the in-order SWAGs: swagkit.optimized vs swagkit.reference (a script, not a pytest test).

Paper 000 §7.1's static-window experiment: window 2**14, every item does one evict (once full), one insert and
one query; float64 sum (``sum_f64``). Prints, from one run:

* array driver (``window_array``) items/s for each algorithm, optimized and reference, and their ratio;
* per-call API from a Python loop (``evict(); insert(v); query()``) rounds/s, optimized and reference;
* bytes per window element of the compiled storage at n = 2**20 (``_memory_bytes()``; the chunks are malloc'd,
  so tracemalloc cannot see them), with the process RSS growth as a cross-check.

Each figure is the best (and median) of ``--repeat`` runs; the machine may be shared and noisy.

    python benchmarks/bench_inorder.py [--items N] [--calls N] [--repeat R]
"""

from __future__ import annotations

import argparse
import array
import gc
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.library import sum_f64
from swagkit.verify.bench.timing import driver_rate

WINDOW = 1 << 14
ALGOS = ["DABALite", "TwoStacksLite", "DABA", "TwoStacks"]
TARGETS = {
    "driver DABALite": 70e6,
    "calls DABALite": 3e6,
}


def best_and_median(fn: Callable[[], float], repeat: int) -> tuple[float, float]:
    rates = []
    for _ in range(repeat):
        gc.collect()
        rates.append(fn())
    return max(rates), statistics.median(rates)


def calls_rate(cls: Any, values: array.array[float], n_calls: int) -> float:
    """Rounds of evict+insert+query per second from a Python loop, on a full window."""
    agg = cls(sum_f64())
    agg.insert_many(values[:WINDOW])
    evict, insert, query = agg.evict, agg.insert, agg.query
    xs = values[WINDOW : WINDOW + n_calls]
    t = time.perf_counter()
    for v in xs:
        evict()
        insert(v)
        query()
    dt = time.perf_counter() - t
    return len(xs) / dt


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def fmt(rate: float) -> str:
    return f"{rate / 1e6:8.2f} M/s"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1 << 21, help="items per optimized driver run")
    ap.add_argument("--ref-items", type=int, default=1 << 17, help="items per reference driver run")
    ap.add_argument("--calls", type=int, default=1 << 19, help="rounds per per-call run")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)

    print(f"python {sys.version.split()[0]}, swagkit.optimized COMPILED={opt.COMPILED}, window={WINDOW}, sum_f64")
    if not opt.COMPILED:
        print("warning: the compiled extensions are not in use; figures are for the pure-Python fallback")
    rng = random.Random(1)
    values = array.array("d", (rng.uniform(-1.0, 1.0) for _ in range(max(args.items, WINDOW + args.calls))))
    drv_values = values[: args.items]
    ref_values = values[: args.ref_items].tolist()
    results: dict[str, float] = {}

    print("\n== array driver: window_array(cls, sum_f64, values, 2**14), items/s (best / median) ==")
    print(f"{'algorithm':<15}{'optimized best':>18}{'median':>14}{'reference best':>18}{'ratio':>9}")
    for name in ALGOS:
        ob, om = best_and_median(
            lambda: driver_rate(opt.window_array, getattr(opt, name), sum_f64(), drv_values, WINDOW), args.repeat
        )
        rb, _ = best_and_median(
            lambda: driver_rate(ref.window_array, getattr(ref, name), sum_f64(), ref_values, WINDOW), 2
        )
        results[f"driver {name}"] = ob
        print(f"{name:<15}{fmt(ob):>18}{fmt(om):>14}{fmt(rb):>18}{ob / rb:>8.0f}x")

    print("\n== per-call API: evict(); insert(v); query() from a Python loop, rounds/s (best / median) ==")
    print(f"{'algorithm':<15}{'optimized best':>18}{'median':>14}{'reference best':>18}{'ratio':>9}")
    for name in ALGOS:
        ob, om = best_and_median(lambda: calls_rate(getattr(opt, name), values, args.calls), args.repeat)
        rb, _ = best_and_median(lambda: calls_rate(getattr(ref, name), values, args.calls // 8), 3)
        results[f"calls {name}"] = ob
        print(f"{name:<15}{fmt(ob):>18}{fmt(om):>14}{fmt(rb):>18}{ob / rb:>8.1f}x")

    print("\n== memory: bytes per window element at n = 2**20 (typed sum_f64) ==")
    n = 1 << 20
    fill = array.array("d", [1.0]) * n
    for name in ALGOS:
        gc.collect()
        before = rss_bytes()
        agg = getattr(opt, name)(sum_f64())
        agg.insert_many(fill)
        agg.evict_many(n // 2)  # a sliding window: also exercises the spare chunk and the front
        agg.insert_many(fill[: n // 2])
        grown = rss_bytes() - before
        mem = agg._memory_bytes()
        if mem is None:
            print(f"{name:<15} not measurable (pure-Python fallback)")
        else:
            results[f"bytes {name}"] = mem / len(agg)
            print(
                f"{name:<15}{mem / len(agg):8.2f} bytes/element  (malloc'd {mem} B; process RSS grew "
                f"{grown / len(agg):.2f} B/element -- rough: freed memory is reused)"
            )
        del agg

    print("\n== targets ==")
    dl, tsl = results["driver DABALite"], results["driver TwoStacksLite"]
    print(f"DABA Lite driver >= 70 M items/s:             {fmt(dl)}  {'OK' if dl >= 70e6 else 'MISSED'}")
    print(
        f"Two-Stacks Lite driver >= DABA Lite driver:   {fmt(tsl)}  ({tsl / dl:.2f}x) {'OK' if tsl >= dl else 'MISSED'}"
    )
    pc = results["calls DABALite"]
    print(f"DABA Lite per-call >= 3 M rounds/s:           {fmt(pc)}  {'OK' if pc >= 3e6 else 'MISSED'}")
    if "bytes DABALite" in results:
        b = results["bytes DABALite"]
        print(f"DABA Lite <= 24 bytes/element at n=2**20:     {b:8.2f} B  {'OK' if b <= 24 else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
