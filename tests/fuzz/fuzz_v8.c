/* libFuzzer target: the .cpuprofile reader (and its JSON tokenizer) on arbitrary bytes,
 * with allocation failures, then every analysis, every writer and a
 * read-back of the callgrind writer's output. */
#include "fuzz_stacks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = (h & 7u) == 0 ? CGPROP_INPUT_AUTO : CGPROP_INPUT_V8;
    long until = ((h >> 9) & 3u) == 0 ? (long)((h >> 40) % 200) : -1;

    fz_alloc f;
    cgprop_allocator a = fz_allocator(&f, until);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)data, size, "fuzz.cpuprofile", 15, &o, &a, &g, &info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f.failed > 0);
    if (rc != CGPROP_OK) {
        FZ_CHECK(f.live == 0);
        return 0;
    }
    if (o.format == CGPROP_INPUT_V8) {
        FZ_CHECK(info.format == CGPROP_INPUT_V8);
        FZ_CHECK(info.recursion == CGPROP_RECS_STACKS);
    }
    if (info.format == CGPROP_INPUT_V8) fz_stack_identities(g);
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
