"""Paper 004's time-decayed aggregates: the decay functions as objects (this module, 004 §2.2, §4.2 Definition 6),
and in submodules :mod:`.bounds` (error and space contracts), :mod:`.oracle` (exact answers in O(n)),
:mod:`.input` / :mod:`.errors` (the input contract and its exceptions), :mod:`.snapshots` and :mod:`.streams`.

A decay function ``g`` maps an age ``a = t - t_i >= 0`` to a weight with ``g(0) = 1``, ``0 <= g(a) <= 1`` and
``g`` non-increasing. Decayed aggregates (Definitions 2-4) weight each item by ``g(t - t_i)``.

* :class:`SlidingWindowDecay` ``g(a) = 1 if a < W else 0`` -- the window ``(t - W, t]`` (strict, notes §9 item 5).
* :class:`ExponentialDecay` ``g(a) = exp(-λ a)``, λ > 0 -- smooth (ratio ``g(a)/g(a+A)`` constant in ``a``).
* :class:`PolynomialDecay` ``g(a) = (a + 1)^(-α)``, α > 0 -- smooth. (The paper reuses the symbol α for the
  per-level node budget of §3; swagkit calls the exponent ``exponent``, notes §9 item 17.)
* :class:`UserDecay` wraps any callable; its properties are checked numerically (:meth:`Decay.validate`,
  :meth:`Decay.is_smooth_on`), never trusted.

Smoothness (Definition 6: ``g'(a) g(a+A) <= g'(a+A) g(a)``) is equivalent to ``g(a)/g(a+A)`` non-increasing in
``a``, i.e. ``g`` log-convex (notes §1.2). Value division (§4.2) needs it and a positive ``g``; the sliding window
is not smooth. All weights are floats (``SlidingWindowDecay`` returns exactly 0.0 or 1.0).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from .errors import InvalidParameterError

__all__ = ["Decay", "SlidingWindowDecay", "ExponentialDecay", "PolynomialDecay", "UserDecay", "NoDecay"]


class Decay:
    """Base class: ``decay(age) -> weight``. Subclasses implement :meth:`weight`.

    ``smooth`` declares Definition 6 (checked by :meth:`is_smooth_on` for user decays); ``positive`` declares
    ``g(a) > 0`` for every age.
    """

    name = "decay"
    smooth = False
    positive = False

    def weight(self, age: int) -> float:
        raise NotImplementedError

    def __call__(self, age: int) -> float:
        if age < 0:
            raise InvalidParameterError(f"{self.name}: age must be non-negative, got {age}")
        return self.weight(age)

    def validate(self, horizon: int = 4096) -> None:
        """Check the decay-function axioms on ages ``0..horizon`` (and a geometric sample beyond): ``g(0) = 1``,
        ``0 <= g <= 1``, non-increasing. Raises :class:`InvalidParameterError` naming the first failure."""
        if self(0) != 1.0:
            raise InvalidParameterError(f"{self.name}: g(0) must be 1, got {self(0)!r}")
        prev = 1.0
        for a in _sample_ages(horizon):
            v = self(a)
            if not (0.0 <= v <= 1.0) or math.isnan(v):
                raise InvalidParameterError(f"{self.name}: g({a}) = {v!r} is outside [0, 1]")
            if v > prev:
                raise InvalidParameterError(f"{self.name}: not non-increasing, g({a}) = {v!r} > {prev!r}")
            prev = v

    def is_smooth_on(self, horizon: int = 4096, rel_tol: float = 1e-12) -> bool:
        """Numeric check of Definition 6 on integer ages ``0..horizon``: ``g > 0`` and the one-step log-ratio
        ``ln g(a) - ln g(a+1)`` non-increasing (discrete log-convexity, which makes ``g(a)/g(a+A)`` non-increasing
        in ``a`` for every span ``A``)."""
        prev_drop = math.inf
        g_prev = self(0)
        for a in range(horizon):
            g_next = self(a + 1)
            if g_prev <= 0.0 or g_next <= 0.0:
                return False
            drop = math.log(g_prev) - math.log(g_next)
            if drop > prev_drop + rel_tol * max(1.0, abs(prev_drop)):
                return False
            prev_drop, g_prev = drop, g_next
        return True

    def __repr__(self) -> str:
        return self.name


def _sample_ages(horizon: int) -> list[int]:
    ages = list(range(1, horizon + 1))
    a = horizon
    while a < 2**62:
        a *= 2
        ages.append(a)
    return ages


class NoDecay(Decay):
    """``g(a) = 1``: every item counts fully (the undecayed aggregates). Smooth and positive."""

    name = "no_decay"
    smooth = True
    positive = True

    def weight(self, age: int) -> float:
        return 1.0


class SlidingWindowDecay(Decay):
    """``g(a) = 1`` for ``a < W`` else 0 (paper 004 §2.2): the items with timestamps in ``(t - W, t]``.

    Not smooth (it is discontinuous), so value division refuses it; the window reduction handles it exactly as
    a single window query (§4.1: only the term ``w = W`` of the identity survives)."""

    smooth = False
    positive = False

    def __init__(self, window: int) -> None:
        if isinstance(window, bool) or not isinstance(window, int) or window < 1:
            raise InvalidParameterError(f"sliding window size must be an int >= 1, got {window!r}")
        self.window = window
        self.name = f"sliding_window({window})"

    def weight(self, age: int) -> float:
        return 1.0 if age < self.window else 0.0


class ExponentialDecay(Decay):
    """``g(a) = exp(-λ a)`` (paper 004 §2.2), λ > 0. Smooth with equality in Definition 6."""

    smooth = True
    positive = True

    def __init__(self, rate: float) -> None:
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (0.0 < float(rate) < math.inf):
            raise InvalidParameterError(f"exponential decay rate must be a finite number > 0, got {rate!r}")
        self.rate = float(rate)
        self.name = f"exponential({self.rate!r})"

    def weight(self, age: int) -> float:
        return math.exp(-self.rate * age)


class PolynomialDecay(Decay):
    """``g(a) = (a + 1)^(-exponent)`` (paper 004 §2.2, their α), exponent > 0. Smooth: ``g'/g = -α/(1+a)``
    increases with ``a``."""

    smooth = True
    positive = True

    def __init__(self, exponent: float) -> None:
        if (
            isinstance(exponent, bool)
            or not isinstance(exponent, (int, float))
            or not (0.0 < float(exponent) < math.inf)
        ):
            raise InvalidParameterError(f"polynomial decay exponent must be a finite number > 0, got {exponent!r}")
        self.exponent = float(exponent)
        self.name = f"polynomial({self.exponent!r})"

    def weight(self, age: int) -> float:
        return float((age + 1.0) ** -self.exponent)


class UserDecay(Decay):
    """A user-defined decay ``fn(age) -> weight``. ``smooth`` and ``positive`` are the user's *claims*: value
    division re-checks smoothness numerically (:meth:`Decay.is_smooth_on`) before trusting it, and
    :meth:`Decay.validate` checks the axioms at construction (ages ``0..validate_horizon``)."""

    def __init__(
        self,
        fn: Callable[[int], float],
        name: str = "user",
        *,
        smooth: bool = False,
        positive: bool = False,
        validate_horizon: int = 1024,
    ) -> None:
        if not callable(fn):
            raise InvalidParameterError("UserDecay needs a callable age -> weight")
        self.fn = fn
        self.name = name
        self.smooth = smooth
        self.positive = positive
        self.validate(validate_horizon)

    def weight(self, age: int) -> float:
        return float(self.fn(age))
