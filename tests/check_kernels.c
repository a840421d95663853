/* The tuned kernels against the plain reference kernels beside them, on
 * random graphs: propagate's batched bit-parallel search against one
 * breadth-first search per entry, and collapse's prefetching walk against
 * the plain recurrence. Both must give the same figures (to rounding: the
 * sums run in another order) and keep the same calls. */
#include "analysis.h"

#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t next(rng *r, uint32_t n)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((r->s >> 33) % n);
}

/* nn functions, about ne calls. Some calls have no cost, some weigh 0, a
 * few functions have spontaneous entries, some self-calls. The calls'
 * costs of the first metric are multiplied by scale. */
static cgprop_graph *random_graph_scaled(uint64_t seed, uint32_t nn, uint32_t ne, bool counts_only, uint64_t scale)
{
    static const char *const names[2] = {"a", "b"};
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, &g), CGPROP_OK);
    rng r = {seed};
    char key[32];
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t id;
        int n = snprintf(key, sizeof key, "f%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)n, &id), CGPROP_OK);
        uint64_t s[2] = {next(&r, 100), next(&r, 3) ? next(&r, 1000) : 0};
        ck_assert_int_eq(cgprop_graph_add_self(g, id, s), CGPROP_OK);
    }
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t u = next(&r, nn), v = next(&r, nn);
        uint64_t c[2] = {(next(&r, 4) ? next(&r, 500) : 0) * scale, next(&r, 50)};
        uint64_t cnt = next(&r, 5);
        ck_assert_int_eq(cgprop_graph_add_edge(g, u, v, cnt, counts_only ? NULL : c, NULL), CGPROP_OK);
    }
    for (uint32_t i = 0; i < nn; i += 1 + next(&r, 7)) {
        uint64_t c[2] = {next(&r, 300), next(&r, 30)};
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g, i, 1 + next(&r, 3), c), CGPROP_OK);
    }
    return g;
}

static cgprop_graph *random_graph(uint64_t seed, uint32_t nn, uint32_t ne, bool counts_only)
{
    return random_graph_scaled(seed, nn, ne, counts_only, 1);
}

static double program_total(cgprop_graph *g, uint32_t k)
{
    double t = 1;
    for (uint32_t n = 0; n < cgprop_graph_node_count(g); n++) {
        cgprop_node_row row;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, n, &row, sizeof row), CGPROP_OK);
        t += (double)row.self + (double)row.spont_cost;
    }
    return t;
}

/* Returns the number of cycle members with a non-zero total, so the
 * callers can tell a case that exercised the cycle code from one that did
 * not. */
static uint32_t compare(cgprop_graph *g, uint32_t share, const char *what)
{
    size_t nn = cgprop_graph_node_count(g), ne = cgprop_graph_edge_count(g), K = 2;
    double *t1 = calloc(nn * K, sizeof *t1), *t2 = calloc(nn * K, sizeof *t2);
    double *e1 = calloc(ne * K + 1, sizeof *e1), *e2 = calloc(ne * K + 1, sizeof *e2);
    double *v1 = calloc(nn * K, sizeof *v1), *v2 = calloc(nn * K, sizeof *v2);
    double *c1 = calloc(nn * K, sizeof *c1), *c2 = calloc(nn * K, sizeof *c2);
    uint8_t *k1 = calloc(ne * K + 1, 1), *k2 = calloc(ne * K + 1, 1);
    ck_assert(t1 && t2 && e1 && e2 && v1 && v2 && c1 && c2 && k1 && k2);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop__collapse_reference(g, share, false, v1, c1), CGPROP_OK);
    ck_assert_int_eq(cgprop__collapse_reference(g, share, true, v2, c2), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, share), CGPROP_OK);
    ck_assert_int_eq(cgprop__propagate_reference(g, false, t1, e1, k1), CGPROP_OK);
    ck_assert_int_eq(cgprop__propagate_reference(g, true, t2, e2, k2), CGPROP_OK);
    uint32_t members = 0;
    for (uint32_t k = 0; k < K; k++) {
        double tol = 1e-9 * program_total(g, k);
        for (size_t n = 0; n < nn; n++) {
            size_t i = n * K + k;
            ck_assert_msg(fabs(v1[i] - v2[i]) <= tol, "%s: collapse vertex total of %zu metric %u: tuned %.17g, plain %.17g",
                          what, n, k, v1[i], v2[i]);
            ck_assert_msg(fabs(c1[i] - c2[i]) <= tol, "%s: gprof child of %zu metric %u: tuned %.17g, plain %.17g", what,
                          n, k, c1[i], c2[i]);
            ck_assert_msg(fabs(t1[i] - t2[i]) <= tol, "%s: per-root total of %zu metric %u: tuned %.17g, plain %.17g",
                          what, n, k, t1[i], t2[i]);
            uint32_t cyc;
            ck_assert_int_eq(cgprop_graph_node_cycle(g, (uint32_t)n, &cyc), CGPROP_OK);
            if (cyc != CGPROP_NONE && t2[i] > 0) members++;
        }
        for (size_t e = 0; e < ne; e++) {
            size_t i = e * K + k;
            ck_assert_msg(k1[i] == k2[i], "%s: call %zu metric %u kept by tuned %d, plain %d", what, e, k, k1[i], k2[i]);
            ck_assert_msg(fabs(e1[i] - e2[i]) <= tol, "%s: call %zu metric %u: tuned %.17g, plain %.17g", what, e, k,
                          e1[i], e2[i]);
        }
    }
    free(t1), free(t2), free(e1), free(e2), free(v1), free(v2), free(c1), free(c2), free(k1), free(k2);
    return members;
}

START_TEST(small_random)
{
    /* Small graphs: many cycles of a few members, several entries each. */
    uint32_t exercised = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint32_t nn = 3 + (uint32_t)(seed % 25);
        cgprop_graph *g = random_graph(seed, nn, nn * (1 + (uint32_t)(seed % 4)), seed % 5 == 0);
        char what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        exercised += compare(g, (uint32_t)(seed % 3), what) > 0;
        cgprop_graph_free(g);
    }
    ck_assert_uint_gt(exercised, 200); /* most cases reached cycle members with totals */
}
END_TEST

START_TEST(large_random)
{
    /* One giant cycle with hundreds of entries: more entries than a batch
     * holds, and levels big enough for the tuned kernel's bottom-up pass. */
    cgprop_graph *g = random_graph(77, 3000, 15000, false);
    ck_assert_uint_gt(compare(g, CGPROP_SHARE_COST, "giant"), 2000);
    cgprop_graph_free(g);
    g = random_graph(78, 3000, 12000, true);
    ck_assert_uint_gt(compare(g, CGPROP_SHARE_COUNT, "giant, counts"), 2000);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(wide_weights)
{
    /* Call costs past 32 bits in the first metric (the tuned kernel keeps
     * weights that fit 32 bits as integers; these do not), small ones in
     * the second, on the giant cycle and on small ones. */
    cgprop_graph *g = random_graph_scaled(79, 3000, 15000, false, (uint64_t)1 << 33);
    ck_assert_uint_gt(compare(g, CGPROP_SHARE_COST, "giant, wide"), 2000);
    cgprop_graph_free(g);
    uint32_t exercised = 0;
    for (uint64_t seed = 301; seed <= 400; seed++) {
        uint32_t nn = 3 + (uint32_t)(seed % 25);
        g = random_graph_scaled(seed, nn, nn * (1 + (uint32_t)(seed % 4)), false, ((uint64_t)1 << 32) + seed);
        char what[64];
        snprintf(what, sizeof what, "wide, seed %llu", (unsigned long long)seed);
        exercised += compare(g, CGPROP_SHARE_COST, what) > 0;
        cgprop_graph_free(g);
    }
    ck_assert_uint_gt(exercised, 60);
}
END_TEST

/* A cycle where one member h is first reached from a big level through
 * all its n_a callers at once: e calls a_1..a_n, each a_i calls h and
 * three other a_j, h calls e. Every a_i -> h is then kept on the same big
 * level: hundreds of kept in-calls of one callee, one stretch of the
 * level's calls by callee, longer than the chunks in which the tuned
 * kernel takes a big level's kept calls. With zero_hub, all of them weigh
 * 0 (h's share split evenly). */
static cgprop_graph *hub_graph(uint32_t n_a, bool zero_hub)
{
    static const char *const names[2] = {"a", "b"};
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, &g), CGPROP_OK);
    rng r = {n_a * 2 + zero_hub};
    char key[32];
    uint32_t nn = n_a + 2; /* 0: e, 1: h, 2..: a_i */
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t id;
        int n = snprintf(key, sizeof key, "f%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)n, &id), CGPROP_OK);
        uint64_t sc[2] = {1 + next(&r, 100), next(&r, 10)};
        if (i == 1) sc[0] = 1000000, sc[1] = 100000; /* h's share dominates the calls into it */
        ck_assert_int_eq(cgprop_graph_add_self(g, id, sc), CGPROP_OK);
    }
    uint64_t c[2];
    for (uint32_t i = 2; i < nn; i++) {
        c[0] = 1 + next(&r, 50), c[1] = next(&r, 5);
        ck_assert_int_eq(cgprop_graph_add_edge(g, 0, i, 1 + next(&r, 3), c, NULL), CGPROP_OK);
        c[0] = zero_hub ? 0 : 1 + next(&r, 50), c[1] = zero_hub ? 0 : next(&r, 5);
        ck_assert_int_eq(cgprop_graph_add_edge(g, i, 1, 1 + next(&r, 3), c, NULL), CGPROP_OK);
        for (int t = 0; t < 3; t++) {
            c[0] = 1 + next(&r, 50), c[1] = next(&r, 5);
            ck_assert_int_eq(cgprop_graph_add_edge(g, i, 2 + next(&r, n_a), 1 + next(&r, 3), c, NULL), CGPROP_OK);
        }
    }
    c[0] = 7, c[1] = 1;
    ck_assert_int_eq(cgprop_graph_add_edge(g, 1, 0, 2, c, NULL), CGPROP_OK);
    /* Entries: e, and some a_i (their BFS reaches h from level 0 or 2). */
    for (uint32_t i = 0; i < nn; i += 1 + next(&r, 40)) {
        uint64_t sp[2] = {1 + next(&r, 300), next(&r, 30)};
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g, i == 1 ? 0 : i, 1, sp), CGPROP_OK);
    }
    return g;
}

START_TEST(hub_callee)
{
    for (int z = 0; z < 2; z++) {
        cgprop_graph *g = hub_graph(700, z != 0);
        ck_assert_uint_gt(compare(g, CGPROP_SHARE_COST, z ? "hub, zero weights" : "hub"), 600);
        cgprop_graph_free(g);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kernels");
    TCase *tc = tcase_create("kernels");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, small_random);
    tcase_add_test(tc, large_random);
    tcase_add_test(tc, wide_weights);
    tcase_add_test(tc, hub_callee);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? 1 : 0;
}
