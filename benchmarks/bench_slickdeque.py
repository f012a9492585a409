"""Throughput of SlickDeque (paper 001) against optimized DABA Lite, measured in the same run (a script, not a test).

1. **Single query** (001 Exp. 1, Figs. 10–11): ``window_array`` (evict when full, insert, query) over random
   data for window sizes 2^0 … 2^16; Non-Inv with ``max_f64`` and Inv with ``sum_f64`` (plain mode), each
   printed as items/s and as the ratio against ``DABALite`` with the same monoid.
2. **Multi-query** (001 Exp. 2, Figs. 12–13, "max-multi"): ranges 1..n, all answered after every partial
   (``step``), for n = 1 … 256; Non-Inv ``max_f64`` on uniform data (small deque, ≈ H_n nodes) and on decreasing
   data (full deque, n nodes), Inv ``sum_f64``. Baseline: n DABA Lite instances, one per range (DABA Lite has no
   multi-query support), fed the same stream. Printed: steps/s, ratio against the baseline, ⊗ per step, and the
   mean deque size. FlatFIT answers the same ranges with ``query_range`` (longest first; ⊗ per step ≤ n − 1).
   Emitting n answers per step is Θ(n) whatever the algorithm (notes §4 flag), so the comparison that isolates
   the deque is ⊗ per step (Non-Inv: < 2 regardless of n) and uniform vs decreasing.
3. **Multi-query, all answers as runs** (``query_runs()``: one (range, answer) pair per deque node, which
   answers every range 1..n): Non-Inv ``max_f64`` steps/s for n = 1 … 4096 registered ranges on uniform data
   (deque ≈ H_n nodes) and decreasing data (deque = n nodes), with the nanoseconds per step divided by
   (deque size + 1). The claim checked: the cost per step follows the deque, not the number of queries --
   flat-ish in n for uniform data, linear in n for decreasing data, and about the same per node in both.

    python benchmarks/bench_slickdeque.py [--items N] [--multi-items N] [--repeat R]
"""

from __future__ import annotations

import argparse
import array
import gc
import random
import statistics

import swagkit.optimized as opt
from swagkit.spec.library import max_f64, sum_f64
from swagkit.verify.bench.exp001 import multi_rate_daba, multi_rate_flatfit, multi_rate_slick, runs_rate
from swagkit.verify.bench.timing import driver_rate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--multi-items", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = random.Random(1)
    values = [rng.random() for _ in range(args.items)]
    buf = array.array("d", values)  # the C fast path of window_array for both algorithms
    print(f"swagkit.optimized COMPILED={opt.COMPILED}; classes {opt.SlickDequeNonInv.__module__}")
    print(
        "\n== single query: window_array items/s (best of",
        args.repeat,
        "interleaved), ratio vs DABALite, random data ==",
    )
    ratios: list[float] = []
    print(
        f"{'window':>8} {'NonInv max':>12} {'DABALite max':>13} {'ratio':>6} "
        f"{'Inv sum':>12} {'DABALite sum':>13} {'ratio':>6}"
    )
    for k in range(0, 17, 2):
        w = 1 << k
        runs = {
            "nm": (opt.SlickDequeNonInv, max_f64()),
            "dm": (opt.DABALite, max_f64()),
            "ns": (opt.SlickDequeInv, sum_f64()),
            "ds": (opt.DABALite, sum_f64()),
        }
        rates: dict[str, list[float]] = {key: [] for key in runs}
        for _ in range(args.repeat):  # interleaved, so load drift on a shared machine hits all four alike
            for key, (cls, mon) in runs.items():
                gc.collect()
                rates[key].append(driver_rate(opt.window_array, cls, mon, buf, w))
        nm, dm, ns, ds = (max(rates[key]) for key in ("nm", "dm", "ns", "ds"))
        print(
            f"{w:>8} {nm / 1e6:>10.1f} M {dm / 1e6:>11.1f} M {nm / dm:>6.2f} "
            f"{ns / 1e6:>10.1f} M {ds / 1e6:>11.1f} M {ns / ds:>6.2f}"
        )
        ratios.append(nm / dm)
    print(
        f"NonInv max / DABALite max: median ratio {statistics.median(ratios):.2f}, "
        f"min {min(ratios):.2f}, max {max(ratios):.2f}"
    )

    mvals = values[: args.multi_items]
    dec = [-float(i) for i in range(args.multi_items)]
    print("\n== multi-query: ranges 1..n all answered every step (step()), steps/s; baseline n × DABALite ==")
    print(
        f"{'n':>5} {'NonInv uni':>11} {'⊗/step':>7} {'deque':>6} {'NonInv dec':>11} {'deque':>6} "
        f"{'Inv sum':>10} {'⊗/step':>7} {'FlatFIT max':>12} {'⊗/step':>7} {'n×DABALite':>11} {'NonInv/DL':>9} "
        f"{'Inv/DL':>7} {'FIT/DL':>7}"
    )
    for n in (1, 4, 16, 64, 256):
        nu, cu, su = multi_rate_slick(opt.SlickDequeNonInv, max_f64(), mvals, n)
        nd, _, sd = multi_rate_slick(opt.SlickDequeNonInv, max_f64(), dec, n)
        iv, ci, _ = multi_rate_slick(opt.SlickDequeInv, sum_f64(), mvals, n)
        ff, cf = multi_rate_flatfit(max_f64(), mvals, n)
        dl = multi_rate_daba(max_f64(), mvals[: max(2000, args.multi_items // max(1, n // 4))], n)
        print(
            f"{n:>5} {nu:>11.0f} {cu:>7.2f} {su:>6.1f} {nd:>11.0f} {sd:>6.1f} {iv:>10.0f} {ci:>7.1f} {ff:>12.0f} "
            f"{cf:>7.1f} {dl:>11.0f} {nu / dl:>9.1f} {iv / dl:>7.1f} {ff / dl:>7.1f}"
        )

    print("\n== multi-query, all answers as runs: insert + query_runs() per step, ranges 1..n (Non-Inv max_f64) ==")
    print(
        f"{'n':>6} {'uniform steps/s':>16} {'deque':>7} {'ns/(deque+1)':>13} {'decreasing steps/s':>19} "
        f"{'deque':>7} {'ns/(deque+1)':>13}"
    )
    for n in (1, 16, 256, 4096):
        dec_n = [-float(i) for i in range(max(args.multi_items // max(1, n // 256), 4 * n))]
        ru, du = runs_rate(max_f64(), mvals, n)
        rd, dd = runs_rate(max_f64(), dec_n, n)
        print(
            f"{n:>6} {ru:>16.0f} {du:>7.1f} {1e9 / ru / (du + 1):>13.1f} {rd:>19.0f} {dd:>7.1f} "
            f"{1e9 / rd / (dd + 1):>13.1f}"
        )


if __name__ == "__main__":
    main()
