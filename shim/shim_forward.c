/*
 * shim/shim_forward.c - running the real ScaLAPACK routine with exactly the
 * arguments the application passed (fallback, pass-through, nested calls).
 *
 * The ABI of the spelling the application used is preferred (a Fortran
 * call goes to the real p?gemr2d_, which then calls Cp?gemr2d through the
 * PLT and comes back to us as a nested call); if the real library lacks it
 * the other ABI is used.  Character arguments go through with their hidden
 * lengths.
 */
#include "shim/shim.h"
#include "shim/shim_call_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"

typedef void (*redist_f_t)(const cs_fint *, const cs_fint *, void *,
                           const cs_fint *, const cs_fint *, const cs_fint *,
                           void *, const cs_fint *, const cs_fint *,
                           const cs_fint *, const cs_fint *);
typedef void (*redist_c_t)(cs_fint, cs_fint, void *, cs_fint, cs_fint,
                           const cs_fint *, void *, cs_fint, cs_fint,
                           const cs_fint *, cs_fint);
typedef void (*trmr_f_t)(const char *, const char *, const cs_fint *,
                         const cs_fint *, void *, const cs_fint *,
                         const cs_fint *, const cs_fint *, void *,
                         const cs_fint *, const cs_fint *, const cs_fint *,
                         const cs_fint *, size_t, size_t);
typedef void (*trmr_c_t)(const char *, const char *, cs_fint, cs_fint, void *,
                         cs_fint, cs_fint, const cs_fint *, void *, cs_fint,
                         cs_fint, const cs_fint *, cs_fint);
typedef void (*tran_f_t)(const cs_fint *, const cs_fint *, const void *, void *,
                         const cs_fint *, const cs_fint *, const cs_fint *,
                         const void *, void *, const cs_fint *, const cs_fint *,
                         const cs_fint *);
typedef void (*geadd_f_t)(const char *, const cs_fint *, const cs_fint *,
                          const void *, void *, const cs_fint *,
                          const cs_fint *, const cs_fint *, const void *,
                          void *, const cs_fint *, const cs_fint *,
                          const cs_fint *, size_t);
typedef void (*tradd_f_t)(const char *, const char *, const cs_fint *,
                          const cs_fint *, const void *, void *,
                          const cs_fint *, const cs_fint *, const cs_fint *,
                          const void *, void *, const cs_fint *,
                          const cs_fint *, const cs_fint *, size_t, size_t);

typedef void (*gemm_f_t)(const char *, const char *, const cs_fint *,
                         const cs_fint *, const cs_fint *, const void *,
                         void *, const cs_fint *, const cs_fint *,
                         const cs_fint *, void *, const cs_fint *,
                         const cs_fint *, const cs_fint *, const void *,
                         void *, const cs_fint *, const cs_fint *,
                         const cs_fint *, size_t, size_t);

typedef void (*syrk_f_t)(const char *, const char *, const cs_fint *,
                         const cs_fint *, const void *, void *,
                         const cs_fint *, const cs_fint *, const cs_fint *,
                         const void *, void *, const cs_fint *,
                         const cs_fint *, const cs_fint *, size_t, size_t);

void cs_shim_call_real(const cs_shim_call_t *g)
{
    int fortran = g->spelling != CS_SHIM_SP_C;
    cs_shim_fn_t fn = cs_shim_real(g->routine, fortran);
    if (!fn) {
        fortran = !fortran;
        fn = cs_shim_real(g->routine, fortran);
    }
    if (!fn) {
        cs_shim_fatal("no real %s found after the shim: the application is "
                      "not linked with ScaLAPACK",
                      cs_shim_routines[g->routine].lower);
    }
    switch (cs_shim_routines[g->routine].family) {
    case CS_SHIM_FAM_GEMR2D:
        if (fortran) {
            ((redist_f_t)fn)(g->pm, g->pn, g->a, g->pia, g->pja, g->desca, g->b,
                             g->pib, g->pjb, g->descb, g->pictxt);
        } else {
            ((redist_c_t)fn)(g->m, g->n, g->a, g->ia, g->ja, g->desca, g->b,
                             g->ib, g->jb, g->descb, g->ictxt);
        }
        break;
    case CS_SHIM_FAM_TRMR2D:
        if (fortran) {
            ((trmr_f_t)fn)(g->uplo, g->diag, g->pm, g->pn, g->a, g->pia, g->pja,
                           g->desca, g->b, g->pib, g->pjb, g->descb, g->pictxt,
                           g->len1, g->len2);
        } else {
            ((trmr_c_t)fn)(g->uplo, g->diag, g->m, g->n, g->a, g->ia, g->ja,
                           g->desca, g->b, g->ib, g->jb, g->descb, g->ictxt);
        }
        break;
    case CS_SHIM_FAM_TRAN:
        ((tran_f_t)fn)(g->pm, g->pn, g->alpha, g->a, g->pia, g->pja, g->desca,
                       g->beta, g->b, g->pib, g->pjb, g->descb);
        break;
    case CS_SHIM_FAM_GEADD:
        ((geadd_f_t)fn)(g->trans, g->pm, g->pn, g->alpha, g->a, g->pia, g->pja,
                        g->desca, g->beta, g->b, g->pib, g->pjb, g->descb,
                        g->len1);
        break;
    case CS_SHIM_FAM_TRADD:
        ((tradd_f_t)fn)(g->uplo, g->trans, g->pm, g->pn, g->alpha, g->a, g->pia,
                        g->pja, g->desca, g->beta, g->b, g->pib, g->pjb,
                        g->descb, g->len1, g->len2);
        break;
    case CS_SHIM_FAM_GEMM:
        ((gemm_f_t)fn)(g->trans, g->transb, g->pm, g->pn, g->pk, g->alpha,
                       g->a, g->pia, g->pja, g->desca, g->x, g->pix, g->pjx,
                       g->descx, g->beta, g->b, g->pib, g->pjb, g->descb,
                       g->len1, g->len2);
        break;
    case CS_SHIM_FAM_SYRK:
        ((syrk_f_t)fn)(g->uplo, g->trans, g->pn, g->pk, g->alpha, g->a, g->pia,
                       g->pja, g->desca, g->beta, g->b, g->pib, g->pjb,
                       g->descb, g->len1, g->len2);
        break;
    default:
        break;
    }
}
