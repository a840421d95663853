/* Linear per-root propagation (gprof2dot's heuristic): every
 * entry of a cycle pushes its share of the cycle's total down its own BFS
 * DAG, and the members' totals are the sums over entries. */
#include "analysis.h"
#include "util/compiler.h"

#include <math.h>
#include <string.h>

#define UNSEEN UINT32_MAX

typedef struct prop_res {
    uint32_t K, nn, ne;
    double *tot;     /* nn * K */
    double *etot;    /* ne * K */
    uint64_t *indag; /* ne * K bits: intra-cycle call kept by some entry with ρ > 0 */
} prop_res;

static void res_destroy(const cgprop_graph *g, prop_res *r)
{
    if (!r) return;
    cgprop__free(g, r->tot);
    cgprop__free(g, r->etot);
    cgprop__free(g, r->indag);
    cgprop__free(g, r);
}

void cgprop__propagate_destroy(const cgprop_graph *g, void *res) { res_destroy(g, res); }

static const prop_res *RES(const cgprop_graph *g) { return cgprop__res(g, CGPROP__A_PROPAGATE); }

static inline void bit_set(uint64_t *b, size_t i) { b[i >> 6] |= (uint64_t)1 << (i & 63); }
static inline bool bit_get(const uint64_t *b, size_t i) { return (b[i >> 6] >> (i & 63)) & 1u; }

/* Entries run in batches of up to LANES, one bit each (a lane).
 *
 * A bit-parallel BFS gives every entry of the batch its ranks and kept calls
 * at once, so a member's calls are read once per distinct rank the member has
 * in the batch, not once per entry. The BFS does no per-lane work. A level
 * that reaches a small part of the cycle goes top-down from its members and
 * logs every call it follows with the mask of lanes that keep it (a record);
 * the records are transposed once at the end of the batch, which gives each
 * lane a bitmap over them. A level that reaches a large part goes bottom-up:
 * one flat pass over all calls by callee gives each call its mask, and their
 * transpose gives each lane a bitmap over all calls. An entry then reads its
 * kept calls off its bits, level by level, deepest first (entry_body).
 *
 * Per call, everything the entries read is stored by callee (one_cycle):
 * the bottom-up pass, and the entries' passes over a big level, read the
 * calls, the callees' values and the calls' running totals in address
 * order. Nothing loops over one member's calls, and nothing stores at an
 * index that depends on the data where that can be avoided: on the
 * 20,000-member SCC of the benchmark those were the costs, more than the
 * number of instructions.
 *
 * Memory: a batch logs at most lanes·E records (each call once per lane and
 * level), 12 bytes each with the bitmaps, and a big level's bitmaps take no
 * more than its records would. A batch whose records would pass
 * LANE_RECORDS (or E, if more) runs again with half the lanes, and so do
 * the cycle's later batches: a cycle that logs much gets fewer lanes rather
 * than more records, one that logs little (most levels big) keeps all 32.
 * CGPROP_PROP_LANE_RECORDS sets the cap (a small one exercises the halving). */
#ifndef CGPROP_PROP_LANES
#define CGPROP_PROP_LANES 32
#endif
#define LANES CGPROP_PROP_LANES
#ifndef CGPROP_PROP_LANE_RECORDS
#define CGPROP_PROP_LANE_RECORDS ((size_t)1 << 22)
#endif
#define LANE_RECORDS ((size_t)(CGPROP_PROP_LANE_RECORDS))

#if LANES < 1 || LANES > 32
#error "CGPROP_PROP_LANES must be 1..32"
#endif
typedef uint32_t lanemask;

#if !defined(CGPROP_PROP_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2))
#define PROP_SSE2 1
#include <emmintrin.h>
#endif

/* Per call, its ends: what the BFS reads. */
typedef struct puv {
    uint32_t v, u; /* local callee and caller */
} puv;

/* A kept call as an entry's pass reads it. */
typedef struct pcall {
    uint32_t v, u; /* local callee and caller */
    double w;      /* share weight, current metric */
} pcall;

/* One BFS level of a batch: its records rec[rb .. re), or for a big level
 * the lane bitmaps over all calls in block cb[bo]. */
typedef struct plevel {
    uint32_t rb, re;
    size_t bo;
    bool big;
} plevel;

/* Per member, what the current entry's passes read together. */
typedef struct mval {
    double P; /* p(u) so far */
    double X; /* kept in-weight W so far */
} mval;

/* Scratch for one cycle at a time, sized for the largest cycle once. Local
 * member index i = position in the cycle's ascending member list; local call
 * index q = position among the intra-cycle calls ordered by callee, then
 * caller (self-calls left out). The local arrays are built once per cycle;
 * each metric then runs its entries over them. */
typedef struct work {
    void *blk;             /* one block: every array up to nk */
    uint32_t lanes;        /* entries per batch */
    uint32_t *loc;         /* nn: local index of each member of the current cycle, UNSEEN elsewhere */
    uint32_t *off;         /* V + 1: the calls by caller: those of member i are off[i] .. off[i + 1] */
    uint32_t *tgt, *jin;   /* E: by caller, the call's callee and its q */
    uint32_t *xoff, *xe;   /* V + 1, I: calls from outside into each member */
    uint32_t *eid;         /* E: call id, by q */
    puv *pc;               /* E: by q */
    double *wd;            /* E: the calls' weights, current metric, by q */
    uint32_t *wi;          /* the same memory: the weights as integers, when all fit (w32) */
    bool w32;
    double *acc;           /* E: the call's total so far, current metric, by q */
    uint64_t *ekept;       /* cw: bit q: kept for some entry with ρ > 0, current metric */
    double *base;          /* V: S(u) + external shares (u's gprof figure), current metric */
    double *rho;           /* V: current metric */
    uint32_t *entry;       /* V: members with ρ > 0 in the current metric */
    mval *mv;              /* V: the current entry's */
    uint32_t cur;          /* lanes per batch now: fewer after a batch outgrew its records */
    int flat;              /* FLAT_*: the copies that list the big levels' bitmaps and transpose the masks */
    uint64_t tab[256];     /* for FLAT_AVX2 */
    uint32_t *nk;          /* V: kept in-calls (only when some intra-cycle call weighs 0) */
    lanemask *sx;          /* 2V: lanes that reached each member, then (at V + i) lanes that reach it next */
    uint64_t *mark;        /* V / 64 + 1: bitmap to list the next level's members in id order */
    uint32_t *fl, *cand;   /* V + 16: this level's and the next level's members (spare slots) */
    lanemask *fm;          /* V: lanes that have fl[i] on this level */
    lanemask *fa;          /* V: lanes that have the member on this level */
    uint32_t *kl;          /* E + 16: one entry's kept calls of one level (q) */
    pcall *kb;             /* E: a copy of their pc[] */
    lanemask *cm;          /* cw · 64: per call, the lanes that keep it on the current big level (kb's memory) */
    plevel *lv;            /* levcap */
    size_t levcap;
    uint32_t *rec;         /* rcap: records of small levels (q), level after level */
    lanemask *rm;          /* rcap: lanes that keep the call there */
    uint64_t *rbits;       /* rcap / 64 * lanes: lane l's bit of every record */
    size_t rcap, nrec;     /* nrec: records of the last batch, a multiple of 64 */
    uint64_t **cb;         /* ncb blocks of lanes · cw words: the lane bitmaps of the n-th big level of a batch */
    size_t ncb, cbcap, cw; /* cw: words of a bitmap over the calls of the largest cycle */
    size_t cwc;            /* the same for the current cycle */
} work;

static int flatten_kind(void);

static void work_free(const cgprop_graph *g, work *w)
{
    void *a[] = {w->blk, w->lv, w->rec, w->rm, w->rbits};
    for (size_t i = 0; i < sizeof a / sizeof a[0]; i++) cgprop__free(g, a[i]);
    for (size_t i = 0; i < w->ncb; i++) cgprop__free(g, w->cb[i]);
    cgprop__free(g, w->cb);
}

/* Grows the record arrays (and their lane bitmaps) to hold need records. */
static int grow_records(const cgprop_graph *g, work *w, size_t need)
{
    if (need <= w->rcap) return CGPROP_OK;
    size_t c = w->rcap * 2 > need ? w->rcap * 2 : need;
    c = (c + 63) & ~(size_t)63;
    uint32_t *ni = cgprop__realloc(g, w->rec, c, sizeof *ni);
    if (!ni) return CGPROP_ENOMEM;
    w->rec = ni;
    lanemask *nm = cgprop__realloc(g, w->rm, c, sizeof *nm);
    if (!nm) return CGPROP_ENOMEM;
    w->rm = nm;
    uint64_t *nb = cgprop__realloc(g, w->rbits, c / 64 * w->lanes, sizeof *nb);
    if (!nb) return CGPROP_ENOMEM;
    w->rbits = nb;
    w->rcap = c;
    return CGPROP_OK;
}

/* Bitmaps for n big levels; each level has its own block, kept for the
 * next batches (growing one array would copy it, and touch twice the
 * memory). */
static int grow_cb(const cgprop_graph *g, work *w, size_t n)
{
    if (n <= w->ncb) return CGPROP_OK;
    if (n > w->cbcap) {
        size_t c = w->cbcap * 2 > n ? w->cbcap * 2 : n;
        uint64_t **p = cgprop__realloc(g, w->cb, c, sizeof *p);
        if (!p) return CGPROP_ENOMEM;
        w->cb = p;
        w->cbcap = c;
    }
    uint64_t *b = cgprop__alloc(g, w->lanes * w->cw, sizeof *b);
    if (!b) return CGPROP_ENOMEM;
    /* Huge pages below the allocator's own threshold too: the transpose
     * writes each lane's word of 64 calls, the lanes' bitmaps far apart. */
    cgprop__mem_advise(&g->a, b, w->lanes * w->cw * sizeof *b, true);
    w->cb[w->ncb++] = b;
    return CGPROP_OK;
}

static int grow_levels(const cgprop_graph *g, work *w, size_t need)
{
    if (need <= w->levcap) return CGPROP_OK;
    size_t cap = w->levcap * 2 > need ? w->levcap * 2 : need;
    plevel *p = cgprop__realloc(g, w->lv, cap, sizeof *p);
    if (!p) return CGPROP_ENOMEM;
    w->lv = p;
    w->levcap = cap;
    return CGPROP_OK;
}

/* Offset of n elements of the given size in a block of *at bytes so far,
 * on a cache line; SIZE_MAX when the block would not fit a size_t. */
static size_t carve(size_t *at, size_t n, size_t size)
{
    size_t o = *at == SIZE_MAX || *at > SIZE_MAX - 63 ? SIZE_MAX : (*at + 63) & ~(size_t)63;
    if (o == SIZE_MAX || (size && n > (SIZE_MAX - o) / size)) return *at = SIZE_MAX;
    *at = o + n * size;
    return o;
}

/* All fixed-size scratch is one block: fewer calls into the allocator, and
 * a large block is what allocators keep for the next run rather than
 * return and fault in again. */
static int work_alloc(const cgprop_graph *g, work *w, size_t V, size_t E, size_t I)
{
    memset(w, 0, sizeof *w);
    /* A cycle has at most V entries. A batch's records are bounded as the
     * BFS goes (past LANE_RECORDS it gives the batch back, to be run with
     * half the lanes), not by assuming that each lane logs every call: on
     * a large random cycle most levels are big and log nothing, and 32
     * lanes take an eighth of the BFS passes that 4 would. */
    size_t lanes = V < LANES ? V : LANES;
    if (lanes < 1) lanes = 1;
    w->lanes = (uint32_t)lanes;
    w->cur = (uint32_t)lanes;
    w->flat = flatten_kind();
    for (unsigned byte = 0; byte < 256; byte++) {
        uint64_t t = 0;
        for (unsigned i = 0, j = 0; i < 8; i++)
            if (byte >> i & 1) t |= (uint64_t)i << (8 * j++);
        w->tab[byte] = t;
    }
    w->cw = (E + 63) / 64;
    size_t cn = w->cw * 64, at = 0, kbn = E > (cn + 3) / 4 ? E : (cn + 3) / 4;
    size_t o_loc = carve(&at, g->nn, sizeof *w->loc), o_off = carve(&at, V + 1, sizeof *w->off),
           o_xoff = carve(&at, V + 1, sizeof *w->xoff), o_xe = carve(&at, I, sizeof *w->xe),
           o_tgt = carve(&at, E, sizeof *w->tgt), o_jin = carve(&at, E, sizeof *w->jin),
           o_eid = carve(&at, E, sizeof *w->eid), o_pc = carve(&at, E, sizeof *w->pc),
           o_wd = carve(&at, E, sizeof *w->wd),
           o_acc = carve(&at, E, sizeof *w->acc), o_ekept = carve(&at, w->cw, sizeof *w->ekept),
           o_base = carve(&at, V, sizeof *w->base), o_rho = carve(&at, V, sizeof *w->rho),
           o_mv = carve(&at, V, sizeof *w->mv),
           o_sx = carve(&at, 2 * V, sizeof *w->sx), o_mark = carve(&at, V / 64 + 1, sizeof *w->mark), hot = at,
           /* Past hot: the arrays a cycle fills only in part. */
           o_fl = carve(&at, V + 16, sizeof *w->fl), o_cand = carve(&at, V + 16, sizeof *w->cand),
           o_fm = carve(&at, V, sizeof *w->fm), o_fa = carve(&at, V, sizeof *w->fa),
           o_nk = carve(&at, V, sizeof *w->nk),
           o_kl = carve(&at, E + 16, sizeof *w->kl), /* flatten_at's spare slots */
           o_kb = carve(&at, kbn, sizeof *w->kb), /* and cm: the BFS and the entries take turns */
           o_entry = carve(&at, V, sizeof *w->entry);
    char *blk = at == SIZE_MAX ? NULL : cgprop__alloc(g, at, 1);
    w->blk = blk;
    /* A large block was asked for on huge pages (the BFS and the entries'
     * passes jump about it); its tail, which a cycle fills only in part,
     * goes back to small pages, resident only as far as it is written. */
    if (blk) cgprop__mem_advise(&g->a, blk + hot, at - hot, false);
    /* With an allocator whose pages become resident only when touched, the
     * records are made room for at once, as many as a batch may log
     * (batch_bfs gives a batch back past that) or all lanes could, if
     * fewer, on small pages: only what the batches write becomes resident.
     * Grown by doubling, every step copied the records so far into fresh
     * pages: on file (b) of the benchmark 4,300 more page faults, and the
     * DOT report took about 3 % longer. One lane alone may log more; the
     * arrays then grow. Any other allocator is asked only for what is
     * used. */
    size_t r0 = 64;
    if (cgprop__mem_lazy(&g->a)) {
        r0 = LANE_RECORDS > E + 64 ? LANE_RECORDS : E + 64;
        if (E <= (r0 - 64) / lanes && lanes * E + 64 < r0) r0 = lanes * E + 64;
    }
    if (!blk || grow_levels(g, w, 16) != CGPROP_OK || grow_records(g, w, r0) != CGPROP_OK) {
        work_free(g, w);
        return CGPROP_ENOMEM;
    }
    if (r0 > 64) {
        cgprop__mem_advise(&g->a, w->rec, w->rcap * sizeof *w->rec, false);
        cgprop__mem_advise(&g->a, w->rm, w->rcap * sizeof *w->rm, false);
        cgprop__mem_advise(&g->a, w->rbits, w->rcap / 64 * w->lanes * sizeof *w->rbits, false);
    }
    w->loc = (uint32_t *)(blk + o_loc);
    w->off = (uint32_t *)(blk + o_off);
    w->xoff = (uint32_t *)(blk + o_xoff);
    w->xe = (uint32_t *)(blk + o_xe);
    w->tgt = (uint32_t *)(blk + o_tgt);
    w->jin = (uint32_t *)(blk + o_jin);
    w->eid = (uint32_t *)(blk + o_eid);
    w->pc = (puv *)(blk + o_pc);
    w->wd = (double *)(blk + o_wd);
    w->wi = (uint32_t *)(blk + o_wd);
    w->acc = (double *)(blk + o_acc);
    w->ekept = (uint64_t *)(blk + o_ekept);
    w->base = (double *)(blk + o_base);
    w->rho = (double *)(blk + o_rho);
    w->entry = (uint32_t *)(blk + o_entry);
    w->mv = (mval *)(blk + o_mv);
    w->sx = (lanemask *)(blk + o_sx);
    w->mark = (uint64_t *)(blk + o_mark);
    w->fl = (uint32_t *)(blk + o_fl);
    w->cand = (uint32_t *)(blk + o_cand);
    w->fm = (lanemask *)(blk + o_fm);
    w->fa = (lanemask *)(blk + o_fa);
    w->kl = (uint32_t *)(blk + o_kl);
    w->kb = (pcall *)(blk + o_kb);
    w->cm = (lanemask *)(blk + o_kb);
    w->nk = (uint32_t *)(blk + o_nk);
    memset(w->loc, 0xFF, (size_t)g->nn * sizeof *w->loc); /* UNSEEN */
    memset(w->mark, 0, (V / 64 + 1) * sizeof *w->mark);
    return CGPROP_OK;
}

static inline uint32_t ctz64(uint64_t x)
{
#if defined(__GNUC__)
    return (uint32_t)__builtin_ctzll(x);
#else
    uint32_t n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

/* The big levels' bitmaps are listed (flatten_words) by a copy of the
 * loop compiled for the processor where the build may not assume what it
 * has (the default x86-64 target), chosen once per propagation: with
 * AVX-512 VBMI2, a word a step (flatten_words_vbmi2); with AVX2, eight
 * bits a step through a table of each byte's set bits (flatten_words_avx2);
 * else with POPCNT (flatten_words_popcnt). Listing took 12 % of the e2e
 * group's DOT report with the portable count; a loop over the set bits
 * costs by the bit and mispredicts its end, the table's steps cost by the
 * byte (on 14,000 words a third set: 222 µs -> 62-83 µs; at a twentieth
 * set, 54 -> 62-86), the register compress by the word (on file (b)'s
 * 29 million words, 4 bits set in the mean: 91-110 ms -> 45-55 ms).
 * CGPROP_PROP_PORTABLE keeps the portable loop only; CGPROP_PROP_FLAT=1,
 * 2 or 3 forces a copy (tests, on a processor that has it). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && !defined(CGPROP_PROP_PORTABLE)
#define PROP_X86_CLONES 1
#include <immintrin.h>
#endif
#if defined(PROP_X86_CLONES) && !defined(__POPCNT__)
#define PROP_POPCNT_CLONE 1
#endif

enum { FLAT_PORTABLE, FLAT_POPCNT, FLAT_AVX2, FLAT_AVX512 };

static inline uint32_t popcount64(uint64_t x, bool hw)
{
#if defined(__GNUC__) && defined(__POPCNT__)
    (void)hw;
    return (uint32_t)__builtin_popcountll(x);
#else
#ifdef PROP_POPCNT_CLONE
    if (hw) return (uint32_t)__builtin_popcountll(x);
#else
    (void)hw;
#endif
    x = x - ((x >> 1) & 0x5555555555555555u);
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Fu;
    return (uint32_t)((x * 0x0101010101010101u) >> 56);
#endif
}

/* Appends b + i for every set bit i of x, in order, at out[n..], and returns
 * the new n. The first 8 and the next 8 are written without looking at how
 * many there are (slots past the count get garbage): on the dense words of
 * a large level that mispredicts a fraction of a branch per word, where a
 * loop over the bits mispredicts its end on every word. out needs 16 spare
 * slots. */
static CGPROP__ALWAYS_INLINE size_t flatten_hw(uint32_t *out, size_t n, uint64_t x, uint32_t b, bool hw)
{
    const uint64_t top = (uint64_t)1 << 63;
    uint32_t cnt = popcount64(x, hw);
    uint32_t *o = out + n;
    for (int i = 0; i < 8; i++) {
        o[i] = b + ctz64(x | top);
        x &= x - 1;
    }
    if (cnt > 8) {
        for (int i = 8; i < 16; i++) {
            o[i] = b + ctz64(x | top);
            x &= x - 1;
        }
        for (int i = 16; x; i++) {
            o[i] = b + ctz64(x);
            x &= x - 1;
        }
    }
    return n + cnt;
}

static inline size_t flatten_at(uint32_t *out, size_t n, uint64_t x, uint32_t b)
{
    return flatten_hw(out, n, x, b, false);
}

/* flatten_at over the words bb[0 .. cw): every set bit, in order. */
static size_t flatten_words(uint32_t *out, const uint64_t *bb, size_t cw)
{
    size_t n = 0;
    for (size_t wi = 0; wi < cw; wi++)
        if (bb[wi]) n = flatten_hw(out, n, bb[wi], (uint32_t)(wi * 64), false);
    return n;
}

#ifdef PROP_POPCNT_CLONE
__attribute__((target("popcnt"))) static size_t flatten_words_popcnt(uint32_t *out, const uint64_t *bb, size_t cw)
{
    size_t n = 0;
    for (size_t wi = 0; wi < cw; wi++)
        if (bb[wi]) n = flatten_hw(out, n, bb[wi], (uint32_t)(wi * 64), true);
    return n;
}
#else
#define flatten_words_popcnt flatten_words
#endif

#ifdef PROP_X86_CLONES
/* tab[b]: the positions of the set bits of byte b, one a byte, lowest
 * first. Each byte's eight slots are written whatever its count: out needs
 * 8 spare slots. */
__attribute__((target("avx2,popcnt"))) static size_t flatten_words_avx2(uint32_t *out, const uint64_t *bb, size_t cw,
                                                                           const uint64_t *tab)
{
    size_t n = 0;
    const __m256i eight = _mm256_set1_epi32(8);
    for (size_t wi = 0; wi < cw; wi++) {
        uint64_t x = bb[wi];
        if (!x) continue;
        __m256i b = _mm256_set1_epi32((int)(wi * 64));
        for (int k = 0; k < 8; k++, x >>= 8) {
            unsigned byte = (unsigned)x & 255u;
            __m256i v = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)(tab + byte)));
            _mm256_storeu_si256((__m256i *)(void *)(out + n), _mm256_add_epi32(v, b));
            n += (size_t)__builtin_popcount(byte);
            b = _mm256_add_epi32(b, eight);
        }
    }
    return n;
}

#if defined(__clang__) || __GNUC__ >= 8
#define PROP_AVX512_CLONES 1
/* The positions of the set bits of a whole word at once: the register
 * compress packs the byte indices 0..63 that x selects, lowest first, and
 * the first 16 are widened to 32 bits and stored whatever their count (a
 * mean word of a big level has a few bits; more than 16 take the other
 * stores). out needs 16 spare slots. No test for a zero word: a big
 * level's words are nearly all non-zero, and a zero one stores harmlessly. */
__attribute__((target("avx512f,avx512bw,avx512vbmi2,popcnt"))) static size_t flatten_words_vbmi2(uint32_t *out,
                                                                                                   const uint64_t *bb,
                                                                                                   size_t cw)
{
    const __m512i idx = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
                                        44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
                                        25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6,
                                        5, 4, 3, 2, 1, 0);
    const __m512i step = _mm512_set1_epi32(64);
    __m512i base = _mm512_setzero_si512();
    size_t n = 0;
    for (size_t wi = 0; wi < cw; wi++, base = _mm512_add_epi32(base, step)) {
        uint64_t x = bb[wi];
        __m512i c = _mm512_maskz_compress_epi8((__mmask64)x, idx);
        _mm512_storeu_si512((void *)(out + n), _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_castsi512_si128(c)), base));
        uint32_t cnt = (uint32_t)__builtin_popcountll(x);
        if (cnt > 16) {
            _mm512_storeu_si512((void *)(out + n + 16),
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 1)), base));
            _mm512_storeu_si512((void *)(out + n + 32),
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 2)), base));
            _mm512_storeu_si512((void *)(out + n + 48),
                                _mm512_add_epi32(_mm512_cvtepu8_epi32(_mm512_extracti32x4_epi32(c, 3)), base));
        }
        n += cnt;
    }
    return n;
}
#endif

static int flatten_kind(void)
{
#ifdef CGPROP_PROP_FLAT
    /* A test build's choice (1: POPCNT, 2: AVX2, 3: AVX-512), so that
     * CI runs each copy on a machine that has them all. */
    return CGPROP_PROP_FLAT;
#endif
    __builtin_cpu_init();
#ifdef PROP_AVX512_CLONES
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vbmi") && __builtin_cpu_supports("avx512vbmi2") &&
        __builtin_cpu_supports("popcnt"))
        return FLAT_AVX512;
#endif
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) return FLAT_AVX2;
    return __builtin_cpu_supports("popcnt") ? FLAT_POPCNT : FLAT_PORTABLE;
}
#else
static int flatten_kind(void) { return FLAT_PORTABLE; }
#endif

static size_t flatten_big(const work *w, uint32_t *out, const uint64_t *bb, size_t cw)
{
#ifdef PROP_AVX512_CLONES
    if (w->flat == FLAT_AVX512) return flatten_words_vbmi2(out, bb, cw);
#endif
#ifdef PROP_X86_CLONES
    if (w->flat == FLAT_AVX2) return flatten_words_avx2(out, bb, cw, w->tab);
#endif
    return w->flat == FLAT_POPCNT ? flatten_words_popcnt(out, bb, cw) : flatten_words(out, bb, cw);
}

/* n masks (n a multiple of 64) to nl lane bitmaps: bit i of lane l's bitmap
 * (bits[l·(n/64) + i/64]) is bit l of m[i]. When any is not NULL, bit i of
 * any[] is also set when m[i] != 0. */
#ifdef PROP_SSE2
static void transpose_base(const lanemask *m, size_t n, uint32_t nl, uint64_t *bits, uint64_t *any)
{
    size_t nw = n / 64;
    uint32_t nb = (nl + 7) / 8; /* bytes of a mask in use */
    const __m128i zero = _mm_setzero_si128();
    for (size_t wi = 0; wi < nw; wi++) {
        /* v[b][q]: byte b of the 16 masks of group q (masks 16q .. 16q + 15) */
        __m128i v[4][4];
        uint64_t nz = 0;
        for (uint32_t q = 0; q < 4; q++) {
            const __m128i *a = (const __m128i *)(m + wi * 64 + q * 16);
            __m128i a0 = _mm_loadu_si128(a), a1 = _mm_loadu_si128(a + 1), a2 = _mm_loadu_si128(a + 2),
                    a3 = _mm_loadu_si128(a + 3);
            if (any) {
                uint32_t z = (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a0, zero))) |
                             (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a1, zero))) << 4 |
                             (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a2, zero))) << 8 |
                             (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(a3, zero))) << 12;
                nz |= (uint64_t)(~z & 0xFFFFu) << (16 * q);
            }
            /* bytes transposed: byte i of v[b][q] is byte b of mask i */
            __m128i b0 = _mm_unpacklo_epi8(a0, a1), b1 = _mm_unpackhi_epi8(a0, a1);
            __m128i b2 = _mm_unpacklo_epi8(a2, a3), b3 = _mm_unpackhi_epi8(a2, a3);
            __m128i c0 = _mm_unpacklo_epi8(b0, b1), c1 = _mm_unpackhi_epi8(b0, b1);
            __m128i c2 = _mm_unpacklo_epi8(b2, b3), c3 = _mm_unpackhi_epi8(b2, b3);
            __m128i d0 = _mm_unpacklo_epi8(c0, c1), d1 = _mm_unpackhi_epi8(c0, c1);
            __m128i d2 = _mm_unpacklo_epi8(c2, c3), d3 = _mm_unpackhi_epi8(c2, c3);
            v[0][q] = _mm_unpacklo_epi64(d0, d2);
            v[1][q] = _mm_unpackhi_epi64(d0, d2);
            v[2][q] = _mm_unpacklo_epi64(d1, d3);
            v[3][q] = _mm_unpackhi_epi64(d1, d3);
        }
        if (any) any[wi] |= nz;
        /* The top bit of each byte, doubled into place one bit at a time, is
         * one lane's bit of 16 masks; four groups make its word. */
        for (uint32_t b = 0; b < nb; b++) {
            __m128i x0 = v[b][0], x1 = v[b][1], x2 = v[b][2], x3 = v[b][3];
            for (uint32_t t = 8; t-- > 0;) {
                uint64_t wd = (uint64_t)(uint32_t)_mm_movemask_epi8(x0) |
                              (uint64_t)(uint32_t)_mm_movemask_epi8(x1) << 16 |
                              (uint64_t)(uint32_t)_mm_movemask_epi8(x2) << 32 |
                              (uint64_t)(uint32_t)_mm_movemask_epi8(x3) << 48;
                uint32_t l = 8 * b + t;
                if (l < nl) bits[l * nw + wi] = wd;
                x0 = _mm_add_epi8(x0, x0);
                x1 = _mm_add_epi8(x1, x1);
                x2 = _mm_add_epi8(x2, x2);
                x3 = _mm_add_epi8(x3, x3);
            }
        }
    }
}
#else
/* 8 x 8 bit matrix in a word, row i = byte i: transposed (Hacker's Delight). */
static inline uint64_t transpose8(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAu;
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCu;
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0u;
    return x ^ t ^ (t << 28);
}

static void transpose_base(const lanemask *m, size_t n, uint32_t nl, uint64_t *bits, uint64_t *any)
{
    size_t nw = n / 64;
    uint32_t nb = (nl + 7) / 8; /* bytes of a mask in use */
    for (size_t wi = 0; wi < nw; wi++) {
        const lanemask *blk = m + wi * 64;
        uint64_t out[32] = {0};
        for (uint32_t r8 = 0; r8 < 8; r8++) {
            const lanemask *q = blk + r8 * 8;
            for (uint32_t b = 0; b < nb; b++) {
                uint64_t x = 0;
                for (uint32_t i = 0; i < 8; i++) x |= (uint64_t)((q[i] >> (8 * b)) & 0xFFu) << (8 * i);
                x = transpose8(x);
                /* byte t of x: lane 8b + t's bits of these 8 masks */
                for (uint32_t t = 0; t < 8; t++) out[8 * b + t] |= ((x >> (8 * t)) & 0xFFu) << (8 * r8);
            }
        }
        for (uint32_t l = 0; l < nl; l++) bits[l * nw + wi] = out[l];
        if (any) {
            uint64_t nz = 0;
            for (uint32_t i = 0; i < 64; i++) nz |= (uint64_t)(blk[i] != 0) << i;
            any[wi] |= nz;
        }
    }
}
#endif

#ifdef PROP_AVX512_CLONES
/* transpose_base with AVX-512: byte b of the 64 masks gathered into one
 * register by two-source byte permutes (VBMI), then lane 8b + t's word is
 * the test of bit t of each byte. A third of the SSE2 form's time on file
 * (b) (931,000 words: 67-81 ms -> 21-30 ms). */
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static void transpose_avx512(const lanemask *m, size_t n,
                                                                                   uint32_t nl, uint64_t *bits,
                                                                                   uint64_t *any)
{
    size_t nw = n / 64;
    uint32_t nb = (nl + 7) / 8; /* bytes of a mask in use */
    /* idx[b], byte i: byte b of mask i % 32 among the 32 masks of a pair of
     * registers (mask j's bytes at 4j .. 4j + 3). */
    uint8_t ix[64];
    __m512i idx[4];
    for (uint32_t b = 0; b < 4; b++) {
        for (uint32_t i = 0; i < 64; i++) ix[i] = (uint8_t)((i & 31) * 4 + b);
        idx[b] = _mm512_loadu_si512((const void *)ix);
    }
    for (size_t wi = 0; wi < nw; wi++) {
        const lanemask *a = m + wi * 64;
        __m512i z0 = _mm512_loadu_si512((const void *)a), z1 = _mm512_loadu_si512((const void *)(a + 16)),
                z2 = _mm512_loadu_si512((const void *)(a + 32)), z3 = _mm512_loadu_si512((const void *)(a + 48));
        if (any)
            any[wi] |= (uint64_t)_mm512_test_epi32_mask(z0, z0) | (uint64_t)_mm512_test_epi32_mask(z1, z1) << 16 |
                       (uint64_t)_mm512_test_epi32_mask(z2, z2) << 32 | (uint64_t)_mm512_test_epi32_mask(z3, z3) << 48;
        for (uint32_t b = 0; b < nb; b++) {
            /* byte i of y: byte b of mask i */
            __m512i lo = _mm512_permutex2var_epi8(z0, idx[b], z1), hi = _mm512_permutex2var_epi8(z2, idx[b], z3);
            __m512i y = _mm512_inserti64x4(lo, _mm512_castsi512_si256(hi), 1);
            for (uint32_t t = 0; t < 8 && 8 * b + t < nl; t++)
                bits[(8 * b + t) * nw + wi] = (uint64_t)_mm512_test_epi8_mask(y, _mm512_set1_epi8((char)(1u << t)));
        }
    }
}
#endif

static void transpose_masks(const work *w, const lanemask *m, size_t n, uint32_t nl, uint64_t *bits, uint64_t *any)
{
#ifdef PROP_AVX512_CLONES
    if (w->flat == FLAT_AVX512) {
        transpose_avx512(m, n, nl, bits, any);
        return;
    }
#else
    (void)w;
#endif
    transpose_base(m, n, nl, bits, any);
}

/* batch_bfs's answer when its records would pass the cap: run the batch
 * again with half the lanes. */
#define BFS_RETRY 1

/* Ranks and kept calls of nl entries at once, level by level. Bit l of
 * sx[v] says lane l has reached v, of nx[v] that it reaches v on the next
 * level, of fa[v] (and fm[i] for v = fl[i]) that v is on the current level.
 * A call u->v is kept for lane l iff l is in fa[u] and not yet in sx[v]: v is
 * then first reached on the next level, from u's level.
 *
 * A small level goes top-down: each of its members' calls (a member is on
 * a level at most once, at most once per lane: never more work than nl
 * separate BFS runs), logged as records (q and mask), transposed together
 * at the end. A level whose members have at least half of the calls goes
 * bottom-up: one flat pass over all calls by q writes each call's mask, and
 * the OR over a callee's calls is its nx; the transpose of the masks gives
 * each lane a bitmap over all calls (block cb[L->bo]). Each level's members
 * are listed in id order, so the next top-down scan reads the arrays by
 * caller in address order. Leaves the levels in lv and their number in
 * *nlev. */
static int batch_bfs(const cgprop_graph *g, work *w, uint32_t V, const uint32_t *ent, uint32_t nl, uint32_t *nlev)
{
    const uint32_t *off = w->off, *tgt = w->tgt, *jin = w->jin;
    const puv *pc = w->pc;
    lanemask *sx = w->sx, *nx = w->sx + V, *fm = w->fm, *cm = w->cm, *fa = w->fa; /* seen, next-level lanes */
    uint64_t *ekept = w->ekept;
    uint64_t *mark = w->mark;
    uint32_t *fl = w->fl, *cand = w->cand;
    size_t R = 0, CB = 0, cw = w->cwc, E = off[V], scan = 0;
    uint32_t d = 0, nfl = 0;

    memset(sx, 0, (size_t)V * 2 * sizeof *sx);
    memset(fa, 0, (size_t)V * sizeof *fa);
    for (uint32_t l = 0; l < nl; l++) {
        uint32_t v = ent[l]; /* distinct */
        sx[v] = (lanemask)1 << l;
        fa[v] = (lanemask)1 << l;
        fl[nfl] = v;
        fm[nfl++] = (lanemask)1 << l;
        scan += off[v + 1] - off[v];
    }
    for (;;) {
        if (grow_levels(g, w, d + 1) != CGPROP_OK) return CGPROP_ENOMEM;
        plevel *L = w->lv + d;
        /* Big: the level's members have a quarter of the calls or more,
         * and its bitmaps (lanes bits per call) take no more room than its
         * records could (12 bytes per call scanned; with 32 lanes, a third
         * of the calls). Half, the earlier bound, left the levels between a
         * third and a half to the records: 2.5 % slower on a random cycle of
         * 185,000 members, the same on a 20,000-member one. */
        L->big = cw >= 32 && scan * 4 >= E && (size_t)w->lanes * cw * 8 <= 12 * scan;
        uint32_t nc = 0;
        if (L->big) {
            if (grow_cb(g, w, CB + 1) != CGPROP_OK) return CGPROP_ENOMEM;
            /* Every call once, by callee, in address order, and nothing
             * stored at an index that depends on the data. */
            uint32_t pv = UINT32_MAX;
            lanemask n = 0;
            for (uint32_t q = 0; q < E; q++) {
                uint32_t u = pc[q].u, v = pc[q].v;
                /* The callers come in no order: their lanes are asked for
                 * 32 calls ahead (63-70 -> 52-60 ms of these passes on file
                 * (b); 16 and 64 ahead no better). */
                if (q + CGPROP__AHEAD_BFS_BOTTOM_UP < E) CGPROP__PREFETCH(fa + pc[q + CGPROP__AHEAD_BFS_BOTTOM_UP].u);
                lanemask km = fa[u] & ~sx[v];
                cm[q] = km;
                n = (n & ((lanemask)0 - (lanemask)(v == pv))) | km; /* no branch: a new callee every few calls */
                nx[v] = n;
                pv = v;
            }
            for (uint32_t wi = 0; wi <= (V - 1) >> 6; wi++) {
                uint64_t x = 0;
                uint32_t v0 = wi * 64, ve = V - v0 < 64 ? V - v0 : 64;
                for (uint32_t b = 0; b < ve; b++) x |= (uint64_t)(nx[v0 + b] != 0) << b;
                mark[wi] = x;
            }
            L->bo = CB;
            memset(cm + E, 0, (cw * 64 - E) * sizeof *cm); /* cm shares its memory with kb */
            transpose_masks(w, cm, cw * 64, nl, w->cb[CB], ekept);
            CB++;
        } else {
            /* A member is on a level at most once: the level's records fit,
             * and so does the padding at the end. Past the cap (one lane
             * alone never logs more than E records), the batch is given
             * back to be run with fewer lanes. */
            if (nl > 1 && R + scan + 64 > (LANE_RECORDS > (size_t)E + 64 ? LANE_RECORDS : (size_t)E + 64))
                return BFS_RETRY;
            if (grow_records(g, w, R + scan + 64) != CGPROP_OK) return CGPROP_ENOMEM;
            uint32_t *rec = w->rec;
            lanemask *rm = w->rm;
            L->rb = (uint32_t)R;
            for (uint32_t i = 0; i < nfl; i++) {
                uint32_t u = fl[i];
                lanemask m = fm[i];
                /* The members come in id order but far apart: their calls
                 * are asked for 16 members ahead, and the callees' lanes
                 * of the calls of the member 6 ahead (37-41 -> 27 ms of
                 * the top-down levels on file (b)). */
                if (i + CGPROP__AHEAD_BFS_TOP_DOWN < nfl) {
                    uint32_t o = off[fl[i + CGPROP__AHEAD_BFS_TOP_DOWN]];
                    CGPROP__PREFETCH(tgt + o);
                    CGPROP__PREFETCH(jin + o);
                }
                if (i + CGPROP__AHEAD_BFS_TOP_DOWN_CALLEES < nfl) {
                    uint32_t a = fl[i + CGPROP__AHEAD_BFS_TOP_DOWN_CALLEES];
                    for (uint32_t j = off[a], je = off[a + 1]; j < je; j++) {
                        CGPROP__PREFETCH(sx + tgt[j]);
                        CGPROP__PREFETCH_W(nx + tgt[j]);
                    }
                }
                for (uint32_t j = off[u], je = off[u + 1]; j < je; j++) {
                    uint32_t q = jin[j], v = tgt[j];
                    lanemask km = m & ~sx[v], t = nx[v];
                    /* No branch on km: whether a call is kept is data, not pattern. */
                    nx[v] = t | km;
                    mark[v >> 6] |= (uint64_t)(km != 0) << (v & 63);
                    rec[R] = q;
                    rm[R] = km;
                    R += km != 0;
                    ekept[q >> 6] |= (uint64_t)(km != 0) << (q & 63);
                }
            }
            L->re = (uint32_t)R;
        }
        d++;
        /* The next level's members, in id order (cand has the spare slots
         * the copies for the processor write). */
        {
            size_t mw = ((size_t)V - 1) / 64 + 1;
            nc = (uint32_t)flatten_big(w, cand, mark, mw);
            memset(mark, 0, mw * sizeof *mark);
        }
        if (!nc) break;
        scan = 0;
        for (uint32_t i = 0; i < nfl; i++) fa[fl[i]] = 0;
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t v = cand[i];
            lanemask n = nx[v];
            nx[v] = 0;
            sx[v] |= n;
            fa[v] = n;
            fm[i] = n;
            scan += off[v + 1] - off[v];
        }
        uint32_t *t = fl;
        fl = cand;
        cand = t;
        nfl = nc;
    }
    w->fl = fl;
    w->cand = cand;
    *nlev = d;
    /* Whole words for the transpose: records no lane keeps. */
    for (; R & 63; R++) {
        w->rec[R] = 0;
        w->rm[R] = 0;
    }
    w->nrec = R;
    if (R) transpose_masks(w, w->rm, R, nl, w->rbits, NULL);
    return CGPROP_OK;
}

/* The weight of call q: a call count or a cost, a whole number; on the
 * usual profile all of a cycle's fit 32 bits, and the entries' passes
 * then read fewer bytes. */
static inline double wget(const work *w, uint32_t q, bool w32) { return w32 ? (double)w->wi[q] : w->wd[q]; }

static inline void wprefetch(const work *w, uint32_t q, bool w32)
{
    CGPROP__PREFETCH(w->pc + q);
    if (w32) CGPROP__PREFETCH(w->wi + q);
    else CGPROP__PREFETCH(w->wd + q);
}

/* Adds the kept call q of the current level to kl and kb and its weight to
 * its callee's kept in-weight (and count). */
static inline void take(work *w, size_t n, uint32_t q, bool zeros, bool w32)
{
    pcall e = {w->pc[q].v, w->pc[q].u, wget(w, q, w32)};
    w->kl[n] = q;
    w->kb[n] = e;
    w->mv[e.v].X += e.w;
    if (zeros) w->nk[e.v]++;
}

/* The lane's kept calls of small level L, in order: their indices into kl, a copy
 * of their pc[] into kb, and each one's weight added to its callee's X (the
 * kept in-weight W; with zeros, nk counts them too). Returns their number.
 * The bits are listed first (flatten_at), so that the call records and
 * then the callees can be fetched ahead: on a cycle of a million calls
 * each is a miss, one entry's kept calls being a sparse subset. */
static inline size_t gather_level(work *w, const plevel *L, uint32_t l, bool zeros, bool w32)
{
    size_t n = 0;
    uint32_t *kl = w->kl;
    const puv *pc = w->pc;
    const size_t A = CGPROP__AHEAD_PROPAGATE_KEPT;
    size_t r0 = L->rb, r1 = L->re;
    if (r0 == r1) return 0;
    const uint64_t *rb = w->rbits + l * (w->nrec / 64);
    /* Levels need not start or end on a word: mask the other levels' bits. */
    size_t w0 = r0 / 64, w1 = (r1 - 1) / 64;
    uint64_t lo = ~(uint64_t)0 << (r0 & 63), hi = ~(uint64_t)0 >> (63 - ((r1 - 1) & 63));
    for (size_t wi = w0; wi <= w1; wi++) {
        uint64_t x = rb[wi];
        if (wi == w0) x &= lo;
        if (wi == w1) x &= hi;
        if (x) n = flatten_at(kl, n, x, (uint32_t)(wi * 64));
    }
    const uint32_t *rec = w->rec;
    for (size_t i = 0; i < n; i++) kl[i] = rec[kl[i]];
    for (size_t i = 0; i < n; i++) {
        if (i + 2 * A < n) wprefetch(w, kl[i + 2 * A], w32);
        if (i + A < n) CGPROP__PREFETCH_W(w->mv + pc[kl[i + A]].v);
        take(w, i, kl[i], zeros, w32);
    }
    return n;
}

/* Kept calls a big level's pass takes at a time: their call records are
 * still in the L1 when the shares are taken. */
#define BIG_CHUNK 64

/* The lane's pass over a big level, without a copy of its kept calls. A
 * big level's calls come by callee, then caller, so the kept in-calls of a
 * callee are next to each other in the list: a chunk of them has its
 * weights summed into their callees' W, then every call of the chunk whose
 * callee's run has ended there takes its share c = w·p(v)/W (the run left
 * open waits for the next chunk), reading its call record again, from the
 * L1. The same additions in the same order as listing the level's kept
 * calls, summing every callee's W, then taking the shares. */
static CGPROP__ALWAYS_INLINE void big_level(work *w, const plevel *L, uint32_t l, bool zeros, bool w32)
{
    size_t cw = w->cwc, n = 0;
    const uint64_t *bb = w->cb[L->bo] + l * cw;
    uint32_t *kl = w->kl, *nk = w->nk;
    const puv *pc = w->pc;
    mval *mv = w->mv;
    double *acc = w->acc;
    const size_t A = CGPROP__AHEAD_PROPAGATE_KEPT;
    n = flatten_big(w, kl, bb, cw);
    /* The calls and their totals are asked for ahead; a caller's p when its
     * call is read in the first step (the second comes up to a chunk
     * later); the callees come in address order and are not. */
    size_t done = 0;
    for (size_t a = 0; a < n; a += BIG_CHUNK) {
        size_t b = a + BIG_CHUNK < n ? a + BIG_CHUNK : n;
        for (size_t i = a; i < b; i++) {
            if (i + 2 * A < n) wprefetch(w, kl[i + 2 * A], w32);
            if (i + A < n) CGPROP__PREFETCH_W(acc + kl[i + A]);
            uint32_t q = kl[i], v = pc[q].v;
            CGPROP__PREFETCH_W(mv + pc[q].u);
            mv[v].X += wget(w, q, w32);
            if (zeros) nk[v]++;
        }
        /* The run still open at b waits; one that began before a is
         * [done, a) and goes on (not scanned again: a callee can have
         * thousands of kept in-calls). */
        size_t e = b;
        if (b < n) {
            uint32_t v = pc[kl[b - 1]].v;
            while (e > a && pc[kl[e - 1]].v == v) e--;
            if (e == a && a > done && pc[kl[a - 1]].v == v) e = done;
        }
        for (size_t i = done; i < e; i++) {
            uint32_t q = kl[i];
            puv p = pc[q];
            double P = mv[p.v].P, W = mv[p.v].X, c;
            if (zeros) c = W > 0 ? wget(w, q, w32) * P / W : P / (double)nk[p.v];
            else c = wget(w, q, w32) * P / W;
            acc[q] += c;
            mv[p.u].P += c;
        }
        done = e;
    }
}

/* Lane l of the last batch (nlev levels), share rho, over the current
 * metric: partials callees first, level by level, deepest first:
 *   1. the lane's kept calls of the level, off its bits (gather_level), and
 *      each callee's kept in-weight W. All kept in-calls of a member on
 *      level d + 1 come from level d, and its own kept calls go to level
 *      d + 2, done before: its p and W are now complete;
 *   2. for each of those calls u->v: c = w·p(v)/W(v) is the call's share of
 *      p(v), added to the call's running total and to p(u).
 * The callee's p/W is computed again for each of its kept in-calls: a
 * division per call costs less here than listing the callees to divide
 * once each. Nothing loops over one member's calls, and nothing adds p(u)
 * to u's total: summed over the entries, p(u) is Σρ·base(u) plus the totals
 * of u's calls in the cycle (see one_cycle). A big level comes by callee
 * (see one_cycle), so p, W and the call totals are read in address order;
 * its two steps run a chunk at a time, without a copy (big_level).
 *
 * With zeros (some intra-cycle call weighs 0), a callee whose nk kept
 * in-calls all weigh 0 (W = 0) gives each of them p(v)/nk.
 *
 * Inlined into each of its four callers (zeros, w32): the per-call loops
 * then test neither. */
static CGPROP__ALWAYS_INLINE void entry_body(work *w, uint32_t V, uint32_t nlev, uint32_t l, double rho, bool zeros,
                                              bool w32)
{
    const plevel *lv = w->lv;
    const double *base = w->base;
    const uint32_t *kl = w->kl, *nk = w->nk;
    const pcall *kb = w->kb;
    double *acc = w->acc;
    mval *mv = w->mv;

    for (uint32_t i = 0; i < V; i++) {
        mv[i].P = rho * base[i];
        mv[i].X = 0;
    }
    if (zeros) memset(w->nk, 0, (size_t)V * sizeof *w->nk);
    for (uint32_t d = nlev; d-- > 0;) {
        if (lv[d].big) {
            big_level(w, lv + d, l, zeros, w32);
            continue;
        }
        size_t nb = gather_level(w, lv + d, l, zeros, w32);
        if (zeros)
            for (size_t x = 0; x < nb; x++) {
                uint32_t v = kb[x].v;
                double W = mv[v].X;
                double c = W > 0 ? kb[x].w * mv[v].P / W : mv[v].P / (double)nk[v];
                acc[kl[x]] += c;
                mv[kb[x].u].P += c;
            }
        else
            for (size_t x = 0; x < nb; x++) {
                if (x + CGPROP__AHEAD_PROPAGATE_KEPT < nb) {
                    CGPROP__PREFETCH_W(mv + kb[x + CGPROP__AHEAD_PROPAGATE_KEPT].u);
                    CGPROP__PREFETCH_W(acc + kl[x + CGPROP__AHEAD_PROPAGATE_KEPT]);
                }
                double c = kb[x].w * mv[kb[x].v].P / mv[kb[x].v].X;
                acc[kl[x]] += c;
                mv[kb[x].u].P += c;
            }
    }
}

static void entry_pass(work *w, uint32_t V, uint32_t nlev, uint32_t l, double rho)
{
    if (w->w32) entry_body(w, V, nlev, l, rho, false, true);
    else entry_body(w, V, nlev, l, rho, false, false);
}

static void entry_pass_zeros(work *w, uint32_t V, uint32_t nlev, uint32_t l, double rho)
{
    if (w->w32) entry_body(w, V, nlev, l, rho, true, true);
    else entry_body(w, V, nlev, l, rho, true, false);
}

static int one_cycle(cgprop_graph *g, const cgprop__adj *adj, prop_res *res, work *w, uint32_t c)
{
    uint32_t K = g->K, V;
    const uint32_t *mem = cgprop__cycles_members(g, c, &V);
    uint32_t *loc = w->loc; /* UNSEEN outside this cycle */
    for (uint32_t i = 0; i < V; i++) loc[mem[i]] = i;

    /* Everything per call is stored by callee (q), so that the passes over
     * an entry's kept calls of a big level read them, and their callees, in
     * address order; the BFS follows calls by caller (off, tgt, jin = q).
     * One walk over the members' incoming calls gives both, and the calls
     * from outside (xe) for ρ. */
    uint32_t E = 0, nx = 0, *off = w->off, *cur = w->fl; /* fl: scratch here */
    memset(off, 0, ((size_t)V + 1) * sizeof *off);
    for (uint32_t i = 0; i < V; i++) {
        uint32_t v = mem[i];
        w->xoff[i] = nx;
        for (uint32_t p = adj->in_off[v]; p < adj->in_off[v + 1]; p++) {
            uint32_t e = adj->in_e[p], u = g->ecaller[e], lu = loc[u];
            if (lu == UNSEEN) {
                w->xe[nx++] = e;
                continue;
            }
            if (u == v) continue;
            w->pc[E].v = i;
            w->pc[E].u = lu;
            w->eid[E] = e;
            off[lu + 1]++;
            E++;
        }
    }
    w->xoff[V] = nx;
    w->cwc = ((size_t)E + 63) / 64;
    for (uint32_t i = 0; i < V; i++) off[i + 1] += off[i];
    memcpy(cur, off, (size_t)V * sizeof *cur);
    for (uint32_t q = 0; q < E; q++) {
        uint32_t j = cur[w->pc[q].u]++;
        w->tgt[j] = w->pc[q].v;
        w->jin[j] = q;
    }

    /* Metrics one after the other: each has its own weights and entries,
     * and one metric's arrays fit the caches better than K interleaved. */
    for (uint32_t k = 0; k < K; k++) {
        uint32_t nent = 0;
        double rsum = 0;
        for (uint32_t i = 0; i < V; i++) {
            uint32_t u = mem[i];
            w->base[i] = (double)g->self[(size_t)u * K + k] + cgprop__collapse_gprof_child(g, u, k);
            /* ρ(u): u's spontaneous part plus every call from outside into u. */
            double rh = cgprop__collapse_entry(g, u, k);
            for (uint32_t x = w->xoff[i]; x < w->xoff[i + 1]; x++) rh += cgprop__collapse_edge_share(g, w->xe[x], k);
            w->rho[i] = rh;
            if (rh > 0) {
                w->entry[nent++] = i;
                rsum += rh;
            }
        }
        /* The weights go through acc (zeroed after): when all fit 32 bits
         * only wi, the first half of wd's room, is ever written, and the
         * other half stays out of the resident set (3.6 MB of the e2e
         * group's 185,000-member cycle). */
        bool zeros = false, fits = true;
        double *acc = w->acc;
        for (uint32_t j = 0; j < E; j++) {
            /* By call id, the calls' weights are random reads on a large
             * cycle; so are the calls' totals below (by q, by call id):
             * asked for ahead (file (b): 10.6 -> 6.4 ms and 7.4-8.7 ->
             * 4.7-5.5 ms). */
            if (j + CGPROP__AHEAD_PROPAGATE_BY_ID < E)
                cgprop__collapse_prefetch_weight(g, w->eid[j + CGPROP__AHEAD_PROPAGATE_BY_ID], k);
            double x = cgprop__collapse_weight(g, w->eid[j], k);
            acc[j] = x;
            zeros |= x == 0;
            fits &= x < 4294967296.0; /* whole and not negative: a count or a cost */
        }
        w->w32 = fits;
        if (fits)
            for (uint32_t j = 0; j < E; j++) w->wi[j] = (uint32_t)acc[j];
        else
            memcpy(w->wd, acc, (size_t)E * sizeof *acc);
        memset(acc, 0, (size_t)E * sizeof *acc);
        memset(w->ekept, 0, ((size_t)E + 63) / 64 * sizeof *w->ekept);
        for (uint32_t b = 0; b < nent;) {
            uint32_t nl = nent - b < w->cur ? nent - b : w->cur;
            uint32_t nlev;
            int rc = batch_bfs(g, w, V, w->entry + b, nl, &nlev);
            if (rc == BFS_RETRY) {
                w->cur = nl / 2;
                continue;
            }
            if (rc != CGPROP_OK) return CGPROP_ENOMEM;
            for (uint32_t l = 0; l < nl; l++) {
                double rho = w->rho[w->entry[b + l]];
                if (zeros) entry_pass_zeros(w, V, nlev, l, rho);
                else entry_pass(w, V, nlev, l, rho);
            }
            b += nl;
        }
        /* Σ over the entries of p(u) = Σρ·base(u) + the totals of u's calls in Z. */
        for (uint32_t i = 0; i < V; i++) {
            double t = rsum * w->base[i];
            for (uint32_t j = w->off[i]; j < w->off[i + 1]; j++) {
                if (j + CGPROP__AHEAD_PROPAGATE_MEMBERS < E)
                    CGPROP__PREFETCH(w->acc + w->jin[j + CGPROP__AHEAD_PROPAGATE_MEMBERS]);
                t += w->acc[w->jin[j]];
            }
            res->tot[(size_t)mem[i] * K + k] = t;
        }
        for (uint32_t j = 0; j < E; j++) {
            if (j + CGPROP__AHEAD_PROPAGATE_BY_ID < E)
                CGPROP__PREFETCH_W(res->etot + (size_t)w->eid[j + CGPROP__AHEAD_PROPAGATE_BY_ID] * K + k);
            if (!bit_get(w->ekept, j)) continue;
            size_t e = w->eid[j];
            res->etot[e * K + k] += w->acc[j];
            bit_set(res->indag, e * K + k);
        }
    }
    for (uint32_t i = 0; i < V; i++) loc[mem[i]] = UNSEEN;
    return CGPROP_OK;
}

/* ---- the reference kernel ----
 *
 * The same figures as one_cycle, computed the plain way: one entry at a
 * time, a breadth-first search from it over the cycle's calls (self-calls
 * left out), the calls from each level to the next kept, then the entry's
 * share pushed back up those calls, deepest level first:
 *   p(u) starts at ρ·base(u); for a kept call u→v, c = w·p(v)/W(v), where W(v)
 *   is the weight of v's kept in-calls (p(v)/n when all n of them weigh 0);
 *   c goes to the call's total and to p(u).
 * A member's total is Σ over the entries of its final p. No batches, no
 * bit tricks, no ordering for the caches: the tests hold the tuned kernel
 * to this one on random graphs (tests/check_kernels.c), and a build with
 * CGPROP_REFERENCE_KERNELS uses it everywhere. */
static int one_cycle_plain(cgprop_graph *g, const cgprop__adj *adj, prop_res *res, uint32_t c)
{
    uint32_t K = g->K, V;
    const uint32_t *mem = cgprop__cycles_members(g, c, &V);
    size_t E = 0;
    for (uint32_t i = 0; i < V; i++) E += adj->out_off[mem[i] + 1] - adj->out_off[mem[i]];
    uint32_t *loc = cgprop__alloc(g, g->nn, sizeof *loc);
    uint32_t *level = cgprop__alloc(g, V, sizeof *level);
    uint32_t *queue = cgprop__alloc(g, V, sizeof *queue);
    uint32_t *cu = cgprop__alloc(g, E + 1, sizeof *cu), *cv = cgprop__alloc(g, E + 1, sizeof *cv);
    uint32_t *ce = cgprop__alloc(g, E + 1, sizeof *ce), *coff = cgprop__alloc(g, (size_t)V + 1, sizeof *coff);
    uint32_t *nk = cgprop__alloc(g, V, sizeof *nk);
    double *p = cgprop__alloc(g, V, sizeof *p), *W = cgprop__alloc(g, V, sizeof *W);
    double *acc = cgprop__alloc(g, E + 1, sizeof *acc);
    bool *kept = cgprop__alloc(g, E + 1, sizeof *kept);
    int rc = CGPROP_OK;
    if (!loc || !level || !queue || !cu || !cv || !ce || !coff || !nk || !p || !W || !acc || !kept) {
        rc = CGPROP_ENOMEM;
        goto done;
    }
    for (uint32_t n = 0; n < g->nn; n++) loc[n] = UNSEEN;
    for (uint32_t i = 0; i < V; i++) loc[mem[i]] = i;
    /* The cycle's calls, by caller. */
    size_t nc = 0;
    for (uint32_t i = 0; i < V; i++) {
        coff[i] = (uint32_t)nc;
        for (uint32_t q = adj->out_off[mem[i]]; q < adj->out_off[mem[i] + 1]; q++) {
            uint32_t v = loc[adj->out_v[q]];
            if (v == UNSEEN || v == i) continue;
            cu[nc] = i;
            cv[nc] = v;
            ce[nc++] = adj->out_e[q];
        }
    }
    coff[V] = (uint32_t)nc;
    for (uint32_t k = 0; k < K; k++) {
        memset(acc, 0, nc * sizeof *acc);
        memset(kept, 0, nc * sizeof *kept);
        for (uint32_t entry = 0; entry < V; entry++) {
            uint32_t u0 = mem[entry];
            double rho = cgprop__collapse_entry(g, u0, k);
            for (uint32_t q = adj->in_off[u0]; q < adj->in_off[u0 + 1]; q++)
                if (loc[g->ecaller[adj->in_e[q]]] == UNSEEN) rho += cgprop__collapse_edge_share(g, adj->in_e[q], k);
            if (!(rho > 0)) continue;
            /* Breadth-first levels from the entry. */
            for (uint32_t i = 0; i < V; i++) level[i] = UNSEEN;
            uint32_t qh = 0, qt = 0, maxl = 0;
            level[entry] = 0;
            queue[qt++] = entry;
            while (qh < qt) {
                uint32_t u = queue[qh++];
                for (uint32_t j = coff[u]; j < coff[u + 1]; j++)
                    if (level[cv[j]] == UNSEEN) {
                        level[cv[j]] = level[u] + 1;
                        if (level[u] + 1 > maxl) maxl = level[u] + 1;
                        queue[qt++] = cv[j];
                    }
            }
            for (uint32_t i = 0; i < V; i++) {
                p[i] = rho * ((double)g->self[(size_t)mem[i] * K + k] + cgprop__collapse_gprof_child(g, mem[i], k));
                W[i] = 0;
                nk[i] = 0;
            }
            for (size_t j = 0; j < nc; j++)
                if (level[cu[j]] != UNSEEN && level[cv[j]] == level[cu[j]] + 1) {
                    W[cv[j]] += cgprop__collapse_weight(g, ce[j], k);
                    nk[cv[j]]++;
                }
            /* Deepest level first: a callee's p is complete before its callers read it. */
            for (uint32_t d = maxl; d-- > 0;)
                for (size_t j = 0; j < nc; j++) {
                    uint32_t u = cu[j], v = cv[j];
                    if (level[u] != d || level[v] != d + 1) continue;
                    double w = cgprop__collapse_weight(g, ce[j], k);
                    double x = W[v] > 0 ? w * p[v] / W[v] : p[v] / (double)nk[v];
                    acc[j] += x;
                    p[u] += x;
                    kept[j] = true;
                }
            for (uint32_t i = 0; i < V; i++) res->tot[(size_t)mem[i] * K + k] += p[i];
        }
        for (size_t j = 0; j < nc; j++) {
            if (!kept[j]) continue;
            res->etot[(size_t)ce[j] * K + k] += acc[j];
            bit_set(res->indag, (size_t)ce[j] * K + k);
        }
    }
done:
    cgprop__free(g, loc);
    cgprop__free(g, level);
    cgprop__free(g, queue);
    cgprop__free(g, cu);
    cgprop__free(g, cv);
    cgprop__free(g, ce);
    cgprop__free(g, coff);
    cgprop__free(g, nk);
    cgprop__free(g, p);
    cgprop__free(g, W);
    cgprop__free(g, acc);
    cgprop__free(g, kept);
    return rc;
}

#ifdef CGPROP_REFERENCE_KERNELS
#define PLAIN_DEFAULT true
#else
#define PLAIN_DEFAULT false
#endif

static int build(cgprop_graph *g, prop_res **out, bool plain)
{
    const cgprop__adj *adj = cgprop__get_adj(g);
    if (!adj) return CGPROP_ENOMEM;
    uint32_t K = g->K, nn = g->nn, ne = g->ne, ncyc = cgprop__cycles_count(g);
    prop_res *r = cgprop__calloc(g, 1, sizeof *r);
    if (!r) return CGPROP_ENOMEM;
    r->K = K;
    r->nn = nn;
    r->ne = ne;
    r->tot = cgprop__calloc(g, (size_t)nn * K, sizeof *r->tot);
    r->etot = cgprop__calloc(g, (size_t)ne * K, sizeof *r->etot);
    r->indag = cgprop__calloc(g, ((size_t)ne * K + 63) / 64, sizeof *r->indag);
    if (!r->tot || !r->etot || !r->indag) goto nomem;

    for (uint32_t n = 0; n < nn; n++)
        if (cgprop__cycles_of(g, n) == CGPROP_NONE)
            for (uint32_t k = 0; k < K; k++) r->tot[(size_t)n * K + k] = cgprop__collapse_vertex_total(g, n, k);
    /* Calls that cross a vertex boundary carry their share of the callee's
     * vertex total; intra-cycle calls are filled per entry below. */
    for (uint32_t e = 0; e < ne; e++) {
        /* The callee's vertex record is a random read on a big graph: ask
         * for it a few calls ahead so the misses overlap. */
        if (e + CGPROP__AHEAD_PROPAGATE_CALLS < ne) cgprop__collapse_prefetch_edge(g, e + CGPROP__AHEAD_PROPAGATE_CALLS);
        for (uint32_t k = 0; k < K; k++) {
            double s = cgprop__collapse_edge_share(g, e, k);
            if (s != 0) r->etot[(size_t)e * K + k] = s * cgprop__collapse_vertex_total(g, g->ecallee[e], k);
        }
    }

    if (ncyc && plain) {
        int rc = CGPROP_OK;
        for (uint32_t c = 0; c < ncyc && rc == CGPROP_OK; c++) rc = one_cycle_plain(g, adj, r, c);
        if (rc != CGPROP_OK) goto nomem;
    } else if (ncyc) {
        size_t maxV = 0, maxE = 0, maxI = 0;
        const uint32_t *cof = cgprop__cycles_of_all(g);
        for (uint32_t c = 0; c < ncyc; c++) {
            uint32_t V;
            const uint32_t *mem = cgprop__cycles_members(g, c, &V);
            /* Exact sizes (the calls inside but for self-calls, and those
             * from outside): the per-call arrays are then filled to the
             * end, which work_alloc's huge pages rely on. */
            size_t E = 0, I = 0;
            for (uint32_t i = 0; i < V; i++) {
                uint32_t v = mem[i];
                for (uint32_t p = adj->in_off[v]; p < adj->in_off[v + 1]; p++) {
                    uint32_t u = g->ecaller[adj->in_e[p]];
                    if (u == v) continue;
                    if (cgprop__cycles_of_in(g, cof, u) == c) E++;
                    else I++;
                }
            }
            if (V > maxV) maxV = V;
            if (E > maxE) maxE = E;
            if (I > maxI) maxI = I;
        }
        work w;
        if (work_alloc(g, &w, maxV, maxE, maxI) != CGPROP_OK) goto nomem;
        int rc = CGPROP_OK;
        for (uint32_t c = 0; c < ncyc && rc == CGPROP_OK; c++) rc = one_cycle(g, adj, r, &w, c);
        work_free(g, &w);
        if (rc != CGPROP_OK) goto nomem;
    }
    *out = r;
    return CGPROP_OK;
nomem:
    res_destroy(g, r);
    return CGPROP_ENOMEM;
}

int cgprop_graph_propagate(cgprop_graph *g)
{
    if (!g) return CGPROP_EINVAL;
    if (!cgprop__current(g, CGPROP__A_COLLAPSE))
        return cgprop__err(g, CGPROP_ESTATE, "propagate: run cgprop_graph_collapse() on the current graph first");
    prop_res *r = NULL;
    if (build(g, &r, PLAIN_DEFAULT) != CGPROP_OK)
        return cgprop__err(g, CGPROP_ENOMEM, "propagate: out of memory (%u functions, %u calls)", g->nn, g->ne);
    /* The bounds and the walk go with the totals they clamp and estimate:
     * all are installed, or none (a failure keeps the old ones, still
     * current). */
    cgprop__bounds *b = NULL;
    int rc = cgprop__bounds_build(g, &b);
    if (rc != CGPROP_OK) {
        res_destroy(g, r);
        if (rc == CGPROP_ENOMEM)
            return cgprop__err(g, rc, "propagate: out of memory for the bounds (%u functions, %u calls)", g->nn,
                               g->ne);
        return rc; /* the split's own error and message */
    }
    void *w = NULL;
    if (cgprop__walk_build(g, b, &w) != CGPROP_OK) {
        res_destroy(g, r);
        cgprop__bounds_destroy(g, b);
        return cgprop__err(g, CGPROP_ENOMEM, "propagate: out of memory for the walk (%u functions, %u calls)", g->nn,
                           g->ne);
    }
    cgprop__install(g, CGPROP__A_PROPAGATE, r);
    cgprop__install(g, CGPROP__A_BOUNDS, b);
    cgprop__install(g, CGPROP__A_WALK, w);
    return cgprop__ok(g);
}

bool cgprop__propagate_total(const cgprop_graph *g, uint32_t node, uint32_t k, double *out)
{
    if (!cgprop__current(g, CGPROP__A_PROPAGATE)) return false;
    const prop_res *r = RES(g);
    if (node >= r->nn || k >= r->K) return false;
    *out = r->tot[(size_t)node * r->K + k];
    return true;
}

void cgprop__propagate_fill(const cgprop_graph *g, uint32_t node, uint32_t k, cgprop_total_row *row)
{
    const prop_res *r = RES(g);
    if (!r || node >= r->nn || k >= r->K) return;
    uint32_t c = cgprop__cycles_of(g, node);
    uint32_t flags = 0;
    /* A member's gprof figure leaves out its intra-cycle descendants. */
    if (c != CGPROP_NONE) flags |= CGPROP_F_IN_CYCLE | CGPROP_F_ESTIMATE | CGPROP_F_NOT_INCLUSIVE;
    if (g->nflags[node] & CGPROP__NF_SELF_CALL) flags |= CGPROP_F_SELF_RECURSIVE;
    if (cgprop__collapse_is_root(g, node)) {
        flags |= CGPROP_F_ROOT;
        if (c != CGPROP_NONE) flags |= CGPROP_F_ENTRY_ASSUMED;
    }
    double vt = cgprop__collapse_vertex_total(g, node, k);
    memset(row, 0, sizeof *row);
    row->id = node;
    row->flags = flags;
    row->cycle = c;
    row->heuristic = r->tot[(size_t)node * r->K + k];
    row->vertex_total = vt;
    row->gprof_self = (double)g->self[(size_t)node * r->K + k];
    row->gprof_child = cgprop__collapse_gprof_child(g, node, k);
    row->spont_share = cgprop__collapse_entry(g, node, k) * vt;
    cgprop__bounds_fill(g, node, k, row);
}

void cgprop__propagate_fill_edge(const cgprop_graph *g, uint32_t edge, uint32_t k, cgprop_edge_total_row *row)
{
    const prop_res *r = RES(g);
    if (!r || edge >= r->ne || k >= r->K) return;
    uint32_t u = g->ecaller[edge], v = g->ecallee[edge];
    uint32_t cu = cgprop__cycles_of(g, u), cv = cgprop__cycles_of(g, v);
    uint32_t flags = 0;
    double total = r->etot[(size_t)edge * r->K + k], gs = 0, gc = 0, share = 0;
    if (u == v) {
        flags = CGPROP_F_SELF_CALL | CGPROP_F_NO_TOTAL;
        total = 0;
    } else if (cu != CGPROP_NONE && cu == cv) {
        flags = CGPROP_F_INTRA_CYCLE;
        if (bit_get(r->indag, (size_t)edge * r->K + k))
            flags |= CGPROP_F_ESTIMATE;
        else {
            flags |= CGPROP_F_NO_TOTAL;
            total = 0;
        }
    } else {
        share = cgprop__collapse_edge_share(g, edge, k);
        double s = cgprop__collapse_vertex_self(g, v, k);
        gs = s * share;
        gc = (cgprop__collapse_vertex_total(g, v, k) - s) * share;
    }
    row->id = edge;
    row->caller = u;
    row->callee = v;
    row->heuristic = total;
    /* A call's measured cost is all its callee ever spent through it. */
    bool measured = (g->eflags[edge] & CGPROP__EF_HAS_COST) != 0;
    double cost = measured ? (double)g->ecost[(size_t)edge * r->K + k] : 0;
    if (measured && total > cost) {
        total = cost;
        flags |= CGPROP_F_CLAMPED;
    }
    /* Between two components the callee's activations entered through the
     * call are outermost in its component, so the call's measured cost is
     * exactly its share: the total is exact where it is that figure. A
     * call without a cost has an exact share only as the one way into a
     * callee outside any cycle whose total is exact; a share by counts
     * is gprof's assumption that every call costs the same. */
    if (!(flags & (CGPROP_F_SELF_CALL | CGPROP_F_INTRA_CYCLE))) {
        uint64_t exact;
        bool ok = measured ? fabs(total - cost) <= 1e-12 * cost
                           : share == 1.0 && cv == CGPROP_NONE && cgprop__bounds_point(g, v, k, &exact) &&
                                 fabs(total - (double)exact) <= 1e-12 * (double)exact;
        /* Exact up to rounding (15/22 of 22 is 14.999999999999998): the
         * figure given is then the integer it stands for, as every other
         * exact figure is. */
        /* A stack cut short may have held the call in the frames it lost:
         * its measured cost is then only what the stacks show. */
        if (ok && cgprop__split_unrooted_weight(g, k)) ok = false;
        if (!ok) flags |= CGPROP_F_ESTIMATE;
        else total = measured ? cost : (double)exact;
    }
    row->flags = flags;
    row->total = total;
    row->gprof_self = gs;
    row->gprof_child = gc;
    row->share = share;
}

int cgprop__propagate_reference(cgprop_graph *g, bool plain, double *tot, double *etot, uint8_t *indag)
{
    if (!cgprop__current(g, CGPROP__A_COLLAPSE)) return CGPROP_ESTATE;
    prop_res *r = NULL;
    if (build(g, &r, plain) != CGPROP_OK) return CGPROP_ENOMEM;
    size_t nk = (size_t)g->nn * g->K, ek = (size_t)g->ne * g->K;
    memcpy(tot, r->tot, nk * sizeof *tot);
    memcpy(etot, r->etot, ek * sizeof *etot);
    for (size_t i = 0; i < ek; i++) indag[i] = bit_get(r->indag, i);
    res_destroy(g, r);
    return CGPROP_OK;
}
