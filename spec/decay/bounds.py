"""Error and space bounds of paper 004 as checkable contracts, with the constants corrected where the paper's
are wrong (notes §9 items 3, 4, 10).

Every function returns the bound a checker asserts; thresholds are computed **exactly** from the float
parameters (``Fraction(eps)``), so a bound never fails or passes because of rounding. :data:`CONTRACTS` lists
them with their sources for documentation (``swagkit list`` and the README table read it).

q-digest (§3.1 box, after Shrivastava et al. [25]) over a universe of ``b`` bits with accuracy ε, total N:

* cap ``γ = εN/b``: every non-leaf range holds ``<= γ`` (P1); compress merges a family whose sum is ``< γ``;
* rank error ``0 <= r(q) - r̂(q) <= εN`` (at most ``b`` non-leaf ranges straddle ``q``, each ``<= γ``);
* size after compress ``<= 4b/ε + 1``. The paper's sources claim ``3b/ε``; their counting step assumes a count
  is in at most 3 family sums, but it can be in 4 (notes §2.4). The safe count: each stored non-root range lies
  in the family of its parent; after compress every such family sums to ``>= γ``; a count is in at most 2
  families; so there are at most ``2N/γ`` families with a stored child, at most ``4N/γ = 4b/ε`` non-root ranges.

Sliding-window count (§3.1, Theorem 1) over a ``T``-bit time universe, level caps ``γ_j = 2^j``: relative
error ε needs the level budget ``α >= (8/ε + 7)·T + 1`` (notes §3.6 recount; the paper's ``9T/ε`` suffices only
for ε <= 1/7 and ``16T/ε`` always does). Proof sketch in :func:`window_count_alpha_min`.

Window ranges / quantiles / heavy hitters (§3.2-3.3, defer merge), caps ``γ_j = 2^(j-1)``, value digests at
ε/2: additive error ``ε·D_w`` needs ``α >= (16/ε + 7)·T + 1`` (the paper's ``3T/ε`` does not follow from its own
argument, notes §4.2).

Space at the moment it matters (:func:`space_findings`, checked by the debug wrappers after every operation):
``4b/ε + 1`` does not depend on N, and a universe of b bits has only ``2^(b+1) − 1`` ranges, so at small b or ε
the bound exceeds every possible digest and a q-digest that never compresses passes it. The same counting with
the data's own N is tighter and as safe: integer family sums ``>= γ`` are ``>= ⌈γ⌉``, so after compress at
most ``⌊4N/⌈γ⌉⌋ + 1`` ranges are stored (:func:`qdigest_compressed_size_bound`; ``<= 4b/ε + 1`` always, 4N + 1
while γ <= 1: a digest whose compress keeps more ranges has lost a compression). Between compressions a
structure may hold at most one range per insert more, and it must compress at least every ``⌊4b/ε + 1⌋``
inserts (a q-digest) or ``α`` updates (the §3.1/§3.2 ladders, whose levels are truncated to α ranges): notes
§2.4 and §3 "run it every O(log M/ε) inserts … while keeping the space bound", with swagkit's period as the
constant -- a structure that compresses more rarely breaks the space claim between compressions.

Value division (§4.2, Theorem 4): additive error ``(θ + β + θβ)·D`` (the paper's ``θ + β`` drops the product
term, notes §5.2); at most ``2⌈ln(1/g(A)) / ln(1+θ)⌉ + 1`` summaries after maintenance (A: oldest age).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import Decay
from .snapshots import QDigestState, WindowCountState, WindowQuantilesState

__all__ = [
    "Contract",
    "CONTRACTS",
    "qdigest_cap",
    "qdigest_merge_limit",
    "qdigest_rank_error",
    "qdigest_size_bound",
    "qdigest_compressed_size_bound",
    "space_findings",
    "window_count_alpha_min",
    "window_quantiles_alpha_min",
    "window_level_need",
    "value_division_error",
    "value_division_summary_bound",
]


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def qdigest_cap(universe_bits: int, eps: float, total: int) -> Fraction:
    """``γ = ε·N / b``, exactly: the P1 cap of non-leaf ranges."""
    return Fraction(eps) * total / universe_bits


def qdigest_merge_limit(universe_bits: int, eps: float, total: int) -> int:
    """``⌈γ⌉``: compress merges a family whose (integer) sum is ``< γ``, i.e. ``< ⌈γ⌉``."""
    return _ceil(qdigest_cap(universe_bits, eps, total))


def qdigest_rank_error(eps: float, total: int) -> Fraction:
    """``ε·N``: ``r̂(q) <= r(q) <= r̂(q) + εN`` for every q."""
    return Fraction(eps) * total


def qdigest_size_bound(universe_bits: int, eps: float) -> int:
    """``⌊4b/ε + 1⌋``: stored ranges after compress (notes §2.4: 4k + 1 is safe, the paper's 3k is not proved)."""
    return math.floor(4 * universe_bits / Fraction(eps) + 1)


def qdigest_compressed_size_bound(universe_bits: int, eps: float, total: int) -> int:
    """``min(⌊4N/⌈γ⌉⌋ + 1, ⌊4b/ε + 1⌋)``: stored ranges after compress of a digest summarizing N (module
    docstring: after compress every family with a stored child sums to ``>= ⌈γ⌉``, a count lies in at most 2
    families, a family has at most 2 stored children, plus the root)."""
    if total <= 0:
        return 0
    limit = qdigest_merge_limit(universe_bits, eps, total)
    return min(4 * total // limit + 1, qdigest_size_bound(universe_bits, eps))


def space_findings(state: Any) -> list[tuple[str, str]]:
    """The space contracts a snapshot of a paper-004 structure breaks, as ``(what, detail)`` pairs (empty: none):
    a compressed q-digest (alone, or a value digest of the §3.2 ladder) above
    :func:`qdigest_compressed_size_bound`, and a structure whose inserts since its last compression (``pending``)
    reached its compression bound (``⌊4b/ε + 1⌋`` for a q-digest, ``α`` for a ladder). Other snapshots: none."""
    found: list[tuple[str, str]] = []
    if isinstance(state, QDigestState):
        period = qdigest_size_bound(state.universe_bits, state.eps)
        if state.pending >= period:
            found.append(("compress period", f"{state.pending} inserts since compress, it must run every {period}"))
        bound = qdigest_compressed_size_bound(state.universe_bits, state.eps, state.total)
        if state.compressed and len(state.nodes) > bound:
            found.append(
                ("size after compress", f"{len(state.nodes)} ranges > ⌊4N/⌈γ⌉⌋ + 1 = {bound} (N = {state.total})")
            )
    elif isinstance(state, (WindowCountState, WindowQuantilesState)):
        if state.pending >= state.alpha:
            found.append(("compress period", f"{state.pending} updates since SWCOMPRESS, it must run every α"))
        if isinstance(state, WindowQuantilesState):
            for level in state.levels:
                for node in level.nodes:
                    inner = space_findings(node.digest)
                    found += [(w, f"level {level.level}, value digest of range {node.node}: {d}") for w, d in inner]
    return found


def window_count_alpha_min(time_bits: int, eps: float) -> int:
    """Smallest level budget α for which the §3.1 ladder (caps ``γ_j = 2^j``) provably has relative error ε.

    Proof sketch (corrects the paper's ``α = 9T/ε``; T = time bits, γ = γ_j):

    1. A query for window w uses level ℓ, the smallest with ``τ_ℓ <= t - w``; its estimate
       ``Σ{c(r) : l_r > t - w}`` misses only ranges straddling ``t - w``: at most T non-leaf ranges, each
       ``<= γ_ℓ`` (P1), so ``0 <= D_w - D̂_w <= T·γ_ℓ``.
    2. Relative error ε therefore needs ``D_w >= T·γ_ℓ/ε``. As ``τ_{ℓ-1} > t - w``, ``D_w >= #{t_i >= τ_{ℓ-1}}``,
       so it suffices that every level keeps ``#{t_i > τ_j} >= T·γ_{j+1}/ε = 2T·γ_j/ε`` (and Q_0, which holds α
       weight units at timestamps ``>= τ_0``: ``α >= T·γ_1/ε``).
    3. When level j truncates to α ranges (after a compress, so every stored range's family sums to ``>= γ``),
       the kept ranges K lose at most T ranges sharing the new cutoff's right end; at most T families are split
       (their parents straddle ``τ_j``); every other family with a kept child is intact and sums to ``>= γ``; a
       count is in at most 2 families; at most T kept ranges straddle ``τ_j``, each ``<= γ``. Hence
       ``#{t_i > τ_j} >= (α - 1 - 3T)·γ/4 - T·γ = (α - 1 - 7T)·γ/4``.
    4. ``(α - 1 - 7T)·γ/4 >= 2T·γ/ε`` iff ``α >= 8T/ε + 7T + 1``. Later arrivals only add to ``#{t_i > τ_j}``.
    """
    return _ceil(8 * time_bits / Fraction(eps) + 7 * time_bits + 1)


def window_quantiles_alpha_min(time_bits: int, eps: float) -> int:
    """Smallest level budget α of the §3.2 ladder (caps ``γ_j = 2^(j-1)``, value digests at ε/2).

    As :func:`window_count_alpha_min`, but the time-wise straddle may only use half the error budget (the value
    digests use the other half), so levels must keep ``#{t_i > τ_j} >= 2T·γ_{j+1}/ε = 4T·γ_j/ε``:
    ``α >= 16T/ε + 7T + 1`` (the paper's ``3T/ε`` does not follow, notes §4.2)."""
    return _ceil(16 * time_bits / Fraction(eps) + 7 * time_bits + 1)


def window_level_need(time_bits: int, eps: float, gamma_next: int, share: int) -> Fraction:
    """The fullness a level must keep after a discard (invariant I6): ``#{t_i > τ_j} >= share·T·γ_{j+1}/ε``
    (``share`` 1 for the count ladder, 2 for the range ladder whose time error may use ε/2)."""
    return Fraction(share * time_bits * gamma_next) / Fraction(eps)


def value_division_error(theta: float, beta: float) -> float:
    """``θ + β + θβ`` (notes §5.2): weights are overestimated by at most ``1+θ``, and the digests' error ``β·D̂``
    is relative to the overestimated count ``D̂ <= (1+θ)D``."""
    return theta + beta + theta * beta


def value_division_summary_bound(decay: Decay, theta: float, oldest_age: int) -> int:
    """At most ``2⌈ln(1/g(A)) / ln(1+θ)⌉ + 1`` summaries after maintenance (A = ``oldest_age``; notes §5.5 V4).

    Greedy maintenance leaves no adjacent pair whose union has spread ``<= 1+θ``, so for summaries 0, 2, 4, …
    ``g(age of hi_0) > (1+θ)^k g(A)`` after k pairs; with ``g <= 1`` that bounds the count."""
    g = decay(oldest_age)
    if g <= 0.0:
        return 2**62
    levels = math.log(1.0 / g) / math.log1p(theta)
    return 2 * math.ceil(levels * (1 + 1e-12) + 1e-12) + 1


@dataclass(frozen=True)
class Contract:
    """One bound: what it bounds, the formula, where it comes from, and whether a violation is a hard failure."""

    structure: str
    quantity: str
    formula: str
    source: str
    hard: bool = True


CONTRACTS: tuple[Contract, ...] = (
    Contract("qdigest", "node cap (P1)", "c(r) <= εN/b for every non-leaf range", "§3.1 box"),
    Contract("qdigest", "conservation", "Σ c(r) = N", "§3.1 box"),
    Contract("qdigest", "soundness", "counts can be matched to the items inside their ranges", "notes §2.5 Q0"),
    Contract("qdigest", "rank error", "r̂(q) <= r(q) <= r̂(q) + εN", "§3.1 box"),
    Contract("qdigest", "monotone rank", "r̂ non-decreasing, r̂(M) = N", "notes §2.5 Q7"),
    Contract("qdigest", "size after compress", "<= 4b/ε + 1 ranges", "notes §2.4 (paper: 3b/ε)"),
    Contract(
        "qdigest",
        "family lower bound (P2)",
        "c(par) + c(r) + c(sib) >= εN/b after compress",
        "§3.1 box (hard: swagkit's compress runs to a fixed point; truncated ladders: soft, notes §3.6 (ii))",
    ),
    Contract(
        "qdigest", "closure (P3)", "par(r) stored when r is", "§3.1 box; conflicts with the size bound", hard=False
    ),
    Contract("window_count", "relative error", "|D̂_w - D_w| <= ε·D_w, exact when t - w >= τ_0", "Theorem 1"),
    Contract("window_count", "level budget", "α >= (8/ε + 7)·T + 1", "notes §3.6 (paper: 9T/ε)"),
    Contract("window_count", "level fullness (I6)", "#{t_i > τ_j} >= 2T·2^j/ε; Q_0: α", "Eq. (2), corrected"),
    Contract("window_count", "cutoffs", "τ_j never decrease; ranges after compress end after τ_j", "§3.1"),
    Contract("window_quantiles", "range error", "|r̂(w,x) - r(w,x)| <= ε·D_w", "Theorem 2"),
    Contract("window_quantiles", "quantile", "rank_lt(q) <= (φ+ε)D_w, rank_le(q) >= (φ-ε)D_w", "Cor. 1; notes §4.6"),
    Contract("window_quantiles", "heavy hitters", "Definition 4 with D = D_w", "Cor. 1; notes §4.6"),
    Contract("window_quantiles", "level budget", "α >= (16/ε + 7)·T + 1", "notes §4.2 (paper: 3T/ε)"),
    Contract("window_quantiles", "any decay", "|R̂_g(x) - R_g(x)| <= ε·D", "Theorem 3, identity corrected"),
    Contract("value_division", "error", "|R̂(x) - R(x)| <= (θ + β + θβ)·D", "Theorem 4, notes §5.2"),
    Contract("value_division", "spread (V3)", "g(t - hi)/g(t - lo) <= 1 + θ per summary", "§4.2"),
    Contract("value_division", "summaries (V4)", "<= 2⌈ln(1/g(A))/ln(1+θ)⌉ + 1 after maintenance", "Theorem 4"),
)
