/* Chrome/V8 .cpuprofile reader (node --cpu-prof, DevTools "Save profile"):
 * a JSON object with "nodes" (a tree of call frames, each with an id, a
 * callFrame and its children's ids), "samples" (the node id of each sample's
 * innermost frame), "timeDeltas" (µs between samples), "startTime" and
 * "endTime". Each node's path from the root is one stack, added once with
 * the sum of its samples: recursion classes are exact. Also the traces of
 * DevTools' Performance panel (Trace Event Format), whose Profile and
 * ProfileChunk events hold the same profile in pieces, and whose CpuProfile
 * events hold it whole. See
 * docs/formats/v8.md for the mapping. */
#include "util/compiler.h"
#include "util/prefetch.h"
#include "io_util.h"

#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>

/* ---- a strict JSON tokenizer; nesting is an explicit bit stack ---- */

#define J_MAX_DEPTH 256

enum {
    J_EOF,
    J_OBJ,
    J_OBJ_END,
    J_ARR,
    J_ARR_END,
    J_KEY,
    J_STR,
    J_NUM,
    J_TRUE,
    J_FALSE,
    J_NULL
};

enum { X_VALUE, X_VALUE_OR_AEND, X_KEY_OR_OEND, X_KEY, X_AFTER, X_DONE };

typedef struct jtok {
    int type;
    const char *s; /* strings: the raw bytes between the quotes */
    size_t n;
    bool esc;      /* the string holds escapes */
    bool is_int;   /* a number without fraction or exponent ... */
    bool ovf;      /* ... that does not fit int64 */
    int64_t iv;
} jtok;

typedef struct jlex {
    const char *b, *p, *end;
    uint64_t line;
    uint32_t depth;
    int expect;
    unsigned char in_obj[J_MAX_DEPTH];
    cgprop_read_error *err;
} jlex;

/* JSON's white space. */
static bool json_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static void jinit(jlex *L, const char *data, size_t len, cgprop_read_error *err)
{
    memset(L, 0, sizeof *L);
    L->b = L->p = data;
    L->end = data + len;
    L->line = 1;
    L->expect = X_VALUE;
    L->err = err;
}

static int jfail(jlex *L, const char *what)
{
    return cgprop__read_fail(L->err, CGPROP_EFORMAT, L->line, "%s (byte %llu)", what,
                             (unsigned long long)(L->p - L->b));
}

static void jws(jlex *L)
{
    /* Most tokens of a saved profile follow the previous one directly. */
    if (L->p < L->end && (unsigned char)*L->p > ' ') return;
    while (L->p < L->end) {
        char c = *L->p;
        if (c == '\n') L->line++;
        else if (c != ' ' && c != '\t' && c != '\r') break;
        L->p++;
    }
}

static bool hex4(const char *s, unsigned *v)
{
    unsigned x = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return false;
        x = x << 4 | d;
    }
    *v = x;
    return true;
}

static int jstring(jlex *L, jtok *t)
{
    L->p++; /* the opening quote */
    const char *s = L->p;
    t->esc = false;
    while (L->p < L->end) {
        unsigned char c = (unsigned char)*L->p;
        if (c == '"') {
            t->s = s;
            t->n = (size_t)(L->p - s);
            L->p++;
            return CGPROP_OK;
        }
        if (c < 0x20) return jfail(L, "control byte inside a string");
        if (c == '\\') {
            t->esc = true;
            if (L->end - L->p < 2) break;
            char e = L->p[1];
            if (e == 'u') {
                unsigned v;
                if (L->end - L->p < 6 || !hex4(L->p + 2, &v)) return jfail(L, "bad \\u escape");
                L->p += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' ||
                       e == 't') {
                L->p += 2;
            } else {
                return jfail(L, "bad escape in a string");
            }
            continue;
        }
        L->p++;
    }
    return jfail(L, "unterminated string");
}

static int jnumber(jlex *L, jtok *t)
{
    const char *p = L->p;
    bool neg = false;
    uint64_t v = 0;
    t->is_int = true;
    t->ovf = false;
    if (p < L->end && *p == '-') {
        neg = true;
        p++;
    }
    if (p >= L->end || !cgprop__is_digit(*p)) return jfail(L, "bad number");
    if (*p == '0') {
        p++;
    } else {
        while (p < L->end && cgprop__is_digit(*p)) {
            unsigned d = (unsigned)(*p - '0');
            if (v > (UINT64_MAX - d) / 10) t->ovf = true;
            else v = v * 10 + d;
            p++;
        }
    }
    if (p < L->end && *p == '.') {
        t->is_int = false;
        p++;
        if (p >= L->end || !cgprop__is_digit(*p)) return jfail(L, "bad number");
        while (p < L->end && cgprop__is_digit(*p)) p++;
    }
    if (p < L->end && (*p == 'e' || *p == 'E')) {
        t->is_int = false;
        p++;
        if (p < L->end && (*p == '+' || *p == '-')) p++;
        if (p >= L->end || !cgprop__is_digit(*p)) return jfail(L, "bad number");
        while (p < L->end && cgprop__is_digit(*p)) p++;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX) t->ovf = true;
    if (!t->ovf) t->iv = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    L->p = p;
    return CGPROP_OK;
}

static int jclose(jlex *L, jtok *t, char c)
{
    bool obj = L->in_obj[L->depth - 1];
    if ((c == '}') != obj) return jfail(L, "mismatched closing bracket");
    L->p++;
    L->depth--;
    L->expect = L->depth ? X_AFTER : X_DONE;
    t->type = obj ? J_OBJ_END : J_ARR_END;
    return CGPROP_OK;
}

static int jopen(jlex *L, jtok *t, bool obj)
{
    if (L->depth == J_MAX_DEPTH) return jfail(L, "nesting too deep");
    L->in_obj[L->depth++] = obj;
    L->p++;
    L->expect = obj ? X_KEY_OR_OEND : X_VALUE_OR_AEND;
    t->type = obj ? J_OBJ : J_ARR;
    return CGPROP_OK;
}

static bool lit(jlex *L, const char *w, size_t n)
{
    if ((size_t)(L->end - L->p) < n || memcmp(L->p, w, n) != 0) return false;
    L->p += n;
    return true;
}

/* The next token, the grammar checked on the way. */
static int jnext(jlex *L, jtok *t)
{
    for (;;) {
        jws(L);
        if (L->p >= L->end) {
            if (L->expect == X_DONE) {
                t->type = J_EOF;
                return CGPROP_OK;
            }
            return jfail(L, "unexpected end of the input");
        }
        char c = *L->p;
        switch (L->expect) {
        case X_DONE:
            return jfail(L, "bytes after the end of the JSON value");
        case X_AFTER:
            if (c == ',') {
                L->p++;
                L->expect = L->in_obj[L->depth - 1] ? X_KEY : X_VALUE;
                continue;
            }
            if (c == '}' || c == ']') return jclose(L, t, c);
            return jfail(L, "expected ',' or a closing bracket");
        case X_KEY_OR_OEND:
            if (c == '}') return jclose(L, t, c);
            /* fall through */
        case X_KEY: {
            if (c != '"') return jfail(L, "expected a key string");
            int rc = jstring(L, t);
            if (rc) return rc;
            jws(L);
            if (L->p >= L->end || *L->p != ':') return jfail(L, "expected ':' after a key");
            L->p++;
            L->expect = X_VALUE;
            t->type = J_KEY;
            return CGPROP_OK;
        }
        case X_VALUE_OR_AEND:
            if (c == ']') return jclose(L, t, c);
            /* fall through */
        default:
            break;
        }
        /* A value. */
        if (c == '{') return jopen(L, t, true);
        if (c == '[') return jopen(L, t, false);
        int rc = CGPROP_OK;
        if (c == '"') {
            rc = jstring(L, t);
            t->type = J_STR;
        } else if (c == '-' || cgprop__is_digit(c)) {
            rc = jnumber(L, t);
            t->type = J_NUM;
        } else if (lit(L, "true", 4)) {
            t->type = J_TRUE;
        } else if (lit(L, "false", 5)) {
            t->type = J_FALSE;
        } else if (lit(L, "null", 4)) {
            t->type = J_NULL;
        } else {
            return jfail(L, "expected a JSON value");
        }
        if (rc) return rc;
        L->expect = L->depth ? X_AFTER : X_DONE;
        return CGPROP_OK;
    }
}

/* Skip the value whose first token is t (already read). */
static int jskip(jlex *L, const jtok *t)
{
    if (t->type != J_OBJ && t->type != J_ARR) return CGPROP_OK;
    uint32_t d = L->depth - 1;
    jtok u;
    while (L->depth > d) {
        int rc = jnext(L, &u);
        if (rc) return rc;
    }
    return CGPROP_OK;
}

/* A heap profile nests its tree: a node's children are objects in its
 * "children" array, two levels a frame, and JavaScript recursion runs
 * thousands of frames deep. The reader walks that nesting itself (the open
 * nodes are the chain of parent links it keeps anyway), and the tokenizer
 * sees every node at the depth of the first, `base` (the node's object
 * open): after a child's '{', jflatten takes the two levels back off; after
 * its '}', jresume puts the tokenizer back inside the parent's children,
 * after a value. Levels within a node (its callFrame, unknown keys) use the
 * stack as any value does. */
static void jflatten(jlex *L, uint32_t base) { L->depth = base; }

static void jresume(jlex *L, uint32_t base)
{
    L->in_obj[base] = 0;
    L->depth = base + 1;
    L->expect = X_AFTER;
}

static void put_utf8(char *dst, size_t *k, unsigned cp)
{
    if (cp < 0x80) {
        dst[(*k)++] = (char)cp;
    } else if (cp < 0x800) {
        dst[(*k)++] = (char)(0xc0 | cp >> 6);
        dst[(*k)++] = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        dst[(*k)++] = (char)(0xe0 | cp >> 12);
        dst[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[(*k)++] = (char)(0x80 | (cp & 0x3f));
    } else {
        dst[(*k)++] = (char)(0xf0 | cp >> 18);
        dst[(*k)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
        dst[(*k)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
        dst[(*k)++] = (char)(0x80 | (cp & 0x3f));
    }
}

/* Decode a checked string into dst (room for n bytes: decoding never
 * lengthens). A lone surrogate becomes U+FFFD; TAB and line breaks become
 * spaces (keys use TAB between their parts, and a key is one line of the
 * text formats: callgrind's writer refuses a key that would break its
 * line). Returns the length. */
static size_t jdecode(const char *s, size_t n, char *dst)
{
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c != '\\') {
            dst[k++] = c == '\t' ? ' ' : c;
            i++;
            continue;
        }
        char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'b': dst[k++] = '\b'; break;
        case 'f': dst[k++] = '\f'; break;
        case 'n':
        case 'r':
        case 't': dst[k++] = ' '; break;
        case 'u': {
            unsigned v = 0, w = 0;
            (void)hex4(s + i, &v);
            i += 4;
            if (v >= 0xd800 && v < 0xdc00 && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u' &&
                hex4(s + i + 2, &w) && w >= 0xdc00 && w < 0xe000) {
                v = 0x10000 + ((v - 0xd800) << 10) + (w - 0xdc00);
                i += 6;
            } else if (v >= 0xd800 && v < 0xe000) {
                v = 0xfffd;
            }
            if (v == '\t' || v == '\n' || v == '\r') v = ' ';
            put_utf8(dst, &k, v);
            break;
        }
        default: dst[k++] = e; break;
        }
    }
    return k;
}

/* ---- the profile ---- */

typedef struct vnode {
    int64_t id;
    int64_t parent_id; /* from a "parent" field */
    uint64_t hit;
    uint64_t samples, time;
    uint64_t line;
    uint32_t fn;     /* function id; NO_FN for the "(root)" frame */
    uint32_t parent; /* index, NO_NODE for a root */
    uint32_t depth;  /* frames on the path, 0 until computed */
    bool has_parent_id;
    unsigned char seen; /* a heap profile's node: SEEN_ bits, checked at its end */
} vnode;

enum { SEEN_ID = 1, SEEN_FRAME = 2, SEEN_SELF = 4 };

/* A node to visit and its depth, on add_stacks' walk of the tree. */
typedef struct vdfs {
    uint32_t node, depth;
} vdfs;

typedef struct vedge {
    uint32_t parent; /* index of the node listing the child */
    int64_t child;
    uint64_t line;
} vedge;

typedef struct vidx {
    int64_t id;
    uint32_t i;
} vidx;

#define NO_FN UINT32_MAX
#define NO_NODE UINT32_MAX

/* A stretch of a profile's samples: a samples array and its timeDeltas,
 * both checked and counted in the first pass. A .cpuprofile has one; a
 * trace profile one per ProfileChunk. */
typedef struct vseg {
    const char *samples_at, *deltas_at; /* deltas_at NULL: no timeDeltas */
    uint64_t samples_line, deltas_line;
    uint64_t n;
} vseg;

/* A JSON scalar as written (a string with its quotes): pid, tid and
 * profile ids are compared byte for byte. */
typedef struct vspan {
    const char *s;
    size_t n;
} vspan;

enum { SRC_NONE, SRC_INTERNAL, SRC_INSPECTOR, SRC_SELF };

/* A trace's "Profile" event: one profile, its chunks listed through
 * vchunk.next in file order. A "CpuProfile" event is a profile and its one
 * chunk at once (whole). */
typedef struct vprof {
    vspan pid, tid, id;
    uint64_t line, seq;
    uint32_t first, last;
    unsigned char source;
    bool chosen;
    bool whole;
} vprof;

typedef struct vchunk {
    vspan pid, id;
    uint64_t line, seq;
    const char *nodes_at; /* NULL: no nodes array */
    uint64_t nodes_line;
    vseg seg; /* a whole profile's: samples_at NULL without samples */
    uint64_t ndeltas;
    int64_t start; /* a whole profile's startTime */
    uint32_t prof, next;
    unsigned char source;
    bool whole; /* a CpuProfile event's, its profile preset in prof */
} vchunk;

#define NO_CHUNK UINT32_MAX

typedef struct v8r {
    cgprop_graph *g;
    cgprop_read_error *err;
    vnode *nodes;
    size_t nn, ncap;
    vedge *edges;
    size_t ne, ecap;
    vidx *idx;
    /* V8 numbers its nodes 1, 2, 3, ...: when the ids are such a run,
     * a node is found by subtraction, not by a search per sample. */
    bool dense;
    bool ident; /* dense, and node i is id base + i (no idx) */
    int64_t base;
    char *key;
    size_t keycap;
    uint32_t root_fn; /* "(root)", added only when a sample needs it */
    bool has_start, has_samples, has_deltas;
    int64_t start;
    const char *samples_at, *deltas_at, *end;
    uint64_t samples_line, deltas_line;
    uint64_t nsamples, ndeltas;
    uint64_t frames; /* sampled path frames so far, against frame_budget */
    size_t len;      /* the input's bytes */
    /* A trace: its profiles and chunks in file order. */
    bool trace;
    uint64_t objs_line; /* a "samples" list of objects (a trace's or a heap profile's): its line, or 0 */
    vprof *profs;
    size_t np, pcap;
    vchunk *chunks;
    size_t nc, ccap;
    uint64_t nev; /* events met, their sequence */
    /* A heap profile: a "head" tree; where its samples objects are. */
    bool heap;
    const char *objs_at;
} v8r;

static int v8_oom(v8r *v, uint64_t line) { return cgprop__read_fail(v->err, CGPROP_ENOMEM, line, "out of memory"); }

static bool grow(v8r *v, void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap) return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *q = cgprop__realloc(v->g, *p, c, size);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

static int want(jlex *L, jtok *t, int type, const char *what)
{
    int rc = jnext(L, t);
    if (rc) return rc;
    if (t->type != type) return jfail(L, what);
    return CGPROP_OK;
}

static int want_int(jlex *L, jtok *t, const char *what)
{
    int rc = jnext(L, t);
    if (rc) return rc;
    if (t->type != J_NUM || !t->is_int) return jfail(L, what);
    if (t->ovf) return cgprop__read_fail(L->err, CGPROP_EOVERFLOW, L->line, "number too large: %s", what);
    return CGPROP_OK;
}

static bool key_is(const jtok *t, const char *k)
{
    size_t n = strlen(k);
    return !t->esc && t->n == n && memcmp(t->s, k, n) == 0;
}

/* v in decimal at o (room for 20 bytes), as %lld prints it; its length. */
static size_t put_i64(int64_t v, char *o)
{
    char t[20];
    size_t n = 0, k = 0;
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        t[n++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    if (v < 0) o[k++] = '-';
    while (n) o[k++] = t[--n];
    return k;
}

/* Key: "url TAB line:col TAB name" with 1-based line and column as DevTools
 * shows them; a script without URL is told apart by its script id. */
static int frame_fn(v8r *v, jlex *L, const jtok *name, const jtok *url, const jtok *sid, int64_t line, int64_t col,
                    uint32_t *out)
{
    size_t need = url->n + sid->n + name->n + 96;
    if (need > v->keycap) {
        char *k = cgprop__realloc(v->g, v->key, need, 1);
        if (!k) return v8_oom(v, L->line);
        v->key = k;
        v->keycap = need;
    }
    size_t k = 0;
    if (url->n) {
        k += jdecode(url->s, url->n, v->key);
    } else if (sid->n && !(sid->n == 1 && sid->s[0] == '0')) {
        memcpy(v->key, "script ", 7);
        k = 7 + jdecode(sid->s, sid->n, v->key + 7);
    }
    v->key[k++] = '\t';
    k += put_i64(line < INT64_MAX ? line + 1 : line, v->key + k);
    v->key[k++] = ':';
    k += put_i64(col < INT64_MAX ? col + 1 : col, v->key + k);
    v->key[k++] = '\t';
    if (name->n) {
        k += jdecode(name->s, name->n, v->key + k);
    } else {
        memcpy(v->key + k, "(anonymous)", 11);
        k += 11;
    }
    int rc = cgprop_graph_add_node(v->g, v->key, k, out);
    if (rc)
        return cgprop__read_fail(v->err, rc, L->line, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    return CGPROP_OK;
}

static int read_call_frame(v8r *v, jlex *L, vnode *nd)
{
    jtok t, name = {0}, url = {0}, sid = {0};
    int64_t line = -1, col = -1;
    int rc = want(L, &t, J_OBJ, "callFrame is not an object");
    if (rc) return rc;
    for (;;) {
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_OBJ_END) break;
        if (key_is(&t, "functionName") || key_is(&t, "url")) {
            bool is_name = key_is(&t, "functionName");
            if ((rc = want(L, &t, J_STR, is_name ? "functionName is not a string" : "url is not a string")))
                return rc;
            if (is_name) name = t;
            else url = t;
        } else if (key_is(&t, "scriptId")) {
            /* A string in the protocol; some writers give a number. */
            jws(L);
            const char *at = L->p;
            if ((rc = jnext(L, &t))) return rc;
            if (t.type == J_NUM) {
                t.s = at;
                t.n = (size_t)(L->p - at);
                t.esc = false;
                sid = t;
            } else if (t.type == J_STR) {
                sid = t;
            } else {
                return jfail(L, "scriptId is not a string");
            }
        } else if (key_is(&t, "lineNumber") || key_is(&t, "columnNumber")) {
            bool is_line = key_is(&t, "lineNumber");
            if ((rc = want_int(L, &t, is_line ? "lineNumber is not an integer" : "columnNumber is not an integer")))
                return rc;
            if (is_line) line = t.iv;
            else col = t.iv;
        } else {
            if ((rc = jnext(L, &t))) return rc;
            if ((rc = jskip(L, &t))) return rc;
        }
    }
    /* The tree's root is no function of the program: it gets no key unless a
     * sample lands on it. */
    if (name.n == 6 && !name.esc && memcmp(name.s, "(root)", 6) == 0 && url.n == 0) {
        nd->fn = NO_FN;
        return CGPROP_OK;
    }
    return frame_fn(v, L, &name, &url, &sid, line, col, &nd->fn);
}

static int read_node(v8r *v, jlex *L)
{
    if (!grow(v, (void **)&v->nodes, &v->ncap, v->nn, sizeof *v->nodes)) return v8_oom(v, L->line);
    if (v->nn >= NO_NODE - 1) return cgprop__read_fail(v->err, CGPROP_EFORMAT, L->line, "too many nodes");
    uint32_t me = (uint32_t)v->nn;
    vnode *nd = &v->nodes[v->nn++];
    memset(nd, 0, sizeof *nd);
    nd->parent = NO_NODE;
    nd->line = L->line;
    bool has_id = false, has_frame = false;
    jtok t;
    int rc;
    for (;;) {
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_OBJ_END) break;
        if (key_is(&t, "id")) {
            if ((rc = want_int(L, &t, "node id is not an integer"))) return rc;
            v->nodes[me].id = t.iv;
            has_id = true;
        } else if (key_is(&t, "parent")) {
            if ((rc = want_int(L, &t, "parent is not an integer"))) return rc;
            v->nodes[me].parent_id = t.iv;
            v->nodes[me].has_parent_id = true;
        } else if (key_is(&t, "hitCount")) {
            if ((rc = want_int(L, &t, "hitCount is not an integer"))) return rc;
            if (t.iv < 0) return jfail(L, "negative hitCount");
            v->nodes[me].hit = (uint64_t)t.iv;
        } else if (key_is(&t, "callFrame")) {
            if ((rc = read_call_frame(v, L, &v->nodes[me]))) return rc;
            has_frame = true;
        } else if (key_is(&t, "children")) {
            if ((rc = want(L, &t, J_ARR, "children is not an array"))) return rc;
            for (;;) {
                if ((rc = jnext(L, &t))) return rc;
                if (t.type == J_ARR_END) break;
                if (t.type != J_NUM || !t.is_int) return jfail(L, "child id is not an integer");
                if (t.ovf) return cgprop__read_fail(v->err, CGPROP_EOVERFLOW, L->line, "child id too large");
                if (!grow(v, (void **)&v->edges, &v->ecap, v->ne, sizeof *v->edges)) return v8_oom(v, L->line);
                v->edges[v->ne].parent = me;
                v->edges[v->ne].child = t.iv;
                v->edges[v->ne].line = L->line;
                v->ne++;
            }
        } else {
            if ((rc = jnext(L, &t))) return rc;
            if ((rc = jskip(L, &t))) return rc;
        }
    }
    if (!has_id) return jfail(L, "node without id");
    if (!has_frame) return jfail(L, "node without callFrame");
    return CGPROP_OK;
}

/* The fast node's pieces: p past the bytes w, or NULL. */
static inline const char *fast_lit(const char *p, const char *e, const char *w, size_t n)
{
    if ((size_t)(e - p) < n) return NULL;
    /* n is a constant here: the compare unrolls into a few word loads
     * instead of a call to memcmp for each key of each node. */
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t a, b;
        memcpy(&a, p + i, 8);
        memcpy(&b, w + i, 8);
        if (a != b) return NULL;
    }
    for (; i < n; i++)
        if (p[i] != w[i]) return NULL;
    return p + n;
}

/* An integer of at most 18 digits (no overflow, no leading zero) ending
 * before a byte that cannot continue a number; else NULL. */
static const char *fast_int(const char *p, const char *e, int64_t *out)
{
    bool neg = p < e && *p == '-';
    p += neg;
    if (p >= e || !cgprop__is_digit(*p)) return NULL;
    const char *d = p;
    uint64_t x = 0;
    if (*p == '0') {
        p++;
    } else {
        while (p < e && cgprop__is_digit(*p)) x = x * 10 + (uint64_t)(*p++ - '0');
        if (p - d > 18) return NULL;
    }
    if (p >= e || cgprop__is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E') return NULL;
    *out = neg ? -(int64_t)x : (int64_t)x;
    return p;
}

/* A string without escapes or control bytes, as jstring gives it; else NULL. */
static const char *fast_str(const char *p, const char *e, jtok *t)
{
    if (p >= e || *p != '"') return NULL;
    const char *s = ++p;
    while (p < e && *p != '"') {
        if ((unsigned char)*p < 0x20 || *p == '\\') return NULL;
        p++;
    }
    if (p >= e) return NULL;
    t->s = s;
    t->n = (size_t)(p - s);
    t->esc = false;
    return p + 1;
}

/* A node as V8 writes it, its '{' read: {"id":N,"callFrame":{"functionName":
 * S,"scriptId":S,"url":S,"lineNumber":N,"columnNumber":N},"hitCount":N} with
 * ,"children":[N,...] before the '}' or not; no blank, no escape, integers
 * as fast_int takes them. The token loop took a quarter of a read on these.
 * True with the node read as read_node reads it, and *rc set (the errors
 * read_node would give first for such a node: memory, too many functions);
 * false with nothing changed, for read_node to read (and report) it. */
static bool read_node_fast(v8r *v, jlex *L, int *rc)
{
    const char *p = L->p, *e = L->end;
    int64_t id, line, col, hit, child;
    jtok name, url, sid;
    size_t ne0 = v->ne;
    if (v->nn >= NO_NODE - 1) return false;
#define FAST_LIT(w) if (!(p = fast_lit(p, e, w, sizeof w - 1))) goto no
    FAST_LIT("\"id\":");
    if (!(p = fast_int(p, e, &id))) goto no;
    FAST_LIT(",\"callFrame\":{\"functionName\":");
    if (!(p = fast_str(p, e, &name))) goto no;
    FAST_LIT(",\"scriptId\":");
    if (!(p = fast_str(p, e, &sid))) goto no;
    FAST_LIT(",\"url\":");
    if (!(p = fast_str(p, e, &url))) goto no;
    FAST_LIT(",\"lineNumber\":");
    if (!(p = fast_int(p, e, &line))) goto no;
    FAST_LIT(",\"columnNumber\":");
    if (!(p = fast_int(p, e, &col))) goto no;
    FAST_LIT("},\"hitCount\":");
    if (!(p = fast_int(p, e, &hit)) || hit < 0) goto no;
    if (p < e && *p == ',') {
        FAST_LIT(",\"children\":[");
        if (p < e && *p == ']') {
            p++;
        } else {
            for (;;) {
                if (!(p = fast_int(p, e, &child))) goto no;
                if (!grow(v, (void **)&v->edges, &v->ecap, v->ne, sizeof *v->edges)) goto no;
                v->edges[v->ne].parent = (uint32_t)v->nn;
                v->edges[v->ne].child = child;
                v->edges[v->ne].line = L->line;
                v->ne++;
                if (*p == ']') break;
                if (*p != ',') goto no;
                p++;
            }
            p++;
        }
    }
#undef FAST_LIT
    if (p >= e || *p != '}') goto no;
    L->p = p + 1;
    L->depth--;
    L->expect = L->depth ? X_AFTER : X_DONE;
    if (!grow(v, (void **)&v->nodes, &v->ncap, v->nn, sizeof *v->nodes)) {
        *rc = v8_oom(v, L->line);
        return true;
    }
    vnode *nd = &v->nodes[v->nn++];
    memset(nd, 0, sizeof *nd);
    nd->parent = NO_NODE;
    nd->line = L->line;
    nd->id = id;
    nd->hit = (uint64_t)hit;
    *rc = CGPROP_OK;
    /* As read_call_frame: the tree's root gets no key. */
    if (name.n == 6 && memcmp(name.s, "(root)", 6) == 0 && url.n == 0) nd->fn = NO_FN;
    else *rc = frame_fn(v, L, &name, &url, &sid, line, col, &nd->fn);
    return true;
no:
    v->ne = ne0;
    return false;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define V8_SWAR 1
/* The digits at p among the 8 bytes there: 0 when p holds no digit, 8
 * when all are; *x gets the bytes minus '0'. A carry out of a non-digit
 * byte only disturbs the bytes after it. */
static inline unsigned swar_digits(const char *p, uint64_t *x)
{
    uint64_t w;
    memcpy(&w, p, 8);
    w ^= 0x3030303030303030ull;
    *x = w;
    uint64_t nd = ((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull;
    return nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
}

/* The value of the k (1 to 8) digits at the start of x (swar_digits'),
 * shifted to the top as leading zeros (simdjson's 8-digit step). */
static inline uint64_t swar_value(uint64_t x, unsigned k)
{
    x <<= 64 - 8 * k;
    x = x * 10 + (x >> 8);
    return (((x & 0x000000FF000000FFull) * 0x000F424000000064ull) +
            (((x >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
}
#endif

/* int_array's usual case, byte by byte: integers of at most 18 digits
 * (no overflow, no leading zero), blanks, commas, and the closing bracket.
 * True with the array read and the lexer past it; false, with nothing
 * moved, on anything else, which the token loop then reads (and reports). */
static bool int_array_fast(jlex *L, uint64_t *count)
{
    const char *p = L->p, *e = L->end;
    uint64_t line = L->line, n = 0;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) line += *p++ == '\n';
        if (p < e && *p == ']' && n == 0) break;
#ifdef V8_SWAR
        /* A sample id or delta of 1 to 7 digits right before ',' or ']',
         * with no branch on its length; anything else is the loop's. */
        if (e - p >= 8) {
            uint64_t x;
            unsigned k = swar_digits(p, &x);
            if (k && k < 8 && (p[k] == ',' || p[k] == ']') && (*p != '0' || k == 1)) {
                n++;
                p += k;
                if (*p == ']') break;
                p++;
                continue;
            }
        }
#endif
        if (p < e && *p == '-') p++;
        if (p >= e || !cgprop__is_digit(*p)) return false;
        const char *d = p;
        if (*p == '0') p++;
        else
            while (p < e && cgprop__is_digit(*p)) p++;
        if (p - d > 18 || (p < e && (cgprop__is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E'))) return false;
        n++;
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) line += *p++ == '\n';
        if (p < e && *p == ',') {
            p++;
            continue;
        }
        if (p < e && *p == ']') break;
        return false;
    }
    L->p = p + 1;
    L->line = line;
    L->depth--;
    L->expect = L->depth ? X_AFTER : X_DONE;
    *count = n;
    return true;
}

/* An array of integers, checked and counted; the second pass reads it again. */
static int int_array(jlex *L, uint64_t *count, const char *what)
{
    jtok t;
    int rc = want(L, &t, J_ARR, what);
    if (rc) return rc;
    if (int_array_fast(L, count)) return CGPROP_OK;
    uint64_t n = 0;
    for (;;) {
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_ARR_END) break;
        if (t.type != J_NUM || !t.is_int) return jfail(L, what);
        if (t.ovf) return cgprop__read_fail(L->err, CGPROP_EOVERFLOW, L->line, "number too large in %s", what);
        n++;
    }
    *count = n;
    return CGPROP_OK;
}

static int read_nodes(v8r *v, jlex *L)
{
    jtok t;
    int rc = want(L, &t, J_ARR, "nodes is not an array");
    if (rc) return rc;
    for (;;) {
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_ARR_END) return CGPROP_OK;
        if (t.type != J_OBJ) return jfail(L, "a node is not an object");
        if (read_node_fast(v, L, &rc)) {
            if (rc) return rc;
            continue;
        }
        if ((rc = read_node(v, L))) return rc;
    }
}

/* ---- heap profiles: V8's sampling heap profiler, a tree in "head" ---- */

#define LEGACY_HEAD "the legacy \"head\" profile tree is not read; save the profile again"

/* A node of a heap profile's tree, its '{' read: the root (parent
 * NO_NODE) or a child of parent. Its depth is known at once: the tree
 * gives each node inside its parent. */
static int heap_node(v8r *v, const jlex *L, uint32_t parent, uint32_t *out)
{
    if (!grow(v, (void **)&v->nodes, &v->ncap, v->nn, sizeof *v->nodes)) return v8_oom(v, L->line);
    if (v->nn >= NO_NODE - 1) return cgprop__read_fail(v->err, CGPROP_EFORMAT, L->line, "too many nodes");
    vnode *nd = &v->nodes[v->nn];
    memset(nd, 0, sizeof *nd);
    nd->parent = parent;
    nd->depth = parent == NO_NODE ? 1 : v->nodes[parent].depth + 1;
    nd->line = L->line;
    *out = (uint32_t)v->nn++;
    return CGPROP_OK;
}

/* A heap profile's tree, its "head" key read: each node with its call
 * frame, id and selfSize (the sampled bytes allocated there), its children
 * nested in it. Walked without recursion and without the tokenizer's stack
 * (see jflatten): cur is the open node, its parent link the way back. The
 * bytes go where a .cpuprofile's time goes (metric 0). A hitCount marks the
 * CPU profile format that also had a "head" tree: V8 gives every node of
 * that one a hitCount, and never a heap profile's node. Out of line: the
 * events loop of a trace, inlined where this is called, keeps its
 * registers. */
static CGPROP__NOINLINE int read_heap_tree(v8r *v, jlex *L)
{
    jtok t;
    int rc = want(L, &t, J_OBJ, "head is not an object");
    if (rc) return rc;
    uint32_t base = L->depth, cur = NO_NODE;
    bool opened = true; /* a node's '{' just read, cur its parent */
    for (;;) {
        if (opened && (rc = heap_node(v, L, cur, &cur))) return rc;
        opened = false;
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_OBJ_END) {
            const vnode *nd = &v->nodes[cur];
            if (!(nd->seen & SEEN_ID)) return jfail(L, "node without id");
            if (!(nd->seen & SEEN_FRAME)) return jfail(L, "node without callFrame");
            if (!(nd->seen & SEEN_SELF)) return jfail(L, "node without selfSize");
            cur = nd->parent;
            if (cur == NO_NODE) return CGPROP_OK;
            jresume(L, base);
        } else if (key_is(&t, "children")) {
            if ((rc = want(L, &t, J_ARR, "children is not an array"))) return rc;
        } else {
            if (key_is(&t, "id")) {
                if ((rc = want_int(L, &t, "node id is not an integer"))) return rc;
                v->nodes[cur].id = t.iv;
                v->nodes[cur].seen |= SEEN_ID;
            } else if (key_is(&t, "selfSize")) {
                if ((rc = want_int(L, &t, "selfSize is not an integer"))) return rc;
                if (t.iv < 0) return jfail(L, "negative selfSize");
                v->nodes[cur].time = (uint64_t)t.iv;
                v->nodes[cur].seen |= SEEN_SELF;
            } else if (key_is(&t, "callFrame")) {
                if ((rc = read_call_frame(v, L, &v->nodes[cur]))) return rc;
                v->nodes[cur].seen |= SEEN_FRAME;
            } else if (key_is(&t, "hitCount")) {
                return jfail(L, LEGACY_HEAD);
            } else if ((rc = jnext(L, &t)) || (rc = jskip(L, &t))) {
                return rc;
            }
            continue;
        }
        /* Inside cur's children: the next child, or their end. */
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_OBJ) {
            jflatten(L, base);
            opened = true;
        } else if (t.type != J_ARR_END) {
            return jfail(L, "a child node is not an object");
        }
    }
}

/* ---- traces: the Trace Event Format, CPU profiles in Profile and
 * ProfileChunk events, or whole in CpuProfile events ---- */

/* A lexer for a value the first pass has checked and left at `at`: errors
 * it meets name the same line and byte as the whole input's would. */
static void jsub(jlex *S, const jlex *L, const char *at, uint64_t line)
{
    jinit(S, L->b, (size_t)(L->end - L->b), L->err);
    S->p = at;
    S->line = line;
}

/* The next value as written, for ids: a string (with its quotes) or a
 * number; anything else is skipped and gives an empty span. */
static int raw_scalar(jlex *L, vspan *out)
{
    jtok t;
    jws(L);
    const char *at = L->p;
    int rc = jnext(L, &t);
    if (rc) return rc;
    out->s = at;
    out->n = t.type == J_STR || t.type == J_NUM ? (size_t)(L->p - at) : 0;
    return jskip(L, &t);
}

static bool span_eq(vspan a, vspan b) { return a.n == b.n && (a.n == 0 || memcmp(a.s, b.s, a.n) == 0); }

static int span_cmp(vspan a, vspan b)
{
    size_t n = a.n < b.n ? a.n : b.n;
    int c = n ? memcmp(a.s, b.s, n) : 0;
    return c ? c : (a.n > b.n) - (a.n < b.n);
}

/* Whether a string token, escapes decoded, is w. */
static bool str_is(const jtok *t, const char *w)
{
    size_t n = strlen(w);
    if (!t->esc) return t->n == n && memcmp(t->s, w, n) == 0;
    char buf[32];
    if (t->n > sizeof buf) return false;
    return jdecode(t->s, t->n, buf) == n && memcmp(buf, w, n) == 0;
}

/* The profile's origin, which DevTools goes by when one thread has
 * several profiles; other strings are no source. */
static int read_source(jlex *L, unsigned char *src)
{
    jtok t;
    int rc = jnext(L, &t);
    if (rc) return rc;
    if (t.type != J_STR) return jskip(L, &t);
    if (str_is(&t, "Internal")) *src = SRC_INTERNAL;
    else if (str_is(&t, "Inspector")) *src = SRC_INSPECTOR;
    else if (str_is(&t, "SelfProfiling")) *src = SRC_SELF;
    return CGPROP_OK;
}

/* A sample array's or a delta array's place and length: int_array checks
 * and counts it, the sample pass reads it. */
static int locate_array(jlex *L, const char **at, uint64_t *line, uint64_t *n, const char *what)
{
    jws(L);
    *at = L->p;
    *line = L->line;
    return int_array(L, n, what);
}

/* The event's args, checked by the first pass, read again now that its
 * name is known (Chromium writes args before name). A Profile event gives
 * the source; a chunk its nodes, samples, timeDeltas and source. A
 * CpuProfile event's cpuProfile is a .cpuprofile, read for the same keys
 * (timeDeltas and startTime in it); DevTools takes no source from it. Other
 * keys, at every level, are skipped. */
static CGPROP__NOINLINE int read_args(jlex *S, unsigned char *src, vchunk *c)
{
    jtok t;
    bool whole = c && c->whole;
    int rc = want(S, &t, J_OBJ, "args is not an object");
    if (rc) return rc;
    while (!(rc = jnext(S, &t)) && t.type != J_OBJ_END) {
        if (!key_is(&t, "data")) {
            if (!(rc = jnext(S, &t))) rc = jskip(S, &t);
            if (rc) return rc;
            continue;
        }
        if ((rc = want(S, &t, J_OBJ, "args.data is not an object"))) return rc;
        while (!(rc = jnext(S, &t)) && t.type != J_OBJ_END) {
            if (!whole && key_is(&t, "source")) {
                rc = read_source(S, src);
            } else if (c && !whole && key_is(&t, "timeDeltas")) {
                rc = locate_array(S, &c->seg.deltas_at, &c->seg.deltas_line, &c->ndeltas,
                                  "timeDeltas is not an array of integers");
            } else if (c && key_is(&t, "cpuProfile")) {
                if ((rc = want(S, &t, J_OBJ, "cpuProfile is not an object"))) return rc;
                while (!(rc = jnext(S, &t)) && t.type != J_OBJ_END) {
                    if (key_is(&t, "nodes")) {
                        jws(S);
                        c->nodes_at = S->p;
                        c->nodes_line = S->line;
                        if ((rc = want(S, &t, J_ARR, "nodes is not an array"))) return rc;
                        rc = jskip(S, &t);
                    } else if (key_is(&t, "samples")) {
                        rc = locate_array(S, &c->seg.samples_at, &c->seg.samples_line, &c->seg.n,
                                          "samples is not an array of integers");
                    } else if (whole && key_is(&t, "timeDeltas")) {
                        rc = locate_array(S, &c->seg.deltas_at, &c->seg.deltas_line, &c->ndeltas,
                                          "timeDeltas is not an array of integers");
                    } else if (whole && key_is(&t, "startTime")) {
                        if (!(rc = want_int(S, &t, "startTime is not an integer"))) c->start = t.iv;
                    } else if (whole && key_is(&t, "head")) {
                        /* Times in seconds, a hit count on every node: the
                         * profile format V8 wrote before "nodes". */
                        return jfail(S, "a CpuProfile in the legacy \"head\" format is not read");
                    } else if (!(rc = jnext(S, &t))) {
                        rc = jskip(S, &t);
                    }
                    if (rc) return rc;
                }
            } else if (!(rc = jnext(S, &t))) {
                rc = jskip(S, &t);
            }
            if (rc) return rc;
        }
        if (rc) return rc;
    }
    return rc;
}

static int read_event_args(const jlex *L, const char *at, uint64_t line, unsigned char *src, vchunk *c)
{
    jlex S;
    jsub(&S, L, at, line);
    return read_args(&S, src, c);
}

/* One event, its '{' read. Every event is checked; only Profile,
 * ProfileChunk and CpuProfile events (matched by name, as DevTools does)
 * are kept, and of those only ids, places and counts: nothing is built
 * here. */
static int read_event(v8r *v, jlex *L)
{
    jtok t;
    vspan pid = {NULL, 0}, tid = {NULL, 0}, id = {NULL, 0};
    const char *args = NULL;
    uint64_t args_line = 0, line = L->line;
    int kind = 0; /* 1 Profile, 2 ProfileChunk, 3 CpuProfile */
    int args_kind = 0; /* the kind the args were read for as they came */
    vchunk c0;
    unsigned char src = SRC_NONE;
    int rc;
    while (!(rc = jnext(L, &t)) && t.type != J_OBJ_END) {
        if (key_is(&t, "args")) {
            jws(L);
            args = L->p;
            args_line = L->line;
            args_kind = kind;
            if (kind) {
                /* The name came first, as DevTools writes its own events:
                 * the args (a CpuProfile's, the whole profile) are read as
                 * they come, not skipped and read again. */
                memset(&c0, 0, sizeof c0);
                c0.whole = kind == 3;
                src = SRC_NONE;
                rc = read_args(L, &src, kind == 1 ? NULL : &c0);
            } else if (!(rc = jnext(L, &t))) {
                rc = jskip(L, &t);
            }
        } else if (key_is(&t, "name")) {
            if (!(rc = jnext(L, &t)) && t.type == J_STR)
                kind = str_is(&t, "ProfileChunk") ? 2 : str_is(&t, "Profile") ? 1 : str_is(&t, "CpuProfile") ? 3 : 0;
            else if (!rc)
                rc = jskip(L, &t);
        } else if (key_is(&t, "pid")) {
            rc = raw_scalar(L, &pid);
        } else if (key_is(&t, "tid")) {
            rc = raw_scalar(L, &tid);
        } else if (key_is(&t, "id")) {
            rc = raw_scalar(L, &id);
        } else if (!(rc = jnext(L, &t))) {
            rc = jskip(L, &t);
        }
        if (rc) return rc;
    }
    if (rc) return rc;
    uint64_t seq = v->nev++;
    if (kind == 0) return CGPROP_OK;
    /* Chromium writes args before name; a name after the args may also
     * have changed the kind they were read for. */
    if (args_kind != kind) {
        memset(&c0, 0, sizeof c0);
        c0.whole = kind == 3;
        src = SRC_NONE;
        if (args && (rc = read_event_args(L, args, args_line, &src, kind == 1 ? NULL : &c0))) return rc;
    }
    uint32_t prof = NO_CHUNK;
    if (kind != 2) {
        if (v->np >= NO_CHUNK - 1) return cgprop__read_fail(v->err, CGPROP_EFORMAT, line, "too many profiles");
        if (!grow(v, (void **)&v->profs, &v->pcap, v->np, sizeof *v->profs)) return v8_oom(v, line);
        prof = (uint32_t)v->np;
        vprof *p = &v->profs[v->np++];
        memset(p, 0, sizeof *p);
        p->pid = pid;
        p->tid = tid;
        p->id = id;
        p->line = line;
        p->seq = seq;
        p->first = p->last = NO_CHUNK;
        p->whole = kind == 3;
        if (kind == 1) {
            p->source = src;
            return CGPROP_OK;
        }
    }
    if (v->nc >= NO_CHUNK - 1) return cgprop__read_fail(v->err, CGPROP_EFORMAT, line, "too many profile chunks");
    if (!grow(v, (void **)&v->chunks, &v->ccap, v->nc, sizeof *v->chunks)) return v8_oom(v, line);
    vchunk *c = &v->chunks[v->nc++];
    *c = c0;
    c->pid = pid;
    c->id = id;
    c->line = line;
    c->seq = seq;
    c->prof = prof;
    c->next = NO_CHUNK;
    c->source = src;
    if (c->whole) {
        /* DevTools cannot load a trace whose CpuProfile has no nodes. */
        if (!c->nodes_at)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, line,
                                     "a CpuProfile event without args.data.cpuProfile.nodes");
        /* As in a .cpuprofile: without samples, the hit counts; without
         * deltas, no time; with both, a delta for each sample. */
        if (c->seg.samples_at && c->seg.deltas_at && c->seg.n != c->ndeltas)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, c->seg.deltas_line,
                                     "%llu samples but %llu timeDeltas in a CpuProfile",
                                     (unsigned long long)c->seg.n, (unsigned long long)c->ndeltas);
        return CGPROP_OK;
    }
    /* Each sample comes with its delta, in the same chunk (DevTools
     * reports a profile whose two lists part as one it cannot parse). */
    if (c->seg.n != c->ndeltas)
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, c->seg.deltas_at ? c->seg.deltas_line : c->line,
                                 "%llu samples but %llu timeDeltas in a ProfileChunk",
                                 (unsigned long long)c->seg.n, (unsigned long long)c->ndeltas);
    return CGPROP_OK;
}

/* A bare array of events may end without its closing bracket (and after a
 * comma), as the Trace Event Format allows for a trace cut short. */
static bool cut_short(jlex *L)
{
    jws(L);
    const char *p = L->p;
    if (p < L->end && *p == ',' && L->expect == X_AFTER) {
        p++;
        while (p < L->end && json_space(*p)) p++;
    }
    if (p < L->end) return false;
    for (; L->p < p; L->p++) L->line += *L->p == '\n';
    L->depth = 0;
    L->expect = X_DONE;
    return true;
}

/* The events array, its '[' read. */
static int read_events(v8r *v, jlex *L, bool bare)
{
    jtok t;
    int rc;
    v->trace = true;
    for (;;) {
        if (bare && L->depth == 1 && cut_short(L)) return CGPROP_OK;
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_ARR_END) return CGPROP_OK;
        if (t.type != J_OBJ) return jfail(L, "a trace event is not an object");
        if ((rc = read_event(v, L))) return rc;
    }
}

static int parse(v8r *v, jlex *L)
{
    jtok t;
    int rc = jnext(L, &t);
    if (rc) return rc;
    if (t.type == J_ARR) {
        if ((rc = read_events(v, L, true))) return rc;
        return jnext(L, &t); /* only blanks may follow */
    }
    if (t.type != J_OBJ) return jfail(L, "a .cpuprofile is a JSON object, a trace an object or an array");
    bool has_nodes = false;
    for (;;) {
        if ((rc = jnext(L, &t))) return rc;
        if (t.type == J_OBJ_END) break;
        if (key_is(&t, "traceEvents")) {
            if (has_nodes)
                return jfail(L, "both nodes and traceEvents: a .cpuprofile or a trace, not both");
            if (v->heap) return jfail(L, "both head and traceEvents: a heap profile or a trace, not both");
            if ((rc = want(L, &t, J_ARR, "traceEvents is not an array"))) return rc;
            if ((rc = read_events(v, L, false))) return rc;
        } else if (v->trace) {
            /* A trace's other keys (metadata, ...), whatever their name. */
            if ((rc = jnext(L, &t))) return rc;
            if ((rc = jskip(L, &t))) return rc;
        } else if (key_is(&t, "nodes")) {
            if (v->heap) return jfail(L, "both head and nodes: a heap profile or a .cpuprofile, not both");
            has_nodes = true;
            if ((rc = read_nodes(v, L))) return rc;
        } else if (key_is(&t, "samples") || key_is(&t, "timeDeltas")) {
            bool is_s = key_is(&t, "samples");
            jws(L);
            if (is_s && L->p < L->end && *L->p == '[') {
                /* The Trace Event Format's own "samples" list holds
                 * objects: skipped, in case traceEvents follows. */
                const char *q = L->p + 1;
                uint64_t line = L->line;
                while (q < L->end && json_space(*q)) line += *q++ == '\n';
                if (q < L->end && *q == '{') {
                    v->objs_at = L->p;
                    v->objs_line = line;
                    if (!(rc = jnext(L, &t))) rc = jskip(L, &t);
                    if (rc) return rc;
                    continue;
                }
            }
            if (is_s) {
                v->samples_at = L->p;
                v->samples_line = L->line;
                v->has_samples = true;
                rc = int_array(L, &v->nsamples, "samples is not an array of integers");
            } else {
                v->deltas_at = L->p;
                v->deltas_line = L->line;
                v->has_deltas = true;
                rc = int_array(L, &v->ndeltas, "timeDeltas is not an array of integers");
            }
            if (rc) return rc;
        } else if (key_is(&t, "startTime")) {
            if ((rc = want_int(L, &t, "startTime is not an integer"))) return rc;
            v->start = t.iv;
            v->has_start = true;
        } else if (key_is(&t, "head")) {
            if (has_nodes) return jfail(L, "both nodes and head: a .cpuprofile or a heap profile, not both");
            if (v->heap) return jfail(L, "a second head tree");
            /* The graph was made with a .cpuprofile's metric names. */
            if (cgprop__graph_rename_metric(v->g, 0, "bytes")) return v8_oom(v, L->line);
            v->heap = true;
            if ((rc = read_heap_tree(v, L))) return rc;
        } else {
            if ((rc = jnext(L, &t))) return rc;
            if ((rc = jskip(L, &t))) return rc;
        }
    }
    if ((rc = jnext(L, &t))) return rc; /* only blanks may follow */
    if (v->trace) return CGPROP_OK;
    if (v->heap) {
        /* An empty list reads as one of numbers; a heap profile's holds
         * objects. */
        if (v->has_samples && v->nsamples)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->samples_line, "samples is not an array of objects");
        return CGPROP_OK;
    }
    if (v->objs_line)
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->objs_line, "samples is not an array of integers");
    if (!has_nodes || v->nn == 0) return cgprop__read_fail(v->err, CGPROP_EFORMAT, L->line, "no nodes in the profile");
    if (v->has_samples && v->has_deltas && v->nsamples != v->ndeltas)
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->deltas_line,
                                 "%llu samples but %llu timeDeltas", (unsigned long long)v->nsamples,
                                 (unsigned long long)v->ndeltas);
    return CGPROP_OK;
}

static int cmp_idx(const void *a, const void *b)
{
    const vidx *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t find(const v8r *v, int64_t id)
{
    if (v->dense) {
        if (id < v->base) return NO_NODE;
        uint64_t d = (uint64_t)id - (uint64_t)v->base;
        return d < v->nn ? (v->ident ? (uint32_t)d : v->idx[d].i) : NO_NODE;
    }
    size_t lo = 0, hi = v->nn;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->idx[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->nn && v->idx[lo].id == id ? v->idx[lo].i : NO_NODE;
}

static int set_parent(v8r *v, uint32_t child, uint32_t parent, uint64_t line)
{
    vnode *c = &v->nodes[child];
    if (child == parent)
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, line, "node %lld is its own child", (long long)c->id);
    if (c->parent != NO_NODE && c->parent != parent)
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, line, "node %lld has two parents", (long long)c->id);
    c->parent = parent;
    return CGPROP_OK;
}

/* Ids to indexes, parent links, and the depth of every node; a cycle of
 * parent links never reaches a root and is refused. */
static int link(v8r *v)
{
    /* V8 lists its nodes by id, 1, 2, 3, ...: then node i is id base + i,
     * found by subtraction alone, with no sorted copy of the ids. */
    bool run = true;
    for (size_t i = 1; i < v->nn && run; i++)
        run = v->nodes[i - 1].id < INT64_MAX && v->nodes[i].id == v->nodes[i - 1].id + 1;
    if (run) {
        v->base = v->nodes[0].id;
        v->dense = v->ident = true;
    } else if ((v->idx = cgprop__realloc(v->g, NULL, v->nn, sizeof *v->idx))) {
        for (size_t i = 0; i < v->nn; i++) {
            v->idx[i].id = v->nodes[i].id;
            v->idx[i].i = (uint32_t)i;
        }
        qsort(v->idx, v->nn, sizeof *v->idx, cmp_idx);
        for (size_t i = 1; i < v->nn; i++)
            if (v->idx[i].id == v->idx[i - 1].id)
                return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->nodes[v->idx[i].i].line, "duplicate node id %lld",
                                         (long long)v->idx[i].id);
        /* Sorted and distinct: a run exactly when the span is nn - 1. */
        v->base = v->idx[0].id;
        v->dense = (uint64_t)v->idx[v->nn - 1].id - (uint64_t)v->base == (uint64_t)(v->nn - 1);
    }
    if (!v->ident && !v->idx) return v8_oom(v, 0);
    for (size_t e = 0; e < v->ne; e++) {
        uint32_t c = find(v, v->edges[e].child);
        if (c == NO_NODE)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->edges[e].line, "child id %lld names no node",
                                     (long long)v->edges[e].child);
        int rc = set_parent(v, c, v->edges[e].parent, v->edges[e].line);
        if (rc) return rc;
    }
    for (size_t i = 0; i < v->nn; i++) {
        if (!v->nodes[i].has_parent_id) continue;
        uint32_t p = find(v, v->nodes[i].parent_id);
        if (p == NO_NODE)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->nodes[i].line, "parent id %lld names no node",
                                     (long long)v->nodes[i].parent_id);
        int rc = set_parent(v, (uint32_t)i, p, v->nodes[i].line);
        if (rc) return rc;
    }
    /* depth: 0 unknown, UINT32_MAX on the path being walked. Walk up to a
     * node of known depth, then give depths on the way back down. */
    for (size_t i = 0; i < v->nn; i++) {
        uint32_t n = (uint32_t)i;
        while (v->nodes[n].depth == 0) {
            v->nodes[n].depth = UINT32_MAX;
            if (v->nodes[n].parent == NO_NODE) break;
            n = v->nodes[n].parent;
        }
        if (v->nodes[n].depth == UINT32_MAX && v->nodes[n].parent != NO_NODE)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->nodes[n].line,
                                     "node %lld is its own ancestor (a cycle in the tree)", (long long)v->nodes[n].id);
        /* n is now a root first met on this walk (depth 1), or a node of
         * known depth; the path from i up to n gets the depths below it. */
        if (v->nodes[n].depth == UINT32_MAX) v->nodes[n].depth = 1;
        uint32_t d = v->nodes[n].depth;
        uint32_t len = 0;
        for (uint32_t m = (uint32_t)i; m != n; m = v->nodes[m].parent) len++;
        if (len > UINT32_MAX - 2 - d)
            return cgprop__read_fail(v->err, CGPROP_EFORMAT, v->nodes[i].line, "tree too deep");
        for (uint32_t m = (uint32_t)i; m != n; m = v->nodes[m].parent) v->nodes[m].depth = d + len--;
    }
    return CGPROP_OK;
}

/* The integers of an array checked in the first pass. */
typedef struct iarr {
    const char *p;
    uint64_t line;
    const char *e; /* the input's end */
} iarr;

static int64_t inext(iarr *a)
{
    while (*a->p == ' ' || *a->p == '\t' || *a->p == '\r' || *a->p == '\n' || *a->p == ',' || *a->p == '[') {
        if (*a->p == '\n') a->line++;
        a->p++;
    }
    bool neg = *a->p == '-';
    if (neg) a->p++;
    uint64_t x = 0;
#ifdef V8_SWAR
    if (a->e - a->p >= 8) {
        uint64_t w;
        unsigned k = swar_digits(a->p, &w);
        if (k && k < 8) {
            a->p += k;
            x = swar_value(w, k);
            return neg ? -(int64_t)x : (int64_t)x;
        }
    }
#endif
    while (cgprop__is_digit(*a->p)) x = x * 10 + (uint64_t)(*a->p++ - '0');
    return neg ? (x == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)x) : (int64_t)x;
}

static int no_node(v8r *v, uint64_t line, int64_t id)
{
    return cgprop__read_fail(v->err, CGPROP_EFORMAT, line, "sample names no node: %lld", (long long)id);
}

/* A heap profile's samples, {"size":N,"nodeId":N,"ordinal":N} each, one
 * live sampled allocation: counted on the node each names. Only nodeId is
 * read; size and ordinal, like any other key, are checked as JSON (the
 * first pass did) and skipped. A sample naming no node of the tree is not
 * counted: V8 writes such samples itself, allocations it sampled while it
 * built the profile, after it had written the tree (their node is not in
 * it), and DevTools passes over them too. */
static CGPROP__NOINLINE int heap_samples(v8r *v, const jlex *L)
{
    jlex S;
    jsub(&S, L, v->objs_at, v->objs_line);
    jtok t;
    int rc = want(&S, &t, J_ARR, "samples is not an array");
    while (!rc && !(rc = jnext(&S, &t)) && t.type != J_ARR_END) {
        if (t.type != J_OBJ) return jfail(&S, "a sample is not an object");
        int64_t id = 0;
        bool has = false;
        while (!(rc = jnext(&S, &t)) && t.type != J_OBJ_END) {
            if (key_is(&t, "nodeId")) {
                if ((rc = want_int(&S, &t, "nodeId is not an integer"))) return rc;
                id = t.iv;
                has = true;
            } else if ((rc = jnext(&S, &t)) || (rc = jskip(&S, &t))) {
                return rc;
            }
        }
        if (rc) return rc;
        if (!has) return jfail(&S, "sample without nodeId");
        uint32_t nd = find(v, id);
        if (nd != NO_NODE) v->nodes[nd].samples++;
    }
    return rc;
}

static int sample_node(v8r *v, iarr *a, uint32_t *out)
{
    int64_t id = inext(a);
    *out = find(v, id);
    return *out == NO_NODE ? no_node(v, a->line, id) : CGPROP_OK;
}

static int add_ts(v8r *v, int64_t *ts, int64_t d, uint64_t line)
{
    if ((d > 0 && *ts > INT64_MAX - d) || (d < 0 && *ts < INT64_MIN - d))
        return cgprop__read_fail(v->err, CGPROP_EOVERFLOW, line, "time stamps overflow 64 bits");
    *ts += d;
    return CGPROP_OK;
}

typedef struct tsamp {
    int64_t ts;
    uint64_t i;
    uint32_t node;
} tsamp;

static int cmp_ts(const void *a, const void *b)
{
    const tsamp *x = a, *y = b;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static int add_time(v8r *v, uint32_t node, uint64_t dt, uint64_t line)
{
    if (v->nodes[node].time > UINT64_MAX - dt)
        return cgprop__read_fail(v->err, CGPROP_EOVERFLOW, line, "a cost sum overflows 64 bits");
    v->nodes[node].time += dt;
    return CGPROP_OK;
}

/* DevTools' timeline: the samples in time order, each lasting until the
 * next one, the last one the mean interval (DevTools appends a time stamp
 * that far after the last), here rounded to the µs. Time stamps are
 * startTime plus the running sum of timeDeltas. V8 writes deltas in sampling
 * order, which can step back; DevTools then sorts the samples by time stamp
 * (stably), and so does this. */
static uint64_t last_lasts(int64_t first, int64_t last, uint64_t n)
{
    uint64_t span = (uint64_t)last - (uint64_t)first;
    return n < 2 ? 0 : span / (n - 1) + (span % (n - 1) >= (n - 1) - (n - 1) / 2 ? 1 : 0);
}

/* On a large profile the samples name nodes all over the node array, a
 * miss each: the ids of a chunk are decoded first and their nodes asked
 * for, so that the misses overlap. A chunk stops before an id that names
 * no node; that id's error is given when the samples before it are in, as
 * it would be one sample at a time. */
#define V8_CHUNK 32

typedef struct schunk {
    uint32_t nd[V8_CHUNK];
    uint32_t n;     /* ids decoded */
    bool bad;       /* nd[n] would be an id naming no node */
    int64_t bad_id;
    uint64_t bad_line;
} schunk;

static void sample_chunk(const v8r *v, iarr *a, uint64_t left, schunk *c)
{
    uint32_t m = left < V8_CHUNK ? (uint32_t)left : V8_CHUNK;
    c->n = 0;
    c->bad = false;
    while (c->n < m) {
        int64_t id = inext(a);
        uint32_t nd = find(v, id);
        if (nd == NO_NODE) {
            c->bad = true;
            c->bad_id = id;
            c->bad_line = a->line;
            return;
        }
        CGPROP__PREFETCH_W(&v->nodes[nd].samples);
        c->nd[c->n++] = nd;
    }
}

/* The samples of nseg stretches, total in all, one after the other as one
 * list (a trace profile's chunks continue each other's time stamps);
 * without deltas, only counted. */
static int sample_pass(v8r *v, const vseg *sg, size_t nseg, uint64_t total, bool deltas)
{
    int64_t ts = v->start;
    int64_t prev_ts = 0, first_ts = 0;
    uint32_t prev = NO_NODE;
    uint64_t dline = 0;
    bool sorted = true;
    int rc;
    schunk c;
    for (size_t k = 0; k < nseg && sorted; k++) {
        iarr s = {sg[k].samples_at, sg[k].samples_line, v->end};
        iarr d = {sg[k].deltas_at, sg[k].deltas_line, v->end};
        for (uint64_t i = 0; i < sg[k].n && sorted;) {
            sample_chunk(v, &s, sg[k].n - i, &c);
            for (uint32_t j = 0; j < c.n; j++, i++) {
                uint32_t nd = c.nd[j];
                v->nodes[nd].samples++;
                if (!deltas) continue;
                if ((rc = add_ts(v, &ts, inext(&d), d.line))) return rc;
                if (prev != NO_NODE) {
                    if (ts < prev_ts) {
                        sorted = false;
                        break;
                    }
                    if ((rc = add_time(v, prev, (uint64_t)ts - (uint64_t)prev_ts, d.line))) return rc;
                } else {
                    first_ts = ts;
                }
                prev = nd;
                prev_ts = ts;
            }
            if (sorted && c.bad) return no_node(v, c.bad_line, c.bad_id);
        }
        dline = d.line;
    }
    if (sorted) {
        if (prev == NO_NODE) return CGPROP_OK;
        return add_time(v, prev, last_lasts(first_ts, prev_ts, total), dline);
    }

    for (size_t i = 0; i < v->nn; i++) v->nodes[i].samples = v->nodes[i].time = 0;
    if (total > SIZE_MAX / sizeof(tsamp)) return v8_oom(v, 0);
    tsamp *a = cgprop__realloc(v->g, NULL, (size_t)total, sizeof *a);
    if (!a) return v8_oom(v, sg[0].samples_line);
    ts = v->start;
    rc = CGPROP_OK;
    uint64_t m = 0;
    for (size_t k = 0; k < nseg && !rc; k++) {
        iarr s = {sg[k].samples_at, sg[k].samples_line, v->end};
        iarr d = {sg[k].deltas_at, sg[k].deltas_line, v->end};
        for (uint64_t i = 0; i < sg[k].n && !rc; i++, m++) {
            rc = sample_node(v, &s, &a[m].node);
            if (!rc) rc = add_ts(v, &ts, inext(&d), d.line);
            a[m].ts = ts;
            a[m].i = m;
        }
    }
    if (!rc) qsort(a, (size_t)total, sizeof *a, cmp_ts);
    for (uint64_t i = 0; i < total && !rc; i++) {
        v->nodes[a[i].node].samples++;
        uint64_t dt = i + 1 < total ? (uint64_t)a[i + 1].ts - (uint64_t)a[i].ts : last_lasts(a[0].ts, a[i].ts, total);
        rc = add_time(v, a[i].node, dt, sg[nseg - 1].deltas_line);
    }
    cgprop__free(v->g, a);
    return rc;
}

/* The tree spells each path once, while every sampled node adds its whole
 * path: a long chain of sampled nodes would cost the square of its length.
 * Past this many frames in all, the profile is refused rather than read for
 * hours. */
static uint64_t frame_budget(size_t len)
{
    uint64_t b = (uint64_t)len * 16u;
    return b > ((uint64_t)1 << 26) ? b : (uint64_t)1 << 26;
}

static int add_stacks(v8r *v, size_t len)
{
    uint32_t maxd = 0;
    /* The budget is the whole input's, shared by a trace's profiles. */
    uint64_t frames = v->frames;
    for (size_t i = 0; i < v->nn; i++) {
        if (v->nodes[i].depth > maxd) maxd = v->nodes[i].depth;
        if (v->nodes[i].samples || v->nodes[i].time) frames += v->nodes[i].depth;
    }
    v->frames = frames;
    if (frames > frame_budget(len))
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, 0,
                                 "the sampled paths hold %llu frames in all, more than this reader takes from %llu bytes",
                                 (unsigned long long)frames, (unsigned long long)len);
    /* The nodes are taken depth first from each root (roots, and each
     * node's children, in the order of their index), so that the path of
     * each differs from the previous one's below their common ancestor
     * only: V8 writes the nodes in this order, and an input in another
     * gives the same figures at the same cost (only the calls' ids follow
     * the walk, not the file). pf[j] is the function of the
     * path's node at depth j + 1 (NO_FN for "(root)"); rdep holds the
     * depths (> 1) of the path's "(root)" frames not yet given their
     * function. */
    size_t nn = v->nn;
    uint32_t *pf = cgprop__realloc(v->g, NULL, (size_t)maxd + 1, sizeof *pf);
    uint32_t *rdep = cgprop__realloc(v->g, NULL, (size_t)maxd + 1, sizeof *rdep);
    uint32_t *first = cgprop__calloc(v->g, nn + 1, sizeof *first);
    uint32_t *kids = cgprop__alloc(v->g, nn ? nn : 1, sizeof *kids);
    vdfs *st = cgprop__alloc(v->g, nn ? nn : 1, sizeof *st);
    int rc = CGPROP_OK;
    if (!pf || !rdep || !first || !kids || !st) {
        rc = v8_oom(v, 0);
        goto out;
    }
    for (size_t i = 0; i < nn; i++)
        if (v->nodes[i].parent != NO_NODE) first[v->nodes[i].parent + 1]++;
    for (size_t i = 0; i < nn; i++) first[i + 1] += first[i];
    for (size_t i = 0; i < nn; i++)
        if (v->nodes[i].parent != NO_NODE) kids[first[v->nodes[i].parent]++] = (uint32_t)i;
    for (size_t i = nn; i > 0; i--) first[i] = first[i - 1];
    first[0] = 0;
    size_t nr = 0;
    for (size_t r = 0; r < nn && !rc; r++) {
        if (v->nodes[r].parent != NO_NODE) continue;
        size_t sp = 0;
        st[sp].node = (uint32_t)r;
        st[sp++].depth = 1;
        while (sp && !rc) {
            sp--;
            uint32_t m = st[sp].node, d = st[sp].depth;
            const vnode *nd = &v->nodes[m];
            while (nr && rdep[nr - 1] >= d) nr--;
            pf[d - 1] = nd->fn;
            if (nd->fn == NO_FN && d > 1) rdep[nr++] = d;
            for (uint32_t k = first[m + 1]; k-- > first[m];) {
                st[sp].node = kids[k];
                st[sp++].depth = d + 1;
            }
            if (!nd->samples && !nd->time) continue;
            /* The root frame "(root)" is dropped unless it is the sample's
             * only frame; a "(root)" frame below the root is one function,
             * made when a sample first passes through one and written into
             * pf for the rest of its subtree. pf[0] stays NO_FN, so that
             * every path through the same root drops it. */
            if (nr || (d == 1 && pf[0] == NO_FN)) {
                if (v->root_fn == NO_FN && (rc = cgprop_graph_add_node(v->g, "\t0:0\t(root)", 11, &v->root_fn))) {
                    rc = cgprop__read_fail(v->err, rc, 0, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
                    break;
                }
                for (size_t t = 0; t < nr; t++) pf[rdep[t] - 1] = v->root_fn;
                nr = 0;
            }
            const uint32_t *stack = pf;
            size_t n = d;
            if (pf[0] == NO_FN) {
                stack = d > 1 ? pf + 1 : &v->root_fn;
                n = d > 1 ? d - 1 : 1;
            }
            uint64_t w[2] = {nd->time, nd->samples};
            rc = cgprop_graph_add_stack(v->g, stack, n, w);
            if (rc == CGPROP_EOVERFLOW) rc = cgprop__read_fail(v->err, rc, nd->line, "a cost sum overflows 64 bits");
            else if (rc) rc = cgprop__read_fail(v->err, rc, nd->line, "%s", cgprop_graph_errmsg(v->g));
        }
    }
out:
    cgprop__free(v->g, pf);
    cgprop__free(v->g, rdep);
    cgprop__free(v->g, first);
    cgprop__free(v->g, kids);
    cgprop__free(v->g, st);
    return rc;
}

/* ---- a trace's profiles ---- */

/* Profile and chunk events, or profiles by thread, sorted by their key. */
typedef struct vref {
    vspan a, b;
    uint64_t seq;
    uint32_t i;
    bool chunk;
} vref;

static int cmp_ref(const void *x, const void *y)
{
    const vref *p = x, *q = y;
    int c = span_cmp(p->a, q->a);
    if (!c) c = span_cmp(p->b, q->b);
    return c ? c : (p->seq > q->seq) - (p->seq < q->seq);
}

/* Each chunk goes to the last Profile event before it with its pid and id
 * (ids are scoped to a process, and an id met again after a profile's end
 * starts a new profile); a CpuProfile event is a profile with its one
 * chunk, whatever its id. Then, for each thread (the pid and tid of the
 * Profile or CpuProfile event), the one profile DevTools shows: the one
 * whose source is "Internal" (the Performance panel's own), else
 * "Inspector" (console.profile, the Profiler domain), else the thread's
 * first, in file order (a CpuProfile event gives no source). Two profiles
 * of one thread sample the same stacks over the same time: both would
 * count them twice. */
static int match(v8r *v, uint64_t end_line)
{
    size_t n = 0;
    vref *r = cgprop__realloc(v->g, NULL, v->np + v->nc ? v->np + v->nc : 1, sizeof *r);
    if (!r) return v8_oom(v, end_line);
    for (size_t i = 0; i < v->np; i++)
        if (!v->profs[i].whole) r[n++] = (vref){v->profs[i].pid, v->profs[i].id, v->profs[i].seq, (uint32_t)i, false};
    for (size_t i = 0; i < v->nc; i++)
        if (!v->chunks[i].whole)
            r[n++] = (vref){v->chunks[i].pid, v->chunks[i].id, v->chunks[i].seq, (uint32_t)i, true};
    qsort(r, n, sizeof *r, cmp_ref);
    uint32_t cur = NO_CHUNK, orphan = NO_CHUNK;
    for (size_t i = 0; i < n; i++) {
        if (i && (!span_eq(r[i].a, r[i - 1].a) || !span_eq(r[i].b, r[i - 1].b))) cur = NO_CHUNK;
        if (!r[i].chunk) cur = r[i].i;
        else if (cur != NO_CHUNK) v->chunks[r[i].i].prof = cur;
        else if (orphan == NO_CHUNK || r[i].i < orphan) orphan = r[i].i;
    }
    if (orphan != NO_CHUNK) {
        cgprop__free(v->g, r);
        const vchunk *c = &v->chunks[orphan];
        char id[40], pid[40];
        cgprop__excerpt(id, c->id.s, c->id.n, 32);
        cgprop__excerpt(pid, c->pid.s, c->pid.n, 32);
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, c->line,
                                 "a ProfileChunk of profile %s of process %s with no Profile event before it", id, pid);
    }
    for (size_t i = 0; i < v->nc; i++) {
        vchunk *c = &v->chunks[i];
        vprof *p = &v->profs[c->prof];
        if (p->last == NO_CHUNK) p->first = (uint32_t)i;
        else v->chunks[p->last].next = (uint32_t)i;
        p->last = (uint32_t)i;
        /* As DevTools: the last source given, by the Profile or a chunk. */
        if (c->source != SRC_NONE) p->source = c->source;
    }
    for (size_t i = 0; i < v->np; i++) r[i] = (vref){v->profs[i].pid, v->profs[i].tid, v->profs[i].seq, (uint32_t)i, false};
    qsort(r, v->np, sizeof *r, cmp_ref);
    for (size_t i = 0, j; i < v->np; i = j) {
        size_t pick = i;
        for (j = i + 1; j < v->np && span_eq(r[j].a, r[i].a) && span_eq(r[j].b, r[i].b); j++) {}
        static const unsigned char order[] = {SRC_INTERNAL, SRC_INSPECTOR};
        bool found = false;
        for (size_t o = 0; o < 2 && !found; o++)
            for (size_t k = i; k < j && !found; k++)
                if (v->profs[r[k].i].source == order[o]) {
                    pick = k;
                    found = true;
                }
        v->profs[r[pick].i].chosen = true;
    }
    cgprop__free(v->g, r);
    if (v->np == 0)
        return cgprop__read_fail(v->err, CGPROP_EFORMAT, end_line,
                                 "no CPU profile in the trace: no Profile or CpuProfile event (JavaScript samples were "
                                 "not recorded)");
    return CGPROP_OK;
}

static void reset_nodes(v8r *v)
{
    v->nn = v->ne = 0;
    cgprop__free(v->g, v->idx);
    v->idx = NULL;
    v->dense = v->ident = false;
    v->base = 0;
}

/* The chosen profiles one at a time, in file order: each one's nodes (of
 * all its chunks, their ids its own), then its samples, each chunk's after
 * the one before, then its stacks into the one graph. A CpuProfile
 * event's profile is a .cpuprofile's: its time stamps from its startTime,
 * its hit counts when it has no samples, no time without deltas. */
static int read_trace(v8r *v, const jlex *L)
{
    int rc = match(v, L->line);
    if (rc) return rc;
    vseg *sg = cgprop__realloc(v->g, NULL, v->nc ? v->nc : 1, sizeof *sg);
    if (!sg) return v8_oom(v, L->line);
    for (size_t i = 0; i < v->np && !rc; i++) {
        const vprof *p = &v->profs[i];
        if (!p->chosen) continue;
        reset_nodes(v);
        for (uint32_t k = p->first; k != NO_CHUNK && !rc; k = v->chunks[k].next) {
            if (!v->chunks[k].nodes_at) continue;
            jlex S;
            jsub(&S, L, v->chunks[k].nodes_at, v->chunks[k].nodes_line);
            rc = read_nodes(v, &S);
        }
        /* DevTools shows nothing for a profile without nodes. */
        if (rc || v->nn == 0) continue;
        if ((rc = link(v))) break;
        if (p->whole) {
            const vchunk *c = &v->chunks[p->first];
            v->start = c->start;
            if (c->seg.samples_at) {
                rc = sample_pass(v, &c->seg, 1, c->seg.n, c->seg.deltas_at != NULL);
            } else {
                for (size_t k = 0; k < v->nn; k++) v->nodes[k].samples = v->nodes[k].hit;
            }
            if (!rc) rc = add_stacks(v, v->len);
            continue;
        }
        v->start = 0;
        size_t nseg = 0;
        uint64_t total = 0;
        for (uint32_t k = p->first; k != NO_CHUNK; k = v->chunks[k].next)
            if (v->chunks[k].seg.n) {
                sg[nseg++] = v->chunks[k].seg;
                total += v->chunks[k].seg.n;
            }
        if (!(rc = sample_pass(v, sg, nseg, total, true))) rc = add_stacks(v, v->len);
    }
    cgprop__free(v->g, sg);
    return rc;
}

int cgprop__v8_read(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                    cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err)
{
    *out = NULL;
    v8r v;
    memset(&v, 0, sizeof v);
    v.err = err;
    v.root_fn = NO_FN;
    if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
        data += 3;
        len -= 3;
    }
    v.len = len;
    static const char *const names[] = {"time", "samples"};
    int rc = cgprop_graph_new(alloc, names, NULL, 2, &v.g);
    if (!rc && opts->contexts && (rc = cgprop_graph_keep_contexts(v.g, 1))) cgprop_graph_free(v.g);
    if (!rc) cgprop__graph_mark_sampled(v.g);
    if (!rc && (rc = cgprop__stacks_defer(v.g, true))) cgprop_graph_free(v.g);
    if (rc) return cgprop__read_fail(err, rc, 0, "out of memory");
    jlex L;
    jinit(&L, data, len, err);
    v.end = data + len;
    rc = parse(&v, &L);
    if (!rc && v.trace) {
        rc = read_trace(&v, &L);
    } else if (!rc && v.heap) {
        rc = link(&v);
        if (!rc && v.objs_line) rc = heap_samples(&v, &L);
        if (!rc) rc = add_stacks(&v, len);
    } else if (!rc) {
        rc = link(&v);
        if (!rc && v.has_samples) {
            vseg one = {v.samples_at, v.has_deltas ? v.deltas_at : NULL, v.samples_line, v.deltas_line, v.nsamples};
            rc = sample_pass(&v, &one, 1, v.nsamples, v.has_deltas);
        } else if (!rc) {
            /* No sample list: the hit counts are all there is. */
            for (size_t i = 0; i < v.nn; i++) v.nodes[i].samples = v.nodes[i].hit;
        }
        if (!rc) rc = add_stacks(&v, len);
    }
    if (!rc && (rc = cgprop__stacks_defer(v.g, false))) rc = cgprop__read_fail(err, rc, L.line, "out of memory");
    if (!rc && cgprop_graph_node_count(v.g) == 0)
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, L.line,
                               v.trace  ? "no sample in the trace's CPU profiles"
                               : v.heap ? "no sampled allocation in the heap profile"
                                        : "no sample in the profile");
    cgprop__free(v.g, v.nodes);
    cgprop__free(v.g, v.edges);
    cgprop__free(v.g, v.idx);
    cgprop__free(v.g, v.key);
    cgprop__free(v.g, v.profs);
    cgprop__free(v.g, v.chunks);
    if (rc) {
        cgprop_graph_free(v.g);
        return rc;
    }
    if (info) {
        info->format = CGPROP_INPUT_V8;
        info->recursion = CGPROP_RECS_STACKS;
        info->lines = L.line;
    }
    *out = v.g;
    return CGPROP_OK;
}

/* A bare array of trace events: '[', then an object whose first 4 KiB name
 * its phase ("ph", which every event of the Trace Event Format has). */
static bool trace_array(const char *s, size_t lim)
{
    size_t k = 1;
    while (k < lim && json_space(s[k])) k++;
    if (k >= lim || s[k] != '{') return false;
    for (k++; k < lim && json_space(s[k]);) k++;
    if (k >= lim || s[k] != '"') return false;
    for (; k + 4 <= lim; k++)
        if (memcmp(s + k, "\"ph\"", 4) == 0) return true;
    return false;
}

/* Whether the lim bytes at s hold the n bytes w. */
static bool holds(const char *s, size_t lim, const char *w, size_t n)
{
    for (size_t k = 0; k + n <= lim; k++)
        if (s[k] == w[0] && memcmp(s + k, w, n) == 0) return true;
    return false;
}

bool cgprop__v8_detect(const char *data, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) i = 3;
    while (i < len && json_space(data[i])) i++;
    if (i >= len || (data[i] != '{' && data[i] != '[')) return false;
    size_t lim = len - i < 4096 ? len - i : 4096;
    const char *s = data + i;
    if (*s == '[') return trace_array(s, lim);
    bool nodes = false, frame = false;
    for (size_t k = 0; k + 11 <= lim; k++) {
        if (!nodes && memcmp(s + k, "\"nodes\"", 7) == 0) nodes = true;
        if (!frame && memcmp(s + k, "\"callFrame\"", 11) == 0) frame = true;
    }
    if (nodes && frame) return true;
    /* The node tree need not come first (a profile rewritten by a tool that
     * orders its keys): then its first key must be one of the profile's
     * own, with a value of the right kind, and no other format read here
     * starts so. A trace object starts with its events (Chromium) or with
     * its metadata (DevTools' "Save trace"), which can be long. */
    size_t k = 1;
    while (k < lim && json_space(s[k])) k++;
    static const struct {
        const char *key;
        char value; /* '0': a number; 'h': an object, and "selfSize" in the 4 KiB */
    } keys[] = {{"\"samples\"", '['},    {"\"timeDeltas\"", '['},  {"\"startTime\"", '0'},
                {"\"endTime\"", '0'},    {"\"traceEvents\"", '['}, {"\"metadata\"", '{'},
                {"\"head\"", 'h'}};
    for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++) {
        size_t n = strlen(keys[j].key), q = k + n;
        if (q > lim || memcmp(s + k, keys[j].key, n)) continue;
        while (q < lim && (json_space(s[q]) || s[q] == ':')) q++;
        if (q >= lim) return false;
        /* A heap profile: its tree first ("head", as V8 and DevTools write
         * it), whose nodes carry selfSize; the CPU profile format that also
         * had a "head" (hitCount on its nodes) is not taken. */
        if (keys[j].value == 'h') return s[q] == '{' && holds(s, lim, "\"selfSize\"", 10);
        return keys[j].value == '0' ? s[q] >= '0' && s[q] <= '9' : s[q] == keys[j].value;
    }
    return false;
}
