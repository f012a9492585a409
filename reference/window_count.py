"""Approximate sliding-window count with out-of-order arrivals (paper 004 §3.1, Theorem 1).

Estimate ``D_w(t) = Σ{w_i : t - t_i < w}`` for any window ``w`` chosen at query time, with relative error ε,
whatever the arrival order. The structure (Fig. 1(b)):

* **Q_0**, an exact buffer of the α weight units with the largest timestamps; ``τ_0`` is the largest timestamp
  any weight was evicted from it (-1: none). A window with ``t - w >= τ_0`` is answered exactly from Q_0.
* **Q_1 … Q_J**, q-digests over the *time* universe ``[0, 2^T)`` with the **fixed** cap ``γ(j) = 2^j``, each kept
  to at most α ranges by discarding the oldest ones; ``τ_j`` is the largest right end ever discarded from Q_j
  (only rises), and every item with timestamp ``> τ_j`` is still counted in Q_j.

SWUPDATE records the item in Q_0 and in every level with ``t > τ_j``; SWCOMPRESS (every α updates) compresses
each level at its cap, then keeps the α **rightmost** ranges in post-order, raises ``τ_j`` to the largest
discarded right end and drops kept ranges ending at or before it. SWQUERY(w) uses level ℓ, the smallest index
with ``τ_ℓ <= t - w``, and returns ``Σ{c(r) : lo(r) > t - w}`` -- an **under**-estimate by at most ``T·2^ℓ``.

Corrections to the paper (notes §3, §9):

* **The buffer is counted** (§9 item 1): Alg. 3.1 inserts only items evicted from Q_0 into the levels, but
  Alg. 3.3 answers from Q_ℓ alone, dropping up to α items. swagkit inserts every arrival into every level
  (variant A of notes §3.9), so each level is self-contained.
* **Estimator direction** (§9 item 2): ``Σ{c(r) : l > τ}`` *under*-estimates; Eq. (1) states an over-estimate.
* **Level budget** (§9 item 3): ``α = 9T/ε`` does not follow; the default is the provable
  ``α = ⌈(8/ε + 7)·T + 1⌉`` (:func:`swagkit.spec.decay_bounds.window_count_alpha_min` has the proof sketch).
  Smaller α may be passed for experiments; the guarantee then lapses and the checker reports it.
* **Ties at the cutoff**: Q_0 may keep part of the weight at ``τ_0``, so the fullness argument uses
  ``#{t_i >= τ_0} >= α`` (the paper's ``rr(τ_0)`` counts only ``> τ_0``).
* **Levels grow online** (§9 item 13): the top level never discards; just before it would, a copy becomes the
  new top level (its counts are ``<= 2^J <= 2^(J+1)``, so the copy is a valid level J+1 and loses nothing).
* ``t - w < 0`` is clamped to -1 (§3.9 (d)); the ℓ search is a linear scan, since ``τ_j`` need not be monotone
  in j (§9 item 14).
* Compress runs to a fixed point (see :mod:`swagkit.reference.qdigest`) so that every family sums to ``>= γ``
  before truncation, which the fullness argument needs.

Weighted updates: a weight w is w items at one timestamp; Q_0 evicts weight units (partially, if needed).

Complexity: update O(J) expected plus the amortized SWCOMPRESS (O(J·α log α) every α updates), query
O(α + J); space at most ``α`` ranges per level after compress (``2α`` between compressions) and
``J <= log2(N/α) + 3`` levels: O((T/ε) log(εN/T)) (Theorem 1).
"""

from __future__ import annotations

import heapq
from typing import Iterable

from swagkit.spec.decay_bounds import window_count_alpha_min
from swagkit.spec.decay_errors import InvalidParameterError
from swagkit.spec.decay_input import (
    check_accuracy,
    check_advance,
    check_bits,
    check_int,
    check_timestamp,
    check_total,
    check_weight,
    check_window,
)
from swagkit.spec.decay_snapshots import CountLevelState, WindowCountState, node_range

__all__ = ["SlidingWindowCount", "compress_fixed_cap"]


def compress_fixed_cap(nodes: dict[int, int], limit: int) -> list[tuple[int, int, int]]:
    """QDCOMPRESS with a fixed threshold: merge (to a fixed point) every family whose sum is ``< limit`` into its
    parent; same visiting order as :meth:`swagkit.reference.qdigest.QDigest.compress`. Returns the merges done,
    as ``(parent, left child, right child)`` heap ids, in order (the range ladder merges value digests along)."""
    merges: list[tuple[int, int, int]] = []
    if limit <= 1:
        return merges
    changed = True
    while changed:
        changed = False
        order = [-v for v in nodes]
        heapq.heapify(order)
        while order:
            v = -heapq.heappop(order)
            if v == 1 or v not in nodes:
                continue
            sib = v ^ 1
            if v & 1 == 0 and sib in nodes:
                continue
            parent = v >> 1
            had_parent = parent in nodes
            family = nodes.get(parent, 0) + nodes[v] + nodes.get(sib, 0)
            if family < limit:
                nodes[parent] = family
                del nodes[v]
                nodes.pop(sib, None)
                merges.append((parent, v & ~1, v | 1))
                if not had_parent:
                    heapq.heappush(order, -parent)
                changed = True
    return merges


def post_order_key(node: int, bits: int) -> tuple[int, int]:
    """Sort key of the §3.1 truncation: increasing right end, ties smaller range (larger id) first."""
    return node_range(node, bits)[1], -node


class _Level:
    """One time-wise q-digest Q_j: fixed cap ``gamma``, cutoff ``tau`` and ``nodes`` (heap id -> count)."""

    __slots__ = ("gamma", "tau", "nodes")

    def __init__(self, gamma: int, tau: int = -1, nodes: dict[int, int] | None = None) -> None:
        self.gamma = gamma
        self.tau = tau
        self.nodes: dict[int, int] = nodes if nodes is not None else {}


class SlidingWindowCount:
    """Out-of-order sliding-window count with relative error ε (paper 004 §3.1; id ``window_count``).

    >>> c = SlidingWindowCount(time_bits=8, eps=0.5)
    >>> c.advance(100)
    >>> for t in (99, 40, 100, 97, 10):      # any order
    ...     c.insert(t)
    >>> c.count(4), c.count(101)             # timestamps in (96, 100], and everything
    (3, 5)
    """

    algorithm = "window_count"
    #: level caps are γ(j) = 2^(j + GAMMA_SHIFT)
    GAMMA_SHIFT = 0

    def __init__(self, time_bits: int, eps: float, alpha: int | None = None) -> None:
        self._bits = check_bits(time_bits, "time_bits")
        self._eps = check_accuracy(eps, "eps")
        self.alpha_min = self._alpha_min()
        if alpha is None:
            alpha = self.alpha_min
        a = check_int(alpha, "alpha")
        if a < 1:
            raise InvalidParameterError(f"alpha must be >= 1, got {a}")
        self._alpha = a
        self.now = 0
        self._total = 0
        self._q0: dict[int, int] = {}  # timestamp -> weight
        self._q0_heap: list[int] = []  # distinct timestamps of Q_0 (min-heap)
        self._q0_weight = 0
        self._tau0 = -1
        self._levels: list[_Level] = [_Level(self._gamma(1))]
        self._pending = 0
        #: updates between SWCOMPRESS runs
        self.compress_period = self._alpha

    def _alpha_min(self) -> int:
        return window_count_alpha_min(self._bits, self._eps)

    def _gamma(self, j: int) -> int:
        return 1 << (j + self.GAMMA_SHIFT)

    # -- parameters ----------------------------------------------------------------------------------------------

    @property
    def time_bits(self) -> int:
        """T: timestamps lie in ``[0, 2**T)``."""
        return self._bits

    @property
    def eps(self) -> float:
        """ε: relative error of every window count."""
        return self._eps

    @property
    def alpha(self) -> int:
        """α: size of Q_0 (in weight units) and range budget of every level."""
        return self._alpha

    @property
    def total(self) -> int:
        """Total weight received."""
        return self._total

    def level_count(self) -> int:
        """J, the number of q-digest levels."""
        return len(self._levels)

    def node_count(self) -> int:
        """Stored ranges over all levels plus distinct timestamps in Q_0 (the space in the paper's unit)."""
        return len(self._q0) + sum(len(lv.nodes) for lv in self._levels)

    # -- updates -------------------------------------------------------------------------------------------------

    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``; :class:`ClockError` otherwise)."""
        self.now = check_advance(t, self._bits, self.now)

    def insert(self, timestamp: int, weight: int = 1) -> None:
        """SWUPDATE (Alg. 3.1, variant A): record ``weight`` items stamped ``timestamp <= now``.

        Bad input (type, universe, future timestamp, negative weight, overflow) raises before any change."""
        t = check_timestamp(timestamp, self._bits, self.now)
        w = check_weight(weight)
        check_total(self._total, w)
        if w == 0:
            return
        self._total += w
        self._buffer_insert(t, w)
        leaf = (1 << self._bits) + t
        for level in self._levels:
            if t > level.tau:
                level.nodes[leaf] = level.nodes.get(leaf, 0) + w
        self._pending += 1
        if self._pending >= self.compress_period:
            self.compress()

    def insert_many(self, timestamps: Iterable[int]) -> None:
        """Insert each timestamp with weight 1 (all validated first: on bad input nothing is inserted)."""
        ts = [check_timestamp(t, self._bits, self.now) for t in timestamps]
        check_total(self._total, len(ts))
        for t in ts:
            self.insert(t)

    def _buffer_insert(self, t: int, w: int) -> None:
        """Q_0 ← Q_0 ∪ {t}; evict the smallest timestamps' weight beyond α, raising τ_0."""
        if t in self._q0:
            self._q0[t] += w
        else:
            self._q0[t] = w
            heapq.heappush(self._q0_heap, t)
        self._q0_weight += w
        excess = self._q0_weight - self._alpha
        while excess > 0:
            oldest = self._q0_heap[0]
            take = min(excess, self._q0[oldest])
            self._q0[oldest] -= take
            self._q0_weight -= take
            excess -= take
            if oldest > self._tau0:
                self._tau0 = oldest
            if self._q0[oldest] == 0:
                del self._q0[oldest]
                heapq.heappop(self._q0_heap)

    def compress(self) -> None:
        """SWCOMPRESS (Alg. 3.2): per level, compress at the cap, then (if over α ranges) truncate to the α
        rightmost ranges in post-order and raise τ_j. The top level is copied upwards before its first discard."""
        self._pending = 0
        j = 0
        while j < len(self._levels):
            level = self._levels[j]
            self._compress_level(level)
            if len(level.nodes) > self._alpha:
                if j == len(self._levels) - 1:  # the top level is about to discard for the first time
                    self._levels.append(self._copy_up(level, j + 2))
                self._truncate(level)
            j += 1

    def _compress_level(self, level: _Level) -> None:
        compress_fixed_cap(level.nodes, level.gamma)

    def _copy_up(self, level: _Level, j: int) -> _Level:
        return _Level(self._gamma(j), -1, dict(level.nodes))

    def _truncate(self, level: _Level) -> None:
        order = sorted(level.nodes, key=lambda n: post_order_key(n, self._bits))
        cut = len(order) - self._alpha
        tau = level.tau
        for node in order[:cut]:
            tau = max(tau, node_range(node, self._bits)[1])
            self._discard(level, node)
        level.tau = tau
        for node in order[cut:]:  # ancestors sharing the right end τ_j: all their items are <= τ_j
            if node_range(node, self._bits)[1] <= tau:
                self._discard(level, node)

    def _discard(self, level: _Level, node: int) -> None:
        del level.nodes[node]

    # -- queries -------------------------------------------------------------------------------------------------

    def count(self, w: int) -> int:
        """SWQUERY(w): estimate of ``D_w(now)``, the weight with ``now - t_i < w``, within ``ε·D_w`` (never above
        it); exact when ``now - w >= τ_0``. O(α + J)."""
        cut = max(self.now - check_window(w), -1)
        if cut >= self._tau0:
            return sum(wt for t, wt in self._q0.items() if t > cut)
        for level in self._levels:
            if level.tau <= cut:
                return sum(c for node, c in level.nodes.items() if node_range(node, self._bits)[0] > cut)
        raise AssertionError("the top level never discards")  # pragma: no cover

    def level_for(self, w: int) -> int:
        """The level ℓ SWQUERY(w) uses (0: the exact buffer)."""
        cut = max(self.now - check_window(w), -1)
        if cut >= self._tau0:
            return 0
        return next(j for j, lv in enumerate(self._levels, 1) if lv.tau <= cut)

    def cutoffs(self) -> list[int]:
        """``[τ_0, τ_1, …, τ_J]``."""
        return [self._tau0] + [lv.tau for lv in self._levels]

    def snapshot(self) -> WindowCountState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_count`."""
        return WindowCountState(
            time_bits=self._bits,
            eps=self._eps,
            alpha=self._alpha,
            now=self.now,
            total=self._total,
            buffer=tuple(sorted(self._q0.items())),
            tau0=self._tau0,
            levels=tuple(
                CountLevelState(j, lv.gamma, lv.tau, tuple(sorted(lv.nodes.items())))
                for j, lv in enumerate(self._levels, 1)
            ),
            compressed=self._pending == 0,
            pending=self._pending,
            compress_period=self.compress_period,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(time_bits={self._bits}, eps={self._eps!r}, alpha={self._alpha}, "
            f"now={self.now}, total={self._total}, levels={len(self._levels)})"
        )
