/* Text writer: a flat profile and a gprof-like call graph for one metric.
 * Totals are the exact C_n wherever the split has it, else gprof2dot's
 * per-root estimate marked '~': a view meant for people shows the best
 * figure there is and says when it is an estimate. */
#include "write.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    double key;
    uint32_t id; /* function id, or nn + cycle id for a cycle as a whole */
} entry;

static int by_total_desc(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->key > y->key) return -1;
    if (x->key < y->key) return 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static size_t fmt_f0(char *b, double x) { return cgprop__fmt_fixed(b, x, 0); }
static size_t fmt_f2(char *b, double x) { return cgprop__fmt_fixed(b, x, 2); }

/* A line's fields are laid out in a buffer of their own (LINE_MAX_FIELDS
 * bytes hold the widest: five figures of at most 48 bytes, two counts and
 * the padding) and handed to the output at once, the name after them. */
#define LINE_MAX_FIELDS 512

static char *l_sp(char *p, size_t n)
{
    memset(p, ' ', n);
    return p + n;
}

static char *l_s(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* s in a field of width: printf's "%*s" (right) and "%-*s" (left). */
static char *l_r(char *p, const char *s, size_t n, size_t width)
{
    if (n < width) p = l_sp(p, width - n);
    return l_s(p, s, n);
}

static char *l_l(char *p, const char *s, size_t n, size_t width)
{
    p = l_s(p, s, n);
    return n < width ? l_sp(p, width - n) : p;
}

static char *l_ru(char *p, uint64_t x, size_t width)
{
    char b[CGPROP__NUM_MAX];
    return l_r(p, b, cgprop__fmt_u64(b, x), width);
}

/* A cost as a person reads it: exact integers as they are, estimates
 * rounded and prefixed with '~'. */
static const char *fig(char *b, size_t n, double x, int how)
{
    if (how == CGPROP__SHOW_NONE) {
        b[0] = '-';
        b[1] = 0;
    } else if (how == CGPROP__SHOW_EXACT) {
        fmt_f0(b, x);
    } else if (fabs(x) < 1e15) {
        b[0] = '~';
        fmt_f0(b + 1, x);
    } else {
        snprintf(b, n, "~%.0f", x); /* a long one cut at the buffer's end, as it always was */
    }
    return b;
}

/* An exact figure as the integer it is: a double holds integers exactly
 * only up to 2^53. The exact totals are the split's C_n of a function and
 * C_nn + C_rn of a call (see cgprop__view_load); "-" prefixes a negative
 * difference. */
static const char *fig_exact(char *b, size_t n, double x, int how, uint64_t plus, uint64_t minus)
{
    if (how != CGPROP__SHOW_EXACT) return fig(b, n, x, how);
    /* The integer is the figure's own only when it converts to the figure
     * shown (an exact figure the measured calls pin down has no split
     * integer behind it): otherwise the double, exact below 2^53. */
    double v = plus >= minus ? (double)(plus - minus) : -(double)(minus - plus);
    if (v != x) return fig(b, n, x, how);
    if (plus >= minus) {
        b[cgprop__fmt_u64(b, plus - minus)] = 0;
    } else {
        b[0] = '-';
        b[1 + cgprop__fmt_u64(b + 1, minus - plus)] = 0;
    }
    return b;
}

static uint64_t node_exact(const cgprop__view *v, uint32_t f) { return v->cn ? v->cn[f] : 0; }

static double pct(const cgprop__view *v, double x) { return v->program > 0 ? 100.0 * x / v->program : 0.0; }

typedef struct tctx {
    cgprop_graph *g;
    cgprop__wr *w;
    cgprop__view *v;
    uint32_t *index;    /* nn + nc: 1-based display index */
    uint64_t *cyc_ext;   /* nc: calls into the cycle from outside */
    uint64_t *cyc_intra; /* nc: calls between members */
    /* Per function, what the lines read of it, in arrays of their own:
     * the view's rows are large, and a caller or callee line is a random
     * look-up on a large profile. */
    uint64_t *called;   /* nn: calls in, self-calls left out */
    uint32_t *cycle;    /* nn */
    double *heur;       /* nn: the heuristic */
    double *gchild;     /* nn: gprof's child figure */
    unsigned char *est; /* nn: the kind of total (cgprop_estimate) */
    /* With --bounds: the interval, and its first reason (an index into
     * put_interval's list, WHY_NONE for none) or WHY_NO_BOUNDS. */
    double *lo, *hi;
    unsigned char *why;
    /* Each function's calls in (callers) and out (callees), listed from
     * the view's calls rather than by an iterator row each (a random read
     * of five arrays a call, a fifth of the report's writing). */
    cgprop__view_calls calls;
    /* Each shown function's printed name (escaped, told apart, its cycle
     * after it), made once: names[noff[f] .. noff[f + 1]). */
    char *names;
    size_t *noff;
} tctx;

/* The length of s escaped (cgprop__text_name). */
size_t cgprop__text_name_len(const char *s, size_t len)
{
    size_t n = len;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) n += 3;
        else if (c == '\\') n += 1;
    }
    return n;
}

/* A name for a terminal, into out: a control byte (which could move the
 * cursor or ring the bell) is shown as \xHH, and a backslash as \\ so the
 * spelling stays unambiguous. */
size_t cgprop__text_name(char *out, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && c != '\\') {
            out[o++] = (char)c;
        } else if (c == '\\') {
            out[o++] = '\\';
            out[o++] = '\\';
        } else {
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    return o;
}

/* What follows function f's name: its qualifier (two functions of one
 * name, two objects' helpers or Python's <module>s, are told apart by as
 * much of their key as it takes), then its cycle. Into out when not NULL;
 * returns the length. */
static size_t name_tail(tctx *t, uint32_t f, char *out)
{
    char q[300], c[CGPROP__NUM_MAX + 10];
    size_t ql = cgprop__view_qual(t->g, t->v, f, q, sizeof q), cl = 0;
    if (t->cycle[f] != CGPROP_NONE) {
        memcpy(c, " <cycle ", 8);
        cl = 8 + cgprop__fmt_u64(c + 8, (uint64_t)t->cycle[f] + 1);
        c[cl++] = '>';
    }
    if (!out) return cgprop__text_name_len(q, ql) + cl;
    size_t n = cgprop__text_name(out, q, ql);
    memcpy(out + n, c, cl);
    return n + cl;
}

/* The printed names of the shown functions, in one block sized in a first
 * pass. */
static int make_names(tctx *t)
{
    cgprop__view *v = t->v;
    size_t total = 0;
    for (uint32_t f = 0; f < v->nn; f++) {
        if (!cgprop__view_shown(v, f)) continue;
        size_t len;
        const char *name = cgprop__view_name(t->g, v, f, &len);
        total += cgprop__text_name_len(name, len) + name_tail(t, f, NULL);
    }
    t->noff = cgprop__alloc(t->g, (size_t)v->nn + 1, sizeof *t->noff);
    t->names = cgprop__alloc(t->g, total ? total : 1, 1);
    if (!t->noff || !t->names) return CGPROP_ENOMEM;
    size_t at = 0;
    for (uint32_t f = 0; f < v->nn; f++) {
        t->noff[f] = at;
        if (!cgprop__view_shown(v, f)) continue;
        size_t len;
        const char *name = cgprop__view_name(t->g, v, f, &len);
        at += cgprop__text_name(t->names + at, name, len);
        at += name_tail(t, f, t->names + at);
    }
    t->noff[v->nn] = at;
    return CGPROP_OK;
}

/* Function id's name, with its index in the call graph (" [12]") when
 * with_index, and a newline when nl. */
static void put_name_nl(tctx *t, uint32_t id, int with_index, int nl)
{
    cgprop__wr_put(t->w, t->names + t->noff[id], t->noff[id + 1] - t->noff[id]);
    char b[CGPROP__NUM_MAX + 4];
    size_t n = 0;
    if (with_index) {
        b[n++] = ' ';
        b[n++] = '[';
        n += cgprop__fmt_u64(b + n, t->index[id]);
        b[n++] = ']';
    }
    if (nl) b[n++] = '\n';
    cgprop__wr_put(t->w, b, n);
}

/* One parent or child line of the call graph. The view keeps only the
 * figure a call shows: its gprof parts (and its exact integer) are looked
 * up here, for the lines printed. */
static int arc_line(tctx *t, uint32_t e, uint32_t other, uint64_t denom)
{
    cgprop__view *v = t->v;
    char b1[48], b2[48], b3[48];
    char line[LINE_MAX_FIELDS], *p = line;
    /* A call between two members of one cycle (never a self-call here):
     * its row would say only that. */
    uint32_t ca = t->cycle[v->edge[e].caller];
    if (ca != CGPROP_NONE && ca == t->cycle[v->edge[e].callee]) {
        /* gprof prints only the count of calls inside a cycle. */
        p = l_sp(p, 57);
        p = l_ru(p, v->edge[e].count, 12);
        p = l_sp(p, 10);
    } else {
        cgprop_edge_total_row et;
        int rc = cgprop_graph_get_row(t->g, CGPROP_ITER_EDGE_TOTALS, v->k, e, &et, sizeof et);
        if (rc) return rc;
        /* A call's exact figure is C_nn + C_rn (see cgprop__view_load). */
        uint64_t exact = 0;
        if (v->ehow[e] == CGPROP__SHOW_EXACT && v->cn) {
            cgprop_edge_split_row es;
            if ((rc = cgprop_graph_get_row(t->g, CGPROP_ITER_EDGE_SPLIT, v->k, e, &es, sizeof es))) return rc;
            exact = es.C_nn + es.C_rn;
        }
        size_t n2 = fmt_f0(b2, et.gprof_self), n3 = fmt_f0(b3, et.gprof_child);
        fig_exact(b1, sizeof b1, v->eshown[e], v->ehow[e], exact, 0);
        p = l_sp(p, 16);
        p = l_r(p, b1, strlen(b1), 14);
        *p++ = ' ';
        p = l_r(p, b2, n2, 12);
        *p++ = ' ';
        p = l_r(p, b3, n3, 12);
        *p++ = ' ';
        p = l_ru(p, v->edge[e].count, 12);
        *p++ = '/';
        p = l_l(p, b1, cgprop__fmt_u64(b1, denom), 9);
    }
    p = l_sp(p, 4);
    cgprop__wr_put(t->w, line, (size_t)(p - line));
    put_name_nl(t, other, 1, 1);
    return CGPROP_OK;
}

/* The calls of a function that are not listed (into or from functions not
 * shown, or below the edge threshold): their summed figure, so what a
 * function spends beyond the lines shown is never lost. */
static void hidden_line(tctx *t, double x, int est, uint64_t calls, uint32_t n, const char *side)
{
    char b1[48];
    if (x > 0) fig(b1, sizeof b1, x, est ? CGPROP__SHOW_ESTIMATE : CGPROP__SHOW_EXACT);
    else snprintf(b1, sizeof b1, "-");
    cgprop__wr_printf(t->w, "%6s %8s %14s %12s %12s %12llu              (hidden: %u %s%s)\n", "", "", b1, "", "",
                      (unsigned long long)calls, n, side, n == 1 ? "" : "s");
}

static uint64_t called_excl_self(tctx *t, uint32_t f) { return t->called[f]; }

/* The line of a function with spontaneous entries (or no caller). */
static void spontaneous_line(cgprop__wr *w)
{
    char line[LINE_MAX_FIELDS];
    char *p = l_s(l_sp(line, 83), "<spontaneous>\n", 14);
    cgprop__wr_put(w, line, (size_t)(p - line));
}

static int function_entry(tctx *t, uint32_t f)
{
    cgprop__view *v = t->v;
    cgprop__wr *w = t->w;
    int rc = CGPROP_OK;
    if ((v->node[f].flags & (CGPROP_F_SPONTANEOUS | CGPROP_F_NO_CALLERS)) || t->calls.ioff[f] == t->calls.ioff[f + 1])
        spontaneous_line(w);
    for (uint32_t i = t->calls.ioff[f]; i < t->calls.ioff[f + 1] && !rc; i++) {
        uint32_t e = t->calls.in[i];
        if (v->edge[e].caller != f && cgprop__view_eshown(v, e)) rc = arc_line(t, e, v->edge[e].caller, called_excl_self(t, f));
    }
    if (rc) return rc;
    if (v->hid_in && v->hid_in_n[f]) hidden_line(t, v->hid_in[f], v->hid_in_est[f], v->hid_in_calls[f], v->hid_in_n[f], "caller");

    char b1[48], b2[48], b3[48], b4[2 * CGPROP__NUM_MAX];
    double tot = v->shown[f];
    int how = v->how[f];
    size_t n4 = cgprop__fmt_u64(b4, called_excl_self(t, f));
    uint64_t selfcalls = v->node[f].calls_in - t->called[f];
    if (selfcalls) {
        b4[n4++] = '+';
        n4 += cgprop__fmt_u64(b4 + n4, selfcalls);
    }
    char idx[CGPROP__NUM_MAX + 2];
    size_t ni = 0;
    idx[ni++] = '[';
    ni += cgprop__fmt_u64(idx + ni, t->index[f]);
    idx[ni++] = ']';
    char line[LINE_MAX_FIELDS], *p = line;
    p = l_l(p, idx, ni, 6);
    *p++ = ' ';
    p = l_r(p, b3, fmt_f2(b3, pct(v, tot)), 7);
    p = l_s(p, how == CGPROP__SHOW_EXACT ? "  " : "~ ", 2);
    fig_exact(b1, sizeof b1, tot, how, node_exact(v, f), 0);
    p = l_r(p, b1, strlen(b1), 14);
    *p++ = ' ';
    p = l_ru(p, v->node[f].self, 12);
    *p++ = ' ';
    fig_exact(b2, sizeof b2, tot - (double)v->node[f].self, how, node_exact(v, f), v->node[f].self);
    p = l_r(p, b2, strlen(b2), 12);
    *p++ = ' ';
    p = l_r(p, b4, n4, 22);
    p = l_sp(p, 4);
    cgprop__wr_put(w, line, (size_t)(p - line));
    put_name_nl(t, f, 1, 1);

    for (uint32_t i = t->calls.ooff[f]; i < t->calls.ooff[f + 1] && !rc; i++) {
        uint32_t e = t->calls.out[i], callee = v->edge[e].callee;
        if (callee != f && cgprop__view_eshown(v, e)) rc = arc_line(t, e, callee, called_excl_self(t, callee));
    }
    if (rc) return rc;
    if (v->hid_out && v->hid_out_n[f])
        hidden_line(t, v->hid_out[f], v->hid_out_est[f], v->hid_out_calls[f], v->hid_out_n[f], "callee");
    cgprop__wr_puts(w, "-----------------------------------------------\n");
    return CGPROP_OK;
}

static int cycle_entry(tctx *t, uint32_t c)
{
    cgprop__view *v = t->v;
    cgprop__wr *w = t->w;
    uint64_t ext = t->cyc_ext[c], intra = t->cyc_intra[c];
    int spont = 0;
    for (uint32_t i = v->mem_off[c]; i < v->mem_off[c + 1]; i++)
        if (v->node[v->mem[i]].flags & CGPROP_F_SPONTANEOUS) spont = 1;
    if (spont || ext == 0)
        spontaneous_line(w);
    for (uint32_t i = v->mem_off[c]; i < v->mem_off[c + 1]; i++) {
        uint32_t m = v->mem[i];
        for (uint32_t j = t->calls.ioff[m]; j < t->calls.ioff[m + 1]; j++) {
            uint32_t e = t->calls.in[j], caller = v->edge[e].caller;
            if (t->cycle[caller] == c || !cgprop__view_eshown(v, e)) continue;
            int rc = arc_line(t, e, caller, ext);
            if (rc) return rc;
        }
    }
    char b1[48], b2[48], b4[64], idx[16];
    double tot = v->cyc[c].total;
    snprintf(idx, sizeof idx, "[%u]", t->index[v->nn + c]);
    snprintf(b4, sizeof b4, "%llu+%llu", (unsigned long long)ext, (unsigned long long)intra);
    /* gprof's cycle total is exact where it is the cost of the cycle's
     * outermost activations (the row says so); otherwise it is marked. */
    uint32_t how = (v->cyc[c].flags & CGPROP_F_ESTIMATE) ? CGPROP__SHOW_ESTIMATE : CGPROP__SHOW_EXACT;
    cgprop__wr_printf(w, "%-6s %7.2f%s %14s %12llu %12s %22s    <cycle %u as a whole> %s\n", idx, pct(v, tot),
                      how == CGPROP__SHOW_ESTIMATE ? "~" : " ", fig(b1, sizeof b1, tot, how),
                      (unsigned long long)v->cyc[c].self, fig(b2, sizeof b2, tot - (double)v->cyc[c].self, how), b4,
                      c + 1, idx);
    for (uint32_t i = v->mem_off[c]; i < v->mem_off[c + 1]; i++) {
        uint32_t m = v->mem[i];
        if (!cgprop__view_shown(v, m)) continue;
        char b3[48];
        size_t n3 = fmt_f0(b3, t->gchild[m]);
        char line[LINE_MAX_FIELDS], *p = line;
        p = l_sp(p, 31);
        p = l_ru(p, v->node[m].self, 12);
        *p++ = ' ';
        p = l_r(p, b3, n3, 12);
        *p++ = ' ';
        p = l_ru(p, called_excl_self(t, m), 22);
        p = l_sp(p, 4);
        cgprop__wr_put(w, line, (size_t)(p - line));
        put_name_nl(t, m, 1, 1);
    }
    cgprop__wr_puts(w, "-----------------------------------------------\n");
    return CGPROP_OK;
}

/* What kind of figure the flat profile shows for f ("total is"). */
static const char *kind_name(const tctx *t, uint32_t f, uint32_t flags)
{
    if (flags & CGPROP_W_HEURISTIC_ONLY) return "heuristic";
    return cgprop__wr_estimate_name(t->est[f]);
}

/* The --bounds columns of one function: its interval where the figure is
 * not exact, and the first reason that keeps it from being exact. */
static const char *const why_names[] = {"sides disagree", "below self", "recursion", "entry unknown", "unmeasured",
                                        "overflow",       "unrooted"};
enum { WHY_NONE = 0x7f, WHY_NO_BOUNDS = 0x80 };

/* A row's reason and interval flag, packed for put_interval. */
static unsigned char why_of(const cgprop_total_row *r)
{
    unsigned char w = WHY_NONE;
    for (unsigned i = 0; i < sizeof why_names / sizeof why_names[0]; i++)
        if (r->reason & (1u << i)) {
            w = (unsigned char)i;
            break;
        }
    return (unsigned char)(w | (r->flags & CGPROP_F_NO_BOUNDS ? WHY_NO_BOUNDS : 0));
}

static void put_interval(tctx *t, uint32_t f)
{
    unsigned w = t->why[f];
    const char *reason = (w & WHY_NONE) == WHY_NONE ? "" : why_names[w & WHY_NONE];
    char iv[64];
    if (w & WHY_NO_BOUNDS)
        snprintf(iv, sizeof iv, "none");
    else if (t->est[f] == CGPROP_EST_EXACT)
        iv[0] = 0;
    else
        snprintf(iv, sizeof iv, "[%.0f, %.0f]", t->lo[f], t->hi[f]);
    cgprop__wr_printf(t->w, "%-33s %-15s ", iv, reason);
}

/* "Exact vs heuristic": where the input gives the exact C_n, show
 * how far gprof2dot's per-root estimate would have been from it, largest
 * gaps first, so a user sees what an ordinary profiler would have told them. */
#define CGPROP__GAPS_SHOWN 20
static int heuristic_gaps(tctx *t)
{
    cgprop__view *v = t->v;
    if (v->program <= 0) return CGPROP_OK;
    entry *gap = cgprop__alloc(t->g, v->nn ? v->nn : 1, sizeof *gap);
    if (!gap) return cgprop__err(t->g, CGPROP_ENOMEM, "write: out of memory");
    size_t n = 0;
    for (uint32_t f = 0; f < v->nn; f++) {
        if (v->how[f] != CGPROP__SHOW_EXACT || !cgprop__view_shown(v, f)) continue;
        double d = t->heur[f] - v->shown[f];
        /* Below 0.01 % of the program the two agree as far as anyone reads. */
        if (fabs(d) >= 1e-4 * v->program) gap[n++] = (entry){fabs(d), f};
    }
    if (n) {
        qsort(gap, n, sizeof *gap, by_total_desc);
        cgprop__wr_printf(t->w,
                          "\nExact vs estimate: %zu function%s where gprof2dot's per-root heuristic misses the "
                          "exact inclusive cost\n(difference in points of the program total; largest first%s)\n\n",
                          n, n == 1 ? "" : "s", n > CGPROP__GAPS_SHOWN ? ", first 20 shown" : "");
        cgprop__wr_printf(t->w, "%14s %8s %14s %8s %9s  %s\n", "exact C_n", "%", "heuristic", "%", "points",
                          "name");
        for (size_t i = 0; i < n && i < CGPROP__GAPS_SHOWN; i++) {
            uint32_t f = gap[i].id;
            double h = t->heur[f], c = v->shown[f];
            char cb[48];
            cgprop__wr_printf(t->w, "%14s %8.2f %14.0f %8.2f %+9.2f  ",
                              fig_exact(cb, sizeof cb, c, CGPROP__SHOW_EXACT, node_exact(v, f), 0), pct(v, c), h,
                              pct(v, h), pct(v, h) - pct(v, c));
            put_name_nl(t, f, 0, 1);
        }
    }
    cgprop__free(t->g, gap);
    return CGPROP_OK;
}

int cgprop__write_text(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w)
{
    cgprop__view v;
    int rc = cgprop__view_load(g, o->metric, o->flags, false, &v);
    if (rc) return rc;
    int prune = (o->flags & CGPROP_W_PRUNE_TEXT) && !(o->flags & CGPROP_W_NO_PRUNE);
    if ((rc = cgprop__view_select(g, &v, o, prune))) {
        cgprop__view_free(g, &v);
        return rc;
    }
    tctx t;
    memset(&t, 0, sizeof t);
    t.g = g;
    t.w = w;
    t.v = &v;
    size_t nent = (size_t)v.nn + v.nc;
    entry *ent = cgprop__alloc(g, nent ? nent : 1, sizeof *ent);
    t.index = cgprop__alloc(g, nent ? nent : 1, sizeof *t.index);
    t.cyc_ext = cgprop__calloc(g, v.nc ? v.nc : 1, sizeof *t.cyc_ext);
    t.cyc_intra = cgprop__calloc(g, v.nc ? v.nc : 1, sizeof *t.cyc_intra);
    t.called = cgprop__alloc(g, v.nn ? v.nn : 1, sizeof *t.called);
    t.cycle = cgprop__alloc(g, v.nn ? v.nn : 1, sizeof *t.cycle);
    t.heur = cgprop__alloc(g, v.nn ? v.nn : 1, sizeof *t.heur);
    t.gchild = cgprop__alloc(g, v.nn ? v.nn : 1, sizeof *t.gchild);
    t.est = cgprop__alloc(g, v.nn ? v.nn : 1, 1);
    if (!ent || !t.index || !t.cyc_ext || !t.cyc_intra || !t.called || !t.cycle || !t.heur ||
        !t.gchild || !t.est) {
        rc = cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        goto done;
    }
    int bounds = (o->flags & CGPROP_W_BOUNDS) != 0;
    if (bounds) {
        t.lo = cgprop__alloc(g, v.nn ? v.nn : 1, sizeof *t.lo);
        t.hi = cgprop__alloc(g, v.nn ? v.nn : 1, sizeof *t.hi);
        t.why = cgprop__alloc(g, v.nn ? v.nn : 1, 1);
        if (!t.lo || !t.hi || !t.why) {
            rc = cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
            goto done;
        }
    }
    for (uint32_t i = 0; i < v.nn; i++) {
        t.cycle[i] = v.tot[i].cycle;
        t.heur[i] = v.tot[i].heuristic;
        t.gchild[i] = v.tot[i].gprof_child;
        t.est[i] = (unsigned char)(v.tot[i].estimate < 255 ? v.tot[i].estimate : 255);
        if (bounds) {
            t.lo[i] = v.tot[i].lo;
            t.hi[i] = v.tot[i].hi;
            t.why[i] = why_of(&v.tot[i]);
        }
    }
    /* The rows are done with: the report's peak memory is this writer's,
     * and they take 96 bytes a function. */
    cgprop__free(g, v.tot);
    v.tot = NULL;
    /* Calls in, self-calls left out. */
    for (uint32_t i = 0; i < v.nn; i++) t.called[i] = v.node[i].calls_in;
    for (uint32_t e = 0; e < v.ne; e++) {
        uint32_t cr = t.cycle[v.edge[e].caller], ce = t.cycle[v.edge[e].callee];
        if (v.edge[e].caller == v.edge[e].callee)
            t.called[v.edge[e].caller] -= v.edge[e].count;
        else if (ce != CGPROP_NONE && cr == ce)
            t.cyc_intra[ce] += v.edge[e].count;
        else if (ce != CGPROP_NONE)
            t.cyc_ext[ce] += v.edge[e].count;
    }
    if (cgprop__view_calls_make(g, &v, &t.calls) != CGPROP_OK || make_names(&t) != CGPROP_OK) {
        rc = cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < v.nn; i++) ent[i] = (entry){v.shown[i], i};
    qsort(ent, v.nn, sizeof *ent, by_total_desc);

    size_t mlen;
    const char *mname = cgprop_graph_metric_name(g, o->metric, &mlen);
    /* The program total exactly, while it fits in 64 bits. */
    uint64_t prog = 0;
    int prog_exact = 1;
    for (uint32_t f = 0; f < v.nn && prog_exact; f++) {
        prog_exact = prog <= UINT64_MAX - v.node[f].self;
        prog += v.node[f].self;
    }
    char pb[48];
    if (prog_exact)
        snprintf(pb, sizeof pb, "%llu", (unsigned long long)prog);
    else
        snprintf(pb, sizeof pb, "%.0f", v.program);
    cgprop__wr_printf(w, "Flat profile: metric %s, program total %s (sum of self costs)\n", mname, pb);
    if (o->flags & CGPROP_W_HEURISTIC_ONLY)
        cgprop__wr_puts(w, "Every total is gprof2dot's per-root heuristic, marked '~' (asked for: --heuristic-only).\n");
    else
        cgprop__wr_puts(w, "Totals marked '~' are estimates kept inside the interval the measured costs prove ('total\n"
                           "is': midpoint of the absorbing walk and gprof2dot's heuristic, or one of them); the others\n"
                           "are the exact inclusive cost C_n, counted once per stack.\n");
    /* Stacks cut short: how much of the program the figures above them may
     * lack, before any row shows a '~' for it. */
    uint64_t unrooted = 0;
    (void)cgprop_graph_unrooted(g, o->metric, &unrooted); /* the split is current: it cannot fail */
    if (unrooted && prog_exact && prog)
        cgprop__wr_printf(w, "%.2f %% of it is in stacks that start in a function also called elsewhere (cut short by\n"
                             "the profiler's depth limit, or an unwinder that stopped): a function they do not show\n"
                             "may lack up to that much, and its total is an estimate in that interval (--bounds).\n",
                          100.0 * (double)unrooted / (double)prog);
    /* Clamped figures are not the measured ones less the overhead: say so. */
    const uint64_t clamps = cgprop_graph_clamp_count(g);
    if (clamps)
        cgprop__wr_printf(w, "Overhead compensation clamped %llu activation cost%s at 0 (TAU's floor).\n",
                          (unsigned long long)clamps, clamps == 1 ? "" : "s");
    const uint64_t floors = cgprop_graph_floor_count(g);
    if (floors)
        cgprop__wr_printf(w, "Overhead compensation left %llu figure%s below 0, shown as 0 (overhead overestimated?).\n",
                          (unsigned long long)floors, floors == 1 ? "" : "s");
    if (v.nshown < v.nn)
        cgprop__wr_printf(w, "View: %u of %u functions shown; percentages are of the whole program. A function's\n"
                             "figures are its own, whole; '(hidden: N callees)' is what its calls into functions not\n"
                             "shown (and calls not listed) cost, everything below them included ('(hidden: N\n"
                             "callers)' the same from above); '~' marks a sum with an estimate in it.\n",
                          v.nshown, v.nn);
    cgprop__wr_puts(w, "\n");
    if (bounds)
        cgprop__wr_puts(w, "The interval holds the true inclusive cost; 'why' says what keeps a figure from being exact\n"
                           "(docs/BOUNDS.md). 'none': the call costs are not measured, so nothing is proven.\n");
    cgprop__wr_puts(w, "\n");
    cgprop__wr_printf(w, "%8s %14s %8s %12s %12s  %-9s  ", "%total", "total", "%self", "self", "called", "total is");
    if (bounds) cgprop__wr_printf(w, "%-33s %-15s ", "interval [lo, hi]", "why");
    cgprop__wr_puts(w, "name\n");
    for (size_t i = 0; i < v.nn; i++) {
        uint32_t f = ent[i].id;
        if (!v.show[f]) continue;
        char b1[48], b2[48], line[LINE_MAX_FIELDS], *p = line;
        p = l_r(p, b2, fmt_f2(b2, pct(&v, v.shown[f])), 8);
        *p++ = ' ';
        fig_exact(b1, sizeof b1, v.shown[f], v.how[f], node_exact(&v, f), 0);
        p = l_r(p, b1, strlen(b1), 14);
        *p++ = ' ';
        p = l_r(p, b2, fmt_f2(b2, pct(&v, (double)v.node[f].self)), 8);
        *p++ = ' ';
        p = l_ru(p, v.node[f].self, 12);
        *p++ = ' ';
        p = l_ru(p, v.node[f].calls_in, 12);
        p = l_sp(p, 2);
        const char *kn = kind_name(&t, f, o->flags);
        p = l_l(p, kn, strlen(kn), 9);
        p = l_sp(p, 2);
        cgprop__wr_put(w, line, (size_t)(p - line));
        if (bounds) put_interval(&t, f);
        put_name_nl(&t, f, 0, 1);
    }

    rc = heuristic_gaps(&t);
    if (rc) goto done;

    /* Call graph: functions and cycles as a whole, by total. */
    for (uint32_t c = 0; c < v.nc; c++) ent[v.nn + c] = (entry){v.cyc[c].total, v.nn + c};
    qsort(ent, nent, sizeof *ent, by_total_desc);
    /* Number the entries shown: functions in the view, cycles with a member in it. */
    size_t nshow = 0;
    for (size_t i = 0; i < nent; i++) {
        uint32_t id = ent[i].id;
        int any = id < v.nn ? v.show[id] : 0;
        for (uint32_t j = id < v.nn ? 0 : v.mem_off[id - v.nn]; id >= v.nn && j < v.mem_off[id - v.nn + 1]; j++)
            any |= v.show[v.mem[j]];
        if (any) ent[nshow++] = ent[i];
    }
    nent = nshow;
    for (size_t i = 0; i < nent; i++) t.index[ent[i].id] = (uint32_t)i + 1;
    cgprop__wr_puts(w, "\n\nCall graph (gprof style)\n"
                       "Each entry: callers above, the function on the [index] line, callees below.\n"
                       "Caller/callee lines: the call's total, gprof's self and child parts, calls/called.\n"
                       "Calls inside a cycle show only their count, as gprof prints them.\n\n");
    cgprop__wr_printf(w, "%-6s %8s %14s %12s %12s %22s    %s\n", "index", "%total", "total", "self", "children",
                      "called", "name");
    for (size_t i = 0; i < nent && !w->failed; i++) {
        rc = ent[i].id < v.nn ? function_entry(&t, ent[i].id) : cycle_entry(&t, ent[i].id - v.nn);
        if (rc) goto done;
    }
done:
    cgprop__free(g, ent);
    cgprop__free(g, t.index);
    cgprop__free(g, t.cyc_ext);
    cgprop__free(g, t.cyc_intra);
    cgprop__free(g, t.called);
    cgprop__free(g, t.cycle);
    cgprop__free(g, t.heur);
    cgprop__free(g, t.gchild);
    cgprop__free(g, t.est);
    cgprop__free(g, t.lo);
    cgprop__free(g, t.hi);
    cgprop__free(g, t.why);
    cgprop__view_calls_free(g, &t.calls);
    cgprop__free(g, t.names);
    cgprop__free(g, t.noff);
    cgprop__view_free(g, &v);
    return rc;
}
