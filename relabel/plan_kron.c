/*
 * relabel/plan_kron.c - the plan's coordinate-descent step for a grid
 * with factored pairs (plan_int.h): the Kronecker solvers of
 * relabel_kron.h on the grid's largest term.
 *
 * RATIONALE: with the other grids' maps fixed, the best map of grid g is
 * an assignment of g's processes to g's positions, weighted by the sum of
 * g's pairs.  For grids of 65,536 positions that matrix cannot be built;
 * one term of it (one call shape) is a Kronecker product over the grids'
 * cells, which the Kronecker solvers relabel in well under a second.  The
 * step solves the largest term and keeps the result only where it lowers
 * the cost of all of g's pairs, dense and factored, so like the dense
 * step it never makes the plan worse; with one call shape between two
 * grids (the common case) it is the Kronecker solver's own answer.
 *
 * Pure C: no MPI, no environment, no logging, no global state.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/plan_int.h"
#include "relabel/relabel_int.h"

/* One factor as cs_rl_factor_t wants it (int coordinates), transposed
 * (its A and B coordinates swapped, entries sorted again) when tr. */
typedef struct {
    int *pa, *pb;
    int64_t *w;
    cs_rl_factor_t f;
} fac_t;

static void fac_free(fac_t *x)
{
    free(x->pa);
    free(x->pb);
    free(x->w);
}

static int fac_make(fac_t *x, const int64_t *pa, const int64_t *pb,
                    const int64_t *w, int64_t n, int na, int nb, int tr)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    x->pa = malloc(m * sizeof(int));
    x->pb = malloc(m * sizeof(int));
    x->w = malloc(m * sizeof(int64_t));
    int *fill = tr ? calloc((size_t)nb + 1, sizeof(int)) : NULL;
    if (!x->pa || !x->pb || !x->w || (tr && !fill)) {
        free(fill);
        return -1;
    }
    if (!tr) {
        for (int64_t e = 0; e < n; e++) {
            x->pa[e] = (int)pa[e];
            x->pb[e] = (int)pb[e];
            x->w[e] = w[e];
        }
    } else {
        /* a stable counting sort by the old B coordinate keeps each new
         * row sorted by the old A coordinate, its new B */
        for (int64_t e = 0; e < n; e++) {
            fill[pb[e] + 1]++;
        }
        for (int u = 0; u < nb; u++) {
            fill[u + 1] += fill[u];
        }
        for (int64_t e = 0; e < n; e++) {
            int64_t k = fill[pb[e]]++;
            x->pa[k] = (int)pb[e];
            x->pb[k] = (int)pa[e];
            x->w[k] = w[e];
        }
    }
    free(fill);
    x->f = (cs_rl_factor_t){tr ? nb : na, tr ? na : nb, n, x->pa, x->pb,
                            x->w};
    return 0;
}

/* The cost of grid g's pairs under the maps cur with m as g's map: the
 * bytes leaving their process (plain) or relabel_nodes.h's weighted
 * cost, saturated. */
static int64_t grid_cost(const cs_rl_problem_t *pb, int g, int **cur,
                         const int *m, int *pos)
{
    int sat = 0;
    int64_t cost = 0;
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        if (p->ga != g && p->gb != g) {
            continue;
        }
        const int *ma = p->ga == g ? m : cur[p->ga];
        const int *mb = p->gb == g ? m : cur[p->gb];
        int64_t tot = cs_rl_pair_total(p, &sat);
        int64_t out = tot - cs_rl_pair_kept(p, ma, mb, pos, pb->nworld);
        if (pb->node) {
            int64_t across = cs_rl_pair_across(p, ma, mb, pb->node,
                                               pb->nworld);
            out = cs_rl_add_sat(cs_rl_mul_sat(pb->w_rank, out - across, &sat),
                                cs_rl_mul_sat(pb->w_node, across, &sat),
                                &sat);
        }
        cost = cs_rl_add_sat(cost, out, &sat);
    }
    return cost;
}

/* g's largest term: its pair into *pk and its words' offset, or -1. */
static int64_t largest_term(const cs_rl_problem_t *pb, int g, int *pk)
{
    int64_t best = -1, at = -1;
    for (int k = 0; k < pb->npairs; k++) {
        const cs_rl_pair_t *p = &pb->pr[k];
        if ((p->ga != g && p->gb != g) || p->v) {
            continue;
        }
        cs_rl_term_t t;
        for (int64_t o = 0, start = 0; cs_rl_term_next(p, &o, &t);
             start = o) {
            int sat = 0;
            int64_t b = cs_rl_term_bytes(&t, &sat);
            if (b > best) {
                best = b;
                at = start;
                *pk = k;
            }
        }
    }
    return at;
}

/*
 * The Kronecker problem of term t of pair p for grid g over g's current
 * processes (index i: cur[g][i]): the other grid's cells are the
 * processes' side, g's cells the positions.  proc/pos: cells of each
 * side (filled); f: the two factors (filled, to free).  Returns 0, 1 when
 * the other grid holds a rank outside g (no relabeling of g can keep its
 * bytes: the step leaves g), -1 without memory.
 */
static int kron_of(const cs_rl_problem_t *pb, const cs_rl_pair_t *p,
                   const cs_rl_term_t *t, int g, int **cur, int *pos,
                   int *proc, int *cellpos, fac_t f[2])
{
    int into = p->gb == g, other = into ? p->ga : p->gb;
    int n = pb->g[g].p * pb->g[g].q;
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = i;
    }
    /* the other grid's cells (processes' side) and g's (positions') */
    int ox = into ? t->rna : t->rnb, oy = into ? t->cna : t->cnb;
    int gx = into ? t->rnb : t->rna, gy = into ? t->cnb : t->cna;
    int outside = 0;
    for (int x = 0; x < ox; x++) {
        for (int y = 0; y < oy; y++) {
            int a = !into ? x * t->cnb + y
                          : t->trans ? y * t->rna + x : x * t->cna + y;
            int r = cur[other][a];
            int i = r >= 0 && r < pb->nworld ? pos[r] : -1;
            outside |= i < 0;
            proc[(int64_t)x * oy + y] = i;
        }
    }
    for (int x = 0; x < gx; x++) {
        for (int y = 0; y < gy; y++) {
            cellpos[(int64_t)x * gy + y] =
                into ? x * t->cnb + y
                     : t->trans ? y * t->rna + x : x * t->cna + y;
        }
    }
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = -1;
    }
    if (outside) {
        return 1;
    }
    memset(f, 0, 2 * sizeof(*f));
    if (fac_make(&f[0], t->rpa, t->rpb, t->rw, t->rn, t->rna, t->rnb,
                 !into) != 0 ||
        fac_make(&f[1], t->cpa, t->cpb, t->cw, t->cn, t->cna, t->cnb,
                 !into) != 0) {
        return -1;
    }
    return 0;
}

/* The relabeling of g's processes the term's solver gives: perm. */
static cs_rl_status_t solve_term(const cs_rl_problem_t *pb, int g, int **cur,
                                 const cs_rl_kron_t *k, int *perm)
{
    cs_rl_kx_t *kx = NULL;
    cs_rl_status_t st = cs_rl_kron_create(k, &kx);
    if (st != CS_RL_OK) {
        return st;
    }
    if (!pb->node) {
        st = cs_rl_kron_solve(kx, perm, NULL);
    } else {
        int *node = malloc((size_t)k->P * sizeof(int));
        st = CS_RL_ERR_NOMEM;
        if (node) {
            for (int i = 0; i < k->P; i++) {
                node[i] = pb->node[cur[g][i]];
            }
            cs_rl_machine_t m = {k->P, pb->nnodes, node, pb->w_rank,
                                 pb->w_node};
            st = cs_rl_kron_solve_nodes(kx, &m, NULL, perm, NULL);
        }
        free(node);
    }
    cs_rl_kron_destroy(kx);
    return st;
}

int cs_rl_plan_kron_step(cs_rl_problem_t *pb, int g, int **cur, int *pos)
{
    int k = -1, n = pb->g[g].p * pb->g[g].q, changed = 0;
    int64_t at = largest_term(pb, g, &k);
    if (at < 0) {
        return 0;
    }
    const cs_rl_pair_t *p = &pb->pr[k];
    int other = p->gb == g ? p->ga : p->gb;
    int no = pb->g[other].p * pb->g[other].q;
    cs_rl_term_t t;
    cs_rl_term_parse(p->fw + at, p->nfw - at, &t);
    int *proc = malloc((size_t)no * sizeof(int));
    int *cellpos = malloc((size_t)n * sizeof(int));
    int *perm = malloc((size_t)n * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    fac_t f[2];
    memset(f, 0, sizeof(f));
    int r = proc && cellpos && perm && next
                ? kron_of(pb, p, &t, g, cur, pos, proc, cellpos, f)
                : -1;
    if (r == 0) {
        cs_rl_kron_t kp = {n, f[0].f, f[1].f, t.scale, proc, cellpos};
        cs_rl_status_t st = solve_term(pb, g, cur, &kp, perm);
        if (st == CS_RL_OK) {
            for (int j = 0; j < n; j++) {
                next[j] = cur[g][perm[j]];
                changed |= next[j] != cur[g][j];
            }
            changed = changed && grid_cost(pb, g, cur, next, pos) <
                                     grid_cost(pb, g, cur, cur[g], pos);
            if (changed) {
                memcpy(cur[g], next, (size_t)n * sizeof(int));
            }
        } else {
            pb->incomplete = 1; /* memory, or a term the solver refused */
        }
    } else if (r < 0) {
        pb->incomplete = 1;
    }
    fac_free(&f[0]);
    fac_free(&f[1]);
    free(proc);
    free(cellpos);
    free(perm);
    free(next);
    return changed;
}
