"""Two-Stacks Lite (paper 000 §4).

One deque with pointers F ≤ B ≤ E: the front sublist lF = [F, B) holds suffix aggregates, the back sublist
lB = [B, E) holds plain values, and ``aggB`` their aggregate. Evicting from an empty lF flips lB in place.

Complexity (Theorem 4.2): n+1 stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once. Pointer operations are worst-case O(1) (Definition 1).
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import TwoStacksLiteState

from ._base import InOrderAggregator
from .chunked_deque import ChunkedDeque, Ptr


class TwoStacksLite(InOrderAggregator[Any, Any, Any]):
    """Two-Stacks Lite SWAG (id ``two_stacks_lite``). Amortized O(1), worst-case O(n) ⊗ per operation."""

    algorithm = "two_stacks_lite"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        super().__init__(monoid)
        self.deque: ChunkedDeque[Any] = ChunkedDeque()
        self.F: Ptr = self.deque.front()
        self.B: Ptr = self.F
        self.E: Ptr = self.F
        self.aggB: Any = self._one

    def _pi_F(self) -> Any:
        return self._one if self.F == self.B else self.deque.get(self.F)

    def query(self) -> Any:
        """``ΠF ⊗ aggB``, lowered. One ⊗."""
        return self.monoid.lower(self._otimes(self._pi_F(), self.aggB))

    def insert(self, value: Any) -> None:
        """Push v onto lB and fold it into aggB. One ⊗."""
        v = self.monoid.lift(value)
        self.deque.push_back(v)
        self.E = self.E + 1
        self.aggB = self._otimes(self.aggB, v)

    def evict(self) -> None:
        """Pop the front; if lF is empty, first flip lB into suffix aggregates in place."""
        self._require_nonempty()
        d = self.deque
        if self.F == self.B and self.B != self.E:  # Flip
            I = self.E - 1
            while I != self.F:
                I = I - 1
                d.set(I, self._otimes(d.get(I), d.get(I + 1)))
            self.B = self.E
            self.aggB = self._one
        self.F = self.F + 1
        d.pop_front()

    def __len__(self) -> int:
        return len(self.deque)

    def snapshot(self) -> TwoStacksLiteState:
        d = self.deque
        return TwoStacksLiteState(
            deque=tuple(d), F=d.offset(self.F), B=d.offset(self.B), E=d.offset(self.E), aggB=self.aggB
        )


__all__ = ["TwoStacksLite"]
