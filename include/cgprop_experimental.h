/**
 * @file cgprop_experimental.h
 * @brief cgprop experimental API, outside the stability promise.
 *
 * cgprop experimental API: calls that exist and are tested but are not yet
 * covered by the stability promise (docs/API.md). They may change or go
 * away in any release, with no SONAME change; programs that use them must
 * be rebuilt against the matching version. Today: the recorder's raw
 * figures and event counts, overhead calibration, and clamp and floor
 * counts.
 */
#ifndef CGPROP_EXPERIMENTAL_H
/** Include guard. */
#define CGPROP_EXPERIMENTAL_H

#include "cgprop.h"

CGPROP_BEGIN_DECLS

/** @defgroup experimental Experimental: recorder figures, calibration, clamp and floor counts
 *  Not covered by the stability promise; see docs/API.md.
 *  @{ */

/** Figures a recorder keeps (the @c which argument of cgprop_recorder_get()). */
enum cgprop_recorder_figure_kind {
    CGPROP_RF_S_N = 0,   /**< Self cost of level-0 activations of the function (S_n). */
    CGPROP_RF_S_R = 1,   /**< Self cost of level ≥ 1 activations (S_r). */
    CGPROP_RF_C_N = 2,   /**< Inclusive cost of level-0 activations (C_n). */
    CGPROP_RF_C_R = 3,   /**< Inclusive cost of level-1 activations (C_r). */
    CGPROP_RF_SPONT = 4, /**< Inclusive cost of activations entered on an empty stack. */
    CGPROP_RF_C_NN = 5,  /**< Calls from level-0 caller activations to level-0 callee activations. */
    CGPROP_RF_C_NR = 6,  /**< Calls from level-0 callers to level-1 callees. */
    CGPROP_RF_C_ND = 7,  /**< Calls from level-0 callers to level ≥ 2 callees. */
    CGPROP_RF_C_RN = 8,  /**< Calls from level ≥ 1 callers to level-0 callees. */
    CGPROP_RF_C_RR = 9,  /**< Calls from level ≥ 1 callers to level-1 callees. */
    CGPROP_RF_C_RD = 10  /**< Calls from level ≥ 1 callers to level ≥ 2 callees. */
};

/**
 * One figure of a recorder, for one metric, with the event counts that
 * post-mortem compensation uses (docs/RECORDER.md, *Compensation*).
 */
typedef struct cgprop_recorder_figure {
    uint64_t count;    /**< N: activations (self, inclusive, spontaneous figures) or calls (call figures). */
    uint64_t nested;   /**< M: activations nested anywhere below those activations (0 for self figures). */
    uint64_t children; /**< L: direct children of those activations (0 except for self figures). */
    uint64_t raw;      /**< The measured sum, uncompensated. */
    int64_t comp;      /**< The compensated sum by the recorder's route (equal to @c raw with ::CGPROP_COMP_OFF). May be negative when δ overshoots. */
} cgprop_recorder_figure;

/**
 * Read one figure the recorder holds (since creation or the last flush).
 * Figures count the activations closed so far; one still open counts in
 * none, though its closed children count in theirs. Per-function figures
 * are summed from the per-call ones here, in time linear in the function's
 * calls and the stack depth.
 * @param r the recorder.
 * @param which a ::cgprop_recorder_figure_kind.
 * @param node the function (the caller, for call figures).
 * @param callee the called function for call figures; ignored otherwise.
 * @param metric metric index.
 * @param[out] out the figure.
 * @param size sizeof(::cgprop_recorder_figure).
 * @return ::CGPROP_OK (a figure never recorded reads as zeros), ::CGPROP_EINVAL,
 *         ::CGPROP_EOVERFLOW (the compensated figure, by either route, leaves the int64_t
 *         range; with compensation off, the raw one does).
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_get(cgprop_recorder *r, uint32_t which, uint32_t node, uint32_t callee,
                                   uint32_t metric, cgprop_recorder_figure *out, size_t size);

/**
 * Number of on-the-fly clamps (::CGPROP_REC_CLAMP) since the recorder was created.
 * @param r the recorder.
 * @return the count, or 0 if @p r is NULL.
 * @since 0.1
 */
CGPROP_API uint64_t cgprop_recorder_clamp_count(const cgprop_recorder *r);

/**
 * Number of negative compensated figures that flushes wrote as 0, since the
 * recorder was created.
 * @param r the recorder.
 * @return the count, or 0 if @p r is NULL.
 * @since 0.1
 */
CGPROP_API uint64_t cgprop_recorder_floor_count(const cgprop_recorder *r);

/**
 * Estimate δ_i and δ_e per metric by timing null activations through a
 * scratch recorder, as TAU's null-timer calibration does: an outer activation
 * wraps @p iterations enter/exit pairs of an empty one; δ_i is the empty
 * activation's inclusive cost per pair, δ_i + δ_e the outer one's (less one
 * δ_i) per pair. Three runs are made and the smallest estimate kept.
 * Round the results into the δ arrays of ::cgprop_recorder_options.
 * @param nmetrics K, 1 ≤ K ≤ ::CGPROP_MAX_METRICS.
 * @param now the caller's clock: fills K counter readings and returns 0, or
 *        returns non-zero to abort the calibration. Called on this thread.
 * @param user passed to @p now.
 * @param iterations null pairs per run, ≥ 1 (TAU uses 1000).
 * @param alloc allocator for the scratch graph and recorder; NULL for the C library's.
 * @param[out] delta_i_out K estimates of δ_i (never below 0; 0 on error).
 * @param[out] delta_e_out K estimates of δ_e (never below 0; 0 on error).
 * @return ::CGPROP_OK, ::CGPROP_EINVAL (bad argument, clock failed or ran backwards), ::CGPROP_ENOMEM.
 * @since 0.1
 */
CGPROP_API int cgprop_recorder_calibrate(size_t nmetrics, int (*now)(void *user, uint64_t *out_counters),
                                         void *user, uint32_t iterations, const cgprop_allocator *alloc,
                                         double *delta_i_out, double *delta_e_out);

/**
 * Number of on-the-fly clamps (::CGPROP_REC_CLAMP) in the figures this graph
 * holds: cgprop_recorder_flush() adds the clamps of the figures it writes
 * (cgprop_recorder_clamp_count() since the previous flush), and
 * cgprop_graph_merge() adds the source's count. 0 for a graph no clamping
 * recorder wrote into — any graph read from callgrind or folded stacks, or
 * from an event trace without clamping — because only on-the-fly
 * compensation with ::CGPROP_REC_CLAMP clamps.
 * @param g the graph.
 * @return the count, or 0 if @p g is NULL.
 * @since 0.1
 */
CGPROP_API uint64_t cgprop_graph_clamp_count(const cgprop_graph *g);

/**
 * Number of compensated figures this graph holds that came out below 0 and
 * were written as 0: cgprop_recorder_flush() adds the floors of the figures
 * it writes (what cgprop_recorder_floor_count() counts), the pstats reader
 * its times below 0 (Python's profile module calibrated with too large a
 * bias), cgprop_graph_merge() the source's count. Floors happen with either
 * compensation route, without ::CGPROP_REC_CLAMP: a figure below 0 means the
 * overhead (δ_i, δ_e, the bias) was overestimated. 0 for any other graph.
 * @param g the graph.
 * @return the count, or 0 if @p g is NULL.
 * @since 0.1
 */
CGPROP_API uint64_t cgprop_graph_floor_count(const cgprop_graph *g);

/** @} */

CGPROP_END_DECLS

#endif /* CGPROP_EXPERIMENTAL_H */
