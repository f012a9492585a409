"""Invariants of Two-Stacks Lite (paper 000 §4, "Two-Stacks Lite Invariants")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import TwoStacksLiteState
from ._common import Checker

WORDING = {
    "size": "pointer F points to the start of deque, B between start and end, E to the end",
    "lF": "∀i ∈ 0…B−F−1: *(F+i) = v_i ⊗ … ⊗ v_(B−F−1)",
    "lB": "∀i ∈ B−F…E−F−1: *(F+i) = v_i",
    "aggB": "aggB = *B ⊗ … ⊗ *(E−1)",
}


def check_two_stacks_lite(state: TwoStacksLiteState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check the Two-Stacks Lite invariants of ``state`` against the lifted ``window``. O(n) combines."""
    c = Checker("two_stacks_lite", monoid, state, window)
    F, B, E = state.F, state.B, state.E
    c.check_pointer_order("FBE", (F, B, E))
    c.require(
        E - F == c.n and len(state.deque) == E,
        "size",
        WORDING["size"],
        f"E−F = {E - F}, len(deque) = {len(state.deque)}, window n = {c.n}",
    )
    nf = B - F
    c.check_range("lF", WORDING["lF"], state.deque[F:B], c.suffixes(0, nf), 0, "*(F+i)")
    c.check_range("lB", WORDING["lB"], state.deque[B:E], c.window[nf:], nf, "*(F+i)")
    want = c.fold(nf, c.n - 1)
    c.require(c.equal(state.aggB, want), "aggB", WORDING["aggB"], f"aggB = {state.aggB!r}, expected {want!r}")
