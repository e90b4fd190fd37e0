/*
 * shim/shim_operand.c - one operand of a PBLAS call: its descriptor
 * checked as PBLAS checks it, its engine layout, the call's scalars
 * (shim_operand_int.h).
 */
#include "shim/shim_engine_int.h"
#include "shim/shim_operand_int.h"

/*
 * PB_Cchkmat's checks for sub(X) = X(i:i+rows-1, j:j+cols-1), as far as
 * needed to know whether PBLAS accepts the call (which entry is wrong does
 * not matter: PBLAS itself reports it).  Local.
 */
int cs_shim_operand_check(const cs_fint *d, int rows, int cols, int i, int j,
                          int ctxt, int p, int q, int myr, int myc,
                          cs_shim_operand_t *x)
{
    if (d[0] == 1) {
        *x = (cs_shim_operand_t){d[2], d[3], d[4], d[5], d[4],
                                 d[5], d[6], d[7], d[8]};
    } else if (d[0] == 2) {
        *x = (cs_shim_operand_t){d[2], d[3], d[4], d[5], d[6],
                                 d[7], d[8], d[9], d[10]};
    } else {
        return CS_SHIM_ARG_INVALID;
    }
    if (d[1] != ctxt || rows < 0 || cols < 0 || i < 1 || j < 1 || x->imb < 1 ||
        x->inb < 1 || x->mb < 1 || x->nb < 1 || x->rsrc < -1 || x->rsrc >= p ||
        x->csrc < -1 || x->csrc >= q) {
        return CS_SHIM_ARG_INVALID;
    }
    if (rows == 0 || cols == 0) {
        return x->m_ < 0 || x->n_ < 0 || x->lld < 1 ? CS_SHIM_ARG_INVALID
                                                    : CS_SHIM_ARG_OK;
    }
    if (x->m_ < 1 || x->n_ < 1 || (int64_t)i - 1 + rows > x->m_ ||
        (int64_t)j - 1 + cols > x->n_ || x->lld < 1) {
        return CS_SHIM_ARG_INVALID;
    }
    int64_t lr = cs_shim_local_extent(x->m_, x->mb, x->imb, x->rsrc, p, myr);
    int64_t lc = cs_shim_local_extent(x->n_, x->nb, x->inb, x->csrc, q, myc);
    if (lc > 0 && x->lld < (lr > 1 ? lr : 1)) {
        return CS_SHIM_ARG_INVALID;
    }
    return CS_SHIM_ARG_OK;
}

void cs_shim_scalar(int routine, const void *v, double out[2])
{
    const cs_shim_routine_t *rt = &cs_shim_routines[routine];
    if (rt->family == CS_SHIM_FAM_SYRK && rt->conj) {
        /* p?herk: alpha and beta are real */
        out[0] = rt->type == 'c' ? *(const float *)v : *(const double *)v;
        out[1] = 0.0;
        return;
    }
    switch (rt->type) {
    case 's':
        out[0] = *(const float *)v;
        out[1] = 0.0;
        break;
    case 'c':
        out[0] = ((const float *)v)[0];
        out[1] = ((const float *)v)[1];
        break;
    case 'z':
        out[0] = ((const double *)v)[0];
        out[1] = ((const double *)v)[1];
        break;
    default:
        out[0] = *(const double *)v;
        out[1] = 0.0;
    }
}

/*
 * The engine layout of an operand.  A replicated dimension (RSRC or CSRC =
 * -1) holds every index on every process row (column); for one
 * sub-problem it is a single block held by the selected row rsel (column
 * csel).  grid must hold p * q ints; it is filled here (BLACS numbers its
 * communicator row-major).
 */
void cs_shim_operand_layout(const cs_shim_operand_t *x, int p, int q, int rsel,
                            int csel, int *grid, cs_eng_layout_t *l)
{
    int rrep = x->rsrc < 0, crep = x->csrc < 0;
    int np = rrep ? 1 : p, nq = crep ? 1 : q;
    l->rows = (cs_eng_dist_t){0};
    l->cols = (cs_eng_dist_t){0};
    cs_eng_dist_cyclic(x->m_, x->mb, x->imb, rrep ? 0 : x->rsrc, np, &l->rows);
    cs_eng_dist_cyclic(x->n_, x->nb, x->inb, crep ? 0 : x->csrc, nq, &l->cols);
    for (int i = 0; i < np; i++) {
        for (int j = 0; j < nq; j++) {
            grid[i * nq + j] = (rrep ? rsel : i) * q + (crep ? csel : j);
        }
    }
    l->nprow = np;
    l->npcol = nq;
    l->grid = grid;
    l->ld = x->lld;
    l->order = CS_ENG_COLMAJOR;
}
