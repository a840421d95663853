/* Recorder, overhead compensation and graph merging (docs/RECORDER.md).
 * Expected values are worked out by hand in the
 * comments, or come from the brute-force simulator below, which builds call
 * trees with known true costs and adds known probe overheads a, b, c, d to
 * the simulated counters. */
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_experimental.h"
#include "cgprop_io.h"
#include "graph.h"

#define MAXK 2

/* Class bucket c of call e as the store holds it (white box: read through
 * the store's accessor, whatever form the bucket is kept in). */
static uint64_t cls_cost(const cgprop_graph *g, uint32_t e, uint32_t c, uint32_t k)
{
    uint64_t n;
    return cgprop__ecls_get(g, e, c, &n)[k];
}

static uint64_t cls_count(const cgprop_graph *g, uint32_t e, uint32_t c)
{
    uint64_t n;
    (void)cgprop__ecls_get(g, e, c, &n);
    return n;
}

static const char *const metric_names[] = {"ns", "Ir"};
static cgprop_graph *new_graph(uint32_t K) { return tgraph(K, metric_names); }

static uint32_t node(cgprop_graph *g, const char *key) { return tnode(g, key); }

static cgprop_recorder *new_rec(cgprop_graph *g, uint32_t mode, uint64_t di, uint64_t de, uint32_t flags)
{
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = mode;
    o.flags = flags;
    for (int k = 0; k < CGPROP_MAX_METRICS; k++) {
        o_di[k] = di;
        o_de[k] = de;
    }
    cgprop_recorder *r = NULL;
    ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_OK);
    return r;
}

static void enter1(cgprop_recorder *r, uint32_t f, uint64_t t)
{
    ck_assert_int_eq(cgprop_recorder_enter(r, f, &t), CGPROP_OK);
}

static void exit1(cgprop_recorder *r, uint32_t f, uint64_t t)
{
    ck_assert_int_eq(cgprop_recorder_exit(r, f, &t), CGPROP_OK);
}

/* Expect figure `which` of (f, callee) on metric 0. */
static void expect(cgprop_recorder *r, uint32_t which, uint32_t f, uint32_t callee, uint64_t count, uint64_t nested,
                   uint64_t children, uint64_t raw, int64_t comp)
{
    cgprop_recorder_figure x;
    ck_assert_int_eq(cgprop_recorder_get(r, which, f, callee, 0, &x, sizeof x), CGPROP_OK);
    ck_assert_uint_eq(x.count, count);
    ck_assert_uint_eq(x.nested, nested);
    ck_assert_uint_eq(x.children, children);
    ck_assert_uint_eq(x.raw, raw);
    ck_assert_int_eq(x.comp, comp);
}

/* ---- A(10) -> B#1(5) -> C(3); A -> B#2(5) ---- */

/* Probe overheads a = 0, b = 1, c = 0, d = 2 give δ_i = b + c = 1 and
 * δ_e = a + d = 2 (raw figures depend only on δ_i and δ_e, so whole a..d
 * do). Enter reads the clock after a, then b elapses; exit
 * reads after c, then d elapses. Timeline (read values):
 *   A enter 0, t=1; A self 4 -> 5; B#1 enter 5, t=6; B self 2 -> 8;
 *   C enter 8, t=9; C self 3 -> 12; C exit 12, t=14; B self 3 -> 17;
 *   B#1 exit 17, t=19; A self 3 -> 22; B#2 enter 22, t=23; self 5 -> 28;
 *   B#2 exit 28, t=30; A self 3 -> 33; A exit 33.
 * Raw inclusive: C 4, B#1 12, B#2 6, A 33. */
static void record_abc(cgprop_recorder *r, uint32_t A, uint32_t B, uint32_t C)
{
    enter1(r, A, 0);
    enter1(r, B, 5);
    enter1(r, C, 8);
    exit1(r, C, 12);
    exit1(r, B, 17);
    enter1(r, B, 22);
    exit1(r, B, 28);
    exit1(r, A, 33);
}

static void check_abc(uint32_t mode)
{
    cgprop_graph *g = new_graph(1);
    uint32_t A = node(g, "A"), B = node(g, "B"), C = node(g, "C");
    cgprop_recorder *r = new_rec(g, mode, 1, 2, 0);
    record_abc(r, A, B, C);
    /* Self: raw excl A 33-12-6 = 15 -> 15-1-2·2 = 10; B 8+6 = 14 -> 14-2·1-1·2 = 10;
     * C 4 -> 3. */
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 2, 15, 10);
    expect(r, CGPROP_RF_S_N, B, 0, 2, 0, 1, 14, 10);
    expect(r, CGPROP_RF_S_N, C, 0, 1, 0, 0, 4, 3);
    expect(r, CGPROP_RF_S_R, A, 0, 0, 0, 0, 0, 0);
    /* Inclusive: A 33 - 1 - 3·3 = 23; B 18 - 2·1 - 1·3 = 13; C 4 - 1 = 3. */
    expect(r, CGPROP_RF_C_N, A, 0, 1, 3, 0, 33, 23);
    expect(r, CGPROP_RF_C_N, B, 0, 2, 1, 0, 18, 13);
    expect(r, CGPROP_RF_C_N, C, 0, 1, 0, 0, 4, 3);
    expect(r, CGPROP_RF_C_R, B, 0, 0, 0, 0, 0, 0);
    expect(r, CGPROP_RF_SPONT, A, 0, 1, 3, 0, 33, 23);
    expect(r, CGPROP_RF_SPONT, B, 0, 0, 0, 0, 0, 0);
    expect(r, CGPROP_RF_C_NN, A, B, 2, 1, 0, 18, 13);
    expect(r, CGPROP_RF_C_NN, B, C, 1, 0, 0, 4, 3);
    expect(r, CGPROP_RF_C_NR, A, B, 0, 0, 0, 0, 0);
    expect(r, CGPROP_RF_C_NN, C, A, 0, 0, 0, 0, 0); /* never recorded */

    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    /* Flushed figures: compensated into the graph. */
    cgprop_node_row n;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, A, &n, sizeof n), CGPROP_OK);
    ck_assert_uint_eq(n.self, 10);
    ck_assert_uint_eq(n.spont_count, 1);
    ck_assert_uint_eq(n.spont_cost, 23);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, B, &n, sizeof n), CGPROP_OK);
    ck_assert_uint_eq(n.self, 10);
    ck_assert_uint_eq(n.calls_in, 2);
    uint32_t e;
    cgprop_edge_row er;
    ck_assert_int_eq(cgprop_graph_find_edge(g, A, B, &e), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, e, &er, sizeof er), CGPROP_OK);
    ck_assert_uint_eq(er.count, 2);
    ck_assert_uint_eq(er.cost, 13);
    ck_assert_uint_eq(cls_cost(g, e, cgprop__cls(0, 0), 0), 13);
    ck_assert_uint_eq(g->self_n[C], 3);
    /* Figures are cleared by the flush. */
    expect(r, CGPROP_RF_S_N, A, 0, 0, 0, 0, 0, 0);
    ck_assert_uint_eq(cgprop_recorder_floor_count(r), 0);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}

START_TEST(test_abc_online) { check_abc(CGPROP_COMP_ONLINE); }
END_TEST

START_TEST(test_abc_postmortem) { check_abc(CGPROP_COMP_POSTMORTEM); }
END_TEST

START_TEST(test_abc_off)
{
    cgprop_graph *g = new_graph(1);
    uint32_t A = node(g, "A"), B = node(g, "B"), C = node(g, "C");
    /* δ given but compensation off: figures stay raw. */
    cgprop_recorder *r = new_rec(g, CGPROP_COMP_OFF, 1, 2, 0);
    record_abc(r, A, B, C);
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 2, 15, 15);
    expect(r, CGPROP_RF_C_NN, A, B, 2, 1, 0, 18, 18);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(g->self[A], 15);
    ck_assert_uint_eq(g->spont_cost[A], 33);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}
END_TEST

/* ---- D(2) -> D(2) -> D(2), δ_i = 1, δ_e = 2 ---- */

/* Timeline with a = 0, b = 1, c = 0, d = 2: D0 enter 0, t=1; self 1 -> 2;
 * D1 enter 2, t=3; self 1 -> 4; D2 enter 4, t=5; self 2 -> 7; D2 exit 7, t=9;
 * self 1 -> 10; D1 exit 10, t=12; self 1 -> 13; D0 exit 13.
 * Raw inclusive 3, 8, 13 (inner to outer). */
static void check_ddd(uint32_t mode)
{
    cgprop_graph *g = new_graph(1);
    uint32_t D = node(g, "D");
    cgprop_recorder *r = new_rec(g, mode, 1, 2, 0);
    enter1(r, D, 0);
    enter1(r, D, 2);
    enter1(r, D, 4);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 3);
    exit1(r, D, 7);
    exit1(r, D, 10);
    exit1(r, D, 13);
    /* Per activation: comp incl outer 13-1-2·3 = 6, middle 8-1-3 = 4, inner
     * 3-1 = 2; comp excl 2 each; raw excl outer 13-8 = 5, middle 8-3 = 5, inner 3.
     * S_n: N=1, L=1: 5-1-2 = 2.  S_r: N=2, L=1: 8-2-2 = 4.
     * C_n: N_out=1, M_out=2: 13-1-6 = 6.  C_r: N_1=1, M_1=1: 8-1-3 = 4. */
    expect(r, CGPROP_RF_S_N, D, 0, 1, 0, 1, 5, 2);
    expect(r, CGPROP_RF_S_R, D, 0, 2, 0, 1, 8, 4);
    expect(r, CGPROP_RF_C_N, D, 0, 1, 2, 0, 13, 6);
    expect(r, CGPROP_RF_C_R, D, 0, 1, 1, 0, 8, 4);
    expect(r, CGPROP_RF_SPONT, D, 0, 1, 2, 0, 13, 6);
    /* Calls: level-0 D -> level-1 D (the middle, 8 -> 4); level-1 D -> level-2 D (3 -> 2). */
    expect(r, CGPROP_RF_C_NR, D, D, 1, 1, 0, 8, 4);
    expect(r, CGPROP_RF_C_RD, D, D, 1, 0, 0, 3, 2);
    expect(r, CGPROP_RF_C_NN, D, D, 0, 0, 0, 0, 0);
    expect(r, CGPROP_RF_C_ND, D, D, 0, 0, 0, 0, 0);
    expect(r, CGPROP_RF_C_RR, D, D, 0, 0, 0, 0, 0);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    /* S = S_n + S_r = 6: E_meas telescopes to 13, 13 - 3·1 - 2·2 = 6. */
    ck_assert_uint_eq(g->self[D], 6);
    ck_assert_uint_eq(g->self_n[D], 2);
    ck_assert_uint_eq(g->self_r[D], 4);
    ck_assert_uint_eq(g->spont_cost[D], 6);
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, D, D, &e), CGPROP_OK);
    ck_assert_uint_eq(g->ecount[e], 2);
    ck_assert_uint_eq(g->ecost[e], 6);
    ck_assert_uint_eq(cls_cost(g, e, cgprop__cls(0, CGPROP_LEVEL_1), 0), 4);
    ck_assert_uint_eq(cls_cost(g, e, cgprop__cls(1, CGPROP_LEVEL_DEEP), 0), 2);
    ck_assert_uint_eq(cls_count(g, e, cgprop__cls(1, CGPROP_LEVEL_DEEP)), 1);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}

START_TEST(test_ddd_online) { check_ddd(CGPROP_COMP_ONLINE); }
END_TEST

START_TEST(test_ddd_postmortem) { check_ddd(CGPROP_COMP_POSTMORTEM); }
END_TEST

/* ---- random simulated runs ---- */

#define NF 5
#define MAXEV 20000

typedef struct ev {
    int enter;
    uint32_t f;
    uint64_t c[MAXK];
} ev;

/* Truth and raw per figure, counted by the simulator itself, with the
 * second event count: L (direct children) for self figures, M (activations
 * nested anywhere below) for the others. */
typedef struct fig {
    uint64_t n, x;
    uint64_t truth[MAXK];
    uint64_t raw[MAXK];
} fig;

typedef struct figset {
    fig self[NF][2];
    fig incl[NF][2];
    fig spont[NF];
    fig call[NF][NF][6];
    fig dself[NF];         /* self cost of level >= 2 activations */
    fig dcall[NF][NF][3];  /* calls from level >= 2 callers, by callee class 0, 1, >= 2 */
} figset;

/* One activation as the simulator made it, logged at its exit event. */
typedef struct act {
    size_t exit_ev; /* index of its exit event */
    uint32_t f, level, plevel;
    int caller; /* -1: spontaneous */
    uint64_t nested, children;
    uint64_t tin[MAXK], rin[MAXK];   /* true and raw inclusive */
    uint64_t tself[MAXK], rex[MAXK]; /* true self, raw exclusive */
} act;

#define MAXACT (MAXEV / 2)

typedef struct sim {
    uint32_t K;
    uint64_t rng;
    uint64_t t[MAXK];
    uint64_t a[MAXK], b[MAXK], c[MAXK], d[MAXK];
    uint32_t onstack[NF];
    ev *evs;
    size_t nev, nenters;
    act *acts;
    size_t nact;
    figset all; /* the whole run */
} sim;

static uint64_t rnd(sim *s, uint64_t n)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return s->rng % n;
}

static void put(sim *s, int enter, uint32_t f)
{
    ck_assert_uint_lt(s->nev, MAXEV);
    ev *e = &s->evs[s->nev++];
    e->enter = enter;
    e->f = f;
    memcpy(e->c, s->t, sizeof e->c);
}

static void add_fig(fig *x, uint32_t K, uint64_t second, const uint64_t *truth, const uint64_t *raw)
{
    x->n++;
    x->x += second;
    for (uint32_t k = 0; k < K; k++) {
        x->truth[k] += truth[k];
        x->raw[k] += raw[k];
    }
}

/* What one activation adds to each figure (docs/RECORDER.md's table). */
static void account(figset *fs, uint32_t K, const act *a)
{
    add_fig(&fs->self[a->f][a->level ? 1 : 0], K, a->children, a->tself, a->rex);
    if (a->level <= 1) add_fig(&fs->incl[a->f][a->level], K, a->nested, a->tin, a->rin);
    if (a->caller < 0) add_fig(&fs->spont[a->f], K, a->nested, a->tin, a->rin);
    else
        add_fig(&fs->call[a->caller][a->f][(a->plevel ? 3 : 0) + (a->level < 2 ? a->level : 2)], K, a->nested,
                a->tin, a->rin);
    if (a->level >= 2) add_fig(&fs->dself[a->f], K, a->children, a->tself, a->rex);
    if (a->caller >= 0 && a->plevel >= 2)
        add_fig(&fs->dcall[a->caller][a->f][a->level < 2 ? a->level : 2], K, a->nested, a->tin, a->rin);
}

/* The figures of the activations closed among the first `cut` events. */
static void figs_at(const sim *s, size_t cut, figset *fs)
{
    memset(fs, 0, sizeof *fs);
    for (size_t i = 0; i < s->nact; i++)
        if (s->acts[i].exit_ev < cut) account(fs, s->K, &s->acts[i]);
}

/* One activation of f below a caller of level plevel (-1: none). Writes its
 * true and raw inclusive costs. Natively recursive: the test's own oracle. */
static void gen(sim *s, uint32_t f, int caller, int plevel, int depth, uint64_t *tin, uint64_t *rin)
{
    const uint32_t K = s->K;
    uint32_t level = s->onstack[f]++;
    uint64_t t0[MAXK], self[MAXK] = {0}, ctrue[MAXK] = {0}, craw[MAXK] = {0};
    for (uint32_t k = 0; k < K; k++) s->t[k] += s->a[k];
    memcpy(t0, s->t, sizeof t0);
    put(s, 1, f);
    const size_t enters0 = s->nenters++;
    for (uint32_t k = 0; k < K; k++) s->t[k] += s->b[k];
    uint32_t nch = depth < 7 ? (uint32_t)rnd(s, depth < 2 ? 4 : 3) : 0;
    for (uint32_t i = 0; i <= nch; i++) {
        for (uint32_t k = 0; k < K; k++) {
            uint64_t w = rnd(s, 6);
            s->t[k] += w;
            self[k] += w;
        }
        if (i == nch) break;
        /* Bias towards recursion: half the calls go to f or a low id. */
        uint32_t g = rnd(s, 2) ? (uint32_t)rnd(s, 2) * f : (uint32_t)rnd(s, NF);
        uint64_t ti[MAXK], ri[MAXK];
        gen(s, g, (int)f, (int)level, depth + 1, ti, ri);
        for (uint32_t k = 0; k < K; k++) {
            ctrue[k] += ti[k];
            craw[k] += ri[k];
        }
    }
    for (uint32_t k = 0; k < K; k++) s->t[k] += s->c[k];
    put(s, 0, f);
    for (uint32_t k = 0; k < K; k++) {
        tin[k] = self[k] + ctrue[k];
        rin[k] = s->t[k] - t0[k];
    }
    for (uint32_t k = 0; k < K; k++) s->t[k] += s->d[k];
    ck_assert_uint_lt(s->nact, MAXACT);
    act *a = &s->acts[s->nact++];
    memset(a, 0, sizeof *a);
    a->exit_ev = s->nev - 1;
    a->f = f;
    a->level = level;
    a->plevel = plevel < 0 ? 0 : (uint32_t)plevel;
    a->caller = caller;
    a->nested = s->nenters - enters0 - 1;
    a->children = nch;
    for (uint32_t k = 0; k < K; k++) {
        a->tin[k] = tin[k];
        a->rin[k] = rin[k];
        a->tself[k] = self[k];
        a->rex[k] = rin[k] - craw[k];
    }
    account(&s->all, K, a);
    s->onstack[f]--;
}

static void sim_init(sim *s, uint64_t seed, uint32_t K)
{
    memset(s, 0, sizeof *s);
    s->evs = calloc(MAXEV, sizeof *s->evs);
    s->acts = calloc(MAXACT, sizeof *s->acts);
    s->K = K;
    s->rng = seed * 2654435761u + 1;
    for (uint32_t k = 0; k < K; k++) {
        s->a[k] = rnd(s, 4);
        s->b[k] = rnd(s, 4);
        s->c[k] = rnd(s, 4);
        s->d[k] = rnd(s, 4);
        s->t[k] = rnd(s, 1000);
    }
}

static void sim_roots(sim *s, int roots)
{
    for (int i = 0; i < roots; i++) {
        uint64_t ti[MAXK], ri[MAXK];
        gen(s, (uint32_t)rnd(s, NF), -1, -1, 0, ti, ri);
    }
}

static void sim_run(sim *s, uint64_t seed, uint32_t K, int roots)
{
    sim_init(s, seed, K);
    sim_roots(s, roots);
}

static void replay(cgprop_recorder *r, const sim *s, const uint32_t *ids)
{
    for (size_t i = 0; i < s->nev; i++) {
        const ev *e = &s->evs[i];
        int rc = e->enter ? cgprop_recorder_enter(r, ids[e->f], e->c) : cgprop_recorder_exit(r, ids[e->f], e->c);
        ck_assert_int_eq(rc, CGPROP_OK);
    }
}

static cgprop_recorder *new_rec_k(cgprop_graph *g, uint32_t mode, const sim *s)
{
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = mode;
    for (uint32_t k = 0; k < s->K; k++) {
        o_di[k] = s->b[k] + s->c[k];
        o_de[k] = s->a[k] + s->d[k];
    }
    cgprop_recorder *r = NULL;
    ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_OK);
    return r;
}

/* Figure `which` equals the simulator's x: counts, raw sums, and the
 * compensated sums equal the truth (raw when compensation is off). */
static void expect_fig_mode(cgprop_recorder *r, uint32_t which, uint32_t f, uint32_t callee, uint32_t K, const fig *x,
                            int off)
{
    for (uint32_t k = 0; k < K; k++) {
        cgprop_recorder_figure y;
        ck_assert_int_eq(cgprop_recorder_get(r, which, f, callee, k, &y, sizeof y), CGPROP_OK);
        ck_assert_uint_eq(y.count, x->n);
        if (which <= CGPROP_RF_S_R) {
            ck_assert_uint_eq(y.children, x->x);
            ck_assert_uint_eq(y.nested, 0);
        } else {
            ck_assert_uint_eq(y.nested, x->x);
            ck_assert_uint_eq(y.children, 0);
        }
        ck_assert_uint_eq(y.raw, x->raw[k]);
        ck_assert_int_eq(y.comp, off ? (int64_t)x->raw[k] : (int64_t)x->truth[k]);
    }
}

static void expect_fig(cgprop_recorder *r, uint32_t which, uint32_t f, uint32_t callee, uint32_t K, const fig *x)
{
    expect_fig_mode(r, which, f, callee, K, x, 0);
}

/* Every figure of every function and call against fs. */
static void expect_all(cgprop_recorder *r, const uint32_t *ids, uint32_t K, const figset *fs, int off)
{
    for (uint32_t f = 0; f < NF; f++) {
        expect_fig_mode(r, CGPROP_RF_S_N, ids[f], 0, K, &fs->self[f][0], off);
        expect_fig_mode(r, CGPROP_RF_S_R, ids[f], 0, K, &fs->self[f][1], off);
        expect_fig_mode(r, CGPROP_RF_C_N, ids[f], 0, K, &fs->incl[f][0], off);
        expect_fig_mode(r, CGPROP_RF_C_R, ids[f], 0, K, &fs->incl[f][1], off);
        expect_fig_mode(r, CGPROP_RF_SPONT, ids[f], 0, K, &fs->spont[f], off);
        for (uint32_t h = 0; h < NF; h++)
            for (uint32_t c = 0; c < 6; c++)
                expect_fig_mode(r, CGPROP_RF_C_NN + c, ids[f], ids[h], K, &fs->call[f][h][c], off);
    }
}

static void replay_range(cgprop_recorder *r, const sim *s, const uint32_t *ids, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        const ev *e = &s->evs[i];
        int rc = e->enter ? cgprop_recorder_enter(r, ids[e->f], e->c) : cgprop_recorder_exit(r, ids[e->f], e->c);
        ck_assert_int_eq(rc, CGPROP_OK);
    }
}

/* Read mid-run, with activations open, every figure counts exactly the
 * activations closed so far: the per-function figures the recorder derives
 * from its call records are corrected for the open frames. */
START_TEST(test_mid_run)
{
    sim *s = malloc(sizeof *s);
    figset *fs = malloc(sizeof *fs);
    const uint32_t modes[] = {CGPROP_COMP_OFF, CGPROP_COMP_ONLINE, CGPROP_COMP_POSTMORTEM};
    size_t open_reads = 0;
    for (uint64_t seed = 200; seed < 230; seed++) {
        uint32_t K = 1 + (uint32_t)(seed % 2);
        sim_run(s, seed, K, 2 + (int)(seed % 3));
        for (int m = 0; m < 3; m++) {
            cgprop_graph *g = new_graph(K);
            uint32_t ids[NF];
            for (int f = NF - 1; f >= 0; f--) {
                char nm[8] = {'f', (char)('0' + f), 0};
                ids[f] = node(g, nm);
            }
            cgprop_recorder *r = new_rec_k(g, modes[m], s);
            size_t at = 0;
            for (int cut = 1; cut <= 6; cut++) {
                size_t to = s->nev * (size_t)cut / 7 + (size_t)(seed % 5);
                if (to > s->nev) to = s->nev;
                replay_range(r, s, ids, at, to);
                at = to;
                open_reads += cgprop_recorder_depth(r) > 1;
                figs_at(s, to, fs);
                expect_all(r, ids, K, fs, modes[m] == CGPROP_COMP_OFF);
            }
            replay_range(r, s, ids, at, s->nev);
            expect_all(r, ids, K, &s->all, modes[m] == CGPROP_COMP_OFF);
            cgprop_recorder_free(r);
            cgprop_graph_free(g);
        }
        free(s->evs);
        free(s->acts);
    }
    /* Most reads had activations open (often nested ones). */
    ck_assert_uint_gt(open_reads, 300);
    free(fs);
    free(s);
}
END_TEST

START_TEST(test_random_runs)
{
    sim *s = malloc(sizeof *s);
    const uint32_t modes[] = {CGPROP_COMP_ONLINE, CGPROP_COMP_POSTMORTEM};
    uint64_t total_events = 0, deep = 0, deep_callers = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        uint32_t K = 1 + (uint32_t)(seed % 2);
        sim_run(s, seed, K, 1 + (int)(seed % 4));
        total_events += s->nev;
        for (int m = 0; m < 2; m++) {
            cgprop_graph *g = new_graph(K);
            uint32_t ids[NF];
            /* Ids in reverse order, so function ids and simulator indices differ. */
            for (int f = NF - 1; f >= 0; f--) {
                char nm[8] = {'f', (char)('0' + f), 0};
                ids[f] = node(g, nm);
            }
            cgprop_recorder *r = new_rec_k(g, modes[m], s);
            replay(r, s, ids);
            ck_assert_uint_eq(cgprop_recorder_depth(r), 0);
            for (uint32_t f = 0; f < NF; f++) {
                expect_fig(r, CGPROP_RF_S_N, ids[f], 0, K, &s->all.self[f][0]);
                expect_fig(r, CGPROP_RF_S_R, ids[f], 0, K, &s->all.self[f][1]);
                expect_fig(r, CGPROP_RF_C_N, ids[f], 0, K, &s->all.incl[f][0]);
                expect_fig(r, CGPROP_RF_C_R, ids[f], 0, K, &s->all.incl[f][1]);
                expect_fig(r, CGPROP_RF_SPONT, ids[f], 0, K, &s->all.spont[f]);
                for (uint32_t h = 0; h < NF; h++)
                    for (uint32_t c = 0; c < 6; c++) {
                        expect_fig(r, CGPROP_RF_C_NN + c, ids[f], ids[h], K, &s->all.call[f][h][c]);
                        if (c % 3 == 2) deep += s->all.call[f][h][c].n;
                    }
            }
            ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
            ck_assert_uint_eq(cgprop_recorder_floor_count(r), 0);
            /* The graph holds the truth. */
            for (uint32_t f = 0; f < NF; f++) {
                for (uint32_t k = 0; k < K; k++) {
                    ck_assert_uint_eq(g->self_n[ids[f] * K + k], s->all.self[f][0].truth[k]);
                    ck_assert_uint_eq(g->self_r[ids[f] * K + k], s->all.self[f][1].truth[k]);
                    ck_assert_uint_eq(g->spont_cost[ids[f] * K + k], s->all.spont[f].truth[k]);
                }
                ck_assert_uint_eq(g->spont_cnt[ids[f]], s->all.spont[f].n);
                for (uint32_t h = 0; h < NF; h++) {
                    uint32_t e = cgprop__edge_lookup(g, ids[f], ids[h]);
                    uint64_t cnt = 0;
                    for (uint32_t c = 0; c < 6; c++) cnt += s->all.call[f][h][c].n;
                    if (!cnt) {
                        ck_assert_uint_eq(e, UINT32_MAX);
                        continue;
                    }
                    ck_assert_uint_eq(g->ecount[e], cnt);
                    for (uint32_t c = 0; c < 6; c++) {
                        uint32_t cls = cgprop__cls(c / 3, c % 3);
                        ck_assert_uint_eq(cls_count(g, e, cls), s->all.call[f][h][c].n);
                        for (uint32_t k = 0; k < K; k++)
                            ck_assert_uint_eq(cls_cost(g, e, cls, k), s->all.call[f][h][c].truth[k]);
                    }
                    /* What level >= 2 callers spent in it, by callee class
                     * (the fourth, lumped, is never written). */
                    const uint64_t *d = cgprop__dcall_row(g, e);
                    for (uint32_t l = 0; l < 4; l++) {
                        const fig *x = l < 3 ? &s->all.dcall[f][h][l] : NULL;
                        ck_assert_uint_eq(d ? d[l * (K + 1)] : 0, x ? x->n : 0);
                        for (uint32_t k = 0; k < K; k++)
                            ck_assert_uint_eq(d ? d[l * (K + 1) + 1 + k] : 0, x ? x->truth[k] : 0);
                        deep_callers += x ? x->n : 0;
                    }
                }
                /* The self cost of its level >= 2 activations. */
                const uint64_t *sd = cgprop__dself_row(g, ids[f]);
                for (uint32_t k = 0; k < K; k++)
                    ck_assert_uint_eq(sd ? sd[k] : 0, s->all.dself[f].truth[k]);
            }
            cgprop_recorder_free(r);
            cgprop_graph_free(g);
        }
        free(s->evs);
        free(s->acts);
    }
    /* The runs exercised what they claim to: many events, calls into level >= 2. */
    ck_assert_uint_gt(total_events, 2000);
    ck_assert_uint_gt(deep, 10);
    ck_assert_uint_gt(deep_callers, 10);
    free(s);
}
END_TEST

/* ---- level >= 2 parts: a trace against the same stacks ---- */

/* g as a callgrind profile (classes from its split). */
static tbuf callgrind_text(cgprop_graph *g)
{
    tbuf b = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b), CGPROP_OK);
    return b;
}

static uint32_t lvclass(uint32_t level) { return level < 2 ? level : 2u; }

/* A trace with compensation off and the same run as stacks: each stretch
 * between two events is a stack (the open activations) of that weight,
 * and each call's count per class comes from the trace (stacks carry none),
 * the calls made in the order the trace first enters them, which is the
 * order a flush makes them in. Both graphs must hold the same level >= 2
 * parts, and the same callgrind profile to the byte. */
START_TEST(test_deep_like_stacks)
{
    sim *s = malloc(sizeof *s);
    uint64_t deep_self_seen = 0, deep_call_seen = 0;
    int fn3 = 0;
    for (uint64_t seed = 300; seed < 340; seed++) {
        const uint32_t K = 1 + (uint32_t)(seed % 2);
        sim_run(s, seed, K, 2 + (int)(seed % 3));
        cgprop_graph *gr = new_graph(K), *gs = new_graph(K);
        uint32_t ids[NF];
        for (int f = NF - 1; f >= 0; f--) {
            char nm[8] = {'f', (char)('0' + f), 0};
            ids[f] = node(gr, nm);
            ck_assert_uint_eq(node(gs, nm), ids[f]);
        }
        cgprop_recorder *r = new_rec(gr, CGPROP_COMP_OFF, 0, 0, 0);
        replay(r, s, ids);
        ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
        cgprop_recorder_free(r);

        /* Counts per call and class (caller 0, 1, >= 2 x callee 0, 1, >= 2),
         * and the order the trace first enters each call in. */
        static uint64_t cnt[NF][NF][3][3];
        uint32_t order[NF * NF][2], norder = 0;
        memset(cnt, 0, sizeof cnt);
        uint32_t st[64], lv[64], on[NF] = {0};
        size_t d = 0;
        for (size_t i = 0; i < s->nev; i++) {
            const ev *e = &s->evs[i];
            if (!e->enter) {
                on[st[--d]]--;
                continue;
            }
            if (d) {
                uint64_t *c = cnt[st[d - 1]][e->f][lvclass(lv[d - 1])];
                bool seen = false;
                for (uint32_t pc = 0; pc < 3; pc++)
                    for (uint32_t l = 0; l < 3; l++) seen = seen || cnt[st[d - 1]][e->f][pc][l];
                if (!seen) {
                    order[norder][0] = st[d - 1];
                    order[norder++][1] = e->f;
                }
                c[lvclass(on[e->f])]++;
            }
            ck_assert_uint_lt(d, 64);
            st[d] = e->f;
            lv[d++] = on[e->f]++;
        }
        static const uint64_t zeros[MAXK] = {0};
        static const uint32_t caller_level[3] = {CGPROP_LEVEL_0, CGPROP_LEVEL_1, CGPROP_LEVEL_DEEP};
        for (uint32_t o = 0; o < norder; o++)
            for (uint32_t pc = 0; pc < 3; pc++)
                for (uint32_t l = 0; l < 3; l++) {
                    uint64_t n = cnt[order[o][0]][order[o][1]][pc][l];
                    if (n)
                        ck_assert_int_eq(cgprop_graph_add_edge_class(gs, ids[order[o][0]], ids[order[o][1]],
                                                                     caller_level[pc], l, n, zeros, NULL),
                                         CGPROP_OK);
                }
        /* The stacks: the stretch before each event, under the frames open. */
        uint32_t frames[64];
        d = 0;
        for (size_t i = 0; i < s->nev; i++) {
            const ev *e = &s->evs[i];
            if (d) {
                uint64_t w[MAXK] = {0};
                bool any = false;
                for (uint32_t k = 0; k < K; k++) {
                    w[k] = e->c[k] - s->evs[i - 1].c[k];
                    any = any || w[k];
                }
                if (any) ck_assert_int_eq(cgprop_graph_add_stack(gs, frames, d, w), CGPROP_OK);
            }
            if (e->enter) frames[d++] = ids[e->f];
            else d--;
        }

        for (uint32_t f = 0; f < NF; f++) {
            const uint64_t *a = cgprop__dself_row(gr, ids[f]), *b = cgprop__dself_row(gs, ids[f]);
            for (uint32_t k = 0; k < K; k++) {
                ck_assert_uint_eq(a ? a[k] : 0, b ? b[k] : 0);
                deep_self_seen += a && a[k];
            }
            for (uint32_t h = 0; h < NF; h++) {
                uint32_t er = cgprop__edge_lookup(gr, ids[f], ids[h]), es = cgprop__edge_lookup(gs, ids[f], ids[h]);
                ck_assert_uint_eq(er, es);
                if (er == UINT32_MAX) continue;
                const uint64_t *x = cgprop__dcall_row(gr, er), *y = cgprop__dcall_row(gs, es);
                for (uint32_t i = 0; i < 4 * (K + 1); i++) {
                    ck_assert_uint_eq(x ? x[i] : 0, y ? y[i] : 0);
                    deep_call_seen += x && x[i];
                }
            }
        }
        tbuf tr = callgrind_text(gr), ts = callgrind_text(gs);
        ck_assert_uint_eq(tr.n, ts.n);
        ck_assert_int_eq(memcmp(tr.p, ts.p, tr.n), 0);
        fn3 += strstr(tr.p, "'3\n") != NULL;
        free(tr.p);
        free(ts.p);
        cgprop_graph_free(gr);
        cgprop_graph_free(gs);
        free(s->evs);
        free(s->acts);
    }
    /* The runs reached level 2 and deeper, and the profiles show it. */
    ck_assert_uint_gt(deep_self_seen, 20);
    ck_assert_uint_gt(deep_call_seen, 20);
    ck_assert_int_gt(fn3, 20);
    free(s);
}
END_TEST

/* f at levels 0 to 3, the deepest calling g:
 *   t 0 enter f (level 0), 1 f (1), 3 f (2), 6 f (3), 10 enter g, 15 exit g,
 *   21 exit f (3), 28 exit f (2), 36 exit f (1), 45 exit f (0).
 * Raw self by hand: level 3 (10-6) + (21-15) = 10, level 2 (6-3) + (28-21)
 * = 10, level 1 2 + 8 = 10, level 0 1 + 9 = 10; g 5. Level >= 2 callers
 * called f once (level 2 -> level 3, inclusive 21-6 = 15) and g once (5). */
static const struct {
    int enter;
    int g;
    uint64_t t;
} deep_run[] = {{1, 0, 0},  {1, 0, 1},  {1, 0, 3},  {1, 0, 6},  {1, 1, 10},
                {0, 1, 15}, {0, 0, 21}, {0, 0, 28}, {0, 0, 36}, {0, 0, 45}};

/* Call a -> b's level >= 2 callers' part of callee class l: count and cost. */
static void expect_dcall(cgprop_graph *g, uint32_t a, uint32_t b, uint32_t l, uint64_t count, uint64_t cost)
{
    uint32_t e = cgprop__edge_lookup(g, a, b);
    ck_assert_uint_ne(e, UINT32_MAX);
    const uint64_t *d = cgprop__dcall_row(g, e);
    ck_assert_uint_eq(d ? d[l * 2] : 0, count);
    ck_assert_uint_eq(d ? d[l * 2 + 1] : 0, cost);
}

/* Compensated by hand (δ_i = 1, δ_e = 1, so δ_i + δ_e = 2): inclusive =
 * raw - 1 - 2·(activations nested below): g 5 - 1 = 4, f level 3 15 - 1 -
 * 2 = 12, level 2 25 - 1 - 4 = 20, level 1 35 - 1 - 6 = 28, level 0 45 - 1
 * - 8 = 36; exclusive: g 4, each f 8. So S_r 24 of which level >= 2 16;
 * f -> f from level >= 1 callers 20 + 12 (2 calls), from level >= 2 12 (1);
 * f -> g 4, all from level >= 2. Both routes; compensation off gives the
 * raw figures above. */
START_TEST(test_deep_by_hand)
{
    /* The fourth: on the fly with clamping, where nothing is clamped. */
    const uint32_t modes[] = {CGPROP_COMP_OFF, CGPROP_COMP_ONLINE, CGPROP_COMP_POSTMORTEM, CGPROP_COMP_ONLINE};
    for (int m = 0; m < 4; m++) {
        cgprop_graph *g = new_graph(1);
        uint32_t f = node(g, "f"), h = node(g, "g");
        cgprop_recorder *r = new_rec(g, modes[m], 1, 1, m == 3 ? CGPROP_REC_CLAMP : 0);
        for (size_t i = 0; i < sizeof deep_run / sizeof deep_run[0]; i++) {
            if (deep_run[i].enter) enter1(r, deep_run[i].g ? h : f, deep_run[i].t);
            else exit1(r, deep_run[i].g ? h : f, deep_run[i].t);
        }
        ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
        bool off = modes[m] == CGPROP_COMP_OFF;
        ck_assert_uint_eq(g->self_n[f], off ? 10 : 8);
        ck_assert_uint_eq(g->self_r[f], off ? 30 : 24);
        const uint64_t *sd = cgprop__dself_row(g, f);
        ck_assert_ptr_nonnull(sd);
        ck_assert_uint_eq(sd[0], off ? 20 : 16);
        ck_assert_ptr_null(cgprop__dself_row(g, h));
        uint32_t ff = cgprop__edge_lookup(g, f, f);
        ck_assert_uint_eq(cls_count(g, ff, cgprop__cls(1, 2)), 2);
        ck_assert_uint_eq(cls_cost(g, ff, cgprop__cls(1, 2), 0), off ? 25 + 15 : 32);
        expect_dcall(g, f, f, 2, 1, off ? 15 : 12);
        expect_dcall(g, f, f, 1, 0, 0);
        expect_dcall(g, f, h, 0, 1, off ? 5 : 4);
        ck_assert_uint_eq(cgprop_recorder_floor_count(r), 0);
        cgprop_recorder_free(r);
        cgprop_graph_free(g);
    }
}
END_TEST

/* With δ overshooting the probes (figures below 0, floored; with clamping,
 * clamped), the level >= 2 parts change nothing else flush writes: S_r and
 * every level >= 1 caller class hold the figure cgprop_recorder_get() gave
 * before the flush, floored at 0, the floor count is the number of figures
 * below 0, and each level >= 2 part lies between 0 and its figure. */
START_TEST(test_deep_overshoot)
{
    sim *s = malloc(sizeof *s);
    uint64_t negatives = 0, parts = 0;
    for (uint64_t seed = 400; seed < 430; seed++) {
        const uint32_t K = 1 + (uint32_t)(seed % 2);
        sim_run(s, seed, K, 3);
        for (int m = 0; m < 3; m++) {
            cgprop_graph *g = new_graph(K);
            uint32_t ids[NF];
            for (uint32_t f = 0; f < NF; f++) {
                char nm[4] = {'f', (char)('0' + f), 0};
                ids[f] = node(g, nm);
            }
            cgprop_recorder_options o;
            cgprop_recorder_options_init(&o);
            uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
            o.delta_i = o_di;
            o.delta_e = o_de;
            o.mode = m == 1 ? CGPROP_COMP_POSTMORTEM : CGPROP_COMP_ONLINE;
            o.flags = m == 2 ? CGPROP_REC_CLAMP : 0;
            for (uint32_t k = 0; k < K; k++) {
                o_di[k] = s->b[k] + s->c[k] + 2 + seed % 3;
                o_de[k] = s->a[k] + s->d[k] + 2 * (seed % 2);
            }
            cgprop_recorder *r = NULL;
            ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_OK);
            replay(r, s, ids);
            /* The figures flush writes, floored, and how many are below 0. */
            static uint64_t sr[NF][MAXK], cr[NF][NF][3][MAXK];
            uint64_t floors = 0;
            for (uint32_t f = 0; f < NF; f++) {
                static const uint32_t written[] = {CGPROP_RF_S_N, CGPROP_RF_S_R, CGPROP_RF_SPONT};
                for (uint32_t i = 0; i < 3; i++)
                    for (uint32_t k = 0; k < K; k++) {
                        cgprop_recorder_figure x;
                        ck_assert_int_eq(cgprop_recorder_get(r, written[i], ids[f], 0, k, &x, sizeof x), CGPROP_OK);
                        floors += x.count && x.comp < 0;
                        if (written[i] == CGPROP_RF_S_R) sr[f][k] = x.comp < 0 ? 0 : (uint64_t)x.comp;
                    }
                for (uint32_t h = 0; h < NF; h++)
                    for (uint32_t c = 0; c < 6; c++)
                        for (uint32_t k = 0; k < K; k++) {
                            cgprop_recorder_figure x;
                            ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_C_NN + c, ids[f], ids[h], k, &x, sizeof x),
                                             CGPROP_OK);
                            floors += x.count && x.comp < 0;
                            if (c >= 3) cr[f][h][c - 3][k] = x.comp < 0 ? 0 : (uint64_t)x.comp;
                        }
            }
            negatives += floors;
            ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
            ck_assert_uint_eq(cgprop_recorder_floor_count(r), floors);
            for (uint32_t f = 0; f < NF; f++) {
                const uint64_t *sd = cgprop__dself_row(g, ids[f]);
                for (uint32_t k = 0; k < K; k++) {
                    ck_assert_uint_eq(g->self_r[ids[f] * K + k], sr[f][k]);
                    ck_assert_uint_le(sd ? sd[k] : 0, sr[f][k]);
                    parts += sd && sd[k];
                }
                for (uint32_t h = 0; h < NF; h++) {
                    uint32_t e = cgprop__edge_lookup(g, ids[f], ids[h]);
                    if (e == UINT32_MAX) continue;
                    const uint64_t *d = cgprop__dcall_row(g, e);
                    for (uint32_t l = 0; l < 3; l++)
                        for (uint32_t k = 0; k < K; k++) {
                            ck_assert_uint_eq(cls_cost(g, e, cgprop__cls(1, l), k), cr[f][h][l][k]);
                            ck_assert_uint_le(d ? d[l * (K + 1) + 1 + k] : 0, cr[f][h][l][k]);
                            parts += d && d[l * (K + 1) + 1 + k];
                        }
                }
            }
            cgprop_recorder_free(r);
            cgprop_graph_free(g);
        }
        free(s->evs);
        free(s->acts);
    }
    ck_assert_uint_gt(negatives, 0);
    ck_assert_uint_gt(parts, 20);
    free(s);
}
END_TEST

/* Out of memory anywhere in that run (an enter from a level >= 2 caller
 * makes a side-table row; flush makes the graph's rows) changes nothing:
 * the failed probe is retried, the failed flush leaves no level >= 2 part
 * behind, and the figures come out as by hand. */
START_TEST(test_deep_enomem)
{
    int failures = 0;
    for (long n = 0; n < 40; n++) {
        tfail fs;
        cgprop_allocator al = tfail_allocator(&fs, -1);
        static const char *const names[] = {"ns"};
        cgprop_graph *g = NULL;
        ck_assert_int_eq(cgprop_graph_new(&al, names, NULL, 1, &g), CGPROP_OK);
        uint32_t f = node(g, "f"), h = node(g, "g");
        cgprop_recorder *r = NULL;
        ck_assert_int_eq(cgprop_recorder_new(g, NULL, &r), CGPROP_OK);
        fs.left = n;
        for (size_t i = 0; i < sizeof deep_run / sizeof deep_run[0]; i++) {
            uint32_t fn = deep_run[i].g ? h : f;
            uint64_t t = deep_run[i].t;
            size_t d = cgprop_recorder_depth(r);
            int rc = deep_run[i].enter ? cgprop_recorder_enter(r, fn, &t) : cgprop_recorder_exit(r, fn, &t);
            if (rc) {
                ck_assert_int_eq(rc, CGPROP_ENOMEM);
                ck_assert_uint_eq(cgprop_recorder_depth(r), d);
                failures++;
                fs.left = -1;
                ck_assert_int_eq(cgprop_recorder_enter(r, fn, &t), CGPROP_OK);
            }
        }
        int rc = cgprop_recorder_flush(r, NULL);
        if (rc) {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            failures++;
            ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
            const uint64_t *sd = cgprop__dself_row(g, f);
            ck_assert_uint_eq(sd ? sd[0] : 0, 0);
            fs.left = -1;
            ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
        }
        ck_assert_uint_eq(g->self_r[f], 30);
        const uint64_t *sd = cgprop__dself_row(g, f);
        ck_assert_uint_eq(sd ? sd[0] : 0, 20);
        expect_dcall(g, f, f, 2, 1, 15);
        expect_dcall(g, f, h, 0, 1, 5);
        cgprop_recorder_free(r);
        cgprop_graph_free(g);
    }
    ck_assert_int_gt(failures, 3);
}
END_TEST

/* With δ that does not match the probes (overshooting, so figures go
 * negative), the two routes still agree on every figure of the same run. */
START_TEST(test_routes_identical)
{
    sim *s = malloc(sizeof *s);
    int negatives = 0;
    for (uint64_t seed = 100; seed < 130; seed++) {
        /* K = 1 takes the probes' fast paths, K = 2 the general ones. */
        const uint32_t K = 1 + (uint32_t)(seed % 2);
        sim_run(s, seed, K, 3);
        cgprop_graph *g = new_graph(K);
        uint32_t ids[NF];
        for (uint32_t f = 0; f < NF; f++) {
            char nm[4] = {'f', (char)('0' + f), 0};
            ids[f] = node(g, nm);
        }
        cgprop_recorder_options o;
        cgprop_recorder_options_init(&o);
        uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
        o.delta_i = o_di;
        o.delta_e = o_de;
        for (uint32_t k = 0; k < 2; k++) {
            o_di[k] = s->b[k] + s->c[k] + 1 + seed % 3;
            o_de[k] = s->a[k] + s->d[k] + 2 * (seed % 2);
        }
        cgprop_recorder *on = NULL, *pm = NULL;
        o.mode = CGPROP_COMP_ONLINE;
        ck_assert_int_eq(cgprop_recorder_new(g, &o, &on), CGPROP_OK);
        o.mode = CGPROP_COMP_POSTMORTEM;
        ck_assert_int_eq(cgprop_recorder_new(g, &o, &pm), CGPROP_OK);
        /* Compared at four points of the run (three with activations
         * open) and at its end. */
        size_t at = 0;
        for (int cut = 1; cut <= 4; cut++) {
            size_t to = cut == 4 ? s->nev : s->nev * (size_t)cut / 4 - (size_t)(seed % 3);
            replay_range(on, s, ids, at, to);
            replay_range(pm, s, ids, at, to);
            at = to;
            for (uint32_t f = 0; f < NF; f++)
                for (uint32_t h = 0; h < NF; h++)
                    for (uint32_t w = 0; w <= CGPROP_RF_C_RD; w++)
                        for (uint32_t k = 0; k < K; k++) {
                            cgprop_recorder_figure x, y;
                            ck_assert_int_eq(cgprop_recorder_get(on, w, ids[f], ids[h], k, &x, sizeof x), CGPROP_OK);
                            ck_assert_int_eq(cgprop_recorder_get(pm, w, ids[f], ids[h], k, &y, sizeof y), CGPROP_OK);
                            ck_assert_int_eq(x.comp, y.comp);
                            ck_assert_uint_eq(x.raw, y.raw);
                            ck_assert_uint_eq(x.count, y.count);
                            ck_assert_uint_eq(x.nested, y.nested);
                            ck_assert_uint_eq(x.children, y.children);
                            negatives += x.comp < 0;
                        }
        }
        cgprop_recorder_free(on);
        cgprop_recorder_free(pm);
        cgprop_graph_free(g);
        free(s->evs);
        free(s->acts);
    }
    ck_assert_int_gt(negatives, 0);
    free(s);
}
END_TEST

/* ---- misuse ---- */

START_TEST(test_misuse)
{
    cgprop_graph *g = new_graph(1);
    uint32_t A = node(g, "A"), B = node(g, "B");
    cgprop_recorder *r = NULL;
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = 3;
    ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_EINVAL);
    ck_assert_ptr_null(r);
    o.mode = CGPROP_COMP_POSTMORTEM;
    o.flags = CGPROP_REC_CLAMP; /* clamping is on-the-fly only */
    ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_EINVAL);
    o.flags = 0;
    o_di[0] = (uint64_t)INT64_MAX;
    o_de[0] = 1;
    ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_new(NULL, NULL, &r), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_new(g, NULL, NULL), CGPROP_EINVAL);

    r = new_rec(g, CGPROP_COMP_ONLINE, 0, 0, 0);
    uint64_t t = 10;
    ck_assert_int_eq(cgprop_recorder_exit(r, A, &t), CGPROP_EFORMAT); /* empty stack */
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "no open activation"));
    ck_assert_int_eq(cgprop_recorder_enter(r, 99, &t), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_enter(r, A, NULL), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_enter(NULL, A, &t), CGPROP_EINVAL);
    enter1(r, A, 10);
    enter1(r, B, 20);
    t = 30;
    ck_assert_int_eq(cgprop_recorder_exit(r, A, &t), CGPROP_EFORMAT); /* B is on top */
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "innermost"));
    t = 19;
    ck_assert_int_eq(cgprop_recorder_exit(r, B, &t), CGPROP_EFORMAT); /* backwards */
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "backwards"));
    ck_assert_int_eq(cgprop_recorder_enter(r, A, &t), CGPROP_EFORMAT);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 2);
    /* The failed calls changed nothing: B 20..35 and A 10..40 as if they never happened. */
    exit1(r, B, 35);
    exit1(r, A, 40);
    ck_assert_str_eq(cgprop_graph_errmsg(g), "");
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 1, 15, 15);
    expect(r, CGPROP_RF_C_NN, A, B, 1, 0, 0, 15, 15);
    cgprop_recorder_figure x;
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_S_N, A, 0, 0, &x, sizeof x - 1), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_get(r, 11, A, 0, 0, &x, sizeof x), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_S_N, A, 0, 1, &x, sizeof x), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_C_NN, A, 7, 0, &x, sizeof x), CGPROP_EINVAL);
    /* Unwind or flush with open frames needs counters. */
    enter1(r, A, 50);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_EINVAL);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 1);
    t = 49;
    ck_assert_int_eq(cgprop_recorder_unwind(r, &t), CGPROP_EFORMAT);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 1);
    ck_assert_uint_eq(cgprop_recorder_depth(NULL), 0);
    ck_assert_int_eq(cgprop_recorder_flush(NULL, &t), CGPROP_EINVAL);
    cgprop_recorder_free(r);
    cgprop_recorder_free(NULL);
    cgprop_graph_free(g);
}
END_TEST

/* ---- flush with open frames, and reuse ---- */

START_TEST(test_flush_open)
{
    cgprop_graph *g = new_graph(1);
    uint32_t A = node(g, "A"), B = node(g, "B");
    cgprop_recorder *r = new_rec(g, CGPROP_COMP_ONLINE, 1, 0, 0);
    enter1(r, A, 0);
    enter1(r, B, 10);
    uint64_t t = 25;
    ck_assert_int_eq(cgprop_recorder_flush(r, &t), CGPROP_OK);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 0);
    /* B: raw 15, comp 15-1 = 14.  A: raw 25, m = 1: 25-1-1·1 = 23; excl 23-14 = 9. */
    ck_assert_uint_eq(g->self[B], 14);
    ck_assert_uint_eq(g->self[A], 9);
    ck_assert_uint_eq(g->spont_cost[A], 23);
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, A, B, &e), CGPROP_OK);
    ck_assert_uint_eq(g->ecost[e], 14);
    ck_assert_uint_eq(g->ecount[e], 1);
    /* Reused, with counters starting over: A 0..5, B inside 1..3 (raw 2, comp 1). */
    enter1(r, A, 0);
    enter1(r, B, 1);
    exit1(r, B, 3);
    exit1(r, A, 5);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    /* A: raw 5 -> 5-1-1 = 3, excl 3-1 = 2; totals 9+2, 14+1, 23+3, 14+1. */
    ck_assert_uint_eq(g->self[A], 11);
    ck_assert_uint_eq(g->self[B], 15);
    ck_assert_uint_eq(g->spont_cost[A], 26);
    ck_assert_uint_eq(g->spont_cnt[A], 2);
    ck_assert_uint_eq(g->ecost[e], 15);
    ck_assert_uint_eq(g->ecount[e], 2);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 1);
    /* Unwind keeps figures in the recorder. */
    enter1(r, A, 100);
    t = 104;
    ck_assert_int_eq(cgprop_recorder_unwind(r, &t), CGPROP_OK);
    expect(r, CGPROP_RF_SPONT, A, 0, 1, 0, 0, 4, 3);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}
END_TEST

/* ---- clamping and flooring ---- */

START_TEST(test_clamp)
{
    cgprop_graph *g = new_graph(1);
    uint32_t A = node(g, "A"), B = node(g, "B");
    /* δ_i = 5, δ_e = 0. A 0..20 calls B 2..4 (raw 2). */
    cgprop_recorder *r = new_rec(g, CGPROP_COMP_ONLINE, 5, 0, CGPROP_REC_CLAMP);
    enter1(r, A, 0);
    enter1(r, B, 2);
    exit1(r, B, 4);
    exit1(r, A, 20);
    /* B: 2-5 = -3 -> 0 (clamp 1), excl 0.  A: 20-5-1·5 = 10, excl 10-0 = 10. */
    ck_assert_uint_eq(cgprop_recorder_clamp_count(r), 1);
    expect(r, CGPROP_RF_S_N, B, 0, 1, 0, 0, 2, 0);
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 1, 18, 10);
    expect(r, CGPROP_RF_SPONT, A, 0, 1, 1, 0, 20, 10);
    ck_assert_uint_eq(cgprop_graph_clamp_count(g), 0);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_recorder_floor_count(r), 0);
    /* The flush carries the clamps of what it wrote into the graph. */
    ck_assert_uint_eq(cgprop_graph_clamp_count(g), 1);

    /* Reused: A 0..20 calls B 2..4 (raw 2) and C 5..16 (raw 11).
     * B: 2-5 = -3 -> 0 (clamp), excl 0.  C: 11-5 = 6, excl 6.
     * A: m = 2: 20-5-2·5 = 5, excl 5-(0+6) = -1 -> 0 (clamp): two clamps.
     * Read before A exits: A's self figure holds nothing yet, though its
     * children's calls do (raw 20-2-11 = 7 once A closes). */
    uint32_t C = node(g, "C");
    enter1(r, A, 0);
    enter1(r, B, 2);
    exit1(r, B, 4);
    enter1(r, C, 5);
    exit1(r, C, 16);
    expect(r, CGPROP_RF_S_N, A, 0, 0, 0, 0, 0, 0);
    expect(r, CGPROP_RF_C_NN, A, C, 1, 0, 0, 11, 6);
    ck_assert_uint_eq(cgprop_recorder_clamp_count(r), 2);
    exit1(r, A, 20);
    ck_assert_uint_eq(cgprop_recorder_clamp_count(r), 3);
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 2, 7, 0);
    expect(r, CGPROP_RF_S_N, B, 0, 1, 0, 0, 2, 0);
    expect(r, CGPROP_RF_S_N, C, 0, 1, 0, 0, 11, 6);
    expect(r, CGPROP_RF_SPONT, A, 0, 1, 2, 0, 20, 5);
    expect(r, CGPROP_RF_C_NN, A, B, 1, 0, 0, 2, 0);
    /* A flush that fails (here: the graph's clamp count is full) adds
     * nothing, not even clamps. */
    g->clamps = UINT64_MAX - 1;
    uint64_t gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_clamp_count(g), UINT64_MAX - 1);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    expect(r, CGPROP_RF_SPONT, A, 0, 1, 2, 0, 20, 5);
    g->clamps = 1;
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_clamp_count(g), 3);
    ck_assert_uint_eq(g->self[A], 10 + 0);
    ck_assert_uint_eq(g->self[C], 6);
    ck_assert_uint_eq(g->spont_cost[A], 10 + 5);
    cgprop_recorder_free(r);

    /* Merging sums the clamp counts, all or nothing. */
    cgprop_graph *m = new_graph(1);
    ck_assert_int_eq(cgprop_graph_merge(m, g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_merge(m, g), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_clamp_count(m), 6);
    m->clamps = UINT64_MAX - 2;
    size_t nn = cgprop_graph_node_count(m);
    ck_assert_int_eq(cgprop_graph_merge(m, g), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_clamp_count(m), UINT64_MAX - 2);
    ck_assert_uint_eq(m->self[A], 20);
    ck_assert_uint_eq(cgprop_graph_node_count(m), nn);
    cgprop_graph_free(m);

    /* Without clamping the same run goes negative; the recorder keeps -3 and
     * the flush writes 0 for B's self and call cost, counting two floors. */
    cgprop_graph *h = new_graph(1);
    A = node(h, "A");
    B = node(h, "B");
    r = new_rec(h, CGPROP_COMP_ONLINE, 5, 0, 0);
    enter1(r, A, 0);
    enter1(r, B, 2);
    exit1(r, B, 4);
    exit1(r, A, 20);
    ck_assert_uint_eq(cgprop_recorder_clamp_count(r), 0);
    expect(r, CGPROP_RF_S_N, B, 0, 1, 0, 0, 2, -3);
    expect(r, CGPROP_RF_C_NN, A, B, 1, 0, 0, 2, -3);
    /* A: 10, excl 10-(-3) = 13. */
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 1, 18, 13);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_recorder_floor_count(r), 2);
    ck_assert_uint_eq(h->self[B], 0);
    ck_assert_uint_eq(h->self[A], 13);
    /* Floors are not clamps; the graph keeps both counts. */
    ck_assert_uint_eq(cgprop_graph_clamp_count(h), 0);
    ck_assert_uint_eq(cgprop_graph_floor_count(h), 2);
    ck_assert_uint_eq(cgprop_graph_floor_count(g), 0);
    /* A flush that fails because the graph's floor count is full writes
     * nothing and counts nothing; the recorder keeps its figures. */
    enter1(r, A, 0);
    enter1(r, B, 2);
    exit1(r, B, 4);
    exit1(r, A, 20);
    h->floors = UINT64_MAX - 1;
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_floor_count(h), UINT64_MAX - 1);
    ck_assert_uint_eq(cgprop_recorder_floor_count(r), 2);
    ck_assert_uint_eq(h->self[A], 13);
    h->floors = 2;
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_floor_count(h), 4);
    ck_assert_uint_eq(cgprop_recorder_floor_count(r), 4);
    ck_assert_uint_eq(h->self[A], 26);
    /* Merging sums the floor counts, all or nothing. */
    cgprop_graph *hm = new_graph(1);
    ck_assert_int_eq(cgprop_graph_merge(hm, h), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_merge(hm, h), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_floor_count(hm), 8);
    hm->floors = UINT64_MAX - 3;
    ck_assert_int_eq(cgprop_graph_merge(hm, h), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_floor_count(hm), UINT64_MAX - 3);
    cgprop_graph_free(hm);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
    cgprop_graph_free(h);
}
END_TEST

/* ---- many distinct calls: the call index grows, keys share home entries ---- */

/* main calls 40 functions, each of which calls 10 of 400 others; twice, so
 * the second round finds every call in the index the first made (several of
 * the 441 keys then sit one past their home entry). δ_i = δ_e = 1.
 * A callee lasts 3: comp 3-1 = 2. A caller lasts 41 with 10 below it:
 * 41-1-10·2 = 20, exclusive 20-10·2 = 0 (raw 41-30 = 11; post-mortem
 * 11-1-10·1 = 0). main 0..T with 880 below it, 80 children: comp
 * T-1-880·2, exclusive T-1761-80·20 = T-3361; post-mortem
 * (T-80·41)-1-80·1, the same. */
START_TEST(test_many_calls)
{
    enum { NCALLERS = 40, FANOUT = 10, NCALLEES = 400 };
    for (uint32_t mode = CGPROP_COMP_ONLINE; mode <= CGPROP_COMP_POSTMORTEM; mode++) {
        cgprop_graph *g = new_graph(1);
        uint32_t m = node(g, "main"), f[1 + NCALLERS + NCALLEES];
        for (uint32_t i = 1; i < 1 + NCALLERS + NCALLEES; i++) {
            char nm[16];
            snprintf(nm, sizeof nm, "f%u", i);
            f[i] = node(g, nm);
        }
        cgprop_recorder *r = new_rec(g, mode, 1, 1, 0);
        uint64_t t = 0;
        enter1(r, m, t);
        for (int round = 0; round < 2; round++)
            for (uint32_t c = 1; c <= NCALLERS; c++) {
                enter1(r, f[c], ++t);
                for (uint32_t j = 0; j < FANOUT; j++) {
                    uint32_t x = f[1 + NCALLERS + (c * 7 + j * 13) % NCALLEES];
                    enter1(r, x, ++t);
                    t += 3;
                    exit1(r, x, t);
                }
                exit1(r, f[c], ++t);
            }
        const uint64_t T = ++t;
        exit1(r, m, T);
        for (uint32_t c = 1; c <= NCALLERS; c++) {
            expect(r, CGPROP_RF_C_NN, m, f[c], 2, 2 * FANOUT, 0, 82, 40);
            expect(r, CGPROP_RF_S_N, f[c], 0, 2, 0, 2 * FANOUT, 22, 0);
            for (uint32_t j = 0; j < FANOUT; j++)
                expect(r, CGPROP_RF_C_NN, f[c], f[1 + NCALLERS + (c * 7 + j * 13) % NCALLEES], 2, 0, 0, 6, 4);
        }
        expect(r, CGPROP_RF_S_N, m, 0, 1, 0, 2 * NCALLERS, T - 2 * NCALLERS * 41, (int64_t)T - 3361);
        expect(r, CGPROP_RF_SPONT, m, 0, 1, 2 * NCALLERS * (1 + FANOUT), 0, T, (int64_t)T - 1761);
        ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
        ck_assert_uint_eq(cgprop_graph_edge_count(g), NCALLERS * (1 + FANOUT));
        ck_assert_uint_eq(g->self[m], T - 3361);
        cgprop_recorder_free(r);
        cgprop_graph_free(g);
    }
}
END_TEST

/* ---- overflow leaves everything unchanged ---- */

START_TEST(test_overflow)
{
    cgprop_graph *g = new_graph(1);
    uint32_t A = node(g, "A"), B = node(g, "B");
    uint64_t big = UINT64_MAX - 5;
    ck_assert_int_eq(cgprop_graph_add_self(g, A, &big), CGPROP_OK);
    cgprop_recorder *r = new_rec(g, CGPROP_COMP_OFF, 0, 0, 0);
    enter1(r, B, 0);
    enter1(r, A, 0);
    exit1(r, A, 10);
    exit1(r, B, 10);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_EOVERFLOW);
    /* No call was left behind, nothing added. */
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
    ck_assert_uint_eq(g->self[A], big);
    ck_assert_uint_eq(g->self[B], 0);
    /* Figures kept: flushing into a graph that has room works after fixing nothing else. */
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 0, 10, 10);
    cgprop_recorder_free(r);

    /* Long activations (raw and nested counts past 2^31) leave the probe's
     * fast path for the checked one, with the same figures. δ_i = 1, δ_e = 2:
     * B 10 .. 2^40 raw 2^40-10, comp 2^40-11; A 0 .. 2^40+5, m = 1:
     * 2^40+5-1-3 = 2^40+1; A's exclusive 12 (raw 15: 15-1-2). */
    r = new_rec(g, CGPROP_COMP_ONLINE, 1, 2, 0);
    const uint64_t T = (uint64_t)1 << 40;
    enter1(r, A, 0);
    enter1(r, B, 10);
    exit1(r, B, T);
    exit1(r, A, T + 5);
    expect(r, CGPROP_RF_C_NN, A, B, 1, 0, 0, T - 10, (int64_t)T - 11);
    expect(r, CGPROP_RF_SPONT, A, 0, 1, 1, 0, T + 5, (int64_t)T + 1);
    expect(r, CGPROP_RF_S_N, A, 0, 1, 0, 1, 15, 12);
    cgprop_recorder_free(r);

    /* A compensated figure out of int64 range at exit. */
    r = new_rec(g, CGPROP_COMP_ONLINE, 0, 0, 0);
    enter1(r, B, 0);
    uint64_t t = (uint64_t)INT64_MAX + 10;
    ck_assert_int_eq(cgprop_recorder_exit(r, B, &t), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 1);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}
END_TEST

/* ---- overflow of a derived figure: reported when read or flushed ---- */

/* The probe keeps per-call sums; per-function self figures are derived
 * from them when read, so a self figure out of int64 range shows at get and
 * flush, not at the exit. δ_i = 0, δ_e = D = 2^62. Three spontaneous
 * activations of F, each calling one other function (G, H, I) for D:
 * the callee's comp inclusive is D; F's raw D+5 with m = 1 gives
 * D+5-0-1·D = 5; F's exclusive 5 - D each, 15 - 3D in all, below INT64_MIN.
 * Every per-call sum fits (D each, 15 for F's entries). */
static void check_overflow_at_read(uint32_t mode)
{
    cgprop_graph *g = new_graph(1);
    uint32_t F = node(g, "F"), callee[3] = {node(g, "G"), node(g, "H"), node(g, "I")};
    const uint64_t D = (uint64_t)1 << 62;
    cgprop_recorder *r = new_rec(g, mode, 0, D, 0);
    for (uint64_t i = 0; i < 3; i++) {
        uint64_t t0 = i * (D + 5);
        enter1(r, F, t0);
        enter1(r, callee[i], t0);
        exit1(r, callee[i], t0 + D);
        exit1(r, F, t0 + D + 5);
    }
    expect(r, CGPROP_RF_SPONT, F, 0, 3, 3, 0, 3 * D + 15, 15);
    expect(r, CGPROP_RF_C_N, F, 0, 3, 3, 0, 3 * D + 15, 15);
    expect(r, CGPROP_RF_C_NN, F, callee[1], 1, 0, 0, D, (int64_t)D);
    expect(r, CGPROP_RF_S_N, callee[2], 0, 1, 0, 0, D, (int64_t)D);
    cgprop_recorder_figure x;
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_S_N, F, 0, 0, &x, sizeof x), CGPROP_EOVERFLOW);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "int64"));
    uint64_t gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_EOVERFLOW);
    /* Nothing written, nothing cleared. */
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
    ck_assert_uint_eq(g->spont_cnt[F], 0);
    expect(r, CGPROP_RF_SPONT, F, 0, 3, 3, 0, 3 * D + 15, 15);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}

START_TEST(test_overflow_at_read_online) { check_overflow_at_read(CGPROP_COMP_ONLINE); }
END_TEST

START_TEST(test_overflow_at_read_postmortem) { check_overflow_at_read(CGPROP_COMP_POSTMORTEM); }
END_TEST

/* ---- allocation failure ---- */

START_TEST(test_enomem)
{
    int failures = 0, flush_failures = 0;
    for (long n = 0; n < 60; n++) {
        tfail fs;
        cgprop_allocator al = tfail_allocator(&fs, -1);
        static const char *const names[] = {"ns"};
        cgprop_graph *g = NULL;
        ck_assert_int_eq(cgprop_graph_new(&al, names, NULL, 1, &g), CGPROP_OK);
        uint32_t ids[40];
        for (int i = 0; i < 40; i++) {
            char nm[4] = {'f', (char)('A' + i), 0, 0};
            ids[i] = node(g, nm);
        }
        cgprop_recorder *r = NULL;
        fs.left = n;
        int rc = cgprop_recorder_new(g, NULL, &r);
        if (rc) {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            failures++;
            cgprop_graph_free(g);
            continue;
        }
        /* A chain through 40 functions: 39 distinct calls for the flush to add. */
        uint64_t t = 0;
        int depth = 0;
        for (int i = 0; i < 40; i++, t++) {
            rc = cgprop_recorder_enter(r, ids[i], &t);
            if (rc) break;
            depth++;
        }
        if (rc) {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            ck_assert_uint_eq(cgprop_recorder_depth(r), (size_t)depth);
            failures++;
        }
        size_t ne = cgprop_graph_edge_count(g);
        size_t d0 = cgprop_recorder_depth(r);
        rc = cgprop_recorder_flush(r, &t);
        if (rc) {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            failures++;
            flush_failures++;
            ck_assert_uint_eq(cgprop_graph_edge_count(g), ne);
            for (int i = 0; i < 40; i++) ck_assert_uint_eq(g->self[ids[i]], 0);
            /* A failed flush changed nothing: the activations are still open. */
            ck_assert_uint_eq(cgprop_recorder_depth(r), d0);
            fs.left = -1;
            ck_assert_int_eq(cgprop_recorder_flush(r, d0 ? NULL : &t), d0 ? CGPROP_EINVAL : CGPROP_OK);
            ck_assert_int_eq(cgprop_recorder_flush(r, &t), CGPROP_OK);
        }
        /* Whatever failed, the figures that were recorded all arrived. */
        uint64_t tot = 0;
        for (int i = 0; i < 40; i++) tot += g->self[ids[i]];
        /* The chain's self costs telescope to the flush reading minus the first enter (0). */
        ck_assert_uint_eq(tot, depth ? t : 0);
        cgprop_recorder_free(r);
        cgprop_graph_free(g);
    }
    ck_assert_int_gt(failures, 3);
    ck_assert_int_gt(flush_failures, 1);
}
END_TEST

/* ---- calibration with a simulated clock ---- */

typedef struct fake_clock {
    uint64_t t[2];
    uint64_t step[2];
    int fail_after; /* reads left before failing; < 0: never */
} fake_clock;

static int fake_now(void *user, uint64_t *out)
{
    fake_clock *c = user;
    if (c->fail_after == 0) return 1;
    if (c->fail_after > 0) c->fail_after--;
    for (int k = 0; k < 2; k++) {
        c->t[k] += c->step[k];
        out[k] = c->t[k];
    }
    return 0;
}

START_TEST(test_calibrate)
{
    /* Each read advances the clock by `step`. A null pair reads at t and
     * t+step: δ_i = step. The outer activation spans 2n+1 steps:
     * (step(2n+1) - step)/n = 2·step = δ_i + δ_e, so δ_e = step. */
    fake_clock c = {{0, 0}, {7, 3}, -1};
    double di[2], de[2];
    ck_assert_int_eq(cgprop_recorder_calibrate(2, fake_now, &c, 1000, NULL, di, de), CGPROP_OK);
    ck_assert(di[0] == 7.0 && de[0] == 7.0);
    ck_assert(di[1] == 3.0 && de[1] == 3.0);
    c.fail_after = 10;
    ck_assert_int_eq(cgprop_recorder_calibrate(2, fake_now, &c, 1000, NULL, di, de), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_calibrate(0, fake_now, &c, 1000, NULL, di, de), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_calibrate(1, NULL, &c, 1000, NULL, di, de), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_calibrate(1, fake_now, &c, 0, NULL, di, de), CGPROP_EINVAL);
}
END_TEST

/* ---- merge ---- */

static void key_of(char *buf, uint32_t f)
{
    buf[0] = 'f';
    buf[1] = (char)('0' + f);
    buf[2] = 0;
}

/* Compare every figure of two graphs by key. */
static void same_graphs(cgprop_graph *x, cgprop_graph *y)
{
    ck_assert_uint_eq(x->nn, y->nn);
    ck_assert_uint_eq(x->ne, y->ne);
    const uint32_t K = x->K;
    for (uint32_t v = 0; v < x->nn; v++) {
        uint32_t u;
        ck_assert_int_eq(cgprop_graph_find_node(y, x->key_ptr[v], x->key_len[v], &u), CGPROP_OK);
        ck_assert_uint_eq(x->spont_cnt[v], y->spont_cnt[u]);
        ck_assert_uint_eq(x->calls_in[v], y->calls_in[u]);
        ck_assert_uint_eq(x->nflags[v], y->nflags[u]);
        for (uint32_t k = 0; k < K; k++) {
            ck_assert_uint_eq(x->self[v * K + k], y->self[u * K + k]);
            ck_assert_uint_eq(x->self_n[v * K + k], y->self_n[u * K + k]);
            ck_assert_uint_eq(x->self_r[v * K + k], y->self_r[u * K + k]);
            ck_assert_uint_eq(x->spont_cost[v * K + k], y->spont_cost[u * K + k]);
        }
    }
    for (uint32_t e = 0; e < x->ne; e++) {
        uint32_t a, b, d;
        const char *ka = x->key_ptr[x->ecaller[e]], *kb = x->key_ptr[x->ecallee[e]];
        ck_assert_int_eq(cgprop_graph_find_node(y, ka, strlen(ka), &a), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_find_node(y, kb, strlen(kb), &b), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_find_edge(y, a, b, &d), CGPROP_OK);
        ck_assert_uint_eq(x->ecount[e], y->ecount[d]);
        ck_assert_uint_eq(x->eflags[e], y->eflags[d]);
        for (uint32_t k = 0; k < K; k++) ck_assert_uint_eq(x->ecost[e * K + k], y->ecost[d * K + k]);
        for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
            ck_assert_uint_eq(cls_count(x, e, c), cls_count(y, d, c));
            for (uint32_t k = 0; k < K; k++) ck_assert_uint_eq(cls_cost(x, e, c, k), cls_cost(y, d, c, k));
        }
    }
}

/* Record s into g (functions added in the given order) through a recorder. */
static void record_into(cgprop_graph *g, const sim *s, int reverse)
{
    uint32_t ids[NF];
    char nm[4];
    for (int i = 0; i < NF; i++) {
        int f = reverse ? NF - 1 - i : i;
        key_of(nm, (uint32_t)f);
        ids[f] = node(g, nm);
    }
    cgprop_recorder *r = new_rec_k(g, CGPROP_COMP_POSTMORTEM, s);
    replay(r, s, ids);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    cgprop_recorder_free(r);
}

START_TEST(test_merge)
{
    sim *s1 = malloc(sizeof *s1), *s2 = malloc(sizeof *s2);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        sim_run(s1, seed, 2, 2);
        /* Same overheads for both "threads", so one recorder serves the sequential run. */
        sim_init(s2, seed + 1000, 2);
        memcpy(s2->a, s1->a, sizeof s1->a);
        memcpy(s2->b, s1->b, sizeof s1->b);
        memcpy(s2->c, s1->c, sizeof s1->c);
        memcpy(s2->d, s1->d, sizeof s1->d);
        sim_roots(s2, 3);
        cgprop_graph *t1 = new_graph(2), *t2 = new_graph(2), *seq = new_graph(2);
        record_into(t1, s1, 0);
        record_into(t2, s2, 1);
        /* Sequential: s1's events, then s2's shifted past s1's last reading. */
        uint32_t ids[NF];
        char nm[4];
        for (uint32_t f = 0; f < NF; f++) {
            key_of(nm, f);
            ids[f] = node(seq, nm);
        }
        cgprop_recorder *r = new_rec_k(seq, CGPROP_COMP_POSTMORTEM, s1);
        replay(r, s1, ids);
        uint64_t shift[MAXK];
        for (int k = 0; k < 2; k++) shift[k] = s1->t[k];
        for (size_t i = 0; i < s2->nev; i++)
            for (int k = 0; k < 2; k++) s2->evs[i].c[k] += shift[k];
        replay(r, s2, ids);
        ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
        cgprop_recorder_free(r);

        ck_assert_int_eq(cgprop_graph_merge(t1, t2), CGPROP_OK);
        same_graphs(t1, seq);
        same_graphs(seq, t1);
        cgprop_graph_free(t1);
        cgprop_graph_free(t2);
        cgprop_graph_free(seq);
        free(s1->evs);
        free(s2->evs);
        free(s1->acts);
        free(s2->acts);
    }
    free(s1);
    free(s2);
}
END_TEST

START_TEST(test_merge_plain)
{
    /* Unclassified figures (aggregated input) merge too; by hand. */
    cgprop_graph *x = new_graph(1), *y = new_graph(1);
    uint32_t a = node(x, "a"), b = node(x, "b");
    uint64_t v5 = 5, v7 = 7, v3 = 3;
    ck_assert_int_eq(cgprop_graph_add_self(x, a, &v5), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(x, a, b, 2, &v7, NULL), CGPROP_OK);
    uint32_t yb = node(y, "b"), yc = node(y, "c"), ya = node(y, "a");
    ck_assert_int_eq(cgprop_graph_add_self_class(y, yb, CGPROP_LEVEL_1, &v3), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(y, ya, yb, 1, NULL, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge_class(y, yb, yc, CGPROP_LEVEL_0, CGPROP_LEVEL_REC, 4, &v3, NULL),
                     CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(y, yc, 0, &v3), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_merge(x, y), CGPROP_OK);
    uint32_t c, e;
    ck_assert_int_eq(cgprop_graph_find_node(x, "c", 1, &c), CGPROP_OK);
    ck_assert_uint_eq(c, 2);
    ck_assert_uint_eq(x->self[a], 5);
    ck_assert_uint_eq(x->self[b], 3);
    ck_assert_uint_eq(x->self_r[b], 3);
    ck_assert(x->nflags[a] & CGPROP__NF_SELF_UNCLASSIFIED);
    ck_assert(!(x->nflags[b] & CGPROP__NF_SELF_UNCLASSIFIED));
    ck_assert(x->nflags[c] & CGPROP__NF_SPONT);
    ck_assert_uint_eq(x->spont_cost[c], 3);
    ck_assert_int_eq(cgprop_graph_find_edge(x, a, b, &e), CGPROP_OK);
    ck_assert_uint_eq(x->ecount[e], 3);
    ck_assert_uint_eq(x->ecost[e], 7);
    ck_assert_int_eq(cgprop_graph_find_edge(x, b, c, &e), CGPROP_OK);
    ck_assert_uint_eq(x->ecount[e], 4);
    ck_assert(x->eflags[e] & CGPROP__EF_LUMPED);
    ck_assert_uint_eq(cls_cost(x, e, cgprop__cls(0, CGPROP_LEVEL_REC), 0), 3);
    ck_assert_uint_eq(x->calls_in[c], 4);

    /* Errors leave dst unchanged. */
    ck_assert_int_eq(cgprop_graph_merge(x, x), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_merge(x, NULL), CGPROP_EINVAL);
    cgprop_graph *z = new_graph(2);
    ck_assert_int_eq(cgprop_graph_merge(x, z), CGPROP_EINVAL);
    static const char *const other[] = {"Ir"};
    cgprop_graph *w = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, other, NULL, 1, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_merge(x, w), CGPROP_EINVAL);
    /* Overflow: a new function d and call b->d, then a's self overflows. */
    cgprop_graph *o = new_graph(1);
    uint32_t oa = node(o, "a"), ob = node(o, "b"), od = node(o, "d");
    uint64_t big = UINT64_MAX - 2;
    ck_assert_int_eq(cgprop_graph_add_edge(o, ob, od, 1, &v3, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(o, oa, &big), CGPROP_OK);
    size_t nn = cgprop_graph_node_count(x), ne = cgprop_graph_edge_count(x);
    ck_assert_int_eq(cgprop_graph_merge(x, o), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_node_count(x), nn);
    ck_assert_uint_eq(cgprop_graph_edge_count(x), ne);
    ck_assert_int_eq(cgprop_graph_find_node(x, "d", 1, &c), CGPROP_ENOTFOUND);
    ck_assert_int_eq(cgprop_graph_find_edge(x, b, a, &e), CGPROP_ENOTFOUND);
    ck_assert_uint_eq(x->self[a], 5);
    /* And the graph still works: adding d now gives it the next id. */
    ck_assert_uint_eq(node(x, "d"), nn);
    cgprop_graph_free(o);
    cgprop_graph_free(w);
    cgprop_graph_free(z);
    cgprop_graph_free(x);
    cgprop_graph_free(y);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("recorder");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_abc_online);
    tcase_add_test(tc, test_abc_postmortem);
    tcase_add_test(tc, test_abc_off);
    tcase_add_test(tc, test_ddd_online);
    tcase_add_test(tc, test_ddd_postmortem);
    tcase_add_test(tc, test_random_runs);
    tcase_add_test(tc, test_mid_run);
    tcase_add_test(tc, test_deep_like_stacks);
    tcase_add_test(tc, test_deep_by_hand);
    tcase_add_test(tc, test_deep_enomem);
    tcase_add_test(tc, test_deep_overshoot);
    tcase_add_test(tc, test_routes_identical);
    tcase_add_test(tc, test_misuse);
    tcase_add_test(tc, test_flush_open);
    tcase_add_test(tc, test_clamp);
    tcase_add_test(tc, test_many_calls);
    tcase_add_test(tc, test_overflow);
    tcase_add_test(tc, test_overflow_at_read_online);
    tcase_add_test(tc, test_overflow_at_read_postmortem);
    tcase_add_test(tc, test_enomem);
    tcase_add_test(tc, test_calibrate);
    tcase_add_test(tc, test_merge);
    tcase_add_test(tc, test_merge_plain);
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
