/*
 * relabel/plan_problem.c - the problem a relabeling plan solves: the
 * grids of a run and the position volumes between them, put in plan
 * order (relabel.h, "plans").
 *
 * Pure C: no MPI, no environment, no logging, no global state.  The shim
 * fills the problem (from one rank's records or from all ranks', gathered
 * over MPI) and hands it over as plain arrays.
 */
#include "relabel/plan_int.h"
#include "relabel/relabel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void cs_rl_problem_free(cs_rl_problem_t *pb)
{
    for (int i = 0; i < pb->ng && pb->g; i++) {
        free(pb->g[i].map);
    }
    free(pb->g);
    free(pb->pr);
    free(pb->buf);
    free(pb->node);
    memset(pb, 0, sizeof(*pb));
}

cs_rl_status_t cs_rl_problem_add_grid(cs_rl_problem_t *pb, int stamp,
                                      int owner, int p, int q, char order,
                                      const int *map32, const int64_t *map64)
{
    cs_rl_grid_t *g = &pb->g[pb->ng];
    int n = p * q;
    g->map = malloc((size_t)n * sizeof(int));
    if (!g->map) {
        pb->incomplete = 1;
        return CS_RL_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++) {
        g->map[i] = map32 ? map32[i] : (int)map64[i];
    }
    g->stamp = stamp;
    g->owner = owner;
    g->p = p;
    g->q = q;
    g->order = order;
    pb->ng++;
    return CS_RL_OK;
}

static int grid_cmp(const void *x, const void *y)
{
    const cs_rl_grid_t *a = x, *b = y;
    if (a->stamp != b->stamp) {
        return a->stamp < b->stamp ? -1 : 1;
    }
    return (a->owner > b->owner) - (a->owner < b->owner);
}

static int pair_cmp(const void *x, const void *y)
{
    const cs_rl_pair_t *a = x, *b = y;
    if (a->ga != b->ga) {
        return a->ga < b->ga ? -1 : 1;
    }
    return (a->gb > b->gb) - (a->gb < b->gb);
}

/* Plan number of grid (stamp, owner) if it has n positions, else -1. */
static int grid_number(const cs_rl_problem_t *pb, int stamp, int owner,
                       int n)
{
    cs_rl_grid_t k = {.stamp = stamp, .owner = owner};
    const cs_rl_grid_t *g = bsearch(&k, pb->g, (size_t)pb->ng,
                                    sizeof(cs_rl_grid_t), grid_cmp);
    return g && g->p * g->q == n ? (int)(g - pb->g) : -1;
}

void cs_rl_problem_order(cs_rl_problem_t *pb)
{
    qsort(pb->g, (size_t)pb->ng, sizeof(cs_rl_grid_t), grid_cmp);
    for (int i = 1; i < pb->ng; i++) {
        if (grid_cmp(&pb->g[i - 1], &pb->g[i]) == 0) {
            pb->incomplete = 1; /* cannot happen: stamps are unique */
        }
    }
    int n = 0;
    for (int k = 0; k < pb->npairs; k++) {
        cs_rl_pair_t *p = &pb->pr[k];
        p->ga = grid_number(pb, p->sa, p->oa, p->pa);
        p->gb = grid_number(pb, p->sb, p->ob, p->pb);
        if (p->ga < 0 || p->gb < 0 || p->ga == p->gb) {
            pb->incomplete = 1; /* a grid nobody recorded */
            continue;
        }
        if (!p->v && !cs_rl_terms_ok(p)) {
            pb->incomplete = 1; /* terms that do not read or fit */
            continue;
        }
        pb->pr[n++] = *p;
    }
    pb->npairs = n;
    qsort(pb->pr, (size_t)n, sizeof(cs_rl_pair_t), pair_cmp);
    n = 0;
    for (int k = 0; k < pb->npairs; k++) {
        cs_rl_pair_t *p = &pb->pr[k], *last = n > 0 ? &pb->pr[n - 1] : NULL;
        /* dense pairs of the same grids are summed; factored ones stay
         * apart (the steps read every pair of a grid) */
        if (last && last->ga == p->ga && last->gb == p->gb && last->v &&
            p->v) {
            for (int64_t e = 0; e < (int64_t)p->pa * p->pb; e++) {
                last->v[e] = cs_rl_add_sat(last->v[e], p->v[e],
                                           &pb->saturated);
            }
            last->calls += p->calls;
        } else {
            pb->pr[n++] = *p;
        }
    }
    pb->npairs = n;
}
