/*
 * shim/shim_blacs.c - the engine's private communicator per BLACS context.
 *
 * RATIONALE: BLACS uses tags from the whole range on its communicators, so
 * the engine never sends on them; it sends on a duplicate.  The duplicate is
 * cached as an attribute of the context's communicator, not in a table keyed
 * by context handle or MPI_Comm value, because BLACS recycles both: when the
 * application frees the grid, MPI frees the communicator and our delete
 * callback frees the duplicate with it.  One MPI_Comm_dup per grid, never
 * one per call.
 */
#include <pthread.h>
#include <stdlib.h>

#include "config/log.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"

#include <mpi.h>

static int cs_shim_dup_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t cs_shim_dup_lock = PTHREAD_MUTEX_INITIALIZER;

static int dup_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    MPI_Comm *dup = attr;
    MPI_Comm_free(dup);
    free(dup);
    return MPI_SUCCESS;
}

cs_status_t cs_shim_ctxt_comm(int ctxt, MPI_Comm *comm_p)
{
    MPI_Comm sys = cs_shim_ctxt_system_comm(ctxt);
    if (sys == MPI_COMM_NULL) {
        return CS_ERR_MPI;
    }
    /* local: threads racing to the first call make one keyval */
    pthread_mutex_lock(&cs_shim_dup_lock);
    if (cs_shim_dup_keyval == MPI_KEYVAL_INVALID) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, dup_delete,
                               &cs_shim_dup_keyval, NULL);
    }
    pthread_mutex_unlock(&cs_shim_dup_lock);
    if (cs_shim_dup_keyval == MPI_KEYVAL_INVALID) {
        return CS_ERR_MPI;
    }
    MPI_Comm *dup = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(sys, cs_shim_dup_keyval, &dup, &found) !=
        MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    if (found) {
        *comm_p = *dup;
        return CS_OK;
    }
    dup = malloc(sizeof(*dup));
    if (!dup) {
        cs_shim_fatal("out of memory caching a communicator");
    }
    /* collective over the context: every member makes its first call on
     * this context at the same point of the program */
    if (MPI_Comm_dup(sys, dup) != MPI_SUCCESS ||
        MPI_Comm_set_attr(sys, cs_shim_dup_keyval, dup) != MPI_SUCCESS) {
        free(dup);
        return CS_ERR_MPI;
    }
    *comm_p = *dup;
    return CS_OK;
}
