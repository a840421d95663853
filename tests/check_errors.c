/* Status codes, messages, and bad arguments to every public function of the
 * graph, analysis and iterate groups: NULL handles and out-pointers give
 * CGPROP_EINVAL (free functions: a no-op), with a message on the graph where
 * there is one, and leave the graph unchanged; a later success clears the
 * message. */
#include <check.h>
#include "ck_quiet.h"
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"

static const int all_codes[] = {CGPROP_OK,       CGPROP_DONE,   CGPROP_ENOMEM,   CGPROP_EINVAL,
                                CGPROP_ENOTFOUND, CGPROP_ESTATE, CGPROP_EOVERFLOW, CGPROP_EFORMAT};
#define NCODES (sizeof all_codes / sizeof all_codes[0])

START_TEST(test_strerror)
{
    static const int unknown[] = {2, 3, -7, -100, 1000, INT_MIN, INT_MAX};
    const char *txt[NCODES];
    size_t i, j;

    for (i = 0; i < NCODES; i++) {
        txt[i] = cgprop_strerror(all_codes[i]);
        ck_assert_ptr_nonnull(txt[i]);
        ck_assert_msg(txt[i][0] != '\0', "empty text for code %d", all_codes[i]);
        /* Static text: the same call gives the same string. */
        ck_assert_str_eq(cgprop_strerror(all_codes[i]), txt[i]);
    }
    for (i = 0; i < NCODES; i++)
        for (j = i + 1; j < NCODES; j++)
            ck_assert_msg(strcmp(txt[i], txt[j]) != 0, "codes %d and %d share the text \"%s\"", all_codes[i],
                          all_codes[j], txt[i]);
    for (i = 0; i < sizeof unknown / sizeof unknown[0]; i++) ck_assert_ptr_nonnull(cgprop_strerror(unknown[i]));
}
END_TEST

START_TEST(test_codes_are_stable)
{
    /* The ABI: these numbers are frozen. */
    ck_assert_int_eq(CGPROP_OK, 0);
    ck_assert_int_eq(CGPROP_DONE, 1);
    ck_assert_int_eq(CGPROP_ENOMEM, -1);
    ck_assert_int_eq(CGPROP_EINVAL, -2);
    ck_assert_int_eq(CGPROP_ENOTFOUND, -3);
    ck_assert_int_eq(CGPROP_ESTATE, -4);
    ck_assert_int_eq(CGPROP_EOVERFLOW, -5);
    ck_assert_int_eq(CGPROP_EFORMAT, -6);
}
END_TEST

START_TEST(test_version)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", CGPROP_VERSION_MAJOR, CGPROP_VERSION_MINOR, CGPROP_VERSION_PATCH);
    ck_assert_uint_eq(cgprop_version(), CGPROP_VERSION_NUMBER);
    ck_assert_uint_eq(CGPROP_VERSION_NUMBER,
                      CGPROP_VERSION_MAJOR * 10000 + CGPROP_VERSION_MINOR * 100 + CGPROP_VERSION_PATCH);
    ck_assert_ptr_nonnull(cgprop_version_string());
    ck_assert_str_eq(cgprop_version_string(), want);
}
END_TEST

START_TEST(test_errmsg_null)
{
    ck_assert_ptr_nonnull(cgprop_graph_errmsg(NULL));
}
END_TEST

static int alloc_calls;
static void *x_malloc(void *u, size_t n)
{
    (void)u;
    alloc_calls++;
    return malloc(n);
}
static void *x_realloc(void *u, void *p, size_t n)
{
    (void)u;
    alloc_calls++;
    return realloc(p, n);
}
static void x_free(void *u, void *p)
{
    (void)u;
    free(p);
}

START_TEST(test_graph_new_bad_args)
{
    const char *names[2] = {"Ir", "ns"};
    const char *holes[2] = {"Ir", NULL};
    cgprop_allocator a;
    cgprop_graph *g;
    int i;

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, NULL), CGPROP_EINVAL);
    g = (cgprop_graph *)&g;
    ck_assert_int_eq(cgprop_graph_new(NULL, NULL, NULL, 2, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);
    g = (cgprop_graph *)&g;
    ck_assert_int_eq(cgprop_graph_new(NULL, holes, NULL, 2, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);

    /* An allocator with any function missing is refused, and never called. */
    for (i = 0; i < 3; i++) {
        a.malloc_fn = i == 0 ? NULL : x_malloc;
        a.realloc_fn = i == 1 ? NULL : x_realloc;
        a.free_fn = i == 2 ? NULL : x_free;
        a.user = NULL;
        alloc_calls = 0;
        g = (cgprop_graph *)&g;
        ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 2, &g), CGPROP_EINVAL);
        ck_assert_ptr_null(g);
        ck_assert_int_eq(alloc_calls, 0);
    }
    a.malloc_fn = x_malloc;
    a.realloc_fn = x_realloc;
    a.free_fn = x_free;
    ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 2, &g), CGPROP_OK);
    ck_assert_int_gt(alloc_calls, 0);
    ck_assert_str_eq(cgprop_graph_errmsg(g), "");
    cgprop_graph_free(g);
}
END_TEST

/* Status must be `code`, with a message on g. */
#define EXPECT(g, call, code)                                                                             \
    do {                                                                                                  \
        int rc_ = (call);                                                                                 \
        const char *m_;                                                                                   \
        ck_assert_msg(rc_ == (code), "%s returned %d, expected %d", #call, rc_, (int)(code));             \
        m_ = cgprop_graph_errmsg(g);                                                                      \
        ck_assert_ptr_nonnull(m_);                                                                        \
        ck_assert_msg(m_[0] != '\0', "%s left no message", #call);                                        \
    } while (0)

/* Status must be CGPROP_OK, and the message cleared. */
#define EXPECT_OK(g, call)                                                                                \
    do {                                                                                                  \
        int rc_ = (call);                                                                                 \
        ck_assert_msg(rc_ == CGPROP_OK, "%s returned %d: %s", #call, rc_, cgprop_graph_errmsg(g));         \
        ck_assert_msg(strcmp(cgprop_graph_errmsg(g), "") == 0, "%s left the message \"%s\"", #call,        \
                      cgprop_graph_errmsg(g));                                                            \
    } while (0)

static cgprop_graph *small_graph(void)
{
    static const char *const names[2] = {"Ir", "ns"};
    const uint64_t c[2] = {1, 2};
    cgprop_graph *g = NULL;
    uint32_t id;

    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, &g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "a", 1, &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "b", 1, &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, 0, 1, 1, c, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, 1, 0, 1, c, NULL), CGPROP_OK);
    return g;
}

START_TEST(test_null_graph_handle)
{
    const uint64_t c[2] = {1, 2};
    const uint32_t frames[2] = {0, 1};
    uint32_t id = 0;
    size_t len = 7, n = 7;
    cgprop_iter *it = (cgprop_iter *)&it;
    cgprop_node_row nr;

    cgprop_graph_free(NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(NULL), 0);
    ck_assert_ptr_null(cgprop_graph_metric_name(NULL, 0, &len));
    ck_assert_int_eq(cgprop_graph_find_metric(NULL, "Ir", 2, &id), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_node(NULL, "a", 1, &id), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_find_node(NULL, "a", 1, &id), CGPROP_EINVAL);
    ck_assert_ptr_null(cgprop_graph_node_key(NULL, 0, &len));
    ck_assert_uint_eq(cgprop_graph_node_count(NULL), 0);
    ck_assert_uint_eq(cgprop_graph_edge_count(NULL), 0);
    ck_assert_int_eq(cgprop_graph_add_self(NULL, 0, c), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_self_class(NULL, 0, CGPROP_LEVEL_0, c), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_edge(NULL, 0, 1, 1, c, &id), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_edge_class(NULL, 0, 1, 0, 0, 1, c, &id), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_spontaneous(NULL, 0, 1, c), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_add_stack(NULL, frames, 2, c), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_find_edge(NULL, 0, 1, &id), CGPROP_EINVAL);
    ck_assert_uint_eq(cgprop_graph_generation(NULL), 0);

    ck_assert_int_eq(cgprop_graph_find_cycles(NULL, &n), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_collapse(NULL, CGPROP_SHARE_AUTO), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_propagate(NULL), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_split(NULL), CGPROP_EINVAL);

    ck_assert_int_eq(cgprop_iter_new(NULL, CGPROP_ITER_NODES, 0, 0, &it), CGPROP_EINVAL);
    ck_assert_ptr_null(it);
    ck_assert_int_eq(cgprop_iter_next(NULL, &nr, sizeof nr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_copy_rows(NULL, &nr, sizeof nr, 1, &n), CGPROP_EINVAL);
    ck_assert_uint_eq(cgprop_iter_count(NULL), 0);
    cgprop_iter_free(NULL);
    ck_assert_int_eq(cgprop_graph_get_row(NULL, CGPROP_ITER_NODES, 0, 0, &nr, sizeof nr), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_node_cycle(NULL, 0, &id), CGPROP_EINVAL);
}
END_TEST

START_TEST(test_null_arguments_on_graph)
{
    cgprop_graph *g = small_graph();
    const uint64_t c[2] = {1, 2};
    const uint32_t frames[3] = {0, 1, 0};
    const uint32_t badframes[3] = {0, 2, 1};
    uint32_t id = 0;
    size_t len = 0;
    uint64_t gen = cgprop_graph_generation(g);
    cgprop_node_row nr;

    EXPECT(g, cgprop_graph_find_metric(g, NULL, 2, &id), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_find_metric(g, "ns", 2, &id));
    ck_assert_uint_eq(id, 1);
    EXPECT(g, cgprop_graph_find_metric(g, "Ir", 2, NULL), CGPROP_EINVAL);
    ck_assert_ptr_null(cgprop_graph_metric_name(g, 2, &len));

    EXPECT(g, cgprop_graph_add_node(g, NULL, 1, &id), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_find_node(g, "b", 1, &id));
    EXPECT(g, cgprop_graph_add_node(g, "c", 1, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_find_node(g, NULL, 1, &id), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_find_node(g, "a", 1, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_find_node(g, "c", 1, &id), CGPROP_ENOTFOUND);

    EXPECT(g, cgprop_graph_add_self(g, 0, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_self_class(g, 0, CGPROP_LEVEL_1, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_self_class(g, 0, 4, c), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_edge_class(g, 0, 1, 0, 0, 1, NULL, &id), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_edge_class(g, 0, 1, 4, 0, 1, c, &id), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_edge_class(g, 0, 1, 0, 4, 1, c, &id), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_spontaneous(g, 0, 1, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_stack(g, NULL, 3, c), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_stack(g, frames, 0, c), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_stack(g, frames, 3, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_add_stack(g, badframes, 3, c), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_find_edge(g, 0, 1, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_find_edge(g, 0, 0, &id), CGPROP_ENOTFOUND);

    /* Nothing above changed the graph. */
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 2);
    EXPECT_OK(g, cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, &nr, sizeof nr));
    ck_assert_uint_eq(nr.self, 0);
    ck_assert_uint_eq(nr.spont_count, 0);
    ck_assert_uint_eq(nr.calls_in, 1);
    ck_assert_uint_eq(nr.flags, 0);
    EXPECT_OK(g, cgprop_graph_get_row(g, CGPROP_ITER_NODES, 1, 1, &nr, sizeof nr));
    ck_assert_uint_eq(nr.calls_in, 1);

    /* Each success clears the message left by the failure before it. */
    EXPECT(g, cgprop_graph_add_self(g, 9, c), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_add_self(g, 0, c));
    EXPECT(g, cgprop_graph_add_self(g, 9, c), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_add_node(g, "c", 1, &id));
    EXPECT(g, cgprop_graph_add_self(g, 9, c), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_add_edge(g, 2, 0, 1, NULL, NULL));
    EXPECT(g, cgprop_graph_add_self(g, 9, c), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_add_spontaneous(g, 2, 1, c));
    EXPECT(g, cgprop_graph_add_self(g, 9, c), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_add_stack(g, frames, 3, c));
    EXPECT(g, cgprop_graph_add_self(g, 9, c), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_find_edge(g, 0, 1, &id));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_iterate_group_bad_args)
{
    cgprop_graph *g = small_graph();
    cgprop_iter *it = NULL;
    cgprop_node_row nr[2];
    cgprop_edge_row er;
    size_t n = 5;
    uint32_t cyc = 0;

    EXPECT(g, cgprop_iter_new(g, CGPROP_ITER_NODES, 0, 0, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_iter_new(g, 0, 0, 0, &it), CGPROP_EINVAL);
    EXPECT(g, cgprop_iter_new(g, CGPROP_ITER_NODES, 2, 0, &it), CGPROP_EINVAL);
    EXPECT(g, cgprop_iter_new(g, CGPROP_ITER_CALLEES, 0, 2, &it), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_iter_new(g, CGPROP_ITER_NODES, 0, 0, &it));

    ck_assert_int_eq(cgprop_iter_next(it, NULL, sizeof nr[0]), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, NULL, sizeof nr[0], 2, &n), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, nr, sizeof nr[0], 2, NULL), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_iter_copy_rows(it, nr, sizeof er, 2, &n), CGPROP_EINVAL);
    /* None of the refused calls consumed a row. */
    ck_assert_int_eq(cgprop_iter_copy_rows(it, nr, sizeof nr[0], 2, &n), CGPROP_OK);
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(nr[0].id, 0);
    ck_assert_uint_eq(nr[1].id, 1);
    cgprop_iter_free(it);

    EXPECT(g, cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, NULL, sizeof nr[0]), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, 0, nr, 0), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, 2, &er, sizeof er), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_get_row(g, CGPROP_ITER_CALLERS, 0, 0, &er, sizeof er), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 1, 1, &er, sizeof er));
    ck_assert_uint_eq(er.caller, 1);
    ck_assert_uint_eq(er.cost, 2);

    /* node_cycle: before the analysis, then with bad arguments after it. */
    EXPECT(g, cgprop_graph_node_cycle(g, 0, &cyc), CGPROP_ESTATE);
    EXPECT_OK(g, cgprop_graph_find_cycles(g, NULL));
    EXPECT(g, cgprop_graph_node_cycle(g, 0, NULL), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_node_cycle(g, 2, &cyc), CGPROP_EINVAL);
    EXPECT_OK(g, cgprop_graph_node_cycle(g, 1, &cyc));
    ck_assert_uint_eq(cyc, 0); /* a <-> b */
    EXPECT(g, cgprop_iter_new(g, CGPROP_ITER_MEMBERS, 0, 1, &it), CGPROP_EINVAL);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_analysis_order_and_options)
{
    cgprop_graph *g = small_graph();
    const uint64_t c[2] = {1, 1};

    EXPECT(g, cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_ESTATE);   /* no cycles yet */
    EXPECT(g, cgprop_graph_propagate(g), CGPROP_ESTATE);                    /* no collapse yet */
    EXPECT_OK(g, cgprop_graph_find_cycles(g, NULL));
    EXPECT(g, cgprop_graph_collapse(g, 3), CGPROP_EINVAL);
    EXPECT(g, cgprop_graph_propagate(g), CGPROP_ESTATE);
    EXPECT_OK(g, cgprop_graph_collapse(g, CGPROP_SHARE_COUNT));
    EXPECT_OK(g, cgprop_graph_propagate(g));
    /* A mutation discards them all. */
    EXPECT_OK(g, cgprop_graph_add_self(g, 0, c));
    EXPECT(g, cgprop_graph_collapse(g, CGPROP_SHARE_COUNT), CGPROP_ESTATE);
    EXPECT(g, cgprop_graph_propagate(g), CGPROP_ESTATE);
    cgprop_graph_free(g);
}
END_TEST

static Suite *errors_suite(void)
{
    Suite *s = suite_create("errors");
    TCase *tc = tcase_create("core");

    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_strerror);
    tcase_add_test(tc, test_codes_are_stable);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_errmsg_null);
    tcase_add_test(tc, test_graph_new_bad_args);
    tcase_add_test(tc, test_null_graph_handle);
    tcase_add_test(tc, test_null_arguments_on_graph);
    tcase_add_test(tc, test_iterate_group_bad_args);
    tcase_add_test(tc, test_analysis_order_and_options);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(errors_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
