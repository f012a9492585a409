"""Single-query throughput versus window size, every FIFO algorithm against DABA Lite (a script, not a test).

001 Exp. 1 (Figs. 10–11): one query over the whole window after every item (evict when full, insert, query),
random data, window sizes 2^0 … 2^16, Sum (``sum_f64``) and Max (``max_f64``), through the compiled
``window_array`` driver of :mod:`swagkit.optimized`. For each window size the algorithms run interleaved, best of
``--repeat`` runs, and each is printed as its ratio to optimized DABA Lite with the same monoid, measured in the
same run (this machine is shared and noisy: only ratios from one run mean anything). SlickDeque Inv runs only for
Sum and SlickDeque Non-Inv only for Max (their monoid requirements); FlatFAT is not a FIFO SWAG (the Reactive
Aggregator is its FIFO use).

    python benchmarks/bench_single_query.py [--items N] [--repeat R] [--max-log2 K]
"""

from __future__ import annotations

import argparse
import array
import gc
import random
import statistics
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, sum_f64
from swagkit.verify.bench.timing import driver_rate

ALGORITHMS = {
    "DABALite": ("sum", "max"),
    "TwoStacksLite": ("sum", "max"),
    "DABA": ("sum", "max"),
    "TwoStacks": ("sum", "max"),
    "SlickDequeInv": ("sum",),
    "SlickDequeNonInv": ("max",),
    "FlatFIT": ("sum", "max"),
    "ReactiveAggregator": ("sum", "max"),
}
MONOIDS = {"sum": sum_f64, "max": max_f64}


def rate(cls: Any, monoid: Any, values: Any, window: int) -> float:
    gc.collect()
    return driver_rate(opt.window_array, cls, monoid, values, window)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-log2", type=int, default=16)
    args = ap.parse_args()
    rng = random.Random(1)
    values = array.array("d", (rng.random() for _ in range(args.items)))
    print(
        f"swagkit.optimized COMPILED={opt.COMPILED}; {args.items} items of uniform random data; "
        f"ratios to optimized DABA Lite with the same monoid, measured in the same run (best of {args.repeat})"
    )
    for mname in ("sum", "max"):
        algos = [a for a, ms in ALGORITHMS.items() if mname in ms]
        print(f"\n== {MONOIDS[mname]().name}: items/s of DABA Lite, then each algorithm / DABA Lite ==")
        print(f"{'window':>8} {'DABALite':>11} " + " ".join(f"{a[:16]:>16}" for a in algos[1:]))
        ratios: dict[str, list[float]] = {a: [] for a in algos[1:]}
        for k in range(0, args.max_log2 + 1, 2):
            w = 1 << k
            best = {a: 0.0 for a in algos}
            for _ in range(args.repeat):  # interleaved: load drift on a shared machine hits all alike
                for a in algos:
                    best[a] = max(best[a], rate(getattr(opt, a), MONOIDS[mname](), values, w))
            base = best["DABALite"]
            for a in algos[1:]:
                ratios[a].append(best[a] / base)
            print(f"{w:>8} {base / 1e6:>9.1f} M " + " ".join(f"{best[a] / base:>16.2f}" for a in algos[1:]))
        print(f"{'median':>8} {'':>11} " + " ".join(f"{statistics.median(ratios[a]):>16.2f}" for a in algos[1:]))


if __name__ == "__main__":
    main()
