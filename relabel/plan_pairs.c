/*
 * relabel/plan_pairs.c - a plan's pairs (relabel.h, cs_rl_pair_t): the
 * bytes one holds, keeps and sends across nodes under given maps, as a
 * pa x pb matrix or as factored terms (relabel_kron.h, cs_rl_term_pack,
 * written and read here).
 *
 * RATIONALE: the shim keeps one term per call shape between two grids of
 * more positions than a pa x pb matrix allows (its factors: O(blocks),
 * some 0.4 MB at P = 65,536), so rank 0 can plan such grids: it needs
 * the bytes an assignment of processes to positions keeps, which each
 * term gives as a product of two factor entries per position.
 *
 * Pure C: no MPI, no environment, no logging, no global state.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/plan_int.h"
#include "relabel/relabel_int.h"

/* Header words of a term: calls scale trans rna rnb rn cna cnb cn. */
#define TERM_HEAD 9

/* Factor tables looked up dense up to this many cells (as kron.c). */
#define TERM_DENSE_CELLS ((int64_t)1 << 21)

int64_t cs_rl_term_words(const cs_rl_factor_t *r, const cs_rl_factor_t *c)
{
    return TERM_HEAD + 3 * r->n + 3 * c->n;
}

void cs_rl_term_pack(int64_t *w, int64_t calls, int64_t scale, int trans,
                     const cs_rl_factor_t *r, const cs_rl_factor_t *c)
{
    int64_t h[TERM_HEAD] = {calls, scale, trans, r->na, r->nb, r->n,
                            c->na, c->nb, c->n};
    memcpy(w, h, sizeof(h));
    w += TERM_HEAD;
    const cs_rl_factor_t *f[2] = {r, c};
    for (int k = 0; k < 2; k++) {
        for (int64_t e = 0; e < f[k]->n; e++) {
            w[e] = f[k]->pa[e];
            w[f[k]->n + e] = f[k]->pb[e];
            w[2 * f[k]->n + e] = f[k]->w[e];
        }
        w += 3 * f[k]->n;
    }
}

/* Entries of one factor: in range, sorted by (pa, pb), each once, > 0. */
static int entries_ok(const int64_t *pa, const int64_t *pb,
                      const int64_t *w, int64_t n, int na, int nb)
{
    for (int64_t e = 0; e < n; e++) {
        if (pa[e] < 0 || pa[e] >= na || pb[e] < 0 || pb[e] >= nb ||
            w[e] <= 0) {
            return 0;
        }
        if (e > 0 && (pa[e] < pa[e - 1] ||
                      (pa[e] == pa[e - 1] && pb[e] <= pb[e - 1]))) {
            return 0;
        }
    }
    return 1;
}

int64_t cs_rl_term_parse(const int64_t *w, int64_t n, cs_rl_term_t *t)
{
    if (n < TERM_HEAD) {
        return -1;
    }
    const int64_t lim = CS_RL_KRON_MAX_P;
    for (int k = 3; k < TERM_HEAD; k++) {
        if (w[k] < (k == 5 || k == 8 ? 0 : 1) || w[k] > lim * lim) {
            return -1;
        }
    }
    if (w[0] < 0 || w[1] < 1 || (w[2] != 0 && w[2] != 1) || w[3] > lim ||
        w[4] > lim || w[6] > lim || w[7] > lim ||
        w[5] > (n - TERM_HEAD) / 3 || w[8] > (n - TERM_HEAD) / 3 ||
        TERM_HEAD + 3 * (w[5] + w[8]) > n) {
        return -1;
    }
    *t = (cs_rl_term_t){.calls = w[0], .scale = w[1], .trans = (int)w[2],
                        .rna = (int)w[3], .rnb = (int)w[4], .rn = w[5],
                        .cna = (int)w[6], .cnb = (int)w[7], .cn = w[8]};
    t->rpa = w + TERM_HEAD;
    t->rpb = t->rpa + t->rn;
    t->rw = t->rpb + t->rn;
    t->cpa = t->rw + t->rn;
    t->cpb = t->cpa + t->cn;
    t->cw = t->cpb + t->cn;
    if (!entries_ok(t->rpa, t->rpb, t->rw, t->rn, t->rna, t->rnb) ||
        !entries_ok(t->cpa, t->cpb, t->cw, t->cn, t->cna, t->cnb)) {
        return -1;
    }
    return TERM_HEAD + 3 * (t->rn + t->cn);
}

int cs_rl_term_next(const cs_rl_pair_t *p, int64_t *o, cs_rl_term_t *t)
{
    int64_t len = *o < p->nfw ? cs_rl_term_parse(p->fw + *o, p->nfw - *o, t)
                              : -1;
    if (len < 0) {
        return 0;
    }
    *o += len;
    return 1;
}

int cs_rl_terms_ok(const cs_rl_pair_t *p)
{
    if (p->v || !p->fw || p->nfw < 1) {
        return 0;
    }
    for (int64_t o = 0; o < p->nfw;) {
        cs_rl_term_t t;
        int64_t len = cs_rl_term_parse(p->fw + o, p->nfw - o, &t);
        if (len < 0 || (int64_t)t.rna * t.cna != p->pa ||
            (int64_t)t.rnb * t.cnb != p->pb) {
            return 0;
        }
        o += len;
    }
    return 1;
}

/* ------------------------------------------------------------ values */

/* A term ready for lookups: its factors dense where small. */
typedef struct {
    cs_rl_term_t t;
    int64_t *rd, *cd;   /* rna x rnb and cna x cnb, or NULL */
} tval_t;

static int64_t *dense_of(const int64_t *pa, const int64_t *pb,
                         const int64_t *w, int64_t n, int na, int nb)
{
    if ((int64_t)na * nb > TERM_DENSE_CELLS) {
        return NULL;
    }
    int64_t *d = calloc((size_t)na * (size_t)nb, sizeof(*d));
    for (int64_t e = 0; d && e < n; e++) {
        d[pa[e] * nb + pb[e]] = w[e];
    }
    return d;
}

static void tval_init(tval_t *tv, const cs_rl_term_t *t)
{
    tv->t = *t;
    tv->rd = dense_of(t->rpa, t->rpb, t->rw, t->rn, t->rna, t->rnb);
    tv->cd = dense_of(t->cpa, t->cpb, t->cw, t->cn, t->cna, t->cnb);
}

static void tval_free(tval_t *tv)
{
    free(tv->rd);
    free(tv->cd);
}

/* Entry (x, u) of a factor: dense, else a binary search. */
static int64_t fac_get(const int64_t *d, const int64_t *pa, const int64_t *pb,
                       const int64_t *w, int64_t n, int nb, int x, int u)
{
    if (d) {
        return d[(int64_t)x * nb + u];
    }
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (pa[mid] < x || (pa[mid] == x && pb[mid] < u)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && pa[lo] == x && pb[lo] == u ? w[lo] : 0;
}

/* Elements from A's position a to B's position b (times nothing). */
static int64_t tval_elems(const tval_t *tv, int a, int b)
{
    const cs_rl_term_t *t = &tv->t;
    int x = t->trans ? a % t->rna : a / t->cna;
    int y = t->trans ? a / t->rna : a % t->cna;
    int u = b / t->cnb, v = b % t->cnb;
    int64_t r = fac_get(tv->rd, t->rpa, t->rpb, t->rw, t->rn, t->rnb, x, u);
    return r ? r * fac_get(tv->cd, t->cpa, t->cpb, t->cw, t->cn, t->cnb, y,
                           v)
             : 0;
}

/* Elements times calls times bytes per element, saturated. */
static int64_t times(const cs_rl_term_t *t, int64_t elems, int *sat)
{
    return cs_rl_mul_sat(cs_rl_mul_sat(elems, t->scale, sat), t->calls, sat);
}

int64_t cs_rl_term_bytes(const cs_rl_term_t *t, int *sat)
{
    int64_t rs = 0, cs = 0;
    for (int64_t e = 0; e < t->rn; e++) {
        rs = cs_rl_add_sat(rs, t->rw[e], sat);
    }
    for (int64_t e = 0; e < t->cn; e++) {
        cs = cs_rl_add_sat(cs, t->cw[e], sat);
    }
    return times(t, cs_rl_mul_sat(rs, cs, sat), sat);
}

static int64_t terms_total(const cs_rl_pair_t *p, int *sat)
{
    int64_t tot = 0;
    cs_rl_term_t t;
    for (int64_t o = 0; cs_rl_term_next(p, &o, &t);) {
        tot = cs_rl_add_sat(tot, cs_rl_term_bytes(&t, sat), sat);
    }
    return tot;
}

static int64_t terms_kept(const cs_rl_pair_t *p, const int *ma,
                          const int *mb, int *pos, int nworld)
{
    int sat = 0;
    int64_t kept = 0;
    for (int a = 0; a < p->pa; a++) {
        if (ma[a] >= 0 && ma[a] < nworld) {
            pos[ma[a]] = a;
        }
    }
    cs_rl_term_t t;
    for (int64_t o = 0; cs_rl_term_next(p, &o, &t);) {
        tval_t tv;
        tval_init(&tv, &t);
        int64_t el = 0;
        for (int b = 0; b < p->pb; b++) {
            int a = mb[b] >= 0 && mb[b] < nworld ? pos[mb[b]] : -1;
            el = a >= 0 ? cs_rl_add_sat(el, tval_elems(&tv, a, b), &sat) : el;
        }
        kept = cs_rl_add_sat(kept, times(&t, el, &sat), &sat);
        tval_free(&tv);
    }
    for (int a = 0; a < p->pa; a++) {
        if (ma[a] >= 0 && ma[a] < nworld) {
            pos[ma[a]] = -1;
        }
    }
    return kept;
}

/* Positions of a map grouped by the node of their rank: order[first[n]
 * .. first[n + 1]) the positions on node n (nn nodes: the largest node
 * number + 1); ranks outside [0, nworld) on none.  -1: no memory. */
static int by_node(const int *m, int np, const int *node, int nworld, int nn,
                   int **first_p, int **order_p)
{
    int *first = calloc((size_t)nn + 1, sizeof(int));
    int *order = malloc((size_t)(np > 0 ? np : 1) * sizeof(int));
    if (!first || !order) {
        free(first);
        free(order);
        return -1;
    }
    for (int i = 0; i < np; i++) {
        if (m[i] >= 0 && m[i] < nworld) {
            first[node[m[i]] + 1]++;
        }
    }
    for (int n = 0; n < nn; n++) {
        first[n + 1] += first[n];
    }
    for (int i = 0; i < np; i++) {
        if (m[i] >= 0 && m[i] < nworld) {
            order[first[node[m[i]]]++] = i;
        }
    }
    for (int n = nn; n > 0; n--) {
        first[n] = first[n - 1];
    }
    first[0] = 0;
    *first_p = first;
    *order_p = order;
    return 0;
}

static int64_t terms_across(const cs_rl_pair_t *p, const int *ma,
                            const int *mb, const int *node, int nworld)
{
    int sat = 0, nn = 0;
    for (int r = 0; r < nworld; r++) {
        nn = node[r] + 1 > nn ? node[r] + 1 : nn;
    }
    int *fa = NULL, *oa = NULL, *fb = NULL, *ob = NULL;
    if (by_node(ma, p->pa, node, nworld, nn, &fa, &oa) != 0 ||
        by_node(mb, p->pb, node, nworld, nn, &fb, &ob) != 0) {
        free(fa);
        free(oa);
        return terms_total(p, &sat); /* no memory: all of it */
    }
    int64_t across = terms_total(p, &sat);
    cs_rl_term_t t;
    for (int64_t o = 0; cs_rl_term_next(p, &o, &t);) {
        tval_t tv;
        tval_init(&tv, &t);
        int64_t el = 0;
        for (int n = 0; n < nn; n++) {
            for (int i = fa[n]; i < fa[n + 1]; i++) {
                for (int k = fb[n]; k < fb[n + 1]; k++) {
                    el = cs_rl_add_sat(el, tval_elems(&tv, oa[i], ob[k]),
                                       &sat);
                }
            }
        }
        across -= times(&t, el, &sat); /* what stays in its node */
        tval_free(&tv);
    }
    free(fa);
    free(oa);
    free(fb);
    free(ob);
    return across;
}

/* ------------------------------------------------------------ pairs */

int64_t cs_rl_pair_total(const cs_rl_pair_t *p, int *sat)
{
    if (!p->v) {
        return terms_total(p, sat);
    }
    int64_t tot = 0;
    for (int64_t e = 0; e < (int64_t)p->pa * p->pb; e++) {
        tot = cs_rl_add_sat(tot, p->v[e], sat);
    }
    return tot;
}

int64_t cs_rl_pair_kept(const cs_rl_pair_t *p, const int *ma, const int *mb,
                        int *pos, int nworld)
{
    if (!p->v) {
        return terms_kept(p, ma, mb, pos, nworld);
    }
    for (int j = 0; j < p->pb; j++) {
        if (mb[j] >= 0 && mb[j] < nworld) {
            pos[mb[j]] = j;
        }
    }
    int64_t kept = 0;
    for (int i = 0; i < p->pa; i++) {
        int j = ma[i] >= 0 && ma[i] < nworld ? pos[ma[i]] : -1;
        if (j >= 0) {
            kept += p->v[(int64_t)i * p->pb + j];
        }
    }
    for (int j = 0; j < p->pb; j++) {
        if (mb[j] >= 0 && mb[j] < nworld) {
            pos[mb[j]] = -1;
        }
    }
    return kept;
}

int64_t cs_rl_pair_across(const cs_rl_pair_t *p, const int *ma,
                          const int *mb, const int *node, int nworld)
{
    if (!p->v) {
        return terms_across(p, ma, mb, node, nworld);
    }
    int64_t across = 0;
    for (int i = 0; i < p->pa; i++) {
        for (int j = 0; j < p->pb; j++) {
            int x = ma[i], y = mb[j];
            if (x >= 0 && x < nworld && y >= 0 && y < nworld &&
                node[x] != node[y]) {
                across += p->v[(int64_t)i * p->pb + j];
            }
        }
    }
    return across;
}
