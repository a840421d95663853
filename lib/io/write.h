/* Private: what the four writers share (lib/io/write.c). The writers read
 * results only through the public iterators; this header holds the output
 * buffer, number formatting and the "shown figure" rule of people's views. */
#ifndef CGPROP_IO_WRITE_H
#define CGPROP_IO_WRITE_H

#include "cgprop_io.h"
#include "graph.h"
#include "num.h"

/* Buffered output over the caller's callback. Once the callback fails every
 * later put is a no-op and ->failed stays set, so writers need not check each
 * call; they check once at the end. */
typedef struct cgprop__wr {
    cgprop_graph *g;
    cgprop_write_fn fn;
    void *user;
    int failed;
    size_t n;
    /* The JSON writer's last two non-integer doubles and their digits
     * (one figure is often written several times in a row); set up by
     * that writer, unused by the others. */
    uint64_t dbits[2];
    unsigned char dlen[2];
    unsigned char dnext;
    char dtxt[2][CGPROP__NUM_MAX];
    /* Pieces for the sink of 256 KiB, as large as cgprop_write_path's
     * stdio buffer: a sink that fwrite()s each piece into a new file makes
     * a write per piece, and with 16 KiB pieces the JSON writer took 4.4x
     * one fwrite of its bytes (2.7-3.0x at this size). On the heap, one
     * per write call. */
    char buf[262144];
} cgprop__wr;

/* The stdio buffer cgprop_write_path gives its file: the size of the
 * kernel's writes. */
#define CGPROP__FILE_BUF ((size_t)256 * 1024)

/* The caller's write options over the defaults, any published layout;
 * false for a size no layout has (or an unknown non-zero tail). */
bool cgprop__write_opts_in(cgprop_write_options *o, const cgprop_write_options *opts);

void cgprop__wr_put(cgprop__wr *w, const char *s, size_t len);
void cgprop__wr_puts(cgprop__wr *w, const char *s);
void cgprop__wr_printf(cgprop__wr *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Flush; returns CGPROP_OK or CGPROP_EWRITE (message set). */
int cgprop__wr_flush(cgprop__wr *w);
/* A double that reads back to the same value, JSON-safe: "null" for NaN/inf. */
void cgprop__wr_json_double(cgprop__wr *w, double x);
/* The decimal digits of x. */
void cgprop__wr_u64(cgprop__wr *w, uint64_t x);
/* A JSON string literal: well-formed UTF-8 passed through, control bytes
 * escaped, any other byte 0xXX as the lone surrogate \udcXX. */
void cgprop__wr_json_str(cgprop__wr *w, const char *s, size_t len);

/* The name a person reads for a function: the readers' display name when
 * they set one, else the key. */
const char *cgprop__wr_name(cgprop_graph *g, uint32_t id, size_t *len);

/* The name of a cgprop_estimate, as JSON, text and DOT spell it ("exact",
 * "heuristic", "shares", "walk", "midpoint", "budget", "measured"; "estimate" for a
 * kind this writer does not know). */
const char *cgprop__wr_estimate_name(uint32_t estimate);

/* How a figure in a people's view was obtained. */
enum { CGPROP__SHOW_EXACT = 0, CGPROP__SHOW_ESTIMATE = 1, CGPROP__SHOW_NONE = 2 };

/* What the views read of a call: half of its cgprop_edge_row. */
typedef struct cgprop__view_edge {
    uint32_t caller, callee;
    uint64_t count;
} cgprop__view_edge;

/* Everything text and DOT show for one metric, loaded through the iterators.
 * Arrays are indexed by id. cn is NULL when the split is not current
 * (then every figure is the heuristic, marked as an estimate). Of the calls
 * only the figure shown is kept: their totals and split rows are looked up
 * (cgprop_graph_get_row) for the calls a writer prints. */
typedef struct cgprop__view {
    uint32_t k;
    uint32_t nn, ne, nc;
    cgprop_node_row *node;
    cgprop_total_row *tot;
    uint64_t *cn;      /* nn: the split's C_n, the exact inclusive cost */
    cgprop__view_edge *edge;
    cgprop_cycle_row *cyc;
    uint32_t *mem_off; /* nc + 1 */
    uint32_t *mem;     /* members of cycle c: mem[mem_off[c] .. mem_off[c+1]) */
    double *shown;     /* nn: the total a person sees */
    unsigned char *how;  /* nn: CGPROP__SHOW_* */
    double *eshown;    /* ne */
    unsigned char *ehow; /* ne */
    double program;    /* Σ self of metric k */
    unsigned char *qual; /* nn: how much of the key tells the function apart (see cgprop__view_qual) */
    /* Display names after CGPROP_W_STRIP: function f's is sname[soff[f] ..
     * soff[f+1]); NULL without the flag. */
    char *sname;
    size_t *soff;
    /* The view's selection (cgprop__view_select; every function and call
     * shown until it runs). show/eshow NULL: all shown. */
    unsigned char *show;  /* nn */
    unsigned char *eshow; /* ne */
    uint32_t nshown;
    /* Per shown function, the calls to (out) and from (in) functions not
     * shown, or calls not drawn: the sum of their shown figures, whether
     * any of those is an estimate, and their count. */
    double *hid_out, *hid_in;
    unsigned char *hid_out_est, *hid_in_est;
    uint64_t *hid_out_calls, *hid_in_calls;
    uint32_t *hid_out_n, *hid_in_n; /* calls (edges) hidden */
    /* A pruned picture's view (cgprop__view_load with lean): the rows
     * of the functions shown only, rid their ids (ascending, nrid of them)
     * and node and tot parallel to it; of the calls only those out of a
     * function shown, ne of them, eid their ids (ascending) and edge,
     * eshown, ehow and eshow parallel to it (so hid_in stays empty: a
     * picture draws its boxes' hidden calls out, not in); qual set for the
     * functions shown only; cn NULL, split saying whether the split is
     * current. A DOT picture of a million calls shows a few dozen
     * functions: the rows of every function and every call, and the names
     * of all, none of which the picture reads, were two thirds of its
     * writer's time. */
    bool lean;
    bool split;
    uint32_t *rid, nrid;
    uint32_t *eid;
} cgprop__view;

/* Function f's rows in the view (f shown when the view is lean; a row of
 * zeros for any other). */
const cgprop_total_row *cgprop__view_tot(const cgprop__view *v, uint32_t f);
const cgprop_node_row *cgprop__view_node(const cgprop__view *v, uint32_t f);

/* Apply the view controls of @p o: roots, leaves, focus, hide, top, and
 * the thresholds when @p prune. Sets show, eshow, nshown and the hidden
 * sums. */
int cgprop__view_select(cgprop_graph *g, cgprop__view *v, const cgprop_write_options *o, int prune);
/* The name a person reads, after --strip when asked for. */
const char *cgprop__view_name(cgprop_graph *g, const cgprop__view *v, uint32_t id, size_t *len);
static inline int cgprop__view_shown(const cgprop__view *v, uint32_t f) { return !v->show || v->show[f]; }
static inline int cgprop__view_eshown(const cgprop__view *v, uint32_t e) { return !v->eshow || v->eshow[e]; }

/* Every row the views read, for metric k. With lean (a pruned picture),
 * what each function shows only: cgprop__view_select then reads the rows
 * of the functions it keeps, the calls out of them and their names (see
 * the view's lean); its options' flags must be the ones given here. */
int cgprop__view_load(cgprop_graph *g, uint32_t k, uint32_t flags, bool lean, cgprop__view *v);
/* Each function's calls out and in, as call ids in the order the callee
 * and caller iterators list them (ascending): out[ooff[f] .. ooff[f + 1])
 * and in[ioff[f] .. ioff[f + 1]), from the view's calls. */
typedef struct cgprop__view_calls {
    uint32_t *ooff, *out, *ioff, *in;
} cgprop__view_calls;
/* CGPROP_ENOMEM leaves nothing allocated. */
int cgprop__view_calls_make(cgprop_graph *g, const cgprop__view *v, cgprop__view_calls *c);
void cgprop__view_calls_free(cgprop_graph *g, cgprop__view_calls *c);
/* What to print after function id's display name so that no two functions
 * read the same: "" when its name is its own, else " [object]" (or the file
 * when there is no object), " [object, file]" when that is shared too, and
 * the id last (" [object, file, #12]"). Writes at most cap bytes (cap ≥ 1),
 * NUL-terminated; returns the length. */
size_t cgprop__view_qual(const cgprop_graph *g, const cgprop__view *v, uint32_t id, char *buf, size_t cap);
void cgprop__view_free(cgprop_graph *g, cgprop__view *v);

/* A name as the text reports print it (text.c): a control byte as \xHH,
 * a backslash doubled. cgprop__text_name writes it to out, which has room
 * for cgprop__text_name_len(s, len) bytes, and returns that length. */
size_t cgprop__text_name_len(const char *s, size_t len);
size_t cgprop__text_name(char *out, const char *s, size_t len);
/* A name inside a DOT label's quotes as the DOT writers print it (dot.c):
 * escaped, control bytes as blanks, cut short of graphviz's limit. */
void cgprop__dot_name(cgprop__wr *w, const char *s, size_t len);

int cgprop__write_text(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w);
int cgprop__write_json(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w);
int cgprop__write_dot(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w);
int cgprop__write_callgrind(cgprop_graph *g, const cgprop_write_options *o, cgprop__wr *w);

#endif
