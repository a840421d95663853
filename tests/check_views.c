/* View controls of the text and DOT writers (root, leaf, focus, hide, top,
 * thresholds on text, strip, wrap, colour maps, labels) on small graphs
 * whose figures are worked out by hand in the comments. */
#include <check.h>
#include "ck_quiet.h"
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_io.h"
#include "support.h"

static uint32_t node(cgprop_graph *g, const char *key) { return tnode(g, key); }

static void stack(cgprop_graph *g, const uint32_t *s, size_t n, uint64_t w)
{
    ck_assert_int_eq(cgprop_graph_add_stack(g, s, n, &w), CGPROP_OK);
}

enum { MAIN, PARSE, LEX, EVAL, ALLOC };

/* Stacks (weight): main 10 / main;parse 20 / main;parse;lex 30 /
 * main;parse;alloc 5 / main;eval 25 / main;eval;alloc 10. Program 100.
 * Totals: main 100, parse 55, lex 30, eval 35, alloc 15 (all exact, no
 * recursion). Calls: main→parse 55, parse→lex 30, parse→alloc 5,
 * main→eval 35, eval→alloc 10. */
static cgprop_graph *prog_graph(void)
{
    cgprop_graph *g = NULL;
    const char *names[1] = {"ns"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    ck_assert_uint_eq(node(g, "main"), MAIN);
    ck_assert_uint_eq(node(g, "parse"), PARSE);
    ck_assert_uint_eq(node(g, "lex"), LEX);
    ck_assert_uint_eq(node(g, "eval"), EVAL);
    ck_assert_uint_eq(node(g, "alloc"), ALLOC);
    uint32_t s1[] = {MAIN}, s2[] = {MAIN, PARSE}, s3[] = {MAIN, PARSE, LEX}, s4[] = {MAIN, PARSE, ALLOC},
             s5[] = {MAIN, EVAL}, s6[] = {MAIN, EVAL, ALLOC};
    stack(g, s1, 1, 10);
    stack(g, s2, 2, 20);
    stack(g, s3, 3, 30);
    stack(g, s4, 3, 5);
    stack(g, s5, 2, 25);
    stack(g, s6, 3, 10);
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    return g;
}

static cgprop_write_options opts0(void)
{
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.node_thres = 0;
    o.edge_thres = 0;
    return o;
}

static int has(const char *text, const char *needle) { return strstr(text, needle) != NULL; }

#define HAS(t, s) ck_assert_msg(has(t, s), "no '%s' in:\n%s", s, t)
#define HASNT(t, s) ck_assert_msg(!has(t, s), "'%s' should not be in:\n%s", s, t)

/* A text row of the flat profile for one function: "%total total ... name". */
static int flat_row(const char *text, const char *name)
{
    char needle[64];
    snprintf(needle, sizeof needle, "  exact      %s\n", name);
    const char *flat = strstr(text, "Flat profile");
    const char *end = strstr(text, "Call graph");
    const char *p = flat ? strstr(flat, needle) : NULL;
    return p && (!end || p < end);
}

START_TEST(hide_keeps_figures_in_callers)
{
    cgprop_graph *g = prog_graph();
    cgprop_write_options o = opts0();
    uint32_t hide[] = {ALLOC};
    o.hide = hide;
    o.nhide = 1;
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* parse keeps 55 % and self 20 %; its call into alloc (5) is its hidden part. */
    HAS(d, "label=\"parse\\n55.00%\\n(20.00%)\\nhidden 5.00%\"");
    HAS(d, "label=\"eval\\n35.00%\\n(25.00%)\\nhidden 10.00%\"");
    HAS(d, "label=\"main\\n100.00%\\n(10.00%)\"");
    HAS(d, "4 of 5 functions shown");
    HASNT(d, "n4 [");
    HASNT(d, "-> n4");
    free(d);
    char *t = trender(g, CGPROP_FORMAT_TEXT, &o);
    HAS(t, "View: 4 of 5 functions shown");
    ck_assert(flat_row(t, "parse"));
    ck_assert(!flat_row(t, "alloc"));
    /* parse's entry: lex 30 listed, then the hidden line with alloc's 5. */
    const char *e = strstr(t, "parse [");
    ck_assert_ptr_nonnull(e);
    HAS(t, "                             5                                      0              (hidden: 1 callee)\n");
    HAS(t, "                            10                                      0              (hidden: 1 callee)\n");
    free(t);
    /* Marked as an estimate when the figures are the heuristic. */
    o.flags = CGPROP_W_HEURISTIC_ONLY;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "label=\"parse\\n~55.00%\\n(20.00%)\\nhidden ~5.00%\"");
    free(d);
    t = trender(g, CGPROP_FORMAT_TEXT, &o);
    HAS(t, "                            ~5                                      0              (hidden: 1 callee)\n");
    free(t);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(root_and_depth)
{
    cgprop_graph *g = prog_graph();
    cgprop_write_options o = opts0();
    uint32_t roots[] = {PARSE};
    o.roots = roots;
    o.nroots = 1;
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* parse reaches lex and alloc; alloc keeps its whole 15 % (10 of it from
     * eval, not shown). */
    HAS(d, "3 of 5 functions shown");
    HAS(d, "label=\"alloc\\n15.00%\\n(15.00%)\"");
    HAS(d, "label=\"parse\\n55.00%\\n(20.00%)\"");
    HASNT(d, "label=\"main");
    HASNT(d, "label=\"eval");
    free(d);
    char *t = trender(g, CGPROP_FORMAT_TEXT, &o);
    /* alloc's entry: parse 5 listed, eval's 10 as the hidden caller. */
    HAS(t, "                            10                                      0              (hidden: 1 caller)\n");
    free(t);

    /* main to depth 1: main, parse, eval; parse's hidden part 30 + 5. */
    roots[0] = MAIN;
    o.depth = 1;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "3 of 5 functions shown");
    HAS(d, "label=\"parse\\n55.00%\\n(20.00%)\\nhidden 35.00%\"");
    HAS(d, "label=\"eval\\n35.00%\\n(25.00%)\\nhidden 10.00%\"");
    HAS(d, "n0 -> n1 ");
    free(d);
    /* Depth 0: main alone, everything it calls hidden (55 + 35). */
    o.depth = 0;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "1 of 5 functions shown");
    HAS(d, "label=\"main\\n100.00%\\n(10.00%)\\nhidden 90.00%\"");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(leaf_focus_top)
{
    cgprop_graph *g = prog_graph();
    cgprop_write_options o = opts0();
    uint32_t leaves[] = {ALLOC};
    o.leaves = leaves;
    o.nleaves = 1;
    o.depth = 1;
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* Callers of alloc one call up: parse and eval; parse's lex (30) hidden. */
    HAS(d, "3 of 5 functions shown");
    HAS(d, "label=\"parse\\n55.00%\\n(20.00%)\\nhidden 30.00%\"");
    HAS(d, "label=\"eval\\n35.00%\\n(25.00%)\"");
    HASNT(d, "label=\"main");
    free(d);

    cgprop_write_options f = opts0();
    uint32_t focus[] = {LEX};
    f.focus = focus;
    f.nfocus = 1;
    d = trender(g, CGPROP_FORMAT_DOT, &f);
    /* Paths through lex: main, parse, lex. main's eval (35) and parse's
     * alloc (5) are hidden. */
    HAS(d, "3 of 5 functions shown");
    HAS(d, "label=\"main\\n100.00%\\n(10.00%)\\nhidden 35.00%\"");
    HAS(d, "label=\"parse\\n55.00%\\n(20.00%)\\nhidden 5.00%\"");
    HASNT(d, "label=\"eval");
    free(d);

    cgprop_write_options t = opts0();
    t.top = 2;
    d = trender(g, CGPROP_FORMAT_DOT, &t);
    /* The two largest totals: main 100, parse 55. */
    HAS(d, "2 of 5 functions shown");
    HAS(d, "label=\"main\\n100.00%\\n(10.00%)\\nhidden 35.00%\"");
    HAS(d, "label=\"parse\\n55.00%\\n(20.00%)\\nhidden 35.00%\"");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(text_thresholds)
{
    cgprop_graph *g = prog_graph();
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.node_thres = 20;
    o.edge_thres = 10;
    /* Without the flag the text shows every function. */
    char *t = trender(g, CGPROP_FORMAT_TEXT, &o);
    ck_assert(flat_row(t, "alloc"));
    HASNT(t, "hidden");
    free(t);
    o.flags = CGPROP_W_PRUNE_TEXT;
    t = trender(g, CGPROP_FORMAT_TEXT, &o);
    /* alloc (15 %) is below 20 %: gone; parse's 5 and eval's 10 are hidden. */
    HAS(t, "View: 4 of 5 functions shown");
    ck_assert(!flat_row(t, "alloc"));
    ck_assert(flat_row(t, "eval"));
    HAS(t, "                             5                                      0              (hidden: 1 callee)\n");
    HAS(t, "                            10                                      0              (hidden: 1 callee)\n");
    free(t);
    /* Thresholds 0 and edge 10 %: parse→alloc (5 %) is not listed, eval→alloc
     * (10 %) is; alloc shows parse's 5 as its hidden caller. */
    o.node_thres = 0;
    t = trender(g, CGPROP_FORMAT_TEXT, &o);
    ck_assert(flat_row(t, "alloc"));
    HAS(t, "                             5                                      0              (hidden: 1 caller)\n");
    HAS(t, "                             5                                      0              (hidden: 1 callee)\n");
    free(t);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(labels)
{
    cgprop_graph *g = prog_graph();
    cgprop_write_options o = opts0();
    o.label = CGPROP_LABEL_TOTAL | CGPROP_LABEL_SELF;
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "label=\"parse\\n55\\n(20)\"");
    /* Arrows: the call's total in the unit. */
    HAS(d, "label=\"30\"];");
    free(d);
    o.label = CGPROP_LABEL_SELF_PCT;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "label=\"lex\\n(30.00%)\"");
    HAS(d, "label=\"\"];");
    free(d);
    o.label = CGPROP_LABEL_TOTAL_PCT | CGPROP_LABEL_TOTAL;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "label=\"eval\\n35.00%\\n35\"");
    HAS(d, "label=\"10.00%\\n10\"];");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(colour_maps)
{
    cgprop_graph *g = prog_graph();
    cgprop_write_options o = opts0();
    /* main at weight 1: color is HSL(0, 1, .5), pure red. */
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "n0 [color=\"#ff0000\"");
    free(d);
    /* gray at parse's .55: l = .85 − .55·.85 = .3825, gamma 2.2: .3825^2.2 =
     * .12073, ·255 + .5 → 31 = 0x1f. */
    o.colormap = CGPROP_COLORMAP_GRAY;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "n1 [color=\"#1f1f1f\", fontcolor=\"#ffffff\", fontsize=\"10.00\"");
    HAS(d, "n0 [color=\"#000000\"");
    free(d);
    /* pink at .55: l = .9 − .55·.4 = .68, s 1: m2 = 1, m1 = .36; red 1, green
     * and blue .36^2.2 = .10565 → 27 = 0x1b. */
    o.colormap = CGPROP_COLORMAP_PINK;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "n1 [color=\"#ff1b1b\"");
    free(d);
    /* print: outlines, text in the colour; font max(.55²·30, 18) = 18 for
     * parse, 30 for main. */
    o.colormap = CGPROP_COLORMAP_PRINT;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "n1 [color=\"#000000\", fontcolor=\"#000000\", fontsize=\"18.00\", style=\"solid\"");
    HAS(d, "n0 [color=\"#000000\", fontcolor=\"#000000\", fontsize=\"30.00\", style=\"solid\"");
    free(d);
    /* bw: font max(w²·24, 8): parse .3025·24 = 7.26 → 8; arrow main→parse
     * pen max(.55·8, .1) = 4.40. */
    o.colormap = CGPROP_COLORMAP_BW;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "n1 [color=\"#000000\", fontcolor=\"#ffffff\", fontsize=\"8.00\"");
    HAS(d, "penwidth=\"4.40\"");
    free(d);
    /* Skew 3 on color, lex at .3: f = (3^.3 − 1)/(3 − 1) = .19519; h = 2/3·(1 − f)
     * = .53654, s = .8 + .2f = .83904, l = .25 + .25f = .29880; through HSL
     * (Python's colorsys.hls_to_rgb, gamma 1) → (12, 112, 140) = #0c708c. */
    o.colormap = CGPROP_COLORMAP_COLOR;
    o.skew = 3;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "n2 [color=\"#0c708c\"");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

static cgprop_graph *names_graph(const char *const *keys, size_t n)
{
    cgprop_graph *g = NULL;
    const char *names[1] = {"ns"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    uint32_t root = node(g, "main");
    for (size_t i = 0; i < n; i++) {
        uint32_t s[2] = {root, node(g, keys[i])};
        stack(g, s, 2, 10);
    }
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    return g;
}

START_TEST(strip_and_wrap)
{
    const char *keys[] = {"a::f(int)",
                          "a::f(double)",
                          "std::map<int, std::vector<int> >::find(int const&) const",
                          "void foo::bar(std::string const&, int, unsigned long long, double)",
                          "g(h(i)",
                          "main.(*T).M",
                          "runtime.(*sweepLocked).sweep",
                          "main.(*Box[...]).Grow.func1"};
    cgprop_graph *g = names_graph(keys, 8);
    cgprop_write_options o = opts0();
    o.flags = CGPROP_W_STRIP;
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* Two overloads strip to one name: the id tells them apart. */
    HAS(d, "label=\"a::f [#1]\\n");
    HAS(d, "label=\"a::f [#2]\\n");
    HAS(d, "label=\"std::map::find\\n");
    HAS(d, "label=\"void foo::bar\\n");
    /* An unmatched '(' stays, the matched "(i)" goes. */
    HAS(d, "label=\"g(h\\n");
    /* A Go method's receiver is no argument list (gprof2dot's rule gives
     * "main..M"); the brackets of a generic type go with it. */
    HAS(d, "label=\"main.(*T).M\\n");
    HAS(d, "label=\"runtime.(*sweepLocked).sweep\\n");
    HAS(d, "label=\"main.(*Box[...]).Grow.func1\\n");
    free(d);
    char *t = trender(g, CGPROP_FORMAT_TEXT, &o);
    HAS(t, "  std::map::find\n");
    free(t);
    o.flags = CGPROP_W_WRAP;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* gprof2dot's textwrap at 32, then ", " closed up (Python's
     * textwrap.fill gives the same lines). */
    HAS(d, "label=\"void foo::bar(std::string\\nconst&,int,unsigned long long,\\ndouble)\\n");
    HAS(d, "label=\"std::map<int,std::vector<int>\\n>::find(int const&) const\\n");
    HAS(d, "label=\"a::f(int)\\n");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

/* A pruned picture of many calls, most of them between functions it drops:
 * main 10000 self, main;a 30000, main;a;b 50000, and main;y;l<i> 1 for
 * 100 leaves. Program 90,100. Shown at the default thresholds (0.5 % of
 * functions, 0.1 % of calls): main 100 %, a 80000 = 88.79 %, b 50000 =
 * 55.49 %; y (100, 0.11 %) and the leaves are dropped. Calls drawn: main→a
 * 88.79 %, a→b 55.49 %; main→y is main's hidden 100 = 0.11 %. Only three
 * of the 103 calls leave a function the picture shows, so the writer reads
 * the rows of those calls alone: these are the figures either way. */
START_TEST(pruned_picture_of_many_calls)
{
    cgprop_graph *g = NULL;
    const char *names[1] = {"Ir"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    uint32_t m = node(g, "main"), a = node(g, "a"), b = node(g, "b"), y = node(g, "y");
    uint32_t s1[] = {m}, s2[] = {m, a}, s3[] = {m, a, b};
    stack(g, s1, 1, 10000);
    stack(g, s2, 2, 30000);
    stack(g, s3, 3, 50000);
    for (int i = 0; i < 100; i++) {
        char key[16];
        snprintf(key, sizeof key, "l%d", i);
        uint32_t s4[] = {m, y, node(g, key)};
        stack(g, s4, 3, 1);
    }
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 103);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* main's self 10000 is 11.10 %; stacks give no call counts. */
    HAS(d, "label=\"main\\n100.00%\\n(11.10%)\\nhidden 0.11%\"");
    HAS(d, "n0 -> n1 [arrowsize");
    HAS(d, "label=\"88.79%\"];\n  n1 -> n2 [arrowsize");
    HAS(d, "label=\"55.49%\"]");
    HASNT(d, "n3 [");
    HASNT(d, "-> n3");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

/* A pruned picture names a function by what tells it apart from every
 * function, the ones it drops included. Stacks: main 100 self; main;foo
 * 400 (libA.so, a.c); main;bar 300 (libA.so, c.c); main;foo 1 (libB.so,
 * b.c); main;bar 1 (libA.so, d.c); main;baz 198 (alone). Program 1,000:
 * main 100 %, the first foo 40 %, the first bar 30 %, baz 19.80 %; the
 * second foo and bar are 0.10 % each, under the 0.5 % threshold, and
 * dropped. The first foo shares its name only with the dropped foo of
 * another object: its object tells it apart. The first bar shares name and
 * object with the dropped bar: its object and file. baz has no namesake. */
START_TEST(pruned_picture_names_apart_from_dropped_namesakes)
{
    cgprop_graph *g = NULL;
    const char *names[1] = {"Ir"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    uint32_t m = node(g, "main"), f1 = node(g, "libA.so\ta.c\tfoo"), b1 = node(g, "libA.so\tc.c\tbar"),
             f2 = node(g, "libB.so\tb.c\tfoo"), b2 = node(g, "libA.so\td.c\tbar"), z = node(g, "baz");
    uint32_t calls[][2] = {{m, f1}, {m, b1}, {m, f2}, {m, b2}, {m, z}};
    const uint64_t w[] = {400, 300, 1, 1, 198};
    stack(g, &m, 1, 100);
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) stack(g, calls[i], 2, w[i]);
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "label=\"foo [libA.so]\\n40.00%\\n(40.00%)\"");
    HAS(d, "label=\"bar [libA.so, c.c]\\n30.00%\\n(30.00%)\"");
    HAS(d, "label=\"baz\\n19.80%\\n(19.80%)\"");
    /* main's calls into the two dropped functions: 0.20 % hidden. */
    HAS(d, "label=\"main\\n100.00%\\n(10.00%)\\nhidden 0.20%\"");
    HASNT(d, "n3 [");
    HASNT(d, "n4 [");
    HASNT(d, "libB.so");
    HASNT(d, "d.c");
    free(d);
    /* Every function drawn: the dropped ones are told apart the same way. */
    o.node_thres = 0;
    o.edge_thres = 0;
    d = trender(g, CGPROP_FORMAT_DOT, &o);
    HAS(d, "label=\"foo [libA.so]\\n40.00%");
    HAS(d, "label=\"foo [libB.so]\\n0.10%");
    HAS(d, "label=\"bar [libA.so, c.c]\\n30.00%");
    HAS(d, "label=\"bar [libA.so, d.c]\\n0.10%");
    free(d);
    cgprop_graph_free(g);
}
END_TEST

/* Calls with measured costs and no recursion levels (a profile like
 * callgrind's --separate-recs=1): a and b call each other, each calls leaf.
 * Self a 2, b 3, leaf 10; main -> a cost 15, a -> leaf 6, b -> leaf 4, the
 * calls between a and b 14 and 6. The members' own totals are estimates
 * (nothing tells their levels), but a call out of the cycle is exactly its
 * measured cost, and so is main's call into it: those arrows are exact. */
START_TEST(measured_calls_drawn_exact)
{
    cgprop_graph *g = NULL;
    const char *names[1] = {"Ir"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    uint32_t m = node(g, "main"), a = node(g, "a"), b = node(g, "b"), leaf = node(g, "leaf");
    uint64_t s;
    s = 2;
    ck_assert_int_eq(cgprop_graph_add_self(g, a, &s), CGPROP_OK);
    s = 3;
    ck_assert_int_eq(cgprop_graph_add_self(g, b, &s), CGPROP_OK);
    s = 10;
    ck_assert_int_eq(cgprop_graph_add_self(g, leaf, &s), CGPROP_OK);
    const uint32_t ends[5][2] = {{m, a}, {a, b}, {b, a}, {a, leaf}, {b, leaf}};
    const uint64_t counts[5] = {1, 2, 1, 2, 1}, costs[5] = {15, 14, 6, 6, 4};
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(cgprop_graph_add_edge(g, ends[i][0], ends[i][1], counts[i], &costs[i], NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    cgprop_write_options o = opts0();
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    /* a and b are n1 and n2, leaf n3. */
    HAS(d, "style=\"filled,dashed\"");
    const char *arrows[3][2] = {{"  n0 -> n1 ", "label=\"100.00%"}, {"  n1 -> n3 ", "label=\"40.00%"},
                                {"  n2 -> n3 ", "label=\"26.67%"}};
    for (int i = 0; i < 3; i++) {
        const char *at = strstr(d, arrows[i][0]);
        ck_assert_msg(at != NULL, "no arrow '%s' in:\n%s", arrows[i][0], d);
        const char *end = strchr(at, '\n');
        char line[512];
        snprintf(line, sizeof line, "%.*s", (int)(end - at), at);
        ck_assert_msg(strstr(line, arrows[i][1]) && !strstr(line, "dashed") && !strchr(line, '~'), "%s", line);
    }
    free(d);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(bad_view_options)
{
    cgprop_graph *g = prog_graph();
    tbuf b = {NULL, 0, 0, -1};
    cgprop_write_options o = opts0();
    uint32_t bad[] = {5};
    o.roots = bad;
    o.nroots = 1;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    o = opts0();
    o.nhide = 2;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_TEXT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    o = opts0();
    o.skew = 0;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    o = opts0();
    o.label = 1u << 5;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    o = opts0();
    o.colormap = 5;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    o = opts0();
    o.flags = 1u << 9;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    /* A caller built before the view controls passes the struct ending
     * with cycles: the defaults fill the rest. */
    o = opts0();
    o.size = (uint32_t)offsetof(cgprop_write_options, roots);
    o.skew = 0; /* past its size: not read */
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_OK);
    ck_assert(has(b.p, "label=\"parse\\n55.00%\\n(20.00%)\""));
    o.size = (uint32_t)offsetof(cgprop_write_options, roots) + 4;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    free(b.p);
    cgprop_graph_free(g);
}
END_TEST

/* An allocator that refuses attempt number fail_at (0: never). */
typedef struct counter {
    size_t calls, fail_at;
} counter;

static void *c_malloc(void *user, size_t n)
{
    counter *c = user;
    if (++c->calls == c->fail_at) return NULL;
    return malloc(n);
}

static void *c_realloc(void *user, void *p, size_t n)
{
    counter *c = user;
    if (++c->calls == c->fail_at) return NULL;
    return realloc(p, n);
}

static void c_free(void *user, void *p)
{
    (void)user;
    free(p);
}

/* Every allocation of a filtered text and DOT write refused in turn: the
 * writer says CGPROP_ENOMEM (or succeeds once no attempt is left to
 * refuse), and the graph writes the same output afterwards. */
START_TEST(allocation_failures)
{
    counter c = {0, 0};
    cgprop_allocator a = {c_malloc, c_realloc, c_free, &c};
    cgprop_graph *g = NULL;
    const char *names[1] = {"ns"};
    ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 1, &g), CGPROP_OK);
    uint32_t m = node(g, "main"), p = node(g, "p(int)"), q = node(g, "q<int>");
    uint32_t s1[] = {m, p}, s2[] = {m, p, q};
    stack(g, s1, 2, 10);
    stack(g, s2, 3, 10);
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    cgprop_write_options o = opts0();
    uint32_t roots[] = {p}, hide[] = {q};
    o.roots = roots;
    o.nroots = 1;
    o.hide = hide;
    o.nhide = 1;
    o.top = 5;
    o.flags = CGPROP_W_STRIP | CGPROP_W_WRAP;
    for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_DOT; fmt += CGPROP_FORMAT_DOT - CGPROP_FORMAT_TEXT) {
        c.fail_at = 0;
        char *want = trender(g, fmt, &o);
        int done = 0;
        for (size_t k = 1; !done && k < 10000; k++) {
            tbuf b = {NULL, 0, 0, -1};
            c.calls = 0;
            c.fail_at = k;
            int rc = cgprop_write(g, fmt, &o, tbuf_sink, &b);
            if (rc == CGPROP_OK) {
                done = c.calls < k;
                if (done) ck_assert_str_eq(b.p, want);
            } else {
                ck_assert_int_eq(rc, CGPROP_ENOMEM);
            }
            free(b.p);
        }
        ck_assert(done);
        c.fail_at = 0;
        char *again = trender(g, fmt, &o);
        ck_assert_str_eq(again, want);
        free(again);
        free(want);
    }
    cgprop_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("views");
    TCase *t = tcase_create("views");
    tcase_add_test(t, hide_keeps_figures_in_callers);
    tcase_add_test(t, root_and_depth);
    tcase_add_test(t, leaf_focus_top);
    tcase_add_test(t, text_thresholds);
    tcase_add_test(t, labels);
    tcase_add_test(t, colour_maps);
    tcase_add_test(t, strip_and_wrap);
    tcase_add_test(t, pruned_picture_of_many_calls);
    tcase_add_test(t, pruned_picture_names_apart_from_dropped_namesakes);
    tcase_add_test(t, measured_calls_drawn_exact);
    tcase_add_test(t, bad_view_options);
    tcase_add_test(t, allocation_failures);
    suite_add_tcase(s, t);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
