/* The steady-state kernel of the compiled SlickDeque Non-Inv (paper 001, Algorithm 2) for typed selective kinds;
   see _slickdeque.pyx for why it is plain C. */
#ifndef SWAGKIT_SLICKDEQUE_NONINV_H
#define SWAGKIT_SLICKDEQUE_NONINV_H

#include <Python.h>
#include <stdint.h>
#include <stddef.h>
#include "swag_slot.h"

/* One deque node of the kernel's private ring: the order key, the sequence number and the value's bits. */
typedef struct { int64_t key; int64_t seq; int64_t bits; } SwagNvNode;

/* Order keys: for every typed selective kind, node b is dominated by a new value v -- (b (x) v) == v in
   Algorithm 2, i.e. b <= v for max, b >= v for min -- exactly when key(b) <= key(v) as int64.
   Doubles: the IEEE bits of x + 0.0 (so -0.0 and +0.0 share a key, as they compare equal) with the low 63
   bits flipped for negatives order like the doubles themselves; NaN never gets here (rejected on input).
   Min kinds use the bitwise complement, which reverses the order. */
static inline int64_t swag_nv_key(int kind, int64_t bits) {
    union { int64_t i; double f; } u;
    int64_t k;
    if (kind == 2 || kind == 3) {          /* K_MAX_F, K_MIN_F */
        u.i = bits; u.f = u.f + 0.0;
        k = u.i ^ (int64_t)(((uint64_t)(u.i >> 63)) >> 1);
    } else {
        k = bits;
    }
    return (kind == 3 || kind == 6) ? ~k : k;   /* K_MIN_F, K_MIN_I */
}

/* c ? a : b without a branch. */
static inline int64_t swag_csel(int64_t c, int64_t a, int64_t b) {
#if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__)
    __asm__("test %1, %1; cmovnz %2, %0" : "+r"(b) : "r"(c), "r"(a) : "cc");
    return b;
#else
    int64_t m = -(int64_t)(c != 0);
    return b ^ ((a ^ b) & m);
#endif
}

#define SWAG_NV_GUARD INT64_MAX   /* key of the guard slots below the head: never dominated (see below) */

/* Algorithm 2 in steady state over n items: every item first evicts the head if it is the partial leaving
   the window (sequence number seq0 + i - w), then pops the dominated tail and pushes, then records the head.

   The deque lives in q[] (positions unmasked, slot = position & qmask; the ring holds at least w + 3 slots),
   from position *hp_io (the head) to *tp_io (one past the tail). Two guard slots below the head hold key
   SWAG_NV_GUARD, and k1..k3 cache the keys at positions tp-1..tp-3 (the guard key beyond the deque), so the
   common case -- at most two pops, 7 in 8 inserts on random data -- reads no node it is about to overwrite
   and takes no data-dependent branch. Three or more pops test the next four nodes at once, then scan.
   A new value whose key is the guard's (only INT64_MAX for max_i64, INT64_MIN for min_i64) always takes the
   bounded slow path, so a guard is never popped.

   Returns the number of dominance tests that stopped a scan (inserts that left some node); the caller adds
   the popped nodes, which together are the reference's combine count. */
static Py_ssize_t swag_nv_steady(SwagNvNode* q, Py_ssize_t qmask, Py_ssize_t* hp_io, Py_ssize_t* tp_io,
                                 int64_t seq0, const int64_t* in, Py_ssize_t n, int64_t* out, Py_ssize_t w,
                                 int kind) {
    Py_ssize_t hp = *hp_io, tp = *tp_io, t2, m, lim, c2, i;
    Py_ssize_t stops = 0;
    int64_t sq = seq0, kv, k1, k2, k3, k4, n3, d1, d2, bits;
    SwagNvNode* nd;
    q[(hp - 1) & qmask].key = SWAG_NV_GUARD;
    q[(hp - 2) & qmask].key = SWAG_NV_GUARD;
    m = tp - hp;
    k1 = m >= 1 ? q[(tp - 1) & qmask].key : SWAG_NV_GUARD;
    k2 = m >= 2 ? q[(tp - 2) & qmask].key : SWAG_NV_GUARD;
    k3 = m >= 3 ? q[(tp - 3) & qmask].key : SWAG_NV_GUARD;
    for (i = 0; i < n; i++) {
        if (SWAG_UNLIKELY(q[hp & qmask].seq == sq - w)) {   /* evict the expiring head */
            q[hp & qmask].key = SWAG_NV_GUARD;
            hp++;
            m = tp - hp;
            if (m < 3) { k3 = SWAG_NV_GUARD; if (m < 2) { k2 = SWAG_NV_GUARD; if (m < 1) k1 = SWAG_NV_GUARD; } }
        }
        bits = in[i];
        kv = swag_nv_key(kind, bits);
        if (SWAG_UNLIKELY(k3 <= kv)) {                     /* three or more pops */
            t2 = tp - 3;
            lim = t2 - hp;
            c2 = ((lim >= 1) & (q[(t2 - 1) & qmask].key <= kv)) + ((lim >= 2) & (q[(t2 - 2) & qmask].key <= kv))
               + ((lim >= 3) & (q[(t2 - 3) & qmask].key <= kv)) + ((lim >= 4) & (q[(t2 - 4) & qmask].key <= kv));
            t2 -= c2;
            if (SWAG_UNLIKELY(c2 == 4)) {
                while (t2 > hp && q[(t2 - 1) & qmask].key <= kv) t2--;
            }
            k2 = q[(t2 - 1) & qmask].key;
            k3 = q[(t2 - 2) & qmask].key;
        } else {                                                  /* 0, 1 or 2 pops, branch-free */
            d1 = k1 <= kv;
            d2 = k2 <= kv;
            t2 = tp - d1 - d2;
            k4 = q[(tp - 4) & qmask].key;
            n3 = swag_csel(d2, k4, swag_csel(d1, k3, k2));       /* the key c + 2 below the old tail */
            k2 = swag_csel(d2, k3, swag_csel(d1, k2, k1));       /* the key c + 1 below the old tail */
            k3 = n3;
        }
        k1 = kv;
        stops += t2 > hp;
        nd = &q[t2 & qmask];
        nd->key = kv;
        nd->seq = sq;
        nd->bits = bits;
        sq++;
        tp = t2 + 1;
        out[i] = q[hp & qmask].bits;
    }
    *hp_io = hp;
    *tp_io = tp;
    return stops;
}

#endif /* SWAGKIT_SLICKDEQUE_NONINV_H */
