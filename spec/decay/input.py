"""Input contract of the time-decayed structures (paper 004), shared by the oracle, the reference and the
compiled layer so that all three refuse exactly the same input with exactly the same exception.

Conventions (notes §1.6, §9 items 11, 12, 16):

* values are integers in ``[0, 2**value_bits)`` (the paper's ``[1..U]`` versus ``[0, U)`` inconsistency is
  resolved towards the q-digest's ``[0, U)``);
* timestamps are integers in ``[0, 2**time_bits)``; the time universe is separate from any query window;
* every structure keeps a clock ``now`` (initially 0) moved forward only by ``advance(t)``; a timestamp must be
  ``<= now`` (no negative ages);
* weights are non-negative integers (weight 0 is accepted and changes nothing); the total stays below 2**62;
* accuracies ε and β lie in the open interval (0, 1); value division's spread θ is any finite number > 0.

Each ``check_*`` returns the validated value or raises the documented error from :mod:`.errors`.
"""

from __future__ import annotations

import math
import numbers
import operator
from fractions import Fraction
from typing import Any

from .errors import (
    MAX_BITS,
    MAX_TOTAL_WEIGHT,
    ClockError,
    FutureTimestampError,
    InputTypeError,
    InvalidParameterError,
    NegativeWeightError,
    OutOfUniverseError,
    WeightOverflowError,
)

__all__ = [
    "check_int",
    "check_bits",
    "check_accuracy",
    "check_spread",
    "check_phi",
    "check_value",
    "check_rank_point",
    "check_timestamp",
    "check_advance",
    "check_weight",
    "check_total",
    "check_window",
    "exact",
]


def check_int(x: Any, what: str) -> int:
    """``x`` as an ``int`` if it is an integer (``int``, numpy integers: any ``numbers.Integral``; not a
    ``bool``), else :class:`InputTypeError`."""
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise InputTypeError(f"{what} must be an int, got {type(x).__name__} {x!r}")
    return int(operator.index(x))


def check_bits(bits: Any, what: str) -> int:
    """A universe width in ``[1, 62]`` (:class:`InvalidParameterError` otherwise)."""
    b = check_int(bits, what)
    if not 1 <= b <= MAX_BITS:
        raise InvalidParameterError(f"{what} must be in [1, {MAX_BITS}], got {b}")
    return b


def check_accuracy(x: Any, what: str) -> float:
    """An accuracy parameter (ε, θ, β) in the open interval (0, 1), as a float."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):  # int, float, Fraction, numpy numbers
        raise InvalidParameterError(f"{what} must be a number in (0, 1), got {type(x).__name__} {x!r}")
    v = float(x)
    if not (0.0 < v < 1.0) or math.isnan(v):
        raise InvalidParameterError(f"{what} must lie in the open interval (0, 1), got {x!r}")
    return v


def check_spread(x: Any, what: str) -> float:
    """A spread parameter θ > 0 (finite), as a float: value division's summaries span a weight ratio ``1 + θ``
    (the paper's Fig. 3 uses θ = 1)."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise InvalidParameterError(f"{what} must be a number > 0, got {type(x).__name__} {x!r}")
    v = float(x)
    if not (0.0 < v < math.inf):
        raise InvalidParameterError(f"{what} must be a finite number > 0, got {x!r}")
    return v


def check_phi(phi: Any, *, open_low: bool = False) -> float:
    """A quantile / heavy-hitter fraction φ in ``[0, 1]`` (``(0, 1]`` with ``open_low``)."""
    if isinstance(phi, bool) or not isinstance(phi, numbers.Real):
        raise InvalidParameterError(f"phi must be a number in [0, 1], got {type(phi).__name__} {phi!r}")
    v = float(phi)
    if math.isnan(v) or v > 1.0 or v < 0.0 or (open_low and v == 0.0):
        raise InvalidParameterError(f"phi must lie in {'(0, 1]' if open_low else '[0, 1]'}, got {phi!r}")
    return v


def check_value(x: Any, bits: int) -> int:
    """A value of the universe ``[0, 2**bits)``."""
    v = check_int(x, "value")
    if not 0 <= v < (1 << bits):
        raise OutOfUniverseError(f"value {v} is outside the universe [0, 2**{bits})")
    return v


def check_rank_point(x: Any, bits: int) -> int:
    """A rank query point ``x`` in ``[0, 2**bits]`` (``rank(2**bits)`` is the total weight)."""
    v = check_int(x, "rank point")
    if not 0 <= v <= (1 << bits):
        raise OutOfUniverseError(f"rank point {v} is outside [0, 2**{bits}]")
    return v


def check_timestamp(t: Any, bits: int, now: int) -> int:
    """A timestamp of ``[0, 2**bits)`` that is not later than ``now``."""
    v = check_int(t, "timestamp")
    if not 0 <= v < (1 << bits):
        raise OutOfUniverseError(f"timestamp {v} is outside the time universe [0, 2**{bits})")
    if v > now:
        raise FutureTimestampError(f"timestamp {v} is later than the current time {now}; call advance({v}) first")
    return v


def check_advance(t: Any, bits: int, now: int) -> int:
    """A new current time: in ``[0, 2**bits)`` and not before ``now``."""
    v = check_int(t, "time")
    if not 0 <= v < (1 << bits):
        raise OutOfUniverseError(f"time {v} is outside the time universe [0, 2**{bits})")
    if v < now:
        raise ClockError(f"cannot move the clock back from {now} to {v} (answers are not rewound, paper 004 Lemma 1)")
    return v


def check_weight(w: Any) -> int:
    """A weight: a non-negative ``int``."""
    v = check_int(w, "weight")
    if v < 0:
        raise NegativeWeightError(f"weight must be non-negative, got {v}")
    return v


def check_total(total: int, added: int) -> None:
    """Refuse a total weight that would reach 2**62."""
    if total + added >= MAX_TOTAL_WEIGHT:
        raise WeightOverflowError(f"total weight {total} + {added} would reach 2**62")


def check_window(w: Any) -> int:
    """A window size: a non-negative ``int`` (``w`` covers timestamps in ``(now - w, now]``)."""
    v = check_int(w, "window")
    if v < 0:
        raise InvalidParameterError(f"window size must be non-negative, got {v}")
    return v


def exact(x: float) -> Fraction:
    """The exact rational value of a float parameter (thresholds are compared exactly, never rounded)."""
    return Fraction(x)
