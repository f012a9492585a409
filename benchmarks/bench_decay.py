"""Update throughput of paper 004's structures: swagkit.optimized vs swagkit.reference, measured in one run (a
script, not a pytest test).

Targets of issue 5: the optimized q-digest >= 1,000,000 updates/s, the optimized sliding-window quantile
structure >= 100,000 updates/s (the paper's C code reached about 100,000 on 2008 hardware). Every update is one
Python call (``insert``; the window structures also ``advance`` their clock when the stream's time moves), on
20-bit time and value universes, the flow-like stream of :mod:`swagkit.spec.decay.streams` (moderate disorder)
and the looping one (severe disorder). The reference runs on a prefix of the stream and is extrapolated.

    python benchmarks/bench_decay.py [--items N] [--eps E]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import swagkit.optimized as opt
import swagkit.reference as ref
from swagkit.spec.decay import PolynomialDecay
from swagkit.spec.decay.streams import generate
from swagkit.verify.bench.exp004 import feed


def rate(run: Callable[[], None], n: int, repeat: int = 3) -> float:
    """Best of ``repeat`` runs, in updates per second."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return n / best


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=300_000)
    p.add_argument("--eps", type=float, default=0.1)
    args = p.parse_args()
    n, eps = args.items, args.eps
    print(f"compiled: {opt.COMPILED}; {n:,} updates; eps {eps}; 20-bit time and value universes")
    rng = random.Random(1)
    values = [rng.randrange(1 << 20) for _ in range(n)]
    n_ref = max(20_000, n // 15)  # several compress periods (α = 3,341 for the quantile ladder at ε = 0.1)

    def qd_loop(cls: Any, vs: list[int]) -> Callable[[], None]:
        def run() -> None:
            d = cls(20, eps)
            ins = d.insert
            for v in vs:
                ins(v)

        return run

    def qd_bulk(cls: Any, vs: list[int]) -> Callable[[], None]:
        return lambda: cls(20, eps).insert_many(vs)

    rows: list[tuple[str, float, float, float | None]] = []
    o = rate(qd_loop(opt.QDigest, values), n)
    r = rate(qd_loop(ref.QDigest, values[:n_ref]), n_ref, repeat=1)
    rows.append(("q-digest insert(x)", o, r, 1e6))
    o = rate(qd_bulk(opt.QDigest, values), n)
    r = rate(qd_bulk(ref.QDigest, values[:n_ref]), n_ref, repeat=1)
    rows.append(("q-digest insert_many", o, r, 1e6))
    for kind in ("flow", "looping"):
        arrivals = generate(kind, n, time_bits=20, value_bits=20, seed=2)
        o = rate(feed(lambda: opt.SlidingWindowCount(20, eps), arrivals, values=False), n, repeat=2)
        r = rate(feed(lambda: ref.SlidingWindowCount(20, eps), arrivals[:n_ref], values=False), n_ref, repeat=1)
        rows.append((f"window count ({kind})", o, r, None))
        o = rate(feed(lambda: opt.SlidingWindowQuantiles(20, 20, eps), arrivals), n, repeat=2)
        r = rate(feed(lambda: ref.SlidingWindowQuantiles(20, 20, eps), arrivals[:n_ref]), n_ref, repeat=1)
        rows.append((f"window quantiles ({kind})", o, r, 1e5))
        vd_args = (20, 20, PolynomialDecay(2.0), eps / 2, eps / 2)
        o = rate(feed(lambda: opt.ValueDivision(*vd_args), arrivals), n, repeat=2)
        r = rate(feed(lambda: ref.ValueDivision(*vd_args), arrivals[:n_ref]), n_ref, repeat=1)
        rows.append((f"value division, poly 2 ({kind})", o, r, None))
    print(f"{'structure':<34} {'optimized/s':>13} {'reference/s':>12} {'ratio':>7}  target")
    for name, o, r, target in rows:
        verdict = "" if target is None else f">= {target:,.0f}: {'met' if o >= target else 'MISSED'}"
        print(f"{name:<34} {o:>13,.0f} {r:>12,.0f} {o / r:>7.1f}  {verdict}")


if __name__ == "__main__":
    main()
