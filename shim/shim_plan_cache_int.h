/*
 * shim/shim_plan_cache_int.h - engine plans kept for repeated calls
 * (shim_plan_cache.c).
 */
#ifndef CS_SHIM_SHIM_PLAN_CACHE_INT_H
#define CS_SHIM_SHIM_PLAN_CACHE_INT_H

#include <stdint.h>

#include "engine/engine.h"

/* 1 when the shim may hold `add` bytes more than it holds now under a
 * memory budget (cs_shim_mem_fits). */
typedef int (*cs_shim_fits_fn)(int64_t add);

/*
 * Plan cache (shim_plan_cache.c).  get: the cached plan built from exactly
 * this exchanged table (n ints), rank and extra key, or NULL; the cache
 * keeps owning it.  put: hand a plan over to the cache (returns 0 if it
 * was not taken: the caller still owns it); the plan and the copy of the
 * table must fit the budget `fits` (cs_shim_mem_fits), least recently
 * used plans are evicted to make room; the table's first priv ints are
 * this process's own and left out of its digests, which the processes
 * compare (cs_shim_plan_cache_table).  clear: free all (finalize).
 * Local; each thread has its own cache.
 */
cs_eng_plan_t *cs_shim_plan_cache_get(const int *tab, int n, int me,
                                      const int64_t extra[4]);
int cs_shim_plan_cache_put(const int *tab, int n, int me,
                           const int64_t extra[4], cs_eng_plan_t *plan,
                           int priv, cs_shim_fits_fn fits);
void cs_shim_plan_cache_clear(void);

/* Heap bytes the cached plans and their tables hold.  Local. */
int64_t cs_shim_plan_cache_bytes(void);

/* Free the least recently used cached plan other than keep; 0 when there
 * is none.  Local. */
int cs_shim_plan_cache_evict(const cs_eng_plan_t *keep);

/*
 * The most recently used cached table (n ints, rows of nrow ints) whose
 * row `me` equals row, or NULL; digest_p gets its two digests
 * (cs_shim_digest, computed once when the table was cached: of all but
 * its private ints).  Lets p?gemr2d settle its table without a gather
 * when every rank holds the same cached table (see shim_redist_table.c).
 * The pointer is valid until the next put or clear.  Local.
 */
const int *cs_shim_plan_cache_table(const int *row, int nrow, int n, int me,
                                    uint64_t digest_p[2]);

#endif /* CS_SHIM_SHIM_PLAN_CACHE_INT_H */
