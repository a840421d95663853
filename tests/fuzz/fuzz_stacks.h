/* Shared by the fuzz targets of stack readers (fuzz_folded.c, fuzz_perf.c,
 * fuzz_v8.c): every recursion class comes from a stack, so the split's
 * identities must close; and one body for the three targets. */
#ifndef CGPROP_FUZZ_STACKS_H
#define CGPROP_FUZZ_STACKS_H

#include "fuzz_readers.h"

#include <stdbool.h>
#include <stdlib.h>

/* Stacks give exact classes, so the split's identities must close for every
 * function and metric:
 *   C_n(g) = Σ_f C_xn(f,g) + spontaneous cost of g
 *   C_r(g) = Σ_f C_xr(f,g)
 *   C_n(f) = S_n(f) + Σ_g (C_nn + C_nr + C_nd)(f,g)
 *   S(f)   = S_n(f) + S_r(f)
 * The sums are taken in 128 bits: a function whose true figure, or the
 * Σ_g C_xr(f,g) its drawing size subtracts, passes UINT64_MAX may be
 * flagged inexact (and only then). Stacks of a sampling profiler that may
 * have been cut short (cgprop_graph_unrooted) leave every level unknown:
 * then every call's figures are flagged, and the identities still hold
 * for the figures given. */
__extension__ typedef unsigned __int128 u128;

static void fz_stack_identities(cgprop_graph *g)
{
    if (cgprop_graph_split(g) != CGPROP_OK) return;
    size_t nn = cgprop_graph_node_count(g), ne = cgprop_graph_edge_count(g);
    if (nn > 4096) return;
    u128 *in_n = calloc(nn * 4 + 1, sizeof *in_n);
    FZ_CHECK(in_n != NULL);
    u128 *in_r = in_n + nn, *out_n = in_r + nn, *out_xr = out_n + nn;
    const u128 max = UINT64_MAX;
    for (uint32_t k = 0; k < cgprop_graph_metric_count(g); k++) {
        uint64_t unrooted = 0;
        FZ_CHECK(cgprop_graph_unrooted(g, k, &unrooted) == CGPROP_OK);
        const uint32_t all6 =
            CGPROP_X_C_NN | CGPROP_X_C_NR | CGPROP_X_C_ND | CGPROP_X_C_RN | CGPROP_X_C_RR | CGPROP_X_C_RD;
        memset(in_n, 0, nn * 4 * sizeof *in_n);
        for (uint32_t e = 0; e < ne; e++) {
            cgprop_edge_split_row r;
            FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_EDGE_SPLIT, k, e, &r, sizeof r) == CGPROP_OK);
            FZ_CHECK(r.inexact == (unrooted ? all6 : 0));
            in_n[r.callee] += (u128)r.C_nn + r.C_rn;
            in_r[r.callee] += (u128)r.C_nr + r.C_rr;
            out_n[r.caller] += (u128)r.C_nn + r.C_nr + r.C_nd;
            out_xr[r.caller] += (u128)r.C_nr + r.C_rr;
        }
        for (uint32_t v = 0; v < nn; v++) {
            cgprop_split_row s;
            cgprop_node_row n;
            FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, k, v, &s, sizeof s) == CGPROP_OK);
            FZ_CHECK(cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, v, &n, sizeof n) == CGPROP_OK);
            FZ_CHECK(n.self == s.S_n + s.S_r);
            u128 cn = in_n[v] + n.spont_cost, cn2 = out_n[v] + s.S_n;
            bool wide = cn > max || cn2 > max || in_r[v] > max || out_xr[v] > max;
            if (s.inexact && wide) continue;
            if (s.inexact && !unrooted) {
#ifdef FZ_DEBUG
                fprintf(stderr, "v=%u inexact=%x Cn=%llu Cr=%llu Sn=%llu Sr=%llu D=%g in_n=%g in_r=%g out=%g\n", v, s.inexact,
                        (unsigned long long)s.C_n, (unsigned long long)s.C_r, (unsigned long long)s.S_n,
                        (unsigned long long)s.S_r, s.D, (double)cn, (double)in_r[v], (double)cn2);
#endif
                FZ_CHECK(wide);
            }
            FZ_CHECK(cn == s.C_n);
            FZ_CHECK(cn2 == s.C_n);
            FZ_CHECK(in_r[v] == s.C_r);
        }
    }
    free(in_n);
}

/* One input for the reader of `format`: every recursion class comes from
 * a stack, and half the runs read calling contexts, for the flame graph. */
static int fz_stack_target(const uint8_t *data, size_t size, uint32_t format, const char *name)
{
    return fz_reader_target(data, size, format, name, CGPROP_RECS_STACKS, 1, fz_stack_identities, NULL);
}

#endif
