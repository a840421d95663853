/* Writers on hand-built graphs. Expected figures are worked out by hand in
 * the comments (the A/B/C example of docs/SPLIT.md and gprof2dot's ABC). JSON output is
 * parsed by a small independent parser below, so a syntax error fails too. */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_experimental.h"
#include "cgprop_io.h"
#include "support.h"

/* ---- a tiny JSON parser (recursive: fine in a test) ---- */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
typedef struct jv {
    int t;
    double num;
    int b;
    char *str;       /* J_STR, decoded */
    size_t n;        /* children */
    struct jv *kids; /* J_ARR, J_OBJ */
    char **keys;     /* J_OBJ */
} jv;

typedef struct jp {
    const char *s;
    int bad;
} jp;

static void ws(jp *p)
{
    while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r') p->s++;
}

static int parse(jp *p, jv *v);

static char *pstr(jp *p)
{
    if (*p->s != '"') {
        p->bad = 1;
        return NULL;
    }
    p->s++;
    char *out = malloc(strlen(p->s) + 1);
    size_t n = 0;
    while (*p->s && *p->s != '"') {
        if ((unsigned char)*p->s < 0x20) {
            p->bad = 1;
            break;
        }
        if (*p->s == '\\') {
            p->s++;
            char c = *p->s++;
            if (c == 'n') out[n++] = '\n';
            else if (c == 't') out[n++] = '\t';
            else if (c == '"' || c == '\\' || c == '/') out[n++] = c;
            else if (c == 'u') {
                unsigned x = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *p->s++;
                    x = x * 16 + (unsigned)(h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
                }
                out[n++] = (char)x; /* tests only use x < 0x80 */
            } else {
                p->bad = 1;
                break;
            }
        } else {
            out[n++] = *p->s++;
        }
    }
    if (*p->s != '"') p->bad = 1;
    else p->s++;
    out[n] = '\0';
    return out;
}

static int parse(jp *p, jv *v)
{
    memset(v, 0, sizeof *v);
    ws(p);
    if (*p->s == '{' || *p->s == '[') {
        int obj = *p->s == '{';
        char close = obj ? '}' : ']';
        v->t = obj ? J_OBJ : J_ARR;
        p->s++;
        ws(p);
        if (*p->s == close) {
            p->s++;
            return 1;
        }
        for (;;) {
            v->kids = realloc(v->kids, (v->n + 1) * sizeof *v->kids);
            if (obj) {
                ws(p);
                v->keys = realloc(v->keys, (v->n + 1) * sizeof *v->keys);
                v->keys[v->n] = pstr(p);
                ws(p);
                if (*p->s++ != ':') p->bad = 1;
            }
            parse(p, &v->kids[v->n++]);
            if (p->bad) return 0;
            ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s == close) {
                p->s++;
                return 1;
            }
            p->bad = 1;
            return 0;
        }
    }
    if (*p->s == '"') {
        v->t = J_STR;
        v->str = pstr(p);
        return !p->bad;
    }
    if (!strncmp(p->s, "null", 4)) {
        v->t = J_NULL;
        p->s += 4;
        return 1;
    }
    if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
        v->t = J_BOOL;
        v->b = *p->s == 't';
        p->s += v->b ? 4 : 5;
        return 1;
    }
    /* JSON numbers only: no NaN, Infinity, leading '+' or hex. */
    const char *q = p->s;
    if (*q == '-') q++;
    if (*q < '0' || *q > '9') {
        p->bad = 1;
        return 0;
    }
    char *end;
    v->t = J_NUM;
    v->num = strtod(p->s, &end);
    for (const char *c = p->s; c < end; c++)
        if (!strchr("0123456789+-.eE", *c)) p->bad = 1;
    p->s = end;
    return !p->bad;
}

static void jfree(jv *v)
{
    for (size_t i = 0; i < v->n; i++) {
        jfree(&v->kids[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->kids);
    free(v->keys);
    free(v->str);
}

static jv *get(jv *v, const char *key)
{
    ck_assert_int_eq(v->t, J_OBJ);
    for (size_t i = 0; i < v->n; i++)
        if (!strcmp(v->keys[i], key)) return &v->kids[i];
    return NULL;
}

static jv *at(jv *v, size_t i)
{
    ck_assert_int_eq(v->t, J_ARR);
    ck_assert_uint_lt(i, v->n);
    return &v->kids[i];
}

static double num(jv *v)
{
    ck_assert_ptr_nonnull(v);
    ck_assert_int_eq(v->t, J_NUM);
    return v->num;
}

static void parse_json(const char *s, jv *root)
{
    jp p = {s, 0};
    int ok = parse(&p, root);
    ws(&p);
    ck_assert_msg(ok && !p.bad && *p.s == '\0', "JSON does not parse near: %.40s", p.s);
}

/* ---- graphs ---- */

static cgprop_graph *new_graph(const char *metric)
{
    cgprop_graph *g = NULL;
    const char *names[1] = {metric};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 1, &g), CGPROP_OK);
    return g;
}

static uint32_t node(cgprop_graph *g, const char *key) { return tnode(g, key); }

static void analyse(cgprop_graph *g, int split)
{
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    if (split) ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
}

/* The notes' example as stacks: A 10 / A;C 10 / A;B 10 / A;B;A 10 / A;B;A;C 10.
 * A=0, B=1, C=2. */
static cgprop_graph *notes_graph(void)
{
    cgprop_graph *g = new_graph("w");
    uint32_t A = node(g, "A"), B = node(g, "B"), C = node(g, "C");
    uint32_t s1[] = {A}, s2[] = {A, C}, s3[] = {A, B}, s4[] = {A, B, A}, s5[] = {A, B, A, C};
    uint64_t w10 = 10;
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 1, &w10), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 2, &w10), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 2, &w10), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s4, 3, &w10), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s5, 4, &w10), CGPROP_OK);
    analyse(g, 1);
    return g;
}

/* gprof2dot's ABC (its test file abc.callgrind) as an aggregated graph without
 * classes: main=0, A=1, B=2, C=3. */
static cgprop_graph *abc_graph(void)
{
    cgprop_graph *g = new_graph("Ir");
    uint32_t M = node(g, "main"), A = node(g, "A"), B = node(g, "B"), C = node(g, "C");
    uint64_t c50 = 50, c30 = 30, c20 = 20, s20 = 20, s10 = 10;
    ck_assert_int_eq(cgprop_graph_add_edge(g, M, A, 1, &c50, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, A, &s20), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, B, 1, &c30, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, C, 2, &c20, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, B, &s10), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, B, A, 1, &c20, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, C, &s20), CGPROP_OK);
    analyse(g, 1);
    return g;
}

static const char *line_with(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);
    ck_assert_msg(p != NULL, "no '%s' in output", needle);
    return p;
}

/* ---- tests ---- */

START_TEST(json_notes_example)
{
    cgprop_graph *g = notes_graph();
    char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
    jv r;
    parse_json(out, &r);
    ck_assert_str_eq(at(get(&r, "metrics"), 0)->str, "w");
    ck_assert_double_eq(num(at(get(&r, "totals"), 0)), 50); /* 20 + 10 + 20 */
    jv *fs = get(&r, "functions");
    ck_assert_uint_eq(fs->n, 3);
    jv *A = at(fs, 0), *B = at(fs, 1), *C = at(fs, 2);
    ck_assert_str_eq(get(A, "name")->str, "A");
    ck_assert_str_eq(get(A, "key")->str, "A");
    ck_assert_double_eq(num(at(get(A, "self"), 0)), 20);
    /* total is the exact C_n the stacks give (A 50, B 30, C 20), a point
     * interval; gprof2dot's estimate keeps its own name: one entry A (rho
     * 1), DAG A->B: p(B) = S(B) = 10, p(A) = 20 + T(C) 20 + 10 = 50. */
    ck_assert_double_eq_tol(num(at(get(A, "total"), 0)), 50, 1e-9);
    ck_assert_double_eq_tol(num(at(get(B, "total"), 0)), 30, 1e-9);
    ck_assert_double_eq_tol(num(at(get(C, "total"), 0)), 20, 1e-9);
    ck_assert_double_eq_tol(num(at(get(A, "heuristic"), 0)), 50, 1e-9);
    ck_assert_double_eq_tol(num(at(get(B, "heuristic"), 0)), 10, 1e-9);
    ck_assert_double_eq_tol(num(at(get(C, "heuristic"), 0)), 20, 1e-9);
    ck_assert_double_eq(num(at(at(get(B, "bounds"), 0), 0)), 30);
    ck_assert_double_eq(num(at(at(get(B, "bounds"), 1), 0)), 30);
    ck_assert_int_eq(at(get(B, "estimate"), 0)->t, J_NULL);
    ck_assert_int_eq(at(get(B, "reason"), 0)->t, J_NULL);
    ck_assert_double_eq(num(get(A, "cycle")), 0);
    ck_assert_double_eq(num(get(B, "cycle")), 0);
    ck_assert_int_eq(get(C, "cycle")->t, J_NULL);
    /* The split (docs/SPLIT.md). */
    jv *sa = get(A, "split"), *sb = get(B, "split"), *sc = get(C, "split");
    ck_assert_ptr_nonnull(sa);
    ck_assert_double_eq(num(at(get(sa, "S_n"), 0)), 10);
    ck_assert_double_eq(num(at(get(sa, "S_r"), 0)), 10);
    ck_assert_double_eq(num(at(get(sa, "C_n"), 0)), 50);
    ck_assert_double_eq(num(at(get(sa, "C_r"), 0)), 20);
    ck_assert_double_eq(num(at(get(sa, "D"), 0)), 50);
    ck_assert_double_eq(num(at(get(sb, "C_n"), 0)), 30);
    ck_assert_double_eq(num(at(get(sb, "D"), 0)), 10);
    ck_assert_double_eq(num(at(get(sc, "C_n"), 0)), 20);
    ck_assert_double_eq(num(at(get(sc, "D"), 0)), 20);
    ck_assert_uint_eq(get(A, "inexact")->n, 0);
    ck_assert_uint_eq(get(B, "inexact")->n, 0);
    /* Calls: find each pair. */
    jv *cs = get(&r, "calls");
    int seen = 0;
    for (size_t i = 0; i < cs->n; i++) {
        jv *c = at(cs, i);
        int a = (int)num(get(c, "caller")), b = (int)num(get(c, "callee"));
        jv *sp = get(c, "split");
        ck_assert_ptr_nonnull(sp);
        ck_assert_uint_eq(get(c, "inexact")->n, 0);
        if (a == 0 && b == 1) { /* A->B: cost 30 from 3 stacks; kept in A's DAG: total p(B) = 10 */
            ck_assert_double_eq(num(at(get(sp, "C_nn"), 0)), 30);
            ck_assert_double_eq(num(at(get(c, "cost"), 0)), 30);
            ck_assert_double_eq_tol(num(at(get(c, "total"), 0)), 10, 1e-9);
            seen |= 1;
        } else if (a == 0 && b == 2) { /* A->C */
            ck_assert_double_eq(num(at(get(sp, "C_nn"), 0)), 10);
            ck_assert_double_eq(num(at(get(sp, "C_rn"), 0)), 10);
            ck_assert_double_eq(num(at(get(c, "cost"), 0)), 20);
            ck_assert_double_eq_tol(num(at(get(c, "total"), 0)), 20, 1e-9);
            seen |= 2;
        } else if (a == 1 && b == 0) { /* B->A: into level-1 A only */
            ck_assert_double_eq(num(at(get(sp, "C_nr"), 0)), 20);
            ck_assert_double_eq(num(at(get(sp, "C_nn"), 0)), 0);
            ck_assert_int_eq(get(c, "intra_cycle")->b, 1);
            seen |= 4;
        }
        ck_assert_int_eq(get(c, "count")->t, J_NUM); /* stacks: count 0 */
    }
    ck_assert_int_eq(seen, 7);
    jv *cy = get(&r, "cycles");
    ck_assert_uint_eq(cy->n, 1);
    jv *z = at(cy, 0);
    ck_assert_uint_eq(get(z, "members")->n, 2);
    ck_assert_double_eq(num(at(get(z, "members"), 0)), 0);
    ck_assert_double_eq(num(at(get(z, "members"), 1)), 1);
    ck_assert_double_eq(num(at(get(z, "self"), 0)), 30);
    ck_assert_double_eq_tol(num(at(get(z, "total"), 0)), 50, 1e-9);
    ck_assert_int_eq(get(z, "entry_assumed")->b, 0); /* A is the first frame of every stack */
    /* No recorder clamped anything into this graph. */
    ck_assert_double_eq(num(get(&r, "clamps")), 0);
    ck_assert_double_eq(num(get(&r, "floors")), 0);
    ck_assert_ptr_null(strstr(out, "\"clamped"));
    jfree(&r);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(json_no_classes_no_split_object)
{
    cgprop_graph *g = abc_graph();
    char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
    jv r;
    parse_json(out, &r);
    jv *fs = get(&r, "functions");
    ck_assert_uint_eq(fs->n, 4);
    ck_assert_double_eq(num(at(get(&r, "totals"), 0)), 50);
    /* No classes in the input: the recursive A and B have no exact split
     * figure, so no split object; main and C never recurse, so theirs is exact:
     * C_n(main) = 0 + 50, C_n(C) = 20. */
    for (size_t i = 1; i <= 2; i++) {
        ck_assert_ptr_null(get(at(fs, i), "split"));
        ck_assert_uint_eq(get(at(fs, i), "inexact")->n, 5);
    }
    ck_assert_double_eq(num(at(get(get(at(fs, 0), "split"), "C_n"), 0)), 50);
    ck_assert_double_eq(num(at(get(get(at(fs, 3), "split"), "C_n"), 0)), 20);
    ck_assert_uint_eq(get(at(fs, 3), "inexact")->n, 0);
    /* gprof2dot's numbers: main 100 %, A 100 %, B 20 %, C 40 % of 50. */
    ck_assert_double_eq_tol(num(at(get(at(fs, 0), "heuristic"), 0)), 50, 1e-9);
    ck_assert_double_eq_tol(num(at(get(at(fs, 1), "heuristic"), 0)), 50, 1e-9);
    ck_assert_double_eq_tol(num(at(get(at(fs, 2), "heuristic"), 0)), 10, 1e-9);
    ck_assert_double_eq_tol(num(at(get(at(fs, 3), "heuristic"), 0)), 20, 1e-9);
    /* The best figures: main, A and C exact; B the midpoint of the walk's
     * 150/7 and the heuristic's 10 (worked out in check_propagate). */
    ck_assert_double_eq_tol(num(at(get(at(fs, 0), "total"), 0)), 50, 1e-9);
    ck_assert_double_eq_tol(num(at(get(at(fs, 1), "total"), 0)), 50, 1e-9);
    ck_assert_double_eq_tol(num(at(get(at(fs, 2), "total"), 0)), 110.0 / 7, 1e-9);
    ck_assert_double_eq_tol(num(at(get(at(fs, 2), "walk"), 0)), 150.0 / 7, 1e-9);
    ck_assert_str_eq(at(get(at(fs, 2), "estimate"), 0)->str, "midpoint");
    ck_assert_int_eq(get(at(fs, 1), "walk")->t, J_NULL);
    ck_assert_double_eq_tol(num(at(get(at(fs, 3), "total"), 0)), 20, 1e-9);
    /* A's own gprof figure: S 20 + C's share 20 = 40, flagged not inclusive. */
    jv *gp = get(at(fs, 1), "gprof");
    ck_assert_double_eq_tol(num(at(get(gp, "self"), 0)) + num(at(get(gp, "child"), 0)), 40, 1e-9);
    ck_assert_int_eq(get(gp, "inclusive")->b, 0);
    jfree(&r);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

/* Under a cost share each metric finds its own entries: main->A weighs
 * [10, 0] and main->B [0, 10], so the cycle {A, B} is entered at A in
 * metric 0 (DAG A->B, B->A kept by no entry) and at B in metric 1 (DAG
 * B->A). Each intra-cycle call has a total in one metric and none in the
 * other; a reader of metric 1 must not take A->B's 0 for a total. By hand:
 * metric 0: p(B) = S(B) = 1, so A->B = 1; metric 1: p(A) = S(A) = 1, so
 * B->A = 1. The self-call A->A has no total in any metric. */
START_TEST(json_no_total_per_metric)
{
    cgprop_graph *g = NULL;
    const char *names[2] = {"x", "y"};
    ck_assert_int_eq(cgprop_graph_new(NULL, names, NULL, 2, &g), CGPROP_OK);
    uint32_t M = node(g, "main"), A = node(g, "A"), B = node(g, "B");
    uint64_t ma[2] = {10, 0}, mb[2] = {0, 10}, ab[2] = {5, 5}, one[2] = {1, 1};
    ck_assert_int_eq(cgprop_graph_add_edge(g, M, A, 1, ma, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, M, B, 1, mb, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, B, 1, ab, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, B, A, 1, ab, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, A, A, 1, one, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, A, one), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, B, one), CGPROP_OK);
    analyse(g, 0);
    char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
    jv r;
    parse_json(out, &r);
    jv *cs = get(&r, "calls");
    int seen = 0;
    for (size_t i = 0; i < cs->n; i++) {
        jv *c = at(cs, i);
        uint32_t a = (uint32_t)num(get(c, "caller")), b = (uint32_t)num(get(c, "callee"));
        jv *tot = get(c, "total"), *lst = get(c, "no_total_metrics");
        if (a == A && b == B) {
            ck_assert_int_eq(get(c, "no_total")->b, 0);
            ck_assert_int_eq(get(c, "estimate")->b, 1);
            ck_assert_uint_eq(lst->n, 1);
            ck_assert_double_eq(num(at(lst, 0)), 1);
            ck_assert_double_eq_tol(num(at(tot, 0)), 1, 1e-12);
            ck_assert_double_eq(num(at(tot, 1)), 0);
            seen |= 1;
        } else if (a == B && b == A) {
            ck_assert_int_eq(get(c, "no_total")->b, 0);
            ck_assert_uint_eq(lst->n, 1);
            ck_assert_double_eq(num(at(lst, 0)), 0);
            ck_assert_double_eq(num(at(tot, 0)), 0);
            ck_assert_double_eq_tol(num(at(tot, 1)), 1, 1e-12);
            seen |= 2;
        } else if (a == A && b == A) {
            ck_assert_int_eq(get(c, "no_total")->b, 1);
            ck_assert_ptr_null(lst);
            seen |= 4;
        } else {
            ck_assert_int_eq(get(c, "no_total")->b, 0);
            ck_assert_ptr_null(lst);
        }
    }
    ck_assert_int_eq(seen, 7);
    jfree(&r);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(json_escapes_and_no_nonfinite)
{
    cgprop_graph *g = new_graph("a\"b\"");
    uint32_t f = node(g, "x\"y\\z\n\t\001");
    uint64_t s = 7;
    ck_assert_int_eq(cgprop_graph_add_self(g, f, &s), CGPROP_OK);
    analyse(g, 0);
    char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
    ck_assert_ptr_null(strstr(out, "nan"));
    ck_assert_ptr_null(strstr(out, "inf"));
    jv r;
    parse_json(out, &r);
    ck_assert_str_eq(at(get(&r, "metrics"), 0)->str, "a\"b\"");
    ck_assert_str_eq(get(at(get(&r, "functions"), 0), "key")->str, "x\"y\\z\n\t\001");
    /* propagate ran the split: a lone function is exact, its total its self */
    jv *f0 = at(get(&r, "functions"), 0);
    ck_assert_uint_eq(get(f0, "inexact")->n, 0);
    ck_assert_double_eq(num(at(get(f0, "total"), 0)), 7);
    ck_assert_int_eq(at(get(f0, "estimate"), 0)->t, J_NULL);
    jfree(&r);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

/* The recorder's clamp and floor counts reach the writers through the
 * graph. By hand: δ_i = 5, δ_e = 0, on the fly. main 0..40 calls f 10..12
 * (raw 2: 2-5 = -3) and f 20..21 (raw 1: -4); main: m = 2, 40-5-2·5 = 25.
 * With clamping each f is clamped to 0 (2 clamps) and main's exclusive is
 * 25-0 = 25, the program total; nothing is left to floor. Without it f's
 * self (-7) and the call main→f (-7) are written as 0 (2 floors) and main's
 * exclusive is 25-(-7) = 32. */
START_TEST(clamp_and_floor_counts_in_json_and_text)
{
    static const struct {
        uint32_t flags;
        uint64_t clamps, floors, total;
        const char *line, *absent;
    } cases[] = {
        {CGPROP_REC_CLAMP, 2, 0, 25, "Overhead compensation clamped 2 activation costs at 0", "below 0"},
        {0, 0, 2, 32, "Overhead compensation left 2 figures below 0, shown as 0", "clamped"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cgprop_graph *g = new_graph("ns");
        uint32_t m = node(g, "main"), f = node(g, "f");
        cgprop_recorder_options o;
        cgprop_recorder_options_init(&o);
        uint64_t o_di[CGPROP_MAX_METRICS] = {0}, o_de[CGPROP_MAX_METRICS] = {0};
        o.delta_i = o_di;
        o.delta_e = o_de;
        o.mode = CGPROP_COMP_ONLINE;
        o.flags = cases[c].flags;
        o_di[0] = 5;
        cgprop_recorder *r = NULL;
        ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_OK);
        const uint64_t t[6] = {0, 10, 12, 20, 21, 40};
        ck_assert_int_eq(cgprop_recorder_enter(r, m, &t[0]), CGPROP_OK);
        ck_assert_int_eq(cgprop_recorder_enter(r, f, &t[1]), CGPROP_OK);
        ck_assert_int_eq(cgprop_recorder_exit(r, f, &t[2]), CGPROP_OK);
        ck_assert_int_eq(cgprop_recorder_enter(r, f, &t[3]), CGPROP_OK);
        ck_assert_int_eq(cgprop_recorder_exit(r, f, &t[4]), CGPROP_OK);
        ck_assert_int_eq(cgprop_recorder_exit(r, m, &t[5]), CGPROP_OK);
        /* Nothing reaches the graph before the flush. */
        ck_assert_uint_eq(cgprop_graph_clamp_count(g) + cgprop_graph_floor_count(g), 0);
        ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
        cgprop_recorder_free(r);
        ck_assert_uint_eq(cgprop_graph_clamp_count(g), cases[c].clamps);
        ck_assert_uint_eq(cgprop_graph_floor_count(g), cases[c].floors);
        analyse(g, 1);
        char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
        jv j;
        parse_json(out, &j);
        ck_assert_double_eq(num(get(&j, "clamps")), (double)cases[c].clamps);
        ck_assert_double_eq(num(get(&j, "floors")), (double)cases[c].floors);
        ck_assert_double_eq(num(at(get(&j, "totals"), 0)), (double)cases[c].total);
        jfree(&j);
        free(out);
        out = trender(g, CGPROP_FORMAT_TEXT, NULL);
        ck_assert_ptr_nonnull(strstr(out, cases[c].line));
        ck_assert_ptr_null(strstr(out, cases[c].absent));
        free(out);
        cgprop_graph_free(g);
    }
    ck_assert_uint_eq(cgprop_graph_clamp_count(NULL) + cgprop_graph_floor_count(NULL), 0);
}
END_TEST

START_TEST(text_exact_where_split_says_so)
{
    cgprop_graph *g = notes_graph();
    char *out = trender(g, CGPROP_FORMAT_TEXT, NULL);
    /* Flat profile, sorted by total: A 50 (100 %), B's exact C_n 30 (60 %), C 20. */
    const char *a = line_with(out, "  100.00             50");
    const char *b = line_with(out, "   60.00             30");
    const char *c = line_with(out, "   40.00             20");
    ck_assert(a < b && b < c);
    ck_assert_ptr_nonnull(strstr(b, "exact      B"));
    ck_assert_ptr_nonnull(strstr(out, "<cycle 1 as a whole>"));
    ck_assert_ptr_nonnull(strstr(out, "B <cycle 1>"));
    free(out);

    /* Heuristic only: B falls to gprof2dot's per-root total ~10, marked. */
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_HEURISTIC_ONLY;
    out = trender(g, CGPROP_FORMAT_TEXT, &o);
    b = line_with(out, "   20.00            ~10");
    ck_assert_ptr_nonnull(strstr(b, "heuristic  B"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(text_estimates_without_classes)
{
    cgprop_graph *g = abc_graph();
    char *out = trender(g, CGPROP_FORMAT_TEXT, NULL);
    /* main and C (no recursion) are exact. So is A, though in a cycle:
     * 50 enters it from main and the cycle's activations cost 50 in all
     * (self 20 + 10 and A->C 20). B is only bounded, by its own 10 and the
     * 30 A sends it: an estimate, the midpoint 110/7 of the walk and the
     * heuristic. */
    ck_assert_ptr_nonnull(strstr(out, "   31.43            ~16    20.00           10            1  midpoint   B"));
    ck_assert_ptr_nonnull(strstr(out, "  100.00             50    40.00           20            2  exact      A"));
    ck_assert_ptr_nonnull(strstr(out, "   40.00             20    40.00           20            2  exact      C"));
    ck_assert_ptr_nonnull(strstr(out, "  100.00             50     0.00            0            0  exact      main"));
    ck_assert_ptr_null(strstr(out, "[10, 30]"));
    free(out);
    /* Asked for, the interval and the reason: B in [10, 30], recursion the
     * input gives no levels for; exact figures show no interval. */
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_BOUNDS;
    out = trender(g, CGPROP_FORMAT_TEXT, &o);
    ck_assert_ptr_nonnull(strstr(out, "  midpoint   [10, 30]                          recursion       B <cycle 1>\n"));
    ck_assert_ptr_nonnull(strstr(out, "  exact                                                        A <cycle 1>\n"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(dot_labels_colours_and_pruning)
{
    cgprop_graph *g = abc_graph();
    cgprop_write_options co;
    cgprop_write_options_init(&co);
    co.cycles = CGPROP_DOT_CYCLES_CLUSTER;
    char *out = trender(g, CGPROP_FORMAT_DOT, &co);
    ck_assert_ptr_nonnull(strstr(out, "digraph"));
    /* B: ~31.43 % total (the midpoint 110/7 of 50), (20 %) self, 1 call;
     * estimate -> dashed, with its kind and interval as the tooltip. */
    const char *b = line_with(out, "label=\"B\\n~31.43%\\n(20.00%)\\n1\xc3\x97\"");
    ck_assert_ptr_nonnull(strstr(out, "style=\"filled,dashed\", tooltip=\"midpoint estimate in [10, 30]\", label=\"B"));
    (void)b;
    ck_assert_ptr_nonnull(strstr(out, "subgraph cluster_cycle1"));
    ck_assert_ptr_nonnull(strstr(out, "newrank=\"true\""));
    ck_assert_ptr_null(strstr(out, "\\n<cycle"));
    /* Hottest is saturated red (100 %), coldest towards dark blue. */
    ck_assert_ptr_nonnull(strstr(out, "n1 [color=\"#ff0000\""));
    ck_assert_ptr_nonnull(strstr(out, "n0 -> n1"));
    free(out);

    /* Node threshold 35 %: B (31.43 %) goes, and with it the calls A->B, B->A. */
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.node_thres = 35;
    out = trender(g, CGPROP_FORMAT_DOT, &o);
    ck_assert_ptr_null(strstr(out, "\n    n2 ["));
    ck_assert_ptr_null(strstr(out, "n2 ["));
    ck_assert_ptr_null(strstr(out, "n1 -> n2"));
    ck_assert_ptr_nonnull(strstr(out, "n1 [")); /* A 100 % stays, inside its cluster */
    ck_assert_ptr_nonnull(strstr(out, "n3 ["));
    free(out);

    /* The default draws no cluster: A and B (the cycle) end their labels
     * with the cycle's name, main and C do not. */
    out = trender(g, CGPROP_FORMAT_DOT, NULL);
    ck_assert_ptr_null(strstr(out, "subgraph"));
    ck_assert_ptr_null(strstr(out, "newrank"));
    ck_assert_ptr_nonnull(strstr(out, "label=\"B\\n~31.43%\\n(20.00%)\\n1\xc3\x97\\n<cycle 1>\"]"));
    ck_assert_ptr_nonnull(strstr(out, "\\n<cycle 1>\"];\n  n2 ["));
    ck_assert_ptr_null(strstr(strstr(out, "  n3 ["), "<cycle"));
    const char *m = strstr(out, "  n0 [");
    ck_assert_ptr_nonnull(m);
    ck_assert(strstr(m, "<cycle") > strchr(m, '\n')); /* main's label names no cycle */
    free(out);
    o.node_thres = 0;
    o.cycles = CGPROP_DOT_CYCLES_NONE;
    out = trender(g, CGPROP_FORMAT_DOT, &o);
    ck_assert_ptr_null(strstr(out, "subgraph"));
    ck_assert_ptr_null(strstr(out, "<cycle"));
    ck_assert_ptr_nonnull(strstr(out, "n1 -> n2"));
    free(out);
    o.cycles = CGPROP_DOT_CYCLES_NONE + 1;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, NULL), CGPROP_EINVAL);
    /* A caller built before the field existed passes the shorter struct:
     * accepted, with the default drawing. */
    o.cycles = 0xdeadu; /* past the size given: never read */
    o.size = (uint32_t)offsetof(cgprop_write_options, cycles);
    out = trender(g, CGPROP_FORMAT_DOT, &o);
    ck_assert_ptr_nonnull(strstr(out, "\\n<cycle 1>"));
    free(out);
    cgprop_write_options_init(&o);

    /* Edge threshold 50 %: A->C (40 %) goes, main->A (100 %) stays. */
    o.node_thres = 0;
    o.edge_thres = 50;
    out = trender(g, CGPROP_FORMAT_DOT, &o);
    ck_assert_ptr_null(strstr(out, "n1 -> n3"));
    ck_assert_ptr_nonnull(strstr(out, "n0 -> n1"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(dot_exact_node_not_dashed)
{
    cgprop_graph *g = notes_graph();
    char *out = trender(g, CGPROP_FORMAT_DOT, NULL);
    /* B's exact C_n 30 of 50 = 60 %, solid; the call B->A enters only the
     * recursive A: no exact share of its own, drawn dotted with no figure. */
    const char *b = line_with(out, "n1 [");
    ck_assert_ptr_nonnull(strstr(b, "style=\"filled\", label=\"B\\n60.00%\\n(20.00%)\\n<cycle 1>\""));
    const char *ba = line_with(out, "n1 -> n0");
    ck_assert_ptr_nonnull(strstr(ba, "style=\"dotted\""));
    /* A->B exact: C_nn(A,B) 30 = 60 %. */
    const char *ab = line_with(out, "n0 -> n1");
    ck_assert_ptr_nonnull(strstr(ab, "label=\"60.00%\""));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(callgrind_classes_written_as_names)
{
    cgprop_graph *g = notes_graph();
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(out, "events: w\n"));
    ck_assert_ptr_nonnull(strstr(out, "summary: 50\n"));
    /* A level 0 self 10, A'2 (level 1) self 10; B->A'2 cost 20; A'2->C cost 10. */
    ck_assert_ptr_nonnull(strstr(out, "fn=(1) A\n0 10\n"));
    ck_assert_ptr_nonnull(strstr(out, "A'2\n0 10\n"));
    /* Stacks give no call counts: every count is written one more (annotate
     * takes a count of 0 for self cost), and the header says so. */
    ck_assert_ptr_nonnull(strstr(out, "\ndesc: Call counts: every calls= count is one more than the calls made\n"));
    ck_assert_ptr_nonnull(strstr(out, "calls=1 0\n0 20\n"));
    ck_assert_ptr_null(strstr(out, "calls=0"));
    free(out);

    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_NO_CLASSES | CGPROP_W_NO_COMPRESSION;
    out = trender(g, CGPROP_FORMAT_CALLGRIND, &o);
    ck_assert_ptr_null(strstr(out, "'2"));
    ck_assert_ptr_nonnull(strstr(out, "fn=A\n0 20\n"));
    ck_assert_ptr_nonnull(strstr(out, "cfn=B\ncalls=1 0\n0 30\n"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

/* ---- what every writer must carry, or refuse ---- */

/* Read callgrind text back, keys by bare name. */
static cgprop_graph *read_back(const char *text)
{
    cgprop_read_options o = tformat(CGPROP_INPUT_CALLGRIND);
    o.key_mode = CGPROP_KEY_NAME;
    return tread(text, strlen(text), "w", &o, NULL);
}

static cgprop_edge_row edge_of(cgprop_graph *g, const char *a, const char *b)
{
    uint32_t x, y, e;
    ck_assert_int_eq(cgprop_graph_find_node(g, a, strlen(a), &x), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_node(g, b, strlen(b), &y), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_edge(g, x, y, &e), CGPROP_OK);
    cgprop_edge_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGES, 0, e, &r, sizeof r), CGPROP_OK);
    return r;
}

START_TEST(callgrind_name_spelling_an_id)
{
    /* main (0) calls "(7)'(1)" (1) and "(1)" (2). Ids are f * 3 + class + 1
     * with the numbers names spell left out, 1 and 7: main gets 2, "(7)'(1)"
     * 4 + 1 = 5, "(1)" 7 + 2 = 9. */
    cgprop_graph *g = new_graph("Ir");
    uint32_t m = node(g, "main"), q = node(g, "(7)'(1)"), f = node(g, "(1)");
    uint64_t one = 1, five = 5;
    ck_assert_int_eq(cgprop_graph_add_self(g, m, &one), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, f, &five), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, m, q, 1, &one, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, m, f, 2, &five, NULL), CGPROP_OK);
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(out, "fn=(2) main\n"));
    ck_assert_ptr_nonnull(strstr(out, "cfn=(5) (7)'(1)\ncalls=1 0\n0 1\n"));
    ck_assert_ptr_nonnull(strstr(out, "cfn=(9) (1)\ncalls=2 0\n0 5\n"));
    ck_assert_ptr_null(strstr(out, "=(1)"));
    ck_assert_ptr_null(strstr(out, "=(7)"));
    cgprop_graph *back = read_back(out);
    ck_assert_uint_eq(cgprop_graph_node_count(back), 3);
    cgprop_edge_row r = edge_of(back, "main", "(1)");
    ck_assert_uint_eq(r.count, 2);
    ck_assert_uint_eq(r.cost, 5);
    ck_assert_uint_eq(edge_of(back, "main", "(7)'(1)").cost, 1);
    cgprop_graph_free(back);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(callgrind_leading_blanks_kept)
{
    /* Readers skip the blanks after "(id) ": names that start with one are
     * written out in full, and come back with it. */
    cgprop_graph *g = new_graph("Ir");
    uint32_t a = node(g, "o\t lib.c\t f"), b = node(g, "o\tlib.c\t\rg");
    uint64_t one = 1;
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, b, 1, &one, NULL), CGPROP_OK);
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(out, "\nfl= lib.c\nfn= f\n"));
    ck_assert_ptr_nonnull(strstr(out, "\ncfn=\rg\n"));
    cgprop_graph *back = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer(out, strlen(out), "w", 1, NULL, NULL, &back, NULL, &err), CGPROP_OK);
    uint32_t x;
    ck_assert_int_eq(cgprop_graph_find_node(back, "o\t lib.c\t f", 11, &x), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_node(back, "o\tlib.c\t\rg", 10, &x), CGPROP_OK);
    cgprop_graph_free(back);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(callgrind_line_break_refused)
{
    cgprop_graph *g = new_graph("Ir");
    node(g, "main\nfn=evil");
    tbuf b = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "line break"));
    ck_assert_uint_eq(b.n, 0);
    /* JSON carries it escaped. */
    analyse(g, 0);
    char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
    ck_assert_ptr_nonnull(strstr(out, "\"main\\nfn=evil\""));
    free(out);
    free(b.p);
    cgprop_graph_free(g);
}
END_TEST

/* gprof's arcs carry counts only: written, each call would state a cost of
 * 0, which KCachegrind adds to its caller's inclusive cost and cgprop's
 * reader takes as measured. Refused, naming the call; with its cost the
 * same graph writes. */
START_TEST(callgrind_call_without_cost_refused)
{
    cgprop_graph *g = new_graph("cs");
    uint32_t m = node(g, "main"), f = node(g, "f"), h = node(g, "h");
    uint64_t s = 5, c = 5;
    ck_assert_int_eq(cgprop_graph_add_self(g, f, &s), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, h, &s), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, m, f, 3, &c, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, f, h, 2, NULL, NULL), CGPROP_OK);
    tbuf b = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "f -> h has no measured cost"));
    ck_assert_uint_eq(b.n, 0);
    free(b.p);
    ck_assert_int_eq(cgprop_graph_add_edge(g, f, h, 0, &c, NULL), CGPROP_OK);
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(out, "calls=2 0\n0 5\n"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

/* A call into the caller's own file and object names neither, as callgrind
 * writes it (callgrind_annotate strips its working directory from fl= names
 * only, so a cfi= repeating the caller's file listed the callee twice);
 * one into another file names that file, and read back every call joins
 * the functions it joined. */
START_TEST(callgrind_callee_file_only_where_it_differs)
{
    cgprop_graph *g = new_graph("Ir");
    uint32_t m = node(g, "/bin/p\t/src/a.c\tmain"), f = node(g, "/bin/p\t/src/a.c\tf"),
             h = node(g, "/lib/l.so\t/src/b.c\th");
    uint64_t s = 5, c1 = 15, c2 = 5;
    ck_assert_int_eq(cgprop_graph_add_self(g, m, &s), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, f, &s), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, h, &s), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, m, f, 1, &c1, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, f, h, 1, &c2, NULL), CGPROP_OK);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_NO_COMPRESSION;
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, &o);
    ck_assert_ptr_nonnull(strstr(out, "fn=main\n0 5\ncfn=f\ncalls=1 0\n0 15\n"));
    ck_assert_ptr_nonnull(strstr(out, "fn=f\n0 5\ncob=/lib/l.so\ncfi=/src/b.c\ncfn=h\ncalls=1 0\n0 5\n"));
    cgprop_read_options ro;
    cgprop_read_options_init(&ro);
    ro.format = CGPROP_INPUT_CALLGRIND;
    cgprop_graph *back = NULL;
    ck_assert_int_eq(cgprop_read_buffer(out, strlen(out), "w", 1, &ro, NULL, &back, NULL, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_node_count(back), 3);
    ck_assert_uint_eq(edge_of(back, "/bin/p\t/src/a.c\tmain", "/bin/p\t/src/a.c\tf").cost, 15);
    ck_assert_uint_eq(edge_of(back, "/bin/p\t/src/a.c\tf", "/lib/l.so\t/src/b.c\th").cost, 5);
    cgprop_graph_free(back);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(metric_names_one_word_each)
{
    cgprop_graph *g = NULL;
    const char *space[] = {"a b"}, *nl[] = {"x\ny"}, *twice[] = {"a", "a"}, *tab[] = {"a\tb"}, *del[] = {"a\177"};
    const char *both[] = {"a_b", "a b"}, *ok[] = {"a_b", "a-b", "Ir"};
    ck_assert_int_eq(cgprop_graph_new(NULL, space, NULL, 1, &g), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_new(NULL, nl, NULL, 1, &g), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_new(NULL, twice, NULL, 2, &g), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_new(NULL, tab, NULL, 1, &g), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_new(NULL, del, NULL, 1, &g), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_new(NULL, both, NULL, 2, &g), CGPROP_EINVAL);
    ck_assert_ptr_null(g);
    /* Two names alike only within the given lengths. */
    size_t lens[] = {1, 1};
    const char *prefix[] = {"ab", "ac"};
    ck_assert_int_eq(cgprop_graph_new(NULL, prefix, lens, 2, &g), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_graph_new(NULL, ok, NULL, 3, &g), CGPROP_OK);
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(out, "\nevents: a_b a-b Ir\n"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(callgrind_summary_overflow_refused)
{
    cgprop_graph *g = new_graph("Ir");
    uint64_t max = UINT64_MAX;
    ck_assert_int_eq(cgprop_graph_add_self(g, node(g, "a"), &max), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self(g, node(g, "b"), &max), CGPROP_OK);
    tbuf b = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b), CGPROP_EOVERFLOW);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "summary:"));
    ck_assert_uint_eq(b.n, 0);
    free(b.p);
    cgprop_graph_free(g);

    /* A count of 2^64 - 1 beside a call without one: it would have to be
     * written one more. */
    g = new_graph("Ir");
    uint32_t m = node(g, "main"), a = node(g, "a"), c = node(g, "c");
    uint64_t one = 1;
    ck_assert_int_eq(cgprop_graph_add_edge(g, m, a, UINT64_MAX, &one, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge(g, a, c, 0, &one, NULL), CGPROP_OK);
    tbuf b2 = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b2), CGPROP_EOVERFLOW);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "2^64 - 1"));
    ck_assert_uint_eq(b2.n, 0);
    free(b2.p);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(ambiguous_names)
{
    /* Four functions named f and one main. By display name alone they read
     * the same; the views add as much of the key as tells them apart:
     * libb.so's f by its object alone; liba.so has two, told by file; the
     * last two share object and file, so their ids go last. main stays bare. */
    cgprop_graph *g = new_graph("Ir");
    uint32_t m = node(g, "/bin/main\tm.c\tmain");
    uint32_t a1 = node(g, "/usr/lib/liba.so\tsrc/x.c\tf"), a2 = node(g, "/usr/lib/liba.so\tsrc/y.c\tf");
    uint32_t b = node(g, "/usr/lib/libb.so\tx.c\tf");
    /* Same object and file names from two directories: only the id tells. */
    uint32_t c1 = node(g, "/opt/libc.so\tz.c\tf"), c3 = node(g, "/srv/libc.so\tz.c\tf");
    uint64_t one = 1;
    uint32_t fs[5] = {a1, a2, b, c1, c3};
    for (int i = 0; i < 5; i++) {
        ck_assert_int_eq(cgprop_graph_add_self(g, fs[i], &one), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_edge(g, m, fs[i], 1, &one, NULL), CGPROP_OK);
    }
    ck_assert_int_eq(cgprop_graph_add_self(g, m, &one), CGPROP_OK);
    analyse(g, 1);
    char *t = trender(g, CGPROP_FORMAT_TEXT, NULL);
    ck_assert_ptr_nonnull(strstr(t, "f [libb.so]"));
    ck_assert_ptr_nonnull(strstr(t, "f [liba.so, x.c]"));
    ck_assert_ptr_nonnull(strstr(t, "f [liba.so, y.c]"));
    char want1[64], want3[64];
    snprintf(want1, sizeof want1, "f [libc.so, z.c, #%u]", c1);
    snprintf(want3, sizeof want3, "f [libc.so, z.c, #%u]", c3);
    ck_assert_ptr_nonnull(strstr(t, want1));
    ck_assert_ptr_nonnull(strstr(t, want3));
    ck_assert_ptr_null(strstr(t, "main [main]"));
    free(t);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_NO_PRUNE;
    char *d = trender(g, CGPROP_FORMAT_DOT, &o);
    ck_assert_ptr_nonnull(strstr(d, "label=\"f [libb.so]\\n"));
    ck_assert_ptr_nonnull(strstr(d, "label=\"f [liba.so, y.c]\\n"));
    ck_assert_ptr_nonnull(strstr(d, "label=\"main\\n"));
    free(d);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(callgrind_counts_on_every_part)
{
    /* f recursive: main -> f once (10); f -> f'2 once (6) from level 0 and
     * twice (4) from level >= 1: a call of 3 written on two lines, each with
     * the calls of its own class (1 and 2), as KCachegrind shows them in
     * the callers and callees lists. No line says calls=0. */
    cgprop_graph *g = new_graph("Ir");
    uint32_t m = node(g, "main"), f = node(g, "f");
    uint64_t c10 = 10, c6 = 6, c4 = 4, s4 = 4, s6 = 6;
    ck_assert_int_eq(cgprop_graph_add_self_class(g, f, CGPROP_LEVEL_0, &s4), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_self_class(g, f, CGPROP_LEVEL_REC, &s6), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, m, f, CGPROP_LEVEL_0, CGPROP_LEVEL_0, 1, &c10, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, f, f, CGPROP_LEVEL_0, CGPROP_LEVEL_REC, 1, &c6, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_edge_class(g, f, f, CGPROP_LEVEL_REC, CGPROP_LEVEL_REC, 2, &c4, NULL),
                     CGPROP_OK);
    analyse(g, 1);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = CGPROP_W_NO_COMPRESSION;
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, &o);
    ck_assert_ptr_nonnull(strstr(out, "fn=f\n0 4\ncfn=f'2\ncalls=1 0\n0 6\n"));
    ck_assert_ptr_nonnull(strstr(out, "fn=f'2\n0 6\ncfn=f'2\ncalls=2 0\n0 4\n"));
    ck_assert_ptr_null(strstr(out, "calls=0"));
    ck_assert_ptr_null(strstr(out, "desc:"));
    cgprop_graph *back = read_back(out);
    ck_assert_uint_eq(edge_of(back, "f", "f").count, 3);
    ck_assert_uint_eq(edge_of(back, "f", "f").cost, 10);
    cgprop_graph_free(back);
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(callgrind_stacks_counts_one_more)
{
    /* Stacks have no counts (0): each line says 1, the header says why, and
     * the reader takes the 1 off again. */
    const char *text = "main;a 3\nmain 1\n";
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer(text, strlen(text), "s", 1, NULL, NULL, &g, NULL, &err), CGPROP_OK);
    char *out = trender(g, CGPROP_FORMAT_CALLGRIND, NULL);
    ck_assert_ptr_nonnull(strstr(out, "\ndesc: Call counts: every calls= count is one more than the calls made\n"));
    ck_assert_ptr_nonnull(strstr(out, "cfn=(4) a\ncalls=1 0\n0 3\n"));
    cgprop_graph *back = read_back(out);
    ck_assert_uint_eq(edge_of(back, "main", "a").count, 0);
    ck_assert_uint_eq(edge_of(back, "main", "a").cost, 3);
    cgprop_graph_free(back);
    free(out);
    /* A count of 0 in such a file is malformed. */
    cgprop_graph *bad = NULL;
    cgprop_read_options ro;
    cgprop_read_options_init(&ro);
    const char *zero = "desc: Call counts: every calls= count is one more than the calls made\nevents: x\n"
                       "fn=a\n0 1\ncfn=b\ncalls=0 0\n0 1\n";
    ck_assert_int_eq(cgprop_read_buffer(zero, strlen(zero), "z", 1, &ro, NULL, &bad, NULL, &err), CGPROP_EFORMAT);
    ck_assert_uint_eq(err.line, 6);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(json_bytes_outside_utf8)
{
    /* 0xff, an overlong '/' (c0 af) and a surrogate (ed a0 80) are no
     * UTF-8: each byte as \udcXX; a well-formed e-acute (c3 a9) and a
     * 4-byte U+1F600 (f0 9f 98 80) pass through. */
    cgprop_graph *g = new_graph("Ir");
    node(g, "a\xff" "b\xc3\xa9\xc0\xaf\xed\xa0\x80\xf0\x9f\x98\x80\xc3");
    analyse(g, 0);
    char *out = trender(g, CGPROP_FORMAT_JSON, NULL);
    ck_assert_ptr_nonnull(strstr(out, "\"key\":\"a\\udcffb\xc3\xa9\\udcc0\\udcaf\\udced\\udca0\\udc80\xf0\x9f\x98\x80\\udcc3\""));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(text_names_escaped_exact_figures_exact)
{
    /* ESC, BEL and a backslash; main's self 2^53 + 1, which a double
     * cannot hold. */
    cgprop_graph *g = new_graph("Ir");
    uint32_t m = node(g, "x\x1b[31my\x07\\");
    uint64_t big = 9007199254740993ull;
    ck_assert_int_eq(cgprop_graph_add_self(g, m, &big), CGPROP_OK);
    analyse(g, 1);
    char *out = trender(g, CGPROP_FORMAT_TEXT, NULL);
    ck_assert_ptr_null(strchr(out, '\x1b'));
    ck_assert_ptr_null(strchr(out, '\x07'));
    ck_assert_ptr_nonnull(strstr(out, "x\\x1b[31my\\x07\\\\\n"));
    ck_assert_ptr_nonnull(strstr(out, "program total 9007199254740993 "));
    ck_assert_ptr_nonnull(strstr(out, " 9007199254740993 "));
    ck_assert_ptr_null(strstr(out, "9007199254740992"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(text_gap_table_exact)
{
    /* The notes' stacks with weight W = 3002399751580331 each: B's exact
     * C_n is 3W = 2^53 + 1 (A;B, A;B;A, A;B;A;C), and B is in the table of
     * gaps (gprof2dot's estimate is off by more than 0.01 %). */
    cgprop_graph *g = new_graph("w");
    uint32_t A = node(g, "A"), B = node(g, "B"), C = node(g, "C");
    uint32_t s1[] = {A}, s2[] = {A, C}, s3[] = {A, B}, s4[] = {A, B, A}, s5[] = {A, B, A, C};
    uint64_t w = 3002399751580331ull;
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 1, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 2, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 2, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s4, 3, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s5, 4, &w), CGPROP_OK);
    analyse(g, 1);
    char *out = trender(g, CGPROP_FORMAT_TEXT, NULL);
    const char *gaps = strstr(out, "Exact vs estimate");
    ck_assert_ptr_nonnull(gaps);
    const char *row = strstr(gaps, "\n9007199254740993 "); /* wider than its 14 columns */
    ck_assert_ptr_nonnull(row);
    const char *eol = strchr(row + 1, '\n');
    ck_assert(eol && eol - row > 13 && memcmp(eol - 13, "  B <cycle 1>", 13) == 0);
    ck_assert_ptr_null(strstr(out, "9007199254740992"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(dot_long_name_cut)
{
    /* 4095 'a', then e-acute across the 4096th byte: cut before it. */
    char name[6000];
    memset(name, 'a', sizeof name);
    name[4095] = '\xc3';
    name[4096] = '\xa9';
    name[sizeof name - 1] = '\0';
    cgprop_graph *g = new_graph("Ir");
    uint64_t one = 1;
    ck_assert_int_eq(cgprop_graph_add_self(g, node(g, name), &one), CGPROP_OK);
    analyse(g, 0);
    char *out = trender(g, CGPROP_FORMAT_DOT, NULL);
    char want[4200];
    memset(want, 'a', 4095);
    strcpy(want + 4095, "...\\n");
    ck_assert_ptr_nonnull(strstr(out, want));
    ck_assert_ptr_null(strstr(out, "\xc3"));
    free(out);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(write_unknown_flags_refused)
{
    cgprop_graph *g = abc_graph();
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.flags = 1u << 9; /* the first bit no flag uses */
    tbuf b = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, &o, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "unknown flag bits 0x200"));
    free(b.p);
    cgprop_graph_free(g);
}
END_TEST

/* A sink that refuses in the middle of a large output: the writer stops
 * with CGPROP_EWRITE, and what the tbuf_sink took is the start of the full
 * output, whole pieces of it. The output spans several of the writer's
 * pieces (a chain of 15,000 functions: 0.7 MB or more in text, JSON and
 * callgrind),
 * so the refusal comes after pieces were taken. */
START_TEST(sink_refuses_midway)
{
    cgprop_graph *g = new_graph("Ir");
    uint32_t prev = node(g, "f0");
    uint64_t w = 3;
    for (int i = 1; i < 15000; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        uint32_t f = node(g, name);
        uint32_t st[2] = {prev, f};
        ck_assert_int_eq(cgprop_graph_add_stack(g, st, 2, &w), CGPROP_OK);
        prev = f;
    }
    analyse(g, 1);
    for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_CALLGRIND; fmt++) {
        if (fmt == CGPROP_FORMAT_DOT) continue; /* its pruned picture is small */
        tbuf all = {NULL, 0, 0, -1};
        ck_assert_int_eq(cgprop_write(g, fmt, NULL, tbuf_sink, &all), CGPROP_OK);
        ck_assert_msg(all.n > 700000, "format %u: %zu bytes, too few for the test", fmt, all.n);
        tbuf part = {NULL, 0, 0, (int)(all.n * 2 / 3)};
        ck_assert_int_eq(cgprop_write(g, fmt, NULL, tbuf_sink, &part), CGPROP_EWRITE);
        ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "callback"));
        ck_assert_uint_gt(part.n, 0);
        ck_assert_uint_le(part.n, all.n * 2 / 3);
        ck_assert_int_eq(memcmp(part.p, all.p, part.n), 0);
        free(all.p);
        free(part.p);
    }
    cgprop_graph_free(g);
}
END_TEST

START_TEST(errors)
{
    cgprop_graph *g = abc_graph();
    tbuf b = {NULL, 0, 0, 100};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_JSON, NULL, tbuf_sink, &b), CGPROP_EWRITE);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "callback"));
    free(b.p);
    ck_assert_int_eq(cgprop_write(NULL, CGPROP_FORMAT_JSON, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_JSON, NULL, NULL, &b), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_write(g, 99, NULL, tbuf_sink, &b), CGPROP_EINVAL);
    cgprop_write_options o;
    cgprop_write_options_init(&o);
    o.metric = 1;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_TEXT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    o.metric = 0;
    o.node_thres = NAN;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, &o, tbuf_sink, &b), CGPROP_EINVAL);
    ck_assert_int_eq(cgprop_write_path(g, CGPROP_FORMAT_DOT, NULL, "/nonexistent/dir/x.dot", 22), CGPROP_EWRITE);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "/nonexistent/dir/x.dot"));
    /* A mutation makes the results stale: views need propagate again. */
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_add_node(g, "new", 3, &id), CGPROP_OK);
    tbuf b2 = {NULL, 0, 0, -1};
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_TEXT, NULL, tbuf_sink, &b2), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_JSON, NULL, tbuf_sink, &b2), CGPROP_ESTATE);
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_DOT, NULL, tbuf_sink, &b2), CGPROP_ESTATE);
    /* callgrind needs no analysis */
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, tbuf_sink, &b2), CGPROP_OK);
    free(b2.p);
    cgprop_graph_free(g);
}
END_TEST

/* Allocation failure at every point: ENOMEM, nothing leaks (ASan/valgrind
 * runs check), and the graph still writes afterwards. */
typedef struct failing {
    long left;
} failing;
static void *f_malloc(void *u, size_t n)
{
    failing *f = u;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    return malloc(n);
}
static void *f_realloc(void *u, void *p, size_t n)
{
    failing *f = u;
    if (f->left == 0) return NULL;
    if (f->left > 0) f->left--;
    return realloc(p, n);
}
static void f_free(void *u, void *p)
{
    (void)u;
    free(p);
}

START_TEST(allocation_failures)
{
    failing fl = {-1};
    cgprop_allocator al = {f_malloc, f_realloc, f_free, &fl};
    cgprop_graph *g = NULL;
    const char *names[1] = {"w"};
    ck_assert_int_eq(cgprop_graph_new(&al, names, NULL, 1, &g), CGPROP_OK);
    uint32_t A, B, C;
    ck_assert_int_eq(cgprop_graph_add_node(g, "A", 1, &A), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "B", 1, &B), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_node(g, "C", 1, &C), CGPROP_OK);
    uint32_t s4[] = {A, B, A, C}, s2[] = {A, C};
    uint64_t w = 10;
    ck_assert_int_eq(cgprop_graph_add_stack(g, s4, 4, &w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 2, &w), CGPROP_OK);
    analyse(g, 1);
    for (uint32_t fmt = CGPROP_FORMAT_TEXT; fmt <= CGPROP_FORMAT_CALLGRIND; fmt++) {
        int ok = 0;
        for (long n = 0; n < 10000 && !ok; n++) {
            tbuf b = {NULL, 0, 0, -1};
            fl.left = n;
            int rc = cgprop_write(g, fmt, NULL, tbuf_sink, &b);
            fl.left = -1;
            free(b.p);
            if (rc == CGPROP_OK) ok = 1;
            else ck_assert_msg(rc == CGPROP_ENOMEM, "format %u, failure %ld: %d", fmt, n, rc);
        }
        ck_assert(ok);
    }
    cgprop_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("writers");
    TCase *t = tcase_create("core");
    tcase_add_test(t, json_notes_example);
    tcase_add_test(t, sink_refuses_midway);
    tcase_add_test(t, json_no_classes_no_split_object);
    tcase_add_test(t, json_escapes_and_no_nonfinite);
    tcase_add_test(t, json_no_total_per_metric);
    tcase_add_test(t, clamp_and_floor_counts_in_json_and_text);
    tcase_add_test(t, text_exact_where_split_says_so);
    tcase_add_test(t, text_estimates_without_classes);
    tcase_add_test(t, dot_labels_colours_and_pruning);
    tcase_add_test(t, dot_exact_node_not_dashed);
    tcase_add_test(t, callgrind_classes_written_as_names);
    tcase_add_test(t, callgrind_name_spelling_an_id);
    tcase_add_test(t, callgrind_leading_blanks_kept);
    tcase_add_test(t, callgrind_line_break_refused);
    tcase_add_test(t, callgrind_call_without_cost_refused);
    tcase_add_test(t, callgrind_callee_file_only_where_it_differs);
    tcase_add_test(t, metric_names_one_word_each);
    tcase_add_test(t, callgrind_summary_overflow_refused);
    tcase_add_test(t, callgrind_counts_on_every_part);
    tcase_add_test(t, ambiguous_names);
    tcase_add_test(t, callgrind_stacks_counts_one_more);
    tcase_add_test(t, json_bytes_outside_utf8);
    tcase_add_test(t, text_names_escaped_exact_figures_exact);
    tcase_add_test(t, text_gap_table_exact);
    tcase_add_test(t, dot_long_name_cut);
    tcase_add_test(t, write_unknown_flags_refused);
    tcase_add_test(t, errors);
    tcase_add_test(t, allocation_failures);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
