/* Less work than any folded-stacks reader that builds a call graph does,
 * written to be fast and to do nothing else: see floor.h. */
#include "floor.h"

#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && !defined(FLOOR_NO_SIMD)
#include <emmintrin.h>
#define FLOOR_SSE2 1
#endif

/* A name: its first eight bytes (zero-padded) and length in the slot, so
 * that most compares need no other load. */
typedef struct nslot {
    uint64_t head;
    uint32_t len, id1; /* id + 1; 0: empty */
} nslot;

/* (caller, callee's name) -> callee and call: the one probe a new frame
 * costs when its call was seen before. */
typedef struct cslot {
    uint32_t caller1, tag; /* caller + 1 (0: empty); the name hash's top half */
    uint32_t callee, call;
} cslot;

typedef struct tabs {
    nslot *nt;
    size_t ncap;
    uint32_t nn, idcap;
    uint32_t *noff, *nlen;
    uint64_t *nhead, *nhash, *self;
    char *arena;
    size_t aused, acap;
    cslot *ct;
    size_t ccap;
    uint32_t ne, ecap;
    uint64_t *ecost;
    uint32_t *ids, *fend, *pfend;
    size_t dcap;
} tabs;

/* The first min(n, 8) bytes of s, zero-padded: one load and a mask when
 * eight bytes can be read (a short copy would stall the load after it). */
static uint64_t head8(const char *s, size_t n, const char *end)
{
    uint64_t x = 0;
    if (end - s >= 8) {
        memcpy(&x, s, 8);
        return n >= 8 ? x : x & (((uint64_t)1 << (8 * n)) - 1);
    }
    memcpy(&x, s, n < 8 ? n : 8);
    return x;
}

static uint64_t hash_name(uint64_t head, const char *s, size_t n, const char *end)
{
    uint64_t h = head * 0x9E3779B97F4A7C15ull ^ n;
    for (size_t i = 8; i < n; i += 8) h = (h ^ head8(s + i, n - i, end)) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

static uint64_t hash_call(uint64_t hname, uint32_t caller)
{
    uint64_t h = hname ^ (uint64_t)caller * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 31);
}

static bool grow(void **p, size_t n, size_t size)
{
    void *q = realloc(*p, n * size);
    if (!q) return false;
    *p = q;
    return true;
}

static bool rehash_names(tabs *t, size_t want)
{
    size_t cap = t->ncap ? t->ncap * 2 : want;
    nslot *nt = calloc(cap, sizeof *nt);
    if (!nt) return false;
    for (uint32_t id = 0; id < t->nn; id++) {
        size_t i = (size_t)t->nhash[id] & (cap - 1);
        while (nt[i].id1) i = (i + 1) & (cap - 1);
        nt[i].head = t->nhead[id];
        nt[i].len = t->nlen[id];
        nt[i].id1 = id + 1;
    }
    free(t->nt);
    t->nt = nt;
    t->ncap = cap;
    return true;
}

static bool rehash_calls(tabs *t, size_t want)
{
    size_t cap = t->ccap ? t->ccap * 2 : want;
    cslot *ct = calloc(cap, sizeof *ct);
    if (!ct) return false;
    for (size_t j = 0; j < t->ccap; j++) {
        cslot c = t->ct[j];
        if (!c.caller1) continue;
        size_t i = (size_t)hash_call(t->nhash[c.callee], c.caller1 - 1) & (cap - 1);
        while (ct[i].caller1) i = (i + 1) & (cap - 1);
        ct[i] = c;
    }
    free(t->ct);
    t->ct = ct;
    t->ccap = cap;
    return true;
}

/* The name's id, made if new; UINT32_MAX when out of memory. */
static uint32_t name_id(tabs *t, const char *s, size_t n, uint64_t h, uint64_t head)
{
    if ((size_t)t->nn * 2 >= t->ncap && !rehash_names(t, 0)) return UINT32_MAX;
    size_t mask = t->ncap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        nslot *x = &t->nt[i];
        if (!x->id1) break;
        if (x->head == head && x->len == n && (n <= 8 || !memcmp(t->arena + t->noff[x->id1 - 1] + 8, s + 8, n - 8)))
            return x->id1 - 1;
    }
    if (t->nn == t->idcap) {
        uint32_t c = t->idcap ? t->idcap * 2 : 1024;
        if (!grow((void **)&t->noff, c, sizeof *t->noff) || !grow((void **)&t->nlen, c, sizeof *t->nlen) ||
            !grow((void **)&t->nhead, c, sizeof *t->nhead) || !grow((void **)&t->nhash, c, sizeof *t->nhash) ||
            !grow((void **)&t->self, c, sizeof *t->self))
            return UINT32_MAX;
        t->idcap = c;
    }
    if (t->aused + n > t->acap) {
        size_t c = t->acap ? t->acap : 65536;
        while (c < t->aused + n) c *= 2;
        if (!grow((void **)&t->arena, c, 1)) return UINT32_MAX;
        t->acap = c;
    }
    uint32_t id = t->nn++;
    memcpy(t->arena + t->aused, s, n);
    t->noff[id] = (uint32_t)t->aused;
    t->aused += n;
    t->nlen[id] = (uint32_t)n;
    t->nhead[id] = head;
    t->nhash[id] = h;
    t->self[id] = 0;
    size_t i = (size_t)h & (t->ncap - 1);
    while (t->nt[i].id1) i = (i + 1) & (t->ncap - 1);
    t->nt[i].head = head;
    t->nt[i].len = (uint32_t)n;
    t->nt[i].id1 = id + 1;
    return id;
}

/* The callee's id for the frame s[0..n) called from caller, and its call's
 * id in *call; UINT32_MAX when out of memory. */
static uint32_t step(tabs *t, uint32_t caller, const char *s, size_t n, const char *end, uint32_t *call)
{
    uint64_t head = head8(s, n, end), h = hash_name(head, s, n, end), hc = hash_call(h, caller);
    uint32_t tag = (uint32_t)(h >> 32);
    size_t mask = t->ccap - 1;
    for (size_t i = (size_t)hc & mask;; i = (i + 1) & mask) {
        const cslot *c = &t->ct[i];
        if (!c->caller1) break;
        if (c->caller1 == caller + 1 && c->tag == tag && t->nhead[c->callee] == head && t->nlen[c->callee] == n &&
            (n <= 8 || !memcmp(t->arena + t->noff[c->callee] + 8, s + 8, n - 8))) {
            *call = c->call;
            return c->callee;
        }
    }
    uint32_t id = name_id(t, s, n, h, head);
    if (id == UINT32_MAX) return id;
    if (t->ne == t->ecap) {
        uint32_t c = t->ecap ? t->ecap * 2 : 2048;
        if (!grow((void **)&t->ecost, c, sizeof *t->ecost)) return UINT32_MAX;
        t->ecap = c;
    }
    if ((size_t)t->ne * 2 >= t->ccap && !rehash_calls(t, 0)) return UINT32_MAX;
    mask = t->ccap - 1;
    size_t i = (size_t)hc & mask;
    while (t->ct[i].caller1) i = (i + 1) & mask;
    t->ct[i].caller1 = caller + 1;
    t->ct[i].tag = tag;
    t->ct[i].callee = id;
    t->ct[i].call = t->ne;
    t->ecost[t->ne] = 0;
    *call = t->ne++;
    return id;
}

/* Length of the run before the first ';' in s[0..n), or n. */
static size_t to_semi(const char *s, size_t n)
{
    size_t i = 0;
#ifdef FLOOR_SSE2
    const __m128i semi = _mm_set1_epi8(';');
    for (; i + 16 <= n; i += 16) {
        unsigned x = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(s + i)), semi));
        if (x) return i + (size_t)__builtin_ctz(x);
    }
#endif
    while (i < n && s[i] != ';') i++;
    return i;
}

/* Length of the common prefix of a[0..n) and b[0..n). */
static size_t common(const char *a, const char *b, size_t n)
{
    size_t m = 0;
#ifdef FLOOR_SSE2
    for (; m + 16 <= n; m += 16) {
        unsigned x = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(a + m)),
                                                                _mm_loadu_si128((const __m128i *)(b + m)))) ^
                     0xFFFFu;
        if (x) return m + (size_t)__builtin_ctz(x);
    }
#endif
    while (m < n && a[m] == b[m]) m++;
    return m;
}

static void tabs_free(tabs *t)
{
    free(t->nt);
    free(t->noff);
    free(t->nlen);
    free(t->nhead);
    free(t->nhash);
    free(t->self);
    free(t->arena);
    free(t->ct);
    free(t->ecost);
    free(t->ids);
    free(t->fend);
    free(t->pfend);
}

uint64_t floor_folded(const char *d, size_t len, bool lookups, uint32_t *ncalls)
{
    tabs t;
    memset(&t, 0, sizeof t);
    uint64_t sum = 0, fail = UINT64_MAX;
    /* Sized on a guess from the input's size, as a reader would (a name
     * per 256 bytes, a call per 128, room for twice that), so that on the
     * usual file no table grows on the way. */
    size_t nw = 1024, cw = 2048;
    while (nw < len / 128) nw *= 2;
    while (cw < len / 64) cw *= 2;
    if (!rehash_names(&t, nw) || !rehash_calls(&t, cw)) goto out;
    const char *p = d, *end = d + len, *prev = NULL;
    size_t prevlen = 0, pdepth = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) nl = end;
        const char *sp = nl;
        while (sp > p && sp[-1] != ' ') sp--;
        if (sp == p) { /* no count: not a sample */
            p = nl + 1;
            continue;
        }
        uint64_t cnt = 0;
        for (const char *c = sp; c < nl; c++) cnt = cnt * 10 + (uint64_t)(unsigned char)(*c - '0');
        size_t flen = (size_t)(sp - 1 - p);
        if (flen + 1 > t.dcap) {
            size_t c = t.dcap ? t.dcap : 256;
            while (c < flen + 1) c *= 2;
            if (!grow((void **)&t.ids, c, sizeof *t.ids) || !grow((void **)&t.fend, c, sizeof *t.fend) ||
                !grow((void **)&t.pfend, c, sizeof *t.pfend))
                goto out;
            t.dcap = c;
        }
        /* The previous line's frames that end before the first byte that
         * differs are this line's too (their ids are still in ids[]). */
        size_t lim = flen < prevlen ? flen : prevlen, m = prev ? common(p, prev, lim) : 0, k = 0;
        while (k < pdepth && t.pfend[k] < m) k++;
        if (k < pdepth && t.pfend[k] == m && m == lim &&
            (m == flen ? m == prevlen || prev[m] == ';' : m == prevlen && p[m] == ';'))
            k++;
        size_t depth = k, at = k ? t.pfend[k - 1] + 1 : 0;
        uint32_t caller = depth ? t.ids[depth - 1] : UINT32_MAX;
        while (at <= flen) {
            size_t n = to_semi(p + at, flen - at);
            uint32_t id, call = 0;
            if (!lookups) id = (uint32_t)n;
            else if (caller == UINT32_MAX) {
                uint64_t head = head8(p + at, n, end);
                id = name_id(&t, p + at, n, hash_name(head, p + at, n, end), head);
            } else {
                id = step(&t, caller, p + at, n, end, &call);
                if (id != UINT32_MAX) t.ecost[call] += cnt;
            }
            if (id == UINT32_MAX) goto out;
            t.fend[depth] = (uint32_t)(at + n);
            t.ids[depth++] = caller = id;
            at += n + 1;
        }
        if (depth) {
            if (lookups) t.self[t.ids[depth - 1]] += cnt;
            sum += t.ids[depth - 1] + cnt;
        }
        memcpy(t.pfend, t.fend, depth * sizeof *t.fend);
        pdepth = depth;
        prev = p;
        prevlen = flen;
        p = nl + 1;
    }
    fail = sum + t.nn * 1000003ull + t.ne;
    if (ncalls) *ncalls = t.ne;
out:
    tabs_free(&t);
    return fail;
}

/* ---- pprof ---- */

/* One varint at *p (< end); 0 past the end or on more than ten bytes. */
static inline uint64_t pb_var(const unsigned char **p, const unsigned char *end)
{
    if (*p < end && **p < 0x80) return *(*p)++; /* most ids, keys and counts */
    uint64_t v = 0;
    for (unsigned s = 0; *p < end && s < 70; s += 7) {
        unsigned char b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << s;
        if (b < 0x80) return v;
    }
    return 0;
}

/* Skip a field of wire type wt; false when it runs past end. */
static bool pb_skip(const unsigned char **p, const unsigned char *end, unsigned wt)
{
    switch (wt) {
    case 0: (void)pb_var(p, end); return *p <= end;
    case 1: *p += 8; return *p <= end;
    case 2: {
        uint64_t n = pb_var(p, end);
        if (n > (uint64_t)(end - *p)) return false;
        *p += n;
        return true;
    }
    case 5: *p += 4; return *p <= end;
    default: return false;
    }
}

/* (caller, callee) -> call: the probe of a new frame's call. */
typedef struct pslot {
    uint32_t caller1, callee, call, pad;
} pslot;

typedef struct ptabs {
    uint32_t *lfirst, *lcount, *lfun; /* per location id: its lines' functions, leaf first */
    size_t lcap, nlf, lfcap;
    pslot *ct;
    size_t ccap;
    uint32_t ne, ecap;
    uint64_t *ecost, *self;
    size_t nfun;
    uint32_t *frames, *locend; /* the previous sample: frames root first; frames up to each location */
    size_t fcap;
    /* With costs: per frame of the previous sample, the call into it and
     * the running sum of the weights when it came (the call is owed the
     * weights since, paid when the frame goes). */
    uint32_t *fcall;
    uint64_t *fbase;
    /* With classes: per function the frames of it on the stack; per frame
     * its level (0, 1, 2 = 2 or more), from which the class of the call
     * into it follows (the caller's level times 3 plus its own). A call's
     * cost in ecost is its total, and class 0 (both at level 0, most pairs)
     * is that total less the other classes: a pair of class 0 pays one add
     * and reads nothing of its call's classes. A call first paid in another
     * class gets a block of eight sums (cblk its block + 1, 0 for none).
     * Per function its self cost by level. */
    bool cls;
    uint32_t *act, *cblk;
    uint8_t *flv;
    uint64_t *blk, *lself;
    uint32_t nblk, blkcap;
} ptabs;

static void ptabs_free(ptabs *t)
{
    free(t->lfirst);
    free(t->lcount);
    free(t->lfun);
    free(t->ct);
    free(t->ecost);
    free(t->self);
    free(t->frames);
    free(t->locend);
    free(t->fcall);
    free(t->fbase);
    free(t->act);
    free(t->cblk);
    free(t->flv);
    free(t->blk);
    free(t->lself);
}

static uint64_t hash_pair(uint32_t a, uint32_t b)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 31);
}

static bool prehash(ptabs *t, size_t cap)
{
    pslot *ct = calloc(cap, sizeof *ct);
    if (!ct) return false;
    for (size_t j = 0; j < t->ccap; j++) {
        pslot c = t->ct[j];
        if (!c.caller1) continue;
        size_t i = (size_t)hash_pair(c.caller1 - 1, c.callee) & (cap - 1);
        while (ct[i].caller1) i = (i + 1) & (cap - 1);
        ct[i] = c;
    }
    free(t->ct);
    t->ct = ct;
    t->ccap = cap;
    return true;
}

/* The call caller -> callee, made if new; UINT32_MAX when out of memory. */
static uint32_t pcall(ptabs *t, uint32_t caller, uint32_t callee)
{
    size_t mask = t->ccap - 1, i = (size_t)hash_pair(caller, callee) & mask;
    for (; t->ct[i].caller1; i = (i + 1) & mask)
        if (t->ct[i].caller1 == caller + 1 && t->ct[i].callee == callee) return t->ct[i].call;
    if (t->ne == t->ecap) {
        uint32_t c = t->ecap ? t->ecap * 2 : 4096;
        if (!grow((void **)&t->ecost, c, sizeof *t->ecost)) return UINT32_MAX;
        if (t->cls && !grow((void **)&t->cblk, c, sizeof *t->cblk)) return UINT32_MAX;
        t->ecap = c;
    }
    if ((size_t)(t->ne + 1) * 2 > t->ccap) {
        if (!prehash(t, t->ccap * 2)) return UINT32_MAX;
        mask = t->ccap - 1;
        i = (size_t)hash_pair(caller, callee) & mask;
        while (t->ct[i].caller1) i = (i + 1) & mask;
    }
    t->ct[i].caller1 = caller + 1;
    t->ct[i].callee = callee;
    t->ct[i].call = t->ne;
    t->ecost[t->ne] = 0;
    if (t->cls) t->cblk[t->ne] = 0;
    return t->ne++;
}

/* Pass 1: every location's functions (a location id indexes an array: the
 * ids of the files this floor reads are small and dense). */
static bool ppass1(ptabs *t, const unsigned char *d, const unsigned char *end)
{
    const unsigned char *p = d;
    while (p < end) {
        uint64_t key = pb_var(&p, end);
        unsigned f = (unsigned)(key >> 3), wt = (unsigned)(key & 7);
        if (f == 5 && wt == 2) { /* a function: its id bounds the self array */
            uint64_t n = pb_var(&p, end);
            if (n > (uint64_t)(end - p)) return false;
            const unsigned char *q = p, *qe = p + n;
            p = qe;
            while (q < qe) {
                uint64_t k = pb_var(&q, qe);
                if (k == (1 << 3)) {
                    uint64_t id = pb_var(&q, qe);
                    if (id >= t->nfun) t->nfun = (size_t)id + 1;
                } else if (!pb_skip(&q, qe, (unsigned)(k & 7)))
                    return false;
            }
            continue;
        }
        if (f != 4 || wt != 2) {
            if (!pb_skip(&p, end, wt)) return false;
            continue;
        }
        uint64_t n = pb_var(&p, end);
        if (n > (uint64_t)(end - p)) return false;
        const unsigned char *q = p, *qe = p + n;
        p = qe;
        uint64_t id = 0;
        size_t first = t->nlf;
        while (q < qe) {
            uint64_t k = pb_var(&q, qe);
            if (k == (1 << 3)) {
                id = pb_var(&q, qe);
            } else if (k == (4 << 3 | 2)) {
                uint64_t m = pb_var(&q, qe);
                if (m > (uint64_t)(qe - q)) return false;
                const unsigned char *r = q, *re = q + m;
                q = re;
                while (r < re) {
                    uint64_t lk = pb_var(&r, re);
                    if (lk == (1 << 3)) {
                        if (t->nlf == t->lfcap) {
                            size_t c = t->lfcap ? t->lfcap * 2 : 4096;
                            if (!grow((void **)&t->lfun, c, sizeof *t->lfun)) return false;
                            t->lfcap = c;
                        }
                        t->lfun[t->nlf++] = (uint32_t)pb_var(&r, re);
                    } else if (!pb_skip(&r, re, (unsigned)(lk & 7)))
                        return false;
                }
            } else if (!pb_skip(&q, qe, (unsigned)(k & 7)))
                return false;
        }
        if (id >= (1u << 24)) return false; /* not this floor's kind of file */
        if (id >= t->lcap) {
            size_t c = t->lcap ? t->lcap : 4096;
            while (c <= id) c *= 2;
            if (!grow((void **)&t->lfirst, c, sizeof *t->lfirst) || !grow((void **)&t->lcount, c, sizeof *t->lcount))
                return false;
            memset(t->lcount + t->lcap, 0, (c - t->lcap) * sizeof *t->lcount);
            t->lcap = c;
        }
        t->lfirst[id] = (uint32_t)first;
        t->lcount[id] = (uint32_t)(t->nlf - first);
    }
    return true;
}

/* Frames [from, to) of the previous sample leave the stack: each one's call
 * takes the weights since the frame came (tot now, less tot then). */
static void pay(ptabs *t, size_t from, size_t to, uint64_t tot)
{
    for (size_t i = from; i < to; i++) t->ecost[t->fcall[i]] += tot - t->fbase[i];
}

/* The class of the call into frame i >= 1: its caller's level times 3
 * plus its own. */
static inline uint32_t frame_cls(const ptabs *t, size_t i) { return t->flv[i - 1] * 3u + t->flv[i]; }

/* The same with classes (from >= 1: frame 0 has no call into it; the
 * levels read are still those of the stack the frames leave); false when
 * out of memory. */
static bool pay_cls(ptabs *t, size_t from, size_t to, uint64_t tot)
{
    for (size_t i = from; i < to; i++) {
        uint32_t e = t->fcall[i], k = frame_cls(t, i);
        uint64_t d = tot - t->fbase[i];
        t->ecost[e] += d;
        if (!k) continue;
        if (!t->cblk[e]) {
            if (t->nblk == t->blkcap) {
                uint32_t c = t->blkcap ? t->blkcap * 2 : 1024;
                if (!grow((void **)&t->blk, (size_t)c * 8, sizeof *t->blk)) return false;
                t->blkcap = c;
            }
            memset(t->blk + (size_t)t->nblk * 8, 0, 8 * sizeof *t->blk);
            t->cblk[e] = ++t->nblk;
        }
        t->blk[(size_t)(t->cblk[e] - 1) * 8 + k - 1] += d;
    }
    return true;
}

uint64_t floor_pprof(const char *data, size_t len, int mode, uint32_t *ncalls, uint64_t *costsum, uint64_t cls6[6])
{
    ptabs t;
    memset(&t, 0, sizeof t);
    bool costs = mode >= FLOOR_PPROF_COSTS;
    t.cls = mode == FLOOR_PPROF_CLASSES;
    uint64_t sum = 0, fail = UINT64_MAX;
    const unsigned char *d = (const unsigned char *)data, *end = d + len;
    if (!ppass1(&t, d, end)) goto out;
    t.self = calloc(t.nfun ? t.nfun : 1, sizeof *t.self);
    if (t.cls && (!(t.act = calloc(t.nfun ? t.nfun : 1, sizeof *t.act)) ||
                  !(t.lself = calloc(t.nfun ? t.nfun * 3 : 1, sizeof *t.lself))))
        goto out;
    /* Sized as the folded floor's call table: a slot per 64 bytes. */
    size_t cw = 4096;
    while (cw < len / 64) cw *= 2;
    if (!t.self || !prehash(&t, cw)) goto out;
    /* Pass 2: each sample's location ids (leaf first), of which only those
     * before the tail of bytes it shares with the previous sample's are
     * decoded; their frames, root first, after the previous sample's
     * frames of the shared locations; a look-up per new frame's call. */
    const unsigned char *p = d, *pl = NULL, *ple = NULL;
    size_t pnloc = 0, pdepth = 0;
    uint64_t tot = 0;
    uint32_t *loc = NULL;
    size_t loccap = 0;
    while (p < end) {
        uint64_t key = pb_var(&p, end);
        unsigned wt = (unsigned)(key & 7);
        if (key != (2 << 3 | 2)) {
            if (!pb_skip(&p, end, wt)) goto out2;
            continue;
        }
        uint64_t n = pb_var(&p, end);
        if (n > (uint64_t)(end - p)) goto out2;
        const unsigned char *q = p, *qe = p + n, *la = NULL, *le = NULL;
        p = qe;
        uint64_t w = 0;
        bool has_w = false;
        size_t nnew = 0;
        while (q < qe) {
            uint64_t k = pb_var(&q, qe);
            if (k == (1 << 3 | 2)) {
                uint64_t m = pb_var(&q, qe);
                if (m > (uint64_t)(qe - q)) goto out2;
                la = q;
                le = q + m;
                q = le;
            } else if (k == (1 << 3)) {
                /* Ids one to a field (Go writes a list of one or two so):
                 * the new ids themselves, with no tail to share. */
                if (nnew == loccap) {
                    size_t cc = loccap ? loccap * 2 : 256;
                    if (!grow((void **)&loc, cc, sizeof *loc)) goto out2;
                    loccap = cc;
                }
                uint64_t id = pb_var(&q, qe);
                if (id >= t.lcap) goto out2;
                loc[nnew++] = (uint32_t)id;
            } else if (k == (2 << 3)) {
                /* The first sample type's value, as the reader's first
                 * metric: of values one to a field (as Go writes two)... */
                uint64_t v = pb_var(&q, qe);
                if (!has_w) w = v;
                has_w = true;
            } else if (k == (2 << 3 | 2)) {
                /* ... or of a packed list. */
                uint64_t m = pb_var(&q, qe);
                if (m > (uint64_t)(qe - q)) goto out2;
                const unsigned char *v = q;
                q += m;
                if (!has_w && m) w = pb_var(&v, q);
                has_w = has_w || m;
            } else if (!pb_skip(&q, qe, (unsigned)(k & 7)))
                goto out2;
        }
        if (la && nnew) goto out2; /* both spellings in one sample: not this floor's kind of file */
        if (!la && !nnew) continue;
        /* The shared tail: bytes equal from the end, cut back to where an
         * id starts in both. */
        size_t c = 0, lim = la ? (size_t)(le - la) : 0;
        if (pl && (size_t)(ple - pl) < lim) lim = (size_t)(ple - pl);
        if (!pl) lim = 0;
        /* Eight bytes a step, then the bytes of the word that differs;
         * the ids in the tail are its bytes below 0x80, counted eight at a
         * time too. */
        size_t shared = 0;
        for (; c + 8 <= lim; c += 8) {
            uint64_t x, y;
            memcpy(&x, le - c - 8, 8);
            memcpy(&y, ple - c - 8, 8);
            if (x != y) break;
            shared += (size_t)((((~x & 0x8080808080808080ull) >> 7) * 0x0101010101010101ull) >> 56);
        }
        while (c < lim && le[-1 - (ptrdiff_t)c] == ple[-1 - (ptrdiff_t)c]) shared += le[-1 - (ptrdiff_t)c++] < 0x80;
        while (c && !((le - c == la || le[-1 - (ptrdiff_t)c] < 0x80) && (ple - c == pl || ple[-1 - (ptrdiff_t)c] < 0x80)))
            shared -= le[-1 - (ptrdiff_t)--c] < 0x80;
        if (shared > pnloc) shared = pnloc;
        /* The new ids, leaf first. */
        for (const unsigned char *r = la; la && r < le - c;) {
            if (nnew == loccap) {
                size_t cc = loccap ? loccap * 2 : 256;
                if (!grow((void **)&loc, cc, sizeof *loc)) goto out2;
                loccap = cc;
            }
            uint64_t id = pb_var(&r, le - c);
            if (id >= t.lcap) goto out2;
            loc[nnew++] = (uint32_t)id;
        }
        size_t nloc = shared + nnew, depth = shared ? t.locend[shared - 1] : 0, need = depth;
        for (size_t i = 0; i < nnew; i++) need += t.lcount[loc[i]];
        if (nloc + 1 > t.fcap || need + 1 > t.fcap) {
            size_t cc = t.fcap ? t.fcap : 256;
            while (cc < nloc + 1 || cc < need + 1) cc *= 2;
            if (!grow((void **)&t.frames, cc, sizeof *t.frames) || !grow((void **)&t.locend, cc, sizeof *t.locend))
                goto out2;
            if (costs && (!grow((void **)&t.fcall, cc, sizeof *t.fcall) || !grow((void **)&t.fbase, cc, sizeof *t.fbase)))
                goto out2;
            if (t.cls && !grow((void **)&t.flv, cc, 1)) goto out2;
            t.fcap = cc;
        }
        /* The previous sample's frames past the shared ones go (frame 0
         * has no call into it). */
        if (t.cls) {
            if (!pay_cls(&t, depth ? depth : 1, pdepth, tot)) goto out2;
            for (size_t i = depth; i < pdepth; i++) t.act[t.frames[i]]--;
        } else if (costs)
            pay(&t, depth ? depth : 1, pdepth, tot);
        uint32_t caller = depth ? t.frames[depth - 1] : UINT32_MAX;
        for (size_t i = nnew, li = shared; i-- > 0; li++) {
            uint32_t id = loc[i];
            /* A location's lines are leaf first: its caller's frame last. */
            for (uint32_t j = t.lcount[id]; j-- > 0;) {
                uint32_t fn = t.lfun[t.lfirst[id] + j];
                if (fn >= t.nfun) goto out2;
                if (t.cls) {
                    uint32_t a = t.act[fn]++;
                    t.flv[depth] = (uint8_t)(a < 2 ? a : 2);
                }
                if (caller != UINT32_MAX) {
                    uint32_t e = pcall(&t, caller, fn);
                    if (e == UINT32_MAX) goto out2;
                    if (costs) {
                        t.fcall[depth] = e;
                        t.fbase[depth] = tot;
                    } else {
                        t.ecost[e] += w;
                    }
                }
                t.frames[depth++] = caller = fn;
            }
            t.locend[li] = (uint32_t)depth;
        }
        tot += w;
        pdepth = depth;
        if (depth) {
            t.self[t.frames[depth - 1]] += w;
            if (t.cls) t.lself[(size_t)t.frames[depth - 1] * 3 + t.flv[depth - 1]] += w;
            sum += t.frames[depth - 1] + w;
        }
        pl = la;
        ple = le;
        pnloc = nloc;
    }
    if (t.cls) {
        if (!pay_cls(&t, 1, pdepth, tot)) goto out2;
        uint64_t c9[9] = {0};
        for (uint32_t e = 0; e < t.ne; e++) {
            uint64_t rest = t.ecost[e];
            for (int c = 1; t.cblk[e] && c < 9; c++) {
                uint64_t v = t.blk[(size_t)(t.cblk[e] - 1) * 8 + c - 1];
                c9[c] += v;
                rest -= v;
            }
            c9[0] += rest;
        }
        if (cls6) {
            cls6[0] = c9[0];
            cls6[1] = c9[1];
            cls6[2] = c9[2];
            cls6[3] = c9[3] + c9[6];
            cls6[4] = c9[4] + c9[7];
            cls6[5] = c9[5] + c9[8];
        }
        for (size_t f = 0; f < t.nfun * 3; f++) sum += t.lself[f];
    } else if (costs)
        pay(&t, 1, pdepth, tot);
    uint64_t cs = 0;
    for (uint32_t e = 0; e < t.ne; e++) cs += t.ecost[e];
    fail = sum + t.ne + cs;
    if (ncalls) *ncalls = t.ne;
    if (costsum) *costsum = cs;
out2:
    free(loc);
out:
    ptabs_free(&t);
    return fail;
}
