/* gprof-style collapse: every cycle becomes one vertex of a DAG
 * and totals follow the Graham–Kessler–McKusick recurrence, callees first.
 * All K metrics are done in the same pass. */
#include "analysis.h"

#include <string.h>

/* One vertex: the collapse's figures for it, in one record so that a call
 * into it reads one cache line (on a graph larger than the caches, the
 * callee's vertex is a miss per call). A function outside cycles is its own
 * vertex, so a function's record also says which vertex it belongs to: the
 * common case needs no second look-up. */
typedef struct vrec {
    uint64_t kin; /* callers the zero-weight rule counts */
    uint32_t vid; /* records of functions: the function's vertex */
    uint32_t pad;
    double tw[];  /* T[0..K), then W[0..K): total, external + spontaneous weight */
} vrec;

typedef struct col_res {
    uint32_t share; /* resolved: CGPROP_SHARE_COUNT or CGPROP_SHARE_COST */
    uint32_t K, nn, ncyc;
    /* Vertex records, indexed by vid: a function's own id, or nn + cycle id. */
    char *vx;       /* (nn + ncyc) records of vstride bytes, cache-line aligned */
    void *vx_alloc; /* vx as allocated */
    size_t vstride;
    double *Sz;     /* ncyc * K: Σ members' self */
    double *gch;    /* nn * K: gprof child figure */
} col_res;

static void res_destroy(const cgprop_graph *g, col_res *r)
{
    if (!r) return;
    cgprop__free(g, r->vx_alloc);
    cgprop__free(g, r->Sz);
    cgprop__free(g, r->gch);
    cgprop__free(g, r);
}

void cgprop__collapse_destroy(const cgprop_graph *g, void *res) { res_destroy(g, res); }

static const col_res *RES(const cgprop_graph *g) { return cgprop__res(g, CGPROP__A_COLLAPSE); }

static inline vrec *VR(const col_res *r, size_t v) { return (vrec *)(r->vx + v * r->vstride); }
static inline double *T_of(const col_res *r, size_t v) { return VR(r, v)->tw; }

static inline uint32_t vid_of(const cgprop_graph *g, const col_res *r, uint32_t node)
{
    (void)g;
    return VR(r, node)->vid;
}

static inline double weight(const cgprop_graph *g, uint32_t share, uint32_t e, uint32_t k)
{
    if (share == CGPROP_SHARE_COUNT) return (double)g->ecount[e];
    if (!(g->eflags[e] & CGPROP__EF_HAS_COST)) return 0.0;
    return (double)g->ecost[(size_t)e * g->K + k];
}

static inline double spont_weight(const cgprop_graph *g, uint32_t share, uint32_t n, uint32_t k)
{
    if (share == CGPROP_SHARE_COUNT) return (double)g->spont_cnt[n];
    return (double)g->spont_cost[(size_t)n * g->K + k];
}

/* Fraction of vertex h's total given to one of its callers of weight w. */
static inline double frac(const col_res *r, uint32_t h, uint32_t k, double w)
{
    const vrec *v = VR(r, h);
    double W = v->tw[r->K + k];
    if (W > 0) return w / W;
    return v->kin ? 1.0 / (double)v->kin : 0.0;
}

double cgprop__collapse_weight(const cgprop_graph *g, uint32_t edge, uint32_t k)
{
    const col_res *r = RES(g);
    return weight(g, r->share, edge, k);
}

double cgprop__collapse_edge_share(const cgprop_graph *g, uint32_t edge, uint32_t k)
{
    const col_res *r = RES(g);
    uint32_t hu = vid_of(g, r, g->ecaller[edge]), hv = vid_of(g, r, g->ecallee[edge]);
    if (hu == hv) return 0.0;
    return frac(r, hv, k, weight(g, r->share, edge, k));
}

double cgprop__collapse_entry(const cgprop_graph *g, uint32_t node, uint32_t k)
{
    const col_res *r = RES(g);
    uint32_t h = vid_of(g, r, node);
    if (VR(r, h)->kin == 0) {
        if (h == node) return 1.0;
        uint32_t n;
        const uint32_t *mem = cgprop__cycles_members(g, h - r->nn, &n);
        return mem[0] == node ? 1.0 : 0.0;
    }
    if (!(g->nflags[node] & CGPROP__NF_SPONT)) return 0.0;
    return frac(r, h, k, spont_weight(g, r->share, node, k));
}

double cgprop__collapse_vertex_total(const cgprop_graph *g, uint32_t node, uint32_t k)
{
    const col_res *r = RES(g);
    return T_of(r, vid_of(g, r, node))[k];
}

double cgprop__collapse_vertex_self(const cgprop_graph *g, uint32_t node, uint32_t k)
{
    const col_res *r = RES(g);
    uint32_t h = vid_of(g, r, node);
    if (h == node) return (double)g->self[(size_t)node * r->K + k];
    return r->Sz[(size_t)(h - r->nn) * r->K + k];
}

double cgprop__collapse_gprof_child(const cgprop_graph *g, uint32_t node, uint32_t k)
{
    const col_res *r = RES(g);
    return r->gch[(size_t)node * r->K + k];
}

bool cgprop__collapse_is_root(const cgprop_graph *g, uint32_t node)
{
    const col_res *r = RES(g);
    return VR(r, vid_of(g, r, node))->kin == 0;
}

void cgprop__collapse_prefetch_edge(const cgprop_graph *g, uint32_t edge)
{
    const col_res *r = RES(g);
    CGPROP__PREFETCH(VR(r, g->ecallee[edge]));
}

void cgprop__collapse_prefetch_weight(const cgprop_graph *g, uint32_t edge, uint32_t k)
{
    if (RES(g)->share == CGPROP_SHARE_COUNT) {
        CGPROP__PREFETCH(g->ecount + edge);
        return;
    }
    CGPROP__PREFETCH(g->eflags + edge);
    CGPROP__PREFETCH(g->ecost + (size_t)edge * g->K + k);
}

void cgprop__collapse_fill_cycle(const cgprop_graph *g, uint32_t cycle, uint32_t k, cgprop_cycle_row *row)
{
    const col_res *r = RES(g);
    if (!r || cycle >= r->ncyc || k >= r->K) return;
    uint32_t h = r->nn + cycle;
    row->total = T_of(r, h)[k];
    /* A root cycle's entry is decided here already: propagation will take
     * its lowest member, so the flag is known as soon as the DAG is. */
    if (VR(r, h)->kin == 0) row->flags |= CGPROP_F_ROOT | CGPROP_F_ENTRY_ASSUMED;
}

/* How far ahead records are fetched: calls in id order, and functions in
 * the order (three steps of D: the function's list, its first callees). */
#define PF CGPROP__AHEAD_COLLAPSE_CALLS
#define D CGPROP__AHEAD_COLLAPSE_ORDER
#define L CGPROP__AHEAD_COLLAPSE_LIST

/* The Graham–Kessler–McKusick recurrence, plainly: functions callees first
 * (the cycle finder's order); each adds to its vertex's total its self cost
 * and, for every call into another vertex, that call's share of the
 * callee's total (its gprof child figure). The reference kernel: the tests
 * hold totals_tuned to it (tests/check_kernels.c), and a build with
 * CGPROP_REFERENCE_KERNELS uses it. */
static void totals_plain(const cgprop_graph *g, col_res *r, uint32_t share, const cgprop__adj *adj,
                         const uint32_t *order)
{
    uint32_t K = g->K, nn = g->nn;
    for (uint32_t i = nn; i-- > 0;) {
        uint32_t n = order[i], h = vid_of(g, r, n);
        double *gc = r->gch + (size_t)n * K, *Th = T_of(r, h);
        for (uint32_t p = adj->out_off[n]; p < adj->out_off[n + 1]; p++) {
            uint32_t hv = vid_of(g, r, adj->out_v[p]);
            if (hv == h) continue; /* self-call or intra-cycle: no propagation */
            for (uint32_t k = 0; k < K; k++)
                gc[k] += frac(r, hv, k, weight(g, share, adj->out_e[p], k)) * T_of(r, hv)[k];
        }
        for (uint32_t k = 0; k < K; k++) {
            double s = (double)g->self[(size_t)n * K + k];
            Th[k] += s + gc[k];
            if (h != n) r->Sz[(size_t)(h - nn) * K + k] += s;
        }
    }
}

/* The same walk with the misses overlapped. Callees first: a cycle's
 * members are contiguous in the order, and all vertices they call outside
 * the cycle come later in it, so walking backwards finds every callee total
 * final. The order jumps around the id space: the next functions' records
 * and call lists are fetched ahead, and within a list the callees' records. */
static void totals_tuned(const cgprop_graph *g, col_res *r, uint32_t share, const cgprop__adj *adj,
                         const uint32_t *order)
{
    uint32_t K = g->K, nn = g->nn;
    const uint32_t *off = adj->out_off, *oe = adj->out_e, *ov = adj->out_v;
    for (uint32_t i = nn; i-- > 0;) {
        if (i >= 3 * D) {
            uint32_t m = order[i - 3 * D];
            CGPROP__PREFETCH(VR(r, m));
            CGPROP__PREFETCH(&off[m]);
            CGPROP__PREFETCH_W(&r->gch[(size_t)m * K]);
            CGPROP__PREFETCH(&g->self[(size_t)m * K]);
        }
        if (i >= 2 * D) {
            uint32_t p = off[order[i - 2 * D]];
            CGPROP__PREFETCH(&oe[p]);
            CGPROP__PREFETCH(&ov[p]);
        }
        if (i >= D) {
            uint32_t m = order[i - D], p = off[m], end = off[m + 1];
            if (p < end) {
                uint32_t e = oe[p];
                CGPROP__PREFETCH(&g->ecount[e]);
                CGPROP__PREFETCH(&g->eflags[e]);
                CGPROP__PREFETCH(&g->ecost[(size_t)e * K]);
            }
            for (uint32_t q = p; q < end && q < p + L; q++) CGPROP__PREFETCH(VR(r, ov[q]));
        }
        uint32_t n = order[i];
        uint32_t h = vid_of(g, r, n);
        double *gc = r->gch + (size_t)n * K;
        for (uint32_t p = off[n], end = off[n + 1]; p < end; p++) {
            if (p + L < end) CGPROP__PREFETCH(VR(r, ov[p + L]));
            uint32_t e = oe[p];
            uint32_t hv = vid_of(g, r, ov[p]);
            if (hv == h) continue;
            const double *Tv = T_of(r, hv);
            for (uint32_t k = 0; k < K; k++) gc[k] += frac(r, hv, k, weight(g, share, e, k)) * Tv[k];
        }
        double *Th = T_of(r, h);
        for (uint32_t k = 0; k < K; k++) {
            double s = (double)g->self[(size_t)n * K + k];
            Th[k] += s + gc[k];
            if (h != n) r->Sz[(size_t)(h - nn) * K + k] += s;
        }
    }
}

#ifdef CGPROP_REFERENCE_KERNELS
#define PLAIN_DEFAULT true
#else
#define PLAIN_DEFAULT false
#endif

static int build(cgprop_graph *g, uint32_t share, col_res **out, bool plain)
{
    const cgprop__adj *adj = cgprop__get_adj(g);
    if (!adj) return CGPROP_ENOMEM;
    const uint32_t *order = cgprop__cycles_order(g);
    uint32_t K = g->K, nn = g->nn, ne = g->ne, ncyc = cgprop__cycles_count(g);
    size_t nv = (size_t)nn + ncyc;
    col_res *r = cgprop__calloc(g, 1, sizeof *r);
    if (!r) return CGPROP_ENOMEM;
    r->share = share;
    r->K = K;
    r->nn = nn;
    r->ncyc = ncyc;
    r->vstride = sizeof(vrec) + 2 * (size_t)K * sizeof(double);
    if (nv < (SIZE_MAX - 64) / r->vstride) r->vx_alloc = cgprop__calloc(g, nv * r->vstride + 64, 1);
    r->Sz = cgprop__calloc(g, (size_t)ncyc * K, sizeof *r->Sz);
    r->gch = cgprop__calloc(g, (size_t)nn * K, sizeof *r->gch);
    if (!r->vx_alloc || !r->Sz || !r->gch) {
        res_destroy(g, r);
        return CGPROP_ENOMEM;
    }
    /* Aligned to 64 bytes: with K = 1 a record is 32 bytes and then never
     * straddles two lines. */
    r->vx = (char *)r->vx_alloc + (64 - (uintptr_t)r->vx_alloc % 64) % 64;
    for (uint32_t n = 0; n < nn; n++) {
        uint32_t c = cgprop__cycles_of(g, n);
        VR(r, n)->vid = c == CGPROP_NONE ? n : nn + c;
    }
    for (uint32_t c = 0; c < ncyc; c++) VR(r, (size_t)nn + c)->vid = nn + c;

    /* Denominators: every call from outside a vertex into it, plus the
     * invisible spontaneous caller of each function that has entries.
     * Calls in id order: the caller side is near sequential, the callee's
     * record a miss, fetched PF calls ahead. */
    const uint32_t *ca = g->ecaller, *cb = g->ecallee;
    for (uint32_t e = 0; e < ne; e++) {
        if (!plain && e + PF < ne) CGPROP__PREFETCH_W(VR(r, cb[e + PF]));
        uint32_t hu = vid_of(g, r, ca[e]), hv = vid_of(g, r, cb[e]);
        if (hu == hv) continue;
        vrec *v = VR(r, hv);
        v->kin++;
        for (uint32_t k = 0; k < K; k++) v->tw[K + k] += weight(g, share, e, k);
    }
    for (uint32_t n = 0; n < nn; n++) {
        if (!(g->nflags[n] & CGPROP__NF_SPONT)) continue;
        vrec *v = VR(r, vid_of(g, r, n));
        v->kin++;
        for (uint32_t k = 0; k < K; k++) v->tw[K + k] += spont_weight(g, share, n, k);
    }
    if (plain) totals_plain(g, r, share, adj, order);
    else totals_tuned(g, r, share, adj, order);
    *out = r;
    return CGPROP_OK;
}

int cgprop__collapse_reference(cgprop_graph *g, uint32_t share, bool plain, double *vertex_total, double *gprof_child)
{
    if (!cgprop__current(g, CGPROP__A_CYCLES)) return CGPROP_ESTATE;
    if (share == CGPROP_SHARE_AUTO) share = g->any_cost ? CGPROP_SHARE_COST : CGPROP_SHARE_COUNT;
    col_res *r = NULL;
    if (build(g, share, &r, plain) != CGPROP_OK) return CGPROP_ENOMEM;
    uint32_t K = g->K;
    for (uint32_t n = 0; n < g->nn; n++)
        for (uint32_t k = 0; k < K; k++) {
            vertex_total[(size_t)n * K + k] = T_of(r, vid_of(g, r, n))[k];
            gprof_child[(size_t)n * K + k] = r->gch[(size_t)n * K + k];
        }
    res_destroy(g, r);
    return CGPROP_OK;
}

int cgprop_graph_collapse(cgprop_graph *g, uint32_t share)
{
    if (!g) return CGPROP_EINVAL;
    if (share > CGPROP_SHARE_COST) return cgprop__err(g, CGPROP_EINVAL, "collapse: unknown share mode %u", share);
    if (!cgprop__current(g, CGPROP__A_CYCLES))
        return cgprop__err(g, CGPROP_ESTATE, "collapse: run cgprop_graph_find_cycles() on the current graph first");
    if (share == CGPROP_SHARE_AUTO) share = g->any_cost ? CGPROP_SHARE_COST : CGPROP_SHARE_COUNT;
    col_res *r = NULL;
    if (build(g, share, &r, PLAIN_DEFAULT) != CGPROP_OK)
        return cgprop__err(g, CGPROP_ENOMEM, "collapse: out of memory (%u functions, %u calls)", g->nn, g->ne);
    cgprop__install(g, CGPROP__A_COLLAPSE, r);
    return cgprop__ok(g);
}
