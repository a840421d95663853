/* Shared by the reader fuzz targets: a counting allocator that can fail the
 * Nth allocation, an output sink that can fail after N bytes, the checks
 * every reader result must pass, and the run every target makes of them.
 * Every check traps, so libFuzzer and the standalone replayer both stop on
 * the first broken promise. */
#ifndef CGPROP_FUZZ_READERS_H
#define CGPROP_FUZZ_READERS_H

#include <cgprop.h>
#include <cgprop_io.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef FZ_CHECK
#define FZ_CHECK(c)                                                                                      \
    do {                                                                                                 \
        if (!(c)) __builtin_trap();                                                                      \
    } while (0)
#endif

typedef struct fz_alloc {
    long until_fail; /* allocations left before one fails; < 0: never */
    long live;       /* blocks handed out and not yet freed */
    long failed;     /* allocations refused */
} fz_alloc;

static void *fz_malloc(void *u, size_t s)
{
    fz_alloc *f = u;
    if (f->until_fail == 0) {
        f->failed++;
        return NULL;
    }
    if (f->until_fail > 0) f->until_fail--;
    void *p = malloc(s ? s : 1);
    if (p) f->live++;
    return p;
}

static void *fz_realloc(void *u, void *p, size_t s)
{
    fz_alloc *f = u;
    if (!p) return fz_malloc(u, s);
    if (f->until_fail == 0) {
        f->failed++;
        return NULL;
    }
    if (f->until_fail > 0) f->until_fail--;
    return realloc(p, s ? s : 1);
}

static void fz_free(void *u, void *p)
{
    fz_alloc *f = u;
    FZ_CHECK(p != NULL); /* the header promises free_fn never sees NULL */
    f->live--;
    free(p);
}

static cgprop_allocator fz_allocator(fz_alloc *f, long until_fail)
{
    cgprop_allocator a;
    f->until_fail = until_fail;
    f->live = 0;
    f->failed = 0;
    a.malloc_fn = fz_malloc;
    a.realloc_fn = fz_realloc;
    a.free_fn = fz_free;
    a.user = f;
    return a;
}

/* FNV-1a: the run's configuration comes from the bytes themselves, so seed
 * files can be plain fixtures, and one input always runs the same way. */
static uint64_t fz_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* A sink that keeps what it is given (bounded) and may refuse after a budget. */
typedef struct fz_sink {
    char *buf;
    size_t len, cap;
    size_t budget; /* bytes accepted before it refuses; SIZE_MAX: never */
    int refused;
} fz_sink;

static int fz_write(void *user, const char *data, size_t len)
{
    fz_sink *s = user;
    FZ_CHECK(data != NULL && len >= 1);
    if (len > s->budget) {
        s->refused = 1;
        return 1;
    }
    s->budget -= len;
    if (s->len + len > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < s->len + len) cap *= 2;
        if (cap > ((size_t)64 << 20)) return 0; /* keep counting, stop storing */
        char *p = realloc(s->buf, cap);
        FZ_CHECK(p != NULL);
        s->buf = p;
        s->cap = cap;
    }
    memcpy(s->buf + s->len, data, len);
    s->len += len;
    return 0;
}

static void fz_check_read_status(int rc, const cgprop_graph *g, const cgprop_read_error *err)
{
    FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_EFORMAT || rc == CGPROP_EOVERFLOW || rc == CGPROP_ENOMEM);
    if (rc == CGPROP_OK) {
        FZ_CHECK(g != NULL);
        FZ_CHECK(err->code == 0 && err->reason[0] == '\0');
    } else {
        FZ_CHECK(g == NULL);
        FZ_CHECK(err->code == rc);
        FZ_CHECK(err->reason[0] != '\0');
        FZ_CHECK(memchr(err->reason, '\0', sizeof err->reason) != NULL);
        FZ_CHECK(memchr(err->file, '\0', sizeof err->file) != NULL);
    }
}

static void fz_check_status(int rc)
{
    FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_DONE || rc == CGPROP_ENOMEM || rc == CGPROP_EINVAL ||
             rc == CGPROP_ENOTFOUND || rc == CGPROP_ESTATE || rc == CGPROP_EOVERFLOW);
}

/* Run every analysis and read every row kind; every figure must be finite.
 * Returns non-zero when all analyses succeeded. */
/* fz_analyse's argument from an input's hash: the collapse's share (low
 * bits), the estimate and the walk's budget. */
static uint32_t fz_share(uint64_t h) { return (uint32_t)((h >> 13) % 3u) | ((uint32_t)(h >> 52) & 0xf0u); }

static int fz_analyse(cgprop_graph *g, uint32_t share)
{
    /* The estimate shown and the walk's budget come from share's high bits
     * (fz_share): the default midpoint, the walk or the heuristic alone,
     * with the default budget, a tiny one (most cycles give up) or, on small
     * graphs, none. */
    static const uint32_t est[] = {CGPROP_EST_MIDPOINT, CGPROP_EST_WALK, CGPROP_EST_HEURISTIC, CGPROP_EST_MIDPOINT};
    double budget = (share >> 6) & 1u ? 0.05 : CGPROP_WALK_BUDGET_DEFAULT;
    if (((share >> 7) & 1u) && cgprop_graph_node_count(g) < 300) budget = 0;
    FZ_CHECK(cgprop_graph_set_estimate(g, est[(share >> 4) & 3u], budget) == CGPROP_OK);
    share &= 3u;
    int rc = cgprop_graph_find_cycles(g, NULL);
    fz_check_status(rc);
    if (rc == CGPROP_OK) {
        rc = cgprop_graph_collapse(g, share);
        fz_check_status(rc);
    }
    if (rc == CGPROP_OK) {
        rc = cgprop_graph_propagate(g);
        fz_check_status(rc);
    }
    int rs = cgprop_graph_split(g);
    fz_check_status(rs);
    FZ_CHECK(cgprop_graph_errmsg(g) != NULL);
    if (rc != CGPROP_OK || rs != CGPROP_OK) return 0;

    size_t K = cgprop_graph_metric_count(g);
    FZ_CHECK(K >= 1 && K <= CGPROP_MAX_METRICS);
    size_t nn = cgprop_graph_node_count(g), ne = cgprop_graph_edge_count(g);
    for (uint32_t k = 0; k < K; k += (uint32_t)(K > 2 ? K - 1 : 1)) {
        uint64_t unrooted = 0;
        FZ_CHECK(cgprop_graph_unrooted(g, k, &unrooted) == CGPROP_OK);
        cgprop_iter *it = NULL;
        if (cgprop_iter_new(g, CGPROP_ITER_TOTALS, k, 0, &it) == CGPROP_OK) {
            FZ_CHECK(cgprop_iter_count(it) == nn);
            cgprop_total_row r;
            int st;
            while ((st = cgprop_iter_next(it, &r, sizeof r)) == CGPROP_OK) {
                FZ_CHECK(r.id < nn);
                FZ_CHECK(isfinite(r.total) && isfinite(r.vertex_total) && isfinite(r.gprof_self) &&
                         isfinite(r.gprof_child) && isfinite(r.spont_share));
                FZ_CHECK(r.total >= 0 && r.vertex_total >= 0);
                /* An estimate never leaves what was proven: the shown
                 * figure and the walk's lie in the interval, which is one
                 * point for an exact figure. */
                FZ_CHECK(r.estimate <= CGPROP_EST_MEASURED);
                /* Stacks cut short widen an interval only where there are
                 * some, and by no more than their weight; the figure the
                 * stacks show is the interval's lower end. */
                if (r.reason & CGPROP_R_UNROOTED) FZ_CHECK(unrooted != 0);
                if (r.reason == CGPROP_R_UNROOTED) FZ_CHECK(r.hi - r.lo <= (double)unrooted * (1 + 1e-9) + 1);
                if (r.estimate == CGPROP_EST_MEASURED) FZ_CHECK(r.reason == CGPROP_R_UNROOTED && r.total == r.lo);
                FZ_CHECK((r.estimate == CGPROP_EST_EXACT) == !(r.flags & CGPROP_F_ESTIMATE));
                if (!(r.flags & CGPROP_F_NO_BOUNDS)) {
                    double tol = 1e-9 * (fabs(r.hi) + 1);
                    FZ_CHECK(isfinite(r.lo) && isfinite(r.hi) && r.lo <= r.hi + tol);
                    FZ_CHECK(r.total >= r.lo - tol && r.total <= r.hi + tol);
                    if (r.estimate == CGPROP_EST_EXACT) FZ_CHECK(r.hi - r.lo <= tol);
                    if (!(r.flags & CGPROP_F_NO_WALK)) FZ_CHECK(r.walk >= r.lo - tol && r.walk <= r.hi + tol);
                }
            }
            FZ_CHECK(st == CGPROP_DONE);
            cgprop_iter_free(it);
        }
        it = NULL;
        if (cgprop_iter_new(g, CGPROP_ITER_EDGE_TOTALS, k, 0, &it) == CGPROP_OK) {
            FZ_CHECK(cgprop_iter_count(it) == ne);
            cgprop_edge_total_row r[8];
            size_t got;
            int st;
            while ((st = cgprop_iter_copy_rows(it, r, sizeof r[0], 8, &got)) == CGPROP_OK)
                for (size_t i = 0; i < got; i++) {
                    FZ_CHECK(r[i].caller < nn && r[i].callee < nn);
                    FZ_CHECK(isfinite(r[i].total) && isfinite(r[i].share) && isfinite(r[i].gprof_self) &&
                             isfinite(r[i].gprof_child));
                    /* A call's total is never above its measured cost. */
                    cgprop_edge_row er;
                    FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, k, r[i].id, &er, sizeof er) == CGPROP_OK);
                    if (er.flags & CGPROP_F_HAS_COST)
                        FZ_CHECK(r[i].total <= (double)er.cost * (1 + 1e-9) + 1e-9);
                }
            FZ_CHECK(st == CGPROP_DONE);
            cgprop_iter_free(it);
        }
        it = NULL;
        if (cgprop_iter_new(g, CGPROP_ITER_SPLIT, k, 0, &it) == CGPROP_OK) {
            cgprop_split_row r;
            int st;
            while ((st = cgprop_iter_next(it, &r, sizeof r)) == CGPROP_OK)
                FZ_CHECK(isfinite(r.D) && isfinite(r.heuristic));
            FZ_CHECK(st == CGPROP_DONE);
            cgprop_iter_free(it);
        }
        it = NULL;
        if (cgprop_iter_new(g, CGPROP_ITER_CYCLES, k, 0, &it) == CGPROP_OK) {
            /* A cycle total claimed exact is what the public rows add up to:
             * its members' self costs plus the measured calls that leave it. */
            size_t nc = cgprop_iter_count(it);
            uint64_t *out = calloc(nc + 1, sizeof *out);
            unsigned char *open = calloc(nc + 1, 1);
            FZ_CHECK(out != NULL && open != NULL);
            for (uint32_t e = 0; e < ne; e++) {
                cgprop_edge_row er;
                uint32_t cu, cv;
                FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, k, e, &er, sizeof er) == CGPROP_OK);
                FZ_CHECK(cgprop_graph_node_cycle(g, er.caller, &cu) == CGPROP_OK);
                FZ_CHECK(cgprop_graph_node_cycle(g, er.callee, &cv) == CGPROP_OK);
                if (cu == CGPROP_NONE || cu == cv) continue;
                FZ_CHECK(cu < nc);
                if (!(er.flags & CGPROP_F_HAS_COST) || out[cu] > UINT64_MAX - er.cost) open[cu] = 1;
                else out[cu] += er.cost;
            }
            cgprop_cycle_row r;
            int st;
            while ((st = cgprop_iter_next(it, &r, sizeof r)) == CGPROP_OK) {
                FZ_CHECK(r.nmembers >= 2 && r.first < nn && isfinite(r.total));
                if (!(r.flags & CGPROP_F_ESTIMATE)) {
                    FZ_CHECK(!open[r.id] && r.self <= UINT64_MAX - out[r.id]);
                    FZ_CHECK(r.total == (double)(r.self + out[r.id]));
                }
            }
            FZ_CHECK(st == CGPROP_DONE);
            cgprop_iter_free(it);
            free(out);
            free(open);
        }
    }
    return 1;
}

/* The callgrind writer refuses with EOVERFLOW only what it cannot write: a
 * program total (summary:) past 64 bits, or a count of 2^64 - 1 that would
 * have to be written one more. */
/* Whether some call has no measured cost: the callgrind writer refuses
 * such a graph (its file would state a cost of 0). */
static int fz_costless_call(cgprop_graph *g)
{
    for (uint32_t e = 0; e < cgprop_graph_edge_count(g); e++) {
        cgprop_edge_row r;
        if (cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, e, &r, sizeof r) == CGPROP_OK &&
            !(r.flags & CGPROP_F_HAS_COST))
            return 1;
    }
    return 0;
}

static int fz_callgrind_overflows(cgprop_graph *g)
{
    for (uint32_t k = 0; k < cgprop_graph_metric_count(g); k++) {
        uint64_t sum = 0;
        for (uint32_t v = 0; v < cgprop_graph_node_count(g); v++) {
            cgprop_node_row r;
            FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, v, &r, sizeof r) == CGPROP_OK);
            if (sum > UINT64_MAX - r.self) return 1;
            sum += r.self;
        }
    }
    for (uint32_t e = 0; e < cgprop_graph_edge_count(g); e++) {
        cgprop_edge_row r;
        FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, e, &r, sizeof r) == CGPROP_OK);
        if (r.count == UINT64_MAX) return 1;
    }
    return 0;
}

/* Length of the UTF-8 sequence at p (RFC 3629: shortest form, no
 * surrogates, at most U+10FFFF), or 0 when it is not one. */
static size_t fz_utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    size_t len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && p[1] < 0xa0) return 0; /* overlong */
    if (c == 0xed && p[1] >= 0xa0) return 0; /* surrogate */
    if (c == 0xf0 && p[1] < 0x90) return 0;  /* overlong */
    if (c == 0xf4 && p[1] >= 0x90) return 0; /* past U+10FFFF */
    return len;
}

/* What every output promises whatever the names: JSON is UTF-8 with no raw
 * control byte; the text report has no control byte but its line ends; no
 * DOT line (a label) passes graphviz's 16 KiB limit by much. */
static void fz_check_output(uint32_t fmt, const char *out, size_t len)
{
    const unsigned char *p = (const unsigned char *)out;
    if (fmt == CGPROP_FORMAT_JSON) {
        for (size_t i = 0; i < len;) {
            size_t l = fz_utf8_len(p + i, len - i);
            FZ_CHECK(l > 0);
            FZ_CHECK(p[i] >= 0x20 || p[i] == '\n');
            i += l;
        }
    } else if (fmt == CGPROP_FORMAT_TEXT) {
        for (size_t i = 0; i < len; i++) FZ_CHECK((p[i] >= 0x20 && p[i] != 0x7f) || p[i] == '\n');
    } else if (fmt == CGPROP_FORMAT_FLAMEGRAPH) {
        /* XML: well-formed UTF-8, no control byte but the line ends. */
        for (size_t i = 0; i < len;) {
            size_t l = fz_utf8_len(p + i, len - i);
            FZ_CHECK(l > 0);
            FZ_CHECK(p[i] >= 0x20 || p[i] == '\n');
            i += l;
        }
    } else if (fmt == CGPROP_FORMAT_DOT) {
        size_t run = 0;
        for (size_t i = 0; i < len; i++) {
            run = p[i] == '\n' ? 0 : run + 1;
            FZ_CHECK(run < 16384 + 256);
        }
    }
}

/* splitmix64's finaliser: more independent configuration bits from the
 * one hash of the input. */
static uint64_t fz_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Up to two function ids from v (four bits used). One time in sixteen the
 * second names no function, which the writer must refuse; *bad says so. */
static size_t fz_ids(uint64_t v, size_t nn, uint32_t ids[2], int *bad)
{
    size_t n = (size_t)(v & 3u) % 3u;
    if (n == 0) return 0;
    ids[0] = nn ? (uint32_t)((v >> 8) % nn) : 0;
    ids[1] = nn ? (uint32_t)((v >> 24) % nn) : 0;
    if (((v >> 2) & 3u) == 0 && ((v >> 40) & 3u) == 0) ids[n - 1] = (uint32_t)nn + (uint32_t)((v >> 44) & 7u);
    for (size_t i = 0; i < n; i++)
        if (ids[i] >= nn) *bad = 1;
    return n;
}

/* The view controls of the text and DOT writers, drawn from v: the
 * thresholds, the cycles' drawing, top, depth, labels, colours, skew, and
 * up to two functions each as roots, leaves, focus and hidden. Returns
 * nonzero when an id names no function (the writer must say EINVAL). */
static int fz_view(cgprop_write_options *o, uint64_t v, size_t nn, uint32_t ids[8])
{
    static const double thres[] = {0, 0.1, 0.5, 5, 50, 100};
    static const uint32_t tops[] = {0, 0, 1, 2, 5, 40};
    static const uint32_t depths[] = {CGPROP_DEPTH_ALL, 0, 1, 3};
    static const double skews[] = {1, 0.25, 4};
    int bad = 0;
    o->node_thres = thres[(v & 0xffu) % 6u];
    o->edge_thres = thres[((v >> 8) & 0xffu) % 6u];
    o->cycles = (uint32_t)(v >> 16) & 3u;
    o->top = tops[((v >> 18) & 0xffu) % 6u];
    o->depth = depths[(v >> 26) & 3u];
    o->label = (uint32_t)(v >> 28) & 31u;
    o->colormap = (uint32_t)((v >> 33) & 0xffu) % 5u;
    o->skew = skews[((v >> 41) & 0xffu) % 3u];
    uint64_t w = fz_mix(v);
    o->nroots = fz_ids(w, nn, ids, &bad);
    o->roots = ids;
    o->nleaves = fz_ids(w >> 16, nn, ids + 2, &bad);
    o->leaves = ids + 2;
    w = fz_mix(w);
    o->nfocus = fz_ids(w, nn, ids + 4, &bad);
    o->focus = ids + 4;
    o->nhide = fz_ids(w >> 16, nn, ids + 6, &bad);
    o->hide = ids + 6;
    return bad;
}

/* The comparison writer in its three formats, g against base, with the
 * thresholds and the flags it accepts drawn from v. */
static void fz_compare(cgprop_graph *base, cgprop_graph *g, int analysed, uint64_t v)
{
    static const double thres[] = {0, 0.5, 5, 100};
    for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_DOT; fmt++) {
        cgprop_write_options o;
        cgprop_write_options_init(&o);
        o.flags = (uint32_t)(v >> (3 * fmt)) & (CGPROP_W_HEURISTIC_ONLY | CGPROP_W_NO_PRUNE | CGPROP_W_BOUNDS);
        o.metric = (uint32_t)((v >> 20) % cgprop_graph_metric_count(g));
        o.node_thres = thres[(v >> (24 + 2 * fmt)) & 3u];
        o.edge_thres = thres[(v >> (32 + 2 * fmt)) & 3u];
        fz_sink s = {NULL, 0, 0, SIZE_MAX, 0};
        if (((v >> (40 + fmt)) & 7u) == 0) s.budget = (size_t)((v >> 48) % 512);
        int rc = cgprop_write_compare(base, g, fmt, &o, fz_write, &s);
        size_t ml;
        const char *mn = cgprop_graph_metric_name(g, o.metric, &ml);
        uint32_t kb;
        if (cgprop_graph_find_metric(base, mn, ml, &kb) != CGPROP_OK) FZ_CHECK(rc == CGPROP_EINVAL);
        else if (rc == CGPROP_EWRITE) FZ_CHECK(s.refused);
        else if (rc == CGPROP_ESTATE) FZ_CHECK(!analysed);
        else FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_ENOMEM);
        if (rc == CGPROP_OK) FZ_CHECK(!s.refused);
        if (rc == CGPROP_OK && s.len <= ((size_t)64 << 20)) fz_check_output(fmt, s.buf, s.len);
        free(s.buf);
    }
}

/* Every writer, into a sink that may refuse, the text and DOT writers half
 * the time through view controls, and the comparison writer against the
 * graph itself. Returns the callgrind output (caller frees) when it was
 * written whole, else NULL. */
static char *fz_write_all(cgprop_graph *g, int analysed, uint64_t h, size_t *cg_len)
{
    char *cg = NULL;
    *cg_len = 0;
    uint64_t v = fz_mix(h);
    for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_FLAMEGRAPH; fmt++) {
        cgprop_write_options o;
        cgprop_write_options_init(&o);
        o.flags = ((uint32_t)(h >> (8 + fmt)) & 15u) | ((uint32_t)(v >> (40 + fmt)) & 0x1f0u);
        o.metric = (uint32_t)((h >> 20) % cgprop_graph_metric_count(g));
        uint32_t ids[8];
        int bad = 0;
        v = fz_mix(v);
        if ((fmt == CGPROP_FORMAT_TEXT || fmt == CGPROP_FORMAT_DOT) && (v & 1u))
            bad = fz_view(&o, v >> 1, cgprop_graph_node_count(g), ids);
        fz_sink s = {NULL, 0, 0, SIZE_MAX, 0};
        /* Now and then the output fails part way: EWRITE, nothing else. */
        if (((h >> (24 + fmt)) & 7u) == 0) s.budget = (size_t)((h >> 32) % 512);
        int rc = cgprop_write(g, fmt, &o, fz_write, &s);
        if (bad) FZ_CHECK(rc == CGPROP_EINVAL);
        else if (rc == CGPROP_EINVAL) FZ_CHECK(fmt == CGPROP_FORMAT_CALLGRIND && fz_costless_call(g));
        else if (rc == CGPROP_EWRITE) FZ_CHECK(s.refused);
        else if (rc == CGPROP_ESTATE)
            FZ_CHECK(fmt == CGPROP_FORMAT_FLAMEGRAPH ? cgprop_graph_context_count(g) == 0
                                                     : !analysed && fmt != CGPROP_FORMAT_CALLGRIND);
        else if (rc == CGPROP_EOVERFLOW)
            /* A flame graph's total is the sum of every root's cost. */
            FZ_CHECK(fmt == CGPROP_FORMAT_FLAMEGRAPH || (fmt == CGPROP_FORMAT_CALLGRIND && fz_callgrind_overflows(g)));
        else FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_ENOMEM);
        if (rc == CGPROP_OK) FZ_CHECK(!s.refused);
        if (rc == CGPROP_OK && s.len <= ((size_t)64 << 20)) fz_check_output(fmt, s.buf, s.len);
        if (rc == CGPROP_OK && fmt == CGPROP_FORMAT_CALLGRIND && s.len <= ((size_t)64 << 20)) {
            cg = s.buf;
            *cg_len = s.len;
        } else {
            free(s.buf);
        }
    }
    fz_compare(g, g, analysed, fz_mix(v));
    return cg;
}

/* The graph read back from the callgrind writer's output is the graph
 * written: the same metrics, functions by key with their self costs, and
 * calls with their counts and costs (every call has one: the writer
 * refuses a call without). */
static void fz_same_as_written(const cgprop_graph *g, cgprop_graph *back)
{
    size_t K = cgprop_graph_metric_count(g), nn = cgprop_graph_node_count(g), ne = cgprop_graph_edge_count(g);
    cgprop_graph *gg = (cgprop_graph *)g; /* the row look-ups take no const graph */
    FZ_CHECK(cgprop_graph_node_count(back) == nn);
    FZ_CHECK(cgprop_graph_edge_count(back) == ne);
    for (uint32_t k = 0; k < K; k++) {
        size_t la, lb;
        const char *a = cgprop_graph_metric_name(g, k, &la), *b = cgprop_graph_metric_name(back, k, &lb);
        FZ_CHECK(la == lb && memcmp(a, b, la) == 0);
    }
    uint32_t *map = malloc((nn ? nn : 1) * sizeof *map);
    FZ_CHECK(map != NULL);
    for (uint32_t v = 0; v < nn; v++) {
        size_t kl;
        const char *key = cgprop_graph_node_key(g, v, &kl);
        /* A key without TABs is a bare name: it comes back with an empty
         * object and file ("\t\tname"). */
        char *full = malloc(kl + 2);
        FZ_CHECK(full != NULL);
        int bare = memchr(key, '\t', kl) == NULL;
        if (bare) {
            full[0] = full[1] = '\t';
            memcpy(full + 2, key, kl);
        }
        FZ_CHECK(cgprop_graph_find_node(back, bare ? full : key, bare ? kl + 2 : kl, &map[v]) == CGPROP_OK);
        free(full);
        for (uint32_t k = 0; k < K; k++) {
            cgprop_node_row a, b;
            FZ_CHECK(cgprop_graph_get_row(gg, CGPROP_ITER_NODES, k, v, &a, sizeof a) == CGPROP_OK);
            FZ_CHECK(cgprop_graph_get_row(back, CGPROP_ITER_NODES, k, map[v], &b, sizeof b) == CGPROP_OK);
            FZ_CHECK(a.self == b.self);
        }
    }
    for (uint32_t e = 0; e < ne; e++) {
        for (uint32_t k = 0; k < K; k++) {
            cgprop_edge_row a, b;
            uint32_t eb;
            FZ_CHECK(cgprop_graph_get_row(gg, CGPROP_ITER_EDGES, k, e, &a, sizeof a) == CGPROP_OK);
            FZ_CHECK(cgprop_graph_find_edge(back, map[a.caller], map[a.callee], &eb) == CGPROP_OK);
            FZ_CHECK(cgprop_graph_get_row(back, CGPROP_ITER_EDGES, k, eb, &b, sizeof b) == CGPROP_OK);
            FZ_CHECK(a.count == b.count);
            FZ_CHECK(a.cost == b.cost);
        }
    }
    free(map);
}

/* The callgrind writer's output must read back: a file the library wrote
 * and cannot read is a bug. The same functions and calls come back (the
 * reader may drop nothing and invent nothing). The graph read back, once
 * analysed, is then compared with the one written, both ways. */
static void fz_roundtrip(cgprop_graph *g, int analysed, uint64_t h, const char *cg, size_t len)
{
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_CALLGRIND;
    cgprop_graph *back = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer(cg, len, "roundtrip", 9, &o, NULL, &back, NULL, &err);
#ifdef FZ_DEBUG
    if (rc != CGPROP_OK) {
        fprintf(stderr, "roundtrip: %d line %llu: %s\n", rc, (unsigned long long)err.line, err.reason);
        fwrite(cg, 1, len, stderr);
    }
#endif
    FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_EOVERFLOW);
#ifdef FZ_DEBUG
    if (rc == CGPROP_OK && cgprop_graph_node_count(back) > cgprop_graph_node_count(g)) {
        for (int w = 0; w < 2; w++) {
            const cgprop_graph *x = w ? back : g;
            for (uint32_t v = 0; v < cgprop_graph_node_count(x); v++) {
                size_t kl;
                const char *k = cgprop_graph_node_key(x, v, &kl);
                fprintf(stderr, "%s %u: [", w ? "back" : "orig", v);
                for (size_t i = 0; i < kl; i++)
                    fprintf(stderr, (unsigned char)k[i] >= 32 && (unsigned char)k[i] < 127 ? "%c" : "\\x%02x", (unsigned char)k[i]);
                fprintf(stderr, "]\n");
            }
        }
        fwrite(cg, 1, len, stderr);
    }
#endif
    if (rc == CGPROP_OK) {
        FZ_CHECK(cgprop_graph_metric_count(back) == cgprop_graph_metric_count(g));
        /* Names the callgrind format cannot carry come back changed: one
         * that spells a recursion suffix ("f'2", kept as a name when folding
         * is off, or from folded stacks) reads back as a class of "f", and
         * quotes may read as caller contexts; a CR before the line end is
         * dropped, so the same name written bare and with a class suffix
         * reads back as two. Otherwise the graph must come back whole. */
        int quoted = 0;
        for (uint32_t v = 0; v < cgprop_graph_node_count(g) && !quoted; v++) {
            size_t kl;
            const char *k = cgprop_graph_node_key(g, v, &kl);
            quoted = memchr(k, '\'', kl) != NULL || memchr(k, '\r', kl) != NULL;
        }
        if (!quoted) fz_same_as_written(g, back);
        int both = fz_analyse(back, fz_share(h)) && analysed;
        uint64_t v = fz_mix(h ^ 0x5bd1e995u);
        fz_compare(back, g, both, v);
        fz_compare(g, back, both, fz_mix(v));
    }
    cgprop_graph_free(back);
}

/* One run in four fails an allocation of the reader's, one of the first
 * `most`; else -1: none. */
static inline long fz_until(uint64_t h, long most) { return ((h >> 9) & 3u) == 0 ? (long)((h >> 40) % most) : -1; }

/* The input read with o through f, a fresh allocator that fails after
 * `until` allocations (< 0: never). A refused allocation is the only
 * cause of ENOMEM, unless the reason contains `enomem_reason` (NULL:
 * none); a failed read leaks nothing. Returns the graph, NULL when the
 * read failed. */
static inline cgprop_graph *fz_read(const uint8_t *data, size_t size, const char *name,
                                    const cgprop_read_options *o, fz_alloc *f, long until,
                                    const char *enomem_reason, cgprop_read_info *info)
{
    cgprop_allocator a = fz_allocator(f, until);
    cgprop_graph *g = NULL;
    cgprop_read_info_init(info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)data, size, name, strlen(name), o, &a, &g, info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f->failed > 0 || (enomem_reason && strstr(err.reason, enomem_reason) != NULL));
    if (rc != CGPROP_OK) {
        FZ_CHECK(f->live == 0);
        return NULL;
    }
    return g;
}

/* What every reader's graph goes through: every analysis, failing one of
 * its allocations one run in four, then `analysed` (if given, and the
 * analyses succeeded), every writer and a read-back of the callgrind
 * writer's output; then g is freed, and nothing f handed out may be left. */
static inline void fz_finish(cgprop_graph *g, fz_alloc *f, uint64_t h, void (*analysed)(cgprop_graph *g))
{
    f->until_fail = ((h >> 11) & 3u) == 0 ? (long)((h >> 48) % 64) : -1;
    int ok = fz_analyse(g, fz_share(h));
    if (ok && analysed) analysed(g);
    size_t cg_len;
    char *cg = fz_write_all(g, ok, h, &cg_len);
    f->until_fail = -1;
    if (cg) fz_roundtrip(g, ok, h, cg, cg_len);
    free(cg);
    cgprop_graph_free(g);
    FZ_CHECK(f->live == 0);
}

/* A target for the reader of `format` (or detection, one time in eight):
 * read as that format, a graph must say so and give the `recursion` the
 * format implies, and pass `as_read` (if given) before the analyses and
 * `analysed` (if given) after them. With contexts, half the runs read
 * calling contexts too. */
static inline int fz_reader_target(const uint8_t *data, size_t size, uint32_t format, const char *name,
                                   uint32_t recursion, int contexts, void (*as_read)(cgprop_graph *g),
                                   void (*analysed)(cgprop_graph *g))
{
    uint64_t h = fz_hash(data, size);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = (h & 7u) == 0 ? CGPROP_INPUT_AUTO : format;
    if (contexts) o.contexts = (uint32_t)(h >> 5) & 1u;
    fz_alloc f;
    cgprop_read_info info;
    cgprop_graph *g = fz_read(data, size, name, &o, &f, fz_until(h, 200), NULL, &info);
    if (!g) return 0;
    if (o.format == format) {
        FZ_CHECK(info.format == format);
        FZ_CHECK(info.recursion == recursion);
    }
    if (info.format == format && as_read) as_read(g);
    fz_finish(g, &f, h, info.format == format ? analysed : NULL);
    return 0;
}

#endif
