/* Hostile sizes: inputs at and past the limits must complete, or fail with
 * a documented code and leave the graph unchanged, in memory linear in the
 * input and without native recursion (the deep cases run on a 1 MiB stack).
 *
 *   - a 10-million-deep stack of distinct functions (cgprop_graph_add_stack),
 *     which is also a 10-million chain, through find_cycles, collapse,
 *     propagate and split;
 *   - a 10-million-deep recursive stack over 1000 functions (exact classes);
 *   - a 1-million-member SCC with two spontaneous entries;
 *   - ids at 2^32 - 1: the range checks, without allocating 4 G functions;
 *   - counts and costs at UINT64_MAX: EOVERFLOW, never a wrap, nothing added;
 *   - a 1 MiB function key through the API, the readers and the writers;
 *   - 10 million empty lines through cgprop_read_buffer.
 *
 * Sizes: CGPROP_DEEP_CHAIN and CGPROP_DEEP_CYCLE set them (.ci/run shrinks
 * them under ASan and valgrind, as for check_cycles); without them, full
 * size natively, smaller under a sanitizer or valgrind. Every figure is
 * worked out by hand in the comments. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "cgprop.h"
#include "cgprop_experimental.h"
#include "cgprop_io.h"
#include "graph.h" /* white box: the id range checks without 4 G functions */

static void small_stack(void)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_STACK, &rl), 0);
    rl.rlim_cur = 1024 * 1024;
    ck_assert_int_eq(setrlimit(RLIMIT_STACK, &rl), 0);
}

static long maxrss_kb(void)
{
    struct rusage ru;
    ck_assert_int_eq(getrusage(RUSAGE_SELF, &ru), 0);
    return ru.ru_maxrss;
}

/* Memory must stay linear in the input: at most per_item bytes per item
 * plus 64 MiB. Meaningless under a sanitizer or valgrind: skipped there. */
static void check_memory(long before_kb, uint64_t items, uint64_t per_item, const char *what)
{
    if (TSANITIZED || tunder_valgrind()) return;
    long grew = maxrss_kb() - before_kb;
    uint64_t bound_kb = (items * per_item) / 1024 + 64 * 1024;
    ck_assert_msg((uint64_t)(grew > 0 ? grew : 0) <= bound_kb, "%s: peak memory grew by %ld KiB, bound %llu KiB", what,
                  grew, (unsigned long long)bound_kb);
}

static const char *const metric_names[2] = {"a", "b"};
static cgprop_graph *new_graph(size_t K) { return tgraph(K, metric_names); }

static void add_nodes(cgprop_graph *g, uint32_t n)
{
    char key[16];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id;
        int len = snprintf(key, sizeof key, "f%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)len, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
    }
}

static void analyse(cgprop_graph *g, size_t expect_cycles)
{
    size_t nc = 12345;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, expect_cycles);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    /* The split first: propagate reuses a current one (run after it, the
     * split would be built a second time while the first is still held). */
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
}

static cgprop_total_row total(cgprop_graph *g, uint32_t v)
{
    cgprop_total_row t;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, v, &t, sizeof t), CGPROP_OK);
    return t;
}

static cgprop_split_row split(cgprop_graph *g, uint32_t v)
{
    cgprop_split_row s;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, 0, v, &s, sizeof s), CGPROP_OK);
    return s;
}

static cgprop_edge_split_row edge_split(cgprop_graph *g, uint32_t a, uint32_t b)
{
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, a, b, &e), CGPROP_OK);
    cgprop_edge_split_row s;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_SPLIT, 0, e, &s, sizeof s), CGPROP_OK);
    return s;
}

/* ---- a 10-million-deep stack of distinct functions: a 10-million chain ---- */

START_TEST(test_deep_stack_chain)
{
    /* Stack 1: f0 … f(N-1), weight 2. Stack 2: f0 … f(M-1), M = N/2,
     * weight 3 (its calls all exist: the shared-prefix path).
     *   S(f(N-1)) = 2, S(f(M-1)) = 3, every other S = 0;
     *   call fi -> fi+1 costs 2 + 3 = 5 for i + 1 < M, else 2;
     *   f0 entered spontaneously twice, cost 5.
     * No cycles. By cost shares each function has one caller, so
     *   T(fi) = 5 for i < M, 2 for i >= M,
     * and, with no recursion, every split figure is exact:
     *   C_n(fi) = T(fi), C_r = 0, D = C_n. */
    uint32_t N = tsize_from("CGPROP_DEEP_CHAIN", 10000000, 1000000, 100000);
    uint32_t M = N / 2;
    long rss0 = maxrss_kb();
    cgprop_graph *g = new_graph(1);
    add_nodes(g, N);
    uint32_t *frames = malloc((size_t)N * sizeof *frames);
    ck_assert_ptr_nonnull(frames);
    for (uint32_t i = 0; i < N; i++) frames[i] = i;
    small_stack();
    uint64_t w = 2;
    ck_assert_int_eq(cgprop_graph_add_stack(g, frames, N, &w), CGPROP_OK);
    w = 3;
    ck_assert_int_eq(cgprop_graph_add_stack(g, frames, M, &w), CGPROP_OK);
    free(frames);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), N - 1);
    analyse(g, 0);

    uint32_t probe[6] = {0, 1, M - 1, M, N - 2, N - 1};
    for (int i = 0; i < 6; i++) {
        uint32_t v = probe[i];
        double want = v < M ? 5.0 : 2.0;
        ck_assert_double_eq(total(g, v).total, want);
        cgprop_split_row s = split(g, v);
        ck_assert_uint_eq(s.inexact, 0);
        ck_assert_uint_eq(s.C_n, (uint64_t)want);
        ck_assert_uint_eq(s.C_r, 0);
        ck_assert_double_eq(s.D, want);
        ck_assert_uint_eq(s.S_n, v == N - 1 ? 2 : v == M - 1 ? 3 : 0);
    }
    cgprop_edge_split_row e = edge_split(g, 0, 1);
    ck_assert_uint_eq(e.C_nn, 5);
    e = edge_split(g, N - 2, N - 1);
    ck_assert_uint_eq(e.C_nn, 2);
    ck_assert_uint_eq(e.C_nr + e.C_nd + e.C_rn + e.C_rr + e.C_rd, 0);
    cgprop_graph_free(g);
    /* A node costs its key, its figures and its share of the tables. */
    check_memory(rss0, N, 400, "10M chain");
}
END_TEST

/* ---- a 10-million-deep recursive stack over F functions ---- */

START_TEST(test_deep_recursive_stack)
{
    /* One stack of D frames, frame i = f(i mod F), weight 1: P = D / F
     * passes round the ring f0 -> f1 -> ... -> f(F-1) -> f0. In pass j every
     * function is at level j. Hence, for every function:
     *   C_n = 1 (one level-0 activation, holding everything below it),
     *   C_r = 1 (one level-1 activation), S = S_r = 1 for the leaf;
     * for a call fi -> fi+1 (P occurrences, caller and callee at level j):
     *   C_nn = 1, C_rr = 1, C_rd = P - 2;
     * for the closing call f(F-1) -> f0 (P - 1 occurrences, callee one level
     * deeper than the caller):
     *   C_nr = 1, C_rd = P - 2. */
    uint32_t D = tsize_from("CGPROP_DEEP_CHAIN", 10000000, 1000000, 100000);
    const uint32_t F = 1000;
    D -= D % F;
    uint32_t P = D / F;
    ck_assert_uint_ge(P, 3);
    long rss0 = maxrss_kb();
    cgprop_graph *g = new_graph(1);
    add_nodes(g, F);
    uint32_t *frames = malloc((size_t)D * sizeof *frames);
    ck_assert_ptr_nonnull(frames);
    for (uint32_t i = 0; i < D; i++) frames[i] = i % F;
    small_stack();
    uint64_t w = 1;
    ck_assert_int_eq(cgprop_graph_add_stack(g, frames, D, &w), CGPROP_OK);
    free(frames);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), F);
    analyse(g, 1);

    uint32_t probe[3] = {0, F / 2, F - 1};
    for (int i = 0; i < 3; i++) {
        cgprop_split_row s = split(g, probe[i]);
        ck_assert_uint_eq(s.inexact, 0);
        ck_assert_uint_eq(s.C_n, 1);
        ck_assert_uint_eq(s.C_r, 1);
        ck_assert_uint_eq(s.S_n, 0);
        ck_assert_uint_eq(s.S_r, probe[i] == F - 1 ? 1 : 0);
    }
    cgprop_edge_split_row e = edge_split(g, 3, 4);
    ck_assert_uint_eq(e.inexact, 0);
    ck_assert_uint_eq(e.C_nn, 1);
    ck_assert_uint_eq(e.C_rr, 1);
    ck_assert_uint_eq(e.C_rd, P - 2);
    ck_assert_uint_eq(e.C_nr + e.C_nd + e.C_rn, 0);
    e = edge_split(g, F - 1, 0);
    ck_assert_uint_eq(e.C_nr, 1);
    ck_assert_uint_eq(e.C_rd, P - 2);
    ck_assert_uint_eq(e.C_nn + e.C_nd + e.C_rn + e.C_rr, 0);
    /* The whole program is one spontaneous entry of f0 worth 1, inside one
     * cycle of F members: T(cycle) = 1. */
    cgprop_cycle_row cr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cr, sizeof cr), CGPROP_OK);
    ck_assert_uint_eq(cr.nmembers, F);
    ck_assert_double_eq(cr.total, 1.0);
    cgprop_graph_free(g);
    check_memory(rss0, D, 64, "10M recursive stack");
}
END_TEST

/* ---- a 1-million-member SCC ---- */

START_TEST(test_big_scc)
{
    /* Ring fi -> fi+1 (mod M) plus chords fi -> f((7i + 3) mod M), every call
     * count 1, no call costs (shares by count), self 1 each. Spontaneous
     * entries: f0 three times, f(M/2) once. No call leaves the cycle, so
     * T(Z) = M; entries ρ(f0) = 3/4, ρ(f(M/2)) = 1/4, and f0's own total
     * holds at least its entry's share: T(f0) >= 3M/4. Every member's total
     * lies between its own gprof figure (1) and T(Z), and equals the sum of
     * its incoming call totals plus its spontaneous share. */
    uint32_t M = tsize_from("CGPROP_DEEP_CYCLE", 1000000, 1000000, 100000);
    long rss0 = maxrss_kb();
    cgprop_graph *g = new_graph(1);
    add_nodes(g, M);
    uint64_t one = 1, zero = 0;
    for (uint32_t i = 0; i < M; i++) {
        ck_assert_int_eq(cgprop_graph_add_self(g, i, &one), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_edge(g, i, (i + 1) % M, 1, NULL, NULL), CGPROP_OK);
        uint32_t c = (uint32_t)(((uint64_t)i * 7 + 3) % M);
        if (c != i && c != (i + 1) % M) ck_assert_int_eq(cgprop_graph_add_edge(g, i, c, 1, NULL, NULL), CGPROP_OK);
    }
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, 0, 3, &zero), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, M / 2, 1, &zero), CGPROP_OK);
    small_stack();
    analyse(g, 1);
    cgprop_cycle_row cr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cr, sizeof cr), CGPROP_OK);
    ck_assert_uint_eq(cr.nmembers, M);
    ck_assert_double_eq_tol(cr.total, (double)M, 1e-6 * M);
    ck_assert(!(cr.flags & CGPROP_F_ENTRY_ASSUMED));
    ck_assert_double_ge(total(g, 0).total, 0.75 * M * (1 - 1e-9));

    for (uint32_t v = 0; v < M; v += M / 97 + 1) {
        cgprop_total_row t = total(g, v);
        ck_assert(t.flags & CGPROP_F_IN_CYCLE);
        ck_assert(isfinite(t.total));
        ck_assert_double_ge(t.total, 1.0 * (1 - 1e-9));
        ck_assert_double_le(t.total, (double)M * (1 + 1e-9));
        /* Σ incoming call totals + spontaneous share = total. */
        cgprop_iter *it = NULL;
        ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLERS, 0, v, &it), CGPROP_OK);
        cgprop_edge_row er;
        double in = t.spont_share;
        while (cgprop_iter_next(it, &er, sizeof er) == CGPROP_OK) {
            cgprop_edge_total_row et;
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, 0, er.id, &et, sizeof et), CGPROP_OK);
            if (!(et.flags & CGPROP_F_NO_TOTAL)) in += et.total;
        }
        cgprop_iter_free(it);
        ck_assert_double_eq_tol(in, t.total, 1e-9 * M);
    }
    cgprop_graph_free(g);
    check_memory(rss0, M, 1200, "1M SCC");
}
END_TEST

/* ---- ids at 2^32 - 1 ---- */

static uint64_t gen_of(cgprop_graph *g) { return cgprop_graph_generation(g); }

START_TEST(test_id_limits)
{
    cgprop_graph *g = new_graph(1);
    add_nodes(g, 3);
    uint64_t one = 1;
    ck_assert_int_eq(cgprop_graph_add_edge(g, 0, 1, 1, &one, NULL), CGPROP_OK);
    uint64_t gen = gen_of(g);
    uint32_t id;

    /* The largest id a function can get is 2^32 - 3 (CGPROP_NONE and the
     * count itself must fit): with 2^32 - 2 functions a new key is refused,
     * an existing one still found. Faked count, real checks. */
    uint32_t nn = g->nn;
    g->nn = UINT32_MAX - 1;
    ck_assert_int_eq(cgprop_graph_add_node(g, "new", 3, &id), CGPROP_EOVERFLOW);
    ck_assert(cgprop_graph_errmsg(g)[0] != '\0');
    ck_assert_int_eq(cgprop_graph_add_node(g, "f1", 2, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 1);
    g->nn = nn;
    ck_assert_uint_eq(gen_of(g), gen);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);

    /* The same for calls: a new pair refused, an existing one accumulates. */
    uint32_t ne = g->ne;
    g->ne = UINT32_MAX - 1;
    ck_assert_int_eq(cgprop_graph_add_edge(g, 1, 2, 1, &one, NULL), CGPROP_EOVERFLOW);
    ck_assert(cgprop_graph_errmsg(g)[0] != '\0');
    g->ne = ne;
    ck_assert_uint_eq(gen_of(g), gen);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 1);
    ck_assert_int_eq(cgprop_graph_find_edge(g, 1, 2, &id), CGPROP_ENOTFOUND);

    /* Ids near 2^32 everywhere an id goes in: EINVAL, nothing read past. */
    uint32_t big[3] = {UINT32_MAX - 2, UINT32_MAX - 1, UINT32_MAX};
    for (int i = 0; i < 3; i++) {
        uint32_t b = big[i];
        ck_assert_int_eq(cgprop_graph_add_self(g, b, &one), CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_add_edge(g, 0, b, 1, &one, NULL), CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g, b, 1, &one), CGPROP_EINVAL);
        uint32_t fr[2] = {0, b};
        ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 2, &one), CGPROP_EINVAL);
        cgprop_node_row nr;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, b, &nr, sizeof nr), CGPROP_EINVAL);
        cgprop_iter *it = NULL;
        ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLERS, 0, b, &it), CGPROP_EINVAL);
        ck_assert_ptr_null(cgprop_graph_node_key(g, b, NULL));
    }
    ck_assert_uint_eq(gen_of(g), gen);

    /* Sizes past any real array: refused before anything is read. */
    cgprop_graph *h = (cgprop_graph *)&h;
    static const char *const names[1] = {"x"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, SIZE_MAX, &h), CGPROP_EINVAL);
    ck_assert_ptr_null(h);
    ck_assert_int_eq(cgprop_graph_add_node(g, "x", SIZE_MAX, &id), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_node(g, "x", (size_t)UINT32_MAX, &id), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_find_node(g, "x", SIZE_MAX, &id), CGPROP_ENOTFOUND);

    /* A bulk copy with a capacity of SIZE_MAX rows copies what there is. */
    cgprop_iter *it = NULL;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_NODES, 0, 0, &it), CGPROP_OK);
    cgprop_node_row rows[4];
    memset(rows, 0xEE, sizeof rows);
    size_t n = 0;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, rows, sizeof rows[0], SIZE_MAX, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(rows[2].id, 2);
    ck_assert_uint_eq(rows[3].id, 0xEEEEEEEEu); /* nothing written past the rows */
    ck_assert_int_eq(cgprop_iter_copy_rows(it, rows, sizeof rows[0], SIZE_MAX, &n), CGPROP_DONE);
    ck_assert_uint_eq(n, 0);
    cgprop_iter_free(it);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_NODES, 0, 0, &it), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, rows, SIZE_MAX), CGPROP_EINVAL);
    cgprop_iter_free(it);

    /* The recorder: ids out of range, and depth near its limit is the
     * stack's own growth (not faked here). */
    cgprop_recorder *r = NULL;
    ck_assert_int_eq(cgprop_recorder_new(g, NULL, &r), CGPROP_OK);
    uint64_t t = 1;
    ck_assert_int_eq(cgprop_recorder_enter(r, UINT32_MAX - 1, &t), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_recorder_enter(r, UINT32_MAX, &t), CGPROP_EINVAL);
    cgprop_recorder_figure fig;
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_C_NN, 0, UINT32_MAX, 0, &fig, sizeof fig), CGPROP_EINVAL);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}
END_TEST

/* Readers: ids, counts and metric counts at their limits. */
static int read_text(const char *t, uint32_t fmt, cgprop_read_error *err, cgprop_graph **out)
{
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = fmt;
    *out = NULL;
    return cgprop_read_buffer(t, strlen(t), "hostile", 7, &o, NULL, out, NULL, err);
}

START_TEST(test_reader_limits)
{
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_graph *g;
    /* Compressed ids: 2^32 - 1 is a valid id (the reader keeps them in a
     * table of what it saw, not an array of 2^32); 2^32 is not one. */
    ck_assert_int_eq(read_text("events: Ir\nfn=(4294967295) x\n1 1\ncfn=(4294967294) y\ncalls=1 1\n1 1\n"
                               "fn=(4294967294)\n1 1\n",
                               CGPROP_INPUT_CALLGRIND, &err, &g),
                     CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    cgprop_graph_free(g);
    ck_assert_int_eq(read_text("events: Ir\nfn=(4294967296) x\n1 1\n", CGPROP_INPUT_CALLGRIND, &err, &g),
                     CGPROP_EFORMAT);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_ptr_null(g);
    /* Counts: one past UINT64_MAX in a number, and sums past it. */
    ck_assert_int_eq(read_text("events: Ir\nfn=x\ncfn=y\ncalls=18446744073709551616 1\n1 1\n", CGPROP_INPUT_CALLGRIND,
                               &err, &g),
                     CGPROP_EOVERFLOW);
    ck_assert_uint_eq(err.line, 4);
    ck_assert_int_eq(read_text("events: Ir\nfn=x\ncfn=y\ncalls=18446744073709551615 1\n1 1\n"
                               "cfn=y\ncalls=1 1\n1 1\n",
                               CGPROP_INPUT_CALLGRIND, &err, &g),
                     CGPROP_EOVERFLOW);
    ck_assert_int_eq(read_text("events: Ir\nfn=x\n1 18446744073709551615\n2 1\n", CGPROP_INPUT_CALLGRIND, &err, &g),
                     CGPROP_EOVERFLOW);
    ck_assert_uint_eq(err.line, 4);
    ck_assert_int_eq(read_text("a;b 18446744073709551615\nc;b 1\n", CGPROP_INPUT_FOLDED, &err, &g), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(err.line, 2);
    ck_assert_int_eq(read_text("enter a 0\nexit a 18446744073709551615\nenter a 18446744073709551615\n"
                               "exit a 18446744073709551615\n",
                               CGPROP_INPUT_EVENTS, &err, &g),
                     CGPROP_OK);
    cgprop_graph_free(g);
    /* 64 metrics is the limit; a 65th is refused by every reader. */
    char hdr[1024], line[1024];
    size_t n = (size_t)snprintf(hdr, sizeof hdr, "events:");
    size_t m = (size_t)snprintf(line, sizeof line, "a");
    for (int k = 0; k < 65; k++) {
        n += (size_t)snprintf(hdr + n, sizeof hdr - n, " e%d", k);
        m += (size_t)snprintf(line + m, sizeof line - m, " 1");
    }
    char text[4096];
    snprintf(text, sizeof text, "%s\nfn=x\n1%s\n", hdr, line + 1);
    ck_assert_int_eq(read_text(text, CGPROP_INPUT_CALLGRIND, &err, &g), CGPROP_EFORMAT);
    snprintf(text, sizeof text, "# metrics:%s\nenter%s\n", hdr + 7, line + 1);
    ck_assert_int_eq(read_text(text, CGPROP_INPUT_EVENTS, &err, &g), CGPROP_EFORMAT);
    /* Folded too: 65 numbers on the first line are not a frame "a 1" and
     * 64 weights. */
    snprintf(text, sizeof text, "%s\n", line);
    ck_assert_int_eq(read_text(text, CGPROP_INPUT_FOLDED, &err, &g), CGPROP_EFORMAT);
    ck_assert_uint_eq(err.line, 1);
    ck_assert_str_eq(err.reason, "more than 64 weights at the end of the line");
    /* 64 weights, the last frame ending in a letter: read. */
    snprintf(text, sizeof text, "a;b%s\n", line + 3);
    ck_assert_int_eq(read_text(text, CGPROP_INPUT_FOLDED, &err, &g), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 64);
    size_t kl;
    ck_assert_str_eq(cgprop_graph_node_key(g, 1, &kl), "b");
    cgprop_graph_free(g);
}
END_TEST

/* ---- counts and costs near UINT64_MAX ---- */

/* Everything the store holds, to show a refused call changed nothing. */
static uint64_t digest(cgprop_graph *g)
{
    uint64_t h = 1469598103934665603ull;
    size_t K = cgprop_graph_metric_count(g);
    uint64_t gen = gen_of(g);
    h = (h ^ gen) * 1099511628211ull;
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t v = 0; v < cgprop_graph_node_count(g); v++) {
            cgprop_node_row r;
            memset(&r, 0, sizeof r);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, v, &r, sizeof r), CGPROP_OK);
            const unsigned char *b = (const unsigned char *)&r;
            for (size_t i = 0; i < sizeof r; i++) h = (h ^ b[i]) * 1099511628211ull;
        }
        for (uint32_t e = 0; e < cgprop_graph_edge_count(g); e++) {
            cgprop_edge_row r;
            memset(&r, 0, sizeof r);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, k, e, &r, sizeof r), CGPROP_OK);
            const unsigned char *b = (const unsigned char *)&r;
            for (size_t i = 0; i < sizeof r; i++) h = (h ^ b[i]) * 1099511628211ull;
        }
    }
    return h;
}

#define REFUSED(call)                                                                                            \
    do {                                                                                                         \
        uint64_t d0_ = digest(g);                                                                                \
        ck_assert_int_eq((call), CGPROP_EOVERFLOW);                                                              \
        ck_assert(cgprop_graph_errmsg(g)[0] != '\0');                                                            \
        ck_assert_uint_eq(digest(g), d0_);                                                                       \
    } while (0)

START_TEST(test_uint64_limits)
{
    const uint64_t MAX = UINT64_MAX;
    cgprop_graph *g = new_graph(2);
    add_nodes(g, 4);
    /* Self: MAX - 1 then 1 reaches MAX exactly; one more is refused, in
     * either metric, and then neither metric moves. */
    uint64_t a[2] = {MAX - 1, 5}, one[2] = {1, 1}, m1[2] = {0, 1}, m0[2] = {1, 0};
    ck_assert_int_eq(cgprop_graph_add_self(g, 0, a), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, 0, m0), CGPROP_OK);
    REFUSED(cgprop_graph_add_self(g, 0, one));
    REFUSED(cgprop_graph_add_self(g, 0, m0));
    REFUSED(cgprop_graph_add_self_class(g, 0, CGPROP_LEVEL_1, m0));
    ck_assert_int_eq(cgprop_graph_add_self(g, 0, m1), CGPROP_OK);
    cgprop_node_row nr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, &nr, sizeof nr), CGPROP_OK);
    ck_assert_uint_eq(nr.self, MAX);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 1, 0, &nr, sizeof nr), CGPROP_OK);
    ck_assert_uint_eq(nr.self, 6);

    /* Calls: the count, each cost, and the callee's calls_in (summed over
     * different callers) are each refused at MAX + 1. */
    uint64_t cmax[2] = {MAX, 0};
    ck_assert_int_eq(cgprop_graph_add_edge(g, 0, 1, MAX, cmax, NULL), CGPROP_OK);
    REFUSED(cgprop_graph_add_edge(g, 0, 1, 1, NULL, NULL));
    REFUSED(cgprop_graph_add_edge(g, 0, 1, 0, m0, NULL));
    REFUSED(cgprop_graph_add_edge(g, 2, 1, 1, NULL, NULL)); /* calls_in(f1) */
    REFUSED(cgprop_graph_add_edge_class(g, 0, 1, 0, 0, 0, m0, NULL));
    ck_assert_int_eq(cgprop_graph_add_edge(g, 0, 1, 0, m1, NULL), CGPROP_OK);
    /* A refused new call is not created. */
    size_t ne = cgprop_graph_edge_count(g);
    REFUSED(cgprop_graph_add_edge(g, 3, 1, 1, NULL, NULL));
    ck_assert_uint_eq(cgprop_graph_edge_count(g), ne);

    /* Spontaneous entries: count and cost. */
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, 2, MAX, cmax), CGPROP_OK);
    REFUSED(cgprop_graph_add_spontaneous(g, 2, 1, m1));
    REFUSED(cgprop_graph_add_spontaneous(g, 2, 0, m0));

    /* Stacks are all or nothing: the second stack would overflow only the
     * call 2 -> 3 in metric 1, so nothing of it is added anywhere. */
    uint32_t fr[3] = {2, 3, 0};
    uint64_t wa[2] = {0, MAX - 1}, wb[2] = {0, 2};
    ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 2, wa), CGPROP_OK);
    REFUSED(cgprop_graph_add_stack(g, fr, 3, wb));

    /* Merging a copy of g into g overflows; g is unchanged. */
    cgprop_graph *h = new_graph(2);
    ck_assert_int_eq(cgprop_graph_merge(h, g), CGPROP_OK);
    {
        cgprop_graph *keep = g;
        g = h;
        REFUSED(cgprop_graph_merge(h, keep));
        g = keep;
    }
    cgprop_graph_free(h);

    /* The analyses run on figures this large; every total is finite, and
     * a split figure whose true value passes MAX saturates, flagged. */
    analyse(g, 0);
    for (uint32_t v = 0; v < 4; v++) {
        cgprop_total_row t = total(g, v);
        ck_assert(isfinite(t.total) && isfinite(t.vertex_total) && isfinite(t.gprof_child));
        cgprop_split_row s = split(g, v);
        ck_assert(isfinite(s.D) && isfinite(s.heuristic));
    }
    cgprop_graph_free(g);

    /* Two stack roots of 2^63 meeting in one callee: C_n(b) = 2^64 does not
     * fit; it saturates at MAX and says so. */
    g = new_graph(1);
    add_nodes(g, 3);
    uint64_t half = (uint64_t)1 << 63;
    uint32_t s1[2] = {0, 2}, s2[2] = {1, 2};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 2, &half), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 2, &half), CGPROP_EOVERFLOW); /* S(f2) = 2^64 */
    uint32_t s3[3] = {1, 2, 0};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 3, &half), CGPROP_OK);
    /* f2: level 0 in both stacks, C_n = 2^63 + 2^63. */
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row s = split(g, 2);
    ck_assert_uint_eq(s.C_n, MAX);
    ck_assert(s.inexact & CGPROP_X_C_N);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_recorder_limits)
{
    cgprop_graph *g = new_graph(1);
    add_nodes(g, 2);
    cgprop_recorder *r = NULL;
    ck_assert_int_eq(cgprop_recorder_new(g, NULL, &r), CGPROP_OK);
    const uint64_t t0 = 0, t1 = 1, tmax = UINT64_MAX;
    /* One activation over the whole counter range: S(f0) = C_n(f0) = MAX. */
    ck_assert_int_eq(cgprop_recorder_enter(r, 0, &t0), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_exit(r, 0, &tmax), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row s = split(g, 0);
    ck_assert_uint_eq(s.S_n, UINT64_MAX);
    ck_assert_uint_eq(s.C_n, UINT64_MAX);
    /* A new run (counters start anywhere after a flush) worth 1 more: the
     * flush would take S(f0) past MAX; it is refused, all or nothing. */
    ck_assert_int_eq(cgprop_recorder_enter(r, 0, &t0), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_exit(r, 0, &t1), CGPROP_OK);
    uint64_t d0 = digest(g);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_EOVERFLOW);
    ck_assert(cgprop_graph_errmsg(g)[0] != '\0');
    ck_assert_uint_eq(digest(g), d0);
    cgprop_recorder_figure fig;
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_S_N, 0, 0, 0, &fig, sizeof fig), CGPROP_OK);
    ck_assert_uint_eq(fig.raw, 1); /* still held */
    cgprop_recorder_free(r);
    cgprop_graph_free(g);

    /* Nested calls into level >= 2 activations are the one figure whose sum
     * can outgrow the counter range: f0 four deep, the two innermost exits
     * each add a MAX-long call from a recursive f0 into a level >= 2 f0
     * (C_rd). The second exit is refused and leaves the recorder as it was. */
    g = new_graph(1);
    add_nodes(g, 1);
    ck_assert_int_eq(cgprop_recorder_new(g, NULL, &r), CGPROP_OK);
    for (int i = 0; i < 4; i++) ck_assert_int_eq(cgprop_recorder_enter(r, 0, &t0), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_exit(r, 0, &tmax), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_exit(r, 0, &tmax), CGPROP_EOVERFLOW);
    ck_assert(cgprop_graph_errmsg(g)[0] != '\0');
    ck_assert_uint_eq(cgprop_recorder_depth(r), 3);
    /* The one call held is MAX long: its int64 compensated figure cannot
     * hold it, which get reports rather than wrap. */
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_C_RD, 0, 0, 0, &fig, sizeof fig), CGPROP_EOVERFLOW);
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_C_N, 0, 0, 0, &fig, sizeof fig), CGPROP_OK);
    ck_assert_uint_eq(fig.count, 0); /* no level-0 activation closed yet */
    d0 = digest(g);
    /* Closing the three still open would add a second MAX-long call into a
     * level >= 2 f0: refused, and neither unwind nor flush leaves any of the
     * three closed. */
    ck_assert_int_eq(cgprop_recorder_unwind(r, &tmax), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 3);
    ck_assert_int_eq(cgprop_recorder_flush(r, &tmax), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(digest(g), d0);
    ck_assert_uint_eq(cgprop_recorder_depth(r), 3);
    ck_assert_int_eq(cgprop_recorder_get(r, CGPROP_RF_C_N, 0, 0, 0, &fig, sizeof fig), CGPROP_OK);
    ck_assert_uint_eq(fig.count, 0);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}
END_TEST

/* ---- a 1 MiB function key ---- */

START_TEST(test_huge_key)
{
    const size_t L = (size_t)1 << 20;
    char *key = malloc(L + 64);
    ck_assert_ptr_nonnull(key);
    for (size_t i = 0; i < L; i++) key[i] = (char)('a' + i % 26);

    /* Through the API: stored whole, found again, borrowed pointer intact. */
    cgprop_graph *g = new_graph(1);
    uint32_t id, again;
    ck_assert_int_eq(cgprop_graph_add_node(g, key, L, &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "main", 4, &again), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_node(g, key, L, &again), CGPROP_OK);
    ck_assert_uint_eq(again, id);
    size_t len;
    const char *k = cgprop_graph_node_key(g, id, &len);
    ck_assert_uint_eq(len, L);
    ck_assert(memcmp(k, key, L) == 0 && k[L] == '\0');
    /* One byte shorter or different is another function. */
    ck_assert_int_eq(cgprop_graph_find_node(g, key, L - 1, &again), CGPROP_ENOTFOUND);
    ck_assert(strlen(cgprop_graph_errmsg(g)) < 1024); /* the message quotes an excerpt */
    uint64_t one = 1;
    ck_assert_int_eq(cgprop_graph_add_edge(g, 1, id, 1, &one, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, id, &one), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, 1, 1, &one), CGPROP_OK);
    analyse(g, 0);

    /* Through the writers and back: the callgrind output reads back with
     * the key whole (a bare name: the folded reader's key mode). */
    tbuf out = {NULL, 0, 0, -1};
    for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_CALLGRIND; fmt++) {
        out.n = 0;
        ck_assert_int_eq(cgprop_write(g, fmt, NULL, tbuf_sink, &out), CGPROP_OK);
        /* DOT cuts a name at 4096 bytes: graphviz refuses strings over 16 KiB. */
        if (fmt == CGPROP_FORMAT_DOT)
            ck_assert(out.n > 4096 && out.n < 16384);
        else
            ck_assert_uint_gt(out.n, L);
    }
    cgprop_graph *back = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.key_mode = CGPROP_KEY_NAME;
    ck_assert_int_eq(cgprop_read_buffer(out.p, out.n, "w", 1, &o, NULL, &back, NULL, &err), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_node(back, key, L, &again), CGPROP_OK);
    cgprop_graph_free(back);
    free(out.p);
    cgprop_graph_free(g);

    /* Through the folded and event readers: a 1 MiB frame name. */
    char *text = malloc(2 * L + 128);
    ck_assert_ptr_nonnull(text);
    memcpy(text, "main;", 5);
    memcpy(text + 5, key, L);
    memcpy(text + 5 + L, " 7\n", 3);
    ck_assert_int_eq(cgprop_read_buffer(text, L + 8, "f", 1, NULL, NULL, &g, NULL, &err), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_node(g, key, L, &id), CGPROP_OK);
    cgprop_graph_free(g);
    size_t n = 0;
    n += (size_t)sprintf(text + n, "enter ");
    memcpy(text + n, key, L);
    n += L;
    n += (size_t)sprintf(text + n, " 1\nexit ");
    memcpy(text + n, key, L);
    n += L;
    n += (size_t)sprintf(text + n, " 5\n");
    ck_assert_int_eq(cgprop_read_buffer(text, n, "e", 1, NULL, NULL, &g, NULL, &err), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_node(g, key, L, &id), CGPROP_OK);
    cgprop_graph_free(g);
    /* A malformed 1 MiB line: the reason quotes a bounded excerpt. */
    memcpy(text, key, L);
    memcpy(text + L, " x\n", 3);
    ck_assert_int_eq(cgprop_read_buffer(text, L + 3, "f", 1, NULL, NULL, &g, NULL, &err), CGPROP_EFORMAT);
    ck_assert_ptr_null(g);
    ck_assert(memchr(err.reason, '\0', sizeof err.reason) != NULL);
    free(text);
    free(key);
}
END_TEST

/* ---- ten million empty lines ---- */

START_TEST(test_empty_lines)
{
    /* Every format, forced or detected, on 10 M newlines: completes, a
     * documented status, a line count of 10 M where it says one; with one
     * stack at the end the folded reader finds it on line 10 M + 1. */
    const size_t L = tsize_from("CGPROP_DEEP_CHAIN", 10000000, 1000000, 100000);
    long rss0 = maxrss_kb();
    char *text = malloc(L + 16);
    ck_assert_ptr_nonnull(text);
    memset(text, '\n', L);
    for (uint32_t fmt = CGPROP_INPUT_AUTO; fmt <= CGPROP_INPUT_EVENTS; fmt++) {
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = fmt;
        cgprop_graph *g = NULL;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        int rc = cgprop_read_buffer(text, L, "blank", 5, &o, NULL, &g, NULL, &err);
        ck_assert_msg(rc == CGPROP_EFORMAT || rc == CGPROP_OK, "format %u: %d %s", fmt, rc, err.reason);
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        else ck_assert(err.reason[0] != '\0');
        /* CRLF lines too. */
    }
    memcpy(text + L, "a;b 3\n", 6);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_FOLDED;
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer(text, L + 6, "blank", 5, &o, NULL, &g, &info, &err), CGPROP_OK);
    ck_assert_uint_eq(info.lines, L + 1);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    cgprop_graph_free(g);
    /* Auto-detection gives up on a blank prefix: a bounded look, EFORMAT. */
    ck_assert_int_eq(cgprop_read_buffer(text, L + 6, "blank", 5, NULL, NULL, &g, &info, &err), CGPROP_EFORMAT);
    /* A malformed last line is reported with its number. */
    memcpy(text + L, "a;b x\n", 6);
    ck_assert_int_eq(cgprop_read_buffer(text, L + 6, "blank", 5, &o, NULL, &g, &info, &err), CGPROP_EFORMAT);
    ck_assert_uint_eq(err.line, L + 1);
    free(text);
    check_memory(rss0, L, 8, "10M empty lines");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *deep = tcase_create("deep");
    tcase_set_timeout(deep, 600);
    tcase_add_test(deep, test_deep_stack_chain);
    tcase_add_test(deep, test_deep_recursive_stack);
    tcase_add_test(deep, test_big_scc);
    tcase_add_test(deep, test_empty_lines);
    suite_add_tcase(s, deep);
    TCase *lim = tcase_create("limits");
    tcase_set_timeout(lim, 60);
    tcase_add_test(lim, test_id_limits);
    tcase_add_test(lim, test_reader_limits);
    tcase_add_test(lim, test_uint64_limits);
    tcase_add_test(lim, test_recorder_limits);
    tcase_add_test(lim, test_huge_key);
    suite_add_tcase(s, lim);
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
