/* libFuzzer target: the gprof text reader on arbitrary bytes, then every
 * analysis, every writer and a read-back of the callgrind writer's output.
 * gprof measures no call costs, so no call may have one. */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_gprof(cgprop_graph *g);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fz_reader_target(data, size, CGPROP_INPUT_GPROF, "fuzz.gprof", CGPROP_RECS_COUNTS, 0, NULL, check_gprof);
}

static void check_gprof(cgprop_graph *g)
{
    size_t ne = cgprop_graph_edge_count(g);
    for (uint32_t e = 0; e < ne; e++) {
        cgprop_edge_row r;
        FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, e, &r, sizeof r) == CGPROP_OK);
        FZ_CHECK(!(r.flags & CGPROP_F_HAS_COST) && r.cost == 0);
    }
}
