/* Deterministic inputs for cgprop-bench: every shape is a pure function of
 * its size and a seed, so two runs (or two machines) measure the same data.
 *
 * Shapes:
 *   dag     power-law call graph: a few functions call (or are called from)
 *           hundreds of places, most one or two; callees mostly lie a little
 *           further down, plus a hot set of library-like functions; about
 *           one function in five sits in a small cycle (a ring of 2..6).
 *   giant   one strongly connected component (a ring plus random chords)
 *           entered from many outside callers, with leaves below: the shape
 *           that makes gprof2dot's per-root propagation quadratic.
 *   stacks  sampled stacks as perf records them: a random walk over a
 *           synthetic program, mean depth 64, consecutive samples sharing
 *           most frames, with self and mutual recursion of every depth
 *           (runs of one recursive function, ping-pong pairs).
 *   script  an enter/exit event stream for the recorder (300 functions).
 * And the text forms of the readers: a callgrind profile shaped like
 * valgrind's, folded stacks, and the recorder's event trace. */
#ifndef CGPROP_BENCH_GEN_H
#define CGPROP_BENCH_GEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct gen_rng {
    uint64_t s;
} gen_rng;

void gen_seed(gen_rng *r, uint64_t seed);
uint64_t gen_next(gen_rng *r);
/* Uniform in [0, 1). */
double gen_unif(gen_rng *r);

/* A list of calls (pairs may repeat) over nn functions with self costs. */
typedef struct gen_calls {
    uint32_t nn;
    size_t n, cap;
    uint32_t *a, *b;
    uint64_t *count, *cost;
    uint64_t *self; /* nn */
} gen_calls;

/* About ncalls calls over ncalls / 5 functions. 0 on success, -1 out of memory. */
int gen_dag(gen_calls *c, size_t ncalls, uint64_t seed);
/* members in one SCC (a ring plus chords), entries outside callers of it,
 * leaves (members / 10) called from half the members. */
int gen_giant(gen_calls *c, uint32_t members, uint32_t entries, uint32_t chords, uint64_t seed);
void gen_calls_free(gen_calls *c);

typedef struct gen_stacks {
    uint32_t nfun;
    size_t nsamples, nframes;
    uint32_t *frames; /* all samples back to back, root first */
    size_t *off;      /* nsamples + 1 */
} gen_stacks;

/* Samples until at least nframes frames. */
int gen_stacks_make(gen_stacks *s, size_t nframes, uint32_t nfun, uint64_t seed);
void gen_stacks_free(gen_stacks *s);

typedef struct gen_script {
    uint32_t nfun;
    size_t n;
    uint32_t *ev; /* node << 1 | is_exit; balanced */
} gen_script;

int gen_script_make(gen_script *s, size_t nevents, uint64_t seed);
void gen_script_free(gen_script *s);

typedef struct gen_buf {
    char *p;
    size_t len, cap;
} gen_buf;

void gen_buf_free(gen_buf *b);
/* A callgrind profile of about target bytes (compressed names, three
 * events, relative positions, calls with inclusive costs, fn'2 names). */
int gen_callgrind(gen_buf *b, size_t target, uint64_t seed);
/* The stacks as folded lines "fn_1;fn_7;… 1". */
int gen_folded(gen_buf *b, const gen_stacks *s);
/* The script as an event trace with a synthetic clock. */
int gen_events(gen_buf *b, const gen_script *s);

#endif
