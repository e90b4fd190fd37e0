/*
 * engine/kernels/kernels.h - the engine's kernels: bit-exact copies (plain,
 * streaming, transposed) and the transform kernels (scale, add, conjugate,
 * transpose, mask), as PBLAS computes them.
 *
 * The BLIS split: the engine's frame (plan, panels, exchange) decides what
 * to copy where; the kernels copy one block and know nothing of plans,
 * packages, ranks or MPI.  Files here include only this header (and
 * engine/engine.h through it, for the element types and masks); the frame
 * reaches them through engine/engine_int.h, which includes this header.
 * Every function is local and serial: callers parallelise over blocks or
 * columns.
 */
#ifndef CS_ENGINE_KERNELS_KERNELS_H
#define CS_ENGINE_KERNELS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

/* ------------------------------------------------------------ cpu */

/* 1 when this CPU has AVX, which the register transposes and the fused
 * transposed transforms need (x86-64 only; 0 elsewhere).  Detected on the
 * first call, once per process (cpu.c).  Thread-safe. */
int cs_eng_cpu_avx(void);

/* ------------------------------------------------------------ transform */

/* What the kernels do to each element (PBLAS's ?mmadd case split). */
typedef enum {
    CS_XM_COPY = 0, /* d = op(s)                 alpha = 1, beta = 0 */
    CS_XM_ZERO,     /* d = 0                     alpha = 0, beta = 0 */
    CS_XM_BSCALE,   /* d = beta d                alpha = 0 */
    CS_XM_A1B,      /* d = op(s) + beta d        alpha = 1 */
    CS_XM_A1B1,     /* d = d + op(s)             alpha = 1, beta = 1 */
    CS_XM_AB0,      /* d = alpha op(s)           beta = 0 */
    CS_XM_AB,       /* d = alpha op(s) + beta d */
    CS_XM_AB1,      /* d = d + alpha op(s)       beta = 1 */
    CS_XM_NOP,      /* nothing                   alpha = 0, beta = 1 */
    CS_XM_TRADD,    /* PBLAS p?tradd's order, see cs_eng_op_t.tradd */
    CS_XM_HALO,     /* d = d + 0 (p?tradd next to its trapezoid) */
    CS_XM_ADDZERO   /* d = d + 0 (after the mode, see cs_eng_op_t) */
} cs_eng_xmode_t;

typedef struct {
    int type;        /* cs_eng_type_t */
    size_t esize;
    int mode;        /* cs_eng_xmode_t */
    int conj;
    double alpha[2], beta[2];
    int mask;        /* cs_eng_mask_t */
    int64_t mask_k;
    int a1, b0, b1;  /* alpha = 1, beta = 0, beta = 1 (for CS_XM_TRADD) */
    int64_t halo_kb; /* p?tradd: panel width, 0 = no halo */
    int64_t halo_mn; /* p?tradd: min(m, n) */
    /* the first target row and column of this operation inside the one
     * whose halo it is (a panel of a cut plan, panels.c); 0 otherwise */
    int64_t halo_i0, halo_j0;
    int stream;      /* plain copies may use non-temporal stores */
    int add_zero;    /* then d = d + 0 on every element written */
} cs_eng_xform_t;

/* 1 when the kernels copy bits unchanged (no arithmetic, conjugate, mask
 * or added zero): such pieces may travel straight into the target. */
static inline int cs_eng_xform_plain(const cs_eng_xform_t *x)
{
    return x->mode == CS_XM_COPY && !x->conj &&
           x->mask == CS_ENG_MASK_NONE && !x->add_zero;
}

/* The kernel settings of an operation. */
void cs_eng_xform_init(const cs_eng_op_t *op, cs_eng_xform_t *x_p);

/* Clip the row range [*lo_p, *hi_p) of target column j to the mask, for a
 * block whose first row is target row i0. */
static inline void cs_eng_mask_rows(const cs_eng_xform_t *x, int64_t i0,
                                    int64_t j, int64_t *lo_p, int64_t *hi_p)
{
    if (x->mask == CS_ENG_MASK_UPPER) {
        int64_t hi = x->mask_k + j - i0 + 1;
        if (hi < *hi_p) {
            *hi_p = hi;
        }
    } else if (x->mask == CS_ENG_MASK_LOWER) {
        int64_t lo = x->mask_k + j - i0;
        if (lo > *lo_p) {
            *lo_p = lo;
        }
    }
    if (*hi_p < *lo_p) {
        *hi_p = *lo_p;
    }
}

/*
 * Rows of target column j in the p?tradd halo: the other triangle of the
 * halo_kb x halo_kb diagonal blocks that start at multiples of halo_kb
 * along the first min(m, n) rows and columns (PBLAS adds a zero there).
 * Clips [*lo_p, *hi_p) (block rows, first at target row i0).
 */
static inline void cs_eng_halo_rows(const cs_eng_xform_t *x, int64_t i0,
                                    int64_t j, int64_t *lo_p, int64_t *hi_p)
{
    int64_t lo = 0, hi = 0; /* target rows of the whole operation */
    j += x->halo_j0;
    if (j < x->halo_mn) {
        int64_t b0 = j / x->halo_kb * x->halo_kb;
        int64_t b1 = b0 + x->halo_kb < x->halo_mn ? b0 + x->halo_kb
                                                 : x->halo_mn;
        if (x->mask == CS_ENG_MASK_UPPER) {
            lo = j + 1;
            hi = b1;
        } else {
            lo = b0;
            hi = j;
        }
    }
    lo -= i0 + x->halo_i0;
    hi -= i0 + x->halo_i0;
    *lo_p = lo > *lo_p ? lo : *lo_p;
    *hi_p = hi < *hi_p ? hi : *hi_p;
    if (*hi_p < *lo_p) {
        *hi_p = *lo_p;
    }
}

/*
 * Apply the transform to a rows x cols block: target element (r, c) is
 * d[r * drs + c * dcs], its source s[r * srs + c * scs] (strides in
 * elements; a transposed source just has other strides); the block's first
 * element is target (i0, j0) of the sub-matrix (for the mask).  Serial.
 */
void cs_eng_xform2d(const cs_eng_xform_t *x, int64_t rows, int64_t cols,
                    const void *s, int64_t srs, int64_t scs, void *d,
                    int64_t drs, int64_t dcs, int64_t i0, int64_t j0);

/*
 * The same for a transposed source (scs = drs = 1) of any of the four
 * types with arithmetic (conjugated or not) and no mask, through a fused
 * register transpose; 0 (nothing done) for anything else or without AVX.
 * Serial.
 */
int cs_eng_xform_transposed(const cs_eng_xform_t *x, int64_t rows,
                            int64_t cols, const void *s, int64_t srs,
                            void *d, int64_t dcs);

/* ------------------------------------------------------------ copies */

/*
 * Copy a rows x cols block of esize-byte elements; element (r, c) is at
 * src[(r * srs + c * scs) * esize] and dst[(r * drs + c * dcs) * esize].
 * Bit-exact.  Local, serial.
 */
void cs_eng_copy2d(size_t esize, int64_t rows, int64_t cols, const void *src,
                   int64_t srs, int64_t scs, void *dst, int64_t drs,
                   int64_t dcs);

/*
 * Short pieces with streaming stores, 8 bytes at a time (no alignment of
 * the pieces to cache lines needed: consecutive pieces fill the lines).
 * cs_eng_words_stream_ok(): 1 where this machine has such stores and dst
 * and bytes are multiples of 8.  cs_eng_copy_words_stream() copies bytes
 * (a multiple of 8; a plain copy where there are no such stores);
 * cs_eng_store_fence() orders them before what follows (before anybody
 * else may read them).  Bit-exact.  Local, serial.
 */
int cs_eng_words_stream_ok(const void *dst, size_t bytes);
void cs_eng_copy_words_stream(void *dst, const void *src, size_t bytes);
void cs_eng_store_fence(void);

/*
 * The same with non-temporal (streaming) stores where the destination
 * allows them: for targets far larger than the caches, which would
 * otherwise be read into the cache before being overwritten.  Ends with a
 * store fence.  Bit-exact.  Local, serial.
 */
void cs_eng_copy2d_stream(size_t esize, int64_t rows, int64_t cols,
                          const void *src, int64_t srs, int64_t scs,
                          void *dst, int64_t drs, int64_t dcs);

/*
 * Conjugating transpose of complex elements (esize 8: float complex, 16:
 * double complex): dst[r + c * dcs] = conj(src[r * srs + c]), through the
 * register kernels with the imaginary parts' sign bits flipped (exactly
 * what conj() does); nt: streaming stores where the target allows them.
 * Returns 0 where it does not apply (no AVX, another size): the caller
 * conjugates element by element.  Local, serial.
 */
int cs_eng_transpose_conj(size_t esize, int nt, int64_t rows, int64_t cols,
                          const void *src, int64_t srs, void *dst,
                          int64_t dcs);

/*
 * Column pieces and source rows of at most this many bytes: copies ask for
 * the next column, packing for the pieces 4 columns ahead (exchange.c),
 * the transpose kernels for the next strip's lines while they transpose
 * one.  RATIONALE: a block's rows (1 KiB at 128 doubles) each lie in
 * another page, too short for the hardware prefetcher to follow;
 * measured (bench_tran, 2 ranks, 15 calls, 3 alternating runs, CI
 * machine), the local copy of pdtran 4000 x 4000 on 1 x 2 took 1.9-3.2
 * ms with it against 2.4-3.7 without, the whole call 7.6-8.7 against
 * 8.6-11.0 ms.  Not in the kernels with arithmetic
 * (xform_transposed_tmpl.h), which lost with it: pdtran alpha 2 beta 3
 * 9.6-10.3 -> 10.7-11.2 ms, pdgeadd 'T' 8.4-8.6 -> 9.5-10.8.
 */
#define CS_ENG_PREFETCH_AHEAD_MAX ((int64_t)4096)

/* Ask for the bytes at p to be read into the cache, a request per line. */
static inline void cs_eng_prefetch(const void *p, int64_t bytes)
{
    for (int64_t o = 0; o < bytes; o += 64) {
        __builtin_prefetch((const char *)p + o, 0, 0);
    }
}

/* Targets (bytes written on this rank in one execution) from which plain
 * copies stream; measured on the CI machine (32 MiB L3 per CCD). */
#define CS_ENG_STREAM_MIN_BYTES ((int64_t)32 << 20)

/*
 * Bytes of each target column that a transpose kernel writes per visit:
 * the register kernels walk strips of source rows left to right, so each
 * visit writes this many bytes into each of the strip's target columns.
 * One cache line, unless the distance between target columns is a
 * multiple of 512 bytes (a leading dimension such as 1024, 2048 or 4096
 * doubles), where consecutive columns fall on at most 8 offsets modulo
 * 4 KiB, the same cache sets and memory banks: then four.  RATIONALE,
 * measured (one process, CI machine, GB/s read + written, one line per
 * visit -> four): 2048 x 2048 doubles with streaming stores, target ld
 * 2048 or 4096 10-11 -> 19-22, ld 2304 (2 KiB mod 4 KiB) 11.6 -> 32.8,
 * ld 2176 (1 KiB) 11.7 -> 30.8, ld 2112 (512 B) 21.9 -> 35.9, but ld 2080
 * (256 B) 36.0 -> 34.0 and ld 2000 52.7 -> 40.4; 1024 x 1024 with normal
 * stores (in cache), ld 1024 9.0 -> 27.1, ld 1280 11.3 -> 42.2.
 */
static inline int64_t cs_eng_strip_bytes(int64_t dcs_bytes)
{
    return dcs_bytes % 512 == 0 ? 256 : 64;
}

#endif /* CS_ENGINE_KERNELS_KERNELS_H */
