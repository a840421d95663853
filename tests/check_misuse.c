/* Misuse, table-driven: every public function of cgprop.h and cgprop_io.h
 * called with NULL handles, NULL out-pointers, a metric index out of range,
 * ids out of range, stale iterators, analyses in the wrong order and
 * recorder events out of order.
 *
 * Each row of the table is one call and the status the headers document
 * for it. Every row runs on a fresh fixture (graphs made through a counting
 * allocator) and must:
 *   - return exactly the documented status;
 *   - leave a non-empty message where there is somewhere to put one (the
 *     graph's errmsg, or the reader's cgprop_read_error);
 *   - leave every graph of the fixture unchanged (contents and generation);
 *   - leave the analysed graph usable: the analyses run again and give the
 *     totals they gave before the misuse;
 *   - leak nothing: after everything is freed no block is live.
 * Check runs each row as its own loop iteration (in a child process unless
 * CK_FORK=no), so a crash names the row. */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_experimental.h"
#include "cgprop_io.h"
#include "support.h"

/* ---- a counting allocator ---- */

typedef struct counter {
    long live;
} counter;

static void *c_malloc(void *u, size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p) ((counter *)u)->live++;
    return p;
}
static void *c_realloc(void *u, void *p, size_t n)
{
    if (!p) return c_malloc(u, n);
    return realloc(p, n ? n : 1);
}
static void c_free(void *u, void *p)
{
    ((counter *)u)->live--;
    free(p);
}

/* ---- the fixture ---- */

typedef struct fx {
    counter ctr;
    cgprop_allocator a;
    cgprop_graph *g;   /* K = 2; a b c d; a->b b->c c->b c->d d->d; analysed and current */
    cgprop_graph *gn;  /* the same build, never analysed */
    cgprop_graph *gs;  /* the same build, analysed, then mutated: every result stale */
    cgprop_graph *gr;  /* the recorder's graph: K = 2, functions a b */
    cgprop_graph *g1;  /* K = 1 ("Ir"), for merges that must be refused */
    cgprop_graph *gx;  /* K = 2 named "x", "y": same K, other names */
    cgprop_iter *stale; /* NODES on gs, made before its mutation */
    cgprop_iter *live;  /* NODES on g, current */
    cgprop_recorder *r; /* on gr, with a open at (10, 10) */
    cgprop_read_error err;
    uint32_t u32;
    size_t sz;
    uint64_t costs[2];
    uint32_t frames[3];
    unsigned char row[256];
    double totals_before[4];
} fx;

static const char *const metric_names[2] = {"Ir", "ns"};

static cgprop_graph *build(fx *f, int analyse)
{
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(&f->a, metric_names, NULL, 2, &g), CGPROP_OK);
    const char *keys[4] = {"a", "b", "c", "d"};
    uint32_t id[4];
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(cgprop_graph_add_node(g, keys[i], 1, &id[i]), CGPROP_OK);
        uint64_t s[2] = {(uint64_t)i + 1, 10u * ((uint64_t)i + 1)};
        ck_assert_int_eq(cgprop_graph_add_self(g, id[i], s), CGPROP_OK);
    }
    static const uint32_t edges[5][2] = {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 3}};
    for (int e = 0; e < 5; e++) {
        uint64_t c[2] = {5, 7};
        ck_assert_int_eq(cgprop_graph_add_edge(g, edges[e][0], edges[e][1], 2, c, NULL), CGPROP_OK);
    }
    uint64_t sp[2] = {10, 100};
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, 0, 1, sp), CGPROP_OK);
    if (analyse) {
        ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    }
    return g;
}

static void totals(cgprop_graph *g, double *out)
{
    for (uint32_t v = 0; v < 4; v++) {
        cgprop_total_row t;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 1, v, &t, sizeof t), CGPROP_OK);
        out[v] = t.total;
    }
}

static void setup(fx *f)
{
    memset(f, 0, sizeof *f);
    cgprop_read_error_init(&f->err);
    f->a.malloc_fn = c_malloc;
    f->a.realloc_fn = c_realloc;
    f->a.free_fn = c_free;
    f->a.user = &f->ctr;
    f->g = build(f, 1);
    totals(f->g, f->totals_before);
    f->gn = build(f, 0);
    f->gs = build(f, 1);
    ck_assert_int_eq(cgprop_iter_new(f->gs, CGPROP_ITER_NODES, 0, 0, &f->stale), CGPROP_OK);
    uint64_t one[2] = {1, 1};
    ck_assert_int_eq(cgprop_graph_add_self(f->gs, 0, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_new(f->g, CGPROP_ITER_NODES, 0, 0, &f->live), CGPROP_OK);

    ck_assert_int_eq(cgprop_graph_new(&f->a, metric_names, NULL, 2, &f->gr), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(f->gr, "a", 1, &f->u32), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(f->gr, "b", 1, &f->u32), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_new(f->gr, NULL, &f->r), CGPROP_OK);
    uint64_t c[2] = {10, 10};
    ck_assert_int_eq(cgprop_recorder_enter(f->r, 0, c), CGPROP_OK);

    const char *ir = "Ir";
    ck_assert_int_eq(cgprop_graph_new(&f->a, &ir, NULL, 1, &f->g1), CGPROP_OK);
    const char *xy[2] = {"x", "y"};
    ck_assert_int_eq(cgprop_graph_new(&f->a, xy, NULL, 2, &f->gx), CGPROP_OK);
    f->costs[0] = 1;
    f->costs[1] = 2;
    f->frames[0] = 0;
    f->frames[1] = 1;
    f->frames[2] = 2;
}

static void teardown(fx *f)
{
    cgprop_iter_free(f->stale);
    cgprop_iter_free(f->live);
    cgprop_recorder_free(f->r);
    cgprop_graph_free(f->g);
    cgprop_graph_free(f->gn);
    cgprop_graph_free(f->gs);
    cgprop_graph_free(f->gr);
    cgprop_graph_free(f->g1);
    cgprop_graph_free(f->gx);
    ck_assert_int_eq(f->ctr.live, 0);
}

/* ---- helpers for rows that are more than one call ---- */

/* Getters without a status: 0 when they gave the documented value. */
#define WANT(cond) ((cond) ? CGPROP_OK : -100)

static int nonempty(const char *s) { return WANT(s != NULL && s[0] != '\0'); }

static int new_graph(const cgprop_allocator *a, const char *const *names, const size_t *lens, size_t k)
{
    cgprop_graph *g = (cgprop_graph *)&g; /* must come back NULL */
    int rc = cgprop_graph_new(a, names, lens, k, &g);
    if (g != NULL) {
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        return -101;
    }
    return rc;
}

static int new_iter(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t arg)
{
    cgprop_iter *it = (cgprop_iter *)&it; /* must come back NULL */
    int rc = cgprop_iter_new(g, kind, metric, arg, &it);
    if (rc == CGPROP_OK) {
        cgprop_iter_free(it);
        return rc;
    }
    return it == NULL ? rc : -101;
}

/* An iterator over an analysis made stale by re-running that analysis
 * (the graph itself does not change). */
static int stale_by_rerun(cgprop_graph *g, uint32_t kind, int copy)
{
    cgprop_iter *it = NULL;
    if (cgprop_iter_new(g, kind, 0, 0, &it) != CGPROP_OK) return -102;
    int rc = kind == CGPROP_ITER_SPLIT ? cgprop_graph_split(g) : cgprop_graph_propagate(g);
    if (rc != CGPROP_OK) {
        cgprop_iter_free(it);
        return -103;
    }
    unsigned char row[256];
    size_t n = 99;
    size_t rs = kind == CGPROP_ITER_SPLIT ? sizeof(cgprop_split_row) : sizeof(cgprop_total_row);
    rc = copy ? cgprop_iter_copy_rows(it, row, rs, 1, &n) : cgprop_iter_next(it, row, rs);
    if (copy && n != 0) rc = -104;
    cgprop_iter_free(it);
    return rc;
}

/* A stale iterator keeps saying so, and the graph's message says why. */
static int stale_twice(cgprop_iter *it)
{
    cgprop_node_row r;
    int a = cgprop_iter_next(it, &r, sizeof r);
    int b = cgprop_iter_next(it, &r, sizeof r);
    return a == b ? a : -105;
}

/* DONE, then DONE again: not an error, and no row. */
static int done_twice(cgprop_graph *g)
{
    cgprop_iter *it = NULL;
    if (cgprop_iter_new(g, CGPROP_ITER_MEMBERS, 0, 0, &it) != CGPROP_OK) return -102;
    cgprop_member_row m;
    int n = 0, rc;
    while ((rc = cgprop_iter_next(it, &m, sizeof m)) == CGPROP_OK) n++;
    int rc2 = cgprop_iter_next(it, &m, sizeof m);
    size_t got = 7;
    int rc3 = cgprop_iter_copy_rows(it, &m, sizeof m, 1, &got);
    cgprop_iter_free(it);
    /* The cycle {b, c}: two members. */
    return WANT(n == 2 && rc == CGPROP_DONE && rc2 == CGPROP_DONE && rc3 == CGPROP_DONE && got == 0);
}

static int collapse_after_cycles_then_propagate(cgprop_graph *gn)
{
    /* find_cycles alone is not enough for propagate: collapse is missing. */
    if (cgprop_graph_find_cycles(gn, NULL) != CGPROP_OK) return -102;
    return cgprop_graph_propagate(gn);
}

static int fresh_recorder_exit(cgprop_graph *gr)
{
    cgprop_recorder *r = NULL;
    if (cgprop_recorder_new(gr, NULL, &r) != CGPROP_OK) return -102;
    uint64_t c[2] = {1, 1};
    int rc = cgprop_recorder_exit(r, 0, c);
    const char *m = cgprop_graph_errmsg(gr);
    if (!m || !m[0]) rc = -106;
    cgprop_recorder_free(r);
    return rc;
}

static int recorder_new(cgprop_graph *g, uint32_t mode, uint32_t flags, uint64_t di, uint64_t de)
{
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = mode;
    o.flags = flags;
    o_di[1] = di;
    o_de[1] = de;
    cgprop_recorder *r = (cgprop_recorder *)&r;
    int rc = cgprop_recorder_new(g, &o, &r);
    if (rc == CGPROP_OK) {
        cgprop_recorder_free(r);
        return rc;
    }
    return r == NULL ? rc : -101;
}

static int rec_get(cgprop_recorder *r, uint32_t which, uint32_t node, uint32_t callee, uint32_t metric,
                   size_t size, int null_out)
{
    cgprop_recorder_figure fig;
    return cgprop_recorder_get(r, which, node, callee, metric, null_out ? NULL : &fig, size);
}

typedef struct clk {
    uint64_t t;
    int mode; /* 0 fine, 1 fails at once, 2 runs backwards after a while */
    int calls;
} clk;

static int clock_fn(void *user, uint64_t *out)
{
    clk *c = user;
    c->calls++;
    if (c->mode == 1) return 1;
    if (c->mode == 2 && c->calls > 5) c->t -= 3;
    else c->t += 2;
    out[0] = c->t;
    return 0;
}

static int calibrate(size_t k, int mode, uint32_t iters, int null_i, int null_e, int null_now)
{
    clk c = {1000, mode, 0};
    double di[2] = {-5, -5}, de[2] = {-5, -5};
    int rc = cgprop_recorder_calibrate(k, null_now ? NULL : clock_fn, &c, iters, NULL, null_i ? NULL : di,
                                       null_e ? NULL : de);
    /* On error the estimates are not left half-written. */
    if (rc != CGPROP_OK && !null_i && !null_e && k == 1 && !(di[0] == -5 || di[0] == 0)) return -107;
    return rc;
}

static int merge_self(cgprop_graph *g) { return cgprop_graph_merge(g, g); }

static int sink_ok(void *u, const char *d, size_t n)
{
    (void)u;
    (void)d;
    (void)n;
    return 0;
}
static int sink_fail(void *u, const char *d, size_t n)
{
    (void)u;
    (void)d;
    (void)n;
    return -1;
}

static int write_opts(cgprop_graph *g, uint32_t fmt, uint32_t metric, double nt, double et, cgprop_write_fn fn)
{
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.metric = metric;
    o.node_thres = nt;
    o.edge_thres = et;
    return cgprop_write(g, fmt, &o, fn, NULL);
}

static int options_inits(void)
{
    cgprop_read_options_init(NULL);
    cgprop_write_options_init(NULL);
    cgprop_read_options ro;
    cgprop_read_options_init(&ro);
    memset(&ro, 0xAB, sizeof ro);
    cgprop_read_options_init(&ro);
    cgprop_write_options wo;
    cgprop_write_options_init(&wo);
    memset(&wo, 0xAB, sizeof wo);
    cgprop_write_options_init(&wo);
    return WANT(ro.format == 0 && ro.key_mode == 0 && ro.separate_recs == 0 && ro.no_fold_recursion == 0 &&
                wo.metric == 0 && wo.flags == 0 && wo.node_thres == 0.5 && wo.edge_thres == 0.1);
}

static const char good_folded[] = "a;b 1\n";
static const char good_events[] = "enter a 1\nexit a 2\n";

/* A struct whose size field was never set (or is smaller than the first
 * published layout) is refused with EINVAL and nothing is made; one from a
 * newer header, larger with a zero tail, is accepted. which: 0 read options,
 * 1 read info, 2 read error, 3 write options, 4 recorder options, 5 events
 * info, 6 a larger read options struct with a zero tail, 7 the same with a
 * non-zero tail. */
static int bad_size(fx *f, int which)
{
    cgprop_graph *g = NULL;
    cgprop_read_options ro;
    cgprop_read_options_init(&ro);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_events_info ei;
    cgprop_events_info_init(&ei);
    struct {
        cgprop_read_options o;
        uint64_t more[2];
    } big;
    memset(&big, 0, sizeof big);
    cgprop_read_options_init(&big.o);
    big.o.size = (uint32_t)sizeof big;
    int rc;
    switch (which) {
    case 0:
        ro.size = 0;
        rc = cgprop_read_buffer(good_folded, 6, "s", 1, &ro, NULL, &g, &info, &err);
        break;
    case 1:
        info.size = 4;
        rc = cgprop_read_buffer(good_folded, 6, "s", 1, &ro, NULL, &g, &info, &err);
        break;
    case 2:
        err.size = 0;
        rc = cgprop_read_buffer(good_folded, 6, "s", 1, &ro, NULL, &g, &info, &err);
        if (rc == CGPROP_EINVAL && err.reason[0]) return -110; /* nothing written into an unsized struct */
        break;
    case 3: {
        cgprop_write_options wo;
        cgprop_write_options_init(&wo);
        wo.size = (uint32_t)sizeof wo - 1;
        return cgprop_write(f->g, CGPROP_FORMAT_TEXT, &wo, sink_ok, NULL);
    }
    case 4: {
        cgprop_recorder_options o;
        cgprop_recorder_options_init(&o);
        o.size = 0;
        cgprop_recorder *r = NULL;
        rc = cgprop_recorder_new(f->gr, &o, &r);
        if (r) return -111;
        return rc;
    }
    case 5:
        ei.size = 8;
        rc = cgprop_events_read_buffer(good_events, sizeof good_events - 1, "s", 1, NULL, NULL, &g, &ei, &err);
        break;
    case 6:
    case 7:
        if (which == 7) big.more[1] = 1;
        rc = cgprop_read_buffer(good_folded, 6, "s", 1, &big.o, NULL, &g, &info, &err);
        break;
    default: return -112;
    }
    if (rc != CGPROP_OK && g) return -113;
    cgprop_graph_free(g);
    return rc;
}

static int analyze_then_rows(cgprop_graph *g)
{
    int rc = cgprop_graph_analyze(g);
    if (rc) return rc;
    cgprop_total_row t;
    cgprop_split_row sp;
    cgprop_cycle_row cy;
    if ((rc = cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, 0, &t, sizeof t)) ||
        (rc = cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, 0, 0, &sp, sizeof sp)) ||
        (rc = cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cy, sizeof cy)))
        return rc;
    /* A second call finds everything current and changes nothing. */
    uint64_t gen = cgprop_graph_generation(g);
    if ((rc = cgprop_graph_analyze(g))) return rc;
    return WANT(cgprop_graph_generation(g) == gen);
}

static int frees_of_null(void)
{
    cgprop_graph_free(NULL);
    cgprop_iter_free(NULL);
    cgprop_recorder_free(NULL);
    return CGPROP_OK;
}


static int read_buf(fx *f, const char *data, size_t len, uint32_t format, uint32_t key_mode, uint32_t recs,
                    const cgprop_allocator *a, int null_out)
{
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = format;
    o.key_mode = key_mode;
    o.separate_recs = recs;
    cgprop_graph *g = (cgprop_graph *)&g;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    int rc = cgprop_read_buffer(data, len, "misuse", 6, &o, a, null_out ? NULL : &g, &info, &f->err);
    if (!null_out && g != NULL) {
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        return -101;
    }
    return rc;
}

static int read_path(fx *f, const char *path, size_t len, int null_out)
{
    cgprop_graph *g = (cgprop_graph *)&g;
    int rc = cgprop_read_file(path, len, NULL, NULL, null_out ? NULL : &g, NULL, &f->err);
    if (!null_out && g != NULL) {
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        return -101;
    }
    return rc;
}

static int events_buf(fx *f, const char *data, size_t len, uint32_t mode, const cgprop_allocator *a, int null_out)
{
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = mode;
    cgprop_graph *g = (cgprop_graph *)&g;
    cgprop_events_info info;
    cgprop_events_info_init(&info);
    int rc = cgprop_events_read_buffer(data, len, "misuse", 6, &o, a, null_out ? NULL : &g, &info, &f->err);
    if (!null_out && g != NULL) {
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        return -101;
    }
    return rc;
}

static int events_path(fx *f, const char *path, size_t len)
{
    cgprop_graph *g = (cgprop_graph *)&g;
    int rc = cgprop_events_read_file(path, len, NULL, NULL, &g, NULL, &f->err);
    if (g != NULL) {
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        return -101;
    }
    return rc;
}

static const cgprop_allocator partial_alloc = {c_malloc, NULL, c_free, NULL};

/* Arguments with commas, kept out of the table's macro arguments. */
static const size_t lens_2_0[2] = {2, 0};
static const uint64_t c_20_20[2] = {20, 20}, c_20_9[2] = {20, 9}, c_9_20[2] = {9, 20}, c_20_1[2] = {20, 1},
                      c_1_20[2] = {1, 20};
static const uint32_t frames_014[3] = {0, 1, 4}, frames_none_1[2] = {CGPROP_NONE, 1};
static const uint64_t counts_3[3] = {1, 1, 1};
static const char *const keys_null[1] = {NULL};

/* ---- the table ---- */

/* M_ERR0: the reader's message, with no file name to report (none was given). */
enum msg_at { M_NONE, M_G, M_GN, M_GS, M_GR, M_GX, M_ERR, M_ERR0 };

#define R_BIG ((size_t)UINT32_MAX)

/* X(name, expected status, where the message must be, the call) */
#define MISUSE_TABLE(X)                                                                                          \
    /* version, errors, memory */                                                                              \
    X(strerror_unknown, CGPROP_OK, M_NONE, nonempty(cgprop_strerror(12345)))                                     \
    X(strerror_ewrite, CGPROP_OK, M_NONE, nonempty(cgprop_strerror(CGPROP_EWRITE)))                              \
    X(version_string, CGPROP_OK, M_NONE, nonempty(cgprop_version_string()))                                      \
    X(version_number, CGPROP_OK, M_NONE, WANT(cgprop_version() == CGPROP_VERSION_NUMBER))                        \
    X(errmsg_null, CGPROP_OK, M_NONE, nonempty(cgprop_graph_errmsg(NULL)))                                       \
    X(frees_of_null, CGPROP_OK, M_NONE, frees_of_null())                                                         \
    X(new_null_out, CGPROP_EINVAL, M_NONE, cgprop_graph_new(NULL, metric_names, NULL, 2, NULL))                  \
    X(new_zero_metrics, CGPROP_EINVAL, M_NONE, new_graph(NULL, metric_names, NULL, 0))                           \
    X(new_65_metrics, CGPROP_EINVAL, M_NONE, new_graph(NULL, metric_names, NULL, CGPROP_MAX_METRICS + 1))        \
    X(new_null_names, CGPROP_EINVAL, M_NONE, new_graph(NULL, NULL, NULL, 1))                                     \
    X(new_empty_name, CGPROP_EINVAL, M_NONE, new_graph(NULL, metric_names, lens_2_0, 2))           \
    X(new_partial_alloc, CGPROP_EINVAL, M_NONE, new_graph(&partial_alloc, metric_names, NULL, 2))                \
    /* building */                                                                                             \
    X(metric_count_null, CGPROP_OK, M_NONE, WANT(cgprop_graph_metric_count(NULL) == 0))                          \
    X(metric_name_null, CGPROP_OK, M_NONE, WANT(cgprop_graph_metric_name(NULL, 0, &f->sz) == NULL))              \
    X(metric_name_wrong_k, CGPROP_OK, M_NONE, WANT(cgprop_graph_metric_name(f->g, 2, NULL) == NULL))            \
    X(metric_name_k_max, CGPROP_OK, M_NONE, WANT(cgprop_graph_metric_name(f->g, UINT32_MAX, &f->sz) == NULL))   \
    X(find_metric_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_find_metric(NULL, "Ir", 2, &f->u32))               \
    X(find_metric_null_out, CGPROP_EINVAL, M_G, cgprop_graph_find_metric(f->g, "Ir", 2, NULL))                   \
    X(find_metric_null_name, CGPROP_EINVAL, M_G, cgprop_graph_find_metric(f->g, NULL, 2, &f->u32))               \
    X(find_metric_missing, CGPROP_ENOTFOUND, M_G, cgprop_graph_find_metric(f->g, "Dr", 2, &f->u32))              \
    X(add_node_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_node(NULL, "x", 1, &f->u32))                      \
    X(add_node_null_out, CGPROP_EINVAL, M_G, cgprop_graph_add_node(f->g, "x", 1, NULL))                          \
    X(add_node_null_key, CGPROP_EINVAL, M_G, cgprop_graph_add_node(f->g, NULL, 3, &f->u32))                      \
    X(add_node_4g_key, CGPROP_EINVAL, M_G, cgprop_graph_add_node(f->g, "x", R_BIG, &f->u32))                     \
    X(find_node_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_find_node(NULL, "a", 1, &f->u32))                    \
    X(find_node_null_out, CGPROP_EINVAL, M_G, cgprop_graph_find_node(f->g, "a", 1, NULL))                        \
    X(find_node_null_key, CGPROP_EINVAL, M_G, cgprop_graph_find_node(f->g, NULL, 1, &f->u32))                    \
    X(find_node_missing, CGPROP_ENOTFOUND, M_G, cgprop_graph_find_node(f->g, "zz", 2, &f->u32))                  \
    X(find_node_4g_key, CGPROP_ENOTFOUND, M_G, cgprop_graph_find_node(f->g, "a", R_BIG + 1, &f->u32))            \
    X(node_key_null, CGPROP_OK, M_NONE, WANT(cgprop_graph_node_key(NULL, 0, &f->sz) == NULL && f->sz == 0))      \
    X(node_key_range, CGPROP_OK, M_NONE, WANT(cgprop_graph_node_key(f->g, 4, &f->sz) == NULL && f->sz == 0))     \
    X(node_key_none, CGPROP_OK, M_NONE, WANT(cgprop_graph_node_key(f->g, CGPROP_NONE, NULL) == NULL))            \
    X(counts_null, CGPROP_OK, M_NONE,                                                                            \
      WANT(cgprop_graph_node_count(NULL) == 0 && cgprop_graph_edge_count(NULL) == 0 &&                           \
           cgprop_graph_generation(NULL) == 0))                                                                  \
    X(add_self_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_self(NULL, 0, f->costs))                          \
    X(add_self_range, CGPROP_EINVAL, M_G, cgprop_graph_add_self(f->g, 4, f->costs))                              \
    X(add_self_none, CGPROP_EINVAL, M_G, cgprop_graph_add_self(f->g, CGPROP_NONE, f->costs))                     \
    X(add_self_null_costs, CGPROP_EINVAL, M_G, cgprop_graph_add_self(f->g, 0, NULL))                             \
    X(add_self_class_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_self_class(NULL, 0, 0, f->costs))           \
    X(add_self_class_level, CGPROP_EINVAL, M_G, cgprop_graph_add_self_class(f->g, 0, 4, f->costs))               \
    X(add_self_class_level_max, CGPROP_EINVAL, M_G, cgprop_graph_add_self_class(f->g, 0, UINT32_MAX, f->costs))  \
    X(add_self_class_range, CGPROP_EINVAL, M_G, cgprop_graph_add_self_class(f->g, 9, 0, f->costs))               \
    X(add_self_class_null_costs, CGPROP_EINVAL, M_G, cgprop_graph_add_self_class(f->g, 0, 0, NULL))              \
    X(add_edge_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_edge(NULL, 0, 1, 1, f->costs, NULL))              \
    X(add_edge_caller_range, CGPROP_EINVAL, M_G, cgprop_graph_add_edge(f->g, 4, 1, 1, f->costs, &f->u32))        \
    X(add_edge_callee_range, CGPROP_EINVAL, M_G, cgprop_graph_add_edge(f->g, 0, 4, 1, NULL, &f->u32))            \
    X(add_edge_caller_none, CGPROP_EINVAL, M_G, cgprop_graph_add_edge(f->g, CGPROP_NONE, 1, 1, NULL, NULL))      \
    X(add_calls_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_calls(NULL, 1, frames_014, frames_014, counts_3, NULL, NULL)) \
    X(add_calls_null_callers, CGPROP_EINVAL, M_G, cgprop_graph_add_calls(f->g, 1, NULL, frames_014, counts_3, NULL, NULL)) \
    X(add_calls_null_counts, CGPROP_EINVAL, M_G, cgprop_graph_add_calls(f->g, 1, frames_014, frames_014, NULL, NULL, NULL)) \
    X(add_calls_range, CGPROP_EINVAL, M_G, cgprop_graph_add_calls(f->g, 3, frames_014, frames_014, counts_3, NULL, NULL)) \
    X(add_nodes_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_nodes(NULL, 1, keys_null, lens_2_0 + 1, &f->u32)) \
    X(add_nodes_null_keys, CGPROP_EINVAL, M_G, cgprop_graph_add_nodes(f->g, 1, NULL, NULL, &f->u32))            \
    X(add_nodes_null_out, CGPROP_EINVAL, M_G, cgprop_graph_add_nodes(f->g, 1, keys_null, lens_2_0 + 1, NULL))   \
    X(add_nodes_null_key, CGPROP_EINVAL, M_G, cgprop_graph_add_nodes(f->g, 1, keys_null, lens_2_0, &f->u32))     \
    X(add_edge_class_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_edge_class(NULL, 0, 1, 0, 0, 1, f->costs, NULL)) \
    X(add_edge_class_null_costs, CGPROP_EINVAL, M_G, cgprop_graph_add_edge_class(f->g, 0, 1, 0, 0, 1, NULL, NULL)) \
    X(add_edge_class_caller_lvl, CGPROP_EINVAL, M_G, cgprop_graph_add_edge_class(f->g, 0, 1, 4, 0, 1, f->costs, NULL)) \
    X(add_edge_class_callee_lvl, CGPROP_EINVAL, M_G, cgprop_graph_add_edge_class(f->g, 0, 1, 0, 7, 1, f->costs, NULL)) \
    X(add_edge_class_range, CGPROP_EINVAL, M_G, cgprop_graph_add_edge_class(f->g, 0, 5, 0, 0, 1, f->costs, NULL)) \
    X(add_spont_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_spontaneous(NULL, 0, 1, f->costs))               \
    X(add_spont_null_costs, CGPROP_EINVAL, M_G, cgprop_graph_add_spontaneous(f->g, 0, 1, NULL))                  \
    X(add_spont_range, CGPROP_EINVAL, M_G, cgprop_graph_add_spontaneous(f->g, 4, 1, f->costs))                   \
    X(add_stack_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_add_stack(NULL, f->frames, 3, f->costs))             \
    X(add_stack_null_frames, CGPROP_EINVAL, M_G, cgprop_graph_add_stack(f->g, NULL, 3, f->costs))                \
    X(add_stack_null_weights, CGPROP_EINVAL, M_G, cgprop_graph_add_stack(f->g, f->frames, 3, NULL))              \
    X(add_stack_depth_0, CGPROP_EINVAL, M_G, cgprop_graph_add_stack(f->g, f->frames, 0, f->costs))               \
    X(add_stack_frame_range, CGPROP_EINVAL, M_G,                                                                 \
      cgprop_graph_add_stack(f->g, frames_014, 3, f->costs))                                    \
    X(add_stack_frame_none, CGPROP_EINVAL, M_G,                                                                  \
      cgprop_graph_add_stack(f->g, frames_none_1, 2, f->costs))                             \
    X(find_edge_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_find_edge(NULL, 0, 1, &f->u32))                      \
    X(find_edge_null_out, CGPROP_EINVAL, M_G, cgprop_graph_find_edge(f->g, 0, 1, NULL))                          \
    X(find_edge_range, CGPROP_EINVAL, M_G, cgprop_graph_find_edge(f->g, 0, 4, &f->u32))                          \
    X(find_edge_missing, CGPROP_ENOTFOUND, M_G, cgprop_graph_find_edge(f->g, 1, 0, &f->u32))                     \
    /* analyses: NULL, bad share, wrong order, stale prerequisites */                                           \
    X(find_cycles_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_find_cycles(NULL, &f->sz))                         \
    X(collapse_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_collapse(NULL, CGPROP_SHARE_AUTO))                    \
    X(collapse_bad_share, CGPROP_EINVAL, M_G, cgprop_graph_collapse(f->g, 3))                                    \
    X(collapse_bad_share_max, CGPROP_EINVAL, M_G, cgprop_graph_collapse(f->g, UINT32_MAX))                       \
    X(collapse_before_cycles, CGPROP_ESTATE, M_GN, cgprop_graph_collapse(f->gn, CGPROP_SHARE_COUNT))             \
    X(collapse_stale_cycles, CGPROP_ESTATE, M_GS, cgprop_graph_collapse(f->gs, CGPROP_SHARE_COUNT))              \
    X(propagate_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_propagate(NULL))                                     \
    X(propagate_first, CGPROP_ESTATE, M_GN, cgprop_graph_propagate(f->gn))                                       \
    X(propagate_without_collapse, CGPROP_ESTATE, M_GN, collapse_after_cycles_then_propagate(f->gn))              \
    X(propagate_stale, CGPROP_ESTATE, M_GS, cgprop_graph_propagate(f->gs))                                       \
    X(split_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_split(NULL))                                             \
    X(unrooted_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_unrooted(NULL, 0, f->costs))                          \
    X(unrooted_null_out, CGPROP_EINVAL, M_G, cgprop_graph_unrooted(f->g, 0, NULL))                               \
    X(unrooted_bad_metric, CGPROP_EINVAL, M_G, cgprop_graph_unrooted(f->g, 2, f->costs))                         \
    X(analyze_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_analyze(NULL))                                         \
    X(analyze_fresh, CGPROP_OK, M_NONE, analyze_then_rows(f->gn))                                                \
    X(analyze_stale, CGPROP_OK, M_NONE, analyze_then_rows(f->gs))                                                \
    X(size_read_options, CGPROP_EINVAL, M_NONE, bad_size(f, 0))                                                  \
    X(size_read_info, CGPROP_EINVAL, M_NONE, bad_size(f, 1))                                                     \
    X(size_read_error, CGPROP_EINVAL, M_NONE, bad_size(f, 2))                                                    \
    X(size_write_options, CGPROP_EINVAL, M_G, bad_size(f, 3))                                                    \
    X(size_recorder_options, CGPROP_EINVAL, M_GR, bad_size(f, 4))                                                \
    X(size_events_info, CGPROP_EINVAL, M_NONE, bad_size(f, 5))                                                   \
    X(size_newer_zero_tail, CGPROP_OK, M_NONE, bad_size(f, 6))                                                   \
    X(size_newer_dirty_tail, CGPROP_EINVAL, M_NONE, bad_size(f, 7))                                              \
    X(set_estimate_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_set_estimate(NULL, CGPROP_EST_WALK, 1))           \
    X(set_estimate_exact, CGPROP_EINVAL, M_G, cgprop_graph_set_estimate(f->g, CGPROP_EST_EXACT, 1))              \
    X(set_estimate_budget_kind, CGPROP_EINVAL, M_G, cgprop_graph_set_estimate(f->g, CGPROP_EST_BUDGET, 1))       \
    X(set_estimate_kind_max, CGPROP_EINVAL, M_G, cgprop_graph_set_estimate(f->g, UINT32_MAX, 1))                 \
    X(set_estimate_negative, CGPROP_EINVAL, M_G, cgprop_graph_set_estimate(f->g, CGPROP_EST_WALK, -1))           \
    X(set_estimate_nan, CGPROP_EINVAL, M_G, cgprop_graph_set_estimate(f->g, CGPROP_EST_WALK, 0.0 / 0.0))         \
    /* iterators */                                                                                             \
    X(iter_new_null_g, CGPROP_EINVAL, M_NONE, new_iter(NULL, CGPROP_ITER_NODES, 0, 0))         \
    X(iter_new_null_out, CGPROP_EINVAL, M_G, cgprop_iter_new(f->g, CGPROP_ITER_NODES, 0, 0, NULL))               \
    X(iter_new_kind_0, CGPROP_EINVAL, M_G, new_iter(f->g, 0, 0, 0))                                              \
    X(iter_new_kind_11, CGPROP_EINVAL, M_G, new_iter(f->g, 11, 0, 0))                                            \
    X(iter_new_kind_max, CGPROP_EINVAL, M_G, new_iter(f->g, UINT32_MAX, 0, 0))                                   \
    X(iter_new_wrong_k, CGPROP_EINVAL, M_G, new_iter(f->g, CGPROP_ITER_NODES, 2, 0))                             \
    X(iter_new_wrong_k_totals, CGPROP_EINVAL, M_G, new_iter(f->g, CGPROP_ITER_TOTALS, 2, 0))                     \
    X(iter_new_wrong_k_max, CGPROP_EINVAL, M_G, new_iter(f->g, CGPROP_ITER_EDGE_SPLIT, UINT32_MAX, 0))           \
    X(iter_new_callers_range, CGPROP_EINVAL, M_G, new_iter(f->g, CGPROP_ITER_CALLERS, 0, 4))                     \
    X(iter_new_callees_none, CGPROP_EINVAL, M_G, new_iter(f->g, CGPROP_ITER_CALLEES, 0, CGPROP_NONE))            \
    X(iter_new_members_range, CGPROP_EINVAL, M_G, new_iter(f->g, CGPROP_ITER_MEMBERS, 0, 1))                     \
    X(iter_new_cycles_first, CGPROP_ESTATE, M_GN, new_iter(f->gn, CGPROP_ITER_CYCLES, 0, 0))                     \
    X(iter_new_members_first, CGPROP_ESTATE, M_GN, new_iter(f->gn, CGPROP_ITER_MEMBERS, 0, 0))                   \
    X(iter_new_totals_first, CGPROP_ESTATE, M_GN, new_iter(f->gn, CGPROP_ITER_TOTALS, 0, 0))                     \
    X(iter_new_edge_totals_first, CGPROP_ESTATE, M_GN, new_iter(f->gn, CGPROP_ITER_EDGE_TOTALS, 0, 0))           \
    X(iter_new_split_first, CGPROP_ESTATE, M_GN, new_iter(f->gn, CGPROP_ITER_SPLIT, 0, 0))                       \
    X(iter_new_edge_split_first, CGPROP_ESTATE, M_GN, new_iter(f->gn, CGPROP_ITER_EDGE_SPLIT, 0, 0))             \
    X(iter_new_totals_stale, CGPROP_ESTATE, M_GS, new_iter(f->gs, CGPROP_ITER_TOTALS, 0, 0))                     \
    X(iter_new_split_stale, CGPROP_ESTATE, M_GS, new_iter(f->gs, CGPROP_ITER_SPLIT, 0, 0))                       \
    X(iter_new_cycles_stale, CGPROP_ESTATE, M_GS, new_iter(f->gs, CGPROP_ITER_CYCLES, 0, 0))                     \
    X(iter_next_null_it, CGPROP_EINVAL, M_NONE, cgprop_iter_next(NULL, f->row, sizeof(cgprop_node_row)))         \
    X(iter_next_null_row, CGPROP_EINVAL, M_G, cgprop_iter_next(f->live, NULL, sizeof(cgprop_node_row)))          \
    X(iter_next_wrong_size, CGPROP_EINVAL, M_G, cgprop_iter_next(f->live, f->row, sizeof(cgprop_edge_row)))      \
    X(iter_next_size_0, CGPROP_EINVAL, M_G, cgprop_iter_next(f->live, f->row, 0))                                \
    X(iter_next_stale, CGPROP_ESTATE, M_GS, stale_twice(f->stale))                                               \
    X(iter_next_stale_rerun, CGPROP_ESTATE, M_G, stale_by_rerun(f->g, CGPROP_ITER_TOTALS, 0))                    \
    X(iter_next_stale_resplit, CGPROP_ESTATE, M_G, stale_by_rerun(f->g, CGPROP_ITER_SPLIT, 0))                   \
    X(iter_done_twice, CGPROP_OK, M_NONE, done_twice(f->g))                                                      \
    X(copy_rows_null_it, CGPROP_EINVAL, M_NONE, cgprop_iter_copy_rows(NULL, f->row, sizeof(cgprop_node_row), 1, &f->sz)) \
    X(copy_rows_null_n, CGPROP_EINVAL, M_G, cgprop_iter_copy_rows(f->live, f->row, sizeof(cgprop_node_row), 1, NULL)) \
    X(copy_rows_null_dst, CGPROP_EINVAL, M_G, cgprop_iter_copy_rows(f->live, NULL, sizeof(cgprop_node_row), 1, &f->sz)) \
    X(copy_rows_wrong_size, CGPROP_EINVAL, M_G, cgprop_iter_copy_rows(f->live, f->row, 8, 1, &f->sz))            \
    X(copy_rows_stale, CGPROP_ESTATE, M_GS, cgprop_iter_copy_rows(f->stale, f->row, sizeof(cgprop_node_row), 1, &f->sz)) \
    X(copy_rows_stale_rerun, CGPROP_ESTATE, M_G, stale_by_rerun(f->g, CGPROP_ITER_TOTALS, 1))                    \
    X(iter_count_null, CGPROP_OK, M_NONE, WANT(cgprop_iter_count(NULL) == 0))                                    \
    X(get_row_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_get_row(NULL, CGPROP_ITER_NODES, 0, 0, f->row, sizeof(cgprop_node_row))) \
    X(get_row_null_row, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_NODES, 0, 0, NULL, sizeof(cgprop_node_row))) \
    X(get_row_callers, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_CALLERS, 0, 0, f->row, sizeof(cgprop_edge_row))) \
    X(get_row_members, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_MEMBERS, 0, 0, f->row, sizeof(cgprop_member_row))) \
    X(get_row_kind_0, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, 0, 0, 0, f->row, 8))                        \
    X(get_row_node_range, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_NODES, 0, 4, f->row, sizeof(cgprop_node_row))) \
    X(get_row_node_none, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_TOTALS, 0, CGPROP_NONE, f->row, sizeof(cgprop_total_row))) \
    X(get_row_edge_range, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_EDGES, 0, 5, f->row, sizeof(cgprop_edge_row))) \
    X(get_row_edge_split_range, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_EDGE_SPLIT, 0, 5, f->row, sizeof(cgprop_edge_split_row))) \
    X(get_row_cycle_range, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_CYCLES, 0, 1, f->row, sizeof(cgprop_cycle_row))) \
    X(get_row_wrong_k, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_NODES, 2, 0, f->row, sizeof(cgprop_node_row))) \
    X(get_row_wrong_size, CGPROP_EINVAL, M_G, cgprop_graph_get_row(f->g, CGPROP_ITER_SPLIT, 0, 0, f->row, sizeof(cgprop_node_row))) \
    X(get_row_totals_first, CGPROP_ESTATE, M_GN, cgprop_graph_get_row(f->gn, CGPROP_ITER_TOTALS, 0, 0, f->row, sizeof(cgprop_total_row))) \
    X(get_row_cycles_first, CGPROP_ESTATE, M_GN, cgprop_graph_get_row(f->gn, CGPROP_ITER_CYCLES, 0, 0, f->row, sizeof(cgprop_cycle_row))) \
    X(get_row_split_stale, CGPROP_ESTATE, M_GS, cgprop_graph_get_row(f->gs, CGPROP_ITER_SPLIT, 0, 0, f->row, sizeof(cgprop_split_row))) \
    X(get_row_edge_totals_stale, CGPROP_ESTATE, M_GS, cgprop_graph_get_row(f->gs, CGPROP_ITER_EDGE_TOTALS, 0, 0, f->row, sizeof(cgprop_edge_total_row))) \
    X(node_cycle_null_g, CGPROP_EINVAL, M_NONE, cgprop_graph_node_cycle(NULL, 0, &f->u32))                       \
    X(node_cycle_null_out, CGPROP_EINVAL, M_G, cgprop_graph_node_cycle(f->g, 0, NULL))                           \
    X(node_cycle_range, CGPROP_EINVAL, M_G, cgprop_graph_node_cycle(f->g, 4, &f->u32))                           \
    X(node_cycle_first, CGPROP_ESTATE, M_GN, cgprop_graph_node_cycle(f->gn, 0, &f->u32))                         \
    X(node_cycle_stale, CGPROP_ESTATE, M_GS, cgprop_graph_node_cycle(f->gs, 0, &f->u32))                         \
    /* recorder */                                                                                              \
    X(rec_new_null_g, CGPROP_EINVAL, M_NONE, recorder_new(NULL, 0, 0, 0, 0))                                     \
    X(rec_new_null_out, CGPROP_EINVAL, M_GR, cgprop_recorder_new(f->gr, NULL, NULL))                             \
    X(rec_new_bad_mode, CGPROP_EINVAL, M_GR, recorder_new(f->gr, 3, 0, 0, 0))                                    \
    X(rec_new_bad_flag, CGPROP_EINVAL, M_GR, recorder_new(f->gr, CGPROP_COMP_ONLINE, 4, 0, 0))                   \
    X(rec_new_clamp_postmortem, CGPROP_EINVAL, M_GR, recorder_new(f->gr, CGPROP_COMP_POSTMORTEM, CGPROP_REC_CLAMP, 0, 0)) \
    X(rec_new_delta_overflow, CGPROP_EINVAL, M_GR, recorder_new(f->gr, CGPROP_COMP_ONLINE, 0, INT64_MAX, 1))     \
    X(rec_new_delta_huge, CGPROP_EINVAL, M_GR, recorder_new(f->gr, CGPROP_COMP_ONLINE, 0, UINT64_MAX, 0))        \
    X(rec_enter_null_r, CGPROP_EINVAL, M_NONE, cgprop_recorder_enter(NULL, 0, f->costs))                         \
    X(rec_enter_null_counters, CGPROP_EINVAL, M_GR, cgprop_recorder_enter(f->r, 1, NULL))                        \
    X(rec_enter_range, CGPROP_EINVAL, M_GR, cgprop_recorder_enter(f->r, 2, c_20_20))          \
    X(rec_enter_none, CGPROP_EINVAL, M_GR, cgprop_recorder_enter(f->r, CGPROP_NONE, c_20_20)) \
    X(rec_enter_backwards, CGPROP_EFORMAT, M_GR, cgprop_recorder_enter(f->r, 1, c_20_9))      \
    X(rec_exit_null_r, CGPROP_EINVAL, M_NONE, cgprop_recorder_exit(NULL, 0, f->costs))                           \
    X(rec_exit_null_counters, CGPROP_EINVAL, M_GR, cgprop_recorder_exit(f->r, 0, NULL))                          \
    X(rec_exit_not_innermost, CGPROP_EFORMAT, M_GR, cgprop_recorder_exit(f->r, 1, c_20_20))   \
    X(rec_exit_range, CGPROP_EFORMAT, M_GR, cgprop_recorder_exit(f->r, 7, c_20_20))           \
    X(rec_exit_backwards, CGPROP_EFORMAT, M_GR, cgprop_recorder_exit(f->r, 0, c_9_20))        \
    X(rec_exit_empty, CGPROP_EFORMAT, M_NONE, fresh_recorder_exit(f->gr))                                        \
    X(rec_depth_null, CGPROP_OK, M_NONE,                                                                         \
      WANT(cgprop_recorder_depth(NULL) == 0 && cgprop_recorder_clamp_count(NULL) == 0 &&                         \
           cgprop_recorder_floor_count(NULL) == 0 && cgprop_recorder_depth(f->r) == 1 &&                         \
           cgprop_graph_clamp_count(NULL) == 0 && cgprop_graph_clamp_count(f->gr) == 0 &&                      \
           cgprop_graph_floor_count(NULL) == 0 && cgprop_graph_floor_count(f->gr) == 0))                         \
    X(rec_unwind_null_r, CGPROP_EINVAL, M_NONE, cgprop_recorder_unwind(NULL, f->costs))                          \
    X(rec_unwind_null_counters, CGPROP_EINVAL, M_GR, cgprop_recorder_unwind(f->r, NULL))                         \
    X(rec_unwind_backwards, CGPROP_EFORMAT, M_GR, cgprop_recorder_unwind(f->r, c_20_1))       \
    X(rec_flush_null_r, CGPROP_EINVAL, M_NONE, cgprop_recorder_flush(NULL, f->costs))                            \
    X(rec_flush_null_counters, CGPROP_EINVAL, M_GR, cgprop_recorder_flush(f->r, NULL))                           \
    X(rec_flush_backwards, CGPROP_EFORMAT, M_GR, cgprop_recorder_flush(f->r, c_1_20))         \
    X(rec_get_null_r, CGPROP_EINVAL, M_NONE, rec_get(NULL, CGPROP_RF_S_N, 0, 0, 0, sizeof(cgprop_recorder_figure), 0)) \
    X(rec_get_null_out, CGPROP_EINVAL, M_GR, rec_get(f->r, CGPROP_RF_S_N, 0, 0, 0, sizeof(cgprop_recorder_figure), 1)) \
    X(rec_get_wrong_size, CGPROP_EINVAL, M_GR, rec_get(f->r, CGPROP_RF_S_N, 0, 0, 0, 8, 0))                      \
    X(rec_get_bad_which, CGPROP_EINVAL, M_GR, rec_get(f->r, CGPROP_RF_C_RD + 1, 0, 0, 0, sizeof(cgprop_recorder_figure), 0)) \
    X(rec_get_wrong_k, CGPROP_EINVAL, M_GR, rec_get(f->r, CGPROP_RF_S_N, 0, 0, 2, sizeof(cgprop_recorder_figure), 0)) \
    X(rec_get_node_range, CGPROP_EINVAL, M_GR, rec_get(f->r, CGPROP_RF_C_N, 2, 0, 0, sizeof(cgprop_recorder_figure), 0)) \
    X(rec_get_callee_range, CGPROP_EINVAL, M_GR, rec_get(f->r, CGPROP_RF_C_NN, 0, CGPROP_NONE, 0, sizeof(cgprop_recorder_figure), 0)) \
    X(calibrate_null_now, CGPROP_EINVAL, M_NONE, calibrate(1, 0, 10, 0, 0, 1))                                   \
    X(calibrate_k_0, CGPROP_EINVAL, M_NONE, calibrate(0, 0, 10, 0, 0, 0))                                        \
    X(calibrate_k_65, CGPROP_EINVAL, M_NONE, calibrate(CGPROP_MAX_METRICS + 1, 0, 10, 0, 0, 0))                  \
    X(calibrate_no_iterations, CGPROP_EINVAL, M_NONE, calibrate(1, 0, 0, 0, 0, 0))                               \
    X(calibrate_null_di, CGPROP_EINVAL, M_NONE, calibrate(1, 0, 10, 1, 0, 0))                                    \
    X(calibrate_null_de, CGPROP_EINVAL, M_NONE, calibrate(1, 0, 10, 0, 1, 0))                                    \
    X(calibrate_clock_fails, CGPROP_EINVAL, M_NONE, calibrate(1, 1, 10, 0, 0, 0))                                \
    X(calibrate_clock_backwards, CGPROP_EINVAL, M_NONE, calibrate(1, 2, 10, 0, 0, 0))                            \
    X(keep_contexts_null, CGPROP_EINVAL, M_NONE, cgprop_graph_keep_contexts(NULL, 1))                            \
    X(keep_contexts_after_costs, CGPROP_ESTATE, M_G, cgprop_graph_keep_contexts(f->g, 1))                        \
    X(context_count_null, CGPROP_OK, M_NONE, WANT(cgprop_graph_context_count(NULL) == 0))                        \
    X(merge_null_dst, CGPROP_EINVAL, M_NONE, cgprop_graph_merge(NULL, f->gn))                                    \
    X(merge_null_src, CGPROP_EINVAL, M_G, cgprop_graph_merge(f->g, NULL))                                        \
    X(merge_itself, CGPROP_EINVAL, M_G, merge_self(f->g))                                                        \
    X(merge_other_k, CGPROP_EINVAL, M_G, cgprop_graph_merge(f->g, f->g1))                                        \
    X(merge_other_names, CGPROP_EINVAL, M_GX, cgprop_graph_merge(f->gx, f->gn))                                  \
    /* readers */                                                                                               \
    X(options_inits, CGPROP_OK, M_NONE, options_inits())                                                         \
    X(detect_null, CGPROP_OK, M_NONE, WANT(cgprop_read_detect(NULL, 5) == CGPROP_INPUT_AUTO))                    \
    X(detect_garbage, CGPROP_OK, M_NONE, WANT(cgprop_read_detect("\x01\x02\n", 3) == CGPROP_INPUT_AUTO))         \
    X(read_null_out, CGPROP_EINVAL, M_ERR, read_buf(f, good_folded, 6, 0, 0, 0, NULL, 1))                        \
    X(read_null_data, CGPROP_EINVAL, M_ERR, read_buf(f, NULL, 6, 0, 0, 0, NULL, 0))                              \
    X(read_bad_format, CGPROP_EINVAL, M_ERR, read_buf(f, good_folded, 6, 99, 0, 0, NULL, 0))                     \
    X(read_bad_key_mode, CGPROP_EINVAL, M_ERR, read_buf(f, good_folded, 6, 0, 2, 0, NULL, 0))                    \
    X(read_bad_recs, CGPROP_EINVAL, M_ERR, read_buf(f, good_folded, 6, 0, 0, UINT32_MAX, NULL, 0))               \
    X(read_partial_alloc, CGPROP_EINVAL, M_ERR, read_buf(f, good_folded, 6, 0, 0, 0, &partial_alloc, 0))         \
    X(read_empty, CGPROP_EFORMAT, M_ERR, read_buf(f, "", 0, 0, 0, 0, NULL, 0))                                   \
    X(read_empty_null, CGPROP_EFORMAT, M_ERR, read_buf(f, NULL, 0, 0, 0, 0, NULL, 0))                            \
    X(read_unknown, CGPROP_EFORMAT, M_ERR, read_buf(f, "\x7f" "ELF\x01", 5, 0, 0, 0, NULL, 0))                   \
    X(read_folded_as_callgrind, CGPROP_EFORMAT, M_ERR, read_buf(f, "\x01;\x02 x\n", 7, CGPROP_INPUT_FOLDED, 0, 0, NULL, 0)) \
    X(read_events_forced, CGPROP_EFORMAT, M_ERR, read_buf(f, "exit a 1\n", 9, CGPROP_INPUT_EVENTS, 0, 0, NULL, 0)) \
    X(read_file_null_path, CGPROP_EINVAL, M_ERR0, read_path(f, NULL, 3, 0))                                       \
    X(read_file_null_out, CGPROP_EINVAL, M_ERR, read_path(f, "/dev/null", 9, 1))                                 \
    X(read_file_empty_path, CGPROP_EINVAL, M_ERR0, read_path(f, "x", 0, 0))                                       \
    X(read_file_nul_in_path, CGPROP_EINVAL, M_ERR, read_path(f, "/tmp\0x", 6, 0))                                \
    X(read_file_missing, CGPROP_ENOTFOUND, M_ERR, read_path(f, "/nonexistent/cgprop-misuse", 26, 0))             \
    X(read_file_directory, CGPROP_ENOTFOUND, M_ERR, read_path(f, "/", 1, 0))                                     \
    X(read_file_empty_file, CGPROP_EFORMAT, M_ERR, read_path(f, "/dev/null", 9, 0))                              \
    X(display_name_null, CGPROP_OK, M_NONE, WANT(cgprop_node_display_name(NULL, 0, &f->sz) == NULL))             \
    X(display_name_range, CGPROP_OK, M_NONE, WANT(cgprop_node_display_name(f->g, 4, NULL) == NULL))              \
    /* writers */                                                                                               \
    X(write_null_g, CGPROP_EINVAL, M_NONE, cgprop_write(NULL, CGPROP_FORMAT_TEXT, NULL, sink_ok, NULL))          \
    X(write_null_fn, CGPROP_EINVAL, M_G, cgprop_write(f->g, CGPROP_FORMAT_TEXT, NULL, NULL, NULL))               \
    X(write_format_0, CGPROP_EINVAL, M_G, cgprop_write(f->g, 0, NULL, sink_ok, NULL))                            \
    X(write_format_6, CGPROP_EINVAL, M_G, cgprop_write(f->g, 6, NULL, sink_ok, NULL))                            \
    X(write_flame_no_contexts, CGPROP_ESTATE, M_G, cgprop_write(f->g, CGPROP_FORMAT_FLAMEGRAPH, NULL, sink_ok, NULL)) \
    X(write_wrong_k, CGPROP_EINVAL, M_G, write_opts(f->g, CGPROP_FORMAT_TEXT, 2, 0.5, 0.1, sink_ok))             \
    X(write_negative_thres, CGPROP_EINVAL, M_G, write_opts(f->g, CGPROP_FORMAT_DOT, 0, -1, 0.1, sink_ok))        \
    X(write_nan_thres, CGPROP_EINVAL, M_G, write_opts(f->g, CGPROP_FORMAT_DOT, 0, 0.5, NAN, sink_ok))            \
    X(write_thres_101, CGPROP_EINVAL, M_G, write_opts(f->g, CGPROP_FORMAT_DOT, 0, 101, 0.1, sink_ok))            \
    X(write_text_first, CGPROP_ESTATE, M_GN, cgprop_write(f->gn, CGPROP_FORMAT_TEXT, NULL, sink_ok, NULL))       \
    X(write_json_stale, CGPROP_ESTATE, M_GS, cgprop_write(f->gs, CGPROP_FORMAT_JSON, NULL, sink_ok, NULL))       \
    X(write_dot_first, CGPROP_ESTATE, M_GN, cgprop_write(f->gn, CGPROP_FORMAT_DOT, NULL, sink_ok, NULL))         \
    X(write_sink_fails, CGPROP_EWRITE, M_G, cgprop_write(f->g, CGPROP_FORMAT_JSON, NULL, sink_fail, NULL))       \
    X(write_sink_fails_cg, CGPROP_EWRITE, M_GN, cgprop_write(f->gn, CGPROP_FORMAT_CALLGRIND, NULL, sink_fail, NULL)) \
    X(write_path_null_g, CGPROP_EINVAL, M_NONE, cgprop_write_path(NULL, CGPROP_FORMAT_TEXT, NULL, "/tmp/x", 6))  \
    X(write_path_null_path, CGPROP_EINVAL, M_G, cgprop_write_path(f->g, CGPROP_FORMAT_TEXT, NULL, NULL, 6))      \
    X(write_path_empty, CGPROP_EINVAL, M_G, cgprop_write_path(f->g, CGPROP_FORMAT_TEXT, NULL, "x", 0))           \
    X(write_path_nul, CGPROP_EINVAL, M_G, cgprop_write_path(f->g, CGPROP_FORMAT_TEXT, NULL, "/tmp\0x", 6))       \
    X(write_path_unwritable, CGPROP_EWRITE, M_G,                                                                 \
      cgprop_write_path(f->g, CGPROP_FORMAT_TEXT, NULL, "/nonexistent/cgprop-misuse", 26))                       \
    X(write_path_full_device, CGPROP_EWRITE, M_G, cgprop_write_path(f->g, CGPROP_FORMAT_JSON, NULL, "/dev/full", 9)) \
    X(compare_null_g, CGPROP_EINVAL, M_NONE, cgprop_write_compare(f->g, NULL, CGPROP_FORMAT_TEXT, NULL, sink_ok, NULL)) \
    X(compare_null_base, CGPROP_EINVAL, M_G, cgprop_write_compare(NULL, f->g, CGPROP_FORMAT_TEXT, NULL, sink_ok, NULL)) \
    X(compare_null_fn, CGPROP_EINVAL, M_G, cgprop_write_compare(f->g, f->g, CGPROP_FORMAT_TEXT, NULL, NULL, NULL)) \
    X(compare_callgrind, CGPROP_EINVAL, M_G,                                                                     \
      cgprop_write_compare(f->g, f->g, CGPROP_FORMAT_CALLGRIND, NULL, sink_ok, NULL))                            \
    X(compare_base_first, CGPROP_ESTATE, M_G, cgprop_write_compare(f->gn, f->g, CGPROP_FORMAT_TEXT, NULL, sink_ok, NULL)) \
    X(compare_new_stale, CGPROP_ESTATE, M_GS, cgprop_write_compare(f->g, f->gs, CGPROP_FORMAT_DOT, NULL, sink_ok, NULL)) \
    X(compare_sink_fails, CGPROP_EWRITE, M_G, cgprop_write_compare(f->g, f->g, CGPROP_FORMAT_JSON, NULL, sink_fail, NULL)) \
    /* event traces */                                                                                          \
    X(events_null_out, CGPROP_EINVAL, M_ERR, events_buf(f, good_events, 19, 0, NULL, 1))                         \
    X(events_null_data, CGPROP_EINVAL, M_ERR, events_buf(f, NULL, 19, 0, NULL, 0))                               \
    X(events_bad_mode, CGPROP_EINVAL, M_ERR, events_buf(f, good_events, 19, 3, NULL, 0))                         \
    X(events_partial_alloc, CGPROP_EINVAL, M_ERR, events_buf(f, good_events, 19, 0, &partial_alloc, 0))          \
    X(events_exit_first, CGPROP_EFORMAT, M_ERR, events_buf(f, "exit a 1\n", 9, 0, NULL, 0))                      \
    X(events_mismatch, CGPROP_EFORMAT, M_ERR, events_buf(f, "enter a 1\nexit b 2\n", 19, 0, NULL, 0))            \
    X(events_backwards, CGPROP_EFORMAT, M_ERR, events_buf(f, "enter a 5\nexit a 2\n", 19, 0, NULL, 0))           \
    X(events_empty, CGPROP_EFORMAT, M_ERR, events_buf(f, "", 0, 0, NULL, 0))                                     \
    X(events_file_null_path, CGPROP_EINVAL, M_ERR0, events_path(f, NULL, 4))                                      \
    X(events_file_empty_path, CGPROP_EINVAL, M_ERR0, events_path(f, "x", 0))                                      \
    X(events_file_missing, CGPROP_ENOTFOUND, M_ERR, events_path(f, "/nonexistent/cgprop-misuse", 26))         \
    X(events_file_directory, CGPROP_ENOTFOUND, M_ERR, events_path(f, "/", 1))

#define DEFINE_CASE(name, code, at, expr)                                                                      \
    static int case_##name(fx *f)                                                                              \
    {                                                                                                          \
        (void)f;                                                                                               \
        return (expr);                                                                                         \
    }
MISUSE_TABLE(DEFINE_CASE)
#undef DEFINE_CASE

typedef struct misuse_case {
    const char *name;
    int (*run)(fx *);
    int expect;
    int msg_at;
} misuse_case;

#define ROW(name, code, at, expr) {#name, case_##name, code, at},
static const misuse_case cases[] = {MISUSE_TABLE(ROW)};
#undef ROW
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

START_TEST(test_misuse_row)
{
    const misuse_case *c = &cases[_i];
    fx fxs;
    fx *f = &fxs;
    setup(f);
    cgprop_graph *graphs[6] = {f->g, f->gn, f->gs, f->gr, f->g1, f->gx};
    uint64_t before[6];
    for (int i = 0; i < 6; i++) before[i] = tstore_digest(graphs[i], 1);

    int rc = c->run(f);
    ck_assert_msg(rc == c->expect, "%s: returned %d (%s), documented %d (%s)", c->name, rc, cgprop_strerror(rc),
                  c->expect, cgprop_strerror(c->expect));

    const char *msg = NULL;
    switch (c->msg_at) {
    case M_G: msg = cgprop_graph_errmsg(f->g); break;
    case M_GN: msg = cgprop_graph_errmsg(f->gn); break;
    case M_GS: msg = cgprop_graph_errmsg(f->gs); break;
    case M_GR: msg = cgprop_graph_errmsg(f->gr); break;
    case M_GX: msg = cgprop_graph_errmsg(f->gx); break;
    case M_ERR:
    case M_ERR0:
        msg = f->err.reason;
        ck_assert_msg(f->err.code == rc, "%s: err.code %d, returned %d", c->name, f->err.code, rc);
        if (c->msg_at == M_ERR) ck_assert_msg(f->err.file[0] != '\0', "%s: err.file is empty", c->name);
        break;
    default: break;
    }
    if (c->msg_at != M_NONE) {
        ck_assert_msg(msg != NULL && msg[0] != '\0', "%s: no message", c->name);
        ck_assert_msg(strlen(msg) < 1024, "%s: message runs on", c->name);
    }

    for (int i = 0; i < 6; i++)
        ck_assert_msg(tstore_digest(graphs[i], 1) == before[i], "%s: graph %d changed", c->name, i);

    /* The analysed graph still works, with the figures it had. */
    ck_assert_int_eq(cgprop_graph_find_cycles(f->g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(f->g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(f->g), CGPROP_OK);
    double after[4];
    totals(f->g, after);
    for (int v = 0; v < 4; v++) ck_assert_msg(after[v] == f->totals_before[v], "%s: total %d moved", c->name, v);
    /* The recorder too: its open activation closes and flushes. */
    ck_assert_int_eq(cgprop_recorder_flush(f->r, (const uint64_t[]){100, 100}), CGPROP_OK);
    cgprop_recorder_figure fig;
    ck_assert_int_eq(cgprop_graph_find_node(f->gr, "a", 1, &f->u32), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_get(f->r, CGPROP_RF_C_N, 0, 0, 0, &fig, sizeof fig), CGPROP_OK);
    ck_assert_uint_eq(fig.count, 0); /* flushed */
    cgprop_split_row sr;
    ck_assert_int_eq(cgprop_graph_split(f->gr), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(f->gr, CGPROP_ITER_SPLIT, 0, 0, &sr, sizeof sr), CGPROP_OK);
    ck_assert_uint_eq(sr.C_n, 90); /* entered at 10, closed at 100 */

    teardown(f);
}
END_TEST

/* Every public function of the headers is called somewhere in this file:
 * a function added to a header without a misuse row fails here. The names
 * are read from the headers themselves. */
START_TEST(test_table_covers_api)
{
    static const char *const headers[] = {CGPROP_TEST_DATA "/../../include/cgprop.h",
                                          CGPROP_TEST_DATA "/../../include/cgprop_io.h",
                                          CGPROP_TEST_DATA "/../../include/cgprop_experimental.h"};
    /* Not __FILE__: a build may name the source relative to another directory. */
    char *self = tslurp(CGPROP_TEST_DATA "/../check_misuse.c", NULL);
    int nfun = 0;
    for (int h = 0; h < 3; h++) {
        char *text = tslurp(headers[h], NULL);
        /* "CGPROP_API <type> <name>(": the name is the identifier before '('. */
        for (char *p = strstr(text, "\nCGPROP_API "); p; p = strstr(p + 1, "\nCGPROP_API ")) {
            char *paren = strchr(p, '(');
            ck_assert_ptr_nonnull(paren);
            char *e = paren, *b;
            while (e > p && e[-1] == ' ') e--;
            b = e;
            while (b > p && (b[-1] == '_' || (b[-1] >= 'a' && b[-1] <= 'z') || (b[-1] >= '0' && b[-1] <= '9'))) b--;
            char name[128];
            size_t n = (size_t)(e - b);
            ck_assert_uint_lt(n, sizeof name);
            memcpy(name, b, n);
            name[n] = '\0';
            /* Called, not just named in a comment: "name(" somewhere. */
            char call[140];
            snprintf(call, sizeof call, "%s(", name);
            ck_assert_msg(strstr(self, call) != NULL, "no misuse row calls %s", name);
            nfun++;
        }
        free(text);
    }
    free(self);
    ck_assert_int_ge(nfun, 55);
    ck_assert_int_gt(NCASES, 150);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("misuse");
    TCase *tc = tcase_create("table");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_misuse_row, 0, NCASES);
    tcase_add_test(tc, test_table_covers_api);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
