/* The event recorder: probes call enter/exit with counter
 * readings; figures reach the graph only at flush, so the hot path never
 * hashes a function's key or touches the graph's tables.
 *
 * The hot path keeps one record per (call, class) — and one per function for
 * its spontaneous entries — and nothing per function: every activation
 * enters through exactly one of them, so each closed activation adds its
 * inclusive cost, its nested count M and a count of 1 to one record. The
 * per-function figures are derived when they are read or flushed:
 *   C_n(f) = Σ records into f with callee class 0 (spontaneous included),
 *   C_r(f) = Σ records into f with callee class 1,
 *   S_n(f) = C of every level-0 activation of f − Σ records out of f with
 *            caller class 0 (exclusive = inclusive − children's inclusive),
 *   S_r(f) likewise over level ≥ 1; L (children) = Σ counts of those
 *            records out of f.
 * Activations still open are corrected for from their frames (the sums of
 * their closed children).
 *
 * Compensation (docs/RECORDER.md, *Compensation*): post-mortem
 * figures come from the raw sums and counts when read. On the fly, each exit
 * computes the activation's compensated inclusive cost and adds it to its
 * record; exclusive figures are derived as above.
 * With clamping the exclusive cost is floored per activation, which is not
 * linear, so a clamping recorder also keeps a compensated exclusive sum per
 * record. Everything is exact integer arithmetic: without clamping the two
 * routes give identical figures.
 *
 * Level >= 2 apart (the callgrind writer's fn'3): caller class 1 lumps
 * levels 1 and deeper, and splitting it in the dense block would add half
 * again to every pair's records for the few pairs deep recursion reaches.
 * So a pair whose caller ever runs at level >= 2 gets a row in a sparse side
 * table (r->deep): 3 more records, by callee class, that the activations
 * entered from a level >= 2 caller add to as well as to their dense record
 * (frame.dri). The dense records, and every figure read from them, stay as
 * they were; flush takes the level >= 2 callers' part of each call and the
 * level >= 2 activations' self cost out of the level >= 1 figures it
 * writes (the graph's dcall and dself). */
#include "recorder.h"
#include "contexts.h"
#include "util/compiler.h"

#include <string.h>

#define NO_SLOT UINT32_MAX
/* The caller of a spontaneous-entry record. */
#define SPONT UINT32_MAX
/* Call classes: caller class (0, >= 1) * 3 + callee class (0, 1, >= 2). */
#define NCALL 6
/* A record is rw = 2 + 2K words: N, M, K raw sums, K compensated sums (the
 * int64 values' two's-complement bits). */
enum { R_N = 0, R_M = 1, R_RAW = 2 };

typedef struct frame {
    uint32_t node;
    uint32_t level; /* exact level */
    uint64_t ri;    /* the record it entered through: slot * NCALL + class */
    uint64_t e0; /* r->nenter after this enter: nested activations = nenter - e0 at exit */
    uint64_t l;  /* direct children closed so far */
    /* Metric 0 (the others are in r->fx): start reading, Σ closed children's
     * raw inclusive, and with clamping Σ their clamped compensated inclusive
     * (int64 bits). */
    uint64_t v[3];
    /* The side-table record it also adds to, plus one (row * 3 + callee
     * class + 1); 0 when its caller runs below level 2. */
    uint64_t dri;
    uint64_t cx; /* its calling context, when the graph keeps them */
} frame;

/* A call index entry: the key (caller << 32 | callee; SPONT as the caller
 * for spontaneous entries) beside the slot's first record, so a look-up
 * touches one line. No pair of function ids spells the empty key. */
typedef struct pentry {
    uint64_t key;
    uint64_t rbase; /* slot * NCALL */
} pentry;
#define EMPTY_KEY UINT64_MAX

struct cgprop_recorder {
    cgprop_graph *g;
    uint32_t K, rw;
    uint32_t mode;
    bool online, clamp;
    bool fast_exit; /* K = 1, no clamping, δ_i + δ_e < 2^31: see cgprop_recorder_exit */
    int64_t di[CGPROP_MAX_METRICS]; /* δ_i */
    int64_t de[CGPROP_MAX_METRICS]; /* δ_e */
    int64_t df[CGPROP_MAX_METRICS]; /* δ_i + δ_e */
    uint64_t last[CGPROP_MAX_METRICS];
    uint64_t nenter; /* enters since the last flush */
    uint64_t clamps, clamps_flushed, floors;

    /* functions seen: ids < fmax; arrays sized fcap; ids < nvalid are
     * known valid (below the graph's count, which never shrinks between
     * calls) and inside the arrays */
    uint32_t fcap, fmax, nvalid;
    uint32_t *active;   /* open activations per function */
    uint32_t *spont;    /* slot of its spontaneous entries, NO_SLOT if none */
    uint32_t *fin;      /* first slot into this function (list through pnin) */
    uint32_t *fout;     /* first slot out of it (list through pnout) */

    /* slots: (caller, callee) pairs and spontaneous entries, NCALL records each */
    uint32_t np, pcap;
    uint32_t *pcaller, *pcallee, *pnin, *pnout;
    uint64_t *rec; /* pcap * NCALL * rw */
    uint64_t *cex; /* pcap * NCALL * K: Σ clamped compensated exclusive (clamping only) */
    /* Level >= 2 callers' records: per pair (slot) that has any, a row of
     * 3 records of rw words by callee class (see the top of this file);
     * dlast: the last slot looked up and its row plus one. */
    cgprop__sparse deep;
    uint32_t dlast_slot, dlast_row;
    pentry *phash;       /* open addressing, at most a quarter full */
    uint64_t phash_mask; /* size - 1, a power of two minus one */
    uint32_t phash_shift; /* 64 - log2(size) */

    /* the stack: fr[0 .. depth-1], below them fr[-1], a frame no activation
     * uses, so that every frame has a parent the probe can add to blindly */
    size_t depth, scap;
    frame *fr;
    uint64_t *fx; /* scap * (K - 1) * 3: frame values of metrics 1 .. K-1 */

    /* Calling contexts (the graph keeps them): each closed activation's raw
     * exclusive cost, per context, until flush adds it to the graph's. */
    bool ctx;
    uint64_t *cpend; /* cpcap * K */
    uint32_t cpcap;

    /* close scratch, 3K */
    uint64_t *s_raw;
    int64_t *s_ci, *s_ce;
};

static const cgprop_graph *G(const cgprop_recorder *r) { return r->g; }

/* The int64 whose two's-complement bits u holds (no implementation-defined
 * conversion; compiles to nothing). */
static inline int64_t as_i64(uint64_t u)
{
    return u <= (uint64_t)INT64_MAX ? (int64_t)u : (int64_t)(u - (uint64_t)INT64_MAX - 1u) + INT64_MIN;
}

static inline uint64_t *REC(const cgprop_recorder *r, uint32_t slot, uint32_t cls)
{
    return r->rec + ((size_t)slot * NCALL + cls) * r->rw;
}

/* The clamped exclusive sums of record ri. */
static inline uint64_t *CEX(const cgprop_recorder *r, uint64_t ri) { return r->cex + (size_t)ri * r->K; }

/* Side-table record dri (frame.dri: record index plus one). */
static inline uint64_t *DREC(const cgprop_recorder *r, uint64_t dri)
{
    return r->deep.val + (size_t)(dri - 1) * r->rw;
}

/* Frame d's values of metric k: start, Σ children raw, Σ children comp
 * (kept with clamping only). */
static inline uint64_t *FV(const cgprop_recorder *r, size_t d, uint32_t k)
{
    return k ? r->fx + (d * (r->K - 1) + (k - 1)) * 3 : r->fr[d].v;
}

static int pair_rehash(cgprop_recorder *r, uint64_t ncap);

/* ---- creation ---- */

void cgprop_recorder_options_init(cgprop_recorder_options *opt)
{
    if (!opt) return;
    memset(opt, 0, sizeof *opt);
    opt->size = (uint32_t)sizeof *opt;
}

int cgprop_recorder_new(cgprop_graph *g, const cgprop_recorder_options *opt, cgprop_recorder **out)
{
    if (out) *out = NULL;
    if (!g) return CGPROP_EINVAL;
    if (!out) return cgprop__err(g, CGPROP_EINVAL, "recorder_new: out is NULL");
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    if (opt && !cgprop__opts_in(&o, sizeof o, opt, sizeof o))
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: options size %u: call cgprop_recorder_options_init() first",
                           opt->size);
    if (o.reserved) return cgprop__err(g, CGPROP_EINVAL, "recorder_new: reserved field is not 0");
    if (o.mode > CGPROP_COMP_POSTMORTEM)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: unknown compensation mode %u", o.mode);
    if (o.flags & ~(uint32_t)(CGPROP_REC_CLAMP | CGPROP_REC_CONTEXTS))
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: unknown flags 0x%x", o.flags);
    if ((o.flags & CGPROP_REC_CLAMP) && o.mode != CGPROP_COMP_ONLINE)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_new: clamping needs on-the-fly compensation");
    int crc = (o.flags & CGPROP_REC_CONTEXTS) ? cgprop_graph_keep_contexts(g, 1) : CGPROP_OK;
    if (crc) return crc;
    uint32_t K = g->K;
    /* δ is copied here, so the caller's arrays need not outlive this call. */
    uint64_t di_v[CGPROP_MAX_METRICS], de_v[CGPROP_MAX_METRICS];
    for (uint32_t k = 0; k < K; k++) {
        di_v[k] = o.delta_i ? o.delta_i[k] : 0;
        de_v[k] = o.delta_e ? o.delta_e[k] : 0;
        if (di_v[k] > (uint64_t)INT64_MAX || de_v[k] > (uint64_t)INT64_MAX - di_v[k])
            return cgprop__err(g, CGPROP_EINVAL, "recorder_new: delta_i + delta_e of metric %u exceeds INT64_MAX",
                               k);
    }
    cgprop_recorder *r = cgprop__calloc(g, 1, sizeof *r);
    if (!r) return cgprop__err(g, CGPROP_ENOMEM, "recorder_new: out of memory");
    r->g = g;
    r->K = K;
    r->rw = 2 + 2 * K;
    r->mode = o.mode;
    r->online = o.mode == CGPROP_COMP_ONLINE;
    r->clamp = (o.flags & CGPROP_REC_CLAMP) != 0;
    /* Contexts are fed from the slow paths only. */
    r->ctx = g->ctx != NULL;
    r->fast_exit = !r->ctx && K == 1 && !r->clamp && (!r->online || di_v[0] + de_v[0] < ((uint64_t)1 << 31));
    for (uint32_t k = 0; k < K; k++) {
        /* With compensation off, δ plays no part anywhere. */
        uint64_t di = o.mode ? di_v[k] : 0, de = o.mode ? de_v[k] : 0;
        r->di[k] = (int64_t)di;
        r->de[k] = (int64_t)de;
        r->df[k] = (int64_t)(di + de);
    }
    r->s_raw = cgprop__alloc(g, K, sizeof *r->s_raw);
    r->s_ci = cgprop__alloc(g, 2 * (size_t)K, sizeof *r->s_ci);
    /* The call index exists from the start: the probe reads it unchecked. */
    if (!r->s_raw || !r->s_ci || pair_rehash(r, 256)) {
        cgprop_recorder_free(r);
        return cgprop__err(g, CGPROP_ENOMEM, "recorder_new: out of memory");
    }
    r->s_ce = r->s_ci + K;
    *out = r;
    return cgprop__ok(g);
}

void cgprop_recorder_free(cgprop_recorder *r)
{
    if (!r) return;
    const cgprop_graph *g = G(r);
    void *arrays[] = {r->active, r->spont, r->fin, r->fout, r->pcaller, r->pcallee, r->pnin, r->pnout,
                      r->rec,    r->cex,   r->phash, r->fx, r->s_raw,  r->s_ci, r->cpend};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) cgprop__free(g, arrays[i]);
    cgprop__free(g, r->deep.slot);
    cgprop__free(g, r->deep.key);
    cgprop__free(g, r->deep.val);
    if (r->fr) cgprop__free(g, r->fr - 1);
    cgprop__free(g, r);
}

size_t cgprop_recorder_depth(const cgprop_recorder *r) { return r ? r->depth : 0; }
uint32_t cgprop__recorder_top(const cgprop_recorder *r) { return r->depth ? r->fr[r->depth - 1].node : UINT32_MAX; }
uint64_t cgprop_recorder_clamp_count(const cgprop_recorder *r) { return r ? r->clamps : 0; }
uint64_t cgprop_recorder_floor_count(const cgprop_recorder *r) { return r ? r->floors : 0; }

/* ---- growth (off the hot path) ---- */

/* Grow one array from old to new elements, zeroing the new part. The array
 * pointer only changes on success, so a later failure leaves arrays that are
 * merely larger than their recorded capacity. */
static bool grow_array(const cgprop_graph *g, void **p, size_t old_n, size_t new_n, size_t size)
{
    void *q = cgprop__realloc(g, *p, new_n, size);
    if (!q) return false;
    memset((char *)q + old_n * size, 0, (new_n - old_n) * size);
    *p = q;
    return true;
}

static int grow_funcs(cgprop_recorder *r, uint32_t node)
{
    cgprop_graph *g = r->g;
    uint64_t want = r->fcap ? (uint64_t)r->fcap * 2 : 64;
    if (want <= node) want = (uint64_t)node + 1;
    if (want < g->nn) want = g->nn;
    if (want > UINT32_MAX) want = UINT32_MAX;
    size_t o = r->fcap, n = (size_t)want;
    bool ok = grow_array(g, (void **)&r->active, o, n, sizeof *r->active) &&
              grow_array(g, (void **)&r->spont, o, n, sizeof *r->spont) &&
              grow_array(g, (void **)&r->fin, o, n, sizeof *r->fin) &&
              grow_array(g, (void **)&r->fout, o, n, sizeof *r->fout);
    if (!ok) return cgprop__err(g, CGPROP_ENOMEM, "recorder: out of memory for function %u", node);
    for (size_t i = o; i < n; i++) {
        r->spont[i] = r->fin[i] = r->fout[i] = NO_SLOT;
    }
    r->fcap = (uint32_t)n;
    return CGPROP_OK;
}

static int grow_stack(cgprop_recorder *r)
{
    cgprop_graph *g = r->g;
    if (r->depth >= UINT32_MAX - 1u)
        return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_enter: more than 2^32 - 2 open activations");
    size_t o = r->scap, n = o ? o * 2 : 256, K1 = (size_t)r->K - 1;
    void *base = r->fr ? (void *)(r->fr - 1) : NULL;
    bool ok = grow_array(g, &base, o ? o + 1 : 0, n + 1, sizeof *r->fr);
    if (ok) {
        r->fr = (frame *)base + 1;
        /* Entries on an empty stack are calls from SPONT at level 0. */
        r->fr[-1].node = SPONT;
        r->fr[-1].level = 0;
    }
    ok = ok && (!K1 || grow_array(g, (void **)&r->fx, o * 3 * K1, n * 3 * K1, sizeof *r->fx));
    if (!ok) return cgprop__err(g, CGPROP_ENOMEM, "recorder_enter: out of memory growing the stack");
    r->scap = n;
    return CGPROP_OK;
}

static inline uint64_t pair_key(uint32_t a, uint32_t b) { return (uint64_t)a << 32 | b; }

/* The home entry of a key in a table of 2^(64 - shift) entries: the top
 * bits of a multiplicative hash (Fibonacci hashing). */
static inline uint64_t pair_home(uint64_t key, uint32_t shift) { return (key * 0x9E3779B97F4A7C15ull) >> shift; }

/* Size the call index for ncap entries (a power of two). */
static int pair_rehash(cgprop_recorder *r, uint64_t ncap)
{
    if (ncap > ((uint64_t)1 << 34)) return CGPROP_EOVERFLOW;
    pentry *t = cgprop__alloc(r->g, (size_t)ncap, sizeof *t);
    if (!t) return CGPROP_ENOMEM;
    for (uint64_t i = 0; i < ncap; i++) t[i].key = EMPTY_KEY;
    uint64_t mask = ncap - 1;
    uint32_t shift = 64;
    for (uint64_t n = ncap; n > 1; n >>= 1) shift--;
    for (uint32_t s = 0; s < r->np; s++) {
        uint64_t key = pair_key(r->pcaller[s], r->pcallee[s]), i = pair_home(key, shift);
        while (t[i].key != EMPTY_KEY) i = (i + 1) & mask;
        t[i].key = key;
        t[i].rbase = (uint64_t)s * NCALL;
    }
    cgprop__free(r->g, r->phash);
    r->phash = t;
    r->phash_mask = ncap - 1;
    r->phash_shift = shift;
    return CGPROP_OK;
}

/* A new (zeroed) slot for calls a -> b, or for b's spontaneous entries when
 * a is SPONT. */
static int slot_new(cgprop_recorder *r, uint32_t a, uint32_t b, uint32_t *out)
{
    cgprop_graph *g = r->g;
    if (r->np >= 0x7FFFFFFEu) return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_enter: too many distinct calls");
    if (r->np == r->pcap) {
        size_t o = r->pcap, n = o ? o * 2 : 128, K = r->K, rw = r->rw;
        bool ok = grow_array(g, (void **)&r->pcaller, o, n, sizeof *r->pcaller) &&
                  grow_array(g, (void **)&r->pcallee, o, n, sizeof *r->pcallee) &&
                  grow_array(g, (void **)&r->pnin, o, n, sizeof *r->pnin) &&
                  grow_array(g, (void **)&r->pnout, o, n, sizeof *r->pnout) &&
                  grow_array(g, (void **)&r->rec, o * NCALL * rw, n * NCALL * rw, sizeof *r->rec) &&
                  (!r->clamp || grow_array(g, (void **)&r->cex, o * NCALL * K, n * NCALL * K, sizeof *r->cex));
        if (!ok) return cgprop__err(g, CGPROP_ENOMEM, "recorder_enter: out of memory for call %u -> %u", a, b);
        r->pcap = (uint32_t)n;
    }
    if ((uint64_t)(r->np + 1) * 4 > r->phash_mask + 1) {
        int rc = pair_rehash(r, (r->phash_mask + 1) * 2);
        if (rc) return cgprop__err(g, rc, "recorder_enter: out of memory for the call index");
    }
    uint32_t s = r->np;
    r->pcaller[s] = a;
    r->pcallee[s] = b;
    r->pnin[s] = r->fin[b];
    r->fin[b] = s;
    if (a != SPONT) {
        r->pnout[s] = r->fout[a];
        r->fout[a] = s;
    } else {
        r->pnout[s] = NO_SLOT;
        r->spont[b] = s;
    }
    uint64_t key = pair_key(a, b), mask = r->phash_mask, i = pair_home(key, r->phash_shift);
    while (r->phash[i].key != EMPTY_KEY) i = (i + 1) & mask;
    r->phash[i].key = key;
    r->phash[i].rbase = (uint64_t)s * NCALL;
    if (b >= r->fmax) r->fmax = b + 1;
    r->np++;
    *out = s;
    return CGPROP_OK;
}

/* ---- exact arithmetic ---- */

/* *a += b on int64 bits, wrapping; true when the signed sum overflowed. The
 * wrapped value is stored either way, so subtracting b undoes it. */
static inline bool add_wrap_i64(uint64_t *a, int64_t b)
{
#if defined(__GNUC__) || defined(__clang__)
    int64_t s;
    const bool o = __builtin_add_overflow(as_i64(*a), b, &s); /* stores the wrapped sum */
    *a = (uint64_t)s;
    return o;
#else
    const uint64_t x = *a, y = (uint64_t)b, s = x + y;
    *a = s;
    return ((~(x ^ y) & (x ^ s)) >> 63) != 0; /* operands of one sign, the sum of the other */
#endif
}

/* A signed 128-bit accumulator (two's complement in two words), so sums of
 * int64 figures with mixed signs are exact whatever order they come in. */
typedef struct wide {
    uint64_t lo, hi;
    bool big; /* a product of 2^126 or more was subtracted: certainly below INT64_MIN */
} wide;

static inline void w_add(wide *w, int64_t v)
{
    uint64_t u = (uint64_t)v, lo = w->lo + u;
    w->hi += (lo < w->lo) + (v < 0 ? UINT64_MAX : 0u);
    w->lo = lo;
}

static inline void w_addu(wide *w, uint64_t u)
{
    uint64_t lo = w->lo + u;
    w->hi += lo < w->lo;
    w->lo = lo;
}

static inline void w_sub(wide *w, int64_t v)
{
    uint64_t u = (uint64_t)v, lo = w->lo - u;
    w->hi -= (lo > w->lo) + (v < 0 ? UINT64_MAX : 0u);
    w->lo = lo;
}

/* w -= a·b for unsigned a, b (the product in 128 bits). A product of 2^126
 * or more makes the result too negative for int64 whatever else is added,
 * and is only flagged, so that a few such terms cannot wrap 128 bits. */
static inline void w_submul(wide *w, uint64_t a, uint64_t b)
{
    const uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    const uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    const uint64_t lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    const uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    if (hi >> 62) {
        w->big = true;
        return;
    }
    const uint64_t nlo = w->lo - lo;
    w->hi = w->hi - hi - (nlo > w->lo);
    w->lo = nlo;
}

static inline bool w_get(const wide *w, int64_t *out)
{
    if (w->big || w->hi != (w->lo >> 63 ? UINT64_MAX : 0u)) return false;
    *out = as_i64(w->lo);
    return true;
}

/* ---- the hot path ---- */

/* The slot of pair (a, b), NO_SLOT when it has none yet. */
static CGPROP__ALWAYS_INLINE uint32_t pair_find(const cgprop_recorder *r, uint32_t a, uint32_t b)
{
    const uint64_t key = pair_key(a, b), mask = r->phash_mask;
    for (uint64_t i = pair_home(key, r->phash_shift);; i = (i + 1) & mask) {
        const pentry *e = &r->phash[i];
        if (e->key == key) return (uint32_t)(e->rbase / NCALL);
        if (e->key == EMPTY_KEY) return NO_SLOT;
    }
}

static uint32_t find_slot(const cgprop_recorder *r, uint32_t a, uint32_t b) { return pair_find(r, a, b); }

static int backwards(cgprop_recorder *r, const char *what, const uint64_t *c)
{
    for (uint32_t k = 0; k < r->K; k++)
        if (c[k] < r->last[k])
            return cgprop__err(r->g, CGPROP_EFORMAT,
                               "%s: counter %u ran backwards (%llu after %llu)", what, k,
                               (unsigned long long)c[k], (unsigned long long)r->last[k]);
    return CGPROP_OK;
}

static inline uint32_t call_class(uint32_t caller_level, uint32_t level)
{
    return (caller_level ? 3u : 0u) + (level < 2 ? level : 2u);
}

/* The side-table row of slot, made (zeros) when it has none. */
static int deep_row(cgprop_recorder *r, uint32_t slot, uint32_t *row)
{
    if (r->dlast_row && r->dlast_slot == slot) {
        *row = r->dlast_row - 1;
        return CGPROP_OK;
    }
    uint32_t x = cgprop__sparse_find(&r->deep, slot);
    if (!x) {
        uint64_t *v;
        if (cgprop__sparse_make(r->g, &r->deep, slot, (size_t)3 * r->rw, &v))
            return cgprop__err(r->g, CGPROP_ENOMEM, "recorder_enter: out of memory");
        x = r->deep.n;
    }
    r->dlast_slot = slot;
    r->dlast_row = x;
    *row = x - 1;
    return CGPROP_OK;
}

/* Everything but the common case: errors, growth, a new call, K > 1. */
static CGPROP__NOINLINE int enter_slow(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!c) return cgprop__err(g, CGPROP_EINVAL, "recorder_enter: counters is NULL");
    if (node >= g->nn)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_enter: function id %u out of range (%u functions)", node,
                           g->nn);
    const uint32_t K = r->K;
    int rc = backwards(r, "recorder_enter", c);
    if (rc) return rc;
    if (node >= r->fcap && (rc = grow_funcs(r, node))) return rc;
    r->nvalid = r->ctx ? 0 : r->fcap < g->nn ? r->fcap : g->nn;
    if (r->depth == r->scap && (rc = grow_stack(r))) return rc;
    const uint32_t lvl = r->active[node];
    if (lvl == UINT32_MAX)
        return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_enter: function %u open 2^32 - 1 times", node);
    const size_t d = r->depth;
    uint32_t slot, cls = 0;
    uint64_t dri = 0;
    if (d) {
        const frame *p = &r->fr[d - 1];
        slot = pair_find(r, p->node, node);
        if (slot == NO_SLOT && (rc = slot_new(r, p->node, node, &slot))) return rc;
        cls = call_class(p->level, lvl);
        if (p->level >= 2) {
            uint32_t row = 0;
            if ((rc = deep_row(r, slot, &row))) return rc;
            dri = (uint64_t)row * 3 + (lvl < 2 ? lvl : 2u) + 1;
        }
    } else {
        slot = r->spont[node];
        if (slot == NO_SLOT && (rc = slot_new(r, SPONT, node, &slot))) return rc;
    }
    uint32_t cx = 0;
    if (r->ctx && (rc = cgprop__ctx_rec_enter(g, d ? (uint32_t)r->fr[d - 1].cx : CGPROP_NONE, node, &cx, &r->cpend,
                                              &r->cpcap)))
        return rc;
    frame *f = &r->fr[d];
    f->cx = cx;
    f->node = node;
    f->level = lvl;
    f->ri = (uint64_t)slot * NCALL + cls;
    f->dri = dri;
    f->e0 = ++r->nenter;
    f->l = 0;
    for (uint32_t k = 0; k < K; k++) {
        uint64_t *v = FV(r, d, k);
        v[0] = c[k];
        v[1] = v[2] = 0;
        r->last[k] = c[k];
    }
    r->active[node] = lvl + 1;
    r->depth = d + 1;
    return cgprop__ok(g);
}

/* Open an activation of node at t (K = 1) entering through (slot, cls);
 * every check is done. */
/* Open frame d for node at t (K = 1) entering through record ri: every
 * check is done. */
static CGPROP__ALWAYS_INLINE int push1(cgprop_recorder *r, frame *f, uint32_t node, uint32_t lvl, uint64_t ri,
                                        uint64_t t, size_t d)
{
    f->node = node;
    f->level = lvl;
    f->ri = ri;
    f->dri = 0;
    f->e0 = ++r->nenter;
    f->l = 0;
    f->v[0] = t;
    f->v[1] = 0;
    f->v[2] = 0;
    r->active[node] = lvl + 1;
    r->last[0] = t;
    r->depth = d + 1;
    /* cgprop__ok() without the call: this runs once per probe. */
    r->g->err[0] = '\0';
    return CGPROP_OK;
}

/* cgprop_recorder_enter's fast case from a caller at level >= 2: the
 * activation also adds to the pair's side-table record (found, or made:
 * out of memory changes nothing). */
static CGPROP__NOINLINE int enter_deep(cgprop_recorder *r, frame *f, uint32_t node, uint32_t lvl, uint64_t rbase,
                                       uint64_t t, size_t d)
{
    uint32_t row;
    if (deep_row(r, (uint32_t)(rbase / NCALL), &row)) return CGPROP_ENOMEM;
    int rc = push1(r, f, node, lvl, rbase + call_class(f[-1].level, lvl), t, d);
    f->dri = (uint64_t)row * 3 + (lvl < 2 ? lvl : 2u) + 1;
    return rc;
}

/* cgprop_recorder_enter's fast case when the call is not in its home entry:
 * the next one (linear probing, at most a quarter full), else the slow way. */
static CGPROP__NOINLINE int enter_next(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    const size_t d = r->depth;
    const uint32_t lvl = r->active[node];
    frame *f = r->fr + d;
    const uint64_t key = pair_key(f[-1].node, node);
    const pentry *e = &r->phash[(pair_home(key, r->phash_shift) + 1) & r->phash_mask];
    if (e->key != key || lvl == UINT32_MAX) return enter_slow(r, node, c);
    if (f[-1].level >= 2) return enter_deep(r, f, node, lvl, e->rbase, c[0], d);
    return push1(r, f, node, lvl, e->rbase + call_class(f[-1].level, lvl), c[0], d);
}

int cgprop_recorder_enter(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    /* The common probe: K = 1, nothing to grow, a call seen before and found
     * in its home entry of the call index (a per-caller last-callee cache
     * missed often enough for its branch to cost more than it saved). The
     * outermost frame's parent is fr[-1], whose function SPONT makes the
     * look-up find the spontaneous-entry record. Everything else is a tail
     * call, so this saves few registers. */
    if (CGPROP__LIKELY(r && c && r->K == 1)) {
        const size_t d = r->depth;
        const uint64_t t = c[0];
        if (CGPROP__LIKELY(node < r->nvalid && d < r->scap && t >= r->last[0])) {
            const uint32_t lvl = r->active[node];
            frame *f = r->fr + d;
            const uint64_t key = pair_key(f[-1].node, node);
            const pentry *e = &r->phash[pair_home(key, r->phash_shift)];
            if (!CGPROP__LIKELY(e->key == key)) return enter_next(r, node, c);
            if (CGPROP__LIKELY(lvl != UINT32_MAX)) {
                /* A level >= 2 caller also needs its side-table record. */
                if (!CGPROP__LIKELY(f[-1].level < 2)) return enter_deep(r, f, node, lvl, e->rbase, t, d);
                return push1(r, f, node, lvl, e->rbase + call_class(f[-1].level, lvl), t, d);
            }
        }
    }
    return enter_slow(r, node, c);
}

/* What closing frame d at readings c adds (any K, any mode): the raw and
 * compensated inclusive costs into s_raw / s_ci, the compensated exclusive
 * into s_ce (clamping only), the nested count and the clamps. False when a
 * sum it adds to would overflow. Frame d's own values do not change when it
 * closes, so the same call after the close gives the same effect (reopen). */
static bool close_effect(cgprop_recorder *r, size_t d, const uint64_t *c, uint64_t *m_out, uint64_t *nclamps)
{
    const frame *f = &r->fr[d];
    const uint32_t K = r->K;
    const uint64_t *rec = r->rec + f->ri * r->rw;
    const uint64_t *cex = r->clamp ? CEX(r, f->ri) : NULL;
    const uint64_t *drec = f->dri ? DREC(r, f->dri) : NULL;
    const uint64_t m = r->nenter - f->e0;
    uint64_t t;
    int64_t s;
    /* Sums of disjoint activations cannot outgrow the counters' range; only
     * calls into level >= 2 activations nest. Checking every record costs
     * the same as choosing which. */
    bool ovf = cgprop__add_u64(rec[R_M], m, &t);
    if (drec) ovf |= cgprop__add_u64(drec[R_M], m, &t);
    *nclamps = 0;
    for (uint32_t k = 0; k < K; k++) {
        const uint64_t *v = FV(r, d, k);
        uint64_t raw = c[k] - v[0];
        r->s_raw[k] = raw;
        ovf |= cgprop__add_u64(rec[R_RAW + k], raw, &t);
        if (drec) ovf |= cgprop__add_u64(drec[R_RAW + k], raw, &t);
        if (!r->online) continue;
        /* raw − δ_i − m·(δ_i + δ_e), exactly: only the result must fit. */
        int64_t ci = 0, ce = 0;
        wide w = {raw, 0, false};
        w_submul(&w, 1, (uint64_t)r->di[k]);
        w_submul(&w, m, (uint64_t)r->df[k]);
        ovf |= !w_get(&w, &ci);
        if (r->clamp) {
            if (ci < 0) {
                ci = 0;
                ++*nclamps;
            }
            ovf |= cgprop__sub_i64(ci, as_i64(v[2]), &ce);
            if (ce < 0) {
                ce = 0;
                ++*nclamps;
            }
            ovf |= cgprop__add_i64(as_i64(cex[k]), ce, &s);
        }
        r->s_ci[k] = ci;
        r->s_ce[k] = ce;
        ovf |= cgprop__add_i64(as_i64(rec[R_RAW + K + k]), ci, &s);
        if (drec) ovf |= cgprop__add_i64(as_i64(drec[R_RAW + K + k]), ci, &s);
        if (d && r->clamp) ovf |= cgprop__add_i64(as_i64(FV(r, d - 1, k)[2]), ci, &s);
    }
    *m_out = m;
    return !ovf;
}

/* Add the effect close_effect computed for frame d (undo: take it away
 * again, reopening the frame). Exact: every sum was checked on the way in. */
static void close_apply(cgprop_recorder *r, size_t d, uint64_t m, uint64_t nclamps, bool undo)
{
    frame *f = &r->fr[d];
    const uint32_t K = r->K;
    uint64_t *rec = r->rec + f->ri * r->rw;
    uint64_t *cex = r->clamp ? CEX(r, f->ri) : NULL;
    uint64_t *drec = f->dri ? DREC(r, f->dri) : NULL;
    /* Unsigned sums wrap the same way either direction: adding x then
     * adding 0 - x restores every word. */
    const uint64_t one = undo ? UINT64_MAX : 1u;
#define SGN(x) (undo ? 0u - (uint64_t)(x) : (uint64_t)(x))
    rec[R_N] += one;
    rec[R_M] += SGN(m);
    if (drec) {
        drec[R_N] += one;
        drec[R_M] += SGN(m);
    }
    r->clamps += SGN(nclamps);
    for (uint32_t k = 0; k < K; k++) {
        uint64_t raw = r->s_raw[k];
        rec[R_RAW + k] += SGN(raw);
        if (r->online) rec[R_RAW + K + k] += SGN(r->s_ci[k]);
        if (cex) cex[k] += SGN(r->s_ce[k]);
        if (drec) {
            drec[R_RAW + k] += SGN(raw);
            if (r->online) drec[R_RAW + K + k] += SGN(r->s_ci[k]);
        }
        if (d) {
            uint64_t *pv = FV(r, d - 1, k);
            pv[1] += SGN(raw);
            if (r->clamp) pv[2] += SGN(r->s_ci[k]);
        }
    }
    if (d) f[-1].l += one;
    if (r->ctx)
        for (uint32_t k = 0; k < K; k++) r->cpend[f->cx * K + k] += SGN(r->s_raw[k] - FV(r, d, k)[1]);
#undef SGN
    if (undo) {
        r->active[f->node]++;
        r->depth = d + 1;
    } else {
        r->active[f->node]--;
        r->depth = d;
    }
}

/* Close the innermost activation at readings c (already checked: not
 * backwards), all or nothing. */
static int close_top(cgprop_recorder *r, const uint64_t *c)
{
    const size_t d = r->depth - 1;
    uint64_t m, nclamps;
    if (!close_effect(r, d, c, &m, &nclamps))
        return cgprop__err(r->g, CGPROP_EOVERFLOW,
                           "recorder_exit: a figure of function %u would overflow; nothing recorded", r->fr[d].node);
    close_apply(r, d, m, nclamps, false);
    return CGPROP_OK;
}

/* Reopen the activations closed since the depth was d0, innermost last, as
 * they were before being closed at readings c. */
static void reopen_to(cgprop_recorder *r, const uint64_t *c, size_t d0)
{
    while (r->depth < d0) {
        uint64_t m, nclamps;
        (void)close_effect(r, r->depth, c, &m, &nclamps);
        close_apply(r, r->depth, m, nclamps, true);
    }
}

static CGPROP__NOINLINE int exit_slow(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!c) return cgprop__err(g, CGPROP_EINVAL, "recorder_exit: counters is NULL");
    if (!r->depth)
        return cgprop__err(g, CGPROP_EFORMAT, "recorder_exit: exit of function %u with no open activation", node);
    uint32_t top = r->fr[r->depth - 1].node;
    if (top != node)
        return cgprop__err(g, CGPROP_EFORMAT,
                           "recorder_exit: exit of function %u but the innermost open activation is of %u", node,
                           top);
    int rc = backwards(r, "recorder_exit", c);
    if (rc) return rc;
    if ((rc = close_top(r, c))) return rc;
    for (uint32_t k = 0; k < r->K; k++) r->last[k] = c[k];
    return cgprop__ok(g);
}

/* cgprop_recorder_exit's fast path added the innermost activation's M, raw
 * and compensated inclusive cost to its record and found an overflow: take
 * them back (the sums wrapped modulo 2^64, so subtracting restores them). */
static CGPROP__NOINLINE int exit_undo(cgprop_recorder *r, uint64_t t)
{
    const frame *f = r->fr + r->depth - 1;
    const uint64_t raw = t - f->v[0], m = r->nenter - f->e0;
    uint64_t *rec = r->rec + f->ri * 4;
    for (int i = 0; i < 2; i++) {
        rec[R_M] -= m;
        rec[R_RAW] -= raw;
        if (r->online) rec[R_RAW + 1] -= (uint64_t)((int64_t)raw - r->di[0] - (int64_t)m * r->df[0]);
        if (!f->dri) break;
        rec = DREC(r, f->dri);
    }
    return cgprop__err(r->g, CGPROP_EOVERFLOW,
                       "recorder_exit: a figure of function %u would overflow; nothing recorded", f->node);
}

int cgprop_recorder_exit(cgprop_recorder *r, uint32_t node, const uint64_t *c)
{
    /* The common probe: K = 1, no clamping, the innermost activation, time
     * moving on. close_effect/close_apply written out for it: one record
     * and the parent's frame, each new sum computed once, checked, then
     * stored. */
    if (CGPROP__LIKELY(r && c && r->fast_exit && r->depth)) {
        const size_t d = r->depth - 1;
        frame *f = r->fr + d;
        const uint64_t t = c[0];
        if (CGPROP__LIKELY(f->node == node && t >= r->last[0])) {
            const uint64_t raw = t - f->v[0], m = r->nenter - f->e0;
            /* δ_i + δ_e < 2^31 (fast_exit); with raw and m below 2^31 as
             * well, raw − δ_i − m·(δ_i + δ_e) stays far inside int64.
             * Anything longer takes the checked path. */
            if (r->online && !CGPROP__LIKELY(((raw | m) >> 31) == 0)) return exit_slow(r, node, c);
            /* Added first, checked after: an overflow (which never happens
             * in practice) is taken back exactly by exit_undo. Fewer values
             * live at once, fewer registers to save. */
            uint64_t *rec = r->rec + f->ri * 4;
            /* Only on the fly are raw and m known to be small here. */
            const int64_t ci = r->online ? (int64_t)raw - r->di[0] - (int64_t)m * r->df[0] : 0;
            bool ovf = cgprop__add_u64(rec[R_M], m, &rec[R_M]);
            ovf |= cgprop__add_u64(rec[R_RAW], raw, &rec[R_RAW]);
            if (r->online) ovf |= add_wrap_i64(&rec[R_RAW + 1], ci);
            /* Entered from a level >= 2 caller: its side-table record too. */
            uint64_t *drec = f->dri ? DREC(r, f->dri) : NULL;
            if (drec) {
                ovf |= cgprop__add_u64(drec[R_M], m, &drec[R_M]);
                ovf |= cgprop__add_u64(drec[R_RAW], raw, &drec[R_RAW]);
                if (r->online) ovf |= add_wrap_i64(&drec[R_RAW + 1], ci);
            }
            if (ovf) return exit_undo(r, t);
            rec[R_N]++;
            if (drec) drec[R_N]++;
            /* The parent (fr[-1] for the outermost frame): children's
             * intervals lie inside the parent's, so no wrap. */
            f[-1].v[1] += raw;
            f[-1].l++;
            r->active[node]--;
            r->depth = d;
            r->last[0] = t;
            r->g->err[0] = '\0';
            return CGPROP_OK;
        }
    }
    return exit_slow(r, node, c);
}

/* Close every open activation at c, all or nothing. */
static int unwind_all(cgprop_recorder *r, const uint64_t *c)
{
    const size_t d0 = r->depth;
    while (r->depth) {
        int rc = close_top(r, c);
        if (rc) {
            reopen_to(r, c, d0);
            return rc;
        }
    }
    return CGPROP_OK;
}

int cgprop_recorder_unwind(cgprop_recorder *r, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!r->depth) return cgprop__ok(g);
    if (!c) return cgprop__err(g, CGPROP_EINVAL, "recorder_unwind: counters is NULL with open activations");
    int rc = backwards(r, "recorder_unwind", c);
    if (rc) return rc;
    if ((rc = unwind_all(r, c))) return rc;
    for (uint32_t k = 0; k < r->K; k++) r->last[k] = c[k];
    return cgprop__ok(g);
}

/* ---- reading figures ---- */

/* One figure, for metrics k0 .. k1-1: N, the second count (L for self
 * figures, M otherwise), raw sums, compensated sums. */
typedef struct figval {
    uint64_t n, x;
    bool self;
    bool comp_ok; /* every compensated value in range */
    uint64_t raw[CGPROP_MAX_METRICS];
    int64_t comp[CGPROP_MAX_METRICS];
} figval;

/* Which classes of a slot into f (and out of f, for self figures) a
 * function figure sums, as bit masks over the NCALL classes. */
static const uint8_t in_mask[5] = {
    /* S_n */ 1u << 0 | 1u << 3, /* S_r */ 1u << 1 | 1u << 2 | 1u << 4 | 1u << 5,
    /* C_n */ 1u << 0 | 1u << 3, /* C_r */ 1u << 1 | 1u << 4, /* spont */ 1u << 0};
static const uint8_t out_mask[2] = {/* S_n */ 1u << 0 | 1u << 1 | 1u << 2, /* S_r */ 1u << 3 | 1u << 4 | 1u << 5};

/* Add (sub: subtract) one record to v: its count to *cnt, M to *x (when
 * x), raw sums, and compensated sums to w (when w): the clamped exclusive
 * sums cex instead when given. */
static void acc_one(const cgprop_recorder *r, const uint64_t *rec, const uint64_t *cex, bool sub, uint32_t k0,
                    uint32_t k1, figval *v, wide *w, uint64_t *cnt, uint64_t *x)
{
    const uint32_t K = r->K;
    *cnt += rec[R_N];
    if (x) *x += rec[R_M];
    /* Raw sums wrap freely: each figure's true value fits (fig_value),
     * so the result modulo 2^64 is exact. */
    for (uint32_t k = k0; k < k1; k++) {
        v->raw[k] += sub ? 0u - rec[R_RAW + k] : rec[R_RAW + k];
        if (!w) continue;
        int64_t c = cex ? as_i64(cex[k]) : as_i64(rec[R_RAW + K + k]);
        if (sub) w_sub(&w[k], c);
        else w_add(&w[k], c);
    }
}

/* acc_one over the classes in mask of a slot's records. */
static void acc_records(const cgprop_recorder *r, uint32_t slot, unsigned mask, bool sub, uint32_t k0, uint32_t k1,
                        figval *v, wide *w, uint64_t *cnt, uint64_t *x)
{
    for (uint32_t cls = 0; cls < NCALL; cls++) {
        if (!(mask >> cls & 1u)) continue;
        const uint64_t *rec = REC(r, slot, cls);
        if (!rec[R_N]) continue;
        /* A clamping recorder keeps each activation's floored exclusive. */
        acc_one(r, rec, r->clamp && v->self ? CEX(r, (uint64_t)slot * NCALL + cls) : NULL, sub, k0, k1, v, w, cnt,
                x);
    }
}

/* The compensated value of metric k from the raw sum and counts (the
 * post-mortem route, and compensation off), computed exactly; false when
 * the result is out of int64 range. */
static bool postmortem(const cgprop_recorder *r, const figval *v, uint32_t k, int64_t *out)
{
    wide w = {v->raw[k], 0, false};
    if (r->mode == CGPROP_COMP_POSTMORTEM) {
        /* I = I_meas - N·δ_i - M·(δ_i+δ_e);  E = E_meas - N·δ_i - L·δ_e */
        w_submul(&w, v->n, (uint64_t)r->di[k]);
        w_submul(&w, v->x, (uint64_t)(v->self ? r->de[k] : r->df[k]));
    }
    return w_get(&w, out);
}

/* Figure `which` (a cgprop_recorder_figure_kind) of node, or of call slot
 * `slot` (NO_SLOT: none recorded) for call figures, for metrics k0 .. k1-1. Every raw figure is a sum of
 * disjoint intervals inside one flush period's readings (exclusive costs,
 * level-0 or level-1 activations, calls into level 0 or 1) or was checked at
 * exit (calls into level >= 2), so it fits in 64 bits; compensated ones may
 * not fit in int64 (comp_ok false). */
static void fig_value(const cgprop_recorder *r, uint32_t which, uint32_t node, uint32_t slot, uint32_t k0,
                      uint32_t k1, figval *v)
{
    wide w[CGPROP_MAX_METRICS];
    v->n = v->x = 0;
    v->self = which <= CGPROP_RF_S_R;
    v->comp_ok = true;
    for (uint32_t k = k0; k < k1; k++) {
        v->raw[k] = 0;
        v->comp[k] = 0;
        w[k].lo = w[k].hi = 0;
        w[k].big = false;
    }
    wide *wc = r->online ? w : NULL;
    if (which >= CGPROP_RF_C_NN) {
        if (slot != NO_SLOT) acc_records(r, slot, 1u << (which - CGPROP_RF_C_NN), false, k0, k1, v, wc, &v->n, &v->x);
    } else if (node >= r->fcap) {
        /* never entered */
    } else if (which == CGPROP_RF_SPONT) {
        if (r->spont[node] != NO_SLOT) acc_records(r, r->spont[node], 1u, false, k0, k1, v, wc, &v->n, &v->x);
    } else {
        for (uint32_t s = r->fin[node]; s != NO_SLOT; s = r->pnin[s])
            acc_records(r, s, in_mask[which], false, k0, k1, v, wc, &v->n, v->self ? NULL : &v->x);
        if (v->self) {
            /* Exclusive = inclusive − the children's inclusive: the calls out
             * of the activations of this class. Clamped exclusive sums are
             * kept whole, so with clamping only raw figures and L derive. */
            uint64_t l = 0;
            if (r->clamp) wc = NULL;
            for (uint32_t s = r->fout[node]; s != NO_SLOT; s = r->pnout[s])
                acc_records(r, s, out_mask[which], true, k0, k1, v, wc, &l, NULL);
            /* Activations still open are not in the inclusive sums, but
             * their closed children are in the calls out: add those back.
             * Their compensated inclusive sum is raw − l·δ_i − M·(δ_i+δ_e)
             * (exact without clamping), M the activations nested below
             * them: those entered after the open one and before its open
             * child (or now), less the children themselves. */
            for (size_t d = 0; d < r->depth; d++) {
                const frame *f = &r->fr[d];
                if (f->node != node || (f->level ? CGPROP_RF_S_R : CGPROP_RF_S_N) != which) continue;
                l -= f->l;
                const uint64_t below = (d + 1 < r->depth ? f[1].e0 - 1 : r->nenter) - f->e0, mc = below - f->l;
                for (uint32_t k = k0; k < k1; k++) {
                    const uint64_t *fv = FV(r, d, k);
                    v->raw[k] += fv[1];
                    if (!wc) continue;
                    w_addu(&w[k], fv[1]);
                    w_submul(&w[k], f->l, (uint64_t)r->di[k]);
                    w_submul(&w[k], mc, (uint64_t)r->df[k]);
                }
            }
            v->x = l;
        }
    }
    for (uint32_t k = k0; k < k1; k++) {
        bool ok = r->online ? w_get(&w[k], &v->comp[k]) : postmortem(r, v, k, &v->comp[k]);
        if (!ok) v->comp_ok = false;
    }
}

int cgprop_recorder_get(cgprop_recorder *r, uint32_t which, uint32_t node, uint32_t callee, uint32_t metric,
                        cgprop_recorder_figure *out, size_t size)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    if (!out || size != sizeof *out)
        return cgprop__err(g, CGPROP_EINVAL, "recorder_get: out is NULL or size is not sizeof(cgprop_recorder_figure)");
    memset(out, 0, sizeof *out);
    if (which > CGPROP_RF_C_RD) return cgprop__err(g, CGPROP_EINVAL, "recorder_get: unknown figure %u", which);
    if (metric >= r->K) return cgprop__err(g, CGPROP_EINVAL, "recorder_get: metric %u out of range", metric);
    if (node >= g->nn || (which >= CGPROP_RF_C_NN && callee >= g->nn))
        return cgprop__err(g, CGPROP_EINVAL, "recorder_get: function id out of range (%u functions)", g->nn);
    figval v;
    uint32_t slot = which >= CGPROP_RF_C_NN ? find_slot(r, node, callee) : NO_SLOT;
    fig_value(r, which, node, slot, metric, metric + 1, &v);
    if (!v.comp_ok)
        return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_get: compensated figure leaves the int64 range");
    out->count = v.n;
    out->nested = v.self ? 0 : v.x;
    out->children = v.self ? v.x : 0;
    out->raw = v.raw[metric];
    out->comp = v.comp[metric];
    return cgprop__ok(g);
}

/* ---- flush ---- */

static bool any_count(const cgprop_recorder *r, uint32_t slot)
{
    for (uint32_t cls = 0; cls < NCALL; cls++)
        if (REC(r, slot, cls)[R_N]) return true;
    return false;
}

/* ---- level >= 2 parts (flush, after unwinding) ---- */

/* What flush writes as the level >= 2 part of a figure it writes as `cap`
 * (K values): the part computed as that figure is (raw with compensation
 * off, else compensated), kept within 0 .. cap so that the level >= 1 rest
 * is never negative and every figure written stays as it would be without
 * the parts. v holds the part's counts and raw sums, w its compensated
 * sums on the fly. */
static void deep_write(const cgprop_recorder *r, const figval *v, const wide *w, const uint64_t *cap, uint64_t *out)
{
    for (uint32_t k = 0; k < r->K; k++) {
        if (r->mode == CGPROP_COMP_OFF) {
            out[k] = v->raw[k] < cap[k] ? v->raw[k] : cap[k];
            continue;
        }
        wide x = {v->raw[k], 0, false};
        if (r->online) {
            x = w[k];
        } else {
            w_submul(&x, v->n, (uint64_t)r->di[k]);
            w_submul(&x, v->x, (uint64_t)(v->self ? r->de[k] : r->df[k]));
        }
        /* Negative (or flagged far below INT64_MIN): 0; above cap: cap. */
        out[k] = x.big || x.hi >> 63 ? 0u : x.hi || x.lo > cap[k] ? cap[k] : x.lo;
    }
}

/* Level >= 2 self cost of node into out, of S_r written as cap: its level
 * >= 2 activations' inclusive (the records into it of callee class >= 2)
 * less their children's (the side-table records of the calls out of it);
 * with clamping the clamped exclusive sums of those activations. */
static void deep_self(const cgprop_recorder *r, uint32_t node, const uint64_t *cap, uint64_t *out)
{
    const uint32_t K = r->K;
    figval v;
    wide w[CGPROP_MAX_METRICS];
    memset(&v, 0, sizeof v);
    memset(w, 0, sizeof w);
    v.self = true;
    wide *wc = r->online ? w : NULL;
    for (uint32_t s = r->fin[node]; s != NO_SLOT; s = r->pnin[s])
        acc_records(r, s, 1u << 2 | 1u << 5, false, 0, K, &v, wc, &v.n, NULL);
    if (r->clamp) wc = NULL;
    for (uint32_t s = r->fout[node]; v.n && s != NO_SLOT; s = r->pnout[s]) {
        uint32_t row = cgprop__sparse_find(&r->deep, s);
        for (uint32_t l = 0; row && l < 3; l++) {
            const uint64_t *rec = DREC(r, (uint64_t)(row - 1) * 3 + l + 1);
            if (rec[R_N]) acc_one(r, rec, NULL, true, 0, K, &v, wc, &v.x, NULL);
        }
    }
    deep_write(r, &v, w, cap, out);
}

/* Level >= 2 callers' part of the call figure flush writes as cap, from
 * side-table record rec; its call count into *n. */
static void deep_call(const cgprop_recorder *r, const uint64_t *rec, const uint64_t *cap, uint64_t *out,
                      uint64_t *n)
{
    figval v;
    wide w[CGPROP_MAX_METRICS];
    memset(&v, 0, sizeof v);
    memset(w, 0, sizeof w);
    acc_one(r, rec, NULL, false, 0, r->K, &v, r->online ? w : NULL, &v.n, &v.x);
    deep_write(r, &v, w, cap, out);
    *n = v.n;
}

/* Whether node had level >= 2 activations. */
static bool deep_any(const cgprop_recorder *r, uint32_t node)
{
    for (uint32_t s = r->fin[node]; s != NO_SLOT; s = r->pnin[s])
        if (REC(r, s, 2)[R_N] || REC(r, s, 5)[R_N]) return true;
    return false;
}

/* The values flush writes for v: the raw sums with compensation off, else
 * the compensated ones floored at 0 (counted in *floors). False when a
 * compensated value is out of range. */
static bool fig_write(const cgprop_recorder *r, const figval *v, uint64_t *out, uint64_t *floors)
{
    const uint32_t K = r->K;
    if (r->mode == CGPROP_COMP_OFF) {
        memcpy(out, v->raw, K * sizeof *out);
        return true;
    }
    if (!v->comp_ok) return false;
    for (uint32_t k = 0; k < K; k++) {
        int64_t c = v->comp[k];
        if (c < 0) ++*floors;
        out[k] = c < 0 ? 0u : (uint64_t)c;
    }
    return true;
}

/* Check every sum flush will add against the store's overflow rules
 * (phase 2), or add them (phase 3). */
static int flush_pass(cgprop_recorder *r, bool write, uint64_t *callin, uint64_t *floors)
{
    cgprop_graph *g = r->g;
    const uint32_t K = r->K;
    uint64_t val[CGPROP_MAX_METRICS], sum[CGPROP_MAX_METRICS], dval[CGPROP_MAX_METRICS];
    figval v;
    int rc;

    for (uint32_t node = 0; node < r->fmax; node++) {
        memset(sum, 0, K * sizeof sum[0]);
        for (uint32_t cls = 0; cls < 2; cls++) {
            fig_value(r, CGPROP_RF_S_N + cls, node, NO_SLOT, 0, K, &v);
            if (!v.n) continue;
            if (!fig_write(r, &v, val, floors)) goto ovf;
            for (uint32_t k = 0; k < K; k++)
                if (cgprop__add_u64(sum[k], val[k], &sum[k])) goto ovf;
            if (!write) continue;
            /* The level >= 2 activations' part of S_r goes to the graph's
             * dself (its row was made in phase 1). */
            if (cls && deep_any(r, node)) {
                deep_self(r, node, val, dval);
                for (uint32_t k = 0; k < K; k++) val[k] -= dval[k];
                if ((rc = cgprop_graph_add_self_class(g, node, CGPROP_LEVEL_DEEP, dval))) return rc;
            }
            if ((rc = cgprop_graph_add_self_class(g, node, cls, val))) return rc;
        }
        if (!write && !cgprop__fits_self(g, node, sum)) goto ovf;
        fig_value(r, CGPROP_RF_SPONT, node, NO_SLOT, 0, K, &v);
        if (!v.n) continue;
        if (!fig_write(r, &v, val, floors)) goto ovf;
        if (write) {
            if ((rc = cgprop_graph_add_spontaneous(g, node, v.n, val))) return rc;
        } else if (!cgprop__fits_spont(g, node, v.n, val)) {
            goto ovf;
        }
    }
    for (uint32_t s = 0; s < r->np; s++) {
        uint32_t a = r->pcaller[s], b = r->pcallee[s];
        if (a == SPONT || !any_count(r, s)) continue;
        uint64_t calls = 0;
        memset(sum, 0, K * sizeof sum[0]);
        uint32_t row = write ? cgprop__sparse_find(&r->deep, s) : 0;
        for (uint32_t cls = 0; cls < NCALL; cls++) {
            if (!REC(r, s, cls)[R_N]) continue;
            fig_value(r, CGPROP_RF_C_NN + cls, a, s, 0, K, &v);
            if (!fig_write(r, &v, val, floors)) goto ovf;
            for (uint32_t k = 0; k < K; k++)
                if (cgprop__add_u64(sum[k], val[k], &sum[k])) goto ovf;
            if (cgprop__add_u64(calls, v.n, &calls)) goto ovf;
            if (!write) continue;
            /* Level >= 2 callers' part of a level >= 1 caller class goes to
             * the graph's dcall (prepared in phase 1). */
            const uint64_t *drec = row && cls >= 3 ? DREC(r, (uint64_t)(row - 1) * 3 + cls - 3 + 1) : NULL;
            uint64_t n = v.n, dn;
            if (drec && drec[R_N]) {
                deep_call(r, drec, val, dval, &dn);
                for (uint32_t k = 0; k < K; k++) val[k] -= dval[k];
                n -= dn;
                if ((rc = cgprop_graph_add_edge_class(g, a, b, CGPROP_LEVEL_DEEP, cls % 3, dn, dval, NULL)))
                    return rc;
            }
            if ((rc = cgprop_graph_add_edge_class(g, a, b, cls / 3, cls % 3, n, val, NULL))) return rc;
        }
        if (!write) {
            uint32_t e = cgprop__edge_lookup(g, a, b);
            if (!cgprop__fits_call(g, e, calls, sum)) goto ovf;
            if (cgprop__add_u64(callin[b], calls, &callin[b]) || !cgprop__fits_calls_in(g, b, callin[b])) goto ovf;
        }
    }
    if (!write && !cgprop__fits_clamps(g, r->clamps - r->clamps_flushed)) goto ovf;
    return CGPROP_OK;
ovf:
    return cgprop__err(g, CGPROP_EOVERFLOW, "recorder_flush: a figure would overflow; nothing written");
}

static void clear_figures(cgprop_recorder *r)
{
    memset(r->last, 0, sizeof r->last);
    r->nenter = 0;
    if (r->deep.n) memset(r->deep.val, 0, (size_t)r->deep.n * 3 * r->rw * sizeof *r->deep.val);
    if (!r->np) return;
    memset(r->rec, 0, (size_t)r->np * NCALL * r->rw * sizeof *r->rec);
    if (r->cex) memset(r->cex, 0, (size_t)r->np * NCALL * r->K * sizeof *r->cex);
}

int cgprop_recorder_flush(cgprop_recorder *r, const uint64_t *c)
{
    if (!r) return CGPROP_EINVAL;
    cgprop_graph *g = r->g;
    const uint32_t K = r->K;
    const size_t d0 = r->depth;
    int rc;
    if (d0) {
        if (!c) return cgprop__err(g, CGPROP_EINVAL, "recorder_flush: counters is NULL with open activations");
        if ((rc = backwards(r, "recorder_flush", c))) return rc;
    }
    /* Everything that can fail comes before anything the caller could see,
     * or is undone: the open activations are closed (and reopened on
     * failure), the calls flush needs are created (and removed on failure),
     * every sum is checked, and only then is anything added. */
    uint64_t *callin = cgprop__calloc(g, g->nn, sizeof *callin);
    if (!callin) return cgprop__err(g, CGPROP_ENOMEM, "recorder_flush: out of memory");
    uint64_t last0[CGPROP_MAX_METRICS];
    memcpy(last0, r->last, K * sizeof last0[0]);
    if ((rc = unwind_all(r, c))) {
        cgprop__free(g, callin);
        return rc;
    }
    if (d0) memcpy(r->last, c, K * sizeof r->last[0]);

    /* Phase 1: make every call exist, so phase 3 cannot need memory. */
    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    for (uint32_t s = 0; s < r->np && !rc; s++) {
        uint32_t e;
        if (r->pcaller[s] == SPONT || !any_count(r, s)) continue;
        rc = cgprop__edge_get_or_add(g, r->pcaller[s], r->pcallee[s], &e);
        /* Each class with calls is added to (flush_pass). */
        for (uint32_t cls = 0; cls < NCALL && !rc; cls++)
            if (REC(r, s, cls)[R_N]) rc = cgprop__ecls_prepare(g, e, (int)cgprop__cls(cls / 3, cls % 3), true);
        /* And each level >= 2 callers' part, with the call's dcall row. */
        uint32_t row = cgprop__sparse_find(&r->deep, s);
        for (uint32_t l = 0; row && l < 3 && !rc; l++)
            if (DREC(r, (uint64_t)(row - 1) * 3 + l + 1)[R_N]) rc = cgprop__ecls_prepare(g, e, (int)cgprop__cls(2, l), true);
        if (rc)
            cgprop__err(g, rc, "recorder_flush: %s adding calls; nothing written",
                        rc == CGPROP_ENOMEM ? "out of memory" : "too many calls");
    }
    /* The dself rows of the functions with level >= 2 activations. */
    for (uint32_t node = 0; node < r->fmax && !rc; node++) {
        uint64_t *row;
        if (deep_any(r, node) && cgprop__sparse_make(g, &g->dself, node, K, &row))
            rc = cgprop__err(g, CGPROP_ENOMEM, "recorder_flush: out of memory; nothing written");
    }
    /* Phase 2: check. */
    uint64_t floors = 0;
    if (!rc) rc = flush_pass(r, false, callin, &floors);
    cgprop__free(g, callin);
    if (!rc && !cgprop__fits_floors(g, floors))
        rc = cgprop__err(g, CGPROP_EOVERFLOW, "recorder_flush: the graph's floor count would overflow; nothing written");
    if (!rc && r->ctx && !cgprop__ctx_pending(g, r->cpend, r->cpcap, false))
        rc = cgprop__err(g, CGPROP_EOVERFLOW, "recorder_flush: a context's cost would overflow; nothing written");
    if (rc) {
        cgprop__txn_rollback(g, &t);
        reopen_to(r, c, d0);
        memcpy(r->last, last0, K * sizeof r->last[0]);
        return rc;
    }
    /* Phase 3: add. */
    floors = 0;
    rc = flush_pass(r, true, NULL, &floors);
    if (rc) return rc; /* cannot happen: every sum was checked */
    g->clamps += r->clamps - r->clamps_flushed;
    r->clamps_flushed = r->clamps;
    r->floors += floors;
    g->floors += floors;
    clear_figures(r);
    if (r->ctx) cgprop__ctx_pending(g, r->cpend, r->cpcap, true);
    return cgprop__ok(g);
}

/* ---- calibration ---- */

int cgprop_recorder_calibrate(size_t nmetrics, int (*now)(void *user, uint64_t *out_counters), void *user,
                              uint32_t iterations, const cgprop_allocator *alloc, double *delta_i_out,
                              double *delta_e_out)
{
    if (!now || !delta_i_out || !delta_e_out || nmetrics < 1 || nmetrics > CGPROP_MAX_METRICS || iterations < 1)
        return CGPROP_EINVAL;
    static const char *const names[CGPROP_MAX_METRICS] = {
        "c0",  "c1",  "c2",  "c3",  "c4",  "c5",  "c6",  "c7",  "c8",  "c9",  "c10", "c11", "c12",
        "c13", "c14", "c15", "c16", "c17", "c18", "c19", "c20", "c21", "c22", "c23", "c24", "c25",
        "c26", "c27", "c28", "c29", "c30", "c31", "c32", "c33", "c34", "c35", "c36", "c37", "c38",
        "c39", "c40", "c41", "c42", "c43", "c44", "c45", "c46", "c47", "c48", "c49", "c50", "c51",
        "c52", "c53", "c54", "c55", "c56", "c57", "c58", "c59", "c60", "c61", "c62", "c63"};
    for (size_t k = 0; k < nmetrics; k++) delta_i_out[k] = delta_e_out[k] = 0.0;
    cgprop_graph *g = NULL;
    cgprop_recorder *r = NULL;
    int rc = cgprop_graph_new(alloc, names, NULL, nmetrics, &g);
    if (rc) return rc;
    uint32_t one, null;
    uint64_t c[CGPROP_MAX_METRICS];
    double di_min[CGPROP_MAX_METRICS], de_min[CGPROP_MAX_METRICS];
    /* On the fly with zero δ: the probes then do the work they do in a compensated run. */
    cgprop_recorder_options ropt;
    cgprop_recorder_options_init(&ropt);
    ropt.mode = CGPROP_COMP_ONLINE;
    if ((rc = cgprop_graph_add_node(g, "one", 3, &one)) || (rc = cgprop_graph_add_node(g, "null", 4, &null)) ||
        (rc = cgprop_recorder_new(g, &ropt, &r)))
        goto done;
    for (size_t k = 0; k < nmetrics; k++) di_min[k] = de_min[k] = -1.0;
    /* Three runs, smallest estimate kept: the paper's repeat-and-minimum,
     * around TAU's single run. A failing clock is
     * EINVAL, a clock running backwards (EFORMAT from the recorder) too; out
     * of memory stays ENOMEM. */
#define PROBE(call)                                                                                                    \
    do {                                                                                                               \
        if (now(user, c)) {                                                                                            \
            rc = CGPROP_EINVAL;                                                                                        \
            goto done;                                                                                                 \
        }                                                                                                              \
        if ((rc = (call))) goto fail;                                                                                  \
    } while (0)
    for (int run = 0; run < 3; run++) {
        /* The probe is what a profiler's would be: a clock read, then the recorder call. */
        PROBE(cgprop_recorder_enter(r, one, c));
        for (uint32_t i = 0; i < iterations; i++) {
            PROBE(cgprop_recorder_enter(r, null, c));
            PROBE(cgprop_recorder_exit(r, null, c));
        }
        PROBE(cgprop_recorder_exit(r, one, c));
        for (uint32_t k = 0; k < nmetrics; k++) {
            cgprop_recorder_figure fn, fo;
            if ((rc = cgprop_recorder_get(r, CGPROP_RF_C_NN, one, null, k, &fn, sizeof fn)) ||
                (rc = cgprop_recorder_get(r, CGPROP_RF_SPONT, one, 0, k, &fo, sizeof fo)))
                goto fail;
            /* tnull = n(b+c); tone = n(a+b+c+d) + (b+c). */
            double tnull = (double)fn.raw / iterations;
            double tover = ((double)fo.raw - tnull) / iterations;
            double di = tnull, de = tover - tnull;
            if (di < 0) di = 0;
            if (de < 0) de = 0;
            if (di_min[k] < 0 || di < di_min[k]) di_min[k] = di;
            if (de_min[k] < 0 || de < de_min[k]) de_min[k] = de;
        }
        /* flush clears the recorder's figures; the graph's are not read. */
        if ((rc = cgprop_recorder_flush(r, NULL))) goto fail;
    }
#undef PROBE
    for (size_t k = 0; k < nmetrics; k++) {
        delta_i_out[k] = di_min[k];
        delta_e_out[k] = de_min[k];
    }
    rc = CGPROP_OK;
    goto done;
fail:
    if (rc != CGPROP_ENOMEM) rc = CGPROP_EINVAL;
done:
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
    return rc;
}
