/*
 * engine/kernels/avx_transpose.h - register transposes shared by the copy
 * kernels (copy.c) and the transposed arithmetic (xform_transposed.c):
 * source rows s, s + srs, ... (contiguous elements each) become the
 * registers c[], the target columns.  Bit moves only (unpack, shuffle,
 * lane exchange), so NaN payloads survive.  x86-64 with GCC or Clang
 * only; include it there.
 */
#ifndef CS_ENGINE_KERNELS_AVX_TRANSPOSE_H
#define CS_ENGINE_KERNELS_AVX_TRANSPOSE_H

#include <immintrin.h>
#include <stdint.h>

/* 4 x 4 doubles (or any 8-byte elements). */
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

/* 8 x 8 floats (or any 4-byte elements), the same way: pairs
 * interleaved, then quadruples, then 128-bit halves exchanged. */
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

#endif /* CS_ENGINE_KERNELS_AVX_TRANSPOSE_H */
