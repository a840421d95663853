/* perf script reader: the text `perf script` prints for samples recorded
 * with call chains (perf record -g, --call-graph dwarf|lbr). One sample is a
 * header line (comm, pid/tid, cpu, time, period, event) followed by its
 * frames, leaf first, one per TAB-indented line, and a blank line. Each
 * sample becomes one cgprop_graph_add_stack(), so recursion classes are
 * exact. See docs/formats/perf.md for the mapping. */
#include "io_util.h"

#include "analysis.h"
#include "util/hash.h"

#include <stdio.h>

/* Metric names must be known before the graph exists, and a file names its
 * events as it goes: a first pass reads only the header lines to list them.
 * The room for the sample count is the last of the CGPROP_MAX_METRICS. */
#define MAX_EVENTS (CGPROP_MAX_METRICS - 1)
/* The event index of a sample that weighs in the sample count only. */
#define NO_EVENT UINT32_MAX
/* The second pass of a guess (see guess_end) met an event the first part of
 * the file did not name. */
#define NEW_EVENT 1

typedef struct pframe {
    const char *addr; /* as printed, to match the frames of one inline chain */
    size_t addrlen;
    const char *sym;
    size_t symlen;
    const char *dso;
    size_t dsolen;
    bool unknown; /* no symbol: keyed by the dso alone */
    bool inlined; /* perf's "(inlined)": the dso is its inline chain's */
} pframe;

/* A frame of the previous sample, root first: the symbol and dso its key
 * was built from, and the function. */
typedef struct pseen {
    const char *sym, *dso;
    size_t symlen, dsolen;
    uint32_t id;
    bool reuse; /* false for a frame keyed by the dso alone or inlined */
} pseen;

/* An inlined function's name and the dso it was first given. */
typedef struct pinl {
    const char *sym, *dso;
    size_t symlen, dsolen;
} pinl;

typedef struct pevent {
    const char *name;
    size_t len;
    /* Whether its samples print a period: if none does, its metric counts
     * samples and is named so. */
    bool weighted;
} pevent;

typedef struct pr {
    cgprop_graph *g;
    bool contexts; /* keep calling contexts (cgprop_read_options.contexts) */
    cgprop_read_error *err;
    pevent ev[MAX_EVENTS];
    uint32_t nev;
    pframe *fr;
    size_t nfr, frcap;
    uint32_t *ids;
    size_t idcap;
    /* A long recording repeats its stacks, and consecutive samples share
     * their root end: a frame with the symbol and dso of the one at the
     * same depth in the previous sample is the same function, found
     * without building its key or hashing it. */
    pseen *prev;
    size_t nprev, prevcap;
    char *key;
    size_t keycap;
    bool guess; /* the events come from the first part of the file only */
    /* A sample with neither event nor period (-F naming neither) weighs
     * only in the sample count: no event metric would say more. */
    bool bare;
    /* Whether any sample had a frame of its own: a text where none has is
     * no call-chain output (perf's own, printed without ip, or another
     * text named perf), and a report of it would be one [unknown] at 100 %. */
    bool framed;
    /* The dso an inlined function was first given when perf printed no
     * real frame at its address: by its name's hash, an index into inl. */
    cgprop__u64map inl_ix;
    pinl *inl;
    size_t ninl, inlcap;
    /* Where the guess met an event it had not listed. */
    uint64_t new_event_line;
    /* A text read piece by piece: the names kept from one sample to the
     * next (events, inlined functions and their dsos) are copied out of
     * the piece into blocks that stay until the read ends. */
    bool stream;
    const cgprop_allocator *alloc;
    char **blk;
    size_t nblk, blkcap, blkleft;
    char *blkat;
} pr;

static bool is_hex(char c)
{
    /* One test: fold the letters to lower case (a digit has 0x20 set). */
    unsigned u = (unsigned char)c;
    return u - '0' < 10u || (u | 0x20u) - 'a' < 6u;
}

static bool all_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_hex(s[i])) return false;
    return n > 0;
}

/* A header token, with the blanks before it (one more at the line's start,
 * so that a field's padding counts alike wherever it stands). */
typedef struct tok {
    const char *b;
    size_t n;
    size_t gap;
} tok;

static bool all_digits(const char *s, size_t n)
{
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++)
        if (!cgprop__is_digit(s[i])) return false;
    return true;
}

/* "12345.678901:" — perf's time field. */
static bool is_time(const char *s, size_t n)
{
    if (n < 4 || s[n - 1] != ':') return false;
    const char *dot = memchr(s, '.', n);
    if (!dot) return false;
    size_t a = (size_t)(dot - s);
    return all_digits(s, a) && all_digits(dot + 1, n - a - 2);
}

/* "[003]" — the cpu field. */
static bool is_cpu(const tok *t)
{
    return t->n >= 3 && t->b[0] == '[' && t->b[t->n - 1] == ']' && all_digits(t->b + 1, t->n - 2);
}

/* "1234" or "1234/1235": the pid or pid/tid field. */
static bool is_pid(const char *s, size_t n)
{
    const char *sl = memchr(s, '/', n);
    if (!sl) return all_digits(s, n);
    size_t a = (size_t)(sl - s);
    return all_digits(s, a) && all_digits(sl + 1, n - a - 1);
}

/* perf prints the period right-aligned in ten columns, and a pid or tid in
 * five (seven in later versions), each after the blank that ends the
 * field before: a number that fills eleven columns with the blanks before
 * it is a period, one that fills fewer a pid or tid (a pid has at most
 * seven digits). */
static bool period_wide(const tok *t) { return t->gap + t->n >= 11; }

static bool ends_colon(const tok *t) { return t->b[t->n - 1] == ':'; }

static bool is_record(const tok *t) { return t->n >= 12 && memcmp(t->b, "PERF_RECORD_", 12) == 0; }

/* Whether one of t[from..to) names a side-band record's type. */
static bool any_record(const tok *t, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        if (is_record(&t[k])) return true;
    return false;
}

/* What a line that is neither blank nor a frame is. */
enum { H_SAMPLE, H_RECORD, H_EXTRA };
/* The field a sample header is read from. */
enum { A_NONE, A_CPU, A_TIME };

typedef struct header {
    int kind;
    int anchor;
    bool has_event;
    const char *ev;
    size_t evlen;
    bool has_period;
    const char *per;
    size_t perlen;
    const char *rest; /* what follows the event (a frame without -g) */
    size_t restlen;
    size_t restgap; /* the blanks between the event and rest */
    bool ip_first; /* no event, and rest starts at the frame's address */
} header;

/* The fields before the event are at most a comm of 15 bytes (8 words),
 * pid/tid, cpu, misc, the two of tod, time and period. */
#define HEAD_TOKENS 16

static bool next_tok(const char *s, size_t n, size_t *i, tok *t)
{
    size_t b = *i, k = *i;
    while (k < n && cgprop__is_space(s[k])) k++;
    if (k >= n) return false;
    t->gap = k - b + (b == 0);
    t->b = s + k;
    while (k < n && !cgprop__is_space(s[k])) k++;
    t->n = (size_t)(s + k - t->b);
    *i = k;
    return true;
}

static void set_period(header *h, const tok *per)
{
    h->has_period = true;
    h->per = per->b;
    h->perlen = per->n;
}

/* Whether the header's tokens, nt of them read up to s[i], are all it has. */
static bool line_ended(const char *s, size_t n, size_t i, size_t nt)
{
    tok more;
    return nt < HEAD_TOKENS || !next_tok(s, n, &i, &more);
}

static void set_event(header *h, const char *s, size_t n, const tok *t, const tok *per)
{
    h->has_event = true;
    h->ev = t->b;
    h->evlen = t->n - 1;
    if (per) set_period(h, per);
    size_t i = (size_t)(t->b + t->n - s), e = i;
    while (i < n && cgprop__is_space(s[i])) i++;
    h->rest = s + i;
    h->restlen = n - i;
    h->restgap = i - e;
}

/* Without call chains perf prints the sample's frame on the header line,
 * its address right-aligned in sixteen columns after a blank: with the
 * blanks before it (one more counted at the line's start, as for a period)
 * it fills 18 columns or more, where a comm right-aligned in sixteen fills
 * 17, a period 11 and a pid or tid 8. The first such hex token of t[from..nt),
 * nt when none. */
static size_t wide_ip(const tok *t, size_t from, size_t nt)
{
    /* A number followed by the event is a period, however wide. */
    for (size_t k = from; k < nt; k++)
        if (t[k].gap + t[k].n >= 18 && all_hex(t[k].b, t[k].n) && !(k + 1 < nt && ends_colon(&t[k + 1])))
            return k;
    return nt;
}

/* A header without an event whose frame starts at token t (no -g). */
static void frame_on_line(header *h, const char *s, size_t n, const tok *t)
{
    h->ip_first = true;
    h->rest = t->b;
    h->restlen = n - (size_t)(t->b - s);
    h->restgap = t->gap;
}

/* A header that names no event (-F without it), its fields t[from..ip)
 * and the frame's address at ip (nt when it has none; i past the last of
 * the nt tokens read): a period, when printed, ends the fields (the line,
 * or what stands before the address). After a cpu field any number is
 * one; else only one as wide as perf prints a period (a pid or tid is
 * narrower), as before an event. */
static void no_event(header *h, const char *s, size_t n, const tok *t, size_t nt, size_t i, size_t from, size_t ip,
                     bool by_width)
{
    if (ip < nt) frame_on_line(h, s, n, &t[ip]);
    if (ip <= from || (ip == nt && !line_ended(s, n, i, nt))) return;
    const tok *per = &t[ip - 1];
    if (all_digits(per->b, per->n) && (!by_width || period_wide(per))) set_period(h, per);
}

/* perf prints, of the fields -F chose, comm, pid/tid, [cpu], misc, tod and
 * time, then the period and "event:", then, without call chains, the
 * frame. A comm may hold blanks and words ending in ':', so the header is
 * read from the time (digits.digits:), which no other field resembles:
 * after it an all-digit period, then the event, a token ending in ':'
 * (which may hold more: "sched:sched_switch:"). Without a time the cpu
 * field anchors alike, the event being the first token after it that ends
 * in ':' (misc and tod may come between) and the period the number just
 * before it. Without either, the event is the first token ending in ':',
 * or, when a number (pid or period) follows that token, the first after
 * the number (that one was a comm's word); the number before the event is
 * the period only when as wide as perf prints one. Without an event (-F
 * without it) the period ends the header, and without call chains the
 * frame that follows it is found by its address's width (wide_ip). A
 * side-band record (--show-mmap-events and the like) names its
 * PERF_RECORD_ type where the event would be; srccode ("|12  code"),
 * instruction (" ilen: 5 insn: ...") and IPC lines are extras. */
static void parse_header(const char *s, size_t n, header *h)
{
    memset(h, 0, sizeof *h);
    if (n >= 2 && s[0] == '|' && cgprop__is_digit(s[1])) {
        h->kind = H_EXTRA;
        return;
    }
    tok t[HEAD_TOKENS];
    size_t nt = 0, i = 0;
    size_t cpu = SIZE_MAX, time = SIZE_MAX;
    while (nt < HEAD_TOKENS && next_tok(s, n, &i, &t[nt])) {
        const tok *c = &t[nt];
        if (nt == 0 && ((c->n == 5 && (memcmp(c->b, "ilen:", 5) == 0 || memcmp(c->b, "insn:", 5) == 0)) ||
                        (c->n == 4 && memcmp(c->b, "IPC:", 4) == 0))) {
            h->kind = H_EXTRA;
            return;
        }
        /* A comm's words come before the time, even one like it ("1.0:"):
         * a time-like token at most two tokens after another is the time. */
        if (ends_colon(c) && is_time(c->b, c->n)) time = nt;
        else if (cpu == SIZE_MAX && is_cpu(c)) cpu = nt;
        nt++;
        if (time != SIZE_MAX && nt == time + 3) break;
    }
    if (time != SIZE_MAX) {
        h->anchor = A_TIME;
        const tok *a = time + 1 < nt ? &t[time + 1] : NULL, *b = time + 2 < nt ? &t[time + 2] : NULL;
        if (!a) return;
        if (is_record(a)) {
            h->kind = H_RECORD;
            return;
        }
        if (ends_colon(a)) {
            set_event(h, s, n, a, NULL);
            return;
        }
        if (wide_ip(a, 0, b ? 2 : 1) == 0) {
            frame_on_line(h, s, n, a);
            return;
        }
        if (!all_digits(a->b, a->n)) return;
        set_period(h, a);
        if (b && ends_colon(b)) set_event(h, s, n, b, a);
        else if (b && wide_ip(b, 0, 1) == 0) frame_on_line(h, s, n, b);
        return;
    }
    size_t ev = SIZE_MAX;
    if (cpu != SIZE_MAX) {
        h->anchor = A_CPU;
        /* A symbol of the frame on the line may end in ':' too. */
        size_t ip = wide_ip(t, cpu + 1, nt);
        for (size_t k = cpu + 1; k < ip && ev == SIZE_MAX; k++)
            if (ends_colon(&t[k])) ev = k;
        if (any_record(t, cpu + 1, ev == SIZE_MAX ? nt : ev + 1)) {
            h->kind = H_RECORD;
            return;
        }
        if (ev == SIZE_MAX) {
            no_event(h, s, n, t, nt, i, cpu + 1, ip, false);
            return;
        }
        const tok *per = ev > cpu + 1 && all_digits(t[ev - 1].b, t[ev - 1].n) ? &t[ev - 1] : NULL;
        set_event(h, s, n, &t[ev], per);
        return;
    }
    size_t ip = wide_ip(t, 0, nt);
    for (size_t k = 0; k < ip && ev == SIZE_MAX; k++)
        if (ends_colon(&t[k])) ev = k;
    /* That token is a comm's word when a number (pid/tid or period) comes
     * after it where the field after a comm can stand (a comm has at most
     * 8 words), and a token ending in ':' after the number. */
    if (ev < 8) {
        size_t k = ev + 1;
        while (k <= 8 && k < nt && !is_pid(t[k].b, t[k].n)) k++;
        for (size_t e = k + 1; k <= 8 && e < nt; e++)
            if (ends_colon(&t[e])) {
                ev = e;
                break;
            }
    }
    if (any_record(t, 0, ev == SIZE_MAX ? nt : ev + 1)) {
        h->kind = H_RECORD;
        return;
    }
    if (ev == SIZE_MAX) {
        no_event(h, s, n, t, nt, i, 0, ip, true);
        return;
    }
    const tok *p = ev > 0 ? &t[ev - 1] : NULL;
    set_event(h, s, n, &t[ev], p && all_digits(p->b, p->n) && period_wide(p) ? p : NULL);
}

/* Where the last '(' or ')' of s[0..k) ends (0 if none). The two differ
 * in their last bit only, so one test finds either; a dso's bytes are
 * passed eight at a time. */
static size_t last_paren(const char *s, size_t k)
{
#ifdef CGPROP__SWAR_LE
    while (k >= 8) {
        uint64_t w;
        memcpy(&w, s + k - 8, 8);
        w = (w & 0xFEFEFEFEFEFEFEFEull) ^ 0x2828282828282828ull;
        /* the top bit of each byte that is 0 in w, and of no other */
        uint64_t m = ~(((w & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | w) & 0x8080808080808080ull;
        if (m) return k - 8 + ((size_t)(63 - __builtin_clzll(m)) >> 3) + 1;
        k -= 8;
    }
#endif
    while (k > 0 && ((unsigned char)s[k - 1] & 0xFEu) != 0x28u) k--;
    return k;
}

/* One frame: "[addr] sym[+0xoff] (dso)", leaf first. Anything may be
 * missing but the line itself. */
static void parse_frame(const char *s, size_t n, pframe *f)
{
    /* Past the line's TAB, perf's padding is blanks: eight at a time. */
    size_t b = cgprop__skip_blanks(s, n && s[0] == '\t' ? 1 : 0, n);
    s += b;
    n -= b;
    while (n && cgprop__is_space(s[n - 1])) n--;
    /* The address, when printed, is the first token, in hex without 0x;
     * perf prints it on every frame, so a line of it alone (-F ip without
     * sym) is a frame without symbol. */
    size_t j = 0;
    while (j < n && is_hex(s[j])) j++;
    f->addr = s;
    f->addrlen = 0;
    if (j > 0 && (j == n || cgprop__is_space(s[j]))) {
        f->addrlen = j;
        s += j;
        n -= j;
        while (n && cgprop__is_space(*s)) {
            s++;
            n--;
        }
    }
    f->dso = NULL;
    f->dsolen = 0;
    f->inlined = false;
    /* The dso is the group the line's last ')' closes, when a blank
     * stands before it: a path may hold parentheses of its own ("./build
     * (debug)/p", "/p (deleted)"), and a C++ name printed without a dso
     * ends in its own, opened after no blank. With more ')' than '(' no
     * group balances: the last one opened after a blank is taken. */
    if (n && s[n - 1] == ')') {
        size_t depth = 1, k = n - 1, open = SIZE_MAX;
        while ((k = last_paren(s, k)) > 0) {
            if (s[--k] == ')') depth++;
            else if (--depth == 0) {
                open = k;
                break;
            }
        }
        if (open == SIZE_MAX) {
            k = n - 1;
            while (k > 0 && !(s[k - 1] == '(' && (k == 1 || cgprop__is_space(s[k - 2])))) k--;
            if (k > 0) open = k - 1;
        } else if (open > 0 && !cgprop__is_space(s[open - 1])) {
            open = SIZE_MAX;
        }
        if (open != SIZE_MAX) {
            const char *d = s + open + 1;
            size_t dn = n - 2 - open;
            if (dn == 7 && memcmp(d, "inlined", 7) == 0) f->inlined = true;
            else {
                f->dso = d;
                f->dsolen = dn;
            }
            n = open;
            while (n && cgprop__is_space(s[n - 1])) n--;
        }
    }
    /* "+0x1f": the offset in the function is no part of its identity. */
    size_t k = n;
    while (k > 0 && s[k - 1] != '+') k--;
    if (k > 0 && k + 2 < n && s[k] == '0' && s[k + 1] == 'x') {
        size_t q = k + 2;
        while (q < n && is_hex(s[q])) q++;
        if (q == n) n = k - 1;
    }
    f->sym = s;
    f->symlen = n;
    f->unknown = n == 0 || (n == 9 && memcmp(s, "[unknown]", 9) == 0);
}

static int oom(pr *p, uint64_t line) { return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory"); }

/* A copy of s[0..n) that outlives the piece of text it is in (s itself for
 * a text in memory); NULL when out of memory. */
static const char *keep(pr *p, const char *s, size_t n)
{
    if (!p->stream || n == 0) return s;
    if (n > p->blkleft) {
        if (p->nblk == p->blkcap) {
            size_t cap = p->blkcap ? p->blkcap * 2 : 16;
            char **b = cgprop__ra_realloc(p->alloc, p->blk, cap * sizeof *b);
            if (!b) return NULL;
            p->blk = b;
            p->blkcap = cap;
        }
        size_t sz = n > 65536 ? n : 65536;
        char *b = cgprop__ra_realloc(p->alloc, NULL, sz);
        if (!b) return NULL;
        p->blk[p->nblk++] = b;
        p->blkat = b;
        p->blkleft = sz;
    }
    char *d = p->blkat;
    memcpy(d, s, n);
    p->blkat += n;
    p->blkleft -= n;
    return d;
}

static void keep_free(pr *p)
{
    for (size_t i = 0; i < p->nblk; i++) cgprop__ra_free(p->alloc, p->blk[i]);
    cgprop__ra_free(p->alloc, p->blk);
    p->blk = NULL;
    p->nblk = p->blkcap = p->blkleft = 0;
    p->blkat = NULL;
}

static bool key_room(pr *p, size_t need)
{
    if (need <= p->keycap) return true;
    size_t cap = p->keycap ? p->keycap : 256;
    while (cap < need) cap *= 2;
    char *k = cgprop__realloc(p->g, p->key, cap, 1);
    if (!k) return false;
    p->key = k;
    p->keycap = cap;
    return true;
}

static size_t put(char *dst, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) dst[i] = s[i] == '\t' ? ' ' : s[i];
    return n;
}

/* Key "dso TAB TAB symbol": the dso is the object, as callgrind's ob=, and
 * perf names no source file. A frame without symbol is
 * "dso TAB TAB [unknown] (base)", so that its display name still says where
 * it was. */
static int frame_node(pr *p, uint64_t line, const pframe *f, uint32_t *out)
{
    const char *dso = f->dso ? f->dso : "";
    size_t dn = f->dso ? f->dsolen : 0;
    size_t need = dn + 2 + (f->unknown ? 13 + dn : f->symlen);
    if (!key_room(p, need)) return oom(p, line);
    size_t k = put(p->key, dso, dn);
    p->key[k++] = '\t';
    p->key[k++] = '\t';
    if (f->unknown) {
        bool nodso = dn == 0 || (dn == 9 && memcmp(dso, "[unknown]", 9) == 0);
        memcpy(p->key + k, "[unknown]", 9);
        k += 9;
        if (!nodso) {
            size_t b = dn;
            while (b > 0 && dso[b - 1] != '/') b--;
            if (b == dn) b = 0;
            memcpy(p->key + k, " (", 2);
            k += 2;
            k += put(p->key + k, dso + b, dn - b);
            p->key[k++] = ')';
        }
    } else {
        k += put(p->key + k, f->sym, f->symlen);
    }
    int rc = cgprop__node_get(p->g, p->key, k, out);
    if (rc) return cgprop__read_fail(p->err, rc, line, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    return CGPROP_OK;
}

static int push_frame(pr *p, uint64_t line, const char *s, size_t n)
{
    if (p->nfr == p->frcap) {
        size_t cap = p->frcap ? p->frcap * 2 : 64;
        pframe *f = cgprop__realloc(p->g, p->fr, cap, sizeof *f);
        if (!f) return oom(p, line);
        p->fr = f;
        p->frcap = cap;
    }
    parse_frame(s, n, &p->fr[p->nfr++]);
    return CGPROP_OK;
}

static int event_index(const pr *p, const header *h, uint32_t *out)
{
    const char *e = h->has_event ? h->ev : "";
    size_t en = h->has_event ? h->evlen : 0;
    for (uint32_t i = 0; i < p->nev; i++)
        if (p->ev[i].len == en && memcmp(p->ev[i].name, e, en) == 0) {
            *out = i;
            return 0;
        }
    return -1;
}

/* A kernel address as perf prints it: all 64 bits, the top ones set (a
 * user frame's address is printed short, relative to its dso). */
static bool kernel_addr(const pframe *f)
{
    return f->addrlen == 16 && (f->addr[0] | 0x20) == 'f' && (f->addr[1] | 0x20) == 'f';
}

/* Inlined frames fr[i..e) whose own function perf printed no real frame
 * for: with --call-graph dwarf the real frame before them is their callee,
 * after a truncated unwind a kernel frame, and the one after them their
 * caller, so which dso each belongs to is a guess. A guess that changed
 * from sample to sample would split one function in two (perf report
 * counts an inlined function once, by name), so the first guess for a name
 * is kept for every later frame of that name: a real frame before, else
 * after, in the frames' own address space (user or kernel). */
static int guess_inlined(pr *p, uint64_t line, size_t i, size_t e, const pframe *before, const pframe *after)
{
    const pframe *src = NULL;
    if (before && kernel_addr(before) == kernel_addr(&p->fr[i])) src = before;
    else if (after && kernel_addr(after) == kernel_addr(&p->fr[i])) src = after;
    for (size_t k = i; k < e; k++) {
        pframe *f = &p->fr[k];
        uint64_t h = cgprop__hash_bytes(f->sym, f->symlen);
        if (h == UINT64_MAX) h--;
        uint32_t ix;
        bool known = cgprop__u64map_get(&p->inl_ix, h, &ix);
        if (known && p->inl[ix].symlen == f->symlen && memcmp(p->inl[ix].sym, f->sym, f->symlen) == 0) {
            f->dso = p->inl[ix].dso;
            f->dsolen = p->inl[ix].dsolen;
            continue;
        }
        f->dso = src ? src->dso : NULL;
        f->dsolen = src ? src->dsolen : 0;
        /* Another name of the same hash goes unremembered. */
        if (known) continue;
        if (p->ninl == p->inlcap) {
            size_t cap = p->inlcap ? p->inlcap * 2 : 16;
            if (cap > UINT32_MAX) return oom(p, line);
            pinl *q = cgprop__realloc(p->g, p->inl, cap, sizeof *q);
            if (!q) return oom(p, line);
            p->inl = q;
            p->inlcap = cap;
        }
        const char *ks = keep(p, f->sym, f->symlen), *kd = f->dso ? keep(p, f->dso, f->dsolen) : NULL;
        if (!ks || (f->dso && !kd)) return oom(p, line);
        if (cgprop__u64map_put(&p->g->a, &p->inl_ix, h, (uint32_t)p->ninl)) return oom(p, line);
        p->inl[p->ninl++] = (pinl){ks, kd, f->symlen, f->dsolen};
    }
    return CGPROP_OK;
}

/* End of a sample: reverse the frames into a root-first stack and add it. */
static int flush(pr *p, uint64_t line, uint32_t ev, uint64_t period)
{
    p->framed = p->framed || p->nfr;
    if (p->nfr == 0) {
        /* perf counts a sample without any frame; so does the graph, under
         * an unknown function, so that percentages keep perf's total. */
        int rc = push_frame(p, line, "[unknown] ([unknown])", 21);
        if (rc) return rc;
    }
    if (p->nfr > p->idcap) {
        uint32_t *ids = cgprop__realloc(p->g, p->ids, p->frcap, sizeof *ids);
        if (!ids) return oom(p, line);
        p->ids = ids;
        p->idcap = p->frcap;
    }
    /* An inlined frame prints no dso: it is that of the real frame of its
     * inline chain. With --inline (addr2line), the chain is printed callee
     * first and the real frame, at the same address, closes it; with
     * --call-graph dwarf, the real frame comes first and the inlined caller
     * after it, at another address. So: the real frame after the run if its
     * address is the run's, else the real frame before the run, else the one
     * after. */
    for (size_t i = 0; i < p->nfr;) {
        if (!p->fr[i].inlined) {
            i++;
            continue;
        }
        size_t e = i;
        while (e < p->nfr && p->fr[e].inlined) e++;
        const pframe *after = e < p->nfr ? &p->fr[e] : NULL;
        const pframe *before = i > 0 ? &p->fr[i - 1] : NULL;
        if (after && after->addrlen && after->addrlen == p->fr[i].addrlen &&
            memcmp(after->addr, p->fr[i].addr, after->addrlen) == 0) {
            for (size_t k = i; k < e; k++) {
                p->fr[k].dso = after->dso;
                p->fr[k].dsolen = after->dsolen;
            }
        } else {
            int rc = guess_inlined(p, line, i, e, before, after);
            if (rc) return rc;
        }
        i = e;
    }
    if (p->nfr > p->prevcap) {
        pseen *q = cgprop__realloc(p->g, p->prev, p->frcap, sizeof *q);
        if (!q) return oom(p, line);
        p->prev = q;
        p->prevcap = p->frcap;
    }
    for (size_t i = 0; i < p->nfr; i++) {
        const pframe *f = &p->fr[p->nfr - 1 - i];
        pseen *v = &p->prev[i];
        /* The dso of an inlined frame was just copied from a neighbour,
         * and an unknown symbol's key is made of the dso: only a frame
         * with its own symbol and dso is keyed by these two spans. */
        bool plain = !f->inlined && !f->unknown;
        size_t dn = f->dso ? f->dsolen : 0;
        if (plain && i < p->nprev && v->reuse && v->symlen == f->symlen && v->dsolen == dn &&
            memcmp(v->sym, f->sym, f->symlen) == 0 && (dn == 0 || memcmp(v->dso, f->dso, dn) == 0)) {
            p->ids[i] = v->id;
            continue;
        }
        int rc = frame_node(p, line, f, &p->ids[i]);
        if (rc) {
            p->nprev = 0;
            return rc;
        }
        v->sym = f->sym;
        v->symlen = f->symlen;
        v->dso = f->dso;
        v->dsolen = dn;
        v->id = p->ids[i];
        v->reuse = plain;
    }
    p->nprev = p->nfr;
    uint64_t w[CGPROP_MAX_METRICS];
    memset(w, 0, sizeof w);
    if (ev != NO_EVENT) w[ev] = period;
    w[p->nev] = 1;
    int rc = cgprop_graph_add_stack(p->g, p->ids, p->nfr, w);
    p->nfr = 0;
    if (rc == CGPROP_EOVERFLOW) return cgprop__read_fail(p->err, rc, line, "a cost sum overflows 64 bits");
    if (rc) return cgprop__read_fail(p->err, rc, line, "%s", cgprop_graph_errmsg(p->g));
    return CGPROP_OK;
}

static bool blank(const char *s, size_t n)
{
    /* Most lines end in a non-blank: no need to walk them. */
    if (n && !cgprop__is_space(s[n - 1])) return false;
    for (size_t i = 0; i < n; i++)
        if (!cgprop__is_space(s[i])) return false;
    return true;
}

/* Where the frame on a header line starts: "ip sym (dso)" after the event,
 * behind the data address when -F +addr prints one ("addr" alone, or
 * "addr sym (dso)" for a page fault). So the text's first token when it
 * is hex, or a later hex token after a hex token or a ')' that a symbol
 * follows (not a dso: "4005d0 add (/bin/p)" names the function add), the
 * last such. SIZE_MAX when the text opens with no address. */
static size_t head_frame_at(const char *s, size_t n)
{
    size_t i = 0;
    tok prev, t;
    if (!next_tok(s, n, &i, &prev) || !all_hex(prev.b, prev.n)) return SIZE_MAX;
    size_t at = 0;
    while (next_tok(s, n, &i, &t)) {
        if ((prev.b[prev.n - 1] == ')' || all_hex(prev.b, prev.n)) && all_hex(t.b, t.n)) {
            size_t j = i;
            while (j < n && cgprop__is_space(s[j])) j++;
            if (j < n && s[j] != '(') at = (size_t)(t.b - s);
        }
        prev = t;
    }
    return at;
}

/* The frame on a header line, as head_frame_at finds it in what follows
 * the event, when the text opens as perf prints an address there: right-
 * aligned in sixteen columns after a blank, so that it fills 17 with the
 * blanks before it. Prose that happens to hold a word ending in ':' and
 * a hex-looking word after it ("cost: a function") has no frame. */
static size_t frame_after_event(const header *h)
{
    size_t i = 0;
    tok t;
    if (!next_tok(h->rest, h->restlen, &i, &t) || h->restgap + t.n < 17) return SIZE_MAX;
    return head_frame_at(h->rest, h->restlen);
}

/* A sample whose frame came on its header line was recorded without its
 * call chain (perf record without -g, or printed with perf script -G):
 * only its leaf is known, so no function's inclusive cost is. Read as a
 * one-frame stack, every caller of that leaf would lose the sample and
 * still be shown exact, so the text is refused, with what makes chains. */
static int end_sample(pr *p, uint64_t start, uint32_t ev, uint64_t period, bool head_frame)
{
    if (head_frame)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, start,
                                 "a sample without its call chain (its frame is on its header line): inclusive "
                                 "costs need every sample's callers; record with perf record -g (or --call-graph "
                                 "dwarf) and print without perf script -G");
    return flush(p, start, ev, period);
}

/* Where a walk over the lines stands between two pieces of a text read
 * piece by piece (a piece ends after a blank line, outside any sample);
 * for a text in memory, one piece is the whole. */
typedef struct scanst {
    /* Samples with an empty header and with a header do not mix: a frame
     * after a blank line among headed samples has lost its header. */
    bool in_sample, after_blank, headed, headless;
    /* The frame on the header line: the sample's own without call chains,
     * else (-F +addr) the data address, dropped when frame lines follow. */
    bool head_frame;
    int anchor;
    uint32_t ev;
    uint64_t period;
    uint64_t start;
    uint64_t lines; /* lines walked before this piece */
    header h;
} scanst;

static void scan_init(scanst *st)
{
    memset(st, 0, sizeof *st);
    st->anchor = A_NONE;
    st->period = 1;
}

/* Both passes walk the lines the same way; the first (g NULL) only lists
 * the events. Lines starting with '#' are perf script's --header comments.
 * The last sample is ended at the end of data: a piece ends outside one. */
static int scan_piece(pr *p, scanst *st, const char *data, size_t len)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    r.no = st->lines;
    const char *s;
    size_t n;
    header *h = &st->h;
    int rc = CGPROP_OK;
    while (!rc && cgprop__lines_next(&r, &s, &n)) {
        if (blank(s, n)) {
            if (st->in_sample && p->g) rc = end_sample(p, st->start, st->ev, st->period, st->head_frame);
            st->in_sample = false;
            st->after_blank = true;
            continue;
        }
        if (s[0] == '\t') {
            if (st->in_sample) {
                if (st->head_frame) {
                    p->nfr = 0;
                    st->head_frame = false;
                }
                if (p->g) rc = push_frame(p, r.no, s, n);
                continue;
            }
            /* -F naming no header field (-F ip,sym) prints an empty
             * header line: frames right after a blank line start a sample. */
            if (!st->after_blank || st->headed) {
                rc = cgprop__read_fail(p->err, CGPROP_EFORMAT, r.no, "frame line before any sample header");
                break;
            }
            memset(h, 0, sizeof *h);
            st->headless = true;
        } else {
            /* Only read outside a sample, where frame lines do not reach. */
            st->after_blank = false;
            if (!st->in_sample && s[0] == '#') continue;
            parse_header(s, n, h);
        }
        if (h->kind == H_EXTRA) continue;
        if (h->kind == H_RECORD) {
            if (st->in_sample && p->g) rc = end_sample(p, st->start, st->ev, st->period, st->head_frame);
            st->in_sample = false;
            continue;
        }
        /* Inside a sample, a line is the next header (without -g perf
         * prints no blank between samples) only when read from the same
         * field as this one's, and, without a time, names an event or (no
         * event, no -g: one line per sample) carries its frame after a
         * sample that carried its own; other lines (srcline, brstack,
         * iregs) are the sample's extras. */
        if (st->in_sample && (h->anchor != st->anchor ||
                              !(h->has_event || h->anchor == A_TIME || (h->ip_first && st->head_frame))))
            continue;
        if (s[0] != '\t') {
            if (st->headless) {
                rc = cgprop__read_fail(p->err, CGPROP_EFORMAT, r.no, "sample header after samples printed without one");
                break;
            }
            st->headed = true;
        }
        if (st->in_sample && p->g) {
            rc = end_sample(p, st->start, st->ev, st->period, st->head_frame);
            if (rc) break;
        }
        st->in_sample = true;
        st->head_frame = false;
        st->anchor = h->anchor;
        st->start = r.no;
        st->period = 1;
        if (h->has_period) {
            size_t i = 0;
            int nr = cgprop__parse_u64(h->per, h->perlen, &i, false, &st->period);
            if (nr == CGPROP__NUM_OVERFLOW) {
                rc = cgprop__read_fail(p->err, CGPROP_EOVERFLOW, r.no, "period too large");
                break;
            }
        }
        uint32_t ev;
        if (!h->has_event && !h->has_period) {
            ev = NO_EVENT;
            p->bare = true;
        } else if (event_index(p, h, &ev) < 0) {
            if (p->g && p->guess) {
                p->new_event_line = r.no;
                rc = NEW_EVENT;
                break;
            }
            if (p->g) {
                rc = cgprop__read_fail(p->err, CGPROP_EFORMAT, r.no, "event changed between passes");
                break;
            }
            if (p->nev == MAX_EVENTS) {
                rc = cgprop__read_fail(p->err, CGPROP_EFORMAT, r.no, "more than %d events", MAX_EVENTS);
                break;
            }
            p->ev[p->nev].name = h->has_event ? h->ev : "";
            p->ev[p->nev].len = h->has_event ? h->evlen : 0;
            p->ev[p->nev].weighted = false;
            ev = p->nev++;
        }
        st->ev = ev;
        if (ev != NO_EVENT && h->has_period && !p->ev[ev].weighted) {
            /* The guess named this event's metric as a count of samples:
             * the whole first pass decides. */
            if (p->g && p->guess) {
                p->new_event_line = r.no;
                rc = NEW_EVENT;
                break;
            }
            if (!p->g) p->ev[ev].weighted = true;
        }
        if (s[0] == '\t') {
            if (p->g) rc = push_frame(p, r.no, s, n);
            continue;
        }
        size_t at = p->g ? frame_after_event(h) : SIZE_MAX;
        if (at != SIZE_MAX) {
            rc = push_frame(p, r.no, h->rest + at, h->restlen - at);
            st->head_frame = true;
        }
    }
    if (!rc && st->in_sample && p->g) rc = end_sample(p, st->start, st->ev, st->period, st->head_frame);
    if (!rc) st->in_sample = false;
    st->lines = r.no;
    return rc;
}

/* A text in memory, whole. */
static int scan(pr *p, const char *data, size_t len, uint64_t *lines)
{
    scanst st;
    scan_init(&st);
    int rc = scan_piece(p, &st, data, len);
    *lines = st.lines;
    return rc;
}

/* Metric names are one word of printable bytes (callgrind's events: line
 * carries them). An event whose samples print no period weighs each
 * sample 1: its metric is a sample count and says so (cpu-clock_samples),
 * so that a count is never read as the event's own figure (nanoseconds,
 * page faults). */
static size_t metric_name(char *dst, size_t cap, const pevent *e)
{
    static const char suffix[] = "_samples";
    if (e->len == 0) {
        snprintf(dst, cap, "period");
        return strlen(dst);
    }
    size_t room = cap - 1 - (e->weighted ? 0 : sizeof suffix - 1);
    size_t m = e->len < room ? e->len : room;
    for (size_t i = 0; i < m; i++) {
        unsigned char c = (unsigned char)e->name[i];
        dst[i] = (c <= 0x20 || c == 0x7f) ? '_' : (char)c;
    }
    if (!e->weighted) {
        memcpy(dst + m, suffix, sizeof suffix - 1);
        m += sizeof suffix - 1;
    }
    dst[m] = '\0';
    return m;
}

/* The graph, named by the events the first pass listed. On failure p->g is
 * NULL. */
static int graph_begin(pr *p, const cgprop_allocator *alloc, uint64_t lines)
{
    cgprop_read_error *err = p->err;
    if (p->nev == 0 && !p->bare) return cgprop__read_fail(err, CGPROP_EFORMAT, lines, "no sample in the input");
    p->framed = false;

    char nm[CGPROP_MAX_METRICS][128];
    const char *np[CGPROP_MAX_METRICS];
    for (uint32_t i = 0; i < p->nev; i++) {
        metric_name(nm[i], sizeof nm[i], &p->ev[i]);
        np[i] = nm[i];
    }
    /* Event names that clash once cut or cleaned are not told apart. */
    for (uint32_t i = 0; i < p->nev; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(nm[i], nm[j]) == 0)
                return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "two events read as one metric name '%s'", nm[i]);
    const char *count = "samples";
    for (uint32_t i = 0; i < p->nev; i++)
        if (strcmp(nm[i], "samples") == 0) count = "sample_count";
    for (uint32_t i = 0; i < p->nev; i++)
        if (strcmp(nm[i], count) == 0) count = "perf_samples";
    for (uint32_t i = 0; i < p->nev; i++)
        if (strcmp(nm[i], count) == 0)
            return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "events named like every name of the sample count");
    np[p->nev] = count;
    int rc = cgprop_graph_new(alloc, np, NULL, p->nev + 1, &p->g);
    if (rc == CGPROP_ENOMEM) return cgprop__read_fail(err, rc, 0, "out of memory");
    if (rc) return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "an event name is no metric name");
    rc = p->contexts ? cgprop_graph_keep_contexts(p->g, 1) : CGPROP_OK;
    if (!rc) cgprop__graph_mark_sampled(p->g);
    if (!rc) rc = cgprop__stacks_defer(p->g, true);
    if (rc) {
        cgprop_graph_free(p->g);
        p->g = NULL;
        return cgprop__read_fail(err, rc, 0, "out of memory");
    }
    return CGPROP_OK;
}

/* After the second pass (rc its result): the graph complete, or freed. */
static int graph_end(pr *p, int rc, uint64_t lines)
{
    cgprop_read_error *err = p->err;
    if (!rc && (rc = cgprop__stacks_defer(p->g, false))) rc = cgprop__read_fail(err, rc, lines, "out of memory");
    if (!rc && !p->framed)
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, 0,
                               "no sample has a frame: not perf script output, or printed without the ip field "
                               "(perf script prints each sample's call chain under it, or its address with -F ip,sym)");
    cgprop__free(p->g, p->fr);
    cgprop__free(p->g, p->ids);
    cgprop__free(p->g, p->prev);
    cgprop__free(p->g, p->key);
    cgprop__free(p->g, p->inl);
    cgprop__u64map_free(&p->g->a, &p->inl_ix);
    memset(&p->inl_ix, 0, sizeof p->inl_ix);
    p->inl = NULL;
    p->ninl = p->inlcap = 0;
    p->fr = NULL;
    p->ids = NULL;
    p->prev = NULL;
    p->key = NULL;
    p->nfr = p->frcap = p->idcap = p->nprev = p->prevcap = p->keycap = 0;
    if (rc) {
        cgprop_graph_free(p->g);
        p->g = NULL;
    }
    return rc;
}

/* Everything after the first pass over a text in memory. */
static int build(pr *p, const char *data, size_t len, const cgprop_allocator *alloc, uint64_t *lines)
{
    int rc = graph_begin(p, alloc, *lines);
    if (rc) return rc;
    return graph_end(p, scan(p, data, len, lines), *lines);
}

/* The graph read, handed out with what the read found. */
static int deliver(pr *p, uint64_t lines, cgprop_graph **out, cgprop_read_info *info)
{
    if (info) {
        info->format = CGPROP_INPUT_PERF;
        info->recursion = CGPROP_RECS_STACKS;
        info->lines = lines;
    }
    *out = p->g;
    return CGPROP_OK;
}

/* The events of a recording nearly always all show in its first samples,
 * so the first pass, which walks every line only to list them, covers the
 * first MiB and a 32nd of the rest, and the second pass starts from that
 * guess. When the guess was short (an event named later) or the read fails,
 * the whole first pass decides as it always did: its error comes first, a
 * short guess is read again with every event. */
#define GUESS_MIN ((size_t)1 << 20)
/* How far the reader looks for a NUL byte before it starts. */
#define BINARY_PROBE ((size_t)1 << 16)

static size_t guess_end(const char *data, size_t len)
{
    if (len <= 2 * GUESS_MIN) return len;
    size_t cut = GUESS_MIN + (len - GUESS_MIN) / 32;
    const char *nl = memchr(data + cut, '\n', len - cut);
    return nl ? (size_t)(nl - data) + 1 : len;
}

int cgprop__perf_read(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                      cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err)
{
    *out = NULL;
    /* perf script prints text; binary bytes (another format named perf)
     * show in the first block, and would otherwise be read as headers of
     * frame-less samples. */
    const char *nul = memchr(data, 0, len < BINARY_PROBE ? len : BINARY_PROBE);
    if (nul)
        return cgprop__read_fail(err, CGPROP_EFORMAT, 0, "binary data (a NUL byte at byte %zu): not perf script text",
                                 (size_t)(nul - data));
    pr p;
    memset(&p, 0, sizeof p);
    p.err = err;
    p.contexts = opts->contexts != 0;
    uint64_t lines = 0;
    size_t cut = guess_end(data, len);
    int rc = scan(&p, data, cut, &lines);
    if (rc) return rc;
    bool full = cut == len;
    if (!full && p.nev) {
        cgprop_read_error at_entry;
        if (err) at_entry = *err;
        pevent guess[MAX_EVENTS];
        uint32_t nguess = p.nev;
        memcpy(guess, p.ev, sizeof guess);
        p.guess = true;
        rc = build(&p, data, len, alloc, &lines);
        p.guess = false;
        if (rc) {
            /* The first pass over everything, its error kept apart. */
            cgprop_read_error first;
            cgprop_read_error_init(&first);
            p.err = &first;
            p.nev = 0;
            int rc1 = scan(&p, data, len, &lines);
            p.err = err;
            if (rc1) {
                if (err) {
                    err->code = first.code;
                    err->line = first.line;
                    memcpy(err->reason, first.reason, sizeof err->reason);
                }
                return rc1;
            }
            bool same = p.nev == nguess;
            for (uint32_t i = 0; same && i < nguess; i++)
                same = p.ev[i].len == guess[i].len && memcmp(p.ev[i].name, guess[i].name, guess[i].len) == 0;
            /* A failure of the guess that the whole list would not have
             * changed stands; out of memory stands too (not tried again). */
            if (rc != NEW_EVENT && (same || rc == CGPROP_ENOMEM)) return rc;
            if (err) *err = at_entry;
            rc = build(&p, data, len, alloc, &lines);
        }
    } else {
        if (!full) rc = scan(&p, data, len, &lines);
        if (!rc) rc = build(&p, data, len, alloc, &lines);
    }
    if (rc) return rc;
    return deliver(&p, lines, out, info);
}

/* ---- a text read piece by piece (a pipe, or gzip inflated as it goes) ----
 *
 * The text is walked in pieces that end after a blank line, so that no
 * sample straddles two; the bytes after the last blank line wait for the
 * next piece. Memory is one piece (CGPROP__STREAM_HEAD, more only for a
 * sample that does not fit), the names kept from one sample to the next and
 * the graph. The events are those of the first piece, the guess a text in
 * memory makes from its first part: an event first named later means a
 * second walk over everything, which a mapped gzip file allows and a pipe
 * does not. */

/* Where the text up to the last blank line of buf[0..n) ends (after that
 * line's newline); 0 when it has none. */
static size_t after_last_blank(const char *buf, size_t n)
{
    const char *e = buf + n;
    while (e > buf && e[-1] != '\n') e--;
    while (e > buf) {
        /* e is just past a newline: the line before it is [b, e - 1). */
        const char *b = e - 1;
        while (b > buf && b[-1] != '\n') b--;
        if (blank(b, (size_t)(e - 1 - b))) return (size_t)(e - buf);
        e = b;
    }
    return 0;
}

/* Event names listed from a piece point into it: copied out before the
 * piece goes. */
static int keep_events(pr *p, uint32_t from)
{
    for (uint32_t i = from; i < p->nev; i++) {
        const char *k = keep(p, p->ev[i].name, p->ev[i].len);
        if (!k) return cgprop__read_fail(p->err, CGPROP_ENOMEM, 0, "out of memory");
        p->ev[i].name = k;
    }
    return CGPROP_OK;
}

/* One walk over the whole text from the piece in q on; with p->g NULL, the
 * first pass (the events listed). */
static int walk_pieces(pr *p, cgprop__pieces *q, uint64_t *lines)
{
    scanst st;
    scan_init(&st);
    int rc = CGPROP_OK;
    for (bool done = false; !rc && !done;) {
        uint32_t nev = p->nev;
        rc = scan_piece(p, &st, q->buf, q->cut);
        if (!rc && !p->g) rc = keep_events(p, nev);
        /* The previous sample's names are in the piece that goes. */
        p->nprev = 0;
        if (!rc) rc = cgprop__pieces_next(q, &done);
    }
    *lines = st.lines;
    return rc;
}

int cgprop__perf_read_stream(cgprop__src *src, size_t head, size_t piece, const cgprop_read_options *opts,
                             const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                             cgprop_read_error *err)
{
    *out = NULL;
    /* The first read reaches as far as a text in memory is probed for
     * binary bytes, so that both refuse the same inputs. */
    cgprop__pieces q;
    if (cgprop__pieces_open(&q, src, after_last_blank, head, piece, BINARY_PROBE, alloc, err))
        return CGPROP_ENOMEM;
    bool done;
    int rc = cgprop__pieces_next(&q, &done);
    if (!rc && q.end && q.have <= q.head) {
        /* The whole text fit in the first piece: read as a text in memory. */
        rc = cgprop__perf_read(q.buf, q.have, opts, alloc, out, info, err);
        cgprop__pieces_close(&q);
        return rc;
    }
    const char *nul = rc ? NULL : memchr(q.buf, 0, q.have < BINARY_PROBE ? q.have : BINARY_PROBE);
    if (nul)
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, 0, "binary data (a NUL byte at byte %zu): not perf script text",
                               (size_t)(nul - q.buf));
    pr p;
    memset(&p, 0, sizeof p);
    p.err = err;
    p.contexts = opts->contexts != 0;
    p.stream = true;
    p.alloc = alloc;
    uint64_t lines = 0;
    if (!rc) {
        /* The guess: the events of the first piece. */
        scanst st;
        scan_init(&st);
        rc = scan_piece(&p, &st, q.buf, q.cut);
        if (!rc) rc = keep_events(&p, 0);
        lines = st.lines;
    }
    if (!rc && (p.nev || p.bare)) {
        rc = graph_begin(&p, alloc, lines);
        p.guess = true;
        if (!rc) rc = graph_end(&p, walk_pieces(&p, &q, &lines), lines);
        p.guess = false;
    } else if (!rc) {
        rc = NEW_EVENT; /* no sample in the first piece: the guess has nothing */
    }
    if (rc == NEW_EVENT) {
        /* Every event, then the graph: two walks from the first byte, where
         * the input is all in memory (a mapped file, gzipped). */
        uint64_t at = p.new_event_line;
        int rw = cgprop__pieces_rewind(&q);
        if (rw == CGPROP__NO_REWIND) {
            char lead[96];
            size_t sz = head >= ((size_t)1 << 20) ? head >> 20 : head;
            const char *unit = head >= ((size_t)1 << 20) ? "MiB" : "bytes";
            if (at) snprintf(lead, sizeof lead, "an event the first %zu %s of this stream did not name", sz, unit);
            else snprintf(lead, sizeof lead, "no sample in the first %zu %s of this stream", sz, unit);
            rc = cgprop__read_fail(err, CGPROP_EFORMAT, at ? at : lines,
                                   "%s: a stream is read once, with the events of its first part; write the text "
                                   "to a file (perf script > out.perf) and read the file",
                                   lead);
        } else if ((rc = rw) == CGPROP_OK) {
            p.nev = 0;
            p.bare = false;
            rc = walk_pieces(&p, &q, &lines);
            if (!rc) rc = cgprop__pieces_rewind(&q); /* it could the first time */
            if (!rc) rc = graph_begin(&p, alloc, lines);
            if (!rc) rc = graph_end(&p, walk_pieces(&p, &q, &lines), lines);
        }
    }
    keep_free(&p);
    cgprop__pieces_close(&q);
    if (rc) return rc;
    return deliver(&p, lines, out, info);
}

/* A frame line: TAB, blanks, a hex address, then a blank or the line's
 * end (-F ip without sym). */
static bool frame_line(const char *s, size_t n)
{
    if (n < 2 || s[0] != '\t') return false;
    size_t i = 1;
    while (i < n && cgprop__is_space(s[i])) i++;
    size_t j = i;
    while (j < n && is_hex(s[j])) j++;
    return j > i && (j == n || cgprop__is_space(s[j]));
}

/* Past the first sample's frames: whether a blank line ends them and a
 * second sample starts as the first did, with a header that names no
 * event (headed) or with an empty one, then a frame line. Such headers
 * look like many things, so a text of them is taken for perf script only
 * when two samples show the pattern. */
static bool second_sample(cgprop__lines *r, bool headed)
{
    const char *s;
    size_t n;
    bool gap = false;
    while (r->no < 4096 && cgprop__lines_next(r, &s, &n)) {
        if (blank(s, n)) {
            gap = true;
            continue;
        }
        if (!gap) {
            /* -F +srcline prints "  file.c:12" under a frame. */
            if (frame_line(s, n) || s[0] == ' ') continue;
            return false;
        }
        if (headed) {
            if (s[0] == '\t') return false;
            header h;
            parse_header(s, n, &h);
            if (h.kind != H_SAMPLE || h.has_event) return false;
            if (!cgprop__lines_next(r, &s, &n)) return false;
        }
        return frame_line(s, n);
    }
    return false;
}

/* A header without an event that carries its frame, an address and a
 * symbol after it: an address alone (-F ip) could as well be a folded
 * stack's weight of 17 digits or more. */
static bool ip_and_symbol(const header *h)
{
    if (!h->ip_first || frame_after_event(h) == SIZE_MAX) return false;
    size_t i = 0;
    tok a, b;
    return next_tok(h->rest, h->restlen, &i, &a) && next_tok(h->rest, h->restlen, &i, &b);
}

bool cgprop__perf_detect(const char *data, size_t len)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    const char *s;
    size_t n;
    bool after_blank = false;
    while (r.no < 200 && cgprop__lines_next(&r, &s, &n)) {
        if (blank(s, n)) {
            after_blank = true;
            continue;
        }
        if (s[0] == '#') continue;
        /* -F naming no header field prints an empty header line. */
        if (s[0] == '\t') return after_blank && frame_line(s, n) && second_sample(&r, false);
        header h;
        parse_header(s, n, &h);
        /* Side-band records (--show-mmap-events) may come first. */
        if (h.kind != H_SAMPLE) continue;
        if (!h.has_event) {
            bool carried = ip_and_symbol(&h);
            int anchor = h.anchor;
            if (!cgprop__lines_next(&r, &s, &n)) return false;
            /* Without call chains: the next line is such a header too, or
             * (-F +srcline) "  file.c:12" lines come first. */
            if (carried && n && s[0] != '\t') {
                for (int k = 0; k < 8; k++) {
                    parse_header(s, n, &h);
                    if (h.kind == H_SAMPLE && !h.has_event && h.anchor == anchor && ip_and_symbol(&h)) return true;
                    if (s[0] != ' ' || !cgprop__lines_next(&r, &s, &n) || !n || s[0] == '\t') return false;
                }
                return false;
            }
            if (!frame_line(s, n)) return false;
            return second_sample(&r, true);
        }
        bool head = frame_after_event(&h) != SIZE_MAX;
        /* The next line is a frame. Without call chains, it is another
         * header with its frame. */
        if (!cgprop__lines_next(&r, &s, &n)) return false;
        if (head && n && s[0] != '\t') {
            parse_header(s, n, &h);
            return h.kind == H_SAMPLE && h.has_event && frame_after_event(&h) != SIZE_MAX;
        }
        return frame_line(s, n);
    }
    return false;
}
