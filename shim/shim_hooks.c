/*
 * shim/shim_hooks.c - the deliberate hooks the library exports besides
 * the ScaLAPACK spellings and MPI_Init (shim/exports.map): for benchmarks,
 * switching interception off and on, reading what the shim holds and
 * where the engine's time went; for tools, the version string.  Nothing
 * else here.
 */
#include <stdlib.h>

#include "shim/shim.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_stats_int.h"

/* Deliberate hook for benchmarks: switch interception off (0) or on (1)
 * at run time, returning the previous state.  While off every call goes
 * straight to the real routine and nothing is recorded. */
CS_EXPORT int costa_shim_set_enabled(int on);
CS_EXPORT int costa_shim_set_enabled(int on)
{
    return cs_shim_enabled_set(on);
}

/* Deliberate hook for benchmarks: the bytes the shim holds now between
 * calls (engine workspaces, cached plans, the shared send buffer), what
 * COSTA_SHIM_MAX_MEMORY caps.  Thread-safe. */
CS_EXPORT long long costa_shim_memory_held(void);
CS_EXPORT long long costa_shim_memory_held(void)
{
    return (long long)cs_shim_mem_held();
}

/* Deliberate hook for benchmarks: the seconds this process's engine calls
 * have spent so far packing, copying locally, unpacking and waiting for
 * messages (cs_eng_stats_t), into seconds[0..3]; a benchmark takes the
 * difference around its calls.  Returns 0, or -1 (seconds untouched)
 * when out of memory.  Thread-safe. */
CS_EXPORT int costa_shim_engine_phases(double *seconds);
CS_EXPORT int costa_shim_engine_phases(double *seconds)
{
    cs_shim_row_t *rows = malloc(CS_SHIM_STATS_MAX_ROWS * sizeof(*rows));
    cs_shim_totals_t tot;
    if (!rows) {
        return -1;
    }
    int n = cs_shim_stats_snapshot(rows, CS_SHIM_STATS_MAX_ROWS, &tot);
    double s[4] = {0.0, 0.0, 0.0, 0.0};
    for (int i = 0; i < n; i++) {
        s[0] += rows[i].t_pack;
        s[1] += rows[i].t_local;
        s[2] += rows[i].t_unpack;
        s[3] += rows[i].t_xfer;
    }
    free(rows);
    for (int k = 0; k < 4; k++) {
        seconds[k] = s[k];
    }
    return 0;
}

/* Version string, exported so tools can identify the library. */
CS_EXPORT const char *costa_shim_version(void);
CS_EXPORT const char *costa_shim_version(void)
{
    return CS_SHIM_VERSION;
}
