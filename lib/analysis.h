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

/* ---- collapse.c ---- */
bool cgprop__collapse_current(const cgprop_graph *g);
/* Adds total and flags of a cycle to a row filled from the cycles. */
void cgprop__collapse_fill_cycle(const cgprop_graph *g, uint32_t cycle, uint32_t k, cgprop_cycle_row *row);
void cgprop__collapse_free(cgprop_graph *g);

/* ---- propagate.c ---- */
bool cgprop__propagate_current(const cgprop_graph *g);
void cgprop__propagate_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row);
void cgprop__propagate_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_total_row *row);
/* The per-node §4 total; false when propagate has not run on this generation. */
bool cgprop__propagate_total(const cgprop_graph *g, uint32_t node, uint32_t k, double *out);
void cgprop__propagate_free(cgprop_graph *g);

/* ---- split.c ---- */
bool cgprop__split_current(const cgprop_graph *g);
void cgprop__split_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_split_row *row);
void cgprop__split_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_split_row *row);
void cgprop__split_free(cgprop_graph *g);

/* ---- stacks.c ---- */
void cgprop__stacks_free(cgprop_graph *g);

#endif
