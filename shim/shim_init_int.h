/*
 * shim/shim_init_int.h - first-use set-up of the shim on a process
 * (shim_init.c), with MPI or, where the MPI is not this build's, without.
 */
#ifndef CS_SHIM_SHIM_INIT_INT_H
#define CS_SHIM_SHIM_INIT_INT_H

/*
 * First-use set-up on the calling process once MPI is initialised: rank for
 * the log, configuration warnings, report registration, banner.  Local.
 */
void cs_shim_init_once(void);

/*
 * Set-up of an inert process (cs_shim_mpi_ok() is 0) at its first
 * intercepted call: rank from the launcher, statistics clock, and an
 * atexit() handler that writes this rank's report file when
 * COSTA_SHIM_STATS asks for one (no MPI involved).  Local, once.
 */
void cs_shim_init_inert(void);

#endif /* CS_SHIM_SHIM_INIT_INT_H */
