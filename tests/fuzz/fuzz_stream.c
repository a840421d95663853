/* libFuzzer target: perf script, folded stacks, callgrind profiles and
 * event traces read piece by piece (as a pipe or gzip is read) must give
 * what the same bytes give read whole. The first byte picks the format, the pieces' size and
 * where the bytes in memory end and a stream that cannot be rewound begins;
 * the rest is the text. Read from memory, the graph (or the refusal) must
 * be the whole text's; read from a stream, the same, except that perf may
 * refuse an event the first piece did not name. A callgrind or event-trace
 * refusal of plain text is the same error, line and reason, but for an
 * overflowing call's line, which a stream cannot read again (line 0). Then an allocation failure somewhere
 * in a read from a stream: reported, nothing leaked. White box: it links
 * the library's internals. */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_readers.h"

#include <stdio.h>

#include "io/io_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every figure of every metric: the JSON report after every analysis. */
static fz_sink report(cgprop_graph *g)
{
    fz_sink s;
    memset(&s, 0, sizeof s);
    s.budget = SIZE_MAX;
    FZ_CHECK(cgprop_graph_find_cycles(g, NULL) == CGPROP_OK);
    FZ_CHECK(cgprop_graph_collapse(g, CGPROP_SHARE_COUNT) == CGPROP_OK);
    int rc = cgprop_graph_propagate(g);
    FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_EOVERFLOW);
    if (rc == CGPROP_OK) FZ_CHECK(cgprop_write(g, CGPROP_FORMAT_JSON, NULL, fz_write, &s) == CGPROP_OK);
    return s;
}

static int stream_read(uint32_t fmt, const char *text, size_t n, size_t head, size_t piece,
                       const cgprop_allocator *a, cgprop_graph **g, cgprop_read_error *err)
{
    cgprop__file f;
    memset(&f, 0, sizeof f);
    f.data = text;
    f.len = head < n ? head : n;
    f.name = "fuzz";
    if (head < n) {
        /* fmemopen: a stream with no file behind it, read once. */
        f.in = fmemopen((void *)(uintptr_t)(text + head), n - head, "rb");
        FZ_CHECK(f.in != NULL);
        f.more = true;
    }
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = fmt;
    cgprop_read_error_init(err);
    cgprop__src src;
    int rc = cgprop__src_open(&src, &f, a, err);
    if (!rc) rc = cgprop__read_pieces(&src, fmt, piece, piece, &o, a, g, NULL, err);
    cgprop__src_close(&src);
    cgprop__file_close(&f);
    if (f.in) fclose(f.in);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20)) return 0;
    static const uint32_t fmts[] = {CGPROP_INPUT_PERF, CGPROP_INPUT_FOLDED, CGPROP_INPUT_CALLGRIND,
                                    CGPROP_INPUT_EVENTS};
    unsigned cfg = data[0], rest = cfg / 4;
    uint32_t fmt = fmts[cfg % 4];
    /* At least the two bytes that tell gzip: the library sees 8 MiB of a
     * pipe, or a whole mapped file, before it decides to read in pieces. */
    size_t piece = 1 + (rest & 7) * 53, head = 2 + (rest >> 3) * 11;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    /* What the library reads whole, never in pieces (lib/io/read.c): raw
     * recordings it refuses (but when an event trace is named), gzip inside
     * gzip. */
    char peek[64];
    size_t pn = 0;
    bool ev = fmt == CGPROP_INPUT_EVENTS;
    if (!ev && cgprop__recording(text, n)) return 0;
    if (cgprop__is_gzip(text, n) && (!cgprop__gunzip_peek(text, n, peek, sizeof peek, &pn) ||
                                     cgprop__is_gzip(peek, pn) || (!ev && cgprop__recording(peek, pn))))
        return 0;

    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = fmt;
    cgprop_read_error werr, serr;
    cgprop_read_error_init(&werr);
    cgprop_graph *w = NULL, *m = NULL, *s = NULL;
    int wrc = cgprop_read_buffer(text, n, "fuzz", 4, &o, NULL, &w, NULL, &werr);
    fz_check_read_status(wrc, w, &werr);

    /* From memory: every event can be listed again, so the result is the
     * whole text's. */
    int mrc = stream_read(fmt, text, n, n, piece, NULL, &m, &serr);
    FZ_CHECK((mrc == CGPROP_OK) == (wrc == CGPROP_OK));
    if (mrc) FZ_CHECK(m == NULL && serr.code == mrc && serr.reason[0]);
    /* Error for error, where no gzip damage (found at its end, read whole
     * first) can come before or after the text's own error. */
    bool cg = (fmt == CGPROP_INPUT_CALLGRIND || fmt == CGPROP_INPUT_EVENTS) && !cgprop__is_gzip(text, n);
    if (cg && mrc) FZ_CHECK(mrc == wrc && serr.line == werr.line && strcmp(serr.reason, werr.reason) == 0);
    /* From a stream after head bytes. */
    int src_rc = stream_read(fmt, text, n, head, piece, NULL, &s, &serr);
    if (src_rc) FZ_CHECK(s == NULL && serr.code == src_rc && serr.reason[0]);
    if (cg && src_rc)
        FZ_CHECK(src_rc == wrc && strcmp(serr.reason, werr.reason) == 0 &&
                 (serr.line == werr.line || (src_rc == CGPROP_EOVERFLOW && serr.line == 0)));
    if (wrc != CGPROP_OK) FZ_CHECK(src_rc != CGPROP_OK);
    else if (src_rc != CGPROP_OK) FZ_CHECK(fmt == CGPROP_INPUT_PERF && src_rc == CGPROP_EFORMAT &&
                                           strstr(serr.reason, "a stream is read once") != NULL);
    if (wrc == CGPROP_OK) {
        fz_sink a = report(w), b = report(m);
        FZ_CHECK(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0);
        if (s) {
            fz_sink c = report(s);
            FZ_CHECK(a.len == c.len && memcmp(a.buf, c.buf, a.len) == 0);
            free(c.buf);
        }
        free(a.buf);
        free(b.buf);
    }
    cgprop_graph_free(w);
    cgprop_graph_free(m);
    cgprop_graph_free(s);

    /* An allocation failure somewhere in a read from a stream. */
    fz_alloc fa;
    cgprop_allocator al = fz_allocator(&fa, (long)(fz_hash(data, size) % 64));
    cgprop_graph *g = NULL;
    int rc = stream_read(fmt, text, n, head, piece, &al, &g, &serr);
    FZ_CHECK(rc == CGPROP_OK || rc == CGPROP_ENOMEM || rc == src_rc);
    if (rc == CGPROP_OK) FZ_CHECK(src_rc == CGPROP_OK);
    cgprop_graph_free(g);
    FZ_CHECK(fa.live == 0);
    return 0;
}
