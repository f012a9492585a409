"""Throughput of FlatFIT against DABA Lite, both from swagkit.optimized, in one run (a script, not a test).

Paper 000 §7.1's static-window experiment (every item: one evict once full, one insert, one query) with the
array driver ``window_array``, for float64 sum (typed fast path, no Python call per ⊗) and for string
concatenation with a short-string window (generic path: every ⊗ is a Python call), plus the ⊗ counts per item
(FlatFIT ≈ 2 per slide in this single-query pattern, 001 §4; DABA Lite 3). Best and median of ``--repeat``.

    python benchmarks/bench_flatfit.py [--items N] [--window W] [--repeat R]
"""

from __future__ import annotations

import argparse
import array
import gc
import random
import statistics
import time
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.library import string_concat, sum_f64

ALGOS = ["FlatFIT", "DABALite"]


def rate(cls: Any, monoid: Any, values: Any, window: int, repeat: int) -> tuple[float, float]:
    rates = []
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        opt.window_array(cls, monoid, values, window)
        rates.append(len(values) / (time.perf_counter() - t))
    return max(rates), statistics.median(rates)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=2_000_000)
    ap.add_argument("--window", type=int, default=1 << 14)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(0)
    floats = array.array("d", (rng.uniform(-1, 1) for _ in range(args.items)))
    strings = [rng.choice("abcdef") for _ in range(args.items // 20)]
    print(f"compiled: {opt.COMPILED}; window {args.window}; {args.items} float items, {len(strings)} string items")
    for name in ALGOS:
        cls = getattr(opt, name)
        best, med = rate(cls, sum_f64(), floats, args.window, args.repeat)
        print(f"sum_f64        {name:9s} {best / 1e6:8.2f} M items/s (median {med / 1e6:.2f})")
    for name in ALGOS:
        cls = getattr(opt, name)
        best, med = rate(cls, string_concat(), strings, 16, args.repeat)
        print(f"string_concat  {name:9s} {best / 1e6:8.2f} M items/s (median {med / 1e6:.2f}), window 16")
    for name in ALGOS:
        a = getattr(opt, name)(sum_f64())
        n_items = 100_000
        for _i in range(n_items):
            if len(a) == args.window:
                a.evict()
            a.insert(1.0)
            a.query()
        print(f"⊗ per item     {name:9s} {a.combine_count / n_items:.3f}")


if __name__ == "__main__":
    main()
