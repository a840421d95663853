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

/* Entries run in batches of up to LANES, one bit each. A bit-parallel BFS
 * gives every entry of the batch its ranks and kept calls at once, so a
 * member's calls are read once per distinct rank the member has in the
 * batch, not once per entry. It leaves each entry its members in rank order
 * and its kept calls grouped by caller; the per-entry arithmetic then only
 * reads those lists in order plus arrays of one value per member.
 *
 * Why: one entry's plain BFS visits the members in an order unrelated to
 * where their calls are stored, so on an SCC whose call arrays outgrow L2
 * (20,000 members, 100,000 calls) every member costs a few cache misses per
 * entry; that, not arithmetic, was the time. */
#ifndef CGPROP_PROP_LANES
#define CGPROP_PROP_LANES 32
#endif
#define LANES CGPROP_PROP_LANES
/* Lanes x members of per-lane scratch (two uint32 each) stays under this:
 * a large cycle gets fewer lanes per batch rather than more scratch. */
#define LANE_CELLS ((size_t)1 << 21)

#if LANES < 1 || LANES > 64
#error "CGPROP_PROP_LANES must be 1..64"
#elif LANES <= 32
typedef uint32_t lanemask;
#else
typedef uint64_t lanemask;
#endif

/* What the per-entry pass reads together sits together: one cache line per
 * kept call and one per member instead of one per array. Only s, read at
 * random callees, has an array of its own: dense, it stays in L2. */
typedef struct pedge {
    uint32_t v; /* local callee */
    double w;   /* share weight, current metric */
    double acc; /* the call's total so far, current metric */
} pedge;

typedef struct pnode {
    double base; /* S(u) + external shares (u's gprof figure), current metric */
    double tot;  /* u's total so far, current metric */
} pnode;

/* Scratch for one cycle at a time, sized for the largest cycle once. Local
 * index = position in the cycle's ascending member list. The local CSR is
 * built once per cycle; each metric then runs its entries over it. */
typedef struct work {
    uint32_t lanes;        /* entries per batch */
    uint32_t *loc;         /* nn: local index of each member (valid for members only) */
    uint32_t *off;         /* V + 1: local CSR of intra-cycle calls, self-calls left out */
    uint32_t *tgt;         /* E: local callee (the BFS reads only this) */
    uint32_t *eid;         /* E: call id */
    pedge *pe;             /* E */
    pnode *pn;             /* V */
    unsigned char *ekept;  /* E: kept for some entry with ρ > 0, current metric */
    lanemask *kmask;       /* E: lanes of the batch that keep the call */
    double *rho;           /* V: current metric */
    double *s;             /* V: kept in-weight, then p(u)/in-weight (see entry_pass) */
    uint32_t *nk;          /* V: kept in-calls (only when some intra-cycle call weighs 0) */
    uint32_t *entry;       /* V: members with ρ > 0 in the current metric */
    lanemask *seen, *fr, *nx; /* V: lanes that reached v, v's lanes on this level, on the next */
    uint64_t *mark;        /* V / 64 + 1: bitmap to list a level's members in id order */
    uint32_t *fl, *cand;   /* V + 1: this level's and the next level's members (one spare slot) */
    uint32_t *ord;         /* lanes * V: lane l's members by rank */
    uint32_t *kb;          /* lanes * (V + 1): start of each caller's kept calls of lane l in list */
    uint32_t *list;        /* listcap: kept calls of every lane of the batch, lane after lane */
    size_t listcap;
} work;

static void work_free(const cgprop_graph *g, work *w)
{
    void *a[] = {w->loc, w->off, w->tgt,  w->eid, w->pe,   w->pn,   w->ekept, w->kmask, w->rho, w->s, w->nk,
                 w->entry, w->seen, w->fr, w->nx, w->mark, w->fl,  w->cand, w->ord,   w->kb,  w->list};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) cgprop__free(g, a[i]);
}

static int work_alloc(const cgprop_graph *g, work *w, size_t V, size_t E, size_t maxent)
{
    memset(w, 0, sizeof *w);
    size_t lanes = maxent < LANES ? maxent : LANES;
    if (lanes * V > LANE_CELLS) lanes = LANE_CELLS / V;
    if (lanes < 1) lanes = 1;
    w->lanes = (uint32_t)lanes;
    w->loc = cgprop__alloc(g, g->nn, sizeof *w->loc);
    w->off = cgprop__alloc(g, V + 1, sizeof *w->off);
    w->tgt = cgprop__alloc(g, E, sizeof *w->tgt);
    w->eid = cgprop__alloc(g, E, sizeof *w->eid);
    w->pe = cgprop__alloc(g, E, sizeof *w->pe);
    w->pn = cgprop__alloc(g, V, sizeof *w->pn);
    w->ekept = cgprop__alloc(g, E, sizeof *w->ekept);
    w->kmask = cgprop__alloc(g, E, sizeof *w->kmask);
    w->rho = cgprop__alloc(g, V, sizeof *w->rho);
    w->s = cgprop__alloc(g, V, sizeof *w->s);
    w->nk = cgprop__alloc(g, V, sizeof *w->nk);
    w->entry = cgprop__alloc(g, V, sizeof *w->entry);
    w->seen = cgprop__alloc(g, V, sizeof *w->seen);
    w->fr = cgprop__alloc(g, V, sizeof *w->fr);
    w->nx = cgprop__alloc(g, V, sizeof *w->nx);
    w->mark = cgprop__calloc(g, V / 64 + 1, sizeof *w->mark);
    w->fl = cgprop__alloc(g, V + 1, sizeof *w->fl);
    w->cand = cgprop__alloc(g, V + 1, sizeof *w->cand);
    w->ord = cgprop__alloc(g, lanes * V, sizeof *w->ord);
    w->kb = cgprop__alloc(g, lanes * (V + 1), sizeof *w->kb);
    w->listcap = E ? E : 1;
    w->list = cgprop__alloc(g, w->listcap, sizeof *w->list);
    if (!w->loc || !w->off || !w->tgt || !w->eid || !w->pe || !w->pn || !w->ekept || !w->kmask || !w->rho || !w->s ||
        !w->nk || !w->entry || !w->seen || !w->fr || !w->nx || !w->mark || !w->fl ||
        !w->cand || !w->ord || !w->kb || !w->list) {
        work_free(g, w);
        return CGPROP_ENOMEM;
    }
    return CGPROP_OK;
}

static inline uint32_t ctz64(uint64_t x)
{
#if defined(__GNUC__)
    return (uint32_t)__builtin_ctzll(x);
#else
    uint32_t n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* Ranks and kept calls of nl entries at once, level by level. Bit l of
 * seen[v] says lane l has reached v; fr[v] holds the lanes for which v is on
 * the current level. A call u->v is kept for lane l iff l is in fr[u] and not
 * yet in seen[v]: v is then first reached on the next level, from u's level.
 * Each member is scanned once per level on which some lane has it, at most
 * once per lane: never more work than nl separate BFS runs.
 *
 * Leaves, for each lane l: ord[l·V ..] = its members by rank (ascending ids
 * within a level when the level is large, so the per-entry pass reads the
 * call arrays in address order), and its kept calls in list, grouped by
 * caller in storage order, caller u's at list[kb[l·(V+1) + u] ..
 * kb[l·(V+1) + u + 1]]. */
static int batch_ranks(const cgprop_graph *g, work *w, uint32_t V, const uint32_t *ent, uint32_t nl)
{
    const uint32_t *off = w->off, *tgt = w->tgt;
    uint32_t E = off[V];
    lanemask *seen = w->seen, *fr = w->fr, *nx = w->nx, *kmask = w->kmask;
    uint64_t *mark = w->mark;
    uint32_t *fl = w->fl, *cand = w->cand, *ord = w->ord, *kb = w->kb;
    uint32_t pos[LANES];
    size_t lpos[LANES];

    memset(seen, 0, (size_t)V * sizeof *seen);
    memset(kmask, 0, (size_t)E * sizeof *kmask);
    uint32_t nfl = 0;
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t v = ent[l];
        fl[nfl++] = v; /* entries are distinct and ascending */
        fr[v] = seen[v] = (lanemask)1 << l;
        ord[(size_t)l * V] = v;
        pos[l] = 1;
    }
    while (nfl) {
        uint32_t nc = 0;
        for (uint32_t i = 0; i < nfl; i++) {
            uint32_t u = fl[i];
            lanemask m = fr[u];
            fr[u] = 0;
            for (uint32_t j = off[u], je = off[u + 1]; j < je; j++) {
                uint32_t v = tgt[j];
                lanemask km = m & ~seen[v], t = nx[v];
                /* No branch on km: whether a call is kept is data, not pattern. */
                nx[v] = t | km;
                cand[nc] = v; /* spare slot: nc < V until every member is listed */
                nc += (t == 0) & (km != 0);
                kmask[j] |= km;
            }
        }
        /* A large level in id order; scanning the bitmap then costs less
         * than the level itself. Small levels stay in discovery order. */
        if ((size_t)nc * 16 >= V) {
            for (uint32_t i = 0; i < nc; i++) mark[cand[i] >> 6] |= (uint64_t)1 << (cand[i] & 63);
            uint32_t k = 0;
            for (uint32_t wi = 0; wi <= (V - 1) >> 6; wi++)
                for (uint64_t x = mark[wi]; x; x &= x - 1) cand[k++] = wi * 64 + ctz64(x);
            for (uint32_t wi = 0; wi <= (V - 1) >> 6; wi++) mark[wi] = 0;
        }
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t v = cand[i];
            lanemask n = nx[v];
            nx[v] = 0;
            seen[v] |= n;
            fr[v] = n;
            for (; n; n &= n - 1) {
                uint32_t l = ctz64(n);
                ord[(size_t)l * V + pos[l]++] = v;
            }
        }
        uint32_t *t = fl;
        fl = cand;
        cand = t;
        nfl = nc;
    }
    w->fl = fl;
    w->cand = cand;

    /* Kept calls per lane: count, place each lane's run, fill. */
    size_t total = 0;
    for (uint32_t l = 0; l < nl; l++) lpos[l] = 0;
    for (uint32_t j = 0; j < E; j++) {
        w->ekept[j] |= kmask[j] != 0;
        for (lanemask x = kmask[j]; x; x &= x - 1) lpos[ctz64(x)]++;
    }
    for (uint32_t l = 0; l < nl; l++) {
        size_t c = lpos[l];
        lpos[l] = total;
        total += c;
    }
    if (total > UINT32_MAX) return CGPROP_ENOMEM; /* positions are uint32 */
    if (total > w->listcap) {
        uint32_t *p = cgprop__realloc(g, w->list, total, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        w->list = p;
        w->listcap = total;
    }
    uint32_t *list = w->list;
    for (uint32_t l = 0; l < nl; l++) pos[l] = (uint32_t)lpos[l];
    for (uint32_t u = 0; u < V; u++) {
        for (uint32_t l = 0; l < nl; l++) kb[(size_t)l * (V + 1) + u] = pos[l];
        for (uint32_t j = off[u], je = off[u + 1]; j < je; j++)
            for (lanemask x = kmask[j]; x; x &= x - 1) list[pos[ctz64(x)]++] = j;
    }
    for (uint32_t l = 0; l < nl; l++) kb[(size_t)l * (V + 1) + V] = pos[l];
    return CGPROP_OK;
}

/* Lane l of the last batch, share rho, over the current metric: partials
 * callees first, added into pn[].tot and pe[].acc. O(V + kept calls).
 *
 * s[v] first sums the weights of v's kept in-calls, then turns into what a
 * caller needs from v: the share of p(v) along a kept call u->v is
 * w(u->v)·s[v] when v's kept in-weight W is > 0 (s = p(v)/W), and p(v)/nk
 * when they all weigh 0 (then w = 0, and s holds -p(v)/nk: p ≥ 0, so the
 * sign tells the cases apart without another array). */
static void entry_pass(work *w, uint32_t V, uint32_t l, double rho, bool zeros)
{
    const uint32_t *list = w->list;
    const uint32_t *ord = w->ord + (size_t)l * V, *kb = w->kb + (size_t)l * (V + 1);
    uint32_t *nk = w->nk;
    pedge *pe = w->pe;
    pnode *pn = w->pn;
    double *s = w->s;

    memset(s, 0, (size_t)V * sizeof *s);
    if (zeros) {
        memset(nk, 0, (size_t)V * sizeof *nk);
        for (uint32_t x = kb[0]; x < kb[V]; x++) {
            const pedge *e = pe + list[x];
            s[e->v] += e->w;
            nk[e->v]++;
        }
    } else {
        for (uint32_t x = kb[0]; x < kb[V]; x++) {
            const pedge *e = pe + list[x];
            s[e->v] += e->w;
        }
    }

    /* Deepest rank first: every kept callee (one rank down) is done. */
    for (uint32_t i = V; i-- > 0;) {
        uint32_t u = ord[i];
        pnode *nu = pn + u;
        double pu = rho * nu->base;
        for (uint32_t x = kb[u], xe = kb[u + 1]; x < xe; x++) {
            pedge *e = pe + list[x];
            double sv = s[e->v];
            double c = sv >= 0 ? e->w * sv : -sv;
            pu += c;
            e->acc += c;
        }
        nu->tot += pu;
        double in = s[u];
        s[u] = in > 0 ? pu / in : zeros && nk[u] ? -(pu / (double)nk[u]) : 0;
    }
}

static int one_cycle(cgprop_graph *g, const cgprop__adj *adj, prop_res *res, work *w, uint32_t c)
{
    uint32_t K = g->K, V;
    const uint32_t *mem = cgprop__cycles_members(g, c, &V);
    for (uint32_t i = 0; i < V; i++) w->loc[mem[i]] = i;

    uint32_t E = 0;
    for (uint32_t i = 0; i < V; i++) {
        uint32_t u = mem[i];
        w->off[i] = E;
        for (uint32_t p = adj->out_off[u]; p < adj->out_off[u + 1]; p++) {
            uint32_t e = adj->out_e[p], v = g->ecallee[e];
            if (v == u || cgprop__cycles_of(g, v) != c) continue;
            w->tgt[E] = w->loc[v];
            w->eid[E] = e;
            E++;
        }
    }
    w->off[V] = E;

    /* Metrics one after the other: each has its own weights and entries,
     * and one metric's arrays fit the caches better than K interleaved. */
    for (uint32_t k = 0; k < K; k++) {
        uint32_t nent = 0;
        for (uint32_t i = 0; i < V; i++) {
            uint32_t u = mem[i];
            w->pn[i].base = (double)g->self[(size_t)u * K + k] + cgprop__collapse_gprof_child(g, u, k);
            /* ρ(u): u's spontaneous part plus every call from outside into u. */
            double rh = cgprop__collapse_entry(g, u, k);
            for (uint32_t p = adj->in_off[u]; p < adj->in_off[u + 1]; p++) {
                uint32_t e = adj->in_e[p];
                if (cgprop__cycles_of(g, g->ecaller[e]) == c) continue;
                rh += cgprop__collapse_edge_share(g, e, k);
            }
            w->rho[i] = rh;
            w->pn[i].tot = 0;
            if (rh > 0) w->entry[nent++] = i;
        }
        bool zeros = false;
        for (uint32_t j = 0; j < E; j++) {
            w->pe[j].v = w->tgt[j];
            w->pe[j].w = cgprop__collapse_weight(g, w->eid[j], k);
            w->pe[j].acc = 0;
            w->ekept[j] = 0;
            zeros |= w->pe[j].w == 0;
        }
        memset(w->fr, 0, (size_t)V * sizeof *w->fr);
        memset(w->nx, 0, (size_t)V * sizeof *w->nx);
        for (uint32_t b = 0; b < nent; b += w->lanes) {
            uint32_t nl = nent - b < w->lanes ? nent - b : w->lanes;
            if (batch_ranks(g, w, V, w->entry + b, nl) != CGPROP_OK) return CGPROP_ENOMEM;
            for (uint32_t l = 0; l < nl; l++) entry_pass(w, V, l, w->rho[w->entry[b + l]], zeros);
        }
        for (uint32_t i = 0; i < V; i++) res->tot[(size_t)mem[i] * K + k] += w->pn[i].tot;
        for (uint32_t j = 0; j < E; j++) {
            if (!w->ekept[j]) continue;
            size_t e = w->eid[j];
            res->etot[e * K + k] += w->pe[j].acc;
            bit_set(res->indag, e * K + k);
        }
    }
    return CGPROP_OK;
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
        size_t maxV = 0, maxE = 0, maxent = 1;
        for (uint32_t c = 0; c < ncyc; c++) {
            uint32_t V;
            const uint32_t *mem = cgprop__cycles_members(g, c, &V);
            size_t E = 0, ent = 0;
            for (uint32_t i = 0; i < V; i++) {
                E += adj->out_off[mem[i] + 1] - adj->out_off[mem[i]];
                /* Members called from outside or entered spontaneously: an
                 * upper bound on the entries, to size the batches. */
                bool outside = (g->nflags[mem[i]] & CGPROP__NF_SPONT) || cgprop__collapse_is_root(g, mem[i]);
                for (uint32_t p = adj->in_off[mem[i]]; !outside && p < adj->in_off[mem[i] + 1]; p++)
                    outside = cgprop__cycles_of(g, g->ecaller[adj->in_e[p]]) != c;
                ent += outside;
            }
            if (V > maxV) maxV = V;
            if (E > maxE) maxE = E;
            if (ent > maxent) maxent = ent;
        }
        work w;
        if (work_alloc(g, &w, maxV, maxE, maxent) != CGPROP_OK) goto nomem;
        int rc = CGPROP_OK;
        for (uint32_t c = 0; c < ncyc && rc == CGPROP_OK; c++) rc = one_cycle(g, adj, r, &w, c);
        work_free(g, &w);
        if (rc != CGPROP_OK) goto nomem;
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
