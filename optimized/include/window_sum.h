/* Sliding-window sums over a whole array: the subtract-on-evict running sum of SlickDeque (Inv) (paper 001
 * Algorithm 1, plain mode; paper 000 §8.3) as one C loop, for swagkit.optimized.window_sum.
 *
 * int64 (the library's sum_i64, wrapping modulo 2**64): a ← a + (x[i] − x[i−w]) in unsigned arithmetic. A group,
 * so the answer is the exact (wrapped) window sum whatever the order: no recomputation is needed.
 *
 * float64: the same update, with the running sum refolded from the window once per w items. The stream is cut
 * into blocks of w items starting at index 0; inside block k ≥ 1 (first index b = k·w) the running sum is updated
 * by subtract-on-evict while the block's own left-to-right fold f = x[b] + x[b+1] + … runs as a second,
 * independent chain; at the block's last item the window is exactly the block, so the answer there is f and the
 * running sum restarts from it. Block 0 is the plain prefix fold. Every answer is therefore a summation tree over
 * at most 3w − 2 terms (block k−1's items, then one x[t] and one −x[t−w] per update), whose error is bounded by
 * Higham's γ_{m−1}·Σ|terms| (Accuracy and Stability of Numerical Algorithms, 2nd ed., §4.2); see the Python
 * module swagkit.optimized._window_sum for the stated bound and the pure-Python twin (the same IEEE operations in
 * the same order, so the answers are bit-identical). No -ffast-math: the compiler must not reassociate.
 *
 * The two chains (running sum, block fold) are independent, so the loop runs at about one add of latency per
 * item, like bottleneck's move_sum (which never refolds, so its error grows without bound).
 */
#ifndef SWAGKIT_WINDOW_SUM_H
#define SWAGKIT_WINDOW_SUM_H

#include <stddef.h>
#include <stdint.h>

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

/* Returns 1 when some x[i] is NaN (then the answers are garbage: the caller validates and raises), else 0. The
 * NaN test rides along in the same pass (the loop is latency-bound, the compare is free), so valid input is read
 * once. */
static inline int swag_window_sum_f64(const double *restrict x, ptrdiff_t n, ptrdiff_t w, double *restrict out)
{
    ptrdiff_t i, b, last, stop;
    double a, f;
    int nan = 0;
    if (n <= 0)
        return 0;
    stop = w < n ? w : n;
    a = x[0];
    nan |= a != a;
    out[0] = a;
    for (i = 1; i < stop; i++) {
        nan |= x[i] != x[i];
        a = a + x[i];
        out[i] = a;
    }
    for (b = w; b < n; b += w) { /* b < n and w < n here, so b + w cannot overflow */
        last = b + w - 1;        /* the block's last item: its window is exactly the block */
        stop = last < n ? last : n;
        f = x[b];
        nan |= f != f;
        if (b < stop) {
            a = a + (x[b] - x[b - w]);
            out[b] = a;
        }
        for (i = b + 1; i < stop; i++) {
            nan |= x[i] != x[i];
            a = a + (x[i] - x[i - w]);
            f = f + x[i];
            out[i] = a;
        }
        if (last < n) {
            if (last > b) {
                nan |= x[last] != x[last];
                f = f + x[last];
            }
            a = f;
            out[last] = a;
        }
    }
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
