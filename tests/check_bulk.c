/* Bulk building: cgprop_graph_add_calls() and cgprop_graph_add_nodes()
 * against the same data added one call at a time and against a brute-force
 * model, in batches grouped by caller and in random order (large ones are
 * sorted); refusals (bad arguments, overflow, every allocation failing in
 * turn) leave the graph exactly as it was. */
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "graph.h"

/* A small deterministic generator (splitmix64). */
static uint64_t rng_state;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Everything a caller can observe of the store, compared field by field:
 * functions (keys, sums, flags), calls (ends, sums, flags, class buckets),
 * the generation and the flags of the whole graph. */
static void same_graph(const cgprop_graph *a, const cgprop_graph *b)
{
    ck_assert_uint_eq(a->nn, b->nn);
    ck_assert_uint_eq(a->ne, b->ne);
    ck_assert_uint_eq(a->gen, b->gen);
    ck_assert_int_eq(a->any_cost, b->any_cost);
    ck_assert_int_eq(a->has_classes, b->has_classes);
    uint32_t K = a->K;
    for (uint32_t v = 0; v < a->nn; v++) {
        ck_assert_uint_eq(a->key_len[v], b->key_len[v]);
        ck_assert(memcmp(a->key_ptr[v], b->key_ptr[v], a->key_len[v]) == 0);
        ck_assert_uint_eq(a->calls_in[v], b->calls_in[v]);
        ck_assert_uint_eq(a->nflags[v], b->nflags[v]);
        ck_assert_uint_eq(a->spont_cnt[v], b->spont_cnt[v]);
        for (uint32_t k = 0; k < K; k++) ck_assert_uint_eq(a->self[v * K + k], b->self[v * K + k]);
    }
    for (uint32_t e = 0; e < a->ne; e++) {
        ck_assert_uint_eq(a->ecaller[e], b->ecaller[e]);
        ck_assert_uint_eq(a->ecallee[e], b->ecallee[e]);
        ck_assert_uint_eq(a->ecount[e], b->ecount[e]);
        ck_assert_uint_eq(a->eflags[e], b->eflags[e]);
        for (uint32_t k = 0; k < K; k++) ck_assert_uint_eq(a->ecost[(size_t)e * K + k], b->ecost[(size_t)e * K + k]);
        for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
            uint64_t ca, cb;
            const uint64_t *xa = cgprop__ecls_get(a, e, c, &ca), *xb = cgprop__ecls_get(b, e, c, &cb);
            ck_assert_uint_eq(ca, cb);
            for (uint32_t k = 0; k < K; k++) ck_assert_uint_eq(xa[k], xb[k]);
        }
    }
}

/* Every pair's look-up agrees between the two graphs (found with the same
 * id, or absent from both). */
static void same_lookups(cgprop_graph *a, cgprop_graph *b)
{
    for (uint32_t x = 0; x < a->nn; x++)
        for (uint32_t y = 0; y < a->nn; y++) {
            uint32_t ea = 0, eb = 0;
            int ra = cgprop_graph_find_edge(a, x, y, &ea), rb = cgprop_graph_find_edge(b, x, y, &eb);
            ck_assert_int_eq(ra, rb);
            if (ra == CGPROP_OK) ck_assert_uint_eq(ea, eb);
        }
}

static void add_keys(cgprop_graph *g, uint32_t nn)
{
    for (uint32_t i = 0; i < nn; i++) {
        char key[32];
        snprintf(key, sizeof key, "f%u", i);
        tnode(g, key);
    }
}

/* A batch of n calls over nn functions: grouped by caller in runs (callers
 * coming round again, as several fn= blocks) or in random order, with
 * repeats, small counts and costs (some zero). */
typedef struct batch {
    uint32_t n, *a, *b, *ids;
    uint64_t *cnt, *cost;
} batch;

static void make_batch(batch *bt, uint32_t n, uint32_t nn, uint32_t K, bool grouped)
{
    bt->n = n;
    bt->a = malloc(n * sizeof *bt->a);
    bt->b = malloc(n * sizeof *bt->b);
    bt->ids = malloc(n * sizeof *bt->ids);
    bt->cnt = malloc(n * sizeof *bt->cnt);
    bt->cost = malloc((size_t)n * K * sizeof *bt->cost);
    uint32_t caller = (uint32_t)(rnd() % nn), left = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!grouped || left == 0) {
            caller = (uint32_t)(rnd() % nn);
            left = 1 + (uint32_t)(rnd() % 6);
        }
        left--;
        bt->a[i] = caller;
        bt->b[i] = (uint32_t)(rnd() % nn);
        bt->cnt[i] = rnd() % 4;
        for (uint32_t k = 0; k < K; k++) bt->cost[(size_t)i * K + k] = rnd() % 3 ? rnd() % 100 : 0;
    }
}

static void free_batch(batch *bt)
{
    free(bt->a);
    free(bt->b);
    free(bt->ids);
    free(bt->cnt);
    free(bt->cost);
}

/* The brute-force model: distinct pairs in order of first appearance, with
 * the sums of their counts and first costs. */
static void check_model(const cgprop_graph *g, uint32_t ne0, const batch *bt, bool costs)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < bt->n; i++) {
        uint32_t first = i;
        for (uint32_t j = 0; j < i; j++)
            if (bt->a[j] == bt->a[i] && bt->b[j] == bt->b[i]) {
                first = j;
                break;
            }
        ck_assert_uint_eq(bt->ids[i], bt->ids[first]);
        if (first != i || bt->ids[i] < ne0) continue;
        /* A new call: the next id, and its sums are the batch's alone. */
        ck_assert_uint_eq(bt->ids[i], ne0 + m);
        m++;
        uint64_t cnt = 0, c0 = 0;
        for (uint32_t j = i; j < bt->n; j++)
            if (bt->a[j] == bt->a[i] && bt->b[j] == bt->b[i]) {
                cnt += bt->cnt[j];
                c0 += bt->cost[(size_t)j * g->K];
            }
        ck_assert_uint_eq(g->ecount[bt->ids[i]], cnt);
        ck_assert_uint_eq(g->ecost[(size_t)bt->ids[i] * g->K], costs ? c0 : 0);
    }
    ck_assert_uint_eq(g->ne, ne0 + m);
}

START_TEST(test_random_against_single)
{
    for (int round = 0; round < 240; round++) {
        rng_state = 0xB01C0000u + (uint64_t)round;
        uint32_t K = 1 + round % 2, nn = 3 + (uint32_t)(rnd() % 30), n = 1 + (uint32_t)(rnd() % 200);
        bool grouped = round % 3 != 0, costs = round % 5 != 4, pre = round % 4 == 1 || round % 4 == 2;
        cgprop_graph *bulk = tgraph(K, NULL), *one = tgraph(K, NULL);
        add_keys(bulk, nn);
        add_keys(one, nn);
        /* Some calls before the batch, one at a time in both graphs. */
        if (pre)
            for (int i = 0; i < 20; i++) {
                uint32_t a = (uint32_t)(rnd() % nn), b = (uint32_t)(rnd() % nn);
                uint64_t c[2] = {rnd() % 9, rnd() % 9};
                ck_assert_int_eq(cgprop_graph_add_edge(bulk, a, b, 1, c, NULL), CGPROP_OK);
                ck_assert_int_eq(cgprop_graph_add_edge(one, a, b, 1, c, NULL), CGPROP_OK);
            }
        uint32_t ne0 = bulk->ne;
        batch bt;
        make_batch(&bt, n, nn, K, grouped);
        const uint64_t *cs = costs ? bt.cost : NULL;
        ck_assert_int_eq(cgprop_graph_add_calls(bulk, n, bt.a, bt.b, bt.cnt, cs, bt.ids), CGPROP_OK);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t id = UINT32_MAX;
            ck_assert_int_eq(cgprop_graph_add_edge(one, bt.a[i], bt.b[i], bt.cnt[i], cs ? cs + (size_t)i * K : NULL, &id),
                             CGPROP_OK);
            ck_assert_uint_eq(bt.ids[i], id);
        }
        check_model(bulk, ne0, &bt, costs);
        /* One generation step for the batch, one per call for the others. */
        ck_assert_uint_gt(bulk->gen, 0);
        bulk->gen = one->gen;
        same_graph(bulk, one);
        /* Later single calls find what the batch added (the call index is
         * built when first needed), and a second batch goes the same way. */
        for (int i = 0; i < 10; i++) {
            uint32_t a = bt.a[rnd() % n], b = (uint32_t)(rnd() % nn), ia, ib;
            ck_assert_int_eq(cgprop_graph_add_edge(bulk, a, b, 2, NULL, &ia), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_add_edge(one, a, b, 2, NULL, &ib), CGPROP_OK);
            ck_assert_uint_eq(ia, ib);
        }
        batch b2;
        make_batch(&b2, n, nn, K, grouped);
        ck_assert_int_eq(cgprop_graph_add_calls(bulk, n, b2.a, b2.b, b2.cnt, b2.cost, b2.ids), CGPROP_OK);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t id;
            ck_assert_int_eq(cgprop_graph_add_edge(one, b2.a[i], b2.b[i], b2.cnt[i], b2.cost + (size_t)i * K, &id),
                             CGPROP_OK);
            ck_assert_uint_eq(b2.ids[i], id);
        }
        bulk->gen = one->gen;
        same_graph(bulk, one);
        same_lookups(bulk, one);
        free_batch(&bt);
        free_batch(&b2);
        cgprop_graph_free(bulk);
        cgprop_graph_free(one);
    }
}
END_TEST

/* Runs longer than the run table takes, and a caller whose calls come in
 * two places: the fast and the indexed path meet within one batch. */
START_TEST(test_long_runs)
{
    uint32_t nn = 3000, n = 9000;
    cgprop_graph *bulk = tgraph(1, NULL), *one = tgraph(1, NULL);
    add_keys(bulk, nn);
    add_keys(one, nn);
    batch bt;
    rng_state = 77;
    make_batch(&bt, n, nn, 1, true);
    for (uint32_t i = 0; i < 5000; i++) bt.a[i] = 7; /* one caller, 5000 calls, ~2,700 distinct */
    for (uint32_t i = 8000; i < n; i++) bt.a[i] = 7; /* and again later */
    ck_assert_int_eq(cgprop_graph_add_calls(bulk, n, bt.a, bt.b, bt.cnt, bt.cost, bt.ids), CGPROP_OK);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        ck_assert_int_eq(cgprop_graph_add_edge(one, bt.a[i], bt.b[i], bt.cnt[i], bt.cost + i, &id), CGPROP_OK);
        ck_assert_uint_eq(bt.ids[i], id);
    }
    check_model(bulk, 0, &bt, true);
    bulk->gen = one->gen;
    same_graph(bulk, one);
    free_batch(&bt);
    cgprop_graph_free(bulk);
    cgprop_graph_free(one);
}
END_TEST

/* Two graphs built the same way: the one a refused call was made on must
 * equal the other, generation included. */
static void twin(cgprop_graph **a, cgprop_graph **b, const cgprop_allocator *al)
{
    const char *m = "m0";
    ck_assert_int_eq(cgprop_graph_new(al, &m, NULL, 1, a), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, b), CGPROP_OK);
    cgprop_graph *g[2] = {*a, *b};
    for (int i = 0; i < 2; i++) {
        add_keys(g[i], 6);
        uint64_t c = 5;
        ck_assert_int_eq(cgprop_graph_add_edge(g[i], 0, 1, UINT64_MAX - 10, &c, NULL), CGPROP_OK);
        c = UINT64_MAX - 3;
        ck_assert_int_eq(cgprop_graph_add_edge(g[i], 1, 2, 1, &c, NULL), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_edge(g[i], 2, 3, 3, NULL, NULL), CGPROP_OK);
    }
}

static void refused(const uint32_t *a, const uint32_t *b, const uint64_t *cnt, const uint64_t *cost, size_t n,
                    int want, const char *msg)
{
    /* With and without the ids wanted (the undo keeps its own then). */
    for (int with_ids = 0; with_ids < 2; with_ids++) {
        cgprop_graph *g, *ref;
        twin(&g, &ref, NULL);
        uint32_t ids[8];
        ck_assert_int_eq(cgprop_graph_add_calls(g, n, a, b, cnt, cost, with_ids ? ids : NULL), want);
        if (msg) ck_assert_msg(strstr(cgprop_graph_errmsg(g), msg) != NULL, "message '%s' lacks '%s'",
                               cgprop_graph_errmsg(g), msg);
        same_graph(g, ref);
        same_lookups(g, ref);
        cgprop_graph_free(g);
        cgprop_graph_free(ref);
    }
}

START_TEST(test_refusals)
{
    static const uint64_t one[4] = {1, 1, 1, 1}, zero[4] = {0, 0, 0, 0};
    /* Count of an existing call (0 -> 1 holds 2^64 - 11) after calls that
     * were fine: new ones from a new caller, an old one added to. */
    static const uint32_t a1[4] = {4, 4, 2, 0}, b1[4] = {5, 1, 3, 1};
    static const uint64_t n1[4] = {1, 1, 1, 11};
    refused(a1, b1, n1, one, 4, CGPROP_EOVERFLOW, "call 3 (0 -> 1)");
    /* Within the batch, a new caller's repeated call. */
    static const uint32_t a2[3] = {5, 5, 5}, b2[3] = {4, 3, 4};
    static const uint64_t n2[3] = {UINT64_MAX, 0, 1};
    refused(a2, b2, n2, zero, 3, CGPROP_EOVERFLOW, "call 2 (5 -> 4)");
    /* A cost: 1 -> 2 costs 2^64 - 4. */
    static const uint32_t a3[2] = {4, 1}, b3[2] = {2, 2};
    static const uint64_t c3[2] = {1, 4}, n3[2] = {0, 0};
    refused(a3, b3, n3, c3, 2, CGPROP_EOVERFLOW, "cost would overflow");
    /* The calls into a function: 1 has 2^64 - 11 already. */
    static const uint32_t a4[2] = {3, 5}, b4[2] = {4, 1};
    static const uint64_t n4[2] = {1, 11};
    refused(a4, b4, n4, NULL, 2, CGPROP_EOVERFLOW, "callee's calls");
    /* Bad arguments: ids out of range, NULL arrays. */
    static const uint32_t a5[3] = {0, 1, 6}, b5[3] = {1, 2, 0};
    refused(a5, b5, n4, NULL, 3, CGPROP_EINVAL, "call 2");
    refused(b5, a5, n4, NULL, 3, CGPROP_EINVAL, "out of range");
    refused(NULL, b5, n4, NULL, 2, CGPROP_EINVAL, "NULL");
    refused(a5, NULL, n4, NULL, 2, CGPROP_EINVAL, "NULL");
    refused(a5, b5, NULL, NULL, 2, CGPROP_EINVAL, "NULL");
    refused(a5, b5, NULL, NULL, 0, CGPROP_OK, NULL); /* nothing to add: nothing changes */
    ck_assert_int_eq(cgprop_graph_add_calls(NULL, 1, a5, b5, n4, NULL, NULL), CGPROP_EINVAL);
    /* add_nodes: a NULL key of nonzero length, keys of 4 GiB, NULL arrays. */
    cgprop_graph *g, *ref;
    twin(&g, &ref, NULL);
    const char *keys[3] = {"new1", NULL, "f2"};
    size_t lens[3] = {4, 1, 2};
    uint32_t ids[3];
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 3, keys, lens, ids), CGPROP_EINVAL);
    lens[1] = (size_t)UINT32_MAX;
    keys[1] = "x";
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 3, keys, lens, ids), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 3, NULL, lens, ids), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 3, keys, lens, NULL), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_nodes(NULL, 3, keys, lens, ids), CGPROP_EINVAL);
    same_graph(g, ref);
    cgprop_graph_free(g);
    cgprop_graph_free(ref);
}
END_TEST

START_TEST(test_nodes)
{
    /* Keys new, repeated in the batch, already there; lens NULL. */
    cgprop_graph *g = tgraph(1, NULL);
    ck_assert_uint_eq(tnode(g, "b"), 0);
    const char *keys[6] = {"a", "b", "", "a", "c", ""};
    uint32_t ids[6];
    uint64_t gen = g->gen;
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 6, keys, NULL, ids), CGPROP_OK);
    static const uint32_t want[6] = {1, 0, 2, 1, 3, 2};
    for (int i = 0; i < 6; i++) ck_assert_uint_eq(ids[i], want[i]);
    ck_assert_uint_gt(g->gen, gen);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 4);
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_find_node(g, "c", 1, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 3);
    /* Nothing new: the generation stays. */
    gen = g->gen;
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 2, keys, NULL, ids), CGPROP_OK);
    ck_assert_uint_eq(g->gen, gen);
    /* Embedded NUL with lengths; many keys (the index grows). */
    const char *k2[2] = {"x\0y", "x\0z"};
    size_t l2[2] = {3, 3};
    ck_assert_int_eq(cgprop_graph_add_nodes(g, 2, k2, l2, ids), CGPROP_OK);
    ck_assert_uint_eq(ids[0], 4);
    ck_assert_uint_eq(ids[1], 5);
    enum { N = 5000 };
    static char buf[N][16];
    static const char *kp[N];
    static uint32_t out[N];
    for (int i = 0; i < N; i++) {
        snprintf(buf[i], sizeof buf[i], "k%d", i % 3000);
        kp[i] = buf[i];
    }
    ck_assert_int_eq(cgprop_graph_add_nodes(g, N, kp, NULL, out), CGPROP_OK);
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq(out[i], 6 + (uint32_t)(i % 3000));
        size_t len;
        const char *k = cgprop_graph_node_key(g, out[i], &len);
        ck_assert_uint_eq(len, strlen(buf[i]));
        ck_assert(memcmp(k, buf[i], len) == 0);
    }
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3006);
    cgprop_graph_free(g);
}
END_TEST

/* Large batches in random order (the sorted path): many repeats, calls
 * from before the batch (some in the index, some left out of it by an
 * earlier bulk batch), with and without costs and ids, against one call
 * at a time and the model. */
START_TEST(test_shuffled_against_single)
{
    for (int round = 0; round < 48; round++) {
        rng_state = 0x5A1E0000u + (uint64_t)round;
        uint32_t K = 1 + round % 2, nn = 2 + (uint32_t)(rnd() % (round % 3 ? 40 : 1500));
        uint32_t n = 64 + (uint32_t)(rnd() % 3000);
        bool costs = round % 5 != 4, pre = round % 4 != 0, want_ids = round % 6 != 5;
        cgprop_graph *bulk = tgraph(K, NULL), *one = tgraph(K, NULL);
        add_keys(bulk, nn);
        add_keys(one, nn);
        if (pre) {
            for (int i = 0; i < 30; i++) {
                uint32_t a = (uint32_t)(rnd() % nn), b = (uint32_t)(rnd() % nn);
                uint64_t c[2] = {rnd() % 9, rnd() % 9};
                ck_assert_int_eq(cgprop_graph_add_edge(bulk, a, b, 1, c, NULL), CGPROP_OK);
                ck_assert_int_eq(cgprop_graph_add_edge(one, a, b, 1, c, NULL), CGPROP_OK);
            }
            /* A grouped batch from a new caller: its calls stay out of the index. */
            uint32_t a[3] = {nn - 1, nn - 1, nn - 1}, b[3] = {0, nn / 2, 0};
            uint64_t cnt[3] = {1, 2, 3}, c[6] = {1, 2, 3, 4, 5, 6};
            if (!(bulk->nflags[nn - 1] & CGPROP__NF_HAS_CALLEE)) {
                ck_assert_int_eq(cgprop_graph_add_calls(bulk, 3, a, b, cnt, c, NULL), CGPROP_OK);
                for (int i = 0; i < 3; i++)
                    ck_assert_int_eq(cgprop_graph_add_edge(one, a[i], b[i], cnt[i], c + i * K, NULL), CGPROP_OK);
            }
        }
        uint32_t ne0 = bulk->ne;
        batch bt;
        make_batch(&bt, n, nn, K, false);
        const uint64_t *cs = costs ? bt.cost : NULL;
        uint64_t gen = bulk->gen;
        ck_assert_int_eq(cgprop_graph_add_calls(bulk, n, bt.a, bt.b, bt.cnt, cs, want_ids ? bt.ids : NULL), CGPROP_OK);
        ck_assert_uint_gt(bulk->gen, gen);
        uint32_t *ids = malloc(n * sizeof *ids);
        for (uint32_t i = 0; i < n; i++) {
            const uint64_t *c = cs ? cs + (size_t)i * K : NULL;
            ck_assert_int_eq(cgprop_graph_add_edge(one, bt.a[i], bt.b[i], bt.cnt[i], c, &ids[i]), CGPROP_OK);
        }
        if (want_ids) {
            for (uint32_t i = 0; i < n; i++) ck_assert_uint_eq(bt.ids[i], ids[i]);
            check_model(bulk, ne0, &bt, costs);
        } else {
            memcpy(bt.ids, ids, n * sizeof *ids);
        }
        free(ids);
        bulk->gen = one->gen;
        same_graph(bulk, one);
        if (nn <= 60) same_lookups(bulk, one);
        /* Single calls after it find its calls. */
        for (int i = 0; i < 20; i++) {
            uint32_t x = bt.a[rnd() % n], y = bt.b[rnd() % n], ia, ib;
            ck_assert_int_eq(cgprop_graph_add_edge(bulk, x, y, 1, NULL, &ia), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_add_edge(one, x, y, 1, NULL, &ib), CGPROP_OK);
            ck_assert_uint_eq(ia, ib);
        }
        /* The ids written over the callers (allowed: out is written, the
         * inputs only read): the same ids as one call at a time. */
        if (round % 8 == 3) {
            cgprop_graph *g3 = tgraph(K, NULL), *g4 = tgraph(K, NULL);
            add_keys(g3, nn);
            add_keys(g4, nn);
            uint32_t *al = malloc(n * sizeof *al);
            memcpy(al, bt.a, n * sizeof *al);
            ck_assert_int_eq(cgprop_graph_add_calls(g3, n, al, bt.b, bt.cnt, cs, al), CGPROP_OK);
            for (uint32_t i = 0; i < n; i++) {
                uint32_t id;
                const uint64_t *c = cs ? cs + (size_t)i * K : NULL;
                ck_assert_int_eq(cgprop_graph_add_edge(g4, bt.a[i], bt.b[i], bt.cnt[i], c, &id), CGPROP_OK);
                ck_assert_uint_eq(al[i], id);
            }
            g3->gen = g4->gen;
            same_graph(g3, g4);
            free(al);
            cgprop_graph_free(g3);
            cgprop_graph_free(g4);
        }
        free_batch(&bt);
        cgprop_graph_free(bulk);
        cgprop_graph_free(one);
    }
}
END_TEST

/* A batch of N calls in random order over twin()'s functions, callers
 * among 2 .. 5 and callees among `callees` (none overflows anything). */
enum { SN = 300 };
static void shuffled_fill(uint32_t *a, uint32_t *b, uint64_t *cnt, uint64_t *cost, const uint32_t *callees,
                          uint32_t ncallees)
{
    for (int i = 0; i < SN; i++) {
        a[i] = 2 + (uint32_t)(rnd() % 4);
        b[i] = callees[rnd() % ncallees];
        cnt[i] = rnd() % 4;
        cost[i] = rnd() % 100;
    }
}

/* Refused (message naming call `at`) with and without ids, the graph as it
 * was; with the call at `at` made harmless (count and cost 0), accepted and
 * the same as one call at a time. */
static void shuffled_refused(uint32_t *a, uint32_t *b, uint64_t *cnt, uint64_t *cost, uint32_t at, const char *why)
{
    char msg[64];
    snprintf(msg, sizeof msg, "call %u (%u -> %u)", at, a[at], b[at]);
    static uint32_t ids[SN], rid[SN];
    for (int with_ids = 0; with_ids < 2; with_ids++) {
        cgprop_graph *g, *ref;
        twin(&g, &ref, NULL);
        ck_assert_int_eq(cgprop_graph_add_calls(g, SN, a, b, cnt, cost, with_ids ? ids : NULL), CGPROP_EOVERFLOW);
        ck_assert_msg(strstr(cgprop_graph_errmsg(g), msg) != NULL, "message '%s' lacks '%s'", cgprop_graph_errmsg(g),
                      msg);
        ck_assert_msg(strstr(cgprop_graph_errmsg(g), why) != NULL, "message '%s' lacks '%s'", cgprop_graph_errmsg(g),
                      why);
        same_graph(g, ref);
        same_lookups(g, ref);
        cgprop_graph_free(g);
        cgprop_graph_free(ref);
    }
    uint64_t c0 = cnt[at], k0 = cost[at];
    cnt[at] = 0;
    cost[at] = 0;
    cgprop_graph *g, *ref;
    twin(&g, &ref, NULL);
    ck_assert_int_eq(cgprop_graph_add_calls(g, SN, a, b, cnt, cost, ids), CGPROP_OK);
    for (uint32_t i = 0; i < SN; i++)
        ck_assert_int_eq(cgprop_graph_add_edge(ref, a[i], b[i], cnt[i], cost + i, &rid[i]), CGPROP_OK);
    for (uint32_t i = 0; i < SN; i++) ck_assert_uint_eq(ids[i], rid[i]);
    g->gen = ref->gen;
    same_graph(g, ref);
    same_lookups(g, ref);
    cgprop_graph_free(g);
    cgprop_graph_free(ref);
    cnt[at] = c0;
    cost[at] = k0;
}

/* Overflow in a large batch in random order, at a position worked out by
 * hand from twin()'s sums: 0 -> 1 counts 2^64 - 11 (so 1's calls in too),
 * 1 -> 2 costs 2^64 - 4. */
START_TEST(test_shuffled_overflow)
{
    static uint32_t a[SN], b[SN];
    static uint64_t cnt[SN], cost[SN];
    static const uint32_t c1[3] = {2, 3, 5};
    rng_state = 0x0F10;
    /* An older call's count: +5 at 40 (2^64 - 6), +6 at 150 overflows. */
    shuffled_fill(a, b, cnt, cost, c1, 3);
    a[40] = a[150] = a[170] = 0;
    b[40] = b[150] = b[170] = 1;
    cnt[40] = 5, cnt[150] = 6, cnt[170] = 3;
    shuffled_refused(a, b, cnt, cost, 150, "count would overflow");
    /* A call new in the batch: 2^64 - 2 at 30, + 1 at 100 (2^64 - 1),
     * + 1 at 200 overflows; 4 is called by nothing else. */
    shuffled_fill(a, b, cnt, cost, c1, 3);
    a[30] = a[100] = a[200] = 5;
    b[30] = b[100] = b[200] = 4;
    cnt[30] = UINT64_MAX - 1, cnt[100] = 1, cnt[200] = 1;
    shuffled_refused(a, b, cnt, cost, 200, "count would overflow");
    /* An older call's cost: + 2 at 60 (2^64 - 2), + 2 at 250 overflows. */
    shuffled_fill(a, b, cnt, cost, c1, 3);
    a[60] = a[250] = 1;
    b[60] = b[250] = 2;
    cost[60] = 2, cost[250] = 2;
    shuffled_refused(a, b, cnt, cost, 250, "cost would overflow");
    /* Calls into 1 from new calls: + 4 at 20, + 6 at 120 (2^64 - 1), + 1 at
     * 280 overflows. */
    shuffled_fill(a, b, cnt, cost, c1, 3);
    a[20] = 3, a[120] = 5, a[280] = 4;
    b[20] = b[120] = b[280] = 1;
    cnt[20] = 4, cnt[120] = 6, cnt[280] = 1;
    shuffled_refused(a, b, cnt, cost, 280, "callee's calls");
}
END_TEST

/* Every allocation of a large batch in random order failing in turn
 * (the sort's scratch among them): refused with ENOMEM and the graph as
 * it was, or accepted (the general path taking over) and right. */
START_TEST(test_shuffled_alloc_failures)
{
    static uint32_t a[SN], b[SN], ids[SN], rid[SN];
    static uint64_t cnt[SN], cost[SN];
    static const uint32_t c2[5] = {0, 2, 3, 4, 5};
    rng_state = 0xA110C;
    shuffled_fill(a, b, cnt, cost, c2, 5);
    int ok_at = -1;
    for (long left = 0; left < 200 && ok_at < 0; left++) {
        tfail f;
        cgprop_allocator al = tfail_allocator(&f, -1);
        cgprop_graph *g, *ref;
        twin(&g, &ref, &al);
        if (left & 1) { /* calls of the index and calls left out of it */
            static const uint32_t pa[2] = {4, 4}, pb[2] = {2, 5};
            static const uint64_t pn[2] = {1, 2}, pc[2] = {3, 4};
            ck_assert_int_eq(cgprop_graph_add_calls(g, 2, pa, pb, pn, pc, NULL), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_add_calls(ref, 2, pa, pb, pn, pc, NULL), CGPROP_OK);
        }
        f.left = left / 2;
        int rc = cgprop_graph_add_calls(g, SN, a, b, cnt, cost, left & 2 ? NULL : ids);
        f.left = -1;
        if (rc == CGPROP_OK) {
            if (!(left & 1)) ok_at = (int)left;
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            same_graph(g, ref);
            same_lookups(g, ref);
            ck_assert_int_eq(cgprop_graph_add_calls(g, SN, a, b, cnt, cost, left & 2 ? NULL : ids), CGPROP_OK);
        }
        for (uint32_t i = 0; i < SN; i++)
            ck_assert_int_eq(cgprop_graph_add_edge(ref, a[i], b[i], cnt[i], cost + i, &rid[i]), CGPROP_OK);
        for (uint32_t i = 0; !(left & 2) && i < SN; i++) ck_assert_uint_eq(ids[i], rid[i]);
        g->gen = ref->gen;
        same_graph(g, ref);
        same_lookups(g, ref);
        cgprop_graph_free(g);
        cgprop_graph_free(ref);
        ck_assert_int_eq(f.live, 0);
    }
    ck_assert_int_gt(ok_at, 0);
}
END_TEST

/* Every allocation of a batch failing in turn: ENOMEM, the graph as it was
 * (and as usable: the same batch then succeeds), nothing leaked. */
START_TEST(test_alloc_failures)
{
    static const uint32_t a[10] = {4, 4, 5, 5, 2, 2, 4, 0, 3, 3}, b[10] = {5, 4, 0, 0, 3, 0, 1, 2, 3, 5};
    static const uint64_t n[10] = {1, 2, 3, 4, 5, 6, 7, 0, 1, 1}, c[10] = {1, 0, 3, 0, 5, 0, 7, 0, 9, 1};
    int ok_at = -1;
    for (long left = 0; left < 200 && ok_at < 0; left++) {
        tfail f;
        cgprop_allocator al = tfail_allocator(&f, -1);
        cgprop_graph *g, *ref;
        twin(&g, &ref, &al);
        if (left & 1) { /* with the call index already built, and with calls left out of it */
            ck_assert_int_eq(cgprop_graph_add_calls(g, 2, a + 8, b + 8, n + 8, c + 8, NULL), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_add_calls(ref, 2, a + 8, b + 8, n + 8, c + 8, NULL), CGPROP_OK);
        }
        f.left = left / 2;
        uint32_t ids[10], rid[10];
        int rc = cgprop_graph_add_calls(g, 10, a, b, n, c, left & 2 ? NULL : ids);
        f.left = -1;
        if (rc == CGPROP_OK) {
            if (!(left & 1)) ok_at = (int)left;
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            same_graph(g, ref);
            same_lookups(g, ref);
        }
        if (rc != CGPROP_OK || (left & 2)) {
            /* Undone (or ids not asked for): the same batch again, now
             * with the ids and all the memory it wants. */
            if (rc == CGPROP_OK) {
                g->gen = ref->gen;
                ck_assert_int_eq(cgprop_graph_add_calls(ref, 10, a, b, n, c, rid), CGPROP_OK);
            }
            ck_assert_int_eq(cgprop_graph_add_calls(g, 10, a, b, n, c, ids), CGPROP_OK);
        }
        ck_assert_int_eq(cgprop_graph_add_calls(ref, 10, a, b, n, c, rid), CGPROP_OK);
        for (int i = 0; i < 10; i++) ck_assert_uint_eq(ids[i], rid[i]);
        g->gen = ref->gen;
        same_graph(g, ref);
        same_lookups(g, ref);
        cgprop_graph_free(g);
        cgprop_graph_free(ref);
        ck_assert_int_eq(f.live, 0);
    }
    ck_assert_int_gt(ok_at, 0); /* some allocation was made, and failed, before success */
    /* The same for add_nodes, with enough new keys (and a long one) that the
     * arrays, the key index and the key blocks all grow. */
    enum { NK = 100 };
    static char kb[NK][16];
    static char big[10000];
    const char *keys[NK];
    for (int i = 0; i < NK; i++) {
        snprintf(kb[i], sizeof kb[i], "n%d", i % 90);
        keys[i] = kb[i];
    }
    keys[0] = "f1";
    keys[2] = "new";
    keys[5] = "new";
    memset(big, 'x', sizeof big - 1);
    keys[7] = big;
    ok_at = -1;
    for (long left = 0; left < 100 && ok_at < 0; left++) {
        tfail f;
        cgprop_allocator al = tfail_allocator(&f, -1);
        cgprop_graph *g, *ref;
        twin(&g, &ref, &al);
        f.left = left;
        uint32_t ids[NK];
        int rc = cgprop_graph_add_nodes(g, NK, keys, NULL, ids);
        f.left = -1;
        if (rc == CGPROP_OK) {
            ok_at = (int)left;
            /* By hand: f1 is 1; n1 6, new 7, n3 8, n4 9, new again 7, n6 10,
             * the long key 11, then n8 .. n89 12 .. 93, then n0 .. n9. */
            ck_assert_uint_eq(ids[0], 1);
            ck_assert_uint_eq(ids[1], 6);
            ck_assert_uint_eq(ids[2], 7);
            ck_assert_uint_eq(ids[5], 7);
            ck_assert_uint_eq(ids[6], 10);
            ck_assert_uint_eq(ids[7], 11);
            ck_assert_uint_eq(ids[89], 93);
            ck_assert_uint_eq(ids[91], 6);
            ck_assert_uint_eq(ids[96], 10);
            /* n0, n2, n5, n7 first come in the second round (their first
             * places held f1, new, new and the long key): 94 .. 97. */
            ck_assert_uint_eq(ids[90], 94);
            ck_assert_uint_eq(ids[92], 95);
            ck_assert_uint_eq(ids[95], 96);
            ck_assert_uint_eq(ids[97], 97);
            ck_assert_uint_eq(cgprop_graph_node_count(g), 98);
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            same_graph(g, ref);
            uint32_t id;
            ck_assert_int_eq(cgprop_graph_find_node(g, "new", 3, &id), CGPROP_ENOTFOUND);
        }
        cgprop_graph_free(g);
        cgprop_graph_free(ref);
        ck_assert_int_eq(f.live, 0);
    }
    ck_assert_int_gt(ok_at, 0);
}
END_TEST

/* A batch too wide for one sort word: 2^21 + 1 functions (22-bit ids, a
 * 44-bit pair) and 2^20 + 1 calls (21-bit positions), 65 bits together, so
 * the positions go through the sort beside the keys. Against the same calls
 * added one at a time (the index path, no sorting), with calls from before
 * the batch among them. Minutes under valgrind: it runs with the scale
 * cases (CGPROP_BULK_WIDE set), a no-op otherwise. */
START_TEST(test_wide_batch)
{
    if (!getenv("CGPROP_BULK_WIDE")) return;
    const uint32_t nn = (1u << 21) + 1, n = (1u << 20) + 1, npool = 1u << 18;
    rng_state = 0x3D1DE000u;
    cgprop_graph *bulk = tgraph(1, NULL), *one = tgraph(1, NULL);
    char key[32];
    for (uint32_t i = 0; i < nn; i++) {
        int len = snprintf(key, sizeof key, "f%u", i);
        uint32_t ia, ib;
        ck_assert_int_eq(cgprop_graph_add_node(bulk, key, (size_t)len, &ia), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_node(one, key, (size_t)len, &ib), CGPROP_OK);
        ck_assert_uint_eq(ia, i);
        ck_assert_uint_eq(ib, i);
    }
    uint32_t *pa = malloc(npool * sizeof *pa), *pb = malloc(npool * sizeof *pb);
    for (uint32_t i = 0; i < npool; i++) {
        pa[i] = (uint32_t)(rnd() % nn);
        pb[i] = (uint32_t)(rnd() % nn);
    }
    /* Calls from before the batch: a thousand of the pool's pairs. */
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t p = (uint32_t)(rnd() % npool);
        uint64_t c = rnd() % 50;
        ck_assert_int_eq(cgprop_graph_add_edge(bulk, pa[p], pb[p], 1, &c, NULL), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_edge(one, pa[p], pb[p], 1, &c, NULL), CGPROP_OK);
    }
    batch bt;
    bt.n = n;
    bt.a = malloc(n * sizeof *bt.a);
    bt.b = malloc(n * sizeof *bt.b);
    bt.ids = malloc(n * sizeof *bt.ids);
    bt.cnt = malloc(n * sizeof *bt.cnt);
    bt.cost = malloc(n * sizeof *bt.cost);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = (uint32_t)(rnd() % npool);
        bt.a[i] = pa[p];
        bt.b[i] = pb[p];
        bt.cnt[i] = 1 + rnd() % 4;
        bt.cost[i] = rnd() % 100;
    }
    ck_assert_int_eq(cgprop_graph_add_calls(bulk, n, bt.a, bt.b, bt.cnt, bt.cost, bt.ids), CGPROP_OK);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        ck_assert_int_eq(cgprop_graph_add_edge(one, bt.a[i], bt.b[i], bt.cnt[i], bt.cost + i, &id), CGPROP_OK);
        if (id != bt.ids[i]) ck_abort_msg("call %u: id %u in bulk, %u one at a time", i, bt.ids[i], id);
    }
    bulk->gen = one->gen;
    same_graph(bulk, one);
    free(pa);
    free(pb);
    free_batch(&bt);
    cgprop_graph_free(bulk);
    cgprop_graph_free(one);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("bulk");
    TCase *t = tcase_create("bulk");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_random_against_single);
    tcase_add_test(t, test_long_runs);
    tcase_add_test(t, test_refusals);
    tcase_add_test(t, test_nodes);
    tcase_add_test(t, test_alloc_failures);
    tcase_add_test(t, test_shuffled_against_single);
    tcase_add_test(t, test_shuffled_overflow);
    tcase_add_test(t, test_shuffled_alloc_failures);
    suite_add_tcase(s, t);
    TCase *w = tcase_create("wide");
    tcase_set_timeout(w, 600);
    tcase_add_test(w, test_wide_batch);
    suite_add_tcase(s, w);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
