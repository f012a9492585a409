"""Invariants of DABA (paper 000 §5, "DABA Invariants": values, partial aggregates, sizes, pointer order)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..monoid import Monoid
from ..snapshots import DABAState
from ._common import Checker

WORDING = {
    "values": "∀i ∈ 0…E−F−1: *(F+i).val = v_i",
    "lF": "∀i ∈ 0…L−F−1: *(F+i).agg = v_i ⊗ … ⊗ v_(B−F−1)",
    "lL": "∀i ∈ L−F…R−F−1: *(F+i).agg = v_i ⊗ … ⊗ v_(R−F−1)",
    "lR": "∀i ∈ R−F…A−F−1: *(F+i).agg = v_(R−F) ⊗ … ⊗ v_i",
    "lA": "∀i ∈ A−F…B−F−1: *(F+i).agg = v_i ⊗ … ⊗ v_(B−F−1)",
    "lB": "∀i ∈ B−F…E−F−1: *(F+i).agg = v_(B−F) ⊗ … ⊗ v_i",
    "size": "(|lF| = 0 ∧ |lB| = 0) ∨ (|lL| + |lR| + |lA| + 1 = |lF| − |lB| ∧ |lL| = |lR|)",
}


def size_invariant_holds(F: int, L: int, R: int, A: int, B: int, E: int) -> bool:
    """DABA's (and DABA Lite's) size invariants, shared by both checkers."""
    lF, lL, lR, lA, lB = B - F, R - L, A - R, B - A, E - B
    return (lF == 0 and lB == 0) or (lL + lR + lA + 1 == lF - lB and lL == lR)


def check_daba(state: DABAState, monoid: Monoid[Any, Any, Any], window: Sequence[Any]) -> None:
    """Check every DABA invariant of ``state`` against the lifted ``window``. O(n) combines."""
    c = Checker("daba", monoid, state, window)
    F, L, R, A, B, E = state.F, state.L, state.R, state.A, state.B, state.E
    c.check_pointer_order("FLRABE", (F, L, R, A, B, E))
    c.require(
        E - F == c.n and len(state.vals) == E and len(state.aggs) == E,
        "values",
        WORDING["values"],
        f"E−F = {E - F}, |vals| = {len(state.vals)}, |aggs| = {len(state.aggs)}, window n = {c.n}",
    )
    c.check_range("values", WORDING["values"], state.vals[F:E], c.window, 0, "*(F+i).val")
    aggs = state.aggs
    l, r, a, b = L - F, R - F, A - F, B - F  # window indices of the sublist boundaries
    lf_suffix = c.suffixes(0, b)  # v_i ⊗ … ⊗ v_(B−F−1) for every i < B−F
    c.check_range("lF", WORDING["lF"], aggs[F:L], lf_suffix[:l], 0, "*(F+i).agg")
    c.check_range("lL", WORDING["lL"], aggs[L:R], c.suffixes(l, r), l, "*(F+i).agg")
    c.check_range("lR", WORDING["lR"], aggs[R:A], c.prefixes(r, a), r, "*(F+i).agg")
    c.check_range("lA", WORDING["lA"], aggs[A:B], lf_suffix[a:b], a, "*(F+i).agg")
    c.check_range("lB", WORDING["lB"], aggs[B:E], c.prefixes(b, c.n), b, "*(F+i).agg")
    c.require(
        size_invariant_holds(F, L, R, A, B, E),
        "size",
        WORDING["size"],
        f"|lF|={B - F} |lL|={R - L} |lR|={A - R} |lA|={B - A} |lB|={E - B}",
    )
