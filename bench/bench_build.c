/* bench_build: the cost of building a graph.
 *
 * Adds N functions and E calls (default 1M and 5M; --quick: 100k and 500k)
 * through cgprop_graph_add_node / cgprop_graph_add_edge, and appends the very
 * same data to plain growing arrays in the same run. The arrays are the floor
 * any store must pay (copy the key, copy the pair); the ratio says what
 * cgprop's key and pair de-duplication costs on top.
 *
 * Call fan-out follows a power law, as in real profiles: a few functions
 * (dispatchers, allocators) call or are called from very many places. The
 * generator is a fixed-seed xorshift, so every run adds the same graph.
 *
 * Memory is counted exactly through a counting allocator handed to both sides
 * (peak heap bytes per call), and cross-checked with getrusage's peak RSS.
 */
#include <cgprop.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ---- deterministic input ------------------------------------------------ */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

static uint64_t rng_next(void)
{
    /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

/* A power-law id in [0, n): u^3 with u uniform in [0,1) puts density ~ x^(-2/3)
 * on small ids, so id 0 gets thousands of calls and most ids a handful. The
 * ids are then scattered by a multiplicative permutation so the heavy
 * functions are not all added first. */
static uint32_t rng_powerlaw(uint32_t n)
{
    double u = (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
    uint64_t x = (uint64_t)(u * u * u * (double)n);
    if (x >= n) x = n - 1;
    return (uint32_t)((x * 2654435761u) % n);
}

typedef struct input {
    uint32_t n, e;
    char *keys;          /* all keys back to back */
    size_t *key_off;     /* n + 1 */
    uint32_t *caller;    /* e */
    uint32_t *callee;    /* e */
    uint64_t *cost;      /* e */
} input;

static int make_input(input *in, uint32_t n, uint32_t e)
{
    size_t cap = (size_t)n * 40, len = 0;
    uint32_t i;

    in->n = n;
    in->e = e;
    in->keys = malloc(cap);
    in->key_off = malloc(((size_t)n + 1) * sizeof *in->key_off);
    in->caller = malloc((size_t)e * sizeof *in->caller);
    in->callee = malloc((size_t)e * sizeof *in->callee);
    in->cost = malloc((size_t)e * sizeof *in->cost);
    if (!in->keys || !in->key_off || !in->caller || !in->callee || !in->cost) return -1;
    for (i = 0; i < n; i++) {
        /* Shaped like a callgrind key: object, file, function. */
        int w = snprintf(in->keys + len, cap - len, "lib%u.so\x1fsrc%u.c\x1f" "fn_%08x", i % 7u,
                         i % 1000u, i * 2654435761u);
        in->key_off[i] = len;
        len += (size_t)w;
    }
    in->key_off[n] = len;
    for (i = 0; i < e; i++) {
        in->caller[i] = rng_powerlaw(n);
        in->callee[i] = rng_powerlaw(n);
        in->cost[i] = 1 + (rng_next() % 1000u);
    }
    return 0;
}

static void free_input(input *in)
{
    free(in->keys);
    free(in->key_off);
    free(in->caller);
    free(in->callee);
    free(in->cost);
}

/* ---- counting allocator ------------------------------------------------- */

typedef struct counter {
    size_t cur, peak;
} counter;

/* Each block carries its size in front, so free and realloc can count. */
#define HDR 16

static void *count_malloc(void *user, size_t size)
{
    counter *c = user;
    unsigned char *p = malloc(size + HDR);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    c->cur += size;
    if (c->cur > c->peak) c->peak = c->cur;
    return p + HDR;
}

static void count_free(void *user, void *ptr)
{
    counter *c = user;
    unsigned char *p = (unsigned char *)ptr - HDR;
    size_t size;
    memcpy(&size, p, sizeof size);
    c->cur -= size;
    free(p);
}

static void *count_realloc(void *user, void *ptr, size_t size)
{
    counter *c = user;
    unsigned char *p, *q;
    size_t old;
    if (!ptr) return count_malloc(user, size);
    p = (unsigned char *)ptr - HDR;
    memcpy(&old, p, sizeof old);
    /* Old and new block are both live while realloc copies. */
    if (c->cur + size > c->peak) c->peak = c->cur + size;
    q = realloc(p, size + HDR);
    if (!q) return NULL;
    memcpy(q, &size, sizeof size);
    c->cur = c->cur - old + size;
    return q + HDR;
}

/* ---- the plain-array reference ------------------------------------------ */

typedef struct ref_edge {
    uint32_t caller, callee;
    uint64_t count, cost;
} ref_edge;

typedef struct ref_store {
    char *keys;
    size_t keys_len, keys_cap;
    size_t *key_off;
    size_t nn, ncap;
    ref_edge *edges;
    size_t ne, ecap;
} ref_store;

/* Doubling growth through the same counting allocator as the graph. */
static int grow(counter *c, void **p, size_t *cap, size_t need, size_t elem)
{
    size_t ncap;
    void *q;
    if (need <= *cap) return 0;
    ncap = *cap ? *cap : 16;
    while (ncap < need) ncap *= 2;
    q = count_realloc(c, *p, ncap * elem);
    if (!q) return -1;
    *p = q;
    *cap = ncap;
    return 0;
}

static int ref_add_node(ref_store *s, counter *c, const char *key, size_t len)
{
    if (grow(c, (void **)&s->keys, &s->keys_cap, s->keys_len + len + 1, 1)) return -1;
    if (grow(c, (void **)&s->key_off, &s->ncap, s->nn + 1, sizeof *s->key_off)) return -1;
    memcpy(s->keys + s->keys_len, key, len);
    s->keys[s->keys_len + len] = '\0';
    s->key_off[s->nn++] = s->keys_len;
    s->keys_len += len + 1;
    return 0;
}

static int ref_add_edge(ref_store *s, counter *c, uint32_t caller, uint32_t callee, uint64_t cost)
{
    ref_edge *r;
    if (grow(c, (void **)&s->edges, &s->ecap, s->ne + 1, sizeof *s->edges)) return -1;
    r = &s->edges[s->ne++];
    r->caller = caller;
    r->callee = callee;
    r->count = 1;
    r->cost = cost;
    return 0;
}

static void ref_free(ref_store *s, counter *c)
{
    if (s->keys) count_free(c, s->keys);
    if (s->key_off) count_free(c, s->key_off);
    if (s->edges) count_free(c, s->edges);
}

/* ---- measuring ----------------------------------------------------------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static long maxrss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

typedef struct phase {
    double ns;    /* wall time of the phase */
    size_t bytes; /* peak heap growth during the phase */
} phase;

static void row(const char *name, uint32_t calls, phase lib, phase ref)
{
    double c = (double)calls;
    printf("%-10s %9u %12.1f %12.1f %7.2fx %12.1f %12.1f\n", name, calls, lib.ns / c, ref.ns / c,
           lib.ns / ref.ns, (double)lib.bytes / c, (double)ref.bytes / c);
}

int main(int argc, char **argv)
{
    uint32_t n = 1000000, e = 5000000, i, *ids;
    const char *metric = "cost";
    counter lc = {0, 0}, rc = {0, 0};
    cgprop_allocator alloc;
    cgprop_graph *g = NULL;
    ref_store ref;
    input in;
    phase lib_node, lib_edge, ref_node, ref_edge;
    long rss0, rss1;
    double t0;
    size_t base;
    int st;

    for (i = 1; i < (uint32_t)argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            n = 100000;
            e = 500000;
        } else {
            fprintf(stderr, "usage: %s [--quick]\n", argv[0]);
            return 2;
        }
    }

    memset(&in, 0, sizeof in);
    ids = malloc((size_t)n * sizeof *ids);
    if (!ids || make_input(&in, n, e) != 0) {
        fprintf(stderr, "bench_build: out of memory generating the input\n");
        return 1;
    }

    alloc.malloc_fn = count_malloc;
    alloc.realloc_fn = count_realloc;
    alloc.free_fn = count_free;
    alloc.user = &lc;

    /* cgprop first: getrusage's peak can only grow, so the graph's RSS
     * growth is read before the reference allocates anything. */
    rss0 = maxrss_kib();
    st = cgprop_graph_new(&alloc, &metric, NULL, 1, &g);
    if (st != CGPROP_OK) {
        fprintf(stderr, "cgprop_graph_new: %s\n", cgprop_strerror(st));
        return 1;
    }
    base = lc.cur;
    lc.peak = lc.cur;
    t0 = now_ns();
    for (i = 0; i < n; i++) {
        st = cgprop_graph_add_node(g, in.keys + in.key_off[i], in.key_off[i + 1] - in.key_off[i], &ids[i]);
        if (st != CGPROP_OK) goto lib_error;
    }
    lib_node.ns = now_ns() - t0;
    lib_node.bytes = lc.peak - base;

    base = lc.cur;
    lc.peak = lc.cur;
    t0 = now_ns();
    for (i = 0; i < e; i++) {
        st = cgprop_graph_add_edge(g, ids[in.caller[i]], ids[in.callee[i]], 1, &in.cost[i], NULL);
        if (st != CGPROP_OK) goto lib_error;
    }
    lib_edge.ns = now_ns() - t0;
    lib_edge.bytes = lc.peak - base;
    rss1 = maxrss_kib();

    printf("bench_build: %u functions, %u calls added (%zu distinct calls, %zu distinct functions)\n", n,
           e, cgprop_graph_edge_count(g), cgprop_graph_node_count(g));
    cgprop_graph_free(g);
    g = NULL;

    /* The reference: the same keys and pairs appended to growing arrays. */
    memset(&ref, 0, sizeof ref);
    t0 = now_ns();
    for (i = 0; i < n; i++)
        if (ref_add_node(&ref, &rc, in.keys + in.key_off[i], in.key_off[i + 1] - in.key_off[i])) goto ref_error;
    ref_node.ns = now_ns() - t0;
    ref_node.bytes = rc.peak;

    base = rc.cur;
    rc.peak = rc.cur;
    t0 = now_ns();
    for (i = 0; i < e; i++)
        if (ref_add_edge(&ref, &rc, in.caller[i], in.callee[i], in.cost[i])) goto ref_error;
    ref_edge.ns = now_ns() - t0;
    ref_edge.bytes = rc.peak - base;
    ref_free(&ref, &rc);

    printf("\n%-10s %9s %12s %12s %8s %12s %12s\n", "operation", "calls", "cgprop ns", "array ns",
           "ratio", "cgprop B", "array B");
    printf("%-10s %9s %12s %12s %8s %12s %12s\n", "", "", "per call", "per call", "", "per call",
           "per call");
    row("add_node", n, lib_node, ref_node);
    row("add_edge", e, lib_edge, ref_edge);
    printf("\nB per call: peak heap growth during the phase (counting allocator, exact).\n");
    printf("cgprop peak RSS growth (getrusage): %ld KiB = %.1f B per add call\n", rss1 - rss0,
           (double)(rss1 - rss0) * 1024.0 / ((double)n + (double)e));

    free(ids);
    free_input(&in);
    return 0;

lib_error:
    fprintf(stderr, "bench_build: cgprop: %s\n", cgprop_graph_errmsg(g));
    cgprop_graph_free(g);
    return 1;
ref_error:
    fprintf(stderr, "bench_build: out of memory in the reference\n");
    return 1;
}
