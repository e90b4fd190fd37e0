/*
 * engine/xform_tkern.c - the transposed transform of real doubles with
 * arithmetic (d = alpha s^T + beta d and its special cases), fused into the
 * register transpose.
 *
 * RATIONALE: the generic path (xform.c: transpose a 64 x 64 piece into a
 * buffer, then compute on it) reads the target in 512-byte column pieces
 * that the prefetchers do not follow; it ran at 16 GB/s where the plain
 * transpose runs at 22 (bench_kernels 4000, CI machine).  Here the target
 * is visited like the transpose kernel's: strips of 8 source rows walked
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

/* One element, as xform_tmpl.h computes it for doubles. */
static inline __attribute__((always_inline)) double
op_d(int mode, double al, double be, double a, double c)
{
    switch (mode) {
    case CS_XM_A1B:
        return a + be * c;
    case CS_XM_A1B1:
        return c + a;
    case CS_XM_AB0:
        return al * a;
    case CS_XM_AB:
        return al * a + be * c;
    default: /* CS_XM_AB1 */
        return c + al * a;
    }
}

/* The element loop for the ragged edges: d[r + c dcs] from s[r srs + c]. */
static inline __attribute__((always_inline)) void
edge_d(int mode, double al, double be, int64_t rows, int64_t cols,
       const double *s, int64_t srs, double *d, int64_t dcs)
{
    for (int64_t c = 0; c < cols; c++) {
        for (int64_t r = 0; r < rows; r++) {
            double *dp = d + r + c * dcs;
            *dp = op_d(mode, al, be, s[r * srs + c], *dp);
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

__attribute__((target("avx"))) static inline __m256d
vop_d(int mode, __m256d al, __m256d be, __m256d a, const double *dp)
{
    switch (mode) {
    case CS_XM_A1B:
        return _mm256_add_pd(a, _mm256_mul_pd(be, _mm256_loadu_pd(dp)));
    case CS_XM_A1B1:
        return _mm256_add_pd(_mm256_loadu_pd(dp), a);
    case CS_XM_AB0:
        return _mm256_mul_pd(al, a);
    case CS_XM_AB:
        return _mm256_add_pd(_mm256_mul_pd(al, a),
                             _mm256_mul_pd(be, _mm256_loadu_pd(dp)));
    default: /* CS_XM_AB1 */
        return _mm256_add_pd(_mm256_loadu_pd(dp), _mm256_mul_pd(al, a));
    }
}

/* A 4 x 4 block: source rows s, s + srs, ... (4 contiguous elements each)
 * become target columns d, d + dcs, ... */
__attribute__((target("avx"))) static inline void
kern_d(int mode, __m256d al, __m256d be, const double *s, int64_t srs,
       double *d, int64_t dcs)
{
    __m256d r0 = _mm256_loadu_pd(s), r1 = _mm256_loadu_pd(s + srs);
    __m256d r2 = _mm256_loadu_pd(s + 2 * srs);
    __m256d r3 = _mm256_loadu_pd(s + 3 * srs);
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    __m256d c0 = _mm256_permute2f128_pd(t0, t2, 0x20);
    __m256d c1 = _mm256_permute2f128_pd(t1, t3, 0x20);
    __m256d c2 = _mm256_permute2f128_pd(t0, t2, 0x31);
    __m256d c3 = _mm256_permute2f128_pd(t1, t3, 0x31);
    _mm256_storeu_pd(d, vop_d(mode, al, be, c0, d));
    _mm256_storeu_pd(d + dcs, vop_d(mode, al, be, c1, d + dcs));
    _mm256_storeu_pd(d + 2 * dcs, vop_d(mode, al, be, c2, d + 2 * dcs));
    _mm256_storeu_pd(d + 3 * dcs, vop_d(mode, al, be, c3, d + 3 * dcs));
}

/* Strips of 8 source rows (two kernels high), left to right; the edges
 * through the element loop. */
enum { TK_STRIP = 8 };

__attribute__((target("avx"))) static inline
    __attribute__((always_inline)) void
tkern_d(int mode, double al, double be, int64_t rows, int64_t cols,
        const double *s, int64_t srs, double *d, int64_t dcs)
{
    __m256d val = _mm256_set1_pd(al), vbe = _mm256_set1_pd(be);
    int64_t rb = rows / TK_STRIP * TK_STRIP, cb = cols / 4 * 4;
    for (int64_t r0 = 0; r0 < rb; r0 += TK_STRIP) {
        for (int64_t c = 0; c < cb; c += 4) {
            kern_d(mode, val, vbe, s + r0 * srs + c, srs, d + r0 + c * dcs,
                   dcs);
            kern_d(mode, val, vbe, s + (r0 + 4) * srs + c, srs,
                   d + r0 + 4 + c * dcs, dcs);
        }
    }
    edge_d(mode, al, be, rows - rb, cb, s + rb * srs, srs, d + rb, dcs);
    edge_d(mode, al, be, rows, cols - cb, s + cb, srs, d + cb * dcs, dcs);
}

/* One specialised copy per mode (the mode is a constant in each). */
__attribute__((target("avx"))) static void
tkern_d_avx(int mode, double al, double be, int64_t rows, int64_t cols,
            const double *s, int64_t srs, double *d, int64_t dcs)
{
    switch (mode) {
    case CS_XM_A1B:
        tkern_d(CS_XM_A1B, al, be, rows, cols, s, srs, d, dcs);
        break;
    case CS_XM_A1B1:
        tkern_d(CS_XM_A1B1, al, be, rows, cols, s, srs, d, dcs);
        break;
    case CS_XM_AB0:
        tkern_d(CS_XM_AB0, al, be, rows, cols, s, srs, d, dcs);
        break;
    case CS_XM_AB:
        tkern_d(CS_XM_AB, al, be, rows, cols, s, srs, d, dcs);
        break;
    default:
        tkern_d(CS_XM_AB1, al, be, rows, cols, s, srs, d, dcs);
        break;
    }
}

static int have_avx(void)
{
    static int have = -1;
    if (have < 0) {
        have = __builtin_cpu_supports("avx") ? 1 : 0;
    }
    return have;
}
#endif

int cs_eng_xform_transposed_d(const cs_eng_xform_t *x, int64_t rows,
                              int64_t cols, const void *s, int64_t srs,
                              void *d, int64_t dcs)
{
    int m = x->mode;
    if (x->type != CS_ENG_T_D || x->conj || x->mask != CS_ENG_MASK_NONE ||
        (m != CS_XM_A1B && m != CS_XM_A1B1 && m != CS_XM_AB0 &&
         m != CS_XM_AB && m != CS_XM_AB1)) {
        return 0;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (have_avx()) {
        tkern_d_avx(m, x->alpha[0], x->beta[0], rows, cols,
                    (const double *)s, srs, (double *)d, dcs);
        return 1;
    }
#else
    (void)rows;
    (void)cols;
    (void)s;
    (void)srs;
    (void)d;
    (void)dcs;
#endif
    return 0;
}
