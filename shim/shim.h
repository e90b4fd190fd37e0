/*
 * shim/shim.h - what the files of shim/ share.
 *
 * The shim is the only part of costa-shim that knows ScaLAPACK and BLACS:
 * it exports the ScaLAPACK spellings, finds the real routines, turns
 * descriptors into engine layouts, decides collectively between engine and
 * fallback, and records statistics.  Nothing declared here is exported from
 * the library; exported symbols are marked CS_EXPORT and listed in
 * shim/exports.map.
 */
#ifndef CS_SHIM_SHIM_H
#define CS_SHIM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#include <mpi.h>

#define CS_EXPORT __attribute__((visibility("default")))

#define CS_SHIM_VERSION "0.1.0"

/* ------------------------------------------------------------ routines */

typedef enum {
    CS_SHIM_FAM_GEMR2D = 0, /* p?gemr2d: REDIST copy */
    CS_SHIM_FAM_TRMR2D,     /* p?trmr2d: REDIST trapezoidal copy */
    CS_SHIM_FAM_TRAN,       /* p?tran, p?tranu, p?tranc */
    CS_SHIM_FAM_GEADD,      /* p?geadd */
    CS_SHIM_FAM_TRADD       /* p?tradd */
} cs_shim_family_t;

typedef enum {
#define CS_SHIM_ROUTINE(ID, lower, UPPER, fam, type, esize, conj)           \
    CS_SHIM_R_##ID,
#include "shim/shim_symbols.def"
#undef CS_SHIM_ROUTINE
    CS_SHIM_NROUTINES
} cs_shim_routine_id_t;

typedef struct {
    const char *lower;  /* "pdgemr2d" */
    const char *upper;  /* "PDGEMR2D" */
    int family;         /* cs_shim_family_t */
    char type;          /* 's', 'd', 'c', 'z', 'i' */
    size_t esize;
    int conj;           /* op(A) conjugated (p?tranc) */
} cs_shim_routine_t;

extern const cs_shim_routine_t cs_shim_routines[CS_SHIM_NROUTINES];

/* How the application spelled the routine it called. */
typedef enum {
    CS_SHIM_SP_LOWER = 0, /* pdgemr2d   */
    CS_SHIM_SP_LOWER_,    /* pdgemr2d_  */
    CS_SHIM_SP_LOWER__,   /* pdgemr2d__ */
    CS_SHIM_SP_UPPER,     /* PDGEMR2D   */
    CS_SHIM_SP_UPPER_,    /* PDGEMR2D_  */
    CS_SHIM_SP_UPPER__,   /* PDGEMR2D__ */
    CS_SHIM_SP_C,         /* Cpdgemr2d  */
    CS_SHIM_NSPELL
} cs_shim_spelling_t;

/* Write the name as called ("pdgemr2d_", "Cpdgemr2d") into buf. */
void cs_shim_called_name(int routine, int spelling, char *buf, size_t len);

/* ------------------------------------------------------------ paths */

typedef enum {
    CS_SHIM_PATH_ENGINE = 0,
    CS_SHIM_PATH_FALLBACK,
    CS_SHIM_PATH_PASSTHROUGH,
    CS_SHIM_PATH_NESTED,
    CS_SHIM_NPATH
} cs_shim_path_t;

/* Why a call did not take the engine.  Names in cs_shim_reason_str(). */
typedef enum {
    CS_SHIM_REASON_NONE = 0,
    CS_SHIM_REASON_SMALL,         /* m*n below COSTA_SHIM_MIN_ELEMS */
    CS_SHIM_REASON_DISABLED,      /* COSTA_SHIM_DISABLE or the hook */
    CS_SHIM_REASON_ROUTINE_OFF,   /* excluded by COSTA_SHIM_ROUTINES */
    CS_SHIM_REASON_BAD_DESC,      /* input ScaLAPACK rejects or undefined */
    CS_SHIM_REASON_CTXT_NEG1,     /* caller outside the global context */
    CS_SHIM_REASON_MEMORY,        /* above COSTA_SHIM_MAX_MEMORY */
    CS_SHIM_REASON_MPI_NOT_READY, /* MPI not initialised or finalised */
    CS_SHIM_REASON_NESTED,        /* called from inside the real routine */
    CS_SHIM_REASON_ALWAYS,        /* COSTA_SHIM_FALLBACK=always */
    CS_SHIM_REASON_UNSUPPORTED,   /* valid input the engine cannot do */
    CS_SHIM_REASON_MPI_MISMATCH,  /* the process's MPI is not this build's */
    CS_SHIM_NREASON
} cs_shim_reason_t;

const char *cs_shim_path_str(int path);
const char *cs_shim_reason_str(int reason);

/* ------------------------------------------------------------ state */

/*
 * Per-thread nesting depth: > 0 while an intercepted call runs, so a
 * call that comes back into the shim (the real pdgemr2d_ calls Cpdgemr2d
 * through the PLT) goes straight to the real routine.
 */
extern __thread int cs_shim_depth;

/* 0 while the deliberate hook costa_shim_set_enabled(0) is in force. */
extern int cs_shim_enabled;

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

/*
 * First-use set-up on the calling process once MPI is initialised: rank for
 * the log, configuration warnings, report registration, banner.  Local.
 */
void cs_shim_init_once(void);

/* 1 when MPI runs at MPI_THREAD_MULTIPLE (known after cs_shim_init_once):
 * calls may then come from several threads at once.  Local. */
int cs_shim_thread_multiple(void);

/* Log an error and abort the whole job (MPI_Abort if MPI is up, else
 * abort()).  Never returns. */
void cs_shim_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* ------------------------------------------------------------ MPI flavour */

/* The MPI ABIs the shim tells apart (shim_mpi.c). */
typedef enum {
    CS_SHIM_MPI_NONE = 0, /* no MPI visible in the process */
    CS_SHIM_MPI_UNKNOWN,  /* an MPI whose ABI we do not know */
    CS_SHIM_MPI_MPICH,    /* MPICH, Intel MPI, Cray MPICH, MVAPICH */
    CS_SHIM_MPI_OPENMPI
} cs_shim_mpi_t;

/*
 * 1 when the process runs on the MPI ABI this build was compiled for and
 * the shim's MPI references are bound: only then may the shim call MPI.
 * 0: the shim is inert (every call forwarded, reason mpi_mismatch); the
 * first call that finds this logs one warning (from the launcher's rank 0
 * only) naming the build to preload.  Calls no MPI function of this
 * build's ABI.  Local, thread-safe; decided once per process.
 */
int cs_shim_mpi_ok(void);

/* File name of this build ("libcosta_shim.so", ...). */
const char *cs_shim_mpi_build_lib(void);

/* This process's rank as its launcher set it in the environment
 * (OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK, SLURM_PROCID, ...), -1 when
 * none is set.  For use without MPI.  Local. */
int cs_shim_mpi_launcher_rank(void);

/*
 * Set-up of an inert process (cs_shim_mpi_ok() is 0) at its first
 * intercepted call: rank from the launcher, statistics clock, and an
 * atexit() handler that writes this rank's report file when
 * COSTA_SHIM_STATS asks for one (no MPI involved).  Local, once.
 */
void cs_shim_init_inert(void);

/* ------------------------------------------------------------ real routines */

/*
 * The definition of name the process would use without the shim: the next
 * one after the shim in the global scope (dlsym(RTLD_NEXT)), else the first
 * loaded object but the shim that defines it (an object loaded with
 * RTLD_LOCAL, as Python loads extension modules and their MPI and
 * ScaLAPACK).  cs_shim_sym_any: any definition (dlsym(RTLD_DEFAULT) first).
 * NULL when there is none.  Local, thread-safe.
 */
void *cs_shim_sym_next(const char *name);
void *cs_shim_sym_any(const char *name);

typedef void (*cs_shim_fn_t)(void);

/*
 * The real routine behind `routine`, resolved once with dlsym(RTLD_NEXT) by
 * probing the Fortran spellings (fortran = 1: name_, name, name__, NAME,
 * NAME_, NAME__) or the C entry (fortran = 0).  NULL if absent.  Thread-safe.
 */
cs_shim_fn_t cs_shim_real(int routine, int fortran);

/* Path of the ScaLAPACK library behind the shim ("" if none found). */
const char *cs_shim_real_library(void);

/* PILAENV(ctxt, type): ScaLAPACK's panel width (p?tradd works in panels
 * of it).  32 if the function cannot be found.  Local. */
int cs_shim_pilaenv(int ctxt, char type);

/* ------------------------------------------------------------ BLACS */

/* Cblacs_gridinfo; all four outputs -1 when ctxt is not a valid grid of
 * the calling process.  Local. */
void cs_shim_gridinfo(int ctxt, int *nprow_p, int *npcol_p, int *myrow_p,
                      int *mycol_p);

/* The communicator BLACS uses for context ctxt (ranks are grid positions in
 * row-major order).  Only for contexts the caller belongs to.  Local. */
MPI_Comm cs_shim_ctxt_system_comm(int ctxt);

/*
 * The private communicator of BLACS context ctxt: a duplicate of the
 * context's own communicator, created on first use and cached as an MPI
 * attribute of that communicator (freed with it).  The calling process must
 * be a member of ctxt.  Collective over the context on first use.
 * Returns CS_OK or CS_ERR_MPI.
 */
cs_status_t cs_shim_ctxt_comm(int ctxt, MPI_Comm *comm_p);

/* ------------------------------------------------------------ stats */

/* One intercepted call, as the statistics and the trace line see it. */
typedef struct {
    int routine;
    int spelling;
    int path;
    int reason;
    double t;             /* seconds */
    cs_eng_stats_t vol;   /* zero unless the engine ran */
    /* COSTA_SHIM_RELABEL=report: bytes crossing processes with the
     * application's mapping and with the optimal relabeling of the target
     * grid, over the whole call (all ranks); -1 when not computed. */
    int64_t relabel_cross;
    int64_t relabel_best;
    /* Seconds of t this rank waited for the last rank of the call to
     * arrive: its time in the call's first collective (and, on a first
     * call, in creating the context's communicator); 0 when the call made
     * none.  The rest of t is the redistribution itself. */
    double t_wait;
} cs_shim_record_t;

/* Add one call to the statistics registry.  Thread-safe. */
void cs_shim_stats_record(const cs_shim_record_t *rec);

/* Write the end-of-run report (COSTA_SHIM_STATS).  collective = 1: every
 * rank of MPI_COMM_WORLD calls it (MPI_Finalize); 0: per-rank files. */
void cs_shim_report_write(int collective);

#endif /* CS_SHIM_SHIM_H */
