/* Chrome/V8 .cpuprofile reader: hand-made profiles with totals worked out
 * by hand (recursion, sparse ids in any order, parent links, time deltas
 * that step back), JSON details, malformed inputs and allocation failures.
 * The real node profile is checked by tests/v8/check_v8.py. */
#include <check.h>
#include "ck_quiet.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_io.h"

#define DATA CGPROP_TEST_DATA

static cgprop_graph *rd(const char *text, cgprop_read_info *info)
{
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_V8;
    int rc = cgprop_read_buffer(text, strlen(text), "v", 1, &o, NULL, &g, info, &err);
    ck_assert_msg(rc == CGPROP_OK, "line %llu: %s", (unsigned long long)err.line, err.reason);
    return g;
}

static void bad(const char *text, int code, uint64_t line, const char *reason)
{
    cgprop_graph *g = (cgprop_graph *)1;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_options o;
    cgprop_read_options_init(&o);
    o.format = CGPROP_INPUT_V8;
    int rc = cgprop_read_buffer(text, strlen(text), "s.cpuprofile", 12, &o, NULL, &g, NULL, &err);
    ck_assert_msg(rc == code, "expected %d got %d (%s) for <<%s>>", code, rc, err.reason, text);
    ck_assert(g == NULL);
    ck_assert_msg(err.line == line, "line %llu, expected %llu (%s)", (unsigned long long)err.line,
                  (unsigned long long)line, err.reason);
    ck_assert_str_eq(err.file, "s.cpuprofile");
    ck_assert_msg(strstr(err.reason, reason) != NULL, "reason '%s' lacks '%s'", err.reason, reason);
}

static uint32_t id(cgprop_graph *g, const char *k)
{
    uint32_t v;
    ck_assert_msg(cgprop_graph_find_node(g, k, strlen(k), &v) == CGPROP_OK, "no function '%s'", k);
    return v;
}

static uint64_t self(cgprop_graph *g, const char *k, uint32_t m)
{
    cgprop_node_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, id(g, k), &r, sizeof r), CGPROP_OK);
    return r.self;
}

static uint64_t total(cgprop_graph *g, const char *k, uint32_t m)
{
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);
    cgprop_split_row r;
    ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, m, id(g, k), &r, sizeof r), CGPROP_OK);
    ck_assert_uint_eq(r.inexact, 0);
    return r.C_n;
}

#define CF(name, url, line, col) \
    "\"callFrame\":{\"functionName\":\"" name "\",\"scriptId\":\"7\",\"url\":\"" url "\",\"lineNumber\":" #line \
    ",\"columnNumber\":" #col "}"
#define ROOT_CF "\"callFrame\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,\"columnNumber\":-1}"

/* The tree (ids sparse, listed out of order):
 *   1 (root) -> 2 main -> 3 f -> 5 g -> 6 f
 *                              -> 4 (anonymous)
 *            -> 10 (program)
 *            -> 7 (garbage collector)
 * samples 3 6 6 4 10 7 5 3, deltas 100 10 20 30 40 50 60 70 from 1000:
 * time stamps 1100 1110 1130 1160 1200 1250 1310 1380; each sample lasts
 * until the next, the last the mean interval (1380 - 1100) / 7 = 40:
 * node 3: 10, 6: 20+30, 4: 40, 10: 50, 7: 60, 5: 70, 3 again: 40. */
static const char hand[] =
    "{\"nodes\":[\n"
    "{\"id\":5," CF("g", "file:///a.js", 9, 2) ",\"hitCount\":1,\"children\":[6]},\n"
    "{\"id\":1," ROOT_CF ",\"hitCount\":0,\"children\":[2,10,7]},\n"
    "{\"id\":6," CF("f", "file:///a.js", 4, 10) ",\"hitCount\":2,\"positionTicks\":[{\"line\":5,\"ticks\":2}]},\n"
    "{\"id\":10,\"callFrame\":{\"functionName\":\"(program)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":-1,"
    "\"columnNumber\":-1},\"hitCount\":1},\n"
    "{\"id\":3," CF("f", "file:///a.js", 4, 10) ",\"hitCount\":2,\"children\":[5,4]},\n"
    "{\"children\":[3],\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"hitCount\":0},\n"
    "{\"id\":7,\"callFrame\":{\"functionName\":\"(garbage collector)\",\"scriptId\":\"0\",\"url\":\"\","
    "\"lineNumber\":-1,\"columnNumber\":-1},\"hitCount\":1},\n"
    "{\"id\":4," CF("", "file:///a.js", 20, 4) ",\"hitCount\":1,\"children\":[]}\n"
    "],\n"
    "\"startTime\":1000,\"endTime\":2000,\n"
    "\"samples\":[3,6,6,4,10,7,5,3],\n"
    "\"timeDeltas\":[100,10,20,30,40,50,60,70]}\n";

#define MAIN "file:///a.js\t1:1\tmain"
#define F "file:///a.js\t5:11\tf"
#define G "file:///a.js\t10:3\tg"
#define ANON "file:///a.js\t21:5\t(anonymous)"
#define PROG "\t0:0\t(program)"
#define GC "\t0:0\t(garbage collector)"

START_TEST(hand_made)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(hand, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "time");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "samples");
    /* (root) is no function; f's two nodes are one function */
    ck_assert_uint_eq(cgprop_graph_node_count(g), 6);
    ck_assert_uint_eq(total(g, MAIN, 0), 210);
    ck_assert_uint_eq(total(g, F, 0), 210);
    ck_assert_uint_eq(total(g, G, 0), 120);
    ck_assert_uint_eq(total(g, ANON, 0), 40);
    ck_assert_uint_eq(total(g, PROG, 0), 50);
    ck_assert_uint_eq(total(g, GC, 0), 60);
    ck_assert_uint_eq(self(g, F, 0), 100);
    ck_assert_uint_eq(self(g, G, 0), 70);
    ck_assert_uint_eq(self(g, MAIN, 0), 0);
    ck_assert_uint_eq(total(g, MAIN, 1), 6);
    ck_assert_uint_eq(total(g, F, 1), 6);
    ck_assert_uint_eq(total(g, G, 1), 3);
    ck_assert_uint_eq(total(g, ANON, 1), 1);
    ck_assert_uint_eq(self(g, F, 1), 4);
    ck_assert_uint_eq(total(g, PROG, 1), 1);
    ck_assert_str_eq(cgprop_node_display_name(g, id(g, ANON), NULL), "(anonymous)");
    cgprop_graph_free(g);
}
END_TEST

START_TEST(deltas_step_back)
{
    /* time stamps 100 150 120: in time order samples 0, 2, 1, lasting 20,
     * 30 and (150 - 100) / 2 = 25. */
    cgprop_graph *g = rd("{\"nodes\":[{\"id\":1," ROOT_CF ",\"children\":[2]},"
                         "{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"children\":[3]},"
                         "{\"id\":3," CF("f", "file:///a.js", 4, 10) ",\"children\":[5]},"
                         "{\"id\":5," CF("g", "file:///a.js", 9, 2) ",\"children\":[6]},"
                         "{\"id\":6," CF("f", "file:///a.js", 4, 10) "}],"
                         "\"startTime\":0,\"endTime\":200,\"samples\":[3,5,6],\"timeDeltas\":[100,50,-30]}",
                         NULL);
    ck_assert_uint_eq(total(g, MAIN, 0), 75);
    ck_assert_uint_eq(total(g, G, 0), 55);
    ck_assert_uint_eq(self(g, G, 0), 25);
    ck_assert_uint_eq(self(g, F, 0), 50);
    ck_assert_uint_eq(total(g, F, 1), 3);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(parent_links_and_hit_counts)
{
    /* Trace-event profiles name the parent instead of the children. */
    cgprop_graph *g = rd("{\"nodes\":[{\"id\":1," ROOT_CF "},"
                         "{\"id\":3,\"parent\":2," CF("f", "file:///a.js", 4, 10) "},"
                         "{\"id\":2,\"parent\":1," CF("main", "file:///a.js", 0, 0) "}],"
                         "\"samples\":[3,2],\"timeDeltas\":[5,7],\"startTime\":0,\"endTime\":20}",
                         NULL);
    /* time stamps 5 and 12: f lasts 7, main (the last) 7 / 1 */
    ck_assert_uint_eq(total(g, MAIN, 0), 14);
    ck_assert_uint_eq(total(g, F, 0), 7);
    ck_assert_uint_eq(total(g, MAIN, 1), 2);
    cgprop_graph_free(g);
    /* Without a sample list, hit counts give the samples and no time. */
    g = rd("{\"nodes\":[{\"id\":1," ROOT_CF ",\"hitCount\":0,\"children\":[2]},"
           "{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"hitCount\":4,\"children\":[3]},"
           "{\"id\":3," CF("f", "file:///a.js", 4, 10) ",\"hitCount\":3}]}",
           NULL);
    ck_assert_uint_eq(total(g, MAIN, 1), 7);
    ck_assert_uint_eq(self(g, F, 1), 3);
    ck_assert_uint_eq(total(g, MAIN, 0), 0);
    cgprop_graph_free(g);
    /* A sample on the root itself keeps a (root) frame. Time stamps 0 4 9:
     * root 4, main 5, root again 9 / 2 = 4.5, rounded to 5. */
    g = rd("{\"nodes\":[{\"id\":1," ROOT_CF ",\"children\":[2]},{\"id\":2," CF("main", "file:///a.js", 0, 0) "}],"
           "\"samples\":[1,2,1],\"timeDeltas\":[0,4,5],\"startTime\":0}",
           NULL);
    ck_assert_uint_eq(self(g, "\t0:0\t(root)", 0), 9);
    ck_assert_uint_eq(self(g, MAIN, 0), 5);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    cgprop_graph_free(g);
}
END_TEST

/* Random trees, their nodes listed in a random order (not the depth-first
 * one V8 writes), some frames named "(root)" below the root, hit counts
 * as the samples: each function's self and total worked out by brute force
 * over every sampled node's path (total once per path), and the "(root)"
 * function present exactly when a sampled path keeps such a frame. */
static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

START_TEST(random_trees_any_order)
{
    static const char *const names[] = {"a", "b", "c", "d", "e", "(root)"};
    enum { NF = 6, MAXN = 40 };
    uint64_t x = 0x5EED5EEDu;
    for (int trial = 0; trial < 200; trial++) {
        int nn = 1 + (int)(rng_next(&x) % MAXN), parent[MAXN], fn[MAXN], hit[MAXN], order[MAXN];
        for (int i = 0; i < nn; i++) {
            parent[i] = i ? (int)(rng_next(&x) % (uint64_t)i) : -1;
            fn[i] = i ? (int)(rng_next(&x) % 11 < 10 ? rng_next(&x) % 5 : 5) : 5;
            hit[i] = (int)(rng_next(&x) % 4);
            order[i] = i;
        }
        for (int i = nn - 1; i > 0; i--) {
            int j = (int)(rng_next(&x) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        /* Node i gets id 3 * i + 7; the array lists them in `order`. */
        static char t[MAXN * 256];
        size_t n = (size_t)snprintf(t, sizeof t, "{\"nodes\":[");
        for (int k = 0; k < nn; k++) {
            int i = order[k];
            if (fn[i] == 5)
                n += (size_t)snprintf(t + n, sizeof t - n, "%s{\"id\":%d," ROOT_CF ",\"hitCount\":%d,\"children\":[",
                                      k ? "," : "", 3 * i + 7, hit[i]);
            else
                n += (size_t)snprintf(t + n, sizeof t - n,
                                      "%s{\"id\":%d,\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":\"1\","
                                      "\"url\":\"file:///t.js\",\"lineNumber\":1,\"columnNumber\":1},\"hitCount\":%d,"
                                      "\"children\":[",
                                      k ? "," : "", 3 * i + 7, names[fn[i]], hit[i]);
            int first = 1;
            for (int c = 0; c < nn; c++)
                if (parent[c] == i) {
                    n += (size_t)snprintf(t + n, sizeof t - n, "%s%d", first ? "" : ",", 3 * c + 7);
                    first = 0;
                }
            n += (size_t)snprintf(t + n, sizeof t - n, "]}");
        }
        snprintf(t + n, sizeof t - n, "]}");
        /* Brute force: the path of each sampled node, the root's frame
         * dropped unless it is the only one. */
        uint64_t es[NF] = {0}, et[NF] = {0};
        bool any_hit = false;
        for (int i = 0; i < nn; i++) {
            if (!hit[i]) continue;
            any_hit = true;
            int path[MAXN], d = 0;
            for (int m = i; m >= 0; m = parent[m]) path[d++] = fn[m];
            int keep = d > 1 ? d - 1 : 1; /* path[d - 1] is the root */
            bool seen[NF] = {false};
            es[path[0]] += (uint64_t)hit[i];
            for (int j = 0; j < keep; j++)
                if (!seen[path[j]]) {
                    seen[path[j]] = true;
                    et[path[j]] += (uint64_t)hit[i];
                }
        }
        if (!any_hit) continue; /* refused: no sample */
        cgprop_graph *g = rd(t, NULL);
        for (int f = 0; f < NF; f++) {
            char key[64];
            if (f == 5) snprintf(key, sizeof key, "\t0:0\t(root)");
            else snprintf(key, sizeof key, "file:///t.js\t2:2\t%s", names[f]);
            uint32_t v;
            int found = cgprop_graph_find_node(g, key, strlen(key), &v) == CGPROP_OK;
            if (f == 5) ck_assert_msg(found == (et[5] > 0), "trial %d: (root) present %d, expected %d", trial, found,
                                      et[5] > 0);
            if (!found) {
                ck_assert_msg(et[f] == 0, "trial %d: %s missing", trial, names[f]);
                continue;
            }
            ck_assert_msg(self(g, key, 1) == es[f], "trial %d: self of %s %llu, expected %llu", trial, names[f],
                          (unsigned long long)self(g, key, 1), (unsigned long long)es[f]);
            ck_assert_msg(total(g, key, 1) == et[f], "trial %d: total of %s %llu, expected %llu", trial, names[f],
                          (unsigned long long)total(g, key, 1), (unsigned long long)et[f]);
        }
        cgprop_graph_free(g);
    }
}
END_TEST

/* Nodes as V8 writes them are read by a byte scanner, any other spelling
 * by the token loop: the same tree spelt both ways (and a compact node with
 * an escape, a leading key the scanner does not expect, or empty children)
 * gives the same figures. main 4 hits + f 3; f's key 5:11. */
START_TEST(node_spellings)
{
    static const char *const in[] = {
        "{\"nodes\":[{\"id\":1," ROOT_CF ",\"hitCount\":0,\"children\":[2]},"
        "{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"hitCount\":4,\"children\":[3]},"
        "{\"id\":3," CF("f", "file:///a.js", 4, 10) ",\"hitCount\":3,\"children\":[]}]}",
        "{ \"nodes\" : [ { \"id\" : 1 , \"callFrame\" : { \"functionName\" : \"(root)\", \"scriptId\" : \"0\","
        " \"url\" : \"\", \"lineNumber\" : -1, \"columnNumber\" : -1 }, \"hitCount\" : 0, \"children\" : [ 2 ] },\n"
        " {\"id\":2, \"callFrame\":{\"functionName\":\"main\",\"scriptId\":\"7\",\"url\":\"file:///a.js\","
        "\"lineNumber\":0,\"columnNumber\":0},\"hitCount\":4,\"children\":[3]},\n"
        " {\"id\":3,\"callFrame\":{\"functionName\":\"f\",\"scriptId\":\"7\",\"url\":\"file:///a.js\","
        "\"lineNumber\":4,\"columnNumber\":10},\"hitCount\":3} ] }",
        "{\"nodes\":[{\"id\":1," ROOT_CF ",\"hitCount\":0,\"children\":[2]},"
        "{\"hitCount\":4,\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"children\":[3]},"
        "{\"id\":3," CF("\\u0066", "file:\\/\\/\\/a.js", 4, 10) ",\"hitCount\":3}]}",
    };
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        cgprop_graph *g = rd(in[i], NULL);
        ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
        ck_assert_uint_eq(total(g, MAIN, 1), 7);
        ck_assert_uint_eq(self(g, MAIN, 1), 4);
        ck_assert_uint_eq(self(g, F, 1), 3);
        cgprop_graph_free(g);
    }
}
END_TEST

/* Samples 3, 3, 2, 3 (f, f, main, f) each lasting d µs, the last one the
 * mean interval, d too: f's self 3d and 3 samples, main's d and 1, main's
 * total 4d. The arrays are spelt the ways the reader's word-at-a-time
 * number scan takes (up to 7 digits before ',' or ']') and those it leaves
 * to the byte loop (blanks, 8 digits and more); the nodes listed by id or
 * not. */
static void four_samples(const char *ids, const char *samples, const char *deltas, uint64_t d)
{
    unsigned a, b, c;
    ck_assert_int_eq(sscanf(ids, "%u %u %u", &a, &b, &c), 3);
    char t[2048];
    snprintf(t, sizeof t,
             "{\"nodes\":[{\"id\":%u," ROOT_CF ",\"hitCount\":0,\"children\":[%u]},"
             "{\"id\":%u," CF("main", "file:///a.js", 0, 0) ",\"hitCount\":0,\"children\":[%u]},"
             "{\"id\":%u," CF("f", "file:///a.js", 4, 10) ",\"hitCount\":0}],"
             "\"startTime\":5,\"endTime\":9,\"samples\":%s,\"timeDeltas\":%s}",
             a, b, b, c, c, samples, deltas);
    cgprop_graph *g = rd(t, NULL);
    ck_assert_uint_eq(self(g, F, 0), 3 * d);
    ck_assert_uint_eq(self(g, MAIN, 0), d);
    ck_assert_uint_eq(total(g, MAIN, 0), 4 * d);
    ck_assert_uint_eq(self(g, F, 1), 3);
    ck_assert_uint_eq(self(g, MAIN, 1), 1);
    cgprop_graph_free(g);
}

START_TEST(number_spellings)
{
    four_samples("1 2 3", "[3,3,2,3]", "[7,7,7,7]", 7);
    four_samples("1 2 3", "[3,3,2,3]", "[1234567,1234567,1234567,1234567]", 1234567);
    four_samples("1 2 3", "[3,3,2,3]", "[12345678,12345678,12345678,12345678]", 12345678);
    four_samples("1 2 3", "[ 3 , 3,\n2 ,3 ]", "[\t1000,1000 ,1000,\r\n1000]", 1000);
    four_samples("1 2 3", "[3,3,2,3]", "[0,1000,1000,1000]", 1000);
    four_samples("1 2 3", "[3,3,2,3]", "[-5,1000,1000,1000]", 1000);
    four_samples("1000001 1000002 1000003", "[1000003,1000003,1000002,1000003]", "[9,9,9,9]", 9);
    four_samples("10000001 10000002 10000003", "[10000003,10000003,10000002,10000003]", "[9,9,9,9]", 9);
    four_samples("1 7 3", "[3,3,7,3]", "[40,40,40,40]", 40);
    four_samples("5 1 3", "[3,3,1,3]", "[40,40,40,40]", 40);
    bad("{\"nodes\":[{\"id\":1," ROOT_CF "}],\"samples\":[1,01]}", CGPROP_EFORMAT, 1, "expected ','");
    bad("{\"nodes\":[{\"id\":1," ROOT_CF "}],\"samples\":[1,2.0]}", CGPROP_EFORMAT, 1,
        "samples is not an array of integers");
    bad("{\"nodes\":[{\"id\":1," ROOT_CF "}],\"samples\":[1,7]}", CGPROP_EFORMAT, 1, "sample names no node: 7");
}
END_TEST

START_TEST(json_details)
{
    /* Escapes: \u00e9, a surrogate pair (U+1F600), a lone surrogate
     * (U+FFFD), \t (a space: keys use TAB), \/ ; a numeric scriptId without
     * URL; blanks and a byte order mark; keys unknown to the reader. */
    cgprop_graph *g = rd("\xef\xbb\xbf { \"meta\" : {\"a\":[1,2.5e3,true,false,null,{\"b\":\"\\\"\"}]},\r\n"
                         " \"nodes\" : [ {\"id\":-4, \"callFrame\":{\"functionName\":\"caf\\u00e9 \\ud83d\\ude00 "
                         "\\udc00 x\\ty\",\"url\":\"file:\\/\\/\\/u.js\",\"lineNumber\":2,\"columnNumber\":3,"
                         "\"extra\":[]}, \"children\":[9]},"
                         " {\"id\":9,\"callFrame\":{\"functionName\":\"ev\",\"scriptId\":42,\"url\":\"\","
                         "\"lineNumber\":0,\"columnNumber\":5}} ],"
                         " \"samples\" : [ 9 ] , \"timeDeltas\" : [ 3 ] } \n",
                         NULL);
    ck_assert_uint_eq(self(g, "script 42\t1:6\tev", 1), 1);
    ck_assert_uint_eq(total(g, "file:///u.js\t3:4\tcaf\xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbd x y", 1), 1);
    cgprop_graph_free(g);
}
END_TEST

/* Counts the bytes a writer gives. */
static int sink(void *ud, const char *buf, size_t len)
{
    size_t *n = ud;
    (void)buf;
    *n += len;
    return 0;
}

START_TEST(line_breaks_in_names)
{
    /* A name or URL with a line break, escaped (\n, \r) or spelt \u000a:
     * a key is one line of the text formats, so each becomes a space, as a
     * TAB does, and the callgrind writer (which refuses a key that would
     * break its name line) takes the graph. */
    cgprop_graph *g = rd("{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"a\\nb\\rc\\u000ad\","
                         "\"url\":\"file:///x\\n.js\",\"lineNumber\":0,\"columnNumber\":0}}],"
                         "\"samples\":[1],\"timeDeltas\":[7]}",
                         NULL);
    ck_assert_uint_eq(self(g, "file:///x .js\t1:1\ta b c d", 1), 1);
    size_t n = 0;
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_CALLGRIND, NULL, sink, &n), CGPROP_OK);
    ck_assert_uint_gt(n, 0);
    cgprop_graph_free(g);
}
END_TEST

#define NODE1 "{\"id\":1," ROOT_CF
#define NODE(i, rest) "{\"id\":" #i "," CF("f" #i, "file:///a.js", i, 0) rest "}"

START_TEST(malformed)
{
    bad("[1]", CGPROP_EFORMAT, 1, "a .cpuprofile is a JSON object");
    bad("{\"nodes\":[", CGPROP_EFORMAT, 1, "unexpected end");
    bad("{\"nodes\":[]} x", CGPROP_EFORMAT, 1, "bytes after the end");
    bad("{\"nodes\":[]}", CGPROP_EFORMAT, 1, "no nodes");
    bad("{\n\"a\":\"\\q\"}", CGPROP_EFORMAT, 2, "bad escape");
    bad("{\n\"a\":\"\\u12g4\"}", CGPROP_EFORMAT, 2, "bad \\u escape");
    bad("{\"a\":\"x\ny\"}", CGPROP_EFORMAT, 1, "control byte");
    bad("{\"a\":\"xy}", CGPROP_EFORMAT, 1, "unterminated string");
    bad("{\"a\" 1}", CGPROP_EFORMAT, 1, "expected ':'");
    bad("{\"a\":1,}", CGPROP_EFORMAT, 1, "expected a key");
    bad("{\"a\":[1 2]}", CGPROP_EFORMAT, 1, "expected ','");
    bad("{\"a\":[1}", CGPROP_EFORMAT, 1, "mismatched");
    bad("{\"a\":01}", CGPROP_EFORMAT, 1, "expected ','");
    bad("{\"a\":-}", CGPROP_EFORMAT, 1, "bad number");
    bad("{\"a\":1.}", CGPROP_EFORMAT, 1, "bad number");
    bad("{\"a\":tru}", CGPROP_EFORMAT, 1, "expected a JSON value");
    bad("{\"head\":{}}", CGPROP_EFORMAT, 1, "legacy");
    char deep[700];
    size_t k = (size_t)snprintf(deep, sizeof deep, "{\"a\":");
    for (int i = 0; i < 300; i++) deep[k++] = '[';
    deep[k] = '\0';
    bad(deep, CGPROP_EFORMAT, 1, "nesting too deep");
    /* the tree */
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, ",\"children\":[99]") "]}", CGPROP_EFORMAT, 3,
        "child id 99 names no node");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, ",\"children\":[2]") "]}", CGPROP_EFORMAT, 3,
        "its own child");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2,3]},\n" NODE(2, ",\"children\":[3]") ",\n" NODE(3, "") "]}",
        CGPROP_EFORMAT, 3, "two parents");
    bad("{\"nodes\":[\n" NODE1 "},\n" NODE(2, ",\"children\":[3]") ",\n" NODE(3, ",\"children\":[2]") "]}",
        CGPROP_EFORMAT, 3, "a cycle");
    bad("{\"nodes\":[\n" NODE1 "},\n" NODE(2, ",\"parent\":7") "]}", CGPROP_EFORMAT, 3, "parent id 7 names no node");
    bad("{\"nodes\":[\n" NODE1 "},\n" NODE(1, "") "]}", CGPROP_EFORMAT, 3, "duplicate node id 1");
    bad("{\"nodes\":[\n" NODE1 "},\n{\"id\":2}]}", CGPROP_EFORMAT, 3, "without callFrame");
    bad("{\"nodes\":[\n{" ROOT_CF "}]}", CGPROP_EFORMAT, 2, "without id");
    bad("{\"nodes\":[\n{\"id\":1.5}]}", CGPROP_EFORMAT, 2, "node id is not an integer");
    bad("{\"nodes\":[\n{\"id\":99999999999999999999}]}", CGPROP_EOVERFLOW, 2, "too large");
    bad("{\"nodes\":[\n" NODE1 ",\"hitCount\":-1}]}", CGPROP_EFORMAT, 2, "negative hitCount");
    bad("{\"nodes\":[\n" NODE1 ",\"hitCount\":0}]}", CGPROP_EFORMAT, 2, "no sample");
    /* samples */
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[2,\n99],\"timeDeltas\":[1,1]}",
        CGPROP_EFORMAT, 5, "sample names no node: 99");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[2,2],\n\"timeDeltas\":[1]}",
        CGPROP_EFORMAT, 5, "2 samples but 1 timeDeltas");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[2,\"x\"]}", CGPROP_EFORMAT, 4,
        "samples is not an array of integers");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[2,2,2],\n"
        "\"timeDeltas\":[9223372036854775807,9223372036854775807,1]}",
        CGPROP_EOVERFLOW, 5, "overflow");
    /* The reader decodes sample ids some way ahead of the time deltas:
     * errors still come in the samples' order. An id naming no node after
     * a hundred good ones, on the line it is on; a delta that overflows
     * before a bad id, the overflow; the bad id after deltas that step
     * back (the samples are then sorted), the bad id. */
    char txt[4096];
    size_t n = (size_t)snprintf(txt, sizeof txt, "{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[");
    for (int i = 0; i < 100; i++) n += (size_t)snprintf(txt + n, sizeof txt - n, "2,");
    n += (size_t)snprintf(txt + n, sizeof txt - n, "\n\n99,2]}");
    bad(txt, CGPROP_EFORMAT, 6, "sample names no node: 99");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[2,2,2,2,99],\n"
        "\"timeDeltas\":[9223372036854775807,9223372036854775807,1,1,1]}",
        CGPROP_EOVERFLOW, 5, "overflow");
    bad("{\"nodes\":[\n" NODE1 ",\"children\":[2]},\n" NODE(2, "") "],\n\"samples\":[2,2,\n99],\n"
        "\"timeDeltas\":[5,-3,1]}",
        CGPROP_EFORMAT, 5, "sample names no node: 99");
}
END_TEST

START_TEST(frame_budget)
{
    /* A chain of 12000 nodes, each sampled once: about 12000^2 / 2 frames
     * (72 million) from under a megabyte; the reader refuses past 2^26. */
    enum { N = 12000 };
    size_t cap = (size_t)N * 80 + 64;
    char *t = malloc(cap);
    ck_assert(t != NULL);
    size_t k = (size_t)snprintf(t, cap, "{\"nodes\":[{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\"}}");
    for (int i = 2; i <= N; i++)
        k += (size_t)snprintf(t + k, cap - k, ",{\"id\":%d,\"parent\":%d,\"callFrame\":{\"functionName\":\"f%d\"}}", i,
                              i - 1, i % 7);
    k += (size_t)snprintf(t + k, cap - k, "],\"samples\":[");
    for (int i = 2; i <= N; i++) k += (size_t)snprintf(t + k, cap - k, i > 2 ? ",%d" : "%d", i);
    k += (size_t)snprintf(t + k, cap - k, "]}");
    ck_assert(k < cap);
    bad(t, CGPROP_EFORMAT, 0, "frames in all");
    free(t);
}
END_TEST

START_TEST(detect)
{
    ck_assert_uint_eq(cgprop_read_detect(hand, strlen(hand)), CGPROP_INPUT_V8);
    const char *f = "main;a;b 3\n";
    ck_assert_uint_eq(cgprop_read_detect(f, strlen(f)), CGPROP_INPUT_FOLDED);
    const char *j = "{\"a\":1}";
    ck_assert_uint_eq(cgprop_read_detect(j, strlen(j)), CGPROP_INPUT_AUTO);
    /* The node tree past the first 4 KiB, after a long samples list (keys
     * in another order): the first key says what the object is. */
    size_t n = 5000;
    char *late = malloc(n + 200);
    ck_assert_ptr_nonnull(late);
    size_t at = (size_t)sprintf(late, "{ \"samples\" : [");
    while (at < n) at += (size_t)sprintf(late + at, "2,");
    sprintf(late + at, "2],\"nodes\":[{\"id\":1,\"callFrame\":{}}]}");
    ck_assert_uint_eq(cgprop_read_detect(late, strlen(late)), CGPROP_INPUT_V8);
    memcpy(late, "{\"sample\" ", 10); /* not a key of the profile's */
    ck_assert_uint_eq(cgprop_read_detect(late, strlen(late)), CGPROP_INPUT_AUTO);
    free(late);
    static const char *const starts[] = {"{\"startTime\": 12, \"x\"", "{\"timeDeltas\":[1]", "{\"endTime\":\"x\""};
    for (int i = 0; i < 3; i++)
        ck_assert_uint_eq(cgprop_read_detect(starts[i], strlen(starts[i])), i < 2 ? CGPROP_INPUT_V8 : CGPROP_INPUT_AUTO);
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    ck_assert_int_eq(cgprop_read_buffer(hand, strlen(hand), NULL, 0, NULL, NULL, &g, &info, NULL), CGPROP_OK);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    cgprop_graph_free(g);
}
END_TEST

typedef struct fa_state {
    long budget, live;
} fa_state;
static void *fa_malloc(void *u, size_t n)
{
    fa_state *s = u;
    if (s->budget-- <= 0) return NULL;
    void *p = malloc(n);
    if (p) s->live++;
    return p;
}
static void *fa_realloc(void *u, void *p, size_t n)
{
    fa_state *s = u;
    if (s->budget-- <= 0) return NULL;
    if (!p) {
        void *q = malloc(n);
        if (q) s->live++;
        return q;
    }
    return realloc(p, n);
}
static void fa_free(void *u, void *p)
{
    if (p) ((fa_state *)u)->live--;
    free(p);
}

START_TEST(alloc_failures)
{
    static const char step_back[] = "{\"nodes\":[{\"id\":1," ROOT_CF ",\"children\":[2]},"
                                    "{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"children\":[3]},"
                                    "{\"id\":3," CF("f", "file:///a.js", 4, 10) "}],"
                                    "\"samples\":[3,2,1,3],\"timeDeltas\":[100,50,-30,5]}";
    const char *inputs[2] = {hand, step_back};
    for (int in = 0; in < 2; in++) {
        int ok = 0;
        for (long budget = 0; budget < 5000 && !ok; budget++) {
            fa_state s = {budget, 0};
            cgprop_allocator a = {fa_malloc, fa_realloc, fa_free, &s};
            cgprop_graph *g = NULL;
            cgprop_read_error err;
            cgprop_read_error_init(&err);
            int rc = cgprop_read_buffer(inputs[in], strlen(inputs[in]), "a", 1, NULL, &a, &g, NULL, &err);
            if (rc == CGPROP_OK) {
                ok = 1;
                cgprop_graph_free(g);
            } else {
                ck_assert_msg(rc == CGPROP_ENOMEM, "budget %ld: %d %s", budget, rc, err.reason);
                ck_assert(g == NULL);
                ck_assert(strstr(err.reason, "out of memory") != NULL);
            }
            ck_assert_int_eq(s.live, 0);
        }
        ck_assert(ok);
    }
}
END_TEST

START_TEST(real_profile)
{
    /* The per-function figures are checked by tests/v8/check_v8.py; here,
     * the whole of the time: the last time stamp less the first, and the
     * last sample's mean interval. */
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    const char *p = DATA "/v8/recur.cpuprofile";
    ck_assert_msg(cgprop_read_file(p, strlen(p), NULL, NULL, &g, NULL, &err) == CGPROP_OK, "%s", err.reason);
    uint64_t t = 0, n = 0;
    for (uint32_t i = 0; i < cgprop_graph_node_count(g); i++) {
        cgprop_node_row r;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, i, &r, sizeof r), CGPROP_OK);
        t += r.self;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 1, i, &r, sizeof r), CGPROP_OK);
        n += r.self;
    }
    /* From the file: Σ timeDeltas[1..] = 1724273 over 906 samples, and
     * 1724273 / 905 = 1905.3 rounds to 1905 (python3: sum(d["timeDeltas"][1:]),
     * len(d["samples"])). */
    ck_assert_uint_eq(t, 1724273 + 1905);
    ck_assert_uint_eq(n, 906);
    cgprop_graph_free(g);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("v8");
    TCase *tc = tcase_create("v8");
    tcase_add_test(tc, hand_made);
    tcase_add_test(tc, deltas_step_back);
    tcase_add_test(tc, parent_links_and_hit_counts);
    tcase_add_test(tc, random_trees_any_order);
    tcase_add_test(tc, node_spellings);
    tcase_add_test(tc, number_spellings);
    tcase_add_test(tc, json_details);
    tcase_add_test(tc, line_breaks_in_names);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, frame_budget);
    tcase_add_test(tc, detect);
    tcase_add_test(tc, alloc_failures);
    tcase_add_test(tc, real_profile);
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
