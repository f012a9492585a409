"""The exact oracle of paper 004: keep every ``(value, timestamp, weight)`` and answer every query by brute force.

:class:`ExactStream` is the executable specification of all time-decayed structures: it has their input
contract (clock, universes, weights; :mod:`.input`) and answers, exactly and in O(n), the quantities they
approximate (notes §1.3, §1.4, §3.1, §4.1):

* ``D_w(t) = Σ{w_i : t - t_i < w}`` (strict windows ``(t - w, t]``, notes §9 item 5), ``rr(τ) = Σ{w_i : t_i > τ}``;
* window ranks ``r(w, x) = Σ{w_i : x_i < x, t - t_i < w}`` (strict in ``x`` like the q-digest's rank; the
  paper's Definition 5 counts ``x_i <= x``: that is ``rank(x + 1)``);
* decayed count ``D = Σ w_i g(t - t_i)``, decayed ranks and frequencies for any :class:`~.decay.Decay`;
* the acceptance tests of approximate answers: the **two-sided** quantile test (``rank_lt(q) <= (φ+ε)D`` and
  ``rank_le(q) >= (φ-ε)D``; Definition 4 as printed cannot always be met, notes §9 item 6) and the heavy-hitter
  test of Definition 4.

Late arrivals follow §2.4: the oracle at query time is the exact aggregate over every tuple received so far.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import Decay
from .input import (
    check_advance,
    check_bits,
    check_rank_point,
    check_timestamp,
    check_total,
    check_value,
    check_weight,
    check_window,
)

__all__ = ["ExactStream", "RankProfile", "quantile_violation", "heavy_hitters_violation", "windows_to_check"]


@dataclass(frozen=True)
class RankProfile:
    """The weighted value distribution of some selection of items: sorted distinct values, their weights and
    prefix sums. ``rank_lt(x)`` and ``rank_le(x)`` cost O(log n)."""

    values: tuple[int, ...]
    weights: tuple[float, ...]
    prefix: tuple[float, ...]  # prefix[k] = weight of values[:k]

    @staticmethod
    def of(pairs: Iterable[tuple[int, float]]) -> RankProfile:
        acc: dict[int, float] = {}
        for x, w in pairs:
            acc[x] = acc.get(x, 0) + w
        values = tuple(sorted(acc))
        weights = tuple(acc[v] for v in values)
        prefix = tuple(itertools.accumulate(weights, initial=0))
        return RankProfile(values, weights, prefix)

    @property
    def total(self) -> float:
        return self.prefix[-1]

    def rank_lt(self, x: int) -> float:
        """Weight of the values ``< x``."""
        return self.prefix[bisect.bisect_left(self.values, x)]

    def rank_le(self, x: int) -> float:
        """Weight of the values ``<= x``."""
        return self.prefix[bisect.bisect_right(self.values, x)]

    def frequency(self, x: int) -> float:
        i = bisect.bisect_left(self.values, x)
        return self.weights[i] if i < len(self.values) and self.values[i] == x else 0


def quantile_violation(profile: RankProfile, q: int | None, phi: float, eps: float) -> str | None:
    """Why ``q`` is not an ε-approximate φ-quantile of ``profile`` (None when it is).

    Two-sided test (notes §1.3, §4.6): ``rank_lt(q) <= (φ + ε) D`` and ``rank_le(q) >= (φ - ε) D``. On an empty
    selection (D = 0) the answer must be None."""
    d = profile.total
    if d == 0:
        return None if q is None else f"empty selection but quantile {q} returned"
    if q is None:
        return f"quantile None for a non-empty selection (D = {d})"
    lt, le = profile.rank_lt(q), profile.rank_le(q)
    slack = 1e-9 * d  # decayed weights are floats: allow rounding of the sums, never a real violation
    if lt > (phi + eps) * d + slack:
        return f"rank_lt({q}) = {lt} > (phi + eps)·D = ({phi} + {eps})·{d}"
    if le < (phi - eps) * d - slack:
        return f"rank_le({q}) = {le} < (phi - eps)·D = ({phi} - {eps})·{d}"
    return None


def heavy_hitters_violation(profile: RankProfile, hh: Iterable[int], phi: float, eps: float) -> str | None:
    """Why ``hh`` is not an ε-approximate set of φ-heavy hitters (Definition 4): it must contain every value of
    weight ``>= (φ + ε) D`` and only values of weight ``>= (φ - ε) D``."""
    d = profile.total
    got = set(hh)
    if d <= 0:  # Definition 4 degenerates (every value has weight >= (φ+ε)·0); nothing carries weight
        return None if not got else f"D = 0 but {sorted(got)[:8]} reported"
    slack = 1e-9 * d
    for x in sorted(got):
        if profile.frequency(x) < (phi - eps) * d - slack:
            return f"{x} reported with weight {profile.frequency(x)} < (phi - eps)·D = ({phi} - {eps})·{d}"
    for x, w in zip(profile.values, profile.weights):
        if w >= (phi + eps) * d + slack and x not in got:
            return f"{x} of weight {w} >= (phi + eps)·D = ({phi} + {eps})·{d} is missing"
    return None


class ExactStream:
    """Every tuple received so far, with the structures' clock and input contract.

    >>> from swagkit.spec.decay import PolynomialDecay
    >>> s = ExactStream(value_bits=2, time_bits=3)
    >>> s.advance(3)
    >>> s.insert(2, 2); s.insert(1, 3); s.insert(2, 1)      # <y,2>, <x,3>, <y,1> with x = 1, y = 2
    >>> g = PolynomialDecay(1)                              # g(a) = 1/(1+a): paper 004 §2.3 example
    >>> s.decayed_frequency(1, g), s.decayed_frequency(2, g)  # x: 1, y: 1/2 + 1/3 (at t = 3)
    (1.0, 0.8333333333333333)
    """

    def __init__(self, value_bits: int = 62, time_bits: int = 62) -> None:
        self.value_bits = check_bits(value_bits, "value_bits")
        self.time_bits = check_bits(time_bits, "time_bits")
        self.now = 0
        self.items: list[tuple[int, int, int]] = []  # (value, timestamp, weight) in arrival order
        self._total = 0

    # -- updates (same contract as the structures) -------------------------------------------------------------

    def advance(self, t: int) -> None:
        """Move the clock to ``t`` (``t >= now``)."""
        self.now = check_advance(t, self.time_bits, self.now)

    def validate_insert(self, value: int, timestamp: int, weight: int = 1) -> tuple[int, int, int]:
        """The checks of :meth:`insert`, in the structures' order (value, timestamp, weight, total), without
        changing anything: the validated triple, or the documented error."""
        x = check_value(value, self.value_bits)
        t = check_timestamp(timestamp, self.time_bits, self.now)
        w = check_weight(weight)
        check_total(self._total, w)
        return x, t, w

    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """Record ``weight`` copies of ``value`` stamped ``timestamp`` (validated first; weight 0 is a no-op)."""
        x, t, w = self.validate_insert(value, timestamp, weight)
        if w:
            self.items.append((x, t, w))
            self._total += w

    # -- exact answers -----------------------------------------------------------------------------------------

    def total(self) -> int:
        """N, the total weight received."""
        return self._total

    def right_rank(self, tau: int) -> int:
        """``rr(τ)``: weight of items with timestamp ``> τ`` (paper 004 §3.1)."""
        return sum(w for _, t, w in self.items if t > tau)

    def count_window(self, w: int) -> int:
        """``D_w(now)``: weight of items with ``now - t_i < w``."""
        w = check_window(w)
        return self.right_rank(self.now - w)

    def window_profile(self, w: int | None = None) -> RankProfile:
        """Value distribution of the window ``(now - w, now]`` (the whole stream when ``w`` is None)."""
        if w is None:
            return RankProfile.of((x, wt) for x, _, wt in self.items)
        cut = self.now - check_window(w)
        return RankProfile.of((x, wt) for x, t, wt in self.items if t > cut)

    def decayed_profile(self, decay: Decay) -> RankProfile:
        """Value distribution with each item weighted ``w_i · g(now - t_i)``."""
        return RankProfile.of((x, wt * decay(self.now - t)) for x, t, wt in self.items)

    def rank(self, x: int, w: int | None = None) -> int:
        """Weight of items with value ``< x`` (in the window ``w``, or overall)."""
        check_rank_point(x, self.value_bits)
        cut = -1 if w is None else self.now - check_window(w)
        return sum(wt for v, t, wt in self.items if v < x and t > cut)

    def frequency(self, x: int, w: int | None = None) -> int:
        """Weight of items with value ``x`` (in the window ``w``, or overall)."""
        cut = -1 if w is None else self.now - check_window(w)
        return sum(wt for v, t, wt in self.items if v == x and t > cut)

    def decayed_count(self, decay: Decay) -> float:
        """``D = Σ w_i g(now - t_i)`` (Definition 2)."""
        return sum(wt * decay(self.now - t) for _, t, wt in self.items)

    def decayed_rank(self, x: int, decay: Decay) -> float:
        """``Σ{w_i g(now - t_i) : x_i < x}``."""
        return sum(wt * decay(self.now - t) for v, t, wt in self.items if v < x)

    def decayed_frequency(self, x: int, decay: Decay) -> float:
        """``Σ{w_i g(now - t_i) : x_i = x}``."""
        return sum(wt * decay(self.now - t) for v, t, wt in self.items if v == x)

    def timestamps(self) -> list[tuple[int, int]]:
        """``(timestamp, weight)`` of every item, sorted."""
        return sorted((t, wt) for _, t, wt in self.items)

    def values(self) -> list[tuple[int, int]]:
        """``(value, weight)`` of every item, sorted."""
        return sorted((x, wt) for x, _, wt in self.items)

    def __len__(self) -> int:
        return len(self.items)


def windows_to_check(now: int, timestamps: Sequence[int], extra: Iterable[int] = ()) -> list[int]:
    """Window sizes where a window count can change: ``w = now - t_i + 1`` for each timestamp, plus 0, 1, the
    whole history and ``extra`` (e.g. windows that cross a level cutoff)."""
    ws = {0, 1, now + 1, now + 2}
    for t in timestamps:
        ws.add(now - t)
        ws.add(now - t + 1)
    ws.update(w for w in extra if w >= 0)
    return sorted(w for w in ws if w >= 0)
