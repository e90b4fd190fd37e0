/*
 * relabel/kron_solve.c - plain relabeling of a Kronecker problem
 * (relabel_kron.h): the product relabeling, the greedy on each process's
 * largest entries, and the pairwise swaps both end with (also used by
 * the node-aware solver, kron_nodes.c, with its own objective).
 *
 * Pure C, no MPI, no global state; deterministic (no time budget: the
 * work is bounded by passes of O(P * CS_RL_KRON_CAND) lookups).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "relabel/kron_int.h"

/*
 * RATIONALE: as in relabel/greedy.c, a swap of positions j1 and j2 can
 * gain only where the process moved to j1 gains there; those moves are
 * looked for among each process's candidates (its largest entries), so
 * a pass costs O(P * ncand) objective evaluations, and gain(b, j1) plus
 * the bound of j2 rules most of them out before the second evaluation
 * (the plain gain; under the node-aware one it rarely does).  After the
 * first pass a process is looked at again only where one of its checks
 * has changed inputs (its own position or a candidate's occupant moved
 * since): every other check would fail as it did, so the swaps made are
 * those of full passes, at a fraction of their lookups (at P = 65,536,
 * 64 ranks per node, the node-aware passes 2-7 looked at 3.5 P processes
 * instead of 6 P).
 */
cs_rl_status_t cs_rl_kx_swaps(int P, const cs_rl_obj_t *obj,
                              const int *cand, int ncand, int max_passes,
                              int *perm, int *passes_p, int64_t *swaps_p)
{
    int64_t *cur = malloc((size_t)P * sizeof(*cur));
    int *at = malloc((size_t)P * sizeof(*at));
    /* examinations are numbered (pass - 1) * P + b (below INT_MAX:
     * passes are capped); changed[j]: the examination that last moved
     * position j, seen[b]: the last that looked at process b (-1: none) */
    int *changed = malloc((size_t)P * sizeof(*changed));
    int *seen = malloc((size_t)P * sizeof(*seen));
    if (!cur || !at || !changed || !seen) {
        free(cur);
        free(at);
        free(changed);
        free(seen);
        return CS_RL_ERR_NOMEM;
    }
    for (int j = 0; j < P; j++) {
        at[perm[j]] = j;
        cur[j] = obj->gain(obj->ctx, perm[j], j);
        changed[j] = -1;
        seen[j] = -1;
    }
    int passes = 0;
    int64_t swaps = 0;
    if (max_passes > INT_MAX / P) {
        max_passes = INT_MAX / P;
    }
    while (passes < max_passes) {
        int64_t before = swaps;
        passes++;
        for (int b = 0; b < P; b++) {
            const int *c = cand + (int64_t)b * ncand;
            int j2 = at[b];
            int exam = (passes - 1) * P + b, last = seen[b];
            /* every check of b failed when b was last looked at (had one
             * succeeded, b's position would have changed since): a check
             * can succeed again only where its positions changed */
            int all = last < 0 || changed[j2] >= last, any = all;
            for (int t = 0; !any && t < ncand && c[t] >= 0; t++) {
                any = changed[c[t]] >= last;
            }
            if (!any) {
                continue;
            }
            seen[b] = exam;
            for (int t = 0; t < ncand && c[t] >= 0; t++) {
                int j1 = c[t];
                if (j1 == j2 || (!all && changed[j1] < last)) {
                    continue;
                }
                int64_t have = cur[j1] + cur[j2];
                int64_t nb1 = obj->gain(obj->ctx, b, j1);
                if (nb1 + obj->bound[j2] <= have) {
                    continue;
                }
                int a = perm[j1];
                int64_t na2 = obj->gain(obj->ctx, a, j2);
                if (nb1 + na2 > have) {
                    perm[j1] = b;
                    perm[j2] = a;
                    at[b] = j1;
                    at[a] = j2;
                    cur[j1] = nb1;
                    cur[j2] = na2;
                    changed[j1] = changed[j2] = exam;
                    j2 = j1;
                    all = 1;
                    swaps++;
                }
            }
        }
        if (swaps == before) {
            break;
        }
    }
    free(cur);
    free(at);
    free(changed);
    free(seen);
    if (passes_p) {
        *passes_p = passes;
    }
    if (swaps_p) {
        *swaps_p = swaps;
    }
    return CS_RL_OK;
}

/* sigma[u]: the A coordinate playing B coordinate u in the best
 * assignment of one square factor (exact up to CS_RL_EXACT_MAX_P, where
 * the factor is held dense; the sparse greedy above). */
static cs_rl_status_t fac_assign(const cs_rl_fac_t *f, int *sigma)
{
    if (f->na <= CS_RL_EXACT_MAX_P && f->dense) {
        return cs_rl_solve_exact(f->na, f->dense, sigma);
    }
    cs_rl_sparse_t v;
    cs_rl_status_t st = cs_rl_sparse_init(&v, f->na);
    for (int x = 0; x < f->na && st == CS_RL_OK; x++) {
        for (int64_t e = f->rfirst[x]; e < f->rfirst[x + 1]; e++) {
            if ((st = cs_rl_sparse_add(&v, x, f->rb[e], f->rw[e])) !=
                CS_RL_OK) {
                break;
            }
        }
    }
    if (st == CS_RL_OK) {
        st = cs_rl_sparse_finish(&v);
    }
    if (st == CS_RL_OK) {
        st = cs_rl_solve_sparse(&v, sigma);
    }
    cs_rl_sparse_free(&v);
    return st;
}

/* The best product relabeling into perm (grids of the same shape). */
static cs_rl_status_t product(const cs_rl_kx_t *kx, int *perm)
{
    const cs_rl_fac_t *r = &kx->r, *c = &kx->c;
    int P = kx->P;
    int *sr = malloc((size_t)r->na * sizeof(*sr));
    int *sc = malloc((size_t)c->na * sizeof(*sc));
    unsigned char *used = calloc((size_t)P, 1);
    cs_rl_status_t st = sr && sc && used ? fac_assign(r, sr)
                                         : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        st = fac_assign(c, sc);
    }
    if (st == CS_RL_OK) {
        for (int j = 0; j < P; j++) {
            perm[j] = -1;
        }
        for (int u = 0; u < r->nb; u++) {
            for (int v = 0; v < c->nb; v++) {
                int j = kx->cellq[(int64_t)u * c->nb + v];
                int i = kx->cellp[(int64_t)sr[u] * c->na + sc[v]];
                perm[j] = i;
                used[i] = 1;
            }
        }
        cs_rl_fill_free(P, perm, used);
    }
    free(sr);
    free(sc);
    free(used);
    return st;
}

/*
 * The paper's greedy restricted to each process's candidates: entries in
 * decreasing order (a heap of processes keyed by their best candidate
 * whose position may be free), each pairing a free process with a free
 * position; the rest as cs_rl_fill_free.
 */
static cs_rl_status_t greedy(const cs_rl_kx_t *kx, const int *cand,
                             int *perm)
{
    int P = kx->P, K = CS_RL_KRON_CAND;
    int64_t *head = malloc((size_t)P * sizeof(*head));
    int *next = calloc((size_t)P, sizeof(*next));
    unsigned char *used = calloc((size_t)P, 1);
    cs_rl_heap_t h = {malloc((size_t)P * sizeof(int)), 0, head};
    if (!head || !next || !used || !h.heap) {
        free(head);
        free(next);
        free(used);
        free(h.heap);
        return CS_RL_ERR_NOMEM;
    }
    for (int j = 0; j < P; j++) {
        perm[j] = -1;
    }
    for (int i = 0; i < P; i++) {
        if (cand[(int64_t)i * K] >= 0) {
            head[i] = cs_rl_kx_vol(kx, i, cand[(int64_t)i * K]);
            h.heap[h.n++] = i;
        }
    }
    cs_rl_heap_make(&h);
    while (h.n > 0) {
        int i = h.heap[0];
        const int *c = cand + (int64_t)i * K;
        if (perm[c[next[i]]] < 0) {
            perm[c[next[i]]] = i;
            used[i] = 1;
            cs_rl_heap_pop(&h);
            continue;
        }
        int t = next[i] + 1;
        while (t < K && c[t] >= 0 && perm[c[t]] >= 0) {
            t++;
        }
        if (t < K && c[t] >= 0) {
            next[i] = t;
            head[i] = cs_rl_kx_vol(kx, i, c[t]);
            cs_rl_heap_down(&h, 0);
        } else {
            cs_rl_heap_pop(&h);
        }
    }
    cs_rl_fill_free(P, perm, used);
    free(head);
    free(next);
    free(used);
    free(h.heap);
    return CS_RL_OK;
}

static int64_t plain_gain(const void *ctx, int k, int j)
{
    return cs_rl_kx_vol(ctx, k, j);
}

/* bound[j]: the largest entry of column j. */
static int64_t *plain_bound(const cs_rl_kx_t *kx)
{
    int64_t *bd = malloc((size_t)kx->P * sizeof(*bd));
    for (int j = 0; bd && j < kx->P; j++) {
        int u = kx->bu[j];
        bd[j] = u < 0 ? 0
                      : kx->r.cmax[u] * kx->c.cmax[kx->bv[j]] * kx->scale;
    }
    return bd;
}

cs_rl_status_t cs_rl_kron_solve(const cs_rl_kx_t *kx, int *perm_p,
                                cs_rl_kron_info_t *info_p)
{
    int P = kx->P;
    int same = kx->r.na == kx->r.nb && kx->c.na == kx->c.nb;
    const int *cand = kx->cand;
    int *pg = malloc((size_t)P * sizeof(*pg));
    int *pp = same ? malloc((size_t)P * sizeof(*pp)) : NULL;
    int64_t *bound = plain_bound(kx);
    cs_rl_kron_info_t in = {.method = CS_RL_KRON_GREEDY};
    cs_rl_status_t st = pg && bound && (pp || !same) ? CS_RL_OK
                                                      : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        st = greedy(kx, cand, pg);
    }
    if (st == CS_RL_OK && same) {
        st = product(kx, pp);
    }
    if (st == CS_RL_OK) {
        /* the better start: product, greedy or the identity */
        int *best = pg;
        in.start_kept = cs_rl_kron_kept(kx, pg);
        int64_t kp = same ? cs_rl_kron_kept(kx, pp) : -1;
        if (kp >= in.start_kept) {
            best = pp;
            in.start_kept = kp;
            in.method = CS_RL_KRON_PRODUCT;
        }
        int64_t kid = cs_rl_kron_kept(kx, NULL);
        if (kid >= in.start_kept) {
            for (int j = 0; j < P; j++) {
                best[j] = j;
            }
            in.start_kept = kid;
            in.method = CS_RL_KRON_IDENTITY;
        }
        cs_rl_obj_t obj = {plain_gain, kx, bound};
        st = cs_rl_kx_swaps(P, &obj, cand, CS_RL_KRON_CAND,
                            CS_RL_KRON_PASSES, best, &in.passes, &in.swaps);
        if (st == CS_RL_OK) {
            in.kept = cs_rl_kron_kept(kx, best);
            if (in.method == CS_RL_KRON_IDENTITY && in.swaps > 0) {
                in.method = CS_RL_KRON_SWAPS;
            }
            if (in.kept <= kid) {
                for (int j = 0; j < P; j++) {
                    best[j] = j;
                }
                in.kept = kid;
                in.method = CS_RL_KRON_IDENTITY;
            }
            memcpy(perm_p, best, (size_t)P * sizeof(*perm_p));
            if (info_p) {
                *info_p = in;
            }
        }
    }
    free(pg);
    free(pp);
    free(bound);
    return st;
}

int64_t cs_rl_kron_solve_bytes(int P, int64_t entries)
{
    /* pg, pp, bound (16 per process) held throughout, with the largest
     * of: the greedy (head, next, used, heap: 17), the product (used 1,
     * a factor's assignment: exact on its dense table, O(coordinates),
     * or the sparse greedy on its entries, 16 each doubled as they are
     * added, 24 sorted, and 5 per coordinate), the swaps (cur, at,
     * changed, seen: 20) */
    return 36 * (int64_t)P + 64 * entries + ((int64_t)64 << 10);
}
