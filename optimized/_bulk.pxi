# ``insert_many``/``evict_many`` of the deque-based in-order algorithms (Two-Stacks, Two-Stacks Lite, DABA, DABA
# Lite), included after ``_template.pxi`` by modules that also define
#   st_insert_g(State*, object v, object comb) -> int    (generic; strong: raises leaving the state as before)
#   st_evict_g(State*, object comb) -> int               (generic; strong; precondition: non-empty)
# and import ``check_count`` as ``_check_count``. The caller holds the re-entry guard.


cdef int _insert_many_body(State* s, int kind, object values, object lift, object comb, str algorithm) except -1:
    """``insert_many`` once the caller holds the re-entry guard: typed kinds as :func:`_insert_many_typed`;
    generic monoids lift every value first (a refused one changes nothing), then insert them one by one (each
    all-or-nothing); if ``combine`` raises at the j-th, the first j stay inserted and the exception says so."""
    cdef Py_ssize_t j = 0
    if kind != K_GENERIC:
        return _insert_many_typed(s, kind, values)
    lifted = [lift(x) for x in values]
    try:
        for v in lifted:
            st_insert_g(s, v, comb)
            j += 1
    except BaseException as err:
        err.add_note(f"swagkit {algorithm}: insert_many inserted {j} of {len(lifted)} values")
        raise
    return 0


cdef int _evict_many_body(State* s, int kind, object count, object comb, str algorithm) except -1:
    """``evict_many`` once the caller holds the re-entry guard: ``count`` checked like the reference's
    (``TypeError``/``ValueError``; more than held: :class:`EmptyWindowError`, evicting nothing), then a C loop;
    if ``combine`` raises at the j-th eviction, the first j stay evicted and the exception says so."""
    cdef Py_ssize_t j = 0, k
    wanted = _check_count(count)  # a Python int: 2**70 is too many, not an overflow
    if wanted > st_len(s):
        raise EmptyWindowError(f"{algorithm}: evict_many({wanted}) on a window of {st_len(s)}")
    k = wanted
    if kind != K_GENERIC:
        for j in range(k):
            st_evict_t(s, kind)
        return 0
    try:
        while j < k:
            st_evict_g(s, comb)
            j += 1
    except BaseException as err:
        err.add_note(f"swagkit {algorithm}: evict_many evicted {j} of {k} values")
        raise
    return 0
