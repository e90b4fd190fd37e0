/*
 * shim/shim_hooks.c - the deliberate hooks the library exports besides
 * the ScaLAPACK spellings and MPI_Init (shim/exports.map): for benchmarks,
 * switching interception off and on and reading what the shim holds; for
 * tools, the version string.  Nothing else here.
 */
#include "shim/shim.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_process_int.h"

/* Deliberate hook for benchmarks: switch interception off (0) or on (1)
 * at run time, returning the previous state.  While off every call goes
 * straight to the real routine and nothing is recorded. */
CS_EXPORT int costa_shim_set_enabled(int on);
CS_EXPORT int costa_shim_set_enabled(int on)
{
    int old = cs_shim_enabled;
    cs_shim_enabled = on != 0;
    return old;
}

/* Deliberate hook for benchmarks: the bytes the shim holds now between
 * calls (engine workspaces, cached plans, the shared send buffer), what
 * COSTA_SHIM_MAX_MEMORY caps.  Thread-safe. */
CS_EXPORT long long costa_shim_memory_held(void);
CS_EXPORT long long costa_shim_memory_held(void)
{
    return (long long)cs_shim_mem_held();
}

/* Version string, exported so tools can identify the library. */
CS_EXPORT const char *costa_shim_version(void);
CS_EXPORT const char *costa_shim_version(void)
{
    return CS_SHIM_VERSION;
}
