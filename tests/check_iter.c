/* Reading a graph back: node/edge/caller/callee iterators, wrong row sizes,
 * stale iterators, bulk copies, counts, point look-ups, and analysis kinds
 * asked for before their analysis ran.
 *
 * The fixture (K = 2), worked out by hand:
 *   functions a=0 b=1 c=2 d=3
 *   self      a {1,2}  b {3,4}  c {5,6}  d none
 *   spontaneous a: 1 entry, {30,300}
 *   calls e0 a->b 2 {10,100}
 *         e1 b->c 1 (no cost)
 *         e2 a->c 3 {5,50}
 *         e3 c->c 1 {1,2}      self-call
 *         e4 b->a 1 (no cost)
 *         e5 d->b 0 {0,0}      a cost of zero is still a cost
 *   calls_in a = 1, b = 2 + 0 = 2, c = 1 + 3 + 1 = 5, d = 0
 *   flags    a SPONTANEOUS, b -, c SELF_RECURSIVE, d NO_CALLERS
 */
#include <check.h>
#include "ck_quiet.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"

enum { A, B, C, D, NNODES };
enum { NEDGES = 6 };

static const cgprop_node_row want_nodes[2][NNODES] = {
    {
        {A, CGPROP_F_SPONTANEOUS, 1, 1, 30, 1},
        {B, 0, 3, 0, 0, 2},
        {C, CGPROP_F_SELF_RECURSIVE, 5, 0, 0, 5},
        {D, CGPROP_F_NO_CALLERS, 0, 0, 0, 0},
    },
    {
        {A, CGPROP_F_SPONTANEOUS, 2, 1, 300, 1},
        {B, 0, 4, 0, 0, 2},
        {C, CGPROP_F_SELF_RECURSIVE, 6, 0, 0, 5},
        {D, CGPROP_F_NO_CALLERS, 0, 0, 0, 0},
    },
};

static const cgprop_edge_row want_edges[2][NEDGES] = {
    {
        {0, A, B, CGPROP_F_HAS_COST, 2, 10},
        {1, B, C, 0, 1, 0},
        {2, A, C, CGPROP_F_HAS_COST, 3, 5},
        {3, C, C, CGPROP_F_HAS_COST | CGPROP_F_SELF_CALL, 1, 1},
        {4, B, A, 0, 1, 0},
        {5, D, B, CGPROP_F_HAS_COST, 0, 0},
    },
    {
        {0, A, B, CGPROP_F_HAS_COST, 2, 100},
        {1, B, C, 0, 1, 0},
        {2, A, C, CGPROP_F_HAS_COST, 3, 50},
        {3, C, C, CGPROP_F_HAS_COST | CGPROP_F_SELF_CALL, 1, 2},
        {4, B, A, 0, 1, 0},
        {5, D, B, CGPROP_F_HAS_COST, 0, 0},
    },
};

static cgprop_graph *fixture(void)
{
    static const char *const names[2] = {"Ir", "ns"};
    static const char *const keys[NNODES] = {"a", "b", "c", "d"};
    const uint64_t sa[2] = {1, 2}, sb[2] = {3, 4}, sc[2] = {5, 6}, sp[2] = {30, 300};
    const uint64_t ab[2] = {10, 100}, ac[2] = {5, 50}, cc[2] = {1, 2}, db[2] = {0, 0};
    cgprop_graph *g = NULL;
    uint32_t i, id;

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, &g), CGPROP_OK);
    for (i = 0; i < NNODES; i++) {
        ck_assert_int_eq(cgprop_graph_add_node(g, keys[i], 1, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
    }
    ck_assert_int_eq(cgprop_graph_add_self(g, A, sa), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, B, sb), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, C, sc), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, A, 1, sp), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, B, 2, ab, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, B, C, 1, NULL, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, C, 3, ac, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, C, C, 1, cc, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, B, A, 1, NULL, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, D, B, 0, db, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), NEDGES);
    return g;
}

static void assert_node(const cgprop_node_row *got, const cgprop_node_row *want)
{
    ck_assert_uint_eq(got->id, want->id);
    ck_assert_uint_eq(got->flags, want->flags);
    ck_assert_uint_eq(got->self, want->self);
    ck_assert_uint_eq(got->spont_count, want->spont_count);
    ck_assert_uint_eq(got->spont_cost, want->spont_cost);
    ck_assert_uint_eq(got->calls_in, want->calls_in);
}

static void assert_edge(const cgprop_edge_row *got, const cgprop_edge_row *want)
{
    ck_assert_uint_eq(got->id, want->id);
    ck_assert_uint_eq(got->caller, want->caller);
    ck_assert_uint_eq(got->callee, want->callee);
    ck_assert_uint_eq(got->flags, want->flags);
    ck_assert_uint_eq(got->count, want->count);
    ck_assert_uint_eq(got->cost, want->cost);
}

static cgprop_iter *iter(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t arg)
{
    cgprop_iter *it = NULL;
    ck_assert_int_eq(cgprop_iter_new(g, kind, metric, arg, &it), CGPROP_OK);
    ck_assert_ptr_nonnull(it);
    return it;
}

/* Walk an edge iterator and compare with the listed call ids of metric m. */
static void expect_edges(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t arg, const uint32_t *ids,
                         size_t n)
{
    cgprop_iter *it = iter(g, kind, metric, arg);
    cgprop_edge_row r;
    size_t i;

    ck_assert_uint_eq(cgprop_iter_count(it), n);
    for (i = 0; i < n; i++) {
        ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
        assert_edge(&r, &want_edges[metric][ids[i]]);
    }
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_DONE);
    ck_assert_uint_eq(cgprop_iter_count(it), n);
    cgprop_iter_free(it);
}

START_TEST(test_nodes_in_id_order)
{
    cgprop_graph *g = fixture();
    uint32_t m, i;

    for (m = 0; m < 2; m++) {
        cgprop_iter *it = iter(g, CGPROP_ITER_NODES, m, 0);
        cgprop_node_row r;
        ck_assert_uint_eq(cgprop_iter_count(it), NNODES);
        for (i = 0; i < NNODES; i++) {
            memset(&r, 0x5A, sizeof r);
            ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
            assert_node(&r, &want_nodes[m][i]);
        }
        ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_DONE);
        ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_DONE); /* stays done */
        ck_assert_uint_eq(cgprop_iter_count(it), NNODES);
        cgprop_iter_free(it);
    }
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_edges_callers_callees)
{
    cgprop_graph *g = fixture();
    static const uint32_t all[] = {0, 1, 2, 3, 4, 5};
    static const uint32_t into_a[] = {4}, into_b[] = {0, 5}, into_c[] = {1, 2, 3};
    static const uint32_t from_a[] = {0, 2}, from_b[] = {1, 4}, from_c[] = {3}, from_d[] = {5};
    uint32_t m;

    for (m = 0; m < 2; m++) {
        expect_edges(g, CGPROP_ITER_EDGES, m, 0, all, 6);
        expect_edges(g, CGPROP_ITER_CALLERS, m, A, into_a, 1);
        expect_edges(g, CGPROP_ITER_CALLERS, m, B, into_b, 2);
        expect_edges(g, CGPROP_ITER_CALLERS, m, C, into_c, 3);
        expect_edges(g, CGPROP_ITER_CALLERS, m, D, NULL, 0);
        expect_edges(g, CGPROP_ITER_CALLEES, m, A, from_a, 2);
        expect_edges(g, CGPROP_ITER_CALLEES, m, B, from_b, 2);
        expect_edges(g, CGPROP_ITER_CALLEES, m, C, from_c, 1);
        expect_edges(g, CGPROP_ITER_CALLEES, m, D, from_d, 1);
    }
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_adjacency_follows_mutation)
{
    /* Callers/callees iterators made after a mutation see the new call, in id order. */
    cgprop_graph *g = fixture();
    static const uint32_t into_c[] = {1, 2, 3}, from_d[] = {5};
    cgprop_iter *it;
    cgprop_edge_row r;

    expect_edges(g, CGPROP_ITER_CALLERS, 0, C, into_c, 3);
    expect_edges(g, CGPROP_ITER_CALLEES, 0, D, from_d, 1);
    ck_assert_int_eq(cgprop_graph_add_edge(g, D, C, 7, NULL, NULL), CGPROP_OK);
    it = iter(g, CGPROP_ITER_CALLERS, 0, C);
    ck_assert_uint_eq(cgprop_iter_count(it), 4);
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, 1);
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, 2);
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, 3);
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, 6);
    ck_assert_uint_eq(r.caller, D);
    ck_assert_uint_eq(r.callee, C);
    ck_assert_uint_eq(r.count, 7);
    ck_assert_uint_eq(r.flags, 0);
    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_DONE);
    cgprop_iter_free(it);
    it = iter(g, CGPROP_ITER_CALLEES, 0, D);
    ck_assert_uint_eq(cgprop_iter_count(it), 2);
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_wrong_row_size)
{
    cgprop_graph *g = fixture();
    cgprop_iter *it = iter(g, CGPROP_ITER_NODES, 0, 0);
    cgprop_iter *ie = iter(g, CGPROP_ITER_EDGES, 0, 0);
    cgprop_node_row nr;
    cgprop_edge_row er;
    cgprop_node_row buf[4];
    size_t n = 99;

    ck_assert_uint_ne(sizeof nr, sizeof er); /* else the test below means nothing */
    ck_assert_int_eq(cgprop_iter_next(it, &er, sizeof er), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr - 1), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr + 8), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, 0), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_next(ie, &nr, sizeof nr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof er, 4, &n), CGPROP_EINVAL);
    /* A refused call consumes no row. */
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_OK);
    assert_node(&nr, &want_nodes[0][A]);
    ck_assert_int_eq(cgprop_iter_next(ie, &er, sizeof er), CGPROP_OK);
    assert_edge(&er, &want_edges[0][0]);

    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, &nr, sizeof er), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, 0, &er, sizeof nr), CGPROP_EINVAL);
    cgprop_iter_free(it);
    cgprop_iter_free(ie);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_mutation_makes_iterator_stale)
{
    cgprop_graph *g = fixture();
    const uint64_t one[2] = {1, 1};
    cgprop_iter *it = iter(g, CGPROP_ITER_NODES, 0, 0);
    cgprop_iter *ie = iter(g, CGPROP_ITER_EDGES, 1, 0);
    cgprop_iter *ic = iter(g, CGPROP_ITER_CALLERS, 0, C);
    cgprop_node_row nr, buf[4];
    cgprop_edge_row er;
    uint32_t id;
    size_t n = 99;

    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_OK);
    /* Failed mutations and reads do not invalidate anything. */
    ck_assert_int_eq(cgprop_graph_add_self(g, 99, one), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_find_node(g, "zz", 2, &id), CGPROP_ENOTFOUND);
    ck_assert_int_eq(cgprop_graph_add_node(g, "a", 1, &id), CGPROP_OK); /* existing key */
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 1, &nr, sizeof nr), CGPROP_OK);
    {
        const uint64_t max[2] = {UINT64_MAX, UINT64_MAX};
        ck_assert_int_eq(cgprop_graph_add_self(g, A, max), CGPROP_EOVERFLOW);
    }
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_OK);
    assert_node(&nr, &want_nodes[0][B]);

    ck_assert_int_eq(cgprop_graph_add_self(g, D, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 4, &n), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_iter_next(ie, &er, sizeof er), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_iter_next(ic, &er, sizeof er), CGPROP_ESTATE);
    cgprop_iter_free(it);
    cgprop_iter_free(ie);
    cgprop_iter_free(ic);

    /* A new iterator sees the new figures. */
    it = iter(g, CGPROP_ITER_NODES, 1, 0);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 4, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 4);
    ck_assert_uint_eq(buf[3].self, 1);
    /* Adding a function invalidates it too. */
    ck_assert_int_eq(cgprop_graph_add_node(g, "e", 1, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 4);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_ESTATE);
    cgprop_iter_free(it);

    it = iter(g, CGPROP_ITER_NODES, 0, 0);
    ck_assert_uint_eq(cgprop_iter_count(it), 5);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, id, 1, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_ESTATE);
    cgprop_iter_free(it);
    it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, B, 1, NULL, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &er, sizeof er), CGPROP_ESTATE);
    cgprop_iter_free(it);
    it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, A, B, 0, 0, 1, one, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &er, sizeof er), CGPROP_ESTATE);
    cgprop_iter_free(it);
    it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, A, CGPROP_LEVEL_1, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &er, sizeof er), CGPROP_ESTATE);
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_copy_rows_chunks)
{
    cgprop_graph *g = fixture();
    cgprop_edge_row buf[10], sentinel;
    cgprop_iter *it;
    size_t n, i;

    memset(&sentinel, 0xC3, sizeof sentinel);

    /* cap smaller than the total: 4 + 2, then DONE. */
    it = iter(g, CGPROP_ITER_EDGES, 1, 0);
    for (i = 0; i < 10; i++) buf[i] = sentinel;
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 4, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 4);
    for (i = 0; i < 4; i++) assert_edge(&buf[i], &want_edges[1][i]);
    ck_assert_int_eq(memcmp(&buf[4], &sentinel, sizeof sentinel), 0); /* nothing past cap */
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 4, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 2);
    assert_edge(&buf[0], &want_edges[1][4]);
    assert_edge(&buf[1], &want_edges[1][5]);
    assert_edge(&buf[2], &want_edges[1][2]); /* left from the first chunk: nothing written past n */
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 4, &n), CGPROP_DONE);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(cgprop_iter_next(it, &buf[0], sizeof buf[0]), CGPROP_DONE);
    cgprop_iter_free(it);

    /* cap exactly the total. */
    it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 6, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 6);
    for (i = 0; i < 6; i++) assert_edge(&buf[i], &want_edges[0][i]);
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 6, &n), CGPROP_DONE);
    ck_assert_uint_eq(n, 0);
    cgprop_iter_free(it);

    /* cap 0 with rows left copies nothing and loses nothing; cap larger than the rest. */
    it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    for (i = 0; i < 10; i++) buf[i] = sentinel;
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 0, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 0);
    ck_assert_int_eq(memcmp(&buf[0], &sentinel, sizeof sentinel), 0);
    ck_assert_int_eq(cgprop_iter_next(it, &buf[0], sizeof buf[0]), CGPROP_OK);
    assert_edge(&buf[0], &want_edges[0][0]);
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 10, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 5);
    for (i = 0; i < 5; i++) assert_edge(&buf[i], &want_edges[0][i + 1]);
    ck_assert_int_eq(memcmp(&buf[5], &sentinel, sizeof sentinel), 0);
    n = 99;
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 0, &n), CGPROP_DONE);
    ck_assert_uint_eq(n, 0);
    cgprop_iter_free(it);

    /* Callers of c, copied in chunks of 2. */
    it = iter(g, CGPROP_ITER_CALLERS, 0, C);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 2, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 2);
    assert_edge(&buf[0], &want_edges[0][1]);
    assert_edge(&buf[1], &want_edges[0][2]);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 2, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 1);
    assert_edge(&buf[0], &want_edges[0][3]);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], 2, &n), CGPROP_DONE);
    ck_assert_uint_eq(n, 0);
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_copy_rows_nodes)
{
    cgprop_graph *g = fixture();
    cgprop_node_row buf[NNODES];
    cgprop_iter *it = iter(g, CGPROP_ITER_NODES, 1, 0);
    size_t n = 0, i;

    ck_assert_int_eq(cgprop_iter_copy_rows(it, buf, sizeof buf[0], NNODES, &n), CGPROP_OK);
    ck_assert_uint_eq(n, NNODES);
    for (i = 0; i < NNODES; i++) assert_node(&buf[i], &want_nodes[1][i]);
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_empty_graph)
{
    static const char *const names[1] = {"x"};
    cgprop_graph *g = NULL;
    cgprop_iter *it;
    cgprop_node_row nr;
    cgprop_edge_row er[2];
    size_t n = 99;

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    it = iter(g, CGPROP_ITER_NODES, 0, 0);
    ck_assert_uint_eq(cgprop_iter_count(it), 0);
    ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_DONE);
    cgprop_iter_free(it);
    it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    ck_assert_uint_eq(cgprop_iter_count(it), 0);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, er, sizeof er[0], 2, &n), CGPROP_DONE);
    ck_assert_uint_eq(n, 0);
    cgprop_iter_free(it);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, &nr, sizeof nr), CGPROP_EINVAL);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_point_lookups)
{
    cgprop_graph *g = fixture();
    cgprop_node_row nr;
    cgprop_edge_row er;
    cgprop_member_row mr;
    uint32_t m, i;

    for (m = 0; m < 2; m++) {
        for (i = 0; i < NNODES; i++) {
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, i, &nr, sizeof nr), CGPROP_OK);
            assert_node(&nr, &want_nodes[m][i]);
        }
        for (i = 0; i < NEDGES; i++) {
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, m, i, &er, sizeof er), CGPROP_OK);
            assert_edge(&er, &want_edges[m][i]);
        }
    }
    /* Point look-ups read, they do not invalidate. */
    {
        cgprop_iter *it = iter(g, CGPROP_ITER_NODES, 0, 0);
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 2, &nr, sizeof nr), CGPROP_OK);
        ck_assert_int_eq(cgprop_iter_next(it, &nr, sizeof nr), CGPROP_OK);
        assert_node(&nr, &want_nodes[0][A]);
        cgprop_iter_free(it);
    }
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, NNODES, &nr, sizeof nr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, NEDGES, &er, sizeof er), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 2, 0, &nr, sizeof nr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 2, 0, &er, sizeof er), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CALLERS, 0, 0, &er, sizeof er), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CALLEES, 0, 0, &er, sizeof er), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_MEMBERS, 0, 0, &mr, sizeof mr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, 0, 0, 0, &nr, sizeof nr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_get_row(g, 11, 0, 0, &nr, sizeof nr), CGPROP_EINVAL);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_iter_new_bad_args)
{
    cgprop_graph *g = fixture();
    cgprop_iter *it = (cgprop_iter *)&it;

    ck_assert_int_eq(cgprop_iter_new(g, 0, 0, 0, &it), CGPROP_EINVAL);
    ck_assert_ptr_null(it);
    ck_assert_str_ne(cgprop_graph_errmsg(g), "");
    it = (cgprop_iter *)&it;
    ck_assert_int_eq(cgprop_iter_new(g, 11, 0, 0, &it), CGPROP_EINVAL);
    ck_assert_ptr_null(it);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_NODES, 2, 0, &it), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_EDGES, UINT32_MAX, 0, &it), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLERS, 0, NNODES, &it), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLEES, 0, UINT32_MAX, &it), CGPROP_EINVAL);
    ck_assert_ptr_null(it);
    ck_assert_str_ne(cgprop_graph_errmsg(g), "");
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLEES, 1, D, &it), CGPROP_OK);
    ck_assert_str_eq(cgprop_graph_errmsg(g), "");
    cgprop_iter_free(it);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_analysis_kinds_before_analysis)
{
    static const uint32_t kinds[] = {CGPROP_ITER_CYCLES, CGPROP_ITER_MEMBERS, CGPROP_ITER_TOTALS,
                                     CGPROP_ITER_EDGE_TOTALS, CGPROP_ITER_SPLIT, CGPROP_ITER_EDGE_SPLIT};
    cgprop_graph *g = fixture();
    cgprop_total_row tr;
    cgprop_edge_total_row etr;
    cgprop_split_row sr;
    cgprop_edge_split_row esr;
    cgprop_cycle_row cr;
    uint32_t cyc = 0;
    size_t i;

    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        cgprop_iter *it = (cgprop_iter *)&it;
        ck_assert_msg(cgprop_iter_new(g, kinds[i], 0, 0, &it) == CGPROP_ESTATE, "kind %u", (unsigned)kinds[i]);
        ck_assert_ptr_null(it);
        ck_assert_str_ne(cgprop_graph_errmsg(g), "");
    }
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cr, sizeof cr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, 0, &tr, sizeof tr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, 0, 0, &etr, sizeof etr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, 0, 0, &sr, sizeof sr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_SPLIT, 0, 0, &esr, sizeof esr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, A, &cyc), CGPROP_ESTATE);
    cgprop_graph_free(g);
}
END_TEST

/* Uses cycles.c: a live CYCLES iterator goes stale on mutation and on a re-run. */
START_TEST(test_analysis_iterator_goes_stale)
{
    cgprop_graph *g = fixture();
    const uint64_t one[2] = {1, 1};
    cgprop_cycle_row cr;
    cgprop_member_row mr;
    cgprop_iter *it, *im;
    size_t nc = 99;
    uint32_t cyc = 99;

    /* Only cycle: {a, b} (a->b, b->a); c calls itself only; d is alone. */
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_uint_eq(nc, 1);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, B, &cyc), CGPROP_OK);
    ck_assert_uint_eq(cyc, 0);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, C, &cyc), CGPROP_OK);
    ck_assert_uint_eq(cyc, CGPROP_NONE);
    it = iter(g, CGPROP_ITER_CYCLES, 0, 0);
    ck_assert_uint_eq(cgprop_iter_count(it), 1);
    ck_assert_int_eq(cgprop_iter_next(it, &cr, sizeof cr), CGPROP_OK);
    ck_assert_uint_eq(cr.id, 0);
    ck_assert_uint_eq(cr.nmembers, 2);
    ck_assert_uint_eq(cr.first, A);
    ck_assert_uint_eq(cr.self, 4);
    ck_assert_int_eq(cgprop_iter_next(it, &cr, sizeof cr), CGPROP_DONE);
    cgprop_iter_free(it);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_MEMBERS, 0, 1, &im), CGPROP_EINVAL);

    im = iter(g, CGPROP_ITER_MEMBERS, 0, 0);
    ck_assert_int_eq(cgprop_iter_next(im, &mr, sizeof mr), CGPROP_OK);
    ck_assert_uint_eq(mr.cycle, 0);
    ck_assert_uint_eq(mr.node, A);
    /* Re-running the analysis makes earlier iterators of its kinds stale. */
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(im, &mr, sizeof mr), CGPROP_ESTATE);
    cgprop_iter_free(im);

    it = iter(g, CGPROP_ITER_CYCLES, 0, 0);
    ck_assert_int_eq(cgprop_graph_add_self(g, D, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &cr, sizeof cr), CGPROP_ESTATE);
    cgprop_iter_free(it);
    ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CYCLES, 0, 0, &it), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, 0, &cr, sizeof cr), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, A, &cyc), CGPROP_ESTATE);
    cgprop_graph_free(g);
}
END_TEST

/* A row that reads more than one analysis goes stale when any of them runs
 * again: a cycle row reads the cycles and, once collapse has run, its total;
 * a split row reads propagate's heuristic once propagate has run. */
START_TEST(test_iterator_tracks_every_analysis_it_reads)
{
    cgprop_graph *g = fixture();
    cgprop_cycle_row cr;
    cgprop_split_row sr;
    cgprop_total_row tr;
    cgprop_iter *it, *is, *itot;

    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    it = iter(g, CGPROP_ITER_CYCLES, 0, 0);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    /* Made before collapse: its rows would now carry collapse's total. */
    ck_assert_int_eq(cgprop_iter_next(it, &cr, sizeof cr), CGPROP_ESTATE);
    cgprop_iter_free(it);
    it = iter(g, CGPROP_ITER_CYCLES, 0, 0);
    ck_assert_int_eq(cgprop_iter_next(it, &cr, sizeof cr), CGPROP_OK);
    /* {a, b}: self 1 + 3, and all of c (self 5) below it. */
    ck_assert_msg(cr.total == 9.0, "total %g", cr.total);
    cgprop_iter_free(it);
    /* Made after collapse: a re-run of collapse makes it stale. */
    it = iter(g, CGPROP_ITER_CYCLES, 0, 0);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COUNT), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(it, &cr, sizeof cr), CGPROP_ESTATE);
    cgprop_iter_free(it);

    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    is = iter(g, CGPROP_ITER_SPLIT, 0, 0);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(is, &sr, sizeof sr), CGPROP_ESTATE);
    cgprop_iter_free(is);
    /* The split gives the same result on the same graph: running it again
     * leaves the totals, and the bounds built on it, current. */
    itot = iter(g, CGPROP_ITER_TOTALS, 0, 0);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(itot, &tr, sizeof tr), CGPROP_OK);
    /* A re-run of the cycles does not change the totals, but the rows read
     * the cycles: the iterator goes stale, a new one reads on. */
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(itot, &tr, sizeof tr), CGPROP_ESTATE);
    cgprop_iter_free(itot);
    itot = iter(g, CGPROP_ITER_TOTALS, 0, 0);
    ck_assert_int_eq(cgprop_iter_next(itot, &tr, sizeof tr), CGPROP_OK);
    cgprop_iter_free(itot);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_iterators_are_independent)
{
    cgprop_graph *g = fixture();
    cgprop_iter *i1 = iter(g, CGPROP_ITER_NODES, 0, 0);
    cgprop_iter *i2 = iter(g, CGPROP_ITER_NODES, 1, 0);
    cgprop_node_row r;

    ck_assert_int_eq(cgprop_iter_next(i1, &r, sizeof r), CGPROP_OK);
    ck_assert_int_eq(cgprop_iter_next(i1, &r, sizeof r), CGPROP_OK);
    assert_node(&r, &want_nodes[0][B]);
    ck_assert_int_eq(cgprop_iter_next(i2, &r, sizeof r), CGPROP_OK);
    assert_node(&r, &want_nodes[1][A]);
    ck_assert_int_eq(cgprop_iter_next(i1, &r, sizeof r), CGPROP_OK);
    assert_node(&r, &want_nodes[0][C]);
    cgprop_iter_free(i1);
    ck_assert_int_eq(cgprop_iter_next(i2, &r, sizeof r), CGPROP_OK);
    assert_node(&r, &want_nodes[1][B]);
    cgprop_iter_free(i2);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_iter_free_after_graph_free)
{
    /* The header lets the caller free iterators before or after the graph. */
    cgprop_graph *g = fixture();
    cgprop_iter *it = iter(g, CGPROP_ITER_EDGES, 0, 0);
    cgprop_iter *ic = iter(g, CGPROP_ITER_CALLEES, 0, A);
    cgprop_edge_row r;

    ck_assert_int_eq(cgprop_iter_next(it, &r, sizeof r), CGPROP_OK);
    cgprop_graph_free(g);
    cgprop_iter_free(it);
    cgprop_iter_free(ic);
}
END_TEST

static Suite *iter_suite(void)
{
    Suite *s = suite_create("iter");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_nodes_in_id_order);
    tcase_add_test(tc, test_edges_callers_callees);
    tcase_add_test(tc, test_adjacency_follows_mutation);
    tcase_add_test(tc, test_wrong_row_size);
    tcase_add_test(tc, test_mutation_makes_iterator_stale);
    tcase_add_test(tc, test_copy_rows_chunks);
    tcase_add_test(tc, test_copy_rows_nodes);
    tcase_add_test(tc, test_empty_graph);
    tcase_add_test(tc, test_point_lookups);
    tcase_add_test(tc, test_iter_new_bad_args);
    tcase_add_test(tc, test_analysis_kinds_before_analysis);
    tcase_add_test(tc, test_analysis_iterator_goes_stale);
    tcase_add_test(tc, test_iterator_tracks_every_analysis_it_reads);
    tcase_add_test(tc, test_iterators_are_independent);
    tcase_add_test(tc, test_iter_free_after_graph_free);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(iter_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
