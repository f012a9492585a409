/* A running float64 sum that knows its own error: SlickDeque (Inv) over sum_f64 (issue 24 §8).
 *
 * The C twin of the Python module swagkit.spec.f64_track, which states the method and why it keeps every answer
 * within the any-order bound of its own window: infinities are counted apart, every addition to the finite part
 * (and to the running sum of magnitudes) computes its rounding error exactly (Knuth's TwoSum), and the owner
 * refolds a running sum whose accumulated error passed half the bound. The same operations in the same order as
 * the Python twin give the same doubles, so both implementations refold at the same updates and answer alike.
 * Only additions and two products in the bound test, no -ffast-math; setup.py compiles with
 * -ffp-contract=off so that no product and sum are fused where the Python twin rounds twice.
 */
#ifndef SWAGKIT_F64_TRACK_H
#define SWAGKIT_F64_TRACK_H

#include <math.h>
#include <stddef.h>

typedef struct {
    double fin;  /* the finite part of the sum */
    double err;  /* the signed sum of fin's rounding errors: fin = exact finite sum - err (up to err's rounding) */
    double eabs; /* the sum of their magnitudes */
    double mag;  /* the running sum of |x| over the finite values */
    double merr; /* an upper bound on |mag - exact sum of |x|| */
    ptrdiff_t count, pinf, ninf; /* finite values, +inf and -inf in the window */
    ptrdiff_t ops;               /* additions since the last fold */
} swag_f64_track;

static inline void swag_f64_track_clear(swag_f64_track* t) {
    t->fin = t->err = t->eabs = t->mag = t->merr = 0.0;
    t->count = t->pinf = t->ninf = t->ops = 0;
}

/* s = fl(a + b), e with a + b = s + e exactly (finite a, b) */
static inline void swag_two_sum(double a, double b, double* s, double* e) {
    double x = a + b;
    double bb = x - a;
    *e = (a - (x - bb)) + (b - bb);
    *s = x;
}

/* x entered (sign +1) or left (sign -1) the window */
static inline void swag_f64_track_add(swag_f64_track* t, double x, int sign) {
    double s, e, m, me;
    ptrdiff_t count;
    if (x == INFINITY) {
        t->pinf += sign;
        return;
    }
    if (x == -INFINITY) {
        t->ninf += sign;
        return;
    }
    count = t->count + sign;
    if (count == 0) { /* nothing finite left: no residue either */
        t->fin = t->err = t->eabs = t->mag = t->merr = 0.0;
        t->count = t->ops = 0;
        return;
    }
    swag_two_sum(t->fin, sign > 0 ? x : -x, &s, &e);
    swag_two_sum(t->mag, sign > 0 ? fabs(x) : -fabs(x), &m, &me);
    t->fin = s;
    t->err = t->err + e;
    t->eabs = t->eabs + fabs(e);
    t->mag = m;
    t->merr = t->merr + fabs(me);
    t->count = count;
    t->ops = t->ops + 1;
}

/* the window's sum: NaN with both infinities, +-inf with one, else the finite part */
static inline double swag_f64_track_answer(const swag_f64_track* t) {
    if (t->pinf && t->ninf)
        return NAN;
    if (t->pinf)
        return INFINITY;
    if (t->ninf)
        return -INFINITY;
    return t->fin;
}

/* whether the tracked error is at most half the any-order bound of the window's finite values */
static inline int swag_f64_track_within_bound(const swag_f64_track* t) {
    if (t->count <= 1)
        return t->eabs == 0.0;
    if (t->ops >= ((ptrdiff_t)1 << 32) || !(isfinite(t->fin) && isfinite(t->eabs) && isfinite(t->mag)))
        return 0;
    /* (c - 1)u <= gamma_{c-1}: a slightly stricter test than the bound itself, without a division */
    return fabs(t->err) + 0x1p-20 * t->eabs <= 0.5 * (((double)(t->count - 1) * 0x1p-53) * (t->mag - t->merr));
}

#endif
