/* Integer helpers of the compiled q-digest (paper 004 §3.1 box): exact compression thresholds and the node
   ranges of heap ids. */
#ifndef SWAGKIT_QDIGEST_BITS_H
#define SWAGKIT_QDIGEST_BITS_H

typedef unsigned __int128 qd_u128;
/* ceil(m * n / (b * 2^e)) for m < 2^53, n < 2^62, 1 <= b <= 62 */
static inline long long qd_lim(long long m, int e, long long n, long long b) {
    if (n <= 0) return 0;
    if (e >= 116) return 1;
    qd_u128 num = (qd_u128)m * (qd_u128)n;
    qd_u128 den = ((qd_u128)b) << e;
    return (long long)((num + den - 1) / den);
}
static inline int qd_depth(long long node) { return 63 - __builtin_clzll((unsigned long long)node); }
static inline long long qd_hi(long long node, int bits) {
    int d = 63 - __builtin_clzll((unsigned long long)node);
    int span = bits - d;
    return ((node - (1LL << d) + 1) << span) - 1;
}
static inline long long qd_lo(long long node, int bits) {
    int d = 63 - __builtin_clzll((unsigned long long)node);
    return (node - (1LL << d)) << (bits - d);
}

#endif /* SWAGKIT_QDIGEST_BITS_H */
