/* bench_stacks: the cost of stack ingestion (cgprop_graph_add_stack) and of
 * the split that reads it.
 *
 * Builds a sampled profile like perf's: a fixed-seed random walk over a
 * synthetic program (20,000 functions, each with a few callees, 5 % of calls
 * re-entering a function already on the stack, so recursion of every depth
 * occurs) emits S samples of mean depth 64 (default S = 1M; --quick 100k;
 * --samples N). Consecutive samples share most of their frames, as they do
 * in perf output and in sorted folded files.
 *
 * Reference, measured in the same run over the very same frame array:
 *   scan      a read-only pass summing every frame id (memory bandwidth floor);
 *   count     a pass adding each sample's weight to a per-function counter
 *             for every frame (the least any per-function aggregation does).
 * Then cgprop: the samples in walk order, the same samples in shuffled order
 * (no shared prefixes: every call is looked up), and cgprop_graph_split.
 * Each figure is printed in ns per frame beside the references.
 */
#include <cgprop.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x2545F4914F6CDD1Du;

static uint64_t rng_next(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Du;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define NFUN 20000u
#define MAXCALLEES 8u
#define MAXDEPTH 128u

typedef struct profile {
    size_t nsamples, nframes;
    uint32_t *frames; /* all samples back to back */
    size_t *off;      /* nsamples + 1 */
} profile;

static int make_profile(profile *p, size_t nsamples)
{
    static uint32_t callees[NFUN][MAXCALLEES];
    static uint32_t ncallees[NFUN];
    for (uint32_t f = 0; f < NFUN; f++) {
        ncallees[f] = 1 + (uint32_t)(rng_next() % MAXCALLEES);
        for (uint32_t i = 0; i < ncallees[f]; i++) {
            /* Cubed uniform: a few hot callees (allocators, dispatchers). */
            double u = (double)(rng_next() >> 11) * (1.0 / 9007199254740992.0);
            callees[f][i] = (uint32_t)(u * u * u * NFUN) % NFUN;
        }
    }
    size_t cap = nsamples * 72;
    p->frames = malloc(cap * sizeof *p->frames);
    p->off = malloc((nsamples + 1) * sizeof *p->off);
    if (!p->frames || !p->off) return -1;
    uint32_t st[MAXDEPTH];
    size_t depth = 1, n = 0;
    st[0] = 0;
    for (size_t s = 0; s < nsamples; s++) {
        /* Return from a few frames, then call down to a new target depth. */
        size_t pop = (size_t)(rng_next() % 7);
        size_t target = 32 + (size_t)(rng_next() % 65);
        depth = depth > pop + 1 ? depth - pop : 1;
        if (depth > target) depth = target;
        while (depth < target) {
            uint32_t top = st[depth - 1];
            uint32_t next = rng_next() % 100 < 5 ? st[rng_next() % depth]
                                                 : callees[top][rng_next() % ncallees[top]];
            st[depth++] = next;
        }
        if (n + depth > cap) {
            cap *= 2;
            uint32_t *q = realloc(p->frames, cap * sizeof *q);
            if (!q) return -1;
            p->frames = q;
        }
        p->off[s] = n;
        memcpy(p->frames + n, st, depth * sizeof *st);
        n += depth;
    }
    p->off[nsamples] = n;
    p->nsamples = nsamples;
    p->nframes = n;
    return 0;
}

static cgprop_graph *new_graph(void)
{
    const char *name = "samples";
    cgprop_graph *g = NULL;
    if (cgprop_graph_new(NULL, &name, NULL, 1, &g) != CGPROP_OK) return NULL;
    for (uint32_t f = 0; f < NFUN; f++) {
        char key[32];
        int len = snprintf(key, sizeof key, "fn_%u", f);
        uint32_t id;
        if (cgprop_graph_add_node(g, key, (size_t)len, &id) != CGPROP_OK || id != f) {
            cgprop_graph_free(g);
            return NULL;
        }
    }
    return g;
}

/* Add every sample in the given order; seconds, or < 0 on error. */
static double ingest(cgprop_graph *g, const profile *p, const size_t *order)
{
    const uint64_t w[1] = {1};
    double t0 = now();
    for (size_t i = 0; i < p->nsamples; i++) {
        size_t s = order ? order[i] : i;
        int rc = cgprop_graph_add_stack(g, p->frames + p->off[s], p->off[s + 1] - p->off[s], w);
        if (rc != CGPROP_OK) {
            fprintf(stderr, "add_stack: %s\n", cgprop_graph_errmsg(g));
            return -1;
        }
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    size_t nsamples = 1000000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) nsamples = 100000;
        else if (!strcmp(argv[i], "--samples") && i + 1 < argc) nsamples = (size_t)strtoull(argv[++i], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--quick] [--samples N]\n", argv[0]);
            return 2;
        }
    }
    if (!nsamples) return 2;
    profile p;
    if (make_profile(&p, nsamples)) {
        fprintf(stderr, "out of memory making the profile\n");
        return 1;
    }
    double nf = (double)p.nframes;
    printf("bench_stacks: %zu samples, %zu frames (mean depth %.1f), %u functions\n", p.nsamples, p.nframes,
           nf / (double)p.nsamples, NFUN);

    /* References. */
    double t0 = now();
    uint64_t sum = 0;
    for (size_t i = 0; i < p.nframes; i++) sum += p.frames[i];
    double t_scan = now() - t0;
    uint64_t *cnt = calloc(NFUN, sizeof *cnt);
    if (!cnt) return 1;
    t0 = now();
    for (size_t s = 0; s < p.nsamples; s++)
        for (size_t i = p.off[s]; i < p.off[s + 1]; i++) cnt[p.frames[i]] += 1;
    double t_count = now() - t0;
    for (uint32_t f = 0; f < NFUN; f++) sum += cnt[f];

    /* cgprop, walk order. */
    cgprop_graph *g = new_graph();
    if (!g) return 1;
    double t_walk = ingest(g, &p, NULL);
    if (t_walk < 0) return 1;
    size_t ncalls = cgprop_graph_edge_count(g);
    t0 = now();
    if (cgprop_graph_split(g) != CGPROP_OK) {
        fprintf(stderr, "split: %s\n", cgprop_graph_errmsg(g));
        return 1;
    }
    double t_split = now() - t0;
    cgprop_split_row root;
    if (cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, 0, 0, &root, sizeof root) != CGPROP_OK) return 1;
    cgprop_graph_free(g);

    /* cgprop, shuffled order. */
    size_t *order = malloc(p.nsamples * sizeof *order);
    if (!order) return 1;
    for (size_t i = 0; i < p.nsamples; i++) order[i] = i;
    for (size_t i = p.nsamples - 1; i > 0; i--) {
        size_t j = (size_t)(rng_next() % (i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    g = new_graph();
    if (!g) return 1;
    double t_shuf = ingest(g, &p, order);
    if (t_shuf < 0) return 1;
    cgprop_graph_free(g);

    printf("%-34s %10s %12s %10s\n", "pass", "seconds", "ns/frame", "x count");
    printf("%-34s %10.3f %12.2f %10.2f\n", "reference: scan frames", t_scan, t_scan * 1e9 / nf, t_scan / t_count);
    printf("%-34s %10.3f %12.2f %10.2f\n", "reference: per-function counter", t_count, t_count * 1e9 / nf, 1.0);
    printf("%-34s %10.3f %12.2f %10.2f\n", "add_stack, walk order", t_walk, t_walk * 1e9 / nf, t_walk / t_count);
    printf("%-34s %10.3f %12.2f %10.2f\n", "add_stack, shuffled", t_shuf, t_shuf * 1e9 / nf, t_shuf / t_count);
    printf("%-34s %10.3f %12s %10s\n", "split (whole graph, once)", t_split, "-", "-");
    printf("calls: %zu; C_n(root) = %llu of %zu samples (checksum %llu)\n", ncalls,
           (unsigned long long)root.C_n, p.nsamples, (unsigned long long)(sum & 0xffff));
    printf("10M samples at depth 64 (walk order) would take about %.1f s\n", t_walk / nf * 640e6);
    free(order);
    free(cnt);
    free(p.frames);
    free(p.off);
    return 0;
}
