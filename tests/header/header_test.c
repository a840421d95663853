/* Compiled (not run) as C89, C99 and C11 with -pedantic -Werror by run.sh:
 * the public header must stay usable from any of them. Included twice to
 * check the include guard. */
#include "cgprop.h"
#include "cgprop.h"

/* The version literals must agree with each other (a negative array size
 * fails the compile otherwise). */
typedef char cgprop_header_test_version_number[
    (CGPROP_VERSION_NUMBER ==
     CGPROP_VERSION_MAJOR * 10000 + CGPROP_VERSION_MINOR * 100 + CGPROP_VERSION_PATCH) ? 1 : -1];

int cgprop_header_test(void);

int cgprop_header_test(void)
{
    cgprop_allocator a;
    cgprop_graph *g = 0;
    cgprop_total_row row;
    uint32_t (*version)(void) = cgprop_version;
    int (*next)(cgprop_iter *, void *, size_t) = cgprop_iter_next;

    a.malloc_fn = 0;
    a.realloc_fn = 0;
    a.free_fn = 0;
    a.user = 0;
    row.id = 0;
    row.cycle = CGPROP_NONE;
    (void)a;
    (void)g;
    (void)row;
    (void)next;
    return version != 0 && CGPROP_OK == 0 && CGPROP_DONE > 0 && CGPROP_ENOMEM < 0 &&
           CGPROP_ITER_TOTALS != CGPROP_ITER_NODES && CGPROP_MAX_METRICS > 0;
}
