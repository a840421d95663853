/* libFuzzer target: the event-trace reader on arbitrary bytes, through each
 * compensation route (none, on the fly with or without clamping,
 * post-mortem) with overheads from a hash of the input, then every analysis
 * and writer (see fuzz_callgrind.c for what traps). Also the generic reader
 * on the same bytes, which must agree on success and failure. */
#include "fuzz_readers.h"
#include "cgprop_experimental.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fz_hash(data, size);
    cgprop_recorder_options ro;
    cgprop_recorder_options_init(&ro);
    uint64_t ro_di[CGPROP_MAX_METRICS] = {0}, ro_de[CGPROP_MAX_METRICS] = {0};
    ro.delta_i = ro_di;
    ro.delta_e = ro_de;
    ro.mode = (uint32_t)(h & 3u) % 3u;
    if (ro.mode == CGPROP_COMP_ONLINE && ((h >> 2) & 1u)) ro.flags = CGPROP_REC_CLAMP;
    for (int k = 0; k < CGPROP_MAX_METRICS; k++) {
        ro_di[k] = (h >> (3 + k % 8)) & 3u;
        ro_de[k] = (h >> (5 + k % 8)) & 3u;
    }
    /* Huge overheads now and then, to drive compensated figures negative
     * and towards the int64_t limits. */
    if (((h >> 16) & 15u) == 0) {
        ro_di[0] = (uint64_t)INT64_MAX / 2;
        ro_de[0] = (uint64_t)INT64_MAX / 2;
    }
    long until = fz_until(h, 200);

    fz_alloc f;
    cgprop_allocator a = fz_allocator(&f, until);
    cgprop_graph *g = NULL;
    cgprop_events_info info;
    cgprop_events_info_init(&info);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_events_read_buffer((const char *)data, size, "fuzz.events", 11, &ro, &a, &g, &info, &err);
    fz_check_read_status(rc, g, &err);
    if (rc == CGPROP_ENOMEM) FZ_CHECK(f.failed > 0);
    if (rc != CGPROP_OK) {
        FZ_CHECK(f.live == 0);
    } else {
        FZ_CHECK(info.events <= info.lines);
        if (ro.mode != CGPROP_COMP_ONLINE || !(ro.flags & CGPROP_REC_CLAMP)) FZ_CHECK(info.clamps == 0);
        /* One flush at the end: the graph carries every clamp the replay made. */
        FZ_CHECK(cgprop_graph_clamp_count(g) == info.clamps);
        fz_finish(g, &f, h, NULL);
    }

    /* Without compensation, the generic reader replays the same way. */
    if (ro.mode == CGPROP_COMP_OFF && until < 0) {
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = CGPROP_INPUT_EVENTS;
        cgprop_graph *g2 = NULL;
        cgprop_read_error err2;
        cgprop_read_error_init(&err2);
        int rc2 = cgprop_read_buffer((const char *)data, size, "fuzz.events", 11, &o, NULL, &g2, NULL, &err2);
        fz_check_read_status(rc2, g2, &err2);
        FZ_CHECK(rc2 == rc);
        if (rc != CGPROP_OK) FZ_CHECK(err2.line == err.line);
        cgprop_graph_free(g2);
    }
    return 0;
}
