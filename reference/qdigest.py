"""The q-digest (paper 004 §3.1 box, after Shrivastava et al. [25] and Cormode et al. [11]).

A q-digest over the universe ``[0, M)``, ``M = 2^b``, is a set of dyadic ranges with counts. Ranges are heap ids
(root 1, children ``2v`` and ``2v+1``, leaf of ``x`` is ``M + x``; notes §2.1). With ``γ = εN/b``:

* **P1 (node cap)** every non-leaf range holds at most γ; leaves are uncapped;
* **P2 (family lower bound)** after :meth:`QDigest.compress`, ``c(par r) + c(r) + c(sib r) >= γ`` for every
  stored non-root range r.

Rank ``r̂(q) = Σ{c(r) : hi(r) < q}`` satisfies ``r̂(q) <= r(q) <= r̂(q) + εN``: only non-leaf ranges straddling
q can hide items below q, at most b of them, each ``<= γ``. Only P1 matters for accuracy; P2 bounds the size
to ``4b/ε + 1`` ranges after compress (:func:`swagkit.spec.decay.bounds.qdigest_size_bound`).

Where swagkit departs from the paper, and why:

* **No closure (P3).** The paper keeps every stored range's parent (zero counts included) so that QDINSERT can
  binary-search the root-to-leaf path. Closure and the size bound cannot hold together: ``b/ε - 1`` leaves that
  each hold ``γ + 1`` (leaves are uncapped) force their whole root paths, about ``(b/ε)(b - log2(b/ε))``
  ranges, far over ``4b/ε + 1`` (a regression test builds this stream). swagkit stores only ranges with positive
  counts, as [25] does; the checker *reports* how many ranges a closed realization would add.
* **Insert at the leaf, compress periodically.** ``insert`` adds to the leaf (O(1) expected); every
  ``compress_period`` (= the size bound) inserts trigger :meth:`compress`, so between compressions the digest
  holds at most ``2·(4b/ε + 1)`` ranges. Any placement that keeps P1 keeps the error bound (notes §2.3).
* **Compress to a fixed point.** The paper's bottom-up QDCOMPRESS can break P2 below a merged node (moving a
  count up lowers its children's family sum, notes §2.3). :meth:`compress` repeats bottom-up passes until no
  family sums to less than γ, so P2 holds for **every** stored range and the size bound is a theorem, not a
  hope. Each merge moves weight strictly upwards, so the passes terminate (in practice after one or two).
* **Exact thresholds.** γ is compared as the exact rational ``Fraction(eps)·N/b`` (integers only), never a
  rounded float, so the bounds can be checked exactly.

Complexity: insert O(1) expected (plus the amortized compress); compress O(S log S) per pass for S stored ranges;
rank and frequency O(S); quantile O(S log S); merge O(S) plus a compress. Space ``<= 4b/ε + 1`` ranges after
compress, ``<= 2(4b/ε + 1)`` at any time.

The q-digest is mergeable, so it is also a monoid: :func:`qdigest_monoid` lets every SWAG algorithm of the
package keep q-digests of a sliding window (aggregates are equal up to the digest's stated tolerance: two
correct digests of the same multiset have rank estimates within εN of each other).

Robustness (issue 12), shared by paper 004's four structures (q-digest, window count, window quantiles, value
division) in both implementations:

* **Input** is validated completely before anything changes (:mod:`swagkit.spec.decay.input`); numpy integers
  (and any ``numbers.Integral`` but ``bool``) are accepted wherever an int is, numpy floats wherever a float
  parameter is (:func:`int_arg`, :func:`real_arg`). An ε so small that a derived size (the compress period
  ``4b/ε + 1``, a level budget α) would reach 2**62 is refused with ``InvalidParameterError``.
* **Exception safety: strong.** The q-digest calls no user code, so an operation either raises before it changes
  anything or completes (``exception_safety = "strong"``).
* **Re-entry**: every public operation but plain sizes and properties holds the structure's guard
  (:mod:`swagkit.reference._guard`); an overlapping call (a second thread, or a value's ``__index__``
  calling back) raises ``ReentrantCallError`` before it changes anything. Not thread-safe.
* **Copying and pickling** go by snapshot (``copy.copy``, ``copy.deepcopy``, ``pickle``: flat, independent);
  :func:`check_qdigest_state` validates a snapshot's shape before anything is rebuilt from it, so a malformed
  one raises ``TypeError``/``ValueError``.
* ``merge`` accepts a q-digest of either implementation (the other one's ranges are read from its snapshot:
  exact), and refuses anything else with ``InputTypeError`` (a ``TypeError``).
"""

from __future__ import annotations

import heapq
import numbers
import operator
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any, ClassVar

from swagkit.spec.decay.bounds import qdigest_size_bound
from swagkit.spec.decay.errors import (
    MAX_TOTAL_WEIGHT,
    IncompatibleSummaryError,
    InputTypeError,
    InvalidParameterError,
)
from swagkit.spec.decay.input import (
    check_accuracy,
    check_bits,
    check_phi,
    check_rank_point,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay.snapshots import QDigestState, node_range
from swagkit.spec.monoid import Monoid

from ._guard import Guarded, guarded, reentered

__all__ = [
    "QDigest",
    "qdigest_monoid",
    "qdigests_equivalent",
    "int_arg",
    "real_arg",
    "checked_size_bound",
    "check_qdigest_state",
    "check_state_nodes",
    "foreign_digest_nodes",
]


# ------------------------------------------------------------------------------------------------------------
# arguments, sizes and snapshots: shared by paper 004's structures in both implementations


def int_arg(x: Any) -> Any:
    """``x`` as a plain ``int`` when it is an integer of another type (numpy's ``int64``, ``uint8`` …: any
    ``numbers.Integral`` but ``bool``, through ``__index__``); anything else unchanged, for the
    :mod:`~swagkit.spec.decay.input` checks to accept (``int``) or refuse (``bool``, ``float`` …)."""
    if type(x) is int or isinstance(x, bool) or not isinstance(x, numbers.Integral):
        return x
    try:
        return operator.index(x)
    except TypeError:
        return x


def real_arg(x: Any) -> Any:
    """A float parameter (ε, θ, β, φ): numpy floats (any ``numbers.Real`` that is not an ``int``, ``float`` or
    ``Fraction``) as a ``float``, numpy integers as an ``int``; anything else unchanged (checked later)."""
    if type(x) is float or type(x) is int or isinstance(x, (bool, float, Fraction)):
        return x
    if isinstance(x, numbers.Integral):
        return int_arg(x)
    if isinstance(x, numbers.Real):
        return float(x)
    return x


def checked_size_bound(bits: int, eps: float, what: str = "eps") -> int:
    """The compress period ``⌊4b/ε + 1⌋`` of a q-digest (:func:`~swagkit.spec.decay.bounds.qdigest_size_bound`),
    refused with ``InvalidParameterError`` when it reaches 2**62 (an ε that small cannot be honoured with int64
    counts; ``eps/2`` of a subnormal ε is 0)."""
    if not eps > 0.0:
        raise InvalidParameterError(f"{what} = {eps!r} is too small: it must stay positive")
    n = qdigest_size_bound(bits, eps)
    if n >= MAX_TOTAL_WEIGHT:
        raise InvalidParameterError(
            f"{what} = {eps!r} is too small: the size bound 4b/{what} + 1 must stay below 2**62"
        )
    return n


def _state_int(x: Any, lo: int, hi: int, what: str) -> int:
    """A snapshot field: an int (not bool) in ``[lo, hi)``; ``TypeError``/``ValueError`` otherwise."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"snapshot: {what} must be an int, got {type(x).__name__}")
    if not lo <= x < hi:
        raise ValueError(f"snapshot: {what} = {x} is outside [{lo}, {hi})")
    return int(x)


def check_state_nodes(nodes: Any, bits: int, what: str) -> tuple[list[tuple[int, int]], int]:
    """A snapshot's stored ranges: a tuple of ``(heap id, count)`` pairs, ids strictly increasing in
    ``[1, 2**(bits+1))``, counts in ``[1, 2**62)``, their sum below 2**62. Returns them and their sum.
    ``TypeError``/``ValueError`` otherwise (O(S), nothing else is trusted)."""
    if not isinstance(nodes, tuple):
        raise TypeError(f"snapshot: {what} must be a tuple of (id, count) pairs, got {type(nodes).__name__}")
    out: list[tuple[int, int]] = []
    prev = 0
    total = 0
    limit = 1 << (bits + 1)
    for pair in nodes:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"snapshot: {what} must hold (id, count) pairs, got {pair!r}")
        node = _state_int(pair[0], prev + 1, limit, f"{what} id (sorted, unique)")
        count = _state_int(pair[1], 1, MAX_TOTAL_WEIGHT, f"{what} count")
        total += count
        if total >= MAX_TOTAL_WEIGHT:
            raise ValueError(f"snapshot: the counts of {what} reach 2**62")
        out.append((node, count))
        prev = node
    return out, total


def check_qdigest_state(state: Any, bits: int, eps: float, period: int) -> tuple[list[tuple[int, int]], int, int]:
    """Validate the shape of a :class:`QDigestState` for a digest with these parameters (copying, pickling):
    returns ``(nodes, total, pending)``; ``TypeError``/``ValueError`` for a malformed snapshot. The stored
    ranges must sum to the total and ``pending`` lie in ``[0, compress_period)``; the paper's invariants (P1,
    P2) are the checker's business (:mod:`swagkit.spec.checkers.qdigest`), not needed for safety."""
    if not isinstance(state, QDigestState):
        raise TypeError(f"snapshot: expected a QDigestState, got {type(state).__name__}")
    if state.universe_bits != bits or state.eps != eps or state.compress_period != period:
        raise ValueError(
            f"snapshot: a digest over {state.universe_bits} bits with eps {state.eps!r} (period "
            f"{state.compress_period!r}) cannot be restored as one over {bits} bits with eps {eps!r}"
        )
    nodes, total = check_state_nodes(state.nodes, bits, "qdigest nodes")
    if _state_int(state.total, 0, MAX_TOTAL_WEIGHT, "total") != total:
        raise ValueError(f"snapshot: total {state.total} differs from the sum of the counts {total}")
    pending = _state_int(state.pending, 0, period, "pending")
    if state.compressed is not (pending == 0):
        raise ValueError("snapshot: compressed must be True exactly when pending is 0")
    return nodes, total, pending


def foreign_digest_nodes(other: Any, bits: int, eps: float, into: str) -> tuple[list[tuple[int, int]], int]:
    """The ranges and total of ``other``, a q-digest of the *other* implementation (read from its snapshot, so the
    merge is exact). ``InputTypeError`` (a ``TypeError``) when ``other`` is no q-digest,
    ``IncompatibleSummaryError`` when its universe or ε differ."""
    if getattr(type(other), "algorithm", None) != "qdigest" or not callable(getattr(other, "snapshot", None)):
        raise InputTypeError(
            f"qdigest: merge() takes a q-digest (swagkit.reference.QDigest or swagkit.optimized.QDigest), "
            f"got {type(other).__name__}"
        )
    state = other.snapshot()
    if not isinstance(state, QDigestState):
        raise InputTypeError(f"qdigest: merge() takes a q-digest, {type(other).__name__}.snapshot() is no QDigestState")
    if state.universe_bits != bits or state.eps != eps:
        raise IncompatibleSummaryError(f"cannot merge {other!r} into {into}: universe_bits and eps must be equal")
    nodes, total = check_state_nodes(state.nodes, bits, "qdigest nodes")
    if state.total != total:
        raise ValueError(f"merge: {type(other).__name__}'s total {state.total} differs from its counts' sum {total}")
    return nodes, total


# ------------------------------------------------------------------------------------------------------------
# the q-digest


class QDigest(Guarded):
    """q-digest over ``[0, 2**universe_bits)`` with rank error at most ``eps·N`` (id ``qdigest``).

    Exception safety: *strong* (it calls no user code: every operation validates its input, then completes).
    Not thread-safe: an overlapping call raises ``ReentrantCallError`` and changes nothing. Copies and pickles
    go by snapshot.

    >>> d = QDigest(universe_bits=4, eps=0.25)
    >>> for x in [3, 3, 7, 9, 12, 12, 12, 15]:
    ...     d.insert(x)
    >>> d.rank(12), d.total                       # exact here: nothing was merged yet
    (4, 8)
    >>> lo = d.rank(10); lo <= 4 <= lo + 0.25 * 8  # the guarantee, in general
    True
    """

    algorithm: ClassVar[str] = "qdigest"
    exception_safety: ClassVar[str] = "strong"

    def __init__(self, universe_bits: int, eps: float) -> None:
        self._bits = check_bits(int_arg(universe_bits), "universe_bits")
        self._eps = check_accuracy(real_arg(eps), "eps")
        #: inserts between automatic compressions: the size bound, so S <= 2·bound at any time
        self.compress_period = checked_size_bound(self._bits, self._eps)
        q = Fraction(self._eps)
        self._eps_num, self._eps_den = q.numerator, q.denominator
        self._M = 1 << self._bits
        self._nodes: dict[int, int] = {}
        self._total = 0
        self._pending = 0
        self._init_guard()

    # -- parameters and state ----------------------------------------------------------------------------------

    @property
    def universe_bits(self) -> int:
        """b: values lie in ``[0, 2**b)``."""
        return self._bits

    @property
    def eps(self) -> float:
        """ε: rank error at most ``ε·total``."""
        return self._eps

    @property
    def total(self) -> int:
        """N, the total weight summarized."""
        return self._total

    def node_count(self) -> int:
        """Number of stored ranges (``<= 4b/ε + 1`` after :meth:`compress`). O(1)."""
        return len(self._nodes)

    @guarded
    def copy(self) -> QDigest:
        """An independent copy. O(S)."""
        return self._copy()

    def _copy(self) -> QDigest:
        c = type(self)(self._bits, self._eps)
        c._nodes = dict(self._nodes)
        c._total, c._pending = self._total, self._pending
        return c

    def _params(self) -> dict[str, Any]:
        return {"universe_bits": self._bits, "eps": self._eps}

    @classmethod
    def _from_snapshot(cls, monoid: Any, snapshot: Any, **params: Any) -> QDigest:
        """The digest whose :meth:`snapshot` is ``snapshot`` (copying and pickling; the shape is validated).
        ``params``: the constructor's (``universe_bits``, ``eps``)."""
        d = cls(**params)
        nodes, total, pending = check_qdigest_state(snapshot, d._bits, d._eps, d.compress_period)
        d._nodes = dict(nodes)
        d._total, d._pending = total, pending
        return d

    # -- updates -------------------------------------------------------------------------------------------------

    @guarded
    def insert(self, x: int, weight: int = 1) -> None:
        """QDINSERT: add ``weight`` copies of value ``x`` at its leaf. O(1) expected, amortized compress.

        Raises :class:`~swagkit.spec.decay.errors.OutOfUniverseError`, ``NegativeWeightError``,
        ``InputTypeError`` or ``WeightOverflowError`` before changing anything; weight 0 changes nothing."""
        v = check_value(int_arg(x), self._bits)
        w = check_weight(int_arg(weight))
        check_total(self._total, w)
        if w:
            self._add(v, w)

    def _add(self, v: int, w: int) -> None:
        """QDINSERT of a validated value and weight > 0 (no guard: the callers hold it or own the digest)."""
        leaf = self._M + v
        self._nodes[leaf] = self._nodes.get(leaf, 0) + w
        self._total += w
        self._pending += 1
        if self._pending >= self.compress_period:
            self._compress()

    @guarded
    def insert_many(self, values: Iterable[int]) -> None:
        """Insert each of ``values`` with weight 1 (all validated first: on bad input nothing is inserted)."""
        vs = [check_value(int_arg(x), self._bits) for x in values]
        check_total(self._total, len(vs))
        for j, v in enumerate(vs):
            try:
                self._add(v, 1)
            except BaseException as err:  # pragma: no cover - only MemoryError or an asynchronous interrupt
                err.add_note(f"swagkit qdigest: insert_many inserted {j} of {len(vs)} values")
                raise

    @guarded
    def compress(self) -> None:
        """QDCOMPRESS to a fixed point: merge every family whose sum is below γ into its parent.

        One pass visits the stored ranges deepest first (decreasing heap id; a merge's parent joins the same
        pass); passes repeat until nothing merges, because a merge lowers the family sums of the merged ranges'
        children. Afterwards P1 and P2 hold everywhere (module docstring)."""
        self._compress()

    def _compress(self) -> None:
        self._pending = 0
        limit = self._merge_limit()  # family sum s (an int) is below γ iff s < ⌈γ⌉
        if limit <= 1:  # no positive family sum is below γ
            return
        nodes = self._nodes
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
                    continue  # the right sibling (visited first) already decided this family
                parent = v >> 1
                had_parent = parent in nodes
                family = nodes.get(parent, 0) + nodes[v] + nodes.get(sib, 0)
                if family < limit:
                    nodes[parent] = family
                    del nodes[v]
                    nodes.pop(sib, None)
                    if not had_parent:
                        heapq.heappush(order, -parent)
                    changed = True

    @guarded
    def merge(self, other: Any) -> None:
        """Add ``other``'s ranges to this digest (union of ranges, counts summed) and compress at the new γ.

        ``other`` is a q-digest of either implementation (a compiled one is read through its snapshot: the
        result is exactly that of merging an equal reference digest); anything else raises ``InputTypeError``
        (a ``TypeError``). Both must have the same universe and ε (:class:`IncompatibleSummaryError` otherwise).
        The union keeps P1 (each count was ``<= εN_i/b <= εN/b``), so the merged digest has error at most
        ``ε(N_1 + N_2)``. Nothing changes when it raises."""
        if other is self:
            nodes, total = list(self._nodes.items()), self._total
        elif isinstance(other, QDigest):
            if other.universe_bits != self._bits or other.eps != self._eps:
                raise IncompatibleSummaryError(
                    f"cannot merge {other!r} into {self!r}: universe_bits and eps must be equal"
                )
            if not other._lock.acquire(blocking=False):  # the other digest is in use (another thread)
                raise reentered(self.algorithm, "merge")
            try:
                nodes, total = list(other._iter_nodes()), other._total
            finally:
                other._lock.release()
        else:
            nodes, total = foreign_digest_nodes(other, self._bits, self._eps, repr(self))
        check_total(self._total, total)
        for node, count in nodes:
            self._nodes[node] = self._nodes.get(node, 0) + count
        self._total += total
        self._compress()

    def _absorb(self, other: QDigest) -> None:
        """Union of ``other``'s ranges into this digest, counts summed, **without** compress (the caller
        compresses once after absorbing several digests). Same universe and ε assumed."""
        for node, count in list(other._iter_nodes()):
            self._nodes[node] = self._nodes.get(node, 0) + count
        self._total += other.total

    # -- queries -------------------------------------------------------------------------------------------------

    @guarded
    def rank(self, x: int) -> int:
        """r̂(x): weight of ranges entirely below ``x`` (``x`` in ``[0, 2**b]``); ``r̂(x) <= r(x) <= r̂(x) + εN``
        where r(x) is the weight of items ``< x``. O(S)."""
        return self._rank(check_rank_point(int_arg(x), self._bits))

    def _rank(self, q: int) -> int:
        return sum(c for node, c in self._nodes.items() if node_range(node, self._bits)[1] < q)

    @guarded
    def frequency(self, x: int) -> int:
        """f̂(x) = r̂(x+1) - r̂(x): weight of ranges ending at ``x``; ``|f̂(x) - f(x)| <= εN``. O(S)."""
        v = check_value(int_arg(x), self._bits)
        return sum(c for node, c in self._nodes.items() if node_range(node, self._bits)[1] == v)

    @guarded
    def quantile(self, phi: float) -> int | None:
        """The smallest ``x`` with ``r̂(x+1) >= φN`` (None when empty). O(S log S).

        It passes the two-sided test ``r(x) <= (φ+ε)N`` and ``r(x+1) >= (φ-ε)N`` (notes §9 item 6):
        ``r(x+1) >= r̂(x+1) >= φN`` and, x being smallest, ``r(x) <= r̂(x) + εN < φN + εN``."""
        p = check_phi(real_arg(phi))
        if self._total == 0:
            return None
        target = p * self._total
        if target <= 0:
            return 0
        acc = 0
        for hi, _, count in self._post_order():
            acc += count
            if acc >= target:
                return hi
        return self._M - 1  # unreachable: acc reaches N >= target

    @guarded
    def ranges(self) -> list[tuple[int, int, int]]:
        """The stored ranges as ``(lo, hi, count)`` in post-order (by ``hi``, smaller ranges first)."""
        return self._ranges()

    def _ranges(self) -> list[tuple[int, int, int]]:
        return [(node_range(n, self._bits)[0], hi, c) for hi, n, c in self._post_order_nodes()]

    @guarded
    def snapshot(self) -> QDigestState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.qdigest`."""
        return self._snapshot()

    def _snapshot(self) -> QDigestState:
        return QDigestState(
            universe_bits=self._bits,
            eps=self._eps,
            total=self._total,
            nodes=tuple(sorted(self._iter_nodes())),
            compressed=self._pending == 0,
            pending=self._pending,
            compress_period=self.compress_period,
        )

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(universe_bits={self._bits}, eps={self._eps!r}, total={self._total}, "
            f"nodes={self.node_count()})"
        )

    # -- helpers -------------------------------------------------------------------------------------------------

    def _iter_nodes(self) -> Iterable[tuple[int, int]]:
        return self._nodes.items()

    def _merge_limit(self) -> int:
        num = self._eps_num * self._total
        den = self._eps_den * self._bits
        return -((-num) // den)

    def _post_order_nodes(self) -> list[tuple[int, int, int]]:
        out = []
        for node, c in self._iter_nodes():
            out.append((node_range(node, self._bits)[1], node, c))
        # increasing hi; on ties the smaller range (deeper, larger id) first
        out.sort(key=lambda e: (e[0], -e[1]))
        return out

    def _post_order(self) -> list[tuple[int, int, int]]:
        return self._post_order_nodes()


# ------------------------------------------------------------------------------------------------------------
# the q-digest as a monoid


def qdigests_equivalent(a: Any, b: Any) -> bool:
    """Equality of q-digests up to their guarantee: same universe, ε and total, and rank estimates within
    ``ε·N`` of each other at every point (both lie in ``[r(q) - εN, r(q)]`` when both are correct digests of the
    same multiset). O((S_a + S_b) log)."""
    if a.universe_bits != b.universe_bits or a.eps != b.eps or a.total != b.total:
        return False
    ra, rb = a.ranges(), b.ranges()
    points = sorted({hi + 1 for _, hi, _ in ra} | {hi + 1 for _, hi, _ in rb} | {0})
    tol = Fraction(a.eps) * a.total
    ia = ib = 0
    acc_a = acc_b = 0
    for q in points:
        while ia < len(ra) and ra[ia][1] < q:
            acc_a += ra[ia][2]
            ia += 1
        while ib < len(rb) and rb[ib][1] < q:
            acc_b += rb[ib][2]
            ib += 1
        if abs(acc_a - acc_b) > tol:
            return False
    return True


class _QDigestOps:
    """``lift`` and ``combine`` of :func:`qdigest_monoid` as methods of a module-level class, so that the monoid
    (and every structure holding it) pickles."""

    def __init__(self, cls: Callable[[int, float], Any], bits: int, eps: float) -> None:
        self.cls, self.bits, self.eps = cls, bits, eps

    def lift(self, x: int) -> Any:
        d = self.cls(self.bits, self.eps)
        d.insert(x)
        return d

    def combine(self, a: Any, b: Any) -> Any:
        if b.total == 0:
            return a
        if a.total == 0:
            return b
        c = a.copy()
        c.merge(b)
        return c


def qdigest_monoid(
    universe_bits: int, eps: float, digest_class: Callable[[int, float], Any] | None = None
) -> Monoid[int, Any, Any]:
    """q-digests of ``[0, 2**universe_bits)`` under merge, as a :class:`~swagkit.spec.monoid.Monoid`.

    ``lift(x)`` is the digest of one item, ``combine(a, b)`` a new digest with ``a`` and ``b`` merged (operands
    are never modified; an empty operand returns the other one), ``identity`` the empty digest and ``lower``
    the identity (queries go to the digest: ``rank``, ``quantile`` …). Commutative: the union is symmetric and
    the compress deterministic. Associative **up to the digest's tolerance** (compressing at different points
    coarsens differently), so ``eq`` is :func:`qdigests_equivalent` and ``tolerance`` says so -- like the float
    monoids of the library. Every aggregate is a correct digest of its window (merge keeps P1), so a SWAG over
    this monoid answers rank queries of the window with error at most ``ε·n``.

    ``digest_class`` defaults to this module's :class:`QDigest`; :mod:`swagkit.optimized` passes its compiled
    class. The monoid pickles (its functions are methods of a module-level class), so SWAGs over it do too.
    """
    cls: Callable[[int, float], Any] = digest_class if digest_class is not None else QDigest
    bits = check_bits(int_arg(universe_bits), "universe_bits")
    e = check_accuracy(real_arg(eps), "eps")
    ops = _QDigestOps(cls, bits, e)
    identity = cls(bits, e)
    lift, combine = ops.lift, ops.combine

    return Monoid(
        identity=identity,
        combine=combine,
        lift=lift,
        name=f"qdigest(b={bits}, eps={e!r})",
        commutative=True,
        eq=qdigests_equivalent,
        tolerance="rank estimates within eps·N (merge order coarsens differently)",
    )
