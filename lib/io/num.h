/* Private: number formatting for the writers (lib/io/num.c). Both functions
 * write into a caller's buffer, never allocate and return the length. */
#ifndef CGPROP_IO_NUM_H
#define CGPROP_IO_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Room enough for any output of the two functions below: the caller's
 * buffer must have this many bytes, which the double formatter may also
 * use as scratch beyond its output (its longest output is 24 bytes). */
#define CGPROP__NUM_MAX 40

/* "00" .. "99": the two digits of each number below 100. */
extern const char cgprop__digit_pairs[200];

/* The decimal digits of x. */
size_t cgprop__fmt_u64(char *buf, uint64_t x);

/* A finite double as the shortest decimal that reads back (strtod, round to
 * nearest) to exactly x, the closest to x among those; laid out the way
 * printf's %.Pg lays it out with P = max(15, digits): fixed notation for
 * decimal exponents -4 .. P-1, else d.ddde±XX. -0 stays "-0". The caller
 * handles NaN and infinities (JSON has no spelling for them). */
size_t cgprop__fmt_double(char *buf, double x);

/* Room for cgprop__fmt_fixed's output and its NUL. */
#define CGPROP__FIXED_MAX 48

/* printf's "%.0f" (decimals 0) or "%.2f" (decimals 2) of any double, as
 * snprintf into a buffer of CGPROP__FIXED_MAX bytes writes it (a longer
 * figure is cut there); NUL-terminated, returns the length. The people's
 * views print millions of these; printf was most of their time. */
size_t cgprop__fmt_fixed(char *buf, double x, int decimals);

#endif
