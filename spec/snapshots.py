"""Plain snapshots of each algorithm's state, the common language of implementations and checkers.

Every implementation (reference, optimized, or a user's own) exposes ``snapshot()`` returning one of these
frozen dataclasses. Pointers are integer offsets from the physical front of the deque, so ``F == 0`` in every
healthy state; sublists are half-open ranges (``lL`` is ``[L, R)``, and so on) exactly as in paper 000.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["RecalcState", "TwoStacksState", "TwoStacksLiteState", "DABAState", "DABALiteState"]


@dataclass(frozen=True)
class RecalcState:
    """Recalculate-from-scratch: just the lifted window ``values`` (oldest first)."""

    values: tuple[Any, ...]


@dataclass(frozen=True)
class TwoStacksState:
    """Two-Stacks (000 §3). ``front[i]`` is ``F[i]`` and ``back[i]`` is ``B[i]``, both as ``(val, agg)`` pairs
    indexed from the left as in the paper: ``front[0]`` is the top of F (the oldest element), ``back[0]`` the
    bottom of B, ``back[-1]`` its top (the youngest)."""

    front: tuple[tuple[Any, Any], ...]
    back: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class TwoStacksLiteState:
    """Two-Stacks Lite (000 §4): one ``deque`` of partial aggregates, pointers ``F ≤ B ≤ E`` and ``aggB``."""

    deque: tuple[Any, ...]
    F: int
    B: int
    E: int
    aggB: Any


@dataclass(frozen=True)
class DABAState:
    """DABA (000 §5): per-element ``vals`` and ``aggs`` and pointers ``F ≤ L ≤ R ≤ A ≤ B ≤ E``."""

    vals: tuple[Any, ...]
    aggs: tuple[Any, ...]
    F: int
    L: int
    R: int
    A: int
    B: int
    E: int


@dataclass(frozen=True)
class DABALiteState:
    """DABA Lite (000 §6): one ``deque`` of partial aggregates, pointers ``F ≤ L ≤ R ≤ A ≤ B ≤ E``,
    ``aggRA`` and ``aggB``."""

    deque: tuple[Any, ...]
    F: int
    L: int
    R: int
    A: int
    B: int
    E: int
    aggRA: Any
    aggB: Any
