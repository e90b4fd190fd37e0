/*
 * relabel/kron.c - the indexed Kronecker problem (relabel_kron.h): checks,
 * the factors indexed by row and by column, entry lookups, the largest
 * entries of a row or column, and the sums the solvers and tools read.
 *
 * Pure C, no MPI, no global state.  Invariants after cs_rl_kron_create:
 * every factor entry > 0, the total (sum of all P x P entries) fits in
 * int64, so every entry and every sum of kept bytes does too.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/kron_int.h"

static void fac_free(cs_rl_fac_t *f)
{
    free(f->rfirst);
    free(f->cfirst);
    free(f->rb);
    free(f->sb);
    free(f->ca);
    free(f->sa);
    free(f->rw);
    free(f->sw);
    free(f->cw);
    free(f->sc);
    free(f->cpre);
    free(f->rsum);
    free(f->csum);
    free(f->cmax);
    free(f->dense);
    free(f->dpre);
}

void cs_rl_kron_destroy(cs_rl_kx_t *kx)
{
    if (!kx) {
        return;
    }
    fac_free(&kx->r);
    fac_free(&kx->c);
    free(kx->ax);
    free(kx->ay);
    free(kx->bu);
    free(kx->bv);
    free(kx->cellp);
    free(kx->cellq);
    free(kx->cand);
    free(kx);
}

static int factor_ok(const cs_rl_factor_t *f)
{
    if (f->na < 1 || f->nb < 1 || f->n < 0 ||
        (f->n > 0 && (!f->pa || !f->pb || !f->w))) {
        return 0;
    }
    for (int64_t k = 0; k < f->n; k++) {
        if (f->pa[k] < 0 || f->pa[k] >= f->na || f->pb[k] < 0 ||
            f->pb[k] >= f->nb || f->w[k] <= 0) {
            return 0;
        }
        if (k > 0 && (f->pa[k] < f->pa[k - 1] ||
                      (f->pa[k] == f->pa[k - 1] && f->pb[k] <= f->pb[k - 1]))) {
            return 0;
        }
    }
    return 1;
}

/* Insertion sort of idx[0, n) by decreasing w[idx], ties by smaller key
 * (rows and columns of block-cyclic factors hold a few entries). */
static void sort_desc(int64_t *idx, int64_t n, const int64_t *w,
                      const int *key)
{
    for (int64_t k = 1; k < n; k++) {
        int64_t e = idx[k], k2 = k;
        while (k2 > 0) {
            int64_t p = idx[k2 - 1];
            if (w[p] > w[e] || (w[p] == w[e] && key[p] <= key[e])) {
                break;
            }
            idx[k2] = idx[k2 - 1];
            k2--;
        }
        idx[k2] = e;
    }
}

/* Long rows or columns (a 1 x P grid against a P x 1 one) sort with qsort;
 * qsort has no context, so the entries travel with their keys. */
typedef struct {
    int64_t w;
    int key;
    int64_t e;
} wk_t;

static int wk_cmp(const void *x, const void *y)
{
    const wk_t *a = x, *b = y;
    if (a->w != b->w) {
        return a->w > b->w ? -1 : 1;
    }
    return (a->key > b->key) - (a->key < b->key);
}

static int sort_range(int64_t *idx, int64_t n, const int64_t *w,
                      const int *key)
{
    if (n <= 64) {
        sort_desc(idx, n, w, key);
        return 0;
    }
    wk_t *t = malloc((size_t)n * sizeof(*t));
    if (!t) {
        return -1;
    }
    for (int64_t k = 0; k < n; k++) {
        t[k] = (wk_t){w[idx[k]], key[idx[k]], idx[k]};
    }
    qsort(t, (size_t)n, sizeof(*t), wk_cmp);
    for (int64_t k = 0; k < n; k++) {
        idx[k] = t[k].e;
    }
    free(t);
    return 0;
}

static cs_rl_status_t fac_index(const cs_rl_factor_t *in, cs_rl_fac_t *f)
{
    int64_t n = in->n;
    size_t sn = (size_t)n + 1;
    f->na = in->na;
    f->nb = in->nb;
    f->n = n;
    f->rfirst = calloc((size_t)in->na + 1, sizeof(int64_t));
    f->cfirst = calloc((size_t)in->nb + 1, sizeof(int64_t));
    f->rb = malloc(sn * sizeof(int));
    f->sb = malloc(sn * sizeof(int));
    f->ca = malloc(sn * sizeof(int));
    f->sa = malloc(sn * sizeof(int));
    f->rw = malloc(sn * sizeof(int64_t));
    f->sw = malloc(sn * sizeof(int64_t));
    f->cw = malloc(sn * sizeof(int64_t));
    f->sc = malloc(sn * sizeof(int64_t));
    f->cpre = malloc(sn * sizeof(int64_t));
    f->rsum = calloc((size_t)in->na, sizeof(int64_t));
    f->csum = calloc((size_t)in->nb, sizeof(int64_t));
    f->cmax = calloc((size_t)in->nb, sizeof(int64_t));
    int64_t *idx = malloc(sn * sizeof(int64_t));
    int64_t *fill = calloc((size_t)in->nb, sizeof(int64_t));
    if (!f->rfirst || !f->cfirst || !f->rb || !f->sb || !f->ca || !f->sa ||
        !f->rw || !f->sw || !f->cw || !f->sc || !f->cpre || !f->rsum ||
        !f->csum || !f->cmax || !idx || !fill) {
        free(idx);
        free(fill);
        return CS_RL_ERR_NOMEM;
    }
    if ((int64_t)in->na * in->nb <= CS_RL_KRON_DENSE_CELLS) {
        f->dense = calloc((size_t)in->na * (size_t)in->nb, sizeof(int64_t));
        f->dpre = malloc(((size_t)in->na + 1) * (size_t)in->nb *
                         sizeof(int64_t));
        if (!f->dense || !f->dpre) {
            free(idx);
            free(fill);
            return CS_RL_ERR_NOMEM;
        }
    }
    for (int64_t k = 0; k < n; k++) {
        int x = in->pa[k], u = in->pb[k];
        f->rfirst[x + 1]++;
        f->cfirst[u + 1]++;
        f->rb[k] = u;
        f->rw[k] = in->w[k];
        f->rsum[x] += in->w[k];
        f->csum[u] += in->w[k];
        f->cmax[u] = in->w[k] > f->cmax[u] ? in->w[k] : f->cmax[u];
        if (f->dense) {
            f->dense[(int64_t)x * in->nb + u] = in->w[k];
        }
    }
    for (int x = 0; x < in->na; x++) {
        f->rfirst[x + 1] += f->rfirst[x];
    }
    for (int u = 0; u < in->nb; u++) {
        f->cfirst[u + 1] += f->cfirst[u];
    }
    /* by column: the input is sorted by (pa, pb), so a stable scatter
     * keeps each column sorted by A coordinate */
    for (int64_t k = 0; k < n; k++) {
        int64_t e = f->cfirst[in->pb[k]] + fill[in->pb[k]]++;
        f->ca[e] = in->pa[k];
        f->cw[e] = in->w[k];
    }
    f->cpre[0] = 0;
    for (int64_t e = 0; e < n; e++) {
        f->cpre[e + 1] = f->cpre[e] + f->cw[e];
    }
    for (int u = 0; f->dpre && u < in->nb; u++) {
        f->dpre[u] = 0;
    }
    for (int64_t c = 0; f->dpre && c < (int64_t)in->na * in->nb; c++) {
        f->dpre[c + in->nb] = f->dpre[c] + f->dense[c];
    }
    /* both orders by decreasing weight */
    int st = 0;
    for (int64_t k = 0; k < n; k++) {
        idx[k] = k;
    }
    for (int x = 0; x < in->na && st == 0; x++) {
        int64_t lo = f->rfirst[x];
        st = sort_range(idx + lo, f->rfirst[x + 1] - lo, f->rw, f->rb);
    }
    for (int64_t k = 0; k < n && st == 0; k++) {
        f->sb[k] = f->rb[idx[k]];
        f->sw[k] = f->rw[idx[k]];
        idx[k] = k;
    }
    for (int u = 0; u < in->nb && st == 0; u++) {
        int64_t lo = f->cfirst[u];
        st = sort_range(idx + lo, f->cfirst[u + 1] - lo, f->cw, f->ca);
    }
    for (int64_t k = 0; k < n && st == 0; k++) {
        f->sa[k] = f->ca[idx[k]];
        f->sc[k] = f->cw[idx[k]];
    }
    free(idx);
    free(fill);
    return st == 0 ? CS_RL_OK : CS_RL_ERR_NOMEM;
}

/* Invert a cell -> process map into process -> (x, y); 0 if the cells
 * name distinct processes in [0, P). */
static int invert(const int *cell, int nx, int ny, int P, int *px, int *py)
{
    for (int i = 0; i < P; i++) {
        px[i] = -1;
        py[i] = -1;
    }
    for (int x = 0; x < nx; x++) {
        for (int y = 0; y < ny; y++) {
            int i = cell[(int64_t)x * ny + y];
            if (i < 0 || i >= P || px[i] >= 0) {
                return -1;
            }
            px[i] = x;
            py[i] = y;
        }
    }
    return 0;
}

/* Sum of the weights of a factor, -1 on overflow. */
static int64_t fac_total(const cs_rl_factor_t *f)
{
    int64_t s = 0;
    for (int64_t k = 0; k < f->n; k++) {
        if (__builtin_add_overflow(s, f->w[k], &s)) {
            return -1;
        }
    }
    return s;
}

/* Every process's CS_RL_KRON_CAND largest entries into kx->cand. */
static cs_rl_status_t candidates(cs_rl_kx_t *kx)
{
    int P = kx->P, K = CS_RL_KRON_CAND;
    kx->cand = malloc((size_t)P * K * sizeof(*kx->cand));
    cs_rl_cand_t *s = malloc((size_t)cs_rl_kx_top_scratch(K) * sizeof(*s));
    if (!kx->cand || !s) {
        free(s);
        return CS_RL_ERR_NOMEM;
    }
    for (int i = 0; i < P; i++) {
        int *c = kx->cand + (int64_t)i * K;
        int n = cs_rl_kx_top(kx, i, 0, K, s, c);
        for (int t = n; t < K; t++) {
            c[t] = -1;
        }
    }
    free(s);
    return CS_RL_OK;
}

cs_rl_status_t cs_rl_kron_create(const cs_rl_kron_t *k, cs_rl_kx_t **kx_p)
{
    if (!k || !kx_p || k->P < 1 || k->P > CS_RL_KRON_MAX_P ||
        k->scale < 1 || !k->proc || !k->pos || !factor_ok(&k->r) ||
        !factor_ok(&k->c) || (int64_t)k->r.na * k->c.na > k->P ||
        (int64_t)k->r.nb * k->c.nb > k->P) {
        return CS_RL_ERR_INVALID;
    }
    int64_t tr = fac_total(&k->r), tc = fac_total(&k->c), total;
    if (tr < 0 || tc < 0 || __builtin_mul_overflow(tr, tc, &total) ||
        __builtin_mul_overflow(total, k->scale, &total)) {
        return CS_RL_ERR_LIMIT;
    }
    cs_rl_kx_t *kx = calloc(1, sizeof(*kx));
    if (!kx) {
        return CS_RL_ERR_NOMEM;
    }
    int P = k->P;
    size_t na = (size_t)k->r.na * (size_t)k->c.na;
    size_t nb = (size_t)k->r.nb * (size_t)k->c.nb;
    kx->P = P;
    kx->scale = k->scale;
    kx->total = total;
    kx->ax = malloc((size_t)P * sizeof(int));
    kx->ay = malloc((size_t)P * sizeof(int));
    kx->bu = malloc((size_t)P * sizeof(int));
    kx->bv = malloc((size_t)P * sizeof(int));
    kx->cellp = malloc(na * sizeof(int));
    kx->cellq = malloc(nb * sizeof(int));
    cs_rl_status_t st = CS_RL_ERR_NOMEM;
    if (kx->ax && kx->ay && kx->bu && kx->bv && kx->cellp && kx->cellq) {
        memcpy(kx->cellp, k->proc, na * sizeof(int));
        memcpy(kx->cellq, k->pos, nb * sizeof(int));
        st = invert(k->proc, k->r.na, k->c.na, P, kx->ax, kx->ay) ||
                     invert(k->pos, k->r.nb, k->c.nb, P, kx->bu, kx->bv)
                 ? CS_RL_ERR_INVALID
                 : CS_RL_OK;
    }
    if (st == CS_RL_OK) {
        st = fac_index(&k->r, &kx->r);
    }
    if (st == CS_RL_OK) {
        st = fac_index(&k->c, &kx->c);
    }
    if (st == CS_RL_OK) {
        st = candidates(kx);
    }
    if (st != CS_RL_OK) {
        cs_rl_kron_destroy(kx);
        return st;
    }
    *kx_p = kx;
    return CS_RL_OK;
}

/* One factor's index (fac_index): per entry rb, sb, ca, sa (4 each), rw,
 * sw, cw, sc, cpre (8 each), and while it sorts idx (8) and a row's or
 * column's keys (wk_t, 24) with qsort's copy (24); per coordinate
 * rfirst, cfirst, rsum, csum, cmax, fill (8 each); the dense table and
 * its prefix sums. */
static int64_t fac_bytes(int na, int nb)
{
    int64_t cells = (int64_t)na * nb, dense = 0;
    if (cells <= CS_RL_KRON_DENSE_CELLS) {
        dense = 8 * cells + 8 * ((int64_t)na + 1) * nb;
    }
    return 32 * ((int64_t)na + nb) + 32 + dense;
}

int64_t cs_rl_kron_bytes(int P, int r_na, int r_nb, int c_na, int c_nb,
                         int64_t entries)
{
    /* ax, ay, bu, bv; cellp, cellq; the candidates and their scratch */
    int64_t kx = 16 * (int64_t)P +
                 4 * ((int64_t)r_na * c_na + (int64_t)r_nb * c_nb) +
                 4 * (int64_t)CS_RL_KRON_CAND * P +
                 (int64_t)sizeof(cs_rl_cand_t) *
                     cs_rl_kx_top_scratch(CS_RL_KRON_CAND) +
                 (int64_t)sizeof(cs_rl_kx_t);
    return kx + fac_bytes(r_na, r_nb) + fac_bytes(c_na, c_nb) +
           112 * entries;
}

int cs_rl_kron_P(const cs_rl_kx_t *kx)
{
    return kx->P;
}

int64_t cs_rl_kron_total(const cs_rl_kx_t *kx)
{
    return kx->total;
}

int64_t cs_rl_kron_nnz(const cs_rl_kx_t *kx)
{
    return kx->r.n * kx->c.n;
}

int64_t cs_rl_kron_vol(const cs_rl_kx_t *kx, int i, int j)
{
    return cs_rl_kx_vol(kx, i, j);
}

int64_t cs_rl_fac_range_sparse(const cs_rl_fac_t *f, int u, int x0,
                               int x1)
{
    /* first entries of column u with A coordinate >= x0 and >= x1 */
    int64_t b[2];
    int xs[2] = {x0, x1};
    for (int s = 0; s < 2; s++) {
        int64_t lo = f->cfirst[u], hi = f->cfirst[u + 1];
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (f->ca[mid] < xs[s]) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        b[s] = lo;
    }
    return f->cpre[b[1]] - f->cpre[b[0]];
}

int64_t cs_rl_kron_kept(const cs_rl_kx_t *kx, const int *perm)
{
    if (perm && !cs_rl_perm_check(kx->P, perm)) {
        return -1;
    }
    int64_t kept = 0;
    for (int j = 0; j < kx->P; j++) {
        kept += cs_rl_kx_vol(kx, perm ? perm[j] : j, j);
    }
    return kept;
}

int64_t cs_rl_kron_row_bytes(const cs_rl_kx_t *kx, int i)
{
    int x = kx->ax[i];
    return x < 0 ? 0 : kx->r.rsum[x] * kx->c.rsum[kx->ay[i]] * kx->scale;
}

int64_t cs_rl_kron_col_bytes(const cs_rl_kx_t *kx, int j)
{
    int u = kx->bu[j];
    return u < 0 ? 0 : kx->r.csum[u] * kx->c.csum[kx->bv[j]] * kx->scale;
}

int64_t cs_rl_kron_row_nnz(const cs_rl_kx_t *kx, int i)
{
    int x = kx->ax[i], y = kx->ay[i];
    return x < 0 ? 0
                 : (kx->r.rfirst[x + 1] - kx->r.rfirst[x]) *
                       (kx->c.rfirst[y + 1] - kx->c.rfirst[y]);
}

int64_t cs_rl_kron_col_nnz(const cs_rl_kx_t *kx, int j)
{
    int u = kx->bu[j], v = kx->bv[j];
    return u < 0 ? 0
                 : (kx->r.cfirst[u + 1] - kx->r.cfirst[u]) *
                       (kx->c.cfirst[v + 1] - kx->c.cfirst[v]);
}

cs_rl_status_t cs_rl_kron_sparse(const cs_rl_kx_t *kx, cs_rl_sparse_t *v)
{
    const cs_rl_fac_t *r = &kx->r, *c = &kx->c;
    for (int x = 0; x < r->na; x++) {
        for (int y = 0; y < c->na; y++) {
            int i = kx->cellp[(int64_t)x * c->na + y];
            for (int64_t e = r->rfirst[x]; e < r->rfirst[x + 1]; e++) {
                for (int64_t f = c->rfirst[y]; f < c->rfirst[y + 1]; f++) {
                    int j = kx->cellq[(int64_t)r->rb[e] * c->nb + c->rb[f]];
                    cs_rl_status_t st = cs_rl_sparse_add(
                        v, i, j, r->rw[e] * c->rw[f] * kx->scale);
                    if (st != CS_RL_OK) {
                        return st;
                    }
                }
            }
        }
    }
    return CS_RL_OK;
}

/* ------------------------------------------------------------ top */

int cs_rl_kx_top_scratch(int cap)
{
    int n = 0;
    for (int a = 1; a <= cap; a++) {
        n += cap / a;
    }
    return n;
}

/*
 * RATIONALE: the entries of a row are the products of a row of R and a
 * row of C, both sorted by decreasing weight.  For the product of their
 * a-th and b-th entries (from 0), the (a + 1) (b + 1) products of earlier
 * or equal ones are at least as large, so the cap largest entries lie
 * among the pairs with (a + 1) (b + 1) <= cap: about cap ln cap of them,
 * sorted by insertion.
 */
static int top_of(const int64_t *w1, const int *k1, int64_t n1,
                  const int64_t *w2, const int *k2, int64_t n2, int nk2,
                  const int *cell, int64_t scale, int cap,
                  cs_rl_cand_t *s, int *out)
{
    int n = 0;
    for (int64_t a = 0; a < n1 && a < cap; a++) {
        for (int64_t b = 0; b < n2 && (a + 1) * (b + 1) <= cap; b++) {
            cs_rl_cand_t c = {w1[a] * w2[b] * scale,
                              cell[(int64_t)k1[a] * nk2 + k2[b]]};
            int m = n++;
            while (m > 0 && (s[m - 1].w < c.w ||
                             (s[m - 1].w == c.w && s[m - 1].j > c.j))) {
                s[m] = s[m - 1];
                m--;
            }
            s[m] = c;
        }
    }
    n = n < cap ? n : cap;
    for (int t = 0; t < n; t++) {
        out[t] = s[t].j;
    }
    return n;
}

int cs_rl_kx_top(const cs_rl_kx_t *kx, int k, int by_col, int cap,
                 cs_rl_cand_t *scratch, int *out)
{
    const cs_rl_fac_t *r = &kx->r, *c = &kx->c;
    int x = by_col ? kx->bu[k] : kx->ax[k];
    int y = by_col ? kx->bv[k] : kx->ay[k];
    if (x < 0) {
        return 0;
    }
    /* a row: the rows of R and C sorted by weight, cells of B; a column:
     * their columns, cells of A */
    const int64_t *first_r = by_col ? r->cfirst : r->rfirst;
    const int64_t *first_c = by_col ? c->cfirst : c->rfirst;
    int64_t r0 = first_r[x], c0 = first_c[y];
    return top_of(by_col ? r->sc + r0 : r->sw + r0,
                  by_col ? r->sa + r0 : r->sb + r0, first_r[x + 1] - r0,
                  by_col ? c->sc + c0 : c->sw + c0,
                  by_col ? c->sa + c0 : c->sb + c0, first_c[y + 1] - c0,
                  by_col ? c->na : c->nb, by_col ? kx->cellp : kx->cellq,
                  kx->scale, cap, scratch, out);
}
