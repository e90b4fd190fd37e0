/*
 * engine/matmul/cut.c - one dimension of an operand cut as its layout
 * cuts it (matmul_int.h): the multiplications that leave an operand
 * where it lies cut the others to match.
 */
#include <stdlib.h>

#include "engine/engine_int.h"
#include "engine/matmul/matmul_int.h"

void cs_eng_mm_dist_free(cs_eng_dist_t *d)
{
    free((void *)d->splits);
    free((void *)d->proc);
    free((void *)d->loff);
}

cs_status_t cs_eng_mm_cut(const cs_eng_layout_t *lx, int along_rows,
                          int64_t off, int64_t k0, int64_t k1, int me,
                          int nranks, cs_eng_dist_t *d, int64_t *count,
                          int64_t *mine, int64_t *lfirst)
{
    const cs_eng_dist_t *dim = along_rows ? &lx->rows : &lx->cols;
    int64_t nblk = 0;
    for (int64_t x = off + k0; x < off + k1; nblk++) {
        x = cs_eng_min64(
            cs_eng_dist_block_end(dim, cs_eng_dist_block_of(dim, x)), off + k1);
    }
    int64_t *cnt = calloc((size_t)nranks, sizeof(*cnt));
    int64_t *splits = d ? malloc((size_t)(nblk + 1) * sizeof(*splits)) : NULL;
    int64_t *loff = d ? malloc((size_t)(nblk + 1) * sizeof(*loff)) : NULL;
    int *proc = d ? malloc((size_t)(nblk + 1) * sizeof(*proc)) : NULL;
    cs_status_t st =
        !cnt || (d && (!splits || !loff || !proc)) ? CS_ERR_NOMEM : CS_OK;
    *mine = 0;
    *lfirst = 0;
    int64_t k = 0;
    for (int64_t x = off + k0; st == CS_OK && x < off + k1; k++) {
        int64_t b = cs_eng_dist_block_of(dim, x);
        int64_t e = cs_eng_min64(cs_eng_dist_block_end(dim, b), off + k1);
        int c = cs_eng_dist_proc(dim, b);
        int r = along_rows ? lx->grid[(int64_t)c * lx->npcol] : lx->grid[c];
        if (r < 0 || r >= nranks) {
            st = CS_ERR_UNSUPPORTED;
            break;
        }
        if (r == me) {
            if (*mine == 0) {
                *lfirst = cs_eng_dist_loff(dim, b) + x -
                          cs_eng_dist_block_start(dim, b);
            }
            *mine += e - x;
        }
        if (d) {
            splits[k] = x - off - k0;
            proc[k] = r;
            loff[k] = cnt[r];
        }
        cnt[r] += e - x;
        x = e;
    }
    if (st == CS_OK && count) {
        for (int r = 0; r < nranks; r++) {
            count[r] = cnt[r];
        }
    }
    free(cnt);
    if (st != CS_OK || !d) {
        free(splits);
        free(loff);
        free(proc);
        return st;
    }
    splits[nblk] = k1 - k0;
    *d = (cs_eng_dist_t){.kind = CS_ENG_DIST_EXPLICIT,
                         .n = k1 - k0,
                         .nprocs = nranks,
                         .nblk = nblk,
                         .splits = splits,
                         .proc = proc,
                         .loff = loff};
    return CS_OK;
}
