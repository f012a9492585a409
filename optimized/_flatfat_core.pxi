# FlatFAT core (paper 002 §4) shared by _flatfat.pyx and _reactive.pyx (included after _common.pxi).
#
# ``Tree``: the perfect binary tree of ``n`` (a power of two) leaves in one flat C array of 2n ``Slot``s, heap
# order, 1-based: root T[1], children 2h and 2h+1, leaf i (0-based) at T[n+i]; T[0] is unused (holds ⊥).
# Typed kinds store doubles/int64 and combine with ``tcomb`` (nogil); the generic path stores owned references
# and calls ``combine``. Every function performs exactly the ⊕ calls of swagkit.reference.flatfat, in the same
# order: ``new`` n−1, a walk log2 n, a bulk update one per distinct ancestor (levels in increasing index
# order), ``prefix``/``suffix`` one per sibling met on the relevant side.
#
# Sizes: a tree of n leaves needs 2n slots; ``tree_new_array`` refuses (NULL) an n whose byte size would not fit
# in a Py_ssize_t, and the classes check capacities against ``MAX_CAPACITY`` (OverflowError) before that.
# Exception safety: ``tree_propagate_g`` is strong (it keeps the nodes it overwrites and puts them back when a
# combine raises); ``tree_build_g`` works on an array its caller discards if it raises.

from libc.stdlib cimport qsort

from cpython.pyport cimport PY_SSIZE_T_MAX

ctypedef struct Tree:
    Slot* T
    Py_ssize_t n
    Slot one
    int64_t count


cdef int _cmp_ssize(const void* a, const void* b) noexcept nogil:
    cdef Py_ssize_t x = (<const Py_ssize_t*>a)[0]
    cdef Py_ssize_t y = (<const Py_ssize_t*>b)[0]
    return (x > y) - (x < y)


cdef inline Slot* tree_new_array(Py_ssize_t n) noexcept nogil:
    """An uninitialized array of 2n slots, or NULL (no memory, or a size that does not fit: n < 1 or
    2n·sizeof(Slot) > PY_SSIZE_T_MAX, checked before malloc)."""
    if n < 1 or n > PY_SSIZE_T_MAX // (2 * <Py_ssize_t>sizeof(Slot)):
        return NULL
    return <Slot*>malloc(2 * n * sizeof(Slot))


cdef inline void tree_fill_one(Slot* T, Py_ssize_t lo, Py_ssize_t hi, Slot one, int kind) noexcept:
    """T[lo:hi] <- ⊥ (new references on the generic path; the slots hold none yet)."""
    cdef Py_ssize_t i
    for i in range(lo, hi):
        T[i] = one
        if kind == K_GENERIC:
            Py_XINCREF(one.o)


cdef inline void tree_release(Slot* T, Py_ssize_t n, int kind) noexcept:
    cdef Py_ssize_t i
    if T == NULL:
        return
    if kind == K_GENERIC:
        for i in range(2 * n):
            Py_XDECREF(T[i].o)
    free(T)


# ------------------------------------------------------------------------------------------------------ typed

cdef inline void tree_build_t(Tree* t, int kind) noexcept nogil:
    cdef Py_ssize_t h
    cdef Slot* T = t.T
    for h in range(t.n - 1, 0, -1):
        T[h] = tcomb(kind, T[2 * h], T[2 * h + 1])
    t.count += t.n - 1


cdef inline void tree_walk_t(Tree* t, Py_ssize_t leaf, int kind) noexcept nogil:
    cdef Py_ssize_t h = (t.n + leaf) >> 1
    cdef Slot* T = t.T
    while h >= 1:
        T[h] = tcomb(kind, T[2 * h], T[2 * h + 1])
        t.count += 1
        h >>= 1


cdef inline void tree_propagate_t(Tree* t, Py_ssize_t* leaves, Py_ssize_t m, int kind) noexcept nogil:
    """Recompute the distinct ancestors of ``leaves`` (distinct leaf indices; sorted in place), level by level.
    The level list is rewritten in place: parents of a sorted list are sorted, so deduplication is a compare."""
    cdef Py_ssize_t k, j, h, p
    cdef Slot* T = t.T
    if t.n == 1 or m == 0:
        return
    if m == 1:
        tree_walk_t(t, leaves[0], kind)
        return
    qsort(leaves, m, sizeof(Py_ssize_t), _cmp_ssize)
    j = 0
    for k in range(m):
        p = (t.n + leaves[k]) >> 1
        if j == 0 or leaves[j - 1] != p:
            leaves[j] = p
            j += 1
    m = j
    while m > 0:
        j = 0
        for k in range(m):
            h = leaves[k]
            T[h] = tcomb(kind, T[2 * h], T[2 * h + 1])
            t.count += 1
            p = h >> 1
            if p >= 1 and (j == 0 or leaves[j - 1] != p):
                leaves[j] = p
                j += 1
        m = j


cdef inline Slot tree_prefix_t(Tree* t, Py_ssize_t i, int kind) noexcept nogil:
    cdef Py_ssize_t h = t.n + i
    cdef Slot acc = t.T[h]
    while h > 1:
        if h & 1:
            acc = tcomb(kind, t.T[h - 1], acc)
            t.count += 1
        h >>= 1
    return acc


cdef inline Slot tree_suffix_t(Tree* t, Py_ssize_t j, int kind) noexcept nogil:
    cdef Py_ssize_t h = t.n + j
    cdef Slot acc = t.T[h]
    while h > 1:
        if not h & 1:
            acc = tcomb(kind, acc, t.T[h + 1])
            t.count += 1
        h >>= 1
    return acc


# ---------------------------------------------------------------------------------------------------- generic

cdef inline int tree_node_g(Tree* t, Py_ssize_t h, object comb) except -1:
    t.count += 1
    r = comb(slot_get(t.T[2 * h]), slot_get(t.T[2 * h + 1]))
    slot_set(&t.T[h], r)
    return 0


cdef int tree_build_g(Tree* t, object comb) except -1:
    """Algorithm 1 on ``t`` (every slot holds a reference). If a combine raises, the nodes hold a mix of old
    and new values: the caller builds into an array it discards then (``new``, a Reactive rebuild)."""
    cdef Py_ssize_t h
    for h in range(t.n - 1, 0, -1):
        tree_node_g(t, h, comb)
    return 0


cdef inline Py_ssize_t _ancestor_bound(Py_ssize_t n, Py_ssize_t m) noexcept nogil:
    """An upper bound on the distinct proper ancestors of m leaves of a tree of n ≥ 2 leaves: ≤ n − 1, and ≤ m
    per level over log2 n levels."""
    cdef Py_ssize_t depth = 0, k = n
    while k > 1:
        k >>= 1
        depth += 1
    if m <= (n - 1) // depth:
        return m * depth
    return n - 1


cdef int tree_propagate_g(Tree* t, Py_ssize_t* leaves, Py_ssize_t m, object comb) except -1:
    """Recompute the distinct ancestors of ``leaves`` (distinct leaf indices; the array is sorted and rewritten
    in place). Strong: the overwritten nodes are kept (their references) and put back if a combine raises."""
    cdef Py_ssize_t k, j, h, p, nsaved = 0, bound
    cdef Slot* saved
    cdef Py_ssize_t* at
    cdef PyObject* old
    cdef Slot saved_local[64]      # enough for one leaf-to-root walk (log2 n ≤ 64): no malloc per walk
    cdef Py_ssize_t at_local[64]
    if t.n == 1 or m == 0:
        return 0
    bound = _ancestor_bound(t.n, m)
    if bound <= 64:
        saved = saved_local
        at = at_local
    else:
        saved = <Slot*>malloc(bound * sizeof(Slot))
        at = <Py_ssize_t*>malloc(bound * sizeof(Py_ssize_t))
        if saved == NULL or at == NULL:
            free(saved)
            free(at)
            raise MemoryError()
    qsort(leaves, m, sizeof(Py_ssize_t), _cmp_ssize)
    j = 0
    for k in range(m):
        p = (t.n + leaves[k]) >> 1
        if j == 0 or leaves[j - 1] != p:
            leaves[j] = p
            j += 1
    m = j
    try:
        while m > 0:
            j = 0
            for k in range(m):
                h = leaves[k]
                t.count += 1
                r = comb(slot_get(t.T[2 * h]), slot_get(t.T[2 * h + 1]))
                saved[nsaved] = t.T[h]  # the old value's reference moves to ``saved``
                at[nsaved] = h
                nsaved += 1
                slot_put(&t.T[h], r)
                p = h >> 1
                if p >= 1 and (j == 0 or leaves[j - 1] != p):
                    leaves[j] = p
                    j += 1
            m = j
    except BaseException:
        while nsaved > 0:  # put the old values back, newest write first
            nsaved -= 1
            h = at[nsaved]
            old = t.T[h].o
            t.T[h] = saved[nsaved]
            Py_XDECREF(old)
        if saved != saved_local:
            free(saved)
            free(at)
        raise
    for k in range(nsaved):
        Py_XDECREF(saved[k].o)
    if saved != saved_local:
        free(saved)
        free(at)
    return 0


cdef object tree_prefix_g(Tree* t, Py_ssize_t i, object comb):
    cdef Py_ssize_t h = t.n + i
    acc = slot_get(t.T[h])
    while h > 1:
        if h & 1:
            t.count += 1
            acc = comb(slot_get(t.T[h - 1]), acc)
        h >>= 1
    return acc


cdef object tree_suffix_g(Tree* t, Py_ssize_t j, object comb):
    cdef Py_ssize_t h = t.n + j
    acc = slot_get(t.T[h])
    while h > 1:
        if not h & 1:
            t.count += 1
            acc = comb(acc, slot_get(t.T[h + 1]))
        h >>= 1
    return acc


cdef inline object tree_val(int kind, Slot v):
    if kind != K_GENERIC:
        return box(kind, v)
    return slot_get(v)


cdef inline int tree_store(int kind, object x, Slot* out) except -1:
    """Validate (typed kinds, like as_f64/as_i64) and convert ``x``; generic: borrow (caller takes the ref)."""
    if kind != K_GENERIC:
        return to_slot(kind, x, out)
    out.o = <PyObject*>x
    return 0
