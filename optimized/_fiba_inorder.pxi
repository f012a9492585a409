# The in-order kernel of the compiled FiBA (included by _fiba.pyx): ``FiBA.slide`` for typed kinds and int64 /
# float64 times, and the short block moves every single-entry operation uses.
#
# Nothing here changes the algorithm: per item the kernel runs exactly the reference's evict (while the window is
# full), insert and query, with the same ⊗ sequence, the same node visits and the same resulting tree. It is plain
# C (include/fiba_inorder.h) with the monoid kind and the time kind as compile-time constants, because Cython's code for it kept
# the loop's state in memory (GCC spilled it around the many branches) and GCC's inliner gave up on its helpers;
# C with forced inlining gets registers, one instruction per ⊗ and no call per node. It takes
#
# * evict without underflow from the left finger (3 in 5 evictions at μ = 4): the reference's rebalance does
#   nothing and its repair recomputes only that leaf (its values, then its parent's Π↙ unless the parent is the
#   root). The entries are not shifted: the leaf's ``times``/``values`` pointers advance instead (the entries and
#   hence the snapshot are the same); the kernel moves them back to the start of the block ("settles" the leaf)
#   before anything else runs and before it returns;
# * evict with underflow under a parent that does not underflow (a non-root left-spine parent, or the root keeping
#   at least one entry): a move from the sibling leaf (recompute the sibling's Π↑ -- its Π↘ when it is the root's
#   last child --, the parent's Π↙ or the root's aggregate, the leaf's Π↙) or a merge with it (the parent, the
#   leaf);
# * evict with underflow when the leaf merges with its sibling and its parent (non-root, left spine only) then
#   underflows, the grandparent (the root or on the left spine only) taking the move or merge without underflowing:
#   the two rebalance steps and the repair written out (1 in 13 evictions at μ = 4 in large windows);
# * any other eviction from a left finger that is the root or on the left spine only (longer cascades, a new
#   root), out of line: the reference's rebalance and repair with the rebalanced node known to be child 0 and
#   every recomputed node's position known (no general per-node dispatch);
# * insert at the right finger's end without overflow (``pushBackEntry``): the finger search visits the right
#   finger (the climb) and finds the slot in it (2 visits; 1 when the root is the leaf), then Π↘ ⊗ v;
# * insert at the right finger's end with overflow: the split under a right-spine parent or the root that does not
#   overflow (the old leaf's Π↑, the parent's Π↘ or the root's aggregate, the new leaf's Π↘); the two splits when
#   the parent (non-root, right spine only) overflows too and the grandparent does not; or, out of line, the
#   cascade up the right spine (growing a new root if needed), with the split node known to be its parent's last
#   child;
#
# and counts the ⊗ calls and node visits of each case exactly as the reference's code paths do (the differential
# tests compare them). Anything else -- a time that is not above every other (out of order or repeated), an empty
# tree, a spine shape that never occurs between operations -- returns to the Cython driver, which runs the
# general ``insert_core``/``evict_core`` for that one step and calls the kernel again.
#
# Every kernel copy (monoid kind x time kind) holds, besides the general one, copies specialized for μ = 2, 4 and 8
# (the benchmarked arities; 4 is the default): with μ and 2μ constants the block offsets, the underflow and
# overflow tests and the node-sized moves fold, ~7% fewer instructions per item at μ = 2. Any other μ runs the
# general copy. The top of a climbing repair (a spine node, or the root) is recomputed by its position's fold.

cdef extern from "fiba_inorder.h":
    void swag_move(void* dst, const void* src, Py_ssize_t nbytes) noexcept nogil

    ctypedef struct SwagFibaRun:
        Node* root
        Node* lf
        Node* rf
        Node* free_head
        int64_t cc
        int64_t tc
        Py_ssize_t nalloc
        size_t node_bytes
        Slot one
        int mu
        int maxar

    int SWAG_FIBA_DONE, SWAG_FIBA_INSERT, SWAG_FIBA_EVICT, SWAG_FIBA_NOMEM

    Py_ssize_t swag_fiba_slide(SwagFibaRun* st, int kind, int tk, const Slot* tin, const Slot* vin, Slot* out,
                               Py_ssize_t i, Py_ssize_t n, Py_ssize_t window, Py_ssize_t* size_io,
                               int* status) noexcept nogil


cdef inline void move_slots(Slot* dst, const Slot* src, Py_ssize_t n) noexcept nogil:
    """``memmove`` of ``n`` slots (overlap allowed), inline for node-sized moves."""
    swag_move(dst, src, n * <Py_ssize_t>sizeof(Slot))


cdef inline void move_nodes(Node** dst, Node** src, Py_ssize_t n) noexcept nogil:
    """``memmove`` of ``n`` child pointers (overlap allowed), inline for node-sized moves."""
    swag_move(dst, src, n * <Py_ssize_t>sizeof(Node*))


cdef int slide_run(FiBA o, const Slot* tin, const Slot* vin, Slot* out, Py_ssize_t n, Py_ssize_t window,
                   int tk) except -1:
    """The driver: run the C kernel; do the steps it leaves to the general code here and call it again."""
    cdef SwagFibaRun st
    cdef Py_ssize_t i = 0, size = tree_size(o)
    cdef int status = SWAG_FIBA_DONE
    cdef Slot t
    st.one = o.one
    st.mu = o.min_arity
    st.maxar = o.max_arity
    st.node_bytes = o.node_bytes
    while True:
        st.root = o.root
        st.lf = o.lf
        st.rf = o.rf
        st.free_head = o.free_head
        st.nalloc = o.nalloc
        st.cc = 0
        st.tc = 0
        i = swag_fiba_slide(&st, o.kind, tk, tin, vin, out, i, n, window, &size, &status)
        o.root = st.root
        o.lf = st.lf
        o.rf = st.rf
        o.free_head = st.free_head
        o.nalloc = st.nalloc
        o.ccount += st.cc
        o.tcount += st.tc
        if status == SWAG_FIBA_DONE:
            return 0
        try:
            if status == SWAG_FIBA_NOMEM:
                raise MemoryError()
            if status == SWAG_FIBA_EVICT:
                evict_op(o)
                size -= 1
                continue
            if tk == T_F64 and tin[i].f != tin[i].f:
                check_time(tin[i].f)  # raises, as insert() does, with the window as the method loop leaves it
            insert_core(o, tin[i], vin[i], None, None, None)
        except BaseException as err:
            err.add_note(f"swagkit {o.algorithm}: slide processed {i} of {n} pairs")
            raise
        size = tree_size(o)
        out[i] = query_t(o)
        i += 1
