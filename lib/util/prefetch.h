/* Prefetching, in one place: the hint itself and every look-ahead distance
 * the library uses, each named after the loop it serves.
 *
 * Why at all: on a graph larger than the caches most per-call work is an
 * independent miss (a callee's record, a hash slot), and asking for the line
 * a few iterations early keeps several misses in flight at once. The
 * algorithms do not depend on it: each tuned loop has a plain counterpart
 * (the reference kernels) that the tests hold it to.
 *
 * Each distance is in iterations of its loop. A distance that is too short
 * leaves the miss exposed; one that is too long evicts lines before use.
 * Each can be overridden at build time (-DCGPROP__AHEAD_...=n), and
 * -DCGPROP_NO_PREFETCH turns the hints off, to measure them again with the
 * benchmark group named beside it (cgprop-bench --only GROUP; scripts/
 * prefetch-sweep.sh runs the sweep);
 * docs/PERFORMANCE.md, "Prefetch distances", has the measurements that chose
 * them: the hints are worth up to 2x on the per-call loops, and halving or
 * doubling the distances gives nothing better. */
#ifndef CGPROP_UTIL_PREFETCH_H
#define CGPROP_UTIL_PREFETCH_H

#if defined(__GNUC__) && !defined(CGPROP_NO_PREFETCH)
#define CGPROP__PREFETCH(p) __builtin_prefetch((p), 0)
#define CGPROP__PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
/* The address is still evaluated (no side effects): the look-ahead code
 * around it stays the same, warnings included. */
#define CGPROP__PREFETCH(p) ((void)(p))
#define CGPROP__PREFETCH_W(p) ((void)(p))
#endif

/* graph.c, rebuilding the function and call indexes (bench: build): the
 * hash of the id this far ahead is computed and its slot fetched. Also the
 * adjacency build, per call, for the callee's counter and slot. */
#ifndef CGPROP__AHEAD_REHASH
#define CGPROP__AHEAD_REHASH 16
#endif
/* graph.c, adding a batch of calls (bench: build): the index slot and the
 * callee's sums of the call this far ahead... */
#ifndef CGPROP__AHEAD_BATCH_SLOT
#define CGPROP__AHEAD_BATCH_SLOT 16
#endif
/* ...then, that slot being in cache by now, the call it names, this far. */
#ifndef CGPROP__AHEAD_BATCH_CALL
#define CGPROP__AHEAD_BATCH_CALL 8
#endif
/* graph.c, a sorted batch's pairs looked up among the calls from before it
 * (bench: read, pstats and gprof): the index slot this far ahead, then the
 * call it names at half the distance. */
#ifndef CGPROP__AHEAD_BULK_PROBE
#define CGPROP__AHEAD_BULK_PROBE 16
#endif
/* stacks.c, adding a stack's caller/callee pairs (bench: stacks). */
#ifndef CGPROP__AHEAD_STACK_PAIRS
#define CGPROP__AHEAD_STACK_PAIRS 8
#endif
/* stacks.c, the deferred flush asks for its calls ahead only in a graph of
 * more calls than this: below it their sums stay in the L2 and the
 * requests are instructions spent for nothing (a real Go profile: 1,478
 * calls, 4 % of its read's instructions). */
#ifndef CGPROP__FLUSH_PREFETCH_MIN_CALLS
#define CGPROP__FLUSH_PREFETCH_MIN_CALLS 8192
#endif
/* cycles.c, Tarjan's walk over a function's callees (bench: cycles). */
#ifndef CGPROP__AHEAD_CYCLES_CALLEES
#define CGPROP__AHEAD_CYCLES_CALLEES 4
#endif
/* collapse.c, calls in id order, the callee's vertex record (bench: collapse). */
#ifndef CGPROP__AHEAD_COLLAPSE_CALLS
#define CGPROP__AHEAD_COLLAPSE_CALLS 32
#endif
/* collapse.c, functions callees first: three steps of this distance (the
 * function's record and list, then its first calls, then their callees). */
#ifndef CGPROP__AHEAD_COLLAPSE_ORDER
#define CGPROP__AHEAD_COLLAPSE_ORDER 8
#endif
/* collapse.c, within one function's call list, the callees' records. */
#ifndef CGPROP__AHEAD_COLLAPSE_LIST
#define CGPROP__AHEAD_COLLAPSE_LIST 4
#endif
/* propagate.c, calls in id order, the callee's vertex record (bench: propagate). */
#ifndef CGPROP__AHEAD_PROPAGATE_CALLS
#define CGPROP__AHEAD_PROPAGATE_CALLS 32
#endif
/* split.c, calls in id order, the callee's figures (bench: split). */
#ifndef CGPROP__AHEAD_SPLIT_CALLS
#define CGPROP__AHEAD_SPLIT_CALLS 16
#endif
/* io/callgrind_assemble.c, classifying the calls read, both ends' records (bench: read). */
#ifndef CGPROP__AHEAD_READ_CALLS
#define CGPROP__AHEAD_READ_CALLS 16
#endif

/* propagate.c, one entry's kept calls of a level, their call records,
 * callees, callers and running totals (bench: e2e, the random cycle). */
#ifndef CGPROP__AHEAD_PROPAGATE_KEPT
#define CGPROP__AHEAD_PROPAGATE_KEPT 48
#endif
/* propagate.c, a large cycle's calls by position, read by call id: their
 * weights, then their totals into the results (bench: e2e, the random
 * cycle; both 32). */
#ifndef CGPROP__AHEAD_PROPAGATE_BY_ID
#define CGPROP__AHEAD_PROPAGATE_BY_ID 32
#endif
/* propagate.c, each member's calls (by caller) summed into its total:
 * their running totals, this many calls ahead. */
#ifndef CGPROP__AHEAD_PROPAGATE_MEMBERS
#define CGPROP__AHEAD_PROPAGATE_MEMBERS 16
#endif
/* propagate.c, the BFS's bottom-up pass over all calls: the caller's lanes
 * (16 and 64 no better on the e2e group's random cycle). */
#ifndef CGPROP__AHEAD_BFS_BOTTOM_UP
#define CGPROP__AHEAD_BFS_BOTTOM_UP 32
#endif
/* propagate.c, the BFS's top-down levels: a member's list of calls this
 * many members ahead, and the lanes of their callees at the second
 * distance, which the first has brought the list in for. */
#ifndef CGPROP__AHEAD_BFS_TOP_DOWN
#define CGPROP__AHEAD_BFS_TOP_DOWN 16
#endif
#ifndef CGPROP__AHEAD_BFS_TOP_DOWN_CALLEES
#define CGPROP__AHEAD_BFS_TOP_DOWN_CALLEES 6
#endif
/* bounds.c, the members of a large component: the calls into the member
 * this many ahead (their callers, flags or costs), and in the component's
 * scan its calls out too (bench: e2e, the random cycle). */
#ifndef CGPROP__AHEAD_BOUNDS_MEMBERS
#define CGPROP__AHEAD_BOUNDS_MEMBERS 8
#endif
/* io/pprof.c, the samples (bench: read, pprof): in bytes of the input from
 * each sample's start, not in iterations; two lines are asked for, about a
 * sample's length on the bench's file. In fresh processes 2 KiB gained
 * about half of what 8 KiB did. */
#ifndef CGPROP__AHEAD_PPROF_BYTES
#define CGPROP__AHEAD_PPROF_BYTES 8192
#endif

#endif
