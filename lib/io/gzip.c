/* gzip transport for every input format: a gzip stream (RFC 1952, one or
 * more members as `cat a.gz b.gz` makes) is inflated into memory and the
 * bytes inside go through detection and the readers as usual; for the
 * readers that take a text piece by piece, it is inflated as they read
 * (cgprop__src, which also serves a plain stream; cgprop__pieces cuts
 * either into the pieces those readers walk). zlib is
 * optional (CGPROP_HAVE_ZLIB); without it a gzip input is refused with a
 * reason that says so.
 *
 * Memory: the output buffer and zlib's own state both come from the read's
 * allocator (malloc when it is NULL), so an allocation failure is ENOMEM
 * and fault injection reaches zlib too. Size: deflate expands at most about
 * 1032:1, so the output is bounded by the input; on top of that the caller
 * passes a limit past which inflating stops with ENOMEM (read.c passes
 * CGPROP__GUNZIP_LIMIT), so a small hostile file cannot ask for more memory
 * than a plausible profile needs. */
#include "io_util.h"

#include <stdlib.h>

#ifdef CGPROP_HAVE_ZLIB
#include <zlib.h>
#endif

void *cgprop__ra_realloc(const cgprop_allocator *a, void *p, size_t n)
{
    if (n == 0) n = 1;
    if (a) return p ? a->realloc_fn(a->user, p, n) : a->malloc_fn(a->user, n);
    return realloc(p, n);
}

void cgprop__ra_free(const cgprop_allocator *a, void *p)
{
    if (!p) return;
    if (a) a->free_fn(a->user, p);
    else free(p);
}

bool cgprop__is_gzip(const char *data, size_t len)
{
    return len >= 2 && (unsigned char)data[0] == 0x1f && (unsigned char)data[1] == 0x8b;
}

/* ---- a text read piece by piece (cgprop__src) ---- */

/* The file's bytes in memory, then its stream. */
static int raw_read(cgprop__src *s, char *dst, size_t cap, size_t *got, cgprop_read_error *err)
{
    if (s->at < s->f->len) {
        size_t n = s->f->len - s->at < cap ? s->f->len - s->at : cap;
        memcpy(dst, s->f->data + s->at, n);
        s->at += n;
        *got = n;
        return CGPROP_OK;
    }
    /* The head of a stream is copied out: its buffer goes. */
    if (!s->whole) {
        cgprop__file_drop(s->f);
        s->at = 0;
    }
    int rc = cgprop__file_more(s->f, dst, cap, got);
    if (rc) return cgprop__read_fail(err, rc, 0, "%s: %s", s->f->why, cgprop__errno_text(s->f->errnum));
    return CGPROP_OK;
}

char *cgprop__src_take(cgprop__src *s, size_t *len, size_t *cap)
{
    cgprop__file *f = s->f;
    if (s->z || s->whole || s->at || !f->buf) return NULL;
    char *b = f->buf;
    *len = f->len;
    *cap = f->cap;
    f->buf = NULL;
    f->cap = 0;
    f->data = "";
    f->len = 0;
    return b;
}

bool cgprop__src_rewind(cgprop__src *s)
{
    if (!s->whole) return false;
    s->at = 0;
    s->fed = 0;
    s->zend = s->zbetween = s->zpad = false;
#ifdef CGPROP_HAVE_ZLIB
    if (s->z) {
        z_stream *z = s->z;
        z->avail_in = 0;
        if (inflateReset(z) != Z_OK) return false;
    }
#endif
    return true;
}

int cgprop__gunzip_layer(const char *data, size_t len, const cgprop_allocator *alloc, char **out, size_t *out_len,
                         cgprop_read_error *err)
{
    int rc = cgprop__gunzip(data, len, alloc, CGPROP__GUNZIP_LIMIT, out, out_len, err);
    if (!rc && cgprop__is_gzip(*out, *out_len))
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, 0, "%s", "gzip input: gzip data inside gzip data is not read");
    return rc;
}

/* ---- the pieces of a text (cgprop__pieces) ---- */

size_t cgprop__cut_after_newline(const char *buf, size_t n)
{
    while (n && buf[n - 1] != '\n') n--;
    return n;
}

int cgprop__pieces_open(cgprop__pieces *q, cgprop__src *src, cgprop__cut_fn cut_at, size_t head, size_t piece,
                        size_t first_read, const cgprop_allocator *alloc, cgprop_read_error *err)
{
    memset(q, 0, sizeof *q);
    q->src = src;
    q->alloc = alloc;
    q->err = err;
    q->cut_at = cut_at;
    q->head = head ? head : 1;
    q->piece = piece ? piece : 1;
    size_t want = first_read > q->head ? first_read : q->head;
    q->buf = cgprop__src_take(src, &q->have, &q->cap);
    if (q->buf && q->cap < want) {
        char *b = cgprop__ra_realloc(alloc, q->buf, want);
        if (!b) {
            cgprop__ra_free(alloc, q->buf);
            q->buf = NULL;
            return cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory");
        }
        q->buf = b;
        q->cap = want;
    }
    if (!q->buf) {
        q->have = 0;
        q->cap = want;
        if (!(q->buf = cgprop__ra_realloc(alloc, NULL, q->cap)))
            return cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory");
    }
    return CGPROP_OK;
}

int cgprop__pieces_next(cgprop__pieces *q, bool *done)
{
    memmove(q->buf, q->buf + q->cut, q->have - q->cut);
    q->have -= q->cut;
    q->cut = 0;
    /* The first piece may be larger than the others. */
    if (q->walked && q->cap > q->piece && q->have <= q->piece) {
        char *b = cgprop__ra_realloc(q->alloc, q->buf, q->piece);
        if (b) {
            q->buf = b;
            q->cap = q->piece;
        }
    }
    /* The buffer may hold more than a piece (a first read that looks
     * further): a piece is cut within its size when it can be. */
    size_t lim = q->walked ? q->piece : q->head;
    for (;;) {
        while (!q->end && q->have < q->cap) {
            size_t got;
            int rc = cgprop__src_read(q->src, q->buf + q->have, q->cap - q->have, &got, q->err);
            if (rc) return rc;
            q->have += got;
            q->end = got == 0;
        }
        q->cut = q->cut_at(q->buf, q->have < lim ? q->have : lim);
        if (!q->cut && q->have > lim) q->cut = q->cut_at(q->buf, q->have);
        if (q->end && !q->cut) q->cut = q->have;
        if (q->cut) {
            *done = false;
            q->walked = true;
            return CGPROP_OK;
        }
        if (q->end) {
            *done = true;
            return CGPROP_OK;
        }
        /* One unit longer than the piece: the piece grows to hold it. */
        if (q->cap > SIZE_MAX / 2) return cgprop__read_fail(q->err, CGPROP_ENOMEM, 0, "out of memory");
        char *b = cgprop__ra_realloc(q->alloc, q->buf, q->cap * 2);
        if (!b) return cgprop__read_fail(q->err, CGPROP_ENOMEM, 0, "out of memory");
        q->buf = b;
        q->cap *= 2;
    }
}

int cgprop__pieces_rewind(cgprop__pieces *q)
{
    if (!cgprop__src_rewind(q->src)) return CGPROP__NO_REWIND;
    q->have = q->cut = 0;
    q->end = q->walked = false;
    bool done;
    return cgprop__pieces_next(q, &done);
}

void cgprop__pieces_close(cgprop__pieces *q)
{
    cgprop__ra_free(q->alloc, q->buf);
    q->buf = NULL;
}

#ifdef CGPROP_HAVE_ZLIB

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
    if (size && items > SIZE_MAX / size) return Z_NULL;
    return cgprop__ra_realloc(opaque, NULL, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
    cgprop__ra_free(opaque, p);
}

/* zlib counts in uInt: feed and drain in steps it can hold. */
#define ZSTEP ((size_t)1 << 30)

int cgprop__gunzip(const char *data, size_t len, const cgprop_allocator *alloc, size_t limit, char **out,
                   size_t *out_len, cgprop_read_error *err)
{
    *out = NULL;
    *out_len = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = z_alloc;
    z.zfree = z_free;
    z.opaque = (voidpf)alloc;
    /* 15 + 16: a gzip wrapper only (a zlib or raw stream is no gzip file). */
    int zr = inflateInit2(&z, 15 + 16);
    if (zr == Z_MEM_ERROR) return cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input");
    if (zr != Z_OK) return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "gzip input: zlib refused to start");

    /* The last member's trailer holds its size mod 2^32: a first guess for
     * the buffer, clamped to what deflate can produce from this input. */
    size_t cap = 65536;
    if (len >= 18) {
        const unsigned char *t = (const unsigned char *)data + len - 4;
        size_t isize = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 | (size_t)t[3] << 24;
        size_t most = len < SIZE_MAX / 1040 ? len * 1040 : SIZE_MAX;
        if (isize > most) isize = most;
        if (isize > limit) isize = limit;
        if (isize + 1 > cap) cap = isize + 1;
    }
    char *buf = NULL;
    size_t used = 0;
    size_t pos = 0; /* bytes of input consumed */
    int rc = CGPROP_OK;
    for (;;) {
        if (used == cap || !buf) {
            size_t ncap = buf ? (cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2) : cap;
            if (buf && used >= limit) {
                rc = cgprop__read_fail(err, CGPROP_ENOMEM, 0,
                                       "gzip input: inflates past %zu bytes, the limit for one input", limit);
                break;
            }
            if (limit < SIZE_MAX && ncap > limit + 1) ncap = limit + 1;
            char *p = cgprop__ra_realloc(alloc, buf, ncap);
            if (!p) {
                rc = cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input");
                break;
            }
            buf = p;
            cap = ncap;
        }
        size_t in_step = len - pos < ZSTEP ? len - pos : ZSTEP;
        size_t out_step = cap - used < ZSTEP ? cap - used : ZSTEP;
        z.next_in = (Bytef *)(uintptr_t)(data + pos);
        z.avail_in = (uInt)in_step;
        z.next_out = (Bytef *)(buf + used);
        z.avail_out = (uInt)out_step;
        zr = inflate(&z, Z_NO_FLUSH);
        size_t took = in_step - z.avail_in, gave = out_step - z.avail_out;
        pos += took;
        used += gave;
        if (zr == Z_STREAM_END) {
            /* Another member follows, or padding of zero bytes (tape
             * blocks, as gzip itself accepts); anything else is not gzip. */
            size_t j = pos;
            while (j < len && data[j] == 0) j++;
            if (j == len) break;
            if (!cgprop__is_gzip(data + pos, len - pos)) {
                rc = cgprop__read_fail(err, CGPROP_EFORMAT, (uint64_t)pos + 1,
                                       "gzip input: bytes after the end of the compressed data at byte %zu", pos);
                break;
            }
            if (inflateReset(&z) != Z_OK) {
                rc = cgprop__read_fail(err, CGPROP_EFORMAT, 0, "gzip input: zlib refused to restart");
                break;
            }
            continue;
        }
        if (zr == Z_MEM_ERROR) {
            rc = cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input");
            break;
        }
        if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR) {
            rc = cgprop__read_fail(err, CGPROP_EFORMAT, (uint64_t)pos + 1, "gzip input: corrupt data at byte %zu (%s)", pos,
                                   zr == Z_NEED_DICT ? "needs a dictionary" : z.msg ? z.msg : "data error");
            break;
        }
        /* Z_OK or Z_BUF_ERROR: out of output (grow on the next turn) or
         * out of input (the stream stops before its end). */
        if ((pos == len && z.avail_out != 0) || (zr == Z_BUF_ERROR && !took && !gave && z.avail_out)) {
            rc = cgprop__read_fail(err, CGPROP_EFORMAT, (uint64_t)len + 1, "gzip input: truncated at byte %zu", len);
            break;
        }
    }
    inflateEnd(&z);
    if (rc) {
        cgprop__ra_free(alloc, buf);
        return rc;
    }
    *out = buf;
    *out_len = used;
    return CGPROP_OK;
}

uint32_t cgprop__gunzip_peek(const char *data, size_t len, char *dst, size_t cap, size_t *got)
{
    /* Detection has no allocator: zlib's own (malloc) serves, and only the
     * first cap bytes are inflated. */
    *got = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) return 0;
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)(len < ZSTEP ? len : ZSTEP);
    z.next_out = (Bytef *)dst;
    z.avail_out = (uInt)cap;
    int zr = inflate(&z, Z_SYNC_FLUSH);
    *got = cap - z.avail_out;
    inflateEnd(&z);
    return zr == Z_OK || zr == Z_STREAM_END || zr == Z_BUF_ERROR ? 1u : 0u;
}


#define ZIN ((size_t)1 << 16)

int cgprop__src_open(cgprop__src *s, cgprop__file *f, const cgprop_allocator *alloc, cgprop_read_error *err)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->alloc = alloc;
    s->whole = !f->more;
    if (!cgprop__is_gzip(f->data, f->len)) return CGPROP_OK;
    z_stream *z = cgprop__ra_realloc(alloc, NULL, sizeof *z);
    if (!z) return cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input");
    memset(z, 0, sizeof *z);
    z->zalloc = z_alloc;
    z->zfree = z_free;
    z->opaque = (voidpf)alloc;
    int zr = inflateInit2(z, 15 + 16);
    if (zr != Z_OK) {
        cgprop__ra_free(alloc, z);
        return zr == Z_MEM_ERROR ? cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input")
                                 : cgprop__read_fail(err, CGPROP_EFORMAT, 0, "gzip input: zlib refused to start");
    }
    s->z = z;
    return CGPROP_OK;
}

void cgprop__src_close(cgprop__src *s)
{
    if (s->z) {
        inflateEnd(s->z);
        cgprop__ra_free(s->alloc, s->z);
    }
    cgprop__ra_free(s->alloc, s->zin);
    s->z = NULL;
    s->zin = NULL;
}

/* zlib's input runs dry: the file's bytes in memory, else a piece of its
 * stream. false at the end of the input. */
static int refill(cgprop__src *s, bool *more, cgprop_read_error *err)
{
    z_stream *z = s->z;
    *more = true;
    if (z->avail_in) return CGPROP_OK;
    if (s->at < s->f->len) {
        size_t n = s->f->len - s->at < ZSTEP ? s->f->len - s->at : ZSTEP;
        z->next_in = (Bytef *)(uintptr_t)(s->f->data + s->at);
        z->avail_in = (uInt)n;
        s->at += n;
        s->fed += n;
        return CGPROP_OK;
    }
    /* zlib took the head of the stream: its buffer goes. */
    if (!s->whole) {
        cgprop__file_drop(s->f);
        s->at = 0;
    }
    if (!s->zin && !(s->zin = cgprop__ra_realloc(s->alloc, NULL, ZIN)))
        return cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input");
    size_t got;
    int rc = cgprop__file_more(s->f, s->zin, ZIN, &got);
    if (rc) return cgprop__read_fail(err, rc, 0, "%s: %s", s->f->why, cgprop__errno_text(s->f->errnum));
    z->next_in = (Bytef *)s->zin;
    z->avail_in = (uInt)got;
    s->fed += got;
    *more = got != 0;
    return CGPROP_OK;
}

int cgprop__src_read(cgprop__src *s, char *dst, size_t cap, size_t *got, cgprop_read_error *err)
{
    *got = 0;
    if (!s->z) return raw_read(s, dst, cap, got, err);
    z_stream *z = s->z;
    if (cap > ZSTEP) cap = ZSTEP;
    while (!*got && !s->zend) {
        bool more;
        int rc = refill(s, &more, err);
        if (rc) return rc;
        uint64_t pos = s->fed - z->avail_in;
        if (s->zbetween) {
            /* Another member, zero padding to the end (as gzip itself
             * accepts), or the end; anything else is not gzip. */
            if (z->avail_in && *z->next_in == 0) s->zpad = true;
            while (s->zpad && z->avail_in && *z->next_in == 0) {
                z->next_in++;
                z->avail_in--;
            }
            if (!more) {
                s->zend = true;
                break;
            }
            if (!z->avail_in) continue;
            pos = s->fed - z->avail_in;
            if (s->zpad || *z->next_in != 0x1f || (z->avail_in >= 2 && z->next_in[1] != 0x8b))
                return cgprop__read_fail(err, CGPROP_EFORMAT, pos + 1,
                                         "gzip input: bytes after the end of the compressed data at byte %llu",
                                         (unsigned long long)pos);
            if (inflateReset(z) != Z_OK)
                return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "gzip input: zlib refused to restart");
            s->zbetween = false;
        }
        z->next_out = (Bytef *)dst;
        z->avail_out = (uInt)cap;
        int zr = inflate(z, Z_NO_FLUSH);
        *got = cap - z->avail_out;
        pos = s->fed - z->avail_in;
        if (zr == Z_STREAM_END) s->zbetween = true;
        else if (zr == Z_MEM_ERROR)
            return cgprop__read_fail(err, CGPROP_ENOMEM, 0, "out of memory inflating the input");
        else if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR)
            return cgprop__read_fail(err, CGPROP_EFORMAT, pos + 1, "gzip input: corrupt data at byte %llu (%s)",
                                     (unsigned long long)pos,
                                     zr == Z_NEED_DICT ? "needs a dictionary" : z->msg ? z->msg : "data error");
        /* No input left and nothing more to give: the stream stops before
         * its end. (Output still held from a full buffer comes first.) */
        else if (!more && !*got)
            return cgprop__read_fail(err, CGPROP_EFORMAT, s->fed + 1, "gzip input: truncated at byte %llu",
                                     (unsigned long long)s->fed);
    }
    return CGPROP_OK;
}

#else

int cgprop__gunzip(const char *data, size_t len, const cgprop_allocator *alloc, size_t limit, char **out,
                   size_t *out_len, cgprop_read_error *err)
{
    (void)data;
    (void)len;
    (void)alloc;
    (void)limit;
    *out = NULL;
    *out_len = 0;
    return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "gzip input: this cgprop was built without zlib");
}

uint32_t cgprop__gunzip_peek(const char *data, size_t len, char *dst, size_t cap, size_t *got)
{
    (void)data;
    (void)len;
    (void)dst;
    (void)cap;
    *got = 0;
    return 0;
}


int cgprop__src_open(cgprop__src *s, cgprop__file *f, const cgprop_allocator *alloc, cgprop_read_error *err)
{
    memset(s, 0, sizeof *s);
    s->f = f;
    s->alloc = alloc;
    s->whole = !f->more;
    if (cgprop__is_gzip(f->data, f->len))
        return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "gzip input: this cgprop was built without zlib");
    return CGPROP_OK;
}

void cgprop__src_close(cgprop__src *s) { (void)s; }

int cgprop__src_read(cgprop__src *s, char *dst, size_t cap, size_t *got, cgprop_read_error *err)
{
    *got = 0;
    return raw_read(s, dst, cap, got, err);
}

#endif
