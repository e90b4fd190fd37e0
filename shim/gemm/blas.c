/*
 * shim/gemm/blas.c - the application's own ?gemm_ (?syrk_, ?herk_) for
 * the local products of the engine path of p?gemm (p?syrk, p?herk)
 * (gemm_int.h).
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

typedef void (*cs_fsyrk_t)(const char *, const char *, const cs_fint *,
                           const cs_fint *, const void *, const void *,
                           const cs_fint *, const void *, void *,
                           const cs_fint *, size_t, size_t);

/* ?gemm_, ?syrk_, ?herk_ (c and z only) of each type, looked up once */
static _Atomic(void *) cs_blas_fn[3][4];
static atomic_int cs_blas_tried[3][4];

static void *lookup(int which, char type)
{
    static const char *const names[3][4] = {
        {"sgemm_", "dgemm_", "cgemm_", "zgemm_"},
        {"ssyrk_", "dsyrk_", "csyrk_", "zsyrk_"},
        {NULL, NULL, "cherk_", "zherk_"}};
    int t = type == 's' ? 0 : type == 'd' ? 1 : type == 'c' ? 2 : 3;
    if (!names[which][t]) {
        return NULL;
    }
    if (!atomic_load(&cs_blas_tried[which][t])) {
        /* two threads may both look: they find the same symbol */
        atomic_store(&cs_blas_fn[which][t],
                     dlsym(RTLD_DEFAULT, names[which][t]));
        atomic_store(&cs_blas_tried[which][t], 1);
    }
    return atomic_load(&cs_blas_fn[which][t]);
}

void *cs_shim_gemm_blas(char type)
{
    return lookup(0, type);
}

void *cs_shim_gemm_blas_sym(char type, int herk)
{
    return lookup(herk ? 2 : 1, type);
}

void cs_shim_gemm_local(void *ctx, char uplo, char ta, char tb, int64_t m,
                        int64_t n, int64_t k, const void *a, int64_t lda,
                        const void *b, int64_t ldb, int accumulate, void *c,
                        int64_t ldc)
{
    const cs_shim_gemm_blas_t *bl = ctx;
    static const double one[2] = {1.0, 0.0}, zero[2] = {0.0, 0.0};
    static const float fone[2] = {1.0f, 0.0f}, fzero[2] = {0.0f, 0.0f};
    int single = bl->type == 's' || bl->type == 'c';
    /* the dimensions fit: the caller checked them against cs_fint */
    cs_fint fm = (cs_fint)m, fn = (cs_fint)n, fk = (cs_fint)k;
    cs_fint fa = (cs_fint)lda, fb = (cs_fint)ldb, fc = (cs_fint)ldc;
    /* complex {1, 0} and {0, 0} start with the real 1 and 0 ?herk takes */
    const void *alpha = single ? (const void *)fone : (const void *)one;
    const void *beta = accumulate ? alpha
                       : single   ? (const void *)fzero
                                  : (const void *)zero;
    if (!uplo) {
        ((cs_fgemm_t)bl->fn)(&ta, &tb, &fm, &fn, &fk, alpha, a, &fa, b, &fb,
                             beta, c, &fc, 1, 1);
        return;
    }
    /* op(a) op(a)^T (^H): op(a) is n x k, b is a again */
    (void)b;
    (void)ldb;
    int herk = ta == 'C' || tb == 'C';
    char tr = ta == 'N' ? 'N' : herk ? 'C' : 'T';
    ((cs_fsyrk_t)bl->sym)(&uplo, &tr, &fn, &fk, alpha, a, &fa, beta, c, &fc, 1,
                          1);
}
