/* Callgrind reader: the fast path for the common lines, and pass 1
 * (callgrind.h has the map of the reader). */
#include "callgrind.h"

#include <stdio.h>

/* ---- fast path ----
 *
 * Most lines of a real file are cost lines, "calls=" lines and name lines
 * that only refer to an id ("cfn=(12)"). These are parsed here in place,
 * without first looking for the line end and without a call per number.
 * The fast path accepts a strict subset of the grammar: tokens separated by
 * one blank, decimal numbers of up to 19 digits, names already defined and
 * functions already seen, no pending jump, room left in the call arrays. On
 * anything else it returns NULL having changed nothing, and cgprop__cg_parse_line()
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

/* The current function's raw function, added if new (cgprop__cg_current_fn()). */
/* fn_resolve(), or the raw function added and kept in id's entry (else
 * its next use would look it up again: two more misses); false if adding
 * failed (fast_rc). */
static inline bool fn_get(cg *c, uint32_t id, uint32_t ob, uint32_t fl, uint32_t sid, uint32_t *raw)
{
    if (fn_resolve(c, id, ob, fl, sid, raw)) return true;
    if ((c->fast_rc = cgprop__cg_raw_new(c, ob, fl, sid, raw)) != CGPROP_OK) return false;
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
void cgprop__cg_acc_flush(cg *c)
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
            cgprop__cg_acc_flush(c);
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
    /* The caller first, as cgprop__cg_calls_line() adds them. */
    if (!fast_cur(c, &cur)) return NULL;
    if (!fn_get(c, c->cfn_id, ob, fl, c->cfn, &callee)) return NULL;
    c->call_callee = callee;
    c->call_count = count;
    c->pending = PEND_CALL;
    c->pend_line = c->line;
    return next;
}

/* "(id) name" after "key=", p just past the ")": define the name (what
 * cgprop__cg_parse_name() does); the start of the next line, or NULL. */
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
    if ((c->fast_rc = cgprop__cg_intern_as(c, p, n, sp != SP_FN, sid)) != CGPROP_OK) return NULL;
    if ((c->fast_rc = cgprop__cg_id_define(c, sp, (uint32_t)id, *sid)) != CGPROP_OK) return NULL;
    return nl + 1;
}

/* How far on from where the last look stopped a function line is looked
 * for (fn_ahead): a call's block of a profile cgprop or callgrind writes is
 * about 100 bytes. */
#define FN_AHEAD_BYTES 512
#ifndef FN_AHEAD_LEAD
#define FN_AHEAD_LEAD 3
#endif

/* Past this many bytes of function entries, fn_ahead looks ahead: a
 * table the size of a core's L2 cache or less is mostly hit, and the look
 * costs more than it saves (a 42 MB profile of 60,000 functions read 8 %
 * slower with it). CGPROP_CG_AHEAD_TABLE=0 looks ahead on every profile
 * (the sanitizer and fuzzing builds: no test profile is that large). */
#ifdef CGPROP_CG_AHEAD_TABLE
#define FN_AHEAD_TABLE ((size_t)(CGPROP_CG_AHEAD_TABLE))
#else
#define FN_AHEAD_TABLE ((size_t)2 << 20)
#endif

#if defined(__SSE2__) && defined(__GNUC__)
#define FN_AHEAD_SSE2 1
#include <emmintrin.h>
#endif

/* The id at o (just past "fn=("): its entry asked for; the byte after it. */
static inline const char *fn_ahead_id(const cg *c, const char *o)
{
    uint64_t id = 0;
    for (; o < c->end && cgprop__is_digit(*o) && id < c->fdircap; o++) id = id * 10 + (uint64_t)(*o - '0');
    if (id < c->fdircap) CGPROP__PREFETCH_W(c->fdir + id);
    return o;
}

/* Past q (at most FN_AHEAD_BYTES on, not past lim): the next "fn=(id" or
 * "cfn=(id", its id's entry asked for; where the search stopped. With SSE2
 * the four bytes are compared at 16 places a step: a search for each '('
 * and a look at the bytes before it (three on every call block's lines)
 * took an eighth of the read of a 62 MB profile. */
static inline const char *fn_ahead_one(const cg *c, const char *q, const char *lim)
{
    const char *end = c->end;
    if (lim - q > FN_AHEAD_BYTES) lim = q + FN_AHEAD_BYTES;
#ifdef FN_AHEAD_SSE2
    const __m128i f = _mm_set1_epi8('f'), n = _mm_set1_epi8('n'), eq = _mm_set1_epi8('='), po = _mm_set1_epi8('(');
    /* A match starts at s with its '(' before lim: s < lim - 3. The loads
     * reach q + 18, inside the buffer. */
    while (lim - q > 3 && end - q >= 19) {
        __m128i a = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)q), f);
        __m128i b = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q + 1)), n);
        __m128i d = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q + 2)), eq);
        __m128i e = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q + 3)), po);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_and_si128(a, b), _mm_and_si128(d, e)));
        if (lim - q - 3 < 16) m &= (1u << (lim - q - 3)) - 1;
        if (m) return fn_ahead_id(c, q + __builtin_ctz(m) + 4);
        q += 16;
    }
    if (lim - q <= 3) return lim;
#endif
    const char *from = q;
    while (q < lim) {
        const char *o = memchr(q, '(', (size_t)(lim - q));
        if (!o) return lim;
        if (o - from >= 3 && o[-1] == '=' && o[-2] == 'n' && o[-3] == 'f') return fn_ahead_id(c, o + 1);
        q = o + 1;
    }
    return lim;
}

/* At a function line at p: the entry of the function line FN_AHEAD_LEAD
 * on is asked for now. Ids come in no order, so on a large profile each
 * line's entry is a miss, which took 60 % of the parse of a 62 MB profile
 * of 200,000 functions; started a few such lines ahead, it overlaps their
 * parse (two lines on: 170-190 ms, three: 166-179). The search goes on
 * from where the last one stopped (c->fn_ahead), so each byte is looked at
 * once: searching 512 bytes from every function line took 12 % of that
 * read. */
static inline void fn_ahead(cg *c, const char *p)
{
    if (c->fdircap * sizeof *c->fdir <= FN_AHEAD_TABLE) return;
    const char *at = c->fn_ahead;
    if (!at || at <= p) { /* the look is not ahead: the lines before the one it keeps ahead */
        at = p;
        for (int i = 1; i < FN_AHEAD_LEAD; i++) at = fn_ahead_one(c, at, c->end);
    }
    c->fn_ahead = fn_ahead_one(c, at, c->end);
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
    if (sp == SP_FN) fn_ahead(c, p + 1);
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
int cgprop__cg_pass1(cg *c, const char *data, size_t len)
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
        cgprop__cg_acc_flush(c);
        rc = cgprop__cg_parse_line(c, at, (size_t)(e - at));
        at = next;
    }
    return rc;
}
