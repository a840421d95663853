/* Graph building: metrics, functions by key, self costs, calls, per-class
 * costs, spontaneous entries, overflow, bad ids and the generation counter.
 * Every expected value below is worked out by hand from the calls made; the
 * only figures read back from the library are the ones under test. */
#include <check.h>
#include "ck_quiet.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "graph.h" /* cgprop__add_edges, and the fields compared below */

static const char *const metric_names[3] = {"Ir", "ns", "samples"};

static cgprop_graph *new_graph(size_t k)
{
    cgprop_graph *g = NULL;
    ck_assert_uint_le(k, 3);
    ck_assert_int_eq(cgprop_graph_new(NULL, metric_names, NULL, k, &g), CGPROP_OK);
    ck_assert_ptr_nonnull(g);
    return g;
}

static uint32_t add(cgprop_graph *g, const char *key)
{
    uint32_t id = 0xDEADBEEFu;
    ck_assert_int_eq(cgprop_graph_add_node(g, key, strlen(key), &id), CGPROP_OK);
    return id;
}

static cgprop_node_row node_row(cgprop_graph *g, uint32_t metric, uint32_t id)
{
    cgprop_node_row r;
    memset(&r, 0xA5, sizeof r);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, metric, id, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, id);
    return r;
}

static cgprop_edge_row edge_row(cgprop_graph *g, uint32_t metric, uint32_t id)
{
    cgprop_edge_row r;
    memset(&r, 0xA5, sizeof r);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, metric, id, &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.id, id);
    return r;
}

static void assert_errmsg_set(const cgprop_graph *g)
{
    const char *m = cgprop_graph_errmsg(g);
    ck_assert_ptr_nonnull(m);
    ck_assert_msg(m[0] != '\0', "expected an error message on the graph");
}

static void assert_errmsg_clear(const cgprop_graph *g)
{
    const char *m = cgprop_graph_errmsg(g);
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m, "");
}

/* ---- metrics ---- */

START_TEST(test_metrics_nul_terminated)
{
    cgprop_graph *g = new_graph(3);
    size_t len = 99;
    uint32_t k = 99;

    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, &len), "Ir");
    ck_assert_uint_eq(len, 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "ns");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 2, &len), "samples");
    ck_assert_uint_eq(len, 7);
    ck_assert_ptr_null(cgprop_graph_metric_name(g, 3, &len));

    ck_assert_int_eq(cgprop_graph_find_metric(g, "ns", 2, &k), CGPROP_OK);
    ck_assert_uint_eq(k, 1);
    ck_assert_int_eq(cgprop_graph_find_metric(g, "samples", 7, &k), CGPROP_OK);
    ck_assert_uint_eq(k, 2);
    /* Length, not NUL, ends the name. */
    ck_assert_int_eq(cgprop_graph_find_metric(g, "Irq", 2, &k), CGPROP_OK);
    ck_assert_uint_eq(k, 0);
    ck_assert_int_eq(cgprop_graph_find_metric(g, "sam", 3, &k), CGPROP_ENOTFOUND);
    assert_errmsg_set(g);
    ck_assert_int_eq(cgprop_graph_find_metric(g, "Irq", 3, &k), CGPROP_ENOTFOUND);
    ck_assert_int_eq(cgprop_graph_find_metric(g, "", 0, &k), CGPROP_ENOTFOUND);

    ck_assert_uint_eq(cgprop_graph_node_count(g), 0);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_metrics_with_lengths)
{
    /* Names cut out of one buffer, none NUL-terminated where it ends. */
    char buf[] = "cyclesXinstrYZ";
    const char *names[2];
    size_t lens[2] = {6, 5};
    cgprop_graph *g = NULL;
    size_t len = 0;
    uint32_t k = 99;
    const char *n0, *n1;

    names[0] = buf;
    names[1] = buf + 7;
    ck_assert_int_eq(cgprop_graph_new(NULL, names, lens, 2, &g), CGPROP_OK);
    /* The library copied the names: clobber the buffer. */
    memset(buf, 'Q', sizeof buf - 1);

    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    n0 = cgprop_graph_metric_name(g, 0, &len);
    ck_assert_uint_eq(len, 6);
    ck_assert_str_eq(n0, "cycles");
    n1 = cgprop_graph_metric_name(g, 1, &len);
    ck_assert_uint_eq(len, 5);
    ck_assert_str_eq(n1, "instr");
    ck_assert_int_eq(cgprop_graph_find_metric(g, "instr", 5, &k), CGPROP_OK);
    ck_assert_uint_eq(k, 1);
    ck_assert_int_eq(cgprop_graph_find_metric(g, "cyclesX", 7, &k), CGPROP_ENOTFOUND);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_metric_count_limits)
{
    const char *names[CGPROP_MAX_METRICS + 1];
    char store[CGPROP_MAX_METRICS + 1][8];
    cgprop_graph *g = (cgprop_graph *)&g; /* must be reset to NULL on error */
    size_t i;
    uint32_t k = 0;

    for (i = 0; i <= CGPROP_MAX_METRICS; i++) {
        snprintf(store[i], sizeof store[i], "m%zu", i);
        names[i] = store[i];
    }
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 0, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);
    g = (cgprop_graph *)&g;
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, CGPROP_MAX_METRICS + 1, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, CGPROP_MAX_METRICS, &g), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), CGPROP_MAX_METRICS);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 63, NULL), "m63");
    ck_assert_int_eq(cgprop_graph_find_metric(g, "m17", 3, &k), CGPROP_OK);
    ck_assert_uint_eq(k, 17);
    cgprop_graph_free(g);

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 1);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_metric_empty_name_rejected)
{
    const char *names[2] = {"Ir", ""};
    const char *names2[2] = {"Ir", "ns"};
    size_t lens[2] = {2, 0};
    cgprop_graph *g = (cgprop_graph *)&g;

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);
    g = (cgprop_graph *)&g;
    ck_assert_int_eq(cgprop_graph_new(NULL, names2, lens, 2, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);
}
END_TEST

/* ---- functions ---- */

START_TEST(test_add_node_same_key_same_id)
{
    cgprop_graph *g = new_graph(1);
    uint32_t id = 99;
    size_t len = 0;
    const char *key;

    ck_assert_uint_eq(add(g, "main"), 0);
    ck_assert_uint_eq(add(g, "foo"), 1);
    ck_assert_uint_eq(add(g, "main"), 0);
    ck_assert_uint_eq(add(g, "bar"), 2);
    ck_assert_uint_eq(add(g, "foo"), 1);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    /* The key ends at len, not at a NUL. */
    ck_assert_int_eq(cgprop_graph_add_node(g, "mainXYZ", 4, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 0);
    ck_assert_int_eq(cgprop_graph_add_node(g, "ma", 2, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 3);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 4);

    ck_assert_int_eq(cgprop_graph_find_node(g, "foo", 3, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 1);
    ck_assert_int_eq(cgprop_graph_find_node(g, "barn", 3, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 2);
    ck_assert_int_eq(cgprop_graph_find_node(g, "baz", 3, &id), CGPROP_ENOTFOUND);
    assert_errmsg_set(g);
    ck_assert_int_eq(cgprop_graph_find_node(g, "m", 1, &id), CGPROP_ENOTFOUND);
    ck_assert_int_eq(cgprop_graph_find_node(g, "", 0, &id), CGPROP_ENOTFOUND);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 4); /* find never adds */

    key = cgprop_graph_node_key(g, 1, &len);
    ck_assert_uint_eq(len, 3);
    ck_assert_str_eq(key, "foo");
    key = cgprop_graph_node_key(g, 3, NULL);
    ck_assert_str_eq(key, "ma");
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_keys_with_nul_and_empty)
{
    cgprop_graph *g = new_graph(1);
    static const struct {
        const char *p;
        size_t n;
    } keys[] = {
        {"a\0b", 3}, {"a", 1}, {"a\0c", 3}, {"", 0}, {"a\0", 2}, {"\0", 1}, {"\0\0", 2}, {"b", 1},
    };
    const size_t nk = sizeof keys / sizeof keys[0];
    uint32_t id;
    size_t i;

    for (i = 0; i < nk; i++) {
        ck_assert_int_eq(cgprop_graph_add_node(g, keys[i].p, keys[i].n, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
    }
    ck_assert_uint_eq(cgprop_graph_node_count(g), nk);
    for (i = 0; i < nk; i++) {
        size_t len = 12345;
        const char *k = cgprop_graph_node_key(g, (uint32_t)i, &len);
        ck_assert_ptr_nonnull(k);
        ck_assert_uint_eq(len, keys[i].n);
        ck_assert_int_eq(memcmp(k, keys[i].p, len), 0);
        ck_assert_int_eq(k[len], '\0');
        ck_assert_int_eq(cgprop_graph_find_node(g, keys[i].p, keys[i].n, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
        ck_assert_int_eq(cgprop_graph_add_node(g, keys[i].p, keys[i].n, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
    }
    ck_assert_uint_eq(cgprop_graph_node_count(g), nk);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_key_is_copied)
{
    cgprop_graph *g = new_graph(1);
    char buf[8] = "alpha";
    uint32_t id = 99;

    ck_assert_int_eq(cgprop_graph_add_node(g, buf, 5, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 0);
    memcpy(buf, "omega", 5);
    ck_assert_str_eq(cgprop_graph_node_key(g, 0, NULL), "alpha");
    ck_assert_int_eq(cgprop_graph_find_node(g, "alpha", 5, &id), CGPROP_OK);
    ck_assert_uint_eq(id, 0);
    ck_assert_int_eq(cgprop_graph_find_node(g, buf, 5, &id), CGPROP_ENOTFOUND);
    cgprop_graph_free(g);
}
END_TEST

/* ---- self costs ---- */

START_TEST(test_add_self_accumulates)
{
    cgprop_graph *g = new_graph(2);
    uint32_t a = add(g, "a"), b = add(g, "b");
    const uint64_t c1[2] = {3, 5}, c2[2] = {10, 0}, c3[2] = {0, 7};
    cgprop_node_row r;

    ck_assert_int_eq(cgprop_graph_add_self(g, a, c1), CGPROP_OK);
    assert_errmsg_clear(g);
    ck_assert_int_eq(cgprop_graph_add_self(g, a, c2), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, b, c3), CGPROP_OK);

    r = node_row(g, 0, a);
    ck_assert_uint_eq(r.self, 13);
    r = node_row(g, 1, a);
    ck_assert_uint_eq(r.self, 5);
    r = node_row(g, 0, b);
    ck_assert_uint_eq(r.self, 0);
    r = node_row(g, 1, b);
    ck_assert_uint_eq(r.self, 7);
    /* Self cost is neither a call nor a spontaneous entry. */
    ck_assert_uint_eq(r.calls_in, 0);
    ck_assert_uint_eq(r.spont_count, 0);
    ck_assert_uint_eq(r.spont_cost, 0);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 0);
    cgprop_graph_free(g);
}
END_TEST

/* ---- calls ---- */

START_TEST(test_add_edge_accumulates)
{
    cgprop_graph *g = new_graph(2);
    uint32_t a = add(g, "a"), b = add(g, "b"), c = add(g, "c"), d = add(g, "d");
    const uint64_t ab1[2] = {10, 20}, ab2[2] = {1, 2}, bb[2] = {7, 8}, ac[2] = {4, 6};
    uint32_t e = 99;
    cgprop_edge_row r;
    cgprop_node_row n;

    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 2, ab1, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 1, NULL, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 1);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 3, ab2, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    ck_assert_int_eq(cgprop_graph_add_edge(g, b, b, 4, bb, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 2);
    ck_assert_int_eq(cgprop_graph_add_edge(g, c, a, 0, NULL, NULL), CGPROP_OK); /* out is optional */
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 4);

    /* c->a has no costs, count 0: no HAS_COST, cost 0. */
    r = edge_row(g, 0, 3);
    ck_assert_uint_eq(r.caller, c);
    ck_assert_uint_eq(r.callee, a);
    ck_assert_uint_eq(r.count, 0);
    ck_assert_uint_eq(r.cost, 0);
    ck_assert_uint_eq(r.flags, 0);

    /* a->c without costs so far. */
    r = edge_row(g, 1, 1);
    ck_assert_uint_eq(r.count, 1);
    ck_assert_uint_eq(r.cost, 0);
    ck_assert_uint_eq(r.flags & CGPROP_F_HAS_COST, 0);
    /* Mixing: costs arrive later for the same pair. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 1, ac, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 1);
    r = edge_row(g, 1, 1);
    ck_assert_uint_eq(r.count, 2);
    ck_assert_uint_eq(r.cost, 6);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST);
    /* ... and a costless addition after costly ones keeps cost and flag. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, NULL, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    r = edge_row(g, 0, 0);
    ck_assert_uint_eq(r.caller, a);
    ck_assert_uint_eq(r.callee, b);
    ck_assert_uint_eq(r.count, 6);
    ck_assert_uint_eq(r.cost, 11);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST);
    r = edge_row(g, 1, 0);
    ck_assert_uint_eq(r.cost, 22);

    r = edge_row(g, 0, 2);
    ck_assert_uint_eq(r.caller, b);
    ck_assert_uint_eq(r.callee, b);
    ck_assert_uint_eq(r.count, 4);
    ck_assert_uint_eq(r.cost, 7);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST | CGPROP_F_SELF_CALL);

    ck_assert_int_eq(cgprop_graph_find_edge(g, a, b, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    ck_assert_int_eq(cgprop_graph_find_edge(g, b, b, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 2);
    ck_assert_int_eq(cgprop_graph_find_edge(g, b, a, &e), CGPROP_ENOTFOUND);
    assert_errmsg_set(g);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 4);

    /* calls_in: a <- c (0); b <- a (6) + b (4); c <- a (2); d none. */
    n = node_row(g, 0, a);
    ck_assert_uint_eq(n.calls_in, 0);
    ck_assert_uint_eq(n.flags, 0); /* a has a caller (c), even with count 0 */
    n = node_row(g, 0, b);
    ck_assert_uint_eq(n.calls_in, 10);
    ck_assert_uint_eq(n.flags, CGPROP_F_SELF_RECURSIVE);
    n = node_row(g, 1, c);
    ck_assert_uint_eq(n.calls_in, 2);
    ck_assert_uint_eq(n.flags, 0);
    n = node_row(g, 0, d);
    ck_assert_uint_eq(n.calls_in, 0);
    ck_assert_uint_eq(n.flags, CGPROP_F_NO_CALLERS);
    /* Calls carry no self cost. */
    ck_assert_uint_eq(n.self, 0);
    ck_assert_uint_eq(node_row(g, 0, b).self, 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_zero_cost_vector_is_a_cost)
{
    cgprop_graph *g = new_graph(1);
    uint32_t a = add(g, "a"), b = add(g, "b");
    const uint64_t zero[1] = {0};
    cgprop_edge_row r;

    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 0, zero, NULL), CGPROP_OK);
    r = edge_row(g, 0, 0);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST);
    ck_assert_uint_eq(r.cost, 0);
    ck_assert_uint_eq(r.count, 0);
    cgprop_graph_free(g);
}
END_TEST

/* ---- per-class costs ---- */

START_TEST(test_classes_add_to_plain_figures)
{
    cgprop_graph *g = new_graph(1);
    uint32_t a = add(g, "a"), b = add(g, "b");
    const uint64_t ten[1] = {10}, five[1] = {5}, one[1] = {1}, thirty[1] = {30}, twenty[1] = {20};
    uint32_t e = 99;
    cgprop_edge_row r;
    cgprop_node_row n;

    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_0, ten), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_1, ten), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_DEEP, five), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_REC, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, a, one), CGPROP_OK);
    ck_assert_uint_eq(node_row(g, 0, a).self, 27);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, 4, ten), CGPROP_EINVAL);
    assert_errmsg_set(g);
    ck_assert_uint_eq(node_row(g, 0, a).self, 27);

    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 2, thirty, &e),
                     CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_1, CGPROP_LEVEL_1, 1, twenty, &e),
                     CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    /* Caller "level >= 1" may be given as any non-zero level. */
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_REC, CGPROP_LEVEL_REC, 1, five, NULL),
                     CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_DEEP, CGPROP_LEVEL_DEEP, 0, one, NULL),
                     CGPROP_OK);
    /* Plain additions to the same pair mix with classified ones. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, NULL, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 0);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, b, b, CGPROP_LEVEL_0, CGPROP_LEVEL_1, 3, ten, &e),
                     CGPROP_OK);
    ck_assert_uint_eq(e, 1);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 2);

    r = edge_row(g, 0, 0);
    ck_assert_uint_eq(r.count, 5);
    ck_assert_uint_eq(r.cost, 56);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST);
    r = edge_row(g, 0, 1);
    ck_assert_uint_eq(r.count, 3);
    ck_assert_uint_eq(r.cost, 10);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST | CGPROP_F_SELF_CALL);

    n = node_row(g, 0, b);
    ck_assert_uint_eq(n.calls_in, 8);
    ck_assert_uint_eq(n.flags, CGPROP_F_SELF_RECURSIVE);

    /* Bad classes and NULL costs are refused and change nothing. */
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, 4, CGPROP_LEVEL_0, 1, one, NULL), CGPROP_EINVAL);
    assert_errmsg_set(g);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_0, 4, 1, one, NULL), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 1, NULL, NULL),
                     CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, b, a, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 1, NULL, NULL),
                     CGPROP_EINVAL);
    r = edge_row(g, 0, 0);
    ck_assert_uint_eq(r.count, 5);
    ck_assert_uint_eq(r.cost, 56);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 2);
    ck_assert_int_eq(cgprop_graph_find_edge(g, b, a, &e), CGPROP_ENOTFOUND);
    cgprop_graph_free(g);
}
END_TEST

/* ---- spontaneous entries ---- */

START_TEST(test_spontaneous)
{
    cgprop_graph *g = new_graph(2);
    uint32_t a = add(g, "a"), b = add(g, "b"), c = add(g, "c");
    const uint64_t s[2] = {50, 7}, zero[2] = {0, 0};
    cgprop_node_row n;

    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, 3, s), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, 3, s), CGPROP_OK);
    /* An entry of weight 0 and unknown count still marks the function. */
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, b, 0, zero), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, NULL, NULL), CGPROP_OK);

    n = node_row(g, 0, a);
    ck_assert_uint_eq(n.spont_count, 6);
    ck_assert_uint_eq(n.spont_cost, 100);
    ck_assert_uint_ne(n.flags & CGPROP_F_SPONTANEOUS, 0);
    ck_assert_uint_eq(n.flags & CGPROP_F_SELF_RECURSIVE, 0);
    /* Spontaneous entries are not calls and not self cost. */
    ck_assert_uint_eq(n.calls_in, 0);
    ck_assert_uint_eq(n.self, 0);
    n = node_row(g, 1, a);
    ck_assert_uint_eq(n.spont_count, 6);
    ck_assert_uint_eq(n.spont_cost, 14);

    n = node_row(g, 0, b);
    ck_assert_uint_eq(n.spont_count, 0);
    ck_assert_uint_eq(n.spont_cost, 0);
    ck_assert_uint_eq(n.flags, CGPROP_F_SPONTANEOUS); /* has a caller: a */
    ck_assert_uint_eq(n.calls_in, 1);

    n = node_row(g, 0, c);
    ck_assert_uint_eq(n.flags, CGPROP_F_NO_CALLERS);
    ck_assert_uint_eq(n.spont_count, 0);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 1);
    cgprop_graph_free(g);
}
END_TEST

/* ---- overflow: refused, nothing changed ---- */

START_TEST(test_overflow_self)
{
    cgprop_graph *g = new_graph(3);
    uint32_t a = add(g, "a");
    const uint64_t base[3] = {10, UINT64_MAX - 5, 20};
    const uint64_t mid[3] = {1, 6, 1};             /* overflows metric 1 of 3 */
    const uint64_t last[3] = {1, 0, UINT64_MAX};   /* overflows metric 2, the last */
    const uint64_t fits[3] = {1, 5, 1};
    const uint64_t one1[3] = {0, 1, 0};
    uint64_t gen;
    cgprop_node_row r0, r1, r2;

    ck_assert_int_eq(cgprop_graph_add_self(g, a, base), CGPROP_OK);
    gen = cgprop_graph_generation(g);

    ck_assert_int_eq(cgprop_graph_add_self(g, a, mid), CGPROP_EOVERFLOW);
    assert_errmsg_set(g);
    ck_assert_int_eq(cgprop_graph_add_self(g, a, last), CGPROP_EOVERFLOW);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_0, mid), CGPROP_EOVERFLOW);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_1, last), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    r0 = node_row(g, 0, a);
    r1 = node_row(g, 1, a);
    r2 = node_row(g, 2, a);
    ck_assert_uint_eq(r0.self, 10);
    ck_assert_uint_eq(r1.self, UINT64_MAX - 5);
    ck_assert_uint_eq(r2.self, 20);

    /* Up to exactly UINT64_MAX is fine. */
    ck_assert_int_eq(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_0, fits), CGPROP_OK);
    assert_errmsg_clear(g);
    ck_assert_uint_eq(node_row(g, 0, a).self, 11);
    ck_assert_uint_eq(node_row(g, 1, a).self, UINT64_MAX);
    ck_assert_uint_eq(node_row(g, 2, a).self, 21);
    ck_assert_int_eq(cgprop_graph_add_self(g, a, one1), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(node_row(g, 0, a).self, 11);
    ck_assert_uint_eq(node_row(g, 1, a).self, UINT64_MAX);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_overflow_edge)
{
    cgprop_graph *g = new_graph(3);
    uint32_t a = add(g, "a"), b = add(g, "b"), c = add(g, "c");
    const uint64_t ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
    const uint64_t big0[3] = {UINT64_MAX, 5, 0};
    const uint64_t bump0[3] = {1, 0, 0}, bump2[3] = {0, 0, UINT64_MAX};
    uint64_t gen;
    uint32_t e = 99;
    cgprop_edge_row r;

    /* Count overflow. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, UINT64_MAX, ones, &e), CGPROP_OK);
    gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, ones, &e), CGPROP_EOVERFLOW);
    assert_errmsg_set(g);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, NULL, NULL), CGPROP_EOVERFLOW);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 1, ones, NULL),
                     CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    r = edge_row(g, 0, 0);
    ck_assert_uint_eq(r.count, UINT64_MAX);
    ck_assert_uint_eq(r.cost, 1);
    ck_assert_uint_eq(edge_row(g, 2, 0).cost, 1);
    ck_assert_uint_eq(node_row(g, 0, b).calls_in, UINT64_MAX);

    /* Cost overflow in the first and in the last metric: count unchanged too. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 1, big0, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 1);
    gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 1, bump0, NULL), CGPROP_EOVERFLOW);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, c, CGPROP_LEVEL_1, CGPROP_LEVEL_1, 1, bump0, NULL),
                     CGPROP_EOVERFLOW);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 1, bump2, NULL), CGPROP_OK);
    gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 1, bump2, NULL), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    r = edge_row(g, 0, 1);
    ck_assert_uint_eq(r.count, 2);
    ck_assert_uint_eq(r.cost, UINT64_MAX);
    ck_assert_uint_eq(edge_row(g, 1, 1).cost, 5);
    ck_assert_uint_eq(edge_row(g, 2, 1).cost, UINT64_MAX);
    ck_assert_uint_eq(node_row(g, 0, c).calls_in, 2);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 0, zeros, NULL), CGPROP_OK);

    /* calls_in is a sum of counts too: a second caller that would push b's
     * Σ over UINT64_MAX is refused, and the new call is not created. */
    gen = cgprop_graph_generation(g);
    ck_assert_int_eq(cgprop_graph_add_edge(g, c, b, 1, ones, &e), CGPROP_EOVERFLOW);
    assert_errmsg_set(g);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 2);
    ck_assert_int_eq(cgprop_graph_find_edge(g, c, b, &e), CGPROP_ENOTFOUND);
    ck_assert_uint_eq(node_row(g, 0, b).calls_in, UINT64_MAX);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    /* Count 0 from a new caller is fine. */
    ck_assert_int_eq(cgprop_graph_add_edge(g, c, b, 0, ones, &e), CGPROP_OK);
    ck_assert_uint_eq(e, 2);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_overflow_spontaneous)
{
    cgprop_graph *g = new_graph(2);
    uint32_t a = add(g, "a");
    const uint64_t small[2] = {3, 4}, big1[2] = {0, UINT64_MAX - 4}, one1[2] = {0, 1};
    uint64_t gen;
    cgprop_node_row r;

    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, UINT64_MAX, small), CGPROP_OK);
    gen = cgprop_graph_generation(g);
    /* Count overflow: costs not added either. */
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, 1, small), CGPROP_EOVERFLOW);
    assert_errmsg_set(g);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    r = node_row(g, 0, a);
    ck_assert_uint_eq(r.spont_count, UINT64_MAX);
    ck_assert_uint_eq(r.spont_cost, 3);
    ck_assert_uint_eq(node_row(g, 1, a).spont_cost, 4);

    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, 0, big1), CGPROP_OK);
    ck_assert_uint_eq(node_row(g, 1, a).spont_cost, UINT64_MAX);
    gen = cgprop_graph_generation(g);
    /* Cost overflow in the last metric: count (0 here, fits) and metric 0 unchanged. */
    {
        const uint64_t four1[2] = {0, 4}, c[2] = {9, 1};
        cgprop_graph *g2 = new_graph(2);
        uint32_t x = add(g2, "x");
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g2, x, 5, big1), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g2, x, 5, four1), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g2, x, 5, c), CGPROP_EOVERFLOW);
        r = node_row(g2, 0, x);
        ck_assert_uint_eq(r.spont_count, 10);
        ck_assert_uint_eq(r.spont_cost, 0);
        ck_assert_uint_eq(node_row(g2, 1, x).spont_cost, UINT64_MAX);
        cgprop_graph_free(g2);
    }
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, 0, one1), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    cgprop_graph_free(g);
}
END_TEST

/* ---- ids out of range ---- */

START_TEST(test_ids_out_of_range)
{
    cgprop_graph *g = new_graph(1);
    uint32_t a = add(g, "a"), b = add(g, "b");
    const uint64_t one[1] = {1};
    const uint32_t bad[3] = {2, 1000, UINT32_MAX};
    uint32_t e = 77;
    uint64_t gen;
    size_t i;
    cgprop_node_row nr;
    cgprop_edge_row er;

    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, one, NULL), CGPROP_OK);
    gen = cgprop_graph_generation(g);
    for (i = 0; i < 3; i++) {
        uint32_t x = bad[i];
        ck_assert_int_eq(cgprop_graph_add_self(g, x, one), CGPROP_EINVAL);
        assert_errmsg_set(g);
        ck_assert_int_eq(cgprop_graph_add_self_class(g, x, CGPROP_LEVEL_0, one), CGPROP_EINVAL);
        assert_errmsg_set(g);
        ck_assert_int_eq(cgprop_graph_add_edge(g, a, x, 1, one, &e), CGPROP_EINVAL);
        assert_errmsg_set(g);
        ck_assert_int_eq(cgprop_graph_add_edge(g, x, a, 1, NULL, &e), CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_add_edge(g, x, x, 1, NULL, &e), CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_add_edge_class(g, x, b, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 1, one, &e),
                         CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_add_edge_class(g, a, x, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 1, one, &e),
                         CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_add_spontaneous(g, x, 1, one), CGPROP_EINVAL);
        assert_errmsg_set(g);
        ck_assert_int_eq(cgprop_graph_find_edge(g, a, x, &e), CGPROP_EINVAL);
        ck_assert_int_eq(cgprop_graph_find_edge(g, x, b, &e), CGPROP_EINVAL);
        assert_errmsg_set(g);
        ck_assert_ptr_null(cgprop_graph_node_key(g, x, NULL));
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, x, &nr, sizeof nr), CGPROP_EINVAL);
        assert_errmsg_set(g);
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, x - 1, &er, sizeof er), CGPROP_EINVAL);
    }
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 1);
    ck_assert_uint_eq(node_row(g, 0, a).self, 0);
    ck_assert_uint_eq(node_row(g, 0, b).calls_in, 1);
    ck_assert_uint_eq(node_row(g, 0, b).spont_count, 0);
    er = edge_row(g, 0, 0);
    ck_assert_uint_eq(er.count, 1);
    ck_assert_uint_eq(er.cost, 1);
    cgprop_graph_free(g);
}
END_TEST

/* ---- generation ---- */

START_TEST(test_generation)
{
    cgprop_graph *g = new_graph(1);
    const uint64_t one[1] = {1}, max[1] = {UINT64_MAX};
    uint64_t prev, now;
    uint32_t a, b, id;

#define BUMPED(call)                                                                                     \
    do {                                                                                                 \
        prev = cgprop_graph_generation(g);                                                               \
        ck_assert_int_eq((call), CGPROP_OK);                                                             \
        now = cgprop_graph_generation(g);                                                                \
        ck_assert_msg(now > prev, "%s did not bump the generation (%llu -> %llu)", #call,                \
                      (unsigned long long)prev, (unsigned long long)now);                                \
    } while (0)
#define UNCHANGED(call, code)                                                                            \
    do {                                                                                                 \
        prev = cgprop_graph_generation(g);                                                               \
        ck_assert_int_eq((call), (code));                                                                \
        ck_assert_msg(cgprop_graph_generation(g) == prev, "%s moved the generation", #call);             \
    } while (0)

    BUMPED(cgprop_graph_add_node(g, "a", 1, &a));
    BUMPED(cgprop_graph_add_node(g, "b", 1, &b));
    BUMPED(cgprop_graph_add_self(g, a, one));
    BUMPED(cgprop_graph_add_self_class(g, a, CGPROP_LEVEL_1, one));
    BUMPED(cgprop_graph_add_edge(g, a, b, 1, NULL, NULL));
    BUMPED(cgprop_graph_add_edge(g, a, b, 1, one, NULL)); /* existing pair */
    BUMPED(cgprop_graph_add_edge_class(g, b, b, CGPROP_LEVEL_0, CGPROP_LEVEL_1, 1, one, NULL));
    BUMPED(cgprop_graph_add_spontaneous(g, a, 1, one));

    /* Reads and failures leave it alone. */
    UNCHANGED(cgprop_graph_find_node(g, "a", 1, &id), CGPROP_OK);
    UNCHANGED(cgprop_graph_find_node(g, "zz", 2, &id), CGPROP_ENOTFOUND);
    UNCHANGED(cgprop_graph_find_edge(g, a, b, &id), CGPROP_OK);
    UNCHANGED(cgprop_graph_find_edge(g, b, a, &id), CGPROP_ENOTFOUND);
    UNCHANGED(cgprop_graph_add_self(g, 9, one), CGPROP_EINVAL);
    UNCHANGED(cgprop_graph_add_self(g, a, NULL), CGPROP_EINVAL);
    UNCHANGED(cgprop_graph_add_edge(g, a, 9, 1, one, NULL), CGPROP_EINVAL);
    UNCHANGED(cgprop_graph_add_spontaneous(g, 9, 1, one), CGPROP_EINVAL);
    UNCHANGED(cgprop_graph_add_self_class(g, a, 7, one), CGPROP_EINVAL);
    UNCHANGED(cgprop_graph_add_node(g, "c", 1, NULL), CGPROP_EINVAL);
    BUMPED(cgprop_graph_add_self(g, b, max));
    UNCHANGED(cgprop_graph_add_self(g, b, one), CGPROP_EOVERFLOW);
    BUMPED(cgprop_graph_add_edge(g, b, a, UINT64_MAX, NULL, NULL));
    UNCHANGED(cgprop_graph_add_edge(g, b, a, 1, NULL, NULL), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
#undef BUMPED
#undef UNCHANGED
    cgprop_graph_free(g);
}
END_TEST

/* ---- many functions and calls: growth keeps ids stable ---- */

#define MANY 200000u

START_TEST(test_many_nodes_and_edges)
{
    cgprop_graph *g = new_graph(1);
    char key[32];
    uint32_t i, id, e;
    const uint64_t one[1] = {1};

    for (i = 0; i < MANY; i++) {
        int n = snprintf(key, sizeof key, "fn_%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)n, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
        if (i % 1000 == 999) { /* re-adding an early key mid-growth */
            n = snprintf(key, sizeof key, "fn_%u", i / 7);
            ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)n, &id), CGPROP_OK);
            ck_assert_uint_eq(id, i / 7);
        }
    }
    ck_assert_uint_eq(cgprop_graph_node_count(g), MANY);
    for (i = 0; i < MANY; i++) {
        size_t len = 0;
        const char *k;
        int n = snprintf(key, sizeof key, "fn_%u", i);
        ck_assert_int_eq(cgprop_graph_find_node(g, key, (size_t)n, &id), CGPROP_OK);
        ck_assert_uint_eq(id, i);
        k = cgprop_graph_node_key(g, i, &len);
        ck_assert_uint_eq(len, (size_t)n);
        ck_assert_str_eq(k, key);
    }
    ck_assert_int_eq(cgprop_graph_find_node(g, "fn_200000", 9, &id), CGPROP_ENOTFOUND);

    /* Calls i -> (7i + 1) mod MANY: distinct pairs, ids dense. */
    for (i = 0; i < MANY; i++) {
        ck_assert_int_eq(cgprop_graph_add_edge(g, i, (uint32_t)((7ull * i + 1) % MANY), 1, one, &e), CGPROP_OK);
        ck_assert_uint_eq(e, i);
    }
    ck_assert_uint_eq(cgprop_graph_edge_count(g), MANY);
    for (i = 0; i < MANY; i += 3) {
        uint32_t callee = (uint32_t)((7ull * i + 1) % MANY);
        ck_assert_int_eq(cgprop_graph_add_edge(g, i, callee, 2, NULL, &e), CGPROP_OK);
        ck_assert_uint_eq(e, i);
        ck_assert_int_eq(cgprop_graph_find_edge(g, i, callee, &e), CGPROP_OK);
        ck_assert_uint_eq(e, i);
    }
    ck_assert_uint_eq(cgprop_graph_edge_count(g), MANY);
    for (i = 0; i < MANY; i += 997) {
        cgprop_edge_row r = edge_row(g, 0, i);
        ck_assert_uint_eq(r.caller, i);
        ck_assert_uint_eq(r.callee, (uint32_t)((7ull * i + 1) % MANY));
        ck_assert_uint_eq(r.count, i % 3 == 0 ? 3 : 1);
        ck_assert_uint_eq(r.cost, 1);
    }
    /* gcd(7, 200000) = 1, so i -> 7i + 1 is a bijection: everyone is called once. */
    for (i = 0; i < MANY; i += 1009) {
        cgprop_node_row r = node_row(g, 0, (uint32_t)((7ull * i + 1) % MANY));
        ck_assert_uint_eq(r.flags & CGPROP_F_NO_CALLERS, 0);
        ck_assert_uint_eq(r.calls_in, i % 3 == 0 ? 3 : 1);
    }
    cgprop_graph_free(g);
}
END_TEST

/* ---- stacks: the graph-level effects, and all-or-nothing on overflow ---- */

START_TEST(test_add_stack_effects)
{
    cgprop_graph *g = new_graph(2);
    uint32_t a = add(g, "a"), b = add(g, "b");
    const uint32_t abab[4] = {0, 1, 0, 1};
    const uint64_t w[2] = {3, 7};
    uint32_t e;
    cgprop_edge_row r;
    cgprop_node_row n;

    /* a;b;a;b 3,7: self of the leaf b; a->b twice, b->a once, count 0; a entered spontaneously. */
    ck_assert_int_eq(cgprop_graph_add_stack(g, abab, 4, w), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 2);
    ck_assert_int_eq(cgprop_graph_find_edge(g, a, b, &e), CGPROP_OK);
    r = edge_row(g, 0, e);
    ck_assert_uint_eq(r.count, 0);
    ck_assert_uint_eq(r.cost, 6);
    ck_assert_uint_eq(r.flags, CGPROP_F_HAS_COST);
    ck_assert_uint_eq(edge_row(g, 1, e).cost, 14);
    ck_assert_int_eq(cgprop_graph_find_edge(g, b, a, &e), CGPROP_OK);
    r = edge_row(g, 1, e);
    ck_assert_uint_eq(r.count, 0);
    ck_assert_uint_eq(r.cost, 7);
    n = node_row(g, 0, b);
    ck_assert_uint_eq(n.self, 3);
    ck_assert_uint_eq(n.spont_cost, 0);
    ck_assert_uint_eq(n.calls_in, 0);
    n = node_row(g, 1, a);
    ck_assert_uint_eq(n.self, 0);
    ck_assert_uint_eq(n.spont_cost, 7);
    ck_assert_uint_ne(n.flags & CGPROP_F_SPONTANEOUS, 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_add_stack_overflow_changes_nothing)
{
    const uint32_t ab[2] = {0, 1};
    const uint64_t one[1] = {1}, max[1] = {UINT64_MAX};
    int which;

    /* The sum that overflows is, in turn: b's self, the call a->b, a's spontaneous cost. */
    for (which = 0; which < 3; which++) {
        cgprop_graph *g = new_graph(1);
        uint32_t a = add(g, "a"), b = add(g, "b"), e = 0;
        uint64_t gen;
        size_t ne;
        if (which == 0) ck_assert_int_eq(cgprop_graph_add_self(g, b, max), CGPROP_OK);
        if (which == 1) ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 0, max, NULL), CGPROP_OK);
        if (which == 2) ck_assert_int_eq(cgprop_graph_add_spontaneous(g, a, 0, max), CGPROP_OK);
        gen = cgprop_graph_generation(g);
        ne = cgprop_graph_edge_count(g);
        ck_assert_msg(cgprop_graph_add_stack(g, ab, 2, one) == CGPROP_EOVERFLOW, "case %d", which);
        assert_errmsg_set(g);
        ck_assert_uint_eq(cgprop_graph_generation(g), gen);
        ck_assert_uint_eq(cgprop_graph_edge_count(g), ne);
        ck_assert_uint_eq(node_row(g, 0, b).self, which == 0 ? UINT64_MAX : 0);
        ck_assert_uint_eq(node_row(g, 0, a).spont_cost, which == 2 ? UINT64_MAX : 0);
        ck_assert_uint_eq(node_row(g, 0, a).spont_count, 0);
        if (ne) {
            ck_assert_int_eq(cgprop_graph_find_edge(g, a, b, &e), CGPROP_OK);
            ck_assert_uint_eq(edge_row(g, 0, e).cost, UINT64_MAX);
        }
        cgprop_graph_free(g);
    }
}
END_TEST

/* ---- borrowed strings stay valid until the graph is freed ---- */

/* An allocator whose realloc always moves the block and keeps the old one,
 * filled with 'X', in quarantine until the test ends: a string borrowed
 * before a growth then reads as "XXX" instead of being undefined behaviour. */
#define QUARANTINE 4096
static void *quarantine[QUARANTINE];
static size_t nquarantine;

static void *mv_malloc(void *user, size_t size)
{
    size_t *p = malloc(sizeof(size_t) * 2 + size);
    (void)user;
    if (!p) return NULL;
    p[0] = size;
    return p + 2;
}

static void *mv_realloc(void *user, void *ptr, size_t size)
{
    size_t *old = (size_t *)ptr - 2, *p;
    (void)user;
    p = mv_malloc(user, size);
    if (!p) return NULL;
    memcpy(p, ptr, old[0] < size ? old[0] : size);
    memset(ptr, 'X', old[0]);
    ck_assert_uint_lt(nquarantine, QUARANTINE);
    quarantine[nquarantine++] = old;
    return p;
}

static void mv_free(void *user, void *ptr)
{
    (void)user;
    free((size_t *)ptr - 2);
}

static void quarantine_release(void)
{
    while (nquarantine > 0) free(quarantine[--nquarantine]);
}

START_TEST(test_borrowed_strings_survive_growth)
{
    /* cgprop.h: node_key and metric_name are "valid until the graph is freed";
     * the @file block says the same of every string going out. */
    cgprop_allocator a;
    cgprop_graph *g = NULL;
    const char *k0, *k1, *m0;
    size_t len = 0;
    uint32_t i, id;
    char key[32];

    a.malloc_fn = mv_malloc;
    a.realloc_fn = mv_realloc;
    a.free_fn = mv_free;
    a.user = NULL;
    ck_assert_int_eq(cgprop_graph_new(&a, metric_names, NULL, 2, &g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "main", 4, &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "", 0, &id), CGPROP_OK);
    k0 = cgprop_graph_node_key(g, 0, NULL);
    k1 = cgprop_graph_node_key(g, 1, NULL);
    m0 = cgprop_graph_metric_name(g, 1, NULL);
    for (i = 0; i < 5000; i++) { /* ~40 KB of keys: every store grows several times */
        int n = snprintf(key, sizeof key, "function_number_%u", i);
        ck_assert_int_eq(cgprop_graph_add_node(g, key, (size_t)n, &id), CGPROP_OK);
    }
    ck_assert_str_eq(cgprop_graph_node_key(g, 0, &len), "main");
    ck_assert_msg(strcmp(k0, "main") == 0, "key of function 0 borrowed before growth now reads \"%.8s\"", k0);
    ck_assert_msg(k1[0] == '\0', "empty key borrowed before growth now reads \"%.8s\"", k1);
    ck_assert_str_eq(m0, "ns");
    cgprop_graph_free(g);
    quarantine_release();
}
END_TEST

/* ---- NO_CALLERS: callers other than itself; spontaneous entries are not callers ---- */

START_TEST(test_no_callers_flag_rules)
{
    /* Decision recorded in docs/API.md (the header says "no caller at all"):
     * a self-call does not count as a caller, and neither does the invisible
     * <spontaneous> caller, so a root stays NO_CALLERS when it is also
     * SPONTANEOUS or SELF_RECURSIVE. */
    cgprop_graph *g = new_graph(1);
    uint32_t a = add(g, "a"), b = add(g, "b"), c = add(g, "c"), d = add(g, "d");
    const uint64_t one[1] = {1};

    ck_assert_int_eq(cgprop_graph_add_edge(g, a, a, 3, NULL, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(g, b, 1, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, c, c, 1, NULL, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, d, c, 0, NULL, NULL), CGPROP_OK);

    ck_assert_uint_eq(node_row(g, 0, a).flags, CGPROP_F_SELF_RECURSIVE | CGPROP_F_NO_CALLERS);
    ck_assert_uint_eq(node_row(g, 0, a).calls_in, 3);
    ck_assert_uint_eq(node_row(g, 0, b).flags, CGPROP_F_SPONTANEOUS | CGPROP_F_NO_CALLERS);
    ck_assert_uint_eq(node_row(g, 0, c).flags, CGPROP_F_SELF_RECURSIVE);
    ck_assert_uint_eq(node_row(g, 0, d).flags, CGPROP_F_NO_CALLERS);
    cgprop_graph_free(g);
}
END_TEST

/* Call ids and look-ups whatever order calls arrive in: runs of one caller's
 * calls (short, past 16, past 2048), callers that come back, calls repeated,
 * and a merge that fails half way, against a table of every pair's id kept
 * by the test. */
static uint64_t order_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void order_add(cgprop_graph *g, uint32_t *ids, uint32_t nn, uint32_t *ne, uint32_t a, uint32_t b)
{
    const uint64_t one[1] = {1};
    uint32_t e = UINT32_MAX;
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, one, &e), CGPROP_OK);
    uint32_t *want = &ids[(size_t)a * nn + b];
    if (!*want) *want = ++*ne; /* a new call takes the next id */
    ck_assert_uint_eq(e, *want - 1);
}

static void order_check(cgprop_graph *g, const uint32_t *ids, uint32_t nn, uint32_t ne, uint32_t a)
{
    ck_assert_uint_eq(cgprop_graph_edge_count(g), ne);
    for (uint32_t b = 0; b < nn; b++) {
        uint32_t e = UINT32_MAX, want = ids[(size_t)a * nn + b];
        int rc = cgprop_graph_find_edge(g, a, b, &e);
        if (want) {
            ck_assert_int_eq(rc, CGPROP_OK);
            ck_assert_uint_eq(e, want - 1);
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOTFOUND);
        }
    }
}

START_TEST(test_call_ids_any_arrival_order)
{
    enum { NN = 2100 };
    cgprop_graph *g = new_graph(1);
    char key[16];
    for (uint32_t i = 0; i < NN; i++) {
        snprintf(key, sizeof key, "f%u", i);
        ck_assert_uint_eq(add(g, key), i);
    }
    uint32_t *ids = calloc((size_t)NN * NN, sizeof *ids), ne = 0;
    ck_assert_ptr_nonnull(ids);
    uint64_t s = 0x9E3779B97F4A7C15u;
    /* A caller seen for the first time calls every function (a run longer
     * than any table), then one that comes back after others. */
    for (uint32_t b = 0; b < NN; b++) order_add(g, ids, NN, &ne, 7, b);
    order_check(g, ids, NN, ne, 7);
    for (int step = 0; step < 400; step++) {
        uint32_t a = (uint32_t)(order_rng(&s) % 64), n = (uint32_t)(order_rng(&s) % 40);
        if (step % 50 == 49) {
            /* A merge that adds calls, then fails on an overflow: nothing stays. */
            cgprop_graph *src = new_graph(1);
            const uint64_t big[1] = {UINT64_MAX}, one[1] = {1};
            uint32_t s0 = add(src, "f0"), s1 = add(src, "f1"), fresh = add(src, "not in dst");
            ck_assert_int_eq(cgprop_graph_add_edge(src, s0, s1, UINT64_MAX, big, NULL), CGPROP_OK);
            for (uint32_t j = 0; j < 30; j++) {
                snprintf(key, sizeof key, "f%u", (unsigned)(order_rng(&s) % NN));
                uint32_t x = add(src, key);
                if (x != s1) ck_assert_int_eq(cgprop_graph_add_edge(src, x, fresh, 1, one, NULL), CGPROP_OK);
            }
            order_add(g, ids, NN, &ne, 0, 1); /* so the merged f0 -> f1 overflows */
            ck_assert_int_eq(cgprop_graph_merge(g, src), CGPROP_EOVERFLOW);
            cgprop_graph_free(src);
            ck_assert_uint_eq(cgprop_graph_node_count(g), NN);
        }
        for (uint32_t j = 0; j < n; j++) order_add(g, ids, NN, &ne, a, (uint32_t)(order_rng(&s) % NN));
        if (step % 10 == 0) order_check(g, ids, NN, ne, a);
    }
    for (uint32_t a = 0; a < 64; a++) order_check(g, ids, NN, ne, a);
    order_check(g, ids, NN, ne, 7);
    free(ids);
    cgprop_graph_free(g);
}
END_TEST

/* ---- cgprop__add_edges: n calls at once, as n single additions ---- */

/* Every call's ends, sums, flags and class buckets, every function's calls
 * in and flags, and the two graph-wide flags, the same in both graphs. */
static void same_calls(const cgprop_graph *x, const cgprop_graph *y)
{
    ck_assert_uint_eq(x->nn, y->nn);
    ck_assert_uint_eq(x->ne, y->ne);
    ck_assert_uint_eq(x->K, y->K);
    for (uint32_t e = 0; e < x->ne; e++) {
        ck_assert_uint_eq(x->ecaller[e], y->ecaller[e]);
        ck_assert_uint_eq(x->ecallee[e], y->ecallee[e]);
        ck_assert_uint_eq(x->ecount[e], y->ecount[e]);
        ck_assert_uint_eq(x->eflags[e], y->eflags[e]);
        for (uint32_t k = 0; k < x->K; k++) ck_assert_uint_eq(x->ecost[(size_t)e * x->K + k], y->ecost[(size_t)e * x->K + k]);
        for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
            uint64_t nx, ny;
            const uint64_t *bx = cgprop__ecls_get(x, e, c, &nx), *by = cgprop__ecls_get(y, e, c, &ny);
            ck_assert_uint_eq(nx, ny);
            for (uint32_t k = 0; k < x->K; k++) ck_assert_uint_eq(bx[k], by[k]);
        }
        /* The level >= 2 callers' part: no row reads as zeros. */
        const uint64_t *dx = cgprop__dcall_row(x, e), *dy = cgprop__dcall_row(y, e);
        for (size_t i = 0; i < cgprop__dcall_width(x); i++) ck_assert_uint_eq(dx ? dx[i] : 0, dy ? dy[i] : 0);
    }
    for (uint32_t v = 0; v < x->nn; v++) {
        ck_assert_uint_eq(x->calls_in[v], y->calls_in[v]);
        ck_assert_uint_eq(x->nflags[v], y->nflags[v]);
    }
    ck_assert_int_eq(x->any_cost, y->any_cost);
    ck_assert_int_eq(x->has_classes, y->has_classes);
}

/* The batch's calls one at a time, through the public entry points. */
static int add_one_by_one(cgprop_graph *g, uint32_t n, const uint32_t *a, const uint32_t *b, const uint64_t *cnt,
                          const uint64_t *costs, const uint8_t *cls)
{
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t *cs = costs ? costs + (size_t)i * g->K : NULL;
        int rc = cls && cls[i] != CGPROP__NOCLS
                     ? cgprop_graph_add_edge_class(g, a[i], b[i],
                                                   cls[i] / 4 == 2   ? CGPROP_LEVEL_DEEP
                                                   : cls[i] / 4 == 1 ? CGPROP_LEVEL_1
                                                                     : CGPROP_LEVEL_0,
                                                   cls[i] % 4, cnt[i], cs, NULL)
                     : cgprop_graph_add_edge(g, a[i], b[i], cnt[i], cs, NULL);
        if (rc) return rc;
    }
    return CGPROP_OK;
}

/* A batch drawn from few callers and callees, so that it repeats calls,
 * hits calls made before it and has runs of one caller; classes mixed so
 * that some calls need their class buckets stored (and memory) mid-batch. */
enum { AE_NN = 300, AE_K = 2 };
static void ae_batch(uint64_t *s, uint32_t n, uint32_t *a, uint32_t *b, uint64_t *cnt, uint64_t *costs, uint8_t *cls)
{
    uint32_t caller = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (order_rng(s) % 8 == 0) caller = (uint32_t)(order_rng(s) % AE_NN);
        a[i] = caller;
        b[i] = (uint32_t)(order_rng(s) % (i % 3 ? 40 : AE_NN));
        cnt[i] = order_rng(s) % 4;
        for (uint32_t k = 0; k < AE_K; k++) costs[(size_t)i * AE_K + k] = order_rng(s) % 5 == 0 ? 0 : order_rng(s) % 1000;
        uint64_t r = order_rng(s) % 10;
        cls[i] = r < 2 ? (uint8_t)CGPROP__NOCLS : r < 7 ? 0 : (uint8_t)(order_rng(s) % CGPROP__NCLS_IN);
    }
}

static cgprop_graph *ae_graph(const cgprop_allocator *al, uint64_t seed, uint32_t pre)
{
    cgprop_graph *g = NULL;
    char key[16];
    ck_assert_int_eq(cgprop_graph_new(al, metric_names, NULL, AE_K, &g), CGPROP_OK);
    for (uint32_t v = 0; v < AE_NN; v++) {
        snprintf(key, sizeof key, "f%u", v);
        ck_assert_uint_eq(add(g, key), v);
    }
    /* Calls made before the batch, one at a time, ending inside a run. */
    uint32_t a[600], b[600];
    uint64_t cnt[600], costs[600 * AE_K];
    uint8_t cls[600];
    ck_assert_uint_le(pre, 600);
    ae_batch(&seed, pre, a, b, cnt, costs, cls);
    ck_assert_int_eq(add_one_by_one(g, pre, a, b, cnt, costs, cls), CGPROP_OK);
    return g;
}

START_TEST(test_add_edges_as_one_at_a_time)
{
    enum { N = 6000 };
    static uint32_t a[N], b[N];
    static uint64_t cnt[N], costs[N * AE_K];
    static uint8_t cls[N];
    for (uint32_t pre = 0; pre <= 600; pre += 300) {
        cgprop_graph *x = ae_graph(NULL, 42 + pre, pre), *y = ae_graph(NULL, 42 + pre, pre);
        uint64_t s = 7 + pre;
        same_calls(x, y);
        for (uint32_t round = 0; round < 3; round++) {
            uint32_t n = round == 0 ? N : round == 1 ? 17 : 1;
            ae_batch(&s, n, a, b, cnt, costs, cls);
            uint64_t gen = cgprop_graph_generation(y);
            ck_assert_int_eq(add_one_by_one(x, n, a, b, cnt, costs, cls), CGPROP_OK);
            ck_assert_int_eq(cgprop__add_edges(y, n, a, b, cnt, costs, cls), CGPROP_OK);
            ck_assert_uint_gt(cgprop_graph_generation(y), gen);
            assert_errmsg_clear(y);
            same_calls(x, y);
        }
        cgprop_graph_free(x);
        cgprop_graph_free(y);
    }
    /* Without classes, and without costs. */
    for (int with_costs = 0; with_costs < 2; with_costs++) {
        cgprop_graph *x = ae_graph(NULL, 3, 300), *y = ae_graph(NULL, 3, 300);
        uint64_t s = 11;
        ae_batch(&s, N, a, b, cnt, costs, cls);
        ck_assert_int_eq(add_one_by_one(x, N, a, b, cnt, with_costs ? costs : NULL, NULL), CGPROP_OK);
        ck_assert_int_eq(cgprop__add_edges(y, N, a, b, cnt, with_costs ? costs : NULL, NULL), CGPROP_OK);
        same_calls(x, y);
        cgprop_graph_free(x);
        cgprop_graph_free(y);
    }
}
END_TEST

START_TEST(test_add_edges_all_or_nothing)
{
    enum { N = 3000 };
    static uint32_t a[N], b[N];
    static uint64_t cnt[N], costs[N * AE_K];
    static uint8_t cls[N];
    for (uint32_t pre = 0; pre <= 300; pre += 300) {
        for (int kind = 0; kind < 5; kind++) {
            cgprop_graph *x = ae_graph(NULL, 5, pre), *y = ae_graph(NULL, 5, pre);
            uint64_t s = 99 + (uint64_t)kind;
            ae_batch(&s, N, a, b, cnt, costs, cls);
            uint32_t bad = N - 10;
            int want = CGPROP_EOVERFLOW;
            if (kind == 0) {
                /* The call's own count, on a call the batch made earlier. */
                a[bad] = a[5];
                b[bad] = b[5];
                cnt[bad] = UINT64_MAX;
            } else if (kind == 1) {
                /* A cost, on a call the batch made earlier. */
                a[bad] = a[5];
                b[bad] = b[5];
                costs[(size_t)bad * AE_K + 1] = UINT64_MAX;
            } else if (kind == 2) {
                /* Calls into the callee only: a new call into a busy callee. */
                a[bad] = AE_NN - 1;
                b[bad] = b[5];
                cnt[5] = 1;
                cnt[bad] = UINT64_MAX;
            } else if (kind == 3) {
                want = CGPROP_EINVAL;
                b[bad] = AE_NN;
            } else {
                want = CGPROP_EINVAL;
                cls[bad] = CGPROP__NCLS_IN;
            }
            uint64_t gen = cgprop_graph_generation(y);
            ck_assert_int_eq(cgprop__add_edges(y, N, a, b, cnt, costs, cls), want);
            assert_errmsg_set(y);
            if (want == CGPROP_EINVAL) ck_assert_uint_eq(cgprop_graph_generation(y), gen);
            same_calls(x, y);
            /* Still whole: the same batch without the bad call goes in on both. */
            a[bad] = a[6];
            b[bad] = b[6];
            cnt[bad] = 1;
            costs[(size_t)bad * AE_K + 1] = 1;
            cls[bad] = CGPROP__NOCLS;
            ck_assert_int_eq(add_one_by_one(x, N, a, b, cnt, costs, cls), CGPROP_OK);
            ck_assert_int_eq(cgprop__add_edges(y, N, a, b, cnt, costs, cls), CGPROP_OK);
            same_calls(x, y);
            for (uint32_t v = 0; v < AE_NN; v += 7)
                for (uint32_t w = 0; w < AE_NN; w += 3)
                    ck_assert_uint_eq(cgprop__edge_lookup(x, v, w), cgprop__edge_lookup(y, v, w));
            cgprop_graph_free(x);
            cgprop_graph_free(y);
        }
    }
}
END_TEST

/* An allocator that fails from its n-th call on. */
static long ae_left;
static void *ae_malloc(void *u, size_t n)
{
    (void)u;
    return ae_left-- > 0 ? malloc(n) : NULL;
}
static void *ae_realloc(void *u, void *p, size_t n)
{
    (void)u;
    return ae_left-- > 0 ? realloc(p, n) : NULL;
}
static void ae_free(void *u, void *p)
{
    (void)u;
    free(p);
}

typedef int (*ae_adder)(cgprop_graph *g, uint32_t n, const uint32_t *a, const uint32_t *b, const uint64_t *cnt,
                        const uint64_t *costs, const uint8_t *cls);

/* Fail the 1st, 2nd, ... allocation of add(n calls) on a graph of nfun
 * functions with pre calls until it succeeds: each failure must be ENOMEM
 * and leave the calls of a twin graph that never saw the batch, and both
 * must take more calls alike. Returns how many attempts failed. */
static int ae_oom_sweep(ae_adder add, uint64_t graph_seed, uint32_t pre, uint64_t batch_seed, uint32_t n,
                        uint32_t *a, uint32_t *b, uint64_t *cnt, uint64_t *costs, uint8_t *cls)
{
    cgprop_allocator al = {ae_malloc, ae_realloc, ae_free, NULL};
    int failed = 0;
    for (long at = 0;; at++) {
        ae_left = 1L << 30;
        cgprop_graph *x = ae_graph(NULL, graph_seed, pre), *y = ae_graph(&al, graph_seed, pre);
        uint64_t s = batch_seed;
        ae_batch(&s, n, a, b, cnt, costs, cls);
        ae_left = at;
        int rc = add(y, n, a, b, cnt, costs, cls);
        ae_left = 1L << 30;
        if (rc == CGPROP_OK) ck_assert_int_eq(add_one_by_one(x, n, a, b, cnt, costs, cls), CGPROP_OK);
        else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            failed++;
        }
        same_calls(x, y);
        ck_assert_int_eq(add_one_by_one(x, 100, a, b, cnt, costs, cls), CGPROP_OK);
        ck_assert_int_eq(add_one_by_one(y, 100, a, b, cnt, costs, cls), CGPROP_OK);
        same_calls(x, y);
        cgprop_graph_free(x);
        cgprop_graph_free(y);
        if (rc == CGPROP_OK) return failed;
    }
}

START_TEST(test_add_edges_out_of_memory)
{
    /* Every allocation of the batch fails in turn (growth up front, the undo
     * record, class blocks mid-batch): either it all went in or nothing. */
    enum { N = 2000 };
    static uint32_t a[N], b[N];
    static uint64_t cnt[N], costs[N * AE_K];
    static uint8_t cls[N];
    for (uint32_t pre = 0; pre <= 300; pre += 300) {
        /* growth, and at least one class block mid-batch */
        ck_assert_int_ge(ae_oom_sweep(cgprop__add_edges, 8, pre, 1234, N, a, b, cnt, costs, cls), 3);
    }
}
END_TEST

/* The same batch staged in the graph's own arrays, then added. */
static int ae_staged(cgprop_graph *g, uint32_t n, const uint32_t *a, const uint32_t *b, const uint64_t *cnt,
                     const uint64_t *costs, const uint8_t *cls)
{
    int rc = cgprop__stage_edges(g, n);
    if (rc) return rc;
    memcpy(g->ecaller + g->ne, a, n * sizeof *a);
    memcpy(g->ecallee + g->ne, b, n * sizeof *b);
    memcpy(g->ecount + g->ne, cnt, n * sizeof *cnt);
    memcpy(g->ecost + (size_t)g->ne * g->K, costs, (size_t)n * g->K * sizeof *costs);
    return cgprop__add_staged_edges(g, n, cls);
}

START_TEST(test_add_staged_edges)
{
    enum { N = 6000 };
    static uint32_t a[N], b[N];
    static uint64_t cnt[N], costs[N * AE_K];
    static uint8_t cls[N];
    /* On an empty graph (in place), and after calls (copied out). */
    for (uint32_t pre = 0; pre <= 300; pre += 300) {
        cgprop_graph *x = ae_graph(NULL, 21, pre), *y = ae_graph(NULL, 21, pre);
        uint64_t s = 5;
        ae_batch(&s, N, a, b, cnt, costs, cls);
        ck_assert_int_eq(add_one_by_one(x, N, a, b, cnt, costs, cls), CGPROP_OK);
        ck_assert_int_eq(ae_staged(y, N, a, b, cnt, costs, cls), CGPROP_OK);
        same_calls(x, y);
        ck_assert_int_eq(add_one_by_one(x, 500, a, b, cnt, costs, NULL), CGPROP_OK);
        ck_assert_int_eq(ae_staged(y, 500, a, b, cnt, costs, NULL), CGPROP_OK);
        same_calls(x, y);
        cgprop_graph_free(x);
        cgprop_graph_free(y);
    }
    /* An overflow late in the batch, on a call it made: no call stays, and
     * the callees' calls in are what they were. */
    for (uint32_t pre = 0; pre <= 300; pre += 300) {
        cgprop_graph *x = ae_graph(NULL, 22, pre), *y = ae_graph(NULL, 22, pre);
        uint64_t s = 6;
        ae_batch(&s, N, a, b, cnt, costs, cls);
        a[N - 3] = a[2];
        b[N - 3] = b[2];
        cnt[2] = 1;
        cnt[N - 3] = UINT64_MAX;
        ck_assert_int_eq(ae_staged(y, N, a, b, cnt, costs, cls), CGPROP_EOVERFLOW);
        assert_errmsg_set(y);
        same_calls(x, y);
        cnt[N - 3] = 0;
        ck_assert_int_eq(add_one_by_one(x, N, a, b, cnt, costs, cls), CGPROP_OK);
        ck_assert_int_eq(ae_staged(y, N, a, b, cnt, costs, cls), CGPROP_OK);
        same_calls(x, y);
        cgprop_graph_free(x);
        cgprop_graph_free(y);
    }
    /* Every allocation failing in turn: staging, the index, class blocks. */
    ck_assert_int_ge(ae_oom_sweep(ae_staged, 23, 0, 77, 2000, a, b, cnt, costs, cls), 3);
}
END_TEST

static Suite *graph_suite(void)
{
    Suite *s = suite_create("graph");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_metrics_nul_terminated);
    tcase_add_test(tc, test_metrics_with_lengths);
    tcase_add_test(tc, test_metric_count_limits);
    tcase_add_test(tc, test_metric_empty_name_rejected);
    tcase_add_test(tc, test_add_node_same_key_same_id);
    tcase_add_test(tc, test_keys_with_nul_and_empty);
    tcase_add_test(tc, test_key_is_copied);
    tcase_add_test(tc, test_add_self_accumulates);
    tcase_add_test(tc, test_add_edge_accumulates);
    tcase_add_test(tc, test_zero_cost_vector_is_a_cost);
    tcase_add_test(tc, test_classes_add_to_plain_figures);
    tcase_add_test(tc, test_spontaneous);
    tcase_add_test(tc, test_overflow_self);
    tcase_add_test(tc, test_overflow_edge);
    tcase_add_test(tc, test_overflow_spontaneous);
    tcase_add_test(tc, test_ids_out_of_range);
    tcase_add_test(tc, test_generation);
    tcase_add_test(tc, test_many_nodes_and_edges);
    tcase_add_test(tc, test_add_stack_effects);
    tcase_add_test(tc, test_add_stack_overflow_changes_nothing);
    tcase_add_test(tc, test_borrowed_strings_survive_growth);
    tcase_add_test(tc, test_no_callers_flag_rules);
    tcase_add_test(tc, test_call_ids_any_arrival_order);
    tcase_add_test(tc, test_add_edges_as_one_at_a_time);
    tcase_add_test(tc, test_add_edges_all_or_nothing);
    tcase_add_test(tc, test_add_edges_out_of_memory);
    tcase_add_test(tc, test_add_staged_edges);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(graph_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
