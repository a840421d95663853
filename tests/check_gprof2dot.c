/* cgprop against gprof2dot's own output on random recursive callgrind
 * profiles (tests/data/g2d_random, made by scripts/gen_recursive_callgrind.py
 * and scripts/check_gprof2dot.py --golden; docs/PROPAGATION.md, "Agreement
 * with gprof2dot").
 *
 * Each NAME.callgrind comes with what gprof2dot computes from it (fractions
 * of the program total): NAME.tsv is gprof2dot as it is (absent where
 * gprof2dot fails its own assertion), NAME.design.tsv is gprof2dot with the
 * corner-case rules cgprop settles differently (present where one of them
 * changes a figure), NAME.mK.tsv is cgprop's figure of metric K
 * (gprof2dot on the file with event K moved first: it reads only the first
 * event). MANIFEST lists NAME, the rules that apply and the extra metrics.
 *
 * The graph is built as gprof2dot builds it: functions keyed by bare name,
 * fn'N names kept apart, shares by call cost. Every function total, call
 * total (or its absence), cycle total and share of a call between vertices
 * must equal cgprop's expected figure to 1e-9 of the program total; where a rule
 * applies, the test also shows that gprof2dot's own figure differs (or
 * that gprof2dot could not produce one). */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_io.h"
#include "support.h"

#define DIR CGPROP_TEST_DATA "/g2d_random"

/* The file at path, as tslurp reads it; NULL if it cannot be opened and
 * need not be there. */
static char *slurp(const char *path, bool must)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ck_assert_msg(!must, "cannot open %s", path);
        return NULL;
    }
    fclose(f);
    return tslurp(path, NULL);
}

/* ---- gprof2dot's TSV ---- */

typedef struct row {
    char kind; /* F, C or Z */
    const char *a, *b, *cycle;
    bool has_total, has_ratio;
    double total, ratio;
} row;

typedef struct tsv {
    char *buf;
    row *rows;
    size_t n;
} tsv;

static bool load_tsv(const char *path, tsv *t)
{
    memset(t, 0, sizeof *t);
    t->buf = slurp(path, false);
    if (!t->buf) return false;
    size_t cap = 64;
    t->rows = malloc(cap * sizeof *t->rows);
    for (char *l = t->buf; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl) *nl = '\0';
        if (*l == 'F' || *l == 'C' || *l == 'Z') {
            char *f[9] = {0};
            int k = 0;
            f[k++] = l;
            for (char *p = l; *p && k < 9; p++)
                if (*p == '\t') {
                    *p = '\0';
                    f[k++] = p + 1;
                }
            ck_assert_int_ge(k, 6);
            if (t->n == cap) t->rows = realloc(t->rows, (cap *= 2) * sizeof *t->rows);
            row *r = &t->rows[t->n++];
            memset(r, 0, sizeof *r);
            r->kind = *l;
            r->a = f[1];
            r->b = f[2];
            r->cycle = f[3];
            r->has_total = f[5][0] != '\0';
            r->total = atof(f[5]);
            r->has_ratio = k > 6 && f[6][0] != '\0';
            r->ratio = r->has_ratio ? atof(f[6]) : 0;
        }
        l = nl ? nl + 1 : NULL;
    }
    return true;
}

static void free_tsv(tsv *t)
{
    free(t->rows);
    free(t->buf);
}

/* ---- cgprop ---- */

static cgprop_graph *analyse(const char *path)
{
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_CALLGRIND;
    o.key_mode = CGPROP_KEY_NAME;
    o.no_fold_recursion = 1;
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_file(path, strlen(path), &o, NULL, &g, NULL, &err);
    ck_assert_msg(rc == CGPROP_OK, "%s:%llu: %s", err.file, (unsigned long long)err.line, err.reason);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COST), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    return g;
}

static uint32_t node(cgprop_graph *g, const char *name) { return tfind(g, name); }

static double program_total(cgprop_graph *g, uint32_t m)
{
    double s = 0;
    for (uint32_t i = 0; i < cgprop_graph_node_count(g); i++) {
        cgprop_node_row r;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, i, &r, sizeof r), CGPROP_OK);
        s += (double)r.self;
    }
    return s;
}

/* cgprop's figure for one TSV row, metric m; *none: cgprop gives it no total. */
static double figure(cgprop_graph *g, const row *r, uint32_t m, bool *none, double *share, bool *between)
{
    *none = false;
    *between = false;
    if (r->kind == 'F') {
        cgprop_total_row t;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, m, node(g, r->a), &t, sizeof t), CGPROP_OK);
        return t.heuristic;
    }
    uint32_t e;
    ck_assert_msg(cgprop_graph_find_edge(g, node(g, r->a), node(g, r->b), &e) == CGPROP_OK, "no call %s -> %s",
                  r->a, r->b);
    cgprop_edge_total_row t;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, m, e, &t, sizeof t), CGPROP_OK);
    *none = (t.flags & CGPROP_F_NO_TOTAL) != 0;
    *between = !(t.flags & (CGPROP_F_SELF_CALL | CGPROP_F_INTRA_CYCLE));
    *share = t.share;
    return t.heuristic;
}

/* cgprop's cycle holding the functions gprof2dot numbers `idx`. */
static double cycle_total(cgprop_graph *g, const tsv *t, const char *idx, uint32_t m)
{
    for (size_t i = 0; i < t->n; i++) {
        if (t->rows[i].kind != 'F' || strcmp(t->rows[i].cycle, idx) != 0) continue;
        cgprop_total_row f;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, m, node(g, t->rows[i].a), &f, sizeof f),
                         CGPROP_OK);
        ck_assert_uint_ne(f.cycle, CGPROP_NONE);
        cgprop_cycle_row c;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, m, f.cycle, &c, sizeof c), CGPROP_OK);
        return c.total;
    }
    ck_abort_msg("cycle %s has no member", idx);
    return 0;
}

/* Every figure of `want` (the expected one) against cgprop, metric m. Returns the
 * number of rows compared. */
static size_t check_metric(cgprop_graph *g, const char *name, const tsv *want, uint32_t m)
{
    double P = program_total(g, m), tol = 1e-9 * P;
    size_t nf = 0, nc = 0, nz = 0;
    for (size_t i = 0; i < want->n; i++) {
        const row *r = &want->rows[i];
        if (r->kind == 'Z') {
            double got = cycle_total(g, want, r->a, m);
            ck_assert_msg(fabs(got - r->total * P) <= tol, "%s m%u: cycle %s total %.17g, gprof2dot %.17g", name, m,
                          r->a, got, r->total * P);
            nz++;
            continue;
        }
        bool none, between;
        double share = 0;
        double got = figure(g, r, m, &none, &share, &between);
        if (r->kind == 'F') nf++;
        else nc++;
        if (!r->has_total) {
            ck_assert_msg(none, "%s m%u: %s -> %s has total %.17g, gprof2dot none", name, m, r->a, r->b, got);
            continue;
        }
        /* gprof2dot also gives 0.0 to intra-cycle calls that only entries
         * with ρ = 0 keep; cgprop's per-root propagation takes entries with ρ > 0
         * only. */
        ck_assert_msg(!none || fabs(r->total * P) <= tol, "%s m%u: %s -> %s no total, gprof2dot %.17g", name, m,
                      r->a, r->b, r->total * P);
        ck_assert_msg(fabs(got - r->total * P) <= tol, "%s m%u: %c %s %s total %.17g, gprof2dot %.17g", name, m,
                      r->kind, r->a, r->b, got, r->total * P);
        if (r->kind == 'C' && between)
            ck_assert_msg(fabs(share - r->ratio) <= 1e-9, "%s m%u: %s -> %s share %.17g, gprof2dot %.17g", name, m,
                          r->a, r->b, share, r->ratio);
    }
    ck_assert_uint_eq(nf, cgprop_graph_node_count(g));
    ck_assert_uint_eq(nc, cgprop_graph_edge_count(g));
    size_t ncyc = 0;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &ncyc), CGPROP_OK);
    ck_assert_uint_eq(nz, ncyc);
    return nf + nc + nz;
}

/* Rows where gprof2dot's own figure and the rule's differ by more than tol. */
static size_t rule_shows(const tsv *plain, const tsv *design, double tol_ratio)
{
    ck_assert_uint_eq(plain->n, design->n);
    size_t d = 0;
    for (size_t i = 0; i < plain->n; i++) {
        const row *a = &plain->rows[i], *b = &design->rows[i];
        ck_assert(a->kind == b->kind && strcmp(a->a, b->a) == 0 && strcmp(a->b, b->b) == 0);
        if (a->has_total != b->has_total || fabs(a->total - b->total) > tol_ratio ||
            a->has_ratio != b->has_ratio || fabs(a->ratio - b->ratio) > tol_ratio)
            d++;
    }
    return d;
}

START_TEST(random_profiles_match_gprof2dot)
{
    char *man = slurp(DIR "/MANIFEST", true);
    size_t files = 0, figures = 0, with_rule = 0, g2d_failed = 0, differ = 0;
    bool seen_rule[4] = {false, false, false, false};
    /* zero_in,: a function's callers all weigh 0; zero_inz: a cycle's (InZ = 0). */
    static const char *const rules[4] = {"zero_in,", "zero_inz", "zero_kept", "root_cycle"};
    for (char *l = man; l && *l;) {
        char *nl = strchr(l, '\n');
        if (nl) *nl = '\0';
        char name[64], rl[64], ms[64];
        ck_assert_int_eq(sscanf(l, "%63s %63s %63s", name, rl, ms), 3);
        char path[512];
        snprintf(path, sizeof path, DIR "/%s.callgrind", name);
        cgprop_graph *g = analyse(path);
        tsv plain, design;
        snprintf(path, sizeof path, DIR "/%s.tsv", name);
        bool have_plain = load_tsv(path, &plain);
        snprintf(path, sizeof path, DIR "/%s.design.tsv", name);
        bool have_design = load_tsv(path, &design);
        bool has_rule = strcmp(rl, "-") != 0;
        ck_assert_msg(has_rule == have_design, "%s: a design table exactly where a rule applies", name);
        ck_assert_msg(have_plain || has_rule, "%s: gprof2dot fails only on cgprop's corner cases", name);
        figures += check_metric(g, name, have_design ? &design : &plain, 0);
        if (has_rule) {
            with_rule++;
            char rl2[72];
            snprintf(rl2, sizeof rl2, "%s,", rl);
            for (int k = 0; k < 4; k++)
                if (strstr(rl2, rules[k])) seen_rule[k] = true;
            /* Both numbers: cgprop's (above) and gprof2dot's own, which the
             * rule changes, or which gprof2dot cannot produce (it fails its
             * assertion on double counting). */
            if (have_plain) {
                size_t d = rule_shows(&plain, &design, 1e-9);
                ck_assert_msg(d > 0, "%s: rule %s changes nothing", name, rl);
                differ += d;
            } else g2d_failed++;
        }
        /* Other metrics: gprof2dot on the file with that event first. */
        if (strcmp(ms, "-") != 0)
            for (char *p = ms; *p;) {
                uint32_t m = (uint32_t)strtoul(p, &p, 10);
                tsv mt;
                snprintf(path, sizeof path, DIR "/%s.m%u.tsv", name, m);
                ck_assert_msg(load_tsv(path, &mt), "missing %s", path);
                figures += check_metric(g, name, &mt, m);
                free_tsv(&mt);
                if (*p == ',') p++;
            }
        if (have_plain) free_tsv(&plain);
        if (have_design) free_tsv(&design);
        cgprop_graph_free(g);
        files++;
        l = nl ? nl + 1 : NULL;
    }
    free(man);
    /* The set shows every rule, and gprof2dot failing on one of them. */
    ck_assert_uint_ge(files, 30);
    ck_assert(seen_rule[0] && seen_rule[1] && seen_rule[2] && seen_rule[3]);
    ck_assert_uint_gt(g2d_failed, 0);
    ck_assert_uint_gt(differ, 0);
    ck_assert_uint_lt(with_rule, files);
    ck_assert_uint_gt(figures, 1000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gprof2dot");
    TCase *tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_profiles_match_gprof2dot);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
