/*
 * shim/shim_memory_int.h - the shim's memory budget, COSTA_SHIM_MAX_MEMORY
 * (shim_memory.c).
 */
#ifndef CS_SHIM_SHIM_MEMORY_INT_H
#define CS_SHIM_SHIM_MEMORY_INT_H

#include <stdint.h>

#include "engine/engine.h"

/*
 * The memory budget (shim_memory.c).  cap: COSTA_SHIM_MAX_MEMORY in bytes,
 * auto resolved (a quarter of the node's memory over its ranks), -1 for
 * none.  held: what the shim holds (workspace, cached plans, shared send
 * buffer).  Local, thread-safe.
 */
int64_t cs_shim_mem_cap(void);
int64_t cs_shim_mem_held(void);

/* cap < 0 or held + add <= cap: the shim may hold add bytes more now
 * (the plan cache's budget, cs_shim_fits_fn). */
int cs_shim_mem_fits(int64_t add);

/*
 * Admit the call of plan (cached: already in the plan cache) under the
 * cap, making room first (the workspace released when larger than this
 * call needs, cached plans evicted, least recently used first), then
 * reserve its memory (cs_eng_plan_reserve).  Returns 0 when reserved, 1
 * when the call would take the shim above the cap (nothing allocated), 2
 * when reserving failed (*st_p says why; also COSTA_SHIM_TEST_FAULT's
 * `workspace` step).  Local; admission and reservation are one step for
 * all threads.
 */
int cs_shim_mem_reserve(cs_eng_plan_t *plan, int cached,
                        const cs_eng_exec_opts_t *opts, cs_status_t *st_p);

/* keep(ctx, plan) (hand the plan to the plan cache, which asks
 * cs_shim_mem_fits) as one step for all threads; its result.  Local. */
typedef int (*cs_shim_keep_fn)(void *ctx, cs_eng_plan_t *plan);
int cs_shim_mem_keep(cs_shim_keep_fn keep, void *ctx, cs_eng_plan_t *plan);

/*
 * Claim bytes the call is about to allocate itself (p?gemm's buffers)
 * under the cap, after evicting cached plans if needed: 0 claimed (held
 * grows by bytes until cs_shim_mem_unclaim), 1 above the cap (nothing
 * claimed).  Local, thread-safe.
 */
int cs_shim_mem_claim(int64_t bytes);
void cs_shim_mem_unclaim(int64_t bytes);

/*
 * Claim bytes for work the shim may skip (COSTA_SHIM_RELABEL's numbers
 * and position volumes) under the cap, without evicting cached plans
 * for it and without a log line (the caller says what it skipped): 0
 * claimed (held grows by bytes until cs_shim_mem_unclaim), 1 above the
 * cap.  Local, thread-safe.
 */
int cs_shim_mem_claim_spare(int64_t bytes);

/* Record what the shim holds now plus transient bytes (plans about to be
 * freed) for the peak; the peak so far.  Local. */
void cs_shim_mem_note(int64_t transient);
int64_t cs_shim_mem_peak(void);

#endif /* CS_SHIM_SHIM_MEMORY_INT_H */
