"""Checker of the sliding-window range / quantile / heavy-hitter structure, defer-merge variant, and of its
query-time decays (paper 004 §3.2-3.3, §4.1; notes §4.7 and §5.1) over a :class:`WindowQuantilesState`.

Hard:

* **levels** (``γ_j = 2^(j-1)``, top level never discarded), **buffer** (Q_0 as in §3.1, with values),
  **cutoffs rise**, per level the time-wise invariants of :func:`.window_count.check_time_level` (node cap,
  soundness, size, cutoff, level error);
* **value digests** -- each time-wise range's digest sums to its count and is a valid q-digest at ε/2 (cap,
  size, monotone rank);
* **level fullness (I6)** ``#{t_i > τ_j} >= 2T·γ_{j+1}/ε`` and **E2** ``0 <= r(w,x) - r̂(w,x) <= ε·D_w``,
  **count** ``0 <= D_w - D̂_w <= (ε/2)·D_w``, **E3** (two-sided quantile test), **E4** (heavy hitters),
  and for each given decay **E (any decay)** ``0 <= R_g(x) - R̂_g(x) <= ε·D`` with quantiles and heavy hitters
  -- hard when α is at least the provable budget ``(16/ε + 7)·T + 1``, reported otherwise.

The ``estimate_*`` functions are the queries on a snapshot; the implementations must give the same answers.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

from ..decay import Decay
from ..decay.bounds import window_level_need, window_quantiles_alpha_min
from ..decay.oracle import ExactStream, RankProfile, heavy_hitters_violation, quantile_violation
from ..decay.snapshots import QDigestState, WindowQuantilesState, node_range
from ._decay_common import CheckReport, DecayChecker
from .qdigest import check_qdigest
from .window_count import check_time_level, level_for_cut

__all__ = [
    "check_window_quantiles",
    "estimate_window",
    "estimate_decayed",
    "quantile_from",
    "heavy_from",
    "rank_from",
    "default_windows",
]

DEFAULT_PHIS = (0.0, 0.1, 0.25, 0.5, 0.9, 1.0)


def _digest_ranges(d: QDigestState) -> list[tuple[int, int]]:
    """``(hi, count)`` of a digest in post-order."""
    out = [(node_range(n, d.universe_bits)[1], -n, c) for n, c in d.nodes]
    out.sort()
    return [(hi, c) for hi, _, c in out]


def estimate_window(state: WindowQuantilesState, w: int) -> tuple[int, int, list[tuple[int, int]]]:
    """``(ℓ, D̂_w, [(hi, weight)])`` of the window ``w`` on a snapshot: Q_0's items (as points) when
    ``now - w >= τ_0``, else the value ranges of the digests of level ℓ's ranges with ``lo > now - w``."""
    cut = max(state.now - w, -1)
    ell = level_for_cut(state.tau0, [lv.tau for lv in state.levels], cut)
    if ell == 0:
        pts = [(v, wt) for t, v, wt in state.buffer if t > cut]
        return 0, sum(p[1] for p in pts), pts
    if ell < 0:
        raise ValueError("no level answers this window")
    out: list[tuple[int, int]] = []
    total = 0
    for node in state.levels[ell - 1].nodes:
        if node_range(node.node, state.time_bits)[0] > cut:
            total += node.count
            out.extend(_digest_ranges(node.digest))
    return ell, total, out


def rank_from(ranges: Sequence[tuple[int, Any]]) -> tuple[list[int], list[Any]]:
    """Step function ``r̂``: sorted right ends and prefix sums (``r̂(x) = prefix[bisect_left(his, x)]``)."""
    pairs = sorted(ranges, key=lambda r: r[0])
    his = [h for h, _ in pairs]
    prefix: list[Any] = [0]
    for _, c in pairs:
        prefix.append(prefix[-1] + c)
    return his, prefix


def quantile_from(total: Any, ranges: Sequence[tuple[int, Any]], phi: float) -> int | None:
    """Smallest x with ``r̂(x+1) >= φ·total`` (None when ``total <= 0``)."""
    if total <= 0:
        return None
    target = phi * total
    if target <= 0:
        return 0
    acc: Any = 0
    for hi, c in sorted(ranges, key=lambda r: r[0]):
        acc += c
        if acc >= target:
            return hi
    return max(h for h, _ in ranges)


def heavy_from(total: Any, ranges: Iterable[tuple[int, Any]], phi: float) -> list[int]:
    """Values whose ranges ending there weigh at least ``φ·total``."""
    if total <= 0:
        return []
    freq: dict[int, Any] = {}
    for hi, c in ranges:
        freq[hi] = freq.get(hi, 0) + c
    return sorted(p for p, f in freq.items() if f >= phi * total)


def estimate_decayed(state: WindowQuantilesState, decay: Decay) -> tuple[float, list[tuple[int, float]]]:
    """``(D̂, [(hi, weight)])`` for decay g by the §4.1 identity on a snapshot: a Q_0 item at ``s`` is weighted
    ``g(t - s) - G(t - A_0)``, a range of level j with left end l ``g(t - min(B_j, l-1) - 1) - G(t - A_j)``, where
    ``[A_j, B_j]`` are the cutoffs ``u = t - w`` answered by level j and ``G(t+1) = 0``."""
    t = state.now

    def G(w: int) -> float:
        return 0.0 if w > t else decay(w)

    def coef(u_top: int, u_bot: int) -> float:
        return max(0.0, decay(t - u_top - 1) - G(t - u_bot))

    out: list[tuple[int, float]] = []
    total = 0.0
    a0 = max(state.tau0, -1)
    for s, v, wt in state.buffer:
        if s - 1 >= a0:
            k = coef(min(t - 1, s - 1), a0)
            if k != 0.0:
                total += k * wt
                out.append((v, k * wt))
    upper = state.tau0 - 1
    for lv in state.levels:
        lo_u, hi_u = max(lv.tau, -1), min(upper, t - 1)
        if hi_u >= lo_u:
            for node in lv.nodes:
                top = min(hi_u, node_range(node.node, state.time_bits)[0] - 1)
                if top >= lo_u:
                    k = coef(top, lo_u)
                    if k != 0.0:
                        total += k * node.count
                        out.extend((hi, k * c) for hi, c in _digest_ranges(node.digest))
        upper = min(upper, lv.tau - 1)
    return total, out


def default_windows(state: WindowQuantilesState | Any, limit: int = 24) -> list[int]:
    """Windows worth checking: 0, 1, the whole history, both sides of every cutoff, powers of two."""
    now = state.now
    ws = {0, 1, now + 1}
    for tau in [state.tau0] + [lv.tau for lv in state.levels]:
        if tau >= 0:
            ws.update((now - tau, now - tau + 1, now - tau + 2))
    k = 2
    while k <= now and len(ws) < limit:
        ws.add(k)
        k *= 2
    return sorted(w for w in ws if w >= 0)


def _rank_points(truth: RankProfile, ranges: Sequence[tuple[int, Any]], universe: int) -> list[int]:
    pts = {0, universe}
    pts.update(v + 1 for v in truth.values)
    pts.update(h + 1 for h, _ in ranges)
    return sorted(p for p in pts if p <= universe)


def check_window_quantiles(
    state: WindowQuantilesState,
    oracle: ExactStream | None = None,
    previous: WindowQuantilesState | None = None,
    *,
    report: CheckReport | None = None,
    windows: Sequence[int] | None = None,
    phis: Sequence[float] = DEFAULT_PHIS,
    decays: Sequence[Decay] = (),
) -> CheckReport:
    """Check a §3.2 snapshot (module docstring)."""
    ck = DecayChecker("window_quantiles", state, report)
    T, B, eps, alpha = state.time_bits, state.value_bits, state.eps, state.alpha
    guaranteed = alpha >= window_quantiles_alpha_min(T, eps)
    for j, lv in enumerate(state.levels, 1):
        ck.require(
            lv.level == j and lv.gamma == 1 << (j - 1),
            "levels",
            "within Q_j (j > 0) the threshold is γ(j) = 2^(j-1)",
            f"level #{j} reports level {lv.level}, γ = {lv.gamma}",
        )
    ck.require(
        len(state.levels) >= 1 and state.levels[-1].tau == -1,
        "levels",
        "the top level has discarded nothing, so some level answers every window",
        f"top level τ = {state.levels[-1].tau if state.levels else None}",
    )
    ck.passed("levels")
    bweight = sum(wt for _, _, wt in state.buffer)
    ck.require(
        bweight <= alpha
        and all(state.tau0 <= t <= state.now and 0 <= v < (1 << B) and wt > 0 for t, v, wt in state.buffer),
        "buffer",
        "Q_0 buffers the α elements with the most recent timestamps (all >= τ_0)",
        f"buffer weight {bweight} (α = {alpha}), τ_0 = {state.tau0}",
    )
    for lv in state.levels:
        for node in lv.nodes:
            ck.require(
                node.digest.total == node.count and node.digest.universe_bits == B and node.digest.eps == eps / 2,
                "value digests",
                "defer merge: the value-wise digest of a time range holds exactly the items counted there, at ε/2",
                f"level {lv.level}, range {node_range(node.node, T)}: count {node.count}, digest total "
                f"{node.digest.total} (bits {node.digest.universe_bits}, eps {node.digest.eps})",
            )
            check_qdigest(node.digest, structure="window_quantiles value digest", report=ck.report)
    ck.passed("value digests")
    if previous is not None:
        ck.require(
            state.tau0 >= previous.tau0
            and len(state.levels) >= len(previous.levels)
            and all(n.tau >= o.tau for o, n in zip(previous.levels, state.levels)),
            "cutoffs rise",
            "τ_j = max{τ_j, h}: cutoffs never decrease; levels are only added",
            f"τ {[previous.tau0] + [lv.tau for lv in previous.levels]} -> "
            f"{[state.tau0] + [lv.tau for lv in state.levels]}",
        )
        ck.passed("cutoffs rise")
    times: RankProfile | None = None
    if oracle is not None:
        times = RankProfile.of(oracle.timestamps())
        ck.require(
            times.total == state.total,
            "conservation",
            "every update is counted",
            f"structure total {state.total}, oracle {times.total}",
        )
        truth_pairs: dict[tuple[int, int], int] = {}
        for v, t, wt in oracle.items:
            truth_pairs[(t, v)] = truth_pairs.get((t, v), 0) + wt
        buf = {(t, v): wt for t, v, wt in state.buffer}
        for (t, v), wt in truth_pairs.items():
            if t > state.tau0:
                ck.require(
                    buf.get((t, v), 0) == wt,
                    "buffer",
                    "every element with a timestamp > τ_0 is in Q_0",
                    f"(t={t}, x={v}): buffer {buf.get((t, v), 0)}, stream {wt}",
                )
        for key, wt in buf.items():
            ck.require(
                wt <= truth_pairs.get(key, 0),
                "buffer",
                "Q_0 holds only elements of the stream",
                f"(t={key[0]}, x={key[1]}): buffer {wt}, stream {truth_pairs.get(key, 0)}",
            )
        if state.tau0 >= 0:
            ck.require(
                bweight == alpha, "buffer", "once full, Q_0 stays full", f"buffer weight {bweight} < α = {alpha}"
            )
    ck.passed("buffer")
    for lv in state.levels:
        pairs = [(n.node, n.count) for n in lv.nodes]
        check_time_level(ck, T, lv.level, lv.gamma, lv.tau, pairs, alpha, state.compressed, state.pending, times)
    if oracle is None or times is None:
        return ck.report
    have0 = times.total - times.rank_lt(state.tau0) if state.tau0 >= 0 else alpha
    _hard_or_soft(
        ck,
        guaranteed,
        have0 >= alpha,
        "level fullness",
        "Q_0 holds α elements at timestamps >= τ_0",
        f"#{{t_i >= τ_0}} = {have0} < α = {alpha}",
    )
    for lv in state.levels:
        if lv.tau >= 0:
            need = window_level_need(T, eps, 2 * lv.gamma, 2)
            have = times.total - times.rank_le(lv.tau)
            _hard_or_soft(
                ck,
                guaranteed,
                have >= need,
                "level fullness",
                "rr(τ_j) >= 2·log W·γ(j+1)/ε (the time straddle may use ε/2; notes §4.2 corrected)",
                f"level {lv.level}: rr(τ = {lv.tau}) = {have} < {float(need):.6g}",
            )
    fe = Fraction(eps)
    worst_rank = worst_count = 0.0
    for w in windows if windows is not None else default_windows(state):
        ell, dhat, ranges = estimate_window(state, w)
        truth = oracle.window_profile(w)
        d = truth.total
        ok_count = dhat == d if ell == 0 else dhat <= d and d - dhat <= fe * d / 2
        _hard_or_soft(
            ck,
            guaranteed,
            ok_count,
            "window count",
            "D̂_w from the time-wise ranges: 0 <= D_w - D̂_w <= (ε/2)·D_w (exact from Q_0)",
            f"w = {w} (level {ell}): D̂ = {dhat}, D = {d}",
        )
        if d:
            worst_count = max(worst_count, (d - dhat) / (eps / 2 * d))
        his, prefix = rank_from(ranges)
        for x in _rank_points(truth, ranges, 1 << B):
            est = prefix[bisect.bisect_left(his, x)]
            true = truth.rank_lt(x)
            _hard_or_soft(
                ck,
                guaranteed,
                est <= true and true - est <= fe * d,
                "range error",
                "|r̂(w, x) - r(w, x)| <= ε·D_w(t) (Theorem 2); r̂ never exceeds r",
                f"w = {w} (level {ell}), x = {x}: r̂ = {est}, r = {true}, ε·D_w = {eps * d:.6g}",
            )
            if d:
                worst_rank = max(worst_rank, (true - est) / (eps * d))
        for phi in phis:
            problem = quantile_violation(truth, quantile_from(dhat, ranges, phi), phi, eps)
            _hard_or_soft(
                ck,
                guaranteed,
                problem is None,
                "quantile",
                "rank_lt(q) <= (φ+ε)·D_w and rank_le(q) >= (φ-ε)·D_w (Definition 4, two-sided)",
                f"w = {w}, φ = {phi}: {problem}",
            )
            if phi > 0:
                problem = heavy_hitters_violation(truth, heavy_from(dhat, ranges, phi), phi, eps)
                _hard_or_soft(
                    ck,
                    guaranteed,
                    problem is None,
                    "heavy hitters",
                    "HH ⊇ {p: f_p >= (φ+ε)D_w} and HH ⊆ {p: f_p >= (φ-ε)D_w} (Definition 4)",
                    f"w = {w}, φ = {phi}: {problem}",
                )
    ck.report.measure("window_quantiles rank error / (ε·D_w)", worst_rank, 1.0)
    ck.report.measure("window_quantiles count error / (ε/2·D_w)", worst_count, 1.0)
    worst_decay = 0.0
    for decay in decays:
        dhat_f, ranges_f = estimate_decayed(state, decay)
        truth = oracle.decayed_profile(decay)
        d_f = truth.total
        slack = 1e-9 * max(d_f, 1e-300)
        his, prefix = rank_from(ranges_f)
        _hard_or_soft(
            ck,
            guaranteed,
            dhat_f <= d_f + slack and d_f - dhat_f <= eps / 2 * d_f + slack,
            "decayed count",
            "D̂ by the §4.1 identity: 0 <= D - D̂ <= (ε/2)·D",
            f"{decay.name}: D̂ = {dhat_f}, D = {d_f}",
        )
        for x in _rank_points(truth, ranges_f, 1 << B):
            est = prefix[bisect.bisect_left(his, x)]
            true = truth.rank_lt(x)
            _hard_or_soft(
                ck,
                guaranteed,
                est <= true + slack and true - est <= eps * d_f + slack,
                "decayed rank",
                "decayed ranks within ε·D (Theorem 3; identity Σ(g(w-1)-g(w))·r(w,x) + g(t)·r(t+1,x))",
                f"{decay.name}, x = {x}: R̂ = {est}, R = {true}, ε·D = {eps * d_f:.6g}",
            )
            if d_f > 0:
                worst_decay = max(worst_decay, (true - est) / (eps * d_f))
        for phi in phis:
            problem = quantile_violation(truth, quantile_from(dhat_f, ranges_f, phi), phi, eps)
            _hard_or_soft(
                ck,
                guaranteed,
                problem is None,
                "decayed quantile",
                "two-sided test with the decayed count",
                f"{decay.name}, φ = {phi}: {problem}",
            )
            if phi > 0:
                problem = heavy_hitters_violation(truth, heavy_from(dhat_f, ranges_f, phi), phi, eps)
                _hard_or_soft(
                    ck,
                    guaranteed,
                    problem is None,
                    "decayed heavy hitters",
                    "Definition 4 with the decayed count",
                    f"{decay.name}, φ = {phi}: {problem}",
                )
    if decays:
        ck.report.measure("window_quantiles decayed rank error / (ε·D)", worst_decay, 1.0)
    return ck.report


def _hard_or_soft(ck: DecayChecker, hard: bool, ok: bool, invariant: str, wording: str, detail: str) -> None:
    if hard:
        ck.require(ok, invariant, wording, detail)
        ck.passed(invariant)
    elif not ok:
        ck.soft(invariant, f"(α below the provable budget) {detail}")
