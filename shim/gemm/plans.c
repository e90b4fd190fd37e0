/*
 * shim/gemm/plans.c - the plans of p?gemm's engine path kept per call
 * shape, per thread (gemm_int.h).
 *
 * RATIONALE: an application multiplies the same shapes again and again
 * (CP2K's RI-RPA: thousands of calls of one shape), so a shape is planned
 * once, like the redistributions' plans.  The key is everything a plan is
 * built from on this rank (the arguments every rank passes alike, this
 * rank's leading dimensions and place in the grid, the split, the
 * settings that cut it).  A kept plan's heap stays claimed under
 * COSTA_SHIM_MAX_MEMORY; the oldest of CS_GEMM_PLANS is dropped for a new
 * one.  Per thread: a thread's plans are its own, no lock.
 */
#include <string.h>

#include "shim/gemm/gemm_int.h"
#include "shim/shim_memory_int.h"

#define CS_GEMM_PLANS 8

typedef struct {
    int key[CS_SHIM_GEMM_KEY];
    int nkey;
    cs_eng_mm_t *mm;
    int64_t claimed;
    uint64_t used; /* call counter at the last use */
} cs_gemm_plan_t;

static __thread cs_gemm_plan_t cs_gemm_plans[CS_GEMM_PLANS];
static __thread uint64_t cs_gemm_clock;

cs_eng_mm_t *cs_shim_gemm_plan_take(const int *key, int nkey, int64_t *claimed)
{
    for (int k = 0; k < CS_GEMM_PLANS; k++) {
        cs_gemm_plan_t *e = &cs_gemm_plans[k];
        if (e->mm && e->nkey == nkey &&
            memcmp(e->key, key, (size_t)nkey * sizeof(int)) == 0) {
            cs_eng_mm_t *mm = e->mm;
            *claimed = e->claimed;
            e->mm = NULL;
            return mm;
        }
    }
    return NULL;
}

static void drop(cs_gemm_plan_t *e)
{
    if (e->mm) {
        cs_eng_mm_destroy(e->mm);
        cs_shim_mem_unclaim(e->claimed);
    }
    e->mm = NULL;
}

void cs_shim_gemm_plan_keep(const int *key, int nkey, cs_eng_mm_t *mm,
                            int64_t claimed)
{
    cs_gemm_plan_t *slot = &cs_gemm_plans[0];
    for (int k = 0; k < CS_GEMM_PLANS; k++) {
        cs_gemm_plan_t *e = &cs_gemm_plans[k];
        if (!e->mm) {
            slot = e;
            break;
        }
        if (e->used < slot->used) {
            slot = e;
        }
    }
    drop(slot);
    memcpy(slot->key, key, (size_t)nkey * sizeof(int));
    slot->nkey = nkey;
    slot->mm = mm;
    slot->claimed = claimed;
    slot->used = ++cs_gemm_clock;
}

void cs_shim_gemm_plans_release(void)
{
    for (int k = 0; k < CS_GEMM_PLANS; k++) {
        drop(&cs_gemm_plans[k]);
    }
}
