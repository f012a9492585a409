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
import bisect
import itertools
import math
import time
from collections.abc import Sequence
from typing import Any

import swagkit.optimized as opt
from swagkit.spec.checkers.value_division import estimate_value_division
from swagkit.spec.checkers.window_quantiles import estimate_decayed, estimate_window, rank_from
from swagkit.spec.decay import Decay, ExponentialDecay, PolynomialDecay
from swagkit.spec.decay.bounds import qdigest_size_bound, value_division_error, value_division_summary_bound
from swagkit.spec.decay.streams import Arrival, generate

BITS = 20


class Truth:
    """Exact answers over (value, timestamp, weight) triples, by sorting (fast enough for 10^5 - 10^6 items)."""

    def __init__(self, arrivals: Sequence[Arrival]) -> None:
        self.now = arrivals[-1].now
        self.items = sorted((a.timestamp, a.value, a.weight) for a in arrivals)
        self.ts = [t for t, _, _ in self.items]

    def window(self, w: int) -> tuple[list[int], list[float]]:
        """Sorted distinct values of the window and prefix weights."""
        cut = self.now - w
        start = bisect.bisect_right(self.ts, cut)
        return self._profile((v, wt) for _, v, wt in self.items[start:])

    def decayed(self, g: Decay) -> tuple[list[int], list[float]]:
        return self._profile((v, wt * g(self.now - t)) for t, v, wt in self.items)

    @staticmethod
    def _profile(pairs: Any) -> tuple[list[int], list[float]]:
        acc: dict[int, float] = {}
        for v, wt in pairs:
            acc[v] = acc.get(v, 0) + wt
        vals = sorted(acc)
        return vals, list(itertools.accumulate((acc[v] for v in vals), initial=0))


def rank_lt(vals: list[int], prefix: list[float], x: int) -> float:
    return prefix[bisect.bisect_left(vals, x)]


def worst_rank_error(
    vals: list[int], prefix: list[float], ranges: list[tuple[int, Any]], scale: float, *, two_sided: bool = False
) -> float:
    his, est_prefix = rank_from(ranges)
    pts = sorted({0, 1 << BITS} | {v + 1 for v in vals} | {h + 1 for h in his})
    worst = 0.0
    for x in pts:
        est = est_prefix[bisect.bisect_left(his, x)]
        err = rank_lt(vals, prefix, x) - est
        worst = max(worst, abs(err) if two_sided else err)
    return worst / scale if scale > 0 else 0.0


def quantile_deviation(
    vals: list[int], prefix: list[float], total: float, ranges: list[tuple[int, Any]], scale: float
) -> float:
    """Largest violation margin of the two-sided quantile test over a φ grid, divided by ``scale``."""
    from swagkit.spec.checkers.window_quantiles import quantile_from

    d = prefix[-1]
    worst = 0.0
    for phi in [i / 20 for i in range(21)]:
        q = quantile_from(total, list(ranges), phi)
        if q is None:
            continue
        lt = rank_lt(vals, prefix, q)
        le = prefix[bisect.bisect_right(vals, q)]
        worst = max(worst, (lt - phi * d) / scale, (phi * d - le) / scale)
    return max(worst, 0.0)


def sample_windows(now: int, cutoffs: Sequence[int], k: int = 10) -> list[int]:
    ws = {1, now + 1}
    for tau in cutoffs:
        if tau >= 0:
            ws.update((now - tau, now - tau + 1))
    ws.update(int(round(math.exp(math.log(now + 1) * i / k))) for i in range(1, k + 1))
    return sorted(w for w in ws if w >= 1)


def measure(kind: str, n: int, eps: float) -> list[tuple[str, str, str]]:
    arrivals = generate(kind, n, time_bits=BITS, value_bits=BITS, seed=7)
    truth = Truth(arrivals)
    out: list[tuple[str, str, str]] = []
    # q-digest over the whole stream
    d = opt.QDigest(BITS, eps)
    d.insert_many([a.value for a in arrivals])
    d.compress()
    vals, prefix = truth.window(truth.now + 1)
    ranges = [(hi, c) for _, hi, c in d.ranges()]
    out.append(
        (
            "qdigest",
            f"{worst_rank_error(vals, prefix, ranges, eps * n):.3f}",
            f"{d.node_count():,} / {qdigest_size_bound(BITS, eps):,} ({d.node_count() / n:.3f}·N)",
        )
    )

    def replay(s: Any, values: bool = True) -> Any:
        for a in arrivals:
            if a.now != s.now:
                s.advance(a.now)
            if values:
                s.insert(a.value, a.timestamp)
            else:
                s.insert(a.timestamp)
        return s

    # window count
    c = replay(opt.SlidingWindowCount(BITS, eps), values=False)
    worst = 0.0
    for w in sample_windows(c.now, c.cutoffs(), 40):
        dw = n - bisect.bisect_right(truth.ts, c.now - w)
        if dw:
            worst = max(worst, abs(c.count(w) - dw) / (eps * dw))
    c.compress()  # the space bound is stated after SWCOMPRESS (between runs each level may hold α more)
    J = c.level_count()
    out.append(
        (
            "window_count",
            f"{worst:.3f}",
            f"{c.node_count():,} / {c.alpha * (J + 1):,} (J={J}, α={c.alpha:,}; {c.node_count() / n:.2f}·N)",
        )
    )
    # window quantiles and decays
    s = replay(opt.SlidingWindowQuantiles(BITS, BITS, eps))
    snap = s.snapshot()
    worst_r = worst_q = 0.0
    for w in sample_windows(s.now, s.cutoffs(), 6):
        vals, prefix = truth.window(w)
        dw = prefix[-1]
        if not dw:
            continue
        _, dhat, ranges = estimate_window(snap, w)
        worst_r = max(worst_r, worst_rank_error(vals, prefix, ranges, eps * dw))
        worst_q = max(worst_q, quantile_deviation(vals, prefix, dhat, ranges, eps * dw))
    worst_g = 0.0
    for g in (PolynomialDecay(1.0), ExponentialDecay(1e-4)):
        vals, prefix = truth.decayed(g)
        total, ranges_g = estimate_decayed(snap, g)
        worst_g = max(worst_g, worst_rank_error(vals, prefix, ranges_g, eps * prefix[-1]))
    s.compress()
    J = s.level_count()
    bound = s.alpha * (J + 1) + s.alpha * J * (8 * BITS / eps + 1)
    out.append(
        (
            "window_quantiles",
            f"{worst_r:.3f} (quantile {worst_q:.3f}, decayed {worst_g:.3f})",
            f"{s.node_count():,} / {bound:,.0f} (J={J}, α={s.alpha:,}; {s.node_count() / n:.2f}·N)",
        )
    )
    # value division
    g = PolynomialDecay(2.0)
    vd = replay(opt.ValueDivision(BITS, BITS, g, eps / 2, eps / 2))
    vd.maintain()
    vals, prefix = truth.decayed(g)
    total, ranges_v = estimate_value_division(vd.snapshot(), g)
    e = value_division_error(eps / 2, eps / 2)
    oldest = vd.now - min(lo for lo, _, _ in vd.intervals())
    m_bound = value_division_summary_bound(g, eps / 2, oldest)
    out.append(
        (
            "value_division",
            f"{worst_rank_error(vals, prefix, ranges_v, e * prefix[-1], two_sided=True):.3f}",
            f"{vd.node_count():,} / {vd.summary_count() * qdigest_size_bound(BITS, eps / 2):,} "
            f"({vd.node_count() / n:.2f}·N); summaries {vd.summary_count()} / {m_bound}",
        )
    )
    return out


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
            for name, err, space in measure(kind, args.items, eps):
                print(f"{eps:>5} {kind:<12} {name:<17} {err:<44} {space}", flush=True)
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
