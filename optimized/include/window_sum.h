/* Sliding-window sums over a whole array, for swagkit.optimized.window_sum.
 *
 * int64 (the library's sum_i64, wrapping modulo 2**64): the subtract-on-evict running sum of SlickDeque (Inv)
 * (paper 001 Algorithm 1, plain mode; paper 000 §8.3), a ← a + (x[i] − x[i−w]) in unsigned arithmetic. A group,
 * so the answer is the exact (wrapped) window sum whatever the order: no recomputation is needed.
 *
 * float64: no subtraction at all, so no value that left the frame can leave a rounding residue behind. The stream
 * is cut into blocks of w items from index 0; a frame x[i−w+1 .. i] with i in block k ≥ 1 (first index b) is a
 * suffix of block k−1 and a prefix of block k, and its answer is fl(R + L) with R = the right-to-left fold of
 * x[i−w+1 .. b−1] (absent when i is the block's last item) and L = the left-to-right fold of x[b .. i]; in block
 * 0 the answer is the prefix fold. Each answer is thus a summation tree over exactly its frame's n values, within
 * Higham's any-order bound γ_{n−1}·Σ|x| (Accuracy and Stability of Numerical Algorithms, 2nd ed., §4.2); see the
 * Python module swagkit.optimized._window_sum for the statement and the pure-Python twin, which computes the same
 * folds and the same final additions, so the answers are bit-identical. Only additions, no -ffast-math: the
 * compiler must not reassociate (and there is no product a contraction could fuse).
 *
 * Cost: three additions per item, no branch on the data. The loop for block t runs two independent chains -- the
 * prefix fold of block t (new memory, ascending) and the suffix fold of block t−2 added into block t−1's answers
 * (both read or written recently, usually still in cache) -- so it runs at about one add of latency per item, like bottleneck's move_sum, and no
 * data makes it slower.
 */
#ifndef SWAGKIT_WINDOW_SUM_H
#define SWAGKIT_WINDOW_SUM_H

#include <stddef.h>
#include <stdint.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

/* Ask Linux for transparent huge pages under a large output buffer that is about to be written, as numpy does for
 * its arrays (bottleneck's outputs get them that way): with 4 KiB pages, the page faults of a fresh 80 MB output
 * cost more than the sums. Advice only: any failure is ignored, and elsewhere it does nothing. */
static inline void swag_advise_hugepages(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start, end;
    if (bytes < ((size_t)4 << 20) || page <= 0)
        return;
    start = ((uintptr_t)p + (uintptr_t)page - 1) & ~((uintptr_t)page - 1); /* the whole pages inside the buffer */
    end = ((uintptr_t)p + bytes) & ~((uintptr_t)page - 1);
    if (end > start)
        (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* Index of the first NaN of x[0..n), or n. Blocks of 256 are tested with no branch per item (the OR reduction
 * vectorizes, unlike an early-exit loop), then the block holding a NaN is scanned: input validation at memory
 * speed for the float array drivers. */
static inline ptrdiff_t swag_first_nan_f64(const double *x, ptrdiff_t n)
{
    ptrdiff_t b, i, e;
    int any;
    for (b = 0; b < n; b += 256) {
        e = n - b < 256 ? n : b + 256;
        any = 0;
        for (i = b; i < e; i++)
            any |= x[i] != x[i];
        if (any) {
            for (i = b; x[i] == x[i]; i++)
                ;
            return i;
        }
    }
    return n;
}

/* out[b .. e) = the prefix folds x[b], x[b] + x[b+1], ...; returns 1 when one of x[b .. e) is NaN. */
static inline int swag_prefix_folds_f64(const double *restrict x, ptrdiff_t b, ptrdiff_t e, double *restrict out)
{
    ptrdiff_t i;
    double L = x[b];
    int nan = L != L;
    out[b] = L;
    for (i = b + 1; i < e; i++) {
        nan |= x[i] != x[i];
        L = L + x[i];
        out[i] = L;
    }
    return nan;
}

/* Block t ≥ 1 (first index b = t·w) holds its prefix folds; add block t−1's suffix folds: out[b + m − 1] ←
 * R_m + out[b + m − 1] with R_m = x[b−w+m] + (x[b−w+m+1] + (… + x[b−1])), m = w−1 down to 1, slots below n. */
static inline void swag_add_suffix_folds_f64(const double *restrict x, ptrdiff_t b, ptrdiff_t w, ptrdiff_t n,
                                             double *restrict out)
{
    ptrdiff_t m;
    double R = x[b - 1];
    for (m = w - 1; m >= 1; m--) {
        if (m < w - 1)
            R = R + x[b - w + m];
        if (b + m - 1 < n)
            out[b + m - 1] = R + out[b + m - 1];
    }
}

/* Returns 1 when some x[i] is NaN (then the answers are garbage: the caller validates and raises), else 0. The
 * NaN test rides along in the prefix folds, which read every item once, so valid input is read once for it. */
static inline int swag_window_sum_f64(const double *restrict x, ptrdiff_t n, ptrdiff_t w, double *restrict out)
{
    ptrdiff_t i, j, t, b, c, blocks;
    double L, R;
    int nan = 0;
    if (n <= 0)
        return 0;
    if (w == 1) { /* every frame is one value: its own exact sum */
        for (i = 0; i < n; i++) {
            nan |= x[i] != x[i];
            out[i] = x[i];
        }
        return nan;
    }
    nan |= swag_prefix_folds_f64(x, 0, w < n ? w : n, out);
    if (n <= w)
        return nan;
    blocks = n / w; /* full blocks; w < n here, so t·w below cannot overflow */
    if (blocks >= 2)
        nan |= swag_prefix_folds_f64(x, w, 2 * w, out);
    for (t = 2; t < blocks; t++) {
        /* fused: the prefix folds of block t (at b) and the suffix folds of block t−2 (at c) into block t−1 */
        b = t * w;
        c = b - 2 * w;
        L = x[b];
        nan |= L != L;
        out[b] = L;
        R = x[c + w - 1];
        out[b - 2] = R + out[b - 2];
        for (j = 1; j < w - 1; j++) {
            nan |= x[b + j] != x[b + j];
            L = L + x[b + j];
            R = R + x[c + w - 1 - j];
            out[b + j] = L;
            out[b - 2 - j] = R + out[b - 2 - j];
        }
        nan |= x[b + w - 1] != x[b + w - 1];
        L = L + x[b + w - 1];
        out[b + w - 1] = L;
    }
    b = blocks * w; /* the partial last block, if any, then the suffix folds still due */
    if (b < n)
        nan |= swag_prefix_folds_f64(x, b, n, out);
    if (blocks >= 2)
        swag_add_suffix_folds_f64(x, b - w, w, n, out);
    if (b < n)
        swag_add_suffix_folds_f64(x, b, w, n, out);
    return nan;
}

static inline void swag_window_sum_i64(const int64_t *restrict x, ptrdiff_t n, ptrdiff_t w, int64_t *restrict out)
{
    ptrdiff_t i, stop = w < n ? w : n;
    uint64_t a = 0;
    for (i = 0; i < stop; i++) {
        a += (uint64_t)x[i];
        out[i] = (int64_t)a;
    }
    for (; i < n; i++) {
        a += (uint64_t)x[i] - (uint64_t)x[i - w];
        out[i] = (int64_t)a;
    }
}

#endif
