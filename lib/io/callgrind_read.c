/* Callgrind reader (format: docs/READERS.md and the callgrind format
 * reference). Two passes, both linear:
 *  1. parse every line into "raw" functions, the names as written (fa, fa'2,
 *     fa'2'fb'fa ...) keyed by (object, file, name), their self costs and
 *     the calls between them; most lines on a fast path (see "fast path");
 *  2. decide how the file encodes recursion, then fold raw functions into the
 *     final graph with their recursion classes.
 * The raw pass must see the whole file first because one fn'2 anywhere
 * changes the meaning of every plain self-call. */
#include "callgrind.h"

/* Whether the graph has costs in two functions or more and no call. The
 * format is callgrind's, but cachegrind writes it too, with self costs
 * only: read as it is, every function's total would be its self cost,
 * shown exact, main's a sliver of the program. Callgrind, Xdebug and cgprop
 * write every call they saw, and say who they are (creator:); a file that
 * does not, and names no call among functions that have costs, recorded
 * none. One function with a cost needs no call to be exact. */
static bool no_calls(const cgprop_graph *g)
{
    if (cgprop_graph_edge_count(g)) return false;
    size_t costly = 0, K = g->K;
    for (size_t i = 0; i < (size_t)g->nn * K && costly < 2; i++)
        if (g->self[i]) {
            costly++;
            i = (i / K + 1) * K - 1; /* the next function */
        }
    return costly >= 2;
}

static void cg_init(cg *c, const cgprop_read_options *opts, const cgprop_allocator *alloc, cgprop_read_error *err,
                    size_t len)
{
    memset(c, 0, sizeof *c);
    c->opts = opts;
    c->err = err;
    c->alloc = alloc;
    c->npos = 1;
    c->ob = c->fl = c->fi = c->fn = c->fn_ob = c->fn_fl = NONE_SID;
    c->cob = c->cfi = c->cfn = NONE_SID;
    c->cur_raw = UINT32_MAX;
    c->fn_id = c->cfn_id = NONE_SID;
    c->acc_raw = UINT32_MAX;
    cgprop__mem_init(&c->mem, alloc);
    c->est_fn = 1024;
    while (c->est_fn < (1u << 22) && (size_t)c->est_fn * 1024 < len) c->est_fn *= 2;
    c->est_calls = 4096;
    while (c->est_calls < (1u << 24) && (size_t)c->est_calls * 128 < len) c->est_calls *= 2;
}

/* After pass 1 (rc its result): what the end of the input says, pass 2,
 * and the reader's tables freed. */
static int cg_finish(cg *c, int rc, cgprop_graph **out, cgprop_read_info *info)
{
    cgprop__cg_acc_flush(c);
    uint64_t nlines = c->line;
    if (!rc && c->pending != PEND_NONE) {
        c->line = c->pend_line;
        rc = fail(c, CGPROP_EFORMAT, "%s",
                  c->pending == PEND_CALL ? "calls= line not followed by its cost line (end of input)"
                                          : "jump line not followed by its position line (end of input)");
    }
    if (!rc) rc = cgprop__cg_end_part(c);
    if (!rc && !c->raw) {
        c->line = nlines;
        rc = fail(c, CGPROP_EFORMAT, "%s", "no events: line: not a callgrind profile");
    }
    c->line = nlines;
    if (!rc) rc = cgprop__cg_assemble(c, out, info);
    /* Weights stated per event of the file; the graph's metrics may be in
     * another order (parts matched by name) but colmap put them in its. */
    if (!rc && c->any_unrooted) cgprop__graph_state_unrooted(*out, c->unrooted);
    if (!rc && !c->creator && no_calls(*out)) {
        cgprop_graph_free(*out);
        *out = NULL;
        rc = cgprop__read_fail(c->err, CGPROP_EFORMAT, 0, "%s",
                               "costs in several functions but no calls= line: a cachegrind profile (or another "
                               "that records no calls) gives no inclusive cost; record with valgrind "
                               "--tool=callgrind");
    }
    if (info && !rc) info->lines = nlines;

    for (int sp = 0; sp < 3; sp++) cgprop__mem_free(&c->mem, c->dir[sp]);
    cgprop__mem_free(&c->mem, c->fdir);
    cgprop__mem_free(&c->mem, c->rself);
    cgprop__mem_free(&c->mem, c->scratch);
    cgprop__mem_free(&c->mem, c->sbuf);
    cgprop__mem_free(&c->mem, c->sent);
    cgprop__mem_free(&c->mem, c->rkey);
    cgprop__mem_free(&c->mem, c->sset.slot);
    cgprop__mem_free(&c->mem, c->rset.slot);
    cgprop__mem_free(&c->mem, c->unrooted_copy);
    cgprop_graph_free(c->raw);
    cgprop__u64map_free(&c->mem, &c->ids);
    return rc;
}

static int read_cg(const char *data, size_t len, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                   cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err)
{
    cg c;
    cg_init(&c, opts, alloc, err, len);
    *out = NULL;
    c.data = data;
    c.end = data + len;
    return cg_finish(&c, cgprop__cg_pass1(&c, data, len), out, info);
}

int cgprop__callgrind_read(const char *data, size_t len, const cgprop_read_options *opts,
                           const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                           cgprop_read_error *err)
{
    if (!cgprop__cg_is_xdebug(data, len)) return read_cg(data, len, opts, alloc, out, info, err);
    /* Xdebug's call tree gives every call's recursion level: the file
     * rewritten with them in callgrind's fn'N names, made as by a run with
     * an unbounded --separate-recs (fn'3 stands for every level from 2). */
    char *tree;
    size_t tlen;
    int rc = cgprop__cg_xdebug_rewrite(data, len, alloc, &tree, &tlen);
    if (rc) return cgprop__read_fail(err, rc, 0, "%s", "out of memory");
    if (!tree) return read_cg(data, len, opts, alloc, out, info, err);
    cgprop_read_options o = *opts;
    o.separate_recs = MAX_REC_INDEX;
    rc = read_cg(tree, tlen, &o, alloc, out, info, err);
    cgprop_allocator m;
    cgprop__mem_init(&m, alloc);
    cgprop__mem_free(&m, tree);
    if (!rc && info) {
        info->recursion = CGPROP_RECS_STACKS;
        info->separate_recs = 0;
    }
    return rc;
}

/* Xdebug's profile read in pieces: gathered whole, as its rewrite needs. */
static int read_gathered(cgprop__pieces *q, const cgprop_read_options *opts, const cgprop_allocator *alloc,
                         cgprop_graph **out, cgprop_read_info *info, cgprop_read_error *err)
{
    cgprop_allocator m;
    cgprop__mem_init(&m, alloc);
    char *all = NULL;
    size_t len = 0, cap = 0;
    bool done = false;
    int rc = CGPROP_OK;
    while (!rc && !done) {
        if (!cgprop__grow(&m, (void **)&all, &cap, len + q->cut, 1, q->cut)) {
            rc = cgprop__read_fail(err, CGPROP_ENOMEM, 0, "%s", "out of memory");
            break;
        }
        memcpy(all + len, q->buf, q->cut);
        len += q->cut;
        rc = cgprop__pieces_next(q, &done);
    }
    /* The pieces' buffer goes before the text is read. */
    cgprop__pieces_close(q);
    if (!rc) rc = cgprop__callgrind_read(all, len, opts, alloc, out, info, err);
    cgprop__mem_free(&m, all);
    return rc;
}

/* The line of the call whose sum overflowed, from the text read again. */
static void find_overflow_line(cg *c, cgprop__pieces *q)
{
    uint32_t seen = 0;
    uint64_t line = 0;
    bool found = false, done = false;
    /* A failure now (memory) leaves the error without its line, not
     * another error. */
    q->err = NULL;
    if (cgprop__pieces_rewind(q) != CGPROP_OK) return;
    while (!found && !done) {
        found = cgprop__cg_find_calls_line(q->buf, q->cut, c->ovf_at, &seen, &line);
        if (!found && cgprop__pieces_next(q, &done) != CGPROP_OK) return;
    }
    if (found) (void)cgprop__cg_calls_error(c, true, line);
}

int cgprop__callgrind_read_stream(cgprop__src *src, size_t piece, const cgprop_read_options *opts,
                                  const cgprop_allocator *alloc, cgprop_graph **out, cgprop_read_info *info,
                                  cgprop_read_error *err)
{
    *out = NULL;
    cgprop__pieces q;
    int rc = cgprop__pieces_open(&q, src, cgprop__cut_after_newline, piece, piece, CGPROP__CG_XDEBUG_PEEK, alloc, err);
    if (rc) return rc;
    bool done = false;
    rc = cgprop__pieces_next(&q, &done);
    /* The whole text's first bytes, or its first 64 KiB: what the text in
     * memory is judged by. */
    if (!rc && !done && cgprop__cg_is_xdebug(q.buf, q.have)) return read_gathered(&q, opts, alloc, out, info, err);
    cg c;
    /* Tables sized as for the bytes read so far: all of a short text. */
    cg_init(&c, opts, alloc, err, q.have);
    while (!rc && !done) {
        /* Pieces end after a newline: no line spans two. The look ahead
         * for function lines starts afresh in each. */
        c.end = q.buf + q.cut;
        c.fn_ahead = NULL;
        rc = cgprop__cg_pass1(&c, q.buf, q.cut);
        if (!rc) rc = cgprop__pieces_next(&q, &done);
    }
    c.end = NULL;
    rc = cg_finish(&c, rc, out, info);
    if (rc == CGPROP_EOVERFLOW && c.ovf) find_overflow_line(&c, &q);
    cgprop__pieces_close(&q);
    return rc;
}
