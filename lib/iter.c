/* Iterators, point look-ups and bulk copies over the store and the analysis
 * results. Rows for analysis kinds are filled by the analyses themselves
 * (analysis.h); this file only knows which analysis a kind needs. */
#include "analysis.h"
#include "graph.h"

#include <string.h>

struct cgprop_iter {
    cgprop_graph *g;
    cgprop_allocator a; /* kept so the iterator can be freed after the graph */
    uint32_t kind, metric, arg;
    uint32_t watch;  /* slots whose runs its rows may read (CGPROP__DEP bits) */
    uint32_t cur;    /* of those, the ones that were current at creation */
    uint64_t gen;    /* graph generation at creation */
    uint64_t run[CGPROP__A_COUNT]; /* run of each watched slot at creation */
    size_t pos, count;
    const uint32_t *list; /* CALLERS/CALLEES/MEMBERS: ids to walk; NULL = 0..count-1 */
};

#define D(NAME) CGPROP__DEP(NAME)
/* Per kind: its row, the analyses that must be current for it (a message
 * names the call that runs the last of them), and those its rows read only
 * when they are current (a cycle's total, a split row's heuristic). An
 * iterator stays valid while every analysis its rows read is the run it
 * was made on, and still current. */
static const struct kind {
    size_t size;
    uint32_t needs, reads_if_current;
} kinds[] = {
    [CGPROP_ITER_NODES] = {sizeof(cgprop_node_row), 0, 0},
    [CGPROP_ITER_EDGES] = {sizeof(cgprop_edge_row), 0, 0},
    [CGPROP_ITER_CALLERS] = {sizeof(cgprop_edge_row), 0, 0},
    [CGPROP_ITER_CALLEES] = {sizeof(cgprop_edge_row), 0, 0},
    [CGPROP_ITER_CYCLES] = {sizeof(cgprop_cycle_row), D(CYCLES), D(COLLAPSE)},
    [CGPROP_ITER_MEMBERS] = {sizeof(cgprop_member_row), D(CYCLES), 0},
    [CGPROP_ITER_TOTALS] = {sizeof(cgprop_total_row), D(CYCLES) | D(COLLAPSE) | D(PROPAGATE) | D(BOUNDS) | D(WALK), 0},
    [CGPROP_ITER_EDGE_TOTALS] = {sizeof(cgprop_edge_total_row), D(CYCLES) | D(COLLAPSE) | D(PROPAGATE), 0},
    [CGPROP_ITER_SPLIT] = {sizeof(cgprop_split_row), D(SPLIT), D(PROPAGATE)},
    [CGPROP_ITER_EDGE_SPLIT] = {sizeof(cgprop_edge_split_row), D(SPLIT), 0},
};
#undef D

static size_t row_size_of(uint32_t kind)
{
    return kind < sizeof kinds / sizeof kinds[0] ? kinds[kind].size : 0;
}

/* CGPROP_OK when what the kind needs is current, else ESTATE with a message
 * naming the call to make. */
static int need_current(cgprop_graph *g, uint32_t kind, const char *what)
{
    uint32_t needs = kinds[kind].needs, missing = needs & ~cgprop__current_mask(g);
    if (!missing) return CGPROP_OK;
    uint32_t last = 0;
    for (uint32_t a = 0; a < CGPROP__A_COUNT; a++)
        if (needs >> a & 1u) last = a;
    return cgprop__err(g, CGPROP_ESTATE, "%s: run %s on the current graph first", what, cgprop__analysis_call(last));
}

/* Number of rows a kind has, for kinds over a whole table. */
static size_t table_size(const cgprop_graph *g, uint32_t kind)
{
    switch (kind) {
    case CGPROP_ITER_NODES:
    case CGPROP_ITER_TOTALS:
    case CGPROP_ITER_SPLIT: return g->nn;
    case CGPROP_ITER_EDGES:
    case CGPROP_ITER_EDGE_TOTALS:
    case CGPROP_ITER_EDGE_SPLIT: return g->ne;
    case CGPROP_ITER_CYCLES: return cgprop__cycles_count(g);
    default: return 0;
    }
}

static void fill_node(const cgprop_graph *g, uint32_t k, uint32_t v, cgprop_node_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = v;
    uint32_t f = g->nflags[v];
    if (f & CGPROP__NF_SELF_CALL) r->flags |= CGPROP_F_SELF_RECURSIVE;
    if (f & CGPROP__NF_SPONT) r->flags |= CGPROP_F_SPONTANEOUS;
    if (!(f & CGPROP__NF_HAS_CALLER)) r->flags |= CGPROP_F_NO_CALLERS;
    r->self = g->self[(size_t)v * g->K + k];
    r->spont_count = g->spont_cnt[v];
    r->spont_cost = g->spont_cost[(size_t)v * g->K + k];
    r->calls_in = g->calls_in[v];
}

static void fill_edge(const cgprop_graph *g, uint32_t k, uint32_t e, cgprop_edge_row *r)
{
    memset(r, 0, sizeof *r);
    r->id = e;
    r->caller = g->ecaller[e];
    r->callee = g->ecallee[e];
    if (g->eflags[e] & CGPROP__EF_HAS_COST) r->flags |= CGPROP_F_HAS_COST;
    if (r->caller == r->callee) r->flags |= CGPROP_F_SELF_CALL;
    r->count = g->ecount[e];
    r->cost = g->ecost[(size_t)e * g->K + k];
}

static void fill_cycle(const cgprop_graph *g, uint32_t k, uint32_t c, cgprop_cycle_row *r)
{
    memset(r, 0, sizeof *r);
    uint32_t n = 0;
    const uint32_t *m = cgprop__cycles_members(g, c, &n);
    r->id = c;
    r->nmembers = n;
    r->first = n ? m[0] : CGPROP_NONE;
    for (uint32_t i = 0; i < n; i++) r->self += g->self[(size_t)m[i] * g->K + k];
    if (cgprop__current(g, CGPROP__A_COLLAPSE)) {
        cgprop__collapse_fill_cycle(g, c, k, r);
        /* Whether the total is exact is known once propagate has built
         * the bounds on this collapse; until then it is not claimed. */
        if (cgprop__current(g, CGPROP__A_BOUNDS)) cgprop__bounds_fill_cycle(g, c, k, r);
        else r->flags |= CGPROP_F_ESTIMATE;
    }
}

/* Fill one row of a whole-table kind; the caller checked id and staleness. */
static int fill(cgprop_graph *g, uint32_t kind, uint32_t k, uint32_t id, void *row)
{
    switch (kind) {
    case CGPROP_ITER_NODES: fill_node(g, k, id, row); return CGPROP_OK;
    case CGPROP_ITER_EDGES:
    case CGPROP_ITER_CALLERS:
    case CGPROP_ITER_CALLEES: fill_edge(g, k, id, row); return CGPROP_OK;
    case CGPROP_ITER_CYCLES: fill_cycle(g, k, id, row); return CGPROP_OK;
    case CGPROP_ITER_TOTALS: cgprop__propagate_fill(g, id, k, row); return CGPROP_OK;
    case CGPROP_ITER_EDGE_TOTALS: cgprop__propagate_fill_edge(g, id, k, row); return CGPROP_OK;
    case CGPROP_ITER_SPLIT: cgprop__split_fill(g, id, k, row); return CGPROP_OK;
    case CGPROP_ITER_EDGE_SPLIT: cgprop__split_fill_edge(g, id, k, row); return CGPROP_OK;
    default: return CGPROP_EINVAL;
    }
}

int cgprop_iter_new(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t arg, cgprop_iter **out)
{
    if (out) *out = NULL;
    if (!g) return CGPROP_EINVAL;
    if (!out) return cgprop__err(g, CGPROP_EINVAL, "iter_new: out is NULL");
    if (!row_size_of(kind)) return cgprop__err(g, CGPROP_EINVAL, "iter_new: unknown iterator kind %u", kind);
    if (metric >= g->K && kind != CGPROP_ITER_MEMBERS)
        return cgprop__err(g, CGPROP_EINVAL, "iter_new: metric %u out of range (K = %u)", metric, g->K);
    int rc = need_current(g, kind, "iter_new");
    if (rc) return rc;

    const uint32_t *list = NULL;
    size_t count = 0;
    if (kind == CGPROP_ITER_CALLERS || kind == CGPROP_ITER_CALLEES) {
        if (arg >= g->nn)
            return cgprop__err(g, CGPROP_EINVAL, "iter_new: function id %u out of range (%u functions)", arg,
                               g->nn);
        const cgprop__adj *adj = cgprop__get_adj(g);
        if (!adj) return CGPROP_ENOMEM;
        const uint32_t *off = kind == CGPROP_ITER_CALLERS ? adj->in_off : adj->out_off;
        list = (kind == CGPROP_ITER_CALLERS ? adj->in_e : adj->out_e) + off[arg];
        count = off[arg + 1] - off[arg];
    } else if (kind == CGPROP_ITER_MEMBERS) {
        if (arg >= cgprop__cycles_count(g))
            return cgprop__err(g, CGPROP_EINVAL, "iter_new: cycle id %u out of range", arg);
        uint32_t n = 0;
        list = cgprop__cycles_members(g, arg, &n);
        count = n;
    } else {
        count = table_size(g, kind);
    }

    cgprop_iter *it = cgprop__alloc(g, 1, sizeof *it);
    if (!it) return cgprop__err(g, CGPROP_ENOMEM, "iter_new: out of memory");
    memset(it, 0, sizeof *it);
    it->g = g;
    it->a = g->a;
    it->kind = kind;
    it->metric = metric;
    it->arg = arg;
    it->gen = g->gen;
    it->watch = kinds[kind].needs | kinds[kind].reads_if_current;
    it->cur = it->watch & cgprop__current_mask(g);
    for (uint32_t a = 0; a < CGPROP__A_COUNT; a++) it->run[a] = g->slot[a].run;
    it->count = count;
    it->list = list;
    *out = it;
    return cgprop__ok(g);
}

static int iter_check(cgprop_iter *it, size_t row_size)
{
    cgprop_graph *g = it->g;
    if (row_size != row_size_of(it->kind))
        return cgprop__err(g, CGPROP_EINVAL, "iterator row size %zu does not match the kind's row (%zu)", row_size,
                           row_size_of(it->kind));
    if (g->gen != it->gen)
        return cgprop__err(g, CGPROP_ESTATE, "iterator is stale: the graph was changed after it was made");
    bool same = true;
    for (uint32_t a = 0; a < CGPROP__A_COUNT; a++)
        if (it->watch >> a & 1u) same = same && g->slot[a].run == it->run[a];
    if (!same || (it->cur && (it->cur & ~cgprop__current_mask(g))))
        return cgprop__err(g, CGPROP_ESTATE, "iterator is stale: an analysis its rows read was run again");
    return CGPROP_OK;
}

static int iter_fill_one(cgprop_iter *it, void *row)
{
    uint32_t id = it->list ? it->list[it->pos] : (uint32_t)it->pos;
    if (it->kind == CGPROP_ITER_MEMBERS) {
        cgprop_member_row *m = row;
        m->cycle = it->arg;
        m->node = id;
        return CGPROP_OK;
    }
    return fill(it->g, it->kind, it->metric, id, row);
}

int cgprop_iter_next(cgprop_iter *it, void *row, size_t row_size)
{
    if (!it) return CGPROP_EINVAL;
    if (!row) return cgprop__err(it->g, CGPROP_EINVAL, "iter_next: row is NULL");
    int rc = iter_check(it, row_size);
    if (rc) return rc;
    if (it->pos >= it->count) {
        cgprop__ok(it->g);
        return CGPROP_DONE;
    }
    rc = iter_fill_one(it, row);
    if (rc) return cgprop__err(it->g, rc, "iter_next: %s", cgprop_strerror(rc));
    it->pos++;
    cgprop__ok(it->g);
    return CGPROP_OK;
}

int cgprop_iter_copy_rows(cgprop_iter *it, void *dst, size_t row_size, size_t cap, size_t *n_out)
{
    if (n_out) *n_out = 0;
    if (!it) return CGPROP_EINVAL;
    if (!n_out || (!dst && cap)) return cgprop__err(it->g, CGPROP_EINVAL, "iter_copy_rows: NULL argument");
    int rc = iter_check(it, row_size);
    if (rc) return rc;
    if (it->pos >= it->count) {
        cgprop__ok(it->g);
        return CGPROP_DONE;
    }
    size_t n = 0;
    char *p = dst;
    while (n < cap && it->pos < it->count) {
        rc = iter_fill_one(it, p + n * row_size);
        if (rc) {
            *n_out = n;
            return cgprop__err(it->g, rc, "iter_copy_rows: %s", cgprop_strerror(rc));
        }
        it->pos++;
        n++;
    }
    *n_out = n;
    cgprop__ok(it->g);
    return CGPROP_OK;
}

size_t cgprop_iter_count(const cgprop_iter *it) { return it ? it->count : 0; }

void cgprop_iter_free(cgprop_iter *it)
{
    if (it) it->a.free_fn(it->a.user, it);
}

int cgprop_graph_get_row(cgprop_graph *g, uint32_t kind, uint32_t metric, uint32_t id, void *row,
                         size_t row_size)
{
    if (!g) return CGPROP_EINVAL;
    if (!row) return cgprop__err(g, CGPROP_EINVAL, "get_row: row is NULL");
    size_t want = row_size_of(kind);
    if (!want || kind == CGPROP_ITER_CALLERS || kind == CGPROP_ITER_CALLEES || kind == CGPROP_ITER_MEMBERS)
        return cgprop__err(g, CGPROP_EINVAL, "get_row: kind %u has no point look-up", kind);
    if (row_size != want)
        return cgprop__err(g, CGPROP_EINVAL, "get_row: row size %zu does not match the kind's row (%zu)", row_size,
                           want);
    if (metric >= g->K) return cgprop__err(g, CGPROP_EINVAL, "get_row: metric %u out of range (K = %u)", metric, g->K);
    int rc = need_current(g, kind, "get_row");
    if (rc) return rc;
    if (id >= table_size(g, kind)) return cgprop__err(g, CGPROP_EINVAL, "get_row: id %u out of range", id);
    rc = fill(g, kind, metric, id, row);
    if (rc) return cgprop__err(g, rc, "get_row: %s", cgprop_strerror(rc));
    return cgprop__ok(g);
}
