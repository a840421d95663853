/* Private: what each analysis offers the others and the iterators. Each
 * analysis keeps its result behind an opaque pointer in the graph
 * (g->res_*), tagged with the generation it was computed at; nothing outside
 * its own .c looks inside. */
#ifndef CGPROP_ANALYSIS_H
#define CGPROP_ANALYSIS_H

#include "graph.h"

/* ---- cycles.c ---- */
bool cgprop__cycles_current(const cgprop_graph *g);
uint32_t cgprop__cycles_count(const cgprop_graph *g);
/* CGPROP_NONE when the node is in no cycle. */
uint32_t cgprop__cycles_of(const cgprop_graph *g, uint32_t node);
/* Members of a cycle, ascending ids. */
const uint32_t *cgprop__cycles_members(const cgprop_graph *g, uint32_t cycle, uint32_t *n_out);
void cgprop__cycles_free(cgprop_graph *g);
/* Every node once, SCCs contiguous, callers before callees (walk it backwards
 * for callees first). NULL without a result. */
const uint32_t *cgprop__cycles_order(const cgprop_graph *g);

/* The cycle id of every node (CGPROP_NONE outside cycles): the current
 * result's if there is one, else computed into an array that *own receives
 * and the caller frees. NULL when out of memory. */
const uint32_t *cgprop__cycles_ids(cgprop_graph *g, uint32_t **own);

/* ---- collapse.c ---- */
bool cgprop__collapse_current(const cgprop_graph *g);
/* Adds total and flags of a cycle to a row filled from the cycles. */
void cgprop__collapse_fill_cycle(const cgprop_graph *g, uint32_t cycle, uint32_t k, cgprop_cycle_row *row);
void cgprop__collapse_free(cgprop_graph *g);
/* The following read the current collapse result (check _current first). */
/* Share weight w of a call under that mode (0 for a cost share without cost). */
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

/* ---- propagate.c ---- */
bool cgprop__propagate_current(const cgprop_graph *g);
void cgprop__propagate_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row);
void cgprop__propagate_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_total_row *row);
/* The per-node §4 total; false when propagate has not run on this generation. */
bool cgprop__propagate_total(const cgprop_graph *g, uint32_t node, uint32_t k, double *out);
void cgprop__propagate_free(cgprop_graph *g);

/* ---- bounds.c ---- */
typedef struct cgprop__bounds cgprop__bounds;
/* The interval of every function's inclusive cost (runs the split when it
 * is not current). CGPROP_OK, CGPROP_ENOMEM, or the split's error. */
int cgprop__bounds_build(cgprop_graph *g, cgprop__bounds **out);
void cgprop__bounds_destroy(const cgprop_graph *g, cgprop__bounds *b);
/* Set lo, hi, reason, estimate, total and the ESTIMATE, NO_BOUNDS and
 * CLAMPED flags of a row whose heuristic, cycle and other flags are set. */
void cgprop__bounds_fill(const cgprop_graph *g, const cgprop__bounds *b, uint32_t node, uint32_t k,
                         cgprop_total_row *row);

/* ---- split.c ---- */
bool cgprop__split_current(const cgprop_graph *g);
void cgprop__split_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_split_row *row);
void cgprop__split_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_split_row *row);
void cgprop__split_free(cgprop_graph *g);
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

#endif
