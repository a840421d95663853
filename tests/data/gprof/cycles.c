/* A small program for the gprof reader's fixture: a cycle of three
 * functions (ping -> pong -> pang -> ping), a self-recursive one (walk),
 * and plain work called from several places. Built with
 * gcc -pg -O0 -fno-inline; about 1-2 s of CPU. */
#include <stdio.h>

static volatile unsigned long sink;

/* Work in the caller's own frame, so every function has self time. */
#define WORK(n)                                                          \
    do {                                                                 \
        unsigned long x_ = sink;                                         \
        for (unsigned long i_ = 0; i_ < (n); i_++) x_ = x_ * 2654435761u + i_; \
        sink = x_;                                                       \
    } while (0)

static void burn(unsigned long n) { WORK(n); }

static void leaf(unsigned long n) { WORK(n / 2); burn(n / 2); }

static void pang(int d);
static void pong(int d);

static void ping(int d)
{
    WORK(100000);
    if (d > 0) pong(d - 1);
    else leaf(400000);
}

static void pong(int d)
{
    WORK(150000);
    burn(20000);
    if (d > 0) pang(d - 1);
    leaf(10000);
}

static void pang(int d)
{
    WORK(50000);
    if (d > 0) ping(d - 1);
}

static void walk(int d)
{
    WORK(60000);
    burn(15000);
    if (d > 0) {
        walk(d - 1);
        if (d % 3 == 0) walk(d - 2 > 0 ? d - 2 : 0);
    }
    else leaf(200000);
}

int main(void)
{
    for (int i = 0; i < 400; i++) ping(i % 30);
    for (int i = 0; i < 300; i++) walk(i % 12);
    for (int i = 0; i < 200; i++) leaf(1000000);
    printf("%lu\n", sink);
    return 0;
}
