/* Row sizes of the iterators, for the Check suites (through support.h) and
 * the fuzz targets, which cannot include the Check-based support.h. */
#ifndef CGPROP_TESTS_ROWS_H
#define CGPROP_TESTS_ROWS_H

#include "cgprop.h"

#include <stddef.h>
#include <stdint.h>

/* The size of a row of iterator kind `kind`; 0 for no kind. */
static inline size_t trow_size(uint32_t kind)
{
    switch (kind) {
    case CGPROP_ITER_NODES: return sizeof(cgprop_node_row);
    case CGPROP_ITER_EDGES:
    case CGPROP_ITER_CALLERS:
    case CGPROP_ITER_CALLEES: return sizeof(cgprop_edge_row);
    case CGPROP_ITER_CYCLES: return sizeof(cgprop_cycle_row);
    case CGPROP_ITER_MEMBERS: return sizeof(cgprop_member_row);
    case CGPROP_ITER_TOTALS: return sizeof(cgprop_total_row);
    case CGPROP_ITER_EDGE_TOTALS: return sizeof(cgprop_edge_total_row);
    case CGPROP_ITER_SPLIT: return sizeof(cgprop_split_row);
    case CGPROP_ITER_EDGE_SPLIT: return sizeof(cgprop_edge_split_row);
    default: return 0;
    }
}

#endif
