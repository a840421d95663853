/* Tarjan's strongly connected components (util/scc.h). */
#include "scc.h"
#include "prefetch.h"

#include <stdlib.h>

#define UNSEEN UINT32_MAX

static void *s_alloc(const cgprop_allocator *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    if (!bytes) bytes = 1;
    return a ? a->malloc_fn(a->user, bytes) : malloc(bytes);
}

static void s_free(const cgprop_allocator *a, void *p)
{
    if (!p) return;
    if (a) a->free_fn(a->user, p);
    else free(p);
}

/* Tarjan with an explicit call stack. The Tarjan stack grows from the front
 * of `ord` while finished SCCs are written from its back: a node is never in
 * both at once, so one array of nn holds both and ends up as the
 * callers-first order. `comp` receives the size of each node's SCC.
 *
 * On a graph larger than the caches each call's callee is a miss, so the
 * per-node state the calls look at is one word: num[w] is UNSEEN, w's DFS
 * number while w is on the Tarjan stack, or DONE (above every number, so it
 * never lowers a link) once its SCC is out. The DFS number and low link of
 * the nodes being visited live in their call stack frames, which are
 * sequential. Callees a few calls ahead in the current node's list are
 * fetched early. */
#define DONE (UINT32_MAX - 1)
#define PF CGPROP__AHEAD_CYCLES_CALLEES

typedef struct frame {
    uint32_t v, p, end, num, low;
} frame;

int cgprop__scc(const cgprop_allocator *a, uint32_t nn, const uint32_t *off, const uint32_t *ov, uint32_t *ord,
                uint32_t *comp)
{
    uint32_t *num = s_alloc(a, nn, sizeof *num);
    frame *cs = s_alloc(a, nn, sizeof *cs);
    if (!num || !cs) {
        s_free(a, num);
        s_free(a, cs);
        return CGPROP_ENOMEM;
    }
    for (uint32_t v = 0; v < nn; v++) num[v] = UNSEEN;
    uint32_t counter = 0, sp = 0, back = nn, csp = 0;
    for (uint32_t s = 0; s < nn; s++) {
        if (num[s] != UNSEEN) continue;
        num[s] = counter;
        ord[sp++] = s;
        cs[csp++] = (frame){s, off[s], off[s + 1], counter, counter};
        counter++;
        while (csp) {
            frame *f = &cs[csp - 1];
            if (f->p < f->end) {
                uint32_t p = f->p++;
                if (p + PF < f->end) {
                    uint32_t a = ov[p + PF];
                    CGPROP__PREFETCH(&num[a]);
                    CGPROP__PREFETCH(&off[a]);
                }
                uint32_t w = ov[p], nw = num[w];
                if (nw == UNSEEN) {
                    num[w] = counter;
                    ord[sp++] = w;
                    cs[csp++] = (frame){w, off[w], off[w + 1], counter, counter};
                    counter++;
                } else if (nw < f->low) {
                    f->low = nw;
                }
                continue;
            }
            uint32_t v = f->v, low = f->low;
            if (low == f->num) {
                /* v roots an SCC: everything above it on the Tarjan stack. */
                uint32_t start = sp;
                do start--; while (ord[start] != v);
                uint32_t size = sp - start;
                /* Move to the back in reverse so the output block keeps the
                 * stack order; block order is what matters, not order inside. */
                for (uint32_t i = sp; i-- > start;) {
                    uint32_t w = ord[i];
                    comp[w] = size;
                    num[w] = DONE;
                    ord[--back] = w;
                }
                sp = start;
            }
            csp--;
            if (csp && low < cs[csp - 1].low) cs[csp - 1].low = low;
        }
    }
    s_free(a, num);
    s_free(a, cs);
    return CGPROP_OK;
}

