/* Compare writer: how each function's inclusive and self cost changed from
 * one profile (the base) to another (the new one), as text sorted by the
 * size of the change, as DOT (the new graph's shape coloured by the change)
 * and as JSON with every figure. Functions are matched by key. A change is
 * exact only when both sides' figures are: an estimate on either side makes
 * the difference an estimate, and where both sides have proven intervals the
 * difference gets the interval they imply. */
#include "write.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE32 0xFFFFFFFFu

/* One side of a compared figure. */
typedef struct cmp_fig {
    double total, self, lo, hi; /* lo/hi: proven interval, valid when has_bounds */
    uint64_t calls;
    int present, exact, has_bounds, no_total;
    uint32_t estimate; /* cgprop_estimate of the total row (functions) */
} cmp_fig;

/* A compared function (or call): base and new side, both possibly absent. */
typedef struct cmp_row {
    uint32_t b, n; /* base / new id, NONE32 when absent */
    cmp_fig fb, fn;
    double d, dself, dpp, dself_pp; /* changes: absolute and in percentage points */
    int exact;                        /* the change of the total is exact */
    int has_bounds;
    double dlo, dhi;
} cmp_row;

typedef struct cmp_key {
    uint64_t h;
    const char *k;
    size_t len;
    uint32_t id;
} cmp_key;

typedef struct cmp_pair {
    uint32_t a, b, e;
} cmp_pair;

typedef struct cmp {
    cgprop_graph *gb, *gn;
    cgprop__view vb, vn;
    int have_vb, have_vn;
    uint32_t *b2n, *n2b;   /* function matches */
    cmp_row *fr;           /* functions: new ones in id order, then removed ones */
    uint32_t nfr;
    cmp_row *er;           /* calls: new ones in id order, then removed ones */
    uint32_t ner;
    uint32_t *order;       /* fr indices sorted by the size of the change */
    uint32_t flags;
} cmp;

static uint64_t key_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

static int key_cmp(const void *x, const void *y)
{
    const cmp_key *a = x, *b = y;
    if (a->h != b->h) return a->h < b->h ? -1 : 1;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    int c = a->len ? memcmp(a->k, b->k, a->len) : 0;
    if (c) return c;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int pair_cmp(const void *x, const void *y)
{
    const cmp_pair *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return a->e < b->e ? -1 : a->e > b->e;
}

static uint32_t find_pair(const cmp_pair *p, uint32_t n, uint32_t a, uint32_t b)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p[mid].a < a || (p[mid].a == a && p[mid].b < b)) lo = mid + 1;
        else hi = mid;
    }
    return lo < n && p[lo].a == a && p[lo].b == b ? p[lo].e : NONE32;
}

/* The sorted (display name, id) entries of the functions of one side that
 * have no match yet. */
static cmp_key *unmatched_names(cgprop_graph *alloc, cgprop_graph *side, const uint32_t *match, uint32_t n,
                                uint32_t *count)
{
    cmp_key *k = cgprop__alloc(alloc, n ? n : 1, sizeof *k);
    if (!k) return NULL;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (match[i] != NONE32) continue;
        k[m].k = cgprop__wr_name(side, i, &k[m].len);
        k[m].h = key_hash(k[m].k, k[m].len);
        k[m].id = i;
        m++;
    }
    qsort(k, m, sizeof *k, key_cmp);
    *count = m;
    return k;
}

/* How many entries of k[0..n) have the name of q, and the first of them. */
static uint32_t name_range(const cmp_key *k, uint32_t n, const cmp_key *q, uint32_t *first)
{
    cmp_key lo_q = *q;
    lo_q.id = 0;
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_cmp(&k[mid], &lo_q) < 0) lo = mid + 1;
        else hi = mid;
    }
    *first = lo;
    uint32_t r = 0;
    while (lo + r < n && k[lo + r].h == q->h && k[lo + r].len == q->len &&
           (!q->len || !memcmp(k[lo + r].k, q->k, q->len)))
        r++;
    return r;
}

/* Keys hold where a function was built (object, source path), and two
 * builds of one program often differ there only. A function whose key has
 * no match is matched by its display name when that name belongs to exactly
 * one unmatched function on each side. */
static int match_by_name(cmp *c)
{
    cgprop_graph *g = c->gn;
    uint32_t mb, mn;
    cmp_key *kb = unmatched_names(g, c->gb, c->b2n, c->vb.nn, &mb);
    cmp_key *kn = kb ? unmatched_names(g, g, c->n2b, c->vn.nn, &mn) : NULL;
    if (!kb || !kn) {
        if (kb) cgprop__free(g, kb);
        return CGPROP_ENOMEM;
    }
    for (uint32_t i = 0; i < mn; i++) {
        uint32_t fb, fn;
        if (name_range(kn, mn, &kn[i], &fn) != 1 || name_range(kb, mb, &kn[i], &fb) != 1) continue;
        c->n2b[kn[i].id] = kb[fb].id;
        c->b2n[kb[fb].id] = kn[i].id;
    }
    cgprop__free(g, kb);
    cgprop__free(g, kn);
    return CGPROP_OK;
}

/* Match every function of the new graph to the base function with the same
 * key (keys are unique within a graph). */
static int match_functions(cmp *c)
{
    cgprop_graph *g = c->gn;
    uint32_t nb = c->vb.nn, nn = c->vn.nn;
    cmp_key *keys = cgprop__alloc(g, nb ? nb : 1, sizeof *keys);
    c->b2n = cgprop__alloc(g, nb ? nb : 1, sizeof *c->b2n);
    c->n2b = cgprop__alloc(g, nn ? nn : 1, sizeof *c->n2b);
    if (!keys || !c->b2n || !c->n2b) {
        cgprop__free(g, keys);
        return CGPROP_ENOMEM;
    }
    for (uint32_t i = 0; i < nb; i++) {
        keys[i].k = cgprop_graph_node_key(c->gb, i, &keys[i].len);
        if (!keys[i].k) keys[i].k = "", keys[i].len = 0;
        keys[i].h = key_hash(keys[i].k, keys[i].len);
        keys[i].id = i;
        c->b2n[i] = NONE32;
    }
    qsort(keys, nb, sizeof *keys, key_cmp);
    for (uint32_t f = 0; f < nn; f++) {
        cmp_key q;
        q.k = cgprop_graph_node_key(g, f, &q.len);
        if (!q.k) q.k = "", q.len = 0;
        q.h = key_hash(q.k, q.len);
        q.id = 0;
        /* The first base entry not below (h, key, 0). */
        uint32_t lo = 0, hi = nb;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (key_cmp(&keys[mid], &q) < 0) lo = mid + 1;
            else hi = mid;
        }
        c->n2b[f] = NONE32;
        if (lo < nb && keys[lo].h == q.h && keys[lo].len == q.len && (!q.len || !memcmp(keys[lo].k, q.k, q.len)) &&
            c->b2n[keys[lo].id] == NONE32) {
            c->n2b[f] = keys[lo].id;
            c->b2n[keys[lo].id] = f;
        }
    }
    cgprop__free(g, keys);
    return match_by_name(c);
}

static double pct(const cgprop__view *v, double x) { return v->program > 0 ? 100.0 * x / v->program : 0.0; }

static void node_fig(const cgprop__view *v, uint32_t id, uint32_t flags, cmp_fig *f)
{
    memset(f, 0, sizeof *f);
    if (id == NONE32) {
        /* Absent: nothing spent there, exactly. */
        f->exact = f->has_bounds = 1;
        return;
    }
    const cgprop_total_row *t = &v->tot[id];
    f->present = 1;
    f->total = v->shown[id];
    f->self = (double)v->node[id].self;
    f->calls = v->node[id].calls_in;
    f->exact = v->how[id] == CGPROP__SHOW_EXACT;
    /* With HEURISTIC_ONLY every figure shown is gprof2dot's, whatever the
     * row's best figure is. */
    f->estimate = f->exact ? CGPROP_EST_EXACT : (flags & CGPROP_W_HEURISTIC_ONLY) ? CGPROP_EST_HEURISTIC : t->estimate;
    if (f->exact) {
        f->lo = f->hi = f->total;
        f->has_bounds = 1;
    } else if (!(t->flags & CGPROP_F_NO_BOUNDS)) {
        f->lo = t->lo;
        f->hi = t->hi;
        f->has_bounds = 1;
    }
}

static void edge_fig(const cgprop__view *v, uint32_t e, cmp_fig *f)
{
    memset(f, 0, sizeof *f);
    if (e == NONE32) {
        f->exact = 1;
        return;
    }
    f->present = 1;
    f->calls = v->edge[e].count;
    f->no_total = v->ehow[e] == CGPROP__SHOW_NONE;
    f->total = f->no_total ? 0 : v->eshown[e];
    /* A call without a share of its own is an exact 0 in a view whose
     * callee is exact (the call enters recursive activations only). */
    f->exact = v->ehow[e] == CGPROP__SHOW_EXACT || (f->no_total && v->how[v->edge[e].callee] == CGPROP__SHOW_EXACT);
}

static void row_changes(const cmp *c, cmp_row *r, int with_bounds)
{
    r->d = r->fn.total - r->fb.total;
    r->dself = r->fn.self - r->fb.self;
    r->dpp = pct(&c->vn, r->fn.total) - pct(&c->vb, r->fb.total);
    r->dself_pp = pct(&c->vn, r->fn.self) - pct(&c->vb, r->fb.self);
    r->exact = r->fb.exact && r->fn.exact;
    r->has_bounds = with_bounds && r->fb.has_bounds && r->fn.has_bounds;
    if (r->has_bounds) {
        r->dlo = r->fn.lo - r->fb.hi;
        r->dhi = r->fn.hi - r->fb.lo;
    }
}

static int build_rows(cmp *c)
{
    cgprop_graph *g = c->gn;
    uint32_t nb = c->vb.nn, nn = c->vn.nn, removed = 0;
    for (uint32_t i = 0; i < nb; i++) removed += c->b2n[i] == NONE32;
    c->nfr = nn + removed;
    c->fr = cgprop__alloc(g, c->nfr ? c->nfr : 1, sizeof *c->fr);
    c->order = cgprop__alloc(g, c->nfr ? c->nfr : 1, sizeof *c->order);
    if (!c->fr || !c->order) return CGPROP_ENOMEM;
    uint32_t r = 0;
    for (uint32_t f = 0; f < nn; f++, r++) {
        c->fr[r].n = f;
        c->fr[r].b = c->n2b[f];
    }
    for (uint32_t i = 0; i < nb; i++)
        if (c->b2n[i] == NONE32) {
            c->fr[r].n = NONE32;
            c->fr[r].b = i;
            r++;
        }
    for (r = 0; r < c->nfr; r++) {
        cmp_row *x = &c->fr[r];
        node_fig(&c->vb, x->b, c->flags, &x->fb);
        node_fig(&c->vn, x->n, c->flags, &x->fn);
        row_changes(c, x, 1);
        c->order[r] = r;
    }

    /* Calls, matched through their two ends. */
    uint32_t eb = c->vb.ne, en = c->vn.ne;
    cmp_pair *pb = cgprop__alloc(g, eb ? eb : 1, sizeof *pb);
    unsigned char *seen = cgprop__calloc(g, eb ? eb : 1, 1);
    if (!pb || !seen) {
        cgprop__free(g, pb);
        cgprop__free(g, seen);
        return CGPROP_ENOMEM;
    }
    for (uint32_t e = 0; e < eb; e++) {
        pb[e].a = c->vb.edge[e].caller;
        pb[e].b = c->vb.edge[e].callee;
        pb[e].e = e;
    }
    qsort(pb, eb, sizeof *pb, pair_cmp);
    uint32_t *match = cgprop__alloc(g, en ? en : 1, sizeof *match);
    if (!match) {
        cgprop__free(g, pb);
        cgprop__free(g, seen);
        return CGPROP_ENOMEM;
    }
    removed = eb;
    for (uint32_t e = 0; e < en; e++) {
        uint32_t a = c->n2b[c->vn.edge[e].caller], b = c->n2b[c->vn.edge[e].callee];
        match[e] = a == NONE32 || b == NONE32 ? NONE32 : find_pair(pb, eb, a, b);
        if (match[e] != NONE32 && !seen[match[e]]) {
            seen[match[e]] = 1;
            removed--;
        } else {
            match[e] = NONE32;
        }
    }
    c->ner = en + removed;
    c->er = cgprop__alloc(g, c->ner ? c->ner : 1, sizeof *c->er);
    if (c->er) {
        r = 0;
        for (uint32_t e = 0; e < en; e++, r++) {
            c->er[r].n = e;
            c->er[r].b = match[e];
        }
        for (uint32_t e = 0; e < eb; e++)
            if (!seen[e]) {
                c->er[r].n = NONE32;
                c->er[r].b = e;
                r++;
            }
        for (r = 0; r < c->ner; r++) {
            cmp_row *x = &c->er[r];
            edge_fig(&c->vb, x->b, &x->fb);
            edge_fig(&c->vn, x->n, &x->fn);
            row_changes(c, x, 0);
        }
    }
    cgprop__free(g, match);
    cgprop__free(g, pb);
    cgprop__free(g, seen);
    return c->er ? CGPROP_OK : CGPROP_ENOMEM;
}

static const char *row_name(const cmp *c, const cmp_row *r, size_t *len)
{
    return r->n != NONE32 ? cgprop__wr_name(c->gn, r->n, len) : cgprop__wr_name(c->gb, r->b, len);
}

/* The qualifier that tells a display name apart, from the side the row is on. */
static size_t row_qual(const cmp *c, const cmp_row *r, char *q, size_t cap)
{
    return r->n != NONE32 ? cgprop__view_qual(c->gn, &c->vn, r->n, q, cap) : cgprop__view_qual(c->gb, &c->vb, r->b, q, cap);
}

/* qsort has no context argument: the sort runs on (key, index) pairs. */
typedef struct sort_ent {
    double d, dpp, ds;
    uint32_t i;
} sort_ent;

static int by_change(const void *x, const void *y)
{
    const sort_ent *a = x, *b = y;
    if (a->d != b->d) return a->d > b->d ? -1 : 1;
    if (a->dpp != b->dpp) return a->dpp > b->dpp ? -1 : 1;
    if (a->ds != b->ds) return a->ds > b->ds ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static int sort_rows(cmp *c)
{
    sort_ent *s = cgprop__alloc(c->gn, c->nfr ? c->nfr : 1, sizeof *s);
    if (!s) return CGPROP_ENOMEM;
    for (uint32_t i = 0; i < c->nfr; i++) {
        s[i].d = fabs(c->fr[i].d);
        s[i].dpp = fabs(c->fr[i].dpp);
        s[i].ds = fabs(c->fr[i].dself);
        s[i].i = i;
    }
    qsort(s, c->nfr, sizeof *s, by_change);
    for (uint32_t i = 0; i < c->nfr; i++) c->order[i] = s[i].i;
    cgprop__free(c->gn, s);
    return CGPROP_OK;
}

static const char *status_name(const cmp_row *r)
{
    if (r->b == NONE32) return "added";
    if (r->n == NONE32) return "removed";
    return r->d == 0 && r->dself == 0 ? "same" : "changed";
}

/* ---- text ---- */

/* A figure as a person reads it: '~' before estimates. */
static void put_fig(cgprop__wr *w, int width, double x, int exact, int sign)
{
    char b[64];
    snprintf(b, sizeof b, sign ? "%s%+.0f" : "%s%.0f", exact ? "" : "~", x);
    cgprop__wr_printf(w, "%*s", width, b);
}

static void put_pp(cgprop__wr *w, int width, double x, int exact)
{
    char b[64];
    snprintf(b, sizeof b, "%s%+.2f", exact ? "" : "~", x);
    cgprop__wr_printf(w, "%*s", width, b);
}

/* Names are escaped as in the text report: a control byte could forge a
 * row or drive the terminal. */
static void put_text_name(cgprop__wr *w, const char *s, size_t len)
{
    char b[4 * 256];
    for (size_t at = 0; at < len; at += 256) {
        size_t n = len - at < 256 ? len - at : 256;
        cgprop__wr_put(w, b, cgprop__text_name(b, s + at, n));
    }
}

static int write_text(cmp *c, const cgprop_write_options *o, cgprop__wr *w)
{
    size_t ml;
    const char *mn = cgprop_graph_metric_name(c->gn, o->metric, &ml);
    double pb = c->vb.program, pn = c->vn.program;
    cgprop__wr_puts(w, "Compare: metric ");
    put_text_name(w, mn, ml);
    cgprop__wr_printf(w, "\nProgram total: base %.0f, new %.0f, change %+.0f", pb, pn, pn - pb);
    if (pb > 0) cgprop__wr_printf(w, " (%+.2f%% of base)", 100.0 * (pn - pb) / pb);
    uint32_t added = 0, removed = 0, changed = 0, est = 0;
    for (uint32_t i = 0; i < c->nfr; i++) {
        const cmp_row *r = &c->fr[i];
        added += r->b == NONE32;
        removed += r->n == NONE32;
        changed += r->b != NONE32 && r->n != NONE32 && (r->d != 0 || r->dself != 0);
        est += !r->exact;
    }
    cgprop__wr_printf(w, "\nFunctions: %u in base, %u in new; %u added, %u removed, %u changed\n", c->vb.nn, c->vn.nn,
                      added, removed, changed);
    cgprop__wr_printf(w, "Changes of inclusive totals: %u exact, %u estimates ('~': a side's total is an estimate)\n",
                      c->nfr - est, est);
    cgprop__wr_puts(w, "'pp': percentage points of each program's total (new % minus base %)\n\n");
    cgprop__wr_printf(w, "%14s %9s %14s %8s %14s %8s %12s %9s  %s\n", "change", "pp", "base total", "base %", "new total",
                      "new %", "self change", "self pp", "function");
    for (uint32_t i = 0; i < c->nfr && !w->failed; i++) {
        const cmp_row *r = &c->fr[c->order[i]];
        put_fig(w, 14, r->d, r->exact, 1);
        cgprop__wr_put(w, " ", 1);
        put_pp(w, 9, r->dpp, r->exact);
        cgprop__wr_put(w, " ", 1);
        if (r->fb.present) {
            put_fig(w, 14, r->fb.total, r->fb.exact, 0);
            cgprop__wr_printf(w, " %7.2f%%", pct(&c->vb, r->fb.total));
        } else {
            cgprop__wr_printf(w, "%14s %8s", "-", "-");
        }
        cgprop__wr_put(w, " ", 1);
        if (r->fn.present) {
            put_fig(w, 14, r->fn.total, r->fn.exact, 0);
            cgprop__wr_printf(w, " %7.2f%%", pct(&c->vn, r->fn.total));
        } else {
            cgprop__wr_printf(w, "%14s %8s", "-", "-");
        }
        cgprop__wr_printf(w, " %+12.0f %+9.2f  ", r->dself, r->dself_pp);
        size_t len;
        const char *name = row_name(c, r, &len);
        put_text_name(w, name, len);
        char q[300];
        size_t ql = row_qual(c, r, q, sizeof q);
        if (ql) put_text_name(w, q, ql);
        if (r->b == NONE32) cgprop__wr_puts(w, " (added)");
        else if (r->n == NONE32) cgprop__wr_puts(w, " (removed)");
        if ((o->flags & CGPROP_W_BOUNDS) && !r->exact) {
            if (r->has_bounds) cgprop__wr_printf(w, "  change in [%+.0f, %+.0f]", r->dlo, r->dhi);
            else cgprop__wr_puts(w, "  change: no interval");
        }
        cgprop__wr_put(w, "\n", 1);
    }
    return CGPROP_OK;
}

/* ---- JSON ---- */

static void json_side(cmp *c, cgprop__wr *w, const cgprop__view *v, const cmp_fig *f, int is_node)
{
    if (!f->present) {
        cgprop__wr_puts(w, "null");
        return;
    }
    (void)c;
    cgprop__wr_puts(w, "{\"total\": ");
    if (f->no_total) cgprop__wr_puts(w, "null");
    else cgprop__wr_json_double(w, f->total);
    cgprop__wr_puts(w, ", \"percent\": ");
    cgprop__wr_json_double(w, pct(v, f->total));
    if (is_node) {
        cgprop__wr_puts(w, ", \"self\": ");
        cgprop__wr_json_double(w, f->self);
        cgprop__wr_puts(w, ", \"self_percent\": ");
        cgprop__wr_json_double(w, pct(v, f->self));
        cgprop__wr_puts(w, ", \"called\": ");
    } else {
        cgprop__wr_puts(w, ", \"count\": ");
    }
    cgprop__wr_u64(w, f->calls);
    cgprop__wr_printf(w, ", \"exact\": %s", f->exact ? "true" : "false");
    if (is_node) {
        cgprop__wr_puts(w, ", \"estimate\": ");
        if (f->exact) cgprop__wr_puts(w, "null");
        else cgprop__wr_json_str(w, cgprop__wr_estimate_name(f->estimate), strlen(cgprop__wr_estimate_name(f->estimate)));
        cgprop__wr_puts(w, ", \"bounds\": ");
        if (f->has_bounds) {
            cgprop__wr_puts(w, "[");
            cgprop__wr_json_double(w, f->lo);
            cgprop__wr_puts(w, ", ");
            cgprop__wr_json_double(w, f->hi);
            cgprop__wr_puts(w, "]");
        } else {
            cgprop__wr_puts(w, "null");
        }
    }
    cgprop__wr_puts(w, "}");
}

static void json_delta(cgprop__wr *w, const cmp *c, const cmp_row *r, int is_node)
{
    cgprop__wr_puts(w, "{\"total\": ");
    cgprop__wr_json_double(w, r->d);
    cgprop__wr_puts(w, ", \"percent_points\": ");
    cgprop__wr_json_double(w, r->dpp);
    cgprop__wr_puts(w, ", \"percent_of_base\": ");
    if (c->vb.program > 0) cgprop__wr_json_double(w, 100.0 * r->d / c->vb.program);
    else cgprop__wr_puts(w, "null");
    if (is_node) {
        cgprop__wr_puts(w, ", \"self\": ");
        cgprop__wr_json_double(w, r->dself);
        cgprop__wr_puts(w, ", \"self_percent_points\": ");
        cgprop__wr_json_double(w, r->dself_pp);
    }
    cgprop__wr_printf(w, ", \"exact\": %s", r->exact ? "true" : "false");
    if (is_node) {
        cgprop__wr_puts(w, ", \"bounds\": ");
        if (r->has_bounds) {
            cgprop__wr_puts(w, "[");
            cgprop__wr_json_double(w, r->dlo);
            cgprop__wr_puts(w, ", ");
            cgprop__wr_json_double(w, r->dhi);
            cgprop__wr_puts(w, "]");
        } else {
            cgprop__wr_puts(w, "null");
        }
    }
    cgprop__wr_puts(w, "}");
}

static void json_key(cgprop__wr *w, cgprop_graph *g, uint32_t id)
{
    size_t len;
    const char *k = cgprop_graph_node_key(g, id, &len);
    cgprop__wr_json_str(w, k ? k : "", k ? len : 0);
}

static void json_program(cgprop__wr *w, const char *what, const cgprop__view *v)
{
    cgprop__wr_printf(w, "  \"%s\": {\"program\": ", what);
    cgprop__wr_json_double(w, v->program);
    cgprop__wr_printf(w, ", \"functions\": %u, \"calls\": %u},\n", v->nn, v->ne);
}

static int write_json(cmp *c, const cgprop_write_options *o, cgprop__wr *w)
{
    size_t ml;
    const char *mn = cgprop_graph_metric_name(c->gn, o->metric, &ml);
    cgprop__wr_puts(w, "{\n  \"compare\": 1,\n  \"metric\": ");
    cgprop__wr_json_str(w, mn, ml);
    cgprop__wr_puts(w, ",\n");
    json_program(w, "base", &c->vb);
    json_program(w, "new", &c->vn);
    cgprop__wr_puts(w, "  \"change\": {\"program\": ");
    cgprop__wr_json_double(w, c->vn.program - c->vb.program);
    cgprop__wr_puts(w, ", \"percent_of_base\": ");
    if (c->vb.program > 0) cgprop__wr_json_double(w, 100.0 * (c->vn.program - c->vb.program) / c->vb.program);
    else cgprop__wr_puts(w, "null");
    cgprop__wr_puts(w, "},\n  \"functions\": [");
    for (uint32_t i = 0; i < c->nfr && !w->failed; i++) {
        const cmp_row *r = &c->fr[c->order[i]];
        size_t len;
        const char *name = row_name(c, r, &len);
        cgprop__wr_puts(w, i ? ",\n    {\"key\": " : "\n    {\"key\": ");
        if (r->n != NONE32) json_key(w, c->gn, r->n);
        else json_key(w, c->gb, r->b);
        if (r->n != NONE32 && r->b != NONE32) {
            /* Matched by display name: the base's key is another. */
            size_t lb, ln;
            const char *kb = cgprop_graph_node_key(c->gb, r->b, &lb), *kn = cgprop_graph_node_key(c->gn, r->n, &ln);
            if (kb && kn && (lb != ln || memcmp(kb, kn, ln))) {
                cgprop__wr_puts(w, ", \"base_key\": ");
                json_key(w, c->gb, r->b);
            }
        }
        cgprop__wr_puts(w, ", \"name\": ");
        cgprop__wr_json_str(w, name, len);
        cgprop__wr_printf(w, ", \"status\": \"%s\", \"base\": ", status_name(r));
        json_side(c, w, &c->vb, &r->fb, 1);
        cgprop__wr_puts(w, ", \"new\": ");
        json_side(c, w, &c->vn, &r->fn, 1);
        cgprop__wr_puts(w, ", \"change\": ");
        json_delta(w, c, r, 1);
        cgprop__wr_puts(w, "}");
    }
    cgprop__wr_puts(w, "\n  ],\n  \"calls\": [");
    for (uint32_t i = 0; i < c->ner && !w->failed; i++) {
        const cmp_row *r = &c->er[i];
        const cgprop__view *v = r->n != NONE32 ? &c->vn : &c->vb;
        cgprop_graph *g = r->n != NONE32 ? c->gn : c->gb;
        uint32_t e = r->n != NONE32 ? r->n : r->b;
        cgprop__wr_puts(w, i ? ",\n    {\"caller\": " : "\n    {\"caller\": ");
        json_key(w, g, v->edge[e].caller);
        cgprop__wr_puts(w, ", \"callee\": ");
        json_key(w, g, v->edge[e].callee);
        cgprop__wr_printf(w, ", \"status\": \"%s\", \"base\": ",
                          r->b == NONE32 ? "added" : r->n == NONE32 ? "removed" : r->d == 0 ? "same" : "changed");
        json_side(c, w, &c->vb, &r->fb, 0);
        cgprop__wr_puts(w, ", \"new\": ");
        json_side(c, w, &c->vn, &r->fn, 0);
        cgprop__wr_puts(w, ", \"change\": ");
        json_delta(w, c, r, 0);
        cgprop__wr_puts(w, "}");
    }
    cgprop__wr_puts(w, "\n  ]\n}\n");
    return CGPROP_OK;
}

/* ---- DOT ---- */

/* Diverging colour scale: light grey for no change, to red where the new
 * profile spends more and to blue where it spends less; weight in [-1, 1]
 * is the change over the largest change drawn (gprof2dot's
 * --compare-color-by-difference scales the same way). */
static void diff_colour(double weight, char out[8], char font[8])
{
    static const double grey[3] = {0xf0, 0xf0, 0xf0}, red[3] = {0xcb, 0x18, 0x1d}, blue[3] = {0x21, 0x66, 0xac};
    if (!(weight == weight)) weight = 0;
    if (weight > 1) weight = 1;
    if (weight < -1) weight = -1;
    const double *to = weight >= 0 ? red : blue;
    double t = fabs(weight);
    int rgb[3];
    for (int i = 0; i < 3; i++) rgb[i] = (int)(grey[i] + (to[i] - grey[i]) * t + 0.5);
    snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
    snprintf(font, 8, "%s", t > 0.5 ? "#ffffff" : "#000000");
}

static void dot_node(cmp *c, cgprop__wr *w, uint32_t ri, double scale)
{
    const cmp_row *r = &c->fr[ri];
    char col[8], font[8];
    diff_colour(scale > 0 ? r->dpp / scale : 0, col, font);
    int added = r->b == NONE32, removed = r->n == NONE32;
    const char *style = removed ? "filled,dashed" : r->exact ? "filled" : "filled,dashed";
    cgprop__wr_printf(w, "  c%u [color=\"%s\", fillcolor=\"%s\", fontcolor=\"%s\", style=\"%s\"%s, tooltip=\"base ", ri,
                      removed ? "#808080" : added ? "#000000" : col, col, font, style,
                      added ? ", penwidth=\"2\"" : "");
    if (r->fb.present) cgprop__wr_printf(w, "%s%.0f", r->fb.exact ? "" : "~", r->fb.total);
    else cgprop__wr_puts(w, "-");
    cgprop__wr_puts(w, ", new ");
    if (r->fn.present) cgprop__wr_printf(w, "%s%.0f", r->fn.exact ? "" : "~", r->fn.total);
    else cgprop__wr_puts(w, "-");
    cgprop__wr_printf(w, ", change %s%+.0f", r->exact ? "" : "~", r->d);
    if (!r->exact && r->has_bounds) cgprop__wr_printf(w, " in [%+.0f, %+.0f]", r->dlo, r->dhi);
    cgprop__wr_puts(w, "\", label=\"");
    size_t len;
    const char *name = row_name(c, r, &len);
    cgprop__dot_name(w, name, len);
    char q[300];
    size_t ql = row_qual(c, r, q, sizeof q);
    if (ql) cgprop__dot_name(w, q, ql);
    const cmp_fig *f = removed ? &r->fb : &r->fn;
    const cgprop__view *v = removed ? &c->vb : &c->vn;
    cgprop__wr_printf(w, "\\n%s%.2f%% (%s%+.2f)\\n(self %.2f%%, %+.2f)", f->exact ? "" : "~", pct(v, f->total),
                      r->exact ? "" : "~", r->dpp, pct(v, f->self), r->dself_pp);
    if (added) cgprop__wr_puts(w, "\\nnew");
    else if (removed) cgprop__wr_puts(w, "\\nremoved");
    else if (r->fb.calls != r->fn.calls)
        cgprop__wr_printf(w, "\\n%llu\xc3\x97 (was %llu\xc3\x97)", (unsigned long long)r->fn.calls,
                          (unsigned long long)r->fb.calls);
    else if (r->fn.calls)
        cgprop__wr_printf(w, "\\n%llu\xc3\x97", (unsigned long long)r->fn.calls);
    cgprop__wr_puts(w, "\"];\n");
}

static int write_dot(cmp *c, const cgprop_write_options *o, cgprop__wr *w)
{
    cgprop_graph *g = c->gn;
    double nthr = (o->flags & CGPROP_W_NO_PRUNE) ? 0 : o->node_thres;
    double ethr = (o->flags & CGPROP_W_NO_PRUNE) ? 0 : o->edge_thres;
    /* Drawn functions by row: those of the new graph, and removed ones,
     * above the threshold on either side. */
    unsigned char *keep = cgprop__alloc(g, c->nfr ? c->nfr : 1, 1);
    uint32_t *rown = cgprop__alloc(g, c->vn.nn ? c->vn.nn : 1, sizeof *rown);
    uint32_t *rowb = cgprop__alloc(g, c->vb.nn ? c->vb.nn : 1, sizeof *rowb);
    if (!keep || !rown || !rowb) {
        cgprop__free(g, keep);
        cgprop__free(g, rown);
        cgprop__free(g, rowb);
        return CGPROP_ENOMEM;
    }
    double scale = 0;
    for (uint32_t i = 0; i < c->nfr; i++) {
        const cmp_row *r = &c->fr[i];
        double pb = pct(&c->vb, r->fb.total), pn = pct(&c->vn, r->fn.total);
        keep[i] = (pb > pn ? pb : pn) >= nthr;
        if (r->n != NONE32) rown[r->n] = i;
        if (r->b != NONE32) rowb[r->b] = i;
        if (keep[i] && fabs(r->dpp) > scale) scale = fabs(r->dpp);
    }
    size_t ml;
    const char *mn = cgprop_graph_metric_name(g, o->metric, &ml);
    cgprop__wr_puts(w, "digraph cgprop_compare {\n  graph [fontname=\"Arial\", nodesep=\"0.125\", ranksep=\"0.25\", "
                       "labelloc=\"t\", label=\"metric ");
    cgprop__dot_name(w, mn, ml);
    cgprop__wr_printf(w, ": new %% (change in percentage points); red: new spends more, blue: less "
                         "(full colour at %.2f pp); '~' and dashed: estimate\"];\n",
                      scale);
    cgprop__wr_puts(w, "  node [fontname=\"Arial\", fontsize=\"10.00\", height=\"0\", shape=\"box\", width=\"0\"];\n"
                       "  edge [fontname=\"Arial\", fontsize=\"10.00\"];\n");
    for (uint32_t i = 0; i < c->nfr && !w->failed; i++)
        if (keep[i]) dot_node(c, w, i, scale);
    for (uint32_t i = 0; i < c->ner && !w->failed; i++) {
        const cmp_row *r = &c->er[i];
        int removed = r->n == NONE32;
        const cgprop__view *v = removed ? &c->vb : &c->vn;
        uint32_t e = removed ? r->b : r->n;
        const uint32_t *rowof = removed ? rowb : rown;
        uint32_t a = rowof[v->edge[e].caller], b = rowof[v->edge[e].callee];
        if (!keep[a] || !keep[b]) continue;
        const cmp_fig *f = removed ? &r->fb : &r->fn;
        double pe = pct(v, f->total), po = pct(removed ? &c->vn : &c->vb, removed ? r->fn.total : r->fb.total);
        if (f->no_total) {
            /* As DOT keeps a call without a total of its own while both ends
             * are above the threshold. */
            double pa = pct(v, removed ? c->fr[a].fb.total : c->fr[a].fn.total);
            double pc = pct(v, removed ? c->fr[b].fb.total : c->fr[b].fn.total);
            if ((pa < pc ? pa : pc) < ethr) continue;
        } else if ((pe > po ? pe : po) < ethr) {
            continue;
        }
        char col[8], font[8];
        diff_colour(scale > 0 ? r->dpp / scale : 0, col, font);
        if (removed || !strcmp(col, "#f0f0f0")) snprintf(col, sizeof col, "%s", "#808080");
        double pen = 4.0 * pe / 100.0 < 0.5 ? 0.5 : 4.0 * pe / 100.0;
        cgprop__wr_printf(w, "  c%u -> c%u [color=\"%s\", fontcolor=\"%s\", penwidth=\"%.2f\", arrowsize=\"%.2f\"", a,
                          b, col, col, pen, 0.5 * sqrt(pen));
        if (removed) {
            cgprop__wr_puts(w, ", style=\"dotted\", label=\"removed");
            if (f->calls) cgprop__wr_printf(w, "\\n%llu\xc3\x97", (unsigned long long)f->calls);
            cgprop__wr_puts(w, "\"];\n");
            continue;
        }
        if (f->no_total) cgprop__wr_puts(w, ", style=\"dotted\", label=\"");
        else
            cgprop__wr_printf(w, "%s, label=\"%s%.2f%% (%s%+.2f)", r->exact ? "" : ", style=\"dashed\"",
                              f->exact ? "" : "~", pe, r->exact ? "" : "~", r->dpp);
        /* Counts when the input has them (stacks have none). */
        if (f->calls || r->fb.calls) {
            cgprop__wr_printf(w, "%s%llu\xc3\x97", f->no_total ? "" : "\\n", (unsigned long long)f->calls);
            if (r->b != NONE32 && r->fb.calls != f->calls)
                cgprop__wr_printf(w, " (was %llu\xc3\x97)", (unsigned long long)r->fb.calls);
        }
        if (r->b == NONE32) cgprop__wr_puts(w, f->no_total && !f->calls ? "new" : "\\nnew");
        cgprop__wr_puts(w, "\"];\n");
    }
    cgprop__wr_puts(w, "}\n");
    cgprop__free(g, keep);
    cgprop__free(g, rown);
    cgprop__free(g, rowb);
    return CGPROP_OK;
}

/* ---- entry point ---- */

static void cmp_free(cmp *c)
{
    cgprop_graph *g = c->gn;
    if (c->have_vb) cgprop__view_free(c->gb, &c->vb);
    if (c->have_vn) cgprop__view_free(g, &c->vn);
    void *p[] = {c->b2n, c->n2b, c->fr, c->er, c->order};
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (p[i]) cgprop__free(g, p[i]);
}

int cgprop_write_compare(cgprop_graph *base, cgprop_graph *g, uint32_t format, const cgprop_write_options *opts,
                         cgprop_write_fn write, void *user)
{
    if (!g) return CGPROP_EINVAL;
    if (!base) return cgprop__err(g, CGPROP_EINVAL, "compare: the base graph is NULL");
    if (!write) return cgprop__err(g, CGPROP_EINVAL, "compare: the output callback is NULL");
    cgprop_write_options o;
    if (!cgprop__write_opts_in(&o, opts))
        return cgprop__err(g, CGPROP_EINVAL, "compare: options size %u: call cgprop_write_options_init() first",
                           opts->size);
    /* The flags a comparison has a use for; any other is refused rather
     * than silently ignored. */
    const uint32_t known = CGPROP_W_HEURISTIC_ONLY | CGPROP_W_NO_PRUNE | CGPROP_W_BOUNDS;
    if (o.flags & ~known)
        return cgprop__err(g, CGPROP_EINVAL, "compare: flag bits 0x%x do not apply to a comparison", o.flags & ~known);
    /* The view controls choose functions of one graph; a comparison shows
     * every change, so they are refused rather than silently ignored. */
    if (o.nroots || o.nleaves || o.nfocus || o.nhide || o.top)
        return cgprop__err(g, CGPROP_EINVAL, "compare: the view controls (roots, leaves, focus, hide, top) do not "
                                             "apply to a comparison");
    if (o.metric >= cgprop_graph_metric_count(g))
        return cgprop__err(g, CGPROP_EINVAL, "compare: metric %u out of range (%zu metrics)", o.metric,
                           cgprop_graph_metric_count(g));
    if (!(o.node_thres >= 0 && o.node_thres <= 100) || !(o.edge_thres >= 0 && o.edge_thres <= 100))
        return cgprop__err(g, CGPROP_EINVAL, "compare: thresholds must be percents in [0, 100]");
    if (format != CGPROP_FORMAT_TEXT && format != CGPROP_FORMAT_JSON && format != CGPROP_FORMAT_DOT)
        return cgprop__err(g, CGPROP_EINVAL, "compare: format %u is not text, JSON or DOT", format);
    /* The same metric, found by name in the base. */
    size_t ml;
    const char *mn = cgprop_graph_metric_name(g, o.metric, &ml);
    uint32_t kb = 0;
    if (cgprop_graph_find_metric(base, mn, ml, &kb) != CGPROP_OK) {
        return cgprop__err(g, CGPROP_EINVAL, "compare: the base profile has no metric '%.*s'", (int)(ml > 200 ? 200 : ml),
                           mn);
    }

    cmp c;
    memset(&c, 0, sizeof c);
    c.gb = base;
    c.gn = g;
    c.flags = o.flags;
    int rc = cgprop__view_load(base, kb, o.flags, false, &c.vb);
    if (rc) {
        if (rc == CGPROP_ESTATE)
            return cgprop__err(g, rc, "compare: base: %s (analyse both graphs first)", cgprop_graph_errmsg(base));
        return cgprop__err(g, rc, "compare: base: %s", cgprop_graph_errmsg(base));
    }
    c.have_vb = 1;
    if ((rc = cgprop__view_load(g, o.metric, o.flags, false, &c.vn)) != CGPROP_OK) {
        cmp_free(&c);
        return rc;
    }
    c.have_vn = 1;
    cgprop__wr *w = NULL;
    if (!(rc = match_functions(&c)) && !(rc = build_rows(&c)) && !(rc = sort_rows(&c))) {
        w = cgprop__alloc(g, 1, sizeof *w);
        if (!w) rc = CGPROP_ENOMEM;
    }
    if (!rc) {
        w->g = g;
        w->fn = write;
        w->user = user;
        w->failed = 0;
        w->n = 0;
        if (format == CGPROP_FORMAT_TEXT) rc = write_text(&c, &o, w);
        else if (format == CGPROP_FORMAT_JSON) rc = write_json(&c, &o, w);
        else rc = write_dot(&c, &o, w);
        if (!rc) rc = cgprop__wr_flush(w);
    }
    if (w) cgprop__free(g, w);
    cmp_free(&c);
    if (rc == CGPROP_ENOMEM) return cgprop__err(g, rc, "compare: out of memory");
    return rc == CGPROP_OK ? cgprop__ok(g) : rc;
}
