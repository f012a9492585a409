"""Invariants of Two-Stacks (paper 000 §3, "Two-Stacks Invariants")."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import TwoStacksState
from ._common import Checker

WORDING = {
    "size": "the stacks F and B together hold the window v0, …, v(n-1)",
    "F.val": "∀i ∈ 0…|F|−1: F[i].val = v_i",
    "F.agg": "∀i ∈ 0…|F|−1: F[i].agg = v_i ⊗ … ⊗ v_(|F|−1)",
    "B.val": "∀i ∈ |F|…|F|+|B|−1: B[i−|F|].val = v_i",
    "B.agg": "∀i ∈ |F|…|F|+|B|−1: B[i−|F|].agg = v_|F| ⊗ … ⊗ v_i",
}


def check_two_stacks(state: TwoStacksState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Raise :class:`~swagkit.spec.errors.InvariantViolation` unless ``state`` satisfies every invariant for the
    lifted ``window`` (oldest first). O(n) combines."""
    c = Checker("two_stacks", monoid, state, window)
    nf, nb = len(state.front), len(state.back)
    c.require(nf + nb == c.n, "size", WORDING["size"], f"|F|+|B| = {nf}+{nb} but the window has n={c.n}")
    c.check_range("F.val", WORDING["F.val"], [p[0] for p in state.front], c.window[:nf], 0, "F[i].val")
    c.check_range("F.agg", WORDING["F.agg"], [p[1] for p in state.front], c.suffixes(0, nf), 0, "F[i].agg")
    c.check_range("B.val", WORDING["B.val"], [p[0] for p in state.back], c.window[nf:], nf, "B[i-|F|].val")
    c.check_range("B.agg", WORDING["B.agg"], [p[1] for p in state.back], c.prefixes(nf, c.n), nf, "B[i-|F|].agg")
