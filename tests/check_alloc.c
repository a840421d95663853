/* Allocator injection and allocation failure.
 *
 * A counting allocator fails exactly the Nth allocation (malloc or realloc)
 * of a scenario, for N = 1, 2, ... until the scenario runs through without
 * reaching N. At every N: the call that met the failure returns
 * CGPROP_ENOMEM with a message, no other call fails, the same call retried
 * with a working allocator succeeds, the finished graph holds exactly the
 * figures of a never-failed run, and after cgprop_graph_free() (and freeing
 * iterators) no block is left. The first sweep compares the graph against
 * a brute-force model of the additions written here; the second, which runs
 * the analyses too, compares against a run that never failed. */
/* mkstemp, fdopen; mmap's MAP_FIXED_NOREPLACE on Linux */
#if defined(__linux__)
#define _GNU_SOURCE 1
#else
#define _POSIX_C_SOURCE 200809L
#endif
#include <check.h>
#include "ck_quiet.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_io.h"
#include "support.h"
#include "util/mem.h"
#if defined(__linux__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

/* ---- counting, failing allocator ---- */

typedef struct counter {
    size_t calls;        /* allocation attempts: malloc, and realloc */
    size_t fail_at;      /* 0: never; else refuse attempt number fail_at (1-based) */
    int fail_all;        /* refuse every attempt */
    size_t nfailed;      /* attempts refused so far */
    size_t live_blocks;
    size_t live_bytes;
    size_t bad_user;     /* calls that did not get our user pointer */
    size_t bad_free;     /* free of NULL, of a foreign or already freed block */
    size_t frees;
} counter;

static counter *ctr_of(void *user, counter *expect)
{
    if (user != expect) expect->bad_user++;
    return expect;
}

/* The allocator's user pointer is checked against this one. */
static counter *g_expected;

static int refuse(counter *c)
{
    c->calls++;
    if (c->fail_all || (c->fail_at != 0 && c->calls == c->fail_at)) {
        c->nfailed++;
        return 1;
    }
    return 0;
}

static void *t_malloc(void *user, size_t size)
{
    counter *c = ctr_of(user, g_expected);
    thdr *p;
    if (refuse(c)) return NULL;
    p = malloc(sizeof(thdr) + size);
    if (p == NULL) return NULL;
    p->h.size = size;
    p->h.magic = TMAGIC_LIVE;
    c->live_blocks++;
    c->live_bytes += size;
    return p + 1;
}

static void *t_realloc(void *user, void *ptr, size_t size)
{
    counter *c = ctr_of(user, g_expected);
    thdr *p, *q;
    size_t old;
    if (ptr == NULL) return t_malloc(user, size);
    p = (thdr *)ptr - 1;
    if (p->h.magic != TMAGIC_LIVE) {
        c->bad_free++;
        return NULL;
    }
    if (refuse(c)) return NULL; /* ptr stays valid */
    old = p->h.size;
    q = realloc(p, sizeof(thdr) + size);
    if (q == NULL) return NULL;
    q->h.size = size;
    c->live_bytes = c->live_bytes - old + size;
    return q + 1;
}

static void t_free(void *user, void *ptr)
{
    counter *c = ctr_of(user, g_expected);
    thdr *p;
    if (ptr == NULL) {
        c->bad_free++; /* the header promises free_fn never sees NULL */
        return;
    }
    p = (thdr *)ptr - 1;
    if (p->h.magic != TMAGIC_LIVE) {
        c->bad_free++;
        return;
    }
    p->h.magic = TMAGIC_DEAD;
    c->live_blocks--;
    c->live_bytes -= p->h.size;
    c->frees++;
    free(p);
}

static cgprop_allocator make_alloc(counter *c)
{
    cgprop_allocator a;
    memset(c, 0, sizeof *c);
    g_expected = c;
    a.malloc_fn = t_malloc;
    a.realloc_fn = t_realloc;
    a.free_fn = t_free;
    a.user = c;
    return a;
}

/* ---- scenario: a list of operations ---- */

enum op_kind {
    OP_NEW,
    OP_NODE,
    OP_SELF,
    OP_SELF_CLASS,
    OP_EDGE,
    OP_EDGE_CLASS,
    OP_SPONT,
    OP_STACK,
    OP_FIND_NODE,
    OP_FIND_EDGE,
    OP_ITER,      /* iterate a kind with next(), hash the rows */
    OP_COPY,      /* iterate a kind with copy_rows(), hash the rows */
    OP_GET_ROW,
    OP_CYCLES,
    OP_COLLAPSE,
    OP_PROPAGATE,
    OP_SPLIT
};

typedef struct op {
    enum op_kind kind;
    uint32_t a, b;         /* ids; for ITER/COPY/GET_ROW: a = iterator kind, b = arg/id */
    uint32_t la, lb;       /* levels; for ITER/COPY/GET_ROW: la = metric, lb = copy cap */
    uint64_t count;
    uint64_t cost[2];
    int has_cost;
    uint32_t expect_id;    /* NODE, EDGE, EDGE_CLASS, FIND_*: the id it must give */
    int check_id;          /* whether expect_id is known */
    char key[24];
    size_t key_len;
    uint32_t frames[6];
    size_t depth;
} op;

#define MAX_OPS 8000
#define NN 300
#define MAX_EDGES 4096

typedef struct scenario {
    op ops[MAX_OPS];
    size_t n;
    int ids_unknown; /* after stacks the model no longer knows call ids */
    /* Brute-force model of the graph the additions build (no stacks). */
    uint32_t nn, ne;
    char keys[NN][24];
    size_t key_len[NN];
    uint64_t self[NN][2], spont_cnt[NN], spont_cost[NN][2], calls_in[NN];
    int self_call[NN], spont[NN], has_caller[NN];
    int32_t pair[NN][NN]; /* edge id + 1 */
    uint32_t ecaller[MAX_EDGES], ecallee[MAX_EDGES];
    uint64_t ecount[MAX_EDGES], ecost[MAX_EDGES][2];
    int ehas_cost[MAX_EDGES];
} scenario;

static op *push(scenario *s, enum op_kind k)
{
    op *o;
    ck_assert_uint_lt(s->n, MAX_OPS);
    o = &s->ops[s->n++];
    memset(o, 0, sizeof *o);
    o->kind = k;
    return o;
}

static void m_node(scenario *s, uint32_t i)
{
    op *o = push(s, OP_NODE);
    uint32_t id;
    o->key_len = (size_t)snprintf(o->key, sizeof o->key, "fn%u", i);
    for (id = 0; id < s->nn; id++)
        if (s->key_len[id] == o->key_len && memcmp(s->keys[id], o->key, o->key_len) == 0) break;
    if (id == s->nn) {
        memcpy(s->keys[id], o->key, o->key_len);
        s->key_len[id] = o->key_len;
        s->nn++;
    }
    o->expect_id = id;
}

static void m_self(scenario *s, uint32_t n, int level, uint64_t c0, uint64_t c1)
{
    op *o = push(s, level < 0 ? OP_SELF : OP_SELF_CLASS);
    o->a = n;
    o->la = level < 0 ? 0 : (uint32_t)level;
    o->cost[0] = c0;
    o->cost[1] = c1;
    s->self[n][0] += c0;
    s->self[n][1] += c1;
}

static void m_edge(scenario *s, uint32_t f, uint32_t t, int cl, int ce, uint64_t count, int has_cost, uint64_t c0,
                   uint64_t c1)
{
    op *o = push(s, cl < 0 ? OP_EDGE : OP_EDGE_CLASS);
    uint32_t e;
    o->a = f;
    o->b = t;
    o->la = cl < 0 ? 0 : (uint32_t)cl;
    o->lb = ce < 0 ? 0 : (uint32_t)ce;
    o->count = count;
    o->has_cost = has_cost;
    o->cost[0] = c0;
    o->cost[1] = c1;
    if (s->pair[f][t] == 0) {
        ck_assert_uint_lt(s->ne, MAX_EDGES);
        e = s->ne++;
        s->pair[f][t] = (int32_t)e + 1;
        s->ecaller[e] = f;
        s->ecallee[e] = t;
    }
    e = (uint32_t)s->pair[f][t] - 1;
    o->expect_id = e;
    o->check_id = !s->ids_unknown;
    s->ecount[e] += count;
    s->calls_in[t] += count;
    s->has_caller[t] = 1;
    if (f == t) s->self_call[f] = 1;
    if (has_cost) {
        s->ehas_cost[e] = 1;
        s->ecost[e][0] += c0;
        s->ecost[e][1] += c1;
    }
}

static void m_spont(scenario *s, uint32_t n, uint64_t count, uint64_t c0, uint64_t c1)
{
    op *o = push(s, OP_SPONT);
    o->a = n;
    o->count = count;
    o->cost[0] = c0;
    o->cost[1] = c1;
    s->spont[n] = 1;
    s->spont_cnt[n] += count;
    s->spont_cost[n][0] += c0;
    s->spont_cost[n][1] += c1;
}

static void m_iter(scenario *s, enum op_kind k, uint32_t kind, uint32_t metric, uint32_t arg, uint32_t cap)
{
    op *o = push(s, k);
    o->a = kind;
    o->b = arg;
    o->la = metric;
    o->lb = cap;
}

/* Sweep 1: building, growth, classes, spontaneous entries, reading back. */
static void build_scenario(scenario *s)
{
    uint32_t i;
    memset(s, 0, sizeof *s);
    push(s, OP_NEW);
    for (i = 0; i < NN; i++) {
        m_node(s, i);
        if (i % 37 == 36) m_node(s, i / 2); /* existing key */
        m_self(s, i, -1, i, 2ull * i);
    }
    for (i = 0; i < NN; i++) {
        m_edge(s, i, (i * 3 + 1) % NN, -1, -1, 1, 1, i, 1);
        m_edge(s, i, (i + 1) % NN, -1, -1, 2, 0, 0, 0); /* everyone has a caller */
    }
    m_iter(s, OP_ITER, CGPROP_ITER_CALLERS, 0, 1, 0);
    for (i = 0; i < NN; i += 5) m_edge(s, i, (i * 3 + 1) % NN, -1, -1, 1, 1, 1, 1);
    for (i = 0; i < NN; i += 7) m_self(s, i, (int)(i % 4), 1, 1);
    for (i = 0; i < NN; i += 11) m_edge(s, i, (i * 3 + 1) % NN, 0, 1, 1, 1, 1, 1);
    for (i = 0; i < NN; i += 13) m_edge(s, i, (i + 5) % NN, (int)(i % 3), (int)(i % 4), 3, 1, 2, 3);
    for (i = 0; i < NN; i += 29) m_edge(s, i, i, -1, -1, 1, i % 2 == 0, 1, 1); /* self-calls */
    m_spont(s, 0, 1, 100, 200);
    for (i = 0; i < NN; i += 17) m_spont(s, i, 2, i, i);
    {
        op *o = push(s, OP_FIND_NODE);
        o->key_len = (size_t)snprintf(o->key, sizeof o->key, "fn%u", 123u);
        o->expect_id = 123;
        o = push(s, OP_FIND_EDGE);
        o->a = 10;
        o->b = 31;
        o->expect_id = (uint32_t)s->pair[10][31] - 1;
    }
    m_iter(s, OP_ITER, CGPROP_ITER_NODES, 1, 0, 0);
    m_iter(s, OP_COPY, CGPROP_ITER_EDGES, 0, 0, 64);
    m_iter(s, OP_COPY, CGPROP_ITER_NODES, 0, 0, 1000);
    m_iter(s, OP_ITER, CGPROP_ITER_CALLEES, 1, 0, 0);
    m_iter(s, OP_COPY, CGPROP_ITER_CALLERS, 1, 2, 1);
    m_iter(s, OP_GET_ROW, CGPROP_ITER_NODES, 1, 7, 0);
    m_iter(s, OP_GET_ROW, CGPROP_ITER_EDGES, 0, 9, 0);
    /* A mutation after reading, then reading again (adjacency rebuilt). */
    m_edge(s, 3, 250, -1, -1, 4, 1, 4, 4);
    m_iter(s, OP_ITER, CGPROP_ITER_CALLERS, 0, 250, 0);
    m_iter(s, OP_COPY, CGPROP_ITER_CALLEES, 1, 3, 2);
}

/* Sweep 2: a smaller graph with cycles, recursion classes and stacks, then
 * every analysis and every iterator kind. */
static void analysis_scenario(scenario *s)
{
    static const uint32_t stacks[][6] = {
        {0, 1, 2, 1, 2, 3}, {0, 1, 4, 0, 1, 5}, {6, 6, 6, 7, 0, 0}, {0, 8, 9, 8, 9, 8},
    };
    static const size_t depths[] = {6, 6, 4, 6};
    const uint32_t n = 40;
    uint32_t i;
    size_t j;

    memset(s, 0, sizeof *s);
    push(s, OP_NEW);
    for (i = 0; i < n; i++) {
        m_node(s, i);
        m_self(s, i, (int)(i % 5) - 1, i + 1, 3);
    }
    for (i = 0; i + 1 < n; i++) m_edge(s, i, i + 1, -1, -1, i + 1, i % 3 != 0, 10 * i, 5);
    for (i = 0; i < n; i += 4) m_edge(s, i + 3, i, -1, -1, 2, 1, 7, 7); /* cycles of 4 */
    for (i = 0; i < n; i += 9) m_edge(s, i, i, 0, 1, 1, 1, 1, 1);          /* self-calls */
    for (i = 10; i < 20; i++) m_edge(s, i, 39 - i, (int)(i % 3), (int)(i % 4), 2, 1, 6, 8);
    m_spont(s, 0, 1, 1000, 50);
    m_spont(s, 21, 0, 0, 0);
    for (j = 0; j < sizeof depths / sizeof depths[0]; j++) {
        op *o = push(s, OP_STACK);
        memcpy(o->frames, stacks[j], sizeof o->frames);
        o->depth = depths[j];
        o->cost[0] = 5 + j;
        o->cost[1] = 1;
    }
    s->ids_unknown = 1;
    push(s, OP_CYCLES);
    m_iter(s, OP_ITER, CGPROP_ITER_CYCLES, 0, 0, 0);
    m_iter(s, OP_COPY, CGPROP_ITER_MEMBERS, 0, 1, 3);
    push(s, OP_COLLAPSE)->a = CGPROP_SHARE_AUTO;
    push(s, OP_PROPAGATE);
    push(s, OP_SPLIT);
    for (i = 0; i < 2; i++) {
        m_iter(s, OP_ITER, CGPROP_ITER_CYCLES, i, 0, 0);
        m_iter(s, OP_ITER, CGPROP_ITER_TOTALS, i, 0, 0);
        m_iter(s, OP_COPY, CGPROP_ITER_EDGE_TOTALS, i, 0, 16);
        m_iter(s, OP_ITER, CGPROP_ITER_SPLIT, i, 0, 0);
        m_iter(s, OP_COPY, CGPROP_ITER_EDGE_SPLIT, i, 0, 7);
    }
    m_iter(s, OP_GET_ROW, CGPROP_ITER_TOTALS, 0, 5, 0);
    m_iter(s, OP_GET_ROW, CGPROP_ITER_SPLIT, 1, 8, 0);
    /* Mutate, then run everything again: the old results are replaced. */
    m_edge(s, 30, 5, -1, -1, 1, 1, 9, 9);
    push(s, OP_CYCLES);
    push(s, OP_COLLAPSE)->a = CGPROP_SHARE_COUNT;
    push(s, OP_PROPAGATE);
    push(s, OP_SPLIT);
    m_iter(s, OP_ITER, CGPROP_ITER_TOTALS, 1, 0, 0);
    m_iter(s, OP_ITER, CGPROP_ITER_EDGE_SPLIT, 0, 0, 0);
    push(s, OP_CYCLES); /* and once more, on an unchanged graph */
}

/* ---- running a scenario ---- */

typedef struct run {
    cgprop_graph *g;
    uint64_t readback[MAX_OPS]; /* hash of what each reading op saw */
    size_t nrows[MAX_OPS];
} run;

/* One operation. Returns its status; on failure it leaves nothing behind. */
static int do_op(const op *o, const cgprop_allocator *alloc, run *r, size_t idx)
{
    static const char *const names[2] = {"Ir", "ns"};
    unsigned char rows[64 * 1000];
    uint32_t id = 0xFFFFFFFEu;
    int rc;

    switch (o->kind) {
    case OP_NEW:
        r->g = (cgprop_graph *)&id;
        rc = cgprop_graph_new(alloc, names, NULL, 2, &r->g);
        if (rc != CGPROP_OK) ck_assert_ptr_null(r->g);
        return rc;
    case OP_NODE:
        rc = cgprop_graph_add_node(r->g, o->key, o->key_len, &id);
        if (rc == CGPROP_OK) ck_assert_uint_eq(id, o->expect_id);
        return rc;
    case OP_SELF: return cgprop_graph_add_self(r->g, o->a, o->cost);
    case OP_SELF_CLASS: return cgprop_graph_add_self_class(r->g, o->a, o->la, o->cost);
    case OP_EDGE:
        rc = cgprop_graph_add_edge(r->g, o->a, o->b, o->count, o->has_cost ? o->cost : NULL, &id);
        if (rc == CGPROP_OK && o->check_id) ck_assert_uint_eq(id, o->expect_id);
        return rc;
    case OP_EDGE_CLASS:
        rc = cgprop_graph_add_edge_class(r->g, o->a, o->b, o->la, o->lb, o->count, o->cost, &id);
        if (rc == CGPROP_OK && o->check_id) ck_assert_uint_eq(id, o->expect_id);
        return rc;
    case OP_SPONT: return cgprop_graph_add_spontaneous(r->g, o->a, o->count, o->cost);
    case OP_STACK: return cgprop_graph_add_stack(r->g, o->frames, o->depth, o->cost);
    case OP_FIND_NODE:
        rc = cgprop_graph_find_node(r->g, o->key, o->key_len, &id);
        if (rc == CGPROP_OK) ck_assert_uint_eq(id, o->expect_id);
        return rc;
    case OP_FIND_EDGE:
        rc = cgprop_graph_find_edge(r->g, o->a, o->b, &id);
        if (rc == CGPROP_OK) ck_assert_uint_eq(id, o->expect_id);
        return rc;
    case OP_CYCLES: return cgprop_graph_find_cycles(r->g, NULL);
    case OP_COLLAPSE: return cgprop_graph_collapse(r->g, o->a);
    case OP_PROPAGATE: return cgprop_graph_propagate(r->g);
    case OP_SPLIT: return cgprop_graph_split(r->g);
    case OP_GET_ROW: {
        size_t rs = trow_size(o->a);
        memset(rows, 0, rs);
        rc = cgprop_graph_get_row(r->g, o->a, o->la, o->b, rows, rs);
        if (rc == CGPROP_OK) {
            r->readback[idx] = tmix(TMIX0, rows, rs);
            r->nrows[idx] = 1;
        }
        return rc;
    }
    case OP_ITER:
    case OP_COPY: {
        cgprop_iter *it = (cgprop_iter *)&id;
        size_t rs = trow_size(o->a), total = 0, n;
        uint64_t h = TMIX0;
        rc = cgprop_iter_new(r->g, o->a, o->la, o->b, &it);
        if (rc != CGPROP_OK) {
            ck_assert_ptr_null(it);
            return rc;
        }
        for (;;) {
            memset(rows, 0, (o->kind == OP_ITER ? 1 : o->lb) * rs);
            if (o->kind == OP_ITER) {
                rc = cgprop_iter_next(it, rows, rs);
                n = rc == CGPROP_OK ? 1 : 0;
            } else {
                n = 12345;
                rc = cgprop_iter_copy_rows(it, rows, rs, o->lb, &n);
                if (rc == CGPROP_DONE) ck_assert_uint_eq(n, 0);
            }
            if (rc != CGPROP_OK) break;
            h = tmix(h, rows, n * rs);
            total += n;
        }
        ck_assert_uint_eq(total, cgprop_iter_count(it));
        cgprop_iter_free(it);
        if (rc != CGPROP_DONE) return rc;
        r->readback[idx] = h;
        r->nrows[idx] = total;
        return CGPROP_OK;
    }
    }
    return -100;
}

/* Run the whole scenario with attempt fail_at refused. Every operation that
 * meets the failure must report ENOMEM and succeed when retried. Returns
 * whether the failure was reached at all. */
static int run_scenario(const scenario *s, counter *c, const cgprop_allocator *alloc, size_t fail_at, run *r)
{
    size_t i;
    int reached = 0;

    memset(r, 0, sizeof *r);
    c->fail_at = fail_at;
    c->calls = 0;
    c->nfailed = 0;
    for (i = 0; i < s->n; i++) {
        size_t before = c->nfailed;
        int rc = do_op(&s->ops[i], alloc, r, i);
        if (c->nfailed != before) {
            reached = 1;
            ck_assert_msg(rc == CGPROP_ENOMEM, "N=%zu: op %zu (kind %d) met the failed allocation but returned %d",
                          fail_at, i, (int)s->ops[i].kind, rc);
            if (r->g != NULL) {
                const char *m = cgprop_graph_errmsg(r->g);
                ck_assert_ptr_nonnull(m);
                ck_assert_msg(m[0] != '\0', "N=%zu: op %zu: ENOMEM without a message", fail_at, i);
            } else {
                ck_assert_uint_eq(c->live_blocks, 0); /* a failed graph_new leaks nothing */
            }
            rc = do_op(&s->ops[i], alloc, r, i); /* the allocator works again */
        }
        ck_assert_msg(rc == CGPROP_OK, "N=%zu: op %zu (kind %d) returned %d (%s)", fail_at, i,
                      (int)s->ops[i].kind, rc, r->g ? cgprop_graph_errmsg(r->g) : "no graph");
    }
    return reached;
}

/* The finished graph against the model of sweep 1. */
static void check_against_model(const scenario *s, cgprop_graph *g, size_t fail_at)
{
    uint32_t i, m;

    ck_assert_uint_eq(cgprop_graph_node_count(g), s->nn);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), s->ne);
    for (i = 0; i < s->nn; i++) {
        size_t len = 0;
        const char *k = cgprop_graph_node_key(g, i, &len);
        ck_assert_uint_eq(len, s->key_len[i]);
        ck_assert_int_eq(memcmp(k, s->keys[i], len), 0);
        for (m = 0; m < 2; m++) {
            cgprop_node_row r;
            uint32_t flags = (s->self_call[i] ? CGPROP_F_SELF_RECURSIVE : 0u) |
                             (s->spont[i] ? CGPROP_F_SPONTANEOUS : 0u) |
                             (s->has_caller[i] ? 0u : CGPROP_F_NO_CALLERS);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, i, &r, sizeof r), CGPROP_OK);
            ck_assert_msg(r.self == s->self[i][m] && r.spont_count == s->spont_cnt[i] &&
                              r.spont_cost == s->spont_cost[i][m] && r.calls_in == s->calls_in[i] &&
                              r.flags == flags,
                          "N=%zu: node %u metric %u differs from the model", fail_at, i, m);
        }
    }
    for (i = 0; i < s->ne; i++) {
        for (m = 0; m < 2; m++) {
            cgprop_edge_row r;
            uint32_t flags = (s->ehas_cost[i] ? CGPROP_F_HAS_COST : 0u) |
                             (s->ecaller[i] == s->ecallee[i] ? CGPROP_F_SELF_CALL : 0u);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, m, i, &r, sizeof r), CGPROP_OK);
            ck_assert_msg(r.caller == s->ecaller[i] && r.callee == s->ecallee[i] && r.count == s->ecount[i] &&
                              r.cost == s->ecost[i][m] && r.flags == flags,
                          "N=%zu: call %u metric %u differs from the model", fail_at, i, m);
        }
    }
}

static scenario g_s;
static run g_base, g_run;

static void sweep(const scenario *s, int with_model)
{
    counter c;
    cgprop_allocator a = make_alloc(&c);
    size_t n, i;

    /* The never-failed run. */
    ck_assert_int_eq(run_scenario(s, &c, &a, 0, &g_base), 0);
    if (with_model) check_against_model(s, g_base.g, 0);
    ck_assert_uint_gt(c.calls, 0);
    cgprop_graph_free(g_base.g);
    ck_assert_uint_eq(c.live_blocks, 0);
    ck_assert_uint_eq(c.live_bytes, 0);

    for (n = 1; n < 100000; n++) {
        int reached = run_scenario(s, &c, &a, n, &g_run);
        for (i = 0; i < s->n; i++) {
            ck_assert_msg(g_run.nrows[i] == g_base.nrows[i] && g_run.readback[i] == g_base.readback[i],
                          "N=%zu: op %zu (kind %d) read %zu rows differing from the never-failed run", n, i,
                          (int)s->ops[i].kind, g_run.nrows[i]);
        }
        if (with_model) check_against_model(s, g_run.g, n);
        cgprop_graph_free(g_run.g);
        ck_assert_msg(c.live_blocks == 0 && c.live_bytes == 0, "N=%zu: %zu blocks (%zu bytes) leaked", n,
                      c.live_blocks, c.live_bytes);
        ck_assert_uint_eq(c.bad_user, 0);
        ck_assert_uint_eq(c.bad_free, 0);
        if (!reached) break;
    }
    ck_assert_msg(n > 1, "the scenario allocated nothing");
    ck_assert_uint_lt(n, 100000);
}

START_TEST(test_sweep_build_and_iterate)
{
    build_scenario(&g_s);
    sweep(&g_s, 1);
}
END_TEST

START_TEST(test_sweep_analyses)
{
    analysis_scenario(&g_s);
    sweep(&g_s, 0);
}
END_TEST

/* ---- the allocator itself ---- */

static counter g_poison;
static void *p_malloc(void *user, size_t size)
{
    (void)user;
    (void)size;
    g_poison.calls++;
    return NULL;
}
static void *p_realloc(void *user, void *ptr, size_t size)
{
    (void)user;
    (void)ptr;
    (void)size;
    g_poison.calls++;
    return NULL;
}
static void p_free(void *user, void *ptr)
{
    (void)user;
    (void)ptr;
    g_poison.calls++;
}

START_TEST(test_allocator_copied_and_user_passed)
{
    static const char *const names[1] = {"Ir"};
    counter c;
    cgprop_allocator a = make_alloc(&c);
    cgprop_graph *g = NULL;
    cgprop_iter *it = NULL;
    const uint64_t one[1] = {1};
    uint32_t i, id;
    char key[16];

    memset(&g_poison, 0, sizeof g_poison);
    ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 1, &g), CGPROP_OK);
    ck_assert_uint_gt(c.live_blocks, 0);
    /* The graph copied the struct: what the caller does with it now does not matter. */
    a.malloc_fn = p_malloc;
    a.realloc_fn = p_realloc;
    a.free_fn = p_free;
    a.user = NULL;
    for (i = 0; i < 2000; i++) {
        int n = snprintf(key, sizeof key, "k%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)n, &id), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_self(g, id, one), CGPROP_OK);
        if (i > 0) ck_assert_int_eq(cgprop_graph_add_edge(g, i - 1, i, 1, one, NULL), CGPROP_OK);
    }
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLERS, 0, 5, &it), CGPROP_OK);
    ck_assert_uint_gt(c.calls, 3);
    cgprop_graph_free(g);
    cgprop_iter_free(it);
    ck_assert_uint_eq(g_poison.calls, 0);
    ck_assert_uint_eq(c.bad_user, 0);
    ck_assert_uint_eq(c.bad_free, 0);
    ck_assert_uint_eq(c.live_blocks, 0);
    ck_assert_uint_eq(c.live_bytes, 0);
    ck_assert_uint_gt(c.frees, 0);
}
END_TEST

START_TEST(test_iterator_memory_is_the_graphs)
{
    /* Iterators are allocated through the graph's allocator, and one freed
     * after its graph returns its memory there too. */
    static const char *const names[1] = {"Ir"};
    counter c;
    cgprop_allocator a = make_alloc(&c);
    cgprop_graph *g = NULL;
    cgprop_iter *it = NULL;
    uint32_t id;
    size_t blocks;

    ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 1, &g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "x", 1, &id), CGPROP_OK);
    blocks = c.live_blocks;
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_NODES, 0, 0, &it), CGPROP_OK);
    ck_assert_uint_gt(c.live_blocks, blocks);
    cgprop_graph_free(g);
    ck_assert_uint_gt(c.live_blocks, 0);
    cgprop_iter_free(it);
    ck_assert_uint_eq(c.live_blocks, 0);
    ck_assert_uint_eq(c.bad_free, 0);
}
END_TEST

START_TEST(test_enomem_on_graph_new_every_n)
{
    static const char *const names[3] = {"Ir", "ns", "samples"};
    counter c;
    cgprop_allocator a = make_alloc(&c);
    size_t n;

    for (n = 1;; n++) {
        cgprop_graph *g = (cgprop_graph *)&n;
        int rc;
        c.fail_at = n;
        c.calls = 0;
        c.nfailed = 0;
        rc = cgprop_graph_new(&a, names, NULL, 3, &g);
        if (c.nfailed == 0) {
            ck_assert_int_eq(rc, CGPROP_OK);
            cgprop_graph_free(g);
            break;
        }
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        ck_assert_ptr_null(g);
        ck_assert_uint_eq(c.live_blocks, 0);
    }
    ck_assert_uint_eq(c.live_blocks, 0);
    ck_assert_uint_eq(c.bad_free, 0);
}
END_TEST

START_TEST(test_point_lookup_needs_no_memory)
{
    /* cgprop.h documents OK, EINVAL and ESTATE for cgprop_graph_get_row(),
     * not ENOMEM: a point look-up of a function or call row must work with
     * an allocator that refuses everything, right after a mutation. */
    static const char *const names[1] = {"Ir"};
    counter c;
    cgprop_allocator a = make_alloc(&c);
    cgprop_graph *g = NULL;
    const uint64_t five[1] = {5};
    cgprop_node_row nr;
    cgprop_edge_row er;
    uint32_t x, y;

    ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 1, &g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "x", 1, &x), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "y", 1, &y), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, x, y, 2, five, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, y, five), CGPROP_OK);
    c.fail_all = 1;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, 0, &er, sizeof er), CGPROP_OK);
    ck_assert_uint_eq(er.count, 2);
    ck_assert_msg(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, y, &nr, sizeof nr) == CGPROP_OK,
                  "get_row(NODES) failed without memory: %s", cgprop_graph_errmsg(g));
    ck_assert_uint_eq(nr.self, 5);
    ck_assert_uint_eq(nr.calls_in, 2);
    ck_assert_uint_eq(nr.flags, 0);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, x, &nr, sizeof nr), CGPROP_OK);
    ck_assert_uint_eq(nr.flags, CGPROP_F_NO_CALLERS);
    c.fail_all = 0;
    cgprop_graph_free(g);
    ck_assert_uint_eq(c.live_blocks, 0);
}
END_TEST

/* ---- standard input that is a regular file ---- */

/* Largest single block asked for: reading the input whole would ask for
 * at least its size at once. */
typedef struct peak {
    size_t largest;
} peak;

static void *pk_malloc(void *u, size_t n)
{
    peak *k = u;
    if (n > k->largest) k->largest = n;
    return malloc(n);
}

static void *pk_realloc(void *u, void *p, size_t n)
{
    peak *k = u;
    if (n > k->largest) k->largest = n;
    return realloc(p, n);
}

static void pk_free(void *u, void *p)
{
    (void)u;
    free(p);
}

static uint64_t self_of(cgprop_graph *g, const char *key)
{
    uint32_t id;
    cgprop_node_row r;
    ck_assert_int_eq(cgprop_graph_find_node(g, key, strlen(key), &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, id, &r, sizeof r), CGPROP_OK);
    return r.self;
}

/* `cgprop report - < big.perf`: a regular file behind standard input is
 * mapped, not copied into the reader's memory, and read from where the
 * stream stands (here after a first line the caller consumed, which the
 * folded reader would refuse). */
START_TEST(test_stdin_regular_file_is_mapped)
{
    char path[] = "/tmp/cgprop-stdin-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *w = fdopen(fd, "w");
    ck_assert_ptr_nonnull(w);
    fputs("a line the caller reads first\n", w);
    for (int i = 0; i < 20000; i++) fputs("main;a;b;c 10\nmain;a;d 5\n", w);
    ck_assert_int_eq(fclose(w), 0);
    long size = 30 + 20000L * 25;

    ck_assert_ptr_nonnull(freopen(path, "rb", stdin));
    char line[64];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, stdin));
    ck_assert_str_eq(line, "a line the caller reads first\n");

    peak k = {0};
    cgprop_allocator a = {pk_malloc, pk_realloc, pk_free, &k};
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_FOLDED;
    cgprop_graph *g = NULL;
    cgprop_read_error e;
    cgprop_read_error_init(&e);
    ck_assert_int_eq(cgprop_read_file("-", 1, &o, &a, &g, NULL, &e), CGPROP_OK);
    /* 20,000 samples of each stack, worked out by hand. */
    ck_assert_uint_eq(self_of(g, "c"), 200000);
    ck_assert_uint_eq(self_of(g, "d"), 100000);
    ck_assert_uint_eq(self_of(g, "main"), 0);
    ck_assert_uint_lt(k.largest, (size_t)size / 4);
    /* The stream is left at its end, as reading it whole would leave it. */
    ck_assert_int_eq(ftell(stdin), size);
    cgprop_graph_free(g);
    remove(path);
}
END_TEST

/* ---- huge pages for large scratch ---- */

/* Whether the mapping that holds addr carries the "hg" flag (asked for huge
 * pages) in /proc/self/smaps; -1 when that cannot be read. *end, when not
 * NULL, is where that mapping ends (0 when it was not found). */
static int smaps_mapping(uintptr_t addr, uintptr_t *end)
{
    if (end) *end = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[512];
    int in = 0, found = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            in = addr >= lo && addr < hi;
            if (in && end) *end = hi;
            continue;
        }
        if (in && strncmp(line, "VmFlags:", 8) == 0) {
            found = strstr(line, " hg") != NULL;
            break;
        }
    }
    fclose(f);
    return found;
}

static int smaps_huge_flag(uintptr_t addr) { return smaps_mapping(addr, NULL); }

/* The advice covers a block from the C library's allocator, and nothing of
 * a caller's allocator's block (whose pages the caller may manage); small,
 * NULL and unaligned ranges are left alone. */
START_TEST(test_huge_page_advice)
{
    counter c;
    cgprop_allocator std, mine = make_alloc(&c);
    cgprop__mem_init(&std, NULL);
    const size_t huge = (size_t)1 << 21, n = 5 * huge;
    cgprop__mem_advise(&std, NULL, n, true);
    char *small = cgprop__mem_alloc(&std, 4096, 1);
    ck_assert_ptr_nonnull(small);
    cgprop__mem_advise(&std, small, 4096, true);
    cgprop__mem_advise(&std, small + 1, 100, false);
    cgprop__mem_free(&std, small);

    /* Past the threshold, the allocation asks by itself; the caller's
     * allocator's block is never advised; a tail set back to small pages. */
    char *a = cgprop__mem_alloc(&std, n, 1), *b = cgprop__mem_alloc(&mine, n, 1);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    cgprop__mem_advise(&mine, b, n, true);
    cgprop__mem_advise(&std, a + 3 * huge, n - 3 * huge, false);
    uintptr_t am = ((uintptr_t)a + huge) & ~(uintptr_t)(huge - 1), bm = ((uintptr_t)b + huge) & ~(uintptr_t)(huge - 1);
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
#if defined(__linux__)
    /* The tail's last whole page: the partial page after it keeps the block's
     * advice, which covers every page the block touches. */
    uintptr_t tl = (((uintptr_t)a + n) & ~(uintptr_t)4095) - 1;
    int fa = smaps_huge_flag(am), fb = smaps_huge_flag(bm), ft = smaps_huge_flag(tl);
    /* Without THP in the kernel the advice is refused: nothing to see. */
    if (thp && fa >= 0) ck_assert_int_eq(fa, 1);
    if (fb >= 0) ck_assert_int_eq(fb, 0);
    if (ft >= 0) ck_assert_int_eq(ft, 0);
#endif
    if (thp) fclose(thp);
    /* Still ordinary memory: written and read back whole. */
    memset(a, 0x5A, n);
    ck_assert_int_eq(a[0], 0x5A);
    ck_assert_int_eq(a[n - 1], 0x5A);
    cgprop__mem_free(&std, a);
    cgprop__mem_free(&mine, b);
}
END_TEST

/* Advice on part of a mapping would split it in three, and the C library
 * could then no longer grow the block by moving its pages: it would copy
 * the block and fault every page in again. The advice covers every page a
 * large block touches, so the block stays one mapping as it grows. */
START_TEST(test_huge_advice_keeps_one_mapping)
{
    cgprop_allocator std;
    cgprop__mem_init(&std, NULL);
    size_t n = CGPROP__HUGE_MIN + 3 * 4096 + 100;
    char *a = cgprop__mem_alloc(&std, n, 1);
    ck_assert_ptr_nonnull(a);
    for (int step = 0; step < 3; step++) {
        memset(a, 0x3C, n);
#if defined(__linux__)
        FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
        uintptr_t mid = ((uintptr_t)a + ((size_t)1 << 21)) & ~(uintptr_t)(((size_t)1 << 21) - 1);
        /* Only where the kernel took the advice. */
        if (thp && smaps_huge_flag(mid) == 1) {
            uintptr_t end;
            (void)smaps_mapping((uintptr_t)a, &end);
            ck_assert_msg(end >= (uintptr_t)a + n, "the block's first bytes are a mapping of their own (step %d)",
                          step);
            ck_assert_int_eq(smaps_huge_flag((uintptr_t)a), 1);
            ck_assert_int_eq(smaps_huge_flag((uintptr_t)a + n - 1), 1);
        }
        if (thp) fclose(thp);
#endif
        char *b = cgprop__mem_realloc(&std, a, 2 * n, 1);
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(b[0], 0x3C);
        ck_assert_int_eq(b[n - 1], 0x3C);
        a = b;
        n *= 2;
    }
    cgprop__mem_free(&std, a);
}
END_TEST

/* Large blocks of the C library's allocator are mapped by the library: each
 * starts on an aligned 2 MiB span, keeps its bytes as it grows where
 * it is, when something blocks its way (moved whole), when advice split its
 * mapping (copied) and when it shrinks, and is freed alike whichever way
 * it came; blocks below the threshold stay the C library's. */
START_TEST(test_big_blocks_mapped_and_grown)
{
#if defined(CGPROP__BIG_MAP)
    cgprop_allocator std;
    cgprop__mem_init(&std, NULL);
    const size_t span = CGPROP__BIG_SPAN;
    /* Below the threshold: the C library's, grown past it into a mapping. */
    unsigned char *a = cgprop__mem_alloc(&std, 1000, 1);
    ck_assert_ptr_nonnull(a);
    ck_assert_uint_ne((uintptr_t)a & (span - 1), 0);
    for (size_t i = 0; i < 1000; i++) a[i] = (unsigned char)(i * 7);
    unsigned char *b = cgprop__mem_realloc(&std, a, 3 * span, 1);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq((uintptr_t)b & (span - 1), 0);
    for (size_t i = 0; i < 1000; i++) ck_assert_uint_eq(b[i], (unsigned char)(i * 7));
    size_t n = 3 * span;
    for (size_t i = 1000; i < n; i += 4093) b[i] = (unsigned char)(i >> 12);
    b[n - 1] = 0xEE;

    /* A page mapped right after it: growing must move it whole. */
    size_t pg = (size_t)sysconf(_SC_PAGESIZE);
    char *end = (char *)b + ((n + pg - 1) & ~(pg - 1));
#ifdef MAP_FIXED_NOREPLACE
    void *wall = mmap(end, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
#else
    void *wall = MAP_FAILED;
    (void)end;
#endif
    unsigned char *c = cgprop__mem_realloc(&std, b, 5 * span, 1);
    ck_assert_ptr_nonnull(c);
    if (wall != MAP_FAILED) {
        ck_assert_ptr_ne(c, b);
        munmap(wall, pg);
    }
    ck_assert_uint_eq((uintptr_t)c & (span - 1), 0);
    for (size_t i = 0; i < 1000; i++) ck_assert_uint_eq(c[i], (unsigned char)(i * 7));
    for (size_t i = 1000; i < n; i += 4093) ck_assert_uint_eq(c[i], (unsigned char)(i >> 12));
    ck_assert_uint_eq(c[n - 1], 0xEE);
    /* The new room is there and writable. */
    memset(c + n, 0x11, 2 * span);
    n = 5 * span;

    /* Small-page advice on its middle splits the mapping: grown by a copy. */
    cgprop__mem_advise(&std, c + span, span, false);
    unsigned char *d = cgprop__mem_realloc(&std, c, 9 * span, 1);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq((uintptr_t)d & (span - 1), 0);
    for (size_t i = 0; i < 1000; i++) ck_assert_uint_eq(d[i], (unsigned char)(i * 7));
    ck_assert_uint_eq(d[3 * span - 1], 0xEE);
    ck_assert_uint_eq(d[3 * span], 0x11);
    ck_assert_uint_eq(d[n - 1], 0x11);
    d[9 * span - 1] = 0x22;

    /* Shrunk below the threshold: its first bytes kept, still freed whole. */
    unsigned char *e = cgprop__mem_realloc(&std, d, 100, 1);
    ck_assert_ptr_nonnull(e);
    for (size_t i = 0; i < 100; i++) ck_assert_uint_eq(e[i], (unsigned char)(i * 7));
    cgprop__mem_free(&std, e);

    /* Allocated big at once, zero as calloc promises, freed. */
    uint64_t *z = cgprop__mem_calloc(&std, span, sizeof *z);
    ck_assert_ptr_nonnull(z);
    ck_assert_uint_eq((uintptr_t)z & (span - 1), 0);
    ck_assert_uint_eq(z[0] | z[span / 2] | z[span - 1], 0);
    cgprop__mem_free(&std, z);
    /* Small blocks stay the C library's, freed by it. */
    for (int k = 0; k < 3; k++) {
        char *s = cgprop__mem_alloc(&std, 64, 1);
        ck_assert_ptr_nonnull(s);
        cgprop__mem_free(&std, s);
    }
#else
    /* Not built in here: the C library's blocks throughout. */
    cgprop_allocator std;
    cgprop__mem_init(&std, NULL);
    char *a = cgprop__mem_alloc(&std, (size_t)3 << 21, 1);
    ck_assert_ptr_nonnull(a);
    cgprop__mem_free(&std, a);
#endif
}
END_TEST

/* A block of the C library's that starts on a 2 MiB span is never handed
 * out by the default allocator: only its own mapped blocks start on one,
 * which is how it tells them apart without reading before a block. The heap is laid out
 * so that the C library's next block would start on a span, checked with a
 * plain malloc first; where that cannot be arranged (another malloc, as
 * under memcheck) there is nothing to check. */
START_TEST(test_no_malloc_block_on_a_span)
{
#if defined(CGPROP__BIG_MAP) && defined(M_MMAP_THRESHOLD)
    cgprop_allocator std;
    cgprop__mem_init(&std, NULL);
    const uintptr_t span = CGPROP__BIG_SPAN;
    const size_t req = 100000;
    /* Everything below 32 MiB from the heap's top, so the filler is too. */
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    int arranged = 0;
    for (int attempt = 0; attempt < 8 && !arranged; attempt++) {
        /* glibc: a chunk is the request + 8 rounded up to 16 (at least 32);
         * the top chunk follows the last block carved from it. */
        unsigned char *p0 = malloc(40000);
        ck_assert_ptr_nonnull(p0);
        uintptr_t top = (uintptr_t)p0 - 16 + ((40000 + 8 + 15) & ~(size_t)15);
        size_t d = (size_t)((span - ((top + 16) & (span - 1))) & (span - 1));
        if (d < 64) d += span;
        void *filler = malloc(d - 8);
        ck_assert_ptr_nonnull(filler);
        void *q = malloc(req);
        ck_assert_ptr_nonnull(q);
        if (((uintptr_t)q & (span - 1)) == 0) {
            arranged = 1;
            free(q);
            /* The same malloc would hand out the same block: the default
             * allocator hands out a mapped copy instead, which grows,
             * shrinks and is freed as one. */
            char *mine = cgprop__mem_alloc(&std, req, 1);
            ck_assert_ptr_nonnull(mine);
            ck_assert_ptr_ne(mine, q);
            memset(mine, 0x42, req);
            char *grown = cgprop__mem_realloc(&std, mine, req + 1000, 1);
            ck_assert_ptr_nonnull(grown);
            ck_assert_int_eq(grown[req - 1], 0x42);
            grown[req + 999] = 0x43;
            char *shrunk = cgprop__mem_realloc(&std, grown, 10, 1);
            ck_assert_ptr_nonnull(shrunk);
            ck_assert_int_eq(shrunk[9], 0x42);
            cgprop__mem_free(&std, shrunk);
        } else {
            free(q);
        }
        free(filler);
        free(p0);
    }
    mallopt(M_MMAP_THRESHOLD, 128 << 10);
    (void)arranged;
#endif
}
END_TEST

static Suite *alloc_suite(void)
{
    Suite *s = suite_create("alloc");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 500);
    tcase_add_test(tc, test_allocator_copied_and_user_passed);
    tcase_add_test(tc, test_iterator_memory_is_the_graphs);
    tcase_add_test(tc, test_enomem_on_graph_new_every_n);
    tcase_add_test(tc, test_point_lookup_needs_no_memory);
    tcase_add_test(tc, test_sweep_build_and_iterate);
    tcase_add_test(tc, test_sweep_analyses);
    tcase_add_test(tc, test_stdin_regular_file_is_mapped);
    tcase_add_test(tc, test_huge_page_advice);
    tcase_add_test(tc, test_huge_advice_keeps_one_mapping);
    tcase_add_test(tc, test_big_blocks_mapped_and_grown);
    tcase_add_test(tc, test_no_malloc_block_on_a_span);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(alloc_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
