/* A floor for the folded reader's speed: less work than any reader that
 * turns folded stacks into a call graph must do.
 *
 * Per line: the count, the bytes shared with the previous line (the frames
 * of that prefix are the previous line's, already known), then each frame
 * past them. Per such frame, with look-ups: one probe of a table keyed by
 * (caller, name) that answers the callee and the call when the pair was
 * seen before, else the name table and an insert; the count goes to the
 * calls of these new frames and to the leaf's self cost. Left out, though
 * a reader must do them: the count for the calls of the shared prefix,
 * recursion levels and classes, overflow checks, error messages, every
 * spelling of a line but one (frames, a space, a decimal count). The
 * tables are made afresh on each call, sized on a guess from the input's
 * size, as a reader's graph is. Without look-ups: the line and frame split
 * only. Returns a checksum of what it found (names, calls, leaves, counts),
 * UINT64_MAX when out of memory. */
#ifndef CGPROP_BENCH_FLOOR_H
#define CGPROP_BENCH_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t floor_folded(const char *d, size_t len, bool lookups);

#endif
