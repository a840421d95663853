/* Linear per-root propagation (docs/PROPAGATION.md). Hand-worked graphs (every figure
 * derived in the comments), gprof2dot's own totals on real callgrind
 * profiles, the corner cases cgprop settles its own way, invariants on thousands of
 * random graphs, and allocation failures. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <cgprop.h>
#include <cgprop_io.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One call with count and (single-metric) cost. */
static uint32_t callc(cgprop_graph *g, uint32_t a, uint32_t b, uint64_t count, uint64_t cost)
{
    return tcall(g, a, b, count, &cost);
}

static double tot(cgprop_graph *g, uint32_t n) { return ttotals_row(g, 0, n).heuristic; }

static double etot(cgprop_graph *g, uint32_t e) { return tedge_totals_row(g, 0, e).heuristic; }

/* ---- hand-worked graphs ---- */

/* main calls a twice and b once; a calls leaf once and x once, b calls leaf
 * once; self costs a 5, b 5, leaf 8, x 4 (program 22). */
static cgprop_graph *estimate_graph(bool costs, uint32_t e[5])
{
    cgprop_graph *g = tgraph_n(1, 5);
    tself1(g, 1, 5);
    tself1(g, 2, 5);
    tself1(g, 3, 8);
    tself1(g, 4, 4);
    /* Measured costs, where given, are what the callees spend through each
     * call: leaf 2 under a and 6 under b; a 5 + 2 + 4; b 5 + 6. */
    e[0] = costs ? callc(g, 0, 1, 2, 11) : tcall(g, 0, 1, 2, NULL);
    e[1] = costs ? callc(g, 0, 2, 1, 11) : tcall(g, 0, 2, 1, NULL);
    e[2] = costs ? callc(g, 1, 3, 1, 2) : tcall(g, 1, 3, 1, NULL);
    e[3] = costs ? callc(g, 2, 3, 1, 6) : tcall(g, 2, 3, 1, NULL);
    e[4] = costs ? callc(g, 1, 4, 1, 4) : tcall(g, 1, 4, 1, NULL);
    return g;
}

static int mem_sink(void *user, const char *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)user) == len ? 0 : -1;
}

/* A cycle's total is exact where it is the cost of the cycle's outermost
 * activations: its members' self costs plus the measured calls that leave
 * it. main -> a, a <-> b, b -> leaf; self a 2, b 3, leaf 5. */
START_TEST(test_cycle_estimates)
{
    for (int variant = 0; variant < 3; variant++) {
        cgprop_graph *g = tgraph_n(1, 4);
        tself1(g, 1, 2);
        tself1(g, 2, 3);
        tself1(g, 3, 5);
        if (variant == 2) { /* counts only */
            tcall(g, 0, 1, 1, NULL);
            tcall(g, 1, 2, 2, NULL);
            tcall(g, 2, 1, 1, NULL);
            tcall(g, 2, 3, 1, NULL);
        } else {
            callc(g, 0, 1, 1, 10);
            callc(g, 1, 2, 2, 8);
            callc(g, 2, 1, 1, 3);
            /* 5 agrees with leaf's self cost; 7 does not (T(Z) is 10 by
             * the collapse, 12 by the calls that leave the cycle). */
            callc(g, 2, 3, 1, variant == 0 ? 5 : 7);
        }
        ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
        /* Before propagate nothing says the figure is exact. */
        ck_assert(tcycle_row(g, 0, 0).flags & CGPROP_F_ESTIMATE);
        ck_near(tcycle_row(g, 0, 0).total, 10);
        ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
        cgprop_cycle_row c = tcycle_row(g, 0, 0);
        ck_near(c.total, 10);
        ck_assert_msg(!!(c.flags & CGPROP_F_ESTIMATE) == (variant != 0), "variant %d flags 0x%x", variant, c.flags);
        /* The text report's cycle line says the same. */
        char *text = NULL;
        size_t tlen = 0;
        FILE *mem = open_memstream(&text, &tlen);
        ck_assert_ptr_nonnull(mem);
        ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_TEXT, NULL, mem_sink, mem), CGPROP_OK);
        fclose(mem);
        const char *line = strstr(text, "<cycle 1 as a whole> [");
        ck_assert_ptr_nonnull(line);
        while (line > text && line[-1] != '\n') line--;
        const char *end = strchr(line, '\n');
        ck_assert_msg((memchr(line, '~', (size_t)(end - line)) != NULL) == (variant != 0), "variant %d: %.*s",
                      variant, (int)(end - line), line);
        free(text);
        cgprop_graph_free(g);
    }
}
END_TEST

/* A call's total is its share of the callee's total; it is flagged an
 * estimate unless that total is exact and the share is the call's measured
 * cost or the whole. */
START_TEST(test_call_estimates)
{
    uint32_t e[5];
    /* Counts only (gprof's arcs): leaf's 8 split 1:1 by count is gprof's
     * assumption (4 and 4), and a's and b's totals rest on it (5 + 4 + 4
     * and 5 + 4); x, a leaf entered by one call only, gives it its exact 4. */
    cgprop_graph *g = estimate_graph(false, e);
    tanalyse(g, CGPROP_SHARE_AUTO);
    static const double counts[5] = {13, 9, 4, 4, 4}, costs[5] = {11, 11, 2, 6, 4};
    for (int i = 0; i < 5; i++) {
        cgprop_edge_total_row r = tedge_totals_row(g, 0, e[i]);
        ck_near(r.total, counts[i]);
        ck_assert_msg(!!(r.flags & CGPROP_F_ESTIMATE) == (i != 4), "counts: call %d flags 0x%x", i, r.flags);
    }
    ck_assert_uint_eq(ttotals_row(g, 0, 4).estimate, CGPROP_EST_EXACT);
    ck_assert_uint_eq(ttotals_row(g, 0, 1).estimate, CGPROP_EST_SHARES);
    cgprop_graph_free(g);

    /* Measured costs: shared by cost, every call's total is its measured
     * cost, which is exact between two components. */
    g = estimate_graph(true, e);
    tanalyse(g, CGPROP_SHARE_AUTO);
    for (int i = 0; i < 5; i++) {
        cgprop_edge_total_row r = tedge_totals_row(g, 0, e[i]);
        ck_near(r.total, costs[i]);
        ck_assert_msg(!(r.flags & CGPROP_F_ESTIMATE), "costs: call %d flags 0x%x", i, r.flags);
    }
    /* The same graph shared by count: the figures of the counts-only graph,
     * clamped to the measured costs (main -> a 13 to 11, a -> leaf 4 to 2),
     * estimates wherever they are not the measured cost (b's 9 and 4). */
    tanalyse(g, CGPROP_SHARE_COUNT);
    for (int i = 0; i < 5; i++) {
        cgprop_edge_total_row r = tedge_totals_row(g, 0, e[i]);
        ck_near(r.total, counts[i] < costs[i] ? counts[i] : costs[i]);
        bool exact = counts[i] >= costs[i];
        ck_assert_msg(!!(r.flags & CGPROP_F_ESTIMATE) == !exact, "count share: call %d flags 0x%x", i, r.flags);
    }
    cgprop_graph_free(g);
}
END_TEST

/* An exact call total is the integer it stands for: with shares of 15/22
 * and 7/22 of a callee's 22, share times total is 14.999999999999998 and
 * 7.000000000000001 in doubles, yet each call's measured cost is exactly
 * its part. */
START_TEST(test_exact_call_totals_are_integers)
{
    cgprop_graph *g = tgraph_n(1, 4);
    tself1(g, 0, 1);
    tself1(g, 1, 1);
    tself1(g, 2, 22);
    tself1(g, 3, 22);
    uint32_t a = callc(g, 0, 2, 1, 15), b = callc(g, 1, 2, 1, 7);
    tanalyse(g, CGPROP_SHARE_AUTO);
    ck_assert(tedge_totals_row(g, 0, a).total == 15.0);
    ck_assert(tedge_totals_row(g, 0, b).total == 7.0);
    ck_assert(!(tedge_totals_row(g, 0, a).flags & CGPROP_F_ESTIMATE));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_abc)
{
    /* The A/B/C example (fixture abc.callgrind):
     * main->A cost 50; A self 20, A->B cost 30, A->C (2 calls) cost 20;
     * B self 10, B->A cost 20; C self 20. Z = {A,B}, T(Z) = 30 + 20 = 50.
     * The only entry is A (rho 1): ranks A0 B1, kept A->B, B->A dropped.
     * p(B) = 10, p(A) = 40 + 10 = 50. gprof2dot: A 100 %, B 20 %, C 40 %,
     * A->B 20 %, A->C 40 %, B->A none. Counts give the same shares here. */
    for (uint32_t share = CGPROP_SHARE_AUTO; share <= CGPROP_SHARE_COST; share++) {
        enum { MAIN, A, B, C };
        cgprop_graph *g = tgraph_n(1, 4);
        tself1(g, A, 20);
        tself1(g, B, 10);
        tself1(g, C, 20);
        uint32_t ma = callc(g, MAIN, A, 1, 50), ab = callc(g, A, B, 1, 30), ac = callc(g, A, C, 2, 20);
        uint32_t ba = callc(g, B, A, 1, 20);
        tanalyse(g, share);
        ck_near(tot(g, MAIN), 50);
        ck_near(tot(g, A), 50);
        ck_near(tot(g, B), 10);
        ck_near(tot(g, C), 20);
        ck_near(etot(g, ma), 50);
        ck_near(etot(g, ab), 10);
        ck_near(etot(g, ac), 20);
        cgprop_edge_total_row e = tedge_totals_row(g, 0, ba);
        ck_assert(e.flags & CGPROP_F_INTRA_CYCLE);
        ck_assert(e.flags & CGPROP_F_NO_TOTAL);
        ck_near(e.heuristic, 0);
        e = tedge_totals_row(g, 0, ab);
        ck_assert(e.flags & CGPROP_F_INTRA_CYCLE);
        ck_assert(e.flags & CGPROP_F_ESTIMATE);
        ck_assert(!(e.flags & CGPROP_F_NO_TOTAL));
        cgprop_total_row a = ttotals_row(g, 0, A), b = ttotals_row(g, 0, B);
        ck_assert(a.flags & CGPROP_F_IN_CYCLE);
        ck_assert(!(a.flags & (CGPROP_F_ENTRY_ASSUMED | CGPROP_F_ROOT)));
        /* The measured calls pin A down: 50 enters it from main, and the
         * cycle's activations cost 20 + 10 + A->C 20 = 50 in all. B lies
         * between its own 10 and the 30 A sends it. Its estimate is the
         * midpoint of the heuristic's 10 and the absorbing walk's: W(A) =
         * 50 + 20 = 70, W(B) = 30; from B the walk steps to A for sure,
         * from A back to B with chance 20/70, so B meets itself again with
         * chance 2/7 and walk(B) = 30 * 5/7 = 150/7; the midpoint is
         * (150/7 + 10) / 2 = 110/7. */
        ck_assert(!(a.flags & CGPROP_F_ESTIMATE));
        ck_assert_uint_eq(a.estimate, CGPROP_EST_EXACT);
        ck_near(a.lo, 50);
        ck_near(a.hi, 50);
        ck_near(a.total, 50);
        ck_assert(b.flags & CGPROP_F_ESTIMATE);
        ck_assert(!(b.flags & (CGPROP_F_CLAMPED | CGPROP_F_NO_WALK)));
        ck_assert_uint_eq(b.estimate, CGPROP_EST_MIDPOINT);
        ck_assert_uint_eq(b.reason, CGPROP_R_RECURSION);
        ck_near(b.lo, 10);
        ck_near(b.hi, 30);
        ck_assert(fabs(b.walk - 150.0 / 7) <= 1e-12 * 150);
        ck_near(b.total, 110.0 / 7);
        ck_assert(a.flags & CGPROP_F_NO_WALK); /* exact: no walk needed */
        /* Either model alone on request, and the budget's way out: a
         * budget of 0.0001 units per member (one unit for the cycle, given
         * the budget of 10,000 members) cannot eliminate two members (the
         * dense kernel counts 1 + 4 units). */
        ck_assert_int_eq(cgprop_graph_set_estimate(g, CGPROP_EST_WALK, 0), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
        b = ttotals_row(g, 0, B);
        ck_assert_uint_eq(b.estimate, CGPROP_EST_WALK);
        ck_near(b.total, 150.0 / 7);
        ck_assert_int_eq(cgprop_graph_set_estimate(g, CGPROP_EST_HEURISTIC, 0), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
        b = ttotals_row(g, 0, B);
        ck_assert_uint_eq(b.estimate, CGPROP_EST_HEURISTIC);
        ck_assert(b.flags & CGPROP_F_NO_WALK);
        ck_near(b.total, 10);
        ck_assert_int_eq(cgprop_graph_set_estimate(g, CGPROP_EST_MIDPOINT, 0.0001), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
        b = ttotals_row(g, 0, B);
        ck_assert_uint_eq(b.estimate, CGPROP_EST_BUDGET);
        ck_assert(b.flags & CGPROP_F_NO_WALK);
        ck_near(b.total, 10);
        ck_near(ttotals_row(g, 0, A).total, 50);
        ck_near(a.vertex_total, 50);
        ck_near(a.gprof_self + a.gprof_child, 40);
        ck_near(a.spont_share, 0);
        ck_near(tcycle_row(g, 0, 0).total, 50);
        cgprop_graph_free(g);
    }
}
END_TEST

START_TEST(test_two_entries)
{
    /* Two entries (fixture abc2.callgrind): main->A 50, main->B 30;
     * A self 30, A->B 30, A->C 30; B self 20, B->A 20; C self 30. Program 80.
     * rho(A) = 5/8, rho(B) = 3/8; bases A 60, B 20; T(Z) = 80.
     * Root A: p(B) = 5/8*20 = 12.5, p(A) = 37.5 + 12.5 = 50.
     * Root B: p(A) = 3/8*60 = 22.5, p(B) = 7.5 + 22.5 = 30.
     * A = 72.5 (.90625), B = 42.5 (.53125), A->B 12.5, B->A 22.5. */
    enum { MAIN, A, B, C };
    cgprop_graph *g = tgraph_n(1, 4);
    tself1(g, A, 30);
    tself1(g, B, 20);
    tself1(g, C, 30);
    uint32_t ma = callc(g, MAIN, A, 1, 50), mb = callc(g, MAIN, B, 1, 30);
    uint32_t ab = callc(g, A, B, 1, 30), ac = callc(g, A, C, 3, 30), ba = callc(g, B, A, 1, 20);
    tanalyse(g, CGPROP_SHARE_COST);
    ck_near(tot(g, A), 72.5);
    ck_near(tot(g, B), 42.5);
    ck_near(tot(g, C), 30);
    ck_near(tot(g, MAIN), 80);
    ck_near(etot(g, ab), 12.5);
    ck_near(etot(g, ba), 22.5);
    ck_near(etot(g, ma), 50);
    ck_near(etot(g, mb), 30);
    ck_near(etot(g, ac), 30);
    ck_near(tedge_totals_row(g, 0, ma).share, 0.625);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_three_cycle_two_entries)
{
    /* Z = {A,B,C}: A->B, B->C, C->A (count 1 each); main->A 3, main->C 1.
     * Selves A 10, B 20, C 30: T(Z) = 60, rho(A) = 3/4, rho(C) = 1/4.
     * Root A: ranks A0 B1 C2, kept A->B, B->C: p(C) = 22.5, p(B) = 15 + 22.5
     *   = 37.5, p(A) = 7.5 + 37.5 = 45.
     * Root C: ranks C0 A1 B2, kept C->A, A->B: p(B) = 5, p(A) = 2.5 + 5 = 7.5,
     *   p(C) = 7.5 + 7.5 = 15.
     * A = 52.5, B = 42.5, C = 37.5; A->B 42.5, B->C 22.5, C->A 7.5. */
    enum { MAIN, A, B, C };
    cgprop_graph *g = tgraph_n(1, 4);
    tself1(g, A, 10);
    tself1(g, B, 20);
    tself1(g, C, 30);
    uint32_t ma = tcall(g, MAIN, A, 3, NULL), mc = tcall(g, MAIN, C, 1, NULL);
    uint32_t ab = tcall(g, A, B, 1, NULL), bc = tcall(g, B, C, 1, NULL), ca = tcall(g, C, A, 1, NULL);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tot(g, A), 52.5);
    ck_near(tot(g, B), 42.5);
    ck_near(tot(g, C), 37.5);
    ck_near(etot(g, ab), 42.5);
    ck_near(etot(g, bc), 22.5);
    ck_near(etot(g, ca), 7.5);
    ck_near(etot(g, ma), 45);
    ck_near(etot(g, mc), 15);
    ck_near(tot(g, MAIN), 60);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_diamond_renormalise)
{
    /* Z = {A,B,C,D}: A->B 1, A->C 1, B->D 1, C->D 3, D->A 1; main->A.
     * Selves A1 B2 C4 D8. Root A: ranks A0 B1 C1 D2; D has two kept
     * in-edges, weights 1 and 3 -> 1/4 and 3/4.
     * p(D) = 8, p(B) = 2 + 2 = 4, p(C) = 4 + 6 = 10, p(A) = 1 + 4 + 10 = 15. */
    enum { MAIN, A, B, C, D };
    cgprop_graph *g = tgraph_n(1, 5);
    tself1(g, A, 1);
    tself1(g, B, 2);
    tself1(g, C, 4);
    tself1(g, D, 8);
    tcall(g, MAIN, A, 1, NULL);
    uint32_t ab = tcall(g, A, B, 1, NULL), ac = tcall(g, A, C, 1, NULL), bd = tcall(g, B, D, 1, NULL),
             cd = tcall(g, C, D, 3, NULL);
    uint32_t da = tcall(g, D, A, 1, NULL);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tot(g, A), 15);
    ck_near(tot(g, B), 4);
    ck_near(tot(g, C), 10);
    ck_near(tot(g, D), 8);
    ck_near(etot(g, ab), 4);
    ck_near(etot(g, ac), 10);
    ck_near(etot(g, bd), 2);
    ck_near(etot(g, cd), 6);
    ck_assert(tedge_totals_row(g, 0, da).flags & CGPROP_F_NO_TOTAL);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_nested_members)
{
    /* support.h's tnested_cycles (T(Z1) = 92, T(Z2) = 80 in collapse):
     * Z1 = {P,Q} entered only at P: P = 92, Q = its gprof figure 8 + 40 = 48.
     * Z2 = {R,S}: Q->R 1 and P->S 1, so rho(R) = rho(S) = 1/2; bases R 16,
     * S 32 + 32 = 64. Root R: p(S) = 32, p(R) = 8 + 32 = 40. Root S:
     * p(R) = 8, p(S) = 32 + 8 = 40. R = 48, S = 72, R->S 32, S->R 8. */
    enum { M, X, Y, P, Q, R, S, L };
    uint32_t e[12];
    cgprop_graph *g = tnested_cycles(e);
    uint32_t pq = e[5], qp = e[6], rs = e[9], sr = e[10];
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tot(g, P), 92);
    ck_near(tot(g, Q), 48);
    ck_near(tot(g, R), 48);
    ck_near(tot(g, S), 72);
    ck_near(etot(g, pq), 48);
    ck_assert(tedge_totals_row(g, 0, qp).flags & CGPROP_F_NO_TOTAL);
    ck_near(etot(g, rs), 32);
    ck_near(etot(g, sr), 8);
    ck_near(tot(g, M), 127);
    cgprop_graph_free(g);
}
END_TEST

/* ---- corner cases cgprop settles its own way ---- */

START_TEST(test_spontaneous_inside_cycle)
{
    /* main->A cost 30; Z = {A,B}: A->B 25, B->A 5; B->C 20; selves A 10,
     * B 20, C 20; B is also entered spontaneously with cost 20 (a stack
     * whose first frame is B). W(Z) = 30 + 20 = 50: rho(A) = .6, rho(B) = .4.
     * T(Z) = 50, bases A 10, B 40.
     * Root A: p(B) = 24, p(A) = 6 + 24 = 30. Root B: p(A) = 4, p(B) = 16 + 4 = 20.
     * A = 34, B = 44; B's spontaneous share = 20 = its incoming remainder. */
    enum { MAIN, A, B, C };
    cgprop_graph *g = tgraph_n(1, 4);
    tself1(g, A, 10);
    tself1(g, B, 20);
    tself1(g, C, 20);
    uint64_t sc = 20;
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, B, 1, &sc), CGPROP_OK);
    uint32_t ma = callc(g, MAIN, A, 1, 30), ab = callc(g, A, B, 1, 25), ba = callc(g, B, A, 1, 5);
    callc(g, B, C, 1, 20);
    tanalyse(g, CGPROP_SHARE_COST);
    ck_near(tot(g, A), 34);
    ck_near(tot(g, B), 44);
    ck_near(etot(g, ab), 24);
    ck_near(etot(g, ba), 4);
    ck_near(etot(g, ma), 30);
    ck_near(tot(g, MAIN), 30);
    cgprop_total_row b = ttotals_row(g, 0, B);
    ck_near(b.spont_share, 20);
    ck_assert(!(b.flags & CGPROP_F_ENTRY_ASSUMED));
    ck_assert(!(tcycle_row(g, 0, 0).flags & CGPROP_F_ENTRY_ASSUMED));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_stacks_entry_known)
{
    /* The A/B/C example as stacks without main (abc.collapse minus its
     * first frame): A is the first frame of every stack, so rho(A) = 1 and
     * A's total is 50 even though nothing calls the cycle {A,B}. */
    cgprop_graph *g = tgraph_n(1, 3);
    enum { A, B, C };
    uint64_t w = 10;
    const uint32_t s1[] = {A}, s2[] = {A, C}, s3[] = {A, B}, s4[] = {A, B, A}, s5[] = {A, B, A, C};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 1, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 2, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 2, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s4, 3, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s5, 4, &w), CGPROP_OK);
    tanalyse(g, CGPROP_SHARE_AUTO);
    ck_near(tot(g, A), 50);
    ck_near(tot(g, B), 10);
    ck_near(tot(g, C), 20);
    ck_near(ttotals_row(g, 0, A).spont_share, 50);
    cgprop_cycle_row c = tcycle_row(g, 0, 0);
    ck_assert(!(c.flags & (CGPROP_F_ENTRY_ASSUMED | CGPROP_F_ROOT)));
    /* --share count: stacks carry no counts, yet A names the entry. */
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tot(g, A), 50);
    ck_assert(!(tcycle_row(g, 0, 0).flags & CGPROP_F_ENTRY_ASSUMED));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_root_cycle)
{
    /* abc_rootcycle: the A/B/C example without main. Nothing says where
     * {A,B} was entered: its lowest id is the assumed entry (rho 1), flagged.
     * A first: A = 50, B = 10 (gprof2dot: both 0). B first (lower id):
     * B = T(Z) = 50, A = its gprof figure 20 + 20 = 40. */
    for (int b_first = 0; b_first < 2; b_first++) {
        cgprop_graph *g = tgraph_n(1, 0);
        uint32_t A, B, C;
        if (b_first) {
            ck_assert_int_eq(cgprop_graph_add_node(g, "B", 1, &B), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_add_node(g, "A", 1, &A), CGPROP_OK);
        } else {
            ck_assert_int_eq(cgprop_graph_add_node(g, "A", 1, &A), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_add_node(g, "B", 1, &B), CGPROP_OK);
        }
        ck_assert_int_eq(cgprop_graph_add_node(g, "C", 1, &C), CGPROP_OK);
        tself1(g, A, 20);
        tself1(g, B, 10);
        tself1(g, C, 20);
        uint32_t ab = callc(g, A, B, 1, 30), ba = callc(g, B, A, 1, 20);
        callc(g, A, C, 2, 20);
        tanalyse(g, CGPROP_SHARE_AUTO);
        cgprop_cycle_row c = tcycle_row(g, 0, 0);
        ck_near(c.total, 50);
        ck_assert(c.flags & CGPROP_F_ENTRY_ASSUMED);
        ck_assert(c.flags & CGPROP_F_ROOT);
        cgprop_total_row a = ttotals_row(g, 0, A), b = ttotals_row(g, 0, B);
        ck_assert(a.flags & CGPROP_F_ENTRY_ASSUMED);
        ck_assert(b.flags & CGPROP_F_ENTRY_ASSUMED);
        ck_near(tot(g, C), 20);
        if (!b_first) {
            ck_near(a.heuristic, 50);
            ck_near(b.heuristic, 10);
            ck_near(a.spont_share, 50);
            ck_near(b.spont_share, 0);
            ck_near(etot(g, ab), 10);
            ck_assert(tedge_totals_row(g, 0, ba).flags & CGPROP_F_NO_TOTAL);
        } else {
            ck_near(b.heuristic, 50);
            ck_near(a.heuristic, 40);
            ck_near(b.spont_share, 50);
            ck_near(etot(g, ba), 40);
            ck_assert(tedge_totals_row(g, 0, ab).flags & CGPROP_F_NO_TOTAL);
        }
        /* Nothing enters the cycle: whichever member was the entry had the
         * cycle's whole 50, so each lies between its own self cost and 50,
         * and says so. The walk leaves where the heuristic assumes the
         * entry, the member with the lowest id: from there it leaves at
         * once (walk = W = what the other member sends it), from the other
         * member it steps there for sure and never returns (walk = W). So
         * walk(A) = W(A) = 20 (B->A) and walk(B) = W(B) = 30 (A->B), either
         * way round; the totals are the midpoints with the heuristic. */
        ck_near(a.lo, 20);
        ck_near(a.hi, 50);
        ck_near(b.lo, 10);
        ck_near(b.hi, 50);
        ck_assert_uint_eq(a.reason, CGPROP_R_ENTRY_UNKNOWN);
        ck_assert_uint_eq(b.reason, CGPROP_R_ENTRY_UNKNOWN);
        ck_assert_uint_eq(a.estimate, CGPROP_EST_MIDPOINT);
        ck_near(a.walk, 20);
        ck_near(b.walk, 30);
        ck_near(a.total, (20 + a.heuristic) / 2);
        ck_near(b.total, (30 + b.heuristic) / 2);
        /* C, below it, is exact: what A's calls into it measure. */
        ck_assert_uint_eq(ttotals_row(g, 0, C).estimate, CGPROP_EST_EXACT);
        cgprop_graph_free(g);
    }
}
END_TEST

START_TEST(test_zero_dag)
{
    /* zero_dag.callgrind: main self 1, main->R 10, main->Z 50; R self 5,
     * R->X 5, R->Y 0; X self 5, X->Z 0; Y->Z 0; Z self 50, Z->R 0.
     * Cycle {R,X,Y,Z}, T = 60, rho(R) = 1/6, rho(Z) = 5/6.
     * Root R: ranks R0 X1 Y1 Z2; Z's kept in-edges X->Z, Y->Z weigh 0: 1/2
     *   each (gprof2dot: 1 each, and fails its assertion). Y's only kept
     *   in-edge R->Y weighs 0: it takes it all.
     *   p(Z) = 50/6, p(X) = 5/6 + 25/6 = 5, p(Y) = 25/6, p(R) = 5/6 + 5 + 25/6 = 10.
     * Root Z: ranks Z0 R1 X2 Y2; kept Z->R, R->X, R->Y.
     *   p(X) = 25/6, p(Y) = 0, p(R) = 25/6 + 25/6 = 50/6, p(Z) = 250/6 + 50/6 = 50.
     * R = 10 + 50/6, X = 5 + 25/6, Y = 25/6, Z = 50/6 + 50. */
    enum { MAIN, R, X, Y, Z };
    cgprop_graph *g = tgraph_n(1, 5);
    tself1(g, MAIN, 1);
    tself1(g, R, 5);
    tself1(g, X, 5);
    tself1(g, Z, 50);
    callc(g, MAIN, R, 1, 10);
    callc(g, MAIN, Z, 1, 50);
    uint32_t rx = callc(g, R, X, 1, 5), ry = callc(g, R, Y, 1, 0), xz = callc(g, X, Z, 1, 0);
    uint32_t yz = callc(g, Y, Z, 1, 0), zr = callc(g, Z, R, 1, 0);
    tanalyse(g, CGPROP_SHARE_COST);
    ck_near(tcycle_row(g, 0, 0).total, 60);
    ck_near(tot(g, MAIN), 61);
    ck_near(tot(g, R), 10 + 50.0 / 6);
    ck_near(tot(g, X), 5 + 25.0 / 6);
    ck_near(tot(g, Y), 25.0 / 6);
    ck_near(tot(g, Z), 50 + 50.0 / 6);
    ck_near(etot(g, rx), 5 + 25.0 / 6);
    ck_near(etot(g, ry), 25.0 / 6);
    ck_near(etot(g, xz), 25.0 / 6);
    ck_near(etot(g, yz), 25.0 / 6);
    ck_near(etot(g, zr), 50.0 / 6);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_zero_external_callers)
{
    /* Z = {A,B} called by main->A and main->B with count 0 (A<->B 5 each):
     * no weight anywhere, two callers: each external call gets 1/2, so
     * rho(A) = rho(B) = 1/2. Selves A 10, B 30, T(Z) = 40.
     * Root A: p(B) = 15, p(A) = 5 + 15 = 20. Root B: p(A) = 5, p(B) = 20.
     * A = 25, B = 35; main = 40 (gprof2dot: 80). */
    enum { MAIN, A, B };
    cgprop_graph *g = tgraph_n(1, 3);
    tself1(g, A, 10);
    tself1(g, B, 30);
    uint32_t ma = tcall(g, MAIN, A, 0, NULL), mb = tcall(g, MAIN, B, 0, NULL);
    tcall(g, A, B, 5, NULL);
    tcall(g, B, A, 5, NULL);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tot(g, A), 25);
    ck_near(tot(g, B), 35);
    ck_near(tot(g, MAIN), 40);
    ck_near(tedge_totals_row(g, 0, ma).share, 0.5);
    ck_near(etot(g, mb), 20);
    ck_assert(!(tcycle_row(g, 0, 0).flags & CGPROP_F_ENTRY_ASSUMED));
    cgprop_graph_free(g);
}
END_TEST

/* ---- agreement with gprof2dot on real callgrind profiles ---- */

/* A reader of just what gprof2dot reads: functions keyed by bare name,
 * the first event only, self cost from plain cost lines, call cost from
 * the line after calls=. Enough for the fixtures, not a general reader. */
typedef struct namemap {
    char **name;
    size_t cap;
} namemap;

static const char *compressed_name(namemap *m, const char *s)
{
    if (*s != '(') return s;
    char *end;
    unsigned long id = strtoul(s + 1, &end, 10);
    ck_assert(*end == ')');
    end++;
    while (*end == ' ') end++;
    if (id >= m->cap) {
        size_t cap = (id + 1) * 2;
        m->name = realloc(m->name, cap * sizeof *m->name);
        ck_assert_ptr_nonnull(m->name);
        memset(m->name + m->cap, 0, (cap - m->cap) * sizeof *m->name);
        m->cap = cap;
    }
    if (*end) {
        free(m->name[id]);
        m->name[id] = strdup(end);
    }
    ck_assert_ptr_nonnull(m->name[id]);
    return m->name[id];
}

static uint32_t node_by_name(cgprop_graph *g, const char *name)
{
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_add_node(g, name, strlen(name), &id), CGPROP_OK);
    return id;
}

static uint64_t first_event(const char *s, int npos)
{
    for (int i = 0; i < npos; i++) {
        while (*s == ' ' || *s == '\t') s++;
        while (*s && *s != ' ' && *s != '\t') s++;
    }
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return 0;
    return strtoull(s, NULL, strncmp(s, "0x", 2) == 0 ? 16 : 10);
}

static cgprop_graph *read_callgrind(const char *path, double *program)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    cgprop_graph *g = tgraph_n(1, 0);
    namemap fnm = {NULL, 0};
    char line[8192];
    int npos = 1;
    uint32_t cur = UINT32_MAX, callee = UINT32_MAX;
    uint64_t calls = 0;
    int pending = 0;
    *program = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "positions:", 10) == 0) {
            npos = 0;
            for (char *t = strtok(line + 10, " \t"); t; t = strtok(NULL, " \t")) npos++;
        } else if (strncmp(line, "fn=", 3) == 0) {
            cur = node_by_name(g, compressed_name(&fnm, line + 3));
        } else if (strncmp(line, "cfn=", 4) == 0) {
            callee = node_by_name(g, compressed_name(&fnm, line + 4));
        } else if (strncmp(line, "calls=", 6) == 0) {
            calls = strtoull(line + 6, NULL, 10);
            pending = 1;
        } else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' || line[0] == '*') {
            uint64_t c = first_event(line, npos);
            ck_assert_uint_ne(cur, UINT32_MAX);
            if (pending) {
                ck_assert_int_eq(cgprop_graph_add_edge(g, cur, callee, calls, &c, NULL), CGPROP_OK);
                pending = 0;
            } else {
                ck_assert_int_eq(cgprop_graph_add_self(g, cur, &c), CGPROP_OK);
                *program += (double)c;
            }
        }
    }
    fclose(f);
    for (size_t i = 0; i < fnm.cap; i++) free(fnm.name[i]);
    free(fnm.name);
    return g;
}

static const char *const fixtures[] = {"abc", "abc2", "bool", "googlecode-issue98", "xapian"};

START_TEST(test_gprof2dot_agreement)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/prop/%s.callgrind", CGPROP_TEST_DATA, fixtures[_i]);
    double program;
    cgprop_graph *g = read_callgrind(path, &program);
    ck_assert(program > 0);
    tanalyse(g, CGPROP_SHARE_AUTO);

    snprintf(path, sizeof path, "%s/prop/%s.callgrind.tsv", CGPROP_TEST_DATA, fixtures[_i]);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    static char line[1 << 16];
    size_t nf = 0, ncall = 0, with_total = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *col[9] = {0};
        int nc = 0;
        for (char *p = line; nc < 9;) {
            col[nc++] = p;
            char *t = strchr(p, '\t');
            if (!t) break;
            *t = '\0';
            p = t + 1;
        }
        if (col[0][0] == 'F') {
            ck_assert_int_ge(nc, 6);
            uint32_t id;
            ck_assert_int_eq(cgprop_graph_find_node(g, col[1], strlen(col[1]), &id), CGPROP_OK);
            double want = strtod(col[5], NULL), got = tot(g, id) / program;
            ck_assert_msg(fabs(got - want) <= 1e-9, "%s: function %s total %.15g, gprof2dot %.15g", fixtures[_i],
                          col[1], got, want);
            nf++;
        } else if (col[0][0] == 'C') {
            ck_assert_int_ge(nc, 6);
            uint32_t a, b, e;
            ck_assert_int_eq(cgprop_graph_find_node(g, col[1], strlen(col[1]), &a), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_find_node(g, col[2], strlen(col[2]), &b), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_find_edge(g, a, b, &e), CGPROP_OK);
            cgprop_edge_total_row r = tedge_totals_row(g, 0, e);
            if (col[5][0] == '\0') {
                /* gprof2dot gives no total: a self-call or an intra-cycle call in no DAG. */
                ck_assert_msg(r.flags & CGPROP_F_NO_TOTAL, "%s: call %s -> %s should have no total", fixtures[_i],
                              col[1], col[2]);
            } else {
                double want = strtod(col[5], NULL), got = r.heuristic / program;
                ck_assert_msg(!(r.flags & CGPROP_F_NO_TOTAL), "%s: call %s -> %s lacks a total", fixtures[_i],
                              col[1], col[2]);
                ck_assert_msg(fabs(got - want) <= 1e-9, "%s: call %s -> %s total %.15g, gprof2dot %.15g",
                              fixtures[_i], col[1], col[2], got, want);
                with_total++;
            }
            ncall++;
        }
    }
    fclose(f);
    ck_assert_uint_eq(nf, cgprop_graph_node_count(g));
    ck_assert_uint_eq(ncall, cgprop_graph_edge_count(g));
    ck_assert_uint_gt(with_total, 0);
    cgprop_graph_free(g);
}
END_TEST

/* ---- properties on random graphs ---- */

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)((rng >> 33) % n);
}

enum { RMAXN = 24, RMAXE = 80, RK = 2 };

typedef struct rgraph {
    uint32_t n, ne, nsp;
    uint64_t self[RMAXN][RK];
    uint32_t ea[RMAXE], eb[RMAXE];
    uint64_t ecount[RMAXE], ecost[RMAXE][RK];
    int has_cost[RMAXE];
    uint32_t sp[RMAXN];
    uint64_t spcount[RMAXN], spcost[RMAXN][RK];
} rgraph;

static void random_graph(rgraph *r)
{
    memset(r, 0, sizeof *r);
    r->n = 1 + rnd(RMAXN);
    /* Dense enough for big SCCs, sparse enough for DAG parts. */
    r->ne = rnd(r->n * 3 < RMAXE ? r->n * 3 + 1 : RMAXE);
    for (uint32_t i = 0; i < r->n; i++)
        for (uint32_t k = 0; k < RK; k++) r->self[i][k] = rnd(4) ? rnd(100) : 0;
    for (uint32_t e = 0; e < r->ne; e++) {
        r->ea[e] = rnd(r->n);
        r->eb[e] = rnd(10) ? rnd(r->n) : r->ea[e];
        r->ecount[e] = rnd(5) ? 1 + rnd(5) : 0;
        r->has_cost[e] = rnd(8) != 0;
        for (uint32_t k = 0; k < RK; k++) r->ecost[e][k] = rnd(6) ? rnd(100) : 0;
    }
    r->nsp = rnd(4);
    for (uint32_t i = 0; i < r->nsp; i++) {
        r->sp[i] = rnd(r->n);
        r->spcount[i] = rnd(3);
        for (uint32_t k = 0; k < RK; k++) r->spcost[i][k] = rnd(3) ? rnd(50) : 0;
    }
}

/* Build with calls added in the order perm (duplicates accumulate). */
static cgprop_graph *build_rgraph(const rgraph *r, const uint32_t *perm)
{
    cgprop_graph *g = tgraph_n(RK, r->n);
    for (uint32_t i = 0; i < r->n; i++) ck_assert_int_eq(cgprop_graph_add_self(g, i, r->self[i]), CGPROP_OK);
    for (uint32_t j = 0; j < r->ne; j++) {
        uint32_t e = perm[j];
        ck_assert_int_eq(cgprop_graph_add_edge(g, r->ea[e], r->eb[e], r->ecount[e],
                                               r->has_cost[e] ? r->ecost[e] : NULL, NULL),
                         CGPROP_OK);
    }
    for (uint32_t i = 0; i < r->nsp; i++)
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g, r->sp[i], r->spcount[i], r->spcost[i]), CGPROP_OK);
    return g;
}

#define ck_tol(a, b, tol) ck_assert_msg(fabs((a) - (b)) <= (tol), "%s = %.15g, want %.15g (seed case %d)", #a, \
                                        (double)(a), (double)(b), _i)

START_TEST(test_random_properties)
{
    rng = 0x5eed0000u + (uint64_t)_i;
    for (int round = 0; round < 50; round++) {
        rgraph r;
        random_graph(&r);
        uint32_t perm[RMAXE], rev[RMAXE];
        for (uint32_t e = 0; e < r.ne; e++) perm[e] = e;
        for (uint32_t e = r.ne; e > 1; e--) {
            uint32_t j = rnd(e), t = perm[e - 1];
            perm[e - 1] = perm[j];
            perm[j] = t;
        }
        for (uint32_t e = 0; e < r.ne; e++) rev[e] = e;
        uint32_t share = 1 + rnd(2);
        cgprop_graph *g = build_rgraph(&r, rev), *h = build_rgraph(&r, perm);
        tanalyse(g, share);
        tanalyse(h, share);

        /* Oracle SCCs by transitive closure. */
        unsigned char reach[RMAXN][RMAXN];
        memset(reach, 0, sizeof reach);
        for (uint32_t e = 0; e < r.ne; e++) reach[r.ea[e]][r.eb[e]] = 1;
        for (uint32_t k = 0; k < r.n; k++)
            for (uint32_t i = 0; i < r.n; i++)
                if (reach[i][k])
                    for (uint32_t j = 0; j < r.n; j++) reach[i][j] |= reach[k][j];

        size_t ne = cgprop_graph_edge_count(g);
        for (uint32_t k = 0; k < RK; k++) {
            double prog = 0;
            for (uint32_t i = 0; i < r.n; i++) prog += (double)r.self[i][k];
            double tol = 1e-9 * (prog + 1);
            double in_sum[RMAXN] = {0}, out_sum[RMAXN] = {0}, ext_out[RMAXN] = {0};
            for (uint32_t e = 0; e < ne; e++) {
                cgprop_edge_total_row er = tedge_totals_row(g, k, e);
                if (er.flags & CGPROP_F_NO_TOTAL) ck_assert(er.heuristic == 0);
                if (er.caller == er.callee) ck_assert(er.flags & CGPROP_F_SELF_CALL);
                int same = er.caller != er.callee && reach[er.caller][er.callee] && reach[er.callee][er.caller];
                ck_assert_int_eq(!!(er.flags & CGPROP_F_INTRA_CYCLE), same);
                in_sum[er.callee] += er.heuristic;
                out_sum[er.caller] += er.heuristic;
                if (!same) ext_out[er.caller] += er.heuristic;
                /* Order independence, call by call. */
                uint32_t e2;
                ck_assert_int_eq(cgprop_graph_find_edge(h, er.caller, er.callee, &e2), CGPROP_OK);
                cgprop_edge_total_row er2 = tedge_totals_row(h, k, e2);
                ck_tol(er2.heuristic, er.heuristic, tol);
                ck_assert_uint_eq(er2.flags, er.flags);
            }
            double zsum[RMAXN] = {0}, zext[RMAXN] = {0};
            for (uint32_t v = 0; v < r.n; v++) {
                cgprop_total_row t = ttotals_row(g, k, v);
                int member = 0;
                for (uint32_t u = 0; u < r.n; u++) member |= u != v && reach[u][v] && reach[v][u];
                ck_assert_int_eq(!!(t.flags & CGPROP_F_IN_CYCLE), member);
                /* Every function: incoming call totals + spontaneous share = total. */
                ck_tol(in_sum[v] + t.spont_share, t.heuristic, tol);
                if (!member) {
                    ck_tol(t.heuristic, t.vertex_total, tol);
                    ck_tol((double)r.self[v][k] + out_sum[v], t.heuristic, tol);
                    ck_tol(t.gprof_self + t.gprof_child, t.heuristic, tol);
                } else {
                    /* gprof figure <= total <= T(Z). */
                    ck_assert_msg(t.gprof_self + t.gprof_child <= t.heuristic + tol, "member below its gprof figure");
                    ck_assert_msg(t.heuristic <= t.vertex_total + tol, "member above its cycle");
                    ck_tol(t.gprof_self + t.gprof_child, (double)r.self[v][k] + ext_out[v], tol);
                    zsum[t.cycle] += t.gprof_self + t.gprof_child;
                    zext[t.cycle] += t.spont_share;
                }
                cgprop_total_row t2 = ttotals_row(h, k, v);
                ck_tol(t2.heuristic, t.heuristic, tol);
                ck_tol(t2.spont_share, t.spont_share, tol);
                /* A heuristic at an end of its interval may fall either side
                 * of it by rounding: CLAMPED can differ. */
                ck_assert_uint_eq(t2.flags & ~(uint32_t)CGPROP_F_CLAMPED, t.flags & ~(uint32_t)CGPROP_F_CLAMPED);
            }
            /* Per cycle: members' gprof figures add up to T(Z), and so do the
             * shares that enter it (calls from outside + spontaneous). */
            cgprop_iter *it;
            ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CYCLES, k, 0, &it), CGPROP_OK);
            size_t ncyc = cgprop_iter_count(it);
            cgprop_iter_free(it);
            for (uint32_t e = 0; e < ne; e++) {
                cgprop_edge_total_row er = tedge_totals_row(g, k, e);
                uint32_t cb = ttotals_row(g, k, er.callee).cycle;
                if (cb != CGPROP_NONE && ttotals_row(g, k, er.caller).cycle != cb) zext[cb] += er.heuristic;
            }
            for (uint32_t c = 0; c < ncyc; c++) {
                cgprop_cycle_row cr;
                ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, k, c, &cr, sizeof cr), CGPROP_OK);
                ck_tol(zsum[c], cr.total, tol);
                ck_tol(zext[c], cr.total, tol);
            }
        }
        cgprop_graph_free(g);
        cgprop_graph_free(h);
    }
}
END_TEST

START_TEST(test_random_entry_linearity)
{
    /* Totals are linear in the entries: for a cycle entered only
     * spontaneously at members r with weights a_r, each member's total is
     * Σ_r (a_r / Σa) · (its total when r alone is the entry). A graph with a
     * single entry r is a different graph, so this is checked across runs. */
    rng = 0x11ea0000u + (uint64_t)_i;
    for (int round = 0; round < 20; round++) {
        uint32_t n = 2 + rnd(12);
        /* A ring makes one cycle of all n; chords add structure; leaves
         * below hang off some members. */
        cgprop_graph *base = NULL;
        uint32_t ea[64], eb[64], ne = 0;
        uint64_t ec[64];
        for (uint32_t i = 0; i < n; i++) {
            ea[ne] = i;
            eb[ne] = (i + 1) % n;
            ec[ne++] = 1 + rnd(9);
        }
        uint32_t chords = rnd(n + 1);
        for (uint32_t i = 0; i < chords; i++) {
            ea[ne] = rnd(n);
            eb[ne] = rnd(n);
            ec[ne++] = rnd(4) ? 1 + rnd(9) : 0;
        }
        for (uint32_t i = 0; i < 3; i++) {
            ea[ne] = rnd(n);
            eb[ne] = n + i;
            ec[ne++] = 1 + rnd(5);
        }
        uint64_t selfs[20], a[20];
        for (uint32_t i = 0; i < n + 3; i++) selfs[i] = rnd(50);
        double asum = 0;
        for (uint32_t i = 0; i < n; i++) {
            a[i] = rnd(3) ? 0 : 1 + rnd(9);
            asum += (double)a[i];
        }
        if (asum == 0) {
            a[0] = 1;
            asum = 1;
        }
        double expect[20] = {0};
        for (int which = -1; which < (int)n; which++) {
            if (which >= 0 && !a[which]) continue;
            cgprop_graph *g = tgraph_n(1, n + 3);
            for (uint32_t i = 0; i < n + 3; i++) tself1(g, i, selfs[i]);
            for (uint32_t e = 0; e < ne; e++) tcall(g, ea[e], eb[e], ec[e], NULL);
            for (uint32_t i = 0; i < n; i++) {
                if (!a[i] || (which >= 0 && (uint32_t)which != i)) continue;
                uint64_t zero = 0;
                ck_assert_int_eq(cgprop_graph_add_spontaneous(g, i, a[i], &zero), CGPROP_OK);
            }
            tanalyse(g, CGPROP_SHARE_COUNT);
            if (which < 0) {
                base = g;
                continue;
            }
            for (uint32_t i = 0; i < n; i++) expect[i] += (double)a[which] / asum * tot(g, i);
            /* A single entry holds the whole cycle. */
            ck_near(tot(g, (uint32_t)which), tcycle_row(g, 0, 0).total);
            cgprop_graph_free(g);
        }
        for (uint32_t i = 0; i < n; i++) ck_near(tot(base, i), expect[i]);
        cgprop_graph_free(base);
    }
}
END_TEST

/* ---- batches of entries against a per-entry oracle ---- */

/* The library runs up to 32 entries at once and cuts each BFS level into
 * words of 64 calls; this checks those cuts against per-root propagation done the
 * plain way, one entry at a time, on cycles with more entries than a batch holds,
 * levels that start mid-word, more BFS levels than the first allocation,
 * self-calls, and zero-weight calls. Shapes 4 and 5 have enough calls
 * (over 2,000) for the library's other way of doing a level that reaches
 * most of the cycle (every call at once, in bitmaps over all calls), also
 * in a last batch of fewer than 32 entries. The cycle is entered only
 * spontaneously and no call leaves it, so under a count share ρ(r) is r's
 * spontaneous count over their sum and a member's base is its self cost. */
enum { OV = 1200, OE = 5 * OV };

typedef struct ocase {
    uint32_t n, ne;
    uint32_t a[OE], b[OE];
    uint64_t w[OE];
    uint64_t self[OV], spont[OV];
} ocase;

static void oracle(const ocase *c, double *tot_out, double *etot_out, int *kept_out)
{
    double ssum = 0;
    for (uint32_t i = 0; i < c->n; i++) ssum += (double)c->spont[i];
    for (uint32_t i = 0; i < c->n; i++) tot_out[i] = 0;
    for (uint32_t e = 0; e < c->ne; e++) {
        etot_out[e] = 0;
        kept_out[e] = 0;
    }
    /* Each member's calls, in call order (a plain list, not the library's). */
    static uint32_t first[OV + 1], byc[OE];
    for (uint32_t i = 0; i <= c->n; i++) first[i] = 0;
    for (uint32_t e = 0; e < c->ne; e++) first[c->a[e] + 1]++;
    for (uint32_t i = 0; i < c->n; i++) first[i + 1] += first[i];
    {
        static uint32_t fill[OV];
        for (uint32_t i = 0; i < c->n; i++) fill[i] = first[i];
        for (uint32_t e = 0; e < c->ne; e++) byc[fill[c->a[e]]++] = e;
    }
    for (uint32_t r = 0; r < c->n; r++) {
        if (!c->spont[r]) continue;
        double rho = (double)c->spont[r] / ssum;
        static int rank[OV];
        static uint32_t queue[OV];
        uint32_t h = 0, t = 0;
        for (uint32_t i = 0; i < c->n; i++) rank[i] = -1;
        rank[r] = 0;
        queue[t++] = r;
        while (h < t) {
            uint32_t u = queue[h++];
            for (uint32_t x = first[u]; x < first[u + 1]; x++) {
                uint32_t e = byc[x];
                if (c->b[e] != u && rank[c->b[e]] < 0) {
                    rank[c->b[e]] = rank[u] + 1;
                    queue[t++] = c->b[e];
                }
            }
        }
        ck_assert_uint_eq(t, c->n); /* one SCC */
        static double W[OV], p[OV];
        static uint32_t nk[OV];
        static int kept[OE];
        for (uint32_t i = 0; i < c->n; i++) {
            W[i] = 0;
            nk[i] = 0;
        }
        for (uint32_t e = 0; e < c->ne; e++) {
            kept[e] = c->a[e] != c->b[e] && rank[c->b[e]] == rank[c->a[e]] + 1;
            if (kept[e]) {
                W[c->b[e]] += (double)c->w[e];
                nk[c->b[e]]++;
                kept_out[e] = 1;
            }
        }
        /* Callees first: the queue in reverse is by decreasing rank. */
        for (uint32_t q = c->n; q-- > 0;) {
            uint32_t u = queue[q];
            p[u] = rho * (double)c->self[u];
            for (uint32_t x = first[u]; x < first[u + 1]; x++) {
                uint32_t e = byc[x];
                if (!kept[e]) continue;
                uint32_t v = c->b[e];
                double share = W[v] > 0 ? (double)c->w[e] / W[v] : 1.0 / nk[v];
                p[u] += share * p[v];
                etot_out[e] += share * p[v];
            }
            tot_out[u] += p[u];
        }
    }
}

/* shape 0: ring + 3n chords; 1: the same with zero counts; 2: a bare ring
 * (one level per member); 3: every member an entry; 4: 1,200 members, ring +
 * 3n chords, 80 entries (a batch of 32, one of 32, one of 16); 5: the same
 * with zero counts. */
static void ocase_make(ocase *c, int shape)
{
    memset(c, 0, sizeof *c);
    c->n = shape == 2 ? 300 : shape == 3 ? 90 : shape >= 4 ? 1200 : 150;
    static unsigned char pair[OV][OV];
    memset(pair, 0, sizeof pair);
    for (uint32_t i = 0; i < c->n; i++) {
        c->a[c->ne] = i;
        c->b[c->ne] = (i + 1) % c->n;
        c->w[c->ne++] = (shape == 1 || shape == 5) && rnd(5) == 0 ? 0 : 1 + rnd(9);
        pair[i][(i + 1) % c->n] = 1;
        c->self[i] = rnd(4) ? 1 + rnd(100) : 0;
    }
    uint32_t chords = shape == 2 ? 0 : 3 * c->n;
    for (uint32_t k = 0; k < chords; k++) {
        uint32_t u = rnd(c->n), v = rnd(8) ? rnd(c->n) : u; /* some self-calls */
        if (pair[u][v]) continue;
        pair[u][v] = 1;
        c->a[c->ne] = u;
        c->b[c->ne] = v;
        c->w[c->ne++] = (shape == 1 || shape == 5) && rnd(3) == 0 ? 0 : 1 + rnd(9);
    }
    uint32_t entries = shape == 3 ? c->n : shape == 2 ? 40 : shape >= 4 ? 80 : 70;
    for (uint32_t k = 0; k < entries; k++) c->spont[shape == 3 ? k : rnd(c->n)] += 1 + rnd(5);
}

START_TEST(test_batches_oracle)
{
    rng = 0xba7c0000u + (uint64_t)_i;
    static ocase c;
    ocase_make(&c, _i % 6);
    cgprop_graph *g = tgraph_n(1, c.n);
    uint32_t id[OE];
    for (uint32_t i = 0; i < c.n; i++) tself1(g, i, c.self[i]);
    for (uint32_t e = 0; e < c.ne; e++) id[e] = tcall(g, c.a[e], c.b[e], c.w[e], NULL);
    for (uint32_t i = 0; i < c.n; i++) {
        uint64_t zero = 0;
        if (c.spont[i]) ck_assert_int_eq(cgprop_graph_add_spontaneous(g, i, c.spont[i], &zero), CGPROP_OK);
    }
    tanalyse(g, CGPROP_SHARE_COUNT);
    static double want[OV], ewant[OE];
    static int kept[OE];
    oracle(&c, want, ewant, kept);
    double T = 0;
    for (uint32_t i = 0; i < c.n; i++) T += (double)c.self[i];
    ck_assert_double_eq_tol(tcycle_row(g, 0, 0).total, T, 1e-9 * T);
    for (uint32_t i = 0; i < c.n; i++)
        ck_assert_msg(fabs(tot(g, i) - want[i]) <= 1e-9 * T, "member %u: %.15g, oracle %.15g (case %d)", i,
                      tot(g, i), want[i], _i);
    for (uint32_t e = 0; e < c.ne; e++) {
        cgprop_edge_total_row er = tedge_totals_row(g, 0, id[e]);
        if (c.a[e] == c.b[e]) {
            ck_assert(er.flags & CGPROP_F_SELF_CALL);
            continue;
        }
        ck_assert_msg((!(er.flags & CGPROP_F_NO_TOTAL)) == kept[e], "call %u kept by the oracle: %d (case %d)", e,
                      kept[e], _i);
        ck_assert_msg(fabs(er.heuristic - ewant[e]) <= 1e-9 * T, "call %u: %.15g, oracle %.15g (case %d)", e, er.heuristic,
                      ewant[e], _i);
    }
    cgprop_graph_free(g);
}
END_TEST

/* ---- allocation failure ---- */

START_TEST(test_enomem)
{
    tfail b;
    cgprop_allocator al = tfail_allocator(&b, -1);
    const char *names[] = {"c"};
    cgprop_graph *g;
    ck_assert_int_eq(cgprop_graph_new(&al, names, NULL, 1, &g), CGPROP_OK);
    /* The two-entries graph plus a self-call. */
    for (uint32_t i = 0; i < 4; i++) {
        char key[2] = {(char)('a' + i), 0};
        uint32_t id;
        ck_assert_int_eq(cgprop_graph_add_node(g, key, 1, &id), CGPROP_OK);
    }
    tself1(g, 1, 30);
    tself1(g, 2, 20);
    tself1(g, 3, 30);
    callc(g, 0, 1, 1, 50);
    callc(g, 0, 2, 1, 30);
    callc(g, 1, 2, 1, 30);
    callc(g, 1, 3, 3, 30);
    callc(g, 2, 1, 1, 20);
    callc(g, 3, 3, 1, 5);

    /* Fresh runs: fail at every allocation in turn until each succeeds. */
    int fails = 0;
    for (long n = 0;; n++) {
        b.left = n;
        int rc = cgprop_graph_find_cycles(g, NULL);
        if (rc == CGPROP_OK) break;
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        uint32_t c;
        ck_assert_int_eq(cgprop_graph_node_cycle(g, 1, &c), CGPROP_ESTATE);
        fails++;
    }
    for (long n = 0;; n++) {
        b.left = n;
        int rc = cgprop_graph_collapse(g, CGPROP_SHARE_AUTO);
        if (rc == CGPROP_OK) break;
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_ESTATE);
        fails++;
    }
    for (long n = 0;; n++) {
        b.left = n;
        int rc = cgprop_graph_propagate(g);
        if (rc == CGPROP_OK) break;
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        fails++;
    }
    ck_assert_int_gt(fails, 3);
    b.left = -1;
    ck_near(tot(g, 1), 72.5);
    /* A failed re-run keeps the old, still valid result (and what was
     * built on it). A successful re-run of cycles changes nothing for the
     * later analyses; a successful collapse makes propagate's result stale. */
    for (long n = 0; n < 40; n++) {
        b.left = n;
        int rc = cgprop_graph_find_cycles(g, NULL);
        b.left = -1;
        ck_assert(rc == CGPROP_OK || rc == CGPROP_ENOMEM);
        ck_near(tot(g, 1), 72.5);
        b.left = n;
        rc = cgprop_graph_propagate(g);
        b.left = -1;
        ck_assert(rc == CGPROP_OK || rc == CGPROP_ENOMEM);
        ck_near(tot(g, 2), 42.5);
        b.left = n;
        rc = cgprop_graph_collapse(g, CGPROP_SHARE_AUTO);
        b.left = -1;
        if (rc == CGPROP_OK) {
            cgprop_total_row r;
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, 1, &r, sizeof r), CGPROP_ESTATE);
            ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
        }
        ck_near(tot(g, 1), 72.5);
    }
    cgprop_graph_free(g);
    ck_assert_int_eq(b.live, 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("propagate");
    TCase *tc = tcase_create("hand");
    tcase_add_test(tc, test_abc);
    tcase_add_test(tc, test_two_entries);
    tcase_add_test(tc, test_three_cycle_two_entries);
    tcase_add_test(tc, test_diamond_renormalise);
    tcase_add_test(tc, test_nested_members);
    tcase_add_test(tc, test_call_estimates);
    tcase_add_test(tc, test_exact_call_totals_are_integers);
    tcase_add_test(tc, test_cycle_estimates);
    suite_add_tcase(s, tc);
    TCase *corner = tcase_create("corner");
    tcase_add_test(corner, test_spontaneous_inside_cycle);
    tcase_add_test(corner, test_stacks_entry_known);
    tcase_add_test(corner, test_root_cycle);
    tcase_add_test(corner, test_zero_dag);
    tcase_add_test(corner, test_zero_external_callers);
    tcase_add_test(corner, test_enomem);
    suite_add_tcase(s, corner);
    TCase *g2d = tcase_create("gprof2dot");
    tcase_set_timeout(g2d, 120);
    tcase_add_loop_test(g2d, test_gprof2dot_agreement, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
    suite_add_tcase(s, g2d);
    TCase *prop = tcase_create("random");
    tcase_set_timeout(prop, 300);
    tcase_add_loop_test(prop, test_random_properties, 0, 60);
    tcase_add_loop_test(prop, test_random_entry_linearity, 0, 20);
    tcase_add_loop_test(prop, test_batches_oracle, 0, 18);
    suite_add_tcase(s, prop);
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
