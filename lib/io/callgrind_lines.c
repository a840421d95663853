/* Callgrind reader: the general line parser, every line of the grammar
 * (callgrind.h has the map of the reader). */
#include "callgrind.h"

#include <stdio.h>

/* ---- parts and metrics ---- */

static int add_totals(cg *c, uint64_t *dst, const uint64_t *src)
{
    for (uint32_t k = 0; k < c->K; k++)
        if (dst[k] > UINT64_MAX - src[k]) return fail(c, CGPROP_EOVERFLOW, "%s", "program totals overflow");
    for (uint32_t k = 0; k < c->K; k++) dst[k] += src[k];
    return CGPROP_OK;
}

int cgprop__cg_end_part(cg *c)
{
    if (!c->part_started) return CGPROP_OK;
    if (c->part_events) {
        c->parts++;
        int rc = CGPROP_OK;
        if (c->has_totals) rc = add_totals(c, c->totals, c->part_totals);
        else if (c->has_summary) rc = add_totals(c, c->totals, c->part_summary);
        if (rc) return rc;
        if (c->has_totals || c->has_summary) c->any_totals = true;
    }
    c->part_started = false;
    c->part_events = false;
    c->has_totals = c->has_summary = false;
    memset(c->part_totals, 0, sizeof c->part_totals);
    memset(c->part_summary, 0, sizeof c->part_summary);
    c->npos = 1;
    memset(c->last, 0, sizeof c->last);
    c->ob = c->fl = c->fi = c->fn = c->fn_ob = c->fn_fl = NONE_SID;
    c->cob = c->cfi = c->cfn = NONE_SID;
    c->cur_raw = UINT32_MAX;
    c->fn_id = c->cfn_id = NONE_SID;
    return CGPROP_OK;
}

static int parse_events(cg *c, const char *v, size_t n)
{
    const char *names[CGPROP_MAX_METRICS];
    size_t lens[CGPROP_MAX_METRICS];
    uint32_t cnt = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && cgprop__is_space(v[i])) i++;
        if (i == n) break;
        size_t j = i;
        while (j < n && !cgprop__is_space(v[j])) j++;
        if (cnt == CGPROP_MAX_METRICS) return fail(c, CGPROP_EFORMAT, "%s", "more than 64 events");
        names[cnt] = v + i;
        lens[cnt] = j - i;
        cnt++;
        i = j;
    }
    if (cnt == 0) return fail(c, CGPROP_EFORMAT, "%s", "events: line names no event");
    for (uint32_t a = 0; a < cnt; a++)
        for (uint32_t b = 0; b < a; b++)
            if (lens[a] == lens[b] && memcmp(names[a], names[b], lens[a]) == 0)
                return fail(c, CGPROP_EFORMAT, "%s", "events: line names an event twice");
    if (!c->raw) {
        int rc = cgprop_graph_new(c->alloc, names, lens, cnt, &c->raw);
        /* The names are distinct words: what cgprop_graph_new() can still
         * refuse is a control byte inside one. */
        if (rc == CGPROP_ENOMEM) return fail(c, rc, "%s", "out of memory");
        if (rc) return fail(c, CGPROP_EFORMAT, "%s", "an event name holds a control byte");
        c->K = cnt;
        for (uint32_t k = 0; k < cnt; k++) c->colmap[k] = k;
    } else {
        for (uint32_t k = 0; k < cnt; k++) {
            uint32_t m;
            if (cgprop_graph_find_metric(c->raw, names[k], lens[k], &m) != CGPROP_OK) {
                char ex[68];
                cgprop__excerpt(ex, names[k], lens[k], 64);
                return fail(c, CGPROP_EFORMAT, "event %s is not among the first part's events", ex);
            }
            c->colmap[k] = m;
        }
    }
    c->ncols = cnt;
    c->map_identity = true;
    for (uint32_t k = 0; k < cnt; k++) c->map_identity &= c->colmap[k] == k;
    c->part_events = true;
    return CGPROP_OK;
}

static int parse_positions(cg *c, const char *v, size_t n)
{
    uint32_t np = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && cgprop__is_space(v[i])) i++;
        if (i == n) break;
        size_t j = i;
        while (j < n && !cgprop__is_space(v[j])) j++;
        size_t l = j - i;
        if (!((l == 5 && memcmp(v + i, "instr", 5) == 0) || (l == 4 && memcmp(v + i, "line", 4) == 0) ||
              (l == 2 && memcmp(v + i, "bb", 2) == 0)))
            return fail(c, CGPROP_EFORMAT, "%s", "positions: expects instr, bb and line");
        if (np == 3) return fail(c, CGPROP_EFORMAT, "%s", "positions: names more than three kinds");
        np++;
        i = j;
    }
    c->npos = np ? np : 1;
    memset(c->last, 0, sizeof c->last);
    return CGPROP_OK;
}

/* A list of costs (summary:, totals:) in event order. */
static int parse_cost_list(cg *c, const char *v, size_t n, uint64_t *dst)
{
    if (!c->part_events) return fail(c, CGPROP_EFORMAT, "%s", "totals or summary before events:");
    size_t i = 0;
    uint32_t col = 0;
    memset(dst, 0, sizeof(uint64_t) * CGPROP_MAX_METRICS);
    for (;;) {
        while (i < n && cgprop__is_space(v[i])) i++;
        if (i == n) break;
        if (col == c->ncols) return fail(c, CGPROP_EFORMAT, "%s", "more values than events");
        uint64_t x;
        int nr = cgprop__parse_u64(v, n, &i, true, &x);
        if (nr == CGPROP__NUM_OVERFLOW) return fail(c, CGPROP_EOVERFLOW, "%s", "number too large");
        if (nr != CGPROP__NUM_OK || (i < n && !cgprop__is_space(v[i])))
            return fail(c, CGPROP_EFORMAT, "%s", "bad number");
        dst[c->colmap[col++]] = x;
    }
    return CGPROP_OK;
}

/* ---- positions and costs ---- */

/* One subposition at s[*i]: "*", "+N", "-N", N or 0xN, relative to base. */
static int parse_subpos(cg *c, const char *s, size_t n, size_t *i, uint64_t base, uint64_t *out)
{
    size_t j = *i;
    uint64_t v;
    int nr;
    if (s[j] == '*') {
        *out = base;
        *i = j + 1;
        return CGPROP_OK;
    }
    if (s[j] == '+' || s[j] == '-') {
        size_t k = j + 1;
        nr = num(s, n, &k, &v);
        if (nr == CGPROP__NUM_OVERFLOW) return fail(c, CGPROP_EOVERFLOW, "%s", "position too large");
        if (nr != CGPROP__NUM_OK) return fail(c, CGPROP_EFORMAT, "%s", "bad position");
        if (s[j] == '+') {
            if (base > UINT64_MAX - v) return fail(c, CGPROP_EOVERFLOW, "%s", "position too large");
            *out = base + v;
        } else {
            *out = v > base ? 0 : base - v; /* clamped, as KCachegrind does */
        }
        *i = k;
        return CGPROP_OK;
    }
    nr = num(s, n, &j, &v);
    if (nr == CGPROP__NUM_OVERFLOW) return fail(c, CGPROP_EOVERFLOW, "%s", "position too large");
    if (nr != CGPROP__NUM_OK) return fail(c, CGPROP_EFORMAT, "%s", "bad position");
    *out = v;
    *i = j;
    return CGPROP_OK;
}

/* A cost line: positions, then up to ncols costs into c->costs (by metric). */
static int parse_cost_line(cg *c, const char *s, size_t n)
{
    size_t i = 0;
    uint64_t pos[3];
    for (uint32_t p = 0; p < c->npos; p++) {
        while (i < n && cgprop__is_space(s[i])) i++;
        if (i == n) return fail(c, CGPROP_EFORMAT, "%s", "cost line has fewer positions than positions: says");
        int rc = parse_subpos(c, s, n, &i, c->last[p], &pos[p]);
        if (rc) return rc;
        if (i < n && !cgprop__is_space(s[i])) return fail(c, CGPROP_EFORMAT, "%s", "bad position");
    }
    memcpy(c->last, pos, sizeof(uint64_t) * c->npos);
    for (uint32_t k = 0; k < c->K; k++) c->costs[k] = 0;
    uint32_t col = 0;
    for (;;) {
        while (i < n && cgprop__is_space(s[i])) i++;
        if (i == n) break;
        if (col == c->ncols) return fail(c, CGPROP_EFORMAT, "%s", "cost line has more costs than events");
        uint64_t x;
        int nr = num(s, n, &i, &x);
        if (nr == CGPROP__NUM_OVERFLOW) return fail(c, CGPROP_EOVERFLOW, "%s", "cost too large");
        if (nr != CGPROP__NUM_OK || (i < n && !cgprop__is_space(s[i])))
            return fail(c, CGPROP_EFORMAT, "%s", "bad cost");
        c->costs[c->colmap[col++]] = x;
    }
    return CGPROP_OK;
}



/* A new raw function (ob, fl, fn), known to be absent. Room first: a failure must
 * leave no function without its self costs or out of its name's reach
 * (the fast path gives up on a failure and the general parser tries again;
 * it would trust what it finds). */
CG_NOINLINE int cgprop__cg_raw_new(cg *c, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
    if (c->nraw >= UINT32_MAX - 1) return fail(c, CGPROP_EOVERFLOW, "%s", "too many functions");
    if (c->nraw >= c->rself_cap) {
        size_t cap = c->rself_cap ? c->rself_cap * 2 : c->est_fn;
        uint64_t *p = cgprop__mem_realloc(&c->mem, c->rself, cap, (size_t)c->K * sizeof *p);
        if (!p) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
        memset(p + c->rself_cap * c->K, 0, (cap - c->rself_cap) * c->K * sizeof *p);
        c->rself = p;
        c->rself_cap = cap;
    }
    if (c->nraw == c->rkeycap) {
        uint32_t cap = c->rkeycap ? (c->rkeycap > UINT32_MAX / 2 ? UINT32_MAX : c->rkeycap * 2) : c->est_fn;
        struct raw_key *k = cgprop__mem_realloc(&c->mem, c->rkey, cap, sizeof *k);
        if (!k) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
        c->rkey = k;
        c->rkeycap = cap;
    }
    uint32_t first = c->sent[fn].raw;
    if (first != NONE_SID && cgprop__cg_tset_reserve(c, &c->rset)) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
    uint32_t id = c->nraw++;
    c->rkey[id].ob = ob;
    c->rkey[id].fl = fl;
    c->rkey[id].fn = fn;
    c->rkey[id].more = 0;
    if (first == NONE_SID) {
        c->sent[fn].raw = id;
    } else {
        c->rkey[first].more = 1;
        tset_put(&c->rset, raw_hash(ob, fl, fn), id);
    }
    *out = id;
    return CGPROP_OK;
}

static int raw_node(cg *c, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
    return raw_find(c, ob, fl, fn, out) ? CGPROP_OK : cgprop__cg_raw_new(c, ob, fl, fn, out);
}

/* Room for more calls, staged in the graph being built (c->raw): the calls
 * as read are its call arrays, so no second copy is written (or faulted in)
 * when they are added. Their addresses move as they grow. */
static int calls_grow(cg *c)
{
    uint64_t cap = c->calls_cap ? (uint64_t)c->calls_cap * 2 : c->est_calls;
    if (cap > UINT32_MAX - 1) cap = UINT32_MAX - 1;
    int rc = cap > c->calls_cap ? cgprop__stage_edges(c->raw, (uint32_t)cap) : CGPROP_EOVERFLOW;
    if (rc) return fail(c, rc, "%s", rc == CGPROP_ENOMEM ? "out of memory" : "too many calls");
    cgprop_graph *g = c->raw;
    c->ccaller = g->ecaller;
    c->ccallee = g->ecallee;
    c->ccount = g->ecount;
    c->ccost = g->ecost;
    c->calls_cap = g->ecap;
    return CGPROP_OK;
}

static int push_call(cg *c, uint32_t from, uint32_t to, uint64_t count, const uint64_t *costs)
{
    if (c->ncalls == c->calls_cap) {
        int rc = calls_grow(c);
        if (rc) return rc;
    }
    size_t i = c->ncalls++;
    c->ccaller[i] = from;
    c->ccallee[i] = to;
    c->ccount[i] = count;
    memcpy(c->ccost + i * c->K, costs, (size_t)c->K * sizeof *costs);
    return CGPROP_OK;
}

int cgprop__cg_current_fn(cg *c)
{
    if (c->cur_raw != UINT32_MAX) return CGPROP_OK;
    if (c->fn == NONE_SID) return fail(c, CGPROP_EFORMAT, "%s", "cost or call before any fn=");
    return raw_node(c, c->fn_ob, c->fn_fl, c->fn, &c->cur_raw);
}

static int cost_line(cg *c, const char *s, size_t n)
{
    if (!c->part_events) return fail(c, CGPROP_EFORMAT, "%s", "cost line before events:");
    int rc = parse_cost_line(c, s, n);
    if (rc) return rc;
    int pend = c->pending;
    c->pending = PEND_NONE;
    if (pend == PEND_JUMP) return CGPROP_OK; /* position only; any costs are not self costs */
    rc = cgprop__cg_current_fn(c);
    if (rc) return rc;
    if (pend == PEND_CALL) {
        c->cob = c->cfi = NONE_SID;
        return push_call(c, c->cur_raw, c->call_callee, c->call_count, c->costs);
    }
    uint64_t *self = c->rself + (size_t)c->cur_raw * c->K;
    if (!cgprop__can_add(self, c->costs, c->K)) return fail(c, CGPROP_EOVERFLOW, "%s", "cost sum overflows 64 bits");
    cgprop__add(self, c->costs, c->K);
    uint64_t vor = 0;
    for (uint32_t k = 0; k < c->K; k++) vor |= c->costs[k];
    c->gbound = c->gbound > UINT64_MAX - vor ? UINT64_MAX : c->gbound + vor;
    return CGPROP_OK;
}

/* Target positions of calls=/jump=/jcnd=: checked, base not updated.
 * Xdebug writes one number more than its "positions: line" asks for
 * ("calls=1 0 0"); KCachegrind and callgrind_annotate read the positions
 * they expect and ignore the rest of the line, and so does this. */
static int skip_targets(cg *c, const char *s, size_t n, size_t i)
{
    uint32_t cnt = 0;
    for (;;) {
        while (i < n && cgprop__is_space(s[i])) i++;
        if (i == n || cnt == c->npos) break;
        uint64_t v;
        int rc = parse_subpos(c, s, n, &i, c->last[cnt], &v);
        if (rc) return rc;
        if (i < n && !cgprop__is_space(s[i])) return fail(c, CGPROP_EFORMAT, "%s", "bad target position");
        cnt++;
    }
    if (cnt == 0) return fail(c, CGPROP_EFORMAT, "%s", "missing target position");
    return CGPROP_OK;
}

int cgprop__cg_calls_line(cg *c, const char *v, size_t n)
{
    if (!c->part_events) return fail(c, CGPROP_EFORMAT, "%s", "calls= before events:");
    size_t i = 0;
    uint64_t count;
    int nr = num(v, n, &i, &count);
    if (nr == CGPROP__NUM_OVERFLOW) return fail(c, CGPROP_EOVERFLOW, "%s", "call count too large");
    if (nr != CGPROP__NUM_OK || (i < n && !cgprop__is_space(v[i])))
        return fail(c, CGPROP_EFORMAT, "%s", "bad call count");
    int rc = skip_targets(c, v, n, i);
    if (rc) return rc;
    if (c->cfn == NONE_SID) return fail(c, CGPROP_EFORMAT, "%s", "calls= without cfn=");
    if (c->plus1 && count-- == 0) return fail(c, CGPROP_EFORMAT, "%s", "calls=0 where every count is one more");
    rc = cgprop__cg_current_fn(c);
    if (rc) return rc;
    /* Callee object defaults to the caller's, its file to the current one. */
    uint32_t ob = c->cob != NONE_SID ? c->cob : c->fn_ob;
    uint32_t fl = c->cfi != NONE_SID ? c->cfi : c->fi;
    rc = raw_node(c, ob, fl, c->cfn, &c->call_callee);
    if (rc) return rc;
    c->call_count = count;
    c->pending = PEND_CALL;
    c->pend_line = c->line;
    return CGPROP_OK;
}

static int jump_line(cg *c, const char *v, size_t n, bool cond)
{
    size_t i = 0;
    uint64_t x;
    int nr = cgprop__parse_u64(v, n, &i, true, &x);
    if (nr == CGPROP__NUM_OK && cond && i < n && (v[i] == '/' || cgprop__is_space(v[i]))) {
        i++;
        nr = cgprop__parse_u64(v, n, &i, true, &x);
    }
    if (nr == CGPROP__NUM_OVERFLOW) return fail(c, CGPROP_EOVERFLOW, "%s", "jump count too large");
    if (nr != CGPROP__NUM_OK || (i < n && !cgprop__is_space(v[i])))
        return fail(c, CGPROP_EFORMAT, "%s", "bad jump count");
    int rc = skip_targets(c, v, n, i);
    if (rc) return rc;
    c->pending = PEND_JUMP;
    c->pend_line = c->line;
    return CGPROP_OK;
}

static bool key_is(const char *s, size_t klen, const char *k)
{
    return strlen(k) == klen && memcmp(s, k, klen) == 0;
}

static int part_boundary(cg *c)
{
    /* KCachegrind's rule: these headers open a new part once events: was seen. */
    if (c->part_events) return cgprop__cg_end_part(c);
    return CGPROP_OK;
}

/* The weights of cgprop's desc: line for stacks cut short, once the part's
 * events are known; summed over parts. */
static int stated_unrooted(cg *c)
{
    uint64_t w[CGPROP_MAX_METRICS];
    int rc = parse_cost_list(c, c->unrooted_v, c->unrooted_n, w);
    c->unrooted_v = NULL;
    if (rc) return rc;
    for (uint32_t k = 0; k < CGPROP_MAX_METRICS; k++)
        if (!cgprop__sat_add(&c->unrooted[k], w[k])) c->unrooted[k] = UINT64_MAX;
    c->any_unrooted = true;
    return CGPROP_OK;
}

static int header_line(cg *c, const char *s, size_t klen, const char *v, size_t n)
{
    int rc;
    if (key_is(s, klen, "events")) {
        rc = part_boundary(c);
        if (rc) return rc;
        c->part_started = true;
        rc = parse_events(c, v, n);
        if (!rc && c->unrooted_v) rc = stated_unrooted(c);
        return rc;
    }
    if (key_is(s, klen, "positions")) {
        rc = part_boundary(c);
        if (rc) return rc;
        c->part_started = true;
        return parse_positions(c, v, n);
    }
    if (key_is(s, klen, "part") || key_is(s, klen, "pid") || key_is(s, klen, "thread")) {
        rc = part_boundary(c);
        if (rc) return rc;
        c->part_started = true;
        return CGPROP_OK;
    }
    if (key_is(s, klen, "summary")) {
        rc = parse_cost_list(c, v, n, c->part_summary);
        c->has_summary = rc == CGPROP_OK;
        return rc;
    }
    if (key_is(s, klen, "totals")) {
        rc = parse_cost_list(c, v, n, c->part_totals);
        c->has_totals = rc == CGPROP_OK;
        return rc;
    }
    if (key_is(s, klen, "desc") && n == sizeof CGPROP__DESC_PLUS1 - 1 && memcmp(v, CGPROP__DESC_PLUS1, n) == 0)
        c->plus1 = true;
    if (key_is(s, klen, "desc") && n >= sizeof CGPROP__DESC_UNROOTED - 1 &&
        memcmp(v, CGPROP__DESC_UNROOTED, sizeof CGPROP__DESC_UNROOTED - 1) == 0) {
        size_t p = sizeof CGPROP__DESC_UNROOTED - 1;
        c->unrooted_v = v + p;
        c->unrooted_n = n - p;
        if (c->part_events) return stated_unrooted(c);
        /* Read once events: says what they are, maybe lines (and pieces of
         * the text) later. */
        char *copy = cgprop__mem_realloc(&c->mem, c->unrooted_copy, n - p + 1, 1);
        if (!copy) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
        memcpy(copy, v + p, n - p);
        c->unrooted_copy = copy;
        c->unrooted_v = copy;
    }
    if (key_is(s, klen, "creator")) c->creator = true;
    /* version, cmd, other desc, event (derived events carry no data), ... */
    return CGPROP_OK;
}




static int name_line(cg *c, int which, const char *v, size_t n)
{
    uint32_t sid;
    int rc = cgprop__cg_parse_name(c, nk_space[which], v, n, &sid);
    if (!rc) name_set(c, which, sid);
    return rc;
}

static int spec_line(cg *c, const char *s, size_t klen, const char *v, size_t n)
{
    uint32_t sid;
    /* Ordered by frequency in real files. */
    if (key_is(s, klen, "calls")) return cgprop__cg_calls_line(c, v, n);
    if (key_is(s, klen, "cfn")) return name_line(c, NK_CFN, v, n);
    if (key_is(s, klen, "fn")) return name_line(c, NK_FN, v, n);
    if (key_is(s, klen, "fi") || key_is(s, klen, "fe")) return name_line(c, NK_FI, v, n);
    if (key_is(s, klen, "cfi") || key_is(s, klen, "cfl")) return name_line(c, NK_CFI, v, n);
    if (key_is(s, klen, "cob")) return name_line(c, NK_COB, v, n);
    if (key_is(s, klen, "fl")) return name_line(c, NK_FL, v, n);
    if (key_is(s, klen, "ob")) return name_line(c, NK_OB, v, n);
    if (key_is(s, klen, "jump")) return jump_line(c, v, n, false);
    if (key_is(s, klen, "jcnd")) return jump_line(c, v, n, true);
    /* Read for their name definitions only. */
    if (key_is(s, klen, "jfi")) return cgprop__cg_parse_name(c, SP_FILE, v, n, &sid);
    if (key_is(s, klen, "jfn")) return cgprop__cg_parse_name(c, SP_FN, v, n, &sid);
    /* rec=, frfn=, ln=, bb= and unknown keys: ignored. */
    return CGPROP_OK;
}

int cgprop__cg_parse_line(cg *c, const char *s, size_t n)
{
    while (n && cgprop__is_space(*s)) {
        s++;
        n--;
    }
    if (c->pending != PEND_NONE) {
        if (n && (cgprop__is_digit(s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '*')) return cost_line(c, s, n);
        c->line = c->pend_line;
        return fail(c, CGPROP_EFORMAT, "%s",
                    c->pending == PEND_CALL ? "calls= line not followed by its cost line"
                                            : "jump line not followed by its position line");
    }
    if (n == 0 || s[0] == '#') return CGPROP_OK;
    char ch = s[0];
    if (cgprop__is_digit(ch) || ch == '+' || ch == '-' || ch == '*') return cost_line(c, s, n);
    size_t k = 0;
    while (k < n && k < 16 && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') || s[k] == '_')) k++;
    if (k == 0 || k == n) return CGPROP_OK; /* unknown line: ignored */
    if (s[k] == '=') return spec_line(c, s, k, s + k + 1, n - k - 1);
    if (s[k] == ':') {
        size_t i = k + 1;
        while (i < n && cgprop__is_space(s[i])) i++;
        return header_line(c, s, k, s + i, n - i);
    }
    return CGPROP_OK; /* "timeframe (BB):" and other unknown lines: ignored */
}
