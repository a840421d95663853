#include <cgprop.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    const char *metric = "Ir", *name[] = {"main", "a", "b", "leaf"};
    const uint64_t self[] = {1, 10, 20, 5};
    uint32_t id[4], i;
    cgprop_graph *g = NULL;
    cgprop_iter *it = NULL;
    cgprop_total_row row;
    int rc = cgprop_graph_new(NULL, &metric, NULL, 1, &g);

    for (i = 0; i < 4 && rc == CGPROP_OK; i++)
        if ((rc = cgprop_graph_add_node(g, name[i], strlen(name[i]), &id[i])) == CGPROP_OK)
            rc = cgprop_graph_add_self(g, id[i], &self[i]);
    if (rc == CGPROP_OK) rc = cgprop_graph_add_edge(g, id[0], id[1], 1, NULL, NULL); /* main->a */
    if (rc == CGPROP_OK) rc = cgprop_graph_add_edge(g, id[1], id[2], 2, NULL, NULL); /* a->b   */
    if (rc == CGPROP_OK) rc = cgprop_graph_add_edge(g, id[2], id[1], 1, NULL, NULL); /* b->a   */
    if (rc == CGPROP_OK) rc = cgprop_graph_add_edge(g, id[2], id[3], 3, NULL, NULL); /* b->leaf */
    if (rc == CGPROP_OK) rc = cgprop_graph_find_cycles(g, NULL);         /* {a, b} */
    if (rc == CGPROP_OK) rc = cgprop_graph_collapse(g, CGPROP_SHARE_COUNT);
    if (rc == CGPROP_OK) rc = cgprop_graph_propagate(g);
    if (rc == CGPROP_OK) rc = cgprop_iter_new(g, CGPROP_ITER_TOTALS, 0, 0, &it);
    while (rc == CGPROP_OK && (rc = cgprop_iter_next(it, &row, sizeof row)) == CGPROP_OK)
        printf("%-4s total %3.0f%s\n", cgprop_graph_node_key(g, row.id, NULL), row.total,
               row.cycle != CGPROP_NONE ? "  (in a cycle)" : "");
    if (rc != CGPROP_DONE) fprintf(stderr, "cgprop: %s\n", g ? cgprop_graph_errmsg(g) : cgprop_strerror(rc));
    cgprop_iter_free(it);
    cgprop_graph_free(g);
    return rc == CGPROP_DONE ? 0 : 1;
}
