"""Type stub of the compiled SlickDeque (paper 001 Algorithms 1 and 2); see the ``.pyx`` and
``swagkit.reference.slickdeque`` for semantics, complexity, exception safety (strong) and the paper reference."""

from collections.abc import Iterable
from typing import Any, Self

from swagkit.spec.monoid import Monoid
from swagkit.spec.snapshots import SlickDequeInvState, SlickDequeNonInvState

from ._stub_bases import SlickDeque

class SlickDequeNonInv(SlickDeque[SlickDequeNonInvState]):
    """SlickDeque (Non-Inv), compiled; same API, snapshots, ``combine_count``, exception safety and re-entry
    guard as the reference."""

    @property
    def first(self) -> int: ...
    @property
    def inserted(self) -> int: ...
    def __init__(self, monoid: Monoid[Any, Any, Any], ranges: Iterable[int] | None = None) -> None: ...
    def query_runs(self) -> list[tuple[int, Any]]: ...
    @classmethod
    def _from_snapshot(
        cls, monoid: Monoid[Any, Any, Any], snapshot: SlickDequeNonInvState, ranges: Iterable[int] | None = None
    ) -> Self: ...
    # the held operations SlickRange runs under both deques' guards
    def _acquire(self, operation: str) -> None: ...
    def _release(self) -> None: ...
    def _lift_value(self, value: Any) -> Any: ...
    def _plan_insert(self, v: Any) -> int: ...
    def _commit_insert(self, v: Any, pops: int) -> None: ...
    def _evict(self) -> None: ...
    def _query(self) -> Any: ...
    def _query_range(self, r: int) -> Any: ...
    def _query_all(self) -> dict[int, Any]: ...

class SlickDequeInv(SlickDeque[SlickDequeInvState]):
    """SlickDeque (Inv), compiled; same API, snapshots, ``combine_count``, ``inverse_count``, exception safety and
    re-entry guard as the reference."""

    inverse_count: int
    @property
    def recompute_every(self) -> int: ...
    def __init__(
        self, monoid: Monoid[Any, Any, Any], ranges: Iterable[int] | None = None, *, recompute_every: int | None = None
    ) -> None: ...
    @classmethod
    def _from_snapshot(
        cls,
        monoid: Monoid[Any, Any, Any],
        snapshot: SlickDequeInvState,
        ranges: Iterable[int] | None = None,
        recompute_every: int | None = None,
        since: int = 0,
        inverse_count: int = 0,
        tracks: Any = None,
    ) -> Self: ...

def _window_array(cls: Any, monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled ``window_array`` fast path: ``array.array`` ('d'/'q') for typed kinds, else a list."""

def _window_sum(monoid: Any, values: Iterable[Any], window: int) -> Any:
    """Compiled kernel of ``window_sum`` (``include/window_sum.h``): ``array('d')`` for sum_f64, ``array('q')``
    for sum_i64."""
