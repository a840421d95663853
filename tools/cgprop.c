/* cgprop: the command-line front end. Uses only the public headers:
 * read -> find_cycles -> collapse(share) -> propagate -> split -> write. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgprop.h"
#include "cgprop_io.h"

static const char usage[] =
    "usage: cgprop report [options] FILE...    (FILE '-' reads standard input)\n"
    "\n"
    "Reads a profile and reports inclusive costs that are right under recursion.\n"
    "\n"
    "options:\n"
    "  --input FORMAT           input format: callgrind, folded, events, perf, pprof,\n"
    "                           v8 (.cpuprofile, .heapprofile, Chrome trace; also\n"
    "                           named cpuprofile), pstats (Python cProfile\n"
    "                           statistics; also named cprofile), gprof (its text\n"
    "                           report) or auto (default: by content); any of them\n"
    "                           may be gzipped\n"
    "  --format text|json|dot|callgrind|flamegraph\n"
    "                           output format (default text); flamegraph: an SVG\n"
    "                           of the calling contexts (stack inputs only)\n"
    "  --metric NAME            metric shown by text and dot (default: the input's own,\n"
    "                           pprof's default sample type; else the first); pprof's\n"
    "                           sample type without its unit, or its index, works too\n"
    "  --share cost|count       propagate by call cost or call count\n"
    "                           (default: cost when calls have costs, else count)\n"
    "  --separate-recs N        callgrind: the --separate-recs=N the file was made with\n"
    "                           (default: detected; 1 withholds the recursive split)\n"
    "  --node-thres P           dot: drop functions below P % of the program (default 0.5)\n"
    "  --edge-thres P           dot: drop calls below P % of the program (default 0.1)\n"
    "  --cycles label|cluster|none\n"
    "                           dot: name each cycle in its members' labels (default),\n"
    "                           box it as a cluster (some graphviz versions fail to\n"
    "                           lay clusters out), or not show cycles\n"
    "  --key full|name          callgrind, pprof: key functions by object+file+name (full,\n"
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
    "  --walk-budget U          the walk's work on a cycle of n members: at most\n"
    "                           U * max(n, 10000) front units (default 20; 0: no\n"
    "                           limit); a cycle past it keeps the heuristic\n"
    "  --delta-i X[,X..]        events: overhead inside an event, in counter units;\n"
    "                           one value for every metric or one per metric\n"
    "  --delta-e Y[,Y..]        events: overhead outside an event (seen by ancestors)\n"
    "  --post-mortem            events: compensate post-mortem instead of on the fly\n"
    "  --clamp                  events, on the fly: floor negative figures at 0 (TAU)\n"
    "  --icicle                 flamegraph: draw it top-down (an icicle graph)\n"
    "  -o FILE                  write to FILE instead of standard output\n"
    "  --compare BASE           text, json, dot: how each function's figures changed\n"
    "                           from the profile BASE to the FILEs (read with the\n"
    "                           same options); '~' marks changes that are estimates\n"
    "  -h, --help               show this help and exit\n"
    "  --version                show the version and exit\n";

/* Printed right after usage; two strings, each within the length C99
 * compilers must take. */
static const char usage_view[] =
    "\n"
    "Text and dot show the exact inclusive cost C_n wherever the input tells it\n"
    "(callgrind fn'N names, stacks, event traces, measured call costs that pin it\n"
    "down) and elsewhere gprof2dot's heuristic kept inside the interval the\n"
    "measured costs prove, marked '~' (an estimate). JSON carries the figure,\n"
    "the heuristic, the interval and the reason.\n"
    "\n"
    "view options (text and dot):\n"
    "  --root F, --leaf F       text/dot: only what F reaches / what reaches F\n"
    "                           (F: a key or a display name; may be repeated)\n"
    "  --depth N                with --root/--leaf: at most N calls away\n"
    "  --focus RE               text/dot: only functions on a path through a\n"
    "                           function whose name matches RE (POSIX extended)\n"
    "  --hide RE                text/dot: leave out functions whose name matches RE\n"
    "                           (their cost stays in their callers, shown 'hidden')\n"
    "  --top N                  text/dot: only the N functions with the largest total\n"
    "  --strip                  text/dot: drop C++ argument lists and template\n"
    "                           arguments from names\n"
    "  --wrap                   dot: wrap long names over several lines\n"
    "  --colormap color|pink|gray|bw|print\n"
    "                           dot: gprof2dot's colour maps (default color)\n"
    "  --skew X                 dot: skew of the colour curve (default 1; below 1\n"
    "                           tells small figures apart)\n"
    "  --label LIST             dot: what boxes and arrows show, a comma list of\n"
    "                           total, self (percents), total-value, self-value,\n"
    "                           calls (default total,self,calls)\n"
    "  (--node-thres or --edge-thres, when given, prune the text report too)\n";

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

/* Reports reach the kernel in writes of 256 KiB. stdio's own buffer is one
 * 4 KiB block, which cut each of the library's 16 KiB pieces into two
 * writes; on ext4 the JSON report of a million calls (526 MB) spent 0.36 s
 * in the kernel that way and 0.16 s in 256 KiB writes. 1 MiB writes
 * measured slower again (0.45 s). A terminal keeps its line buffering. */
enum { OUT_BUF = 256 * 1024 };
static char stdout_buf[OUT_BUF];

/* The report's stream: stdout, or path opened for writing with its buffer
 * in *buf (freed by close_out). NULL when path cannot be opened. */
static FILE *open_out(const char *path, char **buf)
{
    *buf = NULL;
    if (!path || strcmp(path, "-") == 0) {
        if (!isatty(fileno(stdout))) setvbuf(stdout, stdout_buf, _IOFBF, sizeof stdout_buf);
        return stdout;
    }
    FILE *f = fopen(path, "wb");
    if (f && (*buf = malloc(OUT_BUF)) != NULL) setvbuf(f, *buf, _IOFBF, OUT_BUF);
    return f;
}

/* Flushes (and closes a file); non-zero when a write failed. */
static int close_out(FILE *out, char *buf)
{
    int werr = fflush(out) != 0 || ferror(out);
    if (out != stdout && fclose(out) != 0) werr = 1;
    free(buf);
    return werr;
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
    case CGPROP_RECS_STATED: return "every function's inclusive cost stated by the input: every total is exact";
    case CGPROP_RECS_COUNTS:
        return "call counts without measured costs: inclusive figures are gprof's shares, estimates without an "
               "interval";
    default: return "";
    }
}

/* ---- options ---- */

static const struct {
    const char *name;
    uint32_t format;
} input_names[] = {
    {"auto", CGPROP_INPUT_AUTO}, {"callgrind", CGPROP_INPUT_CALLGRIND}, {"folded", CGPROP_INPUT_FOLDED},
    {"events", CGPROP_INPUT_EVENTS}, {"perf", CGPROP_INPUT_PERF}, {"pprof", CGPROP_INPUT_PPROF},
    {"v8", CGPROP_INPUT_V8}, {"cpuprofile", CGPROP_INPUT_V8}, {"pstats", CGPROP_INPUT_PSTATS},
    {"cprofile", CGPROP_INPUT_PSTATS}, {"gprof", CGPROP_INPUT_GPROF},
};

typedef struct opts {
    cgprop_read_options ro;
    cgprop_write_options wo;
    cgprop_recorder_options rec;
    uint64_t delta_i[CGPROP_MAX_METRICS], delta_e[CGPROP_MAX_METRICS];
    int recorder_opt;
    uint32_t format, share, estimate;
    double walk_budget;
    const char *metric, *outpath;
    const char *compare; /* --compare BASE */
    const char **inputs;
    int ninputs;
    /* View controls: names and patterns as given, resolved once the graph
     * is read (the library takes node ids). */
    const char **root_names, **leaf_names, **focus_re, **hide_re;
    size_t nroot_names, nleaf_names, nfocus_re, nhide_re;
} opts;

/* The view options with a value (--root … --label). Returns 0, or 2 after
 * a usage message. */
static int set_view_value(opts *o, const char *name, const char *val)
{
    if (!strcmp(name, "--root")) o->root_names[o->nroot_names++] = val;
    else if (!strcmp(name, "--leaf")) o->leaf_names[o->nleaf_names++] = val;
    else if (!strcmp(name, "--focus")) o->focus_re[o->nfocus_re++] = val;
    else if (!strcmp(name, "--hide")) o->hide_re[o->nhide_re++] = val;
    else if (!strcmp(name, "--depth")) {
        if (parse_u32(val, &o->wo.depth) || o->wo.depth == CGPROP_DEPTH_ALL)
            return fail("--depth: expected a number of calls, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--top")) {
        if (parse_u32(val, &o->wo.top) || o->wo.top == 0)
            return fail("--top: expected a number of functions above 0, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--colormap")) {
        static const char *const maps[] = {"color", "pink", "gray", "bw", "print"};
        uint32_t k = 0;
        while (k < 5 && strcmp(val, maps[k])) k++;
        if (k == 5) return fail("--colormap: expected color, pink, gray, bw or print, got '%s'%s", val, ""), 2;
        o->wo.colormap = CGPROP_COLORMAP_COLOR + k;
    } else if (!strcmp(name, "--skew")) {
        char *end;
        errno = 0;
        o->wo.skew = strtod(val, &end);
        if (!*val || *end || errno || !(o->wo.skew > 0) || o->wo.skew == HUGE_VAL)
            return fail("--skew: expected a number above 0, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--label")) {
        /* gprof2dot's --node-label names are accepted too. */
        static const struct {
            const char *name;
            uint32_t bit;
        } labels[] = {{"total", CGPROP_LABEL_TOTAL_PCT}, {"self", CGPROP_LABEL_SELF_PCT},
                      {"calls", CGPROP_LABEL_CALLS}, {"total-value", CGPROP_LABEL_TOTAL},
                      {"self-value", CGPROP_LABEL_SELF}, {"total-time-percentage", CGPROP_LABEL_TOTAL_PCT},
                      {"self-time-percentage", CGPROP_LABEL_SELF_PCT}, {"total-time", CGPROP_LABEL_TOTAL},
                      {"self-time", CGPROP_LABEL_SELF}};
        uint32_t bits = 0;
        for (const char *p = val;;) {
            size_t n = strcspn(p, ",");
            size_t k = 0;
            while (k < sizeof labels / sizeof *labels && (strlen(labels[k].name) != n || strncmp(p, labels[k].name, n)))
                k++;
            if (k == sizeof labels / sizeof *labels)
                return fail("--label: expected a comma list of total, self, total-value, self-value, calls; got "
                            "'%s'%s", val, ""), 2;
            bits |= labels[k].bit;
            if (!p[n]) break;
            p += n + 1;
        }
        o->wo.label = bits;
    }
    return 0;
}

/* F of --root/--leaf: a key, else the one function of that display name.
 * Returns 0, or 2 after a message (none, or several: their keys listed). */
static int resolve_name(cgprop_graph *g, const char *opt, const char *f, uint32_t *out)
{
    size_t flen = strlen(f);
    if (cgprop_graph_find_node(g, f, flen, out) == CGPROP_OK) return 0;
    /* A key as the ambiguity message spells it, TABs written \t. */
    char *key = malloc(flen + 1);
    if (!key) return fail("out of memory%s%s", "", "");
    size_t kl = 0;
    for (size_t i = 0; i < flen; i++) {
        if (f[i] == '\\' && f[i + 1] == 't') key[kl++] = '\t', i++;
        else key[kl++] = f[i];
    }
    int found_key = kl < flen && cgprop_graph_find_node(g, key, kl, out) == CGPROP_OK;
    free(key);
    if (found_key) return 0;
    size_t nn = cgprop_graph_node_count(g), found = 0;
    for (size_t i = 0; i < nn; i++) {
        size_t n;
        const char *name = cgprop_node_display_name(g, (uint32_t)i, &n);
        if (name && n == flen && !memcmp(name, f, n)) {
            if (!found) *out = (uint32_t)i;
            found++;
        }
    }
    if (found == 1) return 0;
    progress_end();
    if (!found) {
        fprintf(stderr, "cgprop: %s: no function '%s' in the input\n", opt, f);
        return 2;
    }
    fprintf(stderr, "cgprop: %s: '%s' is ambiguous (%zu functions); give one of these keys:\n", opt, f, found);
    for (size_t i = 0, shown = 0; i < nn; i++) {
        size_t n;
        const char *name = cgprop_node_display_name(g, (uint32_t)i, &n);
        if (!name || n != flen || memcmp(name, f, n)) continue;
        if (shown++ == 20) {
            fprintf(stderr, "  ...\n");
            break;
        }
        size_t kl;
        const char *key = cgprop_graph_node_key(g, (uint32_t)i, &kl);
        fputs("  ", stderr);
        for (size_t j = 0; j < kl; j++) fputs(key[j] == '\t' ? "\\t" : (char[2]){key[j], 0}, stderr);
        fputc('\n', stderr);
    }
    return 2;
}

/* The functions whose display name matches any of the patterns. */
static int match_names(cgprop_graph *g, const char *opt, const char **re, size_t nre, uint32_t **ids, size_t *nids)
{
    size_t nn = cgprop_graph_node_count(g);
    *ids = malloc((nn ? nn : 1) * sizeof **ids);
    *nids = 0;
    if (!*ids) return fail("out of memory%s%s", "", "");
    char *buf = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < nre; r++) {
        regex_t rx;
        int e = regcomp(&rx, re[r], REG_EXTENDED | REG_NOSUB);
        if (e) {
            char msg[256];
            regerror(e, &rx, msg, sizeof msg);
            free(buf);
            fprintf(stderr, "cgprop: %s: bad regular expression '%s': %s\n", opt, re[r], msg);
            return 2;
        }
        for (size_t i = 0; i < nn; i++) {
            size_t n;
            const char *name = cgprop_node_display_name(g, (uint32_t)i, &n);
            if (!name) continue;
            if (n + 1 > cap) {
                char *nb = realloc(buf, n + 1);
                if (!nb) {
                    regfree(&rx);
                    free(buf);
                    return fail("out of memory%s%s", "", "");
                }
                buf = nb;
                cap = n + 1;
            }
            memcpy(buf, name, n);
            buf[n] = '\0';
            if (regexec(&rx, buf, 0, NULL, 0) == 0) {
                size_t k = 0;
                while (k < *nids && (*ids)[k] != i) k++;
                if (k == *nids) (*ids)[(*nids)++] = (uint32_t)i;
            }
        }
        regfree(&rx);
    }
    free(buf);
    return 0;
}

/* Node ids for the library from the view options' names and patterns. */
typedef struct view_ids {
    uint32_t *roots, *leaves, *focus, *hide;
} view_ids;

static int resolve_view(opts *o, cgprop_graph *g, view_ids *vi)
{
    size_t n = o->nroot_names + o->nleaf_names;
    vi->roots = malloc((n ? n : 1) * sizeof *vi->roots);
    if (!vi->roots) return fail("out of memory%s%s", "", "");
    vi->leaves = vi->roots + o->nroot_names;
    for (size_t i = 0; i < o->nroot_names; i++)
        if (resolve_name(g, "--root", o->root_names[i], &vi->roots[i])) return 2;
    for (size_t i = 0; i < o->nleaf_names; i++)
        if (resolve_name(g, "--leaf", o->leaf_names[i], &vi->leaves[i])) return 2;
    o->wo.roots = vi->roots, o->wo.nroots = o->nroot_names;
    o->wo.leaves = vi->leaves, o->wo.nleaves = o->nleaf_names;
    int rc;
    if ((rc = match_names(g, "--focus", o->focus_re, o->nfocus_re, &vi->focus, &o->wo.nfocus))) return rc;
    if ((rc = match_names(g, "--hide", o->hide_re, o->nhide_re, &vi->hide, &o->wo.nhide))) return rc;
    if (o->nfocus_re && !o->wo.nfocus) return fail("--focus: no function name matches%s%s", "", ""), 2;
    o->wo.focus = vi->focus;
    o->wo.hide = vi->hide;
    return 0;
}

/* One "--name VALUE" option. Returns 0, or 2 after a usage message. */
static int set_value(opts *o, const char *name, const char *val)
{
    if (!strcmp(name, "--input")) {
        for (size_t k = 0; k < sizeof input_names / sizeof *input_names; k++)
            if (!strcmp(val, input_names[k].name)) {
                o->ro.format = input_names[k].format;
                return 0;
            }
        return fail("--input: unknown format '%s' (callgrind, folded, events, perf, pprof, v8, pstats, gprof, auto)%s", val, ""), 2;
    } else if (!strcmp(name, "--format")) {
        if (!strcmp(val, "text")) o->format = CGPROP_FORMAT_TEXT;
        else if (!strcmp(val, "json")) o->format = CGPROP_FORMAT_JSON;
        else if (!strcmp(val, "dot")) o->format = CGPROP_FORMAT_DOT;
        else if (!strcmp(val, "callgrind")) o->format = CGPROP_FORMAT_CALLGRIND;
        else if (!strcmp(val, "flamegraph")) o->format = CGPROP_FORMAT_FLAMEGRAPH;
        else return fail("--format: unknown format '%s' (text, json, dot, callgrind, flamegraph)%s", val, ""), 2;
    } else if (!strcmp(name, "--metric")) {
        o->metric = val;
    } else if (!strcmp(name, "--share")) {
        if (!strcmp(val, "cost")) o->share = CGPROP_SHARE_COST;
        else if (!strcmp(val, "count")) o->share = CGPROP_SHARE_COUNT;
        else return fail("--share: expected cost or count, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--separate-recs")) {
        /* The reader's own bound, checked here so it is a usage error. */
        if (parse_u32(val, &o->ro.separate_recs) || o->ro.separate_recs == 0 || o->ro.separate_recs > 1000000u)
            return fail("--separate-recs: expected an integer from 1 to 1000000, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--node-thres")) {
        if (parse_double(val, &o->wo.node_thres))
            return fail("--node-thres: expected a percent in [0, 100], got '%s'%s", val, ""), 2;
        o->wo.flags |= CGPROP_W_PRUNE_TEXT;
    } else if (!strcmp(name, "--edge-thres")) {
        if (parse_double(val, &o->wo.edge_thres))
            return fail("--edge-thres: expected a percent in [0, 100], got '%s'%s", val, ""), 2;
        o->wo.flags |= CGPROP_W_PRUNE_TEXT;
    } else if (!strcmp(name, "--cycles")) {
        if (!strcmp(val, "label")) o->wo.cycles = CGPROP_DOT_CYCLES_LABEL;
        else if (!strcmp(val, "cluster")) o->wo.cycles = CGPROP_DOT_CYCLES_CLUSTER;
        else if (!strcmp(val, "none")) o->wo.cycles = CGPROP_DOT_CYCLES_NONE;
        else return fail("--cycles: expected label, cluster or none, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--key")) {
        if (!strcmp(val, "full")) o->ro.key_mode = CGPROP_KEY_FULL;
        else if (!strcmp(val, "name")) o->ro.key_mode = CGPROP_KEY_NAME;
        else return fail("--key: expected full or name, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--delta-i") || !strcmp(name, "--delta-e")) {
        if (parse_list(val, name[8] == 'i' ? o->delta_i : o->delta_e))
            return fail("%s: expected counter units (integers) separated by commas, got '%s'", name, val), 2;
        o->recorder_opt = 1;
    } else if (!strcmp(name, "--estimate")) {
        if (!strcmp(val, "midpoint")) o->estimate = CGPROP_EST_MIDPOINT;
        else if (!strcmp(val, "walk")) o->estimate = CGPROP_EST_WALK;
        else if (!strcmp(val, "heuristic")) o->estimate = CGPROP_EST_HEURISTIC;
        else return fail("--estimate: expected midpoint, walk or heuristic, got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "--walk-budget")) {
        char *end;
        errno = 0;
        o->walk_budget = strtod(val, &end);
        if (!*val || *end || errno || !(o->walk_budget >= 0) || o->walk_budget == HUGE_VAL)
            return fail("--walk-budget: expected front units per member (0: no limit), got '%s'%s", val, ""), 2;
    } else if (!strcmp(name, "-o")) {
        o->outpath = val;
    } else if (!strcmp(name, "--compare")) {
        o->compare = val;
    } else {
        return set_view_value(o, name, val);
    }
    return 0;
}

/* The arguments after "report". Returns 0 to go on, -1 when --help or
 * --version was answered, 2 after a usage message. */

/* The same file under two names (./a and a, a link): compared by device
 * and inode, so that the guard against counting a file twice does not hang
 * on its spelling. Standard input ("-") is only ever itself. */
static int same_file(const char *a, const char *b)
{
    if (!strcmp(a, b)) return 1;
    if (!strcmp(a, "-") || !strcmp(b, "-")) return 0;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int parse_args(int argc, char **argv, opts *o)
{
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            fputs(usage_view, stdout);
            return -1;
        }
        if (!strcmp(a, "--version")) {
            printf("cgprop %s\n", cgprop_version_string());
            return -1;
        }
        if (!strcmp(a, "-") || a[0] != '-') {
            o->inputs[o->ninputs++] = a;
            continue;
        }
        if (!strcmp(a, "--no-fold-recursion")) o->ro.no_fold_recursion = 1;
        else if (!strcmp(a, "--heuristic-only")) o->wo.flags |= CGPROP_W_HEURISTIC_ONLY;
        else if (!strcmp(a, "--bounds")) o->wo.flags |= CGPROP_W_BOUNDS;
        else if (!strcmp(a, "--strip")) o->wo.flags |= CGPROP_W_STRIP;
        else if (!strcmp(a, "--wrap")) o->wo.flags |= CGPROP_W_WRAP;
        else if (!strcmp(a, "--icicle")) o->wo.flags |= CGPROP_W_ICICLE;
        else if (!strcmp(a, "--post-mortem")) {
            o->rec.mode = CGPROP_COMP_POSTMORTEM;
            o->recorder_opt = 1;
        } else if (!strcmp(a, "--clamp")) {
            o->rec.flags |= CGPROP_REC_CLAMP;
            o->recorder_opt = 1;
        } else {
            /* Options with a value: "--opt VALUE" or "--opt=VALUE". */
            static const char *const with_value[] = {"--input", "--format", "--metric", "--share",
                                                     "--separate-recs", "--node-thres", "--edge-thres", "--cycles",
                                                     "--key", "--delta-i", "--delta-e", "--estimate",
                                                     "--walk-budget", "-o", "--root", "--leaf", "--depth",
                                                     "--focus", "--hide", "--top", "--colormap", "--skew",
                                                     "--label", "--compare", NULL};
            char name[32];
            const char *eq = strchr(a, '=');
            size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
            int known = 0;
            if (nlen < sizeof name) {
                memcpy(name, a, nlen);
                name[nlen] = '\0';
                for (int k = 0; with_value[k]; k++) known |= !strcmp(name, with_value[k]);
            }
            if (!known) return fail("unknown option '%s' (try --help)%s", a, ""), 2;
            const char *val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
            if (!val) return fail("option %s needs a value%s", name, ""), 2;
            int rc = set_value(o, name, val);
            if (rc) return rc;
        }
    }
    if (!o->ninputs) return fail("no input file (try --help)%s%s", "", ""), 2;
    for (int i = 0; i < o->ninputs; i++)
        for (int j = 0; j < i; j++)
            if (same_file(o->inputs[i], o->inputs[j]))
                return fail("'%s' is given twice (as '%s': its costs would count twice)", o->inputs[i], o->inputs[j]), 2;
    if (o->compare) {
        if (o->format == CGPROP_FORMAT_CALLGRIND)
            return fail("--compare writes text, json or dot, not callgrind%s%s", "", ""), 2;
        for (int i = 0; i < o->ninputs; i++)
            if (same_file(o->inputs[i], o->compare))
                return fail("'%s' is both the base and an input of --compare%s", o->compare, ""), 2;
    }
    if (o->recorder_opt) {
        if (o->ro.format != CGPROP_INPUT_AUTO && o->ro.format != CGPROP_INPUT_EVENTS)
            return fail("--delta-i, --delta-e, --post-mortem and --clamp apply to event traces only%s%s", "", ""), 2;
        if (o->rec.mode == CGPROP_COMP_POSTMORTEM && (o->rec.flags & CGPROP_REC_CLAMP))
            return fail("--clamp works on the fly only, not with --post-mortem%s%s", "", ""), 2;
        if (o->rec.mode == CGPROP_COMP_OFF) o->rec.mode = CGPROP_COMP_ONLINE;
    }
    return 0;
}

/* ---- reading ---- */

/* What one input file gave, for the report's header. */
typedef struct loaded {
    cgprop_read_info info;
    cgprop_events_info einfo;
} loaded;

static int read_one(const opts *o, const char *input, cgprop_graph **g, loaded *l)
{
    cgprop_read_error err;
    cgprop_read_error_init(&err);
    cgprop_read_info_init(&l->info);
    cgprop_events_info_init(&l->einfo);
    int rc;
    if (o->recorder_opt) {
        /* Compensation needs the recorder's own reader. */
        rc = cgprop_events_read_file(input, strlen(input), &o->rec, NULL, g, &l->einfo, &err);
        l->info.format = CGPROP_INPUT_EVENTS;
        l->info.recursion = CGPROP_RECS_STACKS;
    } else {
        rc = cgprop_read_file(input, strlen(input), &o->ro, NULL, g, &l->info, &err);
    }
    if (rc == CGPROP_OK) return 0;
    progress_end();
    const char *file = err.file[0] ? err.file : input;
    if (err.line)
        fprintf(stderr, "cgprop: %s:%llu: %s\n", file, (unsigned long long)err.line,
                err.reason[0] ? err.reason : cgprop_strerror(rc));
    else
        fprintf(stderr, "cgprop: %s: %s\n", file, err.reason[0] ? err.reason : cgprop_strerror(rc));
    /* Detection goes by a few lines; a short text (one perf sample) can be
     * read when named. */
    if (rc == CGPROP_EFORMAT && o->ro.format == CGPROP_INPUT_AUTO && strstr(err.reason, "unknown input format")) {
        /* Each format once, by its first name (the table lists aliases
         * after it). */
        fprintf(stderr, "cgprop: if it is one of these, name it: --input ");
        const char *sep = "";
        for (size_t k = 0; k < sizeof input_names / sizeof *input_names; k++) {
            if (input_names[k].format == CGPROP_INPUT_AUTO || (k && input_names[k].format == input_names[k - 1].format))
                continue;
            fprintf(stderr, "%s%s", sep, input_names[k].name);
            sep = "|";
        }
        fprintf(stderr, "\n");
    }
    return 1;
}

/* Every input into one graph: the first as read, the others merged into it
 * (functions with the same key become one, costs add up), as the runs of a
 * program or the per-thread files of callgrind --separate-threads add up. */
static int read_inputs(const opts *o, cgprop_graph **out, loaded *l)
{
    cgprop_graph *g = NULL;
    if (read_one(o, o->inputs[0], &g, &l[0])) return 1;
    for (int i = 1; i < o->ninputs; i++) {
        cgprop_graph *h = NULL;
        if (read_one(o, o->inputs[i], &h, &l[i])) {
            cgprop_graph_free(g);
            return 1;
        }
        int rc = cgprop_graph_merge(g, h);
        if (rc != CGPROP_OK) {
            if (rc == CGPROP_EINVAL)
                fail("%s: its metrics differ from those of %s: the inputs cannot be added up", o->inputs[i],
                     o->inputs[0]);
            else
                fail("%s: %s", o->inputs[i], cgprop_graph_errmsg(g));
            cgprop_graph_free(h);
            cgprop_graph_free(g);
            return 1;
        }
        cgprop_graph_free(h);
    }
    *out = g;
    return 0;
}

/* ---- analysing and writing ---- */

/* --metric as pprof users spell it: its name, else its index (as pprof's
 * -sample_index takes one), else a sample type without its unit (pprof's
 * "alloc_space" for cgprop's "alloc_space_bytes") when one metric alone
 * has it so. */
static int find_metric(cgprop_graph *g, const char *name, uint32_t *out)
{
    size_t n = strlen(name), K = cgprop_graph_metric_count(g);
    if (cgprop_graph_find_metric(g, name, n, out) == CGPROP_OK) return 0;
    if (n && n < 4 && strspn(name, "0123456789") == n && (size_t)atoi(name) < K) {
        *out = (uint32_t)atoi(name);
        return 0;
    }
    int found = 0;
    for (size_t k = 0; k < K; k++) {
        size_t len;
        const char *m = cgprop_graph_metric_name(g, (uint32_t)k, &len);
        if (len > n + 1 && !memcmp(m, name, n) && m[n] == '_' && !memchr(m + n + 1, '_', len - n - 1)) {
            *out = (uint32_t)k;
            found++;
        }
    }
    return found == 1 ? 0 : -1;
}

static int analyse(const opts *o, cgprop_graph *g, uint32_t *metric_out)
{
    if (o->metric && find_metric(g, o->metric, metric_out) != 0) {
        char list[512] = "";
        for (size_t k = 0; k < cgprop_graph_metric_count(g) && strlen(list) < 400; k++) {
            if (k) strcat(list, ", ");
            strncat(list, cgprop_graph_metric_name(g, (uint32_t)k, NULL), 100);
        }
        fail("--metric: no metric '%s' in the input (it has: %s)", o->metric, list);
        return 2;
    }
    /* A callgrind profile or a flame graph writes the input's own costs:
     * no inclusive figure, so no propagation (on a profile of a million
     * calls in one cycle, two thirds of such a report). The callgrind
     * writer keeps the recursion classes a current split knows. */
    int rc;
    if (o->format == CGPROP_FORMAT_CALLGRIND || o->format == CGPROP_FORMAT_FLAMEGRAPH) {
        rc = o->format == CGPROP_FORMAT_CALLGRIND ? cgprop_graph_split(g) : CGPROP_OK;
    } else {
        /* cgprop_graph_analyze() runs what is not current with the default
         * share; another share is one collapse ahead of it, which it keeps. */
        rc = cgprop_graph_set_estimate(g, o->estimate, o->walk_budget);
        if (rc == CGPROP_OK && o->share != CGPROP_SHARE_AUTO && (rc = cgprop_graph_find_cycles(g, NULL)) == CGPROP_OK)
            rc = cgprop_graph_collapse(g, o->share);
        if (rc == CGPROP_OK) rc = cgprop_graph_analyze(g);
    }
    if (rc != CGPROP_OK) {
        fail("%s: %s", o->inputs[0], cgprop_graph_errmsg(g));
        return 1;
    }
    return 0;
}

static void text_header(const opts *o, const loaded *l, FILE *out)
{
    for (int i = 0; i < o->ninputs; i++) {
        fprintf(out, "Input: %s (%s)\n", strcmp(o->inputs[i], "-") ? o->inputs[i] : "standard input",
                recursion_text(l[i].info.recursion));
        if (o->recorder_opt)
            fprintf(out, "Overhead compensated %s; %llu clamps, %llu figures floored at 0\n",
                    o->rec.mode == CGPROP_COMP_POSTMORTEM ? "post-mortem" : "on the fly",
                    (unsigned long long)l[i].einfo.clamps, (unsigned long long)l[i].einfo.floors);
    }
    if (o->ninputs > 1) fprintf(out, "(%d inputs added up: functions with the same key are one)\n", o->ninputs);
    fputc('\n', out);
}

static int write_report(const opts *o, cgprop_graph *g, const loaded *l)
{
    char *buf;
    FILE *out = open_out(o->outpath, &buf);
    if (!out) return fail("%s: %s", o->outpath, strerror(errno));
    if (o->format == CGPROP_FORMAT_TEXT) text_header(o, l, out);
    int rc = cgprop_write(g, o->format, &o->wo, out_sink, out);
    int werr = close_out(out, buf) || rc == CGPROP_EWRITE;
    if (rc != CGPROP_OK || werr) {
        if (werr) return fail("%s: write failed: %s", o->outpath ? o->outpath : "standard output", strerror(errno));
        return fail("%s: %s", o->inputs[0], cgprop_graph_errmsg(g));
    }
    return 0;
}

/* ---- --compare ---- */

/* The base profile, read and analysed with the inputs' options. */
static int read_base(const opts *o, cgprop_graph *g, cgprop_graph **base)
{
    opts ob = *o;
    const char *in[1] = {o->compare};
    loaded lb;
    ob.inputs = in;
    ob.ninputs = 1;
    ob.metric = NULL;
    if (read_one(&ob, o->compare, base, &lb)) return 1;
    /* The shown metric is the inputs' (--metric or their first), found by
     * name in the base. */
    const char *mn = cgprop_graph_metric_name(g, o->wo.metric, NULL);
    uint32_t k;
    if (cgprop_graph_find_metric(*base, mn, strlen(mn), &k) != CGPROP_OK)
        return fail("%s: the base profile has no metric '%s'", o->compare, mn);
    g_stage = 2;
    return analyse(&ob, *base, &k);
}

static int write_compare(const opts *o, cgprop_graph *base, cgprop_graph *g)
{
    char *buf;
    FILE *out = open_out(o->outpath, &buf);
    if (!out) return fail("%s: %s", o->outpath, strerror(errno));
    if (o->format == CGPROP_FORMAT_TEXT) {
        fprintf(out, "Base: %s\n", strcmp(o->compare, "-") ? o->compare : "standard input");
        for (int i = 0; i < o->ninputs; i++)
            fprintf(out, "New:  %s\n", strcmp(o->inputs[i], "-") ? o->inputs[i] : "standard input");
        fputc('\n', out);
    }
    /* Thresholds given on the command line prune a plain text report; the
     * comparison's text lists every change, so the flag is not passed. */
    cgprop_write_options wo = o->wo;
    wo.flags &= ~(uint32_t)CGPROP_W_PRUNE_TEXT;
    int rc = cgprop_write_compare(base, g, o->format, &wo, out_sink, out);
    int werr = close_out(out, buf) || rc == CGPROP_EWRITE;
    if (rc != CGPROP_OK || werr) {
        if (werr) return fail("%s: write failed: %s", o->outpath ? o->outpath : "standard output", strerror(errno));
        return fail("%s: %s", o->compare, cgprop_graph_errmsg(g));
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage, stdout);
        fputs(usage_view, stdout);
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

    opts o;
    memset(&o, 0, sizeof o);
    cgprop_read_options_init(&o.ro);
    cgprop_write_options_init(&o.wo);
    cgprop_recorder_options_init(&o.rec);
    /* The recorder copies δ at creation; these outlive that. */
    o.rec.delta_i = o.delta_i;
    o.rec.delta_e = o.delta_e;
    o.format = CGPROP_FORMAT_TEXT;
    o.share = CGPROP_SHARE_AUTO;
    o.estimate = CGPROP_EST_MIDPOINT;
    o.walk_budget = CGPROP_WALK_BUDGET_DEFAULT;
    o.inputs = calloc((size_t)argc, sizeof *o.inputs);
    o.root_names = calloc((size_t)argc * 4, sizeof *o.root_names);
    if (o.root_names) {
        o.leaf_names = o.root_names + argc;
        o.focus_re = o.leaf_names + argc;
        o.hide_re = o.focus_re + argc;
    }
    view_ids vi = {NULL, NULL, NULL, NULL};
    loaded *l = calloc((size_t)argc, sizeof *l);
    if (!o.inputs || !l || !o.root_names) {
        free(o.root_names);
        free(o.inputs);
        free(l);
        return fail("out of memory%s%s", "", "");
    }
    int rc = parse_args(argc, argv, &o);
    /* A flame graph draws calling contexts, which readers keep on request. */
    if (o.format == CGPROP_FORMAT_FLAMEGRAPH) {
        o.ro.contexts = 1;
        o.rec.flags |= CGPROP_REC_CONTEXTS;
    }
    cgprop_graph *g = NULL;
    if (rc == 0) {
        progress_start();
        g_stage = 1;
        rc = read_inputs(&o, &g, l);
    }
    /* Without --metric, the metric an input names as its own, as its
     * profiler shows it: the first input that names one (pprof's merge of
     * several profiles takes the first default_sample_type that is set),
     * else the first input's fallback (pprof: its last sample type). */
    if (rc == 0 && !o.metric) {
        int pick = 0;
        for (int i = 0; i < o.ninputs; i++)
            if (l[i].info.flags & CGPROP_RI_DEFAULT_NAMED) {
                pick = i;
                break;
            }
        if (l[pick].info.default_metric < cgprop_graph_metric_count(g)) o.wo.metric = l[pick].info.default_metric;
    }
    if (rc == 0) {
        g_stage = 2;
        rc = analyse(&o, g, &o.wo.metric);
    }
    if (rc == 0) rc = resolve_view(&o, g, &vi);
    cgprop_graph *base = NULL;
    if (rc == 0 && o.compare) rc = read_base(&o, g, &base);
    if (rc == 0) {
        g_stage = 3;
        rc = base ? write_compare(&o, base, g) : write_report(&o, g, l);
    }
    progress_end();
    cgprop_graph_free(base);
    cgprop_graph_free(g);
    free(vi.roots);
    free(vi.focus);
    free(vi.hide);
    free(o.root_names);
    free(o.inputs);
    free(l);
    return rc < 0 ? 0 : rc;
}
