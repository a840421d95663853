/* The callgrind reader's shared state and the small pieces every part of
 * it uses. The reader is split by concern:
 *   callgrind_names.c     strings, name compression ids, mangled names;
 *   callgrind_lines.c     the general line parser (the grammar);
 *   callgrind_fast.c      the fast path for the common lines, and pass 1;
 *   callgrind_assemble.c  pass 2: recursion names, classes, the final graph;
 *   callgrind_read.c      the entry point.
 * (The format itself: docs/READERS.md and the callgrind format reference.) */
#ifndef CGPROP_IO_CALLGRIND_H
#define CGPROP_IO_CALLGRIND_H

#include "io_util.h"
#include "util/compiler.h"

#include <stdio.h>

#define NONE_SID UINT32_MAX

#define ALWAYS_INLINE static CGPROP__ALWAYS_INLINE
/* Rare paths out of the line loop, so they take no registers from it. */
#define NOINLINE static CGPROP__NOINLINE
#define CG_NOINLINE CGPROP__NOINLINE

/* Id spaces of name compression. */
enum { SP_OBJ = 0, SP_FILE = 1, SP_FN = 2 };

/* What the next line must be. */
enum { PEND_NONE = 0, PEND_CALL = 1, PEND_JUMP = 2 };

/* Recursion indices above this are taken as part of the name. */
#define MAX_REC_INDEX 1000000000u

typedef struct cg {
    const cgprop_read_options *opts;
    cgprop_read_error *err;
    const cgprop_allocator *alloc;
    cgprop_allocator mem;  /* the allocation context everything else goes through */
    cgprop__u64map ids;    /* (space, compressed id) -> string id, beyond the direct tables */
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
    const char *fn_ahead;   /* where the look for coming function lines stopped (callgrind_fast.c) */
    uint64_t mangled_total; /* bytes the references have added to names so far (expand_mangled) */
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
    bool creator; /* a creator: line named the tool that wrote the file (cachegrind writes none) */
    /* cgprop's desc: line for stacks cut short (CGPROP__DESC_UNROOTED):
     * their weight per metric, summed over parts. */
    bool any_unrooted;
    uint64_t unrooted[CGPROP_MAX_METRICS];
    /* The line's numbers when it came before events: (callgrind_annotate
     * wants desc: lines there), read once events: says what they are. */
    const char *unrooted_v;
    size_t unrooted_n;
    char *unrooted_copy; /* its bytes, kept: a text read in pieces drops the line's */
    /* A call's sum overflowed when the graph was built (pass 2): the
     * calls= line it came from, by its index among them (calls_fail), and
     * why; its line is found by reading the text again. */
    bool ovf;
    uint32_t ovf_at;
    int ovf_why;
    int pending;
    uint64_t pend_line;
    uint64_t call_count;
    uint32_t call_callee;
    uint64_t costs[CGPROP_MAX_METRICS];
} cg;



static inline int fail(cg *c, int code, const char *fmt, const char *arg)
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

static inline void tset_put(struct tset *t, uint32_t h, uint32_t id)
{
    uint32_t mask = t->cap - 1, j = h & mask;
    while (t->slot[j]) j = (j + 1) & mask;
    t->slot[j] = (uint64_t)h << 32 | ((uint64_t)id + 1);
    t->n++;
}

static inline const char *str_of(const cg *c, uint32_t sid, size_t *len)
{
    *len = c->sent[sid].len;
    return c->sbuf + c->sent[sid].off;
}

static inline uint32_t raw_hash(uint32_t ob, uint32_t fl, uint32_t fn)
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

/* Across the reader's files. */
extern const char *const cgprop__cg_space_name[3];
int cgprop__cg_scratch_reserve(cg *c, size_t need);
int cgprop__cg_tset_reserve(cg *c, struct tset *t);
int cgprop__cg_intern_as(cg *c, const char *s, size_t n, bool dedupe, uint32_t *out);
int cgprop__cg_id_define(cg *c, int space, uint32_t id, uint32_t sid);
int cgprop__cg_parse_name(cg *c, int space, const char *v, size_t n, uint32_t *sid);
int cgprop__cg_end_part(cg *c);
int cgprop__cg_raw_new(cg *c, uint32_t ob, uint32_t fl, uint32_t fn, uint32_t *out);
int cgprop__cg_current_fn(cg *c);
int cgprop__cg_calls_line(cg *c, const char *v, size_t n);
int cgprop__cg_parse_line(cg *c, const char *s, size_t n);
void cgprop__cg_acc_flush(cg *c);
int cgprop__cg_pass1(cg *c, const char *data, size_t len);
/* Pass 2 (callgrind_assemble.c): the final graph from pass 1's raw functions. */
int cgprop__cg_assemble(cg *c, cgprop_graph **out, cgprop_read_info *info);
/* Xdebug's profiles (callgrind_xdebug.c): whether its creator: line names
 * Xdebug, and the file rewritten with each call's recursion level in its
 * names (*out NULL when the file is no call tree: read it as it is; free
 * *out with cgprop__mem_free through an allocator cgprop__mem_init made
 * from alloc). CGPROP_OK or CGPROP_ENOMEM. */
bool cgprop__cg_is_xdebug(const char *data, size_t len);
/* How far into the text cgprop__cg_is_xdebug looks: the first piece of a
 * text read in pieces holds at least this much, so both ways decide alike. */
#define CGPROP__CG_XDEBUG_PEEK ((size_t)64 << 10)
/* The line of the at-th calls= line of data[0..len), counting from *seen
 * calls= lines and *line lines before it (both carried over from the text
 * before it): true and *line set when it is there. */
bool cgprop__cg_find_calls_line(const char *data, size_t len, uint32_t at, uint32_t *seen, uint64_t *line);
/* The error for an overflowing call sum (c->ovf_why) at the line of its
 * calls= line, 0 when it is not known. */
int cgprop__cg_calls_error(cg *c, bool found, uint64_t line);
int cgprop__cg_xdebug_rewrite(const char *data, size_t len, const cgprop_allocator *alloc, char **out,
                              size_t *out_len);

#endif
