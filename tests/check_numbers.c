/* Number formatting (lib/io/num.c) against an independent method: the C
 * library's correctly rounded %.{1..17}g, read back with strtod. The
 * shortest precision that reads back gives the number of digits and, being
 * correctly rounded, the closest digits of that length. */
#include "io/num.h"

#include <check.h>
#include "ck_quiet.h"
#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double from_bits(uint64_t b)
{
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

static uint64_t to_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* The significant digits of a printed number (no sign, no leading or
 * trailing zeros) and the power of ten of the first one. */
static void sig(const char *s, char *digits, int *e10)
{
    int n = 0, point = -1, lead = 1, first_pos = 0, pos = 0;
    const char *p = s;
    if (*p == '-') p++;
    for (; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            point = pos;
            continue;
        }
        if (lead && *p == '0') {
            pos++;
            continue;
        }
        if (lead) first_pos = pos;
        lead = 0;
        digits[n++] = *p;
        pos++;
    }
    if (point < 0) point = pos;
    while (n > 0 && digits[n - 1] == '0') n--;
    digits[n] = 0;
    *e10 = (point - first_pos - 1) + (*p ? atoi(p + 1) : 0);
}

/* The reference: fewest digits %.*g needs to read back to x. The digits
 * %.*g gives are the closest of their length; when they do not read back,
 * the closest on the other side of x is farther still, so none of that
 * length does, as long as the rounding interval of x is symmetric. */
static int reference(double x, char *out, size_t size)
{
    for (int p = 1; p <= 17; p++) {
        snprintf(out, size, "%.*g", p, x);
        if (to_bits(strtod(out, NULL)) == to_bits(x)) return p;
    }
    return 0;
}

/* At a power of two the interval is lopsided (the neighbour below is half
 * as far), so a string of some length may read back while the closest one
 * of that length does not: try the rounded-down and rounded-up digits too
 * (printf follows the rounding mode), preferring the closest. */
static int reference_full(double x, char *out, size_t size)
{
    char c[3][64];
    const int modes[3] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD};
    for (int p = 1; p <= 17; p++) {
        for (int m = 0; m < 3; m++) {
            fesetround(modes[m]);
            snprintf(c[m], sizeof c[m], "%.*g", p, x);
        }
        fesetround(FE_TONEAREST);
        for (int m = 0; m < 3; m++)
            if (to_bits(strtod(c[m], NULL)) == to_bits(x)) {
                memcpy(out, c[m], size < sizeof c[m] ? size : sizeof c[m]);
                return p;
            }
    }
    return 0;
}

static void check_one(double x)
{
    char got[CGPROP__NUM_MAX + 8], ref[64], lay[64];
    size_t n = cgprop__fmt_double(got, x);
    ck_assert_uint_lt(n, CGPROP__NUM_MAX);
    got[n] = 0;
    /* Reads back bit for bit (the sign of zero too). */
    ck_assert_msg(to_bits(strtod(got, NULL)) == to_bits(x), "%.17g printed as %s", x, got);
    uint64_t b = to_bits(x);
    int lopsided = (b & 0xfffffffffffffu) == 0 && ((b >> 52) & 0x7ff) > 1;
    int p = lopsided ? reference_full(x, ref, sizeof ref) : reference(x, ref, sizeof ref);
    ck_assert_int_gt(p, 0);
    char dg[32], dr[32];
    int eg, er;
    sig(got, dg, &eg);
    sig(ref, dr, &er);
    if (x == 0) return;
    /* As short as the reference, and the same digits (the closest). */
    ck_assert_msg(strlen(dg) == strlen(dr) && !strcmp(dg, dr) && eg == er, "%.17g: %s, reference %s", x, got, ref);
    /* Laid out as %.{max(15, digits)}g lays it out, whenever that prints
     * the same digits. */
    snprintf(lay, sizeof lay, "%.*g", p > 15 ? p : 15, x);
    sig(lay, dr, &er);
    if (!strcmp(dg, dr) && eg == er) ck_assert_msg(!strcmp(got, lay), "%.17g: %s, printf %s", x, got, lay);
}

static void expect(double x, const char *want)
{
    char got[CGPROP__NUM_MAX];
    size_t n = cgprop__fmt_double(got, x);
    got[n] = 0;
    ck_assert_str_eq(got, want);
    check_one(x);
}

/* How many random values a test takes: a twentieth by default, so the suite
 * stays quick (and bearable under valgrind); every one with
 * CGPROP_NUMBERS_FULL=1, as the "scale" test numbers_full runs it. */
static int reps(int full)
{
    const char *e = getenv("CGPROP_NUMBERS_FULL");
    return e && e[0] == '1' ? full : full / 20;
}

START_TEST(test_known)
{
    /* Worked out by hand or well known (Python's repr, JavaScript). */
    expect(0.0, "0");
    expect(-0.0, "-0");
    expect(1.0, "1");
    expect(-1.5, "-1.5");
    expect(100.0, "100");
    expect(123456.0, "123456");
    expect(0.1, "0.1");
    expect(0.1 + 0.2, "0.30000000000000004");
    expect(1.0 / 3, "0.3333333333333333");
    expect(2.0 / 3, "0.6666666666666666");
    expect(0.0001, "0.0001");
    expect(0.00001, "1e-05");
    expect(1e15, "1e+15");
    expect(1e15 - 1, "999999999999999");
    expect(1.5e15, "1.5e+15");
    expect(1e21, "1e+21");
    expect(1e23, "1e+23");
    expect(9007199254740992.0, "9007199254740992"); /* 2^53 */
    expect(9007199254740994.0, "9007199254740994");
    expect(18446744073709551616.0, "1.8446744073709552e+19"); /* 2^64 */
    expect(DBL_MAX, "1.7976931348623157e+308");
    expect(DBL_MIN, "2.2250738585072014e-308");
    expect(5e-324, "5e-324");
    expect(from_bits(0x000fffffffffffffu), "2.225073858507201e-308"); /* largest subnormal */
    expect(1e-300, "1e-300");
    expect(123.456, "123.456");
    expect(5e-7, "5e-07");
    expect(1e100, "1e+100");
    /* Python's repr agrees on these (one digit fewer than the rounding of
     * 17 digits; 17 digits; a fraction above 10^15; subnormal multiples). */
    expect(0.3, "0.3");
    expect(0.1 + 0.7, "0.7999999999999999");
    expect(9223372036854775808.0, "9.223372036854776e+18"); /* 2^63 */
    expect(123456789012345678.0, "1.2345678901234568e+17");
    expect(1e15 + 0.3, "1000000000000000.2");
    expect(3 * 5e-324, "1.5e-323");
    expect(1e-7, "1e-07");
    expect(4.35, "4.35");
}
END_TEST

START_TEST(test_special)
{
    /* Powers of ten and of two, with their neighbours: the boundary cases
     * (an uneven rounding interval at each power of two). */
    for (int e = -323; e <= 308; e++) {
        char b[16];
        snprintf(b, sizeof b, "1e%d", e);
        double x = strtod(b, NULL);
        check_one(x);
        check_one(nextafter(x, 0));
        check_one(nextafter(x, INFINITY));
        check_one(-x);
    }
    for (int e = -1074; e <= 1023; e++) {
        double x = ldexp(1.0, e);
        check_one(x);
        check_one(nextafter(x, 0));
        if (e < 1023) check_one(nextafter(x, INFINITY));
    }
    /* Integers above 2^53 and around 10^15..10^17, where the layout turns. */
    uint64_t s = 7;
    for (int i = 0; i < reps(200000); i++) {
        uint64_t r = splitmix(&s);
        check_one((double)(r >> (r & 15)));
        check_one((double)(999999999999000u + (r % 2000000)));
        check_one((double)(9007199254740992u + (r % 100000) * 2));
    }
    check_one(DBL_MAX);
    check_one(nextafter(DBL_MAX, 0));
    check_one(DBL_MIN);
    check_one(nextafter(DBL_MIN, 0));
    check_one(-DBL_MAX);
}
END_TEST

START_TEST(test_random_bits)
{
    /* Any bit pattern but NaN and the infinities. */
    uint64_t s = 42;
    for (int i = 0; i < reps(1000000); i++) {
        uint64_t b = splitmix(&s);
        if (((b >> 52) & 0x7ff) == 0x7ff) continue;
        check_one(from_bits(b));
    }
}
END_TEST

START_TEST(test_random_figures)
{
    /* The figures a report holds: shares, ratios of costs, decimals. */
    uint64_t s = 3;
    for (int i = 0; i < reps(400000); i++) {
        uint64_t a = splitmix(&s), b = splitmix(&s);
        check_one((double)(a % 1000000007u) / (double)(b % 1000000007u + 1));
        check_one((double)(a % 100000) / 100.0);
        check_one((double)a / (double)(b | 1) * 1e-6);
    }
}
END_TEST

START_TEST(test_subnormals_decimals)
{
    /* The smallest subnormals one by one (few significant bits, where the
     * digit count is smallest), then random ones. */
    for (uint64_t c = 1; c <= (uint64_t)reps(100000); c++) check_one(from_bits(c));
    uint64_t s = 11;
    for (int i = 0; i < reps(100000); i++) check_one(from_bits(splitmix(&s) & 0x000fffffffffffffu));
    /* Decimals of 1 to 17 significant digits at any exponent, read by
     * strtod: the doubles nearest short decimals, where one digit fewer
     * than the interval's scale often reads back, and the decimal can sit
     * on an end of the rounding interval. */
    for (int i = 0; i < reps(400000); i++) {
        uint64_t r = splitmix(&s);
        int nd = 1 + (int)(r % 17);
        uint64_t d = splitmix(&s) % 100000000000000000u;
        for (int j = nd; j < 17; j++) d /= 10;
        char b[48];
        snprintf(b, sizeof b, "%llue%d", (unsigned long long)d, (int)((r >> 8) % 640) - 340);
        double x = strtod(b, NULL);
        if (isfinite(x)) check_one(x);
    }
}
END_TEST

START_TEST(test_u64)
{
    uint64_t s = 9;
    char got[CGPROP__NUM_MAX], want[32];
    const uint64_t fixed[] = {0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 4294967295u, 4294967296u, UINT64_MAX};
    for (int i = 0; i < 13 + reps(1000000); i++) {
        uint64_t x = i < 13 ? fixed[i] : splitmix(&s) >> (i % 64);
        size_t n = cgprop__fmt_u64(got, x);
        got[n] = 0;
        snprintf(want, sizeof want, "%llu", (unsigned long long)x);
        ck_assert_str_eq(got, want);
    }
    size_t n = cgprop__fmt_u64(got, UINT64_MAX);
    got[n] = 0;
    ck_assert_str_eq(got, "18446744073709551615");
}
END_TEST

/* The views' fixed-point figures against printf itself, into the same
 * 48 bytes: integers and halves (the ties), hundredths near a tie, costs,
 * shares, percentages, negatives and -0, the edges of the fast path
 * (2^52, 2^53), figures too long for the buffer, NaN and infinities. */
static void fixed_case(double x)
{
    char got[CGPROP__FIXED_MAX], want[CGPROP__FIXED_MAX];
    for (int d = 0; d <= 2; d += 2) {
        memset(got, 'x', sizeof got);
        size_t n = cgprop__fmt_fixed(got, x, d);
        snprintf(want, sizeof want, d ? "%.2f" : "%.0f", x);
        ck_assert_msg(strcmp(got, want) == 0 && n == strlen(want), "%.17g with %d decimals: got %s, want %s", x, d,
                      got, want);
    }
}

START_TEST(test_fixed)
{
    const double fixed[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 0.4, -0.4, 0.125, 0.005, 0.015, 0.025, 0.045,
                            1.005, 99.995, 100.0, 12.345, -12.345, 4503599627370495.5, 4503599627370496.0,
                            9007199254740991.0, 9007199254740992.0, 9007199254740993.0, 1e15, 1e19, 1.8e19,
                            -1e20, 1e300, -1e300, DBL_MAX, DBL_MIN, 5e-324, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) fixed_case(fixed[i]);
    uint64_t s = 11;
    for (int i = 0; i < reps(1000000); i++) {
        uint64_t r = splitmix(&s);
        double x;
        switch (i % 6) {
        case 0: x = (double)(r >> (r % 64)); break;                          /* integers, any size */
        case 1: x = (double)(r >> 40) / 2.0; break;                           /* halves */
        case 2: x = (double)(r >> 44) / 100.0 + 0.005; break;                 /* near a hundredth's tie */
        case 3: x = 100.0 * (double)(r >> 11) / 9007199254740992.0; break;  /* a percentage */
        case 4: x = (double)(r >> 20) * ((double)(r & 0xffff) / 65536.0); break; /* a cost times a share */
        default: x = from_bits(r); break;                                    /* any bits */
        }
        if (r & 1u << 20) x = -x;
        fixed_case(x);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("numbers");
    TCase *tc = tcase_create("numbers");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_known);
    tcase_add_test(tc, test_special);
    tcase_add_test(tc, test_random_bits);
    tcase_add_test(tc, test_random_figures);
    tcase_add_test(tc, test_subnormals_decimals);
    tcase_add_test(tc, test_u64);
    tcase_add_test(tc, test_fixed);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
