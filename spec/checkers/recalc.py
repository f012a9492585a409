"""Invariant of recalculate-from-scratch (000 §8.1): the stored values are exactly the lifted window."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import RecalcState
from ._common import Checker

WORDING = {"values": "the queue holds the window data v0, …, v(n-1) in arrival order"}


def check_recalc(state: RecalcState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check that ``state.values`` equals the lifted ``window``."""
    c = Checker("recalc", monoid, state, window)
    c.require(len(state.values) == c.n, "values", WORDING["values"], f"{len(state.values)} stored, n = {c.n}")
    c.check_range("values", WORDING["values"], state.values, c.window, 0, "value")
