"""river's rolling statistics as FIFO windows: ``utils.Rolling(stats.X, window_size=W)`` only updates -- an update
of a full window first reverts its oldest input -- so its contract is ``capacity=W,static``. ``VARIANCE`` is the
exact specification of ``stats.Var(ddof=1)`` (a user monoid: 002 Table 1's SampleStdDev squared, with river's
0.0 below two values)."""

from __future__ import annotations

import dataclasses
from typing import Any

from river import stats, utils

from swagkit.spec.library import variance_exact
from swagkit.verify.strategies import strategy_for

#: the window size of the adapters' factories
W = 4


class RiverRolling:
    def __init__(self, statistic: Any, monoid: Any, **options: Any) -> None:
        self.r, self.monoid = utils.Rolling(statistic, window_size=W, **options), monoid

    def insert(self, value: Any) -> None:
        self.r.update(value)

    def evict(self) -> None:
        raise NotImplementedError("river's Rolling has no evict (its contract is static)")

    def query(self) -> Any:
        return self.r.get()

    def __len__(self) -> int:
        return len(self.r.window)


def river_sum(monoid: Any) -> RiverRolling:
    return RiverRolling(stats.Sum, monoid)


def river_var(monoid: Any) -> RiverRolling:
    return RiverRolling(stats.Var, monoid, ddof=1)


def _river_sample_variance(v: Any) -> float:
    n, _, m2 = v
    return float(m2 / (n - 1)) if n >= 2 else 0.0


#: sample variance with river's convention (0.0 below two values), computed exactly (Chan's merge in Fractions)
VARIANCE = dataclasses.replace(variance_exact(sample=True), lower=_river_sample_variance, name="river_var")
VARIANCE_VALUES = strategy_for("variance_sample_exact")
