/*
 * shim/shim_init.c - process-wide set-up and tear-down of the shim.
 *
 * The library is inert until an intercepted routine is called: there is no
 * constructor, nothing prints, nothing calls MPI before that.  The
 * end-of-run report hangs on a delete callback of an MPI_COMM_SELF
 * attribute, which MPI_Finalize runs first while MPI is fully usable
 * (MPI standard, "Allowing User Functions at Process Termination"), so it
 * works for C and Fortran programs without wrapping MPI_Finalize.  The
 * attribute is set in thin MPI_Init wrappers (every rank, so the report can
 * be collective) and, failing that, lazily at the first intercepted call.
 * All of it only where the process runs on this build's MPI
 * (cs_shim_mpi_ok); an inert process gets its report from atexit().
 * The facts it sets up (rank, thread level, collective finalize) are kept
 * by shim_process.c, which every file may read; this file sits on top:
 * it calls the report and the relabeling, nothing calls it back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/gemm/gemm_int.h"
#include "shim/shim.h"
#include "shim/shim_init_int.h"
#include "shim/shim_mpi_int.h"
#include "shim/shim_plan_cache_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"
#include "shim/relabel/relabel_int.h"
#include "shim/report/report_int.h"
#include "shim/shim_stats_int.h"
#include "shim/shim_sym_int.h"

#include <mpi.h>

static int cs_shim_self_keyval = MPI_KEYVAL_INVALID;

static int self_delete(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)attr;
    (void)extra;
    if (cs_log_rank() < 0) {
        /* a rank that never called an intercepted routine may still warn
         * here (the relabeling plan): give its messages their rank */
        int r = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
        cs_log_set_rank(r);
    }
    /* relabel first: both may be collective on MPI_COMM_WORLD, so every
     * rank must call them in the same order */
    cs_shim_relabel_finalize(cs_shim_finalize_collective());
    cs_shim_report_write(cs_shim_finalize_collective());
    cs_shim_plan_cache_clear();
    cs_eng_workspace_release();
    cs_shim_gemm_buffer_release();
    cs_shim_gemm_plans_release();
    cs_eng_shm_release(); /* collective: every rank finalizes */
    return MPI_SUCCESS;
}

/* Hang the report on MPI_COMM_SELF (once per process). */
static void register_finalize(void)
{
    if (cs_shim_self_keyval != MPI_KEYVAL_INVALID) {
        return;
    }
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete,
                               &cs_shim_self_keyval, NULL) == MPI_SUCCESS) {
        MPI_Comm_set_attr(MPI_COMM_SELF, cs_shim_self_keyval, NULL);
    }
}

/* atexit() of an inert process: no MPI_Finalize callback exists there. */
static void inert_exit(void)
{
    cs_shim_report_write(0);
}

static void init_inert(void)
{
    int rank = cs_shim_mpi_launcher_rank();
    cs_shim_world_rank_set(rank);
    if (rank >= 0) {
        cs_log_set_rank(rank);
    }
    cs_shim_stats_mark_start();
    if (cs_cfg_get()->stats != CS_CFG_STATS_OFF) {
        atexit(inert_exit);
    }
}

/* The engine's fatal errors end the job the shim's one way (the message
 * flushed, then MPI_Abort). */
static void engine_fatal(const char *msg)
{
    cs_shim_fatal("%s", msg);
}

static void init_once(void)
{
    const cs_config_t *cfg = cs_cfg_get();
    cs_eng_set_fatal_hook(engine_fatal);
    int rank = cs_shim_world_rank();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    cs_shim_world_rank_set(rank);
    cs_log_set_rank(rank);
    cs_cfg_emit_warnings(rank);
    register_finalize();
    cs_shim_stats_mark_start();
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    cs_shim_thread_multiple_set(level == MPI_THREAD_MULTIPLE);
    if (cfg->dump_config && rank == 0) {
        cs_cfg_dump(cfg, 2);
    }
    if (cfg->banner && rank == 0) {
        const char *lib = cs_shim_real_library();
        cs_log_notice("version %s: serving p?gemr2d, p?trmr2d, p?tran, "
                      "p?tranu, p?tranc, p?geadd, p?tradd; real routines "
                      "from %s",
                      CS_SHIM_VERSION, lib[0] ? lib : "(not found)");
    }
}

void cs_shim_init_once(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

void cs_shim_init_inert(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_inert);
}

/* ------------------------------------------------------------ MPI_Init */

typedef int (*init_fn)(int *, char ***);
typedef int (*init_thread_fn)(int *, char ***, int, int *);

static void *next_sym(const char *name)
{
    void *p = cs_shim_sym_next(name);
    if (!p) {
        cs_shim_fatal("cannot find %s after the shim", name);
    }
    return p;
}

static void after_init(void)
{
    /* registration only: no communication here */
    register_finalize();
    cs_shim_stats_mark_start();
    cs_shim_finalize_collective_set();
}

static int init_common(const char *name, int *argc, char ***argv)
{
    void *p = next_sym(name);
    init_fn f;
    memcpy(&f, &p, sizeof(f));
    int rc = f(argc, argv);
    if (rc == MPI_SUCCESS && cs_shim_mpi_ok()) {
        after_init();
    }
    return rc;
}

static int init_thread_common(const char *name, int *argc, char ***argv,
                              int required, int *provided)
{
    void *p = next_sym(name);
    init_thread_fn f;
    memcpy(&f, &p, sizeof(f));
    int rc = f(argc, argv, required, provided);
    if (rc == MPI_SUCCESS && cs_shim_mpi_ok()) {
        after_init();
    }
    return rc;
}

CS_EXPORT int MPI_Init(int *argc, char ***argv)
{
    return init_common("MPI_Init", argc, argv);
}

CS_EXPORT int PMPI_Init(int *argc, char ***argv)
{
    return init_common("PMPI_Init", argc, argv);
}

CS_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required,
                              int *provided)
{
    return init_thread_common("MPI_Init_thread", argc, argv, required,
                              provided);
}

CS_EXPORT int PMPI_Init_thread(int *argc, char ***argv, int required,
                               int *provided)
{
    return init_thread_common("PMPI_Init_thread", argc, argv, required,
                              provided);
}
