"""Subtract-on-Evict (paper 000 §8.3; paper 001 §2, "Panes (Inv)", also known as R-Int).

Paper 000 §8.3: "subtract-on-evict is a simple algorithm that only works when subtraction is well-defined, in
other words, when the ⊗ operator is invertible". State: a FIFO of the window's lifted values v_1 … v_n and one
running aggregate ``agg = v_1 ⊗ … ⊗ v_n``.

* ``insert(v)``: ``agg ← agg ⊗ v``, push v. One ⊗.
* ``evict()``: ``agg ← inverse(v_1) ⊗ agg``, pop v_1. One ⊗ (and one ``inverse`` call); none when the window
  becomes empty: ``agg ← identity`` then, as SlickDeque (Inv) does, which keeps ``agg`` exactly the identity.
  The *left* inverse is what makes it exact for non-commutative groups: ``v_1⁻¹ ⊗ (v_1 ⊗ … ⊗ v_n)``.
* ``query()``: ``agg``. No ⊗.

Complexity: worst-case 1 ⊗ per insert and evict, 0 per query; n values + 1 aggregate stored. Exact invertible
monoids only: constructing it over any other monoid raises :class:`~swagkit.spec.errors.UnsupportedMonoidError`,
``sum_f64`` included (declared non-invertible: ``a + b − b ≠ a`` in floats, and this algorithm has no drift
control; :class:`~swagkit.reference.SlickDequeInv` accepts it with periodic recomputation).

Exception safety: *strong*. Every ``inverse`` and ⊗ result is computed before the FIFO or ``agg`` changes, so a
raising ``combine``/``inverse``/``lift`` leaves the structure exactly as it was; ``combine_count`` and
``inverse_count`` count every call, including one that raised. Re-entrant or concurrent calls are refused
(:class:`~swagkit.spec.errors.ReentrantCallError`) before anything changes. Copies and pickles go by snapshot,
with both counters.

>>> from swagkit.spec.library import sum_monoid
>>> agg = SubtractOnEvict(sum_monoid())
>>> agg.insert_many([3, 1, 4])
>>> agg.evict()
>>> agg.query(), agg.combine_count, agg.inverse_count
(5, 4, 1)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from swagkit.spec.checkers.subtract_on_evict import SubtractOnEvictState
from swagkit.spec.errors import UnsupportedMonoidError
from swagkit.spec.monoid import Monoid, as_monoid
from swagkit.spec.slickdeque import GENERAL_ALGORITHMS

from ._base import InOrderAggregator
from ._guard import guarded
from .slickdeque import restored_value_check

__all__ = ["SubtractOnEvict", "require_group", "check_snapshot"]

ALGORITHM = "subtract_on_evict"


def require_group(monoid: Monoid[Any, Any, Any]) -> Callable[[Any], Any]:
    """The inverse of ``monoid``, which must be declared invertible with an ``inverse``; otherwise raise
    :class:`UnsupportedMonoidError` naming algorithms that accept it. Unlike SlickDeque (Inv)
    (:func:`swagkit.spec.slickdeque.require_invertible`) ``sum_f64`` is refused: there is no drift control here.
    Shared by both implementations, so both refuse the same monoids with the same message."""
    if monoid.invertible and monoid.inverse is not None:
        return monoid.inverse
    alternatives = list(GENERAL_ALGORITHMS)
    if monoid.selective:
        alternatives.insert(0, "slickdeque_noninv")
    why = ""
    if monoid.fast_path == "sum_f64":
        alternatives.insert(0, "slickdeque_inv")
        why = " (float sums drift under subtraction, and this algorithm never refolds)"
    raise UnsupportedMonoidError(
        f"{ALGORITHM} needs an exact invertible monoid (declared invertible=True with an inverse); {monoid.name!r} "
        f"is not{why}. Algorithms that accept it: {', '.join(alternatives)}"
    )


def check_snapshot(snapshot: Any, inverse_count: Any = 0) -> None:
    """Refuse (``TypeError``/``ValueError``) what cannot be a Subtract-on-Evict state or counter; shared by both
    implementations' ``_from_snapshot``."""
    if not isinstance(snapshot, SubtractOnEvictState):
        raise TypeError(f"{ALGORITHM}: expected a SubtractOnEvictState, got {type(snapshot).__name__}")
    if not isinstance(snapshot.values, tuple):
        raise TypeError(f"{ALGORITHM}: a snapshot's values are a tuple, got {type(snapshot.values).__name__}")
    if isinstance(inverse_count, bool) or not isinstance(inverse_count, int):
        raise TypeError(f"{ALGORITHM}: inverse_count must be an int, got {type(inverse_count).__name__}")
    if not 0 <= inverse_count < 2**63:
        raise ValueError(f"{ALGORITHM}: inverse_count out of range: {inverse_count}")


class SubtractOnEvict(InOrderAggregator[Any, Any, Any]):
    """Subtract-on-Evict SWAG (id ``subtract_on_evict``, paper 000 §8.3) over an invertible monoid: worst-case
    1 ⊗ per insert and evict, 0 per query, n+1 stored values. ``inverse_count`` counts calls of the monoid's
    ``inverse`` (one per evict that leaves the window non-empty).

    Exception safety: *strong* (every ``inverse`` and ⊗ before any change).
    """

    algorithm = ALGORITHM
    exception_safety = "strong"

    def __init__(self, monoid: Monoid[Any, Any, Any]) -> None:
        monoid = as_monoid(monoid, self.algorithm)
        self._inverse: Callable[[Any], Any] = require_group(monoid)
        super().__init__(monoid)
        self.values: deque[Any] = deque()
        self.agg: Any = self._one
        self.inverse_count = 0

    def _inv(self, x: Any) -> Any:
        """``x⁻¹``, counted (also when it raises)."""
        self.inverse_count += 1
        return self._inverse(x)

    def _insert(self, v: Any) -> None:
        """``agg ← agg ⊗ v``, then push v. One ⊗, computed first."""
        agg = self._otimes(self.agg, v)
        self.values.append(v)
        self.agg = agg

    def _evict(self) -> None:
        """``agg ← inverse(v_1) ⊗ agg`` (the identity, with no ⊗, when v_1 is the only value), then pop v_1."""
        agg = self._otimes(self._inv(self.values[0]), self.agg) if len(self.values) > 1 else self._one
        self.values.popleft()
        self.agg = agg

    def _query(self) -> Any:
        """``agg``. No ⊗."""
        return self.agg

    def __len__(self) -> int:
        return len(self.values)

    @guarded
    def snapshot(self) -> SubtractOnEvictState:
        return SubtractOnEvictState(values=tuple(self.values), agg=self.agg)

    def _params(self) -> dict[str, Any]:
        """``inverse_count`` (not in the snapshot) travels with copies and pickles."""
        return {"inverse_count": self.inverse_count}

    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: SubtractOnEvictState, inverse_count: int = 0
    ) -> SubtractOnEvict:
        """The aggregator whose :meth:`snapshot` is ``snapshot`` (copying and pickling; no ⊗ call). Typed values
        are validated as the compiled class stores them (:func:`~.slickdeque.restored_value_check`)."""
        check_snapshot(snapshot, inverse_count)
        agg = cls(monoid)
        check = restored_value_check(agg.monoid)
        if check is not None:
            for x in (*snapshot.values, snapshot.agg):
                check(x)
        agg.values = deque(snapshot.values)
        agg.agg = snapshot.agg
        agg.inverse_count = inverse_count
        return agg
