/*
 * shim/shim_agree.c - agreeing on a local status before the collective
 * that needs it (shim_agree_int.h): the smallest step of the pattern the
 * decision sequence follows, for the set-up steps below it (the context's
 * communicator, a table's gather).
 */
#include "shim/shim_agree_int.h"

#include <mpi.h>

cs_status_t cs_shim_agree(cs_status_t local, MPI_Comm comm)
{
    /* statuses are CS_OK (0) or negative: the worst is the smallest */
    int mine = (int)local, worst = 0;
    MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MIN, comm);
    return (cs_status_t)worst;
}
