// Compiled (not run) as C++ by run.sh: the header must be valid C++ and give
// every function C linkage; run.sh checks the object file for unmangled names.
#include "cgprop.h"

int cgprop_header_test_cpp();

int cgprop_header_test_cpp()
{
    cgprop_graph *g = 0;
    uint32_t id = 0;
    int rc = cgprop_graph_add_node(g, "f", 1, &id);
    cgprop_graph_free(g);
    return static_cast<int>(cgprop_version()) + rc + (CGPROP_NONE == 0xFFFFFFFFu ? 0 : 1);
}
