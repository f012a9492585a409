/* The in-order kernel of the compiled FiBA (paper 003): FiBA.slide for typed kinds and int64 / float64 times,
   and the short block moves every single-entry operation uses. See _fiba_inorder.pxi for what it covers and
   why it is plain C. */
#ifndef SWAGKIT_FIBA_INORDER_H
#define SWAGKIT_FIBA_INORDER_H

#include <Python.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include "swag_slot.h"
#include "fiba_node.h"

#if defined(__GNUC__)
#define SWAG_AI static inline __attribute__((always_inline))
#define SWAG_NOINLINE __attribute__((noinline))
#else
#define SWAG_AI static inline
#define SWAG_NOINLINE
#endif

/* memmove for the short, overlapping moves inside one node (at most 2*mu + 1 slots of 8 bytes, or pointers):
   a libc call costs more than the move itself. 8-byte words, forward when dst <= src, from the top down
   otherwise, so every word is loaded before a store can overwrite it. The empty asm keeps GCC from turning
   the loops back into memmove calls. Other sizes (4-byte pointers) and long moves go to memmove. */
SWAG_AI void swag_move(void* dst, const void* src, Py_ssize_t bytes) {
    char* d = (char*)dst;
    const char* s = (const char*)src;
    Py_ssize_t i;
    uint64_t w;
    if ((bytes & 7) != 0 || bytes > 256) {
        memmove(dst, src, (size_t)bytes);
        return;
    }
    if (d <= s) {
        for (i = 0; i < bytes; i += 8) {
            __asm__("" : "+r"(i));
            memcpy(&w, s + i, 8);
            memcpy(d + i, &w, 8);
        }
    } else {
        for (i = bytes; i > 0; ) {
            i -= 8;
            __asm__("" : "+r"(i));
            memcpy(&w, s + i, 8);
            memcpy(d + i, &w, 8);
        }
    }
}

/* The min arity and max arity (2 mu) of a kernel copy: MU when the copy is specialized for it, else the run's. */
#define SWAG_MU(st, MU) ((MU) ? (MU) : (st)->mu)
#define SWAG_MAXAR(st, MU) ((MU) ? 2 * (MU) : (st)->maxar)

#define SWAG_MOVE_SLOTS(d, s, n) swag_move((d), (s), (Py_ssize_t)(n) * (Py_ssize_t)sizeof(SwagSlot))
#define SWAG_MOVE_NODES(d, s, n) swag_move((d), (s), (Py_ssize_t)(n) * (Py_ssize_t)sizeof(SwagFNode*))

/* The kernel's moves all go to lower addresses (or between nodes): a forward copy is enough. The times and
   values of a node live in separate halves of its block, so one loop moves both. */
SWAG_AI void swag_fwd_tv(SwagSlot* dt, const SwagSlot* s_t, SwagSlot* dv, const SwagSlot* s_v, Py_ssize_t n) {
    /* two slots of each array per step (16-byte loads before 16-byte stores: still a correct forward
       copy when dst < src overlap), then the odd one */
    Py_ssize_t i;
    char w[16];
    for (i = 0; i + 2 <= n; i += 2) {
        __asm__("" : "+r"(i));
        memcpy(w, s_t + i, 16);
        memcpy(dt + i, w, 16);
        memcpy(w, s_v + i, 16);
        memcpy(dv + i, w, 16);
    }
    if (i < n) {
        dt[i] = s_t[i];
        dv[i] = s_v[i];
    }
}

SWAG_AI void swag_fwd_nodes(SwagFNode** d, SwagFNode* const* s, Py_ssize_t n) {
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        __asm__("" : "+r"(i));
        d[i] = s[i];
    }
}

/* ---------------------------------------------------------------------------------------------- the kernel */

/* The kinds, as _common.pxi and _fiba.pyx number them. */
enum { SWAG_FK_SUM_F = 1, SWAG_FK_MAX_F, SWAG_FK_MIN_F, SWAG_FK_SUM_I, SWAG_FK_MAX_I, SWAG_FK_MIN_I };
enum { SWAG_FT_I64 = 1, SWAG_FT_F64 = 2 };
/* What the kernel leaves to the driver. */
enum { SWAG_FIBA_DONE = 0, SWAG_FIBA_INSERT = 1, SWAG_FIBA_EVICT = 2, SWAG_FIBA_NOMEM = 3 };

/* The aggregator's fields the kernel reads and writes (copied in and out by the driver). */
typedef struct {
    SwagFNode* root;
    SwagFNode* lf;
    SwagFNode* rf;
    SwagFNode* free_head;
    int64_t cc;              /* combine_count */
    int64_t tc;              /* touched_count */
    Py_ssize_t nalloc;
    size_t node_bytes;
    SwagSlot one;
    int mu;
    int maxar;
} SwagFibaRun;

/* An accumulator for folds: the kind's scalar in a variable of its own type. A SwagSlot (a union of a
   double, an int64 and a pointer) held in a local is kept by GCC in a general register, so that every
   float (x) moved it to a vector register and back: two transfers of about three cycles each on the
   dependency chain of every fold. With one field per type (only the kind's is ever used; the compiler drops
   the other) a float fold stays in vector registers and reads its operands straight from memory. */
typedef struct { double f; int64_t i; } SwagAcc;

#define SWAG_ISF(kind) ((kind) <= SWAG_FK_MIN_F)

SWAG_AI SwagAcc swag_ald(int kind, const SwagSlot* p) {
    SwagAcc a;
    if (SWAG_ISF(kind)) { a.f = p->f; a.i = 0; } else { a.i = p->i; a.f = 0.0; }
    return a;
}

SWAG_AI void swag_ast(int kind, SwagSlot* p, SwagAcc a) {
    if (SWAG_ISF(kind)) p->f = a.f; else p->i = a.i;
}

/* a (x) b, exactly as _common.pxi's tcomb (and the library monoids' combine) */
SWAG_AI SwagAcc swag_aop(int kind, SwagAcc a, SwagAcc b) {
    switch (kind) {
    case SWAG_FK_SUM_F: a.f = a.f + b.f; break;
    case SWAG_FK_MAX_F: a.f = a.f >= b.f ? a.f : b.f; break;
    case SWAG_FK_MIN_F: a.f = a.f <= b.f ? a.f : b.f; break;
    case SWAG_FK_SUM_I: a.i = (int64_t)((uint64_t)a.i + (uint64_t)b.i); break;
    case SWAG_FK_MAX_I: a.i = a.i >= b.i ? a.i : b.i; break;
    default: a.i = a.i <= b.i ? a.i : b.i; break;
    }
    return a;
}

/* a (x) *p */
SWAG_AI SwagAcc swag_aopm(int kind, SwagAcc a, const SwagSlot* p) { return swag_aop(kind, a, swag_ald(kind, p)); }

SWAG_AI int swag_flt(int tk, SwagSlot a, SwagSlot b) {
    return tk == SWAG_FT_I64 ? a.i < b.i : a.f < b.f;
}

SWAG_AI SwagSlot* swag_ftimes_base(SwagFNode* x, int cap) {
    return (SwagSlot*)((char*)x + sizeof(SwagFNode) + (size_t)(cap + 1) * sizeof(SwagFNode*));
}

/* Move the entries of a left finger that evictions left past the start of its arrays back to the start. */
SWAG_AI void swag_fsettle(SwagFNode* x, int cap) {
    SwagSlot* base = swag_ftimes_base(x, cap);
    if (x->times != base) {
        swag_fwd_tv(base, x->times, base + cap, x->values, x->n);
        x->times = base;
        x->values = base + cap;
    }
}

/* Aggregates by position (the reference's _recompute with the node's kind known): each sets agg (and the
   count of a Pi-up node) and returns its number of (x) (k operands: k - 1). n >= 1.

   Entry counts of spine nodes and the root are not kept while the kernel runs: nothing in it reads them
   (it keeps the window's size itself), they cost a load and a store per recomputation on the hottest paths,
   and a spine node's count depends only on its own entries, its non-spine children's counts (which are
   kept) and its parent's. swag_fix_spine_counts sets them all, top down, before the kernel returns. A node
   that leaves a spine is recomputed as Pi-up, count included, from children that are all off the spines. */

/* Pi-up of a leaf: v0 (x) ... (x) v(n-1) */
SWAG_AI int swag_rc_leaf_up(SwagFNode* x, int kind) {
    const SwagSlot* vs = x->values;
    SwagAcc acc = swag_ald(kind, &vs[0]);
    int i, n = x->n;
    for (i = 1; i < n; i++) acc = swag_aopm(kind, acc, &vs[i]);
    swag_ast(kind, &x->agg, acc);
    x->count = n;
    return n - 1;
}

/* Pi-left of a left-spine leaf: v0 (x) ... (x) v(n-1) [(x) Pi-left(parent) unless the parent is the root],
   stored and returned (the kernel's query reads it from a register); *ops gets the number of (x) */
SWAG_AI SwagAcc swag_leaf_left_acc(SwagFNode* x, int kind, int* ops) {
    const SwagFNode* p = x->parent;
    const SwagSlot* vs = x->values;
    SwagAcc acc = swag_ald(kind, &vs[0]);
    int i, n = x->n;
    for (i = 1; i < n; i++) acc = swag_aopm(kind, acc, &vs[i]);
    if (p->parent != NULL) {
        acc = swag_aopm(kind, acc, &p->agg);
        *ops = n;
    } else {
        *ops = n - 1;
    }
    swag_ast(kind, &x->agg, acc);
    return acc;
}

SWAG_AI int swag_rc_leaf_left(SwagFNode* x, int kind) {
    int ops;
    swag_leaf_left_acc(x, kind, &ops);
    return ops;
}

/* Pi-right of a right-spine leaf: [Pi-right(parent) (x)] v0 (x) ... (x) v(n-1) */
SWAG_AI int swag_rc_leaf_right(SwagFNode* x, int kind) {
    const SwagFNode* p = x->parent;
    const SwagSlot* vs = x->values;
    SwagAcc acc;
    int i, n = x->n, k = 1;
    if (p->parent != NULL) {
        acc = swag_ald(kind, &p->agg);
        k = 0;
    } else {
        acc = swag_ald(kind, &vs[0]);
    }
    for (i = k; i < n; i++) acc = swag_aopm(kind, acc, &vs[i]);
    swag_ast(kind, &x->agg, acc);
    return n - k;
}

/* Pi-left of an internal left-spine node: v0 (x) Pi-up(c1) (x) v1 ... v(n-1) (x) Pi-up(cn) [(x) Pi-left(parent)] */
SWAG_AI int swag_rc_inner_left(SwagFNode* x, int kind) {
    const SwagFNode* p = x->parent;
    SwagFNode* const* ch = x->children;
    const SwagSlot* vs = x->values;
    SwagAcc acc = swag_ald(kind, &vs[0]);
    int i, n = x->n;
    for (i = 1; i < n; i++) acc = swag_aopm(kind, swag_aopm(kind, acc, &ch[i]->agg), &vs[i]);
    acc = swag_aopm(kind, acc, &ch[n]->agg);
    if (p->parent != NULL) {
        swag_ast(kind, &x->agg, swag_aopm(kind, acc, &p->agg));
        return 2 * n;
    }
    swag_ast(kind, &x->agg, acc);
    return 2 * n - 1;
}

/* Pi-right of an internal right-spine node: [Pi-right(parent) (x)] Pi-up(c0) (x) v0 (x) Pi-up(c1) ... v(n-1) */
SWAG_AI int swag_rc_inner_right(SwagFNode* x, int kind) {
    const SwagFNode* p = x->parent;
    SwagFNode* const* ch = x->children;
    const SwagSlot* vs = x->values;
    SwagAcc acc;
    int i, n = x->n, k = 2 * n;
    if (p->parent != NULL) {
        acc = swag_aopm(kind, swag_ald(kind, &p->agg), &ch[0]->agg);
        k += 1;
    } else {
        acc = swag_ald(kind, &ch[0]->agg);
    }
    acc = swag_aopm(kind, acc, &vs[0]);
    for (i = 1; i < n; i++) acc = swag_aopm(kind, swag_aopm(kind, acc, &ch[i]->agg), &vs[i]);
    swag_ast(kind, &x->agg, acc);
    return k - 1;
}

/* Any node (the reference's _recompute): [Pi-right(parent)] [Pi-up(c0)] v0 Pi-up(c1) v1 ... v(n-1)
   [Pi-up(cn)] [Pi-left(parent)] by its position; counts the visit and the (x). */
SWAG_AI void swag_rc_any(SwagFibaRun* st, SwagFNode* x, int kind) {
    const SwagFNode* p = x->parent;
    SwagFNode* const* ch = x->children;
    const SwagSlot* vs = x->values;
    int n = x->n, i, nops = 0, internal = !x->leaf, grand = p != NULL && p->parent != NULL;
    int inner = p == NULL || (x->left_spine && x->right_spine);
    int left = !inner && x->left_spine, right = !inner && !left && x->right_spine;
    int up = !inner && !left && !right;
    SwagAcc acc = swag_ald(kind, &st->one);
    int64_t cnt = 0;
    if (right && grand) { acc = swag_ald(kind, &p->agg); cnt = p->count; nops = 1; }
    if (internal && (right || up)) {
        acc = nops ? swag_aopm(kind, acc, &ch[0]->agg) : swag_ald(kind, &ch[0]->agg);
        cnt += ch[0]->count;
        nops++;
    }
    if (n > 0) {
        acc = nops ? swag_aopm(kind, acc, &vs[0]) : swag_ald(kind, &vs[0]);
        if (internal) {
            for (i = 1; i < n; i++) {
                acc = swag_aopm(kind, swag_aopm(kind, acc, &ch[i]->agg), &vs[i]);
                cnt += ch[i]->count;
            }
            nops += 2 * n - 1;
        } else {
            for (i = 1; i < n; i++) acc = swag_aopm(kind, acc, &vs[i]);
            nops += n;
        }
        cnt += n;
    }
    if (internal && (left || up)) {
        acc = nops ? swag_aopm(kind, acc, &ch[n]->agg) : swag_ald(kind, &ch[n]->agg);
        cnt += ch[n]->count;
        nops++;
    }
    if (left && grand) {
        acc = nops ? swag_aopm(kind, acc, &p->agg) : swag_ald(kind, &p->agg);
        cnt += p->count;
        nops++;
    }
    if (nops) {
        swag_ast(kind, &x->agg, acc);
    } else {
        x->agg = st->one;
    }
    x->count = cnt;
    st->tc += 1;
    st->cc += nops ? nops - 1 : 0;
}

/* The aggregate of an internal root (Pi-inner): v0 (x) Pi-up(c1) (x) v1 ... Pi-up(c(n-1)) (x) v(n-1). n >= 1. */
SWAG_AI int swag_rc_root_inner(SwagFNode* x, int kind) {
    SwagFNode* const* ch = x->children;
    const SwagSlot* vs = x->values;
    SwagAcc acc = swag_ald(kind, &vs[0]);
    int i, n = x->n;
    for (i = 1; i < n; i++) acc = swag_aopm(kind, swag_aopm(kind, acc, &ch[i]->agg), &vs[i]);
    swag_ast(kind, &x->agg, acc);
    return 2 * n - 2;
}

/* The entry counts of the root and of every spine node, top down (see above). Between operations the
   root, when internal, has at least two children, so no node is on both spines. */
static void swag_fix_spine_counts(SwagFNode* root) {
    SwagFNode *x, *p;
    SwagFNode** ch;
    int i, n = root->n;
    int64_t cnt = n;
    if (root->leaf) {
        root->count = n;
        return;
    }
    ch = root->children;
    for (i = 1; i < n; i++) cnt += ch[i]->count;
    root->count = cnt;
    for (x = ch[0]; ; x = x->children[0]) {        /* n + counts of children 1 ... n [+ the parent's] */
        p = x->parent;
        n = x->n;
        cnt = n + (p->parent != NULL ? p->count : 0);
        if (x->leaf) {
            x->count = cnt;
            break;
        }
        for (i = 1; i <= n; i++) cnt += x->children[i]->count;
        x->count = cnt;
    }
    for (x = ch[root->n]; ; x = x->children[x->n]) {   /* [the parent's +] n + counts of children 0 ... n-1 */
        p = x->parent;
        n = x->n;
        cnt = n + (p->parent != NULL ? p->count : 0);
        if (x->leaf) {
            x->count = cnt;
            break;
        }
        for (i = 0; i < n; i++) cnt += x->children[i]->count;
        x->count = cnt;
    }
}

/* Pi-up of an internal node: Pi-up(c0) (x) v0 (x) Pi-up(c1) ... v(n-1) (x) Pi-up(cn) */
SWAG_AI int swag_rc_inner_up(SwagFNode* x, int kind) {
    SwagFNode* const* ch = x->children;
    const SwagSlot* vs = x->values;
    SwagAcc acc = swag_ald(kind, &ch[0]->agg);
    int i, n = x->n;
    int64_t cnt = n + ch[0]->count;
    for (i = 0; i < n; i++) {
        acc = swag_aopm(kind, swag_aopm(kind, acc, &vs[i]), &ch[i + 1]->agg);
        cnt += ch[i + 1]->count;
    }
    swag_ast(kind, &x->agg, acc);
    x->count = cnt;
    return 2 * n;
}

/* swag_rc_any for a node whose position the caller knows (up, left spine only, right spine only): the
   position's fold directly; anything else (the root, an empty node) goes to swag_rc_any. */
SWAG_AI void swag_rc_up(SwagFibaRun* st, SwagFNode* x, int kind) {
    if (x->n > 0 && x->parent != NULL && !x->left_spine && !x->right_spine) {
        st->tc += 1;
        st->cc += x->leaf ? swag_rc_leaf_up(x, kind) : swag_rc_inner_up(x, kind);
    } else {
        swag_rc_any(st, x, kind);
    }
}

SWAG_AI void swag_rc_left(SwagFibaRun* st, SwagFNode* x, int kind) {
    if (x->n > 0 && x->parent != NULL && x->left_spine && !x->right_spine) {
        st->tc += 1;
        st->cc += x->leaf ? swag_rc_leaf_left(x, kind) : swag_rc_inner_left(x, kind);
    } else {
        swag_rc_any(st, x, kind);
    }
}

SWAG_AI void swag_rc_right(SwagFibaRun* st, SwagFNode* x, int kind) {
    if (x->n > 0 && x->parent != NULL && x->right_spine && !x->left_spine) {
        st->tc += 1;
        st->cc += x->leaf ? swag_rc_leaf_right(x, kind) : swag_rc_inner_right(x, kind);
    } else {
        swag_rc_any(st, x, kind);
    }
}

SWAG_AI int swag_has_up(const SwagFNode* x) {
    return !(x->parent == NULL || x->left_spine || x->right_spine);
}

/* repairAggs from a top that is the root or on a spine (its climb stops at once), then the pass down. */
SWAG_AI void swag_repair_top(SwagFibaRun* st, SwagFNode* top, int hl, int hr, int kind) {
    SwagFNode* x;
    if (top->parent != NULL) {
        hl = top->left_spine;
        hr = top->right_spine;
        /* a non-root top is on a spine: its fold directly (swag_rc_any's count is fixed on return anyway) */
        if (hl && !hr) swag_rc_left(st, top, kind);
        else if (hr && !hl) swag_rc_right(st, top, kind);
        else swag_rc_any(st, top, kind);
    } else {
        swag_rc_any(st, top, kind);
    }
    if (hl) for (x = top; !x->leaf; ) { x = x->children[0]; swag_rc_left(st, x, kind); }
    if (hr) for (x = top; !x->leaf; ) { x = x->children[x->n]; swag_rc_right(st, x, kind); }
}

SWAG_AI void swag_push_free(SwagFibaRun* st, SwagFNode* x) {
    x->next_free = st->free_head;
    st->free_head = x;
}

/* _fiba.pyx's node_new for a typed monoid and numeric times: recycle a dead node (pushing its children,
   releasing times it still owns from an object-time past) or malloc one; NULL when out of memory. */
static SwagFNode* swag_fnode_new(SwagFibaRun* st, int leaf) {
    SwagFNode* x = st->free_head;
    int i, cap = st->maxar;
    if (x != NULL) {
        st->free_head = x->next_free;
        if (x->n >= 0) {
            if (x->tobj) for (i = 0; i < x->n; i++) Py_XDECREF(x->times[i].o);
            if (!x->leaf) for (i = 0; i <= x->n; i++) if (x->children[i] != NULL) swag_push_free(st, x->children[i]);
        }
    } else {
        char* mem = (char*)malloc(st->node_bytes);
        if (mem == NULL) return NULL;
        x = (SwagFNode*)mem;
        x->children = (SwagFNode**)(mem + sizeof(SwagFNode));
        st->nalloc++;
    }
    x->times = swag_ftimes_base(x, cap);
    x->values = x->times + cap;
    x->parent = NULL;
    x->n = 0;
    x->leaf = (char)leaf;
    x->left_spine = 0;
    x->right_spine = 0;
    x->count = 0;
    x->tobj = 0;
    x->next_free = NULL;
    x->agg = st->one;
    st->tc += 1;
    return x;
}

/* evict() when the left finger (settled) is the root or a leaf on the left spine only: rebalanceAfterEvict
   (merge with or move from the sibling, child 1, up the left spine; a root left with one child goes) and
   repairAggs. */
SWAG_AI void swag_fevict_general_impl(SwagFibaRun* st, int kind, const int MU) {
    SwagFNode *x = st->lf, *p, *s, *c;
    int mu = SWAG_MU(st, MU), m = x->n, n, sn, pn, k, hl, hr;
    swag_fwd_tv(x->times, x->times + 1, x->values, x->values + 1, m - 1);
    x->n = m - 1;
    hl = x->left_spine;
    hr = x->right_spine;
    while (x->parent != NULL && x->n + 1 < mu) {
        p = x->parent;
        s = p->children[1];
        hl = hl || s->left_spine || x->left_spine;
        hr = hr || s->right_spine || x->right_spine;
        n = x->n;
        sn = s->n;
        pn = p->n;
        x->times[n] = p->times[0];
        x->values[n] = p->values[0];
        if (sn + 1 <= mu) {                /* merge(p, 0): x absorbs the separator and s (freed) */
            swag_fwd_tv(x->times + n + 1, s->times, x->values + n + 1, s->values, sn);
            if (!x->leaf) {
                swag_fwd_nodes(x->children + n + 1, s->children, sn + 1);
                for (k = n + 1; k < n + sn + 2; k++) x->children[k]->parent = x;
            }
            x->n = n + 1 + sn;
            swag_fwd_tv(p->times, p->times + 1, p->values, p->values + 1, pn - 1);
            swag_fwd_nodes(p->children + 1, p->children + 2, pn - 1);
            p->n = pn - 1;
            if (s->right_spine) x->right_spine = 1;
            if (st->rf == s) st->rf = x;
            s->n = -1;
            swag_push_free(st, s);
            if (swag_has_up(x)) swag_rc_up(st, x, kind);
            if (p->parent == NULL && p->n == 0) {   /* heightDecrease: x becomes the root */
                p->n = -1;
                swag_push_free(st, p);
                x->parent = NULL;
                x->left_spine = 0;
                x->right_spine = 0;
                st->root = x;
                hl = hr = 1;
                break;
            }
            x = p;
        } else {                           /* move(p, 0, into x) */
            p->times[0] = s->times[0];
            p->values[0] = s->values[0];
            swag_fwd_tv(s->times, s->times + 1, s->values, s->values + 1, sn - 1);
            if (!x->leaf) {
                c = s->children[0];
                swag_fwd_nodes(s->children, s->children + 1, sn);
                c->parent = x;
                x->children[n + 1] = c;
            }
            x->n = n + 1;
            s->n = sn - 1;
            if (swag_has_up(x)) swag_rc_up(st, x, kind);
            if (swag_has_up(s)) swag_rc_up(st, s, kind);
            x = p;
            break;
        }
    }
    swag_repair_top(st, x, hl, hr, kind);
}

/* evict() when the leaf merges with its sibling and the parent (non-root, left spine only) underflows in
   turn, the grandparent (the root, or on the left spine only) taking the rebalance without underflowing and
   without the root's last child taking part: the general rebalance's two steps and repair, written out
   (the parent's sibling's Pi-up, the grandparent, the parent, the leaf). Returns 0, changing nothing, in
   any other shape. The leaf may be unsettled; it is settled after. */
SWAG_AI int swag_fevict_level2(SwagFibaRun* st, SwagFNode* lf, SwagFNode* p, int kind, const int MU) {
    SwagFNode *g = p->parent, *s = p->children[1], *ps, *c;
    const int mu = SWAG_MU(st, MU), maxar = SWAG_MAXAR(st, MU);
    int m = lf->n, sn = s->n, pn = p->n, n, psn, gn, k;
    SwagSlot* lt0;
    if (!(g->parent == NULL || (g->left_spine && !g->right_spine))) return 0;
    ps = g->children[1];
    psn = ps->n;
    gn = g->n;
    if (ps->right_spine || (psn < mu && gn < (g->parent != NULL ? mu : 2))) return 0;
    /* step 1, merge(p, 0): the leaf drops entry 0 and absorbs the separator and its sibling (freed) */
    lt0 = swag_ftimes_base(lf, maxar);
    swag_fwd_tv(lt0, lf->times + 1, lt0 + maxar, lf->values + 1, m - 1);
    lf->times = lt0;
    lf->values = lt0 + maxar;
    lt0[m - 1] = p->times[0];
    lt0[maxar + m - 1] = p->values[0];
    swag_fwd_tv(lt0 + m, s->times, lt0 + maxar + m, s->values, sn);
    lf->n = m + sn;
    swag_fwd_tv(p->times, p->times + 1, p->values, p->values + 1, pn - 1);
    swag_fwd_nodes(p->children + 1, p->children + 2, pn - 1);
    n = pn - 1;
    p->n = n;
    s->n = -1;
    swag_push_free(st, s);
    /* step 2, at the grandparent: the parent takes the separator and ... */
    p->times[n] = g->times[0];
    p->values[n] = g->values[0];
    if (psn >= mu) {
        /* ... move(g, 0): the sibling's first child and, up, its first entry */
        g->times[0] = ps->times[0];
        g->values[0] = ps->values[0];
        c = ps->children[0];
        swag_fwd_tv(ps->times, ps->times + 1, ps->values, ps->values + 1, psn - 1);
        swag_fwd_nodes(ps->children, ps->children + 1, psn);
        ps->n = psn - 1;
        c->parent = p;
        p->children[n + 1] = c;
        p->n = n + 1;
        st->tc += 1;
        st->cc += swag_rc_inner_up(ps, kind);
    } else {
        /* ... merge(g, 0): the parent absorbs its sibling (freed); g drops entry 0 and child 1 */
        swag_fwd_tv(p->times + n + 1, ps->times, p->values + n + 1, ps->values, psn);
        swag_fwd_nodes(p->children + n + 1, ps->children, psn + 1);
        for (k = n + 1; k < n + psn + 2; k++) p->children[k]->parent = p;
        p->n = n + 1 + psn;
        swag_fwd_tv(g->times, g->times + 1, g->values, g->values + 1, gn - 1);
        swag_fwd_nodes(g->children + 1, g->children + 2, gn - 1);
        g->n = gn - 1;
        ps->n = -1;
        swag_push_free(st, ps);
    }
    /* the repair from the grandparent down the left spine */
    st->tc += 3;
    st->cc += g->parent != NULL ? swag_rc_inner_left(g, kind) : swag_rc_root_inner(g, kind);
    st->cc += swag_rc_inner_left(p, kind);
    st->cc += swag_rc_leaf_left(lf, kind);
    return 1;
}

/* insert(t, v) for t above every time when the right finger and its parent (non-root, right spine only) are
   full and the grandparent (the root, or on the right spine only) is not: the general code's two splits and
   repair, written out (the old leaf's and the old parent's Pi-up, the grandparent, the new parent's and the
   new leaf's Pi-right). 1: done; 0: another shape, nothing changed; -1: out of memory, nothing changed. */
SWAG_AI int swag_finsert_level2(SwagFibaRun* st, SwagSlot t, SwagSlot v, int kind, const int MU) {
    SwagFNode *x = st->rf, *p = x->parent, *g, *r, *r2;
    const int mu = SWAG_MU(st, MU), maxar = SWAG_MAXAR(st, MU);
    int n, k, j;
    if (p == NULL || p->parent == NULL || !p->right_spine || p->left_spine || p->n + 2 <= maxar) return 0;
    g = p->parent;
    if (g->n + 2 > maxar || !(g->parent == NULL || (g->right_spine && !g->left_spine))) return 0;
    r = swag_fnode_new(st, 1);
    if (r == NULL) return -1;
    r2 = swag_fnode_new(st, 1);
    if (r2 == NULL) {
        r->n = -1;
        swag_push_free(st, r);
        st->tc -= 1;
        return -1;
    }
    st->tc += 2;   /* the finger search */
    n = x->n;
    x->times[n] = t;
    x->values[n] = v;
    /* split the leaf (n + 1 entries): it keeps 0 ... mu-1, entry mu goes up as p's last, r takes the rest */
    k = n - mu;
    swag_fwd_tv(r->times, x->times + mu + 1, r->values, x->values + mu + 1, k);
    r->n = k;
    r->parent = p;
    r->right_spine = 1;
    j = p->n;
    p->times[j] = x->times[mu];
    p->values[j] = x->values[mu];
    p->children[j + 1] = r;
    x->n = mu;
    x->right_spine = 0;
    st->rf = r;
    st->tc += 1;
    st->cc += swag_rc_leaf_up(x, kind);
    /* split the parent (j + 1 entries): the same, with its children */
    r2->leaf = 0;
    k = j - mu;
    swag_fwd_tv(r2->times, p->times + mu + 1, r2->values, p->values + mu + 1, k);
    swag_fwd_nodes(r2->children, p->children + mu + 1, k + 1);
    for (n = 0; n <= k; n++) r2->children[n]->parent = r2;
    r2->n = k;
    r2->parent = g;
    r2->right_spine = 1;
    j = g->n;
    g->times[j] = p->times[mu];
    g->values[j] = p->values[mu];
    g->children[j + 1] = r2;
    g->n = j + 1;
    p->n = mu;
    p->right_spine = 0;
    st->tc += 4;
    st->cc += swag_rc_inner_up(p, kind);
    /* the repair from the grandparent down the right spine */
    st->cc += g->parent != NULL ? swag_rc_inner_right(g, kind) : swag_rc_root_inner(g, kind);
    st->cc += swag_rc_inner_right(r2, kind);
    st->cc += swag_rc_leaf_right(r, kind);
    return 1;
}

/* insert(t, v) for t above every time when the right finger is full: the finger search, the append, the
   splits up the right spine (the split node is its parent's last child; heightIncrease at the root), the
   repair. The new nodes are taken first, so running out of memory changes nothing (returns -1). */
SWAG_AI int swag_finsert_split_impl(SwagFibaRun* st, SwagSlot t, SwagSlot v, int kind, const int MU) {
    SwagFNode *x = st->rf, *p, *r, *fresh[80];
    int mu = SWAG_MU(st, MU), maxar = SWAG_MAXAR(st, MU), n, k, j, need = 0, used = 0, hl = 0, hr = 0;
    int64_t tc0;
    /* how many nodes: one per split (every full node from the leaf up), one more for a new root */
    for (r = x; r != NULL && r->n + 2 > maxar; r = r->parent) need++;
    if (r == NULL) need++;
    tc0 = st->tc;
    for (k = 0; k < need; k++) {
        fresh[k] = swag_fnode_new(st, 1);
        if (fresh[k] == NULL) {
            while (k > 0) { k--; fresh[k]->n = -1; swag_push_free(st, fresh[k]); }
            st->tc = tc0;
            return -1;
        }
    }
    st->tc += x == st->root ? 1 : 2;
    n = x->n;
    x->times[n] = t;
    x->values[n] = v;
    x->n = n + 1;
    while (x->n + 1 > maxar) {
        if (x->parent == NULL) {           /* heightIncrease */
            r = fresh[used++];
            r->leaf = 0;
            r->children[0] = x;
            x->parent = r;
            x->left_spine = 1;
            x->right_spine = 1;
            st->root = r;
            hl = hr = 1;
        }
        hl = hl || x->left_spine;
        hr = hr || x->right_spine;
        /* split(x): x keeps entries 0 ... mu-1, entry mu goes up as its parent's last, r takes the rest */
        p = x->parent;
        r = fresh[used++];
        r->leaf = x->leaf;
        n = x->n;
        k = n - mu - 1;
        swag_fwd_tv(r->times, x->times + mu + 1, r->values, x->values + mu + 1, k);
        if (!x->leaf) {
            swag_fwd_nodes(r->children, x->children + mu + 1, k + 1);
            for (j = 0; j <= k; j++) r->children[j]->parent = r;
        }
        r->n = k;
        r->parent = p;
        j = p->n;
        p->times[j] = x->times[mu];
        p->values[j] = x->values[mu];
        p->children[j + 1] = r;
        p->n = j + 1;
        x->n = mu;
        if (x->right_spine) {
            x->right_spine = 0;
            r->right_spine = 1;
        }
        if (st->rf == x) st->rf = r;
        if (swag_has_up(x)) swag_rc_up(st, x, kind);
        if (swag_has_up(r)) swag_rc_up(st, r, kind);
        x = p;
    }
    swag_repair_top(st, x, hl, hr, kind);
    return 0;
}

/* The rare cases out of line, one copy per monoid kind and specialized min arity (the kind and, for the
   specialized arities, mu a constant inside; MU = 0: mu read from the run): inlined, they made the
   kernel's loop keep its state in memory. */
#define SWAG_FIBA_RARE(k, M, sfx) \
    static SWAG_NOINLINE void swag_fevict_general_##k##sfx(SwagFibaRun* st) { swag_fevict_general_impl(st, k, M); } \
    static SWAG_NOINLINE int swag_finsert_split_##k##sfx(SwagFibaRun* st, SwagSlot t, SwagSlot v) { \
        return swag_finsert_split_impl(st, t, v, k, M); \
    }
SWAG_FIBA_RARE(1, 2, _m2)
SWAG_FIBA_RARE(2, 2, _m2)
SWAG_FIBA_RARE(3, 2, _m2)
SWAG_FIBA_RARE(4, 2, _m2)
SWAG_FIBA_RARE(5, 2, _m2)
SWAG_FIBA_RARE(6, 2, _m2)
SWAG_FIBA_RARE(1, 4, _m4)
SWAG_FIBA_RARE(2, 4, _m4)
SWAG_FIBA_RARE(3, 4, _m4)
SWAG_FIBA_RARE(4, 4, _m4)
SWAG_FIBA_RARE(5, 4, _m4)
SWAG_FIBA_RARE(6, 4, _m4)
SWAG_FIBA_RARE(1, 8, _m8)
SWAG_FIBA_RARE(2, 8, _m8)
SWAG_FIBA_RARE(3, 8, _m8)
SWAG_FIBA_RARE(4, 8, _m8)
SWAG_FIBA_RARE(5, 8, _m8)
SWAG_FIBA_RARE(6, 8, _m8)
SWAG_FIBA_RARE(1, 0, )
SWAG_FIBA_RARE(2, 0, )
SWAG_FIBA_RARE(3, 0, )
SWAG_FIBA_RARE(4, 0, )
SWAG_FIBA_RARE(5, 0, )
SWAG_FIBA_RARE(6, 0, )

SWAG_AI void swag_fevict_general(SwagFibaRun* st, int kind, const int MU) {
    if (MU == 2) {
        switch (kind) {
        case 1: swag_fevict_general_1_m2(st); return;
        case 2: swag_fevict_general_2_m2(st); return;
        case 3: swag_fevict_general_3_m2(st); return;
        case 4: swag_fevict_general_4_m2(st); return;
        case 5: swag_fevict_general_5_m2(st); return;
        default: swag_fevict_general_6_m2(st); return;
        }
    }
    if (MU == 4) {
        switch (kind) {
        case 1: swag_fevict_general_1_m4(st); return;
        case 2: swag_fevict_general_2_m4(st); return;
        case 3: swag_fevict_general_3_m4(st); return;
        case 4: swag_fevict_general_4_m4(st); return;
        case 5: swag_fevict_general_5_m4(st); return;
        default: swag_fevict_general_6_m4(st); return;
        }
    }
    if (MU == 8) {
        switch (kind) {
        case 1: swag_fevict_general_1_m8(st); return;
        case 2: swag_fevict_general_2_m8(st); return;
        case 3: swag_fevict_general_3_m8(st); return;
        case 4: swag_fevict_general_4_m8(st); return;
        case 5: swag_fevict_general_5_m8(st); return;
        default: swag_fevict_general_6_m8(st); return;
        }
    }
    switch (kind) {
    case 1: swag_fevict_general_1(st); return;
    case 2: swag_fevict_general_2(st); return;
    case 3: swag_fevict_general_3(st); return;
    case 4: swag_fevict_general_4(st); return;
    case 5: swag_fevict_general_5(st); return;
    default: swag_fevict_general_6(st); return;
    }
}

SWAG_AI int swag_finsert_split(SwagFibaRun* st, SwagSlot t, SwagSlot v, int kind, const int MU) {
    if (MU == 2) {
        switch (kind) {
        case 1: return swag_finsert_split_1_m2(st, t, v);
        case 2: return swag_finsert_split_2_m2(st, t, v);
        case 3: return swag_finsert_split_3_m2(st, t, v);
        case 4: return swag_finsert_split_4_m2(st, t, v);
        case 5: return swag_finsert_split_5_m2(st, t, v);
        default: return swag_finsert_split_6_m2(st, t, v);
        }
    }
    if (MU == 4) {
        switch (kind) {
        case 1: return swag_finsert_split_1_m4(st, t, v);
        case 2: return swag_finsert_split_2_m4(st, t, v);
        case 3: return swag_finsert_split_3_m4(st, t, v);
        case 4: return swag_finsert_split_4_m4(st, t, v);
        case 5: return swag_finsert_split_5_m4(st, t, v);
        default: return swag_finsert_split_6_m4(st, t, v);
        }
    }
    if (MU == 8) {
        switch (kind) {
        case 1: return swag_finsert_split_1_m8(st, t, v);
        case 2: return swag_finsert_split_2_m8(st, t, v);
        case 3: return swag_finsert_split_3_m8(st, t, v);
        case 4: return swag_finsert_split_4_m8(st, t, v);
        case 5: return swag_finsert_split_5_m8(st, t, v);
        default: return swag_finsert_split_6_m8(st, t, v);
        }
    }
    switch (kind) {
    case 1: return swag_finsert_split_1(st, t, v);
    case 2: return swag_finsert_split_2(st, t, v);
    case 3: return swag_finsert_split_3(st, t, v);
    case 4: return swag_finsert_split_4(st, t, v);
    case 5: return swag_finsert_split_5(st, t, v);
    default: return swag_finsert_split_6(st, t, v);
    }
}

/* The kernel's uncommon steps, out of line so that the common step (evict without underflow, append without
   overflow, query) is a short loop whose state GCC keeps in registers: with these paths inlined, the loop's
   pointers, counter and window lived on the stack. Each works on st (the fingers, root and counts are
   current there) and returns 0 when done, 1 when the step needs the driver's general code, -1 when out of
   memory (nothing changed). */

/* One eviction from a left finger that is not simply "on the left spine with an entry to spare": underflow
   with a move or merge, the two-level cascade, or the general rebalance. The leaf may be unsettled. */
SWAG_AI int swag_fevict_slow_impl(SwagFibaRun* st, int kind, const int MU) {
    SwagFNode *lf = st->lf, *p = lf->parent, *s;
    const int mu = SWAG_MU(st, MU), maxar = SWAG_MAXAR(st, MU);
    int m = lf->n, sn, pn;
    SwagSlot *ts, *vs, *lt0;
    if (p != NULL && lf->left_spine && !lf->right_spine) {
        ts = lf->times;
        vs = lf->values;
        if (m >= mu) {
            lf->times = ts + 1;
            lf->values = vs + 1;
            lf->n = m - 1;
            st->cc += swag_rc_leaf_left(lf, kind);
            st->tc += 1;
            return 0;
        }
        if (p->parent == NULL || (p->left_spine && !p->right_spine)) {
            s = p->children[1];
            sn = s->n;
            pn = p->n;
            if (sn >= mu || pn >= (p->parent != NULL ? mu : 2)) {
                /* underflow under a parent that will not underflow (a left-spine node keeps mu - 1
                   entries, the root one; the root's last one goes in heightDecrease, left to the general
                   code) */
                lt0 = swag_ftimes_base(lf, maxar);
                if (sn >= mu) {
                    /* move: the leaf drops entry 0 and appends the separator; the sibling's first entry
                       goes up. Neither is shifted while it fits: the leaf's arrays advance (its last
                       entry stays inside the block when (ts - lt0) + m < maxar, as a steady slide keeps
                       it) and so do the sibling's, unless it is the right finger (appends need its whole
                       block). The sibling is child 1 of the leaf's parent until the leaf absorbs it
                       (copying from its arrays wherever they start) or the kernel returns (settling
                       it). Then recompute the sibling's Pi-up, and the repair: the parent, this leaf (a
                       sibling that is the root's last child is the right finger: the repair's pass down
                       the right spine recomputes its Pi-right) */
                    if ((ts - lt0) + m < maxar) {
                        lf->times = ts + 1;
                        lf->values = vs + 1;
                        ts[m] = p->times[0];
                        vs[m] = p->values[0];
                    } else {
                        swag_fwd_tv(lt0, ts + 1, lt0 + maxar, vs + 1, m - 1);
                        lf->times = lt0;
                        lf->values = lt0 + maxar;
                        lt0[m - 1] = p->times[0];
                        lt0[maxar + m - 1] = p->values[0];
                    }
                    p->times[0] = s->times[0];
                    p->values[0] = s->values[0];
                    if (s->right_spine) {
                        swag_fwd_tv(s->times, s->times + 1, s->values, s->values + 1, sn - 1);
                    } else {
                        s->times += 1;
                        s->values += 1;
                    }
                    s->n = sn - 1;
                    st->cc += s->right_spine ? swag_rc_leaf_right(s, kind) : swag_rc_leaf_up(s, kind);
                    st->tc += 3;
                } else {
                    /* merge: this leaf drops entry 0 while moving the rest to the start of its arrays,
                       appends the separator and absorbs the sibling (freed); the parent drops entry 0 and
                       child 1; the repair: the parent, this leaf */
                    swag_fwd_tv(lt0, ts + 1, lt0 + maxar, vs + 1, m - 1);
                    lf->times = lt0;
                    lf->values = lt0 + maxar;
                    lt0[m - 1] = p->times[0];
                    lt0[maxar + m - 1] = p->values[0];
                    swag_fwd_tv(lt0 + m, s->times, lt0 + maxar + m, s->values, sn);
                    lf->n = m + sn;
                    swag_fwd_tv(p->times, p->times + 1, p->values, p->values + 1, pn - 1);
                    swag_fwd_nodes(p->children + 1, p->children + 2, pn - 1);
                    p->n = pn - 1;
                    s->n = -1;
                    s->next_free = st->free_head;
                    st->free_head = s;
                    st->tc += 2;
                }
                st->cc += p->parent != NULL ? swag_rc_inner_left(p, kind) : swag_rc_root_inner(p, kind);
                st->cc += swag_rc_leaf_left(lf, kind);
                return 0;
            }
            if (p->parent != NULL && swag_fevict_level2(st, lf, p, kind, MU)) return 0;
        }
    }
    swag_fsettle(lf, maxar);
    if (p != NULL && !(lf->left_spine && !lf->right_spine)) return 1;
    swag_fevict_general(st, kind, MU);   /* the root leaf, or a rebalance that climbs */
    return 0;
}

/* One in-order append (time above every other, the right finger not empty) that overflows the right
   finger: the split under a parent that does not overflow, the two-level split, or the general cascade. */
SWAG_AI int swag_finsert_slow_impl(SwagFibaRun* st, SwagSlot t, SwagSlot v, int kind, const int MU) {
    SwagFNode *rf = st->rf, *p = rf->parent, *s;
    const int mu = SWAG_MU(st, MU), maxar = SWAG_MAXAR(st, MU);
    int m = rf->n, k, pn;
    if (p != NULL && p->n + 2 <= maxar && (p->parent == NULL || (p->right_spine && !p->left_spine))) {
        /* the right finger splits under a non-root right-spine parent that does not overflow: entries
           0 ... mu-1 stay (Pi-up now), entry mu goes up as the parent's last, mu+1 ... and the new one go
           to a new right finger; recompute the old leaf, then the repair: the parent, the new leaf */
        s = swag_fnode_new(st, 1);
        if (s == NULL) return -1;
        k = m - mu - 1;
        swag_fwd_tv(s->times, rf->times + mu + 1, s->values, rf->values + mu + 1, k);
        s->times[k] = t;
        s->values[k] = v;
        s->n = k + 1;
        s->parent = p;
        s->right_spine = 1;
        pn = p->n;
        p->times[pn] = rf->times[mu];
        p->values[pn] = rf->values[mu];
        p->children[pn + 1] = s;
        p->n = pn + 1;
        rf->n = mu;
        rf->right_spine = 0;
        st->cc += swag_rc_leaf_up(rf, kind);
        st->cc += p->parent != NULL ? swag_rc_inner_right(p, kind) : swag_rc_root_inner(p, kind);
        st->cc += swag_rc_leaf_right(s, kind);
        st->tc += 5;   /* the search's 2, the old leaf, the parent, the new leaf */
        st->rf = s;
        return 0;
    }
    k = swag_finsert_level2(st, t, v, kind, MU);
    if (k == 0) {
        swag_fsettle(st->lf, maxar);
        k = swag_finsert_split(st, t, v, kind, MU);
    }
    return k < 0 ? -1 : 0;
}

#define SWAG_FIBA_SLOW(kind, M, sfx) \
    static SWAG_NOINLINE int swag_fevict_slow_##kind##sfx(SwagFibaRun* st) { return swag_fevict_slow_impl(st, kind, M); } \
    static SWAG_NOINLINE int swag_finsert_slow_##kind##sfx(SwagFibaRun* st, SwagSlot t, SwagSlot v) { \
        return swag_finsert_slow_impl(st, t, v, kind, M); \
    }
SWAG_FIBA_SLOW(1, 2, _m2)
SWAG_FIBA_SLOW(2, 2, _m2)
SWAG_FIBA_SLOW(3, 2, _m2)
SWAG_FIBA_SLOW(4, 2, _m2)
SWAG_FIBA_SLOW(5, 2, _m2)
SWAG_FIBA_SLOW(6, 2, _m2)
SWAG_FIBA_SLOW(1, 4, _m4)
SWAG_FIBA_SLOW(2, 4, _m4)
SWAG_FIBA_SLOW(3, 4, _m4)
SWAG_FIBA_SLOW(4, 4, _m4)
SWAG_FIBA_SLOW(5, 4, _m4)
SWAG_FIBA_SLOW(6, 4, _m4)
SWAG_FIBA_SLOW(1, 8, _m8)
SWAG_FIBA_SLOW(2, 8, _m8)
SWAG_FIBA_SLOW(3, 8, _m8)
SWAG_FIBA_SLOW(4, 8, _m8)
SWAG_FIBA_SLOW(5, 8, _m8)
SWAG_FIBA_SLOW(6, 8, _m8)
SWAG_FIBA_SLOW(1, 0, )
SWAG_FIBA_SLOW(2, 0, )
SWAG_FIBA_SLOW(3, 0, )
SWAG_FIBA_SLOW(4, 0, )
SWAG_FIBA_SLOW(5, 0, )
SWAG_FIBA_SLOW(6, 0, )

SWAG_AI int swag_fevict_slow(SwagFibaRun* st, int kind, const int MU) {
    if (MU == 2) {
        switch (kind) {
        case 1: return swag_fevict_slow_1_m2(st);
        case 2: return swag_fevict_slow_2_m2(st);
        case 3: return swag_fevict_slow_3_m2(st);
        case 4: return swag_fevict_slow_4_m2(st);
        case 5: return swag_fevict_slow_5_m2(st);
        default: return swag_fevict_slow_6_m2(st);
        }
    }
    if (MU == 4) {
        switch (kind) {
        case 1: return swag_fevict_slow_1_m4(st);
        case 2: return swag_fevict_slow_2_m4(st);
        case 3: return swag_fevict_slow_3_m4(st);
        case 4: return swag_fevict_slow_4_m4(st);
        case 5: return swag_fevict_slow_5_m4(st);
        default: return swag_fevict_slow_6_m4(st);
        }
    }
    if (MU == 8) {
        switch (kind) {
        case 1: return swag_fevict_slow_1_m8(st);
        case 2: return swag_fevict_slow_2_m8(st);
        case 3: return swag_fevict_slow_3_m8(st);
        case 4: return swag_fevict_slow_4_m8(st);
        case 5: return swag_fevict_slow_5_m8(st);
        default: return swag_fevict_slow_6_m8(st);
        }
    }
    switch (kind) {
    case 1: return swag_fevict_slow_1(st);
    case 2: return swag_fevict_slow_2(st);
    case 3: return swag_fevict_slow_3(st);
    case 4: return swag_fevict_slow_4(st);
    case 5: return swag_fevict_slow_5(st);
    default: return swag_fevict_slow_6(st);
    }
}

SWAG_AI int swag_finsert_slow(SwagFibaRun* st, SwagSlot t, SwagSlot v, int kind, const int MU) {
    if (MU == 2) {
        switch (kind) {
        case 1: return swag_finsert_slow_1_m2(st, t, v);
        case 2: return swag_finsert_slow_2_m2(st, t, v);
        case 3: return swag_finsert_slow_3_m2(st, t, v);
        case 4: return swag_finsert_slow_4_m2(st, t, v);
        case 5: return swag_finsert_slow_5_m2(st, t, v);
        default: return swag_finsert_slow_6_m2(st, t, v);
        }
    }
    if (MU == 4) {
        switch (kind) {
        case 1: return swag_finsert_slow_1_m4(st, t, v);
        case 2: return swag_finsert_slow_2_m4(st, t, v);
        case 3: return swag_finsert_slow_3_m4(st, t, v);
        case 4: return swag_finsert_slow_4_m4(st, t, v);
        case 5: return swag_finsert_slow_5_m4(st, t, v);
        default: return swag_finsert_slow_6_m4(st, t, v);
        }
    }
    if (MU == 8) {
        switch (kind) {
        case 1: return swag_finsert_slow_1_m8(st, t, v);
        case 2: return swag_finsert_slow_2_m8(st, t, v);
        case 3: return swag_finsert_slow_3_m8(st, t, v);
        case 4: return swag_finsert_slow_4_m8(st, t, v);
        case 5: return swag_finsert_slow_5_m8(st, t, v);
        default: return swag_finsert_slow_6_m8(st, t, v);
        }
    }
    switch (kind) {
    case 1: return swag_finsert_slow_1(st, t, v);
    case 2: return swag_finsert_slow_2(st, t, v);
    case 3: return swag_finsert_slow_3(st, t, v);
    case 4: return swag_finsert_slow_4(st, t, v);
    case 5: return swag_finsert_slow_5(st, t, v);
    default: return swag_finsert_slow_6(st, t, v);
    }
}

/* For items i0 ... n-1: evict while the size (*size_io) is >= window, insert, record the query. Returns the
   item it stopped at and sets *status: SWAG_FIBA_DONE (all done), SWAG_FIBA_INSERT (item i's evictions are
   done, its insert needs the general code), SWAG_FIBA_EVICT (the next eviction of item i needs the general
   code), SWAG_FIBA_NOMEM (item i's insert ran out of memory; nothing changed). The left finger is settled
   on return. The loop itself does only the common step; the fingers and root live in locals and go back
   to st around each out-of-line step. */
SWAG_AI Py_ssize_t swag_fiba_kernel(SwagFibaRun* st, const SwagSlot* tin, const SwagSlot* vin, SwagSlot* out,
                                    Py_ssize_t i, Py_ssize_t n, Py_ssize_t window, Py_ssize_t* size_io,
                                    int* status, const int kind, const int tk, const int MU) {
    SwagFNode *root = st->root, *lf = st->lf, *rf = st->rf;
    const int mu = SWAG_MU(st, MU), maxar = SWAG_MAXAR(st, MU);
    int64_t cc = 0, tc = 0;
    Py_ssize_t size = *size_io;
    /* the three aggregates the query reads, kept in registers as well: reading back what the previous
       step stored would put a store-to-load forwarding on every query's path and on the right finger's
       running aggregate (reloaded after every out-of-line step, which may change any of them) */
    SwagAcc lagg = swag_ald(kind, &lf->agg), ragg = swag_ald(kind, &rf->agg), oagg = swag_ald(kind, &root->agg);
    SwagSlot t, v;
    int m, r;
    *status = SWAG_FIBA_DONE;
    for (; i < n; i++) {
        t = tin[i];
        v = vin[i];
        while (size >= window) {
            m = lf->n;
            if (m >= mu && lf->parent != NULL && lf->left_spine && !lf->right_spine) {
                /* no underflow: drop entry 0 by advancing the arrays; repair recomputes this leaf only */
                int ops;
                lf->times += 1;
                lf->values += 1;
                lf->n = m - 1;
                lagg = swag_leaf_left_acc(lf, kind, &ops);
                cc += ops;
                tc += 1;
            } else {
                r = swag_fevict_slow(st, kind, MU);
                root = st->root;
                lf = st->lf;
                rf = st->rf;
                lagg = swag_ald(kind, &lf->agg);
                ragg = swag_ald(kind, &rf->agg);
                oagg = swag_ald(kind, &root->agg);
                if (r) {
                    *status = SWAG_FIBA_EVICT;
                    goto done;
                }
            }
            size--;
        }
        m = rf->n;
        if (m > 0 && swag_flt(tk, rf->times[m - 1], t)) {
            if (m + 2 <= maxar) {
                /* in-order append without overflow (the reference's pushBackEntry) */
                rf->times[m] = t;
                rf->values[m] = v;
                rf->n = m + 1;
                ragg = swag_aopm(kind, ragg, &vin[i]);
                swag_ast(kind, &rf->agg, ragg);
                cc += 1;
                tc += rf == root ? 1 : 2;
            } else {
                r = swag_finsert_slow(st, t, v, kind, MU);
                root = st->root;
                lf = st->lf;
                rf = st->rf;
                lagg = swag_ald(kind, &lf->agg);
                ragg = swag_ald(kind, &rf->agg);
                oagg = swag_ald(kind, &root->agg);
                if (r) {
                    *status = SWAG_FIBA_NOMEM;
                    goto done;
                }
            }
            size++;
        } else {
            *status = SWAG_FIBA_INSERT;   /* out of order, a repeated time, or an empty tree */
            goto done;
        }
        if (root->leaf) {
            swag_ast(kind, &out[i], ragg);   /* the root is both fingers */
        } else {
            swag_ast(kind, &out[i], swag_aop(kind, swag_aop(kind, lagg, oagg), ragg));
            cc += 2;
        }
    }
done:
    swag_fix_spine_counts(root);
    swag_fsettle(lf, maxar);
    /* a sibling whose arrays a move advanced (see swag_fevict_slow_impl) */
    if (lf->parent != NULL && lf->parent->children[1]->leaf) swag_fsettle(lf->parent->children[1], maxar);
    st->cc += cc;
    st->tc += tc;
    *size_io = size;
    return i;
}

/* One copy of the kernel per (monoid kind, time kind), each with both kinds as constants, and within it one copy
   per specialized min arity (mu and 2 mu constants: the block offsets, the underflow and overflow tests and the
   node-sized moves fold) besides the general one. */
#define SWAG_FIBA_KERNEL(name, kind, tk) \
    static SWAG_NOINLINE Py_ssize_t name(SwagFibaRun* st, const SwagSlot* tin, const SwagSlot* vin, \
                                         SwagSlot* out, Py_ssize_t i, Py_ssize_t n, Py_ssize_t window, \
                                         Py_ssize_t* size_io, int* status) { \
        if (st->mu == 2) return swag_fiba_kernel(st, tin, vin, out, i, n, window, size_io, status, kind, tk, 2); \
        if (st->mu == 4) return swag_fiba_kernel(st, tin, vin, out, i, n, window, size_io, status, kind, tk, 4); \
        if (st->mu == 8) return swag_fiba_kernel(st, tin, vin, out, i, n, window, size_io, status, kind, tk, 8); \
        return swag_fiba_kernel(st, tin, vin, out, i, n, window, size_io, status, kind, tk, 0); \
    }
SWAG_FIBA_KERNEL(swag_fiba_k1f, SWAG_FK_SUM_F, SWAG_FT_F64)
SWAG_FIBA_KERNEL(swag_fiba_k2f, SWAG_FK_MAX_F, SWAG_FT_F64)
SWAG_FIBA_KERNEL(swag_fiba_k3f, SWAG_FK_MIN_F, SWAG_FT_F64)
SWAG_FIBA_KERNEL(swag_fiba_k4f, SWAG_FK_SUM_I, SWAG_FT_F64)
SWAG_FIBA_KERNEL(swag_fiba_k5f, SWAG_FK_MAX_I, SWAG_FT_F64)
SWAG_FIBA_KERNEL(swag_fiba_k6f, SWAG_FK_MIN_I, SWAG_FT_F64)
SWAG_FIBA_KERNEL(swag_fiba_k1i, SWAG_FK_SUM_F, SWAG_FT_I64)
SWAG_FIBA_KERNEL(swag_fiba_k2i, SWAG_FK_MAX_F, SWAG_FT_I64)
SWAG_FIBA_KERNEL(swag_fiba_k3i, SWAG_FK_MIN_F, SWAG_FT_I64)
SWAG_FIBA_KERNEL(swag_fiba_k4i, SWAG_FK_SUM_I, SWAG_FT_I64)
SWAG_FIBA_KERNEL(swag_fiba_k5i, SWAG_FK_MAX_I, SWAG_FT_I64)
SWAG_FIBA_KERNEL(swag_fiba_k6i, SWAG_FK_MIN_I, SWAG_FT_I64)

static Py_ssize_t swag_fiba_slide(SwagFibaRun* st, int kind, int tk, const SwagSlot* tin, const SwagSlot* vin,
                                  SwagSlot* out, Py_ssize_t i, Py_ssize_t n, Py_ssize_t window,
                                  Py_ssize_t* size_io, int* status) {
    if (tk == SWAG_FT_F64) {
        switch (kind) {
        case SWAG_FK_SUM_F: return swag_fiba_k1f(st, tin, vin, out, i, n, window, size_io, status);
        case SWAG_FK_MAX_F: return swag_fiba_k2f(st, tin, vin, out, i, n, window, size_io, status);
        case SWAG_FK_MIN_F: return swag_fiba_k3f(st, tin, vin, out, i, n, window, size_io, status);
        case SWAG_FK_SUM_I: return swag_fiba_k4f(st, tin, vin, out, i, n, window, size_io, status);
        case SWAG_FK_MAX_I: return swag_fiba_k5f(st, tin, vin, out, i, n, window, size_io, status);
        default: return swag_fiba_k6f(st, tin, vin, out, i, n, window, size_io, status);
        }
    }
    switch (kind) {
    case SWAG_FK_SUM_F: return swag_fiba_k1i(st, tin, vin, out, i, n, window, size_io, status);
    case SWAG_FK_MAX_F: return swag_fiba_k2i(st, tin, vin, out, i, n, window, size_io, status);
    case SWAG_FK_MIN_F: return swag_fiba_k3i(st, tin, vin, out, i, n, window, size_io, status);
    case SWAG_FK_SUM_I: return swag_fiba_k4i(st, tin, vin, out, i, n, window, size_io, status);
    case SWAG_FK_MAX_I: return swag_fiba_k5i(st, tin, vin, out, i, n, window, size_io, status);
    default: return swag_fiba_k6i(st, tin, vin, out, i, n, window, size_io, status);
    }
}

#endif /* SWAGKIT_FIBA_INORDER_H */
