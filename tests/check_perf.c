/* perf script reader: hand-made samples with totals worked out by hand, the
 * header and frame variants perf prints, malformed inputs, allocation
 * failures, and a real recording against perf report's own figures. */
#include <check.h>
#include "ck_quiet.h"
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop_io.h"
#include "support.h"

#define DATA CGPROP_TEST_DATA

static cgprop_graph *rd(const char *text, cgprop_read_info *info)
{
    cgprop_read_options o = tformat(CGPROP_INPUT_PERF);
    return tread(text, strlen(text), "p", &o, info);
}

static void bad_len(const char *text, size_t len, int code, uint64_t line, const char *reason)
{
    tread_bad(text, len, "s.perf", CGPROP_INPUT_PERF, code, line, reason);
}

static void bad(const char *text, int code, uint64_t line, const char *reason)
{
    bad_len(text, strlen(text), code, line, reason);
}

static uint64_t total(cgprop_graph *g, const char *k, uint32_t m) { return tstack_total(g, tfind(g, k), m); }

/* ---- a real recording against perf report --children --sort symbol ---- */

/* A row of perf's report: Children and Self in percent, the symbol. */
typedef struct prow {
    double children, self;
    char sym[256];
} prow;

static int by_share(const void *a, const void *b)
{
    const prow *x = a, *y = b;
    if (x->children != y->children) return x->children < y->children ? 1 : -1;
    if (x->self != y->self) return x->self < y->self ? 1 : -1;
    return 0;
}

/* perf lists an unresolved address as "0x..." or, for address 0 in an
 * unknown map, as sixteen bare hex digits, one row per address; cgprop keys
 * such frames by dso, so these rows have no counterpart. */
static bool address_row(const char *sym)
{
    size_t n = strlen(sym), i = 0;
    if (n > 2 && sym[0] == '0' && sym[1] == 'x') i = 2;
    else if (n != 16)
        return false;
    for (; i < n; i++)
        if (!strchr("0123456789abcdef", sym[i])) return false;
    return true;
}

/* One event's rows: each symbol's rows against cgprop's functions of that
 * display name (perf lists a symbol met in two dsos on two rows, so do
 * we), paired by size. */
static int check_rows(cgprop_graph *g, uint32_t m, uint64_t tot, prow *rows, size_t n)
{
    int compared = 0;
    qsort(rows, n, sizeof *rows, by_share);
    for (size_t i = 0; i < n; i++) {
        if (address_row(rows[i].sym) || rows[i].sym[0] == '\0') continue;
        bool first = true;
        for (size_t j = 0; j < i; j++)
            if (strcmp(rows[j].sym, rows[i].sym) == 0) first = false;
        if (!first) continue;
        prow ours[8], theirs[8];
        size_t no = 0, nt = 0;
        for (size_t j = i; j < n; j++)
            if (strcmp(rows[j].sym, rows[i].sym) == 0) {
                ck_assert_uint_lt(nt, 8);
                theirs[nt++] = rows[j];
            }
        for (uint32_t k = 0; k < cgprop_graph_node_count(g); k++) {
            if (strcmp(cgprop_node_display_name(g, k, NULL), rows[i].sym) != 0) continue;
            cgprop_split_row sr;
            cgprop_node_row r;
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, m, k, &sr, sizeof sr), CGPROP_OK);
            ck_assert_int_eq(cgprop_graph_get_row(g, CGPROP_ITER_NODES, m, k, &r, sizeof r), CGPROP_OK);
            uint64_t unrooted;
            ck_assert_int_eq(cgprop_graph_unrooted(g, m, &unrooted), CGPROP_OK);
            if (!unrooted) ck_assert_uint_eq(sr.inexact, 0);
            ck_assert_uint_lt(no, 8);
            ours[no].children = 100.0 * (double)sr.C_n / (double)tot;
            ours[no].self = 100.0 * (double)r.self / (double)tot;
            no++;
        }
        ck_assert_msg(no == nt, "perf reports %s %zu times, cgprop has %zu such functions", rows[i].sym, nt, no);
        qsort(ours, no, sizeof *ours, by_share);
        for (size_t j = 0; j < no; j++) {
            /* perf prints two decimals */
            ck_assert_msg(fabs(ours[j].children - theirs[j].children) <= 0.005 + 1e-9,
                          "%s: total %.4f%%, perf Children %.2f%%", rows[i].sym, ours[j].children, theirs[j].children);
            ck_assert_msg(fabs(ours[j].self - theirs[j].self) <= 0.005 + 1e-9, "%s: self %.4f%%, perf Self %.2f%%",
                          rows[i].sym, ours[j].self, theirs[j].self);
            compared++;
        }
    }
    return compared;
}

/* Every symbol row of perf's report: Children is cgprop's total, Self its
 * self, as percentages of the event's total, to perf's two decimals. The
 * event's total is perf's event count when the script prints periods, else
 * its number of samples (each then weighs 1). */
static int against_report(const char *p, const char *report, bool periods)
{
    cgprop_graph *g = NULL;
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    ck_assert_msg(cgprop_read_file(p, strlen(p), NULL, NULL, &g, &info, &err) == CGPROP_OK, "%s", err.reason);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_PERF);
    ck_assert_int_eq(cgprop_graph_split(g), CGPROP_OK);

    FILE *f = fopen(report, "r");
    ck_assert(f != NULL);
    static prow rows[512];
    size_t nrows = 0;
    char line[512];
    int metric = -1;
    int compared = 0;
    uint64_t tot = 0;
    unsigned long long nsamp = 0;
    for (;;) {
        bool more = fgets(line, sizeof line, f) != NULL;
        char ev[128];
        unsigned long long ns, count;
        bool next = more && sscanf(line, "# Samples: %llu of event '%127[^']'", &ns, ev) == 2;
        if ((next || !more) && metric >= 0) {
            compared += check_rows(g, (uint32_t)metric, tot, rows, nrows);
            nrows = 0;
        }
        if (!more) break;
        if (next) {
            /* Without periods, the event's metric is its sample count. */
            char name[160];
            snprintf(name, sizeof name, "%s%s", ev, periods ? "" : "_samples");
            metric = -1;
            for (uint32_t m = 0; m < cgprop_graph_metric_count(g); m++)
                if (strcmp(cgprop_graph_metric_name(g, m, NULL), name) == 0) metric = (int)m;
            ck_assert_msg(metric >= 0, "no metric for event %s", ev);
            tot = tself_sum(g, (uint32_t)metric);
            nsamp = ns;
            if (!periods) ck_assert_uint_eq(tot, nsamp);
            continue;
        }
        if (sscanf(line, "# Event count (approx.): %llu", &count) == 1) {
            if (periods) ck_assert_uint_eq(tot, count);
            continue;
        }
        prow r;
        int at = 0;
        if (sscanf(line, " %lf%% %lf%% [%*[.k]] %n", &r.children, &r.self, &at) != 2 || at == 0) continue;
        ck_assert(metric >= 0);
        /* The symbol, then perf's IPC columns ("-      -") and padding. */
        size_t e = strlen(line);
        for (int cols = 0; cols < 3; cols++) {
            while (e > (size_t)at && (line[e - 1] == ' ' || line[e - 1] == '\n')) e--;
            if (cols < 2 && e > (size_t)at + 1 && line[e - 1] == '-' && line[e - 2] == ' ') e--;
        }
        /* perf marks a function reached as an inlined copy; cgprop keeps
         * one function for all its copies. */
        if (e - (size_t)at > 10 && memcmp(line + e - 10, " (inlined)", 10) == 0) e -= 10;
        ck_assert_uint_lt(e - (size_t)at, sizeof r.sym);
        memcpy(r.sym, line + at, e - (size_t)at);
        r.sym[e - (size_t)at] = '\0';
        ck_assert_uint_lt(nrows, sizeof rows / sizeof rows[0]);
        rows[nrows++] = r;
    }
    fclose(f);
    cgprop_graph_free(g);
    return compared;
}

/* Four samples, root first:
 *   main a b c          cycles 10
 *   main a b a b        cycles 20   (a and b recursive: counted once)
 *   main c              instructions 7
 *   main [unknown in libx] do_syscall_64   cycles 5 (a kernel frame on top) */
static const char hand[] =
    "# ========\n"
    "# captured on: today\n"
    "# ========\n"
    "#\n"
    "prog 100/100 [000] 1.000001:         10 cycles:\n"
    "\t            1001 c+0x1 (/bin/p)\n"
    "\t            1002 b+0x2 (/bin/p)\n"
    "\t            1003 a+0x3 (/bin/p)\n"
    "\t            1004 main+0x4 (/bin/p)\n"
    "\n"
    "prog 100/100 [000] 1.000002:         20 cycles:\n"
    "\t            1002 b+0x2 (/bin/p)\n"
    "\t            1003 a+0x3 (/bin/p)\n"
    "\t            1012 b+0x12 (/bin/p)\n"
    "\t            1013 a+0x13 (/bin/p)\n"
    "\t            1004 main+0x4 (/bin/p)\n"
    "\n"
    "prog 100/100 [001] 1.000003:          7 instructions:\n"
    "\t            1001 c (/bin/p)\n"
    "\t            1004 main (/bin/p)\n"
    "\n"
    "prog 100/100 [001] 1.000004:          5 cycles:\n"
    "\tffffffff81000000 do_syscall_64+0x10 ([kernel.kallsyms])\n"
    "\t            9999 [unknown] (/lib/libx.so)\n"
    "\t            1004 main+0x4 (/bin/p)\n"
    "\n";

START_TEST(hand_made)
{
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    cgprop_graph *g = rd(hand, &info);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_PERF);
    ck_assert_uint_eq(info.recursion, CGPROP_RECS_STACKS);
    ck_assert_uint_eq(info.lines, 26);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "cycles");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "instructions");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 2, NULL), "samples");
    ck_assert_uint_eq(cgprop_graph_node_count(g), 6);
    const char *M = "/bin/p\t\tmain", *A = "/bin/p\t\ta", *B = "/bin/p\t\tb", *C = "/bin/p\t\tc";
    const char *U = "/lib/libx.so\t\t[unknown] (libx.so)", *K = "[kernel.kallsyms]\t\tdo_syscall_64";
    /* cycles: 10 + 20 + 5 = 35 in all */
    ck_assert_uint_eq(total(g, M, 0), 35);
    ck_assert_uint_eq(total(g, A, 0), 30);
    ck_assert_uint_eq(total(g, B, 0), 30);
    ck_assert_uint_eq(total(g, C, 0), 10);
    ck_assert_uint_eq(total(g, U, 0), 5);
    ck_assert_uint_eq(total(g, K, 0), 5);
    ck_assert_uint_eq(tself(g, C, 0), 10);
    ck_assert_uint_eq(tself(g, B, 0), 20);
    ck_assert_uint_eq(tself(g, K, 0), 5);
    ck_assert_uint_eq(tself(g, M, 0), 0);
    /* instructions: only the third sample */
    ck_assert_uint_eq(total(g, M, 1), 7);
    ck_assert_uint_eq(total(g, C, 1), 7);
    ck_assert_uint_eq(tself(g, C, 1), 7);
    ck_assert_uint_eq(total(g, A, 1), 0);
    ck_assert_uint_eq(total(g, K, 1), 0);
    /* samples: one per sample of any event */
    ck_assert_uint_eq(total(g, M, 2), 4);
    ck_assert_uint_eq(total(g, A, 2), 2);
    ck_assert_uint_eq(total(g, B, 2), 2);
    ck_assert_uint_eq(total(g, C, 2), 2);
    ck_assert_uint_eq(total(g, U, 2), 1);
    ck_assert_uint_eq(tself(g, B, 2), 1);
    ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, U), NULL), "[unknown] (libx.so)");
    ck_assert_str_eq(cgprop_node_display_name(g, tfind(g, K), NULL), "do_syscall_64");
    cgprop_graph_free(g);
}
END_TEST

START_TEST(header_variants)
{
    /* The fields perf prints vary with -F; one one-frame sample each, a
     * function per variant, so each period shows as its function's self. */
    cgprop_graph *g = rd("prog 100 1.5: 42 cyc:\n\t 1 pid_only (/b)\n\n"
                         "prog 100/101 [001] 1.5: cyc:\n\t 1 no_period (/b)\n\n"
                         "prog  100 cyc:\n\t 1 no_time (/b)\n\n"
                         "Web Content 100/101 [003] 1.5: 43 cyc:\n\t 1 comm_blanks (/b)\n\n"
                         "prog 100 [000] 44 cyc:\n\t 1 cpu_no_time (/b)\n\n"
                         "            prog   100/100  [002]  7.25:      45     cyc:  \n\t 1 padded (/b)\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_uint_eq(tself(g, "/b\t\tpid_only", 0), 42);
    ck_assert_uint_eq(tself(g, "/b\t\tno_period", 0), 1);
    ck_assert_uint_eq(tself(g, "/b\t\tno_time", 0), 1);
    ck_assert_uint_eq(tself(g, "/b\t\tcomm_blanks", 0), 43);
    ck_assert_uint_eq(tself(g, "/b\t\tcpu_no_time", 0), 44);
    ck_assert_uint_eq(tself(g, "/b\t\tpadded", 0), 45);
    ck_assert_uint_eq(tself(g, "/b\t\tpadded", 1), 1);
    cgprop_graph_free(g);
    /* An event named like the count: the count takes another name. */
    g = rd("p 1 1.0: 5 samples:\n\t 1 f (/b)\n", NULL);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "samples");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "sample_count");
    ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 5);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(header_time_anchor)
{
    /* perf script's default fields: comm, pid, cpu, time, period, event. A
     * comm's word ending in ':' is no event; the time anchors the period
     * and the event after it, and an event may hold ':' itself. A function
     * per sample, so each period shows as its function's self. */
    cgprop_graph *g = rd("my job: x 28879 77065.032100:     500000 cpu-clock: \n"
                         "\t 11 fact+0x1 (/b)\n\t 12 main (/b)\n\n"
                         "io 7 28893 [001] 77065.032200:     250000 cpu-clock: \n\t 21 tri (/b)\n\n"
                         "sw 1/1 [002] 2.000000:          3 sched:sched_switch: prev_comm=a: prev_pid=1\n"
                         "\t 31 sw (/b)\n\n"
                         "p 5 3.000000000:        7 cpu-clock:ppp: \n\t 41 ppp (/b)\n\n"
                         "a 1.0: 5 4.000000:        9 cpu-clock: \n\t 51 odd_comm (/b)\n\n"
                         "p 5 5.0: cpu-clock: \n\t 61 no_period (/b)\n\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 4);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "cpu-clock");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "sched:sched_switch");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 2, NULL), "cpu-clock:ppp");
    ck_assert_uint_eq(tself(g, "/b\t\tfact", 0), 500000);
    ck_assert_uint_eq(total(g, "/b\t\tmain", 0), 500000);
    ck_assert_uint_eq(tself(g, "/b\t\ttri", 0), 250000);
    ck_assert_uint_eq(tself(g, "/b\t\tsw", 1), 3);
    ck_assert_uint_eq(tself(g, "/b\t\tppp", 2), 7);
    /* the comm "a 1.0: 5": words before the time, however like it */
    ck_assert_uint_eq(tself(g, "/b\t\todd_comm", 0), 9);
    ck_assert_uint_eq(tself(g, "/b\t\tno_period", 0), 1);
    ck_assert_uint_eq(total(g, "/b\t\tmain", 3), 1);
    cgprop_graph_free(g);

    /* A real recording: the main thread named "my job: x", the other "io 7". */
    ck_assert_int_eq(against_report(DATA "/perf/names.perf", DATA "/perf/names.report", true), 25);
}
END_TEST

START_TEST(header_without_time)
{
    /* perf script -F without time: which number is the period is told by
     * its width (perf prints it in ten columns, a pid or tid in five) and
     * the event follows the first number after a comm's word ending in ':'.
     * One function per line, so each weight shows as its self. */
    cgprop_graph *g = rd("comm2.O0 29358 cpu-clock: \n\t 1 f1 (/b)\n\n"              /* comm,tid */
                         "io 7 29360 cpu-clock: \n\t 2 f2 (/b)\n\n"                  /* a comm's word of digits */
                         "pf.O0          3 page-faults: \n\t 3 f3 (/b)\n\n"          /* comm,period */
                         "         4 page-faults: \n\t 4 f4 (/b)\n\n"                /* period */
                         "20716     500000 cpu-clock: \n\t 5 f5 (/b)\n\n"            /* pid,period */
                         "my job: x    1000000 cpu-clock: \n\t 6 f6 (/b)\n\n"        /* comm,period */
                         "my job: x 28481 cpu-clock: \n\t 7 f7 (/b)\n\n"             /* comm,tid */
                         "io 7 29360/29360     250000 cpu-clock: \n\t 8 f8 (/b)\n\n" /* comm,pid,tid,period */
                         "hot 21389 2026-11-30 20:31:37.543328     500000 cpu-clock: \n\t 9 f9 (/b)\n\n" /* tod */
                         "m 20716 U     cpu-clock: \n\t 10 f10 (/b)\n\n"                                 /* misc */
                         "m 20716 [001] U          64 cpu-clock: \n\t 11 f11 (/b)\n\n"                   /* cpu */
                         "  12345678 cpu-clock: \n\t 12 f12 (/b)\n\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "cpu-clock");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "page-faults");
    static const uint64_t want[] = {1, 1, 3, 4, 500000, 1000000, 1, 250000, 500000, 1, 64, 12345678};
    for (int i = 0; i < 12; i++) {
        char k[16];
        snprintf(k, sizeof k, "/b\t\tf%d", i + 1);
        ck_assert_uint_eq(tself(g, k, i == 2 || i == 3 ? 1 : 0), want[i]);
    }
    cgprop_graph_free(g);

    /* The same recording: -F comm,tid,... prints no period (each sample
     * weighs 1; recorded with a fixed period, so perf's shares still hold),
     * -F comm,period,... prints it after a comm with a word ending in ':'. */
    ck_assert_int_eq(against_report(DATA "/perf/names-tid.perf", DATA "/perf/names.report", false), 25);
    ck_assert_int_eq(against_report(DATA "/perf/names-period.perf", DATA "/perf/names.report", true), 25);
}
END_TEST

START_TEST(event_first)
{
    /* perf script -F event,ip,sym,dso: the event opens the line, padded to
     * the longest event name. */
    cgprop_graph *g = rd("page-faults: \n\t 1 f (/b)\n\t 2 main (/b)\n\n"
                         "  cpu-clock: \n\t 3 g (/b)\n\t 2 main (/b)\n\n"
                         "page-faults: \n\t 1 f (/b)\n\t 2 main (/b)\n\n",
                         NULL);
    /* No period printed: each metric counts its event's samples. */
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "page-faults_samples");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "cpu-clock_samples");
    ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 2);
    ck_assert_uint_eq(tself(g, "/b\t\tg", 1), 1);
    ck_assert_uint_eq(total(g, "/b\t\tmain", 2), 3);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(side_band_and_extras)
{
    /* --show-mmap-events and --show-task-events records, -F +srccode lines
     * (after a sample's blank line; source may hold "case 1:"), and
     * +insn,+insnlen and +ipc lines after the frames, with no blank line
     * before the next header: three samples of one event. */
    static const char timed[] =
        "swapper     0     0.000000: PERF_RECORD_MMAP -1/0: [0xffffffff81000000(0x1276f48) @ 0xffffffff81000000]: x "
        "[kernel.kallsyms]_text\n"
        "perf-exec     0     0.000000: PERF_RECORD_COMM: perf-exec:20716/20716\n"
        "m 20716 1.000000: PERF_RECORD_COMM exec: m:20716/20716\n"
        "m 20716 1.100000:     500000 cpu-clock: \n\t 1 a+0x1 (/b)\n ilen: 5 insn: e8 f8 0b 00 00\n"
        "m 20716 1.200000:     500000 cpu-clock: \n\t 2 b (/b)\n\t 1 a (/b)\n\n"
        "|12       case 1: return x;\n"
        "m 20716 1.300000: PERF_RECORD_MMAP2 20716/20716: [0x7f(0x1) @ 0 00:00 0 0]: r-xp /b\n"
        "|13       default:\n"
        "m 20716 1.400000:     500000 cpu-clock: \n\t 2 b (/b)\n IPC: 1.50 (3/2) \n"
        "m 20716 1.500000: PERF_RECORD_EXIT(20716:20716):(1:1)\n";
    cgprop_graph *g = rd(timed, NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, "/b\t\ta", 0), 500000);
    ck_assert_uint_eq(tself(g, "/b\t\tb", 0), 1000000);
    ck_assert_uint_eq(total(g, "/b\t\ta", 1), 2);
    ck_assert_uint_eq(cgprop_read_detect(timed, strlen(timed)), CGPROP_INPUT_PERF);
    cgprop_graph_free(g);
    /* The same without time (-F comm,tid,event,...) */
    g = rd("m 20716 PERF_RECORD_COMM exec: m:20716/20716\n"
           "m 20716 cpu-clock: \n\t 1 a (/b)\n ilen: 3 insn: 8b 45 ec\n"
           "m 20716 cpu-clock: \n\t 2 b (/b)\n\n"
           "|4        out: return;\n"
           "m 20716 PERF_RECORD_FORK(20716:20717):(20716:20716)\n"
           "m 20716 cpu-clock: \n\t 2 b (/b)\n\n",
           NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 2);
    ck_assert_uint_eq(tself(g, "/b\t\ta", 0), 1);
    ck_assert_uint_eq(tself(g, "/b\t\tb", 0), 2);
    cgprop_graph_free(g);

    /* A real recording with all of these (perf script --show-mmap-events
     * --show-task-events -F +srccode,+insn,+insnlen). */
    ck_assert_int_eq(against_report(DATA "/perf/names-extras.perf", DATA "/perf/names.report", true), 25);
}
END_TEST

START_TEST(addr_field)
{
    /* perf script -F +addr after perf record -d: the data address (and, for
     * a page fault, its symbol and dso) follows the event on the header
     * line. With call chains the frames are the sample's. */
    cgprop_graph *g = rd("pf 1 1.0:          1 page-faults:     55a76ab3c030 __TMC_END__+0x0 (/bin/pf)\n"
                         "\t 1151 touch+0x1 (/bin/pf)\n\t 1200 main+0x2 (/bin/pf)\n\n"
                         "pf 1 1.1:          2 page-faults:     7f90a9e83110 dl_close_state.2+0x0 (/lib/ld.so) \n"
                         "\t ffffffff81775b9a elf_load+0x28a ([kernel.kallsyms])\n\t 1200 main+0x2 (/bin/pf)\n\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 3);
    ck_assert_uint_eq(tself(g, "/bin/pf\t\ttouch", 0), 1);
    ck_assert_uint_eq(tself(g, "[kernel.kallsyms]\t\telf_load", 0), 2);
    ck_assert_uint_eq(total(g, "/bin/pf\t\tmain", 0), 3);
    cgprop_graph_free(g);
    /* Without call chains the sample's frame is the last on the line, after
     * the data address and its symbol, or after an address alone; each
     * such sample is found, and the text refused at its header. */
    const char *nochain[] = {
        "pf 1 1.1:          2 page-faults:     7f90a9e83110 dl_close_state.2+0x0 (/lib/ld.so) "
        "ffffffff81775b9a elf_load+0x28a ([kernel.kallsyms])\n",
        "pf 1 1.2:          4 page-faults:     7f90a9e69b70 _start+0x0 (/lib/ld.so)     7f90a9e69b70 "
        "_start+0x0 (/lib/ld.so)\n",
        "cy 1 1.3:          8 cycles:     7f0000001000      4005d0 main+0x10 (/bin/pf)\n",
        "cy 1 1.4:         16 cycles:            4005d0 add (/bin/pf)\n"};
    for (size_t i = 0; i < sizeof nochain / sizeof nochain[0]; i++)
        bad(nochain[i], CGPROP_EFORMAT, 1, "without its call chain");

    /* A real recording (perf record -e page-faults:u -c 1 -d -g) ... */
    ck_assert_int_eq(against_report(DATA "/perf/faults.perf", DATA "/perf/faults.report", true), 37);
    /* ... and its script without call chains (-G): each sample's frame on
     * its header line, its callers not printed. The first sample's header
     * is line 1. */
    {
        const char *path = DATA "/perf/faults-nog.perf";
        cgprop_graph *n = (cgprop_graph *)1;
        cgprop_read_error err;
        cgprop_read_error_init(&err);
        ck_assert_int_eq(cgprop_read_file(path, strlen(path), NULL, NULL, &n, NULL, &err), CGPROP_EFORMAT);
        ck_assert(n == NULL);
        ck_assert_uint_eq(err.line, 1);
        ck_assert_msg(strstr(err.reason, "without its call chain") && strstr(err.reason, "perf script -G"), "%s",
                      err.reason);
    }
}
END_TEST

START_TEST(dso_parentheses)
{
    /* The dso is the group the line's last ')' closes: a path may hold
     * parentheses, a C++ name printed without dso ends in its own. */
    cgprop_graph *g = rd("p 1 1.0: 1 cyc:\n\t 10 a+0x1 (./build (debug)/p)\n\t 20 main+0x2 (./build (debug)/p)\n\n"
                         "p 1 1.1: 2 cyc:\n\t 117e [unknown] (/tmp/dd (deleted))\n\t 30 f+0x3 (/tmp/dd (deleted))\n\n"
                         "p 1 1.2: 4 cyc:\n\t 40 std::function<unsigned long (unsigned long, int)>::operator()\n"
                         "\t 41 (anonymous namespace)::Rec::operator()\n"
                         "\t 42 std::vector<int>::at(unsigned long) const\n\n"
                         "p 1 1.3: 8 cyc:\n\t 50 g (/odd)path)\n\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 8);
    ck_assert_uint_eq(tself(g, "./build (debug)/p\t\ta", 0), 1);
    ck_assert_uint_eq(total(g, "./build (debug)/p\t\tmain", 0), 1);
    ck_assert_uint_eq(tself(g, "/tmp/dd (deleted)\t\t[unknown] (dd (deleted))", 0), 2);
    ck_assert_uint_eq(total(g, "/tmp/dd (deleted)\t\tf", 0), 2);
    ck_assert_uint_eq(tself(g, "\t\tstd::function<unsigned long (unsigned long, int)>::operator()", 0), 4);
    ck_assert_uint_eq(total(g, "\t\t(anonymous namespace)::Rec::operator()", 0), 4);
    ck_assert_uint_eq(total(g, "\t\tstd::vector<int>::at(unsigned long) const", 0), 4);
    /* more ')' than '(': the last group opened after a blank */
    ck_assert_uint_eq(tself(g, "/odd)path\t\tg", 0), 8);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(address_only_frames)
{
    /* perf script -F ip (no sym): a frame is its address alone, and like
     * any frame without a symbol it is keyed by its dso (here none), not by
     * the address. */
    cgprop_graph *g = rd("p 1 1.0: 3 cyc:\n\t           1ab73\n\t            1150\n\n"
                         "p 1 1.1: 5 cyc:\n\t            1166\n\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 1);
    ck_assert_uint_eq(tself(g, "\t\t[unknown]", 0), 8);
    ck_assert_uint_eq(total(g, "\t\t[unknown]", 1), 2);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(frame_variants)
{
    cgprop_graph *g = rd(
        /* perf script --inline: the inlined function has no dso of its own */
        "p 1 1.0: 4 cyc:\n"
        "\t          10 inner (inlined)\n"
        "\t          10 outer+0x5 (/bin/p)\n"
        "\t          20 main+0x1 (/bin/p)\n"
        "  p.c:12\n" /* -F +srcline extras are not frames */
        "\n"
        /* C++: blanks and parentheses inside the symbol; a TAB in it */
        "p 1 1.1: 6 cyc:\n"
        "\t          30 std::vector<int, std::allocator<int> >::push_back(int const&)+0x1f (/usr/lib/libstdc++.so.6)\n"
        "\t          31 operator+ (/bin/p)\n"
        "\t          32 odd\tname+0x2 (/bin/p)\n"
        "\t          20 main+0x1 (/bin/p)\r\n"
        "\r\n"
        /* no frame: perf still counts the sample */
        "p 1 1.2: 2 cyc:\n"
        "\n"
        /* --call-graph dwarf: the inlined caller after the real frame */
        "p 1 1.4: 8 cyc:\n"
        "\t           27249 start_call+0x79 (/lib/libc.so.6)\n"
        "\t           27304 start_impl+0x84 (inlined)\n"
        "\t            1090 _start+0x20 (/bin/p)\n"
        "\n"
        /* [unknown] everywhere */
        "p 1 1.3: 3 cyc:\n"
        "\t           0 [unknown] ([unknown])\n",
        NULL);
    ck_assert_uint_eq(tself(g, "/bin/p\t\tinner", 0), 4);
    ck_assert_uint_eq(total(g, "/bin/p\t\touter", 0), 4);
    ck_assert_uint_eq(tself(g, "/usr/lib/libstdc++.so.6\t\tstd::vector<int, std::allocator<int> >::push_back(int const&)", 0),
                      6);
    ck_assert_uint_eq(total(g, "/bin/p\t\toperator+", 0), 6);
    ck_assert_uint_eq(total(g, "/bin/p\t\todd name", 0), 6);
    ck_assert_uint_eq(total(g, "/bin/p\t\tmain", 0), 10);
    ck_assert_uint_eq(total(g, "/lib/libc.so.6\t\tstart_impl", 0), 8);
    ck_assert_uint_eq(tself(g, "/lib/libc.so.6\t\tstart_call", 0), 8);
    ck_assert_uint_eq(tself(g, "[unknown]\t\t[unknown]", 0), 5);
    ck_assert_uint_eq(tself(g, "[unknown]\t\t[unknown]", 1), 2);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(same_depth)
{
    /* Consecutive samples with frames at the same depth that share the
     * symbol but not the dso, unknown symbols of two dsos, and inlined
     * frames whose dso comes from a different real frame: each a function
     * of its own. Periods are powers of two, so each sum names its samples. */
    cgprop_graph *g = rd("p 1 1.0: 1 cyc:\n\t 11 f+0x1 (/a)\n\t 20 main+0x1 (/bin)\n\n"
                         "p 1 1.1: 2 cyc:\n\t 19 f+0x9 (/b)\n\t 22 main+0x3 (/bin)\n\n"
                         "p 1 1.2: 4 cyc:\n\t 30 [unknown] (/a)\n\t 20 main+0x1 (/bin)\n\n"
                         "p 1 1.3: 8 cyc:\n\t 31 [unknown] (/b)\n\t 20 main (/bin)\n\n"
                         "p 1 1.4: 16 cyc:\n\t 10 g (inlined)\n\t 10 h+0x1 (/c)\n\t 20 main (/bin)\n\n"
                         "p 1 1.5: 32 cyc:\n\t 10 g (inlined)\n\t 10 h+0x1 (/d)\n\t 20 main (/bin)\n\n",
                         NULL);
    ck_assert_uint_eq(cgprop_graph_node_count(g), 9);
    ck_assert_uint_eq(total(g, "/bin\t\tmain", 0), 63);
    ck_assert_uint_eq(tself(g, "/a\t\tf", 0), 1);
    ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 2);
    ck_assert_uint_eq(tself(g, "/a\t\t[unknown] (a)", 0), 4);
    ck_assert_uint_eq(tself(g, "/b\t\t[unknown] (b)", 0), 8);
    ck_assert_uint_eq(tself(g, "/c\t\tg", 0), 16);
    ck_assert_uint_eq(tself(g, "/d\t\tg", 0), 32);
    ck_assert_uint_eq(total(g, "/c\t\th", 0), 16);
    ck_assert_uint_eq(total(g, "/d\t\th", 0), 32);
    cgprop_graph_free(g);
}
END_TEST

/* --call-graph dwarf prints an inlined function's frame with no real frame
 * at its address (glibc's malloc, named from DWARF); after a truncated
 * unwind it follows kernel frames, or stands alone. Periods are powers of
 * two, so each sum names its samples. */
static const char inlined_text[] =
    "p 1 1.0: 1 cyc:\n"
    "\t           98109 _int_malloc+0xda9 (/lib/libc.so.6)\n"
    "\t           98ac9 m+0x199 (inlined)\n"
    "\t            1242 build+0x13 (/bin/p)\n"
    "\t            1090 _start+0x20 (/bin/p)\n\n"
    "p 1 1.1: 2 cyc:\n"
    "\tffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])\n"
    "\t           98ac9 m+0x199 (inlined)\n"
    "\t            1090 _start+0x20 (/bin/p)\n\n"
    "p 1 1.2: 4 cyc:\n"
    "\t           98969 m+0x39 (inlined)\n\n"
    "p 1 1.3: 8 cyc:\n"
    "\t            5000 helper+0x1 (/lib/libx.so)\n"
    "\t           98a10 m+0x10 (inlined)\n"
    "\t            1090 _start+0x20 (/bin/p)\n\n"
    /* A kernel inlined frame takes a kernel frame's dso. */
    "p 1 1.4: 16 cyc:\n"
    "\tffffffff81000100 k_inl+0x5 (inlined)\n"
    "\tffffffff81000200 k_real+0x1 ([kernel.kallsyms])\n"
    "\t            1090 _start+0x20 (/bin/p)\n\n";

START_TEST(inlined_without_real_frame)
{
    /* Which dso such a frame belongs to is a guess, and one guess must hold
     * for the name, or one function becomes several. */
    cgprop_graph *g = rd(inlined_text, NULL);
    /* _int_malloc, m, build, _start, asm_exc_page_fault, helper, k_inl, k_real */
    ck_assert_uint_eq(cgprop_graph_node_count(g), 8);
    ck_assert_uint_eq(total(g, "/lib/libc.so.6\t\tm", 0), 15);
    ck_assert_uint_eq(tself(g, "/lib/libc.so.6\t\tm", 0), 4);
    ck_assert_uint_eq(tself(g, "[kernel.kallsyms]\t\tasm_exc_page_fault", 0), 2);
    ck_assert_uint_eq(tself(g, "[kernel.kallsyms]\t\tk_inl", 0), 16);
    ck_assert_uint_eq(total(g, "/bin/p\t\t_start", 0), 27);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(no_callchain)
{
    /* perf record without -g: one line per sample, the frame on it, its
     * address right-aligned in sixteen columns after two blanks. Read as
     * one-frame stacks, main's total would be its self cost (3) however
     * much f ran under it, and be shown exact: refused. */
    const char *msg = "without its call chain (its frame is on its header line)";
    bad("p 7 1.0:   3 cpu-clock:            4005d0 main+0x10 (/bin/p)\n"
        "p 7 1.1:   3 cpu-clock:            4005e4 f+0x4 (/bin/p)\n"
        "p 7 1.2:   3 cpu-clock:            4005e8 f+0x8 (/bin/p)\n",
        CGPROP_EFORMAT, 1, msg);
    /* One such sample among samples with chains (an event recorded with
     * call-graph=no beside one with -g) is refused at its header. */
    bad("p 7 1.0:   3 cpu-clock: \n\t 4005e4 f+0x4 (/bin/p)\n\t 4005d0 main+0x10 (/bin/p)\n\n"
        "p 7 1.1:   3 cpu-clock:            4005e8 f+0x8 (/bin/p)\n"
        "p 7 1.2:   3 cpu-clock: \n\t 4005e4 f+0x4 (/bin/p)\n\t 4005d0 main+0x10 (/bin/p)\n\n",
        CGPROP_EFORMAT, 5, msg);
    /* The same at the end of the text, and before a side-band record. */
    bad("p 7 1.0:   3 cpu-clock: \n\t 4005e4 f+0x4 (/bin/p)\n\n"
        "p 7 1.1:   3 cpu-clock:            4005e8 f+0x8 (/bin/p)",
        CGPROP_EFORMAT, 4, msg);
    /* -F +addr on a recording with chains: the data address on the header
     * line is no frame once frame lines follow. */
    cgprop_graph *g = rd("p 7 1.0:   1 page-faults:      7ffd1234 \n\t 4005e4 f+0x4 (/bin/p)\n"
                         "\t 4005d0 main+0x10 (/bin/p)\n\n",
                         NULL);
    ck_assert_uint_eq(total(g, "/bin/p\t\tmain", 0), 1);
    ck_assert_uint_eq(tself(g, "/bin/p\t\tf", 0), 1);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(malformed)
{
    bad("\t 10 main (/bin/p)\n", CGPROP_EFORMAT, 1, "frame line before any sample header");
    bad("p 1 1.0: 1 c:\n\t 1 a (/b)\n\n\t 2 b (/b)\n", CGPROP_EFORMAT, 4, "frame line before any sample header");
    bad("", CGPROP_EFORMAT, 0, "no sample");
    /* Texts that are no call-chain output: before, each read as samples
     * of [unknown] at 100 %, exact. Headers alone (-F comm,tid,time,event,
     * or another text named perf), and prose whose word ending in ':' is
     * followed by a hex-looking word ("cost: a function"), which is no
     * address as perf prints one (right-aligned in sixteen columns). */
    bad("p 1 1.0: 1 c:\np 1 1.1: 1 c:\n", CGPROP_EFORMAT, 0, "no sample has a frame");
    bad("hello world\n", CGPROP_EFORMAT, 0, "no sample has a frame");
    bad("The cost: a function plus everything it calls\n", CGPROP_EFORMAT, 0, "no sample has a frame");
    /* One sample with a frame is enough: the others are [unknown]. */
    cgprop_graph *g = rd("p 1 1.0: 1 c:\n\np 1 1.1: 2 c:\n\t 10 main (/b)\n\n", NULL);
    ck_assert_uint_eq(tself(g, "[unknown]\t\t[unknown]", 0), 1);
    ck_assert_uint_eq(tself(g, "/b\t\tmain", 0), 2);
    cgprop_graph_free(g);
    {
        /* Binary bytes (a protocol buffer, a marshal dump) named perf. */
        static const char bin[] = "p 1 1.0: 1 c:\n\t 10 main (/b)\n\0\1\2\n";
        bad_len(bin, sizeof bin - 1, CGPROP_EFORMAT, 0, "NUL byte at byte 29");
    }
    bad("# only a comment\n\n", CGPROP_EFORMAT, 2, "no sample");
    bad("p 1 1.0: 99999999999999999999 c:\n\t 1 main (/b)\n", CGPROP_EOVERFLOW, 1, "period too large");
    bad("p 1 1.0: 18446744073709551615 c:\n\t 1 main (/b)\n\np 1 1.1: 1 c:\n\t 1 main (/b)\n", CGPROP_EOVERFLOW, 4,
        "overflows");
    bad("p 1 1.0: 1 cyc:\n\t 1 f (/b)\n\np 1 1.0: 1 cyc\x01:\n\t 1 f (/b)\n\np 1 1.0: 1 cyc_:\n\t 1 f (/b)\n",
        CGPROP_EFORMAT, 0, "two events read as one metric name 'cyc_'");
    bad("p 1 1.0: 1 samples:\n\t 1 f (/b)\n\np 1 1.0: 1 sample_count:\n\t 1 f (/b)\n\n"
        "p 1 1.0: 1 perf_samples:\n\t 1 f (/b)\n",
        CGPROP_EFORMAT, 0, "sample count");
    /* 64 events need 65 metrics with the sample count */
    char many[64 * 40];
    size_t k = 0;
    for (int i = 0; i < 64; i++) k += (size_t)snprintf(many + k, sizeof many - k, "p 1 1.0: 1 ev%d:\n\t 1 f (/b)\n\n", i);
    bad(many, CGPROP_EFORMAT, 190, "more than 63 events");
}
END_TEST

/* Past 2 MiB the first pass lists the events from the first part of the file
 * only; an event named later, or an error anywhere, must come out as if the
 * whole file had been listed first. N samples of 4 lines each, then the tail. */
static char *big(size_t n, const char *tail)
{
    static const char one[] = "p 1 1.0: 3 cyc:\n\t 1 f (/b)\n\t 2 main (/b)\n\n";
    size_t len = n * (sizeof one - 1) + strlen(tail);
    char *t = malloc(len + 1);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < n; i++) memcpy(t + i * (sizeof one - 1), one, sizeof one - 1);
    strcpy(t + n * (sizeof one - 1), tail);
    ck_assert_uint_gt(len, 2u << 20);
    return t;
}

START_TEST(late_events)
{
    const size_t n = 80000;
    char *t = big(n, "p 1 1.0: 5 ins:\n\t 3 g (/b)\n\t 2 main (/b)\n\n");
    cgprop_graph *g = rd(t, NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "cyc");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "ins");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 2, NULL), "samples");
    ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 3 * n);
    ck_assert_uint_eq(tself(g, "/b\t\tf", 1), 0);
    ck_assert_uint_eq(tself(g, "/b\t\tg", 0), 0);
    ck_assert_uint_eq(tself(g, "/b\t\tg", 1), 5);
    ck_assert_uint_eq(total(g, "/b\t\tmain", 2), n + 1);
    cgprop_graph_free(g);

    /* An event printed without a period in the first part and with one
     * past it: the first part's guess would name its metric a sample
     * count, so the whole file decides; it is the event's (the sample
     * without a period weighs 1). */
    static const char early[] = "p 1 1.0: ins:\n\t 4 h (/b)\n\n";
    char *t2 = malloc(strlen(t) + sizeof early);
    ck_assert_ptr_nonnull(t2);
    strcpy(t2, early);
    strcat(t2, t);
    g = rd(t2, NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 3);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "ins");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "cyc");
    ck_assert_uint_eq(tself(g, "/b\t\th", 0), 1);
    ck_assert_uint_eq(tself(g, "/b\t\tg", 0), 5);
    ck_assert_uint_eq(tself(g, "/b\t\tf", 1), 3 * n);
    cgprop_graph_free(g);
    free(t2);
    free(t);

    /* A sum overflows at line 4n + 4 (the second huge sample); the first
     * pass's own errors further on still come first. */
    static const char ovf[] = "p 1 1.0: 18446744073709551615 cyc:\n\t 1 h (/b)\n\n"
                              "p 1 1.0: 18446744073709551615 cyc:\n\t 1 h (/b)\n\n";
    t = big(n, ovf);
    bad(t, CGPROP_EOVERFLOW, 4 * n + 4, "overflows");
    free(t);
    char tail[sizeof ovf + 64];
    snprintf(tail, sizeof tail, "%s\t 9 h (/b)\n", ovf);
    t = big(n, tail);
    bad(t, CGPROP_EFORMAT, 4 * n + 7, "frame line before any sample header");
    free(t);
    snprintf(tail, sizeof tail, "%sp 1 1.0: 99999999999999999999 ins:\n", ovf);
    t = big(n, tail);
    bad(t, CGPROP_EOVERFLOW, 4 * n + 7, "period too large");
    free(t);
    /* A new event after the overflow: read again with it, same error. */
    snprintf(tail, sizeof tail, "%sp 1 1.0: 1 ins:\n\t 9 h (/b)\n", ovf);
    t = big(n, tail);
    bad(t, CGPROP_EOVERFLOW, 4 * n + 4, "overflows");
    free(t);
}
END_TEST

/* perf script -F without event: the period, when printed, ends the header
 * (told from a tid by its ten columns); without it the sample weighs in the
 * sample count only. -F naming no header field prints an empty header. */
START_TEST(no_event_field)
{
    /* -F comm,tid,period,ip,sym,dso: weights 250000 and 500000 */
    const char *per = "r 16344     250000 \n\t 1 f (/b)\n\t 2 main (/b)\n\n"
                      "r 16344     500000 \n\t 3 g (/b)\n\t 2 main (/b)\n\n";
    cgprop_graph *g = rd(per, NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "period");
    ck_assert_str_eq(cgprop_graph_metric_name(g, 1, NULL), "samples");
    ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 250000);
    ck_assert_uint_eq(tself(g, "/b\t\tg", 0), 500000);
    ck_assert_uint_eq(total(g, "/b\t\tmain", 0), 750000);
    ck_assert_uint_eq(total(g, "/b\t\tmain", 1), 2);
    cgprop_graph_free(g);
    ck_assert_uint_eq(cgprop_read_detect(per, strlen(per)), CGPROP_INPUT_PERF);
    /* One such sample is not told from other text: --input perf reads it. */
    ck_assert_uint_ne(cgprop_read_detect(per, (size_t)(strstr(per, "\n\n") + 2 - per)), CGPROP_INPUT_PERF);

    /* -F comm,tid,cpu,period and -F period: after the cpu any number, at
     * the line's start one ten columns wide */
    const char *cpu = "r 16344 [001]     250000 \n\t 1 f (/b)\n\n    750000 \n\t 1 f (/b)\n\n";
    g = rd(cpu, NULL);
    ck_assert_uint_eq(cgprop_graph_metric_count(g), 2);
    ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 1000000);
    cgprop_graph_free(g);

    /* -F comm,tid / -F comm,tid,time: the number is a tid, no weight is
     * printed, and the one metric is the sample count. */
    const char *bare[] = {"r 16344 \n\t 1 f (/b)\n\t 2 main (/b)\n\nr 16344 \n\t 3 g (/b)\n\t 2 main (/b)\n\n",
                          "r 16344 7.25: \n\t 1 f (/b)\n\t 2 main (/b)\n\nr 16344 7.50: \n\t 3 g (/b)\n\t 2 main (/b)\n\n",
                          /* -F ip,sym (+srcline): an empty header line */
                          "\n\t 1 f (/b)\n  f.c:3\n\t 2 main (/b)\n\n\n\t 3 g (/b)\n\t 2 main (/b)\n\n"};
    for (size_t i = 0; i < sizeof bare / sizeof bare[0]; i++) {
        g = rd(bare[i], NULL);
        ck_assert_uint_eq(cgprop_graph_metric_count(g), 1);
        ck_assert_str_eq(cgprop_graph_metric_name(g, 0, NULL), "samples");
        ck_assert_uint_eq(tself(g, "/b\t\tf", 0), 1);
        ck_assert_uint_eq(tself(g, "/b\t\tg", 0), 1);
        ck_assert_uint_eq(total(g, "/b\t\tmain", 0), 2);
        cgprop_graph_free(g);
        ck_assert_msg(cgprop_read_detect(bare[i], strlen(bare[i])) == CGPROP_INPUT_PERF, "case %zu", i);
    }
    /* Recorded without -g: each header carries its frame, the address
     * right-aligned in sixteen columns after a blank (-F comm,tid,ip,sym,dso
     * and the same with period; -F ip,sym; -F +srcline). Such a text is
     * still told by its content, and refused at its first sample, so that
     * the message says what is missing rather than "unknown format". */
    const char *nochain[] = {
        "               r 20758      7f97afd4a645 handle_amd (/lib/ld.so)\n"
        "               r 20758  ffffffff821e5ae3 xas_load ([kernel.kallsyms])\n"
        "               r 20758            401136 fib (/tmp/r)\n"
        "               r 20758            401136 fib (/tmp/r)\n",
        "               r 20758     250000      7f97afd4a645 handle_amd (/lib/ld.so)\n"
        "               r 20758     500000            401136 fib (/tmp/r)\n",
        "     7f97afd4a645 handle_amd\n           401136 fib\n           401136 fib\n",
        "               r 20758            401136 fib (/tmp/r)\n  r.c:3\n"
        "               r 20758            401136 fib (/tmp/r)\n  r.c:3\n"};
    for (size_t i = 0; i < sizeof nochain / sizeof nochain[0]; i++) {
        bad(nochain[i], CGPROP_EFORMAT, 1, "without its call chain");
        ck_assert_msg(cgprop_read_detect(nochain[i], strlen(nochain[i])) == CGPROP_INPUT_PERF, "case %zu", i);
    }
    /* Folded stacks with weights of 17 digits and more: a wide number,
     * but no symbol after it. */
    const char *wide = "a;b;a;b 4611686018427387903\na;b;a;b;c 4611686018427387903\nx 5\n";
    ck_assert_uint_eq(cgprop_read_detect(wide, strlen(wide)), CGPROP_INPUT_FOLDED);
    /* nm's listing: an address at the line's start fills 17 columns. */
    const char *nm = "0000000000001139 T main\n0000000000001150 T fib\n";
    ck_assert_uint_ne(cgprop_read_detect(nm, strlen(nm)), CGPROP_INPUT_PERF);

    /* Empty headers do not mix with real ones. */
    bad("\n\t 1 f (/b)\n\np 1 1.0: 1 c:\n\t 1 a (/b)\n", CGPROP_EFORMAT, 4,
        "sample header after samples printed without one");
    /* A header line followed by lines that merely start with a TAB. */
    const char *notes = "Notes\n\tsee below\n\nMore\n\tand here\n";
    ck_assert_uint_ne(cgprop_read_detect(notes, strlen(notes)), CGPROP_INPUT_PERF);
}
END_TEST

/* Stacks cut short: main -> a -> b -> c (1), a -> b -> c (2), a -> b -> d
 * (3), main -> e (4), in samples of period 1. a is called by main, so the
 * two stacks it starts (weight 5) may have lost their outer frames, under
 * any function they do not show. Every stack a starts shows b: b's total
 * holds them already, and b is exact like a, which starts them; c and d
 * each miss one of them but are kept to the weight of both (what every
 * stack of a root shows is what is known); main and e may lack all 5.
 * The program is 10. */
static const char cut_text[] = "p 1 1.0: 1 cpu-clock: \n\t3 c (/p)\n\t2 b (/p)\n\t1 a (/p)\n\t0 main (/p)\n\n"
                               "p 1 2.0: 2 cpu-clock: \n\t3 c (/p)\n\t2 b (/p)\n\t1 a (/p)\n\n"
                               "p 1 3.0: 3 cpu-clock: \n\t4 d (/p)\n\t2 b (/p)\n\t1 a (/p)\n\n"
                               "p 1 4.0: 4 cpu-clock: \n\t5 e (/p)\n\t0 main (/p)\n\n";

static void cut_bounds(cgprop_graph *g, const char *const *name, const double *lo, const double *hi, size_t n)
{
    tanalyse(g, CGPROP_SHARE_COST);
    uint64_t u;
    ck_assert_int_eq(cgprop_graph_unrooted(g, 0, &u), CGPROP_OK);
    ck_assert_uint_eq(u, 5);
    for (size_t i = 0; i < n; i++) {
        char key[32];
        snprintf(key, sizeof key, "/p\t\t%s", name[i]);
        cgprop_total_row r = ttotals_row(g, 0, tfind(g, key));
        ck_assert_msg(r.lo == lo[i] && r.hi == hi[i], "%s: [%g, %g], expected [%g, %g]", name[i], r.lo, r.hi, lo[i],
                      hi[i]);
        ck_assert_uint_eq(r.estimate, lo[i] == hi[i] ? CGPROP_EST_EXACT : CGPROP_EST_MEASURED);
        ck_assert_uint_eq(r.reason, lo[i] == hi[i] ? 0u : (uint32_t)CGPROP_R_UNROOTED);
    }
}

START_TEST(cut_stacks_shown)
{
    static const char *const name[] = {"main", "a", "b", "c", "d", "e"};
    static const double lo[] = {5, 6, 6, 3, 3, 4}, hi[] = {10, 6, 6, 8, 8, 9};
    cgprop_graph *g = rd(cut_text, NULL);
    cut_bounds(g, name, lo, hi, 6);
    cgprop_graph_free(g);
    /* The same samples in another order: the same intervals. */
    const char *s = cut_text, *part[4];
    size_t len[4];
    for (int i = 0; i < 4; i++) {
        const char *e = strstr(s, "\n\n") + 2;
        part[i] = s;
        len[i] = (size_t)(e - s);
        s = e;
    }
    static const int order[] = {2, 3, 1, 0};
    char shuffled[sizeof cut_text];
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        memcpy(shuffled + at, part[order[i]], len[order[i]]);
        at += len[order[i]];
    }
    shuffled[at] = '\0';
    g = rd(shuffled, NULL);
    cut_bounds(g, name, lo, hi, 6);
    cgprop_graph_free(g);
    /* Merged with another graph, which stacks of a showed b is known no
     * more: b may lack all 5, as any function a does not start. */
    g = rd(cut_text, NULL);
    cgprop_graph *h = rd(cut_text, NULL);
    ck_assert_int_eq(cgprop_graph_merge(g, h), CGPROP_OK);
    cgprop_graph_free(h);
    tanalyse(g, CGPROP_SHARE_COST);
    cgprop_total_row r = ttotals_row(g, 0, tfind(g, "/p\t\tb"));
    ck_assert(r.lo == 12 && r.hi == 20 && r.estimate == CGPROP_EST_MEASURED);
    r = ttotals_row(g, 0, tfind(g, "/p\t\ta"));
    ck_assert(r.lo == 12 && r.hi == 12 && r.estimate == CGPROP_EST_EXACT);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(detect)
{
    ck_assert_uint_eq(cgprop_read_detect(hand, strlen(hand)), CGPROP_INPUT_PERF);
    /* perf script -F event,ip,sym,dso: the event opens the header */
    const char *e = "page-faults: \n\tffffffff81775b9a elf_load ([kernel.kallsyms])\n";
    ck_assert_uint_eq(cgprop_read_detect(e, strlen(e)), CGPROP_INPUT_PERF);
    /* --show-task-events: records before the first sample, none after it */
    const char *t = "perf-exec     0     0.000000: PERF_RECORD_COMM: perf-exec:20716/20716\n"
                    "m 20716 76931.679622: PERF_RECORD_COMM exec: m:20716/20716\n"
                    "m 20716 76931.680278:     500000 cpu-clock: \n\t           1ab73 _start+0x3 (/lib/ld.so)\n";
    ck_assert_uint_eq(cgprop_read_detect(t, strlen(t)), CGPROP_INPUT_PERF);
    const char *r = "m 20716 76931.679622: PERF_RECORD_COMM exec: m:20716/20716\n";
    ck_assert_uint_ne(cgprop_read_detect(r, strlen(r)), CGPROP_INPUT_PERF);
    /* without call chains: two headers, each with its frame */
    const char *ng = "p 7 1.0:   3 cpu-clock:            4005d0 main+0x10 (/bin/p)\n"
                     "p 7 1.1:   3 cpu-clock:            4005e4 f+0x4 (/bin/p)\n";
    ck_assert_uint_eq(cgprop_read_detect(ng, strlen(ng)), CGPROP_INPUT_PERF);
    ck_assert_uint_ne(cgprop_read_detect(ng, (size_t)(strchr(ng, '\n') + 1 - ng)), CGPROP_INPUT_PERF);
    const char *f = "main;a;b 3\n";
    ck_assert_uint_eq(cgprop_read_detect(f, strlen(f)), CGPROP_INPUT_FOLDED);
    const char *c = "events: Ir\nfn=main\n1 2\n";
    ck_assert_uint_eq(cgprop_read_detect(c, strlen(c)), CGPROP_INPUT_CALLGRIND);
    /* by content, through the ordinary entry point */
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_info_init(&info);
    ck_assert_int_eq(cgprop_read_buffer(hand, strlen(hand), NULL, 0, NULL, NULL, &g, &info, NULL), CGPROP_OK);
    ck_assert_uint_eq(info.format, CGPROP_INPUT_PERF);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(alloc_failures)
{
    /* The second input also makes the reader remember inlined frames. */
    const char *text = _i ? inlined_text : hand;
    tfail_read_sweep(text, strlen(text), "a", 5000);
}
END_TEST

START_TEST(real_recording)
{
    /* perf record -g: six symbols for each of the two events */
    ck_assert_int_eq(against_report(DATA "/perf/recur.perf", DATA "/perf/recur.report", true), 12);
    /* --call-graph dwarf: __libc_start_main_impl comes as an inlined frame */
    ck_assert_int_eq(against_report(DATA "/perf/recur-dwarf.perf", DATA "/perf/recur-dwarf.report", true), 8);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("perf");
    TCase *tc = tcase_create("perf");
    tcase_add_test(tc, hand_made);
    tcase_add_test(tc, header_variants);
    tcase_add_test(tc, header_time_anchor);
    tcase_add_test(tc, header_without_time);
    tcase_add_test(tc, event_first);
    tcase_add_test(tc, side_band_and_extras);
    tcase_add_test(tc, addr_field);
    tcase_add_test(tc, dso_parentheses);
    tcase_add_test(tc, address_only_frames);
    tcase_add_test(tc, frame_variants);
    tcase_add_test(tc, same_depth);
    tcase_add_test(tc, inlined_without_real_frame);
    tcase_add_test(tc, no_callchain);
    tcase_add_test(tc, malformed);
    tcase_add_test(tc, late_events);
    tcase_add_test(tc, no_event_field);
    tcase_add_test(tc, cut_stacks_shown);
    tcase_add_test(tc, detect);
    tcase_add_loop_test(tc, alloc_failures, 0, 2);
    tcase_add_test(tc, real_recording);
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
