/*
 * engine/kernels/xform_tmpl.h - body of the transform kernel for one
 * element type, included by xform.c once per type with these defined:
 *   CS_XT        element type (float, double, float _Complex, ...)
 *   CS_XNAME(x)  name of the generated function: x ## _suffix
 *   CS_XCONJ(v)  complex conjugate of v (identity for real types)
 *   CS_XMAKE(re, im)  a CS_XT from two doubles
 *   CS_XAXPY1(c, t)   c + t as ?AXPY with alpha one computes it
 * RATIONALE: each precision must compute in its own precision (Fortran REAL
 * arithmetic is single precision), so the kernel is written once and
 * instantiated per type instead of computing in double.  No include guard:
 * it is meant to be included several times; it undefines those parameters
 * at its end.
 */

/* One element; `mode` is a compile-time constant at every call site. */
static inline __attribute__((always_inline)) void
CS_XNAME(elem)(int mode, const cs_eng_xform_t *x, int cj, CS_XT alpha,
               CS_XT beta, const CS_XT *s, CS_XT *d)
{
    CS_XT a = 0;
    if (mode != CS_XM_ZERO && mode != CS_XM_BSCALE && mode != CS_XM_HALO &&
        mode != CS_XM_ADDZERO) {
        a = cj ? CS_XCONJ(*s) : *s;
    }
    switch (mode) {
    case CS_XM_COPY:
        *d = a;
        break;
    case CS_XM_ZERO: /* PBLAS pads with beta itself: -0.0 stays -0.0 */
        *d = beta;
        break;
    case CS_XM_BSCALE:
        *d = beta * *d;
        break;
    case CS_XM_A1B:
        *d = a + beta * *d;
        break;
    case CS_XM_A1B1:
        *d = *d + a;
        break;
    case CS_XM_AB0:
        *d = alpha * a;
        break;
    case CS_XM_AB:
        *d = alpha * a + beta * *d;
        break;
    case CS_XM_AB1:
        *d = *d + alpha * a;
        break;
    case CS_XM_TRADD: {
        CS_XT c1 = x->b0 ? CS_XMAKE(0.0, 0.0) : x->b1 ? *d : beta * *d;
        CS_XT t = x->a1 ? a : alpha * a;
        *d = CS_XAXPY1(c1, t);
        break;
    }
    case CS_XM_HALO: /* p?tradd adds a zero outside the trapezoid */
        *d = CS_XAXPY1(*d, CS_XMAKE(0.0, 0.0));
        break;
    case CS_XM_ADDZERO: /* a sum with zeros: each part + 0 */
        *d = *d + CS_XMAKE(0.0, 0.0);
        break;
    }
}

/* rows x cols, tiled so that transposed strides stay in cache; per column
 * the rows allowed by the mask are [lo, hi). */
static inline __attribute__((always_inline)) void
CS_XNAME(loop)(int mode, const cs_eng_xform_t *x, int64_t rows, int64_t cols,
               const char *s, int64_t srs, int64_t scs, char *d, int64_t drs,
               int64_t dcs, int64_t i0, int64_t j0)
{
    const CS_XT *sp = (const CS_XT *)(const void *)s;
    CS_XT *dp = (CS_XT *)(void *)d;
    CS_XT alpha = CS_XMAKE(x->alpha[0], x->alpha[1]);
    CS_XT beta = CS_XMAKE(x->beta[0], x->beta[1]);
    int cj = x->conj;
    int64_t tile = (srs == 1 && drs == 1) ? rows : 32;
    int64_t ctile = (srs == 1 && drs == 1) ? 1 : 32;
    for (int64_t c0 = 0; c0 < cols; c0 += ctile) {
        int64_t c1 = c0 + ctile < cols ? c0 + ctile : cols;
        for (int64_t r0 = 0; r0 < rows; r0 += tile) {
            int64_t r1 = r0 + tile < rows ? r0 + tile : rows;
            for (int64_t c = c0; c < c1; c++) {
                int64_t lo = r0, hi = r1;
                cs_eng_mask_rows(x, i0, j0 + c, &lo, &hi);
                for (int64_t r = lo; r < hi; r++) {
                    CS_XNAME(elem)(mode, x, cj, alpha, beta,
                                   sp + r * srs + c * scs,
                                   dp + r * drs + c * dcs);
                }
                if (mode == CS_XM_TRADD && x->halo_kb > 0) {
                    lo = r0;
                    hi = r1;
                    cs_eng_halo_rows(x, i0, j0 + c, &lo, &hi);
                    for (int64_t r = lo; r < hi; r++) {
                        CS_XNAME(elem)(CS_XM_HALO, x, cj, alpha, beta,
                                       sp + r * srs + c * scs,
                                       dp + r * drs + c * dcs);
                    }
                }
            }
        }
    }
}

/* One mode with its strides; unit strides get their own copy of the loop
 * so the compiler can vectorise it. */
static inline __attribute__((always_inline)) void
CS_XNAME(run)(int mode, const cs_eng_xform_t *x, int64_t rows, int64_t cols,
              const char *s, int64_t srs, int64_t scs, char *d, int64_t drs,
              int64_t dcs, int64_t i0, int64_t j0)
{
    if (srs == 1 && drs == 1) {
        CS_XNAME(loop)(mode, x, rows, cols, s, 1, scs, d, 1, dcs, i0, j0);
    } else {
        CS_XNAME(loop)(mode, x, rows, cols, s, srs, scs, d, drs, dcs, i0, j0);
    }
}

/* RATIONALE: built for the baseline ISA, the loops would use 2-wide SSE
 * only; a clone for AVX2 is picked at load time where the CPU has it.
 * Each case passes its mode as a constant, so every loop is specialised. */
__attribute__((target_clones("avx2", "default"))) static void
CS_XNAME(xform)(const cs_eng_xform_t *x, int64_t rows, int64_t cols,
                const char *s, int64_t srs, int64_t scs, char *d,
                int64_t drs, int64_t dcs, int64_t i0, int64_t j0)
{
    switch (x->mode) {
    case CS_XM_COPY:
        CS_XNAME(run)(CS_XM_COPY, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_ZERO:
        CS_XNAME(run)(CS_XM_ZERO, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_BSCALE:
        CS_XNAME(run)(CS_XM_BSCALE, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_A1B:
        CS_XNAME(run)(CS_XM_A1B, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_A1B1:
        CS_XNAME(run)(CS_XM_A1B1, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_AB0:
        CS_XNAME(run)(CS_XM_AB0, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_AB:
        CS_XNAME(run)(CS_XM_AB, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_AB1:
        CS_XNAME(run)(CS_XM_AB1, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_TRADD:
        CS_XNAME(run)(CS_XM_TRADD, x, rows, cols, s, srs, scs, d, drs, dcs, i0,
                      j0);
        break;
    case CS_XM_ADDZERO:
        CS_XNAME(run)(CS_XM_ADDZERO, x, rows, cols, s, srs, scs, d, drs, dcs,
                      i0, j0);
        break;
    default:
        break;
    }
}

#undef CS_XT
#undef CS_XNAME
#undef CS_XCONJ
#undef CS_XMAKE
#undef CS_XAXPY1
