/* A program outside the project that uses an installed cgprop. Built once
 * through pkg-config and once through find_package(cgprop). */
#include <cgprop.h>
#include <cgprop_io.h>

#include <stdio.h>

int main(void)
{
    const char *names[] = {"Ir"};
    cgprop_graph *g = NULL;
    uint32_t f, h;
    int rc;

    if (cgprop_version() != CGPROP_VERSION_NUMBER) {
        fprintf(stderr, "header says %d, library %u\n", CGPROP_VERSION_NUMBER, (unsigned)cgprop_version());
        return 1;
    }
    rc = cgprop_graph_new(NULL, names, NULL, 1, &g);
    if (rc != CGPROP_OK) {
        fprintf(stderr, "cgprop_graph_new: %s\n", cgprop_strerror(rc));
        return 1;
    }
    if (cgprop_graph_add_node(g, "main", 4, &f) != CGPROP_OK ||
        cgprop_graph_add_node(g, "helper", 6, &h) != CGPROP_OK ||
        cgprop_graph_add_edge(g, f, h, 3, NULL, NULL) != CGPROP_OK) {
        fprintf(stderr, "building the graph: %s\n", cgprop_graph_errmsg(g));
        cgprop_graph_free(g);
        return 1;
    }
    rc = (cgprop_graph_node_count(g) == 2 && cgprop_graph_edge_count(g) == 1) ? 0 : 1;
    printf("consumer: cgprop %s, %u functions, %u calls\n", cgprop_version_string(),
           (unsigned)cgprop_graph_node_count(g), (unsigned)cgprop_graph_edge_count(g));
    cgprop_graph_free(g);
    if (rc) return rc;

    /* The common path through the I/O header: read stacks, analyse, read a
     * total back. main runs twice, once through f: its total is 5 + 2 = 7. */
    {
        static const char stacks[] = "main;f;main 2\nmain 5\n";
        cgprop_read_options ro;
        cgprop_read_error err;
        cgprop_total_row t;
        uint32_t m;
        cgprop_read_options_init(&ro);
        cgprop_read_error_init(&err);
        ro.format = CGPROP_INPUT_FOLDED;
        rc = cgprop_read_buffer(stacks, sizeof stacks - 1, "stacks", 6, &ro, NULL, &g, NULL, &err);
        if (rc != CGPROP_OK) {
            fprintf(stderr, "read: %s\n", err.reason);
            return 1;
        }
        if (cgprop_graph_analyze(g) != CGPROP_OK || cgprop_graph_find_node(g, "main", 4, &m) != CGPROP_OK ||
            cgprop_graph_get_row(g, CGPROP_ITER_TOTALS, 0, m, &t, sizeof t) != CGPROP_OK) {
            fprintf(stderr, "analyze: %s\n", cgprop_graph_errmsg(g));
            cgprop_graph_free(g);
            return 1;
        }
        rc = t.total == 7.0 && t.estimate == CGPROP_EST_EXACT ? 0 : 1;
        if (rc) fprintf(stderr, "main's total is %g, not 7\n", t.total);
        cgprop_graph_free(g);
    }
    return rc;
}
