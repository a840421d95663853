/* cgprop-ab: time two or more builds of libcgprop reading the same file, in
 * one process, their reads interleaved.
 *
 *   cgprop-ab [--reads N] FILE LIB LIB [LIB...]
 *
 * Each LIB is a path to a libcgprop shared object (a copy of each build's
 * library under a name of its own). Every round reads FILE once with each
 * library through cgprop_read_file, in turn, the order reversed every other
 * round; each read's CPU time is kept, and the minimum, tenth percentile and
 * median of each library's reads are printed, with the median's change
 * against the first library.
 *
 * Why not two runs of cgprop-bench: on the shared development machines the
 * same build's best read moved by a third within the hour, which hides any
 * change of a few per cent between two runs made minutes apart. Reads
 * interleaved one by one see the same load, so the difference of their
 * medians holds where their absolute times do not.
 *
 * The C library is asked to keep freed memory (glibc: no mmap for large
 * blocks, no trimming), so that from the second round on every read runs on
 * pages already faulted in: page faults cost 12-16 us each on those
 * machines, and how many a read takes depends on where the previous read's
 * blocks landed, not on the library under test. cgprop-bench prices the
 * faults separately. */
#include "cgprop.h"
#include "cgprop_io.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

typedef int (*read_fn)(const char *, size_t, const cgprop_read_options *, const cgprop_allocator *, cgprop_graph **,
                       cgprop_read_info *, cgprop_read_error *);
typedef void (*free_fn)(cgprop_graph *);
typedef size_t (*count_fn)(const cgprop_graph *);
typedef void (*err_init_fn)(cgprop_read_error *);

typedef struct lib {
    const char *path;
    void *h;
    read_fn read;
    free_fn free;
    count_fn nodes, edges;
    err_init_fn err_init;
    double *ms;
    size_t nn, ne;
} lib;

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* POSIX returns functions from dlsym as object pointers; copying the bytes
 * keeps ISO C's rule against converting one into the other. */
static int sym(void *h, const char *name, void *fn, size_t size)
{
    void *p = dlsym(h, name);
    if (!p) return -1;
    memcpy(fn, &p, size);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: cgprop-ab [--reads N] FILE LIB LIB [LIB...]\n");
    return 2;
}

int main(int argc, char **argv)
{
    int a = 1, reads = 60;
    if (a + 1 < argc && !strcmp(argv[a], "--reads")) {
        reads = atoi(argv[a + 1]);
        a += 2;
    }
    if (reads < 1 || argc - a < 3) return usage();
    const char *file = argv[a++];
    int n = argc - a;
    lib *L = calloc((size_t)n, sizeof *L);
    if (!L) return 1;
#ifdef __GLIBC__
    (void)mallopt(M_MMAP_THRESHOLD, 1 << 30);
    (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    for (int i = 0; i < n; i++) {
        lib *l = &L[i];
        l->path = argv[a + i];
        /* Local: each build keeps its own symbols, none resolves to another. */
        l->h = dlopen(l->path, RTLD_NOW | RTLD_LOCAL);
        if (!l->h) {
            fprintf(stderr, "cgprop-ab: %s\n", dlerror());
            return 1;
        }
        for (int j = 0; j < i; j++)
            if (L[j].h == l->h) {
                fprintf(stderr, "cgprop-ab: %s and %s load as one library; give each a file of its own\n",
                        L[j].path, l->path);
                return 1;
            }
        if (sym(l->h, "cgprop_read_file", &l->read, sizeof l->read) ||
            sym(l->h, "cgprop_graph_free", &l->free, sizeof l->free) ||
            sym(l->h, "cgprop_graph_node_count", &l->nodes, sizeof l->nodes) ||
            sym(l->h, "cgprop_graph_edge_count", &l->edges, sizeof l->edges) ||
            sym(l->h, "cgprop_read_error_init", &l->err_init, sizeof l->err_init)) {
            fprintf(stderr, "cgprop-ab: %s: not a libcgprop (%s)\n", l->path, dlerror());
            return 1;
        }
        l->ms = malloc((size_t)reads * sizeof *l->ms);
        if (!l->ms) return 1;
    }
    for (int r = 0; r < reads; r++)
        for (int k = 0; k < n; k++) {
            lib *l = &L[r % 2 ? n - 1 - k : k];
            cgprop_graph *g = NULL;
            cgprop_read_error err;
            l->err_init(&err);
            double t0 = cpu_ms();
            int rc = l->read(file, strlen(file), NULL, NULL, &g, NULL, &err);
            l->ms[r] = cpu_ms() - t0;
            if (rc) {
                fprintf(stderr, "cgprop-ab: %s: %s:%llu: %s\n", l->path, err.file, (unsigned long long)err.line,
                        err.reason);
                return 1;
            }
            l->nn = l->nodes(g);
            l->ne = l->edges(g);
            l->free(g);
        }
    /* Builds that read another graph are not comparable: say so. */
    for (int i = 1; i < n; i++)
        if (L[i].nn != L[0].nn || L[i].ne != L[0].ne)
            fprintf(stderr, "cgprop-ab: warning: %s read %zu functions and %zu calls, %s %zu and %zu\n", L[i].path,
                    L[i].nn, L[i].ne, L[0].path, L[0].nn, L[0].ne);
    double m0 = 0;
    printf("%d reads each, CPU ms\n", reads);
    for (int i = 0; i < n; i++) {
        lib *l = &L[i];
        qsort(l->ms, (size_t)reads, sizeof *l->ms, by_value);
        double med = l->ms[reads / 2];
        if (!i) m0 = med;
        printf("%-40s min %8.2f  p10 %8.2f  median %8.2f", l->path, l->ms[0], l->ms[reads / 10], med);
        if (i) printf("  %+6.1f %%", 100.0 * (med / m0 - 1.0));
        printf("\n");
    }
    return 0;
}
