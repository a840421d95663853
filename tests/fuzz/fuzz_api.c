/* libFuzzer target: drives the public graph API with a call sequence decoded
 * from the input, including allocation failures and mutation under live
 * iterators. Traps on any contract violation: an undocumented status code, a
 * non-finite figure, a stale iterator that does not say so. */
#include <cgprop.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "../rows.h"

typedef struct {
    const uint8_t *p;
    size_t n, i;
} input;

static unsigned byte(input *in) { return in->i < in->n ? in->p[in->i++] : 0; }

/* Small values most of the time, values near UINT64_MAX sometimes, so both
 * ordinary sums and overflow refusals get exercised. */
static uint64_t value(input *in)
{
    unsigned b = byte(in);
    if (b & 0x80) return UINT64_MAX - (b & 0x7f);
    return b;
}

typedef struct {
    long until_fail; /* allocations left before one fails; < 0: never */
    long live;
} fault;

static void *f_malloc(void *u, size_t s)
{
    fault *f = u;
    if (f->until_fail == 0) return NULL;
    if (f->until_fail > 0) f->until_fail--;
    void *p = malloc(s);
    if (p) f->live++;
    return p;
}
static void *f_realloc(void *u, void *p, size_t s)
{
    fault *f = u;
    if (f->until_fail == 0) return NULL;
    if (f->until_fail > 0) f->until_fail--;
    return realloc(p, s);
}
static void f_free(void *u, void *p)
{
    fault *f = u;
    f->live--;
    free(p);
}

/* An unknown kind gets a row of 8 bytes, which the library must refuse. */
static size_t row_size(unsigned kind)
{
    size_t s = trow_size(kind);
    return s ? s : 8;
}

static void check_status(int rc)
{
    if (rc != CGPROP_OK && rc != CGPROP_DONE && rc != CGPROP_ENOMEM && rc != CGPROP_EINVAL &&
        rc != CGPROP_ENOTFOUND && rc != CGPROP_ESTATE && rc != CGPROP_EOVERFLOW)
        __builtin_trap();
}

static void check_row(unsigned kind, const void *row)
{
    const double *d = NULL;
    size_t nd = 0;
    if (kind == CGPROP_ITER_TOTALS) {
        const cgprop_total_row *r = row;
        d = &r->total;
        nd = 5;
    } else if (kind == CGPROP_ITER_EDGE_TOTALS) {
        const cgprop_edge_total_row *r = row;
        d = &r->total;
        nd = 4;
    } else if (kind == CGPROP_ITER_CYCLES) {
        d = &((const cgprop_cycle_row *)row)->total;
        nd = 1;
    } else if (kind == CGPROP_ITER_SPLIT) {
        d = &((const cgprop_split_row *)row)->D;
        nd = 2;
    }
    for (size_t i = 0; i < nd; i++)
        if (!isfinite(d[i])) __builtin_trap();
}

#define NITERS 4

typedef struct {
    cgprop_iter *it;
    unsigned kind;
    uint64_t gen;
} live_iter;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size, 0};
    fault f = {-1, 0};
    cgprop_allocator a = {f_malloc, f_realloc, f_free, &f};
    const char *names[] = {"m0", "m1", "m2"};
    size_t K = 1 + byte(&in) % 3;
    cgprop_graph *g = NULL;
    if (cgprop_graph_new(&a, names, NULL, K, &g) != CGPROP_OK) return 0;

    live_iter its[NITERS];
    memset(its, 0, sizeof its);
    _Alignas(16) unsigned char rows[8 * 128];
    uint64_t costs[3];
    uint32_t frames[16], id;
    size_t ops = 0;

    while (in.i < in.n && ops++ < 4096) {
        size_t nn = cgprop_graph_node_count(g);
        /* Ids slightly past the end, to hit the range checks. */
        uint32_t x = nn ? (uint32_t)(byte(&in) % (nn + 2)) : byte(&in);
        uint32_t y = nn ? (uint32_t)(byte(&in) % (nn + 2)) : byte(&in);
        for (size_t k = 0; k < K; k++) costs[k] = value(&in);
        unsigned op = byte(&in) % 20;
        int rc = CGPROP_OK;
        switch (op) {
        case 0: {
            char key[8];
            size_t len = byte(&in) % 8;
            for (size_t i = 0; i < len; i++) key[i] = (char)byte(&in);
            rc = cgprop_graph_add_node(g, key, len, &id);
            if (rc == CGPROP_OK && id > nn) __builtin_trap();
            break;
        }
        case 1: rc = cgprop_graph_add_self(g, x, costs); break;
        case 2: rc = cgprop_graph_add_self_class(g, x, byte(&in) % 5, costs); break;
        case 3: rc = cgprop_graph_add_edge(g, x, y, value(&in), byte(&in) & 1 ? costs : NULL, &id); break;
        case 4: rc = cgprop_graph_add_edge_class(g, x, y, byte(&in) % 5, byte(&in) % 5, value(&in), costs, NULL); break;
        case 5: rc = cgprop_graph_add_spontaneous(g, x, value(&in), costs); break;
        case 6: {
            size_t depth = byte(&in) % 17;
            for (size_t i = 0; i < depth; i++) frames[i] = nn ? (uint32_t)(byte(&in) % (nn + 1)) : 0;
            rc = cgprop_graph_add_stack(g, frames, depth, costs);
            break;
        }
        case 7: rc = cgprop_graph_find_cycles(g, NULL); break;
        case 8: rc = cgprop_graph_collapse(g, byte(&in) % 4); break;
        case 9: rc = cgprop_graph_propagate(g); break;
        case 10: rc = cgprop_graph_split(g); break;
        case 11: {
            live_iter *l = &its[x % NITERS];
            cgprop_iter_free(l->it);
            l->it = NULL;
            l->kind = 1 + byte(&in) % 11;
            rc = cgprop_iter_new(g, l->kind, byte(&in) % (unsigned)(K + 1), y, &l->it);
            l->gen = cgprop_graph_generation(g);
            if (rc != CGPROP_OK && l->it) __builtin_trap();
            break;
        }
        case 12:
        case 13: {
            live_iter *l = &its[x % NITERS];
            if (!l->it) break;
            size_t rs = byte(&in) & 1 ? 8 : row_size(l->kind);
            size_t got = 0;
            if (op == 12) {
                rc = cgprop_iter_next(l->it, rows, rs);
                got = rc == CGPROP_OK;
            } else {
                rc = cgprop_iter_copy_rows(l->it, rows, rs, y % 8, &got);
            }
            if (rc == CGPROP_OK && cgprop_graph_generation(g) != l->gen) __builtin_trap();
            if (rc == CGPROP_OK)
                for (size_t i = 0; i < got; i++) check_row(l->kind, rows + i * row_size(l->kind));
            break;
        }
        case 14: {
            live_iter *l = &its[x % NITERS];
            cgprop_iter_free(l->it);
            l->it = NULL;
            break;
        }
        case 15: {
            unsigned kind = 1 + byte(&in) % 11;
            rc = cgprop_graph_get_row(g, kind, byte(&in) % (unsigned)(K + 1), x, rows, row_size(kind));
            if (rc == CGPROP_OK) check_row(kind, rows);
            break;
        }
        case 16: rc = cgprop_graph_find_edge(g, x, y, &id); break;
        case 17: rc = cgprop_graph_node_cycle(g, x, &id); break;
        case 18: f.until_fail = byte(&in) % 16; break;
        case 19: f.until_fail = -1; break;
        }
        check_status(rc);
        if (!cgprop_graph_errmsg(g)) __builtin_trap();
    }
    for (size_t i = 0; i < NITERS; i++) cgprop_iter_free(its[i].it);
    cgprop_graph_free(g);
    if (f.live != 0) __builtin_trap(); /* every block the graph took was given back */
    return 0;
}
