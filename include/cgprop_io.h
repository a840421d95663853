/**
 * @file cgprop_io.h
 * @brief cgprop readers and writers: callgrind, folded stacks, event traces;
 *        text, JSON, DOT and callgrind output.
 *
 * Separate from cgprop.h because the core library does no I/O. Same rules:
 * no global state; a graph and its readers/writers are used by one thread at
 * a time; errors are status codes with messages.
 */
#ifndef CGPROP_IO_H
#define CGPROP_IO_H

#include "cgprop.h"

CGPROP_BEGIN_DECLS

/* ==== readers (owner: readers helper) ==== */

/* ==== end readers ==== */

/* ==== writers (owner: writers helper) ==== */

/** @defgroup writers Writers
 *  Text, JSON, DOT and callgrind output of a graph whose analyses have run.
 *  Writers read the graph through the public iterators only and never
 *  change it (they may build the same cached indexes any read call builds).
 *  @{ */

/**
 * Output callback of the writers: consume @p len bytes at @p data (not
 * NUL-terminated). Called on the writer's thread, in order.
 * @param user the pointer given to cgprop_write().
 * @param data the bytes.
 * @param len their number, ≥ 1.
 * @return 0 to go on; any other value stops the writer, which then returns
 *         ::CGPROP_EWRITE.
 * @since 0.1
 */
typedef int (*cgprop_write_fn)(void *user, const char *data, size_t len);

/** Status of cgprop_write() when the output callback (or the file) failed. */
enum cgprop_write_status {
    CGPROP_EWRITE = -20 /**< The output callback or file failed. */
};

/** Output formats for cgprop_write(). */
enum cgprop_format {
    CGPROP_FORMAT_TEXT = 1,     /**< Flat profile plus a gprof-like call graph (one metric). Needs propagate. */
    CGPROP_FORMAT_JSON = 2,     /**< Every figure of every metric, the shape documented in docs/TOOL.md. Needs propagate. */
    CGPROP_FORMAT_DOT = 3,      /**< Graphviz picture as gprof2dot draws it (one metric). Needs propagate. */
    CGPROP_FORMAT_CALLGRIND = 4 /**< Callgrind profile of the graph's input costs (all metrics). Needs no analysis. */
};

/** Writer flags (the @c flags field of ::cgprop_write_options). */
enum cgprop_write_flag {
    /** Text and DOT: show the §4 heuristic everywhere, even where the split
     *  has an exact C_n (gprof2dot's own picture). Estimates stay marked. */
    CGPROP_W_HEURISTIC_ONLY = 1u << 0,
    /** Callgrind: write plain names even when the split knows recursion
     *  classes (no @c fn'N names; the classes are lost on reading back). */
    CGPROP_W_NO_CLASSES = 1u << 1,
    /** Callgrind: no name compression (every @c fn= line spells the name). */
    CGPROP_W_NO_COMPRESSION = 1u << 2,
    /** DOT: no pruning (both thresholds taken as 0). */
    CGPROP_W_NO_PRUNE = 1u << 3
};

/**
 * Writer options. A fixed layout (frozen for the major version): fill it
 * with cgprop_write_options_init() and change what you need.
 */
typedef struct cgprop_write_options {
    uint32_t metric;     /**< Metric shown by text and DOT (default 0). */
    uint32_t flags;      /**< ::cgprop_write_flag bits (default 0). */
    double node_thres;   /**< DOT: drop functions whose total is below this percent of the program (default 0.5). */
    double edge_thres;   /**< DOT: drop calls whose total is below this percent of the program (default 0.1). */
} cgprop_write_options;

/**
 * Fill @p opts with the defaults: metric 0, no flags, node threshold 0.5 %,
 * edge threshold 0.1 % (gprof2dot's).
 * @param opts the options to fill; NULL is a no-op.
 * @since 0.1
 */
CGPROP_API void cgprop_write_options_init(cgprop_write_options *opts);

/**
 * Write @p g in @p format through the callback @p write.
 * Text, JSON and DOT need cgprop_graph_propagate() on the current graph
 * (which needs cgprop_graph_find_cycles() and cgprop_graph_collapse()); they
 * use cgprop_graph_split() when it is current too: people's views (text,
 * DOT) then show the exact C_n wherever the split says it is exact, and the
 * heuristic total elsewhere, marked as an estimate. The callgrind format
 * needs no analysis; with a current split that knows recursion classes it
 * writes them back as @c fn'2 / @c fn'3 names.
 * @param g the graph.
 * @param format a ::cgprop_format.
 * @param opts options, or NULL for the defaults.
 * @param write the output callback.
 * @param user passed to @p write.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument or option), ::CGPROP_ESTATE
 *         (a needed analysis has not run on the current graph), ::CGPROP_ENOMEM,
 *         ::CGPROP_EWRITE (the callback returned non-zero; output is truncated).
 * @since 0.1
 */
CGPROP_API int cgprop_write(cgprop_graph *g, uint32_t format, const cgprop_write_options *opts,
                            cgprop_write_fn write, void *user);

/**
 * Convenience: cgprop_write() into a file, created or truncated.
 * @param g the graph.
 * @param format a ::cgprop_format.
 * @param opts options, or NULL for the defaults.
 * @param path the file name (no NUL needed).
 * @param path_len its length in bytes.
 * @return as cgprop_write(); ::CGPROP_EWRITE also when the file cannot be
 *         opened, written or closed (the message says why).
 * @since 0.1
 */
CGPROP_API int cgprop_write_path(cgprop_graph *g, uint32_t format, const cgprop_write_options *opts,
                                 const char *path, size_t path_len);

/** @} */

/* ==== end writers ==== */

/* ==== event traces (owner: recorder helper) ==== */

/* ==== end event traces ==== */

CGPROP_END_DECLS

#endif /* CGPROP_IO_H */
