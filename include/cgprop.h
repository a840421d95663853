/**
 * @file cgprop.h
 * @brief cgprop: correct inclusive costs for call graphs with recursion.
 *
 * This header and cgprop_io.h are cgprop's stable API (docs/API.md says what
 * is promised). cgprop_experimental.h holds calls outside that promise.
 * Whatever is not declared in these headers is not part of the API.
 *
 * A ::cgprop_graph holds functions (nodes) and calls (edges), each with a cost
 * vector of K metrics. Separate calls run cycle detection
 * (cgprop_graph_find_cycles()), gprof-style collapsing (cgprop_graph_collapse()),
 * gprof2dot's linear per-root propagation (cgprop_graph_propagate()) and
 * KCachegrind's recursive/non-recursive split (cgprop_graph_split()). Results are
 * read back through iterators (cgprop_iter_new()), point look-ups
 * (cgprop_graph_get_row()) or a bulk copy (cgprop_iter_copy_rows()).
 *
 * @par Thread safety
 * The library has no global state. Distinct graphs may be used from different
 * threads at the same time. One graph, together with its iterators, must not be
 * used from two threads at once, not even for reads: read calls may build
 * cached indexes and write the graph's error message. Guard a shared graph with
 * your own lock.
 *
 * @par Errors
 * Every function that can fail returns an @c int status: ::CGPROP_OK (0),
 * a positive non-error status (::CGPROP_DONE), or a negative error code. On
 * error the graph is unchanged and cgprop_graph_errmsg() says why. The library
 * never prints, aborts or exits.
 *
 * @par Options and info structs
 * Every struct of options or information starts with a @c size field, set to
 * the struct's size by its @c _init() function. Call that function first,
 * then set the fields you need: the library reads and writes only the first
 * @c size bytes, so a program built against an older header keeps working
 * when later versions add fields at the end. A struct whose @c size is not
 * set is refused with ::CGPROP_EINVAL.
 *
 * @par Strings
 * Strings come in as pointer + length (no NUL needed) and are copied. Strings
 * going out are borrowed, NUL-terminated, and valid until the graph is freed.
 */
#ifndef CGPROP_H
#define CGPROP_H

#include <stddef.h>
#include <stdint.h>

/** @defgroup version Version
 *  Compile-time and run-time version numbers.
 *  @{ */

/** Major version: incremented on incompatible API or ABI changes. */
#define CGPROP_VERSION_MAJOR 0
/** Minor version: incremented when API is added. Before 1.0 the ABI may change with it. */
#define CGPROP_VERSION_MINOR 3
/** Patch version: incremented for fixes that change no API. */
#define CGPROP_VERSION_PATCH 0
/** The version as one number: MAJOR*10000 + MINOR*100 + PATCH. */
#define CGPROP_VERSION_NUMBER 300

/** @} */

/** @defgroup export Export and linkage macros
 *  Symbol visibility and C++ linkage.
 *  @{ */

#ifndef CGPROP_API
#  if defined(_WIN32) || defined(__CYGWIN__)
#    if defined(CGPROP_STATIC)
#      define CGPROP_API
#    elif defined(CGPROP_BUILDING)
#      define CGPROP_API __declspec(dllexport)
#    else
#      define CGPROP_API __declspec(dllimport)
#    endif
#  elif defined(__GNUC__) && __GNUC__ >= 4
/** Marks an exported function. Define it yourself (e.g. empty) before including this header to override. */
#    define CGPROP_API __attribute__((visibility("default")))
#  else
#    define CGPROP_API
#  endif
#endif

#ifndef CGPROP_DEPRECATED
#  if defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))
/** Marks a deprecated function; the argument says what to use instead. */
#    define CGPROP_DEPRECATED(msg) __attribute__((deprecated(msg)))
#  else
#    define CGPROP_DEPRECATED(msg)
#  endif
#endif

#ifdef __cplusplus
/** Opens an extern "C" block when compiled as C++. */
#  define CGPROP_BEGIN_DECLS extern "C" {
/** Closes the block opened by ::CGPROP_BEGIN_DECLS. */
#  define CGPROP_END_DECLS }
#else
#  define CGPROP_BEGIN_DECLS
#  define CGPROP_END_DECLS
#endif

/** @} */

CGPROP_BEGIN_DECLS

/** @addtogroup version
 *  @{ */

/**
 * The library's version as ::CGPROP_VERSION_NUMBER would give it.
 * Compare with the header's macro to catch a header/library mismatch.
 * @return the version number, e.g. 100 for 0.1.0.
 * @since 0.1
 */
CGPROP_API uint32_t cgprop_version(void);

/**
 * The library's version as a static string, e.g. "0.1.0".
 * @return a static NUL-terminated string.
 * @since 0.1
 */
CGPROP_API const char *cgprop_version_string(void);

/** @} */

/** @defgroup errors Status codes and error messages
 *  @{ */

/** Status codes returned by cgprop functions. */
enum cgprop_status {
    CGPROP_OK = 0,         /**< Success. */
    CGPROP_DONE = 1,       /**< An iterator has no more rows (not an error). */
    CGPROP_ENOMEM = -1,    /**< An allocation failed; the graph is unchanged and still valid. */
    CGPROP_EINVAL = -2,    /**< A bad argument: NULL handle, id out of range, wrong size, bad option. */
    CGPROP_ENOTFOUND = -3, /**< No such key or call. */
    CGPROP_ESTATE = -4,    /**< Call out of order: a stale iterator or result, or a missing analysis. */
    CGPROP_EOVERFLOW = -5, /**< A cost or count sum would overflow uint64_t; nothing was added. */
    CGPROP_EFORMAT = -6,   /**< Malformed input (readers, recorder event order). */
    CGPROP_EWRITE = -7     /**< A writer's output callback or file failed; the output is truncated. */
};

/**
 * Static text for a status code; never NULL. Use it where there is no graph
 * to ask (constructors).
 * @param code a ::cgprop_status value.
 * @return a static NUL-terminated string.
 * @since 0.1
 */
CGPROP_API const char *cgprop_strerror(int code);

/** @} */

/** @defgroup memory Memory allocation
 *  @{ */

/**
 * A caller-supplied allocator, copied into each graph at creation. Every
 * allocation the graph makes (its iterators and results included) goes
 * through it. All three functions must be set. Without one (NULL: the C
 * library's malloc, realloc and free), on Linux with glibc, blocks of 2 MiB
 * or more are mapped by the library itself (mmap, their data on a 2 MiB
 * boundary, advised onto transparent huge pages, grown with mremap); on
 * other Linux systems blocks of 4 MiB or more from malloc are advised.
 * Memory from a caller's allocator is never mapped or advised by cgprop.
 */
typedef struct cgprop_allocator {
    /** Like malloc(size); returns NULL on failure. */
    void *(*malloc_fn)(void *user, size_t size);
    /** Like realloc(ptr, size); returns NULL on failure, leaving @p ptr valid. */
    void *(*realloc_fn)(void *user, void *ptr, size_t size);
    /** Like free(ptr); never called with NULL. */
    void (*free_fn)(void *user, void *ptr);
    /** Passed as the first argument of each function. */
    void *user;
} cgprop_allocator;

/** @} */

/** @defgroup graph Building a graph
 *  @{ */

/** Opaque call graph handle. */
typedef struct cgprop_graph cgprop_graph;

/** Largest number of metrics per graph. */
#define CGPROP_MAX_METRICS 64

/**
 * Activation classes for per-class costs (docs/SPLIT.md). The level of an
 * activation of f is the number of activations of f strictly below it on the
 * call stack.
 */
enum cgprop_level {
    CGPROP_LEVEL_0 = 0,    /**< Non-recursive activation (level 0). */
    CGPROP_LEVEL_1 = 1,    /**< First-level recursive activation (level 1). */
    CGPROP_LEVEL_DEEP = 2, /**< Level 2 or deeper. */
    CGPROP_LEVEL_REC = 3   /**< Level 1 or deeper, lumped: the input cannot tell 1 from 2+. */
};

/**
 * Create an empty graph with @p nmetrics named metrics.
 * @param alloc allocator to use, copied; NULL for malloc/realloc/free.
 * @param names @p nmetrics metric names (e.g. "Ir"): each non-empty, one word
 *        (no byte 0x00-0x20 or 0x7f: no blank, line break or control byte, so
 *        callgrind's events: line carries it), and no two alike.
 * @param name_lens their lengths in bytes; NULL means every name is NUL-terminated.
 * @param nmetrics K, 1 ≤ K ≤ ::CGPROP_MAX_METRICS.
 * @param[out] out the new graph, or NULL on error.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument, including a metric name against the rules above), ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_new(const cgprop_allocator *alloc, const char *const *names,
                                const size_t *name_lens, size_t nmetrics, cgprop_graph **out);

/**
 * Free a graph with everything it owns (results, cached indexes). Iterators
 * are owned by the caller and must be freed separately, before or after.
 * @param g the graph; NULL is a no-op.
 * @since 0.1
 */
CGPROP_API void cgprop_graph_free(cgprop_graph *g);

/**
 * The message of the last error on @p g, or "" if the last call succeeded.
 * Borrowed; valid until the next call on @p g. Returns a static text for NULL.
 * @param g the graph, or NULL.
 * @return the message, never NULL.
 * @since 0.1
 */
CGPROP_API const char *cgprop_graph_errmsg(const cgprop_graph *g);

/**
 * Number of metrics K.
 * @param g the graph.
 * @return K, or 0 if @p g is NULL.
 * @since 0.1
 */
CGPROP_API size_t cgprop_graph_metric_count(const cgprop_graph *g);

/**
 * Name of metric @p k. Borrowed, NUL-terminated, valid until the graph is freed.
 * @param g the graph.
 * @param k metric index, 0 ≤ k < K.
 * @param[out] len_out if not NULL, receives the length.
 * @return the name, or NULL for a bad argument.
 * @since 0.1
 */
CGPROP_API const char *cgprop_graph_metric_name(const cgprop_graph *g, uint32_t k, size_t *len_out);

/**
 * Index of the metric named @p name.
 * @param g the graph.
 * @param name the name (no NUL needed).
 * @param len its length.
 * @param[out] out the metric index.
 * @return ::CGPROP_OK, ::CGPROP_ENOTFOUND, ::CGPROP_EINVAL.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_find_metric(cgprop_graph *g, const char *name, size_t len, uint32_t *out);

/**
 * Add a function by key, or return the id it already has. Ids are dense:
 * 0, 1, 2, … in order of first addition.
 * @param g the graph.
 * @param key the profiler's identity for the function (any bytes, may be empty).
 * @param len the key's length in bytes.
 * @param[out] out the function's id.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (2^32−1 functions).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_node(cgprop_graph *g, const char *key, size_t len, uint32_t *out);

/**
 * Look a function up by key.
 * @param g the graph.
 * @param key the key.
 * @param len its length.
 * @param[out] out its id.
 * @return ::CGPROP_OK, ::CGPROP_ENOTFOUND, ::CGPROP_EINVAL.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_find_node(cgprop_graph *g, const char *key, size_t len, uint32_t *out);

/**
 * The key of function @p node. Borrowed, NUL-terminated (a key holding NUL
 * bytes is still returned whole through @p len_out), valid until the graph is freed.
 * @param g the graph.
 * @param node a function id.
 * @param[out] len_out if not NULL, receives the length.
 * @return the key, or NULL for a bad argument.
 * @since 0.1
 */
CGPROP_API const char *cgprop_graph_node_key(const cgprop_graph *g, uint32_t node, size_t *len_out);

/**
 * Number of functions.
 * @param g the graph.
 * @return the count, or 0 if @p g is NULL.
 * @since 0.1
 */
CGPROP_API size_t cgprop_graph_node_count(const cgprop_graph *g);

/**
 * Number of distinct calls (caller, callee) pairs.
 * @param g the graph.
 * @return the count, or 0 if @p g is NULL.
 * @since 0.1
 */
CGPROP_API size_t cgprop_graph_edge_count(const cgprop_graph *g);

/**
 * Add many functions at once: the same as cgprop_graph_add_node() for each key
 * in turn (a key already in the graph, or repeated in the batch, gets the id
 * it has), but all or nothing, and faster for a large batch: memory is
 * taken once and the key index probes overlap.
 * @param g the graph.
 * @param n the number of keys.
 * @param keys n keys (any bytes; a NULL key is the empty key when its length is 0).
 * @param lens n lengths in bytes, or NULL when every key is a NUL-terminated string.
 * @param[out] out n ids: out[i] is the id of keys[i]. On an error its contents are unspecified.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (NULL argument, a key of 4 GiB or more; nothing added),
 *         ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (2^32−1 functions). On any error the
 *         graph is as it was: no function of the batch is added.
 * @since 0.3
 */
CGPROP_API int cgprop_graph_add_nodes(cgprop_graph *g, size_t n, const char *const *keys, const size_t *lens,
                                      uint32_t *out);

/**
 * Add self cost to a function, activation class unknown. Figures of the
 * split that need this function's class are then flagged inexact.
 * @param g the graph.
 * @param node the function.
 * @param costs K values added to its self cost.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_EOVERFLOW (nothing added).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_self(cgprop_graph *g, uint32_t node, const uint64_t *costs);

/**
 * Add self cost to a function for activations of one class.
 * @param g the graph.
 * @param node the function.
 * @param level the class of the activations, a ::cgprop_level.
 * @param costs K values added to its self cost and to S_n (level 0) or S_r (any other level).
 *        ::CGPROP_LEVEL_DEEP self cost is also kept apart from level 1's, for the
 *        callgrind writer's `fn'3` (stored only for functions that have some).
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_EOVERFLOW (nothing added),
 *         ::CGPROP_ENOMEM (::CGPROP_LEVEL_DEEP only; nothing added).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_self_class(cgprop_graph *g, uint32_t node, uint32_t level,
                                           const uint64_t *costs);

/**
 * Add calls from @p caller to @p callee, activation classes unknown. A pair
 * added again accumulates into the same call. Self-calls are allowed.
 * @param g the graph.
 * @param caller calling function.
 * @param callee called function.
 * @param count number of calls (0 when unknown, as for sampled stacks).
 * @param costs K inclusive costs of these calls, or NULL when the input has
 *        none (gprof arcs). A call with costs from no addition has no cost.
 * @param[out] out if not NULL, receives the call's id (dense, in order of first addition).
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (nothing added).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_edge(cgprop_graph *g, uint32_t caller, uint32_t callee, uint64_t count,
                                     const uint64_t *costs, uint32_t *out);

/**
 * Add many calls at once: the same as cgprop_graph_add_edge(@p g, callers[i],
 * callees[i], counts[i], costs + i·K, out + i) for i = 0 … n−1 in that order —
 * the same call ids (a pair already in the graph, or repeated in the batch,
 * accumulates into the call it has), the same sums, the same overflow
 * errors — but all or nothing, and much faster for a large batch: memory is
 * taken once, and the calls of a caller that had none before (a profiler
 * writing each function's calls together) are told apart without the call
 * index, which is built when a later look-up first needs it.
 * @param g the graph.
 * @param n the number of calls, at most 2^32−2.
 * @param callers n calling functions.
 * @param callees n called functions.
 * @param counts n call counts.
 * @param costs n·K costs, call i's K costs at costs[i·K]; or NULL when the input has
 *        none (as cgprop_graph_add_edge() with NULL costs, for every call).
 * @param[out] out if not NULL, n call ids: out[i] is the id of call i. On an error its
 *        contents are unspecified.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (NULL argument, a function id out of range),
 *         ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (a sum would overflow at some call, or
 *         2^32−1 calls; the message names the first such call). On any error the graph
 *         is exactly as it was: nothing of the batch is added, and the generation
 *         does not move.
 * @since 0.3
 */
CGPROP_API int cgprop_graph_add_calls(cgprop_graph *g, size_t n, const uint32_t *callers, const uint32_t *callees,
                                      const uint64_t *counts, const uint64_t *costs, uint32_t *out);

/**
 * Add calls between activations of known classes. Also adds to the call's
 * plain count and cost, exactly as cgprop_graph_add_edge() would.
 * @param g the graph.
 * @param caller calling function.
 * @param callee called function.
 * @param caller_level class of the calling activations: ::CGPROP_LEVEL_0, or any
 *        other ::cgprop_level for "recursive" (the split keeps caller level ≥ 1 as one class;
 *        what ::CGPROP_LEVEL_DEEP callers add is also kept apart, for the callgrind
 *        writer's `fn'3`, only for calls that have some).
 * @param callee_level class of the called activations, a ::cgprop_level.
 * @param count number of calls.
 * @param costs K inclusive costs; NULL is not allowed here.
 * @param[out] out if not NULL, receives the call's id.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (nothing added).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_edge_class(cgprop_graph *g, uint32_t caller, uint32_t callee,
                                           uint32_t caller_level, uint32_t callee_level, uint64_t count,
                                           const uint64_t *costs, uint32_t *out);

/**
 * Add spontaneous entries: activations of @p node with no caller (the first
 * frame of a stack, an enter on an empty recorder stack). They are level-0
 * activations and act as calls from an invisible "<spontaneous>" caller.
 * @param g the graph.
 * @param node the function.
 * @param count number of such activations (may be 0 when unknown).
 * @param costs K inclusive costs of these activations.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_EOVERFLOW (nothing added).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_spontaneous(cgprop_graph *g, uint32_t node, uint64_t count,
                                            const uint64_t *costs);

/**
 * Add one sampled stack: the library derives self cost (leaf frame), call
 * costs (each adjacent pair, once per occurrence), the spontaneous entry of
 * the first frame, and the exact activation class of every frame.
 * Calls derived from stacks carry count 0.
 * @param g the graph.
 * @param frames function ids, root first, leaf last.
 * @param depth number of frames, ≥ 1.
 * @param weights K weights of the sample.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (nothing added).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_add_stack(cgprop_graph *g, const uint32_t *frames, size_t depth,
                                      const uint64_t *weights);

/**
 * Look a call up by its pair.
 * @param g the graph.
 * @param caller calling function.
 * @param callee called function.
 * @param[out] out the call's id.
 * @return ::CGPROP_OK, ::CGPROP_ENOTFOUND, ::CGPROP_EINVAL.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_find_edge(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out);

/**
 * The generation counter: incremented by every successful mutation. Results
 * and iterators remember the generation they were made at and fail with
 * ::CGPROP_ESTATE once it has moved on.
 * @param g the graph.
 * @return the generation, or 0 if @p g is NULL.
 * @since 0.1
 */
CGPROP_API uint64_t cgprop_graph_generation(const cgprop_graph *g);

/** @} */

/** @defgroup analysis Analyses
 *  Each analysis stores its result in the graph; a mutation discards it.
 *  @{ */

/** Share weights for the gprof collapse and propagation (docs/PROPAGATION.md). */
enum cgprop_share {
    CGPROP_SHARE_AUTO = 0,  /**< By cost if any call has a cost, else by count. */
    CGPROP_SHARE_COUNT = 1, /**< By call count (gprof). */
    CGPROP_SHARE_COST = 2   /**< By call cost, metric by metric (gprof2dot on callgrind data). */
};

/**
 * Find recursion cycles: strongly connected components with two or more
 * functions (iterative, linear time). Cycle ids are dense and ordered by
 * their smallest member id. A function with only a self-call is flagged
 * self-recursive, not a cycle.
 * @param g the graph.
 * @param[out] ncycles_out if not NULL, receives the number of cycles.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_find_cycles(cgprop_graph *g, size_t *ncycles_out);

/**
 * gprof-style collapse: each cycle becomes one vertex; totals by the
 * Graham–Kessler–McKusick recurrence; per call the propagated self and child
 * parts; members' own (not inclusive) gprof figures. Needs cgprop_graph_find_cycles().
 * @param g the graph.
 * @param share a ::cgprop_share.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_ESTATE (cycles not found
 *         for the current generation).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_collapse(cgprop_graph *g, uint32_t share);

/**
 * Inclusive figures for every function and call: gprof2dot's linear
 * per-root propagation (the @c heuristic of the rows), and beside it, per
 * function, the proven interval of its inclusive cost and the best figure
 * (the rows' @c total: exact where the input determines it, else the
 * heuristic clamped into the interval). Uses the share chosen for
 * cgprop_graph_collapse(), which must have run first; runs
 * cgprop_graph_split() too when its result is not current, since the
 * recursion classes are what make figures exact.
 * @param g the graph.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_ESTATE.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_propagate(cgprop_graph *g);

/** Default work budget of the absorbing walk, in front units per cycle member (see cgprop_graph_set_estimate()). */
#define CGPROP_WALK_BUDGET_DEFAULT 20

/**
 * Choose what @c total shows for a cycle member whose interval comes from
 * measured call costs alone (no recursion levels in the input), and how much
 * work the absorbing walk may spend per cycle. Takes effect at the next
 * cgprop_graph_propagate(); the graph itself is not changed.
 *
 * Two models estimate such a member: gprof2dot's per-root heuristic (clamped
 * into the interval) and the absorbing walk (a Markov model of who called
 * each activation). They err in opposite directions on real programs;
 * their midpoint, the default, was measured better than either.
 * @param g the graph.
 * @param which ::CGPROP_EST_MIDPOINT (default), ::CGPROP_EST_WALK or ::CGPROP_EST_HEURISTIC.
 * @param budget_per_member the walk's work budget per member of a cycle, in
 *        front units (eliminating a member whose front has s members costs
 *        s², about 50 ns each): a cycle of n members that needs more than
 *        max(n, 10000) times this keeps the clamped heuristic
 *        (::CGPROP_EST_BUDGET). 0 means no limit;
 *        ::CGPROP_WALK_BUDGET_DEFAULT is the default (the cycles of real
 *        programs, a few hundred members with small separators, fit in it;
 *        a random 20,000-member cycle gives up after about 20 ms).
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (unknown @p which, negative or NaN budget).
 * @since 0.2
 */
CGPROP_API int cgprop_graph_set_estimate(cgprop_graph *g, uint32_t which, double budget_per_member);

/**
 * KCachegrind's recursive/non-recursive split (docs/SPLIT.md) from the per-class
 * costs in the graph. Figures that the input cannot give exactly are flagged.
 * @param g the graph.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_split(cgprop_graph *g);

/**
 * The weight of the stacks that may have been cut short: in a graph read
 * from a sampling profiler's file (perf script, pprof, V8), the stacks
 * that start in a function that is also called (by another function, or by
 * itself in stacks as deep as a sampler's limit). Their outer frames are
 * unknown, so every figure they could change is flagged: totals carry
 * ::CGPROP_R_UNROOTED and an interval, split figures their inexact bits.
 * 0 for folded stacks, stacks given through the API, and other inputs.
 * Runs cgprop_graph_split() when its result is not current.
 * @param g the graph.
 * @param metric the metric index.
 * @param[out] weight the stacks' weight in that metric.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (NULL argument, metric out of range), ::CGPROP_ENOMEM.
 * @since 0.3
 */
CGPROP_API int cgprop_graph_unrooted(cgprop_graph *g, uint32_t metric, uint64_t *weight);

/**
 * The common case in one call: cgprop_graph_find_cycles(),
 * cgprop_graph_collapse() with ::CGPROP_SHARE_AUTO, cgprop_graph_split() and
 * cgprop_graph_propagate(), each skipped when its result is already current.
 * Afterwards every iterator kind and every writer format can be used.
 * @param g the graph.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM; on error the graph
 *         keeps its data and the analyses that completed.
 * @since 0.3
 */
CGPROP_API int cgprop_graph_analyze(cgprop_graph *g);

/** @} */

/** @defgroup iterate Reading results
 *  Iterators, point look-ups and bulk copies. Each iterator kind yields one
 *  row type; the row size passed in must equal that type's size.
 *  @{ */

/** Opaque iterator handle. */
typedef struct cgprop_iter cgprop_iter;

/** Row flags (bits of the @c flags fields). */
enum cgprop_flag {
    CGPROP_F_IN_CYCLE = 1u << 0,        /**< Function is a member of a cycle. */
    CGPROP_F_SELF_RECURSIVE = 1u << 1,  /**< Function calls itself directly. */
    CGPROP_F_SPONTANEOUS = 1u << 2,     /**< Function has spontaneous entries. */
    CGPROP_F_NO_CALLERS = 1u << 3,      /**< Function is called by no other function (self-calls and spontaneous entries do not count). */
    CGPROP_F_HAS_COST = 1u << 4,        /**< Call has a measured cost. */
    CGPROP_F_SELF_CALL = 1u << 5,       /**< Call is a self-call f→f. */
    CGPROP_F_INTRA_CYCLE = 1u << 6,     /**< Call joins two members of the same cycle. */
    CGPROP_F_ENTRY_ASSUMED = 1u << 7,   /**< Cycle (or member of one) whose entry had to be assumed. */
    CGPROP_F_NOT_INCLUSIVE = 1u << 8,   /**< The gprof figure of a cycle member: not an inclusive cost. */
    CGPROP_F_NO_TOTAL = 1u << 9,        /**< Call got no propagated total (intra-cycle edge in no DAG). */
    CGPROP_F_ROOT = 1u << 10,           /**< Vertex with no external caller and no spontaneous weight. */
    CGPROP_F_ESTIMATE = 1u << 11,       /**< The figure is an estimate, not exact (see ::cgprop_estimate). */
    CGPROP_F_NO_BOUNDS = 1u << 12,      /**< No proven interval: the call costs it would rest on are not measured, or a sum overflows. */
    CGPROP_F_CLAMPED = 1u << 13,        /**< The heuristic lay outside the proven interval (or above the call's measured cost) and was clamped into it. */
    CGPROP_F_NO_WALK = 1u << 14         /**< No walk figure: the function is exact, has no interval, its interval comes from recursion levels, or its cycle passed the walk's budget. */
};

/** What kind of figure a @c total is (the @c estimate field of ::cgprop_total_row). */
enum cgprop_estimate {
    CGPROP_EST_EXACT = 0,     /**< Exact: the interval is a single point (C_n as the input determines it). */
    CGPROP_EST_HEURISTIC = 1, /**< gprof2dot's per-root estimate, clamped into the interval where there is one. */
    CGPROP_EST_SHARES = 2,    /**< gprof's propagation by call shares, without measured call costs: it assumes every call
                                   of a function costs the same, and no interval can be proven. */
    CGPROP_EST_WALK = 3,      /**< The absorbing walk over the measured call costs (inside the interval). */
    CGPROP_EST_MIDPOINT = 4,  /**< The midpoint of the walk and the clamped heuristic (inside the interval). */
    CGPROP_EST_BUDGET = 5,    /**< The clamped heuristic, because the walk on this cycle needed more than its work budget. */
    CGPROP_EST_MEASURED = 6   /**< What the stacks show, the interval's lower end: the figure is exact but for stacks
                                   cut short (::CGPROP_R_UNROOTED), which may belong under this function too. @since 0.3 */
};

/** Why a total is not exact (bits of the @c reason field of ::cgprop_total_row). */
enum cgprop_reason {
    CGPROP_R_SIDES_DISAGREE = 1u << 0, /**< The calls into its non-recursive activations and what those spend and call
                                            give different inclusive costs (collection toggled mid-run, a lost
                                            spontaneous entry, a damaged file): the interval spans both. */
    CGPROP_R_BELOW_SELF = 1u << 1,     /**< A measured inclusive side lies below the function's own self cost; the
                                            interval reaches up to the self cost. */
    CGPROP_R_RECURSION = 1u << 2,      /**< Member of a recursion cycle the input gives no levels for: the interval runs
                                            from the cost entering it from outside the cycle to that plus the calls
                                            from the other members (at most the cycle's total). */
    CGPROP_R_ENTRY_UNKNOWN = 1u << 3,  /**< Member of a cycle nothing calls and nothing enters: the interval runs up to
                                            the cycle's total. */
    CGPROP_R_UNMEASURED = 1u << 4,     /**< Some call the figure rests on has no measured cost: no interval. */
    CGPROP_R_OVERFLOW = 1u << 5,       /**< A sum the interval needs exceeds 64 bits: no interval. */
    CGPROP_R_UNROOTED = 1u << 6        /**< Some sampled stacks start in a function that is also called: cut short by
                                            the sampler's depth limit or an unwinder that stopped, they may have run
                                            under this function too; the interval reaches up by their weight (at most
                                            to the program's total). @since 0.3 */
};

/** Inexact bits of split rows (the @c inexact fields): one bit per figure. */
enum cgprop_inexact {
    CGPROP_X_S_N = 1u << 0,  /**< S_n not exact. */
    CGPROP_X_S_R = 1u << 1,  /**< S_r not exact. */
    CGPROP_X_C_N = 1u << 2,  /**< C_n not exact. */
    CGPROP_X_C_R = 1u << 3,  /**< C_r not exact. */
    CGPROP_X_D = 1u << 4,    /**< D not exact. */
    CGPROP_X_C_NN = 1u << 5, /**< C_nn not exact. */
    CGPROP_X_C_NR = 1u << 6, /**< C_nr not exact. */
    CGPROP_X_C_ND = 1u << 7, /**< C_nd not exact. */
    CGPROP_X_C_RN = 1u << 8, /**< C_rn not exact. */
    CGPROP_X_C_RR = 1u << 9, /**< C_rr not exact. */
    CGPROP_X_C_RD = 1u << 10 /**< C_rd not exact. */
};

/** "No cycle" value of cycle id fields. */
#define CGPROP_NONE 0xFFFFFFFFu

/** Iterator kinds for cgprop_iter_new(); each names its row type. */
enum cgprop_iter_kind {
    CGPROP_ITER_NODES = 1,       /**< All functions; ::cgprop_node_row. */
    CGPROP_ITER_EDGES = 2,       /**< All calls; ::cgprop_edge_row. */
    CGPROP_ITER_CALLERS = 3,     /**< Calls into function @c arg; ::cgprop_edge_row. */
    CGPROP_ITER_CALLEES = 4,     /**< Calls out of function @c arg; ::cgprop_edge_row. */
    CGPROP_ITER_CYCLES = 5,      /**< Cycles (needs find_cycles, collapse for totals); ::cgprop_cycle_row. */
    CGPROP_ITER_MEMBERS = 6,     /**< Members of cycle @c arg, by id; ::cgprop_member_row. */
    CGPROP_ITER_TOTALS = 7,      /**< Per-function totals (needs propagate); ::cgprop_total_row. */
    CGPROP_ITER_EDGE_TOTALS = 8, /**< Per-call totals (needs propagate); ::cgprop_edge_total_row. */
    CGPROP_ITER_SPLIT = 9,       /**< Per-function split (needs split); ::cgprop_split_row. */
    CGPROP_ITER_EDGE_SPLIT = 10  /**< Per-call split (needs split); ::cgprop_edge_split_row. */
};

/** A function as built: ::CGPROP_ITER_NODES. Costs are those of the iterator's metric. */
typedef struct cgprop_node_row {
    uint32_t id;          /**< Function id. */
    uint32_t flags;       /**< ::cgprop_flag bits known without analysis (SELF_RECURSIVE, SPONTANEOUS, NO_CALLERS). */
    uint64_t self;        /**< Self cost S. */
    uint64_t spont_count; /**< Spontaneous activations. */
    uint64_t spont_cost;  /**< Inclusive cost of spontaneous activations. */
    uint64_t calls_in;    /**< Σ counts of calls into it, self-calls included (gprof's "called"). */
} cgprop_node_row;

/** A call as built: ::CGPROP_ITER_EDGES, ::CGPROP_ITER_CALLERS, ::CGPROP_ITER_CALLEES. */
typedef struct cgprop_edge_row {
    uint32_t id;     /**< Call id. */
    uint32_t caller; /**< Calling function. */
    uint32_t callee; /**< Called function. */
    uint32_t flags;  /**< ::cgprop_flag bits (HAS_COST, SELF_CALL). */
    uint64_t count;  /**< Call count. */
    uint64_t cost;   /**< Inclusive cost, 0 without ::CGPROP_F_HAS_COST. */
} cgprop_edge_row;

/** A cycle: ::CGPROP_ITER_CYCLES. */
typedef struct cgprop_cycle_row {
    uint32_t id;       /**< Cycle id (dense, ordered by smallest member id). */
    uint32_t nmembers; /**< Number of member functions. */
    uint32_t flags;    /**< ::CGPROP_F_ENTRY_ASSUMED, ::CGPROP_F_ROOT (after collapse/propagate);
                            ::CGPROP_F_ESTIMATE after collapse unless cgprop_graph_propagate() found
                            @c total exact: the cost of the cycle's outermost activations, every call
                            leaving the cycle measured. */
    uint32_t first;    /**< Smallest member id. */
    uint64_t self;     /**< Σ members' self costs. */
    double total;      /**< T(Z) from cgprop_graph_collapse() (gprof's cycle total); 0 before it. Where
                            propagate found it exact, the exact integer itself. */
} cgprop_cycle_row;

/** A cycle member: ::CGPROP_ITER_MEMBERS. */
typedef struct cgprop_member_row {
    uint32_t cycle; /**< Cycle id. */
    uint32_t node;  /**< Member function id. */
} cgprop_member_row;

/**
 * Inclusive figures of a function: ::CGPROP_ITER_TOTALS.
 *
 * @c total is the best figure there is: the exact inclusive cost (C_n) where
 * the input determines it, else an estimate inside the proven interval
 * [@c lo, @c hi]. gprof2dot's unclamped per-root total is @c heuristic.
 */
typedef struct cgprop_total_row {
    uint32_t id;        /**< Function id. */
    uint32_t flags;     /**< IN_CYCLE, SELF_RECURSIVE, ENTRY_ASSUMED, ROOT, ESTIMATE (not exact), NO_BOUNDS, CLAMPED. */
    uint32_t cycle;     /**< Cycle id or ::CGPROP_NONE. */
    uint32_t reason;    /**< ::cgprop_reason bits: why the figure is not exact or has no interval; 0 when exact. */
    double total;       /**< Best inclusive figure: exact where @c estimate is ::CGPROP_EST_EXACT, else an estimate in [lo, hi]. */
    double heuristic;   /**< gprof2dot's per-root total (own total for cycle members, T for others), unclamped. */
    double lo;          /**< Proven lower bound of the inclusive cost (0 with ::CGPROP_F_NO_BOUNDS). */
    double hi;          /**< Proven upper bound of the inclusive cost (0 with ::CGPROP_F_NO_BOUNDS). */
    double walk;        /**< The absorbing walk's estimate, kept inside [lo, hi] (0 with ::CGPROP_F_NO_WALK). */
    double vertex_total; /**< T(H(f)) of the collapsed DAG: the cycle's total for members. */
    double gprof_self;  /**< gprof figure, self part: S(f). */
    double gprof_child; /**< gprof figure, child part: shares of out-of-cycle callees (not inclusive for members). */
    double spont_share; /**< Share of the heuristic total that entered spontaneously (goes to no caller). */
    uint32_t estimate;  /**< ::cgprop_estimate: which kind of figure @c total is. */
    uint32_t reserved;  /**< Always 0. */
} cgprop_total_row;

/** Propagated figures of a call: ::CGPROP_ITER_EDGE_TOTALS. */
typedef struct cgprop_edge_total_row {
    uint32_t id;        /**< Call id. */
    uint32_t caller;    /**< Calling function. */
    uint32_t callee;    /**< Called function. */
    uint32_t flags;     /**< SELF_CALL, INTRA_CYCLE, NO_TOTAL, ESTIMATE (the total is not exact: a per-root
                             estimate inside a cycle, or a share that is not the call's measured cost:
                             a split by counts, or figures of the profile that disagree), CLAMPED. */
    double total;       /**< Propagated total of the call, never above its measured cost. */
    double heuristic;   /**< The same before that clamp: the collapse share for calls into another vertex,
                             gprof2dot's per-root figure for calls inside a cycle. */
    double gprof_self;  /**< gprof's self part propagated along the call (0 inside a cycle). */
    double gprof_child; /**< gprof's child part propagated along the call (0 inside a cycle). */
    double share;       /**< w/W: fraction of the callee (vertex) total given to this call. */
} cgprop_edge_total_row;

/** Split figures of a function: ::CGPROP_ITER_SPLIT. */
typedef struct cgprop_split_row {
    uint32_t id;      /**< Function id. */
    uint32_t inexact; /**< ::cgprop_inexact bits: figures that are not exact. */
    uint64_t S_n;     /**< Self cost in level-0 activations. */
    uint64_t S_r;     /**< Self cost in level ≥ 1 activations. */
    uint64_t C_n;     /**< Inclusive cost of level-0 activations: the true inclusive cost. */
    uint64_t C_r;     /**< Inclusive cost of level-1 activations. */
    double D;         /**< Drawing size C_n − Σ_g C_xr(f,g). */
    double heuristic; /**< gprof2dot's per-root total (needs propagate; else 0), to compare with C_n. */
} cgprop_split_row;

/** Split figures of a call: ::CGPROP_ITER_EDGE_SPLIT. */
typedef struct cgprop_edge_split_row {
    uint32_t id;      /**< Call id. */
    uint32_t caller;  /**< Calling function. */
    uint32_t callee;  /**< Called function. */
    uint32_t inexact; /**< ::cgprop_inexact bits. */
    uint64_t C_nn;    /**< Level-0 caller → level-0 callee. */
    uint64_t C_nr;    /**< Level-0 caller → level-1 callee. */
    uint64_t C_nd;    /**< Level-0 caller → level ≥ 2 callee. */
    uint64_t C_rn;    /**< Level ≥ 1 caller → level-0 callee. */
    uint64_t C_rr;    /**< Level ≥ 1 caller → level-1 callee. */
    uint64_t C_rd;    /**< Level ≥ 1 caller → level ≥ 2 callee. */
} cgprop_edge_split_row;

/**
 * Create an iterator. It is valid while the graph is not mutated and, for
 * analysis kinds, no analysis its rows read is run again (a TOTALS row reads
 * find_cycles, collapse and propagate; a CYCLES row reads find_cycles and,
 * once it has run, collapse; a SPLIT row reads the split and, once it has
 * run, propagate); after that cgprop_iter_next() returns ::CGPROP_ESTATE.
 * @param g the graph.
 * @param kind a ::cgprop_iter_kind.
 * @param metric metric index for cost fields (ignored by MEMBERS).
 * @param arg function id for CALLERS/CALLEES, cycle id for MEMBERS, else 0.
 * @param[out] out the iterator; free it with cgprop_iter_free().
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_ESTATE (the analysis
 *         this kind needs has not run on the current graph).
 * @since 0.1
 */
CGPROP_API int cgprop_iter_new(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t arg,
                               cgprop_iter **out);

/**
 * Fill the next row.
 * @param it the iterator.
 * @param row a row of the iterator kind's type.
 * @param row_size sizeof that type.
 * @return ::CGPROP_OK (row filled), ::CGPROP_DONE, ::CGPROP_EINVAL, ::CGPROP_ESTATE.
 * @since 0.1
 */
CGPROP_API int cgprop_iter_next(cgprop_iter *it, void *row, size_t row_size);

/**
 * Copy up to @p cap next rows into @p dst in one call (for FFI callers).
 * @param it the iterator.
 * @param dst array of @p cap rows of the kind's type.
 * @param row_size sizeof that type.
 * @param cap capacity of @p dst in rows.
 * @param[out] n_out rows copied; fewer than @p cap only at the end.
 * @return ::CGPROP_OK (rows copied, possibly 0), ::CGPROP_DONE (nothing left), ::CGPROP_EINVAL, ::CGPROP_ESTATE.
 * @since 0.1
 */
CGPROP_API int cgprop_iter_copy_rows(cgprop_iter *it, void *dst, size_t row_size, size_t cap, size_t *n_out);

/**
 * Number of rows the iterator yields in all (from its start).
 * @param it the iterator.
 * @return the count, or 0 if @p it is NULL.
 * @since 0.1
 */
CGPROP_API size_t cgprop_iter_count(const cgprop_iter *it);

/**
 * Free an iterator.
 * @param it the iterator; NULL is a no-op.
 * @since 0.1
 */
CGPROP_API void cgprop_iter_free(cgprop_iter *it);

/**
 * Point look-up: fill the row for id @p id as the iterator of @p kind would.
 * For CALLERS/CALLEES/MEMBERS use EDGES or NODES instead (EINVAL).
 * @param g the graph.
 * @param kind a ::cgprop_iter_kind.
 * @param metric metric index.
 * @param id function id (NODES, TOTALS, SPLIT), call id (EDGES, EDGE_TOTALS, EDGE_SPLIT) or cycle id (CYCLES).
 * @param row the row to fill.
 * @param row_size sizeof the row type.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ESTATE.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_get_row(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t id, void *row,
                                    size_t row_size);

/**
 * The cycle a function belongs to (needs cgprop_graph_find_cycles()).
 * @param g the graph.
 * @param node the function.
 * @param[out] out cycle id, or ::CGPROP_NONE.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ESTATE.
 * @since 0.1
 */
CGPROP_API int cgprop_graph_node_cycle(cgprop_graph *g, uint32_t node, uint32_t *out);

/** @} */

/* ==== recorder ==== */

/** @defgroup recorder Event recorder and overhead compensation
 *  The API an instrumenting profiler calls from its probes (docs/RECORDER.md).
 *
 *  A recorder is bound to one graph and used by one thread. Each probe passes
 *  the K counter readings it took (time, instructions, …) to
 *  cgprop_recorder_enter() or cgprop_recorder_exit(). The recorder keeps its
 *  own figures while it runs and writes them into the graph at
 *  cgprop_recorder_flush(), so probes never touch the graph's hash tables.
 *  For many threads, give each thread its own graph and recorder and join the
 *  graphs with cgprop_graph_merge().
 *
 *  Errors of recorder calls are reported through the bound graph:
 *  cgprop_graph_errmsg() of that graph says why. A failed call leaves the
 *  recorder as it was.
 *  @{ */

/** Opaque recorder handle. */
typedef struct cgprop_recorder cgprop_recorder;

/** Compensation routes (the @c mode field of ::cgprop_recorder_options). */
enum cgprop_comp_mode {
    CGPROP_COMP_OFF = 0,       /**< No compensation: compensated figures equal the raw ones. */
    CGPROP_COMP_ONLINE = 1,    /**< On the fly at each exit, as TAU does. */
    CGPROP_COMP_POSTMORTEM = 2 /**< From the recorded event counts, when figures are read or flushed. */
};

/** Recorder option bits (the @c flags field of ::cgprop_recorder_options). */
enum cgprop_recorder_flag {
    /** On the fly only: floor each activation's compensated inclusive and
     *  exclusive cost at 0 (TAU's behaviour). Each floor counts as one clamp.
     *  A clamped run no longer matches the post-mortem route. */
    CGPROP_REC_CLAMP = 1u << 0,
    /** Keep calling contexts in the graph (cgprop_graph_keep_contexts(),
     *  which must be allowed): each closed activation's raw exclusive cost
     *  goes to its context at flush. A recorder on a graph that keeps
     *  contexts feeds them without this flag. @since 0.3 */
    CGPROP_REC_CONTEXTS = 1u << 1
};

/**
 * Recorder options. Fill with cgprop_recorder_options_init() (no
 * compensation), then set what you need. The per-metric overheads are in
 * counter units, K entries each (K = the graph's metric count), read and
 * copied by cgprop_recorder_new(); NULL means 0 for every metric. For each
 * metric, @c delta_i[k] + @c delta_e[k] must not exceed INT64_MAX.
 */
typedef struct cgprop_recorder_options {
    uint32_t size;            /**< sizeof(cgprop_recorder_options), set by cgprop_recorder_options_init(). */
    uint32_t mode;            /**< A ::cgprop_comp_mode. */
    uint32_t flags;           /**< ::cgprop_recorder_flag bits. */
    uint32_t reserved;        /**< Always 0. */
    const uint64_t *delta_i;  /**< δ_i per metric (K entries or NULL): overhead inside an activation's own measured interval. */
    const uint64_t *delta_e;  /**< δ_e per metric (K entries or NULL): overhead outside it, seen only by its ancestors. */
} cgprop_recorder_options;

/**
 * Fill @p opt with the defaults: its size, no compensation, no flags, no δ.
 * @param opt the options to fill; NULL is a no-op.
 * @since 0.3
 */
CGPROP_API void cgprop_recorder_options_init(cgprop_recorder_options *opt);

/**
 * Create a recorder bound to @p g. It allocates through the graph's allocator
 * and must be freed before the graph.
 * @param g the graph the recorder writes into at flush; its functions are the ids probes pass.
 * @param opt options, copied; NULL for no compensation.
 * @param[out] out the new recorder, or NULL on error.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad mode, flag or δ), ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_new(cgprop_graph *g, const cgprop_recorder_options *opt, cgprop_recorder **out);

/**
 * Free a recorder. Figures not yet flushed are lost; the graph is not touched.
 * @param r the recorder; NULL is a no-op.
 * @since 0.1
 */
CGPROP_API void cgprop_recorder_free(cgprop_recorder *r);

/**
 * An activation of @p node begins. Its level is the number of activations of
 * @p node already open. An enter on an empty stack is a spontaneous entry.
 * @param r the recorder.
 * @param node a function id of the bound graph.
 * @param counters K counter readings; none may be below the previous event's.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (NULL argument, bad id), ::CGPROP_EFORMAT (counters
 *         ran backwards), ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (stack deeper than 2^32−1).
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_enter(cgprop_recorder *r, uint32_t node, const uint64_t *counters);

/**
 * The innermost open activation, which must be of @p node, ends.
 * The probe adds the activation to one per-call figure (or to the
 * function's spontaneous entries); the per-function figures (S_n, S_r, C_n,
 * C_r) are derived from those when read or flushed, so a self figure that
 * leaves the int64_t range is reported there (cgprop_recorder_get(),
 * cgprop_recorder_flush()), not here.
 * @param r the recorder.
 * @param node the function whose activation ends.
 * @param counters K counter readings; none may be below the previous event's.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (NULL argument), ::CGPROP_EFORMAT (empty stack, @p node
 *         is not the innermost open function, counters ran backwards), ::CGPROP_EOVERFLOW (on
 *         the fly: the activation's compensated inclusive cost, or a per-call compensated sum,
 *         left the int64_t range; or a call cost sum into level ≥ 2 activations the uint64_t
 *         range).
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_exit(cgprop_recorder *r, uint32_t node, const uint64_t *counters);

/**
 * Number of open activations.
 * @param r the recorder.
 * @return the depth, or 0 if @p r is NULL.
 * @since 0.1
 */
CGPROP_API size_t cgprop_recorder_depth(const cgprop_recorder *r);

/**
 * Close every open activation, innermost first, at @p counters, as if each
 * had exited then. Figures stay in the recorder.
 * @param r the recorder.
 * @param counters K readings; may be NULL when no activation is open.
 * @return as cgprop_recorder_exit(). All or nothing: on error no activation is closed.
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_unwind(cgprop_recorder *r, const uint64_t *counters);

/**
 * Close open activations as cgprop_recorder_unwind() does, write the figures
 * into the bound graph and clear them; the recorder can then be used again
 * (the next event's counters may start anywhere). Self costs go to
 * cgprop_graph_add_self_class(), call costs and counts to
 * cgprop_graph_add_edge_class(), spontaneous entries to
 * cgprop_graph_add_spontaneous(). The compensated figures are written
 * (the raw ones with ::CGPROP_COMP_OFF); a compensated figure below 0 is
 * written as 0 and counted (cgprop_recorder_floor_count()).
 * All or nothing: on error neither the graph nor the recorder change — its
 * figures, counts and open activations (closed only for as long as the flush
 * succeeds) stay as they were, so the flush can be retried.
 * @param r the recorder.
 * @param counters K readings for the open activations; may be NULL when none is open.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_EFORMAT, ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW
 *         (closing an open activation would overflow as in cgprop_recorder_exit(), a
 *         compensated figure leaves the int64_t range as in cgprop_recorder_get(), or a
 *         graph sum would overflow).
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_flush(cgprop_recorder *r, const uint64_t *counters);

/**
 * Add every function, self cost, spontaneous entry and call of @p src to
 * @p dst: functions with the same key become one; self costs (per class),
 * call counts, call costs (per class), spontaneous entries and the clamp
 * counts (cgprop_graph_clamp_count()) are summed.
 * The per-thread graphs of a multi-threaded profiler merge this way.
 * All or nothing: on error @p dst is unchanged.
 * @param dst the graph added to.
 * @param src the graph added; not changed. Must not be @p dst.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (NULL, same graph, metric count or names differ),
 *         ::CGPROP_ENOMEM, ::CGPROP_EOVERFLOW (a sum would overflow), ::CGPROP_ESTATE
 *         (@p dst keeps calling contexts and @p src, which has functions, keeps none).
 * @since 0.1
 */
CGPROP_API int cgprop_graph_merge(cgprop_graph *dst, const cgprop_graph *src);

/** @} */

/* ==== end recorder ==== */

/* ==== calling contexts ==== */

/** @defgroup contexts Calling contexts
 *  Functions and calls aggregate stacks away: a graph alone cannot tell
 *  that @c c was reached through @c a→b rather than @c d→b. A graph can
 *  also keep every distinct calling context (each stack prefix from a root,
 *  merged by identical prefix) with the cost that ended in it, per metric,
 *  which is what a flame graph draws (::CGPROP_FORMAT_FLAMEGRAPH). Contexts
 *  are fed by cgprop_graph_add_stack(), the recorder's exits (raw,
 *  uncompensated costs) and cgprop_graph_merge(); memory grows with the
 *  number of distinct contexts, not the number of samples.
 *  @{ */

/**
 * Keep calling contexts from now on (@p on non-zero), or drop them (0).
 * Turning them on is only allowed before any cost was added (contexts
 * would miss it). cgprop_graph_merge() then adds the source's contexts and
 * refuses a source that keeps none (::CGPROP_ESTATE). Keeping contexts is
 * not part of the generation: turning them on or off changes no figure.
 * The readers keep them when ::cgprop_read_options.contexts is set. A
 * recorder feeds them when the graph keeps them at cgprop_recorder_new()
 * (or with ::CGPROP_REC_CONTEXTS); one made before does not.
 * @param g the graph.
 * @param on non-zero to keep contexts, 0 to free them.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL, ::CGPROP_ENOMEM, ::CGPROP_ESTATE (costs were
 *         added already).
 * @since 0.3
 */
CGPROP_API int cgprop_graph_keep_contexts(cgprop_graph *g, int on);

/**
 * The number of distinct calling contexts the graph keeps.
 * @param g the graph.
 * @return the count; 0 when @p g is NULL or keeps no contexts.
 * @since 0.3
 */
CGPROP_API size_t cgprop_graph_context_count(const cgprop_graph *g);

/** @} */

/* ==== end calling contexts ==== */

CGPROP_END_DECLS

#endif /* CGPROP_H */
