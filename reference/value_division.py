"""Value division for smooth decay functions (paper 004 §4.2, Theorem 4; generalizes Cohen-Strauss).

Decayed ranks, quantiles and heavy hitters under a **smooth** decay g (Definition 6: ``g(a)/g(a+A)``
non-increasing in a -- polynomial and exponential decay) with error ``(θ + β + θβ)·D``. The time axis is
partitioned into summaries ``s_0, s_1, …`` (newest first) over disjoint timestamp intervals ``[lo_j, hi_j]``;
each keeps a q-digest of accuracy β over its values. A query scales summary j by ``g(t - hi_j)``, the weight of
its newest instant, and adds up.

* **Insert** ``<x, t_i>`` goes into the summary whose interval covers ``t_i`` -- which one depends only on t
  and the partition, not on arrival order, which is how value division absorbs disorder. A timestamp that no
  interval covers gets a new single-instant summary ``[t_i, t_i]`` (never stretch an old summary over a gap,
  notes §5.2).
* **Maintenance** merges adjacent summaries j (newer) and j+1 while the union's spread
  ``g(t - hi_j) / g(t - lo_{j+1})`` is at most ``1 + θ`` -- the property (V3) the accuracy proof needs. Smoothness
  makes a summary's spread non-increasing as t grows (its span is fixed while its age grows), so it stays
  ``<= 1 + θ`` forever. The paper phrases the rule with boundaries ``b_i`` (``g(b_i) = (1+θ)^-i``): two summaries
  strictly between the same boundaries have spread ``<= 1+θ``; testing the spread directly merges at least as
  often and leaves no adjacent pair with spread ``<= 1+θ``, so summaries 0, 2, 4, … lose a factor ``1+θ`` each:
  at most ``2⌈ln(1/g(A))/ln(1+θ)⌉ + 1`` summaries (A the oldest age; Theorem 4, with ``log_{1+θ} g(t)`` read as
  ``log_{1+θ}(1/g(t))``, notes §9 item 9). Maintenance runs when the number of summaries has doubled since the
  last run (amortized O(1) per new summary) and on :meth:`ValueDivision.maintain`.
* **Error** (notes §5.2): every item's weight is over-estimated by a factor in ``[1, 1+θ]`` and the digests err by
  ``β`` of the over-estimated count ``D̂ <= (1+θ)D``: ``|R̂(x) - R(x)| <= (θ + β + θβ)·D`` -- the paper's ``θ + β``
  drops the product term. Quantile: smallest x with ``R̂(x+1) >= φ·D̂``; heavy hitters: ``f̂(p) >= φ·D̂``; both
  pass Definition 4's tests (two-sided for quantiles) with ``ε = θ + β + θβ``.

Refused decays: anything not smooth (the sliding window is discontinuous), or not positive on the time
universe; a user decay's smoothness is re-checked numerically, not trusted.

Complexity: insert O(log m + 1) for m summaries (bisect) plus the digest insert; maintenance O(m) plus the
digest merges; queries O(space) (quantile O(S log S)). Space: m summaries of ``<= 4b/β + 1`` ranges each.

Exception safety: *strong*. The decay's ``weight`` may be user code, and maintenance calls it: maintenance
first *decides* every merge (all the decay's calls, :meth:`ValueDivision._plan`), then performs them without
calling any user code, building the merged digests aside and installing the new summary list at once. An
insert that opens a summary and triggers maintenance decides on the would-be list before it changes anything.
So a decay that raises (or is interrupted) leaves the structure exactly as before the operation. Queries only
read. A decay weight that is NaN or outside ``[0, 1]`` raises ``InvalidParameterError``, also with nothing
changed. Not thread-safe: every public operation but plain sizes and properties holds the re-entry guard, so a
decay (or a second thread) calling back into the structure gets ``ReentrantCallError`` before anything changes.
Copies and pickles go by snapshot (:func:`check_value_division_state` validates it first).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Any, ClassVar

from swagkit.spec.decay import Decay, ExponentialDecay, NoDecay, PolynomialDecay
from swagkit.spec.decay.bounds import value_division_error
from swagkit.spec.decay.errors import MAX_TOTAL_WEIGHT, InvalidParameterError
from swagkit.spec.decay.input import (
    check_accuracy,
    check_advance,
    check_bits,
    check_phi,
    check_rank_point,
    check_spread,
    check_timestamp,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay.snapshots import SummaryState, ValueDivisionState

from ._guard import Guarded, guarded
from .qdigest import QDigest, _state_int, check_qdigest_state, checked_size_bound, int_arg, real_arg
from .window_quantiles import _heavy_of, _quantile_of

__all__ = ["ValueDivision", "check_smooth_decay", "check_decay_weight", "check_value_division_state"]

DigestParts = tuple[list[tuple[int, int]], int, int]


def check_decay_weight(decay: Any, age: int, value: Any) -> float:
    """A decay's weight at ``age`` as a float in ``[0, 1]``; ``InvalidParameterError`` for NaN or a value outside
    (a user decay's weights are checked as they are used, never trusted)."""
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise InvalidParameterError(f"{getattr(decay, 'name', decay)!s}: g({age}) = {v!r} is not a weight in [0, 1]")
    return v


def check_value_division_state(
    state: Any, *, time_bits: int, value_bits: int, decay_name: str, theta: float, beta: float, maintained_len: Any
) -> tuple[int, int, list[tuple[int, int, DigestParts]], bool, int]:
    """Validate a :class:`ValueDivisionState` for a structure with these parameters (copying, pickling; shared by
    both implementations): returns ``(now, total, summaries, maintained, maintained_len)`` with the summaries
    ``(lo, hi, (nodes, total, pending))`` **oldest first**. Intervals must be disjoint, ordered and ``<= now``,
    every digest non-empty and their totals sum to the total; ``maintained_len`` (the summary count at the last
    maintenance, which schedules the next; None: the current count) must not be due already.
    ``TypeError``/``ValueError`` for a malformed snapshot."""
    if not isinstance(state, ValueDivisionState):
        raise TypeError(f"snapshot: expected a ValueDivisionState, got {type(state).__name__}")
    if (state.time_bits, state.value_bits, state.theta, state.beta, state.decay) != (
        time_bits,
        value_bits,
        theta,
        beta,
        decay_name,
    ):
        raise ValueError(
            f"snapshot: parameters ({state.time_bits!r}, {state.value_bits!r}, {state.theta!r}, {state.beta!r}, "
            f"{state.decay!r}) differ from the structure's "
            f"({time_bits}, {value_bits}, {theta!r}, {beta!r}, {decay_name!r})"
        )
    now = _state_int(state.now, 0, 1 << time_bits, "now")
    total = _state_int(state.total, 0, MAX_TOTAL_WEIGHT, "total")
    if not isinstance(state.maintained, bool):
        raise TypeError("snapshot: maintained must be a bool")
    if not isinstance(state.summaries, tuple):
        raise TypeError("snapshot: summaries must be a tuple of SummaryState")
    period = checked_size_bound(value_bits, beta, "beta")
    out: list[tuple[int, int, DigestParts]] = []
    upper = now + 1  # newest first: each interval ends below the newer one's start
    weight = 0
    for s in state.summaries:
        if not isinstance(s, SummaryState):
            raise TypeError(f"snapshot: summaries must be SummaryState, got {type(s).__name__}")
        hi = _state_int(s.hi, 0, upper, "summary hi (newest first, disjoint, <= now)")
        lo = _state_int(s.lo, 0, hi + 1, "summary lo (<= hi)")
        digest = check_qdigest_state(s.digest, value_bits, beta, period)
        if digest[1] == 0:
            raise ValueError(f"snapshot: summary [{lo}, {hi}] is empty")
        weight += digest[1]
        out.append((lo, hi, digest))
        upper = lo
    if weight != total:
        raise ValueError(f"snapshot: the summaries hold {weight}, the total is {total}")
    out.reverse()
    ml = len(out) if maintained_len is None else _state_int(maintained_len, 0, MAX_TOTAL_WEIGHT, "maintained_len")
    if len(out) >= 2 * ml + 8:
        raise ValueError(f"snapshot: {len(out)} summaries with maintained_len {ml}: maintenance overdue")
    return now, total, out, state.maintained, ml


#: decays whose smoothness is a theorem (Definition 6), not a numeric observation
_PROVEN_SMOOTH = (ExponentialDecay, PolynomialDecay, NoDecay)


def check_smooth_decay(decay: Any, time_bits: int) -> Decay:
    """``decay`` if value division may use it: a :class:`Decay`, smooth and positive over ``[0, 2**time_bits)``
    (built-in exponential/polynomial decays are smooth by Definition 6; others are checked numerically)."""
    if not isinstance(decay, Decay):
        raise InvalidParameterError(f"decay must be a swagkit.spec.decay.Decay, got {type(decay).__name__}")
    horizon = min((1 << time_bits) - 1, 4096)
    if not isinstance(decay, _PROVEN_SMOOTH):
        if not decay.smooth or not decay.is_smooth_on(horizon):
            raise InvalidParameterError(
                f"value division needs a smooth decay (Definition 6: g(a)/g(a+A) non-increasing); {decay.name} is not"
            )
    if decay((1 << time_bits) - 1) <= 0.0:
        raise InvalidParameterError(f"value division needs g > 0 on the time universe; {decay.name} reaches 0")
    return decay


class _Summary:
    __slots__ = ("lo", "hi", "digest")

    def __init__(self, lo: int, hi: int, digest: QDigest) -> None:
        self.lo, self.hi, self.digest = lo, hi, digest


class ValueDivision(Guarded):
    """Decayed ranks, quantiles and heavy hitters for a smooth decay, error ``(θ + β + θβ)·D`` (paper 004 §4.2;
    id ``value_division``).

    Exception safety: *strong* -- a decay whose ``weight`` raises leaves the structure exactly as before the
    operation (maintenance decides every merge before it performs any). Not thread-safe: an overlapping call
    (from the decay, or a second thread) raises ``ReentrantCallError`` and changes nothing.

    >>> from swagkit.spec.decay import PolynomialDecay
    >>> vd = ValueDivision(time_bits=4, value_bits=2, decay=PolynomialDecay(1), theta=0.1, beta=0.1)
    >>> vd.advance(3)
    >>> for value, ts in [(2, 2), (1, 3), (2, 1)]:     # <y,2>, <x,3>, <y,1> with x = 1, y = 2 (§2.3 example)
    ...     vd.insert(value, ts)
    >>> vd.decayed_heavy_hitters(0.5)                    # at t = 3 only x
    [1]
    >>> vd.advance(4); vd.decayed_heavy_hitters(0.5)     # at t = 4 only y
    [2]
    """

    algorithm: ClassVar[str] = "value_division"
    exception_safety: ClassVar[str] = "strong"

    def __init__(self, time_bits: int, value_bits: int, decay: Decay, theta: float, beta: float) -> None:
        self._tbits = check_bits(int_arg(time_bits), "time_bits")
        self._vbits = check_bits(int_arg(value_bits), "value_bits")
        self._theta = check_spread(real_arg(theta), "theta")
        self._beta = check_accuracy(real_arg(beta), "beta")
        checked_size_bound(self._vbits, self._beta, "beta")  # the digests' compress period
        self._decay = check_smooth_decay(decay, self._tbits)
        self.now = 0
        self._total = 0
        self._sums: list[_Summary] = []  # oldest first (lo increasing), intervals disjoint
        self._his: list[int] = []  # hi of each summary, for bisect
        self._maintained = True
        self._maintained_len = 0
        self._init_guard()

    def _params(self) -> dict[str, Any]:
        # maintained_len is not in the snapshot (it schedules the next maintenance): saved alongside
        return {
            "time_bits": self._tbits,
            "value_bits": self._vbits,
            "decay": self._decay,
            "theta": self._theta,
            "beta": self._beta,
            "maintained_len": self._maintained_len,
        }

    @classmethod
    def _from_snapshot(cls, monoid: Any, snapshot: Any, **params: Any) -> ValueDivision:
        """The structure whose :meth:`snapshot` is ``snapshot`` (copying and pickling; the shape is validated).
        ``params``: the constructor's (``time_bits``, ``value_bits``, ``decay``, ``theta``, ``beta``) and
        ``maintained_len`` (the summary count at the last maintenance; default: the current count)."""
        maintained_len = params.pop("maintained_len", None)
        obj = cls(**params)
        now, total, sums, maintained, ml = check_value_division_state(
            snapshot,
            time_bits=obj._tbits,
            value_bits=obj._vbits,
            decay_name=obj._decay.name,
            theta=obj._theta,
            beta=obj._beta,
            maintained_len=maintained_len,
        )
        obj.now, obj._total, obj._maintained, obj._maintained_len = now, total, maintained, ml
        for lo, hi, (nodes, dtotal, pending) in sums:
            d = QDigest(obj._vbits, obj._beta)
            d._nodes, d._total, d._pending = dict(nodes), dtotal, pending
            obj._sums.append(_Summary(lo, hi, d))
        obj._his = [s.hi for s in obj._sums]
        return obj

    # -- parameters ----------------------------------------------------------------------------------------------

    @property
    def time_bits(self) -> int:
        return self._tbits

    @property
    def value_bits(self) -> int:
        return self._vbits

    @property
    def decay(self) -> Decay:
        return self._decay

    @property
    def theta(self) -> float:
        return self._theta

    @property
    def beta(self) -> float:
        return self._beta

    @property
    def eps(self) -> float:
        """The error factor ``θ + β + θβ`` (notes §5.2)."""
        return value_division_error(self._theta, self._beta)

    @property
    def total(self) -> int:
        return self._total

    def summary_count(self) -> int:
        """m, the number of summaries."""
        return len(self._sums)

    @guarded
    def node_count(self) -> int:
        """Stored ranges over all summaries (the paper's space unit)."""
        return sum(s.digest.node_count() for s in self._sums)

    # -- updates -------------------------------------------------------------------------------------------------

    @guarded
    def advance(self, t: int) -> None:
        """Set the current time to ``t`` (``now <= t < 2**T``). Summaries become mergeable as ages grow; the
        next maintenance merges them."""
        t = check_advance(int_arg(t), self._tbits, self.now)
        if t != self.now:
            self.now = t
            self._maintained = False

    @guarded
    def insert(self, value: int, timestamp: int, weight: int = 1) -> None:
        """Add ``weight`` copies of ``value`` stamped ``timestamp <= now`` to the summary covering the timestamp.

        Validated first; if the insert opens a summary and maintenance is due, every merge is decided (the
        decay's calls) before anything changes, so a raising decay leaves the structure as it was."""
        x = check_value(int_arg(value), self._vbits)
        t = check_timestamp(int_arg(timestamp), self._tbits, self.now)
        w = check_weight(int_arg(weight))
        check_total(self._total, w)
        if w:
            self._insert(x, t, w)

    def _insert(self, x: int, t: int, w: int) -> None:
        """Insert validated input: all-or-nothing (module docstring)."""
        i = bisect.bisect_left(self._his, t)  # first summary with hi >= t
        if i < len(self._sums) and self._sums[i].lo <= t:
            self._sums[i].digest._add(x, w)  # no user code: cannot fail half-way
            self._total += w
            return
        d = QDigest(self._vbits, self._beta)
        d._add(x, w)
        sums = self._sums[:i] + [_Summary(t, t, d)] + self._sums[i:]
        if len(sums) >= 2 * self._maintained_len + 8:
            merged = self._apply(sums, self._plan(sums))  # the plan may raise: nothing changed yet
            self._install(merged, maintained=True)
        else:
            self._install(sums, maintained=False)
        self._total += w

    @guarded
    def insert_many(self, items: Iterable[tuple[int, int]]) -> None:
        """Insert ``(value, timestamp)`` pairs with weight 1 (all validated first: on bad input nothing changes).
        Each insertion is all-or-nothing: if the decay raises during the j-th one (maintenance), the first j
        stay inserted and the exception carries a note saying so."""
        pairs = [
            (check_value(int_arg(x), self._vbits), check_timestamp(int_arg(t), self._tbits, self.now)) for x, t in items
        ]
        check_total(self._total, len(pairs))
        for j, (x, t) in enumerate(pairs):
            try:
                self._insert(x, t, 1)
            except BaseException as err:
                err.add_note(f"swagkit value_division: insert_many inserted {j} of {len(pairs)} values")
                raise

    def _g(self, age: int) -> float:
        """The decay's weight at ``age``, checked (:func:`check_decay_weight`)."""
        return check_decay_weight(self._decay, age, self._decay(age))

    def _spread_ok(self, newer_hi: int, older_lo: int) -> bool:
        """V3 for the union: ``g(t - hi) <= (1 + θ)·g(t - lo)``."""
        return self._g(self.now - newer_hi) <= (1.0 + self._theta) * self._g(self.now - older_lo)

    def _plan(self, sums: list[_Summary]) -> list[tuple[int, int]]:
        """Maintenance's decisions on ``sums`` (oldest first) -- every call of the decay, nothing changed: the
        groups ``(oldest, newest)`` of adjacent summaries to merge, newest group first. Walking from the newest
        summary, a group absorbs the next older summary while the union's spread is at most ``1 + θ``."""
        groups: list[tuple[int, int]] = []
        i = len(sums) - 1
        while i >= 0:
            top = i
            hi = sums[i].hi
            i -= 1
            while i >= 0 and self._spread_ok(hi, sums[i].lo):
                i -= 1
            groups.append((i + 1, top))
        return groups

    def _apply(self, sums: list[_Summary], groups: list[tuple[int, int]]) -> list[_Summary]:
        """The summary list after merging ``groups`` (no user code; ``sums`` and its digests are not modified:
        a merged group gets a new digest, the union of the group's, compressed once)."""
        out: list[_Summary] = []  # newest first
        for oldest, newest in groups:
            if oldest == newest:
                out.append(sums[newest])
                continue
            d = sums[newest].digest._copy()
            for k in range(newest - 1, oldest - 1, -1):
                d._absorb(sums[k].digest)
            d._compress()
            out.append(_Summary(sums[oldest].lo, sums[newest].hi, d))
        out.reverse()
        return out

    def _install(self, sums: list[_Summary], *, maintained: bool) -> None:
        self._sums, self._his = sums, [s.hi for s in sums]
        if maintained:
            self._maintained, self._maintained_len = True, len(sums)
        else:
            self._maintained = False

    @guarded
    def maintain(self) -> None:
        """Merge adjacent summaries, newest first, while the union's spread is at most ``1 + θ`` (the digests are
        unioned and compressed once). Afterwards no adjacent pair is mergeable at time ``now``. O(m) + merges.
        Strong: all the decay's calls come first; if one raises, nothing changed."""
        self._install(self._apply(self._sums, self._plan(self._sums)), maintained=True)

    # -- queries -------------------------------------------------------------------------------------------------

    def _weights(self) -> list[tuple[float, QDigest]]:
        """``(g(now - hi_j), digest_j)``, newest first."""
        now = self.now
        return [(self._g(now - s.hi), s.digest) for s in reversed(self._sums)]

    @guarded
    def decayed_count(self) -> float:
        """``D̂ = Σ g(now - hi_j)·n_j``: ``D <= D̂ <= (1+θ)·D``."""
        return sum(k * d.total for k, d in self._weights())

    @guarded
    def decayed_rank(self, x: int) -> float:
        """``R̂(x) = Σ g(now - hi_j)·r̂_j(x)``: decayed weight with value ``< x``, within ``(θ + β + θβ)·D``."""
        q = check_rank_point(int_arg(x), self._vbits)
        return sum(k * d._rank(q) for k, d in self._weights())

    def _ranges(self) -> tuple[float, list[tuple[int, float]]]:
        total = 0.0
        out: list[tuple[int, float]] = []
        for k, d in self._weights():
            total += k * d.total
            out.extend((hi, k * c) for _, hi, c in d._ranges())
        return total, out

    @guarded
    def decayed_quantile(self, phi: float) -> int | None:
        """Smallest x with ``R̂(x+1) >= φ·D̂`` (two-sided test with ``ε = θ + β + θβ``); None when empty."""
        p = check_phi(real_arg(phi))
        return _quantile_of(*self._ranges(), p)

    @guarded
    def decayed_heavy_hitters(self, phi: float) -> list[int]:
        """Values with ``f̂(p) >= φ·D̂`` (Definition 4 with ``ε = θ + β + θβ``), sorted."""
        p = check_phi(real_arg(phi), open_low=True)
        return _heavy_of(*self._ranges(), p)

    @guarded
    def intervals(self) -> list[tuple[int, int, int]]:
        """``(lo, hi, weight)`` of every summary, newest first."""
        return [(s.lo, s.hi, s.digest.total) for s in reversed(self._sums)]

    @guarded
    def snapshot(self) -> ValueDivisionState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.value_division`."""
        return ValueDivisionState(
            time_bits=self._tbits,
            value_bits=self._vbits,
            theta=self._theta,
            beta=self._beta,
            decay=self._decay.name,
            now=self.now,
            total=self._total,
            summaries=tuple(SummaryState(s.lo, s.hi, s.digest._snapshot()) for s in reversed(self._sums)),
            maintained=self._maintained,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(time_bits={self._tbits}, value_bits={self._vbits}, decay={self._decay.name}, "
            f"theta={self._theta!r}, beta={self._beta!r}, now={self.now}, summaries={len(self._sums)})"
        )
