/* Private: the analysis registry (analysis.c) and what each analysis offers
 * the others and the iterators. Each analysis keeps its result in its slot
 * of the store (g->slot, rows in graph.h's CGPROP__ANALYSES); nothing
 * outside its own .c looks inside. */
#ifndef CGPROP_ANALYSIS_H
#define CGPROP_ANALYSIS_H

#include "graph.h"

/* ---- analysis.c: the registry ---- */

/* Every analysis frees its result with cgprop__<name>_destroy (NULL-safe). */
#define CGPROP__X(NAME, name, deps, args, call) void cgprop__##name##_destroy(const cgprop_graph *g, void *res);
CGPROP__ANALYSES(CGPROP__X)
#undef CGPROP__X

/* The slots whose results are current (bit a for slot a): built at this
 * generation, on dependencies that are current and, for those that take
 * arguments, still the run they were built on. */
uint32_t cgprop__current_mask(const cgprop_graph *g);
static inline bool cgprop__current(const cgprop_graph *g, uint32_t a)
{
    return (cgprop__current_mask(g) >> a) & 1u;
}
/* Slot a's result (current or not; NULL before its first run). */
static inline void *cgprop__res(const cgprop_graph *g, uint32_t a) { return g->slot[a].res; }
/* Make res slot a's result, built now on what is current now; the old one
 * is destroyed. Cannot fail: a run builds everything first and installs last. */
void cgprop__install(cgprop_graph *g, uint32_t a, void *res);
/* The public call that runs slot a, for messages. */
const char *cgprop__analysis_call(uint32_t a);
/* Destroy every result (cgprop_graph_free). */
void cgprop__analyses_free(cgprop_graph *g);

/* ---- cycles.c ---- */
uint32_t cgprop__cycles_count(const cgprop_graph *g);
/* CGPROP_NONE when the node is in no cycle. */
uint32_t cgprop__cycles_of(const cgprop_graph *g, uint32_t node);
/* The same for every node at once (nn entries), for loops over all calls;
 * NULL without a result for the graph's nodes. */
const uint32_t *cgprop__cycles_of_all(const cgprop_graph *g);
/* cgprop__cycles_of() through cof = cgprop__cycles_of_all(g), taken once
 * before such a loop. */
static inline uint32_t cgprop__cycles_of_in(const cgprop_graph *g, const uint32_t *cof, uint32_t node)
{
    return cof ? cof[node] : cgprop__cycles_of(g, node);
}
/* Members of a cycle, ascending ids. */
const uint32_t *cgprop__cycles_members(const cgprop_graph *g, uint32_t cycle, uint32_t *n_out);
/* Every node once, SCCs contiguous, callers before callees (walk it backwards
 * for callees first). NULL without a result. */
const uint32_t *cgprop__cycles_order(const cgprop_graph *g);

/* The cycle id of every node (CGPROP_NONE outside cycles): the current
 * result's if there is one, else computed into an array that *own receives
 * and the caller frees. NULL when out of memory. */
const uint32_t *cgprop__cycles_ids(cgprop_graph *g, uint32_t **own);

/* ---- collapse.c ---- */
/* Adds total and flags of a cycle to a row filled from the cycles. */
void cgprop__collapse_fill_cycle(const cgprop_graph *g, uint32_t cycle, uint32_t k, cgprop_cycle_row *row);
/* The following read the current collapse result (check _current first). */
/* Share weight w of a call under that mode (0 for a cost share without cost). */
/* Tests: the collapse's vertex total and gprof child figure of every
 * function (nn·K each) by either kernel (plain: the reference one). Needs
 * current cycles. */
int cgprop__collapse_reference(cgprop_graph *g, uint32_t share, bool plain, double *vertex_total, double *gprof_child);

/* Tests: the per-root figures by either kernel (plain: the reference one),
 * into caller arrays of nn·K, ne·K and ne·K entries (indag: 1 where an
 * intra-cycle call is kept by some entry). Needs a current collapse. */
int cgprop__propagate_reference(cgprop_graph *g, bool plain, double *tot, double *etot, uint8_t *indag);

double cgprop__collapse_weight(const cgprop_graph *g, uint32_t edge, uint32_t k);
/* w/W(H(callee)) with the zero-weight rule; 0 for self-calls and intra-cycle calls. */
double cgprop__collapse_edge_share(const cgprop_graph *g, uint32_t edge, uint32_t k);
/* Fraction of T(H(node)) that enters H spontaneously at this node: its
 * spontaneous weight / W, 1/k under the zero-weight rule, 1 for a root
 * function, and for a root cycle 1 at its assumed entry (lowest id), else 0. */
double cgprop__collapse_entry(const cgprop_graph *g, uint32_t node, uint32_t k);
/* T(H(node)); S(H(node)) as a double. */
double cgprop__collapse_vertex_total(const cgprop_graph *g, uint32_t node, uint32_t k);
double cgprop__collapse_vertex_self(const cgprop_graph *g, uint32_t node, uint32_t k);
/* gprof child figure: Σ shares of calls leaving H(node) from this node. */
double cgprop__collapse_gprof_child(const cgprop_graph *g, uint32_t node, uint32_t k);
/* H(node) has no external caller and no spontaneous entry. */
bool cgprop__collapse_is_root(const cgprop_graph *g, uint32_t node);
/* Ask for what edge_share and vertex_total of this call's callee will read:
 * a loop over calls that calls it some 32 calls ahead overlaps the cache
 * misses (one per call on a graph larger than the caches). */
void cgprop__collapse_prefetch_edge(const cgprop_graph *g, uint32_t edge);
/* Ask for what cgprop__collapse_weight of this call will read, ahead of a
 * loop that takes calls in no order. */
void cgprop__collapse_prefetch_weight(const cgprop_graph *g, uint32_t edge, uint32_t k);

/* ---- propagate.c ---- */
void cgprop__propagate_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row);
void cgprop__propagate_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_total_row *row);
/* The per-node propagated total; false when propagate has not run on this generation. */
bool cgprop__propagate_total(const cgprop_graph *g, uint32_t node, uint32_t k, double *out);

/* ---- bounds.c ---- */
/* Built by cgprop_graph_propagate, installed in its own slot beside
 * propagate's result. */
typedef struct cgprop__bounds cgprop__bounds;
/* The interval of every function's inclusive cost (runs the split when it
 * is not current). CGPROP_OK, CGPROP_ENOMEM, or the split's error. */
int cgprop__bounds_build(cgprop_graph *g, cgprop__bounds **out);
/* Set lo, hi, reason, estimate, total and the ESTIMATE, NO_BOUNDS and
 * CLAMPED flags of a row whose heuristic, cycle and other flags are set,
 * from the current bounds. */
void cgprop__bounds_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row);

/* A cycle row filled by the collapse: its total is the exact cost of the
 * cycle's outermost activations where it is that to rounding (then set to
 * it), else flagged CGPROP_F_ESTIMATE. */
void cgprop__bounds_fill_cycle(const cgprop_graph *g, uint32_t cycle, uint32_t k, cgprop_cycle_row *row);
/* Whether f's figure in metric k is exact (its interval one point, in
 * *value) by the current bounds. */
bool cgprop__bounds_point(const cgprop_graph *g, uint32_t node, uint32_t k, uint64_t *value);

/* True when f's interval in metric k (fk = f * K + k) comes from the
 * measured calls alone and is not a point: the walk estimates it. */
bool cgprop__bounds_wants_walk(const cgprop__bounds *b, size_t fk, double *lo, double *hi);

/* ---- walk.c (the analysis; the kernel is walk.h's) ---- */
/* Built by cgprop_graph_propagate after the bounds it reads, installed in
 * its own slot: the walk of every member that cgprop__bounds_wants_walk. */
int cgprop__walk_build(cgprop_graph *g, const cgprop__bounds *b, void **out);
/* The current walk result for a function and metric: its state
 * (CGPROP__WALK_NONE, DONE, BUDGET), the figure when DONE, and the estimate
 * total shows (cgprop_graph_set_estimate at the build). */
uint32_t cgprop__walk_get(const cgprop_graph *g, uint32_t node, uint32_t k, double *walk, uint32_t *mode);

/* ---- split.c ---- */
void cgprop__split_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_split_row *row);
/* The weight, in metric k, of the stacks that may have lost their outer
 * frames and need not hold function v (cgprop__unrooted_root): what v's
 * inclusive cost may lack. *total is the program's total. Needs the split. */
uint64_t cgprop__split_extra(const cgprop_graph *g, uint32_t v, uint32_t k, uint64_t *total);
/* The weight of all such stacks in metric k. Needs the split. */
uint64_t cgprop__split_unrooted_weight(const cgprop_graph *g, uint32_t k);
void cgprop__split_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_split_row *row);
/* Which sides of C_n the classes determine (bits of *sides). */
enum {
    CGPROP__SIDE_IN = 1u << 0,  /* in: spontaneous cost + every call into level-0 activations */
    CGPROP__SIDE_OUT = 1u << 1, /* out: S_n + every call out of level-0 activations */
    CGPROP__SIDE_ROOT = 1u << 2 /* nothing enters its level-0 activations: no in side */
};
/* The two sides of C_n of a function (saturated at UINT64_MAX; a side that
 * overflowed is not marked determined). */
void cgprop__split_sides(const cgprop_graph *g, uint32_t node, uint32_t k, uint64_t *in, uint64_t *out,
                         uint32_t *sides);

/* ---- stacks.c ---- */
void cgprop__stacks_free(cgprop_graph *g);
/* Deferred stacks, for a reader that owns its graph until it returns it:
 * on, each add_stack costs only the frames that differ from the previous
 * stack's; off (which can fail with CGPROP_ENOMEM) adds what is owed.
 * Between the two the calls' costs are incomplete: nothing but add_stack
 * and add_node may touch the graph. */
/* How many roots a sampled graph's stacks have a set for (0 after a merge). */
uint32_t cgprop__stacks_roots(const cgprop_graph *g);
/* For the i-th of them: its id (*root), and the functions every stack it
 * starts shows below its first frame (*n of them), which a stack of that
 * root cut short already counts. NULL with *n 0 when not known. */
const uint32_t *cgprop__stacks_common(const cgprop_graph *g, uint32_t i, uint32_t *root, uint32_t *n);
int cgprop__stacks_defer(cgprop_graph *g, bool on);
/* cgprop_graph_add_stack for a reader: depth >= 1, every frame a function
 * of the graph (not checked), and frames[0..known) the frames of the
 * previous stack given (at least; the rest is compared as usual). */
int cgprop__add_stack_known(cgprop_graph *g, const uint32_t *frames, size_t depth, const uint64_t *weights,
                            size_t known);

#endif
