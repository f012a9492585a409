"""Two-Stacks Lite (paper 000 §4).

One deque with pointers F ≤ B ≤ E: the front sublist lF = [F, B) holds suffix aggregates, the back sublist
lB = [B, E) holds plain values, and ``aggB`` their aggregate. Evicting from an empty lF flips lB in place.

Complexity (Theorem 4.2): n+1 stored partial aggregates; ``query`` and ``insert`` invoke ⊗ exactly once;
``evict`` at most n times and amortized once. Pointer operations are worst-case O(1) (Definition 1).

Exception safety: *strong*. ``insert`` computes ``aggB ⊗ v`` (line 5) before it pushes ``v`` (lines 3–4), so a
``combine`` that refuses the value changes nothing. The flip (lines 10–15) rewrites lB in place, but each of its
⊗ reads the value that the previous step overwrote; so the suffix aggregates are computed aside first (a
transient list of up to n−1 references, freed when ``evict`` returns) and written into the deque only when the
flip's last ⊗ has returned. A ``combine`` that raises (or a Ctrl-C inside it) thus leaves the aggregator exactly
as it was. Re-entrant or concurrent calls are refused (:class:`~swagkit.spec.errors.ReentrantCallError`) before
anything changes; the structure is not thread-safe.
"""

from __future__ import annotations

from typing import Any

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import TwoStacksLiteState

from ._base import InOrderAggregator
from ._guard import guarded
from .chunked_deque import ChunkedDeque, Ptr


def check_snapshot(snapshot: Any) -> None:
    """Refuse (``ValueError``/``TypeError``) a snapshot whose shape cannot be a Two-Stacks Lite state:
    ``F = 0 ≤ B ≤ E = len(deque)``. O(1); shared by both implementations' ``_from_snapshot``."""
    if not isinstance(snapshot, TwoStacksLiteState):
        raise TypeError(f"two_stacks_lite: expected a TwoStacksLiteState, got {type(snapshot).__name__}")
    F, B, E = snapshot.F, snapshot.B, snapshot.E
    if not all(type(p) is int for p in (F, B, E)):
        raise TypeError("two_stacks_lite: a snapshot's pointers F, B, E are ints")
    if not (F == 0 <= B <= E == len(snapshot.deque)):
        raise ValueError(f"two_stacks_lite: malformed snapshot: F={F}, B={B}, E={E}, len(deque)={len(snapshot.deque)}")


class TwoStacksLite(InOrderAggregator[Any, Any, Any]):
    """Two-Stacks Lite SWAG (id ``two_stacks_lite``). Amortized O(1), worst-case O(n) ⊗ per operation.

    Exception safety *strong* (``exception_safety``): a raising ``combine`` leaves the aggregator exactly as
    before the operation; the flip computes its suffix aggregates aside (up to n−1 transient references) and
    writes them into lB only once its last ⊗ has returned.
    """

    algorithm = "two_stacks_lite"
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        super().__init__(monoid)
        self.deque: ChunkedDeque[Any] = ChunkedDeque()
        self.F: Ptr = self.deque.front()
        self.B: Ptr = self.F
        self.E: Ptr = self.F
        self.aggB: Any = self._one

    def _pi_F(self) -> Any:
        return self._one if self.F == self.B else self.deque.get(self.F)

    def _query(self) -> Any:
        """``ΠF ⊗ aggB``. One ⊗."""
        return self._otimes(self._pi_F(), self.aggB)

    def _insert(self, v: Any) -> None:
        """Push v onto lB and fold it into aggB. One ⊗, computed before the push."""
        aggB = self._otimes(self.aggB, v)  # line 5 first (no ⊗ in between): if it raises, nothing changed
        self.deque.push_back(v)
        self.E = self.E + 1
        self.aggB = aggB

    def _evict(self) -> None:
        """Pop the front; if lF is empty, first flip lB into suffix aggregates in place."""
        d = self.deque
        if self.F == self.B and self.B != self.E:  # Flip: *I ← *I ⊗ *(I+1) for I = E−2 … F, computed aside
            I = self.E - 1
            acc = d.get(I)
            suffixes: list[Any] = []
            while I != self.F:
                I = I - 1
                acc = self._otimes(d.get(I), acc)
                suffixes.append(acc)
            I = self.E - 1  # every ⊗ returned: commit
            for s in suffixes:
                I = I - 1
                d.set(I, s)
            self.B = self.E
            self.aggB = self._one
        self.F = self.F + 1
        d.pop_front()

    def __len__(self) -> int:
        return len(self.deque)

    @guarded
    def snapshot(self) -> TwoStacksLiteState:
        d = self.deque
        return TwoStacksLiteState(
            deque=tuple(d), F=d.offset(self.F), B=d.offset(self.B), E=d.offset(self.E), aggB=self.aggB
        )

    @classmethod
    def _from_snapshot(cls, monoid: Monoid[Any, Any, Any], snapshot: TwoStacksLiteState) -> TwoStacksLite:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call)."""
        check_snapshot(snapshot)
        agg = cls(monoid)
        agg.deque = d = ChunkedDeque.from_iterable(snapshot.deque)
        agg.F = d.front()
        agg.B = d.at(snapshot.B)
        agg.E = d.end()
        agg.aggB = snapshot.aggB
        return agg


__all__ = ["TwoStacksLite"]
