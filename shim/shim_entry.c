/*
 * shim/shim_entry.c - the exported ScaLAPACK spellings.
 *
 * Each spelling is a thin function (not an alias) so the statistics can say
 * which name the application called: it copies its arguments into one
 * record and calls the family's routine, nothing else (BLIS compat style).
 * Fortran spellings take every argument by reference and, for CHARACTER
 * arguments, hidden lengths at the end (gfortran ABI: size_t); the C
 * entries take scalars by value.
 */
#include "shim/shim.h"
#include "shim/shim_call_int.h"

/* ------------------------------------------------------------ records */

static inline cs_shim_call_t redist_f(int routine, int sp, const cs_fint *m,
                                      const cs_fint *n, void *a,
                                      const cs_fint *ia, const cs_fint *ja,
                                      const cs_fint *desca, void *b,
                                      const cs_fint *ib, const cs_fint *jb,
                                      const cs_fint *descb,
                                      const cs_fint *ictxt, void *caller)
{
    cs_shim_call_t g = {.routine = routine,
                        .spelling = sp,
                        .m = *m,
                        .n = *n,
                        .a = a,
                        .ia = *ia,
                        .ja = *ja,
                        .desca = desca,
                        .b = b,
                        .ib = *ib,
                        .jb = *jb,
                        .descb = descb,
                        .ictxt = *ictxt,
                        .pm = m,
                        .pn = n,
                        .pia = ia,
                        .pja = ja,
                        .pib = ib,
                        .pjb = jb,
                        .pictxt = ictxt,
                        .caller = caller};
    return g;
}

static inline cs_shim_call_t pblas_f(int routine, int sp, const cs_fint *m,
                                     const cs_fint *n, const void *alpha,
                                     void *a, const cs_fint *ia,
                                     const cs_fint *ja, const cs_fint *desca,
                                     const void *beta, void *c,
                                     const cs_fint *ic, const cs_fint *jc,
                                     const cs_fint *descc, void *caller)
{
    cs_shim_call_t g = {.routine = routine,
                        .spelling = sp,
                        .m = *m,
                        .n = *n,
                        .a = a,
                        .ia = *ia,
                        .ja = *ja,
                        .desca = desca,
                        .b = c,
                        .ib = *ic,
                        .jb = *jc,
                        .descb = descc,
                        .alpha = alpha,
                        .beta = beta,
                        .pm = m,
                        .pn = n,
                        .pia = ia,
                        .pja = ja,
                        .pib = ic,
                        .pjb = jc,
                        .caller = caller};
    return g;
}

/* ------------------------------------------------------------ families */

#define CS_SHIM_GEMR2D_F(sym, ID, SP)                                          \
    CS_EXPORT void sym(                                                        \
        const cs_fint *m, const cs_fint *n, void *a, const cs_fint *ia,        \
        const cs_fint *ja, const cs_fint *desca, void *b, const cs_fint *ib,   \
        const cs_fint *jb, const cs_fint *descb, const cs_fint *ictxt);        \
    void sym(const cs_fint *m, const cs_fint *n, void *a, const cs_fint *ia,   \
             const cs_fint *ja, const cs_fint *desca, void *b,                 \
             const cs_fint *ib, const cs_fint *jb, const cs_fint *descb,       \
             const cs_fint *ictxt)                                             \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            redist_f(CS_SHIM_R_##ID, SP, m, n, a, ia, ja, desca, b, ib, jb,    \
                     descb, ictxt, __builtin_return_address(0));               \
        cs_shim_redist(&g);                                                    \
    }

#define CS_SHIM_GEMR2D_C(sym, ID)                                              \
    CS_EXPORT void sym(cs_fint m, cs_fint n, void *a, cs_fint ia, cs_fint ja,  \
                       const cs_fint *desca, void *b, cs_fint ib, cs_fint jb,  \
                       const cs_fint *descb, cs_fint ictxt);                   \
    void sym(cs_fint m, cs_fint n, void *a, cs_fint ia, cs_fint ja,            \
             const cs_fint *desca, void *b, cs_fint ib, cs_fint jb,            \
             const cs_fint *descb, cs_fint ictxt)                              \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            redist_f(CS_SHIM_R_##ID, CS_SHIM_SP_C, &m, &n, a, &ia, &ja, desca, \
                     b, &ib, &jb, descb, &ictxt, __builtin_return_address(0)); \
        cs_shim_redist(&g);                                                    \
    }

#define CS_SHIM_TRMR2D_F(sym, ID, SP)                                          \
    CS_EXPORT void sym(                                                        \
        const char *uplo, const char *diag, const cs_fint *m,                  \
        const cs_fint *n, void *a, const cs_fint *ia, const cs_fint *ja,       \
        const cs_fint *desca, void *b, const cs_fint *ib, const cs_fint *jb,   \
        const cs_fint *descb, const cs_fint *ictxt, size_t l1, size_t l2);     \
    void sym(const char *uplo, const char *diag, const cs_fint *m,             \
             const cs_fint *n, void *a, const cs_fint *ia, const cs_fint *ja,  \
             const cs_fint *desca, void *b, const cs_fint *ib,                 \
             const cs_fint *jb, const cs_fint *descb, const cs_fint *ictxt,    \
             size_t l1, size_t l2)                                             \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            redist_f(CS_SHIM_R_##ID, SP, m, n, a, ia, ja, desca, b, ib, jb,    \
                     descb, ictxt, __builtin_return_address(0));               \
        g.uplo = uplo;                                                         \
        g.diag = diag;                                                         \
        g.len1 = l1;                                                           \
        g.len2 = l2;                                                           \
        cs_shim_redist(&g);                                                    \
    }

#define CS_SHIM_TRMR2D_C(sym, ID)                                              \
    CS_EXPORT void sym(const char *uplo, const char *diag, cs_fint m,          \
                       cs_fint n, void *a, cs_fint ia, cs_fint ja,             \
                       const cs_fint *desca, void *b, cs_fint ib, cs_fint jb,  \
                       const cs_fint *descb, cs_fint ictxt);                   \
    void sym(const char *uplo, const char *diag, cs_fint m, cs_fint n,         \
             void *a, cs_fint ia, cs_fint ja, const cs_fint *desca, void *b,   \
             cs_fint ib, cs_fint jb, const cs_fint *descb, cs_fint ictxt)      \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            redist_f(CS_SHIM_R_##ID, CS_SHIM_SP_C, &m, &n, a, &ia, &ja, desca, \
                     b, &ib, &jb, descb, &ictxt, __builtin_return_address(0)); \
        g.uplo = uplo;                                                         \
        g.diag = diag;                                                         \
        g.len1 = g.len2 = 1;                                                   \
        cs_shim_redist(&g);                                                    \
    }

#define CS_SHIM_TRAN_F(sym, ID, SP)                                            \
    CS_EXPORT void sym(const cs_fint *m, const cs_fint *n, const void *alpha,  \
                       void *a, const cs_fint *ia, const cs_fint *ja,          \
                       const cs_fint *desca, const void *beta, void *c,        \
                       const cs_fint *ic, const cs_fint *jc,                   \
                       const cs_fint *descc);                                  \
    void sym(const cs_fint *m, const cs_fint *n, const void *alpha, void *a,   \
             const cs_fint *ia, const cs_fint *ja, const cs_fint *desca,       \
             const void *beta, void *c, const cs_fint *ic, const cs_fint *jc,  \
             const cs_fint *descc)                                             \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            pblas_f(CS_SHIM_R_##ID, SP, m, n, alpha, a, ia, ja, desca, beta,   \
                    c, ic, jc, descc, __builtin_return_address(0));            \
        cs_shim_pblas(&g);                                                     \
    }

#define CS_SHIM_GEADD_F(sym, ID, SP)                                           \
    CS_EXPORT void sym(const char *trans, const cs_fint *m, const cs_fint *n,  \
                       const void *alpha, void *a, const cs_fint *ia,          \
                       const cs_fint *ja, const cs_fint *desca,                \
                       const void *beta, void *c, const cs_fint *ic,           \
                       const cs_fint *jc, const cs_fint *descc, size_t l1);    \
    void sym(const char *trans, const cs_fint *m, const cs_fint *n,            \
             const void *alpha, void *a, const cs_fint *ia, const cs_fint *ja, \
             const cs_fint *desca, const void *beta, void *c,                  \
             const cs_fint *ic, const cs_fint *jc, const cs_fint *descc,       \
             size_t l1)                                                        \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            pblas_f(CS_SHIM_R_##ID, SP, m, n, alpha, a, ia, ja, desca, beta,   \
                    c, ic, jc, descc, __builtin_return_address(0));            \
        g.trans = trans;                                                       \
        g.len1 = l1;                                                           \
        cs_shim_pblas(&g);                                                     \
    }

#define CS_SHIM_TRADD_F(sym, ID, SP)                                           \
    CS_EXPORT void sym(const char *uplo, const char *trans, const cs_fint *m,  \
                       const cs_fint *n, const void *alpha, void *a,           \
                       const cs_fint *ia, const cs_fint *ja,                   \
                       const cs_fint *desca, const void *beta, void *c,        \
                       const cs_fint *ic, const cs_fint *jc,                   \
                       const cs_fint *descc, size_t l1, size_t l2);            \
    void sym(const char *uplo, const char *trans, const cs_fint *m,            \
             const cs_fint *n, const void *alpha, void *a, const cs_fint *ia,  \
             const cs_fint *ja, const cs_fint *desca, const void *beta,        \
             void *c, const cs_fint *ic, const cs_fint *jc,                    \
             const cs_fint *descc, size_t l1, size_t l2)                       \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            pblas_f(CS_SHIM_R_##ID, SP, m, n, alpha, a, ia, ja, desca, beta,   \
                    c, ic, jc, descc, __builtin_return_address(0));            \
        g.uplo = uplo;                                                         \
        g.trans = trans;                                                       \
        g.len1 = l1;                                                           \
        g.len2 = l2;                                                           \
        cs_shim_pblas(&g);                                                     \
    }

#define CS_SHIM_GEMM_F(sym, ID, SP)                                            \
    CS_EXPORT void sym(                                                        \
        const char *transa, const char *transb, const cs_fint *m,              \
        const cs_fint *n, const cs_fint *k, const void *alpha, void *a,        \
        const cs_fint *ia, const cs_fint *ja, const cs_fint *desca, void *b,   \
        const cs_fint *ib, const cs_fint *jb, const cs_fint *descb,            \
        const void *beta, void *c, const cs_fint *ic, const cs_fint *jc,       \
        const cs_fint *descc, size_t l1, size_t l2);                           \
    void sym(const char *transa, const char *transb, const cs_fint *m,         \
             const cs_fint *n, const cs_fint *k, const void *alpha, void *a,   \
             const cs_fint *ia, const cs_fint *ja, const cs_fint *desca,       \
             void *b, const cs_fint *ib, const cs_fint *jb,                    \
             const cs_fint *descb, const void *beta, void *c,                  \
             const cs_fint *ic, const cs_fint *jc, const cs_fint *descc,       \
             size_t l1, size_t l2)                                             \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            pblas_f(CS_SHIM_R_##ID, SP, m, n, alpha, a, ia, ja, desca, beta,   \
                    c, ic, jc, descc, __builtin_return_address(0));            \
        g.trans = transa;                                                      \
        g.transb = transb;                                                     \
        g.len1 = l1;                                                           \
        g.len2 = l2;                                                           \
        g.k = *k;                                                              \
        g.pk = k;                                                              \
        g.x = b;                                                               \
        g.ix = *ib;                                                            \
        g.jx = *jb;                                                            \
        g.pix = ib;                                                            \
        g.pjx = jb;                                                            \
        g.descx = descb;                                                       \
        cs_shim_gemm(&g);                                                      \
    }

/* p?syrk and p?herk: C := alpha op(A) op(A)^T (^H) + beta C on one
 * triangle, served as p?gemm is with A in the place of B too. */
#define CS_SHIM_SYRK_F(sym, ID, SP)                                            \
    CS_EXPORT void sym(const char *uplo, const char *trans, const cs_fint *n,  \
                       const cs_fint *k, const void *alpha, void *a,           \
                       const cs_fint *ia, const cs_fint *ja,                   \
                       const cs_fint *desca, const void *beta, void *c,        \
                       const cs_fint *ic, const cs_fint *jc,                   \
                       const cs_fint *descc, size_t l1, size_t l2);            \
    void sym(const char *uplo, const char *trans, const cs_fint *n,            \
             const cs_fint *k, const void *alpha, void *a, const cs_fint *ia,  \
             const cs_fint *ja, const cs_fint *desca, const void *beta,        \
             void *c, const cs_fint *ic, const cs_fint *jc,                    \
             const cs_fint *descc, size_t l1, size_t l2)                       \
    {                                                                          \
        cs_shim_call_t g =                                                     \
            pblas_f(CS_SHIM_R_##ID, SP, n, n, alpha, a, ia, ja, desca, beta,   \
                    c, ic, jc, descc, __builtin_return_address(0));            \
        g.uplo = uplo;                                                         \
        g.trans = trans;                                                       \
        g.len1 = l1;                                                           \
        g.len2 = l2;                                                           \
        g.k = *k;                                                              \
        g.pk = k;                                                              \
        g.x = a;                                                               \
        g.ix = *ia;                                                            \
        g.jx = *ja;                                                            \
        g.descx = desca;                                                       \
        cs_shim_gemm(&g);                                                      \
    }

/* The six Fortran spellings of a family, plus its C entry if any. */
#define CS_SHIM_SPELLINGS(F, ID, lower, UPPER)                                 \
    F(lower, ID, CS_SHIM_SP_LOWER)                                             \
    F(lower##_, ID, CS_SHIM_SP_LOWER_)                                         \
    F(lower##__, ID, CS_SHIM_SP_LOWER__)                                       \
    F(UPPER, ID, CS_SHIM_SP_UPPER)                                             \
    F(UPPER##_, ID, CS_SHIM_SP_UPPER_)                                         \
    F(UPPER##__, ID, CS_SHIM_SP_UPPER__)

#define CS_SHIM_ENTRIES_GEMR2D(ID, lower, UPPER)                               \
    CS_SHIM_SPELLINGS(CS_SHIM_GEMR2D_F, ID, lower, UPPER)                      \
    CS_SHIM_GEMR2D_C(C##lower, ID)
#define CS_SHIM_ENTRIES_TRMR2D(ID, lower, UPPER)                               \
    CS_SHIM_SPELLINGS(CS_SHIM_TRMR2D_F, ID, lower, UPPER)                      \
    CS_SHIM_TRMR2D_C(C##lower, ID)
#define CS_SHIM_ENTRIES_TRAN(ID, lower, UPPER)                                 \
    CS_SHIM_SPELLINGS(CS_SHIM_TRAN_F, ID, lower, UPPER)
#define CS_SHIM_ENTRIES_GEADD(ID, lower, UPPER)                                \
    CS_SHIM_SPELLINGS(CS_SHIM_GEADD_F, ID, lower, UPPER)
#define CS_SHIM_ENTRIES_TRADD(ID, lower, UPPER)                                \
    CS_SHIM_SPELLINGS(CS_SHIM_TRADD_F, ID, lower, UPPER)
#define CS_SHIM_ENTRIES_GEMM(ID, lower, UPPER)                                 \
    CS_SHIM_SPELLINGS(CS_SHIM_GEMM_F, ID, lower, UPPER)
#define CS_SHIM_ENTRIES_SYRK(ID, lower, UPPER)                                 \
    CS_SHIM_SPELLINGS(CS_SHIM_SYRK_F, ID, lower, UPPER)

#define CS_SHIM_ROUTINE(ID, lower, UPPER, fam, type, esize, conj)              \
    CS_SHIM_ENTRIES_##fam(ID, lower, UPPER)
#include "shim/shim_symbols.def"
#undef CS_SHIM_ROUTINE
