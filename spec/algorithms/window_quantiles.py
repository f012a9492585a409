"""Out-of-order window quantiles, ranges and heavy hitters (paper 004 §3.2–3.3 with defer merge, §4.1 for any
decay; Theorems 2 and 3). Not generic over a monoid: listed under ``count`` and run once. Checked against an
exact oracle by ``swagkit.verify.decay_debug``; contracts in :mod:`swagkit.spec.decay_bounds`."""

from __future__ import annotations

from ..checkers.window_quantiles import check_window_quantiles
from ..decay_snapshots import WindowQuantilesState
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
)
