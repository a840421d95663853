/* Hints to the compiler for the hot loops, in one place. Each falls back
 * to plain C where the compiler has no such attribute: the code is right
 * without them, only slower. */
#ifndef CGPROP_UTIL_COMPILER_H
#define CGPROP_UTIL_COMPILER_H

#if defined(__GNUC__) || defined(__clang__)
/* Inlined even past the compiler's size limits: a loop body whose flags
 * are constants at each call site, so that each copy tests none of them. */
#define CGPROP__ALWAYS_INLINE __attribute__((always_inline)) inline
/* Kept out of line: a rare path that should take no registers from the loop. */
#define CGPROP__NOINLINE __attribute__((noinline))
#define CGPROP__LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define CGPROP__ALWAYS_INLINE inline
#define CGPROP__NOINLINE
#define CGPROP__LIKELY(x) (x)
#endif

#endif
