/* Private: the calling-context store (lib/contexts.c). A context is a path
 * from a root: (parent context, function). The store keeps, per context, the
 * cost of the samples (or activations' exclusive costs) whose stack ends
 * there, for every metric; inclusive costs are sums over subtrees. Opt-in
 * (cgprop_graph_keep_contexts): graphs that do not keep contexts pay
 * nothing. Contexts are appended, a child always after its parent, and the
 * store only grows, so a transaction drops what it created by truncating. */
#ifndef CGPROP_CONTEXTS_H
#define CGPROP_CONTEXTS_H

#include "graph.h"

typedef struct cgprop__ctx {
    uint32_t n, cap;
    uint32_t *parent; /* CGPROP_NONE for a root */
    uint32_t *node;
    uint32_t *next;   /* the next context of the same hash bucket, CGPROP_NONE at the end */
    uint64_t *self;   /* cap * K */
    uint32_t *head;   /* hcap buckets, CGPROP_NONE when empty */
    uint32_t hcap;    /* power of two */
    /* The previous stack's frames and their contexts: sorted stack inputs
     * share long prefixes. plen 0 when nothing is cached. */
    uint32_t *pframe, *pctx;
    size_t plen, pcap;
} cgprop__ctx;

/* The store, NULL when the graph keeps no contexts. */
static inline const cgprop__ctx *cgprop__ctx_of(const cgprop_graph *g) { return (const cgprop__ctx *)g->ctx; }

/* The context of node under parent (CGPROP_NONE: a root), created with zero
 * costs when missing. CGPROP_ENOMEM or CGPROP_EOVERFLOW (2^32 - 2 contexts)
 * with nothing created. The store must exist. */
int cgprop__ctx_child(cgprop_graph *g, uint32_t parent, uint32_t node, uint32_t *out);

/* Add a stack's weights to its context, creating the path: all or nothing
 * (CGPROP_ENOMEM, CGPROP_EOVERFLOW; message not set). A no-op without a
 * store. Frames are valid function ids. */
int cgprop__ctx_stack(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *w);

/* Merging: every context of src created in dst (*cmap, allocated here, maps
 * src contexts to dst's; NULL when there is nothing to merge), then checked,
 * then added (cannot fail). map: src function -> dst function. Creation
 * failures are undone by the caller's cgprop__txn_rollback. EINVAL when dst
 * keeps contexts and src keeps none (and has functions). */
int cgprop__ctx_merge_prepare(cgprop_graph *dst, const cgprop_graph *src, const uint32_t *map, uint32_t **cmap);
bool cgprop__ctx_merge_fits(const cgprop_graph *dst, const cgprop_graph *src, const uint32_t *cmap);
void cgprop__ctx_merge_add(cgprop_graph *dst, const cgprop_graph *src, uint32_t *cmap);

/* The recorder's side: the context of an activation of node entered under
 * context parent (CGPROP_NONE: outermost), with room for it in the
 * recorder's pending costs (*pend, *pcap contexts of K each, grown zeroed).
 * CGPROP_ENOMEM / CGPROP_EOVERFLOW with the message set; an unchanged
 * pending array. */
int cgprop__ctx_rec_enter(cgprop_graph *g, uint32_t parent, uint32_t node, uint32_t *cx, uint64_t **pend,
                          uint32_t *pcap);
/* apply false: whether the pending costs fit the contexts' sums. apply true:
 * add them (checked before) and zero them; true. */
bool cgprop__ctx_pending(cgprop_graph *g, uint64_t *pend, uint32_t pcap, bool apply);

/* Drop contexts n0 .. n - 1 (the newest first). */
void cgprop__ctx_truncate(cgprop_graph *g, uint32_t n0);
void cgprop__ctx_free(cgprop_graph *g);

#endif
