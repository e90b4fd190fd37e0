/*
 * shim/shim_agree_int.h - one status agreed over a communicator
 * (shim_agree.c).
 */
#ifndef CS_SHIM_SHIM_AGREE_INT_H
#define CS_SHIM_SHIM_AGREE_INT_H

#include "engine/engine.h"

#include <mpi.h>

/*
 * The worst of every rank's local status over comm (CS_OK when all are):
 * for a step that must fail everywhere when it failed anywhere, before
 * the collective that needs it.  Collective over comm.
 */
cs_status_t cs_shim_agree(cs_status_t local, MPI_Comm comm);

#endif /* CS_SHIM_SHIM_AGREE_INT_H */
