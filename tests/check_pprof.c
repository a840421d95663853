/* pprof reader and gzip input. The small profile's figures are worked out
 * by hand (docs/formats/pprof.md); the real profile's come from
 * `go tool pprof -top` on it (tests/data/pprof/PROVENANCE.md); the gzip
 * checks compare a compressed input with the same bytes uncompressed. */
#include <check.h>
#include "ck_quiet.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>

#include "cgprop_io.h"
#include "support.h"

#define DATA CGPROP_TEST_DATA "/pprof/"

/* ---- helpers ---- */

/* The test data file `name` (a path below tests/data), as tslurp reads it. */
static char *slurp(const char *name, size_t *len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", DATA, name);
    return tslurp(path, len);
}

static cgprop_graph *rd_buf(const char *d, size_t n, uint32_t fmt, uint32_t key_mode, cgprop_read_info *info)
{
    cgprop_read_options o = tformat(fmt);
    o.key_mode = key_mode;
    return tread(d, n, "p", &o, info);
}

static cgprop_graph *rd_file(const char *name, uint32_t key_mode, cgprop_read_info *info)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", DATA, name);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.key_mode = key_mode;
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_file(path, strlen(path), &o, NULL, &g, info, &err);
    ck_assert_msg(rc == CGPROP_OK, "%s: rc %d line %llu: %s", name, rc, (unsigned long long)err.line, err.reason);
    return g;
}

/* The function shown as name (display names are unique in the profiles
 * read by name here). */
static uint32_t by_name(cgprop_graph *g, const char *name)
{
    uint32_t found = UINT32_MAX;
    for (uint32_t v = 0; v < cgprop_graph_node_count(g); v++) {
        size_t n;
        const char *s = cgprop_node_display_name(g, v, &n);
        if (n == strlen(name) && memcmp(s, name, n) == 0) {
            ck_assert_msg(found == UINT32_MAX, "two functions shown as %s", name);
            found = v;
        }
    }
    ck_assert_msg(found != UINT32_MAX, "no function shown as %s", name);
    return found;
}

static uint64_t self_of(cgprop_graph *g, uint32_t v, uint32_t m)
{
    cgprop_node_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, v, &r, sizeof r), CGPROP_OK);
    return r.self;
}

static uint32_t metric(cgprop_graph *g, const char *name)
{
    uint32_t m;
    ck_assert_msg(cgprop_graph_find_metric(g, name, strlen(name), &m) == CGPROP_OK, "no metric %s", name);
    return m;
}

/* A library built without zlib refuses gzip input with a reason that says
 * so: then that is what the gzip checks check. */
static bool without_zlib(void)
{
    static const unsigned char empty_gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                             0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)empty_gz, sizeof empty_gz, "e.gz", 4, NULL, NULL, &g, NULL, &err);
    ck_assert_int_eq(rc, CGPROP_EFORMAT);
    if (strcmp(err.reason, "gzip input: this cgprop was built without zlib") == 0) return true;
    ck_assert_str_eq(err.reason, "empty input");
    return false;
}

/* ---- the hand-built profile (tests/pprof/make_small.py) ---- */

/* Stacks, root first, with [samples, cpu]:
 *   main f            3 30
 *   main f f g h      2 20   (h inlined into g: one location, two lines)
 *   main f g h f      5 50
 *   main f f'         1 10   (f' = f of b.c in libx.so)
 *   main f' [libx.so] 4 40   (a location without lines at 0xbeef: named by its mapping, as pprof does)
 *   (no stack)        7 70   (charged to "[no location]", as pprof's total counts it)
 *   main              0 0
 * Keys name the mapping /bin/prog by its base name, prog.
 * Totals, once per stack: main 15, f 11, g 7, h 7, f' 5, [libx.so] 4,
 * [no location] 7; the program's 22, pprof's total.
 * Self: f 3+5 = 8, h 2, f' 1, [libx.so] 4, [no location] 7, main 0, g 0. */
static void check_small(cgprop_graph *g, const cgprop_read_info *info)
{
    ck_assert_uint_eq(info->format, CGPROP_INPUT_PPROF);
    ck_assert_uint_eq(info->recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "samples_count");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "cpu_nanoseconds");
    ck_assert_uint_eq(cgprop_graph_node_count(g), 7);
    static const struct {
        const char *key;
        uint64_t total, self;
    } want[] = {
        {"prog\ta.c\tmain", 15, 0}, {"prog\ta.c\tf", 11, 8},  {"prog\ta.c\tg", 7, 0},
        {"prog\ta.c\th", 7, 2},     {"libx.so\tb.c\tf", 5, 1},      {"libx.so\t\t[libx.so]", 4, 4},
        {"[no location]", 7, 7},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        uint32_t v = tfind(g, want[i].key);
        for (uint32_t m = 0; m < 2; m++) {
            uint64_t scale = m ? 10 : 1;
            ck_assert_uint_eq(tstack_total(g, v, m), want[i].total * scale);
            ck_assert_uint_eq(self_of(g, v, m), want[i].self * scale);
        }
    }
    /* The inlined pair: h (first line) is called by g (last line). */
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, tfind(g, "prog\ta.c\tg"), tfind(g, "prog\ta.c\th"), &e), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_edge(g, tfind(g, "prog\ta.c\th"), tfind(g, "prog\ta.c\tg"), &e),
                     CGPROP_ENOTFOUND);
}

START_TEST(small_plain)
{
    size_t n;
    char *d = slurp("small.pb", &n);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd_buf(d, n, CGPROP_INPUT_AUTO, CGPROP_KEY_FULL, &info);
    check_small(g, &info);
    cgprop_graph_free(g);
    g = rd_buf(d, n, CGPROP_INPUT_PPROF, CGPROP_KEY_FULL, &info);
    check_small(g, &info);
    cgprop_graph_free(g);
    ck_assert_uint_eq(cgprop_read_detect(d, n), CGPROP_INPUT_PPROF);
    free(d);
}
END_TEST

START_TEST(small_gzip)
{
    if (without_zlib()) return;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd_file("small.pb.gz", CGPROP_KEY_FULL, &info);
    check_small(g, &info);
    cgprop_graph_free(g);
    size_t n;
    char *d = slurp("small.pb.gz", &n);
    ck_assert_uint_eq(cgprop_read_detect(d, n), CGPROP_INPUT_PPROF);
    g = rd_buf(d, n, CGPROP_INPUT_PPROF, CGPROP_KEY_FULL, &info);
    check_small(g, &info);
    cgprop_graph_free(g);
    free(d);
}
END_TEST

START_TEST(small_by_name)
{
    /* Bare names: f of a.c and f of b.c are one function. Stacks with f:
     * 3 + 2 + 5 + 1 + 4 = 15; f as the leaf: 3 + 5 + 1 = 9. */
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd_file("small.pb", CGPROP_KEY_NAME, &info);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 6);
    ck_assert_uint_eq(tstack_total(g, tfind(g, "f"), 0), 15);
    ck_assert_uint_eq(self_of(g, tfind(g, "f"), 0), 9);
    ck_assert_uint_eq(tstack_total(g, tfind(g, "main"), 0), 15);
    ck_assert_uint_eq(tstack_total(g, tfind(g, "[libx.so]"), 1), 40);
    cgprop_graph_free(g);
}
END_TEST

/* ---- the real profile: go tool pprof's own figures ---- */

/* Compare with `go tool pprof -top -cum` output: flat = self, cum = total
 * (pprof counts a function once per sample in cum, as cgprop's C_n does).
 * pprof lists every function whose figures are not both 0 at that sample
 * index: with every_function, that is every function cgprop has. */
static void check_top_of(cgprop_graph *g, const char *top_file, const char *metric_name, bool every_function)
{
    size_t n;
    char *t = slurp(top_file, &n);
    uint32_t m = metric(g, metric_name);
    int rows = 0;
    bool in_table = false;
    for (char *line = strtok(t, "\n"); line; line = strtok(NULL, "\n")) {
        if (strstr(line, "flat%") && strstr(line, "cum%")) {
            in_table = true;
            continue;
        }
        if (!in_table) continue;
        char flat[64], fp[16], sp[16], cum[64], cp[16];
        int at = 0;
        int k = sscanf(line, "%63s %15s %15s %63s %15s %n", flat, fp, sp, cum, cp, &at);
        ck_assert_int_eq(k, 5);
        /* The name is the rest of the line ("Garbage Collection"), less
         * pprof's mark of a function it saw inlined in all or some of its
         * calls. */
        char *name = line + at;
        static const char *const marks[] = {" (inline)", " (partial-inline)"};
        for (size_t i = 0; i < 2; i++) {
            size_t nl = strlen(name), ml = strlen(marks[i]);
            if (nl > ml && strcmp(name + nl - ml, marks[i]) == 0) name[nl - ml] = '\0';
        }
        ck_assert_msg(*name, "no name in <%s>", line);
        uint32_t v = by_name(g, name);
        ck_assert_msg(self_of(g, v, m) == strtoull(flat, NULL, 10), "%s: self %llu, pprof flat %s", name,
                      (unsigned long long)self_of(g, v, m), flat);
        ck_assert_msg(tstack_total(g, v, m) == strtoull(cum, NULL, 10), "%s: total %llu, pprof cum %s", name,
                      (unsigned long long)tstack_total(g, v, m), cum);
        rows++;
    }
    /* Every function pprof lists, and no other with a figure. */
    int listed = 0;
    for (uint32_t v = 0; v < cgprop_graph_node_count(g); v++)
        listed += every_function || self_of(g, v, m) || tstack_total(g, v, m);
    ck_assert_int_eq(rows, listed);
    ck_assert_int_ge(rows, 5);
    free(t);
}

static void check_top(cgprop_graph *g, const char *top_file, const char *metric_name)
{
    check_top_of(g, top_file, metric_name, true);
}

/* A committed Go profile BASE.pb.gz against pprof's reports of it,
 * BASE.top.samples.txt and BASE.top.cpu.txt; its function count. */
static size_t check_go_profile(const char *base)
{
    char pb[64], samples[64], cpu[64];
    snprintf(pb, sizeof pb, "%s.pb.gz", base);
    snprintf(samples, sizeof samples, "%s.top.samples.txt", base);
    snprintf(cpu, sizeof cpu, "%s.top.cpu.txt", base);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd_file(pb, CGPROP_KEY_FULL, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_PPROF);
    check_top(g, samples, "samples_count");
    check_top(g, cpu, "cpu_nanoseconds");
    size_t n = cgprop_graph_node_count(g);
    cgprop_graph_free(g);
    return n;
}

/* Another producer: Datadog's profiler for Node.js (@datadog/pprof 5.20.0
 * under node 20) on node-prof.js, a wall-time profile and a heap profile.
 * It names JavaScript functions without a mapping, gives two anonymous
 * functions of two files one name, and names some with blanks ("Garbage
 * Collection", "get length"). Read by bare name, as pprof's -top lists
 * them, every function has pprof's flat and cum at both sample indexes. */
START_TEST(real_node_profiles)
{
    if (without_zlib()) return;
    static const char *const files[][3] = {
        {"node-wall.pb.gz", "node-wall.top.sample.txt", "sample_count"},
        {"node-wall.pb.gz", "node-wall.top.wall.txt", "wall_nanoseconds"},
        {"node-heap.pb.gz", "node-heap.top.inuse_objects.txt", "inuse_objects_count"},
        {"node-heap.pb.gz", "node-heap.top.inuse_space.txt", "inuse_space_bytes"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        cgprop_read_info info;
        cgprop_read_info_init(&info);
        cgprop_graph *g = rd_file(files[i][0], CGPROP_KEY_NAME, &info);
        ck_assert_uint_eq(info.format, CGPROP_INPUT_PPROF);
        check_top_of(g, files[i][1], files[i][2], false);
        cgprop_graph_free(g);
    }
}
END_TEST

START_TEST(real_go_profile)
{
    if (without_zlib()) return;
    check_go_profile("recur");
}
END_TEST

/* The standard library at work (JSON, regular expressions, sorting,
 * compression, templates): 835 functions, inlined calls in 684 of its 4,947
 * locations, recursion in the JSON encoder and the templates, samples in
 * the order Go writes them (not sorted), two of them with their location
 * ids one to a field. Every function's figures against pprof's. */
START_TEST(real_go_stdlib_profile)
{
    if (without_zlib()) return;
    ck_assert_uint_eq(check_go_profile("work"), 835);
}
END_TEST

/* Go's CPU profiler records 64 frames: deep.go's recursion, 100 deep, loses
 * its outer frames. go tool pprof (deep.top.txt) shows main.main at 290 ms,
 * 50 %, where every sample ran under it; deep.traces.txt shows the five
 * stacks that start in main.deep, 290 ms of the 580 (29 of the 58 samples
 * at 100 Hz). main.deep is called (by itself) and starts stacks 64 frames
 * deep: those 29 samples may have lost any caller. */
START_TEST(truncated_stacks)
{
    if (without_zlib()) return;
    cgprop_graph *g = rd_file("deep.pb.gz", CGPROP_KEY_NAME, NULL);
    ck_assert_int_eq(cgprop_graph_analyze(g), CGPROP_OK);
    uint32_t samples, cpu;
    ck_assert_int_eq(cgprop_graph_find_metric(g, "samples_count", 13, &samples), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_find_metric(g, "cpu_nanoseconds", 15, &cpu), CGPROP_OK);
    uint64_t u;
    ck_assert_int_eq(cgprop_graph_unrooted(g, samples, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 29);
    ck_assert_int_eq(cgprop_graph_unrooted(g, cpu, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 290000000);
    /* The stacks show each function's figure; those the cut stacks do not
     * hold (main.main, runtime.main, main.shallow) may lack all 29 samples,
     * up to the program's 58: the truth, 58 for main.main, is inside. */
    static const struct {
        const char *name;
        double lo, hi;
        uint32_t estimate;
    } want[] = {{"main.spin", 58, 58, CGPROP_EST_EXACT},
                {"main.deep", 29, 29, CGPROP_EST_EXACT},
                {"main.main", 29, 58, CGPROP_EST_MEASURED},
                {"runtime.main", 29, 58, CGPROP_EST_MEASURED},
                {"main.shallow", 29, 58, CGPROP_EST_MEASURED}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cgprop_total_row t;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, samples, by_name(g, want[i].name), &t, sizeof t),
                         CGPROP_OK);
        ck_assert_msg(t.lo == want[i].lo && t.hi == want[i].hi && t.estimate == want[i].estimate,
                      "%s: [%g, %g] estimate %u", want[i].name, t.lo, t.hi, t.estimate);
        ck_assert_double_eq(t.total, want[i].lo);
        ck_assert_uint_eq(t.reason, want[i].estimate == CGPROP_EST_EXACT ? 0 : CGPROP_R_UNROOTED);
        ck_assert_uint_eq((t.flags & CGPROP_F_ESTIMATE) != 0, want[i].estimate != CGPROP_EST_EXACT);
        /* The levels of the cut stacks are unknown: the split says so. */
        cgprop_split_row s;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, samples, by_name(g, want[i].name), &s, sizeof s),
                         CGPROP_OK);
        ck_assert_uint_eq(s.C_n, (uint64_t)want[i].lo);
        ck_assert(s.inexact & CGPROP_X_C_R);
        ck_assert_uint_eq((s.inexact & CGPROP_X_C_N) != 0, want[i].lo != want[i].hi);
    }
    /* A call's measured cost is what the stacks show: an estimate. */
    uint32_t e;
    ck_assert_int_eq(cgprop_graph_find_edge(g, by_name(g, "main.main"), by_name(g, "main.shallow"), &e), CGPROP_OK);
    cgprop_edge_total_row et;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_TOTALS, samples, e, &et, sizeof et), CGPROP_OK);
    ck_assert_double_eq(et.total, 29);
    ck_assert(et.flags & CGPROP_F_ESTIMATE);
    /* Merged into another graph (cgprop report a b), the stacks stay a
     * sampler's, and main.deep a root of deep ones: the same weight. */
    cgprop_graph *m = rd_file("recur.pb.gz", CGPROP_KEY_NAME, NULL);
    ck_assert_int_eq(cgprop_graph_merge(m, g), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_unrooted(m, samples, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 29);
    cgprop_graph_free(m);
    cgprop_graph_free(g);

    /* The complete stacks of recur.go: nothing cut, every figure exact. */
    g = rd_file("recur.pb.gz", CGPROP_KEY_NAME, NULL);
    ck_assert_int_eq(cgprop_graph_unrooted(g, 0, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 0);
    cgprop_graph_free(g);
}
END_TEST

/* ---- malformed profiles, written with a small encoder ---- */

typedef struct pb {
    unsigned char b[1 << 17];
    size_t n;
} pb;

static void put(pb *p, unsigned char c)
{
    ck_assert(p->n < sizeof p->b);
    p->b[p->n++] = c;
}
static void vint(pb *p, uint64_t v)
{
    while (v >= 0x80) {
        put(p, (unsigned char)(v | 0x80));
        v >>= 7;
    }
    put(p, (unsigned char)v);
}
static void fv(pb *p, unsigned num, uint64_t v)
{
    vint(p, (uint64_t)num << 3);
    vint(p, v);
}
static void fb(pb *p, unsigned num, const pb *m)
{
    vint(p, (uint64_t)num << 3 | 2);
    vint(p, m->n);
    for (size_t i = 0; i < m->n; i++) put(p, m->b[i]);
}
static void fs(pb *p, unsigned num, const char *s)
{
    pb m = {{0}, 0};
    for (const char *c = s; *c; c++) put(&m, (unsigned char)*c);
    fb(p, num, &m);
}

/* A valid head: strings "", "samples", "count", sample_type samples/count,
 * function 4 named "samples" (any string serves), location 9 with it. */
static void head(pb *p, unsigned ntypes)
{
    fs(p, 6, "");
    fs(p, 6, "samples");
    fs(p, 6, "count");
    for (unsigned i = 0; i < ntypes; i++) {
        pb vt = {{0}, 0};
        fv(&vt, 1, 1);
        fv(&vt, 2, 2);
        fb(p, 1, &vt);
    }
    pb fn = {{0}, 0};
    fv(&fn, 1, 4);
    fv(&fn, 2, 1);
    fb(p, 5, &fn);
    pb ln = {{0}, 0}, loc = {{0}, 0};
    fv(&ln, 1, 4);
    fv(&loc, 1, 9);
    fb(&loc, 4, &ln);
    fb(p, 4, &loc);
}

static void sample(pb *p, uint64_t loc, const int64_t *vals, size_t nv)
{
    pb s = {{0}, 0};
    fv(&s, 1, loc);
    for (size_t i = 0; i < nv; i++) fv(&s, 2, (uint64_t)vals[i]);
    fb(p, 2, &s);
}

/* The string table str[0..n) (its 1 and 2 "samples" and "count"), the one
 * sample type samples/count, and mappings 1 and 2 whose filenames are
 * strings file and file + 1. */
static void two_mappings(pb *p, const char *const *str, size_t n, unsigned file)
{
    for (size_t i = 0; i < n; i++) fs(p, 6, str[i]);
    pb vt = {{0}, 0};
    fv(&vt, 1, 1);
    fv(&vt, 2, 2);
    fb(p, 1, &vt);
    for (unsigned m = 1; m <= 2; m++) {
        pb mp = {{0}, 0};
        fv(&mp, 1, m);
        fv(&mp, 5, file + m - 1);
        fb(p, 3, &mp);
    }
}

/* Samples that share their root end with the one before (a program's
 * samples do), in every spelling: one packed list, ids one by one, two
 * packed lists, the value first; location ids of one and two bytes (the
 * lists then share bytes in the middle of an id), one location of two
 * inlined frames. Every function's self and inclusive cost is worked out
 * here from the stacks, by definition: the weight of the stacks that end in
 * it, and of those that hold it at all. */
#define NFN 300
START_TEST(shared_tails)
{
    static pb p;
    p.n = 0;
    fs(&p, 6, "");
    fs(&p, 6, "samples");
    fs(&p, 6, "count");
    pb vt = {{0}, 0};
    fv(&vt, 1, 1);
    fv(&vt, 2, 2);
    fb(&p, 1, &vt);
    for (unsigned f = 1; f <= NFN; f++) {
        char name[16];
        snprintf(name, sizeof name, "f%u", f);
        fs(&p, 6, name); /* string f + 2 */
        pb fn = {{0}, 0}, ln = {{0}, 0}, loc = {{0}, 0};
        fv(&fn, 1, f);
        fv(&fn, 2, f + 2);
        fb(&p, 5, &fn);
        fv(&ln, 1, f);
        fv(&loc, 1, f);
        fb(&loc, 4, &ln);
        fb(&p, 4, &loc);
    }
    /* Location NFN + 1: function 7 inlined into function 8 (leaf first). */
    pb l7 = {{0}, 0}, l8 = {{0}, 0}, inl = {{0}, 0};
    fv(&l7, 1, 7);
    fv(&l8, 1, 8);
    fv(&inl, 1, NFN + 1);
    fb(&inl, 4, &l7);
    fb(&inl, 4, &l8);
    fb(&p, 4, &inl);
    uint64_t self[NFN + 1] = {0}, incl[NFN + 1] = {0};
    uint32_t st[40];
    size_t d = 0;
    uint64_t rng = 12345;
    for (int s = 0; s < 600; s++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(rng >> 33);
        size_t keep = d ? r % (d + 1) : 0;
        d = keep;
        size_t add = (keep ? 0 : 1) + (r >> 8) % 8;
        for (size_t i = 0; i < add && d < 40; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t x = (uint32_t)(rng >> 33);
            /* Ids 120..135 and 248..263 straddle one- and two-byte ids
             * and share their high byte. */
            uint32_t loc = x % 5 == 0 && d ? st[x % d]
                         : x % 5 == 1      ? 120 + x % 16
                         : x % 5 == 2      ? 248 + x % 16
                         : x % 23 == 3     ? NFN + 1
                                           : 1 + x % NFN;
            st[d++] = loc;
        }
        uint64_t w = 1 + (r >> 12) % 1000;
        /* Its functions, root first: the inlined location is 8 then 7. */
        uint32_t fr[80];
        size_t nf = 0;
        for (size_t i = 0; i < d; i++) {
            if (st[i] == NFN + 1) {
                fr[nf++] = 8;
                fr[nf++] = 7;
            } else
                fr[nf++] = st[i];
        }
        self[fr[nf - 1]] += w;
        for (uint32_t f = 1; f <= NFN; f++)
            for (size_t i = 0; i < nf; i++)
                if (fr[i] == f) {
                    incl[f] += w;
                    break;
                }
        pb smp = {{0}, 0}, ids = {{0}, 0}, ids2 = {{0}, 0};
        int how = (int)((r >> 20) % 10);
        size_t cut = d / 2;
        if (how == 9) fv(&smp, 2, w);
        for (size_t i = d; i-- > 0;) {
            if (how == 7) fv(&smp, 1, st[i]);
            else vint(how == 8 && i < cut ? &ids2 : &ids, st[i]);
        }
        if (how != 7) fb(&smp, 1, &ids);
        if (how == 8) fb(&smp, 1, &ids2);
        if (how != 9) fv(&smp, 2, w);
        fb(&p, 2, &smp);
    }
    cgprop_graph *g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_PPROF, CGPROP_KEY_NAME, NULL);
    for (uint32_t f = 1; f <= NFN; f++) {
        char name[16];
        snprintf(name, sizeof name, "f%u", f);
        uint32_t v;
        if (cgprop_graph_find_node(g, name, strlen(name), &v) != CGPROP_OK) {
            ck_assert_uint_eq(incl[f], 0);
            continue;
        }
        ck_assert_uint_eq(self_of(g, v, 0), self[f]);
        ck_assert_uint_eq(tstack_total(g, v, 0), incl[f]);
    }
    cgprop_graph_free(g);
}
END_TEST
#undef NFN

/* Function names that repeat across many Function messages (300 of them
 * over 7 names, and one named by a string that comes after every sample),
 * with samples before, between and after the tables. The functions are the
 * distinct names in the order their first location names them; a name's
 * self cost is the weight of the samples whose leaf location names it, and
 * its inclusive cost that of the samples holding it at all (worked out here
 * from the stacks). */
#define NFN 300
START_TEST(repeated_names_spread_samples)
{
    static pb p;
    p.n = 0;
    static const char *const names[] = {"n0", "n1", "n2", "n3", "n4", "n5", "n6"};
    /* Function f (and location f) is named names[(5 f) % 7], f in 1..NFN;
     * function and location NFN + 1 is named "late" (string 10). */
    uint64_t self[8] = {0}, incl[8] = {0};
    uint32_t st[12];
    uint64_t rng = 99;
    int nsamp = 0;
#define NAME_OF(loc) ((loc) == NFN + 1 ? 7u : (unsigned)((5 * (loc)) % 7))
#define SAMPLE()                                                                                                   \
    do {                                                                                                           \
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;                                               \
        uint32_t r = (uint32_t)(rng >> 33);                                                                        \
        size_t d = 1 + r % 12;                                                                                     \
        for (size_t i = 0; i < d; i++) {                                                                           \
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;                                           \
            st[i] = 1 + (uint32_t)(rng >> 33) % (NFN + 1);                                                         \
        }                                                                                                          \
        uint64_t w = 1 + (r >> 8) % 100;                                                                           \
        self[NAME_OF(st[d - 1])] += w;                                                                             \
        for (unsigned k = 0; k < 8; k++)                                                                           \
            for (size_t i = 0; i < d; i++)                                                                         \
                if (NAME_OF(st[i]) == k) {                                                                         \
                    incl[k] += w;                                                                                  \
                    break;                                                                                         \
                }                                                                                                  \
        pb smp = {{0}, 0}, ids = {{0}, 0};                                                                         \
        for (size_t i = d; i-- > 0;) vint(&ids, st[i]);                                                            \
        fb(&smp, 1, &ids);                                                                                         \
        fv(&smp, 2, w);                                                                                            \
        fb(&p, 2, &smp);                                                                                           \
        nsamp++;                                                                                                   \
    } while (0)
    SAMPLE();
    SAMPLE();
    fs(&p, 6, "");
    fs(&p, 6, "samples");
    fs(&p, 6, "count");
    for (unsigned i = 0; i < 7; i++) fs(&p, 6, names[i]); /* strings 3..9 */
    pb vt = {{0}, 0};
    fv(&vt, 1, 1);
    fv(&vt, 2, 2);
    fb(&p, 1, &vt);
    for (unsigned f = 1; f <= NFN + 1; f++) {
        pb fn = {{0}, 0}, ln = {{0}, 0}, loc = {{0}, 0};
        fv(&fn, 1, f);
        fv(&fn, 2, f == NFN + 1 ? 10 : 3 + (5 * f) % 7);
        fb(&p, 5, &fn);
        fv(&ln, 1, f);
        fv(&loc, 1, f);
        fb(&loc, 4, &ln);
        fb(&p, 4, &loc);
        if (f % 50 == 0) SAMPLE();
    }
    for (int i = 0; i < 20; i++) SAMPLE();
    fs(&p, 6, "late"); /* string 10, after every sample */
#undef SAMPLE
#undef NAME_OF
    ck_assert_int_eq(nsamp, 28);
    cgprop_graph *g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_PPROF, CGPROP_KEY_NAME, NULL);
    /* Locations 1, 2, ... name n5, n3, n1, n6, n4, n2, n0 first; "late" last. */
    static const char *const order[] = {"n5", "n3", "n1", "n6", "n4", "n2", "n0", "late"};
    ck_assert_uint_eq(cgprop_graph_node_count(g), 8);
    for (uint32_t v = 0; v < 8; v++) {
        size_t n;
        const char *k = cgprop_graph_node_key(g, v, &n);
        ck_assert_msg(n == strlen(order[v]) && memcmp(k, order[v], n) == 0, "function %u is %.*s, not %s", v,
                      (int)n, k, order[v]);
        unsigned which = v == 7 ? 7u : (unsigned)(order[v][1] - '0');
        ck_assert_uint_eq(self_of(g, v, 0), self[which]);
        ck_assert_uint_eq(tstack_total(g, v, 0), incl[which]);
    }
    cgprop_graph_free(g);
}
END_TEST
#undef NFN

/* One function named by many locations, under two mappings, an unknown
 * mapping id and none, and inlined into a location of its own: the reader
 * makes a function's key once per mapping and copies it to the locations
 * after, so every location must still get the function of its own mapping.
 * Full keys: f under a.out (A) and lib.so (B), g under a.out (C) and under
 * no object (D: no mapping, or an id the profile lacks). Self and inclusive
 * costs worked out by hand from the five samples (leaf first):
 *   [3 1] w 1: A -> A        [2 1] w 10: A -> B     [4] w 100: A -> C (inlined)
 *   [5 6] w 1000: C -> D     [7] w 10000: D
 * A: self 1, total 111; B: 10, 10; C: 100, 1100; D: 11000, 11000. By name:
 * f self 11, total 111; g self 11100, total 11100. */
START_TEST(one_function_many_locations)
{
    static pb p;
    p.n = 0;
    static const char *const str[] = {"", "samples", "count", "f", "f.go", "g", "g.go", "a.out", "lib.so"};
    two_mappings(&p, str, sizeof str / sizeof *str, 7); /* a.out, lib.so */
    for (unsigned f = 1; f <= 2; f++) {
        pb fn = {{0}, 0};
        fv(&fn, 1, f);
        fv(&fn, 2, f == 1 ? 3 : 5);
        fv(&fn, 4, f == 1 ? 4 : 6);
        fb(&p, 5, &fn);
    }
    /* location: mapping (0 none), its functions leaf first */
    static const unsigned lmap[8] = {0, 1, 2, 1, 1, 0, 1, 3};
    static const unsigned lfn[8][2] = {{0, 0}, {1, 0}, {1, 0}, {1, 0}, {2, 1}, {2, 0}, {2, 0}, {2, 0}};
    for (unsigned l = 1; l <= 7; l++) {
        pb loc = {{0}, 0};
        fv(&loc, 1, l);
        if (lmap[l]) fv(&loc, 2, lmap[l]);
        for (unsigned j = 0; j < 2 && lfn[l][j]; j++) {
            pb ln = {{0}, 0};
            fv(&ln, 1, lfn[l][j]);
            fb(&loc, 4, &ln);
        }
        fb(&p, 4, &loc);
    }
    static const uint64_t smp[5][3] = {{3, 1, 1}, {2, 1, 10}, {4, 0, 100}, {5, 6, 1000}, {7, 0, 10000}};
    for (unsigned i = 0; i < 5; i++) {
        pb sm = {{0}, 0}, ids = {{0}, 0};
        vint(&ids, smp[i][0]);
        if (smp[i][1]) vint(&ids, smp[i][1]);
        fb(&sm, 1, &ids);
        fv(&sm, 2, smp[i][2]);
        fb(&p, 2, &sm);
    }
    cgprop_graph *g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_PPROF, CGPROP_KEY_FULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 4);
    static const char *const key[4] = {"a.out\tf.go\tf", "lib.so\tf.go\tf", "a.out\tg.go\tg", "\tg.go\tg"};
    static const uint64_t self[4] = {1, 10, 100, 11000}, total[4] = {111, 10, 1100, 11000};
    for (uint32_t v = 0; v < 4; v++) {
        ck_assert_uint_eq(tfind(g, key[v]), v); /* in the order the locations name them first */
        ck_assert_uint_eq(self_of(g, v, 0), self[v]);
        ck_assert_uint_eq(tstack_total(g, v, 0), total[v]);
    }
    cgprop_graph_free(g);
    g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_PPROF, CGPROP_KEY_NAME, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(self_of(g, tfind(g, "f"), 0), 11);
    ck_assert_uint_eq(tstack_total(g, tfind(g, "f"), 0), 111);
    ck_assert_uint_eq(self_of(g, tfind(g, "g"), 0), 11100);
    ck_assert_uint_eq(tstack_total(g, tfind(g, "g"), 0), 11100);
    cgprop_graph_free(g);
}
END_TEST

/* Code without symbols (a stripped binary, gperftools' profiles before
 * pprof symbolizes them): locations with an address and no line are one
 * function per mapping, "[lib.so]", and without a mapping "<unknown>", as
 * go tool pprof -top shows them. Stacks, root first, with their weights:
 *   0x10 (a.out)  0x20 (lib.so)  0x30 (lib.so)   1
 *   0x10 (a.out)  0x40 (lib.so)                  10
 *   0x50 (none)   0x60 (none)                    100
 * [a.out]: total 11, self 0; [lib.so] (0x20, 0x30, 0x40): total 11 (each
 * stack once), self 11; <unknown>: total 100, self 100. */
START_TEST(code_without_symbols)
{
    static pb p;
    p.n = 0;
    static const char *const str[] = {"", "samples", "count", "/bin/a.out", "/usr/lib/lib.so"};
    two_mappings(&p, str, sizeof str / sizeof *str, 3);
    static const unsigned lmap[7] = {0, 1, 2, 2, 2, 0, 0};
    for (unsigned l = 1; l <= 6; l++) {
        pb loc = {{0}, 0};
        fv(&loc, 1, l);
        if (lmap[l]) fv(&loc, 2, lmap[l]);
        fv(&loc, 3, 0x10 * l);
        fb(&p, 4, &loc);
    }
    /* location ids leaf first, then the weight; 0 ends a list */
    static const uint64_t ids_of[3][3] = {{3, 2, 1}, {4, 1, 0}, {6, 5, 0}}, weight[3] = {1, 10, 100};
    for (unsigned i = 0; i < 3; i++) {
        pb sm = {{0}, 0}, ids = {{0}, 0};
        for (unsigned j = 0; j < 3 && ids_of[i][j]; j++) vint(&ids, ids_of[i][j]);
        fb(&sm, 1, &ids);
        fv(&sm, 2, weight[i]);
        fb(&p, 2, &sm);
    }
    cgprop_graph *g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_PPROF, CGPROP_KEY_FULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    uint32_t a = tfind(g, "a.out\t\t[a.out]"), l = tfind(g, "lib.so\t\t[lib.so]"), u = tfind(g, "\t\t<unknown>");
    ck_assert_uint_eq(tstack_total(g, a, 0), 11);
    ck_assert_uint_eq(self_of(g, a, 0), 0);
    ck_assert_uint_eq(tstack_total(g, l, 0), 11);
    ck_assert_uint_eq(self_of(g, l, 0), 11);
    ck_assert_uint_eq(tstack_total(g, u, 0), 100);
    ck_assert_uint_eq(self_of(g, u, 0), 100);
    cgprop_graph_free(g);
}
END_TEST

/* Function and Location messages in every spelling the reader meets: the
 * usual one (one-byte tags, varint fields, one Line), fields in another
 * order, a field given twice (the last counts), fields it does not read
 * (Function.start_line, Location.is_folded, an unknown field), a Line
 * longer than 127 bytes, a location of two inlined lines, a mapping and an
 * address; ids of one, two and three bytes; names with a TAB, LF or CR
 * (written as a space in the key). Keys are full (object, file, name), and
 * each function's self and inclusive cost is worked out here from the
 * stacks, by definition. */
#define NT 300
START_TEST(table_spellings)
{
    static pb p;
    p.n = 0;
    /* Strings: 0 "", 1 samples, 2 count, 3 "/bin/x", 4 "a.go",
     * 5 + i - 1 the name of function i (1..NT). */
    fs(&p, 6, "");
    fs(&p, 6, "samples");
    fs(&p, 6, "count");
    fs(&p, 6, "/bin/x");
    fs(&p, 6, "a.go");
    static char names[NT + 1][32], keys[NT + 1][48];
    for (unsigned i = 1; i <= NT; i++) {
        const char *odd = i % 10 == 3 ? "\t" : i % 10 == 6 ? "\n" : i % 10 == 9 ? "\r" : "";
        snprintf(names[i], sizeof names[i], "fn%s%u_long_enough_name", odd, i);
        fs(&p, 6, names[i]);
    }
    pb vt = {{0}, 0};
    fv(&vt, 1, 1);
    fv(&vt, 2, 2);
    fb(&p, 1, &vt);
    pb mp = {{0}, 0};
    fv(&mp, 1, 1);
    fv(&mp, 5, 3);
    fb(&p, 3, &mp);
    /* Function i has id fid(i): 1..NT, except the last, 20000 (three bytes). */
#define FID(i) ((i) == NT ? 20000u : (unsigned)(i))
    for (unsigned i = 1; i <= NT; i++) {
        pb fn = {{0}, 0};
        bool file = i % 4 == 1;
        switch (i % 5) {
        case 0: /* the usual order */
            fv(&fn, 1, FID(i));
            fv(&fn, 2, 4 + i);
            if (file) fv(&fn, 4, 4);
            break;
        case 1: /* the other way round, and system_name */
            if (file) fv(&fn, 4, 4);
            fv(&fn, 3, 2);
            fv(&fn, 2, 4 + i);
            fv(&fn, 1, FID(i));
            break;
        case 2: /* start_line (not read) */
            fv(&fn, 1, FID(i));
            fv(&fn, 5, 1234);
            fv(&fn, 2, 4 + i);
            if (file) fv(&fn, 4, 4);
            break;
        case 3: /* the name twice: the last counts */
            fv(&fn, 1, FID(i));
            fv(&fn, 2, 1);
            fv(&fn, 2, 4 + i);
            if (file) fv(&fn, 4, 4);
            break;
        default: /* an unknown field of another wire type */
            fv(&fn, 1, FID(i));
            fs(&fn, 12, "x");
            fv(&fn, 2, 4 + i);
            if (file) fv(&fn, 4, 4);
            break;
        }
        fb(&p, 5, &fn);
    }
    /* Location i (id i): its frames, leaf first, in fr[i][0..nfr[i]). */
    static unsigned fr[NT + 1][2], nfr[NT + 1];
    static bool mapped[NT + 1];
    for (unsigned i = 1; i <= NT; i++) {
        pb loc = {{0}, 0}, ln = {{0}, 0};
        /* Inlined into f2, a location of the same mapping (the object part
         * of a key is the location's). */
        unsigned f2 = i % 7 == 5 && i > 3 ? i - 3 : 0;
        mapped[i] = i % 3 == 0;
        fv(&ln, 1, FID(i));
        fv(&ln, 2, 10 + i);
        if (i % 11 == 4) {
            pb pad = {{0}, 0};
            for (int k = 0; k < 140; k++) put(&pad, 'z');
            fb(&ln, 9, &pad); /* a Line of 150 bytes */
        }
        switch (i % 6) {
        case 0:
        case 1: /* the usual order */
            fv(&loc, 1, i);
            if (mapped[i]) fv(&loc, 2, 1);
            fv(&loc, 3, 0x400000 + i);
            fb(&loc, 4, &ln);
            break;
        case 2: /* the line first, the id last, and the id twice */
            fb(&loc, 4, &ln);
            if (mapped[i]) fv(&loc, 2, 1);
            fv(&loc, 1, NT + 5);
            fv(&loc, 1, i);
            break;
        case 3: /* is_folded (not read) */
            fv(&loc, 1, i);
            if (mapped[i]) fv(&loc, 2, 1);
            fb(&loc, 4, &ln);
            fv(&loc, 5, 1);
            break;
        case 4: /* an unknown length-delimited field */
            fv(&loc, 1, i);
            fs(&loc, 9, "q");
            if (mapped[i]) fv(&loc, 2, 1);
            fb(&loc, 4, &ln);
            break;
        default: /* no address, the line's field numbers in another order */
            fv(&loc, 1, i);
            if (mapped[i]) fv(&loc, 2, 1);
            {
                pb l2 = {{0}, 0};
                fv(&l2, 2, 7);
                fv(&l2, 1, FID(i));
                fb(&loc, 4, &l2);
            }
            break;
        }
        nfr[i] = 1;
        fr[i][0] = i;
        if (f2) {
            pb l3 = {{0}, 0};
            fv(&l3, 1, FID(f2));
            fb(&loc, 4, &l3);
            fr[i][nfr[i]++] = f2;
        }
        fb(&p, 4, &loc);
    }
    for (unsigned i = 1; i <= NT; i++) {
        /* The key: object (the mapping's file for a mapped location; a
         * function's key comes from the first location that names it),
         * file, name with TAB, LF and CR made spaces. */
        char nm[32];
        snprintf(nm, sizeof nm, "%s", names[i]);
        for (char *c = nm; *c; c++)
            if (*c == '\t' || *c == '\n' || *c == '\r') *c = ' ';
        /* The mapping /bin/x by its base name. */
        snprintf(keys[i], sizeof keys[i], "%s\t%s\t%s", mapped[i] ? "x" : "", i % 4 == 1 ? "a.go" : "", nm);
    }
    uint64_t self[NT + 1] = {0}, incl[NT + 1] = {0};
    static bool pair[NT + 1][NT + 1]; /* caller, callee */
    memset(pair, 0, sizeof pair);
    size_t npairs = 0;
    uint64_t rng = 7;
    for (int n = 0; n < 400; n++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(rng >> 33);
        size_t d = 1 + r % 20;
        unsigned st[20];
        for (size_t i = 0; i < d; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            st[i] = 1 + (unsigned)((rng >> 33) % NT);
        }
        uint64_t w = 1 + (r >> 8) % 1000;
        /* st[0] is the leaf location; its first line the leaf frame. */
        self[fr[st[0]][0]] += w;
        bool seen[NT + 1] = {false};
        unsigned prev = 0; /* the frame before, leaf first: the callee */
        for (size_t i = 0; i < d; i++)
            for (unsigned k = 0; k < nfr[st[i]]; k++) {
                unsigned f = fr[st[i]][k];
                if (!seen[f]) incl[f] += w;
                seen[f] = true;
                if (prev && !pair[f][prev]) npairs++;
                if (prev) pair[f][prev] = true;
                prev = f;
            }
        pb smp = {{0}, 0}, ids = {{0}, 0};
        for (size_t i = 0; i < d; i++) vint(&ids, st[i]);
        fb(&smp, 1, &ids);
        fv(&smp, 2, w);
        fb(&p, 2, &smp);
    }
#undef FID
    cgprop_graph *g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_PPROF, CGPROP_KEY_FULL, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), NT);
    /* Every call is a pair of adjacent frames of some stack. */
    ck_assert_uint_eq(cgprop_graph_edge_count(g), npairs);
    for (unsigned i = 1; i <= NT; i++) {
        uint32_t v = tfind(g, keys[i]);
        ck_assert_msg(self_of(g, v, 0) == self[i], "function %u: self %llu, expected %llu", i,
                      (unsigned long long)self_of(g, v, 0), (unsigned long long)self[i]);
        ck_assert_msg(tstack_total(g, v, 0) == incl[i], "function %u: inclusive %llu, expected %llu", i,
                      (unsigned long long)tstack_total(g, v, 0), (unsigned long long)incl[i]);
    }
    cgprop_graph_free(g);
}
END_TEST
#undef NT

/* Three sample types, samples/count, cpu/nanoseconds and alloc/bytes, one
 * sample; default_sample_type (field 14) the string index def, none for 0. */
static void three_types(pb *p, uint64_t def)
{
    p->n = 0;
    static const char *const str[] = {"", "samples", "count", "cpu", "nanoseconds", "alloc", "bytes"};
    for (size_t i = 0; i < sizeof str / sizeof *str; i++) fs(p, 6, str[i]);
    for (unsigned t = 0; t < 3; t++) {
        pb vt = {{0}, 0};
        fv(&vt, 1, 1 + 2 * t);
        fv(&vt, 2, 2 + 2 * t);
        fb(p, 1, &vt);
    }
    pb fn = {{0}, 0}, ln = {{0}, 0}, loc = {{0}, 0};
    fv(&fn, 1, 4);
    fv(&fn, 2, 1);
    fb(p, 5, &fn);
    fv(&ln, 1, 4);
    fv(&loc, 1, 9);
    fb(&loc, 4, &ln);
    fb(p, 4, &loc);
    static const int64_t v[3] = {1, 10, 100};
    sample(p, 9, v, 3);
    if (def) fv(p, 14, def);
}

static uint32_t default_of(const pb *p, bool named)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    info.default_metric = 77; /* the reader must write it */
    cgprop_graph *g = rd_buf((const char *)p->b, p->n, CGPROP_INPUT_PPROF, CGPROP_KEY_FULL, &info);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    /* Whether the profile named it: the tool's merge of several profiles
     * takes the first that did, as pprof's does. */
    ck_assert_uint_eq(!!(info.flags & CGPROP_RI_DEFAULT_NAMED), named);
    cgprop_graph_free(g);
    return info.default_metric;
}

/* The metric go tool pprof shows first: the type default_sample_type
 * names, else the last sample type. */
START_TEST(default_sample_type)
{
    static pb p;
    three_types(&p, 0);
    ck_assert_uint_eq(default_of(&p, false), 2);
    three_types(&p, 3); /* "cpu" */
    ck_assert_uint_eq(default_of(&p, true), 1);
    three_types(&p, 1); /* "samples" */
    ck_assert_uint_eq(default_of(&p, true), 0);
    three_types(&p, 2); /* "count": a unit, no type: the last */
    ck_assert_uint_eq(default_of(&p, false), 2);
    three_types(&p, 99);
    cgprop_graph *g = (cgprop_graph *)1;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer((const char *)p.b, p.n, "d.pb", 4, NULL, NULL, &g, NULL, &err),
                     CGPROP_EFORMAT);
    ck_assert_msg(strstr(err.reason, "Profile.default_sample_type: string index 99 past the string table"),
                  "%s", err.reason);
    /* A caller with the struct as 0.3 first had it gets that part back and
     * nothing past it. */
    three_types(&p, 3);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    info.size = (uint32_t)offsetof(cgprop_read_info, default_metric);
    info.default_metric = 77;
    info.reserved2 = 78;
    g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_AUTO, CGPROP_KEY_FULL, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_PPROF);
    ck_assert_uint_eq(info.nmetrics, 3);
    ck_assert_uint_eq(info.default_metric, 77);
    ck_assert_uint_eq(info.reserved2, 78);
    cgprop_graph_free(g);
    /* A shorter one still is refused. */
    info.size = (uint32_t)offsetof(cgprop_read_info, default_metric) - 4;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer((const char *)p.b, p.n, "d.pb", 4, NULL, NULL, &g, &info, &err),
                     CGPROP_EINVAL);
    /* The real profiles: cpu, the last of samples and cpu. Other formats: 0. */
    cgprop_read_info_init(&info);
    info.default_metric = 77;
    if (!without_zlib()) {
        g = rd_file("recur.pb.gz", CGPROP_KEY_FULL, &info);
        ck_assert_uint_eq(info.default_metric, metric(g, "cpu_nanoseconds"));
        cgprop_graph_free(g);
    }
    cgprop_read_info_init(&info);
    info.default_metric = 77;
    g = rd_buf("a;b 3\n", 6, CGPROP_INPUT_AUTO, CGPROP_KEY_FULL, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_FOLDED);
    ck_assert_uint_eq(info.default_metric, 0);
    cgprop_graph_free(g);
}
END_TEST

static void bad(const void *d, size_t n, int code, const char *reason_part)
{
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_PPROF;
    cgprop_graph *g = (cgprop_graph *)1;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer(d, n, "bad.pb", 6, &o, NULL, &g, NULL, &err);
    ck_assert_msg(rc == code, "expected %d, got %d (%s) for <%s>", code, rc, err.reason, reason_part);
    ck_assert(g == NULL);
    ck_assert_int_eq(err.code, code);
    /* Binary input: line is the byte offset + 1, the offset the reason names. */
    const char *b = strstr(err.reason, "byte ");
    if (b) ck_assert_uint_eq(err.line, strtoull(b + 5, NULL, 10) + 1);
    else ck_assert_uint_eq(err.line, 0);
    ck_assert_str_eq(err.file, "bad.pb");
    ck_assert_msg(strstr(err.reason, reason_part) != NULL, "reason <%s> lacks <%s>", err.reason, reason_part);
}

START_TEST(malformed)
{
    bad("\x0b", 1, CGPROP_EFORMAT, "pprof: byte 0: Profile: field 1: wire type 3 is not read");
    bad("\x0a\x05\x08", 3, CGPROP_EFORMAT, "pprof: byte 1: Profile: field 1: length 5 runs past the end");
    bad("\x08\x01", 2, CGPROP_EFORMAT, "pprof: byte 0: Profile: field 1 has wire type 0, expected 2");
    bad("\xa0\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 13, CGPROP_EFORMAT,
        "byte 2: Profile: field 20: overlong varint");
    bad("\x0a", 1, CGPROP_EFORMAT, "byte 1: Profile: field 1: truncated length");
    bad("\x80", 1, CGPROP_EFORMAT, "byte 0: Profile: truncated field tag");
    bad("\x00", 1, CGPROP_EFORMAT, "byte 0: Profile: field number 0 out of range");
    bad("\x32\x00", 2, CGPROP_EFORMAT, "the profile has no sample_type");
    bad("", 0, CGPROP_EFORMAT, "no sample_type");
    /* A Line inside a Location inside the Profile: offsets are absolute. */
    bad("\x22\x04\x22\x02\x08\x80", 6, CGPROP_EFORMAT, "byte 5: Line: field 1: truncated varint");

    int64_t one[1] = {1}, two[2] = {1, 2}, neg[1] = {-5};
    pb p = {{0}, 0};
    head(&p, 1);
    sample(&p, 9, one, 1);
    /* The valid base reads. */
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd_buf((const char *)p.b, p.n, CGPROP_INPUT_AUTO, 0, &info);
    ck_assert_uint_eq(tstack_total(g, tfind(g, "\t\tsamples"), 0), 1);
    cgprop_graph_free(g);

    pb q = p;
    sample(&q, 8, one, 1);
    bad(q.b, q.n, CGPROP_EFORMAT, "a sample names location 8, which the profile lacks");
    {
        /* Two it lacks, in one packed list (leaf first: 9, 7, 8): the
         * message names the first. */
        pb ids = {{0}, 0}, sm = {{0}, 0};
        vint(&ids, 9);
        vint(&ids, 7);
        vint(&ids, 8);
        fb(&sm, 1, &ids);
        fv(&sm, 2, 1);
        q = p;
        fb(&q, 2, &sm);
        bad(q.b, q.n, CGPROP_EFORMAT, "a sample names location 7, which the profile lacks");
    }
    q = p;
    sample(&q, 9, two, 2);
    bad(q.b, q.n, CGPROP_EFORMAT, "a sample has more values than the 1 sample types");
    q = p;
    sample(&q, 9, neg, 1);
    bad(q.b, q.n, CGPROP_EFORMAT, "negative sample value -5");
    q = p;
    sample(&q, 9, NULL, 0);
    bad(q.b, q.n, CGPROP_EFORMAT, "a sample has 0 values for 1 sample types");

    /* A second sample type: one value is too few. */
    q.n = 0;
    head(&q, 2);
    sample(&q, 9, one, 1);
    bad(q.b, q.n, CGPROP_EFORMAT, "a sample has 1 value for 2 sample types");
    q.n = 0;
    head(&q, 65);
    bad(q.b, q.n, CGPROP_EFORMAT, "more than 64 sample types");

    /* Tables: missing function, repeated and zero ids, a string index past
     * the table. */
    q = p;
    pb ln = {{0}, 0}, loc = {{0}, 0}, fn = {{0}, 0};
    fv(&ln, 1, 3);
    fv(&loc, 1, 10);
    fb(&loc, 4, &ln);
    fb(&q, 4, &loc);
    bad(q.b, q.n, CGPROP_EFORMAT, "location 10: a line names function 3, which the profile lacks");
    q = p;
    fv(&fn, 1, 4);
    fb(&q, 5, &fn);
    bad(q.b, q.n, CGPROP_EFORMAT, "two functions with id 4");
    q = p;
    loc.n = 0;
    fv(&loc, 2, 1);
    fb(&q, 4, &loc);
    bad(q.b, q.n, CGPROP_EFORMAT, "location with id 0");
    q = p;
    fn.n = 0;
    fv(&fn, 1, 5);
    fv(&fn, 2, 77);
    fb(&q, 5, &fn);
    bad(q.b, q.n, CGPROP_EFORMAT, "Function.name: string index 77 past the string table (3 strings)");
    q = p;
    pb vt = {{0}, 0};
    fv(&vt, 1, 3);
    fb(&q, 1, &vt);
    bad(q.b, q.n, CGPROP_EFORMAT, "ValueType.type: string index 3 past the string table");

    /* A packed list that stops inside a varint. */
    q = p;
    pb s = {{0}, 0};
    vint(&s, 1 << 3 | 2);
    vint(&s, 1);
    put(&s, 0x80);
    fb(&q, 2, &s);
    bad(q.b, q.n, CGPROP_EFORMAT, "Sample: field 1: truncated varint in a packed list");
    /* A known field with the wrong wire type inside a message. */
    q = p;
    s.n = 0;
    vint(&s, 2 << 3 | 5);
    put(&s, 0);
    put(&s, 0);
    put(&s, 0);
    put(&s, 0);
    fb(&q, 2, &s);
    bad(q.b, q.n, CGPROP_EFORMAT, "Sample: field 2 has wire type 5, expected 0 or 2 (packed)");
}
END_TEST

START_TEST(detect)
{
    ck_assert_uint_eq(cgprop_read_detect("\x0a", 1), CGPROP_INPUT_AUTO);
    ck_assert_uint_eq(cgprop_read_detect("main;a 1\n", 9), CGPROP_INPUT_FOLDED);
    ck_assert_uint_eq(cgprop_read_detect("events: Ir\n", 11), CGPROP_INPUT_CALLGRIND);
    ck_assert_uint_eq(cgprop_read_detect("\nmain;a 1\n", 10), CGPROP_INPUT_FOLDED);
    /* A prefix cut inside a field still says pprof. */
    size_t n;
    char *d = slurp("small.pb", &n);
    for (size_t cut = 40; cut < n; cut += 37) ck_assert_uint_eq(cgprop_read_detect(d, cut), CGPROP_INPUT_PPROF);
    free(d);
}
END_TEST

/* ---- gzip for every format ---- */

static bool same_graph(cgprop_graph *a, cgprop_graph *b)
{
    if (cgprop_graph_node_count(a) != cgprop_graph_node_count(b)) return false;
    if (cgprop_graph_edge_count(a) != cgprop_graph_edge_count(b)) return false;
    if (cgprop_graph_metric_count(a) != cgprop_graph_metric_count(b)) return false;
    for (uint32_t v = 0; v < cgprop_graph_node_count(a); v++) {
        size_t kl;
        const char *k = cgprop_graph_node_key(a, v, &kl);
        uint32_t w;
        if (cgprop_graph_find_node(b, k, kl, &w) != CGPROP_OK) return false;
        for (uint32_t m = 0; m < cgprop_graph_metric_count(a); m++)
            if (self_of(a, v, m) != self_of(b, w, m)) return false;
    }
    return true;
}

START_TEST(gzip_callgrind)
{
    if (without_zlib()) return;
    /* The tool's --input auto path: a callgrind.out.gz read by name. */
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *z = rd_file("recur.default.callgrind.out.gz", 0, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_CALLGRIND);
    char path[1024];
    snprintf(path, sizeof path, "%s/recur/recur.default.callgrind.out", CGPROP_TEST_DATA);
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_file(path, strlen(path), NULL, NULL, &g, NULL, &err), CGPROP_OK);
    ck_assert(same_graph(g, z));
    cgprop_graph_free(z);
    size_t n;
    char *d = slurp("recur.default.callgrind.out.gz", &n);
    ck_assert_uint_eq(cgprop_read_detect(d, n), CGPROP_INPUT_CALLGRIND);
    z = rd_buf(d, n, CGPROP_INPUT_CALLGRIND, 0, &info);
    ck_assert(same_graph(g, z));
    cgprop_graph_free(z);
    cgprop_graph_free(g);
    free(d);
}
END_TEST

START_TEST(gzip_members)
{
    if (without_zlib()) return;
    /* Two members, as `cat a.gz b.gz` makes: "main;a;b;a 3", "main;c 2"
     * in the first, "main;a;a 4" in the second. a: total 7, self 7;
     * main 9; b 3; c 2. Zero padding after the last member is accepted. */
    size_t n;
    char *d = slurp("multi.folded.gz", &n);
    for (int pad = 0; pad < 2; pad++) {
        char *e = malloc(n + 512);
        memcpy(e, d, n);
        memset(e + n, 0, 512);
        cgprop_read_info info;
        cgprop_read_info_init(&info);
        cgprop_graph *g = rd_buf(e, n + (pad ? 512 : 0), CGPROP_INPUT_AUTO, 0, &info);
        ck_assert_uint_eq(info.format, CGPROP_INPUT_FOLDED);
        ck_assert_uint_eq(tstack_total(g, tfind(g, "a"), 0), 7);
        ck_assert_uint_eq(self_of(g, tfind(g, "a"), 0), 7);
        ck_assert_uint_eq(tstack_total(g, tfind(g, "main"), 0), 9);
        ck_assert_uint_eq(tstack_total(g, tfind(g, "b"), 0), 3);
        ck_assert_uint_eq(tstack_total(g, tfind(g, "c"), 0), 2);
        cgprop_graph_free(g);
        free(e);
    }
    free(d);
}
END_TEST

START_TEST(gzip_broken)
{
    if (without_zlib()) return;
    size_t n;
    char *d = slurp("recur.default.callgrind.out.gz", &n);
    /* Cut short, at several places. */
    for (size_t cut = 2; cut < n; cut += n / 7) {
        cgprop_graph *g = (cgprop_graph *)1;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        int rc = cgprop_read_buffer(d, cut, "cut.gz", 6, NULL, NULL, &g, NULL, &err);
        ck_assert_int_eq(rc, CGPROP_EFORMAT);
        ck_assert(g == NULL);
        ck_assert_msg(strstr(err.reason, "gzip input: ") == err.reason, "%s", err.reason);
        if (cut > 20) {
            char want[64];
            snprintf(want, sizeof want, "gzip input: truncated at byte %zu", cut);
            ck_assert_str_eq(err.reason, want);
            ck_assert_uint_eq(err.line, cut + 1);
        }
    }
    /* A corrupted byte in the compressed data: a data error or a CRC
     * mismatch, with the byte offset. */
    char *e = malloc(n);
    memcpy(e, d, n);
    e[n / 2] ^= 0x55;
    cgprop_graph *g = (cgprop_graph *)1;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_int_eq(cgprop_read_buffer(e, n, "bad.gz", 6, NULL, NULL, &g, NULL, &err), CGPROP_EFORMAT);
    ck_assert(g == NULL);
    ck_assert_msg(strstr(err.reason, "gzip input: corrupt data at byte ") == err.reason, "%s", err.reason);
    ck_assert_uint_eq(err.line, strtoull(err.reason + strlen("gzip input: corrupt data at byte "), NULL, 10) + 1);
    /* Trailing bytes that are no gzip member. */
    e = realloc(e, n + 3);
    memcpy(e, d, n);
    memcpy(e + n, "abc", 3);
    ck_assert_int_eq(cgprop_read_buffer(e, n + 3, "tail.gz", 7, NULL, NULL, &g, NULL, &err), CGPROP_EFORMAT);
    char want[96];
    snprintf(want, sizeof want, "gzip input: bytes after the end of the compressed data at byte %zu", n);
    ck_assert_str_eq(err.reason, want);
    ck_assert_uint_eq(err.line, n + 1);
    free(e);
    free(d);
    /* gzip inside gzip: one layer only (the bytes: gzip -n of the 20-byte
     * gzip -n of an empty input). */
    static const unsigned char twice[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                          0x93, 0xef, 0xe6, 0x60, 0x00, 0x03, 0x66, 0x66, 0x06, 0x18,
                                          0x00, 0x00, 0xfb, 0x70, 0xee, 0xc6, 0x14, 0x00, 0x00, 0x00};
    ck_assert_int_eq(cgprop_read_buffer((const char *)twice, sizeof twice, "2.gz", 4, NULL, NULL, &g, NULL, &err),
                     CGPROP_EFORMAT);
    ck_assert_str_eq(err.reason, "gzip input: gzip data inside gzip data is not read");
}
END_TEST

/* ---- allocation failures: the Nth allocation fails, N = 0, 1, ... ---- */

static void fault_loop(const char *name)
{
    size_t n;
    char *d = slurp(name, &n);
    ck_assert_int_gt(tfail_read_sweep(d, n, name, 20000), 5);
    free(d);
}

START_TEST(alloc_failures_small) { fault_loop(without_zlib() ? "small.pb" : "small.pb.gz"); }
END_TEST
START_TEST(alloc_failures_real)
{
    if (!without_zlib()) fault_loop("recur.pb.gz");
}
END_TEST
START_TEST(alloc_failures_members)
{
    if (!without_zlib()) fault_loop("multi.folded.gz");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pprof");
    TCase *tc = tcase_create("pprof");
    tcase_add_test(tc, small_plain);
    tcase_add_test(tc, shared_tails);
    tcase_add_test(tc, repeated_names_spread_samples);
    tcase_add_test(tc, table_spellings);
    tcase_add_test(tc, one_function_many_locations);
    tcase_add_test(tc, small_gzip);
    tcase_add_test(tc, small_by_name);
    tcase_add_test(tc, real_go_profile);
    tcase_add_test(tc, real_node_profiles);
    tcase_add_test(tc, code_without_symbols);
    tcase_add_test(tc, real_go_stdlib_profile);
    tcase_add_test(tc, truncated_stacks);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, default_sample_type);
    tcase_add_test(tc, detect);
    tcase_add_test(tc, gzip_callgrind);
    tcase_add_test(tc, gzip_members);
    tcase_add_test(tc, gzip_broken);
    tcase_add_test(tc, alloc_failures_small);
    tcase_add_test(tc, alloc_failures_real);
    tcase_add_test(tc, alloc_failures_members);
    tcase_set_timeout(tc, 300);
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
