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
 * Cost: three additions per item, no branch on the data. A fused step runs two independent chains -- the prefix
 * fold of block t (new memory, ascending) and the suffix fold of block t−2 added into block t−1's answers (both
 * read or written recently, usually still in cache). When blocks are small enough for two such working sets to
 * share a core's L2 cache (w ≤ SWAG_TWO_STREAMS_MAX_W), the stream is cut in two halves run side by side, four
 * chains per step: one chain per item is latency-bound at about bottleneck's move_sum (one add of latency per
 * item); two halves hide it (measured on 4 M doubles: 0.82× move_sum with one stream at w = 4096, 1.04× with two;
 * at w = 65536 two streams only evict each other's lines, 0.81× against one stream's 0.89×). The order of the
 * steps changes nothing in the answers: every fold is the same chain over the same items.
 *
 * NaN: no test per item. The steps return their blocks' full prefix folds, which the driver adds up (one addition
 * per block, off the chains): the total is NaN when x holds a NaN (NaN propagates through every addition) -- or
 * when infinities meet, a false alarm -- and only then is x scanned for one.
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

/* Blocks at most this long (128 KiB of doubles) run as two interleaved halves; see "Cost" above. */
#define SWAG_TWO_STREAMS_MAX_W 16384

/* out[b .. e) = the prefix folds x[b], x[b] + x[b+1], ...; returns the last. */
static inline double swag_prefix_folds_f64(const double *restrict x, ptrdiff_t b, ptrdiff_t e, double *restrict out)
{
    ptrdiff_t i;
    double L = x[b];
    out[b] = L;
    for (i = b + 1; i < e; i++) {
        L = L + x[i];
        out[i] = L;
    }
    return L;
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

/* One fused step at block start b (block t ≥ 2): the prefix folds of block t and, into block t−1's answers, the
 * suffix folds of block t−2 -- the two calls above in one loop (w ≥ 2). Returns block t's full prefix fold. */
static inline double swag_fused_step_f64(const double *restrict x, ptrdiff_t w, ptrdiff_t b, double *restrict out)
{
    ptrdiff_t j, c = b - 2 * w;
    double L = x[b], R = x[c + w - 1];
    out[b] = L;
    out[b - 2] = R + out[b - 2];
    for (j = 1; j < w - 1; j++) {
        L = L + x[b + j];
        R = R + x[c + w - 1 - j];
        out[b + j] = L;
        out[b - 2 - j] = R + out[b - 2 - j];
    }
    L = L + x[b + w - 1];
    out[b + w - 1] = L;
    return L;
}

/* Two fused steps, at block starts b and d of the two halves, in one loop: four independent chains. Returns the
 * sum of the two blocks' full prefix folds. */
static inline double swag_fused_steps2_f64(const double *restrict x, ptrdiff_t w, ptrdiff_t b, ptrdiff_t d,
                                         double *restrict out)
{
    ptrdiff_t j, c = b - 2 * w, e = d - 2 * w;
    double L = x[b], R = x[c + w - 1], M = x[d], S = x[e + w - 1];
    out[b] = L;
    out[d] = M;
    out[b - 2] = R + out[b - 2];
    out[d - 2] = S + out[d - 2];
    for (j = 1; j < w - 1; j++) {
        L = L + x[b + j];
        M = M + x[d + j];
        R = R + x[c + w - 1 - j];
        S = S + x[e + w - 1 - j];
        out[b + j] = L;
        out[d + j] = M;
        out[b - 2 - j] = R + out[b - 2 - j];
        out[d - 2 - j] = S + out[d - 2 - j];
    }
    L = L + x[b + w - 1];
    M = M + x[d + w - 1];
    out[b + w - 1] = L;
    out[d + w - 1] = M;
    return L + M;
}

/* Returns 1 when some x[i] is NaN (then the answers are garbage: the caller validates and raises), else 0. */
static inline int swag_window_sum_f64(const double *restrict x, ptrdiff_t n, ptrdiff_t w, double *restrict out)
{
    ptrdiff_t i, t, u, h, blocks;
    double folds; /* the sum of the blocks' full prefix folds: NaN if x holds a NaN */
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
    if (n <= w)
        folds = swag_prefix_folds_f64(x, 0, n, out);
    else {
        blocks = n / w; /* ≥ 1 full blocks; w < n here, so t·w below cannot overflow */
        /* Halves [0, h) and [h, blocks) (or one stream, h = blocks): prefix folds of each half's first two blocks,
         * then fused steps; the suffix folds into the second half's first block (from h − 1) and into each half's
         * last block are due after the loops. */
        h = w <= SWAG_TWO_STREAMS_MAX_W && blocks >= 6 ? blocks / 2 : blocks;
        folds = 0.0;
        for (t = 0; t < 2 && t < blocks; t++)
            folds = folds + swag_prefix_folds_f64(x, t * w, t * w + w, out);
        for (u = h; u < h + 2 && u < blocks; u++)
            folds = folds + swag_prefix_folds_f64(x, u * w, u * w + w, out);
        for (t = 2, u = h + 2; t < h && u < blocks; t++, u++)
            folds = folds + swag_fused_steps2_f64(x, w, t * w, u * w, out);
        for (; t < h; t++)
            folds = folds + swag_fused_step_f64(x, w, t * w, out);
        for (; u < blocks; u++)
            folds = folds + swag_fused_step_f64(x, w, u * w, out);
        if (blocks * w < n)
            folds = folds + swag_prefix_folds_f64(x, blocks * w, n, out);
        if (h >= 2)
            swag_add_suffix_folds_f64(x, (h - 1) * w, w, n, out);
        if (h < blocks) {
            swag_add_suffix_folds_f64(x, h * w, w, n, out);
            swag_add_suffix_folds_f64(x, (blocks - 1) * w, w, n, out);
        }
        if (blocks * w < n)
            swag_add_suffix_folds_f64(x, blocks * w, w, n, out);
    }
    return folds != folds && swag_first_nan_f64(x, n) < n;
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
