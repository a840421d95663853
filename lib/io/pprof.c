/* pprof reader: the profile.proto message (Go's runtime/pprof, gperftools'
 * pprof output, and the many tools that write it), usually gzipped; read.c
 * inflates it first. Every sample is one stack, so recursion classes come
 * out exact (cgprop_graph_add_stack).
 *
 * The protobuf subset is decoded here by hand: varints, length-delimited
 * fields (packed or not), fixed 32/64-bit fields skipped, unknown fields
 * skipped. Messages nest three deep at most (Profile, Location, Line), so
 * plain loops suffice and nothing recurses. docs/formats/pprof.md has the
 * mapping and its limits. */
#include "io_util.h"

#include "analysis.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pstr {
    size_t at, len;
} pstr;

typedef struct pmap {
    uint64_t id;
    uint64_t file;
    size_t off;
} pmap;

typedef struct pfn {
    uint64_t id;
    uint64_t name, sys, file;
    size_t off;
} pfn;

#define NO_FAST UINT32_MAX /* see pp.fast */
#define KBATCH 128         /* see add_frame */

typedef struct ploc {
    uint64_t id;
    uint64_t mapping, addr;
    size_t off;
    size_t line0;    /* first of its lines in pp.lfn */
    size_t nlines;
    size_t node0;    /* first of its frames in pp.lnode, leaf first */
    size_t nnodes;
} ploc;

/* One field of a message: tag number, wire type and the value (varint or
 * fixed) or the bytes (length-delimited). off is where the tag starts. */
typedef struct pfield {
    uint32_t num, wt;
    uint64_t v;
    size_t at, len;
    size_t off;
} pfield;

typedef struct pp {
    const unsigned char *d;
    size_t len;
    const cgprop_allocator *a;
    cgprop_read_error *err;
    pstr *str;
    size_t nstr, cstr;
    pmap *map;
    size_t nmap, cmap;
    pfn *fn;
    size_t nfn, cfn;
    ploc *loc;
    size_t nloc, cloc;
    uint64_t *lfn; /* function id of every line of every location */
    size_t nlfn, clfn;
    uint32_t *lnode; /* graph node of every frame of every location */
    size_t nlnode;
    /* Location id − 1 → its function when the location is one frame and
     * numbered as its row (the usual case), else NO_FAST: four bytes a
     * location where the location table takes 56, so that the samples'
     * frames find their functions in cache. */
    uint32_t *fast;
    uint64_t *ids; /* a sample's location ids */
    size_t cids;
    uint32_t *frames;
    size_t cframes;
    /* default_sample_type: a string index, 0 when unset; where it was;
     * the metric it makes the one to show first (make_graph). */
    uint64_t def_type;
    size_t def_off;
    uint32_t def_metric;
    bool def_named; /* default_sample_type named one of the types */
    uint32_t noloc; /* the function "[no location]" + 1, 0 until a sample needs it */
    /* The previous sample's packed location ids, d[prev_at..prev_end),
     * when they were its only location field and each of its ids one
     * frame (fast[]): frames[] then still holds its frames, root first.
     * Samples of one program share their root end, which is the end of
     * the list (leaf first): the ids of a common tail need no decoding. */
    bool prev_ok;
    size_t prev_at, prev_end, prev_depth;
    char *key;
    size_t ckey;
    size_t kused, nkeys, kat[KBATCH], klen[KBATCH], kpos[KBATCH]; /* see add_frame */
    /* Where the first Sample field starts and the last one ends: pass 2
     * walks that span only, not the tables again (pass 1 checked every
     * field of the Profile, so the span is a run of well-formed fields). */
    size_t samp_at, samp_end;
    uint64_t st_type[CGPROP_MAX_METRICS], st_unit[CGPROP_MAX_METRICS];
    size_t st_off[CGPROP_MAX_METRICS];
    uint32_t K;
    cgprop_graph *g;
} pp;

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2, WT_I32 = 5 };

static int efmt(pp *p, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int efmt(pp *p, size_t off, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* A binary input's "line" is the byte offset + 1. */
    return cgprop__read_fail(p->err, CGPROP_EFORMAT, (uint64_t)off + 1, "pprof: byte %zu: %s", off, msg);
}

static int enomem(pp *p)
{
    return cgprop__read_fail(p->err, CGPROP_ENOMEM, 0, "out of memory");
}

static bool grow(pp *p, void **arr, size_t *cap, size_t need, size_t elt)
{
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 16;
    while (c < need) {
        if (c > SIZE_MAX / 2) return false;
        c *= 2;
    }
    if (c > SIZE_MAX / elt) return false;
    void *q = cgprop__ra_realloc(p->a, *arr, c * elt);
    if (!q) return false;
    *arr = q;
    *cap = c;
    return true;
}

/* A varint at d[*pos..end): 0, or 1 when it runs past end, 2 when it is
 * longer than ten bytes or past 64 bits. */
static int varint_long(const unsigned char *d, size_t *pos, size_t end, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = *pos;
    /* Written on failure too (0): the callers' values are then set on
     * every path, which the one-byte path below needs the compiler to see. */
    *out = 0;
    for (unsigned shift = 0;; shift += 7) {
        if (i >= end) return 1;
        unsigned char b = d[i++];
        if (shift == 63 && (b & 0x7e)) return 2;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        if (shift == 63) return 2;
    }
    *pos = i;
    *out = v;
    return 0;
}

/* Tags, lengths and most values are one byte: that case without the loop. */
static inline int varint(const unsigned char *d, size_t *pos, size_t end, uint64_t *out)
{
    size_t i = *pos;
    if (i < end && d[i] < 0x80) {
        *out = d[i];
        *pos = i + 1;
        return 0;
    }
    /* Two bytes (ids from 128 to 16383): nothing can overflow. */
    if (i + 1 < end && d[i + 1] < 0x80) {
        *out = (uint64_t)(d[i] & 0x7f) | (uint64_t)d[i + 1] << 7;
        *pos = i + 2;
        return 0;
    }
    return varint_long(d, pos, end, out);
}

/* The next field of the message d[*pos..end): 1 and f filled, 0 at the end,
 * or a negative status with err filled. */
static int next_field_slow(pp *p, size_t *pos, size_t end, pfield *f, const char *msg)
{
    if (*pos >= end) return 0;
    /* Set on every path, the error paths too: the compiler cannot tell that
     * an error's status is never 1, and would see callers read them unset. */
    f->off = *pos;
    f->num = f->wt = 0;
    f->v = 0;
    uint64_t tag;
    int r = varint(p->d, pos, end, &tag);
    if (r) return efmt(p, f->off, "%s: %s field tag", msg, r == 1 ? "truncated" : "overlong");
    f->num = (uint32_t)(tag >> 3);
    f->wt = (uint32_t)(tag & 7);
    if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff) return efmt(p, f->off, "%s: field number %llu out of range", msg,
                                                               (unsigned long long)(tag >> 3));
    size_t vo = *pos;
    switch (f->wt) {
    case WT_VARINT:
        r = varint(p->d, pos, end, &f->v);
        if (r) return efmt(p, vo, "%s: field %u: %s varint", msg, f->num, r == 1 ? "truncated" : "overlong");
        break;
    case WT_I64:
    case WT_I32: {
        size_t n = f->wt == WT_I64 ? 8 : 4;
        if (end - *pos < n) return efmt(p, vo, "%s: field %u: truncated fixed-size value", msg, f->num);
        f->v = 0;
        for (size_t i = n; i-- > 0;) f->v = f->v << 8 | p->d[*pos + i];
        *pos += n;
        break;
    }
    case WT_LEN: {
        uint64_t n;
        r = varint(p->d, pos, end, &n);
        if (r) return efmt(p, vo, "%s: field %u: %s length", msg, f->num, r == 1 ? "truncated" : "overlong");
        if (n > end - *pos)
            return efmt(p, vo, "%s: field %u: length %llu runs past the end of its message", msg, f->num,
                        (unsigned long long)n);
        f->at = *pos;
        f->len = (size_t)n;
        *pos += (size_t)n;
        break;
    }
    default:
        return efmt(p, f->off, "%s: field %u: wire type %u is not read (groups are obsolete; 6 and 7 do not exist)",
                    msg, f->num, f->wt);
    }
    return 1;
}

/* next_field, with the usual case inline: a one-byte tag of a varint or a
 * length-delimited field whose value or length is well formed. Anything
 * else (and every error) goes the slow way from the tag, so the fields and
 * the errors are the same. */
static inline int next_field(pp *p, size_t *pos, size_t end, pfield *f, const char *msg)
{
    size_t q = *pos;
    if (q >= end) return 0;
    const unsigned char *d = p->d;
    unsigned tag = d[q];
    if (tag < 0x80 && tag >= 8 && (tag & 7) == WT_VARINT) {
        size_t r = q + 1;
        uint64_t v;
        if (!varint(d, &r, end, &v)) {
            f->off = q;
            f->num = tag >> 3;
            f->wt = WT_VARINT;
            f->v = v;
            *pos = r;
            return 1;
        }
    } else if (tag < 0x80 && tag >= 8 && (tag & 7) == WT_LEN) {
        size_t r = q + 1;
        uint64_t n;
        if (!varint(d, &r, end, &n) && n <= end - r) {
            f->off = q;
            f->num = tag >> 3;
            f->wt = WT_LEN;
            f->v = 0;
            f->at = r;
            f->len = (size_t)n;
            *pos = r + (size_t)n;
            return 1;
        }
    }
    return next_field_slow(p, pos, end, f, msg);
}

static int want(pp *p, const pfield *f, uint32_t wt, const char *msg)
{
    if (f->wt == wt) return CGPROP_OK;
    return efmt(p, f->off, "%s: field %u has wire type %u, expected %u", msg, f->num, f->wt, wt);
}

/* One value of a repeated integer field, packed or not: calls back for
 * each. Both spellings are legal in the same message. */
typedef int (*each_fn)(pp *p, void *ctx, uint64_t v, size_t off);

static int repeated_int(pp *p, const pfield *f, const char *msg, each_fn fn, void *ctx)
{
    if (f->wt == WT_VARINT) return fn(p, ctx, f->v, f->off);
    if (f->wt != WT_LEN)
        return efmt(p, f->off, "%s: field %u has wire type %u, expected 0 or 2 (packed)", msg, f->num, f->wt);
    size_t q = f->at, e = f->at + f->len;
    while (q < e) {
        size_t o = q;
        uint64_t v;
        int r = varint(p->d, &q, e, &v);
        if (r) return efmt(p, o, "%s: field %u: %s varint in a packed list", msg, f->num,
                           r == 1 ? "truncated" : "overlong");
        int rc = fn(p, ctx, v, o);
        if (rc) return rc;
    }
    return CGPROP_OK;
}

/* ---- pass 1: the tables ---- */

static int read_value_type(pp *p, const pfield *outer)
{
    if (p->K == CGPROP_MAX_METRICS)
        return efmt(p, outer->off, "more than %d sample types", CGPROP_MAX_METRICS);
    uint64_t type = 0, unit = 0;
    size_t q = outer->at, e = outer->at + outer->len;
    pfield f;
    int r;
    while ((r = next_field(p, &q, e, &f, "ValueType")) == 1) {
        if (f.num == 1 || f.num == 2) {
            if ((r = want(p, &f, WT_VARINT, "ValueType"))) return r;
            if (f.num == 1) type = f.v;
            else unit = f.v;
        }
    }
    if (r) return r;
    p->st_type[p->K] = type;
    p->st_unit[p->K] = unit;
    p->st_off[p->K] = outer->off;
    p->K++;
    return CGPROP_OK;
}

static int read_mapping(pp *p, const pfield *outer)
{
    pmap m = {0, 0, outer->off};
    size_t q = outer->at, e = outer->at + outer->len;
    pfield f;
    int r;
    while ((r = next_field(p, &q, e, &f, "Mapping")) == 1) {
        if (f.num == 1 || f.num == 5) {
            if ((r = want(p, &f, WT_VARINT, "Mapping"))) return r;
            if (f.num == 1) m.id = f.v;
            else m.file = f.v;
        }
    }
    if (r) return r;
    if (!grow(p, (void **)&p->map, &p->cmap, p->nmap + 1, sizeof *p->map)) return enomem(p);
    p->map[p->nmap++] = m;
    return CGPROP_OK;
}

/* The usual spelling of a message of varint fields numbered 1 to nf
 * (one-byte tags, well-formed values): their values into v[1..nf], true.
 * false for anything else, which the general loop then reads, so that the
 * values and the errors are its own. */
static bool varint_fields(const unsigned char *d, size_t q, size_t e, unsigned nf, uint64_t *v)
{
    while (q < e) {
        unsigned tag = d[q];
        if ((tag & 7) != WT_VARINT || tag < 8 || (tag >> 3) > nf) return false;
        q++;
        if (varint(d, &q, e, &v[tag >> 3])) return false;
    }
    return true;
}

static int read_function(pp *p, const pfield *outer)
{
    pfn fn = {0, 0, 0, 0, outer->off};
    size_t q = outer->at, e = outer->at + outer->len;
    pfield f;
    int r;
    uint64_t v[5] = {0, 0, 0, 0, 0};
    if (varint_fields(p->d, q, e, 4, v)) {
        fn.id = v[1];
        fn.name = v[2];
        fn.sys = v[3];
        fn.file = v[4];
        q = e;
    }
    while ((r = next_field(p, &q, e, &f, "Function")) == 1) {
        if (f.num >= 1 && f.num <= 4) {
            if ((r = want(p, &f, WT_VARINT, "Function"))) return r;
            if (f.num == 1) fn.id = f.v;
            else if (f.num == 2) fn.name = f.v;
            else if (f.num == 3) fn.sys = f.v;
            else fn.file = f.v;
        }
    }
    if (r) return r;
    if (!grow(p, (void **)&p->fn, &p->cfn, p->nfn + 1, sizeof *p->fn)) return enomem(p);
    p->fn[p->nfn++] = fn;
    return CGPROP_OK;
}

/* A Location in the usual spelling (varint fields 1 to 3 and Line
 * messages of varint fields 1 to 3, one-byte tags and lengths) into *l and
 * its lines' functions appended to lfn: true. false for anything else,
 * with lfn as it was. */
static bool location_fast(pp *p, size_t q, size_t e, ploc *l)
{
    const unsigned char *d = p->d;
    uint64_t v[4] = {0, 0, 0, 0};
    while (q < e) {
        unsigned tag = d[q];
        bool ok;
        if (tag == (4 << 3 | WT_LEN)) {
            size_t ln = q + 1 < e ? d[q + 1] : 0x80;
            uint64_t lv[4] = {0, 0, 0, 0};
            ok = ln < 0x80 && ln <= e - q - 2 && varint_fields(d, q + 2, q + 2 + ln, 3, lv) &&
                 grow(p, (void **)&p->lfn, &p->clfn, p->nlfn + 1, sizeof *p->lfn);
            if (ok) p->lfn[p->nlfn++] = lv[1];
            q += 2 + ln;
        } else if ((tag & 7) == WT_VARINT && tag >= 8 && (tag >> 3) <= 3) {
            q++;
            ok = !varint(d, &q, e, &v[tag >> 3]);
        } else {
            ok = false;
        }
        if (!ok) {
            p->nlfn = l->line0;
            return false;
        }
    }
    l->id = v[1];
    l->mapping = v[2];
    l->addr = v[3];
    return true;
}

static int read_location(pp *p, const pfield *outer)
{
    ploc l;
    memset(&l, 0, sizeof l);
    l.off = outer->off;
    l.line0 = p->nlfn;
    size_t q = outer->at, e = outer->at + outer->len;
    pfield f;
    int r;
    /* The usual spelling first; anything else is read again by the
     * general loop below, from the start. */
    if (location_fast(p, q, e, &l)) q = e;
    while ((r = next_field(p, &q, e, &f, "Location")) == 1) {
        if (f.num >= 1 && f.num <= 3) {
            if ((r = want(p, &f, WT_VARINT, "Location"))) return r;
            if (f.num == 1) l.id = f.v;
            else if (f.num == 2) l.mapping = f.v;
            else l.addr = f.v;
        } else if (f.num == 4) {
            if ((r = want(p, &f, WT_LEN, "Location"))) return r;
            uint64_t fid = 0;
            size_t lq = f.at, le = f.at + f.len;
            pfield g;
            while ((r = next_field(p, &lq, le, &g, "Line")) == 1) {
                if (g.num >= 1 && g.num <= 3) {
                    if ((r = want(p, &g, WT_VARINT, "Line"))) return r;
                    if (g.num == 1) fid = g.v;
                }
            }
            if (r) return r;
            if (!grow(p, (void **)&p->lfn, &p->clfn, p->nlfn + 1, sizeof *p->lfn)) return enomem(p);
            p->lfn[p->nlfn++] = fid;
        }
    }
    if (r) return r;
    l.nlines = p->nlfn - l.line0;
    if (!grow(p, (void **)&p->loc, &p->cloc, p->nloc + 1, sizeof *p->loc)) return enomem(p);
    p->loc[p->nloc++] = l;
    return CGPROP_OK;
}

static int pass1(pp *p)
{
    size_t q = 0;
    pfield f;
    int r;
    while ((r = next_field(p, &q, p->len, &f, "Profile")) == 1) {
        int rc = CGPROP_OK;
        switch (f.num) {
        case 1:
            if (!(rc = want(p, &f, WT_LEN, "Profile"))) rc = read_value_type(p, &f);
            break;
        case 2:
            rc = want(p, &f, WT_LEN, "Profile"); /* samples: pass 2 */
            if (!rc && p->samp_end == 0) p->samp_at = f.off;
            if (!rc) p->samp_end = q;
            break;
        case 3:
            if (!(rc = want(p, &f, WT_LEN, "Profile"))) rc = read_mapping(p, &f);
            break;
        case 4:
            if (!(rc = want(p, &f, WT_LEN, "Profile"))) rc = read_location(p, &f);
            break;
        case 5:
            if (!(rc = want(p, &f, WT_LEN, "Profile"))) rc = read_function(p, &f);
            break;
        case 6:
            if ((rc = want(p, &f, WT_LEN, "Profile"))) break;
            if (!grow(p, (void **)&p->str, &p->cstr, p->nstr + 1, sizeof *p->str)) return enomem(p);
            p->str[p->nstr].at = f.at;
            p->str[p->nstr].len = f.len;
            p->nstr++;
            break;
        case 14:
            if ((rc = want(p, &f, WT_VARINT, "Profile"))) break;
            p->def_type = f.v;
            p->def_off = f.off;
            break;
        default:
            break; /* drop/keep_frames, times, period, comments: not needed */
        }
        if (rc) return rc;
    }
    return r;
}

/* ---- ids ---- */

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sort a table by id (the first member of each row), refuse id 0 and
 * repeated ids. Producers usually number 1..n in order: no sort then.
 * off_at: where the row's byte offset is, for the message. */
static int sort_ids(pp *p, void *base, size_t n, size_t size, size_t off_at, const char *what)
{
    unsigned char *b = base;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; i++) {
        uint64_t x, y;
        memcpy(&x, b + (i - 1) * size, sizeof x);
        memcpy(&y, b + i * size, sizeof y);
        sorted = x < y;
    }
    if (!sorted) qsort(base, n, size, cmp_id);
    for (size_t i = 0; i < n; i++) {
        uint64_t id, prev = 0;
        memcpy(&id, b + i * size, sizeof id);
        if (i) memcpy(&prev, b + (i - 1) * size, sizeof prev);
        if (id == 0 || (i && id == prev)) {
            size_t off;
            memcpy(&off, b + i * size + off_at, sizeof off);
            return id == 0 ? efmt(p, off, "%s with id 0", what)
                           : efmt(p, off, "two %ss with id %llu", what, (unsigned long long)id);
        }
    }
    return CGPROP_OK;
}

static size_t find_id(const void *base, size_t n, size_t size, uint64_t id)
{
    const unsigned char *b = base;
    /* Producers mostly number 1..n: then row id - 1 holds it. */
    if (id - 1 < n) {
        uint64_t v;
        memcpy(&v, b + (size_t)(id - 1) * size, sizeof v);
        if (v == id) return (size_t)(id - 1);
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v;
        memcpy(&v, b + mid * size, sizeof v);
        if (v == id) return mid;
        if (v < id) lo = mid + 1;
        else hi = mid;
    }
    return SIZE_MAX;
}

/* ---- names ---- */

static int string_at(pp *p, uint64_t idx, size_t off, const char *what, const char **s, size_t *n)
{
    if (idx >= p->nstr)
        return efmt(p, off, "%s: string index %llu past the string table (%zu strings)", what,
                    (unsigned long long)idx, p->nstr);
    *s = (const char *)p->d + p->str[idx].at;
    *n = p->str[idx].len;
    return CGPROP_OK;
}

/* Copy s[0..n) to dst, TAB, LF and CR made spaces: TAB separates the
 * key's parts, and no line-based output (callgrind) could carry a line
 * break; a text format's reader never sees one in a name. */
static inline char *key_copy(char *dst, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        dst[i] = c == '\t' || c == '\n' || c == '\r' ? ' ' : c;
    }
    return dst + n;
}

/* The functions are added in batches of KBATCH keys (cgprop_graph_add_nodes:
 * their index probes overlap): the keys are written one after another in
 * p->key, where each starts (kat) and how long it is (klen), for the frames
 * lnode[kpos[i]]. */
static int flush_keys(pp *p)
{
    if (!p->nkeys) return CGPROP_OK;
    const char *keys[KBATCH];
    for (size_t i = 0; i < p->nkeys; i++) keys[i] = p->key + p->kat[i];
    uint32_t ids[KBATCH];
    int rc = cgprop_graph_add_nodes(p->g, p->nkeys, keys, p->klen, ids);
    if (!rc)
        for (size_t i = 0; i < p->nkeys; i++) p->lnode[p->kpos[i]] = ids[i];
    p->nkeys = 0;
    p->kused = 0;
    if (rc) return cgprop__read_fail(p->err, rc, 0, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    return CGPROP_OK;
}

/* The key of frame lnode[p->nlnode], added with its batch. */
static int add_frame(pp *p, bool full, const char *ob, size_t obn, const char *fl, size_t fln, const char *nm,
                     size_t nmn)
{
    if (p->nkeys == KBATCH) {
        int rc = flush_keys(p);
        if (rc) return rc;
    }
    p->kpos[p->nkeys] = p->nlnode;
    /* The parts are slices of the input (or a short name made here), so
     * the sum cannot wrap; room for all of it at once. */
    size_t k0 = p->kused, n = nmn + (full ? obn + fln + 2 : 0);
    if (n > SIZE_MAX - k0 - 1 || !grow(p, (void **)&p->key, &p->ckey, k0 + n + 1, 1)) return enomem(p);
    char *dst = p->key + k0;
    if (full) {
        dst = key_copy(dst, ob, obn);
        *dst++ = '\t';
        dst = key_copy(dst, fl, fln);
        *dst++ = '\t';
    }
    dst = key_copy(dst, nm, nmn);
    size_t kl = (size_t)(dst - p->key);
    p->kat[p->nkeys] = k0;
    p->klen[p->nkeys++] = kl - k0;
    p->kused = kl;
    return CGPROP_OK;
}

/* Every location's frames, leaf first: its lines in order (the first is
 * the innermost inlined function, the last the function the code was
 * inlined into), or, when no line names a function, one frame for the
 * location's mapping. */
static int resolve_with(pp *p, bool full, size_t *src, size_t *first, size_t *fmap)
{
    size_t need = p->nlfn + p->nloc;
    if (need < p->nlfn || need > SIZE_MAX / sizeof *p->lnode) return enomem(p);
    p->lnode = cgprop__ra_realloc(p->a, NULL, need * sizeof *p->lnode);
    if (!p->lnode) return enomem(p);
    p->nlnode = 0;
    /* Room for a function per Function message at once, instead of the
     * doublings of the graph's tables on the way there. */
    if (p->nfn && cgprop__reserve_nodes(p->g, p->nfn < UINT32_MAX - 1 ? (uint32_t)p->nfn : UINT32_MAX - 1))
        return enomem(p);
    /* Room in the call arrays up front too, on a guess from the input's
     * size (a call per 32 bytes, at most 2^16), as the folded reader does:
     * they fill in place instead of doubling; room never used is never
     * touched. */
    size_t guess = p->len / 32 < 65536 ? p->len / 32 : 65536;
    if (cgprop__reserve_arrays(p->g, 0, (uint32_t)guess)) return enomem(p);
    /* The call index sized once for a call per location (a sample's pairs
     * join its locations' functions; at most 2^16, a 512 KiB index), instead
     * of growing through every power of two on the way, each step a table
     * zeroed afresh and every call hashed again. */
    if (cgprop__reserve_edges(p->g, p->nloc < 65536 ? (uint32_t)p->nloc : 65536)) return enomem(p);
    /* A function named by many locations (Go's profiles: 835 functions in
     * 4,947 locations) gets its key made and looked up once per mapping:
     * its frame in a later location copies the first one's node (src, set
     * once the last batch is in). Its strings were checked the first time,
     * so the errors are the same. */
    for (size_t k = 0; k < p->nfn; k++) first[k] = SIZE_MAX;
    for (size_t i = 0; i < p->nloc; i++) {
        ploc *l = &p->loc[i];
        const char *ob = "";
        size_t obn = 0, m = SIZE_MAX;
        if (l->mapping) {
            /* An unknown mapping id is read as no mapping, as pprof does. */
            m = find_id(p->map, p->nmap, sizeof *p->map, l->mapping);
            if (m != SIZE_MAX) {
                int rc = string_at(p, p->map[m].file, p->map[m].off, "Mapping.filename", &ob, &obn);
                if (rc) return rc;
                /* The object by its base name: `go test` builds its binary
                 * in a fresh temporary directory each run, and the runs'
                 * profiles (or pprof's merge of them) must not split every
                 * function in two by that directory. */
                for (size_t c = obn; c-- > 0;)
                    if (ob[c] == '/') {
                        ob += c + 1;
                        obn -= c + 1;
                        break;
                    }
            }
        }
        l->node0 = p->nlnode;
        for (size_t j = 0; j < l->nlines; j++) {
            uint64_t fid = p->lfn[l->line0 + j];
            if (fid == 0) continue;
            size_t k = find_id(p->fn, p->nfn, sizeof *p->fn, fid);
            if (k == SIZE_MAX)
                return efmt(p, l->off, "location %llu: a line names function %llu, which the profile lacks",
                            (unsigned long long)l->id, (unsigned long long)fid);
            if (first[k] != SIZE_MAX && fmap[k] == m) {
                src[p->nlnode++] = first[k];
                continue;
            }
            const pfn *fn = &p->fn[k];
            const char *nm = "", *fl = "";
            size_t nmn = 0, fln = 0;
            int rc = string_at(p, fn->name, fn->off, "Function.name", &nm, &nmn);
            if (!rc && nmn == 0) rc = string_at(p, fn->sys, fn->off, "Function.system_name", &nm, &nmn);
            if (!rc) rc = string_at(p, fn->file, fn->off, "Function.filename", &fl, &fln);
            if (rc) return rc;
            if (nmn == 0) continue; /* a nameless function: as no line */
            rc = add_frame(p, full, ob, obn, fl, fln, nm, nmn);
            if (rc) return rc;
            first[k] = p->nlnode;
            fmap[k] = m;
            src[p->nlnode++] = SIZE_MAX;
        }
        if (p->nlnode == l->node0) {
            /* Code without symbols is one function per mapping, named as
             * pprof's -top names it ("[libc.so.6]", "<unknown>" without a
             * mapping): by address, a stripped binary would become one
             * function per sampled instruction, each with a sliver of the
             * cost, as for perf's [unknown] frames. */
            char nm[264]; /* a base name is at most 255 bytes (NAME_MAX) */
            size_t n;
            if (obn) {
                size_t c = obn < sizeof nm - 3 ? obn : sizeof nm - 3;
                nm[0] = '[';
                memcpy(nm + 1, ob, c);
                nm[c + 1] = ']';
                n = c + 2;
            } else {
                memcpy(nm, "<unknown>", 9);
                n = 9;
            }
            int rc = add_frame(p, full, ob, obn, "", 0, nm, n);
            if (rc) return rc;
            src[p->nlnode++] = SIZE_MAX;
        }
        l->nnodes = p->nlnode - l->node0;
    }
    int rc = flush_keys(p);
    if (rc) return rc;
    for (size_t i = 0; i < p->nlnode; i++)
        if (src[i] != SIZE_MAX) p->lnode[i] = p->lnode[src[i]];
    return CGPROP_OK;
}

static int resolve_locations(pp *p, bool full)
{
    /* src: a frame per line of every location, or per location without one. */
    size_t need = p->nlfn + p->nloc;
    if (need < p->nlfn || need > SIZE_MAX / sizeof(size_t) || p->nfn > SIZE_MAX / sizeof(size_t)) return enomem(p);
    size_t *src = cgprop__ra_realloc(p->a, NULL, need * sizeof *src);
    size_t *first = cgprop__ra_realloc(p->a, NULL, p->nfn * sizeof *first);
    size_t *fmap = cgprop__ra_realloc(p->a, NULL, p->nfn * sizeof *fmap);
    int rc = src && first && fmap ? resolve_with(p, full, src, first, fmap) : enomem(p);
    cgprop__ra_free(p->a, src);
    cgprop__ra_free(p->a, first);
    cgprop__ra_free(p->a, fmap);
    return rc;
}

/* Metric k is named type_unit ("cpu_nanoseconds", "samples_count"): one
 * word (bytes cgprop_graph_new() refuses become '_'), distinct (a repeat
 * gets _k). */
static int make_graph(pp *p, const cgprop_allocator *alloc)
{
    char names[CGPROP_MAX_METRICS][200];
    const char *np[CGPROP_MAX_METRICS], *types[CGPROP_MAX_METRICS];
    size_t type_len[CGPROP_MAX_METRICS];
    for (uint32_t k = 0; k < p->K; k++) {
        const char *t = "", *u = "";
        size_t tn = 0, un = 0;
        int rc = string_at(p, p->st_type[k], p->st_off[k], "ValueType.type", &t, &tn);
        if (!rc) rc = string_at(p, p->st_unit[k], p->st_off[k], "ValueType.unit", &u, &un);
        if (rc) return rc;
        types[k] = t;
        type_len[k] = tn;
        if (tn > 90) tn = 90;
        if (un > 90) un = 90;
        char *s = names[k];
        size_t n = 0;
        if (tn == 0 && un == 0) {
            n = (size_t)snprintf(s, 32, "value%u", (unsigned)k);
        } else {
            memcpy(s, t, tn);
            n = tn;
            if (tn && un) s[n++] = '_';
            memcpy(s + n, u, un);
            n += un;
            s[n] = '\0';
        }
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] == 0x7f || s[i] == '\0') s[i] = '_';
        size_t base = n;
        for (unsigned extra = 0;; extra++) {
            bool clash = false;
            for (uint32_t j = 0; j < k && !clash; j++) clash = strcmp(names[j], s) == 0;
            if (!clash) break;
            snprintf(s + base, 200 - base, extra ? "_%u_%u" : "_%u", (unsigned)k, extra + 1);
        }
        np[k] = s;
    }
    /* The metric to show first, as go tool pprof picks it: the sample type
     * default_sample_type names (the first of that type), else the last. A
     * name no sample type has is not refused here (pprof refuses it only
     * when asked for the default): the last then. */
    p->def_metric = p->K - 1;
    if (p->def_type) {
        const char *d = "";
        size_t dn = 0;
        int rc = string_at(p, p->def_type, p->def_off, "Profile.default_sample_type", &d, &dn);
        if (rc) return rc;
        for (uint32_t k = 0; k < p->K; k++)
            if (type_len[k] == dn && !memcmp(types[k], d, dn)) {
                p->def_metric = k;
                p->def_named = true;
                break;
            }
    }
    int rc = cgprop_graph_new(alloc, np, NULL, p->K, &p->g);
    if (!rc) cgprop__graph_mark_sampled(p->g);
    if (!rc) rc = cgprop__stacks_defer(p->g, true);
    if (rc) return cgprop__read_fail(p->err, rc, 0, rc == CGPROP_ENOMEM ? "out of memory" : "bad sample type names");
    return CGPROP_OK;
}

/* ---- pass 2: the samples ---- */

typedef struct sctx {
    size_t nids;
    uint32_t nw;
    /* Location fields seen; the ids of d[tail_at..tail_end), the common
     * tail with the previous sample (ntail of them), not decoded yet. */
    uint32_t nlocf;
    bool packed1; /* the first location field is packed: d[loc_at..loc_end) */
    size_t loc_at, loc_end;
    size_t tail_at, tail_end, ntail;
    uint64_t w[CGPROP_MAX_METRICS]; /* last: not cleared (nw counts it) */
} sctx;

/* Decode the common tail after all: it decoded in the previous sample,
 * so it cannot fail (room for it was made with the field's). */
static void tail_decode(pp *p, sctx *s)
{
    size_t q = s->tail_at;
    while (q < s->tail_end) {
        uint64_t v = 0;
        (void)varint(p->d, &q, s->tail_end, &v);
        p->ids[s->nids++] = v;
    }
    s->tail_at = s->tail_end = 0;
    s->ntail = 0;
}

/* Where the common tail of d[at..end) and the previous sample's list
 * starts: the first position at or after the first shared byte where an
 * id starts in both lists (a byte below 0x80 ends an id). end when none. */
static size_t tail_start(const pp *p, size_t at, size_t end)
{
    const unsigned char *d = p->d;
    size_t n = end - at, m = p->prev_end - p->prev_at, lim = n < m ? n : m, c = 0;
    while (c + 8 <= lim) {
        uint64_t x, y;
        memcpy(&x, d + end - c - 8, 8);
        memcpy(&y, d + p->prev_end - c - 8, 8);
        if (x != y) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* The bytes nearest the end are the words' high ones: the equal
             * ones are the high zero bytes of x ^ y. The byte loop below,
             * whose exit mispredicted on nearly every sample, is skipped. */
            c += (size_t)__builtin_clzll(x ^ y) >> 3;
            lim = c;
#endif
            break;
        }
        c += 8;
    }
    while (c < lim && d[end - c - 1] == d[p->prev_end - c - 1]) c++;
    size_t j = end - c;
    if (c && (j == at || d[j - 1] < 0x80) && (c == m || d[p->prev_end - c - 1] < 0x80)) return j;
    while (j < end && d[j] >= 0x80) j++;
    return j < end ? j + 1 : end;
}

static int take_loc(pp *p, void *ctx, uint64_t v, size_t off)
{
    (void)off;
    sctx *s = ctx;
    if (!grow(p, (void **)&p->ids, &p->cids, s->nids + 1, sizeof *p->ids)) return enomem(p);
    p->ids[s->nids++] = v;
    return CGPROP_OK;
}

static int take_value(pp *p, void *ctx, uint64_t v, size_t off)
{
    sctx *s = ctx;
    if (s->nw == p->K) return efmt(p, off, "a sample has more values than the %u sample types", p->K);
    if (v >> 63)
        return efmt(p, off, "negative sample value %lld (a difference profile?) is not read", (long long)(int64_t)v);
    s->w[s->nw++] = v;
    return CGPROP_OK;
}

/* A sample's packed location ids (how every producer writes them): room
 * for all at once (each takes a byte at least), one-byte ids without a
 * call; the same errors as repeated_int. */
static int packed_locs(pp *p, const pfield *f, sctx *s)
{
    /* A later location field: the first one's room holds its tail. */
    if (s->ntail) tail_decode(p, s);
    if (f->len > SIZE_MAX / 4 - s->nids) return enomem(p);
    if (!grow(p, (void **)&p->ids, &p->cids, s->nids + f->len, sizeof *p->ids)) return enomem(p);
    const unsigned char *d = p->d;
    size_t q = f->at, e = f->at + f->len;
    if (s->nlocf++ == 0) {
        s->packed1 = true;
        s->loc_at = q;
        s->loc_end = e;
        if (p->prev_ok) {
            e = tail_start(p, q, e);
            s->tail_at = e;
            s->tail_end = f->at + f->len;
            /* Its ids: the previous sample's, less those before its tail
             * (the shorter count: the lists differ near the leaf). */
            size_t head = p->prev_end - (s->tail_end - e), k = 0;
            size_t i = p->prev_at;
            /* Eight bytes a step: an id ends at each byte below 0x80. */
            for (; i + 8 <= head; i += 8) {
                uint64_t x;
                memcpy(&x, d + i, 8);
                /* A 0 or 1 per byte, summed by the multiply into the top byte. */
                k += (size_t)((((~x & 0x8080808080808080ull) >> 7) * 0x0101010101010101ull) >> 56);
            }
            for (; i < head; i++) k += d[i] < 0x80;
            s->ntail = p->prev_depth - k;
        }
    }
    uint64_t *ids = p->ids;
    size_t n = s->nids;
    while (q < e) {
        if (d[q] < 0x80) {
            ids[n++] = d[q++];
            continue;
        }
        size_t o = q;
        int r = varint(d, &q, e, &ids[n]);
        if (r) return efmt(p, o, "Sample: field %u: %s varint in a packed list", f->num, r == 1 ? "truncated" : "overlong");
        n++;
    }
    s->nids = n;
    return CGPROP_OK;
}

/* Add the sample's stack, frames[0..depth) root first; keep says whether
 * the next sample may reuse its tail. */
static int add_frames(pp *p, const pfield *outer, size_t depth, const uint64_t *w, bool keep, const sctx *s,
                      size_t known)
{
    p->prev_ok = false;
    int rc = cgprop__add_stack_known(p->g, p->frames, depth, w, known);
    if (rc == CGPROP_EOVERFLOW)
        return cgprop__read_fail(p->err, rc, (uint64_t)outer->off + 1, "pprof: byte %zu: a cost sum overflows 64 bits",
                                 outer->off);
    if (rc) return cgprop__read_fail(p->err, rc, 0, "%s", cgprop_graph_errmsg(p->g));
    if (keep) {
        p->prev_ok = true;
        p->prev_at = s->loc_at;
        p->prev_end = s->loc_end;
        p->prev_depth = depth;
    }
    return CGPROP_OK;
}

/* The row of location id, SIZE_MAX when the profile lacks it. */
static size_t loc_of(const pp *p, uint64_t id)
{
    return id - 1 < p->nloc && p->loc[id - 1].id == id ? (size_t)(id - 1) : find_id(p->loc, p->nloc, sizeof *p->loc, id);
}

static int read_sample(pp *p, const pfield *outer)
{
    /* All but the weights, which take_value fills (and counts in nw). */
    sctx s;
    memset(&s, 0, offsetof(sctx, w));
    size_t q = outer->at, e = outer->at + outer->len;
    pfield f;
    int r;
    while ((r = next_field(p, &q, e, &f, "Sample")) == 1) {
        int rc = CGPROP_OK;
        if (f.num == 1 && f.wt == WT_LEN) rc = packed_locs(p, &f, &s);
        else if (f.num == 1) {
            if (s.nlocf++ && s.ntail) tail_decode(p, &s);
            rc = repeated_int(p, &f, "Sample", take_loc, &s);
        }
        else if (f.num == 2) rc = repeated_int(p, &f, "Sample", take_value, &s);
        else if (f.num == 3) rc = want(p, &f, WT_LEN, "Sample");
        if (rc) return rc;
    }
    if (r) return r;
    if (s.nw != p->K)
        return efmt(p, outer->off, "a sample has %u value%s for %u sample types", s.nw, s.nw == 1 ? "" : "s", p->K);
    /* This sample's list becomes the one the next is compared with when
     * it is the only location field and each id is one frame. */
    bool one = s.nlocf == 1 && s.packed1;
    if (s.ntail) {
        /* The tail's frames are frames[0..ntail) already; the ids before
         * it go above them, turned round, when each is one frame. */
        size_t m = s.ntail, n = s.nids;
        if (n <= SIZE_MAX / 4 - m && grow(p, (void **)&p->frames, &p->cframes, m + n, sizeof *p->frames)) {
            size_t i = 0;
            for (; i < n; i++) {
                uint64_t id = p->ids[i];
                if (id - 1 >= p->nloc || p->fast[id - 1] == NO_FAST) break;
                p->frames[m + n - 1 - i] = p->fast[id - 1];
            }
            /* frames[0..m) are the previous sample's, given last. */
            if (i == n) return add_frames(p, outer, m + n, s.w, one, &s, m);
        }
        tail_decode(p, &s);
    }
    /* The ids are leaf first and the graph wants the root first: they are
     * taken from the last, each location's frames (leaf first too) from its
     * last. */
    size_t depth = 0;
    bool all_fast = true;
    p->prev_ok = false;
    if (!grow(p, (void **)&p->frames, &p->cframes, s.nids, sizeof *p->frames)) return enomem(p);
    for (size_t i = s.nids; i-- > 0;) {
        uint64_t id = p->ids[i];
        if (id - 1 < p->nloc && p->fast[id - 1] != NO_FAST) {
            p->frames[depth++] = p->fast[id - 1];
            continue;
        }
        all_fast = false;
        size_t k = loc_of(p, id);
        if (k == SIZE_MAX) {
            /* The message names the first such id, leaf first. */
            for (size_t j = 0; j < i; j++)
                if (loc_of(p, p->ids[j]) == SIZE_MAX) {
                    i = j;
                    break;
                }
            return efmt(p, outer->off, "a sample names location %llu, which the profile lacks",
                        (unsigned long long)p->ids[i]);
        }
        const ploc *l = &p->loc[k];
        /* Room for its frames and a frame per id still to come, so that an
         * id of one frame never checks. */
        if (l->nnodes > SIZE_MAX / 4 - depth - i) return enomem(p);
        if (!grow(p, (void **)&p->frames, &p->cframes, depth + l->nnodes + i, sizeof *p->frames)) return enomem(p);
        const uint32_t *from = p->lnode + l->node0;
        for (size_t j = l->nnodes; j-- > 0;) p->frames[depth++] = from[j];
    }
    /* A sample without a stack (Go's threadcreate profile writes the
     * threads made before profiling so) is in pprof's total, so it is in
     * cgprop's, charged to a function of its own as the perf reader does:
     * else every percentage would differ from pprof's. */
    if (depth == 0) {
        bool any = false;
        for (uint32_t k = 0; k < p->K; k++) any = any || s.w[k];
        if (!any) return CGPROP_OK;
        if (!p->noloc) {
            uint32_t id;
            int rc = cgprop_graph_add_node(p->g, "[no location]", 13, &id);
            if (rc) return cgprop__read_fail(p->err, rc, 0, "%s", cgprop_graph_errmsg(p->g));
            p->noloc = id + 1;
        }
        if (!grow(p, (void **)&p->frames, &p->cframes, 1, sizeof *p->frames)) return enomem(p);
        p->frames[0] = p->noloc - 1;
        return add_frames(p, outer, 1, s.w, false, &s, 0);
    }
    return add_frames(p, outer, depth, s.w, one && all_fast, &s, 0);
}

static int make_fast(pp *p)
{
    if (!p->nloc) return CGPROP_OK;
    if (p->nloc > SIZE_MAX / sizeof *p->fast) return enomem(p);
    p->fast = cgprop__ra_realloc(p->a, NULL, p->nloc * sizeof *p->fast);
    if (!p->fast) return enomem(p);
    for (size_t k = 0; k < p->nloc; k++) {
        const ploc *l = &p->loc[k];
        p->fast[k] = l->id == k + 1 && l->nnodes == 1 ? p->lnode[l->node0] : NO_FAST;
    }
    return CGPROP_OK;
}

static int pass2(pp *p)
{
    size_t q = p->samp_at;
    /* Cleared once: a field 2 is length-delimited here (pass 1 checked
     * it), which the compiler cannot see. */
    pfield f;
    memset(&f, 0, sizeof f);
    int r;
    while ((r = next_field(p, &q, p->samp_end, &f, "Profile")) == 1) {
        /* The samples' bytes are asked for ahead: each sample's list is
         * first read from its end (tail_start), which the hardware's
         * forward stream has not reached yet; that load was a third of
         * this pass's time. Not past the samples (no pointer beyond the
         * input is formed). */
        if (p->samp_end - q > CGPROP__AHEAD_PPROF_BYTES + 64) {
            CGPROP__PREFETCH(p->d + q + CGPROP__AHEAD_PPROF_BYTES);
            CGPROP__PREFETCH(p->d + q + CGPROP__AHEAD_PPROF_BYTES + 64);
        }
        if (f.num != 2) continue;
        int rc = read_sample(p, &f);
        if (rc) return rc;
    }
    return r;
}

static int run(pp *p, const cgprop_read_options *opts, const cgprop_allocator *alloc)
{
    int rc = pass1(p);
    if (rc) return rc;
    if (p->K == 0) return cgprop__read_fail(p->err, CGPROP_EFORMAT, 0, "pprof: the profile has no sample_type");
    if ((rc = sort_ids(p, p->map, p->nmap, sizeof *p->map, offsetof(pmap, off), "mapping")) ||
        (rc = sort_ids(p, p->fn, p->nfn, sizeof *p->fn, offsetof(pfn, off), "function")) ||
        (rc = sort_ids(p, p->loc, p->nloc, sizeof *p->loc, offsetof(ploc, off), "location")))
        return rc;
    /* Every string index, used or not, as pprof itself checks them. */
    const char *sv;
    size_t sn;
    for (size_t i = 0; i < p->nfn; i++)
        if ((rc = string_at(p, p->fn[i].name, p->fn[i].off, "Function.name", &sv, &sn)) ||
            (rc = string_at(p, p->fn[i].sys, p->fn[i].off, "Function.system_name", &sv, &sn)) ||
            (rc = string_at(p, p->fn[i].file, p->fn[i].off, "Function.filename", &sv, &sn)))
            return rc;
    for (size_t i = 0; i < p->nmap; i++)
        if ((rc = string_at(p, p->map[i].file, p->map[i].off, "Mapping.filename", &sv, &sn))) return rc;
    if ((rc = make_graph(p, alloc))) return rc;
    if (opts->contexts && (rc = cgprop_graph_keep_contexts(p->g, 1))) return cgprop__read_fail(p->err, rc, 0, "out of memory");
    if ((rc = resolve_locations(p, opts->key_mode != CGPROP_KEY_NAME))) return rc;
    if ((rc = make_fast(p))) return rc;
    return pass2(p);
}

int cgprop__pprof_read(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                       cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err)
{
    *out = NULL;
    pp p;
    memset(&p, 0, sizeof p);
    p.d = (const unsigned char *)data;
    p.len = len;
    p.a = alloc;
    p.err = err;
    int rc = run(&p, opts, alloc);
    if (!rc && p.g && (rc = cgprop__stacks_defer(p.g, false))) rc = cgprop__read_fail(err, rc, 0, "out of memory");
    cgprop__ra_free(alloc, p.str);
    cgprop__ra_free(alloc, p.map);
    cgprop__ra_free(alloc, p.fn);
    cgprop__ra_free(alloc, p.loc);
    cgprop__ra_free(alloc, p.lfn);
    cgprop__ra_free(alloc, p.lnode);
    cgprop__ra_free(alloc, p.fast);
    cgprop__ra_free(alloc, p.ids);
    cgprop__ra_free(alloc, p.frames);
    cgprop__ra_free(alloc, p.key);
    if (rc) {
        cgprop_graph_free(p.g);
        return rc;
    }
    if (info) {
        info->format = CGPROP_INPUT_PPROF;
        info->recursion = CGPROP_RECS_STACKS;
        info->default_metric = p.def_metric;
        if (p.def_named) info->flags |= CGPROP_RI_DEFAULT_NAMED;
        info->lines = 0;
        info->parts = 0;
    }
    *out = p.g;
    return CGPROP_OK;
}

/* Whether d[q..end) is a run of well-formed fields (one level deep);
 * varints only for a ValueType. */
static bool fields_ok(const unsigned char *d, size_t q, size_t end, bool varints_only)
{
    while (q < end) {
        uint64_t tag, v;
        if (varint(d, &q, end, &tag) || (tag >> 3) == 0) return false;
        unsigned wt = (unsigned)(tag & 7);
        if (varints_only && wt != WT_VARINT) return false;
        if (wt == WT_VARINT) {
            if (varint(d, &q, end, &v)) return false;
        } else if (wt == WT_LEN) {
            if (varint(d, &q, end, &v) || v > end - q) return false;
            q += (size_t)v;
        } else if (wt == WT_I64 || wt == WT_I32) {
            size_t n = wt == WT_I64 ? 8 : 4;
            if (end - q < n) return false;
            q += n;
        } else {
            return false;
        }
    }
    return true;
}

/* Detection: the bytes must open as a Profile message: the first field
 * one that profile.proto defines, every defined field with its wire type,
 * other fields with a real wire type, lengths that fit (only a field after
 * the third may run past a prefix cut short), messages whose insides are
 * fields, and a sample_type, sample or string_table among them. Text
 * formats fail within a few bytes: their first bytes are no Profile field
 * with its wire type, or a newline (field 1) opens no ValueType. */
bool cgprop__pprof_detect(const char *data, size_t len)
{
    const unsigned char *d = (const unsigned char *)data;
    size_t q = 0;
    unsigned fields = 0;
    bool core = false;
    while (q < len && fields < 64) {
        uint64_t tag, v;
        int r = varint(d, &q, len, &tag);
        if (r == 1) break; /* the prefix ends inside a tag */
        if (r) return false;
        uint64_t num = tag >> 3, wt = tag & 7;
        bool known = num >= 1 && num <= 15;
        bool len_field = (num >= 1 && num <= 6) || num == 11 || num == 13;
        bool int_field = (num >= 7 && num <= 15 && num != 11);
        if (num == 0 || (fields == 0 && !known)) return false;
        if (known && !((wt == WT_LEN && len_field) || (wt == WT_VARINT && int_field))) return false;
        fields++;
        if (wt == WT_LEN) {
            r = varint(d, &q, len, &v);
            if (r == 1) break;
            if (r) return false;
            if (num == 1 || num == 2 || num == 6) core = true;
            if (v > len - q) {
                if (fields < 4) return false;
                q = len;
                break;
            }
            if (known && num != 6 && num != 13 && !fields_ok(d, q, q + (size_t)v, num == 1 || num == 11))
                return false;
            q += (size_t)v;
        } else if (wt == WT_VARINT) {
            r = varint(d, &q, len, &v);
            if (r == 1) break;
            if (r) return false;
        } else if (wt == WT_I64 || wt == WT_I32) {
            size_t n = wt == WT_I64 ? 8 : 4;
            if (len - q <= n) {
                q = len;
                break;
            }
            q += n;
        } else {
            return false;
        }
    }
    return core && (fields >= 3 || q == len);
}
