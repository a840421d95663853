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
    fz_alloc f;
    cgprop_read_info info;
    /* A gzip member that inflates past the limit is refused as ENOMEM too. */
    cgprop_graph *g = fz_read(data, size, "fuzz.pb", &o, &f, fz_until(h, 300), "gzip input: inflates past", &info);
    if (!g) return 0;
    if (o.format == CGPROP_INPUT_PPROF) {
        FZ_CHECK(info.format == CGPROP_INPUT_PPROF);
        FZ_CHECK(info.recursion == CGPROP_RECS_STACKS);
    }
    /* Detection agrees with the reader on what it recognised. */
    if (o.format == CGPROP_INPUT_AUTO && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b))
        FZ_CHECK(info.format == cgprop_read_detect((const char *)data, size));
    fz_finish(g, &f, h, NULL);
    return 0;
}
