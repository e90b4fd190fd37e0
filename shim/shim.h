/*
 * shim/shim.h - the words every file of shim/ speaks: the routines served
 * (from shim_symbols.def), how they were spelled, the paths a call can
 * take and why, and the record of one call (shim_routines.c).
 *
 * The shim is the only part of costa-shim that knows ScaLAPACK and BLACS:
 * it exports the ScaLAPACK spellings, finds the real routines, turns
 * descriptors into engine layouts, decides collectively between engine and
 * fallback, and records statistics.  Nothing declared here is exported from
 * the library; exported symbols are marked CS_EXPORT and listed in
 * shim/exports.map.  Each file's own functions are declared in its
 * <file>_int.h (shim_call_int.h for the call and its families,
 * shim_decide_int.h for the decision sequence they share,
 * report/report_int.h for the report's files, relabel/relabel_int.h for
 * the relabeling's).
 */
#ifndef CS_SHIM_SHIM_H
#define CS_SHIM_SHIM_H

#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"

#define CS_EXPORT __attribute__((visibility("default")))

/*
 * The Fortran INTEGER of the ScaLAPACK the shim serves (BLIS's f77_int):
 * every entry point and the call record take their integer arguments and
 * descriptors as cs_fint, so an ILP64 build (ScaLAPACK with 8-byte
 * INTEGERs) changes this one line.
 */
typedef int cs_fint;

#define CS_SHIM_VERSION "0.1.0"

/* ------------------------------------------------------------ routines */

typedef enum {
    CS_SHIM_FAM_GEMR2D = 0, /* p?gemr2d: REDIST copy */
    CS_SHIM_FAM_TRMR2D,     /* p?trmr2d: REDIST trapezoidal copy */
    CS_SHIM_FAM_TRAN,       /* p?tran, p?tranu, p?tranc */
    CS_SHIM_FAM_GEADD,      /* p?geadd */
    CS_SHIM_FAM_TRADD,      /* p?tradd */
    CS_SHIM_FAM_GEMM,       /* p?gemm */
    CS_SHIM_FAM_SYRK        /* p?syrk, p?herk */
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
    int conj;           /* op(A) conjugated (p?tranc); p?herk */
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
    CS_SHIM_PATH_ENGINE = 0,  /* the engine ran it */
    CS_SHIM_PATH_FALLBACK,    /* the real routine ran it (a reason) */
    CS_SHIM_PATH_PASSTHROUGH, /* excluded: the real routine, untouched */
    CS_SHIM_PATH_NESTED,      /* called from inside the real routine */
    CS_SHIM_PATH_NONE,        /* nothing to do: neither ran (no_work) */
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
    CS_SHIM_REASON_NO_WORK,       /* M or N is 0, or alpha = 0 and beta = 1:
                                   * the real routine returns at once too */
    CS_SHIM_REASON_GEMM_OFF,      /* p?gemm with COSTA_SHIM_GEMM=off */
    CS_SHIM_REASON_NATIVE_FASTER, /* p?gemm: the cost model or the
                                   * measured times chose the real routine */
    CS_SHIM_NREASON
} cs_shim_reason_t;

const char *cs_shim_path_str(int path);
const char *cs_shim_reason_str(int reason);

/* ------------------------------------------------------------ record */

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
    /* ... and with ranks on several nodes, bytes crossing nodes with the
     * application's mapping, after the plain relabeling and after the
     * node-aware one (relabel/relabel_nodes.h); -1 when not computed. */
    int64_t relabel_net;
    int64_t relabel_net_plain;
    int64_t relabel_net_node;
    /* Seconds of t this rank waited for the last rank of the call to
     * arrive: its time in the call's first collective (and, on a first
     * call, in creating the context's communicator); 0 when the call made
     * none.  The rest of t is the redistribution itself. */
    double t_wait;
    /* p?gemm on the engine path: flops of this rank's local product, the
     * bytes PBLAS's algorithm would have received here (a model:
     * docs/design.md, "Matrix multiplication"), and the phases: operands
     * in (exchanges and slab copies), local product, reduce-scatter, C
     * out.  Zero otherwise. */
    struct {
        double flops;
        int64_t bytes_pblas;
        double t_in, t_mul, t_reduce, t_out;
    } mm;
} cs_shim_record_t;

#endif /* CS_SHIM_SHIM_H */
