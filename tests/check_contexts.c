/* The calling-context store: what add_stack, the recorder and merge put in
 * it (costs per context worked out by hand), all or nothing on failure, and
 * the flame graph writer's refusal without contexts. */
#include <check.h>
#include "ck_quiet.h"
#include "support.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgprop.h"
#include "cgprop_io.h"
#include "contexts.h" /* the store's arrays are what this area writes */

static const char *const metric_names[2] = {"a", "b"};

/* The context of the path (function ids, root first), CGPROP_NONE when the
 * store has none. */
static uint32_t find(const cgprop_graph *g, const uint32_t *path, size_t n)
{
    const cgprop__ctx *c = cgprop__ctx_of(g);
    uint32_t at = CGPROP_NONE;
    for (size_t d = 0; d < n; d++) {
        uint32_t next = CGPROP_NONE;
        for (uint32_t i = 0; i < c->n; i++)
            if (c->parent[i] == at && c->node[i] == path[d]) next = i;
        if (next == CGPROP_NONE) return CGPROP_NONE;
        at = next;
    }
    return at;
}

static uint64_t self_of(const cgprop_graph *g, const uint32_t *path, size_t n, uint32_t k)
{
    uint32_t i = find(g, path, n);
    ck_assert_uint_ne(i, CGPROP_NONE);
    return cgprop__ctx_of(g)->self[(size_t)i * g->K + k];
}

enum { M, A, B, C };

static cgprop_graph *graph4(int keep)
{
    cgprop_graph *g = tgraph(2, metric_names);
    const char *keys[] = {"main", "a", "b", "c"};
    for (int i = 0; i < 4; i++) ck_assert_uint_eq(tnode(g, keys[i]), (uint32_t)i);
    if (keep) ck_assert_int_eq(cgprop_graph_keep_contexts(g, 1), CGPROP_OK);
    return g;
}

START_TEST(stacks_make_contexts)
{
    cgprop_graph *g = graph4(1);
    const uint32_t s1[] = {M, A, B}, s2[] = {M, A, B, B}, s3[] = {M, B}, s4[] = {M, A};
    const uint64_t w1[] = {10, 1}, w2[] = {4, 1}, w3[] = {3, 1}, w4[] = {2, 1};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 3, w1), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 4, w2), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 2, w3), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s4, 2, w4), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 3, w1), CGPROP_OK);
    /* main, main;a, main;a;b, main;a;b;b, main;b: b under a and b under
     * main are two contexts of one function. */
    ck_assert_uint_eq(cgprop_graph_context_count(g), 5);
    ck_assert_uint_eq(self_of(g, s1, 3, 0), 20);
    ck_assert_uint_eq(self_of(g, s1, 3, 1), 2);
    ck_assert_uint_eq(self_of(g, s2, 4, 0), 4);
    ck_assert_uint_eq(self_of(g, s3, 2, 0), 3);
    ck_assert_uint_eq(self_of(g, s4, 2, 0), 2);
    ck_assert_uint_eq(self_of(g, s1, 1, 0), 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(keep_only_before_costs)
{
    cgprop_graph *g = graph4(0);
    const uint32_t s[] = {M, A};
    const uint64_t w[] = {1, 1};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s, 2, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_keep_contexts(g, 1), CGPROP_ESTATE);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 0);
    ck_assert_int_eq(cgprop_graph_keep_contexts(NULL, 1), CGPROP_EINVAL);
    cgprop_graph_free(g);
    /* Turning them off frees them. */
    g = graph4(1);
    ck_assert_int_eq(cgprop_graph_add_stack(g, s, 2, w), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 2);
    ck_assert_int_eq(cgprop_graph_keep_contexts(g, 0), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 0);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(overflow_adds_no_context)
{
    cgprop_graph *g = graph4(1);
    const uint32_t s1[] = {M, A}, s2[] = {M, C, A};
    const uint64_t big[] = {UINT64_MAX - 1, 0}, two[] = {2, 0};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s1, 2, big), CGPROP_OK);
    uint64_t gen = cgprop_graph_generation(g);
    /* A's self cost would overflow: nothing added, the new contexts (main;c,
     * main;c;a) and the new calls dropped again. */
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 3, two), CGPROP_EOVERFLOW);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 2);
    ck_assert_uint_eq(cgprop_graph_generation(g), gen);
    ck_assert_uint_eq(find(g, s2, 2), CGPROP_NONE);
    ck_assert_uint_eq(self_of(g, s1, 2, 0), UINT64_MAX - 1);
    /* The index is still right: the same contexts come back, once. */
    const uint64_t one[] = {1, 0};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s2, 3, two), CGPROP_EOVERFLOW);
    const uint32_t s3[] = {M, C, B};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s3, 3, one), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 4);
    ck_assert_uint_eq(self_of(g, s3, 3, 0), 1);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(enomem_adds_no_context)
{
    /* Fail the n-th allocation for every n: the stack goes in whole, its
     * context with it, or nothing does; nothing leaks. Many contexts force
     * the store and its index to grow mid-stack. */
    enum { NFN = 150 };
    tfail fa;
    cgprop_allocator al = tfail_allocator(&fa, -1);
    for (long n = 0;; n++) {
        uint32_t fr[NFN];
        cgprop_graph *g = tgraph_letters(&al, NFN, fr);
        ck_assert_int_eq(cgprop_graph_keep_contexts(g, 1), CGPROP_OK);
        const uint64_t w[] = {3};
        ck_assert_int_eq(cgprop_graph_add_stack(g, fr, 2, w), CGPROP_OK);
        fa.left = n;
        int rc = cgprop_graph_add_stack(g, fr, NFN, w);
        fa.left = -1;
        if (rc == CGPROP_OK) {
            ck_assert_uint_eq(cgprop_graph_context_count(g), NFN);
            ck_assert_uint_eq(self_of(g, fr, NFN, 0), 3);
            cgprop_graph_free(g);
            ck_assert_int_eq(fa.live, 0);
            break;
        }
        ck_assert_int_eq(rc, CGPROP_ENOMEM);
        ck_assert_uint_eq(cgprop_graph_context_count(g), 2);
        ck_assert_uint_eq(cgprop_graph_edge_count(g), 1);
        ck_assert_int_eq(cgprop_graph_add_stack(g, fr, NFN, w), CGPROP_OK);
        ck_assert_uint_eq(cgprop_graph_context_count(g), NFN);
        ck_assert_uint_eq(self_of(g, fr, NFN, 0), 3);
        ck_assert_uint_eq(self_of(g, fr, 2, 0), 3);
        cgprop_graph_free(g);
        ck_assert_int_eq(fa.live, 0);
    }
}
END_TEST

START_TEST(merge_adds_contexts)
{
    cgprop_graph *d = graph4(1), *s = tgraph(2, metric_names), *plain = graph4(0);
    /* The source names its functions in another order: contexts follow keys. */
    uint32_t sc = tnode(s, "c"), sa = tnode(s, "a"), sm = tnode(s, "main");
    ck_assert_int_eq(cgprop_graph_keep_contexts(s, 1), CGPROP_OK);
    const uint32_t d1[] = {M, A}, s1[] = {sm, sa}, s2[] = {sm, sa, sc};
    const uint64_t w1[] = {5, 1}, w2[] = {7, 2};
    ck_assert_int_eq(cgprop_graph_add_stack(d, d1, 2, w1), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(s, s1, 2, w1), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_add_stack(s, s2, 3, w2), CGPROP_OK);
    ck_assert_int_eq(cgprop_graph_merge(d, s), CGPROP_OK);
    const uint32_t d2[] = {M, A, C};
    ck_assert_uint_eq(cgprop_graph_context_count(d), 3);
    ck_assert_uint_eq(self_of(d, d1, 2, 0), 10);
    ck_assert_uint_eq(self_of(d, d1, 2, 1), 2);
    ck_assert_uint_eq(self_of(d, d2, 3, 0), 7);
    ck_assert_uint_eq(self_of(d, d2, 3, 1), 2);
    /* A source without contexts would leave holes: refused, nothing merged. */
    const uint32_t p1[] = {M, B};
    ck_assert_int_eq(cgprop_graph_add_stack(plain, p1, 2, w1), CGPROP_OK);
    uint64_t gen = cgprop_graph_generation(d);
    ck_assert_int_eq(cgprop_graph_merge(d, plain), CGPROP_ESTATE);
    ck_assert_uint_eq(cgprop_graph_generation(d), gen);
    ck_assert_uint_eq(cgprop_graph_edge_count(d), 2);
    /* Into a graph that keeps none, contexts are not kept. */
    ck_assert_int_eq(cgprop_graph_merge(plain, d), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_context_count(plain), 0);
    cgprop_graph_free(d);
    cgprop_graph_free(s);
    cgprop_graph_free(plain);
}
END_TEST

START_TEST(recorder_feeds_contexts)
{
    cgprop_graph *g = tgraph(1, metric_names);
    uint32_t m = tnode(g, "main"), f = tnode(g, "f"), l = tnode(g, "leaf");
    cgprop_recorder *r = NULL;
    cgprop_recorder_options o;
    cgprop_recorder_options_init(&o);
    o.flags = CGPROP_REC_CONTEXTS;
    ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_OK);
    /* main [0, 100): f [10, 50) calls f [20, 30) which calls leaf [22, 25);
     * leaf [60, 70) straight from main. Exclusive times by context:
     * main 100 - 40 - 10 = 50; main;f 40 - 10 = 30; main;f;f 10 - 3 = 7;
     * main;f;f;leaf 3; main;leaf 10. */
    const struct { int enter; uint32_t fn; uint64_t t; } ev[] = {
        {1, m, 0}, {1, f, 10}, {1, f, 20}, {1, l, 22}, {0, l, 25}, {0, f, 30}, {0, f, 50},
        {1, l, 60}, {0, l, 70}, {0, m, 100}};
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        ck_assert_int_eq(ev[i].enter ? cgprop_recorder_enter(r, ev[i].fn, &ev[i].t)
                                     : cgprop_recorder_exit(r, ev[i].fn, &ev[i].t),
                         CGPROP_OK);
    /* Before the flush the graph has the contexts but none of the costs. */
    const uint32_t p1[] = {m}, p2[] = {m, f}, p3[] = {m, f, f}, p4[] = {m, f, f, l}, p5[] = {m, l};
    ck_assert_uint_eq(self_of(g, p1, 1, 0), 0);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 5);
    ck_assert_uint_eq(self_of(g, p1, 1, 0), 50);
    ck_assert_uint_eq(self_of(g, p2, 2, 0), 30);
    ck_assert_uint_eq(self_of(g, p3, 3, 0), 7);
    ck_assert_uint_eq(self_of(g, p4, 4, 0), 3);
    ck_assert_uint_eq(self_of(g, p5, 2, 0), 10);
    /* A second period adds to the same contexts. */
    const uint64_t t1 = 200, t2 = 205;
    ck_assert_int_eq(cgprop_recorder_enter(r, m, &t1), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_exit(r, m, &t2), CGPROP_OK);
    ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
    ck_assert_uint_eq(self_of(g, p1, 1, 0), 55);
    ck_assert_uint_eq(cgprop_graph_context_count(g), 5);
    cgprop_recorder_free(r);
    cgprop_graph_free(g);
}
END_TEST

START_TEST(recorder_failed_flush_reopens)
{
    /* A flush with open activations closes them; when it then fails (out
     * of memory creating calls, at every allocation in turn) they are
     * opened again and their costs taken back from the contexts' pending
     * sums: after the real exits and a flush that succeeds, each context
     * holds what it would have without the failure. main [0, 100) with
     * f [10, 40) and g [50, 60): main 60, main;f 30, main;g 10. */
    tfail fa;
    cgprop_allocator al = tfail_allocator(&fa, -1);
    const char *name = "t";
    for (long n = 0;; n++) {
        cgprop_graph *g = NULL;
        ck_assert_int_eq(cgprop_graph_new(&al, &name, NULL, 1, &g), CGPROP_OK);
        uint32_t m = tnode(g, "main"), f = tnode(g, "f"), h = tnode(g, "g");
        cgprop_recorder *r = NULL;
        cgprop_recorder_options o;
        cgprop_recorder_options_init(&o);
        o.flags = CGPROP_REC_CONTEXTS;
        ck_assert_int_eq(cgprop_recorder_new(g, &o, &r), CGPROP_OK);
        const uint64_t t0 = 0, t10 = 10, t35 = 35, t40 = 40, t50 = 50, t60 = 60, t100 = 100;
        ck_assert_int_eq(cgprop_recorder_enter(r, m, &t0), CGPROP_OK);
        ck_assert_int_eq(cgprop_recorder_enter(r, f, &t10), CGPROP_OK);
        fa.left = n;
        int rc = cgprop_recorder_flush(r, &t35);
        fa.left = -1;
        int done = rc == CGPROP_OK;
        if (done) {
            /* The flush closed main and f at 35: main 10 + 0, main;f 25. */
            const uint32_t p1[] = {m}, p2[] = {m, f};
            ck_assert_uint_eq(self_of(g, p1, 1, 0), 10);
            ck_assert_uint_eq(self_of(g, p2, 2, 0), 25);
        } else {
            ck_assert_int_eq(rc, CGPROP_ENOMEM);
            ck_assert_uint_eq(cgprop_recorder_depth(r), 2);
            ck_assert_int_eq(cgprop_recorder_exit(r, f, &t40), CGPROP_OK);
            ck_assert_int_eq(cgprop_recorder_enter(r, h, &t50), CGPROP_OK);
            ck_assert_int_eq(cgprop_recorder_exit(r, h, &t60), CGPROP_OK);
            ck_assert_int_eq(cgprop_recorder_exit(r, m, &t100), CGPROP_OK);
            ck_assert_int_eq(cgprop_recorder_flush(r, NULL), CGPROP_OK);
            const uint32_t p1[] = {m}, p2[] = {m, f}, p3[] = {m, h};
            ck_assert_uint_eq(self_of(g, p1, 1, 0), 60);
            ck_assert_uint_eq(self_of(g, p2, 2, 0), 30);
            ck_assert_uint_eq(self_of(g, p3, 2, 0), 10);
        }
        cgprop_recorder_free(r);
        cgprop_graph_free(g);
        ck_assert_int_eq(fa.live, 0);
        if (done) break;
    }
}
END_TEST

static int sink(void *user, const char *data, size_t len)
{
    (void)user;
    (void)data;
    (void)len;
    return 0;
}

START_TEST(flame_refused_without_contexts)
{
    cgprop_graph *g = graph4(0);
    const uint32_t s[] = {M, A};
    const uint64_t w[] = {1, 1};
    ck_assert_int_eq(cgprop_graph_add_stack(g, s, 2, w), CGPROP_OK);
    ck_assert_int_eq(cgprop_write(g, CGPROP_FORMAT_FLAMEGRAPH, NULL, sink, NULL), CGPROP_ESTATE);
    ck_assert_ptr_nonnull(strstr(cgprop_graph_errmsg(g), "no calling contexts"));
    cgprop_graph_free(g);
}
END_TEST

static int count_sink(void *user, const char *data, size_t len)
{
    (void)data;
    *(size_t *)user += len;
    return 0;
}

START_TEST(enomem_in_merge_and_writer)
{
    /* Fail the n-th allocation for every n, in a merge that creates
     * contexts and in the flame graph writer: ENOMEM with the destination
     * as it was (its contexts, calls and generation), or success; nothing
     * leaks. */
    tfail fa;
    cgprop_allocator al = tfail_allocator(&fa, -1);
    const char *name = "x";
    enum { NFN = 80 };
    int merged = 0, written = 0;
    for (long n = 0; !(merged && written); n++) {
        cgprop_graph *d = NULL, *s = NULL;
        ck_assert_int_eq(cgprop_graph_new(&al, &name, NULL, 1, &d), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_new(&al, &name, NULL, 1, &s), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_keep_contexts(d, 1), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_keep_contexts(s, 1), CGPROP_OK);
        uint32_t fr[NFN], fd[2];
        for (uint32_t i = 0; i < NFN; i++) {
            char key[3] = {(char)('a' + i % 26), (char)('a' + i / 26), 0};
            ck_assert_int_eq(cgprop_graph_add_node(s, key, 2, &fr[i]), CGPROP_OK);
            if (i < 2) ck_assert_int_eq(cgprop_graph_add_node(d, key, 2, &fd[i]), CGPROP_OK);
        }
        const uint64_t w[] = {3};
        ck_assert_int_eq(cgprop_graph_add_stack(d, fd, 2, w), CGPROP_OK);
        ck_assert_int_eq(cgprop_graph_add_stack(s, fr, NFN, w), CGPROP_OK);
        uint64_t gen = cgprop_graph_generation(d);
        if (!merged) {
            fa.left = n;
            int rc = cgprop_graph_merge(d, s);
            fa.left = -1;
            if (rc == CGPROP_OK) {
                merged = 1;
                ck_assert_uint_eq(cgprop_graph_context_count(d), NFN);
                ck_assert_uint_eq(self_of(d, fd, 2, 0), 3);
                ck_assert_uint_eq(self_of(d, fr, NFN, 0), 3);
            } else {
                ck_assert_int_eq(rc, CGPROP_ENOMEM);
                ck_assert_uint_eq(cgprop_graph_context_count(d), 2);
                ck_assert_uint_eq(cgprop_graph_edge_count(d), 1);
                ck_assert_uint_eq(cgprop_graph_generation(d), gen);
            }
        } else {
            size_t bytes = 0;
            fa.left = n;
            int rc = cgprop_write(s, CGPROP_FORMAT_FLAMEGRAPH, NULL, count_sink, &bytes);
            fa.left = -1;
            if (rc == CGPROP_OK) {
                written = 1;
                ck_assert_uint_gt(bytes, 1000);
            } else
                ck_assert_int_eq(rc, CGPROP_ENOMEM);
        }
        cgprop_graph_free(d);
        cgprop_graph_free(s);
        ck_assert_int_eq(fa.live, 0);
    }
}
END_TEST

static Suite *contexts_suite(void)
{
    Suite *s = suite_create("contexts");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, stacks_make_contexts);
    tcase_add_test(tc, keep_only_before_costs);
    tcase_add_test(tc, overflow_adds_no_context);
    tcase_add_test(tc, enomem_adds_no_context);
    tcase_add_test(tc, merge_adds_contexts);
    tcase_add_test(tc, recorder_feeds_contexts);
    tcase_add_test(tc, flame_refused_without_contexts);
    tcase_add_test(tc, enomem_in_merge_and_writer);
    tcase_add_test(tc, recorder_failed_flush_reopens);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(contexts_suite());
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
