"""Value division (paper 004 §4.2, Theorem 4): summaries over age ranges whose decay weights differ by at most
``1+θ``, for smooth decay functions (registered with polynomial decay ``g(a) = (1+a)^-1``). Not generic over a
monoid: listed under ``count`` and run once. Checked against an exact oracle by ``swagkit.verify.kinds.decay.debug``;
contracts in :mod:`swagkit.spec.decay.bounds`."""

from __future__ import annotations

from ..checkers.value_division import check_value_division
from ..decay import ExponentialDecay, PolynomialDecay
from ..decay.snapshots import ValueDivisionState
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
    # the other smooth decay and coarser θ, β: digests merge within a differential run
    stress_params=(
        {"time_bits": 8, "value_bits": 5, "decay": ExponentialDecay(0.05), "theta": 0.3, "beta": 0.2},
        {"time_bits": 10, "value_bits": 6, "decay": PolynomialDecay(2.0), "theta": 0.05, "beta": 0.3},
    ),
)
