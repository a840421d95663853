/* Python statistics reader: marshal encodings written here byte by byte,
 * totals worked out by hand, malformed inputs, allocation failures, and the
 * real cProfile fixture against what Python's pstats module read from it. */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_experimental.h"
#include "cgprop_io.h"
#include "support.h"

#define DATA CGPROP_TEST_DATA

/* ---- a marshal writer, for the inputs below ---- */

typedef struct mb {
    unsigned char *b; /* small, until an input outgrows it (then mb_free) */
    size_t n, cap;
    int style;    /* which encodings (see put_stats) */
    int nrefs;    /* back-reference slots taken so far */
    int lref[8];  /* style 2: the slot of each label written, -1 before */
    unsigned char small[16384];
} mb;

static void mb_reset(mb *m, int style)
{
    memset(m, 0, sizeof *m);
    m->b = m->small;
    m->cap = sizeof m->small;
    m->style = style;
    for (int i = 0; i < 8; i++) m->lref[i] = -1;
}

static void mb_free(mb *m)
{
    if (m->b != m->small) free(m->b);
}

static void u8(mb *m, unsigned v)
{
    if (m->n == m->cap) {
        unsigned char *q = m->b == m->small ? malloc(2 * m->cap) : realloc(m->b, 2 * m->cap);
        ck_assert(q != NULL);
        if (m->b == m->small) memcpy(q, m->small, m->n);
        m->b = q;
        m->cap *= 2;
    }
    m->b[m->n++] = (unsigned char)v;
}
static void u32(mb *m, uint32_t v)
{
    for (int i = 0; i < 4; i++) u8(m, (v >> (8 * i)) & 0xff);
}
static void str(mb *m, const char *s)
{
    size_t n = strlen(s);
    switch (m->style) {
    case 1: u8(m, 'u'); u32(m, (uint32_t)n); break;
    case 3: u8(m, n % 2 ? 'Z' : 'A'); if (n % 2) u8(m, (unsigned)n); else u32(m, (uint32_t)n); break;
    default: u8(m, 'z'); u8(m, (unsigned)n); break;
    }
    for (size_t i = 0; i < n; i++) u8(m, (unsigned char)s[i]);
}
static void num(mb *m, long v)
{
    if (m->style == 1) {
        /* 'l': base-2^15 digits, least significant first. */
        int nd = 0;
        unsigned dg[4];
        for (unsigned long x = (unsigned long)v; x; x >>= 15) dg[nd++] = (unsigned)(x & 0x7fff);
        u8(m, 'l');
        u32(m, (uint32_t)nd);
        for (int i = 0; i < nd; i++) {
            u8(m, dg[i] & 0xff);
            u8(m, dg[i] >> 8);
        }
    } else {
        u8(m, 'i');
        u32(m, (uint32_t)v);
    }
}
static void flt(mb *m, double d)
{
    if (m->style == 1) {
        char t[64];
        int n = snprintf(t, sizeof t, "%.17g", d);
        u8(m, 'f');
        u8(m, (unsigned)n);
        for (int i = 0; i < n; i++) u8(m, (unsigned char)t[i]);
        return;
    }
    uint64_t bits;
    memcpy(&bits, &d, 8);
    u8(m, 'g');
    for (int i = 0; i < 8; i++) u8(m, (bits >> (8 * i)) & 0xff);
}
static void tup(mb *m, unsigned n, bool ref)
{
    if (ref) m->nrefs++;
    if (m->style == 1) {
        u8(m, '(' | (ref ? 0x80 : 0));
        u32(m, n);
    } else {
        u8(m, ')' | (ref ? 0x80 : 0));
        u8(m, n);
    }
}

typedef struct caller {
    int who;
    long nc, cc;
    double ct;
} caller;

typedef struct fn {
    const char *file;
    long line;
    const char *name;
    long cc, nc;
    double tt, ct;
    int ncl;
    caller cl[3];
} fn;

static void label(mb *m, const fn *fs, int i)
{
    if (m->style == 2 && m->lref[i] >= 0) {
        u8(m, 'r');
        u32(m, (uint32_t)m->lref[i]);
        return;
    }
    if (m->style == 2) m->lref[i] = m->nrefs;
    tup(m, 3, m->style == 2);
    str(m, fs[i].file);
    num(m, fs[i].line);
    str(m, fs[i].name);
}

/* Styles: 0 short tuples, short strings, 'i' ints, binary floats; 1 long
 * tuples, UTF-8 strings, 'l' ints, text floats; 2 as 0 with each label
 * written once and referred back to ('r'); 3 'Z'/'A' strings and callers as
 * bare counts (older profilers). */
static void put_stats(mb *m, const fn *fs, int n, int style)
{
    mb_reset(m, style);
    u8(m, '{' | (style == 2 ? 0x80 : 0));
    if (style == 2) m->nrefs++;
    for (int i = 0; i < n; i++) {
        label(m, fs, i);
        tup(m, 5, false);
        num(m, fs[i].cc);
        num(m, fs[i].nc);
        flt(m, fs[i].tt);
        flt(m, fs[i].ct);
        u8(m, '{');
        for (int j = 0; j < fs[i].ncl; j++) {
            const caller *c = &fs[i].cl[j];
            label(m, fs, c->who);
            if (style == 3) {
                num(m, c->nc);
                continue;
            }
            tup(m, 4, false);
            num(m, c->nc);
            num(m, c->cc);
            flt(m, 0.0); /* the caller's tottime: not read */
            flt(m, c->ct);
        }
        u8(m, '0');
    }
    u8(m, '0');
}

/* main -> a -> b -> a (mutual recursion), times in seconds:
 *   outer a spends 1 us itself and calls b; b spends 1 us and calls the
 *   inner a, which spends 2 us; main spends 2 us itself.
 * So: main tottime 2 us, cumtime 2 + 1 + 1 + 2 = 6 us; a tottime 1 + 2 =
 * 3 us, cumtime (outermost only) 1 + 1 + 2 = 4 us; b tottime 1 us, cumtime
 * 1 + 2 = 3 us. a's callers: main (ct 4 us), b (ct 2 us: the inner a). */
static const fn mutual[] = {
    {"prog.py", 1, "main", 1, 1, 2e-6, 6e-6, 0, {{0}}},
    {"prog.py", 5, "a", 1, 2, 3e-6, 4e-6, 2, {{0, 1, 1, 4e-6}, {2, 1, 0, 2e-6}}},
    {"prog.py", 9, "b", 1, 1, 1e-6, 3e-6, 1, {{1, 1, 1, 3e-6}}},
};

/* Self recursion, f(2) -> f(1) -> f(0): each level spends 2 us itself. f's
 * tottime is 6 us and its cumtime, counted once per stack, 6 us; the
 * recursive calls' own cumtime (outermost f -> f only) is 4 us. A function
 * z whose cumtime (3 us) is below its tottime (5 us) contradicts itself. */
static const fn selfrec[] = {
    {"p.py", 1, "main", 1, 1, 1e-6, 7e-6, 0, {{0}}},
    {"p.py", 3, "f", 1, 3, 6e-6, 6e-6, 2, {{0, 1, 1, 6e-6}, {1, 2, 0, 4e-6}}},
    {"q.py", 3, "f", 1, 1, 0.0, 0.0, 0, {{0}}},
    {"q.py", 7, "z", 1, 1, 5e-6, 3e-6, 0, {{0}}},
};

static cgprop_graph *rd(const mb *m, cgprop_read_info *info, uint32_t format)
{
    cgprop_read_options o = tformat(format);
    return tread((const char *)m->b, m->n, "x.pstats", &o, info);
}

static void exact(cgprop_graph *g, const char *k, uint64_t s, double t, uint32_t reason)
{
    ck_assert_uint_eq(tself(g, k, 0), s);
    cgprop_total_row r = ttotals_row(g, 0, tfind(g, k));
    ck_assert_msg(r.total == t, "%s: total %.0f, want %.0f", k, r.total, t);
    ck_assert_msg(r.lo == t && r.hi == t, "%s: [%.0f, %.0f]", k, r.lo, r.hi);
    ck_assert_uint_eq(r.estimate, CGPROP_EST_EXACT);
    ck_assert_uint_eq(r.reason, reason);
}

START_TEST(mutual_recursion)
{
    for (int style = 0; style < 4; style++) {
        mb m;
        put_stats(&m, mutual, 3, style);
        cgprop_read_info info;
        cgprop_read_info_init(&info);
        cgprop_graph *g = rd(&m, &info, style == 1 ? CGPROP_INPUT_PSTATS : CGPROP_INPUT_AUTO);
        ck_assert_uint_eq(info.format, CGPROP_INPUT_PSTATS);
        ck_assert_uint_eq(info.recursion, CGPROP_RECS_STATED);
        ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
        ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "ns");
        ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, "\tprog.py:5\ta"), NULL), "a");
        tanalyse(g, CGPROP_SHARE_AUTO);
        exact(g, "\tprog.py:1\tmain", 2000, 6000, 0);
        exact(g, "\tprog.py:5\ta", 3000, 4000, 0);
        exact(g, "\tprog.py:9\tb", 1000, 3000, 0);
        cgprop_edge_row e = tedge(g, "\tprog.py:1\tmain", "\tprog.py:5\ta", 0);
        ck_assert_uint_eq(e.count, 1);
        if (style == 3) {
            ck_assert(!(e.flags & CGPROP_F_HAS_COST));
        } else {
            ck_assert_uint_eq(e.cost, 4000);
            ck_assert_uint_eq(tedge(g, "\tprog.py:9\tb", "\tprog.py:5\ta", 0).cost, 2000);
            ck_assert_uint_eq(tedge(g, "\tprog.py:5\ta", "\tprog.py:9\tb", 0).cost, 3000);
        }
        cgprop_node_row n;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, tfind(g, "\tprog.py:1\tmain"), &n, sizeof n),
                         CGPROP_OK);
        ck_assert_uint_eq(n.spont_count, 1);
        ck_assert_uint_eq(n.spont_cost, 6000);
        cgprop_graph_free(g);
    }
}
END_TEST

START_TEST(self_recursion)
{
    mb m;
    put_stats(&m, selfrec, 4, 0);
    cgprop_graph *g = rd(&m, NULL, CGPROP_INPUT_AUTO);
    tanalyse(g, CGPROP_SHARE_AUTO);
    exact(g, "\tp.py:1\tmain", 1000, 7000, 0);
    exact(g, "\tp.py:3\tf", 6000, 6000, 0);
    exact(g, "\tq.py:3\tf", 0, 0, 0); /* same name, another file: another function */
    ck_assert_uint_eq(tedge(g, "\tp.py:3\tf", "\tp.py:3\tf", 0).count, 2);
    ck_assert_uint_eq(tedge(g, "\tp.py:3\tf", "\tp.py:3\tf", 0).cost, 4000);
    /* The stated figure is kept where it contradicts the self cost. */
    exact(g, "\tq.py:7\tz", 5000, 3000, CGPROP_R_BELOW_SELF);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(merge_keeps_stated)
{
    /* Two runs merged: stated inclusive costs add up like the rest. */
    mb m;
    put_stats(&m, mutual, 3, 0);
    cgprop_graph *a = rd(&m, NULL, CGPROP_INPUT_PSTATS), *b = rd(&m, NULL, CGPROP_INPUT_PSTATS);
    ck_assert_int_eq(cgprop_graph_merge(a, b), CGPROP_OK);
    tanalyse(a, CGPROP_SHARE_AUTO);
    exact(a, "\tprog.py:1\tmain", 4000, 12000, 0);
    exact(a, "\tprog.py:5\ta", 6000, 8000, 0);
    cgprop_graph_free(a);
    cgprop_graph_free(b);
}
END_TEST

static void bad_bytes(const unsigned char *d, size_t n, int code, const char *what)
{
    tread_bad((const char *)d, n, "s.pstats", CGPROP_INPUT_PSTATS, code, 0, what);
}

#define BAD(lit, code, what) bad_bytes((const unsigned char *)(lit), sizeof(lit) - 1, code, what)

START_TEST(malformed)
{
    BAD("", CGPROP_EFORMAT, "truncated input at byte offset 0");
    BAD("{?", CGPROP_EFORMAT, "unsupported marshal type 0x3f at byte offset 1");
    BAD("{\xbf", CGPROP_EFORMAT, "unsupported marshal type 0xbf at byte offset 1");
    BAD("{c", CGPROP_EFORMAT, "code object of no known layout at byte offset 1");
    BAD("{\xe3", CGPROP_EFORMAT, "code object of no known layout at byte offset 1");
    BAD("{r\0\0\0\0", CGPROP_EFORMAT, "reference to an object not read yet at byte offset 1");
    BAD("{(\xff\xff\xff\xff", CGPROP_EFORMAT, "negative container size at byte offset 1");
    BAD("{(\x10\0\0\0", CGPROP_EFORMAT, "container larger than the input at byte offset 1");
    BAD("{z\x05" "ab", CGPROP_EFORMAT, "truncated string at byte offset 1");
    BAD("{l\x01\0\0\0\xff\xff", CGPROP_EFORMAT, "bad digit in long at byte offset 1");
    BAD("0", CGPROP_EFORMAT, "marshal NULL outside a dict key at byte offset 0");
    BAD("{0N", CGPROP_EFORMAT, "bytes after the statistics at byte offset 2");
    BAD("N", CGPROP_EFORMAT, "the statistics are not a dict");
    BAD("{0", CGPROP_EFORMAT, "no function in the statistics");
    BAD("{NN0", CGPROP_EFORMAT, "not a (file, line, name) tuple");
    BAD("{)\x03z\x01" "ai\0\0\0\0i\0\0\0\0N0", CGPROP_EFORMAT, "not (str, int, str)");
    BAD("{)\x03z\x01" "ai\0\0\0\0z\x01" "bN0", CGPROP_EFORMAT, "not a (cc, nc, tt, ct, callers) tuple");
    /* A tuple of five whose fields are wrong, one at a time. */
    mb m;
    fn f = {"a.py", 1, "f", 1, 1, 1e-6, 1e-6, 0, {{0}}};
    f.tt = NAN;
    put_stats(&m, &f, 1, 0);
    bad_bytes(m.b, m.n, CGPROP_EFORMAT, "a tottime is NaN");
    f.tt = -INFINITY;
    put_stats(&m, &f, 1, 0);
    bad_bytes(m.b, m.n, CGPROP_EFORMAT, "a tottime is minus infinity");
    f.tt = 1e-6;
    f.ct = 1e300;
    put_stats(&m, &f, 1, 0);
    bad_bytes(m.b, m.n, CGPROP_EOVERFLOW, "a cumtime of 1e+300 s overflows");
    f.ct = 1e-6;
    f.nc = -2;
    put_stats(&m, &f, 1, 0);
    bad_bytes(m.b, m.n, CGPROP_EFORMAT, "a call count is not a non-negative integer");
    /* A call count of 2^75: an 'l' of six digits, the last 1. */
    mb_reset(&m, 0);
    u8(&m, '{');
    tup(&m, 3, false);
    str(&m, "a");
    num(&m, 0);
    str(&m, "b");
    tup(&m, 5, false);
    u8(&m, 'l');
    u32(&m, 6);
    for (int i = 0; i < 5; i++) {
        u8(&m, 0);
        u8(&m, 0);
    }
    u8(&m, 1);
    u8(&m, 0);
    for (int i = 0; i < 3; i++) num(&m, 0);
    u8(&m, '{');
    u8(&m, '0');
    u8(&m, '0');
    bad_bytes(m.b, m.n, CGPROP_EOVERFLOW, "a primitive call count too large");
    /* Every cut of a good file fails cleanly. */
    put_stats(&m, mutual, 3, 2);
    for (size_t n = 0; n < m.n; n++) {
        cgprop_graph *g = NULL;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = CGPROP_INPUT_PSTATS;
        int rc = cgprop_read_buffer((const char *)m.b, n, "cut", 3, &o, NULL, &g, NULL, &err);
        ck_assert_msg(rc == CGPROP_EFORMAT, "cut at %zu: %d", n, rc);
        ck_assert(g == NULL);
    }
}
END_TEST

START_TEST(detect)
{
    mb m;
    for (int style = 0; style < 4; style++) {
        put_stats(&m, mutual, 3, style);
        ck_assert_uint_eq(cgprop_read_detect((const char *)m.b, m.n), CGPROP_INPUT_PSTATS);
    }
    ck_assert_uint_eq(cgprop_read_detect("{0", 2), CGPROP_INPUT_AUTO);
    ck_assert_uint_eq(cgprop_read_detect("{a;b 1\n", 7), CGPROP_INPUT_FOLDED);
    FILE *f = fopen(DATA "/pstats/recur.pstats", "rb");
    ck_assert(f != NULL);
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_uint_eq(cgprop_read_detect(buf, n), CGPROP_INPUT_PSTATS);
}
END_TEST

/* Read DATA/pstats/name.pstats and check every function against
 * name.expected (tests/pstats/expected.py: each function's tottime and
 * cumtime as Python's pstats module read them): exact, agreeing with
 * everything else the file says, and no function more. A time below 0
 * must read as 0 and be counted in the graph's floors, and a cumtime then
 * below the tottime flagged BELOW_SELF (docs/formats/pstats.md). The
 * spontaneous entries: the calls no caller's entry accounts for, at the
 * cumtime their costs leave. Function disagree (none when NULL), and no
 * other, flagged SIDES_DISAGREE. The number of recursive functions in
 * *recursive. The graph, analysed. */
static cgprop_graph *check_expected(const char *name, const char *disagree, size_t *recursive)
{
    char path[512];
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    snprintf(path, sizeof path, "%s/pstats/%s.pstats", DATA, name);
    int rc = cgprop_read_file(path, strlen(path), NULL, NULL, &g, &info, &err);
    ck_assert_msg(rc == CGPROP_OK, "%s: %d %s", path, rc, err.reason);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_PSTATS);
    tanalyse(g, CGPROP_SHARE_AUTO);
    snprintf(path, sizeof path, "%s/pstats/%s.expected", DATA, name);
    FILE *f = fopen(path, "r");
    ck_assert(f != NULL);
    char line[1024];
    size_t n = 0;
    uint64_t below = 0;
    *recursive = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        long long tt, ct;
        unsigned long long nc, sc, scost;
        int at = 0;
        ck_assert(sscanf(line, "%lld %lld %llu %llu %llu%n", &tt, &ct, &nc, &sc, &scost, &at) == 5);
        ck_assert(line[at] == ' ');
        char *key = line + at + 1; /* starts with the TAB of the empty object part */
        key[strcspn(key, "\n")] = '\0';
        below += (tt < 0) + (ct < 0);
        uint64_t t0 = tt < 0 ? 0 : (uint64_t)tt, c0 = ct < 0 ? 0 : (uint64_t)ct;
        uint32_t why = c0 < t0 ? CGPROP_R_BELOW_SELF : 0;
        if (disagree && !strcmp(key, disagree)) why |= CGPROP_R_SIDES_DISAGREE;
        exact(g, key, t0, (double)c0, why);
        cgprop_node_row nr;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, tfind(g, key), &nr, sizeof nr), CGPROP_OK);
        ck_assert_msg(nr.spont_count == sc && nr.spont_cost == scost, "%s: spontaneous %llu at %llu, want %llu at %llu",
                      key, (unsigned long long)nr.spont_count, (unsigned long long)nr.spont_cost, sc, scost);
        cgprop_total_row r = ttotals_row(g, 0, tfind(g, key));
        if (r.cycle != CGPROP_NONE || (r.flags & CGPROP_F_SELF_RECURSIVE)) ++*recursive;
        n++;
    }
    fclose(f);
    ck_assert_uint_eq(cgprop_graph_node_count(g), n);
    ck_assert_uint_eq(cgprop_graph_floor_count(g), below);
    return g;
}

/* The real fixture: every function's tottime and cumtime as Python's pstats
 * module read them (recur.expected, made by tests/pstats/expected.py). */
START_TEST(real_fixture)
{
    size_t recursive;
    cgprop_graph *g = check_expected("recur", NULL, &recursive);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 193);
    ck_assert_uint_ge(recursive, 10);
    /* Two figures by name, as pstats printed them (seconds): fib's
     * 0.006231708 / 0.006231708 and expr's 0.001646613 / 0.005353273. */
    exact(g, "\trecur.py:7\tfib", 6231708, 6231708, 0);
    exact(g, "\trecur.py:11\texpr", 1646613, 5353273, 0);
    /* The script's exec: 5 calls, 4 of them from importlib's
     * _call_with_frames_removed (the imports json makes run their modules
     * in it), so one had no caller; its cumtime 14328365 ns less those 4
     * calls' 1786342 ns is 12542023 ns. */
    cgprop_node_row nr;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, tfind(g, "\t~:0\t<built-in method builtins.exec>"), &nr,
                                          sizeof nr),
                     CGPROP_OK);
    ck_assert_uint_eq(nr.spont_count, 1);
    ck_assert_uint_eq(nr.spont_cost, 12542023);
    ck_assert_uint_eq(tedge(g, "\trecur.py:7\tfib", "\trecur.py:7\tfib", 0).count, 39440);
    cgprop_graph_free(g);
}
END_TEST

/* A function entered both by callers and from outside the profiler, by
 * hand: a script's exec runs a.py, which imports b.py through imp, which
 * runs it in exec again (cProfile's picture of `import` at the top of a
 * script). In microseconds:
 *   outer exec: self 1, runs a.py (9): 10, and no caller (cProfile's own
 *     runctx is not profiled);
 *   a.py: self 2, calls imp (7): 9;   imp: self 4, calls exec (3): 7;
 *   inner exec: self 1, runs b.py (2): 3;   b.py: self 2.
 * exec: 2 calls, tottime 1 + 1 = 2, cumtime (outermost only) 10; its one
 * caller's entry, imp -> exec, 1 call costing 3. So 2 - 1 = 1 call came
 * from outside, and 10 - 3 = 7 of the cumtime is not the calls' in: a
 * lower bound of that call's cost (it was 10: the inner call ran inside
 * it). A second run, of a script with no import: exec 1 call, self 1,
 * cumtime 4, no caller; c.py self 3. Merged: exec is entered twice from
 * outside, at 7 + 4 = 11, its cumtime 14 (the calls around it prove
 * [11, 14]). Read without the calls from outside, the merged exec seemed
 * entered at 4 only, and its 14 beyond what the calls could hold. */
static const fn imports_run[] = {
    {"~", 0, "exec", 1, 2, 2e-6, 10e-6, 1, {{2, 1, 1, 3e-6}}},
    {"a.py", 1, "<module>", 1, 1, 2e-6, 9e-6, 1, {{0, 1, 1, 9e-6}}},
    {"a.py", 2, "imp", 1, 1, 4e-6, 7e-6, 1, {{1, 1, 1, 7e-6}}},
    {"b.py", 1, "<module>", 1, 1, 2e-6, 2e-6, 1, {{0, 1, 1, 2e-6}}},
};
static const fn plain_run[] = {
    {"~", 0, "exec", 1, 1, 1e-6, 4e-6, 0, {{0}}},
    {"c.py", 1, "<module>", 1, 1, 3e-6, 3e-6, 1, {{0, 1, 1, 3e-6}}},
};

static void spont(cgprop_graph *g, const char *k, uint64_t count, uint64_t cost)
{
    cgprop_node_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, tfind(g, k), &r, sizeof r), CGPROP_OK);
    ck_assert_msg(r.spont_count == count && r.spont_cost == cost, "%s: spontaneous %llu at %llu", k,
                  (unsigned long long)r.spont_count, (unsigned long long)r.spont_cost);
}

START_TEST(entered_from_outside_and_called)
{
    static const char *const ex = "\t~:0\texec";
    for (int style = 0; style < 4; style++) {
        mb m;
        put_stats(&m, imports_run, 4, style);
        cgprop_graph *a = rd(&m, NULL, CGPROP_INPUT_PSTATS);
        /* Style 3: callers' bare counts, no cost; all of ct is left. */
        spont(a, ex, 1, style == 3 ? 10000 : 7000);
        spont(a, "\ta.py:2\timp", 0, 0);
        put_stats(&m, plain_run, 2, style);
        cgprop_graph *b = rd(&m, NULL, CGPROP_INPUT_PSTATS);
        spont(b, ex, 1, 4000);
        tanalyse(a, CGPROP_SHARE_AUTO);
        exact(a, ex, 2000, 10000, 0);
        ck_assert_int_eq(cgprop_graph_merge(a, b), CGPROP_OK);
        spont(a, ex, 2, style == 3 ? 14000 : 11000);
        tanalyse(a, CGPROP_SHARE_AUTO);
        exact(a, ex, 3000, 14000, 0);
        cgprop_graph_free(a);
        cgprop_graph_free(b);
    }
}
END_TEST

/* Three real runs given together, as `cgprop report a b c` reads them:
 * recur.pstats twice (its exec called 5 times, 4 by importlib) and
 * pure.pstats (a script that imports nothing: its exec called once, by no
 * one). Each file alone is checked against what Python's pstats module
 * read from it; merged, exec's figures are their sums, its calls from
 * outside 1 + 1 + 1 = 3 (pstats' own merge: 11 calls, 8 by callers). */
START_TEST(three_files_merged)
{
    static const char *const names[] = {"recur", "recur", "pure"};
    size_t recursive;
    cgprop_graph_free(check_expected("pure", NULL, &recursive));
    cgprop_graph *g = NULL;
    for (int i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/pstats/%s.pstats", DATA, names[i]);
        cgprop_graph *h = NULL;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        ck_assert_int_eq(cgprop_read_file(path, strlen(path), NULL, NULL, &h, NULL, &err), CGPROP_OK);
        if (!g) {
            g = h;
            continue;
        }
        ck_assert_int_eq(cgprop_graph_merge(g, h), CGPROP_OK);
        cgprop_graph_free(h);
    }
    tanalyse(g, CGPROP_SHARE_AUTO);
    /* recur.expected: exec 16926 / 14328365 ns, 1 call from outside at
     * 12542023 ns; pure.expected: exec 4690 / 199811 ns, its 1 call from
     * outside at 199811 ns. The calls around it prove the sum. */
    exact(g, "\t~:0\t<built-in method builtins.exec>", 2 * 16926 + 4690, 2 * 14328365.0 + 199811, 0);
    spont(g, "\t~:0\t<built-in method builtins.exec>", 3, 2 * 12542023 + 199811);
    cgprop_graph_free(g);
}
END_TEST

/* Two functions of one label in a real cProfile run (collide.py): the
 * __new__ of two named tuples, both ('<string>', 1, '<lambda>'). cProfile's
 * statistics keep the figures of one: helper makes 1000 of each tuple,
 * and pstats shows <lambda> called 1000 times in all. The calls into the
 * other are lost, and with them part of what the cycle walk -> helper ->
 * walk spends outside itself: helper, entered only from inside the cycle,
 * states a cumtime above what the cycle's self costs and calls out can
 * hold, and is flagged SIDES_DISAGREE, its total still its cumtime. walk,
 * entered from main, has calls in above that too: its interval holds both
 * and no flag. Every other function agrees with the rest. */
START_TEST(one_label_two_functions)
{
    size_t recursive;
    cgprop_graph *g = check_expected("collide", "\tcollide.py:15\thelper", &recursive);
    ck_assert_uint_ge(recursive, 2);
    cgprop_graph_free(g);
}
END_TEST

/* A calibrated profile: profile.Profile(bias=5e-6), larger than the
 * profiler's own overhead, takes more off than the activations lasted
 * (tests/data/pstats/PROVENANCE.md): 24 of its 32 times are below 0. */
START_TEST(calibrated_fixture)
{
    size_t recursive;
    cgprop_graph *g = check_expected("calibrated", NULL, &recursive);
    ck_assert_uint_eq(cgprop_graph_floor_count(g), 24);
    cgprop_graph_free(g);
}
END_TEST

/* Times below 0 in a cProfile-shaped file, by hand: f's tottime -1 us
 * (read as 0), cumtime 2 us; its caller main's call into it -3 us (0);
 * main's own cumtime -0.3 ns, which rounds to 0 ns and so is no floor.
 * Two floors; two such files merged, four. */
static const fn negative[] = {
    {"m.py", 1, "main", 1, 1, 1e-6, -0.3e-9, 0, {{0}}},
    {"m.py", 2, "f", 1, 1, -1e-6, 2e-6, 1, {{0, 1, 1, -3e-6}}},
};

START_TEST(negative_times)
{
    for (int style = 0; style < 3; style++) {
        mb m;
        put_stats(&m, negative, 2, style);
        cgprop_graph *a = rd(&m, NULL, CGPROP_INPUT_PSTATS), *b = rd(&m, NULL, CGPROP_INPUT_PSTATS);
        ck_assert_uint_eq(cgprop_graph_floor_count(a), 2);
        ck_assert_uint_eq(tself(a, "\tm.py:2\tf", 0), 0);
        ck_assert_uint_eq(tedge(a, "\tm.py:1\tmain", "\tm.py:2\tf", 0).cost, 0);
        tanalyse(a, CGPROP_SHARE_AUTO);
        /* f states 2 us, its only call in says 0: the figures contradict
         * each other now; main's cumtime is below its tottime. */
        exact(a, "\tm.py:2\tf", 0, 2000, CGPROP_R_SIDES_DISAGREE);
        exact(a, "\tm.py:1\tmain", 1000, 0, CGPROP_R_BELOW_SELF);
        ck_assert_int_eq(cgprop_graph_merge(a, b), CGPROP_OK);
        ck_assert_uint_eq(cgprop_graph_floor_count(a), 4);
        cgprop_graph_free(a);
        cgprop_graph_free(b);
    }
}
END_TEST

/* ---- code objects: the pure-Python profile module's files ---- */

/* python -m profile -o pure-3.N.pstats pure.py, with each Python from 3.6
 * to 3.13 (tests/data/pstats/PROVENANCE.md): three layouts of the code
 * object that names the function running the script, which Python's repr
 * shows as <code object <module> at 0x..., file "pure.py", line 1>. Each
 * file against what that Python's own pstats module read from it. */
START_TEST(pure_profile_fixtures)
{
    static const char *const vs[] = {"3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13"};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
        char name[32];
        snprintf(name, sizeof name, "pure-%s", vs[i]);
        size_t recursive;
        cgprop_graph *g = check_expected(name, NULL, &recursive);
        ck_assert_uint_eq(cgprop_graph_node_count(g), 16);
        ck_assert_uint_ge(recursive, 1); /* fib */
        /* 3.6 and 3.7 put a module's first line after its docstring. */
        const char *k = i < 2 ? "\tprofile:0\t<code object <module>, file \"pure.py\", line 3>"
                              : "\tprofile:0\t<code object <module>, file \"pure.py\", line 1>";
        ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, k), NULL), k + 11);
        cgprop_graph_free(g);
    }
}
END_TEST

/* A code object as marshal writes it (Python/marshal.c, w_object's branch
 * for code), kept small: four bytes of bytecode, empty tuples and bytes.
 *   -3.7:     'c', five ints (argcount, kwonlyargcount, nlocals, stacksize,
 *             flags); code, consts, names, varnames, freevars, cellvars,
 *             filename, name; the int firstlineno; lnotab.
 *   3.8-3.10: 'c', six ints (posonlyargcount after argcount); the rest as
 *             3.7 (3.10's lnotab is its linetable).
 *   3.11-:    'c', five ints (argcount, posonlyargcount, kwonlyargcount,
 *             stacksize, flags); code, consts, names, localsplusnames,
 *             localspluskinds, filename, name, qualname; the int
 *             firstlineno; linetable, exceptiontable.
 * The code object and its filename are flagged (they take back-reference
 * slots, as marshal flags objects referred to more than once); *file_slot
 * gets the filename's slot. With inner, its constants hold a second code
 * object (a function defined in the script), named "inner", flagged too.
 * The statistics code_stats makes of them load with marshal.loads in
 * Python 3.7 (layout 37), 3.8 and 3.10 (38), 3.11 and 3.13 (311), each as
 * the dict code_stats describes. */
static void bytes_obj(mb *m, const char *b, size_t n)
{
    u8(m, 's');
    u32(m, (uint32_t)n);
    for (size_t i = 0; i < n; i++) u8(m, (unsigned char)b[i]);
}

static void code_obj(mb *m, int py, uint32_t flags, const char *file, const char *name, uint32_t line, bool inner,
                     int *file_slot)
{
    u8(m, 'c' | 0x80);
    m->nrefs++;
    int nint = py == 38 ? 6 : 5;
    for (int i = 0; i < nint; i++) u32(m, i == nint - 1 ? flags : 0);
    bytes_obj(m, "d\0S\0", 4); /* LOAD_CONST 0, RETURN_VALUE */
    /* consts: (None, 1.5j, Ellipsis[, inner]), what constants may hold */
    u8(m, ')');
    u8(m, inner ? 4 : 3);
    u8(m, 'N');
    if (py == 37) {
        /* as marshal versions 0 and 1 write it: two text floats */
        static const unsigned char x[] = {'x', 1, '0', 3, '1', '.', '5'};
        for (size_t i = 0; i < sizeof x; i++) u8(m, x[i]);
    } else {
        u8(m, 'y');
        for (int i = 0; i < 16; i++) u8(m, i == 14 ? 0xf8 : i == 15 ? 0x3f : 0); /* 0 + 1.5j */
    }
    u8(m, '.');
    int unused;
    if (inner) code_obj(m, py, 0x43, file, "inner", line + 1, false, &unused);
    u8(m, ')'); /* names */
    u8(m, 0);
    u8(m, ')'); /* varnames, or localsplusnames */
    u8(m, 0);
    if (py == 311) {
        bytes_obj(m, "", 0); /* localspluskinds */
    } else {
        u8(m, ')'); /* freevars */
        u8(m, 0);
        u8(m, ')'); /* cellvars */
        u8(m, 0);
    }
    *file_slot = m->nrefs++;
    u8(m, 'z' | 0x80);
    u8(m, (unsigned)strlen(file));
    for (const char *c = file; *c; c++) u8(m, (unsigned char)*c);
    str(m, name);
    if (py == 311) str(m, name); /* qualname */
    u32(m, line);
    bytes_obj(m, "\1\2", 2); /* lnotab or linetable */
    if (py == 311) bytes_obj(m, "", 0); /* exceptiontable */
}

/* The profile module's statistics of a script m.py, by hand:
 *   ('profile', 0, <code of m.py>): the profiler's frame that runs it,
 *       tottime 1 us, cumtime 5 us, no caller;
 *   ('m.py', 1, '<module>'): the script, tottime 4 us, cumtime 4 us,
 *       called once by the first, whose label tuple (flagged) is referred
 *       back to ('r'); its file name is a reference to the code object's
 *       filename, a slot taken inside the code object.
 * A wrong count of the slots inside the code object would make the two
 * references name other values. */
static void code_stats(mb *m, int py, uint32_t flags, bool inner)
{
    mb_reset(m, 0);
    u8(m, '{');
    int label_slot = m->nrefs++, file_slot;
    u8(m, ')' | 0x80);
    u8(m, 3);
    str(m, "profile");
    num(m, 0);
    code_obj(m, py, flags, "m.py", "<module>", 1, inner, &file_slot);
    tup(m, 5, false);
    num(m, 1);
    num(m, 1);
    flt(m, 1e-6);
    flt(m, 5e-6);
    u8(m, '{');
    u8(m, '0');
    tup(m, 3, false);
    u8(m, 'r');
    u32(m, (uint32_t)file_slot);
    num(m, 1);
    str(m, "<module>");
    tup(m, 5, false);
    num(m, 1);
    num(m, 1);
    flt(m, 4e-6);
    flt(m, 4e-6);
    u8(m, '{');
    u8(m, 'r');
    u32(m, (uint32_t)label_slot);
    num(m, 1);
    u8(m, '0');
    u8(m, '0');
}

START_TEST(code_object_layouts)
{
    static const char *const runner = "\tprofile:0\t<code object <module>, file \"m.py\", line 1>";
    static const int pys[] = {37, 38, 311};
    for (int i = 0; i < 3; i++) {
        for (int inner = 0; inner < 2; inner++) {
            /* flags: a module's; 0x73, in 3.8 to 3.10 a nested generator
             * without free variables, is the byte 's' where the bytecode
             * of the other layouts starts. */
            for (int fl = 0; fl < 2; fl++) {
                mb m;
                code_stats(&m, pys[i], fl ? 0x73 : 0x40, inner);
                cgprop_graph *g = rd(&m, NULL, CGPROP_INPUT_AUTO);
                ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
                tanalyse(g, CGPROP_SHARE_AUTO);
                exact(g, runner, 1000, 5000, 0);
                exact(g, "\tm.py:1\t<module>", 4000, 4000, 0);
                cgprop_edge_row e = tedge(g, runner, "\tm.py:1\t<module>", 0);
                ck_assert_uint_eq(e.count, 1);
                cgprop_graph_free(g);
                /* Every cut fails cleanly. */
                for (size_t n = 0; n < m.n; n++) {
                    cgprop_read_error err;
                    cgprop_read_error_init(&err);
                    cgprop_read_options o;
                    cgprop_read_options_init(&o);
                    o.format = CGPROP_INPUT_PSTATS;
                    g = NULL;
                    int rc = cgprop_read_buffer((const char *)m.b, n, "cut", 3, &o, NULL, &g, NULL, &err);
                    ck_assert_msg(rc == CGPROP_EFORMAT, "py %d cut at %zu: %d", pys[i], n, rc);
                    ck_assert(g == NULL);
                }
            }
        }
    }
}
END_TEST

START_TEST(code_object_malformed)
{
    mb m;
    /* A 3.11 code object whose localspluskinds is a tuple: a layout of 3.7 and before
     * from then on, whose filename (the next field) must be a string. */
    code_stats(&m, 311, 0x40, false);
    static const unsigned char kinds[] = {'s', 0, 0, 0, 0};
    unsigned char *at = NULL;
    for (size_t i = 0; i + 9 < m.n && !at; i++)
        if (!memcmp(m.b + i, kinds, 5) && m.b[i + 5] == ('z' | 0x80)) at = m.b + i;
    ck_assert(at != NULL);
    memcpy(at, ")\0NNN", 5); /* an empty tuple, then Nones in the bytes' place */
    bad_bytes(m.b, m.n, CGPROP_EFORMAT, "a code object's field of another type than its layout's");
    /* Bytecode neither after five ints nor after six. */
    code_stats(&m, 38, 0x40, false);
    size_t c = 0;
    while (m.b[c] != ('c' | 0x80)) c++;
    m.b[c + 1 + 24] = 'N';
    char what[64];
    snprintf(what, sizeof what, "code object of no known layout at byte offset %zu", c);
    bad_bytes(m.b, m.n, CGPROP_EFORMAT, what);
    /* A code object where a label's file should be. */
    mb_reset(&m, 0);
    u8(&m, '{');
    tup(&m, 3, false);
    code_obj(&m, 38, 0x40, "m.py", "<module>", 1, false, &(int){0});
    num(&m, 0);
    str(&m, "x");
    tup(&m, 5, false);
    for (int i = 0; i < 4; i++) num(&m, 0);
    u8(&m, '{');
    u8(&m, '0');
    u8(&m, '0');
    bad_bytes(m.b, m.n, CGPROP_EFORMAT, "a function label is not (str, int, str)");
    /* Allocation failures on the way through a code object. */
    code_stats(&m, 311, 0x40, true);
    tfail_read_sweep((const char *)m.b, m.n, "a", 100000);
}
END_TEST

START_TEST(merge_into_new_graph)
{
    /* Into a graph that states nothing yet, with every allocation failing
     * in turn: ENOMEM leaves it as it was (empty), success carries the
     * stated costs over. */
    mb m;
    put_stats(&m, mutual, 3, 0);
    cgprop_graph *src = rd(&m, NULL, CGPROP_INPUT_PSTATS);
    static const char *const names[1] = {"ns"};
    int ok = 0;
    for (long budget = 0; budget < 10000 && !ok; budget++) {
        tfail s;
        cgprop_allocator a = tfail_allocator(&s, 1000);
        cgprop_graph *dst = NULL;
        ck_assert_int_eq(cgprop_graph_new(&a, names, NULL, 1, &dst), CGPROP_OK);
        s.left = budget;
        int rc = cgprop_graph_merge(dst, src);
        s.left = 1000000;
        if (rc == CGPROP_OK) {
            ok = 1;
            tanalyse(dst, CGPROP_SHARE_AUTO);
            exact(dst, "\tprog.py:5\ta", 3000, 4000, 0);
            exact(dst, "\tprog.py:9\tb", 1000, 3000, 0);
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            ck_assert_uint_eq(cgprop_graph_node_count(dst), 0);
        }
        cgprop_graph_free(dst);
        ck_assert_int_eq(s.live, 0);
    }
    ck_assert(ok);
    cgprop_graph_free(src);
}
END_TEST

/* One function spelt several ways in one file: the entries' labels plain
 * (short tuple, 'z' strings, 'i' line), their callers spelt the same, with
 * other string types, or with other bytes that make the same key (a TAB in
 * a file name becomes a space), and a caller with no entry of its own.
 * Every spelling of a function is one function; by hand: main -> f 1 call
 * (3 us), f -> g 2 calls (1 us), main -> g 3 calls (2 us), h -> g 4 calls,
 * h a fourth function after the three entries, g's caller f found though
 * its bytes differ from f's entry. */
static void plain_label(mb *m, const char *file, long line, const char *name, int how)
{
    u8(m, ')');
    u8(m, 3);
    m->style = how;
    str(m, file);
    m->style = 0;
    num(m, line);
    m->style = how;
    str(m, name);
    m->style = 0;
}

static void plain_entry(mb *m, long nc, double tt, double ct)
{
    tup(m, 5, false);
    num(m, nc);
    num(m, nc);
    flt(m, tt);
    flt(m, ct);
    u8(m, '{');
}

static void plain_call(mb *m, long nc, double ct)
{
    tup(m, 4, false);
    num(m, nc);
    num(m, nc);
    flt(m, 0.0);
    flt(m, ct);
}

START_TEST(spellings)
{
    static mb m;
    mb_reset(&m, 0);
    u8(&m, '{');
    plain_label(&m, "m.py", 1, "main", 0);
    plain_entry(&m, 1, 1e-6, 6e-6);
    u8(&m, '0');
    plain_label(&m, "a\tb.py", 2, "f", 0);
    plain_entry(&m, 1, 2e-6, 3e-6);
    plain_label(&m, "m.py", 1, "main", 0);
    plain_call(&m, 1, 3e-6);
    u8(&m, '0');
    plain_label(&m, "m.py", 3, "g", 0);
    plain_entry(&m, 9, 3e-6, 3e-6);
    plain_label(&m, "a b.py", 2, "f", 0);
    plain_call(&m, 2, 1e-6);
    plain_label(&m, "m.py", 1, "main", 1);
    plain_call(&m, 3, 2e-6);
    plain_label(&m, "x.py", 4, "h", 0);
    plain_call(&m, 4, 0.0);
    u8(&m, '0');
    u8(&m, '0');
    cgprop_graph *g = rd(&m, NULL, CGPROP_INPUT_PSTATS);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 4);
    ck_assert_uint_eq(tfind(g, "\tm.py:1\tmain"), 0);
    ck_assert_uint_eq(tfind(g, "\ta b.py:2\tf"), 1);
    ck_assert_uint_eq(tfind(g, "\tm.py:3\tg"), 2);
    ck_assert_uint_eq(tfind(g, "\tx.py:4\th"), 3);
    cgprop_edge_row e = tedge(g, "\tm.py:1\tmain", "\ta b.py:2\tf", 0);
    ck_assert_uint_eq(e.count, 1);
    ck_assert_uint_eq(e.cost, 3000);
    e = tedge(g, "\ta b.py:2\tf", "\tm.py:3\tg", 0);
    ck_assert_uint_eq(e.count, 2);
    ck_assert_uint_eq(e.cost, 1000);
    e = tedge(g, "\tm.py:1\tmain", "\tm.py:3\tg", 0);
    ck_assert_uint_eq(e.count, 3);
    ck_assert_uint_eq(e.cost, 2000);
    e = tedge(g, "\tx.py:4\th", "\tm.py:3\tg", 0);
    ck_assert_uint_eq(e.count, 4);
    ck_assert_uint_eq(e.cost, 0);
    cgprop_graph_free(g);
}
END_TEST

/* ---- many functions: the reader adds calls a few thousand at a time ---- */

#define MB_N 5000 /* functions f0 .. f4999, and hub */

static void many_label(mb *m, int i)
{
    char name[16];
    snprintf(name, sizeof name, i == MB_N ? "hub" : "f%d", i);
    plain_label(m, "m.py", i + 1, name, 0);
}

/* The callers of function i: f(i-1), f(i/2), f(i/3) (those that differ,
 * none for f0), and of hub every f. Call j -> i: count 1 + (i + j) % 5,
 * cumulative time (i + j) % 97 + 1 us. */
static int callers_of(int i, int *out)
{
    if (i == MB_N) {
        for (int j = 0; j < MB_N; j++) out[j] = j;
        return MB_N;
    }
    int n = 0, c[3] = {i - 1, i / 2, i / 3};
    for (int k = 0; k < 3; k++) {
        bool seen = c[k] < 0 || c[k] == i;
        for (int q = 0; q < n; q++) seen = seen || out[q] == c[k];
        if (!seen) out[n++] = c[k];
    }
    return n;
}

START_TEST(callers_across_batches)
{
    /* About 20,000 calls, more than four batches: most batches end inside a
     * function's callers, and hub's 5,000 callers are more than one batch
     * holds, so the calls into hub from the second batch on meet calls
     * into hub already made. Every call must come out once, with its own
     * count and cost. */
    static int cl[MB_N];
    static mb m;
    mb_reset(&m, 0);
    u8(&m, '{');
    int ncalls = 0;
    for (int i = 0; i <= MB_N; i++) {
        many_label(&m, i);
        plain_entry(&m, 1, 1e-6, 1e-3);
        int n = callers_of(i, cl);
        for (int k = 0; k < n; k++) {
            int j = cl[k];
            many_label(&m, j);
            tup(&m, 4, false);
            num(&m, 1 + (i + j) % 5);
            num(&m, 1);
            flt(&m, 0.0);
            flt(&m, ((i + j) % 97 + 1) * 1e-6);
        }
        ncalls += n;
        u8(&m, '0');
    }
    u8(&m, '0');
    ck_assert_int_gt(ncalls, 3 * 4096);

    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    int rc = cgprop_read_buffer((const char *)m.b, m.n, "many.pstats", 11, NULL, NULL, &g, NULL, &err);
    ck_assert_msg(rc == CGPROP_OK, "rc %d: %s", rc, err.reason);
    ck_assert_uint_eq(cgprop_graph_node_count(g), MB_N + 1);
    ck_assert_uint_eq(cgprop_graph_edge_count(g), (size_t)ncalls);
    char ka[64], kb[64];
    for (int i = 0; i <= MB_N; i++) {
        int n = callers_of(i, cl);
        snprintf(kb, sizeof kb, i == MB_N ? "\tm.py:%d\thub" : "\tm.py:%d\tf%d", i + 1, i);
        for (int k = 0; k < n; k++) {
            int j = cl[k];
            snprintf(ka, sizeof ka, "\tm.py:%d\tf%d", j + 1, j);
            cgprop_edge_row e = tedge(g, ka, kb, 0);
            ck_assert_msg(e.count == (uint64_t)(1 + (i + j) % 5), "%s -> %s: count %llu", ka, kb,
                          (unsigned long long)e.count);
            ck_assert_msg(e.cost == (uint64_t)((i + j) % 97 + 1) * 1000, "%s -> %s: cost %llu", ka, kb,
                          (unsigned long long)e.cost);
        }
    }
    cgprop_graph_free(g);
    /* And with each allocation failing in turn, a batch's among them. */
    tfail_read_sweep((const char *)m.b, m.n, "a", 100000);
    mb_free(&m);
}
END_TEST

START_TEST(alloc_failures)
{
    mb m;
    put_stats(&m, mutual, 3, 2);
    tfail_read_sweep((const char *)m.b, m.n, "a", 100000);
    size_t n;
    char *d = tslurp(DATA "/pstats/recur.pstats", &n);
    tfail_read_sweep(d, n, "a", 100000);
    free(d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("pstats");
    TCase *tc = tcase_create("pstats");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, mutual_recursion);
    tcase_add_test(tc, self_recursion);
    tcase_add_test(tc, merge_keeps_stated);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, detect);
    tcase_add_test(tc, real_fixture);
    tcase_add_test(tc, pure_profile_fixtures);
    tcase_add_test(tc, calibrated_fixture);
    tcase_add_test(tc, negative_times);
    tcase_add_test(tc, entered_from_outside_and_called);
    tcase_add_test(tc, three_files_merged);
    tcase_add_test(tc, one_label_two_functions);
    tcase_add_test(tc, code_object_layouts);
    tcase_add_test(tc, code_object_malformed);
    tcase_add_test(tc, merge_into_new_graph);
    tcase_add_test(tc, alloc_failures);
    tcase_add_test(tc, spellings);
    tcase_add_test(tc, callers_across_batches);
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
