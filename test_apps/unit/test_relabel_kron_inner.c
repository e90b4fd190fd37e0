/*
 * test_apps/unit/test_relabel_kron_inner.c - the Kronecker solvers' inner
 * pieces (relabel/kron_int.h), each against a plain reference on random
 * problems built from random factors:
 * 1. cs_rl_kx_swaps, which looks at a process again only where one of
 *    its checks has changed inputs, against full passes of every check:
 *    the same swaps, the same permutation, for any objective.
 * 2. cs_rl_parts_bounds: bound[j] at least the node-aware gain of
 *    every process at j, the gain counted from the whole matrix, on
 *    machines whose nodes span one or several runs of grid cells.
 * 3. cs_rl_kx_inside: the assignment inside a node, solved component by
 *    component, keeps what the exact solver keeps on the node's s x s
 *    volumes, and is a permutation.
 *
 * Deterministic (fixed seed; argv[1] scales the number of cases).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"
#include "relabel/kron_int.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

/* ------------------------------------------------------------ problems */

/* A random factor of na x nb coordinates: each entry present with
 * probability density / 8, weights 1..wmax, sorted by (pa, pb). */
typedef struct {
    int *pa, *pb;
    int64_t *w;
    int64_t n;
} fac_t;

static void random_factor(int na, int nb, int density, int64_t wmax,
                          fac_t *f)
{
    int64_t cap = (int64_t)na * nb;
    f->pa = malloc((size_t)cap * sizeof(int));
    f->pb = malloc((size_t)cap * sizeof(int));
    f->w = malloc((size_t)cap * sizeof(int64_t));
    CS_TEST_ASSERT(f->pa && f->pb && f->w);
    f->n = 0;
    for (int x = 0; x < na; x++) {
        for (int u = 0; u < nb; u++) {
            if (rr(0, 7) < density) {
                f->pa[f->n] = x;
                f->pb[f->n] = u;
                f->w[f->n++] = rr(1, wmax);
            }
        }
    }
}

static void fac_free(fac_t *f)
{
    free(f->pa);
    free(f->pb);
    free(f->w);
}

/* A random problem over P = rows x cols processes (A's and B's grids of
 * that shape; cells mapped to processes in order or at random). */
typedef struct {
    int P;
    fac_t r, c;
    int *proc, *pos;
    cs_rl_kx_t *kx;
} prob_t;

static void random_problem(prob_t *p, int rows, int cols)
{
    p->P = rows * cols;
    int density = (int)rr(1, 8);
    random_factor(rows, rows, density, rr(1, 1000), &p->r);
    random_factor(cols, cols, density, rr(1, 1000), &p->c);
    p->proc = malloc((size_t)p->P * sizeof(int));
    p->pos = malloc((size_t)p->P * sizeof(int));
    CS_TEST_ASSERT(p->proc && p->pos);
    for (int i = 0; i < p->P; i++) {
        p->proc[i] = i;
        p->pos[i] = i;
    }
    if (rr(0, 1)) {
        cs_test_shuffle(&rng_state, p->proc, p->P);
    }
    if (rr(0, 1)) {
        cs_test_shuffle(&rng_state, p->pos, p->P);
    }
    cs_rl_kron_t k = {p->P,
                      {rows, rows, p->r.n, p->r.pa, p->r.pb, p->r.w},
                      {cols, cols, p->c.n, p->c.pa, p->c.pb, p->c.w},
                      rr(1, 16), p->proc, p->pos};
    CS_TEST_EQ(cs_rl_kron_create(&k, &p->kx), CS_RL_OK);
}

static void problem_free(prob_t *p)
{
    cs_rl_kron_destroy(p->kx);
    fac_free(&p->r);
    fac_free(&p->c);
    free(p->proc);
    free(p->pos);
}

/* ------------------------------------------------------------ swaps */

/* An arbitrary objective: a hashed gain table, its column maxima. */
typedef struct {
    int P;
    int64_t *g;
} table_t;

static int64_t table_gain(const void *ctx, int k, int j)
{
    const table_t *t = ctx;
    return t->g[(int64_t)k * t->P + j];
}

/* The swaps as full passes: every process, every candidate, every pass
 * (the algorithm cs_rl_kx_swaps must reproduce). */
static void reference_swaps(int P, const cs_rl_obj_t *obj, const int *cand,
                            int ncand, int max_passes, int *perm,
                            int64_t *swaps_p)
{
    int64_t *cur = malloc((size_t)P * sizeof(*cur));
    int *at = malloc((size_t)P * sizeof(*at));
    CS_TEST_ASSERT(cur && at);
    for (int j = 0; j < P; j++) {
        at[perm[j]] = j;
        cur[j] = obj->gain(obj->ctx, perm[j], j);
    }
    int64_t swaps = 0;
    for (int pass = 0; pass < max_passes; pass++) {
        int64_t before = swaps;
        for (int b = 0; b < P; b++) {
            const int *c = cand + (int64_t)b * ncand;
            int j2 = at[b];
            for (int t = 0; t < ncand && c[t] >= 0; t++) {
                int j1 = c[t], a = perm[j1];
                if (j1 == j2) {
                    continue;
                }
                int64_t nb1 = obj->gain(obj->ctx, b, j1);
                int64_t na2 = obj->gain(obj->ctx, a, j2);
                if (nb1 + na2 > cur[j1] + cur[j2]) {
                    perm[j1] = b;
                    perm[j2] = a;
                    at[b] = j1;
                    at[a] = j2;
                    cur[j1] = nb1;
                    cur[j2] = na2;
                    j2 = j1;
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
    *swaps_p = swaps;
}

static void test_swaps(int scale)
{
    int cases = 200 * scale;
    for (int cs = 0; cs < cases; cs++) {
        int P = (int)rr(2, 300), ncand = (int)rr(1, 8);
        table_t t = {P, malloc((size_t)P * P * sizeof(int64_t))};
        int64_t *bound = calloc((size_t)P, sizeof(int64_t));
        int *cand = malloc((size_t)P * ncand * sizeof(int));
        int *p1 = malloc((size_t)P * sizeof(int));
        int *p2 = malloc((size_t)P * sizeof(int));
        CS_TEST_ASSERT(t.g && bound && cand && p1 && p2);
        /* sparse gains, so that many checks are ruled out by the bound
         * and many swaps tie */
        for (int64_t e = 0; e < (int64_t)P * P; e++) {
            t.g[e] = rr(0, 3) ? 0 : rr(0, 50);
        }
        for (int j = 0; j < P; j++) {
            for (int k = 0; k < P; k++) {
                int64_t g = t.g[(int64_t)k * P + j];
                bound[j] = g > bound[j] ? g : bound[j];
            }
        }
        for (int b = 0; b < P; b++) {
            int n = (int)rr(0, ncand);
            for (int q = 0; q < ncand; q++) {
                cand[b * ncand + q] = q < n ? (int)rr(0, P - 1) : -1;
            }
            p1[b] = b;
        }
        cs_test_shuffle(&rng_state, p1, P);
        memcpy(p2, p1, (size_t)P * sizeof(int));
        cs_rl_obj_t obj = {table_gain, &t, bound};
        int passes = (int)rr(1, 8);
        int64_t s1 = 0, s2 = 0;
        int np = 0;
        CS_TEST_EQ(cs_rl_kx_swaps(P, &obj, cand, ncand, passes, p1, &np, &s1),
                   CS_RL_OK);
        reference_swaps(P, &obj, cand, ncand, passes, p2, &s2);
        CS_TEST_CHECK(s1 == s2 && memcmp(p1, p2, (size_t)P * sizeof(int)) == 0,
                      "swaps case %d (P %d, %d candidates, %d passes): %"
                      PRId64 " swaps against the full passes' %" PRId64,
                      cs, P, ncand, passes, s1, s2);
        free(t.g);
        free(bound);
        free(cand);
        free(p1);
        free(p2);
    }
    printf("swaps: %d cases equal full passes\n", cases);
}

/* ------------------------------------------------------------ bounds */

/* A random machine over P processes: runs of consecutive processes (one
 * grid row or several), or processes scattered at random. */
static int random_nodes(int P, int *node)
{
    int kind = (int)rr(0, 2), nn = 0;
    if (kind < 2) {
        int per = (int)rr(1, P);
        for (int i = 0; i < P; i++) {
            node[i] = i / per;
        }
        nn = (P + per - 1) / per;
    } else {
        nn = (int)rr(1, P);
        for (int i = 0; i < P; i++) {
            node[i] = i < nn ? i : (int)rr(0, nn - 1);
        }
        cs_test_shuffle(&rng_state, node, P);
    }
    return nn;
}

static void test_bounds(int scale)
{
    int cases = 150 * scale;
    for (int cs = 0; cs < cases; cs++) {
        prob_t p;
        random_problem(&p, (int)rr(1, 12), (int)rr(1, 12));
        int P = p.P;
        int *node = malloc((size_t)P * sizeof(int));
        int64_t *bound = malloc((size_t)P * sizeof(int64_t));
        int64_t *nv = malloc((size_t)P * sizeof(int64_t));
        CS_TEST_ASSERT(node && bound && nv);
        int nn = random_nodes(P, node);
        cs_rl_machine_t m = {P, nn, node, 1, rr(1, 30)};
        cs_rl_parts_t pt;
        CS_TEST_EQ(cs_rl_parts_build(p.kx, &m, &pt), CS_RL_OK);
        CS_TEST_EQ(cs_rl_parts_bounds(&pt, &m, bound), CS_RL_OK);
        cs_rl_parts_free(&pt);
        for (int j = 0; j < P; j++) {
            memset(nv, 0, (size_t)nn * sizeof(int64_t));
            for (int k = 0; k < P; k++) {
                nv[node[k]] += cs_rl_kron_vol(p.kx, k, j);
            }
            for (int k = 0; k < P; k++) {
                int64_t g = m.w_rank * cs_rl_kron_vol(p.kx, k, j) +
                            (m.w_node - m.w_rank) * nv[node[k]];
                CS_TEST_CHECK(g <= bound[j],
                              "bounds case %d: gain %" PRId64 " of process "
                              "%d at %d above the bound %" PRId64,
                              cs, g, k, j, bound[j]);
            }
        }
        free(node);
        free(bound);
        free(nv);
        problem_free(&p);
    }
    printf("node bounds: %d cases hold every gain\n", cases);
}

/* ------------------------------------------------------------ inside */

static void test_inside(int scale)
{
    int cases = 150 * scale;
    for (int cs = 0; cs < cases; cs++) {
        prob_t p;
        random_problem(&p, (int)rr(1, 16), (int)rr(1, 16));
        int P = p.P, s = (int)rr(1, P < 40 ? P : 40);
        int *procs = malloc((size_t)P * sizeof(int));
        int *pos = malloc((size_t)P * sizeof(int));
        int *lp = malloc((size_t)s * sizeof(int));
        int *ex = malloc((size_t)s * sizeof(int));
        int64_t *vol = malloc((size_t)s * s * sizeof(int64_t));
        CS_TEST_ASSERT(procs && pos && lp && ex && vol);
        for (int i = 0; i < P; i++) {
            procs[i] = i;
            pos[i] = i;
        }
        cs_test_shuffle(&rng_state, procs, P);
        cs_test_shuffle(&rng_state, pos, P);
        cs_rl_inside_t w;
        CS_TEST_EQ(cs_rl_inside_init(&w, P, s), CS_RL_OK);
        int64_t got = -1;
        CS_TEST_EQ(cs_rl_kx_inside(p.kx, procs, pos, s, &w, lp, &got),
                   CS_RL_OK);
        for (int a = 0; a < s; a++) {
            for (int b = 0; b < s; b++) {
                vol[(int64_t)a * s + b] =
                    cs_rl_kron_vol(p.kx, procs[a], pos[b]);
            }
        }
        CS_TEST_EQ(cs_rl_solve_exact(s, vol, ex), CS_RL_OK);
        int64_t best = 0, kept = 0;
        int *seen = calloc((size_t)s, sizeof(int));
        CS_TEST_ASSERT(seen);
        for (int b = 0; b < s; b++) {
            best += vol[(int64_t)ex[b] * s + b];
            CS_TEST_ASSERT(lp[b] >= 0 && lp[b] < s && !seen[lp[b]]);
            seen[lp[b]] = 1;
            kept += vol[(int64_t)lp[b] * s + b];
        }
        CS_TEST_CHECK(got == best && kept == best,
                      "inside case %d (s %d of P %d): kept %" PRId64
                      " (said %" PRId64 "), exact %" PRId64,
                      cs, s, P, kept, got, best);
        /* the scratch is left clean for the next node */
        for (int j = 0; j < P; j++) {
            CS_TEST_ASSERT(w.loc[j] == -1);
        }
        free(seen);
        cs_rl_inside_free(&w);
        free(procs);
        free(pos);
        free(lp);
        free(ex);
        free(vol);
        problem_free(&p);
    }
    printf("inside: %d cases keep the exact optimum\n", cases);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    if (scale < 1) {
        scale = 1;
    }
    test_swaps(scale);
    test_bounds(scale);
    test_inside(scale);
    return cs_test_done();
}
