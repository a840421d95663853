/* Number formatting for the writers. Integers go through an integer path;
 * doubles through Grisu3 (Loitsch, "Printing floating-point numbers quickly
 * and accurately with integers", PLDI 2010), which finds the shortest digits
 * that read back to the double, closest to it, with 64-bit integer
 * arithmetic only, and says so when it cannot be sure (about 0.5 % of random
 * doubles, almost never a cost or a share): those few take the slow exact
 * route through the C library. The table of powers of ten and the code are
 * written for this project from the paper. */
#include "num.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char digit_pairs[200] =
    "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243444546474849"
    "5051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899";

size_t cgprop__fmt_u64(char *buf, uint64_t x)
{
    /* Count the digits first, then write them from the end straight into
     * buf, two per division. */
    if (x < 10) {
        buf[0] = (char)('0' + x);
        return 1;
    }
#if defined(__GNUC__)
    /* From the bit length: 1233 / 4096 is just above log10(2), so t is the
     * digit count or one more; one comparison settles it. */
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
    unsigned t = ((unsigned)(64 - __builtin_clzll(x)) * 1233u) >> 12;
    size_t n = (size_t)t + (x >= p10[t]);
#else
    size_t n = 1;
    for (uint64_t p = 10; n < 20 && x >= p; p *= 10) n++;
#endif
    char *o = buf + n;
    while (x >= 100) {
        unsigned r = (unsigned)(x % 100);
        x /= 100;
        o -= 2;
        memcpy(o, digit_pairs + 2 * r, 2);
    }
    if (x >= 10) {
        o -= 2;
        memcpy(o, digit_pairs + 2 * x, 2);
    } else {
        *--o = (char)('0' + x);
    }
    return n;
}

/* ---- Grisu3 ---- */

/* f × 2^e */
typedef struct diyfp {
    uint64_t f;
    int e;
} diyfp;

/* 10^k for k = -348, -340, ..., 340 as a 64-bit significand with its top
 * bit set, rounded to nearest, and its binary exponent: 10^k ≈ f × 2^e.
 * Steps of 8 decimal digits (26.6 bits) fit inside the 28-bit window the
 * digit generation needs, so one entry always fits. Computed exactly with
 * rational arithmetic: e = the exponent putting 10^k / 2^e in [2^63, 2^64),
 * f = 10^k / 2^e rounded to nearest, ties to even. */
static const struct {
    uint64_t f;
    int16_t e;
    int16_t k;
} pow10_cache[] = {
    {0xfa8fd5a0081c0288u, -1220, -348},
    {0xbaaee17fa23ebf76u, -1193, -340},
    {0x8b16fb203055ac76u, -1166, -332},
    {0xcf42894a5dce35eau, -1140, -324},
    {0x9a6bb0aa55653b2du, -1113, -316},
    {0xe61acf033d1a45dfu, -1087, -308},
    {0xab70fe17c79ac6cau, -1060, -300},
    {0xff77b1fcbebcdc4fu, -1034, -292},
    {0xbe5691ef416bd60cu, -1007, -284},
    {0x8dd01fad907ffc3cu, -980, -276},
    {0xd3515c2831559a83u, -954, -268},
    {0x9d71ac8fada6c9b5u, -927, -260},
    {0xea9c227723ee8bcbu, -901, -252},
    {0xaecc49914078536du, -874, -244},
    {0x823c12795db6ce57u, -847, -236},
    {0xc21094364dfb5637u, -821, -228},
    {0x9096ea6f3848984fu, -794, -220},
    {0xd77485cb25823ac7u, -768, -212},
    {0xa086cfcd97bf97f4u, -741, -204},
    {0xef340a98172aace5u, -715, -196},
    {0xb23867fb2a35b28eu, -688, -188},
    {0x84c8d4dfd2c63f3bu, -661, -180},
    {0xc5dd44271ad3cdbau, -635, -172},
    {0x936b9fcebb25c996u, -608, -164},
    {0xdbac6c247d62a584u, -582, -156},
    {0xa3ab66580d5fdaf6u, -555, -148},
    {0xf3e2f893dec3f126u, -529, -140},
    {0xb5b5ada8aaff80b8u, -502, -132},
    {0x87625f056c7c4a8bu, -475, -124},
    {0xc9bcff6034c13053u, -449, -116},
    {0x964e858c91ba2655u, -422, -108},
    {0xdff9772470297ebdu, -396, -100},
    {0xa6dfbd9fb8e5b88fu, -369, -92},
    {0xf8a95fcf88747d94u, -343, -84},
    {0xb94470938fa89bcfu, -316, -76},
    {0x8a08f0f8bf0f156bu, -289, -68},
    {0xcdb02555653131b6u, -263, -60},
    {0x993fe2c6d07b7facu, -236, -52},
    {0xe45c10c42a2b3b06u, -210, -44},
    {0xaa242499697392d3u, -183, -36},
    {0xfd87b5f28300ca0eu, -157, -28},
    {0xbce5086492111aebu, -130, -20},
    {0x8cbccc096f5088ccu, -103, -12},
    {0xd1b71758e219652cu, -77, -4},
    {0x9c40000000000000u, -50, 4},
    {0xe8d4a51000000000u, -24, 12},
    {0xad78ebc5ac620000u, 3, 20},
    {0x813f3978f8940984u, 30, 28},
    {0xc097ce7bc90715b3u, 56, 36},
    {0x8f7e32ce7bea5c70u, 83, 44},
    {0xd5d238a4abe98068u, 109, 52},
    {0x9f4f2726179a2245u, 136, 60},
    {0xed63a231d4c4fb27u, 162, 68},
    {0xb0de65388cc8ada8u, 189, 76},
    {0x83c7088e1aab65dbu, 216, 84},
    {0xc45d1df942711d9au, 242, 92},
    {0x924d692ca61be758u, 269, 100},
    {0xda01ee641a708deau, 295, 108},
    {0xa26da3999aef774au, 322, 116},
    {0xf209787bb47d6b85u, 348, 124},
    {0xb454e4a179dd1877u, 375, 132},
    {0x865b86925b9bc5c2u, 402, 140},
    {0xc83553c5c8965d3du, 428, 148},
    {0x952ab45cfa97a0b3u, 455, 156},
    {0xde469fbd99a05fe3u, 481, 164},
    {0xa59bc234db398c25u, 508, 172},
    {0xf6c69a72a3989f5cu, 534, 180},
    {0xb7dcbf5354e9beceu, 561, 188},
    {0x88fcf317f22241e2u, 588, 196},
    {0xcc20ce9bd35c78a5u, 614, 204},
    {0x98165af37b2153dfu, 641, 212},
    {0xe2a0b5dc971f303au, 667, 220},
    {0xa8d9d1535ce3b396u, 694, 228},
    {0xfb9b7cd9a4a7443cu, 720, 236},
    {0xbb764c4ca7a44410u, 747, 244},
    {0x8bab8eefb6409c1au, 774, 252},
    {0xd01fef10a657842cu, 800, 260},
    {0x9b10a4e5e9913129u, 827, 268},
    {0xe7109bfba19c0c9du, 853, 276},
    {0xac2820d9623bf429u, 880, 284},
    {0x80444b5e7aa7cf85u, 907, 292},
    {0xbf21e44003acdd2du, 933, 300},
    {0x8e679c2f5e44ff8fu, 960, 308},
    {0xd433179d9c8cb841u, 986, 316},
    {0x9e19db92b4e31ba9u, 1013, 324},
    {0xeb96bf6ebadf77d9u, 1039, 332},
    {0xaf87023b9bf0ee6bu, 1066, 340},
};

/* The upper 64 bits of the 128-bit product, rounded: an error of at most
 * half a unit, which the digit generation's unsafe interval accounts for. */
static diyfp fp_mul(diyfp x, diyfp y)
{
    const uint64_t m32 = 0xffffffffu;
    uint64_t a = x.f >> 32, b = x.f & m32, c = y.f >> 32, d = y.f & m32;
    uint64_t ac = a * c, bc = b * c, ad = a * d, bd = b * d;
    uint64_t mid = (bd >> 32) + (ad & m32) + (bc & m32) + (1u << 31);
    diyfp r = {ac + (ad >> 32) + (bc >> 32) + (mid >> 32), x.e + y.e + 64};
    return r;
}

static diyfp fp_normalize(diyfp x)
{
#if defined(__GNUC__)
    int s = __builtin_clzll(x.f);
    x.f <<= s;
    x.e -= s;
#else
    while (!(x.f >> 63)) {
        x.f <<= 1;
        x.e--;
    }
#endif
    return x;
}

/* Move the last digit down while that brings the number closer to w and
 * stays inside the safe interval; then say whether the result is certainly
 * the closest shortest one. Distances are from too_high, in units of
 * 2^-e × @p unit; @p rest is too_high minus the digits, @p ten_kappa the
 * weight of the last digit. */
static int round_weed(char *buf, int len, uint64_t dist_high_w, uint64_t unsafe, uint64_t rest,
                      uint64_t ten_kappa, uint64_t unit)
{
    uint64_t small_dist = dist_high_w - unit; /* to the highest w may be */
    uint64_t big_dist = dist_high_w + unit;   /* to the lowest w may be */
    while (rest < small_dist && unsafe - rest >= ten_kappa &&
           (rest + ten_kappa < small_dist || small_dist - rest >= rest + ten_kappa - small_dist)) {
        buf[len - 1]--;
        rest += ten_kappa;
    }
    /* Had w been its lowest possible value, would one more step have been
     * closer? Then the choice depends on the error: give up. */
    if (rest < big_dist && unsafe - rest >= ten_kappa &&
        (rest + ten_kappa < big_dist || big_dist - rest > rest + ten_kappa - big_dist))
        return 0;
    /* The digits must lie inside the interval whatever the error. */
    return 2 * unit <= rest && rest <= unsafe - 4 * unit;
}

/* Digits of a number inside (low, high), as few as possible, from the top
 * of the widened interval; *kappa: the power of ten of the last digit
 * relative to the scaled numbers. */
static int digit_gen(diyfp low, diyfp w, diyfp high, char *buf, int *len, int *kappa)
{
    uint64_t unit = 1;
    uint64_t too_high = high.f + unit;
    uint64_t unsafe = too_high - (low.f - unit);
    int sh = -w.e; /* 32 .. 60 */
    uint64_t one = (uint64_t)1 << sh;
    uint32_t integrals = (uint32_t)(too_high >> sh);
    uint64_t fractionals = too_high & (one - 1);
    static const uint32_t pow10[10] = {1,      10,      100,      1000,      10000,
                                       100000, 1000000, 10000000, 100000000, 1000000000};
    /* The integral digits all at once (divisions by a constant), then the
     * remainder after each prefix by multiplication: a division by a
     * varying power of ten per digit costs more than the rest together. */
    char idig[20];
    int k = (int)cgprop__fmt_u64(idig, integrals);
    uint32_t prefix = 0;
    int n = 0;
    for (int j = 0; k > 0; j++) {
        buf[n++] = idig[j];
        prefix = prefix * 10 + (uint32_t)(idig[j] - '0');
        k--;
        uint64_t rest = ((uint64_t)(integrals - prefix * pow10[k]) << sh) + fractionals;
        if (rest < unsafe) {
            *len = n;
            *kappa = k;
            return round_weed(buf, n, too_high - w.f, unsafe, rest, (uint64_t)pow10[k] << sh, unit);
        }
    }
    for (;;) {
        fractionals *= 10;
        unit *= 10;
        unsafe *= 10;
        buf[n++] = (char)('0' + (fractionals >> sh));
        fractionals &= one - 1;
        k--;
        if (fractionals < unsafe) {
            *len = n;
            *kappa = k;
            return round_weed(buf, n, (too_high - w.f) * unit, unsafe, fractionals, one, unit);
        }
    }
}

/* The shortest digits of a positive finite v: v ≈ digits × 10^*dexp. 0 when
 * Grisu3 cannot be sure. */
static int grisu3(double v, char *buf, int *len, int *dexp)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint64_t frac = bits & (((uint64_t)1 << 52) - 1);
    int bexp = (int)((bits >> 52) & 0x7ff);
    diyfp w;
    if (bexp) {
        w.f = frac | ((uint64_t)1 << 52);
        w.e = bexp - 1075;
    } else {
        w.f = frac;
        w.e = -1074;
    }
    /* The rounding interval: halfway to each neighbour. At a power of two
     * (not the smallest normal) the neighbour below is half as far. */
    diyfp mp = {(w.f << 1) + 1, w.e - 1};
    diyfp mm;
    if (frac == 0 && bexp > 1) {
        mm.f = (w.f << 2) - 1;
        mm.e = w.e - 2;
    } else {
        mm.f = (w.f << 1) - 1;
        mm.e = w.e - 1;
    }
    mp = fp_normalize(mp);
    mm.f <<= mm.e - mp.e;
    mm.e = mp.e;
    w = fp_normalize(w); /* same exponent as mp: one bit fewer, one shift more */

    /* A power of ten c with -60 <= mp.e + c.e + 64 <= -32, so the scaled
     * numbers have 4 to 32 integral bits. */
    const int n_cache = (int)(sizeof pow10_cache / sizeof pow10_cache[0]);
    int i = (int)(((-47 - mp.e) * 0.30102999566398114 + 348) / 8);
    if (i < 0) i = 0;
    if (i >= n_cache) i = n_cache - 1;
    while (i + 1 < n_cache && mp.e + pow10_cache[i].e + 64 < -60) i++;
    while (i > 0 && mp.e + pow10_cache[i].e + 64 > -32) i--;
    diyfp c = {pow10_cache[i].f, pow10_cache[i].e};
    int kappa;
    int ok = digit_gen(fp_mul(mm, c), fp_mul(w, c), fp_mul(mp, c), buf, len, &kappa);
    *dexp = kappa - pow10_cache[i].k;
    return ok;
}

/* The exact route: the fewest significant digits %.*e needs to read back,
 * which the C library rounds correctly (closest). Grisu3's digit generation
 * has already ruled out anything shorter than its @p len digits (no number
 * that short lies even in its widened interval), so the search starts
 * there: one or two conversions, not seventeen. */
static void shortest_libc(double v, char *buf, int *len, int *dexp)
{
    char b[40];
    int p = *len >= 1 && *len <= 17 ? *len : 1;
    for (; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*e", p - 1, v);
        if (p == 17 || strtod(b, NULL) == v) break;
    }
    /* b is d[.ddd]e±X */
    int n = 0;
    const char *s = b;
    for (; *s != 'e'; s++)
        if (*s != '.') buf[n++] = *s;
    int e = atoi(s + 1);
    while (n > 1 && buf[n - 1] == '0') n--;
    *len = n;
    *dexp = e - (n - 1);
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

    char d[24];
    int n, dexp;
    if (!grisu3(x, d, &n, &dexp)) shortest_libc(x, d, &n, &dexp);
    int E = n + dexp - 1; /* the exponent of the first digit */
    int P = n > 15 ? n : 15;
    if (E >= -4 && E < P) {
        if (dexp >= 0) {
            memcpy(o, d, (size_t)n);
            memset(o + n, '0', (size_t)dexp);
            o += n + dexp;
        } else if (E >= 0) {
            memcpy(o, d, (size_t)E + 1);
            o += E + 1;
            *o++ = '.';
            memcpy(o, d + E + 1, (size_t)(n - E - 1));
            o += n - E - 1;
        } else {
            *o++ = '0';
            *o++ = '.';
            memset(o, '0', (size_t)(-E - 1));
            o += -E - 1;
            memcpy(o, d, (size_t)n);
            o += n;
        }
    } else {
        *o++ = d[0];
        if (n > 1) {
            *o++ = '.';
            memcpy(o, d + 1, (size_t)n - 1);
            o += n - 1;
        }
        *o++ = 'e';
        *o++ = E < 0 ? '-' : '+';
        unsigned ae = (unsigned)(E < 0 ? -E : E);
        if (ae >= 100) *o++ = (char)('0' + ae / 100);
        memcpy(o, digit_pairs + 2 * (ae % 100), 2);
        o += 2;
    }
    return (size_t)(o - out);
}
