/*
 * test_apps/unit/test_relabel_plan_terms.c - a relabeling plan whose
 * pairs are factored terms (relabel_kron.h, cs_rl_term_pack) against the
 * same plan with the pairs as matrices, on random problems of two or
 * three grids (terms from random factors, one or two per pair, grids read
 * transposed or not, ranks of one grid among the other's or not, on one
 * node or several):
 * 1. cs_rl_pair_total, _kept and _across of a factored pair equal the
 *    matrix's, under random maps;
 * 2. the plan of the factored problem is a relabeling of each grid over
 *    its own ranks, its saved bytes (and with nodes net_app, net_plan)
 *    equal those of its maps evaluated on the matrices, and it never
 *    costs more than the application's maps;
 * 3. between two grids of the same ranks (one or two terms, the grid
 *    relabeled the target or the source), the factored plan saves at
 *    least 95 % of what the exact (matrix) plan saves on the median of
 *    the sweep (the median and the worst printed);
 * 4. malformed terms are refused (the problem marked incomplete).
 *
 * Deterministic (fixed seed; argv[1] scales the number of cases).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"
#include "relabel/relabel.h"
#include "relabel/relabel_kron.h"

static uint64_t rng_state = 0xD1B54A32D192ED03ULL;

static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

/* ------------------------------------------------------------ terms */

/* A random factor of na x nb (entries sorted by (pa, pb)). */
typedef struct {
    int pa[4096], pb[4096];
    int64_t w[4096];
    cs_rl_factor_t f;
} rfac_t;

static void random_factor(rfac_t *x, int na, int nb)
{
    int64_t n = 0, dens = rr(1, 8);
    for (int a = 0; a < na; a++) {
        for (int b = 0; b < nb; b++) {
            if (rr(0, 7) < dens && n < 4096) {
                x->pa[n] = a;
                x->pb[n] = b;
                x->w[n++] = rr(1, 200);
            }
        }
    }
    x->f = (cs_rl_factor_t){na, nb, n, x->pa, x->pb, x->w};
}

/* Entry (a, b) of a factor. */
static int64_t fac_at(const cs_rl_factor_t *f, int a, int b)
{
    for (int64_t e = 0; e < f->n; e++) {
        if (f->pa[e] == a && f->pb[e] == b) {
            return f->w[e];
        }
    }
    return 0;
}

/* A pair from grid A (p x q) to grid B: nt terms, as words and as the
 * matrix they stand for. */
typedef struct {
    int64_t *fw, nfw;
    int64_t *v;
} rpair_t;

static void random_pair(rpair_t *rp, int ap, int aq, int bp, int bq, int nt)
{
    int pa = ap * aq, pb = bp * bq;
    rp->v = calloc((size_t)pa * pb, sizeof(int64_t));
    rp->fw = NULL;
    rp->nfw = 0;
    CS_TEST_ASSERT(rp->v);
    for (int t = 0; t < nt; t++) {
        int tr = (int)rr(0, 1);
        int rna = tr ? aq : ap, cna = tr ? ap : aq;
        static rfac_t r, c;
        random_factor(&r, rna, bp);
        random_factor(&c, cna, bq);
        int64_t calls = rr(1, 5), scale = rr(1, 16);
        int64_t n = cs_rl_term_words(&r.f, &c.f);
        rp->fw = realloc(rp->fw, (size_t)(rp->nfw + n) * sizeof(int64_t));
        CS_TEST_ASSERT(rp->fw);
        cs_rl_term_pack(rp->fw + rp->nfw, calls, scale, tr, &r.f, &c.f);
        rp->nfw += n;
        for (int x = 0; x < rna; x++) {
            for (int y = 0; y < cna; y++) {
                int a = tr ? y * rna + x : x * cna + y;
                for (int u = 0; u < bp; u++) {
                    int64_t rv = fac_at(&r.f, x, u);
                    for (int v = 0; rv && v < bq; v++) {
                        rp->v[(int64_t)a * pb + u * bq + v] +=
                            calls * scale * rv * fac_at(&c.f, y, v);
                    }
                }
            }
        }
    }
}

/* ------------------------------------------------------------ problems */

typedef struct {
    int ng, nworld;
    int p[3], q[3];
    int *map[3];
    int np;
    int ga[3], gb[3];
    rpair_t pr[3];
    int *node;
    int nnodes;
    int64_t w_node;     /* the weight of a byte across nodes (w_rank 1) */
} rprob_t;

static void random_problem(rprob_t *x, int nodes)
{
    memset(x, 0, sizeof(*x));
    x->ng = (int)rr(2, 3);
    int maxn = 0, two = rr(0, 2) == 0; /* two grids of the same ranks */
    for (int g = 0; g < x->ng; g++) {
        x->p[g] = (int)rr(1, 6);
        x->q[g] = (int)rr(1, 6);
        if (two && g == 1) {
            x->p[1] = rr(0, 1) ? x->p[0] : x->q[0];
            x->q[1] = x->p[0] * x->q[0] / x->p[1];
        }
        maxn = x->p[g] * x->q[g] > maxn ? x->p[g] * x->q[g] : maxn;
    }
    x->ng = two ? 2 : x->ng;
    /* the same ranks for all grids most of the time, else more ranks */
    x->nworld = rr(0, 3) || two ? maxn : maxn + (int)rr(1, 8);
    int *all = malloc((size_t)x->nworld * sizeof(int));
    CS_TEST_ASSERT(all);
    for (int g = 0; g < x->ng; g++) {
        int n = x->p[g] * x->q[g];
        for (int i = 0; i < x->nworld; i++) {
            all[i] = i;
        }
        if (rr(0, 1)) {
            cs_test_shuffle(&rng_state, all, x->nworld);
        }
        x->map[g] = malloc((size_t)n * sizeof(int));
        CS_TEST_ASSERT(x->map[g]);
        memcpy(x->map[g], all, (size_t)n * sizeof(int));
        cs_test_shuffle(&rng_state, x->map[g], n);
    }
    free(all);
    x->np = x->ng == 2 ? 1 : (int)rr(2, 3);
    for (int k = 0; k < x->np; k++) {
        /* distinct ordered pairs of grids (the matrices of one pair of
         * grids would be summed, the terms not: compare pair by pair) */
        int a = 0, b = 1, dup = 1;
        if (k == 0 && rr(0, 1)) { /* g the target or the source */
            a = 1;
            b = 0;
        }
        while (k > 0 && dup) {
            a = (int)rr(0, x->ng - 1);
            b = (int)rr(0, x->ng - 2);
            b += b >= a;
            dup = 0;
            for (int q = 0; q < k; q++) {
                dup |= x->ga[q] == a && x->gb[q] == b;
            }
        }
        x->ga[k] = a;
        x->gb[k] = b;
        random_pair(&x->pr[k], x->p[a], x->q[a], x->p[b], x->q[b],
                    (int)rr(1, 2));
    }
    x->node = NULL;
    if (nodes) {
        x->nnodes = (int)rr(2, 4);
        x->w_node = rr(2, 20);
        x->node = malloc((size_t)x->nworld * sizeof(int));
        CS_TEST_ASSERT(x->node);
        for (int r = 0; r < x->nworld; r++) {
            x->node[r] = r < x->nnodes ? r : (int)rr(0, x->nnodes - 1);
        }
    }
}

static void problem_release(rprob_t *x)
{
    for (int g = 0; g < x->ng; g++) {
        free(x->map[g]);
    }
    for (int k = 0; k < x->np; k++) {
        free(x->pr[k].fw);
        free(x->pr[k].v);
    }
    free(x->node);
}

/* The relabel problem of x: its pairs as matrices or as terms. */
static void build(const rprob_t *x, int terms, cs_rl_problem_t *pb)
{
    memset(pb, 0, sizeof(*pb));
    pb->world = 1;
    pb->nworld = x->nworld;
    pb->g = calloc(3, sizeof(*pb->g));
    pb->pr = calloc(3, sizeof(*pb->pr));
    CS_TEST_ASSERT(pb->g && pb->pr);
    for (int g = 0; g < x->ng; g++) {
        CS_TEST_EQ(cs_rl_problem_add_grid(pb, g + 1, 0, x->p[g], x->q[g],
                                          'R', x->map[g], NULL),
                   CS_RL_OK);
    }
    for (int k = 0; k < x->np; k++) {
        int a = x->ga[k], b = x->gb[k];
        pb->pr[k] = (cs_rl_pair_t){.sa = a + 1, .oa = 0, .sb = b + 1,
                                   .ob = 0, .pa = x->p[a] * x->q[a],
                                   .pb = x->p[b] * x->q[b], .calls = 1,
                                   .v = terms ? NULL : x->pr[k].v,
                                   .fw = terms ? x->pr[k].fw : NULL,
                                   .nfw = terms ? x->pr[k].nfw : 0};
    }
    pb->npairs = x->np;
    if (x->node) {
        pb->node = malloc((size_t)x->nworld * sizeof(int));
        CS_TEST_ASSERT(pb->node);
        memcpy(pb->node, x->node, (size_t)x->nworld * sizeof(int));
        pb->nnodes = x->nnodes;
        pb->w_rank = 1;
        pb->w_node = x->w_node;
    }
    cs_rl_problem_order(pb);
}

/* The dense problem's cost of maps m (one per grid): bytes leaving their
 * process, or the weighted cost with nodes. */
static int64_t cost_of(const cs_rl_problem_t *dense, int **m, int *pos)
{
    int64_t cost = 0;
    int sat = 0;
    for (int k = 0; k < dense->npairs; k++) {
        const cs_rl_pair_t *p = &dense->pr[k];
        int64_t out = cs_rl_pair_total(p, &sat) -
                      cs_rl_pair_kept(p, m[p->ga], m[p->gb], pos,
                                      dense->nworld);
        if (dense->node) {
            int64_t ac = cs_rl_pair_across(p, m[p->ga], m[p->gb],
                                           dense->node, dense->nworld);
            out = dense->w_rank * (out - ac) + dense->w_node * ac;
        }
        cost += out;
    }
    return cost;
}

static int is_relabeling(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++) {
        int found = 0;
        for (int j = 0; j < n; j++) {
            found |= a[i] == b[j];
        }
        if (!found) {
            return 0;
        }
    }
    return 1;
}

static int dcmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void test_plans(int scale)
{
    int cases = 300 * scale, nr = 0;
    double *ratio = malloc((size_t)cases * sizeof(double));
    CS_TEST_ASSERT(ratio);
    for (int cs = 0; cs < cases; cs++) {
        rprob_t x;
        random_problem(&x, (int)rr(0, 1));
        cs_rl_problem_t pd, pf;
        build(&x, 0, &pd);
        build(&x, 1, &pf);
        CS_TEST_EQ(pf.incomplete, 0);
        int *pos = malloc((size_t)x.nworld * sizeof(int));
        CS_TEST_ASSERT(pos);
        for (int r = 0; r < x.nworld; r++) {
            pos[r] = -1;
        }
        /* 1. the factored evaluation is the matrix's */
        for (int k = 0; k < pf.npairs; k++) {
            const cs_rl_pair_t *f = &pf.pr[k], *d = &pd.pr[k];
            int sat = 0;
            CS_TEST_EQ(cs_rl_pair_total(f, &sat), cs_rl_pair_total(d, &sat));
            int *ma = pf.g[f->ga].map, *mb = pf.g[f->gb].map;
            CS_TEST_EQ(cs_rl_pair_kept(f, ma, mb, pos, x.nworld),
                       cs_rl_pair_kept(d, ma, mb, pos, x.nworld));
            if (x.node) {
                CS_TEST_EQ(cs_rl_pair_across(f, ma, mb, x.node, x.nworld),
                           cs_rl_pair_across(d, ma, mb, x.node, x.nworld));
            }
        }
        /* 2. the factored plan, evaluated on the matrices */
        cs_rl_plan_t plf, pld;
        CS_TEST_EQ(cs_rl_plan_solve(&pf, &plf), CS_RL_OK);
        CS_TEST_EQ(cs_rl_plan_solve(&pd, &pld), CS_RL_OK);
        int *app[3];
        for (int g = 0; g < x.ng; g++) {
            int n = x.p[g] * x.q[g];
            app[g] = pd.g[g].map;
            CS_TEST_CHECK(is_relabeling(plf.map[g], app[g], n),
                          "case %d: grid %d's plan is not a relabeling", cs,
                          g);
        }
        for (int k = 0; k < pf.npairs; k++) {
            const cs_rl_pair_t *f = &pf.pr[k], *d = &pd.pr[k];
            int *ma = plf.map[f->ga], *mb = plf.map[f->gb];
            CS_TEST_EQ(cs_rl_pair_kept(f, ma, mb, pos, x.nworld),
                       cs_rl_pair_kept(d, ma, mb, pos, x.nworld));
            if (x.node) {
                CS_TEST_EQ(cs_rl_pair_across(f, ma, mb, x.node, x.nworld),
                           cs_rl_pair_across(d, ma, mb, x.node, x.nworld));
            }
        }
        int64_t c_app = cost_of(&pd, app, pos);
        int64_t c_f = cost_of(&pd, plf.map, pos);
        int64_t c_d = cost_of(&pd, pld.map, pos);
        CS_TEST_CHECK(c_f <= c_app, "case %d: the factored plan costs %"
                      PRId64 " against the application's %" PRId64, cs, c_f,
                      c_app);
        int64_t saved = 0;
        for (int k = 0; k < pd.npairs; k++) {
            const cs_rl_pair_t *d = &pd.pr[k];
            saved += cs_rl_pair_kept(d, plf.map[d->ga], plf.map[d->gb], pos,
                                     x.nworld) -
                     cs_rl_pair_kept(d, app[d->ga], app[d->gb], pos,
                                     x.nworld);
        }
        CS_TEST_EQ(plf.saved, saved);
        CS_TEST_EQ(plf.net_app, pld.net_app);
        if (x.node) {
            int64_t net = 0;
            for (int k = 0; k < pd.npairs; k++) {
                const cs_rl_pair_t *d = &pd.pr[k];
                net += cs_rl_pair_across(d, plf.map[d->ga], plf.map[d->gb],
                                         x.node, x.nworld);
            }
            CS_TEST_EQ(plf.net_plan, net);
        }
        /* 3. one term, two grids of the same ranks, no nodes */
        int same = x.ng == 2 && x.nworld == x.p[0] * x.q[0] &&
                   x.nworld == x.p[1] * x.q[1] && !x.node;
        if (same && c_app > c_d) {
            ratio[nr++] = (double)(c_app - c_f) / (double)(c_app - c_d);
        }
        cs_rl_plan_free(&plf);
        cs_rl_plan_free(&pld);
        free(pos);
        cs_rl_problem_free(&pd);
        cs_rl_problem_free(&pf);
        problem_release(&x);
    }
    qsort(ratio, (size_t)nr, sizeof(double), dcmp);
    double med = nr ? ratio[nr / 2] : 1.0, worst = nr ? ratio[0] : 1.0;
    int64_t sum = 0;
    for (int i = 0; i < nr; i++) {
        sum += ratio[i] >= 0.9999;
    }
    printf("plans: %d cases; factored saves as the matrices say; on %d "
           "two-grid cases of the same ranks %" PRId64 " as much as the "
           "exact plan, median %.4f, worst %.4f of its saving\n",
           cases, nr, sum, med, worst);
    CS_TEST_CHECK(med >= 0.95, "median saving ratio %.4f below 0.95", med);
    free(ratio);
}

/* ------------------------------------------------------------ malformed */

static void test_malformed(void)
{
    static rfac_t r, c;
    do {
        random_factor(&r, 2, 2);
        random_factor(&c, 3, 3);
    } while (r.f.n == 0 || c.f.n == 0);
    int64_t n = cs_rl_term_words(&r.f, &c.f);
    int64_t *w = malloc((size_t)n * sizeof(int64_t));
    CS_TEST_ASSERT(w);
    int map[6] = {0, 1, 2, 3, 4, 5};
    /* each corruption: a word and the value written there */
    const int64_t bad[][2] = {{2, 7}, {1, 0}, {3, 0}, {5, 1 << 20},
                              {0, -1}, {9 + r.f.n - 1, 9},
                              {9 + 2 * r.f.n, 0}};
    for (int t = 0; t < 8; t++) {
        cs_rl_term_pack(w, 1, 8, 0, &r.f, &c.f);
        if (t < 7) {
            w[bad[t][0]] = bad[t][1];
        }
        cs_rl_problem_t pb = {.world = 1, .nworld = 6};
        pb.g = calloc(2, sizeof(*pb.g));
        pb.pr = calloc(1, sizeof(*pb.pr));
        CS_TEST_ASSERT(pb.g && pb.pr);
        CS_TEST_EQ(cs_rl_problem_add_grid(&pb, 1, 0, 2, 3, 'R', map, NULL),
                   CS_RL_OK);
        CS_TEST_EQ(cs_rl_problem_add_grid(&pb, 2, 0, 2, 3, 'R', map, NULL),
                   CS_RL_OK);
        pb.pr[0] = (cs_rl_pair_t){.sa = 1, .sb = 2, .pa = 6, .pb = 6,
                                  .calls = 1, .fw = w, .nfw = n};
        pb.npairs = 1;
        cs_rl_problem_order(&pb);
        /* the intact term (t == 7) is kept, every corrupted one refused */
        CS_TEST_CHECK(pb.incomplete == (t < 7) && pb.npairs == (t == 7),
                      "corruption %d: incomplete %d, %d pairs", t,
                      pb.incomplete, pb.npairs);
        cs_rl_problem_free(&pb);
    }
    free(w);
    printf("malformed terms: 7 corruptions refused\n");
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    scale = scale < 1 ? 1 : scale;
    test_plans(scale);
    test_malformed();
    return cs_test_done();
}
