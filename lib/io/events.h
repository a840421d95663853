/* Private: the event-trace reader, implemented by lib/io/events.c (recorder
 * helper) and called by lib/io/read.c for CGPROP_INPUT_EVENTS. */
#ifndef CGPROP_IO_EVENTS_H
#define CGPROP_IO_EVENTS_H

#include "cgprop_io.h"

/* Replay a whole trace (`enter NAME V1..VK` / `exit NAME V1..VK` lines,
 * `# metrics: NAME ..` header) into a new graph made with @alloc.
 * On success *out is the graph and err is untouched; on failure *out is NULL,
 * nothing leaks, and err->line / err->reason are filled (read.c fills
 * err->file and err->code). Returns a cgprop_status. */
int cgprop__events_read(const char *data, size_t len, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_error *err);

#endif
