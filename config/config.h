/*
 * config/config.h - the one parsed configuration of costa-shim.
 *
 * Every COSTA_SHIM_* environment variable (see docs/env.md, generated from
 * the table in config_table.c) is parsed once, strictly, into one
 * cs_config_t.  Precedence: environment > file named by COSTA_SHIM_CONFIG >
 * built-in default.  A bad value keeps the default and records one warning
 * naming the variable and the default; an unknown COSTA_SHIM_* name records
 * one warning.  Warnings are stored, not printed, because parsing can happen
 * before the MPI rank is known; cs_cfg_emit_warnings() prints them.
 *
 * This module depends on nothing else in the project.
 */
#ifndef CS_CONFIG_CONFIG_H
#define CS_CONFIG_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/* What to do with a call the engine will not take. */
typedef enum {
    CS_CFG_FALLBACK_AUTO = 0, /* forward to the real ScaLAPACK routine */
    CS_CFG_FALLBACK_NEVER,    /* abort with a message (used by the tests) */
    CS_CFG_FALLBACK_ALWAYS    /* measure only: every call forwarded */
} cs_cfg_fallback_t;

typedef enum {
    CS_CFG_RELABEL_OFF = 0,
    CS_CFG_RELABEL_REPORT,
    CS_CFG_RELABEL_APPLY
} cs_cfg_relabel_t;

typedef enum {
    CS_CFG_SHM_OFF = 0,
    CS_CFG_SHM_AUTO,
    CS_CFG_SHM_EAGER
} cs_cfg_shm_t;

typedef enum {
    CS_CFG_GEMM_OFF = 0,
    CS_CFG_GEMM_ON,
    CS_CFG_GEMM_FORCE
} cs_cfg_gemm_t;

typedef enum {
    CS_CFG_STATS_OFF = 0,
    CS_CFG_STATS_SUMMARY,
    CS_CFG_STATS_FULL,
    CS_CFG_STATS_LOCAL
} cs_cfg_stats_t;

/* The allocation COSTA_SHIM_TEST_FAULT makes fail (testing). */
typedef enum {
    CS_CFG_FAULT_OFF = 0,
    CS_CFG_FAULT_BLACS,     /* the context's private communicator */
    CS_CFG_FAULT_WINDOW,    /* the shared send buffer's window */
    CS_CFG_FAULT_WORKSPACE, /* the engine's reservation */
    CS_CFG_FAULT_PLAN,      /* the engine's plan */
    CS_CFG_FAULT_TABLE,     /* p?gemr2d's exchanged table */
    CS_CFG_FAULT_VERIFY,    /* COSTA_SHIM_VERIFY's copy of the target */
    CS_CFG_FAULT_DIGEST,    /* every digest is 0, on every rank */
    CS_CFG_FAULT_RELABEL,   /* COSTA_SHIM_RELABEL's memory claim for a
                             * new call shape */
    CS_CFG_FAULT_RELABEL_DENSE /* the plan's position matrix of a new
                                * call shape (its factors kept) */
} cs_cfg_fault_t;

/* Bits of cs_config_t.stats_format. */
enum {
    CS_CFG_FORMAT_TXT = 1,
    CS_CFG_FORMAT_CSV = 2,
    CS_CFG_FORMAT_JSON = 4
};

/* Where a value came from (for COSTA_SHIM_DUMP_CONFIG). */
typedef enum {
    CS_CFG_SRC_DEFAULT = 0,
    CS_CFG_SRC_FILE,
    CS_CFG_SRC_ENV
} cs_cfg_source_t;

#define CS_CFG_MAX_ROUTINES 64   /* entries of a COSTA_SHIM_ROUTINES list */
#define CS_CFG_NAME_LEN 24       /* longest routine base name + 1 */
#define CS_CFG_PATH_LEN 1024
#define CS_CFG_MAX_RANK_RANGES 32
#define CS_CFG_MAX_WARNINGS 64
#define CS_CFG_WARNING_LEN 256

/* One inclusive rank range of COSTA_SHIM_LOG_RANKS. */
/* A size variable set to its word (COSTA_SHIM_MAX_MEMORY=auto). */
#define CS_CFG_SIZE_WORD ((int64_t)-2)

typedef struct {
    int first;
    int last;
} cs_cfg_range_t;

typedef struct cs_config {
    int disable;                 /* COSTA_SHIM_DISABLE (bool) */
    /* COSTA_SHIM_ROUTINES: "all" sets routines_all; names are base names in
     * lower case without trailing underscores ("pdgemr2d"); a leading '-'
     * excludes. */
    int routines_all;
    int n_include;
    int n_exclude;
    char include[CS_CFG_MAX_ROUTINES][CS_CFG_NAME_LEN];
    char exclude[CS_CFG_MAX_ROUTINES][CS_CFG_NAME_LEN];
    int64_t min_elems;           /* COSTA_SHIM_MIN_ELEMS */
    cs_cfg_fallback_t fallback;  /* COSTA_SHIM_FALLBACK */
    int threads;                 /* COSTA_SHIM_THREADS, 0 = OpenMP default */
    int overlap;                 /* COSTA_SHIM_OVERLAP (bool) */
    int64_t max_memory;          /* COSTA_SHIM_MAX_MEMORY bytes, -1 = inf,
                                  * CS_CFG_SIZE_WORD = auto */
    int64_t workspace;           /* COSTA_SHIM_WORKSPACE bytes, -1 = inf,
                                  * CS_CFG_SIZE_WORD = auto */
    cs_cfg_shm_t shm;            /* COSTA_SHIM_SHM */
    cs_cfg_gemm_t gemm;          /* COSTA_SHIM_GEMM */
    int64_t shm_min;             /* COSTA_SHIM_SHM_MIN bytes, -1 = inf */
    cs_cfg_relabel_t relabel;    /* COSTA_SHIM_RELABEL */
    char relabel_plan[CS_CFG_PATH_LEN]; /* COSTA_SHIM_RELABEL_PLAN */
    int relabel_cost_rank;       /* COSTA_SHIM_RELABEL_COST_RANK */
    int relabel_cost_node;       /* COSTA_SHIM_RELABEL_COST_NODE */
    int verify;                  /* COSTA_SHIM_VERIFY (bool) */
    int verbose;                 /* COSTA_SHIM_VERBOSE 0..2 */
    int log_level;               /* COSTA_SHIM_LOG_LEVEL, a cs_log_level_t */
    char log_file[CS_CFG_PATH_LEN]; /* "stderr", "stdout" or a template */
    int log_ranks_all;           /* COSTA_SHIM_LOG_RANKS "all" */
    int log_ranks_set;           /* 1 if the variable was given */
    int n_log_ranks;
    cs_cfg_range_t log_ranks[CS_CFG_MAX_RANK_RANGES];
    int banner;                  /* COSTA_SHIM_BANNER (bool) */
    cs_cfg_stats_t stats;        /* COSTA_SHIM_STATS */
    char stats_dir[CS_CFG_PATH_LEN]; /* COSTA_SHIM_STATS_DIR */
    int stats_format;            /* COSTA_SHIM_STATS_FORMAT, CS_CFG_FORMAT_* */
    int dump_config;             /* COSTA_SHIM_DUMP_CONFIG (bool) */
    cs_cfg_fault_t test_fault;   /* COSTA_SHIM_TEST_FAULT */
    int test_fault_rank;         /* COSTA_SHIM_TEST_FAULT_RANK */
    int64_t test_gemm_chunk;     /* COSTA_SHIM_TEST_GEMM_CHUNK bytes */
    char config_file[CS_CFG_PATH_LEN]; /* COSTA_SHIM_CONFIG */

    /* Bookkeeping filled by the parser. */
    int n_warnings;
    char warnings[CS_CFG_MAX_WARNINGS][CS_CFG_WARNING_LEN];
} cs_config_t;

/*
 * Fill *cfg_p with the built-in defaults, then apply the config file (if
 * COSTA_SHIM_CONFIG names one in envp) and then the COSTA_SHIM_* entries of
 * envp (a NULL-terminated "NAME=value" array, as environ).  Never prints:
 * problems are appended to cfg_p->warnings.  Local, thread-compatible (the
 * caller serialises).  Used directly by the unit tests.
 */
void cs_cfg_parse(char *const *envp, cs_config_t *cfg_p);

/*
 * The process-wide configuration, parsed from environ on first use.
 * Thread-safe (pthread_once).  The returned struct is read-only.
 */
const cs_config_t *cs_cfg_get(void);

/*
 * Print the stored warnings of the process-wide configuration once per
 * process, each as one line "costa-shim[<rank>]: warning: ..." through the
 * log sink, but only if rank == 0 (all ranks see the same environment).
 * Local; safe to call many times.
 */
void cs_cfg_emit_warnings(int rank);

/*
 * 1 if routine `name` (base name, lower case, e.g. "pdgemr2d") is taken over
 * by the engine according to COSTA_SHIM_ROUTINES, else 0.  Local.
 */
int cs_cfg_routine_enabled(const cs_config_t *cfg, const char *name);

/* 1 if rank `rank` writes per-call trace lines (COSTA_SHIM_LOG_RANKS). */
int cs_cfg_rank_logs(const cs_config_t *cfg, int rank);

/*
 * Write every variable with its effective value and its source ("default",
 * "file", "env") to file descriptor fd, one line each, in table order.
 */
void cs_cfg_dump(const cs_config_t *cfg, int fd);

/*
 * The option table, for generating docs/env.md: number of rows and, for row
 * i, its name, default string, value syntax and help text.  Returns 0 on
 * success, -1 if i is out of range.
 */
int cs_cfg_table_size(void);
int cs_cfg_table_row(int i, const char **name_p, const char **default_p,
                     const char **syntax_p, const char **help_p);

#endif /* CS_CONFIG_CONFIG_H */
