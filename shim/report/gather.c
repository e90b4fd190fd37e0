/*
 * shim/report/gather.c - the end-of-run report (docs/report-format.md):
 * this rank's statistics, and in collective mode everyone's on rank 0.
 *
 * Runs once per process, from the MPI_COMM_SELF delete callback inside
 * MPI_Finalize, where MPI is still fully usable.  Collective mode: every
 * rank of MPI_COMM_WORLD sends its totals (MPI_Gather) and its statistics
 * rows (MPI_Gatherv) to rank 0, which merges rows of the same key
 * (merge.c) and writes the text report (also to its stderr), the CSV and
 * the JSON file (files.c).  The shape and caller tables are merged by
 * exact key on the way to rank 0 (one MPI_Reduce each with a merging
 * operator), so no rank ever holds more than two tables of each kind.
 * Local mode (COSTA_SHIM_STATS=local, or the report was registered lazily
 * so not every rank takes part): no communication at all, every rank writes
 * its own CSV file, shape rows included.
 *
 * Invariants: at most CS_SHIM_STATS_MAX_ROWS rows per rank and in each
 * merged table, CS_SHIM_STATS_MAX_SHAPES shapes and
 * CS_SHIM_STATS_MAX_CALLERS callers per table (overflow marks the report
 * partial, it never grows); all ranks run the same binary, so rows and
 * tables travel as bytes.  No exit(), no abort().
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_mpi_int.h"
#include "shim/shim_process_int.h"
#include "shim/report/report_int.h"
#include "shim/shim_stats_int.h"

#include <mpi.h>

/* Written once per process; static keeps the finalizer off the heap for
 * everything but the gathered rows. */
static cs_shim_rep_t cs_rep;
static cs_shim_row_t cs_shim_rep_mine[CS_SHIM_REP_MAX_ROWS];
static cs_shim_shape_tab_t cs_shim_rep_shapes_mine, cs_shim_rep_shapes_all;
static cs_shim_caller_tab_t cs_shim_rep_callers_mine, cs_shim_rep_callers_all;

/* MPI_Reduce operators: merge whole tables by key. */
static void cs_shim_rep_shape_op(void *in, void *inout, int *len,
                                 MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) {
        cs_shim_shape_tab_merge((cs_shim_shape_tab_t *)inout + i,
                                (const cs_shim_shape_tab_t *)in + i);
    }
}

static void cs_shim_rep_caller_op(void *in, void *inout, int *len,
                                  MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) {
        cs_shim_caller_tab_merge((cs_shim_caller_tab_t *)inout + i,
                                 (const cs_shim_caller_tab_t *)in + i);
    }
}

/*
 * One table of `size` bytes from every rank, merged by fn, into all on
 * rank 0.  RATIONALE: a reduction (a tree in MPICH and Open MPI) merges on
 * the way, so no rank ever holds more than two tables, whatever the
 * number of ranks; a gather would need one table per rank on rank 0.
 * Collective over comm.
 */
static void cs_shim_rep_reduce_tab(const void *mine, void *all, size_t size,
                                   MPI_User_function *fn, MPI_Comm comm)
{
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous((int)size, MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(fn, 1, &op);
    MPI_Reduce(mine, all, 1, type, op, 0, comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
}

/* No communication: this rank's CSV only. */
static void cs_shim_rep_local(cs_shim_rep_t *rep, int nmine,
                              const cs_shim_rep_rank_t *my)
{
    int up = 0, down = 0, rank = cs_shim_world_rank();
    int first[2] = {0, nmine};
    if (cs_shim_mpi_ok()) {
        MPI_Initialized(&up);
        MPI_Finalized(&down);
    }
    rep->nprocs = 0;
    if (up && !down) {
        MPI_Comm_size(MPI_COMM_WORLD, &rep->nprocs);
        if (rank < 0) {
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        }
    }
    rep->collective = 0;
    rep->nranks = 1;
    rep->rank0 = rank;
    rep->ranks = my;
    rep->first = first;
    rep->all = cs_shim_rep_mine;
    rep->partial = my->partial;
    rep->shapes = &cs_shim_rep_shapes_mine;
    rep->callers = NULL; /* the CSV has no caller rows */
    rep->verify_calls = my->verify_calls;
    rep->verify_maxdiff = my->verify_maxdiff;
    rep->mem_peak = my->mem_peak;
    cs_shim_rep_sort_tables(rep);
    cs_shim_rep_emit_local(rep, rank);
}

/*
 * Gather to rank 0 of MPI_COMM_WORLD and write there.  Rank 0 announces
 * (MPI_Bcast) whether it could allocate before each gather, so a failed
 * allocation skips the report on every rank instead of hanging.
 */
static void cs_shim_rep_collective(cs_shim_rep_t *rep, int nmine,
                                   cs_shim_rep_rank_t *my)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int me = 0, np = 1, ok = 1;
    cs_shim_rep_rank_t *ranks = NULL;
    int *counts = NULL, *first = NULL;
    cs_shim_row_t *all = NULL;
    MPI_Comm node;
    MPI_Datatype rowtype;

    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    my->node_leader = me == 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                            &node) == MPI_SUCCESS) {
        int nr = 0;
        MPI_Comm_rank(node, &nr);
        my->node_leader = nr == 0;
        MPI_Comm_free(&node);
    }
    if (me == 0) {
        ranks = malloc((size_t)np * sizeof(*ranks));
        counts = malloc((size_t)np * sizeof(*counts));
        first = malloc(((size_t)np + 1) * sizeof(*first));
        ok = ranks && counts && first;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        goto err_nomem;
    }
    MPI_Gather(my, (int)sizeof(*my), MPI_BYTE, ranks, (int)sizeof(*my),
               MPI_BYTE, 0, comm);
    if (me == 0) {
        /* at most CS_SHIM_STATS_MAX_ROWS rows per rank; int counts of
         * rows (not bytes) keep the Gatherv below INT_MAX */
        int64_t tot = 0;
        for (int r = 0; r < np; r++) {
            counts[r] = ranks[r].nrows;
            first[r] = (int)(tot < INT_MAX ? tot : INT_MAX);
            tot += counts[r];
        }
        first[np] = (int)(tot < INT_MAX ? tot : INT_MAX);
        all = tot <= INT_MAX ? malloc((size_t)(tot > 0 ? tot : 1) *
                                      sizeof(*all))
                             : NULL;
        ok = all != NULL;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        goto err_nomem;
    }
    MPI_Type_contiguous((int)sizeof(cs_shim_row_t), MPI_BYTE, &rowtype);
    MPI_Type_commit(&rowtype);
    MPI_Gatherv(cs_shim_rep_mine, nmine, rowtype, all, counts, first, rowtype,
                0, comm);
    MPI_Type_free(&rowtype);
    cs_shim_rep_reduce_tab(&cs_shim_rep_shapes_mine, &cs_shim_rep_shapes_all,
                           sizeof(cs_shim_rep_shapes_mine),
                           cs_shim_rep_shape_op, comm);
    cs_shim_rep_reduce_tab(&cs_shim_rep_callers_mine, &cs_shim_rep_callers_all,
                           sizeof(cs_shim_rep_callers_mine),
                           cs_shim_rep_caller_op, comm);
    if (me == 0) {
        rep->collective = 1;
        rep->nprocs = np;
        rep->nranks = np;
        rep->rank0 = 0;
        rep->ranks = ranks;
        rep->first = first;
        rep->all = all;
        for (int r = 0; r < np; r++) {
            qsort(all + first[r], (size_t)counts[r], sizeof(*all),
                  cs_shim_rep_row_cmp);
            rep->partial |= ranks[r].partial;
            rep->nnodes += ranks[r].node_leader;
            rep->verify_calls += ranks[r].verify_calls;
            if (ranks[r].mem_peak > rep->mem_peak) {
                rep->mem_peak = ranks[r].mem_peak;
            }
            if (ranks[r].verify_maxdiff > rep->verify_maxdiff) {
                rep->verify_maxdiff = ranks[r].verify_maxdiff;
            }
        }
        rep->shapes = &cs_shim_rep_shapes_all;
        rep->callers = &cs_shim_rep_callers_all;
        cs_shim_rep_sort_tables(rep);
        cs_shim_rep_merge(rep);
        cs_shim_rep_meta(rep);
        cs_shim_rep_emit_all(rep);
    }
    goto out;
err_nomem:
    if (me == 0) {
        cs_log_warn("cannot write the report: %s", strerror(ENOMEM));
    }
out:
    free(all);
    free(first);
    free(counts);
    free(ranks);
}

void cs_shim_report_write(int collective)
{
    const cs_config_t *cfg = cs_cfg_get();
    if (cfg->stats == CS_CFG_STATS_OFF) {
        return;
    }
    cs_shim_rep_t *rep = &cs_rep;
    cs_shim_totals_t tot;
    cs_shim_rep_rank_t my;
    memset(rep, 0, sizeof(*rep));
    memset(&my, 0, sizeof(my));
    rep->cfg = cfg;
    int n =
        cs_shim_stats_snapshot(cs_shim_rep_mine, CS_SHIM_REP_MAX_ROWS, &tot);
    my.app_time = tot.t_start > 0.0 ? cs_shim_now() - tot.t_start : 0.0;
    my.t_shim = tot.t_shim;
    my.t_wait = tot.t_wait;
    my.calls = tot.calls;
    my.fallbacks = tot.fallbacks;
    my.nrows = n;
    my.partial = tot.partial;
    my.verify_calls = tot.verify_calls;
    my.verify_maxdiff = tot.verify_maxdiff;
    my.mem_peak = cs_shim_mem_peak();
    my.mem_cap = cs_shim_mem_cap();
    cs_shim_stats_shapes(&cs_shim_rep_shapes_mine);
    cs_shim_stats_callers(&cs_shim_rep_callers_mine);

    int up = 0, down = 0;
    if (cs_shim_mpi_ok()) {
        MPI_Initialized(&up);
        MPI_Finalized(&down);
    }
    if (!collective || cfg->stats == CS_CFG_STATS_LOCAL || !up || down) {
        qsort(cs_shim_rep_mine, (size_t)n, sizeof(cs_shim_rep_mine[0]),
              cs_shim_rep_row_cmp);
        cs_shim_rep_local(rep, n, &my);
    } else {
        cs_shim_rep_collective(rep, n, &my);
    }
}
