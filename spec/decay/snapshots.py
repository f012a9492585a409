"""Plain snapshots of the time-decayed structures of paper 004, the common language of both implementations
and the checkers (:mod:`swagkit.spec.checkers.qdigest` and siblings).

Dyadic ranges are named by **heap ids** (notes §2.1): over a universe of ``bits`` bits the root is 1, the
children of ``v`` are ``2v`` and ``2v+1``, and the leaf of value ``x`` is ``2**bits + x``. :func:`node_range`
turns an id into its inclusive range ``[lo, hi]``. Node tuples are sorted by id, buffers by their natural order,
so two snapshots of the same logical state are equal.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "node_depth",
    "node_range",
    "QDigestState",
    "CountLevelState",
    "WindowCountState",
    "RangeNodeState",
    "RangeLevelState",
    "WindowQuantilesState",
    "SummaryState",
    "ValueDivisionState",
]


def node_depth(node: int) -> int:
    """Depth of heap id ``node`` (root 0)."""
    return node.bit_length() - 1


def node_range(node: int, bits: int) -> tuple[int, int]:
    """Inclusive range ``[lo, hi]`` of heap id ``node`` over a ``bits``-bit universe."""
    d = node.bit_length() - 1
    span = bits - d
    lo = (node - (1 << d)) << span
    return lo, lo + (1 << span) - 1


@dataclass(frozen=True)
class QDigestState:
    """A q-digest (paper 004 §3.1 box; Shrivastava et al.): stored dyadic ranges with counts.

    ``nodes`` holds ``(heap id, count)`` with count > 0, sorted by id; ``total`` is N, the summarized weight.
    ``compressed`` is True when nothing was inserted since the last compress (the size bound applies then);
    ``pending`` counts inserts since the last compress (the structure compresses itself after
    ``compress_period`` of them)."""

    universe_bits: int
    eps: float
    total: int
    nodes: tuple[tuple[int, int], ...]
    compressed: bool
    pending: int
    compress_period: int


@dataclass(frozen=True)
class CountLevelState:
    """Level ``j >= 1`` of the §3.1 ladder: a time-wise q-digest with fixed cap ``gamma`` (= 2**j) and cutoff
    ``tau`` (-1 until the level first discarded a range)."""

    level: int
    gamma: int
    tau: int
    nodes: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class WindowCountState:
    """Sliding-window count with out-of-order arrivals (paper 004 §3.1).

    ``buffer`` is Q_0: ``(timestamp, weight)`` of the ``alpha`` weight units with the largest timestamps, sorted;
    ``tau0`` the largest timestamp any weight was evicted from it (-1: none); ``levels`` are Q_1..Q_J.
    ``compressed``: no insert since the last SWCOMPRESS."""

    time_bits: int
    eps: float
    alpha: int
    now: int
    total: int
    buffer: tuple[tuple[int, int], ...]
    tau0: int
    levels: tuple[CountLevelState, ...]
    compressed: bool
    pending: int
    compress_period: int


@dataclass(frozen=True)
class RangeNodeState:
    """A time-wise node of the §3.2 ladder with its value-wise q-digest (defer merge): ``digest.total == count``."""

    node: int
    count: int
    digest: QDigestState


@dataclass(frozen=True)
class RangeLevelState:
    """Level ``j >= 1`` of the §3.2 ladder: time-wise cap ``gamma`` (= 2**(j-1)), cutoff ``tau``, nodes by id."""

    level: int
    gamma: int
    tau: int
    nodes: tuple[RangeNodeState, ...]


@dataclass(frozen=True)
class WindowQuantilesState:
    """Sliding-window range counts, quantiles and heavy hitters, defer-merge variant (paper 004 §3.2-3.3).

    ``buffer`` is Q_0 with ``(timestamp, value, weight)`` triples, sorted; value-wise digests use accuracy
    ``eps / 2`` relative to their own count."""

    time_bits: int
    value_bits: int
    eps: float
    alpha: int
    now: int
    total: int
    buffer: tuple[tuple[int, int, int], ...]
    tau0: int
    levels: tuple[RangeLevelState, ...]
    compressed: bool
    pending: int
    compress_period: int


@dataclass(frozen=True)
class SummaryState:
    """One value-division summary (paper 004 §4.2): timestamps ``[lo, hi]`` and a q-digest of their values."""

    lo: int
    hi: int
    digest: QDigestState


@dataclass(frozen=True)
class ValueDivisionState:
    """Value division (paper 004 §4.2): summaries newest first, disjoint, ``hi`` decreasing.

    ``maintained`` is True when no adjacent pair can be merged at time ``now`` (the count bound applies then)."""

    time_bits: int
    value_bits: int
    theta: float
    beta: float
    decay: str
    now: int
    total: int
    summaries: tuple[SummaryState, ...]
    maintained: bool
