/* libFuzzer target: the Python statistics reader (a marshal decoder) on arbitrary bytes, then
 * every analysis, every writer and a read-back of the callgrind writer's
 * output. Every function the statistics list states its inclusive cost, so
 * each one's figure must come out exact. */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pstats(cgprop_graph *g);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fz_reader_target(data, size, CGPROP_INPUT_PSTATS, "fuzz.pstats", CGPROP_RECS_STATED, 0, NULL, check_pstats);
}

/* A function the statistics list has a stated inclusive cost; one known
 * only as a caller has none, and is never a spontaneous root. So every
 * function with spontaneous entries, or with self cost, is exact. */
static void check_pstats(cgprop_graph *g)
{
    size_t nn = cgprop_graph_node_count(g);
    for (uint32_t v = 0; v < nn; v++) {
        cgprop_node_row n;
        cgprop_total_row t;
        FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, v, &n, sizeof n) == CGPROP_OK);
        FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, v, &t, sizeof t) == CGPROP_OK);
        if (n.spont_count || n.self) {
            FZ_CHECK(t.estimate == CGPROP_EST_EXACT);
            FZ_CHECK(t.lo == t.hi && t.total == t.lo);
        }
    }
}
