/*
 * shim/shim_pblas_agree_int.h - what the processes of a PBLAS call must pass
 * alike, and stopping the job when they do not (shim_pblas_agree.c).
 */
#ifndef CS_SHIM_SHIM_PBLAS_AGREE_INT_H
#define CS_SHIM_SHIM_PBLAS_AGREE_INT_H

#include <stdint.h>

#include "shim/shim_call_int.h"

#include <mpi.h>

/*
 * What the processes of a PBLAS call must pass alike (shim_pblas_agree.c):
 * routine, M, N, offsets, TRANS, UPLO, the scalars' bits, and of DESCA and
 * DESCC the blocking and source entries (xa, xc: MB, NB, IMB, INB, RSRC,
 * CSRC, decoded from either DTYPE), plus this rank in MPI_COMM_WORLD (the
 * last entry: the first CS_SHIM_PB_HASHED ints are the identity the call's
 * agreement compares, cs_shim_job_identity).  Local.
 * cs_shim_pblas_disagree: they did not: gathers them over comm, names the
 * first that differs with each rank's value, stops the job.  Collective
 * over comm; never returns.
 */
#define CS_SHIM_PB_NPAR 30
#define CS_SHIM_PB_HASHED (CS_SHIM_PB_NPAR - 1)
void cs_shim_pblas_params(const cs_shim_call_t *g, const int xa[6],
                          const int xc[6], int par_p[CS_SHIM_PB_NPAR]);
void cs_shim_pblas_disagree(const int par[CS_SHIM_PB_NPAR], MPI_Comm comm,
                            const char *name) __attribute__((noreturn));

#endif /* CS_SHIM_SHIM_PBLAS_AGREE_INT_H */
