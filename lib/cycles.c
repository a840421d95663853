/* Cycle detection: strongly connected components by an iterative
 * Tarjan, so that a chain of ten million calls needs no native stack. */
#include "analysis.h"
#include "util/scc.h"

#include <string.h>

#define UNSEEN UINT32_MAX

typedef struct cyc_res {
    uint32_t nn;
    uint32_t ncyc;
    uint32_t *cyc_of;  /* nn: cycle id or CGPROP_NONE */
    uint32_t *mem_off; /* ncyc + 1 */
    uint32_t *mem;     /* members, ascending within each cycle */
    /* nn: every node once, grouped by SCC, SCCs in the order Tarjan completed
     * them reversed — so callers come before callees and walking it backwards
     * visits callees first. Collapse and propagation rely on this order. */
    uint32_t *order;
} cyc_res;

static void res_destroy(const cgprop_graph *g, cyc_res *r)
{
    if (!r) return;
    cgprop__free(g, r->cyc_of);
    cgprop__free(g, r->mem_off);
    cgprop__free(g, r->mem);
    cgprop__free(g, r->order);
    cgprop__free(g, r);
}

void cgprop__cycles_destroy(const cgprop_graph *g, void *res) { res_destroy(g, res); }

static const cyc_res *RES(const cgprop_graph *g) { return cgprop__res(g, CGPROP__A_CYCLES); }

uint32_t cgprop__cycles_count(const cgprop_graph *g)
{
    const cyc_res *r = RES(g);
    return r ? r->ncyc : 0;
}

uint32_t cgprop__cycles_of(const cgprop_graph *g, uint32_t node)
{
    const cyc_res *r = RES(g);
    if (!r || node >= r->nn) return CGPROP_NONE;
    return r->cyc_of[node];
}

const uint32_t *cgprop__cycles_of_all(const cgprop_graph *g)
{
    const cyc_res *r = RES(g);
    return r && r->nn == g->nn ? r->cyc_of : NULL;
}

const uint32_t *cgprop__cycles_members(const cgprop_graph *g, uint32_t cycle, uint32_t *n_out)
{
    const cyc_res *r = RES(g);
    if (!r || cycle >= r->ncyc) {
        if (n_out) *n_out = 0;
        return NULL;
    }
    if (n_out) *n_out = r->mem_off[cycle + 1] - r->mem_off[cycle];
    return r->mem + r->mem_off[cycle];
}

const uint32_t *cgprop__cycles_order(const cgprop_graph *g)
{
    const cyc_res *r = RES(g);
    return r ? r->order : NULL;
}

static int build(cgprop_graph *g, cyc_res **out)
{
    const cgprop__adj *adj = cgprop__get_adj(g);
    if (!adj) return CGPROP_ENOMEM;
    uint32_t nn = g->nn;
    cyc_res *r = cgprop__calloc(g, 1, sizeof *r);
    if (!r) return CGPROP_ENOMEM;
    r->nn = nn;
    r->order = cgprop__alloc(g, nn, sizeof *r->order);
    r->cyc_of = cgprop__alloc(g, nn, sizeof *r->cyc_of);
    if (!r->order || !r->cyc_of) goto nomem;
    /* cyc_of doubles as Tarjan's SCC-size scratch until ids are assigned. */
    if (cgprop__scc(&g->a, nn, adj->out_off, adj->out_v, r->order, r->cyc_of) != CGPROP_OK) goto nomem;

    /* Ids in order of smallest member: scan the order once to give every SCC
     * of size >= 2 a leader (its first node in `order`), then scan node ids
     * ascending; the first member seen of an unnumbered SCC numbers it. */
    uint32_t *lead = cgprop__alloc(g, nn, sizeof *lead);
    if (!lead) goto nomem;
    for (uint32_t i = 0; i < nn;) {
        uint32_t size = r->cyc_of[r->order[i]];
        for (uint32_t j = i; j < i + size; j++) lead[r->order[j]] = size >= 2 ? r->order[i] : CGPROP_NONE;
        i += size;
    }
    /* Reuse cyc_of: first mark every node NONE, then give ids via leaders. */
    uint32_t ncyc = 0;
    for (uint32_t v = 0; v < nn; v++) r->cyc_of[v] = CGPROP_NONE;
    /* A leader's cyc_of is set when its SCC gets an id; members look it up. */
    for (uint32_t v = 0; v < nn; v++) {
        uint32_t l = lead[v];
        if (l == CGPROP_NONE) continue;
        if (r->cyc_of[l] == CGPROP_NONE) r->cyc_of[l] = ncyc++;
        r->cyc_of[v] = r->cyc_of[l];
    }
    cgprop__free(g, lead);
    r->ncyc = ncyc;
    r->mem_off = cgprop__calloc(g, (size_t)ncyc + 1, sizeof *r->mem_off);
    if (!r->mem_off) goto nomem;
    uint32_t nmem = 0;
    for (uint32_t v = 0; v < nn; v++)
        if (r->cyc_of[v] != CGPROP_NONE) {
            r->mem_off[r->cyc_of[v] + 1]++;
            nmem++;
        }
    for (uint32_t c = 0; c < ncyc; c++) r->mem_off[c + 1] += r->mem_off[c];
    r->mem = cgprop__alloc(g, nmem, sizeof *r->mem);
    uint32_t *fill = cgprop__calloc(g, ncyc, sizeof *fill);
    if (!r->mem || !fill) {
        cgprop__free(g, fill);
        goto nomem;
    }
    for (uint32_t v = 0; v < nn; v++) {
        uint32_t c = r->cyc_of[v];
        if (c != CGPROP_NONE) r->mem[r->mem_off[c] + fill[c]++] = v;
    }
    cgprop__free(g, fill);
    *out = r;
    return CGPROP_OK;
nomem:
    res_destroy(g, r);
    return CGPROP_ENOMEM;
}

const uint32_t *cgprop__cycles_ids(cgprop_graph *g, uint32_t **own)
{
    *own = NULL;
    if (cgprop__current(g, CGPROP__A_CYCLES)) return RES(g)->cyc_of;
    cyc_res *r = NULL;
    if (build(g, &r) != CGPROP_OK) return NULL;
    *own = r->cyc_of;
    r->cyc_of = NULL;
    res_destroy(g, r);
    return *own;
}

int cgprop_graph_find_cycles(cgprop_graph *g, size_t *ncycles_out)
{
    if (ncycles_out) *ncycles_out = 0;
    if (!g) return CGPROP_EINVAL;
    cyc_res *r = NULL;
    if (build(g, &r) != CGPROP_OK)
        return cgprop__err(g, CGPROP_ENOMEM, "find_cycles: out of memory (%u functions, %u calls)", g->nn, g->ne);
    cgprop__install(g, CGPROP__A_CYCLES, r);
    if (ncycles_out) *ncycles_out = r->ncyc;
    return cgprop__ok(g);
}

int cgprop_graph_node_cycle(cgprop_graph *g, uint32_t node, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (!out) return cgprop__err(g, CGPROP_EINVAL, "node_cycle: out is NULL");
    *out = CGPROP_NONE;
    if (node >= g->nn)
        return cgprop__err(g, CGPROP_EINVAL, "node_cycle: function id %u out of range (%u functions)", node, g->nn);
    if (!cgprop__current(g, CGPROP__A_CYCLES))
        return cgprop__err(g, CGPROP_ESTATE, "node_cycle: run cgprop_graph_find_cycles() on the current graph first");
    *out = cgprop__cycles_of(g, node);
    return cgprop__ok(g);
}
