/* Deterministic benchmark inputs (see gen.h). */
#include "gen.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gen_seed(gen_rng *r, uint64_t seed) { r->s = seed ? seed : 0x9E3779B97F4A7C15u; }

uint64_t gen_next(gen_rng *r)
{
    /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1Du;
}

double gen_unif(gen_rng *r) { return (double)(gen_next(r) >> 11) * (1.0 / 9007199254740992.0); }

/* ---- call lists ---------------------------------------------------------- */

static int push(gen_calls *c, gen_rng *r, uint32_t a, uint32_t b)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        uint32_t *na = realloc(c->a, cap * sizeof *na);
        if (!na) return -1;
        c->a = na;
        uint32_t *nb = realloc(c->b, cap * sizeof *nb);
        if (!nb) return -1;
        c->b = nb;
        uint64_t *nc = realloc(c->count, cap * sizeof *nc);
        if (!nc) return -1;
        c->count = nc;
        uint64_t *nk = realloc(c->cost, cap * sizeof *nk);
        if (!nk) return -1;
        c->cost = nk;
        c->cap = cap;
    }
    c->a[c->n] = a;
    c->b[c->n] = b;
    c->count[c->n] = 1 + gen_next(r) % 100;
    c->cost[c->n] = 1 + gen_next(r) % 100000;
    c->n++;
    return 0;
}

static int make_self(gen_calls *c, gen_rng *r)
{
    c->self = malloc((size_t)c->nn * sizeof *c->self);
    if (!c->self) return -1;
    for (uint32_t i = 0; i < c->nn; i++) c->self[i] = gen_next(r) % 1000;
    return 0;
}

int gen_dag(gen_calls *c, size_t target, uint64_t seed)
{
    gen_rng r;
    gen_seed(&r, seed);
    memset(c, 0, sizeof *c);
    size_t nn0 = target / 5;
    if (nn0 < 100) nn0 = 100;
    if (nn0 > UINT32_MAX / 2) nn0 = UINT32_MAX / 2;
    uint32_t nn = (uint32_t)nn0, hot = nn / 1000 + 1;
    c->nn = nn;
    /* Small cycles: consecutive ids i..i+s-1 joined by i->i+1 and a closing
     * call back to i; every other call goes to a higher id, so these rings
     * are the only cycles. */
    for (uint32_t i = 0; i + 6 < nn - hot;) {
        if (gen_next(&r) % 100 < 5) {
            uint32_t s = 2 + (uint32_t)(gen_next(&r) % 5);
            for (uint32_t j = 0; j + 1 < s; j++)
                if (push(c, &r, i + j, i + j + 1)) return -1;
            if (push(c, &r, i + s - 1, i)) return -1;
            i += s;
        } else {
            i++;
        }
    }
    /* Power-law fan-out: a Pareto tail of index 2.5 (P(d >= x) ~ x^-1.5:
     * most functions call one to three others, one in a few hundred calls a
     * hundred or more), scaled so that the mean is the calls still wanted
     * per function: the continuous mean 3·xm, less about a half for the
     * rounding down. Should the draws fall short, callers come round again
     * (as a function's calls may come in several fn= blocks). */
    double mean = (double)(target > c->n ? target - c->n : 1) / nn;
    double xm = (mean + 0.5) / 3.0;
    for (uint32_t i = 0; c->n < target; i = i + 2 < nn ? i + 1 : 0) {
        double u = gen_unif(&r);
        uint32_t d = (uint32_t)(xm * pow(1.0 - u, -1.0 / 1.5));
        if (d > 1000) d = 1000;
        if (d == 0) d = 1;
        for (uint32_t j = 0; j < d && c->n < target; j++) {
            uint32_t b;
            if (gen_next(&r) % 4 == 0) {
                b = nn - hot + (uint32_t)(gen_next(&r) % hot); /* library hot set */
                if (b <= i) continue;
            } else {
                double v = gen_unif(&r);
                uint64_t span = nn - 1 - i;
                b = i + 1 + (uint32_t)((double)span * v * v * v * v);
                if (b >= nn) b = nn - 1;
            }
            if (push(c, &r, i, b)) return -1;
        }
    }
    return make_self(c, &r);
}

int gen_giant(gen_calls *c, uint32_t members, uint32_t entries, uint32_t chords, uint64_t seed)
{
    gen_rng r;
    gen_seed(&r, seed);
    memset(c, 0, sizeof *c);
    /* ids: the entries' callers 0..E-1, members E..E+M-1, leaves after. */
    uint32_t leaves = members / 10 ? members / 10 : 1;
    c->nn = entries + members + leaves;
    for (uint32_t i = 0; i < entries; i++)
        if (push(c, &r, i, entries + (uint32_t)(gen_next(&r) % members))) return -1;
    for (uint32_t i = 0; i < members; i++)
        if (push(c, &r, entries + i, entries + (i + 1) % members)) return -1;
    for (uint32_t i = 0; i < chords; i++)
        if (push(c, &r, entries + (uint32_t)(gen_next(&r) % members), entries + (uint32_t)(gen_next(&r) % members)))
            return -1;
    for (uint32_t i = 0; i < members; i++)
        if (gen_next(&r) % 2 && push(c, &r, entries + i, entries + members + (uint32_t)(gen_next(&r) % leaves)))
            return -1;
    return make_self(c, &r);
}

void gen_calls_free(gen_calls *c)
{
    free(c->a);
    free(c->b);
    free(c->count);
    free(c->cost);
    free(c->self);
    memset(c, 0, sizeof *c);
}

/* ---- sampled stacks ------------------------------------------------------ */

#define MAXCALLEES 8u
#define MAXDEPTH 256u

int gen_stacks_make(gen_stacks *p, size_t nframes, uint32_t nfun, uint64_t seed)
{
    gen_rng r;
    gen_seed(&r, seed);
    memset(p, 0, sizeof *p);
    p->nfun = nfun;
    uint32_t *callees = malloc((size_t)nfun * MAXCALLEES * sizeof *callees);
    uint32_t *ncallees = malloc((size_t)nfun * sizeof *ncallees);
    size_t cap = nframes + 2 * MAXDEPTH, scap = nframes / 32 + 16;
    p->frames = malloc(cap * sizeof *p->frames);
    p->off = malloc((scap + 1) * sizeof *p->off);
    if (!callees || !ncallees || !p->frames || !p->off) goto nomem;
    for (uint32_t f = 0; f < nfun; f++) {
        ncallees[f] = 1 + (uint32_t)(gen_next(&r) % MAXCALLEES);
        for (uint32_t i = 0; i < ncallees[f]; i++) {
            /* Cubed uniform: a few hot callees (allocators, dispatchers). */
            double u = gen_unif(&r);
            callees[(size_t)f * MAXCALLEES + i] = (uint32_t)(u * u * u * nfun) % nfun;
        }
    }
    uint32_t st[MAXDEPTH];
    size_t depth = 1, n = 0, s = 0;
    st[0] = 0;
    while (n < nframes) {
        /* Return from a few frames, then call down to a new target depth. */
        size_t pop = (size_t)(gen_next(&r) % 7);
        size_t target = 32 + (size_t)(gen_next(&r) % 65);
        depth = depth > pop + 1 ? depth - pop : 1;
        if (depth > target) depth = target;
        while (depth < target) {
            uint32_t top = st[depth - 1];
            uint64_t x = gen_next(&r) % 1000;
            if (x < 30) {
                /* Re-enter a function already on the stack (mutual recursion). */
                uint32_t again = st[gen_next(&r) % depth];
                st[depth++] = again;
            } else if (x < 40) {
                /* A run of direct recursion, or a ping-pong pair, 2..40 deep. */
                size_t run = 2 + (size_t)(gen_next(&r) % 39);
                uint32_t other = callees[(size_t)top * MAXCALLEES + gen_next(&r) % ncallees[top]];
                int pingpong = gen_next(&r) % 2 == 0;
                for (size_t k = 0; k < run && depth < MAXDEPTH; k++)
                    st[depth++] = pingpong && (k & 1) ? other : top;
            } else {
                st[depth++] = callees[(size_t)top * MAXCALLEES + gen_next(&r) % ncallees[top]];
            }
            if (depth >= MAXDEPTH) break;
        }
        if (s == scap) {
            scap *= 2;
            size_t *q = realloc(p->off, (scap + 1) * sizeof *q);
            if (!q) goto nomem;
            p->off = q;
        }
        if (n + depth > cap) {
            cap = cap * 2 + depth;
            uint32_t *q = realloc(p->frames, cap * sizeof *q);
            if (!q) goto nomem;
            p->frames = q;
        }
        p->off[s++] = n;
        memcpy(p->frames + n, st, depth * sizeof *st);
        n += depth;
    }
    p->off[s] = n;
    p->nsamples = s;
    p->nframes = n;
    free(callees);
    free(ncallees);
    return 0;
nomem:
    free(callees);
    free(ncallees);
    gen_stacks_free(p);
    return -1;
}

void gen_stacks_free(gen_stacks *s)
{
    free(s->frames);
    free(s->off);
    memset(s, 0, sizeof *s);
}

/* ---- recorder script ----------------------------------------------------- */

#define SCRIPT_NFUN 300u
#define SCRIPT_DEPTH 40u

int gen_script_make(gen_script *s, size_t nev, uint64_t seed)
{
    gen_rng r;
    gen_seed(&r, seed);
    uint32_t callees[SCRIPT_NFUN][MAXCALLEES], ncallees[SCRIPT_NFUN];
    s->nfun = SCRIPT_NFUN;
    s->n = 0;
    s->ev = malloc((nev + SCRIPT_DEPTH + 1) * sizeof *s->ev);
    if (!s->ev) return -1;
    /* Each function calls from a small fixed set of callees; a third of
     * them stay near the caller's id (loops, recursion). */
    for (uint32_t f = 0; f < SCRIPT_NFUN; f++) {
        ncallees[f] = 1 + (uint32_t)(gen_next(&r) % MAXCALLEES);
        for (uint32_t i = 0; i < ncallees[f]; i++)
            callees[f][i] = gen_next(&r) % 3 == 0 ? (f + (uint32_t)(gen_next(&r) % 3)) % SCRIPT_NFUN
                                                  : (uint32_t)(gen_next(&r) % SCRIPT_NFUN);
    }
    uint32_t stack[SCRIPT_DEPTH];
    size_t d = 0;
    while (s->n + d + 1 < nev) {
        /* Deeper with a probability that falls with depth. */
        int down = d == 0 || (d < SCRIPT_DEPTH && gen_next(&r) % 100 < 52 - d);
        if (down) {
            uint32_t f = d ? callees[stack[d - 1]][gen_next(&r) % ncallees[stack[d - 1]]]
                           : (uint32_t)(gen_next(&r) % SCRIPT_NFUN);
            stack[d++] = f;
            s->ev[s->n++] = f << 1;
        } else {
            s->ev[s->n++] = stack[--d] << 1 | 1u;
        }
    }
    while (d) s->ev[s->n++] = stack[--d] << 1 | 1u;
    return 0;
}

void gen_script_free(gen_script *s)
{
    free(s->ev);
    memset(s, 0, sizeof *s);
}

/* ---- text ---------------------------------------------------------------- */

void gen_buf_free(gen_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int put(gen_buf *o, const char *s, size_t n)
{
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 1 << 20;
        while (o->len + n > cap) cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) return -1;
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
    return 0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int putf(gen_buf *o, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) return -1;
    return put(o, buf, (size_t)n);
}

/* Callgrind's three id spaces as valgrind writes them: a name is spelled
 * out at its first use ("fn=(12) name") and referred to by id after. */
int gen_callgrind(gen_buf *out, size_t target, uint64_t seed)
{
    enum { NFN = 30000, NOBJ = 40, NFILE = 3000 };
    gen_rng r;
    gen_seed(&r, seed);
    unsigned char *fn_def = calloc(NFN * 2, 1), file_def[NFILE], obj_def[NOBJ];
    gen_buf body = {0};
    uint64_t tot[3] = {0, 0, 0};
    int bad = fn_def == NULL;
    memset(file_def, 0, sizeof file_def);
    memset(obj_def, 0, sizeof obj_def);
#define RND(n) ((uint32_t)(gen_next(&r) % (n)))
    while (!bad && body.len < target) {
        uint32_t f = RND(NFN), file = f % NFILE, obj = file % NOBJ;
        uint32_t rec = RND(10) == 0 ? 1 : 0; /* one block in ten is f'2 */
        uint32_t fid = f * 2 + rec;
        if (obj_def[obj]) bad |= putf(&body, "ob=(%u)\n", obj + 1);
        else {
            bad |= putf(&body, "ob=(%u) /usr/lib/libobject%u.so\n", obj + 1, obj);
            obj_def[obj] = 1;
        }
        if (file_def[file]) bad |= putf(&body, "fl=(%u)\n", file + 1);
        else {
            bad |= putf(&body, "fl=(%u) src/module%u/file%u.c\n", file + 1, file / 100, file);
            file_def[file] = 1;
        }
        if (fn_def[fid]) bad |= putf(&body, "fn=(%u)\n", fid + 1);
        else {
            bad |= putf(&body, "fn=(%u) function_%u_%s%s\n", fid + 1, f, f % 7 ? "impl" : "dispatch", rec ? "'2" : "");
            fn_def[fid] = 1;
        }
        uint32_t a0 = 1 + RND(50), b0 = RND(20), c0 = RND(10);
        bad |= putf(&body, "%u %u %u %u\n", 10 + RND(2000), a0, b0, c0);
        tot[0] += a0;
        tot[1] += b0;
        tot[2] += c0;
        int nl = 5 + (int)RND(20);
        for (int i = 0; i < nl && !bad; i++) {
            uint32_t a = 1 + RND(200), b = RND(60), c = RND(30);
            int d = (int)RND(7) - 2;
            if (d == 0) bad |= putf(&body, "* %u %u %u\n", a, b, c);
            else bad |= putf(&body, "%+d %u %u %u\n", d, a, b, c);
            tot[0] += a;
            tot[1] += b;
            tot[2] += c;
            if (RND(4) != 0) continue;
            uint32_t g = RND(NFN), grec = RND(8) == 0 ? 1 : 0, gid = g * 2 + grec;
            uint32_t gfile = g % NFILE, gobj = gfile % NOBJ;
            if (gobj != obj) {
                if (obj_def[gobj]) bad |= putf(&body, "cob=(%u)\n", gobj + 1);
                else {
                    bad |= putf(&body, "cob=(%u) /usr/lib/libobject%u.so\n", gobj + 1, gobj);
                    obj_def[gobj] = 1;
                }
            }
            if (gfile != file) {
                if (file_def[gfile]) bad |= putf(&body, "cfi=(%u)\n", gfile + 1);
                else {
                    bad |= putf(&body, "cfi=(%u) src/module%u/file%u.c\n", gfile + 1, gfile / 100, gfile);
                    file_def[gfile] = 1;
                }
            }
            if (fn_def[gid]) bad |= putf(&body, "cfn=(%u)\n", gid + 1);
            else {
                bad |= putf(&body, "cfn=(%u) function_%u_%s%s\n", gid + 1, g, g % 7 ? "impl" : "dispatch",
                            grec ? "'2" : "");
                fn_def[gid] = 1;
            }
            bad |= putf(&body, "calls=%u %+d\n* %u %u %u\n", 1 + RND(1000), (int)RND(200) - 100, 1 + RND(100000),
                        RND(50000), RND(20000));
        }
        bad |= put(&body, "\n", 1);
    }
#undef RND
    free(fn_def);
    /* Totals are self costs only: call lines carry inclusive costs. */
    bad = bad || putf(out,
                      "# callgrind format\nversion: 1\ncreator: cgprop-bench\npid: 1\ncmd: synthetic\npart: 1\n\n"
                      "positions: line\nevents: Ir Dr Dw\nsummary: %llu %llu %llu\n\n",
                      (unsigned long long)tot[0], (unsigned long long)tot[1], (unsigned long long)tot[2]);
    bad = bad || put(out, body.p, body.len);
    bad = bad || putf(out, "totals: %llu %llu %llu\n", (unsigned long long)tot[0], (unsigned long long)tot[1],
                      (unsigned long long)tot[2]);
    gen_buf_free(&body);
    return bad ? -1 : 0;
}

int gen_folded(gen_buf *b, const gen_stacks *s)
{
    for (size_t i = 0; i < s->nsamples; i++) {
        for (size_t j = s->off[i]; j < s->off[i + 1]; j++)
            if (putf(b, j == s->off[i] ? "fn_%u" : ";fn_%u", s->frames[j])) return -1;
        if (put(b, " 1\n", 3)) return -1;
    }
    return 0;
}

int gen_events(gen_buf *b, const gen_script *s)
{
    uint64_t t = 1000;
    if (putf(b, "# metrics: ns\n")) return -1;
    for (size_t i = 0; i < s->n; i++) {
        uint32_t e = s->ev[i];
        t += 3 + (e >> 1) % 17;
        if (putf(b, "%s fn_%u %llu\n", e & 1 ? "exit" : "enter", e >> 1, (unsigned long long)t)) return -1;
    }
    return 0;
}
