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
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_call.h"
#include "shim/shim_relabel_int.h"
#include "shim/shim_stats.h"

__thread int cs_shim_depth;
int cs_shim_enabled = 1;

static int cs_shim_rank = -1;
/* The MPI thread level is MPI_THREAD_MULTIPLE (set by init_once). */
static int cs_shim_multiple;
static int cs_shim_self_keyval = MPI_KEYVAL_INVALID;
/* 1 when every rank registered in MPI_Init, so the report may be
 * collective. */
static int cs_shim_registered_in_init;

double cs_shim_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cs_shim_world_rank(void)
{
    return cs_shim_rank;
}

int cs_shim_finalize_collective(void)
{
    return cs_shim_registered_in_init;
}

void cs_shim_fatal(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    cs_log_error("%s", msg);
    int up = 0, down = 0;
    if (cs_shim_mpi_ok()) {
        MPI_Initialized(&up);
        MPI_Finalized(&down);
    }
    if (up && !down) {
        /* RATIONALE: MPI_Abort can kill the job before the launcher has
         * forwarded what the ranks wrote (MPICH's hydra dropped this
         * message and the program's last lines in one run of check 39):
         * flush, and give it a moment. */
        fflush(NULL);
        struct timespec pause = {0, 200000000L};
        nanosleep(&pause, NULL);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    abort();
}

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
    cs_shim_relabel_finalize(cs_shim_registered_in_init);
    cs_shim_report_write(cs_shim_registered_in_init);
    cs_shim_plan_cache_clear();
    cs_eng_workspace_release();
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
    cs_shim_rank = cs_shim_mpi_launcher_rank();
    if (cs_shim_rank >= 0) {
        cs_log_set_rank(cs_shim_rank);
    }
    cs_shim_stats_mark_start();
    if (cs_cfg_get()->stats != CS_CFG_STATS_OFF) {
        atexit(inert_exit);
    }
}

static void init_once(void)
{
    const cs_config_t *cfg = cs_cfg_get();
    MPI_Comm_rank(MPI_COMM_WORLD, &cs_shim_rank);
    cs_log_set_rank(cs_shim_rank);
    cs_cfg_emit_warnings(cs_shim_rank);
    register_finalize();
    cs_shim_stats_mark_start();
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    cs_shim_multiple = level == MPI_THREAD_MULTIPLE;
    if (cfg->dump_config && cs_shim_rank == 0) {
        cs_cfg_dump(cfg, 2);
    }
    if (cfg->banner && cs_shim_rank == 0) {
        char line[1024];
        const char *lib = cs_shim_real_library();
        snprintf(line, sizeof(line),
                 "costa-shim %s: serving p?gemr2d, p?trmr2d, p?tran, "
                 "p?tranu, p?tranc, p?geadd, p?tradd; real routines from %s",
                 CS_SHIM_VERSION, lib[0] ? lib : "(not found)");
        cs_log_line(2, line);
    }
}

void cs_shim_init_once(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_once);
}

int cs_shim_thread_multiple(void)
{
    return cs_shim_multiple;
}

void cs_shim_init_inert(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_inert);
}

/* ------------------------------------------------------------ hooks */

/* Deliberate hook for benchmarks: switch interception off (0) or on (1)
 * at run time, returning the previous state.  While off every call goes
 * straight to the real routine and nothing is recorded. */
CS_EXPORT int costa_shim_set_enabled(int on);
CS_EXPORT int costa_shim_set_enabled(int on)
{
    int old = cs_shim_enabled;
    cs_shim_enabled = on != 0;
    return old;
}

/* Deliberate hook for benchmarks: the bytes the shim holds now between
 * calls (engine workspaces, cached plans, the shared send buffer), what
 * COSTA_SHIM_MAX_MEMORY caps.  Thread-safe. */
CS_EXPORT long long costa_shim_memory_held(void);
CS_EXPORT long long costa_shim_memory_held(void)
{
    return (long long)cs_shim_mem_held();
}

/* Version string, exported so tools can identify the library. */
CS_EXPORT const char *costa_shim_version(void);
CS_EXPORT const char *costa_shim_version(void)
{
    return CS_SHIM_VERSION;
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
    cs_shim_registered_in_init = 1;
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
