/* Callgrind reader: real valgrind files against measured truth, gprof2dot's
 * own totals, the grammar on hand-written inputs (values worked out by hand),
 * and malformed input. */
/* opendir/readdir under -std=c11. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_io.h"
#include "graph.h"

#define DATA CGPROP_TEST_DATA

/* ---- helpers ---- */

static cgprop_graph *read_path(const char *path, const cgprop_read_options *o, cgprop_read_info *info)
{
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_file(path, strlen(path), o, NULL, &g, info, &err);
    ck_assert_msg(rc == CGPROP_OK, "%s:%llu: %s", err.file, (unsigned long long)err.line, err.reason);
    ck_assert(g != NULL);
    return g;
}

static cgprop_graph *read_text(const char *text, const cgprop_read_options *o, cgprop_read_info *info)
{
    return tread(text, strlen(text), "t", o, info);
}

/* Read and expect failure; returns the error. */
static cgprop_read_error read_bad(const char *text, int code, uint64_t line)
{
    return tread_bad(text, strlen(text), "bad.out", CGPROP_INPUT_CALLGRIND, code, line, NULL);
}

static cgprop_split_row split_of(cgprop_graph *g, const char *key, uint32_t metric)
{
    cgprop_split_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, metric, tfind(g, key), &r, sizeof r),
                     CGPROP_OK);
    return r;
}

/* Σ of the first value of every "totals:" line, read straight from the file. */
static uint64_t file_totals(const char *path)
{
    size_t len;
    char *p = tslurp(path, &len);
    uint64_t s = 0;
    for (char *l = p; l && *l;) {
        if (strncmp(l, "totals:", 7) == 0) s += strtoull(l + 7, NULL, 10);
        l = strchr(l, '\n');
        if (l) l++;
    }
    free(p);
    return s;
}

static const char *const fns[5] = {"main", "fa", "fb", "fib", "leafc"};

static void truth(uint64_t t[5])
{
    FILE *f = fopen(DATA "/recur/truth-toggle-collect.txt", "r");
    ck_assert(f != NULL);
    char name[64];
    unsigned long long v;
    int seen = 0;
    while (fscanf(f, "%63s %llu", name, &v) == 2)
        for (int i = 0; i < 5; i++)
            if (strcmp(name, fns[i]) == 0) {
                t[i] = v;
                seen |= 1 << i;
            }
    fclose(f);
    ck_assert_int_eq(seen, 31);
}

static void recur_key(char *buf, size_t n, const char *fn)
{
    /* Documented key format: object TAB file TAB name. */
    snprintf(buf, n, "recur\t././recur.c\t%s", fn);
}

/* C_n of the five recur.c functions equals the measured truth, exactly, and
 * the program total equals the file's totals: lines. */
static void check_recur_exact(const char *file, uint32_t expect_N, uint64_t expect_parts)
{
    char path[512];
    snprintf(path, sizeof path, DATA "/recur/%s", file);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_path(path, NULL, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_CALLGRIND);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_NAMES);
    ck_assert_uint_eq(info.separate_recs, expect_N);
    ck_assert_uint_eq(info.parts, expect_parts);
    ck_assert(info.flags & CGPROP_RI_TOTALS);
    uint64_t tot = file_totals(path);
    ck_assert_uint_eq(tself_sum(g, 0), tot);
    ck_assert_uint_eq(info_tot[0], tot);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    uint64_t t[5];
    truth(t);
    for (int i = 0; i < 5; i++) {
        char key[128];
        recur_key(key, sizeof key, fns[i]);
        cgprop_split_row r = split_of(g, key, 0);
        ck_assert_msg(r.C_n == t[i], "%s: C_n(%s) = %llu, truth %llu", file, fns[i], (unsigned long long)r.C_n,
                      (unsigned long long)t[i]);
        ck_assert_msg(!(r.inexact & CGPROP_X_C_N), "%s: C_n(%s) flagged inexact", file, fns[i]);
        ck_assert_uint_eq(r.S_n + r.S_r, tself(g, key, 0));
    }
    cgprop_graph_free(g);
}

/* Many functions with long names: the reader adds the functions' keys in
 * batches of a thousand or so, into a buffer that must grow for names this
 * long. 3,000 functions g<i>_xxx… (200 bytes) in objects ob<i % 7> and
 * files fl<i % 5>.c, self cost i + 1, each calling the next once at cost
 * N - i - 1; then g5's level-2 name g5'2 with self cost 7, which folds
 * into g5 (a key made again, long after g5's batch). */
static void long_name(char *b, int i) { snprintf(b, 256, "g%d_%0*d", i, 200 - snprintf(NULL, 0, "g%d_", i), 0); }

START_TEST(many_long_names)
{
    enum { N = 3000 };
    size_t cap = (size_t)N * 700, n = 0;
    char *t = malloc(cap), a[256], b[256], key[300];
    ck_assert_ptr_nonnull(t);
    n += (size_t)snprintf(t + n, cap - n, "events: Ir\n");
    for (int i = 0; i < N; i++) {
        long_name(a, i);
        n += (size_t)snprintf(t + n, cap - n, "ob=ob%d\nfl=fl%d.c\nfn=%s\n0 %d\n", i % 7, i % 5, a, i + 1);
        if (i + 1 < N) {
            long_name(b, i + 1);
            n += (size_t)snprintf(t + n, cap - n, "cob=ob%d\ncfi=fl%d.c\ncfn=%s\ncalls=1 0\n0 %d\n", (i + 1) % 7,
                                  (i + 1) % 5, b, N - i - 1);
        }
    }
    long_name(a, 5);
    n += (size_t)snprintf(t + n, cap - n, "ob=ob5\nfl=fl0.c\nfn=%s'2\n0 7\n", a);
    ck_assert_uint_lt(n, cap);
    cgprop_graph *g = read_text(t, NULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), N);
    static const int at[] = {0, 5, 1023, 1024, 1025, 2047, 2048, 2999};
    for (size_t j = 0; j < sizeof at / sizeof at[0]; j++) {
        int i = at[j];
        long_name(a, i);
        snprintf(key, sizeof key, "ob%d\tfl%d.c\t%s", i % 7, i % 5, a);
        ck_assert_uint_eq(tself(g, key, 0), i == 5 ? 6 + 7 : (uint64_t)i + 1);
    }
    char k2[300];
    long_name(a, 1023);
    long_name(b, 1024);
    snprintf(key, sizeof key, "ob%d\tfl%d.c\t%s", 1023 % 7, 1023 % 5, a);
    snprintf(k2, sizeof k2, "ob%d\tfl%d.c\t%s", 1024 % 7, 1024 % 5, b);
    cgprop_edge_row e = tedge(g, key, k2, 0);
    ck_assert_uint_eq(e.count, 1);
    ck_assert_uint_eq(e.cost, N - 1023 - 1);
    cgprop_graph_free(g);
    free(t);
}
END_TEST

START_TEST(recur_default) { check_recur_exact("recur.default.callgrind.out", 2, 1); }
END_TEST
START_TEST(recur_recs3) { check_recur_exact("recur.recs3.callgrind.out", 3, 1); }
END_TEST
START_TEST(recur_instr_jumps) { check_recur_exact("recur.instr-jumps.main.callgrind.out", 2, 1); }
END_TEST
START_TEST(recur_callers2) { check_recur_exact("recur.callers2.main.callgrind.out", 2, 1); }
END_TEST
START_TEST(recur_combined) { check_recur_exact("recur.combined-parts.main.callgrind.out", 2, 2); }
END_TEST

START_TEST(recur_recs3_levels)
{
    /* With --separate-recs=3, fn'2 is exactly level 1: C_r(fa) is the one
     * call fb -> fa'2 (6,547 in the file), and exact. */
    cgprop_graph *g = read_path(DATA "/recur/recur.recs3.callgrind.out", NULL, NULL);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    char key[128];
    recur_key(key, sizeof key, "fa");
    cgprop_split_row r = split_of(g, key, 0);
    ck_assert_uint_eq(r.C_r, 6547);
    ck_assert(!(r.inexact & CGPROP_X_C_R));
    /* fn'3 (level >= 2) self cost is kept apart from fn'2's, as
     * callgrind_annotate reads the file: fib'3 32,491 and fib'2 40, fa'3 59
     * and fa'2 16, fb'3 48 and fb'2 16. */
    static const struct { const char *fn; uint64_t s2, s3; } deep[] = {
        {"fib", 40, 32491}, {"fa", 16, 59}, {"fb", 16, 48}};
    for (size_t i = 0; i < sizeof deep / sizeof deep[0]; i++) {
        char k[128];
        uint32_t id;
        recur_key(k, sizeof k, deep[i].fn);
        ck_assert_int_eq(cgprop_graph_find_node(g, k, strlen(k), &id), CGPROP_OK);
        const uint64_t *sd = cgprop__dself_row(g, id);
        ck_assert_ptr_nonnull(sd);
        ck_assert_uint_eq(sd[0], deep[i].s3);
        ck_assert_uint_eq(split_of(g, k, 0).S_r, deep[i].s2 + deep[i].s3);
    }
    cgprop_graph_free(g);
    /* With the default file fa'2 lumps levels >= 1: C_r cannot be exact. */
    g = read_path(DATA "/recur/recur.default.callgrind.out", NULL, NULL);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    r = split_of(g, key, 0);
    ck_assert(r.inexact & CGPROP_X_C_R);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(recur_callers_contexts)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_path(DATA "/recur/recur.callers2.main.callgrind.out", NULL, &info);
    ck_assert(info.flags & CGPROP_RI_CALLER_CONTEXTS);
    /* Contexts are summed: no function name keeps a quote. */
    for (uint32_t i = 0; i < cgprop_graph_node_count(g); i++) {
        const char *n = cgprop_node_display_name(g, i, NULL);
        ck_assert_msg(strchr(n, '\'') == NULL, "unfolded name %s", n);
    }
    /* leafc is called from main, fa, fa'2, fb, fb'2 contexts: one function. */
    char k1[128], k2[128];
    recur_key(k1, sizeof k1, "main");
    recur_key(k2, sizeof k2, "leafc");
    ck_assert_uint_eq(tedge(g, k1, k2, 0).count, 1);
    cgprop_graph_free(g);
    /* Without contexts the default file is not taken for one. */
    g = read_path(DATA "/recur/recur.default.callgrind.out", NULL, &info);
    ck_assert(!(info.flags & CGPROP_RI_CALLER_CONTEXTS));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(recur_combined_parts)
{
    /* (below main) -> main is split across the dump: 7,961 + 45,178. */
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_path(DATA "/recur/recur.combined-parts.main.callgrind.out", NULL, &info);
    ck_assert_uint_eq(info.parts, 2);
    ck_assert_uint_eq(info_tot[0], 7961 + 45178);
    char k[128];
    recur_key(k, sizeof k, "main");
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    ck_assert_uint_eq(split_of(g, k, 0).C_n, 53139);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(recur_recs1)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    const char *path = DATA "/recur/recur.recs1.callgrind.out";
    cgprop_graph *g = read_path(path, NULL, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_WITHHELD);
    ck_assert_uint_eq(tself_sum(g, 0), file_totals(path));
    /* The cycle total is exact: T(fa+fb cycle) = 7,953. */
    size_t ncyc;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &ncyc), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COST), CGPROP_OK);
    char ka[128], kb[128];
    recur_key(ka, sizeof ka, "fa");
    recur_key(kb, sizeof kb, "fb");
    uint32_t cyc, cyc2;
    ck_assert_int_eq(cgprop_graph_node_cycle(g, tfind(g, ka), &cyc), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_node_cycle(g, tfind(g, kb), &cyc2), CGPROP_OK);
    ck_assert_uint_ne(cyc, CGPROP_NONE);
    ck_assert_uint_eq(cyc, cyc2);
    cgprop_cycle_row cr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_CYCLES, 0, cyc, &cr, sizeof cr), CGPROP_OK);
    ck_assert_uint_eq(cr.nmembers, 2);
    ck_assert_double_eq_tol(cr.total, 7953.0, 1e-6);
    /* The split is withheld: fa and fb never come out exact, and whatever
     * is not flagged is the truth. */
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    uint64_t t[5];
    truth(t);
    for (int i = 0; i < 5; i++) {
        char key[128];
        recur_key(key, sizeof key, fns[i]);
        cgprop_split_row r = split_of(g, key, 0);
        if (i == 1 || i == 2) ck_assert_msg(r.inexact & CGPROP_X_C_N, "C_n(%s) not flagged", fns[i]);
        if (!(r.inexact & CGPROP_X_C_N))
            ck_assert_msg(r.C_n == t[i], "C_n(%s) = %llu claimed exact, truth %llu", fns[i],
                          (unsigned long long)r.C_n, (unsigned long long)t[i]);
    }
    cgprop_graph_free(g);
    /* The option forces the same on a file with fn'N names. */
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.separate_recs = 1;
    g = read_path(DATA "/recur/recur.default.callgrind.out", &o, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_WITHHELD);
    cgprop_graph_free(g);
    /* But not the other way: a run made with --separate-recs=2 or more
     * would have named fa's and fb's inner activations fa'2 and fb'2. Taken
     * at its word, the option made every plain name level 0, and fa and fb
     * came out "exact" at 2,498 and 2,572 (truth 1,156 and 1,206). */
    for (uint32_t n = 2; n <= 10; n += 8) {
        o.separate_recs = n;
        g = read_path(path, &o, &info);
        ck_assert_uint_eq(info.recursion, CGPROP_RECS_WITHHELD);
        ck_assert_int_eq(cgprop_graph_find_cycles(g, &ncyc), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COST), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
        for (int i = 0; i < 5; i++) {
            char key[128];
            recur_key(key, sizeof key, fns[i]);
            cgprop_split_row r = split_of(g, key, 0);
            if (i == 1 || i == 2) ck_assert_msg(r.inexact & CGPROP_X_C_N, "C_n(%s) not flagged", fns[i]);
            if (!(r.inexact & CGPROP_X_C_N)) ck_assert_uint_eq(r.C_n, t[i]);
        }
        cgprop_graph_free(g);
    }
}
END_TEST

/* ---- gprof2dot's totals ---- */

typedef struct tsv_row {
    char kind;
    char *a, *b, *cycle;
    double total_ratio, call_ratio, call_cost;
    int has_total, has_call_ratio;
} tsv_row;

/* Split one tab-separated line in place into at most n fields. */
static int fields(char *l, char **f, int n)
{
    int k = 0;
    f[k++] = l;
    for (char *p = l; *p && k < n; p++)
        if (*p == '\t') {
            *p = '\0';
            f[k++] = p + 1;
        }
    return k;
}

static size_t read_tsv(const char *path, tsv_row **out, char **buf)
{
    size_t len;
    char *p = tslurp(path, &len);
    size_t cap = 1024, n = 0;
    tsv_row *rows = malloc(cap * sizeof *rows);
    char *l = p;
    while (l && *l) {
        char *nl = strchr(l, '\n');
        if (nl) *nl = '\0';
        if (l[0] == 'F' || l[0] == 'C') {
            char *f[9] = {0};
            int k = fields(l, f, 9);
            ck_assert_int_ge(k, 6);
            if (n == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
            tsv_row *r = &rows[n++];
            memset(r, 0, sizeof *r);
            r->kind = l[0];
            r->a = f[1];
            r->b = f[2];
            if (r->kind == 'F') {
                r->cycle = f[3];
                r->has_total = f[5][0] != '\0';
                r->total_ratio = atof(f[5]);
            } else {
                r->has_total = f[5][0] != '\0';
                r->total_ratio = atof(f[5]);
                r->has_call_ratio = k > 6 && f[6][0] != '\0';
                r->call_ratio = k > 6 ? atof(f[6]) : 0;
                r->call_cost = k > 8 ? atof(f[8]) : 0;
            }
        }
        l = nl ? nl + 1 : NULL;
    }
    *out = rows;
    *buf = p;
    return n;
}

static cgprop_graph *gprof2dot_graph(const char *name, double **totals, double *P)
{
    char path[512];
    snprintf(path, sizeof path, DATA "/gprof2dot/%s.callgrind", name);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.key_mode = CGPROP_KEY_NAME;
    o.no_fold_recursion = 1;
    cgprop_graph *g = read_path(path, &o, NULL);
    size_t nc;
    ck_assert_int_eq(cgprop_graph_find_cycles(g, &nc), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_COST), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    size_t nn = cgprop_graph_node_count(g);
    *totals = malloc(nn * sizeof **totals);
    for (uint32_t i = 0; i < nn; i++) {
        cgprop_total_row r;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, i, &r, sizeof r), CGPROP_OK);
        (*totals)[i] = r.heuristic;
    }
    *P = (double)tself_sum(g, 0);
    return g;
}

static void check_gprof2dot_equal(const char *name)
{
    double *tot, P;
    cgprop_graph *g = gprof2dot_graph(name, &tot, &P);
    char path[512];
    snprintf(path, sizeof path, DATA "/gprof2dot/%s.callgrind.tsv", name);
    tsv_row *rows;
    char *buf;
    size_t n = read_tsv(path, &rows, &buf);
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind != 'F') continue;
        nf++;
        uint32_t id = tfind(g, rows[i].a);
        ck_assert_msg(fabs(tot[id] - rows[i].total_ratio * P) <= 1e-9 * P, "%s: %s total %.17g, gprof2dot %.17g",
                      name, rows[i].a, tot[id], rows[i].total_ratio * P);
    }
    ck_assert_uint_eq(nf, cgprop_graph_node_count(g));
    free(rows);
    free(buf);
    free(tot);
    cgprop_graph_free(g);
}

START_TEST(gprof2dot_bool) { check_gprof2dot_equal("bool"); }
END_TEST
START_TEST(gprof2dot_issue98) { check_gprof2dot_equal("googlecode-issue98"); }
END_TEST
START_TEST(gprof2dot_xapian) { check_gprof2dot_equal("xapian"); }
END_TEST
START_TEST(gprof2dot_abc) { check_gprof2dot_equal("abc"); }
END_TEST
START_TEST(gprof2dot_abc2) { check_gprof2dot_equal("abc2"); }
END_TEST

/* bzr: gprof2dot gives every zero-weight call into a callee whose callers
 * all weigh 0 the ratio 1.0 (counting the callee once per caller); cgprop
 * gives each 1/k. Apply that rule: find the calls it affects in gprof2dot's
 * own table, and check that every function that cannot reach one of them
 * agrees to 1e-9 of the total, and that the others are the only ones that
 * differ. */
START_TEST(gprof2dot_bzr)
{
    double *tot, P;
    cgprop_graph *g = gprof2dot_graph("bzr", &tot, &P);
    tsv_row *rows;
    char *buf;
    size_t n = read_tsv(DATA "/gprof2dot/bzr.callgrind.tsv", &rows, &buf);
    size_t nn = cgprop_graph_node_count(g);
    /* gprof2dot's cycle of each function ("" for none): calls inside one
     * cycle take no share. */
    const char **cyc = calloc(nn, sizeof *cyc);
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == 'F') cyc[tfind(g, rows[i].a)] = rows[i].cycle;
#define EXTERNAL(f, h) ((f) != (h) && !(cyc[h][0] && strcmp(cyc[f], cyc[h]) == 0))
    /* Zero-weight external calls per callee. */
    uint32_t *zero_in = calloc(nn, sizeof *zero_in), *pos_in = calloc(nn, sizeof *pos_in);
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind != 'C') continue;
        if (!EXTERNAL(tfind(g, rows[i].a), tfind(g, rows[i].b))) continue;
        uint32_t h = tfind(g, rows[i].b);
        if (rows[i].call_cost == 0) zero_in[h]++;
        else pos_in[h]++;
    }
    /* Calls into a cycle share by the cycle's external weight. */
    uint32_t *zero_g = calloc(nn, sizeof *zero_g), *pos_g = calloc(nn, sizeof *pos_g);
    for (uint32_t h = 0; h < nn; h++) {
        for (uint32_t m = 0; m < nn; m++)
            if (m == h || (cyc[h][0] && strcmp(cyc[m], cyc[h]) == 0)) {
                zero_g[h] += zero_in[m];
                pos_g[h] += pos_in[m];
            }
    }
    /* Callers of double-counted calls, then everything that reaches them. */
    unsigned char *reach = calloc(nn, 1);
    uint32_t *stack = malloc(nn * sizeof *stack);
    size_t sp = 0, doubled = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind != 'C' || rows[i].call_cost != 0) continue;
        uint32_t f = tfind(g, rows[i].a), h = tfind(g, rows[i].b);
        if (EXTERNAL(f, h) && zero_g[h] >= 2 && pos_g[h] == 0 && tot[h] > 0) {
            doubled++;
            /* gprof2dot's rule shows in its own table: ratio 1.0 on each. */
            ck_assert(rows[i].has_call_ratio);
            ck_assert_double_eq(rows[i].call_ratio, 1.0);
            if (!reach[f]) {
                reach[f] = 1;
                stack[sp++] = f;
            }
        }
    }
    ck_assert_uint_gt(doubled, 0);
    while (sp) {
        uint32_t v = stack[--sp];
        cgprop_iter *it;
        ck_assert_int_eq(cgprop_iter_new(g, CGPROP_ITER_CALLERS, 0, v, &it), CGPROP_OK);
        cgprop_edge_row e;
        while (cgprop_iter_next(it, &e, sizeof e) == CGPROP_OK)
            if (!reach[e.caller]) {
                reach[e.caller] = 1;
                stack[sp++] = e.caller;
            }
        cgprop_iter_free(it);
    }
    size_t differ = 0, agree_reach = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].kind != 'F') continue;
        uint32_t id = tfind(g, rows[i].a);
        double d = tot[id] - rows[i].total_ratio * P;
        bool same = fabs(d) <= 1e-9 * P;
        if (!reach[id])
            ck_assert_msg(same, "bzr: %s differs (%.17g vs %.17g) but reaches no double-counted call", rows[i].a,
                          tot[id], rows[i].total_ratio * P);
        else if (!same) {
            differ++;
            /* Double counting only ever inflates gprof2dot's figure. */
            ck_assert_msg(d < 0, "bzr: %s above gprof2dot", rows[i].a);
        } else agree_reach++;
    }
    ck_assert_uint_gt(differ, 0);
#undef EXTERNAL
    free(cyc);
    free(zero_in);
    free(pos_in);
    free(zero_g);
    free(pos_g);
    free(reach);
    free(stack);
    free(rows);
    free(buf);
    free(tot);
    cgprop_graph_free(g);
}
END_TEST

/* ---- grammar, on hand-written files ---- */

START_TEST(grammar_compression)
{
    /* A name defined in cfn= and used later as fn=(id); a file defined in
     * fl= and referenced by cfi=; an object referenced by cob=(id). */
    const char *t = "# callgrind format\n"
                    "version: 1\n"
                    "events: Ir\n"
                    "ob=(1) prog\n"
                    "fl=(1) a.c\n"
                    "fn=(1) main\n"
                    "10 5\n"
                    "cfn=(2) work\n"
                    "calls=2 20\n"
                    "+1 40\n"
                    "ob=(2) lib.so\n"
                    "fl=(2) b.c\n"
                    "fn=(3) helper\n"
                    "1 3\n"
                    "ob=(1)\n"
                    "fl=(1)\n"
                    "fn=(2)\n"
                    "20 30\n"
                    "cob=(2)\n"
                    "cfi=(2)\n"
                    "cfn=(3)\n"
                    "calls=1 1\n"
                    "* 3\n"
                    "totals: 38\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(tself(g, "prog\ta.c\tmain", 0), 5);
    ck_assert_uint_eq(tself(g, "prog\ta.c\twork", 0), 30);
    ck_assert_uint_eq(tself(g, "lib.so\tb.c\thelper", 0), 3);
    cgprop_edge_row e = tedge(g, "prog\ta.c\tmain", "prog\ta.c\twork", 0);
    ck_assert_uint_eq(e.count, 2);
    ck_assert_uint_eq(e.cost, 40);
    e = tedge(g, "prog\ta.c\twork", "lib.so\tb.c\thelper", 0);
    ck_assert_uint_eq(e.count, 1);
    ck_assert_uint_eq(e.cost, 3);
    ck_assert_uint_eq(info_tot[0], 38);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_NONE);
    /* No recursion: every figure exact, C_n(main) = 5 + 40. */
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r = split_of(g, "prog\ta.c\tmain", 0);
    ck_assert_uint_eq(r.C_n, 45);
    ck_assert_uint_eq(r.inexact, 0);
    size_t l;
    ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, "lib.so\tb.c\thelper"), &l), "helper");
    ck_assert_uint_eq(l, 6);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(grammar_compression_large_ids)
{
    /* Function ids past 131,072 (a table of entries larger than the reader
     * looks ahead for): the same figures as with small ids. A name holding
     * "fn=(" and a call line at the very end exercise the look-ahead's
     * edges; they change nothing read. */
    const char *t = "# callgrind format\n"
                    "version: 1\n"
                    "events: Ir\n"
                    "fl=(1) a.c\n"
                    "fn=(150000) main\n"
                    "10 5\n"
                    "cfn=(200000) cfn=(9 odd\n"
                    "calls=2 20\n"
                    "+1 40\n"
                    "fn=(200000)\n"
                    "20 30\n"
                    "cfn=(150000)\n"
                    "calls=1 1\n"
                    "* 3\n"
                    "fn=(150000)\n"
                    "cfn=(200000)\n"
                    "calls=1 1\n"
                    "* 7";
    cgprop_graph *g = read_text(t, NULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, "\ta.c\tmain", 0), 5);
    ck_assert_uint_eq(tself(g, "\ta.c\tcfn=(9 odd", 0), 30);
    cgprop_edge_row e = tedge(g, "\ta.c\tmain", "\ta.c\tcfn=(9 odd", 0);
    ck_assert_uint_eq(e.count, 3);
    ck_assert_uint_eq(e.cost, 47);
    e = tedge(g, "\ta.c\tcfn=(9 odd", "\ta.c\tmain", 0);
    ck_assert_uint_eq(e.count, 1);
    ck_assert_uint_eq(e.cost, 3);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(grammar_positions_and_events)
{
    /* instr+line positions with hex, relative and '*' columns, two events,
     * missing counts are 0, jumps read and ignored (their position line is
     * not a cost), fi/fe cost stays with the function, the callee file
     * defaults to the current (inlined) file. */
    const char *t = "positions: instr line\n"
                    "events: Ir Dr\n"
                    "summary: 21 4\n"
                    "fl=a.c\n"
                    "fn=f\n"
                    "0x400000 10 7 1\n"
                    "+4 +1 2\n"
                    "jump=3 +8 +2\n"
                    "* *\n"
                    "jcnd=1/2 -4 -1\n"
                    "+2 *\n"
                    "fi=inl.h\n"
                    "+2 -3 4 3\n"
                    "cfn=g\n"
                    "calls=1 0x500000 1\n"
                    "* * 8\n"
                    "fe=a.c\n"
                    "-100 99 0 0\n"
                    "fn=g\n"
                    "0x500000 1 8\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "Dr");
    ck_assert_uint_eq(tself(g, "\ta.c\tf", 0), 13);
    ck_assert_uint_eq(tself(g, "\ta.c\tf", 1), 4);
    /* g is called from inside inl.h, so that is its file there. */
    cgprop_edge_row e = tedge(g, "\ta.c\tf", "\tinl.h\tg", 0);
    ck_assert_uint_eq(e.cost, 8);
    e = tedge(g, "\ta.c\tf", "\tinl.h\tg", 1);
    ck_assert_uint_eq(e.cost, 0);
    ck_assert_uint_eq(tself(g, "\ta.c\tg", 0), 8);
    ck_assert(info.flags & CGPROP_RI_TOTALS);
    ck_assert_uint_eq(info_tot[0], 21);
    ck_assert_uint_eq(info_tot[1], 4);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(grammar_parts)
{
    /* Two parts (threads) with events in a different order: summed by name;
     * totals of each part summed; a part without totals: uses its summary. */
    const char *t = "events: Ir Dr\n"
                    "fn=a\n"
                    "1 10 1\n"
                    "totals: 10 1\n"
                    "thread: 2\n"
                    "events: Dr Ir\n"
                    "summary: 2 20\n"
                    "fn=a\n"
                    "1 2 20\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.parts, 2);
    ck_assert_uint_eq(tself(g, "\t\ta", 0), 30);
    ck_assert_uint_eq(tself(g, "\t\ta", 1), 3);
    ck_assert_uint_eq(info_tot[0], 30);
    ck_assert_uint_eq(info_tot[1], 3);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(grammar_parts_calls)
{
    /* Calls in two parts whose events come in opposite orders: the second
     * part's call costs land in the first part's columns (Dr 7, Ir 70 is
     * Ir 70, Dr 7), and counts and costs of the same call add up. By hand:
     * a -> b count 2 + 3, Ir 100 + 70, Dr 10 + 7. */
    const char *t = "events: Ir Dr\n"
                    "fn=(1) a\n"
                    "1 10 1\n"
                    "cfn=(2) b\n"
                    "calls=2 1\n"
                    "1 100 10\n"
                    "fn=(2)\n"
                    "1 100 10\n"
                    "thread: 2\n"
                    "events: Dr Ir\n"
                    "fn=(1)\n"
                    "1 2 20\n"
                    "cfn=(2)\n"
                    "calls=3 1\n"
                    "1 7 70\n"
                    "fn=(2)\n"
                    "1 7 70\n"
                    /* The reader's fast path leaves the last 64 bytes to the
                     * general parser: this keeps every line above on it. */
                    "# ................................................................\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.parts, 2);
    cgprop_edge_row ir = tedge(g, "\t\ta", "\t\tb", 0), dr = tedge(g, "\t\ta", "\t\tb", 1);
    ck_assert_uint_eq(ir.count, 5);
    ck_assert_uint_eq(ir.cost, 170);
    ck_assert_uint_eq(dr.cost, 17);
    ck_assert_uint_eq(tself(g, "\t\ta", 0), 30);
    ck_assert_uint_eq(tself(g, "\t\ta", 1), 3);
    ck_assert_uint_eq(tself(g, "\t\tb", 0), 170);
    ck_assert_uint_eq(tself(g, "\t\tb", 1), 17);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(grammar_mangled_and_unknown)
{
    /* --compress-mangled: "(1)'2'(2)" refers to fa and fb; it reads as
     * fa'2'fb, a level-1 fa called from fb (a caller context). Unknown lines,
     * rec= and comments are ignored; a quote that is no suffix is kept. */
    const char *t = "events: Ir\n"
                    "# a comment\n"
                    "some unknown line\n"
                    "rec=1\n"
                    "fn=(1) fa'main\n"
                    "fn=(1)\n"
                    "1 1\n"
                    "cfn=(2) fb'fa\n"
                    "calls=1 1\n"
                    "1 10\n"
                    "fn=(2)\n"
                    "1 2\n"
                    "cfn=(3) fa\n"
                    "cfn=(5) fb\n"
                    "cfn=(4) (3)'2'(5)\n"
                    "calls=1 1\n"
                    "1 8\n"
                    "fn=(4)\n"
                    "1 8\n"
                    "fn=it's'x\n"
                    "1 0\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert(info.flags & CGPROP_RI_CALLER_CONTEXTS);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_NAMES);
    ck_assert_uint_eq(tself(g, "\t\tfa", 0), 9);
    ck_assert_uint_eq(tself(g, "\t\tfb", 0), 2);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r = split_of(g, "\t\tfa", 0);
    ck_assert_uint_eq(r.C_n, 11);
    ck_assert_uint_eq(r.S_n, 1);
    ck_assert_uint_eq(r.S_r, 8);
    ck_assert_uint_eq(r.C_r, 8);
    cgprop_graph_free(g);
}
END_TEST

/* fn=(1) a, then fn=(k) (k-1)'(k-1) for k = 2 .. last, each with a cost
 * line: name k spells out to 2^k - 1 bytes. */
static char *nested_names(int last)
{
    size_t cap = 64 + (size_t)last * 64, n = 0;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    n += (size_t)snprintf(t + n, cap - n, "events: Ir\nfn=(1) a\n1 1\n");
    /* Only a costs anything: costs in several functions and no call would
     * be a file that records no calls. */
    for (int k = 2; k <= last; k++) n += (size_t)snprintf(t + n, cap - n, "fn=(%d) (%d)'(%d)\n1 0\n", k, k - 1, k - 1);
    return t;
}

START_TEST(grammar_mangled_nesting)
{
    /* Names that refer to names that refer to names: name k is 2^k - 1
     * bytes, written as "(k-1)'(k-1)" (7 bytes up to k = 10, 9 after), on
     * line 2k. The references may add at most 1 MiB and 4 KiB a line read
     * to the names. Before k = 19 they have added 524,132 bytes and k = 19
     * adds 524,278 (within 1,048,576 + 4,096 * 38 = 1,204,224); k = 20
     * would add 1,048,566 where 164,006 are left at line 40. */
    char *t = nested_names(19);
    cgprop_graph *g = read_text(t, NULL, NULL);
    ck_assert_uint_gt(cgprop_graph_node_count(g), 0);
    cgprop_graph_free(g);
    free(t);
    t = nested_names(30);
    cgprop_read_error e = read_bad(t, CGPROP_EFORMAT, 40);
    ck_assert_ptr_nonnull(strstr(e.reason, "references nest too deep"));
    free(t);
    /* A name that refers to nothing adds nothing, however long: 3 MB of
     * "(9)'" with no function 9 reads as it is. */
    size_t reps = 750000, n = 0;
    t = malloc(64 + 4 * reps);
    ck_assert_ptr_nonnull(t);
    n += (size_t)sprintf(t, "events: Ir\nfn=(1) ");
    for (size_t i = 0; i < reps; i++) memcpy(t + n + 4 * i, "(9)'", 4);
    n += 4 * reps;
    n += (size_t)sprintf(t + n, "\n1 5\n");
    g = read_text(t, NULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 1);
    size_t kl;
    (void)cgprop_graph_node_key(g, 0, &kl);
    ck_assert_uint_ge(kl, 4 * reps - 8);
    cgprop_graph_free(g);
    free(t);
}
END_TEST

START_TEST(grammar_mangled_plain)
{
    /* Mangled compression without contexts: (3)'2 is f'2. The quote inside
     * "it's" is part of the name. */
    const char *t = "events: Ir\n"
                    "fn=(3) f\n"
                    "1 1\n"
                    "cfn=(4) (3)'2\n"
                    "calls=1 1\n"
                    "1 5\n"
                    "fn=(4)\n"
                    "1 5\n"
                    "fn=it's\n"
                    "1 2\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert(!(info.flags & CGPROP_RI_CALLER_CONTEXTS));
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, "\t\tf", 0), 6);
    ck_assert_uint_eq(tself(g, "\t\tit's", 0), 2);
    cgprop_graph_free(g);
    /* Unfolded: f'2 is its own function, as gprof2dot keeps it. */
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.no_fold_recursion = 1;
    g = read_text(t, &o, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_UNFOLDED);
    ck_assert_uint_eq(tself(g, "\t\tf'2", 0), 5);
    ck_assert_uint_eq(tself(g, "\t\tf", 0), 1);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(grammar_key_name)
{
    /* A creator: line: written by a tool that records calls, and these
     * functions called none. */
    const char *t = "creator: hand\nevents: Ir\n"
                    "fl=a.c\nfn=init\n1 3\n"
                    "fl=b.c\nfn=init\n1 4\n"
                    "fn=x\n1 1\n";
    cgprop_graph *g = read_text(t, NULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    cgprop_graph_free(g);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.key_mode = CGPROP_KEY_NAME;
    g = read_text(t, &o, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, "init", 0), 7);
    cgprop_graph_free(g);
    /* A TAB inside a name becomes a space, so the display rule holds. */
    g = read_text("events: Ir\nfn=a\tb\n1 1\n", NULL, NULL);
    ck_assert_str_eq(cgprop_node_display_name(g, 0, NULL), "a b");
    cgprop_graph_free(g);
}
END_TEST

START_TEST(no_calls_recorded)
{
    /* Cachegrind's file: callgrind's format, self costs only. main's total
     * would read as its self cost (3), exact, where fib ran under it. */
    const char *cg = "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: ./recur\nevents: Ir\n"
                     "fl=./recur.c\nfn=main\n41 3\nfn=fib\n10 500\nsummary: 503\n";
    cgprop_read_error e = read_bad(cg, CGPROP_EFORMAT, 0);
    ck_assert_msg(strstr(e.reason, "no calls= line: a cachegrind profile") &&
                      strstr(e.reason, "valgrind --tool=callgrind"),
                  "%s", e.reason);
    /* Costs in several metrics of one function each count once: still
     * two functions with costs. */
    e = read_bad("events: Ir Dr\nfn=a\n1 1 1\nfn=b\n1 0 2\n", CGPROP_EFORMAT, 0);
    ck_assert_ptr_nonnull(strstr(e.reason, "no calls= line"));
    /* One function with a cost: its total is its self cost, exact. */
    cgprop_graph *g = read_text("events: Ir\nfn=main\n1 7\nfn=idle\n1 0\n", NULL, NULL);
    ck_assert_uint_eq(tself(g, "\t\tmain", 0), 7);
    cgprop_graph_free(g);
    /* A call anywhere: the file records calls. */
    g = read_text("events: Ir\nfn=main\n1 3\ncfn=fib\ncalls=1 10\n1 500\nfn=fib\n10 500\n", NULL, NULL);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), 1);
    cgprop_graph_free(g);
    /* A creator: line names a tool that writes every call it saw. */
    g = read_text("creator: callgrind-3.19.0\nevents: Ir\nfn=a\n1 1\nfn=b\n1 2\n", NULL, NULL);
    ck_assert_uint_eq(tself(g, "\t\tb", 0), 2);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(stated_cut_stacks)
{
    /* cgprop's callgrind writer states the weight of stacks cut short (a
     * sampled profile's) on a desc: line before events:, where
     * callgrind_annotate reads desc: lines. Who starts them is not said:
     * every function but one with the whole program may lack it all. */
    const char *t = "creator: cgprop 0.3.0\n"
                    "desc: Stacks cut short, under any function they do not show: 29 290\n"
                    "events: n ns\n"
                    "fn=main\n0 0 0\ncfn=spin\ncalls=1 0\n0 29 290\n"
                    "fn=deep\n0 0 0\ncfn=spin\ncalls=1 0\n0 29 290\n"
                    "fn=spin\n0 58 580\n";
    cgprop_graph *g = read_text(t, NULL, NULL);
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    uint64_t u;
    ck_assert_int_eq(cgprop_graph_unrooted(g, 0, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 29);
    ck_assert_int_eq(cgprop_graph_unrooted(g, 1, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 290);
    cgprop_total_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, tfind(g, "\t\tmain"), &r, sizeof r),
                     CGPROP_OK);
    ck_assert(r.lo == 29 && r.hi == 58 && r.total == 29 && r.estimate == CGPROP_EST_MEASURED &&
              r.reason == CGPROP_R_UNROOTED);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, tfind(g, "\t\tdeep"), &r, sizeof r),
                     CGPROP_OK);
    ck_assert(r.lo == 29 && r.hi == 58 && r.estimate == CGPROP_EST_MEASURED);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, tfind(g, "\t\tspin"), &r, sizeof r),
                     CGPROP_OK);
    ck_assert(r.lo == 58 && r.hi == 58 && r.estimate == CGPROP_EST_EXACT);
    cgprop_graph_free(g);
    /* After events: it is read too, and in the events' order. */
    g = read_text("events: n ns\ndesc: Stacks cut short, under any function they do not show: 3 7\nfn=a\n0 5 9\n",
                  NULL, NULL);
    ck_assert_int_eq(cgprop_graph_unrooted(g, 1, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 7);
    cgprop_graph_free(g);
    /* Its numbers are checked as summary:'s are. */
    cgprop_read_error e =
        read_bad("desc: Stacks cut short, under any function they do not show: 1 2 3\nevents: n ns\nfn=a\n0 5 9\n",
                 CGPROP_EFORMAT, 2);
    ck_assert_ptr_nonnull(strstr(e.reason, "more values than events"));
    e = read_bad("desc: Stacks cut short, under any function they do not show: x\nevents: n\nfn=a\n0 5\n",
                 CGPROP_EFORMAT, 2);
    ck_assert_ptr_nonnull(strstr(e.reason, "bad number"));
}
END_TEST

/* ---- the recursion rules (docs/READERS.md, "Recursion names") ---- */

START_TEST(rules_plain_self_call_without_names)
{
    /* f -> f and no f'N anywhere: made with --separate-recs=1; withheld. */
    const char *t = "events: Ir\n"
                    "fn=main\n1 1\ncfn=f\ncalls=1 1\n1 10\n"
                    "fn=f\n1 10\ncfn=f\ncalls=3 1\n1 6\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_WITHHELD);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r = split_of(g, "\t\tf", 0);
    ck_assert(r.inexact & (CGPROP_X_S_N | CGPROP_X_S_R));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(rules_plain_self_call_with_names)
{
    /* f'2 elsewhere in the file, and a plain f -> f (--skip-direct-recursion):
     * not a level-0 call: C_n(f) = 20 (main -> f only), f flagged inexact. */
    const char *t = "events: Ir\n"
                    "fn=main\n1 1\ncfn=f\ncalls=1 1\n1 20\ncfn=g\ncalls=1 1\n1 9\n"
                    "fn=f\n1 14\ncfn=f\ncalls=2 1\n1 6\n"
                    "fn=g\n1 3\ncfn=g'2\ncalls=1 1\n1 6\n"
                    "fn=g'2\n1 6\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_NAMES);
    ck_assert(info.flags & CGPROP_RI_PLAIN_SELF_CALLS);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r = split_of(g, "\t\tf", 0);
    ck_assert_uint_eq(r.C_n, 20);
    ck_assert(r.inexact != 0);
    ck_assert(r.inexact & CGPROP_X_S_N);
    /* g's classes come from its names and are exact. */
    r = split_of(g, "\t\tg", 0);
    ck_assert_uint_eq(r.C_n, 9);
    ck_assert_uint_eq(r.S_n, 3);
    ck_assert_uint_eq(r.S_r, 6);
    ck_assert(!(r.inexact & CGPROP_X_C_N));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(rules_plain_cycle_with_names)
{
    /* a -> b -> a with plain names beside x'2. Plain names are level 0 as
     * callgrind saw them: classes, not the heuristic. Here the data is
     * itself off (b -> a should have entered a'2): a's two sides disagree,
     * in = 30 + 10, out = 10 + 20, so a is the interval [30, 40]; b's agree
     * (in 20, out 10 + 10) and b is exact. */
    const char *t = "events: Ir\n"
                    "fn=main\n1 1\ncfn=a\ncalls=1 1\n1 30\ncfn=x\ncalls=1 1\n1 4\n"
                    "fn=a\n1 10\ncfn=b\ncalls=1 1\n1 20\n"
                    "fn=b\n1 10\ncfn=a\ncalls=1 1\n1 10\n"
                    "fn=x\n1 2\ncfn=x'2\ncalls=1 1\n1 2\n"
                    "fn=x'2\n1 2\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_NAMES);
    ck_assert(info.flags & CGPROP_RI_PLAIN_CYCLES);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    ck_assert(split_of(g, "\t\ta", 0).inexact & CGPROP_X_C_N);
    ck_assert(!(split_of(g, "\t\tb", 0).inexact & CGPROP_X_C_N));
    ck_assert_uint_eq(split_of(g, "\t\tb", 0).C_n, 20);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    uint32_t id;
    cgprop_total_row tr;
    ck_assert_int_eq(cgprop_graph_find_node(g, "\t\ta", 3, &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, id, &tr, sizeof tr), CGPROP_OK);
    ck_assert_uint_eq(tr.estimate, CGPROP_EST_HEURISTIC);
    ck_assert_uint_eq(tr.reason, CGPROP_R_SIDES_DISAGREE);
    ck_assert_double_eq(tr.lo, 30);
    ck_assert_double_eq(tr.hi, 40);
    ck_assert(tr.total >= 30 && tr.total <= 40);
    ck_assert_int_eq(cgprop_graph_find_node(g, "\t\tb", 3, &id), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, id, &tr, sizeof tr), CGPROP_OK);
    ck_assert_uint_eq(tr.estimate, CGPROP_EST_EXACT);
    ck_assert_uint_eq(tr.reason, 0);
    ck_assert_double_eq(tr.total, 20);
    ck_assert(!(tr.flags & CGPROP_F_ESTIMATE));
    cgprop_graph_free(g);
}
END_TEST

/* The total row of the function keyed "\t\t<name>" after the analyses. */
static cgprop_total_row total_of(cgprop_graph *g, const char *name)
{
    char key[64];
    int n = snprintf(key, sizeof key, "\t\t%s", name);
    uint32_t id;
    ck_assert_int_eq(cgprop_graph_find_node(g, key, (size_t)n, &id), CGPROP_OK);
    cgprop_total_row t;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, id, &t, sizeof t), CGPROP_OK);
    return t;
}

/* The total row of the function keyed key, after the analyses. */
static cgprop_total_row total_key(cgprop_graph *g, const char *key)
{
    cgprop_total_row t;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, tfind(g, key), &t, sizeof t), CGPROP_OK);
    return t;
}

/* Xdebug writes a block per call, when it returns, in post-order; its
 * calls= lines carry one number more than its positions ("calls=1 0 0").
 * Here {main} calls a, a calls b, b calls a again, which calls nothing:
 *   a (inner):  self 5
 *   b:          self 7, its call of a 5         -> 12
 *   a (outer):  self 10, its call of b 12       -> 22
 *   {main}:     self 1, its call of a 22        -> 23
 * a and b form a cycle; the tree says which a is outermost, so every total
 * is exact: a 22 (the outer call alone; the inner one is inside it), b 12,
 * {main} 23; a's self is 15. Read as a plain callgrind file the same text
 * gives a and b estimates. */
static const char xdebug_tree[] = "version: 1\ncreator: xdebug 3.2.0 (PHP 8.2.36)\ncmd: /t.php\npart: 1\n"
                                  "positions: line\n\nevents: Time_(10ns) Memory_(bytes)\n\n"
                                  "fl=(1) /t.php\nfn=(1) a\n2 5 0\n\n"
                                  "fl=(1)\nfn=(2) b\n3 7 0\ncfl=(1)\ncfn=(1)\ncalls=1 0 0\n3 5 0\n\n"
                                  "fl=(1)\nfn=(1)\n2 10 0\ncfl=(1)\ncfn=(2)\ncalls=1 0 0\n2 12 0\n\n"
                                  "fl=(1)\nfn=(3) {main}\n1 1 0\ncfl=(1)\ncfn=(1)\ncalls=1 0 0\n9 22 0\n\n"
                                  "summary: 23 0\n";

static cgprop_graph *analysed(const char *text, cgprop_read_info *info)
{
    cgprop_graph *g = read_text(text, NULL, info);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    return g;
}

START_TEST(xdebug_call_tree)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = analysed(xdebug_tree, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    static const struct {
        const char *key;
        double total, self;
    } want[] = {{"\t/t.php\ta", 22, 15}, {"\t/t.php\tb", 12, 7}, {"\t/t.php\t{main}", 23, 1}};
    for (size_t i = 0; i < 3; i++) {
        cgprop_total_row t = total_key(g, want[i].key);
        ck_assert_msg(t.estimate == CGPROP_EST_EXACT, "%s: estimate %u", want[i].key, t.estimate);
        ck_assert_double_eq(t.total, want[i].total);
        ck_assert_double_eq((double)(split_of(g, want[i].key, 0).S_n + split_of(g, want[i].key, 0).S_r), want[i].self);
    }
    /* a's self by level: 10 at level 0, 5 at level 1. */
    ck_assert_uint_eq(split_of(g, "\t/t.php\ta", 0).S_n, 10);
    ck_assert_uint_eq(split_of(g, "\t/t.php\ta", 0).S_r, 5);
    cgprop_graph_free(g);

    /* The first block made a block of another function: b's call of a
     * then takes no block of a (no post-order tree says this: an edited
     * file, or another writer's), so the file is read as written, a and b
     * a cycle whose totals are estimated. */
    static const char moved[] = "version: 1\ncreator: xdebug 3.2.0 (PHP 8.2.36)\npositions: line\n"
                                "events: Time_(10ns) Memory_(bytes)\n"
                                "fl=(1) /t.php\nfn=(4) c\n2 5 0\n"
                                "fl=(1)\nfn=(2) b\n3 7 0\ncfl=(1)\ncfn=(1) a\ncalls=1 0 0\n3 5 0\n"
                                "fl=(1)\nfn=(1)\n2 10 0\ncfl=(1)\ncfn=(2)\ncalls=1 0 0\n2 12 0\n"
                                "fl=(1)\nfn=(3) {main}\n1 1 0\ncfl=(1)\ncfn=(1)\ncalls=1 0 0\n9 22 0\n";
    cgprop_read_info_init(&info);
    g = analysed(moved, &info);
    ck_assert_uint_ne(info.recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_ne(total_key(g, "\t/t.php\tb").estimate, CGPROP_EST_EXACT);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(sides_disagree_not_exact)
{
    /* No recursion, so every cost is level 0 and C_n(b) can be read two
     * ways: the calls into b say 10, b's own cost says 15 (a spontaneous
     * entry of b, or a call, was lost). Neither is exact: [10, 15], and b's
     * split C_n is flagged. a is what it spends and calls: 1 + 10. */
    const char *t = "events: Ir\nfn=a\n0 1\ncfn=b\ncalls=1 0\n0 10\nfn=b\n0 15\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_NONE);
    ck_assert_int_eq(cgprop_graph_find_cycles(g, NULL), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_collapse(g, CGPROP_SHARE_AUTO), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_propagate(g), CGPROP_OK);
    ck_assert(split_of(g, "\t\tb", 0).inexact & CGPROP_X_C_N);
    cgprop_total_row b = total_of(g, "b"), a = total_of(g, "a");
    ck_assert_uint_eq(b.estimate, CGPROP_EST_HEURISTIC);
    ck_assert(b.flags & CGPROP_F_ESTIMATE);
    ck_assert_uint_eq(b.reason, CGPROP_R_SIDES_DISAGREE);
    ck_assert_double_eq(b.lo, 10);
    ck_assert_double_eq(b.hi, 15);
    ck_assert(b.total >= 10 && b.total <= 15);
    ck_assert_uint_eq(a.estimate, CGPROP_EST_EXACT);
    ck_assert_double_eq(a.total, 11);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(rules_no_recursion_and_override)
{
    /* Only f'2, never deeper: default N = 2 lumps it (C_r inexact); the
     * option --separate-recs=3 says it is exactly level 1. */
    const char *t = "events: Ir\n"
                    "fn=main\n1 1\ncfn=f\ncalls=1 1\n1 12\n"
                    "fn=f\n1 5\ncfn=f'2\ncalls=1 1\n1 7\n"
                    "fn=f'2\n1 7\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    uint64_t info_tot[CGPROP_MAX_METRICS];
    info.totals = info_tot;
    info.totals_len = CGPROP_MAX_METRICS;
    cgprop_graph *g = read_text(t, NULL, &info);
    ck_assert_uint_eq(info.separate_recs, 2);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r = split_of(g, "\t\tf", 0);
    ck_assert_uint_eq(r.C_n, 12);
    ck_assert(r.inexact & CGPROP_X_C_R);
    cgprop_graph_free(g);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.separate_recs = 3;
    g = read_text(t, &o, &info);
    ck_assert_uint_eq(info.separate_recs, 3);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    r = split_of(g, "\t\tf", 0);
    ck_assert_uint_eq(r.C_n, 12);
    ck_assert_uint_eq(r.C_r, 7);
    ck_assert_uint_eq(r.S_r, 7);
    ck_assert(!(r.inexact & CGPROP_X_C_R));
    cgprop_graph_free(g);
}
END_TEST

/* ---- malformed input ---- */

START_TEST(malformed)
{
    read_bad("events: Ir\nfn=a\n1 5\ncfn=b\ncalls=1 1\n", CGPROP_EFORMAT, 5);
    read_bad("events: Ir\nfn=a\ncfn=b\ncalls=1 1\nfn=c\n", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nfn=a\ncfn=b\ncalls=1 1\n\n1 2\n", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nfn=(3)\n", CGPROP_EFORMAT, 2);
    read_bad("events: Ir\nfn=a\n1 2\ncfi=(9)\n", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nfn=(99999999999) a\n", CGPROP_EFORMAT, 2);
    read_bad("events: Ir\nfn=a\n1 99999999999999999999\n", CGPROP_EOVERFLOW, 3);
    read_bad("events: Ir\nfn=a\n1 12x\n", CGPROP_EFORMAT, 3);
    read_bad("events: Ir\nfn=a\n1 2 3\n", CGPROP_EFORMAT, 3);
    read_bad("events: Ir\nfn=a\n1 18446744073709551615\n2 1\n", CGPROP_EOVERFLOW, 4);
    read_bad("fn=a\n1 2\n", CGPROP_EFORMAT, 2);
    read_bad("events: Ir\n1 2\n", CGPROP_EFORMAT, 2);
    read_bad("positions: instr line\nevents: Ir\nfn=a\n5\n", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nfn=a\n1 5\ncalls=", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nfn=a\n1 5\ncfn=b\ncalls=1\n1 1\n", CGPROP_EFORMAT, 5);
    read_bad("events: Ir\nfn=a\n+99999999999999999999 1\n", CGPROP_EOVERFLOW, 3);
    read_bad("events: Ir\nfn=a\n0xffffffffffffffff 1\n+1 1\n", CGPROP_EOVERFLOW, 4);
    read_bad("events: Ir\nfn=a\n1 5\njump=1 2\nfn=b\n", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nfn=a\ncalls=1 1\n1 1\n", CGPROP_EFORMAT, 3);
    read_bad("events: Ir Ir\n", CGPROP_EFORMAT, 1);
    read_bad("events: Ir\nfn=a\n1 1\nevents: Dr\n", CGPROP_EFORMAT, 4);
    read_bad("events: Ir\nsummary: x\n", CGPROP_EFORMAT, 2);
    read_bad("events: Ir\npositions: line column\n", CGPROP_EFORMAT, 2);
    read_bad("version: 1\n", CGPROP_EFORMAT, 1);
    read_bad("", CGPROP_EFORMAT, 0);
    /* Garbage recognised as nothing. */
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    const char junk[] = "\x01\x02\xff\xfe garbage\n\x7f";
    ck_assert_int_eq(cgprop_read_buffer(junk, sizeof junk - 1, "j", 1, NULL, NULL, &g, NULL, &err), CGPROP_EFORMAT);
    ck_assert(g == NULL);
    ck_assert_str_eq(err.file, "j");
    /* Files that cannot be opened. */
    const char *nope = DATA "/no/such/file";
    ck_assert_int_eq(cgprop_read_file(nope, strlen(nope), NULL, NULL, &g, NULL, &err), CGPROP_ENOTFOUND);
    ck_assert_str_eq(err.file, nope);
    ck_assert_uint_eq(err.line, 0);
    /* Bad arguments. */
    ck_assert_int_eq(cgprop_read_buffer("x", 1, NULL, 0, NULL, NULL, NULL, NULL, &err), CGPROP_EINVAL);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = 99;
    ck_assert_int_eq(cgprop_read_buffer("x", 1, NULL, 0, &o, NULL, &g, NULL, &err), CGPROP_EINVAL);
    ck_assert(cgprop_node_display_name(NULL, 0, NULL) == NULL);
}
END_TEST

/* Random and mutated inputs: every call returns, with an error naming a line
 * of the input or a graph. Deterministic generator, no clock. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

START_TEST(garbage)
{
    static const char *const toks[] = {"events: Ir\n", "events: Ir Dr\n", "fn=", "cfn=", "fl=", "fi=", "fe=",
                                       "ob=", "cob=", "cfi=", "calls=", "jump=", "jcnd=", "(1)", "(2) x",
                                       "(4294967296)", " ", "\n", "+", "-", "*", "0x", "1", "99999999999999999999",
                                       "'2", "'", "positions: instr line\n", "totals: ", "part: 2\n", "#",
                                       "\t", "\r\n", "a", ";", "enter ", "# metrics: t\n", "\xff"};
    size_t ntok = sizeof toks / sizeof toks[0];
    char buf[2048];
    for (int iter = 0; iter < 4000; iter++) {
        size_t len = 0;
        int parts = 1 + (int)(rnd() % 60);
        for (int p = 0; p < parts; p++) {
            const char *s = toks[rnd() % ntok];
            size_t l = strlen(s);
            if (len + l >= sizeof buf) break;
            memcpy(buf + len, s, l);
            len += l;
            if (rnd() % 8 == 0 && len < sizeof buf - 1) buf[len++] = (char)(rnd() & 0xff);
        }
        size_t lines = 1;
        for (size_t i = 0; i < len; i++) lines += buf[i] == '\n';
        for (uint32_t fmt = 0; fmt <= 2; fmt++) {
            cgprop_read_options o;
            cgprop_read_options_init(&o);
            o.format = fmt;
            o.key_mode = rnd() & 1;
            o.no_fold_recursion = rnd() & 1;
            cgprop_graph *g = NULL;
            cgprop_read_error err;
            cgprop_read_error_init(&err);
            int rc = cgprop_read_buffer(buf, len, "g", 1, &o, NULL, &g, NULL, &err);
            if (rc == CGPROP_OK) {
                ck_assert(g != NULL);
                ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
                cgprop_graph_free(g);
            } else {
                ck_assert(g == NULL);
                ck_assert(err.line <= lines);
                ck_assert(err.reason[0] != '\0');
            }
        }
    }
    /* Every prefix of a real file: truncation anywhere is handled. */
    size_t len;
    char *p = tslurp(DATA "/recur/recur.instr-jumps.main.callgrind.out", &len);
    for (size_t cut = 0; cut < len; cut += 1 + cut / 50) {
        cgprop_graph *g = NULL;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        int rc = cgprop_read_buffer(p, cut, "cut", 3, NULL, NULL, &g, NULL, &err);
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        else ck_assert(g == NULL);
    }
    /* Single-byte mutations of a real file. */
    for (int iter = 0; iter < 300; iter++) {
        size_t at = rnd() % len;
        char old = p[at];
        p[at] = (char)(rnd() & 0xff);
        cgprop_graph *g = NULL;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        int rc = cgprop_read_buffer(p, len, "mut", 3, NULL, NULL, &g, NULL, &err);
        if (rc == CGPROP_OK) cgprop_graph_free(g);
        p[at] = old;
    }
    free(p);
}
END_TEST

/* ---- the fast path agrees with the general parser ----
 *
 * The reader parses common lines (cost lines, calls=, names by id) on a fast
 * path that gives up, having changed nothing, on anything unusual; the
 * general parser then reads the line. The fast path never sees a line that
 * starts with a blank (the general parser skips leading blanks), nor one in
 * the last 64 bytes of the input. So each input is read twice, padded at the
 * end so every line is eligible: as it is, and with a blank before every
 * line (general parser only). Both must give the same status, error line and
 * message, or the same graph, id for id, and the same info. */

/* The first difference between two graphs, id for id, or NULL. (Plain
 * comparisons: Check records every passing assertion, too slow here.) */
static const char *graph_diff(const cgprop_graph *x, const cgprop_graph *y)
{
    if (x->K != y->K || x->nn != y->nn || x->ne != y->ne) return "sizes";
    if (x->has_classes != y->has_classes) return "has_classes";
    const uint32_t K = x->K;
    for (uint32_t k = 0; k < K; k++)
        if (x->mlen[k] != y->mlen[k] || memcmp(x->mname[k], y->mname[k], x->mlen[k]) != 0) return "metric names";
    for (uint32_t v = 0; v < x->nn; v++) {
        if (x->key_len[v] != y->key_len[v] || memcmp(x->key_ptr[v], y->key_ptr[v], x->key_len[v]) != 0)
            return "function keys";
        if (x->calls_in[v] != y->calls_in[v] || x->nflags[v] != y->nflags[v] || x->spont_cnt[v] != y->spont_cnt[v])
            return "function figures";
        for (uint32_t k = 0; k < K; k++)
            if (x->self[v * K + k] != y->self[v * K + k] || x->self_n[v * K + k] != y->self_n[v * K + k] ||
                x->self_r[v * K + k] != y->self_r[v * K + k])
                return "self costs";
    }
    for (uint32_t e = 0; e < x->ne; e++) {
        if (x->ecaller[e] != y->ecaller[e] || x->ecallee[e] != y->ecallee[e] || x->ecount[e] != y->ecount[e] ||
            x->eflags[e] != y->eflags[e])
            return "calls";
        for (uint32_t k = 0; k < K; k++)
            if (x->ecost[e * K + k] != y->ecost[e * K + k]) return "call costs";
        for (uint32_t c = 0; c < CGPROP__NCLS; c++) {
            uint64_t nx, ny;
            const uint64_t *cx = cgprop__ecls_get(x, e, c, &nx), *cy = cgprop__ecls_get(y, e, c, &ny);
            if (nx != ny) return "class counts";
            for (uint32_t k = 0; k < K; k++)
                if (cx[k] != cy[k]) return "class costs";
        }
        const uint64_t *dx = cgprop__dcall_row(x, e), *dy = cgprop__dcall_row(y, e);
        for (size_t i = 0; i < cgprop__dcall_width(x); i++)
            if ((dx ? dx[i] : 0) != (dy ? dy[i] : 0)) return "level >= 2 call parts";
    }
    for (uint32_t v = 0; v < x->nn; v++) {
        const uint64_t *dx = cgprop__dself_row(x, v), *dy = cgprop__dself_row(y, v);
        for (uint32_t k = 0; k < K; k++)
            if ((dx ? dx[k] : 0) != (dy ? dy[k] : 0)) return "level >= 2 self costs";
    }
    return NULL;
}

/* in + a padding comment, optionally with a blank before every line (none
 * after the last byte: a last line ending in a CR must still end there). */
static char *variant(const char *in, size_t len, bool indent, size_t *out_len)
{
    static const char pad[] = "\n# padding: keeps every line of the input clear of the end of the buffer .....\n";
    char *o = malloc(2 * len + sizeof pad + 1);
    ck_assert(o != NULL);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (indent && (i == 0 || in[i - 1] == '\n')) o[n++] = ' ';
        o[n++] = in[i];
    }
    memcpy(o + n, pad, sizeof pad - 1);
    n += sizeof pad - 1;
    *out_len = n;
    return o;
}

static int agree_count; /* inputs compared, to show the test compared something */
static int agree_ok;    /* of those, inputs that read without error */

static void check_agree(const char *in, size_t len, const cgprop_read_options *o)
{
    size_t la, lb;
    char *a = variant(in, len, false, &la), *b = variant(in, len, true, &lb);
    /* Detection may rightly tell the two apart (a perf sample header, then
     * a TAB-led address, is no longer one behind a blank), and another
     * reader may rightly read them differently (folded keeps a byte order
     * mark behind a blank as part of the first name): the property is the
     * callgrind reader's, so auto-detection is held to it only when it
     * picks callgrind for both. */
    if (o->format == CGPROP_INPUT_AUTO &&
        (cgprop_read_detect(a, la) != CGPROP_INPUT_CALLGRIND || cgprop_read_detect(b, lb) != CGPROP_INPUT_CALLGRIND)) {
        free(a);
        free(b);
        return;
    }
    cgprop_graph *ga = NULL, *gb = NULL;
    cgprop_read_info ia, ib;
    cgprop_read_error ea, eb;
    cgprop_read_info_init(&ia);
    cgprop_read_info_init(&ib);
    cgprop_read_error_init(&ea);
    cgprop_read_error_init(&eb);
    int ra = cgprop_read_buffer(a, la, "x", 1, o, NULL, &ga, &ia, &ea);
    int rb = cgprop_read_buffer(b, lb, "x", 1, o, NULL, &gb, &ib, &eb);
    const char *diff = ra != rb                         ? "status"
                       : ea.line != eb.line                 ? "error line"
                       : strcmp(ea.reason, eb.reason) != 0  ? "error message"
                       : ra != CGPROP_OK                    ? NULL
                       : memcmp(&ia, &ib, sizeof ia) != 0   ? "read info"
                                                            : graph_diff(ga, gb);
    if (diff)
        ck_abort_msg("fast path and general parser differ in %s: %d line %llu (%s) vs %d line %llu (%s) on <<%.*s>>",
                     diff, ra, (unsigned long long)ea.line, ea.reason, rb, (unsigned long long)eb.line, eb.reason,
                     (int)(len > 400 ? 400 : len), in);
    if (ra == CGPROP_OK) agree_ok++;
    agree_count++;
    cgprop_graph_free(ga);
    cgprop_graph_free(gb);
    free(a);
    free(b);
}

static void check_agree_opts(const char *in, size_t len)
{
    static const uint32_t recs[] = {0, 1, 3};
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    for (uint32_t v = 0; v < 6; v++) {
        cgprop_read_options_init(&o);
        o.format = v == 5 ? CGPROP_INPUT_AUTO : CGPROP_INPUT_CALLGRIND;
        o.key_mode = v & 1;
        o.no_fold_recursion = v == 2;
        o.separate_recs = recs[v % 3];
        check_agree(in, len, &o);
    }
}

/* Bytes that steer the fast path one way or the other. */
static char fast_byte(void)
{
    static const char set[] = "0123456789 \t\n\r+-*()=x'#cfnlobseja";
    return rnd() % 8 == 0 ? (char)(rnd() & 0xff) : set[rnd() % (sizeof set - 1)];
}

static void agree_on_file(const char *path)
{
    size_t len;
    char *p = tslurp(path, &len);
    check_agree_opts(p, len);
    /* Mutations: a byte replaced, inserted or removed. */
    char *m = malloc(len + 2);
    ck_assert(m != NULL);
    for (int iter = 0; iter < 60 && len; iter++) {
        size_t at = rnd() % len, ml = len;
        memcpy(m, p, len);
        switch (rnd() % 3) {
        case 0: m[at] = fast_byte(); break;
        case 1:
            memmove(m + at + 1, m + at, len - at);
            m[at] = fast_byte();
            ml++;
            break;
        default:
            memmove(m + at, m + at + 1, len - at - 1);
            ml--;
            break;
        }
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = CGPROP_INPUT_CALLGRIND;
        check_agree(m, ml, &o);
    }
    free(m);
    free(p);
}

static void agree_on_dir(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "cannot list %s", dir);
    struct dirent *de;
    int files = 0;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name), ls = strlen(suffix);
        if (de->d_name[0] == '.' || n < ls || strcmp(de->d_name + n - ls, suffix) != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        agree_on_file(path);
        files++;
    }
    closedir(d);
    ck_assert_int_gt(files, 0);
}

/* Callgrind-like text, valid for long stretches so that both parsers get far,
 * with the shapes next to the fast path's (20-digit and hex numbers, sums
 * and positions at the 64-bit limit, blanks, CRLF, jumps, undefined and
 * redefined ids, part changes) at rate 1 in `hazard`. */
typedef struct gen {
    char *o;
    size_t n;
    uint32_t hazard;
    bool def[3][8]; /* ids 1..7 defined, per id space */
} gen;

static bool haz(gen *g) { return rnd() % g->hazard == 0; }

static void put(gen *g, const char *s)
{
    size_t l = strlen(s);
    memcpy(g->o + g->n, s, l);
    g->n += l;
}

static void gen_num(gen *g, bool subpos)
{
    char t[48];
    uint32_t r = rnd() % 16;
    if (subpos && r < 6) {
        if (r < 2) {
            put(g, "*");
            return;
        }
        put(g, r < 4 ? "+" : "-");
    }
    if (haz(g)) {
        static const char *const odd[] = {"18446744073709551615", "18446744073709551616", "9999999999999999999",
                                          "99999999999999999999", "0x10", "0xffffffffffffffff", "00000000000000000001",
                                          "123456789012345678901", "0", "1x", ""};
        put(g, odd[rnd() % (sizeof odd / sizeof odd[0])]);
        return;
    }
    static const uint32_t lens[] = {1, 1, 1, 2, 2, 3, 4, 6, 12, 18, 19};
    uint32_t d = lens[rnd() % (sizeof lens / sizeof lens[0])], n = 0;
    for (uint32_t i = 0; i < d; i++) t[n++] = (char)((i == 0 && d > 1 ? '1' : '0') + (int)(rnd() % 9));
    if (d == 19 && rnd() % 2) t[0] = '9'; /* two of these overflow a sum */
    t[n] = 0;
    put(g, t);
}

static void gen_sep(gen *g) { put(g, !haz(g) ? " " : rnd() % 3 == 0 ? "\t" : rnd() % 2 ? "  " : ""); }

static void gen_eol(gen *g) { put(g, !haz(g) ? "\n" : rnd() % 3 == 0 ? "\r\n" : rnd() % 2 ? " \n" : "\r \n"); }

static void gen_name(gen *g, const char *key, int space)
{
    put(g, key);
    uint32_t id = 1 + rnd() % 7;
    char t[64];
    if (!g->def[space][id] || haz(g)) {
        g->def[space][id] = true;
        snprintf(t, sizeof t, "(%u) n%u%s", id, rnd() % 9, rnd() % 4 ? "" : "'2");
    } else {
        snprintf(t, sizeof t, "(%u)", haz(g) ? 8 + rnd() % 3 : id);
    }
    put(g, t);
    gen_eol(g);
}

static void gen_cost(gen *g, int np, int nc)
{
    int k = nc - (rnd() % 4 == 0 ? 1 : 0) + (haz(g) ? 1 : 0);
    for (int i = 0; i < np + k; i++) {
        if (i) gen_sep(g);
        gen_num(g, i < np);
    }
    gen_eol(g);
}

static size_t gen_profile(char *o, size_t cap, uint32_t hazard)
{
    gen g = {o, 0, hazard, {{0}}};
    static const char *const heads[] = {"events: Ir Dr\n", "events: Ir\n", "positions: instr line\nevents: A B C\n",
                                        "positions: line\nevents: Ir Dr\n"};
    static const int hnp[] = {1, 1, 2, 1}, hnc[] = {2, 1, 3, 2};
    int h = (int)(rnd() % 4), np = hnp[h], nc = hnc[h];
    put(&g, heads[h]);
    gen_name(&g, "fl=", 1);
    gen_name(&g, "fn=", 2);
    while (g.n + 600 < cap) {
        uint32_t r = rnd() % 24;
        if (r < 10) {
            gen_cost(&g, np, nc);
        } else if (r < 12) {
            static const char *const k[] = {"fn=", "fl=", "fi=", "fe=", "ob="};
            static const int sp[] = {2, 1, 1, 1, 0};
            int w = (int)(rnd() % 5);
            gen_name(&g, k[w], sp[w]);
        } else if (r < 18) { /* a call */
            if (rnd() % 2) gen_name(&g, "cob=", 0);
            if (rnd() % 2) gen_name(&g, rnd() % 2 ? "cfi=" : "cfl=", 1);
            if (!haz(&g)) gen_name(&g, "cfn=", 2);
            put(&g, "calls=");
            gen_num(&g, false);
            int nt = 1 + (int)(rnd() % (unsigned)np) + (haz(&g) ? 1 : 0);
            for (int i = 0; i < nt; i++) {
                gen_sep(&g);
                gen_num(&g, true);
            }
            gen_eol(&g);
            if (!haz(&g)) gen_cost(&g, np, nc);
        } else if (r < 20) { /* a jump and its position line */
            put(&g, rnd() % 2 ? "jump=" : "jcnd=");
            gen_num(&g, false);
            for (int i = 0; i < np; i++) {
                gen_sep(&g);
                gen_num(&g, true);
            }
            gen_eol(&g);
            gen_cost(&g, np, rnd() % 2 ? 0 : nc);
        } else if (r < 22) {
            static const char *const misc[] = {"\n", "# c\n", "\r\n", "jfi=(1)\n", "fn=f\n", "cfn=g\n", "ln=3\n"};
            put(&g, misc[rnd() % (sizeof misc / sizeof misc[0])]);
        } else if (haz(&g)) {
            static const char *const rare[] = {"part: 2\n",   "events: Dr Ir\n", "events: A\n", "totals: 1 2\n",
                                               " 1 2\n",      "positions: line instr\n", "\x01\n", "calls=1 1\n",
                                               "fn=(99)\n",   "+\n"};
            put(&g, rare[rnd() % (sizeof rare / sizeof rare[0])]);
        }
    }
    return g.n;
}

START_TEST(fast_path_agrees)
{
    agree_on_dir(DATA "/recur", ".out");
    agree_on_dir(DATA "/gprof2dot", ".callgrind");
    agree_on_dir(DATA "/prop", ".callgrind");
    agree_on_dir(DATA "/../fuzz/corpus/callgrind", "");
    /* Cases the generator reaches only by chance. */
    static const char *const cases[] = {
        "events: Ir\nfn=a\n1 1\njump=1 2\n9999999999999999999\n+9999999999999999999 1\n",
        "events: Ir\nfn=a\n18446744073709551615 1\njcnd=1/2 3\n-5\n+6 1\n",
        "events: Ir\nfn=a\n18446744073709551615 1\ncfn=b\ncalls=1 +1\n1 1\n",
        "events: Ir\nfn=a\n1 9999999999999999999\n1 9999999999999999999\n",
        "events: Ir Dr\nfn=a\n1 1 2\nevents: Dr Ir\nfn=a\n1 5 7\ncfn=a\ncalls=1 1\n1 3 4\n",
        "positions: instr line\nevents: Ir\nfn=a\n0x10 1 1\n+1 * 1\n-99 -1\n* *\n",
        "events: Ir\nfn=(1) a\nfn=(1)\n1 1\nfn=(1) b\nfn=(1)\n2 2\ncfn=(1)\ncalls=1 1\n1 1\n",
        "events: Ir\nfl=(1) x\nfn=(1) a\n1 1\nfi=(2) y\ncfn=(1)\ncalls=1 1\n1 1\nfe=(1)\ncfn=(1)\ncalls=1 1\n1 1\n",
        /* Ids past the direct table, defined by the fast path. */
        "events: Ir\nfn=(100000000) a\n1 1\ncfn=(100000000)\ncalls=1 1\n1 1\nfn=(100000001) b\nfn=(100000000)\n2 2\n",
        ("events: Ir\nfl=(4000000000) x\nob=(3999999999) o\nfn=(1) a\n1 1\ncob=(3999999999)\ncfi=(4000000000)\n"
         "cfn=(2) b\ncalls=1 1\n1 1\n"),
        /* A later part's events in another order, calls on the fast path. */
        ("events: Ir Dr\nfn=(1) a\n1 10 1\ncfn=(2) b\ncalls=2 1\n1 100 10\nfn=(2)\n1 100 10\nthread: 2\n"
         "events: Dr Ir\nfn=(1)\n1 2 20\ncfn=(2)\ncalls=3 1\n1 7 70\nfn=(2)\n1 7 70\n"),
        /* Two new functions on one calls= line: the caller is added first. */
        "events: Ir\nfn=(1) a\ncfn=(2) b\ncalls=1 1\n1 1\nfn=(2)\n1 1\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_agree_opts(cases[i], strlen(cases[i]));
    char buf[8000];
    for (int iter = 0; iter < 3000; iter++) {
        static const uint32_t hazard[] = {2, 8, 60, 400, 100000};
        size_t n = gen_profile(buf, 700 + rnd() % (sizeof buf - 700), hazard[iter % 5]);
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = CGPROP_INPUT_CALLGRIND;
        o.key_mode = rnd() & 1;
        check_agree(buf, n, &o);
    }
    /* The comparison is not vacuous: many inputs read, many failed. */
    ck_assert_int_gt(agree_ok, 500);
    ck_assert_int_gt(agree_count - agree_ok, 500);
}
END_TEST

/* Every failure point of support.h's allocator gives ENOMEM and leaks nothing
 * (the counters balance). */

START_TEST(alloc_failures)
{
    size_t len;
    char *p = tslurp(DATA "/recur/recur.callers2.main.callgrind.out", &len);
    int ok = 0;
    for (long budget = 0; budget < 4000 && !ok; budget += 1 + budget / 40) ok = tfail_read(p, len, "a", budget);
    ck_assert(ok);
    free(p);
}
END_TEST

START_TEST(call_sum_overflow_located)
{
    /* Two lines of one call a -> b: their sum overflows. The cost is named
     * at the second cost line (9), the count at the second calls= line (8);
     * calls into b from two callers at the second one's calls= line (11). */
    cgprop_read_error e = read_bad("events: Ir\nfn=a\n0 1\ncfn=b\ncalls=1 0\n0 18446744073709551615\n"
                                   "cfn=b\ncalls=1 0\n0 1\n",
                                   CGPROP_EOVERFLOW, 9);
    ck_assert_str_eq(e.reason, "the cost of a call summed over its lines overflows 64 bits");
    e = read_bad("events: Ir\nfn=a\n0 1\ncfn=b\ncalls=18446744073709551615 0\n0 1\n"
                 "cfn=b\ncalls=1 0\n0 1\n",
                 CGPROP_EOVERFLOW, 8);
    ck_assert_str_eq(e.reason, "the count of a call summed over its lines overflows 64 bits");
    e = read_bad("events: Ir\nfn=a\n0 1\n  cfn=b\n  calls=18446744073709551615 0\n0 1\n"
                 "fn=c\n0 1\n# calls=1 0\ncfn=b\ncalls=1 0\n0 1\n",
                 CGPROP_EOVERFLOW, 11);
    ck_assert_str_eq(e.reason, "the calls into a function overflow 64 bits");
    /* An event name the graph refuses (a control byte in it) is malformed. */
    e = read_bad("events: I\001r\nfn=a\n0 1\n", CGPROP_EFORMAT, 1);
    ck_assert_str_eq(e.reason, "an event name holds a control byte");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("callgrind");
    TCase *tc = tcase_create("recur");
    tcase_add_test(tc, recur_default);
    tcase_add_test(tc, many_long_names);
    tcase_add_test(tc, call_sum_overflow_located);
    tcase_add_test(tc, recur_recs3);
    tcase_add_test(tc, recur_instr_jumps);
    tcase_add_test(tc, recur_callers2);
    tcase_add_test(tc, recur_combined);
    tcase_add_test(tc, recur_recs3_levels);
    tcase_add_test(tc, recur_callers_contexts);
    tcase_add_test(tc, recur_combined_parts);
    tcase_add_test(tc, recur_recs1);
    suite_add_tcase(s, tc);
    tc = tcase_create("gprof2dot");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gprof2dot_bool);
    tcase_add_test(tc, gprof2dot_issue98);
    tcase_add_test(tc, gprof2dot_xapian);
    tcase_add_test(tc, gprof2dot_abc);
    tcase_add_test(tc, gprof2dot_abc2);
    tcase_add_test(tc, gprof2dot_bzr);
    suite_add_tcase(s, tc);
    tc = tcase_create("grammar");
    tcase_add_test(tc, grammar_compression);
    tcase_add_test(tc, grammar_compression_large_ids);
    tcase_add_test(tc, grammar_mangled_nesting);
    tcase_add_test(tc, no_calls_recorded);
    tcase_add_test(tc, stated_cut_stacks);
    tcase_add_test(tc, grammar_positions_and_events);
    tcase_add_test(tc, grammar_parts);
    tcase_add_test(tc, grammar_parts_calls);
    tcase_add_test(tc, grammar_mangled_and_unknown);
    tcase_add_test(tc, grammar_mangled_plain);
    tcase_add_test(tc, grammar_key_name);
    tcase_add_test(tc, rules_plain_self_call_without_names);
    tcase_add_test(tc, rules_plain_self_call_with_names);
    tcase_add_test(tc, rules_plain_cycle_with_names);
    tcase_add_test(tc, sides_disagree_not_exact);
    tcase_add_test(tc, rules_no_recursion_and_override);
    suite_add_tcase(s, tc);
    tc = tcase_create("robustness");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, xdebug_call_tree);
    tcase_add_test(tc, garbage);
    tcase_add_test(tc, fast_path_agrees);
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
