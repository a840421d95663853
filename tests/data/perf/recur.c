/* A small recursive program for the perf fixture: self recursion (fib),
 * mutual recursion (is_even / is_odd) and a recursive tree walk. */
#include <stdio.h>
#include <stdlib.h>

struct tree {
    struct tree *l, *r;
    long v;
};

__attribute__((noinline)) static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__attribute__((noinline)) static int is_odd(unsigned n);
__attribute__((noinline)) static int is_even(unsigned n)
{
    volatile unsigned spin = 0;
    for (int i = 0; i < 60; i++) spin += (unsigned)i;
    return n == 0 ? 1 : is_odd(n - 1);
}
__attribute__((noinline)) static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

__attribute__((noinline)) static struct tree *build(int depth)
{
    struct tree *t = malloc(sizeof *t);
    if (!t) exit(1);
    t->v = depth;
    t->l = depth > 0 ? build(depth - 1) : NULL;
    t->r = depth > 0 ? build(depth - 1) : NULL;
    return t;
}

__attribute__((noinline)) static long walk(const struct tree *t)
{
    if (!t) return 0;
    return t->v + fib((int)(t->v % 4) + 8) + walk(t->l) + walk(t->r);
}

int main(void)
{
    long s = 0;
    struct tree *t = build(14);
    for (int k = 0; k < 60; k++) s += walk(t);
    for (unsigned k = 0; k < 700000; k++) s += is_even(20 + k % 7);
    s += fib(36);
    printf("%ld\n", s);
    return 0;
}
