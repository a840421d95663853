/* cgprop: the command-line front end. Uses only the public headers:
 * read -> find_cycles -> collapse(share) -> propagate -> split -> write. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgprop.h"
#include "cgprop_io.h"

static const char usage[] =
    "usage: cgprop report [options] FILE       (FILE '-' reads standard input)\n"
    "\n"
    "Reads a profile and reports inclusive costs that are right under recursion.\n"
    "\n"
    "options:\n"
    "  --input callgrind|folded|events|auto   input format (default auto: by content)\n"
    "          pstats|cprofile|gprof          (Python statistics; gprof's text report)\n"
    "  --format text|json|dot|callgrind       output format (default text)\n"
    "  --metric NAME            metric shown by text and dot (default: the first)\n"
    "  --share cost|count       propagate by call cost or call count\n"
    "                           (default: cost when calls have costs, else count)\n"
    "  --separate-recs N        callgrind: the --separate-recs=N the file was made with\n"
    "                           (default: detected; 1 withholds the recursive split)\n"
    "  --node-thres P           dot: drop functions below P % of the program (default 0.5)\n"
    "  --edge-thres P           dot: drop calls below P % of the program (default 0.1)\n"
    "  --key full|name          callgrind: key functions by object+file+name (full,\n"
    "                           default) or by bare name (as gprof2dot does)\n"
    "  --no-fold-recursion      callgrind: keep fn'N names as separate functions\n"
    "  --heuristic-only         text/dot: show gprof2dot's estimate, unclamped, even\n"
    "                           where the exact inclusive cost is known\n"
    "  --bounds                 text: show the proven interval of every figure that\n"
    "                           is not exact, and why it is not\n"
    "  --estimate midpoint|walk|heuristic\n"
    "                           what a cycle member shows when only measured call\n"
    "                           costs bound it (no recursion levels): the midpoint of\n"
    "                           the absorbing walk and gprof2dot's heuristic (default)\n"
    "                           or either model alone; every figure stays inside its\n"
    "                           interval\n"
    "  --walk-budget U          work the walk may spend per cycle member, in front\n"
    "                           units (default 20, times at least 10000; 0: no\n"
    "                           limit); a cycle past it\n"
    "                           keeps the heuristic\n"
    "  --delta-i X[,X..]        events: overhead inside an event, in counter units;\n"
    "                           one value for every metric or one per metric\n"
    "  --delta-e Y[,Y..]        events: overhead outside an event (seen by ancestors)\n"
    "  --post-mortem            events: compensate post-mortem instead of on the fly\n"
    "  --clamp                  events, on the fly: floor negative figures at 0 (TAU)\n"
    "  -o FILE                  write to FILE instead of standard output\n"
    "  -h, --help               show this help and exit\n"
    "  --version                show the version and exit\n"
    "\n"
    "Text and dot show the exact inclusive cost C_n wherever the input tells it\n"
    "(callgrind fn'N names, stacks, event traces, measured call costs that pin it\n"
    "down) and elsewhere gprof2dot's heuristic kept inside the interval the\n"
    "measured costs prove, marked '~' (an estimate). JSON carries the figure,\n"
    "the heuristic, the interval and the reason.\n";

/* ---- progress on a terminal: a SIGALRM tick once a second ---- */

static volatile sig_atomic_t g_stage;
static volatile sig_atomic_t g_ticks;
static const char *const g_stage_msg[] = {"", "\rcgprop: reading...   ", "\rcgprop: analysing... ",
                                          "\rcgprop: writing...   "};

static void on_alarm(int sig)
{
    (void)sig;
    int s = g_stage;
    if (s > 0 && s < 4) {
        const char *m = g_stage_msg[s];
        ssize_t r = write(STDERR_FILENO, m, strlen(m));
        (void)r;
        g_ticks = g_ticks + 1;
    }
    alarm(1);
}

static void progress_start(void)
{
    if (!isatty(STDERR_FILENO)) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (sigaction(SIGALRM, &sa, NULL) == 0) alarm(1);
}

static void progress_end(void)
{
    if (!isatty(STDERR_FILENO)) return;
    alarm(0);
    g_stage = 0;
    if (g_ticks) {
        ssize_t r = write(STDERR_FILENO, "\r\033[K", 4);
        (void)r;
    }
}

/* ---- helpers ---- */

static int fail(const char *fmt, const char *a, const char *b)
{
    progress_end();
    fprintf(stderr, "cgprop: ");
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    return 1;
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    /* Underflow (1e-400) is a percent too small to tell from 0, not an error. */
    if (errno == ERANGE && x < 1) errno = 0;
    if (!*s || *end || errno || !(x >= 0 && x <= 100)) return -1;
    *out = x;
    return 0;
}

static int parse_u32(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long x = strtoul(s, &end, 10);
    if (!*s || *end || errno || x > 0xFFFFFFFFul || *s == '-') return -1;
    *out = (uint32_t)x;
    return 0;
}

/* Per-metric counter units: "5" (every metric) or "5,0,2" (metric by metric,
 * the rest 0). */
static int parse_list(const char *s, uint64_t *out)
{
    uint64_t v[CGPROP_MAX_METRICS];
    size_t n = 0;
    if (!*s) return -1;
    for (const char *p = s;;) {
        char *end;
        if (*p < '0' || *p > '9' || n == CGPROP_MAX_METRICS) return -1;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        if (errno || x > (unsigned long long)INT64_MAX) return -1;
        v[n++] = (uint64_t)x;
        if (*end == '\0') break;
        if (*end != ',') return -1;
        p = end + 1;
    }
    for (size_t k = 0; k < CGPROP_MAX_METRICS; k++) out[k] = n == 1 ? v[0] : k < n ? v[k] : 0;
    return 0;
}

static int out_sink(void *user, const char *data, size_t len)
{
    return fwrite(data, 1, len, (FILE *)user) == len ? 0 : -1;
}

static const char *recursion_text(uint32_t r)
{
    switch (r) {
    case CGPROP_RECS_NONE: return "no recursion in the input: every total is exact";
    case CGPROP_RECS_NAMES: return "recursion classes from fn'N names";
    case CGPROP_RECS_WITHHELD:
        return "recursion without fn'N names (--separate-recs=1?): recursive functions show estimates";
    case CGPROP_RECS_STACKS: return "recursion classes from the stacks themselves";
    case CGPROP_RECS_UNFOLDED: return "fn'N names kept apart (--no-fold-recursion): recursive functions show estimates";
    default: return "";
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("cgprop %s\n", cgprop_version_string());
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "report") != 0)
        return fail(argc < 2 ? "missing command (try 'cgprop report FILE' or --help)%s%s"
                             : "unknown command '%s' (try --help)%s",
                    argc < 2 ? "" : argv[1], ""),
               2;

    cgprop_read_options ro;
    cgprop_read_options_init(&ro);
    cgprop_write_options wo;
    cgprop_write_options_init(&wo);
    uint32_t format = CGPROP_FORMAT_TEXT, share = CGPROP_SHARE_AUTO, estimate = CGPROP_EST_MIDPOINT;
    double walk_budget = CGPROP_WALK_BUDGET_DEFAULT;
    const char *metric = NULL, *outpath = NULL, *input = NULL;
    int recorder_opt = 0;
    cgprop_recorder_options rec;
    memset(&rec, 0, sizeof rec);

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(a, "--version")) {
            printf("cgprop %s\n", cgprop_version_string());
            return 0;
        }
        if (!strcmp(a, "-") || a[0] != '-') {
            if (input) return fail("more than one input file ('%s' and '%s')", input, a), 2;
            input = a;
            continue;
        }
        if (!strcmp(a, "--no-fold-recursion")) {
            ro.no_fold_recursion = 1;
            continue;
        }
        if (!strcmp(a, "--heuristic-only")) {
            wo.flags |= CGPROP_W_HEURISTIC_ONLY;
            continue;
        }
        if (!strcmp(a, "--bounds")) {
            wo.flags |= CGPROP_W_BOUNDS;
            continue;
        }
        if (!strcmp(a, "--post-mortem")) {
            rec.mode = CGPROP_COMP_POSTMORTEM;
            recorder_opt = 1;
            continue;
        }
        if (!strcmp(a, "--clamp")) {
            rec.flags |= CGPROP_REC_CLAMP;
            recorder_opt = 1;
            continue;
        }
        /* Options with a value: "--opt VALUE" or "--opt=VALUE". */
        static const char *const with_value[] = {"--input", "--format", "--metric", "--share",
                                                 "--separate-recs", "--node-thres", "--edge-thres",
                                                 "--key", "--delta-i", "--delta-e", "--estimate",
                                                 "--walk-budget", "-o", NULL};
        const char *val = NULL;
        char name[32];
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name) return fail("unknown option '%s' (try --help)%s", a, ""), 2;
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        int known = 0;
        for (int k = 0; with_value[k]; k++)
            if (!strcmp(name, with_value[k])) known = 1;
        if (!known) return fail("unknown option '%s' (try --help)%s", a, ""), 2;
        if (eq)
            val = eq + 1;
        else if (i + 1 < argc)
            val = argv[++i];
        else
            return fail("option %s needs a value%s", name, ""), 2;

        if (!strcmp(name, "--input")) {
            if (!strcmp(val, "callgrind")) ro.format = CGPROP_INPUT_CALLGRIND;
            else if (!strcmp(val, "folded")) ro.format = CGPROP_INPUT_FOLDED;
            else if (!strcmp(val, "events")) ro.format = CGPROP_INPUT_EVENTS;
            else if (!strcmp(val, "pstats") || !strcmp(val, "cprofile")) ro.format = CGPROP_INPUT_PSTATS;
            else if (!strcmp(val, "gprof")) ro.format = CGPROP_INPUT_GPROF;
            else if (!strcmp(val, "auto")) ro.format = CGPROP_INPUT_AUTO;
            else return fail("--input: unknown format '%s' (callgrind, folded, events, pstats, gprof, auto)%s", val, ""), 2;
        } else if (!strcmp(name, "--format")) {
            if (!strcmp(val, "text")) format = CGPROP_FORMAT_TEXT;
            else if (!strcmp(val, "json")) format = CGPROP_FORMAT_JSON;
            else if (!strcmp(val, "dot")) format = CGPROP_FORMAT_DOT;
            else if (!strcmp(val, "callgrind")) format = CGPROP_FORMAT_CALLGRIND;
            else return fail("--format: unknown format '%s' (text, json, dot, callgrind)%s", val, ""), 2;
        } else if (!strcmp(name, "--metric")) {
            metric = val;
        } else if (!strcmp(name, "--share")) {
            if (!strcmp(val, "cost")) share = CGPROP_SHARE_COST;
            else if (!strcmp(val, "count")) share = CGPROP_SHARE_COUNT;
            else return fail("--share: expected cost or count, got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "--separate-recs")) {
            /* The reader's own bound, checked here so it is a usage error. */
            if (parse_u32(val, &ro.separate_recs) || ro.separate_recs == 0 || ro.separate_recs > 1000000u)
                return fail("--separate-recs: expected an integer from 1 to 1000000, got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "--node-thres")) {
            if (parse_double(val, &wo.node_thres))
                return fail("--node-thres: expected a percent in [0, 100], got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "--edge-thres")) {
            if (parse_double(val, &wo.edge_thres))
                return fail("--edge-thres: expected a percent in [0, 100], got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "--key")) {
            if (!strcmp(val, "full")) ro.key_mode = CGPROP_KEY_FULL;
            else if (!strcmp(val, "name")) ro.key_mode = CGPROP_KEY_NAME;
            else return fail("--key: expected full or name, got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "--delta-i") || !strcmp(name, "--delta-e")) {
            if (parse_list(val, name[8] == 'i' ? rec.delta_i : rec.delta_e))
                return fail("%s: expected counter units (integers) separated by commas, got '%s'", name, val), 2;
            recorder_opt = 1;
        } else if (!strcmp(name, "--estimate")) {
            if (!strcmp(val, "midpoint")) estimate = CGPROP_EST_MIDPOINT;
            else if (!strcmp(val, "walk")) estimate = CGPROP_EST_WALK;
            else if (!strcmp(val, "heuristic")) estimate = CGPROP_EST_HEURISTIC;
            else return fail("--estimate: expected midpoint, walk or heuristic, got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "--walk-budget")) {
            char *end;
            errno = 0;
            walk_budget = strtod(val, &end);
            if (!*val || *end || errno || !(walk_budget >= 0) || walk_budget == HUGE_VAL)
                return fail("--walk-budget: expected front units per member (0: no limit), got '%s'%s", val, ""), 2;
        } else if (!strcmp(name, "-o")) {
            outpath = val;
        }
    }
    if (!input) return fail("no input file (try --help)%s%s", "", ""), 2;
    if (recorder_opt) {
        if (ro.format != CGPROP_INPUT_AUTO && ro.format != CGPROP_INPUT_EVENTS)
            return fail("--delta-i, --delta-e, --post-mortem and --clamp apply to event traces only%s%s", "", ""), 2;
        if (rec.mode == CGPROP_COMP_POSTMORTEM && (rec.flags & CGPROP_REC_CLAMP))
            return fail("--clamp works on the fly only, not with --post-mortem%s%s", "", ""), 2;
        if (rec.mode == CGPROP_COMP_OFF) rec.mode = CGPROP_COMP_ONLINE;
    }

    progress_start();
    g_stage = 1;
    cgprop_graph *g = NULL;
    cgprop_read_info info;
    cgprop_read_error err;
    memset(&info, 0, sizeof info);
    memset(&err, 0, sizeof err);
    cgprop_events_info einfo;
    memset(&einfo, 0, sizeof einfo);
    int rc;
    if (recorder_opt) {
        /* Compensation needs the recorder's own reader. */
        rc = cgprop_events_read_file(input, strlen(input), &rec, NULL, &g, &einfo, &err);
        info.format = CGPROP_INPUT_EVENTS;
        info.recursion = CGPROP_RECS_STACKS;
    } else {
        rc = cgprop_read_file(input, strlen(input), &ro, NULL, &g, &info, &err);
    }
    if (rc != CGPROP_OK) {
        progress_end();
        const char *file = err.file[0] ? err.file : input;
        if (err.line)
            fprintf(stderr, "cgprop: %s:%llu: %s\n", file, (unsigned long long)err.line,
                    err.reason[0] ? err.reason : cgprop_strerror(rc));
        else
            fprintf(stderr, "cgprop: %s: %s\n", file, err.reason[0] ? err.reason : cgprop_strerror(rc));
        return 1;
    }

    g_stage = 2;
    if (metric) {
        if (cgprop_graph_find_metric(g, metric, strlen(metric), &wo.metric) != CGPROP_OK) {
            char list[512] = "";
            for (size_t k = 0; k < cgprop_graph_metric_count(g) && strlen(list) < 400; k++) {
                if (k) strcat(list, ", ");
                strncat(list, cgprop_graph_metric_name(g, (uint32_t)k, NULL), 100);
            }
            fail("--metric: no metric '%s' in the input (it has: %s)", metric, list);
            cgprop_graph_free(g);
            return 2;
        }
    }
    /* The split before propagate, which reuses a current one (after it, a
     * second split would be built while the first is still held). */
    const char *step = "find_cycles";
    if ((rc = cgprop_graph_set_estimate(g, estimate, walk_budget)) == CGPROP_OK &&
        (rc = cgprop_graph_find_cycles(g, NULL)) == CGPROP_OK && (step = "collapse") &&
        (rc = cgprop_graph_collapse(g, share)) == CGPROP_OK && (step = "split") &&
        (rc = cgprop_graph_split(g)) == CGPROP_OK && (step = "propagate"))
        rc = cgprop_graph_propagate(g);
    if (rc != CGPROP_OK) {
        fail("%s: %s", input, cgprop_graph_errmsg(g));
        cgprop_graph_free(g);
        return 1;
    }
    (void)step;

    g_stage = 3;
    FILE *out = stdout;
    if (outpath && strcmp(outpath, "-") != 0) {
        out = fopen(outpath, "wb");
        if (!out) {
            fail("%s: %s", outpath, strerror(errno));
            cgprop_graph_free(g);
            return 1;
        }
    }
    if (format == CGPROP_FORMAT_TEXT) {
        fprintf(out, "Input: %s (%s)\n", strcmp(input, "-") ? input : "standard input",
                recursion_text(info.recursion));
        if (recorder_opt)
            fprintf(out, "Overhead compensated %s; %llu clamps, %llu figures floored at 0\n",
                    rec.mode == CGPROP_COMP_POSTMORTEM ? "post-mortem" : "on the fly",
                    (unsigned long long)einfo.clamps, (unsigned long long)einfo.floors);
        fputc('\n', out);
    }
    rc = cgprop_write(g, format, &wo, out_sink, out);
    int werr = rc == CGPROP_EWRITE || fflush(out) != 0 || ferror(out);
    if (out != stdout && fclose(out) != 0) werr = 1;
    if (rc != CGPROP_OK || werr) {
        if (werr)
            fail("%s: write failed: %s", outpath ? outpath : "standard output", strerror(errno));
        else
            fail("%s: %s", input, cgprop_graph_errmsg(g));
        cgprop_graph_free(g);
        return 1;
    }
    progress_end();
    cgprop_graph_free(g);
    return 0;
}
