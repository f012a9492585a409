"""DABA Lite (paper 000 §6).

DABA with n+2 stored partial aggregates: left-aggregated sublists (lF, lL, lA) hold suffix aggregates, the
right sublists (lR, lB) hold plain values whose aggregates live in ``aggRA`` (of lR and lA together) and
``aggB``. ``fixup`` has the same four cases as DABA; shrink needs one ⊗ fewer.

Complexity (Theorem 6.2): n+2 stored partial aggregates; worst-case ⊗ per operation: query 1, insert 3,
evict 2; on average 2 per insert and 1 per evict. Pointer operations are worst-case O(1) (Definition 1).
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import DABALiteState

from ._base import InOrderAggregator
from .chunked_deque import ChunkedDeque, Ptr


class DABALite(InOrderAggregator[Any, Any, Any]):
    """DABA Lite SWAG (id ``daba_lite``): worst-case O(1) ⊗ per operation, n+2 partial aggregates."""

    algorithm = "daba_lite"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        super().__init__(monoid)
        self.deque: ChunkedDeque[Any] = ChunkedDeque()
        self.F: Ptr = self.deque.front()
        self.L = self.R = self.A = self.B = self.E = self.F
        self.aggRA: Any = self._one
        self.aggB: Any = self._one
        #: name of the last fixup case, for tests and traces
        self.last_case = ""

    def _pi_F(self) -> Any:
        return self._one if self.F == self.B else self.deque.get(self.F)

    def _pi_L(self) -> Any:
        return self._one if self.L == self.R else self.deque.get(self.L)

    def _pi_A(self) -> Any:
        return self._one if self.A == self.B else self.deque.get(self.A)

    def query(self) -> Any:
        """``ΠF ⊗ aggB``, lowered. One ⊗."""
        return self.monoid.lower(self._otimes(self._pi_F(), self.aggB))

    def insert(self, value: Any) -> None:
        """``deque.pushBack(v); E ← E + 1; aggB ← aggB ⊗ v; fixup()``. At most 3 ⊗."""
        self._check_usable()
        v = self.monoid.lift(value)
        aggB = self._otimes(self.aggB, v)  # line 9 computed first (no ⊗ in between): if it raises, nothing changed
        self.deque.push_back(v)
        self.E = self.E + 1
        self.aggB = aggB
        self._broken = True  # until fixup has run all its ⊗ steps
        self._fixup()
        self._broken = False

    def evict(self) -> None:
        """``F ← F + 1; deque.popFront(); fixup()``. At most 2 ⊗."""
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
            self.aggRA = self._one
            self.aggB = self._one
            self.last_case = "singleton"
            return
        case = ""
        if self.L == self.B:  # Flip
            self.L, self.A, self.B = self.F, self.E, self.E
            self.aggRA = self.aggB
            self.aggB = self._one
            case = "flip+"
        if self.L == self.R:  # Shift
            self.A, self.R, self.L = self.A + 1, self.R + 1, self.L + 1
            self.last_case = case + "shift"
        else:  # Shrink
            d = self.deque
            d.set(self.L, self._otimes(self._pi_L(), self.aggRA))
            self.L = self.L + 1
            d.set(self.A - 1, self._otimes(d.get(self.A - 1), self._pi_A()))
            self.A = self.A - 1
            self.last_case = case + "shrink"

    def __len__(self) -> int:
        return len(self.deque)

    def snapshot(self) -> DABALiteState:
        d = self.deque
        return DABALiteState(
            deque=tuple(d),
            F=d.offset(self.F),
            L=d.offset(self.L),
            R=d.offset(self.R),
            A=d.offset(self.A),
            B=d.offset(self.B),
            E=d.offset(self.E),
            aggRA=self.aggRA,
            aggB=self.aggB,
        )


__all__ = ["DABALite"]
