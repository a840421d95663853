/* Callgrind writer: the graph's input costs as a callgrind profile, so a
 * result opens in KCachegrind and reads back into the same graph.
 *
 * Keys "object TAB file TAB name" become ob=/fl=/fn=. When the split knows
 * recursion classes, they are written the way callgrind itself writes them:
 * level-0 activations as "name", level >= 1 as "name'2" (and, when the input
 * kept level 1 apart from deeper levels, level >= 2 as "name'3"), so the
 * callgrind reader folds them back into the same classes.
 *
 * Every call line carries a count of at least 1: callgrind_annotate takes
 * the cost line after "calls=0" for the caller's self cost. */
#include "io_util.h"
#include "write.h"

#include <stdlib.h>
#include <string.h>

typedef struct strtab {
    uint32_t *slot; /* id + 1, 0 = empty */
    uint32_t cap;   /* power of two */
    const char **s;
    size_t *len;
    uint32_t n, scap;
} strtab;

static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Id (1-based) of string s, adding it; 0 on allocation failure. */
static uint32_t intern(cgprop_graph *g, strtab *t, const char *s, size_t n, int *fresh)
{
    if ((t->n + 1) * 2 > t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        uint32_t *slot = cgprop__calloc(g, cap, sizeof *slot);
        if (!slot) return 0;
        for (uint32_t i = 0; i < t->n; i++) {
            uint32_t j = (uint32_t)hash(t->s[i], t->len[i]) & (cap - 1);
            while (slot[j]) j = (j + 1) & (cap - 1);
            slot[j] = i + 1;
        }
        cgprop__free(g, t->slot);
        t->slot = slot;
        t->cap = cap;
    }
    uint32_t j = (uint32_t)hash(s, n) & (t->cap - 1);
    while (t->slot[j]) {
        uint32_t i = t->slot[j] - 1;
        if (t->len[i] == n && memcmp(t->s[i], s, n) == 0) {
            *fresh = 0;
            return i + 1;
        }
        j = (j + 1) & (t->cap - 1);
    }
    if (t->n == t->scap) {
        uint32_t c = t->scap ? t->scap * 2 : 64;
        const char **ns = cgprop__realloc(g, (void *)t->s, c, sizeof *ns);
        if (!ns) return 0;
        t->s = ns;
        size_t *nl = cgprop__realloc(g, t->len, c, sizeof *nl);
        if (!nl) return 0;
        t->len = nl;
        t->scap = c;
    }
    t->s[t->n] = s;
    t->len[t->n] = n;
    t->slot[j] = ++t->n;
    *fresh = 1;
    return t->n;
}

static void strtab_free(cgprop_graph *g, strtab *t)
{
    cgprop__free(g, t->slot);
    cgprop__free(g, (void *)t->s);
    cgprop__free(g, t->len);
}

/* One function's calls, gathered before writing: per call, per block
 * (caller level 0 / 1 / >= 2) and callee class, K costs. */
typedef struct fcalls {
    size_t m, cap;
    uint32_t *eids, *callee;
    uint64_t *cc, *pc; /* per call: NPART parts of K costs; NPART part counts */
} fcalls;

/* The lines of a function's or a call's block, put together before they
 * are handed on at once (a name longer than the room goes on its own): a
 * profile of a million calls writes four lines and a dozen pieces a call,
 * and a put, or a printf, for each piece was most of this writer's time. */
typedef struct lbuf {
    cgprop__wr *w;
    size_t n;
    char b[1024];
} lbuf;

/* What the lines of a function and of the calls into it read of it, in
 * one record: a call's callee is a random function of a large profile,
 * and its object, file and name spread over eight arrays were eight
 * misses a call line. */
typedef struct fnrec {
    const char *part[3];       /* object, file, name (parts of its key) */
    uint32_t plen[3];          /* their lengths (a key is under 4 GiB) */
    uint32_t ob, fl;           /* 1-based string ids */
    unsigned char defined[3];  /* fn name (class 0, '2, '3) already defined */
} fnrec;

typedef struct cw {
    cgprop_graph *g;
    cgprop__wr *w;
    uint32_t K, nn;
    int compress;
    strtab obs, fls;
    fnrec *fn;                  /* nn */
    lbuf line;                  /* the block being written */
    fcalls calls;               /* the calls of the function being written */
    uint32_t *resv;             /* sorted, distinct: ids no function may get (see fn_id) */
    size_t nresv;
    int plus1;                  /* every calls= count is one more than the calls made */
    int classes, deep;
    cgprop_edge_row *er;
    cgprop_edge_split_row *esr;
} cw;

/* Cut "object TAB file TAB name" into its parts; a key without TABs is a name. */
static void split_key(const char *k, size_t n, const char **p, size_t *l)
{
    const char *t1 = memchr(k, '\t', n);
    const char *t2 = t1 ? memchr(t1 + 1, '\t', n - (size_t)(t1 + 1 - k)) : NULL;
    if (!t1 || !t2) {
        p[0] = p[1] = "";
        l[0] = l[1] = 0;
        p[2] = k;
        l[2] = n;
        return;
    }
    p[0] = k;
    l[0] = (size_t)(t1 - k);
    p[1] = t1 + 1;
    l[1] = (size_t)(t2 - t1 - 1);
    p[2] = t2 + 1;
    l[2] = n - (size_t)(t2 + 1 - k);
}

static void lb_flush(lbuf *l)
{
    cgprop__wr_put(l->w, l->b, l->n);
    l->n = 0;
}

static void put_str(lbuf *l, const char *s, size_t n)
{
    if (l->n + n > sizeof l->b) {
        lb_flush(l);
        if (n > sizeof l->b) {
            cgprop__wr_put(l->w, s, n);
            return;
        }
    }
    memcpy(l->b + l->n, s, n);
    l->n += n;
}

static void put_u64(lbuf *l, uint64_t x)
{
    if (l->n + CGPROP__NUM_MAX > sizeof l->b) lb_flush(l);
    l->n += cgprop__fmt_u64(l->b + l->n, x);
}

/* "(id)" and what follows it. */
static void put_id(lbuf *l, uint64_t id, const char *after, size_t alen)
{
    put_str(l, "(", 1);
    put_u64(l, id);
    put_str(l, ")", 1);
    put_str(l, after, alen);
}

/* Readers skip the blanks after "(id) " and take "(1) " for a reference,
 * while a name written out in full keeps every byte (but a CR before the
 * line end, which would leave "(1) " of a name "\r"): an empty name, and
 * one that starts with a blank or a CR, are always written out in full. */
static int spelled_out(const char *s, size_t n) { return n == 0 || s[0] == ' ' || s[0] == '\t' || s[0] == '\r'; }

/* A name spelled "(3)…" reads as a reference to id 3 unless it comes
 * after an id of its own ("(7) (3)"): such names are always compressed. */
static int looks_like_ref(const char *s, size_t n) { return n >= 2 && s[0] == '(' && s[1] >= '0' && s[1] <= '9'; }

static void spec(cw *c, lbuf *l, const char *key, uint32_t id, const char *s, size_t n, int *defined)
{
    put_str(l, key, strlen(key));
    /* An empty object or file is written empty, which readers take as "none". */
    if (spelled_out(s, n) || (!c->compress && !looks_like_ref(s, n))) {
        put_str(l, s, n);
    } else if (*defined) {
        put_id(l, id, "", 0);
    } else {
        put_id(l, id, " ", 1);
        put_str(l, s, n);
        *defined = 1;
    }
    put_str(l, "\n", 1);
}

static const char *const suffix[3] = {"", "'2", "'3"};

/* Compressed id of function f's class cls. A name whose quote-separated
 * segment is "(N)" reads as a reference to function N (callgrind's
 * --compress-mangled names), so N is never given out: the ids are 1, 2, 3,
 * ... with the reserved numbers left out. Among the sorted reserved ids,
 * resv[i] - i - 1 ids below resv[i] are free, a non-decreasing figure. */
static uint64_t fn_id(const cw *c, uint32_t f, int cls)
{
    uint64_t x = (uint64_t)f * 3 + (uint64_t)cls + 1;
    size_t lo = 0, hi = c->nresv; /* reserved ids before the answer: the first i with resv[i] - i > x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->resv[mid] - mid <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return x + lo;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* The "(N)" segments of names that start like a reference, as the reader
 * would expand them (a decimal N of at most 32 bits; N = 0 is no id). */
static int reserve_ids(cw *c)
{
    size_t n = 0, cap = 0;
    for (int round = 0; round < 2; round++) {
        for (uint32_t f = 0; f < c->nn; f++) {
            const char *s = c->fn[f].part[2];
            size_t len = c->fn[f].plen[2];
            if (!looks_like_ref(s, len)) continue;
            for (size_t i = 0; i <= len;) {
                const char *q = memchr(s + i, '\'', len - i);
                size_t j = q ? (size_t)(q - s) : len;
                size_t k = i + 1;
                uint64_t id;
                if (j - i >= 3 && s[i] == '(' && s[j - 1] == ')' &&
                    cgprop__parse_u64(s, j - 1, &k, false, &id) == CGPROP__NUM_OK && k == j - 1 && id &&
                    id <= UINT32_MAX) {
                    if (round == 1) c->resv[n] = (uint32_t)id;
                    n++;
                }
                i = j + 1;
            }
        }
        if (round == 0) {
            if (!n) return CGPROP_OK;
            cap = n;
            n = 0;
            if (!(c->resv = cgprop__alloc(c->g, cap, sizeof *c->resv))) return CGPROP_ENOMEM;
        }
    }
    qsort(c->resv, n, sizeof *c->resv, cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || c->resv[m - 1] != c->resv[i]) c->resv[m++] = c->resv[i];
    c->nresv = m;
    return CGPROP_OK;
}

static void fn_spec(cw *c, lbuf *l, const char *key, uint32_t f, int cls)
{
    put_str(l, key, strlen(key));
    fnrec *r = &c->fn[f];
    unsigned char *d = &r->defined[cls];
    const char *nm = r->part[2];
    size_t nl = r->plen[2];
    /* "(1) " would read as a reference, and so would a bare "(3)". */
    int compress = (c->compress || looks_like_ref(nm, nl)) && !spelled_out(nm, nl);
    uint64_t id = fn_id(c, f, cls);
    if (compress && *d) {
        put_id(l, id, "\n", 1);
        return;
    }
    if (compress) put_id(l, id, " ", 1);
    put_str(l, nm, nl);
    put_str(l, suffix[cls], strlen(suffix[cls]));
    put_str(l, "\n", 1);
    *d = 1;
}

/* Defined-flags of the ob/fl tables live in the top bit of our own arrays. */
typedef struct defs {
    unsigned char *ob, *fl;
} defs;

static void costs_line(cw *c, lbuf *l, const uint64_t *v)
{
    put_str(l, "0", 1);
    for (uint32_t k = 0; k < c->K; k++) {
        put_str(l, " ", 1);
        put_u64(l, v[k]);
    }
    put_str(l, "\n", 1);
}

/* The callee's object and file only where they differ from the caller's,
 * as callgrind writes them: the format takes the caller's by default, and
 * callgrind_annotate strips the directory it runs in from fl= names but not
 * from cfi= ones, so a cfi= naming the caller's own file made every such
 * function a second row under its full path. */
static void call(cw *c, lbuf *l, defs *d, uint32_t caller, uint32_t callee, int cls, uint64_t count,
                 const uint64_t *cost)
{
    const fnrec *r = &c->fn[callee], *from = &c->fn[caller];
    int od = d->ob[r->ob], fd = d->fl[r->fl];
    if (r->ob != from->ob) spec(c, l, "cob=", r->ob, r->part[0], r->plen[0], &od);
    if (r->fl != from->fl) spec(c, l, "cfi=", r->fl, r->part[1], r->plen[1], &fd);
    d->ob[r->ob] = (unsigned char)od;
    d->fl[r->fl] = (unsigned char)fd;
    fn_spec(c, l, "cfn=", callee, cls);
    put_str(l, "calls=", 6);
    put_u64(l, count);
    put_str(l, " 0\n", 3);
    costs_line(c, l, cost);
}

static int all_zero(const uint64_t *v, uint32_t K)
{
    for (uint32_t k = 0; k < K; k++)
        if (v[k]) return 0;
    return 1;
}

/* A call is written in parts j = blk * 3 + cls: the caller's block (level
 * 0, level 1 or lumped >= 1, level >= 2: fn, fn'2, fn'3) times the callee's
 * class (name, name'2, name'3). */
#define NPART 9

/* Call e as the lines it is written on: per part j K costs into x[j·K ..]
 * and the part's call count into pc[j]. The counts come from the class
 * buckets the input filled (the counts of calls into fb'2 stay with fb'2);
 * what came without a class goes with the plain part that got its cost.
 * What level >= 2 callers added (kept apart where the input told them)
 * moves from block 1 to block 2. */
static int edge_parts(cw *c, uint32_t e, uint64_t *x, uint32_t *callee, uint64_t *pc)
{
    uint32_t K = c->K;
    int rc;
    for (uint32_t k = 0; k < K; k++) {
        if ((rc = cgprop_graph_get_row(c->g, CGPROP_ITER_EDGES, k, e, &c->er[k], sizeof c->er[k]))) return rc;
        if (c->classes &&
            (rc = cgprop_graph_get_row(c->g, CGPROP_ITER_EDGE_SPLIT, k, e, &c->esr[k], sizeof c->esr[k])))
            return rc;
    }
    *callee = c->er[0].callee;
    uint64_t count = c->er[0].count;
    memset(x, 0, (size_t)NPART * K * sizeof *x);
    memset(pc, 0, NPART * sizeof *pc);
    bool plain = !c->classes || (c->esr[0].inexact & 0x7e0u) == 0x7e0u;
    for (uint32_t k = 0; k < K; k++) {
        const cgprop_edge_split_row *s = &c->esr[k];
        uint64_t cost = c->er[k].cost;
        if (plain) {
            x[k] = cost; /* no class known: a plain call */
            continue;
        }
        uint64_t known = s->C_nn + s->C_nr + s->C_nd + s->C_rn + s->C_rr + s->C_rd;
        int deep = c->deep;
        /* What came without a class stays a plain call of the plain caller. */
        x[0 * K + k] = s->C_nn + (cost > known ? cost - known : 0);
        x[1 * K + k] = deep ? s->C_nr : s->C_nr + s->C_nd;
        x[2 * K + k] = deep ? s->C_nd : 0;
        x[3 * K + k] = s->C_rn;
        x[4 * K + k] = deep ? s->C_rr : s->C_rr + s->C_rd;
        x[5 * K + k] = deep ? s->C_rd : 0;
    }
    if (plain) {
        pc[0] = count;
        return CGPROP_OK;
    }
    /* Class buckets → parts, as the split maps their costs. */
    static const int part_of[2][4] = {{0, 1, 2, 1}, {3, 4, 5, 4}};
    uint64_t classified = 0, b00 = 0, b01 = 0;
    for (uint32_t r = 0; r < 2; r++)
        for (uint32_t l = 0; l < 4; l++) {
            uint64_t n;
            const uint64_t *b = cgprop__ecls_get(c->g, e, cgprop__cls(r, l), &n);
            int j = part_of[r][l];
            if (!c->deep && (j == 2 || j == 5)) j--;
            pc[j] += n;
            classified += n;
            if (r == 0 && l == 0) b00 = b[0];
            if (r == 0 && (l == 1 || l == 3)) b01 += b[0];
        }
    /* The unclassified calls: where the split put their cost (level 0 →
     * level 0, or → level 1 inside a recursive component). */
    uint64_t rest = count > classified ? count - classified : 0;
    if (rest) pc[x[0] > b00 || x[K] <= b01 ? 0 : 1] += rest;
    /* Level >= 2 callers' part: in blocks 1 and 2 the callee classes map as
     * above; the split's level >= 1 figures hold it, so it is taken out of
     * block 1. */
    const uint64_t *deep = cgprop__dcall_row(c->g, e);
    for (uint32_t l = 0; deep && l < 4; l++) {
        const uint64_t *d = deep + (size_t)l * (K + 1);
        int j = part_of[0][l];
        if (!c->deep && j == 2) j--;
        pc[3 + j] -= d[0];
        pc[6 + j] += d[0];
        for (uint32_t k = 0; k < K; k++) {
            x[(size_t)(3 + j) * K + k] -= d[1 + k];
            x[(size_t)(6 + j) * K + k] += d[1 + k];
        }
    }
    return CGPROP_OK;
}

/* Whether part j of a call is written: it has a cost or calls, or (for a
 * call with neither) it is the plain part. */
static bool part_written(const uint64_t *x, const uint64_t *pc, uint32_t K, int j)
{
    if (pc[j] || !all_zero(x + (size_t)j * K, K)) return true;
    if (j) return false;
    for (int i = 1; i < NPART; i++)
        if (pc[i] || !all_zero(x + (size_t)i * K, K)) return false;
    return true;
}

/* The count a written part says: its own, or one more when some part of
 * some call has none (no count at all, as stacks give; the desc: line of
 * the header tells readers). A calls=0 line would be taken for a call still
 * open at a dump. */
static uint64_t part_count(const cw *c, uint64_t n) { return c->plus1 ? n + 1 : n; }

/* Classes are written only from a current split that knows them: only an
 * exact recursive figure proves the input told classes (non-recursive
 * functions are exact even in a graph built without any, and writing those
 * as classes would lose the "unclassified" mark on reading back). */
static int detect_classes(cw *c, const cgprop_write_options *o)
{
    if (o->flags & CGPROP_W_NO_CLASSES) return CGPROP_OK;
    cgprop_iter *it = NULL;
    int irc = cgprop_iter_new(c->g, CGPROP_ITER_SPLIT, 0, 0, &it);
    /* ESTATE only means "no current split"; out of memory must not quietly
     * drop the classes from the output. */
    if (irc == CGPROP_ENOMEM) return cgprop__err(c->g, irc, "write: out of memory");
    if (irc == CGPROP_OK) {
        cgprop_split_row s;
        int lumped = 0;
        while (cgprop_iter_next(it, &s, sizeof s) == CGPROP_OK) {
            if ((s.S_r && !(s.inexact & CGPROP_X_S_R)) || (s.C_r && !(s.inexact & CGPROP_X_C_R))) c->classes = 1;
            if (s.inexact & CGPROP_X_C_R) lumped = 1;
        }
        c->deep = c->classes && !lumped;
    }
    cgprop_iter_free(it);
    return CGPROP_OK;
}

/* Every function's object, file and name, with the ids name compression
 * gives them. Returns ENOMEM, EINVAL (a key with a line break) or OK. */
static int prepare_names(cw *c, defs *d)
{
    cgprop_graph *g = c->g;
    size_t n1 = c->nn ? c->nn : 1;
    c->fn = cgprop__calloc(g, n1, sizeof *c->fn);
    if (!c->fn) return CGPROP_ENOMEM;
    for (uint32_t f = 0; f < c->nn; f++) {
        size_t kl;
        const char *key = cgprop_graph_node_key(g, f, &kl);
        /* A line break would end the name line and start another. */
        if (memchr(key, '\n', kl))
            return cgprop__err(g, CGPROP_EINVAL,
                               "write: the key of function %u holds a line break, which callgrind cannot carry", f);
        const char *p[3];
        size_t l[3];
        split_key(key, kl, p, l);
        fnrec *r = &c->fn[f];
        for (int i = 0; i < 3; i++) {
            r->part[i] = p[i];
            r->plen[i] = (uint32_t)l[i];
        }
        int fresh;
        if (!(r->ob = intern(g, &c->obs, p[0], l[0], &fresh))) return CGPROP_ENOMEM;
        if (!(r->fl = intern(g, &c->fls, p[1], l[1], &fresh))) return CGPROP_ENOMEM;
    }
    if (reserve_ids(c)) return CGPROP_ENOMEM;
    d->ob = cgprop__calloc(g, (size_t)c->obs.n + 1, 1);
    d->fl = cgprop__calloc(g, (size_t)c->fls.n + 1, 1);
    return d->ob && d->fl ? CGPROP_OK : CGPROP_ENOMEM;
}

/* Does some written part of some call have no count? Then every written
 * count is one more (said in a desc: line), which a count of 2^64 - 1
 * cannot take. */
static int check_counts(cw *c, uint32_t ne)
{
    uint64_t *x = cgprop__alloc(c->g, NPART, (size_t)c->K * sizeof *x);
    if (!x) return CGPROP_ENOMEM;
    int full = 0, rc = CGPROP_OK;
    for (uint32_t e = 0; e < ne && !rc; e++) {
        uint32_t callee;
        uint64_t pc[NPART];
        if ((rc = edge_parts(c, e, x, &callee, pc))) break;
        for (int j = 0; j < NPART; j++) {
            if (!part_written(x, pc, c->K, j)) continue;
            if (pc[j] == 0) c->plus1 = 1;
            if (pc[j] == UINT64_MAX) full = 1;
        }
    }
    cgprop__free(c->g, x);
    if (!rc && c->plus1 && full)
        rc = cgprop__err(c->g, CGPROP_EOVERFLOW,
                         "write: a call count of 2^64 - 1 beside calls without a count cannot be written");
    return rc;
}

/* A call line's cost is a measurement to everything that reads the file:
 * KCachegrind and callgrind_annotate add it to the caller's inclusive
 * cost, and cgprop's reader takes it for the call's measured cost. A call
 * without one (counts only, as gprof's arcs) would be written as costing 0,
 * and read back as exactly that. */
static int check_costs(cw *c, uint32_t ne)
{
    for (uint32_t e = 0; e < ne; e++) {
        cgprop_edge_row r;
        int rc = cgprop_graph_get_row(c->g, CGPROP_ITER_EDGES, 0, e, &r, sizeof r);
        if (rc) return rc;
        if (r.flags & CGPROP_F_HAS_COST) continue;
        size_t la, lb;
        const char *a = cgprop__wr_name(c->g, r.caller, &la), *b = cgprop__wr_name(c->g, r.callee, &lb);
        return cgprop__err(c->g, CGPROP_EINVAL,
                           "write: the call %.*s -> %.*s has no measured cost (call counts only, as gprof gives "
                           "them): a callgrind file would state a cost of 0 for it; write text, JSON or DOT instead",
                           (int)(la > 200 ? 200 : la), a ? a : "", (int)(lb > 200 ? 200 : lb), b ? b : "");
    }
    return CGPROP_OK;
}

/* Σ self per metric into tot, refused rather than wrapped. */
static int program_total(cw *c, uint64_t *tot)
{
    memset(tot, 0, (size_t)c->K * sizeof *tot);
    for (uint32_t f = 0; f < c->nn; f++)
        for (uint32_t k = 0; k < c->K; k++) {
            cgprop_node_row nr;
            int rc = cgprop_graph_get_row(c->g, CGPROP_ITER_NODES, k, f, &nr, sizeof nr);
            if (rc) return rc;
            if (tot[k] > UINT64_MAX - nr.self) {
                size_t ml;
                return cgprop__err(c->g, CGPROP_EOVERFLOW,
                                   "write: the program total of metric %s exceeds 2^64 - 1, which callgrind's "
                                   "summary: cannot carry",
                                   cgprop_graph_metric_name(c->g, k, &ml));
            }
            tot[k] += nr.self;
        }
    return CGPROP_OK;
}

static void write_header(cw *c, const uint64_t *tot)
{
    cgprop__wr *w = c->w;
    cgprop__wr_puts(w, "# callgrind format\nversion: 1\ncreator: cgprop ");
    cgprop__wr_puts(w, cgprop_version_string());
    cgprop__wr_puts(w, "\n");
    if (c->plus1) cgprop__wr_puts(w, "desc: " CGPROP__DESC_PLUS1 "\n");
    /* Stacks that may have been cut short (cgprop_graph_unrooted): the
     * format has no word for them, so a desc: line carries their weight per
     * event, which cgprop's reader reads back and other tools show or pass
     * over. Without it the file read back would show the stacks' figures as
     * exact. Before events:, where callgrind_annotate reads desc: lines. */
    uint64_t u[CGPROP_MAX_METRICS];
    bool any = false;
    for (uint32_t k = 0; k < c->K; k++) {
        u[k] = 0;
        (void)cgprop_graph_unrooted(c->g, k, &u[k]); /* the split is current: it cannot fail */
        any = any || u[k];
    }
    if (any) {
        cgprop__wr_puts(w, "desc: " CGPROP__DESC_UNROOTED);
        for (uint32_t k = 0; k < c->K; k++) cgprop__wr_printf(w, " %llu", (unsigned long long)u[k]);
        cgprop__wr_puts(w, "\n");
    }
    cgprop__wr_puts(w, "positions: line\nevents:");
    for (uint32_t k = 0; k < c->K; k++) {
        size_t ml;
        const char *m = cgprop_graph_metric_name(c->g, k, &ml);
        /* cgprop_graph_new() admits single words only. */
        cgprop__wr_put(w, " ", 1);
        cgprop__wr_put(w, m, ml);
    }
    cgprop__wr_puts(w, "\nsummary:");
    for (uint32_t k = 0; k < c->K; k++) cgprop__wr_printf(w, " %llu", (unsigned long long)tot[k]);
    cgprop__wr_puts(w, "\n\n");
}

static void fcalls_free(const cgprop_graph *g, fcalls *x)
{
    cgprop__free(g, x->eids);
    cgprop__free(g, x->cc);
    cgprop__free(g, x->callee);
    cgprop__free(g, x->pc);
    memset(x, 0, sizeof *x);
}

/* Room in x for n calls; kept from one function to the next (four blocks
 * a function were 800,000 allocations on a profile of 200,000). */
static int fcalls_room(cgprop_graph *g, fcalls *x, size_t n, uint32_t K)
{
    if (n <= x->cap) return CGPROP_OK;
    size_t cap = x->cap * 2 > n ? x->cap * 2 : n;
    fcalls_free(g, x);
    x->eids = cgprop__alloc(g, cap, sizeof *x->eids);
    x->cc = cgprop__alloc(g, cap * NPART, (size_t)K * sizeof *x->cc);
    x->callee = cgprop__alloc(g, cap, sizeof *x->callee);
    x->pc = cgprop__alloc(g, cap * NPART, sizeof *x->pc);
    if (!x->eids || !x->cc || !x->callee || !x->pc) return CGPROP_ENOMEM;
    x->cap = cap;
    return CGPROP_OK;
}

static int gather_calls(cw *c, uint32_t f, fcalls *x)
{
    cgprop_graph *g = c->g;
    uint32_t K = c->K;
    x->m = 0;
    /* Out-edges through the callees iterator (metric 0 gives ids). */
    cgprop_iter *it = NULL;
    int rc = cgprop_iter_new(g, CGPROP_ITER_CALLEES, 0, f, &it);
    if (rc) return rc;
    size_t nout = cgprop_iter_count(it);
    if (fcalls_room(g, x, nout ? nout : 1, K) != CGPROP_OK) {
        cgprop_iter_free(it);
        return CGPROP_ENOMEM;
    }
    cgprop_edge_row row;
    while (x->m < nout && cgprop_iter_next(it, &row, sizeof row) == CGPROP_OK) x->eids[x->m++] = row.id;
    cgprop_iter_free(it);
    for (size_t i = 0; i < x->m && !rc; i++)
        rc = edge_parts(c, x->eids[i], x->cc + i * NPART * K, &x->callee[i], x->pc + i * NPART);
    return rc;
}

/* Function f: one block for its level-0 activations and, with classes, one
 * for its recursive ones (fn'2) and one for those at level >= 2 where the
 * input kept them apart (fn'3), each with its self cost and its calls.
 * self is scratch for K values. */
static int write_function(cw *c, defs *d, uint32_t f, uint64_t *self)
{
    cgprop_graph *g = c->g;
    uint32_t K = c->K;
    int classes = c->classes, rc = CGPROP_OK;
    cgprop_node_row nr[CGPROP_MAX_METRICS];
    cgprop_split_row sr[CGPROP_MAX_METRICS];
    for (uint32_t k = 0; k < K; k++) {
        if ((rc = cgprop_graph_get_row(g, CGPROP_ITER_NODES, k, f, &nr[k], sizeof nr[k]))) return rc;
        if (classes && (rc = cgprop_graph_get_row(g, CGPROP_ITER_SPLIT, k, f, &sr[k], sizeof sr[k]))) return rc;
    }
    const fcalls *x = &c->calls;
    if ((rc = gather_calls(c, f, &c->calls))) return rc;
    const uint64_t *dself = classes ? cgprop__dself_row(g, f) : NULL;
    for (int blk = 0; blk < (classes ? 3 : 1) && !c->w->failed; blk++) {
        /* S_r is the self cost that came with a level >= 1 class, even
         * when flagged inexact (then some came without a class, which
         * S_n holds): each part goes back where it came from. Its level
         * >= 2 part, where kept, goes to fn'3. */
        for (uint32_t k = 0; k < K; k++) {
            uint64_t sd = dself ? dself[k] : 0;
            self[k] = !classes ? (blk == 0 ? nr[k].self : 0)
                      : blk == 0 ? nr[k].self - sr[k].S_r
                      : blk == 1 ? sr[k].S_r - sd
                                 : sd;
        }
        int any = blk == 0 || !all_zero(self, K);
        for (size_t i = 0; i < x->m && !any; i++)
            for (int cl = 0; cl < 3; cl++)
                if (part_written(x->cc + i * NPART * K, x->pc + i * NPART, K, blk * 3 + cl)) any = 1;
        if (!any) continue;
        const fnrec *r = &c->fn[f];
        int od = d->ob[r->ob], fd = d->fl[r->fl];
        lbuf *l = &c->line;
        spec(c, l, "ob=", r->ob, r->part[0], r->plen[0], &od);
        spec(c, l, "fl=", r->fl, r->part[1], r->plen[1], &fd);
        d->ob[r->ob] = (unsigned char)od;
        d->fl[r->fl] = (unsigned char)fd;
        fn_spec(c, l, "fn=", f, blk);
        costs_line(c, l, self);
        for (size_t i = 0; i < x->m; i++)
            for (int cl = 0; cl < 3; cl++) {
                int j = blk * 3 + cl;
                if (!part_written(x->cc + i * NPART * K, x->pc + i * NPART, K, j)) continue;
                call(c, l, d, f, x->callee[i], cl, part_count(c, x->pc[i * NPART + (size_t)j]),
                     x->cc + (i * NPART + (size_t)j) * K);
            }
        put_str(l, "\n", 1);
        lb_flush(l);
    }
    return CGPROP_OK;
}

int cgprop__write_callgrind(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w)
{
    cw c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.w = w;
    c.line.w = w;
    c.K = (uint32_t)cgprop_graph_metric_count(g);
    c.nn = (uint32_t)cgprop_graph_node_count(g);
    c.compress = !(o->flags & CGPROP_W_NO_COMPRESSION);
    defs d = {NULL, NULL};
    uint64_t *v = cgprop__alloc(g, c.K, sizeof *v);
    c.er = cgprop__alloc(g, c.K, sizeof *c.er);
    c.esr = cgprop__alloc(g, c.K, sizeof *c.esr);
    int rc = !v || !c.er || !c.esr ? CGPROP_ENOMEM : CGPROP_OK;
    if (!rc) rc = detect_classes(&c, o);
    if (!rc) rc = prepare_names(&c, &d);
    if (!rc) rc = check_costs(&c, (uint32_t)cgprop_graph_edge_count(g));
    if (!rc) rc = check_counts(&c, (uint32_t)cgprop_graph_edge_count(g));
    if (!rc) rc = program_total(&c, v);
    if (!rc) write_header(&c, v);
    for (uint32_t f = 0; f < c.nn && !rc && !w->failed; f++) rc = write_function(&c, &d, f, v);
    if (rc == CGPROP_ENOMEM) rc = cgprop__err(g, CGPROP_ENOMEM, "write: out of memory");
    cgprop__free(g, v);
    cgprop__free(g, c.er);
    cgprop__free(g, c.esr);
    cgprop__free(g, c.fn);
    fcalls_free(g, &c.calls);
    cgprop__free(g, c.resv);
    cgprop__free(g, d.ob);
    cgprop__free(g, d.fl);
    strtab_free(g, &c.obs);
    strtab_free(g, &c.fls);
    return rc;
}
