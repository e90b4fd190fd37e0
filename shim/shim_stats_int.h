/*
 * shim/shim_stats_int.h - the statistics registry: one row per (routine as
 * called, path, reason) with counters, one row per call shape and one per
 * (caller, routine), each in a fixed-size table.
 *
 * The counter list is one X-macro so the report writers (text, CSV, JSON)
 * and the per-call trace use the same names.
 */
#ifndef CS_SHIM_SHIM_STATS_INT_H
#define CS_SHIM_SHIM_STATS_INT_H

#include <stdint.h>

#include "shim/shim.h"
#include "shim/shim_call_int.h"
#include "shim/shim_hist_int.h"
#include "shim/shim_trace_int.h"

/* CS_SHIM_COUNTER(field, csv_name): integer counters of a row. */
#define CS_SHIM_COUNTERS                                                      \
    CS_SHIM_COUNTER(calls, "calls")                                           \
    CS_SHIM_COUNTER(bytes_sent, "bytes_sent")                                 \
    CS_SHIM_COUNTER(bytes_recv, "bytes_recv")                                 \
    CS_SHIM_COUNTER(bytes_self, "bytes_self")                                 \
    CS_SHIM_COUNTER(bytes_node, "bytes_node")                                 \
    CS_SHIM_COUNTER(bytes_net, "bytes_net")                                   \
    CS_SHIM_COUNTER(msgs_sent, "msgs_sent")                                   \
    CS_SHIM_COUNTER(msgs_recv, "msgs_recv")                                   \
    CS_SHIM_COUNTER(flops, "flops")                                           \
    CS_SHIM_COUNTER(bytes_pblas, "bytes_pblas")

/* CS_SHIM_TIMER(field, csv_name): floating-point sums of a row.  t_wait
 * is the part of t_sum spent waiting for the last rank of each call to
 * arrive (cs_shim_record_t.t_wait): t_sum - t_wait is the redistribution
 * itself.  t_pack .. t_xfer: the engine's phases (cs_eng_stats_t: packing,
 * local copies, unpacking, waiting for messages), engine calls only. */
#define CS_SHIM_TIMERS                                                        \
    CS_SHIM_TIMER(t_sum, "t_sum_s")                                           \
    CS_SHIM_TIMER(t_min, "t_min_s")                                           \
    CS_SHIM_TIMER(t_max, "t_max_s")                                           \
    CS_SHIM_TIMER(t_sumsq, "t_sumsq")                                         \
    CS_SHIM_TIMER(t_wait, "t_wait_s")                                         \
    CS_SHIM_TIMER(t_pack, "t_pack_s")                                         \
    CS_SHIM_TIMER(t_local, "t_local_s")                                       \
    CS_SHIM_TIMER(t_unpack, "t_unpack_s")                                     \
    CS_SHIM_TIMER(t_xfer, "t_xfer_s")                                         \
    CS_SHIM_TIMER(t_mm_in, "t_mm_in_s")                                       \
    CS_SHIM_TIMER(t_mul, "t_mul_s")                                           \
    CS_SHIM_TIMER(t_reduce, "t_reduce_s")                                     \
    CS_SHIM_TIMER(t_mm_out, "t_mm_out_s")

#define CS_SHIM_STATS_MAX_ROWS 256

/* Capacity of the per-rank shape and caller tables, and of the tables
 * merged over all ranks for the report. */
#define CS_SHIM_STATS_MAX_SHAPES 512
#define CS_SHIM_STATS_MAX_CALLERS 128

#define CS_SHIM_GRID_LEN 32   /* "2x2R", as cs_shim_trace_t holds it */
#define CS_SHIM_CALLER_LEN 96 /* "pdsyev_+0x1a2"; longer ones are cut */

typedef struct {
    int32_t routine, spelling, path, reason;
#define CS_SHIM_COUNTER(f, s) int64_t f;
    CS_SHIM_COUNTERS
#undef CS_SHIM_COUNTER
#define CS_SHIM_TIMER(f, s) double f;
    CS_SHIM_TIMERS
#undef CS_SHIM_TIMER
} cs_shim_row_t;

/*
 * One call shape: routine as called, m, n, A's and B's block sizes and
 * grid strings.  The counters live in `row` (its path and reason are those
 * of the first call; `mixed` says later calls differed).  Block sizes are
 * -1 where the descriptor was not read (m or n is 0, or the process is not
 * in that matrix's grid, so its descriptor may be a placeholder).  Tables
 * are kept and merged by the exact key, -1 included; only the finished
 * table folds rows of unknown blocks into their shape
 * (cs_shim_shape_tab_fold).  Plain bytes: the tables travel between ranks
 * as they are.
 */
typedef struct {
    cs_shim_row_t row;
    uint32_t id;            /* FNV-1a of the key, set by the snapshot */
    int32_t mixed;
    int32_t m, n;
    int32_t mb_a, nb_a, mb_b, nb_b;
    char grid_a[CS_SHIM_GRID_LEN]; /* "-" when the engine did not look */
    char grid_b[CS_SHIM_GRID_LEN];
    /* COSTA_SHIM_RELABEL=report: whole-call crossing bytes with the
     * application's mapping and with the optimal relabeling, summed over
     * the calls that computed them; -1 when none did */
    int64_t relabel_cross;
    int64_t relabel_best;
    /* ... bytes crossing nodes with the application's mapping, the plain
     * and the node-aware relabeling, summed alike; -1 when none did */
    int64_t relabel_net;
    int64_t relabel_net_plain;
    int64_t relabel_net_node;
    /* the calls' times, for the median (summed over ranks when merged) */
    cs_shim_hist_t hist;
    /* the slowest call (its time is row.t_max): its number among its
     * rank's calls of the shape, from 1, and that rank in
     * MPI_COMM_WORLD; of calls equally slow the lowest rank's first */
    int64_t max_call;
    int32_t max_rank;
    int32_t pad;
} cs_shim_shape_t;

typedef struct {
    int32_t n;
    int32_t pad;
    int64_t dropped;        /* calls not in the table because it was full */
    cs_shim_shape_t e[CS_SHIM_STATS_MAX_SHAPES];
} cs_shim_shape_tab_t;

/* One (call site, routine as called) pair. */
typedef struct {
    char caller[CS_SHIM_CALLER_LEN]; /* cs_shim_caller_str(), by snapshot */
    uint64_t addr;          /* return address; this process only */
    int32_t routine, spelling;
    int64_t calls;
    double t_sum;
} cs_shim_caller_t;

typedef struct {
    int32_t n;
    int32_t pad;
    int64_t dropped;        /* calls not in the table because it was full */
    cs_shim_caller_t e[CS_SHIM_STATS_MAX_CALLERS];
} cs_shim_caller_tab_t;

/* Per-process totals. */
typedef struct {
    double t_start;     /* registration time (MPI_Init or first call) */
    double t_shim;      /* seconds inside intercepted routines */
    double t_wait;      /* of which waiting for other ranks to arrive */
    int64_t calls;
    int64_t fallbacks;  /* fallback + passthrough */
    int partial;        /* 1 when a table was full (rows or calls dropped) */
    int64_t verify_calls;   /* COSTA_SHIM_VERIFY: engine calls checked */
    double verify_maxdiff;  /* largest difference found (0: all equal) */
} cs_shim_totals_t;

/* Add one call to the statistics registry.  Thread-safe. */
void cs_shim_stats_record(const cs_shim_record_t *rec);

/*
 * Record one call made while MPI runs (not nested): its routine row, its
 * shape, its caller and, when tr->verified, its verification.  Entries that
 * do not fit in a full table are counted as dropped and set the partial
 * flag.  Reads g's descriptors only where ScaLAPACK does.  Thread-safe.
 */
void cs_shim_stats_record_call(const cs_shim_record_t *rec,
                               const cs_shim_call_t *g,
                               const cs_shim_trace_t *tr);

/* Copy up to max rows into rows_p; returns the number copied.  Locks. */
int cs_shim_stats_snapshot(cs_shim_row_t *rows_p, int max,
                           cs_shim_totals_t *totals_p);

/* Copy the shape table into tab_p, ids set.  Locks.  Local. */
void cs_shim_stats_shapes(cs_shim_shape_tab_t *tab_p);

/* Copy the caller table into tab_p with the addresses turned into
 * strings (dladdr) and entries of equal strings merged.  Locks.  Local. */
void cs_shim_stats_callers(cs_shim_caller_tab_t *tab_p);

/*
 * Merge shape table src into dst by exact key (a block size of -1 is a
 * value like any other); entries that do not fit go to dst->dropped.  Ids
 * are recomputed.  Relabel bytes are whole-call numbers every rank of a
 * call sees alike, so the larger numbers are kept rather than summed;
 * histograms add up; the slowest call is the slower of the two.
 * Associative and commutative in everything the report prints (the time
 * sums are floating point), so a reduction with it gives the same table
 * for every number of ranks and every reduction tree.  Local.
 */
void cs_shim_shape_tab_merge(cs_shim_shape_tab_t *dst,
                             const cs_shim_shape_tab_t *src);

/*
 * Finish a merged (or one rank's) table: sort it by key, then fold every
 * row with an unknown block size (a process outside that operand's grid)
 * into the one fully known row of the same routine as called, m, n, grids
 * and known block sizes.  A row that matches no such row, or several
 * (ambiguous: which calls were which is not known), stays apart.  The
 * result depends only on the set of rows, not on their order.  Ids are
 * recomputed.  Local.
 */
void cs_shim_shape_tab_fold(cs_shim_shape_tab_t *t);

/* Merge caller table src into dst by (caller string, routine, spelling);
 * entries that do not fit go to dst->dropped.  Local. */
void cs_shim_caller_tab_merge(cs_shim_caller_tab_t *dst,
                              const cs_shim_caller_tab_t *src);

/* Merge row src into dst (same key). */
void cs_shim_row_merge(cs_shim_row_t *dst, const cs_shim_row_t *src);

/* Set the start time if not yet set (first registration wins). */
void cs_shim_stats_mark_start(void);

#endif /* CS_SHIM_SHIM_STATS_INT_H */
