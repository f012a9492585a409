"""The q-digest (paper 004 §3.1 box, after Shrivastava et al. [25] and Cormode et al. [11]).

A q-digest over the universe ``[0, M)``, ``M = 2^b``, is a set of dyadic ranges with counts. Ranges are heap ids
(root 1, children ``2v`` and ``2v+1``, leaf of ``x`` is ``M + x``; notes §2.1). With ``γ = εN/b``:

* **P1 (node cap)** every non-leaf range holds at most γ; leaves are uncapped;
* **P2 (family lower bound)** after :meth:`QDigest.compress`, ``c(par r) + c(r) + c(sib r) >= γ`` for every
  stored non-root range r.

Rank ``r̂(q) = Σ{c(r) : hi(r) < q}`` satisfies ``r̂(q) <= r(q) <= r̂(q) + εN``: only non-leaf ranges straddling
q can hide items below q, at most b of them, each ``<= γ``. Only P1 matters for accuracy; P2 bounds the size
to ``4b/ε + 1`` ranges after compress (:func:`swagkit.spec.decay_bounds.qdigest_size_bound`).

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
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import Any, Callable, Iterable

from swagkit.spec.decay_bounds import qdigest_size_bound
from swagkit.spec.decay_errors import IncompatibleSummaryError
from swagkit.spec.decay_input import (
    check_accuracy,
    check_bits,
    check_phi,
    check_rank_point,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay_snapshots import QDigestState, node_range
from swagkit.spec.monoid import Monoid

__all__ = ["QDigest", "qdigest_monoid", "qdigests_equivalent"]


class QDigest:
    """q-digest over ``[0, 2**universe_bits)`` with rank error at most ``eps·N`` (id ``qdigest``).

    >>> d = QDigest(universe_bits=4, eps=0.25)
    >>> for x in [3, 3, 7, 9, 12, 12, 12, 15]:
    ...     d.insert(x)
    >>> d.rank(12), d.total                       # exact here: nothing was merged yet
    (4, 8)
    >>> lo = d.rank(10); lo <= 4 <= lo + 0.25 * 8  # the guarantee, in general
    True
    """

    algorithm = "qdigest"

    def __init__(self, universe_bits: int, eps: float) -> None:
        self._bits = check_bits(universe_bits, "universe_bits")
        self._eps = check_accuracy(eps, "eps")
        q = Fraction(self._eps)
        self._eps_num, self._eps_den = q.numerator, q.denominator
        self._M = 1 << self._bits
        self._nodes: dict[int, int] = {}
        self._total = 0
        self._pending = 0
        #: inserts between automatic compressions: the size bound, so S <= 2·bound at any time
        self.compress_period = qdigest_size_bound(self._bits, self._eps)

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

    def copy(self) -> "QDigest":
        """An independent copy. O(S)."""
        c = type(self)(self._bits, self._eps)
        c._nodes = dict(self._nodes)
        c._total, c._pending = self._total, self._pending
        return c

    # -- updates -------------------------------------------------------------------------------------------------

    def insert(self, x: int, weight: int = 1) -> None:
        """QDINSERT: add ``weight`` copies of value ``x`` at its leaf. O(1) expected, amortized compress.

        Raises :class:`~swagkit.spec.decay_errors.OutOfUniverseError`, ``NegativeWeightError``,
        ``InputTypeError`` or ``WeightOverflowError`` before changing anything; weight 0 changes nothing."""
        v = check_value(x, self._bits)
        w = check_weight(weight)
        check_total(self._total, w)
        if w == 0:
            return
        leaf = self._M + v
        self._nodes[leaf] = self._nodes.get(leaf, 0) + w
        self._total += w
        self._pending += 1
        if self._pending >= self.compress_period:
            self.compress()

    def insert_many(self, values: Iterable[int]) -> None:
        """Insert each of ``values`` with weight 1 (all validated first: on bad input nothing is inserted)."""
        vs = [check_value(x, self._bits) for x in values]
        check_total(self._total, len(vs))
        for v in vs:
            self.insert(v)

    def compress(self) -> None:
        """QDCOMPRESS to a fixed point: merge every family whose sum is below γ into its parent.

        One pass visits the stored ranges deepest first (decreasing heap id; a merge's parent joins the same
        pass); passes repeat until nothing merges, because a merge lowers the family sums of the merged ranges'
        children. Afterwards P1 and P2 hold everywhere (module docstring)."""
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

    def merge(self, other: "QDigest") -> None:
        """Add ``other``'s ranges to this digest (union of ranges, counts summed) and compress at the new γ.

        Both must have the same universe and ε (:class:`IncompatibleSummaryError` otherwise). The union keeps P1
        (each count was ``<= εN_i/b <= εN/b``), so the merged digest has error at most ``ε(N_1 + N_2)``."""
        if not isinstance(other, QDigest) or other.universe_bits != self._bits or other.eps != self._eps:
            raise IncompatibleSummaryError(
                f"cannot merge {other!r} into {self!r}: universe_bits and eps must be equal"
            )
        check_total(self._total, other.total)
        for node, count in list(other._iter_nodes()):
            self._nodes[node] = self._nodes.get(node, 0) + count
        self._total += other.total
        self.compress()

    def _absorb(self, other: "QDigest") -> None:
        """Union of ``other``'s ranges into this digest, counts summed, **without** compress (the caller
        compresses once after absorbing several digests). Same universe and ε assumed."""
        for node, count in list(other._iter_nodes()):
            self._nodes[node] = self._nodes.get(node, 0) + count
        self._total += other.total

    # -- queries -------------------------------------------------------------------------------------------------

    def rank(self, x: int) -> int:
        """r̂(x): weight of ranges entirely below ``x`` (``x`` in ``[0, 2**b]``); ``r̂(x) <= r(x) <= r̂(x) + εN``
        where r(x) is the weight of items ``< x``. O(S)."""
        q = check_rank_point(x, self._bits)
        return sum(c for node, c in self._nodes.items() if node_range(node, self._bits)[1] < q)

    def frequency(self, x: int) -> int:
        """f̂(x) = r̂(x+1) - r̂(x): weight of ranges ending at ``x``; ``|f̂(x) - f(x)| <= εN``. O(S)."""
        v = check_value(x, self._bits)
        return sum(c for node, c in self._nodes.items() if node_range(node, self._bits)[1] == v)

    def quantile(self, phi: float) -> int | None:
        """The smallest ``x`` with ``r̂(x+1) >= φN`` (None when empty). O(S log S).

        It passes the two-sided test ``r(x) <= (φ+ε)N`` and ``r(x+1) >= (φ-ε)N`` (notes §9 item 6):
        ``r(x+1) >= r̂(x+1) >= φN`` and, x being smallest, ``r(x) <= r̂(x) + εN < φN + εN``."""
        p = check_phi(phi)
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

    def ranges(self) -> list[tuple[int, int, int]]:
        """The stored ranges as ``(lo, hi, count)`` in post-order (by ``hi``, smaller ranges first)."""
        return [(node_range(n, self._bits)[0], hi, c) for hi, n, c in self._post_order_nodes()]

    def snapshot(self) -> QDigestState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.qdigest`."""
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
        return f"{type(self).__name__}(universe_bits={self._bits}, eps={self._eps!r}, total={self._total}, nodes={self.node_count()})"

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
    class.
    """
    cls: Callable[[int, float], Any] = digest_class if digest_class is not None else QDigest
    bits = check_bits(universe_bits, "universe_bits")
    e = check_accuracy(eps, "eps")
    identity = cls(bits, e)

    def lift(x: int) -> Any:
        d = cls(bits, e)
        d.insert(x)
        return d

    def combine(a: Any, b: Any) -> Any:
        if b.total == 0:
            return a
        if a.total == 0:
            return b
        c = a.copy()
        c.merge(b)
        return c

    return Monoid(
        identity=identity,
        combine=combine,
        lift=lift,
        name=f"qdigest(b={bits}, eps={e!r})",
        commutative=True,
        eq=qdigests_equivalent,
        tolerance="rank estimates within eps·N (merge order coarsens differently)",
    )
