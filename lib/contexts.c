/* The calling-context store: a trie of (parent context, function) with the
 * costs that end in each context. Kept beside the function/call store when
 * asked for (cgprop_graph_keep_contexts), fed by add_stack, the recorder
 * and merge, and dropped back by the store's transaction path.
 *
 * The index is a chained hash whose chains run newest first: a context is
 * always pushed at the head of its chain, and growing rebuilds the chains in
 * id order, so dropping the newest contexts (truncate) pops heads only. */
#include "contexts.h"

#include <string.h>

static uint32_t bucket(uint32_t parent, uint32_t node, uint32_t hcap)
{
    uint64_t h = ((uint64_t)parent << 32 | node) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)((h ^ (h >> 29)) >> 32) & (hcap - 1);
}

uint32_t cgprop__ctx_count(const cgprop_graph *g)
{
    const cgprop__ctx *c = cgprop__ctx_of(g);
    return c ? c->n : 0;
}

void cgprop__ctx_free(cgprop_graph *g)
{
    cgprop__ctx *c = g->ctx;
    if (!c) return;
    cgprop__free(g, c->parent);
    cgprop__free(g, c->node);
    cgprop__free(g, c->next);
    cgprop__free(g, c->self);
    cgprop__free(g, c->head);
    cgprop__free(g, c->pframe);
    cgprop__free(g, c->pctx);
    cgprop__free(g, c);
    g->ctx = NULL;
}

/* Room for one more context: arrays first (each committed as it moves, the
 * capacity once all did), then the index, rebuilt into a new bucket array. */
static int reserve_one(cgprop_graph *g, cgprop__ctx *c)
{
    if (c->n >= UINT32_MAX - 1) return CGPROP_EOVERFLOW;
    if (c->n == c->cap) {
        uint32_t want = c->cap ? (c->cap > UINT32_MAX / 2 ? UINT32_MAX - 1 : c->cap * 2) : 64;
        uint32_t *p = cgprop__realloc(g, c->parent, want, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        c->parent = p;
        p = cgprop__realloc(g, c->node, want, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        c->node = p;
        p = cgprop__realloc(g, c->next, want, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        c->next = p;
        uint64_t *s = cgprop__realloc(g, c->self, (size_t)want * g->K, sizeof *s);
        if (!s) return CGPROP_ENOMEM;
        c->self = s;
        c->cap = want;
    }
    if (c->n >= c->hcap && c->hcap <= UINT32_MAX / 2) {
        uint32_t hcap = c->hcap ? c->hcap * 2 : 64;
        uint32_t *h = cgprop__alloc(g, hcap, sizeof *h);
        if (!h) return CGPROP_ENOMEM;
        memset(h, 0xFF, (size_t)hcap * sizeof *h);
        for (uint32_t i = 0; i < c->n; i++) {
            uint32_t b = bucket(c->parent[i], c->node[i], hcap);
            c->next[i] = h[b];
            h[b] = i;
        }
        cgprop__free(g, c->head);
        c->head = h;
        c->hcap = hcap;
    }
    return CGPROP_OK;
}

int cgprop__ctx_child(cgprop_graph *g, uint32_t parent, uint32_t node, uint32_t *out)
{
    cgprop__ctx *c = g->ctx;
    if (c->hcap) {
        for (uint32_t i = c->head[bucket(parent, node, c->hcap)]; i != CGPROP_NONE; i = c->next[i])
            if (c->node[i] == node && c->parent[i] == parent) {
                *out = i;
                return CGPROP_OK;
            }
    }
    int rc = reserve_one(g, c);
    if (rc) return rc;
    uint32_t i = c->n++, b = bucket(parent, node, c->hcap);
    c->parent[i] = parent;
    c->node[i] = node;
    memset(c->self + (size_t)i * g->K, 0, g->K * sizeof *c->self);
    c->next[i] = c->head[b];
    c->head[b] = i;
    *out = i;
    return CGPROP_OK;
}

void cgprop__ctx_truncate(cgprop_graph *g, uint32_t n0)
{
    cgprop__ctx *c = g->ctx;
    if (!c || c->n <= n0) return;
    while (c->n > n0) {
        uint32_t i = --c->n;
        c->head[bucket(c->parent[i], c->node[i], c->hcap)] = c->next[i];
    }
    c->plen = 0;
}

int cgprop__ctx_stack(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *w)
{
    cgprop__ctx *c = g->ctx;
    if (!c) return CGPROP_OK;
    if (c->pcap < depth) {
        size_t want = c->pcap ? c->pcap : 64;
        while (want < depth) {
            if (want > SIZE_MAX / 8) return CGPROP_ENOMEM;
            want *= 2;
        }
        uint32_t *f = cgprop__realloc(g, c->pframe, want, sizeof *f);
        if (!f) return CGPROP_ENOMEM;
        c->pframe = f;
        uint32_t *x = cgprop__realloc(g, c->pctx, want, sizeof *x);
        if (!x) return CGPROP_ENOMEM;
        c->pctx = x;
        c->pcap = want;
    }
    const uint32_t n0 = c->n;
    size_t p = 0, lim = c->plen < depth ? c->plen : depth;
    while (p < lim && c->pframe[p] == frames[p]) p++;
    c->plen = 0; /* until this stack is in */
    uint32_t at = p ? c->pctx[p - 1] : CGPROP_NONE;
    for (size_t i = p; i < depth; i++) {
        int rc = cgprop__ctx_child(g, at, frames[i], &at);
        if (rc) {
            cgprop__ctx_truncate(g, n0);
            return rc;
        }
        c->pframe[i] = frames[i];
        c->pctx[i] = at;
    }
    uint64_t *s = c->self + (size_t)at * g->K;
    if (!cgprop__can_add(s, w, g->K)) {
        cgprop__ctx_truncate(g, n0);
        return CGPROP_EOVERFLOW;
    }
    cgprop__add(s, w, g->K);
    c->plen = depth;
    return CGPROP_OK;
}

int cgprop__ctx_merge_prepare(cgprop_graph *dst, const cgprop_graph *src, const uint32_t *map, uint32_t **cmap)
{
    const cgprop__ctx *s = cgprop__ctx_of(src);
    *cmap = NULL;
    if (!dst->ctx) return CGPROP_OK; /* dst does not keep contexts: nothing to keep */
    if (!s) return src->nn ? CGPROP_ESTATE : CGPROP_OK;
    if (!s->n) return CGPROP_OK;
    uint32_t *m = cgprop__alloc(dst, s->n, sizeof *m);
    if (!m) return CGPROP_ENOMEM;
    /* Parents come before their children, so each parent is mapped first. */
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t p = s->parent[i];
        int rc = cgprop__ctx_child(dst, p == CGPROP_NONE ? CGPROP_NONE : m[p], map[s->node[i]], &m[i]);
        if (rc) {
            cgprop__free(dst, m);
            return rc;
        }
    }
    *cmap = m;
    return CGPROP_OK;
}

bool cgprop__ctx_merge_fits(const cgprop_graph *dst, const cgprop_graph *src, const uint32_t *cmap)
{
    const cgprop__ctx *s = cgprop__ctx_of(src), *d = cgprop__ctx_of(dst);
    if (!cmap) return true;
    /* Contexts are unique in src, so each dst context receives from one. */
    for (uint32_t i = 0; i < s->n; i++)
        if (!cgprop__can_add(d->self + (size_t)cmap[i] * dst->K, s->self + (size_t)i * src->K, src->K)) return false;
    return true;
}

void cgprop__ctx_merge_add(cgprop_graph *dst, const cgprop_graph *src, uint32_t *cmap)
{
    const cgprop__ctx *s = cgprop__ctx_of(src);
    cgprop__ctx *d = dst->ctx;
    if (!cmap) return;
    for (uint32_t i = 0; i < s->n; i++) cgprop__add(d->self + (size_t)cmap[i] * dst->K, s->self + (size_t)i * src->K, src->K);
    d->plen = 0;
    cgprop__free(dst, cmap);
}

int cgprop__ctx_rec_enter(cgprop_graph *g, uint32_t parent, uint32_t node, uint32_t *cx, uint64_t **pend,
                          uint32_t *pcap)
{
    if (!g->ctx) {
        /* The graph stopped keeping contexts: every activation goes to one
         * slot that flush never adds anywhere. */
        if (!*pcap) {
            uint64_t *p = cgprop__calloc(g, g->K, sizeof *p);
            if (!p) return cgprop__err(g, CGPROP_ENOMEM, "recorder_enter: out of memory");
            *pend = p;
            *pcap = 1;
        }
        *cx = 0;
        return CGPROP_OK;
    }
    int rc = cgprop__ctx_child(g, parent, node, cx);
    if (rc) return cgprop__err(g, rc, "recorder_enter: %s", rc == CGPROP_ENOMEM ? "out of memory" : "too many contexts");
    if (*cx >= *pcap) {
        uint32_t want = g->ctx->cap;
        uint64_t *p = cgprop__realloc(g, *pend, (size_t)want * g->K, sizeof *p);
        if (!p) return cgprop__err(g, CGPROP_ENOMEM, "recorder_enter: out of memory");
        memset(p + (size_t)*pcap * g->K, 0, (size_t)(want - *pcap) * g->K * sizeof *p);
        *pend = p;
        *pcap = want;
    }
    return CGPROP_OK;
}

bool cgprop__ctx_pending(cgprop_graph *g, uint64_t *pend, uint32_t pcap, bool apply)
{
    cgprop__ctx *c = g->ctx;
    if (!c) return true; /* the graph stopped keeping them: nothing to add */
    uint32_t n = pcap < c->n ? pcap : c->n;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t *s = c->self + (size_t)i * g->K, *p = pend + (size_t)i * g->K;
        if (!apply) {
            if (!cgprop__can_add(s, p, g->K)) return false;
            continue;
        }
        cgprop__add(s, p, g->K);
        memset(p, 0, g->K * sizeof *p);
    }
    return true;
}

/* ---- public ---- */

int cgprop_graph_keep_contexts(cgprop_graph *g, int on)
{
    if (!g) return CGPROP_EINVAL;
    if (!on) {
        cgprop__ctx_free(g);
        return cgprop__ok(g);
    }
    if (g->ctx) return cgprop__ok(g);
    /* Contexts added later would miss the costs already there. */
    bool any = g->ne != 0;
    for (uint32_t v = 0; v < g->nn && !any; v++)
        any = (g->nflags[v] & (CGPROP__NF_SPONT | CGPROP__NF_STATED)) != 0 ||
              memcmp(g->self + (size_t)v * g->K, cgprop__zeros, g->K * sizeof(uint64_t)) != 0;
    if (any)
        return cgprop__err(g, CGPROP_ESTATE,
                           "keep_contexts: the graph already holds costs; keep contexts before adding any");
    cgprop__ctx *c = cgprop__calloc(g, 1, sizeof *c);
    if (!c) return cgprop__err(g, CGPROP_ENOMEM, "keep_contexts: out of memory");
    g->ctx = c;
    return cgprop__ok(g);
}

size_t cgprop_graph_context_count(const cgprop_graph *g) { return g ? cgprop__ctx_count(g) : 0; }
