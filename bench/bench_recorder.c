/* bench_recorder: the cost of one enter/exit pair in a profiler's hot path.
 *
 * A fixed event script (a call tree over 300 functions, each calling 1 to 8
 * fixed callees, with recursion, depth up to 40, 2M events) is replayed twice per round, in the same run:
 *   floor    — each enter pushes a timestamp on an array, each exit pops it
 *              and adds the difference to a per-function sum: the least any
 *              instrumenting profiler does;
 *   recorder — each enter/exit goes through cgprop_recorder_enter/exit with
 *              K = 1 and on-the-fly compensation (δ_i = 3, δ_e = 2).
 * Both loops read the same timestamp source. Two sources are measured:
 * clock_gettime(CLOCK_MONOTONIC), what a real probe reads, and a synthetic
 * counter (t += 7), which leaves only the bookkeeping. The figure is the
 * best of several rounds, per enter/exit pair, with the ratio to the floor
 * (target: within 3x). --quick runs fewer rounds.
 */
#include <cgprop.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NFUN 300
#define MAXDEPTH 40

typedef struct script {
    uint32_t *ev; /* node << 1 | is_exit */
    size_t n;
} script;

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Du;
}

/* Each function calls from a small fixed set of callees (1 to 8 of them), as
 * in real programs: a few thousand distinct calls in all. */
#define MAXCALLEES 8
static uint32_t callees[NFUN][MAXCALLEES];
static uint32_t ncallees[NFUN];

static void make_script(script *s, size_t nev)
{
    s->ev = malloc(nev * sizeof *s->ev);
    s->n = 0;
    for (uint32_t f = 0; f < NFUN; f++) {
        ncallees[f] = 1 + (uint32_t)(rnd() % MAXCALLEES);
        for (uint32_t i = 0; i < ncallees[f]; i++)
            /* A third stay near f (recursion, mutual recursion). */
            callees[f][i] = rnd() % 3 == 0 ? (f + (uint32_t)(rnd() % 3)) % NFUN : (uint32_t)(rnd() % NFUN);
    }
    uint32_t stack[MAXDEPTH];
    size_t d = 0;
    while (s->n + d + 1 < nev) {
        /* Go deeper with probability falling with depth; a third of the
         * calls stay near the caller's id (loops, recursion). */
        int down = d == 0 || (d < MAXDEPTH && rnd() % 100 < 52 - d);
        if (down) {
            uint32_t f;
            if (d) f = callees[stack[d - 1]][rnd() % ncallees[stack[d - 1]]];
            else f = (uint32_t)(rnd() % NFUN);
            stack[d++] = f;
            s->ev[s->n++] = f << 1;
        } else {
            s->ev[s->n++] = stack[--d] << 1 | 1u;
        }
    }
    while (d) s->ev[s->n++] = stack[--d] << 1 | 1u;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t synth;
static inline uint64_t synth_ns(void) { return synth += 7; }

static uint64_t sums[NFUN];

/* The floor: push/pop a timestamp, one subtraction and one add per exit. */
static double run_floor(const script *s, int real)
{
    static uint64_t tstack[MAXDEPTH + 1];
    size_t d = 0;
    double t0 = now_s();
    for (size_t i = 0; i < s->n; i++) {
        uint32_t e = s->ev[i];
        uint64_t t = real ? clock_ns() : synth_ns();
        if (!(e & 1)) {
            tstack[d++] = t;
        } else {
            sums[e >> 1] += t - tstack[--d];
        }
    }
    return now_s() - t0;
}

static double run_rec(const script *s, int real, cgprop_recorder *r, const uint32_t *ids)
{
    double t0 = now_s();
    for (size_t i = 0; i < s->n; i++) {
        uint32_t e = s->ev[i];
        uint64_t t = real ? clock_ns() : synth_ns();
        int rc = (e & 1) ? cgprop_recorder_exit(r, ids[e >> 1], &t) : cgprop_recorder_enter(r, ids[e >> 1], &t);
        if (rc) {
            fprintf(stderr, "recorder error %d\n", rc);
            exit(1);
        }
    }
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    int rounds = quick ? 3 : 9;
    script s;
    make_script(&s, quick ? 400000 : 2000000);
    size_t pairs = s.n / 2;

    static const char *const names[] = {"ns"};
    cgprop_graph *g = NULL;
    if (cgprop_graph_new(NULL, names, NULL, 1, &g)) return 1;
    uint32_t ids[NFUN];
    for (int f = 0; f < NFUN; f++) {
        char k[16];
        snprintf(k, sizeof k, "fn%d", f);
        if (cgprop_graph_add_node(g, k, strlen(k), &ids[f])) return 1;
    }
    cgprop_recorder_options o;
    memset(&o, 0, sizeof o);
    o.mode = CGPROP_COMP_ONLINE;
    o.delta_i[0] = 3;
    o.delta_e[0] = 2;
    cgprop_recorder *r = NULL;
    if (cgprop_recorder_new(g, &o, &r)) return 1;

    printf("bench_recorder: %zu enter/exit pairs per round, %d functions, depth <= %d, K = 1, "
           "on-the-fly compensation; best of %d rounds\n",
           pairs, NFUN, MAXDEPTH, rounds);
    for (int real = 1; real >= 0; real--) {
        double best_floor = 1e30, best_rec = 1e30, flush = 0;
        for (int round = 0; round < rounds; round++) {
            double a = run_floor(&s, real);
            double b = run_rec(&s, real, r, ids);
            double t0 = now_s();
            /* Counters restart after a flush; keep them monotone anyway. */
            uint64_t t = real ? clock_ns() : synth_ns();
            if (cgprop_recorder_flush(r, &t)) return 1;
            flush = now_s() - t0;
            if (a < best_floor) best_floor = a;
            if (b < best_rec) best_rec = b;
        }
        double fl = best_floor / (double)pairs * 1e9, rc = best_rec / (double)pairs * 1e9;
        printf("  timestamps from %-28s floor %7.2f ns/pair   recorder %7.2f ns/pair   ratio %5.2fx   "
               "(recorder's own share %6.2f ns/pair; flush %.2f ms)\n",
               real ? "clock_gettime(MONOTONIC):" : "a synthetic counter:", fl, rc, rc / fl, rc - fl,
               flush * 1e3);
    }
    uint64_t chk = 0;
    for (int f = 0; f < NFUN; f++) chk += sums[f];
    printf("  (checksum %llu, %zu functions, %zu calls in the graph)\n", (unsigned long long)chk,
           cgprop_graph_node_count(g), cgprop_graph_edge_count(g));
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
    free(s.ev);
    return 0;
}
