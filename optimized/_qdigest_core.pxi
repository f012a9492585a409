# C++ core of the compiled q-digest (paper 004 §3.1 box), shared by ``_qdigest``, ``_window_count``,
# ``_window_quantiles`` and ``_value_division`` (each ``include``s it). It follows
# ``swagkit.reference.qdigest.QDigest`` operation for operation, so snapshots and answers are identical:
#
# * ``nodes`` holds the stored ranges as (heap id, count) sorted by id; inserts are appended to ``buf`` as leaf
#   ranges and folded into ``nodes`` (sort + merge, no compress: the *logical* state is unchanged) before any
#   query, so an insert is a vector append;
# * ``qd_compress`` is the reference's fixed-point QDCOMPRESS: passes visit the stored ranges in decreasing id
#   (a merge's new parent joins the same pass, exactly like the reference's heap), skip a left child whose right
#   sibling is stored, merge a family whose sum is below ``lim`` and optionally record the merges; passes repeat
#   until nothing merges. Counts live in an open-addressing table during the passes.
# * ``qd_lim`` is ``⌈ε·N/b⌉`` computed exactly with 128-bit integers from ``ε = m·2^-e`` (the float's exact
#   value), like the reference's ``Fraction`` arithmetic.

from libcpp.vector cimport vector
from libcpp.utility cimport pair
from libcpp.algorithm cimport sort, stable_sort
from libc.stdint cimport int64_t, uint64_t
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from cpython.ref cimport PyObject
from libc.math cimport exp, pow

from swagkit.spec.decay import Decay as _Decay, ExponentialDecay as _Exp, NoDecay as _NoDecay
from swagkit.spec.decay import PolynomialDecay as _Poly, SlidingWindowDecay as _Window
from swagkit.spec.decay.errors import InvalidParameterError as _InvalidParameterError

ctypedef pair[int64_t, int64_t] Node       # (heap id, count), also (hi, count) in post-order lists

cdef extern from "qdigest_bits.h":
    long long qd_lim(long long m, int e, long long n, long long b) nogil
    int qd_depth(long long node) nogil
    long long qd_hi(long long node, int bits) nogil
    long long qd_lo(long long node, int bits) nogil


cdef cppclass QDCore:
    int bits
    int64_t em            # ε = em · 2^-ee exactly
    int ee
    double eps
    int64_t total
    int64_t pending       # inserts since the last compress
    int64_t period        # compress after this many inserts
    vector[Node] nodes    # sorted by id
    vector[Node] buf      # appended ranges not yet folded into nodes


# scratch vectors reused by fold and compress (never reentrant; the GIL is held), so that merging small digests
# does not allocate
cdef vector[Node] g_fold
cdef vector[size_t] g_start, g_block_start
cdef vector[Node] g_pending, g_cur, g_below, g_survivors, g_result


cdef struct Merge:
    int64_t parent
    int64_t left
    int64_t right


# -- the core operations ------------------------------------------------------------------------------------------

cdef QDCore* qd_new(int bits, int64_t em, int ee, double eps, int64_t period) except NULL:
    cdef QDCore* d = new QDCore()
    d.bits = bits
    d.em = em
    d.ee = ee
    d.eps = eps
    d.total = 0
    d.pending = 0
    d.period = period
    return d


# a free list of cores: digests of time-wise ranges are created and merged away at a high rate, so their
# structs and (small) vector buffers are recycled instead of freed
cdef vector[QDCore*] g_pool

DEF POOL_MAX = 4096
DEF POOL_KEEP_CAPACITY = 64


cdef QDCore* qd_take(int bits, int64_t em, int ee, double eps, int64_t period) except NULL:
    """``qd_new`` from the free list when possible."""
    cdef QDCore* d
    if g_pool.size() == 0:
        return qd_new(bits, em, ee, eps, period)
    d = g_pool.back()
    g_pool.pop_back()
    d.bits = bits
    d.em = em
    d.ee = ee
    d.eps = eps
    d.total = 0
    d.pending = 0
    d.period = period
    return d


cdef void qd_give(QDCore* d) noexcept:
    """Return a core to the free list (or delete it)."""
    if g_pool.size() >= POOL_MAX or d.nodes.capacity() > POOL_KEEP_CAPACITY or d.buf.capacity() > POOL_KEEP_CAPACITY:
        del d
        return
    d.nodes.clear()
    d.buf.clear()
    g_pool.push_back(d)


cdef QDCore* qd_copy(QDCore* src) except NULL:
    cdef QDCore* d = new QDCore()
    d.bits = src.bits
    d.em = src.em
    d.ee = src.ee
    d.eps = src.eps
    d.total = src.total
    d.pending = src.pending
    d.period = src.period
    d.nodes = src.nodes
    d.buf = src.buf
    return d


cdef inline bint node_less(const Node& a, const Node& b) noexcept nogil:
    return a.first < b.first


cdef void qd_fold(QDCore* d) noexcept nogil:
    """Merge ``buf`` into ``nodes`` (sorted by id, equal ids summed). The logical state does not change."""
    if d.buf.size() == 0:
        return
    if d.buf.size() > 1:
        sort(d.buf.begin(), d.buf.end(), node_less)
    cdef vector[Node]* out = &g_fold
    out.clear()
    cdef size_t i = 0, j = 0
    cdef size_t n = d.nodes.size(), m = d.buf.size()
    cdef Node x
    while i < n or j < m:
        if j >= m or (i < n and d.nodes[i].first < d.buf[j].first):
            x = d.nodes[i]
            i += 1
        else:
            x = d.buf[j]
            j += 1
        if out.size() > 0 and out[0][out.size() - 1].first == x.first:
            out[0][out.size() - 1].second += x.second
        else:
            out.push_back(x)
    d.nodes.swap(out[0])
    d.buf.clear()


cdef inline int64_t qd_merge_limit(QDCore* d) noexcept nogil:
    return qd_lim(d.em, d.ee, d.total, d.bits)


cdef inline void merge_add(vector[Node]* out, Node* seg, size_t n, vector[Node]* add) noexcept nogil:
    """``out`` = the sorted ranges ``seg[0:n]`` with the sorted additions ``add`` summed in (ids may be new)."""
    cdef size_t i = 0, j = 0
    cdef size_t m = add.size()
    out.clear()
    while i < n or j < m:
        if j >= m or (i < n and seg[i].first < add[0][j].first):
            out.push_back(seg[i])
            i += 1
        elif i >= n or add[0][j].first < seg[i].first:
            out.push_back(add[0][j])
            j += 1
        else:
            out.push_back(Node(seg[i].first, seg[i].second + add[0][j].second))
            i += 1
            j += 1


cdef inline bint has_child(vector[Node]* below, size_t* pos, int64_t lo_id, int64_t hi_id) noexcept nogil:
    """Whether ``below`` (sorted) holds an id in ``[lo_id, hi_id]``; ``pos`` only moves forward."""
    while pos[0] < below.size() and below[0][pos[0]].first < lo_id:
        pos[0] += 1
    return pos[0] < below.size() and below[0][pos[0]].first <= hi_id


cdef int qd_compress_lim(QDCore* d, int64_t lim, vector[Merge]* merges) except -1:
    """Fixed-point QDCOMPRESS with the merge threshold ``lim`` (families summing below it merge).

    One pass goes depth by depth from the leaves up -- the reference visits decreasing ids, i.e. the same depth
    order, and the families of one depth are disjoint, so their order within a depth does not matter. A family
    ``(p, l, r)`` at depth d reads c(p) from depth d-1 (only this family's merge can change it) and, when it
    merges, adds ``c(l) + c(r)`` to p (sorted additions, summed into depth d-1 when that depth is processed).
    Another pass is needed only when a merged range had stored children (their family sum dropped); otherwise
    the reference's next pass merges nothing and is skipped. O(S) per pass after the fold's sort."""
    d.pending = 0
    qd_fold(d)
    if lim <= 1 or d.nodes.size() == 0:
        return 0
    cdef size_t i, n, pos, blo, bhi
    cdef Py_ssize_t k
    cdef int depth, bits = d.bits
    cdef int64_t left, p, cl, cr, cp, fam
    cdef bint cascade = True
    cdef Merge mg
    while cascade:
        cascade = False
        n = d.nodes.size()
        g_start.assign(bits + 2, n)
        for k in range(<Py_ssize_t>n - 1, -1, -1):
            g_start[qd_depth(d.nodes[k].first)] = k
        for depth in range(bits, -1, -1):  # an empty depth starts where the next deeper one starts
            if g_start[depth] > g_start[depth + 1]:
                g_start[depth] = g_start[depth + 1]
        g_pending.clear()
        g_below.clear()
        g_result.clear()
        g_block_start.clear()
        for depth in range(bits, -1, -1):
            merge_add(&g_cur, &d.nodes[0] + g_start[depth], g_start[depth + 1] - g_start[depth], &g_pending)
            g_pending.clear()
            g_block_start.push_back(g_result.size())
            if depth == 0:
                for i in range(g_cur.size()):
                    g_result.push_back(g_cur[i])
                break
            g_survivors.clear()
            pos = 0  # into below
            blo = g_start[depth - 1]
            bhi = g_start[depth]
            i = 0
            while i < g_cur.size():
                if (g_cur[i].first & 1) == 0:
                    left = g_cur[i].first
                    cl = g_cur[i].second
                    if i + 1 < g_cur.size() and g_cur[i + 1].first == left + 1:
                        cr = g_cur[i + 1].second
                        i += 2
                    else:
                        cr = 0
                        i += 1
                else:
                    left = g_cur[i].first - 1
                    cl = 0
                    cr = g_cur[i].second
                    i += 1
                p = left >> 1
                while blo < bhi and d.nodes[blo].first < p:
                    blo += 1
                cp = d.nodes[blo].second if blo < bhi and d.nodes[blo].first == p else 0
                fam = cp + cl + cr
                if fam < lim:
                    g_pending.push_back(Node(p, cl + cr))
                    if merges != NULL:
                        mg.parent = p
                        mg.left = left
                        mg.right = left + 1
                        merges.push_back(mg)
                    if cl and has_child(&g_below, &pos, 2 * left, 2 * left + 1):
                        cascade = True
                    if cr and has_child(&g_below, &pos, 2 * left + 2, 2 * left + 3):
                        cascade = True
                else:
                    if cl:
                        g_survivors.push_back(Node(left, cl))
                    if cr:
                        g_survivors.push_back(Node(left + 1, cr))
            for i in range(g_survivors.size()):
                g_result.push_back(g_survivors[i])
            g_below.swap(g_survivors)
        # result holds depth blocks from the deepest up, each sorted: reverse the block order
        d.nodes.clear()
        g_block_start.push_back(g_result.size())
        for i in range(g_block_start.size() - 1, 0, -1):
            for n in range(g_block_start[i - 1], g_block_start[i]):
                d.nodes.push_back(g_result[n])
    return 0


cdef inline int qd_compress(QDCore* d, vector[Merge]* merges) except -1:
    """QDCOMPRESS at the digest's own γ = εN/b."""
    return qd_compress_lim(d, qd_merge_limit(d), merges)


cdef inline int qd_insert(QDCore* d, int64_t leaf, int64_t w) except -1:
    """QDINSERT at the leaf (``leaf`` is the heap id); compresses after ``period`` inserts."""
    d.buf.push_back(Node(leaf, w))
    d.total += w
    d.pending += 1
    if d.pending >= d.period:
        qd_compress(d, NULL)
    return 0


cdef inline void qd_absorb(QDCore* d, QDCore* src) noexcept nogil:
    """Union of ``src``'s ranges into ``d`` without compress (counts summed when folded)."""
    cdef size_t i
    for i in range(src.nodes.size()):
        d.buf.push_back(src.nodes[i])
    for i in range(src.buf.size()):
        d.buf.push_back(src.buf[i])
    d.total += src.total


cdef inline int64_t qd_rank(QDCore* d, int64_t q) noexcept nogil:
    """Weight of the ranges ending before ``q`` (call ``qd_fold`` first)."""
    cdef int64_t acc = 0
    cdef size_t i
    for i in range(d.nodes.size()):
        if qd_hi(d.nodes[i].first, d.bits) < q:
            acc += d.nodes[i].second
    return acc


cdef inline int64_t qd_frequency(QDCore* d, int64_t x) noexcept nogil:
    cdef int64_t acc = 0
    cdef size_t i
    for i in range(d.nodes.size()):
        if qd_hi(d.nodes[i].first, d.bits) == x:
            acc += d.nodes[i].second
    return acc


cdef inline bint post_less(const Node& a, const Node& b) noexcept nogil:
    return a.first < b.first


cdef void qd_post_order(QDCore* d, vector[Node]* out) noexcept nogil:
    """Append ``(hi, count)`` of every range in post-order (increasing hi, smaller range first; fold first)."""
    cdef vector[Node] keyed  # (hi, -id) -> sort, then counts by position
    cdef vector[pair[Node, int64_t]] tmp
    cdef size_t i
    tmp.reserve(d.nodes.size())
    for i in range(d.nodes.size()):
        tmp.push_back(pair[Node, int64_t](Node(qd_hi(d.nodes[i].first, d.bits), -d.nodes[i].first), d.nodes[i].second))
    sort(tmp.begin(), tmp.end())
    for i in range(tmp.size()):
        out.push_back(Node(tmp[i].first.first, tmp[i].second))


cdef void truncate_level(QDCore* d, int64_t* tau, int64_t alpha, vector[int64_t]* removed) noexcept nogil:
    """§3.1 truncation of a time-wise level: keep the α rightmost ranges in post-order, raise τ to the largest
    discarded right end, and drop kept ranges ending at or before it (ancestors sharing that right end). The ids
    dropped go to ``removed`` (if given). ``nodes`` is folded and sorted by id on entry and exit."""
    cdef vector[pair[Node, int64_t]] keyed  # ((hi, -id), count)
    cdef size_t i, cut
    cdef int64_t t = tau[0]
    for i in range(d.nodes.size()):
        keyed.push_back(pair[Node, int64_t](Node(qd_hi(d.nodes[i].first, d.bits), -d.nodes[i].first), d.nodes[i].second))
    sort(keyed.begin(), keyed.end())  # lexicographic: (hi, -id) is unique
    cut = keyed.size() - <size_t>alpha
    for i in range(cut):
        if keyed[i].first.first > t:
            t = keyed[i].first.first
        if removed != NULL:
            removed.push_back(-keyed[i].first.second)
    tau[0] = t
    d.nodes.clear()
    d.total = 0
    for i in range(cut, keyed.size()):
        if keyed[i].first.first > t:
            d.nodes.push_back(Node(-keyed[i].first.second, keyed[i].second))
            d.total += keyed[i].second
        elif removed != NULL:
            removed.push_back(-keyed[i].first.second)
    sort(d.nodes.begin(), d.nodes.end(), node_less)


cdef tuple qd_state_nodes(QDCore* d):
    """The stored ranges as a tuple of ``(id, count)`` sorted by id (fold first)."""
    cdef size_t i
    return tuple([(d.nodes[i].first, d.nodes[i].second) for i in range(d.nodes.size())])


cdef object qd_snapshot(QDCore* d, object state_cls):
    qd_fold(d)
    return state_cls(
        universe_bits=d.bits,
        eps=d.eps,
        total=d.total,
        nodes=qd_state_nodes(d),
        compressed=d.pending == 0,
        pending=d.pending,
        compress_period=d.period,
    )


cdef tuple eps_exact(double eps):
    """``(m, e)`` with ``eps = m · 2^-e`` exactly (m odd, or 0)."""
    num, den = float(eps).as_integer_ratio()
    return num, den.bit_length() - 1


# -- decay functions evaluated in C (same expressions as swagkit.spec.decay, so the floats are identical) ---------

cdef struct DecayEval:
    int kind          # 0: call Python, 1: exponential, 2: polynomial, 3: none, 4: sliding window
    double param
    int64_t window
    PyObject* obj


cdef int decay_init(DecayEval* e, object decay) except -1:
    if not isinstance(decay, _Decay):
        raise _InvalidParameterError(f"decay must be a swagkit.spec.decay.Decay, got {type(decay).__name__}")
    e.obj = <PyObject*>decay
    e.kind = 0
    if type(decay) is _Exp:
        e.kind = 1
        e.param = decay.rate
    elif type(decay) is _Poly:
        e.kind = 2
        e.param = decay.exponent
    elif type(decay) is _NoDecay:
        e.kind = 3
    elif type(decay) is _Window:
        e.kind = 4
        w = decay.window  # ages are below 2**62: a larger window covers them all (no int64 overflow)
        e.window = w if w < 4611686018427387904 else 4611686018427387904
    return 0


cdef double decay_at(DecayEval* e, int64_t age) except? -1.0:
    if e.kind == 1:
        return exp(-e.param * <double>age)
    if e.kind == 2:
        return pow(<double>age + 1.0, -e.param)
    if e.kind == 3:
        return 1.0
    if e.kind == 4:
        return 1.0 if age < e.window else 0.0
    return float((<object>e.obj)(age))


