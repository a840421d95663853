/* The analysis registry: which results in the store are current. The rows
 * are graph.h's CGPROP__ANALYSES; every analysis installs its result here and
 * asks here whether the results it reads are current, so that staleness is
 * decided in one place, the same way for all. */
#include "analysis.h"

typedef struct row {
    void (*destroy)(const cgprop_graph *g, void *res);
    uint32_t deps; /* CGPROP__DEP bits */
    bool args;     /* a re-run on the same graph may give another result */
    const char *call;
} row;

static const row rows[CGPROP__A_COUNT] = {
#define CGPROP__X(NAME, name, deps, args, call) {cgprop__##name##_destroy, (deps), (args), (call)},
    CGPROP__ANALYSES(CGPROP__X)
#undef CGPROP__X
};

/* One pass in row order decides every slot (no recursion over the
 * dependencies), which needs every dependency listed before its user. */
#define CGPROP__X(NAME, name, deps, args, call)                                                         \
    _Static_assert((deps) < CGPROP__DEP(NAME), "an analysis is built only on analyses listed before it");
CGPROP__ANALYSES(CGPROP__X)
#undef CGPROP__X
_Static_assert(CGPROP__A_COUNT <= 32, "slot masks are 32 bits");

uint32_t cgprop__current_mask(const cgprop_graph *g)
{
    /* The answer depends on the generation and the slots alone; the slots
     * change only by an install, and a rollback that restores a generation
     * restores the state it names (installs only grow), so the pair says
     * when the last answer still holds. */
    if (g->mask_ok && g->mask_gen == g->gen && g->mask_installs == g->installs) return g->mask;
    uint32_t cur = 0;
    for (uint32_t a = 0; a < CGPROP__A_COUNT; a++) {
        const cgprop__slot *s = &g->slot[a];
        uint32_t deps = rows[a].deps;
        if (!s->res || s->gen != g->gen || (cur & deps) != deps) continue;
        bool same = true;
        for (uint32_t d = 0; d < a && same; d++)
            if ((deps >> d & 1u) && rows[d].args) same = s->dep_run[d] == g->slot[d].run;
        if (same) cur |= 1u << a;
    }
    /* A cache inside the graph, which one thread uses at a time (the
     * graph is never a const object: the const is the callers'). */
    cgprop_graph *m = (cgprop_graph *)(uintptr_t)g;
    m->mask = cur;
    m->mask_gen = g->gen;
    m->mask_installs = g->installs;
    m->mask_ok = true;
    return cur;
}

void cgprop__install(cgprop_graph *g, uint32_t a, void *res)
{
    cgprop__slot *s = &g->slot[a];
    rows[a].destroy(g, s->res);
    s->res = res;
    s->gen = g->gen;
    s->run++;
    g->installs++;
    for (uint32_t d = 0; d < CGPROP__A_COUNT; d++) s->dep_run[d] = g->slot[d].run;
}

const char *cgprop__analysis_call(uint32_t a) { return a < CGPROP__A_COUNT ? rows[a].call : ""; }

void cgprop__analyses_free(cgprop_graph *g)
{
    for (uint32_t a = CGPROP__A_COUNT; a-- > 0;) {
        rows[a].destroy(g, g->slot[a].res);
        g->slot[a].res = NULL;
    }
    g->mask_ok = false;
}

int cgprop_graph_analyze(cgprop_graph *g)
{
    if (!g) return CGPROP_EINVAL;
    int rc;
    uint32_t cur = cgprop__current_mask(g);
    if (!(cur & CGPROP__DEP(CYCLES)) && (rc = cgprop_graph_find_cycles(g, NULL))) return rc;
    cur = cgprop__current_mask(g);
    if (!(cur & CGPROP__DEP(COLLAPSE)) && (rc = cgprop_graph_collapse(g, CGPROP_SHARE_AUTO))) return rc;
    /* The split first: propagate reuses a current split instead of building its own. */
    cur = cgprop__current_mask(g);
    if (!(cur & CGPROP__DEP(SPLIT)) && (rc = cgprop_graph_split(g))) return rc;
    cur = cgprop__current_mask(g);
    uint32_t want = CGPROP__DEP(PROPAGATE) | CGPROP__DEP(BOUNDS) | CGPROP__DEP(WALK);
    if ((cur & want) != want && (rc = cgprop_graph_propagate(g))) return rc;
    return CGPROP_OK;
}
