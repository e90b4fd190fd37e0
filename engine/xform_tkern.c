/*
 * engine/xform_tkern.c - the transposed transform of real doubles and
 * floats with arithmetic (d = alpha s^T + beta d and its special cases),
 * fused into the register transpose (body: xform_tkern_tmpl.h).
 *
 * RATIONALE: the generic path (xform.c: transpose a 64 x 64 piece into a
 * buffer, then compute on it) reads the target in 512-byte column pieces
 * that the prefetchers do not follow; it ran at 16 GB/s where the plain
 * transpose runs at 22 (bench_kernels 4000, CI machine).  Here the target
 * is visited like the transpose kernel's: strips of source rows walked
 * left to right, each target column receiving one cache line per visit,
 * and the arithmetic happens in the registers between the transpose and
 * the store.
 *
 * Bit-exactness: each element gets the same IEEE operations in the same
 * order as xform_tmpl.h's element function (a multiply, then an add; the
 * library is built with -ffp-contract=off and this file's target has no
 * FMA, so nothing is fused).
 */
#include <stdint.h>

#include "engine/engine_int.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "engine/avx_transpose.h"

#define TK_T double
#define TK_V __m256d
#define TK_W 4
#define TK_NAME(x) x##_d
#define TK_SET1 _mm256_set1_pd
#define TK_LOADU _mm256_loadu_pd
#define TK_STOREU _mm256_storeu_pd
#define TK_ADD _mm256_add_pd
#define TK_MUL _mm256_mul_pd
#define TK_TRANSPOSE transpose4_d
#include "engine/xform_tkern_tmpl.h"

#define TK_T float
#define TK_V __m256
#define TK_W 8
#define TK_NAME(x) x##_s
#define TK_SET1 _mm256_set1_ps
#define TK_LOADU _mm256_loadu_ps
#define TK_STOREU _mm256_storeu_ps
#define TK_ADD _mm256_add_ps
#define TK_MUL _mm256_mul_ps
#define TK_TRANSPOSE transpose8_s
#include "engine/xform_tkern_tmpl.h"

static int have_avx(void)
{
    static int have = -1;
    if (have < 0) {
        have = __builtin_cpu_supports("avx") ? 1 : 0;
    }
    return have;
}
#endif

int cs_eng_xform_transposed(const cs_eng_xform_t *x, int64_t rows,
                            int64_t cols, const void *s, int64_t srs,
                            void *d, int64_t dcs)
{
    int m = x->mode;
    if ((x->type != CS_ENG_T_D && x->type != CS_ENG_T_S) || x->conj ||
        x->mask != CS_ENG_MASK_NONE ||
        (m != CS_XM_A1B && m != CS_XM_A1B1 && m != CS_XM_AB0 &&
         m != CS_XM_AB && m != CS_XM_AB1)) {
        return 0;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (!have_avx()) {
        return 0;
    }
    if (x->type == CS_ENG_T_D) {
        tkern_avx_d(m, x->alpha[0], x->beta[0], rows, cols,
                    (const double *)s, srs, (double *)d, dcs);
    } else {
        /* Fortran REAL arithmetic: the scalars in single precision */
        tkern_avx_s(m, (float)x->alpha[0], (float)x->beta[0], rows, cols,
                    (const float *)s, srs, (float *)d, dcs);
    }
    return 1;
#else
    (void)rows;
    (void)cols;
    (void)s;
    (void)srs;
    (void)d;
    (void)dcs;
    return 0;
#endif
}
