/* Private: helpers shared by the recorder (recorder.c) and graph merging
 * (merge.c). Both write into a graph in phases (create every node and call
 * first, check every sum, then add) so a failure can be undone. */
#ifndef CGPROP_RECORDER_H
#define CGPROP_RECORDER_H

#include "graph.h"

/* The function of the innermost open activation, UINT32_MAX when none (for
 * the event-trace reader's messages). */
uint32_t cgprop__recorder_top(const cgprop_recorder *r);

/* Checked arithmetic: true on overflow (the result is then unspecified). */
static inline bool cgprop__add_i64(int64_t a, int64_t b, int64_t *r)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_add_overflow(a, b, r);
#else
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return true;
    *r = a + b;
    return false;
#endif
}

static inline bool cgprop__sub_i64(int64_t a, int64_t b, int64_t *r)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_sub_overflow(a, b, r);
#else
    if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return true;
    *r = a - b;
    return false;
#endif
}

static inline bool cgprop__add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
    *r = a + b;
    return *r < a;
}

#endif
