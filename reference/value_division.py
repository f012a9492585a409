"""Value division for smooth decay functions (paper 004 §4.2, Theorem 4; generalizes Cohen-Strauss).

Decayed ranks, quantiles and heavy hitters under a **smooth** decay g (Definition 6: ``g(a)/g(a+A)``
non-increasing in a -- polynomial and exponential decay) with error ``(θ + β + θβ)·D``. The time axis is
partitioned into summaries ``s_0, s_1, …`` (newest first) over disjoint timestamp intervals ``[lo_j, hi_j]``;
each keeps a q-digest of accuracy β over its values. A query scales summary j by ``g(t - hi_j)``, the weight of
its newest instant, and adds up.

* **Insert** ``<x, t_i>`` goes into the summary whose interval covers ``t_i`` -- which one depends only on t
  and the partition, not on arrival order, which is how value division absorbs disorder. A timestamp that no
  interval covers gets a new single-instant summary ``[t_i, t_i]`` (never stretch an old summary over a gap,
  notes §5.2).
* **Maintenance** merges adjacent summaries j (newer) and j+1 while the union's spread
  ``g(t - hi_j) / g(t - lo_{j+1})`` is at most ``1 + θ`` -- the property (V3) the accuracy proof needs. Smoothness
  makes a summary's spread non-increasing as t grows (its span is fixed while its age grows), so it stays
  ``<= 1 + θ`` forever. The paper phrases the rule with boundaries ``b_i`` (``g(b_i) = (1+θ)^-i``): two summaries
  strictly between the same boundaries have spread ``<= 1+θ``; testing the spread directly merges at least as
  often and leaves no adjacent pair with spread ``<= 1+θ``, so summaries 0, 2, 4, … lose a factor ``1+θ`` each:
  at most ``2⌈ln(1/g(A))/ln(1+θ)⌉ + 1`` summaries (A the oldest age; Theorem 4, with ``log_{1+θ} g(t)`` read as
  ``log_{1+θ}(1/g(t))``, notes §9 item 9). Maintenance runs when the number of summaries has doubled since the
  last run (amortized O(1) per new summary) and on :meth:`ValueDivision.maintain`.
* **Error** (notes §5.2): every item's weight is over-estimated by a factor in ``[1, 1+θ]`` and the digests err by
  ``β`` of the over-estimated count ``D̂ <= (1+θ)D``: ``|R̂(x) - R(x)| <= (θ + β + θβ)·D`` -- the paper's ``θ + β``
  drops the product term. Quantile: smallest x with ``R̂(x+1) >= φ·D̂``; heavy hitters: ``f̂(p) >= φ·D̂``; both
  pass Definition 4's tests (two-sided for quantiles) with ``ε = θ + β + θβ``.

Refused decays: anything not smooth (the sliding window is discontinuous), or not positive on the time
universe; a user decay's smoothness is re-checked numerically, not trusted.

Complexity: insert O(log m + 1) for m summaries (bisect) plus the digest insert; maintenance O(m) plus the
digest merges; queries O(space) (quantile O(S log S)). Space: m summaries of ``<= 4b/β + 1`` ranges each.
"""

from __future__ import annotations

import bisect
from typing import Any, Iterable

from swagkit.spec.decay import Decay, ExponentialDecay, NoDecay, PolynomialDecay
from swagkit.spec.decay_bounds import value_division_error
from swagkit.spec.decay_errors import InvalidParameterError
from swagkit.spec.decay_input import (
    check_accuracy,
    check_advance,
    check_bits,
    check_phi,
    check_rank_point,
    check_spread,
    check_timestamp,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay_snapshots import SummaryState, ValueDivisionState

from .qdigest import QDigest
from .window_quantiles import _heavy_of, _quantile_of

__all__ = ["ValueDivision", "check_smooth_decay"]

#: decays whose smoothness is a theorem (Definition 6), not a numeric observation
_PROVEN_SMOOTH = (ExponentialDecay, PolynomialDecay, NoDecay)


def check_smooth_decay(decay: Any, time_bits: int) -> Decay:
    """``decay`` if value division may use it: a :class:`Decay`, smooth and positive over ``[0, 2**time_bits)``
    (built-in exponential/polynomial decays are smooth by Definition 6; others are checked numerically)."""
    if not isinstance(decay, Decay):
        raise InvalidParameterError(f"decay must be a swagkit.spec.decay.Decay, got {type(decay).__name__}")
    horizon = min((1 << time_bits) - 1, 4096)
    if not isinstance(decay, _PROVEN_SMOOTH):
        if not decay.smooth or not decay.is_smooth_on(horizon):
            raise InvalidParameterError(
                f"value division needs a smooth decay (Definition 6: g(a)/g(a+A) non-increasing); {decay.name} is not"
            )
    if decay((1 << time_bits) - 1) <= 0.0:
        raise InvalidParameterError(f"value division needs g > 0 on the time universe; {decay.name} reaches 0")
    return decay


class _Summary:
    __slots__ = ("lo", "hi", "digest")

    def __init__(self, lo: int, hi: int, digest: QDigest) -> None:
        self.lo, self.hi, self.digest = lo, hi, digest


class ValueDivision:
    """Decayed ranks, quantiles and heavy hitters for a smooth decay, error ``(θ + β + θβ)·D`` (paper 004 §4.2;
    id ``value_division``).

    >>> from swagkit.spec.decay import PolynomialDecay
    >>> vd = ValueDivision(time_bits=4, value_bits=2, decay=PolynomialDecay(1), theta=0.1, beta=0.1)
    >>> vd.advance(3)
    >>> for value, ts in [(2, 2), (1, 3), (2, 1)]:     # <y,2>, <x,3>, <y,1> with x = 1, y = 2 (§2.3 example)
    ...     vd.insert(value, ts)
    >>> vd.decayed_heavy_hitters(0.5)                    # at t = 3 only x
    [1]
    >>> vd.advance(4); vd.decayed_heavy_hitters(0.5)     # at t = 4 only y
    [2]
    """

    algorithm = "value_division"

    def __init__(self, time_bits: int, value_bits: int, decay: Decay, theta: float, beta: float) -> None:
        self._tbits = check_bits(time_bits, "time_bits")
        self._vbits = check_bits(value_bits, "value_bits")
        self._theta = check_spread(theta, "theta")
        self._beta = check_accuracy(beta, "beta")
        self._decay = check_smooth_decay(decay, self._tbits)
        self.now = 0
        self._total = 0
        self._sums: list[_Summary] = []  # oldest first (lo increasing), intervals disjoint
        self._his: list[int] = []  # hi of each summary, for bisect
        self._maintained = True
        self._maintained_len = 0

    # -- parameters ----------------------------------------------------------------------------------------------

    @property
    def time_bits(self) -> int:
        return self._tbits

    @property
    def value_bits(self) -> int:
        return self._vbits

    @property
    def decay(self) -> Decay:
        return self._decay

    @property
    def theta(self) -> float:
        return self._theta

    @property
    def beta(self) -> float:
        return self._beta

    @property
    def eps(self) -> float:
        """The error factor ``θ + β + θβ`` (notes §5.2)."""
        return value_division_error(self._theta, self._beta)

    @property
    def total(self) -> int:
        return self._total

    def summary_count(self) -> int:
        """m, the number of summaries."""
        return len(self._sums)

    def node_count(self) -> int:
        """Stored ranges over all summaries (the paper's space unit)."""
        return sum(s.digest.node_count() for s in self._sums)

    # -- updates -------------------------------------------------------------------------------------------------

    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``). Summaries become mergeable as ages grow; the
        next maintenance merges them."""
        t = check_advance(t, self._tbits, self.now)
        if t != self.now:
            self.now = t
            self._maintained = False

    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """Add ``weight`` copies of ``value`` stamped ``timestamp <= now`` to the summary covering the timestamp."""
        x = check_value(value, self._vbits)
        t = check_timestamp(timestamp, self._tbits, self.now)
        w = check_weight(weight)
        check_total(self._total, w)
        if w == 0:
            return
        i = bisect.bisect_left(self._his, t)  # first summary with hi >= t
        if i < len(self._sums) and self._sums[i].lo <= t:
            self._sums[i].digest.insert(x, w)
        else:
            d = QDigest(self._vbits, self._beta)
            d.insert(x, w)
            self._sums.insert(i, _Summary(t, t, d))
            self._his.insert(i, t)
            self._maintained = False
        self._total += w
        if len(self._sums) >= 2 * self._maintained_len + 8:
            self.maintain()

    def insert_many(self, items: Iterable[tuple[int, int]]) -> None:
        """Insert ``(value, timestamp)`` pairs with weight 1 (all validated first)."""
        pairs = [(check_value(x, self._vbits), check_timestamp(t, self._tbits, self.now)) for x, t in items]
        check_total(self._total, len(pairs))
        for x, t in pairs:
            self.insert(x, t)

    def _spread_ok(self, newer_hi: int, older_lo: int) -> bool:
        """V3 for the union: ``g(t - hi) <= (1 + θ)·g(t - lo)``."""
        g = self._decay
        return g(self.now - newer_hi) <= (1.0 + self._theta) * g(self.now - older_lo)

    def maintain(self) -> None:
        """Merge adjacent summaries, newest first, while the union's spread is at most ``1 + θ`` (the digests are
        unioned and compressed once). Afterwards no adjacent pair is mergeable at time ``now``. O(m) + merges."""
        sums = self._sums
        out: list[_Summary] = []  # newest first
        i = len(sums) - 1
        while i >= 0:
            cur = sums[i]
            i -= 1
            merged = False
            while i >= 0 and self._spread_ok(cur.hi, sums[i].lo):
                cur = _Summary(sums[i].lo, cur.hi, cur.digest)
                cur.digest._absorb(sums[i].digest)
                merged = True
                i -= 1
            if merged:
                cur.digest.compress()
            out.append(cur)
        out.reverse()
        self._sums = out
        self._his = [s.hi for s in out]
        self._maintained = True
        self._maintained_len = len(out)

    # -- queries -------------------------------------------------------------------------------------------------

    def _weights(self) -> list[tuple[float, QDigest]]:
        """``(g(now - hi_j), digest_j)``, newest first."""
        g, now = self._decay, self.now
        return [(g(now - s.hi), s.digest) for s in reversed(self._sums)]

    def decayed_count(self) -> float:
        """``D̂ = Σ g(now - hi_j)·n_j``: ``D <= D̂ <= (1+θ)·D``."""
        return sum(k * d.total for k, d in self._weights())

    def decayed_rank(self, x: int) -> float:
        """``R̂(x) = Σ g(now - hi_j)·r̂_j(x)``: decayed weight with value ``< x``, within ``(θ + β + θβ)·D``."""
        q = check_rank_point(x, self._vbits)
        return sum(k * d.rank(q) for k, d in self._weights())

    def _ranges(self) -> tuple[float, list[tuple[int, float]]]:
        total = 0.0
        out: list[tuple[int, float]] = []
        for k, d in self._weights():
            total += k * d.total
            out.extend((hi, k * c) for _, hi, c in d.ranges())
        return total, out

    def decayed_quantile(self, phi: float) -> int | None:
        """Smallest x with ``R̂(x+1) >= φ·D̂`` (two-sided test with ``ε = θ + β + θβ``); None when empty."""
        p = check_phi(phi)
        return _quantile_of(*self._ranges(), p)

    def decayed_heavy_hitters(self, phi: float) -> list[int]:
        """Values with ``f̂(p) >= φ·D̂`` (Definition 4 with ``ε = θ + β + θβ``), sorted."""
        p = check_phi(phi, open_low=True)
        return _heavy_of(*self._ranges(), p)

    def intervals(self) -> list[tuple[int, int, int]]:
        """``(lo, hi, weight)`` of every summary, newest first."""
        return [(s.lo, s.hi, s.digest.total) for s in reversed(self._sums)]

    def snapshot(self) -> ValueDivisionState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.value_division`."""
        return ValueDivisionState(
            time_bits=self._tbits,
            value_bits=self._vbits,
            theta=self._theta,
            beta=self._beta,
            decay=self._decay.name,
            now=self.now,
            total=self._total,
            summaries=tuple(SummaryState(s.lo, s.hi, s.digest.snapshot()) for s in reversed(self._sums)),
            maintained=self._maintained,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(time_bits={self._tbits}, value_bits={self._vbits}, decay={self._decay.name}, "
            f"theta={self._theta!r}, beta={self._beta!r}, now={self.now}, summaries={len(self._sums)})"
        )
