/*
 * shim/shim_process_int.h - the process-wide facts every file of the shim
 * may ask (shim_process.c): nesting depth, the on/off switch, world
 * rank, thread level, whether the finalize is collective; the clock; the
 * fatal exit.
 */
#ifndef CS_SHIM_SHIM_PROCESS_INT_H
#define CS_SHIM_SHIM_PROCESS_INT_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * Per-thread nesting depth: > 0 while an intercepted call runs, so a
 * call that comes back into the shim (the real pdgemr2d_ calls Cpdgemr2d
 * through the PLT) goes straight to the real routine.
 */
extern __thread int cs_shim_depth;

/* 0 while the deliberate hook costa_shim_set_enabled(0) is in force.
 * Atomic: a benchmark thread may switch it while others call.  Read it
 * with cs_shim_is_enabled(), set it with cs_shim_enabled_set(). */
extern atomic_int cs_shim_enabled;

/* Whether interception is on.  Local, thread-safe. */
static inline int cs_shim_is_enabled(void)
{
    return atomic_load_explicit(&cs_shim_enabled, memory_order_relaxed);
}

/* Switch interception on (on != 0) or off; returns the previous state.
 * Local, thread-safe. */
int cs_shim_enabled_set(int on);

/* Wall-clock seconds (monotonic). */
double cs_shim_now(void);

/* Rank in MPI_COMM_WORLD, -1 before the first intercepted call. */
int cs_shim_world_rank(void);

/* Set by shim_init.c only: the world rank (first use), MPI_Init went
 * through the shim on this rank, the thread level is
 * MPI_THREAD_MULTIPLE. */
void cs_shim_world_rank_set(int rank);
void cs_shim_finalize_collective_set(void);
void cs_shim_thread_multiple_set(int multiple);

/*
 * 1 when this process's MPI_Init (or MPI_Init_thread) went through the
 * shim, so the MPI_COMM_SELF callback runs at MPI_Finalize on this rank.
 * Every rank runs the same preload, so the value is the same on all of
 * them, and the callback may then communicate on MPI_COMM_WORLD (the
 * report and the relabeling plan gather there).  Local.
 */
int cs_shim_finalize_collective(void);

/* 1 when MPI runs at MPI_THREAD_MULTIPLE (known after cs_shim_init_once):
 * calls may then come from several threads at once.  Local. */
int cs_shim_thread_multiple(void);

/* Ranks on this node according to the launcher (MPI_LOCALNRANKS,
 * OMPI_COMM_WORLD_LOCAL_SIZE, SLURM_NTASKS_PER_NODE), 1 when unknown. */
int64_t cs_shim_local_ranks(void);

/* Cores this rank may use without taking another rank's: the cores of
 * its affinity mask when the launcher bound it to fewer than the node
 * has, otherwise the node's online cores divided by its ranks (at least
 * 1).  The default bound of the engine's threads (shim_engine.c). */
int cs_shim_cores_per_rank(void);

/* Log an error and abort the whole job (MPI_Abort if MPI is up, else
 * abort()).  Never returns. */
void cs_shim_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

#endif /* CS_SHIM_SHIM_PROCESS_INT_H */
