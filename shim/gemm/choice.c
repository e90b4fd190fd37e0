/*
 * shim/gemm/choice.c - what the ranks have measured of each p?gemm call
 * shape, and the path a call takes from it (gemm_int.h).
 *
 * RATIONALE: PBLAS's speed depends on more than the words it moves (its
 * panel width, how its broadcasts overlap, the local products' shapes),
 * so no model predicts it well everywhere.  A shape is therefore run once
 * on each path and then stays on the faster.  The record is per rank;
 * each call's agreement reduces every rank's record with MPI_MAX, so all
 * ranks decide from the same numbers even when one of them has forgotten
 * the shape, and a time is the slowest rank's.
 */
#include <pthread.h>
#include <string.h>

#include "shim/gemm/gemm_int.h"

/* Shapes remembered per process; the oldest is replaced. */
#define CS_GEMM_SHAPES 64

typedef struct {
    int64_t id[2];
    cs_shim_gemm_seen_t seen;
    int used;
} cs_gemm_shape_t;

static pthread_mutex_t cs_gemm_lock = PTHREAD_MUTEX_INITIALIZER;
static cs_gemm_shape_t cs_gemm_shapes[CS_GEMM_SHAPES];
static int cs_gemm_next;

/* The slot of id, or NULL.  Under cs_gemm_lock. */
static cs_gemm_shape_t *find(const int64_t id[2])
{
    for (int k = 0; k < CS_GEMM_SHAPES; k++) {
        cs_gemm_shape_t *e = &cs_gemm_shapes[k];
        if (e->used && e->id[0] == id[0] && e->id[1] == id[1]) {
            return e;
        }
    }
    return NULL;
}

void cs_shim_gemm_seen_get(const int64_t id[2], cs_shim_gemm_seen_t *s)
{
    pthread_mutex_lock(&cs_gemm_lock);
    const cs_gemm_shape_t *e = find(id);
    if (e) {
        *s = e->seen;
    } else {
        memset(s, 0, sizeof(*s));
    }
    pthread_mutex_unlock(&cs_gemm_lock);
}

void cs_shim_gemm_seen_add(const int64_t id[2], const cs_shim_gemm_seen_t *all,
                           int engine, double t)
{
    int64_t ns = (int64_t)(t * 1e9) + 1; /* 0 means "not measured" */
    pthread_mutex_lock(&cs_gemm_lock);
    cs_gemm_shape_t *e = find(id);
    if (!e) {
        e = &cs_gemm_shapes[cs_gemm_next];
        cs_gemm_next = (cs_gemm_next + 1) % CS_GEMM_SHAPES;
        e->used = 1;
        e->id[0] = id[0];
        e->id[1] = id[1];
    }
    e->seen = *all;
    int64_t *n = engine ? &e->seen.n_engine : &e->seen.n_native;
    int64_t *tm = engine ? &e->seen.t_engine : &e->seen.t_native;
    (*n)++;
    if (*tm == 0 || ns < *tm) {
        *tm = ns;
    }
    pthread_mutex_unlock(&cs_gemm_lock);
}

int cs_shim_gemm_pick(int expect, const cs_shim_gemm_seen_t *all)
{
    if (expect == CS_SHIM_GEMM_ENGINE_ONLY) {
        return 1;
    }
    /* the engine's first call of a shape also maps its buffer and plans:
     * its second call is the one that counts */
    if (all->n_engine < 2 &&
        (expect == CS_SHIM_GEMM_ENGINE_FIRST || all->n_native > 0)) {
        return 1;
    }
    if (all->n_native == 0) {
        return 0;
    }
    return all->t_engine < all->t_native;
}
