"""Largest observed error divided by its bound, and space against the space bounds, for paper 004's structures
(a measurement script, not a pytest test; issue 5's closing figures).

For ε in {0.1, 0.05, 0.01}, 20-bit time and value universes, and paper-like (flow, looping) and adversarial
(permutation, bursts, two_heavy) streams, it feeds the compiled structures and compares with exact answers:

* q-digest (whole stream): max over every rank breakpoint of ``(r(q) - r̂(q)) / (ε·N)``; ranges vs ``4b/ε + 1``;
* window count: max over windows (every cutoff boundary and a log-spaced sample) of ``|D̂_w - D_w| / (ε·D_w)``;
  stored entries vs ``α·(J + 1)`` (α per level and the buffer);
* window quantiles: max over sampled windows × every value breakpoint of ``(r(w,x) - r̂(w,x)) / (ε·D_w)``, the
  quantile test's deviation ``/ (ε·D_w)`` over a φ grid, and the decayed-rank error ``/ (ε·D)`` for polynomial
  (exponent 1) and exponential decay; entries vs ``α·(J+1) + α·J·(8b/ε + 1)``;
* value division (polynomial decay, exponent 2, θ = β = ε/2): ``|R̂(x) - R(x)| / ((θ + β + θβ)·D)`` at every
  breakpoint; summaries vs ``2⌈ln(1/g(A))/ln(1+θ)⌉ + 1``, entries vs summaries × ``(4b/β + 1)``.

A ratio <= 1 means the bound held (the checkers in the test suite enforce it); "N" is the input size.

    python benchmarks/measure_decay_bounds.py [--items N] [--streams flow,looping,...]
"""

from __future__ import annotations

import argparse
import time

import swagkit.optimized as opt
from swagkit.verify.bench.exp004 import measure


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--items", type=int, default=100_000)
    p.add_argument("--streams", default="flow,looping,permutation,bursts,two_heavy")
    args = p.parse_args()
    print(f"compiled: {opt.COMPILED}; N = {args.items:,} per stream; 20-bit time and value universes")
    print(f"{'eps':>5} {'stream':<12} {'structure':<17} {'max error / bound':<44} space used / bound")
    t0 = time.perf_counter()
    for eps in (0.1, 0.05, 0.01):
        for kind in args.streams.split(","):
            for m in measure(kind, args.items, eps):
                print(f"{eps:>5} {kind:<12} {m.structure:<17} {m.error_text:<44} {m.space_text}", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
