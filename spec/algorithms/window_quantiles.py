"""Out-of-order window quantiles, ranges and heavy hitters (paper 004 §3.2–3.3 with defer merge, §4.1 for any
decay; Theorems 2 and 3). Not generic over a monoid: listed under ``count`` and run once. Checked against an
exact oracle by ``swagkit.verify.kinds.decay.debug``; contracts in :mod:`swagkit.spec.decay.bounds`."""

from __future__ import annotations

from ..checkers.window_quantiles import check_window_quantiles
from ..decay.snapshots import WindowQuantilesState
from .card import AlgorithmCard, approximate

CARD = AlgorithmCard(
    id="window_quantiles",
    title="Out-of-order window quantiles (defer merge)",
    paper="004 §3.2-3.3, §4.1 (Thm 2, 3)",
    class_name="SlidingWindowQuantiles",
    adt="time_decayed",
    snapshot=WindowQuantilesState,
    checker=check_window_quantiles,
    params={"time_bits": 10, "value_bits": 8, "eps": 0.5},
    takes_monoid=False,
    monoids=("count",),
    guarantees=approximate(error="ranks ±ε·D_w (any decay: ±ε·D)", space="α·(8b/ε+1) per level, α = (16/ε+7)T+1"),
    # provable level budget α = 200 and 224: the ladder discards on several levels within a differential run
    stress_params=({"time_bits": 8, "value_bits": 5, "eps": 0.9}, {"time_bits": 9, "value_bits": 4, "eps": 0.9}),
)
