/* Private: the flame graph writer (lib/io/flame.c). */
#ifndef CGPROP_IO_FLAME_H
#define CGPROP_IO_FLAME_H

#include "write.h"

/* An SVG flame graph (icicle with CGPROP_W_ICICLE) of the graph's calling
 * contexts, metric o->metric. CGPROP_ESTATE when the graph keeps none. */
int cgprop__write_flame(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w);

#endif
