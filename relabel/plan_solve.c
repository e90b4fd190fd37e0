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
#include "relabel/plan_int.h"
#include "relabel/relabel.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The gains of grid g's positions (n) against the current maps of the
 * others: w[i][j] += what process i of g (cur[g][i]) gains playing
 * position j, pos[world rank] holding i for g's processes; nv (nnodes x
 * n, with nodes) the bytes each node's processes of the other grids
 * exchange with position j.  Returns 0, or 1 when a gain overflows. */
static int gains(const cs_rl_problem_t *pb, int g, int **cur, const int *pos,
                 int n, int64_t *w, int64_t *nv)
{
    int sat = 0;
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        int into = p->gb == g; /* other -> g: V[ph][j], else V[j][ph] */
        if (!into && p->ga != g) {
            continue;
        }
        int other = into ? p->ga : p->gb, np = into ? p->pa : p->pb;
        for (int ph = 0; ph < np; ph++) {
            int x = cur[other][ph], i = pos[x];
            int64_t *nrow = pb->node ? nv + (int64_t)pb->node[x] * n : NULL;
            for (int j = 0; j < n; j++) {
                int64_t v = into ? p->v[(int64_t)ph * p->pb + j]
                                 : p->v[(int64_t)j * p->pb + ph];
                if (i >= 0) {
                    w[(int64_t)i * n + j] =
                        cs_rl_add_sat(w[(int64_t)i * n + j], v, &sat);
                }
                if (nrow) {
                    nrow[j] = cs_rl_add_sat(nrow[j], v, &sat);
                }
            }
        }
    }
    if (!pb->node) {
        return sat;
    }
    /* w = w_rank * kept + (w_node - w_rank) * in its node */
    int64_t dw = pb->w_node - pb->w_rank;
    for (int i = 0; i < n; i++) {
        const int64_t *nrow = nv + (int64_t)pb->node[cur[g][i]] * n;
        for (int j = 0; j < n; j++) {
            int64_t *x = &w[(int64_t)i * n + j];
            *x = cs_rl_add_sat(cs_rl_mul_sat(pb->w_rank, *x, &sat),
                               cs_rl_mul_sat(dw, nrow[j], &sat), &sat);
        }
    }
    return sat;
}

/* One coordinate-descent step: the best map of grid g against the
 * current maps of the others (a grid with factored pairs: plan_kron.c).
 * Returns 1 if cur[g] changed. */
static int optimise_grid(cs_rl_problem_t *pb, int g, int **cur, int *pos)
{
    int n = pb->g[g].p * pb->g[g].q;
    int involved = 0, factored = 0;
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        involved |= p->ga == g || p->gb == g;
        factored |= (p->ga == g || p->gb == g) && !p->v;
    }
    if (factored) {
        return cs_rl_plan_kron_step(pb, g, cur, pos);
    }
    if (!involved || n > CS_RL_MAX_P) {
        return 0;
    }
    int64_t *w = calloc((size_t)n * (size_t)n, sizeof(int64_t));
    int64_t *nv = pb->node ? calloc((size_t)pb->nnodes * (size_t)n,
                                    sizeof(int64_t))
                           : NULL;
    int *perm = malloc((size_t)n * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    int changed = 0;
    if (!w || !perm || !next || (pb->node && !nv)) {
        pb->incomplete = 1;
        goto out;
    }
    /* pos[world rank] = index of the process in g's current map */
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = i;
    }
    pb->saturated |= gains(pb, g, cur, pos, n, w, nv);
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
    free(nv);
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
    plan_p->net_app = plan_p->net_plan = pb->node ? 0 : -1;
    for (int k = 0; pb->node && k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        plan_p->net_app += cs_rl_pair_across(p, pb->g[p->ga].map,
                                             pb->g[p->gb].map, pb->node,
                                             nworld);
        plan_p->net_plan += cs_rl_pair_across(p, plan_p->map[p->ga],
                                              plan_p->map[p->gb], pb->node,
                                              nworld);
    }
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
