/*
 * engine/kernels/xform_transposed.c - the transposed transform with
 * arithmetic (d = alpha op(s)^T + beta d and its special cases, op a
 * conjugate for complex types or nothing) of all four types, fused into
 * the register transpose (body: xform_transposed_tmpl.h).
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
 * FMA, so nothing is fused; complex products below).  Measured (complex,
 * bench_kernels, thread CPU time, a = 2, b = 3): through the 64 x 64
 * buffer and the element loop double complex 16 GB/s at 2000 and 4000,
 * float complex 14-15; fused 26-32 and 16-17 (z), 33-34 and 18-20 (c); b =
 * 0: 15 -> 21-29.
 */
#include <complex.h>
#include <stdint.h>

#include "engine/kernels/kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include "engine/kernels/avx_transpose.h"

#define TK_T double
#define TK_V __m256d
#define TK_SV __m256d
#define TK_W 4
#define TK_NAME(x) x##_d
#define TK_SET1 _mm256_set1_pd
#define TK_LOADU _mm256_loadu_pd
#define TK_STOREU _mm256_storeu_pd
#define TK_ADD _mm256_add_pd
#define TK_MUL _mm256_mul_pd
#define TK_CONJV(v) (v)
#define TK_CONJS(x) (x)
#define TK_TRANSPOSE transpose4_d
#include "engine/kernels/xform_transposed_tmpl.h"

#define TK_T float
#define TK_V __m256
#define TK_SV __m256
#define TK_W 8
#define TK_NAME(x) x##_s
#define TK_SET1 _mm256_set1_ps
#define TK_LOADU _mm256_loadu_ps
#define TK_STOREU _mm256_storeu_ps
#define TK_ADD _mm256_add_ps
#define TK_MUL _mm256_mul_ps
#define TK_CONJV(v) (v)
#define TK_CONJS(x) (x)
#define TK_TRANSPOSE transpose8_s
#include "engine/kernels/xform_transposed_tmpl.h"

/*
 * Complex elements: a scalar's real and imaginary parts each spread over a
 * vector.  RATIONALE: with -fcx-fortran-rules, C multiplies x = (xr, xi)
 * by a = (ar, ai) as (ar xr - ai xi, ar xi + ai xr): two products per
 * part, then one subtraction or addition, no fused step.  (ar xr, ar xi)
 * and (ai xi, ai xr) (the vector with its parts swapped) combined by
 * addsub give exactly those roundings.  Conjugation flips the sign bits
 * of the imaginary parts, as conj() does.
 */
typedef struct {
    __m256d re, im;
} cs_tk_zv_t;

__attribute__((target("avx"))) static inline cs_tk_zv_t tk_set1_z(double
                                                                   _Complex x)
{
    return (cs_tk_zv_t){_mm256_set1_pd(__real__ x), _mm256_set1_pd(__imag__ x)};
}

__attribute__((target("avx"))) static inline __m256d tk_mul_z(cs_tk_zv_t a,
                                                              __m256d x)
{
    return _mm256_addsub_pd(_mm256_mul_pd(a.re, x),
                            _mm256_mul_pd(a.im, _mm256_permute_pd(x, 0x5)));
}

__attribute__((target("avx"))) static inline __m256d tk_conj_z(__m256d v)
{
    return _mm256_xor_pd(
        v, _mm256_castsi256_pd(_mm256_set_epi64x(INT64_MIN, 0, INT64_MIN, 0)));
}

/* 2 x 2 double complex: two rows of two become two columns. */
__attribute__((target("avx"))) static inline void
transpose2_z(const double _Complex *s, int64_t srs, __m256d c[2])
{
    __m256d a = _mm256_loadu_pd((const double *)(const void *)s);
    __m256d b = _mm256_loadu_pd((const double *)(const void *)(s + srs));
    c[0] = _mm256_permute2f128_pd(a, b, 0x20);
    c[1] = _mm256_permute2f128_pd(a, b, 0x31);
}

#define TK_T double _Complex
#define TK_V __m256d
#define TK_SV cs_tk_zv_t
#define TK_W 2
#define TK_NAME(x) x##_z
#define TK_SET1 tk_set1_z
#define TK_LOADU(p) _mm256_loadu_pd((const double *)(const void *)(p))
#define TK_STOREU(p, v) _mm256_storeu_pd((double *)(void *)(p), v)
#define TK_ADD _mm256_add_pd
#define TK_MUL tk_mul_z
#define TK_CONJV tk_conj_z
#define TK_CONJS(x) conj(x)
#define TK_TRANSPOSE transpose2_z
#include "engine/kernels/xform_transposed_tmpl.h"

typedef struct {
    __m256 re, im;
} cs_tk_cv_t;

__attribute__((target("avx"))) static inline cs_tk_cv_t tk_set1_c(float
                                                                  _Complex x)
{
    return (cs_tk_cv_t){_mm256_set1_ps(__real__ x), _mm256_set1_ps(__imag__ x)};
}

__attribute__((target("avx"))) static inline __m256 tk_mul_c(cs_tk_cv_t a,
                                                             __m256 x)
{
    return _mm256_addsub_ps(_mm256_mul_ps(a.re, x),
                            _mm256_mul_ps(a.im, _mm256_permute_ps(x, 0xB1)));
}

__attribute__((target("avx"))) static inline __m256 tk_conj_c(__m256 v)
{
    return _mm256_xor_ps(
        v, _mm256_castsi256_ps(_mm256_set1_epi64x(INT64_MIN)));
}

/* 4 x 4 float complex: moved as 8-byte units, like doubles. */
__attribute__((target("avx"))) static inline void
transpose4_c(const float _Complex *s, int64_t srs, __m256 c[4])
{
    __m256d t[4];
    transpose4_d((const double *)(const void *)s, srs, t);
    for (int k = 0; k < 4; k++) {
        c[k] = _mm256_castpd_ps(t[k]);
    }
}

#define TK_T float _Complex
#define TK_V __m256
#define TK_SV cs_tk_cv_t
#define TK_W 4
#define TK_NAME(x) x##_c
#define TK_SET1 tk_set1_c
#define TK_LOADU(p) _mm256_loadu_ps((const float *)(const void *)(p))
#define TK_STOREU(p, v) _mm256_storeu_ps((float *)(void *)(p), v)
#define TK_ADD _mm256_add_ps
#define TK_MUL tk_mul_c
#define TK_CONJV tk_conj_c
#define TK_CONJS(x) conjf(x)
#define TK_TRANSPOSE transpose4_c
#include "engine/kernels/xform_transposed_tmpl.h"
#endif

int cs_eng_xform_transposed(const cs_eng_xform_t *x, int64_t rows,
                            int64_t cols, const void *s, int64_t srs,
                            void *d, int64_t dcs)
{
    int m = x->mode;
    if (x->type < CS_ENG_T_S || x->type > CS_ENG_T_Z ||
        x->mask != CS_ENG_MASK_NONE ||
        (m != CS_XM_A1B && m != CS_XM_A1B1 && m != CS_XM_AB0 &&
         m != CS_XM_AB && m != CS_XM_AB1)) {
        return 0;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (!cs_eng_cpu_avx()) {
        return 0;
    }
    /* Fortran REAL and COMPLEX arithmetic: single precision scalars in
     * single precision (as xform_tmpl.h's CS_XMAKE) */
    switch (x->type) {
    case CS_ENG_T_D:
        tkern_avx_d(m, 0, x->alpha[0], x->beta[0], rows, cols,
                    (const double *)s, srs, (double *)d, dcs);
        break;
    case CS_ENG_T_S:
        tkern_avx_s(m, 0, (float)x->alpha[0], (float)x->beta[0], rows, cols,
                    (const float *)s, srs, (float *)d, dcs);
        break;
    case CS_ENG_T_Z:
        tkern_avx_z(m, x->conj, CMPLX(x->alpha[0], x->alpha[1]),
                    CMPLX(x->beta[0], x->beta[1]), rows, cols,
                    (const double _Complex *)s, srs, (double _Complex *)d,
                    dcs);
        break;
    default:
        tkern_avx_c(m, x->conj,
                    CMPLXF((float)x->alpha[0], (float)x->alpha[1]),
                    CMPLXF((float)x->beta[0], (float)x->beta[1]), rows, cols,
                    (const float _Complex *)s, srs, (float _Complex *)d, dcs);
        break;
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
