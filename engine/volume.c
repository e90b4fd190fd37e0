/*
 * engine/volume.c - the communication-volume matrix of an operation: how
 * many bytes each rank of the source layout holds for each rank of the
 * target layout.  Built from the same per-dimension overlay as the plan, so
 * it costs O(row groups x column groups), never one step per element or per
 * global block (a trapezoidal copy: O(row groups x columns x log runs),
 * counting each column's trapezoid rows).  No MPI.
 */
#include "engine/engine_int.h"

cs_status_t cs_eng_volume_each(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, cs_eng_volume_fn fn,
                               void *ctx)
{
    if (!cs_eng_op_ok(a, b, op)) {
        return CS_ERR_BAD_DESC;
    }
    if (op->m == 0 || op->n == 0) {
        return CS_OK;
    }
    /* packages of trapezoidal copies hold only the trapezoid */
    cs_eng_xform_t xf;
    cs_eng_xform_init(op, &xf);
    int compact = cs_eng_plan_compact(op, &xf);
    cs_eng_overlay_t ro, co;
    cs_status_t st = cs_eng_op_overlays(a, b, op, &ro, &co);
    if (st != CS_OK) {
        return st;
    }
    for (int64_t i = 0; i < ro.ngroup && st == CS_OK; i++) {
        const cs_eng_group_t *rg = &ro.group[i];
        for (int64_t j = 0; j < co.ngroup; j++) {
            const cs_eng_group_t *cg = &co.group[j];
            int src = cs_eng_a_owner(a, op->trans, rg, cg);
            int dst = b->grid[rg->pb * b->npcol + cg->pb];
            if (src < 0 || dst < 0) {
                st = CS_ERR_BAD_DESC;
                break;
            }
            int64_t n = cs_eng_block_elems(&ro, &co, compact, &xf, rg, cg);
            if (n > 0 && fn(ctx, src, dst, n * (int64_t)op->esize) != 0) {
                st = CS_ERR_BAD_DESC;
                break;
            }
        }
    }
    cs_eng_overlay_free(&ro);
    cs_eng_overlay_free(&co);
    return st;
}

/* cs_eng_volume_matrix's accumulator. */
typedef struct {
    int nranks;
    int64_t *vol;
} dense_t;

static int dense_add(void *ctx, int src, int dst, int64_t bytes)
{
    dense_t *d = ctx;
    if (src >= d->nranks || dst >= d->nranks) {
        return 1;
    }
    d->vol[(int64_t)src * d->nranks + dst] += bytes;
    return 0;
}

cs_status_t cs_eng_volume_matrix(const cs_eng_layout_t *a,
                                 const cs_eng_layout_t *b,
                                 const cs_eng_op_t *op, int nranks,
                                 int64_t *vol_p)
{
    dense_t d = {nranks, vol_p};
    return cs_eng_volume_each(a, b, op, dense_add, &d);
}
