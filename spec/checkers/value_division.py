"""Checker of value division (paper 004 §4.2; notes §5.5 V1-V5, E5) over a :class:`ValueDivisionState`.

Hard:

* **bucket boundaries / partition (V1)** -- summary intervals ``[lo, hi]`` are disjoint, newest first, inside
  ``[0, now]``; with the oracle, each summary holds exactly the weight stamped inside its interval and every item
  lies in some interval;
* **spread (V3)** -- ``g(now - hi) <= (1+θ)·g(now - lo)`` for every summary (the weight of its newest instant
  over-estimates each item's weight by at most ``1+θ``);
* **maintenance (V2)** and **summary count (V4)** -- after maintenance no adjacent pair could be merged and there
  are at most ``2⌈ln(1/g(A))/ln(1+θ)⌉ + 1`` summaries;
* **digests (V5)** -- each summary's digest is a valid q-digest at β (against the items of its interval);
* **error (E5)** -- ``|R̂(x) - R(x)| <= (θ + β + θβ)·D`` at every rank breakpoint, ``D <= D̂ <= (1+θ)D``,
  quantiles and heavy hitters pass Definition 4's tests with ``ε = θ + β + θβ``.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from ..decay import Decay
from ..decay.bounds import value_division_error, value_division_summary_bound
from ..decay.oracle import ExactStream, heavy_hitters_violation, quantile_violation
from ..decay.snapshots import ValueDivisionState, node_range
from ._decay_common import CheckReport, DecayChecker
from .qdigest import check_qdigest
from .window_quantiles import DEFAULT_PHIS, heavy_from, quantile_from, rank_from

__all__ = ["check_value_division", "estimate_value_division"]

#: relative slack for re-evaluating a float spread test at a later time (the exact spread only shrinks)
SPREAD_SLACK = 1e-9


def estimate_value_division(state: ValueDivisionState, decay: Decay) -> tuple[float, list[tuple[int, float]]]:
    """``(D̂, [(hi, weight)])``: every digest range weighted by ``g(now - hi_j)`` of its summary, newest first."""
    total = 0.0
    out: list[tuple[int, float]] = []
    for s in state.summaries:
        k = decay(state.now - s.hi)
        total += k * s.digest.total
        ranges = sorted((node_range(n, s.digest.universe_bits)[1], -n, c) for n, c in s.digest.nodes)
        out.extend((hi, k * c) for hi, _, c in ranges)
    return total, out


def check_value_division(
    state: ValueDivisionState,
    decay: Decay,
    oracle: ExactStream | None = None,
    *,
    report: CheckReport | None = None,
    phis: Sequence[float] = DEFAULT_PHIS,
) -> CheckReport:
    """Check a value-division snapshot built for ``decay`` (module docstring)."""
    ck = DecayChecker("value_division", state, report)
    theta, beta, now = state.theta, state.beta, state.now
    ck.require(
        decay.name == state.decay,
        "decay",
        "the summaries were built for this decay",
        f"snapshot decay {state.decay}, checked with {decay.name}",
    )
    prev_lo = now + 1
    for s in state.summaries:
        ck.require(
            0 <= s.lo <= s.hi < prev_lo,
            "bucket boundaries",
            "the summaries partition the time axis: disjoint intervals (t_{j+1}, t_j], newest first",
            f"summary [{s.lo}, {s.hi}] after one starting at {prev_lo}",
        )
        prev_lo = s.lo
        ck.require(
            decay(now - s.hi) <= (1.0 + theta) * decay(now - s.lo) * (1 + SPREAD_SLACK),
            "spread",
            "the weights of the items of one summary are within a factor 1+θ (g(b_i)/g(b_{i+1}) = 1+θ)",
            f"summary [{s.lo}, {s.hi}] at t = {now}: g(t-hi) = {decay(now - s.hi)!r}, g(t-lo) = {decay(now - s.lo)!r}",
        )
        ck.require(
            s.digest.universe_bits == state.value_bits and s.digest.eps == beta,
            "digests",
            "every summary is a q-digest of accuracy β over the value universe",
            f"summary [{s.lo}, {s.hi}]: bits {s.digest.universe_bits}, eps {s.digest.eps}",
        )
    ck.passed("bucket boundaries")
    ck.passed("spread")
    if state.maintained and len(state.summaries) >= 2:
        for newer, older in zip(state.summaries, state.summaries[1:]):
            ck.require(
                not decay(now - newer.hi) <= (1.0 + theta) * decay(now - older.lo),
                "maintenance",
                "whenever two adjacent summaries fit between the same boundaries they are merged",
                f"[{older.lo}, {older.hi}] and [{newer.lo}, {newer.hi}] could still merge at t = {now}",
            )
        oldest = now - state.summaries[-1].lo
        bound = value_division_summary_bound(decay, theta, oldest)
        ck.require(
            len(state.summaries) <= bound,
            "summary count",
            "O(log_{1+θ}(1/g(t))) summaries: at most 2⌈ln(1/g(A))/ln(1+θ)⌉ + 1 (Theorem 4, notes §5.5 V4)",
            f"{len(state.summaries)} summaries > {bound} (oldest age {oldest})",
        )
        ck.report.measure("value_division summaries / bound", len(state.summaries), bound)
        ck.passed("maintenance")
    total = sum(s.digest.total for s in state.summaries)
    ck.require(
        total == state.total,
        "conservation",
        "every update is in some summary",
        f"summaries hold {total}, total {state.total}",
    )
    if oracle is None:
        for s in state.summaries:
            check_qdigest(s.digest, structure="value_division digest", report=ck.report)
        return ck.report
    ck.require(
        oracle.total() == state.total,
        "conservation",
        "every update is counted",
        f"structure {state.total}, oracle {oracle.total()}",
    )
    by_time = sorted((t, x, wt) for x, t, wt in oracle.items)
    stamps = [t for t, _, _ in by_time]
    for s in state.summaries:
        inside = by_time[bisect.bisect_left(stamps, s.lo) : bisect.bisect_right(stamps, s.hi)]
        check_qdigest(s.digest, [(x, wt) for _, x, wt in inside], structure="value_division digest", report=ck.report)
    ck.passed("digests")
    eps = value_division_error(theta, beta)
    dhat, ranges = estimate_value_division(state, decay)
    truth = oracle.decayed_profile(decay)
    d = truth.total
    slack = 1e-9 * d
    ck.require(
        d - slack <= dhat <= (1 + theta) * d + slack,
        "error",
        "each item's weight is over-estimated by a factor in [1, 1+θ]: D <= D̂ <= (1+θ)·D",
        f"D̂ = {dhat}, D = {d}",
    )
    his, prefix = rank_from(ranges)
    pts = sorted({0, 1 << state.value_bits} | {v + 1 for v in truth.values} | {h + 1 for h, _ in ranges})
    worst = 0.0
    for x in pts:
        est = prefix[bisect.bisect_left(his, x)]
        true = truth.rank_lt(x)
        ck.require(
            abs(est - true) <= eps * d + slack,
            "error",
            "|R̂(x) - R(x)| <= (θ + β + θβ)·D (Theorem 4 with the product term, notes §5.2)",
            f"x = {x}: R̂ = {est}, R = {true}, (θ+β+θβ)·D = {eps * d:.6g}",
        )
        if d > 0:
            worst = max(worst, abs(est - true) / (eps * d))
    ck.report.measure("value_division rank error / ((θ+β+θβ)·D)", worst, 1.0)
    for phi in phis:
        v = quantile_violation(truth, quantile_from(dhat, ranges, phi), phi, eps)
        ck.require(v is None, "quantile", "two-sided test with ε = θ + β + θβ", f"φ = {phi}: {v}")
        if phi > 0:
            v = heavy_hitters_violation(truth, heavy_from(dhat, ranges, phi), phi, eps)
            ck.require(v is None, "heavy hitters", "Definition 4 with ε = θ + β + θβ", f"φ = {phi}: {v}")
    ck.passed("error")
    return ck.report
