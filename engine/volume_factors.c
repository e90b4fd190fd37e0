/*
 * engine/volume_factors.c - the volume of an unmasked operation as two
 * factors, one per dimension (engine.h, cs_eng_volume_factors).
 *
 * RATIONALE: the volume matrix costs O(row groups x column groups) to walk
 * and up to P x P to hold (10^8 entries between two 256 x 256 grids whose
 * blocks do not divide each other); the groups of one dimension alone are
 * O(blocks), and every entry of the matrix is a product of one row group
 * and one column group.  Relabeling at scale works on the factors.
 * A masked copy counts only the trapezoid of each block, which depends on
 * both indices, so it has no factors.
 *
 * No MPI.  Global information only: every rank computes the same.
 */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_int.h"

void cs_eng_factors_free(cs_eng_factors_t *f)
{
    cs_eng_factor_t *d[2] = {&f->rows, &f->cols};
    for (int k = 0; k < 2; k++) {
        free(d[k]->pa);
        free(d[k]->pb);
        free(d[k]->count);
    }
    memset(f, 0, sizeof(*f));
}

/* One dimension's factor from its overlay (groups sorted by (pa, pb)). */
static cs_status_t from_overlay(const cs_eng_overlay_t *ov, int na, int nb,
                                cs_eng_factor_t *fa)
{
    size_t n = (size_t)ov->ngroup + 1; /* malloc(0) may return NULL */
    fa->na = na;
    fa->nb = nb;
    fa->pa = malloc(n * sizeof(*fa->pa));
    fa->pb = malloc(n * sizeof(*fa->pb));
    fa->count = malloc(n * sizeof(*fa->count));
    if (!fa->pa || !fa->pb || !fa->count) {
        return CS_ERR_NOMEM;
    }
    for (int64_t g = 0; g < ov->ngroup; g++) {
        if (ov->group[g].total > 0) {
            fa->pa[fa->n] = ov->group[g].pa;
            fa->pb[fa->n] = ov->group[g].pb;
            fa->count[fa->n++] = ov->group[g].total;
        }
    }
    return CS_OK;
}

cs_status_t cs_eng_volume_factors(const cs_eng_layout_t *a,
                                  const cs_eng_layout_t *b,
                                  const cs_eng_op_t *op,
                                  cs_eng_factors_t *f_p)
{
    if (!cs_eng_op_ok(a, b, op)) {
        return CS_ERR_BAD_DESC;
    }
    if (op->mask != CS_ENG_MASK_NONE) {
        return CS_ERR_UNSUPPORTED;
    }
    cs_eng_factors_t f;
    memset(&f, 0, sizeof(f));
    f.esize = (int64_t)op->esize;
    int tr = f.trans = op->trans != 0;
    cs_eng_overlay_t ro, co;
    memset(&ro, 0, sizeof(ro));
    memset(&co, 0, sizeof(co));
    cs_status_t st = CS_OK;
    if (op->m > 0 && op->n > 0) {
        st = cs_eng_op_overlays(a, b, op, &ro, &co);
    }
    if (st == CS_OK) {
        st = from_overlay(&ro, tr ? a->npcol : a->nprow, b->nprow, &f.rows);
    }
    if (st == CS_OK) {
        st = from_overlay(&co, tr ? a->nprow : a->npcol, b->npcol, &f.cols);
    }
    cs_eng_overlay_free(&ro);
    cs_eng_overlay_free(&co);
    if (st != CS_OK) {
        cs_eng_factors_free(&f);
        return st;
    }
    *f_p = f;
    return CS_OK;
}

/* Fill out[x * ny + y] with grid[(x, y) or (y, x)], checking that no rank
 * repeats (seen: nranks bytes, zero on entry, left set). */
static cs_status_t cell_ranks(const cs_eng_layout_t *l, int tr, int nranks,
                              unsigned char *seen, int *out)
{
    int nx = tr ? l->npcol : l->nprow, ny = tr ? l->nprow : l->npcol;
    for (int x = 0; x < nx; x++) {
        for (int y = 0; y < ny; y++) {
            int r = tr ? l->grid[y * l->npcol + x] : l->grid[x * l->npcol + y];
            if (r < 0 || r >= nranks || seen[r]) {
                return CS_ERR_UNSUPPORTED;
            }
            seen[r] = 1;
            out[(int64_t)x * ny + y] = r;
        }
    }
    return CS_OK;
}

cs_status_t cs_eng_factors_ranks(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_factors_t *f, int nranks,
                                 int *proc_p, int *pos_p)
{
    int tr = f->trans;
    if (nranks < 1 || f->rows.na != (tr ? a->npcol : a->nprow) ||
        f->cols.na != (tr ? a->nprow : a->npcol) ||
        f->rows.nb != b->nprow || f->cols.nb != b->npcol) {
        return CS_ERR_BAD_DESC;
    }
    unsigned char *seen = calloc((size_t)nranks, 1);
    if (!seen) {
        return CS_ERR_NOMEM;
    }
    cs_status_t st = cell_ranks(a, tr, nranks, seen, proc_p);
    memset(seen, 0, (size_t)nranks);
    if (st == CS_OK) {
        st = cell_ranks(b, 0, nranks, seen, pos_p);
    }
    free(seen);
    return st;
}

/* Entry (x, u) of one factor, 0 if absent (binary search). */
static int64_t factor_at(const cs_eng_factor_t *fa, int x, int u)
{
    int64_t lo = 0, hi = fa->n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fa->pa[mid] < x || (fa->pa[mid] == x && fa->pb[mid] < u)) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < fa->n && fa->pa[lo] == x && fa->pb[lo] == u ? fa->count[lo]
                                                             : 0;
}

int64_t cs_eng_factor_cells(const cs_eng_factors_t *f, int x, int y, int u,
                            int v)
{
    return factor_at(&f->rows, x, u) * factor_at(&f->cols, y, v) * f->esize;
}
