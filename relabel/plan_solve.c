/*
 * relabel/plan_solve.c - the relabeling plan of a run: the process map of
 * every grid that minimises the bytes crossing processes over all
 * observed redistributions between different grids (relabel.h, "plans").
 *
 * Pure C: no MPI, no environment, no logging, no global state.
 *
 * RATIONALE: relabeling grid g changes only the bytes of redistributions
 * between g and another grid (a redistribution from a grid to itself
 * moves exactly the same bytes under any relabeling of that grid).  With
 * all other grids fixed, the best map of g is a linear assignment:
 * W[i][j] = bytes process i would keep if it played position j of g,
 * summed over g's pairs.  The first grid of each group of grids linked by
 * calls is fixed; the others are optimised one by one, in plan order, for
 * a few rounds of coordinate descent (each step never increases the
 * total, with the exact solver up to CS_RL_EXACT_MAX_P positions).
 */
#include "relabel/relabel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int64_t cs_rl_pair_kept(const cs_rl_pair_t *p, const int *ma, const int *mb,
                        int *pos, int nworld)
{
    for (int j = 0; j < p->pb; j++) {
        if (mb[j] >= 0 && mb[j] < nworld) {
            pos[mb[j]] = j;
        }
    }
    int64_t kept = 0;
    for (int i = 0; i < p->pa; i++) {
        int j = ma[i] >= 0 && ma[i] < nworld ? pos[ma[i]] : -1;
        if (j >= 0) {
            kept += p->v[(int64_t)i * p->pb + j];
        }
    }
    for (int j = 0; j < p->pb; j++) {
        if (mb[j] >= 0 && mb[j] < nworld) {
            pos[mb[j]] = -1;
        }
    }
    return kept;
}

/* One coordinate-descent step: the best map of grid g against the
 * current maps of the others.  Returns 1 if cur[g] changed. */
static int optimise_grid(cs_rl_problem_t *pb, int g, int **cur, int *pos)
{
    int n = pb->g[g].p * pb->g[g].q;
    int involved = 0;
    for (int k = 0; k < pb->npairs; k++) {
        involved |= pb->pr[k].ga == g || pb->pr[k].gb == g;
    }
    if (!involved || n > CS_RL_MAX_P) {
        return 0;
    }
    int64_t *w = calloc((size_t)n * (size_t)n, sizeof(int64_t));
    int *perm = malloc((size_t)n * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    int changed = 0;
    if (!w || !perm || !next) {
        pb->incomplete = 1;
        goto out;
    }
    /* pos[world rank] = index of the process in g's current map */
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = i;
    }
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        if (p->gb == g) { /* other -> g: V[ph][j] */
            for (int ph = 0; ph < p->pa; ph++) {
                int i = pos[cur[p->ga][ph]];
                if (i < 0) {
                    continue;
                }
                for (int j = 0; j < n; j++) {
                    w[(int64_t)i * n + j] += p->v[(int64_t)ph * p->pb + j];
                }
            }
        } else if (p->ga == g) { /* g -> other: V[j][ph] */
            for (int ph = 0; ph < p->pb; ph++) {
                int i = pos[cur[p->gb][ph]];
                if (i < 0) {
                    continue;
                }
                for (int j = 0; j < n; j++) {
                    w[(int64_t)i * n + j] += p->v[(int64_t)j * p->pb + ph];
                }
            }
        }
    }
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = -1;
    }
    if (cs_rl_solve(n, w, 0.0, perm, NULL) != CS_RL_OK) {
        pb->incomplete = 1;
        goto out;
    }
    for (int j = 0; j < n; j++) {
        next[j] = cur[g][perm[j]];
        changed |= next[j] != cur[g][j];
    }
    if (changed) {
        memcpy(cur[g], next, (size_t)n * sizeof(int));
    }
out:
    free(next);
    free(perm);
    free(w);
    return changed;
}

/* Union-find: the smallest grid number linked to g (root[] is kept so
 * that root[g] <= g). */
static int find_root(int *root, int g)
{
    while (root[g] != g) {
        root[g] = root[root[g]];
        g = root[g];
    }
    return g;
}

/* Each grid's current map: a copy of its map, checked to hold world
 * ranks. */
static cs_rl_status_t start_maps(const cs_rl_problem_t *pb,
                                 cs_rl_plan_t *plan)
{
    for (int g = 0; g < pb->ng; g++) {
        const cs_rl_grid_t *gr = &pb->g[g];
        int n = gr->p * gr->q;
        plan->map[g] = malloc((size_t)n * sizeof(int));
        if (!plan->map[g]) {
            return CS_RL_ERR_NOMEM;
        }
        memcpy(plan->map[g], gr->map, (size_t)n * sizeof(int));
        for (int i = 0; i < n; i++) {
            if (gr->map[i] < 0 || gr->map[i] >= pb->nworld) {
                plan->bad_grid = g;
                return CS_RL_ERR_INVALID;
            }
        }
    }
    return CS_RL_OK;
}

cs_rl_status_t cs_rl_plan_solve(cs_rl_problem_t *pb, cs_rl_plan_t *plan_p)
{
    int ng = pb->ng, nworld = pb->nworld;
    memset(plan_p, 0, sizeof(*plan_p));
    plan_p->ng = ng;
    plan_p->bad_grid = -1;
    plan_p->map = calloc((size_t)(ng > 0 ? ng : 1), sizeof(int *));
    plan_p->pos = malloc((size_t)nworld * sizeof(int));
    int *root = malloc((size_t)(ng > 0 ? ng : 1) * sizeof(int));
    cs_rl_status_t st = CS_RL_ERR_NOMEM;
    if (!plan_p->map || !plan_p->pos || !root) {
        goto out;
    }
    for (int i = 0; i < nworld; i++) {
        plan_p->pos[i] = -1;
    }
    st = start_maps(pb, plan_p);
    if (st != CS_RL_OK) {
        goto out;
    }
    /* the first grid of each group of grids linked by redistributions
     * keeps its map: the others are optimised against it (a group on
     * other processes than grid 0 has nothing to be optimised against) */
    for (int g = 0; g < ng; g++) {
        root[g] = g;
    }
    for (int k = 0; k < pb->npairs; k++) {
        int a = find_root(root, pb->pr[k].ga);
        int b = find_root(root, pb->pr[k].gb);
        root[a > b ? a : b] = a < b ? a : b;
    }
    for (int round = 0; round < CS_RL_PLAN_ROUNDS; round++) {
        int changed = 0;
        for (int g = 0; g < ng; g++) {
            if (find_root(root, g) != g) {
                changed |= optimise_grid(pb, g, plan_p->map, plan_p->pos);
            }
        }
        if (!changed) {
            break;
        }
    }
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        int64_t before = cs_rl_pair_kept(p, pb->g[p->ga].map,
                                         pb->g[p->gb].map, plan_p->pos,
                                         nworld);
        int64_t after = cs_rl_pair_kept(p, plan_p->map[p->ga],
                                        plan_p->map[p->gb], plan_p->pos,
                                        nworld);
        plan_p->saved += after - before;
    }
    plan_p->planned_bytes = pb->cross_total - plan_p->saved;
    for (int g = 0; g < ng; g++) {
        const cs_rl_grid_t *gr = &pb->g[g];
        plan_p->relabeled += memcmp(plan_p->map[g], gr->map,
                                  (size_t)(gr->p * gr->q) * sizeof(int)) !=
                           0;
    }
out:
    free(root);
    return st;
}

void cs_rl_plan_free(cs_rl_plan_t *plan)
{
    for (int g = 0; g < plan->ng && plan->map; g++) {
        free(plan->map[g]);
    }
    free(plan->map);
    free(plan->pos);
    memset(plan, 0, sizeof(*plan));
}
