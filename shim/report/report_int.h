/*
 * shim/report/report_int.h - what the files of the end-of-run report share
 * (docs/report-format.md):
 *
 *   gather.c   COSTA_SHIM_STATS at MPI_Finalize or exit: this rank's
 *              statistics, gathered to rank 0 over MPI (collective) or
 *              kept (local)
 *   merge.c    rows of all ranks merged into the report's tables
 *   meta.c     what the header says about the run (command, program,
 *              job, MPI, times), made printable
 *   text.c     the text report (mpiP-style '@---' sections)
 *   cols.c     the row values the CSV and JSON files share
 *   csv.c      the CSV file
 *   json.c     the JSON file
 *   files.c    file names, <name>.partial and rename, stderr
 *
 * A room of shim/ (house-style 2.1): only the shim includes this header,
 * and only shim_init.c from outside the room (cs_shim_report_write).
 * Only gather.c calls MPI.  The writers take a finished cs_shim_rep_t
 * and print it; none of them keeps state.  All of it runs once per process,
 * on one thread, inside MPI_Finalize (or atexit() in an inert process).
 */
#ifndef CS_SHIM_REPORT_REPORT_INT_H
#define CS_SHIM_REPORT_REPORT_INT_H

#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "shim/shim_stats_int.h"

#define CS_SHIM_REP_MAX_ROWS CS_SHIM_STATS_MAX_ROWS
#define CS_SHIM_REP_CMD_LEN 4096
#define CS_SHIM_REP_NAME_LEN 256
#define CS_SHIM_REP_PATH_LEN                                                  \
    (CS_CFG_PATH_LEN + 2 * CS_SHIM_REP_NAME_LEN + 64)

/* One rank's totals as they travel to rank 0 (as bytes). */
typedef struct {
    double app_time;
    double t_shim;
    double t_wait;      /* of t_shim: waiting for the other ranks */
    int64_t calls;
    int64_t fallbacks;
    int32_t nrows;
    int32_t partial;
    int32_t node_leader;
    int32_t pad;
    int64_t verify_calls;
    double verify_maxdiff;
    int64_t mem_peak;   /* the most the shim held (cs_shim_mem_peak) */
    int64_t mem_cap;    /* this rank's COSTA_SHIM_MAX_MEMORY, -1 none */
} cs_shim_rep_rank_t;

/* A row of "Per routine and path": reasons folded in, plus the spread of
 * its per-rank time over the ranks that have it (for the COV). */
typedef struct {
    cs_shim_row_t row;
    double s1;          /* sum over ranks of the rank's t_sum */
    double s2;          /* sum of squares */
    int n;              /* ranks with the row */
    int last_rank;      /* rank whose t_sum is being summed in cur */
    double cur;
} cs_shim_rep_trow_t;

/* The report as the writers see it. */
typedef struct {
    const cs_config_t *cfg;
    int collective;     /* 1: rank 0 writing for all ranks */
    int nprocs;         /* size of MPI_COMM_WORLD */
    int nranks;         /* entries of ranks[] (nprocs, or 1 when local) */
    int rank0;          /* rank number of ranks[0] */
    int nnodes;
    int threads;
    int partial;
    char command[CS_SHIM_REP_CMD_LEN];
    char exe[CS_SHIM_REP_NAME_LEN];
    char jobid[CS_SHIM_REP_NAME_LEN];
    char mpi[CS_SHIM_REP_NAME_LEN];
    char start[40];
    char stop[40];
    const cs_shim_rep_rank_t *ranks;
    const int *first;   /* rows of entry r: all[first[r] .. first[r + 1]) */
    const cs_shim_row_t *all;
    int nmerged;
    cs_shim_row_t merged[CS_SHIM_REP_MAX_ROWS];
    int ntext;
    cs_shim_rep_trow_t text[CS_SHIM_REP_MAX_ROWS];
    int nreason;
    cs_shim_row_t reasons[CS_SHIM_REP_MAX_ROWS];
    cs_shim_shape_tab_t *shapes;   /* merged, or this rank's (local) */
    cs_shim_caller_tab_t *callers; /* merged; NULL in local mode */
    int64_t verify_calls;          /* summed over ranks */
    double verify_maxdiff;
    int64_t mem_peak;              /* the largest over ranks */
} cs_shim_rep_t;

/* Write the end-of-run report (COSTA_SHIM_STATS).  collective = 1: every
 * rank of MPI_COMM_WORLD calls it (MPI_Finalize); 0: per-rank files. */
void cs_shim_report_write(int collective);

/* ------------------------------------------------------------ merge */

/* qsort order of rows: routine, spelling, path, reason. */
int cs_shim_rep_row_cmp(const void *a, const void *b);

/* Build rep's merged tables from all gathered rows (all, first, nranks):
 * merged (full key), text (routine as called and path, with the per-rank
 * spread of its time) and reasons (routine as called and reason,
 * fallback-type rows only), each sorted; a full table sets partial. */
void cs_shim_rep_merge(cs_shim_rep_t *rep);

/* Fold the shape table's rows of unknown blocks into their shapes
 * (cs_shim_shape_tab_fold), sort the shape and caller tables (longest
 * time first) and set partial when either dropped calls. */
void cs_shim_rep_sort_tables(cs_shim_rep_t *rep);

/* ------------------------------------------------------------ meta */

/* Length of the valid UTF-8 sequence at s, 0 if invalid (RFC 3629). */
int cs_shim_rep_utf8_len(const unsigned char *s);

/* Make s printable in place: control characters and bytes that are not
 * UTF-8 become '?', so every format can carry it as it is. */
void cs_shim_rep_printable(char *s);

/* The names every report file carries: command line, program and job id
 * (file-name safe) into rep. */
void cs_shim_rep_ident(cs_shim_rep_t *rep);

/* All metadata of rep on the writing rank: start (now minus the largest
 * application time), stop (now), cs_shim_rep_ident(), MPI library and
 * thread level, threads per rank. */
void cs_shim_rep_meta(cs_shim_rep_t *rep);

/* ------------------------------------------------------------ writers */

/* The text report's sections for stderr and the .txt file. */
void cs_shim_rep_text_summary(FILE *f, const cs_shim_rep_t *rep);

/* COSTA_SHIM_STATS=full: every rank's rows (the .txt file only). */
void cs_shim_rep_text_per_rank(FILE *f, const cs_shim_rep_t *rep);

/*
 * The counter and timer columns of a row in output order (docs/report-format.md section 3:
 * calls, the timers, the other counters): r == NULL prints the CSV
 * header's names (",calls,..."); json == 0 the CSV values (",12,...");
 * json == 1 JSON members (", \"calls\": 12, ...", null for inf and nan).
 */
void cs_shim_rep_cols_print(FILE *f, const cs_shim_row_t *r, int json);

/* A shape row's median call time in seconds, read from its histogram
 * (cs_shim_hist_quantile: within 9 %). */
double cs_shim_rep_shape_median(const cs_shim_shape_t *s);

/* A shape row's histogram, its non-empty bins only (docs/report-format.md
 * section 8): json == 0: "bin:count" pairs separated by blanks (CSV);
 * json == 1: an array of [bin, count] arrays. */
void cs_shim_rep_hist_print(FILE *f, const cs_shim_shape_t *s, int json);

/* A shape row's path and reason ("mixed" and "" when its calls took
 * several). */
const char *cs_shim_rep_shape_path(const cs_shim_shape_t *s);
const char *cs_shim_rep_shape_reason(const cs_shim_shape_t *s);

/* The CSV and JSON files; arg is the cs_shim_rep_t (writer signature of
 * cs_shim_rep_commit). */
void cs_shim_rep_write_csv(FILE *f, const void *arg);
void cs_shim_rep_write_json(FILE *f, const void *arg);

/* ------------------------------------------------------------ files */

/* Rank 0, collective mode: the text to stderr and the files that
 * COSTA_SHIM_STATS_FORMAT asks for, under the first free index k of
 * costa_shim.<exe>.<jobid>.<n>p.<k>.<ext>.  One warning per failure. */
void cs_shim_rep_emit_all(const cs_shim_rep_t *rep);

/* Local mode: this rank's CSV file, costa_shim.<exe>.<jobid>.r<rank>.csv
 * (p<pid> without a rank); fills rep's names (cs_shim_rep_ident). */
void cs_shim_rep_emit_local(cs_shim_rep_t *rep, int rank);

#endif /* CS_SHIM_REPORT_REPORT_INT_H */
