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

/* ==== readers ==== */

/** @defgroup readers Readers
 *  Build a graph from a callgrind file, folded stacks or a recorder event
 *  trace. Readers never print; malformed input gives ::CGPROP_EFORMAT and a
 *  ::cgprop_read_error naming the file, the line and the reason.
 *
 *  @par Function keys
 *  A callgrind reader keys functions by object, file and name:
 *  the key is <tt>object TAB file TAB name</tt> (object or file empty when the
 *  input names none). With ::CGPROP_KEY_NAME, and for folded stacks, the key
 *  is the bare name. Readers replace TAB bytes inside names by spaces, so the
 *  display name is always the part of the key after its last TAB:
 *  cgprop_node_display_name() applies that rule, for any graph.
 *  @{ */

/** Input formats (the @c format fields of ::cgprop_read_options and ::cgprop_read_info). */
enum cgprop_input_format {
    CGPROP_INPUT_AUTO = 0,      /**< Recognise the format by content. */
    CGPROP_INPUT_CALLGRIND = 1, /**< Callgrind profile (valgrind --tool=callgrind, KCachegrind, PHP Xdebug). */
    CGPROP_INPUT_FOLDED = 2,    /**< Folded stacks: "a;b;c 42" lines, one or more weights. */
    CGPROP_INPUT_EVENTS = 3,    /**< The recorder's event trace format. */
    CGPROP_INPUT_PERF = 4,      /**< Text of @c perf @c script on samples with call chains (docs/formats/perf.md). */
    CGPROP_INPUT_PPROF = 5,     /**< pprof's profile.proto (Go runtime/pprof and others), gzipped or not (docs/formats/pprof.md). */
    CGPROP_INPUT_V8 = 6,        /**< Chrome/V8 @c .cpuprofile JSON (node --cpu-prof, DevTools), a Chrome trace's CPU profiles, or a @c .heapprofile (node --heap-prof; docs/formats/v8.md). */
    CGPROP_INPUT_PSTATS = 7,    /**< Python cProfile / profile statistics (a marshal dump; docs/formats/pstats.md). */
    CGPROP_INPUT_GPROF = 8      /**< gprof's text report: flat profile and call graph (docs/formats/gprof.md). */
};

/** Function key modes (the @c key_mode field of ::cgprop_read_options). */
enum cgprop_key_mode {
    CGPROP_KEY_FULL = 0, /**< Callgrind: object TAB file TAB name (KCachegrind's identity). */
    CGPROP_KEY_NAME = 1  /**< Bare name: same-named functions of different files merge (gprof2dot). */
};

/**
 * Reader options. Fill with cgprop_read_options_init(), then set what you
 * need (see "Options and info structs" in cgprop.h).
 */
typedef struct cgprop_read_options {
    uint32_t size;              /**< sizeof(cgprop_read_options), set by cgprop_read_options_init(). */
    uint32_t format;            /**< A ::cgprop_input_format; default ::CGPROP_INPUT_AUTO. */
    uint32_t key_mode;          /**< A ::cgprop_key_mode; default ::CGPROP_KEY_FULL. */
    uint32_t no_fold_recursion; /**< Callgrind: non-zero keeps @c fn'N names as separate functions
                                     (no recursion classes), as gprof2dot does; default 0 folds them. */
    uint32_t separate_recs;     /**< Callgrind: the @c --separate-recs=N the file was made with;
                                     0 (default) detects it (docs/READERS.md). 1 withholds the split. */
    uint32_t contexts;          /**< Non-zero: readers of stacks (folded, perf, pprof, v8, event traces) keep
                                     calling contexts (cgprop_graph_keep_contexts()), as a flame graph needs;
                                     other readers ignore it. Default 0. @since 0.3 */
} cgprop_read_options;

/** How a reader obtained recursion classes (the @c recursion field of ::cgprop_read_info). */
enum cgprop_read_recursion {
    CGPROP_RECS_NONE = 0,     /**< No recursion in the input: every activation is level 0, the split is exact. */
    CGPROP_RECS_NAMES = 1,    /**< Callgrind @c fn'N names gave the classes; @c separate_recs holds N. */
    CGPROP_RECS_WITHHELD = 2, /**< Recursion without @c fn'N names (made with --separate-recs=1, or
                                   forced by the option): costs were added without classes, so the
                                   split is flagged inexact; only collapsed cycle totals are exact. */
    CGPROP_RECS_STACKS = 3,   /**< Stacks or an event trace: exact classes from the stacks themselves. */
    CGPROP_RECS_UNFOLDED = 4, /**< Folding disabled and the input recursive: no classes. */
    CGPROP_RECS_STATED = 5,   /**< The input states every function's inclusive cost (Python's cumulative
                                   time, counted once per stack): totals are exact without classes. */
    CGPROP_RECS_COUNTS = 6    /**< Calls carry counts but no measured cost (gprof): inclusive figures are
                                   gprof-style shares, estimates with no proven interval. */
};

/** Bits of the @c flags field of ::cgprop_read_info. */
enum cgprop_read_flag {
    CGPROP_RI_TOTALS = 1u << 0,          /**< The input stated program totals (callgrind @c totals: or @c summary:). */
    CGPROP_RI_CALLER_CONTEXTS = 1u << 1, /**< Callgrind names carried --separate-callers contexts (summed). */
    CGPROP_RI_PLAIN_SELF_CALLS = 1u << 2, /**< Plain @c f->f calls beside @c fn'N names: added without class. */
    CGPROP_RI_PLAIN_CYCLES = 1u << 3,    /**< Cycles among plain names beside @c fn'N names: added without class. */
    CGPROP_RI_DEFAULT_NAMED = 1u << 4    /**< The input named its default metric (pprof's @c default_sample_type):
                                              @c default_metric is that one, not a fallback. Since 0.3. */
};

/**
 * What a reader found, besides the graph. Fill with cgprop_read_info_init()
 * before the call; to receive the stated program totals, point @c totals at
 * an array of @c totals_len entries.
 */
typedef struct cgprop_read_info {
    uint32_t size;          /**< sizeof(cgprop_read_info), set by cgprop_read_info_init(). */
    uint32_t format;        /**< The ::cgprop_input_format actually read. */
    uint32_t recursion;     /**< A ::cgprop_read_recursion. */
    uint32_t separate_recs; /**< The N used for @c fn'N names (::CGPROP_RECS_NAMES), else 0. */
    uint32_t flags;         /**< ::cgprop_read_flag bits. */
    uint32_t nmetrics;      /**< K, the metric count of the graph read. */
    uint64_t parts;         /**< Callgrind parts (dumps, threads) summed into the graph; 0 for other formats. */
    uint64_t lines;         /**< Lines read. */
    uint64_t *totals;       /**< In: NULL, or an array the caller owns. Out: with ::CGPROP_RI_TOTALS, its first
                                 min(K, @c totals_len) entries hold the stated program total per metric (Σ over
                                 parts of @c totals:, or @c summary: where a part has none); else zeros. */
    uint32_t totals_len;    /**< In: the number of entries @c totals has room for. */
    uint32_t reserved;      /**< Always 0. */
    uint32_t default_metric; /**< The metric the input names as the one to show first: for pprof the sample type
                                  its @c default_sample_type names, else its last (as @c go tool @c pprof shows);
                                  0 for the other formats. Appended in 0.3: a caller passing the shorter struct
                                  does not receive it. */
    uint32_t reserved2;      /**< Always 0. */
} cgprop_read_info;

/**
 * Prepare @p info for a reader call: its size, no totals array.
 * @param info the struct to fill; NULL is a no-op.
 * @since 0.3
 */
CGPROP_API void cgprop_read_info_init(cgprop_read_info *info);

/**
 * Where and why reading failed. Fill with cgprop_read_error_init() before
 * the call. Strings are NUL-terminated and truncated to fit.
 */
typedef struct cgprop_read_error {
    uint32_t size;     /**< sizeof(cgprop_read_error), set by cgprop_read_error_init(). */
    int32_t code;      /**< The status returned, a ::cgprop_status. */
    uint64_t line;     /**< 1-based line of the error (byte offset + 1 for binary inputs); 0 when it
                            concerns no line (open, allocation). */
    char file[256];    /**< The file name given (or the buffer's name). */
    char reason[256];  /**< What was wrong. */
} cgprop_read_error;

/**
 * Prepare @p err for a reader call (its size; empty strings).
 * @param err the struct to fill; NULL is a no-op.
 * @since 0.3
 */
CGPROP_API void cgprop_read_error_init(cgprop_read_error *err);

/**
 * Fill @p opts with the defaults: its size, auto-detect, full keys, fold
 * recursion names, detect --separate-recs.
 * @param opts the options to fill; NULL is a no-op.
 * @since 0.1
 */
CGPROP_API void cgprop_read_options_init(cgprop_read_options *opts);

/**
 * Recognise an input format by content, looking inside gzip input: perf
 * script (a sample header followed by a frame line), a .cpuprofile (a JSON
 * object with a @c nodes key), a Chrome trace (@c traceEvents, or an
 * array of events) or a V8 heap profile (a @c head tree with @c selfSize),
 * pprof (a Profile message), Python statistics
 * (a marshal dump of a dict), a gprof report (its flat profile or call graph
 * headers), callgrind (a @c # @c callgrind @c format, @c version:,
 * @c creator:, @c events: or @c positions: header line before any cost
 * line), the recorder's event trace (its magic first line), folded stacks
 * (lines ending in one or more numbers). Raw recordings that no reader
 * reads (perf.data, gmon.out, gperftools' own CPU profile, an ELF file, a Go
 * profile printed as text) match none: reading them fails with a message
 * that names the command printing what cgprop reads.
 * @param data the first bytes of the input (a few KiB suffice).
 * @param len their number.
 * @return a ::cgprop_input_format, ::CGPROP_INPUT_AUTO when none matches.
 * @since 0.1
 */
CGPROP_API uint32_t cgprop_read_detect(const char *data, size_t len);

/**
 * Read a whole input held in memory into a new graph.
 * @param data the bytes (no NUL needed; any bytes are safe).
 * @param len their number.
 * @param name a name for messages (e.g. the file name); may be NULL.
 * @param name_len its length.
 * @param opts options, or NULL for the defaults.
 * @param alloc allocator for the graph and the reader's scratch memory; NULL for malloc.
 * @param[out] out the new graph (free it with cgprop_graph_free()), or NULL on error.
 * @param[out] info if not NULL, what the reader found (filled on success).
 * @param[out] err if not NULL, filled on error (and cleared on success).
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument or option), ::CGPROP_EFORMAT (malformed
 *         input, or an undetectable format), ::CGPROP_EOVERFLOW (a number or a cost sum
 *         overflows), ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_read_buffer(const char *data, size_t len, const char *name, size_t name_len,
                                  const cgprop_read_options *opts, const cgprop_allocator *alloc,
                                  cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err);

/**
 * Read a file into a new graph, as cgprop_read_buffer() does. The path "-"
 * reads standard input.
 * @param path the file name (no NUL needed).
 * @param path_len its length in bytes.
 * @param opts options, or NULL for the defaults.
 * @param alloc allocator; NULL for malloc.
 * @param[out] out the new graph, or NULL on error.
 * @param[out] info if not NULL, what the reader found.
 * @param[out] err if not NULL, filled on error.
 * @return as cgprop_read_buffer(), and ::CGPROP_ENOTFOUND when the file cannot be opened or read
 *         (the reason says why).
 * @since 0.1
 */
CGPROP_API int cgprop_read_file(const char *path, size_t path_len, const cgprop_read_options *opts,
                                const cgprop_allocator *alloc, cgprop_graph **out,
                                cgprop_read_info *info, cgprop_read_error *err);

/**
 * The name to show for function @p node: the part of its key after the last
 * TAB (the whole key when it has none). Works on any graph.
 * @param g the graph.
 * @param node a function id.
 * @param[out] len_out if not NULL, receives the length.
 * @return the name, borrowed and NUL-terminated, valid until the graph is freed;
 *         NULL for a bad argument.
 * @since 0.1
 */
CGPROP_API const char *cgprop_node_display_name(const cgprop_graph *g, uint32_t node, size_t *len_out);

/** @} */

/* ==== end readers ==== */

/* ==== writers ==== */

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

/** Output formats for cgprop_write(). */
enum cgprop_format {
    CGPROP_FORMAT_TEXT = 1,     /**< Flat profile plus a gprof-like call graph (one metric). Needs propagate. */
    CGPROP_FORMAT_JSON = 2,     /**< Every figure of every metric, the shape documented in docs/TOOL.md. Needs propagate. */
    CGPROP_FORMAT_DOT = 3,      /**< Graphviz picture as gprof2dot draws it (one metric). Needs propagate. */
    CGPROP_FORMAT_CALLGRIND = 4, /**< Callgrind profile of the graph's input costs (all metrics). Needs no analysis. */
    CGPROP_FORMAT_FLAMEGRAPH = 5 /**< SVG flame graph of the calling contexts (one metric), as flamegraph.pl
                                      draws it, with zoom and search (docs/TOOL.md). Needs no analysis but a
                                      graph that keeps contexts (cgprop_graph_keep_contexts()); ::CGPROP_ESTATE
                                      otherwise. @since 0.3 */
};

/** Writer flags (the @c flags field of ::cgprop_write_options). */
enum cgprop_write_flag {
    /** Text and DOT: show gprof2dot's per-root heuristic everywhere,
     *  unclamped, even where the exact inclusive cost is known (gprof2dot's
     *  own picture). Every figure is then marked as an estimate. */
    CGPROP_W_HEURISTIC_ONLY = 1u << 0,
    /** Callgrind: write plain names even when the split knows recursion
     *  classes (no @c fn'N names; the classes are lost on reading back). */
    CGPROP_W_NO_CLASSES = 1u << 1,
    /** Callgrind: no name compression (every @c fn= line spells the name). */
    CGPROP_W_NO_COMPRESSION = 1u << 2,
    /** DOT: no pruning (both thresholds taken as 0). */
    CGPROP_W_NO_PRUNE = 1u << 3,
    /** Text: beside each total the proven interval of the inclusive cost
     *  (for figures that are not exact) and why it is not a single value. */
    CGPROP_W_BOUNDS = 1u << 4,
    /** Text and DOT: drop C++ argument lists, a trailing @c const and
     *  template arguments from names (gprof2dot's @c --strip). @since 0.3 */
    CGPROP_W_STRIP = 1u << 5,
    /** DOT: break a long name over several label lines (gprof2dot's
     *  @c --wrap). @since 0.3 */
    CGPROP_W_WRAP = 1u << 6,
    /** Text: apply @c node_thres and @c edge_thres as DOT does (text shows
     *  every function and call without it). @since 0.3 */
    CGPROP_W_PRUNE_TEXT = 1u << 7,
    /** Flame graph: draw it top-down, roots at the top (an icicle graph).
     *  @since 0.3 */
    CGPROP_W_ICICLE = 1u << 8
};

/** What a DOT box and arrow show (the @c label field of
 *  ::cgprop_write_options): any OR of these. The name is always shown.
 *  @since 0.3 */
enum cgprop_label {
    /** Total as a percent of the program (gprof2dot's @c total-time-percentage). */
    CGPROP_LABEL_TOTAL_PCT = 1u << 0,
    /** Self cost as a percent, in parentheses (@c self-time-percentage). */
    CGPROP_LABEL_SELF_PCT = 1u << 1,
    /** Call counts: calls into a function, calls of an arrow. */
    CGPROP_LABEL_CALLS = 1u << 2,
    /** Total in the metric's unit (@c total-time). */
    CGPROP_LABEL_TOTAL = 1u << 3,
    /** Self cost in the metric's unit, in parentheses (@c self-time). */
    CGPROP_LABEL_SELF = 1u << 4,
    /** The default: total %, self %, calls (gprof2dot's picture). */
    CGPROP_LABEL_DEFAULT = CGPROP_LABEL_TOTAL_PCT | CGPROP_LABEL_SELF_PCT | CGPROP_LABEL_CALLS
};

/** DOT colour maps (the @c colormap field of ::cgprop_write_options),
 *  gprof2dot's @c --colormap themes. @since 0.3 */
enum cgprop_colormap {
    /** Temperature: dark blue at 0 % to saturated red at 100 % (default). */
    CGPROP_COLORMAP_COLOR = 0,
    /** Pink to saturated red. */
    CGPROP_COLORMAP_PINK = 1,
    /** Light gray to black. */
    CGPROP_COLORMAP_GRAY = 2,
    /** Black boxes, font size and pen width grow with the total. */
    CGPROP_COLORMAP_BW = 3,
    /** For print: black outlines and text on white, large fonts. */
    CGPROP_COLORMAP_PRINT = 4
};

/** No depth limit for ::cgprop_write_options @c depth. @since 0.3 */
#define CGPROP_DEPTH_ALL 0xFFFFFFFFu

/** How DOT draws cycles (the @c cycles field of ::cgprop_write_options). */
enum cgprop_dot_cycles {
    /** The library's choice, today ::CGPROP_DOT_CYCLES_LABEL: the drawing
     *  that renders with every graphviz version (clusters can make graphviz's
     *  layout fail, docs/TOOL.md). */
    CGPROP_DOT_CYCLES_AUTO = 0,
    /** Each cycle's members boxed in a dashed cluster labelled
     *  <tt>&lt;cycle N&gt;</tt>, laid out with graphviz's @c newrank. */
    CGPROP_DOT_CYCLES_CLUSTER = 1,
    /** No clusters: each member's label ends with a <tt>&lt;cycle N&gt;</tt> line. */
    CGPROP_DOT_CYCLES_LABEL = 2,
    /** Cycles not shown (no clusters, no label line). */
    CGPROP_DOT_CYCLES_NONE = 3
};

/**
 * Writer options: fill them with cgprop_write_options_init() and change what
 * you need.
 */
typedef struct cgprop_write_options {
    uint32_t size;       /**< sizeof(cgprop_write_options), set by cgprop_write_options_init(). */
    uint32_t metric;     /**< Metric shown by text and DOT (default 0). */
    uint32_t flags;      /**< ::cgprop_write_flag bits (default 0); cgprop_write() refuses any other bit. */
    double node_thres;   /**< DOT: drop functions whose total is below this percent of the program (default 0.5). */
    double edge_thres;   /**< DOT: drop calls whose total is below this percent of the program (default 0.1). */
    uint32_t cycles;     /**< DOT: how cycles are drawn, a ::cgprop_dot_cycles (default ::CGPROP_DOT_CYCLES_AUTO);
                              cgprop_write() refuses any other value. @since 0.3 */
    const uint32_t *roots; /**< Text and DOT: show only what these functions reach (gprof2dot's @c --root);
                                NULL: no root focus. @since 0.3 */
    size_t nroots;         /**< Number of ids in @c roots. @since 0.3 */
    const uint32_t *leaves; /**< Text and DOT: show only what reaches these functions (@c --leaf). @since 0.3 */
    size_t nleaves;        /**< Number of ids in @c leaves. @since 0.3 */
    const uint32_t *focus; /**< Text and DOT: show only functions that reach or are reached from one of
                                these (pprof's @c --focus, as a node set). @since 0.3 */
    size_t nfocus;         /**< Number of ids in @c focus. @since 0.3 */
    const uint32_t *hide;  /**< Text and DOT: never show these functions; their cost stays in their callers'
                                totals and is shown there as the "hidden" part. @since 0.3 */
    size_t nhide;          /**< Number of ids in @c hide. @since 0.3 */
    uint32_t depth;        /**< Calls followed from @c roots and up from @c leaves (0: the functions
                                themselves); default ::CGPROP_DEPTH_ALL. @since 0.3 */
    uint32_t top;          /**< Text and DOT: show at most this many functions, the largest totals (0: all,
                                the default). @since 0.3 */
    uint32_t label;        /**< DOT: what boxes and arrows show, ::cgprop_label bits (default
                                ::CGPROP_LABEL_DEFAULT); cgprop_write() refuses other bits. @since 0.3 */
    uint32_t colormap;     /**< DOT: a ::cgprop_colormap (default ::CGPROP_COLORMAP_COLOR). @since 0.3 */
    double skew;           /**< DOT: colour curve skew, gprof2dot's @c --skew (default 1: linear; below 1
                                more variety among small figures); must be above 0. @since 0.3 */
} cgprop_write_options;

/**
 * Fill @p opts with the defaults: its size, metric 0, no flags, node threshold 0.5 %,
 * edge threshold 0.1 % (gprof2dot's), cycles ::CGPROP_DOT_CYCLES_AUTO, no view
 * filters, depth ::CGPROP_DEPTH_ALL, label ::CGPROP_LABEL_DEFAULT, colour map
 * ::CGPROP_COLORMAP_COLOR, skew 1.
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
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument or option; callgrind: a key
 *         holding a line break, or a call without a measured cost, which the
 *         format would state as costing 0), ::CGPROP_ESTATE
 *         (a needed analysis has not run on the current graph; a flame graph of a graph
 *         that keeps no calling contexts), ::CGPROP_EOVERFLOW (a flame graph's total
 *         exceeds 2^64 - 1), ::CGPROP_ENOMEM,
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

/**
 * Write how @p g's figures changed from @p base's: per function (matched by
 * key; a function on one side only is added or removed) the change of the
 * inclusive total and of the self cost, in the metric's units and in
 * percentage points of each program's total, and per call the change of its
 * total. ::CGPROP_FORMAT_TEXT lists the functions sorted by the size of the
 * change; ::CGPROP_FORMAT_DOT draws @p g's graph (and the functions only
 * @p base has) coloured by the change, red where @p g spends more, blue
 * where it spends less; ::CGPROP_FORMAT_JSON carries every figure. A change
 * is exact only when both sides' totals are: where either is an estimate
 * the change is marked as one (with the interval the two sides' intervals
 * imply, where both have one). Both graphs need cgprop_graph_propagate() on
 * their current state; the metric is @p opts' @c metric of @p g, found by
 * name in @p base. Messages are set on @p g.
 * @param base the profile compared against (the "before").
 * @param g the profile compared (the "after"); may be @p base itself.
 * @param format ::CGPROP_FORMAT_TEXT, ::CGPROP_FORMAT_JSON or ::CGPROP_FORMAT_DOT.
 * @param opts options, or NULL for the defaults: @c metric, the DOT
 *        thresholds (a function or call is drawn when it is above them on
 *        either side), flags ::CGPROP_W_HEURISTIC_ONLY, ::CGPROP_W_NO_PRUNE
 *        and ::CGPROP_W_BOUNDS (text: the interval of every change that is
 *        not exact); any other flag is refused.
 * @param write the output callback.
 * @param user passed to @p write.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument or option, a format other
 *         than the three, a metric @p base lacks), ::CGPROP_ESTATE (a graph is
 *         not analysed), ::CGPROP_ENOMEM, ::CGPROP_EWRITE.
 * @since 0.3
 */
CGPROP_API int cgprop_write_compare(cgprop_graph *base, cgprop_graph *g, uint32_t format,
                                    const cgprop_write_options *opts, cgprop_write_fn write, void *user);

/** @} */

/* ==== end writers ==== */

/* ==== event traces ==== */

/** @defgroup events Event traces
 *  A text format for the event streams of instrumenting profilers, replayed
 *  through a ::cgprop_recorder (docs/RECORDER.md):
 *  @code
 *  # metrics: ns instructions
 *  enter main 100 5000
 *  enter parse 120 5100
 *  exit parse 180 9100
 *  exit main 200 9900
 *  @endcode
 *  One event per line: @c enter or @c exit, the function name, then K
 *  unsigned decimal counter readings. The name is everything between the
 *  keyword and the readings (it may hold spaces; TABs become spaces). Lines
 *  starting with @c # are comments; <tt># metrics: NAME …</tt> before the
 *  first event names the K metrics. Without it, K is the number of trailing
 *  numbers on the first event and the metrics are named @c m1 … @c mK.
 *  Activations still open at the end are closed at the last readings.
 *  cgprop_read_buffer() reads this format without compensation; the calls
 *  below take recorder options.
 *  @{ */

/** What replaying an event trace found. Fill with cgprop_events_info_init() before the call. */
typedef struct cgprop_events_info {
    uint32_t size;     /**< sizeof(cgprop_events_info), set by cgprop_events_info_init(). */
    uint32_t reserved; /**< Always 0. */
    uint64_t lines;    /**< Lines read. */
    uint64_t events;   /**< Enter and exit events replayed. */
    uint64_t unclosed; /**< Activations open at the end of the trace, closed at the last readings. */
    uint64_t clamps;   /**< On-the-fly clamps (::CGPROP_REC_CLAMP), see cgprop_recorder_clamp_count(). */
    uint64_t floors;   /**< Negative compensated figures written as 0, see cgprop_recorder_floor_count(). */
} cgprop_events_info;

/**
 * Prepare @p info for an event-trace call (its size).
 * @param info the struct to fill; NULL is a no-op.
 * @since 0.3
 */
CGPROP_API void cgprop_events_info_init(cgprop_events_info *info);

/**
 * Replay an event trace held in memory into a new graph, through a recorder
 * with options @p ropt. Gzip-compressed bytes are inflated first (one layer,
 * as cgprop_read_buffer() does; gzip inside gzip is ::CGPROP_EFORMAT).
 * @param data the bytes (no NUL needed; any bytes are safe).
 * @param len their number.
 * @param name a name for messages (e.g. the file name); may be NULL.
 * @param name_len its length.
 * @param ropt recorder options (compensation route, δ per metric, clamping); NULL for none.
 * @param alloc allocator for the graph; NULL for malloc.
 * @param[out] out the new graph (free it with cgprop_graph_free()), or NULL on error.
 * @param[out] info if not NULL, what the replay found (filled on success).
 * @param[out] err if not NULL, filled on error (line and reason) and cleared on success.
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument or option), ::CGPROP_EFORMAT (malformed
 *         line, exit not matching the innermost open function, counters running backwards),
 *         ::CGPROP_EOVERFLOW, ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_events_read_buffer(const char *data, size_t len, const char *name, size_t name_len,
                                         const cgprop_recorder_options *ropt, const cgprop_allocator *alloc,
                                         cgprop_graph **out, cgprop_events_info *info, cgprop_read_error *err);

/**
 * Replay an event trace file, as cgprop_events_read_buffer() does. The path
 * "-" reads standard input. A pipe (a traced program writing into it) and a
 * gzipped file are read as they come, in pieces: memory is a piece, the
 * recorder's open activations and the graph, not the trace.
 * @param path the file name (no NUL needed).
 * @param path_len its length in bytes.
 * @param ropt recorder options; NULL for none.
 * @param alloc allocator; NULL for malloc.
 * @param[out] out the new graph, or NULL on error.
 * @param[out] info if not NULL, what the replay found.
 * @param[out] err if not NULL, filled on error.
 * @return as cgprop_events_read_buffer(), and ::CGPROP_ENOTFOUND when the file cannot be
 *         opened or read.
 * @since 0.1
 */
CGPROP_API int cgprop_events_read_file(const char *path, size_t path_len, const cgprop_recorder_options *ropt,
                                       const cgprop_allocator *alloc, cgprop_graph **out,
                                       cgprop_events_info *info, cgprop_read_error *err);

/** @} */

/* ==== end event traces ==== */

CGPROP_END_DECLS

#endif /* CGPROP_IO_H */
