/* libFuzzer target: the callgrind reader on arbitrary bytes, then every
 * analysis, every writer and a read-back of the callgrind writer's output.
 * The reader options, an allocation to fail and an output budget come from
 * a hash of the input, so plain fixture files are seeds. Traps on a status
 * the header does not document, a failure without a message, a non-finite
 * figure, a leaked block, or written output that does not read back. */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The reader parses most lines on a fast path that leaves anything unusual
 * to its general parser; a line that starts with a blank, or lies in the
 * last 64 bytes, always goes to the general parser. So the input, padded at
 * the end, read as it is and with a blank before every line, must give the
 * same status, error and graph (tests/check_callgrind.c, fast_path_agrees).
 * Nothing is added after the last byte: a last line ending in a CR would
 * then no longer end there (regress-cr-last-line). */
static char *fz_variant(const uint8_t *in, size_t len, int indent, size_t *out_len)
{
    static const char pad[] = "\n# padding ........................................................\n";
    char *o = malloc(2 * len + sizeof pad + 1);
    if (!o) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (indent && (i == 0 || in[i - 1] == '\n')) o[n++] = ' ';
        o[n++] = (char)in[i];
    }
    memcpy(o + n, pad, sizeof pad - 1);
    *out_len = n + sizeof pad - 1;
    return o;
}

static void fz_same_graph(cgprop_graph *a, cgprop_graph *b)
{
    size_t nn = cgprop_graph_node_count(a), ne = cgprop_graph_edge_count(a);
    FZ_CHECK(nn == cgprop_graph_node_count(b) && ne == cgprop_graph_edge_count(b));
    FZ_CHECK(cgprop_graph_metric_count(a) == cgprop_graph_metric_count(b));
    FZ_CHECK(cgprop_graph_split(a) == cgprop_graph_split(b));
    for (uint32_t v = 0; v < nn; v++) {
        size_t la, lb;
        const char *ka = cgprop_graph_node_key(a, v, &la), *kb = cgprop_graph_node_key(b, v, &lb);
        FZ_CHECK(la == lb && memcmp(ka, kb, la) == 0);
    }
    for (uint32_t m = 0; m < cgprop_graph_metric_count(a); m++) {
        for (uint32_t v = 0; v < nn; v++) {
            cgprop_node_row ra, rb;
            cgprop_split_row sa, sb;
            memset(&ra, 0, sizeof ra);
            memset(&rb, 0, sizeof rb);
            memset(&sa, 0, sizeof sa);
            memset(&sb, 0, sizeof sb);
            FZ_CHECK(cgprop_graph_get_row(a, CGPROP_ITER_NODES, m, v, &ra, sizeof ra) ==
                     cgprop_graph_get_row(b, CGPROP_ITER_NODES, m, v, &rb, sizeof rb));
            FZ_CHECK(memcmp(&ra, &rb, sizeof ra) == 0);
            FZ_CHECK(cgprop_graph_get_row(a, CGPROP_ITER_SPLIT, m, v, &sa, sizeof sa) ==
                     cgprop_graph_get_row(b, CGPROP_ITER_SPLIT, m, v, &sb, sizeof sb));
            FZ_CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        }
        for (uint32_t e = 0; e < ne; e++) {
            cgprop_edge_row ra, rb;
            cgprop_edge_split_row sa, sb;
            memset(&ra, 0, sizeof ra);
            memset(&rb, 0, sizeof rb);
            memset(&sa, 0, sizeof sa);
            memset(&sb, 0, sizeof sb);
            FZ_CHECK(cgprop_graph_get_row(a, CGPROP_ITER_EDGES, m, e, &ra, sizeof ra) ==
                     cgprop_graph_get_row(b, CGPROP_ITER_EDGES, m, e, &rb, sizeof rb));
            FZ_CHECK(memcmp(&ra, &rb, sizeof ra) == 0);
            FZ_CHECK(cgprop_graph_get_row(a, CGPROP_ITER_EDGE_SPLIT, m, e, &sa, sizeof sa) ==
                     cgprop_graph_get_row(b, CGPROP_ITER_EDGE_SPLIT, m, e, &sb, sizeof sb));
            FZ_CHECK(memcmp(&sa, &sb, sizeof sa) == 0);
        }
    }
}

static void fz_fast_agrees(const uint8_t *data, size_t size, const cgprop_read_options *o)
{
    size_t la, lb;
    char *a = fz_variant(data, size, 0, &la), *b = fz_variant(data, size, 1, &lb);
    /* The property is the callgrind reader's: detection may rightly tell a
     * blank-led line from a perf sample header, and another reader may
     * rightly read the two differently (folded keeps a byte order mark that
     * a blank precedes as part of the first name), so auto-detection is held
     * to it only when it picks callgrind for both (as in check_callgrind's
     * fast_path_agrees). */
    if (a && b &&
        (o->format != CGPROP_INPUT_AUTO || (cgprop_read_detect(a, la) == CGPROP_INPUT_CALLGRIND &&
                                            cgprop_read_detect(b, lb) == CGPROP_INPUT_CALLGRIND))) {
        cgprop_graph *ga = NULL, *gb = NULL;
        cgprop_read_info ia, ib;
        cgprop_read_error ea, eb;
        cgprop_read_info_init(&ia);
        cgprop_read_info_init(&ib);
        cgprop_read_error_init(&ea);
        cgprop_read_error_init(&eb);
        int ra = cgprop_read_buffer(a, la, "f", 1, o, NULL, &ga, &ia, &ea);
        int rb = cgprop_read_buffer(b, lb, "f", 1, o, NULL, &gb, &ib, &eb);
        FZ_CHECK(ra == rb && ea.line == eb.line && strcmp(ea.reason, eb.reason) == 0);
        if (ra == CGPROP_OK) {
            FZ_CHECK(memcmp(&ia, &ib, sizeof ia) == 0);
            fz_same_graph(ga, gb);
        }
        cgprop_graph_free(ga);
        cgprop_graph_free(gb);
    }
    free(a);
    free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    /* Mostly forced callgrind; now and then auto-detection. */
    o.format = (h & 7u) == 0 ? CGPROP_INPUT_AUTO : CGPROP_INPUT_CALLGRIND;
    o.key_mode = (uint32_t)(h >> 3) & 1u;
    o.no_fold_recursion = ((h >> 4) & 3u) == 0;
    static const uint32_t recs[8] = {0, 0, 0, 0, 1, 2, 3, 7};
    o.separate_recs = recs[(h >> 6) & 7u];
    long until = fz_until(h, 200);
    if (until < 0) fz_fast_agrees(data, size, &o);
    fz_alloc f;
    cgprop_read_info info;
    cgprop_graph *g = fz_read(data, size, "fuzz.out", &o, &f, until, NULL, &info);
    if (!g) return 0;
    FZ_CHECK(info.format == CGPROP_INPUT_CALLGRIND || o.format == CGPROP_INPUT_AUTO);
    FZ_CHECK(info.recursion <= CGPROP_RECS_UNFOLDED);
    fz_finish(g, &f, h, NULL);
    return 0;
}
