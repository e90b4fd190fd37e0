/*
 * shim/shim_blacs_int.h - the engine's private communicator of a BLACS
 * context (shim_blacs.c).
 */
#ifndef CS_SHIM_SHIM_BLACS_INT_H
#define CS_SHIM_SHIM_BLACS_INT_H

#include "engine/engine.h"

#include <mpi.h>

/*
 * The private communicator of BLACS context ctxt: a duplicate of the
 * context's own communicator, created on first use and cached as an MPI
 * attribute of that communicator (freed with it).  The calling process must
 * be a member of ctxt.  Collective over the context on first use, and
 * then the same result on every rank: CS_OK, CS_ERR_NOMEM when some rank
 * could not set it up (COSTA_SHIM_TEST_FAULT's `blacs` step), CS_ERR_MPI
 * when MPI or BLACS failed.
 */
cs_status_t cs_shim_ctxt_comm(int ctxt, MPI_Comm *comm_p);

/*
 * For a communicator of cs_shim_ctxt_comm(): the node of each of its ranks
 * (numbered 0, 1, ... in the order of their lowest rank, as MPI's
 * MPI_COMM_TYPE_SHARED splits them), or NULL when unknown.  Owned by the
 * communicator's cache entry.  Local.
 */
const int *cs_shim_comm_nodes(MPI_Comm comm);

#endif /* CS_SHIM_SHIM_BLACS_INT_H */
