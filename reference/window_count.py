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
  ``α = ⌈(8/ε + 7)·T + 1⌉`` (:func:`swagkit.spec.decay.bounds.window_count_alpha_min` has the proof sketch).
  Smaller α may be passed for experiments; the guarantee then lapses and the checker reports it.
* **Ties at the cutoff**: Q_0 may keep part of the weight at ``τ_0``, so the fullness argument uses
  ``#{t_i >= τ_0} >= α`` (the paper's ``rr(τ_0)`` counts only ``> τ_0``).
* **Levels grow online** (§9 item 13): the top level never discards; just before it would, a copy becomes the
  new top level (its counts are ``<= 2^J <= 2^(J+1)``, so the copy is a valid level J+1 and loses nothing).
* ``t - w < 0`` is clamped to -1 (§3.9 (d)); the ℓ search is a linear scan, since ``τ_j`` need not be monotone
  in j (§9 item 14).
* Compress runs to a fixed point (see :mod:`swagkit.reference.qdigest`) so that every family sums to ``>= γ``
  before truncation, which the fullness argument needs.

The ladder (Q_0, the levels, SWCOMPRESS, the choice of ℓ) is shared with §3.2 in :mod:`swagkit.reference._ladder`;
this module adds what §3.1 stores per range (a count) and SWUPDATE / SWQUERY.

Weighted updates: a weight w is w items at one timestamp; Q_0 evicts weight units (partially, if needed).

Complexity: update O(J) expected plus the amortized SWCOMPRESS (O(J·α log α) every α updates), query
O(α + J); space at most ``α`` ranges per level after compress (``2α`` between compressions) and
``J <= log2(N/α) + 3`` levels: O((T/ε) log(εN/T)) (Theorem 1).

Exception safety: *strong* -- the structure calls no user code; every update validates its input (numpy
integers accepted like ints) and then completes. Not thread-safe: an overlapping call (a second thread, a
timestamp's ``__index__`` calling back) raises ``ReentrantCallError`` before anything changes. Copies and
pickles go by snapshot (:func:`check_count_state` validates it first).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from swagkit.spec.decay.bounds import window_count_alpha_min
from swagkit.spec.decay.input import check_accuracy, check_bits, check_timestamp, check_total, check_weight
from swagkit.spec.decay.snapshots import CountLevelState, WindowCountState

from ._guard import guarded
from ._ladder import Level, TimeLadder, check_ladder_state, compress_fixed_cap, post_order_key
from .qdigest import _state_int, check_state_nodes, int_arg, real_arg

__all__ = ["SlidingWindowCount", "compress_fixed_cap", "post_order_key", "check_count_state"]

CountParts = tuple[int, int, int, int, list[tuple[int, int]], list[tuple[int, int, list[tuple[int, int]]]]]


def check_count_state(state: Any, time_bits: int, eps: float, alpha: int) -> CountParts:
    """Validate a :class:`WindowCountState` for a structure with these parameters (copying, pickling; shared by
    both implementations): returns ``(now, total, tau0, pending, buffer, levels)``, ``buffer`` the Q_0
    ``(timestamp, weight)`` pairs (timestamps strictly increasing, ``<= now``, weights summing to at most α and
    the total) and ``levels`` the ``(gamma, tau, nodes)`` of Q_1 … Q_J (ranges over the time universe, at most
    the total weight). ``TypeError``/``ValueError`` for a malformed snapshot."""
    now, total, tau0, pending, heads = check_ladder_state(
        state, WindowCountState, time_bits=time_bits, eps=eps, alpha=alpha, gamma_shift=SlidingWindowCount.GAMMA_SHIFT
    )
    if not isinstance(state.buffer, tuple):
        raise TypeError("snapshot: buffer must be a tuple of (timestamp, weight) pairs")
    buffer: list[tuple[int, int]] = []
    prev, weight = -1, 0
    for entry in state.buffer:
        if not isinstance(entry, tuple) or len(entry) != 2:
            raise TypeError(f"snapshot: buffer entries are (timestamp, weight) pairs, got {entry!r}")
        t = _state_int(entry[0], prev + 1, now + 1, "buffer timestamp (sorted, unique, <= now)")
        w = _state_int(entry[1], 1, alpha + 1, "buffer weight")
        weight += w
        buffer.append((t, w))
        prev = t
    if weight > alpha or weight > total:
        raise ValueError(f"snapshot: the buffer holds {weight} weight units, more than alpha or the total")
    levels = []
    for (gamma, tau), lv in zip(heads, state.levels):
        nodes, level_total = check_state_nodes(lv.nodes, time_bits, f"level {lv.level} nodes")
        if level_total > total:
            raise ValueError(f"snapshot: level {lv.level} counts {level_total}, more than the total {total}")
        levels.append((gamma, tau, nodes))
    return now, total, tau0, pending, buffer, levels


class SlidingWindowCount(TimeLadder[int, Level]):
    """Out-of-order sliding-window count with relative error ε (paper 004 §3.1; id ``window_count``).

    The ladder itself (Q_0, the levels, SWCOMPRESS, the choice of ℓ) is :class:`~swagkit.reference._ladder.
    TimeLadder`; here Q_0 is keyed by timestamp and a range carries only its count.

    Exception safety: *strong* (no user code runs while it changes). Not thread-safe: an overlapping call raises
    ``ReentrantCallError`` and changes nothing. Copies and pickles go by snapshot.

    >>> c = SlidingWindowCount(time_bits=8, eps=0.5)
    >>> c.advance(100)
    >>> for t in (99, 40, 100, 97, 10):      # any order
    ...     c.insert(t)
    >>> c.count(4), c.count(101)             # timestamps in (96, 100], and everything
    (3, 5)
    """

    algorithm: ClassVar[str] = "window_count"
    exception_safety: ClassVar[str] = "strong"
    #: level caps are γ(j) = 2^(j + GAMMA_SHIFT)
    GAMMA_SHIFT = 0

    def __init__(self, time_bits: int, eps: float, alpha: int | None = None) -> None:
        bits = check_bits(int_arg(time_bits), "time_bits")
        e = check_accuracy(real_arg(eps), "eps")
        super().__init__(bits, e, window_count_alpha_min(bits, e), alpha)

    def _params(self) -> dict[str, Any]:
        return {"time_bits": self._tbits, "eps": self._eps, "alpha": self._alpha}

    @classmethod
    def _from_snapshot(cls, monoid: Any, snapshot: Any, **params: Any) -> SlidingWindowCount:
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling; the shape is validated).
        ``params``: the constructor's (``time_bits``, ``eps``, ``alpha``)."""
        obj = cls(**params)
        now, total, tau0, pending, buffer, levels = check_count_state(snapshot, obj._tbits, obj._eps, obj._alpha)
        obj._restore_ladder(now, total, tau0, pending, dict(buffer))
        obj._levels = [Level(gamma, tau, dict(nodes)) for gamma, tau, nodes in levels]
        return obj

    @staticmethod
    def _stamp(key: int) -> int:
        return key

    def _new_level(self, gamma: int) -> Level:
        return Level(gamma)

    def _copy_up(self, level: Level, j: int) -> Level:
        return Level(self._gamma(j), -1, dict(level.nodes))

    # -- parameters ----------------------------------------------------------------------------------------------

    @property
    def eps(self) -> float:
        """ε: relative error of every window count."""
        return self._eps

    @guarded
    def node_count(self) -> int:
        """Stored ranges over all levels plus distinct timestamps in Q_0 (the space in the paper's unit)."""
        return len(self._q0) + sum(len(lv.nodes) for lv in self._levels)

    # -- updates -------------------------------------------------------------------------------------------------

    @guarded
    def insert(self, timestamp: int, weight: int = 1) -> None:
        """SWUPDATE (Alg. 3.1, variant A): record ``weight`` items stamped ``timestamp <= now``.

        Bad input (type, universe, future timestamp, negative weight, overflow) raises before any change."""
        t = check_timestamp(int_arg(timestamp), self._tbits, self.now)
        w = check_weight(int_arg(weight))
        check_total(self._total, w)
        if w == 0:
            return
        self._admit(t, t, w)
        self._updated()

    @guarded
    def insert_many(self, timestamps: Iterable[int]) -> None:
        """Insert each timestamp with weight 1 (all validated first: on bad input nothing is inserted)."""
        ts = [check_timestamp(int_arg(t), self._tbits, self.now) for t in timestamps]
        check_total(self._total, len(ts))
        for j, t in enumerate(ts):
            try:
                self._admit(t, t, 1)
                self._updated()
            except BaseException as err:  # pragma: no cover - only MemoryError or an asynchronous interrupt
                err.add_note(f"swagkit window_count: insert_many inserted {j} of {len(ts)} values")
                raise

    # -- queries -------------------------------------------------------------------------------------------------

    @guarded
    def count(self, w: int) -> int:
        """SWQUERY(w): estimate of ``D_w(now)``, the weight with ``now - t_i < w``, within ``ε·D_w`` (never above
        it); exact when ``now - w >= τ_0``. O(α + J)."""
        return self._window_count(self._cut(w))

    @guarded
    def snapshot(self) -> WindowCountState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_count`."""
        return WindowCountState(
            **self._ladder_state(),
            buffer=tuple(sorted(self._q0.items())),
            levels=tuple(
                CountLevelState(j, lv.gamma, lv.tau, tuple(sorted(lv.nodes.items())))
                for j, lv in enumerate(self._levels, 1)
            ),
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(time_bits={self._tbits}, eps={self._eps!r}, alpha={self._alpha}, "
            f"now={self.now}, total={self._total}, levels={len(self._levels)})"
        )
