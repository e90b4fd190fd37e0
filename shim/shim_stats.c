/*
 * shim/shim_stats.c - the statistics registry (one of the project's named
 * registries).  Fixed size: a run with more distinct (routine, path,
 * reason) keys than rows keeps counting in its totals and marks the table
 * partial instead of growing.
 */
#include <pthread.h>
#include <string.h>

#include "shim/shim_stats.h"

static pthread_mutex_t cs_shim_stats_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_shim_row_t cs_shim_stats_rows[CS_SHIM_STATS_MAX_ROWS];
static int cs_shim_stats_nrows;
static cs_shim_totals_t cs_shim_stats_totals;

void cs_shim_stats_mark_start(void)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    if (cs_shim_stats_totals.t_start == 0.0) {
        cs_shim_stats_totals.t_start = cs_shim_now();
    }
    pthread_mutex_unlock(&cs_shim_stats_lock);
}

void cs_shim_row_merge(cs_shim_row_t *dst, const cs_shim_row_t *src)
{
    if (dst->calls == 0 || src->t_min < dst->t_min) {
        dst->t_min = src->t_min;
    }
    if (src->t_max > dst->t_max) {
        dst->t_max = src->t_max;
    }
    dst->t_sum += src->t_sum;
    dst->t_sumsq += src->t_sumsq;
#define CS_SHIM_COUNTER(f, s) dst->f += src->f;
    CS_SHIM_COUNTERS
#undef CS_SHIM_COUNTER
}

void cs_shim_stats_record(const cs_shim_record_t *rec)
{
    cs_shim_row_t one = {rec->routine, rec->spelling, rec->path, rec->reason,
                         1, rec->vol.bytes_sent, rec->vol.bytes_recv,
                         rec->vol.bytes_self, rec->vol.msgs_sent,
                         rec->vol.msgs_recv, rec->t, rec->t, rec->t,
                         rec->t * rec->t};
    pthread_mutex_lock(&cs_shim_stats_lock);
    cs_shim_totals_t *tot = &cs_shim_stats_totals;
    if (tot->t_start == 0.0) {
        tot->t_start = cs_shim_now() - rec->t;
    }
    if (rec->path != CS_SHIM_PATH_NESTED) {
        tot->t_shim += rec->t;
        tot->calls++;
        tot->fallbacks += rec->path == CS_SHIM_PATH_FALLBACK ||
                          rec->path == CS_SHIM_PATH_PASSTHROUGH;
    }
    int i = 0;
    while (i < cs_shim_stats_nrows) {
        const cs_shim_row_t *r = &cs_shim_stats_rows[i];
        if (r->routine == one.routine && r->spelling == one.spelling &&
            r->path == one.path && r->reason == one.reason) {
            break;
        }
        i++;
    }
    if (i == cs_shim_stats_nrows) {
        if (i == CS_SHIM_STATS_MAX_ROWS) {
            tot->partial = 1;
            pthread_mutex_unlock(&cs_shim_stats_lock);
            return;
        }
        memset(&cs_shim_stats_rows[i], 0, sizeof(cs_shim_stats_rows[i]));
        cs_shim_stats_rows[i].routine = one.routine;
        cs_shim_stats_rows[i].spelling = one.spelling;
        cs_shim_stats_rows[i].path = one.path;
        cs_shim_stats_rows[i].reason = one.reason;
        cs_shim_stats_nrows++;
    }
    cs_shim_row_merge(&cs_shim_stats_rows[i], &one);
    pthread_mutex_unlock(&cs_shim_stats_lock);
}

int cs_shim_stats_snapshot(cs_shim_row_t *rows_p, int max,
                           cs_shim_totals_t *totals_p)
{
    pthread_mutex_lock(&cs_shim_stats_lock);
    int n = cs_shim_stats_nrows < max ? cs_shim_stats_nrows : max;
    memcpy(rows_p, cs_shim_stats_rows, (size_t)n * sizeof(*rows_p));
    *totals_p = cs_shim_stats_totals;
    pthread_mutex_unlock(&cs_shim_stats_lock);
    return n;
}
