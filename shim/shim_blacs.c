/*
 * shim/shim_blacs.c - the engine's private communicator per BLACS context.
 *
 * RATIONALE: BLACS uses tags from the whole range on its communicators, so
 * the engine never sends on them; it sends on a duplicate.  The duplicate is
 * cached as an attribute of the context's communicator, not in a table keyed
 * by context handle or MPI_Comm value, because BLACS recycles both: when the
 * application frees the grid, MPI frees the communicator and our delete
 * callback frees the duplicate with it.  One MPI_Comm_dup per grid, never
 * one per call.  On its first use the duplicate also learns which node
 * each of its ranks runs on (node_table), for the report.  A rank that
 * cannot set the duplicate up (memory, attributes) tells the others
 * before any collective that needs it, and every rank gives it up.
 */
#include <pthread.h>
#include <stdlib.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim_agree_int.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"

#include <mpi.h>

/* What a context's communicator carries: the duplicate, and which node
 * each of its ranks runs on (for the report's bytes inside and across
 * nodes). */
typedef struct {
    MPI_Comm comm;
    int *node;
} dup_t;

/* cs_shim_dup_keyval: on the context's communicator, owns a dup_t;
 * cs_shim_node_keyval: on the duplicate, the same dup_t, borrowed. */
static int cs_shim_dup_keyval = MPI_KEYVAL_INVALID;
static int cs_shim_node_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t cs_shim_dup_lock = PTHREAD_MUTEX_INITIALIZER;

static int dup_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    dup_t *d = attr;
    MPI_Comm_free(&d->comm);
    free(d->node);
    free(d);
    return MPI_SUCCESS;
}

/*
 * d->node[r] = the number of the node of rank r of d->comm (nodes numbered
 * 0, 1, ... in the order of their lowest rank), from MPI's own idea of a
 * node (MPI_COMM_TYPE_SHARED, which emulated nodes on one machine also
 * split), into d->node and first (np ints each, allocated by the caller).
 * Collective over d->comm.
 */
static void node_table(dup_t *d, int *first)
{
    int me = 0, np = 0, lead = 0;
    MPI_Comm_rank(d->comm, &me);
    MPI_Comm_size(d->comm, &np);
    MPI_Comm local = MPI_COMM_NULL;
    if (MPI_Comm_split_type(d->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &local) == MPI_SUCCESS &&
        local != MPI_COMM_NULL) {
        MPI_Allreduce(&me, &lead, 1, MPI_INT, MPI_MIN, local);
        MPI_Comm_free(&local);
    } else {
        lead = me;
    }
    int *node = d->node;
    MPI_Allgather(&lead, 1, MPI_INT, node, 1, MPI_INT, d->comm);
    /* leaders (lowest ranks of their node) become 0, 1, ... in order */
    int n = 0;
    for (int r = 0; r < np; r++) {
        first[r] = -1;
    }
    for (int r = 0; r < np; r++) {
        int l = node[r];
        if (first[l] < 0) {
            first[l] = n++;
        }
        node[r] = first[l];
    }
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
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN,
                               MPI_COMM_NULL_DELETE_FN, &cs_shim_node_keyval,
                               NULL);
    }
    pthread_mutex_unlock(&cs_shim_dup_lock);
    if (cs_shim_dup_keyval == MPI_KEYVAL_INVALID ||
        cs_shim_node_keyval == MPI_KEYVAL_INVALID) {
        return CS_ERR_MPI;
    }
    dup_t *d = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(sys, cs_shim_dup_keyval, &d, &found) !=
        MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    if (found) {
        *comm_p = d->comm;
        return CS_OK;
    }
    /* collective over the context: every member makes its first call on
     * this context at the same point of the program */
    MPI_Comm dup;
    if (MPI_Comm_dup(sys, &dup) != MPI_SUCCESS) {
        return CS_ERR_MPI;
    }
    /* everything that can fail locally, then one agreement on the
     * duplicate, then the collectives: a rank that failed alone must not
     * skip the gather, nor free the duplicate by itself */
    int np = 0;
    MPI_Comm_size(dup, &np);
    int *first = NULL;
    int on_dup = 0, on_sys = 0;
    d = cs_shim_fault(CS_CFG_FAULT_BLACS) ? NULL : calloc(1, sizeof(*d));
    if (d) {
        d->comm = dup;
        d->node = malloc((size_t)np * sizeof(int));
        first = malloc((size_t)np * sizeof(int));
    }
    if (d && d->node && first) {
        on_dup = MPI_Comm_set_attr(dup, cs_shim_node_keyval, d) ==
                 MPI_SUCCESS;
        on_sys = on_dup &&
                 MPI_Comm_set_attr(sys, cs_shim_dup_keyval, d) == MPI_SUCCESS;
    }
    cs_status_t st = cs_shim_agree(on_sys ? CS_OK : CS_ERR_NOMEM, dup);
    if (st != CS_OK) {
        /* every rank frees the duplicate once: through the attribute's
         * delete callback where it was set, else directly */
        if (on_sys) {
            MPI_Comm_delete_attr(sys, cs_shim_dup_keyval);
        } else {
            MPI_Comm_free(&dup);
            if (d) {
                free(d->node);
            }
            free(d);
        }
        free(first);
        cs_log_info("context %d: no private communicator (%s): its calls go "
                    "to ScaLAPACK",
                    ctxt, cs_status_str(st));
        return st;
    }
    node_table(d, first);
    free(first);
    *comm_p = d->comm;
    return CS_OK;
}

const int *cs_shim_comm_nodes(MPI_Comm comm)
{
    dup_t *d = NULL;
    int found = 0;
    if (cs_shim_node_keyval == MPI_KEYVAL_INVALID ||
        MPI_Comm_get_attr(comm, cs_shim_node_keyval, &d, &found) !=
            MPI_SUCCESS ||
        !found) {
        return NULL;
    }
    return d->node;
}
