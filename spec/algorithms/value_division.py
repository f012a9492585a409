"""Value division (paper 004 §4.2, Theorem 4): summaries over age ranges whose decay weights differ by at most
``1+θ``, for smooth decay functions (registered with polynomial decay ``g(a) = (1+a)^-1``). Not generic over a
monoid: listed under ``count`` and run once. Checked against an exact oracle by ``swagkit.verify.decay_debug``;
contracts in :mod:`swagkit.spec.decay_bounds`."""

from __future__ import annotations

from ..checkers.value_division import check_value_division
from ..decay import PolynomialDecay
from ..decay_snapshots import ValueDivisionState
from .card import AlgorithmCard, approximate

CARD = AlgorithmCard(
    id="value_division",
    title="Value division (smooth decay)",
    paper="004 §4.2 (Thm 4)",
    class_name="ValueDivision",
    adt="time_decayed",
    snapshot=ValueDivisionState,
    checker=check_value_division,
    params={"time_bits": 12, "value_bits": 8, "decay": PolynomialDecay(1.0), "theta": 0.1, "beta": 0.1},
    takes_monoid=False,
    monoids=("count",),
    guarantees=approximate(error="ranks ±(θ+β+θβ)·D", space="2⌈ln(1/g(A))/ln(1+θ)⌉+1 digests"),
)
