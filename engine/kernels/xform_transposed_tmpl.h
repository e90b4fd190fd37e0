/*
 * engine/kernels/xform_transposed_tmpl.h - body of the fused transposed
 * transform for one type, included by xform_transposed.c once per type
 * with these defined:
 *   TK_T          element type (double, float, double _Complex, ...)
 *   TK_V          its AVX vector type (__m256d, __m256)
 *   TK_SV         a scalar spread over a vector (TK_V for real types; for
 *                 complex ones its real and imaginary parts apart)
 *   TK_W          elements per vector (4, 8; 2, 4 complex): the register
 *                 transpose is TK_W x TK_W
 *   TK_NAME(x)    name of a generated function: x ## _suffix
 *   TK_SET1(x)    TK_SV of scalar x
 *   TK_LOADU(p), TK_STOREU(p, v), TK_ADD(u, v)  vector load, store, add
 *   TK_MUL(sv, v) scalar times vector, as C multiplies one element
 *   TK_CONJV(v), TK_CONJS(x)  conjugate a vector, a scalar (identity for
 *                 real types)
 *   TK_TRANSPOSE(s, srs, c)  loads TK_W source rows from s (stride srs)
 *                 and leaves target column j in c[j]
 * No include guard: it is meant to be included several times; it
 * undefines those parameters at its end.
 */

/* One element, as xform_tmpl.h computes it. */
static inline __attribute__((always_inline)) TK_T
TK_NAME(op)(int mode, TK_T al, TK_T be, TK_T a, TK_T c)
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

/* The element loop for the ragged edges: d[r + c dcs] from s[r srs + c]
 * (conjugated first when cj). */
static inline __attribute__((always_inline)) void
TK_NAME(edge)(int mode, int cj, TK_T al, TK_T be, int64_t rows,
              int64_t cols, const TK_T *s, int64_t srs, TK_T *d, int64_t dcs)
{
    for (int64_t c = 0; c < cols; c++) {
        for (int64_t r = 0; r < rows; r++) {
            TK_T *dp = d + r + c * dcs;
            TK_T a = s[r * srs + c];
            *dp = TK_NAME(op)(mode, al, be, cj ? TK_CONJS(a) : a, *dp);
        }
    }
}

/* The same operations on a vector of target elements at dp. */
__attribute__((target("avx"))) static inline TK_V
TK_NAME(vop)(int mode, TK_SV al, TK_SV be, TK_V a, const TK_T *dp)
{
    switch (mode) {
    case CS_XM_A1B:
        return TK_ADD(a, TK_MUL(be, TK_LOADU(dp)));
    case CS_XM_A1B1:
        return TK_ADD(TK_LOADU(dp), a);
    case CS_XM_AB0:
        return TK_MUL(al, a);
    case CS_XM_AB:
        return TK_ADD(TK_MUL(al, a), TK_MUL(be, TK_LOADU(dp)));
    default: /* CS_XM_AB1 */
        return TK_ADD(TK_LOADU(dp), TK_MUL(al, a));
    }
}

/* Strips of `strip` source rows, left to right; the edges through the
 * element loop. */
__attribute__((target("avx"))) static inline
    __attribute__((always_inline)) void
TK_NAME(tkern)(int mode, int cj, int64_t strip, TK_T al, TK_T be,
               int64_t rows, int64_t cols, const TK_T *s, int64_t srs,
               TK_T *d, int64_t dcs)
{
    TK_SV val = TK_SET1(al), vbe = TK_SET1(be);
    TK_V c[TK_W];
    int64_t rb = rows / strip * strip, cb = cols / TK_W * TK_W;
    for (int64_t r0 = 0; r0 < rb; r0 += strip) {
        for (int64_t j = 0; j < cb; j += TK_W) {
            for (int64_t r = r0; r < r0 + strip; r += TK_W) {
                TK_TRANSPOSE(s + r * srs + j, srs, c);
                for (int k = 0; k < TK_W; k++) {
                    TK_T *dp = d + r + (j + k) * dcs;
                    TK_V a = cj ? TK_CONJV(c[k]) : c[k];
                    TK_STOREU(dp, TK_NAME(vop)(mode, val, vbe, a, dp));
                }
            }
        }
    }
    TK_NAME(edge)(mode, cj, al, be, rows - rb, cb, s + rb * srs, srs,
                  d + rb, dcs);
    TK_NAME(edge)(mode, cj, al, be, rows, cols - cb, s + cb, srs,
                  d + cb * dcs, dcs);
}

/* cs_eng_strip_bytes of the target per visit: one cache line per target
 * column, more where the target's columns are a multiple of 512 bytes
 * apart.  The strip height is a constant in each branch (the strip's
 * kernels unroll, see copy.c's transpose_blocked). */
__attribute__((target("avx"))) static inline
    __attribute__((always_inline)) void
TK_NAME(tkern_strips)(int mode, int cj, TK_T al, TK_T be, int64_t rows,
                      int64_t cols, const TK_T *s, int64_t srs, TK_T *d,
                      int64_t dcs)
{
    /* at least one register's rows (16-byte elements: two) */
    enum { TK_LINE = 64 / sizeof(TK_T) > TK_W ? 64 / sizeof(TK_T) : TK_W };
    if (cs_eng_strip_bytes(dcs * (int64_t)sizeof(TK_T)) > 64) {
        TK_NAME(tkern)(mode, cj, 4 * TK_LINE, al, be, rows, cols, s, srs, d,
                       dcs);
    } else {
        TK_NAME(tkern)(mode, cj, TK_LINE, al, be, rows, cols, s, srs, d, dcs);
    }
}

/* One specialised copy per mode and conjugation (constants in each). */
__attribute__((target("avx"))) static inline
    __attribute__((always_inline)) void
TK_NAME(tkern_mode)(int mode, int cj, TK_T al, TK_T be, int64_t rows,
                    int64_t cols, const TK_T *s, int64_t srs, TK_T *d,
                    int64_t dcs)
{
    switch (mode) {
    case CS_XM_A1B:
        TK_NAME(tkern_strips)(CS_XM_A1B, cj, al, be, rows, cols, s, srs, d,
                              dcs);
        break;
    case CS_XM_A1B1:
        TK_NAME(tkern_strips)(CS_XM_A1B1, cj, al, be, rows, cols, s, srs, d,
                              dcs);
        break;
    case CS_XM_AB0:
        TK_NAME(tkern_strips)(CS_XM_AB0, cj, al, be, rows, cols, s, srs, d,
                              dcs);
        break;
    case CS_XM_AB:
        TK_NAME(tkern_strips)(CS_XM_AB, cj, al, be, rows, cols, s, srs, d,
                              dcs);
        break;
    default:
        TK_NAME(tkern_strips)(CS_XM_AB1, cj, al, be, rows, cols, s, srs, d,
                              dcs);
        break;
    }
}

__attribute__((target("avx"))) static void
TK_NAME(tkern_avx)(int mode, int cj, TK_T al, TK_T be, int64_t rows,
                   int64_t cols, const TK_T *s, int64_t srs, TK_T *d,
                   int64_t dcs)
{
    if (cj) {
        TK_NAME(tkern_mode)(mode, 1, al, be, rows, cols, s, srs, d, dcs);
    } else {
        TK_NAME(tkern_mode)(mode, 0, al, be, rows, cols, s, srs, d, dcs);
    }
}

#undef TK_T
#undef TK_V
#undef TK_SV
#undef TK_W
#undef TK_NAME
#undef TK_SET1
#undef TK_LOADU
#undef TK_STOREU
#undef TK_ADD
#undef TK_MUL
#undef TK_CONJV
#undef TK_CONJS
#undef TK_TRANSPOSE
