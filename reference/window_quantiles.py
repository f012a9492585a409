"""Range queries, quantiles and heavy hitters over a sliding window with out-of-order arrivals -- the
defer-merge variant (paper 004 §3.2-3.3, Theorem 2, Corollary 1) -- and any decay function chosen at query time
by reduction to sliding windows (§4.1, Theorem 3).

Structure: the ladder of §3.1 over the time universe ``[0, 2^T)`` with caps ``γ(j) = 2^(j-1)``, where every
time-wise range r carries a **value-wise q-digest** over ``[0, 2^b)`` of exactly the items counted in r
(accuracy ε/2 relative to its own count ``c(r)``). Q_0 buffers the α weight units with the largest timestamps
exactly, with their values.

* SWUPDATE: the item goes to Q_0 and, in every level with ``t > τ_j``, to the leaf of t and that leaf's value
  digest (one value-wise insert per level: "defer merge").
* SWCOMPRESS: as §3.1; when a time-wise family merges into its parent, the children's value digests are merged
  into the parent's (union, then one compress); a discarded range drops its digest.
* Range query ``r̂(w, x)`` (weight with value ``< x`` in the window ``(t - w, t]``): exact from Q_0 when
  ``t - w >= τ_0``; else, on level ℓ (smallest with ``τ_ℓ <= t - w``), ``Σ{rank_r(x) : lo(r) > t - w}`` --
  digests are queried separately and summed, which is the deferred merge without building it (notes §4.4).
  Error: straddling ranges hide at most ``T·2^(ℓ-1)`` and the digests at most ``(ε/2)·D_w``, both under; with
  ``α >= (16/ε + 7)T + 1`` the level fullness gives ``T·2^(ℓ-1) <= (ε/2)·D_w``: total ``<= ε·D_w``.
* Quantile (§3.3): ``D̂_w = Σ{c(r) : lo(r) > t - w}`` (the digests' totals are exact), then the smallest x with
  ``r̂(w, x+1) >= φ·D̂_w``. It passes the two-sided test ``rank_lt(x) <= (φ+ε)D_w``, ``rank_le(x) >= (φ-ε)D_w``
  (notes §4.6; Definition 4 as printed cannot always be met).
* Heavy hitters by the **frequency method** (notes §4.6, not the paper's consecutive-quantile method, whose
  thresholds overlap): ``f̂(p) = Σ f̂_r(p)``; report p iff ``f̂(p) >= φ·D̂_w``. Since ``-(ε/2)D_w <= f - f̂ <= ε·D_w``
  and ``(1 - ε/2)D_w <= D̂_w <= D_w``, every value of weight ``>= (φ+ε)D_w`` is reported and none below
  ``(φ-ε)D_w`` (for φ <= 1).
* Any decay g (§4.1): with ``r(w, x)`` the strict window rank and t the current time,
  ``R_g(x) = Σ_{w=1}^{t} (g(w-1) - g(w))·r(w, x) + g(t)·r(t+1, x)`` -- the printed formula has wrong signs and
  indices (notes §5.1). All coefficients are ``>= 0``, so replacing each ``r(w, x)`` by the window estimate gives
  error ``<= ε·D`` (D the decayed count). Summed per stored range: a range of level j with left end l counts for
  the cutoffs ``u = t - w`` in its level's interval ``[A_j, B_j]`` below l, so it is weighted
  ``g(t - min(B_j, l-1) - 1) - G(t - A_j)`` with ``G(t+1) = 0`` -- O(space) per query, the decay chosen at
  query time.

The ladder itself (Q_0, levels, SWCOMPRESS, the choice of ℓ) is shared with §3.1 in
:mod:`swagkit.reference._ladder`; this module keys Q_0 by ``(timestamp, value)`` and hangs a value digest on
every range (merged along in compress, dropped on discard).

Corrections (notes §4.2, §9): the paper's ``α = (3/ε)·T`` does not follow from its own argument with
``γ(j) = 2^(j-1)``; the default is the provable ``α = ⌈(16/ε + 7)·T + 1⌉``
(:func:`swagkit.spec.decay.bounds.window_quantiles_alpha_min`). The buffer is counted (variant A), windows are
strict, ranks strict (``rank(x)`` counts values ``< x``; Definition 5's ``<= x`` is ``rank(x + 1)``).

Complexity: update O(J) plus amortized compress; space O(α·J) time-wise ranges, each with a digest of at most
``min(c(r), 8b/ε + 1)`` ranges; rank and count queries O(space of one level); quantile and heavy hitters
O(S log S) for the S value ranges of the level; decayed queries O(total space).

Exception safety: *strong* -- updates call no user code (they validate their input, numpy integers accepted
like ints, then complete); the decayed queries call the decay given to them, which may be user code, but only
read the structure, so a decay that raises leaves it as it was. Not thread-safe: every public operation but
plain sizes and properties holds the re-entry guard, so a decay (or a second thread) calling back into the
structure gets ``ReentrantCallError`` before anything changes. Copies and pickles go by snapshot
(:func:`check_quantiles_state` validates it first).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from swagkit.spec.decay import Decay
from swagkit.spec.decay.bounds import window_quantiles_alpha_min
from swagkit.spec.decay.errors import InvalidParameterError
from swagkit.spec.decay.input import (
    check_accuracy,
    check_bits,
    check_phi,
    check_rank_point,
    check_timestamp,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay.snapshots import RangeLevelState, RangeNodeState, WindowQuantilesState, node_range

from ._guard import guarded
from ._ladder import Level, TimeLadder, check_ladder_state, compress_fixed_cap
from .qdigest import QDigest, _state_int, check_qdigest_state, check_state_nodes, checked_size_bound, int_arg, real_arg

__all__ = ["SlidingWindowQuantiles", "check_quantiles_state"]

DigestParts = tuple[list[tuple[int, int]], int, int]
QuantilesParts = tuple[
    int, int, int, int, list[tuple[int, int, int]], list[tuple[int, int, list[tuple[int, int, DigestParts]]]]
]


def check_quantiles_state(state: Any, time_bits: int, value_bits: int, eps: float, alpha: int) -> QuantilesParts:
    """Validate a :class:`WindowQuantilesState` for a structure with these parameters (copying, pickling;
    shared by both implementations): returns ``(now, total, tau0, pending, buffer, levels)``, ``buffer`` the Q_0
    ``(timestamp, value, weight)`` triples (strictly increasing ``(timestamp, value)``, ``timestamp <= now``,
    weights summing to at most α and the total) and ``levels`` the ``(gamma, tau, nodes)`` of Q_1 … Q_J, every
    node ``(id, count, digest)`` with its value digest's ``(nodes, total, pending)`` (total = count).
    ``TypeError``/``ValueError`` for a malformed snapshot."""
    now, total, tau0, pending, heads = check_ladder_state(
        state,
        WindowQuantilesState,
        time_bits=time_bits,
        eps=eps,
        alpha=alpha,
        gamma_shift=SlidingWindowQuantiles.GAMMA_SHIFT,
    )
    if state.value_bits != value_bits:
        raise ValueError(f"snapshot: value_bits {state.value_bits!r} differ from the structure's {value_bits}")
    if not isinstance(state.buffer, tuple):
        raise TypeError("snapshot: buffer must be a tuple of (timestamp, value, weight) triples")
    vuniverse = 1 << value_bits
    buffer: list[tuple[int, int, int]] = []
    prev: tuple[int, int] = (-1, 0)
    weight = 0
    for entry in state.buffer:
        if not isinstance(entry, tuple) or len(entry) != 3:
            raise TypeError(f"snapshot: buffer entries are (timestamp, value, weight) triples, got {entry!r}")
        t = _state_int(entry[0], prev[0], now + 1, "buffer timestamp (sorted, <= now)")
        v = _state_int(entry[1], prev[1] + 1 if t == prev[0] else 0, vuniverse, "buffer value (sorted, unique)")
        w = _state_int(entry[2], 1, alpha + 1, "buffer weight")
        weight += w
        buffer.append((t, v, w))
        prev = (t, v)
    if weight > alpha or weight > total:
        raise ValueError(f"snapshot: the buffer holds {weight} weight units, more than alpha or the total")
    veps = eps / 2
    vperiod = checked_size_bound(value_bits, veps, "eps/2")
    levels = []
    for (gamma, tau), lv in zip(heads, state.levels):
        if not isinstance(lv, RangeLevelState) or not isinstance(lv.nodes, tuple):
            raise TypeError(f"snapshot: level {lv.level} must be a RangeLevelState with a tuple of nodes")
        for rn in lv.nodes:
            if not isinstance(rn, RangeNodeState):
                raise TypeError(f"snapshot: level {lv.level} nodes must be RangeNodeState, got {type(rn).__name__}")
        ids, level_total = check_state_nodes(
            tuple((rn.node, rn.count) for rn in lv.nodes), time_bits, f"level {lv.level} nodes"
        )
        if level_total > total:
            raise ValueError(f"snapshot: level {lv.level} counts {level_total}, more than the total {total}")
        nodes = []
        for (node, count), rn in zip(ids, lv.nodes):
            digest = check_qdigest_state(rn.digest, value_bits, veps, vperiod)
            if digest[1] != count:
                raise ValueError(f"snapshot: level {lv.level} node {node} counts {count}, its digest {digest[1]}")
            nodes.append((node, count, digest))
        levels.append((gamma, tau, nodes))
    return now, total, tau0, pending, buffer, levels


class _RangeLevel(Level):
    """Q_j of the range ladder: fixed cap, cutoff, time-wise counts and their value digests."""

    __slots__ = ("digests",)

    def __init__(self, gamma: int, tau: int = -1) -> None:
        super().__init__(gamma, tau)
        self.digests: dict[int, QDigest] = {}


class SlidingWindowQuantiles(TimeLadder[tuple[int, int], _RangeLevel]):
    """Window ranges, quantiles and heavy hitters with additive error ``ε·D_w``, and any decay by §4.1 with
    error ``ε·D`` (paper 004 §3.2-3.3, §4.1; id ``window_quantiles``).

    Exception safety: *strong* (updates run no user code; decayed queries call the decay but only read). Not
    thread-safe: an overlapping call (from a decay, or a second thread) raises ``ReentrantCallError`` and changes
    nothing. Copies and pickles go by snapshot.

    >>> s = SlidingWindowQuantiles(time_bits=6, value_bits=4, eps=0.5)
    >>> s.advance(20)
    >>> for value, ts in [(3, 19), (9, 5), (9, 20), (1, 18), (12, 2)]:
    ...     s.insert(value, ts)
    >>> s.count(4), s.rank(10, 4), s.quantile(0.5, 4)     # window (16, 20]: values 3, 9, 1
    (3, 3, 3)
    >>> from swagkit.spec.decay import SlidingWindowDecay
    >>> s.decayed_count(SlidingWindowDecay(4))             # the same window as a decay
    3.0
    """

    algorithm: ClassVar[str] = "window_quantiles"
    exception_safety: ClassVar[str] = "strong"
    #: level caps are γ(j) = 2^(j-1)
    GAMMA_SHIFT = -1

    def __init__(self, time_bits: int, value_bits: int, eps: float, alpha: int | None = None) -> None:
        tbits = check_bits(int_arg(time_bits), "time_bits")
        self._vbits = check_bits(int_arg(value_bits), "value_bits")
        e = check_accuracy(real_arg(eps), "eps")
        self._veps = e / 2
        super().__init__(tbits, e, window_quantiles_alpha_min(tbits, e), alpha)
        checked_size_bound(self._vbits, self._veps, "eps/2")  # the value digests' compress period

    def _params(self) -> dict[str, Any]:
        return {"time_bits": self._tbits, "value_bits": self._vbits, "eps": self._eps, "alpha": self._alpha}

    @classmethod
    def _from_snapshot(cls, monoid: Any, snapshot: Any, **params: Any) -> SlidingWindowQuantiles:
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling; the shape is validated).
        ``params``: the constructor's (``time_bits``, ``value_bits``, ``eps``, ``alpha``)."""
        obj = cls(**params)
        now, total, tau0, pending, buffer, levels = check_quantiles_state(
            snapshot, obj._tbits, obj._vbits, obj._eps, obj._alpha
        )
        obj._restore_ladder(now, total, tau0, pending, {(t, v): w for t, v, w in buffer})
        obj._levels = []
        for gamma, tau, nodes in levels:
            lv = _RangeLevel(gamma, tau)
            for node, count, (dnodes, dtotal, dpending) in nodes:
                lv.nodes[node] = count
                d = lv.digests[node] = obj._new_digest()
                d._nodes, d._total, d._pending = dict(dnodes), dtotal, dpending
            obj._levels.append(lv)
        return obj

    @staticmethod
    def _stamp(key: tuple[int, int]) -> int:
        return key[0]  # Q_0 keys are (timestamp, value): eviction takes the oldest, ties smaller value first

    def _new_level(self, gamma: int) -> _RangeLevel:
        return _RangeLevel(gamma)

    def _copy_up(self, level: _RangeLevel, j: int) -> _RangeLevel:
        up = _RangeLevel(self._gamma(j))
        up.nodes = dict(level.nodes)
        up.digests = {n: d._copy() for n, d in level.digests.items()}
        return up

    def _new_digest(self) -> QDigest:
        return QDigest(self._vbits, self._veps)

    # -- parameters ----------------------------------------------------------------------------------------------

    @property
    def value_bits(self) -> int:
        return self._vbits

    @property
    def eps(self) -> float:
        """ε: additive error ``ε·D_w`` of window ranks (``ε·D`` for decayed ranks)."""
        return self._eps

    @guarded
    def node_count(self) -> int:
        """Space in the paper's unit: Q_0 entries, time-wise ranges and the ranges of all value digests."""
        return len(self._q0) + sum(
            len(lv.nodes) + sum(d.node_count() for d in lv.digests.values()) for lv in self._levels
        )

    # -- updates -------------------------------------------------------------------------------------------------

    @guarded
    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """SWUPDATE: record ``weight`` copies of ``value`` stamped ``timestamp <= now`` (validated first)."""
        x = check_value(int_arg(value), self._vbits)
        t = check_timestamp(int_arg(timestamp), self._tbits, self.now)
        w = check_weight(int_arg(weight))
        check_total(self._total, w)
        if w:
            self._insert(x, t, w)

    def _insert(self, x: int, t: int, w: int) -> None:
        self._admit((t, x), t, w)
        leaf = (1 << self._tbits) + t
        for level in self._levels:  # the same levels again: one value-wise insert each ("defer merge")
            if t > level.tau:
                d = level.digests.get(leaf)
                if d is None:
                    d = level.digests[leaf] = self._new_digest()
                d._add(x, w)
        self._updated()

    @guarded
    def insert_many(self, items: Iterable[tuple[int, int]]) -> None:
        """Insert ``(value, timestamp)`` pairs with weight 1 (all validated first)."""
        pairs = [
            (check_value(int_arg(x), self._vbits), check_timestamp(int_arg(t), self._tbits, self.now)) for x, t in items
        ]
        check_total(self._total, len(pairs))
        for j, (x, t) in enumerate(pairs):
            try:
                self._insert(x, t, 1)
            except BaseException as err:  # pragma: no cover - only MemoryError or an asynchronous interrupt
                err.add_note(f"swagkit window_quantiles: insert_many inserted {j} of {len(pairs)} values")
                raise

    def _compress_level(self, level: _RangeLevel) -> None:
        """SWCOMPRESS at the cap, the value digests carried along: when a time-wise family merges into its parent,
        the children's digests are merged into the parent's (union, then one compress)."""
        for parent, left, right in compress_fixed_cap(level.nodes, level.gamma):
            d = level.digests.get(parent)
            if d is None:
                d = level.digests[parent] = self._new_digest()
            for child in (left, right):
                c = level.digests.pop(child, None)
                if c is not None:
                    d._absorb(c)
            d._compress()

    def _discard(self, level: _RangeLevel, node: int) -> None:
        """A discarded range drops its digest."""
        del level.nodes[node]
        del level.digests[node]

    # -- window queries ------------------------------------------------------------------------------------------

    def _inside(self, level: _RangeLevel, cut: int) -> Iterator[tuple[int, QDigest]]:
        for node, c in level.nodes.items():
            if node_range(node, self._tbits)[0] > cut:
                yield c, level.digests[node]

    @guarded
    def count(self, w: int) -> int:
        """``D̂_w``: estimated weight with ``now - t_i < w`` (under by at most ``(ε/2)·D_w``)."""
        return self._window_count(self._cut(w))

    @guarded
    def rank(self, x: int, w: int) -> int:
        """``r̂(w, x)``: estimated weight with value ``< x`` in the window; ``0 <= r - r̂ <= ε·D_w``."""
        return self._rank(check_rank_point(int_arg(x), self._vbits), w)

    def _rank(self, q: int, w: int) -> int:
        cut = self._cut(w)
        level = self._level_of(cut)
        if level is None:
            return sum(wt for (t, v), wt in self._q0.items() if t > cut and v < q)
        return sum(d._rank(q) for _, d in self._inside(level, cut))

    @guarded
    def range_count(self, lo: int, hi: int, w: int) -> int:
        """Estimated weight with ``lo <= value <= hi`` in the window (error ``<= 2ε·D_w``)."""
        a = check_value(int_arg(lo), self._vbits)
        b = check_value(int_arg(hi), self._vbits)
        if a > b:
            return 0
        return self._rank(b + 1, w) - self._rank(a, w)

    def _weighted_ranges(self, w: int) -> tuple[int, list[tuple[int, int]]]:
        """(D̂_w, [(hi, weight)]) of the window: Q_0 items as points, or the level's value ranges (exact ints)."""
        cut = self._cut(w)
        level = self._level_of(cut)
        if level is None:
            pts = [(v, wt) for (t, v), wt in self._q0.items() if t > cut]
            return sum(p[1] for p in pts), pts
        out: list[tuple[int, int]] = []
        total = 0
        for c, d in self._inside(level, cut):
            total += c
            out.extend((hi, cnt) for _, hi, cnt in d._ranges())
        return total, out

    @guarded
    def quantile(self, phi: float, w: int) -> int | None:
        """The smallest x with ``r̂(w, x+1) >= φ·D̂_w`` (None for an empty window)."""
        p = check_phi(real_arg(phi))
        return _quantile_of(*self._weighted_ranges(w), p)

    @guarded
    def heavy_hitters(self, phi: float, w: int) -> list[int]:
        """Values p with ``f̂(p) >= φ·D̂_w`` (sorted): all of weight ``>= (φ+ε)D_w``, none below ``(φ-ε)D_w``."""
        p = check_phi(real_arg(phi), open_low=True)
        return _heavy_of(*self._weighted_ranges(w), p)

    # -- any decay (§4.1) ----------------------------------------------------------------------------------------

    def _decay_atoms(self, decay: Decay) -> Iterator[tuple[float, int, Any]]:
        """``(coefficient, weight, source)`` of every stored piece: a Q_0 entry ``(value,)`` or a value digest,
        weighted by the §4.1 identity (module docstring)."""
        if not isinstance(decay, Decay):
            raise InvalidParameterError(f"decay must be a swagkit.spec.decay.Decay, got {type(decay).__name__}")
        t = self.now

        def G(w: int) -> float:
            return 0.0 if w > t else decay(w)

        def coef(u_top: int, u_bot: int) -> float:  # Σ_{w = t-u_top}^{t-u_bot} c(w) = g(t - u_top - 1) - G(t - u_bot)
            return max(0.0, decay(t - u_top - 1) - G(t - u_bot))

        a0 = max(self._tau0, -1)
        for (s, v), wt in sorted(self._q0.items()):
            if s - 1 >= a0:
                yield coef(min(t - 1, s - 1), a0), wt, (v,)
        upper = self._tau0 - 1  # B_j: below τ_0 and below every earlier level's cutoff
        for level in self._levels:
            lo_u = max(level.tau, -1)
            hi_u = min(upper, t - 1)
            if hi_u >= lo_u:
                for node, c in sorted(level.nodes.items()):
                    top = min(hi_u, node_range(node, self._tbits)[0] - 1)
                    if top >= lo_u:
                        yield coef(top, lo_u), c, level.digests[node]
            upper = min(upper, level.tau - 1)

    @guarded
    def decayed_count(self, decay: Decay) -> float:
        """``D̂`` for decay g at the current time: ``D - (ε/2)·D <= D̂ <= D``."""
        return sum(k * wt for k, wt, _ in self._decay_atoms(decay))

    @guarded
    def decayed_rank(self, x: int, decay: Decay) -> float:
        """``R̂_g(x)``: decayed weight with value ``< x``; ``0 <= R_g(x) - R̂_g(x) <= ε·D``."""
        q = check_rank_point(int_arg(x), self._vbits)
        total = 0.0
        for k, wt, src in self._decay_atoms(decay):
            if k == 0.0:
                continue
            if isinstance(src, tuple):
                total += k * wt if src[0] < q else 0.0
            else:
                total += k * src._rank(q)
        return total

    def _decayed_ranges(self, decay: Decay) -> tuple[float, list[tuple[int, float]]]:
        out: list[tuple[int, float]] = []
        total = 0.0
        for k, wt, src in self._decay_atoms(decay):
            if k == 0.0:
                continue
            total += k * wt
            if isinstance(src, tuple):
                out.append((src[0], k * wt))
            else:
                out.extend((hi, k * cnt) for _, hi, cnt in src._ranges())
        return total, out

    @guarded
    def decayed_quantile(self, phi: float, decay: Decay) -> int | None:
        """The smallest x with ``R̂_g(x+1) >= φ·D̂`` (two-sided test with ε and the decayed count D)."""
        p = check_phi(real_arg(phi))
        return _quantile_of(*self._decayed_ranges(decay), p)

    @guarded
    def decayed_heavy_hitters(self, phi: float, decay: Decay) -> list[int]:
        """Values with ``f̂_g(p) >= φ·D̂`` (Definition 4 with the decayed count)."""
        p = check_phi(real_arg(phi), open_low=True)
        return _heavy_of(*self._decayed_ranges(decay), p)

    # -- introspection -------------------------------------------------------------------------------------------

    @guarded
    def snapshot(self) -> WindowQuantilesState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.window_quantiles`."""
        return WindowQuantilesState(
            **self._ladder_state(),
            value_bits=self._vbits,
            buffer=tuple(sorted((t, v, wt) for (t, v), wt in self._q0.items())),
            levels=tuple(
                RangeLevelState(
                    j,
                    lv.gamma,
                    lv.tau,
                    tuple(RangeNodeState(n, lv.nodes[n], lv.digests[n]._snapshot()) for n in sorted(lv.nodes)),
                )
                for j, lv in enumerate(self._levels, 1)
            ),
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(time_bits={self._tbits}, value_bits={self._vbits}, eps={self._eps!r}, "
            f"alpha={self._alpha}, now={self.now}, total={self._total}, levels={len(self._levels)})"
        )


def _quantile_of(total: float, ranges: list[tuple[int, Any]], phi: float) -> int | None:
    """Smallest right end at which the running weight (ranges in increasing ``hi``) reaches ``φ·total``."""
    if total <= 0:
        return None
    target = phi * total
    if target <= 0:
        return 0
    ranges.sort(key=lambda r: r[0])
    acc: Any = 0
    for hi, wt in ranges:
        acc += wt
        if acc >= target:
            return hi
    return ranges[-1][0]  # rounding of a float sum: the last value


def _heavy_of(total: float, ranges: list[tuple[int, Any]], phi: float) -> list[int]:
    """Values whose estimated weight (ranges ending there) is at least ``φ·total``."""
    if total <= 0:
        return []
    freq: dict[int, Any] = {}
    for hi, wt in ranges:
        freq[hi] = freq.get(hi, 0) + wt
    target = phi * total
    return sorted(p for p, f in freq.items() if f >= target)
