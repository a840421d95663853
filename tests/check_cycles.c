/* Cycle detection (docs/PROPAGATION.md): hand-made graphs, a brute-force
 * transitive-closure oracle on random graphs, and deep graphs under a small
 * stack limit. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <cgprop.h>

#include "analysis.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static cgprop_graph *new_graph(uint32_t nn)
{
    const char *names[] = {"cost"};
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    char key[32];
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t id;
        int len = snprintf(key, sizeof key, "f%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)len, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
    }
    return g;
}

static void edge(cgprop_graph *g, uint32_t a, uint32_t b)
{
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, NULL, NULL), CGPROP_OK);
}

static uint32_t cyc(cgprop_graph *g, uint32_t n)
{
    uint32_t c = 12345;
    ck_assert_int_eq(cgprop_graph_node_cycle(g, n, &c), CGPROP_OK);
    return c;
}

/* Members of cycle c through the public iterator. */
static uint32_t members(cgprop_graph *g, uint32_t c, uint32_t *out, uint32_t cap)
{
    cgprop_iter *it;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_MEMBERS, 0, c, &it), CGPROP_OK);
    uint32_t n = 0;
    cgprop_member_row row;
    int rc;
    while ((rc = cgprop_iter_next(it, &row, sizeof row)) == CGPROP_OK) {
        ck_assert_uint_eq(row.cycle, c);
        ck_assert_uint_lt(n, cap);
        out[n++] = row.node;
    }
    ck_assert_int_eq(rc, CGPROP_DONE);
    cgprop_iter_free(it);
    return n;
}

START_TEST(test_args)
{
    size_t nc = 99;
    uint32_t c;
    ck_assert_int_eq(cgprop_graph_find_cycles(NULL, &nc), CGPROP_EINVAL);
    ck_assert_uint_eq(nc, 0);
    cgprop_graph *g = new_graph(2);
    ck_assert_int_eq(cgprop_graph_node_cycle(NULL, 0, &c), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, 0, NULL), CGPROP_EINVAL);
    /* Not run yet: out of order. */
    ck_assert_int_eq(cgprop_graph_node_cycle(g, 0, &c), CGPROP_ESTATE);
    ck_assert_str_ne(cgprop_graph_errmsg(g), "");
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 0);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, 2, &c), CGPROP_EINVAL);
    ck_assert_uint_eq(cyc(g, 1), CGPROP_NONE);
    /* A mutation makes the result stale. */
    edge(g, 0, 1);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, 0, &c), CGPROP_ESTATE);
    cgprop_iter *it;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CYCLES, 0, 0, &it), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_uint_eq(cyc(g, 0), CGPROP_NONE);
    cgprop_graph_free(g);

    /* An empty graph has no cycles. */
    g = new_graph(0);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_self_recursive)
{
    /* main -> f, f -> f: f is self-recursive, not a cycle. */
    cgprop_graph *g = new_graph(2);
    edge(g, 0, 1);
    edge(g, 1, 1);
    size_t nc = 99;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 0);
    ck_assert_uint_eq(cyc(g, 1), CGPROP_NONE);
    cgprop_node_row row;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 1, &row, sizeof row), CGPROP_OK);
    ck_assert(row.flags & CGPROP_F_SELF_RECURSIVE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, &row, sizeof row), CGPROP_OK);
    ck_assert(!(row.flags & CGPROP_F_SELF_RECURSIVE));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_two_cycle_root)
{
    /* The SCC holds the first DFS root (node 0): KCachegrind misses this one. */
    cgprop_graph *g = new_graph(3);
    edge(g, 0, 1);
    edge(g, 1, 0);
    edge(g, 1, 2);
    size_t nc;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 1);
    ck_assert_uint_eq(cyc(g, 0), 0);
    ck_assert_uint_eq(cyc(g, 1), 0);
    ck_assert_uint_eq(cyc(g, 2), CGPROP_NONE);
    uint32_t m[4];
    ck_assert_uint_eq(members(g, 0, m, 4), 2);
    ck_assert_uint_eq(m[0], 0);
    ck_assert_uint_eq(m[1], 1);
    cgprop_cycle_row cr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cr, sizeof cr), CGPROP_OK);
    ck_assert_uint_eq(cr.id, 0);
    ck_assert_uint_eq(cr.nmembers, 2);
    ck_assert_uint_eq(cr.first, 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_id_order)
{
    /* DFS from 0 meets cycle {5,6} (through 1) before cycle {2,4} (through
     * 3), and finishes {5,6} first; ids still follow the smallest member:
     * {2,4} -> 0, {5,6} -> 1, and the nested {7,8,9} -> 2. */
    cgprop_graph *g = new_graph(10);
    edge(g, 0, 1);
    edge(g, 1, 6);
    edge(g, 6, 5);
    edge(g, 5, 6);
    edge(g, 0, 3);
    edge(g, 3, 4);
    edge(g, 4, 2);
    edge(g, 2, 4);
    edge(g, 2, 9);
    edge(g, 9, 8);
    edge(g, 8, 7);
    edge(g, 7, 9);
    edge(g, 8, 8);
    size_t nc;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 3);
    uint32_t want[10] = {CGPROP_NONE, CGPROP_NONE, 0, CGPROP_NONE, 0, 1, 1, 2, 2, 2};
    for (uint32_t i = 0; i < 10; i++) ck_assert_uint_eq(cyc(g, i), want[i]);
    uint32_t m[4];
    ck_assert_uint_eq(members(g, 2, m, 4), 3);
    ck_assert_uint_eq(m[0], 7);
    ck_assert_uint_eq(m[1], 8);
    ck_assert_uint_eq(m[2], 9);
    /* The cycles iterator yields them in id order with their first member. */
    cgprop_iter *it;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CYCLES, 0, 0, &it), CGPROP_OK);
    ck_assert_uint_eq(cgprop_iter_count(it), 3);
    uint32_t firsts[3] = {2, 5, 7}, i = 0;
    cgprop_cycle_row cr;
    while (cgprop_iter_next(it, &cr, sizeof cr) == CGPROP_OK) {
        ck_assert_uint_eq(cr.id, i);
        ck_assert_uint_eq(cr.first, firsts[i]);
        i++;
    }
    ck_assert_uint_eq(i, 3);
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

/* ---- random graphs against a transitive-closure oracle ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng_state >> 33) % n);
}

START_TEST(test_random_oracle)
{
    rng_state = 42 + (uint64_t)_i;
    enum { MAXN = 40 };
    for (int round = 0; round < 100; round++) {
        uint32_t n = 1 + rnd(MAXN);
        uint32_t ne = rnd(3 * n + 1);
        static unsigned char adj[MAXN][MAXN];
        memset(adj, 0, sizeof adj);
        uint32_t ea[3 * MAXN + 1], eb[3 * MAXN + 1];
        for (uint32_t e = 0; e < ne; e++) {
            ea[e] = rnd(n);
            eb[e] = rnd(n);
            adj[ea[e]][eb[e]] = 1;
        }
        /* Two graphs, same calls, edges added in opposite orders. */
        cgprop_graph *g1 = new_graph(n), *g2 = new_graph(n);
        for (uint32_t e = 0; e < ne; e++) edge(g1, ea[e], eb[e]);
        for (uint32_t e = ne; e-- > 0;) edge(g2, ea[e], eb[e]);
        size_t nc1, nc2;
        ck_assert_int_eq(cgprop_graph_find_cycles(g1, &nc1), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_find_cycles(g2, &nc2), CGPROP_OK);
        ck_assert_uint_eq(nc1, nc2);

        /* Oracle: reach[u][v] by Floyd–Warshall closure over paths of length >= 1. */
        static unsigned char reach[MAXN][MAXN];
        memcpy(reach, adj, sizeof reach);
        for (uint32_t k = 0; k < n; k++)
            for (uint32_t i = 0; i < n; i++)
                if (reach[i][k])
                    for (uint32_t j = 0; j < n; j++)
                        if (reach[k][j]) reach[i][j] = 1;
        /* Oracle cycle ids: scan nodes ascending, a node in an SCC of size
         * >= 2 (reaches some other node that reaches it back) whose smallest
         * co-member is itself opens the next id. */
        uint32_t want[MAXN], next = 0;
        for (uint32_t v = 0; v < n; v++) {
            want[v] = CGPROP_NONE;
            for (uint32_t u = 0; u < n; u++)
                if (u != v && reach[u][v] && reach[v][u]) {
                    if (u < v) want[v] = want[u];
                    break;
                }
            if (want[v] == CGPROP_NONE)
                for (uint32_t u = v + 1; u < n; u++)
                    if (reach[u][v] && reach[v][u]) {
                        want[v] = next++;
                        break;
                    }
        }
        ck_assert_uint_eq(nc1, next);
        for (uint32_t v = 0; v < n; v++) {
            ck_assert_uint_eq(cyc(g1, v), want[v]);
            ck_assert_uint_eq(cyc(g2, v), want[v]);
        }
        for (uint32_t c = 0; c < next; c++) {
            uint32_t m[MAXN], cnt = members(g1, c, m, MAXN), expect = 0;
            for (uint32_t i = 1; i < cnt; i++) ck_assert_uint_lt(m[i - 1], m[i]);
            for (uint32_t i = 0; i < cnt; i++) ck_assert_uint_eq(want[m[i]], c);
            for (uint32_t v = 0; v < n; v++) expect += want[v] == c;
            ck_assert_uint_eq(cnt, expect);
        }
        /* The private order lists each node once, callers before callees
         * across SCCs (what collapse and propagation walk). */
        const uint32_t *ord = cgprop__cycles_order(g1);
        uint32_t pos[MAXN];
        for (uint32_t v = 0; v < n; v++) pos[v] = CGPROP_NONE;
        for (uint32_t i = 0; i < n; i++) {
            ck_assert_uint_eq(pos[ord[i]], CGPROP_NONE);
            pos[ord[i]] = i;
        }
        for (uint32_t u = 0; u < n; u++)
            for (uint32_t v = 0; v < n; v++)
                if (adj[u][v] && !(reach[v][u])) ck_assert_uint_lt(pos[u], pos[v]);
        cgprop_graph_free(g1);
        cgprop_graph_free(g2);
    }
}
END_TEST

/* ---- deep graphs under a 1 MiB stack ---- */

static void small_stack(void)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_STACK, &rl), 0);
    rl.rlim_cur = 1024 * 1024;
    ck_assert_int_eq(setrlimit(RLIMIT_STACK, &rl), 0);
}

/* Check's fork mode runs each test in its own child, so the lowered limit
 * does not leak. To show the limit bites, a child of this test recurses far
 * deeper than 1 MiB allows and must not finish normally (a signal, or a
 * sanitizer's non-zero exit). Each frame hands its buffer to the next, so
 * no compiler can turn the recursion into a loop. */
static uint32_t deep_recursion(uint32_t n, volatile char *up)
{
    volatile char pad[64];
    pad[0] = (char)(up[0] + 1);
    if (n == 0) return (uint32_t)pad[0];
    return deep_recursion(n - 1, pad) + (uint32_t)pad[0];
}

START_TEST(test_small_stack_bites)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct rlimit rl;
        if (getrlimit(RLIMIT_STACK, &rl) != 0) _exit(0);
        rl.rlim_cur = 1024 * 1024;
        if (setrlimit(RLIMIT_STACK, &rl) != 0) _exit(0);
        /* A sanitizer's report of the overflow is expected; keep it quiet. */
        if (!freopen("/dev/null", "w", stderr)) _exit(0);
        volatile char seed[1] = {0};
        uint32_t r = deep_recursion(1000000, seed);
        _exit(r == 12345 ? 3 : 0);
    }
    int st = 0;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 0));
}
END_TEST

/* Building ten million keyed functions is what costs in the deep graphs
 * (the analyses take seconds), so sanitizer and valgrind runs use smaller
 * ones; the stack limit is the same. */
static cgprop_graph *big_graph(uint32_t n)
{
    const char *names[] = {"cost"};
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    char key[32];
    uint64_t one = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        int len = snprintf(key, sizeof key, "f%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)len, &id), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_self(g, id, &one), CGPROP_OK);
    }
    return g;
}

static double total_of(cgprop_graph *g, uint32_t n)
{
    cgprop_total_row tr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, n, &tr, sizeof tr), CGPROP_OK);
    return tr.total;
}

START_TEST(test_deep_chain)
{
    /* f0 -> f1 -> ... -> f(N-1), self 1 each: T(fi) = N - i. */
    uint32_t N = tsize_from("CGPROP_DEEP_CHAIN", 10000000, 2000000, 200000);
    cgprop_graph *g = big_graph(N);
    for (uint32_t i = 0; i + 1 < N; i++)
        ck_assert_int_eq(cgprop_graph_add_edge(g, i, i + 1, 1, NULL, NULL), CGPROP_OK);
    small_stack();
    size_t nc = 99;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 0);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    ck_assert_double_eq(total_of(g, 0), (double)N);
    ck_assert_double_eq(total_of(g, N / 2), (double)(N - N / 2));
    ck_assert_double_eq(total_of(g, N - 1), 1.0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_deep_cycle)
{
    /* Ring f0 -> f1 -> ... -> f(M-1) -> f0 with no caller: a root cycle,
     * entry assumed at f0. BFS ranks fi at i, the closing call is in no DAG,
     * so fi's total is Σ_{j >= i} S = M - i. */
    uint32_t M = tsize_from("CGPROP_DEEP_CYCLE", 1000000, 1000000, 100000);
    cgprop_graph *g = big_graph(M);
    for (uint32_t i = 0; i < M; i++)
        ck_assert_int_eq(cgprop_graph_add_edge(g, i, (i + 1) % M, 1, NULL, NULL), CGPROP_OK);
    small_stack();
    size_t nc = 0;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 1);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    cgprop_cycle_row cr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cr, sizeof cr), CGPROP_OK);
    ck_assert_uint_eq(cr.nmembers, M);
    ck_assert_double_eq(cr.total, (double)M);
    ck_assert(cr.flags & CGPROP_F_ENTRY_ASSUMED);
    ck_assert_double_eq(total_of(g, 0), (double)M);
    ck_assert_double_eq(total_of(g, 1), (double)(M - 1));
    ck_assert_double_eq(total_of(g, M - 1), 1.0);
    cgprop_edge_total_row er;
    uint32_t back;
    ck_assert_int_eq(cgprop_graph_find_edge(g, M - 1, 0, &back), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, 0, back, &er, sizeof er), CGPROP_OK);
    ck_assert(er.flags & CGPROP_F_NO_TOTAL);
    cgprop_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("cycles");
    TCase *tc = tcase_create("basic");
    tcase_add_test(tc, test_args);
    tcase_add_test(tc, test_self_recursive);
    tcase_add_test(tc, test_two_cycle_root);
    tcase_add_test(tc, test_id_order);
    tcase_add_loop_test(tc, test_random_oracle, 0, 20);
    suite_add_tcase(s, tc);
    TCase *deep = tcase_create("deep");
    tcase_set_timeout(deep, 600);
    tcase_add_test(deep, test_small_stack_bites);
    tcase_add_test(deep, test_deep_chain);
    tcase_add_test(deep, test_deep_cycle);
    suite_add_tcase(s, deep);
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
