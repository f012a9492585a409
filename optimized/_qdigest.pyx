# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""q-digest, compiled (paper 004 §3.1 box).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.qdigest` (see ``_qdigest_core.pxi``):
insert appends the leaf to a buffer (an int64 vector push), folded into the sorted range array before any
query; compress is the reference's fixed-point QDCOMPRESS over an open-addressing table, with the exact
threshold ``⌈εN/b⌉`` in 128-bit integers.

Complexity: insert O(1) amortized plus a compress every ``4b/ε + 1`` inserts (O(S log S) for S ranges); rank and
frequency O(S) after an O(B log B) fold of B buffered inserts; quantile O(S log S); merge O(S) plus a compress.
Space: 16 bytes per stored range (``<= 4b/ε + 1`` after compress) and per buffered insert.
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow

from swagkit.spec.decay_bounds import qdigest_size_bound
from swagkit.spec.decay_errors import IncompatibleSummaryError, MAX_TOTAL_WEIGHT
from swagkit.spec.decay_input import (
    check_accuracy,
    check_bits,
    check_phi,
    check_rank_point,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay_snapshots import QDigestState

DEF MAX_TOTAL = 4611686018427387904  # 2**62


cdef class QDigest:
    """QDigest(universe_bits, eps)
--

q-digest over ``[0, 2**universe_bits)`` with rank error at most ``eps·N`` (paper 004 §3.1 box), compiled;
    same API, snapshots and answers as ``swagkit.reference.QDigest``."""

    cdef QDCore* d
    cdef int64_t M

    algorithm = "qdigest"

    def __cinit__(self, universe_bits, eps):
        bits = check_bits(universe_bits, "universe_bits")
        e = check_accuracy(eps, "eps")
        m, ee = eps_exact(e)
        self.d = qd_new(bits, m, ee, e, qdigest_size_bound(bits, e))
        self.M = (<int64_t>1) << bits

    def __dealloc__(self) -> None:
        if self.d != NULL:
            del self.d
            self.d = NULL

    @property
    def universe_bits(self) -> int:
        """b: values lie in ``[0, 2**b)``."""
        return self.d.bits

    @property
    def eps(self) -> float:
        """ε: rank error at most ``ε·total``."""
        return self.d.eps

    @property
    def total(self) -> int:
        """N, the total weight summarized."""
        return self.d.total

    @property
    def compress_period(self) -> int:
        """Inserts between automatic compressions (the size bound)."""
        return self.d.period

    def node_count(self) -> int:
        """Number of stored ranges (``<= 4b/ε + 1`` after :meth:`compress`)."""
        qd_fold(self.d)
        return self.d.nodes.size()

    def copy(self) -> "QDigest":
        """An independent copy. O(S)."""
        cdef QDigest c = QDigest(self.d.bits, self.d.eps)
        del c.d
        c.d = qd_copy(self.d)
        return c

    def insert(self, x: int, weight: int = 1) -> None:
        """QDINSERT: add ``weight`` copies of value ``x`` (validated first; weight 0 changes nothing)."""
        cdef int overflow = 0
        cdef long long v, w
        if type(x) is int and type(weight) is int:
            v = PyLong_AsLongLongAndOverflow(x, &overflow)
            if overflow == 0 and 0 <= v < self.M:
                w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                if overflow == 0 and 0 < w < MAX_TOTAL and self.d.total + w < MAX_TOTAL:
                    qd_insert(self.d, self.M + v, w)
                    return
        v = check_value(x, self.d.bits)
        w = check_weight(weight)
        check_total(self.d.total, w)
        if w:
            qd_insert(self.d, self.M + v, w)

    def insert_many(self, values: Iterable[int]) -> None:
        """Insert each of ``values`` with weight 1 (all validated first: on bad input nothing is inserted)."""
        cdef vector[int64_t] vs
        cdef int overflow = 0
        cdef long long v
        cdef size_t i
        for x in values:
            if type(x) is int:
                v = PyLong_AsLongLongAndOverflow(x, &overflow)
                if overflow == 0 and 0 <= v < self.M:
                    vs.push_back(v)
                    continue
            vs.push_back(check_value(x, self.d.bits))
        check_total(self.d.total, vs.size())
        for i in range(vs.size()):
            qd_insert(self.d, self.M + vs[i], 1)

    def compress(self) -> None:
        """QDCOMPRESS to a fixed point (P1 and P2 everywhere afterwards)."""
        qd_compress(self.d, NULL)

    def merge(self, other: "QDigest") -> None:
        """Add ``other``'s ranges and compress at the new γ (same universe and ε required)."""
        cdef QDigest o
        cdef QDCore* tmp
        if not isinstance(other, QDigest) or other.universe_bits != self.d.bits or other.eps != self.d.eps:
            raise IncompatibleSummaryError(f"cannot merge {other!r} into {self!r}: universe_bits and eps must be equal")
        o = <QDigest>other
        check_total(self.d.total, o.d.total)
        if o is self:
            tmp = qd_copy(o.d)
            qd_absorb(self.d, tmp)
            del tmp
        else:
            qd_absorb(self.d, o.d)
        qd_compress(self.d, NULL)

    def rank(self, x: int) -> int:
        """r̂(x): weight of ranges entirely below ``x``; ``r̂(x) <= r(x) <= r̂(x) + εN``."""
        q = check_rank_point(x, self.d.bits)
        qd_fold(self.d)
        return qd_rank(self.d, q)

    def frequency(self, x: int) -> int:
        """f̂(x): weight of ranges ending at ``x``; ``|f̂(x) - f(x)| <= εN``."""
        v = check_value(x, self.d.bits)
        qd_fold(self.d)
        return qd_frequency(self.d, v)

    def quantile(self, phi: float) -> int | None:
        """The smallest ``x`` with ``r̂(x+1) >= φN`` (None when empty); passes the two-sided rank test."""
        cdef double p = check_phi(phi)
        cdef vector[Node] post
        cdef int64_t acc = 0
        cdef size_t i
        if self.d.total == 0:
            return None
        cdef double target = p * self.d.total
        if target <= 0:
            return 0
        qd_fold(self.d)
        qd_post_order(self.d, &post)
        for i in range(post.size()):
            acc += post[i].second
            if acc >= target:
                return post[i].first
        return self.M - 1

    def ranges(self) -> list[tuple[int, int, int]]:
        """The stored ranges as ``(lo, hi, count)`` in post-order."""
        cdef vector[pair[Node, int64_t]] tmp
        cdef size_t i
        qd_fold(self.d)
        for i in range(self.d.nodes.size()):
            tmp.push_back(pair[Node, int64_t](Node(qd_hi(self.d.nodes[i].first, self.d.bits), -self.d.nodes[i].first),
                                              self.d.nodes[i].second))
        sort(tmp.begin(), tmp.end())
        return [(qd_lo(-tmp[i].first.second, self.d.bits), tmp[i].first.first, tmp[i].second) for i in range(tmp.size())]

    def snapshot(self) -> QDigestState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.qdigest`."""
        return qd_snapshot(self.d, QDigestState)

    def _memory_bytes(self) -> int:
        """Bytes of the range and buffer arrays (capacity) plus the core struct."""
        return (self.d.nodes.capacity() + self.d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(universe_bits={self.d.bits}, eps={self.d.eps!r}, total={self.d.total}, "
                f"nodes={self.node_count()})")

    def __reduce__(self) -> Any:
        return (_rebuild, (self.d.bits, self.d.eps, self.snapshot()))


def _rebuild(bits: int, eps: float, state: QDigestState) -> QDigest:
    cdef QDigest q = QDigest(bits, eps)
    for node, count in state.nodes:
        q.d.nodes.push_back(Node(node, count))
    q.d.total = state.total
    q.d.pending = state.pending
    return q
