/*
 * shim/shim_entry.c - the exported ScaLAPACK spellings.
 *
 * Each spelling is a thin function (not an alias) so the statistics can say
 * which name the application called: it copies its arguments into one
 * record and calls the family's routine, nothing else (BLIS compat style).
 * Fortran spellings take every argument by reference; the C entry takes
 * scalars by value.
 */
#include "shim/shim_gemr2d.h"

#define CS_SHIM_GEMR2D_F(sym, ID, SP)                                         \
    CS_EXPORT void sym(const int *m, const int *n, void *a, const int *ia,    \
                       const int *ja, const int *desca, void *b,              \
                       const int *ib, const int *jb, const int *descb,        \
                       const int *ictxt);                                     \
    void sym(const int *m, const int *n, void *a, const int *ia,              \
             const int *ja, const int *desca, void *b, const int *ib,         \
             const int *jb, const int *descb, const int *ictxt)               \
    {                                                                         \
        cs_shim_gemr2d_args_t g = {CS_SHIM_R_##ID, SP, *m, *n, a, *ia, *ja,   \
                                   desca, b, *ib, *jb, descb, *ictxt,         \
                                   __builtin_return_address(0)};              \
        cs_shim_gemr2d(&g);                                                   \
    }

#define CS_SHIM_GEMR2D_C(sym, ID)                                             \
    CS_EXPORT void sym(int m, int n, void *a, int ia, int ja,                 \
                       const int *desca, void *b, int ib, int jb,             \
                       const int *descb, int ictxt);                          \
    void sym(int m, int n, void *a, int ia, int ja, const int *desca,         \
             void *b, int ib, int jb, const int *descb, int ictxt)            \
    {                                                                         \
        cs_shim_gemr2d_args_t g = {CS_SHIM_R_##ID, CS_SHIM_SP_C, m, n, a,     \
                                   ia, ja, desca, b, ib, jb, descb, ictxt,    \
                                   __builtin_return_address(0)};              \
        cs_shim_gemr2d(&g);                                                   \
    }

#define CS_SHIM_ENTRIES_GEMR2D(ID, lower, UPPER)                              \
    CS_SHIM_GEMR2D_F(lower, ID, CS_SHIM_SP_LOWER)                             \
    CS_SHIM_GEMR2D_F(lower##_, ID, CS_SHIM_SP_LOWER_)                         \
    CS_SHIM_GEMR2D_F(lower##__, ID, CS_SHIM_SP_LOWER__)                       \
    CS_SHIM_GEMR2D_F(UPPER, ID, CS_SHIM_SP_UPPER)                             \
    CS_SHIM_GEMR2D_F(UPPER##_, ID, CS_SHIM_SP_UPPER_)                         \
    CS_SHIM_GEMR2D_F(UPPER##__, ID, CS_SHIM_SP_UPPER__)                       \
    CS_SHIM_GEMR2D_C(C##lower, ID)

#define CS_SHIM_ROUTINE(ID, lower, UPPER, fam, type, esize)                   \
    CS_SHIM_ENTRIES_##fam(ID, lower, UPPER)
#include "shim/shim_symbols.def"
#undef CS_SHIM_ROUTINE
