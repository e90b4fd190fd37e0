/*
 * test_apps/lib/cs_blacs.h - prototypes of the BLACS / ScaLAPACK entry points
 * the test programs call (no ScaLAPACK C header is installed).
 *
 * Declarations only: including this header links nothing, so unit and MPI
 * test programs (which do not link ScaLAPACK) may include it too.  Pointer
 * arguments that the routines only read are const, so callers may pass
 * either.  Routines used by a single program stay declared in that program.
 */
#ifndef CS_BLACS_H
#define CS_BLACS_H

#include <mpi.h>

/* ---- BLACS (C interface) ---- */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_set(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, const char *order, int nprow, int npcol);
void Cblacs_gridmap(int *icontxt, int *usermap, int ldumap, int nprow,
                    int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow,
                     int *mycol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);

/* ---- ScaLAPACK tools ---- */
int numroc_(const int *n, const int *nb, const int *iproc,
            const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb,
               const int *nb, const int *irsrc, const int *icsrc,
               const int *ictxt, const int *lld, int *info);

/* ---- REDIST p?gemr2d: Fortran and C interfaces ---- */
void psgemr2d_(const int *m, const int *n, const float *a, const int *ia,
               const int *ja, const int *desca, float *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia,
               const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
void pcgemr2d_(const int *m, const int *n, const float *a, const int *ia,
               const int *ja, const int *desca, float *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
void pzgemr2d_(const int *m, const int *n, const double *a, const int *ia,
               const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
void pigemr2d_(const int *m, const int *n, const int *a, const int *ia,
               const int *ja, const int *desca, int *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);
void Cpsgemr2d(int m, int n, float *a, int ia, int ja, int *desca, float *b,
               int ib, int jb, int *descb, int ictxt);
void Cpdgemr2d(int m, int n, double *a, int ia, int ja, int *desca,
               double *b, int ib, int jb, int *descb, int ictxt);
void Cpcgemr2d(int m, int n, float *a, int ia, int ja, int *desca, float *b,
               int ib, int jb, int *descb, int ictxt);
void Cpzgemr2d(int m, int n, double *a, int ia, int ja, int *desca,
               double *b, int ib, int jb, int *descb, int ictxt);
void Cpigemr2d(int m, int n, int *a, int ia, int ja, int *desca, int *b,
               int ib, int jb, int *descb, int ictxt);

/* ---- PBLAS p?tran* (complex values as (re, im) pairs) ---- */
void pstran_(const int *m, const int *n, const float *alpha, const float *a,
             const int *ia, const int *ja, const int *desca,
             const float *beta, float *c, const int *ic, const int *jc,
             const int *descc);
void pdtran_(const int *m, const int *n, const double *alpha,
             const double *a, const int *ia, const int *ja, const int *desca,
             const double *beta, double *c, const int *ic, const int *jc,
             const int *descc);
void pctranu_(const int *m, const int *n, const float *alpha,
              const float *a, const int *ia, const int *ja, const int *desca,
              const float *beta, float *c, const int *ic, const int *jc,
              const int *descc);
void pztranu_(const int *m, const int *n, const double *alpha,
              const double *a, const int *ia, const int *ja,
              const int *desca, const double *beta, double *c, const int *ic,
              const int *jc, const int *descc);
void pctranc_(const int *m, const int *n, const float *alpha,
              const float *a, const int *ia, const int *ja, const int *desca,
              const float *beta, float *c, const int *ic, const int *jc,
              const int *descc);
void pztranc_(const int *m, const int *n, const double *alpha,
              const double *a, const int *ia, const int *ja,
              const int *desca, const double *beta, double *c, const int *ic,
              const int *jc, const int *descc);

#endif /* CS_BLACS_H */
