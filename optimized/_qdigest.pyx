# distutils: language = c++
# cython: language_level=3, annotation_typing=False
"""q-digest, compiled (paper 004 §3.1 box).

Same algorithm, API, snapshots and answers as :mod:`swagkit.reference.qdigest` (see ``_qdigest_core.pxi``):
insert appends the leaf to a buffer (an int64 vector push), folded into the sorted range array before any
query; compress is the reference's fixed-point QDCOMPRESS over an open-addressing table, with the exact
threshold ``⌈εN/b⌉`` in 128-bit integers.

Robustness (issue 12), as the reference: input validated before anything changes (numpy integers accepted like
ints; weights and totals checked as Python ints, so an oversized one raises ``WeightOverflowError``, never a
raw ``OverflowError``); exception safety *strong* (no user code runs while the digest changes); a ``busy`` flag
refuses overlapping calls with ``ReentrantCallError`` (not thread-safe); copies and pickles go by snapshot
through :func:`swagkit.reference._guard.restore` and ``_from_snapshot``, which validates the snapshot's shape
(:func:`swagkit.reference.qdigest.check_qdigest_state`) before anything reaches C; ``merge`` accepts a
reference q-digest too (its ranges are read from its snapshot: exact).

Complexity: insert O(1) amortized plus a compress every ``4b/ε + 1`` inserts (O(S log S) for S ranges); rank and
frequency O(S) after an O(B log B) fold of B buffered inserts; quantile O(S log S); merge O(S) plus a compress.
Space: 16 bytes per stored range (``<= 4b/ε + 1`` after compress) and per buffered insert.
"""

include "_qdigest_core.pxi"

from typing import Any, Iterable

from cpython.long cimport PyLong_AsLongLongAndOverflow

from swagkit.reference._guard import reentered as _reentered, restore as _restore
from swagkit.reference.qdigest import (
    check_qdigest_state as _check_qdigest_state,
    checked_size_bound as _checked_size_bound,
    foreign_digest_nodes as _foreign_digest_nodes,
    int_arg as _int_arg,
    real_arg as _real_arg,
)
from swagkit.spec.decay.errors import IncompatibleSummaryError, MAX_TOTAL_WEIGHT
from swagkit.spec.decay.input import (
    check_accuracy,
    check_bits,
    check_phi,
    check_rank_point,
    check_total,
    check_value,
    check_weight,
)
from swagkit.spec.decay.snapshots import QDigestState

DEF MAX_TOTAL = 4611686018427387904  # 2**62


cdef class QDigest:
    """QDigest(universe_bits, eps)
--

q-digest over ``[0, 2**universe_bits)`` with rank error at most ``eps·N`` (paper 004 §3.1 box), compiled;
    same API, snapshots and answers as ``swagkit.reference.QDigest``. Exception safety: strong (no user code
    runs while it changes). Not thread-safe: an overlapping call raises ``ReentrantCallError``."""

    cdef QDCore* d
    cdef int64_t M
    cdef bint busy

    algorithm = "qdigest"
    exception_safety = "strong"

    def __cinit__(self, universe_bits, eps):
        bits = check_bits(_int_arg(universe_bits), "universe_bits")
        e = check_accuracy(_real_arg(eps), "eps")
        period = _checked_size_bound(bits, e)
        m, ee = eps_exact(e)
        self.d = qd_new(bits, m, ee, e, period)
        self.M = (<int64_t>1) << bits
        self.busy = False

    def __dealloc__(self) -> None:
        if self.d != NULL:
            del self.d
            self.d = NULL

    cdef inline int _enter(self, str operation) except -1:
        """The re-entry guard: refuse a call while another one of this digest runs (before any change)."""
        if self.busy:
            raise _reentered("qdigest", operation)
        self.busy = True
        return 0

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

    def copy(self) -> QDigest:
        """An independent copy. O(S)."""
        cdef QDigest c
        self._enter("copy")
        try:
            c = type(self)(self.d.bits, self.d.eps)
            del c.d
            c.d = NULL
            c.d = qd_copy(self.d)
            return c
        finally:
            self.busy = False

    def insert(self, x: int, weight: int = 1) -> None:
        """QDINSERT: add ``weight`` copies of value ``x`` (validated first; weight 0 changes nothing)."""
        cdef int overflow = 0
        cdef long long v, w
        if self.busy:
            raise _reentered("qdigest", "insert")
        if type(x) is int and type(weight) is int:  # fast path: no Python code runs
            v = PyLong_AsLongLongAndOverflow(x, &overflow)
            if overflow == 0 and 0 <= v < self.M:
                w = PyLong_AsLongLongAndOverflow(weight, &overflow)
                if overflow == 0 and 0 < w < MAX_TOTAL and self.d.total + w < MAX_TOTAL:
                    qd_insert(self.d, self.M + v, w)
                    return
        self._enter("insert")
        try:
            vv = check_value(_int_arg(x), self.d.bits)
            ww = check_weight(_int_arg(weight))
            check_total(self.d.total, ww)  # on Python ints: WeightOverflowError, never a raw OverflowError
            if ww:
                qd_insert(self.d, self.M + <int64_t>vv, <int64_t>ww)
        finally:
            self.busy = False

    def insert_many(self, values: Iterable[int]) -> None:
        """Insert each of ``values`` with weight 1 (all validated first: on bad input nothing is inserted)."""
        cdef vector[int64_t] vs
        cdef int overflow = 0
        cdef long long v
        cdef size_t i
        self._enter("insert_many")
        try:
            for x in values:
                if type(x) is int:
                    v = PyLong_AsLongLongAndOverflow(x, &overflow)
                    if overflow == 0 and 0 <= v < self.M:
                        vs.push_back(v)
                        continue
                vs.push_back(check_value(_int_arg(x), self.d.bits))
            check_total(self.d.total, vs.size())
            for i in range(vs.size()):
                qd_insert(self.d, self.M + vs[i], 1)
        finally:
            self.busy = False

    def compress(self) -> None:
        """QDCOMPRESS to a fixed point (P1 and P2 everywhere afterwards)."""
        self._enter("compress")
        try:
            qd_compress(self.d, NULL)
        finally:
            self.busy = False

    def merge(self, other: Any) -> None:
        """Add ``other``'s ranges and compress at the new γ (same universe and ε required:
        ``IncompatibleSummaryError``). ``other`` may be a q-digest of either implementation (a reference one is
        read through its snapshot: exact); anything else raises ``InputTypeError``. Nothing changes when it
        raises."""
        cdef QDigest o
        cdef QDCore* tmp
        self._enter("merge")
        try:
            if isinstance(other, QDigest):
                o = <QDigest>other
                if o.d.bits != self.d.bits or o.d.eps != self.d.eps:
                    raise IncompatibleSummaryError(
                        f"cannot merge {other!r} into {self!r}: universe_bits and eps must be equal")
                if o is not self and o.busy:
                    raise _reentered("qdigest", "merge")
                check_total(self.d.total, o.d.total)
                if o is self:
                    tmp = qd_copy(o.d)
                    qd_absorb(self.d, tmp)
                    del tmp
                else:
                    qd_absorb(self.d, o.d)
            else:
                nodes, total = _foreign_digest_nodes(other, self.d.bits, self.d.eps, repr(self))
                check_total(self.d.total, total)
                for node, count in nodes:
                    self.d.buf.push_back(Node(node, count))
                self.d.total += <int64_t>total
            qd_compress(self.d, NULL)
        finally:
            self.busy = False

    def rank(self, x: int) -> int:
        """r̂(x): weight of ranges entirely below ``x``; ``r̂(x) <= r(x) <= r̂(x) + εN``."""
        self._enter("rank")
        try:
            q = check_rank_point(_int_arg(x), self.d.bits)
            qd_fold(self.d)
            return qd_rank(self.d, q)
        finally:
            self.busy = False

    def frequency(self, x: int) -> int:
        """f̂(x): weight of ranges ending at ``x``; ``|f̂(x) - f(x)| <= εN``."""
        self._enter("frequency")
        try:
            v = check_value(_int_arg(x), self.d.bits)
            qd_fold(self.d)
            return qd_frequency(self.d, v)
        finally:
            self.busy = False

    def quantile(self, phi: float) -> int | None:
        """The smallest ``x`` with ``r̂(x+1) >= φN`` (None when empty); passes the two-sided rank test."""
        self._enter("quantile")
        try:
            return self._quantile(check_phi(_real_arg(phi)))
        finally:
            self.busy = False

    cdef object _quantile(self, double p):
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
        self._enter("ranges")
        try:
            qd_fold(self.d)
            for i in range(self.d.nodes.size()):
                tmp.push_back(pair[Node, int64_t](Node(qd_hi(self.d.nodes[i].first, self.d.bits), -self.d.nodes[i].first),
                                                  self.d.nodes[i].second))
            sort(tmp.begin(), tmp.end())
            return [(qd_lo(-tmp[i].first.second, self.d.bits), tmp[i].first.first, tmp[i].second) for i in range(tmp.size())]
        finally:
            self.busy = False

    def snapshot(self) -> QDigestState:
        """Plain copy of the state for :mod:`swagkit.spec.checkers.qdigest`."""
        self._enter("snapshot")
        try:
            return qd_snapshot(self.d, QDigestState)
        finally:
            self.busy = False

    def _params(self):
        return {"universe_bits": self.d.bits, "eps": self.d.eps}

    @classmethod
    def _from_snapshot(cls, monoid, snapshot, *, universe_bits, eps):
        """The digest whose :meth:`snapshot` is ``snapshot`` (copying and pickling). The shape is validated in
        Python first (:func:`~swagkit.reference.qdigest.check_qdigest_state`): a malformed snapshot raises
        ``TypeError``/``ValueError`` and nothing reaches C."""
        cdef QDigest q = cls(universe_bits, eps)
        nodes, total, pending = _check_qdigest_state(snapshot, q.d.bits, q.d.eps, q.d.period)
        q.d.nodes.reserve(len(nodes))
        for node, count in nodes:
            q.d.nodes.push_back(Node(node, count))
        q.d.total = total
        q.d.pending = pending
        return q

    def __reduce__(self) -> Any:
        return (_restore, (type(self), None, self._params(), self.snapshot(), None))

    def __copy__(self) -> Any:
        return _restore(type(self), None, self._params(), self.snapshot(), None)

    def _memory_bytes(self) -> int:
        """Bytes of the range and buffer arrays (capacity) plus the core struct."""
        return (self.d.nodes.capacity() + self.d.buf.capacity()) * sizeof(Node) + sizeof(QDCore)

    def __repr__(self) -> str:
        qd_fold(self.d)
        return (f"{type(self).__name__}(universe_bits={self.d.bits}, eps={self.d.eps!r}, total={self.d.total}, "
                f"nodes={self.d.nodes.size()})")


def _rebuild(bits: int, eps: float, state: QDigestState) -> QDigest:
    """Pickles made before issue 12 (``__reduce__`` now goes through ``restore``); the snapshot is validated."""
    return QDigest._from_snapshot(None, state, universe_bits=bits, eps=eps)
