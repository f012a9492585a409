"""DABA, the De-Amortized Banker's Aggregator (paper 000 §5).

One deque of ``(val, agg)`` elements and six pointers F ≤ L ≤ R ≤ A ≤ B ≤ E delimiting the sublists
lF = [F, L) ∪ … (front, aggregated to the left), lL = [L, R), lR = [R, A), lA = [A, B) and lB = [B, E) (back,
aggregated to the right). Instead of Two-Stacks' late, expensive flip, every ``insert`` and ``evict`` runs one
step of ``fixup``: one of the cases *singleton*, *flip*, *shift* or *shrink*, which reverses the aggregation
direction incrementally.

Complexity (Theorem 5.2): 2n stored partial aggregates; worst-case ⊗ per operation: query 1, insert 4,
evict 3; on average 2.5 per insert and 1.5 per evict. Pointer operations are worst-case O(1) (Definition 1).

Exception safety: *strong*. Every operation makes O(1) ⊗ calls, so it computes them all before it changes
anything: ``insert`` computes ``ΠB ⊗ v`` before the push; ``fixup`` works out its case on local copies of the
pointers (singleton, [flip], shift or shrink), computes shrink's three ⊗ and only then writes the two ``agg``
fields and moves the pointers; ``evict`` pops the front only after ``fixup`` has returned, and ``insert`` undoes
its push (``pop_back``) if ``fixup`` raises. A ``combine`` that raises (or a Ctrl-C inside it) thus leaves the
aggregator exactly as it was, with no transient memory. Re-entrant or concurrent calls are refused
(:class:`~swagkit.spec.errors.ReentrantCallError`) before anything changes; the structure is not thread-safe.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.checkers.daba import size_invariant_holds
from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import DABAState

from ._base import InOrderAggregator
from ._guard import guarded
from .chunked_deque import ChunkedDeque, Ptr


class _Elem:
    """A deque element: window value ``val`` and partial aggregate ``agg``."""

    __slots__ = ("val", "agg")

    def __init__(self, val: Any, agg: Any) -> None:
        self.val = val
        self.agg = agg


def check_pointers(algorithm: str, n: int, pointers: tuple[Any, ...]) -> None:
    """Refuse (``ValueError``/``TypeError``) snapshot pointers ``F, L, R, A, B, E`` that are not ints with
    ``F = 0 ≤ L ≤ R ≤ A ≤ B ≤ E = n`` satisfying DABA's size invariants (DABA Lite's are the same). O(1); shared
    by both implementations' ``_from_snapshot``: pointers that break these would walk out of the deque."""
    if not all(type(p) is int for p in pointers):
        raise TypeError(f"{algorithm}: a snapshot's pointers F, L, R, A, B, E are ints")
    F, L, R, A, B, E = pointers
    if not (F == 0 <= L <= R <= A <= B <= E == n) or not size_invariant_holds(F, L, R, A, B, E):
        raise ValueError(f"{algorithm}: malformed snapshot: F={F} L={L} R={R} A={A} B={B} E={E}, n={n}")


def check_snapshot(snapshot: Any) -> None:
    """Refuse a snapshot whose shape cannot be a DABA state (see :func:`check_pointers`)."""
    if not isinstance(snapshot, DABAState):
        raise TypeError(f"daba: expected a DABAState, got {type(snapshot).__name__}")
    if len(snapshot.vals) != len(snapshot.aggs):
        raise ValueError(f"daba: malformed snapshot: {len(snapshot.vals)} vals but {len(snapshot.aggs)} aggs")
    s = snapshot
    check_pointers("daba", len(s.vals), (s.F, s.L, s.R, s.A, s.B, s.E))


class DABA(InOrderAggregator[Any, Any, Any]):
    """DABA SWAG (id ``daba``): worst-case O(1) ⊗ per operation.

    Exception safety *strong* (``exception_safety``): every ⊗ of an operation is computed before anything
    changes, so a raising ``combine`` leaves the aggregator exactly as before the operation.
    """

    algorithm = "daba"
    exception_safety = "strong"

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

    def _query(self) -> Any:
        """``ΠF ⊗ ΠB``. One ⊗."""
        return self._otimes(self._pi_F(), self._pi_B())

    def _save(self) -> tuple[Any, ...]:
        return (self.F, self.L, self.R, self.A, self.B, self.E, self.last_case)

    def _restore(self, saved: tuple[Any, ...]) -> None:
        self.F, self.L, self.R, self.A, self.B, self.E, self.last_case = saved

    def _insert(self, v: Any) -> None:
        """``deque.pushBack(v, ΠB ⊗ v); E ← E + 1; fixup()``. At most 4 ⊗; the push is undone if fixup raises."""
        elem = _Elem(v, self._otimes(self._pi_B(), v))
        saved = self._save()
        self.deque.push_back(elem)
        self.E = self.E + 1
        try:
            self._fixup()
        except BaseException:
            self._restore(saved)
            self.deque.pop_back()
            raise

    def _evict(self) -> None:
        """``F ← F + 1; deque.popFront(); fixup()``. At most 3 ⊗. The pop happens after fixup has returned
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
        on local copies of the pointers and shrink's ⊗ are all computed before any field is written."""
        F, L, R, A, B, E = self.F, self.L, self.R, self.A, self.B, self.E
        if F == B:  # Singleton case
            self.B = self.A = self.R = self.L = E
            self.last_case = "singleton"
            return
        case = ""
        if L == B:  # Flip
            L, A, B = F, E, E
            case = "flip+"
        if L == R:  # Shift
            self.L, self.R, self.A, self.B = L + 1, R + 1, A + 1, B
            self.last_case = case + "shift"
            return
        # Shrink: *L.agg ← ΠL ⊗ ΠR ⊗ ΠA; L ← L + 1; *(A−1).agg ← *(A−1).val ⊗ ΠA; A ← A − 1
        d = self.deque
        one = self._one
        elem_l = d.get(L)  # L ≠ R: ΠL = *L.agg
        pi_r = one if R == A else d.get(A - 1).agg
        pi_a = one if A == B else d.get(A).agg  # A ≠ L, so the first write does not change ΠA
        agg_l = self._otimes(self._otimes(elem_l.agg, pi_r), pi_a)
        a1 = d.get(A - 1)
        agg_a1 = self._otimes(a1.val, pi_a)
        elem_l.agg = agg_l  # every ⊗ returned: commit
        a1.agg = agg_a1
        self.L, self.R, self.A, self.B = L + 1, R, A - 1, B
        self.last_case = case + "shrink"

    def __len__(self) -> int:
        return len(self.deque)

    @guarded
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

    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: DABAState) -> DABA:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call)."""
        check_snapshot(snapshot)
        agg = cls(monoid)
        agg.deque = d = ChunkedDeque.from_iterable(_Elem(v, a) for v, a in zip(snapshot.vals, snapshot.aggs))
        agg.F = d.front()
        agg.L, agg.R, agg.A, agg.B = (d.at(k) for k in (snapshot.L, snapshot.R, snapshot.A, snapshot.B))
        agg.E = d.end()
        return agg


__all__ = ["DABA"]
