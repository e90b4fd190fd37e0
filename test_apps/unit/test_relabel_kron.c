/*
 * test_apps/unit/test_relabel_kron.c - unit tests of the factored volume
 * (engine cs_eng_volume_factors) and of the relabeling solvers that use
 * it (relabel/relabel_kron.h); no MPI calls.
 *
 * 1. Factors against the direct count: on random block-cyclic layout
 *    pairs (first blocks, source coordinates, sub-matrix offsets, 1 x P
 *    and P x 1 grids, transposes, grids in row, column or random rank
 *    order, block sizes that do not divide each other) the products of
 *    the factors equal cs_eng_volume_matrix() entry by entry, and the
 *    indexed problem (cs_rl_kron_sparse, row and column sums, nonzeros)
 *    holds the same matrix.  Masked operations and grids that name a
 *    rank twice are refused.
 * 2. The plain solver against the exact one over a sweep of P <= 1,024
 *    (grid shapes equal and not, block sizes, offsets, grid orders):
 *    it returns a permutation, keeps its reported bytes, never more than
 *    the optimum and never less than the identity; the worst and median
 *    ratio of crossing bytes to the optimum's are printed, the worst is
 *    bounded and the median must be 1 (docs/relabel.md quotes them);
 *    where the grids have one shape it keeps at least the best product
 *    relabeling (exact assignments on the factors, done here apart).
 * 3. The split (kept, inside nodes, across) and the per-process flows of
 *    random relabelings on random machines (consecutive ranks per node
 *    or random nodes) against cs_rl_split() and cs_rl_sparse_flows(),
 *    which count over the entries of the whole matrix.
 * 4. The node-aware solver against the exact node-aware one
 *    (cs_rl_solve_nodes) over a sweep alike, random machines and
 *    weights: a permutation, never costing less than the optimum nor
 *    more than the identity or the plain relabeling; worst and median
 *    ratio of costs printed, the worst bounded.
 * Deterministic (fixed seed; argv[1] scales the number of cases).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_test.h"
#include "engine/engine.h"
#include "relabel/relabel_kron.h"

static uint64_t rng_state = 0x3C6EF372FE94F82BULL;

static int64_t rr(int64_t lo, int64_t hi)
{
    return cs_test_rr(&rng_state, lo, hi);
}

/* ------------------------------------------------------------ layouts */

typedef struct {
    int np, nq;
    int64_t mb, nb;
    int *grid;
    cs_eng_layout_t lay;
} lay_t;

/* A block-cyclic layout of an M x N matrix on an np x nq grid of ranks in
 * [0, nranks): order 0 row-major, 1 column-major, 2 a random map. */
static void make_layout(lay_t *l, int64_t M, int64_t N, int np, int nq,
                        int64_t mb, int64_t nb, int order, int nranks,
                        int varied)
{
    int P = np * nq;
    int *map = malloc((size_t)nranks * sizeof(int));
    l->grid = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(map && l->grid);
    for (int i = 0; i < nranks; i++) {
        map[i] = i;
    }
    if (order == 2) {
        cs_test_shuffle(&rng_state, map, nranks);
    }
    for (int r = 0; r < np; r++) {
        for (int c = 0; c < nq; c++) {
            int k = order == 1 ? c * np + r : r * nq + c;
            l->grid[r * nq + c] = map[k];
        }
    }
    free(map);
    l->np = np;
    l->nq = nq;
    l->mb = mb;
    l->nb = nb;
    int64_t fr = varied && rr(0, 1) ? rr(1, mb) : mb;
    int64_t fc = varied && rr(0, 1) ? rr(1, nb) : nb;
    int rs = varied ? (int)rr(0, np - 1) : 0;
    int cs = varied ? (int)rr(0, nq - 1) : 0;
    memset(&l->lay, 0, sizeof(l->lay));
    CS_TEST_EQ(cs_eng_dist_cyclic(M, mb, fr, rs, np, &l->lay.rows), CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(N, nb, fc, cs, nq, &l->lay.cols), CS_OK);
    l->lay.nprow = np;
    l->lay.npcol = nq;
    l->lay.grid = l->grid;
    l->lay.ld = 1;
    l->lay.order = CS_ENG_COLMAJOR;
}

/* A random grid shape of at most maxp processes: 1 x P and P x 1 often. */
static void random_shape(int maxp, int *np, int *nq)
{
    int kind = (int)rr(0, 3);
    int p = (int)rr(1, maxp);
    if (kind == 0) {
        *np = 1;
        *nq = p;
    } else if (kind == 1) {
        *np = p;
        *nq = 1;
    } else {
        *np = (int)rr(1, maxp < 32 ? maxp : 32);
        *nq = (int)rr(1, maxp / *np);
    }
}

/* The indexed problem of (a, b, op) over nranks, or NULL if the grids do
 * not give one; f gets the factors (free after the problem). */
static cs_rl_kx_t *kron_of(const lay_t *a, const lay_t *b,
                           const cs_eng_op_t *op, int nranks,
                           cs_eng_factors_t *f)
{
    CS_TEST_EQ(cs_eng_volume_factors(&a->lay, &b->lay, op, f), CS_OK);
    int *proc = malloc((size_t)(a->np * a->nq) * sizeof(int));
    int *pos = malloc((size_t)(b->np * b->nq) * sizeof(int));
    CS_TEST_ASSERT(proc && pos);
    cs_rl_kx_t *kx = NULL;
    if (cs_eng_factors_ranks(&a->lay, &b->lay, f, nranks, proc, pos) ==
        CS_OK) {
        cs_rl_kron_t k = {nranks,
                          {f->rows.na, f->rows.nb, f->rows.n, f->rows.pa,
                           f->rows.pb, f->rows.count},
                          {f->cols.na, f->cols.nb, f->cols.n, f->cols.pa,
                           f->cols.pb, f->cols.count},
                          f->esize, proc, pos};
        CS_TEST_EQ(cs_rl_kron_create(&k, &kx), CS_RL_OK);
    }
    free(proc);
    free(pos);
    return kx;
}

/* ------------------------------------------------------------ 1 */

static void check_factors(const lay_t *a, const lay_t *b,
                          const cs_eng_op_t *op, int nranks, int c)
{
    size_t pp = (size_t)nranks * (size_t)nranks;
    int64_t *ref = calloc(pp, sizeof(int64_t));
    int64_t *got = calloc(pp, sizeof(int64_t));
    CS_TEST_ASSERT(ref && got);
    CS_TEST_EQ(cs_eng_volume_matrix(&a->lay, &b->lay, op, nranks, ref),
               CS_OK);
    cs_eng_factors_t f;
    cs_rl_kx_t *kx = kron_of(a, b, op, nranks, &f);
    CS_TEST_ASSERT(kx);
    /* every cell pair through the grids, as the factors say */
    int tr = op->trans;
    for (int x = 0; x < f.rows.na; x++) {
        for (int y = 0; y < f.cols.na; y++) {
            int i = tr ? a->grid[y * a->nq + x] : a->grid[x * a->nq + y];
            for (int u = 0; u < f.rows.nb; u++) {
                for (int v = 0; v < f.cols.nb; v++) {
                    int j = b->grid[u * b->nq + v];
                    got[(int64_t)i * nranks + j] +=
                        cs_eng_factor_cells(&f, x, y, u, v);
                }
            }
        }
    }
    int bad = 0;
    for (size_t k = 0; k < pp; k++) {
        bad += got[k] != ref[k];
        bad += cs_rl_kron_vol(kx, (int)(k / (size_t)nranks),
                              (int)(k % (size_t)nranks)) != ref[k];
    }
    CS_TEST_CHECK(bad == 0, "case %d: %d entries differ", c, bad);
    /* the indexed problem's whole matrix, sums and nonzeros */
    cs_rl_sparse_t sv;
    CS_TEST_EQ(cs_rl_sparse_init(&sv, nranks), CS_RL_OK);
    CS_TEST_EQ(cs_rl_kron_sparse(kx, &sv), CS_RL_OK);
    CS_TEST_EQ(cs_rl_sparse_finish(&sv), CS_RL_OK);
    memset(got, 0, pp * sizeof(int64_t));
    for (int64_t e = 0; e < sv.nnz; e++) {
        got[(int64_t)sv.src[e] * nranks + sv.dst[e]] += sv.bytes[e];
    }
    CS_TEST_ASSERT(memcmp(got, ref, pp * sizeof(int64_t)) == 0);
    int64_t nnz = 0, total = 0;
    for (int i = 0; i < nranks; i++) {
        int64_t rs = 0, cs = 0, rn = 0, cn = 0;
        for (int j = 0; j < nranks; j++) {
            int64_t x = ref[(int64_t)i * nranks + j];
            int64_t y = ref[(int64_t)j * nranks + i];
            rs += x;
            cs += y;
            rn += x > 0;
            cn += y > 0;
        }
        CS_TEST_EQ(cs_rl_kron_row_bytes(kx, i), rs);
        CS_TEST_EQ(cs_rl_kron_col_bytes(kx, i), cs);
        CS_TEST_EQ(cs_rl_kron_row_nnz(kx, i), rn);
        CS_TEST_EQ(cs_rl_kron_col_nnz(kx, i), cn);
        nnz += rn;
        total += rs;
    }
    CS_TEST_EQ(cs_rl_kron_nnz(kx), nnz);
    CS_TEST_EQ(cs_rl_kron_total(kx), total);
    CS_TEST_EQ(sv.nnz, nnz);
    cs_rl_sparse_free(&sv);
    cs_rl_kron_destroy(kx);
    cs_eng_factors_free(&f);
    free(ref);
    free(got);
}

static void test_factors(int scale)
{
    int n = 0;
    for (int c = 0; c < 300 * scale; c++) {
        int np, nq, mp, mq;
        random_shape(24, &np, &nq);
        random_shape(24, &mp, &mq);
        int pa = np * nq, pb = mp * mq;
        int nranks = (pa > pb ? pa : pb) + (int)rr(0, 2);
        cs_eng_op_t op = {.esize = (size_t)(1 << rr(0, 4))};
        op.trans = rr(0, 3) == 0;
        int64_t MA = rr(1, 120), NA = rr(1, 120), MB = rr(1, 120),
                NB = rr(1, 120);
        int64_t am = op.trans ? NA : MA, an = op.trans ? MA : NA;
        op.m = rr(0, am < MB ? am : MB);
        op.n = rr(0, an < NB ? an : NB);
        op.ib = rr(0, MB - op.m);
        op.jb = rr(0, NB - op.n);
        op.ia = rr(0, MA - (op.trans ? op.n : op.m));
        op.ja = rr(0, NA - (op.trans ? op.m : op.n));
        lay_t a, b;
        make_layout(&a, MA, NA, np, nq, rr(1, 13), rr(1, 13), (int)rr(0, 2),
                    nranks, 1);
        make_layout(&b, MB, NB, mp, mq, rr(1, 13), rr(1, 13), (int)rr(0, 2),
                    nranks, 1);
        check_factors(&a, &b, &op, nranks, c);
        free(a.grid);
        free(b.grid);
        n++;
    }
    /* what has no factors, or no single product per rank pair */
    lay_t a, b;
    make_layout(&a, 40, 40, 2, 2, 3, 5, 0, 4, 0);
    make_layout(&b, 40, 40, 2, 2, 7, 2, 1, 4, 0);
    cs_eng_op_t op = {.m = 40, .n = 40, .esize = 8,
                      .mask = CS_ENG_MASK_LOWER};
    cs_eng_factors_t f;
    CS_TEST_EQ(cs_eng_volume_factors(&a.lay, &b.lay, &op, &f),
               CS_ERR_UNSUPPORTED);
    op.mask = CS_ENG_MASK_NONE;
    CS_TEST_EQ(cs_eng_volume_factors(&a.lay, &b.lay, &op, &f), CS_OK);
    int proc[4], pos[4];
    a.grid[3] = a.grid[0]; /* a rank in two cells */
    CS_TEST_EQ(cs_eng_factors_ranks(&a.lay, &b.lay, &f, 4, proc, pos),
               CS_ERR_UNSUPPORTED);
    a.grid[3] = 4; /* outside [0, nranks) */
    CS_TEST_EQ(cs_eng_factors_ranks(&a.lay, &b.lay, &f, 4, proc, pos),
               CS_ERR_UNSUPPORTED);
    cs_eng_factors_free(&f);
    free(a.grid);
    free(b.grid);
    printf("factors: %d layout pairs equal the direct count\n", n);
}

/* ------------------------------------------------------------ 2 */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Kept bytes of perm counted on the dense matrix. */
static int64_t kept_dense(int P, const int64_t *vol, const int *perm)
{
    int64_t k = 0;
    for (int j = 0; j < P; j++) {
        k += vol[(int64_t)perm[j] * P + j];
    }
    return k;
}

/* The best assignment's kept entries of one square factor, by the exact
 * solver on its dense table (-1 if it is not square). */
static int64_t factor_best(const cs_eng_factor_t *fa)
{
    if (fa->na != fa->nb) {
        return -1;
    }
    int n = fa->na;
    int64_t *d = calloc((size_t)n * (size_t)n, sizeof(int64_t));
    int *sg = malloc((size_t)n * sizeof(int));
    CS_TEST_ASSERT(d && sg);
    for (int64_t k = 0; k < fa->n; k++) {
        d[(int64_t)fa->pa[k] * n + fa->pb[k]] = fa->count[k];
    }
    CS_TEST_EQ(cs_rl_solve_exact(n, d, sg), CS_RL_OK);
    int64_t kept = 0;
    for (int u = 0; u < n; u++) {
        kept += d[(int64_t)sg[u] * n + u];
    }
    free(d);
    free(sg);
    return kept;
}

/*
 * Case c of a sweep: grids of at most 256 processes (1024 every tenth
 * case), of the same shape half the time; 50-400 rows and columns per
 * grid row and column, sub-matrices at random offsets, blocks of 1-80,
 * grids in row, column or random order, first blocks and sources
 * varied half the time.  Returns P, the larger grid.
 */
static int sweep_case(int c, lay_t *a, lay_t *b, cs_eng_op_t *op)
{
    int np, nq, mp, mq;
    int maxp = c % 10 == 0 ? 1024 : 256;
    random_shape(maxp, &np, &nq);
    if (rr(0, 1)) {
        mp = np;
        mq = nq;
    } else {
        random_shape(maxp, &mp, &mq);
    }
    int pa = np * nq, pb = mp * mq, P = pa > pb ? pa : pb;
    int64_t per = rr(50, 400);
    int64_t M = per * (np > mp ? np : mp), N = per * (nq > mq ? nq : mq);
    memset(op, 0, sizeof(*op));
    op->m = M - rr(0, M / 4);
    op->n = N - rr(0, N / 4);
    op->esize = 8;
    op->ia = rr(0, M - op->m);
    op->ja = rr(0, N - op->n);
    op->ib = rr(0, M - op->m);
    op->jb = rr(0, N - op->n);
    make_layout(a, M, N, np, nq, rr(1, 80), rr(1, 80), (int)rr(0, 2), P,
                rr(0, 1));
    make_layout(b, M, N, mp, mq, rr(1, 80), rr(1, 80), (int)rr(0, 2), P,
                rr(0, 1));
    return P;
}

/* The worst ratio of crossing bytes to the optimum's the sweep accepts
 * (docs/relabel.md gives what it measures). */
#define KRON_WORST_RATIO 1.10

/* The ratios a sweep met. */
typedef struct {
    double *ratio;
    int n;
    int64_t nopt;
} ratios_t;

static void ratios_init(ratios_t *r, int ncase)
{
    r->ratio = malloc((size_t)ncase * sizeof(double));
    CS_TEST_ASSERT(r->ratio);
    r->n = 0;
    r->nopt = 0;
}

/* Record got against the optimum opt (crossing bytes or costs); returns
 * the ratio. */
static double ratios_add(ratios_t *r, int64_t got, int64_t opt)
{
    double x = opt > 0 ? (double)got / (double)opt : (got == opt ? 1.0 : 1e9);
    r->ratio[r->n++] = x;
    r->nopt += got == opt;
    return x;
}

/* Print the summary line; returns the median. */
static double ratios_done(ratios_t *r, const char *what, const char *of)
{
    qsort(r->ratio, (size_t)r->n, sizeof(double), cmp_double);
    double med = r->ratio[r->n / 2];
    printf("%s sweep: %d cases P <= 1024, optimal in %" PRId64 ", %s / "
           "optimum: median %.4f, worst %.4f\n",
           what, r->n, r->nopt, of, med, r->ratio[r->n - 1]);
    free(r->ratio);
    return med;
}

static void test_sweep(int scale)
{
    int ncase = 120 * scale;
    ratios_t rs;
    ratios_init(&rs, ncase);
    for (int c = 0; c < ncase; c++) {
        /* half the cases on grids of the same shape, big ones too */
        lay_t a, b;
        cs_eng_op_t op;
        int P = sweep_case(c, &a, &b, &op);
        int64_t *vol = calloc((size_t)P * (size_t)P, sizeof(int64_t));
        int *pe = malloc((size_t)P * sizeof(int));
        int *pk = malloc((size_t)P * sizeof(int));
        CS_TEST_ASSERT(vol && pe && pk);
        CS_TEST_EQ(cs_eng_volume_matrix(&a.lay, &b.lay, &op, P, vol), CS_OK);
        CS_TEST_EQ(cs_rl_solve_exact(P, vol, pe), CS_RL_OK);
        cs_eng_factors_t f;
        cs_rl_kx_t *kx = kron_of(&a, &b, &op, P, &f);
        CS_TEST_ASSERT(kx);
        cs_rl_kron_info_t in;
        CS_TEST_EQ(cs_rl_kron_solve(kx, pk, &in), CS_RL_OK);
        CS_TEST_ASSERT(cs_rl_perm_check(P, pk));
        int64_t total = cs_rl_kron_total(kx), ke = kept_dense(P, vol, pe),
                kk = kept_dense(P, vol, pk), kid = cs_rl_kron_kept(kx, NULL);
        CS_TEST_EQ(kk, in.kept);
        /* grids of one shape: at least the best product relabeling */
        int64_t br = factor_best(&f.rows), bc = factor_best(&f.cols);
        CS_TEST_CHECK(br < 0 || bc < 0 || kk >= br * bc * f.esize,
                      "case %d: kept %" PRId64 " < best product %" PRId64,
                      c, kk, br * bc * f.esize);
        CS_TEST_EQ(kk, cs_rl_kron_kept(kx, pk));
        CS_TEST_ASSERT(kk <= ke && kk >= kid && in.start_kept <= kk);
        double x = ratios_add(&rs, total - kk, total - ke);
        CS_TEST_CHECK(x <= KRON_WORST_RATIO,
                      "case %d: %dx%d:%" PRId64 "x%" PRId64 " -> %dx%d:%"
                      PRId64 "x%" PRId64 ", crossing %.4f x the optimum",
                      c, a.np, a.nq, a.mb, a.nb, b.np, b.nq, b.mb, b.nb, x);
        cs_rl_kron_destroy(kx);
        cs_eng_factors_free(&f);
        free(vol);
        free(pe);
        free(pk);
        free(a.grid);
        free(b.grid);
    }
    double med = ratios_done(&rs, "plain", "crossing");
    CS_TEST_CHECK(med == 1.0, "median %.4f: optimal in fewer than half "
                  "the cases", med);
}

/* ------------------------------------------------------------ 3 */

/* A random machine over P processes: consecutive ranks per node, or a
 * random node of each. */
static int *random_nodes(int P, int *nnodes_p, int *rpn_p)
{
    int *node = malloc((size_t)P * sizeof(int));
    CS_TEST_ASSERT(node);
    static const int rpns[] = {1, 2, 3, 4, 8, 16, 64};
    int rpn = rpns[rr(0, 6)], random = rr(0, 3) == 0;
    int nn = (P + rpn - 1) / rpn;
    for (int i = 0; i < P; i++) {
        node[i] = random ? (int)rr(0, nn - 1) : i / rpn;
    }
    *nnodes_p = nn;
    *rpn_p = random ? -rpn : rpn;
    return node;
}

static int split_eq(const cs_rl_split_t *a, const cs_rl_split_t *b)
{
    return a->kept == b->kept && a->in_node == b->in_node &&
           a->across == b->across && a->cost == b->cost;
}

static void test_split_flows(int scale)
{
    for (int c = 0; c < 150 * scale; c++) {
        int np, nq, mp, mq;
        random_shape(40, &np, &nq);
        random_shape(40, &mp, &mq);
        int pa = np * nq, pb = mp * mq, P = (pa > pb ? pa : pb) +
                                          (int)rr(0, 3);
        int64_t M = rr(1, 200), N = rr(1, 200);
        lay_t a, b;
        make_layout(&a, M, N, np, nq, rr(1, 9), rr(1, 9), (int)rr(0, 2), P,
                    1);
        make_layout(&b, M, N, mp, mq, rr(1, 9), rr(1, 9), (int)rr(0, 2), P,
                    1);
        cs_eng_op_t op = {.m = M, .n = N, .esize = 8};
        cs_eng_factors_t f;
        cs_rl_kx_t *kx = kron_of(&a, &b, &op, P, &f);
        CS_TEST_ASSERT(kx);
        int nn, rpn;
        int *node = random_nodes(P, &nn, &rpn);
        cs_rl_machine_t m = {P, nn, node, rr(0, 3), 0};
        m.w_node = m.w_rank + rr(0, 30);
        int *perm = malloc((size_t)P * sizeof(int));
        cs_rl_flow_t *f1 = malloc((size_t)P * sizeof(*f1));
        cs_rl_flow_t *f2 = malloc((size_t)P * sizeof(*f2));
        CS_TEST_ASSERT(perm && f1 && f2);
        for (int i = 0; i < P; i++) {
            perm[i] = i;
        }
        if (rr(0, 2)) {
            cs_test_shuffle(&rng_state, perm, P);
        }
        cs_rl_sparse_t v;
        CS_TEST_EQ(cs_rl_sparse_init(&v, P), CS_RL_OK);
        CS_TEST_EQ(cs_rl_kron_sparse(kx, &v), CS_RL_OK);
        CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
        cs_rl_split_t s1, s2;
        CS_TEST_EQ(cs_rl_split(&v, &m, perm, &s1), CS_RL_OK);
        CS_TEST_EQ(cs_rl_kron_split(kx, &m, perm, &s2), CS_RL_OK);
        CS_TEST_CHECK(s1.kept == s2.kept && s1.in_node == s2.in_node &&
                          s1.across == s2.across && s1.cost == s2.cost,
                      "case %d (%d per node): split %lld %lld %lld, "
                      "direct %lld %lld %lld", c, rpn, (long long)s2.kept,
                      (long long)s2.in_node, (long long)s2.across,
                      (long long)s1.kept, (long long)s1.in_node,
                      (long long)s1.across);
        CS_TEST_EQ(cs_rl_sparse_flows(&v, &m, perm, f1), CS_RL_OK);
        CS_TEST_EQ(cs_rl_kron_flows(kx, &m, perm, f2), CS_RL_OK);
        CS_TEST_CHECK(memcmp(f1, f2, (size_t)P * sizeof(*f1)) == 0,
                      "case %d (%d per node): flows differ", c, rpn);
        cs_rl_sparse_free(&v);
        cs_rl_kron_destroy(kx);
        cs_eng_factors_free(&f);
        free(node);
        free(perm);
        free(f1);
        free(f2);
        free(a.grid);
        free(b.grid);
    }
    printf("split and flows: %d cases equal the direct count\n", 150 * scale);
}

/* ------------------------------------------------------------ 4 */

static void test_nodes_sweep(int scale)
{
    int ncase = 60 * scale;
    ratios_t rs;
    ratios_init(&rs, ncase);
    for (int c = 0; c < ncase; c++) {
        lay_t a, b;
        cs_eng_op_t op;
        int P = sweep_case(c, &a, &b, &op);
        cs_eng_factors_t f;
        cs_rl_kx_t *kx = kron_of(&a, &b, &op, P, &f);
        CS_TEST_ASSERT(kx);
        int nn, rpn;
        int *node = random_nodes(P, &nn, &rpn);
        cs_rl_machine_t m = {P, nn, node, 1, rr(1, 30)};
        cs_rl_sparse_t v;
        CS_TEST_EQ(cs_rl_sparse_init(&v, P), CS_RL_OK);
        CS_TEST_EQ(cs_rl_kron_sparse(kx, &v), CS_RL_OK);
        CS_TEST_EQ(cs_rl_sparse_finish(&v), CS_RL_OK);
        int *pe = malloc((size_t)P * sizeof(int));
        int *pk = malloc((size_t)P * sizeof(int));
        int *pp = malloc((size_t)P * sizeof(int));
        CS_TEST_ASSERT(pe && pk && pp);
        CS_TEST_EQ(cs_rl_solve_nodes(&v, &m, 1, pe, NULL), CS_RL_OK);
        cs_rl_kron_info_t in;
        CS_TEST_EQ(cs_rl_kron_solve(kx, pp, NULL), CS_RL_OK);
        /* with the plain result given or not: the same relabeling */
        CS_TEST_EQ(cs_rl_kron_solve_nodes(kx, &m, NULL, pk, &in), CS_RL_OK);
        int *pq = malloc((size_t)P * sizeof(int));
        CS_TEST_ASSERT(pq);
        CS_TEST_EQ(cs_rl_kron_solve_nodes(kx, &m, pp, pq, NULL), CS_RL_OK);
        CS_TEST_ASSERT(memcmp(pk, pq, (size_t)P * sizeof(int)) == 0);
        free(pq);
        CS_TEST_ASSERT(cs_rl_perm_check(P, pk));
        cs_rl_split_t se, sk, sp, sid;
        CS_TEST_EQ(cs_rl_split(&v, &m, pe, &se), CS_RL_OK);
        CS_TEST_EQ(cs_rl_split(&v, &m, pk, &sk), CS_RL_OK);
        CS_TEST_EQ(cs_rl_split(&v, &m, pp, &sp), CS_RL_OK);
        CS_TEST_EQ(cs_rl_split(&v, &m, NULL, &sid), CS_RL_OK);
        CS_TEST_EQ(sk.cost, in.cost);
        /* the splits the solver hands back are the whole matrix's */
        CS_TEST_ASSERT(split_eq(&in.split, &sk) &&
                       split_eq(&in.split_identity, &sid) &&
                       split_eq(&in.split_plain, &sp));
        CS_TEST_ASSERT(sk.cost >= se.cost && sk.cost <= sid.cost &&
                       sk.cost <= sp.cost && in.cost <= in.start_cost);
        double x = ratios_add(&rs, sk.cost, se.cost);
        CS_TEST_CHECK(x <= KRON_WORST_RATIO,
                      "case %d: %dx%d:%" PRId64 "x%" PRId64 " -> %dx%d:%"
                      PRId64 "x%" PRId64 ", %d per node, weights 1,%" PRId64
                      ": cost %.4f x the optimum",
                      c, a.np, a.nq, a.mb, a.nb, b.np, b.nq, b.mb, b.nb,
                      rpn, m.w_node, x);
        cs_rl_sparse_free(&v);
        cs_rl_kron_destroy(kx);
        cs_eng_factors_free(&f);
        free(node);
        free(pe);
        free(pk);
        free(pp);
        free(a.grid);
        free(b.grid);
    }
    ratios_done(&rs, "node-aware", "cost");
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;
    scale = scale < 1 ? 1 : scale;
    test_factors(scale);
    test_sweep(scale);
    test_split_flows(scale);
    test_nodes_sweep(scale);
    return cs_test_done();
}
