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
#include <immintrin.h>

/* 4 x 4 doubles: source rows s, s + srs, ... (4 contiguous elements each)
 * become c[0..3], the target columns. */
__attribute__((target("avx"))) static inline void
transpose4_d(const double *s, int64_t srs, __m256d c[4])
{
    __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + srs);
    __m256d r2 = _mm256_loadu_pd(s + 2 * srs);
    __m256d r3 = _mm256_loadu_pd(s + 3 * srs);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    c[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
    c[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
    c[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
    c[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/* 8 x 8 floats, the same way: pairs interleaved, then quadruples, then
 * 128-bit halves exchanged. */
__attribute__((target("avx"))) static inline void
transpose8_s(const float *s, int64_t srs, __m256 c[8])
{
    __m256 r[8], t[8], u[8];
    for (int k = 0; k < 8; k++) {
        r[k] = _mm256_loadu_ps(s + k * srs);
    }
    for (int k = 0; k < 8; k += 2) {
        t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);
        t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
        u[h] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[h + 1] = _mm256_shuffle_ps(t[h], t[h + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[h + 2] =
            _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[h + 3] =
            _mm256_shuffle_ps(t[h + 1], t[h + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int k = 0; k < 4; k++) {
        c[k] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x20);
        c[k + 4] = _mm256_permute2f128_ps(u[k], u[k + 4], 0x31);
    }
}

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
