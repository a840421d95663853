/* Hashing bytes and 64-bit words: the graph's key index and the writers'
 * name tables. Inline: the readers hash a key per new function. */
#ifndef CGPROP_UTIL_HASH_H
#define CGPROP_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Makes every bit of h depend on every other, so that low bits can index a
 * table. */
static inline uint64_t cgprop__mix64(uint64_t h)
{
    h ^= h >> 32;
    h *= 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29);
}

static inline uint64_t cgprop__hash_bytes(const char *p, size_t len)
{
    /* Eight bytes per step (keys are often 30-60 bytes: object, file and
     * name), each word folded in by a multiply; the tail byte by byte. A
     * final mix makes the low bits, which index the table, depend on all. */
    uint64_t h = 1469598103934665603ull ^ (len * 0xff51afd7ed558ccdull);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    if (i < len && len >= 8) {
        /* The tail as the key's last eight bytes, overlapping the words
         * before: one step instead of up to seven. */
        uint64_t w;
        memcpy(&w, p + len - 8, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    } else {
        for (; i < len; i++) h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
    }
    return cgprop__mix64(h);
}

#endif
