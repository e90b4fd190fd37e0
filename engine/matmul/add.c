/*
 * engine/matmul/add.c - the sum of partial products (matmul_int.h): the
 * reduce-scatters of mm.c and pieces.c add the pieces they receive into
 * their own with it, in the same order on every process.
 */
#include "engine/matmul/matmul_int.h"

void cs_eng_mm_add(void *dst, const void *src, int64_t n, int type)
{
    if (type == CS_ENG_T_S || type == CS_ENG_T_C) {
        float *d = dst;
        const float *s = src;
        for (int64_t k = 0; k < n; k++) {
            d[k] += s[k];
        }
    } else {
        double *d = dst;
        const double *s = src;
        for (int64_t k = 0; k < n; k++) {
            d[k] += s[k];
        }
    }
}
