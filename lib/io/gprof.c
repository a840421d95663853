/* gprof text reader: the report `gprof [-b] prog gmon.out` prints, its flat
 * profile and its call graph. Functions and their self seconds come from the
 * call graph's primary lines (the flat profile for functions it lacks),
 * calls and their counts from the child lines below each primary line.
 * gprof's own time shares along calls are its estimates, not measurements,
 * so calls carry counts only. docs/formats/gprof.md gives the mapping. */
#include "io_util.h"

#include <stdio.h>

/* Primary lines held back before their functions are made (resolve_one). */
#define GP_AHEAD 8

/* A call read before its callee's entry: resolved by gprof index at the end. */
typedef struct pcall {
    uint32_t caller;     /* the caller's entry line, by number among them (gp.pid) */
    uint32_t callee_ix;  /* gprof index */
    uint64_t count;
    uint64_t line;
    const char *name;    /* the child line's name, for a callee without an entry */
    size_t nlen;
} pcall;

/* The pending calls live in blocks of PC_BLOCK, not in one array doubled
 * as it fills: each doubling copied them all into fresh pages while the
 * old array still held its own (docs/PERFORMANCE.md, "fourth pass", says what
 * this did to the bench's repeated reads). A block (5 MiB) is large enough
 * for the allocator's huge pages: in 160 KiB blocks the read group's
 * report took 12,000 page faults for its calls, 7 % of the read. Pages of a
 * block are touched only as it fills. */
#define PC_SHIFT 17
#define PC_BLOCK ((size_t)1 << PC_SHIFT)

/* A flat profile line, kept until the call graph has been read. */
typedef struct flat {
    const char *name;
    size_t nlen;
    uint64_t self, line;
} flat;

typedef struct gp {
    cgprop_graph *g;
    cgprop_read_error *err;
    uint32_t *ix;        /* gprof index -> function id + 1, 0 = no entry yet; grown as entries come */
    size_t ixcap;
    uint64_t nix;        /* indices must be below it: every entry takes a line, so the line count + 1 bounds them */
    bool counted;        /* nix is that bound; before, the lines read so far (r.no) bound them from below */
    bool pending;        /* a call line's index is past the lines read then, not yet checked (check_pending) */
    bool bsd;            /* gprof -T: the older layout, call graph first (parse) */
    uint64_t pmax;       /* the largest such index */
    cgprop__lines r;
    uint64_t *own;       /* function id -> the gprof index it was made for, 0 = none */
    size_t nown;
    pcall **pcb;         /* the pending calls, PC_BLOCK to a block (pc_at) */
    size_t npc, nblk, blkcap;
    flat *fl;
    size_t nfl, flcap;
    char *key;
    size_t kcap;
    struct prim {        /* primary lines read, their functions not yet made (resolve_one) */
        const char *name;
        size_t nlen;
        uint64_t ix, self, line;
    } ring[GP_AHEAD];
    uint32_t nring;      /* in ring, the oldest at ring0 */
    uint32_t ring0;
    uint32_t nprim;      /* primary lines read: a call line's caller is one of them, by number;
                          * all but the nring held ones are made, pid[0..nprim - nring) */
    uint32_t *pid;       /* primary line number -> function id */
    size_t pidcap;
} gp;

/* One line split into its leading numeric fields, its name and its index. */
typedef struct fields {
    const char *tok[6];
    size_t tlen[6];
    uint32_t nt;
    const char *name;
    size_t nlen;
    uint64_t index;  /* the trailing [N]; 0 when the line has none */
    bool cycle_whole; /* the name is "<cycle N as a whole>" */
} fields;

static bool numeric_token(const char *s, size_t n)
{
    if (!n || !cgprop__is_digit(s[0])) return false;
    for (size_t i = 0; i < n; i++)
        if (!cgprop__is_digit(s[i]) && s[i] != '.' && s[i] != '/' && s[i] != '+') return false;
    return true;
}

/* The first index from i below e whose byte is not a digit, '.', '/' or
 * '+' (numeric_token's bytes), eight bytes at once as cgprop__skip_blanks. */
static inline size_t past_numeric(const char *s, size_t i, size_t e)
{
#ifdef CGPROP__SWAR_LE
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    while (e - i >= 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        /* Per byte of seven bits (no carry between bytes): >= '.' and
         * not >= ':' is '.', '/' or a digit; '+' by a zero-byte test. */
        uint64_t l = w & ~high;
        uint64_t ge = l + ones * (0x80 - '.'), gt = l + ones * (0x80 - ':');
        uint64_t x = l ^ ones * '+';
        uint64_t nz = ((x & ~high) + ~high) | x;
        uint64_t in = ((ge & ~gt) | ~nz) & ~w & high;
        uint64_t out = ~in & high;
        if (out) return i + ((size_t)__builtin_ctzll(out) >> 3);
        i += 8;
    }
#endif
    while (i < e && (cgprop__is_digit(s[i]) || s[i] == '.' || s[i] == '/' || s[i] == '+')) i++;
    return i;
}

#if !defined(CGPROP_GPROF_NO_SIMD) && (defined(__SSE2__) || defined(_M_X64))
#define GP_SSE2 1
#include <emmintrin.h>

/* Bit k of each: s[k] is a blank; a digit; a digit, '.', '/' or '+'
 * (numeric_token's bytes), for the 64 bytes at s. */
static inline void classify64(const char *s, uint64_t *bl, uint64_t *dg, uint64_t *nu)
{
    const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), plus = _mm_set1_epi8('+');
    const __m128i d0 = _mm_set1_epi8('0' - 1), d9 = _mm_set1_epi8('9' + 1), dot = _mm_set1_epi8('.' - 1);
    uint64_t b = 0, d = 0, u = 0;
    for (int c = 0; c < 4; c++) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * c));
        __m128i le9 = _mm_cmplt_epi8(x, d9);
        __m128i isb = _mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, tab));
        __m128i isd = _mm_and_si128(_mm_cmpgt_epi8(x, d0), le9);
        __m128i isu = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi8(x, dot), le9), _mm_cmpeq_epi8(x, plus));
        b |= (uint64_t)(uint32_t)_mm_movemask_epi8(isb) << (16 * c);
        d |= (uint64_t)(uint32_t)_mm_movemask_epi8(isd) << (16 * c);
        u |= (uint64_t)(uint32_t)_mm_movemask_epi8(isu) << (16 * c);
    }
    *bl = b;
    *dg = d;
    *nu = u;
}
#endif

/* split_fields' usual case: a trailing [N] of at most 19 digits, numeric
 * fields that each end at a blank, a name not ending in '>' (the cycle
 * forms). Fills f as split_fields would and returns true; false on any
 * other line, which split_fields then takes. s[0..lim) may be read. The
 * general split scanned each field twice (token, then numeric test) and
 * parsed the index with a division per digit; and finding each field's
 * end from the previous one's, a byte (or a word) at a time, is a chain
 * of dependent loads. With SSE2 the first 64 bytes from i are classified
 * at once and the fields found in the bit masks. */
static bool split_fast(const char *s, size_t n, size_t i, size_t lim, fields *f)
{
    while (n && cgprop__is_space(s[n - 1])) n--;
    if (n < 3 || s[n - 1] != ']') return false;
    size_t j = n - 1;
    while (j > 0 && cgprop__is_digit(s[j - 1])) j--;
    if (j == 0 || s[j - 1] != '[' || n - 1 - j == 0 || n - 1 - j > 19) return false;
    uint64_t v = 0;
    for (size_t k = j; k < n - 1; k++) v = v * 10 + (uint64_t)(s[k] - '0');
    if (v == 0) return false;
    size_t e = j - 1;
    while (e && cgprop__is_space(s[e - 1])) e--;
    if (e <= i || s[e - 1] == '>') return false;
    uint32_t nt = 0;
#ifdef GP_SSE2
    if (e - i <= 64 && lim >= 64 && i <= lim - 64) {
        uint64_t bl, dg, nu;
        classify64(s + i, &bl, &dg, &nu);
        size_t k = e - i;
        uint64_t nb = ~bl & (k == 64 ? ~(uint64_t)0 : ((uint64_t)1 << k) - 1);
        /* s[e - 1] is no blank: there is a last start. */
        uint64_t st = nb & ~(nb << 1);
        unsigned b;
        for (;;) {
            b = (unsigned)__builtin_ctzll(st);
            if (!((dg >> b) & 1)) break;
            uint64_t rest = ~nb & (~(uint64_t)0 << b);
            if (!rest) return false;
            unsigned t = (unsigned)__builtin_ctzll(rest);
            if (t >= k || nt == 6) return false;
            uint64_t tm = (((uint64_t)1 << t) - 1) & (~(uint64_t)0 << b);
            if (tm & ~nu) return false;
            f->tok[nt] = s + i + b;
            f->tlen[nt] = t - b;
            nt++;
            st &= st - 1;
        }
        f->nt = nt;
        f->index = v;
        f->cycle_whole = false;
        f->name = s + i + b;
        f->nlen = k - b;
        return true;
    }
#endif
    i = cgprop__skip_blanks(s, i, e);
    while (i < e && cgprop__is_digit(s[i])) {
        size_t b = i;
        i = past_numeric(s, i, e);
        if (i == e || !cgprop__is_space(s[i]) || nt == 6) return false;
        f->tok[nt] = s + b;
        f->tlen[nt] = i - b;
        nt++;
        i = cgprop__skip_blanks(s, i, e);
    }
    f->nt = nt;
    f->index = v;
    f->cycle_whole = false;
    f->name = s + i;
    f->nlen = e - i;
    return true;
}

/* Split s[0..n) (leading "[N]" of a primary line already removed), whose
 * blanks before i were already passed. Names never start with a digit, so
 * the fields end at the first token that is not a number. */
static void split_fields(const char *s, size_t n, size_t i, size_t lim, fields *f)
{
    if (split_fast(s, n, i, lim, f)) return;
    /* Not a memset: only tok[0..nt) is ever read, and clearing the whole
     * struct (a rep stos) was a third of this function's time. */
    f->nt = 0;
    f->index = 0;
    f->cycle_whole = false;
    /* The trims stop at i: the blanks before it were passed already, and a
     * line that is only "[N]" after them must leave n = i, not below (the
     * word-at-a-time blank skip and the tests below take n - i). */
    while (n > i && cgprop__is_space(s[n - 1])) n--;
    /* Trailing " [N]". */
    if (n >= 3 && s[n - 1] == ']') {
        size_t j = n - 1;
        while (j > i && cgprop__is_digit(s[j - 1])) j--;
        if (j > i && s[j - 1] == '[' && j < n - 1) {
            size_t k = j;
            uint64_t v;
            if (cgprop__parse_u64(s, n - 1, &k, false, &v) == CGPROP__NUM_OK && k == n - 1 && v > 0) {
                f->index = v;
                n = j - 1;
                while (n > i && cgprop__is_space(s[n - 1])) n--;
            }
        }
    }
    for (;;) {
        i = cgprop__skip_blanks(s, i, n);
        size_t b = i;
        while (i < n && !cgprop__is_space(s[i])) i++;
        if (f->nt < 6 && numeric_token(s + b, i - b)) {
            f->tok[f->nt] = s + b;
            f->tlen[f->nt] = i - b;
            f->nt++;
            continue;
        }
        i = b;
        break;
    }
    /* " <cycle N>" after a member's name, and the whole-cycle entry. */
    static const char whole[] = " as a whole>";
    size_t wl = sizeof whole - 1;
    if (n - i > wl && memcmp(s + n - wl, whole, wl) == 0 && memcmp(s + i, "<cycle ", 7) == 0) f->cycle_whole = true;
    if (!f->cycle_whole && n > i && s[n - 1] == '>') {
        size_t j = n - 1;
        while (j > i && cgprop__is_digit(s[j - 1])) j--;
        if (j < n - 1 && j >= i + 7 && memcmp(s + j - 7, "<cycle ", 7) == 0) {
            n = j - 7;
            while (n > i && cgprop__is_space(s[n - 1])) n--;
        }
    }
    f->name = s + i;
    f->nlen = n - i;
}

/* A decimal of seconds as printed ("0.29") in hundredths, rounded half up. */
static int centis(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    while (i < n && cgprop__is_digit(s[i])) {
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX / 100 - d) / 10) return CGPROP_EOVERFLOW;
        v = v * 10 + d;
        i++;
    }
    if (i == 0) return CGPROP_EFORMAT;
    uint64_t frac = 0;
    unsigned digits = 0;
    bool up = false;
    if (i < n && s[i] == '.') {
        i++;
        size_t b = i;
        while (i < n && cgprop__is_digit(s[i])) {
            if (digits < 2) {
                frac = frac * 10 + (uint64_t)(s[i] - '0');
                digits++;
            } else if (digits == 2) {
                up = s[i] >= '5';
                digits++;
            }
            i++;
        }
        if (i == b) return CGPROP_EFORMAT;
    }
    if (i != n) return CGPROP_EFORMAT;
    while (digits < 2) {
        frac *= 10;
        digits++;
    }
    v = v * 100 + frac;
    if (up) {
        if (v == UINT64_MAX) return CGPROP_EOVERFLOW;
        v++;
    }
    *out = v;
    return CGPROP_OK;
}

static int num_fail(gp *p, int rc, uint64_t line, const char *what)
{
    return cgprop__read_fail(p->err, rc, line, rc == CGPROP_EOVERFLOW ? "%s too large" : "bad %s", what);
}

static int graph_fail(gp *p, int rc, uint64_t line)
{
    if (rc == CGPROP_EOVERFLOW) return cgprop__read_fail(p->err, rc, line, "a sum overflows 64 bits");
    return cgprop__read_fail(p->err, rc, line, "%s", cgprop_graph_errmsg(p->g));
}

/* Function key: the name (TABs as spaces). A second entry of the same name
 * (static functions of two files) is keyed "TAB [N] TAB name", N its gprof
 * index, in the place of the file (keys have no TAB or two), so the two stay
 * apart and both display as the name. index 0: the plain name, whatever
 * made it. */
static int node_for(gp *p, uint64_t line, const char *name, size_t n, uint64_t index, uint32_t *out)
{
    if (n == 0) return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "no function name");
    if (n > SIZE_MAX - 32) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
    if (n + 32 > p->kcap) {
        char *q = cgprop__realloc(p->g, p->key, n + 32, 1);
        if (!q) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
        p->key = q;
        p->kcap = n + 32;
    }
    uint32_t id;
    for (size_t i = 0; i < n; i++) p->key[i] = name[i] == '\t' ? ' ' : name[i];
    /* One probe in the usual case: the plain name is added (or found)
     * first, and only a name another index owns is keyed again. */
    size_t before = cgprop_graph_node_count(p->g);
    int rc = cgprop_graph_add_node(p->g, p->key, n, &id);
    if (!rc && index && id < before && id < p->nown && p->own[id] && p->own[id] != index) {
        char q[32];
        size_t pre = (size_t)snprintf(q, sizeof q, "\t[%llu]\t", (unsigned long long)index);
        memmove(p->key + pre, p->key, n);
        memcpy(p->key, q, pre);
        rc = cgprop_graph_add_node(p->g, p->key, pre + n, &id);
    }
    if (rc) return cgprop__read_fail(p->err, rc, line, rc == CGPROP_ENOMEM ? "out of memory" : "too many functions");
    if (id >= p->nown) {
        size_t cap = p->nown ? p->nown : 64;
        while (cap <= id) cap *= 2;
        uint64_t *q = cgprop__realloc(p->g, p->own, cap, sizeof *q);
        if (!q) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
        memset(q + p->nown, 0, (cap - p->nown) * sizeof *q);
        p->own = q;
        p->nown = cap;
    }
    if (id >= before || !p->own[id]) p->own[id] = index;
    *out = id;
    return CGPROP_OK;
}

/* The input's line count. Counting every line ahead was a tenth of a
 * read; the lines read so far bound it from below, so only an index past
 * them (or the caller wanting the count) makes the rest be counted, once. */
static uint64_t count_lines(gp *p)
{
    if (!p->counted) {
        uint64_t n = p->r.no;
        const char *q = p->r.p, *e = p->r.end;
        if (q < e && e[-1] != '\n') n++;
        for (; (q = memchr(q, '\n', (size_t)(e - q))) != NULL; q++) n++;
        p->nix = n + 1;
        p->counted = true;
    }
    return p->nix - 1;
}

static bool index_in_range(gp *p, uint64_t index)
{
    if (index <= p->r.no) return true;
    count_lines(p);
    return index < p->nix;
}

static pcall *pc_at(const gp *p, size_t i) { return &p->pcb[i >> PC_SHIFT][i & (PC_BLOCK - 1)]; }

static int set_index(gp *p, uint64_t line, uint64_t index, uint32_t node)
{
    if (!index_in_range(p, index))
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "index [%llu] out of range", (unsigned long long)index);
    if (index >= p->ixcap) {
        size_t cap = p->ixcap ? p->ixcap : 256;
        while (cap <= index) cap *= 2;
        uint32_t *q = cgprop__realloc(p->g, p->ix, cap, sizeof *q);
        if (!q) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
        memset(q + p->ixcap, 0, (cap - p->ixcap) * sizeof *q);
        p->ix = q;
        p->ixcap = cap;
    }
    if (p->ix[index])
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "a second entry [%llu]", (unsigned long long)index);
    p->ix[index] = node + 1;
    return CGPROP_OK;
}

static bool starts(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    return n >= l && memcmp(s, w, l) == 0;
}

/* A call line's indent is 16 blanks or more: passed eight at a time. */
static const char *skip_space(const char *s, size_t *n)
{
    size_t i = cgprop__skip_blanks(s, 0, *n);
    *n -= i;
    return s + i;
}

static bool has_word(const char *s, size_t n, const char *w)
{
    size_t l = strlen(w);
    for (size_t i = 0; i + l <= n; i++)
        if (memcmp(s + i, w, l) == 0) return true;
    return false;
}

/* The call graph's column header (GNU gprof's, and the older BSD one). */
static bool cg_header(const char *s, size_t n)
{
    s = skip_space(s, &n);
    return starts(s, n, "index") && has_word(s, n, "self") && has_word(s, n, "called") && has_word(s, n, "name");
}

/* A call to or from a function gprof left out of the graph, "name (N)":
 * gprof prints the index in parentheses for a function whose own entry
 * its options (-e, -E, -f, -F, a name after -q) keep out. */
static bool left_out_line(const char *s, size_t n)
{
    while (n && cgprop__is_space(s[n - 1])) n--;
    if (n < 3 || s[n - 1] != ')') return false;
    size_t j = n - 1;
    while (j > 0 && cgprop__is_digit(s[j - 1])) j--;
    return j < n - 1 && j > 0 && s[j - 1] == '(';
}

/* Each primary line names a function not met before (call lines wait for
 * the end), so on a big profile making it misses in the key index every
 * time. The primary lines are held back GP_AHEAD at a time, their names'
 * slots asked for as they are read, so that the misses overlap; a call
 * line below one takes the primary line's number as its caller (pid maps
 * it at the end). Making the oldest held line's function: */
static int resolve_one(gp *p)
{
    struct prim *e = &p->ring[p->ring0];
    uint32_t v;
    int rc = node_for(p, e->line, e->name, e->nlen, e->ix, &v);
    if (!rc) rc = set_index(p, e->line, e->ix, v);
    if (!rc && (rc = cgprop_graph_add_self(p->g, v, &e->self))) rc = graph_fail(p, rc, e->line);
    if (rc) {
        /* Reading line by line would have stopped here: the call lines
         * read after this one are dropped (check_pending looks at those
         * left), and so are the held lines. */
        while (p->npc && pc_at(p, p->npc - 1)->line > e->line) p->npc--;
        p->nring = 0;
        return rc;
    }
    p->pid[p->nprim - p->nring] = v;
    p->ring0 = (p->ring0 + 1) % GP_AHEAD;
    p->nring--;
    return CGPROP_OK;
}

/* Every held primary line made, in the order read. */
static int resolve_all(gp *p)
{
    int rc = CGPROP_OK;
    while (p->nring && !rc) rc = resolve_one(p);
    return rc;
}

/* Whether a name ends as gprof -l (line by line) prints it: "f (file.c:12
 * @ 401136)". Such a report has an entry per source line, not per
 * function: a function would become one function per line it calls from. */
static bool by_line(const char *s, size_t n)
{
    if (n < 8 || s[n - 1] != ')') return false;
    size_t i = n - 1, h = 0;
    while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || (s[i - 1] >= 'a' && s[i - 1] <= 'f'))) i--, h++;
    if (!h || i < 4 || memcmp(s + i - 3, " @ ", 3)) return false;
    i -= 3;
    size_t d = 0;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9') i--, d++;
    if (!d || i < 3 || s[i - 1] != ':') return false;
    return memchr(s, '(', i) != NULL;
}

static int line_fail(gp *p, uint64_t line)
{
    return cgprop__read_fail(p->err, CGPROP_EFORMAT, line,
                             "a line-by-line report (gprof -l): its entries are source lines, not functions; "
                             "run gprof without -l");
}

static int on_primary(gp *p, uint64_t line, const char *s, size_t n, uint32_t *cur, bool *whole)
{
    /* "[N]" then %time self children [called[+self]] name [N]. */
    size_t i = 1;
    uint64_t ix;
    if (cgprop__parse_u64(s, n, &i, false, &ix) != CGPROP__NUM_OK || i >= n || s[i] != ']' || ix == 0)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "bad entry index");
    fields f;
    split_fields(s + i + 1, n - i - 1, 0, (size_t)(p->r.end - s) - i - 1, &f);
    if (f.nt < 3 || f.index != ix || !f.nlen)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line,
                                 "an entry needs %%time, self, children, a name and its index [%llu] again",
                                 (unsigned long long)ix);
    *whole = f.cycle_whole;
    if (f.cycle_whole) return CGPROP_OK; /* cgprop finds the cycles itself */
    if (by_line(f.name, f.nlen)) return line_fail(p, line);
    uint64_t self;
    int rc = centis(f.tok[1], f.tlen[1], &self);
    if (rc) return num_fail(p, rc, line, "self seconds");
    if (p->nring == GP_AHEAD && (rc = resolve_one(p))) return rc;
    if (p->nprim == UINT32_MAX - 1)
        return cgprop__read_fail(p->err, CGPROP_EOVERFLOW, line, "too many functions");
    if (p->nprim == p->pidcap) {
        size_t cap = p->pidcap ? p->pidcap * 2 : 1024;
        uint32_t *q = cgprop__realloc(p->g, p->pid, cap, sizeof *q);
        if (!q) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
        p->pid = q;
        p->pidcap = cap;
    }
    struct prim *e = &p->ring[(p->ring0 + p->nring++) % GP_AHEAD];
    e->name = f.name;
    e->nlen = f.nlen;
    e->ix = ix;
    e->self = self;
    e->line = line;
    /* The key node_for makes is the name itself unless it holds a TAB. */
    cgprop__node_prefetch(p->g, f.name, f.nlen);
    *cur = p->nprim++;
    return CGPROP_OK;
}

/* A line above (a caller) or below (a callee) a primary line:
 * "[self children] called[/total] name [N]", or "<spontaneous>" above. */
static int on_arc(gp *p, uint64_t line, const char *s, size_t n, const char *t, size_t m, bool below, uint32_t cur,
                  bool *spont)
{
    /* t[0..m): s without its leading blanks (parse passed them). */
    if (starts(t, m, "<spontaneous>")) {
        if (below) return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "<spontaneous> below an entry");
        *spont = true;
        return CGPROP_OK;
    }
    /* Such a graph is partial: the calls of the functions left out are
     * missing, and a caller of one would look like a leaf, its total its
     * self and exact. */
    if (left_out_line(s, n))
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line,
                                 "a call graph that leaves functions out (gprof -e, -E, -f, -F or -q with a name): "
                                 "their calls are missing; run gprof without those options");
    fields f;
    split_fields(s, n, (size_t)(t - s), (size_t)(p->r.end - s), &f);
    if (f.nt < 1 || !f.index || !f.nlen)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "a call line needs a count, a name and an index");
    if (!below) return CGPROP_OK; /* each call is taken once: below its caller */
    const char *c = f.tok[f.nt - 1];
    size_t cl = f.tlen[f.nt - 1], i = 0;
    uint64_t cnt;
    int nr = cgprop__parse_u64(c, cl, &i, false, &cnt);
    if (nr != CGPROP__NUM_OK || (i < cl && c[i] != '/'))
        return num_fail(p, nr == CGPROP__NUM_OVERFLOW ? CGPROP_EOVERFLOW : CGPROP_EFORMAT, line, "call count");
    /* A callee's entry is often further down than its index (the bench's
     * files and gprof -q have no flat profile above the graph): its check
     * waits for the end of the graph rather than count the lines first. */
    if (f.index > p->r.no && !p->counted && f.index < UINT32_MAX) {
        p->pending = true;
        if (f.index > p->pmax) p->pmax = f.index;
    } else if (!index_in_range(p, f.index)) {
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "index [%llu] out of range",
                                 (unsigned long long)f.index);
    }
    if (p->npc == p->nblk * PC_BLOCK) {
        if (p->nblk == p->blkcap) {
            size_t cap = p->blkcap ? p->blkcap * 2 : 16;
            pcall **q = cgprop__realloc(p->g, p->pcb, cap, sizeof *q);
            if (!q) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
            p->pcb = q;
            p->blkcap = cap;
        }
        pcall *b = cgprop__alloc(p->g, PC_BLOCK, sizeof *b);
        if (!b) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
        p->pcb[p->nblk++] = b;
    }
    pcall *pc = pc_at(p, p->npc++);
    pc->caller = cur;
    pc->callee_ix = (uint32_t)f.index;
    pc->count = cnt;
    pc->line = line;
    pc->name = f.name;
    pc->nlen = f.nlen;
    return CGPROP_OK;
}

/* A flat profile line: %time cumulative self [calls self/call total/call]
 * name. Anything else in that section (headers, gprof's explanations) is
 * not one: the first three fields must be decimals. */
static int on_flat(gp *p, uint64_t line, const char *s, size_t n)
{
    fields f;
    split_fields(s, n, 0, (size_t)(p->r.end - s), &f);
    /* The older layout's flat lines end in the function's index. */
    if (f.nt < 3 || !f.nlen || (f.index && !p->bsd)) return CGPROP_OK;
    for (uint32_t k = 0; k < 3; k++)
        if (!memchr(f.tok[k], '.', f.tlen[k])) return CGPROP_OK;
    if (by_line(f.name, f.nlen)) return line_fail(p, line);
    uint64_t self;
    int rc = centis(f.tok[2], f.tlen[2], &self);
    if (rc) return num_fail(p, rc, line, "self seconds");
    if (p->nfl == p->flcap) {
        size_t cap = p->flcap ? p->flcap * 2 : 64;
        flat *q = cgprop__realloc(p->g, p->fl, cap, sizeof *q);
        if (!q) return cgprop__read_fail(p->err, CGPROP_ENOMEM, line, "out of memory");
        p->fl = q;
        p->flcap = cap;
    }
    p->fl[p->nfl].name = f.name;
    p->fl[p->nfl].nlen = f.nlen;
    p->fl[p->nfl].self = self;
    p->fl[p->nfl].line = line;
    p->nfl++;
    return CGPROP_OK;
}

enum { S_OUT, S_FLAT, S_CG_PRE, S_CG, S_DONE, S_AFTER };

/* The older layout's flat profile has no heading but its column names:
 * "  %   cumulative   self ...". */
static bool bsd_flat_header(const char *t, size_t m)
{
    return m && t[0] == '%' && has_word(t, m, "cumulative");
}

/* The end of a call graph entry. gprof writes <spontaneous> above a
 * function nothing it profiled called; cgprop takes such a function as a
 * root (no callers), which the collapse treats the same way. It is not
 * made a spontaneous entry: that would state a measured entry cost (of 0)
 * where gprof measured none, and the split would take it as exact. */
static int end_entry(gp *p, uint64_t line, uint32_t cur, bool spont)
{
    if (spont && cur == CGPROP_NONE)
        return cgprop__read_fail(p->err, CGPROP_EFORMAT, line, "<spontaneous> without an entry line");
    return CGPROP_OK;
}

static int parse(gp *p, const char *data, size_t len, uint64_t *nlines, bool *any, bool *graph)
{
    cgprop__lines_init(&p->r, data, len);
    const char *s;
    size_t n;
    int st = S_OUT, rc = CGPROP_OK;
    uint32_t cur = CGPROP_NONE;
    bool primary = false, whole = false, spont = false, sep = false;
    while (!rc && st != S_DONE && cgprop__lines_next(&p->r, &s, &n)) {
        size_t m = n;
        const char *t = skip_space(s, &m);
        if (st == S_CG) {
            /* The older layout (gprof -T) prints the flat profile after
             * the graph: it is read on (S_AFTER). */
            if ((n && s[0] == '\f') || starts(t, m, "Index by function name") ||
                (p->bsd && (starts(t, m, "granularity:") || bsd_flat_header(t, m)))) {
                rc = end_entry(p, p->r.no, cur, spont);
                st = !p->bsd ? S_DONE : bsd_flat_header(t, m) ? S_FLAT : S_AFTER;
            } else if (m == 0) {
                /* A blank line after an entry ends the graph: gprof's
                 * explanation follows it (without -b). The older layout
                 * has a blank line after every "-----". */
                if (sep && !p->bsd) st = S_DONE;
                continue;
            } else if (t[0] == '-' && m >= 3 && t[1] == '-' && t[2] == '-') {
                rc = end_entry(p, p->r.no, cur, spont);
                cur = CGPROP_NONE;
                primary = whole = spont = false;
                sep = true;
                continue;
            } else if (t == s && s[0] == '[') {
                if (primary) rc = cgprop__read_fail(p->err, CGPROP_EFORMAT, p->r.no, "two entry lines without a ----- between");
                else rc = on_primary(p, p->r.no, s, n, &cur, &whole);
                primary = true;
                *any = true;
            } else if (starts(t, m, "called/total")) {
                /* The older (BSD) header's lines around its column names. */
            } else if (!whole) {
                rc = on_arc(p, p->r.no, s, n, t, m, primary, cur, &spont);
            }
            sep = false;
            continue;
        }
        if (starts(t, m, "Flat profile:")) {
            st = S_FLAT;
            *any = true;
        } else if (starts(t, m, "Call graph")) {
            st = S_CG_PRE;
        } else if ((st == S_CG_PRE || st == S_OUT) && cg_header(s, n)) {
            st = S_CG;
            *any = *graph = true;
            p->bsd = has_word(s, n, "descend"); /* descendants, or descendents before binutils 2.2x */
        } else if (st == S_AFTER && bsd_flat_header(t, m)) {
            st = S_FLAT;
        } else if (st == S_FLAT) {
            rc = on_flat(p, p->r.no, s, n);
        }
    }
    if (!rc && st == S_CG) rc = end_entry(p, p->r.no, cur, spont);
    /* A held primary line's error comes before rc's (a later line). */
    int prc = resolve_all(p);
    if (prc) rc = prc;
    *nlines = p->r.no;
    return rc;
}

/* The call lines whose index waited (on_arc): the first out of range is
 * the error, before rc (from a later line, or the same last line's end of
 * entry), as checking each line as it came would have found it. */
static int check_pending(gp *p, int rc)
{
    if (!p->pending) return rc;
    p->pending = false;
    count_lines(p);
    /* Only the waiting lines can be out of range: none is when their
     * largest index is within, and the calls need not be walked. */
    if (p->pmax < p->nix) return rc;
    for (size_t i = 0; i < p->npc; i++)
        if (pc_at(p, i)->callee_ix >= p->nix)
            return cgprop__read_fail(p->err, CGPROP_EFORMAT, pc_at(p, i)->line, "index [%llu] out of range",
                                     (unsigned long long)pc_at(p, i)->callee_ix);
    return rc;
}

/* Calls, now that every entry has its function; then the flat profile's
 * functions the call graph did not list. */
/* The calls are added GP_BATCH at a time (cgprop__add_edges): the callee
 * pc[from + j] resolved to is b[GP_BATCH + j], its caller b[j], its count
 * n[j]. A refused batch changes nothing: its calls are then added one by
 * one, so that the error and its line are the ones adding each call as it
 * came would give. */
#define GP_BATCH 4096

static int add_batch(gp *p, size_t from, uint32_t nb, const uint32_t *b, const uint64_t *n)
{
    if (!nb || cgprop__add_edges(p->g, nb, b, b + GP_BATCH, n, NULL, NULL) == CGPROP_OK) return CGPROP_OK;
    for (uint32_t j = 0; j < nb; j++) {
        int rc = cgprop_graph_add_edge(p->g, b[j], b[GP_BATCH + j], n[j], NULL, NULL);
        if (rc) return graph_fail(p, rc, pc_at(p, from + j)->line);
    }
    return CGPROP_OK;
}

static int add_calls(gp *p, uint32_t *b, uint64_t *n)
{
    int rc;
    size_t from = 0;
    uint32_t nb = 0;
    for (size_t i = 0; i < p->npc; i++) {
        pcall *c = pc_at(p, i);
        uint32_t v;
        /* A batch takes a caller's calls whole where they fit: a caller
         * whose calls spanned two batches would have calls from before the
         * second, and the graph would then build its call index for that
         * batch's look-ups, the only ones reading ever needs. */
        if (b && nb && c->caller != pc_at(p, i - 1)->caller) {
            size_t r = 1;
            while (r <= GP_BATCH && i + r < p->npc && pc_at(p, i + r)->caller == c->caller) r++;
            if (nb + r > GP_BATCH) {
                if ((rc = add_batch(p, from, nb, b, n))) return rc;
                nb = 0;
            }
        }
        if (c->callee_ix < p->ixcap && p->ix[c->callee_ix]) {
            v = p->ix[c->callee_ix] - 1;
        } else {
            /* Known to gprof (its static call graph) without an entry. */
            if ((rc = node_for(p, c->line, c->name, c->nlen, c->callee_ix, &v)) ||
                (rc = set_index(p, c->line, c->callee_ix, v))) {
                /* The calls before it come first. */
                int brc = b ? add_batch(p, from, nb, b, n) : CGPROP_OK;
                return brc ? brc : rc;
            }
        }
        if (!b) {
            if ((rc = cgprop_graph_add_edge(p->g, p->pid[c->caller], v, c->count, NULL, NULL)))
                return graph_fail(p, rc, c->line);
            continue;
        }
        if (nb == 0) from = i;
        b[nb] = p->pid[c->caller];
        b[GP_BATCH + nb] = v;
        n[nb] = c->count;
        if (++nb == GP_BATCH) {
            if ((rc = add_batch(p, from, nb, b, n))) return rc;
            nb = 0;
        }
    }
    return b ? add_batch(p, from, nb, b, n) : CGPROP_OK;
}

static int finish(gp *p)
{
    int rc;
    /* Without the batch's memory, one call at a time. */
    uint32_t *b = p->npc ? cgprop__alloc(p->g, 2 * GP_BATCH, sizeof *b) : NULL;
    uint64_t *n = b ? cgprop__alloc(p->g, GP_BATCH, sizeof *n) : NULL;
    if (!n) {
        cgprop__free(p->g, b);
        b = NULL;
    }
    /* Room for every call at once: grown by doubling, the call arrays
     * were copied about twice over (7 % of reading the bench's report).
     * Failing, the calls are added as before and fail there if they must. */
    if (p->npc && p->npc <= UINT32_MAX - 1) (void)cgprop__reserve_arrays(p->g, 0, (uint32_t)p->npc);
    rc = add_calls(p, b, n);
    cgprop__free(p->g, b);
    cgprop__free(p->g, n);
    if (rc) return rc;
    for (size_t i = 0; i < p->nfl; i++) {
        flat *f = &p->fl[i];
        uint32_t v;
        size_t before = cgprop_graph_node_count(p->g);
        if ((rc = node_for(p, f->line, f->name, f->nlen, 0, &v))) return rc;
        if (v >= before && (rc = cgprop_graph_add_self(p->g, v, &f->self))) return graph_fail(p, rc, f->line);
    }
    return CGPROP_OK;
}

int cgprop__gprof_read(const char *data, size_t len, const cgprop_read_options *opts,
                       const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                       cgprop_read_error *err)
{
    (void)opts; /* keys are the names gprof prints */
    *out = NULL;
    gp p;
    memset(&p, 0, sizeof p);
    p.err = err;
    const char *names[1] = {"cs"};
    int rc = cgprop_graph_new(alloc, names, NULL, 1, &p.g);
    if (rc) return cgprop__read_fail(err, rc, 0, "out of memory");
    /* Every entry takes a line: indices past the line count are refused,
     * which bounds the index table by the input (count_lines). */
    uint64_t nlines = 0;
    bool any = false, graph = false;
    rc = parse(&p, data, len, &nlines, &any, &graph);
    rc = check_pending(&p, rc);
    if (!rc && !any) rc = cgprop__read_fail(err, CGPROP_EFORMAT, nlines, "no flat profile or call graph");
    /* A flat profile alone (gprof -p) names no call: read as it is, every
     * function's total would be its self cost, shown as exact. */
    if (!rc && !graph)
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, nlines,
                               "a flat profile without its call graph: inclusive costs need the call graph "
                               "(gprof without -p, or with -q)");
    if (!rc) rc = finish(&p);
    if (!rc && cgprop_graph_node_count(p.g) == 0)
        rc = cgprop__read_fail(err, CGPROP_EFORMAT, nlines, "no function in the profile");
    cgprop__free(p.g, p.ix);
    cgprop__free(p.g, p.own);
    for (size_t i = 0; i < p.nblk; i++) cgprop__free(p.g, p.pcb[i]);
    cgprop__free(p.g, p.pcb);
    cgprop__free(p.g, p.fl);
    cgprop__free(p.g, p.key);
    cgprop__free(p.g, p.pid);
    if (rc) {
        cgprop_graph_free(p.g);
        return rc;
    }
    if (info) {
        info->format = CGPROP_INPUT_GPROF;
        /* gprof measures no call costs: its arcs carry counts only. */
        info->recursion = CGPROP_RECS_COUNTS;
        info->lines = count_lines(&p); /* the input's, though reading stops after the call graph */
    }
    *out = p.g;
    return CGPROP_OK;
}

bool cgprop__gprof_detect(const char *data, size_t len)
{
    cgprop__lines r;
    cgprop__lines_init(&r, data, len);
    const char *s;
    size_t n;
    while (r.no < 40 && cgprop__lines_next(&r, &s, &n)) {
        size_t m = n;
        const char *t = skip_space(s, &m);
        /* "call graph profile:" opens gprof -T's explanations. */
        if (starts(t, m, "Flat profile:") || cg_header(s, n) || starts(t, m, "Call graph (explanation follows)") ||
            starts(t, m, "call graph profile:"))
            return true;
    }
    return false;
}
