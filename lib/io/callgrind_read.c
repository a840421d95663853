/* Callgrind reader (format: docs/READERS.md and the callgrind format
 * reference). Two passes, both linear:
 *  1. parse every line into "raw" functions, the names as written (fa, fa'2,
 *     fa'2'fb'fa ...) keyed by (object, file, name), their self costs and
 *     the calls between them; most lines on a fast path (see "fast path");
 *  2. decide how the file encodes recursion, then fold raw functions into the
 *     final graph with their recursion classes.
 * The raw pass must see the whole file first because one fn'2 anywhere
 * changes the meaning of every plain self-call. */
#include "io_util.h"
#include "util/scc.h"

#include <stdio.h>

#define NONE_SID UINT32_MAX

#if defined(__GNUC__)
#define ALWAYS_INLINE static inline __attribute__((always_inline))
/* Rare paths out of the line loop, so they take no registers from it. */
#define NOINLINE static __attribute__((noinline))
#else
#define ALWAYS_INLINE static inline
#define NOINLINE static
#endif

/* Id spaces of name compression. */
enum { SP_OBJ = 0, SP_FILE = 1, SP_FN = 2 };
static const char *const space_name[3] = {"object", "file", "function"};

/* What the next line must be. */
enum { PEND_NONE = 0, PEND_CALL = 1, PEND_JUMP = 2 };

/* Recursion indices above this are taken as part of the name. */
#define MAX_REC_INDEX 1000000000u

typedef struct cg {
    const cgprop_read_options *opts;
    cgprop_read_error *err;
    const cgprop_allocator *alloc;
    cgprop_graph *mem;  /* no functions: the allocator everything else goes through */
    cgprop_graph *ids;  /* (space, compressed id) -> slot into idsid */
    cgprop_graph *raw;  /* the graph being built, created at the first events: (metrics, staged calls) */

    /* Interned names: bytes in sbuf (moves as it grows: a pointer from
     * str_of() lasts until the next intern), string id -> (offset, length,
     * first raw function of that name or NONE_SID). */
    char *sbuf;
    size_t sused, scap;
    struct str_ent {
        size_t off;
        uint32_t len, raw;
    } *sent;
    uint32_t nstr, sentcap;
    /* Raw functions: (object, file, name) string ids per raw id, and for
     * the first raw function of a name whether others share the name. */
    struct raw_key {
        uint32_t ob, fl, fn, more;
    } *rkey;
    uint32_t nraw, rkeycap;
    /* Hash sets over the names and over the raw functions that are not the
     * first of their name (see tset, raw_find). */
    struct tset {
        uint64_t *slot;
        uint32_t cap, n;
    } sset, rset;
    uint32_t *idsid;
    size_t idsid_cap;
    /* Callgrind's ids are small and dense: a direct table per space (string
     * id + 1, 0 = undefined); ids too large for it go to the hash. */
    uint32_t *dir[3]; /* objects and files; functions use fdir */
    size_t dircap[3];
    /* Functions: the string id + 1, and the raw function last found for it
     * with its object and file (a call line's callee in the same cache line
     * as its name, no second look-up). */
    struct fn_entry {
        uint32_t sid1, raw, ob, fl;
    } *fdir;
    size_t fdircap;
    bool any_hashed_id;
    /* Self costs per raw function, and every call line as read: the call
     * arrays of raw (staged there, see calls_grow), with raw functions' ids
     * until finish() puts the final ones in their place. */
    uint64_t *rself;
    size_t rself_cap; /* in functions */
    uint32_t *ccaller, *ccallee;
    uint64_t *ccount, *ccost;
    size_t ncalls, calls_cap;
    char *scratch;
    size_t scratch_cap;
    uint64_t line;
    const char *data, *end; /* the input */
    int fast_rc;     /* an error met on the fast path (see fast_cur) */
    /* First capacities of the per-name and per-call arrays, from the input's
     * size (valgrind writes a function per kilobyte or so, a call per
     * hundred or so): most inputs grow nothing, so nothing is copied or
     * rehashed. Powers of two; at most a fraction of the input's size. */
    uint32_t est_fn, est_calls;

    /* current part */
    bool part_events;              /* events: seen in this part */
    bool part_started;             /* anything belonging to a part seen */
    uint32_t ncols;                /* events in this part */
    uint32_t colmap[CGPROP_MAX_METRICS];
    bool map_identity; /* colmap[k] == k for every column */
    uint32_t npos;
    uint64_t last[3];
    uint64_t part_totals[CGPROP_MAX_METRICS];
    uint64_t part_summary[CGPROP_MAX_METRICS];
    bool has_totals, has_summary;

    /* whole file */
    uint32_t K;
    uint64_t totals[CGPROP_MAX_METRICS];
    bool any_totals;
    uint64_t parts;

    /* name state (string ids) */
    uint32_t ob, fl, fi, fn;
    uint32_t fn_ob, fn_fl; /* object and file of the current function */
    uint32_t cob, cfi, cfn;
    uint32_t cur_raw; /* raw node of the current function, resolved lazily */
    uint32_t fn_id, cfn_id; /* their compressed ids when the fast path read them, else NONE_SID */

    /* Self costs of the current function not yet in rself: its line is
     * fetched when the function starts and written when it ends, instead of
     * a miss on the first cost line. gbound, Σ over the self cost lines of
     * the bitwise or of their costs (saturated), is at least every sum of
     * self costs, so while it does not overflow no sum does, and no line
     * needs rself to check. */
    uint32_t acc_raw;
    uint64_t acc[CGPROP_MAX_METRICS];
    uint64_t gbound;

    bool plus1; /* the writer's desc: line: every count is one more (CGPROP__DESC_PLUS1) */
    int pending;
    uint64_t pend_line;
    uint64_t call_count;
    uint32_t call_callee;
    uint64_t costs[CGPROP_MAX_METRICS];
} cg;

static int fail(cg *c, int code, const char *fmt, const char *arg)
{
    return cgprop__read_fail(c->err, code, c->line, fmt, arg);
}

/* cgprop__parse_u64 with hex allowed, for the numbers of cost, position and
 * calls= lines (most of the input): up to 19 decimal digits cannot
 * overflow, so the overflow test only runs from the 20th digit on. */
static inline int num(const char *s, size_t n, size_t *i, uint64_t *out)
{
    size_t j = *i;
    if (j + 1 < n && s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X')) return cgprop__parse_u64(s, n, i, true, out);
    size_t lim = n - j < 19 ? n : j + 19;
    uint64_t v = 0;
    while (j < lim) {
        unsigned d = (unsigned)(unsigned char)s[j] - '0';
        if (d > 9) break;
        v = v * 10 + d;
        j++;
    }
    if (j == *i) return CGPROP__NUM_NONE;
    if (j < n && cgprop__is_digit(s[j])) return cgprop__parse_u64(s, n, i, false, out);
    *i = j;
    *out = v;
    return CGPROP__NUM_OK;
}

/* ---- scratch memory (through the strings graph's allocator) ---- */

static int scratch_reserve(cg *c, size_t need)
{
    if (need <= c->scratch_cap) return CGPROP_OK;
    size_t cap = c->scratch_cap ? c->scratch_cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "name too long");
        cap *= 2;
    }
    char *p = cgprop__realloc(c->mem, c->scratch, cap, 1);
    if (!p) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
    c->scratch = p;
    c->scratch_cap = cap;
    return CGPROP_OK;
}

/* ---- hash sets with the tag in the slot ----
 *
 * A slot holds (32-bit hash << 32) | (id + 1), 0 when empty; the hash also
 * gives the home slot, so growing never looks at the keys, and a probe
 * looks at a key only when its hash matches: one cache miss per look-up
 * where a table of bare ids has one per occupied slot it passes (names of
 * one length are common: function_1234_impl). At most half full. */

/* Room for one more entry; CGPROP_ENOMEM if there is none. */
static int tset_reserve(cg *c, struct tset *t)
{
    if ((uint64_t)t->n * 2 + 2 <= t->cap) return CGPROP_OK;
    if (t->cap >= 0x80000000u) return CGPROP_ENOMEM;
    uint32_t ncap = t->cap ? t->cap * 2 : 2 * c->est_fn, mask = ncap - 1;
    uint64_t *ns = cgprop__calloc(c->mem, ncap, sizeof *ns);
    if (!ns) return CGPROP_ENOMEM;
    for (uint32_t i = 0; i < t->cap; i++) {
        uint64_t v = t->slot[i];
        if (!v) continue;
        uint32_t j = (uint32_t)(v >> 32) & mask;
        while (ns[j]) j = (j + 1) & mask;
        ns[j] = v;
    }
    cgprop__free(c->mem, t->slot);
    t->slot = ns;
    t->cap = ncap;
    return CGPROP_OK;
}

static void tset_put(struct tset *t, uint32_t h, uint32_t id)
{
    uint32_t mask = t->cap - 1, j = h & mask;
    while (t->slot[j]) j = (j + 1) & mask;
    t->slot[j] = (uint64_t)h << 32 | ((uint64_t)id + 1);
    t->n++;
}

static uint32_t str_hash(const char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

static const char *str_of(const cg *c, uint32_t sid, size_t *len)
{
    *len = c->sent[sid].len;
    return c->sbuf + c->sent[sid].off;
}

/* ---- strings ---- */

/* A string id for the name s[0 .. n). With `dedupe`, the same bytes always
 * get the same id; without, a new id, and the name set is not looked at.
 * Function names defined with a compressed id are interned without: the
 * ids already make a name one string (callgrind defines each once a part),
 * and raw functions that do share a name meet in pass 2, whose function
 * keys are the names' bytes. Sparing the probe spares a cache miss a name. */
static int intern_as(cg *c, const char *s, size_t n, bool dedupe, uint32_t *out)
{
    /* Keys show the name after the last TAB, so names must hold none. */
    if (memchr(s, '\t', n)) {
        int rc = scratch_reserve(c, n);
        if (rc) return rc;
        for (size_t i = 0; i < n; i++) c->scratch[i] = s[i] == '\t' ? ' ' : s[i];
        s = c->scratch;
    }
    uint32_t h = dedupe ? str_hash(s, n) : 0;
    struct tset *t = &c->sset;
    if (dedupe && t->cap) {
        uint32_t mask = t->cap - 1;
        for (uint32_t j = h & mask; t->slot[j]; j = (j + 1) & mask) {
            uint64_t v = t->slot[j];
            if ((uint32_t)(v >> 32) != h) continue;
            uint32_t id = (uint32_t)v - 1;
            if (c->sent[id].len == n && memcmp(c->sbuf + c->sent[id].off, s, n) == 0) {
                *out = id;
                return CGPROP_OK;
            }
        }
    }
    /* The limits of a graph's keys, which these names become part of. */
    if (n > UINT32_MAX - 1 || c->nstr >= UINT32_MAX - 1)
        return cgprop__read_fail(c->err, n > UINT32_MAX - 1 ? CGPROP_EINVAL : CGPROP_EOVERFLOW, c->line,
                                 "too many distinct names");
    if (c->nstr == c->sentcap) {
        uint32_t cap = c->sentcap ? (c->sentcap > UINT32_MAX / 2 ? UINT32_MAX : c->sentcap * 2) : c->est_fn;
        struct str_ent *e = cgprop__realloc(c->mem, c->sent, cap, sizeof *e);
        if (!e) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->sent = e;
        c->sentcap = cap;
    }
    if (!c->sbuf || c->scap - c->sused < n) { /* allocated even for an empty first name */
        size_t cap = c->scap ? c->scap : 32 * (size_t)c->est_fn;
        while (cap - c->sused < n) {
            if (cap > SIZE_MAX / 2) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
            cap *= 2;
        }
        char *b = cgprop__realloc(c->mem, c->sbuf, cap, 1);
        if (!b) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->sbuf = b;
        c->scap = cap;
    }
    if (dedupe && tset_reserve(c, t)) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
    uint32_t id = c->nstr++;
    memcpy(c->sbuf + c->sused, s, n);
    c->sent[id].off = c->sused;
    c->sent[id].len = (uint32_t)n;
    c->sent[id].raw = NONE_SID;
    c->sused += n;
    if (dedupe) tset_put(t, h, id);
    *out = id;
    return CGPROP_OK;
}

static int intern(cg *c, const char *s, size_t n, uint32_t *out) { return intern_as(c, s, n, true, out); }

static void id_key(char key[5], int space, uint32_t id)
{
    key[0] = (char)space;
    memcpy(key + 1, &id, 4);
}

/* Direct-table bound: memory stays proportional to the input read so far,
 * at most 64 bytes per line (a function id's entry is 16 bytes, the others
 * 4). Callgrind numbers names from 1 as it first writes them, far below. */
static bool id_direct(const cg *c, int space, uint32_t id)
{
    uint64_t per_line = space == SP_FN ? 4 : 16;
    return id < (1u << 16) + per_line * c->line;
}

static int id_define(cg *c, int space, uint32_t id, uint32_t sid)
{
    if (space == SP_FN && id_direct(c, space, id)) {
        if (id >= c->fdircap) {
            size_t cap = c->fdircap ? c->fdircap : c->est_fn;
            while (cap <= id) cap *= 2;
            struct fn_entry *p = cgprop__realloc(c->mem, c->fdir, cap, sizeof *p);
            if (!p) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
            memset(p + c->fdircap, 0, (cap - c->fdircap) * sizeof *p);
            c->fdir = p;
            c->fdircap = cap;
        }
        c->fdir[id].sid1 = sid + 1; /* a redefinition wins, as in KCachegrind */
        c->fdir[id].raw = UINT32_MAX;
        return CGPROP_OK;
    }
    if (id_direct(c, space, id)) {
        if (id >= c->dircap[space]) {
            size_t cap = c->dircap[space] ? c->dircap[space] : 1024;
            while (cap <= id) cap *= 2;
            uint32_t *p = cgprop__realloc(c->mem, c->dir[space], cap, sizeof *p);
            if (!p) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
            memset(p + c->dircap[space], 0, (cap - c->dircap[space]) * sizeof *p);
            c->dir[space] = p;
            c->dircap[space] = cap;
        }
        c->dir[space][id] = sid + 1; /* a redefinition wins, as in KCachegrind */
        return CGPROP_OK;
    }
    c->any_hashed_id = true;
    char key[5];
    id_key(key, space, id);
    uint32_t slot;
    /* Room first, so that no slot is ever without its string id. */
    if (c->ids->nn >= c->idsid_cap) {
        size_t cap = c->idsid_cap ? c->idsid_cap * 2 : 256;
        uint32_t *p = cgprop__realloc(c->mem, c->idsid, cap, sizeof *p);
        if (!p) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->idsid = p;
        c->idsid_cap = cap;
    }
    int rc = cgprop_graph_add_node(c->ids, key, sizeof key, &slot);
    if (rc) return cgprop__read_fail(c->err, rc == CGPROP_ENOMEM ? rc : CGPROP_EFORMAT, c->line,
                                     "cannot record name id");
    c->idsid[slot] = sid; /* a redefinition wins, as in KCachegrind */
    return CGPROP_OK;
}

static bool id_lookup(cg *c, int space, uint32_t id, uint32_t *sid)
{
    if (space == SP_FN && id < c->fdircap && c->fdir[id].sid1) {
        *sid = c->fdir[id].sid1 - 1;
        return true;
    }
    if (space != SP_FN && id < c->dircap[space] && c->dir[space][id]) {
        *sid = c->dir[space][id] - 1;
        return true;
    }
    if (!c->any_hashed_id) return false;
    char key[5];
    id_key(key, space, id);
    uint32_t slot;
    if (cgprop_graph_find_node(c->ids, key, sizeof key, &slot) != CGPROP_OK) return false;
    *sid = c->idsid[slot];
    return true;
}

/* --compress-mangled names refer to other names: "(3)'2'(5)". Expand each
 * quote-separated segment that is exactly "(id)" of a defined function. */
static int expand_mangled(cg *c, const char *s, size_t n, const char **res, size_t *res_len)
{
    size_t outlen = 0;
    size_t i = 0;
    /* Two rounds: size, then copy. Segments are short; keep it simple. */
    for (int round = 0; round < 2; round++) {
        size_t o = 0;
        i = 0;
        while (i <= n) {
            size_t j = i;
            while (j < n && s[j] != '\'') j++;
            const char *seg = s + i;
            size_t seglen = j - i;
            uint32_t sid;
            const char *rep = seg;
            size_t replen = seglen;
            if (seglen >= 3 && seg[0] == '(' && seg[seglen - 1] == ')') {
                size_t k = 1;
                uint64_t id;
                if (cgprop__parse_u64(seg, seglen - 1, &k, false, &id) == CGPROP__NUM_OK && k == seglen - 1 &&
                    id <= UINT32_MAX && id_lookup(c, SP_FN, (uint32_t)id, &sid))
                    rep = str_of(c, sid, &replen);
            }
            if (round == 1) memcpy(c->scratch + o, rep, replen);
            o += replen;
            if (j < n) {
                if (round == 1) c->scratch[o] = '\'';
                o++;
            }
            i = j + 1;
        }
        if (round == 0) {
            outlen = o;
            /* The scratch may hold s itself only if s came from it: it never does here. */
            int rc = scratch_reserve(c, outlen);
            if (rc) return rc;
        }
    }
    *res = c->scratch;
    *res_len = outlen;
    return CGPROP_OK;
}

/* Parse the value of a name line: "(id) name", "(id)" or "name". */
static int parse_name(cg *c, int space, const char *v, size_t n, uint32_t *sid)
{
    if (n >= 3 && v[0] == '(' && cgprop__is_digit(v[1])) {
        size_t i = 1;
        uint64_t id;
        int nr = cgprop__parse_u64(v, n, &i, false, &id);
        if (nr == CGPROP__NUM_OVERFLOW || (nr == CGPROP__NUM_OK && i < n && v[i] == ')' && id > UINT32_MAX))
            return fail(c, CGPROP_EFORMAT, "%s id too large", space_name[space]);
        if (nr == CGPROP__NUM_OK && i < n && v[i] == ')') {
            i++;
            while (i < n && cgprop__is_space(v[i])) i++;
            if (i == n) {
                if (!id_lookup(c, space, (uint32_t)id, sid)) {
                    char msg[96];
                    snprintf(msg, sizeof msg, "undefined %s id (%llu)", space_name[space], (unsigned long long)id);
                    return fail(c, CGPROP_EFORMAT, "%s", msg);
                }
                return CGPROP_OK;
            }
            const char *name = v + i;
            size_t len = n - i;
            int rc;
            if (space == SP_FN && len >= 3 && name[0] == '(' && cgprop__is_digit(name[1])) {
                rc = expand_mangled(c, name, len, &name, &len);
                if (rc) return rc;
            }
            rc = intern_as(c, name, len, space != SP_FN, sid);
            if (rc) return rc;
            return id_define(c, space, (uint32_t)id, *sid);
        }
    }
    return intern(c, v, n, sid);
}

/* ---- parts and metrics ---- */

static int add_totals(cg *c, uint64_t *dst, const uint64_t *src)
{
    for (uint32_t k = 0; k < c->K; k++)
        if (dst[k] > UINT64_MAX - src[k]) return fail(c, CGPROP_EOVERFLOW, "%s", "program totals overflow");
    for (uint32_t k = 0; k < c->K; k++) dst[k] += src[k];
    return CGPROP_OK;
}

static int end_part(cg *c)
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

static uint32_t raw_hash(uint32_t ob, uint32_t fl, uint32_t fn)
{
    uint64_t h = ((uint64_t)ob << 32 | fl) * 0x9E3779B97F4A7C15ull;
    h = (h ^ h >> 29 ^ fn) * 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}

/* The raw function (ob, fl, fn) if there is one. Most names belong to one
 * raw function: it is found from the name's entry (which its line has just
 * read), and only names that several (object, file) pairs share go on to
 * the hash set (bounded work whatever the input). */
static inline bool raw_find(const cg *c, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
    uint32_t r = c->sent[fn].raw;
    if (r == NONE_SID) return false;
    const struct raw_key *k = &c->rkey[r];
    if (k->ob == ob && k->fl == fl) {
        *out = r;
        return true;
    }
    if (!k->more) return false;
    uint32_t h = raw_hash(ob, fl, fn);
    const struct tset *t = &c->rset;
    uint32_t mask = t->cap - 1;
    for (uint32_t j = h & mask; t->slot[j]; j = (j + 1) & mask) {
        uint64_t v = t->slot[j];
        if ((uint32_t)(v >> 32) != h) continue;
        k = &c->rkey[(uint32_t)v - 1];
        if (k->ob == ob && k->fl == fl && k->fn == fn) {
            *out = (uint32_t)v - 1;
            return true;
        }
    }
    return false;
}

/* A new raw function (ob, fl, fn), known to be absent. Room first: a failure must
 * leave no function without its self costs or out of its name's reach
 * (the fast path gives up on a failure and the general parser tries again;
 * it would trust what it finds). */
NOINLINE int raw_new(cg *c, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out)
{
    if (c->nraw >= UINT32_MAX - 1) return fail(c, CGPROP_EOVERFLOW, "%s", "too many functions");
    if (c->nraw >= c->rself_cap) {
        size_t cap = c->rself_cap ? c->rself_cap * 2 : c->est_fn;
        uint64_t *p = cgprop__realloc(c->mem, c->rself, cap, (size_t)c->K * sizeof *p);
        if (!p) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
        memset(p + c->rself_cap * c->K, 0, (cap - c->rself_cap) * c->K * sizeof *p);
        c->rself = p;
        c->rself_cap = cap;
    }
    if (c->nraw == c->rkeycap) {
        uint32_t cap = c->rkeycap ? (c->rkeycap > UINT32_MAX / 2 ? UINT32_MAX : c->rkeycap * 2) : c->est_fn;
        struct raw_key *k = cgprop__realloc(c->mem, c->rkey, cap, sizeof *k);
        if (!k) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
        c->rkey = k;
        c->rkeycap = cap;
    }
    uint32_t first = c->sent[fn].raw;
    if (first != NONE_SID && tset_reserve(c, &c->rset)) return fail(c, CGPROP_ENOMEM, "%s", "out of memory");
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
    return raw_find(c, ob, fl, fn, out) ? CGPROP_OK : raw_new(c, ob, fl, fn, out);
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

static int current_fn(cg *c)
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
    rc = current_fn(c);
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

/* Target positions of calls=/jump=/jcnd=: checked, base not updated. */
static int skip_targets(cg *c, const char *s, size_t n, size_t i)
{
    uint32_t cnt = 0;
    for (;;) {
        while (i < n && cgprop__is_space(s[i])) i++;
        if (i == n) break;
        uint64_t v;
        if (cnt == c->npos) return fail(c, CGPROP_EFORMAT, "%s", "more target positions than positions: says");
        int rc = parse_subpos(c, s, n, &i, c->last[cnt], &v);
        if (rc) return rc;
        if (i < n && !cgprop__is_space(s[i])) return fail(c, CGPROP_EFORMAT, "%s", "bad target position");
        cnt++;
    }
    if (cnt == 0) return fail(c, CGPROP_EFORMAT, "%s", "missing target position");
    return CGPROP_OK;
}

static int calls_line(cg *c, const char *v, size_t n)
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
    rc = current_fn(c);
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
    if (c->part_events) return end_part(c);
    return CGPROP_OK;
}

static int header_line(cg *c, const char *s, size_t klen, const char *v, size_t n)
{
    int rc;
    if (key_is(s, klen, "events")) {
        rc = part_boundary(c);
        if (rc) return rc;
        c->part_started = true;
        return parse_events(c, v, n);
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
    /* version, creator, cmd, other desc, event (derived events carry no data), ... */
    return CGPROP_OK;
}

/* Name keys that set the name state. */
enum { NK_FN, NK_CFN, NK_FI, NK_CFI, NK_COB, NK_FL, NK_OB };
static const int nk_space[] = {SP_FN, SP_FN, SP_FILE, SP_FILE, SP_OBJ, SP_FILE, SP_OBJ};


/* What a name line does once its name is known; shared by the general
 * parser and the fast path (where `which` is a constant at each use, so the
 * switch is resolved when compiling, not predicted at run time). */
ALWAYS_INLINE void name_set(cg *c, int which, uint32_t sid)
{
    switch (which) {
    case NK_FN:
        c->part_started = true;
        c->fn = sid;
        c->fn_ob = c->ob;
        c->fn_fl = c->fl;
        c->fi = c->fl; /* KCachegrind restores the file on fn= */
        c->cur_raw = UINT32_MAX;
        c->cfn = NONE_SID;
        c->cob = c->cfi = NONE_SID;
        c->fn_id = c->cfn_id = NONE_SID;
        break;
    case NK_CFN:
        c->cfn = sid;
        c->cfn_id = NONE_SID;
        break;
    case NK_FI: c->fi = sid; break;
    case NK_CFI: c->cfi = sid; break;
    case NK_COB: c->cob = sid; break;
    case NK_FL: c->fl = c->fi = sid; break;
    default: c->ob = sid; break;
    }
}

static int name_line(cg *c, int which, const char *v, size_t n)
{
    uint32_t sid;
    int rc = parse_name(c, nk_space[which], v, n, &sid);
    if (!rc) name_set(c, which, sid);
    return rc;
}

static int spec_line(cg *c, const char *s, size_t klen, const char *v, size_t n)
{
    uint32_t sid;
    /* Ordered by frequency in real files. */
    if (key_is(s, klen, "calls")) return calls_line(c, v, n);
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
    if (key_is(s, klen, "jfi")) return parse_name(c, SP_FILE, v, n, &sid);
    if (key_is(s, klen, "jfn")) return parse_name(c, SP_FN, v, n, &sid);
    /* rec=, frfn=, ln=, bb= and unknown keys: ignored. */
    return CGPROP_OK;
}

static int parse_line(cg *c, const char *s, size_t n)
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

/* ---- fast path ----
 *
 * Most lines of a real file are cost lines, "calls=" lines and name lines
 * that only refer to an id ("cfn=(12)"). These are parsed here in place,
 * without first looking for the line end and without a call per number.
 * The fast path accepts a strict subset of the grammar: tokens separated by
 * one blank, decimal numbers of up to 19 digits, names already defined and
 * functions already seen, no pending jump, room left in the call arrays. On
 * anything else it returns NULL having changed nothing, and parse_line()
 * reads the line again with every rule and every error message. So the
 * grammar lives in one place; the fast path only has to agree with it on
 * what it accepts (tests/check_callgrind.c compares both on every fixture).
 *
 * Bounds: it runs only on lines that start at least FAST_MARGIN bytes before
 * the end of the input, and checks before each number that the number
 * starts there too. A token is at most a sign, 20 digits (the 20th makes it
 * bail) and two bytes of line end, so no byte past the input is read. */
#define FAST_MARGIN 64

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define FAST_SWAR 1
/* The value of the 8 digits of w (bytes in text order) that are left after
 * shifting out the others as leading zeros (simdjson's 8-digit step). */
static inline uint64_t swar_value(uint64_t x)
{
    x = x * 10 + (x >> 8);
    return (((x & 0x000000FF000000FFull) * 0x000F424000000064ull) +
            (((x >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
}
#endif

/* A decimal number of 1 to 19 digits at p: the byte after it, or NULL. */
static inline const char *fast_dec(const char *p, uint64_t *out)
{
    uint64_t v;
    unsigned d;
#ifdef FAST_SWAR
    /* Eight bytes at once: which are digits (b ^ '0' < 10, tested by adding
     * 0x76; a carry out of a non-digit byte only disturbs the bytes after
     * it), then their value. The branches depend only on "more than 8
     * digits", not on each number's length, so the mix of 1- to 6-digit
     * numbers in cost lines costs no mispredictions. */
    uint64_t w;
    memcpy(&w, p, 8);
    w ^= 0x3030303030303030ull;
    uint64_t nd = ((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull;
    if (nd & 0x80) return NULL;
    if (nd) {
        unsigned tz = (unsigned)__builtin_ctzll(nd);
        *out = swar_value(w << (64 - (tz & 56)));
        return p + (tz >> 3);
    }
    v = swar_value(w);
    const char *stop = p + 19;
    p += 8;
#else
    d = (unsigned)(unsigned char)*p - '0';
    if (d > 9) return NULL;
    v = d;
    const char *stop = p + 19;
    p++;
#endif
    for (; (d = (unsigned)(unsigned char)*p - '0') <= 9; p++) {
        if (p == stop) return NULL; /* 20 digits: overflow checks are the general parser's */
        v = v * 10 + d;
    }
    *out = v;
    return p;
}

/* A number of 1 to 19 digits at p, as fast_dec(); the common 1 to 7 digits
 * with no branch on their count. */
static inline const char *fast_num(const char *p, uint64_t *out)
{
#ifdef FAST_SWAR
    uint64_t w;
    memcpy(&w, p, 8);
    w ^= 0x3030303030303030ull;
    uint64_t nd = ((w + 0x7676767676767676ull) | w) & 0x8080808080808080ull;
    if (nd & 0x8080808080808000ull) { /* a non-digit among bytes 1 to 7: 0 to 7 digits */
        unsigned tz = (unsigned)__builtin_ctzll(nd); /* 8 * digits + 7 */
        if (tz < 8) return NULL;
        *out = swar_value((w << (63 - (tz & 56))) << 1);
        return p + (tz >> 3);
    }
#endif
    return fast_dec(p, out);
}

/* The start of the next line if p is at a line end ("\n" or "\r\n"). */
static inline const char *fast_eol(const char *p)
{
    if (*p == '\n') return p + 1;
    if (*p == '\r' && p[1] == '\n') return p + 2;
    return NULL;
}

/* One subposition relative to base ("*", "+N", "-N", "N"): the byte after
 * it, or NULL (also when "+N" would overflow: the general parser reports it). */
static inline const char *fast_subpos(const char *p, uint64_t base, uint64_t *out)
{
    /* Selects rather than a switch: the kind of each position is as good
     * as random, and a mispredicted jump costs more than the arithmetic. */
    char ch = *p;
    if (ch == '*') {
        *out = base;
        return p + 1;
    }
    bool plus = ch == '+', minus = ch == '-';
    uint64_t v;
    p = fast_num(p + (plus | minus), &v);
    if (!p || (plus && v > UINT64_MAX - base)) return NULL;
    *out = plus ? base + v : !minus ? v : v > base ? 0 : base - v; /* clamped, as KCachegrind does */
    return p;
}

/* The raw function of (ob, fl, sid) if it exists, looked up through the
 * entry of compressed id `id` (NONE_SID: not known) and then the name.
 * The entry is only trusted, or filled, while it still names sid. */
static inline bool fn_resolve(cg *c, uint32_t id, uint32_t ob, uint32_t fl, uint32_t sid, uint32_t *raw)
{
    if (id == NONE_SID) return raw_find(c, ob, fl, sid, raw);
    struct fn_entry *e = &c->fdir[id];
    if (e->sid1 != sid + 1) return raw_find(c, ob, fl, sid, raw);
    if (e->raw != UINT32_MAX && e->ob == ob && e->fl == fl) {
        *raw = e->raw;
        return true;
    }
    if (!raw_find(c, ob, fl, sid, raw)) return false;
    e->raw = *raw;
    e->ob = ob;
    e->fl = fl;
    return true;
}

/* The fast path may add a name or a raw function only once the line is
 * known to be one it takes, in the order the general parser adds them.
 * Adding can fail (no memory, too many names): that is the line's error,
 * the one the general parser would report, so it is kept in fast_rc (with
 * err already filled) and the read stops, rather than trying again. */

/* The current function's raw function, added if new (current_fn()). */
/* fn_resolve(), or the raw function added and kept in id's entry (else
 * its next use would look it up again: two more misses); false if adding
 * failed (fast_rc). */
static inline bool fn_get(cg *c, uint32_t id, uint32_t ob, uint32_t fl, uint32_t sid, uint32_t *raw)
{
    if (fn_resolve(c, id, ob, fl, sid, raw)) return true;
    if ((c->fast_rc = raw_new(c, ob, fl, sid, raw)) != CGPROP_OK) return false;
    if (id != NONE_SID && c->fdir[id].sid1 == sid + 1) {
        struct fn_entry *e = &c->fdir[id];
        e->raw = *raw;
        e->ob = ob;
        e->fl = fl;
    }
    return true;
}

static inline bool fast_cur(cg *c, uint32_t *raw)
{
    if (c->cur_raw != UINT32_MAX) {
        *raw = c->cur_raw;
        return true;
    }
    if (c->fn == NONE_SID || !fn_get(c, c->fn_id, c->fn_ob, c->fn_fl, c->fn, raw)) return false;
    c->cur_raw = *raw;
    return true;
}

/* Add the pending self costs to rself (they cannot overflow: gbound). */
static void acc_flush(cg *c)
{
    if (c->acc_raw == UINT32_MAX) return;
    uint64_t *self = c->rself + (size_t)c->acc_raw * c->K;
    for (uint32_t k = 0; k < c->K; k++) {
        self[k] += c->acc[k];
        c->acc[k] = 0;
    }
    c->acc_raw = UINT32_MAX;
}

ALWAYS_INLINE const char *fast_cost(cg *c, const char *p, const char *lim)
{
    /* All three copied back at the end: no call to memcpy per line. */
    uint64_t pos[3] = {c->last[0], c->last[1], c->last[2]}, v[CGPROP_MAX_METRICS];
    uint32_t np = c->npos, nc = c->ncols, got = 0;
    uint64_t vor = 0;
    const char *next;
    if (!c->part_events) return NULL;
    for (uint32_t i = 0;; i++) {
        if (p >= lim) return NULL;
        p = fast_subpos(p, c->last[i], &pos[i]);
        if (!p) return NULL;
        if (i + 1 == np) break;
        if (*p != ' ' && *p != '\t') return NULL;
        p++;
    }
    for (;;) {
        char ch = *p;
        if (ch != ' ' && ch != '\t') break;
        if (++p >= lim) return NULL;
        uint64_t x;
        const char *q = fast_num(p, &x);
        if (!q) break; /* a trailing blank, or something for the general parser */
        if (got == nc) return NULL;
        v[got++] = x;
        vor |= x;
        p = q;
    }
    if ((next = fast_eol(p)) == NULL) return NULL;
    int pend = c->pending;
    if (pend == PEND_JUMP) {
        c->last[0] = pos[0];
        c->last[1] = pos[1];
        c->last[2] = pos[2];
        c->pending = PEND_NONE;
        return next; /* position only */
    }
    uint32_t cur;
    if (!fast_cur(c, &cur)) return NULL;
    uint32_t K = c->K;
    const uint32_t *map = c->colmap;
    if (pend == PEND_CALL) {
        if (c->ncalls == c->calls_cap) return NULL;
        size_t e = c->ncalls++;
        uint64_t *dst = c->ccost + e * K;
        if (c->map_identity) {
            for (uint32_t k = 0; k < K; k++) dst[k] = k < got ? v[k] : 0;
        } else {
            for (uint32_t k = 0; k < K; k++) dst[k] = 0;
            for (uint32_t j = 0; j < got; j++) dst[map[j]] = v[j];
        }
        c->ccaller[e] = cur;
        c->ccallee[e] = c->call_callee;
        c->ccount[e] = c->call_count;
        c->cob = c->cfi = NONE_SID;
        c->pending = PEND_NONE;
    } else {
        if (c->gbound > UINT64_MAX - vor) return NULL;
        c->gbound += vor;
        if (cur != c->acc_raw) {
            acc_flush(c);
            c->acc_raw = cur;
        }
        if (c->map_identity) {
            for (uint32_t j = 0; j < got; j++) c->acc[j] += v[j];
        } else {
            for (uint32_t j = 0; j < got; j++) c->acc[map[j]] += v[j];
        }
    }
    c->last[0] = pos[0];
    c->last[1] = pos[1];
    c->last[2] = pos[2];
    return next;
}

static const char *fast_calls(cg *c, const char *p, const char *lim)
{
    uint64_t count, t;
    uint32_t np = c->npos, cnt = 0;
    const char *next;
    if (!c->part_events || c->cfn == NONE_SID) return NULL;
    p = fast_dec(p, &count);
    if (!p || (*p != ' ' && *p != '\t')) return NULL;
    if (c->plus1 && count-- == 0) return NULL; /* the general parser says why */
    p++;
    for (;;) {
        if (cnt == np || p >= lim) return NULL;
        p = fast_subpos(p, c->last[cnt], &t);
        if (!p) return NULL;
        cnt++;
        if ((next = fast_eol(p)) != NULL) break;
        if (*p != ' ' && *p != '\t') return NULL;
        p++;
        if ((next = fast_eol(p)) != NULL) break;
    }
    uint32_t cur, callee;
    /* Callee object defaults to the caller's, its file to the current one. */
    uint32_t ob = c->cob != NONE_SID ? c->cob : c->fn_ob;
    uint32_t fl = c->cfi != NONE_SID ? c->cfi : c->fi;
    /* The caller first, as calls_line() adds them. */
    if (!fast_cur(c, &cur)) return NULL;
    if (!fn_get(c, c->cfn_id, ob, fl, c->cfn, &callee)) return NULL;
    c->call_callee = callee;
    c->call_count = count;
    c->pending = PEND_CALL;
    c->pend_line = c->line;
    return next;
}

/* "(id) name" after "key=", p just past the ")": define the name (what
 * parse_name() does); the start of the next line, or NULL. */
static const char *fast_define(cg *c, int sp, uint64_t id, const char *p, uint32_t *sid)
{
    if ((*p != ' ' && *p != '\t') || id > UINT32_MAX) return NULL;
    const char *end = c->end;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) return NULL;
    const char *e = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
    size_t n = (size_t)(e - p);
    if (n == 0 || (sp == SP_FN && n >= 3 && p[0] == '(' && cgprop__is_digit(p[1]))) return NULL; /* mangled */
    if ((c->fast_rc = intern_as(c, p, n, sp != SP_FN, sid)) != CGPROP_OK) return NULL;
    if ((c->fast_rc = id_define(c, sp, (uint32_t)id, *sid)) != CGPROP_OK) return NULL;
    return nl + 1;
}

/* "key=(id)" with a defined id and nothing after it, or "key=(id) name". */
ALWAYS_INLINE const char *fast_name(cg *c, int which, const char *p)
{
    uint64_t id;
    uint32_t sid;
    if (*p != '(') return NULL;
    p = fast_dec(p + 1, &id);
    if (!p || *p != ')') return NULL;
    int sp = nk_space[which];
    const char *next = fast_eol(p + 1);
    if (!next) {
        next = fast_define(c, sp, id, p + 1, &sid);
        if (!next) return NULL;
        name_set(c, which, sid);
        /* A large id went to the hash, not to fdir. */
        if (sp != SP_FN || id >= c->fdircap || c->fdir[id].sid1 != sid + 1) return next;
    } else if (sp != SP_FN) {
        if (id >= c->dircap[sp] || !c->dir[sp][id]) return NULL;
        name_set(c, which, c->dir[sp][id] - 1);
        return next;
    } else {
        if (id >= c->fdircap || !c->fdir[id].sid1) return NULL;
        sid = c->fdir[id].sid1 - 1;
        name_set(c, which, sid);
    }
    if (which == NK_CFN) {
        c->cfn_id = (uint32_t)id;
        return next;
    }
    c->fn_id = (uint32_t)id;
    /* Known functions start their self costs' line on its way. */
    uint32_t raw;
    if (fn_resolve(c, c->fn_id, c->fn_ob, c->fn_fl, sid, &raw)) {
        c->cur_raw = raw;
        CGPROP__PREFETCH_W(c->rself + (size_t)raw * c->K);
    }
    return next;
}

static inline uint32_t load4(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* One line at p (p < lim): the start of the next line, or NULL for the
 * general parser. Inlined into the line loop: as a function it cost 18
 * instructions a line in register saves alone. */
ALWAYS_INLINE const char *fast_line(cg *c, const char *p, const char *lim)
{
    char ch = *p;
    if ((ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '*') return fast_cost(c, p, lim);
    if (c->pending != PEND_NONE) return NULL;
    uint32_t w = load4(p);
    switch (ch) {
    case '\n':
        return p + 1;
    case 'c':
        if (w == load4("cfn=")) return fast_name(c, NK_CFN, p + 4);
        if (w == load4("call") && p[4] == 's' && p[5] == '=') return fast_calls(c, p + 6, lim);
        if (w == load4("cob=")) return fast_name(c, NK_COB, p + 4);
        if (w == load4("cfi=") || w == load4("cfl=")) return fast_name(c, NK_CFI, p + 4);
        return NULL;
    case 'f':
        if (w == load4("fn=(")) return fast_name(c, NK_FN, p + 3);
        if (w == load4("fl=(")) return fast_name(c, NK_FL, p + 3);
        if (w == load4("fi=(") || w == load4("fe=(")) return fast_name(c, NK_FI, p + 3);
        return NULL;
    case 'o':
        if (w == load4("ob=(")) return fast_name(c, NK_OB, p + 3);
        return NULL;
    default:
        return NULL;
    }
}

/* Pass 1 over every line. Lines as cgprop__lines_next() splits them: at
 * '\n', a '\r' before it dropped, the last line needing no newline. */
static int pass1(cg *c, const char *data, size_t len)
{
    const char *at = data, *end = data + len;
    const char *lim = len > FAST_MARGIN ? end - FAST_MARGIN : data;
    int rc = CGPROP_OK;
    while (!rc && at < end) {
        c->line++;
        if (at < lim) {
            const char *q = fast_line(c, at, lim);
            if (q) {
                at = q;
                continue;
            }
            if ((rc = c->fast_rc) != CGPROP_OK) break;
        }
        const char *e = memchr(at, '\n', (size_t)(end - at));
        const char *next = e ? e + 1 : end;
        if (!e) e = end;
        if (e > at && e[-1] == '\r') e--;
        acc_flush(c);
        rc = parse_line(c, at, (size_t)(e - at));
        at = next;
    }
    return rc;
}

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
    size_t ncyc;           /* cycles among plain names */
    uint32_t maxidx;       /* highest N of an fn'N name (1: none) */
    int mode;              /* MODE_* */
    uint32_t N;            /* the --separate-recs the names were made with, for MODE_NAMES */
} pass2;

/* Recursion among plain names: self-calls, and strongly connected
 * components of the plain -> plain calls between base functions (util/scc.h
 * over an adjacency built by counting sort: no hashing per call). */
static int plain_cycles(cg *c, pass2 *p, bool *plain_self, size_t *ncyc_out)
{
    uint32_t nb = p->nb;
    const cgprop_graph *A = c->mem;
    uint32_t *off = cgprop__calloc(A, (size_t)nb + 1, sizeof *off);
    uint32_t *adj = NULL, *cur = NULL, *ord = NULL, *size = NULL;
    int rc = CGPROP_OK;
    /* The base function of each plain raw function, CGPROP_NONE for the
     * others: one small array for the two passes over the calls. */
    uint32_t *pb = cgprop__alloc(A, c->nraw ? c->nraw : 1, sizeof *pb);
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
    *ncyc_out = 0;
    if (m == 0) goto done;
    if (m > UINT32_MAX) {
        rc = cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "too many calls");
        goto done;
    }
    for (uint32_t b = 0; b < nb; b++) off[b + 1] += off[b];
    adj = cgprop__alloc(A, m, sizeof *adj);
    cur = cgprop__alloc(A, nb, sizeof *cur);
    ord = cgprop__alloc(A, nb, sizeof *ord);
    size = cgprop__alloc(A, nb, sizeof *size);
    if (!adj || !cur || !ord || !size) goto nomem;
    memcpy(cur, off, (size_t)nb * sizeof *cur);
    for (size_t e = 0; e < c->ncalls; e++) {
        uint32_t a = pb[c->ccaller[e]], b = pb[c->ccallee[e]];
        if (a == CGPROP_NONE || b == CGPROP_NONE || a == b) continue;
        adj[cur[a]++] = b;
    }
    if (cgprop__scc(&A->a, nb, off, adj, ord, size) != CGPROP_OK) goto nomem;
    /* Components are contiguous in ord: count those of two or more. */
    for (uint32_t i = 0; i < nb; i += size[ord[i]])
        if (size[ord[i]] > 1) (*ncyc_out)++;
    goto done;
nomem:
    rc = cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
done:
    cgprop__free(A, pb);
    cgprop__free(A, off);
    cgprop__free(A, adj);
    cgprop__free(A, cur);
    cgprop__free(A, ord);
    cgprop__free(A, size);
    return rc;
}

static int build_key(cg *c, const char *ob, size_t lob, const char *fl, size_t lfl, const char *nm, size_t lnm,
                     bool full, size_t *len)
{
    size_t need = full ? lob + lfl + lnm + 2 : lnm;
    if (need < lnm) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "key too long");
    int rc = scratch_reserve(c, need ? need : 1);
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

/* The call lines' sums are taken when the graph is built, after reading:
 * the refused call is the batch_at-th calls= line of the input (every one
 * added a call, in order), its cost on the next line. */
static int calls_fail(cg *c, const cgprop_graph *g)
{
    cgprop__lines r;
    cgprop__lines_init(&r, c->data, (size_t)(c->end - c->data));
    const char *s;
    size_t n;
    uint32_t at = g->batch_at, seen = 0;
    int why = g->batch_why;
    while (cgprop__lines_next(&r, &s, &n)) {
        while (n && cgprop__is_space(*s)) {
            s++;
            n--;
        }
        if (n < 6 || memcmp(s, "calls=", 6) != 0 || seen++ != at) continue;
        if (why == CGPROP__WHY_COST)
            return cgprop__read_fail(c->err, CGPROP_EOVERFLOW, r.no + 1, "the cost of a call summed over its lines overflows 64 bits");
        return cgprop__read_fail(c->err, CGPROP_EOVERFLOW, r.no,
                                 why == CGPROP__WHY_COUNT ? "the count of a call summed over its lines overflows 64 bits"
                                                          : "the calls into a function overflow 64 bits");
    }
    return cgprop__read_fail(c->err, CGPROP_EOVERFLOW, 0, "a call sum overflows 64 bits");
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
    void *p = cgprop__realloc(c->mem, dead, n ? n : 1, size);
    if (!p) cgprop__free(c->mem, dead);
    return p;
}

/* The base function (object, file, folded name) of every raw function, and
 * the table of their names' parts. With full keys and folding the final
 * graph's functions are the base functions themselves. */
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
    for (uint32_t r = 0; r < nr; r++) {
        size_t klen;
        if ((rc = raw_key(c, r, p->rn[r].base_len, true, &klen))) return rc;
        if ((rc = cgprop_graph_add_node(bg, c->scratch, klen, &p->bid[r]))) return graph_fail(c, rc);
        if (p->same) p->fid[r] = p->bid[r];
    }
    p->nb = (uint32_t)cgprop_graph_node_count(bg);
    p->binex = cgprop__calloc(c->mem, p->nb ? p->nb : 1, 1);
    if (!p->binex) return cgprop__read_fail(c->err, CGPROP_ENOMEM, 0, "out of memory");
    return CGPROP_OK;
}

/* How recursion classes come: from fn'N names, withheld, unfolded or none. */
static void choose_mode(const cg *c, pass2 *p)
{
    bool plain_rec = p->plain_self || p->ncyc > 0;
    uint32_t over = c->opts->separate_recs;
    p->N = 0;
    if (!p->fold) p->mode = (p->maxidx >= 2 || plain_rec) ? MODE_UNFOLDED : MODE_NONE;
    else if (over == 1) p->mode = MODE_WITHHELD;
    else if (over >= 2 || p->maxidx >= 2) {
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
                            ? (uint8_t)cgprop__cls(a->level == CGPROP_LEVEL_0 ? 0u : 1u, b->level)
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
    if (p->mode == MODE_NAMES && p->ncyc) info->flags |= CGPROP_RI_PLAIN_CYCLES;
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
    if ((rc = plain_cycles(c, p, &p->plain_self, &p->ncyc))) return rc;
    choose_mode(c, p);
    if ((rc = final_functions(c, p)) || (rc = stage_calls(c, p))) return rc;
    if (info) fill_info(c, p, info);
    *out = p->g;
    p->g = NULL;
    return CGPROP_OK;
}

int cgprop__callgrind_read(const char *data, size_t len, const cgprop_read_options *opts,
                           const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                           cgprop_read_error *err)
{
    cg c;
    memset(&c, 0, sizeof c);
    c.opts = opts;
    c.err = err;
    c.alloc = alloc;
    c.npos = 1;
    c.ob = c.fl = c.fi = c.fn = c.fn_ob = c.fn_fl = NONE_SID;
    c.cob = c.cfi = c.cfn = NONE_SID;
    c.cur_raw = UINT32_MAX;
    c.fn_id = c.cfn_id = NONE_SID;
    c.acc_raw = UINT32_MAX;
    *out = NULL;
    const char *one = "n";
    int rc = cgprop_graph_new(alloc, &one, NULL, 1, &c.mem);
    if (rc) return cgprop__read_fail(err, rc, 0, "out of memory");
    rc = cgprop_graph_new(alloc, &one, NULL, 1, &c.ids);
    if (rc) {
        cgprop_graph_free(c.mem);
        return cgprop__read_fail(err, rc, 0, "out of memory");
    }

    const char *end = data + len;
    c.data = data;
    c.end = end;
    c.est_fn = 1024;
    while (c.est_fn < (1u << 22) && (size_t)c.est_fn * 1024 < len) c.est_fn *= 2;
    c.est_calls = 4096;
    while (c.est_calls < (1u << 24) && (size_t)c.est_calls * 128 < len) c.est_calls *= 2;
    rc = pass1(&c, data, len);
    acc_flush(&c);
    uint64_t nlines = c.line;
    if (!rc && c.pending != PEND_NONE) {
        c.line = c.pend_line;
        rc = fail(&c, CGPROP_EFORMAT, "%s",
                  c.pending == PEND_CALL ? "calls= line not followed by its cost line (end of input)"
                                         : "jump line not followed by its position line (end of input)");
    }
    if (!rc) rc = end_part(&c);
    if (!rc && !c.raw) {
        c.line = nlines;
        rc = fail(&c, CGPROP_EFORMAT, "%s", "no events: line: not a callgrind profile");
    }
    c.line = nlines;
    pass2 p;
    memset(&p, 0, sizeof p);
    if (!rc) rc = finish(&c, &p, out, info);
    if (info && !rc) info->lines = nlines;

    cgprop__free(c.mem, p.rn); /* and bid, fid */
    cgprop__free(c.mem, p.binex);
    cgprop__free(c.mem, p.ends);
    cgprop__free(c.mem, p.cls);
    cgprop_graph_free(p.bg);
    cgprop_graph_free(p.g);
    cgprop__free(c.mem, c.idsid);
    for (int sp = 0; sp < 3; sp++) cgprop__free(c.mem, c.dir[sp]);
    cgprop__free(c.mem, c.fdir);
    cgprop__free(c.mem, c.rself);
    cgprop__free(c.mem, c.scratch);
    cgprop__free(c.mem, c.sbuf);
    cgprop__free(c.mem, c.sent);
    cgprop__free(c.mem, c.rkey);
    cgprop__free(c.mem, c.sset.slot);
    cgprop__free(c.mem, c.rset.slot);
    cgprop_graph_free(c.raw);
    cgprop_graph_free(c.ids);
    cgprop_graph_free(c.mem);
    return rc;
}
