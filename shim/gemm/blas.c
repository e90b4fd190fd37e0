/*
 * shim/gemm/blas.c - the application's own ?gemm_ for the local products
 * of p?gemm's engine path (gemm_int.h).
 *
 * RATIONALE: the shim links no BLAS.  The one the application loaded
 * (OpenBLAS, MKL, BLIS...) is found by name in the process, as PBLAS's
 * own calls find it, so the local products run on the same library, with
 * its threading, as the real routine's.
 */

#include <dlfcn.h>
#include <stdatomic.h>

#include "shim/gemm/gemm_int.h"
#include "shim/shim.h"

typedef void (*cs_fgemm_t)(const char *, const char *, const cs_fint *,
                           const cs_fint *, const cs_fint *, const void *,
                           const void *, const cs_fint *, const void *,
                           const cs_fint *, const void *, void *,
                           const cs_fint *, size_t, size_t);

static _Atomic(void *) cs_gemm_fn[4];
static atomic_int cs_gemm_tried[4];

static int type_index(char type)
{
    return type == 's' ? 0 : type == 'd' ? 1 : type == 'c' ? 2 : 3;
}

void *cs_shim_gemm_blas(char type)
{
    static const char *const names[4] = {"sgemm_", "dgemm_", "cgemm_",
                                         "zgemm_"};
    int t = type_index(type);
    if (!atomic_load(&cs_gemm_tried[t])) {
        /* two threads may both look: they find the same symbol */
        atomic_store(&cs_gemm_fn[t], dlsym(RTLD_DEFAULT, names[t]));
        atomic_store(&cs_gemm_tried[t], 1);
    }
    return atomic_load(&cs_gemm_fn[t]);
}

void cs_shim_gemm_local(void *ctx, char ta, char tb, int64_t m, int64_t n,
                        int64_t k, const void *a, int64_t lda, const void *b,
                        int64_t ldb, int accumulate, void *c, int64_t ldc)
{
    const cs_shim_gemm_blas_t *bl = ctx;
    static const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    static const float fone[2] = {1.0f, 0.0f}, fzero[2] = {0.0f, 0.0f};
    int single = bl->type == 's' || bl->type == 'c';
    /* the dimensions fit: the caller checked them against cs_fint */
    cs_fint fm = (cs_fint)m, fn = (cs_fint)n, fk = (cs_fint)k;
    cs_fint fa = (cs_fint)lda, fb = (cs_fint)ldb, fc = (cs_fint)ldc;
    const void *alpha = single ? (const void *)fone : (const void *)one;
    const void *beta = accumulate ? alpha
                       : single   ? (const void *)fzero
                                  : (const void *)zero;
    ((cs_fgemm_t)bl->fn)(&ta, &tb, &fm, &fn, &fk, alpha, a, &fa, b, &fb,
                         beta, c, &fc, 1, 1);
}
