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
 * One cache per thread (threads calling at once under MPI_THREAD_MULTIPLE
 * each keep their own; nothing is shared, nothing locked), freed when the
 * thread ends; what all of them hold is counted atomically for the memory
 * cap.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim_digest_int.h"
#include "shim/shim_plan_cache_int.h"

enum { CS_SHIM_PLAN_CACHE = 16, CS_SHIM_PLAN_CACHE_MAX_INTS = 1 << 20 };

typedef struct {
    int *tab;           /* copy of the exchanged table, n ints */
    uint64_t digest[2]; /* of tab's shared part (cs_shim_digest) */
    int n;
    int me;
    int64_t extra[4];   /* leading dimensions and trapezoid */
    cs_eng_plan_t *plan;
    uint64_t used;      /* last use, for eviction */
    int64_t bytes;      /* counted in cs_shim_plan_bytes */
} cs_shim_plan_entry_t;

typedef struct {
    cs_shim_plan_entry_t e[CS_SHIM_PLAN_CACHE];
    uint64_t clock;
} cs_shim_plan_cache_t;

static pthread_key_t cs_shim_plan_key;
static pthread_once_t cs_shim_plan_once = PTHREAD_ONCE_INIT;
static atomic_llong cs_shim_plan_bytes; /* every thread's cache */
static void entry_free(cs_shim_plan_entry_t *e);

static void cache_destroy(void *p)
{
    cs_shim_plan_cache_t *c = p;
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        entry_free(&c->e[i]);
    }
    free(c);
}

static void cache_key(void)
{
    (void)pthread_key_create(&cs_shim_plan_key, cache_destroy);
}

/* This thread's cache (created on first use); NULL without memory. */
static cs_shim_plan_cache_t *cache_mine(void)
{
    pthread_once(&cs_shim_plan_once, cache_key);
    cs_shim_plan_cache_t *c = pthread_getspecific(cs_shim_plan_key);
    if (!c) {
        c = calloc(1, sizeof(*c));
        if (c && pthread_setspecific(cs_shim_plan_key, c) != 0) {
            free(c);
            c = NULL;
        }
    }
    return c;
}

/* Bytes an entry holds. */
static int64_t entry_bytes(const cs_shim_plan_entry_t *e)
{
    return e->plan ? cs_eng_plan_heap_bytes(e->plan) +
                         (int64_t)e->n * (int64_t)sizeof(int)
                   : 0;
}

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
    cs_shim_plan_cache_t *c = cache_mine();
    for (int i = 0; c && i < CS_SHIM_PLAN_CACHE; i++) {
        cs_shim_plan_entry_t *e = &c->e[i];
        if (matches(e, tab, n, me, extra)) {
            e->used = ++c->clock;
            return e->plan;
        }
    }
    return NULL;
}

static void entry_free(cs_shim_plan_entry_t *e)
{
    atomic_fetch_sub(&cs_shim_plan_bytes, (long long)e->bytes);
    cs_eng_plan_destroy(e->plan);
    free(e->tab);
    memset(e, 0, sizeof(*e));
}

int cs_shim_plan_cache_put(const int *tab, int n, int me,
                           const int64_t extra[4], cs_eng_plan_t *plan,
                           int priv, cs_shim_fits_fn fits)
{
    cs_shim_plan_cache_t *c = cache_mine();
    if (!c || n > CS_SHIM_PLAN_CACHE_MAX_INTS) {
        return 0;
    }
    int *copy = malloc((size_t)n * sizeof(int));
    if (!copy) {
        return 0;
    }
    memcpy(copy, tab, (size_t)n * sizeof(int));
    /* RATIONALE: the call was admitted under COSTA_SHIM_MAX_MEMORY with
     * its plan (cs_shim_mem_reserve), not with the copy of its table that
     * the cache keeps too: make room for both, or leave the plan out (the
     * call then frees it).  The budget is asked through `fits` because
     * the budget itself counts (and evicts) what this cache holds. */
    int64_t add = cs_eng_plan_heap_bytes(plan) +
                  (int64_t)n * (int64_t)sizeof(int);
    while (!fits(add) && cs_shim_plan_cache_evict(plan)) {
    }
    if (!fits(add)) {
        free(copy);
        return 0;
    }
    cs_shim_plan_entry_t *victim = &c->e[0];
    for (int i = 0; i < CS_SHIM_PLAN_CACHE; i++) {
        cs_shim_plan_entry_t *e = &c->e[i];
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
    cs_shim_digest(copy + priv, n - priv, victim->digest);
    victim->n = n;
    victim->me = me;
    memcpy(victim->extra, extra, sizeof(victim->extra));
    victim->plan = plan;
    victim->used = ++c->clock;
    victim->bytes = entry_bytes(victim);
    atomic_fetch_add(&cs_shim_plan_bytes, (long long)victim->bytes);
    return 1;
}

int64_t cs_shim_plan_cache_bytes(void)
{
    return (int64_t)atomic_load(&cs_shim_plan_bytes);
}

int cs_shim_plan_cache_evict(const cs_eng_plan_t *keep)
{
    cs_shim_plan_cache_t *c = cache_mine();
    cs_shim_plan_entry_t *victim = NULL;
    for (int i = 0; c && i < CS_SHIM_PLAN_CACHE; i++) {
        cs_shim_plan_entry_t *e = &c->e[i];
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
    cs_shim_plan_cache_t *c = cache_mine();
    for (int i = 0; c && i < CS_SHIM_PLAN_CACHE; i++) {
        entry_free(&c->e[i]);
    }
}

const int *cs_shim_plan_cache_table(const int *row, int nrow, int n, int me,
                                    uint64_t digest_p[2])
{
    const cs_shim_plan_cache_t *c = cache_mine();
    const cs_shim_plan_entry_t *best = NULL;
    for (int i = 0; c && i < CS_SHIM_PLAN_CACHE; i++) {
        const cs_shim_plan_entry_t *e = &c->e[i];
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
    digest_p[0] = best->digest[0];
    digest_p[1] = best->digest[1];
    return best->tab;
}
