/* The absorbing walk's kernel (lib/walk.c), one component at a time.
 *
 * Expected figures come from hand derivations (the A/B/C example of
 * docs/SPLIT.md, closed forms for two members, small chains worked out step by step), from an
 * independent oracle (the elimination rule written the plain way: remove the
 * other members one by one, with subtractions, in the order given), from
 * the other kernel, and from random call stacks aggregated here the way a
 * profiler aggregates them, whose true totals and bounds are counted
 * directly from the stacks. */
#include <check.h>
#include "ck_quiet.h"
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "walk.h"

/* ---- a counting allocator that can refuse one attempt ---- */

typedef struct fa {
    size_t calls, fail_at; /* fail_at 0: never */
    long live;
    size_t failed;
} fa;

typedef union hdr {
    max_align_t align;
    size_t size;
} hdr;

static int refuse(fa *c)
{
    c->calls++;
    if (c->fail_at && c->calls == c->fail_at) {
        c->failed++;
        return 1;
    }
    return 0;
}

static void *fa_malloc(void *u, size_t size)
{
    fa *c = u;
    if (refuse(c)) return NULL;
    hdr *p = malloc(sizeof(hdr) + size);
    if (!p) return NULL;
    c->live++;
    return p + 1;
}

static void *fa_realloc(void *u, void *ptr, size_t size)
{
    fa *c = u;
    if (!ptr) return fa_malloc(u, size);
    if (refuse(c)) return NULL;
    hdr *q = realloc((hdr *)ptr - 1, sizeof(hdr) + size);
    return q ? q + 1 : NULL;
}

static void fa_free(void *u, void *ptr)
{
    fa *c = u;
    ck_assert_ptr_nonnull(ptr);
    c->live--;
    free((hdr *)ptr - 1);
}

static cgprop_graph *new_graph(fa *c)
{
    static const char *const names[1] = {"cost"};
    cgprop_graph *g = NULL;
    if (c) {
        cgprop_allocator a = {fa_malloc, fa_realloc, fa_free, c};
        ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 1, &g), CGPROP_OK);
    } else {
        ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    }
    return g;
}

/* ---- a component: arcs in, the kernel's compressed input out ---- */

typedef struct comp {
    uint32_t n, na, cap;
    uint32_t *from, *to; /* arcs as added */
    double *c;
    double *L;
    /* by callee, built by finish() */
    uint32_t *off, *src;
    double *cost;
} comp;

static void comp_init(comp *s, uint32_t n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->L = calloc(n ? n : 1, sizeof *s->L);
    s->off = calloc((size_t)n + 1, sizeof *s->off);
    ck_assert_ptr_nonnull(s->L);
    ck_assert_ptr_nonnull(s->off);
}

static void arc(comp *s, uint32_t from, uint32_t to, double c)
{
    if (s->na == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->from = realloc(s->from, s->cap * sizeof *s->from);
        s->to = realloc(s->to, s->cap * sizeof *s->to);
        s->c = realloc(s->c, s->cap * sizeof *s->c);
        ck_assert(s->from && s->to && s->c);
    }
    s->from[s->na] = from;
    s->to[s->na] = to;
    s->c[s->na++] = c;
}

static void finish(comp *s)
{
    free(s->src);
    free(s->cost);
    s->src = malloc((s->na ? s->na : 1) * sizeof *s->src);
    s->cost = malloc((s->na ? s->na : 1) * sizeof *s->cost);
    ck_assert(s->src && s->cost);
    memset(s->off, 0, ((size_t)s->n + 1) * sizeof *s->off);
    for (uint32_t i = 0; i < s->na; i++) s->off[s->to[i] + 1]++;
    for (uint32_t f = 0; f < s->n; f++) s->off[f + 1] += s->off[f];
    uint32_t *cur = malloc(((size_t)s->n + 1) * sizeof *cur);
    ck_assert_ptr_nonnull(cur);
    memcpy(cur, s->off, ((size_t)s->n + 1) * sizeof *cur);
    for (uint32_t i = 0; i < s->na; i++) {
        uint32_t k = cur[s->to[i]]++;
        s->src[k] = s->from[i];
        s->cost[k] = s->c[i];
    }
    free(cur);
}

static void comp_free(comp *s)
{
    free(s->from);
    free(s->to);
    free(s->c);
    free(s->L);
    free(s->off);
    free(s->src);
    free(s->cost);
}

/* W(f) straight from the arcs. */
static double W_of(const comp *s, uint32_t f)
{
    double w = s->L[f];
    for (uint32_t i = 0; i < s->na; i++)
        if (s->to[i] == f && s->from[i] != f) w += s->c[i];
    return w;
}

/* L(f) <= w <= W(f), W summed here in another order than the kernel's. */
static void assert_in_LW(const comp *s, uint32_t f, double w)
{
    ck_assert_msg(w >= s->L[f] && w <= W_of(s, f) * (1 + 1e-12), "member %u: walk %.17g outside [%.17g, %.17g]", f,
                  w, s->L[f], W_of(s, f));
}

static int run(cgprop_graph *g, const comp *s, uint32_t exit_member, double budget, uint32_t kernel, double *w,
               double *work)
{
    return cgprop__walk_scc_kernel(g, s->n, s->off, s->src, s->cost, s->L, exit_member, budget, kernel, w, work);
}

static double *walk_of(const comp *s, uint32_t exit_member, uint32_t kernel)
{
    cgprop_graph *g = new_graph(NULL);
    double *w = malloc((s->n ? s->n : 1) * sizeof *w), work = -1;
    ck_assert_ptr_nonnull(w);
    ck_assert_int_eq(run(g, s, exit_member, 0, kernel, w, &work), CGPROP_OK);
    ck_assert(work >= 0);
    cgprop_graph_free(g);
    return w;
}

static void assert_rel(double got, double want, double tol, const char *what, uint32_t f)
{
    double err = fabs(got - want);
    double scale = fabs(want) > 0 ? fabs(want) : 1;
    ck_assert_msg(err <= tol * scale, "%s, member %u: got %.17g, want %.17g (relative error %.3g)", what, f, got,
                  want, err / scale);
}

/* ---- random numbers ---- */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

static double rng_unit(uint64_t *s) { return (double)(rng_next(s) >> 11) / 9007199254740992.0; }

/* A cost spread over six orders of magnitude. */
static double rng_cost(uint64_t *s) { return floor(pow(10, 6 * rng_unit(s))); }

/* A ring through every member plus `extra` random arcs: strongly connected
 * by construction. Some members get outside inflow. */
static void random_ring(comp *s, uint32_t n, uint32_t extra, uint64_t *rng)
{
    comp_init(s, n);
    for (uint32_t f = 0; f < n; f++) arc(s, f, (f + 1) % n, rng_cost(rng));
    for (uint32_t i = 0; i < extra; i++) {
        uint32_t a = rng_below(rng, n), b = rng_below(rng, n);
        if (a != b) arc(s, a, b, rng_cost(rng));
    }
    for (uint32_t f = 0; f < n; f++)
        if (rng_below(rng, 4) == 0) s->L[f] = rng_cost(rng);
    s->L[rng_below(rng, n)] += 1 + rng_cost(rng);
    finish(s);
}

/* Shaped like a program's call graph: a random tree of calls (each member
 * called by an earlier one), every member calling back one of its
 * ancestors (so the whole is strongly connected: up to the root by
 * back-calls, down by the tree), and `hubs` members that many call. Low
 * fill, as in real cycles. */
static void random_program(comp *s, uint32_t n, uint32_t hubs, uint64_t *rng)
{
    comp_init(s, n);
    uint32_t *parent = malloc((size_t)n * sizeof *parent);
    ck_assert_ptr_nonnull(parent);
    parent[0] = 0;
    for (uint32_t f = 1; f < n; f++) {
        parent[f] = rng_below(rng, f);
        arc(s, parent[f], f, rng_cost(rng));
        uint32_t up = parent[f], steps = rng_below(rng, 4);
        while (steps-- && up) up = parent[up];
        arc(s, f, up, rng_cost(rng));
    }
    for (uint32_t h = 0; h < hubs && h < n; h++) {
        uint32_t hub = rng_below(rng, n), callers = 1 + rng_below(rng, 2 + n / 20);
        for (uint32_t i = 0; i < callers; i++) {
            uint32_t a = rng_below(rng, n);
            if (a != hub) arc(s, a, hub, rng_cost(rng));
        }
    }
    s->L[0] = 1 + rng_cost(rng);
    for (uint32_t f = 1; f < n; f++)
        if (rng_below(rng, 8) == 0) s->L[f] = rng_cost(rng);
    free(parent);
    finish(s);
}

/* ---- the oracle: the elimination rule, plain ----
 * Remove every member but f in turn: the arc a->b gains c(a->v) c(v->b) / W(v)
 * and W(a) loses c(a->v) c(v->a) / W(v). What is left of W(f) is walk(f).
 * Only for inputs where every member is entered and the walk can leave. */
static double oracle(const comp *s, uint32_t f)
{
    uint32_t n = s->n;
    double *c = calloc((size_t)n * n, sizeof *c), *W = malloc(n * sizeof *W);
    unsigned char *gone = calloc(n, 1);
    ck_assert(c && W && gone);
    for (uint32_t i = 0; i < s->na; i++)
        if (s->from[i] != s->to[i]) c[(size_t)s->from[i] * n + s->to[i]] += s->c[i];
    for (uint32_t v = 0; v < n; v++) W[v] = W_of(s, v);
    for (uint32_t v = 0; v < n; v++) {
        if (v == f) continue;
        gone[v] = 1;
        for (uint32_t a = 0; a < n; a++) {
            if (gone[a] || c[(size_t)a * n + v] == 0) continue;
            double av = c[(size_t)a * n + v];
            for (uint32_t b = 0; b < n; b++) {
                if (gone[b]) continue;
                double vb = c[(size_t)v * n + b];
                if (b == a) W[a] -= av * vb / W[v];
                else c[(size_t)a * n + b] += av * vb / W[v];
            }
        }
    }
    double w = W[f];
    free(c);
    free(W);
    free(gone);
    return w;
}

/* ---- hand examples ---- */

START_TEST(notes_example)
{
    /* ->A 50 (outside), A->B 30, B->A 20, A->C 20 with C outside the
     * component: C is not part of the input at all. A = 0, B = 1.
     * W(A) = 50 + 20 = 70, W(B) = 30. From A the walk goes to B with 2/7
     * and leaves with 5/7; from B it goes to A always. A meets itself again
     * with 2/7 and B meets itself again with 2/7 (back through A), so
     * walk(A) = 70 * 5/7 = 50 and walk(B) = 30 * 5/7 = 150/7. */
    comp s;
    comp_init(&s, 2);
    arc(&s, 0, 1, 30);
    arc(&s, 1, 0, 20);
    s.L[0] = 50;
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, UINT32_MAX, k);
        assert_rel(w[0], 50, 1e-12, "walk(A)", 0);
        assert_rel(w[1], 150.0 / 7, 1e-12, "walk(B)", 1);
        free(w);
    }
    comp_free(&s);
}
END_TEST

START_TEST(one_member)
{
    /* A single member: nothing to meet again, walk = W = L. Its self-call
     * is ignored. */
    comp s;
    comp_init(&s, 1);
    arc(&s, 0, 0, 1000);
    s.L[0] = 7;
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, UINT32_MAX, k);
        ck_assert(w[0] == 7);
        free(w);
    }
    /* No inflow, the member the exit: walk = W = 0. */
    s.L[0] = 0;
    double *w = walk_of(&s, 0, CGPROP__WALK_AUTO);
    ck_assert(w[0] == 0);
    free(w);
    comp_free(&s);
}
END_TEST

START_TEST(two_members_closed_form)
{
    /* A, B with inflows La, Lb, B->A cost x, A->B cost y. A meets itself
     * again with (x / Wa)(y / Wb), so walk(A) = Wa (1 - x y / (Wa Wb)), and
     * the same for B. */
    uint64_t rng = 0x1234u + (uint64_t)_i;
    for (int t = 0; t < 200; t++) {
        double La = rng_below(&rng, 3) ? rng_cost(&rng) : 0, Lb = rng_cost(&rng);
        double x = rng_cost(&rng) + 1, y = rng_cost(&rng) + 1;
        comp s;
        comp_init(&s, 2);
        arc(&s, 1, 0, x);
        arc(&s, 0, 1, y);
        s.L[0] = La;
        s.L[1] = Lb;
        finish(&s);
        double Wa = La + x, Wb = Lb + y;
        double wa = Wa * (1 - x * y / (Wa * Wb)), wb = Wb * (1 - x * y / (Wa * Wb));
        for (uint32_t k = CGPROP__WALK_DENSE; k <= CGPROP__WALK_SPARSE; k++) {
            double *w = walk_of(&s, UINT32_MAX, k);
            /* The closed form subtracts: its own error is about eps W / walk. */
            assert_rel(w[0], wa, 1e-12 + 1e-14 * Wa / wa, "two members, A", 0);
            assert_rel(w[1], wb, 1e-12 + 1e-14 * Wb / wb, "two members, B", 1);
            free(w);
        }
        comp_free(&s);
    }
}
END_TEST

START_TEST(no_inflow_exit_member)
{
    /* A = 0, B = 1, C = 2; A->B 10, B->A 4, B->C 6, C->B 3; no inflow; A is
     * the exit. W(A) = 4, W(B) = 13, W(C) = 6. At A the walk leaves, so
     * walk(A) = W(A) = 4. From B: to A (10/13, out) or to C (3/13), and
     * from C back to B always: B meets itself again with 3/13, walk(B) =
     * 13 * 10/13 = 10. From C: to B, then out with 10/13 or back to C with
     * 3/13: walk(C) = 6 * 10/13 = 60/13. */
    comp s;
    comp_init(&s, 3);
    arc(&s, 0, 1, 10);
    arc(&s, 1, 0, 4);
    arc(&s, 1, 2, 6);
    arc(&s, 2, 1, 3);
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, 0, k);
        assert_rel(w[0], 4, 1e-12, "exit A", 0);
        assert_rel(w[1], 10, 1e-12, "B", 1);
        assert_rel(w[2], 60.0 / 13, 1e-12, "C", 2);
        free(w);
        /* Without an exit nobody leaves: every walk is 0. */
        w = walk_of(&s, UINT32_MAX, k);
        for (uint32_t f = 0; f < 3; f++) ck_assert(w[f] == 0);
        free(w);
        /* With inflow somewhere the exit member is not looked at: L(C) = 1
         * makes this the oracle's ordinary case. */
        s.L[2] = 1;
        w = walk_of(&s, 0, k);
        for (uint32_t f = 0; f < 3; f++) assert_rel(w[f], oracle(&s, f), 1e-12, "inflow at C", f);
        free(w);
        s.L[2] = 0;
    }
    comp_free(&s);
}
END_TEST

START_TEST(never_entered_member)
{
    /* A = 0 (L 10), B = 1, C = 2 entered by nothing (W = 0) yet calling A
     * for 5; A->B 8, B->A 2. W(A) = 17, W(B) = 8. From A: to B 2/17, to C
     * 5/17 (where the walk leaves), out 10/17; from B to A always. A meets
     * itself again with 2/17: walk(A) = 15; B through A also with 2/17:
     * walk(B) = 8 * 15/17 = 120/17; walk(C) = 0. */
    comp s;
    comp_init(&s, 3);
    arc(&s, 0, 1, 8);
    arc(&s, 1, 0, 2);
    arc(&s, 2, 0, 5);
    arc(&s, 0, 2, 0); /* a call measured at 0: adds nothing */
    s.L[0] = 10;
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, UINT32_MAX, k);
        assert_rel(w[0], 15, 1e-12, "A", 0);
        assert_rel(w[1], 120.0 / 17, 1e-12, "B", 1);
        ck_assert(w[2] == 0);
        free(w);
    }
    comp_free(&s);
}
END_TEST

START_TEST(zero_costs)
{
    /* {A, B} with the A/B/C example's costs, {C, D} calling each other for 5 and 7,
     * joined to {A, B} only by calls measured at 0 (a component by its
     * calls, not by its costs). C and D can never leave: walk 0. A and B
     * are the A/B/C example; cost-0 arcs change nothing. */
    comp s;
    comp_init(&s, 4);
    arc(&s, 0, 1, 30);
    arc(&s, 1, 0, 20);
    arc(&s, 2, 3, 5);
    arc(&s, 3, 2, 7);
    arc(&s, 1, 2, 0);
    arc(&s, 3, 0, 0);
    s.L[0] = 50;
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, UINT32_MAX, k);
        assert_rel(w[0], 50, 1e-12, "A", 0);
        assert_rel(w[1], 150.0 / 7, 1e-12, "B", 1);
        ck_assert(w[2] == 0 && w[3] == 0);
        free(w);
    }
    comp_free(&s);
}
END_TEST

START_TEST(duplicate_entries_add_up)
{
    /* The A/B/C example with B->A given as 12 + 8 and A->B as 30 + 0. */
    comp s;
    comp_init(&s, 2);
    arc(&s, 0, 1, 30);
    arc(&s, 1, 0, 12);
    arc(&s, 0, 1, 0);
    arc(&s, 1, 0, 8);
    s.L[0] = 50;
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, UINT32_MAX, k);
        assert_rel(w[0], 50, 1e-12, "A", 0);
        assert_rel(w[1], 150.0 / 7, 1e-12, "B", 1);
        free(w);
    }
    comp_free(&s);
}
END_TEST

START_TEST(nearly_closed)
{
    /* A (L = 1e-300) <-> B, both calls cost 1. W(A) = 1 + 1e-300 and
     * W(B) = 1, so walk(A) = W(A) - 1 * 1 / W(B) = 1e-300 exactly and
     * walk(B) = W(B) (1 - 1 / W(A)) = 1e-300 / (1 + 1e-300). A kernel that
     * subtracts gets 0 for both; the expected visits here are 1e300. */
    comp s;
    comp_init(&s, 2);
    arc(&s, 0, 1, 1);
    arc(&s, 1, 0, 1);
    s.L[0] = 1e-300;
    finish(&s);
    for (uint32_t k = CGPROP__WALK_AUTO; k <= CGPROP__WALK_SPARSE; k++) {
        double *w = walk_of(&s, UINT32_MAX, k);
        assert_rel(w[0], 1e-300, 1e-12, "A", 0);
        assert_rel(w[1], 1e-300, 1e-12, "B", 1);
        free(w);
    }
    comp_free(&s);
}
END_TEST

START_TEST(magnitudes)
{
    /* The walk is homogeneous: costs and inflows times s give walks times s,
     * for s from 1e-300 to 1e300 (powers of two keep the inputs exact). */
    uint64_t rng = 99;
    comp s;
    random_ring(&s, 40, 60, &rng);
    double *ref = walk_of(&s, UINT32_MAX, CGPROP__WALK_SPARSE);
    const double scales[4] = {0x1p-997, 0x1p-600, 0x1p600, 0x1p950};
    for (int t = 0; t < 4; t++) {
        comp x = s;
        x.cost = malloc(s.na * sizeof *x.cost);
        x.L = malloc(s.n * sizeof *x.L);
        ck_assert(x.cost && x.L);
        for (uint32_t i = 0; i < s.na; i++) x.cost[i] = s.cost[i] * scales[t];
        for (uint32_t f = 0; f < s.n; f++) x.L[f] = s.L[f] * scales[t];
        for (uint32_t k = CGPROP__WALK_DENSE; k <= CGPROP__WALK_SPARSE; k++) {
            double *w = walk_of(&x, UINT32_MAX, k);
            for (uint32_t f = 0; f < s.n; f++) assert_rel(w[f] / scales[t], ref[f], 1e-12, "scaled", f);
            free(w);
        }
        free(x.cost);
        free(x.L);
    }
    free(ref);
    /* Extremes side by side: the smallest double as an inflow against
     * costs near the largest. Whatever underflows, every figure is a
     * number inside [L, W]. */
    for (uint32_t i = 0; i < s.na; i++) s.cost[i] = i % 2 ? 1e300 : 4.9e-324;
    for (uint32_t f = 0; f < s.n; f++) s.L[f] = f == 3 ? 4.9e-324 : 0;
    for (uint32_t k = CGPROP__WALK_DENSE; k <= CGPROP__WALK_SPARSE; k++) {
        cgprop_graph *g = new_graph(NULL);
        double w[40], work;
        ck_assert_int_eq(run(g, &s, UINT32_MAX, 0, k, w, &work), CGPROP_OK);
        for (uint32_t f = 0; f < s.n; f++) {
            double W = 0;
            for (uint32_t i = s.off[f]; i < s.off[f + 1]; i++) W += s.cost[i];
            W += s.L[f];
            ck_assert_msg(isfinite(w[f]) && w[f] >= s.L[f] && w[f] <= W * (1 + 1e-12), "member %u: %g", f, w[f]);
        }
        cgprop_graph_free(g);
    }
    comp_free(&s);
}
END_TEST

START_TEST(bad_arguments)
{
    comp s;
    comp_init(&s, 2);
    arc(&s, 0, 1, 30);
    arc(&s, 1, 0, 20);
    s.L[0] = 50;
    finish(&s);
    cgprop_graph *g = new_graph(NULL);
    double w[2], work;
    ck_assert_int_eq(cgprop__walk_scc(NULL, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop__walk_scc(g, 2, NULL, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, NULL, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, NULL, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, NULL, &work), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, s.L, 2, 0, w, &work), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop__walk_scc_kernel(g, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, 3, w, &work),
                     CGPROP_EINVAL);
    s.src[0] = 2;
    ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    s.src[0] = 1;
    const double bad[3] = {-1, NAN, INFINITY};
    for (int t = 0; t < 3; t++) {
        double keep = s.cost[1];
        s.cost[1] = bad[t];
        ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
        s.cost[1] = keep;
        keep = s.L[1];
        s.L[1] = bad[t];
        ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
        s.L[1] = keep;
    }
    s.off[0] = 1;
    ck_assert_int_eq(cgprop__walk_scc(g, 2, s.off, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    s.off[0] = 0;
    uint32_t dec[3] = {0, 2, 1};
    ck_assert_int_eq(cgprop__walk_scc(g, 2, dec, s.src, s.cost, s.L, UINT32_MAX, 0, w, &work), CGPROP_EINVAL);
    /* Nothing to do is fine, with or without arrays. */
    ck_assert_int_eq(cgprop__walk_scc(g, 0, NULL, NULL, NULL, NULL, UINT32_MAX, 0, NULL, NULL), CGPROP_OK);
    /* A component without calls needs no call arrays; work_out may be NULL. */
    uint32_t off0[3] = {0, 0, 0};
    ck_assert_int_eq(cgprop__walk_scc(g, 2, off0, NULL, NULL, s.L, UINT32_MAX, 0, w, NULL), CGPROP_OK);
    ck_assert(w[0] == 50 && w[1] == 0);
    cgprop_graph_free(g);
    comp_free(&s);
}
END_TEST

/* ---- random components ---- */

START_TEST(random_against_oracle)
{
    /* Small components: both kernels against the plain elimination. The
     * oracle subtracts, so its own error grows where much of W returns;
     * these inputs keep a fair share of it leaving. */
    uint64_t rng = 0xC0FFEEu + 7919u * (uint64_t)_i;
    uint32_t n = 2 + rng_below(&rng, 30);
    comp s;
    random_ring(&s, n, rng_below(&rng, 3 * n), &rng);
    for (uint32_t f = 0; f < n; f++) s.L[f] += rng_cost(&rng);
    double *d = walk_of(&s, UINT32_MAX, CGPROP__WALK_DENSE), *p = walk_of(&s, UINT32_MAX, CGPROP__WALK_SPARSE);
    for (uint32_t f = 0; f < n; f++) {
        double o = oracle(&s, f);
        assert_rel(d[f], o, 1e-9, "dense vs oracle", f);
        assert_rel(p[f], o, 1e-9, "sparse vs oracle", f);
        assert_in_LW(&s, f, d[f]);
    }
    free(d);
    free(p);
    comp_free(&s);
}
END_TEST

START_TEST(random_dense_vs_sparse)
{
    /* Larger components, both shapes, sizes up to 400: the kernels agree to
     * 1e-9 relative and lie in [L, W]. */
    uint64_t rng = 0xBADC0DEu + 104729u * (uint64_t)_i;
    uint32_t n = 30 + rng_below(&rng, 370);
    comp s;
    if (_i % 2) random_ring(&s, n, rng_below(&rng, 2 * n), &rng);
    else random_program(&s, n, rng_below(&rng, 6), &rng);
    double *d = walk_of(&s, UINT32_MAX, CGPROP__WALK_DENSE), *p = walk_of(&s, UINT32_MAX, CGPROP__WALK_SPARSE);
    for (uint32_t f = 0; f < n; f++) {
        assert_rel(p[f], d[f], 1e-9, "sparse vs dense", f);
        assert_in_LW(&s, f, p[f]);
    }
    free(d);
    free(p);
    comp_free(&s);
}
END_TEST

START_TEST(large_program_shape)
{
    /* A few thousand members shaped like a call graph, too many for the
     * dense kernel: the sparse one (what AUTO picks) stays in [L, W], and
     * its figures do not depend on how the members are numbered (reversed
     * numbers change the order minimum degree picks among ties). */
    uint64_t rng = 4242;
    uint32_t n = 3000;
    comp s;
    random_program(&s, n, 8, &rng);
    double *a = walk_of(&s, UINT32_MAX, CGPROP__WALK_AUTO);
    comp r;
    comp_init(&r, n);
    for (uint32_t i = 0; i < s.na; i++) arc(&r, n - 1 - s.from[i], n - 1 - s.to[i], s.c[i]);
    for (uint32_t f = 0; f < n; f++) r.L[n - 1 - f] = s.L[f];
    finish(&r);
    double *b = walk_of(&r, UINT32_MAX, CGPROP__WALK_AUTO);
    for (uint32_t f = 0; f < n; f++) {
        assert_rel(b[n - 1 - f], a[f], 1e-9, "renumbered", f);
        assert_in_LW(&s, f, a[f]);
    }
    free(a);
    free(b);
    comp_free(&s);
    comp_free(&r);
}
END_TEST

/* ---- random call stacks: the honest test ----
 * A random program (F functions, each with a few callees, itself allowed)
 * runs: every activation spends some self cost and makes a few calls, to a
 * depth limit. Every sample is a stack with a weight. The profile is
 * aggregated here as a profiler does: each adjacent pair of a stack adds the
 * sample's weight to that call once per occurrence, the first frame's
 * function gets it as spontaneous cost. For each strongly connected
 * component S of the calls (self-calls left out): L(f) = spontaneous cost
 * of f + calls into f from outside S; T(S) = weight of the samples whose
 * stack holds a member of S; U(f) = min(T, L(f) + calls into f from the
 * other members). The truth C(f) = weight of the samples whose stack holds
 * f. Asserted: L <= C <= U (the generator is right) and L <= walk <= U. */

typedef struct prof {
    uint32_t F;
    uint32_t nsamp, cap, *soff, *frames; /* sample i: frames[soff[i] .. soff[i + 1]) */
    uint32_t nfr, frcap;
    double *sw;
} prof;

static void push_sample(prof *P, const uint32_t *stk, uint32_t depth, double w)
{
    if (P->nsamp + 1 >= P->cap) {
        P->cap = P->cap ? 2 * P->cap : 256;
        P->soff = realloc(P->soff, P->cap * sizeof *P->soff);
        P->sw = realloc(P->sw, P->cap * sizeof *P->sw);
        ck_assert(P->soff && P->sw);
        if (P->nsamp == 0) P->soff[0] = 0;
    }
    while (P->nfr + depth > P->frcap) {
        P->frcap = P->frcap ? 2 * P->frcap : 4096;
        P->frames = realloc(P->frames, P->frcap * sizeof *P->frames);
        ck_assert_ptr_nonnull(P->frames);
    }
    memcpy(P->frames + P->nfr, stk, depth * sizeof *stk);
    P->nfr += depth;
    P->sw[P->nsamp++] = w;
    P->soff[P->nsamp] = P->nfr;
}

/* One execution from `root`, depth-first with an explicit stack of frames
 * (function, calls still to make). */
static void execute(prof *P, const uint32_t *callees, uint32_t ncallee, uint32_t root, uint32_t maxdepth,
                    uint64_t *rng)
{
    uint32_t stk[64], left[64], depth = 1;
    stk[0] = root;
    left[0] = 1 + rng_below(rng, 3);
    push_sample(P, stk, 1, 1 + rng_below(rng, 100));
    while (depth) {
        uint32_t top = depth - 1;
        if (left[top] == 0 || depth >= maxdepth) {
            depth--;
            continue;
        }
        left[top]--;
        uint32_t f = callees[stk[top] * ncallee + rng_below(rng, ncallee)];
        stk[depth] = f;
        /* About 0.95 calls per activation: deep stacks, yet a run ends. */
        uint32_t r = rng_below(rng, 20);
        left[depth] = r < 8 ? 0 : r < 15 ? 1 : r < 18 ? 2 : 3;
        depth++;
        push_sample(P, stk, depth, 1 + rng_below(rng, 100));
    }
}

/* Strongly connected components of the call graph (self-calls aside), by
 * Kosaraju with explicit stacks; comp_of[f] is a component id. */
static uint32_t sccs(uint32_t F, const double *calls, uint32_t *comp_of)
{
    uint32_t *order = malloc(F * sizeof *order), *stk = malloc(F * sizeof *stk), *it = malloc(F * sizeof *it);
    unsigned char *seen = calloc(F, 1);
    ck_assert(order && stk && it && seen);
    uint32_t no = 0;
    for (uint32_t s = 0; s < F; s++) {
        if (seen[s]) continue;
        uint32_t sp = 0;
        stk[sp] = s;
        it[sp++] = 0;
        seen[s] = 1;
        while (sp) {
            uint32_t v = stk[sp - 1];
            if (it[sp - 1] < F) {
                uint32_t w = it[sp - 1]++;
                if (w != v && calls[(size_t)v * F + w] > 0 && !seen[w]) {
                    seen[w] = 1;
                    stk[sp] = w;
                    it[sp++] = 0;
                }
            } else {
                order[no++] = v;
                sp--;
            }
        }
    }
    for (uint32_t f = 0; f < F; f++) comp_of[f] = UINT32_MAX;
    uint32_t nc = 0;
    for (uint32_t i = F; i-- > 0;) {
        uint32_t s = order[i];
        if (comp_of[s] != UINT32_MAX) continue;
        uint32_t sp = 0;
        stk[sp++] = s;
        comp_of[s] = nc;
        while (sp) {
            uint32_t v = stk[--sp];
            for (uint32_t a = 0; a < F; a++)
                if (a != v && calls[(size_t)a * F + v] > 0 && comp_of[a] == UINT32_MAX) {
                    comp_of[a] = nc;
                    stk[sp++] = a;
                }
        }
        nc++;
    }
    free(order);
    free(stk);
    free(it);
    free(seen);
    return nc;
}

static uint32_t stack_trial(uint64_t seed, uint32_t F, uint32_t nexec, double *rel_err_sum, uint32_t *largest)
{
    uint64_t rng = seed;
    const uint32_t ncallee = 3;
    uint32_t *callees = malloc((size_t)F * ncallee * sizeof *callees);
    ck_assert_ptr_nonnull(callees);
    /* Small programs call anywhere; large ones mostly call functions near
     * them (as modules do), which keeps their cycles' fill low. */
    for (uint32_t i = 0; i < F * ncallee; i++) {
        uint32_t f = i / ncallee;
        callees[i] = F < 100 || rng_below(&rng, 300) == 0 ? rng_below(&rng, F) : (f + F - 8 + rng_below(&rng, 17)) % F;
    }
    prof P = {0};
    P.F = F;
    for (uint32_t e = 0; e < nexec; e++) {
        uint32_t root = rng_below(&rng, F), maxdepth = 6 + rng_below(&rng, 40); /* in this order on every compiler */
        execute(&P, callees, ncallee, root, maxdepth, &rng);
    }

    double *calls = calloc((size_t)F * F, sizeof *calls), *spont = calloc(F, sizeof *spont);
    double *truth = calloc(F, sizeof *truth);
    uint32_t *stamp = malloc(F * sizeof *stamp), *comp_of = malloc(F * sizeof *comp_of);
    ck_assert(calls && spont && truth && stamp && comp_of);
    for (uint32_t f = 0; f < F; f++) stamp[f] = UINT32_MAX;
    for (uint32_t i = 0; i < P.nsamp; i++) {
        const uint32_t *st = P.frames + P.soff[i];
        uint32_t d = P.soff[i + 1] - P.soff[i];
        double w = P.sw[i];
        spont[st[0]] += w;
        for (uint32_t j = 0; j + 1 < d; j++) calls[(size_t)st[j] * F + st[j + 1]] += w;
        for (uint32_t j = 0; j < d; j++)
            if (stamp[st[j]] != i) {
                stamp[st[j]] = i;
                truth[st[j]] += w;
            }
    }
    uint32_t nc = sccs(F, calls, comp_of), members_checked = 0;
    uint32_t *local = malloc(F * sizeof *local), *mem = malloc(F * sizeof *mem);
    ck_assert(local && mem);
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t n = 0;
        for (uint32_t f = 0; f < F; f++)
            if (comp_of[f] == c) {
                local[f] = n;
                mem[n++] = f;
            }
        if (n < 2) continue;
        if (n > *largest) *largest = n;
        double T = 0;
        for (uint32_t i = 0; i < P.nsamp; i++)
            for (uint32_t j = P.soff[i]; j < P.soff[i + 1]; j++)
                if (comp_of[P.frames[j]] == c) {
                    T += P.sw[i];
                    break;
                }
        comp s;
        comp_init(&s, n);
        for (uint32_t x = 0; x < n; x++) {
            uint32_t f = mem[x];
            s.L[x] = spont[f];
            for (uint32_t a = 0; a < F; a++) {
                double v = calls[(size_t)a * F + f];
                if (v == 0 || a == f) continue;
                if (comp_of[a] == c) arc(&s, local[a], x, v);
                else s.L[x] += v;
            }
        }
        finish(&s);
        double *w = walk_of(&s, UINT32_MAX, CGPROP__WALK_AUTO);
        /* The dense kernel only where it is quick. */
        double *wd = n <= 300 ? walk_of(&s, UINT32_MAX, CGPROP__WALK_DENSE) : NULL;
        double *wp = walk_of(&s, UINT32_MAX, CGPROP__WALK_SPARSE);
        for (uint32_t x = 0; x < n; x++) {
            uint32_t f = mem[x];
            double U = W_of(&s, x) < T ? W_of(&s, x) : T;
            ck_assert_msg(s.L[x] <= truth[f] && truth[f] <= U, "generator: L %g, truth %g, U %g", s.L[x], truth[f], U);
            ck_assert_msg(s.L[x] <= w[x] && w[x] <= U * (1 + 1e-12),
                          "seed %llu, member %u of %u: walk %.17g outside [L %.17g, U %.17g] (T %.17g)",
                          (unsigned long long)seed, x, n, w[x], s.L[x], U, T);
            if (wd) assert_rel(wp[x], wd[x], 1e-9, "stacks, sparse vs dense", x);
            *rel_err_sum += fabs(w[x] - truth[f]) / truth[f];
            members_checked++;
        }
        free(w);
        free(wd);
        free(wp);
        comp_free(&s);
    }
    free(local);
    free(mem);
    free(calls);
    free(spont);
    free(truth);
    free(stamp);
    free(comp_of);
    free(callees);
    free(P.soff);
    free(P.frames);
    free(P.sw);
    return members_checked;
}

START_TEST(random_stacks_within_bounds)
{
    double err = 0;
    uint32_t members = 0, largest = 0;
    for (uint32_t t = 0; t < 25; t++) {
        uint64_t seed = 1000u * (uint64_t)_i + t + 1;
        members += stack_trial(seed, 4 + (uint32_t)(seed % 60), 20 + (uint32_t)(seed % 200), &err, &largest);
    }
    /* One program of a few thousand functions, for a large cycle. */
    members += stack_trial(77u + (uint64_t)_i, 2500, 4000, &err, &largest);
    ck_assert_uint_gt(largest, 500);
    printf("walk, random stacks (run %d): %u cycle members in [L, U] (largest cycle %u), mean relative error of "
           "the walk vs the truth %.3f\n",
           _i, members, largest, err / members);
}
END_TEST

/* ---- budget ---- */

START_TEST(budget)
{
    uint64_t rng = 77;
    comp s;
    random_ring(&s, 500, 1500, &rng);
    cgprop_graph *g = new_graph(NULL);
    double *w = malloc(500 * sizeof *w), *ref = malloc(500 * sizeof *ref), work = 0, full = 0;
    ck_assert_int_eq(run(g, &s, UINT32_MAX, 0, CGPROP__WALK_SPARSE, ref, &full), CGPROP_OK);
    ck_assert(full > 500);
    /* A small budget stops early, having counted past it. */
    ck_assert_int_eq(run(g, &s, UINT32_MAX, 100, CGPROP__WALK_SPARSE, w, &work), CGPROP__WALK_OVER_BUDGET);
    ck_assert(work > 100 && work < full);
    ck_assert_int_eq(run(g, &s, UINT32_MAX, full / 2, CGPROP__WALK_SPARSE, w, &work), CGPROP__WALK_OVER_BUDGET);
    ck_assert(work > full / 2 && work <= full);
    /* Exactly enough is enough, and gives the same figures. */
    ck_assert_int_eq(run(g, &s, UINT32_MAX, full, CGPROP__WALK_SPARSE, w, &work), CGPROP_OK);
    ck_assert(work == full);
    for (uint32_t f = 0; f < 500; f++) ck_assert(w[f] == ref[f]);
    /* A generous budget changes nothing, on shapes with hubs too (a star:
     * a hub calling 300 members that call it back; a program shape). */
    for (int shape = 0; shape < 2; shape++) {
        comp h;
        if (shape == 0) {
            comp_init(&h, 301);
            for (uint32_t f = 1; f <= 300; f++) {
                arc(&h, 0, f, 1 + f);
                arc(&h, f, 0, 1 + f % 7);
            }
            h.L[0] = 10;
            finish(&h);
        } else {
            random_program(&h, 2000, 12, &rng);
        }
        double *x = malloc(h.n * sizeof *x), *y = malloc(h.n * sizeof *y), wx, wy;
        ck_assert_int_eq(run(g, &h, UINT32_MAX, 0, CGPROP__WALK_SPARSE, x, &wx), CGPROP_OK);
        ck_assert_int_eq(run(g, &h, UINT32_MAX, 1e9, CGPROP__WALK_SPARSE, y, &wy), CGPROP_OK);
        ck_assert(wx == wy);
        for (uint32_t f = 0; f < h.n; f++) ck_assert(x[f] == y[f]);
        free(x);
        free(y);
        comp_free(&h);
    }
    /* The dense kernel knows its count up front: m(m+1)(2m+1)/6. */
    comp d;
    random_ring(&d, 30, 40, &rng);
    ck_assert_int_eq(run(g, &d, UINT32_MAX, 9454, CGPROP__WALK_DENSE, w, &work), CGPROP__WALK_OVER_BUDGET);
    ck_assert(work == 30.0 * 31 * 61 / 6);
    ck_assert_int_eq(run(g, &d, UINT32_MAX, 9455, CGPROP__WALK_DENSE, w, &work), CGPROP_OK);
    ck_assert(work == 9455);
    /* Members set aside (never entered) do not count: 30 members, one of
     * them entered by nothing, leave 29. */
    comp e;
    comp_init(&e, 30);
    for (uint32_t f = 0; f < 29; f++) arc(&e, f, (f + 1) % 29, 1 + f);
    arc(&e, 29, 0, 5);
    e.L[0] = 3;
    finish(&e);
    ck_assert_int_eq(run(g, &e, UINT32_MAX, 0, CGPROP__WALK_DENSE, w, &work), CGPROP_OK);
    ck_assert(work == 29.0 * 30 * 59 / 6);
    ck_assert(w[29] == 0);
    cgprop_graph_free(g);
    free(w);
    free(ref);
    comp_free(&s);
    comp_free(&d);
    comp_free(&e);
}
END_TEST

START_TEST(giant_random_with_budget)
{
    /* 20,000 members, random arcs: no small separators, so the fronts grow
     * towards thousands. A budget of 100 units a member stops it early. */
    uint64_t rng = 2026;
    uint32_t n = 20000;
    comp s;
    random_ring(&s, n, 3 * n, &rng);
    cgprop_graph *g = new_graph(NULL);
    double *w = malloc(n * sizeof *w), work = 0;
    ck_assert_int_eq(run(g, &s, UINT32_MAX, 100.0 * n, CGPROP__WALK_AUTO, w, &work), CGPROP__WALK_OVER_BUDGET);
    ck_assert(work > 100.0 * n);
    cgprop_graph_free(g);
    free(w);
    comp_free(&s);
}
END_TEST

/* ---- allocation failure ---- */

/* Refuse attempt 1, 2, ... until a run meets no refusal: each refused run
 * returns ENOMEM and leaves no block behind; the run that gets through
 * gives the figures of a run that never failed. */
static void sweep(const comp *s, uint32_t exit_member, double budget, uint32_t kernel, int want)
{
    double *ref = malloc(s->n * sizeof *ref), *w = malloc(s->n * sizeof *w), work;
    ck_assert(ref && w);
    {
        cgprop_graph *g = new_graph(NULL);
        ck_assert_int_eq(run(g, s, exit_member, budget, kernel, ref, &work), want);
        cgprop_graph_free(g);
    }
    size_t points = 0;
    for (size_t n = 1;; n++) {
        fa c = {0};
        cgprop_graph *g = new_graph(&c);
        long live0 = c.live;
        c.calls = 0;
        c.fail_at = n;
        int rc = run(g, s, exit_member, budget, kernel, w, &work);
        ck_assert_int_eq(c.live, live0);
        c.fail_at = 0;
        if (c.failed == 0) {
            ck_assert_int_eq(rc, want);
            if (want == CGPROP_OK)
                for (uint32_t f = 0; f < s->n; f++) ck_assert(w[f] == ref[f]);
            cgprop_graph_free(g);
            ck_assert_int_eq(c.live, 0);
            break;
        }
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        points++;
        cgprop_graph_free(g);
        ck_assert_int_eq(c.live, 0);
    }
    ck_assert_uint_gt(points, 3);
    free(ref);
    free(w);
}

START_TEST(alloc_failure)
{
    uint64_t rng = 31337;
    comp s;
    random_ring(&s, 12, 20, &rng);
    sweep(&s, UINT32_MAX, 0, CGPROP__WALK_DENSE, CGPROP_OK);
    sweep(&s, UINT32_MAX, 0, CGPROP__WALK_SPARSE, CGPROP_OK);
    comp_free(&s);
    /* Large enough that the pair set, the neighbour pool and the fronts
     * grow several times; and the same stopped by the budget. */
    random_ring(&s, 300, 600, &rng);
    sweep(&s, UINT32_MAX, 0, CGPROP__WALK_SPARSE, CGPROP_OK);
    sweep(&s, UINT32_MAX, 5000, CGPROP__WALK_SPARSE, CGPROP__WALK_OVER_BUDGET);
    sweep(&s, UINT32_MAX, 1e12, CGPROP__WALK_SPARSE, CGPROP_OK); /* the lower bound, then the rest */
    comp_free(&s);
    /* No inflow, an exit member and a never-entered member. */
    comp_init(&s, 4);
    arc(&s, 0, 1, 10);
    arc(&s, 1, 0, 4);
    arc(&s, 1, 2, 6);
    arc(&s, 2, 1, 3);
    arc(&s, 3, 2, 1);
    finish(&s);
    sweep(&s, 0, 0, CGPROP__WALK_AUTO, CGPROP_OK);
    comp_free(&s);
}
END_TEST

static Suite *walk_suite(void)
{
    Suite *s = suite_create("walk");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, notes_example);
    tcase_add_test(tc, one_member);
    tcase_add_loop_test(tc, two_members_closed_form, 0, 2);
    tcase_add_test(tc, no_inflow_exit_member);
    tcase_add_test(tc, never_entered_member);
    tcase_add_test(tc, zero_costs);
    tcase_add_test(tc, duplicate_entries_add_up);
    tcase_add_test(tc, nearly_closed);
    tcase_add_test(tc, magnitudes);
    tcase_add_test(tc, bad_arguments);
    tcase_add_loop_test(tc, random_against_oracle, 0, 60);
    tcase_add_loop_test(tc, random_dense_vs_sparse, 0, 12);
    tcase_add_test(tc, large_program_shape);
    tcase_add_loop_test(tc, random_stacks_within_bounds, 0, 4);
    tcase_add_test(tc, budget);
    tcase_add_test(tc, giant_random_with_budget);
    tcase_add_test(tc, alloc_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(walk_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
