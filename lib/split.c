/* KCachegrind's recursive / non-recursive split, computed from
 * the per-class costs in the store. docs/SPLIT.md explains every figure and
 * the choices made where the input cannot tell a class. */
#include "graph.h"

#include "analysis.h"

#include <string.h>

/* Per-call figures, in this order, K values each. */
enum { E_NN, E_NR, E_ND, E_RN, E_RR, E_RD, E_FIG };
/* Per-function figures, K values each. N_OUT is the outgoing side of C_n
 * (S_n plus every call out of level-0 activations), kept beside C_n so the
 * bounds analysis can compare the two; while the calls are summed it holds
 * their part alone. S_n and S_r are not stored: self_sn() and the store's
 * self_r give them. */
enum { N_CN, N_CR, N_OUT, N_FIG };

/* A call's six figures are not stored: they follow from its class buckets,
 * its plain cost and where its unclassified part goes, all of which stay
 * as they are while the result is current. That part's place is one bit
 * kept beside the call's inexact bits. */
#define EX_U_TO_NR (1u << 31)

typedef struct split_res {
    uint32_t nn, ne, K;
    uint64_t *node; /* nn * N_FIG * K */
    double *D;      /* nn * K */
    uint32_t *nx;   /* nn * K: inexact bits (overflow makes them per metric) */
    uint8_t *sides; /* nn * K: CGPROP__SIDE_* bits */
    uint32_t *ex;   /* ne: inexact bits, and EX_U_TO_NR */
    /* Per metric: the weight of the stacks that may have lost their outer
     * frames (cgprop__unrooted_root), and the program's total (every self
     * cost), which caps any inclusive cost. */
    uint64_t unrooted[CGPROP_MAX_METRICS], total[CGPROP_MAX_METRICS];
    /* nn * K, or NULL: the weight of those stacks that show the function
     * below their first frame (every stack of their root does,
     * cgprop__stacks_common), which its total already counts. */
    uint64_t *shown;
} split_res;

static void res_free(const cgprop_graph *g, split_res *r)
{
    if (!r) return;
    cgprop__free(g, r->node);
    cgprop__free(g, r->D);
    cgprop__free(g, r->nx);
    cgprop__free(g, r->sides);
    cgprop__free(g, r->ex);
    cgprop__free(g, r->shown);
    cgprop__free(g, r);
}

void cgprop__split_destroy(const cgprop_graph *g, void *res) { res_free(g, res); }

static const split_res *RES(const cgprop_graph *g) { return cgprop__res(g, CGPROP__A_SPLIT); }

/* The weight of the unrooted stacks that need not hold v (all of them, but
 * those v starts and those that show it), in metric k; *total the
 * program's. */
static uint64_t extra_of(const cgprop_graph *g, const split_res *r, uint32_t v, uint32_t k, uint64_t *total)
{
    *total = r->total[k];
    uint64_t u = r->unrooted[k];
    if (u == UINT64_MAX) return u;
    if (cgprop__unrooted_root(g, v)) u -= g->spont_cost[(size_t)v * g->K + k];
    if (r->shown) {
        uint64_t sh = r->shown[(size_t)v * g->K + k];
        u -= sh < u ? sh : u;
    }
    return u;
}

uint64_t cgprop__split_extra(const cgprop_graph *g, uint32_t v, uint32_t k, uint64_t *total)
{
    return extra_of(g, RES(g), v, k, total);
}

uint64_t cgprop__split_unrooted_weight(const cgprop_graph *g, uint32_t k)
{
    const split_res *r = RES(g);
    return r && k < r->K ? r->unrooted[k] : 0;
}

/* S_n of f in metric k: the self cost without a class goes to level 0. */
static inline uint64_t self_sn(const cgprop_graph *g, size_t fk)
{
    uint64_t self = g->self[fk], sn = g->self_n[fk], sr = g->self_r[fk];
    return sn + (self - sn - sr);
}

void cgprop__split_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_split_row *row)
{
    const split_res *r = RES(g);
    const uint64_t *v = r->node + (size_t)node * N_FIG * r->K;
    memset(row, 0, sizeof *row);
    row->id = node;
    row->inexact = r->nx[(size_t)node * r->K + k];
    row->S_n = self_sn(g, (size_t)node * r->K + k);
    row->S_r = g->self_r[(size_t)node * r->K + k];
    row->C_n = v[N_CN * r->K + k];
    row->C_r = v[N_CR * r->K + k];
    row->D = r->D[(size_t)node * r->K + k];
    double h;
    if (cgprop__propagate_total(g, node, k, &h)) row->heuristic = h;
}

void cgprop__split_sides(const cgprop_graph *g, uint32_t node, uint32_t k, uint64_t *in, uint64_t *out,
                         uint32_t *sides)
{
    const split_res *r = RES(g);
    const uint64_t *v = r->node + (size_t)node * N_FIG * r->K;
    *in = v[N_CN * r->K + k];
    *out = v[N_OUT * r->K + k];
    *sides = r->sides[(size_t)node * r->K + k];
}

/* Call e's six figures in metric k from its class buckets bk; u_to_nr
 * says where the part without a class goes. */
static inline void edge_figures(const cgprop_graph *g, const uint64_t *const *bk, uint32_t e, uint32_t k,
                                bool u_to_nr, uint64_t fig[E_FIG])
{
    uint64_t b[CGPROP__NCLS], sum = 0;
    for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
        b[c] = bk[c][k];
        sum += b[c]; /* ≤ the call's plain cost */
    }
    uint64_t u = g->ecost[(size_t)e * g->K + k] - sum;
    fig[E_NN] = b[cgprop__cls(0, 0)] + (u_to_nr ? 0 : u);
    fig[E_NR] = b[cgprop__cls(0, 1)] + b[cgprop__cls(0, 3)] + (u_to_nr ? u : 0);
    fig[E_ND] = b[cgprop__cls(0, 2)];
    fig[E_RN] = b[cgprop__cls(1, 0)];
    fig[E_RR] = b[cgprop__cls(1, 1)] + b[cgprop__cls(1, 3)];
    fig[E_RD] = b[cgprop__cls(1, 2)];
}

static inline void edge_buckets(const cgprop_graph *g, uint32_t e, const uint64_t *bk[CGPROP__NCLS])
{
    for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
        uint64_t n;
        bk[c] = cgprop__ecls_get(g, e, c, &n);
    }
}

void cgprop__split_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_split_row *row)
{
    const split_res *r = RES(g);
    const uint64_t *bk[CGPROP__NCLS];
    uint64_t fig[E_FIG];
    edge_buckets(g, edge, bk);
    edge_figures(g, bk, edge, k, (r->ex[edge] & EX_U_TO_NR) != 0, fig);
    memset(row, 0, sizeof *row);
    row->id = edge;
    row->caller = g->ecaller[edge];
    row->callee = g->ecallee[edge];
    row->inexact = r->ex[edge] & ~EX_U_TO_NR;
    /* Stacks cut short leave every call's levels unknown (unrooted_figures). */
    if (r->unrooted[k])
        row->inexact |= CGPROP_X_C_NN | CGPROP_X_C_NR | CGPROP_X_C_ND | CGPROP_X_C_RN | CGPROP_X_C_RR | CGPROP_X_C_RD;
    row->C_nn = fig[E_NN];
    row->C_nr = fig[E_NR];
    row->C_nd = fig[E_ND];
    row->C_rn = fig[E_RN];
    row->C_rr = fig[E_RR];
    row->C_rd = fig[E_RD];
}

/* ---- the analysis ---- */

/* Per-function facts gathered from the calls (metric independent). */
enum {
    T_IN_XN_BAD = 1u << 0,   /* some C_xn into it is not exact */
    T_IN_XR_BAD = 1u << 1,   /* some C_xr into it is not exact */
    T_OUT_N_BAD = 1u << 2,   /* some call out of its level-0 activations is not exact */
    T_OUT_XR_BAD = 1u << 3,  /* some C_xr out of it is not exact */
    T_IN_LEVEL0 = 1u << 4    /* some other function may call its level-0 activations */
};


/* Whether class bucket c of call e holds anything, in any metric. */
static bool bucket_used(const cgprop_graph *g, uint32_t e, uint32_t c)
{
    uint64_t n;
    const uint64_t *b = cgprop__ecls_get(g, e, c, &n);
    if (n) return true;
    for (uint32_t k = 0; k < g->K; k++)
        if (b[k]) return true;
    return false;
}

/* How many calls ahead to fetch the callee's figures. */
#define PF CGPROP__AHEAD_SPLIT_CALLS

#define X_EDGE_ALL                                                                                      \
    (CGPROP_X_C_NN | CGPROP_X_C_NR | CGPROP_X_C_ND | CGPROP_X_C_RN | CGPROP_X_C_RR | CGPROP_X_C_RD)

/* What the passes share besides the result. */
typedef struct scratch {
    uint8_t *t;          /* nn: T_* facts */
    uint64_t *out_xr;    /* nn·K: Σ_g C_xr(f, g) */
    uint8_t *ovf;        /* nn·K: bit 0: C_n/D, 1: C_r, 2: out_xr, 3: N_OUT saturated */
    const uint32_t *cyc; /* cycle of each function; NULL when every cost came with a class */
    uint32_t *own_cyc;
} scratch;

/* f and h in one strongly connected component. */
static inline bool same_scc(const uint32_t *cyc, uint32_t f, uint32_t h)
{
    return f == h || (cyc[f] != CGPROP_NONE && cyc[f] == cyc[h]);
}

/* f can recurse. */
static inline bool recursive(const cgprop_graph *g, const uint32_t *cyc, uint32_t v)
{
    return cyc[v] != CGPROP_NONE || (g->nflags[v] & CGPROP__NF_SELF_CALL);
}

/* Which figures of call e the input leaves inexact, and what that says of
 * its ends (T_* bits into s->t). Returns the call's CGPROP_X_* bits and sets
 * *u_to_nr when its unclassified part goes level 0 → level 1. */
static uint32_t call_exactness(const cgprop_graph *g, scratch *s, uint32_t e, bool *u_to_nr)
{
    uint32_t f = g->ecaller[e], h = g->ecallee[e], fl = g->eflags[e], x = 0;
    bool xn_bad = false, xr_bad = false, n_bad = false, level0 = false;
    /* Where the unclassified part goes. A self-call always enters a level ≥
     * 1 activation (f is active). Inside any recursive component the call is
     * placed the same way, as level 0 → level 1, so C_n of the callee stays
     * a lower bound and never counts nested activations twice (annotate's
     * 185 %). Anything else is level 0 → level 0, exact where the shape
     * proves it. */
    *u_to_nr = (fl & CGPROP__EF_UNCLASSIFIED) && same_scc(s->cyc, f, h);
    if (!(fl & CGPROP__EF_HAS_COST)) {
        /* A call without any cost (gprof arcs): its figures are unknown. */
        x |= X_EDGE_ALL;
        xn_bad = xr_bad = n_bad = level0 = true;
    }
    if (fl & CGPROP__EF_UNCLASSIFIED) {
        if (f == h) {
            x |= CGPROP_X_C_NR | CGPROP_X_C_RD;
            xr_bad = n_bad = true;
        } else if (same_scc(s->cyc, f, h)) {
            x |= X_EDGE_ALL;
            xn_bad = xr_bad = n_bad = true;
            level0 = true;
        } else {
            /* h is active below f only through a path h →…→ f, which
             * another component rules out: h is at level 0. */
            level0 = true;
            if (recursive(g, s->cyc, f)) {
                x |= CGPROP_X_C_NN | CGPROP_X_C_RN;
                n_bad = true;
            }
        }
    }
    if (bucket_used(g, e, cgprop__cls(0, CGPROP_LEVEL_REC))) {
        x |= CGPROP_X_C_NR | CGPROP_X_C_ND;
        xr_bad = true;
    }
    if (bucket_used(g, e, cgprop__cls(1, CGPROP_LEVEL_REC))) {
        x |= CGPROP_X_C_RR | CGPROP_X_C_RD;
        xr_bad = true;
    }
    if (bucket_used(g, e, cgprop__cls(0, 0)) || bucket_used(g, e, cgprop__cls(1, 0))) level0 = true;
    if (f != h) {
        if (xn_bad) s->t[h] |= T_IN_XN_BAD;
        if (level0) s->t[h] |= T_IN_LEVEL0;
    }
    if (xr_bad) s->t[h] |= T_IN_XR_BAD;
    if (n_bad) s->t[f] |= T_OUT_N_BAD;
    if (xr_bad) s->t[f] |= T_OUT_XR_BAD;
    return x;
}

/* Call e's six figures per metric, summed into the callee's C_n and C_r
 * and the caller's outflows. */
static void call_figures(const cgprop_graph *g, split_res *r, scratch *s, uint32_t e, bool u_to_nr)
{
    uint32_t K = g->K, f = g->ecaller[e], h = g->ecallee[e];
    const uint64_t *bk[CGPROP__NCLS];
    edge_buckets(g, e, bk);
    for (uint32_t k = 0; k < K; k++) {
        uint64_t fig[E_FIG];
        edge_figures(g, bk, e, k, u_to_nr, fig);
        size_t fk = (size_t)f * K + k, hk = (size_t)h * K + k;
        uint64_t *hv = r->node + (size_t)h * N_FIG * K;
        /* C_n(h) from its callers; replaced later for roots. */
        if (!cgprop__sat_add(&hv[N_CN * K + k], fig[E_NN] + fig[E_RN])) s->ovf[hk] |= 1;
        if (!cgprop__sat_add(&hv[N_CR * K + k], fig[E_NR] + fig[E_RR])) s->ovf[hk] |= 2;
        uint64_t *fv = r->node + (size_t)f * N_FIG * K;
        if (!cgprop__sat_add(&fv[N_OUT * K + k], fig[E_NN] + fig[E_NR] + fig[E_ND])) s->ovf[fk] |= 8;
        if (!cgprop__sat_add(&s->out_xr[fk], fig[E_NR] + fig[E_RR])) s->ovf[fk] |= 4;
    }
}

/* Function f's figures, once every call has been placed. */
static void function_figures(const cgprop_graph *g, split_res *r, const scratch *s, uint32_t f)
{
    uint32_t K = g->K, nf = g->nflags[f], tf = s->t[f], xs = 0;
    if ((nf & CGPROP__NF_SELF_UNCLASSIFIED) && recursive(g, s->cyc, f)) xs = CGPROP_X_S_N | CGPROP_X_S_R;
    /* Nothing enters its level-0 activations: a root of an aggregated
     * graph, whose inclusive cost is what it spends and calls. */
    bool root = !(nf & CGPROP__NF_SPONT) && !(tf & T_IN_LEVEL0);
    uint64_t *v = r->node + (size_t)f * N_FIG * K;
    for (uint32_t k = 0; k < K; k++) {
        size_t fk = (size_t)f * K + k;
        uint64_t self = g->self[fk];
        uint32_t x = xs, sd = 0;
        /* C_n two ways: what enters level-0 activations (their callers'
         * calls and spontaneous entries) and what they spend and call. */
        uint64_t out = self_sn(g, fk);
        bool out_ok = !(s->ovf[fk] & 8) && cgprop__sat_add(&out, v[N_OUT * K + k]) && !(xs & CGPROP_X_S_N) &&
                      !(tf & T_OUT_N_BAD);
        v[N_OUT * K + k] = out;
        if (out_ok) sd |= CGPROP__SIDE_OUT;
        if (root) {
            v[N_CN * K + k] = out;
            sd |= CGPROP__SIDE_ROOT;
            if (!out_ok) x |= CGPROP_X_C_N;
        } else {
            bool in_ok = !(s->ovf[fk] & 1) && cgprop__sat_add(&v[N_CN * K + k], g->spont_cost[fk]) &&
                         !(tf & T_IN_XN_BAD);
            if (in_ok) sd |= CGPROP__SIDE_IN;
            else x |= CGPROP_X_C_N;
            /* Two sides that both claim exactness and disagree: the data
             * itself is off (collection toggled mid-run, a lost spontaneous
             * entry, a damaged file). Neither is exact. */
            if (in_ok && out_ok && out != v[N_CN * K + k]) x |= CGPROP_X_C_N;
        }
        /* Every activation of f lies inside some level-0 one. */
        if (v[N_CN * K + k] < self) x |= CGPROP_X_C_N;
        if ((tf & T_IN_XR_BAD) || (s->ovf[fk] & 2)) x |= CGPROP_X_C_R;
        if ((x & CGPROP_X_C_N) || (tf & T_OUT_XR_BAD) || (s->ovf[fk] & 4)) x |= CGPROP_X_D;
        uint64_t cn = v[N_CN * K + k], xr = s->out_xr[fk];
        r->D[fk] = cn >= xr ? (double)(cn - xr) : -(double)(xr - cn);
        r->nx[fk] = x;
        r->sides[fk] = (uint8_t)sd;
    }
}

/* The unrooted stacks' weight U per metric (cgprop__unrooted_root). Their
 * outer frames are unknown: any function may have been active there, once
 * or many times, so every level read off the stacks may be too low and no
 * figure split by level is known; C_n only where the unrooted stacks all
 * hold the function (it starts them all) or it already has the whole
 * program. */
static int unrooted_figures(const cgprop_graph *g, split_res *r)
{
    uint32_t K = g->K, nn = g->nn;
    bool any = false;
    for (uint32_t k = 0; k < K; k++) r->unrooted[k] = r->total[k] = 0;
    for (uint32_t v = 0; v < nn; v++)
        for (uint32_t k = 0; k < K; k++) {
            size_t vk = (size_t)v * K + k;
            (void)cgprop__sat_add(&r->total[k], g->self[vk]);
            if (cgprop__unrooted_root(g, v)) (void)cgprop__sat_add(&r->unrooted[k], g->spont_cost[vk]);
        }
    /* Stated by the input (a callgrind file cgprop wrote from such stacks):
     * who starts them is not known, so they weigh on every function. */
    for (uint32_t k = 0; k < K; k++) {
        if (!cgprop__sat_add(&r->unrooted[k], g->unrooted_stated[k])) r->unrooted[k] = UINT64_MAX;
        any = any || r->unrooted[k];
    }
    if (!any) return CGPROP_OK;
    /* A stack cut short whose root shows v in every stack it starts holds
     * v already: it cannot raise v's total. */
    uint32_t root, n, nroots = cgprop__stacks_roots(g);
    for (uint32_t i = 0; i < nroots; i++) {
        const uint32_t *m = cgprop__stacks_common(g, i, &root, &n);
        if (!n || !cgprop__unrooted_root(g, root)) continue;
        if (!r->shown && !(r->shown = cgprop__calloc(g, (size_t)nn * K, sizeof *r->shown))) return CGPROP_ENOMEM;
        for (uint32_t j = 0; j < n; j++)
            for (uint32_t k = 0; k < K; k++)
                (void)cgprop__sat_add(&r->shown[(size_t)m[j] * K + k], g->spont_cost[(size_t)root * K + k]);
    }
    for (uint32_t v = 0; v < nn; v++)
        for (uint32_t k = 0; k < K; k++) {
            if (!r->unrooted[k]) continue;
            size_t vk = (size_t)v * K + k;
            uint32_t x = CGPROP_X_C_R | CGPROP_X_D;
            if (g->self[vk]) x |= CGPROP_X_S_N | CGPROP_X_S_R;
            uint64_t total;
            if (extra_of(g, r, v, k, &total) && r->node[((size_t)v * N_FIG + N_CN) * K + k] < total)
                x |= CGPROP_X_C_N;
            r->nx[vk] |= x;
        }
    return CGPROP_OK;
}

static void scratch_free(const cgprop_graph *g, scratch *s)
{
    cgprop__free(g, s->t);
    cgprop__free(g, s->out_xr);
    cgprop__free(g, s->ovf);
    cgprop__free(g, s->own_cyc);
}

int cgprop_graph_split(cgprop_graph *g)
{
    if (!g) return CGPROP_EINVAL;
    uint32_t nn = g->nn, ne = g->ne, K = g->K;
    size_t nk = (size_t)nn * K;
    scratch s;
    memset(&s, 0, sizeof s);
    split_res *r = cgprop__calloc(g, 1, sizeof *r);
    s.t = cgprop__calloc(g, nn, 1);
    s.out_xr = cgprop__calloc(g, nk, sizeof *s.out_xr);
    s.ovf = cgprop__calloc(g, nk, 1);
    if (!r || !s.t || !s.out_xr || !s.ovf) goto nomem;
    r->K = K;
    r->nn = nn;
    r->ne = ne;
    r->node = cgprop__calloc(g, nk * N_FIG, sizeof *r->node);
    r->D = cgprop__calloc(g, nk, sizeof *r->D);
    r->nx = cgprop__calloc(g, nk, sizeof *r->nx);
    r->sides = cgprop__calloc(g, nk, sizeof *r->sides);
    r->ex = cgprop__calloc(g, ne, sizeof *r->ex);
    if (!r->node || !r->D || !r->nx || !r->sides || !r->ex) goto nomem;

    /* Costs without a class are placed by what the graph's shape proves
     * (docs/SPLIT.md): that needs to know which functions can recurse. */
    bool unclassified = false;
    for (uint32_t v = 0; v < nn && !unclassified; v++)
        unclassified = (g->nflags[v] & CGPROP__NF_SELF_UNCLASSIFIED) != 0;
    for (uint32_t e = 0; e < ne && !unclassified; e++)
        unclassified = (g->eflags[e] & CGPROP__EF_UNCLASSIFIED) != 0;
    if (unclassified && !(s.cyc = cgprop__cycles_ids(g, &s.own_cyc))) goto nomem;

    /* Calls, in id order: the per-call arrays are read in sequence, the
     * callee's figures jump; they are fetched PF calls ahead. */
    for (uint32_t e = 0; e < ne; e++) {
        if (e + PF < ne) {
            uint32_t ha = g->ecallee[e + PF];
            CGPROP__PREFETCH_W(r->node + ((size_t)ha * N_FIG + N_CN) * K);
            CGPROP__PREFETCH_W(&s.t[ha]);
            CGPROP__PREFETCH_W(&s.ovf[(size_t)ha * K]);
            if (s.cyc) CGPROP__PREFETCH(&s.cyc[ha]);
        }
        bool u_to_nr;
        r->ex[e] = call_exactness(g, &s, e, &u_to_nr) | (u_to_nr ? EX_U_TO_NR : 0);
        call_figures(g, r, &s, e, u_to_nr);
    }
    for (uint32_t f = 0; f < nn; f++) function_figures(g, r, &s, f);
    if (unrooted_figures(g, r)) goto nomem;
    scratch_free(g, &s);
    cgprop__install(g, CGPROP__A_SPLIT, r);
    return cgprop__ok(g);

nomem:
    res_free(g, r);
    scratch_free(g, &s);
    return cgprop__err(g, CGPROP_ENOMEM, "split: out of memory");
}

int cgprop_graph_unrooted(cgprop_graph *g, uint32_t metric, uint64_t *weight)
{
    if (!g) return CGPROP_EINVAL;
    if (!weight) return cgprop__err(g, CGPROP_EINVAL, "unrooted: NULL argument");
    if (metric >= g->K)
        return cgprop__err(g, CGPROP_EINVAL, "unrooted: metric %u out of range (%u metrics)", metric, g->K);
    if (!cgprop__current(g, CGPROP__A_SPLIT)) {
        int rc = cgprop_graph_split(g);
        if (rc) return rc;
    }
    *weight = RES(g)->unrooted[metric];
    return cgprop__ok(g);
}
