/*
 * shim/shim_memory.c - the shim's memory budget (COSTA_SHIM_MAX_MEMORY):
 * the effective cap, what the shim holds, and the admission of a call
 * before it allocates.
 *
 * What the shim holds between calls: the engine's workspace, the plans of
 * the plan cache and the shared send buffer; during a call also the
 * buffers it claimed (p?gemm's slabs, cs_shim_mem_claim; relabeling's
 * numbers, cs_shim_mem_claim_spare).  A call adds its plan (when
 * new) and whatever its reservation would allocate
 * (cs_eng_plan_reserve_bytes, computed from the plan, nothing touched).
 * When that would go above the cap, room is made first: the workspace is
 * released if it is larger than this call needs, then cached plans are
 * evicted, least recently used first; if it still does not fit, the call
 * goes to the real routine without allocating (reason memory).  So the
 * persistent memory never exceeds the cap, and a refused call costs no
 * page of memory.
 *
 * auto (the default): a quarter of the node's memory divided by the ranks
 * on the node, as the launcher says (MPI_LOCALNRANKS for MPICH's hydra,
 * OMPI_COMM_WORLD_LOCAL_SIZE for Open MPI, SLURM_NTASKS_PER_NODE; 1 when
 * none is set).  RATIONALE: that is about what a rank's application data
 * may be; ScaLAPACK's own buffers for a call are as large as what the
 * rank sends and receives, and the shim's workspace is no larger, so a
 * quarter keeps the shim well below what the application itself holds,
 * on nodes the application fills to 80-90 %.
 *
 * Thread-safe: under MPI_THREAD_MULTIPLE each thread has its own
 * workspace and plan cache, and their totals are atomic; admitting a call
 * and reserving its memory, and handing a plan to the cache, happen under
 * one lock (cs_mem_lock), so two threads cannot each be admitted against
 * the same room.  The cap is computed once (pthread_once).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_plan_cache_int.h"

#include <mpi.h>

static pthread_mutex_t cs_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t cs_mem_cap_once = PTHREAD_ONCE_INIT;
static int64_t cs_mem_cap_bytes; /* written once, under cs_mem_cap_once */
/* Bytes claimed by calls in progress (cs_shim_mem_claim). */
static _Atomic int64_t cs_mem_claimed;

static void cap_compute(void)
{
    int64_t v = cs_cfg_get()->max_memory;
    if (v == CS_CFG_SIZE_WORD) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        v = pages > 0 && page > 0
                ? (int64_t)pages * (int64_t)page / cs_shim_local_ranks() / 4
                : -1;
    }
    cs_mem_cap_bytes = v;
}

int64_t cs_shim_mem_cap(void)
{
    pthread_once(&cs_mem_cap_once, cap_compute);
    return cs_mem_cap_bytes;
}

/* The most the shim held, transient plans included (for the report). */
static atomic_llong cs_mem_peak;

void cs_shim_mem_note(int64_t transient)
{
    long long now = (long long)(cs_shim_mem_held() + transient);
    long long was = atomic_load(&cs_mem_peak);
    while (now > was &&
           !atomic_compare_exchange_weak(&cs_mem_peak, &was, now)) {
    }
}

int64_t cs_shim_mem_peak(void)
{
    return (int64_t)atomic_load(&cs_mem_peak);
}

int64_t cs_shim_mem_held(void)
{
    return cs_eng_workspace_total() + cs_shim_plan_cache_bytes() +
           cs_eng_shm_size() + atomic_load(&cs_mem_claimed);
}

int cs_shim_mem_fits(int64_t add)
{
    int64_t cap = cs_shim_mem_cap();
    return cap < 0 || cs_shim_mem_held() + add <= cap;
}

/* Whether the call of plan may reserve its memory under the cap, after
 * making room; nothing of the call is allocated.  Under cs_mem_lock. */
static int admit(cs_eng_plan_t *plan, int cached,
                 const cs_eng_exec_opts_t *opts)
{
    int64_t cap = cs_shim_mem_cap();
    if (cap < 0) {
        return 1;
    }
    int64_t ws_need = cs_eng_plan_workspace_bytes(plan);
    int64_t ws = (int64_t)cs_eng_workspace_size();
    int64_t extra = cs_eng_plan_reserve_bytes(plan, opts) +
                    (cached ? 0 : cs_eng_plan_heap_bytes(plan));
    int64_t after = cs_shim_mem_held() + extra;
    if (after <= cap) {
        return 1;
    }
    /* a workspace larger than this call needs: give it back */
    if (ws > ws_need + ws_need / 8) {
        cs_eng_workspace_shrink(0);
        extra = cs_eng_plan_reserve_bytes(plan, opts) +
                (cached ? 0 : cs_eng_plan_heap_bytes(plan));
        after = cs_shim_mem_held() + extra;
    }
    while (after > cap && cs_shim_plan_cache_evict(plan)) {
        after = cs_shim_mem_held() + extra;
    }
    if (after > cap) {
        cs_log_info("memory: the call needs %lld bytes more, the shim holds "
                    "%lld, COSTA_SHIM_MAX_MEMORY is %lld: forwarded",
                    (long long)extra, (long long)cs_shim_mem_held(),
                    (long long)cap);
        return 0;
    }
    return 1;
}

int cs_shim_mem_reserve(cs_eng_plan_t *plan, int cached,
                        const cs_eng_exec_opts_t *opts, cs_status_t *st_p)
{
    if (cs_shim_fault(CS_CFG_FAULT_WORKSPACE)) {
        *st_p = CS_ERR_NOMEM;
        return 2;
    }
    pthread_mutex_lock(&cs_mem_lock);
    int res = 1;
    if (admit(plan, cached, opts)) {
        *st_p = cs_eng_plan_reserve(plan, opts);
        res = *st_p == CS_OK ? 0 : 2;
    }
    pthread_mutex_unlock(&cs_mem_lock);
    return res;
}

int cs_shim_mem_keep(cs_shim_keep_fn keep, void *ctx, cs_eng_plan_t *plan)
{
    pthread_mutex_lock(&cs_mem_lock);
    int kept = keep(ctx, plan);
    pthread_mutex_unlock(&cs_mem_lock);
    return kept;
}

int cs_shim_mem_claim(int64_t bytes)
{
    pthread_mutex_lock(&cs_mem_lock);
    int64_t cap = cs_shim_mem_cap();
    int ok = cap < 0 || cs_shim_mem_held() + bytes <= cap;
    while (!ok && cs_shim_plan_cache_evict(NULL)) {
        ok = cs_shim_mem_held() + bytes <= cap;
    }
    if (ok) {
        atomic_fetch_add(&cs_mem_claimed, bytes);
    } else {
        cs_log_info("memory: the call needs %lld bytes more, the shim holds "
                    "%lld, COSTA_SHIM_MAX_MEMORY is %lld: forwarded",
                    (long long)bytes, (long long)cs_shim_mem_held(),
                    (long long)cap);
    }
    pthread_mutex_unlock(&cs_mem_lock);
    return ok ? 0 : 1;
}

int cs_shim_mem_claim_spare(int64_t bytes)
{
    pthread_mutex_lock(&cs_mem_lock);
    int64_t cap = cs_shim_mem_cap();
    int ok = cap < 0 || cs_shim_mem_held() + bytes <= cap;
    if (ok) {
        atomic_fetch_add(&cs_mem_claimed, bytes);
    }
    pthread_mutex_unlock(&cs_mem_lock);
    if (ok) {
        cs_shim_mem_note(0);
    }
    return ok ? 0 : 1;
}

void cs_shim_mem_unclaim(int64_t bytes)
{
    atomic_fetch_sub(&cs_mem_claimed, bytes);
}
