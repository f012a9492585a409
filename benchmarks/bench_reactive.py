"""Throughput and ⊕ counts of the Reactive Aggregator (paper 002 §6): swagkit.optimized vs swagkit.reference,
a script, not a pytest test.

Static window (m = 1 in the paper's sense: one evict + one insert + one query per item), float64 max
(``max_f64``) and string concatenation (generic path), for window sizes 2**k. Prints items/s of
``window_array`` for the compiled and the reference class, and ⊕ calls per item (machine-independent: expected
≈ 2·log2(capacity) + the inverted query's ≤ 2·log2(capacity) + 1; notes §5.4).

    python benchmarks/bench_reactive.py [--items N]
"""

from __future__ import annotations

import argparse
import array
import math
import random
import time

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.library import max_f64, string_concat


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=200_000)
    args = p.parse_args()
    rng = random.Random(1)
    values = array.array("d", (rng.random() for _ in range(args.items)))
    print(f"compiled: {opt.COMPILED}")
    print(f"{'window':>8} {'opt items/s':>14} {'ref items/s':>12} {'ratio':>7} {'⊕/item':>8} {'bound':>6}")
    for k in (4, 8, 12, 16):
        w = 1 << k
        t0 = time.perf_counter()
        opt.window_array(opt.ReactiveAggregator, max_f64(), values, w)
        t_opt = time.perf_counter() - t0
        n_ref = min(args.items, max(20_000, 4 * w))  # the reference is slow: a prefix, reaching steady state
        t0 = time.perf_counter()
        ref.window_array(ref.ReactiveAggregator, max_f64(), values[:n_ref], w)
        t_ref = (time.perf_counter() - t0) * args.items / n_ref
        agg = opt.ReactiveAggregator(max_f64())
        for v in values[: 4 * w]:
            if len(agg) == w:
                agg.evict()
            agg.insert(v)
            agg.query()
        c0 = agg.combine_count
        steps = min(4 * w, 20_000)
        for v in values[:steps]:
            agg.evict()
            agg.insert(v)
            agg.query()
        per_item = (agg.combine_count - c0) / steps
        bound = 4 * math.log2(agg.capacity) + 1
        print(
            f"{w:>8} {args.items / t_opt:>14.0f} {args.items / t_ref:>12.0f} {t_ref / t_opt:>7.1f} "
            f"{per_item:>8.2f} {bound:>6.0f}"
        )
    chars = [chr(97 + i % 26) for i in range(20_000)]
    for impl, cls in (("optimized", opt.ReactiveAggregator), ("reference", ref.ReactiveAggregator)):
        t0 = time.perf_counter()
        opt.window_array(cls, string_concat(), chars, 64)
        print(f"string_concat window 64, {impl}: {len(chars) / (time.perf_counter() - t0):.0f} items/s")


if __name__ == "__main__":
    main()
