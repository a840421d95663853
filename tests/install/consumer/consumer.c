/* A program outside the project that uses an installed cgprop. Built once
 * through pkg-config and once through find_package(cgprop). */
#include <cgprop.h>

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
    return rc;
}
