/* Python cProfile / profile statistics reader: the file `python -m cProfile
 * -o out.pstats` writes, a marshal dump of one dict
 *   {(file, line, name): (cc, nc, tt, ct, callers)}
 *   callers = {(file, line, name): (nc, cc, tt, ct)}   (an int count: older)
 * docs/formats/pstats.md gives the mapping. The marshal subset a stats dict
 * uses is decoded here by hand into a flat table of values (no recursion:
 * an explicit stack of open containers), then read as the dict above. */
#include "io_util.h"
#include "util/prefetch.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

/* Value kinds of the decoded table. V_OTHER: what a code object's
 * constants may hold and statistics never use (Ellipsis, StopIteration,
 * complex numbers). */
enum { V_NONE, V_BOOL, V_INT, V_BIGINT, V_FLOAT, V_STR, V_TUPLE, V_LIST, V_SET, V_DICT, V_OTHER, V_CODE };

/* A code object's fields in the order marshal writes them, one character a
 * field: L a 32-bit int written bare (not an object), B bytes, T a tuple,
 * S a string. The profile module keys the function that runs a script by
 * ('profile', 0, <the script's code object>), and the fields changed with
 * the Python that wrote the file:
 *   -3.7     argcount kwonlyargcount nlocals stacksize flags, code consts
 *            names varnames freevars cellvars filename name, firstlineno,
 *            lnotab;
 *   3.8-3.10 posonlyargcount after argcount (3.10 calls lnotab linetable);
 *   3.11-    argcount posonlyargcount kwonlyargcount stacksize flags, code
 *            consts names localsplusnames localspluskinds filename name
 *            qualname, firstlineno, linetable exceptiontable.
 * The file does not say which Python wrote it. The bytecode follows five
 * ints or six (CODE_5 or CODE_38, see code_layout); five leave 3.7 and
 * 3.11- apart until the tenth field, a tuple of free variables or the bytes
 * of the locals' kinds. A file's code objects all come from one Python, so
 * the first one settles the layout of the others. */
enum { CODE_NONE, CODE_5, CODE_37, CODE_38, CODE_311 };
static const char *const code_fields[] = {"", "LLLLLBTTT?", "LLLLLBTTTTTSSLB", "LLLLLLBTTTTTSSLB", "LLLLLBTTTBSSSLBB"};
/* Where co_filename and co_name are among the object fields. */
static const uint8_t code_file_kid[] = {0, 0, 6, 6, 5};

typedef struct mval {
    uint8_t kind;
    uint32_t n;     /* containers: children (a dict: keys and values, alternating) */
    uint32_t first; /* containers: first child cell, UINT32_MAX when none */
    uint32_t fid;   /* a label tuple: its function once looked up, else UINT32_MAX */
    union {
        int64_t i;
        double d;
        struct {
            uint32_t at, len; /* into the input */
        } s;
        struct {
            int32_t line; /* co_firstlineno */
            uint32_t layout;
        } code;
    } u;
} mval;

/* A container's children are linked cells, not values: a back-reference
 * ('r') makes one value the child of several containers. */
typedef struct cell {
    uint32_t val, next;
} cell;

typedef struct frame {
    uint32_t val;       /* the container being filled */
    uint32_t last;      /* its last cell, UINT32_MAX when none */
    uint64_t remaining; /* tuples, lists, sets: children still to come; a
                           code object: its next field (code_fields) */
} frame;

typedef struct ps {
    cgprop_graph *g;
    cgprop_read_error *err;
    const unsigned char *d;
    size_t len, pos;
    mval *v;
    uint32_t nv, vcap;
    cell *c;
    uint32_t nc, ccap;
    uint32_t *refs;
    uint32_t nrefs, rcap;
    frame *st;
    uint32_t nst, scap;
    uint32_t layout;  /* of the file's code objects, CODE_NONE before the first */
    uint64_t floors;  /* negative times read as 0 */
    char *key;
    size_t kcap;
    /* The reader's own index of the functions the dict's keys name: their
     * keys copied into kb, found by a hash of the key bytes. The callers'
     * labels are looked up here several labels ahead of their turn, so
     * the misses of a lookup overlap (see look_ahead). */
    struct lslot {
        uint32_t fp, fid1, off, len; /* fid1: the function + 1, 0 when empty */
    } *lt;
    uint32_t lmask;
    char *kb;
    uint32_t kbn, kbcap;
    /* The direct path's index of the entries' plain labels (f_plain): the
     * same slots, off and len the label's bytes in the input. */
    struct lslot *pt;
    uint32_t pmask;
    uint32_t *flat; /* the callers' labels in the order the calls are read */
    uint32_t nflat;
    struct ahead *ring; /* PS_AHEAD of them prepared ahead */
    /* Calls with a cost, added PS_BATCH at a time (cgprop__add_edges). */
    uint32_t *bcaller, *bcallee;
    uint64_t *bcount, *bcost;
    uint32_t nb;
} ps;

#define NOPE UINT32_MAX
#define OOM(p) cgprop__read_fail((p)->err, CGPROP_ENOMEM, 0, "out of memory")

static int grow(ps *p, void **arr, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap) return CGPROP_OK;
    uint64_t c = *cap ? (uint64_t)*cap * 2 : 256;
    while (c < need) c *= 2;
    if (c > UINT32_MAX - 1) c = UINT32_MAX - 1;
    void *q = cgprop__realloc(p->g, *arr, (size_t)c, size);
    if (!q) return OOM(p);
    *arr = q;
    *cap = (uint32_t)c;
    return CGPROP_OK;
}

static int fail_at(ps *p, size_t at, const char *what)
{
    return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "%s at byte offset %zu", what, at);
}

static bool need(const ps *p, size_t n) { return p->len - p->pos >= n; }

static uint32_t u32le(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* A new value; with FLAG_REF it also takes the next back-reference slot.
 * Containers take their slot when they start, as marshal numbers them. */
static int new_val(ps *p, uint8_t kind, bool ref, uint32_t *out)
{
    int rc = grow(p, (void **)&p->v, &p->vcap, p->nv + 1, sizeof *p->v);
    if (rc) return rc;
    uint32_t id = p->nv++;
    memset(&p->v[id], 0, sizeof p->v[id]);
    p->v[id].kind = kind;
    p->v[id].first = NOPE;
    p->v[id].fid = NOPE;
    if (ref) {
        rc = grow(p, (void **)&p->refs, &p->rcap, p->nrefs + 1, sizeof *p->refs);
        if (rc) return rc;
        p->refs[p->nrefs++] = id;
    }
    *out = id;
    return CGPROP_OK;
}

/* Give value id, read at byte offset at, to the innermost open container
 * (or make it the root). */
static int attach(ps *p, uint32_t id, size_t at, uint32_t *root)
{
    if (p->nst == 0) {
        *root = id;
        return CGPROP_OK;
    }
    frame *f = &p->st[p->nst - 1];
    if (p->v[f->val].kind == V_CODE) {
        /* A field of the wrong type means another layout (or no code
         * object at all): refused here, not read as something else. */
        char want = code_fields[p->layout][f->remaining];
        uint8_t k = p->v[id].kind;
        if (want == '?' && (k == V_TUPLE || k == V_STR)) p->layout = k == V_TUPLE ? CODE_37 : CODE_311;
        else if (want == 'T' ? k != V_TUPLE : k != V_STR)
            return fail_at(p, at, "a code object's field of another type than its layout's");
    }
    int rc = grow(p, (void **)&p->c, &p->ccap, p->nc + 1, sizeof *p->c);
    if (rc) return rc;
    uint32_t ci = p->nc++;
    p->c[ci].val = id;
    p->c[ci].next = NOPE;
    if (f->last == NOPE) p->v[f->val].first = ci;
    else p->c[f->last].next = ci;
    f->last = ci;
    p->v[f->val].n++;
    if (p->v[f->val].kind == V_CODE) f->remaining++;
    else if (p->v[f->val].kind != V_DICT) f->remaining--;
    return CGPROP_OK;
}

static int push(ps *p, uint32_t id, uint64_t n)
{
    int rc = grow(p, (void **)&p->st, &p->scap, p->nst + 1, sizeof *p->st);
    if (rc) return rc;
    p->st[p->nst].val = id;
    p->st[p->nst].last = NOPE;
    p->st[p->nst].remaining = n;
    p->nst++;
    return CGPROP_OK;
}

/* marshal's 'l': |n| base-2^15 digits, least significant first; the sign
 * of n is the number's. Values past 63 bits are kept as "big". */
static int read_long(ps *p, size_t at, uint32_t id)
{
    if (!need(p, 4)) return fail_at(p, at, "truncated long");
    int32_t n = (int32_t)u32le(p->d + p->pos);
    p->pos += 4;
    uint64_t size = n < 0 ? (uint64_t)(-(int64_t)n) : (uint64_t)n;
    if (size > (p->len - p->pos) / 2) return fail_at(p, at, "truncated long");
    uint64_t mag = 0;
    bool big = false;
    for (uint64_t j = 0; j < size; j++) {
        unsigned dg = (unsigned)p->d[p->pos] | (unsigned)p->d[p->pos + 1] << 8;
        p->pos += 2;
        if (dg >= 0x8000u) return fail_at(p, at, "bad digit in long");
        if (!dg) continue;
        if (j >= 5 || (j == 4 && (dg >> 3) != 0)) big = true; /* 15 * 4 + 3 = 63 bits */
        else mag |= (uint64_t)dg << (15 * j);
    }
    if (big) p->v[id].kind = V_BIGINT;
    else p->v[id].u.i = n < 0 ? -(int64_t)mag : (int64_t)mag;
    return CGPROP_OK;
}

/* Whether a bytes object, or a back-reference to a string, starts at byte
 * q: what follows a code object's ints. */
static bool bytes_at(const ps *p, size_t q)
{
    if (q >= p->len || p->len - q < 5) return false;
    unsigned t = p->d[q] & 0x7fu;
    uint32_t n = u32le(p->d + q + 1);
    if (t == 's') return n <= p->len - q - 5;
    return t == 'r' && n < p->nrefs && p->v[p->refs[n]].kind == V_STR;
}

/* The layout of the file's first code object, whose ints start at p->pos:
 * CODE_38 when the bytecode follows six ints, CODE_5 when it follows five.
 * Both fit only where a length read from the wrong place still fits in
 * the input (1.9 GB, a flags byte of 's' as its top byte); six is then
 * taken, as a nested generator of 3.8 to 3.10 has such flags. */
static int code_layout(ps *p, size_t at)
{
    if (bytes_at(p, p->pos + 24)) p->layout = CODE_38;
    else if (bytes_at(p, p->pos + 20)) p->layout = CODE_5;
    else return fail_at(p, at, "code object of no known layout");
    return CGPROP_OK;
}

/* The bare ints of the open code object f up to its next object field;
 * *done when none is left. The last one read is co_firstlineno. */
static int code_ints(ps *p, frame *f, bool *done)
{
    const char *lay = code_fields[p->layout];
    mval *c = &p->v[f->val];
    while (lay[f->remaining] == 'L') {
        if (!need(p, 4)) return fail_at(p, p->pos, "truncated code object");
        c->u.code.line = (int32_t)u32le(p->d + p->pos);
        p->pos += 4;
        f->remaining++;
    }
    *done = lay[f->remaining] == '\0';
    if (*done) c->u.code.layout = p->layout;
    return CGPROP_OK;
}

/* Decode the whole input into the table; *root gets the top value. */
static int decode(ps *p, uint32_t *root)
{
    *root = NOPE;
    while (*root == NOPE || p->nst) {
        /* Close the tuples, lists, sets and code objects that are full. */
        while (p->nst) {
            frame *f = &p->st[p->nst - 1];
            uint8_t k = p->v[f->val].kind;
            if (k == V_CODE) {
                bool done;
                int rc = code_ints(p, f, &done);
                if (rc) return rc;
                if (!done) break;
            } else if (k == V_DICT || f->remaining) {
                break;
            }
            p->nst--;
        }
        if (*root != NOPE && p->nst == 0) break;
        size_t at = p->pos;
        if (!need(p, 1)) return fail_at(p, at, "truncated input");
        unsigned code = p->d[p->pos++];
        bool ref = (code & 0x80u) != 0;
        unsigned t = code & 0x7fu;
        uint32_t id;
        int rc;
        switch (t) {
        case '0': {
            /* Ends a dict, in place of a key. */
            frame *f = p->nst ? &p->st[p->nst - 1] : NULL;
            if (!f || p->v[f->val].kind != V_DICT || p->v[f->val].n % 2)
                return fail_at(p, at, "marshal NULL outside a dict key");
            p->nst--;
            continue;
        }
        case 'N':
        case 'F':
        case 'T':
        case '.': /* Ellipsis */
        case 'S': /* StopIteration */
            /* Singletons never take a back-reference slot. */
            if ((rc = new_val(p, t == 'N' ? V_NONE : t == 'F' || t == 'T' ? V_BOOL : V_OTHER, false, &id))) return rc;
            p->v[id].u.i = t == 'T';
            break;
        case 'y': /* complex, two binary floats */
            if (!need(p, 16)) return fail_at(p, at, "truncated complex");
            if ((rc = new_val(p, V_OTHER, ref, &id))) return rc;
            p->pos += 16;
            break;
        case 'x': /* complex, two text floats of marshal versions 0 and 1 */
            for (int j = 0; j < 2; j++) {
                if (!need(p, 1) || !need(p, 1 + (size_t)p->d[p->pos])) return fail_at(p, at, "truncated complex");
                p->pos += 1 + (size_t)p->d[p->pos];
            }
            if ((rc = new_val(p, V_OTHER, ref, &id))) return rc;
            break;
        case 'c':
            /* A code object: its slot comes first, as marshal numbers it,
             * then its fields (code_ints and attach read them in turn). */
            if (p->layout == CODE_NONE && (rc = code_layout(p, at))) return rc;
            if ((rc = new_val(p, V_CODE, ref, &id))) return rc;
            if ((rc = attach(p, id, at, root))) return rc;
            if ((rc = push(p, id, 0))) return rc;
            continue;
        case 'i':
            if (!need(p, 4)) return fail_at(p, at, "truncated int");
            if ((rc = new_val(p, V_INT, ref, &id))) return rc;
            p->v[id].u.i = (int32_t)u32le(p->d + p->pos);
            p->pos += 4;
            break;
        case 'I': /* 64-bit int of old marshal versions */
            if (!need(p, 8)) return fail_at(p, at, "truncated int64");
            if ((rc = new_val(p, V_INT, ref, &id))) return rc;
            p->v[id].u.i = (int64_t)((uint64_t)u32le(p->d + p->pos) | (uint64_t)u32le(p->d + p->pos + 4) << 32);
            p->pos += 8;
            break;
        case 'l':
            if ((rc = new_val(p, V_INT, ref, &id))) return rc;
            if ((rc = read_long(p, at, id))) return rc;
            break;
        case 'g': {
            if (!need(p, 8)) return fail_at(p, at, "truncated float");
            if ((rc = new_val(p, V_FLOAT, ref, &id))) return rc;
            uint64_t b = (uint64_t)u32le(p->d + p->pos) | (uint64_t)u32le(p->d + p->pos + 4) << 32;
            memcpy(&p->v[id].u.d, &b, sizeof b);
            p->pos += 8;
            break;
        }
        case 'f': {
            /* Text float of marshal versions 0 and 1: one length byte. */
            if (!need(p, 1)) return fail_at(p, at, "truncated float");
            size_t n = p->d[p->pos++];
            if (!need(p, n)) return fail_at(p, at, "truncated float");
            char buf[260];
            memcpy(buf, p->d + p->pos, n);
            buf[n] = '\0';
            char *end;
            double x = strtod(buf, &end);
            if (n == 0 || end != buf + n) return fail_at(p, at, "bad text float");
            p->pos += n;
            if ((rc = new_val(p, V_FLOAT, ref, &id))) return rc;
            p->v[id].u.d = x;
            break;
        }
        case 's': /* bytes */
        case 't': /* interned */
        case 'u': /* UTF-8 */
        case 'a': /* ASCII */
        case 'A': /* ASCII, interned */
        case 'z': /* short ASCII */
        case 'Z': /* short ASCII, interned */ {
            size_t n;
            if (t == 'z' || t == 'Z') {
                if (!need(p, 1)) return fail_at(p, at, "truncated string");
                n = p->d[p->pos++];
            } else {
                if (!need(p, 4)) return fail_at(p, at, "truncated string");
                n = u32le(p->d + p->pos);
                p->pos += 4;
            }
            if (!need(p, n)) return fail_at(p, at, "truncated string");
            if ((rc = new_val(p, V_STR, ref, &id))) return rc;
            p->v[id].u.s.at = (uint32_t)p->pos;
            p->v[id].u.s.len = (uint32_t)n;
            p->pos += n;
            break;
        }
        case 'r': {
            if (!need(p, 4)) return fail_at(p, at, "truncated reference");
            uint32_t r = u32le(p->d + p->pos);
            p->pos += 4;
            if (r >= p->nrefs) return fail_at(p, at, "reference to an object not read yet");
            id = p->refs[r];
            break;
        }
        case '(':
        case ')':
        case '[':
        case '<':
        case '>':
        case '{': {
            uint64_t n = 0;
            if (t == ')') {
                if (!need(p, 1)) return fail_at(p, at, "truncated tuple");
                n = p->d[p->pos++];
            } else if (t != '{') {
                if (!need(p, 4)) return fail_at(p, at, "truncated container");
                int32_t sn = (int32_t)u32le(p->d + p->pos);
                p->pos += 4;
                if (sn < 0) return fail_at(p, at, "negative container size");
                n = (uint64_t)sn;
            }
            /* Every element takes at least one byte. */
            if (n > p->len - p->pos) return fail_at(p, at, "container larger than the input");
            uint8_t kind = t == '(' || t == ')' ? V_TUPLE : t == '[' ? V_LIST : t == '{' ? V_DICT : V_SET;
            if ((rc = new_val(p, kind, ref, &id))) return rc;
            if ((rc = attach(p, id, at, root))) return rc;
            if ((kind == V_DICT || n) && (rc = push(p, id, n))) return rc;
            continue;
        }
        default: {
            char what[64];
            snprintf(what, sizeof what, "unsupported marshal type 0x%02x", code);
            return fail_at(p, at, what);
        }
        }
        if ((rc = attach(p, id, at, root))) return rc;
    }
    if (p->pos != p->len) return fail_at(p, p->pos, "bytes after the statistics");
    return CGPROP_OK;
}

/* ---- the stats dict ---- */

/* The i-th child of container c (i small: tuples of at most 5). */
static const mval *kid(const ps *p, const mval *c, uint32_t i)
{
    uint32_t ci = c->first;
    while (i--) ci = p->c[ci].next;
    return &p->v[p->c[ci].val];
}

static bool num(const mval *m, double *x)
{
    if (m->kind == V_FLOAT) *x = m->u.d;
    else if (m->kind == V_INT) *x = (double)m->u.i;
    else return false;
    return true;
}

/* Seconds -> integer nanoseconds, rounded to nearest. 18446744073709549568
 * is 2^64 - 2048, the largest double below 2^64.
 * A time below 0 (one that rounds to less than 0 ns) is read as 0 and
 * counted in p->floors: the profile module calibrated with a bias larger
 * than its overhead takes more off an activation than it lasted, and the
 * user asked for that correction; refusing the whole profile would leave
 * nothing to read, and the costs here are unsigned. */
static int to_ns(ps *p, const mval *m, const char *what, uint64_t *out)
{
    double x;
    if (!num(m, &x)) return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "%s is not a number", what);
    if (x != x) return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "%s is NaN", what);
    if (x < -DBL_MAX) return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "%s is minus infinity", what);
    if (x * 1e9 < -0.5) {
        p->floors++;
        *out = 0;
        return CGPROP_OK;
    }
    if (!(x * 1e9 < 18446744073709549568.0))
        return cgprop__read_fail(p->err, CGPROP_EOVERFLOW, 0, "%s of %g s overflows 64-bit nanoseconds", what, x);
    double r = x * 1e9 + 0.5;
    *out = r >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)r;
    return CGPROP_OK;
}

static int count_of(ps *p, const mval *m, const char *what, uint64_t *out)
{
    if (m->kind == V_BIGINT) return cgprop__read_fail(p->err, CGPROP_EOVERFLOW, 0, "%s too large", what);
    if (m->kind != V_INT || m->u.i < 0)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "%s is not a non-negative integer", what);
    *out = (uint64_t)m->u.i;
    return CGPROP_OK;
}

/* String m into o, TABs and line breaks as spaces (a key is one line of a
 * text format); the end of what was written. */
static char *put_str(const ps *p, const mval *m, char *o)
{
    for (uint32_t i = 0; i < m->u.s.len; i++) {
        char ch = (char)p->d[m->u.s.at + i];
        *o++ = ch == '\t' || ch == '\n' ? ' ' : ch;
    }
    return o;
}

/* The name of code object c, in a label's name place: Python's repr of it
 * without the address (which changes every run, and would keep two runs of
 * one script apart): <code object NAME, file "FILE", line N>. Its length;
 * written to o unless o is NULL. */
static size_t code_name(const ps *p, const mval *c, char *o)
{
    uint8_t fk = code_file_kid[c->u.code.layout];
    const mval *cf = kid(p, c, fk), *cn = kid(p, c, fk + 1u);
    char ln[32];
    int nl = snprintf(ln, sizeof ln, "\", line %ld>", (long)c->u.code.line);
    if (o) {
        memcpy(o, "<code object ", 13);
        o = put_str(p, cn, o + 13);
        memcpy(o, ", file \"", 8);
        o = put_str(p, cf, o + 8);
        memcpy(o, ln, (size_t)nl);
    }
    return 13 + (size_t)cn->u.s.len + 8 + cf->u.s.len + (size_t)nl;
}

/* The length of a label's name part: a string's, or a code object's name. */
static size_t name_len(const ps *p, const mval *nm)
{
    return nm->kind == V_CODE ? code_name(p, nm, NULL) : nm->u.s.len;
}

/* The key of label (f, line, nm) into o (room for 1 + |f| + |ln| +
 * name_len(nm) bytes); ln is ":line TAB". */
static void write_key(const ps *p, const mval *f, const char *ln, size_t nl, const mval *nm, char *o)
{
    *o++ = '\t';
    o = put_str(p, f, o);
    memcpy(o, ln, nl);
    o += nl;
    if (nm->kind == V_CODE) (void)code_name(p, nm, o);
    else (void)put_str(p, nm, o);
}

/* A (file, line, name) label -> function: key "TAB file:line TAB name", the
 * object part empty, as every reader's keys have none or two TABs (the
 * callgrind writer turns them into ob=, fl= and fn=). TABs and line breaks
 * in the strings become spaces: a key is one line of a text format. */
static int label(ps *p, mval *k, uint32_t *out)
{
    /* Each function's label is read twice (once per pass), and a label
     * marshal shares by reference is read once for all its uses. */
    if (k->fid != NOPE) {
        *out = k->fid;
        return CGPROP_OK;
    }
    if (k->kind != V_TUPLE || k->n != 3)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "a function label is not a (file, line, name) tuple");
    const mval *f = kid(p, k, 0), *l = kid(p, k, 1), *nm = kid(p, k, 2);
    /* The name may be a code object: the profile module's label of the
     * function that runs a script (code_name). */
    if (f->kind != V_STR || (nm->kind != V_STR && nm->kind != V_CODE) || l->kind != V_INT)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "a function label is not (str, int, str)");
    char ln[24];
    int nl = snprintf(ln, sizeof ln, ":%lld\t", (long long)l->u.i);
    size_t n = 1 + (size_t)f->u.s.len + (size_t)nl + name_len(p, nm);
    if (n > p->kcap) {
        char *q = cgprop__realloc(p->g, p->key, n, 1);
        if (!q) return OOM(p);
        p->key = q;
        p->kcap = n;
    }
    write_key(p, f, ln, (size_t)nl, nm, p->key);
    int rc = cgprop_graph_add_node(p->g, p->key, n, out);
    if (rc) return cgprop__read_fail(p->err, rc, 0, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    k->fid = *out;
    return CGPROP_OK;
}

/* ---- the reader's index of the dict's functions ---- */

static uint64_t key_hash(const char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    for (size_t i = 0; i < n; i++) w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 32;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 29;
    return h;
}

/* A slot table with room for about nf labels (at most half full), its
 * mask in *mask; NULL when too large or out of memory. */
static struct lslot *slot_table(ps *p, uint32_t nf, uint32_t *mask)
{
    uint64_t cap = 64;
    while (cap < (uint64_t)nf * 2) cap *= 2;
    if (cap > ((uint64_t)1 << 31)) return NULL;
    struct lslot *t = cgprop__calloc(p->g, (size_t)cap, sizeof *t);
    if (t) *mask = (uint32_t)(cap - 1);
    return t;
}

/* Room for about nf functions; without it (no memory) every label is
 * looked up in the graph, as before the index. */
static void lindex_init(ps *p, uint32_t nf) { p->lt = slot_table(p, nf, &p->lmask); }

/* Add key (n bytes, hash h) of function fid; nothing when out of room. */
static void lindex_add(ps *p, const char *key, size_t n, uint64_t h, uint32_t fid)
{
    if (!p->lt || n > UINT32_MAX - 1 - p->kbn || fid >= UINT32_MAX - 1) return;
    if (p->kbn + n > p->kbcap) {
        uint64_t c = p->kbcap ? (uint64_t)p->kbcap * 2 : 1 << 16;
        while (c < (uint64_t)p->kbn + n) c *= 2;
        if (c > UINT32_MAX) c = UINT32_MAX;
        char *q = cgprop__realloc(p->g, p->kb, (size_t)c, 1);
        if (!q) return;
        p->kb = q;
        p->kbcap = (uint32_t)c;
    }
    memcpy(p->kb + p->kbn, key, n);
    uint32_t i = (uint32_t)h & p->lmask;
    while (p->lt[i].fid1) i = (i + 1) & p->lmask;
    p->lt[i].fp = (uint32_t)(h >> 32);
    p->lt[i].fid1 = fid + 1;
    p->lt[i].off = p->kbn;
    p->lt[i].len = (uint32_t)n;
    p->kbn += (uint32_t)n;
}

/* A caller's label prepared ahead of its turn: its key and hash. */
#define PS_AHEAD 16
#define PS_CHUNK 64
#define PS_BATCH 4096
#define PS_KMAX 200
typedef struct ahead {
    uint32_t val; /* the label's value, NOPE when it is left to label() */
    uint32_t len;
    uint64_t h;
    char key[PS_KMAX];
} ahead;

/* Prepare label value id (a caller's): its key and hash, and fetch its
 * index slot. Labels of another shape, already resolved, or with long keys
 * are left to label(), which also says what is wrong with them. */
static void look_ahead(const ps *p, uint32_t id, ahead *a)
{
    a->val = NOPE;
    const mval *k = &p->v[id];
    if (!p->lt || k->fid != NOPE || k->kind != V_TUPLE || k->n != 3) return;
    const mval *f = kid(p, k, 0), *l = kid(p, k, 1), *nm = kid(p, k, 2);
    if (f->kind != V_STR || nm->kind != V_STR || l->kind != V_INT) return;
    char ln[24];
    int nl = snprintf(ln, sizeof ln, ":%lld\t", (long long)l->u.i);
    size_t n = 1 + (size_t)f->u.s.len + (size_t)nl + nm->u.s.len;
    if (n > PS_KMAX) return;
    write_key(p, f, ln, (size_t)nl, nm, a->key);
    a->len = (uint32_t)n;
    a->h = key_hash(a->key, n);
    a->val = id;
    CGPROP__PREFETCH(&p->lt[(uint32_t)a->h & p->lmask]);
}

/* Keys are short: compared eight bytes at a time without a call. */
static bool key_eq(const char *x, const char *y, size_t n)
{
    while (n >= 8) {
        uint64_t a, b;
        memcpy(&a, x, 8);
        memcpy(&b, y, 8);
        if (a != b) return false;
        x += 8;
        y += 8;
        n -= 8;
    }
    while (n--)
        if (*x++ != *y++) return false;
    return true;
}

/* The function of a prepared label, or NOPE when the index has none. */
static uint32_t lindex_find(const ps *p, const ahead *a)
{
    uint32_t fp = (uint32_t)(a->h >> 32);
    for (uint32_t i = (uint32_t)a->h & p->lmask;; i = (i + 1) & p->lmask) {
        const struct lslot *s = &p->lt[i];
        if (!s->fid1) return NOPE;
        if (s->fp == fp && s->len == a->len && key_eq(p->kb + s->off, a->key, a->len)) return s->fid1 - 1;
    }
}

/* The same slot search, only to fetch the key bytes it will compare. */
static void lindex_touch(const ps *p, const ahead *a)
{
    if (a->val == NOPE) return;
    const struct lslot *s = &p->lt[(uint32_t)a->h & p->lmask];
    if (s->fid1 && s->fp == (uint32_t)(a->h >> 32)) CGPROP__PREFETCH(p->kb + s->off);
}

static int graph_fail(ps *p, int rc)
{
    if (rc == CGPROP_EOVERFLOW) return cgprop__read_fail(p->err, rc, 0, "a cost sum overflows 64 bits");
    return cgprop__read_fail(p->err, rc, 0, "%s", cgprop_graph_errmsg(p->g));
}

/* The callers' labels of every entry, in the order the second pass reads
 * them (up to the first entry of another shape, where it stops with an
 * error), and the first PS_AHEAD of them prepared. Without memory, no
 * looking ahead. */
static void prepare_callers(ps *p, const mval *top)
{
    if (!p->lt) return;
    uint64_t n = 0;
    for (uint32_t ci = top->first; ci != NOPE; ci = p->c[p->c[ci].next].next) {
        const mval *val = &p->v[p->c[p->c[ci].next].val];
        if (val->kind != V_TUPLE || val->n != 5) break;
        const mval *callers = kid(p, val, 4);
        if (callers->kind != V_DICT) break;
        n += callers->n / 2;
    }
    if (n == 0 || n > UINT32_MAX - 1) return;
    p->flat = cgprop__alloc(p->g, (size_t)n, sizeof *p->flat);
    p->ring = cgprop__alloc(p->g, PS_AHEAD, sizeof *p->ring);
    if (!p->flat || !p->ring) return;
    uint32_t m = 0;
    for (uint32_t ci = top->first; ci != NOPE && m < n; ci = p->c[p->c[ci].next].next) {
        const mval *val = &p->v[p->c[p->c[ci].next].val];
        const mval *callers = kid(p, val, 4);
        for (uint32_t cj = callers->first; cj != NOPE && m < n; cj = p->c[p->c[cj].next].next)
            p->flat[m++] = p->c[cj].val;
    }
    p->nflat = m;
    for (uint32_t j = 0; j < PS_AHEAD && j < m; j++) look_ahead(p, p->flat[j], &p->ring[j]);
}

/* Add the first k of the calls gathered, in their order (the graph ends as
 * adding them one by one would leave it); the others move to the front. */
static int flush_first(ps *p, uint32_t k)
{
    uint32_t m = p->nb - k;
    p->nb = 0;
    if (!k) return CGPROP_OK;
    int rc = cgprop__add_edges(p->g, k, p->bcaller, p->bcallee, p->bcount, p->bcost, NULL);
    if (rc) return graph_fail(p, rc);
    memmove(p->bcaller, p->bcaller + k, m * sizeof *p->bcaller);
    memmove(p->bcallee, p->bcallee + k, m * sizeof *p->bcallee);
    memmove(p->bcount, p->bcount + k, m * sizeof *p->bcount);
    memmove(p->bcost, p->bcost + k, m * sizeof *p->bcost);
    p->nb = m;
    return CGPROP_OK;
}

/* Add every call gathered so far. */
static int flush_calls(ps *p) { return flush_first(p, p->nb); }

/* A full batch: added up to the run of calls into its last callee, which
 * waits for the next batch. A function's callers then come in one batch
 * (unless they are more than a batch holds), so none of its calls exists
 * when they are added, and the graph needs no look-up, nor the call index's
 * memory, to know that they are new. */
static int flush_full(ps *p)
{
    uint32_t gs = p->nb, f = p->bcallee[gs - 1];
    while (gs > 0 && p->bcallee[gs - 1] == f) gs--;
    return flush_first(p, gs ? gs : p->nb);
}

/* The spontaneous entries of a function its callers do not account for.
 * cProfile files a call under its caller only when a profiled function is
 * running (_lsprof.c makes a caller's subentry when the new activation has
 * a previous one), so nc less the callers' counts were entered with nothing
 * profiled below them: the script's exec, which the imports it runs enter
 * again, or a function met when the profiler was enabled mid-stack. Their
 * cost is not in the file. ct less the costs of the calls in is a lower
 * bound of it, exact unless some of those calls ran inside another
 * activation of the function (ct counts that time once, in the outer one;
 * the call's cost again): such activations are outermost, each one is in
 * ct, and every other outermost one is a call in. A lower bound keeps the
 * stated ct inside what the calls around it prove. With no callers at all,
 * every call is one of them: nc, at cost ct. */
static bool spont_rest(uint64_t nc, uint64_t ct, uint64_t ncallers, uint64_t in_cnt, uint64_t in_cost,
                       uint64_t *cnt, uint64_t *cost)
{
    if (ncallers == 0) {
        *cnt = nc;
        *cost = ct;
        return true;
    }
    if (nc <= in_cnt) return false;
    *cnt = nc - in_cnt;
    *cost = ct > in_cost ? ct - in_cost : 0;
    return true;
}

static int build_dict(ps *p, uint32_t root, uint64_t *nfun)
{
    const mval *top = &p->v[root];
    if (top->kind != V_DICT) return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "the statistics are not a dict");
    int rc;
    /* One entry per function (a dict's n counts keys and values): size
     * the function table once instead of doubling it up to there. */
    if ((rc = cgprop__reserve_nodes(p->g, top->n / 2))) return rc == CGPROP_ENOMEM ? OOM(p) : graph_fail(p, rc);
    lindex_init(p, top->n / 2);
    uint32_t cur = 0; /* the next caller's place in p->flat */
    /* Two passes: every function with its own figures, then the calls (a
     * caller may come later in the dict). */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) prepare_callers(p, top);
        for (uint32_t ci = top->first; ci != NOPE; ci = p->c[p->c[ci].next].next) {
            mval *k = &p->v[p->c[ci].val];
            const mval *val = &p->v[p->c[p->c[ci].next].val];
            uint32_t f, nn0 = p->g->nn;
            if ((rc = label(p, k, &f))) return rc;
            /* A new function: label() left its key in p->key. */
            if (pass == 0 && p->g->nn != nn0 && p->lt) {
                size_t kl = p->g->key_len[f];
                lindex_add(p, p->key, kl, key_hash(p->key, kl), f);
            }
            if (val->kind != V_TUPLE || val->n != 5)
                return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0,
                                         "a function's figures are not a (cc, nc, tt, ct, callers) tuple");
            const mval *callers = kid(p, val, 4);
            if (callers->kind != V_DICT)
                return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "a function's callers are not a dict");
            uint64_t nc = 0, tt = 0, ct = 0, cc = 0, floors = p->floors;
            if ((rc = count_of(p, kid(p, val, 0), "a primitive call count", &cc)) ||
                (rc = count_of(p, kid(p, val, 1), "a call count", &nc)) ||
                (rc = to_ns(p, kid(p, val, 2), "a tottime", &tt)) || (rc = to_ns(p, kid(p, val, 3), "a cumtime", &ct)))
                return rc;
            if (pass == 1) p->floors = floors; /* read again: counted in pass 0 */
            if (pass == 0) {
                (*nfun)++;
                if ((rc = cgprop_graph_add_self(p->g, f, &tt))) return graph_fail(p, rc);
                if ((rc = cgprop__graph_state_total(p->g, f, &ct))) return graph_fail(p, rc);
                continue;
            }
            uint64_t in_cnt = 0, in_cost = 0;
            for (uint32_t cj = callers->first; cj != NOPE; cj = p->c[p->c[cj].next].next) {
                uint32_t ckid = p->c[cj].val;
                mval *ck = &p->v[ckid];
                const mval *cv = &p->v[p->c[p->c[cj].next].val];
                uint32_t a = NOPE;
                if (cur < p->nflat && p->flat[cur] == ckid) {
                    ahead *e = &p->ring[cur % PS_AHEAD];
                    if (cur + PS_AHEAD / 2 < p->nflat) lindex_touch(p, &p->ring[(cur + PS_AHEAD / 2) % PS_AHEAD]);
                    if (e->val == ckid) a = lindex_find(p, e);
                    if (cur + PS_AHEAD < p->nflat) look_ahead(p, p->flat[cur + PS_AHEAD], e);
                    cur++;
                } else {
                    p->nflat = 0; /* not the order foreseen: no more looking ahead */
                }
                if (a != NOPE) ck->fid = a;
                else if ((rc = label(p, ck, &a))) return rc;
                uint64_t cnt = 0, cost = 0;
                bool has_cost = false;
                if (cv->kind == V_INT || cv->kind == V_BIGINT) {
                    /* Older profilers: a bare count. */
                    if ((rc = count_of(p, cv, "a caller's call count", &cnt))) return rc;
                } else if (cv->kind == V_TUPLE && cv->n == 4) {
                    if ((rc = count_of(p, kid(p, cv, 0), "a caller's call count", &cnt)) ||
                        (rc = to_ns(p, kid(p, cv, 3), "a caller's cumtime", &cost)))
                        return rc;
                    has_cost = true;
                } else {
                    return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0,
                                             "a caller's figures are neither a count nor (nc, cc, tt, ct)");
                }
                (void)cgprop__sat_add(&in_cnt, cnt);
                (void)cgprop__sat_add(&in_cost, cost);
                if (has_cost && p->bcaller) {
                    p->bcaller[p->nb] = a;
                    p->bcallee[p->nb] = f;
                    p->bcount[p->nb] = cnt;
                    p->bcost[p->nb] = cost;
                    if (++p->nb == PS_BATCH && (rc = flush_full(p))) return rc;
                    continue;
                }
                if ((rc = flush_calls(p))) return rc;
                if ((rc = cgprop_graph_add_edge(p->g, a, f, cnt, has_cost ? &cost : NULL, NULL)))
                    return graph_fail(p, rc);
            }
            uint64_t sc, scost;
            if (spont_rest(nc, ct, callers->n, in_cnt, in_cost, &sc, &scost) &&
                (rc = cgprop_graph_add_spontaneous(p->g, f, sc, &scost)))
                return graph_fail(p, rc);
        }
    }
    return CGPROP_OK;
}

/* The calls gathered when an error stops the reading come first: the
 * error is the first one in the input's order, as if each call had been
 * added as it was read. */
static int build(ps *p, uint32_t root, uint64_t *nfun)
{
    p->bcaller = cgprop__alloc(p->g, 2 * PS_BATCH, sizeof *p->bcaller);
    p->bcount = cgprop__alloc(p->g, 2 * PS_BATCH, sizeof *p->bcount);
    if (!p->bcaller || !p->bcount) {
        cgprop__free(p->g, p->bcaller);
        cgprop__free(p->g, p->bcount);
        p->bcaller = NULL;
        p->bcount = NULL;
    } else {
        p->bcallee = p->bcaller + PS_BATCH;
        p->bcost = p->bcount + PS_BATCH;
    }
    int rc = build_dict(p, root, nfun);
    int frc = flush_calls(p);
    return frc ? frc : rc;
}

/* ---- the direct path ----
 *
 * The table of decoded values above costs ~40 bytes a value (six million
 * for 40 MB of statistics) before the first label is looked up. Statistics
 * of the usual shape are read instead straight from the bytes: one walk
 * lists each entry's figures and the offset of each label, then the two
 * passes of build_dict run over those lists, labels decoded again from the
 * input where they are needed. Anything else on the way (a type this walk
 * does not take, a value out of range, a reference to a container, any
 * error, the graph's included) drops the walk: the graph is made again by
 * decode() and build(), which say what is wrong. */

enum { FR_OPEN, FR_STR, FR_INT, FR_FLOAT, FR_LABEL };

typedef struct fref {
    uint32_t kind, a; /* FR_STR: a = offset, x = length; FR_LABEL: a = the tuple's offset */
    uint64_t x;       /* FR_INT: the int64; FR_FLOAT: the bits */
} fref;

typedef struct fentry {
    uint32_t at;      /* the key label's offset */
    uint32_t slot;    /* its back-reference slot, NOPE when none */
    uint32_t ncallers;
    uint32_t h;       /* the hash of its plain bytes (f_plain), 0 when not plain */
    uint64_t nc, tt, ct;
    uint64_t in_cnt, in_cost; /* what its calls in count and cost (spont_rest) */
} fentry;

/* Bit 31 of a call's callee: the call has a cost (a tuple of figures, not
 * a bare count). */
#define F_HAS_COST 0x80000000u

/* 32 bytes: the flag in the callee's top bit, not a field after the 64-bit
 * ones (40 with its padding), a fifth less of the largest list the walk
 * makes. */
typedef struct fcall {
    uint32_t at, callee; /* the caller label's offset; the callee | F_HAS_COST */
    uint32_t slot;       /* its back-reference slot, NOPE when none */
    uint32_t h;          /* the hash of its plain bytes (f_plain), 0 when not plain */
    uint64_t cnt, cost;
} fcall;

typedef struct flab {
    uint32_t fat, flen, nat, nlen;
    int64_t line;
} flab;

typedef struct fwalk {
    fref *fr;
    uint32_t nfr, frcap;
    fentry *ent;
    uint32_t nent, entcap;
    fcall *call;
    uint32_t ncall, callcap;
} fwalk;

static bool fgrow(const ps *p, void **arr, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap) return true;
    uint64_t c = *cap ? (uint64_t)*cap * 2 : 1024;
    while (c < need) c *= 2;
    if (c > UINT32_MAX - 1) c = UINT32_MAX - 1;
    void *q = cgprop__realloc(p->g, *arr, (size_t)c, size);
    if (!q) return false;
    *arr = q;
    *cap = (uint32_t)c;
    return true;
}

static bool f_slot(const ps *p, fwalk *w, uint32_t kind, uint32_t a, uint64_t x)
{
    if (!fgrow(p, (void **)&w->fr, &w->frcap, w->nfr + 1, sizeof *w->fr)) return false;
    w->fr[w->nfr].kind = kind;
    w->fr[w->nfr].a = a;
    w->fr[w->nfr].x = x;
    w->nfr++;
    return true;
}

/* An int or a float (kind FR_INT or FR_FLOAT); reg: take the slots of
 * flagged values (false when a label is read again). */
static bool f_num_any(ps *p, fwalk *w, bool reg, uint32_t *kind, uint64_t *x)
{
    size_t q = p->pos + 1;
    if (q > p->len) return false;
    unsigned code = p->d[p->pos], t = code & 0x7fu;
    if (t == 'i') {
        if (p->len - q < 4) return false;
        *kind = FR_INT;
        *x = (uint64_t)(int64_t)(int32_t)u32le(p->d + q);
        q += 4;
    } else if (t == 'g' || t == 'I') {
        if (p->len - q < 8) return false;
        *kind = t == 'g' ? FR_FLOAT : FR_INT;
        *x = (uint64_t)u32le(p->d + q) | (uint64_t)u32le(p->d + q + 4) << 32;
        q += 8;
    } else if (t == 'r') {
        if (p->len - q < 4) return false;
        uint32_t r = u32le(p->d + q);
        if (r >= w->nfr || (w->fr[r].kind != FR_INT && w->fr[r].kind != FR_FLOAT)) return false;
        *kind = w->fr[r].kind;
        *x = w->fr[r].x;
        p->pos = q + 4;
        return true;
    } else {
        return false;
    }
    if ((code & 0x80u) && reg && !f_slot(p, w, *kind, 0, *x)) return false;
    p->pos = q;
    return true;
}

static bool f_str_any(ps *p, fwalk *w, bool reg, uint32_t *at, uint32_t *n)
{
    size_t q = p->pos + 1;
    if (q > p->len) return false;
    unsigned code = p->d[p->pos], t = code & 0x7fu;
    size_t len;
    if (t == 'z' || t == 'Z') {
        if (q >= p->len) return false;
        len = p->d[q++];
    } else if (t == 's' || t == 't' || t == 'u' || t == 'a' || t == 'A') {
        if (p->len - q < 4) return false;
        len = u32le(p->d + q);
        q += 4;
    } else if (t == 'r') {
        if (p->len - q < 4) return false;
        uint32_t r = u32le(p->d + q);
        if (r >= w->nfr || w->fr[r].kind != FR_STR) return false;
        *at = w->fr[r].a;
        *n = (uint32_t)w->fr[r].x;
        p->pos = q + 4;
        return true;
    } else {
        return false;
    }
    if (p->len - q < len) return false;
    *at = (uint32_t)q;
    *n = (uint32_t)len;
    if ((code & 0x80u) && reg && !f_slot(p, w, FR_STR, *at, len)) return false;
    p->pos = q + len;
    return true;
}

/* The values a statistics dict is mostly made of, unflagged ints and
 * floats and short strings, read inline; the rest, and every error, by
 * f_num_any and f_str_any. Those calls were a quarter of the walk's
 * instructions. */
static inline bool f_num(ps *p, fwalk *w, bool reg, uint32_t *kind, uint64_t *x)
{
    const unsigned char *d = p->d + p->pos;
    size_t left = p->len - p->pos;
    if (left >= 5 && d[0] == 'i') {
        *kind = FR_INT;
        *x = (uint64_t)(int64_t)(int32_t)u32le(d + 1);
        p->pos += 5;
        return true;
    }
    if (left >= 9 && d[0] == 'g') {
        *kind = FR_FLOAT;
        *x = (uint64_t)u32le(d + 1) | (uint64_t)u32le(d + 5) << 32;
        p->pos += 9;
        return true;
    }
    return f_num_any(p, w, reg, kind, x);
}

static inline bool f_str(ps *p, fwalk *w, bool reg, uint32_t *at, uint32_t *n)
{
    const unsigned char *d = p->d + p->pos;
    size_t left = p->len - p->pos;
    if (left >= 2 && d[0] == 'z' && left - 2 >= d[1]) {
        *at = (uint32_t)p->pos + 2;
        *n = d[1];
        p->pos += 2 + (size_t)d[1];
        return true;
    }
    return f_str_any(p, w, reg, at, n);
}

/* A (str, int, str) label, or a reference to one; *at gets the tuple's own
 * offset, where it can be read again without its references, and *slot
 * its back-reference slot (NOPE when it has none). A reference is not read
 * again here: its tuple was read whole when it took the slot. */
static bool f_label_any(ps *p, fwalk *w, bool reg, flab *L, uint32_t *at, uint32_t *slot)
{
    *slot = NOPE;
    if (p->pos + 5 <= p->len && (p->d[p->pos] & 0x7fu) == 'r') {
        uint32_t r = u32le(p->d + p->pos + 1);
        if (r >= w->nfr || w->fr[r].kind != FR_LABEL) return false;
        *at = w->fr[r].a;
        *slot = r;
        p->pos += 5;
        return true;
    }
    size_t back = 0;
    size_t q = p->pos + 2;
    if (q > p->len) return false;
    unsigned code = p->d[p->pos], t = code & 0x7fu;
    if (t == ')') {
        if (p->d[p->pos + 1] != 3) return false;
    } else if (t == '(') {
        if (p->len - p->pos < 5 || u32le(p->d + p->pos + 1) != 3) return false;
        q = p->pos + 5;
    } else {
        return false;
    }
    *at = (uint32_t)p->pos;
    uint32_t own = w->nfr;
    bool flagged = (code & 0x80u) && reg;
    if (flagged && !f_slot(p, w, FR_OPEN, 0, 0)) return false;
    p->pos = q;
    uint32_t kind;
    uint64_t x;
    if (!f_str(p, w, reg, &L->fat, &L->flen) || !f_num(p, w, reg, &kind, &x) || kind != FR_INT ||
        !f_str(p, w, reg, &L->nat, &L->nlen))
        return false;
    L->line = (int64_t)x;
    if (flagged) {
        /* x: the label's function + 1 once known, as label() keeps it on
         * a decoded tuple. */
        w->fr[own].kind = FR_LABEL;
        w->fr[own].a = *at;
        *slot = own;
    }
    if (back) p->pos = back;
    return true;
}

/* An unflagged label tuple inline (cProfile's own files flag each label's
 * first use, the bench's and other writers' do not); the rest by
 * f_label_any. */
static inline bool f_label(ps *p, fwalk *w, bool reg, flab *L, uint32_t *at, uint32_t *slot)
{
    if (p->len - p->pos >= 2 && p->d[p->pos] == ')' && p->d[p->pos + 1] == 3) {
        uint32_t kind;
        uint64_t x;
        *slot = NOPE;
        *at = (uint32_t)p->pos;
        p->pos += 2;
        if (!f_str(p, w, reg, &L->fat, &L->flen) || !f_num(p, w, reg, &kind, &x) || kind != FR_INT ||
            !f_str(p, w, reg, &L->nat, &L->nlen))
            return false;
        L->line = (int64_t)x;
        return true;
    }
    return f_label_any(p, w, reg, L, at, slot);
}

/* A container's head of type t ('{' or a tuple of n); a flagged one takes
 * a slot no reference may use. */
static bool f_open(ps *p, fwalk *w, unsigned want, uint32_t n)
{
    if (p->pos >= p->len) return false;
    unsigned code = p->d[p->pos], t = code & 0x7fu;
    size_t q = p->pos + 1;
    if (want == '{') {
        if (t != '{') return false;
    } else if (t == ')') {
        if (q >= p->len || p->d[q] != n) return false;
        q++;
    } else if (t == '(') {
        if (p->len - q < 4 || u32le(p->d + q) != n) return false;
        q += 4;
    } else {
        return false;
    }
    if ((code & 0x80u) && !f_slot(p, w, FR_OPEN, 0, 0)) return false;
    p->pos = q;
    return true;
}

static bool f_at_end(const ps *p) { return p->pos < p->len && (p->d[p->pos] & 0x7fu) == '0'; }

static bool f_count(ps *p, fwalk *w, uint64_t *out)
{
    uint32_t kind;
    uint64_t x;
    if (!f_num(p, w, true, &kind, &x) || kind != FR_INT || (int64_t)x < 0) return false;
    *out = x;
    return true;
}

/* Seconds -> nanoseconds as to_ns() gives them; false where it fails, and
 * for a time below 0, which the decoding path reads and counts. */
static bool f_ns(ps *p, fwalk *w, uint64_t *out)
{
    uint32_t kind;
    uint64_t bits;
    if (!f_num(p, w, true, &kind, &bits)) return false;
    double x;
    if (kind == FR_INT) {
        x = (double)(int64_t)bits;
    } else {
        memcpy(&x, &bits, sizeof x);
    }
    if (!(x >= 0) || !(x * 1e9 < 18446744073709549568.0)) return false;
    double r = x * 1e9 + 0.5;
    *out = r >= 18446744073709549568.0 ? UINT64_MAX : (uint64_t)r;
    return true;
}

/* The length of a plain label at at whose bytes up to its name's length
 * byte can be read (d[10 + d[3]]). */
static uint32_t f_plain_size(const ps *p, uint32_t at)
{
    const unsigned char *d = p->d + at;
    return 11u + d[3] + d[10 + d[3]];
}

/* A label is plain when it is spelt `)` 3 `z` file `i` line `z` name, with
 * no flag and no reference: the bench's files and other writers' that flag
 * nothing spell every label so. Equal plain bytes are the same label, so
 * a plain caller is found among the plain entries by its bytes in the
 * input, hashed while the walk has them at hand, without its key being
 * written out. The plain label at at: its length, or 0. */
static uint32_t f_plain_len(const ps *p, uint32_t at, uint32_t slot, size_t end)
{
    const unsigned char *d = p->d + at;
    if (slot != NOPE || d[0] != ')' || end - at < 11 || d[2] != 'z') return 0;
    size_t n1 = d[3];
    if (end - at < 11 + n1 || d[4 + n1] != 'i' || d[9 + n1] != 'z') return 0;
    uint32_t n = f_plain_size(p, at);
    return end - at == n ? n : 0;
}

/* The hash of n >= 8 bytes at s; never 0 (0: not plain). The last word is
 * read overlapping the one before, with no byte loop. */
static uint32_t f_plain_hash(const unsigned char *s, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (uint64_t)n, t;
    memcpy(&t, s + n - 8, 8);
    while (n > 8) {
        uint64_t x;
        memcpy(&x, s, 8);
        h = (h ^ x) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    h = (h ^ t) * 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 32;
    h *= 0xFF51AFD7ED558CCDull;
    uint32_t r = (uint32_t)(h >> 32);
    return r ? r : 1;
}

static uint32_t f_plain(const ps *p, uint32_t at, uint32_t slot)
{
    uint32_t n = f_plain_len(p, at, slot, p->pos);
    return n ? f_plain_hash(p->d + at, n) : 0;
}

/* The walk: every entry's figures and every caller's label and figures. */
static bool f_walk(ps *p, fwalk *w)
{
    p->pos = 0;
    if (!f_open(p, w, '{', 0)) return false;
    while (!f_at_end(p)) {
        flab L;
        fentry e;
        if (!f_label(p, w, true, &L, &e.at, &e.slot)) return false;
        e.h = f_plain(p, e.at, e.slot);
        if (w->nent >= F_HAS_COST || !f_open(p, w, ')', 5)) return false;
        uint64_t cc;
        if (!f_count(p, w, &cc) || !f_count(p, w, &e.nc) || !f_ns(p, w, &e.tt) || !f_ns(p, w, &e.ct) ||
            !f_open(p, w, '{', 0))
            return false;
        e.ncallers = 0;
        e.in_cnt = e.in_cost = 0;
        while (!f_at_end(p)) {
            fcall c;
            if (!f_label(p, w, true, &L, &c.at, &c.slot)) return false;
            c.h = f_plain(p, c.at, c.slot);
            c.callee = w->nent;
            if (p->pos < p->len && ((p->d[p->pos] & 0x7fu) == '(' || (p->d[p->pos] & 0x7fu) == ')')) {
                uint32_t kind;
                uint64_t x;
                if (!f_open(p, w, ')', 4) || !f_count(p, w, &c.cnt) || !f_num(p, w, true, &kind, &x) ||
                    !f_num(p, w, true, &kind, &x) || !f_ns(p, w, &c.cost))
                    return false;
                c.callee |= F_HAS_COST;
            } else {
                if (!f_count(p, w, &c.cnt)) return false;
                c.cost = 0;
            }
            (void)cgprop__sat_add(&e.in_cnt, c.cnt);
            (void)cgprop__sat_add(&e.in_cost, c.cost);
            if (e.ncallers == UINT32_MAX || !fgrow(p, (void **)&w->call, &w->callcap, w->ncall + 1, sizeof *w->call))
                return false;
            w->call[w->ncall++] = c;
            e.ncallers++;
        }
        p->pos++;
        if (!fgrow(p, (void **)&w->ent, &w->entcap, w->nent + 1, sizeof *w->ent)) return false;
        w->ent[w->nent++] = e;
    }
    p->pos++;
    return p->pos == p->len && w->nent > 0;
}

/* ":line TAB" of a label into o (room for 24); its length. */
static size_t f_line(int64_t v, char *o)
{
    /* Two digits a step, from the end: half the divisions. */
    static const char dd[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                             "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                             "8081828384858687888990919293949596979899";
    uint64_t m = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t nd = 1;
    for (uint64_t t = m; t >= 10; t /= 10) nd++;
    size_t k = 0;
    o[k++] = ':';
    if (v < 0) o[k++] = '-';
    char *e = o + k + nd;
    while (m >= 100) {
        unsigned r = (unsigned)(m % 100);
        m /= 100;
        *--e = dd[2 * r + 1];
        *--e = dd[2 * r];
    }
    if (m >= 10) {
        *--e = dd[2 * m + 1];
        *--e = dd[2 * m];
    } else {
        *--e = (char)('0' + m);
    }
    k += nd;
    o[k++] = '\t';
    return k;
}

static void f_copy(const ps *p, uint32_t at, uint32_t n, char *o)
{
    const unsigned char *s = p->d + at;
    for (uint32_t i = 0; i < n; i++) {
        char ch = (char)s[i];
        o[i] = ch == '\t' || ch == '\n' ? ' ' : ch;
    }
}

/* The key of the label at offset at (read before, so valid) into p->key,
 * or into buf when it fits there (cap bytes); its length, 0 out of memory.
 * *k points to the key. */
static size_t f_key(ps *p, fwalk *w, uint32_t at, char *buf, size_t cap, char **k)
{
    /* Initialised only for the compiler: the label was read before. */
    flab L = {0, 0, 0, 0, 0};
    const unsigned char *d = p->d + at;
    if (d[0] == ')' && d[2] == 'z' && d[4 + d[3]] == 'i' && d[9 + d[3]] == 'z') {
        /* Plain (f_plain_len): its parts where that spelling puts them. */
        L.fat = at + 4;
        L.flen = d[3];
        L.line = (int32_t)u32le(d + 5 + L.flen);
        L.nat = at + 11 + L.flen;
        L.nlen = d[10 + L.flen];
    } else {
        uint32_t a2, s2;
        p->pos = at;
        (void)f_label(p, w, false, &L, &a2, &s2);
    }
    char ln[24];
    size_t nl = f_line(L.line, ln);
    size_t n = 1 + (size_t)L.flen + nl + L.nlen;
    char *o = buf;
    if (n > cap) {
        if (n > p->kcap) {
            char *q = cgprop__realloc(p->g, p->key, n, 1);
            if (!q) return 0;
            p->key = q;
            p->kcap = n;
        }
        o = p->key;
    }
    *k = o;
    o[0] = '\t';
    f_copy(p, L.fat, L.flen, o + 1);
    memcpy(o + 1 + L.flen, ln, nl);
    f_copy(p, L.nat, L.nlen, o + 1 + L.flen + nl);
    return n;
}

/* The function of the label tuple in back-reference slot slot, once one
 * of its uses has been looked up; else NOPE. */
static uint32_t f_known(const fwalk *w, uint32_t slot)
{
    return slot != NOPE && w->fr[slot].x ? (uint32_t)w->fr[slot].x - 1 : NOPE;
}

static void f_learn(fwalk *w, uint32_t slot, uint32_t f)
{
    if (slot != NOPE) w->fr[slot].x = (uint64_t)f + 1;
}

/* Prepare caller c's label in a (as look_ahead does for a decoded one). */
static void f_ahead(ps *p, fwalk *w, uint32_t c, ahead *a)
{
    a->val = NOPE;
    if (!p->lt || (w->call[c].h && p->pt) || f_known(w, w->call[c].slot) != NOPE) return;
    char *k;
    size_t n = f_key(p, w, w->call[c].at, a->key, PS_KMAX, &k);
    if (!n || k != a->key) return;
    a->len = (uint32_t)n;
    a->h = key_hash(a->key, n);
    a->val = c;
    CGPROP__PREFETCH(&p->lt[(uint32_t)a->h & p->lmask]);
}

/* Prepare entry i's key label in a: its key and hash, its slots fetched. */
static void f_ahead_entry(ps *p, fwalk *w, uint32_t i, ahead *a)
{
    a->val = NOPE;
    if (f_known(w, w->ent[i].slot) != NOPE) return;
    char *k;
    size_t n = f_key(p, w, w->ent[i].at, a->key, PS_KMAX, &k);
    if (!n || k != a->key) return;
    a->len = (uint32_t)n;
    a->val = i;
    cgprop__node_prefetch(p->g, a->key, n);
    uint32_t h = w->ent[i].h;
    if (h) {
        if (p->pt) CGPROP__PREFETCH_W(&p->pt[h & p->pmask]);
        return;
    }
    a->h = key_hash(a->key, n);
    if (p->lt) CGPROP__PREFETCH_W(&p->lt[(uint32_t)a->h & p->lmask]);
}

/* The entries' plain labels: room for nf; without it (no memory) every
 * plain caller takes the way of the others. */
static void pindex_init(ps *p, uint32_t nf) { p->pt = slot_table(p, nf, &p->pmask); }

/* Equal bytes are the same label: a second entry of the same plain label
 * (a dict does not have one) is found at the first one's slot. */
static void pindex_add(ps *p, uint32_t at, uint32_t h, uint32_t fid)
{
    if (!p->pt || fid >= UINT32_MAX - 1) return;
    uint32_t i = h & p->pmask;
    while (p->pt[i].fid1) i = (i + 1) & p->pmask;
    p->pt[i].fp = h;
    p->pt[i].fid1 = fid + 1;
    p->pt[i].off = at;
    p->pt[i].len = f_plain_size(p, at);
}

/* The plain caller label at at (hash h): its bytes fetched where the
 * first slot it will compare points. */
static void pindex_touch(const ps *p, uint32_t h)
{
    const struct lslot *s = &p->pt[h & p->pmask];
    if (s->fid1 && s->fp == h) CGPROP__PREFETCH(p->d + s->off);
}

/* n >= 8 bytes: the last word read overlapping the one before, with no
 * byte loop. */
static bool plain_eq(const unsigned char *x, const unsigned char *y, size_t n)
{
    uint64_t a, b;
    memcpy(&a, x + n - 8, 8);
    memcpy(&b, y + n - 8, 8);
    if (a != b) return false;
    while (n > 8) {
        memcpy(&a, x, 8);
        memcpy(&b, y, 8);
        if (a != b) return false;
        x += 8;
        y += 8;
        n -= 8;
    }
    return true;
}

/* The function of the plain label at at (hash h), or NOPE when no entry
 * has the same bytes. */
static uint32_t pindex_find(const ps *p, uint32_t at, uint32_t h)
{
    uint32_t n = f_plain_size(p, at);
    for (uint32_t i = h & p->pmask;; i = (i + 1) & p->pmask) {
        const struct lslot *s = &p->pt[i];
        if (!s->fid1) return NOPE;
        if (s->fp == h && s->len == n && plain_eq(p->d + s->off, p->d + at, n))
            return s->fid1 - 1;
    }
}

/* The graph from the walk's lists, as build_dict makes it. */
static bool f_build(ps *p, fwalk *w, uint64_t *nfun)
{
    if (cgprop__reserve_nodes(p->g, w->nent)) return false;
    /* The key index holds the entries that are not plain: made when the
     * first of them is met (none in a file that flags nothing). */
    bool lt_made = false;
    pindex_init(p, w->nent);
    char kbuf[PS_KMAX];
    uint32_t *fid = cgprop__alloc(p->g, w->nent, sizeof *fid);
    if (!fid) return false;
    bool ok = false;
    if (!p->ring) p->ring = cgprop__alloc(p->g, PS_CHUNK, sizeof *p->ring);
    if (!p->ring) goto out;
    /* Each function's key is made PS_AHEAD entries ahead, and the slots
     * its look-up and its insertion probe first are fetched then. */
    for (uint32_t j = 0; j < PS_AHEAD && j < w->nent; j++) f_ahead_entry(p, w, j, &p->ring[j]);
    for (uint32_t i = 0; i < w->nent; i++) {
        const fentry *e = &w->ent[i];
        char *k;
        size_t n;
        ahead *r = &p->ring[i % PS_AHEAD];
        uint32_t f = f_known(w, e->slot);
        if (f == NOPE) {
            if (r->val == i) {
                k = r->key;
                n = r->len;
            } else {
                n = f_key(p, w, e->at, kbuf, sizeof kbuf, &k);
            }
            uint32_t nn0 = p->g->nn;
            if (!n || cgprop_graph_add_node(p->g, k, n, &f)) goto out;
            if (e->h) {
                pindex_add(p, e->at, e->h, f);
            } else if (p->g->nn != nn0) {
                if (!lt_made) {
                    lindex_init(p, w->nent);
                    lt_made = true;
                }
                if (p->lt) lindex_add(p, k, n, r->val == i ? r->h : key_hash(k, n), f);
            }
            f_learn(w, e->slot, f);
        }
        fid[i] = f;
        if (i + PS_AHEAD < w->nent) f_ahead_entry(p, w, i + PS_AHEAD, r);
        /* A shared label's slot, read when the key is prepared. */
        if (i + 2 * PS_AHEAD < w->nent && w->ent[i + 2 * PS_AHEAD].slot != NOPE)
            CGPROP__PREFETCH(&w->fr[w->ent[i + 2 * PS_AHEAD].slot]);
        (*nfun)++;
        uint64_t tt = e->tt, ct = e->ct;
        if (cgprop_graph_add_self(p->g, f, &tt) || cgprop__graph_state_total(p->g, f, &ct)) goto out;
        uint64_t sc, scost;
        if (spont_rest(e->nc, e->ct, e->ncallers, e->in_cnt, e->in_cost, &sc, &scost) &&
            cgprop_graph_add_spontaneous(p->g, f, sc, &scost))
            goto out;
    }
    /* Every call listed is at most one new call: size the call arrays
     * once instead of doubling up to there. Not the call index: the
     * batches below need a look-up only for a function with more callers
     * than a batch holds, or one that two entries name (flush_full), and
     * the index is made then, if ever. */
    if (w->ncall && cgprop__reserve_edge_arrays(p->g, w->ncall)) goto out;
    /* The callers' labels are looked up PS_CHUNK at a time, in passes with
     * nothing else between them: every key made and its slot fetched, then
     * every slot read and its key bytes fetched, then the compares, then
     * the calls added. With a look-ahead inside one loop, the compare still
     * waited on most key bytes (a third of a read in the bench). */
    uint32_t found[PS_CHUNK];
    for (uint32_t c0 = 0; c0 < w->ncall; c0 += PS_CHUNK) {
        uint32_t m = w->ncall - c0 < PS_CHUNK ? w->ncall - c0 : PS_CHUNK;
        /* A shared label's slot, read when its key would be made. */
        for (uint32_t j = 0; j < m; j++)
            if (w->call[c0 + j].slot != NOPE) CGPROP__PREFETCH(&w->fr[w->call[c0 + j].slot]);
        /* A plain label's slot fetched; any other's key made (f_ahead). */
        for (uint32_t j = 0; j < m; j++) {
            uint32_t h = w->call[c0 + j].h;
            if (h && p->pt) CGPROP__PREFETCH(&p->pt[h & p->pmask]);
            f_ahead(p, w, c0 + j, &p->ring[j]);
        }
        for (uint32_t j = 0; j < m; j++) {
            uint32_t h = w->call[c0 + j].h;
            if (h && p->pt) pindex_touch(p, h);
            else lindex_touch(p, &p->ring[j]);
        }
        for (uint32_t j = 0; j < m; j++) {
            const fcall *cl = &w->call[c0 + j];
            if (cl->h && p->pt) found[j] = pindex_find(p, cl->at, cl->h);
            else found[j] = p->ring[j].val == c0 + j ? lindex_find(p, &p->ring[j]) : NOPE;
        }
        for (uint32_t c = c0; c < c0 + m; c++) {
            const fcall *cl = &w->call[c];
            uint32_t a = f_known(w, cl->slot);
            if (a == NOPE) a = found[c - c0];
            if (a == NOPE) {
                char *k;
                size_t n = f_key(p, w, cl->at, kbuf, sizeof kbuf, &k);
                if (!n || cgprop_graph_add_node(p->g, k, n, &a)) goto out;
            }
            f_learn(w, cl->slot, a);
            uint32_t f = fid[cl->callee & ~F_HAS_COST];
            bool has_cost = (cl->callee & F_HAS_COST) != 0;
            if (has_cost && p->bcaller) {
                p->bcaller[p->nb] = a;
                p->bcallee[p->nb] = f;
                p->bcount[p->nb] = cl->cnt;
                p->bcost[p->nb] = cl->cost;
                if (++p->nb == PS_BATCH && flush_full(p)) goto out;
                continue;
            }
            uint64_t cost = cl->cost;
            if (flush_calls(p) || cgprop_graph_add_edge(p->g, a, f, cl->cnt, has_cost ? &cost : NULL, NULL)) goto out;
        }
    }
    ok = flush_calls(p) == CGPROP_OK;
out:
    cgprop__free(p->g, fid);
    return ok;
}

/* The graph by the direct path, or false (nothing kept) to decode. */
static bool f_read(ps *p, uint64_t *nfun)
{
    fwalk w;
    memset(&w, 0, sizeof w);
    /* Room for the entries and calls a file of this size usually holds
     * (a cProfile call takes about 80 bytes, an entry well over 128), so
     * that the lists do not grow by doubling: each doubling copied the list
     * into fresh pages and left the old ones behind, 9 % of a large read.
     * Untouched room costs no memory; a larger file grows past it, and
     * room refused is only grown into later. */
    size_t guess = p->len / 64 < (size_t)UINT32_MAX / 2 ? p->len / 64 : (size_t)UINT32_MAX / 2;
    (void)fgrow(p, (void **)&w.call, &w.callcap, (uint32_t)guess, sizeof *w.call);
    (void)fgrow(p, (void **)&w.ent, &w.entcap, (uint32_t)(guess / 2), sizeof *w.ent);
    bool ok = f_walk(p, &w);
    if (ok) {
        p->bcaller = cgprop__alloc(p->g, 2 * PS_BATCH, sizeof *p->bcaller);
        p->bcount = cgprop__alloc(p->g, 2 * PS_BATCH, sizeof *p->bcount);
        ok = p->bcaller && p->bcount;
        if (ok) {
            p->bcallee = p->bcaller + PS_BATCH;
            p->bcost = p->bcount + PS_BATCH;
            ok = f_build(p, &w, nfun);
        }
    }
    cgprop__free(p->g, w.fr);
    cgprop__free(p->g, w.ent);
    cgprop__free(p->g, w.call);
    cgprop__free(p->g, p->bcaller);
    cgprop__free(p->g, p->bcount);
    cgprop__free(p->g, p->lt);
    cgprop__free(p->g, p->pt);
    cgprop__free(p->g, p->kb);
    cgprop__free(p->g, p->ring);
    p->bcaller = p->bcallee = NULL;
    p->bcount = p->bcost = NULL;
    p->lt = NULL;
    p->pt = NULL;
    p->pmask = 0;
    p->kb = NULL;
    p->ring = NULL;
    p->lmask = 0;
    p->kbn = p->kbcap = 0;
    p->nb = 0;
    p->pos = 0;
    return ok;
}

int cgprop__pstats_read(const char *data, size_t len, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                        cgprop_read_error *err)
{
    (void)opts; /* keys are always TAB file:line TAB name */
    *out = NULL;
    ps p;
    memset(&p, 0, sizeof p);
    p.err = err;
    p.d = (const unsigned char *)data;
    p.len = len;
    if (len >= UINT32_MAX)
        return cgprop__read_fail(err, CGPROP_EOVERFLOW, 0, "statistics of 4 GiB or more are not supported");
    const char *names[1] = {"ns"};
    int rc = cgprop_graph_new(alloc, names, NULL, 1, &p.g);
    if (rc) return cgprop__read_fail(err, rc, 0, "out of memory");
    uint32_t root;
    uint64_t nfun = 0;
    if (f_read(&p, &nfun)) goto done;
    /* The direct path gave up: start again from an empty graph. */
    nfun = 0;
    cgprop__free(p.g, p.key);
    p.key = NULL;
    p.kcap = 0;
    cgprop_graph_free(p.g);
    rc = cgprop_graph_new(alloc, names, NULL, 1, &p.g);
    if (rc) return cgprop__read_fail(err, rc, 0, "out of memory");
    p.floors = 0;
    rc = decode(&p, &root);
    if (!rc) rc = build(&p, root, &nfun);
    if (!rc && nfun == 0) rc = cgprop__read_fail(err, CGPROP_EFORMAT, 0, "no function in the statistics");
done:
    cgprop__free(p.g, p.v);
    cgprop__free(p.g, p.c);
    cgprop__free(p.g, p.refs);
    cgprop__free(p.g, p.st);
    cgprop__free(p.g, p.key);
    cgprop__free(p.g, p.lt);
    cgprop__free(p.g, p.kb);
    cgprop__free(p.g, p.flat);
    cgprop__free(p.g, p.ring);
    cgprop__free(p.g, p.bcaller);
    cgprop__free(p.g, p.bcount);
    if (rc) {
        cgprop_graph_free(p.g);
        return rc;
    }
    /* Where a user of the graph finds the times read as 0: the count the
     * recorder keeps for compensated figures below 0, which this is. */
    p.g->floors = p.floors;
    if (info) {
        info->format = CGPROP_INPUT_PSTATS;
        /* No recursion classes: the stated inclusive costs make the totals exact. */
        info->recursion = CGPROP_RECS_STATED;
        info->lines = 0;
    }
    *out = p.g;
    return CGPROP_OK;
}

/* A marshal dict whose first key is a 3-tuple starting with a string: what
 * every stats file begins with (and no text format does). */
bool cgprop__pstats_detect(const char *data, size_t len)
{
    const unsigned char *d = (const unsigned char *)data;
    if (len < 4 || (d[0] & 0x7fu) != '{') return false;
    unsigned t = d[1] & 0x7fu;
    if (t == ')') return d[2] == 3 && strchr("zZaAtsu", d[3] & 0x7f) && (d[3] & 0x7f);
    if (t == '(') return len >= 7 && u32le(d + 2) == 3 && strchr("zZaAtsu", d[6] & 0x7f) && (d[6] & 0x7f);
    return false;
}
