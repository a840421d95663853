/* Raw recordings that no reader reads, given as users first try them: the
 * binary perf.data, gprof's gmon.out, gperftools' own CPU profile format, an
 * executable, and Go profiles printed as text. Each is refused by every
 * reader, named or detected, with a message that says what it is and what
 * prints the form cgprop reads (the event trace reader, named, with its own
 * message); detection claims none of them. The headers
 * below are the first bytes of files the real tools wrote (perf 6.1, glibc's
 * gcrt, gperftools 2.10 on x86-64, gcc's ELF output, Go 1.19's
 * runtime/pprof). */
#include <check.h>
#include "ck_quiet.h"
#include <stdint.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_io.h"

typedef struct rec {
    const char *what;
    const char *bytes;
    size_t len;
    const char *hint; /* part of the message */
} rec;

/* perf record: the magic, then the header's size (104) and more. */
static const char perf_data[] = "PERFILE2h\0\0\0\0\0\0\0\x90\0\0\0\0\0\0\0";
/* gcc -pg: "gmon", version 1, twelve bytes of padding, then the tags. */
static const char gmon[] = "gmon\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
/* CPUPROFILE=…: five 64-bit words 0, 3, 0, 1000 (µs a sample), 0, then
 * the first sample (count 1, …). */
static const char gperf64[] = "\0\0\0\0\0\0\0\0\3\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\xe8\3\0\0\0\0\0\0"
                              "\0\0\0\0\0\0\0\0\1\0\0\0\0\0\0\0";
/* The same on a 32-bit machine: the words are four bytes wide. */
static const char gperf32[] = "\0\0\0\0\3\0\0\0\0\0\0\0\x10\x27\0\0\0\0\0\0\1\0\0\0";
static const char elf[] = "\x7f" "ELF\2\1\1\0\0\0\0\0\0\0\0\0";
static const char go_heap[] = "heap profile: 4203: 698432 [4203: 698432] @ heap/2\n"
                              "1: 131072 [1: 131072] @ 0x4b3993 0x4b3a2d 0x437192\n";
static const char go_goroutine[] = "goroutine profile: total 1\n1 @ 0x42d196 0x45c6a5\n";
static const char go_custom[] = "my.lib/conns profile: total 12\n12 @ 0x42d196\n";
static const char go_block[] = "--- contention:\ncycles/second=2994379186\n";
static const char go_mutex[] = "--- mutex:\ncycles/second=2994379186\nsampling period=1\n";
/* Blanks before the lines, which the text readers pass over. */
static const char go_indented[] = "  --- mutex:\n\tcycles/second=2994379186\n";
static const char perf_indented[] = " PERFILE2h\0\0\0\0\0\0\0";

#define R(w, b, h) {w, b, sizeof b - 1, h}
static const rec recs[] = {
    R("perf.data", perf_data, "perf script -i perf.data"),
    R("gmon.out", gmon, "gprof -b PROGRAM gmon.out"),
    R("gperftools, 64 bits", gperf64, "go tool pprof -proto"),
    R("gperftools, 32 bits", gperf32, "go tool pprof -proto"),
    R("ELF", elf, "(ELF), not a profile"),
    R("Go heap text", go_heap, "printed as text (debug=1)"),
    R("Go goroutine text", go_goroutine, "printed as text (debug=1)"),
    R("Go custom text", go_custom, "printed as text (debug=1)"),
    R("Go block text", go_block, "printed as text (debug=1)"),
    R("Go mutex text", go_mutex, "printed as text (debug=1)"),
    R("Go mutex text, indented", go_indented, "printed as text (debug=1)"),
    R("perf.data behind a blank", perf_indented, "perf script -i perf.data"),
};
#define NRECS (sizeof recs / sizeof recs[0])

static const uint32_t formats[] = {CGPROP_INPUT_AUTO,   CGPROP_INPUT_CALLGRIND, CGPROP_INPUT_FOLDED,
                                   CGPROP_INPUT_EVENTS, CGPROP_INPUT_PERF,      CGPROP_INPUT_V8,
                                   CGPROP_INPUT_PPROF,  CGPROP_INPUT_PSTATS,    CGPROP_INPUT_GPROF};

START_TEST(test_refused_by_every_reader)
{
    const rec *r = &recs[_i];
    ck_assert_msg(cgprop_read_detect(r->bytes, r->len) == CGPROP_INPUT_AUTO, "%s detected", r->what);
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = formats[f];
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        cgprop_graph *g = (cgprop_graph *)1;
        int rc = cgprop_read_buffer(r->bytes, r->len, "in", 2, &o, NULL, &g, NULL, &err);
        ck_assert_msg(rc == CGPROP_EFORMAT, "%s as format %u: %d (%s)", r->what, formats[f], rc, err.reason);
        ck_assert(g == NULL);
        ck_assert_str_eq(err.file, "in");
        /* The event trace reader, named, reads as the recorder's own entry
         * point does: refused all the same, with its own message. */
        if (formats[f] == CGPROP_INPUT_EVENTS) continue;
        ck_assert_msg(strstr(err.reason, r->hint) != NULL, "%s as format %u: '%s' lacks '%s'", r->what, formats[f],
                      err.reason, r->hint);
        ck_assert_uint_eq(err.line, 0);
    }
}
END_TEST

/* Texts that only resemble a header are read as before. */
START_TEST(test_lookalikes_read)
{
    static const char *const folded[] = {
        "goroutine profile: total;main 3\n", /* the count is no number alone */
        "a;b profile: total 3\n",            /* frames a and "b profile: total", weight 3 */
        "--- mutex:;main 2\n",
        "gmon;main 2\n",
    };
    for (size_t i = 0; i < sizeof folded / sizeof folded[0]; i++) {
        const char *t = folded[i];
        cgprop_read_options o;
        cgprop_read_options_init(&o);
        o.format = CGPROP_INPUT_FOLDED;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        cgprop_graph *g = NULL;
        int rc = cgprop_read_buffer(t, strlen(t), "in", 2, &o, NULL, &g, NULL, &err);
        ck_assert_msg(rc == CGPROP_OK, "<<%s>>: %s", t, err.reason);
        cgprop_graph_free(g);
    }
    /* Five words 0, 3, 0, 0, 0: no sampling period, not gperftools'. */
    static const char zeros[] = "\0\0\0\0\3\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_graph *g = NULL;
    ck_assert_int_eq(cgprop_read_buffer(zeros, sizeof zeros - 1, "in", 2, NULL, NULL, &g, NULL, &err),
                     CGPROP_EFORMAT);
    ck_assert_msg(strstr(err.reason, "unknown input format") != NULL, "%s", err.reason);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("recordings");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, test_refused_by_every_reader, 0, NRECS);
    tcase_add_test(tc, test_lookalikes_read);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
