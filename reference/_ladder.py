"""The time-wise ladder shared by paper 004's window structures (§3.1, Fig. 1(b); reused by §3.2 with value
digests on every range).

A ladder over the time universe ``[0, 2^T)`` is

* **Q_0**, an exact buffer of the α weight units with the largest timestamps; ``τ_0`` is the largest timestamp
  any weight was evicted from it (-1: none). Its entries are keyed by the timestamp (window count) or by
  ``(timestamp, value)`` (window quantiles); either way eviction takes the smallest key first.
* **Q_1 … Q_J**, q-digests over time with the **fixed** cap ``γ(j)`` (``2^j`` in §3.1, ``2^(j-1)`` in §3.2),
  each kept to at most α ranges by discarding the oldest; ``τ_j`` is the largest right end ever discarded from
  Q_j (it only rises), and every item with timestamp ``> τ_j`` is still counted in Q_j.

:class:`TimeLadder` holds this state and the parts of SWUPDATE, SWCOMPRESS and SWQUERY that do not depend on
what a range carries: the Q_0 update and eviction, the compress-then-truncate pass over the levels (the top
level is copied upwards before its first discard, notes §9 item 13), and the choice of the level ℓ answering a
window (the smallest index with ``τ_ℓ <= t - w``, by a linear scan since ``τ_j`` need not be monotone in j,
notes §9 item 14; ``t - w < 0`` clamped to -1, notes §3.9 (d)). The subclasses
(:class:`~swagkit.reference.window_count.SlidingWindowCount`,
:class:`~swagkit.reference.window_quantiles.SlidingWindowQuantiles`) add what a level records per range, and
their own queries.

Complexity: Q_0 insert O(log α) plus amortized O(1) evictions; SWCOMPRESS O(J·α log α) plus the subclass's
per-merge work; choosing ℓ O(J).

Robustness (issue 12): the ladder calls no user code while it changes (only
:class:`~swagkit.reference.window_quantiles.SlidingWindowQuantiles`' decayed *queries* call a user's decay), so
its exception safety is *strong*: every update validates its input, then completes. Every public operation but
plain sizes and properties holds the re-entry guard (:mod:`swagkit.reference._guard`); α and the provable
default α are refused at 2**62 or more (``InvalidParameterError``), like the compiled ladder's int64 counts
need; a window larger than the clock is clamped, never overflowed. :func:`check_ladder_state` validates a
snapshot's shared fields before a copy or a pickle is rebuilt from it.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypedDict, TypeVar

from swagkit.spec.decay.errors import MAX_TOTAL_WEIGHT, InvalidParameterError
from swagkit.spec.decay.input import check_advance, check_int, check_window
from swagkit.spec.decay.snapshots import node_range

from ._guard import Guarded, guarded
from .qdigest import _state_int, int_arg

if TYPE_CHECKING:
    from _typeshed import SupportsRichComparison

__all__ = [
    "LadderFields",
    "Level",
    "TimeLadder",
    "compress_fixed_cap",
    "post_order_key",
    "check_alpha",
    "check_ladder_state",
]


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


class Level:
    """One time-wise q-digest Q_j: fixed cap ``gamma``, cutoff ``tau`` and ``nodes`` (heap id -> count)."""

    __slots__ = ("gamma", "tau", "nodes")

    def __init__(self, gamma: int, tau: int = -1, nodes: dict[int, int] | None = None) -> None:
        self.gamma = gamma
        self.tau = tau
        self.nodes: dict[int, int] = nodes if nodes is not None else {}


class LadderFields(TypedDict):
    """The snapshot fields every ladder has (``WindowCountState`` and ``WindowQuantilesState`` share them)."""

    time_bits: int
    eps: float
    alpha: int
    now: int
    total: int
    tau0: int
    compressed: bool
    pending: int
    compress_period: int


def check_alpha(alpha: Any, alpha_min: int) -> int:
    """The level budget α (default: the provable ``alpha_min``): an int in ``[1, 2**62)``, else
    ``InvalidParameterError`` (``InputTypeError`` for a non-int). Shared by both implementations."""
    if alpha is None:
        if alpha_min >= MAX_TOTAL_WEIGHT:
            raise InvalidParameterError("eps is too small: the provable level budget alpha would reach 2**62")
        return alpha_min
    a = check_int(int_arg(alpha), "alpha")
    if a < 1:
        raise InvalidParameterError(f"alpha must be >= 1, got {a}")
    if a >= MAX_TOTAL_WEIGHT:
        raise InvalidParameterError(f"alpha must be < 2**62, got {a}")
    return a


def check_ladder_state(
    state: Any, state_type: type[Any], *, time_bits: int, eps: float, alpha: int, gamma_shift: int
) -> tuple[int, int, int, int, list[tuple[int, int]]]:
    """Validate the fields every ladder snapshot has (copying, pickling) for a ladder with these parameters:
    returns ``(now, total, tau0, pending, levels)`` with ``levels`` the ``(gamma, tau)`` of each level; each
    level ``j`` (1-based, at most 62) must have cap ``2**(j + gamma_shift)`` and a cutoff in ``[-1, 2**T)``, the
    top level cutoff -1 (it never discards). ``TypeError``/``ValueError`` for a malformed snapshot; the buffer and
    the ranges are the subclass's to check. The paper's invariants are the checkers' business."""
    if not isinstance(state, state_type):
        raise TypeError(f"snapshot: expected a {state_type.__name__}, got {type(state).__name__}")
    if state.time_bits != time_bits or state.eps != eps or state.alpha != alpha or state.compress_period != alpha:
        raise ValueError(
            f"snapshot: parameters (time_bits={state.time_bits!r}, eps={state.eps!r}, alpha={state.alpha!r}) differ "
            f"from the structure's ({time_bits}, {eps!r}, {alpha})"
        )
    universe = 1 << time_bits
    now = _state_int(state.now, 0, universe, "now")
    total = _state_int(state.total, 0, MAX_TOTAL_WEIGHT, "total")
    tau0 = _state_int(state.tau0, -1, universe, "tau0")
    pending = _state_int(state.pending, 0, alpha, "pending")
    if state.compressed is not (pending == 0):
        raise ValueError("snapshot: compressed must be True exactly when pending is 0")
    if not isinstance(state.levels, tuple) or not state.levels:
        raise TypeError("snapshot: levels must be a non-empty tuple")
    if len(state.levels) + gamma_shift > 62:
        raise ValueError(f"snapshot: {len(state.levels)} levels (their caps would reach 2**63)")
    levels: list[tuple[int, int]] = []
    for j, lv in enumerate(state.levels, 1):
        if getattr(lv, "level", None) != j or getattr(lv, "gamma", None) != 1 << (j + gamma_shift):
            raise ValueError(f"snapshot: level {j} must be numbered {j} with cap 2**{j + gamma_shift}")
        levels.append((lv.gamma, _state_int(lv.tau, -1, universe, f"level {j} tau")))
    if levels[-1][1] != -1:
        raise ValueError("snapshot: the top level never discards (its tau must be -1)")
    return now, total, tau0, pending, levels


K = TypeVar("K", bound="SupportsRichComparison")  # key of a Q_0 entry: a timestamp, or (timestamp, value)
L = TypeVar("L", bound=Level)


class TimeLadder(Guarded, Generic[K, L]):
    """Q_0 and Q_1 … Q_J of §3.1 (module docstring). Subclasses set :attr:`GAMMA_SHIFT` (``γ(j) =
    2^(j + GAMMA_SHIFT)``) and implement :meth:`_stamp`, :meth:`_new_level` and :meth:`_copy_up`; they may extend
    :meth:`_compress_level` (merges) and :meth:`_discard` (a discarded range).

    Exception safety: *strong* (no user code runs while the ladder changes). Not thread-safe: an overlapping
    call raises ``ReentrantCallError`` before it changes anything."""

    #: level caps are γ(j) = 2^(j + GAMMA_SHIFT)
    GAMMA_SHIFT = 0
    exception_safety: ClassVar[str] = "strong"

    def __init__(self, time_bits: int, eps: float, alpha_min: int, alpha: int | None) -> None:
        """``time_bits`` and ``eps`` come validated; ``alpha`` defaults to the provable ``alpha_min``."""
        self._tbits = time_bits
        self._eps = eps
        self.alpha_min = alpha_min
        a = check_alpha(alpha, alpha_min)
        self._alpha = a
        self.now = 0
        self._total = 0
        self._q0: dict[K, int] = {}  # key -> weight
        self._q0_heap: list[K] = []  # distinct keys of Q_0 (min-heap)
        self._q0_weight = 0
        self._tau0 = -1
        self._levels: list[L] = [self._new_level(self._gamma(1))]
        self._pending = 0
        #: updates between SWCOMPRESS runs
        self.compress_period = self._alpha
        self._init_guard()

    def _gamma(self, j: int) -> int:
        return 1 << (j + self.GAMMA_SHIFT)

    @staticmethod
    def _stamp(key: K) -> int:
        """The timestamp of a Q_0 key."""
        raise NotImplementedError

    def _new_level(self, gamma: int) -> L:
        """An empty level with cap ``gamma``."""
        raise NotImplementedError

    def _copy_up(self, level: L, j: int) -> L:
        """A copy of ``level`` (the top one) as level ``j`` (cap ``γ(j)``, cutoff -1)."""
        raise NotImplementedError

    # -- parameters ----------------------------------------------------------------------------------------------

    @property
    def time_bits(self) -> int:
        """T: timestamps lie in ``[0, 2**T)``."""
        return self._tbits

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

    # -- updates -------------------------------------------------------------------------------------------------

    @guarded
    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``; :class:`ClockError` otherwise)."""
        self.now = check_advance(int_arg(t), self._tbits, self.now)

    def _buffer_insert(self, key: K, w: int) -> None:
        """Q_0 ← Q_0 ∪ {key}; evict the smallest keys' weight beyond α, raising τ_0."""
        if key in self._q0:
            self._q0[key] += w
        else:
            self._q0[key] = w
            heapq.heappush(self._q0_heap, key)
        self._q0_weight += w
        excess = self._q0_weight - self._alpha
        while excess > 0:
            oldest = self._q0_heap[0]
            take = min(excess, self._q0[oldest])
            self._q0[oldest] -= take
            self._q0_weight -= take
            excess -= take
            stamp = self._stamp(oldest)
            if stamp > self._tau0:
                self._tau0 = stamp
            if self._q0[oldest] == 0:
                del self._q0[oldest]
                heapq.heappop(self._q0_heap)

    def _admit(self, key: K, t: int, w: int) -> None:
        """The part of SWUPDATE every ladder shares (variant A, notes §3.9): count ``w`` at ``t`` in Q_0 and at
        the leaf of t in every level with ``t > τ_j``. O(log α + J)."""
        self._total += w
        self._buffer_insert(key, w)
        leaf = (1 << self._tbits) + t
        for level in self._levels:
            if t > level.tau:
                level.nodes[leaf] = level.nodes.get(leaf, 0) + w

    def _updated(self) -> None:
        """Count one SWUPDATE; run SWCOMPRESS every :attr:`compress_period` of them."""
        self._pending += 1
        if self._pending >= self.compress_period:
            self._compress()

    @guarded
    def compress(self) -> None:
        """SWCOMPRESS (Alg. 3.2): per level, compress at the cap, then (if over α ranges) truncate to the α
        rightmost ranges in post-order and raise τ_j. The top level is copied upwards before its first discard."""
        self._compress()

    def _compress(self) -> None:
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

    def _compress_level(self, level: L) -> None:
        compress_fixed_cap(level.nodes, level.gamma)

    def _truncate(self, level: L) -> None:
        order = sorted(level.nodes, key=lambda n: post_order_key(n, self._tbits))
        cut = len(order) - self._alpha
        tau = level.tau
        for node in order[:cut]:
            tau = max(tau, node_range(node, self._tbits)[1])
            self._discard(level, node)
        level.tau = tau
        for node in order[cut:]:  # ancestors sharing the right end τ_j: all their items are <= τ_j
            if node_range(node, self._tbits)[1] <= tau:
                self._discard(level, node)

    def _discard(self, level: L, node: int) -> None:
        del level.nodes[node]

    # -- choosing the level of a window --------------------------------------------------------------------------

    def _cut(self, w: int) -> int:
        """``t - w`` for a valid window ``w``, clamped to -1: the window is the timestamps ``> cut``."""
        return max(self.now - check_window(int_arg(w)), -1)

    def _level_of(self, cut: int) -> L | None:
        """None: answer exactly from Q_0; else Q_ℓ, the first level with ``τ_ℓ <= cut``."""
        if cut >= self._tau0:
            return None
        for level in self._levels:
            if level.tau <= cut:
                return level
        raise AssertionError("the top level never discards")  # pragma: no cover

    def _window_count(self, cut: int) -> int:
        """Weight of the window ``> cut``: exact from Q_0, else ``Σ{c(r) : lo(r) > cut}`` on Q_ℓ (an
        under-estimate by at most ``T·γ(ℓ)``)."""
        level = self._level_of(cut)
        if level is None:
            return sum(wt for key, wt in self._q0.items() if self._stamp(key) > cut)
        return sum(c for node, c in level.nodes.items() if node_range(node, self._tbits)[0] > cut)

    @guarded
    def level_for(self, w: int) -> int:
        """The level ℓ a window query for ``w`` uses (0: the exact buffer)."""
        cut = self._cut(w)
        if cut >= self._tau0:
            return 0
        return next(j for j, lv in enumerate(self._levels, 1) if lv.tau <= cut)

    @guarded
    def cutoffs(self) -> list[int]:
        """``[τ_0, τ_1, …, τ_J]``."""
        return [self._tau0] + [lv.tau for lv in self._levels]

    def _restore_ladder(self, now: int, total: int, tau0: int, pending: int, buffer: dict[K, int]) -> None:
        """Install validated snapshot fields (the subclass installs its levels)."""
        self.now, self._total, self._tau0, self._pending = now, total, tau0, pending
        self._q0 = buffer
        self._q0_heap = sorted(buffer)  # a sorted list is a heap
        self._q0_weight = sum(buffer.values())

    def _ladder_state(self) -> LadderFields:
        """The snapshot fields every ladder has (the buffer and levels are the subclass's)."""
        return {
            "time_bits": self._tbits,
            "eps": self._eps,
            "alpha": self._alpha,
            "now": self.now,
            "total": self._total,
            "tau0": self._tau0,
            "compressed": self._pending == 0,
            "pending": self._pending,
            "compress_period": self.compress_period,
        }
