/* jsonl.h -- the minimal JSON a swagkit protocol driver needs (docs/protocol.md): parse one request line into a
 * small tree, write one reply line. No external libraries; only what the protocol uses: objects, arrays,
 * strings (escapes \" \\ \/ \b \f \n \r \t and \uXXXX inside the Basic Multilingual Plane), 64-bit integers,
 * doubles, true/false/null. Header-only (static functions): include it from one .c file.
 */
#ifndef SWAGKIT_JSONL_H
#define SWAGKIT_JSONL_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_INT, J_DBL, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype t;
    int64_t i;          /* J_INT, J_BOOL */
    double d;           /* J_DBL (also set for J_INT) */
    char *s;            /* J_STR: bytes (UTF-8), NUL-terminated; n = length */
    size_t n;           /* J_STR length, J_ARR / J_OBJ item count */
    struct jval *items; /* J_ARR items, J_OBJ values */
    char **keys;        /* J_OBJ keys */
} jval;

typedef struct {
    const char *p, *end;
    int err;
} jparser;

static void j_free(jval *v) {
    if (v->t == J_STR) free(v->s);
    if (v->t == J_ARR || v->t == J_OBJ) {
        for (size_t k = 0; k < v->n; k++) {
            j_free(&v->items[k]);
            if (v->keys) free(v->keys[k]);
        }
        free(v->items);
        free(v->keys);
    }
    memset(v, 0, sizeof *v);
}

static void j_ws(jparser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n')) ps->p++;
}

static int j_value(jparser *ps, jval *out, int depth);

static void j_utf8(char **buf, size_t *len, unsigned cp) {
    char *b = *buf;
    if (cp < 0x80) {
        b[(*len)++] = (char)cp;
    } else if (cp < 0x800) {
        b[(*len)++] = (char)(0xC0 | (cp >> 6));
        b[(*len)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        b[(*len)++] = (char)(0xE0 | (cp >> 12));
        b[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[(*len)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static int j_string(jparser *ps, char **out, size_t *outlen) {
    /* ps->p is at the opening quote; the decoded string is never longer than the encoded one */
    const char *start = ++ps->p;
    const char *q = start;
    while (q < ps->end && *q != '"') q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
    if (q >= ps->end) return ps->err = 1, 0;
    char *buf = malloc((size_t)(q - start) + 1);
    size_t len = 0;
    while (ps->p < q) {
        char c = *ps->p++;
        if (c != '\\') {
            if ((unsigned char)c < 0x20) return free(buf), ps->err = 1, 0;
            buf[len++] = c;
            continue;
        }
        char e = *ps->p++;
        switch (e) {
        case '"': case '\\': case '/': buf[len++] = e; break;
        case 'b': buf[len++] = '\b'; break;
        case 'f': buf[len++] = '\f'; break;
        case 'n': buf[len++] = '\n'; break;
        case 'r': buf[len++] = '\r'; break;
        case 't': buf[len++] = '\t'; break;
        case 'u': {
            unsigned cp = 0;
            for (int k = 0; k < 4; k++) {
                char h = ps->p < q ? *ps->p++ : 'x';
                cp <<= 4;
                if (h >= '0' && h <= '9') cp |= (unsigned)(h - '0');
                else if (h >= 'a' && h <= 'f') cp |= (unsigned)(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F') cp |= (unsigned)(h - 'A' + 10);
                else return free(buf), ps->err = 1, 0;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) return free(buf), ps->err = 1, 0; /* no surrogate pairs */
            j_utf8(&buf, &len, cp);                                           /* \uXXXX: 6 bytes in, <= 3 out */
            break;
        }
        default: return free(buf), ps->err = 1, 0;
        }
    }
    ps->p = q + 1;
    buf[len] = '\0';
    *out = buf;
    *outlen = len;
    return 1;
}

static int j_number(jparser *ps, jval *out) {
    const char *s = ps->p;
    int is_float = 0;
    while (ps->p < ps->end && strchr("+-0123456789.eE", *ps->p)) {
        if (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E') is_float = 1;
        ps->p++;
    }
    char tmp[64];
    size_t len = (size_t)(ps->p - s);
    if (len == 0 || len >= sizeof tmp) return ps->err = 1, 0;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end;
    errno = 0;
    if (is_float) {
        out->t = J_DBL;
        out->d = strtod(tmp, &end);
    } else {
        out->t = J_INT;
        out->i = strtoll(tmp, &end, 10);
        out->d = (double)out->i;
    }
    if (*end != '\0' || errno == ERANGE) return ps->err = 1, 0;
    return 1;
}

static int j_items(jparser *ps, jval *out, int depth, int object) {
    size_t cap = 0;
    out->t = object ? J_OBJ : J_ARR;
    ps->p++; /* '[' or '{' */
    j_ws(ps);
    char close = object ? '}' : ']';
    if (ps->p < ps->end && *ps->p == close) return ps->p++, 1;
    for (;;) {
        if (out->n == cap) {
            cap = cap ? 2 * cap : 4;
            out->items = realloc(out->items, cap * sizeof *out->items);
            if (object) out->keys = realloc(out->keys, cap * sizeof *out->keys);
        }
        jval *item = &out->items[out->n];
        memset(item, 0, sizeof *item);
        if (object) {
            size_t klen;
            j_ws(ps);
            if (ps->p >= ps->end || *ps->p != '"' || !j_string(ps, &out->keys[out->n], &klen)) return ps->err = 1, 0;
            j_ws(ps);
            if (ps->p >= ps->end || *ps->p++ != ':') return free(out->keys[out->n]), ps->err = 1, 0;
        }
        if (!j_value(ps, item, depth + 1)) {
            if (object) free(out->keys[out->n]);
            return 0;
        }
        out->n++;
        j_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) return ps->p++, 1;
        return ps->err = 1, 0;
    }
}

static int j_value(jparser *ps, jval *out, int depth) {
    memset(out, 0, sizeof *out);
    j_ws(ps);
    if (ps->p >= ps->end || depth > 32) return ps->err = 1, 0;
    char c = *ps->p;
    if (c == '{' || c == '[') return j_items(ps, out, depth, c == '{');
    if (c == '"') {
        out->t = J_STR;
        return j_string(ps, &out->s, &out->n);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return j_number(ps, out);
    static const char *words[] = {"null", "true", "false"};
    for (int k = 0; k < 3; k++) {
        size_t len = strlen(words[k]);
        if ((size_t)(ps->end - ps->p) >= len && memcmp(ps->p, words[k], len) == 0) {
            ps->p += len;
            out->t = k == 0 ? J_NULL : J_BOOL;
            out->i = k == 1;
            return 1;
        }
    }
    return ps->err = 1, 0;
}

/* Parse one line; 1 on success (free with j_free), 0 on a syntax error or trailing garbage. */
static int j_parse(const char *text, size_t len, jval *out) {
    jparser ps = {text, text + len, 0};
    if (!j_value(&ps, out, 0)) {
        j_free(out);
        return 0;
    }
    j_ws(&ps);
    if (ps.p != ps.end) {
        j_free(out);
        return 0;
    }
    return 1;
}

/* The member `key` of an object (NULL when absent or not an object). */
static const jval *j_get(const jval *obj, const char *key) {
    if (!obj || obj->t != J_OBJ) return NULL;
    for (size_t k = 0; k < obj->n; k++)
        if (strcmp(obj->keys[k], key) == 0) return &obj->items[k];
    return NULL;
}

/* ---------------------------------------------------------------------------------------------- the writer */

typedef struct {
    char *buf;
    size_t len, cap;
} jout;

static void jo_raw(jout *o, const char *s, size_t n) {
    if (o->len + n + 1 > o->cap) {
        o->cap = (o->len + n + 1) * 2;
        o->buf = realloc(o->buf, o->cap);
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void jo_puts(jout *o, const char *s) { jo_raw(o, s, strlen(s)); }

static void jo_printf(jout *o, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    jo_raw(o, tmp, (size_t)n);
}

/* A JSON string: quotes, backslashes and control characters escaped, other bytes (UTF-8) as they are. */
static void jo_string(jout *o, const char *s, size_t n) {
    jo_raw(o, "\"", 1);
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)s[k];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            jo_raw(o, esc, 2);
        } else if (c < 0x20) {
            jo_printf(o, "\\u%04x", c);
        } else {
            jo_raw(o, (const char *)&s[k], 1);
        }
    }
    jo_raw(o, "\"", 1);
}

#endif
