"""Type stub of the compiled sliding-window count (paper 004 §3.1); see the ``.pyx`` for complexity."""

from collections.abc import Iterable
from typing import Any, Self

from swagkit.spec.decay.snapshots import WindowCountState

from ._stub_bases import TimeLevels

class SlidingWindowCount(TimeLevels[WindowCountState]):
    """Out-of-order sliding-window count with relative error ε, compiled; same API, snapshots and answers as
    ``swagkit.reference.SlidingWindowCount``."""

    def __init__(self, time_bits: int, eps: float, alpha: int | None = None) -> None: ...
    def insert(self, timestamp: int, weight: int = 1) -> None: ...
    def insert_many(self, timestamps: Iterable[int]) -> None: ...
    @classmethod
    def _from_snapshot(cls, monoid: Any, snapshot: Any, *, time_bits: int, eps: float, alpha: int) -> Self: ...
