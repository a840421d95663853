/* Folded-stack reader and format detection; values worked out by hand. */
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_io.h"

#define DATA CGPROP_TEST_DATA

static cgprop_graph *rd(const char *text, cgprop_read_info *info) { return tread(text, strlen(text), "f", NULL, info); }

static void bad(const char *text, int code, uint64_t line)
{
    tread_bad(text, strlen(text), "s.folded", CGPROP_INPUT_FOLDED, code, line, NULL);
}

static cgprop_split_row split(cgprop_graph *g, const char *k)
{
    cgprop_split_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, 0, tfind(g, k), &r, sizeof r), CGPROP_OK);
    return r;
}

START_TEST(basic)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd("a;b;c 42\na;b 8\n", &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_FOLDED);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 1);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "samples");
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(tself(g, "a", 0), 0);
    ck_assert_uint_eq(tself(g, "b", 0), 8);
    ck_assert_uint_eq(tself(g, "c", 0), 42);
    ck_assert_uint_eq(tedge(g, "a", "b", 0).cost, 50);
    ck_assert_uint_eq(tedge(g, "b", "c", 0).cost, 42);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    ck_assert_uint_eq(split(g, "a").C_n, 50);
    ck_assert_uint_eq(split(g, "b").C_n, 50);
    ck_assert_uint_eq(split(g, "c").C_n, 42);
    ck_assert_uint_eq(split(g, "a").inexact, 0);
    ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, "c"), NULL), "c");
    cgprop_graph_free(g);
}
END_TEST

START_TEST(several_weights)
{
    cgprop_graph *g = rd("# comment\n\n  a;b 5 7\r\nb 1 2\n", NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "samples0");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "samples1");
    ck_assert_uint_eq(tself(g, "b", 0), 6);
    ck_assert_uint_eq(tself(g, "b", 1), 9);
    ck_assert_uint_eq(tedge(g, "a", "b", 1).cost, 7);
    cgprop_graph_free(g);
    /* The first line fixes K: later trailing numbers beyond K belong to the
     * frame name. A TAB in a frame becomes a space. */
    g = rd("main;f 10\nmain;g 2 5\nmain;h\tx 1\n", NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 1);
    ck_assert_uint_eq(tself(g, "g 2", 0), 5);
    ck_assert_uint_eq(tself(g, "h x", 0), 1);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(shared_prefixes)
{
    /* Consecutive lines sharing bytes but not frames: "a;bc" after "a;b",
     * "ab" after "a;bc", "a;b;c" after "a;b;cd", "a;b<TAB>q" after "a;b";
     * and lines that repeat or end inside the previous one. Each weight a
     * power of two, so every sum below names the lines it comes from. */
    cgprop_graph *g = rd("a;b;c 1\na;b 2\na;bc 4\nab 8\na;b;c;d 16\na;b;x 32\na;b;cd 64\na;b;c 128\n"
                         "a;b;c 256\na;b 512\na;b\tq 1024\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 9); /* a b c bc ab d x cd "b q" */
    ck_assert_uint_eq(tself(g, "a", 0), 0);
    ck_assert_uint_eq(tself(g, "b", 0), 2 + 512);
    ck_assert_uint_eq(tself(g, "c", 0), 1 + 128 + 256);
    ck_assert_uint_eq(tself(g, "bc", 0), 4);
    ck_assert_uint_eq(tself(g, "ab", 0), 8);
    ck_assert_uint_eq(tself(g, "cd", 0), 64);
    ck_assert_uint_eq(tself(g, "b q", 0), 1024);
    ck_assert_uint_eq(tedge(g, "a", "b", 0).cost, 1 + 2 + 16 + 32 + 64 + 128 + 256 + 512);
    ck_assert_uint_eq(tedge(g, "b", "c", 0).cost, 1 + 16 + 128 + 256);
    ck_assert_uint_eq(tedge(g, "c", "d", 0).cost, 16);
    ck_assert_uint_eq(tedge(g, "b", "x", 0).cost, 32);
    ck_assert_uint_eq(tedge(g, "b", "cd", 0).cost, 64);
    ck_assert_uint_eq(tedge(g, "a", "bc", 0).cost, 4);
    ck_assert_uint_eq(tedge(g, "a", "b q", 0).cost, 1024);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(notes_example)
{
    /* The A/B/C example of docs/SPLIT.md as stacks (abc.collapse): every figure exact. */
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    const char *p = DATA "/gprof2dot/abc.collapse";
    ck_assert_int_eq(cgprop_read_file(p, strlen(p), NULL, NULL, &g, NULL, &err), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row a = split(g, "A");
    ck_assert_uint_eq(a.S_n, 10);
    ck_assert_uint_eq(a.S_r, 10);
    ck_assert_uint_eq(a.C_n, 50);
    ck_assert_uint_eq(a.C_r, 20);
    ck_assert_uint_eq(a.inexact, 0);
    ck_assert_uint_eq(split(g, "B").C_n, 30);
    ck_assert_uint_eq(split(g, "C").C_n, 20);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(malformed)
{
    bad("a;b x\n", CGPROP_EFORMAT, 1);
    bad("a 1\n\nb\n", CGPROP_EFORMAT, 3);
    bad("a 1 2\nb 3\n", CGPROP_EFORMAT, 2);
    bad("a 99999999999999999999\n", CGPROP_EOVERFLOW, 1);
    bad("a 18446744073709551615\na 1\n", CGPROP_EOVERFLOW, 2);
    bad("# only a comment\n", CGPROP_EFORMAT, 1);
    bad("", CGPROP_EFORMAT, 0);
    bad("5\n", CGPROP_EFORMAT, 1);
}
END_TEST

/* Weights near 2^64: the reader adds the calls of a shared prefix late
 * (when they leave it), and takes the checked path once a sum could
 * overflow; the sums and the line of the overflow are those of adding every
 * stack at once. W = 2^62 - 1. */
START_TEST(large_weights)
{
    static const char t[] = "a;b;a;b 4611686018427387903\n"
                            "a;b;a;b;c 4611686018427387903\n"
                            "x 5\n"
                            "a;b;a;b 1\n";
    cgprop_graph *g = rd(t, NULL);
    /* a->b twice per a;b;a;b stack: 4W + 2 */
    ck_assert_uint_eq(tedge(g, "a", "b", 0).cost, 18446744073709551614u);
    ck_assert_uint_eq(tedge(g, "b", "a", 0).cost, 9223372036854775807u);  /* 2W + 1 */
    ck_assert_uint_eq(tedge(g, "b", "c", 0).cost, 4611686018427387903u);  /* W */
    ck_assert_uint_eq(tself(g, "b", 0), 4611686018427387904u);        /* W + 1 */
    ck_assert_uint_eq(tself(g, "c", 0), 4611686018427387903u);
    ck_assert_uint_eq(tself(g, "x", 0), 5);
    cgprop_graph_free(g);
    /* Two more on a->b pass 2^64 - 1 at line 5. */
    bad("a;b;a;b 4611686018427387903\na;b;a;b;c 4611686018427387903\nx 5\na;b;a;b 1\na;b 2\n", CGPROP_EOVERFLOW, 5);
    bad("a;b 9223372036854775807\na;b 9223372036854775807\na;b 2\n", CGPROP_EOVERFLOW, 3);
}
END_TEST

START_TEST(detect)
{
    size_t n;
    ck_assert_uint_eq(cgprop_read_detect("a;b 1\n", 6), CGPROP_INPUT_FOLDED);
    ck_assert_uint_eq(cgprop_read_detect("# x\n\nmain 12\n", 13), CGPROP_INPUT_FOLDED);
    ck_assert_uint_eq(cgprop_read_detect("# callgrind format\n", 19), CGPROP_INPUT_CALLGRIND);
    ck_assert_uint_eq(cgprop_read_detect("version: 1\n", 11), CGPROP_INPUT_CALLGRIND);
    ck_assert_uint_eq(cgprop_read_detect("events: Ir\n", 11), CGPROP_INPUT_CALLGRIND);
    ck_assert_uint_eq(cgprop_read_detect("enter f 1\n", 10), CGPROP_INPUT_EVENTS);
    ck_assert_uint_eq(cgprop_read_detect("# metrics: ns\n", 14), CGPROP_INPUT_EVENTS);
    ck_assert_uint_eq(cgprop_read_detect("hello world\n", 12), CGPROP_INPUT_AUTO);
    ck_assert_uint_eq(cgprop_read_detect("", 0), CGPROP_INPUT_AUTO);
    ck_assert_uint_eq(cgprop_read_detect(NULL, 5), CGPROP_INPUT_AUTO);
    /* Real files. */
    const char *files[] = {DATA "/recur/recur.default.callgrind.out", DATA "/gprof2dot/abc.callgrind",
                           DATA "/gprof2dot/bool.callgrind"};
    for (int i = 0; i < 3; i++) {
        FILE *f = fopen(files[i], "rb");
        ck_assert(f != NULL);
        char buf[4096];
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        ck_assert_uint_eq(cgprop_read_detect(buf, n), CGPROP_INPUT_CALLGRIND);
    }
}
END_TEST

START_TEST(alloc_failures)
{
    const char *t = "main;a;b;a;b 3\nmain;c\tx 4\nmain;a 1\nmain;a;b;a;b;a;b;a;b;a;b;a;b;a;b;a;b;a;b;a 2\n";
    tfail_read_sweep(t, strlen(t), "a", 2000);
}
END_TEST

START_TEST(byte_order_mark)
{
    /* A UTF-8 byte order mark before the first frame is not part of it. */
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd("\xef\xbb\xbfmain;a 1\n", &info);
    ck_assert_uint_eq(tfind(g, "main"), 0);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    cgprop_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("folded");
    TCase *tc = tcase_create("folded");
    tcase_add_test(tc, basic);
    tcase_add_test(tc, byte_order_mark);
    tcase_add_test(tc, several_weights);
    tcase_add_test(tc, shared_prefixes);
    tcase_add_test(tc, notes_example);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, large_weights);
    tcase_add_test(tc, detect);
    tcase_add_test(tc, alloc_failures);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
