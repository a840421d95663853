/* The absorbing walk inside one strongly connected component (walk.h has the
 * contract, docs/WALK.md the model).
 *
 * Both kernels work on B = I - Q restricted to the members whose walk needs
 * the matrix. Row f of Q holds the chances of stepping from f to each caller;
 * what is missing from 1 is the chance of leaving from f. So every row of B
 * sums to that exit chance, >= 0: B is diagonally dominant by rows (not by
 * columns: a caller may send far more cost into its callees than enters it,
 * so a column of Q can sum to much more than 1). With at least one way out
 * from every member it is a nonsingular M-matrix, and eliminating a pivot of
 * such a matrix leaves a Schur complement of the same kind (off-diagonal
 * entries <= 0, row sums >= 0). Hence no pivoting: every pivot is positive,
 * no entry can grow past its row's first sum, and the order of pivots is
 * free to be chosen for sparsity alone.
 *
 * Both kernels also avoid every subtraction (the approach of Grassmann,
 * Taksar and Heyman for Markov chains). The entries kept are magnitudes
 * p[i][j] = -B[i][j] >= 0 and each row's exit chance e[i]; eliminating k
 * adds p[i][k] * p[k][j] / d_k to p[i][j] and p[i][k] * e[k] / d_k to e[i],
 * and the pivot is never updated by subtraction but summed afresh:
 * d_k = e[k] + sum of row k's remaining p. For the diagonal of the inverse,
 * Takahashi's equations in these magnitudes are sums of non-negative terms
 * too. So every figure carries a small relative error even when the walk
 * almost never leaves and the expected number of visits is huge, and the two
 * kernels agree to a few units in the last place times the size. */
#include "walk.h"

#include "analysis.h"

#include <math.h>
#include <string.h>

#define NONE UINT32_MAX

/* The matrix part of the problem: m members, row r's steps (to reduced
 * caller col[i], chance val[i]) and its exit chance. */
typedef struct red {
    uint32_t m;
    uint32_t *off; /* m + 1 */
    uint32_t *col;
    double *val;
    double *exit; /* m */
} red;

/* ---- the dense kernel ---------------------------------------------------- */

/* esc[r] = 1 / G[r][r], the chance that a walk from r never comes back to r;
 * 0 where the walk cannot leave at all (see trap below). */
static int dense_kernel(const cgprop_graph *g, const red *R, double budget, double *esc, double *work)
{
    size_t m = R->m;
    double dm = (double)m;
    *work = dm * (dm + 1) * (2 * dm + 1) / 6;
    if (budget > 0 && *work > budget) return CGPROP__WALK_OVER_BUDGET;
    /* p holds the factors once eliminated: row k right of the diagonal is
     * U (u = p / d_k), column k below it is L (l = p / d_k). */
    double *p = cgprop__calloc(g, m * m, sizeof *p);
    double *z = cgprop__alloc(g, m * m, sizeof *z);
    double *e = cgprop__alloc(g, m, sizeof *e);
    double *d = cgprop__alloc(g, m, sizeof *d);
    unsigned char *trap = cgprop__calloc(g, m, 1);
    int rc = CGPROP_ENOMEM;
    if (!p || !z || !e || !d || !trap) goto out;
    for (size_t r = 0; r < m; r++) {
        e[r] = R->exit[r];
        for (uint32_t i = R->off[r]; i < R->off[r + 1]; i++) p[r * m + R->col[i]] += R->val[i];
    }
    for (size_t k = 0; k < m; k++) {
        double *rowk = p + k * m;
        double dk = e[k];
        for (size_t j = k + 1; j < m; j++) dk += rowk[j];
        double ue;
        if (dk > 0) {
            ue = e[k] / dk;
            for (size_t j = k + 1; j < m; j++) rowk[j] /= dk;
        } else {
            /* Nothing left in the row: every way out of k underflowed. Let k
             * be a trap (esc 0) that the others treat as a way out, which is
             * what never coming back means to them. */
            trap[k] = 1;
            dk = 1;
            ue = 1;
        }
        d[k] = dk;
        for (size_t i = k + 1; i < m; i++) {
            double *rowi = p + i * m;
            double pik = rowi[k];
            if (pik == 0) continue;
            for (size_t j = k + 1; j < m; j++)
                if (j != i) rowi[j] += pik * rowk[j];
            e[i] += pik * ue;
            rowi[k] = pik / dk;
        }
    }
    /* Takahashi, last pivot first: for i > k,
     *   Z[k][i] = sum_{j>k} u_kj Z[j][i],   Z[i][k] = sum_{j>k} Z[i][j] l_jk,
     *   Z[k][k] = 1/d_k + sum_{j>k} u_kj Z[j][k]. */
    for (size_t kk = m; kk-- > 0;) {
        size_t k = kk;
        const double *rowk = p + k * m;
        for (size_t i = k + 1; i < m; i++) {
            double zki = 0, zik = 0;
            for (size_t j = k + 1; j < m; j++) {
                zki += rowk[j] * z[j * m + i];
                zik += z[i * m + j] * p[j * m + k];
            }
            z[k * m + i] = zki;
            z[i * m + k] = zik;
        }
        double zkk = 1 / d[k];
        for (size_t j = k + 1; j < m; j++) zkk += rowk[j] * z[j * m + k];
        z[k * m + k] = zkk;
    }
    for (size_t r = 0; r < m; r++) esc[r] = trap[r] ? 0 : 1 / z[r * m + r];
    rc = CGPROP_OK;
out:
    cgprop__free(g, p);
    cgprop__free(g, z);
    cgprop__free(g, e);
    cgprop__free(g, d);
    cgprop__free(g, trap);
    return rc;
}

/* ---- the sparse kernel --------------------------------------------------- */

/* The elimination graph of the ordering: each member's neighbours in one
 * pool; a list that fills up moves to the pool's end with twice the room.
 * Lists may hold eliminated members and repeats for a while; both are
 * dropped whenever a list is read in full. */
typedef struct elim {
    uint32_t *pool;
    size_t len, cap;
    size_t *start;
    uint32_t *n, *room;
} elim;

static int adj_push(const cgprop_graph *g, elim *E, uint32_t u, uint32_t w)
{
    if (E->n[u] == E->room[u]) {
        size_t room = E->room[u] ? (size_t)E->room[u] * 2 : 4;
        if (E->len + room > E->cap) {
            size_t cap = E->cap * 2 > E->len + room ? E->cap * 2 : E->len + room;
            uint32_t *pool = cgprop__realloc(g, E->pool, cap, sizeof *pool);
            if (!pool) return CGPROP_ENOMEM;
            E->pool = pool;
            E->cap = cap;
        }
        if (E->n[u]) memcpy(E->pool + E->len, E->pool + E->start[u], (size_t)E->n[u] * sizeof *E->pool);
        E->start[u] = E->len;
        E->len += room;
        E->room[u] = (uint32_t)room;
    }
    E->pool[E->start[u] + E->n[u]++] = w;
    return CGPROP_OK;
}

/* seen[x] of an eliminated member: above every tag, so that one load
 * tells both "gone" and "met already in this pass". */
#define GONE UINT64_MAX

/* Drops eliminated members and repeats from u's list (tag: larger than any
 * value of seen[] but GONE); returns the number left, u's exact degree. */
static uint32_t adj_clean(elim *E, uint32_t u, uint64_t *seen, uint64_t tag)
{
    uint32_t *a = E->pool + E->start[u], j = 0;
    for (uint32_t t = 0; t < E->n[u]; t++) {
        uint32_t x = a[t];
        if (seen[x] >= tag) continue;
        seen[x] = tag;
        a[j++] = x;
    }
    E->n[u] = j;
    return j;
}

/* Degree buckets: doubly linked lists of the members not yet eliminated by
 * their degree (exact, or an upper bound, see order()). */
typedef struct buckets {
    uint32_t *head, *next, *prev, *deg;
} buckets;

static void bucket_out(buckets *B, uint32_t u)
{
    if (B->prev[u] != NONE) B->next[B->prev[u]] = B->next[u];
    else B->head[B->deg[u]] = B->next[u];
    if (B->next[u] != NONE) B->prev[B->next[u]] = B->prev[u];
}

static void bucket_in(buckets *B, uint32_t u)
{
    uint32_t d = B->deg[u];
    B->prev[u] = NONE;
    B->next[u] = B->head[d];
    if (B->head[d] != NONE) B->prev[B->head[d]] = u;
    B->head[d] = u;
}

/* Sorts a[0 .. n-1] ascending; heapsort, so no recursion and n log n. */
static void sort_u32(uint32_t *a, size_t n)
{
    for (size_t s = n / 2; s-- > 0;) {
        for (size_t r = s;;) {
            size_t c = 2 * r + 1;
            if (c >= n) break;
            if (c + 1 < n && a[c + 1] > a[c]) c++;
            if (a[r] >= a[c]) break;
            uint32_t t = a[r]; a[r] = a[c]; a[c] = t;
            r = c;
        }
    }
    for (size_t end = n; end-- > 1;) {
        uint32_t t = a[0]; a[0] = a[end]; a[end] = t;
        for (size_t r = 0;;) {
            size_t c = 2 * r + 1;
            if (c >= end) break;
            if (c + 1 < end && a[c + 1] > a[c]) c++;
            if (a[r] >= a[c]) break;
            t = a[r]; a[r] = a[c]; a[c] = t;
            r = c;
        }
    }
}

/* 1^2 + 2^2 + ... + x^2. */
static double sq_sum(double x) { return x * (x + 1) * (2 * x + 1) / 6; }

/* The symmetric pattern of the matrix as adjacency lists, every member in
 * its degree's bucket: where both the lower bound and the ordering start.
 * seen (m tags) and *tag are the duplicate filter adj_clean uses. */
static int elim_build(const cgprop_graph *g, const red *R, elim *E, buckets *B, uint64_t *seen, uint64_t *tag)
{
    uint32_t m = R->m;
    /* The pool starts with room for the matrix's pairs, and every list at
     * its start, so that no list is ever read through a null pointer. */
    E->cap = 2 * (size_t)R->off[m] + 64;
    E->pool = cgprop__alloc(g, E->cap, sizeof *E->pool);
    E->start = cgprop__calloc(g, m, sizeof *E->start);
    E->n = cgprop__calloc(g, m, sizeof *E->n);
    E->room = cgprop__calloc(g, m, sizeof *E->room);
    B->head = cgprop__alloc(g, m, sizeof *B->head);
    B->next = cgprop__alloc(g, m, sizeof *B->next);
    B->prev = cgprop__alloc(g, m, sizeof *B->prev);
    B->deg = cgprop__alloc(g, m, sizeof *B->deg);
    if (!E->pool || !E->start || !E->n || !E->room || !B->head || !B->next || !B->prev || !B->deg)
        return CGPROP_ENOMEM;
    for (uint32_t r = 0; r < m; r++)
        for (uint32_t i = R->off[r]; i < R->off[r + 1]; i++)
            if (adj_push(g, E, r, R->col[i]) || adj_push(g, E, R->col[i], r)) return CGPROP_ENOMEM;
    for (uint32_t d = 0; d < m; d++) B->head[d] = NONE;
    for (uint32_t u = 0; u < m; u++) {
        B->deg[u] = adj_clean(E, u, seen, ++*tag);
        bucket_in(B, u);
    }
    return CGPROP_OK;
}

static void elim_free(const cgprop_graph *g, elim *E, buckets *B)
{
    cgprop__free(g, E->pool);
    cgprop__free(g, E->start);
    cgprop__free(g, E->n);
    cgprop__free(g, E->room);
    cgprop__free(g, B->head);
    cgprop__free(g, B->next);
    cgprop__free(g, B->prev);
    cgprop__free(g, B->deg);
}

/* A lower bound of the work any elimination order needs, found in about
 * linear time, so that a component far over its budget is turned away
 * before the ordering spends the budget finding out. Contract a member of
 * least degree into its neighbour of least degree, repeatedly: the largest
 * least degree met, delta, is at most the treewidth (a contraction yields a
 * minor, whose treewidth is no larger, and a graph's treewidth is at least
 * its least degree). Some step of every order then has a front of at least
 * delta members, which costs sq_sum(delta + 1) units at least (see the
 * bound in order()). Unlike elimination, contraction adds no edges, so this
 * stays cheap on graphs whose fill would be huge.
 *
 * Degrees are kept exact, except next to a member whose list is much longer
 * than the contracted one's (a hub, not read for the same reason as in
 * order()): there they are lowered as if every merge made a repeat, which
 * keeps each a lower bound and so the result a lower bound. A list is read
 * in full, and its degree made exact, when its member comes up as least.
 * Returns CGPROP_OK with *lb set (or stops at the first delta whose bound
 * passes the budget), CGPROP_ENOMEM. */
static int work_lower_bound(const cgprop_graph *g, const red *R, double budget, double *lb)
{
    uint32_t m = R->m;
    elim E = {0};
    buckets B = {0};
    uint32_t *rep = NULL, *nb = NULL;
    uint64_t *seen = NULL, tag = 0;
    int rc = CGPROP_ENOMEM;
    *lb = 0;
    rep = cgprop__alloc(g, m, sizeof *rep);
    nb = cgprop__alloc(g, m, sizeof *nb);
    seen = cgprop__calloc(g, m, sizeof *seen);
    if (!rep || !nb || !seen || elim_build(g, R, &E, &B, seen, &tag) != CGPROP_OK) goto out;
    for (uint32_t u = 0; u < m; u++) rep[u] = u;
    uint32_t mindeg = 0, delta = 0;
    for (uint32_t left = m; left > 0;) {
        while (B.head[mindeg] == NONE) mindeg++;
        uint32_t u = B.head[mindeg];
        bucket_out(&B, u);
        /* u's neighbours as they are now: names through rep (merged members
         * live on in their representative), without repeats or u itself. */
        uint64_t tu = ++tag;
        uint32_t d = 0, *a = E.pool + E.start[u];
        seen[u] = tu;
        for (uint32_t t = 0; t < E.n[u]; t++) {
            uint32_t x = a[t];
            while (rep[x] != x) x = rep[x] = rep[rep[x]];
            if (seen[x] == tu) continue;
            seen[x] = tu;
            a[d++] = x;
        }
        E.n[u] = d;
        if (d > B.deg[u]) { /* was a lower bound: take it up, pick again */
            B.deg[u] = d;
            bucket_in(&B, u);
            continue;
        }
        B.deg[u] = d;
        if (d > delta) {
            delta = d;
            *lb = sq_sum((double)delta + 1);
            if (budget > 0 && *lb > budget) break;
        }
        left--;
        if (d == 0) continue;
        memcpy(nb, a, (size_t)d * sizeof *nb);
        uint32_t w = nb[0];
        for (uint32_t t = 1; t < d; t++)
            if (B.deg[nb[t]] < B.deg[w]) w = nb[t];
        rep[u] = w;
        bucket_out(&B, w);
        if (E.n[w] <= 4 * (size_t)d + 16) {
            uint64_t tw = ++tag;
            uint32_t *b = E.pool + E.start[w], k = 0;
            seen[w] = tw;
            for (uint32_t t = 0; t < E.n[w]; t++) {
                uint32_t x = b[t];
                while (rep[x] != x) x = rep[x] = rep[rep[x]];
                if (seen[x] == tw) continue; /* u itself now reads as w */
                seen[x] = tw;
                b[k++] = x;
            }
            E.n[w] = k;
            for (uint32_t t = 0; t < d; t++) {
                uint32_t x = nb[t];
                if (x == w) continue;
                if (seen[x] == tw) { /* x saw both u and w: one neighbour fewer */
                    if (B.deg[x] == 0) continue;
                    bucket_out(&B, x);
                    B.deg[x]--;
                    bucket_in(&B, x);
                    if (B.deg[x] < mindeg) mindeg = B.deg[x];
                } else {
                    if (adj_push(g, &E, w, x)) goto out;
                }
            }
            B.deg[w] = E.n[w];
        } else {
            for (uint32_t t = 0; t < d; t++) {
                uint32_t x = nb[t];
                if (x == w) continue;
                if (adj_push(g, &E, w, x)) goto out;
                /* A lowered bound may already be 0 (x has u, so really not). */
                if (B.deg[x] == 0) continue;
                bucket_out(&B, x);
                B.deg[x]--;
                bucket_in(&B, x);
                if (B.deg[x] < mindeg) mindeg = B.deg[x];
            }
            if (B.deg[w]) B.deg[w]--;
        }
        bucket_in(&B, w);
        if (B.deg[w] < mindeg) mindeg = B.deg[w];
    }
    rc = CGPROP_OK;
out:
    elim_free(g, &E, &B);
    cgprop__free(g, rep);
    cgprop__free(g, nb);
    cgprop__free(g, seen);
    return rc;
}

/* What the ordering leaves for the numeric phases: the front of each step
 * (the later steps joined to it), ascending. The pair (k, j), k < j, is
 * slot soff[k] + (index of j in k's front). */
typedef struct symb {
    uint32_t *perm;  /* m: member eliminated at each step */
    uint32_t *pos;   /* m: step at which each member goes */
    size_t *soff;    /* m + 1 */
    uint32_t *sidx;
    uint32_t maxf;   /* largest front */
} symb;

/* Minimum degree on the explicit elimination graph: take a member of least
 * degree, join its neighbours into a clique, repeat. Joining reads each
 * neighbour's list to add only the pairs that are new, so degrees stay
 * exact; but a neighbour whose list is much longer than the front (a hub)
 * is not read, since a hub would then cost its whole degree each time one
 * of its many neighbours goes: it gets the front appended as it is, repeats
 * and all, and an upper bound for its degree, until its list is next read.
 * A step costs about the square of its front, which is what the budget
 * counts. */
static int order(const cgprop_graph *g, const red *R, double budget, symb *S, double *work)
{
    uint32_t m = R->m;
    elim E = {0};
    buckets B = {0};
    uint32_t *front = NULL;
    uint64_t *seen = NULL, tag = 0;
    size_t scap = (size_t)m + 64;
    int rc = CGPROP_ENOMEM;
    front = cgprop__alloc(g, m, sizeof *front);
    seen = cgprop__calloc(g, m, sizeof *seen);
    S->perm = cgprop__alloc(g, m, sizeof *S->perm);
    S->pos = cgprop__alloc(g, m, sizeof *S->pos);
    S->soff = cgprop__alloc(g, (size_t)m + 1, sizeof *S->soff);
    S->sidx = cgprop__alloc(g, scap, sizeof *S->sidx); /* never NULL, even when every front is empty */
    if (!front || !seen || !S->perm || !S->pos || !S->soff || !S->sidx ||
        elim_build(g, R, &E, &B, seen, &tag) != CGPROP_OK)
        goto out;
    S->soff[0] = 0;
    S->maxf = 0;
    uint32_t mindeg = 0;
    for (uint32_t s = 0; s < m; s++) {
        while (B.head[mindeg] == NONE) mindeg++;
        uint32_t v = B.head[mindeg];
        bucket_out(&B, v);
        uint32_t nf = adj_clean(&E, v, seen, ++tag);
        memcpy(front, E.pool + E.start[v], (size_t)nf * sizeof *front);
        *work += ((double)nf + 1) * ((double)nf + 1);
        /* What is left costs at least sum_{x=1..nf} x^2: the front becomes
         * a clique, and whenever one of its members goes, those of the
         * others still there are in its front. A component without small
         * separators is seen to be too big well before its work is done. */
        if (budget > 0 && *work + sq_sum(nf) > budget) {
            *work += sq_sum(nf);
            rc = CGPROP__WALK_OVER_BUDGET;
            goto out;
        }
        seen[v] = GONE;
        E.n[v] = 0;
        S->perm[s] = v;
        S->pos[v] = s;
        if (nf > S->maxf) S->maxf = nf;
        if (S->soff[s] + nf > scap) {
            size_t cap = scap * 2 > S->soff[s] + nf ? scap * 2 : S->soff[s] + nf;
            uint32_t *sidx = cgprop__realloc(g, S->sidx, cap, sizeof *sidx);
            if (!sidx) goto out;
            S->sidx = sidx;
            scap = cap;
        }
        memcpy(S->sidx + S->soff[s], front, (size_t)nf * sizeof *front);
        S->soff[s + 1] = S->soff[s] + nf;
        uint32_t left = m - s - 1; /* members not yet eliminated */
        for (uint32_t a = 0; a < nf; a++) {
            uint32_t u = front[a];
            bucket_out(&B, u);
            if (E.n[u] <= 4 * nf + 16) {
                uint64_t tu = ++tag;
                adj_clean(&E, u, seen, tu);
                for (uint32_t b = 0; b < nf; b++)
                    if (front[b] != u && seen[front[b]] != tu && adj_push(g, &E, u, front[b])) goto out;
                B.deg[u] = E.n[u];
            } else {
                for (uint32_t b = 0; b < nf; b++)
                    if (front[b] != u && adj_push(g, &E, u, front[b])) goto out;
                uint32_t d = B.deg[u] - 1 + (nf - 1);
                B.deg[u] = d < left ? d : left - 1;
                /* Most of a list twice its degree is repeats or gone. */
                if (E.n[u] > 2 * (size_t)B.deg[u] + 16) B.deg[u] = adj_clean(&E, u, seen, ++tag);
            }
            bucket_in(&B, u);
            if (B.deg[u] < mindeg) mindeg = B.deg[u];
        }
    }
    for (uint32_t k = 0; k < m; k++) {
        uint32_t *f = S->sidx + S->soff[k];
        size_t nf = S->soff[k + 1] - S->soff[k];
        for (size_t a = 0; a < nf; a++) f[a] = S->pos[f[a]];
        sort_u32(f, nf);
    }
    rc = CGPROP_OK;
out:
    elim_free(g, &E, &B);
    cgprop__free(g, front);
    cgprop__free(g, seen);
    return rc;
}

static void symb_free(const cgprop_graph *g, symb *S)
{
    cgprop__free(g, S->perm);
    cgprop__free(g, S->pos);
    cgprop__free(g, S->soff);
    cgprop__free(g, S->sidx);
}

/* Slots of the pairs (f[a], f[b]) for b = a + 1 .. nf - 1, all in the front
 * of step f[a] (after step k joined its front into a clique, each member's
 * later partners there are neighbours when it goes). Both lists ascend: a
 * merge when the front of f[a] is short, binary searches when it is long
 * next to what is looked for, so a long front costs only a logarithm. */
static void front_slots(const symb *S, const uint32_t *f, size_t nf, size_t a, uint32_t *out)
{
    size_t o = S->soff[f[a]], len = S->soff[f[a] + 1] - o, want = nf - a - 1;
    const uint32_t *h = S->sidx + o;
    size_t i = 0;
    if (len <= 8 * want) {
        for (size_t b = a + 1; b < nf; b++) {
            while (h[i] != f[b]) i++;
            out[b] = (uint32_t)(o + i);
        }
        return;
    }
    for (size_t b = a + 1; b < nf; b++) {
        size_t lo = i, hi = len;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (h[mid] < f[b]) lo = mid + 1;
            else hi = mid;
        }
        out[b] = (uint32_t)(o + lo);
        i = lo + 1;
    }
}

static int sparse_kernel(const cgprop_graph *g, const red *R, double budget, double *esc, double *work)
{
    uint32_t m = R->m;
    symb S = {0};
    double *up = NULL, *lo = NULL, *e = NULL, *d = NULL, *t = NULL;
    uint32_t *sl = NULL;
    unsigned char *trap = NULL;
    *work = 0;
    int rc = CGPROP_OK;
    if (budget > 0) {
        double lb;
        rc = work_lower_bound(g, R, budget, &lb);
        if (rc) goto out;
        if (lb > budget) {
            *work = lb;
            rc = CGPROP__WALK_OVER_BUDGET;
            goto out;
        }
    }
    rc = order(g, R, budget, &S, work);
    if (rc) goto out;
    rc = CGPROP_ENOMEM;
    size_t nslot = S.soff[m];
    /* Slot s of step k's front, for the pair (k, j): up[s] is row k's entry
     * in column j, lo[s] row j's entry in column k; first the matrix, then
     * the factors U and L, then the same entries of the inverse. */
    up = cgprop__calloc(g, nslot, sizeof *up);
    lo = cgprop__calloc(g, nslot, sizeof *lo);
    e = cgprop__alloc(g, m, sizeof *e);
    d = cgprop__alloc(g, m, sizeof *d);
    t = cgprop__alloc(g, 4 * (size_t)S.maxf, sizeof *t);
    sl = cgprop__alloc(g, S.maxf, sizeof *sl);
    trap = cgprop__calloc(g, m, 1);
    if (!up || !lo || !e || !d || !t || !sl || !trap) goto out;
    for (uint32_t r = 0; r < m; r++) {
        e[S.pos[r]] = R->exit[r];
        for (uint32_t i = R->off[r]; i < R->off[r + 1]; i++) {
            uint32_t pr = S.pos[r], pc = S.pos[R->col[i]];
            uint32_t pair[2] = {pr < pc ? pr : pc, pr < pc ? pc : pr}, s[2];
            front_slots(&S, pair, 2, 0, s);
            if (pr < pc) up[s[1]] += R->val[i];
            else lo[s[1]] += R->val[i];
        }
    }
    for (uint32_t k = 0; k < m; k++) {
        size_t o = S.soff[k], nf = S.soff[k + 1] - o;
        const uint32_t *f = S.sidx + o;
        double dk = e[k];
        for (size_t a = 0; a < nf; a++) dk += up[o + a];
        double ue;
        if (dk > 0) {
            ue = e[k] / dk;
            for (size_t a = 0; a < nf; a++) up[o + a] /= dk;
        } else { /* as in the dense kernel */
            trap[k] = 1;
            dk = 1;
            ue = 1;
        }
        d[k] = dk;
        for (size_t a = 0; a < nf; a++) {
            double pa = lo[o + a], ua = up[o + a];
            e[f[a]] += pa * ue;
            if (pa == 0 && ua == 0) continue;
            front_slots(&S, f, nf, a, sl);
            for (size_t b = a + 1; b < nf; b++) {
                up[sl[b]] += pa * up[o + b];
                lo[sl[b]] += lo[o + b] * ua;
            }
        }
        for (size_t a = 0; a < nf; a++) lo[o + a] /= dk;
    }
    /* Takahashi, last step first (the dense kernel's equations, over the
     * front only: the inverse's entries needed are those of the filled
     * pattern, and every pair of a front is in it). */
    for (uint32_t k = m; k-- > 0;) {
        size_t o = S.soff[k], nf = S.soff[k + 1] - o;
        const uint32_t *f = S.sidx + o;
        double *u = t, *l = t + nf, *zr = t + 2 * nf, *zc = t + 3 * nf;
        for (size_t a = 0; a < nf; a++) {
            u[a] = up[o + a];
            l[a] = lo[o + a];
            double zaa = d[f[a]]; /* already the inverse's diagonal, see below */
            zr[a] = u[a] * zaa;
            zc[a] = zaa * l[a];
        }
        for (size_t a = 0; a < nf; a++) {
            front_slots(&S, f, nf, a, sl);
            for (size_t b = a + 1; b < nf; b++) {
                double zab = up[sl[b]], zba = lo[sl[b]]; /* Z[f_a][f_b], Z[f_b][f_a] */
                zr[a] += u[b] * zba;
                zr[b] += u[a] * zab;
                zc[a] += zab * l[b];
                zc[b] += zba * l[a];
            }
        }
        double zkk = 1 / d[k];
        for (size_t a = 0; a < nf; a++) {
            up[o + a] = zr[a];
            lo[o + a] = zc[a];
            zkk += u[a] * zc[a];
        }
        /* d[k] is not read again as a pivot: steps before k read only the
         * inverse's diagonal from here on. */
        d[k] = zkk;
    }
    for (uint32_t r = 0; r < m; r++) {
        uint32_t k = S.pos[r];
        esc[r] = trap[k] ? 0 : 1 / d[k];
    }
    rc = CGPROP_OK;
out:
    symb_free(g, &S);
    cgprop__free(g, up);
    cgprop__free(g, lo);
    cgprop__free(g, e);
    cgprop__free(g, d);
    cgprop__free(g, t);
    cgprop__free(g, sl);
    cgprop__free(g, trap);
    return rc;
}

/* ---- the component ------------------------------------------------------- */

static bool bad_value(double x) { return !(x >= 0) || isinf(x); }

/* What a member is before the matrix is built (ridx), then its row there. */
#define ABSORB NONE           /* nobody enters it, or the chosen exit */
#define CLOSED (NONE - 1)     /* no step sequence of positive chance leads out */
#define OPEN (NONE - 2)       /* some does: a row of the matrix */

int cgprop__walk_scc_kernel(const cgprop_graph *g, uint32_t n, const uint32_t *in_off, const uint32_t *in_src,
                            const double *in_cost, const double *L, uint32_t exit_member, double budget,
                            uint32_t kernel, double *walk_out, double *work_out)
{
    double work = 0;
    if (work_out) *work_out = 0;
    if (!g || kernel > CGPROP__WALK_SPARSE) return CGPROP_EINVAL;
    if (n == 0) return CGPROP_OK;
    if (!in_off || !L || !walk_out || in_off[0] != 0 || n >= OPEN) return CGPROP_EINVAL;
    if (exit_member != NONE && exit_member >= n) return CGPROP_EINVAL;
    for (uint32_t f = 0; f < n; f++)
        if (in_off[f + 1] < in_off[f] || bad_value(L[f])) return CGPROP_EINVAL;
    uint32_t nnz = in_off[n];
    if (nnz && (!in_src || !in_cost)) return CGPROP_EINVAL;
    for (uint32_t i = 0; i < nnz; i++)
        if (in_src[i] >= n || bad_value(in_cost[i])) return CGPROP_EINVAL;

    double *scale = cgprop__alloc(g, n, sizeof *scale);
    double *ws = cgprop__alloc(g, n, sizeof *ws);
    uint32_t *ridx = cgprop__alloc(g, n, sizeof *ridx);
    uint32_t *oof = cgprop__calloc(g, (size_t)n + 1, sizeof *oof);
    uint32_t *odst = cgprop__alloc(g, nnz, sizeof *odst);
    uint32_t *queue = cgprop__alloc(g, n, sizeof *queue);
    double *esc = cgprop__alloc(g, n, sizeof *esc);
    red R = {0};
    int rc = CGPROP_ENOMEM;
    if (!scale || !ws || !ridx || !oof || !odst || !queue || !esc) goto out;

    /* W(f) = scale[f] * ws[f]: each row is divided by its largest entry
     * before it is summed, so that W overflows only where the cost entering
     * f does not fit a double anyway, and costs far below DBL_MIN * n keep
     * their ratios. */
    bool inflow = false;
    for (uint32_t f = 0; f < n; f++) {
        double mx = L[f];
        for (uint32_t i = in_off[f]; i < in_off[f + 1]; i++)
            if (in_src[i] != f && in_cost[i] > mx) mx = in_cost[i];
        double s = 0;
        if (mx > 0) {
            s = L[f] / mx;
            for (uint32_t i = in_off[f]; i < in_off[f + 1]; i++)
                if (in_src[i] != f) s += in_cost[i] / mx;
        }
        scale[f] = mx;
        ws[f] = s;
        if (L[f] > 0) inflow = true;
    }
    for (uint32_t f = 0; f < n; f++)
        ridx[f] = (scale[f] == 0 || (!inflow && f == exit_member)) ? ABSORB : CLOSED;
    /* Who can leave: from f the walk steps to its callers, so "a leads out"
     * makes every member a calls (with positive cost) lead out too. */
    for (uint32_t f = 0; f < n; f++)
        for (uint32_t i = in_off[f]; i < in_off[f + 1]; i++)
            if (in_src[i] != f && in_cost[i] > 0) oof[in_src[i] + 1]++;
    for (uint32_t f = 0; f < n; f++) oof[f + 1] += oof[f];
    uint32_t qn = 0;
    for (uint32_t f = 0; f < n; f++) {
        bool leaves = L[f] > 0;
        for (uint32_t i = in_off[f]; i < in_off[f + 1]; i++) {
            uint32_t a = in_src[i];
            if (a == f || !(in_cost[i] > 0)) continue;
            odst[oof[a]++] = f;
            if (ridx[a] == ABSORB) leaves = true;
        }
        if (leaves && ridx[f] == CLOSED) {
            ridx[f] = OPEN;
            queue[qn++] = f;
        }
    }
    for (uint32_t f = n; f > 0; f--) oof[f] = oof[f - 1]; /* ends back to starts */
    oof[0] = 0;
    for (uint32_t q = 0; q < qn; q++) {
        uint32_t a = queue[q];
        for (uint32_t j = oof[a]; j < oof[a + 1]; j++) {
            uint32_t f = odst[j];
            if (ridx[f] == CLOSED) {
                ridx[f] = OPEN;
                queue[qn++] = f;
            }
        }
    }

    /* The matrix: rows of the open members; a step to an absorbing or
     * closed member is a step that never comes back, so it joins the exit. */
    uint32_t m = 0, rn = 0;
    for (uint32_t f = 0; f < n; f++)
        if (ridx[f] == OPEN) ridx[f] = m++;
    for (uint32_t f = 0; f < n; f++)
        if (ridx[f] < m)
            for (uint32_t i = in_off[f]; i < in_off[f + 1]; i++)
                if (in_src[i] != f && in_cost[i] > 0 && ridx[in_src[i]] < m) rn++;
    R.m = m;
    R.off = cgprop__alloc(g, (size_t)m + 1, sizeof *R.off);
    R.col = cgprop__alloc(g, rn, sizeof *R.col);
    R.val = cgprop__alloc(g, rn, sizeof *R.val);
    R.exit = cgprop__alloc(g, m, sizeof *R.exit);
    if (!R.off || !R.col || !R.val || !R.exit) goto out;
    rn = 0;
    R.off[0] = 0;
    for (uint32_t f = 0; f < n; f++) {
        uint32_t r = ridx[f];
        if (r >= m) continue;
        double mx = scale[f], s = ws[f], ex = L[f] / mx;
        for (uint32_t i = in_off[f]; i < in_off[f + 1]; i++) {
            uint32_t a = in_src[i];
            if (a == f || !(in_cost[i] > 0)) continue;
            if (ridx[a] < m) {
                R.col[rn] = ridx[a];
                R.val[rn++] = in_cost[i] / mx / s;
            } else {
                ex += in_cost[i] / mx;
            }
        }
        R.exit[r] = ex / s;
        R.off[r + 1] = rn;
    }
    if (m) {
        bool dense = kernel == CGPROP__WALK_DENSE || (kernel == CGPROP__WALK_AUTO && m <= CGPROP__WALK_DENSE_MAX);
        rc = dense ? dense_kernel(g, &R, budget, esc, &work) : sparse_kernel(g, &R, budget, esc, &work);
        if (rc) goto out;
    }
    for (uint32_t f = 0; f < n; f++) {
        double W = scale[f] * ws[f], w;
        if (ridx[f] == ABSORB) w = W;
        else if (ridx[f] == CLOSED) w = 0;
        else w = scale[f] * (ws[f] * esc[ridx[f]]);
        /* [L, W] holds exactly; only rounding could step outside. */
        if (w > W) w = W;
        if (w < L[f]) w = L[f];
        walk_out[f] = w;
    }
    rc = CGPROP_OK;
out:
    if (work_out) *work_out = work;
    cgprop__free(g, scale);
    cgprop__free(g, ws);
    cgprop__free(g, ridx);
    cgprop__free(g, oof);
    cgprop__free(g, odst);
    cgprop__free(g, queue);
    cgprop__free(g, esc);
    cgprop__free(g, R.off);
    cgprop__free(g, R.col);
    cgprop__free(g, R.val);
    cgprop__free(g, R.exit);
    return rc;
}

int cgprop__walk_scc(const cgprop_graph *g, uint32_t n, const uint32_t *in_off, const uint32_t *in_src,
                     const double *in_cost, const double *L, uint32_t exit_member, double budget,
                     double *walk_out, double *work_out)
{
    return cgprop__walk_scc_kernel(g, n, in_off, in_src, in_cost, L, exit_member, budget, CGPROP__WALK_AUTO,
                                   walk_out, work_out);
}

/* ---- the analysis: every cycle that has members to estimate -------------- */

int cgprop__walk_members(cgprop_graph *g, const uint8_t *want, double budget_per_member, double *walk,
                         uint8_t *state)
{
    const cgprop__adj *adj = cgprop__get_adj(g);
    if (!adj) return CGPROP_ENOMEM;
    uint32_t K = g->K, ncyc = cgprop__cycles_count(g);
    uint32_t *loc = NULL, *off = NULL, *src = NULL;
    double *cost = NULL, *L = NULL, *out = NULL;
    int rc = CGPROP_OK;
    for (uint32_t cy = 0; cy < ncyc && rc == CGPROP_OK; cy++) {
        uint32_t n;
        const uint32_t *mem = cgprop__cycles_members(g, cy, &n);
        bool any = false;
        for (uint32_t i = 0; i < n && !any; i++)
            for (uint32_t k = 0; k < K && !any; k++) any = want[(size_t)mem[i] * K + k] != 0;
        if (!any) continue;
        /* Small and mid-sized cycles get the budget of a cycle of
         * CGPROP__WALK_BUDGET_MEMBERS members: the work a real program's
         * cycle of a few hundred members needs costs milliseconds, while a
         * cycle without small separators is given up on early. */
        double nb = n > CGPROP__WALK_BUDGET_MEMBERS ? (double)n : (double)CGPROP__WALK_BUDGET_MEMBERS;
        double budget = budget_per_member > 0 ? budget_per_member * nb : 0;
        /* Past CGPROP__WALK_MAX_MEMBERS even proving the work too large
         * costs seconds (a 185,000-member random cycle: about one), more
         * than the whole report without the walk: such a cycle is not
         * attempted under a budget, nor are its calls listed for it (a
         * search per call, a twentieth of that report). */
        if (budget > 0 && n > CGPROP__WALK_MAX_MEMBERS) {
            for (uint32_t k = 0; k < K; k++)
                for (uint32_t i = 0; i < n; i++)
                    if (want[(size_t)mem[i] * K + k]) state[(size_t)mem[i] * K + k] = CGPROP__WALK_BUDGET;
            continue;
        }
        /* Calls into each member from the others, by callee; members are
         * found by binary search in the sorted member list, so nothing of
         * the size of the whole graph is needed. */
        size_t m = 0;
        for (uint32_t i = 0; i < n; i++) m += adj->in_off[mem[i] + 1] - adj->in_off[mem[i]];
        cgprop__free(g, loc);
        cgprop__free(g, off);
        cgprop__free(g, src);
        cgprop__free(g, cost);
        cgprop__free(g, L);
        cgprop__free(g, out);
        loc = cgprop__alloc(g, m ? m : 1, sizeof *loc); /* call id of each kept entry */
        off = cgprop__alloc(g, (size_t)n + 1, sizeof *off);
        src = cgprop__alloc(g, m ? m : 1, sizeof *src);
        cost = cgprop__alloc(g, m ? m : 1, sizeof *cost);
        L = cgprop__alloc(g, n, sizeof *L);
        out = cgprop__alloc(g, n, sizeof *out);
        if (!loc || !off || !src || !cost || !L || !out) {
            rc = CGPROP_ENOMEM;
            break;
        }
        size_t at = 0;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t f = mem[i];
            off[i] = (uint32_t)at;
            for (uint32_t j = adj->in_off[f]; j < adj->in_off[f + 1]; j++) {
                uint32_t e = adj->in_e[j], a = g->ecaller[e];
                if (a == f || cgprop__cycles_of(g, a) != cy) continue;
                /* lower bound of a in mem */
                uint32_t lo = 0, hi = n;
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (mem[mid] < a) lo = mid + 1;
                    else hi = mid;
                }
                loc[at] = e;
                src[at++] = lo;
            }
        }
        off[n] = (uint32_t)at;
        for (uint32_t k = 0; k < K && rc == CGPROP_OK; k++) {
            bool anyk = false;
            for (uint32_t i = 0; i < n; i++) anyk |= want[(size_t)mem[i] * K + k] != 0;
            if (!anyk) continue;
            double inflow = 0;
            for (uint32_t i = 0; i < n; i++) {
                uint32_t f = mem[i];
                double l = (double)g->spont_cost[(size_t)f * K + k];
                for (uint32_t j = adj->in_off[f]; j < adj->in_off[f + 1]; j++) {
                    uint32_t e = adj->in_e[j], a = g->ecaller[e];
                    if (a != f && cgprop__cycles_of(g, a) != cy) l += (double)g->ecost[(size_t)e * K + k];
                }
                L[i] = l;
                inflow += l;
            }
            for (size_t i = 0; i < at; i++) cost[i] = (double)g->ecost[(size_t)loc[i] * K + k];
            int r = cgprop__walk_scc(g, n, off, src, cost, L, inflow > 0 ? UINT32_MAX : 0, budget, out, NULL);
            /* The arrays are well formed and every figure is a finite
             * non-negative sum of costs: only memory can run out. */
            if (r == CGPROP_ENOMEM || r == CGPROP_EINVAL) {
                rc = CGPROP_ENOMEM;
                break;
            }
            for (uint32_t i = 0; i < n; i++) {
                size_t fk = (size_t)mem[i] * K + k;
                if (!want[fk]) continue;
                state[fk] = r == CGPROP__WALK_OVER_BUDGET ? CGPROP__WALK_BUDGET : CGPROP__WALK_DONE;
                walk[fk] = r == CGPROP__WALK_OVER_BUDGET ? 0 : out[i];
            }
        }
    }
    cgprop__free(g, loc);
    cgprop__free(g, off);
    cgprop__free(g, src);
    cgprop__free(g, cost);
    cgprop__free(g, L);
    cgprop__free(g, out);
    return rc;
}
int cgprop_graph_set_estimate(cgprop_graph *g, uint32_t which, double budget_per_member)
{
    if (!g) return CGPROP_EINVAL;
    if (which != CGPROP_EST_MIDPOINT && which != CGPROP_EST_WALK && which != CGPROP_EST_HEURISTIC)
        return cgprop__err(g, CGPROP_EINVAL, "set_estimate: %u is not midpoint, walk or heuristic", which);
    if (!(budget_per_member >= 0))
        return cgprop__err(g, CGPROP_EINVAL, "set_estimate: the walk's budget must be 0 (no limit) or positive");
    g->est_mode = which;
    g->walk_budget = budget_per_member;
    return cgprop__ok(g);
}

/* ---- the walk's slot in the registry ------------------------------------- */

/* The walk of every cycle member bounded by measured calls alone, beside
 * the bounds it was built for, and the estimate total shows with it. */
typedef struct walk_res {
    uint32_t K, mode;
    double *walk;   /* nn * K, inside the member's interval */
    uint8_t *state; /* nn * K: CGPROP__WALK_* */
} walk_res;

static void res_destroy(const cgprop_graph *g, walk_res *r)
{
    if (!r) return;
    cgprop__free(g, r->walk);
    cgprop__free(g, r->state);
    cgprop__free(g, r);
}

void cgprop__walk_destroy(const cgprop_graph *g, void *res) { res_destroy(g, res); }

int cgprop__walk_build(cgprop_graph *g, const cgprop__bounds *b, void **out)
{
    *out = NULL;
    uint32_t K = g->K;
    size_t nk = (size_t)g->nn * K;
    walk_res *r = cgprop__calloc(g, 1, sizeof *r);
    uint8_t *want = cgprop__calloc(g, nk ? nk : 1, 1);
    double *lo = cgprop__alloc(g, nk ? nk : 1, sizeof *lo), *hi = cgprop__alloc(g, nk ? nk : 1, sizeof *hi);
    if (!r || !want || !lo || !hi) goto nomem;
    r->K = K;
    r->mode = g->est_mode;
    r->walk = cgprop__calloc(g, nk ? nk : 1, sizeof *r->walk);
    r->state = cgprop__calloc(g, nk ? nk : 1, 1);
    if (!r->walk || !r->state) goto nomem;
    bool any = false;
    for (size_t fk = 0; fk < nk; fk++)
        if (cgprop__bounds_wants_walk(b, fk, &lo[fk], &hi[fk])) {
            want[fk] = 1;
            any = true;
        }
    if (any && r->mode != CGPROP_EST_HEURISTIC &&
        cgprop__walk_members(g, want, g->walk_budget, r->walk, r->state) != CGPROP_OK)
        goto nomem;
    /* The walk lies in [L, U] on consistent data; the interval's lower end
     * may also include the self cost, so keep the walk inside it too. */
    for (size_t fk = 0; fk < nk; fk++) {
        if (r->state[fk] != CGPROP__WALK_DONE) continue;
        double w = r->walk[fk];
        r->walk[fk] = w < lo[fk] ? lo[fk] : w > hi[fk] ? hi[fk] : w;
    }
    cgprop__free(g, want);
    cgprop__free(g, lo);
    cgprop__free(g, hi);
    *out = r;
    return CGPROP_OK;
nomem:
    res_destroy(g, r);
    cgprop__free(g, want);
    cgprop__free(g, lo);
    cgprop__free(g, hi);
    return CGPROP_ENOMEM;
}

uint32_t cgprop__walk_get(const cgprop_graph *g, uint32_t node, uint32_t k, double *walk, uint32_t *mode)
{
    const walk_res *r = cgprop__res(g, CGPROP__A_WALK);
    *walk = 0;
    *mode = CGPROP_EST_HEURISTIC;
    if (!r) return CGPROP__WALK_NONE;
    size_t fk = (size_t)node * r->K + k;
    *walk = r->walk[fk];
    *mode = r->mode;
    return r->state[fk];
}
