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
#include "support.h"

#define DATA CGPROP_TEST_DATA

static cgprop_graph *rd(const char *text, cgprop_read_info *info)
{
    cgprop_read_options o = tformat(CGPROP_INPUT_V8);
    return tread(text, strlen(text), "v", &o, info);
}

static void bad(const char *text, int code, uint64_t line, const char *reason)
{
    tread_bad(text, strlen(text), "s.cpuprofile", CGPROP_INPUT_V8, code, line, reason);
}

static uint64_t total(cgprop_graph *g, const char *k, uint32_t m) { return tstack_total(g, tfind(g, k), m); }

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
    ck_assert_uint_eq(tself(g, F, 0), 100);
    ck_assert_uint_eq(tself(g, G, 0), 70);
    ck_assert_uint_eq(tself(g, MAIN, 0), 0);
    ck_assert_uint_eq(total(g, MAIN, 1), 6);
    ck_assert_uint_eq(total(g, F, 1), 6);
    ck_assert_uint_eq(total(g, G, 1), 3);
    ck_assert_uint_eq(total(g, ANON, 1), 1);
    ck_assert_uint_eq(tself(g, F, 1), 4);
    ck_assert_uint_eq(total(g, PROG, 1), 1);
    ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, ANON), NULL), "(anonymous)");
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
    ck_assert_uint_eq(tself(g, G, 0), 25);
    ck_assert_uint_eq(tself(g, F, 0), 50);
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
    ck_assert_uint_eq(tself(g, F, 1), 3);
    ck_assert_uint_eq(total(g, MAIN, 0), 0);
    cgprop_graph_free(g);
    /* A sample on the root itself keeps a (root) frame. Time stamps 0 4 9:
     * root 4, main 5, root again 9 / 2 = 4.5, rounded to 5. */
    g = rd("{\"nodes\":[{\"id\":1," ROOT_CF ",\"children\":[2]},{\"id\":2," CF("main", "file:///a.js", 0, 0) "}],"
           "\"samples\":[1,2,1],\"timeDeltas\":[0,4,5],\"startTime\":0}",
           NULL);
    ck_assert_uint_eq(tself(g, "\t0:0\t(root)", 0), 9);
    ck_assert_uint_eq(tself(g, MAIN, 0), 5);
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
            ck_assert_msg(tself(g, key, 1) == es[f], "trial %d: self of %s %llu, expected %llu", trial, names[f],
                          (unsigned long long)tself(g, key, 1), (unsigned long long)es[f]);
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
        ck_assert_uint_eq(tself(g, MAIN, 1), 4);
        ck_assert_uint_eq(tself(g, F, 1), 3);
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
    ck_assert_uint_eq(tself(g, F, 0), 3 * d);
    ck_assert_uint_eq(tself(g, MAIN, 0), d);
    ck_assert_uint_eq(total(g, MAIN, 0), 4 * d);
    ck_assert_uint_eq(tself(g, F, 1), 3);
    ck_assert_uint_eq(tself(g, MAIN, 1), 1);
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
    ck_assert_uint_eq(tself(g, "script 42\t1:6\tev", 1), 1);
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
    ck_assert_uint_eq(tself(g, "file:///x .js\t1:1\ta b c d", 1), 1);
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
    bad("\"x\"", CGPROP_EFORMAT, 1, "a .cpuprofile is a JSON object");
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

/* ---- traces: Chrome's Trace Event Format, CPU profiles in Profile and
 * ProfileChunk events ---- */

#define TCF(name, line, col)                                                                                       \
    "\"callFrame\":{\"codeType\":\"JS\",\"functionName\":\"" name "\",\"scriptId\":5,\"url\":\"file:///p.js\"," \
    "\"lineNumber\":" #line ",\"columnNumber\":" #col "}"
#define TROOT "{\"callFrame\":{\"codeType\":\"other\",\"functionName\":\"(root)\",\"scriptId\":0},\"id\":1}"
#define TMAIN "file:///p.js\t1:1\tmain"
#define TF "file:///p.js\t3:13\tf"

/* One profile (pid 7, id 0x1) in two chunks, among events of other kinds
 * whose args hold arrays and objects (one even a "cpuProfile" with a node
 * that has no callFrame and a sample that is a string: it is no profile's,
 * and only checked as JSON). Chromium writes args before name; the sixth
 * event names itself first, and spells ProfileChunk with an escape. The last
 * chunk carries only endTime. Node ids 1 (root), 2 main, 3 f (in main),
 * 4 f (in f), 5 (program).
 *   chunk 1: samples 3 3 2, deltas 100 10 20
 *   chunk 2: samples 4 5 3, deltas  30 40 50
 * Time stamps 100 110 130 160 200 250 (each chunk's deltas continue the
 * last's): the samples last 10 20 30 40 50, the last the mean interval
 * (250 - 100) / 5 = 30. Stacks: main f (10), main f (20), main (30),
 * main f f (40), (program) (50), main f (30).
 *   main: total 10+20+30+40+30 = 130, 5 samples; self 30, 1
 *   f:    total 10+20+40+30 = 100 (the f f sample once), 4; self the same
 *   (program): 50, 1
 * in all 180 = 250 - 100 + 30. */
#define TRACE_EVENTS                                                                                                  \
    "{\"args\":{\"name\":\"CrRendererMain\"},\"cat\":\"__metadata\",\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":7," \
    "\"tid\":7,\"ts\":0},\n"                                                                                          \
    "{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[{\"id\":1}],\"samples\":[1,\"x\"]},\"frames\":[[1,[2,{\"x\":"   \
    "[]}]],{}]}},\"cat\":\"devtools.timeline\",\"name\":\"FunctionCall\",\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":1,"  \
    "\"dur\":2},\n"                                                                                                   \
    "{\"args\":{\"data\":{\"source\":\"Internal\",\"startTime\":1000}},\"cat\":\"disabled-by-default-v8.cpu_"        \
    "profiler\",\"id\":\"0x1\",\"name\":\"Profile\",\"ph\":\"P\",\"pid\":7,\"tid\":7,\"ts\":1000},\n"                 \
    "{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[" TROOT ",{" TCF("main", 0, 0) ",\"id\":2,\"parent\":1},"      \
    "{" TCF("f", 2, 12) ",\"id\":3,\"parent\":2}],\"samples\":[3,3,2]},\"lines\":[0,0,0],\"timeDeltas\":[100,10,20]}" \
    "},\"cat\":\"disabled-by-default-v8.cpu_profiler\",\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"ph\":\"P\","       \
    "\"pid\":7,\"tid\":8,\"ts\":1200},\n"                                                                             \
    "{\"name\":\"RunTask\",\"ph\":\"X\",\"args\":{},\"pid\":7,\"tid\":7,\"ts\":1300,\"dur\":5},\n"                   \
    "{\"name\":\"Profile\\u0043hunk\",\"id\":\"0x1\",\"pid\":7,\"tid\":8,\"ts\":1400,\"args\":{\"data\":{"            \
    "\"cpuProfile\":{\"nodes\":[{" TCF("f", 2, 12) ",\"id\":4,\"parent\":3},{\"callFrame\":{\"codeType\":\"other\","  \
    "\"functionName\":\"(program)\",\"scriptId\":0},\"id\":5,\"parent\":1}],\"samples\":[4,5,3]},\"timeDeltas\":"   \
    "[30,40,50]}}},\n"                                                                                                \
    "{\"args\":{\"data\":{\"endTime\":1500}},\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"ph\":\"P\",\"pid\":7,"       \
    "\"tid\":8,\"ts\":1500}"

static void check_two_chunks(cgprop_graph *g)
{
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(total(g, TMAIN, 0), 130);
    ck_assert_uint_eq(total(g, TMAIN, 1), 5);
    ck_assert_uint_eq(tself(g, TMAIN, 0), 30);
    ck_assert_uint_eq(tself(g, TMAIN, 1), 1);
    ck_assert_uint_eq(total(g, TF, 0), 100);
    ck_assert_uint_eq(total(g, TF, 1), 4);
    ck_assert_uint_eq(tself(g, TF, 0), 100);
    ck_assert_uint_eq(total(g, PROG, 0), 50);
    ck_assert_uint_eq(total(g, PROG, 1), 1);
}

START_TEST(trace_two_chunks)
{
    /* DevTools' "Save trace" puts the metadata first; its keys, like any
     * but traceEvents, are skipped whatever they hold. */
    static const char obj[] = "{\"metadata\": {\n  \"source\": \"DevTools\", \"nodes\": [1], \"samples\": [{}]\n},\n"
                              "\"traceEvents\": [\n" TRACE_EVENTS "]}\n";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(obj, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    ck_assert_uint_eq(info.lines, 12);
    check_two_chunks(g);
    cgprop_graph_free(g);
    /* The same events as a bare array, closed, cut short, or cut short
     * after a comma (the Trace Event Format allows the last two). */
    static const char *const arrays[] = {"[\n" TRACE_EVENTS "\n]", "[\n" TRACE_EVENTS "\n", "[\n" TRACE_EVENTS ",\n"};
    for (int i = 0; i < 3; i++) {
        g = rd(arrays[i], NULL);
        check_two_chunks(g);
        cgprop_graph_free(g);
    }
    /* The Trace Event Format's own "samples" (objects) before traceEvents,
     * and keys after it named like a .cpuprofile's: skipped. */
    static const char late[] = "{\"samples\":[{\"tid\":1}],\"traceEvents\":[" TRACE_EVENTS "],\"nodes\":5,"
                               "\"timeDeltas\":{},\"head\":{}}";
    g = rd(late, NULL);
    check_two_chunks(g);
    cgprop_graph_free(g);
}
END_TEST

#define TP(pid, tid, id, src)                                                                                \
    "{\"args\":{\"data\":{" src "\"startTime\":0}},\"id\":\"" id "\",\"name\":\"Profile\",\"pid\":" #pid \
    ",\"tid\":" #tid "}"
#define TC(pid, id, src, nodes, samples, deltas)                                                                \
    "{\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[" TROOT nodes "],\"samples\":[" samples "]}," src         \
    "\"timeDeltas\":[" deltas "]}},\"id\":\"" id "\",\"name\":\"ProfileChunk\",\"pid\":" #pid ",\"tid\":99}"
#define TN(id, parent, name) ",{" TCF(name, 0, 0) ",\"id\":" #id ",\"parent\":" #parent "}"
#define FN(name) "file:///p.js\t1:1\t" name

/* Several profiles. Every one numbers its nodes from 1 (node 2 is a, b or
 * c depending on the profile), and id 0x1 is used in two processes.
 *   pid 7 tid 7: 0x3 (source Inspector, console.profile's) before 0x1
 *     (Internal, the Performance panel's): DevTools shows 0x1 only. Had 0x3
 *     been read, a would have 3 samples more.
 *     0x1: samples a a, deltas 5 10: a 10, then the mean 10: a 20, 2.
 *   pid 7 tid 9 (a worker): 0x2, samples b b, deltas 7 3: b 3 + 3 = 6, 2.
 *   pid 8 tid 8: 0x1 again, another process's: nodes 2 c, 3 a (in c);
 *     samples 3 2, deltas 4 6: c a lasts 6, c the mean 6.
 * Threads add up: a total 20 + 6 = 26 and 3 samples, self the same;
 * b 6 and 2; c total 12 and 2, self 6 and 1. */
START_TEST(trace_profiles_and_threads)
{
    static const char t[] =
        "[" TP(7, 7, "0x3", "\"source\":\"Inspector\",") ",\n" TC(7, "0x3", "", TN(2, 1, "a"), "2,2,2", "1,1,1") ",\n"
        TP(7, 7, "0x1", "\"source\":\"Internal\",") ",\n" TC(7, "0x1", "", TN(2, 1, "a"), "2,2", "5,10") ",\n"
        TP(7, 9, "0x2", "") ",\n" TC(7, "0x2", "", TN(2, 1, "b"), "2,2", "7,3") ",\n"
        TP(8, 8, "0x1", "") ",\n" TC(8, "0x1", "", TN(2, 1, "c") TN(3, 2, "a"), "3,2", "4,6") "]";
    cgprop_graph *g = rd(t, NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(total(g, FN("a"), 0), 26);
    ck_assert_uint_eq(total(g, FN("a"), 1), 3);
    ck_assert_uint_eq(tself(g, FN("a"), 0), 26);
    ck_assert_uint_eq(total(g, FN("b"), 0), 6);
    ck_assert_uint_eq(total(g, FN("b"), 1), 2);
    ck_assert_uint_eq(total(g, FN("c"), 0), 12);
    ck_assert_uint_eq(total(g, FN("c"), 1), 2);
    ck_assert_uint_eq(tself(g, FN("c"), 0), 6);
    ck_assert_uint_eq(tself(g, FN("c"), 1), 1);
    cgprop_graph_free(g);
}
END_TEST

static bool has_fn(cgprop_graph *g, const char *k)
{
    uint32_t v;
    return cgprop_graph_find_node(g, k, strlen(k), &v) == CGPROP_OK;
}

/* Which profile a thread counts, one sample each (a lone sample lasts 0):
 *   9/9:  0x1 SelfProfiling (d), 0x2 without source (e): neither is
 *         Internal nor Inspector, so the thread's first: d.
 *   9/10: 0x3 SelfProfiling (g), 0x4 whose chunk says Inspector (h): h.
 *   9/11: 0x1 again, after 9/9's 0x1 ended: a new profile, its chunk (k)
 *         its own, not 9/9's (which would then count k too). */
START_TEST(trace_profile_choice)
{
    static const char t[] =
        "{\"traceEvents\":[" TP(9, 9, "0x1", "\"source\":\"SelfProfiling\",") "," TC(9, "0x1", "", TN(2, 1, "d"), "2",
                                                                                    "1") ","
        TP(9, 9, "0x2", "") "," TC(9, "0x2", "", TN(2, 1, "e"), "2", "1") ","
        TP(9, 10, "0x3", "\"source\":\"SelfProfiling\",") "," TC(9, "0x3", "", TN(2, 1, "g"), "2", "1") ","
        TP(9, 10, "0x4", "") "," TC(9, "0x4", "\"source\":\"Inspector\",", TN(2, 1, "h"), "2", "1") ","
        TP(9, 11, "0x1", "") "," TC(9, "0x1", "", TN(2, 1, "k"), "2", "1") "]}";
    cgprop_graph *g = rd(t, NULL);
    ck_assert(has_fn(g, FN("d")));
    ck_assert(!has_fn(g, FN("e")));
    ck_assert(!has_fn(g, FN("g")));
    ck_assert(has_fn(g, FN("h")));
    ck_assert(has_fn(g, FN("k")));
    ck_assert_uint_eq(total(g, FN("d"), 1), 1);
    ck_assert_uint_eq(total(g, FN("k"), 1), 1);
    ck_assert_uint_eq(total(g, FN("d"), 0), 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(trace_malformed)
{
    bad("1", CGPROP_EFORMAT, 1, "a .cpuprofile is a JSON object, a trace an object or an array");
    bad("[1]", CGPROP_EFORMAT, 1, "a trace event is not an object");
    bad("{\"traceEvents\":{}}", CGPROP_EFORMAT, 1, "traceEvents is not an array");
    bad("{\"nodes\":[],\n\"traceEvents\":[]}", CGPROP_EFORMAT, 2, "both nodes and traceEvents");
    bad("{\"traceEvents\":[\n{\"name\":\"x\"}\n]}", CGPROP_EFORMAT, 3, "no Profile or CpuProfile event");
    bad("[\n{\"name\":\"x\"},\n{\"name\":\"y\",\"args\":{\"a\":\"\\q\"}}]", CGPROP_EFORMAT, 3, "bad escape");
    bad("[{\"name\":\"x\"}] x", CGPROP_EFORMAT, 1, "bytes after the end");
    bad("[{\"name\":\"x\"},,", CGPROP_EFORMAT, 1, "expected a JSON value");
    /* A chunk with no Profile event before it, of an id no Profile names,
     * of another process's profile, or before its Profile event. */
    static const char *const orphans[] = {
        "[\n" TC(7, "0x1", "", TN(2, 1, "a"), "2", "1") "]",
        "[" TP(7, 7, "0x1", "") ",\n" TC(7, "0x9", "", TN(2, 1, "a"), "2", "1") "]",
        "[" TP(7, 7, "0x1", "") ",\n" TC(8, "0x1", "", TN(2, 1, "a"), "2", "1") "]",
        "[\n" TC(7, "0x1", "", TN(2, 1, "a"), "2", "1") ",\n" TP(7, 7, "0x1", "") "]",
    };
    for (int i = 0; i < 4; i++) bad(orphans[i], CGPROP_EFORMAT, 2, "with no Profile event before it");
    /* Unknown parent; a sample of a node only another profile has; the
     * lengths of a chunk's samples and deltas; a chunk's args. */
    bad("[" TP(7, 7, "0x1", "") ",\n" TC(7, "0x1", "", TN(2, 9, "a"), "2", "1") "]", CGPROP_EFORMAT, 2,
        "parent id 9 names no node");
    bad("[" TP(7, 7, "0x1", "") "," TC(7, "0x1", "", TN(2, 1, "a") TN(3, 2, "b"), "3", "1") ",\n"
        TP(7, 9, "0x2", "") "," TC(7, "0x2", "", TN(2, 1, "a"), "2,\n3", "1,1") "]",
        CGPROP_EFORMAT, 3, "sample names no node: 3");
    bad("[" TP(7, 7, "0x1", "") ",\n" TC(7, "0x1", "", TN(2, 1, "a"), "2,2", "1") "]", CGPROP_EFORMAT, 2,
        "2 samples but 1 timeDeltas in a ProfileChunk");
    bad("[" TP(7, 7, "0x1", "") ",\n{\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"pid\":7,\"args\":{\"data\":{"
        "\"cpuProfile\":{\"samples\":[1]}}}}]",
        CGPROP_EFORMAT, 2, "1 samples but 0 timeDeltas");
    bad("[" TP(7, 7, "0x1", "") ",\n{\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"pid\":7,\"args\":[]}]", CGPROP_EFORMAT,
        2, "args is not an object");
    bad("[" TP(7, 7, "0x1", "") ",\n{\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"pid\":7,\"args\":{\"data\":{"
        "\"cpuProfile\":{\"nodes\":[{\"id\":1}]}}}}]",
        CGPROP_EFORMAT, 2, "without callFrame");
    bad("[" TP(7, 7, "0x1", "") ",\n{\"id\":\"0x1\",\"name\":\"ProfileChunk\",\"pid\":7,\"args\":{\"data\":{"
        "\"timeDeltas\":[1,\n1.5]}}}]",
        CGPROP_EFORMAT, 3, "timeDeltas is not an array of integers");
    /* A Profile without chunks. (With nodes but no samples, as a
     * .cpuprofile with no hits, its functions are read, costing 0.) */
    bad("[" TP(7, 7, "0x1", "") "]", CGPROP_EFORMAT, 1, "no sample in the trace's CPU profiles");
    cgprop_graph *g = rd("[" TP(7, 7, "0x1", "") "," TC(7, "0x1", "", TN(2, 1, "a"), "", "") "]", NULL);
    ck_assert_uint_eq(total(g, FN("a"), 1), 0);
    cgprop_graph_free(g);
    /* Not a trace after all: the objects of "samples" were no profile's. */
    bad("{\"nodes\":[\n" NODE1 "}],\n\"samples\":[\n{}]}", CGPROP_EFORMAT, 4, "samples is not an array of integers");
}
END_TEST

START_TEST(trace_detect)
{
    static const char *const yes[] = {
        "{\"traceEvents\":[\n{\"args\":{},\"name\":\"x\",\"ph\":\"M\"}",
        "\xef\xbb\xbf {\n\"metadata\": {\n  \"source\": \"DevTools\"",
        "[\n{\"args\":{\"name\":\"swapper\"},\"cat\":\"__metadata\",\"name\":\"thread_name\",\"ph\":\"M\"",
        "[ { \"pid\":1, \"ph\" : \"X\" } ]",
    };
    for (int i = 0; i < 4; i++) ck_assert_uint_eq(cgprop_read_detect(yes[i], strlen(yes[i])), CGPROP_INPUT_V8);
    static const char *const no[] = {"[1,2]", "[{\"a\":1}]", "[{}]", "{\"traceEvents\":{}}", "{\"metadata\":[]}",
                                     "[unknown];main 3\n"};
    for (int i = 0; i < 6; i++) ck_assert_uint_ne(cgprop_read_detect(no[i], strlen(no[i])), CGPROP_INPUT_V8);
    /* Read without naming the format. */
    static const char obj[] = "{\"traceEvents\":[" TRACE_EVENTS "]}";
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_read_buffer(obj, strlen(obj), NULL, 0, NULL, NULL, &g, NULL, NULL), CGPROP_OK);
    check_two_chunks(g);
    cgprop_graph_free(g);
}
END_TEST

/* ---- traces: a whole CPU profile in one CpuProfile event ---- */

/* A CpuProfile event: a .cpuprofile in args.data.cpuProfile. DevTools makes
 * one (ph "X", pid 1, id "0x1") when it opens a .cpuprofile; older DevTools
 * recorded each thread's profile so (ph "I", the thread's pid and tid, no
 * id). */
#define TCPU(pid, tid, ph, prof)                                                                                   \
    "{\"args\":{\"data\":{\"cpuProfile\":" prof "}},\"cat\":\"disabled-by-default-devtools.timeline\","          \
    "\"name\":\"CpuProfile\",\"ph\":\"" ph "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":0}"
#define CROOT(kids) "{\"id\":1," ROOT_CF ",\"children\":[" kids "]}"
#define W "file:///a.js\t31:1\tw"

/* Two threads of one process, each with its CpuProfile event (no id, as
 * older DevTools recorded a page's main thread and a worker).
 *   tid 1, children lists, startTime 5000: 1 (root) -> 2 main -> 3 f -> 4 f;
 *     samples 3 4 4 2, deltas 1000 10 20 30: time stamps 6000 6010 6030
 *     6060, so 10, 20, 30 and the mean (6060 - 6000) / 3 = 20.
 *     main f 10, main f f 20+30, main 20.
 *   tid 2, parent links, no startTime: 1 (root) -> 2 w -> 3 f; samples
 *     3 3 2, deltas 100 40 -10: time stamps 100 140 130, in time order
 *     100 (3) 130 (2) 140 (3): 30, 10 and the mean (140 - 100) / 2 = 20.
 *     w f 30+20, w 10.
 * The threads add up:
 *   main: total 10+50+20 = 80, 4 samples; self 20, 1
 *   f:    total 60 + 50 = 110, 3 + 2 = 5; self the same (never a leaf's
 *         caller but through itself)
 *   w:    total 50+10 = 60, 3; self 10, 1
 * in all 80 + 60 = 140. */
#define CPU_T1                                                                                              \
    TCPU(1, 1, "I",                                                                                         \
         "{\"nodes\":[" CROOT("2") ",{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"children\":[3]},\n"  \
         "{\"id\":3," CF("f", "file:///a.js", 4, 10) ",\"children\":[4]},{\"id\":4,"                         \
         CF("f", "file:///a.js", 4, 10) "}],\"startTime\":5000,\"endTime\":6100,\"samples\":[3,4,4,2],"      \
         "\"timeDeltas\":[1000,10,20,30]}")
#define CPU_T2                                                                                        \
    TCPU(1, 2, "X",                                                                                   \
         "{\"timeDeltas\":[100,40,-10],\"samples\":[3,3,2],\"nodes\":[{\"id\":3,\"parent\":2,"       \
         CF("f", "file:///a.js", 4, 10) "},{\"id\":1," ROOT_CF "},\n{\"id\":2,\"parent\":1,"          \
         CF("w", "file:///a.js", 30, 0) "}]}")

static void check_cpu_threads(cgprop_graph *g)
{
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(total(g, MAIN, 0), 80);
    ck_assert_uint_eq(total(g, MAIN, 1), 4);
    ck_assert_uint_eq(tself(g, MAIN, 0), 20);
    ck_assert_uint_eq(tself(g, MAIN, 1), 1);
    ck_assert_uint_eq(total(g, F, 0), 110);
    ck_assert_uint_eq(total(g, F, 1), 5);
    ck_assert_uint_eq(tself(g, F, 0), 110);
    ck_assert_uint_eq(tself(g, F, 1), 5);
    ck_assert_uint_eq(total(g, W, 0), 60);
    ck_assert_uint_eq(total(g, W, 1), 3);
    ck_assert_uint_eq(tself(g, W, 0), 10);
    ck_assert_uint_eq(tself(g, W, 1), 1);
}

START_TEST(trace_cpu_profile_threads)
{
    /* As older DevTools saved a recording: a bare array, its metadata
     * events first, the profiles last. */
    static const char arr[] = "[{\"args\":{\"data\":{\"sessionId\":\"1\"}},\"cat\":\"disabled-by-default-"
                              "devtools.timeline\",\"name\":\"TracingStartedInPage\",\"ph\":\"M\",\"pid\":1,"
                              "\"tid\":1,\"ts\":0},\n" CPU_T1 ",\n" CPU_T2 "]";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(arr, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    check_cpu_threads(g);
    cgprop_graph_free(g);
    /* Either event alone, in a trace object: its own thread's figures. */
    g = rd("{\"traceEvents\":[" CPU_T2 "],\"metadata\":{\"dataOrigin\":\"CPUProfile\"}}", NULL);
    ck_assert_uint_eq(total(g, W, 0), 60);
    ck_assert_uint_eq(total(g, F, 0), 50);
    ck_assert_uint_eq(total(g, F, 1), 2);
    ck_assert(!has_fn(g, MAIN));
    cgprop_graph_free(g);
    /* Read without naming the format. */
    g = NULL;
    ck_assert_int_eq(cgprop_read_buffer(arr, strlen(arr), NULL, 0, NULL, NULL, &g, NULL, NULL), CGPROP_OK);
    check_cpu_threads(g);
    cgprop_graph_free(g);
}
END_TEST

/* A CpuProfile of one sample (lasting 0) of the function name (key
 * FN(name)). */
#define TCPU1(pid, tid, name)                                                                                     \
    TCPU(pid, tid, "X",                                                                                           \
         "{\"nodes\":[" CROOT("2") ",{\"id\":2," TCF(name, 0, 0) "}],\"samples\":[2],\"timeDeltas\":[1]}")
#define TCPUID(pid, tid, id, name)                                                                               \
    "{\"name\":\"CpuProfile\",\"id\":\"" id "\",\"pid\":" #pid ",\"tid\":" #tid ",\"args\":{\"data\":{"         \
    "\"source\":\"Internal\",\"cpuProfile\":{\"nodes\":[" CROOT("2") ",{\"id\":2," TCF(name, 0, 0) "}],"        \
    "\"samples\":[2]}}}}"

/* A CpuProfile event beside Profile events of the same thread: a profile
 * like the others, without a source (DevTools takes none from it), so it
 * counts when it is the thread's first and no profile of the thread is
 * Internal or Inspector. One sample each; process 9:
 *   tid 1: CpuProfile (m), then Profile 0x1 without source (n): m.
 *   tid 2: Profile 0x2 without source (p), then CpuProfile (q): p.
 *   tid 3: CpuProfile (r), Profile 0x3 Internal (s): s.
 *   tid 4: CpuProfile (t), Profile 0x4 whose chunk says Inspector (u): u.
 *   tid 5: CpuProfile (v), Profile 0x5 SelfProfiling (w): v.
 *   tid 6: two CpuProfile events (x, then y): x.
 *   tid 7: CpuProfile with id 0x7 and a "source" of Internal, which
 *          DevTools does not read (z); tid 8: Profile 0x7 (zz), whose
 *          chunk is its own, not the CpuProfile's: both threads count. */
START_TEST(trace_cpu_profile_choice)
{
    /* In pieces: C99 compilers need take no longer string literal. */
    static const char *const part[] = {
        "[" TCPU1(9, 1, "m") "," TP(9, 1, "0x1", "") "," TC(9, "0x1", "", TN(2, 1, "n"), "2", "1") ",\n",
        TP(9, 2, "0x2", "") "," TC(9, "0x2", "", TN(2, 1, "p"), "2", "1") "," TCPU1(9, 2, "q") ",\n",
        TCPU1(9, 3, "r") "," TP(9, 3, "0x3", "\"source\":\"Internal\",") ","
        TC(9, "0x3", "", TN(2, 1, "s"), "2", "1") ",\n",
        TCPU1(9, 4, "t") "," TP(9, 4, "0x4", "") "," TC(9, "0x4", "\"source\":\"Inspector\",", TN(2, 1, "u"), "2", "1")
        ",\n",
        TCPU1(9, 5, "v") "," TP(9, 5, "0x5", "\"source\":\"SelfProfiling\",") ","
        TC(9, "0x5", "", TN(2, 1, "w"), "2", "1") ",\n",
        TCPU1(9, 6, "x") "," TCPU1(9, 6, "y") ",\n",
        TCPUID(9, 7, "0x7", "z") "," TP(9, 8, "0x7", "") "," TC(9, "0x7", "", TN(2, 1, "zz"), "2", "1") "]",
    };
    char t[8192];
    size_t len = 0;
    for (size_t i = 0; i < sizeof part / sizeof part[0]; i++) {
        size_t k = strlen(part[i]);
        ck_assert_uint_lt(len + k, sizeof t);
        memcpy(t + len, part[i], k + 1);
        len += k;
    }
    cgprop_graph *g = rd(t, NULL);
    static const char *const in[] = {FN("m"), FN("p"), FN("s"), FN("u"), FN("v"), FN("x"), FN("z"), FN("zz")};
    static const char *const out[] = {FN("n"), FN("q"), FN("r"), FN("t"), FN("w"), FN("y")};
    for (int i = 0; i < 8; i++) {
        ck_assert_msg(has_fn(g, in[i]), "%s not counted", in[i]);
        ck_assert_uint_eq(total(g, in[i], 1), 1);
        ck_assert_uint_eq(total(g, in[i], 0), 0);
    }
    for (int i = 0; i < 6; i++) ck_assert_msg(!has_fn(g, out[i]), "%s counted", out[i]);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 8);
    cgprop_graph_free(g);
}
END_TEST

/* The profile in a CpuProfile event is read as a .cpuprofile: without
 * samples, the hit counts give the samples and no time; samples without
 * deltas have no time; no nodes add nothing. */
START_TEST(trace_cpu_profile_rules)
{
    /* 1 (root) -> 2 main (hitCount 3) -> 3 f (2): main total 5, self 3. */
    static const char hits[] =
        "[" TCPU(3, 3, "X", "{\"nodes\":[" CROOT("2") ",{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"hitCount\":3,"
                            "\"children\":[3]},{\"id\":3," CF("f", "file:///a.js", 4, 10) ",\"hitCount\":2}],"
                            "\"timeDeltas\":[5,5,5,5,5,5,5]}") "]";
    cgprop_graph *g = rd(hits, NULL);
    ck_assert_uint_eq(total(g, MAIN, 1), 5);
    ck_assert_uint_eq(tself(g, MAIN, 1), 3);
    ck_assert_uint_eq(total(g, F, 1), 2);
    ck_assert_uint_eq(total(g, MAIN, 0), 0);
    cgprop_graph_free(g);
    /* Samples 3 3 2 without deltas (the hit counts, which say otherwise,
     * ignored): main total 3, self 1; f 2; no time. */
    static const char nodeltas[] =
        "[" TCPU(3, 3, "X", "{\"samples\":[3,3,2],\"nodes\":[" CROOT("2") ",{\"id\":2,"
                            CF("main", "file:///a.js", 0, 0) ",\"hitCount\":9,\"children\":[3]},{\"id\":3,"
                            CF("f", "file:///a.js", 4, 10) "}]}") "]";
    g = rd(nodeltas, NULL);
    ck_assert_uint_eq(total(g, MAIN, 1), 3);
    ck_assert_uint_eq(tself(g, MAIN, 1), 1);
    ck_assert_uint_eq(total(g, F, 1), 2);
    ck_assert_uint_eq(total(g, MAIN, 0), 0);
    cgprop_graph_free(g);
    /* An empty node list adds nothing (DevTools shows no profile for it);
     * alone, the trace has no sample. */
    static const char empty[] = "[" TCPU(3, 3, "X", "{\"nodes\":[],\"samples\":[],\"timeDeltas\":[]}") "]";
    bad(empty, CGPROP_EFORMAT, 1, "no sample in the trace's CPU profiles");
    g = rd("[" TCPU(3, 3, "X", "{\"nodes\":[],\"samples\":[],\"timeDeltas\":[]}") "," CPU_T2 "]", NULL);
    ck_assert_uint_eq(total(g, W, 0), 60);
    cgprop_graph_free(g);
}
END_TEST

/* An event's args are read as they come when its name comes first, and
 * again when a later name (a key given twice) changes what they are: the
 * last name and the last args count, as in any JSON object read here. */
#define ARGS1(name) "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":[" CROOT("2") ",{\"id\":2," TCF(name, 0, 0) \
    "}],\"samples\":[2,2],\"timeDeltas\":[1,4]}}}"
START_TEST(trace_cpu_profile_key_order)
{
    /* a and b: one CpuProfile each, 2 samples, the first lasting 4 and the
     * last the mean 4: 8 in all. c's args are a ProfileChunk's, read for the
     * CpuProfile its last name makes it (its timeDeltas inside). d's name is
     * overridden: no profile. e's args are given twice, the second counts. */
    static const char t[] = "[{\"name\":\"CpuProfile\",\"pid\":1,\"tid\":1," ARGS1("a") "},\n"
                            "{\"pid\":1,\"tid\":2," ARGS1("b") ",\"name\":\"CpuProfile\"},\n"
                            "{\"name\":\"ProfileChunk\",\"pid\":1,\"tid\":3," ARGS1("c")
                            ",\"name\":\"CpuProfile\"},\n"
                            "{\"name\":\"CpuProfile\",\"pid\":1,\"tid\":4," ARGS1("d") ",\"name\":\"x\"},\n"
                            "{\"name\":\"CpuProfile\",\"pid\":1,\"tid\":5," ARGS1("d") "," ARGS1("e") "}]";
    cgprop_graph *g = rd(t, NULL);
    static const char *const in[] = {FN("a"), FN("b"), FN("c"), FN("e")};
    for (int i = 0; i < 4; i++) {
        ck_assert_uint_eq(total(g, in[i], 0), 8);
        ck_assert_uint_eq(total(g, in[i], 1), 2);
    }
    ck_assert(!has_fn(g, FN("d")));
    cgprop_graph_free(g);
}
END_TEST

START_TEST(trace_cpu_profile_malformed)
{
    bad("[\n" TCPU(1, 1, "X", "[]") "]", CGPROP_EFORMAT, 2, "cpuProfile is not an object");
    bad("[\n" TCPU(1, 1, "X", "{\"nodes\":{}}") "]", CGPROP_EFORMAT, 2, "nodes is not an array");
    /* No profile in the event: no args, no cpuProfile, no nodes. */
    static const char *const none[] = {
        "[{\"name\":\"x\"},\n{\"name\":\"CpuProfile\",\"ph\":\"X\",\"pid\":1,\"tid\":1}]",
        "[{\"name\":\"x\"},\n{\"name\":\"CpuProfile\",\"args\":{\"data\":{\"timeDeltas\":[1]}}}]",
        "[{\"name\":\"x\"},\n" TCPU(1, 1, "X", "{\"samples\":[],\"timeDeltas\":[]}") "]",
    };
    for (int i = 0; i < 3; i++)
        bad(none[i], CGPROP_EFORMAT, 2, "a CpuProfile event without args.data.cpuProfile.nodes");
    bad("[" TCPU(1, 1, "X", "{\"nodes\":[" CROOT("") "],\"samples\":[1,1],\n\"timeDeltas\":[1]}") "]",
        CGPROP_EFORMAT, 2, "2 samples but 1 timeDeltas in a CpuProfile");
    bad("[" TCPU(1, 1, "X", "{\"samples\":[1],\"timeDeltas\":[1],\n\"head\":{\"id\":1}}") "]", CGPROP_EFORMAT, 2,
        "a CpuProfile in the legacy \"head\" format is not read");
    bad("[" TCPU(1, 1, "X", "{\"nodes\":[" CROOT("") "],\n\"startTime\":1.5}") "]", CGPROP_EFORMAT, 2,
        "startTime is not an integer");
    bad("[" TCPU(1, 1, "X", "{\"nodes\":[" CROOT("") "],\"samples\":[1,\n7],\"timeDeltas\":[1,1]}") "]",
        CGPROP_EFORMAT, 2, "sample names no node: 7");
    bad("[" TCPU(1, 1, "X", "{\"nodes\":[" CROOT("") ",\n{\"id\":2,\"parent\":9," CF("f", "file:///a.js", 4, 10)
                            "}],\"samples\":[2],\"timeDeltas\":[1]}") "]",
        CGPROP_EFORMAT, 2, "parent id 9 names no node");
    /* The time stamps count from startTime, as a .cpuprofile's. */
    bad("[" TCPU(1, 1, "X", "{\"nodes\":[" CROOT("") "],\"startTime\":9223372036854775800,\"samples\":[1,1],"
                            "\n\"timeDeltas\":[1,10]}") "]",
        CGPROP_EOVERFLOW, 2, "time stamps overflow 64 bits");
    /* A chunk goes to a Profile event, never to a CpuProfile of its id. */
    bad("[" TCPUID(7, 7, "0x1", "a") ",\n" TC(7, "0x1", "", TN(2, 1, "a"), "2", "1") "]", CGPROP_EFORMAT, 2,
        "a ProfileChunk of profile \"0x1\" of process 7 with no Profile event before it");
}
END_TEST

/* ---- heap profiles: V8's sampling heap profiler (node --heap-prof,
 * DevTools' "Allocation sampling"), the tree nested in "head" ---- */

#define HCF(name, line, col) CF(name, "file:///a.js", line, col)
/* A node: call frame, selfSize, id, then its children, as V8 writes it. */
#define HN(cf, size, nid) "{" cf ",\"selfSize\":" #size ",\"id\":" #nid ",\"children\":["
#define HEND "]}"
#define HROOT HN(ROOT_CF, 0, 1)
#define HSAMPLE(nid, size, ord) "{\"size\":" #size ",\"nodeId\":" #nid ",\"ordinal\":" #ord "}"

/* The tree, selfSize in brackets, f and g keyed as in the .cpuprofile
 * tests (f 5:11, g 10:3):
 *   1 (root) [0]
 *     2 main [10]
 *       3 f [100]
 *         4 f [200]              self recursion
 *           5 g [40]
 *             6 f [8]            f again, through g
 *       7 g [0]                  g on another path
 *         8 h [1000]
 *     9 (V8 API) [560]           VM state, no JavaScript on the stack
 *     10 even [3]
 *       11 odd [5]               mutual recursion
 *         12 even [7]
 * Each node with bytes is one stack, weighed by its own selfSize:
 *   main: self 10, total 10+100+200+40+8+1000 = 1358
 *   f: self 100+200+8 = 308, total 100+200+40+8 = 348 (node 4's stack has
 *      f twice, node 6's too: each counted once)
 *   g: self 40, total 40+8+1000 = 1048; h: 1000 and 1000
 *   (V8 API): 560 and 560
 *   even: self 3+7 = 10, total 3+5+7 = 15; odd: self 5, total 5+7 = 12
 *   in all 10+100+200+40+8+1000+560+3+5+7 = 1933.
 * Samples name nodes 3, 4, 4, 6, 8, 8, 8, 9, 12 and 99, which is no node of
 * the tree (V8 writes such samples: allocations made while it built the
 * profile), so not counted:
 *   f: self 1+2+1 = 4, total 4 (nodes 3, 4, 6); main total 1+2+1+3 = 7,
 *   self 0; g total 1+3 = 4 (nodes 6, 8), self 0; h 3 and 3;
 *   (V8 API) 1; even total 1 (node 12), self 1; odd total 1, self 0;
 *   9 in all. */
#define HEAP_TREE                                                                                    \
    "{\"head\":\n" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) "\n" HN(HCF("f", 4, 10), 100, 3)       \
    "\n" HN(HCF("f", 4, 10), 200, 4) "\n" HN(HCF("g", 9, 2), 40, 5) "\n" HN(HCF("f", 4, 10), 8, 6) \
    HEND HEND HEND HEND ",\n" HN(HCF("g", 9, 2), 0, 7) "\n" HN(HCF("h", 30, 0), 1000, 8) HEND HEND   \
    HEND ",\n" HN("\"callFrame\":{\"functionName\":\"(V8 API)\",\"scriptId\":\"0\",\"url\":\"\","      \
                  "\"lineNumber\":-1,\"columnNumber\":-1}", 560, 9) HEND ",\n"                        \
    HN(HCF("even", 40, 0), 3, 10) HN(HCF("odd", 41, 0), 5, 11) HN(HCF("even", 40, 0), 7, 12)         \
    HEND HEND HEND "]}"
#define HEAP_SAMPLES                                                                                         \
    "\"samples\":[" HSAMPLE(3, 100, 1) "," HSAMPLE(4, 64, 2) "," HSAMPLE(4, 136, 3) "," HSAMPLE(6, 8, 4) \
    ",\n" HSAMPLE(8, 500, 5) "," HSAMPLE(8, 250, 6) "," HSAMPLE(8, 250, 7) "," HSAMPLE(9, 560, 8)        \
    ",\n" HSAMPLE(12, 7, 9) "," HSAMPLE(99, 4096, 10) "]"
static const char heap_hand[] = HEAP_TREE ",\n" HEAP_SAMPLES "}\n";

#define H "file:///a.js\t31:1\th"
#define EVEN "file:///a.js\t41:1\teven"
#define ODD "file:///a.js\t42:1\todd"
#define V8API "\t0:0\t(V8 API)"

static void check_heap_hand(cgprop_graph *g, bool samples)
{
    /* (root) has no bytes of its own: no function */
    ck_assert_uint_eq(cgprop_graph_node_count(g), 7);
    ck_assert_uint_eq(tself(g, MAIN, 0), 10);
    ck_assert_uint_eq(total(g, MAIN, 0), 1358);
    ck_assert_uint_eq(tself(g, F, 0), 308);
    ck_assert_uint_eq(total(g, F, 0), 348);
    ck_assert_uint_eq(tself(g, G, 0), 40);
    ck_assert_uint_eq(total(g, G, 0), 1048);
    ck_assert_uint_eq(total(g, H, 0), 1000);
    ck_assert_uint_eq(total(g, V8API, 0), 560);
    ck_assert_uint_eq(tself(g, EVEN, 0), 10);
    ck_assert_uint_eq(total(g, EVEN, 0), 15);
    ck_assert_uint_eq(tself(g, ODD, 0), 5);
    ck_assert_uint_eq(total(g, ODD, 0), 12);
    uint64_t all = 0, n = 0;
    for (uint32_t i = 0; i < cgprop_graph_node_count(g); i++) {
        cgprop_node_row r;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 0, i, &r, sizeof r), CGPROP_OK);
        all += r.self;
        ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, 1, i, &r, sizeof r), CGPROP_OK);
        n += r.self;
    }
    ck_assert_uint_eq(all, 1933);
    if (!samples) {
        ck_assert_uint_eq(n, 0);
        return;
    }
    ck_assert_uint_eq(n, 9);
    ck_assert_uint_eq(tself(g, F, 1), 4);
    ck_assert_uint_eq(total(g, F, 1), 4);
    ck_assert_uint_eq(tself(g, MAIN, 1), 0);
    ck_assert_uint_eq(total(g, MAIN, 1), 7);
    ck_assert_uint_eq(tself(g, G, 1), 0);
    ck_assert_uint_eq(total(g, G, 1), 4);
    ck_assert_uint_eq(total(g, H, 1), 3);
    ck_assert_uint_eq(total(g, V8API, 1), 1);
    ck_assert_uint_eq(tself(g, EVEN, 1), 1);
    ck_assert_uint_eq(total(g, EVEN, 1), 1);
    ck_assert_uint_eq(tself(g, ODD, 1), 0);
    ck_assert_uint_eq(total(g, ODD, 1), 1);
}

START_TEST(heap_hand_made)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(heap_hand, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_eq(info.lines, 15); /* 14 line breaks */
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "bytes");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "samples");
    check_heap_hand(g, true);
    cgprop_graph_free(g);
    /* Without samples (or with none): bytes alone, samples 0 everywhere. */
    g = rd(HEAP_TREE "}", NULL);
    check_heap_hand(g, false);
    cgprop_graph_free(g);
    g = rd(HEAP_TREE ",\"samples\":[ ]}", NULL);
    check_heap_hand(g, false);
    cgprop_graph_free(g);
    /* Samples before the tree, and keys no heap profile has (DevTools'
     * "modules", a startTime), skipped. */
    g = rd("{" HEAP_SAMPLES ",\"modules\":[{\"name\":\"x\"}],\"startTime\":0,\n\"head\":" HROOT
           HN(HCF("main", 0, 0), 10, 2) HN(HCF("f", 4, 10), 100, 3) HEND HEND HEND "}",
           NULL);
    ck_assert_uint_eq(total(g, MAIN, 0), 110);
    ck_assert_uint_eq(tself(g, F, 1), 1);
    ck_assert_uint_eq(total(g, MAIN, 1), 1);
    cgprop_graph_free(g);
}
END_TEST

/* The tree with each node's keys in another order (a tool that sorts
 * them: callFrame, children, id, selfSize, so every node's children come
 * before its own figures), blanks between tokens, escapes, unknown keys
 * holding nested values: the same figures. */
START_TEST(heap_key_orders)
{
#define SN(cf, size, nid, kids) "{ " cf " , \"children\" : [ " kids " ] ,\"extra\":{\"a\":[[{}]]}, \"id\" : " #nid ", \"selfSize\" : " #size " }"
    static const char sorted[] =
        "{\"head\":" SN(ROOT_CF, 0, 1,
            SN(HCF("main", 0, 0), 10, 2,
                SN(HCF("f", 4, 10), 100, 3,
                    SN(HCF("\\u0066", 4, 10), 200, 4,
                        SN(HCF("g", 9, 2), 40, 5, SN(HCF("f", 4, 10), 8, 6, ""))))
                ",\n" SN(HCF("g", 9, 2), 0, 7, SN(HCF("h", 30, 0), 1000, 8, "")))
            ",\n" SN("\"callFrame\":{\"functionName\":\"(V8 API)\",\"scriptId\":\"0\",\"url\":\"\","
                     "\"lineNumber\":-1,\"columnNumber\":-1}", 560, 9, "")
            ",\n" SN(HCF("even", 40, 0), 3, 10, SN(HCF("odd", 41, 0), 5, 11, SN(HCF("even", 40, 0), 7, 12, ""))))
        ",\n" HEAP_SAMPLES "}";
#undef SN
    cgprop_graph *g = rd(sorted, NULL);
    check_heap_hand(g, true);
    cgprop_graph_free(g);
}
END_TEST

/* A chain of 10,000 frames, a and b in turn (mutual recursion), the
 * root's child at depth 1: 20,002 levels of JSON nesting. Bytes at depth 1
 * (a, 7) and at every thousandth depth d (b, d bytes, one sample each):
 *   a: self 7, total 7 + (1000 + 2000 + ... + 10000) = 7 + 55000 = 55007
 *   b: self 55000, total 55000; samples: b 10 and 10, a total 10, self 0.
 * The reader holds no stack of its own for the nesting: the tree's nodes
 * and their parent links, as for any tree. */
static char *deep_chain(int n, int bad_at)
{
    size_t cap = (size_t)n * 200 + 4096;
    char *t = malloc(cap);
    ck_assert_ptr_nonnull(t);
    size_t k = (size_t)snprintf(t, cap, "{\"head\":" HROOT "\n");
    for (int d = 1; d <= n; d++) {
        long size = d == 1 ? 7 : d % 1000 == 0 ? d : 0;
        if (d == bad_at) size = -1;
        k += (size_t)snprintf(t + k, cap - k,
                              "{\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":\"7\",\"url\":\"file:///d.js\","
                              "\"lineNumber\":%d,\"columnNumber\":0},\"selfSize\":%ld,\"id\":%d,\"children\":[\n",
                              d % 2 ? "a" : "b", d % 2 ? 1 : 2, size, d + 1);
    }
    for (int d = 0; d <= n; d++) k += (size_t)snprintf(t + k, cap - k, "]}");
    k += (size_t)snprintf(t + k, cap - k, ",\"samples\":[");
    for (int d = 1000; d <= n; d += 1000)
        k += (size_t)snprintf(t + k, cap - k, "%s{\"size\":%d,\"nodeId\":%d,\"ordinal\":%d}", d > 1000 ? "," : "", d,
                              d + 1, d);
    k += (size_t)snprintf(t + k, cap - k, "]}");
    ck_assert(k < cap);
    return t;
}

START_TEST(heap_deep_chain)
{
    char *t = deep_chain(10000, 0);
    cgprop_graph *g = rd(t, NULL);
    const char *a = "file:///d.js\t2:1\ta", *b = "file:///d.js\t3:1\tb";
    ck_assert_uint_eq(tself(g, a, 0), 7);
    ck_assert_uint_eq(total(g, a, 0), 55007);
    ck_assert_uint_eq(tself(g, b, 0), 55000);
    ck_assert_uint_eq(total(g, b, 0), 55000);
    ck_assert_uint_eq(total(g, a, 1), 10);
    ck_assert_uint_eq(tself(g, a, 1), 0);
    ck_assert_uint_eq(tself(g, b, 1), 10);
    cgprop_graph_free(g);
    free(t);
    /* An error deep in it names its own line: node d is on line d + 1. */
    t = deep_chain(10000, 7000);
    bad(t, CGPROP_EFORMAT, 7001, "negative selfSize");
    free(t);
}
END_TEST

START_TEST(heap_malformed)
{
    /* Node 3 again, under node 2 (DevTools would show both, and a sample
     * naming 3 would be ambiguous). */
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) "\n" HN(HCF("f", 4, 10), 1, 3) HEND ",\n"
        HN(HCF("g", 9, 2), 1, 3) HEND HEND HEND "}",
        CGPROP_EFORMAT, 4, "duplicate node id 3");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), -10, 2) HEND HEND "}", CGPROP_EFORMAT, 2, "negative selfSize");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 1.5, 2) HEND HEND "}", CGPROP_EFORMAT, 2,
        "selfSize is not an integer");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 99999999999999999999, 2) HEND HEND "}", CGPROP_EOVERFLOW, 2,
        "too large");
    /* A children element that is not an object: a .cpuprofile's child id,
     * and after a good child. */
    bad("{\"head\":" HROOT "\n2]}}", CGPROP_EFORMAT, 2, "a child node is not an object");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) HEND ",\n[]]}}", CGPROP_EFORMAT, 3,
        "a child node is not an object");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) HEND ",\nnull]}}", CGPROP_EFORMAT, 3,
        "a child node is not an object");
    bad("{\"head\":{\"children\":{},\n\"id\":1}}", CGPROP_EFORMAT, 1, "children is not an array");
    bad("{\"head\":[]}", CGPROP_EFORMAT, 1, "head is not an object");
    bad("{\"head\":{}}", CGPROP_EFORMAT, 1, "node without id");
    bad("{\"head\":{\"id\":1,\"selfSize\":0}}", CGPROP_EFORMAT, 1, "node without callFrame");
    bad("{\"head\":" HROOT "\n" "{" HCF("main", 0, 0) ",\"id\":2}\n]}}", CGPROP_EFORMAT, 2, "node without selfSize");
    /* The root alone: nothing to read. (With functions but no bytes, as a
     * .cpuprofile with no hits, the functions are read, costing 0.) */
    bad("{\"head\":" HROOT "\n" HEND "}", CGPROP_EFORMAT, 2, "no sampled allocation in the heap profile");
    cgprop_graph *g = rd("{\"head\":" HROOT HN(HCF("main", 0, 0), 0, 2) HEND HEND "}", NULL);
    ck_assert_uint_eq(total(g, MAIN, 0), 0);
    cgprop_graph_free(g);
    /* JSON errors inside the tree, at its depth. */
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) "]]}", CGPROP_EFORMAT, 2, "mismatched closing bracket");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) HEND, CGPROP_EFORMAT, 2, "unexpected end");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) HEND HEND "} x", CGPROP_EFORMAT, 2, "bytes after the end");
    bad("{\"head\":" HROOT "\n" HN(HCF("main", 0, 0), 10, 2) HEND ",]}}", CGPROP_EFORMAT, 2, "expected a JSON value");
    char deep[900];
    size_t k = (size_t)snprintf(deep, sizeof deep, "{\"head\":" HROOT "\n{\"x\":");
    for (int i = 0; i < 300; i++) deep[k++] = '[';
    deep[k] = '\0';
    bad(deep, CGPROP_EFORMAT, 2, "nesting too deep");
    /* samples */
    static const char tree[] = "{\"head\":" HROOT HN(HCF("main", 0, 0), 10, 2) HEND HEND;
    char t[1024];
    snprintf(t, sizeof t, "%s,\n\"samples\":[2,2]}", tree);
    bad(t, CGPROP_EFORMAT, 2, "samples is not an array of objects");
    snprintf(t, sizeof t, "%s,\n\"samples\":[" HSAMPLE(2, 8, 1) ",\n7]}", tree);
    bad(t, CGPROP_EFORMAT, 3, "a sample is not an object");
    snprintf(t, sizeof t, "%s,\n\"samples\":[{\"size\":8,\n\"ordinal\":1}]}", tree);
    bad(t, CGPROP_EFORMAT, 3, "sample without nodeId");
    snprintf(t, sizeof t, "%s,\n\"samples\":[{\"nodeId\":\"2\"}]}", tree);
    bad(t, CGPROP_EFORMAT, 2, "nodeId is not an integer");
    snprintf(t, sizeof t, "%s,\n\"samples\":[{\"nodeId\":2,\"size\":\"\\x\"}]}", tree);
    bad(t, CGPROP_EFORMAT, 2, "bad escape");
    /* A heap profile, a .cpuprofile or a trace: one of them. */
    snprintf(t, sizeof t, "%s,\n\"nodes\":[]}", tree);
    bad(t, CGPROP_EFORMAT, 2, "both head and nodes");
    snprintf(t, sizeof t, "{\"nodes\":[" NODE1 "}],\n\"head\":" HROOT HEND "}");
    bad(t, CGPROP_EFORMAT, 2, "both nodes and head");
    snprintf(t, sizeof t, "%s,\n\"traceEvents\":[]}", tree);
    bad(t, CGPROP_EFORMAT, 2, "both head and traceEvents");
    snprintf(t, sizeof t, "%s,\n\"head\":" HROOT HEND "}", tree);
    bad(t, CGPROP_EFORMAT, 2, "a second head tree");
}
END_TEST

/* The CPU profile format that had a "head" tree too (times in seconds,
 * each node with a hitCount): still refused, with its message, in the
 * spellings it had (node fields in a callFrame or on the node itself) and
 * with keys sorted (a child's hitCount then comes before its parent's). */
START_TEST(heap_legacy_cpu_head)
{
    bad("{\"head\":{\"functionName\":\"(root)\",\"scriptId\":\"0\",\"url\":\"\",\"lineNumber\":0,\"columnNumber\":0,"
        "\"hitCount\":0,\"callUID\":1,\"children\":[],\"deoptReason\":\"\",\"id\":1,\"positionTicks\":[]},\n"
        "\"startTime\":1445.27,\"endTime\":1449.9,\"samples\":[1],\"timestamps\":[1445.28]}",
        CGPROP_EFORMAT, 1, "the legacy \"head\" profile tree is not read; save the profile again");
    bad("{\"head\":{" ROOT_CF ",\"hitCount\":0,\"children\":[\n{" HCF("main", 0, 0)
        ",\"hitCount\":3,\"children\":[],\"id\":2}],\"id\":1},\"startTime\":1.5,\"samples\":[2,2,2]}",
        CGPROP_EFORMAT, 1, "legacy");
    bad("{\"head\":{" ROOT_CF ",\"children\":[\n{" HCF("main", 0, 0) ",\"children\":[],\n\"hitCount\":3,\"id\":2}],"
        "\"hitCount\":0,\"id\":1},\"samples\":[2]}",
        CGPROP_EFORMAT, 3, "legacy");
    /* Not detected as a profile either: its first bytes hold no selfSize. */
    static const char legacy[] = "{\"head\":{\"functionName\":\"(root)\",\"hitCount\":0,\"children\":[]}}";
    ck_assert_uint_eq(cgprop_read_detect(legacy, strlen(legacy)), CGPROP_INPUT_AUTO);
}
END_TEST

START_TEST(heap_detect)
{
    ck_assert_uint_eq(cgprop_read_detect(heap_hand, strlen(heap_hand)), CGPROP_INPUT_V8);
    static const char *const yes[] = {
        "\xef\xbb\xbf\n{ \"head\" : {\"callFrame\":{}, \"selfSize\": 0",
        "{\"samples\":[{\"size\":8,\"nodeId\":2,\"ordinal\":1}],\"head\":{",
    };
    for (int i = 0; i < 2; i++) ck_assert_uint_eq(cgprop_read_detect(yes[i], strlen(yes[i])), CGPROP_INPUT_V8);
    static const char *const no[] = {"{\"head\":[\"selfSize\"]}", "{\"head\":{\"a\":1}}", "{\"x\":1,\"head\":{\"selfSize\":1}}"};
    for (int i = 0; i < 3; i++) ck_assert_uint_eq(cgprop_read_detect(no[i], strlen(no[i])), CGPROP_INPUT_AUTO);
    /* The root's selfSize past the first 4 KiB (keys sorted: the tree
     * first), a leaf's within them. */
    char *t = malloc(8192);
    ck_assert_ptr_nonnull(t);
    size_t k = (size_t)sprintf(t, "{\"head\":{\"callFrame\":{\"functionName\":\"");
    while (k < 3000) t[k++] = 'x';
    k += (size_t)sprintf(t + k, "\"},\"children\":[{\"children\":[],\"selfSize\":1}]");
    t[k] = '\0';
    ck_assert_uint_eq(cgprop_read_detect(t, k), CGPROP_INPUT_V8);
    while (k < 5000) t[k++] = ' ';
    memcpy(t + 3000, "\"},\"children\":[{\"children\":[]          ", 40);
    ck_assert_uint_eq(cgprop_read_detect(t, k), CGPROP_INPUT_AUTO);
    free(t);
    /* Read without naming the format. */
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_read_buffer(heap_hand, strlen(heap_hand), NULL, 0, NULL, NULL, &g, NULL, NULL), CGPROP_OK);
    check_heap_hand(g, true);
    cgprop_graph_free(g);
}
END_TEST

/* One program's functions keyed alike in its CPU profile and its heap
 * profile (url, 1-based line:column as DevTools shows them, name), so that
 * figures of the two can be put side by side by key. */
START_TEST(heap_keys_as_cpu)
{
    cgprop_graph *c = rd(hand, NULL), *h = rd(heap_hand, NULL);
    static const char *const keys[] = {MAIN, F, G};
    for (int i = 0; i < 3; i++) {
        ck_assert(has_fn(c, keys[i]));
        ck_assert(has_fn(h, keys[i]));
    }
    cgprop_graph_free(c);
    cgprop_graph_free(h);
    /* Two heap profiles merge: their bytes add up. */
    h = rd(heap_hand, NULL);
    cgprop_graph *h2 = rd(heap_hand, NULL);
    ck_assert_int_eq(cgprop_graph_merge(h, h2), CGPROP_OK);
    ck_assert_uint_eq(total(h, F, 0), 2 * 348);
    ck_assert_uint_eq(tself(h, F, 1), 2 * 4);
    cgprop_graph_free(h);
    cgprop_graph_free(h2);
}
END_TEST

START_TEST(alloc_failures)
{
    static const char step_back[] = "{\"nodes\":[{\"id\":1," ROOT_CF ",\"children\":[2]},"
                                    "{\"id\":2," CF("main", "file:///a.js", 0, 0) ",\"children\":[3]},"
                                    "{\"id\":3," CF("f", "file:///a.js", 4, 10) "}],"
                                    "\"samples\":[3,2,1,3],\"timeDeltas\":[100,50,-30,5]}";
    static const char trace[] = "{\"traceEvents\":[" TRACE_EVENTS "," TP(8, 8, "0x1", "") ","
                                TC(8, "0x1", "", TN(2, 1, "a"), "2,2", "9,-3") "]}";
    /* Two CpuProfile events, the second's deltas stepping back. */
    static const char cpu[] = "[" CPU_T1 "," CPU_T2 "]";
    /* A heap profile's tree 600 frames deep: its nodes grow while the
     * reader is deep in the nesting. */
    char *deep = deep_chain(600, 0);
    const char *inputs[6] = {hand, step_back, trace, cpu, heap_hand, deep};
    for (int in = 0; in < 6; in++) tfail_read_sweep(inputs[in], strlen(inputs[in]), "a", 5000);
    free(deep);
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
    uint64_t t = tself_sum(g, 0), n = tself_sum(g, 1);
    /* From the file: Σ timeDeltas[1..] = 1724273 over 906 samples, and
     * 1724273 / 905 = 1905.3 rounds to 1905 (python3: sum(d["timeDeltas"][1:]),
     * len(d["samples"])). */
    ck_assert_uint_eq(t, 1724273 + 1905);
    ck_assert_uint_eq(n, 906);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(real_trace)
{
    /* A library built without zlib refuses gzip input, and says so. */
    static const unsigned char empty_gz[] = {0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,
                                             0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_buffer((const char *)empty_gz, sizeof empty_gz, "e.gz", 4, NULL, NULL, &g, NULL, &err);
    if (strstr(err.reason, "without zlib")) return;
    /* Headless Chromium's trace of recur-page.html (its per-function figures
     * are tests/v8/check_v8.py's): one profile, in 22 chunks. The whole of
     * the time is the last time stamp less the first plus the mean
     * interval: Σ timeDeltas[1..] = 347034 over 1446 samples, and
     * 347034 / 1445 = 240.2 rounds to 240 (python3: the deltas of the
     * ProfileChunk events in file order). */
    const char *p = DATA "/v8/recur-page.trace.json.gz";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    ck_assert_msg(cgprop_read_file(p, strlen(p), NULL, NULL, &g, &info, &err) == CGPROP_OK, "%s", err.reason);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    uint64_t t = tself_sum(g, 0), n = tself_sum(g, 1);
    ck_assert_uint_eq(t, 347034 + 240);
    ck_assert_uint_eq(n, 1446);
    cgprop_graph_free(g);
}
END_TEST

/* Reads the file at path, NUL-terminated. */
/* node --cpu-prof's recur.cpuprofile wrapped in a CpuProfile event, as
 * DevTools wraps a .cpuprofile it opens (a trace object, the event's ph
 * "X", pid 1, tid 1, id "0x1") and as older DevTools saved one (a bare
 * array: its metadata events, JSRoot, then the CpuProfile event, ph "I"):
 * every function's self and total, both metrics, as the profile's own, and
 * the whole as worked out from the file. */
START_TEST(trace_cpu_profile_real)
{
    size_t n;
    char *prof = tslurp(DATA "/v8/recur.cpuprofile", &n);
    static const char *const head[] = {
        "{\"traceEvents\":[{\"cat\":\"disabled-by-default-devtools.timeline\",\"name\":\"CpuProfile\",\"ph\":\"X\","
        "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":0,\"args\":{\"data\":{\"cpuProfile\":",
        "[{\"cat\":\"disabled-by-default-devtools.timeline\",\"name\":\"TracingStartedInPage\",\"ph\":\"M\","
        "\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"data\":{\"sessionId\":\"1\"}}},{\"cat\":\"__metadata\",\"name\":"
        "\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"ts\":0,\"args\":{\"name\":\"Thread 1\"}},{\"cat\":"
        "\"toplevel\",\"name\":\"JSRoot\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1,\"args\":{}},"
        "{\"cat\":\"disabled-by-default-devtools.timeline\",\"name\":\"CpuProfile\",\"ph\":\"I\",\"pid\":1,"
        "\"tid\":1,\"ts\":1,\"args\":{\"data\":{\"cpuProfile\":",
    };
    static const char *const tail[] = {"}},\"id\":\"0x1\"}],\"metadata\":{\"dataOrigin\":\"CPUProfile\"}}", "}}}]"};
    cgprop_graph *want = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    ck_assert_msg(cgprop_read_buffer(prof, n, "p", 1, NULL, NULL, &want, NULL, &err) == CGPROP_OK, "%s", err.reason);
    for (int k = 0; k < 2; k++) {
        size_t hn = strlen(head[k]), tn = strlen(tail[k]);
        char *t = malloc(hn + n + tn + 1);
        ck_assert(t != NULL);
        memcpy(t, head[k], hn);
        memcpy(t + hn, prof, n);
        memcpy(t + hn + n, tail[k], tn + 1);
        cgprop_graph *g = rd(t, NULL);
        free(t);
        /* From the file: Σ timeDeltas[1..] = 1724273 over 906 samples, and
         * 1724273 / 905 = 1905.3 rounds to 1905 (as real_profile). */
        ck_assert_uint_eq(tself_sum(g, 0), 1724273 + 1905);
        ck_assert_uint_eq(tself_sum(g, 1), 906);
        ck_assert_uint_eq(cgprop_graph_node_count(g), cgprop_graph_node_count(want));
        for (uint32_t i = 0; i < cgprop_graph_node_count(want); i++) {
            size_t kn;
            const char *key = cgprop_graph_node_key(want, i, &kn);
            char buf[1024];
            ck_assert_uint_lt(kn, sizeof buf);
            memcpy(buf, key, kn);
            buf[kn] = 0;
            for (uint32_t m = 0; m < 2; m++) {
                ck_assert_uint_eq(tself(g, buf, m), tself(want, buf, m));
                ck_assert_uint_eq(total(g, buf, m), total(want, buf, m));
            }
        }
        cgprop_graph_free(g);
    }
    cgprop_graph_free(want);
    free(prof);
}
END_TEST

START_TEST(real_heap)
{
    /* node --heap-prof on recur-heap.mjs (its functions' figures are
     * tests/v8/check_v8.py's): the bytes are the tree's selfSizes, 1791496 in
     * all; of its 431 samples, 18 name no node of the tree (taken while V8
     * wrote the profile) and 413 are counted (python3: the sum of selfSize
     * over the tree, the samples whose nodeId is one of its ids). Its deepest
     * path is 128 frames, 258 levels of nesting, past the tokenizer's 256. */
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    const char *p = DATA "/v8/recur.heapprofile";
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    ck_assert_msg(cgprop_read_file(p, strlen(p), NULL, NULL, &g, &info, &err) == CGPROP_OK, "%s", err.reason);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_V8);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "bytes");
    uint64_t b = tself_sum(g, 0), n = tself_sum(g, 1);
    ck_assert_uint_eq(b, 1791496);
    ck_assert_uint_eq(n, 413);
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
    tcase_add_test(tc, trace_two_chunks);
    tcase_add_test(tc, trace_profiles_and_threads);
    tcase_add_test(tc, trace_profile_choice);
    tcase_add_test(tc, trace_malformed);
    tcase_add_test(tc, trace_detect);
    tcase_add_test(tc, real_trace);
    tcase_add_test(tc, trace_cpu_profile_threads);
    tcase_add_test(tc, trace_cpu_profile_choice);
    tcase_add_test(tc, trace_cpu_profile_rules);
    tcase_add_test(tc, trace_cpu_profile_key_order);
    tcase_add_test(tc, trace_cpu_profile_malformed);
    tcase_add_test(tc, trace_cpu_profile_real);
    tcase_add_test(tc, heap_hand_made);
    tcase_add_test(tc, heap_key_orders);
    tcase_add_test(tc, heap_deep_chain);
    tcase_add_test(tc, heap_malformed);
    tcase_add_test(tc, heap_legacy_cpu_head);
    tcase_add_test(tc, heap_detect);
    tcase_add_test(tc, heap_keys_as_cpu);
    tcase_add_test(tc, real_heap);
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
