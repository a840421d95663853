/* Callgrind reader, pass 2: how the file encodes recursion, the final
 * functions with their recursion classes, the calls (callgrind.h has the
 * map of the reader). */
#include "callgrind.h"

#include <stdio.h>

/* ---- pass 2: names, recursion classes, final graph ---- */

typedef struct rawname {
    uint32_t base_len; /* length of the function's own name */
    uint32_t index;    /* callgrind recursion index: 1 for a plain name */
} rawname;

static uint32_t rec_index_at(const char *s, size_t n, size_t i, size_t *end)
{
    /* "'" digits, value >= 2, followed by the end or another quote */
    if (i >= n || s[i] != '\'') return 0;
    size_t j = i + 1;
    uint64_t v = 0;
    while (j < n && cgprop__is_digit(s[j]) && j - i <= 10) v = v * 10 + (uint64_t)(s[j++] - '0');
    if (j == i + 1 || (j < n && s[j] != '\'') || v < 2 || v > MAX_REC_INDEX) return 0;
    *end = j;
    return (uint32_t)v;
}

static rawname parse_raw(const char *s, size_t n, bool contexts)
{
    rawname r = {(uint32_t)n, 1};
    if (contexts) {
        const char *q = memchr(s, '\'', n);
        if (!q) return r;
        size_t b = (size_t)(q - s), end;
        uint32_t idx = rec_index_at(s, n, b, &end);
        r.base_len = (uint32_t)b;
        if (idx) r.index = idx;
        return r;
    }
    /* Without contexts the index can only be the trailing 'digits. */
    size_t j = n;
    while (j > 0 && cgprop__is_digit(s[j - 1])) j--;
    if (j > 0 && j < n && s[j - 1] == '\'') {
        size_t end;
        uint32_t idx = rec_index_at(s, n, j - 1, &end);
        if (idx && end == n) {
            r.base_len = (uint32_t)(j - 1);
            r.index = idx;
        }
    }
    return r;
}

static void raw_parts(const cg *c, uint32_t r, uint32_t *ob, uint32_t *fl, uint32_t *fn)
{
    *ob = c->rkey[r].ob;
    *fl = c->rkey[r].fl;
    *fn = c->rkey[r].fn;
}

static const char *raw_name(const cg *c, uint32_t r, size_t *len)
{
    uint32_t ob, fl, fn;
    raw_parts(c, r, &ob, &fl, &fn);
    return str_of(c, fn, len);
}

/* Callgrind writes --separate-callers contexts as name'caller'caller..; in
 * such a file the first context element of every callee is its caller's
 * name. Plain names with quotes almost never line up like that. */
static bool detect_contexts(const cg *c)
{
    /* Only a name with something after its quote (and index) can have a
     * context: without one, no call line can match, so the calls need not
     * be looked at (they are many, the functions few). */
    bool any = false;
    for (uint32_t r = 0; r < c->nraw && !any; r++) {
        size_t ln;
        const char *d = raw_name(c, r, &ln);
        const char *q = memchr(d, '\'', ln);
        if (!q) continue;
        size_t i = (size_t)(q - d), end;
        if (rec_index_at(d, ln, i, &end)) i = end;
        any = i < ln;
    }
    if (!any) return false;
    uint64_t match = 0;
    for (size_t e = 0; e < c->ncalls; e++) {
        size_t ln, lc;
        const char *d = raw_name(c, c->ccallee[e], &ln);
        const char *s = raw_name(c, c->ccaller[e], &lc);
        const char *q = memchr(d, '\'', ln);
        if (!q) continue;
        size_t i = (size_t)(q - d), end;
        if (rec_index_at(d, ln, i, &end)) i = end;
        if (i >= ln) continue;
        i++; /* past the quote: first caller */
        const char *q2 = memchr(d + i, '\'', ln - i);
        size_t flen = q2 ? (size_t)(q2 - (d + i)) : ln - i;
        const char *qc = memchr(s, '\'', lc);
        size_t blen = qc ? (size_t)(qc - s) : lc;
        if (flen == blen && memcmp(d + i, s, blen) == 0) match++;
    }
    return match > 0 && match * 2 > c->ncalls;
}

static uint32_t level_of(uint32_t index, uint32_t N)
{
    if (index <= 1) return CGPROP_LEVEL_0;
    if (index >= N) return N == 2 ? CGPROP_LEVEL_REC : CGPROP_LEVEL_DEEP;
    return index == 2 ? CGPROP_LEVEL_1 : CGPROP_LEVEL_DEEP;
}

enum { MODE_NONE, MODE_NAMES, MODE_WITHHELD, MODE_UNFOLDED };

typedef struct pass2 {
    rawname *rn;
    uint32_t *bid;   /* raw -> base function (object, file, folded name) */
    uint32_t *fid;   /* raw -> final node */
    uint8_t *binex;  /* base -> split of its plain activations is not exact */
    uint32_t nb;     /* number of base functions */
    struct rend {
        uint32_t fid, level;
        uint64_t group;
    } *ends;          /* raw -> what its calls need (see finish) */
    uint8_t *cls;     /* call -> its class, CGPROP__NOCLS for none */
    cgprop_graph *bg; /* base functions, unless they are the final graph's */
    cgprop_graph *g;  /* the result, until handed out */
    /* What the steps of finish decide and pass on. */
    bool full, fold, same; /* full keys; fold fn'N names; base functions are the final ones */
    bool contexts;         /* names carry --separate-callers contexts */
    bool plain_self;       /* a plain name calls itself */
    bool cycles;           /* a cycle among plain names */
    uint32_t maxidx;       /* highest N of an fn'N name (1: none) */
    int mode;              /* MODE_* */
    uint32_t N;            /* the --separate-recs the names were made with, for MODE_NAMES */
} pass2;

/* Recursion among plain names: self-calls, and whether the plain -> plain
 * calls between base functions (an adjacency built by counting sort: no
 * hashing per call) hold a cycle. Only that it does matters (the mode and
 * a flag), so functions are peeled off while some have no caller left
 * (Kahn): a cycle stops the peeling, and on a profile with one large cycle
 * it stops at once, where finding the components walked every call. */
static int plain_cycles(cg *c, pass2 *p, bool *plain_self, bool *cycles_out)
{
    uint32_t nb = p->nb;
    const cgprop_allocator *A = &c->mem;
    uint32_t *off = cgprop__mem_calloc(A, (size_t)nb + 1, sizeof *off);
    uint32_t *adj = NULL, *cur = NULL, *queue = NULL;
    int rc = CGPROP_OK;
    /* The base function of each plain raw function, CGPROP_NONE for the
     * others: one small array for the two passes over the calls. */
    uint32_t *pb = cgprop__mem_alloc(A, c->nraw ? c->nraw : 1, sizeof *pb);
    if (!off || !pb) goto nomem;
    for (uint32_t r = 0; r < c->nraw; r++) pb[r] = p->rn[r].index == 1 ? p->bid[r] : CGPROP_NONE;
    size_t m = 0;
    for (size_t e = 0; e < c->ncalls; e++) {
        uint32_t a = pb[c->ccaller[e]], b = pb[c->ccallee[e]];
        if (a == CGPROP_NONE || b == CGPROP_NONE) continue;
        if (a == b) {
            *plain_self = true;
            p->binex[a] = 1;
        } else {
            off[a + 1]++;
            m++;
        }
    }
    *cycles_out = false;
    if (m == 0) goto done;
    if (m > UINT32_MAX) {
        rc = cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "too many calls");
        goto done;
    }
    for (uint32_t b = 0; b < nb; b++) off[b + 1] += off[b];
    adj = cgprop__mem_alloc(A, m, sizeof *adj);
    cur = cgprop__mem_alloc(A, nb, sizeof *cur);
    queue = cgprop__mem_alloc(A, nb, sizeof *queue);
    if (!adj || !cur || !queue) goto nomem;
    memcpy(cur, off, (size_t)nb * sizeof *cur);
    for (size_t e = 0; e < c->ncalls; e++) {
        uint32_t a = pb[c->ccaller[e]], b = pb[c->ccallee[e]];
        if (a == CGPROP_NONE || b == CGPROP_NONE || a == b) continue;
        adj[cur[a]++] = b;
    }
    /* cur now counts each function's callers not yet peeled off. */
    memset(cur, 0, (size_t)nb * sizeof *cur);
    for (size_t j = 0; j < m; j++) cur[adj[j]]++;
    uint32_t qn = 0;
    for (uint32_t b = 0; b < nb; b++)
        if (!cur[b]) queue[qn++] = b;
    for (uint32_t i = 0; i < qn; i++) {
        uint32_t a = queue[i];
        for (uint32_t j = off[a]; j < off[a + 1]; j++)
            if (--cur[adj[j]] == 0) queue[qn++] = adj[j];
    }
    *cycles_out = qn < nb;
    goto done;
nomem:
    rc = cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
done:
    cgprop__mem_free(A, pb);
    cgprop__mem_free(A, off);
    cgprop__mem_free(A, adj);
    cgprop__mem_free(A, cur);
    cgprop__mem_free(A, queue);
    return rc;
}

static int build_key(cg *c, const char *ob, size_t lob, const char *fl, size_t lfl, const char *nm, size_t lnm,
                     bool full, size_t *len)
{
    size_t need = full ? lob + lfl + lnm + 2 : lnm;
    if (need < lnm) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "key too long");
    int rc = cgprop__cg_scratch_reserve(c, need ? need : 1);
    if (rc) return rc;
    char *p = c->scratch;
    if (full) {
        memcpy(p, ob, lob);
        p += lob;
        *p++ = '\t';
        memcpy(p, fl, lfl);
        p += lfl;
        *p++ = '\t';
    }
    memcpy(p, nm, lnm);
    *len = need;
    return CGPROP_OK;
}

static int raw_key(cg *c, uint32_t r, size_t name_len, bool full, size_t *len)
{
    uint32_t ob, fl, fn;
    raw_parts(c, r, &ob, &fl, &fn);
    size_t lob = 0, lfl = 0, lfn;
    const char *so = ob == NONE_SID ? "" : str_of(c, ob, &lob);
    const char *sf = fl == NONE_SID ? "" : str_of(c, fl, &lfl);
    const char *sn = str_of(c, fn, &lfn);
    (void)lfn;
    return build_key(c, so, lob, sf, lfl, sn, name_len, full, len);
}

bool cgprop__cg_find_calls_line(const char *data, size_t len, uint32_t at, uint32_t *seen, uint64_t *line)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    const char *s;
    size_t n;
    while (cgprop__lines_next(&r, &s, &n)) {
        while (n && cgprop__is_space(*s)) {
            s++;
            n--;
        }
        if (n < 6 || memcmp(s, "calls=", 6) != 0 || (*seen)++ != at) continue;
        *line += r.no;
        return true;
    }
    *line += r.no;
    return false;
}

int cgprop__cg_calls_error(cg *c, bool found, uint64_t line)
{
    if (!found) line = 0;
    if (c->ovf_why == CGPROP__WHY_COST)
        return cgprop__read_fail(c->err, CGPROP_EOVERFLOW, line ? line + 1 : 0,
                                 "the cost of a call summed over its lines overflows 64 bits");
    return cgprop__read_fail(c->err, CGPROP_EOVERFLOW, line,
                             c->ovf_why == CGPROP__WHY_COUNT ? "the count of a call summed over its lines overflows 64 bits"
                                                             : "the calls into a function overflow 64 bits");
}

/* The call lines' sums are taken when the graph is built, after reading:
 * the refused call is the batch_at-th calls= line of the input (every one
 * added a call, in order), its cost on the next line. A text read in
 * pieces is not at hand any more (c->data NULL): its reader looks for the
 * line. */
static int calls_fail(cg *c, const cgprop_graph *g)
{
    c->ovf = true;
    c->ovf_at = g->batch_at;
    c->ovf_why = g->batch_why;
    uint32_t seen = 0;
    uint64_t line = 0;
    bool found = c->data && cgprop__cg_find_calls_line(c->data, (size_t)(c->end - c->data), c->ovf_at, &seen, &line);
    return cgprop__cg_calls_error(c, found, line);
}

static int graph_fail(cg *c, int rc)
{
    if (rc == CGPROP_EOVERFLOW) return cgprop__read_fail(c->err, rc, 0, "a cost sum overflows 64 bits");
    if (rc == CGPROP_ENOMEM) return cgprop__read_fail(c->err, rc, 0, "out of memory");
    return cgprop__read_fail(c->err, rc, 0, "cannot build the graph");
}

/* Pass 2's scratch in a block of pass 1 that is not needed any more
 * (*dead, taken in any case): its pages are in memory already, where a new
 * block's would each be faulted in. */
static void *recycle(cg *c, void *dead, size_t n, size_t size)
{
    void *p = cgprop__mem_realloc(&c->mem, dead, n ? n : 1, size);
    if (!p) cgprop__mem_free(&c->mem, dead);
    return p;
}

/* The base function (object, file, folded name) of every raw function, and
 * the table of their names' parts. With full keys and folding the final
 * graph's functions are the base functions themselves. */
/* Keys added a batch at a time through cgprop_graph_add_nodes, whose
 * probes of the function index overlap: one at a time, each new function's
 * probe was a miss of its own (a fifth of reading a profile of 200,000
 * functions, whose index is 4 MB). */
enum { KEY_BATCH = 1024 };

static int add_base_keys(cg *c, pass2 *p, cgprop_graph *bg)
{
    const cgprop_allocator *A = &c->mem;
    uint32_t nr = c->nraw;
    size_t acap = (size_t)KEY_BATCH * 64, aused = 0;
    const char **kp = cgprop__mem_alloc(A, KEY_BATCH, sizeof *kp);
    size_t *ko = cgprop__mem_alloc(A, 2 * (size_t)KEY_BATCH, sizeof *ko);
    char *arena = cgprop__mem_alloc(A, acap, 1);
    int rc = CGPROP_OK;
    if (!kp || !ko || !arena) {
        rc = cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
        goto out;
    }
    size_t *kl = ko + KEY_BATCH;
    for (uint32_t r0 = 0; r0 < nr && !rc; r0 += KEY_BATCH) {
        uint32_t n = nr - r0 < KEY_BATCH ? nr - r0 : KEY_BATCH;
        aused = 0;
        for (uint32_t i = 0; i < n; i++) {
            size_t klen;
            if ((rc = raw_key(c, r0 + i, p->rn[r0 + i].base_len, true, &klen))) goto out;
            void *ar = arena;
            if (!cgprop__grow(A, &ar, &acap, aused + klen, 1, acap)) {
                rc = cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
                goto out;
            }
            arena = ar;
            memcpy(arena + aused, c->scratch, klen);
            ko[i] = aused;
            kl[i] = klen;
            aused += klen;
        }
        for (uint32_t i = 0; i < n; i++) kp[i] = arena + ko[i];
        if ((rc = cgprop_graph_add_nodes(bg, n, kp, kl, p->bid + r0))) {
            rc = graph_fail(c, rc);
            goto out;
        }
        if (p->same) memcpy(p->fid + r0, p->bid + r0, (size_t)n * sizeof *p->fid);
    }
out:
    cgprop__mem_free(A, kp);
    cgprop__mem_free(A, ko);
    cgprop__mem_free(A, arena);
    return rc;
}

static int base_functions(cg *c, pass2 *p)
{
    uint32_t nr = c->nraw;
    int rc;
    p->contexts = detect_contexts(c);
    /* rn, bid and fid in one block, where the name set was. */
    void *names = c->sset.slot;
    c->sset.slot = NULL;
    c->sset.cap = c->sset.n = 0;
    p->rn = recycle(c, names, nr, sizeof *p->rn + 2 * sizeof(uint32_t));
    if (!p->rn) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
    p->bid = (uint32_t *)(p->rn + nr);
    p->fid = p->bid + nr;
    /* The final graph (the one the calls are staged in), functions in file order. */
    p->g = c->raw;
    c->raw = NULL;
    p->full = c->opts->key_mode != CGPROP_KEY_NAME;
    p->fold = !c->opts->no_fold_recursion;
    p->same = p->full && p->fold;
    if (!p->same) {
        const char *one = "n";
        rc = cgprop_graph_new(c->alloc, &one, NULL, 1, &p->bg);
        if (rc) return cgprop__read_fail(c->err, rc, 0, "out of memory");
    }
    cgprop_graph *bg = p->same ? p->g : p->bg;
    /* Room for the functions the plain names make, at once (most fn'2 names
     * fold into a plain one): no chain of growing tables. */
    uint32_t nplain = 0;
    p->maxidx = 1;
    for (uint32_t r = 0; r < nr; r++) {
        size_t len;
        const char *s = raw_name(c, r, &len);
        p->rn[r] = parse_raw(s, len, p->contexts);
        if (p->rn[r].index > p->maxidx) p->maxidx = p->rn[r].index;
        nplain += p->rn[r].index == 1;
    }
    if ((rc = cgprop__reserve_nodes(bg, nplain)) != CGPROP_OK) return graph_fail(c, rc);
    if ((rc = add_base_keys(c, p, bg))) return rc;
    p->nb = (uint32_t)cgprop_graph_node_count(bg);
    p->binex = cgprop__mem_calloc(&c->mem, p->nb ? p->nb : 1, 1);
    if (!p->binex) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
    return CGPROP_OK;
}

/* How recursion classes come: from fn'N names, withheld, unfolded or none. */
static void choose_mode(const cg *c, pass2 *p)
{
    bool plain_rec = p->plain_self || p->cycles;
    uint32_t over = c->opts->separate_recs;
    p->N = 0;
    if (!p->fold) p->mode = (p->maxidx >= 2 || plain_rec) ? MODE_UNFOLDED : MODE_NONE;
    else if (over == 1) p->mode = MODE_WITHHELD;
    /* A run made with --separate-recs=N >= 2 names every recursive
     * activation fn'2 or deeper: a file whose functions recurse under
     * plain names only was not made so, whatever the option says, and its
     * plain names hold activations of every level. */
    else if (p->maxidx >= 2 || (over >= 2 && !plain_rec)) {
        p->mode = MODE_NAMES;
        p->N = over > p->maxidx ? over : p->maxidx;
    } else p->mode = plain_rec ? MODE_WITHHELD : MODE_NONE;
}

/* The final functions (when they are not the base ones) and every self
 * cost, in the class its name tells. */
static int final_functions(cg *c, pass2 *p)
{
    uint32_t nr = c->nraw, K = c->K;
    cgprop_graph *g = p->g;
    int rc = CGPROP_OK;
    for (uint32_t r = 0; r < nr && !rc && !p->same; r++) {
        size_t nlen, klen;
        (void)raw_name(c, r, &nlen);
        rc = raw_key(c, r, p->fold ? p->rn[r].base_len : nlen, p->full, &klen);
        if (rc) break;
        rc = cgprop_graph_add_node(g, c->scratch, klen, &p->fid[r]);
        if (rc) rc = graph_fail(c, rc);
    }
    for (uint32_t r = 0; r < nr && !rc; r++) {
        const uint64_t *s = c->rself + (size_t)r * K;
        uint32_t idx = p->rn[r].index;
        if (p->mode == MODE_NONE) rc = cgprop_graph_add_self_class(g, p->fid[r], CGPROP_LEVEL_0, s);
        else if (p->mode == MODE_NAMES && !(idx == 1 && p->binex[p->bid[r]]))
            rc = cgprop_graph_add_self_class(g, p->fid[r], level_of(idx, p->N), s);
        else rc = cgprop_graph_add_self(g, p->fid[r], s);
        if (rc) rc = graph_fail(c, rc);
    }
    return rc;
}

/* Every call to the graph, with its class. What the calls need of their two
 * ends sits side by side (one cache line per end instead of four arrays):
 * the final node, the class level, and for plain names the base function,
 * since a plain call from a base function to itself is plain recursion. A
 * call between two plain names of one cycle is not: callgrind numbered its
 * activations while it tracked the stack, and a plain name is what it saw at
 * level 0 (on real programs those level-0 figures match valgrind's own
 * inclusive cost); where the measurement itself is off, the bounds analysis
 * sees the two sides of C_n disagree. */
static int stage_calls(cg *c, pass2 *p)
{
    uint32_t nr = c->nraw;
    int rc = CGPROP_OK;
    void *fns = c->fdir; /* where the function ids were */
    c->fdir = NULL;
    c->fdircap = 0;
    p->ends = recycle(c, fns, nr, sizeof *p->ends);
    if (!p->ends) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
    for (uint32_t r = 0; r < nr; r++) {
        uint32_t idx = p->rn[r].index, b = p->bid[r];
        p->ends[r].fid = p->fid[r];
        p->ends[r].level = p->mode == MODE_NAMES ? level_of(idx, p->N) : CGPROP_LEVEL_0;
        p->ends[r].group = idx != 1 ? UINT64_MAX : (uint64_t)b;
    }
    /* Each call's final ends and class, written over the raw ends (not
     * needed any more), the ends' records fetched ahead; then all calls go
     * to the graph at once (it fetches ahead what each call needs there). */
    bool classes = p->mode == MODE_NONE || p->mode == MODE_NAMES;
    if (classes && c->ncalls) {
        void *self = c->rself; /* the self costs are in the graph now */
        c->rself = NULL;
        c->rself_cap = 0;
        p->cls = recycle(c, self, c->ncalls, 1);
        if (!p->cls) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
    }
    const struct rend *ends = p->ends;
    for (size_t e = 0; e < c->ncalls; e++) {
        if (e + CGPROP__AHEAD_READ_CALLS < c->ncalls) {
            CGPROP__PREFETCH(&ends[c->ccaller[e + CGPROP__AHEAD_READ_CALLS]]);
            CGPROP__PREFETCH(&ends[c->ccallee[e + CGPROP__AHEAD_READ_CALLS]]);
        }
        const struct rend *a = &ends[c->ccaller[e]], *b = &ends[c->ccallee[e]];
        if (classes)
            p->cls[e] = p->mode == MODE_NONE || !(a->group != UINT64_MAX && a->group == b->group)
                            ? (uint8_t)cgprop__cls(a->level == CGPROP_LEVEL_0      ? 0u
                                                   : a->level == CGPROP_LEVEL_DEEP ? 2u
                                                                                   : 1u,
                                                   b->level)
                            : (uint8_t)CGPROP__NOCLS;
        c->ccaller[e] = a->fid;
        c->ccallee[e] = b->fid;
    }
    if ((rc = cgprop__add_staged_edges(p->g, (uint32_t)c->ncalls, classes ? p->cls : NULL)) != CGPROP_OK)
        rc = rc == CGPROP_EOVERFLOW && p->g->batch_why ? calls_fail(c, p->g) : graph_fail(c, rc);
    return rc;
}

static void fill_info(const cg *c, const pass2 *p, cgprop_read_info *info)
{
    info->format = CGPROP_INPUT_CALLGRIND;
    info->recursion = p->mode == MODE_NONE       ? CGPROP_RECS_NONE
                      : p->mode == MODE_NAMES    ? CGPROP_RECS_NAMES
                      : p->mode == MODE_WITHHELD ? CGPROP_RECS_WITHHELD
                                                 : CGPROP_RECS_UNFOLDED;
    info->separate_recs = p->N;
    info->flags = 0;
    if (c->any_totals) info->flags |= CGPROP_RI_TOTALS;
    if (p->contexts) info->flags |= CGPROP_RI_CALLER_CONTEXTS;
    if (p->mode == MODE_NAMES && p->plain_self) info->flags |= CGPROP_RI_PLAIN_SELF_CALLS;
    if (p->mode == MODE_NAMES && p->cycles) info->flags |= CGPROP_RI_PLAIN_CYCLES;
    info->parts = c->parts;
    info->lines = c->line;
    /* info is the entry point's full-size copy: totals holds CGPROP_MAX_METRICS entries. */
    if (c->any_totals) memcpy(info->totals, c->totals, sizeof(uint64_t) * c->K);
}

/* Pass 2: names, recursion classes, the final graph (p->g is freed by the
 * caller on error). */
static int finish(cg *c, pass2 *p, cgprop_graph **out, cgprop_read_info *info)
{
    int rc;
    if ((rc = base_functions(c, p))) return rc;
    /* Recursion among plain names: self-calls and cycles of the base graph. */
    if ((rc = plain_cycles(c, p, &p->plain_self, &p->cycles))) return rc;
    choose_mode(c, p);
    if ((rc = final_functions(c, p)) || (rc = stage_calls(c, p))) return rc;
    if (info) fill_info(c, p, info);
    *out = p->g;
    p->g = NULL;
    return CGPROP_OK;
}


int cgprop__cg_assemble(cg *c, cgprop_graph **out, cgprop_read_info *info)
{
    pass2 p;
    memset(&p, 0, sizeof p);
    int rc = finish(c, &p, out, info);
    cgprop__mem_free(&c->mem, p.rn); /* and bid, fid */
    cgprop__mem_free(&c->mem, p.binex);
    cgprop__mem_free(&c->mem, p.ends);
    cgprop__mem_free(&c->mem, p.cls);
    cgprop_graph_free(p.bg);
    cgprop_graph_free(p.g);
    return rc;
}
