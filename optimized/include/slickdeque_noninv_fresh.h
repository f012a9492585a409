/* The window_array kernel of a fresh compiled SlickDeque Non-Inv (paper 001, Algorithm 2) for typed selective
   kinds; see _slickdeque.pyx (``_nv_window_fresh``) for why it exists beside swag_nv_steady. */
#ifndef SWAGKIT_SLICKDEQUE_NONINV_FRESH_H
#define SWAGKIT_SLICKDEQUE_NONINV_FRESH_H

#include <string.h>
#include "slickdeque_noninv.h"

/* Order key of a typed selective kind: b is dominated by v ((b (x) v) == v: b <= v for max, b >= v for min)
   exactly when key(b) <= key(v). Doubles (NaN-free): the IEEE bits with the low 63 bits flipped for negatives,
   plus one for negatives so that -0.0 and +0.0 share the key 0 (they compare equal), all in integer
   registers. Min kinds take the complement, which reverses the order. */
static inline int64_t swag_nvf_key(int kind, int64_t bits) {
    int64_t s, k = bits;
    if (kind == 2 || kind == 3) {          /* K_MAX_F, K_MIN_F */
        s = bits >> 63;
        k = (int64_t)(((uint64_t)bits ^ ((uint64_t)s >> 1)) - (uint64_t)s);
    }
    return (kind == 3 || kind == 6) ? ~k : k;   /* K_MIN_F, K_MIN_I */
}

#define SWAG_NVF_LOW INT64_MIN   /* key of the two guard slots below the head, and of k3 while m < 3 */

/* Algorithm 2 over in[0..n) from an empty deque with window w (1 <= w <= n): per item, evict the head when it
   expires, pop the dominated tail, push, record the head's value in out[i]. The deque is keys/idx[hp..tp) in
   a linear buffer of cap >= 2 w + 64 slots; k1..k3 cache the keys at tp-1..tp-3 and k3 is SWAG_NVF_LOW while
   the deque holds fewer than three nodes, so the branch-free path (at most two pops, 7 in 8 items on random
   data) runs only when three nodes exist and it cannot empty the deque. Every other item takes the slow path,
   which tests four nodes at once, then scans. Returns the reference's combine count (one per popped node, plus
   one per scan stopped by a node); *hp_out, *tp_out give the final deque. */
static Py_ssize_t swag_nv_fresh(int64_t* keys, int64_t* idx, Py_ssize_t cap, const int64_t* in, Py_ssize_t n,
                                int64_t* out, Py_ssize_t w, int kind, Py_ssize_t* hp_out, Py_ssize_t* tp_out) {
    Py_ssize_t hp = 2, tp = 2, t2, i = 0, lim, c2, empties = 0, evictions = 0, stop, hexp = w, sh;
    int64_t kv, k1 = SWAG_NVF_LOW, k2 = SWAG_NVF_LOW, k3 = SWAG_NVF_LOW, k4, n3, d1, d2, bits, hb = 0;
    keys[0] = SWAG_NVF_LOW;
    keys[1] = SWAG_NVF_LOW;
    while (i < n) {
        if (i == hexp) {                                     /* the head is the partial leaving the window */
            keys[hp] = SWAG_NVF_LOW;
            hp++;
            evictions++;
            if (tp - hp < 3) k3 = SWAG_NVF_LOW;
            if (tp > hp) { hexp = idx[hp] + w; hb = in[idx[hp]]; } else hexp = i + w;  /* item i heads next */
        }
        if (cap - tp < 8) {                                  /* move the deque and its guards to the start */
            sh = hp - 2;
            memmove(keys, keys + sh, (size_t)(tp - sh) * sizeof(int64_t));
            memmove(idx, idx + sh, (size_t)(tp - sh) * sizeof(int64_t));
            hp -= sh;
            tp -= sh;
        }
        /* no eviction before hexp (it only grows inside), and tp grows at most one slot per item */
        stop = n < hexp ? n : hexp;
        if (i + (cap - tp) < stop) stop = i + (cap - tp);
        for (; i < stop; i++) {
            bits = in[i];
            kv = swag_nvf_key(kind, bits);
            if (SWAG_UNLIKELY(k3 <= kv)) {
                if (SWAG_LIKELY(tp - hp >= 3)) {             /* k1..k3 dominated: test the next four, then scan */
                    t2 = tp - 3;
                    lim = t2 - hp;
                    c2 = ((lim >= 1) & (keys[t2 - 1] <= kv)) + ((lim >= 2) & (keys[t2 - 2] <= kv))
                       + ((lim >= 3) & (keys[t2 - 3] <= kv)) + ((lim >= 4) & (keys[t2 - 4] <= kv));
                    t2 -= c2;
                    if (SWAG_UNLIKELY(c2 == 4)) {
                        while (t2 > hp && keys[t2 - 1] <= kv) t2--;
                    }
                } else {
                    t2 = tp;
                    while (t2 > hp && keys[t2 - 1] <= kv) t2--;
                }
                if (t2 == hp) { empties++; hexp = i + w; hb = bits; }   /* the new node is the head */
                k2 = keys[t2 - 1];                           /* guards below the head: SWAG_NVF_LOW */
                k3 = keys[t2 - 2];
            } else {                                         /* 0, 1 or 2 pops, branch-free */
                d1 = k1 <= kv;
                d2 = k2 <= kv;
                t2 = tp - d1 - d2;
                k4 = keys[tp - 4];                           /* a guard when only three nodes exist */
                n3 = swag_csel(d2, k4, swag_csel(d1, k3, k2));
                k2 = swag_csel(d2, k3, swag_csel(d1, k2, k1));
                k3 = n3;
            }
            k1 = kv;
            keys[t2] = kv;
            idx[t2] = i;
            tp = t2 + 1;
            out[i] = hb;
        }
    }
    *hp_out = hp;
    *tp_out = tp;
    /* popped nodes (n pushed, tp - hp left, evictions evicted) plus the stopped scans (n - empties) */
    return (n - (tp - hp) - evictions) + (n - empties);
}

#endif
