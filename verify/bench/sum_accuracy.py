"""How far a sliding-window float sum is from exact, as a share of the any-order bound of each frame (issue 24).

A window sum is *acceptable* when every answer is a value that some summation order of its frame's own ``n``
values could produce -- Higham's any-order bound ``|got − exact| ≤ γ_{n−1}·Σ|x|`` over the frame (*Accuracy and
Stability of Numerical Algorithms*, 2nd ed., §4.2, (4.4); ``γ_k = k·u/(1 − k·u)``, ``u = 2**−53``). A running
sum that subtracts evicted values (bottleneck's ``move_sum``) keeps the rounding residue of values that left the
frame, so after a huge value passes through, its answers can be off by far more than that.
:func:`worst_share_of_bound` is the measurement behind the ``peers`` bench's accuracy line: the largest
``|got − exact| / (γ_{n−1}·Σ|x|)`` over all frames, computed exactly.

Exactness without :class:`~fractions.Fraction`: every double is an integer multiple of ``2**−K`` for the largest
``K`` among the inputs' binary exponents, so the inputs scaled by ``2**K`` are Python ints, their prefix sums give
every frame's exact sum and exact ``Σ|x|`` by one subtraction, and an answer (any double) is compared by
cross-multiplying with its own power-of-two denominator. O(n) big-int operations for n answers, whatever the window.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

__all__ = ["spiked_floats", "worst_share_of_bound", "any_order_gamma"]

_UNIT_ROUNDOFF = 2.0**-53


def any_order_gamma(n: int) -> float:
    """``γ_{n−1}`` of a frame of ``n`` values (0 for one value: a lone value is its own exact sum)."""
    k = n - 1
    return k * _UNIT_ROUNDOFF / (1.0 - k * _UNIT_ROUNDOFF)


def spiked_floats(n: int, spikes: int = 20, magnitude: float = 1e17, seed: int = 24) -> list[float]:
    """``n`` standard-normal floats with ``spikes`` values of ``±magnitude`` (random signs) at random places: the
    data on which a subtract-on-evict running sum keeps the residue of spikes long gone."""
    rng = random.Random(seed)
    values = [rng.gauss(0.0, 1.0) for _ in range(n)]
    for place in rng.sample(range(n), min(spikes, n)):
        values[place] = rng.choice((-1.0, 1.0)) * magnitude
    return values


def _scale_exponent(values: Sequence[float]) -> int:
    """The smallest ``K`` with every value an integer multiple of ``2**−K``."""
    return max((v.as_integer_ratio()[1].bit_length() - 1 for v in values), default=0)


def _scaled(v: float, k: int) -> int:
    """``v · 2**k`` (an int when ``k`` is at least ``v``'s scale exponent)."""
    num, den = v.as_integer_ratio()
    return num * ((1 << k) // den)


def worst_share_of_bound(values: Sequence[float], answers: Sequence[float], window: int) -> float:
    """max over frames of ``|answers[i] − exact_i| / (γ_{n_i−1}·Σ|x|)`` (frames ``values[max(0, i−w+1) .. i]``):
    at most 1 when every answer lies within its frame's any-order bound. A frame whose bound is 0 (one value, or
    all zeros) counts as 0 when answered exactly and as infinity otherwise, as does a non-finite answer to a
    finite frame. ``values`` must be finite. O(len(values)) big-int operations."""
    xs = [float(v) for v in values]
    k = _scale_exponent(xs)
    scaled = [_scaled(v, k) for v in xs]
    sums = [0, *itertools.accumulate(scaled)]
    abs_sums = [0, *itertools.accumulate(abs(s) for s in scaled)]
    worst = 0.0
    for i, got in enumerate(answers):
        if not math.isfinite(got):
            return math.inf
        lo = max(0, i - window + 1)
        num, den = float(got).as_integer_ratio()
        err = abs((num << k) - (sums[i + 1] - sums[lo]) * den)  # |got − exact| · 2**k · den, exactly
        if err == 0:
            continue
        gamma, abs_sum = any_order_gamma(i + 1 - lo), abs_sums[i + 1] - abs_sums[lo]
        if gamma == 0.0 or abs_sum == 0:
            return math.inf
        worst = max(worst, err / (abs_sum * den) / gamma)  # int / int: correctly rounded, however large
    return worst
