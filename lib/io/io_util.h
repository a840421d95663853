/* Private helpers shared by the readers (and, read-only, by other I/O files):
 * line splitting, number parsing, error reporting. */
#ifndef CGPROP_IO_UTIL_H
#define CGPROP_IO_UTIL_H

#include "cgprop_io.h"
#include "graph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if !defined(CGPROP_LINES_NO_SIMD) && defined(__GNUC__) && (defined(__SSE2__) || defined(_M_X64))
#define CGPROP__LINES_SSE2 1
#include <emmintrin.h>
#endif

/* A cursor over the lines of a buffer. Lines end at '\n'; a '\r' before it is
 * dropped; the last line needs no newline. No copy is made. */
typedef struct cgprop__lines {
    const char *p;
    const char *end;
    uint64_t no; /* number of the line last returned, 1-based */
} cgprop__lines;

static inline void cgprop__lines_init(cgprop__lines *r, const char *data, size_t len)
{
    r->p = data;
    r->end = data + len;
    r->no = 0;
}

static inline bool cgprop__lines_next(cgprop__lines *r, const char **s, size_t *n)
{
    if (r->p >= r->end) return false;
    const char *b = r->p, *e = NULL;
#ifdef CGPROP__LINES_SSE2
    /* Most lines of the column reports (gprof's, perf's) are shorter than
     * 64 bytes: their end is found inline, with no call and no branch on
     * the line's length; a longer line goes on with memchr. */
    if ((size_t)(r->end - b) >= 64) {
        const __m128i nl = _mm_set1_epi8('\n');
        uint64_t m = 0;
        for (int c = 0; c < 4; c++)
            m |= (uint64_t)(uint32_t)_mm_movemask_epi8(
                     _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + 16 * c)), nl))
                 << (16 * c);
        e = m ? b + __builtin_ctzll(m) : memchr(b + 64, '\n', (size_t)(r->end - b - 64));
    } else
#endif
        e = memchr(b, '\n', (size_t)(r->end - b));
    if (e) {
        r->p = e + 1;
    } else {
        e = r->end;
        r->p = r->end;
    }
    if (e > b && e[-1] == '\r') e--;
    r->no++;
    *s = b;
    *n = (size_t)(e - b);
    return true;
}

static inline bool cgprop__is_space(char c) { return c == ' ' || c == '\t'; }
static inline bool cgprop__is_digit(char c) { return c >= '0' && c <= '9'; }

/* Little-endian words with a count-trailing-zeros: the first byte of a
 * word that differs is found by its position. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CGPROP__SWAR_LE 1
#endif

/* The first index from i that is not a blank, at most n; i must not pass
 * n (the word loop takes n - i). Column-aligned reports (gprof's, perf's
 * addresses) pad with runs of spaces: eight are passed at once, and as the runs differ from column to column (1 to 12
 * blanks in gprof's), the first other byte of a word is found by its
 * position rather than by a byte loop that mispredicts its exit. */
static inline size_t cgprop__skip_blanks(const char *s, size_t i, size_t n)
{
    for (;;) {
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            w ^= 0x2020202020202020ull;
            if (w) {
#ifdef CGPROP__SWAR_LE
                i += (size_t)__builtin_ctzll(w) >> 3;
#endif
                break;
            }
            i += 8;
        }
        while (i < n && s[i] == ' ') i++;
        if (i == n || s[i] != '\t') return i;
        i++;
    }
}

/* The callgrind writer's desc: line for a profile with calls that have
 * fewer calls than the lines they are written on (sampled stacks have no
 * count): callgrind_annotate takes a call line with count 0 for self cost,
 * so every count is written one more, and the reader takes one off. */
#define CGPROP__DESC_PLUS1 "Call counts: every calls= count is one more than the calls made"
/* The callgrind writer's desc: line for a profile whose stacks may have been
 * cut short, followed by their weight per event (cgprop_graph_unrooted). */
#define CGPROP__DESC_UNROOTED "Stacks cut short, under any function they do not show:"

/* Results of cgprop__parse_u64. */
enum { CGPROP__NUM_OK = 0, CGPROP__NUM_NONE = 1, CGPROP__NUM_OVERFLOW = 2 };

/* Parse an unsigned decimal, or hexadecimal with a 0x prefix when hex is true,
 * at s[*i..n). Advances *i past the digits. */
static inline int cgprop__parse_u64(const char *s, size_t n, size_t *i, bool hex, uint64_t *out)
{
    size_t j = *i;
    uint64_t v = 0;
    if (hex && j + 1 < n && s[j] == '0' && (s[j + 1] == 'x' || s[j + 1] == 'X')) {
        size_t start = j + 2;
        j = start;
        while (j < n) {
            char c = s[j];
            unsigned d;
            if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
            else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
            else break;
            if (v > (UINT64_MAX >> 4)) return CGPROP__NUM_OVERFLOW;
            v = v << 4 | d;
            j++;
        }
        if (j == start) return CGPROP__NUM_NONE;
    } else {
        size_t start = j, stop = n - j > 19 ? j + 19 : n;
        /* 19 digits cannot overflow: only the digits past them are
         * checked (a division each). */
        while (j < stop && cgprop__is_digit(s[j])) v = v * 10 + (uint64_t)(s[j++] - '0');
        while (j < n && cgprop__is_digit(s[j])) {
            unsigned d = (unsigned)(s[j] - '0');
            if (v > (UINT64_MAX - d) / 10) return CGPROP__NUM_OVERFLOW;
            v = v * 10 + d;
            j++;
        }
        if (j == start) return CGPROP__NUM_NONE;
    }
    *i = j;
    *out = v;
    return CGPROP__NUM_OK;
}

/* Fill err (code, line, formatted reason); file is left to the caller.
 * Returns code. err may be NULL. */
int cgprop__read_fail(cgprop_read_error *err, int code, uint64_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Full-size working copies of a caller's info and error structs, whose
 * size fields may cover only a prefix (see cgprop__out_begin in read.c). */
typedef struct cgprop__out {
    cgprop_read_info info, *uinfo;
    cgprop_read_error err, *uerr;
    uint64_t totals[CGPROP_MAX_METRICS];
} cgprop__out;
int cgprop__out_begin(cgprop__out *o, cgprop_read_info *info, cgprop_read_error *err);
int cgprop__out_end(cgprop__out *o, int rc);

/* File loading and errno texts (util/file.h). */
#include "util/file.h"

/* A short, printable excerpt of untrusted bytes for messages: at most max
 * bytes, non-printable bytes shown as '?'. dst must hold max + 4 bytes. */
void cgprop__excerpt(char *dst, const char *s, size_t n, size_t max);

/* Format readers, in lib/io/callgrind*.c (callgrind.h) and lib/io/folded.c. On error
 * they fill err (except err->file) and leave *out NULL; info may be NULL. */
int cgprop__callgrind_read(const char *data, size_t len, const cgprop_read_options *opts,
                           const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                           cgprop_read_error *err);
int cgprop__folded_read(const char *data, size_t len, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                        cgprop_read_error *err);

/* perf script text, in lib/io/perf.c; detect: the first sample header is
 * followed by a frame line. */
int cgprop__perf_read(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                      cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err);
bool cgprop__perf_detect(const char *data, size_t len);

/* Chrome/V8 .cpuprofile JSON, or a Chrome trace's CPU profiles, in
 * lib/io/v8.c; detect: a JSON object that has a "nodes" key among its
 * first bytes or opens with a profile's or a trace's key, or an array of
 * trace events. */
int cgprop__v8_read(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                    cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err);
bool cgprop__v8_detect(const char *data, size_t len);
/* pprof reader, lib/io/pprof.c: profile.proto, already inflated. */
int cgprop__pprof_read(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                       cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err);
/* Whether data (possibly only a prefix) opens as a pprof Profile message. */
bool cgprop__pprof_detect(const char *data, size_t len);

/* gzip transport, lib/io/gzip.c. Memory through the read's allocator
 * (malloc when a is NULL); n == 0 is taken as 1. */
void *cgprop__ra_realloc(const cgprop_allocator *a, void *p, size_t n);
void cgprop__ra_free(const cgprop_allocator *a, void *p);
/* The gzip magic 1f 8b. */
bool cgprop__is_gzip(const char *data, size_t len);
/* Inflate every member of a gzip stream into a new buffer (free it with
 * cgprop__ra_free): ENOMEM past limit bytes or when an allocation fails,
 * EFORMAT for corrupt, truncated or trailing data (the reason gives the
 * byte offset in the compressed input), or when zlib is not built in. */
int cgprop__gunzip(const char *data, size_t len, const cgprop_allocator *alloc, size_t limit, char **out,
                   size_t *out_len, cgprop_read_error *err);
/* The one layer of gzip every reader takes: data inflated (as
 * cgprop__gunzip, to CGPROP__GUNZIP_LIMIT), gzip inside it refused. *out,
 * NULL or not, is the caller's to free. */
int cgprop__gunzip_layer(const char *data, size_t len, const cgprop_allocator *alloc, char **out, size_t *out_len,
                         cgprop_read_error *err);
/* Inflate at most cap bytes of the first member into dst, for detection
 * (zlib's own allocation); 0 when nothing could be inflated. */
uint32_t cgprop__gunzip_peek(const char *data, size_t len, char *dst, size_t cap, size_t *got);
/* A text read piece by piece, for the readers that need not hold all of it
 * (perf script, folded stacks): the bytes of a cgprop__file (its head, or
 * all of a mapped file) and then the rest of its stream, inflated as they
 * come when they open with the gzip magic. Memory is zlib's state and a
 * 64 KiB input buffer, through the read's allocator. */
typedef struct cgprop__src {
    cgprop__file *f;
    const cgprop_allocator *alloc;
    size_t at;     /* bytes of f->data handed out, or given to zlib */
    uint64_t fed;  /* bytes given to zlib in all (for error offsets) */
    void *z;       /* zlib's stream when the input is gzip, else NULL */
    char *zin;     /* zlib's input once f->data is used up */
    bool zend;     /* past the last gzip member */
    bool zbetween; /* a member ended: zeros, another member or the end follow */
    bool zpad;     /* zeros followed: only zeros may come */
    bool whole;    /* every byte is in f->data: it can be read again */
} cgprop__src;
/* EFORMAT when the input is gzip and zlib is not built in, ENOMEM. */
int cgprop__src_open(cgprop__src *s, cgprop__file *f, const cgprop_allocator *alloc, cgprop_read_error *err);
/* Up to cap bytes into dst; *got == 0 only at the end. Errors as
 * cgprop__gunzip's, and ENOTFOUND for a read error. */
int cgprop__src_read(cgprop__src *s, char *dst, size_t cap, size_t *got, cgprop_read_error *err);
/* The bytes a plain stream has read ahead (its head), as a buffer of the
 * read's allocator that the caller now owns and fills on from the stream:
 * no copy of them. NULL (nothing changed) for gzip, a file in memory, or
 * when some of them were read. */
char *cgprop__src_take(cgprop__src *s, size_t *len, size_t *cap);
/* Back to the first byte, when every byte is still in memory (a mapped
 * file): false for a stream, which cannot be read twice. */
bool cgprop__src_rewind(cgprop__src *s);
void cgprop__src_close(cgprop__src *s);
/* A text walked in pieces, each ending where cut_at says the last whole
 * unit of buf[0..n) ends (0: none yet), for the readers that keep no state
 * between units but what they copy out: buf[0..cut) is the piece, the bytes
 * after it wait for the next. The first piece may be larger (head) than the
 * others (piece); a unit longer than a piece makes it grow. */
typedef size_t (*cgprop__cut_fn)(const char *buf, size_t n);
/* The cut after the last newline (0: none): pieces of whole lines. */
size_t cgprop__cut_after_newline(const char *buf, size_t n);
typedef struct cgprop__pieces {
    cgprop__src *src;
    const cgprop_allocator *alloc;
    cgprop_read_error *err;
    cgprop__cut_fn cut_at;
    char *buf;
    size_t cap, have, cut;
    size_t head, piece;
    bool walked; /* the first piece was handed out */
    bool end;    /* the stream has no more bytes */
} cgprop__pieces;
/* Ready to read at least first_read bytes before the first piece is cut.
 * A pipe's first bytes, already in a buffer, become its buffer: a copy
 * would hold them twice. CGPROP_ENOMEM. */
int cgprop__pieces_open(cgprop__pieces *q, cgprop__src *src, cgprop__cut_fn cut_at, size_t head, size_t piece,
                        size_t first_read, const cgprop_allocator *alloc, cgprop_read_error *err);
/* The next piece, buf[0..cut); *done when the text is all walked. */
int cgprop__pieces_next(cgprop__pieces *q, bool *done);
/* Back to the first piece (handed out again); CGPROP__NO_REWIND for a
 * stream, which cannot be read twice (errors are negative). */
#define CGPROP__NO_REWIND 2
int cgprop__pieces_rewind(cgprop__pieces *q);
void cgprop__pieces_close(cgprop__pieces *q);
/* How much of a stream the piecewise readers hold at once (and read before
 * they decide anything): the first part is also where the perf reader lists
 * a stream's events. */
#define CGPROP__STREAM_HEAD ((size_t)8 << 20)
/* The folded-stack reader over a text read piece by piece (pieces of about
 * piece bytes that end after a newline): the same graph as the text in
 * memory, in memory bounded by a piece and the graph. */
int cgprop__folded_read_stream(cgprop__src *src, size_t piece, const cgprop_read_options *opts,
                               const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                               cgprop_read_error *err);
/* The callgrind reader over a text read piece by piece (pieces of about
 * piece bytes that end after a newline): the same graph, or the same
 * refusal, as the text in memory, in memory bounded by a piece and the
 * graph. Xdebug's profiles, which are rewritten whole first, are gathered
 * whole. A call's sum that overflows is reported at its line when the input
 * can be read again (in memory, gzipped), at line 0 from a pipe. */
int cgprop__callgrind_read_stream(cgprop__src *src, size_t piece, const cgprop_read_options *opts,
                                  const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                                  cgprop_read_error *err);
/* The event-trace reader over a text read piece by piece (pieces of about
 * piece bytes that end after a newline): the same graph, or the same
 * refusal, as the trace in memory, in memory bounded by a piece and the
 * recorder's state (lib/io/events.c). */
int cgprop__events_read_stream(cgprop__src *src, size_t piece, const cgprop_read_options *opts,
                               const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_error *err);
/* Whether fmt's reader walks a text in pieces, and that walk: the reader
 * of fmt over src (head: the first piece, where perf lists its events;
 * piece: the others; both CGPROP__STREAM_HEAD in the library). */
bool cgprop__pieces_format(uint32_t fmt);
int cgprop__read_pieces(cgprop__src *src, uint32_t fmt, size_t head, size_t piece, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                        cgprop_read_error *err);
/* Why data (its first bytes) is a raw recording no reader takes, with the
 * command that prints what cgprop reads; NULL when it is not one
 * (lib/io/read.c). */
const char *cgprop__recording(const char *d, size_t len);
/* The perf script reader over a text read piece by piece (the first of
 * about head bytes, where the events are listed, the others of about piece
 * bytes; both CGPROP__STREAM_HEAD in the library): the same graph as the
 * text in memory, in memory bounded by a piece and the graph. An event first
 * named after the first piece of a stream that cannot be rewound (a pipe) is
 * an error that says to read a file. */
int cgprop__perf_read_stream(cgprop__src *src, size_t head, size_t piece, const cgprop_read_options *opts,
                             const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                             cgprop_read_error *err);
/* The most bytes one gzip input may inflate to. */
#if SIZE_MAX > 0xffffffffu
#define CGPROP__GUNZIP_LIMIT ((size_t)1 << 36)
#else
#define CGPROP__GUNZIP_LIMIT ((size_t)1 << 30)
#endif
/* Python statistics (lib/io/pstats.c) and gprof's text report
 * (lib/io/gprof.c); their detectors read a few bytes or lines. */
int cgprop__pstats_read(const char *data, size_t len, const cgprop_read_options *opts,
                        const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                        cgprop_read_error *err);
bool cgprop__pstats_detect(const char *data, size_t len);
int cgprop__gprof_read(const char *data, size_t len, const cgprop_read_options *opts,
                       const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                       cgprop_read_error *err);
bool cgprop__gprof_detect(const char *data, size_t len);

#endif
