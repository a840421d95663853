/* The small containers everything else is built from, all allocating
 * through one allocation context: a resolved cgprop_allocator (never NULL;
 * the C library's functions when the caller gave none). The store allocates
 * through its graph's context (graph.h's cgprop__alloc and friends take the
 * graph); code that has no graph of its own (a reader's scratch state, the
 * SCC finder) holds a context instead of a graph. */
#ifndef CGPROP_UTIL_MEM_H
#define CGPROP_UTIL_MEM_H

#include "cgprop.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A context from the caller's allocator, or the C library's when NULL. */
void cgprop__mem_init(cgprop_allocator *m, const cgprop_allocator *caller);
/* n * size bytes (at least 1); NULL on overflow or failure. */
void *cgprop__mem_alloc(const cgprop_allocator *m, size_t n, size_t size);
void *cgprop__mem_calloc(const cgprop_allocator *m, size_t n, size_t size);
void *cgprop__mem_realloc(const cgprop_allocator *m, void *p, size_t n, size_t size);
void cgprop__mem_free(const cgprop_allocator *m, void *p);
/* Without mapped blocks (CGPROP__BIG_MAP below), blocks of at least this
 * many bytes from the C library's allocator are asked to be backed by huge
 * pages as they are allocated (cgprop__mem_alloc, _calloc, _realloc): the
 * large arrays of a big graph are read at random (hash tables, per-call
 * and per-member arrays), where 4 KiB pages cost a TLB miss on most
 * accesses, and are faulted in 512 times less often. A block that will be
 * filled only in part should have that part set back to small pages, which
 * only what is touched makes resident. */
#define CGPROP__HUGE_MIN ((size_t)4 << 20)
/* Blocks of at least CGPROP__BIG_MIN bytes from the C library's allocator
 * are mapped by the library itself on Linux with glibc (mem.c says why):
 * each starts on an aligned 2 MiB span, is advised onto huge pages at once
 * and grows without a copy. Off in sanitiser builds, whose checks cover
 * only the C library's blocks, and with -DCGPROP_NO_BIG_MAP. */
#if defined(__linux__) && defined(__GLIBC__) && !defined(CGPROP_NO_BIG_MAP) && !defined(__SANITIZE_ADDRESS__)
#define CGPROP__BIG_MAP 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#undef CGPROP__BIG_MAP
#endif
#endif
#define CGPROP__BIG_SPAN ((size_t)2 << 20)
#define CGPROP__BIG_MIN CGPROP__BIG_SPAN
/* Asks the system to back [p, p + n) with huge pages (its whole aligned
 * 2 MiB spans) or with small ones (its whole pages), before it is first
 * touched. Only for memory from the C library's allocator and on Linux;
 * else nothing. */
void cgprop__mem_advise(const cgprop_allocator *m, void *p, size_t n, bool huge);
/* Whether the pages of a large block from m become resident only as they
 * are first touched, so that room asked for ahead costs address space and
 * nothing else: the C library's allocator on Linux. A caller's allocator may
 * commit what it hands out (a pool, an arena): false. */
bool cgprop__mem_lazy(const cgprop_allocator *m);

/* A growable array: *p holds *cap elements of `size` bytes; make room for at
 * least `need`, doubling (from `first`). New room is zeroed. false (and *p
 * unchanged) when memory runs out. */
bool cgprop__grow(const cgprop_allocator *m, void **p, size_t *cap, size_t need, size_t size, size_t first);

/* A hash map from 64-bit keys (below 2^64 - 1) to 32-bit values, open
 * addressing with linear probing, for sparse ids that a direct table would
 * not hold in memory proportional to the input. */
typedef struct cgprop__u64map {
    uint64_t *keys; /* key + 1; 0 is an empty slot */
    uint32_t *vals;
    size_t cap, n;
} cgprop__u64map;

/* Insert or overwrite. CGPROP_OK or CGPROP_ENOMEM (the map unchanged). */
int cgprop__u64map_put(const cgprop_allocator *m, cgprop__u64map *h, uint64_t key, uint32_t val);
bool cgprop__u64map_get(const cgprop__u64map *h, uint64_t key, uint32_t *val);
/* Room for n keys in all, so that filling the map does not rehash on the way. */
int cgprop__u64map_reserve(const cgprop_allocator *m, cgprop__u64map *h, size_t n);
/* Insert key -> val unless the key is there; then *found is true, *old its
 * value, and the map is unchanged. One probe where get and put take two. */
int cgprop__u64map_put_new(const cgprop_allocator *m, cgprop__u64map *h, uint64_t key, uint32_t val, uint32_t *old,
                           bool *found);
void cgprop__u64map_free(const cgprop_allocator *m, cgprop__u64map *h);
/* Ask for the slot where key's probe starts: a caller that knows its next
 * keys overlaps their misses. Nothing when the map has no slots yet. */
void cgprop__u64map_prefetch(const cgprop__u64map *h, uint64_t key);

#endif
