/* Fault injection at every public entry point that allocates.
 *
 * A counting allocator refuses exactly the Nth allocation (malloc or
 * realloc) of one call under test, for N = 1, 2, ... until the call runs
 * through without reaching N. The calls swept: the readers on each format
 * (cgprop_read_buffer, cgprop_read_file, cgprop_events_read_buffer with each
 * compensation route), each analysis (first run and re-run), every iterator
 * kind, point look-ups, the recorder (new, enter, exit, unwind, flush,
 * calibrate), merge, add_stack, and every writer. At every failure point:
 *   - the call reports CGPROP_ENOMEM (a reader: that code in its
 *     cgprop_read_error too), with a message;
 *   - the graph it was given is unchanged (every figure, and the generation);
 *   - retried with memory available, it gives exactly what a run that never
 *     failed gives (graph contents, every analysis row, writer output);
 *   - once everything is freed no block is left, and no block was freed
 *     twice or came from elsewhere.
 * The number of failure points tried is printed per sweep (docs/RELIABILITY.md
 * quotes the total). */
/* getpid() under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include "ck_quiet.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgprop.h"
#include "cgprop_experimental.h"
#include "cgprop_io.h"
#include "support.h"

#define DATA CGPROP_TEST_DATA

/* ---- the allocator ---- */

typedef struct counter {
    size_t calls;   /* attempts since armed */
    size_t fail_at; /* 0: never; else refuse attempt number fail_at */
    int armed;
    size_t nfailed;
    long live;
    long bad;       /* free of NULL, of a foreign or dead block */
} counter;

static int refuse(counter *c)
{
    if (!c->armed) return 0;
    c->calls++;
    if (c->fail_at && c->calls == c->fail_at) {
        c->nfailed++;
        return 1;
    }
    return 0;
}

static void *t_malloc(void *u, size_t size)
{
    counter *c = u;
    if (refuse(c)) return NULL;
    thdr *p = malloc(sizeof(thdr) + size);
    if (!p) return NULL;
    p->h.size = size;
    p->h.magic = TMAGIC_LIVE;
    c->live++;
    return p + 1;
}

static void *t_realloc(void *u, void *ptr, size_t size)
{
    counter *c = u;
    if (!ptr) return t_malloc(u, size);
    thdr *p = (thdr *)ptr - 1;
    if (p->h.magic != TMAGIC_LIVE) {
        c->bad++;
        return NULL;
    }
    if (refuse(c)) return NULL;
    thdr *q = realloc(p, sizeof(thdr) + size);
    if (!q) return NULL;
    q->h.size = size;
    return q + 1;
}

static void t_free(void *u, void *ptr)
{
    counter *c = u;
    if (!ptr) {
        c->bad++;
        return;
    }
    thdr *p = (thdr *)ptr - 1;
    if (p->h.magic != TMAGIC_LIVE) {
        c->bad++;
        return;
    }
    p->h.magic = TMAGIC_DEAD;
    c->live--;
    free(p);
}

static void arm(counter *c, size_t n)
{
    c->armed = 1;
    c->calls = 0;
    c->fail_at = n;
    c->nfailed = 0;
}

static void disarm(counter *c) { c->armed = 0; }

/* ---- digests ---- */

/* Every row of one iterator, or the status that refused it. */
static uint64_t iter_digest(uint64_t h, cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t arg)
{
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, kind, metric, arg, &it);
    h = tmix(h, &rc, sizeof rc);
    if (rc != CGPROP_OK) return h;
    unsigned char row[128];
    size_t rs = trow_size(kind);
    memset(row, 0, sizeof row);
    while ((rc = cgprop_iter_next(it, row, rs)) == CGPROP_OK) h = tmix(h, row, rs);
    ck_assert_int_eq(rc, CGPROP_DONE);
    cgprop_iter_free(it);
    return h;
}

/* Everything a reader can see: the store and every analysis row, metric by metric. */
static uint64_t full_digest(cgprop_graph *g)
{
    uint64_t h = tstore_digest(g, 0);
    size_t K = cgprop_graph_metric_count(g), nn = cgprop_graph_node_count(g);
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t kind = CGPROP_ITER_CYCLES; kind <= CGPROP_ITER_EDGE_SPLIT; kind++)
            if (kind != CGPROP_ITER_MEMBERS) h = iter_digest(h, g, kind, k, 0);
    }
    cgprop_iter *it = NULL;
    if (cgprop_iter_new(g, CGPROP_ITER_CYCLES, 0, 0, &it) == CGPROP_OK) {
        size_t nc = cgprop_iter_count(it);
        cgprop_iter_free(it);
        for (uint32_t c = 0; c < nc; c++) h = iter_digest(h, g, CGPROP_ITER_MEMBERS, 0, c);
    }
    for (uint32_t v = 0; v < nn && v < 64; v++) {
        h = iter_digest(h, g, CGPROP_ITER_CALLERS, 0, v);
        h = iter_digest(h, g, CGPROP_ITER_CALLEES, 0, v);
    }
    return h;
}

/* ---- inputs ---- */

/* Compression, fn'N recursion classes, a cycle among plain names, two parts. */
static const char cg_text[] = "# callgrind format\n"
                              "version: 1\n"
                              "events: Ir Dr\n"
                              "ob=(1) prog\n"
                              "fl=(1) a.c\n"
                              "fn=(1) main\n"
                              "1 5 1\n"
                              "cfn=(2) f\n"
                              "calls=1 1\n"
                              "2 100 10\n"
                              "cfn=(4) p\n"
                              "calls=2 1\n"
                              "3 30 3\n"
                              "fn=(2)\n"
                              "1 10 1\n"
                              "cfn=(3) f'2\n"
                              "calls=3 1\n"
                              "2 90 9\n"
                              "fn=(3)\n"
                              "1 90 9\n"
                              "fn=(4)\n"
                              "1 10 1\n"
                              "cfn=(5) q\n"
                              "calls=2 1\n"
                              "1 20 2\n"
                              "fn=(5)\n"
                              "1 10 1\n"
                              "cfn=(4)\n"
                              "calls=1 1\n"
                              "1 10 1\n"
                              "totals: 245 25\n"
                              "thread: 2\n"
                              "events: Dr Ir\n"
                              "fn=(9) main\n"
                              "1 1 7\n";

/* A cycle among plain names and no fn'N names (--separate-recs=1): the
 * bounds leave q open, so propagate runs the absorbing walk too. */
static const char cg_plain_text[] = "events: Ir\n"
                                    "fn=main\n1 1\ncfn=p\ncalls=1 1\n1 30\n"
                                    "fn=p\n1 15\ncfn=q\ncalls=2 1\n1 20\n"
                                    "fn=q\n1 15\ncfn=p\ncalls=1 1\n1 5\n";

static const char folded_text[] = "main;A 10\nmain;A;C 10\nmain;A;B 10\nmain;A;B;A 10\nmain;A;B;A;C 10\n"
                                  "main;x;y;x;y;x 3\nmain;y;x 1\n";

static const char events_text[] = "# metrics: ns ins\n"
                                  "enter main 0 0\nenter A 1 10\nenter B 2 20\nenter A 3 30\nenter C 4 40\n"
                                  "exit C 5 50\nexit A 7 70\nexit B 8 80\nenter C 9 90\nexit C 12 120\n"
                                  "exit A 13 130\nenter D 14 140\nenter D 15 150\nenter D 16 160\nexit D 17 170\n"
                                  "exit D 18 180\nexit D 19 190\nexit main 20 200\nenter main 21 210\n";

/* ---- the sweep ---- */

typedef struct ctx ctx;
typedef struct sweep {
    const char *name;
    void (*prepare)(ctx *);       /* state before the call, memory available */
    int (*call)(ctx *);           /* the call under test */
    uint64_t (*digest)(ctx *);    /* what a successful call leaves */
    int reader;                   /* the call makes c->out and reports through c->err */
} sweep;

struct ctx {
    counter ctr;
    cgprop_allocator a;
    cgprop_graph *g, *src, *out;
    cgprop_recorder *r;
    cgprop_read_error err;
    cgprop_read_info info;
    cgprop_events_info einfo;
    const char *data;
    size_t len;
    uint32_t kind, share, fmt, mode;
    char *buf; /* writer output */
    size_t blen, bcap;
    uint32_t frames[400];
    size_t depth;
};

static long total_points;

static void ctx_init(ctx *c)
{
    memset(c, 0, sizeof *c);
    cgprop_read_error_init(&c->err);
    cgprop_read_info_init(&c->info);
    cgprop_events_info_init(&c->einfo);
    c->a.malloc_fn = t_malloc;
    c->a.realloc_fn = t_realloc;
    c->a.free_fn = t_free;
    c->a.user = &c->ctr;
}

static void ctx_free(ctx *c)
{
    cgprop_recorder_free(c->r);
    cgprop_graph_free(c->g);
    cgprop_graph_free(c->src);
    cgprop_graph_free(c->out);
    free(c->buf);
    c->r = NULL;
    c->g = c->src = c->out = NULL;
    c->buf = NULL;
    c->blen = c->bcap = 0;
    ck_assert_int_eq(c->ctr.live, 0);
    ck_assert_int_eq(c->ctr.bad, 0);
}

static void run_sweep(const sweep *s, ctx *proto)
{
    ctx c;
    /* The reference: a run that never fails. */
    c = *proto;
    disarm(&c.ctr);
    c.a.user = &c.ctr;
    s->prepare(&c);
    int rc = s->call(&c);
    ck_assert_msg(rc == CGPROP_OK, "%s: reference run failed: %d %s", s->name, rc,
                  s->reader ? c.err.reason : cgprop_graph_errmsg(c.g));
    uint64_t ref = s->digest(&c);
    ctx_free(&c);

    long points = 0;
    for (size_t n = 1;; n++) {
        c = *proto;
        c.a.user = &c.ctr;
        s->prepare(&c);
        uint64_t before = c.g ? tstore_digest(c.g, 1) : 0;
        arm(&c.ctr, n);
        rc = s->call(&c);
        disarm(&c.ctr);
        if (c.ctr.nfailed == 0) {
            /* Ran through without reaching the Nth allocation: done. */
            ck_assert_msg(rc == CGPROP_OK, "%s: %d without a failure", s->name, rc);
            ck_assert_msg(s->digest(&c) == ref, "%s: differs from the reference", s->name);
            ctx_free(&c);
            break;
        }
        points++;
        ck_assert_msg(rc == CGPROP_ENOMEM, "%s: allocation %zu refused, call returned %d (%s)", s->name, n, rc,
                      cgprop_strerror(rc));
        if (s->reader) {
            ck_assert_ptr_null(c.out);
            ck_assert_int_eq(c.err.code, CGPROP_ENOMEM);
            ck_assert_msg(c.err.reason[0] != '\0', "%s: no reason", s->name);
        }
        if (c.g) {
            const char *m = cgprop_graph_errmsg(c.g);
            ck_assert_msg(m[0] != '\0', "%s at %zu: no message", s->name, n);
            ck_assert_msg(tstore_digest(c.g, 1) == before, "%s: allocation %zu refused, graph changed", s->name, n);
        }
        /* Retried with memory: exactly the reference. */
        rc = s->call(&c);
        ck_assert_msg(rc == CGPROP_OK, "%s: retry after failure %zu gave %d", s->name, n, rc);
        ck_assert_msg(s->digest(&c) == ref, "%s: retry after failure %zu differs from the reference", s->name, n);
        ctx_free(&c);
    }
    ck_assert_msg(points > 0, "%s: the call allocates nothing; the sweep tested nothing", s->name);
    total_points += points;
    printf("faults: %-28s %5ld failure points\n", s->name, points);
}

/* ---- readers ---- */

static void prep_none(ctx *c) { (void)c; }

static int call_read(ctx *c)
{
    cgprop_graph_free(c->out);
    c->out = NULL;
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = c->fmt;
    return cgprop_read_buffer(c->data, c->len, "faults", 6, &o, &c->a, &c->out, &c->info, &c->err);
}

static uint64_t dig_out(ctx *c)
{
    /* The read graph, analysed (memory available), and what the reader found. */
    ck_assert_int_eq(cgprop_graph_find_cycles(c->out, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(c->out, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(c->out), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_split(c->out), CGPROP_OK);
    return tmix(full_digest(c->out), &c->info, sizeof c->info);
}

static int call_read_file(ctx *c)
{
    cgprop_graph_free(c->out);
    c->out = NULL;
    return cgprop_read_file(c->data, c->len, NULL, &c->a, &c->out, &c->info, &c->err);
}

static int call_events(ctx *c)
{
    cgprop_graph_free(c->out);
    c->out = NULL;
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = c->mode;
    o_di[0] = 1;
    o_de[0] = 1;
    if (c->mode == CGPROP_COMP_ONLINE) o.flags = CGPROP_REC_CLAMP;
    return cgprop_events_read_buffer(c->data, c->len, "faults", 6, &o, &c->a, &c->out, &c->einfo, &c->err);
}

static uint64_t dig_events(ctx *c)
{
    uint64_t h = dig_out(c);
    return tmix(h, &c->einfo, sizeof c->einfo);
}

START_TEST(test_readers)
{
    ctx p;
    ctx_init(&p);
    sweep s = {"read callgrind", prep_none, call_read, dig_out, 1};
    p.data = cg_text;
    p.len = sizeof cg_text - 1;
    run_sweep(&s, &p);

    p.fmt = CGPROP_INPUT_AUTO;
    size_t len;
    char *recur = tslurp(DATA "/recur/recur.combined-parts.main.callgrind.out", &len);
    p.data = recur;
    p.len = len;
    s.name = "read callgrind (recur)";
    run_sweep(&s, &p);
    free(recur);

    /* Xdebug's call tree: the tree, the rewritten copy, the read (the
     * committed profile is gzipped, which a build without zlib refuses). */
    static const char xdebug_text[] =
        "version: 1\ncreator: xdebug 3.2.0 (PHP 8.2.36)\npositions: line\nevents: Time_(10ns) Memory_(bytes)\n"
        "fl=(1) /t.php\nfn=(1) a\n2 5 0\nfl=(1)\nfn=(2) b\n3 7 0\ncfl=(1)\ncfn=(1)\ncalls=1 0 0\n3 5 0\n"
        "fl=(1)\nfn=(1)\n2 10 0\ncfl=(1)\ncfn=(2)\ncalls=1 0 0\n2 12 0\n"
        "fl=(1)\nfn=(3) {main}\n1 1 0\ncfl=(1)\ncfn=(1)\ncalls=1 0 0\n9 22 0\n";
    p.data = xdebug_text;
    p.len = sizeof xdebug_text - 1;
    s.name = "read callgrind (Xdebug's call tree)";
    run_sweep(&s, &p);

    p.data = folded_text;
    p.len = sizeof folded_text - 1;
    s.name = "read folded";
    run_sweep(&s, &p);

    p.data = events_text;
    p.len = sizeof events_text - 1;
    s.name = "read events (generic)";
    run_sweep(&s, &p);

    static const char path[] = DATA "/gprof2dot/abc2.callgrind";
    p.data = path;
    p.len = sizeof path - 1;
    s.name = "read_file callgrind";
    s.call = call_read_file;
    run_sweep(&s, &p);
}
END_TEST

START_TEST(test_events_reader)
{
    static const char *const names[3] = {"events_read (off)", "events_read (online)", "events_read (post)"};
    for (uint32_t mode = 0; mode < 3; mode++) {
        ctx p;
        ctx_init(&p);
        p.data = events_text;
        p.len = sizeof events_text - 1;
        p.mode = mode;
        sweep s = {names[mode], prep_none, call_events, dig_events, 1};
        run_sweep(&s, &p);
    }
}
END_TEST

/* ---- analyses, iterators, look-ups ---- */

static void read_into(ctx *c, cgprop_graph **g, const char *text, size_t len)
{
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer(text, len, "faults", 6, NULL, &c->a, g, NULL, &err), CGPROP_OK);
}

/* prepare: read the input; run the analyses before c->kind; with rerun
 * (kind | 0x100) run c->kind itself once too. */
enum { A_CYCLES = 1, A_COLLAPSE, A_PROPAGATE, A_SPLIT, A_ALL };

static int run_analysis(ctx *c, uint32_t which)
{
    switch (which) {
    case A_CYCLES: return cgprop_graph_find_cycles(c->g, NULL);
    case A_COLLAPSE: return cgprop_graph_collapse(c->g, c->share);
    case A_PROPAGATE: return cgprop_graph_propagate(c->g);
    default: return cgprop_graph_split(c->g);
    }
}

static void prep_analysis(ctx *c)
{
    read_into(c, &c->g, c->data, c->len);
    uint32_t which = c->kind & 0xff;
    uint32_t upto = which == A_SPLIT ? 0 : which - 1;
    if (which == A_ALL) upto = A_SPLIT;
    for (uint32_t a = A_CYCLES; a <= upto; a++) ck_assert_int_eq(run_analysis(c, a), CGPROP_OK);
    if (c->kind & 0x100) ck_assert_int_eq(run_analysis(c, which), CGPROP_OK);
}

static int call_analysis(ctx *c) { return run_analysis(c, c->kind & 0xff); }

static uint64_t dig_g(ctx *c) { return full_digest(c->g); }

START_TEST(test_analyses)
{
    static const char *const names[2][5] = {
        {"", "find_cycles", "collapse", "propagate", "split"},
        {"", "find_cycles (re-run)", "collapse (re-run)", "propagate (re-run)", "split (re-run)"}};
    const char *inputs[3] = {cg_text, folded_text, cg_plain_text};
    size_t lens[3] = {sizeof cg_text - 1, sizeof folded_text - 1, sizeof cg_plain_text - 1};
    for (int in = 0; in < 3; in++)
        for (int rerun = 0; rerun < 2; rerun++)
            for (uint32_t a = A_CYCLES; a <= A_SPLIT; a++) {
                ctx p;
                ctx_init(&p);
                p.data = inputs[in];
                p.len = lens[in];
                p.kind = a | (rerun ? 0x100u : 0u);
                p.share = in == 1 ? CGPROP_SHARE_COUNT : CGPROP_SHARE_COST;
                sweep s = {names[rerun][a], prep_analysis, call_analysis, dig_g, 0};
                run_sweep(&s, &p);
            }
}
END_TEST

/* Each iterator kind, made and read to the end; and each point look-up. */
static int call_iter(ctx *c)
{
    uint32_t kind = c->kind >> 16, arg = 0;
    if (kind == CGPROP_ITER_CALLERS || kind == CGPROP_ITER_CALLEES) arg = 1;
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(c->g, kind, 1, arg, &it);
    if (rc) return rc;
    unsigned char rows[4 * 128];
    size_t rs = trow_size(kind), n;
    uint64_t h = TMIX0;
    /* Half through next, half through copy_rows. */
    if ((rc = cgprop_iter_next(it, rows, rs)) == CGPROP_OK) h = tmix(h, rows, rs);
    while (rc == CGPROP_OK && (rc = cgprop_iter_copy_rows(it, rows, rs, 3, &n)) == CGPROP_OK) h = tmix(h, rows, n * rs);
    cgprop_iter_free(it);
    c->blen = (size_t)h; /* kept for the digest */
    return rc == CGPROP_DONE ? CGPROP_OK : rc;
}

static uint64_t dig_iter(ctx *c) { return tmix(full_digest(c->g), &c->blen, sizeof c->blen); }

static int call_get_row(ctx *c)
{
    uint32_t kind = c->kind >> 16;
    unsigned char row[128];
    uint64_t h = TMIX0;
    uint32_t n = kind == CGPROP_ITER_EDGES || kind >= CGPROP_ITER_EDGE_TOTALS ? (uint32_t)cgprop_graph_edge_count(c->g)
                                                                              : (uint32_t)cgprop_graph_node_count(c->g);
    if (kind == CGPROP_ITER_EDGE_SPLIT) n = (uint32_t)cgprop_graph_edge_count(c->g);
    if (kind == CGPROP_ITER_SPLIT || kind == CGPROP_ITER_TOTALS) n = (uint32_t)cgprop_graph_node_count(c->g);
    if (kind == CGPROP_ITER_CYCLES) n = 1;
    for (uint32_t id = 0; id < n; id++) {
        int rc = cgprop_graph_get_row(c->g, kind, 0, id, row, trow_size(kind));
        if (rc) return rc;
        h = tmix(h, row, trow_size(kind));
    }
    uint32_t cyc;
    int rc = cgprop_graph_node_cycle(c->g, 0, &cyc);
    c->blen = (size_t)tmix(h, &cyc, sizeof cyc);
    return rc;
}

START_TEST(test_iterators)
{
    static const char *const names[11] = {"",
                                           "iter NODES",
                                           "iter EDGES",
                                           "iter CALLERS",
                                           "iter CALLEES",
                                           "iter CYCLES",
                                           "iter MEMBERS",
                                           "iter TOTALS",
                                           "iter EDGE_TOTALS",
                                           "iter SPLIT",
                                           "iter EDGE_SPLIT"};
    for (uint32_t kind = CGPROP_ITER_NODES; kind <= CGPROP_ITER_EDGE_SPLIT; kind++) {
        ctx p;
        ctx_init(&p);
        p.data = cg_text;
        p.len = sizeof cg_text - 1;
        p.kind = A_ALL | (kind << 16);
        p.share = CGPROP_SHARE_AUTO;
        sweep s = {names[kind], prep_analysis, call_iter, dig_iter, 0};
        run_sweep(&s, &p);
    }
}
END_TEST

START_TEST(test_point_lookups)
{
    /* Look-ups need no memory: a refused allocation must never be reached.
     * (A sweep that reaches none fails in run_sweep; here the call runs
     * once with every allocation refused instead.) */
    for (uint32_t kind = CGPROP_ITER_NODES; kind <= CGPROP_ITER_EDGE_SPLIT; kind++) {
        if (kind == CGPROP_ITER_CALLERS || kind == CGPROP_ITER_CALLEES || kind == CGPROP_ITER_MEMBERS) continue;
        ctx c;
        ctx_init(&c);
        c.data = cg_text;
        c.len = sizeof cg_text - 1;
        c.kind = A_ALL | (kind << 16);
        c.share = CGPROP_SHARE_AUTO;
        prep_analysis(&c);
        arm(&c.ctr, 1);
        int rc = call_get_row(&c);
        size_t tried = c.ctr.calls;
        disarm(&c.ctr);
        ck_assert_msg(rc == CGPROP_OK || rc == CGPROP_ENOMEM, "get_row kind %u: %d", kind, rc);
        if (rc == CGPROP_ENOMEM) {
            /* It does allocate: then the retry must give the right rows. */
            ck_assert_uint_gt(tried, 0);
            ck_assert_int_eq(call_get_row(&c), CGPROP_OK);
        }
        ctx_free(&c);
    }
}
END_TEST

/* ---- writers ---- */

static int sink(void *u, const char *d, size_t n)
{
    ctx *c = u;
    if (c->blen + n > c->bcap) {
        c->bcap = (c->blen + n) * 2;
        c->buf = realloc(c->buf, c->bcap);
        ck_assert_ptr_nonnull(c->buf);
    }
    memcpy(c->buf + c->blen, d, n);
    c->blen += n;
    return 0;
}

static int call_write(ctx *c)
{
    c->blen = 0;
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = c->mode;
    o.metric = (uint32_t)cgprop_graph_metric_count(c->g) - 1;
    return cgprop_write(c->g, c->fmt, &o, sink, c);
}

static uint64_t dig_write(ctx *c) { return tmix(full_digest(c->g), c->buf, c->blen); }

static char tmp_path[64];

static int call_write_path(ctx *c)
{
    return cgprop_write_path(c->g, CGPROP_FORMAT_JSON, NULL, tmp_path, strlen(tmp_path));
}

static uint64_t dig_write_path(ctx *c)
{
    size_t len;
    char *b = tslurp(tmp_path, &len);
    uint64_t h = tmix(full_digest(c->g), b, len);
    free(b);
    return h;
}

START_TEST(test_writers)
{
    static const char *const names[5] = {"", "write text", "write json", "write dot", "write callgrind"};
    const char *inputs[2] = {cg_text, folded_text};
    size_t lens[2] = {sizeof cg_text - 1, sizeof folded_text - 1};
    for (int in = 0; in < 2; in++)
        for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_CALLGRIND; fmt++) {
            ctx p;
            ctx_init(&p);
            p.data = inputs[in];
            p.len = lens[in];
            p.kind = A_ALL;
            p.fmt = fmt;
            /* The folded run writes callgrind classes and DOT unpruned. */
            p.mode = in ? CGPROP_W_NO_PRUNE : CGPROP_W_NO_COMPRESSION;
            sweep s = {names[fmt], prep_analysis, call_write, dig_write, 0};
            run_sweep(&s, &p);
        }
    snprintf(tmp_path, sizeof tmp_path, "/tmp/cgprop-faults-%ld.json", (long)getpid());
    ctx p;
    ctx_init(&p);
    p.data = cg_text;
    p.len = sizeof cg_text - 1;
    p.kind = A_ALL;
    sweep s = {"write_path json", prep_analysis, call_write_path, dig_write_path, 0};
    run_sweep(&s, &p);
    remove(tmp_path);
}
END_TEST

/* ---- merge, add_stack ---- */

static void prep_merge(ctx *c)
{
    read_into(c, &c->g, folded_text, sizeof folded_text - 1);
    /* The source shares some functions and calls, and brings enough new
     * ones that every table of the destination grows. */
    char more[8192];
    size_t n = (size_t)snprintf(more, sizeof more, "main;A;Z 5\nmain;Q;Q;Q 2\nW 1\n");
    for (int i = 0; i < 150; i++)
        n += (size_t)snprintf(more + n, sizeof more - n, "main;A;n%d;n%d 1\n", i, (i * 7) % 150);
    read_into(c, &c->src, more, n);
    ck_assert_int_eq(cgprop_graph_split(c->g), CGPROP_OK);
}

static int call_merge(ctx *c) { return cgprop_graph_merge(c->g, c->src); }

static uint64_t dig_merge(ctx *c)
{
    ck_assert_int_eq(cgprop_graph_split(c->g), CGPROP_OK);
    return tmix(full_digest(c->g), &(uint64_t){tstore_digest(c->src, 1)}, 8);
}

static void prep_stack(ctx *c)
{
    read_into(c, &c->g, folded_text, sizeof folded_text - 1);
    /* A deep stack through new and old functions, with recursion. */
    uint32_t ids[6];
    const char *keys[6] = {"main", "A", "B", "N1", "N2", "N3"};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(cgprop_graph_add_node(c->g, keys[i], strlen(keys[i]), &ids[i]), 0);
    c->depth = 300;
    c->frames[0] = ids[0];
    for (size_t i = 1; i < c->depth; i++) c->frames[i] = ids[1 + (i * 7 + i / 5) % 5];
}

static int call_stack(ctx *c)
{
    uint64_t w = 3;
    return cgprop_graph_add_stack(c->g, c->frames, c->depth, &w);
}

static uint64_t dig_stack(ctx *c)
{
    ck_assert_int_eq(cgprop_graph_split(c->g), CGPROP_OK);
    return full_digest(c->g);
}

START_TEST(test_merge_and_stack)
{
    ctx p;
    ctx_init(&p);
    sweep s = {"merge", prep_merge, call_merge, dig_merge, 0};
    run_sweep(&s, &p);
    ctx_init(&p);
    sweep t = {"add_stack (depth 300)", prep_stack, call_stack, dig_stack, 0};
    run_sweep(&t, &p);
}
END_TEST

/* ---- the recorder: a whole run, one refused allocation at a time ----
 *
 * The failing call is whichever recorder call meets the Nth allocation
 * (recorder_new, an enter that grows the stack, the function table or the
 * call table, flush). It must return ENOMEM and leave the recorder as it
 * was — the same open activations, every figure it holds (read through
 * cgprop_recorder_get), its counts — and the graph as it was: the same call
 * retried goes on as if nothing happened, and the graph at the end is the
 * never-failed run's. */

typedef struct rec_ev {
    int enter; /* 1 enter, 0 exit, 2 flush, 3 unwind */
    uint32_t node;
} rec_ev;

#define NEV 1200
static rec_ev evs[NEV];
static size_t nev;

static void make_events(void)
{
    nev = 0;
    /* A deep recursion (grows the stack), many distinct calls (grows the
     * call table), a flush half way, an unwind of open activations, and a
     * final flush with activations still open. */
    for (uint32_t i = 0; i < 200; i++) evs[nev++] = (rec_ev){1, i % 7};
    for (uint32_t i = 200; i-- > 0;) evs[nev++] = (rec_ev){0, i % 7};
    evs[nev++] = (rec_ev){2, 0};
    for (uint32_t i = 0; i < 60; i++) {
        evs[nev++] = (rec_ev){1, i % 40};
        evs[nev++] = (rec_ev){1, (i * 13 + 5) % 40};
        evs[nev++] = (rec_ev){0, (i * 13 + 5) % 40};
    }
    evs[nev++] = (rec_ev){3, 0};
    for (uint32_t i = 0; i < 30; i++) evs[nev++] = (rec_ev){1, (i * 3) % 40};
    evs[nev++] = (rec_ev){2, 0};
}

static int rec_call(cgprop_recorder *r, const rec_ev *e, uint64_t *t)
{
    uint64_t c[2] = {*t, *t * 3};
    switch (e->enter) {
    case 1: return cgprop_recorder_enter(r, e->node, c);
    case 0: return cgprop_recorder_exit(r, e->node, c);
    case 3: return cgprop_recorder_unwind(r, c);
    default: return cgprop_recorder_flush(r, c);
    }
}

/* Everything the recorder shows: depth, counts, and every figure of every
 * function and call (40 functions, 2 metrics), with the status of each get. */
static uint64_t rec_digest(cgprop_recorder *r)
{
    uint64_t h = TMIX0;
    size_t depth = cgprop_recorder_depth(r);
    uint64_t cl = cgprop_recorder_clamp_count(r), fl = cgprop_recorder_floor_count(r);
    h = tmix(h, &depth, sizeof depth);
    h = tmix(h, &cl, sizeof cl);
    h = tmix(h, &fl, sizeof fl);
    for (uint32_t which = 0; which <= CGPROP_RF_C_RD; which++)
        for (uint32_t a = 0; a < 40; a++)
            for (uint32_t b = 0; b < (which >= CGPROP_RF_C_NN ? 40u : 1u); b++)
                for (uint32_t k = 0; k < 2; k++) {
                    cgprop_recorder_figure f;
                    int rc = cgprop_recorder_get(r, which, a, b, k, &f, sizeof f);
                    h = tmix(h, &rc, sizeof rc);
                    h = tmix(h, &f, sizeof f);
                }
    return h;
}

static long flush_failed; /* failed flushes with activations open */

static uint64_t recorder_run(uint32_t mode, size_t fail_at, int *failed)
{
    ctx c;
    ctx_init(&c);
    const char *names[2] = {"ns", "ins"};
    ck_assert_int_eq(cgprop_graph_new(&c.a, names, NULL, 2, &c.g), CGPROP_OK);
    for (uint32_t i = 0; i < 40; i++) {
        char key[8];
        uint32_t id;
        int n = snprintf(key, sizeof key, "f%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(c.g, key, (size_t)n, &id), CGPROP_OK);
    }
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = mode;
    o_di[0] = 1;
    o_de[1] = 1;
    *failed = 0;
    arm(&c.ctr, fail_at);
    int rc = cgprop_recorder_new(c.g, &o, &c.r);
    if (rc) {
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        ck_assert_ptr_null(c.r);
        ck_assert(cgprop_graph_errmsg(c.g)[0] != '\0');
        *failed = 1;
        disarm(&c.ctr);
        ck_assert_int_eq(cgprop_recorder_new(c.g, &o, &c.r), CGPROP_OK);
    }
    uint64_t t = 100;
    for (size_t i = 0; i < nev; i++) {
        t += 1 + i % 3;
        /* Only flush writes into the graph; enter, exit and unwind must not
         * even move its generation. */
        uint64_t before = evs[i].enter == 2 ? tstore_digest(c.g, 1) : cgprop_graph_generation(c.g);
        size_t depth = cgprop_recorder_depth(c.r);
        /* Reading the recorder allocates nothing, so this stays out of the sweep. */
        uint64_t rbefore = evs[i].enter == 2 ? rec_digest(c.r) : 0;
        rc = rec_call(c.r, &evs[i], &t);
        if (rc == CGPROP_ENOMEM) {
            ck_assert(c.ctr.nfailed == 1 && !*failed);
            ck_assert(cgprop_graph_errmsg(c.g)[0] != '\0');
            /* The failed call changed nothing: flush closes open activations
             * only for as long as it succeeds. */
            ck_assert_uint_eq(cgprop_recorder_depth(c.r), depth);
            if (evs[i].enter == 2) {
                ck_assert_msg(rec_digest(c.r) == rbefore, "mode %u, event %zu: failed flush changed the recorder",
                              mode, i);
                flush_failed += depth > 0;
            }
            ck_assert_msg((evs[i].enter == 2 ? tstore_digest(c.g, 1) : cgprop_graph_generation(c.g)) == before,
                          "mode %u, event %zu (kind %d): failed call changed the graph", mode, i, evs[i].enter);
            *failed = 1;
            disarm(&c.ctr);
            rc = rec_call(c.r, &evs[i], &t);
        }
        ck_assert_msg(rc == CGPROP_OK, "event %zu: %d %s", i, rc, cgprop_graph_errmsg(c.g));
    }
    disarm(&c.ctr);
    ck_assert_int_eq(cgprop_graph_split(c.g), CGPROP_OK);
    uint64_t h = full_digest(c.g);
    uint64_t fl = cgprop_recorder_floor_count(c.r);
    h = tmix(h, &fl, sizeof fl);
    ctx_free(&c);
    return h;
}

START_TEST(test_recorder)
{
    make_events();
    static const char *const names[3] = {"recorder run (off)", "recorder run (online)", "recorder run (post)"};
    for (uint32_t mode = 0; mode < 3; mode++) {
        int failed;
        uint64_t ref = recorder_run(mode, 0, &failed);
        ck_assert(!failed);
        long points = 0;
        for (size_t n = 1;; n++) {
            uint64_t h = recorder_run(mode, n, &failed);
            if (!failed) break;
            points++;
            ck_assert_msg(h == ref, "%s: failure at allocation %zu changed the result", names[mode], n);
        }
        ck_assert_int_gt(points, 3);
        total_points += points;
        /* Flushes with activations open were among the failures. */
        ck_assert_int_gt(flush_failed, 0);
        printf("faults: %-28s %5ld failure points (%ld failed flushes with activations open)\n", names[mode], points,
               flush_failed);
        flush_failed = 0;
    }
}
END_TEST

/* ---- calibration: its scratch graph and recorder use the allocator given ---- */

static int cal_clock(void *user, uint64_t *out)
{
    uint64_t *t = user;
    *t += 5;
    out[0] = *t;
    out[1] = *t * 3;
    return 0;
}

START_TEST(test_calibrate)
{
    ctx c;
    ctx_init(&c);
    uint64_t t = 0;
    double ref_i[2], ref_e[2];
    ck_assert_int_eq(cgprop_recorder_calibrate(2, cal_clock, &t, 300, &c.a, ref_i, ref_e), CGPROP_OK);
    /* Each probe reads the clock once (5 per read): δ_i = 5, δ_i + δ_e = 10. */
    ck_assert(ref_i[0] == 5.0 && ref_e[0] == 5.0 && ref_i[1] == 15.0 && ref_e[1] == 15.0);
    ck_assert_int_eq(c.ctr.live, 0);
    long points = 0;
    for (size_t n = 1;; n++) {
        ctx_init(&c);
        t = 0;
        double di[2] = {-1, -1}, de[2] = {-1, -1};
        arm(&c.ctr, n);
        int rc = cgprop_recorder_calibrate(2, cal_clock, &t, 300, &c.a, di, de);
        disarm(&c.ctr);
        ck_assert_int_eq(c.ctr.live, 0);
        ck_assert_int_eq(c.ctr.bad, 0);
        if (c.ctr.nfailed == 0) {
            ck_assert_int_eq(rc, CGPROP_OK);
            ck_assert(di[0] == ref_i[0] && de[0] == ref_e[0] && di[1] == ref_i[1] && de[1] == ref_e[1]);
            break;
        }
        points++;
        ck_assert_msg(rc == CGPROP_ENOMEM, "calibrate: allocation %zu refused, returned %d", n, rc);
        ck_assert(di[0] == 0.0 && de[0] == 0.0 && di[1] == 0.0 && de[1] == 0.0);
    }
    ck_assert_int_gt(points, 3);
    total_points += points;
    printf("faults: %-28s %5ld failure points\n", "recorder_calibrate", points);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("faults");
    TCase *tc = tcase_create("sweeps");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_readers);
    tcase_add_test(tc, test_events_reader);
    tcase_add_test(tc, test_analyses);
    tcase_add_test(tc, test_iterators);
    tcase_add_test(tc, test_point_lookups);
    tcase_add_test(tc, test_writers);
    tcase_add_test(tc, test_merge_and_stack);
    tcase_add_test(tc, test_recorder);
    tcase_add_test(tc, test_calibrate);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    /* Points are counted per process; with forking each test prints its own. */
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (total_points) printf("faults: %ld failure points in all\n", total_points);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
