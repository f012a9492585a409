"""Snapshot and invariants of Subtract-on-Evict (paper 000 §8.3; paper 001 §2, "Panes (Inv)" / R-Int).

Paper 000 §8.3 names the algorithm without pseudocode: "subtract-on-evict is a simple algorithm that only works
when subtraction is well-defined, in other words, when the ⊗ operator is invertible". Its state is the FIFO of
the window's lifted values and one running aggregate; the invariants below say what that aggregate is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..monoid import Monoid
from ._common import Checker

__all__ = ["SubtractOnEvictState", "check_subtract_on_evict", "WORDING"]


@dataclass(frozen=True)
class SubtractOnEvictState:
    """Subtract-on-Evict: the lifted window ``values`` (oldest first) and the running aggregate ``agg``."""

    values: tuple[Any, ...]
    agg: Any


WORDING = {
    "values": "the FIFO holds the window's values v_1 … v_n, oldest first",
    "agg": "agg = v_1 ⊗ … ⊗ v_n (the identity when the window is empty)",
}


def check_subtract_on_evict(state: SubtractOnEvictState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check both invariants of ``state`` against the lifted ``window``. O(n) combines."""
    c = Checker("subtract_on_evict", monoid, state, window)
    c.require(
        len(state.values) == c.n, "values", WORDING["values"], f"{len(state.values)} values stored, window n = {c.n}"
    )
    c.check_range("values", WORDING["values"], state.values, c.window, 0, "value")
    want = c.fold(0, c.n - 1)
    c.require(c.equal(state.agg, want), "agg", WORDING["agg"], f"agg = {state.agg!r}, expected {want!r}")
