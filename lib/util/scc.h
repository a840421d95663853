/* Strongly connected components of a graph given as adjacency lists
 * (callees of v are tgt[off[v] .. off[v + 1])), by Tarjan's algorithm with
 * an explicit stack: no native recursion, however deep the graph. Used by
 * the cycle finder (lib/cycles.c) and by the callgrind reader's test for
 * recursion among plain names. */
#ifndef CGPROP_UTIL_SCC_H
#define CGPROP_UTIL_SCC_H

#include "cgprop.h"

#include <stdint.h>

/* ord receives the n nodes callers first, each component contiguous;
 * comp_size[v] the size of v's component. Scratch memory through a (NULL:
 * malloc). Returns CGPROP_OK or CGPROP_ENOMEM. */
int cgprop__scc(const cgprop_allocator *a, uint32_t n, const uint32_t *off, const uint32_t *tgt, uint32_t *ord,
                uint32_t *comp_size);

#endif
