"""Helpers shared by the invariant checkers: range folds over the model window and failure reporting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import InvariantViolation
from ..monoid import Monoid


class Checker:
    """Holds what a checker needs and raises :class:`InvariantViolation` with the paper's wording."""

    def __init__(self, algorithm: str, monoid: Monoid[Any, Any, Any], state: Any, window: Sequence[Any]) -> None:
        self.algorithm = algorithm
        self.monoid = monoid
        self.state = state
        self.window = list(window)
        self.n = len(self.window)

    def fail(self, invariant: str, wording: str, detail: str) -> None:
        raise InvariantViolation(self.algorithm, invariant, wording, detail, self.state)

    def require(self, ok: bool, invariant: str, wording: str, detail: str) -> None:
        if not ok:
            self.fail(invariant, wording, detail)

    def equal(self, got: Any, want: Any) -> bool:
        return bool(self.monoid.eq(got, want))

    def fold(self, i: int, j: int) -> Any:
        """``v_i ⊗ … ⊗ v_j`` (inclusive) of the model window; the identity when ``i > j``."""
        if i > j:
            return self.monoid.identity
        acc = self.window[i]
        for k in range(i + 1, j + 1):
            acc = self.monoid.combine(acc, self.window[k])
        return acc

    def suffixes(self, lo: int, hi: int) -> list[Any]:
        """``[v_i ⊗ … ⊗ v_(hi-1) for i in lo..hi-1]`` in O(hi - lo) combines (aggregated to the left)."""
        out: list[Any] = []
        acc = None
        for i in range(hi - 1, lo - 1, -1):
            acc = self.window[i] if acc is None else self.monoid.combine(self.window[i], acc)
            out.append(acc)
        out.reverse()
        return out

    def prefixes(self, lo: int, hi: int) -> list[Any]:
        """``[v_lo ⊗ … ⊗ v_i for i in lo..hi-1]`` in O(hi - lo) combines (aggregated to the right)."""
        out: list[Any] = []
        acc = None
        for i in range(lo, hi):
            acc = self.window[i] if acc is None else self.monoid.combine(acc, self.window[i])
            out.append(acc)
        return out

    def check_range(
        self,
        invariant: str,
        wording: str,
        stored: Sequence[Any],
        expected: Sequence[Any],
        first_index: int,
        label: str,
    ) -> None:
        """Compare ``stored[k]`` with ``expected[k]``; report the window index ``first_index + k`` on failure."""
        for k, (got, want) in enumerate(zip(stored, expected)):
            if not self.equal(got, want):
                i = first_index + k
                self.fail(invariant, wording, f"{label} at window index i={i}: stored {got!r}, expected {want!r}")

    def check_pointer_order(self, names: str, values: Sequence[int]) -> None:
        order = " ≤ ".join(names)
        for (a, pa), (b, pb) in zip(zip(names, values), zip(names[1:], values[1:])):
            self.require(
                pa <= pb,
                "pointer order",
                f"The pointers are always ordered as follows: {order}",
                f"{a}={pa} > {b}={pb} (pointers {dict(zip(names, values))})",
            )
