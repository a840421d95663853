/* perf script, folded stacks and callgrind profiles read piece by piece (a
 * pipe, or gzip inflated as it goes): the graph must be the one the same
 * text gives when read whole, whatever the pieces' size, from memory or
 * from a stream that cannot be read twice; events first named late, errors
 * in later pieces, gzip members and damage, allocation failures, the memory
 * a long stream costs, and the public entry point on a named pipe. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include "ck_quiet.h"
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef CGPROP_TEST_ZLIB
#include <zlib.h>
#endif

#include "cgprop_io.h"
#include "io/io_util.h"
#include "support.h"



/* Every figure of every metric, as the JSON report carries them, after
 * every analysis. */
static char *json(cgprop_graph *g, size_t *n)
{
    tanalyse(g, CGPROP_SHARE_COUNT);
    char *j = trender(g, CGPROP_FORMAT_JSON, NULL);
    *n = strlen(j);
    return j;
}

/* Two graphs give the same report, figure for figure; `what` says which
 * read differed. */
static void json_same(cgprop_graph *a, cgprop_graph *b, const char *what, ...)
{
    char ctx[128];
    va_list ap;
    va_start(ap, what);
    vsnprintf(ctx, sizeof ctx, what, ap);
    va_end(ap);
    size_t na, nb;
    char *ja = json(a, &na), *jb = json(b, &nb);
    ck_assert_msg(na == nb && memcmp(ja, jb, na) == 0, "%s: the graphs differ", ctx);
    free(ja);
    free(jb);
}

static cgprop_graph *whole_fmt(uint32_t fmt, const char *text, size_t n)
{
    cgprop_read_options o = tformat(fmt);
    return tread(text, n, "w", &o, NULL);
}

/* A stream of text[0..n): its first `head` bytes in memory, the rest (if
 * any) in a stream that cannot be rewound; head == n: all in memory, as a
 * mapped file. */
typedef struct tstream {
    cgprop__file f;
    char path[64];
} tstream;

static void tstream_open(tstream *t, const char *text, size_t n, size_t head)
{
    memset(t, 0, sizeof *t);
    t->f.data = text;
    t->f.len = head < n ? head : n;
    t->f.name = "t";
    if (head < n) {
        snprintf(t->path, sizeof t->path, "/tmp/cgprop-stream-XXXXXX");
        int fd = mkstemp(t->path);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(write(fd, text + head, n - head), (ssize_t)(n - head));
        close(fd);
        t->f.in = fopen(t->path, "rb");
        ck_assert_ptr_nonnull(t->f.in);
        t->f.more = true;
    }
}

static void tstream_close(tstream *t)
{
    if (t->f.in) fclose(t->f.in);
    if (t->path[0]) unlink(t->path);
}

/* head: the bytes in memory before the stream; guess: the first piece,
 * where perf's events are listed; piece: the others. */
static int rd_stream_fmt(uint32_t fmt, const char *text, size_t n, size_t head, size_t guess, size_t piece,
                         const cgprop_allocator *a, cgprop_graph **g, cgprop_read_error *err)
{
    tstream t;
    tstream_open(&t, text, n, head);
    cgprop_read_options o = tformat(fmt);
    cgprop_read_error_init(err);
    cgprop__src src;
    int rc = cgprop__src_open(&src, &t.f, a, err);
    if (!rc) rc = cgprop__read_pieces(&src, fmt, guess, piece, &o, a, g, NULL, err);
    cgprop__src_close(&src);
    tstream_close(&t);
    return rc;
}

static int rd_stream2(const char *text, size_t n, size_t head, size_t guess, size_t piece, const cgprop_allocator *a,
                      cgprop_graph **g, cgprop_read_error *err)
{
    return rd_stream_fmt(CGPROP_INPUT_PERF, text, n, head, guess, piece, a, g, err);
}

static int rd_stream(const char *text, size_t n, size_t head, size_t piece, const cgprop_allocator *a,
                     cgprop_graph **g, cgprop_read_error *err)
{
    return rd_stream2(text, n, head, piece, piece, a, g, err);
}

/* The text read in pieces gives the graph the whole text gives. */
static void fmt_same(uint32_t fmt, const char *text, size_t n, size_t head, size_t guess, size_t piece)
{
    cgprop_graph *a = whole_fmt(fmt, text, n), *b = NULL;
    cgprop_read_error err;
    int rc = rd_stream_fmt(fmt, text, n, head, guess, piece, NULL, &b, &err);
    ck_assert_msg(rc == CGPROP_OK, "piece %zu: line %llu: %s", piece, (unsigned long long)err.line, err.reason);
    json_same(a, b, "piece %zu, head %zu", piece, head);
    cgprop_graph_free(a);
    cgprop_graph_free(b);
}

/* Read in pieces, the text gives what it gives whole: the same graph, or
 * the same refusal (code, line and reason). */
static void same_or_refused(uint32_t fmt, const char *text, size_t n, size_t head, size_t piece)
{
    cgprop_read_options o = tformat(fmt);
    cgprop_read_error werr, serr;
    cgprop_read_error_init(&werr);
    cgprop_graph *a = NULL, *b = NULL;
    int wrc = cgprop_read_buffer(text, n, "w", 1, &o, NULL, &a, NULL, &werr);
    int src = rd_stream_fmt(fmt, text, n, head, piece, piece, NULL, &b, &serr);
    ck_assert_msg(wrc == src, "piece %zu, head %zu: whole %d (%s), pieces %d (%s)", piece, head, wrc, werr.reason,
                  src, serr.reason);
    if (wrc == CGPROP_OK) {
        json_same(a, b, "piece %zu, head %zu", piece, head);
    } else {
        ck_assert(b == NULL);
        ck_assert_msg(serr.line == werr.line && strcmp(serr.reason, werr.reason) == 0,
                      "piece %zu, head %zu: whole at line %llu (%s), pieces at %llu (%s)", piece, head,
                      (unsigned long long)werr.line, werr.reason, (unsigned long long)serr.line, serr.reason);
    }
    cgprop_graph_free(a);
    cgprop_graph_free(b);
}

static void same_as_whole(const char *text, size_t n, size_t head, size_t guess, size_t piece)
{
    fmt_same(CGPROP_INPUT_PERF, text, n, head, guess, piece);
}

static const char *const fixtures[] = {"recur.perf", "recur-dwarf.perf", "faults.perf", "names.perf",
                                       "names-tid.perf", "names-period.perf", "names-extras.perf"};

/* Pieces smaller than a sample (the piece grows), about a sample, and
 * larger; from memory and from a stream after a head of a few bytes. */
START_TEST(real_recordings)
{
    char path[512];
    snprintf(path, sizeof path, "%s/perf/%s", TDATA, fixtures[_i]);
    size_t n;
    char *text = tslurp(path, &n);
    static const size_t pieces[] = {1, 97, 1000, 4096, 65536};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        same_as_whole(text, n, n, pieces[k], pieces[k]);
        /* From a stream, with every event in the first piece. */
        same_as_whole(text, n, 3, n - 1, pieces[k]);
    }
    free(text);
}
END_TEST

/* A text's lines, each with its newline (a last line without one is left
 * out). */
typedef struct tlines {
    const char **line;
    size_t *len, k;
} tlines;

static tlines tlines_of(const char *text, size_t n)
{
    tlines l;
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) nl += text[i] == '\n';
    l.line = malloc((nl + 1) * sizeof *l.line);
    l.len = malloc((nl + 1) * sizeof *l.len);
    l.k = 0;
    for (size_t i = 0, b = 0; i < n; i++)
        if (text[i] == '\n') {
            l.line[l.k] = text + b;
            l.len[l.k++] = i - b + 1;
            b = i + 1;
        }
    return l;
}

static void tlines_free(tlines *l)
{
    free(l->line);
    free(l->len);
}

/* A damaged copy of the lines into t (room for cap bytes, at least their
 * length and a junk line more): one line in `rate` dropped, one swapped
 * for a junk line, one cut in half and one repeated (while room is left).
 * Its length. */
static size_t damage(const tlines *l, const char *const *junk, size_t njunk, unsigned rate, unsigned *seed, char *t,
                     size_t cap)
{
    size_t m = 0;
    for (size_t j = 0; j < l->k; j++) {
        *seed = *seed * 1103515245u + 12345u;
        unsigned r = (*seed >> 16) % rate;
        if (r == 0) continue; /* dropped */
        if (r == 1) { /* swapped for another */
            const char *jk = junk[(*seed >> 8) % njunk];
            memcpy(t + m, jk, strlen(jk));
            m += strlen(jk);
            continue;
        }
        if (r == 2) { /* cut */
            size_t c = l->len[j] / 2;
            memcpy(t + m, l->line[j], c);
            m += c;
            t[m++] = '\n';
            continue;
        }
        memcpy(t + m, l->line[j], l->len[j]);
        m += l->len[j];
        if (r == 3 && m + l->len[j] < cap) { /* repeated */
            memcpy(t + m, l->line[j], l->len[j]);
            m += l->len[j];
        }
    }
    return m;
}

/* Damaged recordings (lines dropped, repeated, cut or swapped for others):
 * read from a stream in small pieces, each is read as the whole text is,
 * or refused where the whole text is (the error may be another: a stream
 * reports the first it meets, the whole text the first pass's first). */
START_TEST(damaged)
{
    char path[512];
    snprintf(path, sizeof path, "%s/perf/%s", TDATA, fixtures[_i]);
    size_t n;
    char *text = tslurp(path, &n);
    tlines l = tlines_of(text, n);
    static const char *const junk[] = {"\n", "\t\n", "# c\n", "x\n", "\tfff 12\n", "p 1 [000] 1.0: 5 ev: \n"};
    unsigned seed = 12345u + (unsigned)_i;
    char *t = malloc(2 * n + 64);
    for (int round = 0; round < 60; round++) {
        size_t m = damage(&l, junk, sizeof junk / sizeof junk[0], 400, &seed, t, 2 * n);
        cgprop_read_options o = tformat(CGPROP_INPUT_PERF);
        cgprop_read_error werr, serr;
        cgprop_read_error_init(&werr);
        cgprop_graph *a = NULL, *b = NULL;
        int wrc = cgprop_read_buffer(t, m, "w", 1, &o, NULL, &a, NULL, &werr);
        int src = rd_stream2(t, m, 1 + round % 7, m, 300 + 97 * (size_t)round, NULL, &b, &serr);
        ck_assert_msg((wrc == CGPROP_OK) == (src == CGPROP_OK), "round %d: whole %d (%s), stream %d (%s)", round, wrc,
                      werr.reason, src, serr.reason);
        if (wrc == CGPROP_OK) json_same(a, b, "round %d", round);
        cgprop_graph_free(a);
        cgprop_graph_free(b);
    }
    free(t);
    tlines_free(&l);
    free(text);
}
END_TEST

/* One read of an allocation-failure sweep (`left` allocations allowed):
 * out of memory with no graph, or the graph (freed here); nothing leaked.
 * True when it succeeded. */
static bool attempt(int rc, cgprop_graph *g, const cgprop_read_error *err, const tfail *f, long left)
{
    if (rc == CGPROP_OK) cgprop_graph_free(g);
    else {
        ck_assert_msg(rc == CGPROP_ENOMEM, "left %ld: %d %s", left, rc, err->reason);
        ck_assert(g == NULL);
    }
    ck_assert_int_eq(f->live, 0);
    return rc == CGPROP_OK;
}

/* Every allocation failure in a read of text in pieces (from a stream
 * after head bytes) is reported and leaks nothing; one read succeeds. */
static void fail_sweep(uint32_t fmt, const char *text, size_t n, size_t head, size_t piece)
{
    bool ok = false;
    for (long left = 0; left < 100000 && !ok; left++) {
        tfail f;
        cgprop_allocator a = tfail_allocator(&f, left);
        cgprop_graph *g = NULL;
        cgprop_read_error err;
        int rc = rd_stream_fmt(fmt, text, n, head, piece, piece, &a, &g, &err);
        ok = attempt(rc, g, &err, &f, left);
    }
    ck_assert(ok);
}

/* Samples of event A past the first piece, then the first of event B. */
static char *late_text(size_t *n, size_t filler)
{
    const char *a = "p 1 [000] 1.000001:     100 ev-a: \n\t401000 leaf+0x1 (/bin/p)\n\t401100 main+0x2 (/bin/p)\n\n";
    const char *b = "p 1 [000] 2.000001:     7 ev-b: \n\t401000 leaf+0x1 (/bin/p)\n\t401100 main+0x2 (/bin/p)\n\n";
    size_t la = strlen(a), lb = strlen(b);
    char *t = malloc(la * filler + lb + 1);
    for (size_t i = 0; i < filler; i++) memcpy(t + i * la, a, la);
    memcpy(t + la * filler, b, lb + 1);
    *n = la * filler + lb;
    return t;
}

/* A stream lists its events from its first piece. One that cannot be read
 * again refuses an event named later, at its line, saying what to do; one
 * in memory (a mapped gzip file) is walked again with every event. */
START_TEST(late_event)
{
    size_t n;
    char *t = late_text(&n, 200);
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    int rc = rd_stream(t, n, 10, 4096, NULL, &g, &err);
    ck_assert_int_eq(rc, CGPROP_EFORMAT);
    ck_assert(g == NULL);
    ck_assert_uint_eq(err.line, 200 * 4 + 1);
    ck_assert_msg(strstr(err.reason, "write the text to a file") != NULL, "%s", err.reason);
    rc = rd_stream(t, n, n, 4096, NULL, &g, &err);
    ck_assert_msg(rc == CGPROP_OK, "%s", err.reason);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "ev-a");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "ev-b");
    /* 200 samples of 100 in A, one of 7 in B, 201 in the count. */
    ck_assert_uint_eq(tself_sum(g, 0), 20000);
    ck_assert_uint_eq(tself_sum(g, 1), 7);
    ck_assert_uint_eq(tself_sum(g, 2), 201);
    cgprop_graph_free(g);
    same_as_whole(t, n, n, 4096, 4096);
    /* Allocation failures in those two walks again. */
    fail_sweep(CGPROP_INPUT_PERF, t, n, n, 4096);
    free(t);
}
END_TEST

/* No sample in the first piece: nothing to guess the events from. */
START_TEST(no_sample_first)
{
    size_t n0;
    char *s = late_text(&n0, 3);
    /* perf script --header prints comments, and blank lines among them. */
    size_t nc = 3000, n = nc * 3 + n0;
    char *t = malloc(n + 1);
    for (size_t i = 0; i < nc; i++) memcpy(t + 3 * i, "#\n\n", 3);
    memcpy(t + 3 * nc, s, n0 + 1);
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    ck_assert_int_eq(rd_stream(t, n, 10, 1024, NULL, &g, &err), CGPROP_EFORMAT);
    ck_assert_msg(strstr(err.reason, "no sample in the first") != NULL, "%s", err.reason);
    same_as_whole(t, n, n, 1024, 1024);
    free(s);
    free(t);
}
END_TEST

/* An error in a later piece names its line in the whole text, as the whole
 * text's read does. */
START_TEST(error_line)
{
    size_t n0;
    char *s = late_text(&n0, 300);
    /* The 251st sample's period overflows. */
    const char *a = "p 1 [000] 1.000001:     100 ev-a: ";
    char *hdr = s;
    for (int i = 0; i < 250; i++) hdr = strstr(hdr + 1, a);
    const char *big = "p 1 [000] 1.000001: 99999999999999999999999 ev-a: ";
    size_t pre = (size_t)(hdr - s), la = strlen(a), lbig = strlen(big);
    char *t = malloc(n0 + lbig);
    memcpy(t, s, pre);
    memcpy(t + pre, big, lbig);
    memcpy(t + pre + lbig, hdr + la, n0 - pre - la + 1);
    size_t n = n0 - la + lbig;
    cgprop_read_options o = tformat(CGPROP_INPUT_PERF);
    cgprop_read_error werr, serr;
    cgprop_read_error_init(&werr);
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_read_buffer(t, n, "w", 1, &o, NULL, &g, NULL, &werr), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(werr.line, 250 * 4 + 1);
    ck_assert_int_eq(rd_stream(t, n, 5, 2048, NULL, &g, &serr), CGPROP_EOVERFLOW);
    ck_assert(g == NULL);
    ck_assert_uint_eq(serr.line, werr.line);
    ck_assert_str_eq(serr.reason, werr.reason);
    free(s);
    free(t);
}
END_TEST

/* In the pieces, the names kept and the graph. */
START_TEST(alloc_failures)
{
    char path[512];
    snprintf(path, sizeof path, "%s/perf/%s", TDATA, _i ? "recur-dwarf.perf" : "names-extras.perf");
    size_t n;
    char *text = tslurp(path, &n);
    fail_sweep(CGPROP_INPUT_PERF, text, n, _i ? 7 : n, 512);
    free(text);
}
END_TEST

/* Peak bytes allocated. */
typedef struct peak {
    size_t live, most;
} peak;

static void *pk_malloc(void *u, size_t n)
{
    peak *p = u;
    size_t *b = malloc(n + sizeof(size_t) * 2);
    if (!b) return NULL;
    b[0] = n;
    p->live += n;
    if (p->live > p->most) p->most = p->live;
    return b + 2;
}

static void pk_free(void *u, void *q)
{
    if (!q) return;
    size_t *b = (size_t *)q - 2;
    ((peak *)u)->live -= b[0];
    free(b);
}

static void *pk_realloc(void *u, void *q, size_t n)
{
    if (!q) return pk_malloc(u, n);
    size_t *b = (size_t *)q - 2, old = b[0];
    void *r = pk_malloc(u, n);
    if (!r) return NULL;
    memcpy(r, q, old < n ? old : n);
    pk_free(u, q);
    return r;
}

/* The most the reader of fmt allocates for `copies` copies of one text,
 * read from a stream in 64 KiB pieces; the copies add up: every self cost
 * is that many times the one copy's. */
static size_t stream_peak(uint32_t fmt, const char *one, size_t n1, size_t copies)
{
    char *text = malloc(n1 * copies);
    for (size_t i = 0; i < copies; i++) memcpy(text + i * n1, one, n1);
    peak pk = {0, 0};
    cgprop_allocator a = {pk_malloc, pk_realloc, pk_free, &pk};
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    int rc = rd_stream_fmt(fmt, text, n1 * copies, 0, 65536, 65536, &a, &g, &err);
    ck_assert_msg(rc == CGPROP_OK, "%s", err.reason);
    cgprop_graph *w = whole_fmt(fmt, one, n1);
    for (uint32_t m = 0; m < cgprop_graph_metric_count(w); m++)
        ck_assert_uint_eq(tself_sum(g, m), copies * tself_sum(w, m));
    cgprop_graph_free(g);
    cgprop_graph_free(w);
    free(text);
    return pk.most;
}

/* A long recording read from a stream holds a piece and the graph, not the
 * text: 40 copies of recur.perf (8.7 MB) take no more than 10 copies do,
 * and a small part of the text. */
START_TEST(bounded_memory)
{
    size_t n1;
    char *one = tslurp(TDATA "/perf/recur.perf", &n1);
    size_t p10 = stream_peak(CGPROP_INPUT_PERF, one, n1, 10), p40 = stream_peak(CGPROP_INPUT_PERF, one, n1, 40);
    ck_assert_msg(p40 <= p10 + 4096, "peak %zu bytes for 40 copies, %zu for 10", p40, p10);
    ck_assert_msg(p40 < n1 * 40 / 16, "peak %zu bytes for a text of %zu", p40, n1 * 40);
    free(one);
}
END_TEST

#ifdef CGPROP_TEST_ZLIB
static cgprop_graph *whole(const char *text, size_t n) { return whole_fmt(CGPROP_INPUT_PERF, text, n); }

static char *gz(const char *text, size_t n, size_t *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n);
    char *b = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)text;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)b;
    z.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
    *out = cap - z.avail_out;
    deflateEnd(&z);
    return b;
}

/* gzip inflated as it is read: one member or two (as `cat a.gz b.gz`
 * makes, with zero padding after), from memory and from a stream; damage
 * is reported at its byte. */
START_TEST(gzip_pieces)
{
    size_t n;
    char *text = tslurp(TDATA "/perf/recur.perf", &n);
    size_t zn;
    char *z = gz(text, n, &zn);
    cgprop_graph *w = whole(text, n), *g = NULL;
    size_t nw;
    char *jw = json(w, &nw);
    cgprop_read_error err;
    for (int from_stream = 0; from_stream < 2; from_stream++) {
        ck_assert_int_eq(rd_stream(z, zn, from_stream ? 100 : zn, 4096, NULL, &g, &err), CGPROP_OK);
        size_t ng;
        char *jg = json(g, &ng);
        ck_assert(ng == nw && memcmp(jg, jw, nw) == 0);
        free(jg);
        cgprop_graph_free(g);
    }
    /* Two members and padding: the text twice. */
    char *z2 = malloc(2 * zn + 16);
    memcpy(z2, z, zn);
    memcpy(z2 + zn, z, zn);
    memset(z2 + 2 * zn, 0, 16);
    char *t2 = malloc(2 * n);
    memcpy(t2, text, n);
    memcpy(t2 + n, text, n);
    cgprop_graph *w2 = whole(t2, 2 * n);
    ck_assert_int_eq(rd_stream(z2, 2 * zn + 16, 50, 4096, NULL, &g, &err), CGPROP_OK);
    for (uint32_t m = 0; m < cgprop_graph_metric_count(w2); m++) ck_assert_uint_eq(tself_sum(g, m), tself_sum(w2, m));
    cgprop_graph_free(g);
    /* Truncated, corrupt, and followed by bytes that are no gzip. */
    ck_assert_int_eq(rd_stream(z, zn - 9, 64, 4096, NULL, &g, &err), CGPROP_EFORMAT);
    ck_assert_msg(strstr(err.reason, "truncated") != NULL, "%s", err.reason);
    char *bad = malloc(zn);
    memcpy(bad, z, zn);
    for (size_t i = zn / 2; i < zn / 2 + 64; i++) bad[i] = (char)(bad[i] ^ 0x5a);
    ck_assert_int_eq(rd_stream(bad, zn, zn, 4096, NULL, &g, &err), CGPROP_EFORMAT);
    ck_assert_msg(strstr(err.reason, "gzip input") != NULL, "%s", err.reason);
    memcpy(z2 + zn, "junk", 4);
    ck_assert_int_eq(rd_stream(z2, zn + 4, zn + 4, 4096, NULL, &g, &err), CGPROP_EFORMAT);
    ck_assert_msg(strstr(err.reason, "after the end of the compressed data") != NULL, "%s", err.reason);
    ck_assert_uint_eq(err.line, zn + 1);
    free(bad);
    free(z2);
    free(t2);
    free(jw);
    cgprop_graph_free(w);
    cgprop_graph_free(w2);
    free(z);
    free(text);
}
END_TEST

/* An event named past the first piece of a gzipped file, mid-way (more
 * text follows than one read takes): inflated again from the first byte,
 * twice, the same graph as the text read whole; from a gzip stream,
 * refused. */
START_TEST(gzip_late_event)
{
    size_t n0, n1, zn;
    char *t0 = late_text(&n0, 1000), *t1 = late_text(&n1, 1000);
    size_t a1 = (size_t)(strstr(t1, "ev-b") - t1); /* its A samples, not its B */
    while (t1[a1 - 1] != '\n') a1--;
    size_t n = n0 + a1;
    char *t = malloc(n);
    memcpy(t, t0, n0);
    memcpy(t + n0, t1, a1);
    free(t0);
    free(t1);
    char *z = gz(t, n, &zn);
    cgprop_graph *w = whole(t, n), *g = NULL;
    cgprop_read_error err;
    ck_assert_int_eq(rd_stream(z, zn, zn, 4096, NULL, &g, &err), CGPROP_OK);
    size_t nw, ng;
    char *jw = json(w, &nw), *jg = json(g, &ng);
    ck_assert(nw == ng && memcmp(jw, jg, nw) == 0);
    cgprop_graph_free(g);
    ck_assert_int_eq(rd_stream(z, zn, 20, 4096, NULL, &g, &err), CGPROP_EFORMAT);
    ck_assert_uint_eq(err.line, 1000 * 4 + 1);
    ck_assert(g == NULL);
    free(jw);
    free(jg);
    cgprop_graph_free(w);
    free(z);
    free(t);
}
END_TEST
#endif

/* ---- folded stacks ---- */

static void folded_same(const char *text, size_t n, size_t head, size_t piece)
{
    fmt_same(CGPROP_INPUT_FOLDED, text, n, head, 0, piece);
}

/* Random stacks over a few names (recursion, shared roots), two weights,
 * comments, blank lines, CRLF and a tab in a name, after a byte order
 * mark. */
static char *folded_text(size_t lines, unsigned seed, size_t *n)
{
    static const char *const nm[] = {"main", "a", "b", "c\td", "fib", "x::y(int, char)", "[unknown]", "w"};
    size_t cap = lines * 400 + 16, m = 0;
    char *t = malloc(cap);
    memcpy(t, "\xef\xbb\xbf", 3);
    m = 3;
    for (size_t l = 0; l < lines; l++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        if (r % 50 == 0) {
            m += (size_t)sprintf(t + m, "# comment %zu\n\n", l);
            continue;
        }
        size_t depth = 1 + r % 30;
        m += (size_t)sprintf(t + m, "main");
        for (size_t d = 1; d < depth; d++) {
            seed = seed * 1103515245u + 12345u;
            m += (size_t)sprintf(t + m, ";%s", nm[(seed >> 12) % 8]);
        }
        m += (size_t)sprintf(t + m, " %u %u%s", 1 + (r >> 5) % 1000, (r >> 3) % 7, r % 3 == 0 ? "\r\n" : "\n");
    }
    *n = m;
    return t;
}

START_TEST(folded_pieces)
{
    size_t n;
    char *t = folded_text(3000, 77u, &n);
    static const size_t pieces[] = {1, 61, 4096, 1 << 20};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        folded_same(t, n, n, pieces[k]);
        folded_same(t, n, 2, pieces[k]);
    }
    free(t);
}
END_TEST

/* An error in a later piece: the same line and reason as the whole text's. */
START_TEST(folded_error_line)
{
    size_t n;
    char *t = folded_text(3000, 5u, &n);
    /* The 2000th newline's line loses its second weight. */
    size_t at = 0;
    for (int nl = 0; nl < 2000; at++) nl += t[at] == '\n';
    while (t[at] == '#' || t[at] == '\n') {
        while (t[at] != '\n') at++;
        at++;
    }
    char *e = memchr(t + at, '\n', n - at);
    size_t k = (size_t)(e - t);
    if (t[k - 1] == '\r') k--;
    while (t[k - 1] != ' ') k--; /* the second weight */
    memmove(t + k - 1, t + k + 1, n - k - 1);
    n -= 2;
    cgprop_read_options o = tformat(CGPROP_INPUT_FOLDED);
    cgprop_read_error werr, serr;
    cgprop_read_error_init(&werr);
    cgprop_graph *g = NULL;
    int wrc = cgprop_read_buffer(t, n, "w", 1, &o, NULL, &g, NULL, &werr);
    ck_assert_int_eq(wrc, CGPROP_EFORMAT);
    ck_assert_uint_eq(werr.line, 2001);
    ck_assert_int_eq(rd_stream_fmt(CGPROP_INPUT_FOLDED, t, n, 3, 0, 1000, NULL, &g, &serr), wrc);
    ck_assert(g == NULL);
    ck_assert_uint_eq(serr.line, werr.line);
    ck_assert_str_eq(serr.reason, werr.reason);
    free(t);
}
END_TEST

START_TEST(folded_alloc_failures)
{
    size_t n;
    char *t = folded_text(200, 9u, &n);
    fail_sweep(CGPROP_INPUT_FOLDED, t, n, _i ? 7 : n, 300);
    free(t);
}
END_TEST

/* ---- event traces ---- */

/* A random trace: a header (or none: the metrics then counted on the first
 * event), comments, blank lines, CRLF, names with blanks and a TAB,
 * recursion, and activations left open at the end unless `closed`. Two
 * counters, never running backwards. */
static char *trace_text(size_t lines, unsigned seed, bool closed, size_t *n)
{
    static const char *const nm[] = {"main", "fib", "ping", "pong", "a b", "x\ty", "operator new(unsigned long)"};
    size_t cap = lines * 64 + 4096, m = 0, depth = 0;
    size_t *stack = malloc((lines + 2) * sizeof *stack);
    char *t = malloc(cap);
    unsigned long long c1 = 0, c2 = 1000;
    if (seed % 2) m += (size_t)sprintf(t + m, "# a trace\n# metrics: ns instructions\n");
    for (size_t l = 0; l < lines; l++) {
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        c1 += r % 100;
        c2 += r % 1000;
        if (r % 97 == 0) {
            m += (size_t)sprintf(t + m, r % 2 ? "# comment\n" : "\n");
            continue;
        }
        const char *eol = r % 5 == 0 ? "\r\n" : "\n";
        if (depth > 1 && (r % 3 == 0 || depth > 40)) {
            m += (size_t)sprintf(t + m, "exit %s %llu %llu%s", nm[stack[--depth]], c1, c2, eol);
        } else {
            size_t f = depth ? 1 + (r >> 4) % 6 : 0;
            stack[depth++] = f;
            m += (size_t)sprintf(t + m, "enter %s %llu %llu%s", nm[f], c1, c2, eol);
        }
    }
    while (closed && depth) m += (size_t)sprintf(t + m, "exit %s %llu %llu\n", nm[stack[--depth]], c1, ++c2);
    free(stack);
    *n = m;
    return t;
}

START_TEST(ev_pieces)
{
    size_t n;
    char *t = trace_text(4000, 11u + (unsigned)_i, _i == 0, &n);
    static const size_t pieces[] = {1, 61, 4096, 1 << 20};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        same_or_refused(CGPROP_INPUT_EVENTS, t, n, n, pieces[k]);
        same_or_refused(CGPROP_INPUT_EVENTS, t, n, 2, pieces[k]);
    }
    free(t);
}
END_TEST

/* Damaged traces: exits that match no open function, counters that run
 * backwards, headers after the first event, words that are not numbers;
 * each is refused at the same line with the same reason in pieces. */
START_TEST(ev_damaged)
{
    size_t n;
    char *text = trace_text(3000, 21u, true, &n);
    tlines l = tlines_of(text, n);
    static const char *const junk[] = {"\n", "exit main 1 2\n", "enter f 5\n", "# metrics: a b\n", "enter g x y\n",
                                       "bogus\n", "enter h 99999999999999999999 1\n", "exit\n"};
    unsigned seed = 31u + (unsigned)_i;
    char *t = malloc(2 * n + 128);
    for (int round = 0; round < 40; round++) {
        size_t m = damage(&l, junk, sizeof junk / sizeof junk[0], 300, &seed, t, 2 * n);
        same_or_refused(CGPROP_INPUT_EVENTS, t, m, 1 + (size_t)round % 5, 100 + 61 * (size_t)round);
    }
    free(t);
    tlines_free(&l);
    free(text);
}
END_TEST

START_TEST(ev_alloc_failures)
{
    size_t n;
    char *t = trace_text(300, 5u, _i == 0, &n);
    fail_sweep(CGPROP_INPUT_EVENTS, t, n, _i ? 7 : n, 256);
    free(t);
}
END_TEST

/* The most the reader allocates for a trace of `lines` events read from a
 * stream in 64 KiB pieces. */
static size_t trace_peak(size_t lines, size_t *n)
{
    char *t = trace_text(lines, 9u, true, n);
    peak pk = {0, 0};
    cgprop_allocator a = {pk_malloc, pk_realloc, pk_free, &pk};
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    ck_assert_int_eq(rd_stream_fmt(CGPROP_INPUT_EVENTS, t, *n, 0, 65536, 65536, &a, &g, &err), CGPROP_OK);
    cgprop_graph_free(g);
    free(t);
    return pk.most;
}

/* A trace grows with every call; read from a stream, its memory is a piece
 * and the recorder's state: 400,000 events (about 10 MB) take what 100,000
 * take, and a small part of the text. */
START_TEST(ev_bounded_memory)
{
    size_t n1, n4;
    size_t p1 = trace_peak(100000, &n1), p4 = trace_peak(400000, &n4);
    ck_assert_msg(p4 <= p1 + 4096, "peak %zu bytes for %zu bytes of trace, %zu for %zu", p4, n4, p1, n1);
    ck_assert_msg(p4 < n4 / 16, "peak %zu bytes for a trace of %zu", p4, n4);
}
END_TEST

/* The text of the public entry point's test: perf script (recur.perf
 * repeated), folded stacks, a callgrind profile (one of valgrind's,
 * repeated: a part each) or an event trace, longer than the first piece. */
static char *pipe_text(int which, size_t *n)
{
    if (which == 1) return folded_text(CGPROP__STREAM_HEAD / 60, 3u, n);
    if (which == 3) return trace_text(CGPROP__STREAM_HEAD / 10, 4u, true, n);
    size_t n1;
    char *one = tslurp(which == 2 ? TDATA "/recur/recur.instr-jumps.main.callgrind.out" : TDATA "/perf/recur.perf", &n1);
    size_t copies = CGPROP__STREAM_HEAD / n1 + 3;
    char *text = malloc(n1 * copies);
    for (size_t i = 0; i < copies; i++) memcpy(text + i * n1, one, n1);
    free(one);
    *n = n1 * copies;
    return text;
}

/* A named pipe that cat, exec'd, fills with a text kept in a file beside
 * it: under valgrind (which follows no exec) the child then runs none of
 * this suite's code. */
typedef struct tfifo {
    char dir[32], fifo[64], file[64];
} tfifo;

static void tfifo_make(tfifo *t, const char *text, size_t n)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/cgprop-fifo-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    snprintf(t->fifo, sizeof t->fifo, "%s/p", t->dir);
    snprintf(t->file, sizeof t->file, "%s/t", t->dir);
    ck_assert_int_eq(mkfifo(t->fifo, 0600), 0);
    FILE *tf = fopen(t->file, "wb");
    ck_assert_ptr_nonnull(tf);
    ck_assert_uint_eq(fwrite(text, 1, n, tf), n);
    fclose(tf);
}

/* cat, started: it writes the text into the pipe once a reader opens it. */
static pid_t tfifo_writer(const tfifo *t)
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(t->fifo, O_WRONLY);
        if (fd < 0 || dup2(fd, 1) < 0) _exit(2);
        execlp("cat", "cat", t->file, (char *)NULL);
        _exit(3);
    }
    return pid;
}

/* cgprop_read_file() on the pipe while cat writes it; *status: cat's. */
static int tfifo_read(tfifo *t, const cgprop_allocator *a, cgprop_graph **g, cgprop_read_info *info,
                      cgprop_read_error *err, int *status)
{
    pid_t pid = tfifo_writer(t);
    cgprop_read_info_init(info);
    cgprop_read_error_init(err);
    int rc = cgprop_read_file(t->fifo, strlen(t->fifo), NULL, a, g, info, err);
    ck_assert_int_eq(waitpid(pid, status, 0), pid);
    return rc;
}

/* cgprop_events_read_file() on the pipe while cat writes it. */
static int tfifo_events(tfifo *t, const cgprop_recorder_options *ro, const cgprop_allocator *a, cgprop_graph **g,
                        cgprop_events_info *info, cgprop_read_error *err)
{
    pid_t pid = tfifo_writer(t);
    cgprop_events_info_init(info);
    cgprop_read_error_init(err);
    int st, rc = cgprop_events_read_file(t->fifo, strlen(t->fifo), ro, a, g, info, err);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return rc;
}

static void tfifo_free(tfifo *t)
{
    unlink(t->fifo);
    unlink(t->file);
    rmdir(t->dir);
}

/* The public entry point on a named pipe: a text longer than the first
 * piece, written by another process, gives the graph the text in memory
 * gives, its format detected. */
START_TEST(named_pipe)
{
    size_t n;
    char *text = pipe_text(_i, &n);
    ck_assert_uint_gt(n, CGPROP__STREAM_HEAD);
    tfifo t;
    tfifo_make(&t, text, n);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_error err;
    int st, rc = tfifo_read(&t, NULL, &g, &info, &err, &st);
    tfifo_free(&t);
    ck_assert_msg(rc == CGPROP_OK, "%s", err.reason);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer: status %d", st);
    static const uint32_t fmts[] = {CGPROP_INPUT_PERF, CGPROP_INPUT_FOLDED, CGPROP_INPUT_CALLGRIND,
                                    CGPROP_INPUT_EVENTS};
    uint32_t fmt = fmts[_i];
    ck_assert_uint_eq(info.format, fmt);
    cgprop_graph *w = whole_fmt(fmt, text, n);
    json_same(w, g, "%s", "the pipe");
    cgprop_graph_free(g);
    cgprop_graph_free(w);
    free(text);
}
END_TEST

/* An allocation failure on that path (the pipe's first bytes, the buffer
 * they become, the pieces, the graph): reported, nothing leaked, and the
 * writer may only have been told the pipe broke. The first 24 allocations
 * each, then every 7th. */
START_TEST(named_pipe_alloc_failures)
{
    size_t n;
    char *text = pipe_text(_i, &n);
    tfifo t;
    tfifo_make(&t, text, n);
    bool ok = false;
    for (long left = 0; left < 100000 && !ok; left += left < 24 ? 1 : 7) {
        tfail f;
        cgprop_allocator a = tfail_allocator(&f, left);
        cgprop_graph *g = NULL;
        cgprop_read_info info;
        cgprop_read_error err;
        int st, rc = tfifo_read(&t, &a, &g, &info, &err, &st);
        ok = attempt(rc, g, &err, &f, left);
    }
    tfifo_free(&t);
    ck_assert(ok);
    free(text);
}
END_TEST

/* ---- callgrind ---- */

/* A fixture's text: gzipped ones inflated (NULL when this build has no
 * zlib to do it with). */
static char *cg_text(const char *rel, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TDATA, rel);
    size_t zn;
    char *t = tslurp(path, &zn);
    if (!cgprop__is_gzip(t, zn)) {
        *n = zn;
        return t;
    }
#ifdef CGPROP_TEST_ZLIB
    char *out;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop__gunzip(t, zn, NULL, CGPROP__GUNZIP_LIMIT, &out, n, &err), CGPROP_OK);
    free(t);
    char *copy = malloc(*n + 1);
    memcpy(copy, out, *n);
    cgprop__ra_free(NULL, out);
    return copy;
#else
    free(t);
    return NULL;
#endif
}


static void cg_same(const char *text, size_t n, size_t head, size_t piece)
{
    same_or_refused(CGPROP_INPUT_CALLGRIND, text, n, head, piece);
}

/* valgrind's files (cost lines by line and by instruction, jumps, parts,
 * --separate-recs levels, a cachegrind file refused), gprof2dot's, Xdebug's
 * call tree (rewritten whole) and one cgprop wrote. */
static const char *const cg_fixtures[] = {
    "recur/recur.default.callgrind.out", "recur/recur.recs3.callgrind.out",
    "recur/recur.instr-jumps.main.callgrind.out", "recur/recur.combined-parts.main.callgrind.out",
    "recur/recur.callers2.main.callgrind.out", "recur/recur.cachegrind.out",
    "deep/bash.recs4.callgrind.out", "gprof2dot/bool.callgrind",
    "gprof2dot/xapian.callgrind", "gprof2dot/zero_dag.callgrind",
    "real/python3/python3.separate-recs-10.callgrind.out.gz", "xdebug/tree.cachegrind.out.gz",
    "pprof/recur.default.callgrind.out.gz"};

START_TEST(cg_recordings)
{
    size_t n;
    char *text = cg_text(cg_fixtures[_i], &n);
    if (!text) return;
    static const size_t pieces[] = {1, 97, 4096, 65536};
    for (size_t k = 0; k < sizeof pieces / sizeof pieces[0]; k++) {
        if (pieces[k] == 1 && n > 200000) continue; /* a byte a read: seconds under valgrind */
        cg_same(text, n, n, pieces[k]);
        cg_same(text, n, 3, pieces[k]);
    }
    free(text);
}
END_TEST

/* Damaged profiles (lines dropped, repeated, cut or swapped for others):
 * read in pieces from a stream, each gives what it gives whole, error for
 * error. */
START_TEST(cg_damaged)
{
    size_t n;
    char *text = cg_text(_i ? "deep/bash.recs4.callgrind.out" : "recur/recur.instr-jumps.main.callgrind.out", &n);
    tlines l = tlines_of(text, n);
    static const char *const junk[] = {"\n", "calls=3 4\n", "fn=(9999)\n", "x\n", "0x10 +3 2\n", "events: A B\n",
                                       "cfn=(1) z\n", "totals: 1\n", "jump=1 +2\n", "desc: " CGPROP__DESC_UNROOTED " 7\n"};
    unsigned seed = 777u + (unsigned)_i;
    char *t = malloc(2 * n + 128);
    for (int round = 0; round < 50; round++) {
        size_t m = damage(&l, junk, sizeof junk / sizeof junk[0], 600, &seed, t, 2 * n);
        cg_same(t, m, 1 + (size_t)round % 7, 200 + 89 * (size_t)round);
    }
    free(t);
    tlines_free(&l);
    free(text);
}
END_TEST

/* A call's sum that overflows is found when the graph is built, after the
 * text is read: in pieces from memory (or gzip), read again for its line;
 * from a pipe, which cannot be, the same reason at line 0. The calls are
 * far enough in for each to be in a later piece. */
START_TEST(cg_overflow_line)
{
    static const char *const body[] = {
        "cfn=b\ncalls=1 0\n0 18446744073709551615\ncfn=b\ncalls=1 0\n0 1\n",
        "cfn=b\ncalls=18446744073709551615 0\n0 1\ncfn=b\ncalls=1 0\n0 1\n",
        "  cfn=b\n  calls=18446744073709551615 0\n0 1\nfn=c\n0 1\n# calls=1 0\ncfn=b\ncalls=1 0\n0 1\n"};
    static const uint64_t at[] = {9, 8, 11};
    char text[4096];
    size_t pad = 0;
    int m = snprintf(text, sizeof text, "events: Ir\nfn=a\n0 1\n");
    /* 100 comment lines between the header and the calls. */
    for (; pad < 100; pad++) m += snprintf(text + m, sizeof text - (size_t)m, "# %zu\n", pad);
    for (size_t i = 0; i < 3; i++) {
        int l = m + snprintf(text + m, sizeof text - (size_t)m, "%s", body[i]);
        cgprop_read_options o = tformat(CGPROP_INPUT_CALLGRIND);
        cgprop_read_error werr, serr;
        cgprop_read_error_init(&werr);
        cgprop_graph *g = NULL;
        ck_assert_int_eq(cgprop_read_buffer(text, (size_t)l, "w", 1, &o, NULL, &g, NULL, &werr), CGPROP_EOVERFLOW);
        ck_assert_uint_eq(werr.line, at[i] + 100);
        cg_same(text, (size_t)l, (size_t)l, 7);
        ck_assert_int_eq(rd_stream_fmt(CGPROP_INPUT_CALLGRIND, text, (size_t)l, 3, 7, 7, NULL, &g, &serr),
                         CGPROP_EOVERFLOW);
        ck_assert(g == NULL);
        ck_assert_uint_eq(serr.line, 0);
        ck_assert_str_eq(serr.reason, werr.reason);
    }
}
END_TEST

/* cgprop's own callgrind file of a profile with stacks cut short says
 * their weight on a desc: line before events: (where callgrind_annotate
 * wants it); read in small pieces, that line's piece is gone when events:
 * comes. */
START_TEST(cg_unrooted)
{
    size_t n;
    char *perf = tslurp(TDATA "/perf/recur-dwarf.perf", &n);
    cgprop_read_options o = tformat(CGPROP_INPUT_PERF);
    cgprop_graph *g = tread(perf, n, "p", &o, NULL);
    char *cg = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(cg, CGPROP__DESC_UNROOTED));
    ck_assert(strstr(cg, CGPROP__DESC_UNROOTED) < strstr(cg, "\nevents:"));
    /* A piece ends after the last whole line within its size (or, when
     * none fits, after the last the buffer holds): these sizes put the
     * desc: line and the events: line in pieces of their own. */
    for (size_t piece = 40; piece < 200; piece++) cg_same(cg, strlen(cg), piece % 2 ? 2 : strlen(cg), piece);
    /* The figures of the stacks cut short are kept, not only alike. */
    cgprop_graph *b = NULL;
    cgprop_read_error err;
    ck_assert_int_eq(rd_stream_fmt(CGPROP_INPUT_CALLGRIND, cg, strlen(cg), 2, 80, 80, NULL, &b, &err), CGPROP_OK);
    size_t nj;
    char *j = json(b, &nj);
    ck_assert_ptr_nonnull(strstr(j, "\"unrooted\""));
    free(j);
    cgprop_graph_free(b);
    free(cg);
    cgprop_graph_free(g);
    free(perf);
}
END_TEST

START_TEST(cg_alloc_failures)
{
    size_t n;
    char *text = cg_text(_i == 2 ? "xdebug/tree.cachegrind.out.gz" : "recur/recur.callers2.main.callgrind.out", &n);
    if (!text) return;
    fail_sweep(CGPROP_INPUT_CALLGRIND, text, n, _i == 1 ? n : 7, 512);
    free(text);
}
END_TEST

/* What a long profile read from a stream holds: the calls as read (pass 2
 * needs every one), not the text. A valgrind profile by instruction, with
 * jumps (a calls= line in 40): 200 copies (5.5 MB) take less than 60 % of
 * their text, and the second hundred adds less than 60 % of its bytes,
 * where holding the text would add all of them and more. */
START_TEST(cg_bounded_memory)
{
    size_t n1;
    char *one = tslurp(TDATA "/recur/recur.instr-jumps.main.callgrind.out", &n1);
    size_t p100 = stream_peak(CGPROP_INPUT_CALLGRIND, one, n1, 100),
           p200 = stream_peak(CGPROP_INPUT_CALLGRIND, one, n1, 200);
    ck_assert_msg(p200 < n1 * 200 * 6 / 10, "peak %zu bytes for a text of %zu", p200, n1 * 200);
    ck_assert_msg(p200 - p100 < n1 * 100 * 6 / 10, "peaks %zu and %zu bytes for texts of %zu and %zu", p100, p200,
                  n1 * 100, n1 * 200);
    free(one);
}
END_TEST

/* The events of w and g, and their graphs, are the same. */
static void same_events(cgprop_graph *w, const cgprop_events_info *wi, cgprop_graph *g, const cgprop_events_info *gi)
{
    ck_assert_uint_eq(gi->lines, wi->lines);
    ck_assert_uint_eq(gi->events, wi->events);
    ck_assert_uint_eq(gi->unclosed, wi->unclosed);
    ck_assert_uint_eq(gi->clamps, wi->clamps);
    ck_assert_uint_eq(gi->floors, wi->floors);
    json_same(w, g, "%s", "the events");
    cgprop_graph_free(g);
}

/* The recorder's own entry point, cgprop_events_read_file(), on a named
 * pipe (a traced program writing its events into it): the graph the trace
 * in memory gives, with its counts, and with overhead compensation (_i 1)
 * the same figures as the buffer's. */
START_TEST(events_pipe)
{
    size_t n;
    char *text = trace_text(CGPROP__STREAM_HEAD / 10, 6u, false, &n);
    ck_assert_uint_gt(n, CGPROP__STREAM_HEAD);
    tfifo t;
    tfifo_make(&t, text, n);
    cgprop_recorder_options ro;
    cgprop_recorder_options_init(&ro);
    static const uint64_t di[2] = {3, 0}, de[2] = {0, 2};
    if (_i) {
        ro.mode = CGPROP_COMP_ONLINE;
        ro.delta_i = di;
        ro.delta_e = de;
    }
    cgprop_graph *g = NULL, *w = NULL;
    cgprop_events_info pi, wi;
    cgprop_events_info_init(&wi);
    cgprop_read_error err;
    int rc = tfifo_events(&t, &ro, NULL, &g, &pi, &err);
    tfifo_free(&t);
    ck_assert_msg(rc == CGPROP_OK, "line %llu: %s", (unsigned long long)err.line, err.reason);
    ck_assert_int_eq(cgprop_events_read_buffer(text, n, "w", 1, &ro, NULL, &w, &wi, &err), CGPROP_OK);
    ck_assert_uint_gt(wi.unclosed, 0);
    same_events(w, &wi, g, &pi);
    cgprop_graph_free(w);
    free(text);
}
END_TEST

#ifdef CGPROP_TEST_ZLIB

/* The recorder's entry points take gzip as every reader does: a gzipped
 * trace in a buffer, a file or a pipe gives the trace's graph; gzip inside
 * gzip is refused; an allocation failure is reported, nothing leaked. */
START_TEST(events_gzip)
{
    size_t n, zn, zzn;
    char *text = trace_text(20000, 8u, false, &n);
    char *z = gz(text, n, &zn), *zz = gz(z, zn, &zzn);
    cgprop_recorder_options ro;
    cgprop_recorder_options_init(&ro);
    static const uint64_t di[2] = {3, 1};
    ro.mode = CGPROP_COMP_POSTMORTEM;
    ro.delta_i = di;
    cgprop_graph *w = NULL, *g = NULL;
    cgprop_events_info wi, gi;
    cgprop_events_info_init(&wi);
    cgprop_events_info_init(&gi);
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int wrc = cgprop_events_read_buffer(text, n, "w", 1, &ro, NULL, &w, &wi, &err);
    ck_assert_msg(wrc == CGPROP_OK, "line %llu: %s", (unsigned long long)err.line, err.reason);
    ck_assert_uint_gt(wi.unclosed, 0);
    ck_assert_int_eq(cgprop_events_read_buffer(z, zn, "z", 1, &ro, NULL, &g, &gi, &err), CGPROP_OK);
    same_events(w, &wi, g, &gi);
    tfifo t;
    tfifo_make(&t, z, zn);
    ck_assert_int_eq(cgprop_events_read_file(t.file, strlen(t.file), &ro, NULL, &g, &gi, &err), CGPROP_OK);
    same_events(w, &wi, g, &gi);
    ck_assert_int_eq(tfifo_events(&t, &ro, NULL, &g, &gi, &err), CGPROP_OK);
    same_events(w, &wi, g, &gi);
    /* Allocation failures: the buffer, the file, the pipe. */
    for (int way = 0; way < 3; way++) {
        bool ok = false;
        for (long left = 0; left < 100000 && !ok; left += way == 2 && left >= 24 ? 7 : 1) {
            tfail f;
            cgprop_allocator a = tfail_allocator(&f, left);
            int rc = way == 0   ? cgprop_events_read_buffer(z, zn, "z", 1, &ro, &a, &g, &gi, &err)
                     : way == 1 ? cgprop_events_read_file(t.file, strlen(t.file), &ro, &a, &g, &gi, &err)
                                : tfifo_events(&t, &ro, &a, &g, &gi, &err);
            ok = attempt(rc, g, &err, &f, left);
        }
        ck_assert(ok);
    }
    tfifo_free(&t);
    ck_assert_int_eq(cgprop_events_read_buffer(zz, zzn, "zz", 2, &ro, NULL, &g, &gi, &err), CGPROP_EFORMAT);
    ck_assert_str_eq(err.reason, "gzip input: gzip data inside gzip data is not read");
    tfifo_make(&t, zz, zzn);
    ck_assert_int_eq(cgprop_events_read_file(t.file, strlen(t.file), &ro, NULL, &g, &gi, &err), CGPROP_EFORMAT);
    ck_assert_str_eq(err.reason, "gzip input: gzip data inside gzip data is not read");
    ck_assert(g == NULL);
    tfifo_free(&t);
    cgprop_graph_free(w);
    free(zz);
    free(z);
    free(text);
}
END_TEST
#endif

static Suite *suite(void)
{
    Suite *s = suite_create("stream");
    TCase *t = tcase_create("perf");
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, real_recordings, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
    tcase_add_loop_test(t, damaged, 0, (int)(sizeof fixtures / sizeof fixtures[0]));
    tcase_add_test(t, late_event);
    tcase_add_test(t, no_sample_first);
    tcase_add_test(t, error_line);
    tcase_add_loop_test(t, alloc_failures, 0, 2);
    tcase_add_test(t, bounded_memory);
#ifdef CGPROP_TEST_ZLIB
    tcase_add_test(t, gzip_pieces);
    tcase_add_test(t, gzip_late_event);
#endif
    tcase_add_loop_test(t, named_pipe, 0, 4);
    tcase_add_loop_test(t, named_pipe_alloc_failures, 0, 4);
    suite_add_tcase(s, t);
    TCase *f = tcase_create("folded");
    tcase_set_timeout(f, 300);
    tcase_add_test(f, folded_pieces);
    tcase_add_test(f, folded_error_line);
    tcase_add_loop_test(f, folded_alloc_failures, 0, 2);
    suite_add_tcase(s, f);
    TCase *c = tcase_create("callgrind");
    tcase_set_timeout(c, 300);
    tcase_add_loop_test(c, cg_recordings, 0, (int)(sizeof cg_fixtures / sizeof cg_fixtures[0]));
    tcase_add_loop_test(c, cg_damaged, 0, 2);
    tcase_add_test(c, cg_overflow_line);
    tcase_add_test(c, cg_unrooted);
    tcase_add_loop_test(c, cg_alloc_failures, 0, 3);
    tcase_add_test(c, cg_bounded_memory);
    suite_add_tcase(s, c);
    TCase *e = tcase_create("events");
    tcase_set_timeout(e, 300);
    tcase_add_loop_test(e, ev_pieces, 0, 2);
    tcase_add_loop_test(e, ev_damaged, 0, 2);
    tcase_add_loop_test(e, ev_alloc_failures, 0, 2);
    tcase_add_test(e, ev_bounded_memory);
    tcase_add_loop_test(e, events_pipe, 0, 2);
#ifdef CGPROP_TEST_ZLIB
    tcase_add_test(e, events_gzip);
#endif
    suite_add_tcase(s, e);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
