/*
 * engine/kernels/xform.c - the transform kernels: copy, scale, add,
 * transpose and conjugate, with a trapezoid mask, exactly as PBLAS
 * computes them.
 *
 * The case split (alpha = 0 / 1 / other x beta = 0 / 1 / other) follows
 * PBLAS's ?mmadd family: beta = 0 overwrites without reading the target (so
 * NaN there does not propagate), alpha = 0 never reads the source, the
 * unit cases skip the multiplication.  The library is compiled with
 * -ffp-contract=off so no multiply-add is fused, as in the reference
 * build.  Plain copies go through cs_eng_copy2d (bit for bit).
 */
#include <complex.h>
#include <string.h>

#include "engine/kernels/kernels.h"

void cs_eng_xform_init(const cs_eng_op_t *op, cs_eng_xform_t *x_p)
{
    cs_eng_xform_t x;
    memset(&x, 0, sizeof(x));
    x.type = op->type;
    x.esize = op->esize;
    x.conj = op->conj && (op->type == CS_ENG_T_C || op->type == CS_ENG_T_Z);
    x.mask = op->mask;
    x.mask_k = op->mask_k;
    x.alpha[0] = op->alpha[0];
    x.alpha[1] = op->alpha[1];
    x.beta[0] = op->beta[0];
    x.beta[1] = op->beta[1];
    int cplx = op->type == CS_ENG_T_C || op->type == CS_ENG_T_Z;
    int a0 = op->alpha[0] == 0.0 && (!cplx || op->alpha[1] == 0.0);
    int a1 = op->alpha[0] == 1.0 && (!cplx || op->alpha[1] == 0.0);
    int b0 = op->beta[0] == 0.0 && (!cplx || op->beta[1] == 0.0);
    int b1 = op->beta[0] == 1.0 && (!cplx || op->beta[1] == 0.0);
    x.a1 = a1;
    x.b0 = b0;
    x.b1 = b1;
    x.add_zero = op->add_zero && op->axpby;
    if (op->tradd && op->mask != CS_ENG_MASK_NONE) {
        x.halo_kb = op->tradd_kb;
        x.halo_mn = op->m < op->n ? op->m : op->n;
    }
    if (!op->axpby) {
        x.mode = CS_XM_COPY;
    } else if (op->tradd && !a0) {
        x.mode = CS_XM_TRADD;
    } else if (a0) {
        x.mode = b0 ? CS_XM_ZERO : b1 ? CS_XM_NOP : CS_XM_BSCALE;
    } else if (a1) {
        x.mode = b0 ? CS_XM_COPY : b1 ? CS_XM_A1B1 : CS_XM_A1B;
    } else {
        x.mode = b0 ? CS_XM_AB0 : b1 ? CS_XM_AB1 : CS_XM_AB;
    }
    *x_p = x;
}

#define CS_XT float
#define CS_XNAME(x) x##_s
#define CS_XCONJ(v) (v)
#define CS_XMAKE(re, im) ((float)(re))
#define CS_XAXPY1(c, t) ((c) + (t))
#include "engine/kernels/xform_tmpl.h"

#define CS_XT double
#define CS_XNAME(x) x##_d
#define CS_XCONJ(v) (v)
#define CS_XMAKE(re, im) ((double)(re))
#define CS_XAXPY1(c, t) ((c) + (t))
#include "engine/kernels/xform_tmpl.h"

#define CS_XT float _Complex
#define CS_XNAME(x) x##_c
#define CS_XCONJ(v) conjf(v)
#define CS_XMAKE(re, im) CMPLXF((float)(re), (float)(im))
#define CS_XAXPY1(c, t)                                                       \
    CMPLXF((crealf(c) + 1.0f * crealf(t)) - 0.0f * cimagf(t),                 \
           (cimagf(c) + 1.0f * cimagf(t)) + 0.0f * crealf(t))
#include "engine/kernels/xform_tmpl.h"

#define CS_XT double _Complex
#define CS_XNAME(x) x##_z
#define CS_XCONJ(v) conj(v)
#define CS_XMAKE(re, im) CMPLX((re), (im))
#define CS_XAXPY1(c, t)                                                       \
    CMPLX((creal(c) + 1.0 * creal(t)) - 0.0 * cimag(t),                       \
          (cimag(c) + 1.0 * cimag(t)) + 0.0 * creal(t))
#include "engine/kernels/xform_tmpl.h"

/* Bit copy of the masked part, column by column. */
static void copy_masked(const cs_eng_xform_t *x, int64_t rows, int64_t cols,
                        const char *s, int64_t srs, int64_t scs, char *d,
                        int64_t drs, int64_t dcs, int64_t i0, int64_t j0)
{
    int64_t es = (int64_t)x->esize;
    for (int64_t c = 0; c < cols; c++) {
        int64_t lo = 0, hi = rows;
        cs_eng_mask_rows(x, i0, j0 + c, &lo, &hi);
        cs_eng_copy2d(x->esize, hi - lo, 1, s + (lo * srs + c * scs) * es,
                      srs, scs, d + (lo * drs + c * dcs) * es, drs, dcs);
    }
}

static void xform_typed(const cs_eng_xform_t *x, int64_t rows, int64_t cols,
                        const void *s, int64_t srs, int64_t scs, void *d,
                        int64_t drs, int64_t dcs, int64_t i0, int64_t j0);

/*
 * A transposed source with arithmetic: RATIONALE: the element loop reads
 * the source across pages; transposing a piece into a small buffer with
 * the fast transpose kernel first, then computing on contiguous data, is
 * about as fast as the plain transpose.  The pieces are XT_R target rows
 * (source rows) by XT_C target columns, walked left to right along each
 * strip of source rows.  Measured (bench_kernels 4000 7 cpu, d a=2 b=3,
 * thread CPU time): 64 x 64 16.6 GB/s, 32 x 128 14.8, 8 x 256 11.4,
 * 128 x 16 (column strips) 11.8-13.9.
 */
enum { XT_R = 64, XT_C = 64 };

static void xform_transposed(const cs_eng_xform_t *x, int64_t rows,
                             int64_t cols, const char *s, int64_t srs,
                             char *d, int64_t dcs, int64_t i0, int64_t j0)
{
    _Alignas(64) char buf[XT_C * XT_R * 16];
    int64_t es = (int64_t)x->esize;
    for (int64_t r0 = 0; r0 < rows; r0 += XT_R) {
        int64_t nr = rows - r0 < XT_R ? rows - r0 : XT_R;
        for (int64_t c0 = 0; c0 < cols; c0 += XT_C) {
            int64_t nc = cols - c0 < XT_C ? cols - c0 : XT_C;
            cs_eng_copy2d(x->esize, nr, nc, s + (r0 * srs + c0) * es, srs, 1,
                          buf, 1, XT_R);
            xform_typed(x, nr, nc, buf, 1, XT_R, d + (r0 + c0 * dcs) * es, 1,
                        dcs, i0 + r0, j0 + c0);
        }
    }
}

static void xform_write(const cs_eng_xform_t *x, int64_t rows,
                        int64_t cols, const void *s, int64_t srs, int64_t scs,
                        void *d, int64_t drs, int64_t dcs, int64_t i0,
                        int64_t j0);

void cs_eng_xform2d(const cs_eng_xform_t *x, int64_t rows, int64_t cols,
                    const void *s, int64_t srs, int64_t scs, void *d,
                    int64_t drs, int64_t dcs, int64_t i0, int64_t j0)
{
    if (rows <= 0 || cols <= 0 || x->mode == CS_XM_NOP) {
        return;
    }
    xform_write(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
    if (x->add_zero) {
        /* a second pass over the block just written (still in cache);
         * only replicated targets of PBLAS's summing paths take it */
        cs_eng_xform_t z = *x;
        z.mode = CS_XM_ADDZERO;
        xform_typed(&z, rows, cols, d, drs, dcs, d, drs, dcs, i0, j0);
    }
}

static void xform_write(const cs_eng_xform_t *x, int64_t rows,
                        int64_t cols, const void *s, int64_t srs, int64_t scs,
                        void *d, int64_t drs, int64_t dcs, int64_t i0,
                        int64_t j0)
{
    int transposed = scs == 1 && srs != 1 && drs == 1 && x->esize <= 16;
    if (x->mode == CS_XM_COPY && !x->conj) {
        if (x->mask == CS_ENG_MASK_NONE && x->stream) {
            cs_eng_copy2d_stream(x->esize, rows, cols, s, srs, scs, d, drs,
                                 dcs);
        } else if (x->mask == CS_ENG_MASK_NONE) {
            cs_eng_copy2d(x->esize, rows, cols, s, srs, scs, d, drs, dcs);
        } else {
            copy_masked(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
        }
        return;
    }
    if (transposed &&
        cs_eng_xform_transposed(x, rows, cols, s, srs, d, dcs)) {
        return;
    }
    /* p?tranc and p?geadd 'C' with alpha 1, beta 0: a conjugating
     * transpose in the registers (9.8-10.6 GB/s element by element,
     * bench_kernels 2000 and 4000) */
    if (transposed && x->mode == CS_XM_COPY && x->conj &&
        x->mask == CS_ENG_MASK_NONE &&
        cs_eng_transpose_conj(x->esize, x->stream, rows, cols, s, srs, d,
                              dcs)) {
        return;
    }
    if (transposed && x->mode != CS_XM_ZERO && x->mode != CS_XM_BSCALE) {
        xform_transposed(x, rows, cols, s, srs, d, dcs, i0, j0);
        return;
    }
    xform_typed(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
}

static void xform_typed(const cs_eng_xform_t *x, int64_t rows, int64_t cols,
                        const void *s, int64_t srs, int64_t scs, void *d,
                        int64_t drs, int64_t dcs, int64_t i0, int64_t j0)
{
    switch (x->type) {
    case CS_ENG_T_S:
        xform_s(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
        break;
    case CS_ENG_T_D:
        xform_d(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
        break;
    case CS_ENG_T_C:
        xform_c(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
        break;
    case CS_ENG_T_Z:
        xform_z(x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
        break;
    default:
        break;
    }
}
