/*
 * shim/shim_real_int.h - the real ScaLAPACK routines behind the shim and
 * the BLACS queries it needs (shim_real.c).
 */
#ifndef CS_SHIM_SHIM_REAL_INT_H
#define CS_SHIM_SHIM_REAL_INT_H

#include <mpi.h>

typedef void (*cs_shim_fn_t)(void);

/*
 * The real routine behind `routine`, resolved once with dlsym(RTLD_NEXT) by
 * probing the Fortran spellings (fortran = 1: name_, name, name__, NAME,
 * NAME_, NAME__) or the C entry (fortran = 0).  NULL if absent.  Thread-safe.
 */
cs_shim_fn_t cs_shim_real(int routine, int fortran);

/* Path of the ScaLAPACK library behind the shim ("" if none found). */
const char *cs_shim_real_library(void);

/* PILAENV(ctxt, type): ScaLAPACK's panel width (p?tradd works in panels
 * of it).  32 if the function cannot be found.  Local. */
int cs_shim_pilaenv(int ctxt, char type);

/* Cblacs_gridinfo; all four outputs -1 when ctxt is not a valid grid of
 * the calling process.  Local. */
void cs_shim_gridinfo(int ctxt, int *nprow_p, int *npcol_p, int *myrow_p,
                      int *mycol_p);

/* The communicator BLACS uses for context ctxt (ranks are grid positions in
 * row-major order).  Only for contexts the caller belongs to.  Local. */
MPI_Comm cs_shim_ctxt_system_comm(int ctxt);

#endif /* CS_SHIM_SHIM_REAL_INT_H */
