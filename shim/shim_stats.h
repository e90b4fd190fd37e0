/*
 * shim/shim_stats.h - the statistics registry: one row per (routine as
 * called, path, reason) with counters, in a fixed-size table.
 *
 * The counter list is one X-macro so the report writers (text, CSV, JSON)
 * and the per-call trace use the same names.
 */
#ifndef CS_SHIM_SHIM_STATS_H
#define CS_SHIM_SHIM_STATS_H

#include <stdint.h>

#include "shim/shim.h"

/* CS_SHIM_COUNTER(field, csv_name): integer counters of a row. */
#define CS_SHIM_COUNTERS                                                      \
    CS_SHIM_COUNTER(calls, "calls")                                           \
    CS_SHIM_COUNTER(bytes_sent, "bytes_sent")                                 \
    CS_SHIM_COUNTER(bytes_recv, "bytes_recv")                                 \
    CS_SHIM_COUNTER(bytes_self, "bytes_self")                                 \
    CS_SHIM_COUNTER(msgs_sent, "msgs_sent")                                   \
    CS_SHIM_COUNTER(msgs_recv, "msgs_recv")

/* CS_SHIM_TIMER(field, csv_name): floating-point sums of a row. */
#define CS_SHIM_TIMERS                                                        \
    CS_SHIM_TIMER(t_sum, "t_sum_s")                                           \
    CS_SHIM_TIMER(t_min, "t_min_s")                                           \
    CS_SHIM_TIMER(t_max, "t_max_s")                                           \
    CS_SHIM_TIMER(t_sumsq, "t_sumsq")

#define CS_SHIM_STATS_MAX_ROWS 256

typedef struct {
    int32_t routine, spelling, path, reason;
#define CS_SHIM_COUNTER(f, s) int64_t f;
    CS_SHIM_COUNTERS
#undef CS_SHIM_COUNTER
#define CS_SHIM_TIMER(f, s) double f;
    CS_SHIM_TIMERS
#undef CS_SHIM_TIMER
} cs_shim_row_t;

/* Per-process totals. */
typedef struct {
    double t_start;     /* registration time (MPI_Init or first call) */
    double t_shim;      /* seconds inside intercepted routines */
    int64_t calls;
    int64_t fallbacks;  /* fallback + passthrough */
    int partial;        /* 1 when rows were dropped because the table is full */
} cs_shim_totals_t;

/* Copy up to max rows into rows_p; returns the number copied.  Locks. */
int cs_shim_stats_snapshot(cs_shim_row_t *rows_p, int max,
                           cs_shim_totals_t *totals_p);

/* Merge row src into dst (same key). */
void cs_shim_row_merge(cs_shim_row_t *dst, const cs_shim_row_t *src);

/* Set the start time if not yet set (first registration wins). */
void cs_shim_stats_mark_start(void);

#endif /* CS_SHIM_SHIM_STATS_H */
