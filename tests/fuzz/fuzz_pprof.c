/* libFuzzer target: the pprof reader and the gzip layer on arbitrary bytes
 * (raw protobuf, or gzip around it, or around any other format), then every
 * analysis, every writer and a read-back of the callgrind writer's output
 * (see fuzz_callgrind.c for what traps). */
#include "fuzz_readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = (h & 3u) == 0 ? CGPROP_INPUT_AUTO : CGPROP_INPUT_PPROF;
    o.key_mode = (h >> 2) & 1u ? CGPROP_KEY_NAME : CGPROP_KEY_FULL;
    long until = ((h >> 9) & 3u) == 0 ? (long)((h >> 40) % 300) : -1;

    fz_alloc f;
    cgprop_allocator a = fz_allocator(&f, until);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)data, size, "fuzz.pb", 7, &o, &a, &g, &info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f.failed > 0 || strstr(err.reason, "gzip input: inflates past") != NULL);
    if (rc != CGPROP_OK) {
        FZ_CHECK(f.live == 0);
        return 0;
    }
    if (o.format == CGPROP_INPUT_PPROF) {
        FZ_CHECK(info.format == CGPROP_INPUT_PPROF);
        FZ_CHECK(info.recursion == CGPROP_RECS_STACKS);
    }
    /* Detection agrees with the reader on what it recognised. */
    if (o.format == CGPROP_INPUT_AUTO && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b))
        FZ_CHECK(info.format == cgprop_read_detect((const char *)data, size));
    f.until_fail = ((h >> 11) & 3u) == 0 ? (long)((h >> 48) % 64) : -1;
    int ok = fz_analyse(g, fz_share(h));
    size_t cg_len;
    char *cg = fz_write_all(g, ok, h, &cg_len);
    f.until_fail = -1;
    if (cg) fz_roundtrip(g, ok, h, cg, cg_len);
    free(cg);
    cgprop_graph_free(g);
    FZ_CHECK(f.live == 0);
    return 0;
}
