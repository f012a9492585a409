"""DABA Lite (paper 000 §6).

DABA with n+2 stored partial aggregates: left-aggregated sublists (lF, lL, lA) hold suffix aggregates, the
right sublists (lR, lB) hold plain values whose aggregates live in ``aggRA`` (of lR and lA together) and
``aggB``. ``fixup`` has the same four cases as DABA; shrink needs one ⊗ fewer.

Complexity (Theorem 6.2): n+2 stored partial aggregates; worst-case ⊗ per operation: query 1, insert 3,
evict 2; on average 2 per insert and 1 per evict. Pointer operations are worst-case O(1) (Definition 1).

Exception safety: *strong*. Every operation makes O(1) ⊗ calls, so it computes them all before it changes
anything: ``insert`` computes ``aggB ⊗ v`` (line 9) before the push (lines 7–8); ``fixup`` works out its case on
local copies of the pointers and of ``aggRA``/``aggB`` (singleton, [flip], shift or shrink), computes shrink's
two ⊗ and only then writes ``*L`` and ``*(A−1)`` and moves the pointers; ``evict`` pops the front only after
``fixup`` has returned, and ``insert`` undoes its push (``pop_back``) if ``fixup`` raises. A ``combine`` that
raises (or a Ctrl-C inside it) thus leaves the aggregator exactly as it was, with no transient memory.
Re-entrant or concurrent calls are refused (:class:`~swagkit.spec.errors.ReentrantCallError`) before anything
changes -- including from insert's first ⊗ --; the structure is not thread-safe.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import DABALiteState

from ._base import InOrderAggregator
from ._guard import guarded
from .chunked_deque import ChunkedDeque, Ptr
from .daba import check_pointers


def check_snapshot(snapshot: Any) -> None:
    """Refuse (``ValueError``/``TypeError``) a snapshot whose shape cannot be a DABA Lite state (pointers as in
    :func:`swagkit.reference.daba.check_pointers`, ``E = len(deque)``). O(1); shared by both implementations."""
    if not isinstance(snapshot, DABALiteState):
        raise TypeError(f"daba_lite: expected a DABALiteState, got {type(snapshot).__name__}")
    s = snapshot
    check_pointers("daba_lite", len(s.deque), (s.F, s.L, s.R, s.A, s.B, s.E))


class DABALite(InOrderAggregator[Any, Any, Any]):
    """DABA Lite SWAG (id ``daba_lite``): worst-case O(1) ⊗ per operation, n+2 partial aggregates.

    Exception safety *strong* (``exception_safety``): every ⊗ of an operation is computed before anything
    changes, so a raising ``combine`` leaves the aggregator exactly as before the operation.
    """

    algorithm = "daba_lite"
    exception_safety = "strong"

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

    def _query(self) -> Any:
        """``ΠF ⊗ aggB``. One ⊗."""
        return self._otimes(self._pi_F(), self.aggB)

    def _save(self) -> tuple[Any, ...]:
        return (self.F, self.L, self.R, self.A, self.B, self.E, self.aggRA, self.aggB, self.last_case)

    def _restore(self, saved: tuple[Any, ...]) -> None:
        self.F, self.L, self.R, self.A, self.B, self.E, self.aggRA, self.aggB, self.last_case = saved

    def _insert(self, v: Any) -> None:
        """``deque.pushBack(v); E ← E + 1; aggB ← aggB ⊗ v; fixup()``. At most 3 ⊗; line 9 is computed first
        (no ⊗ in between) and the push is undone if fixup raises."""
        aggB = self._otimes(self.aggB, v)
        saved = self._save()
        self.deque.push_back(v)
        self.E = self.E + 1
        self.aggB = aggB
        try:
            self._fixup()
        except BaseException:
            self._restore(saved)
            self.deque.pop_back()
            raise

    def _evict(self) -> None:
        """``F ← F + 1; deque.popFront(); fixup()``. At most 2 ⊗. The pop happens after fixup has returned
        (fixup reads F, never the popped element), so a raising fixup leaves everything as it was."""
        saved = self._save()
        self.F = self.F + 1
        try:
            self._fixup()
        except BaseException:
            self._restore(saved)
            raise
        self.deque.pop_front()

    def _fixup(self) -> None:
        """One step of incremental reversal: singleton, or [flip], then shift or shrink. The case is worked out
        on local copies of the pointers and aggregates, and shrink's ⊗ are computed before any field is written."""
        F, L, R, A, B, E = self.F, self.L, self.R, self.A, self.B, self.E
        one = self._one
        if F == B:  # Singleton case
            self.B = self.A = self.R = self.L = E
            self.aggRA = one
            self.aggB = one
            self.last_case = "singleton"
            return
        aggRA, aggB = self.aggRA, self.aggB
        case = ""
        if L == B:  # Flip
            L, A, B = F, E, E
            aggRA, aggB = aggB, one
            case = "flip+"
        if L == R:  # Shift
            self.L, self.R, self.A, self.B = L + 1, R + 1, A + 1, B
            self.aggRA, self.aggB = aggRA, aggB
            self.last_case = case + "shift"
            return
        # Shrink: *L ← ΠL ⊗ aggRA; L ← L + 1; *(A−1) ← *(A−1) ⊗ ΠA; A ← A − 1
        d = self.deque
        am1 = A - 1  # ≠ L, since |lL| = |lR| > 0 puts R between them
        new_l = self._otimes(d.get(L), aggRA)  # L ≠ R: ΠL = *L
        new_am1 = self._otimes(d.get(am1), one if A == B else d.get(A))
        d.set(L, new_l)  # every ⊗ returned: commit
        d.set(am1, new_am1)
        self.L, self.R, self.A, self.B = L + 1, R, am1, B
        self.aggRA, self.aggB = aggRA, aggB
        self.last_case = case + "shrink"

    def __len__(self) -> int:
        return len(self.deque)

    @guarded
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

    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: DABALiteState) -> DABALite:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call)."""
        check_snapshot(snapshot)
        agg = cls(monoid)
        agg.deque = d = ChunkedDeque.from_iterable(snapshot.deque)
        agg.F = d.front()
        agg.L, agg.R, agg.A, agg.B = (d.at(k) for k in (snapshot.L, snapshot.R, snapshot.A, snapshot.B))
        agg.E = d.end()
        agg.aggRA = snapshot.aggRA
        agg.aggB = snapshot.aggB
        return agg


__all__ = ["DABALite"]
