/* Recorded for the perf reader's tests: page faults under a recursion, so
 * that perf record -d gives each sample a data address. */
#include <stdlib.h>

__attribute__((noinline)) void touch(char *p, int pages)
{
    for (int i = 0; i < pages; i++) p[(size_t)i * 4096] = 1;
}

__attribute__((noinline)) void rec(char *p, int d)
{
    touch(p, 8);
    if (d > 0) rec(p + 8 * 4096, d - 1);
}

int main(void)
{
    char *p = malloc((size_t)4096 * 8 * 5);
    if (!p) return 1;
    rec(p, 4);
    return p[4096] - 1;
}
