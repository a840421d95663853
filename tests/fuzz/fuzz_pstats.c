/* libFuzzer target: the Python statistics reader (a marshal decoder) on arbitrary bytes, then
 * every analysis, every writer and a read-back of the callgrind writer's
 * output. Every function the statistics list states its inclusive cost, so
 * each one's figure must come out exact. */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pstats(cgprop_graph *g);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = (h & 7u) == 0 ? CGPROP_INPUT_AUTO : CGPROP_INPUT_PSTATS;
    long until = ((h >> 9) & 3u) == 0 ? (long)((h >> 40) % 200) : -1;

    fz_alloc f;
    cgprop_allocator a = fz_allocator(&f, until);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)data, size, "fuzz.pstats", sizeof "fuzz.pstats" - 1, &o, &a, &g, &info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f.failed > 0);
    if (rc != CGPROP_OK) {
        FZ_CHECK(f.live == 0);
        return 0;
    }
    if (o.format == CGPROP_INPUT_PSTATS) {
        FZ_CHECK(info.format == CGPROP_INPUT_PSTATS);
        FZ_CHECK(info.recursion == CGPROP_RECS_STATED);
    }
    f.until_fail = ((h >> 11) & 3u) == 0 ? (long)((h >> 48) % 64) : -1;
    int ok = fz_analyse(g, fz_share(h));
    if (ok && info.format == CGPROP_INPUT_PSTATS) check_pstats(g);
    size_t cg_len;
    char *cg = fz_write_all(g, ok, h, &cg_len);
    f.until_fail = -1;
    if (cg) fz_roundtrip(g, ok, h, cg, cg_len);
    free(cg);
    cgprop_graph_free(g);
    FZ_CHECK(f.live == 0);
    return 0;
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
