"""Invariants of DABA Lite (paper 000 §6, "DABA Lite Invariants": contents, aggRA, aggB, sizes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import DABALiteState
from ._common import Checker
from .daba import size_invariant_holds

WORDING = {
    "lF": "∀i ∈ 0…L−F−1: *(F+i) = v_i ⊗ … ⊗ v_(B−F−1)",
    "lL": "∀i ∈ L−F…R−F−1: *(F+i) = v_i ⊗ … ⊗ v_(R−F−1)",
    "lR": "∀i ∈ R−F…A−F−1: *(F+i) = v_i",
    "aggRA": "(L = R) ∨ (aggRA = v_(R−F) ⊗ … ⊗ v_(B−F−1))",
    "lA": "∀i ∈ A−F…B−F−1: *(F+i) = v_i ⊗ … ⊗ v_(B−F−1)",
    "lB": "∀i ∈ B−F…E−F−1: *(F+i) = v_i",
    "aggB": "aggB = v_(B−F) ⊗ … ⊗ v_(E−F−1)",
    "size": "(|lF| = 0 ∧ |lB| = 0) ∨ (|lL| + |lR| + |lA| + 1 = |lF| − |lB| ∧ |lL| = |lR|)",
    "deque": "the deque holds exactly the window: E − F = n",
}


def check_daba_lite(state: DABALiteState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check every DABA Lite invariant of ``state`` against the lifted ``window``. O(n) combines."""
    c = Checker("daba_lite", monoid, state, window)
    F, L, R, A, B, E = state.F, state.L, state.R, state.A, state.B, state.E
    c.check_pointer_order("FLRABE", (F, L, R, A, B, E))
    c.require(
        E - F == c.n and len(state.deque) == E,
        "deque",
        WORDING["deque"],
        f"E−F = {E - F}, len(deque) = {len(state.deque)}, window n = {c.n}",
    )
    d = state.deque
    l, r, a, b = L - F, R - F, A - F, B - F  # window indices of the sublist boundaries
    lf_suffix = c.suffixes(0, b)
    c.check_range("lF", WORDING["lF"], d[F:L], lf_suffix[:l], 0, "*(F+i)")
    c.check_range("lL", WORDING["lL"], d[L:R], c.suffixes(l, r), l, "*(F+i)")
    c.check_range("lR", WORDING["lR"], d[R:A], c.window[r:a], r, "*(F+i)")
    if L != R:
        want = c.fold(r, b - 1)
        c.require(c.equal(state.aggRA, want), "aggRA", WORDING["aggRA"], f"aggRA = {state.aggRA!r}, expected {want!r}")
    c.check_range("lA", WORDING["lA"], d[A:B], lf_suffix[a:b], a, "*(F+i)")
    c.check_range("lB", WORDING["lB"], d[B:E], c.window[b:], b, "*(F+i)")
    want_b = c.fold(b, c.n - 1)
    c.require(c.equal(state.aggB, want_b), "aggB", WORDING["aggB"], f"aggB = {state.aggB!r}, expected {want_b!r}")
    c.require(
        size_invariant_holds(F, L, R, A, B, E),
        "size",
        WORDING["size"],
        f"|lF|={B - F} |lL|={R - L} |lR|={A - R} |lA|={B - A} |lB|={E - B}",
    )
