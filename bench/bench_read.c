/* Callgrind reading speed: cgprop_read_file() on a large generated profile,
 * beside a plain streaming pass over the same bytes (read + count newlines)
 * and `callgrind_annotate --inclusive=yes` (valgrind's own reader) when it is
 * installed. Everything is measured in this run.
 *
 * usage: bench_read [--mb N] [--no-peer] [--keep FILE]
 *   --mb N      approximate size of the generated file (default 40)
 *   --no-peer   skip callgrind_annotate (it takes tens of seconds)
 *   --keep FILE write the profile to FILE and keep it
 */
#include "cgprop_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + system) of this process: steadier than the wall
 * clock on a loaded machine. */
static double cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)((rng >> 11) % n);
}

typedef struct out {
    char *p;
    size_t len, cap;
} out;

static void put(out *o, const char *s, size_t n)
{
    if (o->len + n > o->cap) {
        while (o->len + n > o->cap) o->cap = o->cap ? o->cap * 2 : 1 << 20;
        o->p = realloc(o->p, o->cap);
        if (!o->p) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void putf(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void putf(out *o, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put(o, buf, (size_t)n);
}

/* A profile shaped like valgrind's: compressed names (defined at first use,
 * often first in cfn=), objects and files, relative line positions, three
 * events, calls with inclusive costs, and fn'2 recursion names. */
static void generate(out *body, size_t target, uint64_t tot[3], uint32_t *nfn_out)
{
    enum { NFN = 30000, NOBJ = 40, NFILE = 3000 };
    static unsigned char fn_def[NFN * 2], file_def[NFILE], obj_def[NOBJ];
    uint32_t nfn = 0;
    while (body->len < target) {
        uint32_t f = rnd(NFN), file = f % NFILE, obj = file % NOBJ;
        uint32_t rec = rnd(10) == 0 ? 1 : 0; /* one block in ten is f'2 */
        uint32_t fid = f * 2 + rec;
        if (obj_def[obj]) putf(body, "ob=(%u)\n", obj + 1);
        else {
            putf(body, "ob=(%u) /usr/lib/libobject%u.so\n", obj + 1, obj);
            obj_def[obj] = 1;
        }
        if (file_def[file]) putf(body, "fl=(%u)\n", file + 1);
        else {
            putf(body, "fl=(%u) src/module%u/file%u.c\n", file + 1, file / 100, file);
            file_def[file] = 1;
        }
        if (fn_def[fid]) putf(body, "fn=(%u)\n", fid + 1);
        else {
            putf(body, "fn=(%u) function_%u_%s%s\n", fid + 1, f, f % 7 ? "impl" : "dispatch", rec ? "'2" : "");
            fn_def[fid] = 1;
            nfn++;
        }
        uint32_t line = 10 + rnd(2000);
        uint32_t a0 = 1 + rnd(50), b0 = rnd(20), c0 = rnd(10);
        putf(body, "%u %u %u %u\n", line, a0, b0, c0);
        tot[0] += a0;
        tot[1] += b0;
        tot[2] += c0;
        int nl = 5 + (int)rnd(20);
        for (int i = 0; i < nl; i++) {
            uint32_t a = 1 + rnd(200), b = rnd(60), c = rnd(30);
            int d = (int)rnd(7) - 2;
            if (d == 0) putf(body, "* %u %u %u\n", a, b, c);
            else putf(body, "%+d %u %u %u\n", d, a, b, c);
            tot[0] += a;
            tot[1] += b;
            tot[2] += c;
            if (rnd(4) == 0) {
                uint32_t g = rnd(NFN), grec = rnd(8) == 0 ? 1 : 0, gid = g * 2 + grec;
                uint32_t gfile = g % NFILE, gobj = gfile % NOBJ;
                if (gobj != obj) {
                    if (obj_def[gobj]) putf(body, "cob=(%u)\n", gobj + 1);
                    else {
                        putf(body, "cob=(%u) /usr/lib/libobject%u.so\n", gobj + 1, gobj);
                        obj_def[gobj] = 1;
                    }
                }
                if (gfile != file) {
                    if (file_def[gfile]) putf(body, "cfi=(%u)\n", gfile + 1);
                    else {
                        putf(body, "cfi=(%u) src/module%u/file%u.c\n", gfile + 1, gfile / 100, gfile);
                        file_def[gfile] = 1;
                    }
                }
                if (fn_def[gid]) putf(body, "cfn=(%u)\n", gid + 1);
                else {
                    putf(body, "cfn=(%u) function_%u_%s%s\n", gid + 1, g, g % 7 ? "impl" : "dispatch",
                         grec ? "'2" : "");
                    fn_def[gid] = 1;
                    nfn++;
                }
                putf(body, "calls=%u %+d\n* %u %u %u\n", 1 + rnd(1000), (int)rnd(200) - 100, 1 + rnd(100000),
                     rnd(50000), rnd(20000));
            }
        }
        put(body, "\n", 1);
    }
    *nfn_out = nfn;
}

static int write_all(const char *path, const out *hdr, const out *body, const out *tail)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int ok = fwrite(hdr->p, 1, hdr->len, f) == hdr->len && fwrite(body->p, 1, body->len, f) == body->len &&
             fwrite(tail->p, 1, tail->len, f) == tail->len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* The reference pass: read the file in 1 MiB blocks and count newlines. */
static double stream_pass(const char *path, uint64_t *lines, double *cpu_s)
{
    static char buf[1 << 20];
    double c0 = cpu();
    double t0 = now();
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint64_t n = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        const char *p = buf, *e = buf + got;
        while ((p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
            n++;
            p++;
        }
    }
    fclose(f);
    *lines = n;
    *cpu_s = cpu() - c0;
    return now() - t0;
}

static double run_peer(const char *path, double *cpu_s)
{
    double t0 = now();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execlp("callgrind_annotate", "callgrind_annotate", "--inclusive=yes", path, (char *)NULL);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
    double w = now() - t0;
    struct rusage ru; /* the only child this program waits for */
    getrusage(RUSAGE_CHILDREN, &ru);
    *cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
             (double)ru.ru_stime.tv_usec * 1e-6;
    return w;
}

static double best3(double a, double b, double c)
{
    double m = a < b ? a : b;
    return m < c ? m : c;
}

int main(int argc, char **argv)
{
    size_t mb = 40;
    int peer = 1;
    const char *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc) mb = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "--no-peer")) peer = 0;
        else if (!strcmp(argv[i], "--keep") && i + 1 < argc) keep = argv[++i];
        else {
            fprintf(stderr, "usage: %s [--mb N] [--no-peer] [--keep FILE]\n", argv[0]);
            return 2;
        }
    }
    out hdr = {0}, body = {0}, tail = {0};
    uint64_t tot[3] = {0, 0, 0};
    uint32_t nfn;
    generate(&body, mb << 20, tot, &nfn);
    /* Totals are self costs only: call lines carry inclusive costs. */
    putf(&hdr, "# callgrind format\nversion: 1\ncreator: cgprop bench_read\npid: 1\ncmd: synthetic\npart: 1\n\n"
               "positions: line\nevents: Ir Dr Dw\nsummary: %llu %llu %llu\n\n",
         (unsigned long long)tot[0], (unsigned long long)tot[1], (unsigned long long)tot[2]);
    putf(&tail, "totals: %llu %llu %llu\n", (unsigned long long)tot[0], (unsigned long long)tot[1],
         (unsigned long long)tot[2]);
    char tmp[] = "/tmp/cgprop_bench_read_XXXXXX";
    const char *path = keep;
    if (!path) {
        int fd = mkstemp(tmp);
        if (fd < 0) {
            perror("mkstemp");
            return 1;
        }
        close(fd);
        path = tmp;
    }
    if (write_all(path, &hdr, &body, &tail)) {
        perror(path);
        return 1;
    }
    double size = (double)(hdr.len + body.len + tail.len) / (1 << 20);
    free(hdr.p);
    free(body.p);
    free(tail.p);

    uint64_t lines = 0;
    double ws[3], cs[3], wr[3], cr[3];
    for (int r = 0; r < 3; r++) ws[r] = stream_pass(path, &lines, &cs[r]);
    size_t nodes = 0, edges = 0;
    for (int r = 0; r < 3; r++) {
        cgprop_graph *g;
        cgprop_read_error err;
        double c0 = cpu(), t0 = now();
        int rc = cgprop_read_file(path, strlen(path), NULL, NULL, &g, NULL, &err);
        wr[r] = now() - t0;
        cr[r] = cpu() - c0;
        if (rc) {
            fprintf(stderr, "%s:%llu: %s\n", err.file, (unsigned long long)err.line, err.reason);
            return 1;
        }
        nodes = cgprop_graph_node_count(g);
        edges = cgprop_graph_edge_count(g);
        cgprop_graph_free(g);
    }
    double tsw = best3(ws[0], ws[1], ws[2]), tsc = best3(cs[0], cs[1], cs[2]);
    double trw = best3(wr[0], wr[1], wr[2]), trc = best3(cr[0], cr[1], cr[2]);
    if (tsc <= 0) tsc = 1e-3; /* rusage granularity */
    printf("bench_read: %.1f MB callgrind profile, %llu lines, %zu functions, %zu calls (best of 3)\n", size,
           (unsigned long long)lines, nodes, edges);
    printf("  %-42s %8s %10s %8s %10s\n", "", "wall s", "MB/s", "cpu s", "MB/s cpu");
    printf("  %-42s %8.3f %10.1f %8.3f %10.1f\n", "streaming pass (fread + count newlines)", tsw, size / tsw, tsc,
           size / tsc);
    printf("  %-42s %8.3f %10.1f %8.3f %10.1f   %.1fx the streaming pass (wall), %.1fx (cpu)\n",
           "cgprop_read_file", trw, size / trw, trc, size / trc, trw / tsw, trc / tsc);
    if (peer) {
        double pc = 0, tp = run_peer(path, &pc);
        if (tp < 0)
            printf("  callgrind_annotate --inclusive=yes: not available or failed\n");
        else
            printf("  %-42s %8.3f %10.1f %8.3f %10.1f   cgprop %.0fx faster (wall), %.0fx (cpu)\n",
                   "callgrind_annotate --inclusive=yes", tp, size / tp, pc, size / pc, tp / trw, pc / trc);
    } else {
        printf("  callgrind_annotate --inclusive=yes: skipped (--no-peer)\n");
    }
    if (!keep) remove(path);
    return 0;
}
