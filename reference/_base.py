"""What every in-order reference aggregator shares: the monoid, the ``⊗`` counter, the public operations around
the paper's ``insert``/``evict``/``query`` steps, bulk loops and the empty check.

A subclass implements the paper's steps on *lifted* values -- ``_insert(v)``, ``_evict()`` (the window is not
empty), ``_query()`` (the aggregate, not lowered) -- plus ``__len__``, ``snapshot`` and ``_from_snapshot``. The
public methods here add what every algorithm needs around them: ``lift``/``lower``, the empty check, the
re-entry guard (:func:`~swagkit.reference._guard.guarded`), and bulk calls with all-or-nothing validation.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar, Generic, TypeVar

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.monoid import Monoid, as_monoid

from ._guard import Guarded, check_count, guarded

In = TypeVar("In")
Agg = TypeVar("Agg")
Out = TypeVar("Out")


class InOrderAggregator(Guarded, Generic[In, Agg, Out]):
    """Base of the in-order (FIFO) SWAG algorithms of papers 000 and 001.

    ``combine_count`` is the number of ``⊗`` invocations so far, counted as the pseudocode performs them
    (including a call that raised). ``exception_safety`` documents what a raising ``combine`` leaves behind:
    ``"strong"`` means exactly the state before the operation.
    """

    algorithm: ClassVar[str] = "abstract"
    exception_safety: ClassVar[str] = "strong"

    def __init__(self, monoid: Monoid[In, Agg, Out]) -> None:
        monoid = as_monoid(monoid, self.algorithm)
        self.monoid = monoid
        self.combine_count = 0
        self._combine = monoid.combine
        self._one: Agg = monoid.identity
        self._init_guard()

    def _otimes(self, a: Agg, b: Agg) -> Agg:
        """``a ⊗ b``, counted."""
        self.combine_count += 1
        return self._combine(a, b)

    # the paper's steps, on lifted values (every subclass overrides)
    def _insert(self, v: Agg) -> None:  # pragma: no cover
        raise NotImplementedError

    def _evict(self) -> None:  # pragma: no cover
        raise NotImplementedError

    def _query(self) -> Agg:  # pragma: no cover
        raise NotImplementedError

    def __len__(self) -> int:  # pragma: no cover - every subclass overrides
        raise NotImplementedError

    def _require_nonempty(self) -> None:
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: evict() on an empty window")

    @guarded
    def query(self) -> Out:
        """The lowered aggregate of the window, oldest to youngest (``lower(identity)`` when empty)."""
        return self.monoid.lower(self._query())

    @guarded
    def insert(self, value: In) -> None:
        """Insert ``value`` at the young end (lifted first: a value ``lift`` refuses changes nothing)."""
        self._insert(self.monoid.lift(value))

    @guarded
    def evict(self) -> None:
        """Evict the oldest value. Raises :class:`EmptyWindowError` (changing nothing) when empty."""
        self._require_nonempty()
        self._evict()

    @guarded
    def shift(self, value: In) -> Out:
        """One step of a static window in one call: evict the oldest value, insert ``value``, return ``query()``.

        The ⊗ sequence (and ``combine_count``) is exactly that of ``evict(); insert(value); query()``, so it is
        O(1) or amortized O(1) as they are; it exists because a per-item Python loop pays per call, and one call
        per item is the least a per-call API can cost. ``value`` is lifted and the window checked first: a
        refused value, or an empty window (:class:`EmptyWindowError`), changes nothing. If ``combine`` raises in
        the insertion, the eviction stays done (the window is one shorter and consistent; the exception's note
        says so); if it raises in the query, the window has shifted."""
        v = self.monoid.lift(value)
        if len(self) == 0:
            raise EmptyWindowError(f"{self.algorithm}: shift() on an empty window")
        self._evict()
        try:
            self._insert(v)
        except BaseException as err:
            err.add_note(f"swagkit {self.algorithm}: shift evicted the oldest value, then the insertion raised")
            raise
        return self.monoid.lower(self._query())

    @guarded
    def insert_many(self, values: Iterable[In]) -> None:
        """Insert each of ``values`` in order (same ⊗ sequence as that many ``insert`` calls).

        All values are lifted first, so a refused value changes nothing. If ``combine`` raises at the j-th
        insertion, the first j values stay inserted (each insertion is all-or-nothing) and the exception carries
        a note saying so."""
        lifted = [self.monoid.lift(v) for v in values]
        for j, v in enumerate(lifted):
            try:
                self._insert(v)
            except BaseException as err:
                err.add_note(f"swagkit {self.algorithm}: insert_many inserted {j} of {len(lifted)} values")
                raise

    @guarded
    def evict_many(self, count: int) -> None:
        """Evict the ``count`` oldest values. Raises :class:`EmptyWindowError` (evicting nothing) when fewer
        than ``count`` are held, ``ValueError``/``TypeError`` for a negative or non-integer count. If
        ``combine`` raises at the j-th eviction, the first j stay evicted (the exception's note says so)."""
        count = check_count(count)
        if count > len(self):
            raise EmptyWindowError(f"{self.algorithm}: evict_many({count}) on a window of {len(self)}")
        for j in range(count):
            try:
                self._evict()
            except BaseException as err:
                err.add_note(f"swagkit {self.algorithm}: evict_many evicted {j} of {count} values")
                raise

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.monoid.name}, n={len(self)})"
