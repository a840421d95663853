/* Stack ingestion: what one sampled stack adds to the store (self, calls,
 * spontaneous entry, activation classes), its atomicity on overflow and
 * allocation failure, and its agreement with the per-class API. */
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "graph.h" /* the store's class buckets are what this area writes */

static const char *const metric_names[3] = {"a", "b", "c"};
static cgprop_graph *new_graph(size_t K) { return tgraph(K, metric_names); }

static void nodes(cgprop_graph *g, int n)
{
    for (int i = 0; i < n; i++) {
        char key[2] = {(char)('A' + i), 0};
        uint32_t id;
        ck_assert_int_eq(cgprop_graph_add_node(g, key, 1, &id), CGPROP_OK);
        ck_assert_uint_eq(id, (uint32_t)i);
    }
}

enum { A, B, C, D, E };

static uint32_t edge(cgprop_graph *g, uint32_t a, uint32_t b)
{
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, a, b, &e), CGPROP_OK);
    return e;
}

/* Class bucket (caller_rec, callee level) of call a→b, metric k. */
static uint64_t bucket(cgprop_graph *g, uint32_t a, uint32_t b, uint32_t caller_rec, uint32_t callee, uint32_t k)
{
    uint32_t e = edge(g, a, b);
    uint64_t n;
    return cgprop__ecls_get(g, e, cgprop__cls(caller_rec, callee), &n)[k];
}

static uint64_t ecost(cgprop_graph *g, uint32_t a, uint32_t b, uint32_t k)
{
    return g->ecost[(size_t)edge(g, a, b) * g->K + k];
}

START_TEST(bad_arguments)
{
    cgprop_graph *g = new_graph(1);
    nodes(g, 2);
    uint32_t fr[] = {A, B, 7};
    uint64_t w[] = {1};
    uint64_t gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_graph_add_stack(NULL, fr, 2, w), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_stack(g, NULL, 2, w), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 2, NULL), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 0, w), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 3, w), CGPROP_EINVAL);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "out of range"));
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
    ck_assert_uint_eq(g->self[B], 0);
    ck_assert_uint_eq(g->spont_cost[A], 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(one_stack_derivation)
{
    /* A;B;A;C with weights (3, 5): levels A0 B0 A1 C0. */
    cgprop_graph *g = new_graph(2);
    nodes(g, 3);
    uint32_t fr[] = {A, B, A, C};
    uint64_t w[] = {3, 5};
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 4, w), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 3);
    for (uint32_t k = 0; k < 2; k++) {
        cgprop_node_row n;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, A, &n, sizeof n), CGPROP_OK);
        ck_assert_uint_eq(n.spont_cost, w[k]);
        ck_assert_uint_eq(n.spont_count, 0); /* samples are not activations */
        ck_assert(n.flags & CGPROP_F_SPONTANEOUS);
        ck_assert_uint_eq(n.self, 0);
        ck_assert_uint_eq(n.calls_in, 0);
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, C, &n, sizeof n), CGPROP_OK);
        ck_assert_uint_eq(n.self, w[k]);
        ck_assert_uint_eq(n.spont_cost, 0);
        ck_assert(!(n.flags & CGPROP_F_SPONTANEOUS));
        ck_assert_uint_eq(g->self_n[(size_t)C * 2 + k], w[k]);
        ck_assert_uint_eq(g->self_r[(size_t)C * 2 + k], 0);

        cgprop_edge_row r;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, k, edge(g, B, A), &r, sizeof r), CGPROP_OK);
        ck_assert_uint_eq(r.count, 0);
        ck_assert_uint_eq(r.cost, w[k]);
        ck_assert(r.flags & CGPROP_F_HAS_COST);
        ck_assert_uint_eq(bucket(g, A, B, 0, 0, k), w[k]);
        ck_assert_uint_eq(bucket(g, B, A, 0, 1, k), w[k]);
        ck_assert_uint_eq(bucket(g, A, C, 1, 0, k), w[k]);
        ck_assert_uint_eq(bucket(g, A, C, 0, 0, k), 0);
        ck_assert_uint_eq(ecost(g, A, C, k), w[k]);
    }
    ck_assert(g->has_classes);
    ck_assert(!(g->nflags[A] & CGPROP__NF_SELF_UNCLASSIFIED));
    ck_assert(!(g->eflags[edge(g, A, B)] & CGPROP__EF_UNCLASSIFIED));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(repeated_pairs_and_levels)
{
    cgprop_graph *g = new_graph(1);
    nodes(g, 2);
    uint64_t w[] = {7};
    /* A;B;A;B: A→B twice (A0→B0, A1→B1), B→A once (B0→A1); leaf B1. */
    uint32_t s1[] = {A, B, A, B};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 4, w), CGPROP_OK);
    ck_assert_uint_eq(ecost(g, A, B, 0), 14);
    ck_assert_uint_eq(bucket(g, A, B, 0, 0, 0), 7);
    ck_assert_uint_eq(bucket(g, A, B, 1, 1, 0), 7);
    ck_assert_uint_eq(bucket(g, B, A, 0, 1, 0), 7);
    ck_assert_uint_eq(g->self_r[B], 7);
    ck_assert_uint_eq(g->self_n[B], 0);
    /* A;A;A;A: levels 0 1 2 3; A→A: 0→1, then 1→2 and 3→≥2 in the deep class. */
    uint32_t s2[] = {A, A, A, A};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 4, w), CGPROP_OK);
    ck_assert_uint_eq(ecost(g, A, A, 0), 21);
    ck_assert_uint_eq(bucket(g, A, A, 0, 1, 0), 7);
    ck_assert_uint_eq(bucket(g, A, A, 1, 2, 0), 14);
    ck_assert_uint_eq(g->self_r[A], 7);
    ck_assert(g->nflags[A] & CGPROP__NF_SELF_CALL);
    ck_assert_uint_eq(g->spont_cost[A], 14);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(deep_chain)
{
    /* 1,000,000 frames A;B;A;B;…: no native recursion anywhere. Frame 2j is
     * A at level j, frame 2j+1 is B at level j. */
    size_t n = 1000000;
    uint32_t *fr = malloc(n * sizeof *fr);
    ck_assert_ptr_nonnull(fr);
    for (size_t i = 0; i < n; i++) fr[i] = i % 2 ? B : A;
    cgprop_graph *g = new_graph(1);
    nodes(g, 2);
    uint64_t w[] = {2};
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, n, w), CGPROP_OK);
    /* A→B: 500,000 pairs, A_j → B_j. */
    ck_assert_uint_eq(bucket(g, A, B, 0, 0, 0), 2);
    ck_assert_uint_eq(bucket(g, A, B, 1, 1, 0), 2);
    ck_assert_uint_eq(bucket(g, A, B, 1, 2, 0), 2 * 499998);
    /* B→A: 499,999 pairs, B_j → A_{j+1}. */
    ck_assert_uint_eq(bucket(g, B, A, 0, 1, 0), 2);
    ck_assert_uint_eq(bucket(g, B, A, 1, 2, 0), 2 * 499998);
    ck_assert_uint_eq(ecost(g, B, A, 0), 2 * 499999);
    ck_assert_uint_eq(g->self_r[B], 2);
    /* Again, all from the cache now. */
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, n, w), CGPROP_OK);
    ck_assert_uint_eq(ecost(g, A, B, 0), 4 * 500000);
    free(fr);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(shared_prefixes)
{
    /* Consecutive stacks sharing prefixes of every length, including a
     * stack equal to the previous one, shorter, and longer. */
    cgprop_graph *g = new_graph(1);
    nodes(g, 5);
    uint64_t w[] = {1};
    uint32_t s1[] = {A, B, C}, s2[] = {A, B, D}, s3[] = {A, B}, s4[] = {A, B, D, A, B, C}, s5[] = {E, B, C};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 3, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 3, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 3, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 2, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s4, 6, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s5, 3, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 3, w), CGPROP_OK);
    /* A→B: s1 s2 s2 s3 s4(×2) s1 = 7; B→C: s1 s4 s5 s1 = 4; B→D: 3. */
    ck_assert_uint_eq(ecost(g, A, B, 0), 7);
    ck_assert_uint_eq(bucket(g, A, B, 0, 0, 0), 6);
    ck_assert_uint_eq(bucket(g, A, B, 1, 1, 0), 1);
    ck_assert_uint_eq(ecost(g, B, C, 0), 4);
    ck_assert_uint_eq(bucket(g, B, C, 1, 0, 0), 1);
    ck_assert_uint_eq(ecost(g, B, D, 0), 3);
    ck_assert_uint_eq(ecost(g, D, A, 0), 1);
    ck_assert_uint_eq(ecost(g, E, B, 0), 1);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 5);
    ck_assert_uint_eq(g->spont_cost[A], 6);
    ck_assert_uint_eq(g->spont_cost[E], 1);
    cgprop_graph_free(g);
}
END_TEST

/* ---- overflow: nothing added, ever ---- */

typedef struct snap {
    uint64_t gen;
    size_t ne, nn;
    uint64_t *buf;
    size_t len;
} snap;

/* Everything a stack can write, in one flat copy. */
static snap take(const cgprop_graph *g)
{
    snap s = {g->gen, g->ne, g->nn, NULL, 0};
    size_t K = g->K, nk = g->nn * K, ek = g->ne * K;
    /* Buckets are read through the store's accessor: the form they are kept
     * in may change invisibly. */
    s.len = 4 * nk + g->nn + ek + g->ne + g->ne * CGPROP__NCLS * (K + 1) + 2 * g->nn + g->ne;
    s.buf = calloc(s.len + 1, sizeof *s.buf);
    uint64_t *p = s.buf;
#define PUT(src, n)                                                                                         \
    do {                                                                                                    \
        for (size_t i_ = 0; i_ < (n); i_++) *p++ = (uint64_t)(src)[i_];                                      \
    } while (0)
    PUT(g->self, nk);
    PUT(g->self_n, nk);
    PUT(g->self_r, nk);
    PUT(g->spont_cost, nk);
    PUT(g->spont_cnt, g->nn);
    PUT(g->ecost, ek);
    PUT(g->ecount, g->ne);
    for (uint32_t e = 0; e < g->ne; e++)
        for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
            uint64_t n;
            const uint64_t *b = cgprop__ecls_get(g, e, c, &n);
            PUT(b, K);
            *p++ = n;
        }
    PUT(g->nflags, g->nn);
    PUT(g->calls_in, g->nn);
    PUT(g->eflags, g->ne);
#undef PUT
    ck_assert_uint_eq((size_t)(p - s.buf), s.len);
    return s;
}

static void same(const cgprop_graph *g, snap *s)
{
    snap t = take(g);
    ck_assert_uint_eq(t.gen, s->gen);
    ck_assert_uint_eq(t.ne, s->ne);
    ck_assert_uint_eq(t.len, s->len);
    ck_assert_int_eq(memcmp(t.buf, s->buf, s->len * sizeof *s->buf), 0);
    free(t.buf);
    free(s->buf);
}

START_TEST(overflow_is_atomic)
{
    const uint64_t MAX = UINT64_MAX, H = (uint64_t)1 << 63;
    cgprop_graph *g = new_graph(2);
    nodes(g, 5);
    uint64_t w1[] = {1, 1};
    uint32_t abcd[] = {A, B, C, D};
    ck_assert_int_eq(cgprop_graph_add_stack(g, abcd, 4, w1), CGPROP_OK);

    /* Spontaneous cost of the root. */
    uint64_t big[] = {1, MAX};
    uint32_t e1[] = {E};
    ck_assert_int_eq(cgprop_graph_add_stack(g, e1, 1, big), CGPROP_OK);
    uint32_t ea[] = {E, A};
    snap s = take(g);
    ck_assert_int_eq(cgprop_graph_add_stack(g, ea, 2, w1), CGPROP_EOVERFLOW);
    same(g, &s);
    ck_assert_int_eq(cgprop_graph_find_edge(g, E, A, &(uint32_t){0}), CGPROP_ENOTFOUND);

    /* Self cost of the leaf, after the root's spontaneous cost was added. */
    uint32_t ae[] = {A, E};
    s = take(g);
    ck_assert_int_eq(cgprop_graph_add_stack(g, ae, 2, (uint64_t[]){0, 2}), CGPROP_EOVERFLOW);
    same(g, &s);

    /* An existing call in the middle, after two calls were added. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, C, D, 0, (uint64_t[]){MAX - 3, 0}, NULL), CGPROP_OK);
    s = take(g);
    ck_assert_int_eq(cgprop_graph_add_stack(g, abcd, 4, (uint64_t[]){5, 0}), CGPROP_EOVERFLOW);
    same(g, &s);
    /* The failed stack must not poison the cached prefix. */
    uint32_t abce[] = {A, B, C, E};
    ck_assert_int_eq(cgprop_graph_add_stack(g, abce, 4, (uint64_t[]){5, 0}), CGPROP_OK);
    ck_assert_uint_eq(ecost(g, A, B, 0), 6);
    ck_assert_uint_eq(ecost(g, B, C, 0), 6);
    ck_assert_uint_eq(ecost(g, C, E, 0), 5);
    ck_assert_uint_eq(ecost(g, C, D, 0), MAX - 2);

    /* An existing call occurring twice: each addition fits, the sum not. */
    cgprop_graph_free(g);
    g = new_graph(1);
    nodes(g, 2);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, B, 0, (uint64_t[]){0}, NULL), CGPROP_OK);
    uint32_t abab[] = {A, B, A, B}, aba[] = {A, B, A};
    s = take(g);
    ck_assert_int_eq(cgprop_graph_add_stack(g, abab, 4, (uint64_t[]){H}), CGPROP_EOVERFLOW);
    same(g, &s);

    /* A call that does not exist yet, occurring twice: refused before it
     * is created. */
    cgprop_graph_free(g);
    g = new_graph(1);
    nodes(g, 2);
    s = take(g);
    ck_assert_int_eq(cgprop_graph_add_stack(g, abab, 4, (uint64_t[]){H}), CGPROP_EOVERFLOW);
    same(g, &s);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
    /* Two distinct new calls of 2^63 each fit. */
    ck_assert_int_eq(cgprop_graph_add_stack(g, aba, 3, (uint64_t[]){H}), CGPROP_OK);
    ck_assert_uint_eq(ecost(g, A, B, 0), H);
    ck_assert_uint_eq(ecost(g, B, A, 0), H);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(generation_bumps)
{
    cgprop_graph *g = new_graph(1);
    nodes(g, 2);
    uint32_t ab[] = {A, B};
    uint64_t w[] = {1};
    ck_assert_int_eq(cgprop_graph_add_stack(g, ab, 2, w), CGPROP_OK);
    uint64_t gen = cgprop_graph_generation(g);
    cgprop_iter *it;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_EDGES, 0, 0, &it), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, ab, 2, w), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen + 1);
    cgprop_edge_row r;
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_ESTATE);
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

/* ---- the per-class API gives the same store ---- */

static uint64_t rs;
static uint64_t rnd(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

START_TEST(same_as_class_api)
{
    /* Derive each stack's additions here, independently (levels by
     * counting), feed them through add_self_class / add_edge_class /
     * add_spontaneous, and compare the two stores pair by pair. */
    rs = 12345;
    enum { NFN = 6, K = 3 };
    cgprop_graph *g1 = new_graph(K), *g2 = new_graph(K);
    nodes(g1, NFN);
    nodes(g2, NFN);
    uint32_t fr[20];
    for (int s = 0; s < 3000; s++) {
        size_t d = 1 + rnd() % 20;
        for (size_t i = 0; i < d; i++) fr[i] = i && rnd() % 3 == 0 ? fr[rnd() % i] : (uint32_t)(rnd() % NFN);
        uint64_t w[K] = {rnd() % 100, 1, rnd() % 3};
        ck_assert_int_eq(cgprop_graph_add_stack(g1, fr, d, w), CGPROP_OK);
        uint32_t lvl[20];
        for (size_t i = 0; i < d; i++) {
            lvl[i] = 0;
            for (size_t j = 0; j < i; j++) lvl[i] += fr[j] == fr[i];
        }
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g2, fr[0], 0, w), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_self_class(g2, fr[d - 1], lvl[d - 1] ? CGPROP_LEVEL_1 : CGPROP_LEVEL_0, w),
                         CGPROP_OK);
        for (size_t i = 0; i + 1 < d; i++) {
            uint32_t cl = lvl[i] ? CGPROP_LEVEL_1 : CGPROP_LEVEL_0;
            uint32_t ce = lvl[i + 1] >= 2 ? CGPROP_LEVEL_DEEP : lvl[i + 1];
            ck_assert_int_eq(cgprop_graph_add_edge_class(g2, fr[i], fr[i + 1], cl, ce, 0, w, NULL), CGPROP_OK);
        }
    }
    ck_assert_uint_eq(cgprop_graph_edge_count(g1), cgprop_graph_edge_count(g2));
    for (uint32_t f = 0; f < NFN; f++) {
        /* Whether a function starts deep stacks is known from stacks only. */
        ck_assert_uint_eq(g1->nflags[f] & ~(uint32_t)CGPROP__NF_DEEP_ROOT, g2->nflags[f]);
        ck_assert_uint_eq(g1->spont_cnt[f], g2->spont_cnt[f]);
        ck_assert_uint_eq(g1->calls_in[f], g2->calls_in[f]);
        for (uint32_t k = 0; k < K; k++) {
            size_t i = (size_t)f * K + k;
            ck_assert_uint_eq(g1->self[i], g2->self[i]);
            ck_assert_uint_eq(g1->self_n[i], g2->self_n[i]);
            ck_assert_uint_eq(g1->self_r[i], g2->self_r[i]);
            ck_assert_uint_eq(g1->spont_cost[i], g2->spont_cost[i]);
        }
    }
    for (uint32_t e1 = 0; e1 < g1->ne; e1++) {
        uint32_t e2 = edge(g2, g1->ecaller[e1], g1->ecallee[e1]);
        ck_assert_uint_eq(g1->ecount[e1], g2->ecount[e2]);
        ck_assert_uint_eq(g1->eflags[e1], g2->eflags[e2]);
        for (uint32_t k = 0; k < K; k++)
            ck_assert_uint_eq(g1->ecost[(size_t)e1 * K + k], g2->ecost[(size_t)e2 * K + k]);
        for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
            uint64_t n1, n2;
            const uint64_t *b1 = cgprop__ecls_get(g1, e1, c, &n1), *b2 = cgprop__ecls_get(g2, e2, c, &n2);
            ck_assert_uint_eq(n1, n2);
            for (uint32_t k = 0; k < K; k++) ck_assert_uint_eq(b1[k], b2[k]);
        }
    }
    ck_assert(g1->has_classes && g1->any_cost);
    cgprop_graph_free(g1);
    cgprop_graph_free(g2);
}
END_TEST

/* ---- allocation failure ---- */

START_TEST(enomem_adds_no_cost)
{
    /* Fail the n-th allocation for every n: the stack either goes in whole
     * or returns ENOMEM with nothing added (no cost, and no call: those it
     * created are dropped again); retrying then succeeds; nothing leaks.
     * Many new calls force the call table to grow mid-stack. */
    enum { NFN = 200 };
    tfail fa;
    cgprop_allocator al = tfail_allocator(&fa, -1);
    for (long n = 0;; n++) {
        uint32_t fr[NFN];
        cgprop_graph *g = tgraph_letters(&al, NFN, fr);
        uint64_t w[] = {3};
        fa.left = n;
        int rc = cgprop_graph_add_stack(g, fr, NFN, w);
        fa.left = -1;
        if (rc == CGPROP_OK) {
            ck_assert_int_gt(n, 3);
            ck_assert_uint_eq(cgprop_graph_edge_count(g), NFN - 1);
            ck_assert_uint_eq(g->self[fr[NFN - 1]], 3);
            cgprop_graph_free(g);
            ck_assert_int_eq(fa.live, 0);
            break;
        }
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
        for (uint32_t i = 0; i < NFN; i++) {
            ck_assert_uint_eq(g->self[i], 0);
            ck_assert_uint_eq(g->spont_cost[i], 0);
        }
        for (uint32_t e = 0; e < g->ne; e++) {
            ck_assert_uint_eq(g->ecost[e], 0);
            ck_assert_uint_eq(g->eflags[e] & CGPROP__EF_HAS_COST, 0);
        }
        ck_assert_int_eq(cgprop_graph_add_stack(g, fr, NFN, w), CGPROP_OK);
        ck_assert_uint_eq(g->ecost[edge(g, fr[0], fr[1])], 3);
        ck_assert_uint_eq(g->spont_cost[fr[0]], 3);
        cgprop_graph_free(g);
        ck_assert_int_eq(fa.live, 0);
    }
}
END_TEST

static Suite *stacks_suite(void)
{
    Suite *s = suite_create("stacks");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, one_stack_derivation);
    tcase_add_test(tc, repeated_pairs_and_levels);
    tcase_add_test(tc, deep_chain);
    tcase_add_test(tc, shared_prefixes);
    tcase_add_test(tc, overflow_is_atomic);
    tcase_add_test(tc, generation_bumps);
    tcase_add_test(tc, same_as_class_api);
    tcase_add_test(tc, enomem_adds_no_cost);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(stacks_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
