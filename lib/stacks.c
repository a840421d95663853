/* Stack ingestion: one sampled stack becomes leaf
 * self cost, one call cost per adjacent pair and a spontaneous entry of the
 * root frame, each in the exact activation class read off the stack.
 *
 * Perf profiles hold millions of deep stacks, so the per-stack path does no
 * allocation once the scratch has grown, and consecutive stacks that share a
 * prefix (folded and perf output is sorted) reuse the call ids found for it. */
#include "graph.h"

#include "analysis.h"
#include "contexts.h"

#include <stdlib.h>
#include <string.h>

/* Two metrics (Go's CPU profiles) flush as one 128-bit pair of sums. */
#if !defined(CGPROP_STACKS_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#include <emmintrin.h>
#define STACKS_SSE2 1
static inline void add2(uint64_t *dst, __m128i v)
{
    _mm_storeu_si128((__m128i *)dst, _mm_add_epi64(_mm_loadu_si128((const __m128i *)dst), v));
}
#endif

#define MISSING UINT32_MAX

typedef struct stack_scratch {
    /* Per-function count of the frames of stack lvs[0..lvlen) that are that
     * function. A stack sharing a prefix with lvs (the previous stack given,
     * whether it was added or not) pops the frames past the prefix and
     * pushes its own: its levels cost its new frames, not its depth. */
    uint32_t *active;
    size_t active_cap;
    uint32_t *lvs;
    size_t lvlen;
    /* Per frame of stack lvs: level class 0, 1, 2 (= ≥ 2). */
    uint8_t *lv;
    /* Per pair with a level ≥ 2 caller: its call's row in g->dcall plus
     * one (cgprop__sparse_find), 0 for the other pairs. */
    uint32_t *drow;
    /* The call id of each pair of the previous successful stack (pair i
     * joins frames i and i+1), whose frames are lvs[0..prev_len); prev_len
     * 0 when nothing is cached. */
    uint32_t *eid;
    size_t cap, prev_len;
    /* Keys of pairs whose call does not exist yet (rare: only new calls). */
    uint64_t *keys;
    size_t keys_cap;
    /* Deferred mode (readers only, cgprop__stacks_defer): the calls of the
     * prefix shared with the previous stack get their cost when they leave
     * the cached stack, not once per stack. tot is the sum of the weights of
     * every stack since deferral began, base[i·K..] its value when pair i
     * entered the cache, so pair i owes tot − base; pcls[i] its class.
     * m0 is the largest cost the graph held when deferral began and dmax
     * the deepest stack since: every sum stays ≤ m0 + tot·dmax, which is
     * kept below 2^64, so no deferred sum can overflow. */
    bool defer;
    uint64_t *base;
    uint32_t *pcls;
    size_t dcap;
    uint64_t tot[CGPROP_MAX_METRICS], m0[CGPROP_MAX_METRICS];
    size_t dmax;
    /* The calls that existed when deferral began: the calls made since all
     * come from its stacks, and are marked as having a cost together when
     * it ends (defer_end) instead of one flush at a time. */
    uint32_t ne0;
    /* (UINT64_MAX - m0[k]) / lim_d for each metric: the bound on tot for
     * stacks of at most lim_d frames, kept so that a stack divides only
     * when the deepest stack grows (lim_d 0: not computed yet). */
    uint64_t lim[CGPROP_MAX_METRICS];
    size_t lim_d;
    /* Per root of a sampled graph's stacks, the functions every stack it
     * starts shows below it (common_update): a stack of that root that lost
     * its outer frames already counts in their totals. cs_ix maps a root to
     * its set; cs_last is the previous stack's (most stacks share a root). */
    struct common_set *cs;
    uint32_t ncs, cscap, cs_last;
    cgprop__u64map cs_ix;
} stack_scratch;

typedef struct common_set {
    uint32_t root, n, cap;
    /* Where the deepest member first shows in the last stack checked: a
     * stack that shares more than that with the previous one shows them
     * all (consecutive stacks share most of their frames). */
    uint32_t need;
    bool fresh; /* no stack of this root yet */
    uint32_t *m;
} common_set;

void cgprop__stacks_free(cgprop_graph *g)
{
    stack_scratch *s = g->stack_scratch;
    if (!s) return;
    cgprop__free(g, s->active);
    cgprop__free(g, s->lvs);
    cgprop__free(g, s->lv);
    cgprop__free(g, s->drow);
    cgprop__free(g, s->eid);
    cgprop__free(g, s->keys);
    cgprop__free(g, s->base);
    cgprop__free(g, s->pcls);
    for (uint32_t i = 0; i < s->ncs; i++) cgprop__free(g, s->cs[i].m);
    cgprop__free(g, s->cs);
    cgprop__u64map_free(&g->a, &s->cs_ix);
    cgprop__free(g, s);
    g->stack_scratch = NULL;
}

/* The set of root frames[0], made fresh if new, with room for what this
 * stack shows when it is the root's first; CGPROP_ENOMEM leaves at most a
 * fresh, empty set, which no stack has touched. */
static int common_reserve(cgprop_graph *g, stack_scratch *s, uint32_t root, size_t depth, common_set **out)
{
    uint32_t i = s->cs_last;
    if (i >= s->ncs || s->cs[i].root != root) {
        if (!cgprop__u64map_get(&s->cs_ix, root, &i)) {
            if (s->ncs == s->cscap) {
                uint32_t cap = s->cscap ? s->cscap * 2 : 8;
                common_set *c = cgprop__realloc(g, s->cs, cap, sizeof *c);
                if (!c) return CGPROP_ENOMEM;
                s->cs = c;
                s->cscap = cap;
            }
            if (cgprop__u64map_put(&g->a, &s->cs_ix, root, s->ncs)) return CGPROP_ENOMEM;
            i = s->ncs++;
            s->cs[i] = (common_set){root, 0, 0, 0, true, NULL};
        }
        s->cs_last = i;
    }
    common_set *c = &s->cs[i];
    if (c->fresh && c->cap < depth) {
        uint32_t *m = cgprop__realloc(g, c->m, depth, sizeof *m);
        if (!m) return CGPROP_ENOMEM;
        c->m = m;
        c->cap = (uint32_t)depth;
    }
    *out = c;
    return CGPROP_OK;
}

/* After set_levels (s->active counts this stack's functions, s->lv marks
 * each one's first frame; the first `shared` frames are the previous
 * stack's): the root's set keeps only what this stack shows, or, for its
 * first stack, is what it shows. Done before the stack is known to be
 * added: a set can only be smaller than it needs be. */
static void common_update(stack_scratch *s, common_set *c, const uint32_t *frames, size_t depth, size_t shared)
{
    if (c->fresh) {
        uint32_t n = 0;
        for (size_t i = 1; i < depth; i++)
            if (!s->lv[i] && frames[i] != frames[0]) {
                c->m[n++] = frames[i];
                c->need = (uint32_t)i;
            }
        c->n = n;
        c->fresh = false;
        return;
    }
    if (!c->n || shared > c->need) return;
    uint32_t n = 0;
    for (uint32_t j = 0; j < c->n; j++)
        if (s->active[c->m[j]]) c->m[n++] = c->m[j];
    c->n = n;
    /* Where the members first show in this stack: marked in the top bit of
     * their counts (a count of a stack's frames stays below 2^31) for one
     * walk down the stack. */
    for (uint32_t j = 0; j < n; j++) s->active[c->m[j]] |= 0x80000000u;
    c->need = 0;
    for (size_t i = 1; i < depth; i++)
        if (!s->lv[i] && (s->active[frames[i]] & 0x80000000u)) c->need = (uint32_t)i;
    for (uint32_t j = 0; j < n; j++) s->active[c->m[j]] &= 0x7fffffffu;
}

uint32_t cgprop__stacks_roots(const cgprop_graph *g)
{
    const stack_scratch *s = g->stack_scratch;
    return s && !g->common_off ? s->ncs : 0;
}

const uint32_t *cgprop__stacks_common(const cgprop_graph *g, uint32_t i, uint32_t *root, uint32_t *n)
{
    const stack_scratch *s = g->stack_scratch;
    *n = 0;
    if (!s || g->common_off || i >= s->ncs || s->cs[i].fresh) return NULL;
    *root = s->cs[i].root;
    *n = s->cs[i].n;
    return s->cs[i].m;
}

/* Grow the scratch for a stack of depth frames over nn functions. Each array
 * moves on its own and capacities only change once all moved, so a failure
 * leaves a usable (if larger) scratch. */
static int scratch_reserve(cgprop_graph *g, size_t depth)
{
    stack_scratch *s = g->stack_scratch;
    if (!s) {
        s = cgprop__calloc(g, 1, sizeof *s);
        if (!s) return CGPROP_ENOMEM;
        g->stack_scratch = s;
    }
    if (s->active_cap < g->nn) {
        size_t want = s->active_cap ? s->active_cap : 256;
        while (want < g->nn) want *= 2;
        uint32_t *p = cgprop__realloc(g, s->active, want, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        memset(p + s->active_cap, 0, (want - s->active_cap) * sizeof *p);
        s->active = p;
        s->active_cap = want;
    }
    if (s->cap < depth) {
        size_t want = s->cap ? s->cap : 128;
        while (want < depth) {
            if (want > SIZE_MAX / 8) return CGPROP_ENOMEM;
            want *= 2;
        }
        uint8_t *lv = cgprop__realloc(g, s->lv, want, 1);
        if (!lv) return CGPROP_ENOMEM;
        s->lv = lv;
        uint32_t *lvs = cgprop__realloc(g, s->lvs, want, sizeof *lvs);
        if (!lvs) return CGPROP_ENOMEM;
        s->lvs = lvs;
        uint32_t *drow = cgprop__realloc(g, s->drow, want, sizeof *drow);
        if (!drow) return CGPROP_ENOMEM;
        s->drow = drow;
        uint32_t *eid = cgprop__realloc(g, s->eid, want, sizeof *eid);
        if (!eid) return CGPROP_ENOMEM;
        s->eid = eid;
        s->cap = want;
    }
    return CGPROP_OK;
}

static int key_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A call that does not exist yet starts at 0 and receives m·w from its m
 * occurrences in this stack; true when that fits for every metric. */
static bool fits_times(const uint64_t *w, uint32_t K, uint64_t m)
{
    for (uint32_t k = 0; k < K; k++)
        if (w[k] && m > UINT64_MAX / w[k]) return false;
    return true;
}

/* Check that the calls still missing can take their occurrences. Sorting is
 * only needed when a weight is so large that depth − 1 copies could overflow. */
static int check_missing(cgprop_graph *g, stack_scratch *s, const uint32_t *frames, size_t depth,
                         const uint64_t *w, size_t nmissing)
{
    if (fits_times(w, g->K, (uint64_t)(depth - 1))) return CGPROP_OK;
    if (s->keys_cap < nmissing) {
        uint64_t *p = cgprop__realloc(g, s->keys, nmissing, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        s->keys = p;
        s->keys_cap = nmissing;
    }
    size_t n = 0;
    for (size_t i = 0; i + 1 < depth; i++)
        if (s->eid[i] == MISSING) s->keys[n++] = (uint64_t)frames[i] << 32 | frames[i + 1];
    qsort(s->keys, n, sizeof *s->keys, key_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && s->keys[j] == s->keys[i]) j++;
        if (!fits_times(w, g->K, (uint64_t)(j - i))) return CGPROP_EOVERFLOW;
        i = j;
    }
    return CGPROP_OK;
}

static void sub(uint64_t *dst, const uint64_t *src, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++) dst[k] -= src[k];
}

/* The adds are independent cache misses into large arrays, so overlapping
 * them is most of the speed. */
#define AHEAD CGPROP__AHEAD_STACK_PAIRS

/* The class of pair i: the caller's level class (0, 1, >= 2: a level >= 2
 * caller is kept apart, g->dcall) and the callee's. */
static uint32_t class_of(const stack_scratch *s, size_t i)
{
    return cgprop__cls(s->lv[i], s->lv[i + 1]);
}

/* Whether pair i's call e needs cgprop__ecls_prepare before its class is
 * added: not when the call is in compact form for that very class or keeps
 * its buckets (the usual cases), and for a level >= 2 caller has its level
 * >= 2 part; s->drow[i] is set on the way. */
static bool needs_prepare(const cgprop_graph *g, stack_scratch *s, size_t i, uint32_t e)
{
    uint32_t ref = g->ecls_ref[e], c = class_of(s, i);
    s->drow[i] = c >= CGPROP__NCLS ? cgprop__sparse_find(&g->dcall, e) : 0;
    if (ref != cgprop__cls_bucket(c) + 1 && ref < CGPROP__ECLS_BLK) return true;
    return c >= CGPROP__NCLS && !s->drow[i];
}

/* The stored class bucket pair i adds to, NULL when the call keeps its
 * buckets in compact form (the usual case: one class per call). */
static inline uint64_t *bucket_of(const cgprop_graph *g, const stack_scratch *s, size_t i, uint32_t e)
{
    return cgprop__ecls_bucket(g, e, cgprop__cls_bucket(class_of(s, i)), NULL);
}

/* The level >= 2 part pair i adds to, NULL for a caller below level 2 (or
 * a weight of zeros, which needs none). */
static inline uint64_t *deep_of(const cgprop_graph *g, const stack_scratch *s, size_t i)
{
    uint32_t r = s->drow[i];
    if (!r) return NULL;
    return g->dcall.val + (size_t)(r - 1) * cgprop__dcall_width(g) + (size_t)s->lv[i + 1] * (g->K + 1) + 1;
}

static inline void add_to_call(cgprop_graph *g, const stack_scratch *s, size_t i, uint32_t e, const uint64_t *w)
{
    cgprop__add(g->ecost + (size_t)e * g->K, w, g->K);
    uint64_t *b = bucket_of(g, s, i, e);
    if (b) cgprop__add(b, w, g->K);
    if (s->drow[i]) cgprop__add(deep_of(g, s, i), w, g->K);
}

/* Undo what add_existing did: the pairs before `upto`, then the root's
 * spontaneous cost and the leaf's self cost. */
static void undo(cgprop_graph *g, const stack_scratch *s, const uint32_t *frames, size_t depth,
                 const uint64_t *w, size_t upto)
{
    uint32_t K = g->K;
    for (size_t i = 0; i < upto; i++) {
        uint32_t e = s->eid[i];
        if (e == MISSING) continue;
        sub(g->ecost + (size_t)e * K, w, K);
        uint64_t *b = bucket_of(g, s, i, e);
        if (b) sub(b, w, K);
        if ((b = deep_of(g, s, i))) sub(b, w, K);
    }
    sub(g->self + (size_t)frames[depth - 1] * K, w, K);
    sub(g->spont_cost + (size_t)frames[0] * K, w, K);
}

/* Add w to everything that already exists: spontaneous cost of the root,
 * plain self cost of the leaf, cost and class bucket of every existing call,
 * once per occurrence. Each plain total is checked; a class bucket never
 * exceeds its plain total, so it cannot overflow once that did not. On
 * overflow everything added is taken back and the graph is as before. */
static bool add_existing(cgprop_graph *g, const stack_scratch *s, const uint32_t *frames, size_t depth,
                         const uint64_t *w)
{
    uint32_t K = g->K;
    uint64_t *sp = g->spont_cost + (size_t)frames[0] * K;
    uint64_t *se = g->self + (size_t)frames[depth - 1] * K;
    if (!cgprop__fits_spont(g, frames[0], 0, w)) return false;
    cgprop__add(sp, w, K);
    if (!cgprop__fits_self(g, frames[depth - 1], w)) {
        sub(sp, w, K);
        return false;
    }
    cgprop__add(se, w, K);
    const uint32_t *eid = s->eid;
    size_t npairs = depth - 1;
    for (size_t i = 0; i < npairs; i++) {
        if (i + AHEAD < npairs && eid[i + AHEAD] != MISSING) {
            CGPROP__PREFETCH_W(g->ecost + (size_t)eid[i + AHEAD] * K);
            CGPROP__PREFETCH_W(g->ecls_ref + eid[i + AHEAD]);
        }
        uint32_t e = eid[i];
        if (e == MISSING) continue;
        if (!cgprop__fits_call(g, e, 0, w)) {
            undo(g, s, frames, depth, w, i);
            return false;
        }
        add_to_call(g, s, i, e, w);
    }
    return true;
}

/* ---- deferred mode ---- */

/* Pairs [from, to) of the cached stack take what they owe. */
static inline int flush_loop(cgprop_graph *g, stack_scratch *s, size_t from, size_t to, uint32_t K, bool olds,
                             bool pf)
{
    uint64_t pend[CGPROP_MAX_METRICS], sink[CGPROP_MAX_METRICS];
    for (uint32_t k = 0; k < K; k++) sink[k] = 0;
#ifdef STACKS_SSE2
    __m128i tot2 = K == 2 ? _mm_loadu_si128((const __m128i *)s->tot) : _mm_setzero_si128(), pv = tot2;
#endif
    for (size_t i = from; i < to; i++) {
        if (pf) {
            /* Near the end the last pair again: a branch here mispredicts
             * once a range, ranges being a few pairs. */
            size_t j = i + AHEAD < to ? i + AHEAD : to - 1;
            CGPROP__PREFETCH_W(g->ecost + (size_t)s->eid[j] * K);
            CGPROP__PREFETCH(g->ecls_ref + s->eid[j]);
        }
        /* Set here rather than when the pair enters the cache: the reader
         * reads no flag before the last flush. Only calls older than the
         * deferral: the newer ones are flagged together by defer_end. */
        if (olds && s->eid[i] < s->ne0) g->eflags[s->eid[i]] |= CGPROP__EF_HAS_COST;
        uint64_t *b = s->base + i * K;
#ifdef STACKS_SSE2
        if (K == 2) {
            pv = _mm_sub_epi64(tot2, _mm_loadu_si128((const __m128i *)b));
            if (_mm_movemask_epi8(_mm_cmpeq_epi32(pv, _mm_setzero_si128())) == 0xFFFF) continue;
        } else
#endif
        {
            bool nonzero = false;
            for (uint32_t k = 0; k < K; k++) {
                pend[k] = s->tot[k] - b[k];
                nonzero = nonzero || pend[k];
            }
            if (!nonzero) continue;
        }
        uint32_t e = s->eid[i], c = s->pcls[i], ref = g->ecls_ref[e];
        bool deep = c >= CGPROP__NCLS;
        /* The usual case needs no preparing: the call is in compact form
         * for this very class, or keeps all its buckets, and for a level
         * >= 2 caller has its level >= 2 part already. The tests are
         * combined without branches: which of them holds is as random as
         * the stacks, and a mispredicted branch costs more than the rest of
         * a pair's flush. */
        uint32_t r = deep ? cgprop__sparse_find(&g->dcall, e) : 1, cb = cgprop__cls_bucket(c);
        if ((r == 0) | ((ref < CGPROP__ECLS_BLK) & (ref != cb + 1))) {
            int rc = cgprop__ecls_prepare(g, e, (int)c, true);
            if (rc) return rc;
            ref = g->ecls_ref[e];
            if (deep) r = cgprop__sparse_find(&g->dcall, e);
        }
        /* The class bucket, or the sink when the call is in compact form
         * (its total is its one class's); a level >= 2 caller's share also
         * goes to the call's level >= 2 part (made by the prepare above),
         * under the callee's level. */
        uint64_t *bk = cgprop__ecls_bucket_or(g, ref, cb, sink, K);
        uint64_t *dp = deep ? g->dcall.val + (size_t)(r - 1) * cgprop__dcall_width(g) +
                                  (size_t)(c - CGPROP__NCLS) * (K + 1) + 1
                            : NULL;
#ifdef STACKS_SSE2
        if (K == 2) {
            add2(g->ecost + (size_t)e * 2, pv);
            add2(bk, pv);
            if (deep) add2(dp, pv);
            _mm_storeu_si128((__m128i *)b, tot2);
            continue;
        }
#endif
        cgprop__add(g->ecost + (size_t)e * K, pend, K);
        cgprop__add(bk, pend, K);
        if (deep) cgprop__add(dp, pend, K);
        for (uint32_t k = 0; k < K; k++) b[k] = s->tot[k];
    }
    return CGPROP_OK;
}

/* One metric (most profiles: samples, or a time) and two (Go's CPU
 * profiles: samples and nanoseconds) get copies of the loop with K a
 * constant: its per-metric loops become one or two operations. A reader
 * defers from its first stack, when no call exists yet: then no flush
 * meets a call older than the deferral, and its copies leave out the
 * test; they also leave out the requests ahead in a graph small enough
 * for its calls' sums to stay in the cache. Deferral on a graph that had
 * calls takes the general copy. */
static int flush_range(cgprop_graph *g, stack_scratch *s, size_t from, size_t to)
{
    if (s->ne0) return flush_loop(g, s, from, to, g->K, true, true);
    bool pf = g->ne > CGPROP__FLUSH_PREFETCH_MIN_CALLS;
    if (g->K == 1) return pf ? flush_loop(g, s, from, to, 1, false, true) : flush_loop(g, s, from, to, 1, false, false);
    if (g->K == 2) return pf ? flush_loop(g, s, from, to, 2, false, true) : flush_loop(g, s, from, to, 2, false, false);
    return flush_loop(g, s, from, to, g->K, false, true);
}

static int flush_all(cgprop_graph *g, stack_scratch *s)
{
    return s->prev_len > 1 ? flush_range(g, s, 0, s->prev_len - 1) : CGPROP_OK;
}

/* Deferral ends: every pair owed is flushed, and the calls made since it
 * began, each of which came from a stack taken (a stack refused takes its
 * calls back), are marked as having a cost, as their flushes would have. */
static int defer_end(cgprop_graph *g, stack_scratch *s)
{
    int rc = flush_all(g, s);
    if (rc) return rc;
    for (uint32_t e = s->ne0; e < g->ne; e++) g->eflags[e] |= CGPROP__EF_HAS_COST;
    s->defer = false;
    return CGPROP_OK;
}

static void max_into(uint64_t *m, const uint64_t *a, size_t n, uint32_t K)
{
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < K; k++)
            if (a[i * K + k] > m[k]) m[k] = a[i * K + k];
}

int cgprop__stacks_defer(cgprop_graph *g, bool on)
{
    stack_scratch *s = g->stack_scratch;
    if (!on) {
        if (!s || !s->defer) return CGPROP_OK;
        return defer_end(g, s);
    }
    int rc = scratch_reserve(g, 1);
    if (rc) return rc;
    s = g->stack_scratch;
    if (s->defer) return CGPROP_OK;
    uint32_t K = g->K;
    memset(s->tot, 0, sizeof s->tot);
    memset(s->m0, 0, sizeof s->m0);
    max_into(s->m0, g->self, g->nn, K);
    max_into(s->m0, g->spont_cost, g->nn, K);
    max_into(s->m0, g->ecost, g->ne, K);
    s->dmax = 1;
    s->ne0 = g->ne;
    s->lim_d = 0;
    s->prev_len = 0;
    s->defer = true;
    return CGPROP_OK;
}

/* One stack in deferred mode. Declines (taken false, nothing changed) when
 * its weight could let a sum overflow: then every pair owed is flushed and
 * this stack and all after it take the checked path. */
static int add_deferred(cgprop_graph *g, stack_scratch *s, const uint32_t *frames, size_t depth, size_t p,
                        const uint64_t *w, bool *taken)
{
    uint32_t K = g->K;
    size_t dmax = depth > s->dmax ? depth : s->dmax;
    *taken = false;
    if (s->lim_d != dmax) {
        for (uint32_t k = 0; k < K; k++) s->lim[k] = (UINT64_MAX - s->m0[k]) / dmax;
        s->lim_d = dmax;
    }
    for (uint32_t k = 0; k < K; k++) {
        uint64_t t = s->tot[k] + w[k];
        if (t < w[k] || t > s->lim[k]) {
            int rc = defer_end(g, s);
            if (rc) return cgprop__err(g, rc, "add_stack: out of memory");
            return CGPROP_OK;
        }
    }
    if (s->dcap < s->cap) {
        uint64_t *b = cgprop__realloc(g, s->base, s->cap * K, sizeof *b);
        if (!b) return cgprop__err(g, CGPROP_ENOMEM, "add_stack: out of memory");
        s->base = b;
        uint32_t *c = cgprop__realloc(g, s->pcls, s->cap, sizeof *c);
        if (!c) return cgprop__err(g, CGPROP_ENOMEM, "add_stack: out of memory");
        s->pcls = c;
        s->dcap = s->cap;
    }
    *taken = true;

    /* Pairs from q on change: what they owe goes to their calls now. */
    size_t q = p ? p - 1 : 0, flushed = s->prev_len > q + 1 ? s->prev_len - 1 : q;
    int rc = flushed > q ? flush_range(g, s, q, flushed) : CGPROP_OK;
    if (rc) return cgprop__err(g, rc, "add_stack: out of memory");
    /* Until this stack is in, only its shared prefix is cached. */
    s->prev_len = p;

    bool nonzero = false;
    for (uint32_t k = 0; k < K; k++) nonzero = nonzero || w[k];
    /* The leaf's level >= 2 self cost is kept apart (g->dself); a row of
     * zeros is no row, so making it before the calls changes nothing seen. */
    uint64_t *dself = NULL;
    if (nonzero && s->lv[depth - 1] >= 2 &&
        (rc = cgprop__sparse_make(g, &g->dself, frames[depth - 1], K, &dself)))
        return cgprop__err(g, rc, "add_stack: out of memory; nothing was added");
    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    /* Each new pair's call found, or made at once (one probe, not a look-up
     * and then another to insert). A call made by this stack (id from ne0
     * on, a pair the stack repeats among them) gets ready for its class as
     * it would if it had been missing; the others are prepared when their
     * cost arrives (flush_range). */
    for (size_t i = q; i + 1 < depth; i++) {
        uint32_t e;
        uint32_t c = class_of(s, i);
        /* Written at once: pairs from q on are not in the cached stack
         * until this one is in, so a failure leaves nothing wrong. */
        s->pcls[i] = c;
        rc = cgprop__edge_get_or_add(g, frames[i], frames[i + 1], &e);
        if (!rc && e >= t.ne0) {
            /* A call this stack made has no cost yet: the first class
             * below level 2 puts it in compact form for that class, which
             * is all cgprop__ecls_prepare would do. */
            if (nonzero && c < CGPROP__NCLS && !g->ecls_ref[e]) g->ecls_ref[e] = c + 1;
            else rc = cgprop__ecls_prepare(g, e, (int)c, nonzero);
        }
        if (rc) {
            cgprop__txn_rollback(g, &t);
            return cgprop__err(g, rc, "add_stack: %s; nothing was added",
                               rc == CGPROP_ENOMEM ? "out of memory" : "the number of calls would overflow");
        }
        s->eid[i] = e;
    }
    /* The calling context, when kept, last: its failure drops the calls. */
    if ((rc = cgprop__ctx_stack(g, frames, depth, w))) {
        cgprop__txn_rollback(g, &t);
        return cgprop__err(g, rc, "add_stack: %s; nothing was added",
                           rc == CGPROP_ENOMEM ? "out of memory" : "a context's cost would overflow");
    }
    /* The pairs flushed above hold tot as their base already. K is small:
     * a loop, not a call to memcpy per pair. */
    if (K == 1) {
        /* The usual case: one fill the compiler vectorises. */
        uint64_t t0 = s->tot[0], *b = s->base;
        for (size_t i = flushed; i + 1 < depth; i++) b[i] = t0;
    } else if (K == 2) {
        /* Go's CPU profiles (samples and nanoseconds): the general loop's
         * per-pair inner loop cost more than the stores. */
        uint64_t t0 = s->tot[0], t1 = s->tot[1], *b = s->base;
        for (size_t i = flushed; i + 1 < depth; i++) {
            b[2 * i] = t0;
            b[2 * i + 1] = t1;
        }
    } else {
        for (size_t i = flushed; i + 1 < depth; i++)
            for (uint32_t k = 0; k < K; k++) s->base[i * K + k] = s->tot[k];
    }
    /* Nothing can fail from here on, and the bound above says no sum
     * overflows. */
    uint32_t leaf = frames[depth - 1];
    cgprop__add(g->spont_cost + (size_t)frames[0] * K, w, K);
    cgprop__add(g->self + (size_t)leaf * K, w, K);
    cgprop__add((s->lv[depth - 1] ? g->self_r : g->self_n) + (size_t)leaf * K, w, K);
    if (dself) cgprop__add(dself, w, K);
    for (uint32_t k = 0; k < K; k++) s->tot[k] += w[k];
    s->dmax = dmax;
    g->nflags[frames[0]] |= CGPROP__NF_SPONT;
    if (depth >= 2) g->any_cost = true;
    g->has_classes = true;
    if (depth >= CGPROP__DEEP_STACK) g->nflags[frames[0]] |= CGPROP__NF_DEEP_ROOT;
    s->prev_len = depth;
    cgprop__mutated(g);
    return cgprop__ok(g);
}

/* Level classes of frames[0..depth) into s->lv. The frames of the prefix
 * shared with the previous stack keep theirs: a frame's level depends only
 * on the frames above it. Returns the length of that prefix. The cached
 * stack lvs[0..prev_len) is always a prefix of the previous stack given
 * (it is that stack when it was added, a part of it or nothing when not),
 * so the prefix it shares with this one is at most prev_len of these. */
static size_t set_levels(stack_scratch *s, const uint32_t *frames, size_t depth, size_t known)
{
    uint32_t *act = s->active, *lvs = s->lvs;
    uint8_t *lv = s->lv;
    size_t lim = s->lvlen < depth ? s->lvlen : depth, p = known < lim ? known : lim;
    /* Four frames a step: the prefix is most of a deep stack. */
    for (; p + 4 <= lim; p += 4) {
        uint64_t a[2], b[2];
        memcpy(a, lvs + p, sizeof a);
        memcpy(b, frames + p, sizeof b);
        if ((a[0] ^ b[0]) | (a[1] ^ b[1])) break;
    }
    while (p < lim && lvs[p] == frames[p]) p++;
    for (size_t i = s->lvlen; i-- > p;) act[lvs[i]]--;
    if (depth >= UINT32_MAX) {
        /* A count could wrap: counted up to 2 only, then all set to zero
         * again, and no stack is kept. */
        for (size_t i = p; i-- > 0;) act[lvs[i]]--;
        for (size_t i = 0; i < depth; i++) {
            uint32_t c = act[frames[i]];
            lv[i] = (uint8_t)c;
            if (c < 2) act[frames[i]] = c + 1;
        }
        for (size_t i = 0; i < depth; i++) act[frames[i]] = 0;
        s->lvlen = s->prev_len = 0;
        return 0;
    }
    for (size_t i = p; i < depth; i++) {
        uint32_t f = frames[i], c = act[f];
        lv[i] = (uint8_t)(c < 2 ? c : 2);
        act[f] = c + 1;
        lvs[i] = f;
    }
    s->lvlen = depth;
    return p;
}

static int add_stack(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *weights, size_t known);

int cgprop_graph_add_stack(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *weights)
{
    if (!g) return CGPROP_EINVAL;
    if (!frames || !weights) return cgprop__err(g, CGPROP_EINVAL, "add_stack: NULL argument");
    if (depth < 1) return cgprop__err(g, CGPROP_EINVAL, "add_stack: empty stack");
    uint32_t nn = g->nn, top = 0;
    /* The largest id first (a loop the compiler vectorises), the culprit
     * only when there is one. */
    for (size_t i = 0; i < depth; i++) top = frames[i] > top ? frames[i] : top;
    for (size_t i = 0; top >= nn && i < depth; i++)
        if (frames[i] >= nn)
            return cgprop__err(g, CGPROP_EINVAL, "add_stack: frame %zu: function id %u out of range (%u functions)",
                               i, frames[i], nn);
    return add_stack(g, frames, depth, weights, 0);
}

/* A reader's stack: its ids come from the graph (no range check), and it
 * knows that its first `known` frames are the previous stack's, which need
 * no compare. */
int cgprop__add_stack_known(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *weights,
                            size_t known)
{
    return add_stack(g, frames, depth, weights, known);
}

static int add_stack(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *weights, size_t known)
{
    uint32_t K = g->K;
    /* Allocations that leave no visible trace come first. */
    int rc = scratch_reserve(g, depth);
    if (rc) return cgprop__err(g, rc, "add_stack: out of memory");
    stack_scratch *s = g->stack_scratch;

    /* A sampled graph's root may turn out to have lost its outer frames:
     * what every stack of it shows is kept (cgprop__stacks_common). */
    common_set *cs = NULL;
    /* Counts of a stack this deep need the top bit common_update borrows. */
    if (g->sampled && depth >= 0x80000000u) g->common_off = true;
    if (g->sampled && !g->common_off && (rc = common_reserve(g, s, frames[0], depth, &cs)))
        return cgprop__err(g, rc, "add_stack: out of memory");

    size_t shared = set_levels(s, frames, depth, known);
    if (shared > s->prev_len) shared = s->prev_len;
    uint8_t *lv = s->lv;
    if (cs) common_update(s, cs, frames, depth, shared);

    if (s->defer) {
        bool taken;
        rc = add_deferred(g, s, frames, depth, shared, weights, &taken);
        if (rc || taken) return rc;
    }

    /* Call ids: pairs inside the prefix shared with the previous stack are
     * known; look up the others. */
    size_t p = shared, nmissing = 0;
    for (size_t i = p ? p - 1 : 0; i + 1 < depth; i++) {
        uint32_t e = cgprop__edge_lookup(g, frames[i], frames[i + 1]);
        s->eid[i] = e;
        nmissing += e == MISSING;
    }
    /* Until this stack succeeds the cache may hold MISSING ids. */
    s->prev_len = 0;
    /* Every existing call gets ready for its class (other calls may have
     * changed the form of the prefix's calls since the previous stack). */
    bool nonzero = false;
    for (uint32_t k = 0; k < K; k++) nonzero = nonzero || weights[k];
    for (size_t i = 0; i + 1 < depth; i++) {
        uint32_t e = s->eid[i];
        s->drow[i] = 0;
        if (e == MISSING || !nonzero || !needs_prepare(g, s, i, e)) continue;
        rc = cgprop__ecls_prepare(g, e, (int)class_of(s, i), true);
        if (rc) return cgprop__err(g, rc, "add_stack: out of memory; nothing was added");
        if (s->lv[i] >= 2) s->drow[i] = cgprop__sparse_find(&g->dcall, e);
    }
    /* The leaf's level >= 2 self cost is kept apart (g->dself). */
    uint64_t *dself = NULL;
    if (nonzero && lv[depth - 1] >= 2 &&
        (rc = cgprop__sparse_make(g, &g->dself, frames[depth - 1], K, &dself)))
        return cgprop__err(g, rc, "add_stack: out of memory; nothing was added");

    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    if (!add_existing(g, s, frames, depth, weights))
        return cgprop__err(g, CGPROP_EOVERFLOW, "add_stack: a cost would overflow; nothing was added");
    if (nmissing) {
        if ((uint64_t)g->ne + nmissing > UINT32_MAX - 1) rc = CGPROP_EOVERFLOW;
        else rc = check_missing(g, s, frames, depth, weights, nmissing);
        /* Creating calls can fail half way: the costs added above are taken
         * back, then the calls made so far dropped. */
        for (size_t i = 0; !rc && i + 1 < depth; i++) {
            uint32_t e;
            if (s->eid[i] != MISSING) continue;
            rc = cgprop__edge_get_or_add(g, frames[i], frames[i + 1], &e);
            /* No cost has reached the new calls yet. */
            if (!rc) rc = cgprop__ecls_prepare(g, e, (int)class_of(s, i), nonzero);
        }
        if (rc) {
            undo(g, s, frames, depth, weights, depth - 1);
            cgprop__txn_rollback(g, &t);
            return cgprop__err(g, rc, "add_stack: %s; nothing was added",
                               rc == CGPROP_ENOMEM ? "out of memory" : "a cost or the number of calls would overflow");
        }
        /* check_missing showed these sums fit in the new calls. */
        for (size_t i = 0; i + 1 < depth; i++) {
            if (s->eid[i] != MISSING) continue;
            uint32_t e = cgprop__edge_lookup(g, frames[i], frames[i + 1]);
            s->eid[i] = e;
            s->drow[i] = nonzero && s->lv[i] >= 2 ? cgprop__sparse_find(&g->dcall, e) : 0;
            add_to_call(g, s, i, e, weights);
        }
    }

    /* The calling context, when kept, last: its failure undoes the rest. */
    if ((rc = cgprop__ctx_stack(g, frames, depth, weights))) {
        undo(g, s, frames, depth, weights, depth - 1);
        cgprop__txn_rollback(g, &t);
        return cgprop__err(g, rc, "add_stack: %s; nothing was added",
                           rc == CGPROP_ENOMEM ? "out of memory" : "a context's cost would overflow");
    }

    /* Nothing can fail from here on. */
    uint32_t leaf = frames[depth - 1];
    cgprop__add((lv[depth - 1] ? g->self_r : g->self_n) + (size_t)leaf * K, weights, K);
    if (dself) cgprop__add(dself, weights, K);
    g->nflags[frames[0]] |= CGPROP__NF_SPONT;
    /* Calls of the shared prefix got HAS_COST from the previous stack. */
    for (size_t i = p ? p - 1 : 0; i + 1 < depth; i++) g->eflags[s->eid[i]] |= CGPROP__EF_HAS_COST;
    if (depth >= 2) g->any_cost = true;
    g->has_classes = true;
    if (depth >= CGPROP__DEEP_STACK) g->nflags[frames[0]] |= CGPROP__NF_DEEP_ROOT;
    s->prev_len = depth;
    cgprop__mutated(g);
    return cgprop__ok(g);
}
