# Shared C-level building blocks of the compiled in-order SWAGs (included, not cimported, by each .pyx).
#
# * ``Slot``: one stored value -- a C double, an int64 or an owned ``PyObject*`` (generic path).
# * ``Deque``/``Ptr``: the chunked array of paper 000, Definition 1 (Tangwongsan, Hirzel, Schneider 2015): a
#   doubly linked list of fixed-size C arrays of ``CHUNK`` elements (each ``W`` slots wide). A pointer is a
#   ``(slot address, chunk)`` pair, always normalized so that it addresses a slot of its chunk; hence pointer
#   equality is address equality and ``p + 1``, ``p - 1``, ``*p`` and ``*p <- v`` are worst-case O(1). One
#   emptied chunk is kept as a spare so a window sliding across a chunk boundary does not call malloc/free.
#   Every chunk carries a sequence number so snapshot offsets are O(1) too.
# * typed ``K_*`` kinds: combine, validation (exactly like ``swagkit.spec.library.as_f64``/``as_i64``) and boxing.

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport malloc, free, realloc
from cpython.ref cimport PyObject, Py_INCREF, Py_XINCREF, Py_XDECREF
from cpython.float cimport PyFloat_Check, PyFloat_AS_DOUBLE, PyFloat_FromDouble
from cpython.long cimport PyLong_Check, PyLong_AsLongLongAndOverflow, PyLong_FromLongLong
from cpython.bool cimport PyBool_Check
from cpython.buffer cimport PyObject_CheckBuffer
cimport cpython.array
import array as _pyarray

from swagkit.spec.errors import EmptyWindowError
from swagkit.spec.library import as_f64 as _as_f64, as_i64 as _as_i64
from swagkit.optimized._support import typed_kind as _typed_kind, lower_is_identity as _lower_is_identity

cdef enum:
    CHUNK = 512
    K_GENERIC = 0
    K_SUM_F = 1
    K_MAX_F = 2
    K_MIN_F = 3
    K_SUM_I = 4
    K_MAX_I = 5
    K_MIN_I = 6

cdef extern from "swag_slot.h":
    const long long SWAG_F64_EXACT_INT
    bint SWAG_LIKELY(bint) noexcept nogil
    bint SWAG_UNLIKELY(bint) noexcept nogil

    ctypedef union Slot "SwagSlot":
        double f
        int64_t i
        PyObject* o

cdef struct Chunk:
    Chunk* prev
    Chunk* next
    Slot* data
    Slot* end
    int64_t seq

ctypedef struct Ptr:
    Slot* p
    Chunk* c

ctypedef struct Deque:
    Ptr front      # F: the oldest element
    Ptr back       # E: one past the youngest element (always inside a linked chunk)
    Py_ssize_t n
    Chunk* spare
    Py_ssize_t nchunks


# ----------------------------------------------------------------------------------------------------------------
# chunked deque (W = slots per element: 1 for a plain deque of aggregates, 2 for DABA's (val, agg) pairs)

cdef inline Chunk* chunk_alloc(Deque* d, int W) noexcept nogil:
    cdef Chunk* c = d.spare
    if c != NULL:
        d.spare = NULL
        return c
    c = <Chunk*>malloc(sizeof(Chunk) + CHUNK * W * sizeof(Slot))
    if c == NULL:
        return NULL
    c.data = <Slot*>(c + 1)
    c.end = c.data + CHUNK * W
    d.nchunks += 1
    return c


cdef inline int dq_init(Deque* d, int W) noexcept nogil:
    cdef Chunk* c
    d.spare = NULL
    d.nchunks = 0
    d.n = 0
    c = chunk_alloc(d, W)
    if c == NULL:
        d.front.c = NULL
        d.front.p = NULL
        d.back = d.front
        return -1
    c.prev = NULL
    c.next = NULL
    c.seq = 0
    d.front.c = c
    d.front.p = c.data
    d.back = d.front
    return 0


cdef inline Slot* dq_push(Deque* d, int W) noexcept nogil:
    """Append one element; returns the address of its W slots (to be written by the caller), NULL on no memory
    (then nothing changed). Links the next chunk as soon as a chunk's last element is taken, so the end pointer
    always addresses a real slot."""
    cdef Slot* slot = d.back.p
    cdef Chunk* c
    cdef Chunk* t
    if SWAG_UNLIKELY(slot + W == d.back.c.end):
        c = chunk_alloc(d, W)
        if c == NULL:
            return NULL
        t = d.back.c
        c.prev = t
        c.next = NULL
        c.seq = t.seq + 1
        t.next = c
        d.back.c = c
        d.back.p = c.data
    else:
        d.back.p = slot + W
    d.n += 1
    return slot


cdef inline void dq_pop(Deque* d, int W) noexcept nogil:
    """Drop the oldest element (the caller releases generic references first). An emptied chunk becomes the
    spare (or is freed when there already is one)."""
    cdef Chunk* old
    d.front.p += W
    d.n -= 1
    if SWAG_UNLIKELY(d.front.p == d.front.c.end):
        old = d.front.c
        d.front.c = old.next
        d.front.p = old.next.data
        old.next.prev = NULL
        if d.spare == NULL:
            d.spare = old
        else:
            free(old)
            d.nchunks -= 1


cdef inline void dq_free(Deque* d) noexcept nogil:
    cdef Chunk* c = d.front.c
    cdef Chunk* nxt
    while c != NULL:
        nxt = c.next
        free(c)
        c = nxt
    if d.spare != NULL:
        free(d.spare)
    d.spare = NULL
    d.front.c = NULL
    d.front.p = NULL
    d.back = d.front
    d.n = 0
    d.nchunks = 0


cdef inline Py_ssize_t dq_bytes(Deque* d, int W) noexcept nogil:
    return d.nchunks * <Py_ssize_t>(sizeof(Chunk) + CHUNK * W * sizeof(Slot))


cdef inline Ptr p_inc(Ptr q, int W) noexcept nogil:
    q.p += W
    if SWAG_UNLIKELY(q.p == q.c.end):
        q.c = q.c.next
        q.p = q.c.data
    return q


cdef inline Ptr p_dec(Ptr q, int W) noexcept nogil:
    if SWAG_UNLIKELY(q.p == q.c.data):
        q.c = q.c.prev
        q.p = q.c.end - W
    else:
        q.p -= W
    return q


cdef inline int64_t p_pos(Ptr q, int W) noexcept nogil:
    return q.c.seq * CHUNK + (q.p - q.c.data) // W


cdef inline Py_ssize_t p_off(Deque* d, Ptr q, int W) noexcept nogil:
    """``q - F``: offset from the physical front (snapshots only)."""
    return <Py_ssize_t>(p_pos(q, W) - p_pos(d.front, W))


# ----------------------------------------------------------------------------------------------------------------
# typed kinds

cdef inline Slot tcomb(int kind, Slot a, Slot b) noexcept nogil:
    """``a ⊗ b`` of a typed kind, with exactly the semantics of the library monoid's Python ``combine``."""
    cdef Slot r
    if kind == K_SUM_F:
        r.f = a.f + b.f
    elif kind == K_MAX_F:
        r.f = a.f if a.f >= b.f else b.f
    elif kind == K_MIN_F:
        r.f = a.f if a.f <= b.f else b.f
    elif kind == K_SUM_I:
        r.i = <int64_t>(<uint64_t>a.i + <uint64_t>b.i)
    elif kind == K_MAX_I:
        r.i = a.i if a.i >= b.i else b.i
    else:
        r.i = a.i if a.i <= b.i else b.i
    return r


cdef inline bint kind_is_f64(int kind) noexcept nogil:
    return kind <= K_MIN_F


cdef inline int to_slot(int kind, object x, Slot* out) except -1:
    """Validate ``x`` exactly like ``spec.library.as_f64`` / ``as_i64`` and store it in ``out``: Python floats and
    ints inline, anything else (numpy scalars, Fractions, bad values) through those functions themselves, so
    both implementations accept and refuse the same values with the same exceptions."""
    cdef int overflow = 0
    cdef long long ll
    cdef double dv
    if kind <= K_MIN_F:
        if PyFloat_Check(x):
            dv = PyFloat_AS_DOUBLE(x)
            if dv != dv:
                raise ValueError("NaN is not a valid float64 monoid value")
            out.f = dv
            return 0
        if PyLong_Check(x) and not PyBool_Check(x):
            ll = PyLong_AsLongLongAndOverflow(x, &overflow)
            if overflow == 0 and -SWAG_F64_EXACT_INT <= ll <= SWAG_F64_EXACT_INT:
                out.f = <double>ll
                return 0
        out.f = _as_f64(x)
        return 0
    if PyLong_Check(x) and not PyBool_Check(x):
        ll = PyLong_AsLongLongAndOverflow(x, &overflow)
        if overflow != 0:
            raise OverflowError(f"int {x} does not fit in int64")
        out.i = ll
        return 0
    out.i = _as_i64(x)
    return 0


cdef inline int restore_slot(int kind, object x, Slot* out) except -1:
    """A typed value read back from a snapshot (copying, pickling): like :func:`to_slot`, but any float is taken
    for the f64 kinds -- a stored aggregate may be NaN (``inf + -inf`` in a float sum) though no input may."""
    if kind <= K_MIN_F and PyFloat_Check(x):
        out.f = PyFloat_AS_DOUBLE(x)
        return 0
    return to_slot(kind, x, out)


cdef inline object box(int kind, Slot v):
    if kind <= K_MIN_F:
        return PyFloat_FromDouble(v.f)
    return PyLong_FromLongLong(v.i)


cdef inline int choose_kind(object monoid, Slot* one) except -1:
    """The typed kind of ``monoid`` (K_GENERIC when it has none or its identity does not validate); stores the
    typed identity in ``one``."""
    cdef int kind = _typed_kind(monoid)
    if kind != K_GENERIC:
        try:
            to_slot(kind, monoid.identity, one)
        except (TypeError, ValueError, OverflowError):
            kind = K_GENERIC
    return kind


# generic slots hold owned references

cdef inline void slot_put(Slot* s, object v) noexcept:
    """``*s <- v`` for a slot that holds no reference yet."""
    Py_INCREF(v)
    s.o = <PyObject*>v


cdef inline void slot_set(Slot* s, object v) noexcept:
    """``*s <- v`` for a slot that holds a reference (released after the new one is taken)."""
    cdef PyObject* old = s.o
    Py_INCREF(v)
    s.o = <PyObject*>v
    Py_XDECREF(old)


cdef inline void slot_clear(Slot* s) noexcept:
    cdef PyObject* old = s.o
    s.o = NULL
    Py_XDECREF(old)


cdef inline object slot_get(Slot s):
    return <object>s.o


# ----------------------------------------------------------------------------------------------------------------
# input buffers for the typed window_array loops

cdef inline object new_out_array(int kind, Py_ssize_t n):
    cdef cpython.array.array tmpl = _pyarray.array('d' if kind <= K_MIN_F else 'q')
    return cpython.array.clone(tmpl, n, False)


cdef inline Py_ssize_t f64_from_i64_buffer(const int64_t[::1] src, double[::1] dst) noexcept:
    """Convert int64 items to float64 up to (excluding) the first one not exactly representable; returns the
    number converted."""
    cdef Py_ssize_t i
    cdef int64_t x
    for i in range(src.shape[0]):
        x = src[i]
        if x < -SWAG_F64_EXACT_INT or x > SWAG_F64_EXACT_INT:
            return i
        dst[i] = <double>x
    return src.shape[0]


cdef inline Py_ssize_t first_nan(const double[::1] src) noexcept:
    cdef Py_ssize_t i
    cdef double x
    for i in range(src.shape[0]):
        x = src[i]
        if x != x:
            return i
    return src.shape[0]


cdef object _BUFFER_MISMATCH = (ValueError, TypeError, BufferError)


cdef object typed_input(int kind, object values, Py_ssize_t* n_ok):
    """A C-contiguous typed buffer ('d' for f64 kinds, 'q' for i64 kinds) with the items of ``values`` whose
    first ``n_ok[0]`` items are valid (validated like ``as_f64``/``as_i64``), or None when the caller must
    iterate ``values`` as Python objects. May share memory with ``values`` (read only).

    Any buffer of C doubles is accepted for f64 kinds (its items are floats), and any buffer of C int64 for
    every kind (numpy arrays included: numpy's integer scalars are valid values)."""
    cdef const double[::1] dv
    cdef const int64_t[::1] iv
    cdef double[::1] dout
    if not PyObject_CheckBuffer(values):
        return None
    if kind <= K_MIN_F:
        try:
            dv = values
        except _BUFFER_MISMATCH:
            dv = None
        if dv is not None:
            n_ok[0] = first_nan(dv)
            return dv
    try:
        iv = values
    except _BUFFER_MISMATCH:
        return None
    if kind <= K_MIN_F:
        out = new_out_array(kind, iv.shape[0])
        dout = out
        n_ok[0] = f64_from_i64_buffer(iv, dout)
        return out
    n_ok[0] = iv.shape[0]
    return iv
