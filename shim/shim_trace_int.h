/*
 * shim/shim_trace_int.h - the per-call line of COSTA_SHIM_VERBOSE
 * (docs/report-format.md section 6): arguments first, in ScaLAPACK order, then
 * key:value results, composed in full and written with one write().
 */
#ifndef CS_SHIM_SHIM_TRACE_INT_H
#define CS_SHIM_SHIM_TRACE_INT_H

#include "config/config.h"
#include "shim/shim.h"
#include "shim/shim_call_int.h"

/* What the trace needs beyond the statistics record. */
typedef struct cs_shim_trace {
    const cs_shim_call_t *args;
    char grid_a[32];   /* "2x2R"; empty when the engine did not look */
    char grid_b[32];
    /* p?gemr2d, p?trmr2d: how the call's table was agreed, "cached"
     * (every rank held it: one reduction) or "gathered"; NULL where no
     * table was exchanged */
    const char *table;
    int verify_ready;  /* COSTA_SHIM_VERIFY: this rank can verify (its
                        * target saved, or nothing of it here) */
    int verify_go;     /* ... and every rank of the call agreed to */
    int verified;      /* this rank compared its target with the real
                        * routine's */
    double maxdiff;    /* largest difference from the real routine */
    /* p?gemm: the decision and, on the engine path, the split, the words
     * moved against PBLAS's and the phases ("gemm:... "); empty
     * otherwise */
    char gemm[256];
    /* called by the front once the call is over (its time known, the real
     * routine run if it was the path); NULL: nothing to do */
    void (*done)(void *ctx, const cs_shim_record_t *rec);
    void *done_ctx;
} cs_shim_trace_t;

/* Write the line for one call if COSTA_SHIM_VERBOSE >= 1 and this
 * rank is selected by COSTA_SHIM_LOG_RANKS.  Local. */
void cs_shim_trace_call(const cs_config_t *cfg, const cs_shim_record_t *rec,
                        const cs_shim_trace_t *tr);

/* "object+0xoff" or "symbol+0xoff" for a code address (dladdr). */
void cs_shim_caller_str(const void *addr, char *buf, size_t len);

#endif /* CS_SHIM_SHIM_TRACE_INT_H */
