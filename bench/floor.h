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
 * UINT64_MAX when out of memory; with look-ups, the number of distinct calls
 * in *ncalls (when not NULL), which the bench holds against the reader's
 * graph: a floor that found other calls would prove nothing. */
#ifndef CGPROP_BENCH_FLOOR_H
#define CGPROP_BENCH_FLOOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t floor_folded(const char *d, size_t len, bool lookups, uint32_t *ncalls);

/* The same kind of floor for a pprof profile (uncompressed): the
 * locations' functions gathered in a first pass (a location id indexes an
 * array), then per sample its location ids past the tail of bytes it shares
 * with the previous sample's, their functions' frames after the previous
 * sample's frames of the shared locations, and per such frame one probe of
 * a table keyed by (caller, callee) function ids, made afresh: the count
 * goes to those calls and to the leaf's self cost. The weight is the
 * sample's first value, packed or one to a field; location ids one to a
 * field (Go writes lists of one or two so) are read too, with no tail
 * shared. Left out, though a reader must do them: the functions' names and
 * keys, the other sample types, the shared part's calls, recursion levels
 * and classes, overflow checks, error messages, sparse or repeated ids,
 * a sample with both spellings of its ids (the floor then gives up). With costs, the shared part's calls are no longer left
 * out: every call gets the weight of every sample whose stack holds it,
 * paid when its frame leaves the stack (the running sum of the weights
 * then, less the sum when the frame came), as an exact reader must. Returns
 * a checksum, UINT64_MAX when out of memory or when the file is not of
 * that kind; the distinct calls in *ncalls, as floor_folded, and the sum
 * of every call's cost in *costsum (when not NULL).
 *
 * mode FLOOR_PPROF_LOOKUPS: the look-ups alone; FLOOR_PPROF_COSTS: every
 * call's cost too; FLOOR_PPROF_CLASSES: that cost split as the reader must
 * split it, by the recursion levels of caller and callee on the stack (0,
 * 1, 2 or more: nine classes), and each function's self cost by its level.
 * A frame's level is counted as it comes and goes (a per-function count of
 * its frames on the stack); the commonest class, both at level 0, is
 * kept as the call's total less its other classes, so that its pairs pay
 * one add, and a call paid in any other class gets eight sums (the
 * cheapest layout known: the graph keeps one class per call in compact
 * form and nine sums for the others, which timed slower here). cls6 (when
 * not NULL) gets the six sums the split reports (level-0 caller to a
 * callee of level 0, 1, >= 2; level >= 1 caller likewise), which the bench
 * holds against the reader's. */
enum { FLOOR_PPROF_LOOKUPS, FLOOR_PPROF_COSTS, FLOOR_PPROF_CLASSES };
uint64_t floor_pprof(const char *d, size_t len, int mode, uint32_t *ncalls, uint64_t *costsum, uint64_t cls6[6]);

#endif
