/* daba_lite.c -- DABA Lite (paper 000 §6) speaking swagkit's JSON Lines protocol (docs/protocol.md), kind "fifo",
 * over every conformance monoid. A worked example of a driver in another language, and the subject of
 * tests/test_process.py: compiled as is it must pass swagkit's FIFO machine; compiled with one of the planted-bug
 * flags it must be caught.
 *
 *   cc -O2 -Wall -Werror -o daba_lite daba_lite.c            # correct
 *   cc -O2 -Wall -Werror -DBUG_FLIP_ORDER -o bad daba_lite.c  # a planted bug
 *
 * Planted bugs (compile-time flags):
 *   BUG_FLIP_ORDER   shrink folds the flipped sublist as aggRA ⊗ *L instead of *L ⊗ aggRA (non-commutative only)
 *   BUG_SIZE         evict does not decrement the size counter
 *   BUG_EMPTY_QUERY  query on an empty window answers the representation's zero, not the identity
 *   BUG_CRASH_AT_64  the process exits (status 1) when the window reaches 64 values
 *   BUG_HANG         evict on a window of exactly 7 values never answers
 *   BUG_GARBAGE      query on a window of exactly 10 values writes a line that is not JSON
 * And NO_BULK: hello does not offer insert_many / evict_many / shift (and the program refuses them as "unsupported").
 *
 * Pointers are absolute positions into a growable ring buffer (slot p is buf[p & (cap - 1)]); the live values are
 * the positions [F, E). The fixup follows swagkit.reference.daba_lite line by line (000 Fig. 8).
 */

#define _POSIX_C_SOURCE 200809L /* getline */
#include <unistd.h>

#include "jsonl.h"

typedef enum { M_STR, M_MAX, M_SUM, M_AFF, M_F64, M_COUNT } mkind;
static const char *MONOIDS[M_COUNT] = {"string_concat", "max_i64", "sum_i64", "affine_int", "sum_f64"};

/* One value of any conformance monoid: max_i64/sum_i64 use a, affine_int (a, b), sum_f64 f, string_concat s. */
typedef struct {
    int64_t a, b;
    double f;
    char *s;
    size_t n;
} val;

static val v_identity(mkind m) {
    val v = {0, 0, 0.0, NULL, 0};
    if (m == M_MAX) v.a = INT64_MIN;
    if (m == M_AFF) v.a = 1;
    if (m == M_STR) v.s = calloc(1, 1);
    return v;
}

static void v_free(val *v) {
    free(v->s);
    v->s = NULL;
}

static int64_t wrap_add(int64_t x, int64_t y) { return (int64_t)((uint64_t)x + (uint64_t)y); }
static int64_t wrap_mul(int64_t x, int64_t y) { return (int64_t)((uint64_t)x * (uint64_t)y); }

/* x ⊗ y, x the older operand; a new value (x and y unchanged). */
static val v_combine(mkind m, const val *x, const val *y) {
    val r = {0, 0, 0.0, NULL, 0};
    switch (m) {
    case M_STR:
        r.n = x->n + y->n;
        r.s = malloc(r.n + 1);
        memcpy(r.s, x->s, x->n);
        memcpy(r.s + x->n, y->s, y->n);
        r.s[r.n] = '\0';
        break;
    case M_MAX: r.a = x->a >= y->a ? x->a : y->a; break;
    case M_SUM: r.a = wrap_add(x->a, y->a); break;
    case M_AFF: /* x then y: t -> a2 (a1 t + b1) + b2 */
        r.a = wrap_mul(x->a, y->a);
        r.b = wrap_add(wrap_mul(y->a, x->b), y->b);
        break;
    case M_F64: r.f = x->f + y->f; break;
    default: break;
    }
    return r;
}

/* Decode a JSON value of monoid m (docs/protocol.md, "Conformance monoids"); 0 when it is not one. */
static int v_decode(mkind m, const jval *j, val *out) {
    val v = {0, 0, 0.0, NULL, 0};
    if (!j) return 0;
    switch (m) {
    case M_STR:
        if (j->t != J_STR) return 0;
        v.n = j->n;
        v.s = malloc(j->n + 1);
        memcpy(v.s, j->s, j->n + 1);
        break;
    case M_MAX:
    case M_SUM:
        if (j->t != J_INT) return 0;
        v.a = j->i;
        break;
    case M_AFF:
        if (j->t != J_ARR || j->n != 2 || j->items[0].t != J_INT || j->items[1].t != J_INT) return 0;
        if (j->items[0].i != 1 && j->items[0].i != -1) return 0;
        v.a = j->items[0].i;
        v.b = j->items[1].i;
        break;
    case M_F64: {
        char *end;
        if (j->t != J_STR) return 0;
        v.f = strtod(j->s, &end); /* C99 hex floats: "0x1.8p+1" */
        if (*end != '\0' || end == j->s) return 0;
        break;
    }
    default: return 0;
    }
    *out = v;
    return 1;
}

static void v_encode(mkind m, const val *v, jout *o) {
    switch (m) {
    case M_STR: jo_string(o, v->s, v->n); break;
    case M_MAX:
    case M_SUM: jo_printf(o, "%" PRId64, v->a); break;
    case M_AFF: jo_printf(o, "[%" PRId64 ",%" PRId64 "]", v->a, v->b); break;
    case M_F64: jo_printf(o, "\"%a\"", v->f); break;
    default: jo_puts(o, "null"); break;
    }
}

/* --------------------------------------------------------------------------------------------- DABA Lite */

typedef struct agg {
    int64_t id;
    mkind m;
    val *buf;
    uint64_t cap; /* a power of two */
    uint64_t F, L, R, A, B, E;
    val aggRA, aggB;
    uint64_t size;     /* kept apart from E - F so that BUG_SIZE has something to forget */
    uint64_t combines; /* every ⊗, for "stats" */
    struct agg *next;  /* hash chain */
} agg;

static val *at(agg *g, uint64_t p) { return &g->buf[p & (g->cap - 1)]; }

static val combine(agg *g, const val *x, const val *y) {
    g->combines++;
    return v_combine(g->m, x, y);
}

static agg *agg_new(int64_t id, mkind m) {
    agg *g = calloc(1, sizeof *g);
    g->id = id;
    g->m = m;
    g->cap = 16;
    g->buf = calloc(g->cap, sizeof *g->buf);
    g->aggRA = v_identity(m);
    g->aggB = v_identity(m);
    return g;
}

static void agg_free(agg *g) {
    for (uint64_t p = g->F; p < g->E; p++) v_free(at(g, p));
    v_free(&g->aggRA);
    v_free(&g->aggB);
    free(g->buf);
    free(g);
}

static void replace(val *slot, val v) {
    v_free(slot);
    *slot = v;
}

/* One step of incremental reversal: singleton, or [flip], then shift or shrink (000 §6). */
static void fixup(agg *g) {
    if (g->F == g->B) { /* singleton */
        g->B = g->A = g->R = g->L = g->E;
        replace(&g->aggRA, v_identity(g->m));
        replace(&g->aggB, v_identity(g->m));
        return;
    }
    if (g->L == g->B) { /* flip */
        g->L = g->F;
        g->A = g->E;
        g->B = g->E;
        replace(&g->aggRA, g->aggB);
        g->aggB = v_identity(g->m);
    }
    if (g->L == g->R) { /* shift */
        g->L++;
        g->R++;
        g->A++;
        return;
    }
    /* shrink: *L <- ΠL ⊗ aggRA; L <- L + 1; *(A-1) <- *(A-1) ⊗ ΠA; A <- A - 1 */
#ifdef BUG_FLIP_ORDER
    val new_l = combine(g, &g->aggRA, at(g, g->L));
#else
    val new_l = combine(g, at(g, g->L), &g->aggRA);
#endif
    val one = v_identity(g->m);
    val new_am1 = combine(g, at(g, g->A - 1), g->A == g->B ? &one : at(g, g->A));
    v_free(&one);
    replace(at(g, g->L), new_l);
    replace(at(g, g->A - 1), new_am1);
    g->L++;
    g->A--;
}

static void agg_insert(agg *g, val v) {
    if (g->E - g->F == g->cap) { /* grow: same absolute positions in a buffer twice as large */
        val *old = g->buf;
        uint64_t oldcap = g->cap;
        g->cap *= 2;
        g->buf = calloc(g->cap, sizeof *g->buf);
        for (uint64_t p = g->F; p < g->E; p++) g->buf[p & (g->cap - 1)] = old[p & (oldcap - 1)];
        free(old);
    }
    replace(&g->aggB, combine(g, &g->aggB, &v));
    *at(g, g->E) = v;
    g->E++;
    g->size++;
    fixup(g);
#ifdef BUG_CRASH_AT_64
    if (g->size == 64) exit(1);
#endif
}

static void agg_evict(agg *g) {
#ifdef BUG_HANG
    if (g->size == 7) sleep(3600);
#endif
    g->F++;
    fixup(g);
    v_free(at(g, g->F - 1)); /* pop the old front only now: fixup never reads it */
#ifndef BUG_SIZE
    g->size--;
#endif
}

static val agg_query(agg *g) {
#ifdef BUG_EMPTY_QUERY
    if (g->E == g->F) {
        val zero = {0, 0, 0.0, calloc(1, 1), 0};
        if (g->m != M_STR) v_free(&zero);
        return zero;
    }
#endif
    val one = v_identity(g->m);
    val r = combine(g, g->F == g->B ? &one : at(g, g->F), &g->aggB);
    v_free(&one);
    return r;
}

/* ------------------------------------------------------------------------------------- instances by id */

#define BUCKETS 1024
static agg *table[BUCKETS];

static agg **slot_of(int64_t id) {
    agg **s = &table[(uint64_t)id % BUCKETS];
    while (*s && (*s)->id != id) s = &(*s)->next;
    return s;
}

/* ----------------------------------------------------------------------------------------- the requests */

static int fail(jout *o, const char *error, const char *message) {
    jo_puts(o, "{\"ok\":false,\"error\":\"");
    jo_puts(o, error);
    jo_puts(o, "\",\"message\":");
    jo_string(o, message, strlen(message));
    jo_puts(o, "}");
    return 0;
}

static int is(const jval *op, const char *name) { return strcmp(op->s, name) == 0; }

static int hello(jout *o) {
    jo_puts(o, "{\"ok\":true,\"protocol\":1,\"name\":\"daba_lite.c\",\"kinds\":[\"fifo\"],\"monoids\":[");
    for (int m = 0; m < M_COUNT; m++) jo_printf(o, "%s\"%s\"", m ? "," : "", MONOIDS[m]);
    jo_puts(o, "],\"ops\":[\"new\",\"insert\",\"evict\",\"query\",\"size\",\"stats\",\"drop\",\"batch\"");
#ifndef NO_BULK
    jo_puts(o, ",\"insert_many\",\"evict_many\",\"shift\"");
#endif
    jo_puts(o, "]}");
    return 0;
}

static int create(const jval *req, jout *o) {
    const jval *id = j_get(req, "id"), *kind = j_get(req, "kind"), *monoid = j_get(req, "monoid");
    if (!id || id->t != J_INT || !kind || kind->t != J_STR || !monoid || monoid->t != J_STR)
        return fail(o, "bad_input", "new needs id, kind and monoid");
    if (strcmp(kind->s, "fifo") != 0) return fail(o, "unsupported", "only kind fifo");
    for (int m = 0; m < M_COUNT; m++) {
        if (strcmp(monoid->s, MONOIDS[m]) != 0) continue;
        agg **s = slot_of(id->i);
        if (*s) return fail(o, "bad_input", "id in use");
        *s = agg_new(id->i, (mkind)m);
        return jo_puts(o, "{\"ok\":true}"), 0;
    }
    return fail(o, "unsupported", "unknown monoid");
}

static int handle(const jval *req, jout *o) {
    const jval *op = j_get(req, "op");
    if (!op || op->t != J_STR) return fail(o, "bad_input", "a request is an object with an \"op\"");
    if (is(op, "hello")) return hello(o);
    if (is(op, "new")) return create(req, o);
    const jval *id = j_get(req, "id");
    agg **s = id && id->t == J_INT ? slot_of(id->i) : NULL;
    if (!s || !*s) return fail(o, "bad_input", "no instance with this id");
    agg *g = *s;
    if (is(op, "drop")) {
        *s = g->next;
        agg_free(g);
        return jo_puts(o, "{\"ok\":true}"), 0;
    }
    if (is(op, "insert")) {
        val v;
        if (!v_decode(g->m, j_get(req, "value"), &v)) return fail(o, "bad_input", "not a value of the monoid");
        agg_insert(g, v);
        return jo_puts(o, "{\"ok\":true}"), 0;
    }
    if (is(op, "evict")) {
        if (g->E == g->F) return fail(o, "empty", "evict on an empty window");
        agg_evict(g);
        return jo_puts(o, "{\"ok\":true}"), 0;
    }
    if (is(op, "query")) {
#ifdef BUG_GARBAGE
        if (g->size == 10) return jo_puts(o, "query: 10 values (debug print)"), 0;
#endif
        val r = agg_query(g);
        jo_puts(o, "{\"ok\":true,\"value\":");
        v_encode(g->m, &r, o);
        v_free(&r);
        return jo_puts(o, "}"), 0;
    }
    if (is(op, "size")) return jo_printf(o, "{\"ok\":true,\"value\":%" PRIu64 "}", g->size), 0;
    if (is(op, "stats")) return jo_printf(o, "{\"ok\":true,\"combines\":%" PRIu64 "}", g->combines), 0;
#ifndef NO_BULK
    if (is(op, "insert_many")) { /* all or nothing: decode every value first */
        const jval *vs = j_get(req, "values");
        if (!vs || vs->t != J_ARR) return fail(o, "bad_input", "insert_many needs values");
        val *decoded = calloc(vs->n + 1, sizeof *decoded);
        for (size_t k = 0; k < vs->n; k++) {
            if (v_decode(g->m, &vs->items[k], &decoded[k])) continue;
            while (k--) v_free(&decoded[k]);
            free(decoded);
            return fail(o, "bad_input", "not a value of the monoid");
        }
        for (size_t k = 0; k < vs->n; k++) agg_insert(g, decoded[k]);
        free(decoded);
        return jo_puts(o, "{\"ok\":true}"), 0;
    }
    if (is(op, "shift")) { /* evict, insert, query in one request; the value is checked first */
        val v;
        if (!v_decode(g->m, j_get(req, "value"), &v)) return fail(o, "bad_input", "not a value of the monoid");
        if (g->E == g->F) {
            v_free(&v);
            return fail(o, "empty", "shift on an empty window");
        }
        agg_evict(g);
        agg_insert(g, v);
        val r = agg_query(g);
        jo_puts(o, "{\"ok\":true,\"value\":");
        v_encode(g->m, &r, o);
        v_free(&r);
        return jo_puts(o, "}"), 0;
    }
    if (is(op, "evict_many")) {
        const jval *count = j_get(req, "count");
        if (!count || count->t != J_INT || count->i < 0) return fail(o, "bad_input", "evict_many needs a count >= 0");
        if ((uint64_t)count->i > g->E - g->F) return fail(o, "empty", "evict_many beyond the size");
        for (int64_t k = 0; k < count->i; k++) agg_evict(g);
        return jo_puts(o, "{\"ok\":true}"), 0;
    }
#endif
    return fail(o, "unsupported", "unknown op");
}

int main(void) {
    char *line = NULL;
    size_t linecap = 0;
    ssize_t n;
    jout o = {NULL, 0, 0};
    while ((n = getline(&line, &linecap, stdin)) > 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        jval req;
        o.len = 0;
        if (!j_parse(line, (size_t)n, &req)) {
            fail(&o, "bad_input", "not JSON");
        } else if (req.t == J_ARR) { /* a batch: one reply per request, in order, as one array */
            jo_puts(&o, "[");
            for (size_t k = 0; k < req.n; k++) {
                if (k) jo_puts(&o, ",");
                handle(&req.items[k], &o);
            }
            jo_puts(&o, "]");
            j_free(&req);
        } else {
            handle(&req, &o);
            j_free(&req);
        }
        jo_puts(&o, "\n");
        fwrite(o.buf, 1, o.len, stdout);
        fflush(stdout); /* one reply per request, at once: the driver waits for it */
    }
    free(line);
    free(o.buf);
    return 0;
}
