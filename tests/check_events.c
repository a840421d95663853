/* The event-trace reader (lib/io/events.c). Expected figures are worked
 * out by hand in the comments. */
#include <check.h>
#include "ck_quiet.h"
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_io.h"
#include "graph.h"

#define ABC                                                                                                        \
    "# metrics: ns\n"                                                                                              \
    "enter A 0\nenter B 5\nenter C 8\nexit C 12\nexit B 17\nenter B 22\nexit B 28\nexit A 33\n"

static uint32_t id_of(cgprop_graph *g, const char *k)
{
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_find_node(g, k, strlen(k), &id), CGPROP_OK);
    return id;
}

static cgprop_graph *read_ok(const char *text, const cgprop_recorder_options *o, cgprop_events_info *info)
{
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_events_read_buffer(text, strlen(text), "t", 1, o, NULL, &g, info, &err);
    ck_assert_msg(rc == CGPROP_OK, "rc %d line %llu: %s", rc, (unsigned long long)err.line, err.reason);
    ck_assert_ptr_nonnull(g);
    ck_assert_str_eq(err.reason, "");
    return g;
}

/* Expect failure on `line` with `needle` in the reason. */
static void read_bad(const char *text, int code, uint64_t line, const char *needle)
{
    cgprop_graph *g = (cgprop_graph *)1;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_events_info info;
    cgprop_events_info_init(&info);
    info.events = 99;
    int rc = cgprop_events_read_buffer(text, strlen(text), "bad.ev", 6, NULL, NULL, &g, &info, &err);
    ck_assert_int_eq(rc, code);
    ck_assert_ptr_null(g);
    ck_assert_int_eq(err.code, code);
    ck_assert_uint_eq(err.line, line);
    ck_assert_str_eq(err.file, "bad.ev");
    ck_assert_msg(strstr(err.reason, needle) != NULL, "reason '%s' lacks '%s'", err.reason, needle);
    ck_assert_uint_eq(info.events, 99); /* untouched on error */
}

static void check_abc(uint32_t mode)
{
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = mode;
    o_di[0] = 1;
    o_de[0] = 2;
    cgprop_events_info info;
    cgprop_events_info_init(&info);
    cgprop_graph *g = read_ok(ABC, &o, &info);
    /* A(10) -> B(5) -> C(3); A -> B(5): excl A 10, B 5+5, C 3; A's inclusive 23; A->B 8+5. */
    uint32_t A = id_of(g, "A"), B = id_of(g, "B"), C = id_of(g, "C");
    ck_assert_uint_eq(g->self_n[A], 10);
    ck_assert_uint_eq(g->self_n[B], 10);
    ck_assert_uint_eq(g->self_n[C], 3);
    ck_assert_uint_eq(g->spont_cost[A], 23);
    ck_assert_uint_eq(g->spont_cnt[A], 1);
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, A, B, &e), CGPROP_OK);
    ck_assert_uint_eq(g->ecount[e], 2);
    ck_assert_uint_eq(g->ecost[e], 13);
    ck_assert_uint_eq(info.events, 8);
    ck_assert_uint_eq(info.lines, 9);
    ck_assert_uint_eq(info.unclosed, 0);
    ck_assert_uint_eq(info.clamps, 0);
    ck_assert_uint_eq(info.floors, 0);
    size_t ml;
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, &ml), "ns");
    cgprop_graph_free(g);
}

START_TEST(test_abc_online) { check_abc(CGPROP_COMP_ONLINE); }
END_TEST

START_TEST(test_abc_postmortem) { check_abc(CGPROP_COMP_POSTMORTEM); }
END_TEST

START_TEST(test_generic_reader)
{
    /* Through cgprop_read_buffer (format detected): no compensation, raw figures. */
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    ck_assert_uint_eq(cgprop_read_detect(ABC, strlen(ABC)), CGPROP_INPUT_EVENTS);
    ck_assert_int_eq(cgprop_read_buffer(ABC, strlen(ABC), "abc", 3, NULL, NULL, &g, &info, &err), CGPROP_OK);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_EVENTS);
    /* Raw: A excl 33-12-6 = 15, inclusive 33; B excl 8+6. */
    ck_assert_uint_eq(g->self[id_of(g, "A")], 15);
    ck_assert_uint_eq(g->self[id_of(g, "B")], 14);
    ck_assert_uint_eq(g->spont_cost[id_of(g, "A")], 33);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_files)
{
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = CGPROP_COMP_ONLINE;
    o_di[0] = 1;
    o_de[0] = 2;
    const char *path = CGPROP_TEST_DATA "/events/abc.events";
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_events_info info;
    cgprop_events_info_init(&info);
    ck_assert_int_eq(cgprop_events_read_file(path, strlen(path), &o, NULL, &g, &info, &err), CGPROP_OK);
    ck_assert_uint_eq(g->spont_cost[id_of(g, "A")], 23);
    ck_assert_uint_eq(info.lines, 11);
    cgprop_graph_free(g);
    ck_assert_int_eq(cgprop_read_file(path, strlen(path), NULL, NULL, &g, NULL, &err), CGPROP_OK);
    ck_assert_uint_eq(g->spont_cost[id_of(g, "A")], 33);
    cgprop_graph_free(g);
    const char *missing = CGPROP_TEST_DATA "/events/no-such-file";
    ck_assert_int_eq(cgprop_events_read_file(missing, strlen(missing), &o, NULL, &g, &info, &err),
                     CGPROP_ENOTFOUND);
    ck_assert_ptr_null(g);
    ck_assert_ptr_nonnull(strstr(err.file, "no-such-file"));
}
END_TEST

START_TEST(test_syntax)
{
    /* No header: K from the first event (two readings), names m1, m2.
     * Names keep inner spaces, TABs become spaces, CRLF and blanks are fine,
     * comments anywhere. */
    const char *t = "# a comment\r\n"
                    "\n"
                    "  enter   operator new(unsigned long)   10 100 \r\n"
                    "enter f\tg 2 12 110\n"
                    "   # another\n"
                    "exit f g 2 15 150\n"
                    "exit operator new(unsigned long) 20 200\n";
    cgprop_events_info info;
    cgprop_events_info_init(&info);
    cgprop_graph *g = read_ok(t, NULL, &info);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "m1");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "m2");
    uint32_t op = id_of(g, "operator new(unsigned long)"), fg = id_of(g, "f g 2");
    /* f g 2: 12..15 and 110..150; operator new: 10..20 minus 3, 100..200 minus 40. */
    ck_assert_uint_eq(g->self[fg * 2 + 0], 3);
    ck_assert_uint_eq(g->self[fg * 2 + 1], 40);
    ck_assert_uint_eq(g->self[op * 2 + 0], 7);
    ck_assert_uint_eq(g->self[op * 2 + 1], 60);
    ck_assert_uint_eq(info.events, 4);
    cgprop_graph_free(g);

    /* Open activations at the end close at the last readings: A 0..9, B 4..9. */
    g = read_ok("# metrics: t\nenter A 0\nenter B 4\nexit B 6\nenter B 7\nenter C 9\n", NULL, &info);
    ck_assert_uint_eq(info.unclosed, 3);
    ck_assert_uint_eq(g->spont_cost[id_of(g, "A")], 9);
    ck_assert_uint_eq(g->self[id_of(g, "A")], 5); /* 0..4 and 6..7 */
    ck_assert_uint_eq(g->self[id_of(g, "C")], 0);
    cgprop_graph_free(g);

    /* A header alone: an empty graph with its metrics. */
    g = read_ok("#metrics: a b c\n", NULL, &info);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(test_errors)
{
    read_bad("# metrics: ns\nenter A 1\nenter B 2\nexit A 3\n", CGPROP_EFORMAT, 4,
             "exit of 'A' but the innermost open function is 'B'");
    read_bad("# metrics: ns\nenter A 1\nexit A 2\nexit A 3\n", CGPROP_EFORMAT, 4, "no open activation");
    read_bad("# metrics: ns\nenter A 1\nexit Z 2\n", CGPROP_EFORMAT, 3, "exit of 'Z'");
    /* A name that is a prefix of the open function's, or the other way round. */
    read_bad("# metrics: ns\nenter AB 1\nexit A 2\n", CGPROP_EFORMAT, 3,
             "exit of 'A' but the innermost open function is 'AB'");
    read_bad("# metrics: ns\nenter A 1\nexit AB 2\n", CGPROP_EFORMAT, 3,
             "exit of 'AB' but the innermost open function is 'A'");
    read_bad("# metrics: ns Ir\nenter A 1\n", CGPROP_EFORMAT, 2, "2 counter readings, found 1");
    read_bad("# metrics: ns\nenter A x\n", CGPROP_EFORMAT, 2, "found 0 readings");
    read_bad("enter A\n", CGPROP_EFORMAT, 1, "expected a function name and counter readings");
    read_bad("enter 5\n", CGPROP_EFORMAT, 1, "expected a function name");
    read_bad("# metrics: ns\nenter 5\n", CGPROP_EFORMAT, 2, "found 0 readings");
    read_bad("# metrics: ns\nenter A 10\nenter B 9\n", CGPROP_EFORMAT, 3, "counter 'ns' runs backwards: 9 after 10");
    read_bad("enter A 1\n# metrics: ns\n", CGPROP_EFORMAT, 2, "metrics header after the first event");
    read_bad("# metrics: ns ns\n", CGPROP_EFORMAT, 1, "metric 'ns' named twice");
    read_bad("# metrics: n\001s\n", CGPROP_EFORMAT, 1, "a metric name holds a control byte");
    read_bad("# metrics:\n", CGPROP_EFORMAT, 1, "names no metric");
    read_bad("# metrics: ns\nenter A 99999999999999999999\n", CGPROP_EOVERFLOW, 2, "does not fit");
    read_bad("# metrics: ns\ncall A 1\n", CGPROP_EFORMAT, 2, "expected 'enter NAME READINGS'");
    read_bad("# metrics: ns\nentering A 1\n", CGPROP_EFORMAT, 2, "'entering A 1'");
    read_bad("", CGPROP_EFORMAT, 0, "no events");
    read_bad("# only a comment\n", CGPROP_EFORMAT, 0, "no events");

    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
    o.delta_i = o_di;
    o.delta_e = o_de;
    o.mode = 9;
    ck_assert_int_eq(cgprop_events_read_buffer(ABC, strlen(ABC), NULL, 0, &o, NULL, &g, NULL, &err), CGPROP_EINVAL);
    ck_assert_ptr_null(g);
    ck_assert_str_eq(err.file, "<buffer>");
    ck_assert_int_eq(cgprop_events_read_buffer(ABC, strlen(ABC), NULL, 0, NULL, NULL, NULL, NULL, &err),
                     CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_events_read_buffer(NULL, 5, NULL, 0, NULL, NULL, &g, NULL, &err), CGPROP_EINVAL);
}
END_TEST

START_TEST(test_garbage)
{
    /* Any bytes: an error or a graph, never a crash (run under ASan/valgrind). */
    uint64_t s = 88172645463325252ull;
    static const char alphabet[] = "enterxit #mcs:AB 0123456789\n\t\r\xff";
    char buf[256];
    int ok = 0;
    for (int it = 0; it < 3000; it++) {
        size_t n = 0;
        size_t len = (size_t)(it % 200);
        for (; n < len; n++) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            buf[n] = alphabet[s % (sizeof alphabet - 1)];
        }
        /* Every other input starts like a valid trace, so parsing goes deep. */
        const char *pre = it % 2 ? "enter A 1\n" : "";
        char text[300];
        size_t pl = strlen(pre);
        memcpy(text, pre, pl);
        memcpy(text + pl, buf, n);
        cgprop_graph *g = NULL;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        int rc = cgprop_events_read_buffer(text, pl + n, NULL, 0, NULL, NULL, &g, NULL, &err);
        if (rc == CGPROP_OK) {
            ok++;
            ck_assert_ptr_nonnull(g);
        } else {
            ck_assert_ptr_null(g);
            ck_assert(err.reason[0] != '\0');
        }
        cgprop_graph_free(g);
    }
    ck_assert_int_gt(ok, 0);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("events");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_abc_online);
    tcase_add_test(tc, test_abc_postmortem);
    tcase_add_test(tc, test_generic_reader);
    tcase_add_test(tc, test_files);
    tcase_add_test(tc, test_syntax);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_garbage);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
