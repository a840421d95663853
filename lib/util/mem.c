/* Allocation context, growable arrays, a 64-bit hash map (util/mem.h). */
/* madvise, MADV_HUGEPAGE and mremap under -std=c11 (Linux only). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
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

/* Large blocks of the C library's allocator, mapped by the library on Linux
 * with glibc. On a VM that charges ~15 us for a fresh page's first touch (a
 * paravirtualised guest, whose page tables the hypervisor keeps), a graph's
 * arrays spent more time faulting than being filled. The kernel backs an
 * advised region with huge pages only in the aligned 2 MiB spans wholly
 * inside it, and only in a span none of whose pages is mapped yet; the C
 * library places its blocks at any address and grows those on its heap by
 * copying them, so most pages came small, and came twice. A block mapped
 * here has its data start on a span, is advised at once and grows by
 * moving its page tables (mremap), not by copying: a span is one fault
 * instead of 512. The page before the data holds the mapping's length and a
 * tag, so that a block of 2^k bytes fills its spans exactly and the next
 * doubling finds its new spans untouched. The mapping is whole pages, and
 * whole spans only where its last span would be at least half full: at
 * most half a span more than glibc's would be resident. */
#if defined(__linux__)
static inline size_t page_size(void)
{
    long sz = sysconf(_SC_PAGESIZE);
    return sz > 0 && (size_t)sz < CGPROP__BIG_SPAN ? (size_t)sz : 4096;
}
#endif

#ifdef CGPROP__BIG_MAP
#include <malloc.h>

#define SPAN ((uintptr_t)CGPROP__BIG_SPAN)
#define BIG_MIN CGPROP__BIG_MIN

static uint64_t big_tag(const void *p)
{
    return ((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull) >> 1 | (uint64_t)1 << 63;
}

static bool on_span(const void *p)
{
    return ((uintptr_t)p & (SPAN - 1)) == 0;
}

/* A block of the C library's handed out here never starts on a span (one
 * that does is swapped for a mapped copy), so the words before a block are
 * read only for a block of ours: a block of the C library's may have no
 * readable header before it (memcheck's have a guard zone). The tag is a
 * second check; the word before a glibc block is its chunk's size, which
 * never has the top bit set. */
static bool is_big(const void *p)
{
    return on_span(p) && ((const uint64_t *)p)[-1] == big_tag(p);
}

/* The mapping of block p, which starts a page before it. */
static char *big_base(const void *p)
{
    return (char *)p - page_size();
}

static size_t big_len(const void *p)
{
    return (size_t)((const uint64_t *)p)[-2];
}

/* The header page and n bytes of data, in whole pages; 0 on overflow. */
static size_t map_len(size_t n)
{
    size_t pg = page_size();
    if (n > SIZE_MAX - 2 * pg - SPAN) return 0;
    size_t d = (n + pg - 1) & ~(pg - 1), tail = d & (SPAN - 1);
    if (tail >= SPAN / 2) d += SPAN - tail;
    return pg + d;
}

/* len bytes of fresh address space whose second page starts a span, or
 * NULL. */
static char *reserve_aligned(size_t len)
{
    size_t pg = page_size();
    char *r = mmap(NULL, len + SPAN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED) return NULL;
    char *base = (char *)((((uintptr_t)r + pg + SPAN - 1) & ~(SPAN - 1)) - pg);
    if (base > r) munmap(r, (size_t)(base - r));
    size_t tail = (size_t)(r + len + SPAN - (base + len));
    if (tail) munmap(base + len, tail);
    return base;
}

static void *big_finish(char *base, size_t len)
{
    /* Advice on the whole mapping, header page included: advice on part of
     * it would split it, and mremap moves one mapping only. */
    (void)madvise(base, len, MADV_HUGEPAGE);
    char *p = base + page_size();
    ((uint64_t *)p)[-2] = len;
    ((uint64_t *)p)[-1] = big_tag(p);
    return p;
}

static void *big_alloc(size_t n)
{
    size_t len = map_len(n);
    char *base = len ? reserve_aligned(len) : NULL;
    return base ? big_finish(base, len) : NULL;
}

/* A mapped block of n bytes holding the first `keep` bytes of the C
 * library's block q, which is freed; NULL (q kept) when none can be had. */
static void *to_map(void *q, size_t n, size_t keep)
{
    void *r = big_alloc(n);
    if (!r) return NULL;
    memcpy(r, q, keep < n ? keep : n);
    free(q);
    return r;
}

/* q, or when q starts on a span (another malloc, such as jemalloc's, may
 * place blocks on spans often) a mapped copy of it, so that every block on
 * a span is a mapped one. q itself if no mapping can be had, which is valid
 * too; only its missing tag tells it apart then. */
static void *off_span(void *q, size_t n)
{
    if (!q || !on_span(q)) return q;
    void *r = to_map(q, n, n);
    return r ? r : q;
}

static void *big_realloc(void *p, size_t n)
{
    char *base = big_base(p);
    size_t len = big_len(p), want = map_len(n);
    if (!want) return NULL;
    if (want <= len) {
        /* Shrunk: the pages past it go back. */
        if (want < len) munmap(base + want, len - want);
        ((uint64_t *)p)[-2] = want;
        return p;
    }
    /* Grown where it is if the address space after it is free, else moved
     * whole onto a new span, both without a copy. */
    char *to = mremap(base, len, want, 0);
    if (to == MAP_FAILED) {
        char *a = reserve_aligned(want);
        if (!a) return NULL;
        to = mremap(base, len, want, MREMAP_MAYMOVE | MREMAP_FIXED, a);
        if (to == MAP_FAILED) {
            /* Advice on part of the block split its mapping, which mremap
             * cannot move in one piece: copied instead. */
            size_t pg = page_size();
            memcpy(a + pg, p, len - pg);
            munmap(base, len);
            to = a;
        }
    }
    return big_finish(to, want);
}
#endif

static void *std_malloc(void *user, size_t size)
{
    (void)user;
#ifdef CGPROP__BIG_MAP
    if (size >= BIG_MIN) return big_alloc(size);
    return off_span(malloc(size), size);
#else
    return malloc(size);
#endif
}

static void *std_realloc(void *user, void *p, size_t size)
{
    (void)user;
#ifdef CGPROP__BIG_MAP
    if (p && is_big(p)) return big_realloc(p, size);
    if (p && size >= BIG_MIN) return to_map(p, size, malloc_usable_size(p));
    return off_span(realloc(p, size), size);
#else
    return realloc(p, size);
#endif
}

static void std_free(void *user, void *p)
{
    (void)user;
#ifdef CGPROP__BIG_MAP
    if (p && is_big(p)) {
        munmap(big_base(p), big_len(p));
        return;
    }
#endif
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
    const uintptr_t page = page_size(), at = (uintptr_t)p;
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

/* Whether a block of this many bytes gets the huge-page advice as it is
 * allocated: with mapped blocks it is given when the block is mapped. */
static bool advise_on_alloc(size_t bytes)
{
#ifdef CGPROP__BIG_MAP
    (void)bytes;
    return false;
#else
    return bytes >= CGPROP__HUGE_MIN;
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
    if (advise_on_alloc(bytes)) cgprop__mem_advise(m, r, bytes, true);
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
    if (advise_on_alloc(bytes)) cgprop__mem_advise(m, r, bytes, true);
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
