/* Recorded for the perf reader's tests: the main thread is named "my job: x"
 * (a word ending in ':'), the other "io 7" (a word of digits), each with a
 * recursion of its own. Built at a path holding " (" so that the dso does. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>

volatile unsigned long sink;

__attribute__((noinline)) void spin(int n)
{
    for (int i = 0; i < n; i++) sink += (unsigned long)i;
}

__attribute__((noinline)) long fact(int d)
{
    spin(300000);
    return d <= 1 ? 1 : d * fact(d - 1);
}

__attribute__((noinline)) long tri(int d)
{
    spin(200000);
    return d <= 0 ? 0 : d + tri(d - 1);
}

static void *t1(void *x)
{
    (void)x;
    pthread_setname_np(pthread_self(), "io 7");
    long s = 0;
    for (int i = 0; i < 100; i++) s += tri(i % 4);
    return (void *)s;
}

int main(void)
{
    prctl(PR_SET_NAME, "my job: x");
    pthread_t a;
    pthread_create(&a, 0, t1, 0);
    long s = 0;
    for (int i = 0; i < 100; i++) s += fact(i % 4 + 1);
    pthread_join(a, 0);
    printf("%ld\n", s);
    return 0;
}
