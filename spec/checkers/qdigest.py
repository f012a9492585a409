"""Checker of the q-digest (paper 004 §3.1 box; notes §2.5 Q0-Q7) over a :class:`QDigestState`.

Hard (raise :class:`~swagkit.spec.errors.InvariantViolation`):

* **counts** -- every stored count is a positive int, ids lie in the tree;
* **node cap (P1)** -- every non-leaf range holds ``<= γ = εN/b`` (exactly, as a rational);
* **conservation (Q1)** -- the counts sum to ``total`` (and to the true weight when the truth is given);
* **soundness (Q0)** -- the counts can be matched to the true items inside their ranges: for every stored range
  v, the counts stored inside v do not exceed the true weight inside v (Hall's condition for nested ranges);
* **rank error (Q6)** -- ``0 <= r(q) - r̂(q) <= εN`` at every point where either side changes;
* **monotone rank (Q7)** -- ``r̂`` is non-decreasing and ``r̂(2^b) = N``;
* **size (Q5)** -- after compress, at most ``4b/ε + 1`` ranges; at any time at most
  ``4b/ε + 1 + pending`` (each insert adds at most one range);
* **family lower bound (P2)** -- after compress, ``c(par(r)) + c(r) + c(sib(r)) >= γ`` for every stored non-root
  range: swagkit's QDCOMPRESS runs to a fixed point (:meth:`swagkit.reference.QDigest.compress`), so a compressed
  digest is one that compress would not change. Tighter than any size bound: a digest that merged too little
  (a threshold rounded the wrong way, a merge never compressed) is caught here even when it stays within
  ``4N/⌈γ⌉ + 1`` ranges. (The paper's single bottom-up pass does not restore P2 everywhere -- notes §2.3 -- and
  the time-wise digests of §3.1, truncated, break it at the truncation boundary: their checker reports it soft.)

Soft (reported in the :class:`CheckReport`, never raised):

* **closure (P3)** -- the number of ranges a closed realization would add (it conflicts with the size bound,
  see :mod:`swagkit.reference.qdigest`).

The helpers are shared with the time-wise digests of the sliding-window structures, whose caps are fixed
(``2^j``) and whose content is a subset of the items (ranges at or before the cutoff were discarded).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from fractions import Fraction

from ..decay.bounds import qdigest_size_bound
from ..decay.oracle import RankProfile
from ..decay.snapshots import QDigestState, node_range
from ._decay_common import CheckReport, DecayChecker

__all__ = [
    "check_qdigest",
    "check_nodes_wellformed",
    "check_node_cap",
    "check_soundness",
    "estimated_rank",
    "rank_error_points",
    "family_deficits",
    "closure_gap",
]


def check_nodes_wellformed(ck: DecayChecker, nodes: Sequence[tuple[int, int]], bits: int) -> None:
    """Ids within the tree ``[1, 2^(b+1))``, sorted, unique; counts positive ints."""
    prev = 0
    for node, count in nodes:
        ck.require(
            1 <= node < (1 << (bits + 1)) and node > prev,
            "counts",
            "a q-digest is a set of dyadic ranges of [0, 2^b) with counts",
            f"node id {node} out of range or out of order (previous {prev})",
        )
        ck.require(
            isinstance(count, int) and count > 0,
            "counts",
            "stored ranges carry positive counts (zero-count ranges are not stored)",
            f"node {node} has count {count!r}",
        )
        prev = node
    ck.passed("counts")


def check_node_cap(ck: DecayChecker, nodes: Sequence[tuple[int, int]], bits: int, cap: Fraction, what: str) -> None:
    """P1: every non-leaf range holds at most ``cap``."""
    leaf_start = 1 << bits
    for node, count in nodes:
        if node < leaf_start:
            ck.require(
                count <= cap,
                "node cap",
                f"Each range r has an associated count c(r) <= γ unless r represents a single item ({what})",
                f"range {node_range(node, bits)} (id {node}) holds {count} > γ = {cap} ({float(cap):.6g})",
            )
    ck.passed("node cap")


def check_soundness(ck: DecayChecker, nodes: Sequence[tuple[int, int]], bits: int, truth: RankProfile) -> None:
    """Q0: the stored counts can be assigned to distinct true items inside their ranges.

    For nested (dyadic) ranges Hall's condition reduces to: for every stored range v, the counts of the stored
    ranges inside v sum to at most the true weight inside v."""
    stored = dict(nodes)
    inside: dict[int, int] = {}
    for node, count in nodes:
        a = node
        while a >= 1:
            if a in stored:
                inside[a] = inside.get(a, 0) + count
            a >>= 1
    for node, demand in inside.items():
        lo, hi = node_range(node, bits)
        supply = truth.rank_le(hi) - truth.rank_lt(lo)
        ck.require(
            demand <= supply,
            "soundness",
            "every counted item lies in the range that counts it (notes §2.5 Q0)",
            f"ranges inside {lo}..{hi} hold {demand} but only {supply} items lie there",
        )
    ck.passed("soundness")


def estimated_rank(nodes: Sequence[tuple[int, int]], bits: int) -> tuple[list[int], list[int]]:
    """``r̂`` as a step function: sorted right ends ``his`` and prefix sums, ``r̂(q) = prefix[bisect_left(his, q)]``."""
    pairs = sorted((node_range(n, bits)[1], c) for n, c in nodes)
    his = [h for h, _ in pairs]
    prefix = [0]
    for _, c in pairs:
        prefix.append(prefix[-1] + c)
    return his, prefix


def rank_error_points(nodes: Sequence[tuple[int, int]], bits: int, truth: RankProfile) -> list[int]:
    """Every q where ``r(q) - r̂(q)`` can change: 0, ``2^b``, ``h+1`` for stored right ends, ``x+1`` for items."""
    pts = {0, 1 << bits}
    pts.update(node_range(n, bits)[1] + 1 for n, _ in nodes)
    pts.update(x + 1 for x in truth.values)
    return sorted(pts)


def family_deficits(nodes: Sequence[tuple[int, int]], limit: Fraction) -> list[int]:
    """Stored non-root ranges whose family ``c(par) + c(r) + c(sib)`` is below ``limit`` (P2 failures)."""
    stored = dict(nodes)
    return [n for n, c in nodes if n > 1 and stored.get(n >> 1, 0) + c + stored.get(n ^ 1, 0) < limit]


def closure_gap(nodes: Iterable[tuple[int, int]]) -> int:
    """How many ancestors a closed (P3) realization would have to add as zero-count ranges."""
    stored = {n for n, _ in nodes}
    missing: set[int] = set()
    for n in stored:
        a = n >> 1
        while a >= 1 and a not in stored and a not in missing:
            missing.add(a)
            a >>= 1
    return len(missing)


def check_qdigest(
    state: QDigestState,
    truth: RankProfile | Iterable[tuple[int, int]] | None = None,
    *,
    structure: str = "qdigest",
    report: CheckReport | None = None,
) -> CheckReport:
    """Check a q-digest snapshot (against the true ``(value, weight)`` multiset when given). Returns the
    report (hard invariants that held, soft findings, error/bound ratios)."""
    ck = DecayChecker(structure, state, report)
    bits, total, nodes = state.universe_bits, state.total, state.nodes
    eps = Fraction(state.eps)
    check_nodes_wellformed(ck, nodes, bits)
    cap = eps * total / bits
    check_node_cap(ck, nodes, bits, cap, "γ = εN/b")
    stored_sum = sum(c for _, c in nodes)
    ck.require(
        stored_sum == total,
        "conservation",
        "the counts sum to N, the weight summarized (notes §2.5 Q1)",
        f"counts sum to {stored_sum}, total is {total}",
    )
    # size: the bound after compress, plus at most one new range per insert since
    bound = qdigest_size_bound(bits, state.eps)
    allowed = bound if state.compressed else bound + state.pending
    ck.require(
        len(nodes) <= allowed,
        "size",
        "at most 4·log2(M)/ε + 1 ranges after compress (notes §2.4; the paper's sources claim 3·log2(M)/ε)",
        f"{len(nodes)} ranges > {allowed} "
        f"({'after compress' if state.compressed else f'{state.pending} inserts since compress'})",
    )
    ck.passed("size")
    his, prefix = estimated_rank(nodes, bits)
    ck.require(
        prefix[-1] == total,
        "monotone rank",
        "r̂(q) is non-decreasing and r̂(M) = N (notes §2.5 Q7)",
        f"r̂(M) = {prefix[-1]} != N = {total}",
    )
    ck.passed("monotone rank")
    gap = closure_gap(nodes)
    if gap:
        ck.soft("closure", f"a closed (P3) realization would add {gap} zero-count ranges", gap)
    ck.report.measure("qdigest size / bound", len(nodes), allowed)
    if truth is None:
        _check_family_bound(ck, state, cap)
        return ck.report
    profile = truth if isinstance(truth, RankProfile) else RankProfile.of(truth)
    ck.require(
        profile.total == total,
        "conservation",
        "the counts sum to N, the weight inserted (notes §2.5 Q1)",
        f"digest holds {total}, the stream {profile.total}",
    )
    check_soundness(ck, nodes, bits, profile)
    err_bound = eps * total
    worst = 0.0
    for q in rank_error_points(nodes, bits, profile):
        est = prefix[bisect.bisect_left(his, q)]
        true = profile.rank_lt(q)
        ck.require(
            est <= true <= est + err_bound,
            "rank error",
            "r̂(q) <= r(q) <= r̂(q) + εN",
            f"q = {q}: r̂ = {est}, r = {true}, εN = {float(err_bound):.6g}",
        )
        worst = max(worst, true - est)
    ck.passed("rank error")
    ck.report.measure("qdigest rank error / εN", worst, float(err_bound))
    _check_family_bound(ck, state, cap)  # last: a digest that breaks the invariants above fails on those first
    return ck.report


def _check_family_bound(ck: DecayChecker, state: QDigestState, cap: Fraction) -> None:
    """P2 after compress (module docstring)."""
    if not state.compressed:
        return
    deficits = family_deficits(state.nodes, cap)
    shown = ", ".join(f"{node_range(n, state.universe_bits)} (id {n})" for n in deficits[:3])
    ck.require(
        not deficits,
        "family lower bound",
        "c(par(r)) + c(r) + c(sib(r)) >= γ for every stored range r but the root, after compress (P2; "
        "swagkit's compress runs to a fixed point)",
        f"{len(deficits)} ranges have a family below γ = {cap} ({float(cap):.6g}) after compress: {shown}",
    )
    ck.passed("family lower bound")
