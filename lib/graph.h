/* Private: the graph store. Analyses read these fields directly; only graph.c
 * (and stacks.c, through the helpers below) writes them. */
#ifndef CGPROP_GRAPH_H
#define CGPROP_GRAPH_H

#include "cgprop.h"
#include "cgprop_experimental.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/prefetch.h"
#include "util/mem.h"

/* Node flag bits (g->nflags). */
enum {
    CGPROP__NF_SELF_UNCLASSIFIED = 1u << 0, /* some self cost came without a class */
    CGPROP__NF_SPONT = 1u << 1,             /* has spontaneous entries (even of weight 0) */
    CGPROP__NF_SELF_CALL = 1u << 2,         /* has an f->f call */
    CGPROP__NF_HAS_CALLER = 1u << 3,        /* has a call from another function */
    CGPROP__NF_HAS_CALLEE = 1u << 4,        /* has a call to any function (itself included) */
    CGPROP__NF_STATED = 1u << 5,            /* the input stated its inclusive cost (g->stated) */
    CGPROP__NF_DEEP_ROOT = 1u << 6          /* starts a stack of CGPROP__DEEP_STACK frames or more */
};

/* Slots of the run table and most calls in one run (graph.c, edge_common). */
#define CGPROP__RUN_BITS 12
#define CGPROP__RUN_CAP (1u << CGPROP__RUN_BITS)
#define CGPROP__RUN_MAX 2048u
/* New calls held back from the call index, to be written in one batch. */
#define CGPROP__PEND 16u

/* Edge flag bits (g->eflags). */
enum {
    CGPROP__EF_HAS_COST = 1u << 0,     /* some addition carried costs */
    CGPROP__EF_UNCLASSIFIED = 1u << 1, /* some cost came without classes */
    CGPROP__EF_LUMPED = 1u << 2        /* some cost went to callee class "level >= 1, lumped" */
};

/* Per-edge class buckets: caller class (0 = level 0, 1 = level >= 1) times
 * callee class (cgprop_level 0..3). */
#define CGPROP__NCLS 8
/* Versioned option and info structs start with a uint32_t size: the part of
 * the struct the caller was compiled with. Options are read through
 * cgprop__opts_in: dst holds the defaults, the caller's known prefix is
 * copied over them; a size below min (the first published layout), or a
 * larger struct whose unknown tail is not zero, is refused (false).
 * cgprop__size_ok checks an info struct's size before the work starts, and
 * cgprop__info_out copies the library's full result into the caller's
 * prefix, keeping the caller's size. */
bool cgprop__opts_in(void *dst, size_t dst_size, const void *src, size_t min);
bool cgprop__size_ok(const void *p, size_t min);
void cgprop__info_out(void *dst, const void *src, size_t src_size);

/* The class of an addition to a call: caller class (0 = level 0, 1 =
 * level >= 1, 2 = level >= 2, known to be deep) times callee class
 * (cgprop_level 0..3). Classes below CGPROP__NCLS are bucket numbers; a
 * deep caller's class 8 + l adds to bucket 4 + l (caller level >= 1, which
 * the split reads) and to the call's level >= 2 part (g->dcall). */
static inline uint32_t cgprop__cls(uint32_t caller_class, uint32_t callee_level)
{
    return caller_class * 4u + callee_level;
}
#define CGPROP__NCLS_IN 12
static inline uint32_t cgprop__cls_bucket(uint32_t c) { return c >= CGPROP__NCLS ? c - 4u : c; }

/* Rows kept for a few ids only (functions or calls), each of a fixed width
 * of uint64_t values; an id without a row reads as all zeros, and so does
 * a row of zeros, so making or zeroing a row is invisible. */
typedef struct cgprop__sparse {
    uint32_t *slot; /* open addressing: row + 1, 0 = empty */
    uint32_t cap;   /* power of two; 0 before the first row */
    uint32_t *key;  /* per row: its id */
    uint64_t *val;  /* per row: width values */
    uint32_t n, rcap;
} cgprop__sparse;

/* The analyses: one row each, in an order where every analysis comes after
 * those it is built on. A row gives the analysis's slot name, the prefix of
 * its functions (cgprop__<name>_destroy frees its result), the slots its
 * result is built on, whether it takes arguments, and the public call that
 * runs it (for messages). An analysis that takes arguments (collapse's
 * share mode) may give another result when run again on the same graph, so
 * what was built on it goes stale when it runs again; the others give the
 * same result on the same generation, so what was built on them stays
 * current when they run again (the tool runs the split after propagate,
 * which has already run it for the bounds). Adding an analysis: its .c file
 * and one row here. */
#define CGPROP__DEP(NAME) (1u << CGPROP__A_##NAME)
#define CGPROP__ANALYSES(X)                                                                             \
    X(CYCLES, cycles, 0, false, "cgprop_graph_find_cycles")                                            \
    X(COLLAPSE, collapse, CGPROP__DEP(CYCLES), true, "cgprop_graph_collapse")                          \
    X(PROPAGATE, propagate, CGPROP__DEP(COLLAPSE), false, "cgprop_graph_propagate")                    \
    X(SPLIT, split, 0, false, "cgprop_graph_split")                                                    \
    X(BOUNDS, bounds, CGPROP__DEP(PROPAGATE) | CGPROP__DEP(SPLIT), false, "cgprop_graph_propagate")      \
    X(WALK, walk, CGPROP__DEP(BOUNDS), true, "cgprop_graph_propagate")

enum {
#define CGPROP__X(NAME, name, deps, args, call) CGPROP__A_##NAME,
    CGPROP__ANALYSES(CGPROP__X)
#undef CGPROP__X
    CGPROP__A_COUNT
};

/* One analysis's result in the store. */
typedef struct cgprop__slot {
    void *res;        /* owned by the analysis (its type is private to its .c); NULL before a run */
    uint64_t gen;     /* the generation it was built at */
    uint64_t run;     /* bumped by every run that installs a result */
    uint64_t dep_run[CGPROP__A_COUNT]; /* the run of each slot it is built on, when it was built */
} cgprop__slot;

/* Compressed adjacency, rebuilt on demand when the generation moved. Edge ids
 * in each node's slice are ascending. */
typedef struct cgprop__adj {
    uint64_t gen;
    uint32_t *out_off; /* nn + 1 */
    uint32_t *out_e;   /* ne */
    uint32_t *out_v;   /* ne: the callee of out_e[i], so a walk reads no call array */
    uint32_t *in_off;  /* nn + 1 */
    uint32_t *in_e;    /* ne */
} cgprop__adj;

struct cgprop_graph {
    cgprop_allocator a;
    uint32_t K;
    char **mname;
    size_t *mlen;

    uint64_t gen;                       /* bumped by every successful mutation */
    char err[512];

    /* functions */
    uint32_t nn, ncap;
    char **key_ptr;     /* NUL-terminated copies, in blocks that never move */
    uint32_t *key_len;  /* keys of 4 GiB or more are refused */
    char **kblocks;     /* key blocks; only the last one is being filled */
    size_t nkblocks, kblocks_cap;
    size_t kblock_used, kblock_size; /* fill and size of the last block */
    /* Open addressing, 0 = empty; a slot is id + 1 in its low half and the
     * high half of the key's hash in its high half, so a probe passes other
     * keys without reading their length, pointer and bytes (three dependent
     * cache misses each on a large graph). */
    uint64_t *nhash;
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
    /* Class buckets, read through cgprop__ecls_get(). Most calls only ever
     * receive one class (every call of a non-recursive profile is level 0 →
     * level 0), and then the bucket equals the call's plain cost and count,
     * so nothing is stored for it. ecls_ref[e] (ne) says which case holds:
     *   0                      no bucket holds anything;
     *   1 + c (c < NCLS)       every addition that added anything went to
     *                          class c: bucket c is ecost/ecount, the others 0;
     *   CGPROP__ECLS_BLK + b   block b of ecls / ecls_cnt holds all buckets.
     * The representation is not part of the graph's state: changing it
     * (cgprop__ecls_prepare) is invisible. */
    uint32_t *ecls_ref;
    uint64_t *ecls;     /* nblk * NCLS * K */
    uint64_t *ecls_cnt; /* nblk * NCLS */
    uint32_t ecls_nblk, ecls_blkcap;
    /* The level >= 2 parts, for writers that tell callgrind's fn'3 from
     * fn'2 (the split reads level >= 1 as one class): kept only for the
     * functions and calls that have them, as deep recursion is rare.
     *   dself: function -> K: self cost of its level >= 2 activations
     *          (part of self_r);
     *   dcall: call -> 4 x (count, K costs): what calling activations at
     *          level >= 2 added to buckets cgprop__cls(1, l), per callee
     *          class l. */
    cgprop__sparse dself, dcall;
    uint32_t *ehash;    /* open addressing, id + 1, 0 = empty */
    uint32_t ehash_cap;
    /* The last eunidx calls are in no index yet: a bulk addition
     * (cgprop_graph_add_calls) that found them new without the index leaves
     * them out, and the first look-up that needs the index puts them in
     * (graph.c, edge_index_sync), so a graph that is only built and
     * analysed never pays for it, in time or memory. While there are any,
     * no run is on and nothing is held back. Not part of the graph's state. */
    uint32_t eunidx;
    uint64_t clamps;    /* recorder clamps flushed or merged into this graph */
    uint64_t floors;    /* negative compensated figures flushes wrote as 0, merged in too */
    /* On a graph larger than the caches each index probe is a cache miss
     * that nothing can overlap when calls arrive one by one. Calls arrive
     * grouped by caller in real inputs, so (graph.c, edge_lookup_h and
     * edge_insert): while calls of a caller that had none before are added
     * (run_on), all its calls are ids run_e0 .. run_e0 + run_n - 1 and sit
     * in run_tab (by callee); a call not there is new without probing ehash.
     * The last npend of them (ids pend0 .. pend0 + npend - 1) are not in
     * ehash yet: they are written in batches whose misses overlap. A call
     * of another caller, a run of RUN_MAX calls or an undo ends the run and
     * writes its held-back calls. Neither is part of the graph's state. */
    uint32_t pend0, npend;
    bool run_on;
    uint32_t run_caller, run_e0, run_n;
    uint32_t run_tab[CGPROP__RUN_CAP]; /* id + 1, 0 = empty */
    bool has_classes;   /* any classified self or call cost was added */
    /* The stacks came from a sampling profiler's file (perf, pprof, V8),
     * whose sampler cuts stacks at a depth limit: a spontaneous entry is the
     * first frame of stacks, and one into a function that is also called
     * marks stacks that may have lost their outer frames
     * (cgprop__unrooted_root). Stacks given through the API or folded are
     * taken as whole. */
    bool sampled;
    /* The functions every stack of a root shows below it are known no more
     * (a merge mixed two graphs' stacks): no stack cut short is taken off
     * any function's interval for showing it (cgprop__stacks_common). */
    bool common_off;
    /* The weight of stacks cut short that an input stated without saying
     * which functions start them (cgprop's own callgrind files, written
     * from a sampled graph): any function may lack it all. */
    uint64_t unrooted_stated[CGPROP_MAX_METRICS];
    /* What the bounds analysis shows for members bounded by measured calls
     * alone (cgprop_graph_set_estimate): an estimate kind, and the walk's
     * work budget per member (0: none). Settings, not graph state. */
    uint32_t est_mode;
    double walk_budget;
    bool any_cost;      /* any call has a cost */
    /* The call a refused batch (cgprop__add_edges) stopped at, by its index
     * in the batch, and why: a reader turns it into a line number. */
    uint32_t batch_at;
    int batch_why; /* CGPROP__WHY_* */

    /* Inclusive costs an input states itself, per function: a profiler that
     * counts each function once per stack (cProfile's cumtime) has measured
     * what the analyses would otherwise bound. nn * K, allocated by the first
     * cgprop__graph_state_total; only rows with CGPROP__NF_STATED hold a
     * value. stated_cap is the number of functions it has room for. */
    uint64_t *stated;
    uint32_t stated_cap;

    cgprop__adj adj;
    bool adj_valid;

    cgprop__slot slot[CGPROP__A_COUNT]; /* analysis results (analysis.c) */
    /* cgprop__current_mask's last answer, for the generation and the
     * number of installs it was worked out at: every row a writer fills
     * asks for it several times. */
    uint64_t installs;                  /* bumped by cgprop__install */
    uint64_t mask_gen, mask_installs;
    uint32_t mask;
    bool mask_ok;
    void *stack_scratch; /* owned by stacks.c */
    struct cgprop__ctx *ctx; /* calling contexts (contexts.c), NULL unless kept */
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

/* The hash of a (caller, callee) pair; its low bits index g->ehash. */
static inline uint64_t cgprop__hash_pair(uint32_t a, uint32_t b)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

/* Make room for n more calls (arrays and index) ahead of adding them, so
 * that adding a known number of calls grows nothing. Invisible; a failure
 * (CGPROP_ENOMEM) leaves the graph as it was, only with larger arrays. */
int cgprop__reserve_edges(cgprop_graph *g, uint32_t n);
/* The same for the per-call arrays only: the index grows when a look-up
 * needs it (for a reader whose calls are added in bulk and mostly new). */
int cgprop__reserve_edge_arrays(cgprop_graph *g, uint32_t n);
/* The same for n more functions (per-function arrays and key index). */
int cgprop__reserve_nodes(cgprop_graph *g, uint32_t n);

/* Why a batch of calls was refused with EOVERFLOW (cgprop_graph.batch_why). */
enum { CGPROP__WHY_COUNT = 1, CGPROP__WHY_COST = 2, CGPROP__WHY_CALLS_IN = 3 };

/* cls[i] of cgprop__add_edges: the call's cost has no class. */
#define CGPROP__NOCLS 0xFFu

/* Add n calls at once: call i adds count[i] and costs[i * K .. i * K + K - 1]
 * (costs NULL: no costs, as add_edge with NULL) to caller[i] -> callee[i],
 * in class cls[i] (cgprop__cls(); CGPROP__NOCLS, or cls NULL for every
 * call: without class, as add_edge; a class needs costs). The graph ends as
 * n add_edge / add_edge_class calls in that order would leave it, call ids
 * included, but all or nothing: an error (EINVAL for an id or class out of
 * range, EOVERFLOW, ENOMEM) leaves nothing visible changed. Faster than one
 * call at a time for what it knows ahead: memory is reserved once, the
 * arguments checked in one pass, and the misses of each call (its index
 * slot, the call found there, the callee's sums) asked for several calls
 * ahead so that they overlap. For readers and other bulk writers. */
int cgprop__add_edges(cgprop_graph *g, uint32_t n, const uint32_t *caller, const uint32_t *callee,
                      const uint64_t *count, const uint64_t *costs, const uint8_t *cls);

/* Calls written in place: room for n calls past the last, ids ne .. ne + n - 1
 * of every per-call array, where a writer puts callers, callees, counts and
 * costs itself (a reader, as it reads: no copy, no second array to fault in)
 * and then adds them with cgprop__add_staged_edges. Growing keeps what was
 * staged, but moves the arrays: read their addresses from g again after each
 * call. Invisible until added; EOVERFLOW past 2^32 - 2 calls, ENOMEM. */
int cgprop__stage_edges(cgprop_graph *g, uint32_t n);
/* cgprop__add_edges over the n calls staged from id ne on. On an error the
 * staged calls are lost (written over); the graph is as before. */
int cgprop__add_staged_edges(cgprop_graph *g, uint32_t n, const uint8_t *cls);

/* Give metric k (below K) the name name, a valid metric name that no other
 * metric has. Internal: for a reader that learns what its first metric
 * measures only after it made the graph (V8's heap profiles: bytes, not
 * time). ENOMEM leaves the old name. */
int cgprop__graph_rename_metric(cgprop_graph *g, uint32_t k, const char *name);

/* Add costs (K values) to the inclusive cost the input states for node,
 * summed like the other costs (merging two profiles adds them). The bounds
 * then take it as the function's exact inclusive cost. Internal: for readers
 * of profilers that measure it. EINVAL (bad node), EOVERFLOW, ENOMEM; a
 * failure changes nothing. */
int cgprop__graph_state_total(cgprop_graph *g, uint32_t node, const uint64_t *costs);
/* Room in g->stated for every function there is, so that stating cannot fail
 * for want of memory (merge reserves before it adds). ENOMEM, nothing changed. */
int cgprop__stated_reserve(cgprop_graph *g);

/* The out-of-line look-ups behind the two below (any state of the index). */
uint32_t cgprop__edge_lookup_any(const cgprop_graph *g, uint32_t caller, uint32_t callee);
int cgprop__edge_get_or_add_any(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out);
/* Make call caller->callee, which cgprop__edge_probe_fast has just found
 * absent (no second look-up). */
int cgprop__edge_add_absent(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out);

/* Whether call caller->callee can be looked up in the index alone: every
 * call is in it (no bulk tail waiting, no run of this caller held back).
 * Then *out is the call or UINT32_MAX. The stack readers look up a call per
 * new frame; this probe, inline, is most of that. */
static inline bool cgprop__edge_probe_fast(const cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out)
{
    if (g->eunidx || !g->ehash_cap || (g->run_on && g->run_caller == caller)) return false;
    uint64_t mask = g->ehash_cap - 1;
    for (uint64_t i = cgprop__hash_pair(caller, callee) & mask;; i = (i + 1) & mask) {
        uint32_t v = g->ehash[i];
        if (!v) {
            *out = UINT32_MAX;
            return true;
        }
        if (g->ecaller[v - 1] == caller && g->ecallee[v - 1] == callee) {
            *out = v - 1;
            return true;
        }
    }
}

/* Edge lookup without error reporting: UINT32_MAX when absent. */
static inline uint32_t cgprop__edge_lookup(const cgprop_graph *g, uint32_t caller, uint32_t callee)
{
    uint32_t e;
    return cgprop__edge_probe_fast(g, caller, callee, &e) ? e : cgprop__edge_lookup_any(g, caller, callee);
}

/* Get or create edge caller->callee without adding anything; for stacks.c.
 * Does not bump the generation. */
static inline int cgprop__edge_get_or_add(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out)
{
    uint32_t e;
    if (!cgprop__edge_probe_fast(g, caller, callee, &e)) return cgprop__edge_get_or_add_any(g, caller, callee, out);
    if (e == UINT32_MAX) return cgprop__edge_add_absent(g, caller, callee, out);
    *out = e;
    return CGPROP_OK;
}

/* ---- writing all or nothing ----
 *
 * Every writer that can fail half way (the batch and staged calls of the
 * readers, add_stack, merge, the recorder's flush) goes the same way:
 *   begin     cgprop__txn_begin records where the store stands;
 *   check     every sum it will add fits (the cgprop__fits_* rules below),
 *             checked before writing it, or the writer takes back what it
 *             added to older functions and calls itself;
 *   apply     functions and calls are created, sums added;
 *   rollback  on a failure, cgprop__txn_rollback drops what was created
 *             and gives the store back its generation: it is as it was, so
 *             the results and iterators made before stay current (a failed
 *             call changes nothing, the generation included). */
typedef struct cgprop__txn {
    uint32_t nn0, ne0;          /* functions and calls before it */
    uint64_t gen0;
    bool adj0;                  /* the adjacency index was valid */
    bool any_cost0, has_classes0;
    uint32_t nctx0;             /* calling contexts before it (contexts.c) */
} cgprop__txn;

/* The number of calling contexts kept, 0 when none are (contexts.c). */
uint32_t cgprop__ctx_count(const cgprop_graph *g);

static inline void cgprop__txn_begin(const cgprop_graph *g, cgprop__txn *t);
/* Drop the functions and calls created since begin (calls first) and restore
 * the store's flags and generation; sums added to older functions and calls
 * must have been taken back already. */
void cgprop__txn_rollback(cgprop_graph *g, const cgprop__txn *t);

#define CGPROP__ECLS_BLK 16u

/* K zeros, for empty class buckets. */
extern const uint64_t cgprop__zeros[CGPROP_MAX_METRICS];

/* Where bucket c of the call whose ecls_ref is r (>= CGPROP__ECLS_BLK)
 * sits in ecls_cnt, and times K in ecls. */
static inline size_t cgprop__ecls_slot(uint32_t r, uint32_t c)
{
    return (size_t)(r - CGPROP__ECLS_BLK) * CGPROP__NCLS + c;
}

/* Class bucket c of call e: its K costs (borrowed, read-only) and count. */
static inline const uint64_t *cgprop__ecls_get(const cgprop_graph *g, uint32_t e, uint32_t c, uint64_t *count)
{
    uint32_t r = g->ecls_ref[e];
    if (r >= CGPROP__ECLS_BLK) {
        size_t b = cgprop__ecls_slot(r, c);
        *count = g->ecls_cnt[b];
        return g->ecls + b * g->K;
    }
    if (r == c + 1) {
        *count = g->ecount[e];
        return g->ecost + (size_t)e * g->K;
    }
    *count = 0;
    return cgprop__zeros;
}

/* Row number of id in m plus one, 0 when it has none. A row keeps its
 * number (rows are never removed), while m->val moves as rows are made. */
static inline uint32_t cgprop__sparse_find(const cgprop__sparse *m, uint32_t id)
{
    if (!m->n) return 0;
    uint32_t mask = m->cap - 1, i = (uint32_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    for (uint32_t r; (r = m->slot[i]) != 0; i = (i + 1) & mask)
        if (m->key[r - 1] == id) return r;
    return 0;
}
/* Row of id in m (width values), NULL when it has none. */
static inline uint64_t *cgprop__sparse_get(const cgprop__sparse *m, uint32_t id, size_t width)
{
    uint32_t r = cgprop__sparse_find(m, id);
    return r ? m->val + (size_t)(r - 1) * width : NULL;
}
/* Row of id in m, made (zeros) when it has none: CGPROP_ENOMEM, nothing
 * visible changed. */
int cgprop__sparse_make(const cgprop_graph *g, cgprop__sparse *m, uint32_t id, size_t width, uint64_t **out);

static inline size_t cgprop__dcall_width(const cgprop_graph *g) { return 4 * ((size_t)g->K + 1); }
/* Call e's level >= 2 part (see g->dcall), NULL when it has none. */
static inline uint64_t *cgprop__dcall_row(const cgprop_graph *g, uint32_t e)
{
    return cgprop__sparse_get(&g->dcall, e, cgprop__dcall_width(g));
}
/* The graph's stacks come from a sampling profiler (g->sampled). */
void cgprop__graph_mark_sampled(cgprop_graph *g);
/* Add w (K values) to the weight of stacks cut short the input states
 * (g->unrooted_stated), saturating. */
void cgprop__graph_state_unrooted(cgprop_graph *g, const uint64_t *w);

/* No sampler known cuts a stack shorter than this (DTrace's default is 20
 * frames; Go's 32, 64 or 128; gperftools' 64; perf's 127; V8's 255). */
#define CGPROP__DEEP_STACK 20

/* Whether v starts stacks and is called too: a sampler that cuts a stack
 * at its depth limit (Go's 64 frames, perf's 127, V8's 255), or an unwinder
 * that stops early, leaves a stack whose first frame is a function with
 * callers. Its outer frames are unknown, so any function may have been
 * active there: the bounds widen by the weight of such stacks. A complete
 * stack can start in such a function too (a thread entry that is also
 * called): then the interval is wider than it needs to be, never wrong. */
static inline bool cgprop__unrooted_root(const cgprop_graph *g, uint32_t v)
{
    uint32_t f = g->nflags[v];
    /* Called only by itself, v may be a recursive entry (a thread's): only
     * a stack as deep as a sampler's limit makes it suspect. */
    return g->sampled && (f & CGPROP__NF_SPONT) &&
           ((f & CGPROP__NF_HAS_CALLER) || ((f & CGPROP__NF_SELF_CALL) && (f & CGPROP__NF_DEEP_ROOT)));
}

/* Function v's level >= 2 self cost (see g->dself), NULL when it has none. */
static inline uint64_t *cgprop__dself_row(const cgprop_graph *g, uint32_t v)
{
    return cgprop__sparse_get(&g->dself, v, g->K);
}

/* Get call e ready for an addition to class c (c < 0: a cost or count added
 * without class); nonzero says whether the addition adds anything. Call it
 * before changing anything, as it may need memory (CGPROP_ENOMEM, nothing
 * visible changed). Several prepares may precede the additions they cover. */
int cgprop__ecls_prepare(cgprop_graph *g, uint32_t e, int c, bool nonzero);

/* The stored bucket c of call e, to add to alongside the plain sums, or NULL
 * when the plain sums are all there is (after cgprop__ecls_prepare). */
static inline uint64_t *cgprop__ecls_bucket(const cgprop_graph *g, uint32_t e, uint32_t c, uint64_t **count)
{
    uint32_t r = g->ecls_ref[e];
    if (r < CGPROP__ECLS_BLK) return NULL;
    size_t b = cgprop__ecls_slot(r, c);
    if (count) *count = g->ecls_cnt + b;
    return g->ecls + b * g->K;
}

/* The same costs for a reference r already read, but sink (K values) where
 * cgprop__ecls_bucket gives NULL, chosen by a mask rather than a branch: in
 * the stacks' flush which calls keep a block is as random as the stacks.
 * K is the graph's, passed so that the flush's copies for one and two
 * metrics fold it. */
static inline uint64_t *cgprop__ecls_bucket_or(const cgprop_graph *g, uint32_t r, uint32_t c, uint64_t *sink,
                                               uint32_t K)
{
    uintptr_t blk = (uintptr_t)0 - (uintptr_t)(r >= CGPROP__ECLS_BLK);
    /* Integer arithmetic: for a call in compact form the slot is
     * meaningless and ecls may be NULL, which pointer arithmetic must not
     * meet. */
    uintptr_t at = (uintptr_t)g->ecls + (uintptr_t)cgprop__ecls_slot(r, c) * K * sizeof *g->ecls;
    return (uint64_t *)((at & blk) | ((uintptr_t)sink & ~blk));
}

/* Add (sign > 0) or take back (sign < 0) count and K costs of class c
 * (< CGPROP__NCLS_IN) to call e's stored parts, after cgprop__ecls_prepare;
 * the plain sums are the caller's. costs NULL: none. */
static inline void cgprop__ecls_addsub(const cgprop_graph *g, uint32_t e, uint32_t c, const uint64_t *costs,
                                       uint64_t count, int sign)
{
    uint32_t K = g->K;
    uint64_t *bc, *b = cgprop__ecls_bucket(g, e, cgprop__cls_bucket(c), &bc);
    uint64_t *d = c >= CGPROP__NCLS ? cgprop__dcall_row(g, e) : NULL;
    if (d) {
        d += (size_t)(c - CGPROP__NCLS) * (K + 1);
        d[0] = sign > 0 ? d[0] + count : d[0] - count;
        d++;
    }
    if (b) *bc = sign > 0 ? *bc + count : *bc - count;
    for (uint32_t k = 0; costs && k < K; k++) {
        if (b) b[k] = sign > 0 ? b[k] + costs[k] : b[k] - costs[k];
        if (d) d[k] = sign > 0 ? d[k] + costs[k] : d[k] - costs[k];
    }
}

/* Checked add of K values into dst: false (nothing changed) on overflow. */
static inline bool cgprop__can_add(const uint64_t *dst, const uint64_t *src, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++)
        if (dst[k] > UINT64_MAX - src[k]) return false;
    return true;
}
/* *a += b, saturating at UINT64_MAX: false when it saturated. */
static inline bool cgprop__sat_add(uint64_t *a, uint64_t b)
{
    if (*a > UINT64_MAX - b) {
        *a = UINT64_MAX;
        return false;
    }
    *a += b;
    return true;
}
static inline void cgprop__add(uint64_t *dst, const uint64_t *src, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++) dst[k] += src[k];
}

/* The overflow rules: an addition fits when the plain sums it adds to do.
 * S bounds S_n and S_r, a call's count and cost bound its class buckets, so
 * these are all there is to check. costs NULL: a count alone. */
static inline bool cgprop__fits_self(const cgprop_graph *g, uint32_t node, const uint64_t *costs)
{
    return cgprop__can_add(g->self + (size_t)node * g->K, costs, g->K);
}
static inline bool cgprop__fits_spont(const cgprop_graph *g, uint32_t node, uint64_t count, const uint64_t *costs)
{
    return g->spont_cnt[node] <= UINT64_MAX - count &&
           cgprop__can_add(g->spont_cost + (size_t)node * g->K, costs, g->K);
}
static inline bool cgprop__fits_call(const cgprop_graph *g, uint32_t e, uint64_t count, const uint64_t *costs)
{
    return g->ecount[e] <= UINT64_MAX - count && (!costs || cgprop__can_add(g->ecost + (size_t)e * g->K, costs, g->K));
}
static inline bool cgprop__fits_calls_in(const cgprop_graph *g, uint32_t node, uint64_t count)
{
    return g->calls_in[node] <= UINT64_MAX - count;
}
/* Adding to a function's stated inclusive cost (see g->stated): one that
 * states none yet takes any value. */
static inline bool cgprop__fits_stated(const cgprop_graph *g, uint32_t node, const uint64_t *costs)
{
    return !(g->nflags[node] & CGPROP__NF_STATED) || cgprop__can_add(g->stated + (size_t)node * g->K, costs, g->K);
}
/* The graph's recorder clamp and floor counts (flush, merge). */
static inline bool cgprop__fits_clamps(const cgprop_graph *g, uint64_t n) { return g->clamps <= UINT64_MAX - n; }
static inline bool cgprop__fits_floors(const cgprop_graph *g, uint64_t n) { return g->floors <= UINT64_MAX - n; }

static inline void cgprop__txn_begin(const cgprop_graph *g, cgprop__txn *t)
{
    t->nn0 = g->nn;
    t->ne0 = g->ne;
    t->gen0 = g->gen;
    t->adj0 = g->adj_valid;
    t->any_cost0 = g->any_cost;
    t->has_classes0 = g->has_classes;
    t->nctx0 = g->ctx ? cgprop__ctx_count(g) : 0;
}

/* Invalidate results and live iterators after a mutation. */
static inline void cgprop__mutated(cgprop_graph *g) { g->gen++; g->adj_valid = false; }

/* Fetch the key index slot cgprop_graph_add_node() would probe first for
 * key (a hint only: nothing changes). */
void cgprop__node_prefetch(const cgprop_graph *g, const char *key, size_t len);

/* The stack readers' cgprop_graph_add_node (graph.c, end): the same
 * result, the found path shorter and the error text left as it was. */
int cgprop__node_get(cgprop_graph *g, const char *key, size_t len, uint32_t *out);

/* Room in the per-function and per-call arrays for nodes and edges more,
 * the indexes left to grow (graph.c, end): for readers that estimate their
 * counts. CGPROP_ENOMEM leaves the graph as it was, arrays only larger. */
int cgprop__reserve_arrays(cgprop_graph *g, uint32_t nodes, uint32_t edges);

#endif
