/* Linear per-root propagation (DESIGN §4, gprof2dot's heuristic): every
 * entry of a cycle pushes its share of the cycle's total down its own BFS
 * DAG, and the members' totals are the sums over entries. */
#include "analysis.h"

#include <string.h>

#define UNSEEN UINT32_MAX

typedef struct prop_res {
    uint64_t gen;
    uint64_t col_serial; /* collapse run this was built on (its share mode) */
    uint32_t K, nn, ne;
    double *tot;     /* nn * K */
    double *etot;    /* ne * K */
    uint64_t *indag; /* ne * K bits: intra-cycle call kept by some entry with ρ > 0 */
} prop_res;

static void res_destroy(const cgprop_graph *g, prop_res *r)
{
    if (!r) return;
    cgprop__free(g, r->tot);
    cgprop__free(g, r->etot);
    cgprop__free(g, r->indag);
    cgprop__free(g, r);
}

void cgprop__propagate_free(cgprop_graph *g)
{
    if (!g) return;
    res_destroy(g, g->res_propagate);
    g->res_propagate = NULL;
}

bool cgprop__propagate_current(const cgprop_graph *g)
{
    const prop_res *r = g ? g->res_propagate : NULL;
    return r && r->gen == g->gen && cgprop__collapse_current(g) &&
           r->col_serial == g->aserial[CGPROP__A_COLLAPSE];
}

static inline void bit_set(uint64_t *b, size_t i) { b[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline bool bit_get(const uint64_t *b, size_t i) { return (b[i >> 6] >> (i & 63)) & 1u; }

/* Scratch for one cycle at a time, sized for the largest cycle once. Local
 * index = position in the cycle's ascending member list. */
typedef struct work {
    uint32_t *loc;   /* nn: local index of each member (valid for members only) */
    uint32_t *off;   /* V + 1: local CSR of intra-cycle calls, self-calls left out */
    uint32_t *tgt;   /* E: local callee */
    uint32_t *eid;   /* E: call id */
    double *ew;      /* E * K: share weights */
    double *eacc;    /* E * K: this cycle's call totals, flushed at its end */
    uint64_t *emask; /* E: metrics in which the call was kept for an entry with ρ > 0 */
    uint32_t *kept;  /* E: kept calls of the current entry, grouped by caller in BFS order */
    uint32_t *kbeg;  /* V + 1: start of each BFS position's group in kept */
    double *base;    /* V * K: S(u) + external shares (u's gprof figure) */
    double *rho;     /* V * K */
    uint32_t *dist;  /* V */
    uint32_t *queue; /* V */
    uint32_t *nk;    /* V: kept in-edges */
    double *insum;   /* V * K: Σ w of kept in-edges */
    double *q;       /* V * K: p(v) divided by v's kept in-weight (or count) */
    uint32_t *entry; /* V: members with ρ > 0 in some metric */
    /* K = 1 (the common case) packs what one visit touches into one place:
     * a giant SCC's arrays outgrow L2, and a cache miss per array per call
     * is what the per-entry loops would otherwise pay. */
    struct pedge *pe; /* E */
    struct pnode *pn; /* V */
} work;

typedef struct pedge {
    uint32_t v;    /* local callee */
    uint32_t kept; /* kept for some entry (ρ > 0) */
    double w;
    double acc; /* the call's total so far */
} pedge;

typedef struct pnode {
    uint32_t dist, nk;
    double insum, q, base, tot;
} pnode;

static void work_free(const cgprop_graph *g, work *w)
{
    void *a[] = {w->loc,  w->off, w->tgt,  w->eid,  w->ew, w->eacc,  w->emask, w->kept, w->kbeg,
                 w->base, w->rho, w->dist, w->queue, w->nk, w->insum, w->q,     w->entry, w->pe, w->pn};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) cgprop__free(g, a[i]);
}

static int work_alloc(const cgprop_graph *g, work *w, size_t V, size_t E)
{
    size_t K = g->K;
    memset(w, 0, sizeof *w);
    w->loc = cgprop__alloc(g, g->nn, sizeof *w->loc);
    w->off = cgprop__alloc(g, V + 1, sizeof *w->off);
    w->tgt = cgprop__alloc(g, E, sizeof *w->tgt);
    w->eid = cgprop__alloc(g, E, sizeof *w->eid);
    w->ew = cgprop__alloc(g, E * K, sizeof *w->ew);
    w->kept = cgprop__alloc(g, E, sizeof *w->kept);
    w->kbeg = cgprop__alloc(g, V + 1, sizeof *w->kbeg);
    w->base = cgprop__alloc(g, V * K, sizeof *w->base);
    w->rho = cgprop__alloc(g, V * K, sizeof *w->rho);
    w->queue = cgprop__alloc(g, V, sizeof *w->queue);
    w->entry = cgprop__alloc(g, V, sizeof *w->entry);
    if (!w->loc || !w->off || !w->tgt || !w->eid || !w->ew || !w->kept || !w->kbeg || !w->base || !w->rho ||
        !w->queue || !w->entry) {
        work_free(g, w);
        return CGPROP_ENOMEM;
    }
    if (K == 1) {
        w->pe = cgprop__alloc(g, E, sizeof *w->pe);
        w->pn = cgprop__alloc(g, V, sizeof *w->pn);
        if (!w->pe || !w->pn) {
            work_free(g, w);
            return CGPROP_ENOMEM;
        }
        return CGPROP_OK;
    }
    w->eacc = cgprop__alloc(g, E * K, sizeof *w->eacc);
    w->emask = cgprop__alloc(g, E, sizeof *w->emask);
    w->dist = cgprop__alloc(g, V, sizeof *w->dist);
    w->nk = cgprop__alloc(g, V, sizeof *w->nk);
    w->insum = cgprop__alloc(g, V * K, sizeof *w->insum);
    w->q = cgprop__alloc(g, V * K, sizeof *w->q);
    if (!w->eacc || !w->emask || !w->dist || !w->nk || !w->insum || !w->q) {
        work_free(g, w);
        return CGPROP_ENOMEM;
    }
    return CGPROP_OK;
}

/* One entry r of a cycle with V members: BFS ranks, kept edges, partials
 * callees first, accumulated into the result. O((V + E) * K).
 *
 * Speed matters here (one SCC of 20,000 members with 100 entries is
 * 100 × 100,000 call visits), so the BFS records each caller's kept calls as
 * it goes: a call u->v is kept iff v is first seen from u's rank or already
 * sits one rank below, which is final when u is scanned. The reverse pass
 * then touches kept calls only, and a kept call's share ŵ·p(v) is w·q(v)
 * with q(v) = p(v) / Σ kept in-weight, computed once per v. */
static void one_entry(const cgprop_graph *g, prop_res *res, work *w, const uint32_t *mem, uint32_t V, uint32_t r)
{
    uint32_t K = g->K;
    const double *rho = w->rho + (size_t)r * K;
    uint64_t mask = 0;
    for (uint32_t k = 0; k < K; k++)
        if (rho[k] > 0) mask |= (uint64_t)1 << k;
    for (uint32_t i = 0; i < V; i++) w->dist[i] = UNSEEN;
    memset(w->nk, 0, (size_t)V * sizeof *w->nk);
    memset(w->insum, 0, (size_t)V * K * sizeof *w->insum);

    uint32_t head = 0, tail = 0, nkept = 0;
    w->dist[r] = 0;
    w->queue[tail++] = r;
    while (head < tail) {
        w->kbeg[head] = nkept;
        uint32_t u = w->queue[head++];
        uint32_t next = w->dist[u] + 1;
        for (uint32_t j = w->off[u]; j < w->off[u + 1]; j++) {
            uint32_t v = w->tgt[j];
            if (w->dist[v] == UNSEEN) {
                w->dist[v] = next;
                w->queue[tail++] = v;
            } else if (w->dist[v] != next) {
                continue;
            }
            w->kept[nkept++] = j;
            w->nk[v]++;
            for (uint32_t k = 0; k < K; k++) w->insum[(size_t)v * K + k] += w->ew[(size_t)j * K + k];
        }
    }
    w->kbeg[tail] = nkept;

    /* Reverse BFS order: every kept callee (one rank down) is done first. */
    for (uint32_t qi = tail; qi-- > 0;) {
        uint32_t u = w->queue[qi];
        double *t = res->tot + (size_t)mem[u] * K;
        double *qu = w->q + (size_t)u * K;
        for (uint32_t k = 0; k < K; k++) qu[k] = rho[k] * w->base[(size_t)u * K + k];
        for (uint32_t x = w->kbeg[qi]; x < w->kbeg[qi + 1]; x++) {
            uint32_t j = w->kept[x], v = w->tgt[j];
            const double *qv = w->q + (size_t)v * K, *in = w->insum + (size_t)v * K;
            for (uint32_t k = 0; k < K; k++) {
                double c = in[k] > 0 ? w->ew[(size_t)j * K + k] * qv[k] : qv[k];
                qu[k] += c;
                w->eacc[(size_t)j * K + k] += c;
            }
            w->emask[j] |= mask;
        }
        /* qu holds p(u) now; keep it in t, then scale it to q(u). */
        const double *in = w->insum + (size_t)u * K;
        for (uint32_t k = 0; k < K; k++) {
            t[k] += qu[k];
            qu[k] = in[k] > 0 ? qu[k] / in[k] : w->nk[u] ? qu[k] / (double)w->nk[u] : 0;
        }
    }
}

/* one_entry() for K = 1 over the packed arrays; same steps, same order. */
static void one_entry1(work *w, uint32_t V, uint32_t r)
{
    pedge *pe = w->pe;
    pnode *pn = w->pn;
    double rho = w->rho[r];
    for (uint32_t i = 0; i < V; i++) {
        pn[i].dist = UNSEEN;
        pn[i].nk = 0;
        pn[i].insum = 0;
    }
    uint32_t head = 0, tail = 0, nkept = 0;
    pn[r].dist = 0;
    w->queue[tail++] = r;
    while (head < tail) {
        w->kbeg[head] = nkept;
        uint32_t u = w->queue[head++];
        uint32_t next = pn[u].dist + 1;
#if defined(__GNUC__)
        /* The queue is known a few callers ahead: start their loads now. */
        if (head + 3 < tail) __builtin_prefetch(pe + w->off[w->queue[head + 3]]);
#endif
        for (uint32_t j = w->off[u]; j < w->off[u + 1]; j++) {
            pnode *v = pn + pe[j].v;
            if (v->dist == UNSEEN) {
                v->dist = next;
                w->queue[tail++] = pe[j].v;
            } else if (v->dist != next) {
                continue;
            }
            w->kept[nkept++] = j;
            v->nk++;
            v->insum += pe[j].w;
        }
    }
    w->kbeg[tail] = nkept;
    for (uint32_t qi = tail; qi-- > 0;) {
        pnode *u = pn + w->queue[qi];
#if defined(__GNUC__)
        if (qi >= 3 && w->kbeg[qi - 3] < w->kbeg[qi - 2]) __builtin_prefetch(pe + w->kept[w->kbeg[qi - 3]]);
#endif
        double pu = rho * u->base;
        for (uint32_t x = w->kbeg[qi]; x < w->kbeg[qi + 1]; x++) {
            pedge *e = pe + w->kept[x];
            const pnode *v = pn + e->v;
            double c = v->insum > 0 ? e->w * v->q : v->q;
            pu += c;
            e->acc += c;
            e->kept = 1;
        }
        u->tot += pu;
        u->q = u->insum > 0 ? pu / u->insum : u->nk ? pu / (double)u->nk : 0;
    }
}

static void one_cycle(cgprop_graph *g, const cgprop__adj *adj, prop_res *res, work *w, uint32_t c)
{
    uint32_t K = g->K, V;
    const uint32_t *mem = cgprop__cycles_members(g, c, &V);
    for (uint32_t i = 0; i < V; i++) w->loc[mem[i]] = i;

    uint32_t E = 0;
    for (uint32_t i = 0; i < V; i++) {
        uint32_t u = mem[i];
        w->off[i] = E;
        double *b = w->base + (size_t)i * K;
        double *rh = w->rho + (size_t)i * K;
        for (uint32_t k = 0; k < K; k++) {
            b[k] = (double)g->self[(size_t)u * K + k] + cgprop__collapse_gprof_child(g, u, k);
            rh[k] = cgprop__collapse_entry(g, u, k);
        }
        for (uint32_t p = adj->out_off[u]; p < adj->out_off[u + 1]; p++) {
            uint32_t e = adj->out_e[p], v = g->ecallee[e];
            if (v == u || cgprop__cycles_of(g, v) != c) continue;
            w->tgt[E] = v; /* made local below, once every loc[] of this cycle is set */
            w->eid[E] = e;
            for (uint32_t k = 0; k < K; k++) w->ew[(size_t)E * K + k] = cgprop__collapse_weight(g, e, k);
            E++;
        }
        /* ρ(u): u's spontaneous part plus every call from outside into u. */
        for (uint32_t p = adj->in_off[u]; p < adj->in_off[u + 1]; p++) {
            uint32_t e = adj->in_e[p];
            if (cgprop__cycles_of(g, g->ecaller[e]) == c) continue;
            for (uint32_t k = 0; k < K; k++) rh[k] += cgprop__collapse_edge_share(g, e, k);
        }
    }
    w->off[V] = E;
    for (uint32_t j = 0; j < E; j++) w->tgt[j] = w->loc[w->tgt[j]];

    uint32_t nent = 0;
    for (uint32_t i = 0; i < V; i++)
        for (uint32_t k = 0; k < K; k++)
            if (w->rho[(size_t)i * K + k] > 0) {
                w->entry[nent++] = i;
                break;
            }
    if (K == 1) {
        for (uint32_t j = 0; j < E; j++) {
            w->pe[j].v = w->tgt[j];
            w->pe[j].kept = 0;
            w->pe[j].w = w->ew[j];
            w->pe[j].acc = 0;
        }
        for (uint32_t i = 0; i < V; i++) {
            w->pn[i].base = w->base[i];
            w->pn[i].tot = 0;
        }
        for (uint32_t i = 0; i < nent; i++) one_entry1(w, V, w->entry[i]);
        for (uint32_t i = 0; i < V; i++) res->tot[mem[i]] += w->pn[i].tot;
        for (uint32_t j = 0; j < E; j++) {
            if (!w->pe[j].kept) continue;
            res->etot[w->eid[j]] += w->pe[j].acc;
            bit_set(res->indag, w->eid[j]);
        }
        return;
    }
    memset(w->eacc, 0, (size_t)E * K * sizeof *w->eacc);
    memset(w->emask, 0, (size_t)E * sizeof *w->emask);
    for (uint32_t i = 0; i < nent; i++) one_entry(g, res, w, mem, V, w->entry[i]);
    for (uint32_t j = 0; j < E; j++) {
        size_t e = w->eid[j];
        for (uint32_t k = 0; k < K; k++) {
            if (!((w->emask[j] >> k) & 1)) continue;
            res->etot[e * K + k] += w->eacc[(size_t)j * K + k];
            bit_set(res->indag, e * K + k);
        }
    }
}

static int build(cgprop_graph *g, prop_res **out)
{
    const cgprop__adj *adj = cgprop__get_adj(g);
    if (!adj) return CGPROP_ENOMEM;
    uint32_t K = g->K, nn = g->nn, ne = g->ne, ncyc = cgprop__cycles_count(g);
    prop_res *r = cgprop__calloc(g, 1, sizeof *r);
    if (!r) return CGPROP_ENOMEM;
    r->gen = g->gen;
    r->col_serial = g->aserial[CGPROP__A_COLLAPSE];
    r->K = K;
    r->nn = nn;
    r->ne = ne;
    r->tot = cgprop__calloc(g, (size_t)nn * K, sizeof *r->tot);
    r->etot = cgprop__calloc(g, (size_t)ne * K, sizeof *r->etot);
    r->indag = cgprop__calloc(g, ((size_t)ne * K + 63) / 64, sizeof *r->indag);
    if (!r->tot || !r->etot || !r->indag) goto nomem;

    for (uint32_t n = 0; n < nn; n++)
        if (cgprop__cycles_of(g, n) == CGPROP_NONE)
            for (uint32_t k = 0; k < K; k++) r->tot[(size_t)n * K + k] = cgprop__collapse_vertex_total(g, n, k);
    /* Calls that cross a vertex boundary carry their share of the callee's
     * vertex total; intra-cycle calls are filled per entry below. */
    for (uint32_t e = 0; e < ne; e++)
        for (uint32_t k = 0; k < K; k++) {
            double s = cgprop__collapse_edge_share(g, e, k);
            if (s != 0) r->etot[(size_t)e * K + k] = s * cgprop__collapse_vertex_total(g, g->ecallee[e], k);
        }

    if (ncyc) {
        size_t maxV = 0, maxE = 0;
        for (uint32_t c = 0; c < ncyc; c++) {
            uint32_t V;
            const uint32_t *mem = cgprop__cycles_members(g, c, &V);
            size_t E = 0;
            for (uint32_t i = 0; i < V; i++) E += adj->out_off[mem[i] + 1] - adj->out_off[mem[i]];
            if (V > maxV) maxV = V;
            if (E > maxE) maxE = E;
        }
        work w;
        if (work_alloc(g, &w, maxV, maxE) != CGPROP_OK) goto nomem;
        for (uint32_t c = 0; c < ncyc; c++) one_cycle(g, adj, r, &w, c);
        work_free(g, &w);
    }
    *out = r;
    return CGPROP_OK;
nomem:
    res_destroy(g, r);
    return CGPROP_ENOMEM;
}

int cgprop_graph_propagate(cgprop_graph *g)
{
    if (!g) return CGPROP_EINVAL;
    if (!cgprop__collapse_current(g))
        return cgprop__err(g, CGPROP_ESTATE, "propagate: run cgprop_graph_collapse() on the current graph first");
    prop_res *r = NULL;
    if (build(g, &r) != CGPROP_OK)
        return cgprop__err(g, CGPROP_ENOMEM, "propagate: out of memory (%u functions, %u calls)", g->nn, g->ne);
    cgprop__propagate_free(g);
    g->res_propagate = r;
    g->aserial[CGPROP__A_PROPAGATE]++;
    return cgprop__ok(g);
}

bool cgprop__propagate_total(const cgprop_graph *g, uint32_t node, uint32_t k, double *out)
{
    if (!cgprop__propagate_current(g)) return false;
    const prop_res *r = g->res_propagate;
    if (node >= r->nn || k >= r->K) return false;
    *out = r->tot[(size_t)node * r->K + k];
    return true;
}

void cgprop__propagate_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row)
{
    const prop_res *r = g->res_propagate;
    if (!r || node >= r->nn || k >= r->K) return;
    uint32_t c = cgprop__cycles_of(g, node);
    uint32_t flags = 0;
    /* A member's gprof figure leaves out its intra-cycle descendants. */
    if (c != CGPROP_NONE) flags |= CGPROP_F_IN_CYCLE | CGPROP_F_ESTIMATE | CGPROP_F_NOT_INCLUSIVE;
    if (g->nflags[node] & CGPROP__NF_SELF_CALL) flags |= CGPROP_F_SELF_RECURSIVE;
    if (cgprop__collapse_is_root(g, node)) {
        flags |= CGPROP_F_ROOT;
        if (c != CGPROP_NONE) flags |= CGPROP_F_ENTRY_ASSUMED;
    }
    double vt = cgprop__collapse_vertex_total(g, node, k);
    row->id = node;
    row->flags = flags;
    row->cycle = c;
    row->reserved = 0;
    row->total = r->tot[(size_t)node * r->K + k];
    row->vertex_total = vt;
    row->gprof_self = (double)g->self[(size_t)node * r->K + k];
    row->gprof_child = cgprop__collapse_gprof_child(g, node, k);
    row->spont_share = cgprop__collapse_entry(g, node, k) * vt;
}

void cgprop__propagate_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_total_row *row)
{
    const prop_res *r = g->res_propagate;
    if (!r || edge >= r->ne || k >= r->K) return;
    uint32_t u = g->ecaller[edge], v = g->ecallee[edge];
    uint32_t cu = cgprop__cycles_of(g, u), cv = cgprop__cycles_of(g, v);
    uint32_t flags = 0;
    double total = r->etot[(size_t)edge * r->K + k], gs = 0, gc = 0, share = 0;
    if (u == v) {
        flags = CGPROP_F_SELF_CALL | CGPROP_F_NO_TOTAL;
        total = 0;
    } else if (cu != CGPROP_NONE && cu == cv) {
        flags = CGPROP_F_INTRA_CYCLE;
        if (bit_get(r->indag, (size_t)edge * r->K + k))
            flags |= CGPROP_F_ESTIMATE;
        else {
            flags |= CGPROP_F_NO_TOTAL;
            total = 0;
        }
    } else {
        share = cgprop__collapse_edge_share(g, edge, k);
        double s = cgprop__collapse_vertex_self(g, v, k);
        gs = s * share;
        gc = (cgprop__collapse_vertex_total(g, v, k) - s) * share;
    }
    row->id = edge;
    row->caller = u;
    row->callee = v;
    row->flags = flags;
    row->total = total;
    row->gprof_self = gs;
    row->gprof_child = gc;
    row->share = share;
}
