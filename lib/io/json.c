/* JSON writer: every figure of every metric, so nothing the library knows is
 * lost on the way out. The shape is fixed (docs/TOOL.md documents it and
 * the extra keys). */
#include "write.h"
#include "num.h"

#include <math.h>
#include <string.h>

static const char *const fig_names[] = {"S_n", "S_r", "C_n", "C_r", "D",
                                        "C_nn", "C_nr", "C_nd", "C_rn", "C_rr", "C_rd"};
#define FN_BITS 0x1fu  /* S_n .. D */
#define EDGE_BITS 0x7e0u

typedef struct jrows {
    cgprop_node_row *node;
    cgprop_total_row *tot;
    cgprop_split_row *split;
    cgprop_edge_row *edge;
    cgprop_edge_total_row *etot;
    cgprop_edge_split_row *esplit;
    cgprop_cycle_row *cyc;
} jrows;

/* The output is a few hundred small pieces per function: each goes at o, a
 * local pointer into the buffer, copied directly while it fits, through the
 * general path only at the buffer's end. A cursor kept in w would be read
 * back from memory after every piece (the pieces' bytes may alias it), one
 * long chain of loads and stores through the whole report. Every function
 * here takes o and returns where it stopped; w->n is set from o only around
 * the calls that use it (SYNC, then RELOAD). */
#define SYNC(w) ((w)->n = (size_t)(o - (w)->buf))
#define RELOAD(w) (o = (w)->buf + (w)->n)
#define ROOM(w) ((size_t)((w)->buf + sizeof (w)->buf - o))

static inline char *jput(cgprop__wr *w, char *o, const char *s, size_t len)
{
    if (len <= ROOM(w)) {
        memcpy(o, s, len);
        return o + len;
    }
    SYNC(w);
    cgprop__wr_put(w, s, len);
    return RELOAD(w);
}
#define LIT(w, s) (o = jput(w, o, s, sizeof s - 1))
#define JSTR(w, s, len) (SYNC(w), cgprop__wr_json_str(w, s, len), RELOAD(w))

/* A name or key as a JSON string, the way cgprop__wr_json_str writes it,
 * for the usual bytes (printable ASCII, the tab between a key's fields)
 * 8 at a time: a word with none to look at is copied whole. Anything else
 * (quote, backslash, control or non-ASCII bytes) goes to
 * cgprop__wr_json_str, from the start. */
static char *put_str(cgprop__wr *w, char *o, const char *s, size_t len)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
    if (2 * len + 2 + 8 > ROOM(w)) return JSTR(w, s, len);
    char *start = o;
    *o++ = '"';
    for (size_t i = 0; i < len;) {
        if (i + 8 <= len) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            /* The lowest byte below 0x20, at or above 0x80, '"' or '\\'
             * sets its top bit in one of these (no byte below it
             * borrows); an ordinary byte sets none. Past the first such
             * byte borrows may flag more: those go one by one. */
            uint64_t q = v ^ (ones * '"'), b = v ^ (ones * '\\');
            if (!(((v - ones * 0x20) | (q - ones) | (b - ones) | v) & high)) {
                memcpy(o, &v, 8);
                o += 8;
                i += 8;
                continue;
            }
        }
        unsigned char c = (unsigned char)s[i++];
        if ((unsigned char)(c - 0x20) < 0x60 && c != '"' && c != '\\') {
            *o++ = (char)c;
        } else if (c == '\t') {
            *o++ = '\\';
            *o++ = 't';
        } else {
            o = start;
            return JSTR(w, s, len);
        }
    }
    *o++ = '"';
    return o;
}

/* Numbers are formatted in place when the buffer has room for the
 * longest, copied through the general path otherwise. */
static char *put_u64(cgprop__wr *w, char *o, uint64_t x)
{
    char b[CGPROP__NUM_MAX];
    if (ROOM(w) >= CGPROP__NUM_MAX) {
        /* Zeros and single digits (most split figures) without a call. */
        if (x < 10) {
            *o = (char)('0' + x);
            return o + 1;
        }
        if (x < 100) {
            memcpy(o, cgprop__digit_pairs + 2 * x, 2);
            return o + 2;
        }
        return o + cgprop__fmt_u64(o, x);
    }
    return jput(w, o, b, cgprop__fmt_u64(b, x));
}

static char *put_dbl(cgprop__wr *w, char *o, double x)
{
    char b[CGPROP__NUM_MAX];
    if (!isfinite(x)) return LIT(w, "null");
    /* Integers are formatted directly; other figures go through the small
     * cache of the last two (a total is often also the heuristic, the
     * share and the vertex total). */
    if (!(x > -1e15 && x < 1e15 && (double)(int64_t)x == x)) {
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        unsigned slot = bits == w->dbits[0] ? 0u : bits == w->dbits[1] ? 1u : 2u;
        if (slot == 2) {
            slot = w->dnext;
            w->dnext ^= 1;
            w->dbits[slot] = bits;
            if (ROOM(w) >= CGPROP__NUM_MAX) {
                /* Formatted in place, then kept for the next figures. */
                size_t n = cgprop__fmt_double(o, x);
                memcpy(w->dtxt[slot], o, CGPROP__NUM_MAX);
                w->dlen[slot] = (unsigned char)n;
                return o + n;
            }
            w->dlen[slot] = (unsigned char)cgprop__fmt_double(w->dtxt[slot], x);
        }
        if (ROOM(w) >= CGPROP__NUM_MAX) {
            memcpy(o, w->dtxt[slot], CGPROP__NUM_MAX); /* whole: a fixed-size copy */
            return o + w->dlen[slot];
        }
        return jput(w, o, w->dtxt[slot], w->dlen[slot]);
    }
    /* An integer below 10^15 is its digits (what cgprop__fmt_double
     * writes for it), without that call's tests again. */
    if (ROOM(w) >= CGPROP__NUM_MAX) {
        int64_t i = (int64_t)x;
        if (i < 0) {
            *o++ = '-';
            i = -i;
        } else if (i == 0 && signbit(x)) {
            *o++ = '-';
        }
        if (i < 10) {
            *o = (char)('0' + i);
            return o + 1;
        }
        return o + cgprop__fmt_u64(o, (uint64_t)i);
    }
    return jput(w, o, b, cgprop__fmt_double(b, x));
}

static char *put_bool(cgprop__wr *w, char *o, int b)
{
    if (b) return LIT(w, "true");
    return LIT(w, "false");
}

static char *put_inexact(cgprop__wr *w, char *o, uint32_t bits)
{
    /* The lists most figures have, as literals. */
    if (!bits) return LIT(w, "[]");
    if (bits == EDGE_BITS) return LIT(w, "[\"C_nn\",\"C_nr\",\"C_nd\",\"C_rn\",\"C_rr\",\"C_rd\"]");
    if (bits == FN_BITS) return LIT(w, "[\"S_n\",\"S_r\",\"C_n\",\"C_r\",\"D\"]");
    /* Any other assembled here, then one copy. */
    char b[sizeof fig_names / sizeof fig_names[0] * 8 + 2];
    size_t n = 0;
    b[n++] = '[';
    for (unsigned i = 0; i < sizeof fig_names / sizeof fig_names[0]; i++) {
        if (!(bits & (1u << i))) continue;
        if (n > 1) b[n++] = ',';
        b[n++] = '"';
        for (const char *c = fig_names[i]; *c; c++) b[n++] = *c;
        b[n++] = '"';
    }
    b[n++] = ']';
    return jput(w, o, b, n);
}

/* A vector of K numbers read from rows[k] at byte offset @p off, in one
 * function per type so the type test is not made per number. */
enum { T_U64, T_DBL };
static inline char *put_vec(cgprop__wr *w, char *o, const void *rows, size_t row_size, size_t off, int type,
                            uint32_t K)
{
    for (uint32_t k = 0; k < K; k++) {
        const char *p = (const char *)rows + (size_t)k * row_size + off;
        if (k) LIT(w, ",");
        if (type == T_U64) {
            uint64_t x;
            memcpy(&x, p, sizeof x);
            o = put_u64(w, o, x);
        } else {
            double x;
            memcpy(&x, p, sizeof x);
            o = put_dbl(w, o, x);
        }
    }
    return LIT(w, "]");
}
static char *put_vec_u64(cgprop__wr *w, char *o, const void *rows, size_t row_size, size_t off, uint32_t K)
{
    return put_vec(w, o, rows, row_size, off, T_U64, K);
}
static char *put_vec_dbl(cgprop__wr *w, char *o, const void *rows, size_t row_size, size_t off, uint32_t K)
{
    return put_vec(w, o, rows, row_size, off, T_DBL, K);
}
/* VECK: the same after the literal @p pre (a key), written with the "[" in
 * one piece of constant length; one metric (the usual case) without the
 * loop. */
#define VECK(w, pre, rows, type, field, T, K)                                                                   \
    (LIT(w, pre "["),                                                                                           \
     (K) == 1 ? ((T) == T_U64 ? (o = put_u64(w, o, (uint64_t)(rows)->field))                                   \
                              : (o = put_dbl(w, o, (double)(rows)->field)),                                     \
                 LIT(w, "]"))                                                                                   \
     : (T) == T_U64 ? (o = put_vec_u64(w, o, rows, sizeof *(rows), offsetof(type, field), K))                  \
                    : (o = put_vec_dbl(w, o, rows, sizeof *(rows), offsetof(type, field), K)))
#define VEC(w, rows, type, field, T, K) VECK(w, "", rows, type, field, T, K)

static int get_all(cgprop_graph *g, uint32_t kind, uint32_t id, uint32_t K, void *rows, size_t row_size)
{
    for (uint32_t k = 0; k < K; k++) {
        int rc = cgprop_graph_get_row(g, kind, k, id, (char *)rows + (size_t)k * row_size, row_size);
        if (rc != CGPROP_OK) return rc;
    }
    return CGPROP_OK;
}

/* The rows of one kind for every metric, pulled through the public
 * iterators a chunk at a time: one row lookup per figure cost more than
 * formatting it. rs_get(id) hands the K rows of id in order, the way
 * get_all() does (*at: where they are, rows or the chunk itself); ids must
 * come in order (any other falls back to get_all()). */
enum { RS_CHUNK = 64 };
typedef struct rstream {
    uint32_t kind, K;
    size_t row_size;
    cgprop_iter **it; /* K */
    char *buf;        /* metric k's rows at buf + k * RS_CHUNK * row_size */
    uint32_t base, have;
} rstream;

static void rs_close(cgprop_graph *g, rstream *s)
{
    if (s->it)
        for (uint32_t k = 0; k < s->K; k++) cgprop_iter_free(s->it[k]);
    cgprop__free(g, s->it);
    cgprop__free(g, s->buf);
    memset(s, 0, sizeof *s);
}

static int rs_open(cgprop_graph *g, rstream *s, uint32_t kind, uint32_t K, size_t row_size)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->K = K;
    s->row_size = row_size;
    s->it = cgprop__calloc(g, K, sizeof *s->it);
    s->buf = cgprop__alloc(g, (size_t)K * RS_CHUNK, row_size);
    if (!s->it || !s->buf) return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    for (uint32_t k = 0; k < K; k++) {
        int rc = cgprop_iter_new(g, kind, k, 0, &s->it[k]);
        if (rc) return rc;
    }
    return CGPROP_OK;
}

/* The next chunk of rows from id on; 1 when there are none. */
static int rs_fill(rstream *s, uint32_t id)
{
    size_t got = RS_CHUNK;
    for (uint32_t k = 0; k < s->K; k++) {
        size_t n = 0;
        int rc = cgprop_iter_copy_rows(s->it[k], s->buf + (size_t)k * RS_CHUNK * s->row_size, s->row_size,
                                       RS_CHUNK, &n);
        if (rc < 0) return rc;
        if (n < got) got = n;
    }
    s->base = id;
    s->have = (uint32_t)got;
    return !got;
}

static inline int rs_get(cgprop_graph *g, rstream *s, uint32_t id, void *rows, const void **at)
{
    *at = rows;
    if (id - s->base >= s->have) {
        if (id != s->base + s->have) return get_all(g, s->kind, id, s->K, rows, s->row_size);
        int rc = rs_fill(s, id);
        if (rc < 0) return rc;
        if (rc) return get_all(g, s->kind, id, s->K, rows, s->row_size);
    }
    /* One metric: its row where it is (a copy of a size known only here
     * would be a call per row). */
    if (s->K == 1) {
        *at = s->buf + (size_t)(id - s->base) * s->row_size;
        return CGPROP_OK;
    }
    for (uint32_t k = 0; k < s->K; k++)
        memcpy((char *)rows + (size_t)k * s->row_size,
               s->buf + ((size_t)k * RS_CHUNK + (id - s->base)) * s->row_size, s->row_size);
    return CGPROP_OK;
}

#define KEY(w, k) LIT(w, ",\"" k "\":")
/* A key and a boolean in one piece. */
#define KEYBOOL(w, k, b)                                                                           \
    do {                                                                                           \
        if (b)                                                                                     \
            LIT(w, ",\"" k "\":true");                                                             \
        else                                                                                       \
            LIT(w, ",\"" k "\":false");                                                            \
    } while (0)

/* The interval of each metric, [[lo…], [hi…]], null for a metric without
 * one; null whole when no metric has one. */
static char *put_bounds(cgprop__wr *w, char *o, const cgprop_total_row *t, uint32_t K)
{
    uint32_t with = 0;
    for (uint32_t k = 0; k < K; k++) with += !(t[k].flags & CGPROP_F_NO_BOUNDS);
    if (!with) return LIT(w, "null");
    for (int side = 0; side < 2; side++) {
        o = jput(w, o, side ? ",[" : "[[", 2);
        for (uint32_t k = 0; k < K; k++) {
            if (k) LIT(w, ",");
            if (t[k].flags & CGPROP_F_NO_BOUNDS)
                LIT(w, "null");
            else
                o = put_dbl(w, o, side ? t[k].hi : t[k].lo);
        }
        LIT(w, "]");
    }
    return LIT(w, "]");
}

static const char *const reason_names[] = {"sides_disagree", "below_self", "recursion", "entry_unknown",
                                           "unmeasured",     "overflow",   "unrooted"};

/* Per metric: which estimate the total is (null when exact), and why it is
 * not exact (null when it is; several reasons joined by commas). */
static char *put_estimate_reason(cgprop__wr *w, char *o, const cgprop_total_row *t, uint32_t K)
{
    KEY(w, "estimate");
    LIT(w, "[");
    for (uint32_t k = 0; k < K; k++) {
        if (k) LIT(w, ",");
        if (t[k].estimate == CGPROP_EST_EXACT)
            LIT(w, "null");
        else
            {
            const char *e = cgprop__wr_estimate_name(t[k].estimate);
            LIT(w, "\"");
            o = jput(w, o, e, strlen(e));
            LIT(w, "\"");
        }
    }
    LIT(w, "]");
    KEY(w, "reason");
    LIT(w, "[");
    for (uint32_t k = 0; k < K; k++) {
        if (k) LIT(w, ",");
        if (!t[k].reason) {
            LIT(w, "null");
            continue;
        }
        const char *sep = "\"";
        for (unsigned i = 0; i < sizeof reason_names / sizeof reason_names[0]; i++) {
            if (!(t[k].reason & (1u << i))) continue;
            o = jput(w, o, sep, strlen(sep));
            o = jput(w, o, reason_names[i], strlen(reason_names[i]));
            sep = ",";
        }
        LIT(w, "\"");
    }
    LIT(w, "]");
    KEY(w, "heuristic_clamped");
    LIT(w, "[");
    for (uint32_t k = 0; k < K; k++) {
        if (k) LIT(w, ",");
        o = put_bool(w, o, t[k].flags & CGPROP_F_CLAMPED);
    }
    return LIT(w, "]");
}

static int write_functions_rows(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K, int have_split, int tells,
                                uint32_t nn, rstream *sn, rstream *st, rstream *ss);
static int write_functions(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K, int have_split, int tells)
{
    uint32_t nn = (uint32_t)cgprop_graph_node_count(g);
    rstream sn, st, ss;
    int rc = rs_open(g, &sn, CGPROP_ITER_NODES, K, sizeof *r->node);
    if (!rc) rc = rs_open(g, &st, CGPROP_ITER_TOTALS, K, sizeof *r->tot);
    else memset(&st, 0, sizeof st);
    if (!rc && have_split) rc = rs_open(g, &ss, CGPROP_ITER_SPLIT, K, sizeof *r->split);
    else memset(&ss, 0, sizeof ss);
    if (!rc) rc = write_functions_rows(g, w, r, K, have_split, tells, nn, &sn, &st, &ss);
    rs_close(g, &sn);
    rs_close(g, &st);
    rs_close(g, &ss);
    return rc;
}

static int write_functions_rows(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K, int have_split, int tells,
                                uint32_t nn, rstream *sn, rstream *st, rstream *ss)
{
    char *o = w->buf + w->n;
    LIT(w, ",\n\"functions\":[");
    for (uint32_t id = 0; id < nn; id++) {
        int rc;
        const void *p_node = NULL;
        const void *p_tot = NULL;
        const void *p_split = NULL;
        if ((rc = rs_get(g, sn, id, r->node, &p_node)) || (rc = rs_get(g, st, id, r->tot, &p_tot))) return SYNC(w), rc;
        if (have_split && (rc = rs_get(g, ss, id, r->split, &p_split))) return SYNC(w), rc;
        const cgprop_node_row *node = p_node;
        const cgprop_total_row *tot = p_tot;
        const cgprop_split_row *split = p_split;
        size_t nlen, klen;
        const char *name = cgprop__wr_name(g, id, &nlen);
        const char *kstr = cgprop_graph_node_key(g, id, &klen);
        if (id) LIT(w, ",");
        LIT(w, "\n{\"id\":");
        o = put_u64(w, o, id);
        LIT(w, ",\"name\":");
        o = put_str(w, o, name, nlen);
        LIT(w, ",\"key\":");
        o = put_str(w, o, kstr, klen);
        VECK(w, ",\"self\":", node, cgprop_node_row, self, T_U64, K);
        VECK(w, ",\"total\":", tot, cgprop_total_row, total, T_DBL, K);
        VECK(w, ",\"heuristic\":", tot, cgprop_total_row, heuristic, T_DBL, K);
        KEY(w, "bounds");
        o = put_bounds(w, o, tot, K);
        KEY(w, "walk");
        {
            uint32_t with = 0;
            for (uint32_t k = 0; k < K; k++) with += !(tot[k].flags & CGPROP_F_NO_WALK);
            if (!with) {
                LIT(w, "null");
            } else {
                LIT(w, "[");
                for (uint32_t k = 0; k < K; k++) {
                    if (k) LIT(w, ",");
                    if (tot[k].flags & CGPROP_F_NO_WALK)
                        LIT(w, "null");
                    else
                        o = put_dbl(w, o, tot[k].walk);
                }
                LIT(w, "]");
            }
        }
        o = put_estimate_reason(w, o, tot, K);
        KEY(w, "cycle");
        if (tot[0].cycle == CGPROP_NONE)
            LIT(w, "null");
        else
            o = put_u64(w, o, tot[0].cycle);
        uint32_t inexact = FN_BITS;
        if (have_split) {
            inexact = 0;
            for (uint32_t k = 0; k < K; k++) inexact |= split[k].inexact & FN_BITS;
            /* The split object only where the input told something exact:
             * a function whose every figure is inexact gets none. */
            if (tells && inexact != FN_BITS) {
                VECK(w, ",\"split\":{\"S_n\":", split, cgprop_split_row, S_n, T_U64, K);
                VECK(w, ",\"S_r\":", split, cgprop_split_row, S_r, T_U64, K);
                VECK(w, ",\"C_n\":", split, cgprop_split_row, C_n, T_U64, K);
                VECK(w, ",\"C_r\":", split, cgprop_split_row, C_r, T_U64, K);
                VECK(w, ",\"D\":", split, cgprop_split_row, D, T_DBL, K);
                LIT(w, "}");
            }
        }
        KEY(w, "inexact");
        o = put_inexact(w, o, inexact);
        /* Extras: the function's recursion flags and inexact bits. */
        uint32_t f = tot[0].flags | node[0].flags;
        KEYBOOL(w, "self_recursive", f & CGPROP_F_SELF_RECURSIVE);
        KEYBOOL(w, "entry_assumed", f & CGPROP_F_ENTRY_ASSUMED);
        KEYBOOL(w, "root", f & CGPROP_F_ROOT);
        KEY(w, "called");
        o = put_u64(w, o, node[0].calls_in);
        LIT(w, ",\"spontaneous\":{\"count\":");
        o = put_u64(w, o, node[0].spont_count);
        VECK(w, ",\"cost\":", node, cgprop_node_row, spont_cost, T_U64, K);
        VECK(w, ",\"share\":", tot, cgprop_total_row, spont_share, T_DBL, K);
        LIT(w, "}");
        VECK(w, ",\"vertex_total\":", tot, cgprop_total_row, vertex_total, T_DBL, K);
        VECK(w, ",\"gprof\":{\"self\":", tot, cgprop_total_row, gprof_self, T_DBL, K);
        VECK(w, ",\"child\":", tot, cgprop_total_row, gprof_child, T_DBL, K);
        KEYBOOL(w, "inclusive", !(f & CGPROP_F_NOT_INCLUSIVE));
        LIT(w, "}");
        KEY(w, "heuristic_minus_exact");
        LIT(w, "[");
        for (uint32_t k = 0; k < K; k++) {
            if (k) LIT(w, ",");
            if (tot[k].estimate != CGPROP_EST_EXACT)
                LIT(w, "null");
            else
                o = put_dbl(w, o, tot[k].heuristic - tot[k].total);
        }
        LIT(w, "]");
        LIT(w, "}");
        if (w->failed) return SYNC(w), CGPROP_OK;
    }
    LIT(w, "]");
    SYNC(w);
    return CGPROP_OK;
}

static int write_calls_rows(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K, int have_split, uint32_t ne,
                            rstream *se, rstream *st, rstream *ss);
static int write_calls(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K, int have_split)
{
    uint32_t ne = (uint32_t)cgprop_graph_edge_count(g);
    rstream se, st, ss;
    int rc = rs_open(g, &se, CGPROP_ITER_EDGES, K, sizeof *r->edge);
    if (!rc) rc = rs_open(g, &st, CGPROP_ITER_EDGE_TOTALS, K, sizeof *r->etot);
    else memset(&st, 0, sizeof st);
    if (!rc && have_split) rc = rs_open(g, &ss, CGPROP_ITER_EDGE_SPLIT, K, sizeof *r->esplit);
    else memset(&ss, 0, sizeof ss);
    if (!rc) rc = write_calls_rows(g, w, r, K, have_split, ne, &se, &st, &ss);
    rs_close(g, &se);
    rs_close(g, &st);
    rs_close(g, &ss);
    return rc;
}

static int write_calls_rows(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K, int have_split, uint32_t ne,
                            rstream *se, rstream *st, rstream *ss)
{
    char *o = w->buf + w->n;
    LIT(w, ",\n\"calls\":[");
    for (uint32_t id = 0; id < ne; id++) {
        int rc;
        const void *p_edge = NULL;
        const void *p_etot = NULL;
        const void *p_esplit = NULL;
        if ((rc = rs_get(g, se, id, r->edge, &p_edge)) || (rc = rs_get(g, st, id, r->etot, &p_etot))) return SYNC(w), rc;
        if (have_split && (rc = rs_get(g, ss, id, r->esplit, &p_esplit))) return SYNC(w), rc;
        const cgprop_edge_row *edge = p_edge;
        const cgprop_edge_total_row *etot = p_etot;
        const cgprop_edge_split_row *esplit = p_esplit;
        const cgprop_edge_row *e = &edge[0];
        if (id) LIT(w, ",");
        LIT(w, "\n{\"id\":");
        o = put_u64(w, o, id);
        KEY(w, "caller");
        o = put_u64(w, o, e->caller);
        KEY(w, "callee");
        o = put_u64(w, o, e->callee);
        KEY(w, "count");
        o = put_u64(w, o, e->count);
        KEY(w, "cost");
        if (e->flags & CGPROP_F_HAS_COST)
            VEC(w, edge, cgprop_edge_row, cost, T_U64, K);
        else
            LIT(w, "null");
        VECK(w, ",\"total\":", etot, cgprop_edge_total_row, total, T_DBL, K);
        VECK(w, ",\"heuristic\":", etot, cgprop_edge_total_row, heuristic, T_DBL, K);
        uint32_t inexact = EDGE_BITS;
        if (have_split) {
            inexact = 0;
            for (uint32_t k = 0; k < K; k++) inexact |= esplit[k].inexact & EDGE_BITS;
            VECK(w, ",\"split\":{\"C_nn\":", esplit, cgprop_edge_split_row, C_nn, T_U64, K);
            VECK(w, ",\"C_nr\":", esplit, cgprop_edge_split_row, C_nr, T_U64, K);
            VECK(w, ",\"C_nd\":", esplit, cgprop_edge_split_row, C_nd, T_U64, K);
            VECK(w, ",\"C_rn\":", esplit, cgprop_edge_split_row, C_rn, T_U64, K);
            VECK(w, ",\"C_rr\":", esplit, cgprop_edge_split_row, C_rr, T_U64, K);
            VECK(w, ",\"C_rd\":", esplit, cgprop_edge_split_row, C_rd, T_U64, K);
            LIT(w, "}");
        }
        KEY(w, "inexact");
        o = put_inexact(w, o, inexact);
        /* Under a cost share each metric has its own entries, so a call
         * inside a cycle can have a total in one metric and none in
         * another: no_total only when no metric gives it one, estimate when
         * any does, and the metrics without one listed when they differ. */
        uint32_t all = ~0u, any = 0;
        for (uint32_t k = 0; k < K; k++) {
            all &= etot[k].flags;
            any |= etot[k].flags;
        }
        uint32_t f = e->flags | (all & CGPROP_F_NO_TOTAL) | (any & ~CGPROP_F_NO_TOTAL);
        KEYBOOL(w, "self_call", f & CGPROP_F_SELF_CALL);
        KEYBOOL(w, "intra_cycle", f & CGPROP_F_INTRA_CYCLE);
        KEYBOOL(w, "no_total", f & CGPROP_F_NO_TOTAL);
        KEYBOOL(w, "estimate", f & CGPROP_F_ESTIMATE);
        KEYBOOL(w, "heuristic_clamped", f & CGPROP_F_CLAMPED);
        if ((any & ~all) & CGPROP_F_NO_TOTAL) {
            KEY(w, "no_total_metrics");
            LIT(w, "[");
            const char *sep = "";
            for (uint32_t k = 0; k < K; k++)
                if (etot[k].flags & CGPROP_F_NO_TOTAL) {
                    o = jput(w, o, sep, strlen(sep));
                    o = put_u64(w, o, k);
                    sep = ",";
                }
            LIT(w, "]");
        }
        VECK(w, ",\"share\":", etot, cgprop_edge_total_row, share, T_DBL, K);
        VECK(w, ",\"gprof\":{\"self\":", etot, cgprop_edge_total_row, gprof_self, T_DBL, K);
        VECK(w, ",\"child\":", etot, cgprop_edge_total_row, gprof_child, T_DBL, K);
        LIT(w, "}}");
        if (w->failed) return SYNC(w), CGPROP_OK;
    }
    LIT(w, "]");
    SYNC(w);
    return CGPROP_OK;
}

static int write_cycles(cgprop_graph *g, cgprop__wr *w, jrows *r, uint32_t K)
{
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_CYCLES, 0, 0, &it);
    if (rc) return rc;
    uint32_t nc = (uint32_t)cgprop_iter_count(it);
    cgprop_iter_free(it);
    char *o = w->buf + w->n;
    LIT(w, ",\n\"cycles\":[");
    for (uint32_t c = 0; c < nc; c++) {
        if ((rc = get_all(g, CGPROP_ITER_CYCLES, c, K, r->cyc, sizeof *r->cyc))) return SYNC(w), rc;
        if (c) LIT(w, ",");
        LIT(w, "\n{\"id\":");
        o = put_u64(w, o, c);
        LIT(w, ",\"members\":[");
        if ((rc = cgprop_iter_new(g, CGPROP_ITER_MEMBERS, 0, c, &it))) return SYNC(w), rc;
        cgprop_member_row m;
        int first = 1;
        while ((rc = cgprop_iter_next(it, &m, sizeof m)) == CGPROP_OK) {
            if (!first) LIT(w, ",");
            o = put_u64(w, o, m.node);
            first = 0;
        }
        cgprop_iter_free(it);
        if (rc < 0) return SYNC(w), rc;
        VECK(w, "],\"self\":", r->cyc, cgprop_cycle_row, self, T_U64, K);
        VECK(w, ",\"total\":", r->cyc, cgprop_cycle_row, total, T_DBL, K);
        uint32_t f = 0;
        for (uint32_t k = 0; k < K; k++) f |= r->cyc[k].flags;
        KEYBOOL(w, "entry_assumed", f & CGPROP_F_ENTRY_ASSUMED);
        KEYBOOL(w, "root", f & CGPROP_F_ROOT);
        KEYBOOL(w, "estimate", f & CGPROP_F_ESTIMATE);
        LIT(w, "}");
    }
    LIT(w, "]");
    SYNC(w);
    return CGPROP_OK;
}

/* Does the input tell recursion classes? Yes as soon as one function has a
 * split figure that is exact; a graph built without classes has none. */
static int input_tells_classes(cgprop_graph *g, uint32_t nn)
{
    for (uint32_t id = 0; id < nn; id++) {
        cgprop_split_row s;
        if (cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, 0, id, &s, sizeof s) != CGPROP_OK) return 0;
        if ((s.inexact & FN_BITS) != FN_BITS) return 1;
    }
    return 0;
}

int cgprop__write_json(cgprop_graph *g, const cgprop_write_options *opts, cgprop__wr *w)
{
    (void)opts;
    char *o = w->buf + w->n;
    uint32_t K = (uint32_t)cgprop_graph_metric_count(g);
    uint32_t nn = (uint32_t)cgprop_graph_node_count(g);
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_TOTALS, 0, 0, &it);
    cgprop_iter_free(it);
    if (rc) return rc;
    rc = cgprop_iter_new(g, CGPROP_ITER_SPLIT, 0, 0, &it);
    cgprop_iter_free(it);
    if (rc && rc != CGPROP_ESTATE) return rc;
    int have_split = rc == CGPROP_OK;
    int tells = have_split && input_tells_classes(g, nn);
    /* The double cache starts empty: 0.0 is an integer, never looked up. */
    w->dbits[0] = w->dbits[1] = 0;
    w->dlen[0] = w->dlen[1] = 0;
    w->dnext = 0;

    jrows r;
    memset(&r, 0, sizeof r);
    r.node = cgprop__alloc(g, K, sizeof *r.node);
    r.tot = cgprop__alloc(g, K, sizeof *r.tot);
    r.split = cgprop__alloc(g, K, sizeof *r.split);
    r.edge = cgprop__alloc(g, K, sizeof *r.edge);
    r.etot = cgprop__alloc(g, K, sizeof *r.etot);
    r.esplit = cgprop__alloc(g, K, sizeof *r.esplit);
    r.cyc = cgprop__alloc(g, K, sizeof *r.cyc);
    uint64_t *sum = cgprop__calloc(g, K, sizeof *sum);
    unsigned char *ovf = cgprop__calloc(g, K, 1);
    double *dsum = cgprop__calloc(g, K, sizeof *dsum);
    if (!r.node || !r.tot || !r.split || !r.edge || !r.etot || !r.esplit || !r.cyc || !sum || !ovf || !dsum) {
        rc = cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        goto done;
    }

    LIT(w, "{\"metrics\":[");
    for (uint32_t k = 0; k < K; k++) {
        size_t len;
        const char *m = cgprop_graph_metric_name(g, k, &len);
        if (k) LIT(w, ",");
        JSTR(w, m, len);
    }
    /* The program total is Σ self, exact while it fits in 64 bits. */
    for (uint32_t id = 0; id < nn; id++) {
        if ((rc = get_all(g, CGPROP_ITER_NODES, id, K, r.node, sizeof *r.node))) {
            SYNC(w);
            goto done;
        }
        for (uint32_t k = 0; k < K; k++) {
            uint64_t s = r.node[k].self;
            if (sum[k] > UINT64_MAX - s) ovf[k] = 1;
            sum[k] += s;
            dsum[k] += (double)s;
        }
    }
    LIT(w, "],\n\"totals\":[");
    for (uint32_t k = 0; k < K; k++) {
        if (k) LIT(w, ",");
        if (ovf[k])
            o = put_dbl(w, o, dsum[k]);
        else
            o = put_u64(w, o, sum[k]);
    }
    /* The weight of the stacks that may have been cut short, per metric. */
    LIT(w, "],\n\"unrooted\":[");
    for (uint32_t k = 0; k < K; k++) {
        if (k) LIT(w, ",");
        uint64_t u = 0;
        (void)cgprop_graph_unrooted(g, k, &u); /* the split is current: it cannot fail */
        o = put_u64(w, o, u);
    }
    LIT(w, "]");
    SYNC(w);
    if ((rc = write_functions(g, w, &r, K, have_split, tells))) goto done;
    if ((rc = write_calls(g, w, &r, K, have_split))) goto done;
    if ((rc = write_cycles(g, w, &r, K))) goto done;
    RELOAD(w);
    /* The recorder's clamps and floors, carried by the graph. */
    LIT(w, ",\n\"clamps\":");
    o = put_u64(w, o, cgprop_graph_clamp_count(g));
    LIT(w, ",\n\"floors\":");
    o = put_u64(w, o, cgprop_graph_floor_count(g));
    LIT(w, "}\n");
    SYNC(w);
done:
    cgprop__free(g, r.node);
    cgprop__free(g, r.tot);
    cgprop__free(g, r.split);
    cgprop__free(g, r.edge);
    cgprop__free(g, r.etot);
    cgprop__free(g, r.esplit);
    cgprop__free(g, r.cyc);
    cgprop__free(g, sum);
    cgprop__free(g, ovf);
    cgprop__free(g, dsum);
    return rc;
}
