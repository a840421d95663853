/* Folded-stack reader: "root;caller;leaf W1 .. WK" per line, the flame-graph
 * format of perf script | stackcollapse, pprof -raw and others. Each line is
 * one cgprop_graph_add_stack(), so recursion classes come out exact. */
#include "io_util.h"

#include "analysis.h"

#include <stdio.h>

typedef struct fold {
    cgprop_graph *g;
    cgprop_read_error *err;
    uint32_t *frames;
    size_t *ends; /* where each frame of the previous line ends in it */
    size_t fcap;
    /* Consecutive lines share their root end (stackcollapse sorts them;
     * a recording walks up and down): the frames of the previous line that
     * end inside the bytes both lines share are this line's too, their ids
     * still in frames[]. */
    const char *prev;
    size_t prevlen, nprev;
    char *name;
    size_t ncap;
    uint32_t K;     /* weights per line, fixed by the first stack */
    uint64_t lines; /* lines walked so far */
} fold;

/* Trailing whitespace-separated numbers of s[0..n): fills w (at most max)
 * from the end; returns how many, and where the stack part ends. */
static uint32_t trailing_numbers(const char *s, size_t n, uint64_t *w, uint32_t max, size_t *stack_end,
                                 bool *overflow)
{
    uint32_t cnt = 0;
    size_t e = n;
    *overflow = false;
    while (cnt < max) {
        size_t j = e;
        while (j > 0 && cgprop__is_digit(s[j - 1])) j--;
        if (j == e || j == 0 || !cgprop__is_space(s[j - 1])) break;
        size_t i = j;
        uint64_t v;
        if (cgprop__parse_u64(s, e, &i, false, &v) != CGPROP__NUM_OK) {
            *overflow = true;
            break;
        }
        w[cnt++] = v;
        e = j - 1;
        while (e > 0 && cgprop__is_space(s[e - 1])) e--;
    }
    *stack_end = e;
    /* Read from the end: put the weights back in line order. */
    for (uint32_t a = 0, b = cnt ? cnt - 1 : 0; a < b; a++, b--) {
        uint64_t t = w[a];
        w[a] = w[b];
        w[b] = t;
    }
    return cnt;
}

static int frame_id(fold *f, uint64_t line, const char *s, size_t n, uint32_t *out)
{
    if (memchr(s, '\t', n)) {
        if (n > f->ncap) {
            char *p = cgprop__realloc(f->g, f->name, n, 1);
            if (!p) return cgprop__read_fail(f->err, CGPROP_ENOMEM, line, "out of memory");
            f->name = p;
            f->ncap = n;
        }
        for (size_t i = 0; i < n; i++) f->name[i] = s[i] == '\t' ? ' ' : s[i];
        s = f->name;
    }
    int rc = cgprop__node_get(f->g, s, n, out);
    if (rc) return cgprop__read_fail(f->err, rc, line, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    return CGPROP_OK;
}

/* Length of the common prefix of a[0..n) and b[0..n), eight bytes a step. */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) break;
    }
    while (i < n && a[i] == b[i]) i++;
    return i;
}

static int one_line(fold *f, uint64_t line, const char *s, size_t n, const uint64_t *w)
{
    if (n == 0) return cgprop__read_fail(f->err, CGPROP_EFORMAT, line, "empty stack before the weights");
    size_t depth = 0, known = 0;
    size_t i = 0;
    if (f->nprev) {
        size_t c = common_prefix(s, f->prev, n < f->prevlen ? n : f->prevlen);
        /* A frame of the previous line is this line's when it ends before
         * the first difference (both then have ';' there), or at it when
         * this line's frame ends there too. */
        while (depth < f->nprev &&
               (f->ends[depth] < c || (f->ends[depth] == c && (c == n || s[c] == ';'))))
            depth++;
        known = depth;
        if (depth) {
            if (f->ends[depth - 1] >= n) {
                f->prev = s;
                f->prevlen = n;
                f->nprev = depth;
                goto add;
            }
            i = f->ends[depth - 1] + 1;
        }
    }
    for (;;) {
        const char *q = memchr(s + i, ';', n - i);
        size_t j = q ? (size_t)(q - s) : n;
        if (depth == f->fcap) {
            size_t cap = f->fcap ? f->fcap * 2 : 64;
            uint32_t *p = cgprop__realloc(f->g, f->frames, cap, sizeof *p);
            if (!p) return cgprop__read_fail(f->err, CGPROP_ENOMEM, line, "out of memory");
            f->frames = p;
            size_t *e = cgprop__realloc(f->g, f->ends, cap, sizeof *e);
            if (!e) return cgprop__read_fail(f->err, CGPROP_ENOMEM, line, "out of memory");
            f->ends = e;
            f->fcap = cap;
        }
        f->nprev = 0; /* until this line's frames are all in */
        int rc = frame_id(f, line, s + i, j - i, &f->frames[depth]);
        if (rc) return rc;
        f->ends[depth] = j;
        depth++;
        if (!q) break;
        i = j + 1;
    }
    f->prev = s;
    f->prevlen = n;
    f->nprev = depth;
add:;
    /* The frames kept from the previous line are the previous stack's. */
    int rc = cgprop__add_stack_known(f->g, f->frames, depth, w, known);
    if (rc == CGPROP_EOVERFLOW) return cgprop__read_fail(f->err, rc, line, "a cost sum overflows 64 bits");
    if (rc) return cgprop__read_fail(f->err, rc, line, "%s", cgprop_graph_errmsg(f->g));
    return CGPROP_OK;
}

/* The lines of data[0..len), all whole (a piece of a stream ends after a
 * newline, or at the stream's end); the first stack line makes the graph,
 * sized on size_hint bytes of input. */
static int fold_piece(fold *f, const char *data, size_t len, const cgprop_read_options *opts,
                      const cgprop_allocator *alloc, size_t size_hint)
{
    cgprop_read_error *err = f->err;
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    r.no = f->lines;
    const char *s;
    size_t n;
    uint64_t w[CGPROP_MAX_METRICS];
    int rc = CGPROP_OK;
    while (!rc && cgprop__lines_next(&r, &s, &n)) {
        while (n && cgprop__is_space(*s)) {
            s++;
            n--;
        }
        while (n && cgprop__is_space(s[n - 1])) n--;
        if (n == 0 || s[0] == '#') continue;
        size_t end;
        bool ovf;
        if (!f->g) {
            /* The first stack fixes the number of weights per line. */
            uint32_t cnt = trailing_numbers(s, n, w, CGPROP_MAX_METRICS, &end, &ovf);
            if (ovf) {
                rc = cgprop__read_fail(err, CGPROP_EOVERFLOW, r.no, "weight too large");
                break;
            }
            if (cnt == 0) {
                rc = cgprop__read_fail(err, CGPROP_EFORMAT, r.no, "no weight at the end of the line");
                break;
            }
            /* A 65th number would otherwise end the last frame's name. */
            size_t j = end;
            while (j > 0 && cgprop__is_digit(s[j - 1])) j--;
            if (cnt == CGPROP_MAX_METRICS && j < end && j > 0 && cgprop__is_space(s[j - 1])) {
                rc = cgprop__read_fail(err, CGPROP_EFORMAT, r.no, "more than %d weights at the end of the line",
                                       CGPROP_MAX_METRICS);
                break;
            }
            f->K = cnt;
            char names[CGPROP_MAX_METRICS][24];
            const char *np[CGPROP_MAX_METRICS];
            for (uint32_t k = 0; k < f->K; k++) {
                if (f->K == 1) snprintf(names[k], sizeof names[k], "samples");
                else snprintf(names[k], sizeof names[k], "samples%u", (unsigned)k);
                np[k] = names[k];
            }
            rc = cgprop_graph_new(alloc, np, NULL, f->K, &f->g);
            if (!rc && opts->contexts) rc = cgprop_graph_keep_contexts(f->g, 1);
            if (!rc) rc = cgprop__stacks_defer(f->g, true);
            /* Room in the graph's arrays up front, on a guess from the
             * input's size (one function and one call per 64 bytes, at
             * most 2^16 of each): the arrays then fill in place instead of
             * doubling, each doubling a copy onto fresh pages. The guess is
             * high for every profile seen (the bench's file has a function
             * per 350 bytes, a call per 136); room never used is never
             * touched, so the resident memory does not grow. The indexes
             * are left to grow: zeroed whole when made, an index sized too
             * large costs its pages and cache. */
            if (!rc) {
                size_t guess = size_hint / 64 < 65536 ? size_hint / 64 : 65536;
                rc = cgprop__reserve_arrays(f->g, (uint32_t)guess, (uint32_t)guess);
            }
            if (rc) {
                rc = cgprop__read_fail(err, rc, r.no, "out of memory");
                break;
            }
        } else {
            uint32_t cnt = trailing_numbers(s, n, w, f->K, &end, &ovf);
            if (ovf) {
                rc = cgprop__read_fail(err, CGPROP_EOVERFLOW, r.no, "weight too large");
                break;
            }
            if (cnt != f->K) {
                rc = cgprop__read_fail(err, CGPROP_EFORMAT, r.no, "expected %u weight%s at the end of the line",
                                       f->K, f->K == 1 ? "" : "s");
                break;
            }
        }
        rc = one_line(f, r.no, s, end, w);
    }
    f->lines = r.no;
    return rc;
}

/* After the last piece (rc the walk's result): the graph, or nothing. */
static int fold_end(fold *f, int rc, cgprop_graph **out, cgprop_read_info *info)
{
    cgprop_read_error *err = f->err;
    if (!rc && !f->g) rc = cgprop__read_fail(err, CGPROP_EFORMAT, f->lines, "no stack in the input");
    if (!rc && (rc = cgprop__stacks_defer(f->g, false))) rc = cgprop__read_fail(err, rc, f->lines, "out of memory");
    if (f->g) {
        cgprop__free(f->g, f->frames);
        cgprop__free(f->g, f->ends);
        cgprop__free(f->g, f->name);
    }
    if (rc) {
        cgprop_graph_free(f->g);
        return rc;
    }
    if (info) {
        info->format = CGPROP_INPUT_FOLDED;
        info->recursion = CGPROP_RECS_STACKS;
        info->lines = f->lines;
    }
    *out = f->g;
    return CGPROP_OK;
}

/* A UTF-8 byte order mark (editors on Windows write one) is no part of the
 * first frame's name. */
static size_t bom(const char *data, size_t len)
{
    return len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

int cgprop__folded_read(const char *data, size_t len, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                        cgprop_read_error *err)
{
    *out = NULL;
    fold f;
    memset(&f, 0, sizeof f);
    f.err = err;
    size_t b = bom(data, len);
    return fold_end(&f, fold_piece(&f, data + b, len - b, opts, alloc, len), out, info);
}

int cgprop__folded_read_stream(cgprop__src *src, size_t piece, const cgprop_read_options *opts,
                               const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                               cgprop_read_error *err)
{
    *out = NULL;
    fold f;
    memset(&f, 0, sizeof f);
    f.err = err;
    cgprop__pieces q;
    int rc = cgprop__pieces_open(&q, src, cgprop__cut_after_newline, piece, piece, 0, alloc, err);
    if (rc) return rc;
    bool done = false, first = true;
    while (!rc && !(rc = cgprop__pieces_next(&q, &done)) && !done) {
        size_t b = first ? bom(q.buf, q.cut) : 0;
        first = false;
        rc = fold_piece(&f, q.buf + b, q.cut - b, opts, alloc, q.cap);
        /* The previous line's bytes go with the piece. */
        f.nprev = 0;
    }
    cgprop__pieces_close(&q);
    return fold_end(&f, rc, out, info);
}
