/*
 * engine/matmul/sym.c - what a product of which only one triangle of C is
 * wanted (cs_eng_mm_op_t.uplo: p?syrk, p?herk) changes for the engine:
 * the flops counted, the other triangle filled once the local products
 * are done, and the mask of the exchange that writes C.
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

/* c's other triangle from uplo's: c(j, i) = c(i, j), conjugated for a
 * Hermitian c, whose diagonal is made real (as ?herk leaves it). */
#define CS_MM_MIRROR(T, reals)                                                 \
    do {                                                                       \
        T *e = c;                                                              \
        for (int64_t j = 0; j < n; j++) {                                      \
            for (int64_t i = j + 1; i < n; i++) {                              \
                int64_t from = up ? j + i * ldc : i + j * ldc;                 \
                int64_t to = up ? i + j * ldc : j + i * ldc;                   \
                for (int r = 0; r < (reals); r++) {                            \
                    e[to * (reals) + r] = e[from * (reals) + r];               \
                }                                                              \
                if ((reals) == 2 && herk) {                                    \
                    e[to * 2 + 1] = -e[to * 2 + 1];                            \
                }                                                              \
            }                                                                  \
            if ((reals) == 2 && herk) {                                        \
                e[(j + j * ldc) * 2 + 1] = 0;                                  \
            }                                                                  \
        }                                                                      \
    } while (0)

void cs_eng_mm_mirror(const cs_eng_mm_op_t *op, int64_t n, void *c,
                      int64_t ldc)
{
    if (!op->uplo) {
        return;
    }
    int up = op->uplo == 'U';
    int herk = op->transa == 'C' || op->transb == 'C';
    switch (op->type) {
    case CS_ENG_T_S:
        CS_MM_MIRROR(float, 1);
        break;
    case CS_ENG_T_D:
        CS_MM_MIRROR(double, 1);
        break;
    case CS_ENG_T_C:
        CS_MM_MIRROR(float, 2);
        break;
    default:
        CS_MM_MIRROR(double, 2);
        break;
    }
}
