/* cgprop_write_compare() on hand-built graphs. Every expected figure is
 * worked out by hand in the comments: stacks (exact totals on both sides),
 * an aggregated cycle without recursion levels (an estimate on both sides:
 * the change is an estimate, with the interval the two intervals imply),
 * colours, errors and allocation failures. */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_io.h"
#include "support.h"

static char *render(cgprop_graph *base, cgprop_graph *g, uint32_t format, const cgprop_write_options *o)
{
    tbuf b = {NULL, 0, 0, -1};
    int rc = cgprop_write_compare(base, g, format, o, tbuf_sink, &b);
    ck_assert_msg(rc == CGPROP_OK, "compare: %d %s", rc, cgprop_graph_errmsg(g));
    ck_assert_ptr_nonnull(b.p);
    return b.p;
}

static void stack(cgprop_graph *g, const char *path, uint64_t w)
{
    uint32_t f[8];
    size_t d = 0;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *s = strtok(tmp, ";"); s; s = strtok(NULL, ";")) f[d++] = tnode(g, s);
    ck_assert_int_eq(cgprop_graph_add_stack(g, f, d, &w), CGPROP_OK);
}

static void analyse(cgprop_graph *g) { ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK); }

/* Base: main 10 / main;a 20 / main;a;a 10 / main;b 30 / main;old 30.
 *   program 100; totals main 100, a 30 (20 + 10, once per stack), b 30, old 30.
 * New:  main 10 / main;a 20 / main;a;a 40 / main;b 10 / main;nw 120.
 *   program 200; totals main 200, a 60, b 10, nw 120.
 * Changes (absolute, percentage points of each program):
 *   nw   +120, 0 % -> 60 %: +60 pp (added)
 *   main +100, 100 % -> 100 %: 0 pp; self 10 -> 10: +0, 10 % -> 5 %: -5 pp
 *   old   -30, 30 % -> 0 %: -30 pp (removed)
 *   a     +30, 30 % -> 30 %: 0 pp; self +30, +0 pp
 *   b     -20, 30 % -> 5 %: -25 pp
 * Sorted by |change|, then |pp|: nw, main, old, a, b. */
static void stacks_pair(cgprop_graph **base, cgprop_graph **g, const cgprop_allocator *alloc)
{
    const char *m = "w";
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, base), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_new(alloc, &m, NULL, 1, g), CGPROP_OK);
    stack(*base, "main", 10);
    stack(*base, "main;a", 20);
    stack(*base, "main;a;a", 10);
    stack(*base, "main;b", 30);
    stack(*base, "main;old", 30);
    stack(*g, "main", 10);
    stack(*g, "main;a", 20);
    stack(*g, "main;a;a", 40);
    stack(*g, "main;b", 10);
    stack(*g, "main;nw", 120);
    analyse(*base);
    analyse(*g);
}

/* The text row of function `name`: its figures, in column order. */
typedef struct trow {
    char change[32], pp[32], bt[32], bp[32], nt[32], np[32], ds[32], dsp[32], rest[128];
} trow;

static trow row_of(const char *text, const char *name)
{
    trow r;
    char want[64];
    snprintf(want, sizeof want, "  %s", name);
    for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char copy[512];
        if (len >= sizeof copy) continue;
        memcpy(copy, line, len);
        copy[len] = '\0';
        char *at = strstr(copy, want);
        if (!at || (at[strlen(want)] != '\0' && at[strlen(want)] != ' ')) continue;
        memset(&r, 0, sizeof r);
        snprintf(r.rest, sizeof r.rest, "%s", at + strlen(want));
        *at = '\0';
        int n = sscanf(copy, "%31s %31s %31s %31s %31s %31s %31s %31s", r.change, r.pp, r.bt, r.bp, r.nt, r.np, r.ds,
                       r.dsp);
        ck_assert_int_eq(n, 8);
        return r;
    }
    ck_abort_msg("no row for %s in:\n%s", name, text);
    return r;
}

static void expect_row(const char *text, const char *name, const char *change, const char *pp, const char *bt,
                       const char *bp, const char *nt, const char *np, const char *ds, const char *dsp)
{
    trow r = row_of(text, name);
    ck_assert_str_eq(r.change, change);
    ck_assert_str_eq(r.pp, pp);
    ck_assert_str_eq(r.bt, bt);
    ck_assert_str_eq(r.bp, bp);
    ck_assert_str_eq(r.nt, nt);
    ck_assert_str_eq(r.np, np);
    ck_assert_str_eq(r.ds, ds);
    ck_assert_str_eq(r.dsp, dsp);
}

START_TEST(text_stacks_exact)
{
    cgprop_graph *base, *g;
    stacks_pair(&base, &g, NULL);
    char *t = render(base, g, CGPROP_FORMAT_TEXT, NULL);
    ck_assert_ptr_nonnull(strstr(t, "Program total: base 100, new 200, change +100 (+100.00% of base)"));
    ck_assert_ptr_nonnull(strstr(t, "Functions: 4 in base, 4 in new; 1 added, 1 removed, 3 changed"));
    ck_assert_ptr_nonnull(strstr(t, "5 exact, 0 estimates"));
    expect_row(t, "nw", "+120", "+60.00", "-", "-", "120", "60.00%", "+120", "+60.00");
    expect_row(t, "main", "+100", "+0.00", "100", "100.00%", "200", "100.00%", "+0", "-5.00");
    expect_row(t, "old", "-30", "-30.00", "30", "30.00%", "-", "-", "-30", "-30.00");
    expect_row(t, "a", "+30", "+0.00", "30", "30.00%", "60", "30.00%", "+30", "+0.00");
    expect_row(t, "b", "-20", "-25.00", "30", "30.00%", "10", "5.00%", "-20", "-25.00");
    ck_assert_str_eq(row_of(t, "nw").rest, " (added)");
    ck_assert_str_eq(row_of(t, "old").rest, " (removed)");
    /* Sorted by the size of the change. */
    const char *p[5] = {strstr(t, "  nw"), strstr(t, "  main"), strstr(t, "  old"), strstr(t, "  a\n"),
                        strstr(t, "  b\n")};
    for (int i = 0; i < 5; i++) ck_assert_ptr_nonnull(p[i]);
    for (int i = 0; i < 4; i++) ck_assert_msg(p[i] < p[i + 1], "row %d out of order:\n%s", i, t);
    free(t);
    /* Against itself: nothing changed. */
    t = render(g, g, CGPROP_FORMAT_TEXT, NULL);
    ck_assert_ptr_nonnull(strstr(t, "0 added, 0 removed, 0 changed"));
    expect_row(t, "a", "+0", "+0.00", "60", "30.00%", "60", "30.00%", "+0", "+0.00");
    free(t);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

/* The JSON figures of the same pair, found by plain string search on the
 * compact object of each function. */
START_TEST(json_stacks_exact)
{
    cgprop_graph *base, *g;
    stacks_pair(&base, &g, NULL);
    char *j = render(base, g, CGPROP_FORMAT_JSON, NULL);
    ck_assert_ptr_nonnull(strstr(j, "\"base\": {\"program\": 100, \"functions\": 4, \"calls\": 4}"));
    ck_assert_ptr_nonnull(strstr(j, "\"new\": {\"program\": 200, \"functions\": 4, \"calls\": 4}"));
    ck_assert_ptr_nonnull(strstr(j, "\"change\": {\"program\": 100, \"percent_of_base\": 100}"));
    /* b: 30 -> 10; -20 is -20 % of the base program, -25 pp. */
    const char *b = strstr(j, "{\"key\": \"b\"");
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(strstr(b, "\"status\": \"changed\", \"base\": {\"total\": 30, \"percent\": 30, \"self\": 30, "
                                    "\"self_percent\": 30, \"called\": 0, \"exact\": true, \"estimate\": null, "
                                    "\"bounds\": [30, 30]}, \"new\": {\"total\": 10, \"percent\": 5, \"self\": 10"));
    ck_assert_ptr_nonnull(strstr(b, "\"change\": {\"total\": -20, \"percent_points\": -25, \"percent_of_base\": -20, "
                                    "\"self\": -20, \"self_percent_points\": -25, \"exact\": true, "
                                    "\"bounds\": [-20, -20]}"));
    const char *old = strstr(j, "{\"key\": \"old\"");
    ck_assert_ptr_nonnull(old);
    ck_assert_ptr_nonnull(strstr(old, "\"status\": \"removed\""));
    ck_assert_ptr_nonnull(strstr(old, "\"new\": null"));
    /* The call main -> nw is new; main -> old is gone. */
    ck_assert_ptr_nonnull(strstr(j, "{\"caller\": \"main\", \"callee\": \"nw\", \"status\": \"added\", \"base\": null, "
                                    "\"new\": {\"total\": 120, \"percent\": 60"));
    ck_assert_ptr_nonnull(strstr(j, "{\"caller\": \"main\", \"callee\": \"old\", \"status\": \"removed\", "
                                    "\"base\": {\"total\": 30, \"percent\": 30"));
    free(j);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

/* Colours scale by the largest change drawn (nw's +60 pp): nw full red,
 * a (0 pp) the neutral grey #f0f0f0, b (-25 pp, weight 5/12) and old
 * (-30 pp, weight 1/2) on the way from grey to blue #2166ac:
 *   b:   f0 + (21 - f0) * 5/12 = 153.75 -> 9a, (66 - f0) -> b7, (ac - f0) -> d4
 *   old: 240 - 207/2 = 136.5 -> 89, 240 - 69 = 171 = ab, 240 - 34 = 206 = ce. */
START_TEST(dot_colours)
{
    cgprop_graph *base, *g;
    stacks_pair(&base, &g, NULL);
    char *d = render(base, g, CGPROP_FORMAT_DOT, NULL);
    ck_assert_ptr_nonnull(strstr(d, "fillcolor=\"#cb181d\", fontcolor=\"#ffffff\", style=\"filled\", penwidth=\"2\""));
    ck_assert_ptr_nonnull(strstr(d, "label=\"nw\\n60.00% (+60.00)\\n(self 60.00%, +60.00)\\nnew\""));
    ck_assert_ptr_nonnull(strstr(d, "fillcolor=\"#f0f0f0\", fontcolor=\"#000000\", style=\"filled\", "
                                    "tooltip=\"base 30, new 60, change +30\", label=\"a\\n30.00% (+0.00)"));
    ck_assert_ptr_nonnull(strstr(d, "fillcolor=\"#9ab7d4\", fontcolor=\"#000000\", style=\"filled\", "
                                    "tooltip=\"base 30, new 10, change -20\", label=\"b\\n5.00% (-25.00)"));
    ck_assert_ptr_nonnull(strstr(d, "color=\"#808080\", fillcolor=\"#89abce\", fontcolor=\"#000000\", "
                                    "style=\"filled,dashed\", tooltip=\"base 30, new -, change -30\", "
                                    "label=\"old\\n30.00% (-30.00)\\n(self 30.00%, -30.00)\\nremoved\""));
    ck_assert_ptr_nonnull(strstr(d, "full colour at 60.00 pp"));
    ck_assert_ptr_nonnull(strstr(d, "style=\"dotted\", label=\"removed\"];"));
    /* A threshold above 30 % on both sides drops old (and its call), a
     * and b; main (100 %) and nw (60 %) stay. */
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.node_thres = 31;
    free(d);
    d = render(base, g, CGPROP_FORMAT_DOT, &o);
    ck_assert_ptr_null(strstr(d, "label=\"old"));
    ck_assert_ptr_null(strstr(d, "removed"));
    ck_assert_ptr_null(strstr(d, "label=\"a\\n"));
    ck_assert_ptr_null(strstr(d, "label=\"b\\n"));
    ck_assert_ptr_nonnull(strstr(d, "label=\"main\\n"));
    ck_assert_ptr_nonnull(strstr(d, "label=\"nw\\n"));
    free(d);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

/* main -> A (cost X), A <-> B a cycle without recursion levels, A -> C:
 *   main->A X, A self 20, A->B 30, A->C (cost C), B self 10, B->A 20, C self C.
 * A is entered only from main: L(A) = U(A) = X, exact. B: L = 0, so
 * lo = max(0, self 10) = 10; U = min(T(S) = 30 + C, 0 + A->B 30) = 30:
 * B in [10, 30], an estimate on both sides (base X = 50, C = 20; new X = 60,
 * C = 30). Its change lies in [10 - 30, 30 - 10] = [-20, +20] and is an
 * estimate; A's (+10) and C's (+10) are exact. */
static cgprop_graph *cycle_graph(uint64_t x, uint64_t c)
{
    const char *m = "Ir";
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, &g), CGPROP_OK);
    uint32_t M = tnode(g, "main"), A = tnode(g, "A"), B = tnode(g, "B"), C = tnode(g, "C");
    uint64_t c30 = 30, c20 = 20, s20 = 20, s10 = 10;
    ck_assert_int_eq(cgprop_graph_add_edge(g, M, A, 1, &x, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, A, &s20), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, B, 1, &c30, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, C, 2, &c, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, B, &s10), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, B, A, 1, &c20, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, C, &c), CGPROP_OK);
    analyse(g);
    return g;
}

START_TEST(estimates_marked)
{
    cgprop_graph *base = cycle_graph(50, 20), *g = cycle_graph(60, 30);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_BOUNDS;
    char *t = render(base, g, CGPROP_FORMAT_TEXT, &o);
    ck_assert_ptr_nonnull(strstr(t, "3 exact, 1 estimates"));
    trow r = row_of(t, "B");
    ck_assert_msg(r.change[0] == '~' && r.pp[0] == '~', "B's change not marked:\n%s", t);
    ck_assert_msg(r.bt[0] == '~' && r.nt[0] == '~', "B's totals not marked:\n%s", t);
    ck_assert_str_eq(r.rest, "  change in [-20, +20]");
    /* Programs 50 and 60: A 100 % -> 100 %, C 40 % -> 50 %. */
    expect_row(t, "A", "+10", "+0.00", "50", "100.00%", "60", "100.00%", "+0", "-6.67");
    expect_row(t, "C", "+10", "+10.00", "20", "40.00%", "30", "50.00%", "+10", "+10.00");
    ck_assert_str_eq(row_of(t, "C").rest, "");
    free(t);
    char *j = render(base, g, CGPROP_FORMAT_JSON, NULL);
    const char *b = strstr(j, "{\"key\": \"B\"");
    ck_assert_ptr_nonnull(b);
    const char *ch = strstr(b, "\"change\": {");
    ck_assert_ptr_nonnull(ch);
    ck_assert_ptr_nonnull(strstr(ch, "\"exact\": false, \"bounds\": [-20, 20]}"));
    ck_assert_ptr_nonnull(strstr(b, "\"exact\": false, \"estimate\": \"midpoint\", \"bounds\": [10, 30]}"));
    free(j);
    char *d = render(base, g, CGPROP_FORMAT_DOT, NULL);
    const char *nb = strstr(d, "label=\"B\\n");
    ck_assert_ptr_nonnull(nb);
    ck_assert_ptr_nonnull(strstr(nb, "(~"));
    ck_assert_ptr_nonnull(strstr(d, "style=\"filled,dashed\", tooltip=\"base ~"));
    ck_assert_ptr_nonnull(strstr(d, "in [-20, +20]\", label=\"B\\n"));
    free(d);
    /* gprof2dot's figure everywhere: every change an estimate. */
    o.flags = CGPROP_W_HEURISTIC_ONLY;
    t = render(base, g, CGPROP_FORMAT_TEXT, &o);
    ck_assert_ptr_nonnull(strstr(t, "0 exact, 4 estimates"));
    free(t);
    j = render(base, g, CGPROP_FORMAT_JSON, &o);
    ck_assert_ptr_null(strstr(j, "\"estimate\": \"exact\""));
    ck_assert_ptr_nonnull(strstr(j, "\"exact\": false, \"estimate\": \"heuristic\""));
    free(j);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(errors)
{
    cgprop_graph *base, *g;
    stacks_pair(&base, &g, NULL);
    tbuf b = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write_compare(base, NULL, CGPROP_FORMAT_TEXT, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_write_compare(NULL, g, CGPROP_FORMAT_TEXT, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "base graph is NULL"));
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_TEXT, NULL, NULL, &b), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_NO_CLASSES;
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_TEXT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    cgprop_write_options_init(&o);
    o.metric = 1;
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_TEXT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_ptr_null(b.p);
    /* The output callback fails. */
    b.fail_after = 0;
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_JSON, NULL, tbuf_sink, &b), CGPROP_EWRITE);
    b.fail_after = -1;
    /* A base in another metric. */
    const char *m = "Ir";
    cgprop_graph *other = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, &other), CGPROP_OK);
    stack(other, "main", 1);
    analyse(other);
    ck_assert_int_eq(cgprop_write_compare(other, g, CGPROP_FORMAT_TEXT, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "no metric 'w'"));
    /* A base not analysed since its last change. */
    stack(base, "main;b", 1);
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_TEXT, NULL, tbuf_sink, &b), CGPROP_ESTATE);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "compare: base:"));
    analyse(base);
    ck_assert_int_eq(cgprop_write_compare(base, g, CGPROP_FORMAT_TEXT, NULL, tbuf_sink, &b), CGPROP_OK);
    free(b.p);
    cgprop_graph_free(other);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

/* Every allocation of the comparison fails in turn: each failure is
 * CGPROP_ENOMEM with a message, frees what it took, and the next call
 * works. */
START_TEST(allocation_failures)
{
    tfail f;
    cgprop_allocator a = tfail_allocator(&f, -1);
    for (uint32_t format = CGPROP_FORMAT_TEXT; format <= CGPROP_FORMAT_DOT; format++) {
        cgprop_graph *base, *g;
        stacks_pair(&base, &g, &a);
        int ok = 0;
        for (long k = 0; k < 10000 && !ok; k++) {
            long live = f.live;
            f.left = k;
            tbuf b = {NULL, 0, 0, -1};
            int rc = cgprop_write_compare(base, g, format, NULL, tbuf_sink, &b);
            f.left = -1;
            ck_assert_msg(rc == CGPROP_OK || rc == CGPROP_ENOMEM, "k %ld: %d", k, rc);
            ck_assert_int_eq(f.live, live);
            if (rc == CGPROP_ENOMEM) ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "out of memory"));
            ok = rc == CGPROP_OK;
            free(b.p);
        }
        ck_assert(ok);
        cgprop_graph_free(base);
        cgprop_graph_free(g);
    }
}
END_TEST

/* Keys that differ only in where a function was built match by display
 * name, when the name is one unmatched function's on each side; names are
 * escaped for DOT and text, and a name past 4,096 bytes is cut in DOT. */
START_TEST(names)
{
    const char *m = "w";
    cgprop_graph *base = NULL, *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, &base), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, &g), CGPROP_OK);
    static char longname[5001];
    memset(longname, 'x', 5000);
    uint64_t w = 10;
    uint32_t fb[2] = {tnode(base, "/old/prog\t/old/a.c\tmain"), tnode(base, "/old/prog\t/old/a.c\tq\"uo\nte")};
    uint32_t fn[3] = {tnode(g, "/new/prog\t/new/a.c\tmain"), tnode(g, "/new/prog\t/new/a.c\tq\"uo\nte"),
                      tnode(g, longname)};
    ck_assert_int_eq(cgprop_graph_add_stack(base, fb, 2, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, fn, 2, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, fn, 1, &w), CGPROP_OK);
    uint32_t deep[2] = {fn[0], fn[2]};
    ck_assert_int_eq(cgprop_graph_add_stack(g, deep, 2, &w), CGPROP_OK);
    analyse(base);
    analyse(g);
    /* main: 10 -> 30 (+20); q"uo te: 10 -> 10 ("same": its figures did not
     * change, its share did: 100 % -> 33.33 %); the long
     * name is added (10). */
    char *j = render(base, g, CGPROP_FORMAT_JSON, NULL);
    ck_assert_ptr_nonnull(strstr(j, "{\"key\": \"/new/prog\\t/new/a.c\\tmain\", \"base_key\": "
                                    "\"/old/prog\\t/old/a.c\\tmain\", \"name\": \"main\", \"status\": \"changed\""));
    ck_assert_ptr_nonnull(strstr(j, "\"name\": \"q\\\"uo\\nte\", \"status\": \"same\""));
    free(j);
    char *d = render(base, g, CGPROP_FORMAT_DOT, NULL);
    ck_assert_ptr_nonnull(strstr(d, "label=\"q\\\"uo te\\n33.33% (-66.67)"));
    char *cut = malloc(4096 + 8);
    memset(cut, 'x', 4096);
    memcpy(cut + 4096, "...\\n", 6);
    cut[4101] = '\0';
    ck_assert_ptr_nonnull(strstr(d, cut));
    free(cut);
    free(d);
    char *t = render(base, g, CGPROP_FORMAT_TEXT, NULL);
    ck_assert_ptr_nonnull(strstr(t, "  q\"uo\\x0ate\n"));
    ck_assert_ptr_nonnull(strstr(t, "0 removed"));
    free(t);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

/* The text comparison prints names as the text report does: a byte that
 * could drive a terminal (ESC, DEL, a line break) as \xHH, a backslash
 * doubled; none reaches the output raw. */
START_TEST(text_names_escaped)
{
    const char *m = "w";
    cgprop_graph *base = NULL, *g = NULL;
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, &base), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_new(NULL, &m, NULL, 1, &g), CGPROP_OK);
    uint64_t w = 10;
    uint32_t fb[2] = {tnode(base, "m\x7f"), tnode(base, "e\x1b[2J\\")};
    uint32_t fn[2] = {tnode(g, "m\x7f"), tnode(g, "e\x1b[2J\\")};
    ck_assert_int_eq(cgprop_graph_add_stack(base, fb, 2, &w), CGPROP_OK);
    w = 30;
    ck_assert_int_eq(cgprop_graph_add_stack(g, fn, 2, &w), CGPROP_OK);
    analyse(base);
    analyse(g);
    char *t = render(base, g, CGPROP_FORMAT_TEXT, NULL);
    ck_assert_ptr_null(strchr(t, '\x7f'));
    ck_assert_ptr_null(strchr(t, '\x1b'));
    ck_assert_ptr_nonnull(strstr(t, "  m\\x7f\n"));
    ck_assert_ptr_nonnull(strstr(t, "  e\\x1b[2J\\\\\n"));
    free(t);
    cgprop_graph_free(base);
    cgprop_graph_free(g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("compare");
    TCase *tc = tcase_create("compare");
    tcase_add_test(tc, text_stacks_exact);
    tcase_add_test(tc, json_stacks_exact);
    tcase_add_test(tc, dot_colours);
    tcase_add_test(tc, estimates_marked);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, allocation_failures);
    tcase_add_test(tc, names);
    tcase_add_test(tc, text_names_escaped);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
