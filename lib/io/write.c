/* Writers: dispatch, buffered output, number formatting and the view that
 * text and DOT share. Results come only through the public iterators, so a
 * writer can never see a figure an FFI caller could not. */
#include "write.h"
#include "flame.h"
#include "io_util.h"
#include "num.h"
#include "util/hash.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cgprop_write_options_init(cgprop_write_options *opts)
{
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->size = (uint32_t)sizeof *opts;
    opts->metric = 0;
    opts->flags = 0;
    opts->node_thres = 0.5;
    opts->edge_thres = 0.1;
    opts->cycles = CGPROP_DOT_CYCLES_AUTO;
    opts->depth = CGPROP_DEPTH_ALL;
    opts->label = CGPROP_LABEL_DEFAULT;
    opts->colormap = CGPROP_COLORMAP_COLOR;
    opts->skew = 1.0;
}

/* ---- buffered output ---- */

static void wr_drain(cgprop__wr *w)
{
    if (w->n && !w->failed && w->fn(w->user, w->buf, w->n) != 0) w->failed = 1;
    w->n = 0;
}

void cgprop__wr_put(cgprop__wr *w, const char *s, size_t len)
{
    if (w->failed) return;
    while (len) {
        if (w->n == sizeof w->buf) {
            wr_drain(w);
            if (w->failed) return;
        }
        size_t room = sizeof w->buf - w->n;
        size_t c = len < room ? len : room;
        memcpy(w->buf + w->n, s, c);
        w->n += c;
        s += c;
        len -= c;
    }
}

void cgprop__wr_puts(cgprop__wr *w, const char *s) { cgprop__wr_put(w, s, strlen(s)); }

void cgprop__wr_printf(cgprop__wr *w, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        w->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        cgprop__wr_put(w, small, (size_t)n);
        return;
    }
    /* Long lines (names) are rare: format them into a heap buffer. */
    char *big = cgprop__alloc(w->g, (size_t)n + 1, 1);
    if (!big) {
        w->failed = 2;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    cgprop__wr_put(w, big, (size_t)n);
    cgprop__free(w->g, big);
}

int cgprop__wr_flush(cgprop__wr *w)
{
    wr_drain(w);
    if (w->failed == 2) return cgprop__err(w->g, CGPROP_ENOMEM, "write: out of memory");
    if (w->failed) return cgprop__err(w->g, CGPROP_EWRITE, "write: the output callback failed");
    return CGPROP_OK;
}

void cgprop__wr_json_double(cgprop__wr *w, double x)
{
    if (!isfinite(x)) {
        cgprop__wr_put(w, "null", 4);
        return;
    }
    /* The shortest digits that read back to x: 0.1 stays 0.1. */
    char b[CGPROP__NUM_MAX];
    cgprop__wr_put(w, b, cgprop__fmt_double(b, x));
}

void cgprop__wr_u64(cgprop__wr *w, uint64_t x)
{
    char b[CGPROP__NUM_MAX];
    cgprop__wr_put(w, b, cgprop__fmt_u64(b, x));
}

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: shortest form,
 * no surrogates, at most U+10FFFF), 0 when the byte starts none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xf0 && s[1] < 0x90)) return 0; /* overlong */
    if ((c == 0xed && s[1] >= 0xa0) || (c == 0xf4 && s[1] >= 0x90)) return 0; /* surrogate, > U+10FFFF */
    return len;
}

void cgprop__wr_json_str(cgprop__wr *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;
    /* Most names are printable ASCII without quotes or backslashes, keys
     * that and tabs: one scan, then one copy when the buffer has room. */
    if (len + 2 <= sizeof w->buf - w->n && !w->failed) {
        size_t i = 0, tabs = 0;
        for (; i < len; i++) {
            unsigned char c = u[i];
            if ((unsigned char)(c - 0x20) < 0x60 && c != '"' && c != '\\') continue;
            if (c != '\t') break;
            tabs++;
        }
        if (i == len && len + 2 + tabs <= sizeof w->buf - w->n) {
            char *o = w->buf + w->n;
            *o++ = '"';
            if (!tabs) {
                memcpy(o, s, len);
                o += len;
            } else {
                for (i = 0; i < len; i++) {
                    if (u[i] == '\t') {
                        *o++ = '\\';
                        *o++ = 't';
                    } else {
                        *o++ = (char)u[i];
                    }
                }
            }
            *o++ = '"';
            w->n = (size_t)(o - w->buf);
            return;
        }
    }
    cgprop__wr_put(w, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = u[i];
        size_t l = c < 0x80 ? 1 : utf8_len(u + i, len - i);
        if (l > 1 || (l == 1 && c >= 0x20 && c != '"' && c != '\\')) {
            i += l;
            continue;
        }
        cgprop__wr_put(w, s + run, i - run);
        run = ++i;
        /* A byte outside well-formed UTF-8 becomes the lone surrogate
         * U+DC80..U+DCFF (PEP 383's surrogateescape), which no text holds:
         * the output stays UTF-8 and the bytes can be recovered. */
        char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        if (l == 0) {
            e[2] = 'd';
            e[3] = 'c';
            cgprop__wr_put(w, e, 6);
        } else if (c == '"' || c == '\\') {
            e[1] = (char)c;
            cgprop__wr_put(w, e, 2);
        } else if (c == '\n') {
            cgprop__wr_put(w, "\\n", 2);
        } else if (c == '\t') {
            cgprop__wr_put(w, "\\t", 2);
        } else {
            cgprop__wr_put(w, e, 6);
        }
    }
    cgprop__wr_put(w, s + run, len - run);
    cgprop__wr_put(w, "\"", 1);
}

const char *cgprop__wr_estimate_name(uint32_t estimate)
{
    static const char *const names[] = {"exact", "heuristic", "shares", "walk", "midpoint", "budget", "measured"};
    return estimate < sizeof names / sizeof names[0] ? names[estimate] : "estimate";
}

const char *cgprop__wr_name(cgprop_graph *g, uint32_t id, size_t *len)
{
    size_t n = 0;
    const char *name = cgprop_node_display_name(g, id, &n);
    if (!name) {
        *len = 0;
        return "";
    }
    *len = n;
    return name;
}

/* ---- the view of people's formats ---- */

void cgprop__view_free(cgprop_graph *g, cgprop__view *v)
{
    void *p[] = {v->node, v->tot, v->cn, v->edge, v->cyc,
                 v->mem_off, v->mem, v->shown, v->how, v->eshown, v->ehow, v->qual,
                 v->sname, v->soff, v->show, v->eshow, v->hid_out, v->hid_in, v->hid_out_est,
                 v->hid_in_est, v->hid_out_calls, v->hid_in_calls, v->hid_out_n, v->hid_in_n, v->rid, v->eid};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) cgprop__free(g, p[i]);
    memset(v, 0, sizeof *v);
}

/* The index of f among the lean view's functions with rows, nrid if none. */
static uint32_t rid_find(const cgprop__view *v, uint32_t f)
{
    uint32_t lo = 0, hi = v->nrid;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->rid[mid] < f) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->nrid && v->rid[lo] == f ? lo : v->nrid;
}

const cgprop_total_row *cgprop__view_tot(const cgprop__view *v, uint32_t f)
{
    static const cgprop_total_row none;
    if (!v->lean) return &v->tot[f];
    uint32_t i = rid_find(v, f);
    return i < v->nrid ? &v->tot[i] : &none;
}

const cgprop_node_row *cgprop__view_node(const cgprop__view *v, uint32_t f)
{
    static const cgprop_node_row none;
    if (!v->lean) return &v->node[f];
    uint32_t i = rid_find(v, f);
    return i < v->nrid ? &v->node[i] : &none;
}

/* Copy every row of one iterator kind into @p dst, indexed by the row's id
 * (rows carry their id as first field). */
static int load_rows(cgprop_graph *g, uint32_t kind, uint32_t k, uint32_t arg, void *dst, size_t row_size,
                     size_t n)
{
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, kind, k, arg, &it);
    if (rc != CGPROP_OK) return rc;
    size_t got = 0;
    rc = cgprop_iter_copy_rows(it, dst, row_size, n, &got);
    cgprop_iter_free(it);
    if (rc < 0) return rc;
    if (got != n) return cgprop__err(g, CGPROP_ESTATE, "write: iterator yielded %zu rows, expected %zu", got, n);
    return CGPROP_OK;
}

/* The members of every cycle, grouped by cycle (mem_off, mem). */
static int view_members(cgprop_graph *g, cgprop__view *v)
{
    uint32_t off = 0;
    for (uint32_t c = 0; c < v->nc; c++) {
        v->mem_off[c] = off;
        uint32_t m = v->cyc[c].nmembers;
        if (m > v->nn - off) return cgprop__err(g, CGPROP_ESTATE, "write: cycle members exceed the function count");
        cgprop_member_row *mr = cgprop__alloc(g, m ? m : 1, sizeof *mr);
        if (!mr) return CGPROP_ENOMEM;
        int rc = load_rows(g, CGPROP_ITER_MEMBERS, 0, c, mr, sizeof *mr, m);
        for (uint32_t i = 0; rc == CGPROP_OK && i < m; i++) v->mem[off + i] = mr[i].node;
        cgprop__free(g, mr);
        if (rc) return rc;
        off += m;
    }
    v->mem_off[v->nc] = off;
    return CGPROP_OK;
}

/* Where the view keeps only part of a row (a function's C_n; a call's ends,
 * count and shown figure), the rows are read a block at a time instead of
 * copied whole: a call's total and split rows were 120 of the 160 bytes the
 * view held per call. A writer that needs more of a call it prints looks
 * the row up. */
#define CGPROP__VIEW_BLOCK 64

static int next_block(cgprop_graph *g, cgprop_iter *it, void *dst, size_t row_size, size_t want)
{
    size_t got = 0;
    int rc = cgprop_iter_copy_rows(it, dst, row_size, want, &got);
    if (rc < 0) return rc;
    if (got != want) return cgprop__err(g, CGPROP_ESTATE, "write: iterator yielded %zu rows, expected %zu", got, want);
    return CGPROP_OK;
}

/* The split's C_n when it is current (the split is optional: without it
 * every figure is the heuristic). */
static int view_split(cgprop_graph *g, uint32_t k, cgprop__view *v)
{
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_SPLIT, k, 0, &it);
    if (rc == CGPROP_ESTATE) return CGPROP_OK;
    if (rc) return rc;
    v->split = true;
    v->cn = cgprop__alloc(g, v->nn ? v->nn : 1, sizeof *v->cn);
    if (!v->cn) rc = CGPROP_ENOMEM;
    cgprop_split_row r[CGPROP__VIEW_BLOCK];
    for (uint32_t f0 = 0; !rc && f0 < v->nn; f0 += CGPROP__VIEW_BLOCK) {
        size_t nb = v->nn - f0 < CGPROP__VIEW_BLOCK ? v->nn - f0 : CGPROP__VIEW_BLOCK;
        if ((rc = next_block(g, it, r, sizeof *r, nb))) break;
        for (size_t i = 0; i < nb; i++) v->cn[f0 + i] = r[i].C_n;
    }
    cgprop_iter_free(it);
    return rc;
}

/* The callers, callees and counts of the calls. */
static int view_edges(cgprop_graph *g, cgprop__view *v)
{
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_EDGES, v->k, 0, &it);
    cgprop_edge_row r[CGPROP__VIEW_BLOCK];
    for (uint32_t e0 = 0; !rc && e0 < v->ne; e0 += CGPROP__VIEW_BLOCK) {
        size_t nb = v->ne - e0 < CGPROP__VIEW_BLOCK ? v->ne - e0 : CGPROP__VIEW_BLOCK;
        if ((rc = next_block(g, it, r, sizeof *r, nb))) break;
        for (size_t i = 0; i < nb; i++) v->edge[e0 + i] = (cgprop__view_edge){r[i].caller, r[i].callee, r[i].count};
    }
    cgprop_iter_free(it);
    return rc;
}

/* What function f shows, from its total row, and whether it is exact. */
static void choose_one(cgprop__view *v, uint32_t f, uint32_t flags, const cgprop_total_row *t)
{
    if (flags & CGPROP_W_HEURISTIC_ONLY) {
        v->shown[f] = t->heuristic;
        v->how[f] = CGPROP__SHOW_ESTIMATE;
    } else {
        v->shown[f] = t->total;
        v->how[f] = t->estimate == CGPROP_EST_EXACT ? CGPROP__SHOW_EXACT : CGPROP__SHOW_ESTIMATE;
    }
}

static void view_choose(cgprop__view *v, uint32_t flags)
{
    v->program = 0;
    for (uint32_t i = 0; i < v->nn; i++) v->program += (double)v->node[i].self;
    for (uint32_t i = 0; i < v->nn; i++) choose_one(v, i, flags, &v->tot[i]);
}

/* What call e shows, from its rows (s NULL without the split). */
static void edge_figure(cgprop__view *v, uint32_t e, uint32_t flags, const cgprop_edge_total_row *t,
                        const cgprop_edge_split_row *s)
{
    uint32_t callee = v->edge[e].callee;
    /* Exact share of a call in the callee's exact total: the cost of calls
     * that enter a level-0 activation (C_nn + C_rn). Summed over callers,
     * plus roots, it is C_n(callee). */
    if (s && v->how[callee] == CGPROP__SHOW_EXACT && !(s->inexact & (CGPROP_X_C_NN | CGPROP_X_C_RN))) {
        uint64_t x = s->C_nn + s->C_rn;
        v->eshown[e] = (double)x;
        v->ehow[e] = x ? CGPROP__SHOW_EXACT : CGPROP__SHOW_NONE;
    } else if (t->flags & (CGPROP_F_NO_TOTAL | CGPROP_F_SELF_CALL)) {
        v->eshown[e] = 0;
        v->ehow[e] = CGPROP__SHOW_NONE;
    } else if (flags & CGPROP_W_HEURISTIC_ONLY) {
        v->eshown[e] = t->heuristic;
        v->ehow[e] = CGPROP__SHOW_ESTIMATE;
    } else {
        /* Without the split's share, a call between two components is
         * still exact where its total is its measured cost (the row says
         * so): what the callee spent through it, as the profile measured. */
        v->eshown[e] = t->total;
        v->ehow[e] = t->flags & CGPROP_F_ESTIMATE ? CGPROP__SHOW_ESTIMATE : CGPROP__SHOW_EXACT;
    }
}

/* What each call shows, and whether it is exact: every call, a block of
 * rows at a time (a pruned picture's lean view reads only the calls it
 * needs, lean_rest). */
static int view_edge_figures(cgprop_graph *g, cgprop__view *v, uint32_t flags)
{
    if (!v->ne) return CGPROP_OK;
    int rc = CGPROP_OK;
    cgprop_iter *ti = NULL, *si = NULL;
    rc = cgprop_iter_new(g, CGPROP_ITER_EDGE_TOTALS, v->k, 0, &ti);
    if (!rc && v->split) rc = cgprop_iter_new(g, CGPROP_ITER_EDGE_SPLIT, v->k, 0, &si);
    cgprop_edge_total_row etot[CGPROP__VIEW_BLOCK];
    cgprop_edge_split_row esplit[CGPROP__VIEW_BLOCK];
    for (uint32_t e0 = 0; !rc && e0 < v->ne; e0 += CGPROP__VIEW_BLOCK) {
        size_t nb = v->ne - e0 < CGPROP__VIEW_BLOCK ? v->ne - e0 : CGPROP__VIEW_BLOCK;
        if ((rc = next_block(g, ti, etot, sizeof *etot, nb))) break;
        if (si && (rc = next_block(g, si, esplit, sizeof *esplit, nb))) break;
        for (size_t i = 0; i < nb; i++) edge_figure(v, e0 + (uint32_t)i, flags, etot + i, si ? esplit + i : NULL);
    }
    cgprop_iter_free(ti);
    cgprop_iter_free(si);
    return rc;
}

/* ---- names that tell functions apart ---- */

/* The key's parts: object, file (empty when absent) and the display name. */
static void key_parts(const cgprop_graph *g, uint32_t id, const char **ob, size_t *lob, const char **fl,
                      size_t *lfl)
{
    size_t n;
    const char *k = cgprop_graph_node_key(g, id, &n);
    const char *t1 = k ? memchr(k, '\t', n) : NULL;
    const char *t2 = t1 ? memchr(t1 + 1, '\t', n - (size_t)(t1 + 1 - k)) : NULL;
    *ob = *fl = "";
    *lob = *lfl = 0;
    if (t1 && t2) {
        *ob = k, *lob = (size_t)(t1 - k);
        *fl = t1 + 1, *lfl = (size_t)(t2 - t1 - 1);
    } else if (t1) {
        *fl = k, *lfl = (size_t)(t1 - k);
    }
}

/* The last path component: what people call a library or a source file. */
static void base(const char **s, size_t *n)
{
    for (size_t i = *n; i-- > 0;)
        if ((*s)[i] == '/') {
            *s += i + 1;
            *n -= i + 1;
            return;
        }
}

size_t cgprop__view_qual(const cgprop_graph *g, const cgprop__view *v, uint32_t id, char *buf, size_t cap)
{
    buf[0] = '\0';
    unsigned q = v->qual ? v->qual[id] : 0;
    if (!q) return 0;
    const char *ob, *fl;
    size_t lob, lfl;
    key_parts(g, id, &ob, &lob, &fl, &lfl);
    base(&ob, &lob);
    base(&fl, &lfl);
    if (lob > 120) lob = 120;
    if (lfl > 120) lfl = 120;
    int n;
    if (q == 1 && lob) n = snprintf(buf, cap, " [%.*s]", (int)lob, ob);
    else if (q == 1 && lfl) n = snprintf(buf, cap, " [%.*s]", (int)lfl, fl);
    else if (q <= 2 && (lob || lfl))
        n = snprintf(buf, cap, " [%.*s%s%.*s]", (int)lob, ob, lob && lfl ? ", " : "", (int)lfl, fl);
    else
        n = snprintf(buf, cap, " [%.*s%s%.*s%s#%u]", (int)lob, ob, lob && lfl ? ", " : "", (int)lfl, fl,
                     lob || lfl ? ", " : "", id);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* How much of each function's key the views print: level 0 for a display
 * name no other function has; else 1, 2, 3 until the printed name is
 * unique (see cgprop__view_qual). Names are compared by 64-bit hash: a
 * collision only adds a qualifier that was not needed.
 *
 * One pass a level: the map keeps the first function with each printed
 * name, and a second one moves both up (moving the first again is
 * harmless). A graph of 200,000 functions spent more on the names of a
 * DOT picture of twenty boxes than on writing it, with a count pass and a
 * check pass and a map that grew by doubling. */
static int view_names_in(cgprop_graph *g, cgprop__view *v, const uint32_t *only, size_t nonly);

static int view_names(cgprop_graph *g, cgprop__view *v) { return view_names_in(g, v, NULL, v->nn); }

/* The lean view's: only the functions shown need their qualifiers, and a
 * name is told apart from the names equal to it alone (those whose hash
 * is a shown function's; at every level a function's hash mixes its
 * name's), so the levels run over those functions only, with the same
 * answers for the functions shown. */
static int view_names_lean(cgprop_graph *g, cgprop__view *v)
{
    cgprop__u64map shown = {0};
    size_t cap = 0, n = 0;
    uint32_t *only = NULL;
    int rc = cgprop__u64map_reserve(&g->a, &shown, v->nrid);
    for (uint32_t i = 0; !rc && i < v->nrid; i++) {
        size_t len;
        const char *name = cgprop__view_name(g, v, v->rid[i], &len);
        rc = cgprop__u64map_put(&g->a, &shown, cgprop__hash_bytes(name, len), v->rid[i]);
    }
    for (uint32_t f = 0; !rc && f < v->nn; f++) {
        size_t len;
        uint32_t any;
        const char *name = cgprop__view_name(g, v, f, &len);
        if (!cgprop__u64map_get(&shown, cgprop__hash_bytes(name, len), &any)) continue;
        void *p = only;
        if (!cgprop__grow(&g->a, &p, &cap, n + 1, sizeof *only, 64)) {
            rc = CGPROP_ENOMEM;
            break;
        }
        only = p;
        only[n++] = f;
    }
    cgprop__u64map_free(&g->a, &shown);
    if (!rc) rc = view_names_in(g, v, only, n);
    cgprop__free(g, only);
    return rc;
}

/* view_names over the functions only[0 .. nonly), ascending (every function
 * when only is NULL). */
static int view_names_in(cgprop_graph *g, cgprop__view *v, const uint32_t *only, size_t nonly)
{
    v->qual = cgprop__calloc(g, v->nn ? v->nn : 1, 1);
    if (!v->qual) return CGPROP_ENOMEM;
    char q[300];
    int rc = CGPROP_OK;
    size_t at = nonly;
    /* The names of a block are hashed first and their slots asked for,
     * then put: each put is a miss in a table of every name (4.8 MB for
     * 200,000 functions), and one at a time they took a quarter of a DOT
     * report's writer. The puts come in id order as before. */
    enum { NB = 32 };
    uint64_t hb[NB];
    uint32_t fb[NB];
    for (unsigned level = 0; level < 3 && !rc && at > 1; level++) {
        cgprop__u64map seen = {0};
        rc = cgprop__u64map_reserve(&g->a, &seen, at);
        size_t next = 0;
        size_t lim = only ? nonly : v->nn;
        for (size_t x = 0; x < lim && !rc;) {
            unsigned nb = 0;
            for (; x < lim && nb < NB; x++) {
                uint32_t f0 = only ? only[x] : (uint32_t)x;
                if (v->qual[f0] != level) continue;
                size_t n;
                const char *name = cgprop__view_name(g, v, f0, &n);
                uint64_t h = cgprop__hash_bytes(name, n);
                size_t ql = cgprop__view_qual(g, v, f0, q, sizeof q);
                if (ql) h = cgprop__mix64(h * 0x9E3779B97F4A7C15ull ^ cgprop__hash_bytes(q, ql));
                hb[nb] = h;
                fb[nb] = f0;
                cgprop__u64map_prefetch(&seen, hb[nb++]);
            }
            for (unsigned i = 0; i < nb && !rc; i++) {
                uint32_t f = fb[i], first = 0;
                bool found;
                rc = cgprop__u64map_put_new(&g->a, &seen, hb[i], f, &first, &found);
                if (rc || !found) continue;
                next += v->qual[first] == level;
                v->qual[first] = (unsigned char)(level + 1);
                v->qual[f] = (unsigned char)(level + 1);
                next++;
            }
        }
        cgprop__u64map_free(&g->a, &seen);
        at = next;
    }
    return rc;
}

/* ---- --strip: names without C++ argument lists and template arguments ---- */

const char *cgprop__view_name(cgprop_graph *g, const cgprop__view *v, uint32_t id, size_t *len)
{
    if (!v->sname) return cgprop__wr_name(g, id, len);
    *len = v->soff[id + 1] - v->soff[id];
    return v->sname + v->soff[id];
}

/* Remove every matched open..close group, nested ones with it, from
 * out[0..n): what gprof2dot gets by deleting innermost pairs until none is
 * left. An unmatched bracket stays, and so does an outermost "(...)" that a
 * '.' follows: that is a Go method's receiver (main.(*T).M), not an
 * argument list, and without it every method of every type would be
 * "main..M". stack holds n entries. */
static size_t drop_groups(char *out, size_t n, char open, char close, size_t *stack)
{
    size_t o = 0, depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = out[i];
        if (c == close && depth) {
            if (open == '(' && depth == 1 && i + 1 < n && out[i + 1] == '.') {
                depth--;
                out[o++] = c;
                continue;
            }
            o = stack[--depth];
            continue;
        }
        if (c == open) stack[depth++] = o;
        out[o++] = c;
    }
    return o;
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static size_t strip_name(char *out, const char *name, size_t n, size_t *stack)
{
    memcpy(out, name, n);
    n = drop_groups(out, n, '(', ')', stack);
    /* A trailing " const" (a const member function), as gprof2dot's \s+const$. */
    if (n >= 6 && !memcmp(out + n - 5, "const", 5) && is_blank(out[n - 6])) {
        n -= 5;
        while (n && is_blank(out[n - 1])) n--;
    }
    return drop_groups(out, n, '<', '>', stack);
}

static int view_strip(cgprop_graph *g, cgprop__view *v)
{
    size_t total = 0, longest = 1;
    for (uint32_t f = 0; f < v->nn; f++) {
        size_t n;
        cgprop__wr_name(g, f, &n);
        total += n;
        if (n > longest) longest = n;
    }
    v->soff = cgprop__alloc(g, (size_t)v->nn + 1, sizeof *v->soff);
    v->sname = cgprop__alloc(g, total ? total : 1, 1);
    size_t *stack = cgprop__alloc(g, longest, sizeof *stack);
    if (!v->soff || !v->sname || !stack) {
        cgprop__free(g, stack);
        return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    }
    size_t off = 0;
    for (uint32_t f = 0; f < v->nn; f++) {
        size_t n;
        const char *name = cgprop__wr_name(g, f, &n);
        v->soff[f] = off;
        off += strip_name(v->sname + off, name, n, stack);
    }
    v->soff[v->nn] = off;
    cgprop__free(g, stack);
    return CGPROP_OK;
}

/* The lean view (see cgprop__view): what each function shows, from its
 * rows read a block at a time and not kept; the cycles and their members;
 * whether the split is current. The rows of the functions shown, the calls
 * out of them and the names' qualifiers come with the selection. */
static int view_load_lean(cgprop_graph *g, uint32_t k, uint32_t flags, cgprop__view *v)
{
    size_t nn = v->nn ? v->nn : 1, ncc = v->nc ? v->nc : 1;
    v->lean = true;
    v->cyc = cgprop__alloc(g, ncc, sizeof *v->cyc);
    v->mem_off = cgprop__alloc(g, (size_t)v->nc + 1, sizeof *v->mem_off);
    v->mem = cgprop__alloc(g, nn, sizeof *v->mem);
    v->shown = cgprop__alloc(g, nn, sizeof *v->shown);
    v->how = cgprop__alloc(g, nn, 1);
    if (!v->cyc || !v->mem_off || !v->mem || !v->shown || !v->how) return CGPROP_ENOMEM;
    cgprop_iter *ni = NULL, *ti = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_NODES, k, 0, &ni);
    if (!rc) rc = cgprop_iter_new(g, CGPROP_ITER_TOTALS, k, 0, &ti);
    cgprop_node_row nr[CGPROP__VIEW_BLOCK];
    cgprop_total_row tr[CGPROP__VIEW_BLOCK];
    /* The same sum in the same order as view_choose. */
    v->program = 0;
    for (uint32_t f0 = 0; !rc && f0 < v->nn; f0 += CGPROP__VIEW_BLOCK) {
        size_t nb = v->nn - f0 < CGPROP__VIEW_BLOCK ? v->nn - f0 : CGPROP__VIEW_BLOCK;
        if ((rc = next_block(g, ni, nr, sizeof *nr, nb)) || (rc = next_block(g, ti, tr, sizeof *tr, nb))) break;
        for (size_t i = 0; i < nb; i++) {
            v->program += (double)nr[i].self;
            choose_one(v, f0 + (uint32_t)i, flags, &tr[i]);
        }
    }
    cgprop_iter_free(ni);
    cgprop_iter_free(ti);
    if (!rc && !(rc = load_rows(g, CGPROP_ITER_CYCLES, k, 0, v->cyc, sizeof *v->cyc, v->nc)))
        rc = view_members(g, v);
    if (!rc && !(flags & CGPROP_W_HEURISTIC_ONLY)) {
        cgprop_iter *si = NULL;
        rc = cgprop_iter_new(g, CGPROP_ITER_SPLIT, k, 0, &si);
        v->split = rc == CGPROP_OK;
        cgprop_iter_free(si);
        if (rc == CGPROP_ESTATE) rc = CGPROP_OK;
    }
    return rc;
}

int cgprop__view_load(cgprop_graph *g, uint32_t k, uint32_t flags, bool lean, cgprop__view *v)
{
    memset(v, 0, sizeof *v);
    v->k = k;
    v->nn = (uint32_t)cgprop_graph_node_count(g);
    v->ne = (uint32_t)cgprop_graph_edge_count(g);
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_CYCLES, k, 0, &it);
    if (rc != CGPROP_OK) return rc;
    size_t nc = cgprop_iter_count(it);
    cgprop_iter_free(it);
    v->nc = (uint32_t)nc;
    if (lean) {
        rc = view_load_lean(g, k, flags, v);
        if (!rc && (flags & CGPROP_W_STRIP)) rc = view_strip(g, v);
        if (rc) {
            if (rc == CGPROP_ENOMEM) cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
            cgprop__view_free(g, v);
            return rc;
        }
        return CGPROP_OK;
    }

    size_t nn = v->nn ? v->nn : 1, ne = v->ne ? v->ne : 1, ncc = nc ? nc : 1;
    v->node = cgprop__alloc(g, nn, sizeof *v->node);
    v->tot = cgprop__alloc(g, nn, sizeof *v->tot);
    v->edge = cgprop__alloc(g, ne, sizeof *v->edge);
    v->cyc = cgprop__alloc(g, ncc, sizeof *v->cyc);
    v->mem_off = cgprop__alloc(g, nc + 1, sizeof *v->mem_off);
    v->mem = cgprop__alloc(g, nn, sizeof *v->mem);
    v->shown = cgprop__alloc(g, nn, sizeof *v->shown);
    v->how = cgprop__alloc(g, nn, 1);
    v->eshown = cgprop__alloc(g, ne, sizeof *v->eshown);
    v->ehow = cgprop__alloc(g, ne, 1);
    if (!v->node || !v->tot || !v->edge || !v->cyc || !v->mem_off || !v->mem || !v->shown ||
        !v->how || !v->eshown || !v->ehow)
        rc = CGPROP_ENOMEM;
    if (!rc && !(rc = load_rows(g, CGPROP_ITER_NODES, k, 0, v->node, sizeof *v->node, v->nn)) &&
        !(rc = load_rows(g, CGPROP_ITER_TOTALS, k, 0, v->tot, sizeof *v->tot, v->nn)) &&
        !(rc = view_edges(g, v)) &&
        !(rc = load_rows(g, CGPROP_ITER_CYCLES, k, 0, v->cyc, sizeof *v->cyc, nc)) && !(rc = view_members(g, v)) &&
        !(flags & CGPROP_W_HEURISTIC_ONLY))
        rc = view_split(g, k, v);
    if (rc) {
        if (rc == CGPROP_ENOMEM) cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        cgprop__view_free(g, v);
        return rc;
    }
    if ((flags & CGPROP_W_STRIP) && (rc = view_strip(g, v))) {
        cgprop__view_free(g, v);
        return rc;
    }
    if ((rc = view_names(g, v))) {
        cgprop__err(g, rc, "write: out of memory");
        cgprop__view_free(g, v);
        return rc;
    }
    view_choose(v, flags);
    if ((rc = view_edge_figures(g, v, flags))) {
        if (rc == CGPROP_ENOMEM) cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        cgprop__view_free(g, v);
        return rc;
    }
    return CGPROP_OK;
}

/* ---- entry points ---- */

static int check_ids(cgprop_graph *g, const char *what, const uint32_t *ids, size_t n)
{
    size_t nn = cgprop_graph_node_count(g);
    if (n && !ids) return cgprop__err(g, CGPROP_EINVAL, "write: %s is NULL with %zu ids", what, n);
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= nn) return cgprop__err(g, CGPROP_EINVAL, "write: %s: no function %u", what, ids[i]);
    return CGPROP_OK;
}

static int check_view_options(cgprop_graph *g, const cgprop_write_options *o)
{
    int rc;
    if ((rc = check_ids(g, "roots", o->roots, o->nroots)) || (rc = check_ids(g, "leaves", o->leaves, o->nleaves)) ||
        (rc = check_ids(g, "focus", o->focus, o->nfocus)) || (rc = check_ids(g, "hide", o->hide, o->nhide)))
        return rc;
    const uint32_t labels = CGPROP_LABEL_TOTAL_PCT | CGPROP_LABEL_SELF_PCT | CGPROP_LABEL_CALLS | CGPROP_LABEL_TOTAL |
                            CGPROP_LABEL_SELF;
    if (o->label & ~labels) return cgprop__err(g, CGPROP_EINVAL, "write: unknown label bits 0x%x", o->label & ~labels);
    if (o->colormap > CGPROP_COLORMAP_PRINT)
        return cgprop__err(g, CGPROP_EINVAL, "write: unknown colour map %u", o->colormap);
    if (!(o->skew > 0) || !isfinite(o->skew))
        return cgprop__err(g, CGPROP_EINVAL, "write: skew must be a finite number above 0");
    return CGPROP_OK;
}

bool cgprop__write_opts_in(cgprop_write_options *o, const cgprop_write_options *opts)
{
    cgprop_write_options_init(o);
    if (!opts) return true;
    /* Each published layout is accepted: the first (without cycles), the
     * one ending with cycles (before the view controls) and the current
     * one; a size between them is no struct's. */
    const size_t old = offsetof(cgprop_write_options, cycles);
    const size_t with_cycles = offsetof(cgprop_write_options, roots);
    if (opts->size > old && opts->size < sizeof *o && opts->size != with_cycles) return false;
    return cgprop__opts_in(o, sizeof *o, opts, old);
}

int cgprop_write(cgprop_graph *g, uint32_t format, const cgprop_write_options *opts, cgprop_write_fn write,
                 void *user)
{
    if (!g) return CGPROP_EINVAL;
    if (!write) return cgprop__err(g, CGPROP_EINVAL, "write: the output callback is NULL");
    cgprop_write_options o;
    if (!cgprop__write_opts_in(&o, opts))
        return cgprop__err(g, CGPROP_EINVAL, "write: options size %u: call cgprop_write_options_init() first",
                           opts->size);
    const uint32_t known = CGPROP_W_HEURISTIC_ONLY | CGPROP_W_NO_CLASSES | CGPROP_W_NO_COMPRESSION | CGPROP_W_NO_PRUNE |
                           CGPROP_W_BOUNDS | CGPROP_W_STRIP | CGPROP_W_WRAP | CGPROP_W_PRUNE_TEXT |
                           CGPROP_W_ICICLE;
    if (o.flags & ~known) return cgprop__err(g, CGPROP_EINVAL, "write: unknown flag bits 0x%x", o.flags & ~known);
    if (o.metric >= cgprop_graph_metric_count(g))
        return cgprop__err(g, CGPROP_EINVAL, "write: metric %u out of range (%zu metrics)", o.metric,
                           cgprop_graph_metric_count(g));
    if (!(o.node_thres >= 0 && o.node_thres <= 100) || !(o.edge_thres >= 0 && o.edge_thres <= 100))
        return cgprop__err(g, CGPROP_EINVAL, "write: thresholds must be percents in [0, 100]");
    if (o.cycles > CGPROP_DOT_CYCLES_NONE)
        return cgprop__err(g, CGPROP_EINVAL, "write: unknown cycle drawing %u", o.cycles);
    int vrc = check_view_options(g, &o);
    if (vrc) return vrc;
    if (format < CGPROP_FORMAT_TEXT || format > CGPROP_FORMAT_FLAMEGRAPH)
        return cgprop__err(g, CGPROP_EINVAL, "write: unknown format %u", format);

    cgprop__wr *w = cgprop__alloc(g, 1, sizeof *w);
    if (!w) return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    w->g = g;
    w->fn = write;
    w->user = user;
    w->failed = 0;
    w->n = 0;
    int rc;
    switch (format) {
    case CGPROP_FORMAT_TEXT: rc = cgprop__write_text(g, &o, w); break;
    case CGPROP_FORMAT_JSON: rc = cgprop__write_json(g, &o, w); break;
    case CGPROP_FORMAT_DOT: rc = cgprop__write_dot(g, &o, w); break;
    case CGPROP_FORMAT_FLAMEGRAPH: rc = cgprop__write_flame(g, &o, w); break;
    default: rc = cgprop__write_callgrind(g, &o, w); break;
    }
    if (rc == CGPROP_OK) rc = cgprop__wr_flush(w);
    cgprop__free(g, w);
    return rc == CGPROP_OK ? cgprop__ok(g) : rc;
}

static int file_sink(void *user, const char *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)user) == len ? 0 : -1;
}

int cgprop_write_path(cgprop_graph *g, uint32_t format, const cgprop_write_options *opts, const char *path,
                      size_t path_len)
{
    if (!g) return CGPROP_EINVAL;
    if (!path || !path_len || memchr(path, '\0', path_len))
        return cgprop__err(g, CGPROP_EINVAL, "write_path: empty path or path with a NUL byte");
    char *p = cgprop__alloc(g, path_len + 1, 1);
    if (!p) return cgprop__err(g, CGPROP_ENOMEM, "write_path: out of memory");
    memcpy(p, path, path_len);
    p[path_len] = '\0';
    /* Writes of 256 KiB rather than stdio's 4 KiB block, the size of the
     * writers' own pieces: on ext4 a 526 MB report written 4 KiB at a time
     * spent half the time in the kernel. Taken before the file is opened,
     * so that running out of memory leaves any file there as it was. */
    char *vb = cgprop__alloc(g, CGPROP__FILE_BUF, 1);
    if (!vb) {
        cgprop__free(g, p);
        return cgprop__err(g, CGPROP_ENOMEM, "write_path: out of memory");
    }
    FILE *f = fopen(p, "wb");
    if (!f) {
        int e = errno;
        cgprop__err(g, CGPROP_EWRITE, "%s: %s", p, cgprop__errno_text(e));
        cgprop__free(g, p);
        cgprop__free(g, vb);
        return CGPROP_EWRITE;
    }
    setvbuf(f, vb, _IOFBF, CGPROP__FILE_BUF);
    int rc = cgprop_write(g, format, opts, file_sink, f);
    int e = ferror(f) ? errno : 0;
    if (fclose(f) != 0 && rc == CGPROP_OK) {
        e = errno;
        rc = CGPROP_EWRITE;
    }
    cgprop__free(g, vb);
    if (rc == CGPROP_EWRITE) cgprop__err(g, CGPROP_EWRITE, "%s: %s", p, e ? cgprop__errno_text(e) : "write failed");
    cgprop__free(g, p);
    return rc == CGPROP_OK ? cgprop__ok(g) : rc;
}

/* ---- the view's selection: roots, leaves, focus, hide, top, thresholds ---- */

int cgprop__view_calls_make(cgprop_graph *g, const cgprop__view *v, cgprop__view_calls *c)
{
    size_t nn = v->nn, ne = v->ne;
    c->ooff = cgprop__calloc(g, nn + 1, sizeof *c->ooff);
    c->ioff = cgprop__calloc(g, nn + 1, sizeof *c->ioff);
    c->out = cgprop__alloc(g, ne ? ne : 1, sizeof *c->out);
    c->in = cgprop__alloc(g, ne ? ne : 1, sizeof *c->in);
    if (!c->ooff || !c->ioff || !c->out || !c->in) {
        cgprop__view_calls_free(g, c);
        return CGPROP_ENOMEM;
    }
    for (size_t e = 0; e < ne; e++) {
        c->ooff[v->edge[e].caller + 1]++;
        c->ioff[v->edge[e].callee + 1]++;
    }
    for (size_t f = 0; f < nn; f++) {
        c->ooff[f + 1] += c->ooff[f];
        c->ioff[f + 1] += c->ioff[f];
    }
    for (size_t e = 0; e < ne; e++) {
        c->out[c->ooff[v->edge[e].caller]++] = (uint32_t)e;
        c->in[c->ioff[v->edge[e].callee]++] = (uint32_t)e;
    }
    /* The cursors ended at the next function's start: shift back. */
    for (size_t f = nn; f > 0; f--) {
        c->ooff[f] = c->ooff[f - 1];
        c->ioff[f] = c->ioff[f - 1];
    }
    c->ooff[0] = c->ioff[0] = 0;
    return CGPROP_OK;
}

void cgprop__view_calls_free(cgprop_graph *g, cgprop__view_calls *c)
{
    cgprop__free(g, c->ooff);
    cgprop__free(g, c->ioff);
    cgprop__free(g, c->out);
    cgprop__free(g, c->in);
    memset(c, 0, sizeof *c);
}

/* Breadth-first from the functions in from, along calls out (out) or in,
 * at most depth calls away: bit set in reach for each function found. */
static void reach_from(const cgprop__view *v, const cgprop__view_calls *c, bool out, const uint32_t *from,
                       size_t nfrom, uint32_t depth, unsigned char bit, unsigned char *reach, uint32_t *queue,
                       uint32_t *dist)
{
    const uint32_t *off = out ? c->ooff : c->ioff, *list = out ? c->out : c->in;
    size_t head = 0, tail = 0;
    for (uint32_t f = 0; f < v->nn; f++) dist[f] = UINT32_MAX;
    for (size_t i = 0; i < nfrom; i++)
        if (dist[from[i]] == UINT32_MAX) {
            dist[from[i]] = 0;
            queue[tail++] = from[i];
        }
    while (head < tail) {
        uint32_t f = queue[head++];
        reach[f] |= bit;
        if (dist[f] >= depth) continue;
        for (uint32_t i = off[f]; i < off[f + 1]; i++) {
            uint32_t h = out ? v->edge[list[i]].callee : v->edge[list[i]].caller;
            if (dist[h] == UINT32_MAX) {
                dist[h] = dist[f] + 1;
                queue[tail++] = h;
            }
        }
    }
}

typedef struct topent {
    double x;
    uint32_t id;
} topent;

static int top_cmp(const void *a, const void *b)
{
    const topent *x = a, *y = b;
    if (x->x != y->x) return x->x > y->x ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static double view_ratio(const cgprop__view *v, double x) { return v->program > 0 ? x / v->program : 0.0; }

/* The hidden sums, made when the first call is hidden: a report that
 * shows every call (the text report by default) needs none, and on a
 * large profile they were the peak's last 9 MB. */
static int hid_alloc(cgprop_graph *g, cgprop__view *v)
{
    size_t nn = v->nn ? v->nn : 1;
    v->hid_out = cgprop__calloc(g, nn, sizeof *v->hid_out);
    v->hid_in = cgprop__calloc(g, nn, sizeof *v->hid_in);
    v->hid_out_est = cgprop__calloc(g, nn, 1);
    v->hid_in_est = cgprop__calloc(g, nn, 1);
    v->hid_out_calls = cgprop__calloc(g, nn, sizeof *v->hid_out_calls);
    v->hid_in_calls = cgprop__calloc(g, nn, sizeof *v->hid_in_calls);
    v->hid_out_n = cgprop__calloc(g, nn, sizeof *v->hid_out_n);
    v->hid_in_n = cgprop__calloc(g, nn, sizeof *v->hid_in_n);
    if (!v->hid_out || !v->hid_in || !v->hid_out_est || !v->hid_in_est || !v->hid_out_calls || !v->hid_in_calls ||
        !v->hid_out_n || !v->hid_in_n)
        return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    return CGPROP_OK;
}

static int eid_cmp(const void *a, const void *b)
{
    uint32_t x = ((const cgprop_edge_row *)a)->id, y = ((const cgprop_edge_row *)b)->id;
    return (x > y) - (x < y);
}

/* Adds the calls out of function f to *r (n of them, room for *cap). */
static int lean_list(cgprop_graph *g, cgprop__view *v, uint32_t f, cgprop_edge_row **r, size_t *n, size_t *cap)
{
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_CALLEES, v->k, f, &it);
    cgprop_edge_row row;
    while (!rc && (rc = cgprop_iter_next(it, &row, sizeof row)) == CGPROP_OK) {
        void *p = *r;
        if (!cgprop__grow(&g->a, &p, cap, *n + 1, sizeof row, 64)) {
            rc = CGPROP_ENOMEM;
            break;
        }
        *r = p;
        (*r)[(*n)++] = row;
    }
    cgprop_iter_free(it);
    return rc == CGPROP_DONE ? CGPROP_OK : rc;
}

/* The lean view's calls: those out of a function shown, by id, each with
 * its figure; and the rows of the functions shown. */
static int lean_rest(cgprop_graph *g, cgprop__view *v, uint32_t flags)
{
    size_t cap = 0, n = 0;
    cgprop_edge_row *r = NULL;
    int rc = CGPROP_OK;
    for (uint32_t f = 0; !rc && f < v->nn; f++)
        if (v->show[f]) rc = lean_list(g, v, f, &r, &n, &cap);
    if (!rc) {
        if (n) qsort(r, n, sizeof *r, eid_cmp);
        v->ne = (uint32_t)n;
        v->edge = cgprop__alloc(g, n ? n : 1, sizeof *v->edge);
        v->eid = cgprop__alloc(g, n ? n : 1, sizeof *v->eid);
        v->eshown = cgprop__alloc(g, n ? n : 1, sizeof *v->eshown);
        v->ehow = cgprop__alloc(g, n ? n : 1, 1);
        v->eshow = cgprop__alloc(g, n ? n : 1, 1);
        if (!v->edge || !v->eid || !v->eshown || !v->ehow || !v->eshow) rc = CGPROP_ENOMEM;
    }
    cgprop_edge_total_row t;
    cgprop_edge_split_row sp;
    for (size_t i = 0; !rc && i < n; i++) {
        v->edge[i] = (cgprop__view_edge){r[i].caller, r[i].callee, r[i].count};
        v->eid[i] = r[i].id;
        rc = cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, v->k, r[i].id, &t, sizeof t);
        if (!rc && v->split) rc = cgprop_graph_get_row(g, CGPROP_ITER_EDGE_SPLIT, v->k, r[i].id, &sp, sizeof sp);
        if (!rc) edge_figure(v, (uint32_t)i, flags, &t, v->split ? &sp : NULL);
    }
    cgprop__free(g, r);
    if (rc) return rc;
    uint32_t m = v->nshown;
    v->rid = cgprop__alloc(g, m ? m : 1, sizeof *v->rid);
    v->node = cgprop__alloc(g, m ? m : 1, sizeof *v->node);
    v->tot = cgprop__alloc(g, m ? m : 1, sizeof *v->tot);
    if (!v->rid || !v->node || !v->tot) return CGPROP_ENOMEM;
    for (uint32_t f = 0; !rc && f < v->nn && v->nrid < m; f++) {
        if (!v->show[f]) continue;
        v->rid[v->nrid] = f;
        rc = cgprop_graph_get_row(g, CGPROP_ITER_NODES, v->k, f, &v->node[v->nrid], sizeof *v->node);
        if (!rc) rc = cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, v->k, f, &v->tot[v->nrid], sizeof *v->tot);
        v->nrid++;
    }
    return rc;
}

int cgprop__view_select(cgprop_graph *g, cgprop__view *v, const cgprop_write_options *o, int prune)
{
    size_t nn = v->nn ? v->nn : 1, ne = v->ne ? v->ne : 1;
    v->show = cgprop__alloc(g, nn, 1);
    /* The lean view makes its calls' arrays with the selection. */
    if (!v->lean) v->eshow = cgprop__alloc(g, ne, 1);
    if (!v->show || (!v->lean && !v->eshow)) return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    memset(v->show, 1, nn);
    int filtered = o->nroots || o->nleaves || o->nfocus;
    if (filtered) {
        cgprop__view_calls c = {0};
        uint32_t *queue = cgprop__alloc(g, nn, sizeof *queue), *dist = cgprop__alloc(g, nn, sizeof *dist);
        unsigned char *reach = cgprop__calloc(g, nn, 1);
        int rc = queue && dist && reach ? CGPROP_OK : CGPROP_ENOMEM;
        /* The walks follow every call: the lean view reads them for these
         * and lets them go. */
        if (!rc && v->lean) rc = (v->edge = cgprop__alloc(g, ne, sizeof *v->edge)) ? view_edges(g, v) : CGPROP_ENOMEM;
        if (!rc && cgprop__view_calls_make(g, v, &c) != CGPROP_OK) rc = CGPROP_ENOMEM;
        if (rc == CGPROP_ENOMEM) rc = cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        if (!rc) {
            if (o->nroots) {
                reach_from(v, &c, true, o->roots, o->nroots, o->depth, 1, reach, queue, dist);
                for (uint32_t f = 0; f < v->nn; f++) v->show[f] &= (reach[f] & 1) != 0;
            }
            if (o->nleaves) {
                reach_from(v, &c, false, o->leaves, o->nleaves, o->depth, 2, reach, queue, dist);
                for (uint32_t f = 0; f < v->nn; f++) v->show[f] &= (reach[f] & 2) != 0;
            }
            if (o->nfocus) {
                reach_from(v, &c, true, o->focus, o->nfocus, CGPROP_DEPTH_ALL, 4, reach, queue, dist);
                reach_from(v, &c, false, o->focus, o->nfocus, CGPROP_DEPTH_ALL, 4, reach, queue, dist);
                for (uint32_t f = 0; f < v->nn; f++) v->show[f] &= (reach[f] & 4) != 0;
            }
        }
        cgprop__view_calls_free(g, &c);
        cgprop__free(g, queue);
        cgprop__free(g, dist);
        cgprop__free(g, reach);
        if (v->lean) {
            cgprop__free(g, v->edge);
            v->edge = NULL;
        }
        if (rc) return rc;
    }
    for (size_t i = 0; i < o->nhide; i++) v->show[o->hide[i]] = 0;
    double nthr = prune ? o->node_thres / 100.0 : 0, ethr = prune ? o->edge_thres / 100.0 : 0;
    for (uint32_t f = 0; f < v->nn; f++)
        if (view_ratio(v, v->shown[f]) < nthr) v->show[f] = 0;
    v->nshown = 0;
    for (uint32_t f = 0; f < v->nn; f++) v->nshown += v->show[f];
    if (o->top && o->top < v->nshown) {
        topent *t = cgprop__alloc(g, v->nshown, sizeof *t);
        if (!t) return cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        uint32_t n = 0;
        for (uint32_t f = 0; f < v->nn; f++)
            if (v->show[f]) t[n++] = (topent){v->shown[f], f};
        qsort(t, n, sizeof *t, top_cmp);
        for (uint32_t i = o->top; i < n; i++) v->show[t[i].id] = 0;
        cgprop__free(g, t);
        v->nshown = o->top;
    }
    if (v->lean) {
        /* The calls out of the functions shown, their rows and names. */
        int rc = lean_rest(g, v, o->flags);
        if (!rc) rc = view_names_lean(g, v);
        if (rc) return rc == CGPROP_ENOMEM ? cgprop__err(g, rc, "write: out of memory") : rc;
    }
    for (uint32_t e = 0; e < v->ne; e++) {
        uint32_t a = v->edge[e].caller, b = v->edge[e].callee;
        int drawn = v->show[a] && v->show[b];
        if (drawn && v->ehow[e] == CGPROP__SHOW_NONE) {
            /* A call with no total of its own (recursive entry, or an
             * intra-cycle call in no DAG): kept while both ends would be,
             * as gprof2dot prunes its total-less calls. */
            double ra = view_ratio(v, v->shown[a]), rb = view_ratio(v, v->shown[b]);
            drawn = (ra < rb ? ra : rb) >= ethr;
        } else if (drawn) {
            drawn = view_ratio(v, v->eshown[e]) >= ethr;
        }
        v->eshow[e] = (unsigned char)drawn;
        if (drawn || a == b || !(v->show[a] || v->show[b])) continue;
        if (!v->hid_out) {
            int rc = hid_alloc(g, v);
            if (rc) return rc;
        }
        /* The call is not drawn: its figure stays with each end shown. */
        int has = v->ehow[e] != CGPROP__SHOW_NONE, est = v->ehow[e] == CGPROP__SHOW_ESTIMATE;
        if (v->show[a]) {
            if (has) v->hid_out[a] += v->eshown[e];
            v->hid_out_est[a] |= (unsigned char)est;
            v->hid_out_calls[a] += v->edge[e].count;
            v->hid_out_n[a]++;
        }
        if (v->show[b]) {
            if (has) v->hid_in[b] += v->eshown[e];
            v->hid_in_est[b] |= (unsigned char)est;
            v->hid_in_calls[b] += v->edge[e].count;
            v->hid_in_n[b]++;
        }
    }
    return CGPROP_OK;
}
