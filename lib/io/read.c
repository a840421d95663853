/* Reader entry points: options, format detection, whole-file loading, error
 * reports, and the display-name rule shared by every reader and writer. */
#include "io_util.h"
#include "events.h"
#include "util/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cgprop__read_fail(cgprop_read_error *err, int code, uint64_t line, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->reason, sizeof err->reason, fmt, ap);
    va_end(ap);
    return code;
}

void cgprop__excerpt(char *dst, const char *s, size_t n, size_t max)
{
    size_t m = n < max ? n : max;
    for (size_t i = 0; i < m; i++) {
        unsigned char ch = (unsigned char)s[i];
        dst[i] = (ch >= 0x20 && ch < 0x7f) ? (char)ch : '?';
    }
    if (n > max) {
        memcpy(dst + m, "...", 3);
        m += 3;
    }
    dst[m] = '\0';
}

void cgprop_read_options_init(cgprop_read_options *opts)
{
    if (!opts) return;
    memset(opts, 0, sizeof *opts);
    opts->size = (uint32_t)sizeof *opts;
}

void cgprop_read_info_init(cgprop_read_info *info)
{
    if (!info) return;
    memset(info, 0, sizeof *info);
    info->size = (uint32_t)sizeof *info;
}

void cgprop_read_error_init(cgprop_read_error *err)
{
    if (!err) return;
    memset(err, 0, sizeof *err);
    err->size = (uint32_t)sizeof *err;
}

/* The public entry points work on full-size copies of the caller's info and
 * error structs (readers fill those freely) and copy back the prefix the
 * caller's size covers. */
int cgprop__out_begin(cgprop__out *o, cgprop_read_info *info, cgprop_read_error *err)
{
    o->uinfo = info;
    o->uerr = err;
    cgprop_read_info_init(&o->info);
    cgprop_read_error_init(&o->err);
    o->info.totals = o->totals;
    o->info.totals_len = CGPROP_MAX_METRICS;
    memset(o->totals, 0, sizeof o->totals);
    /* Without a valid error struct there is nowhere to say what is wrong. */
    if (err && !cgprop__size_ok(err, sizeof *err)) return CGPROP_EINVAL;
    /* The struct as 0.3 first had it, up to default_metric, is still taken:
     * such a caller gets that prefix back. */
    if (info && !cgprop__size_ok(info, offsetof(cgprop_read_info, default_metric))) {
        cgprop__read_fail(&o->err, CGPROP_EINVAL, 0, "invalid argument: info size %u: call cgprop_read_info_init() first",
                          info->size);
        cgprop__out_end(o, CGPROP_EINVAL);
        return CGPROP_EINVAL;
    }
    return CGPROP_OK;
}

int cgprop__out_end(cgprop__out *o, int rc)
{
    if (o->uerr) {
        if (rc == CGPROP_OK) {
            char file[sizeof o->err.file];
            memcpy(file, o->err.file, sizeof file);
            cgprop_read_error_init(&o->err);
            memcpy(o->err.file, file, sizeof file);
        }
        o->err.code = rc;
        cgprop__info_out(o->uerr, &o->err, sizeof o->err);
    }
    if (o->uinfo && rc == CGPROP_OK) {
        uint64_t *ut = o->uinfo->totals;
        uint32_t ul = o->uinfo->totals_len;
        o->info.totals = ut;
        o->info.totals_len = ul;
        cgprop__info_out(o->uinfo, &o->info, sizeof o->info);
        if (ut) {
            uint32_t n = ul < o->info.nmetrics ? ul : o->info.nmetrics;
            for (uint32_t k = 0; k < ul; k++) ut[k] = k < n ? o->totals[k] : 0;
        }
    }
    return rc;
}

const char *cgprop_node_display_name(const cgprop_graph *g, uint32_t node, size_t *len_out)
{
    size_t len;
    const char *k = cgprop_graph_node_key(g, node, &len);
    if (!k) return NULL;
    size_t i = len;
    while (i > 0 && k[i - 1] != '\t') i--;
    if (len_out) *len_out = len - i;
    return k + i;
}

/* ---- detection ---- */

static bool starts(const char *s, size_t n, const char *p)
{
    size_t l = strlen(p);
    return n >= l && memcmp(s, p, l) == 0;
}

static bool ends_with_number(const char *s, size_t n)
{
    while (n && cgprop__is_space(s[n - 1])) n--;
    size_t j = n;
    while (j && cgprop__is_digit(s[j - 1])) j--;
    return j < n && j > 0 && cgprop__is_space(s[j - 1]);
}

static uint64_t word_le(const unsigned char *p, size_t w)
{
    uint64_t v = 0;
    for (size_t i = w; i-- > 0;) v = v << 8 | p[i];
    return v;
}

/* gperftools' CPU profile opens with a header of five words, 32 or 64 bits
 * wide in the machine's order (little-endian here, as on every machine
 * that runs it today): 0, 3 (the header's length), 0 (the version), the
 * sampling period in microseconds, 0. */
static bool gperftools_header(const char *d, size_t len)
{
    for (size_t w = 4; w <= 8; w += 4) {
        /* A header holding a newline byte (a period of 10 µs) is not told:
         * the text readers, which take what follows a newline's blanks as
         * the line, would see other words in it. */
        if (len < 5 * w || memchr(d, '\n', 5 * w)) continue;
        const unsigned char *u = (const unsigned char *)d;
        if (word_le(u, w) == 0 && word_le(u + w, w) == 3 && word_le(u + 2 * w, w) == 0 &&
            word_le(u + 3 * w, w) != 0 && word_le(u + 4 * w, w) == 0)
            return true;
    }
    return false;
}

/* The first line of a Go profile that runtime/pprof printed as text
 * (WriteTo with debug 1, /debug/pprof/NAME?debug=1): "heap profile: ...",
 * "NAME profile: total N" (goroutine, threadcreate, custom profiles),
 * "--- contention:" or "--- mutex:" (block and mutex profiles). */
static bool go_text(const char *d, size_t len)
{
    const char *nl = memchr(d, '\n', len < 256 ? len : 256);
    size_t n = nl ? (size_t)(nl - d) : 0, i = 0;
    if (!n) return false;
    if (starts(d, n, "heap profile: ")) return true;
    if ((n == 15 && starts(d, n, "--- contention:")) || (n == 10 && starts(d, n, "--- mutex:"))) {
        size_t b = cgprop__skip_blanks(d + n + 1, 0, len - n - 1);
        return starts(d + n + 1 + b, len - n - 1 - b, "cycles/second=");
    }
    /* A profile's name is one word; a ';' makes it a folded stack. */
    while (i < n && d[i] != ' ' && d[i] != ';') i++;
    if (i == 0 || !starts(d + i, n - i, " profile: total ")) return false;
    i += 16;
    if (i == n) return false;
    while (i < n && cgprop__is_digit(d[i])) i++;
    return i == n;
}

/* What no reader reads but users give cgprop often: the raw recordings
 * the profilers write before their own tools print them, told by their
 * first bytes, and what to run instead. NULL for anything else. Blanks
 * before them are passed over, as the text readers pass over a line's
 * leading blanks: a reader named for the input refuses it the same way
 * with or without them. */
const char *cgprop__recording(const char *d, size_t len)
{
    size_t b = cgprop__skip_blanks(d, 0, len);
    d += b;
    len -= b;
    if (starts(d, len, "PERFILE2") || starts(d, len, "2ELIFREP"))
        return "a perf.data recording (perf's binary format): cgprop reads the text perf script prints from it: "
               "perf script -i perf.data > perf.txt";
    if (len >= 8 && starts(d, len, "gmon") && d[5] == 0 && d[6] == 0 && d[7] == 0)
        return "gprof's raw data (gmon.out): cgprop reads the report gprof prints from it: "
               "gprof -b PROGRAM gmon.out > gprof.txt";
    if (gperftools_header(d, len))
        return "a CPU profile in gperftools' own format: cgprop reads it once pprof has symbolized it: "
               "go tool pprof -proto PROGRAM FILE > profile.pb.gz";
    if (starts(d, len, "\x7f" "ELF")) return "an executable or shared library (ELF), not a profile";
    if (go_text(d, len))
        return "a Go profile printed as text (debug=1): cgprop reads the protocol buffer form Go writes by default "
               "(WriteTo with debug 0, or /debug/pprof/NAME without ?debug=1)";
    return NULL;
}

static uint32_t detect_plain(const char *data, size_t len)
{
    if (!data || cgprop__recording(data, len)) return CGPROP_INPUT_AUTO;
    /* The .cpuprofile test looks at 4 KiB at most and wants a leading '{'
     * (or, for a trace, '[' and an object), which no perf script has; the
     * perf test parses the first line as a sample header, which for a
     * one-line JSON profile is the whole file. */
    if (cgprop__v8_detect(data, len)) return CGPROP_INPUT_V8;
    if (cgprop__perf_detect(data, len)) return CGPROP_INPUT_PERF;
    if (cgprop__pprof_detect(data, len)) return CGPROP_INPUT_PPROF;
    static const char *const cg_headers[] = {"version:", "creator:", "events:", "positions:", "cmd:", "pid:",
                                             "part:", "desc:", "thread:", "summary:", "event:", "ob=",
                                             "fl=", "fn="};
    /* Python statistics are binary, and could pass for anything below;
     * gprof's report opens with lines no test below knows. */
    if (cgprop__pstats_detect(data, len)) return CGPROP_INPUT_PSTATS;
    if (cgprop__gprof_detect(data, len)) return CGPROP_INPUT_GPROF;
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    const char *s;
    size_t n;
    /* Enough lines to get past a long comment block, but bounded. */
    while (r.no < 200 && cgprop__lines_next(&r, &s, &n)) {
        while (n && cgprop__is_space(*s)) {
            s++;
            n--;
        }
        if (n == 0) continue;
        if (s[0] == '#') {
            if (starts(s, n, "# callgrind format")) return CGPROP_INPUT_CALLGRIND;
            if (starts(s, n, "# metrics:")) return CGPROP_INPUT_EVENTS;
            continue;
        }
        for (size_t i = 0; i < sizeof cg_headers / sizeof cg_headers[0]; i++)
            if (starts(s, n, cg_headers[i])) return CGPROP_INPUT_CALLGRIND;
        if (starts(s, n, "enter ") || starts(s, n, "exit ")) return CGPROP_INPUT_EVENTS;
        if (ends_with_number(s, n)) return CGPROP_INPUT_FOLDED;
        return CGPROP_INPUT_AUTO;
    }
    return CGPROP_INPUT_AUTO;
}

uint32_t cgprop_read_detect(const char *data, size_t len)
{
    if (!data) return CGPROP_INPUT_AUTO;
    /* gzip is transport: the format is that of the bytes inside. */
    if (cgprop__is_gzip(data, len)) {
        char head[4096];
        size_t got;
        if (!cgprop__gunzip_peek(data, len, head, sizeof head, &got)) return CGPROP_INPUT_AUTO;
        return detect_plain(head, got);
    }
    return detect_plain(data, len);
}

/* ---- entry points ---- */

static bool known_format(uint32_t f)
{
    switch (f) {
    case CGPROP_INPUT_AUTO:
    case CGPROP_INPUT_CALLGRIND:
    case CGPROP_INPUT_FOLDED:
    case CGPROP_INPUT_EVENTS:
    case CGPROP_INPUT_PERF:
    case CGPROP_INPUT_V8:
    case CGPROP_INPUT_PPROF:
    case CGPROP_INPUT_PSTATS:
    case CGPROP_INPUT_GPROF: return true;
    default: return false;
    }
}

static void set_file(cgprop_read_error *err, const char *name, size_t name_len)
{
    if (!err) return;
    if (!name) {
        name = "<buffer>";
        name_len = 8;
    }
    size_t m = name_len < sizeof err->file - 1 ? name_len : sizeof err->file - 1;
    memcpy(err->file, name, m);
    err->file[m] = '\0';
}

/* The caller's options (NULL: the defaults) into *o, checked. */
static int take_options(const cgprop_read_options *uopts, cgprop_read_options *o, cgprop_read_error *err)
{
    cgprop_read_options_init(o);
    /* Callers built before contexts was appended pass the struct without it. */
    if (uopts && !cgprop__opts_in(o, sizeof *o, uopts, offsetof(cgprop_read_options, contexts)))
        return cgprop__read_fail(err, CGPROP_EINVAL, 0,
                                 "invalid option: options size %u: call cgprop_read_options_init() first", uopts->size);
    if (!known_format(o->format))
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid option: input format %u", o->format);
    if (o->key_mode > CGPROP_KEY_NAME)
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid option: key mode %u", o->key_mode);
    if (o->separate_recs > 1000000u)
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid option: separate_recs %u", o->separate_recs);
    return CGPROP_OK;
}

static int read_buffer(const char *data, size_t len, const char *name, size_t name_len,
                       const cgprop_read_options *uopts, const cgprop_allocator *alloc, cgprop_graph **out,
                       cgprop_read_info *info, cgprop_read_error *err)
{
    set_file(err, name, name_len);
    if (out) *out = NULL;
    if (!out || (!data && len)) return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: %s",
                                                         !out ? "out is NULL" : "data is NULL");
    if (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn))
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: incomplete allocator");
    cgprop_read_options defaults;
    int orc = take_options(uopts, &defaults, err);
    if (orc) return orc;
    const cgprop_read_options *opts = &defaults;
    if (!data) data = "";

    /* Any input may come gzipped (pprof always does): the bytes inside are
     * read as if they had been given. One layer only. */
    char *inflated = NULL;
    if (cgprop__is_gzip(data, len)) {
        size_t in_len;
        int zrc = cgprop__gunzip_layer(data, len, alloc, &inflated, &in_len, err);
        if (zrc) {
            cgprop__ra_free(alloc, inflated);
            set_file(err, name, name_len);
            return zrc;
        }
        data = inflated;
        len = in_len;
    }
    /* Before any reader, named or detected: each would fail on these
     * with a message about its own syntax, or (perf script, folded
     * stacks) read a line or two of them as samples. Not before the event
     * trace reader when it is named: it belongs to the recorder, whose own
     * entry point (cgprop_events_read_buffer) must read as this one does. */
    const char *raw = opts->format != CGPROP_INPUT_EVENTS ? cgprop__recording(data, len) : NULL;
    if (raw) {
        cgprop__ra_free(alloc, inflated);
        return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "%s", raw);
    }
    uint32_t fmt = opts->format;
    if (fmt == CGPROP_INPUT_AUTO) {
        fmt = cgprop_read_detect(data, len);
        if (fmt == CGPROP_INPUT_AUTO) {
            cgprop__ra_free(alloc, inflated);
            return cgprop__read_fail(err, CGPROP_EFORMAT, 0,
                                     len ? "unknown input format (not callgrind, folded stacks, an event trace, perf script, pprof, a .cpuprofile, .heapprofile or Chrome trace, Python statistics or a gprof report)"
                                         : "empty input");
        }
    }
    int rc;
    switch (fmt) {
    case CGPROP_INPUT_CALLGRIND:
        rc = cgprop__callgrind_read(data, len, opts, alloc, out, info, err);
        break;
    case CGPROP_INPUT_FOLDED:
        rc = cgprop__folded_read(data, len, opts, alloc, out, info, err);
        break;
    case CGPROP_INPUT_PERF:
        rc = cgprop__perf_read(data, len, opts, alloc, out, info, err);
        break;
    case CGPROP_INPUT_V8:
        rc = cgprop__v8_read(data, len, opts, alloc, out, info, err);
        break;
    case CGPROP_INPUT_PPROF:
        rc = cgprop__pprof_read(data, len, opts, alloc, out, info, err);
        break;
    case CGPROP_INPUT_PSTATS:
        rc = cgprop__pstats_read(data, len, opts, alloc, out, info, err);
        break;
    case CGPROP_INPUT_GPROF:
        rc = cgprop__gprof_read(data, len, opts, alloc, out, info, err);
        break;
    default:
#ifdef CGPROP_HAVE_EVENTS_READER
        rc = cgprop__events_read(data, len, opts, alloc, out, err);
#else
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, 0, "event traces: reader not built into this library");
#endif
        if (rc == CGPROP_OK && info) {
            info->format = CGPROP_INPUT_EVENTS;
            info->recursion = CGPROP_RECS_STACKS;
        }
        break;
    }
    cgprop__ra_free(alloc, inflated);
    if (rc) {
        if (out && *out) {
            cgprop_graph_free(*out);
            *out = NULL;
        }
        if (err) {
            err->code = rc;
            set_file(err, name, name_len);
        }
        return rc;
    }
    if (info) info->nmetrics = (uint32_t)cgprop_graph_metric_count(*out);
    return CGPROP_OK;
}

int cgprop_read_buffer(const char *data, size_t len, const char *name, size_t name_len,
                       const cgprop_read_options *opts, const cgprop_allocator *alloc, cgprop_graph **out,
                       cgprop_read_info *info, cgprop_read_error *err)
{
    cgprop__out o;
    int rc = cgprop__out_begin(&o, info, err);
    if (rc) {
        if (out) *out = NULL;
        return rc;
    }
    return cgprop__out_end(&o, read_buffer(data, len, name, name_len, opts, alloc, out, &o.info, &o.err));
}

bool cgprop__pieces_format(uint32_t fmt)
{
    switch (fmt) {
    case CGPROP_INPUT_PERF:
    case CGPROP_INPUT_FOLDED:
    case CGPROP_INPUT_CALLGRIND: return true;
#ifdef CGPROP_HAVE_EVENTS_READER
    case CGPROP_INPUT_EVENTS: return true;
#endif
    default: return false;
    }
}

int cgprop__read_pieces(cgprop__src *src, uint32_t fmt, size_t head, size_t piece, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                        cgprop_read_error *err)
{
    int rc;
    switch (fmt) {
    case CGPROP_INPUT_PERF: return cgprop__perf_read_stream(src, head, piece, opts, alloc, out, info, err);
    case CGPROP_INPUT_FOLDED: return cgprop__folded_read_stream(src, piece, opts, alloc, out, info, err);
    case CGPROP_INPUT_CALLGRIND: return cgprop__callgrind_read_stream(src, piece, opts, alloc, out, info, err);
#ifdef CGPROP_HAVE_EVENTS_READER
    case CGPROP_INPUT_EVENTS:
        /* The trace reader fills no info: what read_buffer says of it. */
        rc = cgprop__events_read_stream(src, piece, opts, alloc, out, err);
        if (!rc && info) {
            info->format = CGPROP_INPUT_EVENTS;
            info->recursion = CGPROP_RECS_STACKS;
        }
        return rc;
#endif
    default:
        *out = NULL;
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "%s", "this format is not read in pieces");
    }
}

/* perf script text, folded stacks, callgrind profiles and event traces
 * from a pipe, or gzipped, read piece by piece: their memory is a piece and
 * the graph, not the text (lib/io/perf.c, folded.c, callgrind_read.c,
 * events.c). Every other input,
 * and a mapped file (whose pages are the page cache's, not the reader's
 * memory), is read whole: *streamed false, nothing done. */
static int read_stream(cgprop__file *f, const cgprop_read_options *uopts, const cgprop_allocator *alloc,
                       cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err, bool *streamed)
{
    *streamed = false;
    bool gz = cgprop__is_gzip(f->data, f->len);
    if (!f->more && !gz) return CGPROP_OK;
    cgprop_read_options opts;
    if (take_options(uopts, &opts, err) || (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn)))
        return CGPROP_OK; /* read_buffer says what is wrong */
    /* What the first bytes say: those inside, for gzip. */
    char head[4096];
    const char *h = f->data;
    size_t hn = f->len;
    if (gz) {
        if (!cgprop__gunzip_peek(f->data, f->len, head, sizeof head, &hn) || cgprop__is_gzip(head, hn) ||
            hn < sizeof head)
            return CGPROP_OK; /* corrupt, gzip in gzip, or small: read whole, which says so */
        h = head;
    }
    uint32_t fmt = opts.format;
    if (opts.format != CGPROP_INPUT_EVENTS && cgprop__recording(h, hn)) return CGPROP_OK;
    if (fmt == CGPROP_INPUT_AUTO) fmt = detect_plain(h, hn);
    if (!cgprop__pieces_format(fmt)) return CGPROP_OK;
    *streamed = true;
    if (out) *out = NULL;
    if (!out) return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: out is NULL");
    cgprop__src src;
    int rc = cgprop__src_open(&src, f, alloc, err);
    if (!rc) rc = cgprop__read_pieces(&src, fmt, CGPROP__STREAM_HEAD, CGPROP__STREAM_HEAD, &opts, alloc, out, info, err);
    cgprop__src_close(&src);
    if (rc) {
        if (out && *out) {
            cgprop_graph_free(*out);
            *out = NULL;
        }
        if (err) {
            err->code = rc;
            set_file(err, f->name, strlen(f->name));
        }
        return rc;
    }
    if (info) info->nmetrics = (uint32_t)cgprop_graph_metric_count(*out);
    return CGPROP_OK;
}

static int read_file(const char *path, size_t path_len, const cgprop_read_options *opts,
                     const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                     cgprop_read_error *err)
{
    if (out) *out = NULL;
    if (!out) {
        set_file(err, path ? path : "", path ? path_len : 0);
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: out is NULL");
    }
    if (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn)) {
        set_file(err, path ? path : "", path ? path_len : 0);
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: incomplete allocator");
    }
    cgprop__file f;
    int rc = cgprop__file_open_head(&f, path, path_len, alloc, CGPROP__STREAM_HEAD);
    if (rc == CGPROP_EINVAL) {
        set_file(err, path ? path : "", path ? path_len : 0);
        return cgprop__read_fail(err, rc, 0, "invalid argument: bad path");
    }
    set_file(err, f.name, strlen(f.name));
    if (rc == CGPROP_ENOMEM) return cgprop__read_fail(err, rc, 0, "out of memory loading the input");
    if (rc) return cgprop__read_fail(err, rc, 0, "%s: %s", f.why, cgprop__errno_text(f.errnum));
    bool streamed = false;
    rc = read_stream(&f, opts, alloc, out, info, err, &streamed);
    if (!streamed) {
        rc = cgprop__file_rest(&f);
        if (rc == CGPROP_ENOMEM) rc = cgprop__read_fail(err, rc, 0, "out of memory loading the input");
        else if (rc) rc = cgprop__read_fail(err, rc, 0, "%s: %s", f.why, cgprop__errno_text(f.errnum));
        else rc = read_buffer(f.data, f.len, f.name, strlen(f.name), opts, alloc, out, info, err);
    }
    cgprop__file_close(&f);
    return rc;
}

int cgprop_read_file(const char *path, size_t path_len, const cgprop_read_options *opts,
                     const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                     cgprop_read_error *err)
{
    cgprop__out o;
    int rc = cgprop__out_begin(&o, info, err);
    if (rc) {
        if (out) *out = NULL;
        return rc;
    }
    return cgprop__out_end(&o, read_file(path, path_len, opts, alloc, out, &o.info, &o.err));
}
