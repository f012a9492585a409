"""Checker of the sliding-window count with out-of-order arrivals (paper 004 §3.1; notes §3.8 I1-I7, E1) over a
:class:`WindowCountState`, optionally against the exact oracle and the previous snapshot.

Hard:

* **levels** -- levels are numbered 1..J with caps ``γ_j = 2^j``; the top level never discarded (``τ_J = -1``),
  so every window has a level to answer it;
* **buffer (I1)** -- Q_0 holds at most α weight, all at timestamps ``>= τ_0``; with the oracle: exactly the true
  weight at every timestamp ``> τ_0``, at most it at ``τ_0``, and α in all once anything was evicted;
* per level **node cap (P1)**, **soundness**, **size (I3)** (``<= α`` after compress), **cutoff (I4)** (every
  stored range ends after ``τ_j``), **level error (I7)** (``rr(τ) - T·γ_j <= r̂r_j(τ) <= rr(τ)`` for every
  ``τ >= τ_j``);
* **cutoffs only rising (I5)** against the previous snapshot;
* **level fullness (I6)** ``#{t_i > τ_j} >= T·γ_{j+1}/ε`` and ``#{t_i >= τ_0} >= α``, and **window error (E1)**
  ``0 <= D_w - D̂_w <= ε·D_w`` with equality when ``now - w >= τ_0`` -- hard when ``α`` is at least the
  provable budget, reported (soft) for a smaller, user-chosen α.

Soft: the family lower bound (P2), which truncation breaks at the boundary (notes §3.6 (ii)).

:func:`estimate_count` is SWQUERY on a snapshot: the implementations must answer exactly this.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from fractions import Fraction

from ..decay.bounds import window_count_alpha_min, window_level_need
from ..decay.oracle import ExactStream, RankProfile, windows_to_check
from ..decay.snapshots import WindowCountState, node_range
from ._decay_common import CheckReport, DecayChecker
from .qdigest import check_node_cap, check_nodes_wellformed, check_soundness, family_deficits

__all__ = ["check_window_count", "estimate_count", "check_time_level", "level_for_cut"]


def level_for_cut(tau0: int, taus: Sequence[int], cut: int) -> int:
    """ℓ: 0 when ``cut >= τ_0``, else the smallest j with ``τ_j <= cut`` (linear scan, notes §9 item 14)."""
    if cut >= tau0:
        return 0
    for j, tau in enumerate(taus, 1):
        if tau <= cut:
            return j
    return -1


def estimate_count(state: WindowCountState, w: int) -> int:
    """SWQUERY(w) on a snapshot: exact from Q_0 when ``now - w >= τ_0``, else ``Σ{c(r) : lo(r) > now - w}`` over
    the level ℓ (module docstring)."""
    cut = max(state.now - w, -1)
    ell = level_for_cut(state.tau0, [lv.tau for lv in state.levels], cut)
    if ell == 0:
        return sum(wt for t, wt in state.buffer if t > cut)
    if ell < 0:
        raise ValueError("no level answers this window (the top level discarded)")
    level = state.levels[ell - 1]
    return sum(c for n, c in level.nodes if node_range(n, state.time_bits)[0] > cut)


def check_time_level(
    ck: DecayChecker,
    bits: int,
    level: int,
    gamma: int,
    tau: int,
    nodes: Sequence[tuple[int, int]],
    alpha: int,
    compressed: bool,
    pending: int,
    times: RankProfile | None,
) -> float:
    """Invariants of one time-wise level (shared with the range ladder). Returns the largest level error seen."""
    check_nodes_wellformed(ck, nodes, bits)
    check_node_cap(ck, nodes, bits, Fraction(gamma), f"level {level}, fixed γ = {gamma}")
    limit = alpha if compressed else alpha + pending
    ck.require(
        len(nodes) <= limit,
        "level size",
        "the maximum number of ranges within Q_j is bounded by α (after SWCOMPRESS)",
        f"level {level} holds {len(nodes)} ranges > {limit}",
    )
    for n, _ in nodes:
        hi = node_range(n, bits)[1]
        ck.require(
            hi > tau,
            "cutoff",
            "every range of Q_j ends after τ_j (ranges with max(r) <= τ_j are deleted)",
            f"level {level}: range {node_range(n, bits)} ends at or before τ = {tau}",
        )
    if compressed and tau >= 0:
        deficits = family_deficits(nodes, Fraction(gamma))
        if deficits:
            ck.soft(
                "family lower bound", f"level {level}: {len(deficits)} ranges below γ after truncation", len(deficits)
            )
    if times is None:
        return 0
    check_soundness(ck, nodes, bits, times)
    # I7: for every τ >= τ_j, rr(τ) - T·γ <= r̂r(τ) <= rr(τ); both sides step at node lo - 1 and item timestamps
    los = sorted(node_range(n, bits)[0] for n, _ in nodes)
    counts_by_lo: dict[int, int] = {}
    for n, c in nodes:
        lo = node_range(n, bits)[0]
        counts_by_lo[lo] = counts_by_lo.get(lo, 0) + c
    lo_keys = sorted(counts_by_lo)
    suffix = [0] * (len(lo_keys) + 1)
    for i in range(len(lo_keys) - 1, -1, -1):
        suffix[i] = suffix[i + 1] + counts_by_lo[lo_keys[i]]
    points = (
        {tau}
        | {lo - 1 for lo in los}
        | {t for t in times.values if t >= tau}
        | {t - 1 for t in times.values if t > tau}
    )
    worst = 0.0
    for p in sorted(p for p in points if p >= tau):
        est = suffix[bisect.bisect_right(lo_keys, p)]
        true = times.total - times.rank_le(p)
        ck.require(
            true - bits * gamma <= est <= true,
            "level error",
            "for τ >= τ_j: rr(τ) - γ(j)·log W <= r̂r(τ) <= rr(τ) (the estimator Σ{c(r): l > τ} under-estimates)",
            f"level {level}, τ = {p}: r̂r = {est}, rr = {true}, γ·T = {gamma * bits}",
        )
        worst = max(worst, true - est)
    ck.passed("level error")
    return worst


def check_window_count(
    state: WindowCountState,
    oracle: ExactStream | None = None,
    previous: WindowCountState | None = None,
    *,
    report: CheckReport | None = None,
    windows: Sequence[int] | None = None,
) -> CheckReport:
    """Check a §3.1 snapshot (module docstring). ``windows`` defaults to every window where ``D_w`` can change."""
    ck = DecayChecker("window_count", state, report)
    T, eps, alpha = state.time_bits, state.eps, state.alpha
    guaranteed = alpha >= window_count_alpha_min(T, eps)
    for j, lv in enumerate(state.levels, 1):
        ck.require(
            lv.level == j and lv.gamma == 1 << j,
            "levels",
            "Q_j is a q-digest with the fixed threshold γ(j) = 2^j",
            f"level #{j} reports level {lv.level}, γ = {lv.gamma}",
        )
    ck.require(
        len(state.levels) >= 1 and state.levels[-1].tau == -1,
        "levels",
        "the top level has discarded nothing, so some level answers every window (notes §3.9 (c))",
        f"top level τ = {state.levels[-1].tau if state.levels else None}",
    )
    ck.passed("levels")
    # I1: the buffer
    bweight = sum(w for _, w in state.buffer)
    ck.require(
        bweight <= alpha and all(t >= state.tau0 and 0 <= t <= state.now and w > 0 for t, w in state.buffer),
        "buffer",
        "Q_0 buffers the α elements with the most recent timestamps (all >= τ_0)",
        f"buffer weight {bweight} (α = {alpha}), τ_0 = {state.tau0}, buffer {state.buffer[:8]}…",
    )
    times: RankProfile | None = None
    if oracle is not None:
        times = RankProfile.of(oracle.timestamps())
        ck.require(
            times.total == state.total,
            "conservation",
            "every update is counted",
            f"structure total {state.total}, oracle {times.total}",
        )
        buf = dict(state.buffer)
        for t, w in zip(times.values, times.weights):
            if t > state.tau0:
                ck.require(
                    buf.get(t, 0) == w,
                    "buffer",
                    "every element with a timestamp > τ_0 is in Q_0",
                    f"timestamp {t}: buffer holds {buf.get(t, 0)}, stream {w}",
                )
        ck.require(
            buf.get(state.tau0, 0) <= times.frequency(state.tau0) and all(t >= state.tau0 for t in buf),
            "buffer",
            "Q_0 holds only elements of the stream",
            f"timestamp τ_0 = {state.tau0}: buffer {buf.get(state.tau0, 0)}, stream {times.frequency(state.tau0)}",
        )
        if state.tau0 >= 0:
            ck.require(
                bweight == alpha, "buffer", "once full, Q_0 stays full", f"buffer weight {bweight} < α = {alpha}"
            )
    ck.passed("buffer")
    # I5: cutoffs only rise
    if previous is not None:
        ck.require(
            state.tau0 >= previous.tau0,
            "cutoffs rise",
            "τ_0 is the greatest timestamp discarded from Q_0: it never decreases",
            f"τ_0 went from {previous.tau0} to {state.tau0}",
        )
        for old, new in zip(previous.levels, state.levels):
            ck.require(
                new.tau >= old.tau,
                "cutoffs rise",
                "τ_j is set to max{τ_j, h}: it never decreases",
                f"level {new.level}: τ went from {old.tau} to {new.tau}",
            )
        ck.require(
            len(state.levels) >= len(previous.levels),
            "levels",
            "levels are only added",
            f"{len(previous.levels)} -> {len(state.levels)} levels",
        )
        ck.passed("cutoffs rise")
    worst_level = 0.0
    for lv in state.levels:
        err = check_time_level(
            ck, T, lv.level, lv.gamma, lv.tau, lv.nodes, alpha, state.compressed, state.pending, times
        )
        worst_level = max(worst_level, err / (T * lv.gamma))
    ck.report.measure("window_count level error / (T·γ_j)", worst_level, 1.0)
    if oracle is None or times is None:
        return ck.report
    # I6: fullness of every level that discarded
    need0 = alpha
    have0 = times.total - times.rank_lt(state.tau0) if state.tau0 >= 0 else None
    _require_or_report(
        ck,
        guaranteed,
        have0 is None or have0 >= need0,
        "level fullness",
        "Q_0 holds α elements at timestamps >= τ_0, so D_w >= α once τ_0 > t - w",
        f"#{{t_i >= τ_0 = {state.tau0}}} = {have0} < α = {need0}",
    )
    for lv in state.levels:
        if lv.tau < 0:
            continue
        need = window_level_need(T, eps, 2 * lv.gamma, 1)
        have = times.total - times.rank_le(lv.tau)
        _require_or_report(
            ck,
            guaranteed,
            have >= need,
            "level fullness",
            "rr(τ_j) >= log W · γ(j+1)/ε (Eq. (2), corrected for α = (8/ε + 7)·T + 1)",
            f"level {lv.level}: rr(τ = {lv.tau}) = {have} < {float(need):.6g}",
        )
    # E1: every window
    ws = (
        windows
        if windows is not None
        else windows_to_check(
            state.now, times.values, [state.now - t for t in [state.tau0] + [lv.tau for lv in state.levels]]
        )
    )
    worst = 0.0
    for w in ws:
        cut = max(state.now - w, -1)
        est = estimate_count(state, w)
        true = times.total - times.rank_le(cut)
        exact = cut >= state.tau0
        ok = est == true if exact else est <= true and true - est <= Fraction(eps) * true
        _require_or_report(
            ck,
            guaranteed,
            ok,
            "window error",
            "|D̂_w - D_w| <= ε·D_w (Theorem 1), exact when t - w >= τ_0; D̂_w never exceeds D_w",
            f"w = {w} (cut {cut}, level {level_for_cut(state.tau0, [lv.tau for lv in state.levels], cut)}): "
            f"D̂ = {est}, D = {true}, ε·D = {eps * true:.6g}",
        )
        if true > 0:
            worst = max(worst, (true - est) / (eps * true))
    ck.report.measure("window_count error / (ε·D_w)", worst, 1.0)
    return ck.report


def _require_or_report(ck: DecayChecker, hard: bool, ok: bool, invariant: str, wording: str, detail: str) -> None:
    if hard:
        ck.require(ok, invariant, wording, detail)
        ck.passed(invariant)
    elif not ok:
        ck.soft(invariant, f"(α below the provable budget) {detail}")
