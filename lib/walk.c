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

#include <float.h>
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

/* A set of unordered member pairs (the filled pattern), each with a slot
 * number once the order is known. Key: smaller id high, larger low; never 0
 * because the two differ. */
typedef struct pairs {
    uint64_t *key;
    uint32_t *val;
    size_t cap, cnt; /* cap: power of two */
} pairs;

static uint64_t pair_key(uint32_t a, uint32_t b)
{
    return a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
}

static size_t pair_home(uint64_t key, size_t cap)
{
    return (size_t)cgprop__hash_pair((uint32_t)(key >> 32), (uint32_t)key) & (cap - 1);
}

/* The slot index holding key, or the empty one where it would go. */
static size_t pair_find(const pairs *h, uint64_t key)
{
    size_t i = pair_home(key, h->cap);
    while (h->key[i] && h->key[i] != key) i = (i + 1) & (h->cap - 1);
    return i;
}

static int pair_grow(const cgprop_graph *g, pairs *h)
{
    size_t cap = h->cap ? h->cap * 2 : 64;
    uint64_t *key = cgprop__calloc(g, cap, sizeof *key);
    uint32_t *val = cgprop__alloc(g, cap, sizeof *val);
    if (!key || !val) {
        cgprop__free(g, key);
        cgprop__free(g, val);
        return CGPROP_ENOMEM;
    }
    pairs nh = {key, val, cap, h->cnt};
    for (size_t i = 0; i < h->cap; i++)
        if (h->key[i]) {
            size_t j = pair_find(&nh, h->key[i]);
            key[j] = h->key[i];
            val[j] = h->val[i];
        }
    cgprop__free(g, h->key);
    cgprop__free(g, h->val);
    *h = nh;
    return CGPROP_OK;
}

/* 1 when the pair is new (and now in), 0 when it was there, < 0 on error. */
static int pair_add(const cgprop_graph *g, pairs *h, uint64_t key)
{
    if ((h->cnt + 1) * 2 > h->cap && pair_grow(g, h)) return CGPROP_ENOMEM;
    size_t i = pair_find(h, key);
    if (h->key[i]) return 0;
    h->key[i] = key;
    h->val[i] = 0;
    h->cnt++;
    return 1;
}

/* The slot of a pair known to be in the set. */
static uint32_t pair_slot(const pairs *h, uint32_t a, uint32_t b)
{
    return h->val[pair_find(h, pair_key(a, b))];
}

/* The elimination graph of the ordering: each member's neighbours in one
 * pool; a list that fills up moves to the pool's end with twice the room.
 * Lists keep eliminated neighbours until their owner is eliminated (they are
 * skipped then): removing them would mean searching every neighbour's list,
 * which costs a hub its whole degree each time a neighbour goes. */
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

/* Degree buckets: doubly linked lists of the members not yet eliminated by
 * their number of neighbours not yet eliminated. */
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

/* What the ordering leaves for the numeric phases. */
typedef struct symb {
    uint32_t *perm;  /* m: member eliminated at each step */
    uint32_t *pos;   /* m: step at which each member goes */
    size_t *soff;    /* m + 1: front of step k (without k) is sidx[soff[k] ..] */
    uint32_t *sidx;  /* steps, ascending within a front */
    uint32_t maxf;   /* largest front (without its pivot) */
    pairs pat;       /* every pair of the filled pattern, val = its slot */
} symb;

/* Minimum degree on the explicit elimination graph: take a member with the
 * fewest neighbours, join its neighbours into a clique, repeat. Each step
 * costs about the square of its front (the clique's pairs are tested in the
 * pair set), which is what the budget counts. */
static int order(const cgprop_graph *g, const red *R, double budget, symb *S, double *work)
{
    uint32_t m = R->m;
    elim E = {0};
    buckets B = {0};
    unsigned char *dead = NULL;
    uint32_t *front = NULL;
    size_t scap = 0;
    int rc = CGPROP_ENOMEM;
    E.start = cgprop__alloc(g, m, sizeof *E.start);
    E.n = cgprop__calloc(g, m, sizeof *E.n);
    E.room = cgprop__calloc(g, m, sizeof *E.room);
    B.head = cgprop__alloc(g, m, sizeof *B.head);
    B.next = cgprop__alloc(g, m, sizeof *B.next);
    B.prev = cgprop__alloc(g, m, sizeof *B.prev);
    B.deg = cgprop__calloc(g, m, sizeof *B.deg);
    dead = cgprop__calloc(g, m, 1);
    front = cgprop__alloc(g, m, sizeof *front);
    S->perm = cgprop__alloc(g, m, sizeof *S->perm);
    S->pos = cgprop__alloc(g, m, sizeof *S->pos);
    S->soff = cgprop__alloc(g, (size_t)m + 1, sizeof *S->soff);
    scap = (size_t)m + 64; /* never NULL, even when every front is empty */
    S->sidx = cgprop__alloc(g, scap, sizeof *S->sidx);
    if (!S->sidx || !E.start || !E.n || !E.room || !B.head || !B.next || !B.prev || !B.deg || !dead || !front || !S->perm ||
        !S->pos || !S->soff)
        goto out;
    for (uint32_t r = 0; r < m; r++)
        for (uint32_t i = R->off[r]; i < R->off[r + 1]; i++) {
            uint32_t c = R->col[i];
            int added = pair_add(g, &S->pat, pair_key(r, c));
            if (added < 0) goto out;
            if (added) {
                if (adj_push(g, &E, r, c) || adj_push(g, &E, c, r)) goto out;
                B.deg[r]++;
                B.deg[c]++;
            }
        }
    for (uint32_t d = 0; d < m; d++) B.head[d] = NONE;
    for (uint32_t u = 0; u < m; u++) bucket_in(&B, u);
    S->soff[0] = 0;
    S->maxf = 0;
    uint32_t mindeg = 0;
    for (uint32_t s = 0; s < m; s++) {
        while (B.head[mindeg] == NONE) mindeg++;
        uint32_t v = B.head[mindeg];
        bucket_out(&B, v);
        uint32_t nf = 0;
        for (uint32_t t = 0; t < E.n[v]; t++) {
            uint32_t u = E.pool[E.start[v] + t];
            if (!dead[u]) front[nf++] = u;
        }
        *work += ((double)nf + 1) * ((double)nf + 1);
        if (budget > 0 && *work > budget) {
            rc = CGPROP__WALK_OVER_BUDGET;
            goto out;
        }
        dead[v] = 1;
        S->perm[s] = v;
        S->pos[v] = s;
        if (nf > S->maxf) S->maxf = nf;
        if (S->soff[s] + nf > scap) {
            size_t cap = scap * 2 > S->soff[s] + nf ? scap * 2 : S->soff[s] + nf + 64;
            uint32_t *sidx = cgprop__realloc(g, S->sidx, cap, sizeof *sidx);
            if (!sidx) goto out;
            S->sidx = sidx;
            scap = cap;
        }
        memcpy(S->sidx + S->soff[s], front, (size_t)nf * sizeof *front);
        S->soff[s + 1] = S->soff[s] + nf;
        for (uint32_t a = 0; a < nf; a++) {
            bucket_out(&B, front[a]);
            B.deg[front[a]]--;
        }
        for (uint32_t a = 0; a < nf; a++)
            for (uint32_t b = a + 1; b < nf; b++) {
                uint32_t x = front[a], y = front[b];
                int added = pair_add(g, &S->pat, pair_key(x, y));
                if (added < 0) goto out;
                if (added) {
                    if (adj_push(g, &E, x, y) || adj_push(g, &E, y, x)) goto out;
                    B.deg[x]++;
                    B.deg[y]++;
                }
            }
        for (uint32_t a = 0; a < nf; a++) {
            bucket_in(&B, front[a]);
            if (B.deg[front[a]] < mindeg) mindeg = B.deg[front[a]];
        }
    }
    /* Fronts as steps, ascending, and each pair's slot: the pair (k, j) with
     * k eliminated first sits in step k's front. */
    for (uint32_t k = 0; k < m; k++) {
        uint32_t *f = S->sidx + S->soff[k];
        size_t nf = S->soff[k + 1] - S->soff[k];
        for (size_t a = 0; a < nf; a++) f[a] = S->pos[f[a]];
        sort_u32(f, nf);
        for (size_t a = 0; a < nf; a++)
            S->pat.val[pair_find(&S->pat, pair_key(S->perm[k], S->perm[f[a]]))] = (uint32_t)(S->soff[k] + a);
    }
    rc = CGPROP_OK;
out:
    cgprop__free(g, E.pool);
    cgprop__free(g, E.start);
    cgprop__free(g, E.n);
    cgprop__free(g, E.room);
    cgprop__free(g, B.head);
    cgprop__free(g, B.next);
    cgprop__free(g, B.prev);
    cgprop__free(g, B.deg);
    cgprop__free(g, dead);
    cgprop__free(g, front);
    return rc;
}

static void symb_free(const cgprop_graph *g, symb *S)
{
    cgprop__free(g, S->perm);
    cgprop__free(g, S->pos);
    cgprop__free(g, S->soff);
    cgprop__free(g, S->sidx);
    cgprop__free(g, S->pat.key);
    cgprop__free(g, S->pat.val);
}

static int sparse_kernel(const cgprop_graph *g, const red *R, double budget, double *esc, double *work)
{
    uint32_t m = R->m;
    symb S = {0};
    double *up = NULL, *lo = NULL, *e = NULL, *d = NULL, *t = NULL;
    unsigned char *trap = NULL;
    *work = 0;
    int rc = order(g, R, budget, &S, work);
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
    trap = cgprop__calloc(g, m, 1);
    if (!up || !lo || !e || !d || !t || !trap) goto out;
    for (uint32_t r = 0; r < m; r++) {
        e[S.pos[r]] = R->exit[r];
        for (uint32_t i = R->off[r]; i < R->off[r + 1]; i++) {
            uint32_t c = R->col[i], s = pair_slot(&S.pat, r, c);
            if (S.pos[r] < S.pos[c]) up[s] += R->val[i];
            else lo[s] += R->val[i];
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
            double pa = lo[o + a];
            if (pa == 0 && up[o + a] == 0) continue;
            e[f[a]] += pa * ue;
            for (size_t b = a + 1; b < nf; b++) {
                uint32_t s = pair_slot(&S.pat, S.perm[f[a]], S.perm[f[b]]);
                up[s] += pa * up[o + b];
                lo[s] += lo[o + b] * up[o + a];
            }
        }
        for (size_t a = 0; a < nf; a++) lo[o + a] /= dk;
    }
    /* Takahashi, last step first (the dense kernel's equations, over the
     * front only: the pattern of the inverse's needed entries is the filled
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
        for (size_t a = 0; a < nf; a++)
            for (size_t b = a + 1; b < nf; b++) {
                uint32_t s = pair_slot(&S.pat, S.perm[f[a]], S.perm[f[b]]);
                double zab = up[s], zba = lo[s]; /* Z[f_a][f_b], Z[f_b][f_a] */
                zr[a] += u[b] * zba;
                zr[b] += u[a] * zab;
                zc[a] += zab * l[b];
                zc[b] += zba * l[a];
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
        /* Small and mid-sized cycles get the budget of a cycle of
         * CGPROP__WALK_BUDGET_MEMBERS members: the work a real program's
         * cycle of a few hundred members needs costs milliseconds, while a
         * cycle without small separators is given up on early. */
        double nb = n > CGPROP__WALK_BUDGET_MEMBERS ? (double)n : (double)CGPROP__WALK_BUDGET_MEMBERS;
        double budget = budget_per_member > 0 ? budget_per_member * nb : 0;
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
