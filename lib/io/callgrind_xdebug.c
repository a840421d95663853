/* Xdebug's profiles: a call tree, read with exact recursion classes.
 *
 * PHP's Xdebug writes the callgrind format, but not as callgrind does: it
 * writes one block per call of a function, when that call returns: the
 * function, its self cost, then each call it made ("calls=1 …") with that
 * call's inclusive cost. A call's callees return before it does, so their
 * blocks come before its own, in the order it made the calls: the file is
 * its program's call tree in post-order. Read as callgrind is read, every
 * block of a function is summed into one, and the recursion that the tree
 * shows exactly becomes a cycle whose members get estimates.
 *
 * Here the tree is rebuilt with a stack (a block with k calls takes the
 * last k blocks not yet taken, which must be of the functions its calls
 * name, in order), each call's recursion level is counted from the root
 * down, and the file is rewritten line for line: every name written out in
 * full, the function of a block at level L >= 1 named as callgrind's
 * --separate-recs names it (fn'2 at level 1, fn'3 at level 2 and deeper),
 * the callee of each call line the same way. The rewritten file is read as
 * any callgrind file, its classes exact. A file that is not such a tree
 * (another writer, an edited file) is read as it is. */
#include "callgrind.h"

#include "util/hash.h"

/* A name as written: its bytes in the input. */
typedef struct span {
    const char *p;
    size_t n;
} span;

typedef struct xd {
    const cgprop_allocator *m;
    /* Compressed names per id space (files, functions): id -> index of
     * its span in names. */
    cgprop__u64map ids[2];
    span *names;
    size_t nnames, names_cap;
    /* Functions: (file, name) -> index; each function's two spans. */
    cgprop__u64map funcs;
    span (*fkey)[2];
    uint32_t nfunc;
    size_t fkey_cap;
    /* Blocks in file order: function and parent block (NONE at a root);
     * their levels, once pass 2 has counted them. Calls in file order:
     * the callee's function, then its block. */
    struct xblk {
        uint32_t func, parent;
    } *blk;
    size_t nblk, blk_cap;
    uint8_t *blevel;
    struct xcall {
        uint32_t func, blk;
    } *call;
    size_t ncall, call_cap;
    /* Blocks not yet taken by a caller. */
    uint32_t *stack;
    size_t nstack, stack_cap;
    /* Per function: how many blocks of it are on the current path. */
    uint32_t *active;
    /* The rewritten file. */
    char *out;
    size_t nout, out_cap;
} xd;

#define NONE UINT32_MAX

static bool grow(xd *x, void *pp, size_t *cap, size_t need, size_t size)
{
    return cgprop__grow(x->m, (void **)pp, cap, need, size, 256);
}

static bool starts(const char *s, size_t n, const char *k, size_t kn) { return n >= kn && memcmp(s, k, kn) == 0; }

/* The next line without the blanks around it, as the callgrind reader
 * takes its lines. */
static bool next_line(cgprop__lines *r, const char **s, size_t *n)
{
    if (!cgprop__lines_next(r, s, n)) return false;
    size_t b = cgprop__skip_blanks(*s, 0, *n);
    *s += b;
    *n -= b;
    while (*n && cgprop__is_space((*s)[*n - 1])) (*n)--;
    return true;
}

/* Whether the file says Xdebug wrote it: its creator: line, among the
 * header lines before the first function (in its first 32 lines and 64 KiB;
 * Xdebug writes it second). */
bool cgprop__cg_is_xdebug(const char *data, size_t len)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len < CGPROP__CG_XDEBUG_PEEK ? len : CGPROP__CG_XDEBUG_PEEK);
    const char *s;
    size_t n;
    while (r.no < 32 && next_line(&r, &s, &n)) {
        if (starts(s, n, "creator: xdebug", 15)) return true;
        if (starts(s, n, "fn=", 3) || starts(s, n, "fl=", 3)) return false;
    }
    return false;
}

/* A name line's value: "(id) name" defines, "(id)" refers, "name" is
 * plain. Its span, or false when the file is not one this rewrite reads
 * (a bad id, an undefined one, a name that would not survive being written
 * out in full). Returns ENOMEM through *rc. */
static bool name_of(xd *x, int space, const char *v, size_t n, span *out, int *rc)
{
    *rc = CGPROP_OK;
    if (!n || v[0] != '(') {
        /* Written out in full a name must not look compressed, and in a
         * function's name a quote would mix with the level suffix. */
        if (space == 1 && memchr(v, '\'', n)) return false;
        *out = (span){v, n};
        return true;
    }
    size_t i = 1;
    uint64_t id = 0;
    while (i < n && cgprop__is_digit(v[i]) && i < 18) id = id * 10 + (uint64_t)(v[i++] - '0');
    if (i == 1 || i >= n || v[i] != ')') return false;
    i++;
    uint32_t ix;
    if (i == n) {
        if (!cgprop__u64map_get(&x->ids[space], id, &ix)) return false;
        *out = x->names[ix];
        return true;
    }
    if (v[i] != ' ') return false;
    i++;
    span sp = {v + i, n - i};
    if (!sp.n || sp.p[0] == '(' || (space == 1 && memchr(sp.p, '\'', sp.n))) return false;
    if (!grow(x, &x->names, &x->names_cap, x->nnames + 1, sizeof *x->names) ||
        cgprop__u64map_put(x->m, &x->ids[space], id, (uint32_t)x->nnames)) {
        *rc = CGPROP_ENOMEM;
        return false;
    }
    x->names[x->nnames++] = sp;
    *out = sp;
    return true;
}

static bool same(span a, span b) { return a.n == b.n && memcmp(a.p, b.p, a.n) == 0; }

/* The function (file, name), made on first sight. false when two
 * functions' keys hash alike (then the rewrite gives up: exact or nothing). */
static bool func_of(xd *x, span fl, span fn, uint32_t *out, int *rc)
{
    *rc = CGPROP_OK;
    uint64_t h = cgprop__hash_bytes(fl.p, fl.n) * 0x9E3779B97F4A7C15ull ^ cgprop__hash_bytes(fn.p, fn.n);
    if (h == UINT64_MAX) h--;
    uint32_t f;
    if (cgprop__u64map_get(&x->funcs, h, &f)) {
        if (!same(x->fkey[f][0], fl) || !same(x->fkey[f][1], fn)) return false;
        *out = f;
        return true;
    }
    if (!grow(x, &x->fkey, &x->fkey_cap, (size_t)x->nfunc + 1, sizeof *x->fkey) ||
        cgprop__u64map_put(x->m, &x->funcs, h, x->nfunc)) {
        *rc = CGPROP_ENOMEM;
        return false;
    }
    x->fkey[x->nfunc][0] = fl;
    x->fkey[x->nfunc][1] = fn;
    *out = x->nfunc++;
    return true;
}

/* The block that ends here takes its callees' blocks off the stack: its
 * calls from call c0 on, each of whose function must match. */
static bool end_block(xd *x, size_t c0, int *rc)
{
    *rc = CGPROP_OK;
    if (x->nblk == 0) return true;
    uint32_t b = (uint32_t)(x->nblk - 1);
    size_t k = x->ncall - c0;
    if (k > x->nstack) return false;
    size_t base = x->nstack - k;
    for (size_t j = 0; j < k; j++) {
        uint32_t child = x->stack[base + j];
        if (x->blk[child].func != x->call[c0 + j].func) return false;
        x->call[c0 + j].blk = child;
        x->blk[child].parent = b;
    }
    x->nstack = base;
    if (!grow(x, &x->stack, &x->stack_cap, x->nstack + 1, sizeof *x->stack)) {
        *rc = CGPROP_ENOMEM;
        return false;
    }
    x->stack[x->nstack++] = b;
    return true;
}

/* Pass 1: the blocks, their calls and the tree. */
static bool tree(xd *x, const char *data, size_t len, int *rc)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    const char *s;
    size_t n, c0 = 0;
    span fl = {NULL, 0}, cfl = {NULL, 0};
    bool want_calls = false, have_cfn = false;
    uint32_t cf = NONE;
    while (next_line(&r, &s, &n)) {
        span sp;
        if (want_calls) {
            /* A calls= line is followed by its call's cost line. */
            if (!n || !(cgprop__is_digit(s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '*')) return false;
            want_calls = false;
            continue;
        }
        if (starts(s, n, "fl=", 3)) {
            if (!name_of(x, 0, s + 3, n - 3, &fl, rc)) return false;
        } else if (starts(s, n, "fi=", 3) || starts(s, n, "fe=", 3)) {
            /* Inlined code's file: no part of the function's identity, but
             * its name may define an id that later lines use. */
            if (!name_of(x, 0, s + 3, n - 3, &sp, rc)) return false;
        } else if (starts(s, n, "cfl=", 4) || starts(s, n, "cfi=", 4)) {
            if (!name_of(x, 0, s + 4, n - 4, &cfl, rc)) return false;
        } else if (starts(s, n, "fn=", 3)) {
            if (have_cfn || !end_block(x, c0, rc)) return false;
            uint32_t f;
            if (!fl.p || !name_of(x, 1, s + 3, n - 3, &sp, rc) || !func_of(x, fl, sp, &f, rc)) return false;
            if (!grow(x, &x->blk, &x->blk_cap, x->nblk + 1, sizeof *x->blk)) {
                *rc = CGPROP_ENOMEM;
                return false;
            }
            x->blk[x->nblk++] = (struct xblk){f, NONE};
            c0 = x->ncall;
            cfl = fl;
        } else if (starts(s, n, "cfn=", 4)) {
            /* One cfn= line for each call, before its calls= line. */
            if (!x->nblk || have_cfn || !name_of(x, 1, s + 4, n - 4, &sp, rc) || !cfl.p ||
                !func_of(x, cfl, sp, &cf, rc))
                return false;
            have_cfn = true;
        } else if (starts(s, n, "calls=", 6)) {
            if (!have_cfn) return false;
            if (!grow(x, &x->call, &x->call_cap, x->ncall + 1, sizeof *x->call)) {
                *rc = CGPROP_ENOMEM;
                return false;
            }
            x->call[x->ncall++] = (struct xcall){cf, NONE};
            have_cfn = false;
            want_calls = true; /* the call's cost line next */
            cfl = fl;
        } else if (starts(s, n, "ob=", 3) || starts(s, n, "cob=", 4) || starts(s, n, "jump=", 5) ||
                   starts(s, n, "jcnd=", 5) || starts(s, n, "jfi=", 4) || starts(s, n, "jfn=", 4)) {
            return false; /* not what Xdebug writes */
        }
    }
    return !want_calls && !have_cfn && end_block(x, c0, rc);
}

/* Pass 2: levels from the root down. Blocks in reverse file order visit a
 * parent before its children (post-order reversed), so the path from the
 * root is a stack, and a function's count on it is its level. */
static bool levels(xd *x, int *rc)
{
    x->blevel = cgprop__mem_realloc(x->m, NULL, x->nblk ? x->nblk : 1, 1);
    x->active = cgprop__mem_calloc(x->m, x->nfunc ? x->nfunc : 1, sizeof *x->active);
    /* The path can be as deep as the tree, which pass 1's stack never was. */
    if (!x->blevel || !x->active || !grow(x, &x->stack, &x->stack_cap, x->nblk ? x->nblk : 1, sizeof *x->stack)) {
        *rc = CGPROP_ENOMEM;
        return false;
    }
    x->nstack = 0;
    for (size_t b = x->nblk; b-- > 0;) {
        uint32_t p = x->blk[b].parent;
        while (x->nstack && x->stack[x->nstack - 1] != p) x->active[x->blk[x->stack[--x->nstack]].func]--;
        uint32_t c = x->active[x->blk[b].func]++;
        x->blevel[b] = (uint8_t)(c < 2 ? c : 2);
        x->stack[x->nstack++] = (uint32_t)b;
    }
    return true;
}

static bool put(xd *x, const char *p, size_t n)
{
    /* An empty line first: no buffer yet, and nothing to copy. */
    if (!n) return true;
    if (!grow(x, &x->out, &x->out_cap, x->nout + n, 1)) return false;
    memcpy(x->out + x->nout, p, n);
    x->nout += n;
    return true;
}

/* "key=" and the name in full, with the level's suffix. */
static bool put_name(xd *x, const char *key, size_t kn, span name, uint8_t level)
{
    static const char *const suffix[3] = {"", "'2", "'3"};
    return put(x, key, kn) && put(x, name.p, name.n) && put(x, suffix[level], level ? 2 : 0);
}

/* Pass 3: the file again, name lines written out in full with the levels;
 * every other line as it is, so that line numbers stay the input's. */
static int rewrite(xd *x, const char *data, size_t len)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    const char *s;
    size_t n, b = 0, c = 0;
    int rc = CGPROP_OK;
    /* The spans were checked by pass 1: only references to names it saw. */
    for (int sp = 0; sp < 2; sp++) {
        cgprop__u64map_free(x->m, &x->ids[sp]);
        memset(&x->ids[sp], 0, sizeof x->ids[sp]);
    }
    x->nnames = 0;
    while (next_line(&r, &s, &n)) {
        span nm;
        bool ok = true;
        if (starts(s, n, "fl=", 3)) ok = name_of(x, 0, s + 3, n - 3, &nm, &rc) && put_name(x, "fl=", 3, nm, 0);
        else if (starts(s, n, "fi=", 3) || starts(s, n, "fe=", 3))
            ok = name_of(x, 0, s + 3, n - 3, &nm, &rc) && put_name(x, s[1] == 'i' ? "fi=" : "fe=", 3, nm, 0);
        else if (starts(s, n, "cfl=", 4) || starts(s, n, "cfi=", 4))
            ok = name_of(x, 0, s + 4, n - 4, &nm, &rc) && put_name(x, "cfl=", 4, nm, 0);
        else if (starts(s, n, "fn=", 3))
            ok = name_of(x, 1, s + 3, n - 3, &nm, &rc) && put_name(x, "fn=", 3, nm, x->blevel[b++]);
        else if (starts(s, n, "cfn=", 4))
            ok = name_of(x, 1, s + 4, n - 4, &nm, &rc) && put_name(x, "cfn=", 4, nm, x->blevel[x->call[c++].blk]);
        else ok = put(x, s, n);
        if (!ok) return rc ? rc : CGPROP_ENOMEM;
        if (!put(x, "\n", 1)) return CGPROP_ENOMEM;
    }
    return CGPROP_OK;
}

int cgprop__cg_xdebug_rewrite(const char *data, size_t len, const cgprop_allocator *alloc, char **out,
                              size_t *out_len)
{
    cgprop_allocator m;
    cgprop__mem_init(&m, alloc);
    xd x;
    memset(&x, 0, sizeof x);
    x.m = &m;
    *out = NULL;
    *out_len = 0;
    int rc = CGPROP_OK;
    if (tree(&x, data, len, &rc) && levels(&x, &rc)) {
        rc = rewrite(&x, data, len);
        if (!rc) {
            /* Freed by the caller with cgprop__mem_free, its allocator
             * made by cgprop__mem_init from the same alloc. */
            *out = x.out;
            *out_len = x.nout;
            x.out = NULL;
        }
    }
    for (int sp = 0; sp < 2; sp++) cgprop__u64map_free(&m, &x.ids[sp]);
    cgprop__u64map_free(&m, &x.funcs);
    cgprop__mem_free(&m, x.names);
    cgprop__mem_free(&m, x.fkey);
    cgprop__mem_free(&m, x.blk);
    cgprop__mem_free(&m, x.blevel);
    cgprop__mem_free(&m, x.call);
    cgprop__mem_free(&m, x.stack);
    cgprop__mem_free(&m, x.active);
    cgprop__mem_free(&m, x.out);
    return rc;
}
