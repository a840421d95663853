/* Bounds: a proven interval [lo, hi] for every function's inclusive cost,
 * and the best figure inside it (docs/BOUNDS.md). Built by
 * cgprop_graph_propagate() beside gprof2dot's totals, from three sources:
 *   - the recursion classes (split.c): C_n seen from both sides, the calls
 *     into level-0 activations and what those spend and call;
 *   - where the classes say nothing, the measured call costs around the
 *     function's strongly connected component;
 *   - nothing, where call costs are not measured (no interval). */
#include "analysis.h"
#include "walk.h"

#include <math.h>
#include <string.h>

struct cgprop__bounds {
    uint32_t nn, K, ncyc;
    uint64_t *lo, *hi;  /* nn * K */
    uint8_t *reason;    /* nn * K: CGPROP_R_* bits (they fit in 8) */
    /* ncyc * K: the cost of each cycle's outermost activations where the
     * collapse's total is that cost (see cycle_exact), else NOT_EXACT. */
    uint64_t *cyc_T;
};

#define NOT_EXACT UINT64_MAX

static void res_destroy(const cgprop_graph *g, cgprop__bounds *b)
{
    if (!b) return;
    cgprop__free(g, b->lo);
    cgprop__free(g, b->hi);
    cgprop__free(g, b->reason);
    cgprop__free(g, b->cyc_T);
    cgprop__free(g, b);
}

void cgprop__bounds_destroy(const cgprop_graph *g, void *res) { res_destroy(g, res); }


#define NO_INTERVAL (CGPROP_R_UNMEASURED | CGPROP_R_OVERFLOW)

/* Per component, what the intervals of its members need: whether every
 * call they rest on is measured, whether anything enters it, and T, the
 * cost of all its outermost activations: its members' self costs plus the
 * calls that leave it. Calls leaving a component never nest inside one
 * another (their callees cannot reach back into it), so T is exact. */
typedef struct comp {
    bool measured, entered;
    bool out_measured; /* every call leaving it is measured: T is its whole cost */
    bool *ovf;  /* K */
    uint64_t *T; /* K */
} comp;

/* The calls into f, whose callers, flags and costs are random reads on a
 * large component: asked for a few members ahead of the loops below, and
 * in comp_scan the callees' cycles and the costs of the calls out too (on
 * a 185,000-member cycle of a million calls: comp_scan 17 -> 12 ms,
 * from_calls 10-11 -> 6). */
static inline void ask_in_calls(const cgprop_graph *g, const cgprop__adj *adj, uint32_t f, bool costs)
{
    for (uint32_t j = adj->in_off[f]; j < adj->in_off[f + 1]; j++) {
        uint32_t e = adj->in_e[j];
        CGPROP__PREFETCH(g->ecaller + e);
        if (costs) CGPROP__PREFETCH(g->ecost + (size_t)e * g->K);
        else CGPROP__PREFETCH(g->eflags + e);
    }
}

static void comp_scan(const cgprop_graph *g, const cgprop__adj *adj, const uint32_t *mem, uint32_t n,
                      uint32_t cyc, comp *c)
{
    uint32_t K = g->K;
    const uint32_t *cof = cgprop__cycles_of_all(g);
    c->measured = true;
    c->out_measured = true;
    c->entered = false;
    for (uint32_t k = 0; k < K; k++) {
        c->T[k] = 0;
        c->ovf[k] = false;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t f = mem[i];
        if (i + CGPROP__AHEAD_BOUNDS_MEMBERS < n) {
            uint32_t fa = mem[i + CGPROP__AHEAD_BOUNDS_MEMBERS];
            ask_in_calls(g, adj, fa, false);
            for (uint32_t j = adj->out_off[fa]; j < adj->out_off[fa + 1]; j++) {
                CGPROP__PREFETCH(cof + adj->out_v[j]);
                CGPROP__PREFETCH(g->ecost + (size_t)adj->out_e[j] * K);
            }
        }
        if (g->nflags[f] & CGPROP__NF_SPONT) c->entered = true;
        for (uint32_t k = 0; k < K; k++)
            if (!cgprop__sat_add(&c->T[k], g->self[(size_t)f * K + k])) c->ovf[k] = true;
        for (uint32_t j = adj->out_off[f]; j < adj->out_off[f + 1]; j++) {
            uint32_t e = adj->out_e[j], h = adj->out_v[j];
            if (h == f || (cyc != CGPROP_NONE && cgprop__cycles_of_in(g, cof, h) == cyc)) continue;
            if (!(g->eflags[e] & CGPROP__EF_HAS_COST)) c->measured = c->out_measured = false;
            for (uint32_t k = 0; k < K; k++)
                if (!cgprop__sat_add(&c->T[k], g->ecost[(size_t)e * K + k])) c->ovf[k] = true;
        }
        for (uint32_t j = adj->in_off[f]; j < adj->in_off[f + 1]; j++) {
            uint32_t e = adj->in_e[j], a = g->ecaller[e];
            if (a == f) continue;
            if (!(g->eflags[e] & CGPROP__EF_HAS_COST)) c->measured = false;
            if (cyc == CGPROP_NONE || cgprop__cycles_of_in(g, cof, a) != cyc) c->entered = true;
        }
    }
}

/* Interval of a member f of component c from the measured calls alone:
 *   L = its spontaneous cost + the calls into it from outside the component
 *       (such a caller is never active below f, so these activations are
 *       outermost and their costs disjoint);
 *   U = min(T, L + the calls into it from the other members): every
 *       level-0 activation of f is entered one of those ways.
 * A component nothing enters (a root of an aggregated graph) was entered
 * where the data does not say: a lone function is its whole cost, a cycle's
 * members lie anywhere up to T. */
static void from_calls(const cgprop_graph *g, const cgprop__adj *adj, uint32_t f, uint32_t cyc, uint32_t n,
                       const comp *c, uint64_t *lo, uint64_t *hi, uint8_t *reason)
{
    uint32_t K = g->K;
    const uint32_t *cof = cgprop__cycles_of_all(g);
    for (uint32_t k = 0; k < K; k++) {
        if (!c->measured || c->ovf[k]) {
            reason[k] = (uint8_t)(!c->measured ? CGPROP_R_UNMEASURED : CGPROP_R_OVERFLOW);
            continue;
        }
        if (!c->entered) {
            lo[k] = n == 1 ? c->T[k] : 0;
            hi[k] = c->T[k];
            if (n > 1) reason[k] = CGPROP_R_ENTRY_UNKNOWN;
            continue;
        }
        uint64_t L = g->spont_cost[(size_t)f * K + k], M = 0;
        bool ovf = false;
        for (uint32_t j = adj->in_off[f]; j < adj->in_off[f + 1]; j++) {
            uint32_t e = adj->in_e[j], a = g->ecaller[e];
            if (a == f) continue;
            bool inside = cyc != CGPROP_NONE && cgprop__cycles_of_in(g, cof, a) == cyc;
            if (!cgprop__sat_add(inside ? &M : &L, g->ecost[(size_t)e * K + k])) ovf = true;
        }
        uint64_t U = L;
        if (!cgprop__sat_add(&U, M)) U = UINT64_MAX;
        if (ovf) {
            reason[k] = CGPROP_R_OVERFLOW;
            continue;
        }
        lo[k] = L;
        hi[k] = U < c->T[k] ? U : c->T[k];
        if (n > 1 && lo[k] != hi[k]) reason[k] = CGPROP_R_RECURSION;
    }
}

/* Whether the collapse's total of cycle cy is exact: every call leaving the
 * cycle is measured and the figure is c's T, the cost of the cycle's
 * outermost activations, to rounding (the collapse adds shares as doubles;
 * the row then shows T itself). A T past 2^53 has no exact double and is
 * not claimed. */
static void cycle_exact(const cgprop_graph *g, cgprop__bounds *b, uint32_t cy, const uint32_t *mem, const comp *c)
{
    for (uint32_t k = 0; k < b->K; k++) {
        double t = cgprop__collapse_vertex_total(g, mem[0], k), x = (double)c->T[k];
        bool exact = c->out_measured && !c->ovf[k] && c->T[k] <= ((uint64_t)1 << 53) &&
                     fabs(t - x) <= 1e-9 * (x > 1 ? x : 1);
        b->cyc_T[(size_t)cy * b->K + k] = exact ? c->T[k] : NOT_EXACT;
    }
}

int cgprop__bounds_build(cgprop_graph *g, cgprop__bounds **out)
{
    *out = NULL;
    if (!cgprop__current(g, CGPROP__A_SPLIT)) {
        int rc = cgprop_graph_split(g);
        if (rc != CGPROP_OK) return rc;
    }
    const cgprop__adj *adj = cgprop__get_adj(g);
    if (!adj) return CGPROP_ENOMEM;
    uint32_t nn = g->nn, K = g->K;
    size_t nk = (size_t)nn * K;
    cgprop__bounds *b = cgprop__calloc(g, 1, sizeof *b);
    uint8_t *need = cgprop__calloc(g, nn ? nn : 1, 1); /* no side of C_n determined in some metric */
    comp c = {0};
    c.T = cgprop__alloc(g, K, sizeof *c.T);
    c.ovf = cgprop__alloc(g, K, sizeof *c.ovf);
    if (!b || !need || !c.T || !c.ovf) goto nomem;
    b->nn = nn;
    b->K = K;
    b->lo = cgprop__calloc(g, nk ? nk : 1, sizeof *b->lo);
    b->hi = cgprop__calloc(g, nk ? nk : 1, sizeof *b->hi);
    b->reason = cgprop__calloc(g, nk ? nk : 1, 1);
    b->ncyc = cgprop__cycles_count(g);
    b->cyc_T = cgprop__alloc(g, (size_t)b->ncyc * K + 1, sizeof *b->cyc_T);
    uint8_t *cyc_done = cgprop__calloc(g, (size_t)b->ncyc + 1, 1);
    if (!b->lo || !b->hi || !b->reason || !b->cyc_T || !cyc_done) {
        cgprop__free(g, cyc_done);
        goto nomem;
    }

    /* What the classes determine. Where both sides do and they differ, the
     * truth is one of them or between (the data is off); where neither
     * does, the measured calls bound it. */
    for (uint32_t f = 0; f < nn; f++) {
        for (uint32_t k = 0; k < K; k++) {
            size_t fk = (size_t)f * K + k;
            uint64_t in, outv;
            uint32_t sd;
            cgprop__split_sides(g, f, k, &in, &outv, &sd);
            bool in_ok = (sd & CGPROP__SIDE_IN) != 0, out_ok = (sd & CGPROP__SIDE_OUT) != 0;
            if (in_ok && out_ok) {
                b->lo[fk] = in < outv ? in : outv;
                b->hi[fk] = in < outv ? outv : in;
                if (in != outv) b->reason[fk] = CGPROP_R_SIDES_DISAGREE;
            } else if (in_ok || out_ok) {
                b->lo[fk] = b->hi[fk] = in_ok ? in : outv;
            } else {
                need[f] = 1;
            }
        }
    }
    uint32_t one[1];
    for (uint32_t f = 0; f < nn; f++) {
        if (!need[f]) continue;
        uint32_t cy = cgprop__cycles_of(g, f), n = 1;
        const uint32_t *mem = one;
        one[0] = f;
        if (cy != CGPROP_NONE) mem = cgprop__cycles_members(g, cy, &n);
        comp_scan(g, adj, mem, n, cy, &c);
        if (cy != CGPROP_NONE) {
            cycle_exact(g, b, cy, mem, &c);
            cyc_done[cy] = 1;
        }
        /* Every member of the component that needs it, in one scan. */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t v = mem[i];
            if (i + CGPROP__AHEAD_BOUNDS_MEMBERS < n) ask_in_calls(g, adj, mem[i + CGPROP__AHEAD_BOUNDS_MEMBERS], true);
            if (!need[v]) continue;
            need[v] = 0;
            uint64_t lo[CGPROP_MAX_METRICS], hi[CGPROP_MAX_METRICS];
            uint8_t rs[CGPROP_MAX_METRICS];
            memset(rs, 0, sizeof rs);
            from_calls(g, adj, v, cy, n, &c, lo, hi, rs);
            for (uint32_t k = 0; k < K; k++) {
                size_t vk = (size_t)v * K + k;
                uint64_t in, outv;
                uint32_t sd;
                cgprop__split_sides(g, v, k, &in, &outv, &sd);
                if (sd & (CGPROP__SIDE_IN | CGPROP__SIDE_OUT)) continue; /* this metric had a side */
                b->lo[vk] = lo[k];
                b->hi[vk] = hi[k];
                b->reason[vk] = rs[k];
            }
        }
    }
    /* The cycles whose members all had a side from the classes: their
     * totals are checked the same way. */
    for (uint32_t cy = 0; cy < b->ncyc; cy++) {
        if (cyc_done[cy]) continue;
        uint32_t n;
        const uint32_t *mem = cgprop__cycles_members(g, cy, &n);
        comp_scan(g, adj, mem, n, cy, &c);
        cycle_exact(g, b, cy, mem, &c);
    }
    cgprop__free(g, cyc_done);
    /* Every activation of f lies inside an outermost one, so its inclusive
     * cost is at least its self cost: on data that agrees with itself that
     * raises the lower bound. An interval below it means the data
     * contradicts itself: widen it up to the self cost and say so. Where the
     * data already contradicts itself no side is trusted over another, so
     * nothing narrows the interval (a point there would claim exactness). */
    for (size_t fk = 0; fk < nk; fk++) {
        if (b->reason[fk] & NO_INTERVAL) continue;
        uint64_t s = g->self[fk];
        if (b->hi[fk] < s) {
            b->hi[fk] = s;
            b->reason[fk] |= CGPROP_R_BELOW_SELF;
        } else if (b->lo[fk] < s && !(b->reason[fk] & CGPROP_R_SIDES_DISAGREE)) {
            b->lo[fk] = s;
        }
        if (b->lo[fk] > b->hi[fk]) { /* the calls in exceed the component's total */
            uint64_t t = b->lo[fk];
            b->lo[fk] = b->hi[fk];
            b->hi[fk] = t;
            b->reason[fk] |= CGPROP_R_SIDES_DISAGREE;
        }
        if (b->lo[fk] == b->hi[fk]) b->reason[fk] &= (uint8_t)~(CGPROP_R_RECURSION | CGPROP_R_ENTRY_UNKNOWN);
    }
    /* Stacks that may have lost their outer frames (cgprop__unrooted_root)
     * may have run under any function they do not show: each such stack a
     * function's figure leaves out can raise it, up to the program's total.
     * So can they a cycle's total, unless a member starts every one. */
    for (uint32_t k = 0; k < K; k++) {
        if (!cgprop__split_unrooted_weight(g, k)) continue;
        for (uint32_t f = 0; f < nn; f++) {
            size_t fk = (size_t)f * K + k;
            if (b->reason[fk] & NO_INTERVAL) continue;
            uint64_t total, extra = cgprop__split_extra(g, f, k, &total), hi = b->hi[fk];
            if (!extra || hi >= total) continue;
            b->hi[fk] = cgprop__sat_add(&hi, extra) && hi < total ? hi : total;
            if (b->hi[fk] > b->lo[fk]) b->reason[fk] |= CGPROP_R_UNROOTED;
        }
        for (uint32_t cy = 0; cy < b->ncyc; cy++) {
            uint32_t n;
            const uint32_t *mem = cgprop__cycles_members(g, cy, &n);
            uint64_t u = cgprop__split_unrooted_weight(g, k);
            for (uint32_t i = 0; i < n && u != UINT64_MAX; i++)
                if (cgprop__unrooted_root(g, mem[i])) u -= g->spont_cost[(size_t)mem[i] * K + k];
            if (u) b->cyc_T[(size_t)cy * K + k] = NOT_EXACT;
        }
    }
    /* An inclusive cost the input measured itself (cgprop__graph_state_total)
     * is the function's figure: the interval is that single point. Where it
     * contradicts what was proven from the rest of the input, the point is
     * kept (the profiler measured it) and the reason says what it
     * contradicts: BELOW_SELF when under the self cost, SIDES_DISAGREE when
     * outside the interval the classes or the calls gave. */
    for (uint32_t f = 0; g->stated && f < nn; f++) {
        if (!(g->nflags[f] & CGPROP__NF_STATED)) continue;
        for (uint32_t k = 0; k < K; k++) {
            size_t fk = (size_t)f * K + k;
            uint64_t v = g->stated[fk];
            uint8_t r = 0;
            if (v < g->self[fk]) r |= CGPROP_R_BELOW_SELF;
            if (!(b->reason[fk] & NO_INTERVAL) && (v < b->lo[fk] || v > b->hi[fk])) r |= CGPROP_R_SIDES_DISAGREE;
            b->lo[fk] = b->hi[fk] = v;
            b->reason[fk] = r;
        }
    }
    cgprop__free(g, need);
    cgprop__free(g, c.T);
    cgprop__free(g, c.ovf);
    *out = b;
    return CGPROP_OK;
nomem:
    res_destroy(g, b);
    cgprop__free(g, need);
    cgprop__free(g, c.T);
    cgprop__free(g, c.ovf);
    return CGPROP_ENOMEM;
}

void cgprop__bounds_fill_cycle(const cgprop_graph *g, uint32_t cycle, uint32_t k, cgprop_cycle_row *row)
{
    const cgprop__bounds *b = cgprop__res(g, CGPROP__A_BOUNDS);
    if (!b || cycle >= b->ncyc || k >= b->K) return;
    uint64_t t = b->cyc_T[(size_t)cycle * b->K + k];
    if (t != NOT_EXACT) row->total = (double)t;
    else row->flags |= CGPROP_F_ESTIMATE;
}

bool cgprop__bounds_point(const cgprop_graph *g, uint32_t node, uint32_t k, uint64_t *value)
{
    const cgprop__bounds *b = cgprop__res(g, CGPROP__A_BOUNDS);
    size_t fk = (size_t)node * b->K + k;
    *value = b->lo[fk];
    return !(b->reason[fk] & NO_INTERVAL) && b->lo[fk] == b->hi[fk];
}

void cgprop__bounds_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row)
{
    const cgprop__bounds *b = cgprop__res(g, CGPROP__A_BOUNDS);
    size_t fk = (size_t)node * b->K + k;
    uint32_t reason = b->reason[fk];
    double h = row->heuristic;
    row->reason = reason;
    row->flags &= ~(uint32_t)(CGPROP_F_ESTIMATE | CGPROP_F_NO_BOUNDS | CGPROP_F_CLAMPED | CGPROP_F_NO_WALK);
    row->flags |= CGPROP_F_NO_WALK;
    row->walk = 0;
    if (reason & NO_INTERVAL) {
        /* Without an interval the figure is what propagation gives: a
         * cycle member's own total is gprof2dot's estimate; anything else
         * rests on the share assumption. */
        row->lo = row->hi = 0;
        row->total = h;
        row->flags |= CGPROP_F_NO_BOUNDS | CGPROP_F_ESTIMATE;
        row->estimate = row->cycle != CGPROP_NONE ? CGPROP_EST_HEURISTIC : CGPROP_EST_SHARES;
        return;
    }
    double lo = (double)b->lo[fk], hi = (double)b->hi[fk];
    row->lo = lo;
    row->hi = hi;
    if (b->lo[fk] == b->hi[fk]) {
        row->total = lo;
        row->estimate = CGPROP_EST_EXACT;
        return;
    }
    row->flags |= CGPROP_F_ESTIMATE;
    if (reason == CGPROP_R_UNROOTED) {
        /* Exact but for stacks cut short, whose lost frames say nothing of
         * where they ran: the figure the stacks show, not gprof2dot's
         * (which, on a recursive function, is over it for other reasons). */
        row->total = lo;
        row->estimate = CGPROP_EST_MEASURED;
        return;
    }
    double hc = h < lo ? lo : h > hi ? hi : h;
    if (hc != h) row->flags |= CGPROP_F_CLAMPED;
    row->estimate = CGPROP_EST_HEURISTIC;
    row->total = hc;
    double w;
    uint32_t mode;
    uint32_t ws = cgprop__walk_get(g, node, k, &w, &mode);
    if (ws == CGPROP__WALK_BUDGET) {
        row->estimate = CGPROP_EST_BUDGET;
    } else if (ws == CGPROP__WALK_DONE) {
        row->walk = w;
        row->flags &= ~(uint32_t)CGPROP_F_NO_WALK;
        if (mode == CGPROP_EST_WALK) {
            row->estimate = CGPROP_EST_WALK;
            row->total = w;
        } else if (mode == CGPROP_EST_MIDPOINT) {
            /* The two models err in opposite directions on real programs
             * (docs/BOUNDS.md): halfway is inside the interval, as both are. */
            row->estimate = CGPROP_EST_MIDPOINT;
            row->total = 0.5 * (w + hc);
        }
    }
    (void)g;
}

bool cgprop__bounds_wants_walk(const cgprop__bounds *b, size_t fk, double *lo, double *hi)
{
    if (!(b->reason[fk] & (CGPROP_R_RECURSION | CGPROP_R_ENTRY_UNKNOWN))) return false;
    *lo = (double)b->lo[fk];
    *hi = (double)b->hi[fk];
    return true;
}
