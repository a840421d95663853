/* Callgrind reader: strings, name compression ids and mangled names
 * (callgrind.h has the map of the reader). */
#include "callgrind.h"

#include <stdio.h>

const char *const cgprop__cg_space_name[3] = {"object", "file", "function"};

/* ---- scratch memory (through the strings graph's allocator) ---- */

int cgprop__cg_scratch_reserve(cg *c, size_t need)
{
    if (need <= c->scratch_cap) return CGPROP_OK;
    size_t cap = c->scratch_cap ? c->scratch_cap : 256;
    while (cap < need) {
        if (cap > SIZE_MAX / 2) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "name too long");
        cap *= 2;
    }
    char *p = cgprop__mem_realloc(&c->mem, c->scratch, cap, 1);
    if (!p) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
    c->scratch = p;
    c->scratch_cap = cap;
    return CGPROP_OK;
}

/* ---- hash sets with the tag in the slot ----
 *
 * A slot holds (32-bit hash << 32) | (id + 1), 0 when empty; the hash also
 * gives the home slot, so growing never looks at the keys, and a probe
 * looks at a key only when its hash matches: one cache miss per look-up
 * where a table of bare ids has one per occupied slot it passes (names of
 * one length are common: function_1234_impl). At most half full. */

/* Room for one more entry; CGPROP_ENOMEM if there is none. */
int cgprop__cg_tset_reserve(cg *c, struct tset *t)
{
    if ((uint64_t)t->n * 2 + 2 <= t->cap) return CGPROP_OK;
    if (t->cap >= 0x80000000u) return CGPROP_ENOMEM;
    uint32_t ncap = t->cap ? t->cap * 2 : 2 * c->est_fn, mask = ncap - 1;
    uint64_t *ns = cgprop__mem_calloc(&c->mem, ncap, sizeof *ns);
    if (!ns) return CGPROP_ENOMEM;
    for (uint32_t i = 0; i < t->cap; i++) {
        uint64_t v = t->slot[i];
        if (!v) continue;
        uint32_t j = (uint32_t)(v >> 32) & mask;
        while (ns[j]) j = (j + 1) & mask;
        ns[j] = v;
    }
    cgprop__mem_free(&c->mem, t->slot);
    t->slot = ns;
    t->cap = ncap;
    return CGPROP_OK;
}


static uint32_t str_hash(const char *p, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return (uint32_t)(h >> 32) ^ (uint32_t)h;
}


/* ---- strings ---- */

/* A string id for the name s[0 .. n). With `dedupe`, the same bytes always
 * get the same id; without, a new id, and the name set is not looked at.
 * Function names defined with a compressed id are interned without: the
 * ids already make a name one string (callgrind defines each once a part),
 * and raw functions that do share a name meet in pass 2, whose function
 * keys are the names' bytes. Sparing the probe spares a cache miss a name. */
int cgprop__cg_intern_as(cg *c, const char *s, size_t n, bool dedupe, uint32_t *out)
{
    /* Keys show the name after the last TAB, so names must hold none. */
    if (memchr(s, '\t', n)) {
        int rc = cgprop__cg_scratch_reserve(c, n);
        if (rc) return rc;
        for (size_t i = 0; i < n; i++) c->scratch[i] = s[i] == '\t' ? ' ' : s[i];
        s = c->scratch;
    }
    uint32_t h = dedupe ? str_hash(s, n) : 0;
    struct tset *t = &c->sset;
    if (dedupe && t->cap) {
        uint32_t mask = t->cap - 1;
        for (uint32_t j = h & mask; t->slot[j]; j = (j + 1) & mask) {
            uint64_t v = t->slot[j];
            if ((uint32_t)(v >> 32) != h) continue;
            uint32_t id = (uint32_t)v - 1;
            if (c->sent[id].len == n && memcmp(c->sbuf + c->sent[id].off, s, n) == 0) {
                *out = id;
                return CGPROP_OK;
            }
        }
    }
    /* The limits of a graph's keys, which these names become part of. */
    if (n > UINT32_MAX - 1 || c->nstr >= UINT32_MAX - 1)
        return cgprop__read_fail(c->err, n > UINT32_MAX - 1 ? CGPROP_EINVAL : CGPROP_EOVERFLOW, c->line,
                                 "too many distinct names");
    if (c->nstr == c->sentcap) {
        uint32_t cap = c->sentcap ? (c->sentcap > UINT32_MAX / 2 ? UINT32_MAX : c->sentcap * 2) : c->est_fn;
        struct str_ent *e = cgprop__mem_realloc(&c->mem, c->sent, cap, sizeof *e);
        if (!e) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->sent = e;
        c->sentcap = cap;
    }
    if (!c->sbuf || c->scap - c->sused < n) { /* allocated even for an empty first name */
        size_t cap = c->scap ? c->scap : 32 * (size_t)c->est_fn;
        while (cap - c->sused < n) {
            if (cap > SIZE_MAX / 2) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
            cap *= 2;
        }
        char *b = cgprop__mem_realloc(&c->mem, c->sbuf, cap, 1);
        if (!b) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->sbuf = b;
        c->scap = cap;
    }
    if (dedupe && cgprop__cg_tset_reserve(c, t)) return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
    uint32_t id = c->nstr++;
    memcpy(c->sbuf + c->sused, s, n);
    c->sent[id].off = c->sused;
    c->sent[id].len = (uint32_t)n;
    c->sent[id].raw = NONE_SID;
    c->sused += n;
    if (dedupe) tset_put(t, h, id);
    *out = id;
    return CGPROP_OK;
}

static int intern(cg *c, const char *s, size_t n, uint32_t *out) { return cgprop__cg_intern_as(c, s, n, true, out); }

static uint64_t id_key(int space, uint32_t id) { return (uint64_t)space << 32 | id; }

/* Direct-table bound: memory stays proportional to the input read so far,
 * at most 64 bytes per line (a function id's entry is 16 bytes, the others
 * 4). Callgrind numbers names from 1 as it first writes them, far below. */
static bool id_direct(const cg *c, int space, uint32_t id)
{
    uint64_t per_line = space == SP_FN ? 4 : 16;
    return id < (1u << 16) + per_line * c->line;
}

int cgprop__cg_id_define(cg *c, int space, uint32_t id, uint32_t sid)
{
    if (space == SP_FN && id_direct(c, space, id)) {
        void *p = c->fdir;
        if (!cgprop__grow(&c->mem, &p, &c->fdircap, (size_t)id + 1, sizeof *c->fdir, c->est_fn))
            return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->fdir = p;
        c->fdir[id].sid1 = sid + 1; /* a redefinition wins, as in KCachegrind */
        c->fdir[id].raw = UINT32_MAX;
        return CGPROP_OK;
    }
    if (id_direct(c, space, id)) {
        void *p = c->dir[space];
        if (!cgprop__grow(&c->mem, &p, &c->dircap[space], (size_t)id + 1, sizeof *c->dir[space], 1024))
            return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
        c->dir[space] = p;
        c->dir[space][id] = sid + 1; /* a redefinition wins, as in KCachegrind */
        return CGPROP_OK;
    }
    c->any_hashed_id = true;
    /* A redefinition wins, as in KCachegrind. */
    if (cgprop__u64map_put(&c->mem, &c->ids, id_key(space, id), sid) != CGPROP_OK)
        return cgprop__read_fail(c->err, CGPROP_ENOMEM, c->line, "out of memory");
    return CGPROP_OK;
}

static bool id_lookup(cg *c, int space, uint32_t id, uint32_t *sid)
{
    if (space == SP_FN && id < c->fdircap && c->fdir[id].sid1) {
        *sid = c->fdir[id].sid1 - 1;
        return true;
    }
    if (space != SP_FN && id < c->dircap[space] && c->dir[space][id]) {
        *sid = c->dir[space][id] - 1;
        return true;
    }
    if (!c->any_hashed_id) return false;
    return cgprop__u64map_get(&c->ids, id_key(space, id), sid);
}

/* --compress-mangled names refer to other names: "(3)'2'(5)". Expand each
 * quote-separated segment that is exactly "(id)" of a defined function. */
static int expand_mangled(cg *c, const char *s, size_t n, const char **res, size_t *res_len)
{
    size_t outlen = 0;
    size_t i = 0;
    /* Two rounds: size, then copy. Segments are short; keep it simple. */
    for (int round = 0; round < 2; round++) {
        size_t o = 0;
        i = 0;
        while (i <= n) {
            size_t j = i;
            while (j < n && s[j] != '\'') j++;
            const char *seg = s + i;
            size_t seglen = j - i;
            uint32_t sid;
            const char *rep = seg;
            size_t replen = seglen;
            if (seglen >= 3 && seg[0] == '(' && seg[seglen - 1] == ')') {
                size_t k = 1;
                uint64_t id;
                if (cgprop__parse_u64(seg, seglen - 1, &k, false, &id) == CGPROP__NUM_OK && k == seglen - 1 &&
                    id <= UINT32_MAX && id_lookup(c, SP_FN, (uint32_t)id, &sid))
                    rep = str_of(c, sid, &replen);
            }
            if (round == 1) memcpy(c->scratch + o, rep, replen);
            o += replen;
            if (j < n) {
                if (round == 1) c->scratch[o] = '\'';
                o++;
            }
            i = j + 1;
        }
        if (round == 0) {
            outlen = o;
            /* A name may refer to earlier names, each of which may do the
             * same: a few hundred lines that each name the one before twice
             * would spell names of gigabytes (fuzzing found 7 KB that asked
             * for more than 2 GB). What the references add to the names
             * (beyond the bytes they replace) may come to 1 MiB and 4 KiB
             * a line read in all, no more: real profiles' names average a
             * few hundred bytes a line, and a name that refers to nothing
             * adds nothing however long it is. By lines, not bytes, so
             * that the same profile indented or padded is read alike. */
            uint64_t cap = ((uint64_t)1 << 20) + (c->line < ((uint64_t)1 << 40) ? c->line : ((uint64_t)1 << 40)) * 4096;
            uint64_t grew = outlen > n ? outlen - n : 0;
            if (grew > cap - c->mangled_total)
                return cgprop__read_fail(c->err, CGPROP_EFORMAT, c->line,
                                         "names spelt out from their references (--compress-mangled) grow by more "
                                         "than 4 KiB a line: the references nest too deep");
            c->mangled_total += grew;
            /* The scratch may hold s itself only if s came from it: it never does here. */
            int rc = cgprop__cg_scratch_reserve(c, outlen);
            if (rc) return rc;
        }
    }
    *res = c->scratch;
    *res_len = outlen;
    return CGPROP_OK;
}

/* Parse the value of a name line: "(id) name", "(id)" or "name". */
int cgprop__cg_parse_name(cg *c, int space, const char *v, size_t n, uint32_t *sid)
{
    if (n >= 3 && v[0] == '(' && cgprop__is_digit(v[1])) {
        size_t i = 1;
        uint64_t id;
        int nr = cgprop__parse_u64(v, n, &i, false, &id);
        if (nr == CGPROP__NUM_OVERFLOW || (nr == CGPROP__NUM_OK && i < n && v[i] == ')' && id > UINT32_MAX))
            return fail(c, CGPROP_EFORMAT, "%s id too large", cgprop__cg_space_name[space]);
        if (nr == CGPROP__NUM_OK && i < n && v[i] == ')') {
            i++;
            while (i < n && cgprop__is_space(v[i])) i++;
            if (i == n) {
                if (!id_lookup(c, space, (uint32_t)id, sid)) {
                    char msg[96];
                    snprintf(msg, sizeof msg, "undefined %s id (%llu)", cgprop__cg_space_name[space], (unsigned long long)id);
                    return fail(c, CGPROP_EFORMAT, "%s", msg);
                }
                return CGPROP_OK;
            }
            const char *name = v + i;
            size_t len = n - i;
            int rc;
            if (space == SP_FN && len >= 3 && name[0] == '(' && cgprop__is_digit(name[1])) {
                rc = expand_mangled(c, name, len, &name, &len);
                if (rc) return rc;
            }
            rc = cgprop__cg_intern_as(c, name, len, space != SP_FN, sid);
            if (rc) return rc;
            return cgprop__cg_id_define(c, space, (uint32_t)id, *sid);
        }
    }
    return intern(c, v, n, sid);
}
