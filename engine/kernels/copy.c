/*
 * engine/kernels/copy.c - the copy kernels of pack, unpack and local
 * copies, plain, streaming and transposed.
 *
 * Bit-exact byte copies; no arithmetic, so NaN payloads survive.  The common
 * case (both sides column-major) is one memcpy per column, or one memcpy for
 * the whole block when both sides are dense.  Other stride combinations
 * (row-major local storage) go through a tiled element loop.
 * Serial: callers parallelise over blocks or columns.
 */
#include <stdint.h>
#include <string.h>

#include "engine/kernels/kernels.h"

enum { TILE = 32 };

/* From this many bytes on, streaming copies use non-temporal stores
 * (column pieces up to CS_ENG_PREFETCH_AHEAD_MAX get the next one asked
 * for ahead). */
enum { CS_ENG_STREAM_MIN_RUN = 2048 };

/* Tiled element copy.  Always inlined and called with a literal esize, so
 * each call site gets a fixed-size load/store instead of a memcpy call. */
static inline __attribute__((always_inline)) void
tiled(size_t esize, int64_t rows, int64_t cols, const char *s, int64_t srs,
      int64_t scs, char *d, int64_t drs, int64_t dcs)
{
    for (int64_t c0 = 0; c0 < cols; c0 += TILE) {
        int64_t c1 = c0 + TILE < cols ? c0 + TILE : cols;
        for (int64_t r0 = 0; r0 < rows; r0 += TILE) {
            int64_t r1 = r0 + TILE < rows ? r0 + TILE : rows;
            for (int64_t c = c0; c < c1; c++) {
                for (int64_t r = r0; r < r1; r++) {
                    memcpy(d + (size_t)(r * drs + c * dcs) * esize,
                           s + (size_t)(r * srs + c * scs) * esize, esize);
                }
            }
        }
    }
}

/*
 * The transpose proper: d[r + c * dcs] = s[r * srs + c] (source rows
 * contiguous, destination columns contiguous).  RATIONALE: measured on the
 * development machine (4000 x 4000 doubles, ld 4000), a straight element
 * loop reaches a fifth of memcpy speed because nearly every access touches
 * another page; walking strips of TC destination columns top to bottom in
 * TR-row steps keeps TC + TR pages and their cache lines live, and an AVX
 * 4 x 4 register transpose (when the CPU has it) halves the instruction
 * count: 2.9 GB/s became about 6-7 GB/s (memcpy: 15-17 GB/s).
 */
enum { CS_ENG_TC = 16, CS_ENG_TR = 8 };

/* cj: conjugate complex elements on the way, by flipping the sign bit of
 * their imaginary part, the element's last byte on x86-64 (the only
 * target that conjugates here, see cs_eng_transpose_conj). */
static inline __attribute__((always_inline)) void
transpose_es(size_t esize, int cj, int64_t rows, int64_t cols,
             const char *s, int64_t srs, char *d, int64_t dcs)
{
    for (int64_t c0 = 0; c0 < cols; c0 += CS_ENG_TC) {
        int64_t c1 = c0 + CS_ENG_TC < cols ? c0 + CS_ENG_TC : cols;
        for (int64_t r0 = 0; r0 < rows; r0 += CS_ENG_TR) {
            int64_t r1 = r0 + CS_ENG_TR < rows ? r0 + CS_ENG_TR : rows;
            for (int64_t c = c0; c < c1; c++) {
                for (int64_t r = r0; r < r1; r++) {
                    char *t = d + (size_t)(r + c * dcs) * esize;
                    memcpy(t, s + (size_t)(r * srs + c) * esize, esize);
                    if (cj) {
                        t[esize - 1] = (char)(t[esize - 1] ^ 0x80);
                    }
                }
            }
        }
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#include "engine/kernels/avx_transpose.h"

/* 4 x 4 doubles (or 8-byte elements) through AVX registers; nt: streaming
 * stores (d and d + dcs 32-byte aligned). */
__attribute__((target("avx"))) static inline void
store4_d(double *d, __m256d v, int nt)
{
    if (nt) {
        _mm256_stream_pd(d, v);
    } else {
        _mm256_storeu_pd(d, v);
    }
}

/* cj: conjugate on the way, by flipping the sign bits in flip (the same
 * bits as negating the imaginary parts, which is what conj() does) */
__attribute__((target("avx"))) static inline __m256d
conj_d(__m256d v, int cj, __m256d flip)
{
    return cj ? _mm256_xor_pd(v, flip) : v;
}

/* 8-byte elements that are float complex: the sign of each high half */
__attribute__((target("avx"))) static inline __m256d flip_c(void)
{
    return _mm256_castsi256_pd(_mm256_set1_epi64x(INT64_MIN));
}

/* two double complex per register: the signs of lanes 1 and 3 */
__attribute__((target("avx"))) static inline __m256d flip_z(void)
{
    return _mm256_castsi256_pd(_mm256_set_epi64x(INT64_MIN, 0, INT64_MIN, 0));
}

__attribute__((target("avx"))) static inline void
transpose4x4_d(const double *s, int64_t srs, double *d, int64_t dcs, int nt,
               int cj)
{
    __m256d f = flip_c(), c[4];
    transpose4_d(s, srs, c);
    for (int k = 0; k < 4; k++) {
        store4_d(d + k * dcs, conj_d(c[k], cj, f), nt);
    }
}

/* One micro-kernel: a B x B block, strides in elements of its type. */
typedef void (*cs_eng_tkern_t)(const char *s, int64_t srs, char *d,
                               int64_t dcs);

/*
 * The register kernel walked over the source in strips of CS_ENG_TS rows,
 * left to right, with the element loop on the ragged edges.  RATIONALE:
 * measured on the CI machine (AMD EPYC, 4000 x 4000 doubles), walking
 * strips of destination columns top to bottom (the order of
 * transpose_es()) reached 12-19 GB/s, this order 19-26 GB/s: each of the
 * strip's source rows is read front to back (the prefetchers follow
 * CS_ENG_TS streams), and each destination column receives one whole
 * cache line (CS_ENG_TS elements of 8 bytes) per visit (more where the
 * target's columns are a multiple of 512 bytes apart: cs_eng_strip_bytes).
 * Always inlined with a constant kernel, so the kernel is inlined too and
 * each caller keeps its target.
 */
enum { CS_ENG_TS = 8 };

static inline __attribute__((always_inline)) void
transpose_strips(size_t es, int cj, int64_t b, cs_eng_tkern_t kern,
                 int64_t ts, int64_t rows, int64_t cols, const char *s,
                 int64_t srs, char *d, int64_t dcs)
{
    int64_t cb = cols / b * b, e = (int64_t)es;
    int64_t rb = rows / ts * ts;
    /* short source rows: the next strip's asked for while this one is
     * transposed, a line of each of its rows per line of this one's */
    int ahead = cols * e <= CS_ENG_PREFETCH_AHEAD_MAX;
    for (int64_t r0 = 0; r0 < rb; r0 += ts) {
        int64_t nnext = ahead ? rows - r0 - ts : 0;
        nnext = nnext < ts ? nnext : ts;
        const char *nx = s + (r0 + ts) * srs * e;
        for (int64_t c = 0; c < cb; c += b) {
            if ((c * e) % 64 == 0) {
                for (int64_t i = 0; i < nnext; i++) {
                    __builtin_prefetch(nx + (i * srs + c) * e, 0, 0);
                }
            }
            for (int64_t r = r0; r < r0 + ts; r += b) {
                kern(s + (r * srs + c) * e, srs, d + (r + c * dcs) * e, dcs);
            }
        }
    }
    transpose_es(es, cj, rows - rb, cb, s + rb * srs * e, srs, d + rb * e,
                 dcs);
    transpose_es(es, cj, rows, cols - cb, s + cb * e, srs, d + cb * dcs * e,
                 dcs);
}

/* CS_ENG_TS rows per strip (8- and 16-byte elements; twice as many of
 * 4-byte ones), four times as many where the target's columns want four
 * lines per visit (cs_eng_strip_bytes).  RATIONALE: the strip height is a
 * constant in each branch, so the strip's kernel calls unroll; as a
 * variable it cost the unaliased streaming transpose 61-64 -> 35-42 GB/s
 * (2000 x 2000). */
static inline __attribute__((always_inline)) void
transpose_blocked(size_t es, int cj, int64_t b, cs_eng_tkern_t kern,
                  int64_t rows, int64_t cols, const char *s, int64_t srs,
                  char *d, int64_t dcs)
{
    /* 4-byte elements: twice the rows, so that a visit fills a line */
    int64_t ts = es == 4 ? 2 * CS_ENG_TS : CS_ENG_TS;
    if (cs_eng_strip_bytes(dcs * (int64_t)es) > 64) {
        transpose_strips(es, cj, b, kern, 4 * ts / b * b, rows, cols, s, srs,
                         d, dcs);
    } else {
        transpose_strips(es, cj, b, kern, ts / b * b, rows, cols, s, srs, d,
                         dcs);
    }
}

/* RATIONALE: loads and stores of raw bit patterns through double
 * registers are exact (no arithmetic), so this serves every 8-byte type.
 *
 * One register kernel and one whole transpose per element size, store
 * kind (nt) and conjugation (cj), each with its options as constants so
 * that transpose_blocked specialises them. */
#define CS_ENG_TRANSPOSE_FNS(kname, tname, es, b, cj, call)                   \
    __attribute__((target("avx"))) static inline void kname(                  \
        const char *s, int64_t srs, char *d, int64_t dcs)                     \
    {                                                                         \
        call;                                                                 \
    }                                                                         \
    __attribute__((target("avx"))) static void tname(                         \
        int64_t rows, int64_t cols, const char *s, int64_t srs, char *d,      \
        int64_t dcs)                                                          \
    {                                                                         \
        transpose_blocked(es, cj, b, kname, rows, cols, s, srs, d, dcs);      \
    }

#define CS_ENG_D(nt, cj)                                                      \
    transpose4x4_d((const double *)(const void *)s, srs,                      \
                   (double *)(void *)d, dcs, nt, cj)
CS_ENG_TRANSPOSE_FNS(kern8, transpose_8_avx, 8, 4, 0, CS_ENG_D(0, 0))
CS_ENG_TRANSPOSE_FNS(kern8_nt, transpose_8_avx_nt, 8, 4, 0, CS_ENG_D(1, 0))
CS_ENG_TRANSPOSE_FNS(kern8c, transpose_8c_avx, 8, 4, 1, CS_ENG_D(0, 1))
CS_ENG_TRANSPOSE_FNS(kern8c_nt, transpose_8c_avx_nt, 8, 4, 1,
                     CS_ENG_D(1, 1))

/* 8 x 8 floats (4-byte elements) through AVX registers; nt: streaming
 * stores (d and d + dcs 32-byte aligned). */
__attribute__((target("avx"))) static inline void
store8_s(float *d, __m256 v, int nt)
{
    if (nt) {
        _mm256_stream_ps(d, v);
    } else {
        _mm256_storeu_ps(d, v);
    }
}

__attribute__((target("avx"))) static inline void
transpose8x8_s(const float *s, int64_t srs, float *d, int64_t dcs, int nt)
{
    __m256 c[8];
    transpose8_s(s, srs, c);
    for (int k = 0; k < 8; k++) {
        store8_s(d + k * dcs, c[k], nt);
    }
}

#define CS_ENG_S(nt)                                                          \
    transpose8x8_s((const float *)(const void *)s, srs, (float *)(void *)d, \
                   dcs, nt)
CS_ENG_TRANSPOSE_FNS(kern4a, transpose_4_avx, 4, 8, 0, CS_ENG_S(0))
CS_ENG_TRANSPOSE_FNS(kern4a_nt, transpose_4_avx_nt, 4, 8, 0, CS_ENG_S(1))

/* 2 x 2 16-byte elements (double complex) through AVX registers. */
__attribute__((target("avx"))) static inline void
transpose2x2_z(const char *s, int64_t srs, char *d, int64_t dcs, int nt,
               int cj)
{
    const double *s0 = (const double *)(const void *)s;
    double *d0 = (double *)(void *)d;
    __m256d f = flip_z();
    __m256d a = _mm256_loadu_pd(s0), b = _mm256_loadu_pd(s0 + 2 * srs);
    store4_d(d0, conj_d(_mm256_permute2f128_pd(a, b, 0x20), cj, f), nt);
    store4_d(d0 + 2 * dcs, conj_d(_mm256_permute2f128_pd(a, b, 0x31), cj, f),
             nt);
}

#define CS_ENG_Z(nt, cj) transpose2x2_z(s, srs, d, dcs, nt, cj)
CS_ENG_TRANSPOSE_FNS(kern16, transpose_16_avx, 16, 2, 0, CS_ENG_Z(0, 0))
CS_ENG_TRANSPOSE_FNS(kern16_nt, transpose_16_avx_nt, 16, 2, 0,
                     CS_ENG_Z(1, 0))
CS_ENG_TRANSPOSE_FNS(kern16c, transpose_16c_avx, 16, 2, 1, CS_ENG_Z(0, 1))
CS_ENG_TRANSPOSE_FNS(kern16c_nt, transpose_16c_avx_nt, 16, 2, 1,
                     CS_ENG_Z(1, 1))

/* A whole transpose of 4-, 8- or 16-byte elements, conjugated (cj, 8 and
 * 16 only) or not, with normal or streaming stores. */
typedef void (*cs_eng_tfun_t)(int64_t rows, int64_t cols, const char *s,
                              int64_t srs, char *d, int64_t dcs);

static cs_eng_tfun_t tfun(size_t es, int cj, int nt)
{
    if (es == 4) {
        return nt ? transpose_4_avx_nt : transpose_4_avx; /* never cj */
    }
    static const cs_eng_tfun_t f[2][2][2] = {
        {{transpose_8_avx, transpose_8_avx_nt},
         {transpose_8c_avx, transpose_8c_avx_nt}},
        {{transpose_16_avx, transpose_16_avx_nt},
         {transpose_16c_avx, transpose_16c_avx_nt}}};
    return f[es == 16][cj != 0][nt != 0];
}

/*
 * Streaming copy of n bytes: plain copies up to the first 32-byte aligned
 * destination address and after the last, streaming stores between.
 */
__attribute__((target("avx"))) static void
copy_stream(char *d, const char *s, size_t n)
{
    size_t head = (32 - (uintptr_t)d % 32) % 32;
    if (n < head + 64) {
        memcpy(d, s, n);
        return;
    }
    memcpy(d, s, head);
    size_t i = head;
    for (; i + 64 <= n; i += 64) {
        __m256d v0 = _mm256_loadu_pd((const double *)(const void *)(s + i));
        __m256d v1 =
            _mm256_loadu_pd((const double *)(const void *)(s + i + 32));
        _mm256_stream_pd((double *)(void *)(d + i), v0);
        _mm256_stream_pd((double *)(void *)(d + i + 32), v1);
    }
    memcpy(d + i, s + i, n - i);
}

/*
 * The streaming transpose where both sides alias: target columns a
 * multiple of 512 bytes apart (cs_eng_strip_bytes) and source rows a
 * multiple of 2 KiB.  A group of target columns (shapes below) is
 * transposed into a buffer whose columns do not alias, then each column
 * streams to the target in one burst.  RATIONALE: measured (bench_tran, 2
 * ranks, 15 calls, 3 alternating runs, CI machine): pdtran 4096 x 4096 on
 * 1 x 2 (local ld 4096, packages 2 KiB apart) 12.9-13.9 -> 11.1-12.4 ms,
 * its local copy 4.3-4.8 -> 3.7-4.0 and unpack 3.8-4.2 -> 2.9-3.3 ms.
 * With the target alone aliasing it lost: pdtran 4000 x 4000 on 2 x 1
 * (target ld 2048, packages 1952 bytes apart) unpacked in 2.8-2.9 ms
 * instead of 1.9.  Copying the source strip into such a buffer instead
 * (the reads' cache sets) lost on both (local 4.2-4.6 -> 4.5-5.3 ms).
 * The buffer's shape follows the source: where its rows are a page or
 * more apart (a local array), 128 target columns of 512 bytes, so that
 * each visit reads 1 KiB of every source row; where they are closer (a
 * package), 32 columns of 1 KiB.  Measured (2026-12-03; more in
 * docs/design.md): 2048 x 2048 doubles alone, with `make bench` k's
 * local strides (ld 4096) 18.3-20.1 -> 24.8-26.2 GB/s, h's (ld 2048)
 * 15.0-19.3 -> 18.4-27.0; `bench_tran` (4 alternations) local copy h
 * 3.7-4.9 -> 2.5-3.1 ms, k 3.7-4.8 -> 3.1-3.9.  With the wide shape for
 * packages too, k's unpack (package columns 2 KiB apart) lost: 2.8-3.5
 * -> 3.1-3.6 ms.  The buffer takes 72 KiB of the stack.
 */
enum {
    CS_ENG_TST_BYTES = 1024, /* package sources */
    CS_ENG_TST_COLS = 32,
    CS_ENG_TSTW_BYTES = 512, /* sources whose rows are pages apart */
    CS_ENG_TSTW_COLS = 128,
    CS_ENG_TSTW_MIN_STRIDE = 4096, /* bytes between source rows */
    CS_ENG_TST_BUF = CS_ENG_TSTW_COLS * (CS_ENG_TSTW_BYTES + 64)
};

static void transpose_stream_staged(size_t es, int cj, int64_t rows,
                                    int64_t cols, const char *s, int64_t srs,
                                    char *d, int64_t dcs)
{
    _Static_assert(CS_ENG_TST_COLS * (CS_ENG_TST_BYTES + 64) <=
                       CS_ENG_TST_BUF,
                   "the staging buffer holds both shapes");
    _Alignas(64) char buf[CS_ENG_TST_BUF];
    int64_t e = (int64_t)es, wide = srs * e >= CS_ENG_TSTW_MIN_STRIDE;
    int64_t tb = wide ? CS_ENG_TSTW_BYTES : CS_ENG_TST_BYTES;
    int64_t tc = wide ? CS_ENG_TSTW_COLS : CS_ENG_TST_COLS;
    int64_t bst = tb + 64, rw = tb / e;
    for (int64_t r0 = 0; r0 < rows; r0 += rw) {
        int64_t nr = rows - r0 < rw ? rows - r0 : rw;
        for (int64_t c0 = 0; c0 < cols; c0 += tc) {
            int64_t nc = cols - c0 < tc ? cols - c0 : tc;
            tfun(es, cj, 0)(nr, nc, s + (r0 * srs + c0) * e, srs, buf,
                            bst / e);
            for (int64_t k = 0; k < nc; k++) {
                copy_stream(d + (r0 + (c0 + k) * dcs) * e, buf + k * bst,
                            (size_t)(nr * e));
            }
        }
    }
}

/*
 * Streaming transpose of 4-, 8- or 16-byte elements (4: never conjugated):
 * the register kernels store 32 bytes per destination column, which must be
 * 32-byte aligned, and a strip fills whole cache lines only when it starts
 * on a line.  When every column has the same alignment (dcs * es a multiple
 * of 64), the first rows up to the next 64-byte boundary go through the
 * plain kernel and the rest streams; otherwise returns 0 (not handled).
 * RATIONALE: 32-byte alignment left every line written half by one strip
 * and half by the next; 64 took a 4000 x 4000 pdtran's local transpose
 * from 5.5 to 4.7-5.0 ms per rank.
 */
static int transpose_stream(size_t es, int cj, int64_t rows, int64_t cols,
                            const char *s, int64_t srs, char *d, int64_t dcs)
{
    uintptr_t addr = (uintptr_t)d;
    if (!cs_eng_cpu_avx() || (es != 4 && es != 8 && es != 16) ||
        (es == 4 && cj) || (dcs * (int64_t)es) % 64 != 0 || addr % es != 0) {
        return 0;
    }
    int64_t peel = (int64_t)((64 - addr % 64) % 64 / es);
    peel = peel < rows ? peel : rows;
    int64_t e = (int64_t)es;
    tfun(es, cj, 0)(peel, cols, s, srs, d, dcs);
    if (cs_eng_strip_bytes(dcs * e) > 64 && (srs * e) % 2048 == 0) {
        transpose_stream_staged(es, cj, rows - peel, cols, s + peel * srs * e,
                                srs, d + peel * e, dcs);
    } else {
        tfun(es, cj, 1)(rows - peel, cols, s + peel * srs * e, srs,
                        d + peel * e, dcs);
    }
    _mm_sfence();
    return 1;
}

#endif

/* Transpose for the element sizes ScaLAPACK uses; 0 if not handled. */
static int transpose(size_t esize, int64_t rows, int64_t cols, const char *s,
                     int64_t srs, char *d, int64_t dcs)
{
    switch (esize) {
    case 4:
#if defined(__x86_64__) && defined(__GNUC__)
        if (cs_eng_cpu_avx()) {
            transpose_4_avx(rows, cols, s, srs, d, dcs);
            return 1;
        }
#endif
        transpose_es(4, 0, rows, cols, s, srs, d, dcs);
        return 1;
    case 8:
#if defined(__x86_64__) && defined(__GNUC__)
        if (cs_eng_cpu_avx()) {
            transpose_8_avx(rows, cols, s, srs, d, dcs);
            return 1;
        }
#endif
        transpose_es(8, 0, rows, cols, s, srs, d, dcs);
        return 1;
    case 16:
#if defined(__x86_64__) && defined(__GNUC__)
        if (cs_eng_cpu_avx()) {
            transpose_16_avx(rows, cols, s, srs, d, dcs);
            return 1;
        }
#endif
        transpose_es(16, 0, rows, cols, s, srs, d, dcs);
        return 1;
    default:
        return 0;
    }
}

static void copy_tiled(size_t esize, int64_t rows, int64_t cols,
                       const char *s, int64_t srs, int64_t scs, char *d,
                       int64_t drs, int64_t dcs)
{
    if (scs == 1 && drs == 1 && transpose(esize, rows, cols, s, srs, d, dcs)) {
        return;
    }
    switch (esize) {
    case 4:
        tiled(4, rows, cols, s, srs, scs, d, drs, dcs);
        break;
    case 8:
        tiled(8, rows, cols, s, srs, scs, d, drs, dcs);
        break;
    case 16:
        tiled(16, rows, cols, s, srs, scs, d, drs, dcs);
        break;
    default:
        tiled(esize, rows, cols, s, srs, scs, d, drs, dcs);
    }
}

static inline __attribute__((always_inline)) void
copy2d(int nt, size_t esize, int64_t rows, int64_t cols, const char *s,
       int64_t srs, int64_t scs, char *d, int64_t drs, int64_t dcs)
{
    if (rows <= 0 || cols <= 0) {
        return;
    }
    if (srs == 1 && drs == 1) {
        size_t colbytes = (size_t)rows * esize;
        if ((scs == rows && dcs == rows) || cols == 1) {
            colbytes *= (size_t)cols;
            cols = 1;
        }
        /* streaming stores pay only on whole cache lines: a piece
         * shorter than 2 KiB has a partial line at each end (a 4000 x
         * 4000 1x2 -> 2x1 pdgemr2d took 7.4 -> 3.6-4.8 ms with plain
         * stores there) */
#if defined(__x86_64__) && defined(__GNUC__)
        int stream = nt && colbytes >= CS_ENG_STREAM_MIN_RUN &&
                     cs_eng_cpu_avx();
#endif
        for (int64_t c = 0; c < cols; c++) {
            char *dc = d + (size_t)(c * dcs) * esize;
            const char *sc = s + (size_t)(c * scs) * esize;
            /* RATIONALE: short columns are too short for the hardware
             * prefetcher to follow; asking for the next one while this
             * one is copied took a 4000 x 4000 1x2 -> 2x1 pdgemr2d (64
             * element pieces) from 10 to 7.5-8.8 ms of local copying. */
            if (c + 1 < cols &&
                (int64_t)colbytes <= CS_ENG_PREFETCH_AHEAD_MAX) {
                cs_eng_prefetch(sc + (size_t)scs * esize, (int64_t)colbytes);
            }
#if defined(__x86_64__) && defined(__GNUC__)
            if (stream) {
                copy_stream(dc, sc, colbytes);
                continue;
            }
#endif
            memcpy(dc, sc, colbytes);
        }
#if defined(__x86_64__) && defined(__GNUC__)
        if (nt) {
            _mm_sfence();
        }
#endif
        return;
    }
    if (scs == 1 && dcs == 1) {
        size_t rowbytes = (size_t)cols * esize;
        for (int64_t r = 0; r < rows; r++) {
            memcpy(d + (size_t)(r * drs) * esize,
                   s + (size_t)(r * srs) * esize, rowbytes);
        }
        return;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (nt && scs == 1 && drs == 1 &&
        transpose_stream(esize, 0, rows, cols, s, srs, d, dcs)) {
        return;
    }
#endif
    copy_tiled(esize, rows, cols, s, srs, scs, d, drs, dcs);
}

int cs_eng_words_stream_ok(const void *dst, size_t bytes)
{
#if defined(__x86_64__) && defined(__GNUC__)
    return (uintptr_t)dst % 8 == 0 && bytes % 8 == 0;
#else
    (void)dst;
    (void)bytes;
    return 0;
#endif
}

void cs_eng_copy_words_stream(void *dst, const void *src, size_t bytes)
{
#if defined(__x86_64__) && defined(__GNUC__)
    long long *d = dst;
    const char *s = src;
    for (size_t w = 0; w < bytes / 8; w++) {
        long long v;
        memcpy(&v, s + 8 * w, 8);
        _mm_stream_si64(d + w, v);
    }
#else
    memcpy(dst, src, bytes);
#endif
}

void cs_eng_store_fence(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    _mm_sfence();
#endif
}

void cs_eng_copy2d(size_t esize, int64_t rows, int64_t cols, const void *src,
                   int64_t srs, int64_t scs, void *dst, int64_t drs,
                   int64_t dcs)
{
    copy2d(0, esize, rows, cols, src, srs, scs, dst, drs, dcs);
}

void cs_eng_copy2d_stream(size_t esize, int64_t rows, int64_t cols,
                          const void *src, int64_t srs, int64_t scs,
                          void *dst, int64_t drs, int64_t dcs)
{
    copy2d(1, esize, rows, cols, src, srs, scs, dst, drs, dcs);
}

int cs_eng_transpose_conj(size_t esize, int nt, int64_t rows, int64_t cols,
                          const void *src, int64_t srs, void *dst,
                          int64_t dcs)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (!cs_eng_cpu_avx() || (esize != 8 && esize != 16)) {
        return 0;
    }
    if (nt && transpose_stream(esize, 1, rows, cols, src, srs, dst, dcs)) {
        return 1;
    }
    tfun(esize, 1, 0)(rows, cols, src, srs, dst, dcs);
    return 1;
#else
    (void)esize;
    (void)nt;
    (void)rows;
    (void)cols;
    (void)src;
    (void)srs;
    (void)dst;
    (void)dcs;
    return 0;
#endif
}
