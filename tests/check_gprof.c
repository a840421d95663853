/* gprof text reader: a report written by hand in gprof's layout with its
 * collapse worked out by hand, malformed inputs, allocation failures, and
 * the real report of tests/data/gprof/cycles.c against gprof's own figures. */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_io.h"
#include "support.h"

#define DATA CGPROP_TEST_DATA

/* main calls a (1), c (1), d (1); a and b call each other (2 each) and c
 * (a once, b twice); d calls itself 5 times. Self, in hundredths of a
 * second: a 3, b 2, c 4, d 1, main 0; orphan 1 (flat profile only).
 * By hand, gprof's way: c's 4 go 1 per call. The cycle {a, b}: self 5,
 * children a -> c 1 + b -> c 2 = 3, total 8, all of it to main (its only
 * outside caller). d: 1. main: children 8 + 1 + 1 = 10. */
static const char hand[] =
    "Flat profile:\n"
    "\n"
    "Each sample counts as 0.01 seconds.\n"
    "  %   cumulative   self              self     total           \n"
    " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
    " 36.36      0.04     0.04        4    10.00    10.00  c\n"
    " 27.27      0.07     0.03        3    10.00    13.33  a\n"
    " 18.18      0.09     0.02        2    10.00    20.00  b\n"
    "  9.09      0.10     0.01        6     1.67     1.67  d\n"
    "  9.09      0.11     0.01                             orphan\n"
    "\n"
    "\t\t\tCall graph\n"
    "\n"
    "\n"
    "granularity: each sample hit covers 2 byte(s) for 9.09% of 0.11 seconds\n"
    "\n"
    "index % time    self  children    called     name\n"
    "                                                 <spontaneous>\n"
    "[1]     90.9    0.00    0.10                 main [1]\n"
    "                0.05    0.03       1/1           a <cycle 1> [3]\n"
    "                0.01    0.00       1/4           c [4]\n"
    "                0.01    0.00       1/1           d [5]\n"
    "-----------------------------------------------\n"
    "[2]     72.7    0.05    0.03       1+4       <cycle 1 as a whole> [2]\n"
    "                0.03    0.01       3             a <cycle 1> [3]\n"
    "                0.02    0.02       2             b <cycle 1> [6]\n"
    "-----------------------------------------------\n"
    "                                   2             b <cycle 1> [6]\n"
    "                0.05    0.03       1/1           main [1]\n"
    "[3]     36.4    0.03    0.01       3         a <cycle 1> [3]\n"
    "                0.01    0.00       1/4           c [4]\n"
    "                                   2             b <cycle 1> [6]\n"
    "-----------------------------------------------\n"
    "                0.01    0.00       1/4           main [1]\n"
    "                0.01    0.00       1/4           a <cycle 1> [3]\n"
    "                0.02    0.00       2/4           b <cycle 1> [6]\n"
    "[4]     36.4    0.04    0.00       4         c [4]\n"
    "-----------------------------------------------\n"
    "                                   5             d [5]\n"
    "                0.01    0.00       1/1           main [1]\n"
    "[5]      9.1    0.01    0.00       1+5       d [5]\n"
    "                                   5             d [5]\n"
    "-----------------------------------------------\n"
    "                                   2             a <cycle 1> [3]\n"
    "[6]     36.4    0.02    0.02       2         b <cycle 1> [6]\n"
    "                0.02    0.00       2/4           c [4]\n"
    "                                   2             a <cycle 1> [3]\n"
    "-----------------------------------------------\n"
    "\n"
    "\f\n"
    "Index by function name\n"
    "\n"
    "   [3] a                       [4] c                       [1] main\n";

static cgprop_graph *rd(const char *text, size_t len, cgprop_read_info *info)
{
    return tread(text, len, "x.gprof", NULL, info);
}

static uint32_t edge_id(cgprop_graph *g, const char *a, const char *b)
{
    uint32_t e;
    ck_assert_msg(cgprop_graph_find_edge(g, tfind(g, a), tfind(g, b), &e) == CGPROP_OK, "no %s -> %s", a, b);
    return e;
}

static cgprop_cycle_row cycle_of(cgprop_graph *g, const char *k)
{
    cgprop_total_row t = ttotals_row(g, 0, tfind(g, k));
    ck_assert(t.cycle != CGPROP_NONE);
    cgprop_cycle_row c;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, t.cycle, &c, sizeof c), CGPROP_OK);
    return c;
}

/* gprof's self and children figures of a function, in hundredths. */
static void figures(cgprop_graph *g, const char *k, double s, double child, double tol)
{
    cgprop_total_row r = ttotals_row(g, 0, tfind(g, k));
    ck_assert_msg(fabs(r.gprof_self - s) <= tol, "%s: self %g, want %g", k, r.gprof_self, s);
    ck_assert_msg(fabs(r.gprof_child - child) <= tol, "%s: children %g, want %g", k, r.gprof_child, child);
    if (r.cycle == CGPROP_NONE)
        ck_assert_msg(fabs(r.vertex_total - s - child) <= tol, "%s: vertex total %g", k, r.vertex_total);
}

START_TEST(hand_made)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(hand, sizeof hand - 1, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_GPROF);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_COUNTS);
    ck_assert_uint_eq(info.lines, 53);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "cs");
    ck_assert_uint_eq(cgprop_graph_node_count(g), 6);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 8);
    ck_assert_uint_eq(tself(g, "main", 0), 0);
    ck_assert_uint_eq(tself(g, "a", 0), 3);
    ck_assert_uint_eq(tself(g, "b", 0), 2);
    ck_assert_uint_eq(tself(g, "c", 0), 4);
    ck_assert_uint_eq(tself(g, "d", 0), 1);
    ck_assert_uint_eq(tself(g, "orphan", 0), 1);
    /* Calls: counts only, no cost. */
    static const char *const calls[][2] = {{"main", "a"}, {"main", "c"}, {"main", "d"}, {"a", "c"},
                                           {"a", "b"},    {"b", "c"},    {"b", "a"},    {"d", "d"}};
    static const uint64_t counts[] = {1, 1, 1, 1, 2, 2, 2, 5};
    for (int i = 0; i < 8; i++) {
        cgprop_edge_row e = tedge(g, calls[i][0], calls[i][1], 0);
        ck_assert_uint_eq(e.count, counts[i]);
        ck_assert(!(e.flags & CGPROP_F_HAS_COST));
    }
    tanalyse(g, CGPROP_SHARE_AUTO);
    figures(g, "main", 0, 10, 1e-9);
    figures(g, "a", 3, 1, 1e-9);
    figures(g, "b", 2, 2, 1e-9);
    figures(g, "c", 4, 0, 1e-9);
    figures(g, "d", 1, 0, 1e-9);
    figures(g, "orphan", 1, 0, 1e-9);
    ck_assert(ttotals_row(g, 0, tfind(g, "a")).vertex_total == 8);
    cgprop_cycle_row c = cycle_of(g, "b");
    ck_assert_uint_eq(c.nmembers, 2);
    ck_assert_uint_eq(c.self, 5);
    ck_assert(c.total == 8);
    /* main -> a carries the cycle's 5 + 3; b -> c half of c's 4. */
    cgprop_edge_total_row et;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, 0, edge_id(g, "main", "a"), &et, sizeof et),
                     CGPROP_OK);
    ck_assert(et.gprof_self == 5 && et.gprof_child == 3);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, 0, edge_id(g, "b", "c"), &et, sizeof et),
                     CGPROP_OK);
    ck_assert(et.gprof_self == 2 && et.gprof_child == 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(names)
{
    /* Two static functions of one name ([2] and [3]) stay two functions;
     * a callee gprof lists without an entry of its own ([4]) is made from
     * its name. */
    static const char t[] =
        "index % time    self  children    called     name\n"
        "[1]    100.0    0.01    0.02                 main [1]\n"
        "                0.01    0.00       1/1           helper [2]\n"
        "                0.01    0.00       1/1           helper [3]\n"
        "                0.00    0.00       7/7           unlisted thing [4]\n"
        "-----------------------------------------------\n"
        "                0.01    0.00       1/1           main [1]\n"
        "[2]     33.3    0.01    0.00       1         helper [2]\n"
        "-----------------------------------------------\n"
        "                0.01    0.00       1/1           main [1]\n"
        "[3]     33.3    0.01\t   0.00       1         helper [3]\n"
        "-----------------------------------------------\n";
    cgprop_graph *g = rd(t, sizeof t - 1, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 4);
    ck_assert_uint_eq(tself(g, "helper", 0), 1);
    ck_assert_uint_eq(tself(g, "\t[3]\thelper", 0), 1);
    ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, "\t[3]\thelper"), NULL), "helper");
    ck_assert_uint_eq(tedge(g, "main", "unlisted thing", 0).count, 7);
    ck_assert_uint_eq(tself(g, "unlisted thing", 0), 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(bsd_header)
{
    /* The older layout: column names between two "called/total" lines. */
    static const char t[] =
        "                                  called/total       parents \n"
        "index  %time    self descendents  called+self    name    \tindex\n"
        "                                  called/total       children\n"
        "\n"
        "                                                     <spontaneous>\n"
        "[1]    100.0    0.02        0.01                 main [1]\n"
        "                0.01        0.00       2/2           f [2]\n"
        "-----------------------------------------------\n"
        "                0.01        0.00       2/2           main [1]\n"
        "[2]     33.3    0.01        0.00       2         f [2]\n"
        "-----------------------------------------------\n";
    cgprop_graph *g = rd(t, sizeof t - 1, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, "main", 0), 2);
    ck_assert_uint_eq(tedge(g, "main", "f", 0).count, 2);
    tanalyse(g, CGPROP_SHARE_AUTO);
    figures(g, "main", 2, 1, 1e-9);
    cgprop_graph_free(g);

    /* gprof -b -T as it is printed: a blank line after every "-----" (not
     * the graph's end), then a form feed and the flat profile, whose lines
     * end in the index; h is only there (no call reached it). */
    static const char whole[] =
        "\ngranularity: each sample hit covers 2 byte(s) for 25.00% of 0.04 seconds\n\n"
        "                                  called/total       parents \n"
        "index  %time    self descendants  called+self    name    \tindex\n"
        "                                  called/total       children\n"
        "\n"
        "                                                     <spontaneous>\n"
        "[1]     75.0    0.02        0.01                 main [1]\n"
        "                0.01        0.00       2/2           f [2]\n"
        "\n"
        "-----------------------------------------------\n"
        "\n"
        "                0.01        0.00       2/2           main [1]\n"
        "[2]     25.0    0.01        0.00       2         f [2]\n"
        "\n"
        "-----------------------------------------------\n"
        "\n"
        "\f\n"
        "\ngranularity: each sample hit covers 2 byte(s) for 25.00% of 0.04 seconds\n\n"
        "  %   cumulative   self              self     total           \n"
        " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
        " 50.0       0.02     0.02                             main [1]\n"
        " 25.0       0.03     0.01        2     5.00     5.00  f [2]\n"
        " 25.0       0.04     0.01                             h [3]\n"
        "\n"
        "Index by function name\n\n   [2] f                       [3] h                       [1] main\n";
    g = rd(whole, sizeof whole - 1, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(tself(g, "main", 0), 2);
    ck_assert_uint_eq(tself(g, "f", 0), 1);
    ck_assert_uint_eq(tself(g, "h", 0), 1);
    ck_assert_uint_eq(tedge(g, "main", "f", 0).count, 2);
    cgprop_graph_free(g);
    ck_assert_uint_eq(cgprop_read_detect(whole, sizeof whole - 1), CGPROP_INPUT_GPROF);
}
END_TEST

static void bad(const char *body, int code, uint64_t line, const char *what)
{
    char text[2048];
    snprintf(text, sizeof text, "index %% time    self  children    called     name\n%s", body);
    /* In a block of its own size, so that a read past the end is one the
     * sanitizers see. */
    size_t len = strlen(text);
    char *exact = malloc(len);
    ck_assert(exact != NULL);
    memcpy(exact, text, len);
    tread_bad(exact, len, "s.gprof", CGPROP_INPUT_GPROF, code, line, what);
    free(exact);
}

#define E1 "[1]    100.0    0.01    0.00                 main [1]\n"
#define SEP "-----------------------------------------------\n"

START_TEST(malformed)
{
    /* A call to a function gprof's options left out of the graph (-e burn
     * prints "burn (5)"): the graph is partial, refused. */
    bad(E1 "                0.14    0.00    3492/10250       burn (5)\n" SEP, CGPROP_EFORMAT, 3, "leaves functions out");
    bad("                0.24    0.30     300/300         main (1)\n" E1 SEP, CGPROP_EFORMAT, 2, "run gprof without");
    bad("[x]    100.0    0.01    0.00                 main [1]\n", CGPROP_EFORMAT, 2, "bad entry index");
    bad("[1]    100.0    0.01    main [1]\n", CGPROP_EFORMAT, 2, "an entry needs");
    bad("[1]    100.0    0.01    0.00                 main [2]\n", CGPROP_EFORMAT, 2, "an entry needs");
    bad(E1 E1, CGPROP_EFORMAT, 3, "two entry lines");
    bad(E1 "                0.01    0.00       1/4           c\n", CGPROP_EFORMAT, 3, "a call line needs");
    /* Only an index after the blanks: the fields are empty, and nothing is
     * read before the line or past the input's end. */
    bad(E1 "                [5]", CGPROP_EFORMAT, 3, "a call line needs");
    bad(E1 "                [5]\n", CGPROP_EFORMAT, 3, "a call line needs");
    bad(E1 "                0.01    0.00       x/4           c [1]\n", CGPROP_EFORMAT, 3, "bad call count");
    bad(E1 "       99999999999999999999999/4           c [1]\n", CGPROP_EOVERFLOW, 3, "call count too large");
    bad(E1 "                0.01    0.00       1/4           c [99]\n", CGPROP_EFORMAT, 3, "index [99] out of range");
    bad(E1 SEP E1, CGPROP_EFORMAT, 4, "a second entry [1]");
    bad("[1]    100.0    999999999999999999.00    0.00                 main [1]\n", CGPROP_EOVERFLOW, 2,
        "self seconds too large");
    bad("[1]    100.0    0.0.1    0.00                 main [1]\n", CGPROP_EFORMAT, 2, "bad self seconds");
    bad(E1 "                                                 <spontaneous>\n", CGPROP_EFORMAT, 3,
        "<spontaneous> below an entry");
    bad("                                                 <spontaneous>\n" SEP, CGPROP_EFORMAT, 3,
        "<spontaneous> without an entry line");
    bad(SEP, CGPROP_EFORMAT, 2, "no function in the profile");
    /* gprof -l: an entry per source line, "name (file:line @ address)". */
    bad("[2]     39.8    0.49    0.00     150         helper (cyc.c:14 @ 1362) [2]\n", CGPROP_EFORMAT, 2,
        "a line-by-line report (gprof -l)");
    /* A C++ name whose parameters hold no such suffix is a name. */
    bad("[2]     39.8    0.49    0.00     150         f(int (*)(char), long) [2]\n" SEP "[2] x\n", CGPROP_EFORMAT, 4,
        "an entry needs");
    /* Neither section at all. */
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_GPROF;
    ck_assert_int_eq(cgprop_read_buffer("hello\nworld\n", 12, "h", 1, &o, NULL, &g, NULL, &err), CGPROP_EFORMAT);
    ck_assert_str_eq(err.reason, "no flat profile or call graph");
    ck_assert_uint_eq(err.line, 2);
    ck_assert(g == NULL);
    /* What `gprof -b -p` prints: a flat profile alone names no call, so y
     * (50 calls at 5.61 ms each, gprof says, most of it in its callees)
     * would get its self 0.04 s as an exact total. Refused. */
    static const char flat_only[] = "Flat profile:\n\n"
                                    "Each sample counts as 0.01 seconds.\n"
                                    "  %   cumulative   self              self     total           \n"
                                    " time   seconds   seconds    calls  ms/call  ms/call  name    \n"
                                    " 39.62      0.36     0.36      150     2.40     2.40  helper\n"
                                    "  4.40      0.91     0.04       50     0.80     5.61  y\n"
                                    "  0.00      0.91     0.00       50     0.00     2.40  x\n";
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer(flat_only, sizeof flat_only - 1, "p", 1, &o, NULL, &g, NULL, &err),
                     CGPROP_EFORMAT);
    ck_assert_msg(!strncmp(err.reason, "a flat profile without its call graph", 37), "%s", err.reason);
    ck_assert(g == NULL);
}
END_TEST

/* Every entry takes a line, so an index must not pass the input's line
 * count. The lines are not counted ahead: a call line's index past the
 * lines read so far is checked once the graph has been read, and the first
 * one out of range is still the error, before any error of a later line. */
#define HDR "index % time    self  children    called     name\n"
#define ARC(n) "                0.01    0.00       1/4           c [" #n "]\n"

START_TEST(index_bound)
{
    /* Three lines: [3] is within; c has no entry and takes the call line's name. */
    static const char in3[] = HDR E1 ARC(3);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(in3, sizeof in3 - 1, &info);
    ck_assert_uint_eq(info.lines, 3);
    ck_assert_uint_eq(tedge(g, "main", "c", 0).count, 1);
    cgprop_graph_free(g);
    /* Four lines, the last without its newline: [4] is within. */
    static const char in4[] = HDR E1 ARC(4) "-----------------------------------------------";
    cgprop_read_info_init(&info);
    g = rd(in4, sizeof in4 - 1, &info);
    ck_assert_uint_eq(info.lines, 4);
    ck_assert_uint_eq(tedge(g, "main", "c", 0).count, 1);
    cgprop_graph_free(g);
    bad(E1 ARC(4), CGPROP_EFORMAT, 3, "index [4] out of range");
    bad(E1 ARC(5) SEP, CGPROP_EFORMAT, 3, "index [5] out of range");
    /* Line 4's index is past the 5 lines; line 5 is wrong too. */
    bad(E1 ARC(2) ARC(99) E1, CGPROP_EFORMAT, 4, "index [99] out of range");
    bad(E1 ARC(4294967295) E1, CGPROP_EFORMAT, 3, "index [4294967295] out of range");
    /* Line 3's index is within the 5 lines: line 4's error stands. */
    bad(E1 ARC(4) E1 SEP, CGPROP_EFORMAT, 4, "two entry lines");
}
END_TEST

/* The reader makes an entry's function a few entries after reading its
 * line (so that the look-ups of several overlap): an entry's error must
 * still come before the errors of the lines after it, and after those of
 * the lines before it. */
#define EN(n, name) "[" #n "]    100.0    0.01    0.00                 " name " [" #n "]\n"

START_TEST(entry_error_order)
{
    /* A second entry [1] (line 4), then a bad entry line (6). */
    bad(E1 SEP E1 SEP "[x]    100.0    0.01    0.00                 f [7]\n", CGPROP_EFORMAT, 4,
        "a second entry [1]");
    /* A second entry [1] (line 4), then a call line whose index is past
     * every line (5, checked at the end): the entry's error. */
    bad(E1 SEP E1 ARC(99) SEP, CGPROP_EFORMAT, 4, "a second entry [1]");
    /* The call line first (3), then the second entry (5): the call's. */
    bad(E1 ARC(99) SEP E1, CGPROP_EFORMAT, 3, "index [99] out of range");
    /* An entry's own index past the input's lines, then a bad line. */
    bad(EN(9, "main") SEP "[x]\n", CGPROP_EFORMAT, 2, "index [9] out of range");
    /* The second entry [1] (line 4) followed by more entries than the
     * reader holds back, then a bad line: still the entry's error. */
    bad(E1 SEP E1 SEP EN(2, "f2") SEP EN(3, "f3") SEP EN(4, "f4") SEP EN(5, "f5") SEP EN(6, "f6") SEP
        EN(7, "f7") SEP EN(8, "f8") SEP EN(9, "f9") SEP EN(10, "f10") SEP EN(11, "f11") SEP "[x]\n",
        CGPROP_EFORMAT, 4, "a second entry [1]");
    /* Many entries, each calling the next: every call is kept, from the
     * entry above it. */
    char t[8192];
    size_t n = (size_t)snprintf(t, sizeof t, "%s", HDR);
    for (int i = 1; i <= 40; i++) {
        n += (size_t)snprintf(t + n, sizeof t - n, "[%d]    100.0    0.01    0.00                 f%d [%d]\n", i, i, i);
        if (i < 40) n += (size_t)snprintf(t + n, sizeof t - n, "                0.01    0.00       %d/%d           f%d [%d]\n", i, i, i + 1, i + 1);
        n += (size_t)snprintf(t + n, sizeof t - n, "%s", SEP);
    }
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(t, n, &info);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 40);
    for (int i = 1; i < 40; i++) {
        char a[8], b[8];
        snprintf(a, sizeof a, "f%d", i);
        snprintf(b, sizeof b, "f%d", i + 1);
        ck_assert_uint_eq(tedge(g, a, b, 0).count, (uint64_t)i);
    }
    cgprop_graph_free(g);
}
END_TEST

/* Calls are added in batches that keep a caller's calls together where
 * they fit: entries with a few callees each, past a batch's size, and one
 * entry with more callees than a batch holds; the calls waiting for their
 * callee's entry fill more than one of the reader's blocks (2^17 calls).
 * Every call keeps its count. */
START_TEST(many_calls)
{
    enum { NE = 1600, FAN = 3, BIG = 140000 };
    size_t cap = (size_t)(NE * (FAN + 2) + 3 * BIG + 16) * 100, n = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    n += (size_t)snprintf(t + n, cap - n, "%s", HDR);
    /* f1 .. fNE: f_i calls f_{i+1} .. f_{i+FAN} (within NE), counts i * 10 + k. */
    for (int i = 1; i <= NE; i++) {
        n += (size_t)snprintf(t + n, cap - n, "[%d]    1.0    0.01    0.00                 f%d [%d]\n", i, i, i);
        for (int k = 1; k <= FAN && i + k <= NE; k++)
            n += (size_t)snprintf(t + n, cap - n, "                0.00    0.00       %d/%d           f%d [%d]\n",
                                  i * 10 + k, i * 10 + k, i + k, i + k);
        if (i == NE / 2)
            for (int k = 1; k <= BIG; k++)
                n += (size_t)snprintf(t + n, cap - n, "                0.00    0.00       %d/%d           g%d [%d]\n", k,
                                      k, k, NE + k);
        n += (size_t)snprintf(t + n, cap - n, "%s", SEP);
    }
    for (int k = 1; k <= BIG; k++)
        n += (size_t)snprintf(t + n, cap - n, "[%d]    1.0    0.01    0.00                 g%d [%d]\n%s", NE + k, k,
                              NE + k, SEP);
    cgprop_graph *g = rd(t, n, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), NE + BIG);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), (size_t)(NE * FAN - FAN * (FAN + 1) / 2 + BIG));
    for (int i = 1; i <= NE; i++)
        for (int k = 1; k <= FAN && i + k <= NE; k++) {
            char a[16], b[16];
            snprintf(a, sizeof a, "f%d", i);
            snprintf(b, sizeof b, "f%d", i + k);
            ck_assert_uint_eq(tedge(g, a, b, 0).count, (uint64_t)(i * 10 + k));
        }
    for (int k = 1; k <= BIG; k++) {
        char a[16], b[16];
        snprintf(a, sizeof a, "f%d", NE / 2);
        snprintf(b, sizeof b, "g%d", k);
        ck_assert_uint_eq(tedge(g, a, b, 0).count, (uint64_t)k);
    }
    cgprop_graph_free(g);
    free(t);
}
END_TEST

/* One call main -> a of count 12345, a's self 0.07 s, in the spellings the
 * reader's fast field split takes and those it leaves to the general one:
 * each must read as the same call. */
static void one_call(const char *arc, const char *name, uint64_t count)
{
    char t[1024];
    snprintf(t, sizeof t,
             "index %% time    self  children    called     name\n"
             "[2]     70.0    0.07    0.00   12345         %s [2]\n"
             "-----------------------------------------------\n"
             "[1]    100.0    0.01    0.07                 main [1]\n"
             "%s",
             name, arc);
    cgprop_graph *g = rd(t, strlen(t), NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, name, 0), 7);
    ck_assert_uint_eq(tself(g, "main", 0), 1);
    ck_assert_uint_eq(tedge(g, "main", name, 0).count, count);
    cgprop_graph_free(g);
}

#define LONGNAME "a_function_name_long_enough_to_reach_past_the_first_sixty_four_bytes_of_its_line"

START_TEST(line_shapes)
{
    one_call("                0.07    0.00   12345/12345        a [2]\n", "a", 12345);
    one_call("\t\t0.07\t0.00\t12345/12345\ta [2]\n", "a", 12345);
    one_call("                0.07 \t  0.00   12345/12345        a [2]  \t\n", "a", 12345);
    one_call("                0.07    0.00   12345/12345        a[2]\r\n", "a", 12345);
    one_call("                0.07    0.00   0012345/12345      a [0002]\n", "a", 12345);
    one_call("                0.07    0.00   12345              a [2]\n", "a", 12345);
    one_call("                0.07    0.00   12345/12345        " LONGNAME " [2]\n", LONGNAME, 12345);
    /* The last line, without its newline: fewer bytes than a block left. */
    one_call("                0.07    0.00   12345/12345        a [2]", "a", 12345);
    one_call("  0.07 0.00 12345 a [2]", "a", 12345);
    /* 19 digits are summed directly; 20 take the checked parse. */
    one_call("                0.07    0.00   1234567890123456789/1234567890123456789 a [2]\n", "a",
             1234567890123456789ull);
    one_call("                0.07    0.00   18446744073709551615/18446744073709551615 a [2]\n", "a",
             18446744073709551615ull);
    bad("[2]     70.0    0.07    0.00   1         a [2]\n" SEP E1
        "                0.07    0.00   18446744073709551616/1 a [2]\n",
        CGPROP_EOVERFLOW, 5, "call count too large");
    /* A field that only starts like a number is part of the name. */
    bad("[2]     70.0    0.07    0.00   1         a [2]\n" SEP E1 "                0.07    0.00   12345x/1 a [2]\n",
        CGPROP_EFORMAT, 5, "bad call count");
}
END_TEST

START_TEST(detect)
{
    ck_assert_uint_eq(cgprop_read_detect(hand, sizeof hand - 1), CGPROP_INPUT_GPROF);
    size_t n;
    char *d = tslurp(DATA "/gprof/cycles.gprof", &n);
    ck_assert_uint_eq(cgprop_read_detect(d, n), CGPROP_INPUT_GPROF);
    static const char cg_only[] = "\t\t     Call graph\n\nindex % time    self  children    called     name\n";
    ck_assert_uint_eq(cgprop_read_detect(cg_only, sizeof cg_only - 1), CGPROP_INPUT_GPROF);
    ck_assert_uint_eq(cgprop_read_detect("Flat profiles 1\n", 16), CGPROP_INPUT_FOLDED);
    free(d);
}
END_TEST

/* The real report: gprof's own printed figures for every entry of
 * cycles.gprof, in hundredths of a second, against cgprop's collapse.
 * gprof prints to 0.01 s; its self figures are whole samples, so exact. */
START_TEST(real_report)
{
    size_t n;
    char *d = tslurp(DATA "/gprof/cycles.gprof", &n);
    cgprop_graph *g = rd(d, n, NULL);
    tanalyse(g, CGPROP_SHARE_AUTO);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 7);
    static const struct {
        const char *name;
        double self, child;
    } want[] = {{"main", 0, 140}, {"pong", 29, 25}, {"walk", 28, 26}, {"burn", 33, 0},
                {"leaf", 21, 11}, {"ping", 22, 1},  {"pang", 7, 0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_uint_eq(tself(g, want[i].name, 0), (uint64_t)want[i].self);
        figures(g, want[i].name, want[i].self, want[i].child, 0.5 + 1e-6);
    }
    /* <cycle 1 as a whole>: self 0.58, children 0.27. */
    cgprop_cycle_row c = cycle_of(g, "pong");
    ck_assert_uint_eq(c.nmembers, 3);
    ck_assert_uint_eq(c.self, 58);
    ck_assert_msg(fabs(c.total - 85) <= 0.5 + 1e-6, "cycle total %g", c.total);
    ck_assert_uint_eq(tedge(g, "walk", "walk", 0).count, 4425);
    ck_assert_uint_eq(tedge(g, "pang", "ping", 0).count, 1767);
    cgprop_graph_free(g);
    free(d);
}
END_TEST

START_TEST(alloc_failures)
{
    tfail_read_sweep(hand, sizeof hand - 1, "a", 100000);
    size_t n;
    char *d = tslurp(DATA "/gprof/cycles.gprof", &n);
    tfail_read_sweep(d, n, "a", 100000);
    free(d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gprof");
    TCase *tc = tcase_create("gprof");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, hand_made);
    tcase_add_test(tc, names);
    tcase_add_test(tc, bsd_header);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, index_bound);
    tcase_add_test(tc, entry_error_order);
    tcase_add_test(tc, many_calls);
    tcase_add_test(tc, line_shapes);
    tcase_add_test(tc, detect);
    tcase_add_test(tc, real_report);
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
