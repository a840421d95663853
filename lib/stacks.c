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

#define MISSING UINT32_MAX

typedef struct stack_scratch {
    /* Per-function count of frames seen so far in the current stack,
     * saturating at 2: the split only tells levels 0, 1 and ≥ 2 apart. All
     * zero between calls. */
    uint8_t *active;
    size_t active_cap;
    /* Per frame of the current stack: level class 0, 1, 2 (= ≥ 2). */
    uint8_t *lv;
    /* The previous successful stack and the call id of each of its pairs
     * (pair i joins frames i and i+1); prev_len 0 when nothing is cached. */
    uint32_t *prev;
    uint32_t *eid;
    size_t cap, prev_len;
    /* Keys of pairs whose call does not exist yet (rare: only new calls). */
    uint64_t *keys;
    size_t keys_cap;
} stack_scratch;

void cgprop__stacks_free(cgprop_graph *g)
{
    stack_scratch *s = g->stack_scratch;
    if (!s) return;
    cgprop__free(g, s->active);
    cgprop__free(g, s->lv);
    cgprop__free(g, s->prev);
    cgprop__free(g, s->eid);
    cgprop__free(g, s->keys);
    cgprop__free(g, s);
    g->stack_scratch = NULL;
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
        uint8_t *p = cgprop__realloc(g, s->active, want, 1);
        if (!p) return CGPROP_ENOMEM;
        memset(p + s->active_cap, 0, want - s->active_cap);
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
        uint32_t *prev = cgprop__realloc(g, s->prev, want, sizeof *prev);
        if (!prev) return CGPROP_ENOMEM;
        s->prev = prev;
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

static uint32_t class_of(const stack_scratch *s, size_t i)
{
    return cgprop__cls(s->lv[i] ? 1u : 0u, s->lv[i + 1]);
}

/* The stored class bucket pair i adds to, NULL when the call keeps its
 * buckets in compact form (the usual case: one class per call). */
static uint64_t *bucket_of(const cgprop_graph *g, const stack_scratch *s, size_t i, uint32_t e)
{
    return cgprop__ecls_bucket(g, e, class_of(s, i), NULL);
}

static void add_to_call(cgprop_graph *g, const stack_scratch *s, size_t i, uint32_t e, const uint64_t *w)
{
    cgprop__add(g->ecost + (size_t)e * g->K, w, g->K);
    uint64_t *b = bucket_of(g, s, i, e);
    if (b) cgprop__add(b, w, g->K);
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

int cgprop_graph_add_stack(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *weights)
{
    if (!g) return CGPROP_EINVAL;
    if (!frames || !weights) return cgprop__err(g, CGPROP_EINVAL, "add_stack: NULL argument");
    if (depth < 1) return cgprop__err(g, CGPROP_EINVAL, "add_stack: empty stack");
    uint32_t nn = g->nn, K = g->K;
    for (size_t i = 0; i < depth; i++)
        if (frames[i] >= nn)
            return cgprop__err(g, CGPROP_EINVAL, "add_stack: frame %zu: function id %u out of range (%u functions)",
                               i, frames[i], nn);

    /* Allocations that leave no visible trace come first. */
    int rc = scratch_reserve(g, depth);
    if (rc) return cgprop__err(g, rc, "add_stack: out of memory");
    stack_scratch *s = g->stack_scratch;

    /* Level classes, then leave `active` all zero again. */
    uint8_t *act = s->active, *lv = s->lv;
    for (size_t i = 0; i < depth; i++) {
        uint8_t c = act[frames[i]];
        lv[i] = c;
        if (c < 2) act[frames[i]] = (uint8_t)(c + 1);
    }
    for (size_t i = 0; i < depth; i++) act[frames[i]] = 0;

    /* Call ids: pairs inside the prefix shared with the previous stack are
     * known; look up the others. */
    size_t p = 0, lim = s->prev_len < depth ? s->prev_len : depth;
    while (p < lim && s->prev[p] == frames[p]) p++;
    size_t nmissing = 0;
    for (size_t i = p ? p - 1 : 0; i + 1 < depth; i++) {
        uint32_t e = cgprop__edge_lookup(g, frames[i], frames[i + 1]);
        s->eid[i] = e;
        nmissing += e == MISSING;
    }
    memcpy(s->prev + p, frames + p, (depth - p) * sizeof *frames);
    /* Until this stack succeeds the cache may hold MISSING ids. */
    s->prev_len = 0;
    /* Every existing call gets ready for its class (other calls may have
     * changed the form of the prefix's calls since the previous stack). */
    bool nonzero = false;
    for (uint32_t k = 0; k < K; k++) nonzero = nonzero || weights[k];
    for (size_t i = 0; nonzero && i + 1 < depth; i++) {
        uint32_t e = s->eid[i];
        if (e == MISSING) continue;
        uint32_t ref = g->ecls_ref[e], c = class_of(s, i);
        if (ref == c + 1 || ref >= CGPROP__ECLS_BLK) continue;
        rc = cgprop__ecls_prepare(g, e, (int)c, true);
        if (rc) return cgprop__err(g, rc, "add_stack: out of memory; nothing was added");
    }

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
    g->nflags[frames[0]] |= CGPROP__NF_SPONT;
    /* Calls of the shared prefix got HAS_COST from the previous stack. */
    for (size_t i = p ? p - 1 : 0; i + 1 < depth; i++) g->eflags[s->eid[i]] |= CGPROP__EF_HAS_COST;
    if (depth >= 2) g->any_cost = true;
    g->has_classes = true;
    s->prev_len = depth;
    cgprop__mutated(g);
    return cgprop__ok(g);
}
