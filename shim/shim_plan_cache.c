/*
 * shim/shim_plan_cache.c - reuse of engine plans for repeated calls (one
 * of the project's named caches).
 *
 * RATIONALE: applications (ScaLAPACK's own eigensolvers too) repeat the
 * same redistribution many times; building the overlay and the package
 * lists again costs as much as moving a small matrix.  A plan is a pure
 * function of the table every rank exchanged (all ranks' descriptors,
 * offsets and grid coordinates), of this rank's position, of its leading
 * dimensions and of the trapezoid: when all of these are equal, the old
 * plan is the new one.  The exchange itself still happens on every call,
 * so all ranks keep taking the same path; only the construction is saved.
 * The plan refers to ranks of the call's communicator, never to context
 * handles or MPI_Comm values, so recycled BLACS handles cannot make it
 * stale.  Bounded: CS_SHIM_PLAN_CACHE entries, least recently used out.
 * Not locked: calls come from one thread at a time (docs/design.md).
 */
#include <stdlib.h>
#include <string.h>

#include "shim/shim_call.h"
#include "shim/shim_relabel.h"

enum { CS_SHIM_PLAN_CACHE = 16, CS_SHIM_PLAN_CACHE_MAX_INTS = 1 << 20 };

typedef struct {
    int *tab;           /* copy of the exchanged table, n ints */
    uint64_t hash;      /* of tab, for cs_shim_plan_cache_table */
    int n;
    int me;
    int64_t extra[4];   /* leading dimensions and trapezoid */
    cs_eng_plan_t *plan;
    uint64_t used;      /* last use, for eviction */
} cs_shim_plan_entry_t;

static cs_shim_plan_entry_t cs_shim_plan_cache[CS_SHIM_PLAN_CACHE];
static uint64_t cs_shim_plan_clock;

static int matches(const cs_shim_plan_entry_t *e, const int *tab, int n,
                   int me, const int64_t extra[4])
{
    return e->plan && e->n == n && e->me == me &&
           !memcmp(e->extra, extra, sizeof(e->extra)) &&
           !memcmp(e->tab, tab, (size_t)n * sizeof(int));
}

cs_eng_plan_t *cs_shim_plan_cache_get(const int *tab, int n, int me,
                                      const int64_t extra[4])
{
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        cs_shim_plan_entry_t *e = &cs_shim_plan_cache[i];
        if (matches(e, tab, n, me, extra)) {
            e->used = ++cs_shim_plan_clock;
            return e->plan;
        }
    }
    return NULL;
}

static void entry_free(cs_shim_plan_entry_t *e)
{
    cs_eng_plan_destroy(e->plan);
    free(e->tab);
    memset(e, 0, sizeof(*e));
}

int cs_shim_plan_cache_put(const int *tab, int n, int me,
                           const int64_t extra[4], cs_eng_plan_t *plan)
{
    if (n > CS_SHIM_PLAN_CACHE_MAX_INTS) {
        return 0;
    }
    int *copy = malloc((size_t)n * sizeof(int));
    if (!copy) {
        return 0;
    }
    memcpy(copy, tab, (size_t)n * sizeof(int));
    cs_shim_plan_entry_t *victim = &cs_shim_plan_cache[0];
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        cs_shim_plan_entry_t *e = &cs_shim_plan_cache[i];
        if (!e->plan) {
            victim = e;
            break;
        }
        if (e->used < victim->used) {
            victim = e;
        }
    }
    entry_free(victim);
    victim->tab = copy;
    victim->hash = cs_shim_relabel_hash(0, copy, n);
    victim->n = n;
    victim->me = me;
    memcpy(victim->extra, extra, sizeof(victim->extra));
    victim->plan = plan;
    victim->used = ++cs_shim_plan_clock;
    return 1;
}

int64_t cs_shim_plan_cache_bytes(void)
{
    int64_t b = 0;
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        const cs_shim_plan_entry_t *e = &cs_shim_plan_cache[i];
        if (e->plan) {
            b += cs_eng_plan_heap_bytes(e->plan) +
                 (int64_t)e->n * (int64_t)sizeof(int);
        }
    }
    return b;
}

int cs_shim_plan_cache_evict(const cs_eng_plan_t *keep)
{
    cs_shim_plan_entry_t *victim = NULL;
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        cs_shim_plan_entry_t *e = &cs_shim_plan_cache[i];
        if (e->plan && e->plan != keep &&
            (!victim || e->used < victim->used)) {
            victim = e;
        }
    }
    if (!victim) {
        return 0;
    }
    entry_free(victim);
    return 1;
}

void cs_shim_plan_cache_clear(void)
{
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        entry_free(&cs_shim_plan_cache[i]);
    }
}

const int *cs_shim_plan_cache_table(const int *row, int nrow, int n, int me,
                                    uint64_t *hash_p)
{
    const cs_shim_plan_entry_t *best = NULL;
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        const cs_shim_plan_entry_t *e = &cs_shim_plan_cache[i];
        if (e->plan && e->n == n && e->me == me &&
            ((int64_t)me + 1) * nrow <= n &&
            !memcmp(e->tab + (int64_t)me * nrow, row,
                    (size_t)nrow * sizeof(int)) &&
            (!best || e->used > best->used)) {
            best = e;
        }
    }
    if (!best) {
        return NULL;
    }
    *hash_p = best->hash;
    return best->tab;
}
