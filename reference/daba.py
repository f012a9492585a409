"""DABA, the De-Amortized Banker's Aggregator (paper 000 §5).

One deque of ``(val, agg)`` elements and six pointers F ≤ L ≤ R ≤ A ≤ B ≤ E delimiting the sublists
lF = [F, L) ∪ … (front, aggregated to the left), lL = [L, R), lR = [R, A), lA = [A, B) and lB = [B, E) (back,
aggregated to the right). Instead of Two-Stacks' late, expensive flip, every ``insert`` and ``evict`` runs one
step of ``fixup``: one of the cases *singleton*, *flip*, *shift* or *shrink*, which reverses the aggregation
direction incrementally.

Complexity (Theorem 5.2): 2n stored partial aggregates; worst-case ⊗ per operation: query 1, insert 4,
evict 3; on average 2.5 per insert and 1.5 per evict. Pointer operations are worst-case O(1) (Definition 1).
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import DABAState

from ._base import InOrderAggregator
from .chunked_deque import ChunkedDeque, Ptr


class _Elem:
    """A deque element: window value ``val`` and partial aggregate ``agg``."""

    __slots__ = ("val", "agg")

    def __init__(self, val: Any, agg: Any) -> None:
        self.val = val
        self.agg = agg


class DABA(InOrderAggregator[Any, Any, Any]):
    """DABA SWAG (id ``daba``): worst-case O(1) ⊗ per operation."""

    algorithm = "daba"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        super().__init__(monoid)
        self.deque: ChunkedDeque[_Elem] = ChunkedDeque()
        self.F: Ptr = self.deque.front()
        self.L = self.R = self.A = self.B = self.E = self.F
        #: name of the last fixup case (``singleton``, ``flip+shift``, ``shrink`` …), for tests and traces
        self.last_case = ""

    # private helpers Π_p: the aggregate of sublist l_p, or 1 when it is empty
    def _pi_F(self) -> Any:
        return self._one if self.F == self.B else self.deque.get(self.F).agg

    def _pi_B(self) -> Any:
        return self._one if self.B == self.E else self.deque.get(self.E - 1).agg

    def _pi_L(self) -> Any:
        return self._one if self.L == self.R else self.deque.get(self.L).agg

    def _pi_R(self) -> Any:
        return self._one if self.R == self.A else self.deque.get(self.A - 1).agg

    def _pi_A(self) -> Any:
        return self._one if self.A == self.B else self.deque.get(self.A).agg

    def query(self) -> Any:
        """``ΠF ⊗ ΠB``, lowered. One ⊗."""
        return self.monoid.lower(self._otimes(self._pi_F(), self._pi_B()))

    def insert(self, value: Any) -> None:
        """``deque.pushBack(v, ΠB ⊗ v); E ← E + 1; fixup()``. At most 4 ⊗."""
        self._check_usable()
        v = self.monoid.lift(value)
        self.deque.push_back(_Elem(v, self._otimes(self._pi_B(), v)))
        self.E = self.E + 1
        self._broken = True  # until fixup has run all its ⊗ steps
        self._fixup()
        self._broken = False

    def evict(self) -> None:
        """``F ← F + 1; deque.popFront(); fixup()``. At most 3 ⊗."""
        self._require_nonempty()
        self._check_usable()
        self._broken = True
        self.F = self.F + 1
        self.deque.pop_front()
        self._fixup()
        self._broken = False

    def _fixup(self) -> None:
        """One step of incremental reversal: singleton, or [flip], then shift or shrink."""
        if self.F == self.B:  # Singleton case
            self.B = self.A = self.R = self.L = self.E
            self.last_case = "singleton"
            return
        case = ""
        if self.L == self.B:  # Flip
            self.L, self.A, self.B = self.F, self.E, self.E
            case = "flip+"
        if self.L == self.R:  # Shift
            self.A, self.R, self.L = self.A + 1, self.R + 1, self.L + 1
            self.last_case = case + "shift"
        else:  # Shrink
            d = self.deque
            d.get(self.L).agg = self._otimes(self._otimes(self._pi_L(), self._pi_R()), self._pi_A())
            self.L = self.L + 1
            a1 = d.get(self.A - 1)
            a1.agg = self._otimes(a1.val, self._pi_A())
            self.A = self.A - 1
            self.last_case = case + "shrink"

    def __len__(self) -> int:
        return len(self.deque)

    def snapshot(self) -> DABAState:
        d = self.deque
        elems = d.to_list()
        return DABAState(
            vals=tuple(e.val for e in elems),
            aggs=tuple(e.agg for e in elems),
            F=d.offset(self.F),
            L=d.offset(self.L),
            R=d.offset(self.R),
            A=d.offset(self.A),
            B=d.offset(self.B),
            E=d.offset(self.E),
        )


__all__ = ["DABA"]
