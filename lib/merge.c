/* Merging graphs (per-thread recorder graphs into one), all-or-nothing. */
#include "graph.h"
#include "contexts.h"

#include <string.h>

/* Nothing was added yet (phase 3 cannot fail): rolling back what phase 1
 * created is the whole undo. */
static int undo(cgprop_graph *g, const cgprop__txn *t, uint32_t *map, int rc, const char *why)
{
    cgprop__txn_rollback(g, t);
    cgprop__free(g, map);
    return cgprop__err(g, rc, "merge: %s; nothing merged", why);
}

/* Call e of src into call d of dst: each class bucket, then what no class
 * holds, without class. With add false, only get d ready for those
 * additions (cgprop__ecls_prepare), so that adding cannot need memory. */
static int add_edge_parts(cgprop_graph *dst, const cgprop_graph *src, uint32_t e, uint32_t d, bool add)
{
    const uint32_t K = src->K;
    uint32_t a = dst->ecaller[d], b = dst->ecallee[d];
    uint64_t part[CGPROP_MAX_METRICS];
    uint64_t count = src->ecount[e];
    bool has_cost = (src->eflags[e] & CGPROP__EF_HAS_COST) != 0;
    int rc = CGPROP_OK;
    memcpy(part, src->ecost + (size_t)e * K, K * sizeof part[0]);
    const uint64_t *deep = cgprop__dcall_row(src, e);
    for (uint32_t cls = 0; cls < CGPROP__NCLS_IN && !rc; cls++) {
        uint64_t cn, cv[CGPROP_MAX_METRICS];
        const uint64_t *cc;
        /* Buckets 4 .. 7 (caller level >= 1) less what level >= 2 callers
         * added, then that part (classes 8 .. 11). */
        if (cls >= CGPROP__NCLS) {
            if (!deep) break;
            const uint64_t *dp = deep + (size_t)(cls - CGPROP__NCLS) * (K + 1);
            cn = dp[0];
            cc = dp + 1;
        } else {
            cc = cgprop__ecls_get(src, e, cls, &cn);
            if (cls >= 4 && deep) {
                const uint64_t *dp = deep + (size_t)(cls - 4) * (K + 1);
                cn -= dp[0];
                for (uint32_t k = 0; k < K; k++) cv[k] = cc[k] - dp[1 + k];
                cc = cv;
            }
        }
        bool any = cn != 0;
        for (uint32_t k = 0; k < K; k++) any = any || cc[k];
        /* A lumped bucket keeps its flag even when it holds zeros. */
        if (!any && !((cls & 3) == CGPROP_LEVEL_REC && (src->eflags[e] & CGPROP__EF_LUMPED))) continue;
        uint32_t caller_level = cls < 4 ? CGPROP_LEVEL_0 : cls < CGPROP__NCLS ? CGPROP_LEVEL_1 : CGPROP_LEVEL_DEEP;
        rc = add ? cgprop_graph_add_edge_class(dst, a, b, caller_level, cls % 4, cn, cc, NULL)
                 : cgprop__ecls_prepare(dst, d, (int)cls, any);
        count -= cn;
        for (uint32_t k = 0; k < K; k++) part[k] -= cc[k];
    }
    if (rc) return rc;
    /* What no class holds was added without class. */
    if (add) return cgprop_graph_add_edge(dst, a, b, count, has_cost ? part : NULL, NULL);
    bool any = count != 0;
    for (uint32_t k = 0; has_cost && k < K; k++) any = any || part[k];
    return cgprop__ecls_prepare(dst, d, -1, any);
}

int cgprop_graph_merge(cgprop_graph *dst, const cgprop_graph *src)
{
    if (!dst) return CGPROP_EINVAL;
    if (!src || src == dst) return cgprop__err(dst, CGPROP_EINVAL, "merge: source is NULL or the graph itself");
    if (src->K != dst->K)
        return cgprop__err(dst, CGPROP_EINVAL, "merge: %u metrics into %u", src->K, dst->K);
    const uint32_t K = dst->K;
    for (uint32_t k = 0; k < K; k++)
        if (src->mlen[k] != dst->mlen[k] || memcmp(src->mname[k], dst->mname[k], src->mlen[k]) != 0)
            return cgprop__err(dst, CGPROP_EINVAL, "merge: metric %u is '%s' in the source, '%s' here", k,
                               src->mname[k], dst->mname[k]);

    /* Phase 1: every function and call exists in dst (undone on failure). */
    cgprop__txn t;
    cgprop__txn_begin(dst, &t);
    uint32_t *map = cgprop__alloc(dst, (size_t)src->nn + 1, sizeof *map);
    if (!map) return cgprop__err(dst, CGPROP_ENOMEM, "merge: out of memory");
    int rc;
    for (uint32_t v = 0; v < src->nn; v++)
        if ((rc = cgprop_graph_add_node(dst, src->key_ptr[v], src->key_len[v], &map[v])))
            return undo(dst, &t, map, rc, "cannot add a function");
    for (uint32_t e = 0; e < src->ne; e++) {
        uint32_t id;
        if ((rc = cgprop__edge_get_or_add(dst, map[src->ecaller[e]], map[src->ecallee[e]], &id)))
            return undo(dst, &t, map, rc, "cannot add a call");
        /* Room for the class buckets phase 3 adds to (see add_edge_parts). */
        if ((rc = add_edge_parts(dst, src, e, id, false)))
            return undo(dst, &t, map, rc, "out of memory");
    }

    /* Level >= 2 self costs need their rows before phase 3, which cannot fail. */
    for (uint32_t v = 0; v < src->nn; v++) {
        uint64_t *row;
        if (cgprop__dself_row(src, v) && cgprop__sparse_make(dst, &dst->dself, map[v], K, &row))
            return undo(dst, &t, map, CGPROP_ENOMEM, "out of memory");
    }

    /* Stated inclusive costs need room before phase 3, which cannot fail. */
    bool any_stated = false;
    for (uint32_t v = 0; v < src->nn && !any_stated; v++) any_stated = (src->nflags[v] & CGPROP__NF_STATED) != 0;
    if (any_stated && cgprop__stated_reserve(dst)) return undo(dst, &t, map, CGPROP_ENOMEM, "out of memory");

    /* Phase 2: every sum fits. Keys are unique in both graphs, so each
     * function and call of dst receives from one of src at most. The parts
     * (S_n, S_r, class buckets) never exceed the sums checked here. */
    for (uint32_t v = 0; v < src->nn; v++) {
        uint32_t u = map[v];
        if (!cgprop__fits_self(dst, u, src->self + (size_t)v * K) ||
            !cgprop__fits_spont(dst, u, src->spont_cnt[v], src->spont_cost + (size_t)v * K) ||
            !cgprop__fits_calls_in(dst, u, src->calls_in[v]) ||
            ((src->nflags[v] & CGPROP__NF_STATED) && !cgprop__fits_stated(dst, u, src->stated + (size_t)v * K)))
            return undo(dst, &t, map, CGPROP_EOVERFLOW, "a function's sum would overflow");
    }
    for (uint32_t e = 0; e < src->ne; e++) {
        uint32_t d = cgprop__edge_lookup(dst, map[src->ecaller[e]], map[src->ecallee[e]]);
        if (!cgprop__fits_call(dst, d, src->ecount[e], src->ecost + (size_t)e * K))
            return undo(dst, &t, map, CGPROP_EOVERFLOW, "a call's sum would overflow");
    }
    if (!cgprop__fits_clamps(dst, src->clamps))
        return undo(dst, &t, map, CGPROP_EOVERFLOW, "the clamp count would overflow");
    if (!cgprop__fits_floors(dst, src->floors))
        return undo(dst, &t, map, CGPROP_EOVERFLOW, "the floor count would overflow");
    /* Calling contexts, when dst keeps them: created and checked last, added
     * in phase 3. */
    uint32_t *cmap;
    if ((rc = cgprop__ctx_merge_prepare(dst, src, map, &cmap)))
        return undo(dst, &t, map, rc, rc == CGPROP_ESTATE ? "the graph keeps calling contexts and the source does not"
                                                         : "out of memory");
    if (!cgprop__ctx_merge_fits(dst, src, cmap)) {
        cgprop__free(dst, cmap);
        return undo(dst, &t, map, CGPROP_EOVERFLOW, "a context's sum would overflow");
    }

    /* Phase 3: add through the public calls, which can no longer fail. */
    uint64_t part[CGPROP_MAX_METRICS];
    for (uint32_t v = 0; v < src->nn && !rc; v++) {
        uint32_t u = map[v];
        const uint64_t *s = src->self + (size_t)v * K, *sn = src->self_n + (size_t)v * K,
                       *sr = src->self_r + (size_t)v * K;
        if (src->nflags[v] & CGPROP__NF_SELF_UNCLASSIFIED) {
            for (uint32_t k = 0; k < K; k++) part[k] = s[k] - sn[k] - sr[k];
            rc = cgprop_graph_add_self(dst, u, part);
        }
        if (!rc && src->has_classes) {
            const uint64_t *sd = cgprop__dself_row(src, v);
            rc = cgprop_graph_add_self_class(dst, u, CGPROP_LEVEL_0, sn);
            if (sd) {
                for (uint32_t k = 0; k < K; k++) part[k] = sr[k] - sd[k];
                sr = part;
            }
            if (!rc) rc = cgprop_graph_add_self_class(dst, u, CGPROP_LEVEL_1, sr);
            if (!rc && sd) rc = cgprop_graph_add_self_class(dst, u, CGPROP_LEVEL_DEEP, sd);
        }
        if (!rc && (src->nflags[v] & CGPROP__NF_SPONT))
            rc = cgprop_graph_add_spontaneous(dst, u, src->spont_cnt[v], src->spont_cost + (size_t)v * K);
        if (!rc && (src->nflags[v] & CGPROP__NF_STATED))
            rc = cgprop__graph_state_total(dst, u, src->stated + (size_t)v * K);
    }
    for (uint32_t e = 0; e < src->ne && !rc; e++)
        rc = add_edge_parts(dst, src, e, cgprop__edge_lookup(dst, map[src->ecaller[e]], map[src->ecallee[e]]), true);
    cgprop__ctx_merge_add(dst, src, cmap);
    /* Whether a root's stacks were deep enough to have been cut short. */
    for (uint32_t v = 0; v < src->nn && !rc; v++)
        if (src->nflags[v] & CGPROP__NF_DEEP_ROOT) dst->nflags[map[v]] |= CGPROP__NF_DEEP_ROOT;
    cgprop__free(dst, map);
    if (rc) return rc; /* cannot happen: phase 2 checked every sum */
    dst->sampled = dst->sampled || src->sampled;
    /* What every stack of a root shows is kept per graph: the two graphs'
     * stacks mixed, it is known no more (cgprop__stacks_common). */
    dst->common_off = true;
    cgprop__graph_state_unrooted(dst, src->unrooted_stated);
    dst->clamps += src->clamps;
    dst->floors += src->floors;
    return cgprop__ok(dst);
}
