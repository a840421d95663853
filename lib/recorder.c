/* The event recorder (DESIGN §6): probes call enter/exit with counter
 * readings; figures accumulate in recorder-owned arrays indexed by function
 * id and by (caller, callee) pair, and reach the graph only at flush, so the
 * hot path never hashes a key or touches the graph's tables.
 *
 * Compensation (docs/RECORDER.md, reference compensation.md): every figure
 * keeps its raw sum and the event counts N, M, L the post-mortem formulas
 * need; the on-the-fly route also keeps a signed compensated sum updated at
 * each exit. Both are exact integer arithmetic, so without clamping the two
 * routes give identical figures. */
#include "recorder.h"

#include <string.h>

#define NO_SLOT UINT32_MAX

/* Function figures, in the order of cgprop_recorder_figure_kind. */
enum { FIG_SN, FIG_SR, FIG_CN, FIG_CR, FIG_SPONT, NFIG };
/* Per-function counts: N and L of the two self classes, N and M of the
 * level-0 and level-1 inclusive figures, N and M of spontaneous entries. */
enum { FC_NS = 0, FC_LS = 2, FC_NC = 4, FC_MC = 6, FC_NSP = 8, FC_MSP = 9, NFC = 10 };
/* Call classes: caller class (0, >= 1) * 3 + callee class (0, 1, >= 2). */
#define NCALL 6
/* Per-pair counts: calls and M of each class. */
#define NPC (2 * NCALL)

typedef struct frame {
    uint32_t node;
    uint32_t slot;  /* pair slot of the call that opened it, NO_SLOT when spontaneous */
    uint32_t level; /* exact level */
    uint32_t pad;
    uint64_t m; /* activations nested below, so far */
    uint64_t l; /* direct children, so far */
} frame;

struct cgprop_recorder {
    cgprop_graph *g;
    uint32_t K;
    uint32_t mode;
    bool online, clamp;
    int64_t di[CGPROP_MAX_METRICS]; /* δ_i */
    int64_t de[CGPROP_MAX_METRICS]; /* δ_e */
    int64_t df[CGPROP_MAX_METRICS]; /* δ_i + δ_e */
    uint64_t last[CGPROP_MAX_METRICS];
    uint64_t clamps, floors;

    /* functions seen: ids < fmax; arrays sized fcap */
    uint32_t fcap, fmax;
    uint32_t *active;     /* open activations per function */
    uint32_t *mru_callee; /* last callee entered from this function, NO_SLOT if none */
    uint32_t *mru_slot;
    uint64_t *fcnt;  /* fcap * NFC */
    uint64_t *fraw;  /* fcap * NFIG * K */
    int64_t *fcomp;  /* fcap * NFIG * K, on the fly */

    /* (caller, callee) pairs */
    uint32_t np, pcap;
    uint32_t *pcaller, *pcallee;
    uint64_t *pcnt;  /* pcap * NPC */
    uint64_t *praw;  /* pcap * NCALL * K */
    int64_t *pcomp;  /* pcap * NCALL * K */
    uint32_t *phash; /* slot + 1, 0 = empty; power-of-two size */
    uint32_t phash_cap;

    /* the stack */
    size_t depth, scap;
    frame *fr;
    uint64_t *fk;  /* scap * 2K: start readings, Σ children's raw inclusive */
    int64_t *fkc;  /* scap * K: Σ children's compensated inclusive */

    /* exit scratch, 3K */
    uint64_t *s_raw;
    int64_t *s_ci, *s_ce;
};

static const cgprop_graph *G(const cgprop_recorder *r) { return r->g; }

/* ---- creation ---- */

int cgprop_recorder_new(cgprop_graph *g, const cgprop_recorder_options *opt, cgprop_recorder **out)
{
    if (out) *out = NULL;
    if (!g) return CGPROP_EINVAL;
    if (!out) return cgprop__err(g, CGPROP_EINVAL, "recorder_new: out is NULL");
    cgprop_recorder_options o;
    memset(&o, 0, sizeof o);
    if (opt) o = *opt;
    if (o.mode > CGPROP_COMP_POSTMORTEM)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: unknown compensation mode %u", o.mode);
    if (o.flags & ~(uint32_t)CGPROP_REC_CLAMP)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: unknown flags 0x%x", o.flags);
    if ((o.flags & CGPROP_REC_CLAMP) && o.mode != CGPROP_COMP_ONLINE)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: clamping needs on-the-fly compensation");
    uint32_t K = g->K;
    for (uint32_t k = 0; k < K; k++) {
        if (o.delta_i[k] > (uint64_t)INT64_MAX || o.delta_e[k] > (uint64_t)INT64_MAX - o.delta_i[k])
            return cgprop__err(g, CGPROP_EINVAL, "recorder_new: delta_i + delta_e of metric %u exceeds INT64_MAX",
                               k);
    }
    cgprop_recorder *r = cgprop__calloc(g, 1, sizeof *r);
    if (!r) return cgprop__err(g, CGPROP_ENOMEM, "recorder_new: out of memory");
    r->g = g;
    r->K = K;
    r->mode = o.mode;
    r->online = o.mode == CGPROP_COMP_ONLINE;
    r->clamp = (o.flags & CGPROP_REC_CLAMP) != 0;
    for (uint32_t k = 0; k < K; k++) {
        /* With compensation off, δ plays no part anywhere. */
        uint64_t di = o.mode ? o.delta_i[k] : 0, de = o.mode ? o.delta_e[k] : 0;
        r->di[k] = (int64_t)di;
        r->de[k] = (int64_t)de;
        r->df[k] = (int64_t)(di + de);
    }
    r->s_raw = cgprop__alloc(g, K, sizeof *r->s_raw);
    r->s_ci = cgprop__alloc(g, 2 * (size_t)K, sizeof *r->s_ci);
    if (!r->s_raw || !r->s_ci) {
        cgprop_recorder_free(r);
        return cgprop__err(g, CGPROP_ENOMEM, "recorder_new: out of memory");
    }
    r->s_ce = r->s_ci + K;
    *out = r;
    return cgprop__ok(g);
}

void cgprop_recorder_free(cgprop_recorder *r)
{
    if (!r) return;
    const cgprop_graph *g = G(r);
    void *arrays[] = {r->active, r->mru_callee, r->mru_slot, r->fcnt, r->fraw, r->fcomp,
                      r->pcaller, r->pcallee, r->pcnt, r->praw, r->pcomp, r->phash,
                      r->fr, r->fk, r->fkc, r->s_raw, r->s_ci};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) cgprop__free(g, arrays[i]);
    cgprop__free(g, r);
}

size_t cgprop_recorder_depth(const cgprop_recorder *r) { return r ? r->depth : 0; }
uint32_t cgprop__recorder_top(const cgprop_recorder *r) { return r->depth ? r->fr[r->depth - 1].node : UINT32_MAX; }
uint64_t cgprop_recorder_clamp_count(const cgprop_recorder *r) { return r ? r->clamps : 0; }
uint64_t cgprop_recorder_floor_count(const cgprop_recorder *r) { return r ? r->floors : 0; }

/* ---- growth (off the hot path) ---- */

/* Grow one array from old to new elements, zeroing the new part. The array
 * pointer only changes on success, so a later failure leaves arrays that are
 * merely larger than their recorded capacity. */
static bool grow_array(const cgprop_graph *g, void **p, size_t old_n, size_t new_n, size_t size)
{
    void *q = cgprop__realloc(g, *p, new_n, size);
    if (!q) return false;
    memset((char *)q + old_n * size, 0, (new_n - old_n) * size);
    *p = q;
    return true;
}

static int grow_funcs(cgprop_recorder *r, uint32_t node)
{
    cgprop_graph *g = r->g;
    uint64_t want = r->fcap ? (uint64_t)r->fcap * 2 : 64;
    if (want <= node) want = (uint64_t)node + 1;
    if (want < g->nn) want = g->nn;
    if (want > UINT32_MAX) want = UINT32_MAX;
    size_t o = r->fcap, n = (size_t)want, K = r->K;
    bool ok = grow_array(g, (void **)&r->active, o, n, sizeof *r->active) &&
              grow_array(g, (void **)&r->mru_callee, o, n, sizeof *r->mru_callee) &&
              grow_array(g, (void **)&r->mru_slot, o, n, sizeof *r->mru_slot) &&
              grow_array(g, (void **)&r->fcnt, o * NFC, n * NFC, sizeof *r->fcnt) &&
              grow_array(g, (void **)&r->fraw, o * NFIG * K, n * NFIG * K, sizeof *r->fraw) &&
              grow_array(g, (void **)&r->fcomp, o * NFIG * K, n * NFIG * K, sizeof *r->fcomp);
    if (!ok) return cgprop__err(g, CGPROP_ENOMEM, "recorder: out of memory for function %u", node);
    for (size_t i = o; i < n; i++) r->mru_callee[i] = NO_SLOT;
    r->fcap = (uint32_t)n;
    return CGPROP_OK;
}

static int grow_stack(cgprop_recorder *r)
{
    cgprop_graph *g = r->g;
    if (r->depth >= UINT32_MAX - 1u)
        return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_enter: more than 2^32 - 2 open activations");
    size_t o = r->scap, n = o ? o * 2 : 256, K = r->K;
    bool ok = grow_array(g, (void **)&r->fr, o, n, sizeof *r->fr) &&
              grow_array(g, (void **)&r->fk, o * 2 * K, n * 2 * K, sizeof *r->fk) &&
              grow_array(g, (void **)&r->fkc, o * K, n * K, sizeof *r->fkc);
    if (!ok) return cgprop__err(g, CGPROP_ENOMEM, "recorder_enter: out of memory growing the stack");
    r->scap = n;
    return CGPROP_OK;
}

static uint64_t pair_hash(uint32_t a, uint32_t b)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static int pair_rehash(cgprop_recorder *r)
{
    uint32_t ncap = r->phash_cap ? r->phash_cap * 2 : 256;
    if (ncap == 0 || ncap > 0x80000000u) return CGPROP_EOVERFLOW;
    uint32_t *t = cgprop__calloc(r->g, ncap, sizeof *t);
    if (!t) return CGPROP_ENOMEM;
    uint64_t mask = ncap - 1;
    for (uint32_t s = 0; s < r->np; s++) {
        uint64_t i = pair_hash(r->pcaller[s], r->pcallee[s]) & mask;
        while (t[i]) i = (i + 1) & mask;
        t[i] = s + 1;
    }
    cgprop__free(r->g, r->phash);
    r->phash = t;
    r->phash_cap = ncap;
    return CGPROP_OK;
}

/* The slot of pair (a, b), created (zeroed) on first sight. */
static int pair_slot(cgprop_recorder *r, uint32_t a, uint32_t b, uint32_t *out)
{
    if (r->phash_cap) {
        uint64_t mask = r->phash_cap - 1;
        for (uint64_t i = pair_hash(a, b) & mask;; i = (i + 1) & mask) {
            uint32_t v = r->phash[i];
            if (!v) break;
            if (r->pcaller[v - 1] == a && r->pcallee[v - 1] == b) {
                *out = v - 1;
                return CGPROP_OK;
            }
        }
    }
    cgprop_graph *g = r->g;
    if (r->np >= 0x7FFFFFFEu) return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_enter: too many distinct calls");
    if (r->np == r->pcap) {
        size_t o = r->pcap, n = o ? o * 2 : 128, K = r->K;
        bool ok = grow_array(g, (void **)&r->pcaller, o, n, sizeof *r->pcaller) &&
                  grow_array(g, (void **)&r->pcallee, o, n, sizeof *r->pcallee) &&
                  grow_array(g, (void **)&r->pcnt, o * NPC, n * NPC, sizeof *r->pcnt) &&
                  grow_array(g, (void **)&r->praw, o * NCALL * K, n * NCALL * K, sizeof *r->praw) &&
                  grow_array(g, (void **)&r->pcomp, o * NCALL * K, n * NCALL * K, sizeof *r->pcomp);
        if (!ok) return cgprop__err(g, CGPROP_ENOMEM, "recorder_enter: out of memory for call %u -> %u", a, b);
        r->pcap = (uint32_t)n;
    }
    if ((uint64_t)(r->np + 1) * 2 > r->phash_cap) {
        int rc = pair_rehash(r);
        if (rc) return cgprop__err(g, rc, "recorder_enter: out of memory for the call index");
    }
    uint32_t s = r->np;
    r->pcaller[s] = a;
    r->pcallee[s] = b;
    uint64_t mask = r->phash_cap - 1, i = pair_hash(a, b) & mask;
    while (r->phash[i]) i = (i + 1) & mask;
    r->phash[i] = s + 1;
    r->np++;
    *out = s;
    return CGPROP_OK;
}

/* ---- the hot path ---- */

#if defined(__GNUC__) || defined(__clang__)
#define CGPROP__ALWAYS_INLINE __attribute__((always_inline)) inline
#define CGPROP__NOINLINE __attribute__((noinline))
#define CGPROP__LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define CGPROP__ALWAYS_INLINE inline
#define CGPROP__NOINLINE
#define CGPROP__LIKELY(x) (x)
#endif

/* The slot of pair (a, b), NO_SLOT when it has none yet. */
static CGPROP__ALWAYS_INLINE uint32_t pair_find(const cgprop_recorder *r, uint32_t a, uint32_t b)
{
    if (!r->phash_cap) return NO_SLOT;
    uint64_t mask = r->phash_cap - 1;
    for (uint64_t i = pair_hash(a, b) & mask;; i = (i + 1) & mask) {
        uint32_t v = r->phash[i];
        if (!v) return NO_SLOT;
        if (r->pcaller[v - 1] == a && r->pcallee[v - 1] == b) return v - 1;
    }
}


static int backwards(cgprop_recorder *r, const char *what, const uint64_t *c)
{
    for (uint32_t k = 0; k < r->K; k++)
        if (c[k] < r->last[k])
            return cgprop__err(r->g, CGPROP_EFORMAT,
                               "%s: counter %u ran backwards (%llu after %llu)", what, k,
                               (unsigned long long)c[k], (unsigned long long)r->last[k]);
    return CGPROP_OK;
}

static CGPROP__ALWAYS_INLINE int enter_k(cgprop_recorder *r, uint32_t node, const uint64_t *c, const uint32_t K)
{
    cgprop_graph *g = r->g;
    if (node >= g->nn)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_enter: function id %u out of range (%u functions)", node,
                           g->nn);
    for (uint32_t k = 0; k < K; k++)
        if (c[k] < r->last[k]) return backwards(r, "recorder_enter", c);
    int rc;
    if (node >= r->fcap && (rc = grow_funcs(r, node))) return rc;
    if (r->depth == r->scap && (rc = grow_stack(r))) return rc;
    if (r->active[node] == UINT32_MAX)
        return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_enter: function %u open 2^32 - 1 times", node);
    uint32_t slot = NO_SLOT;
    if (r->depth) {
        uint32_t parent = r->fr[r->depth - 1].node;
        if (r->mru_callee[parent] == node) {
            slot = r->mru_slot[parent];
        } else {
            if ((rc = pair_slot(r, parent, node, &slot))) return rc;
            r->mru_callee[parent] = node;
            r->mru_slot[parent] = slot;
        }
    }
    size_t d = r->depth;
    frame *f = &r->fr[d];
    f->node = node;
    f->slot = slot;
    f->level = r->active[node]++;
    f->m = 0;
    f->l = 0;
    uint64_t *fk = r->fk + d * 2 * K;
    for (uint32_t k = 0; k < K; k++) {
        fk[k] = c[k];
        fk[K + k] = 0;
        r->last[k] = c[k];
    }
    if (r->online)
        for (uint32_t k = 0; k < K; k++) r->fkc[d * K + k] = 0;
    if (node >= r->fmax) r->fmax = node + 1;
    r->depth = d + 1;
    /* cgprop__ok() without the call: this runs once per probe. */
    g->err[0] = '\0';
    return CGPROP_OK;
}

/* Everything but the common case: errors, growth, a new pair, K > 1. */
static CGPROP__NOINLINE int enter_slow(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    if (!c) return cgprop__err(r->g, CGPROP_EINVAL, "recorder_enter: counters is NULL");
    return r->K == 1 ? enter_k(r, node, c, 1) : enter_k(r, node, c, r->K);
}

int cgprop_recorder_enter(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    /* The common probe (K = 1, nothing to grow, a pair seen before) does
     * what enter_k does, with no call and few registers to save. */
    if (CGPROP__LIKELY(r && c && r->K == 1)) {
        const size_t d = r->depth;
        const uint64_t t = c[0];
        if (CGPROP__LIKELY(node < r->g->nn && node < r->fcap && d < r->scap && t >= r->last[0] &&
                           r->active[node] != UINT32_MAX)) {
            uint32_t slot = NO_SLOT;
            frame *f = r->fr + d;
            if (d) {
                uint32_t parent = f[-1].node;
                if (r->mru_callee[parent] == node) {
                    slot = r->mru_slot[parent];
                } else {
                    slot = pair_find(r, parent, node);
                    if (slot == NO_SLOT) return enter_slow(r, node, c);
                    r->mru_callee[parent] = node;
                    r->mru_slot[parent] = slot;
                }
            }
            f->node = node;
            f->slot = slot;
            f->level = r->active[node]++;
            f->m = 0;
            f->l = 0;
            uint64_t *fk = r->fk + 2 * d;
            fk[0] = t;
            fk[1] = 0;
            if (r->online) r->fkc[d] = 0;
            r->last[0] = t;
            if (node >= r->fmax) r->fmax = node + 1;
            r->depth = d + 1;
            r->g->err[0] = '\0';
            return CGPROP_OK;
        }
    }
    return enter_slow(r, node, c);
}

/* Close the innermost activation at readings c (already checked: not
 * backwards). All sums are checked before any is changed, so an overflow
 * leaves the recorder as it was. */
static CGPROP__ALWAYS_INLINE int close_top_k(cgprop_recorder *r, const uint64_t *c, const uint32_t K)
{
    const size_t d = r->depth - 1;
    frame *f = &r->fr[d];
    frame *p = d ? f - 1 : NULL;
    const uint32_t node = f->node, lvl = f->level;
    const uint32_t scls = lvl ? 1u : 0u;
    const uint64_t *t0 = r->fk + d * 2 * K, *craw = t0 + K;
    const int64_t *ccomp = r->fkc + d * K;
    const size_t fb = (size_t)node * NFIG * K;
    uint64_t *sraw = r->fraw + fb + (size_t)scls * K;
    int64_t *scomp = r->fcomp + fb + (size_t)scls * K;
    uint64_t *iraw = lvl <= 1 ? r->fraw + fb + (size_t)(FIG_CN + lvl) * K : NULL;
    int64_t *icomp = lvl <= 1 ? r->fcomp + fb + (size_t)(FIG_CN + lvl) * K : NULL;
    uint32_t ccls = 0;
    uint64_t *craw_acc, *ccnt;
    int64_t *ccomp_acc;
    if (f->slot != NO_SLOT) {
        ccls = (p->level ? 3u : 0u) + (lvl < 2 ? lvl : 2u);
        size_t pb = ((size_t)f->slot * NCALL + ccls) * K;
        craw_acc = r->praw + pb;
        ccomp_acc = r->pcomp + pb;
        ccnt = r->pcnt + (size_t)f->slot * NPC + ccls; /* calls; M at + NCALL */
    } else {
        craw_acc = r->fraw + fb + (size_t)FIG_SPONT * K;
        ccomp_acc = r->fcomp + fb + (size_t)FIG_SPONT * K;
        ccnt = r->fcnt + (size_t)node * NFC + FC_NSP; /* N; M at + 1 */
    }
    uint64_t *cnt = r->fcnt + (size_t)node * NFC;
    const uint64_t m = f->m;
    bool ovf = false;
    uint64_t t;
    int64_t s;
    uint64_t nclamps = 0;

    for (uint32_t k = 0; k < K; k++) {
        uint64_t raw = c[k] - t0[k];
        r->s_raw[k] = raw;
        /* Within one flush period every reading lies in one uint64 range and
         * activations of one function at one level are disjoint, so raw sums
         * fit; only calls into level >= 2 activations nest and can outgrow it. */
        if (lvl >= 2) ovf |= cgprop__add_u64(craw_acc[k], raw, &t);
        if (r->online) {
            int64_t ci, ce, md;
            ovf |= raw > (uint64_t)INT64_MAX;
            ovf |= cgprop__mul_u64_i64(m, r->df[k], &md);
            ovf |= cgprop__sub_i64((int64_t)raw, r->di[k], &ci);
            ovf |= cgprop__sub_i64(ci, md, &ci);
            if (r->clamp && ci < 0) {
                ci = 0;
                nclamps++;
            }
            ovf |= cgprop__sub_i64(ci, ccomp[k], &ce);
            if (r->clamp && ce < 0) {
                ce = 0;
                nclamps++;
            }
            r->s_ci[k] = ci;
            r->s_ce[k] = ce;
            ovf |= cgprop__add_i64(scomp[k], ce, &s);
            ovf |= cgprop__add_i64(ccomp_acc[k], ci, &s);
            if (icomp) ovf |= cgprop__add_i64(icomp[k], ci, &s);
            if (p) ovf |= cgprop__add_i64(r->fkc[(d - 1) * K + k], ci, &s);
        }
    }
    /* Nested counts grow with depth times events. */
    /* Counts of disjoint activations (everything but calls into level >= 2)
     * are bounded by the number of events; only those can grow past it. */
    if (lvl >= 2) ovf |= cgprop__add_u64(ccnt[NCALL], m, &t);
    if (ovf)
        return cgprop__err(r->g, CGPROP_EOVERFLOW,
                           "recorder_exit: a figure of function %u would overflow; nothing recorded", node);

    r->clamps += nclamps;
    uint64_t *praw = p ? r->fk + (d - 1) * 2 * K + K : NULL;
    for (uint32_t k = 0; k < K; k++) {
        uint64_t raw = r->s_raw[k];
        /* Children's intervals lie inside this one, so this cannot wrap. */
        sraw[k] += raw - craw[k];
        craw_acc[k] += raw;
        if (iraw) iraw[k] += raw;
        if (praw) praw[k] += raw;
    }
    if (r->online) {
        int64_t *pc = p ? r->fkc + (d - 1) * K : NULL;
        for (uint32_t k = 0; k < K; k++) {
            int64_t ci = r->s_ci[k];
            scomp[k] += r->s_ce[k];
            ccomp_acc[k] += ci;
            if (icomp) icomp[k] += ci;
            if (pc) pc[k] += ci;
        }
    }
    cnt[FC_NS + scls]++;
    cnt[FC_LS + scls] += f->l;
    if (lvl <= 1) {
        cnt[FC_NC + lvl]++;
        cnt[FC_MC + lvl] += m;
    }
    if (f->slot != NO_SLOT) {
        ccnt[0]++;
        ccnt[NCALL] += m;
    } else {
        ccnt[0]++;
        ccnt[1] += m;
    }
    if (p) {
        p->m += m + 1;
        p->l++;
    }
    r->active[node]--;
    r->depth = d;
    return CGPROP_OK;
}

/* close_top_k for K = 1, the common probe, written out: each new sum is
 * computed once into a local, checked, and stored only when every check
 * passed, so nothing goes through memory twice. Same figures, same checks,
 * same all-or-nothing as close_top_k. */
static CGPROP__NOINLINE int close_overflow(cgprop_recorder *r, uint32_t node)
{
    return cgprop__err(r->g, CGPROP_EOVERFLOW,
                       "recorder_exit: a figure of function %u would overflow; nothing recorded", node);
}

static CGPROP__ALWAYS_INLINE int close_top1(cgprop_recorder *r, uint64_t c)
{
    const size_t d = r->depth - 1;
    frame *f = &r->fr[d];
    frame *p = d ? f - 1 : NULL;
    const uint32_t node = f->node, lvl = f->level, scls = lvl ? 1u : 0u;
    uint64_t *fk = r->fk + 2 * d;
    const uint64_t raw = c - fk[0], craw = fk[1], m = f->m;
    const size_t fb = (size_t)node * NFIG;
    uint64_t *cnt = r->fcnt + (size_t)node * NFC;
    uint64_t *craw_acc, *ccnt;
    int64_t *ccomp_acc;
    size_t mofs;
    if (f->slot != NO_SLOT) {
        uint32_t ccls = (p->level ? 3u : 0u) + (lvl < 2 ? lvl : 2u);
        size_t pb = (size_t)f->slot * NCALL + ccls;
        craw_acc = r->praw + pb;
        ccomp_acc = r->pcomp + pb;
        ccnt = r->pcnt + (size_t)f->slot * NPC + ccls;
        mofs = NCALL;
    } else {
        craw_acc = r->fraw + fb + FIG_SPONT;
        ccomp_acc = r->fcomp + fb + FIG_SPONT;
        ccnt = cnt + FC_NSP;
        mofs = 1;
    }
    /* Only calls into level >= 2 activations nest, so only their sums can
     * outgrow the range of the readings (see close_top_k). */
    uint64_t n_craw, n_m;
    bool ovf = cgprop__add_u64(*craw_acc, raw, &n_craw);
    ovf |= cgprop__add_u64(ccnt[mofs], m, &n_m);
    if (lvl < 2) ovf = false;
    if (r->online) {
        int64_t md, ci, ce, n_s, n_cc, n_ic = 0, n_pc = 0;
        uint64_t nclamps = 0;
        ovf |= raw > (uint64_t)INT64_MAX;
        ovf |= cgprop__mul_u64_i64(m, r->df[0], &md);
        ovf |= cgprop__sub_i64((int64_t)raw, r->di[0], &ci);
        ovf |= cgprop__sub_i64(ci, md, &ci);
        if (r->clamp && ci < 0) {
            ci = 0;
            nclamps++;
        }
        ovf |= cgprop__sub_i64(ci, r->fkc[d], &ce);
        if (r->clamp && ce < 0) {
            ce = 0;
            nclamps++;
        }
        int64_t *scomp = r->fcomp + fb + scls, *icomp = lvl <= 1 ? r->fcomp + fb + FIG_CN + lvl : NULL;
        ovf |= cgprop__add_i64(*scomp, ce, &n_s);
        ovf |= cgprop__add_i64(*ccomp_acc, ci, &n_cc);
        if (lvl <= 1) ovf |= cgprop__add_i64(*icomp, ci, &n_ic);
        if (p) ovf |= cgprop__add_i64(r->fkc[d - 1], ci, &n_pc);
        if (ovf) goto overflow;
        r->clamps += nclamps;
        *scomp = n_s;
        *ccomp_acc = n_cc;
        if (lvl <= 1) *icomp = n_ic;
        if (p) r->fkc[d - 1] = n_pc;
    } else if (ovf) {
        goto overflow;
    }
    /* Children's intervals lie inside this one, so this cannot wrap. */
    r->fraw[fb + scls] += raw - craw;
    *craw_acc = n_craw;
    ccnt[0]++;
    ccnt[mofs] = n_m;
    cnt[FC_NS + scls]++;
    cnt[FC_LS + scls] += f->l;
    if (lvl <= 1) {
        r->fraw[fb + FIG_CN + lvl] += raw;
        cnt[FC_NC + lvl]++;
        cnt[FC_MC + lvl] += m;
    }
    if (p) {
        fk[-1] += raw;
        p->m += m + 1;
        p->l++;
    }
    r->active[node]--;
    r->depth = d;
    return CGPROP_OK;
overflow:
    return close_overflow(r, node);
}

static CGPROP__NOINLINE int close_top(cgprop_recorder *r, const uint64_t *c)
{
    return r->K == 1 ? close_top1(r, c[0]) : close_top_k(r, c, r->K);
}

static CGPROP__NOINLINE int exit_slow(cgprop_recorder *r, uint32_t node, const uint64_t *c);

int cgprop_recorder_exit(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    /* The common probe: K = 1, the innermost activation, time moving on. */
    if (CGPROP__LIKELY(r && c && r->K == 1 && r->depth && r->fr[r->depth - 1].node == node &&
                       c[0] >= r->last[0])) {
        int rc = close_top1(r, c[0]);
        if (rc) return rc;
        r->last[0] = c[0];
        r->g->err[0] = '\0';
        return CGPROP_OK;
    }
    return exit_slow(r, node, c);
}

static int exit_slow(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!c) return cgprop__err(g, CGPROP_EINVAL, "recorder_exit: counters is NULL");
    if (!r->depth)
        return cgprop__err(g, CGPROP_EFORMAT, "recorder_exit: exit of function %u with no open activation", node);
    uint32_t top = r->fr[r->depth - 1].node;
    if (top != node)
        return cgprop__err(g, CGPROP_EFORMAT,
                           "recorder_exit: exit of function %u but the innermost open activation is of %u", node,
                           top);
    const uint32_t K = r->K;
    for (uint32_t k = 0; k < K; k++)
        if (c[k] < r->last[k]) return backwards(r, "recorder_exit", c);
    int rc = close_top(r, c);
    if (rc) return rc;
    for (uint32_t k = 0; k < K; k++) r->last[k] = c[k];
    g->err[0] = '\0';
    return CGPROP_OK;
}

int cgprop_recorder_unwind(cgprop_recorder *r, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!r->depth) return cgprop__ok(g);
    if (!c) return cgprop__err(g, CGPROP_EINVAL, "recorder_unwind: counters is NULL with open activations");
    int rc = backwards(r, "recorder_unwind", c);
    if (rc) return rc;
    while (r->depth) {
        if ((rc = close_top(r, c))) return rc;
    }
    for (uint32_t k = 0; k < r->K; k++) r->last[k] = c[k];
    return cgprop__ok(g);
}

/* ---- reading figures ---- */

/* Where one figure lives: raw and on-the-fly sums (K each), N, and the
 * second count with its δ: L with δ_e for self figures, M with δ_i + δ_e for
 * inclusive ones. */
typedef struct figref {
    const uint64_t *raw;
    const int64_t *comp;
    uint64_t n, x;
    bool self;
} figref;

static void fig_node(const cgprop_recorder *r, uint32_t node, uint32_t fig, figref *out)
{
    size_t b = ((size_t)node * NFIG + fig) * r->K;
    const uint64_t *cnt = r->fcnt + (size_t)node * NFC;
    out->raw = r->fraw + b;
    out->comp = r->fcomp + b;
    out->self = fig <= FIG_SR;
    switch (fig) {
    case FIG_SN:
    case FIG_SR:
        out->n = cnt[FC_NS + fig];
        out->x = cnt[FC_LS + fig];
        break;
    case FIG_CN:
    case FIG_CR:
        out->n = cnt[FC_NC + fig - FIG_CN];
        out->x = cnt[FC_MC + fig - FIG_CN];
        break;
    default:
        out->n = cnt[FC_NSP];
        out->x = cnt[FC_MSP];
        break;
    }
}

static void fig_pair(const cgprop_recorder *r, uint32_t slot, uint32_t cls, figref *out)
{
    size_t b = ((size_t)slot * NCALL + cls) * r->K;
    out->raw = r->praw + b;
    out->comp = r->pcomp + b;
    out->n = r->pcnt[(size_t)slot * NPC + cls];
    out->x = r->pcnt[(size_t)slot * NPC + NCALL + cls];
    out->self = false;
}

/* The compensated value of metric k of a figure; false on int64 overflow. */
static bool fig_comp(const cgprop_recorder *r, const figref *f, uint32_t k, int64_t *out)
{
    switch (r->mode) {
    case CGPROP_COMP_ONLINE: *out = f->comp[k]; return true;
    case CGPROP_COMP_POSTMORTEM: {
        /* I = I_meas - N·δ_i - M·(δ_i+δ_e);  E = E_meas - N·δ_i - L·δ_e */
        int64_t a, b, v;
        if (f->raw[k] > (uint64_t)INT64_MAX) return false;
        if (cgprop__mul_u64_i64(f->n, r->di[k], &a)) return false;
        if (cgprop__mul_u64_i64(f->x, f->self ? r->de[k] : r->df[k], &b)) return false;
        if (cgprop__sub_i64((int64_t)f->raw[k], a, &v) || cgprop__sub_i64(v, b, &v)) return false;
        *out = v;
        return true;
    }
    default:
        if (f->raw[k] > (uint64_t)INT64_MAX) return false;
        *out = (int64_t)f->raw[k];
        return true;
    }
}

/* The value flush writes: the raw sum with compensation off, else the
 * compensated one floored at 0. */
static bool fig_write(const cgprop_recorder *r, const figref *f, uint32_t k, uint64_t *out, bool *floored)
{
    *floored = false;
    if (r->mode == CGPROP_COMP_OFF) {
        *out = f->raw[k];
        return true;
    }
    int64_t v;
    if (!fig_comp(r, f, k, &v)) return false;
    if (v < 0) {
        *floored = true;
        v = 0;
    }
    *out = (uint64_t)v;
    return true;
}

static uint32_t find_slot(const cgprop_recorder *r, uint32_t a, uint32_t b)
{
    if (!r->phash_cap) return NO_SLOT;
    uint64_t mask = r->phash_cap - 1;
    for (uint64_t i = pair_hash(a, b) & mask;; i = (i + 1) & mask) {
        uint32_t v = r->phash[i];
        if (!v) return NO_SLOT;
        if (r->pcaller[v - 1] == a && r->pcallee[v - 1] == b) return v - 1;
    }
}

int cgprop_recorder_get(cgprop_recorder *r, uint32_t which, uint32_t node, uint32_t callee, uint32_t metric,
                        cgprop_recorder_figure *out, size_t size)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!out || size != sizeof *out)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_get: out is NULL or size is not sizeof(cgprop_recorder_figure)");
    memset(out, 0, sizeof *out);
    if (which > CGPROP_RF_C_RD) return cgprop__err(g, CGPROP_EINVAL, "recorder_get: unknown figure %u", which);
    if (metric >= r->K) return cgprop__err(g, CGPROP_EINVAL, "recorder_get: metric %u out of range", metric);
    if (node >= g->nn || (which >= CGPROP_RF_C_NN && callee >= g->nn))
        return cgprop__err(g, CGPROP_EINVAL, "recorder_get: function id out of range (%u functions)", g->nn);
    figref f;
    if (which < CGPROP_RF_C_NN) {
        if (node >= r->fcap) return cgprop__ok(g);
        fig_node(r, node, which, &f);
    } else {
        uint32_t slot = find_slot(r, node, callee);
        if (slot == NO_SLOT) return cgprop__ok(g);
        fig_pair(r, slot, which - CGPROP_RF_C_NN, &f);
    }
    int64_t v;
    if (!fig_comp(r, &f, metric, &v))
        return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_get: compensated figure leaves the int64 range");
    out->count = f.n;
    out->nested = f.self ? 0 : f.x;
    out->children = f.self ? f.x : 0;
    out->raw = f.raw[metric];
    out->comp = v;
    return cgprop__ok(g);
}

/* ---- flush ---- */

static bool any_count(const cgprop_recorder *r, uint32_t slot)
{
    const uint64_t *c = r->pcnt + (size_t)slot * NPC;
    for (int i = 0; i < NCALL; i++)
        if (c[i]) return true;
    return false;
}

/* Check every sum flush will add (phase 2), or add them (phase 3). The
 * checks mirror graph.c's: S (which bounds S_n and S_r), spontaneous count
 * and cost, each call's plain count and cost (which bound the class
 * buckets), and each callee's calls_in. */
static int flush_pass(cgprop_recorder *r, bool write, uint64_t *callin, uint64_t *floors)
{
    cgprop_graph *g = r->g;
    const uint32_t K = r->K;
    uint64_t v[CGPROP_MAX_METRICS], sum[CGPROP_MAX_METRICS];
    bool fl;
    figref f;
    int rc;

    for (uint32_t node = 0; node < r->fmax; node++) {
        const uint64_t *cnt = r->fcnt + (size_t)node * NFC;
        memset(sum, 0, K * sizeof sum[0]);
        for (uint32_t cls = 0; cls < 2; cls++) {
            if (!cnt[FC_NS + cls]) continue;
            fig_node(r, node, FIG_SN + cls, &f);
            for (uint32_t k = 0; k < K; k++) {
                if (!fig_write(r, &f, k, &v[k], &fl)) goto ovf;
                *floors += fl;
                if (cgprop__add_u64(sum[k], v[k], &sum[k])) goto ovf;
            }
            if (write && (rc = cgprop_graph_add_self_class(g, node, cls, v))) return rc;
        }
        if (!write && !cgprop__can_add(g->self + (size_t)node * K, sum, K)) goto ovf;
        if (cnt[FC_NSP]) {
            fig_node(r, node, FIG_SPONT, &f);
            for (uint32_t k = 0; k < K; k++) {
                if (!fig_write(r, &f, k, &v[k], &fl)) goto ovf;
                *floors += fl;
            }
            if (write) {
                if ((rc = cgprop_graph_add_spontaneous(g, node, cnt[FC_NSP], v))) return rc;
            } else if (g->spont_cnt[node] > UINT64_MAX - cnt[FC_NSP] ||
                       !cgprop__can_add(g->spont_cost + (size_t)node * K, v, K)) {
                goto ovf;
            }
        }
    }
    for (uint32_t s = 0; s < r->np; s++) {
        if (!any_count(r, s)) continue;
        uint32_t a = r->pcaller[s], b = r->pcallee[s];
        uint64_t calls = 0;
        memset(sum, 0, K * sizeof sum[0]);
        for (uint32_t cls = 0; cls < NCALL; cls++) {
            fig_pair(r, s, cls, &f);
            if (!f.n) continue;
            for (uint32_t k = 0; k < K; k++) {
                if (!fig_write(r, &f, k, &v[k], &fl)) goto ovf;
                *floors += fl;
                if (cgprop__add_u64(sum[k], v[k], &sum[k])) goto ovf;
            }
            if (cgprop__add_u64(calls, f.n, &calls)) goto ovf;
            if (write && (rc = cgprop_graph_add_edge_class(g, a, b, cls / 3, cls % 3, f.n, v, NULL))) return rc;
        }
        if (!write) {
            uint32_t e = cgprop__edge_lookup(g, a, b);
            if (g->ecount[e] > UINT64_MAX - calls || !cgprop__can_add(g->ecost + (size_t)e * K, sum, K)) goto ovf;
            if (cgprop__add_u64(callin[b], calls, &callin[b]) || g->calls_in[b] > UINT64_MAX - callin[b])
                goto ovf;
        }
    }
    return CGPROP_OK;
ovf:
    return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_flush: a figure would overflow; nothing written");
}

static void clear_figures(cgprop_recorder *r)
{
    size_t K = r->K;
    memset(r->last, 0, sizeof r->last);
    if (!r->fmax) return;
    memset(r->fcnt, 0, (size_t)r->fmax * NFC * sizeof *r->fcnt);
    memset(r->fraw, 0, (size_t)r->fmax * NFIG * K * sizeof *r->fraw);
    memset(r->fcomp, 0, (size_t)r->fmax * NFIG * K * sizeof *r->fcomp);
    if (!r->np) return;
    memset(r->pcnt, 0, (size_t)r->np * NPC * sizeof *r->pcnt);
    memset(r->praw, 0, (size_t)r->np * NCALL * K * sizeof *r->praw);
    memset(r->pcomp, 0, (size_t)r->np * NCALL * K * sizeof *r->pcomp);
}

int cgprop_recorder_flush(cgprop_recorder *r, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    int rc = cgprop_recorder_unwind(r, c);
    if (rc) return rc;

    /* Phase 1: make every call exist, so phase 3 cannot need memory. */
    uint64_t *callin = cgprop__calloc(g, g->nn, sizeof *callin);
    if (!callin) return cgprop__err(g, CGPROP_ENOMEM, "recorder_flush: out of memory");
    uint32_t ne0 = g->ne;
    /* A rollback below leaves the store as it was at this generation: give
     * it back (see merge.c's undo). */
    const uint64_t gen0 = g->gen;
    const bool adj0 = g->adj_valid;
    for (uint32_t s = 0; s < r->np; s++) {
        uint32_t e;
        if (!any_count(r, s)) continue;
        rc = cgprop__edge_get_or_add(g, r->pcaller[s], r->pcallee[s], &e);
        /* Each class with calls is added to (flush_pass). */
        for (uint32_t cls = 0; cls < NCALL && !rc; cls++)
            if (r->pcnt[(size_t)s * NPC + cls])
                rc = cgprop__ecls_prepare(g, e, (int)cgprop__cls(cls / 3, cls % 3), true);
        if (rc) {
            cgprop__rollback_edges(g, ne0);
            g->gen = gen0;
            g->adj_valid = adj0 && g->adj.gen == gen0;
            cgprop__free(g, callin);
            return cgprop__err(g, rc, "recorder_flush: %s adding calls; nothing written",
                               rc == CGPROP_ENOMEM ? "out of memory" : "too many calls");
        }
    }
    /* Phase 2: check; phase 3: add. */
    uint64_t floors = 0;
    rc = flush_pass(r, false, callin, &floors);
    cgprop__free(g, callin);
    if (rc) {
        cgprop__rollback_edges(g, ne0);
        g->gen = gen0;
        g->adj_valid = adj0 && g->adj.gen == gen0;
        return rc;
    }
    floors = 0;
    rc = flush_pass(r, true, NULL, &floors);
    if (rc) return rc; /* cannot happen: every sum was checked */
    r->floors += floors;
    clear_figures(r);
    return cgprop__ok(g);
}

/* ---- calibration ---- */

int cgprop_recorder_calibrate(size_t nmetrics, uint64_t (*now)(void *user, uint64_t *out_counters), void *user,
                              uint32_t iterations, double *delta_i_out, double *delta_e_out)
{
    if (!now || !delta_i_out || !delta_e_out || nmetrics < 1 || nmetrics > CGPROP_MAX_METRICS || iterations < 1)
        return CGPROP_EINVAL;
    static const char *const names[CGPROP_MAX_METRICS] = {
        "c0",  "c1",  "c2",  "c3",  "c4",  "c5",  "c6",  "c7",  "c8",  "c9",  "c10", "c11", "c12",
        "c13", "c14", "c15", "c16", "c17", "c18", "c19", "c20", "c21", "c22", "c23", "c24", "c25",
        "c26", "c27", "c28", "c29", "c30", "c31", "c32", "c33", "c34", "c35", "c36", "c37", "c38",
        "c39", "c40", "c41", "c42", "c43", "c44", "c45", "c46", "c47", "c48", "c49", "c50", "c51",
        "c52", "c53", "c54", "c55", "c56", "c57", "c58", "c59", "c60", "c61", "c62", "c63"};
    cgprop_graph *g = NULL;
    cgprop_recorder *r = NULL;
    int rc = cgprop_graph_new(NULL, names, NULL, nmetrics, &g);
    if (rc) return rc;
    uint32_t one, null;
    uint64_t c[CGPROP_MAX_METRICS];
    /* On the fly with zero δ: the probes then do the work they do in a compensated run. */
    cgprop_recorder_options ropt;
    memset(&ropt, 0, sizeof ropt);
    ropt.mode = CGPROP_COMP_ONLINE;
    if ((rc = cgprop_graph_add_node(g, "one", 3, &one)) || (rc = cgprop_graph_add_node(g, "null", 4, &null)) ||
        (rc = cgprop_recorder_new(g, &ropt, &r)))
        goto done;
    for (size_t k = 0; k < nmetrics; k++) delta_i_out[k] = delta_e_out[k] = -1.0;
    /* Three runs, smallest estimate kept: the paper's repeat-and-minimum,
     * around TAU's single run (compensation.md §1.6). */
    for (int run = 0; run < 3; run++) {
        /* The probe is what a profiler's would be: a clock read, then the recorder call. */
        if (now(user, c)) goto clock;
        if ((rc = cgprop_recorder_enter(r, one, c))) goto clock;
        for (uint32_t i = 0; i < iterations; i++) {
            if (now(user, c) || cgprop_recorder_enter(r, null, c)) goto clock;
            if (now(user, c) || cgprop_recorder_exit(r, null, c)) goto clock;
        }
        if (now(user, c) || cgprop_recorder_exit(r, one, c)) goto clock;
        for (uint32_t k = 0; k < nmetrics; k++) {
            cgprop_recorder_figure fn, fo;
            if (cgprop_recorder_get(r, CGPROP_RF_C_NN, one, null, k, &fn, sizeof fn) ||
                cgprop_recorder_get(r, CGPROP_RF_SPONT, one, 0, k, &fo, sizeof fo))
                goto clock;
            /* tnull = n(b+c); tone = n(a+b+c+d) + (b+c). */
            double tnull = (double)fn.raw / iterations;
            double tover = ((double)fo.raw - tnull) / iterations;
            double di = tnull, de = tover - tnull;
            if (di < 0) di = 0;
            if (de < 0) de = 0;
            if (delta_i_out[k] < 0 || di < delta_i_out[k]) delta_i_out[k] = di;
            if (delta_e_out[k] < 0 || de < delta_e_out[k]) delta_e_out[k] = de;
        }
        if ((rc = cgprop_recorder_flush(r, NULL))) goto done;
        /* flush cleared the recorder's figures; the graph's are not read. */
    }
    rc = CGPROP_OK;
    goto done;
clock:
    rc = CGPROP_EINVAL;
done:
    if (rc)
        for (size_t k = 0; k < nmetrics; k++) delta_i_out[k] = delta_e_out[k] = 0.0;
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
    return rc;
}
