/* libFuzzer target: the callgrind reader on arbitrary bytes, then every
 * analysis, every writer and a read-back of the callgrind writer's output.
 * The reader options, an allocation to fail and an output budget come from
 * a hash of the input, so plain fixture files are seeds. Traps on a status
 * the header does not document, a failure without a message, a non-finite
 * figure, a leaked block, or written output that does not read back. */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    /* One run in four fails an allocation somewhere in the reader. */
    long until = ((h >> 9) & 3u) == 0 ? (long)((h >> 40) % 200) : -1;

    fz_alloc f;
    cgprop_allocator a = fz_allocator(&f, until);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_error err;
    int rc = cgprop_read_buffer((const char *)data, size, "fuzz.out", 8, &o, &a, &g, &info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f.failed > 0);
    if (rc != CGPROP_OK) {
        FZ_CHECK(f.live == 0);
        return 0;
    }
    FZ_CHECK(info.format == CGPROP_INPUT_CALLGRIND || o.format == CGPROP_INPUT_AUTO);
    FZ_CHECK(info.recursion <= CGPROP_RECS_UNFOLDED);
    f.until_fail = ((h >> 11) & 3u) == 0 ? (long)((h >> 48) % 64) : -1;
    int ok = fz_analyse(g, (uint32_t)(h >> 13) % 3u);
    size_t cg_len;
    char *cg = fz_write_all(g, ok, h, &cg_len);
    f.until_fail = -1;
    if (cg) fz_roundtrip(g, cg, cg_len);
    free(cg);
    cgprop_graph_free(g);
    FZ_CHECK(f.live == 0);
    return 0;
}
