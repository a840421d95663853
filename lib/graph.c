/* The graph store: functions, calls, their costs, and the bookkeeping that
 * lets analyses and iterators detect staleness. No analysis logic lives here. */
#include "graph.h"

#include "analysis.h"
#include "contexts.h"
#include "util/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- version and status text ---- */

#define CGPROP_STR2(x) #x
#define CGPROP_STR(x) CGPROP_STR2(x)

uint32_t cgprop_version(void) { return CGPROP_VERSION_NUMBER; }

const char *cgprop_version_string(void)
{
    return CGPROP_STR(CGPROP_VERSION_MAJOR) "." CGPROP_STR(CGPROP_VERSION_MINOR) "." CGPROP_STR(
        CGPROP_VERSION_PATCH);
}

const char *cgprop_strerror(int code)
{
    switch (code) {
    case CGPROP_OK: return "success";
    case CGPROP_DONE: return "no more rows";
    case CGPROP_ENOMEM: return "out of memory";
    case CGPROP_EINVAL: return "invalid argument";
    case CGPROP_ENOTFOUND: return "not found";
    case CGPROP_ESTATE: return "call out of order or stale result";
    case CGPROP_EOVERFLOW: return "value would overflow";
    case CGPROP_EFORMAT: return "malformed input";
    case CGPROP_EWRITE: return "writing the output failed";
    default: return "unknown status code";
    }
}

/* ---- versioned structs ---- */

bool cgprop__opts_in(void *dst, size_t dst_size, const void *src, size_t min)
{
    uint32_t size;
    memcpy(&size, src, sizeof size);
    if (size < min) return false;
    if (size > dst_size) {
        const unsigned char *tail = (const unsigned char *)src + dst_size;
        for (size_t i = 0; i < size - dst_size; i++)
            if (tail[i]) return false;
    }
    memcpy((unsigned char *)dst + sizeof size, (const unsigned char *)src + sizeof size,
           (size < dst_size ? size : dst_size) - sizeof size);
    return true;
}

bool cgprop__size_ok(const void *p, size_t min)
{
    uint32_t size;
    memcpy(&size, p, sizeof size);
    return size >= min;
}

void cgprop__info_out(void *dst, const void *src, size_t src_size)
{
    uint32_t size;
    memcpy(&size, dst, sizeof size);
    memcpy((unsigned char *)dst + sizeof size, (const unsigned char *)src + sizeof size,
           (size < src_size ? size : src_size) - sizeof size);
}

/* ---- errors and allocation ---- */

int cgprop__err(cgprop_graph *g, int code, const char *fmt, ...)
{
    if (g) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(g->err, sizeof g->err, fmt, ap);
        va_end(ap);
    }
    return code;
}

int cgprop__ok(cgprop_graph *g)
{
    g->err[0] = '\0';
    return CGPROP_OK;
}

const char *cgprop_graph_errmsg(const cgprop_graph *g)
{
    return g ? g->err : "invalid argument: graph is NULL";
}

/* The graph's allocation context (util/mem.h), copied in at creation. */
void *cgprop__alloc(const cgprop_graph *g, size_t n, size_t size) { return cgprop__mem_alloc(&g->a, n, size); }
void *cgprop__calloc(const cgprop_graph *g, size_t n, size_t size) { return cgprop__mem_calloc(&g->a, n, size); }
void *cgprop__realloc(const cgprop_graph *g, void *p, size_t n, size_t size)
{
    return cgprop__mem_realloc(&g->a, p, n, size);
}
void cgprop__free(const cgprop_graph *g, void *p) { cgprop__mem_free(&g->a, p); }

/* ---- creation ---- */

int cgprop_graph_new(const cgprop_allocator *alloc, const char *const *names, const size_t *name_lens,
                     size_t nmetrics, cgprop_graph **out)
{
    if (out) *out = NULL;
    if (!out || !names || nmetrics < 1 || nmetrics > CGPROP_MAX_METRICS) return CGPROP_EINVAL;
    if (alloc && (!alloc->malloc_fn || !alloc->realloc_fn || !alloc->free_fn)) return CGPROP_EINVAL;
    for (size_t k = 0; k < nmetrics; k++) {
        if (!names[k]) return CGPROP_EINVAL;
        size_t len = name_lens ? name_lens[k] : strlen(names[k]);
        if (len == 0) return CGPROP_EINVAL;
        /* One word each, and distinct: callgrind's events: line (and every
         * tool that reads it) splits at blanks, and a name written twice
         * names nothing. */
        for (size_t i = 0; i < len; i++)
            if ((unsigned char)names[k][i] <= 0x20 || names[k][i] == 0x7f) return CGPROP_EINVAL;
        for (size_t j = 0; j < k; j++) {
            size_t lj = name_lens ? name_lens[j] : strlen(names[j]);
            if (lj == len && memcmp(names[j], names[k], len) == 0) return CGPROP_EINVAL;
        }
    }

    cgprop_allocator a;
    cgprop__mem_init(&a, alloc);
    cgprop_graph *g = a.malloc_fn(a.user, sizeof *g);
    if (!g) return CGPROP_ENOMEM;
    memset(g, 0, sizeof *g);
    g->a = a;
    g->K = (uint32_t)nmetrics;
    g->est_mode = CGPROP_EST_MIDPOINT;
    g->walk_budget = CGPROP_WALK_BUDGET_DEFAULT;
    g->mname = cgprop__calloc(g, nmetrics, sizeof *g->mname);
    g->mlen = cgprop__calloc(g, nmetrics, sizeof *g->mlen);
    if (!g->mname || !g->mlen) goto nomem;
    for (size_t k = 0; k < nmetrics; k++) {
        size_t len = name_lens ? name_lens[k] : strlen(names[k]);
        if (len == SIZE_MAX) goto nomem;
        g->mname[k] = cgprop__alloc(g, len + 1, 1);
        if (!g->mname[k]) goto nomem;
        memcpy(g->mname[k], names[k], len);
        g->mname[k][len] = '\0';
        g->mlen[k] = len;
    }
    *out = g;
    return CGPROP_OK;
nomem:
    cgprop_graph_free(g);
    return CGPROP_ENOMEM;
}

static void sparse_free(const cgprop_graph *g, cgprop__sparse *m);

void cgprop_graph_free(cgprop_graph *g)
{
    if (!g) return;
    cgprop__analyses_free(g);
    cgprop__stacks_free(g);
    cgprop__ctx_free(g);
    sparse_free(g, &g->dself);
    sparse_free(g, &g->dcall);
    if (g->mname)
        for (uint32_t k = 0; k < g->K; k++) cgprop__free(g, g->mname[k]);
    for (size_t i = 0; i < g->nkblocks; i++) cgprop__free(g, g->kblocks[i]);
    void *arrays[] = {g->mname, g->mlen, g->key_ptr, g->key_len, g->kblocks, g->nhash, g->self, g->self_n,
                      g->self_r, g->spont_cnt, g->spont_cost, g->calls_in, g->nflags, g->ecaller, g->ecallee,
                      g->ecount, g->ecost, g->eflags, g->ecls_ref, g->ecls, g->ecls_cnt, g->ehash, g->stated, g->adj.out_off,
                      g->adj.out_e, g->adj.out_v, g->adj.in_off, g->adj.in_e};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) cgprop__free(g, arrays[i]);
    g->a.free_fn(g->a.user, g);
}

/* ---- metrics ---- */

size_t cgprop_graph_metric_count(const cgprop_graph *g) { return g ? g->K : 0; }

const char *cgprop_graph_metric_name(const cgprop_graph *g, uint32_t k, size_t *len_out)
{
    if (len_out) *len_out = 0;
    if (!g || k >= g->K) return NULL;
    if (len_out) *len_out = g->mlen[k];
    return g->mname[k];
}

int cgprop__graph_rename_metric(cgprop_graph *g, uint32_t k, const char *name)
{
    size_t len = strlen(name);
    char *m = cgprop__realloc(g, g->mname[k], len + 1, 1);
    if (!m) return CGPROP_ENOMEM;
    memcpy(m, name, len + 1);
    g->mname[k] = m;
    g->mlen[k] = len;
    return CGPROP_OK;
}

int cgprop_graph_find_metric(cgprop_graph *g, const char *name, size_t len, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (!out || (!name && len)) return cgprop__err(g, CGPROP_EINVAL, "find_metric: NULL argument");
    for (uint32_t k = 0; k < g->K; k++)
        if (g->mlen[k] == len && memcmp(g->mname[k], name, len) == 0) {
            *out = k;
            return cgprop__ok(g);
        }
    return cgprop__err(g, CGPROP_ENOTFOUND, "no metric named '%.*s'", (int)(len > 200 ? 200 : len), name);
}

/* ---- functions ---- */

/* Reallocate one per-node or per-call array of g in a grow_* function;
 * returns ENOMEM from it on failure, leaving the array as it was. */
#define GROW(field, count)                                                          \
    do {                                                                            \
        void *p_ = cgprop__realloc(g, g->field, (count), sizeof *g->field);         \
        if (!p_) return CGPROP_ENOMEM;                                              \
        g->field = p_;                                                              \
    } while (0)

/* Grow every per-node array to hold at least `need` nodes (doubling). Each
 * array is reallocated on its own; ncap only moves once all succeeded, so a
 * failure leaves a graph whose arrays are merely larger than needed. */
static int grow_nodes_to(cgprop_graph *g, uint64_t need)
{
    if (need <= g->ncap) return CGPROP_OK;
    if (g->ncap >= UINT32_MAX - 1) return CGPROP_EOVERFLOW;
    /* Doubling for one at a time; a larger jump (a bulk addition that
     * knows its size) gets exactly what it asks for, no slack. */
    uint64_t want = g->ncap ? (uint64_t)g->ncap * 2 : 64;
    if (want < need) want = need;
    if (want > UINT32_MAX - 1) want = UINT32_MAX - 1;
    size_t n = (size_t)want, K = g->K;
    GROW(key_ptr, n);
    GROW(key_len, n);
    GROW(self, n * K);
    GROW(self_n, n * K);
    GROW(self_r, n * K);
    GROW(spont_cnt, n);
    GROW(spont_cost, n * K);
    GROW(calls_in, n);
    GROW(nflags, n);
    g->ncap = (uint32_t)n;
    return CGPROP_OK;
}

static int grow_nodes(cgprop_graph *g) { return grow_nodes_to(g, (uint64_t)g->nn + 1); }

/* Rehashing inserts in id order (the rollback relies on it: the
 * older ids never sit past a newer one on their probe path), but the slot
 * each id lands on is random: on a table larger than the caches every
 * insertion is a miss. The hash of the id PF ahead is computed and its
 * slot prefetched, so that many misses are in flight at once. */
#define PF CGPROP__AHEAD_REHASH

static inline uint64_t node_slot(uint32_t id, uint64_t h) { return (h & 0xFFFFFFFF00000000ull) | (id + 1u); }

static uint64_t node_hash(const cgprop_graph *g, uint32_t id)
{
    return cgprop__hash_bytes(g->key_ptr[id], g->key_len[id]);
}

/* New capacity of a table that must grow, or 0 when it cannot. Capacity
 * stays a power of two that fits in 32 bits; past 2^31 slots the table
 * fills beyond half rather than grow. */
static uint32_t table_next_cap(uint32_t cap) { return cap >= 0x80000000u ? 0 : cap ? cap * 2 : 128; }

/* The smallest capacity, at least the next one after cap, that keeps
 * `count` entries at most half the table (or the largest there is); 0 when
 * there is none. Sizing a table once for many entries spares the chain of
 * doublings before it (each a fresh table, zeroed and faulted in, dropped). */
static uint32_t table_cap_for(uint32_t cap, uint64_t count)
{
    uint32_t ncap = table_next_cap(cap);
    while (ncap && (uint64_t)ncap < count * 2 && table_next_cap(ncap)) ncap = table_next_cap(ncap);
    return ncap;
}

/* Rehash the key index into a table of ncap slots (a power of two above
 * the current capacity). Atomic: the old table stays until the new one is
 * complete. */
static int rehash_nodes(cgprop_graph *g, uint32_t ncap)
{
    uint32_t count = g->nn;
    uint64_t *t = cgprop__calloc(g, ncap, sizeof *t);
    if (!t) return CGPROP_ENOMEM;
    uint64_t mask = ncap - 1, ring[PF];
    for (uint32_t id = 0; id < count && id < PF; id++) {
        ring[id] = node_hash(g, id);
        CGPROP__PREFETCH_W(&t[ring[id] & mask]);
    }
    for (uint32_t id = 0; id < count; id++) {
        uint64_t h = ring[id % PF];
        if (id + PF < count) {
            uint64_t hn = node_hash(g, id + PF);
            ring[id % PF] = hn;
            CGPROP__PREFETCH_W(&t[hn & mask]);
        }
        uint64_t i = h & mask;
        while (t[i]) i = (i + 1) & mask;
        t[i] = node_slot(id, h);
    }
    cgprop__free(g, g->nhash);
    g->nhash = t;
    g->nhash_cap = ncap;
    return CGPROP_OK;
}

/* Rehash the key index into a table twice the size (or the first table). */
static int grow_node_table(cgprop_graph *g)
{
    uint32_t ncap = table_next_cap(g->nhash_cap);
    if (!ncap) return g->nn + 1u < g->nhash_cap ? CGPROP_OK : CGPROP_EOVERFLOW;
    return rehash_nodes(g, ncap);
}

/* The same for the call index. */
static int rehash_edges(cgprop_graph *g, uint32_t ncap)
{
    uint32_t count = g->ne;
    uint32_t *t = cgprop__calloc(g, ncap, sizeof *t);
    if (!t) return CGPROP_ENOMEM;
    uint64_t mask = ncap - 1, ring[PF];
    for (uint32_t id = 0; id < count && id < PF; id++) {
        ring[id] = cgprop__hash_pair(g->ecaller[id], g->ecallee[id]);
        CGPROP__PREFETCH_W(&t[ring[id] & mask]);
    }
    for (uint32_t id = 0; id < count; id++) {
        uint64_t h = ring[id % PF];
        if (id + PF < count) {
            uint64_t hn = cgprop__hash_pair(g->ecaller[id + PF], g->ecallee[id + PF]);
            ring[id % PF] = hn;
            CGPROP__PREFETCH_W(&t[hn & mask]);
        }
        uint64_t i = h & mask;
        while (t[i]) i = (i + 1) & mask;
        t[i] = id + 1;
    }
    cgprop__free(g, g->ehash);
    g->ehash = t;
    g->ehash_cap = ncap;
    g->npend = 0; /* every call is in the new table */
    g->eunidx = 0;
    return CGPROP_OK;
}

static int grow_edge_table(cgprop_graph *g)
{
    uint32_t ncap = table_next_cap(g->ehash_cap);
    if (!ncap) return g->ne + 1u < g->ehash_cap ? CGPROP_OK : CGPROP_EOVERFLOW;
    return rehash_edges(g, ncap);
}

int cgprop__reserve_nodes(cgprop_graph *g, uint32_t n)
{
    uint64_t need = (uint64_t)g->nn + n;
    if (need > UINT32_MAX - 1) return CGPROP_OK; /* adding will say what is wrong */
    int rc = grow_nodes_to(g, need);
    if (!rc && need * 2 > g->nhash_cap) {
        uint32_t ncap = table_cap_for(g->nhash_cap, need);
        if (ncap) rc = rehash_nodes(g, ncap);
    }
    return rc;
}

static int node_lookup(const cgprop_graph *g, const char *key, size_t len, uint64_t h, uint32_t *out)
{
    if (!g->nhash_cap) return 0;
    uint64_t mask = g->nhash_cap - 1;
    uint32_t fp = (uint32_t)(h >> 32);
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint64_t v = g->nhash[i];
        if (!v) return 0;
        if ((uint32_t)(v >> 32) != fp) continue;
        uint32_t id = (uint32_t)v - 1;
        if (g->key_len[id] == len && memcmp(g->key_ptr[id], key, len) == 0) {
            *out = id;
            return 1;
        }
    }
}

/* Room for n key bytes. Keys are never moved once stored, so the pointers
 * cgprop_graph_node_key() hands out stay valid until the graph is freed;
 * a key larger than the usual block gets a block of its own. */
static char *key_space(cgprop_graph *g, size_t n)
{
    if (g->nkblocks && g->kblock_size - g->kblock_used >= n) {
        char *p = g->kblocks[g->nkblocks - 1] + g->kblock_used;
        g->kblock_used += n;
        return p;
    }
    if (g->nkblocks == g->kblocks_cap) {
        size_t cap = g->kblocks_cap ? g->kblocks_cap * 2 : 16;
        char **b = cgprop__realloc(g, g->kblocks, cap, sizeof *b);
        if (!b) return NULL;
        g->kblocks = b;
        g->kblocks_cap = cap;
    }
    size_t size = g->kblock_size ? g->kblock_size : 4096;
    if (size < (size_t)1 << 20) size *= 2;
    if (size < n) size = n;
    char *blk = cgprop__alloc(g, size, 1);
    if (!blk) return NULL;
    g->kblocks[g->nkblocks++] = blk;
    g->kblock_size = size;
    g->kblock_used = n;
    return blk;
}

int cgprop_graph_add_node(cgprop_graph *g, const char *key, size_t len, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (!out || (!key && len)) return cgprop__err(g, CGPROP_EINVAL, "add_node: NULL argument");
    if (len > UINT32_MAX - 1)
        return cgprop__err(g, CGPROP_EINVAL, "add_node: key of %zu bytes is longer than 4 GiB", len);
    if (!key) key = "";
    uint64_t h = cgprop__hash_bytes(key, len);
    if (node_lookup(g, key, len, h, out)) return cgprop__ok(g);
    if (g->nn >= UINT32_MAX - 1) return cgprop__err(g, CGPROP_EOVERFLOW, "add_node: too many functions");

    int rc = grow_nodes(g);
    if (rc) return cgprop__err(g, rc, "add_node: out of memory growing the function table");
    /* Keep the table at most half full so probes stay short. */
    if ((uint64_t)(g->nn + 1) * 2 > g->nhash_cap) {
        rc = grow_node_table(g);
        if (rc) return cgprop__err(g, rc, "add_node: out of memory growing the key index");
    }
    char *copy = key_space(g, len + 1);
    if (!copy) return cgprop__err(g, CGPROP_ENOMEM, "add_node: out of memory storing the key");

    uint32_t id = g->nn;
    memcpy(copy, key, len);
    copy[len] = '\0';
    g->key_ptr[id] = copy;
    g->key_len[id] = (uint32_t)len;
    size_t K = g->K;
    memset(g->self + id * K, 0, K * sizeof *g->self);
    memset(g->self_n + id * K, 0, K * sizeof *g->self_n);
    memset(g->self_r + id * K, 0, K * sizeof *g->self_r);
    memset(g->spont_cost + id * K, 0, K * sizeof *g->spont_cost);
    g->spont_cnt[id] = 0;
    g->calls_in[id] = 0;
    g->nflags[id] = 0;
    uint64_t mask = g->nhash_cap - 1;
    uint64_t i = h & mask;
    while (g->nhash[i]) i = (i + 1) & mask;
    g->nhash[i] = node_slot(id, h);
    g->nn++;
    cgprop__mutated(g);
    *out = id;
    return cgprop__ok(g);
}

int cgprop_graph_find_node(cgprop_graph *g, const char *key, size_t len, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (!out || (!key && len)) return cgprop__err(g, CGPROP_EINVAL, "find_node: NULL argument");
    if (!key) key = "";
    if (len <= UINT32_MAX && node_lookup(g, key, len, cgprop__hash_bytes(key, len), out)) return cgprop__ok(g);
    return cgprop__err(g, CGPROP_ENOTFOUND, "no function with key '%.*s'", (int)(len > 200 ? 200 : len), key);
}

const char *cgprop_graph_node_key(const cgprop_graph *g, uint32_t node, size_t *len_out)
{
    if (len_out) *len_out = 0;
    if (!g || node >= g->nn) return NULL;
    if (len_out) *len_out = g->key_len[node];
    return g->key_ptr[node];
}

size_t cgprop_graph_node_count(const cgprop_graph *g) { return g ? g->nn : 0; }
size_t cgprop_graph_edge_count(const cgprop_graph *g) { return g ? g->ne : 0; }
uint64_t cgprop_graph_generation(const cgprop_graph *g) { return g ? g->gen : 0; }
uint64_t cgprop_graph_clamp_count(const cgprop_graph *g) { return g ? g->clamps : 0; }
uint64_t cgprop_graph_floor_count(const cgprop_graph *g) { return g ? g->floors : 0; }

static int check_node(cgprop_graph *g, uint32_t node, const char *what)
{
    if (node >= g->nn)
        return cgprop__err(g, CGPROP_EINVAL, "%s: function id %u out of range (%u functions)", what, node, g->nn);
    return CGPROP_OK;
}

int cgprop_graph_add_self(cgprop_graph *g, uint32_t node, const uint64_t *costs)
{
    if (!g) return CGPROP_EINVAL;
    if (!costs) return cgprop__err(g, CGPROP_EINVAL, "add_self: costs is NULL");
    int rc = check_node(g, node, "add_self");
    if (rc) return rc;
    uint64_t *s = g->self + (size_t)node * g->K;
    if (!cgprop__fits_self(g, node, costs))
        return cgprop__err(g, CGPROP_EOVERFLOW, "add_self: self cost of function %u would overflow", node);
    cgprop__add(s, costs, g->K);
    for (uint32_t k = 0; k < g->K; k++)
        if (costs[k]) g->nflags[node] |= CGPROP__NF_SELF_UNCLASSIFIED;
    cgprop__mutated(g);
    return cgprop__ok(g);
}

static bool valid_level(uint32_t level) { return level <= CGPROP_LEVEL_REC; }

int cgprop_graph_add_self_class(cgprop_graph *g, uint32_t node, uint32_t level, const uint64_t *costs)
{
    if (!g) return CGPROP_EINVAL;
    if (!costs) return cgprop__err(g, CGPROP_EINVAL, "add_self_class: costs is NULL");
    if (!valid_level(level)) return cgprop__err(g, CGPROP_EINVAL, "add_self_class: bad level %u", level);
    int rc = check_node(g, node, "add_self_class");
    if (rc) return rc;
    uint64_t *s = g->self + (size_t)node * g->K;
    /* S = S_n + S_r + unclassified, so a sum that fits in S fits in either part. */
    if (!cgprop__fits_self(g, node, costs))
        return cgprop__err(g, CGPROP_EOVERFLOW, "add_self_class: self cost of function %u would overflow",
                           node);
    uint64_t *part = (level == CGPROP_LEVEL_0 ? g->self_n : g->self_r) + (size_t)node * g->K, *deep = NULL;
    bool nonzero = false;
    for (uint32_t k = 0; k < g->K; k++) nonzero = nonzero || costs[k];
    /* Level >= 2 self cost is also kept apart (g->dself), which needs memory
     * first; S_r holds it either way. */
    if (level == CGPROP_LEVEL_DEEP && nonzero && (rc = cgprop__sparse_make(g, &g->dself, node, g->K, &deep)))
        return cgprop__err(g, rc, "add_self_class: out of memory");
    cgprop__add(s, costs, g->K);
    cgprop__add(part, costs, g->K);
    if (deep) cgprop__add(deep, costs, g->K);
    g->has_classes = true;
    cgprop__mutated(g);
    return cgprop__ok(g);
}

int cgprop_graph_add_spontaneous(cgprop_graph *g, uint32_t node, uint64_t count, const uint64_t *costs)
{
    if (!g) return CGPROP_EINVAL;
    if (!costs) return cgprop__err(g, CGPROP_EINVAL, "add_spontaneous: costs is NULL");
    int rc = check_node(g, node, "add_spontaneous");
    if (rc) return rc;
    uint64_t *s = g->spont_cost + (size_t)node * g->K;
    if (!cgprop__fits_spont(g, node, count, costs))
        return cgprop__err(g, CGPROP_EOVERFLOW, "add_spontaneous: function %u would overflow", node);
    g->spont_cnt[node] += count;
    cgprop__add(s, costs, g->K);
    g->nflags[node] |= CGPROP__NF_SPONT;
    cgprop__mutated(g);
    return cgprop__ok(g);
}

/* ---- stated inclusive costs ---- */

int cgprop__stated_reserve(cgprop_graph *g)
{
    if (g->stated_cap >= g->nn) return CGPROP_OK;
    uint64_t *p = cgprop__realloc(g, g->stated, (size_t)g->ncap * g->K, sizeof *p);
    if (!p) return CGPROP_ENOMEM;
    g->stated = p;
    g->stated_cap = g->ncap;
    return CGPROP_OK;
}

int cgprop__graph_state_total(cgprop_graph *g, uint32_t node, const uint64_t *costs)
{
    if (!g) return CGPROP_EINVAL;
    if (!costs) return cgprop__err(g, CGPROP_EINVAL, "state_total: costs is NULL");
    int rc = check_node(g, node, "state_total");
    if (rc) return rc;
    if (cgprop__stated_reserve(g)) return cgprop__err(g, CGPROP_ENOMEM, "state_total: out of memory");
    if (!cgprop__fits_stated(g, node, costs))
        return cgprop__err(g, CGPROP_EOVERFLOW, "state_total: inclusive cost of function %u would overflow", node);
    uint64_t *s = g->stated + (size_t)node * g->K;
    /* A row is meaningful only under the flag: start it from zero. */
    if (!(g->nflags[node] & CGPROP__NF_STATED)) memset(s, 0, g->K * sizeof *s);
    cgprop__add(s, costs, g->K);
    g->nflags[node] |= CGPROP__NF_STATED;
    cgprop__mutated(g);
    return cgprop__ok(g);
}

/* ---- calls ---- */

/* Fibonacci hashing: the top bits of the product index the run table. */
static inline uint32_t run_slot(uint32_t callee)
{
    return (uint32_t)((callee * 0x9E3779B1u) >> (32 - CGPROP__RUN_BITS));
}

/* The run's call to callee, or UINT32_MAX: then there is none at all. */
static uint32_t run_find(const cgprop_graph *g, uint32_t callee)
{
    for (uint32_t i = run_slot(callee);; i = (i + 1) & (CGPROP__RUN_CAP - 1)) {
        uint32_t v = g->run_tab[i];
        if (!v) return UINT32_MAX;
        if (g->ecallee[v - 1] == callee) return v - 1;
    }
}

/* Call caller->callee or UINT32_MAX; h is its hash. The run's caller is
 * looked up in the run table, which holds all its calls (the held-back ones
 * among them); any other caller in the index. */
static uint32_t edge_probe(const cgprop_graph *g, uint32_t caller, uint32_t callee, uint64_t h)
{
    if (g->run_on && g->run_caller == caller) return run_find(g, callee);
    if (!g->ehash_cap) return UINT32_MAX;
    uint64_t mask = g->ehash_cap - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        uint32_t v = g->ehash[i];
        if (!v) return UINT32_MAX;
        if (g->ecaller[v - 1] == caller && g->ecallee[v - 1] == callee) return v - 1;
    }
}

/* Put the last eunidx calls into the call index, growing it first when it
 * would be more than half full; their slots are fetched PF calls ahead.
 * ENOMEM leaves the index as it was. */
static int edge_index_sync(cgprop_graph *g)
{
    uint32_t ne = g->ne, e0 = ne - g->eunidx;
    if (e0 == ne) return CGPROP_OK;
    if ((uint64_t)ne * 2 > g->ehash_cap) {
        uint32_t ncap = table_cap_for(g->ehash_cap, ne);
        if (ncap) return rehash_edges(g, ncap); /* all calls, the tail among them */
        if (ne >= g->ehash_cap) return CGPROP_EOVERFLOW;
    }
    uint64_t mask = g->ehash_cap - 1;
    for (uint32_t e = e0; e < ne; e++) {
        if (e + PF < ne) CGPROP__PREFETCH_W(&g->ehash[cgprop__hash_pair(g->ecaller[e + PF], g->ecallee[e + PF]) & mask]);
        uint64_t i = cgprop__hash_pair(g->ecaller[e], g->ecallee[e]) & mask;
        while (g->ehash[i]) i = (i + 1) & mask;
        g->ehash[i] = e + 1;
    }
    g->eunidx = 0;
    return CGPROP_OK;
}

/* Call caller->callee or UINT32_MAX; h is its hash. Calls left out of the
 * index by a bulk addition are put in first: the index is a cache, like
 * the adjacency index that read calls build (the graph is never defined
 * const; one graph is used by one thread at a time). Without the memory
 * for it the look-up still answers, by a pass over those calls. */
static uint32_t edge_lookup_h(const cgprop_graph *g, uint32_t caller, uint32_t callee, uint64_t h)
{
    if (g->eunidx && edge_index_sync((cgprop_graph *)g) != CGPROP_OK) {
        uint32_t e = edge_probe(g, caller, callee, h);
        for (uint32_t t = g->ne - g->eunidx; e == UINT32_MAX && t < g->ne; t++)
            if (g->ecaller[t] == caller && g->ecallee[t] == callee) e = t;
        return e;
    }
    return edge_probe(g, caller, callee, h);
}

/* Write the held-back calls into the index: their slots are fetched
 * together first. */
static void flush_pending(cgprop_graph *g)
{
    uint32_t n = g->npend, e0 = g->pend0;
    uint64_t mask = g->ehash_cap - 1, hs[CGPROP__PEND];
    for (uint32_t j = 0; j < n; j++) {
        hs[j] = cgprop__hash_pair(g->ecaller[e0 + j], g->ecallee[e0 + j]);
        CGPROP__PREFETCH_W(&g->ehash[hs[j] & mask]);
    }
    /* In id order, as the undo needs (see rollback_edges). */
    for (uint32_t j = 0; j < n; j++) {
        uint64_t i = hs[j] & mask;
        while (g->ehash[i]) i = (i + 1) & mask;
        g->ehash[i] = e0 + j + 1;
    }
    g->npend = 0;
}

/* End the run: its held-back calls go to the index, and run_tab is
 * emptied, latest call first so no probe path is cut short. */
static void run_end(cgprop_graph *g)
{
    if (!g->run_on) return;
    flush_pending(g);
    for (uint32_t e = g->run_e0 + g->run_n; e-- > g->run_e0;) {
        uint32_t i = run_slot(g->ecallee[e]);
        for (uint32_t n = 0; n < CGPROP__RUN_CAP && g->run_tab[i] != e + 1; n++) i = (i + 1) & (CGPROP__RUN_CAP - 1);
        if (g->run_tab[i] == e + 1) g->run_tab[i] = 0;
    }
    g->run_on = false;
}

uint32_t cgprop__edge_lookup_any(const cgprop_graph *g, uint32_t caller, uint32_t callee)
{
    return edge_lookup_h(g, caller, callee, cgprop__hash_pair(caller, callee));
}

/* Grow the per-call arrays to hold at least `need` calls (doubling). */
static int grow_edges_to(cgprop_graph *g, uint64_t need)
{
    if (need <= g->ecap) return CGPROP_OK;
    if (g->ecap >= UINT32_MAX - 1) return CGPROP_EOVERFLOW;
    uint64_t want = g->ecap ? (uint64_t)g->ecap * 2 : 64;
    if (want < need) want = need; /* as grow_nodes_to */
    if (want > UINT32_MAX - 1) want = UINT32_MAX - 1;
    size_t n = (size_t)want, K = g->K;
    GROW(ecaller, n);
    GROW(ecallee, n);
    GROW(ecount, n);
    GROW(ecost, n * K);
    GROW(eflags, n);
    GROW(ecls_ref, n);
    g->ecap = (uint32_t)n;
    return CGPROP_OK;
}

static int grow_edges(cgprop_graph *g) { return grow_edges_to(g, (uint64_t)g->ne + 1); }

int cgprop__reserve_edge_arrays(cgprop_graph *g, uint32_t n)
{
    uint64_t need = (uint64_t)g->ne + n;
    if (need > UINT32_MAX - 1) return CGPROP_OK; /* adding will say what is wrong */
    return grow_edges_to(g, need);
}

int cgprop__reserve_edges(cgprop_graph *g, uint32_t n)
{
    int rc = cgprop__reserve_edge_arrays(g, n);
    uint64_t need = (uint64_t)g->ne + n;
    if (rc || need > UINT32_MAX - 1 || need * 2 <= g->ehash_cap) return rc;
    uint32_t ncap = table_cap_for(g->ehash_cap, need);
    return ncap ? rehash_edges(g, ncap) : CGPROP_OK;
}

const uint64_t cgprop__zeros[CGPROP_MAX_METRICS];

static bool edge_empty(const cgprop_graph *g, uint32_t e)
{
    if (g->ecount[e]) return false;
    const uint64_t *c = g->ecost + (size_t)e * g->K;
    for (uint32_t k = 0; k < g->K; k++)
        if (c[k]) return false;
    return true;
}

/* Store call e's buckets in a block of their own, with what the compact
 * form implied. Blocks of calls that a rollback drops stay unused. */
static int materialize(cgprop_graph *g, uint32_t e)
{
    size_t K = g->K;
    if (g->ecls_nblk == g->ecls_blkcap) {
        if (g->ecls_blkcap >= UINT32_MAX / 2 - CGPROP__ECLS_BLK) return CGPROP_ENOMEM;
        uint32_t cap = g->ecls_blkcap ? g->ecls_blkcap * 2 : 64;
        uint64_t *b = cgprop__realloc(g, g->ecls, (size_t)cap * CGPROP__NCLS, K * sizeof *b);
        if (!b) return CGPROP_ENOMEM;
        g->ecls = b;
        uint64_t *n = cgprop__realloc(g, g->ecls_cnt, (size_t)cap * CGPROP__NCLS, sizeof *n);
        if (!n) return CGPROP_ENOMEM;
        g->ecls_cnt = n;
        g->ecls_blkcap = cap;
    }
    uint32_t blk = g->ecls_nblk++, r = g->ecls_ref[e];
    uint64_t *b = g->ecls + (size_t)blk * CGPROP__NCLS * K, *n = g->ecls_cnt + (size_t)blk * CGPROP__NCLS;
    memset(b, 0, CGPROP__NCLS * K * sizeof *b);
    memset(n, 0, CGPROP__NCLS * sizeof *n);
    if (r) {
        memcpy(b + (size_t)(r - 1) * K, g->ecost + (size_t)e * K, K * sizeof *b);
        n[r - 1] = g->ecount[e];
    }
    g->ecls_ref[e] = CGPROP__ECLS_BLK + blk;
    return CGPROP_OK;
}

int cgprop__sparse_make(const cgprop_graph *g, cgprop__sparse *m, uint32_t id, size_t width, uint64_t **out)
{
    uint64_t *v = cgprop__sparse_get(m, id, width);
    if (v) {
        *out = v;
        return CGPROP_OK;
    }
    if (m->n == m->rcap) {
        if (m->rcap >= UINT32_MAX / 4) return CGPROP_ENOMEM;
        uint32_t cap = m->rcap ? m->rcap * 2 : 16;
        uint32_t *key = cgprop__realloc(g, m->key, cap, sizeof *key);
        if (!key) return CGPROP_ENOMEM;
        m->key = key;
        uint64_t *val = cgprop__realloc(g, m->val, (size_t)cap * width, sizeof *val);
        if (!val) return CGPROP_ENOMEM;
        m->val = val;
        m->rcap = cap;
    }
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 32;
        uint32_t *slot = cgprop__calloc(g, cap, sizeof *slot);
        if (!slot) return CGPROP_ENOMEM;
        for (uint32_t r = 0; r < m->n; r++) {
            uint32_t i = (uint32_t)(((uint64_t)m->key[r] * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
            while (slot[i]) i = (i + 1) & (cap - 1);
            slot[i] = r + 1;
        }
        cgprop__free(g, m->slot);
        m->slot = slot;
        m->cap = cap;
    }
    uint32_t i = (uint32_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
    while (m->slot[i]) i = (i + 1) & (m->cap - 1);
    m->key[m->n] = id;
    v = m->val + (size_t)m->n * width;
    memset(v, 0, width * sizeof *v);
    m->slot[i] = ++m->n;
    *out = v;
    return CGPROP_OK;
}

/* Zero the rows of ids >= id0 (dropped functions or calls; the ids will be
 * given out again). */
static void sparse_drop_from(cgprop__sparse *m, uint32_t id0, size_t width)
{
    for (uint32_t r = 0; r < m->n; r++)
        if (m->key[r] >= id0) memset(m->val + (size_t)r * width, 0, width * sizeof *m->val);
}

static void sparse_free(const cgprop_graph *g, cgprop__sparse *m)
{
    cgprop__free(g, m->slot);
    cgprop__free(g, m->key);
    cgprop__free(g, m->val);
}

int cgprop__ecls_prepare(cgprop_graph *g, uint32_t e, int c, bool nonzero)
{
    if (!nonzero) return CGPROP_OK;
    if (c >= (int)CGPROP__NCLS) {
        uint64_t *d;
        int rc = cgprop__sparse_make(g, &g->dcall, e, cgprop__dcall_width(g), &d);
        if (rc) return rc;
        c -= 4;
    }
    uint32_t r = g->ecls_ref[e];
    if (r >= CGPROP__ECLS_BLK) return CGPROP_OK;
    if (c < 0) return r ? materialize(g, e) : CGPROP_OK;
    if (r == (uint32_t)c + 1) return CGPROP_OK;
    if (!r && edge_empty(g, e)) {
        g->ecls_ref[e] = (uint32_t)c + 1;
        return CGPROP_OK;
    }
    return materialize(g, e);
}


/* Add call caller->callee, known to be absent; h is its hash. */
static int edge_insert(cgprop_graph *g, uint32_t caller, uint32_t callee, uint64_t h, uint32_t *out)
{
    if (g->ne >= UINT32_MAX - 1) return CGPROP_EOVERFLOW;
    int rc = edge_index_sync(g);
    if (rc) return rc;
    rc = grow_edges(g);
    if (rc) return rc;
    if ((uint64_t)(g->ne + 1) * 2 > g->ehash_cap) {
        rc = grow_edge_table(g);
        if (rc) return rc;
    }
    /* Nothing can fail past this point. */
    uint32_t e = g->ne;
    if (g->run_on && (caller != g->run_caller || g->run_n >= CGPROP__RUN_MAX)) run_end(g);
    if (!g->run_on && !(g->nflags[caller] & CGPROP__NF_HAS_CALLEE)) {
        g->run_on = true;
        g->run_caller = caller;
        g->run_e0 = e;
        g->run_n = 0;
    }
    size_t K = g->K;
    g->ecaller[e] = caller;
    g->ecallee[e] = callee;
    g->ecount[e] = 0;
    memset(g->ecost + (size_t)e * K, 0, K * sizeof *g->ecost);
    g->eflags[e] = 0;
    g->ecls_ref[e] = 0;
    if (g->run_on) {
        uint32_t i = run_slot(callee);
        while (g->run_tab[i]) i = (i + 1) & (CGPROP__RUN_CAP - 1);
        g->run_tab[i] = e + 1;
        g->run_n++;
        /* Its index slot is written later, with others' (no probe fetched it). */
        if (g->npend == CGPROP__PEND) flush_pending(g);
        if (!g->npend) g->pend0 = e;
        g->npend++;
    } else {
        /* The look-up that found it absent has just read this slot. */
        uint64_t mask = g->ehash_cap - 1, i = h & mask;
        while (g->ehash[i]) i = (i + 1) & mask;
        g->ehash[i] = e + 1;
    }
    g->ne++;
    g->nflags[caller] |= CGPROP__NF_HAS_CALLEE;
    g->nflags[callee] |= caller == callee ? CGPROP__NF_SELF_CALL : CGPROP__NF_HAS_CALLER;
    /* A new edge changes the shape even if no cost follows. */
    cgprop__mutated(g);
    *out = e;
    return CGPROP_OK;
}

int cgprop__edge_add_absent(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out)
{
    return edge_insert(g, caller, callee, cgprop__hash_pair(caller, callee), out);
}

int cgprop__edge_get_or_add_any(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out)
{
    uint64_t h = cgprop__hash_pair(caller, callee);
    uint32_t e = edge_lookup_h(g, caller, callee, h);
    if (e != UINT32_MAX) {
        *out = e;
        return CGPROP_OK;
    }
    return edge_insert(g, caller, callee, h, out);
}

static int edge_common(cgprop_graph *g, const char *what, uint32_t caller, uint32_t callee, uint64_t count,
                       const uint64_t *costs, int cls, uint32_t *out)
{
    int rc = check_node(g, caller, what);
    if (rc) return rc;
    rc = check_node(g, callee, what);
    if (rc) return rc;
    /* On a graph larger than the caches the index slot, the callee's
     * calls_in and its flags are three misses; asking for all of them
     * before the probe needs the first lets them overlap. */
    uint64_t h = cgprop__hash_pair(caller, callee);
    bool in_run = g->run_on && g->run_caller == caller;
    if (g->ehash_cap && !in_run) CGPROP__PREFETCH(&g->ehash[h & (g->ehash_cap - 1)]);
    CGPROP__PREFETCH_W(&g->calls_in[callee]);
    CGPROP__PREFETCH_W(&g->nflags[callee]);
    uint32_t e = in_run ? run_find(g, callee) : edge_lookup_h(g, caller, callee, h);
    size_t K = g->K;
    /* Overflow first, so a refused addition leaves no trace. The class
     * buckets never exceed the plain sums, so checking those suffices. */
    if (e != UINT32_MAX && !cgprop__fits_call(g, e, count, costs))
        return cgprop__err(g, CGPROP_EOVERFLOW, "%s: call %u -> %u would overflow", what, caller, callee);
    if (!cgprop__fits_calls_in(g, callee, count))
        return cgprop__err(g, CGPROP_EOVERFLOW, "%s: calls into function %u would overflow", what, callee);
    bool nonzero = count != 0;
    for (size_t k = 0; costs && k < K && !nonzero; k++) nonzero = costs[k] != 0;
    /* A new call is empty, so preparing it needs no memory but its level
     * >= 2 part, made first under the id it will get (a row of zeros is
     * invisible): either way nothing is changed before the last step that
     * can fail. */
    if (e != UINT32_MAX) {
        rc = cgprop__ecls_prepare(g, e, cls, nonzero);
        if (rc) return cgprop__err(g, rc, "%s: out of memory", what);
    } else {
        uint64_t *d;
        if (cls >= (int)CGPROP__NCLS && nonzero &&
            (rc = cgprop__sparse_make(g, &g->dcall, g->ne, cgprop__dcall_width(g), &d)))
            return cgprop__err(g, rc, "%s: out of memory", what);
        rc = edge_insert(g, caller, callee, h, &e);
        if (rc) return cgprop__err(g, rc, "%s: %s adding call %u -> %u", what,
                                   rc == CGPROP_ENOMEM ? "out of memory" : "too many calls", caller, callee);
        (void)cgprop__ecls_prepare(g, e, cls, nonzero);
    }
    g->ecount[e] += count;
    g->calls_in[callee] += count;
    if (costs) {
        cgprop__add(g->ecost + (size_t)e * K, costs, g->K);
        g->eflags[e] |= CGPROP__EF_HAS_COST;
        g->any_cost = true;
        if (cls < 0) {
            for (size_t k = 0; k < K; k++)
                if (costs[k]) g->eflags[e] |= CGPROP__EF_UNCLASSIFIED;
        }
    }
    if (cls >= 0) {
        cgprop__ecls_addsub(g, e, (uint32_t)cls, costs, count, 1);
        if ((cls & 3) == CGPROP_LEVEL_REC) g->eflags[e] |= CGPROP__EF_LUMPED;
        g->has_classes = true;
    }
    cgprop__mutated(g);
    if (out) *out = e;
    return cgprop__ok(g);
}

int cgprop_graph_add_edge(cgprop_graph *g, uint32_t caller, uint32_t callee, uint64_t count,
                          const uint64_t *costs, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    return edge_common(g, "add_edge", caller, callee, count, costs, -1, out);
}

int cgprop_graph_add_edge_class(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t caller_level,
                                uint32_t callee_level, uint64_t count, const uint64_t *costs, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (!costs) return cgprop__err(g, CGPROP_EINVAL, "add_edge_class: costs is NULL");
    if (!valid_level(caller_level) || !valid_level(callee_level))
        return cgprop__err(g, CGPROP_EINVAL, "add_edge_class: bad level (caller %u, callee %u)", caller_level,
                           callee_level);
    /* Level >= 2 callers are kept apart only where the input knows them. */
    uint32_t caller_class = caller_level == CGPROP_LEVEL_0 ? 0u : caller_level == CGPROP_LEVEL_DEEP ? 2u : 1u;
    int cls = (int)cgprop__cls(caller_class, callee_level);
    return edge_common(g, "add_edge_class", caller, callee, count, costs, cls, out);
}

/* Take back calls 0 .. i - 1 of a batch that failed at call i (see
 * cgprop__add_edges): their sums are subtracted (none overflowed), the
 * flags of calls older than the batch restored from fl0, then the
 * transaction rolled back. Changes of representation (class blocks, run
 * table) stay: they are invisible. */
static void add_edges_undo(cgprop_graph *g, const cgprop__txn *t, uint32_t i, const uint32_t *caller,
                           const uint32_t *callee, const uint64_t *count, const uint64_t *costs,
                           const uint8_t *cls, const uint32_t *fl0)
{
    size_t K = g->K;
    uint32_t ne0 = t->ne0;
    while (i-- > 0) {
        uint32_t e = cgprop__edge_lookup(g, caller[i], callee[i]);
        g->ecount[e] -= count[i];
        g->calls_in[callee[i]] -= count[i];
        const uint64_t *cs = costs ? costs + (size_t)i * K : NULL;
        for (size_t k = 0; cs && k < K; k++) g->ecost[(size_t)e * K + k] -= cs[k];
        if (cls && cls[i] != CGPROP__NOCLS) cgprop__ecls_addsub(g, e, cls[i], cs, count[i], -1);
        if (e < ne0) g->eflags[e] = fl0[i];
    }
    cgprop__txn_rollback(g, t);
}

/* How far ahead the batch fetches: the index slot and the callee's sums of
 * the call BA ahead, then (that slot in cache) the call in it, BB ahead. */
#define BA CGPROP__AHEAD_BATCH_SLOT
#define BB CGPROP__AHEAD_BATCH_CALL

/* Check a batch's ids and classes (EINVAL; nothing changed). */
static int add_edges_check(cgprop_graph *g, const char *what, uint32_t n, const uint32_t *caller,
                           const uint32_t *callee, const uint8_t *cls)
{
    uint32_t nn = g->nn;
    for (uint32_t i = 0; i < n; i++) {
        if (caller[i] >= nn || callee[i] >= nn)
            return cgprop__err(g, CGPROP_EINVAL, "%s: call %u: function id %u out of range (%u functions)", what,
                               i, caller[i] >= nn ? caller[i] : callee[i], nn);
        if (cls && cls[i] != CGPROP__NOCLS && cls[i] >= CGPROP__NCLS_IN)
            return cgprop__err(g, CGPROP_EINVAL, "%s: bad class %u", what, cls[i]);
    }
    return CGPROP_OK;
}

/* Add calls 0 .. n - 1 of a checked batch, room reserved, as edge_common
 * would one by one; the number added (n, or the call that failed, with *rc
 * and *why set). A call's input is read before anything is written, so the
 * input may be the graph's own arrays from id ne on (staged calls): a call
 * is only ever written at an id at most its own. fl0 (when the graph had
 * calls before, ne0 of them) records the flags of older calls as the batch
 * first changes them, for the undo. */
static uint32_t add_edges_run(cgprop_graph *g, uint32_t n, const uint32_t *caller, const uint32_t *callee,
                              const uint64_t *count, const uint64_t *costs, const uint8_t *cls, uint32_t ne0,
                              uint32_t *fl0, int *rc, const char **why, uint32_t *ids)
{
    size_t K = g->K;
    uint64_t ring[BA], cv[CGPROP_MAX_METRICS];
    uint32_t i;
    for (i = 0; i < n && i < BA; i++) ring[i] = cgprop__hash_pair(caller[i], callee[i]);
    for (i = 0; i < n; i++) {
        uint64_t emask = g->ehash_cap - 1, h = ring[i % BA];
        if (i + BA < n) {
            uint64_t hn = cgprop__hash_pair(caller[i + BA], callee[i + BA]);
            ring[(i + BA) % BA] = hn;
            if (g->ehash_cap) CGPROP__PREFETCH(&g->ehash[hn & emask]);
            CGPROP__PREFETCH_W(&g->calls_in[callee[i + BA]]);
            CGPROP__PREFETCH_W(&g->nflags[callee[i + BA]]);
        }
        if (i + BB < n && g->ehash_cap) {
            uint32_t v = g->ehash[ring[(i + BB) % BA] & emask];
            if (v) {
                CGPROP__PREFETCH(&g->ecaller[v - 1]);
                CGPROP__PREFETCH(&g->ecallee[v - 1]);
            }
        }
        uint32_t a = caller[i], b = callee[i];
        uint64_t cnt = count[i];
        const uint64_t *cs = NULL;
        if (costs) {
            for (size_t k = 0; k < K; k++) cv[k] = costs[(size_t)i * K + k];
            cs = cv;
        }
        int c = cls && cls[i] != CGPROP__NOCLS ? cls[i] : -1;
        uint32_t e = edge_lookup_h(g, a, b, h);
        /* Which sum would overflow, for the reader's message (the count or
         * the cost of this call, or the callee's calls). */
        int over = e == UINT32_MAX                        ? 0
                   : !cgprop__fits_call(g, e, cnt, NULL)  ? CGPROP__WHY_COUNT
                   : !cgprop__fits_call(g, e, 0, cs)      ? CGPROP__WHY_COST
                                                          : 0;
        if (!over && !cgprop__fits_calls_in(g, b, cnt)) over = CGPROP__WHY_CALLS_IN;
        if (over) {
            *rc = CGPROP_EOVERFLOW;
            *why = over == CGPROP__WHY_COUNT  ? "its count would overflow"
                   : over == CGPROP__WHY_COST ? "its cost would overflow"
                                              : "would overflow the callee's calls";
            g->batch_at = i;
            g->batch_why = over;
            return i;
        }
        bool nonzero = cnt != 0;
        for (size_t k = 0; cs && k < K && !nonzero; k++) nonzero = cs[k] != 0;
        int r;
        if (e != UINT32_MAX) {
            r = cgprop__ecls_prepare(g, e, c, nonzero);
            if (e < ne0) fl0[i] = g->eflags[e];
        } else {
            uint64_t *d;
            r = c >= (int)CGPROP__NCLS && nonzero ? cgprop__sparse_make(g, &g->dcall, g->ne, cgprop__dcall_width(g), &d)
                                                  : CGPROP_OK;
            if (!r) r = edge_insert(g, a, b, h, &e);
            if (!r) (void)cgprop__ecls_prepare(g, e, c, nonzero);
        }
        if (r) {
            *rc = r;
            *why = r == CGPROP_ENOMEM ? "out of memory" : "too many calls";
            return i;
        }
        g->ecount[e] += cnt;
        g->calls_in[b] += cnt;
        if (cs) {
            uint64_t *dst = g->ecost + (size_t)e * K;
            uint32_t f = CGPROP__EF_HAS_COST;
            for (size_t k = 0; k < K; k++) {
                dst[k] += cs[k];
                if (c < 0 && cs[k]) f |= CGPROP__EF_UNCLASSIFIED;
            }
            g->eflags[e] |= f;
            g->any_cost = true;
        }
        if (c >= 0) {
            cgprop__ecls_addsub(g, e, (uint32_t)c, cs, cnt, 1);
            if ((c & 3) == CGPROP_LEVEL_REC) g->eflags[e] |= CGPROP__EF_LUMPED;
            g->has_classes = true;
        }
        if (ids) ids[i] = e;
    }
    return n;
}

static int add_calls_core(cgprop_graph *g, const char *what, uint32_t n, const uint32_t *caller,
                          const uint32_t *callee, const uint64_t *count, const uint64_t *costs, uint32_t *ids);

int cgprop__add_edges(cgprop_graph *g, uint32_t n, const uint32_t *caller, const uint32_t *callee,
                      const uint64_t *count, const uint64_t *costs, const uint8_t *cls)
{
    if (!g) return CGPROP_EINVAL;
    if (n && (!caller || !callee || !count || (cls && !costs)))
        return cgprop__err(g, CGPROP_EINVAL, "add_edges: NULL argument");
    int rc = add_edges_check(g, "add_edges", n, caller, callee, cls);
    if (rc) return rc;
    if (n == 0) return cgprop__ok(g);
    if (!cls) return add_calls_core(g, "add_edges", n, caller, callee, count, costs, NULL);
    /* Everything that can fail before the first change: memory. */
    rc = cgprop__reserve_edges(g, n);
    if (rc) return cgprop__err(g, rc, "add_edges: %s", rc == CGPROP_ENOMEM ? "out of memory" : "too many calls");
    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    uint32_t *fl0 = NULL;
    if (t.ne0) {
        fl0 = cgprop__alloc(g, n, sizeof *fl0);
        if (!fl0) return cgprop__err(g, CGPROP_ENOMEM, "add_edges: out of memory");
    }
    const char *why = NULL;
    uint32_t i = add_edges_run(g, n, caller, callee, count, costs, cls, t.ne0, fl0, &rc, &why, NULL);
    if (rc) {
        add_edges_undo(g, &t, i, caller, callee, count, costs, cls, fl0);
        cgprop__free(g, fl0);
        return cgprop__err(g, rc, "add_edges: call %u -> %u: %s", caller[i], callee[i], why);
    }
    cgprop__free(g, fl0);
    cgprop__mutated(g);
    return cgprop__ok(g);
}

int cgprop__stage_edges(cgprop_graph *g, uint32_t n)
{
    uint64_t need = (uint64_t)g->ne + n;
    if (need > UINT32_MAX - 1) return CGPROP_EOVERFLOW;
    return grow_edges_to(g, need);
}

int cgprop__add_staged_edges(cgprop_graph *g, uint32_t n, const uint8_t *cls)
{
    uint32_t ne0 = g->ne;
    if ((uint64_t)ne0 + n > g->ecap) return cgprop__err(g, CGPROP_EINVAL, "add_edges: %u calls not staged", n);
    /* Nothing staged: the arrays may not exist yet (no offsets from NULL). */
    if (n == 0) return cgprop__ok(g);
    const uint32_t *caller = g->ecaller + ne0, *callee = g->ecallee + ne0;
    const uint64_t *count = g->ecount + ne0, *costs = g->ecost + (size_t)ne0 * g->K;
    int rc = add_edges_check(g, "add_edges", n, caller, callee, cls);
    if (rc) return rc;
    if (ne0) {
        /* Calls the batch adds to may be older than it: the undo needs the
         * input, which the batch writes over. Copied out, the general way. */
        uint32_t *ab = cgprop__alloc(g, (size_t)n * 2, sizeof *ab);
        uint64_t *cc = cgprop__alloc(g, (size_t)n * (g->K + 1), sizeof *cc);
        if (ab && cc) {
            memcpy(ab, caller, n * sizeof *ab);
            memcpy(ab + n, callee, n * sizeof *ab);
            memcpy(cc, count, n * sizeof *cc);
            memcpy(cc + n, costs, (size_t)n * g->K * sizeof *cc);
            rc = cgprop__add_edges(g, n, ab, ab + n, cc, cc + n, cls);
        } else {
            rc = cgprop__err(g, CGPROP_ENOMEM, "add_edges: out of memory");
        }
        cgprop__free(g, ab);
        cgprop__free(g, cc);
        return rc;
    }
    rc = cgprop__reserve_edges(g, n);
    if (rc) return cgprop__err(g, rc, "add_edges: %s", rc == CGPROP_ENOMEM ? "out of memory" : "too many calls");
    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    const char *why = NULL;
    uint32_t i = add_edges_run(g, n, caller, callee, count, costs, cls, 0, NULL, &rc, &why, NULL);
    if (rc) {
        /* Every call is new to the graph: what they added to their callees'
         * calls in is the only sum to take back. */
        uint32_t a = caller[i], b = callee[i];
        for (uint32_t e = 0; e < g->ne; e++) g->calls_in[g->ecallee[e]] -= g->ecount[e];
        cgprop__txn_rollback(g, &t);
        return cgprop__err(g, rc, "add_edges: call %u -> %u: %s", a, b, why);
    }
    cgprop__mutated(g);
    return cgprop__ok(g);
}

/* ---- bulk additions ---- */

/* Take calls e0 .. e1 - 1 out of the run table. Each is searched past
 * empty slots (others taken out before may have cut its probe path), so
 * any order will do. */
static void run_tab_drop(cgprop_graph *g, uint32_t e0, uint32_t e1)
{
    for (uint32_t e = e1; e-- > e0;) {
        uint32_t i = run_slot(g->ecallee[e]);
        while (g->run_tab[i] != e + 1) i = (i + 1) & (CGPROP__RUN_CAP - 1);
        g->run_tab[i] = 0;
    }
}

/* Where a batch has put each caller's calls (add_calls_core): the calls a
 * run of bulk_run made are ids e0 .. e1 - 1, and prev is the caller's run
 * before it (+ 1, 0: none). head[caller] is its last run + 1, 0 when it has
 * none, BULK_SLOW once its calls go through the index. */
typedef struct bulk_runs {
    uint32_t *e0, *e1, *prev;
    uint32_t n, cap;
    uint32_t *head;
} bulk_runs;
#define BULK_SLOW UINT32_MAX

static bool bulk_runs_push(cgprop_graph *g, bulk_runs *r, uint32_t a, uint32_t e0, uint32_t e1)
{
    if (r->n == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 256;
        uint32_t *p;
        if (!(p = cgprop__realloc(g, r->e0, cap, sizeof *p))) return false;
        r->e0 = p;
        if (!(p = cgprop__realloc(g, r->e1, cap, sizeof *p))) return false;
        r->e1 = p;
        if (!(p = cgprop__realloc(g, r->prev, cap, sizeof *p))) return false;
        r->prev = p;
        r->cap = cap;
    }
    r->e0[r->n] = e0;
    r->e1[r->n] = e1;
    r->prev[r->n] = r->head[a];
    r->head[a] = ++r->n;
    return true;
}

/* Put the calls of a's earlier runs in the run table; false (nothing put)
 * when they and `more` would not fit, or a has had more than
 * BULK_RELOADS runs: in calls given in random order a caller comes back
 * once per call, and loading all its calls each time would cost the
 * square of its calls; the index costs one probe a call. */
#define BULK_RELOADS 4
static bool bulk_runs_load(cgprop_graph *g, const bulk_runs *r, uint32_t a, uint32_t more)
{
    uint32_t total = more, nr = 0;
    for (uint32_t x = r->head[a]; x; x = r->prev[x - 1]) {
        total += r->e1[x - 1] - r->e0[x - 1];
        if (total > CGPROP__RUN_MAX || ++nr > BULK_RELOADS) return false;
    }
    for (uint32_t x = r->head[a]; x; x = r->prev[x - 1])
        for (uint32_t e = r->e0[x - 1]; e < r->e1[x - 1]; e++) {
            uint32_t i = run_slot(g->ecallee[e]);
            while (g->run_tab[i]) i = (i + 1) & (CGPROP__RUN_CAP - 1);
            g->run_tab[i] = e + 1;
        }
    return true;
}

static void bulk_runs_unload(cgprop_graph *g, const bulk_runs *r, uint32_t a)
{
    for (uint32_t x = r->head[a]; x; x = r->prev[x - 1]) run_tab_drop(g, r->e0[x - 1], r->e1[x - 1]);
}

/* Calls s .. t - 1 of a batch, all of caller a = caller[s], where a had no
 * call before the batch: each is new to the graph, or a repeat of a call
 * the batch made, all of which the caller has put in the run table
 * (g->run_tab; together at most RUN_MAX), so the table alone tells which,
 * and no call index is probed or written (the new calls stay past
 * ne - eunidx). The callees' sums, the only other misses,
 * are fetched BA calls ahead. Applies the calls in order, as edge_common
 * would one by one, up to the first whose sum would overflow (*why, a
 * CGPROP__WHY_* or -1 for too many calls); returns its index, t when none.
 * ids[k] (ids not NULL) receives call k's id. The calls it makes are taken out of the
 * run table again on return; the caller takes out those it put in. */
/* The record of a call a bulk batch creates, its costs cs (K of them) or
 * zeros. A loop, not memcpy: K is mostly 1, and a library call per call
 * costs more than the copy. */
static inline void bulk_call_new(cgprop_graph *g, uint32_t e, uint32_t a, uint32_t b, uint64_t cnt,
                                 const uint64_t *cs, uint32_t f)
{
    size_t K = g->K;
    g->ecaller[e] = a;
    g->ecallee[e] = b;
    g->ecount[e] = cnt;
    for (size_t j = 0; j < K; j++) g->ecost[(size_t)e * K + j] = cs ? cs[j] : 0;
    g->eflags[e] = f;
    g->ecls_ref[e] = 0;
}

static uint32_t bulk_run(cgprop_graph *g, uint32_t s, uint32_t t, uint32_t n, const uint32_t *caller,
                         const uint32_t *callee, const uint64_t *count, const uint64_t *costs, uint32_t *ids,
                         int *why)
{
    size_t K = g->K;
    uint32_t a = caller[s], e0 = g->ne, k;
    for (k = s; k < t; k++) {
        if (k + BA < n) {
            CGPROP__PREFETCH_W(&g->calls_in[callee[k + BA]]);
            CGPROP__PREFETCH_W(&g->nflags[callee[k + BA]]);
        }
        uint32_t b = callee[k], v, slot = run_slot(b);
        uint64_t cnt = count[k];
        const uint64_t *cs = costs ? costs + (size_t)k * K : NULL;
        while ((v = g->run_tab[slot]) != 0 && g->ecallee[v - 1] != b) slot = (slot + 1) & (CGPROP__RUN_CAP - 1);
        int over = v ? (!cgprop__fits_call(g, v - 1, cnt, NULL)  ? CGPROP__WHY_COUNT
                        : !cgprop__fits_call(g, v - 1, 0, cs) ? CGPROP__WHY_COST
                                                              : 0)
                     : g->ne >= UINT32_MAX - 1 ? -1
                                               : 0;
        if (!over && !cgprop__fits_calls_in(g, b, cnt)) over = CGPROP__WHY_CALLS_IN;
        if (over) {
            *why = over;
            break;
        }
        uint32_t e, f = 0;
        bool any = false;
        for (size_t j = 0; cs && j < K; j++) any = any || cs[j];
        if (cs) f = CGPROP__EF_HAS_COST | (any ? CGPROP__EF_UNCLASSIFIED : 0u);
        if (v) {
            e = v - 1;
            g->ecount[e] += cnt;
            for (size_t j = 0; cs && j < K; j++) g->ecost[(size_t)e * K + j] += cs[j];
            g->eflags[e] |= f;
        } else {
            e = g->ne++;
            g->eunidx++;
            g->run_tab[slot] = e + 1;
            bulk_call_new(g, e, a, b, cnt, cs, f);
            g->nflags[b] |= a == b ? CGPROP__NF_SELF_CALL : CGPROP__NF_HAS_CALLER;
        }
        if (cs) g->any_cost = true;
        g->calls_in[b] += cnt;
        if (ids) ids[k] = e;
    }
    if (g->ne > e0) g->nflags[a] |= CGPROP__NF_HAS_CALLEE;
    run_tab_drop(g, e0, g->ne);
    return k;
}

/* Calls in random order (add_calls_core): below this many, the index pass
 * is as fast as sorting. */
#define BULK_SORT_MIN 64u
/* Radix digits of at most this many bits: the counters of every pass fit
 * in the first-level cache together. */
#define BULK_SORT_DIGIT 11u
/* bulk_sorted could not take the batch: the graph is as it was, and the
 * batch goes the general way (which also names an overflow). */
#define BULK_SORT_NO 1
/* The bits of one sort word: a pair's key and the call's position in the
 * batch share it while both fit. Past that (about two million functions
 * and a few million calls in one batch) the positions move through the
 * passes in an array of their own, 4 bytes a call more traffic, rather
 * than the whole batch falling back to a probe per call. CI builds one
 * tree with 0, which sends every sorted batch that way. */
#ifndef CGPROP_BULK_SORT_WORD_BITS
#define CGPROP_BULK_SORT_WORD_BITS 64
#endif

static unsigned bits_for(uint64_t v)
{
    unsigned b = 0;
    for (; v; v >>= 1) b++;
    return b;
}

/* The batch position of sorted word j: beside it in pa (a batch too wide
 * for one word), else in its low bits. */
static inline uint32_t sorted_pos(const uint64_t *a, const uint32_t *pa, uint32_t j, uint64_t imask)
{
    return pa ? pa[j] : (uint32_t)(a[j] & imask);
}

/* Add a batch of calls in no useful order (checked, room reserved, no run
 * on) as n edge_common calls in order would, without a probe per call.
 * Each call becomes one 64-bit word (caller, callee, position); an LSD
 * radix sort on the pair brings each pair's calls together, in batch
 * order (the sort is stable), so every position learns the first position
 * of its pair, in one pass that probes the index only for pairs of
 * callers that had calls before the batch. A sweep in batch order then
 * does what one call at a time would, with no look-up: a first position
 * makes the next call (so the ids are the same, and every per-call array
 * is written in order), a later one adds to its first's call; the
 * callees' sums, the only misses left, are fetched ahead, as in bulk_run.
 * Older calls are added to after the sweep. A sum that would overflow
 * anywhere makes it give up (BULK_SORT_NO, the graph as it was), as does
 * missing scratch memory: the general path then gives the exact answer,
 * the error at the same call included.
 * A batch too wide for one word (CGPROP_BULK_SORT_WORD_BITS) sorts keys
 * alone, each pass moving the positions beside them (pa, pb). */
static int bulk_sorted(cgprop_graph *g, uint32_t n, const uint32_t *caller, const uint32_t *callee,
                       const uint64_t *count, const uint64_t *costs, uint32_t *ids)
{
    size_t K = g->K;
    uint32_t ne0 = g->ne;
    unsigned nb = bits_for(g->nn - 1), ib = bits_for(n - 1), kb = 2 * nb;
    if (ib > 31 || (uint64_t)ne0 + n > UINT32_MAX - 1) return BULK_SORT_NO;
    bool wide = kb + ib > CGPROP_BULK_SORT_WORD_BITS || kb + ib > 64;
    unsigned sb = wide ? 0 : ib; /* the key's shift in a word */
    unsigned np = (kb + BULK_SORT_DIGIT - 1) / BULK_SORT_DIGIT, d = np ? (kb + np - 1) / np : 0;
    uint64_t *a = cgprop__alloc(g, n, sizeof *a), *b = cgprop__alloc(g, n, sizeof *b);
    uint32_t *pa = wide ? cgprop__alloc(g, n, sizeof *pa) : NULL, *pb = wide ? cgprop__alloc(g, n, sizeof *pb) : NULL;
    uint32_t *hist = np ? cgprop__calloc(g, (size_t)np << d, sizeof *hist) : NULL;
    if (!a || !b || (wide && (!pa || !pb)) || (np && !hist)) {
        cgprop__free(g, a);
        cgprop__free(g, b);
        cgprop__free(g, pa);
        cgprop__free(g, pb);
        cgprop__free(g, hist);
        return BULK_SORT_NO;
    }
    uint64_t imask = ~0ull >> (64 - ib), bmask = nb ? (~0ull >> (64 - nb)) : 0;
    uint32_t dmask = (1u << d) - 1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t v = ((((uint64_t)caller[i] << nb) | callee[i]) << sb) | (wide ? 0 : i);
        a[i] = v;
        if (wide) pa[i] = i;
        for (unsigned q = 0; q < np; q++) hist[(q << d) | ((uint32_t)(v >> (sb + q * d)) & dmask)]++;
    }
    for (unsigned q = 0; q < np; q++) {
        uint32_t *h = hist + ((size_t)q << d), sum = 0;
        bool one = false;
        for (uint32_t x = 0; x <= dmask; x++) {
            uint32_t c = h[x];
            one = one || c == n;
            h[x] = sum;
            sum += c;
        }
        if (one) continue; /* every word has this digit: the order stands */
        unsigned sh = sb + q * d;
        for (uint32_t i = 0; i < n; i++) {
            uint64_t v = a[i];
            uint32_t to = h[(uint32_t)(v >> sh) & dmask]++;
            b[to] = v;
            if (wide) pb[to] = pa[i];
        }
        uint64_t *t = a;
        a = b;
        b = t;
        uint32_t *tp = pa;
        pa = pb;
        pb = tp;
    }
    cgprop__free(g, hist);
    cgprop__free(g, pb);

    /* map[p]: the first position of p's pair, OLD set when the pair is a
     * call from before the batch; the sweep turns it into p's call id.
     * Not the caller's ids array: that may be one of the inputs. */
    const uint32_t OLD = 0x80000000u;
    uint32_t *map = (uint32_t *)b;
    bool any_old = false, had = false;
    uint32_t px = UINT32_MAX;
    /* The probes are misses on a large graph (the slot, then the call it
     * names): both are fetched ahead, for the pair that far on, once the
     * index is made. */
    const uint32_t PD = CGPROP__AHEAD_BULK_PROBE;
    for (uint32_t j = 0; j < n;) {
        if (ne0 && g->ehash_cap && !g->eunidx) {
            uint64_t hmask = g->ehash_cap - 1;
            if (j + PD < n) {
                uint64_t k2 = a[j + PD] >> sb;
                CGPROP__PREFETCH(&g->ehash[cgprop__hash_pair((uint32_t)(k2 >> nb), (uint32_t)(k2 & bmask)) & hmask]);
            }
            if (j + PD / 2 < n) {
                uint64_t k2 = a[j + PD / 2] >> sb;
                uint32_t v = g->ehash[cgprop__hash_pair((uint32_t)(k2 >> nb), (uint32_t)(k2 & bmask)) & hmask];
                if (v) {
                    CGPROP__PREFETCH(&g->ecaller[v - 1]);
                    CGPROP__PREFETCH(&g->ecallee[v - 1]);
                }
            }
        }
        uint64_t key = a[j] >> sb;
        uint32_t x = (uint32_t)(key >> nb), y = (uint32_t)(key & bmask), mark = sorted_pos(a, pa, j, imask);
        if (x != px) {
            px = x;
            had = (g->nflags[x] & CGPROP__NF_HAS_CALLEE) != 0;
        }
        /* A call x -> y from before the batch needs x to have had callees
         * and y callers (or, x = y, a call to itself): other pairs are new
         * without a look-up. A reader that adds each function's callers
         * together (cProfile's statistics list them so) then never needs
         * the index, nor its memory. A pair that may be old is looked up:
         * the index must hold every earlier call first, made when the
         * first look-up comes (the only step here that may fail on the
         * graph). */
        if (had && (g->nflags[y] & (x == y ? CGPROP__NF_SELF_CALL : CGPROP__NF_HAS_CALLER))) {
            if (g->eunidx && edge_index_sync(g) != CGPROP_OK) {
                cgprop__free(g, a);
                cgprop__free(g, b);
                cgprop__free(g, pa);
                return BULK_SORT_NO;
            }
            if (edge_probe(g, x, y, cgprop__hash_pair(x, y)) != UINT32_MAX) {
                mark |= OLD;
                any_old = true;
            }
        }
        do {
            if (j + PF < n) CGPROP__PREFETCH_W(&map[sorted_pos(a, pa, j + PF, imask)]);
            map[sorted_pos(a, pa, j, imask)] = mark;
        } while (++j < n && a[j] >> sb == key);
    }
    cgprop__free(g, a);
    cgprop__free(g, pa);

    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    uint64_t cv[CGPROP_MAX_METRICS];
    uint32_t e = ne0, i;
    bool over = false;
    for (i = 0; i < n; i++) {
        if (i + BA < n) {
            CGPROP__PREFETCH_W(&g->calls_in[callee[i + BA]]);
            CGPROP__PREFETCH_W(&g->nflags[callee[i + BA]]);
            CGPROP__PREFETCH_W(&g->nflags[caller[i + BA]]);
        }
        uint32_t v = map[i], first = v & ~OLD, x = caller[i], y = callee[i], id, f = 0;
        uint64_t cnt = count[i];
        const uint64_t *cs = NULL;
        if (costs) {
            bool any = false;
            for (size_t q = 0; q < K; q++) {
                cv[q] = costs[(size_t)i * K + q];
                any = any || cv[q] != 0;
            }
            cs = cv;
            f = CGPROP__EF_HAS_COST | (any ? CGPROP__EF_UNCLASSIFIED : 0u);
        }
        if (!cgprop__fits_calls_in(g, y, cnt)) {
            over = true;
            break;
        }
        if (v & OLD) {
            id = first == i ? edge_probe(g, x, y, cgprop__hash_pair(x, y)) : map[first];
        } else if (first == i) {
            id = e++;
            bulk_call_new(g, id, x, y, cnt, cs, f);
            g->nflags[x] |= CGPROP__NF_HAS_CALLEE;
            g->nflags[y] |= x == y ? CGPROP__NF_SELF_CALL : CGPROP__NF_HAS_CALLER;
        } else {
            id = map[first];
            if (!cgprop__fits_call(g, id, cnt, cs)) {
                over = true;
                break;
            }
            g->ecount[id] += cnt;
            for (size_t q = 0; cs && q < K; q++) g->ecost[(size_t)id * K + q] += cs[q];
            g->eflags[id] |= f;
        }
        g->calls_in[y] += cnt;
        map[i] = id;
    }
    /* The new calls stay out of the index until a look-up needs it. */
    g->eunidx += e - ne0;
    g->ne = e;
    uint32_t done = i; /* calls whose calls in were added */
    if (!over && any_old) {
        for (i = 0; i < n; i++) {
            uint32_t id = map[i];
            if (id >= ne0) continue;
            if (!cgprop__fits_call(g, id, count[i], costs ? costs + (size_t)i * K : NULL)) {
                over = true;
                break;
            }
            g->ecount[id] += count[i];
            for (size_t q = 0; costs && q < K; q++) g->ecost[(size_t)id * K + q] += costs[(size_t)i * K + q];
        }
        if (over)
            while (i-- > 0) {
                uint32_t id = map[i];
                if (id >= ne0) continue;
                g->ecount[id] -= count[i];
                for (size_t q = 0; costs && q < K; q++) g->ecost[(size_t)id * K + q] -= costs[(size_t)i * K + q];
            }
        /* Their flags only once nothing can fail (the undo has no copy). */
        for (i = 0; !over && costs && i < n; i++) {
            uint32_t id = map[i];
            if (id >= ne0) continue;
            uint32_t f = CGPROP__EF_HAS_COST;
            for (size_t q = 0; q < K; q++)
                if (costs[(size_t)i * K + q]) f |= CGPROP__EF_UNCLASSIFIED;
            g->eflags[id] |= f;
        }
    }
    if (over) {
        for (i = 0; i < done; i++) g->calls_in[callee[i]] -= count[i];
        cgprop__txn_rollback(g, &t);
    } else {
        if (costs) g->any_cost = true;
        if (ids) memcpy(ids, map, (size_t)n * sizeof *ids);
    }
    cgprop__free(g, b);
    return over ? BULK_SORT_NO : CGPROP_OK;
}

/* Add n calls (ids checked, no classes) as n edge_common calls in that
 * order would, all or nothing; ids (NULL: none wanted) receives each call's
 * id. A run of calls of a caller that had none before goes through
 * bulk_run; calls of any other caller through the index, as
 * cgprop__add_edges always did. Memory for every new call is taken once,
 * at the start. */
static int add_calls_core(cgprop_graph *g, const char *what, uint32_t n, const uint32_t *caller,
                          const uint32_t *callee, const uint64_t *count, const uint64_t *costs, uint32_t *ids)
{
    size_t K = g->K;
    uint32_t ne0 = g->ne;
    uint64_t need = (uint64_t)ne0 + n;
    if (need > UINT32_MAX - 1) need = UINT32_MAX - 1; /* adding says what is wrong */
    int rc = grow_edges_to(g, need);
    if (rc) return cgprop__err(g, rc, "%s: out of memory", what);
    run_end(g);
    /* Calls mostly not grouped by caller (runs shorter than two on
     * average) would be runs of single calls, each caller coming back
     * many times: a large batch of them is sorted (bulk_sorted), a small
     * one, or one it gives up on, goes through the index in one pass that
     * fetches each call's slot ahead. */
    uint32_t nruns = 1;
    for (uint32_t x = 1; x < n; x++) nruns += caller[x] != caller[x - 1];
    bool grouped = (uint64_t)nruns * 2 <= n;
    if (!grouped && n >= BULK_SORT_MIN && bulk_sorted(g, n, caller, callee, count, costs, ids) == CGPROP_OK) {
        cgprop__mutated(g);
        return cgprop__ok(g);
    }
    /* Without ids wanted, the ids of calls through the index are kept
     * (own, made at the first of them) for the undo: only those can be
     * calls older than the batch; UINT32_MAX marks the others. */
    uint32_t *own = NULL, *fl0 = NULL;
    bulk_runs runs = {NULL, NULL, NULL, 0, 0, NULL};
    if ((ne0 && !(fl0 = cgprop__alloc(g, n, sizeof *fl0))) || !(runs.head = cgprop__alloc(g, g->nn, sizeof *runs.head))) {
        cgprop__free(g, own);
        cgprop__free(g, fl0);
        return cgprop__err(g, CGPROP_ENOMEM, "%s: out of memory", what);
    }
    /* Only the batch's callers' entries are ever read: those are set, not
     * the whole array. A reader adds its calls in many batches (gprof: one
     * per few thousand calls), and clearing a word per function for each
     * was most of the memory written by reading a report of 500,000
     * functions (600 MB) and a fresh page fault per 1,024 functions. */
    for (uint32_t x = 0; x < n; x++) runs.head[caller[x]] = 0;
    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    const char *whys = NULL;
    uint32_t i = 0, k = 0, at = UINT32_MAX; /* calls 0 .. k - 1 applied; the one to name */
    while (i < n) {
        uint32_t a = caller[i], j = i + 1;
        while (j < n && (!grouped || (j - i < CGPROP__RUN_MAX && caller[j] == a))) j++;
        /* A caller with calls from before the batch, or too many calls in
         * it for the run table, goes through the index. */
        bool fast = grouped && runs.head[a] != BULK_SLOW && (runs.head[a] || !(g->nflags[a] & CGPROP__NF_HAS_CALLEE)) &&
                    bulk_runs_load(g, &runs, a, j - i);
        if (!fast && grouped) runs.head[a] = BULK_SLOW;
        if (fast) {
            int why = 0;
            uint32_t e0 = g->ne;
            k = bulk_run(g, i, j, n, caller, callee, count, costs, ids, &why);
            bulk_runs_unload(g, &runs, a);
            if (k == j && g->ne > e0 && !bulk_runs_push(g, &runs, a, e0, g->ne)) {
                rc = CGPROP_ENOMEM;
                whys = "out of memory";
                at = i;
            }
            if (k < j) {
                rc = CGPROP_EOVERFLOW;
                whys = why == CGPROP__WHY_COUNT  ? "its count would overflow"
                       : why == CGPROP__WHY_COST ? "its cost would overflow"
                       : why > 0                 ? "would overflow the callee's calls"
                                                 : "too many calls";
                g->batch_at = k;
                g->batch_why = why > 0 ? why : 0;
            }
        } else {
            rc = edge_index_sync(g);
            if (!rc && !ids) {
                if ((ids = own = cgprop__alloc(g, n, sizeof *ids)) != NULL)
                    memset(own, 0xFF, (size_t)n * sizeof *own);
                else
                    rc = CGPROP_ENOMEM;
            }
        }
        if (!fast && rc) {
            k = i;
            whys = rc == CGPROP_ENOMEM ? "out of memory" : "too many calls";
        } else if (!fast) {
            k = i + add_edges_run(g, j - i, caller + i, callee + i, count + i, costs ? costs + (size_t)i * K : NULL,
                                  NULL, ne0, fl0 ? fl0 + i : NULL, &rc, &whys, ids + i);
            if (rc == CGPROP_EOVERFLOW) g->batch_at = k;
            run_end(g);
        }
        if (rc) break;
        i = j;
    }
    if (rc) {
        /* Calls 0 .. k - 1 were added: take back what they added to older
         * calls and to the callees' calls in; the rollback drops the rest. */
        for (uint32_t x = k; x-- > 0;) {
            uint32_t e = ids ? ids[x] : UINT32_MAX;
            g->calls_in[callee[x]] -= count[x];
            if (e >= ne0) continue;
            g->ecount[e] -= count[x];
            for (size_t j = 0; costs && j < K; j++) g->ecost[(size_t)e * K + j] -= costs[(size_t)x * K + j];
            g->eflags[e] = fl0[x];
        }
        cgprop__txn_rollback(g, &t);
        if (at == UINT32_MAX) at = k;
        rc = cgprop__err(g, rc, "%s: call %u (%u -> %u): %s", what, at, caller[at], callee[at], whys);
    } else {
        cgprop__mutated(g);
        rc = cgprop__ok(g);
    }
    cgprop__free(g, own);
    cgprop__free(g, fl0);
    cgprop__free(g, runs.head);
    cgprop__free(g, runs.e0);
    cgprop__free(g, runs.e1);
    cgprop__free(g, runs.prev);
    return rc;
}

int cgprop_graph_add_calls(cgprop_graph *g, size_t n, const uint32_t *callers, const uint32_t *callees,
                           const uint64_t *counts, const uint64_t *costs, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (n && (!callers || !callees || !counts)) return cgprop__err(g, CGPROP_EINVAL, "add_calls: NULL argument");
    if (n > UINT32_MAX - 1)
        return cgprop__err(g, CGPROP_EINVAL, "add_calls: %zu calls in one batch (at most %u)", n, UINT32_MAX - 1);
    int rc = add_edges_check(g, "add_calls", (uint32_t)n, callers, callees, NULL);
    if (rc) return rc;
    if (n == 0) return cgprop__ok(g);
    return add_calls_core(g, "add_calls", (uint32_t)n, callers, callees, counts, costs, out);
}

int cgprop_graph_add_nodes(cgprop_graph *g, size_t n, const char *const *keys, const size_t *lens, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (n && (!keys || !out)) return cgprop__err(g, CGPROP_EINVAL, "add_nodes: NULL argument");
    for (size_t i = 0; i < n; i++) {
        size_t len = lens ? lens[i] : keys[i] ? strlen(keys[i]) : 0;
        if (!keys[i] && (len || !lens)) return cgprop__err(g, CGPROP_EINVAL, "add_nodes: key %zu is NULL", i);
        if (len > UINT32_MAX - 1)
            return cgprop__err(g, CGPROP_EINVAL, "add_nodes: key %zu of %zu bytes is longer than 4 GiB", i, len);
    }
    if (n == 0) return cgprop__ok(g);
    /* Room for every key being new, taken once (nothing changed on failure). */
    uint64_t need = (uint64_t)g->nn + n;
    if (need > UINT32_MAX - 1) need = UINT32_MAX - 1;
    int rc = grow_nodes_to(g, need);
    if (!rc && need * 2 > g->nhash_cap) {
        uint32_t ncap = table_cap_for(g->nhash_cap, need);
        if (ncap) rc = rehash_nodes(g, ncap);
    }
    if (rc) return cgprop__err(g, rc, "add_nodes: out of memory growing the function table");
    cgprop__txn t;
    cgprop__txn_begin(g, &t);
    /* Each key's hash is taken PF keys ahead and its index slot fetched: on
     * a table larger than the caches the probes' misses overlap. */
    uint64_t ring[PF];
    size_t i;
    for (i = 0; i < n && i < PF; i++) {
        size_t len = lens ? lens[i] : strlen(keys[i]);
        ring[i] = cgprop__hash_bytes(keys[i] ? keys[i] : "", len);
        CGPROP__PREFETCH(&g->nhash[ring[i] & (g->nhash_cap - 1)]);
    }
    for (i = 0; i < n; i++) {
        uint64_t h = ring[i % PF], mask = g->nhash_cap - 1;
        if (i + PF < n) {
            size_t ln = lens ? lens[i + PF] : strlen(keys[i + PF]);
            uint64_t hn = cgprop__hash_bytes(keys[i + PF] ? keys[i + PF] : "", ln);
            ring[i % PF] = hn;
            CGPROP__PREFETCH(&g->nhash[hn & mask]);
        }
        const char *key = keys[i] ? keys[i] : "";
        size_t len = lens ? lens[i] : strlen(key);
        if (node_lookup(g, key, len, h, &out[i])) continue;
        if (g->nn >= UINT32_MAX - 1 || (uint64_t)(g->nn + 1) * 2 > g->nhash_cap) {
            rc = g->nn >= UINT32_MAX - 1 ? CGPROP_EOVERFLOW : grow_node_table(g);
            if (rc) break;
            mask = g->nhash_cap - 1;
        }
        char *copy = key_space(g, len + 1);
        if (!copy) {
            rc = CGPROP_ENOMEM;
            break;
        }
        uint32_t id = g->nn++;
        memcpy(copy, key, len);
        copy[len] = '\0';
        g->key_ptr[id] = copy;
        g->key_len[id] = (uint32_t)len;
        uint64_t s = h & mask;
        while (g->nhash[s]) s = (s + 1) & mask;
        g->nhash[s] = node_slot(id, h);
        out[i] = id;
    }
    if (rc) {
        cgprop__txn_rollback(g, &t);
        return cgprop__err(g, rc, "add_nodes: key %zu: %s", i,
                           rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    }
    /* The new functions' rows, zeroed in one sweep each. */
    size_t K = g->K, a = t.nn0, m = g->nn - t.nn0;
    if (m) {
        memset(g->self + a * K, 0, m * K * sizeof *g->self);
        memset(g->self_n + a * K, 0, m * K * sizeof *g->self_n);
        memset(g->self_r + a * K, 0, m * K * sizeof *g->self_r);
        memset(g->spont_cost + a * K, 0, m * K * sizeof *g->spont_cost);
        memset(g->spont_cnt + a, 0, m * sizeof *g->spont_cnt);
        memset(g->calls_in + a, 0, m * sizeof *g->calls_in);
        memset(g->nflags + a, 0, m * sizeof *g->nflags);
        cgprop__mutated(g);
    }
    return cgprop__ok(g);
}

int cgprop_graph_find_edge(cgprop_graph *g, uint32_t caller, uint32_t callee, uint32_t *out)
{
    if (!g) return CGPROP_EINVAL;
    if (!out) return cgprop__err(g, CGPROP_EINVAL, "find_edge: out is NULL");
    int rc = check_node(g, caller, "find_edge");
    if (!rc) rc = check_node(g, callee, "find_edge");
    if (rc) return rc;
    uint32_t e = cgprop__edge_lookup(g, caller, callee);
    if (e == UINT32_MAX) return cgprop__err(g, CGPROP_ENOTFOUND, "no call %u -> %u", caller, callee);
    *out = e;
    return cgprop__ok(g);
}

/* ---- undo ---- */

/* Forget calls with ids >= ne0 / functions with ids >= nn0. Dropping a
 * suffix of the insertion order from a linear-probing table leaves the table
 * the older ids alone would have made. The bytes of dropped keys stay in
 * their block until the graph is freed. */
static void rollback_edges(cgprop_graph *g, uint32_t ne0)
{
    if (ne0 >= g->ne) return;
    run_end(g);
    uint32_t first = g->ne - g->eunidx; /* the first call in no index */
    for (uint32_t e = ne0; e < g->ne; e++) {
        g->nflags[g->ecallee[e]] &= ~(uint32_t)(CGPROP__NF_SELF_CALL | CGPROP__NF_HAS_CALLER);
        g->nflags[g->ecaller[e]] &= ~(uint32_t)CGPROP__NF_HAS_CALLEE;
    }
    for (uint32_t i = 0; i < g->ehash_cap; i++)
        if (g->ehash[i] > ne0) g->ehash[i] = 0;
    /* Held-back calls below ne0 stay held back. */
    /* The flags just cleared may still be owed to older calls. */
    for (uint32_t e = 0; e < ne0; e++) {
        g->nflags[g->ecallee[e]] |=
            g->ecaller[e] == g->ecallee[e] ? CGPROP__NF_SELF_CALL : CGPROP__NF_HAS_CALLER;
        g->nflags[g->ecaller[e]] |= CGPROP__NF_HAS_CALLEE;
    }
    g->ne = ne0;
    g->eunidx = first < ne0 ? ne0 - first : 0;
}

static void rollback_nodes(cgprop_graph *g, uint32_t nn0)
{
    if (nn0 >= g->nn) return;
    for (uint32_t i = 0; i < g->nhash_cap; i++)
        if ((uint32_t)g->nhash[i] > nn0) g->nhash[i] = 0;
    g->nn = nn0;
}

void cgprop__txn_rollback(cgprop_graph *g, const cgprop__txn *t)
{
    cgprop__ctx_truncate(g, t->nctx0);
    rollback_edges(g, t->ne0);
    rollback_nodes(g, t->nn0);
    sparse_drop_from(&g->dcall, t->ne0, cgprop__dcall_width(g));
    sparse_drop_from(&g->dself, t->nn0, g->K);
    g->any_cost = t->any_cost0;
    g->has_classes = t->has_classes0;
    /* The store is as it was at gen0. The adjacency index is still right
     * for it unless it was rebuilt since, which no writer does. */
    g->gen = t->gen0;
    g->adj_valid = t->adj0 && g->adj.gen == t->gen0;
}

/* ---- adjacency ---- */

const cgprop__adj *cgprop__get_adj(cgprop_graph *g)
{
    if (g->adj_valid && g->adj.gen == g->gen) return &g->adj;
    size_t nn = g->nn, ne = g->ne;
    uint32_t *oo = cgprop__alloc(g, nn + 1, sizeof *oo), *io = cgprop__alloc(g, nn + 1, sizeof *io);
    uint32_t *oe = cgprop__alloc(g, ne, sizeof *oe), *ie = cgprop__alloc(g, ne, sizeof *ie);
    uint32_t *ov = cgprop__alloc(g, ne, sizeof *ov);
    if (!oo || !io || !oe || !ie || !ov) {
        cgprop__free(g, oo);
        cgprop__free(g, io);
        cgprop__free(g, oe);
        cgprop__free(g, ie);
        cgprop__free(g, ov);
        cgprop__err(g, CGPROP_ENOMEM, "out of memory building the adjacency index");
        return NULL;
    }
    memset(oo, 0, (nn + 1) * sizeof *oo);
    memset(io, 0, (nn + 1) * sizeof *io);
    /* Calls mostly arrive grouped by caller, so the caller side is near
     * sequential; the callee side jumps, and its counters and slots are
     * fetched ahead (the slot in two steps: its counter first). */
    const uint32_t *ca = g->ecaller, *cb = g->ecallee;
    for (size_t e = 0; e < ne; e++) {
        if (e + PF < ne) CGPROP__PREFETCH_W(&io[cb[e + PF] + 1]);
        oo[ca[e] + 1]++;
        io[cb[e] + 1]++;
    }
    for (size_t v = 0; v < nn; v++) {
        oo[v + 1] += oo[v];
        io[v + 1] += io[v];
    }
    /* Fill by ascending edge id, using the offsets as cursors, then shift back. */
    for (size_t e = 0; e < ne; e++) {
        if (e + 2 * PF < ne) CGPROP__PREFETCH_W(&io[cb[e + 2 * PF]]);
        if (e + PF < ne) CGPROP__PREFETCH_W(&ie[io[cb[e + PF]]]);
        ov[oo[ca[e]]] = cb[e];
        oe[oo[ca[e]]++] = (uint32_t)e;
        ie[io[cb[e]]++] = (uint32_t)e;
    }
    for (size_t v = nn; v > 0; v--) {
        oo[v] = oo[v - 1];
        io[v] = io[v - 1];
    }
    oo[0] = io[0] = 0;
    cgprop__free(g, g->adj.out_off);
    cgprop__free(g, g->adj.out_e);
    cgprop__free(g, g->adj.out_v);
    cgprop__free(g, g->adj.in_off);
    cgprop__free(g, g->adj.in_e);
    g->adj.out_off = oo;
    g->adj.out_e = oe;
    g->adj.out_v = ov;
    g->adj.in_off = io;
    g->adj.in_e = ie;
    g->adj.gen = g->gen;
    g->adj_valid = true;
    return &g->adj;
}

/* Fetch the key index slot a key's look-up probes first: a reader that
 * knows its next keys ahead of time overlaps their misses. */
void cgprop__node_prefetch(const cgprop_graph *g, const char *key, size_t len)
{
    if (g->nhash_cap) CGPROP__PREFETCH_W(&g->nhash[cgprop__hash_bytes(key, len) & (g->nhash_cap - 1)]);
}

/* ---- the stack readers' names ---- */

/* cgprop_graph_add_node for the readers' frames, whose names are mostly
 * found: the found path compares a short key inline, without a call, and
 * leaves the error text alone. */
int cgprop__node_get(cgprop_graph *g, const char *key, size_t len, uint32_t *out)
{
    if (g->nhash_cap && len < UINT32_MAX) {
        uint64_t h = cgprop__hash_bytes(key, len), mask = g->nhash_cap - 1;
        uint32_t fp = (uint32_t)(h >> 32);
        for (uint64_t i = h & mask;; i = (i + 1) & mask) {
            uint64_t v = g->nhash[i];
            if (!v) break;
            if ((uint32_t)(v >> 32) != fp) continue;
            uint32_t id = (uint32_t)v - 1;
            if (g->key_len[id] != len) continue;
            const char *k = g->key_ptr[id];
            size_t j = 0;
            if (len > 16) j = memcmp(k, key, len) ? 0 : len;
            else
                while (j < len && k[j] == key[j]) j++;
            if (j == len) {
                *out = id;
                return CGPROP_OK;
            }
        }
    }
    return cgprop_graph_add_node(g, key, len, out);
}

/* ---- room ahead for the stack readers ---- */

/* Room in the per-function and per-call arrays for nodes and edges more,
 * without sizing the key and call indexes: a reader that can only estimate
 * its counts reserves arrays, whose pages are touched only as they fill,
 * and leaves the indexes (zeroed whole when made) to grow as they must. */
int cgprop__reserve_arrays(cgprop_graph *g, uint32_t nodes, uint32_t edges)
{
    uint64_t nn = (uint64_t)g->nn + nodes, ne = (uint64_t)g->ne + edges;
    int rc = nn > UINT32_MAX - 1 ? CGPROP_OK : grow_nodes_to(g, nn);
    if (!rc && ne <= UINT32_MAX - 1) rc = grow_edges_to(g, ne);
    return rc;
}

void cgprop__graph_mark_sampled(cgprop_graph *g)
{
    g->sampled = true;
    cgprop__mutated(g);
}

void cgprop__graph_state_unrooted(cgprop_graph *g, const uint64_t *w)
{
    for (uint32_t k = 0; k < g->K; k++)
        if (!cgprop__sat_add(&g->unrooted_stated[k], w[k])) g->unrooted_stated[k] = UINT64_MAX;
    cgprop__mutated(g);
}
