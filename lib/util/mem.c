/* Allocation context, growable arrays, a 64-bit hash map (util/mem.h). */
/* madvise and MADV_HUGEPAGE under -std=c11 (Linux only). */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE 1
#endif
#include "mem.h"
#include "prefetch.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

static void *std_malloc(void *user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void *std_realloc(void *user, void *p, size_t size)
{
    (void)user;
    return realloc(p, size);
}

static void std_free(void *user, void *p)
{
    (void)user;
    free(p);
}

void cgprop__mem_init(cgprop_allocator *m, const cgprop_allocator *caller)
{
    if (caller) {
        *m = *caller;
        return;
    }
    m->malloc_fn = std_malloc;
    m->realloc_fn = std_realloc;
    m->free_fn = std_free;
    m->user = NULL;
}

void cgprop__mem_advise(const cgprop_allocator *m, void *p, size_t n, bool huge)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
    /* Only memory the C library handed out: a caller's allocator may give
     * memory whose pages it manages itself. Huge pages are asked for on
     * every page the block touches: the kernel makes one only of an aligned
     * 2 MiB span wholly inside the advised range, and advice on part of a
     * mapping splits it, after which the C library can no longer move a
     * growing block by remapping its pages (the kernel refuses a remap
     * across mappings) and copies it instead, faulting in every page
     * again. Small pages are asked for on the whole pages inside the range
     * (a span that meets them is then not made huge). The advice may be
     * refused (THP not built in, an odd page size): nothing changes then. */
    if (!p || !cgprop__mem_lazy(m)) return;
    long sz = sysconf(_SC_PAGESIZE);
    const uintptr_t page = sz > 0 ? (uintptr_t)sz : 4096, at = (uintptr_t)p;
    uintptr_t a = (at + page - 1) & ~(page - 1), b = (at + n) & ~(page - 1);
    if (huge) {
        a = at & ~(page - 1);
        b = (at + n + page - 1) & ~(page - 1);
    }
    if (b > a) (void)madvise((void *)a, b - a, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#else
    (void)m;
    (void)p;
    (void)n;
    (void)huge;
#endif
}

bool cgprop__mem_lazy(const cgprop_allocator *m)
{
#if defined(__linux__)
    return m->malloc_fn == std_malloc;
#else
    (void)m;
    return false;
#endif
}

void *cgprop__mem_alloc(const cgprop_allocator *m, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    void *r = m->malloc_fn(m->user, bytes ? bytes : 1);
    if (bytes >= CGPROP__HUGE_MIN) cgprop__mem_advise(m, r, bytes, true);
    return r;
}

void *cgprop__mem_calloc(const cgprop_allocator *m, size_t n, size_t size)
{
    void *p = cgprop__mem_alloc(m, n, size);
    if (p) memset(p, 0, n * size);
    return p;
}

void *cgprop__mem_realloc(const cgprop_allocator *m, void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    size_t bytes = n * size;
    void *r = p ? m->realloc_fn(m->user, p, bytes ? bytes : 1) : m->malloc_fn(m->user, bytes ? bytes : 1);
    if (bytes >= CGPROP__HUGE_MIN) cgprop__mem_advise(m, r, bytes, true);
    return r;
}

void cgprop__mem_free(const cgprop_allocator *m, void *p)
{
    if (p) m->free_fn(m->user, p);
}

bool cgprop__grow(const cgprop_allocator *m, void **p, size_t *cap, size_t need, size_t size, size_t first)
{
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : (first ? first : 1);
    while (c < need) {
        if (c > SIZE_MAX / 2) return false;
        c *= 2;
    }
    char *q = cgprop__mem_realloc(m, *p, c, size);
    if (!q) return false;
    memset(q + *cap * size, 0, (c - *cap) * size);
    *p = q;
    *cap = c;
    return true;
}

static size_t slot_of(uint64_t k, size_t mask)
{
    k *= 0x9E3779B97F4A7C15ull;
    return (size_t)(k ^ k >> 29) & mask;
}

static bool rehash(const cgprop_allocator *m, cgprop__u64map *h, size_t cap)
{
    uint64_t *keys = cgprop__mem_calloc(m, cap, sizeof *keys);
    uint32_t *vals = cgprop__mem_alloc(m, cap, sizeof *vals);
    if (!keys || !vals) {
        cgprop__mem_free(m, keys);
        cgprop__mem_free(m, vals);
        return false;
    }
    for (size_t i = 0; i < h->cap; i++) {
        if (!h->keys[i]) continue;
        size_t j = slot_of(h->keys[i], cap - 1);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = h->keys[i];
        vals[j] = h->vals[i];
    }
    cgprop__mem_free(m, h->keys);
    cgprop__mem_free(m, h->vals);
    h->keys = keys;
    h->vals = vals;
    h->cap = cap;
    return true;
}

/* Room for one more key, then the slot of stored key k (key + 1): where it
 * is, or the empty slot where it goes. false when memory runs out. */
static bool slot_for(const cgprop_allocator *m, cgprop__u64map *h, uint64_t k, size_t *slot)
{
    /* At most half full: probes stay short, and an empty slot always ends one. */
    if ((h->n + 1) * 2 > h->cap && !rehash(m, h, h->cap ? h->cap * 2 : 64)) return false;
    size_t mask = h->cap - 1, j = slot_of(k, mask);
    while (h->keys[j] && h->keys[j] != k) j = (j + 1) & mask;
    *slot = j;
    return true;
}

void cgprop__u64map_prefetch(const cgprop__u64map *h, uint64_t key)
{
    if (!h->cap) return;
    size_t j = slot_of(key + 1, h->cap - 1);
    CGPROP__PREFETCH_W(h->keys + j);
    CGPROP__PREFETCH_W(h->vals + j);
}

int cgprop__u64map_put(const cgprop_allocator *m, cgprop__u64map *h, uint64_t key, uint32_t val)
{
    uint64_t k = key + 1;
    size_t j;
    if (!slot_for(m, h, k, &j)) return CGPROP_ENOMEM;
    if (!h->keys[j]) {
        h->keys[j] = k;
        h->n++;
    }
    h->vals[j] = val;
    return CGPROP_OK;
}

int cgprop__u64map_reserve(const cgprop_allocator *m, cgprop__u64map *h, size_t n)
{
    size_t cap = h->cap ? h->cap : 64;
    while (n * 2 > cap) {
        if (cap > SIZE_MAX / 4) return CGPROP_ENOMEM;
        cap *= 2;
    }
    return cap == h->cap || rehash(m, h, cap) ? CGPROP_OK : CGPROP_ENOMEM;
}

int cgprop__u64map_put_new(const cgprop_allocator *m, cgprop__u64map *h, uint64_t key, uint32_t val, uint32_t *old,
                           bool *found)
{
    uint64_t k = key + 1;
    size_t j;
    *found = false;
    if (!slot_for(m, h, k, &j)) return CGPROP_ENOMEM;
    if (h->keys[j]) {
        *old = h->vals[j];
        *found = true;
        return CGPROP_OK;
    }
    h->keys[j] = k;
    h->vals[j] = val;
    h->n++;
    return CGPROP_OK;
}

bool cgprop__u64map_get(const cgprop__u64map *h, uint64_t key, uint32_t *val)
{
    if (!h->cap) return false;
    uint64_t k = key + 1;
    size_t mask = h->cap - 1;
    for (size_t j = slot_of(k, mask); h->keys[j]; j = (j + 1) & mask)
        if (h->keys[j] == k) {
            *val = h->vals[j];
            return true;
        }
    return false;
}

void cgprop__u64map_free(const cgprop_allocator *m, cgprop__u64map *h)
{
    cgprop__mem_free(m, h->keys);
    cgprop__mem_free(m, h->vals);
    memset(h, 0, sizeof *h);
}
