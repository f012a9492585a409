"""Two-Stacks (paper 000 §3).

Front stack F (aggregated to the right, for eviction) and back stack B (aggregated to the left, for insertion),
each element a ``(val, agg)`` pair. Evicting from an empty F first *flips* B onto F.

Complexity (Theorem 3.2): 2n stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import TwoStacksState

from ._base import InOrderAggregator


class _Elem:
    """A stack element: the value ``val`` and the partial aggregate ``agg``."""

    __slots__ = ("val", "agg")

    def __init__(self, val: Any, agg: Any) -> None:
        self.val = val
        self.agg = agg


class TwoStacks(InOrderAggregator[Any, Any, Any]):
    """Two-Stacks SWAG (id ``two_stacks``). Amortized O(1), worst-case O(n) ⊗ per operation."""

    algorithm = "two_stacks"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        super().__init__(monoid)
        self.F: list[_Elem] = []  # top of stack = end of list
        self.B: list[_Elem] = []

    # private helpers ΠF and ΠB
    def _pi_F(self) -> Any:
        return self._one if not self.F else self.F[-1].agg

    def _pi_B(self) -> Any:
        return self._one if not self.B else self.B[-1].agg

    def query(self) -> Any:
        """``ΠF ⊗ ΠB``, lowered. One ⊗."""
        return self.monoid.lower(self._otimes(self._pi_F(), self._pi_B()))

    def insert(self, value: Any) -> None:
        """``B.push(v, ΠB ⊗ v)``. One ⊗."""
        v = self.monoid.lift(value)
        self.B.append(_Elem(v, self._otimes(self._pi_B(), v)))

    def evict(self) -> None:
        """Pop F, flipping B onto F first when F is empty. At most n ⊗, amortized one."""
        self._require_nonempty()
        if not self.F:  # Flip
            while self.B:
                top = self.B[-1]
                self.F.append(_Elem(top.val, self._otimes(top.val, self._pi_F())))
                self.B.pop()
        self.F.pop()

    def __len__(self) -> int:
        return len(self.F) + len(self.B)

    def snapshot(self) -> TwoStacksState:
        """``front[0]`` is the top of F (oldest), ``back[-1]`` the top of B (youngest)."""
        return TwoStacksState(
            front=tuple((e.val, e.agg) for e in reversed(self.F)),
            back=tuple((e.val, e.agg) for e in self.B),
        )


__all__ = ["TwoStacks"]
