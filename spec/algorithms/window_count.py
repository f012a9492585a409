"""Out-of-order sliding-window count (paper 004 §3.1, Theorem 1): levels of q-digests over time with fixed
thresholds, answering the decayed count of any window. Not generic over a monoid: listed under ``count`` and run
once. Checked against an exact oracle by ``swagkit.verify.kinds.decay.debug``; contracts in
:mod:`swagkit.spec.decay.bounds`."""

from __future__ import annotations

from ..checkers.window_count import check_window_count
from ..decay.snapshots import WindowCountState
from .card import AlgorithmCard, approximate

CARD = AlgorithmCard(
    id="window_count",
    title="Out-of-order window count",
    paper="004 §3.1 (Thm 1)",
    class_name="SlidingWindowCount",
    adt="time_decayed",
    snapshot=WindowCountState,
    checker=check_window_count,
    params={"time_bits": 12, "eps": 0.2},
    takes_monoid=False,
    monoids=("count",),
    guarantees=approximate(error="|D̂_w - D_w| <= ε·D_w", space="α per level, α = (8/ε+7)T+1"),
    # provable level budget α = 113 and 129: the ladder discards on several levels within a differential run
    stress_params=({"time_bits": 7, "eps": 0.9}, {"time_bits": 8, "eps": 0.9}),
)
