"""Two-Stacks (paper 000 §3).

Front stack F (aggregated to the right, for eviction) and back stack B (aggregated to the left, for insertion),
each element a ``(val, agg)`` pair. Evicting from an empty F first *flips* B onto F.

Complexity (Theorem 3.2): 2n stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once.

Exception safety: *strong*. Every operation computes its ⊗ results before it changes the stacks, so a
``combine`` that raises (or a Ctrl-C inside it) leaves the aggregator exactly as it was: the flip builds the new
F aside (n transient references) and installs it only when its last ⊗ has returned.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import TwoStacksState

from ._base import InOrderAggregator
from ._guard import guarded


class _Elem:
    """A stack element: the value ``val`` and the partial aggregate ``agg``."""

    __slots__ = ("val", "agg")

    def __init__(self, val: Any, agg: Any) -> None:
        self.val = val
        self.agg = agg


class TwoStacks(InOrderAggregator[Any, Any, Any]):
    """Two-Stacks SWAG (id ``two_stacks``). Amortized O(1), worst-case O(n) ⊗ per operation."""

    algorithm = "two_stacks"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        super().__init__(monoid)
        self.F: list[_Elem] = []  # top of stack = end of list
        self.B: list[_Elem] = []

    # private helpers ΠF and ΠB
    def _pi_F(self) -> Any:
        return self._one if not self.F else self.F[-1].agg

    def _pi_B(self) -> Any:
        return self._one if not self.B else self.B[-1].agg

    def _query(self) -> Any:
        """query: ``ΠF ⊗ ΠB``. One ⊗."""
        return self._otimes(self._pi_F(), self._pi_B())

    def _insert(self, v: Any) -> None:
        """insert(v): ``B.push(v, ΠB ⊗ v)``. One ⊗."""
        self.B.append(_Elem(v, self._otimes(self._pi_B(), v)))

    def _evict(self) -> None:
        """evict: pop F, flipping B onto F first when F is empty. At most n ⊗, amortized one."""
        if not self.F:  # Flip: F.push(B.top.val, B.top.val ⊗ ΠF) while B pops, built aside until done
            flipped: list[_Elem] = []
            for top in reversed(self.B):
                pi_F = flipped[-1].agg if flipped else self._one
                flipped.append(_Elem(top.val, self._otimes(top.val, pi_F)))
            self.F, self.B = flipped, []
        self.F.pop()

    def __len__(self) -> int:
        return len(self.F) + len(self.B)

    @guarded
    def snapshot(self) -> TwoStacksState:
        """``front[0]`` is the top of F (oldest), ``back[-1]`` the top of B (youngest)."""
        return TwoStacksState(
            front=tuple((e.val, e.agg) for e in reversed(self.F)),
            back=tuple((e.val, e.agg) for e in self.B),
        )

    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: TwoStacksState) -> TwoStacks:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call)."""
        agg = cls(monoid)
        agg.F = [_Elem(val, a) for val, a in reversed(snapshot.front)]
        agg.B = [_Elem(val, a) for val, a in snapshot.back]
        return agg


__all__ = ["TwoStacks"]
