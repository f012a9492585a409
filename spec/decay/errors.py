"""Exceptions of the time-decayed, out-of-order structures (paper 004): q-digest, sliding-window count,
sliding-window ranges/quantiles/heavy hitters, value division, and the exact oracle that specifies them.

Every structure validates its input completely **before** it changes anything, so after any of these errors the
structure is unchanged, usable, and has lost nothing. Each error is a :class:`~swagkit.spec.errors.SwagkitError`
and also the builtin exception a Python programmer would expect (``ValueError``, ``TypeError``,
``OverflowError``), so ``except ValueError`` keeps working.

=================================  =================  ======================================================
error                              builtin            raised for
=================================  =================  ======================================================
:class:`InputTypeError`            ``TypeError``      a value, timestamp, weight or window that is not an
                                                      ``int`` (``bool`` is refused too)
:class:`OutOfUniverseError`        ``ValueError``     a value outside ``[0, 2**value_bits)`` or a timestamp /
                                                      time outside ``[0, 2**time_bits)``
:class:`FutureTimestampError`      ``ValueError``     a timestamp later than the current time ``now``
                                                      (paper 004 §1.1 leaves ``t_i > t`` undefined)
:class:`ClockError`                ``ValueError``     ``advance(t)`` to a time before the current time
:class:`NegativeWeightError`       ``ValueError``     a weight ``< 0``
:class:`InvalidParameterError`     ``ValueError``     ε, β outside (0, 1), θ <= 0, φ outside its range, universe
                                                      bits outside [1, 62], a too-small level budget α, a
                                                      decay that does not fit the structure
:class:`IncompatibleSummaryError`  ``ValueError``     merging summaries over different universes or ε
:class:`WeightOverflowError`       ``OverflowError``  the total weight would reach 2**62 (counts are int64
                                                      in the compiled layer)
=================================  =================  ======================================================
"""

from __future__ import annotations

from ..errors import SwagkitError

__all__ = [
    "InputTypeError",
    "OutOfUniverseError",
    "FutureTimestampError",
    "ClockError",
    "NegativeWeightError",
    "InvalidParameterError",
    "IncompatibleSummaryError",
    "WeightOverflowError",
    "MAX_BITS",
    "MAX_TOTAL_WEIGHT",
]

#: Largest universe width in bits: heap node ids ``< 2**(bits+1)`` must fit in a signed 64-bit integer.
MAX_BITS = 62

#: Total weight must stay below this (counts are int64 in the compiled layer; sums of two must not overflow).
MAX_TOTAL_WEIGHT = 2**62


class InputTypeError(SwagkitError, TypeError):
    """A value, timestamp, weight or window size that is not an ``int`` (``bool`` is refused). Nothing changed."""


class OutOfUniverseError(SwagkitError, ValueError):
    """A value or timestamp outside its configured universe ``[0, 2**bits)``. Nothing changed."""


class FutureTimestampError(SwagkitError, ValueError):
    """A timestamp later than the structure's current time ``now``; call ``advance(t)`` first. Nothing changed.

    Paper 004 never says how the query time relates to the timestamps (notes §1.1): with ``t_i > t`` the age is
    negative and both ``D_w`` and ``g(a_i)`` misbehave, so swagkit keeps an explicit clock and refuses them."""


class ClockError(SwagkitError, ValueError):
    """``advance(t)`` with ``t`` earlier than the current time: answers cannot be rewound (paper 004 Lemma 1)."""


class NegativeWeightError(SwagkitError, ValueError):
    """A negative weight: the summaries are not deletion-tolerant (paper 004 §7). Nothing changed."""


class InvalidParameterError(SwagkitError, ValueError):
    """A parameter outside its documented range (ε, β ∉ (0, 1), θ <= 0, φ ∉ [0, 1], bits ∉ [1, 62], α < 1, a
    decay that is not smooth for value division, …)."""


class IncompatibleSummaryError(SwagkitError, ValueError):
    """Merging summaries built with different universes or accuracies. Neither summary changed."""


class WeightOverflowError(SwagkitError, OverflowError):
    """The total weight would reach ``MAX_TOTAL_WEIGHT`` (2**62). Nothing changed."""
