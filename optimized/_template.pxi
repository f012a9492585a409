# Bulk loops shared by the compiled algorithms, included *after* a module defines its ``State`` struct and
#   st_insert_t(State*, Slot, int kind) -> int   (-1: no memory; nothing changed)   [noexcept nogil]
#   st_evict_t(State*, int kind)                 (precondition: non-empty)          [noexcept nogil]
#   st_query_t(State*, int kind) -> Slot                                            [noexcept nogil]
#   st_init(State*, int kind, Slot one) -> int   (-1: no memory)
#   st_free(State*, int kind)
#   st_len(State*) -> Py_ssize_t                                                   [noexcept nogil]
# A typed kind is passed as a compile-time constant from the dispatchers below so that gcc specializes the
# inlined algorithm per kind: the combine is then a single instruction and no Python call happens per item.


from cpython.pyport cimport PY_SSIZE_T_MAX

cdef Slot tmp_slot_scratch  # to_slot's target when it is called only to raise the documented exception


cdef inline Py_ssize_t _window_loop(State* s, const Slot* inp, Py_ssize_t n, Py_ssize_t window, Slot* out,
                                    int kind) noexcept nogil:
    """The driver of reference/driver.py in C: per item, evict when full, insert, record the query.
    Returns the number of items processed (< n only when out of memory)."""
    cdef Py_ssize_t i
    cdef State loc = s[0]  # a local copy the compiler can keep in registers (nothing aliases it)
    for i in range(n):
        if st_len(&loc) == window:
            st_evict_t(&loc, kind)
        if SWAG_UNLIKELY(st_insert_t(&loc, inp[i], kind) < 0):
            s[0] = loc
            return i
        out[i] = st_query_t(&loc, kind)
    s[0] = loc
    return n


cdef Py_ssize_t _window_run(State* s, const Slot* inp, Py_ssize_t n, Py_ssize_t window, Slot* out,
                            int kind) noexcept nogil:
    if kind == K_SUM_F:
        return _window_loop(s, inp, n, window, out, K_SUM_F)
    elif kind == K_MAX_F:
        return _window_loop(s, inp, n, window, out, K_MAX_F)
    elif kind == K_MIN_F:
        return _window_loop(s, inp, n, window, out, K_MIN_F)
    elif kind == K_SUM_I:
        return _window_loop(s, inp, n, window, out, K_SUM_I)
    elif kind == K_MAX_I:
        return _window_loop(s, inp, n, window, out, K_MAX_I)
    else:
        return _window_loop(s, inp, n, window, out, K_MIN_I)


cdef inline Py_ssize_t _insert_loop(State* s, const Slot* inp, Py_ssize_t n, int kind) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        if SWAG_UNLIKELY(st_insert_t(s, inp[i], kind) < 0):
            return i
    return n


cdef Py_ssize_t _insert_run(State* s, const Slot* inp, Py_ssize_t n, int kind) noexcept nogil:
    if kind == K_SUM_F:
        return _insert_loop(s, inp, n, K_SUM_F)
    elif kind == K_MAX_F:
        return _insert_loop(s, inp, n, K_MAX_F)
    elif kind == K_MIN_F:
        return _insert_loop(s, inp, n, K_MIN_F)
    elif kind == K_SUM_I:
        return _insert_loop(s, inp, n, K_SUM_I)
    elif kind == K_MAX_I:
        return _insert_loop(s, inp, n, K_MAX_I)
    else:
        return _insert_loop(s, inp, n, K_MIN_I)


cdef inline const Slot* _buffer_address(object buf, int kind):
    cdef const double[::1] dv
    cdef const int64_t[::1] iv
    if kind <= K_MIN_F:
        dv = buf
        return <const Slot*>&dv[0] if dv.shape[0] > 0 else NULL
    iv = buf
    return <const Slot*>&iv[0] if iv.shape[0] > 0 else NULL


cdef int _insert_many_typed(State* s, int kind, object values) except -1:
    """``insert_many`` for a typed kind: every value is validated first (a refused one changes nothing), then one
    C loop inserts them -- straight from the buffer of ``array.array``/``memoryview``/numpy input, else from a
    temporary C array of the validated values."""
    cdef Py_ssize_t n_ok = 0, done, n, i
    cdef Slot* tmp
    buf = typed_input(kind, values, &n_ok)
    if buf is not None:
        if n_ok < len(buf):
            to_slot(kind, values[n_ok], &tmp_slot_scratch)  # raises the documented exception for the first bad item
            raise AssertionError("unreachable: invalid item accepted")  # pragma: no cover
        if n_ok > 0:
            done = _insert_run(s, _buffer_address(buf, kind), n_ok, kind)
            if done < n_ok:
                raise MemoryError()
        return 0
    items = values if isinstance(values, (list, tuple)) else list(values)
    n = len(items)
    if n == 0:
        return 0
    if <size_t>n > (<size_t>PY_SSIZE_T_MAX) // sizeof(Slot):
        raise MemoryError()
    tmp = <Slot*>malloc(n * sizeof(Slot))
    if tmp == NULL:
        raise MemoryError()
    try:
        for i in range(n):
            to_slot(kind, items[i], &tmp[i])
        done = _insert_run(s, tmp, n, kind)
        if done < n:
            raise MemoryError()
    finally:
        free(tmp)
    return 0


cdef object _window_typed(int kind, Slot one, object values, Py_ssize_t window):
    """``window_array`` for a typed kind with the identity ``lower``: an ``array.array`` ('d' or 'q')."""
    cdef State st
    cdef Py_ssize_t n_ok = 0, n, done, i
    cdef Slot v
    cdef cpython.array.array out
    cdef Slot* outp
    cdef const Slot* inp
    if st_init(&st, kind, one) < 0:
        raise MemoryError()
    try:
        buf = typed_input(kind, values, &n_ok)
        if buf is not None:
            n = len(buf)
            if n_ok < n:
                to_slot(kind, values[n_ok], &v)  # raises
                raise AssertionError("unreachable: invalid item accepted")  # pragma: no cover
            out = new_out_array(kind, n)
            if n > 0:
                outp = <Slot*>out.data.as_voidptr
                inp = _buffer_address(buf, kind)
                with nogil:
                    done = _window_run(&st, inp, n, window, outp, kind)
                if done < n:
                    raise MemoryError()
            return out
        out = new_out_array(kind, 0)
        i = 0
        for x in values:
            to_slot(kind, x, &v)
            if st_len(&st) == window:
                st_evict_t(&st, kind)
            if st_insert_t(&st, v, kind) < 0:
                raise MemoryError()
            v = st_query_t(&st, kind)
            cpython.array.resize_smart(out, i + 1)
            (<Slot*>out.data.as_voidptr)[i] = v
            i += 1
        return out
    finally:
        st_free(&st, kind)


def _window_array(cls, monoid, values, window):
    """Fast path of :func:`swagkit.optimized.window_array` for this module's class ``cls``.

    Typed kinds (identity ``lower``): the whole run is one C loop; returns an ``array.array`` ('d' for f64
    kinds, 'q' for i64 kinds). Generic monoids: a C loop over the class's methods; returns a list."""
    cdef Slot one
    cdef Py_ssize_t w = window
    cdef int kind = choose_kind(monoid, &one)
    if w < 1:
        raise ValueError("window must be at least 1")
    if kind != K_GENERIC and _lower_is_identity(monoid):
        return _window_typed(kind, one, values, w)
    agg = cls(monoid)
    out = []
    for v in values:
        if len(agg) == w:
            agg.evict()
        agg.insert(v)
        out.append(agg.query())
    return out
