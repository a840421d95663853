/* Private: the graph store. Analyses read these fields directly; only graph.c
 * (and stacks.c, through the helpers below) writes them. */
#ifndef CGPROP_GRAPH_H
#define CGPROP_GRAPH_H

#include "cgprop.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Node flag bits (g->nflags). */
enum {
    CGPROP__NF_SELF_UNCLASSIFIED = 1u << 0, /* some self cost came without a class */
    CGPROP__NF_SPONT = 1u << 1,             /* has spontaneous entries (even of weight 0) */
    CGPROP__NF_SELF_CALL = 1u << 2,         /* has an f->f call */
    CGPROP__NF_HAS_CALLER = 1u << 3         /* has a call from another function */
};

/* Edge flag bits (g->eflags). */
enum {
    CGPROP__EF_HAS_COST = 1u << 0,     /* some addition carried costs */
    CGPROP__EF_UNCLASSIFIED = 1u << 1, /* some cost came without classes */
    CGPROP__EF_LUMPED = 1u << 2        /* some cost went to callee class "level >= 1, lumped" */
};

/* Per-edge class buckets: caller class (0 = level 0, 1 = level >= 1) times
 * callee class (cgprop_level 0..3). */
#define CGPROP__NCLS 8
static inline uint32_t cgprop__cls(uint32_t caller_rec, uint32_t callee_level)
{
    return caller_rec * 4u + callee_level;
}

/* Which analysis an aserial[] slot belongs to. */
enum { CGPROP__A_CYCLES, CGPROP__A_COLLAPSE, CGPROP__A_PROPAGATE, CGPROP__A_SPLIT, CGPROP__A_COUNT };

/* Compressed adjacency, rebuilt on demand when the generation moved. Edge ids
 * in each node's slice are ascending. */
typedef struct cgprop__adj {
    uint64_t gen;
    uint32_t *out_off; /* nn + 1 */
    uint32_t *out_e;   /* ne */
    uint32_t *in_off;  /* nn + 1 */
    uint32_t *in_e;    /* ne */
} cgprop__adj;

struct cgprop_graph {
    cgprop_allocator a;
    uint32_t K;
    char **mname;
    size_t *mlen;

    uint64_t gen;                       /* bumped by every successful mutation */
    uint64_t aserial[CGPROP__A_COUNT];  /* bumped by every run of each analysis */
    char err[512];

    /* functions */
    uint32_t nn, ncap;
    char **key_ptr;     /* NUL-terminated copies, in blocks that never move */
    uint32_t *key_len;  /* keys of 4 GiB or more are refused */
    char **kblocks;     /* key blocks; only the last one is being filled */
    size_t nkblocks, kblocks_cap;
    size_t kblock_used, kblock_size; /* fill and size of the last block */
    uint32_t *nhash;    /* open addressing, id + 1, 0 = empty */
    uint32_t nhash_cap; /* power of two */
    uint64_t *self;     /* nn * K */
    uint64_t *self_n;   /* nn * K, S_n */
    uint64_t *self_r;   /* nn * K, S_r */
    uint64_t *spont_cnt;  /* nn */
    uint64_t *spont_cost; /* nn * K */
    uint64_t *calls_in;   /* nn: sum of counts of calls into the node */
    uint32_t *nflags;     /* nn */

    /* calls */
    uint32_t ne, ecap;
    uint32_t *ecaller, *ecallee;
    uint64_t *ecount;   /* ne */
    uint64_t *ecost;    /* ne * K */
    uint32_t *eflags;   /* ne */
    uint64_t *ecls;     /* ne * NCLS * K, NULL until the first classified cost */
    uint64_t *ecls_cnt; /* ne * NCLS, allocated with ecls */
    uint32_t *ehash;
    uint32_t ehash_cap;
    bool has_classes;   /* any classified self or call cost was added */
    bool any_cost;      /* any call has a cost */

    cgprop__adj adj;
    bool adj_valid;

    /* results, owned by their modules (types private to each .c) */
    void *res_cycles;
    void *res_collapse;
    void *res_propagate;
    void *res_split;
    void *stack_scratch; /* owned by stacks.c */
};

/* Record an error message and return code. Never prints. */
int cgprop__err(cgprop_graph *g, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clear the message and return CGPROP_OK. */
int cgprop__ok(cgprop_graph *g);

/* Allocation through the graph's allocator. n * size overflow returns NULL. */
void *cgprop__alloc(const cgprop_graph *g, size_t n, size_t size);
void *cgprop__calloc(const cgprop_graph *g, size_t n, size_t size);
void *cgprop__realloc(const cgprop_graph *g, void *p, size_t n, size_t size);
void cgprop__free(const cgprop_graph *g, void *p);

/* Adjacency for the current generation; NULL (with ENOMEM set) on failure. */
const cgprop__adj *cgprop__get_adj(cgprop_graph *g);

/* Edge lookup without error reporting: UINT32_MAX when absent. */
uint32_t cgprop__edge_lookup(const cgprop_graph *g, uint32_t caller, uint32_t callee);

/* Get or create edge caller->callee without adding anything; for stacks.c.
 * Does not bump the generation. */
int cgprop__edge_get_or_add(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out);

/* Forget calls with ids >= ne0 / functions with ids >= nn0 (calls first):
 * undo for multi-step writers (recorder flush, merge) whose later step failed.
 * Dropping a suffix of the insertion order from a linear-probing table leaves
 * the table the older ids alone would have made. The bytes of dropped keys
 * stay in their block until the graph is freed. */
void cgprop__rollback_edges(cgprop_graph *g, uint32_t ne0);
void cgprop__rollback_nodes(cgprop_graph *g, uint32_t nn0);

/* Make sure the per-class buckets exist (zeroed). */
int cgprop__ensure_classes(cgprop_graph *g);

/* Checked add of K values into dst: false (nothing changed) on overflow. */
static inline bool cgprop__can_add(const uint64_t *dst, const uint64_t *src, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++)
        if (dst[k] > UINT64_MAX - src[k]) return false;
    return true;
}
static inline void cgprop__add(uint64_t *dst, const uint64_t *src, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++) dst[k] += src[k];
}

/* Invalidate results and live iterators after a mutation. */
static inline void cgprop__mutated(cgprop_graph *g) { g->gen++; g->adj_valid = false; }

#endif
