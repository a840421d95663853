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

/* Entries run in batches of up to LANES, one bit each.
 *
 * A bit-parallel BFS gives every entry of the batch its ranks and kept calls
 * at once, so a member's calls are read once per distinct rank the member has
 * in the batch, not once per entry. The BFS does no per-lane work: level by
 * level it logs every call it follows with the mask of lanes that keep it (a
 * "record"). One bit-matrix transpose of the mask column per batch gives each
 * lane a bitmap over the records, and an entry picks its kept calls off its
 * bitmap, level by level.
 *
 * The per-entry passes are then flat loops over the entry's kept calls and
 * over the members in id order: nothing loops over a member's calls, so no
 * branch depends on a member's degree, and nothing needs the members by
 * level (see entry_pass). On the 20,000-member SCC of the benchmark that is
 * where the time went before: one mispredicted inner loop and a chain of
 * dependent loads per member and entry.
 *
 * Memory: a batch logs at most lanes·E records (each call once per lane and
 * level), 12 bytes each with the bitmaps; a huge cycle gets fewer lanes
 * rather than more records. */
#ifndef CGPROP_PROP_LANES
#define CGPROP_PROP_LANES 32
#endif
#define LANES CGPROP_PROP_LANES
#define LANE_RECORDS ((size_t)1 << 22)

#if LANES < 1 || LANES > 32
#error "CGPROP_PROP_LANES must be 1..32"
#endif
typedef uint32_t lanemask;

#if !defined(CGPROP_PROP_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define PROP_SSE2 1
#include <emmintrin.h>
#endif

/* How far ahead (in kept calls) the per-entry passes prefetch. */
#define PFD 16
#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)0)
#endif

/* Per call, what the per-entry passes read together. */
typedef struct pcall {
    uint32_t v, u; /* local callee and caller */
    double w;      /* share weight, current metric */
} pcall;

/* One BFS level of a batch: its records are rec[rb .. re). */
typedef struct plevel {
    uint32_t rb, re;
} plevel;

/* Per member, what the current entry's passes read together. */
typedef struct pval {
    double p; /* p(u) so far */
    double a; /* kept in-weight W, then 1/W (0 when W = 0; see entry_pass) */
} pval;

/* Scratch for one cycle at a time, sized for the largest cycle once. Local
 * index = position in the cycle's ascending member list. The local CSR is
 * built once per cycle; each metric then runs its entries over it. */
typedef struct work {
    uint32_t lanes;        /* entries per batch */
    uint32_t *loc;         /* nn: local index of each member of the current cycle, UNSEEN elsewhere */
    uint32_t *off;         /* V + 1: local CSR of intra-cycle calls, self-calls left out */
    uint32_t *tgt;         /* E: local callee (the BFS reads only this) */
    uint32_t *eid;         /* E: call id */
    pcall *pc;             /* E */
    double *acc;           /* E: the call's total so far, current metric */
    unsigned char *ekept;  /* E: kept for some entry with ρ > 0, current metric */
    double *base;          /* V: S(u) + external shares (u's gprof figure), current metric */
    double *rho;           /* V: current metric */
    uint32_t *entry;       /* V: members with ρ > 0 in the current metric */
    pval *pv;              /* V: the current entry's p and 1/W */
    double *b;             /* V: 1/nk when the nk kept in-calls all weigh 0 (see entry_pass) */
    uint32_t *nk;          /* V: kept in-calls (only when some intra-cycle call weighs 0) */
    lanemask *sx;          /* 2V: per member, lanes that reached it, then lanes that reach it on the next level */
    uint64_t *mark;        /* V / 64 + 1: bitmap to list a level's members in id order */
    uint32_t *fl, *cand;   /* V + 1: this level's and the next level's members (one spare slot) */
    lanemask *fm;          /* V: lanes that have fl[i] on this level */
    uint32_t *kl;          /* E + PFD: one entry's kept calls, level by level */
    uint32_t *klv;         /* levcap + 1: where each level starts in kl */
    plevel *lv;            /* levcap */
    size_t levcap;
    uint32_t *rec;         /* rcap: records (local call index), level after level */
    lanemask *rm;          /* rcap: lanes that keep the call there */
    uint64_t *rbits;       /* rcap / 64 * lanes: lane l's bit of every record */
    size_t rcap;
} work;

static void work_free(const cgprop_graph *g, work *w)
{
    void *a[] = {w->loc,   w->off, w->tgt, w->eid, w->pc,   w->acc,  w->ekept, w->base, w->rho,
                 w->entry, w->pv,  w->b,   w->nk,  w->sx,   w->mark, w->fl,    w->cand, w->fm,
                 w->kl,    w->klv, w->lv,  w->rec, w->rm,   w->rbits};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) cgprop__free(g, a[i]);
}

/* Grows the record arrays (and their lane bitmaps) to hold need records. */
static int grow_records(const cgprop_graph *g, work *w, size_t need)
{
    if (need <= w->rcap) return CGPROP_OK;
    size_t c = w->rcap * 2 > need ? w->rcap * 2 : need;
    c = (c + 63) & ~(size_t)63;
    uint32_t *ni = cgprop__realloc(g, w->rec, c, sizeof *ni);
    if (!ni) return CGPROP_ENOMEM;
    w->rec = ni;
    lanemask *nm = cgprop__realloc(g, w->rm, c, sizeof *nm);
    if (!nm) return CGPROP_ENOMEM;
    w->rm = nm;
    uint64_t *nb = cgprop__realloc(g, w->rbits, c / 64 * w->lanes, sizeof *nb);
    if (!nb) return CGPROP_ENOMEM;
    w->rbits = nb;
    w->rcap = c;
    return CGPROP_OK;
}

static int grow_levels(const cgprop_graph *g, work *w, size_t need)
{
    if (need <= w->levcap) return CGPROP_OK;
    size_t cap = w->levcap * 2 > need ? w->levcap * 2 : need;
    plevel *p = cgprop__realloc(g, w->lv, cap, sizeof *p);
    if (!p) return CGPROP_ENOMEM;
    w->lv = p;
    uint32_t *a = cgprop__realloc(g, w->klv, cap + 1, sizeof *a);
    if (!a) return CGPROP_ENOMEM;
    w->klv = a;
    w->levcap = cap;
    return CGPROP_OK;
}

static int work_alloc(const cgprop_graph *g, work *w, size_t V, size_t E, size_t maxent)
{
    memset(w, 0, sizeof *w);
    size_t lanes = maxent < LANES ? maxent : LANES;
    if (lanes * E > LANE_RECORDS) lanes = LANE_RECORDS / E;
    if (lanes < 1) lanes = 1;
    w->lanes = (uint32_t)lanes;
    w->loc = cgprop__alloc(g, g->nn, sizeof *w->loc);
    if (w->loc) memset(w->loc, 0xFF, (size_t)g->nn * sizeof *w->loc); /* UNSEEN */
    w->off = cgprop__alloc(g, V + 1, sizeof *w->off);
    w->tgt = cgprop__alloc(g, E, sizeof *w->tgt);
    w->eid = cgprop__alloc(g, E, sizeof *w->eid);
    w->pc = cgprop__alloc(g, E, sizeof *w->pc);
    w->acc = cgprop__alloc(g, E, sizeof *w->acc);
    w->ekept = cgprop__alloc(g, E, sizeof *w->ekept);
    w->base = cgprop__alloc(g, V, sizeof *w->base);
    w->rho = cgprop__alloc(g, V, sizeof *w->rho);
    w->entry = cgprop__alloc(g, V, sizeof *w->entry);
    w->pv = cgprop__alloc(g, V, sizeof *w->pv);
    w->b = cgprop__alloc(g, V, sizeof *w->b);
    w->nk = cgprop__alloc(g, V, sizeof *w->nk);
    w->sx = cgprop__alloc(g, 2 * V, sizeof *w->sx);
    w->mark = cgprop__calloc(g, V / 64 + 1, sizeof *w->mark);
    w->fl = cgprop__alloc(g, V + 1, sizeof *w->fl);
    w->cand = cgprop__alloc(g, V + 1, sizeof *w->cand);
    w->fm = cgprop__alloc(g, V, sizeof *w->fm);
    /* The passes prefetch PFD calls ahead: spare slots, zeroed. */
    w->kl = cgprop__calloc(g, E + PFD, sizeof *w->kl);
    if (!w->loc || !w->off || !w->tgt || !w->eid || !w->pc || !w->acc || !w->ekept || !w->base || !w->rho ||
        !w->entry || !w->pv || !w->b || !w->nk || !w->sx || !w->mark || !w->fl || !w->cand || !w->fm || !w->kl ||
        grow_levels(g, w, 16) != CGPROP_OK || grow_records(g, w, 2 * E + 64) != CGPROP_OK) {
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

/* n masks (n a multiple of 64) to nl lane bitmaps: bit i of lane l's bitmap
 * (bits[l·(n/64) + i/64]) is bit l of m[i]. */
#ifdef PROP_SSE2
static void transpose_masks(const lanemask *m, size_t n, uint32_t nl, uint64_t *bits)
{
    size_t nw = n / 64;
    uint32_t nb = (nl + 7) / 8; /* bytes of a mask in use */
    for (size_t wi = 0; wi < nw; wi++) {
        uint64_t out[32];
        for (uint32_t q = 0; q < 4; q++) {
            /* 16 masks, bytes transposed: byte i of v[b] is byte b of mask
             * i. The top bit of each byte, doubled into place one bit at a
             * time, is then one lane's bit of the 16 masks. */
            const __m128i *a = (const __m128i *)(m + wi * 64 + q * 16);
            __m128i a0 = _mm_loadu_si128(a), a1 = _mm_loadu_si128(a + 1), a2 = _mm_loadu_si128(a + 2),
                    a3 = _mm_loadu_si128(a + 3);
            __m128i b0 = _mm_unpacklo_epi8(a0, a1), b1 = _mm_unpackhi_epi8(a0, a1);
            __m128i b2 = _mm_unpacklo_epi8(a2, a3), b3 = _mm_unpackhi_epi8(a2, a3);
            __m128i c0 = _mm_unpacklo_epi8(b0, b1), c1 = _mm_unpackhi_epi8(b0, b1);
            __m128i c2 = _mm_unpacklo_epi8(b2, b3), c3 = _mm_unpackhi_epi8(b2, b3);
            __m128i d0 = _mm_unpacklo_epi8(c0, c1), d1 = _mm_unpackhi_epi8(c0, c1);
            __m128i d2 = _mm_unpacklo_epi8(c2, c3), d3 = _mm_unpackhi_epi8(c2, c3);
            __m128i v[4];
            v[0] = _mm_unpacklo_epi64(d0, d2);
            v[1] = _mm_unpackhi_epi64(d0, d2);
            v[2] = _mm_unpacklo_epi64(d1, d3);
            v[3] = _mm_unpackhi_epi64(d1, d3);
            for (uint32_t b = 0; b < nb; b++) {
                __m128i x = v[b];
                for (uint32_t t = 8; t-- > 0;) {
                    uint64_t mm = (uint64_t)(uint32_t)_mm_movemask_epi8(x);
                    if (q) out[8 * b + t] |= mm << (16 * q);
                    else out[8 * b + t] = mm;
                    x = _mm_add_epi8(x, x);
                }
            }
        }
        for (uint32_t l = 0; l < nl; l++) bits[l * nw + wi] = out[l];
    }
}
#else
/* 8 x 8 bit matrix in a word, row i = byte i: transposed (Hacker's Delight). */
static inline uint64_t transpose8(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAu;
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCu;
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0u;
    return x ^ t ^ (t << 28);
}

static void transpose_masks(const lanemask *m, size_t n, uint32_t nl, uint64_t *bits)
{
    size_t nw = n / 64;
    uint32_t nb = (nl + 7) / 8; /* bytes of a mask in use */
    for (size_t wi = 0; wi < nw; wi++) {
        const lanemask *blk = m + wi * 64;
        uint64_t out[32] = {0};
        for (uint32_t r8 = 0; r8 < 8; r8++) {
            const lanemask *q = blk + r8 * 8;
            for (uint32_t b = 0; b < nb; b++) {
                uint64_t x = 0;
                for (uint32_t i = 0; i < 8; i++) x |= (uint64_t)((q[i] >> (8 * b)) & 0xFFu) << (8 * i);
                x = transpose8(x);
                /* byte t of x: lane 8b + t's bits of these 8 masks */
                for (uint32_t t = 0; t < 8; t++) out[8 * b + t] |= ((x >> (8 * t)) & 0xFFu) << (8 * r8);
            }
        }
        for (uint32_t l = 0; l < nl; l++) bits[l * nw + wi] = out[l];
    }
}
#endif

/* Ranks and kept calls of nl entries at once, level by level. Bit l of
 * sx[2v] says lane l has reached v; fm[i] holds the lanes for which fl[i]
 * is on the current level. A call u->v is kept for lane l iff l is in u's
 * mask and not yet in sx[2v]: v is then first reached on the next level,
 * from u's level. Each member is scanned once per level on which some lane
 * has it, at most once per lane: never more work than nl separate BFS runs.
 * Large levels list their members in id order, so the per-entry passes read
 * the call arrays in address order. Leaves the levels in lv, their number in
 * *nlev, and the lanes' bitmaps of the records. */
static int batch_bfs(const cgprop_graph *g, work *w, uint32_t V, const uint32_t *ent, uint32_t nl, uint32_t *nlev)
{
    const uint32_t *off = w->off, *tgt = w->tgt;
    lanemask *sx = w->sx, *fm = w->fm; /* seen of v at sx[2v], next-level lanes at sx[2v + 1]: one line */
    unsigned char *ekept = w->ekept;
    uint64_t *mark = w->mark;
    uint32_t *fl = w->fl, *cand = w->cand;
    size_t R = 0;
    uint32_t d = 0, nfl = 0;

    memset(sx, 0, (size_t)V * 2 * sizeof *sx);
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t v = ent[l]; /* distinct */
        sx[2 * v] = (lanemask)1 << l;
        fl[nfl] = v;
        fm[nfl++] = (lanemask)1 << l;
    }
    for (;;) {
        /* A member is on a level at most once, so the level's records fit,
         * and so does the padding at the end. */
        if (grow_records(g, w, R + off[V] + 64) != CGPROP_OK || grow_levels(g, w, d + 1) != CGPROP_OK)
            return CGPROP_ENOMEM;
        uint32_t *rec = w->rec;
        lanemask *rm = w->rm;
        plevel *L = w->lv + d;
        L->rb = (uint32_t)R;
        uint32_t nc = 0;
        for (uint32_t i = 0; i < nfl; i++) {
            uint32_t u = fl[i];
            lanemask m = fm[i];
            for (uint32_t j = off[u], je = off[u + 1]; j < je; j++) {
                uint32_t v = tgt[j];
                lanemask km = m & ~sx[2 * v], t = sx[2 * v + 1];
                /* No branch on km: whether a call is kept is data, not pattern. */
                sx[2 * v + 1] = t | km;
                cand[nc] = v; /* spare slot: nc < V until every member is listed */
                nc += (t == 0) & (km != 0);
                rec[R] = j;
                rm[R] = km;
                R += km != 0;
                ekept[j] |= km != 0;
            }
        }
        L->re = (uint32_t)R;
        d++;
        if (!nc) break;
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
            lanemask n = sx[2 * v + 1];
            sx[2 * v + 1] = 0;
            sx[2 * v] |= n;
            fm[i] = n;
        }
        uint32_t *t = fl;
        fl = cand;
        cand = t;
        nfl = nc;
    }
    w->fl = fl;
    w->cand = cand;
    *nlev = d;
    /* Whole words for the transpose: records no lane keeps. */
    for (; R & 63; R++) {
        w->rec[R] = 0;
        w->rm[R] = 0;
    }
    transpose_masks(w->rm, R, nl, w->rbits);
    return CGPROP_OK;
}

/* 1/a where a > 0, else 0 (no division by 0), for every member. */
#ifdef PROP_SSE2
static void invert_weights(pval *pv, uint32_t V)
{
    const __m128d zero = _mm_setzero_pd(), one = _mm_set1_pd(1.0);
    uint32_t i = 0;
    for (; i + 2 <= V; i += 2) { /* two members per division */
        __m128d x0 = _mm_loadu_pd(&pv[i].p), x1 = _mm_loadu_pd(&pv[i + 1].p);
        __m128d W = _mm_unpackhi_pd(x0, x1);
        __m128d pos = _mm_cmpgt_pd(W, zero);
        __m128d inv = _mm_and_pd(pos, _mm_div_pd(one, _mm_add_pd(W, _mm_andnot_pd(pos, one))));
        _mm_storeu_pd(&pv[i].p, _mm_unpacklo_pd(x0, inv));
        _mm_storeu_pd(&pv[i + 1].p, _mm_shuffle_pd(x1, inv, 2));
    }
    for (; i < V; i++) pv[i].a = pv[i].a > 0 ? 1 / pv[i].a : 0;
}
#else
static void invert_weights(pval *pv, uint32_t V)
{
    for (uint32_t i = 0; i < V; i++) pv[i].a = pv[i].a > 0 ? 1 / pv[i].a : 0;
}
#endif

/* Lane l of the last batch (nlev levels), share rho, over the current
 * metric: partials callees first, each kept call's share of its callee's
 * partial added into acc[]. O(V + kept calls), every loop flat:
 *   1. p = ρ·base, W = 0 for every member;
 *   2. the lane's kept calls, level by level, off its bitmap, into kl;
 *   3. one pass over them: W(v) += w;
 *   4. one over the members: a = 1/W;
 *   5. level by level, deepest first, one over the level's kept calls u->v:
 *      v is one level down, so p(v) is complete; p(u) += share.
 * No pass needs the members by level, and none adds p(u) to u's total:
 * summed over the entries, p(u) is Σρ·base(u) plus the totals of u's calls
 * in the cycle (see one_cycle).
 *
 * The share of p(v) along a kept call u->v is p(v)·(w·a(v) + b(v)): a = 1/W
 * and b = 0 when v's kept in-weight W is > 0, and a = 0, b = 1/nk when its nk
 * kept in-calls all weigh 0 (w is then 0). Without zero weights W > 0 below
 * the entry, and b is left out. */
static void entry_pass(work *w, uint32_t V, uint32_t nlev, uint32_t l, double rho, bool zeros)
{
    const plevel *lv = w->lv;
    const pcall *pc = w->pc;
    const double *base = w->base;
    const uint32_t *rec = w->rec;
    uint32_t *kl = w->kl, *klv = w->klv, *nk = w->nk;
    double *acc = w->acc, *b = w->b;
    pval *pv = w->pv;
    size_t rw = (lv[nlev - 1].re + 63) / 64;
    const uint64_t *rb = w->rbits + l * rw;

    for (uint32_t i = 0; i < V; i++) {
        pv[i].p = rho * base[i];
        pv[i].a = 0;
    }
    size_t nkp = 0;
    for (uint32_t d = 0; d < nlev; d++) {
        klv[d] = (uint32_t)nkp;
        size_t r0 = lv[d].rb, r1 = lv[d].re;
        if (r0 == r1) continue;
        /* Levels need not start or end on a word: mask the other levels' bits. */
        size_t w0 = r0 / 64, w1 = (r1 - 1) / 64;
        uint64_t lo = ~(uint64_t)0 << (r0 & 63), hi = ~(uint64_t)0 >> (63 - ((r1 - 1) & 63));
        for (size_t wi = w0; wi <= w1; wi++) {
            const uint32_t *r = rec + wi * 64;
            uint64_t x = rb[wi];
            if (wi == w0) x &= lo;
            if (wi == w1) x &= hi;
            for (; x; x &= x - 1) kl[nkp++] = r[ctz64(x)];
        }
    }
    klv[nlev] = (uint32_t)nkp;

    if (zeros) {
        memset(nk, 0, (size_t)V * sizeof *nk);
        for (size_t x = 0; x < nkp; x++) {
            const pcall *e = pc + kl[x];
            pv[e->v].a += e->w;
            nk[e->v]++;
        }
        for (uint32_t i = 0; i < V; i++) {
            double W = pv[i].a;
            pv[i].a = W > 0 ? 1 / W : 0;
            b[i] = W > 0 || !nk[i] ? 0 : 1 / (double)nk[i];
        }
        for (uint32_t d = nlev; d-- > 0;)
            for (size_t x = klv[d], xe = klv[d + 1]; x < xe; x++) {
                uint32_t j = kl[x];
                const pcall *e = pc + j;
                uint32_t v = e->v, u = e->u;
                double c = pv[v].p * (e->w * pv[v].a + b[v]);
                acc[j] += c;
                pv[u].p += c;
            }
        return;
    }
    for (size_t x = 0; x < nkp; x++) {
        const pcall *e = pc + kl[x];
        PREFETCH(pc + kl[x + PFD]);
        pv[e->v].a += e->w;
    }
    invert_weights(pv, V);
    for (uint32_t d = nlev; d-- > 0;)
        for (size_t x = klv[d], xe = klv[d + 1]; x < xe; x++) {
            uint32_t j = kl[x];
            const pcall *e = pc + j;
            PREFETCH(pc + kl[x + PFD]);
            PREFETCH(acc + kl[x + PFD]);
            uint32_t v = e->v, u = e->u;
            double c = e->w * pv[v].p * pv[v].a;
            acc[j] += c;
            pv[u].p += c;
        }
}

static int one_cycle(cgprop_graph *g, const cgprop__adj *adj, prop_res *res, work *w, uint32_t c)
{
    uint32_t K = g->K, V;
    const uint32_t *mem = cgprop__cycles_members(g, c, &V);
    uint32_t *loc = w->loc; /* UNSEEN outside this cycle */
    for (uint32_t i = 0; i < V; i++) loc[mem[i]] = i;

    uint32_t E = 0;
    for (uint32_t i = 0; i < V; i++) {
        uint32_t u = mem[i];
        w->off[i] = E;
        for (uint32_t p = adj->out_off[u]; p < adj->out_off[u + 1]; p++) {
            uint32_t e = adj->out_e[p], v = g->ecallee[e];
            if (v == u || loc[v] == UNSEEN) continue;
            w->tgt[E] = w->pc[E].v = loc[v];
            w->pc[E].u = i;
            w->eid[E] = e;
            E++;
        }
    }
    w->off[V] = E;

    /* Metrics one after the other: each has its own weights and entries,
     * and one metric's arrays fit the caches better than K interleaved. */
    for (uint32_t k = 0; k < K; k++) {
        uint32_t nent = 0;
        double rsum = 0;
        for (uint32_t i = 0; i < V; i++) {
            uint32_t u = mem[i];
            w->base[i] = (double)g->self[(size_t)u * K + k] + cgprop__collapse_gprof_child(g, u, k);
            /* ρ(u): u's spontaneous part plus every call from outside into u. */
            double rh = cgprop__collapse_entry(g, u, k);
            for (uint32_t p = adj->in_off[u]; p < adj->in_off[u + 1]; p++) {
                uint32_t e = adj->in_e[p];
                if (loc[g->ecaller[e]] != UNSEEN) continue;
                rh += cgprop__collapse_edge_share(g, e, k);
            }
            w->rho[i] = rh;
            if (rh > 0) {
                w->entry[nent++] = i;
                rsum += rh;
            }
        }
        bool zeros = false;
        for (uint32_t j = 0; j < E; j++) {
            w->pc[j].w = cgprop__collapse_weight(g, w->eid[j], k);
            w->acc[j] = 0;
            w->ekept[j] = 0;
            zeros |= w->pc[j].w == 0;
        }
        for (uint32_t b = 0; b < nent; b += w->lanes) {
            uint32_t nl = nent - b < w->lanes ? nent - b : w->lanes;
            uint32_t nlev;
            if (batch_bfs(g, w, V, w->entry + b, nl, &nlev) != CGPROP_OK) return CGPROP_ENOMEM;
            for (uint32_t l = 0; l < nl; l++) entry_pass(w, V, nlev, l, w->rho[w->entry[b + l]], zeros);
        }
        /* Σ over the entries of p(u) = Σρ·base(u) + the totals of u's calls in Z. */
        for (uint32_t i = 0; i < V; i++) {
            double t = rsum * w->base[i];
            for (uint32_t j = w->off[i]; j < w->off[i + 1]; j++) t += w->acc[j];
            res->tot[(size_t)mem[i] * K + k] = t;
        }
        for (uint32_t j = 0; j < E; j++) {
            if (!w->ekept[j]) continue;
            size_t e = w->eid[j];
            res->etot[e * K + k] += w->acc[j];
            bit_set(res->indag, e * K + k);
        }
    }
    for (uint32_t i = 0; i < V; i++) loc[mem[i]] = UNSEEN;
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
