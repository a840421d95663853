/* What the Check suites share: graph builders and look-ups, reading test
 * input and gathering a writer's output, a failing allocator for fault
 * injection, digests of a graph, and the path of the test data. One copy
 * here, so that a fix to a helper reaches every suite; header-only, so each
 * suite stays one file. */
#ifndef CGPROP_TESTS_SUPPORT_H
#define CGPROP_TESTS_SUPPORT_H

#include "cgprop.h"
#include "cgprop_experimental.h"
#include "cgprop_io.h"

#include <check.h>
#include "ck_quiet.h"
#include "rows.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CGPROP_TEST_DATA
/* tests/data, as the build names it. */
#define TDATA CGPROP_TEST_DATA
#endif

/* a is b to a relative 1e-9: figures summed in another order may differ
 * in their last bits. */
#define TNEAR_EPS 1e-9
#define ck_near(a, b) ck_assert_msg(fabs((double)(a) - (double)(b)) <= TNEAR_EPS * (1.0 + fabs((double)(b))), \
                                    "%s = %.12g, want %.12g", #a, (double)(a), (double)(b))

/* 1 in a build with AddressSanitizer. */
#if defined(__SANITIZE_ADDRESS__)
#define TSANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TSANITIZED 1
#endif
#endif
#ifndef TSANITIZED
#define TSANITIZED 0
#endif

/* Whether the test runs under valgrind (its preload library is loaded). */
static inline int tunder_valgrind(void)
{
    const char *pre = getenv("LD_PRELOAD");
    return pre && strstr(pre, "vgpreload");
}

/* The size of a large test input: the environment variable `env` if set,
 * else `full`, or a smaller one under a sanitizer or valgrind, which check
 * memory rather than size and run many times slower. */
static inline uint32_t tsize_from(const char *env, uint32_t full, uint32_t sanitized, uint32_t valgrind)
{
    const char *s = getenv(env);
    if (s && *s) return (uint32_t)strtoul(s, NULL, 10);
    if (tunder_valgrind()) return valgrind;
    return TSANITIZED ? sanitized : full;
}

/* The header the suites' checking allocators put before each block: its
 * size, and a mark that tells a live block from a freed or foreign one. */
#define TMAGIC_LIVE 0x6C697665u
#define TMAGIC_DEAD 0x64656164u
typedef union thdr {
    max_align_t align;
    struct {
        size_t size;
        uint32_t magic;
    } h;
} thdr;

/* An allocator that lets `left` allocations succeed, then fails every one
 * (left < 0: none fails), and counts the blocks alive, so a test can sweep
 * the failure point over a whole call and check that each failure is
 * reported and leaks nothing. The library never frees NULL and turns a
 * realloc of NULL into a malloc, so neither is counted as such here: a
 * library that did either would leave `live` off zero, and the test's
 * check of it would fail. */
typedef struct tfail {
    long left; /* allocations that still succeed; < 0: unlimited */
    long live; /* blocks allocated and not yet freed */
} tfail;

static inline void *tfail_malloc(void *u, size_t n)
{
    tfail *f = (tfail *)u;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    void *p = malloc(n);
    if (p) f->live++;
    return p;
}

static inline void *tfail_realloc(void *u, void *p, size_t n)
{
    tfail *f = (tfail *)u;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    return realloc(p, n);
}

static inline void tfail_free(void *u, void *p)
{
    ((tfail *)u)->live--;
    free(p);
}

/* The allocator over f, with `left` successes to come. */
static inline cgprop_allocator tfail_allocator(tfail *f, long left)
{
    cgprop_allocator a;
    f->left = left;
    f->live = 0;
    a.malloc_fn = tfail_malloc;
    a.realloc_fn = tfail_realloc;
    a.free_fn = tfail_free;
    a.user = f;
    return a;
}

/* One read of the n bytes at d, named `name` (the name may pick the
 * format), through a tfail allocator that lets `left` allocations succeed.
 * Returns whether the read succeeded (its graph freed); a failed read must
 * say it ran out of memory and give no graph, and either way nothing may
 * be left allocated. */
static inline int tfail_read(const char *d, size_t n, const char *name, long left)
{
    tfail f;
    cgprop_allocator a = tfail_allocator(&f, left);
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer(d, n, name, strlen(name), NULL, &a, &g, NULL, &err);
    if (rc == CGPROP_OK) {
        cgprop_graph_free(g);
    } else {
        ck_assert_msg(rc == CGPROP_ENOMEM, "%ld allocations: rc %d (%s)", left, rc, err.reason);
        ck_assert(g == NULL);
        ck_assert_msg(strstr(err.reason, "out of memory") != NULL, "%ld allocations: %s", left, err.reason);
    }
    ck_assert_int_eq(f.live, 0);
    return rc == CGPROP_OK;
}

/* tfail_read with the first allocation failing, then the second, and so
 * on, until a read succeeds, which must happen within `most` reads (a bound
 * that keeps a reader gone wrong from looping for ever). Returns how many
 * reads it took. */
static inline long tfail_read_sweep(const char *d, size_t n, const char *name, long most)
{
    long reads = 0;
    int ok = 0;
    while (!ok && reads < most) ok = tfail_read(d, n, name, reads++);
    ck_assert_msg(ok, "%s: no read succeeded within %ld allocations", name, most);
    return reads;
}

/* Options that read as `format`, the rest as cgprop_read_options_init
 * leaves them. */
static inline cgprop_read_options tformat(uint32_t format)
{
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = format;
    return o;
}

/* The graph read from the n bytes at d, named `name`, with options o (NULL:
 * the defaults); fails the test unless the read succeeds. */
static inline cgprop_graph *tread(const char *d, size_t n, const char *name, const cgprop_read_options *o,
                                  cgprop_read_info *info)
{
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer(d, n, name, strlen(name), o, NULL, &g, info, &err);
    ck_assert_msg(rc == CGPROP_OK, "rc %d line %llu: %s", rc, (unsigned long long)err.line, err.reason);
    ck_assert_ptr_nonnull(g);
    return g;
}

/* Reads the n bytes at d, named `name`, as `format`, which must fail with
 * `code` at `line`: no graph, and an error that says so, names the input and
 * gives a reason that contains `what` (NULL: any reason). Returns the
 * error. */
static inline cgprop_read_error tread_bad(const char *d, size_t n, const char *name, uint32_t format, int code,
                                          uint64_t line, const char *what)
{
    cgprop_read_options o = tformat(format);
    cgprop_graph *g = (cgprop_graph *)1;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer(d, n, name, strlen(name), &o, NULL, &g, NULL, &err);
    ck_assert_msg(rc == code, "expected %d got %d (%s) for <<%.*s>>", code, rc, err.reason, (int)n, d);
    ck_assert(g == NULL);
    ck_assert_int_eq(err.code, code);
    ck_assert_msg(err.line == line, "line %llu, expected %llu (%s)", (unsigned long long)err.line,
                  (unsigned long long)line, err.reason);
    ck_assert_str_eq(err.file, name);
    if (what) ck_assert_msg(strstr(err.reason, what) != NULL, "reason '%s' lacks '%s'", err.reason, what);
    else ck_assert(err.reason[0] != '\0');
    return err;
}

/* The whole of the file at path, NUL-terminated (*len, if len is given, is
 * its size without the NUL), in a block for the caller to free; fails the
 * test if the file cannot be read. */
static inline char *tslurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long n = ftell(f);
    ck_assert_int_ge(n, 0);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    s[n] = '\0';
    if (len) *len = (size_t)n;
    return s;
}

/* A writer's output, gathered: p holds the n bytes written, NUL-terminated,
 * for the caller to free. A write that would take n past fail_after is
 * refused (fail_after -1: none is; 0: every one), to test the writers'
 * failures. */
typedef struct tbuf {
    char *p;
    size_t n, cap;
    long fail_after;
} tbuf;

/* The output callback over a tbuf. The writers never pass an empty piece. */
static inline int tbuf_sink(void *user, const char *data, size_t len)
{
    tbuf *b = (tbuf *)user;
    ck_assert_uint_gt(len, 0);
    if (b->fail_after >= 0 && b->n + len > (size_t)b->fail_after) return 1;
    if (b->n + len + 1 > b->cap) {
        b->cap = (b->n + len + 1) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = '\0';
    return 0;
}

/* g written in `format` with options o (NULL: the defaults), as a string
 * for the caller to free; fails the test if the write fails. */
static inline char *trender(cgprop_graph *g, uint32_t format, const cgprop_write_options *o)
{
    tbuf b = {NULL, 0, 0, -1};
    int rc = cgprop_write(g, format, o, tbuf_sink, &b);
    ck_assert_msg(rc == CGPROP_OK, "write: %d %s", rc, cgprop_graph_errmsg(g));
    ck_assert_ptr_nonnull(b.p);
    return b.p;
}

/* FNV-1a over the n bytes at p, on from h; a digest starts from TMIX0. */
#define TMIX0 14695981039346656037ull
static inline uint64_t tmix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}


/* A digest of the graph as built: its counts, metric names, keys, every
 * figure of every function and call in every metric, and with with_gen
 * its generation; so a test can tell that a call which failed left the
 * graph as it was. */
static inline uint64_t tstore_digest(cgprop_graph *g, int with_gen)
{
    uint64_t h = TMIX0;
    size_t K = cgprop_graph_metric_count(g), nn = cgprop_graph_node_count(g), ne = cgprop_graph_edge_count(g);
    uint64_t clamps = cgprop_graph_clamp_count(g), floors = cgprop_graph_floor_count(g);
    h = tmix(h, &floors, sizeof floors);
    h = tmix(h, &K, sizeof K);
    h = tmix(h, &nn, sizeof nn);
    h = tmix(h, &ne, sizeof ne);
    h = tmix(h, &clamps, sizeof clamps);
    if (with_gen) {
        uint64_t gen = cgprop_graph_generation(g);
        h = tmix(h, &gen, sizeof gen);
    }
    for (uint32_t k = 0; k < K; k++) {
        size_t len;
        const char *m = cgprop_graph_metric_name(g, k, &len);
        h = tmix(h, m, len);
        for (uint32_t v = 0; v < nn; v++) {
            cgprop_node_row r;
            memset(&r, 0, sizeof r);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, v, &r, sizeof r), CGPROP_OK);
            h = tmix(h, &r, sizeof r);
            const char *key = cgprop_graph_node_key(g, v, &len);
            h = tmix(h, key, len);
        }
        for (uint32_t e = 0; e < ne; e++) {
            cgprop_edge_row r;
            memset(&r, 0, sizeof r);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, k, e, &r, sizeof r), CGPROP_OK);
            h = tmix(h, &r, sizeof r);
        }
    }
    return h;
}

/* A graph of the first K of the metric names given (NULL: "m0", "m1", ...
 * up to 4), failing the test if it cannot be made. */
static inline cgprop_graph *tgraph(size_t K, const char *const *names)
{
    static const char *const dflt[4] = {"m0", "m1", "m2", "m3"};
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, names ? names : dflt, NULL, K, &g), CGPROP_OK);
    ck_assert_ptr_nonnull(g);
    return g;
}

/* A graph of the first K of tgraph's default metrics and nn functions keyed
 * "n0", "n1", ..., whose ids are 0 to nn - 1. */
static inline cgprop_graph *tgraph_n(uint32_t K, uint32_t nn)
{
    cgprop_graph *g = tgraph(K, NULL);
    char key[16];
    for (uint32_t i = 0; i < nn; i++) {
        uint32_t id;
        int len = snprintf(key, sizeof key, "n%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)len, &id), CGPROP_OK);
    }
    return g;
}

/* Adds s to the self cost of function n, in a graph of one metric. */
static inline void tself1(cgprop_graph *g, uint32_t n, uint64_t s)
{
    ck_assert_int_eq(cgprop_graph_add_self(g, n, &s), CGPROP_OK);
}

/* Adds count calls a -> b, with a cost for each metric (NULL: none
 * measured); returns the call's id. */
static inline uint32_t tcall(cgprop_graph *g, uint32_t a, uint32_t b, uint64_t count, const uint64_t *costs)
{
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, count, costs, &id), CGPROP_OK);
    return id;
}

/* Finds the cycles, collapses them sharing by `share`, and propagates. */
static inline void tanalyse(cgprop_graph *g, uint32_t share)
{
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, share), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
}

/* A DAG feeding a cycle that calls another cycle, for collapse and
 * propagate: functions main X Y P Q R S L (ids 0 to 7) with selves
 * X 1, Y 2, P 4, Q 8, R 16, S 32, L 64, and calls by count alone:
 *   main->X 1, main->Y 1, X->P 1, Y->P 3, X->L 1,
 *   Z1 = {P,Q}: P->Q 2, Q->P 2;  Q->R 1, P->S 1;
 *   Z2 = {R,S}: R->S 1, S->R 1;  S->L 1.
 * e gets the ids of the twelve calls, in that order. */
static inline cgprop_graph *tnested_cycles(uint32_t e[12])
{
    enum { M, X, Y, P, Q, R, S, L };
    static const uint32_t calls[12][3] = {{M, X, 1}, {M, Y, 1}, {X, P, 1}, {Y, P, 3}, {X, L, 1}, {P, Q, 2},
                                          {Q, P, 2}, {Q, R, 1}, {P, S, 1}, {R, S, 1}, {S, R, 1}, {S, L, 1}};
    static const uint64_t selfs[8] = {0, 1, 2, 4, 8, 16, 32, 64};
    cgprop_graph *g = tgraph_n(1, 8);
    for (uint32_t i = 0; i < 8; i++) tself1(g, i, selfs[i]);
    for (int i = 0; i < 12; i++) e[i] = tcall(g, calls[i][0], calls[i][1], calls[i][2], NULL);
    return g;
}

/* Function n's row of totals in metric k. The row is filled with garbage
 * first, so a field the library leaves unwritten shows. */
static inline cgprop_total_row ttotals_row(cgprop_graph *g, uint32_t k, uint32_t n)
{
    cgprop_total_row r;
    memset(&r, 0xAB, sizeof r);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, k, n, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, n);
    return r;
}

/* Call e's row of totals in metric k, filled with garbage first too. */
static inline cgprop_edge_total_row tedge_totals_row(cgprop_graph *g, uint32_t k, uint32_t e)
{
    cgprop_edge_total_row r;
    memset(&r, 0xAB, sizeof r);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, k, e, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, e);
    return r;
}

/* Cycle c's row in metric k. */
static inline cgprop_cycle_row tcycle_row(cgprop_graph *g, uint32_t k, uint32_t c)
{
    cgprop_cycle_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, k, c, &r, sizeof r), CGPROP_OK);
    return r;
}

/* A graph of one metric over allocator a, with n functions (n <= 676)
 * keyed by two letters, "aa", "ba", ..., "zz"; ids gets their ids. */
static inline cgprop_graph *tgraph_letters(const cgprop_allocator *a, uint32_t n, uint32_t *ids)
{
    const char *name = "x";
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(a, &name, NULL, 1, &g), CGPROP_OK);
    for (uint32_t i = 0; i < n; i++) {
        char key[2] = {(char)('a' + i % 26), (char)('a' + i / 26)};
        ck_assert_int_eq(cgprop_graph_add_node(g, key, 2, &ids[i]), CGPROP_OK);
    }
    return g;
}

/* The sum of every function's self cost in metric m: the program's total. */
static inline uint64_t tself_sum(cgprop_graph *g, uint32_t m)
{
    uint64_t sum = 0;
    for (uint32_t i = 0; i < cgprop_graph_node_count(g); i++) {
        cgprop_node_row r;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, i, &r, sizeof r), CGPROP_OK);
        sum += r.self;
    }
    return sum;
}

/* The id of the function keyed `key` (a C string), added if new. */
static inline uint32_t tnode(cgprop_graph *g, const char *key)
{
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_add_node(g, key, strlen(key), &id), CGPROP_OK);
    return id;
}

/* The id of the function keyed `key`, failing the test if there is none. */
static inline uint32_t tfind(cgprop_graph *g, const char *key)
{
    uint32_t v;
    ck_assert_msg(cgprop_graph_find_node(g, key, strlen(key), &v) == CGPROP_OK, "no function keyed [%s]", key);
    return v;
}

/* The self cost in metric m of the function keyed `key`. */
static inline uint64_t tself(cgprop_graph *g, const char *key, uint32_t m)
{
    cgprop_node_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, tfind(g, key), &r, sizeof r), CGPROP_OK);
    return r.self;
}

/* The row in metric m of the call from the function keyed `from` to the one
 * keyed `to`, failing the test if there is no such call. */
static inline cgprop_edge_row tedge(cgprop_graph *g, const char *from, const char *to, uint32_t m)
{
    uint32_t e;
    ck_assert_msg(cgprop_graph_find_edge(g, tfind(g, from), tfind(g, to), &e) == CGPROP_OK, "no call %s -> %s", from,
                  to);
    cgprop_edge_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, m, e, &r, sizeof r), CGPROP_OK);
    return r;
}

/* Function v's inclusive cost in metric m as the stacks show it (each
 * stack counted once), splitting the graph first. It must be exact unless
 * stacks were cut short (a hand-made profile's first frame is often a
 * function called elsewhere): then it is flagged, and still the figure the
 * stacks show. */
static inline uint64_t tstack_total(cgprop_graph *g, uint32_t v, uint32_t m)
{
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, m, v, &r, sizeof r), CGPROP_OK);
    uint64_t unrooted;
    ck_assert_int_eq(cgprop_graph_unrooted(g, m, &unrooted), CGPROP_OK);
    if (!unrooted) ck_assert_uint_eq(r.inexact, 0);
    return r.C_n;
}

#endif
