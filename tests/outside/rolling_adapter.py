"""PyPI ``rolling`` as a FIFO window: a ``window_type="variable"`` object grows by ``_add_new``, slides by
``_update_window`` once it holds ``window_size`` values and shrinks by ``_remove_old`` -- what its iterator does
(grow, slide, drain at the end of the input). Contract: ``capacity=W,no-evict-before-full,no-empty-ops``."""

from __future__ import annotations

from typing import Any

import rolling

#: the window size of the adapters' factories
W = 3


class RollingWindow:
    def __init__(self, operation: Any, monoid: Any, window_size: int = W) -> None:
        self.r, self.monoid = operation([], window_size, window_type="variable"), monoid

    def insert(self, value: Any) -> None:
        (self.r._update_window if self.r._obs == self.r.window_size else self.r._add_new)(value)

    def evict(self) -> None:
        self.r._remove_old()

    def query(self) -> Any:
        return self.r.current_value

    def __len__(self) -> int:
        return int(self.r._obs)


def rolling_max(monoid: Any) -> RollingWindow:
    return RollingWindow(rolling.Max, monoid)


def rolling_min(monoid: Any) -> RollingWindow:
    return RollingWindow(rolling.Min, monoid)


def rolling_sum(monoid: Any) -> RollingWindow:
    return RollingWindow(rolling.Sum, monoid)
