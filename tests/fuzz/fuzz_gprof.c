/* libFuzzer target: the gprof text reader on arbitrary bytes, then every
 * analysis, every writer and a read-back of the callgrind writer's output.
 * gprof measures no call costs, so no call may have one. */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_gprof(cgprop_graph *g);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = (h & 7u) == 0 ? CGPROP_INPUT_AUTO : CGPROP_INPUT_GPROF;
    long until = ((h >> 9) & 3u) == 0 ? (long)((h >> 40) % 200) : -1;

    fz_alloc f;
    cgprop_allocator a = fz_allocator(&f, until);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)data, size, "fuzz.gprof", sizeof "fuzz.gprof" - 1, &o, &a, &g, &info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f.failed > 0);
    if (rc != CGPROP_OK) {
        FZ_CHECK(f.live == 0);
        return 0;
    }
    if (o.format == CGPROP_INPUT_GPROF) {
        FZ_CHECK(info.format == CGPROP_INPUT_GPROF);
        FZ_CHECK(info.recursion == CGPROP_RECS_COUNTS);
    }
    f.until_fail = ((h >> 11) & 3u) == 0 ? (long)((h >> 48) % 64) : -1;
    int ok = fz_analyse(g, fz_share(h));
    if (ok && info.format == CGPROP_INPUT_GPROF) check_gprof(g);
    size_t cg_len;
    char *cg = fz_write_all(g, ok, h, &cg_len);
    f.until_fail = -1;
    if (cg) fz_roundtrip(g, ok, h, cg, cg_len);
    free(cg);
    cgprop_graph_free(g);
    FZ_CHECK(f.live == 0);
    return 0;
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
