/*
 * shim/shim_mpi_int.h - which MPI the process runs on, and whether the
 * shim may call it (shim_mpi.c).
 */
#ifndef CS_SHIM_SHIM_MPI_INT_H
#define CS_SHIM_SHIM_MPI_INT_H

/* The MPI ABIs the shim tells apart (shim_mpi.c). */
typedef enum {
    CS_SHIM_MPI_NONE = 0, /* no MPI visible in the process */
    CS_SHIM_MPI_UNKNOWN,  /* an MPI whose ABI we do not know */
    CS_SHIM_MPI_MPICH,    /* MPICH, Intel MPI, Cray MPICH, MVAPICH */
    CS_SHIM_MPI_OPENMPI
} cs_shim_mpi_t;

/*
 * 1 when the process runs on the MPI ABI this build was compiled for and
 * the shim's MPI references are bound: only then may the shim call MPI.
 * 0: the shim is inert (every call forwarded, reason mpi_mismatch); the
 * first call that finds this logs one warning (from the launcher's rank 0
 * only) naming the build to preload.  Calls no MPI function of this
 * build's ABI.  Local, thread-safe; decided once per process.
 */
int cs_shim_mpi_ok(void);

/* This process's rank as its launcher set it in the environment
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID, ...), -1 when
 * none is set.  For use without MPI.  Local. */
int cs_shim_mpi_launcher_rank(void);

#endif /* CS_SHIM_SHIM_MPI_INT_H */
