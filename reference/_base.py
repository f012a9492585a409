"""What every reference aggregator shares: the monoid, the ``⊗`` counter, bulk loops and the empty check."""

from __future__ import annotations

from typing import Any, ClassVar, Generic, Iterable, TypeVar

from swagkit.spec.errors import EmptyWindowError, SwagkitError
from swagkit.spec.monoid import Monoid

In = TypeVar("In")
Agg = TypeVar("Agg")
Out = TypeVar("Out")


class InOrderAggregator(Generic[In, Agg, Out]):
    """Base of the in-order (FIFO) SWAG algorithms of paper 000.

    Subclasses implement ``insert``, ``evict``, ``query``, ``__len__`` and ``snapshot``. ``combine_count`` is
    the number of ``⊗`` invocations so far, counted as the pseudocode performs them.
    """

    algorithm: ClassVar[str] = "abstract"

    def __init__(self, monoid: Monoid[In, Agg, Out]) -> None:
        self.monoid = monoid
        self.combine_count = 0
        self._combine = monoid.combine
        self._one: Agg = monoid.identity
        #: set while an update runs its ⊗ steps; stays set if a ⊗ raised half-way (see :meth:`_check_usable`)
        self._broken = False

    def _otimes(self, a: Agg, b: Agg) -> Agg:
        """``a ⊗ b``, counted."""
        self.combine_count += 1
        return self._combine(a, b)

    def _check_usable(self) -> None:
        """Refuse updates once a ``combine`` call raised half-way through an earlier one (or re-entered one).

        The paper's algorithms assume ``⊗`` returns; a user's combine that raises in the middle of DABA's fixup
        leaves pointers that break the size invariants, and going on would compute garbage. Like the compiled
        implementation, the aggregator then raises :class:`SwagkitError` on every further update."""
        if self._broken:
            raise SwagkitError(
                f"{self.algorithm}: a combine call raised during an earlier insert/evict (or re-entered one); "
                "the aggregator is inconsistent and can no longer be updated"
            )

    def _require_nonempty(self) -> None:
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: evict() on an empty window")

    def __len__(self) -> int:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def insert(self, value: In) -> None:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def evict(self) -> None:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same cost as that many ``insert`` calls)."""
        for v in values:
            self.insert(v)

    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest values. Raises :class:`EmptyWindowError` (evicting nothing) when fewer
        than ``count`` are held and ``ValueError`` for a negative count."""
        if count < 0:
            raise ValueError("evict_many: count must be non-negative")
        if count > len(self):
            raise EmptyWindowError(f"{self.algorithm}: evict_many({count}) on a window of {len(self)}")
        for _ in range(count):
            self.evict()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
