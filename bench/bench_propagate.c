/* bench_propagate: cycle detection, gprof collapse and per-root propagation
 * (issue 3) on two synthetic profiles.
 *
 *   wide   1M functions, 5M calls: power-law fan-out (a few functions call
 *          hundreds, most call one or two), callees mostly a little further
 *          down plus a hot set of leaf-like library functions, and ~20 % of
 *          functions in small cycles of 2..6 members (a ring each).
 *   giant  one SCC of 20,000 members (a ring plus 80,000 random chords,
 *          100,000 intra-cycle calls) entered from 100 outside callers, with
 *          leaves below: gprof2dot's worst shape (reference/gprof2dot.md §6:
 *          ~44 s for 20k functions; g20k with 1,061 entries took 513 s).
 *
 * Reference, in the same run over the same call array (the arrays the graph
 * was built from): one streaming pass reading caller, callee, count and cost
 * of every call. Each analysis is printed in ms and as a multiple of that
 * pass. Memory: a counting allocator gives the library's peak bytes, for the
 * graph alone and during each analysis, per call.
 *
 * --quick divides the wide graph by 10. Build: cmake --build <dir> --target bench.
 */
#include <cgprop.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

static double unif(void) { return (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0); }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- counting allocator: current and peak bytes ---- */

typedef struct counter {
    size_t cur, peak;
} counter;

typedef union hdr {
    size_t n;
    max_align_t align;
} hdr;

static void *c_malloc(void *u, size_t n)
{
    counter *c = u;
    hdr *h = malloc(sizeof *h + n);
    if (!h) return NULL;
    h->n = n;
    c->cur += n;
    if (c->cur > c->peak) c->peak = c->cur;
    return h + 1;
}

static void *c_realloc(void *u, void *p, size_t n)
{
    counter *c = u;
    hdr *h = (hdr *)p - 1;
    size_t old = h->n;
    hdr *q = realloc(h, sizeof *q + n);
    if (!q) return NULL;
    q->n = n;
    c->cur = c->cur - old + n;
    if (c->cur > c->peak) c->peak = c->cur;
    return q + 1;
}

static void c_free(void *u, void *p)
{
    counter *c = u;
    hdr *h = (hdr *)p - 1;
    c->cur -= h->n;
    free(h);
}

/* ---- call arrays ---- */

typedef struct calls {
    uint32_t nn;
    size_t n, cap;
    uint32_t *a, *b;
    uint64_t *count, *cost;
} calls;

static void push(calls *c, uint32_t a, uint32_t b)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 1024;
        c->a = realloc(c->a, c->cap * sizeof *c->a);
        c->b = realloc(c->b, c->cap * sizeof *c->b);
        c->count = realloc(c->count, c->cap * sizeof *c->count);
        c->cost = realloc(c->cost, c->cap * sizeof *c->cost);
        if (!c->a || !c->b || !c->count || !c->cost) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    c->a[c->n] = a;
    c->b[c->n] = b;
    c->count[c->n] = 1 + rng_next() % 100;
    c->cost[c->n] = 1 + rng_next() % 100000;
    c->n++;
}

static void make_wide(calls *c, uint32_t nn, size_t target)
{
    memset(c, 0, sizeof *c);
    c->nn = nn;
    uint32_t hot = nn / 1000 + 1;
    /* Small cycles: consecutive ids i..i+s-1 joined by i->i+1 and a closing
     * call back to i; every other call goes to a higher id, so these are
     * the only SCCs. */
    for (uint32_t i = 0; i + 6 < nn - hot;) {
        if (rng_next() % 100 < 5) {
            uint32_t s = 2 + (uint32_t)(rng_next() % 5);
            for (uint32_t j = 0; j + 1 < s; j++) push(c, i + j, i + j + 1);
            push(c, i + s - 1, i);
            i += s;
        } else {
            i++;
        }
    }
    /* Power-law fan-out, mean about target / nn calls per function. */
    double mean = (double)(target - c->n) / nn;
    for (uint32_t i = 0; i < nn - 1 && c->n < target; i++) {
        double u = unif();
        uint32_t d = (uint32_t)(mean * 0.4 / (u * u + 0.0004));
        if (d > 1000) d = 1000;
        if (d == 0) d = 1;
        for (uint32_t j = 0; j < d && c->n < target; j++) {
            uint32_t b;
            if (rng_next() % 4 == 0) {
                b = nn - hot + (uint32_t)(rng_next() % hot); /* library hot set */
                if (b <= i) continue;
            } else {
                double v = unif();
                uint64_t span = nn - 1 - i;
                b = i + 1 + (uint32_t)((double)span * v * v * v * v);
                if (b >= nn) b = nn - 1;
            }
            push(c, i, b);
        }
    }
}

static void make_giant(calls *c, uint32_t members, uint32_t entries, uint32_t chords)
{
    memset(c, 0, sizeof *c);
    /* ids: entries' callers 0..E-1, members E..E+M-1, leaves after. */
    uint32_t leaves = members / 10;
    c->nn = entries + members + leaves;
    for (uint32_t i = 0; i < entries; i++) push(c, i, entries + (uint32_t)(rng_next() % members));
    for (uint32_t i = 0; i < members; i++) push(c, entries + i, entries + (i + 1) % members);
    for (uint32_t i = 0; i < chords; i++)
        push(c, entries + (uint32_t)(rng_next() % members), entries + (uint32_t)(rng_next() % members));
    for (uint32_t i = 0; i < members; i++)
        if (rng_next() % 2) push(c, entries + i, entries + members + (uint32_t)(rng_next() % leaves));
}

static cgprop_graph *build(const calls *c, counter *cnt)
{
    cgprop_allocator al = {c_malloc, c_realloc, c_free, cnt};
    const char *names[] = {"Ir"};
    cgprop_graph *g;
    if (cgprop_graph_new(&al, names, NULL, 1, &g) != CGPROP_OK) exit(1);
    char key[32];
    for (uint32_t i = 0; i < c->nn; i++) {
        uint32_t id;
        int len = snprintf(key, sizeof key, "fn%u", i);
        uint64_t s = rng_next() % 1000;
        if (cgprop_graph_add_node(g, key, (size_t)len, &id) != CGPROP_OK) exit(1);
        if (cgprop_graph_add_self(g, id, &s) != CGPROP_OK) exit(1);
    }
    for (size_t e = 0; e < c->n; e++)
        if (cgprop_graph_add_edge(g, c->a[e], c->b[e], c->count[e], &c->cost[e], NULL) != CGPROP_OK) exit(1);
    return g;
}

static volatile uint64_t sink;

/* The reference: read every call once, as any consumer of the array must. */
static double stream_pass(const calls *c)
{
    double t0 = now();
    uint64_t acc = 0;
    for (size_t e = 0; e < c->n; e++) acc += c->a[e] ^ (c->b[e] + c->count[e] + c->cost[e]);
    sink = acc;
    return now() - t0;
}

static void bench(const char *name, const calls *c)
{
    counter cnt = {0, 0};
    double tb = now();
    cgprop_graph *g = build(c, &cnt);
    tb = now() - tb;
    size_t ne = cgprop_graph_edge_count(g);
    /* Index the adjacency once so its build is not billed to the first analysis. */
    cgprop_iter *it;
    if (cgprop_iter_new(g, CGPROP_ITER_CALLEES, 0, 0, &it) != CGPROP_OK) exit(1);
    cgprop_iter_free(it);
    size_t graph_bytes = cnt.cur;

    /* Best of a few streaming passes: the cheapest honest floor. */
    double ref = 1e30;
    for (int i = 0; i < 5; i++) {
        double t = stream_pass(c);
        if (t < ref) ref = t;
    }
    size_t ncyc = 0;
    const char *what[3] = {"find_cycles", "collapse", "propagate"};
    double t[3];
    size_t peak[3];
    for (int a = 0; a < 3; a++) {
        cnt.peak = cnt.cur;
        size_t before = cnt.cur;
        double t0 = now();
        int rc = a == 0 ? cgprop_graph_find_cycles(g, &ncyc)
                 : a == 1 ? cgprop_graph_collapse(g, CGPROP_SHARE_AUTO)
                          : cgprop_graph_propagate(g);
        t[a] = now() - t0;
        if (rc != CGPROP_OK) {
            fprintf(stderr, "%s: %s\n", what[a], cgprop_graph_errmsg(g));
            exit(1);
        }
        peak[a] = cnt.peak - before;
    }
    size_t biggest = 0;
    if (cgprop_iter_new(g, CGPROP_ITER_CYCLES, 0, 0, &it) != CGPROP_OK) exit(1);
    cgprop_cycle_row row;
    while (cgprop_iter_next(it, &row, sizeof row) == CGPROP_OK)
        if (row.nmembers > biggest) biggest = row.nmembers;
    cgprop_iter_free(it);

    printf("%s: %u functions, %zu calls, %zu cycles (largest %zu); build %.0f ms\n", name, c->nn, ne, ncyc,
           biggest, tb * 1e3);
    printf("  reference streaming pass over the call array: %8.2f ms (%.2f ns/call)\n", ref * 1e3,
           ref * 1e9 / (double)ne);
    double all = 0;
    for (int a = 0; a < 3; a++) {
        all += t[a];
        printf("  %-12s %8.2f ms  = %6.1f x reference  (%.1f ns/call)  extra peak %6.1f B/call\n", what[a],
               t[a] * 1e3, t[a] / ref, t[a] * 1e9 / (double)ne, (double)peak[a] / (double)ne);
    }
    printf("  all three    %8.2f ms  = %6.1f x reference\n", all * 1e3, all / ref);
    printf("  memory: graph %.1f B/call; graph + results %.1f B/call\n", (double)graph_bytes / (double)ne,
           (double)cnt.cur / (double)ne);
    if (biggest >= 10000)
        printf("  gprof2dot needs ~44 s for a 20,000-function graph of this shape: %.0f x faster\n", 44.0 / all);
    cgprop_graph_free(g);
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    calls c;
    make_wide(&c, quick ? 100000 : 1000000, quick ? 500000 : 5000000);
    bench("wide", &c);
    free(c.a);
    free(c.b);
    free(c.count);
    free(c.cost);
    make_giant(&c, 20000, 100, 80000);
    bench("giant", &c);
    free(c.a);
    free(c.b);
    free(c.count);
    free(c.cost);
    return 0;
}
