/*
 * engine/matmul/sym.c - what a product of which only one triangle of C is
 * wanted (cs_eng_mm_op_t.uplo: p?syrk, p?herk) changes for the engine:
 * the flops counted and the mask of the exchange that writes C.
 */
#include "engine/engine.h"
#include "engine/matmul/matmul_int.h"

double cs_eng_mm_flops(const cs_eng_mm_op_t *op, int64_t m, int64_t n,
                       int64_t k)
{
    int cplx = op->type == CS_ENG_T_C || op->type == CS_ENG_T_Z;
    if (op->uplo) {
        return (cplx ? 4.0 : 1.0) * (double)(n + 1) * (double)n * (double)k;
    }
    return (cplx ? 8.0 : 2.0) * (double)m * (double)n * (double)k;
}

int cs_eng_mm_mask(const cs_eng_mm_op_t *op)
{
    /* mask_k = 0: the diagonal of sub(C) is i = j */
    return op->uplo == 'U'   ? CS_ENG_MASK_UPPER
           : op->uplo == 'L' ? CS_ENG_MASK_LOWER
                             : CS_ENG_MASK_NONE;
}
