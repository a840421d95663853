/* Number formatting for the writers. Integers go through an integer path;
 * doubles through a shortest-digit formatter after Schubfach (R. Giulietti,
 * "The Schubfach way to render doubles", 2020): the double's rounding
 * interval scaled by one 128-bit power of ten, three products rounded to
 * odd, and at most two candidates to compare. It is exact for every double
 * (no fallback) and yields the shortest digits that read back, the closest
 * to the double among them. The code is written for this project from the
 * paper; the table comes from scripts/gen-pow10.py. */
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pow10_128.h"

const char cgprop__digit_pairs[200] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

/* ---- shortest digits ---- */

/* The top 64 bits of g × cp / 2^128 (g: 128 bits, high half first), rounded
 * to odd: the lowest bit is set when anything below was dropped. The
 * formatter compares these against exact multiples of 4, where rounding to
 * odd keeps every comparison the exact product would give. Below the top
 * bits only the high 64 of g's low product count, and a remainder of one
 * unit is g's own rounding up, not the value's. */
static uint64_t rop(const uint64_t g[2], uint64_t cp)
{
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128;
    u128 x = (u128)g[1] * cp;
    u128 y = (u128)g[0] * cp;
    u128 z = (y & UINT64_MAX) + (x >> 64);
    uint64_t hi = (uint64_t)(y >> 64) + (uint64_t)(z >> 64);
    return hi | ((uint64_t)z > 1);
#else
    /* The same with 32-bit halves. */
    const uint64_t m32 = 0xffffffffu;
    uint64_t c1 = cp >> 32, c0 = cp & m32;
    uint64_t xh, yh, yl;
    {
        uint64_t a = g[1] >> 32, b = g[1] & m32;
        uint64_t bd = b * c0, ad = a * c0, bc = b * c1, ac = a * c1;
        uint64_t mid = (bd >> 32) + (ad & m32) + (bc & m32);
        xh = ac + (ad >> 32) + (bc >> 32) + (mid >> 32);
    }
    {
        uint64_t a = g[0] >> 32, b = g[0] & m32;
        uint64_t bd = b * c0, ad = a * c0, bc = b * c1, ac = a * c1;
        uint64_t mid = (bd >> 32) + (ad & m32) + (bc & m32);
        yh = ac + (ad >> 32) + (bc >> 32) + (mid >> 32);
        yl = (mid << 32) | (bd & m32);
    }
    uint64_t z = yl + xh;
    uint64_t hi = yh + (z < xh);
    return hi | (z > 1);
#endif
}

/* The shortest digits of a positive finite double, closest to it: it is
 * f × 10^*e10 on return (f may end in zeros). */
static uint64_t shortest(uint64_t bits, int *e10)
{
    uint64_t m = bits & (((uint64_t)1 << 52) - 1);
    int be = (int)(bits >> 52);
    uint64_t c = be ? m | (uint64_t)1 << 52 : m;
    int q = be ? be - 1075 : -1074; /* the double is c × 2^q */
    /* The rounding interval is c ± 1/2 in units of 2^q, but only -1/4
     * below a power of two (the neighbour below is half as far). Scaled by
     * 10^-k, k = floor(log10 of the interval's width), the width lies in
     * [1, 10): it holds at most one multiple of 10 and at least one
     * integer. The shifts floor the products (checked for every exponent
     * by scripts/gen-pow10.py). */
    int lopsided = m == 0 && be > 1;
    int k = (q * 315653 - (lopsided ? 131237 : 0)) >> 20;
    int h = q + ((-k * 1741647) >> 19) + 1; /* 1 .. 4 */
    const uint64_t *g = cgprop__pow10_128[-k - CGPROP__POW10_MIN];
    /* 4 × the double and its interval's ends, scaled. An end reads back to
     * the double (round half to even) only when c is even. */
    uint64_t cb = c << 2, odd = c & 1;
    uint64_t vb = rop(g, cb << h);
    uint64_t lo = rop(g, (cb - 2 + (uint64_t)lopsided) << h) + odd;
    uint64_t hi = rop(g, (cb + 2) << h) - odd;
    uint64_t s = vb >> 2;
    /* A number one digit shorter: a multiple of 10 inside; there is at
     * most one, so it is also the closest of its length. Else s or s + 1,
     * whichever is inside; both: the closer, ties to even. All of it is
     * computed and then selected: which case applies varies from one
     * figure to the next, and a mispredicted branch costs more. */
    uint64_t sp = s / 10;
    int up_in = lo <= 40 * sp, wp_in = 40 * sp + 40 <= hi;
    int u_in = lo <= 4 * s, w_in = 4 * s + 4 <= hi;
    uint64_t mid = 4 * s + 2;
    uint64_t near = s + (uint64_t)((vb > mid) | ((vb == mid) & (int)(s & 1)));
    uint64_t one = u_in != w_in ? s + (uint64_t)w_in : near;
    int shorter = (s >= 10) & (up_in != wp_in);
    *e10 = k + shorter;
    return shorter ? sp + (uint64_t)wp_in : one;
}

/* Number of decimal digits of x > 0: from the bit length, since 1233 /
 * 4096 is just above log10(2), t is the count or one less, and one
 * comparison settles it. */
static int ndigits(uint64_t x)
{
    static const uint64_t p10[20] = {1u,
                                     10u,
                                     100u,
                                     1000u,
                                     10000u,
                                     100000u,
                                     1000000u,
                                     10000000u,
                                     100000000u,
                                     1000000000u,
                                     10000000000u,
                                     100000000000u,
                                     1000000000000u,
                                     10000000000000u,
                                     100000000000000u,
                                     1000000000000000u,
                                     10000000000000000u,
                                     100000000000000000u,
                                     1000000000000000000u,
                                     10000000000000000000u};
#if defined(__GNUC__)
    unsigned t = ((unsigned)(64 - __builtin_clzll(x)) * 1233u) >> 12;
    return (int)t + (x >= p10[t]);
#else
    int n = 1;
    while (n < 20 && x >= p10[n]) n++;
    return n;
#endif
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The 8 digits of x < 10^8 as 8 ASCII bytes in one word, the first digit
 * in the lowest byte: x split in two 4-digit lanes, each lane in two
 * 2-digit lanes, each of those in two digits, every step one multiply for
 * all lanes at once (n × 10486 >> 20 is n / 100 below 10^4, n × 103 >> 10
 * is n / 10 below 100, and no lane spills into the next). */
static uint64_t swar8(uint32_t x)
{
    uint64_t v = (uint64_t)(x / 10000) | (uint64_t)(x % 10000) << 32;
    uint64_t hi = ((v * 10486u) >> 20) & 0x0000007f0000007fu;
    v = hi | (v - 100 * hi) << 16;
    hi = ((v * 103u) >> 10) & 0x000f000f000f000fu;
    v = hi | (v - 10 * hi) << 8;
    return v + 0x3030303030303030u;
}

/* The last n (1 .. 8) of those digits at p; the 8 - n bytes after them
 * are overwritten too. */
static void put_last(char *p, uint32_t x, int n)
{
    uint64_t v = swar8(x) >> (8 * (8 - n));
    memcpy(p, &v, 8);
}

static void put8(char *p, uint32_t x)
{
    uint64_t v = swar8(x);
    memcpy(p, &v, 8);
}
#else
static void put8(char *p, uint32_t x)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (char)('0' + x % 10);
        x /= 10;
    }
}

static void put_last(char *p, uint32_t x, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        p[i] = (char)('0' + x % 10);
        x /= 10;
    }
}
#endif

/* The n = ndigits(x) digits of x at p, in 8-digit pieces; up to 8 bytes
 * after them may be overwritten (the callers' CGPROP__NUM_MAX leaves
 * room). */
static void put_digits(char *p, uint64_t x, int n)
{
    if (n <= 4) {
        /* Short ones (most ids and counts) by the pair table: fewer steps
         * than the word. */
        uint32_t y = (uint32_t)x;
        if (n <= 2) {
            if (n == 1)
                p[0] = (char)('0' + y);
            else
                memcpy(p, cgprop__digit_pairs + 2 * y, 2);
        } else {
            uint32_t a = y / 100, b = y % 100;
            if (n == 3)
                p[0] = (char)('0' + a);
            else
                memcpy(p, cgprop__digit_pairs + 2 * a, 2);
            memcpy(p + n - 2, cgprop__digit_pairs + 2 * b, 2);
        }
    } else if (n <= 8) {
        put_last(p, (uint32_t)x, n);
    } else if (n <= 17) {
        /* 9 .. 17 digits (every double's): the low 8, then the n - 8 <=
         * 9 above them without a branch on n, the ninth written first and
         * overwritten when there is none. */
        uint64_t top = x / 100000000;
        uint32_t t1 = (uint32_t)(top / 100000000), t0 = (uint32_t)(top - (uint64_t)t1 * 100000000);
        int extra = n == 17;
        p[0] = (char)('0' + t1);
        put_last(p + extra, t0, n - 8 - extra);
        put8(p + n - 8, (uint32_t)(x - top * 100000000));
    } else {
        uint64_t top = x / 10000000000000000u, rest = x - top * 10000000000000000u;
        uint64_t mid = rest / 100000000;
        put_last(p, (uint32_t)top, n - 16);
        put8(p + n - 16, (uint32_t)mid);
        put8(p + n - 8, (uint32_t)(rest - mid * 100000000));
    }
}

size_t cgprop__fmt_u64(char *buf, uint64_t x)
{
    if (x < 10) {
        buf[0] = (char)('0' + x);
        return 1;
    }
    int n = ndigits(x);
    put_digits(buf, x, n);
    return (size_t)n;
}

size_t cgprop__fmt_double(char *out, double x)
{
    char *o = out;
    if (x < 0 || (x == 0 && 1 / x < 0)) {
        *o++ = '-';
        x = -x;
    }
    if (x == 0) {
        *o++ = '0';
        return (size_t)(o - out);
    }
    /* Integers below 10^15 (most costs): their digits are the shortest
     * (doubles there are closer than 1 apart), and %.15g shows them whole. */
    if (x < 1e15) {
        int64_t i = (int64_t)x; /* the signed conversion is one instruction */
        if ((double)i == x) return (size_t)(o - out) + cgprop__fmt_u64(o, (uint64_t)i);
    }

    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int dexp;
    uint64_t f = shortest(bits, &dexp);
    /* Drop the trailing zeros (most fractions have none). */
    if (f % 10 == 0) {
        if (f % 100000000 == 0) {
            f /= 100000000;
            dexp += 8;
        }
        if (f % 10000 == 0) {
            f /= 10000;
            dexp += 4;
        }
        if (f % 100 == 0) {
            f /= 100;
            dexp += 2;
        }
        if (f % 10 == 0) {
            f /= 10;
            dexp += 1;
        }
    }
    int n = ndigits(f);
    int E = n + dexp - 1; /* the exponent of the first digit */
    int P = n > 15 ? n : 15;
    /* The layout of %.Pg; the caller's CGPROP__NUM_MAX bytes leave room
     * for the fixed-size stores. */
    if (E >= -4 && E < P) {
        if (dexp >= 0) {
            put_digits(o, f, n);
            memset(o + n, '0', 16); /* dexp <= 14 */
            o += n + dexp;
        } else if (E >= 0) {
            /* The integral digits moved one byte left: bytes, since a
             * wider load of what was just stored in pairs would wait for
             * those stores to complete. */
            put_digits(o + 1, f, n);
            for (int i = 0; i <= E; i++) o[i] = o[i + 1];
            o[E + 1] = '.';
            o += n + 1;
        } else {
            memcpy(o, "0.0000", 6);
            put_digits(o + 1 - E, f, n);
            o += 1 - E + n;
        }
    } else {
        put_digits(o + 1, f, n);
        o[0] = o[1];
        if (n > 1) {
            o[1] = '.';
            o += n + 1;
        } else {
            o += 1;
        }
        *o++ = 'e';
        *o++ = E < 0 ? '-' : '+';
        unsigned ae = (unsigned)(E < 0 ? -E : E);
        if (ae >= 100) *o++ = (char)('0' + ae / 100);
        memcpy(o, cgprop__digit_pairs + 2 * (ae % 100), 2);
        o += 2;
    }
    return (size_t)(o - out);
}

/* Without printf where that is exact: below 2^53 in magnitude the nearest
 * integer of a double (ties to even, as printf rounds the exact value in
 * the default rounding mode) is itself a double, converted exactly. For
 * two decimals, x·100 is off x's exact hundredfold by half an ulp at most:
 * its rounding is x's unless its fraction lies within 1e-6 of a half (the
 * product's error is far below that at these magnitudes), and then printf
 * decides. */
size_t cgprop__fmt_fixed(char *buf, double x, int decimals)
{
    double y = decimals ? x * 100.0 : x;
    if (!(fabs(y) < 4503599627370496.0)) {
        int n = snprintf(buf, CGPROP__FIXED_MAX, decimals ? "%.2f" : "%.0f", x);
        return n < 0 ? 0 : (size_t)n < CGPROP__FIXED_MAX ? (size_t)n : CGPROP__FIXED_MAX - 1;
    }
    double a = fabs(y), fl = floor(a), fr = a - fl;
    uint64_t c;
    if (!decimals) {
        c = (uint64_t)nearbyint(a);
    } else {
        if (fabs(fr - 0.5) < 1e-6) return (size_t)snprintf(buf, CGPROP__FIXED_MAX, "%.2f", x);
        c = (uint64_t)fl + (fr > 0.5);
    }
    size_t n = 0;
    if (signbit(x)) buf[n++] = '-'; /* "-0" for a negative that rounds to 0, as printf */
    if (!decimals) {
        n += cgprop__fmt_u64(buf + n, c);
    } else {
        n += cgprop__fmt_u64(buf + n, c / 100);
        buf[n++] = '.';
        buf[n++] = (char)('0' + c / 10 % 10);
        buf[n++] = (char)('0' + c % 10);
    }
    buf[n] = 0;
    return n;
}
