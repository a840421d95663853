/* The event-trace reader: replays `enter NAME V1..VK` / `exit NAME V1..VK`
 * lines through a recorder (format in include/cgprop_io.h and
 * docs/RECORDER.md). Checks event order and counters itself, so its messages
 * can name functions and metrics rather than ids. */
#include "events.h"

#include "io_util.h"
#include "recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct rd {
    const cgprop_allocator *alloc;
    const cgprop_recorder_options *ropt;
    cgprop_read_error *err;
    uint64_t line;
    cgprop_graph *g;
    cgprop_recorder *r;
    uint32_t K;   /* 0 until the header or the first event says */
    uint32_t nh;  /* metric names from the header */
    const char *hname[CGPROP_MAX_METRICS];
    size_t hlen[CGPROP_MAX_METRICS];
    uint64_t c[CGPROP_MAX_METRICS];
    uint64_t last[CGPROP_MAX_METRICS];
    uint64_t events;
    char *nbuf; /* a name with TABs replaced */
    size_t ncap;
} rd;

static int fail(rd *x, int code, const char *fmt, const char *s, size_t n)
{
    char ex[84];
    cgprop__excerpt(ex, s, n, 80);
    return cgprop__read_fail(x->err, code, x->line, fmt, ex);
}

static bool is_ws(char c) { return cgprop__is_space(c); }

/* Create the graph and recorder once K and the metric names are known. */
static int start(rd *x)
{
    const char *names[CGPROP_MAX_METRICS];
    size_t lens[CGPROP_MAX_METRICS];
    char defaults[CGPROP_MAX_METRICS][4];
    for (uint32_t k = 0; k < x->K; k++) {
        if (x->nh) {
            names[k] = x->hname[k];
            lens[k] = x->hlen[k];
        } else {
            /* m1 .. m64 */
            unsigned v = k + 1;
            defaults[k][0] = 'm';
            defaults[k][1] = (char)(v >= 10 ? '0' + v / 10 : '0' + v);
            defaults[k][2] = (char)(v >= 10 ? '0' + v % 10 : '\0');
            defaults[k][3] = '\0';
            names[k] = defaults[k];
            lens[k] = v >= 10 ? 3 : 2;
        }
    }
    int rc = cgprop_graph_new(x->alloc, names, lens, x->K, &x->g);
    /* The names are distinct words: what cgprop_graph_new() can still
     * refuse is a control byte inside one. */
    if (rc == CGPROP_EINVAL) return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line, "a metric name holds a control byte");
    if (rc) return cgprop__read_fail(x->err, rc, 0, "cannot create the graph: %s", cgprop_strerror(rc));
    rc = cgprop_recorder_new(x->g, x->ropt, &x->r);
    if (rc) return cgprop__read_fail(x->err, rc, 0, "recorder options: %s", cgprop_graph_errmsg(x->g));
    return CGPROP_OK;
}

static int header(rd *x, const char *s, size_t n)
{
    if (x->events || x->K) return fail(x, CGPROP_EFORMAT, "metrics header after the first event: '%s'", s, n);
    size_t i = 0;
    while (i < n) {
        while (i < n && is_ws(s[i])) i++;
        if (i == n) break;
        size_t b = i;
        while (i < n && !is_ws(s[i])) i++;
        if (x->nh == CGPROP_MAX_METRICS)
            return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line, "more than %d metrics", CGPROP_MAX_METRICS);
        for (uint32_t k = 0; k < x->nh; k++)
            if (x->hlen[k] == i - b && memcmp(x->hname[k], s + b, i - b) == 0)
                return fail(x, CGPROP_EFORMAT, "metric '%s' named twice", s + b, i - b);
        x->hname[x->nh] = s + b;
        x->hlen[x->nh] = i - b;
        x->nh++;
    }
    if (!x->nh) return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line, "metrics header names no metric");
    x->K = x->nh;
    return start(x);
}

/* Is s[b..e) a whole unsigned decimal? */
static int number(const char *s, size_t b, size_t e, uint64_t *v)
{
    size_t i = b;
    int rc = cgprop__parse_u64(s, e, &i, false, v);
    if (rc == CGPROP__NUM_OK && i != e) return CGPROP__NUM_NONE;
    return rc;
}

static int event(rd *x, bool enter, const char *s, size_t n)
{
    /* s is the text after the keyword, trimmed at both ends. Readings are
     * the last K words; the name is what precedes them. */
    size_t e = n, nread = 0;
    uint64_t tmp[CGPROP_MAX_METRICS];
    const uint32_t want = x->K ? x->K : CGPROP_MAX_METRICS;
    while (nread < want) {
        size_t end = e;
        while (end > 0 && is_ws(s[end - 1])) end--;
        size_t b = end;
        while (b > 0 && !is_ws(s[b - 1])) b--;
        if (b == end || b == 0) break; /* no word left, or it would be the whole name */
        uint64_t v;
        int rc = number(s, b, end, &v);
        if (rc == CGPROP__NUM_OVERFLOW)
            return fail(x, CGPROP_EOVERFLOW, "reading '%s' does not fit in 64 bits", s + b, end - b);
        if (rc != CGPROP__NUM_OK) break;
        tmp[nread++] = v;
        e = b;
    }
    if (x->K && nread < x->K)
        return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line,
                                 "expected a function name and %u counter readings, found %zu readings", x->K,
                                 nread);
    if (!x->K) {
        if (!nread) return fail(x, CGPROP_EFORMAT, "expected a function name and counter readings: '%s'", s, n);
        x->K = (uint32_t)nread;
        int rc = start(x);
        if (rc) return rc;
    }
    for (uint32_t k = 0; k < x->K; k++) x->c[k] = tmp[x->K - 1 - k];
    size_t nl = e;
    while (nl > 0 && is_ws(s[nl - 1])) nl--;
    if (!nl) return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line, "missing function name");

    /* The display-name rule of the readers: no TAB inside a bare name. */
    const char *name = s;
    if (memchr(s, '\t', nl)) {
        if (nl > x->ncap) {
            char *p = cgprop__realloc(x->g, x->nbuf, nl, 1);
            if (!p) return cgprop__read_fail(x->err, CGPROP_ENOMEM, x->line, "out of memory");
            x->nbuf = p;
            x->ncap = nl;
        }
        for (size_t i = 0; i < nl; i++) x->nbuf[i] = s[i] == '\t' ? ' ' : s[i];
        name = x->nbuf;
    }

    for (uint32_t k = 0; k < x->K; k++)
        if (x->c[k] < x->last[k]) {
            size_t ml;
            const char *mn = cgprop_graph_metric_name(x->g, k, &ml);
            return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line,
                                     "counter '%.*s' runs backwards: %llu after %llu", (int)(ml > 64 ? 64 : ml),
                                     mn, (unsigned long long)x->c[k], (unsigned long long)x->last[k]);
        }
    uint32_t id;
    int rc;
    if (enter) {
        rc = cgprop_graph_add_node(x->g, name, nl, &id);
        if (rc) return cgprop__read_fail(x->err, rc, x->line, "%s", cgprop_graph_errmsg(x->g));
        rc = cgprop_recorder_enter(x->r, id, x->c);
    } else {
        /* An exit names the innermost open function or is an error: its
         * name is compared with that function's key, with no look-up
         * (keys are unique, so equal keys are the same function). */
        uint32_t top = cgprop__recorder_top(x->r);
        if (top == UINT32_MAX) return fail(x, CGPROP_EFORMAT, "exit of '%s' with no open activation", name, nl);
        size_t tl;
        const char *tn = cgprop_graph_node_key(x->g, top, &tl);
        id = top;
        if (tl != nl || memcmp(tn, name, nl) != 0) {
            char ex[84], ex2[84];
            cgprop__excerpt(ex, name, nl, 80);
            cgprop__excerpt(ex2, tn, tl, 80);
            return cgprop__read_fail(x->err, CGPROP_EFORMAT, x->line,
                                     "exit of '%s' but the innermost open function is '%s'", ex, ex2);
        }
        rc = cgprop_recorder_exit(x->r, id, x->c);
    }
    if (rc) return cgprop__read_fail(x->err, rc, x->line, "%s", cgprop_graph_errmsg(x->g));
    memcpy(x->last, x->c, x->K * sizeof x->c[0]);
    x->events++;
    return CGPROP_OK;
}

/* Whether the line s[0..n) starts with the word w of l bytes, followed by a
 * blank or the line's end. Called through WORD, whose literal gives l (the
 * compare is then inlined: no strlen and no call per line). */
static inline bool word(const char *s, size_t n, const char *w, size_t l, size_t *rest)
{
    if (n < l || memcmp(s, w, l) != 0 || (n > l && !is_ws(s[l]))) return false;
    *rest = l;
    return true;
}
#define WORD(s, n, lit, rest) word((s), (n), lit, sizeof lit - 1, (rest))

/* The lines of data[0..len), after *lines lines of the trace (a text read
 * in pieces: each ends after a newline); *lines counts them on. */
static int replay_lines(rd *x, const char *data, size_t len, uint64_t *lines)
{
    cgprop__lines L;
    cgprop__lines_init(&L, data, len);
    const char *s;
    size_t n;
    int rc = CGPROP_OK;
    while (!rc && cgprop__lines_next(&L, &s, &n)) {
        x->line = *lines + L.no;
        while (n && is_ws(*s)) s++, n--;
        while (n && is_ws(s[n - 1])) n--;
        if (!n) continue;
        size_t r;
        if (s[0] == '#') {
            size_t i = 1;
            while (i < n && is_ws(s[i])) i++;
            if (n - i >= 8 && memcmp(s + i, "metrics:", 8) == 0) rc = header(x, s + i + 8, n - i - 8);
            continue;
        }
        bool enter = WORD(s, n, "enter", &r);
        if (!enter && !WORD(s, n, "exit", &r))
            return fail(x, CGPROP_EFORMAT, "expected 'enter NAME READINGS', 'exit NAME READINGS' or a # comment: '%s'",
                        s, n);
        while (r < n && is_ws(s[r])) r++;
        rc = event(x, enter, s + r, n - r);
    }
    *lines += L.no;
    return rc;
}

/* The end of the trace, after its `lines` lines. */
static int replay_end(rd *x, uint64_t lines, cgprop_events_info *info)
{
    x->line = 0;
    if (!x->g) return cgprop__read_fail(x->err, CGPROP_EFORMAT, 0, "no events and no metrics header");
    size_t open = cgprop_recorder_depth(x->r);
    int rc = cgprop_recorder_flush(x->r, open ? x->last : NULL);
    if (rc) return cgprop__read_fail(x->err, rc, 0, "%s", cgprop_graph_errmsg(x->g));
    if (info) {
        info->lines = lines;
        info->events = x->events;
        info->unclosed = open;
        info->clamps = cgprop_recorder_clamp_count(x->r);
        info->floors = cgprop_recorder_floor_count(x->r);
    }
    return CGPROP_OK;
}

static void rd_init(rd *x, const cgprop_recorder_options *ropt, const cgprop_allocator *alloc, cgprop_read_error *err)
{
    memset(x, 0, sizeof *x);
    x->alloc = alloc;
    x->ropt = ropt;
    x->err = err;
}

/* The graph, or on failure nothing (rc): the reader's state freed. */
static int rd_finish(rd *x, int rc, cgprop_graph **out)
{
    if (x->g) cgprop__free(x->g, x->nbuf);
    cgprop_recorder_free(x->r);
    if (rc) {
        cgprop_graph_free(x->g);
        return rc;
    }
    *out = x->g;
    return CGPROP_OK;
}

static int run(const char *data, size_t len, const cgprop_recorder_options *ropt, const cgprop_allocator *alloc,
               cgprop_graph **out, cgprop_events_info *info, cgprop_read_error *err)
{
    rd x;
    rd_init(&x, ropt, alloc, err);
    uint64_t lines = 0;
    int rc = replay_lines(&x, data ? data : "", len, &lines);
    if (!rc) rc = replay_end(&x, lines, info);
    return rd_finish(&x, rc, out);
}

/* A trace read piece by piece (a pipe, or gzip): memory is a piece and the
 * recorder's state, not the trace, which grows with every call. */
static int stream_run(cgprop__src *src, size_t piece, const cgprop_recorder_options *ropt,
                      const cgprop_allocator *alloc, cgprop_graph **out, cgprop_events_info *info,
                      cgprop_read_error *err)
{
    *out = NULL;
    cgprop__pieces q;
    int rc = cgprop__pieces_open(&q, src, cgprop__cut_after_newline, piece, piece, 0, alloc, err);
    if (rc) return rc;
    rd x;
    rd_init(&x, ropt, alloc, err);
    uint64_t lines = 0;
    bool done = false;
    while (!rc && !(rc = cgprop__pieces_next(&q, &done)) && !done) rc = replay_lines(&x, q.buf, q.cut, &lines);
    cgprop__pieces_close(&q);
    if (!rc) rc = replay_end(&x, lines, info);
    return rd_finish(&x, rc, out);
}

/* Keys of event traces are the bare names whatever the key mode; the
 * calling contexts are kept when asked for. */
static const cgprop_recorder_options *read_ropt(const cgprop_read_options *opts, cgprop_recorder_options *ro)
{
    cgprop_recorder_options_init(ro);
    ro->flags = CGPROP_REC_CONTEXTS;
    return opts->contexts ? ro : NULL;
}

int cgprop__events_read_stream(cgprop__src *src, size_t piece, const cgprop_read_options *opts,
                               const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_error *err)
{
    cgprop_recorder_options ro;
    return stream_run(src, piece, read_ropt(opts, &ro), alloc, out, NULL, err);
}

int cgprop__events_read(const char *data, size_t len, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_error *err)
{
    cgprop_recorder_options ro;
    *out = NULL;
    return run(data, len, read_ropt(opts, &ro), alloc, out, NULL, err);
}

static void set_name(cgprop_read_error *err, const char *name, size_t len)
{
    if (!err) return;
    if (!name) {
        name = "<buffer>";
        len = 8;
    }
    size_t m = len < sizeof err->file - 1 ? len : sizeof err->file - 1;
    memcpy(err->file, name, m);
    err->file[m] = '\0';
}

static int events_buffer(const char *data, size_t len, const char *name, size_t name_len,
                         const cgprop_recorder_options *ropt, const cgprop_allocator *alloc, cgprop_graph **out,
                         cgprop_events_info *info, cgprop_read_error *err)
{
    set_name(err, name, name_len);
    if (out) *out = NULL;
    if (!out || (!data && len))
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: %s", !out ? "out is NULL" : "data is NULL");
    if (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn))
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: incomplete allocator");
    if (!cgprop__is_gzip(data, len)) return run(data, len, ropt, alloc, out, info, err);
    /* A gzipped trace, as every reader takes one: one layer. */
    char *in;
    size_t in_len;
    int rc = cgprop__gunzip_layer(data, len, alloc, &in, &in_len, err);
    if (!rc) rc = run(in, in_len, ropt, alloc, out, info, err);
    cgprop__ra_free(alloc, in);
    return rc;
}

static int events_file(const char *path, size_t path_len, const cgprop_recorder_options *ropt,
                       const cgprop_allocator *alloc, cgprop_graph **out, cgprop_events_info *info,
                       cgprop_read_error *err)
{
    if (out) *out = NULL;
    if (!out) {
        set_name(err, path, path ? path_len : 0);
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: out is NULL");
    }
    if (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn)) {
        set_name(err, path, path ? path_len : 0);
        return cgprop__read_fail(err, CGPROP_EINVAL, 0, "invalid argument: incomplete allocator");
    }
    cgprop__file f;
    int rc = cgprop__file_open_head(&f, path, path_len, alloc, CGPROP__STREAM_HEAD);
    if (rc == CGPROP_EINVAL) {
        set_name(err, path, path ? path_len : 0);
        return cgprop__read_fail(err, rc, 0, "invalid argument: bad path");
    }
    set_name(err, f.name, strlen(f.name));
    if (rc == CGPROP_ENOMEM) return cgprop__read_fail(err, rc, 0, "out of memory loading the input");
    if (rc) return cgprop__read_fail(err, rc, 0, "%s: %s", f.why, cgprop__errno_text(f.errnum));
    bool gz = cgprop__is_gzip(f.data, f.len);
    char peek[2];
    size_t pn = 0;
    /* Gzip inside gzip is read whole, where it is refused. */
    bool layers = gz && cgprop__gunzip_peek(f.data, f.len, peek, sizeof peek, &pn) && cgprop__is_gzip(peek, pn);
    if ((f.more || gz) && !layers) {
        /* A pipe (a traced program writing into it), or gzip: read as it
         * comes, inflated as it goes. */
        cgprop__src src;
        rc = cgprop__src_open(&src, &f, alloc, err);
        if (!rc) rc = stream_run(&src, CGPROP__STREAM_HEAD, ropt, alloc, out, info, err);
        cgprop__src_close(&src);
    } else {
        rc = cgprop__file_rest(&f);
        if (rc == CGPROP_ENOMEM) rc = cgprop__read_fail(err, rc, 0, "out of memory loading the input");
        else if (rc) rc = cgprop__read_fail(err, rc, 0, "%s: %s", f.why, cgprop__errno_text(f.errnum));
        else rc = events_buffer(f.data, f.len, f.name, strlen(f.name), ropt, alloc, out, info, err);
    }
    cgprop__file_close(&f);
    return rc;
}

void cgprop_events_info_init(cgprop_events_info *info)
{
    if (!info) return;
    memset(info, 0, sizeof *info);
    info->size = (uint32_t)sizeof *info;
}

/* As the readers' entry points: full-size working copies, the caller's
 * prefix filled at the end. */
static int events_begin(cgprop__out *o, cgprop_events_info *tmp, cgprop_events_info *info, cgprop_read_error *err)
{
    int rc = cgprop__out_begin(o, NULL, err);
    if (rc) return rc;
    cgprop_events_info_init(tmp);
    if (info && !cgprop__size_ok(info, sizeof *info)) {
        cgprop__read_fail(&o->err, CGPROP_EINVAL, 0,
                          "invalid argument: info size %u: call cgprop_events_info_init() first", info->size);
        return cgprop__out_end(o, CGPROP_EINVAL);
    }
    return CGPROP_OK;
}

static int events_end(cgprop__out *o, cgprop_events_info *tmp, cgprop_events_info *info, int rc)
{
    if (info && rc == CGPROP_OK) cgprop__info_out(info, tmp, sizeof *tmp);
    return cgprop__out_end(o, rc);
}

int cgprop_events_read_buffer(const char *data, size_t len, const char *name, size_t name_len,
                              const cgprop_recorder_options *ropt, const cgprop_allocator *alloc, cgprop_graph **out,
                              cgprop_events_info *info, cgprop_read_error *err)
{
    cgprop__out o;
    cgprop_events_info tmp;
    int rc = events_begin(&o, &tmp, info, err);
    if (rc) {
        if (out) *out = NULL;
        return rc;
    }
    return events_end(&o, &tmp, info, events_buffer(data, len, name, name_len, ropt, alloc, out, &tmp, &o.err));
}

int cgprop_events_read_file(const char *path, size_t path_len, const cgprop_recorder_options *ropt,
                            const cgprop_allocator *alloc, cgprop_graph **out, cgprop_events_info *info,
                            cgprop_read_error *err)
{
    cgprop__out o;
    cgprop_events_info tmp;
    int rc = events_begin(&o, &tmp, info, err);
    if (rc) {
        if (out) *out = NULL;
        return rc;
    }
    return events_end(&o, &tmp, info, events_file(path, path_len, ropt, alloc, out, &tmp, &o.err));
}
