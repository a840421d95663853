/* gprof-style collapse (docs/PROPAGATION.md). Every expected figure is
 * worked by hand in the comments; gprof's own printout of a small program
 * with a cycle is the source of the cycle fixture. */
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <cgprop.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_order_and_args)
{
    cgprop_graph *g = tgraph_n(1, 2);
    tcall(g, 0, 1, 1, NULL);
    ck_assert_int_eq(cgprop_graph_collapse(NULL, 0), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, 3), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COUNT), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    cgprop_iter *it;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_TOTALS, 0, 0, &it), CGPROP_OK);
    cgprop_total_row r;
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
    /* A re-run of collapse (another share) makes propagate's result stale. */
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COST), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_ESTATE);
    cgprop_iter_free(it);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, 0, &r, sizeof r), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, 0, &r, sizeof r), CGPROP_OK);
    /* A mutation makes both stale; collapse needs the cycles again. */
    tself1(g, 1, 5);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COUNT), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, 0, &r, sizeof r), CGPROP_ESTATE);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(ttotals_row(g, 0, 0).heuristic, 5);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_self_recursive)
{
    /* main(2) -> f(10) once, f -> f 5 times: the self-call adds nothing, so
     * T(f) = 10, T(main) = 12; the call main->f carries f's self 10, child 0. */
    cgprop_graph *g = tgraph_n(1, 2);
    tself1(g, 0, 2);
    tself1(g, 1, 10);
    uint32_t mf = tcall(g, 0, 1, 1, NULL), ff = tcall(g, 1, 1, 5, NULL);
    tanalyse(g, CGPROP_SHARE_COUNT);
    cgprop_total_row f = ttotals_row(g, 0, 1), m = ttotals_row(g, 0, 0);
    ck_near(f.heuristic, 10);
    ck_near(f.vertex_total, 10);
    ck_near(m.heuristic, 12);
    ck_assert(f.flags & CGPROP_F_SELF_RECURSIVE);
    ck_assert(!(f.flags & CGPROP_F_IN_CYCLE));
    ck_assert_uint_eq(f.cycle, CGPROP_NONE);
    ck_assert(m.flags & CGPROP_F_ROOT);
    ck_near(m.spont_share, 12); /* no caller: fully spontaneous */
    ck_near(f.spont_share, 0);
    cgprop_edge_total_row e = tedge_totals_row(g, 0, mf);
    ck_near(e.heuristic, 10);
    ck_near(e.gprof_self, 10);
    ck_near(e.gprof_child, 0);
    ck_near(e.share, 1);
    e = tedge_totals_row(g, 0, ff);
    ck_assert(e.flags & CGPROP_F_SELF_CALL);
    ck_assert(e.flags & CGPROP_F_NO_TOTAL);
    ck_near(e.heuristic, 0);
    ck_near(e.share, 0);
    cgprop_graph_free(g);
}
END_TEST

/* What gprof prints for 400 iterations of main -> fa(10) with fa <-> fb
 * alternating, each calling cleaf once, and main -> dself(20). Self times
 * in centiseconds from gprof_cycles.gprof-b.txt: fa 25, fb 37, cleaf 173,
 * dself 108. Arc counts: main->fa 400, fa->fb 2000, fb->fa 2000,
 * fa->cleaf 2400, fb->cleaf 2000, main->dself 400, dself->dself 8000. */
enum { MAIN, FA, FB, CLEAF, DSELF };

START_TEST(test_gprof_fixture)
{
    cgprop_graph *g = tgraph_n(1, 5);
    tself1(g, FA, 25);
    tself1(g, FB, 37);
    tself1(g, CLEAF, 173);
    tself1(g, DSELF, 108);
    uint32_t mfa = tcall(g, MAIN, FA, 400, NULL), fafb = tcall(g, FA, FB, 2000, NULL),
             fbfa = tcall(g, FB, FA, 2000, NULL);
    uint32_t facl = tcall(g, FA, CLEAF, 2400, NULL), fbcl = tcall(g, FB, CLEAF, 2000, NULL);
    uint32_t mds = tcall(g, MAIN, DSELF, 400, NULL), dsds = tcall(g, DSELF, DSELF, 8000, NULL);
    tanalyse(g, CGPROP_SHARE_AUTO); /* no call costs: AUTO shares by count */

    /* L24: <cycle 1 as a whole> self 0.62, children 1.73. */
    cgprop_cycle_row c = tcycle_row(g, 0, 0);
    ck_assert_uint_eq(c.nmembers, 2);
    ck_assert_uint_eq(c.first, FA);
    ck_assert_uint_eq(c.self, 62);
    ck_near(c.total, 62 + 173);
    ck_assert(!(c.flags & (CGPROP_F_ROOT | CGPROP_F_ENTRY_ASSUMED)));

    /* L25-26 and L34/L39: members' own figures, cleaf's 173 split by
     * 2400/4400 and 2000/4400; not inclusive. */
    cgprop_total_row fa = ttotals_row(g, 0, FA), fb = ttotals_row(g, 0, FB);
    ck_near(fa.gprof_self, 25);
    ck_near(fa.gprof_child, 173.0 * 2400 / 4400);
    ck_near(fb.gprof_self, 37);
    ck_near(fb.gprof_child, 173.0 * 2000 / 4400);
    ck_assert(fa.flags & CGPROP_F_NOT_INCLUSIVE);
    ck_assert(fa.flags & CGPROP_F_IN_CYCLE);
    ck_assert_uint_eq(fa.cycle, 0);
    ck_near(fa.vertex_total, 235);
    ck_near(fb.vertex_total, 235);

    /* L21/L33: main -> fa charges the whole cycle, 400/400. */
    cgprop_edge_total_row e = tedge_totals_row(g, 0, mfa);
    ck_near(e.gprof_self, 62);
    ck_near(e.gprof_child, 173);
    ck_near(e.share, 1);
    ck_near(e.heuristic, 235);
    /* Calls to cleaf split its 173 by count. */
    e = tedge_totals_row(g, 0, facl);
    ck_near(e.share, 2400.0 / 4400);
    ck_near(e.gprof_self, 173.0 * 2400 / 4400);
    ck_near(e.gprof_child, 0);
    e = tedge_totals_row(g, 0, fbcl);
    ck_near(e.gprof_self, 173.0 * 2000 / 4400);
    /* L32/L36: intra-cycle arcs carry counts only. */
    e = tedge_totals_row(g, 0, fafb);
    ck_assert(e.flags & CGPROP_F_INTRA_CYCLE);
    ck_near(e.gprof_self, 0);
    ck_near(e.gprof_child, 0);
    e = tedge_totals_row(g, 0, fbfa);
    ck_assert(e.flags & CGPROP_F_INTRA_CYCLE);
    ck_near(e.gprof_self + e.gprof_child, 0);
    /* L43-46: dself inclusive = self 1.08, the self-arc adds nothing. */
    cgprop_total_row ds = ttotals_row(g, 0, DSELF);
    ck_near(ds.heuristic, 108);
    ck_assert(ds.flags & CGPROP_F_SELF_RECURSIVE);
    /* gprof's arcs carry counts, no measured cost: nothing bounds any
     * figure. A member's is gprof2dot's estimate, anything else gprof's
     * propagation by call shares, and total is that figure. */
    ck_assert(ds.flags & CGPROP_F_NO_BOUNDS);
    ck_assert_uint_eq(ds.reason, CGPROP_R_UNMEASURED);
    ck_assert_uint_eq(ds.estimate, CGPROP_EST_SHARES);
    ck_assert(ds.flags & CGPROP_F_ESTIMATE); /* not exact: the flag says so as the kind does */
    ck_near(ds.total, 108);
    cgprop_total_row fam = ttotals_row(g, 0, FA);
    ck_assert(fam.flags & CGPROP_F_NO_BOUNDS);
    ck_assert(fam.flags & CGPROP_F_ESTIMATE);
    ck_assert_uint_eq(fam.estimate, CGPROP_EST_HEURISTIC);
    ck_assert_uint_eq(fam.reason, CGPROP_R_UNMEASURED);
    ck_near(fam.total, fam.heuristic);
    e = tedge_totals_row(g, 0, mds);
    ck_near(e.gprof_self, 108);
    ck_near(e.gprof_child, 0);
    ck_assert(tedge_totals_row(g, 0, dsds).flags & CGPROP_F_SELF_CALL);
    /* 68.5 % of the run is the cycle: 235 / 343. */
    ck_near(ttotals_row(g, 0, MAIN).heuristic, 343);
    ck_assert_int_eq((int)(1000.0 * 235 / ttotals_row(g, 0, MAIN).heuristic + 0.5), 685);

    /* Per-root propagation on top: every activation enters at fa (rho = 1), so fa's total is
     * the cycle's 235; fb keeps only its gprof figure (the heuristic's
     * known blind spot; its true inclusive is about 215). */
    ck_near(fa.heuristic, 235);
    ck_near(fb.heuristic, 37 + 173.0 * 2000 / 4400);
    ck_near(tedge_totals_row(g, 0, fafb).heuristic, fb.heuristic);
    ck_assert(tedge_totals_row(g, 0, fbfa).flags & CGPROP_F_NO_TOTAL);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_share_modes_and_metrics)
{
    /* main -> A, main -> B, A -> C, B -> C; C self (10, 10).
     * Costs A->C (30, 10), B->C (10, 30); counts 1 and 3.
     * By cost: metric 0 gives A 3/4 of C, metric 1 gives A 1/4.
     * By count: A gets 1/4 in both metrics. */
    cgprop_graph *g = tgraph_n(2, 4);
    uint64_t s[2] = {10, 10}, c1[2] = {30, 10}, c2[2] = {10, 30}, cm[2] = {10, 10};
    ck_assert_int_eq(cgprop_graph_add_self(g, 3, s), CGPROP_OK);
    tcall(g, 0, 1, 1, cm);
    tcall(g, 0, 2, 1, cm);
    uint32_t ac = tcall(g, 1, 3, 1, c1), bc = tcall(g, 2, 3, 3, c2);
    tanalyse(g, CGPROP_SHARE_AUTO); /* calls have costs: AUTO shares by cost */
    ck_near(ttotals_row(g, 0, 1).heuristic, 7.5);
    ck_near(ttotals_row(g, 0, 2).heuristic, 2.5);
    ck_near(ttotals_row(g, 1, 1).heuristic, 2.5);
    ck_near(ttotals_row(g, 1, 2).heuristic, 7.5);
    ck_near(tedge_totals_row(g, 0, ac).share, 0.75);
    ck_near(tedge_totals_row(g, 1, ac).share, 0.25);
    ck_near(tedge_totals_row(g, 1, bc).heuristic, 7.5);
    ck_near(ttotals_row(g, 0, 0).heuristic, 10);
    ck_near(ttotals_row(g, 1, 0).heuristic, 10);
    tanalyse(g, CGPROP_SHARE_COUNT);
    for (uint32_t k = 0; k < 2; k++) {
        ck_near(ttotals_row(g, k, 1).heuristic, 2.5);
        ck_near(ttotals_row(g, k, 2).heuristic, 7.5);
        ck_near(tedge_totals_row(g, k, bc).share, 0.75);
    }
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_cost_share_without_cost)
{
    /* Under a cost share a call without a cost weighs 0: C(12) is called by
     * A (cost 40) and B (no cost), so A takes all of it. */
    cgprop_graph *g = tgraph_n(1, 4);
    tself1(g, 3, 12);
    uint64_t c = 40;
    uint32_t ac = tcall(g, 1, 3, 1, &c), bc = tcall(g, 2, 3, 7, NULL);
    tanalyse(g, CGPROP_SHARE_COST);
    ck_near(tedge_totals_row(g, 0, ac).share, 1);
    ck_near(tedge_totals_row(g, 0, bc).share, 0);
    ck_near(ttotals_row(g, 0, 1).heuristic, 12);
    ck_near(ttotals_row(g, 0, 2).heuristic, 0);
    /* By count: 1 against 7. */
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(ttotals_row(g, 0, 1).heuristic, 12.0 / 8);
    ck_near(ttotals_row(g, 0, 2).heuristic, 12.0 * 7 / 8);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_zero_weight_callers)
{
    /* C(10) has two callers A, B whose counts are both 0: each gets 1/2
     * (gprof2dot gives each 1.0 and counts C twice). main = 10, not 20. */
    cgprop_graph *g = tgraph_n(1, 4);
    tself1(g, 3, 10);
    tcall(g, 0, 1, 1, NULL);
    tcall(g, 0, 2, 1, NULL);
    uint32_t ac = tcall(g, 1, 3, 0, NULL), bc = tcall(g, 2, 3, 0, NULL);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tedge_totals_row(g, 0, ac).share, 0.5);
    ck_near(tedge_totals_row(g, 0, bc).heuristic, 5);
    ck_near(ttotals_row(g, 0, 1).heuristic, 5);
    ck_near(ttotals_row(g, 0, 0).heuristic, 10);
    ck_near(ttotals_row(g, 0, 3).spont_share, 0);
    /* A spontaneous entry of weight 0 is a third caller: 1/3 each, and a
     * third of C enters spontaneously. */
    uint64_t zero = 0;
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, 3, 0, &zero), CGPROP_OK);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tedge_totals_row(g, 0, ac).share, 1.0 / 3);
    ck_near(ttotals_row(g, 0, 3).spont_share, 10.0 / 3);
    ck_near(ttotals_row(g, 0, 0).heuristic, 20.0 / 3);
    ck_assert(!(ttotals_row(g, 0, 3).flags & CGPROP_F_ROOT));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_spontaneous_weight)
{
    /* C(20) is called by A twice and entered spontaneously twice: W = 4 by
     * count, A's share 1/2, half of C goes to no caller. */
    cgprop_graph *g = tgraph_n(1, 3);
    tself1(g, 2, 20);
    uint64_t sc = 8;
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, 2, 2, &sc), CGPROP_OK);
    uint32_t ac = tcall(g, 1, 2, 2, NULL);
    tanalyse(g, CGPROP_SHARE_COUNT);
    ck_near(tedge_totals_row(g, 0, ac).share, 0.5);
    ck_near(ttotals_row(g, 0, 1).heuristic, 10);
    ck_near(ttotals_row(g, 0, 2).spont_share, 10);
    ck_near(ttotals_row(g, 0, 2).heuristic, 20);
    /* By cost: A->C has no cost, the spontaneous entries cost 8: all of C
     * entered spontaneously. */
    tanalyse(g, CGPROP_SHARE_COST);
    ck_near(ttotals_row(g, 0, 1).heuristic, 0);
    ck_near(ttotals_row(g, 0, 2).spont_share, 20);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_nested_cycles)
{
    /* support.h's tnested_cycles:
     * T(L) = 64; T(Z2) = 48 + 64/2 = 80; T(Z1) = 12 + 80/2 + 80/2 = 92;
     * T(X) = 1 + 92/4 + 32 = 56; T(Y) = 2 + 92*3/4 = 71; T(main) = 127. */
    enum { M, X, Y, P, Q, R, S, L };
    uint32_t e12[12];
    cgprop_graph *g = tnested_cycles(e12);
    uint32_t xp = e12[2], yp = e12[3], qr = e12[7], ps = e12[8], sl = e12[11];
    tanalyse(g, CGPROP_SHARE_COUNT);
    size_t nc;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 2);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COUNT), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    ck_near(tcycle_row(g, 0, 0).total, 92); /* {P,Q}: smallest member 3 */
    ck_near(tcycle_row(g, 0, 1).total, 80); /* {R,S} */
    ck_assert_uint_eq(tcycle_row(g, 0, 1).self, 48);
    ck_near(ttotals_row(g, 0, L).heuristic, 64);
    ck_near(ttotals_row(g, 0, X).heuristic, 56);
    ck_near(ttotals_row(g, 0, Y).heuristic, 71);
    ck_near(ttotals_row(g, 0, M).heuristic, 127);
    ck_near(ttotals_row(g, 0, P).gprof_child, 40);
    ck_near(ttotals_row(g, 0, Q).gprof_child, 40);
    ck_near(ttotals_row(g, 0, S).gprof_child, 32);
    /* gprof parts of X->P: 1/4 of Z1's self 12 and of its children 80. */
    cgprop_edge_total_row e = tedge_totals_row(g, 0, xp);
    ck_near(e.gprof_self, 3);
    ck_near(e.gprof_child, 20);
    ck_near(tedge_totals_row(g, 0, yp).heuristic, 69);
    ck_near(tedge_totals_row(g, 0, qr).heuristic, 40);
    ck_near(tedge_totals_row(g, 0, ps).gprof_self, 24);
    ck_near(tedge_totals_row(g, 0, ps).gprof_child, 16);
    ck_near(tedge_totals_row(g, 0, sl).heuristic, 32);
    cgprop_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("collapse");
    TCase *tc = tcase_create("hand");
    tcase_add_test(tc, test_order_and_args);
    tcase_add_test(tc, test_self_recursive);
    tcase_add_test(tc, test_gprof_fixture);
    tcase_add_test(tc, test_share_modes_and_metrics);
    tcase_add_test(tc, test_cost_share_without_cost);
    tcase_add_test(tc, test_zero_weight_callers);
    tcase_add_test(tc, test_spontaneous_weight);
    tcase_add_test(tc, test_nested_cycles);
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
