/*
 * test_apps/bench/bench_gemm.c - p?gemm and p?syrk benchmark: native
 * ScaLAPACK vs. costa-shim in the same process, against the compute floor
 * of the machine (each rank's share of the flops in one local BLAS call).
 *
 * A plain ScaLAPACK program (never linked with the shim): run it with
 *   COSTA_SHIM_GEMM=on LD_PRELOAD=libcosta_shim.so \
 *       OMP_NUM_THREADS=1 mpiexec -n 2 bench_gemm [options]
 * If the preloaded shim exports its hook costa_shim_set_enabled(int on)
 * (off = every intercepted call goes straight to the real ScaLAPACK
 * routine), each case times three paths: native (hook off), the shim (hook
 * on) and the floor.  Without the hook only native and the floor are timed.
 *
 * Method.  Per case the matrices are created and filled, then each path
 * makes one warm-up call, timed: native's and the shim's are the case's
 * first calls (a fresh shape: the shim builds and caches what it needs per
 * shape, so its first call is the one right after the matrices are made;
 * native's first call comes before it, as in bench_tran), and they are the
 * check below.  Then --reps rounds of one timed call per path, the three
 * taking turns in a rotating order (round r starts with path r mod 3) so
 * that drift of the shared machine hits all three alike; each call runs
 * between barriers and counts as its maximum over the ranks.  Reported per
 * path: median, 90th percentile (nearest rank) and maximum, GF/s of the
 * median, and native and shim as a percentage of the floor's speed.
 *
 * The floor: each rank multiplies its share, m*n*k/P flops, with one local
 * dgemm_ (zgemm_) of the case's transposes on its own buffers: the largest
 * of m, n, k is cut into P parts (ceil), the other two stay whole, so the
 * local call has the aspect of a perfect split of that dimension with no
 * communication (300x300x200000 on 2 ranks: 300 x 300 x 100000).
 *
 * Check (sentinel-then-failure, a wrong fast result cannot pass): native's
 * first result on a sample of C's elements (8 per rank) against a
 * reference computed from the generating functions (error at most 1e-10 of
 * the sum of the terms' magnitudes), and the shim's first result against
 * native's on every element of C: max |C_shim - C_native| / max |C_native|
 * (printed, maxrel) must be below 1e-10; NaN fails.
 *
 * Cases (alpha 1, beta 0 unless stated), written for 2 ranks: with P ranks
 * 1x2 is 1 x P and 2x1 is P x 1; 2x2 is q x q, run only when P = q*q, q >= 2
 * (else the case is skipped with a note):
 *   a  pdgemm T N 300x300x200000    blocks 48  1x2  (k huge)
 *   b  pdgemm T N 300x300x200000    blocks 48  2x1
 *   c  pdgemm T N 1000x1000x100000  blocks 64  1x2
 *   d  pdgemm N N 20000x300x2000    blocks 64  1x2  (tall C)
 *   e  pdgemm N N 2000x2000x2000    blocks 64  1x2
 *   f  pdgemm N N 2000x2000x2000    blocks 64  2x2
 *   g  pdgemm N T 293x293x96        blocks 48  2x1, beta 1 (CP2K's shape)
 *   h  pdgemm T N 300x300x200000    blocks 48  2x2
 *   i  pdgemm T N 1000x1000x100000  blocks 64  2x1
 *   j  pdgemm N N 20000x300x2000    blocks 64  2x1
 *   k  pdgemm N N 20000x300x2000    blocks 64  2x2
 *   l  pdgemm N N 2000x2000x2000    blocks 64  2x1
 *   n  pdgemm N T 293x293x96        blocks 48  1x2, beta 1
 *   o  pdgemm N T 293x293x96        blocks 48  2x2, beta 1
 *   p  pdgemm T N 1000x1000x100000  blocks 64  2x2
 *   x  pdgemm N T 544x544x1216      blocks 304 1x2 (CP2K rpa_w4's
 *                                   Q = S^T S: 40 calls a run)
 *   z  pzgemm C N 300x300x50000     blocks 48  1x2 (the flops of a)
 *   s  pdsyrk U T 300x200000        blocks 48  1x2 (CP2K RPA's p?syrk)
 *   t  pdsyrk U T 300x200000        blocks 48  2x1
 *   u  pdsyrk U N 300x200000        blocks 48  1x2
 *   v  pdsyrk U N 300x200000        blocks 48  2x1
 *   w  pdsyrk U T 300x200000        blocks 48  2x2
 * (m x n x k: C is m x n, op(A) m x k, op(B) k x n.)  The p?syrk cases
 * (n x k: C is n x n, op(A) n x k) compute the triangle UPLO of C :=
 * alpha op(A) op(A)^T + beta C; their floor is a local dsyrk_ of n x k/P,
 * their GF/s count n (n + 1) k flops, and the elements of C outside the
 * triangle are checked unchanged.  Memory: a, b and h
 * hold 300 x 200000 doubles per operand (480 MB over all ranks), c
 * 1000 x 100000 (800 MB), and the floor's buffers as much again (each rank
 * its share of both operands); everything is freed between cases.
 *
 * Options: --cases abcdefghijklnopxzstuvw  cases to run (letters; default all)
 *          --reps N           timed rounds per case (default 40)
 *          --scale F          multiply every dimension and block size by F
 *                             (at least 1; F in (0, 10]): tiny test runs,
 *                             e.g. --scale 0.01
 *          --csv FILE         also append the rows to FILE (CSV; its
 *                             header line is written in gemm_csv_open)
 * Exit status: 0, or 1 if any check failed; 2 on bad usage.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cs_bench.h" /* grids, shim hook, BLACS protos */
#include "cs_rng.h"   /* cs_splitmix64 */

/* PBLAS and BLAS entry points (only this program calls them).  Complex
 * values are (re, im) pairs of doubles; Fortran CHARACTER arguments carry
 * hidden lengths at the end (PBLAS, written in C, ignores them). */
void pdgemm_(const char *ta, const char *tb, const int *m, const int *n,
             const int *k, const double *alpha, const double *a,
             const int *ia, const int *ja, const int *desca, const double *b,
             const int *ib, const int *jb, const int *descb,
             const double *beta, double *c, const int *ic, const int *jc,
             const int *descc, size_t lta, size_t ltb);
void pzgemm_(const char *ta, const char *tb, const int *m, const int *n,
             const int *k, const double *alpha, const double *a,
             const int *ia, const int *ja, const int *desca, const double *b,
             const int *ib, const int *jb, const int *descb,
             const double *beta, double *c, const int *ic, const int *jc,
             const int *descc, size_t lta, size_t ltb);
void pdsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
             const double *alpha, const double *a, const int *ia,
             const int *ja, const int *desca, const double *beta, double *c,
             const int *ic, const int *jc, const int *descc, size_t lu,
             size_t lt);
void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda,
            const double *beta, double *c, const int *ldc, size_t lu,
            size_t lt);
void dgemm_(const char *ta, const char *tb, const int *m, const int *n,
            const int *k, const double *alpha, const double *a,
            const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t lta,
            size_t ltb);
void zgemm_(const char *ta, const char *tb, const int *m, const int *n,
            const int *k, const double *alpha, const double *a,
            const int *lda, const double *b, const int *ldb,
            const double *beta, double *c, const int *ldc, size_t lta,
            size_t ltb);

/* the third grid of the run: q x q when P = q*q (q >= 2) */
enum { GRID_SQ = NGRIDS, NGRIDS_ALL };
/* the timed paths, in the order of the time arrays */
enum { P_NATIVE, P_SHIM, P_FLOOR, NPATHS };

#define TOL 1e-10 /* relative error allowed for doubles */
#define SAMPLE 8  /* elements of C per rank checked against the reference */

typedef struct {
    char id;
    int cplx;     /* 0 pdgemm_, 1 pzgemm_ */
    char ta, tb;  /* 'N', 'T' or 'C' */
    int m, n, k;  /* C is m x n, op(A) m x k, op(B) k x n */
    int blk;      /* square blocks of A, B and C */
    int grid;     /* GRID_1X2, GRID_2X1 or GRID_SQ */
    double alpha[2], beta[2];
    char uplo;    /* pdsyrk_: 'U' or 'L' (B is A, tb ta's other); 0 */
} gemm_case_t;

static const gemm_case_t cases[] = {
    {'a', 0, 'T', 'N', 300, 300, 200000, 48, GRID_1X2, {1, 0}, {0, 0}, 0},
    {'b', 0, 'T', 'N', 300, 300, 200000, 48, GRID_2X1, {1, 0}, {0, 0}, 0},
    {'c', 0, 'T', 'N', 1000, 1000, 100000, 64, GRID_1X2, {1, 0}, {0, 0}, 0},
    {'d', 0, 'N', 'N', 20000, 300, 2000, 64, GRID_1X2, {1, 0}, {0, 0}, 0},
    {'e', 0, 'N', 'N', 2000, 2000, 2000, 64, GRID_1X2, {1, 0}, {0, 0}, 0},
    {'f', 0, 'N', 'N', 2000, 2000, 2000, 64, GRID_SQ, {1, 0}, {0, 0}, 0},
    {'g', 0, 'N', 'T', 293, 293, 96, 48, GRID_2X1, {1, 0}, {1, 0}, 0},
    {'h', 0, 'T', 'N', 300, 300, 200000, 48, GRID_SQ, {1, 0}, {0, 0}, 0},
    {'i', 0, 'T', 'N', 1000, 1000, 100000, 64, GRID_2X1, {1, 0}, {0, 0}, 0},
    {'j', 0, 'N', 'N', 20000, 300, 2000, 64, GRID_2X1, {1, 0}, {0, 0}, 0},
    {'k', 0, 'N', 'N', 20000, 300, 2000, 64, GRID_SQ, {1, 0}, {0, 0}, 0},
    {'l', 0, 'N', 'N', 2000, 2000, 2000, 64, GRID_2X1, {1, 0}, {0, 0}, 0},
    {'n', 0, 'N', 'T', 293, 293, 96, 48, GRID_1X2, {1, 0}, {1, 0}, 0},
    {'o', 0, 'N', 'T', 293, 293, 96, 48, GRID_SQ, {1, 0}, {1, 0}, 0},
    {'p', 0, 'T', 'N', 1000, 1000, 100000, 64, GRID_SQ, {1, 0}, {0, 0}, 0},
    {'x', 0, 'N', 'T', 544, 544, 1216, 304, GRID_1X2, {1, 0}, {0, 0}, 0},
    {'z', 1, 'C', 'N', 300, 300, 50000, 48, GRID_1X2, {1, 0}, {0, 0}, 0},
    {'s', 0, 'T', 'N', 300, 300, 200000, 48, GRID_1X2, {1, 0}, {0, 0}, 'U'},
    {'t', 0, 'T', 'N', 300, 300, 200000, 48, GRID_2X1, {1, 0}, {0, 0}, 'U'},
    {'u', 0, 'N', 'T', 300, 300, 200000, 48, GRID_1X2, {1, 0}, {0, 0}, 'U'},
    {'v', 0, 'N', 'T', 300, 300, 200000, 48, GRID_2X1, {1, 0}, {0, 0}, 'U'},
    {'w', 0, 'T', 'N', 300, 300, 200000, 48, GRID_SQ, {1, 0}, {0, 0}, 'U'},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int g_rank, g_nprocs;

/* A distributed matrix: descriptor and local storage (ncomp doubles per
 * element). */
typedef struct {
    int desc[9];
    int locr, locc, lld, ncomp;
    double *data;
    size_t count; /* doubles */
} dmat_t;

/* The operands of one case and its floor's local buffers. */
typedef struct {
    const gemm_case_t *c;
    const grid_t *g;
    dmat_t a, b, cn, cs; /* C of native and of the shim */
    int fm, fn, fk;      /* the floor's local dgemm */
    double *fa, *fb, *fc;
} gemm_run_t;

/* Element (gi, gj), component comp, of generated matrix `which`: uniform
 * in [-1, 1), exact in double; distinct for gi < 2^24 (--scale <= 10
 * keeps every dimension below). */
static inline double gen(int which, int64_t gi, int64_t gj, int comp)
{
    uint64_t x = ((uint64_t)gi << 32 | (uint32_t)gj) ^
                 (uint64_t)(which * 2 + comp) << 56;
    return (double)(cs_splitmix64(x) >> 11) * 0x1.0p-52 - 1.0;
}

enum { GEN_A, GEN_B, GEN_C, GEN_FLOOR };

static void dmat_init(dmat_t *x, const grid_t *g, int m, int n, int blk,
                      int ncomp)
{
    int zero = 0, info = 0;
    x->locr = numroc_(&m, &blk, &g->myrow, &zero, &g->nprow);
    x->locc = numroc_(&n, &blk, &g->mycol, &zero, &g->npcol);
    x->lld = x->locr > 1 ? x->locr : 1;
    x->ncomp = ncomp;
    descinit_(x->desc, &m, &n, &blk, &blk, &zero, &zero, &g->ctxt, &x->lld,
              &info);
    if (info != 0)
        cs_bench_die("descinit_ failed");
    x->count = (size_t)x->lld * (size_t)x->locc * (size_t)ncomp;
    x->data = cs_bench_xmalloc(x->count * sizeof(double));
}

static void dmat_fill(dmat_t *x, const grid_t *g, int which)
{
    int blk = x->desc[4];
    for (int lj = 0; lj < x->locc; lj++) {
        int64_t gj = l2g(lj, blk, g->mycol, g->npcol);
        for (int li = 0; li < x->locr; li++) {
            int64_t gi = l2g(li, blk, g->myrow, g->nprow);
            size_t at = ((size_t)lj * (size_t)x->lld + (size_t)li) *
                        (size_t)x->ncomp;
            for (int q = 0; q < x->ncomp; q++)
                x->data[at + (size_t)q] = gen(which, gi, gj, q);
        }
    }
}

/* op(X)(i, l) of generated matrix `which` with transpose t, as (re, im). */
static void op_elem(int which, char t, int cplx, int64_t i, int64_t l,
                    double v[2])
{
    int64_t r = t == 'N' ? i : l, s = t == 'N' ? l : i;
    v[0] = gen(which, r, s, 0);
    v[1] = cplx ? gen(which, r, s, 1) : 0.0;
    if (t == 'C')
        v[1] = -v[1];
}

/* Reference of C(gi, gj) after one call from the generated C (want), and
 * the sum of the magnitudes of its terms (the scale of its rounding). */
static void reference(const gemm_case_t *c, int64_t gi, int64_t gj,
                      double want[2], double *scale_p)
{
    double s[2] = {0, 0}, mag = 0;
    /* p?syrk: only the triangle uplo is written */
    int outside = (c->uplo == 'U' && gi > gj) || (c->uplo == 'L' && gi < gj);
    for (int64_t l = 0; l < c->k && !outside; l++) {
        double a[2], b[2];
        op_elem(GEN_A, c->ta, c->cplx, gi, l, a);
        op_elem(c->uplo ? GEN_A : GEN_B, c->tb, c->cplx, l, gj, b);
        s[0] += a[0] * b[0] - a[1] * b[1];
        s[1] += a[0] * b[1] + a[1] * b[0];
        mag += (fabs(a[0]) + fabs(a[1])) * (fabs(b[0]) + fabs(b[1]));
    }
    double c0[2] = {gen(GEN_C, gi, gj, 0),
                    c->cplx ? gen(GEN_C, gi, gj, 1) : 0.0};
    static const double keep[2] = {1, 0}, none[2] = {0, 0};
    const double *al = outside ? none : c->alpha;
    const double *be = outside ? keep : c->beta;
    want[0] = al[0] * s[0] - al[1] * s[1] + be[0] * c0[0] - be[1] * c0[1];
    want[1] = al[0] * s[1] + al[1] * s[0] + be[0] * c0[1] + be[1] * c0[0];
    *scale_p = (fabs(al[0]) + fabs(al[1])) * mag +
               (fabs(be[0]) + fabs(be[1])) * (fabs(c0[0]) + fabs(c0[1]));
}

/* Sampled elements of native's C that miss the reference (local count). */
static long check_native(const gemm_run_t *r)
{
    const dmat_t *x = &r->cn;
    if (x->locr == 0 || x->locc == 0)
        return 0;
    long bad = 0;
    int blk = x->desc[4];
    for (int s = 0; s < SAMPLE; s++) {
        uint64_t h = cs_splitmix64((uint64_t)(g_rank * SAMPLE + s));
        int li = (int)(h % (uint64_t)x->locr);
        int lj = (int)((h >> 32) % (uint64_t)x->locc);
        int64_t gi = l2g(li, blk, r->g->myrow, r->g->nprow);
        int64_t gj = l2g(lj, blk, r->g->mycol, r->g->npcol);
        double want[2], scale;
        reference(r->c, gi, gj, want, &scale);
        size_t at = ((size_t)lj * (size_t)x->lld + (size_t)li) *
                    (size_t)x->ncomp;
        for (int q = 0; q < x->ncomp; q++)
            /* written so that NaN counts as bad */
            if (!(fabs(x->data[at + (size_t)q] - want[q]) <=
                  TOL * scale + 1e-300))
                bad++;
    }
    return bad;
}

/* max |C_shim - C_native| / max |C_native| over all of C (collective);
 * infinity when a difference is NaN. */
static double shim_maxrel(const gemm_run_t *r)
{
    double mine[2] = {0, 0}, all[2];
    for (size_t i = 0; i < r->cn.count; i++) {
        double d = fabs(r->cs.data[i] - r->cn.data[i]);
        if (isnan(d))
            d = INFINITY;
        if (d > mine[0])
            mine[0] = d;
        if (fabs(r->cn.data[i]) > mine[1])
            mine[1] = fabs(r->cn.data[i]);
    }
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all[1] > 0 ? all[0] / all[1] : all[0];
}

/* The floor's local call: the largest of m, n, k cut by P (ceil). */
static void floor_init(gemm_run_t *r)
{
    const gemm_case_t *c = r->c;
    int *cut = c->k >= c->m && c->k >= c->n ? &r->fk
               : c->m >= c->n             ? &r->fm
                                          : &r->fn;
    r->fm = c->m;
    r->fn = c->n;
    r->fk = c->k;
    *cut = (*cut + g_nprocs - 1) / g_nprocs;
    size_t nc = c->cplx ? 2 : 1;
    size_t sa = (size_t)r->fm * (size_t)r->fk * nc;
    size_t sb = (size_t)r->fk * (size_t)r->fn * nc;
    size_t sc = (size_t)r->fm * (size_t)r->fn * nc;
    r->fa = cs_bench_xmalloc(sa * sizeof(double));
    r->fb = cs_bench_xmalloc(sb * sizeof(double));
    r->fc = cs_bench_xmalloc(sc * sizeof(double));
    /* any values will do (no denormals); touched here, not in a timed
     * call */
    for (size_t i = 0; i < sa; i++)
        r->fa[i] = gen(GEN_FLOOR, g_rank, (int64_t)i, 0);
    for (size_t i = 0; i < sb; i++)
        r->fb[i] = gen(GEN_FLOOR, g_rank, (int64_t)i, 1);
    for (size_t i = 0; i < sc; i++)
        r->fc[i] = 0.0;
}

static void call_path(gemm_run_t *r, int path)
{
    const gemm_case_t *c = r->c;
    static const int one = 1;
    const char ta[2] = {c->ta, 0}, tb[2] = {c->tb, 0}, ul[2] = {c->uplo, 0};
    if (path == P_FLOOR && c->uplo) {
        int lda = c->ta == 'N' ? r->fm : r->fk;
        lda = lda > 1 ? lda : 1;
        int ldc = r->fm > 1 ? r->fm : 1;
        dsyrk_(ul, ta, &r->fm, &r->fk, c->alpha, r->fa, &lda, c->beta, r->fc,
               &ldc, 1, 1);
        return;
    }
    if (path == P_FLOOR) {
        int lda = c->ta == 'N' ? r->fm : r->fk;
        int ldb = c->tb == 'N' ? r->fk : r->fn;
        lda = lda > 1 ? lda : 1;
        ldb = ldb > 1 ? ldb : 1;
        int ldc = r->fm > 1 ? r->fm : 1;
        (c->cplx ? zgemm_ : dgemm_)(ta, tb, &r->fm, &r->fn, &r->fk,
                                    c->alpha, r->fa, &lda, r->fb, &ldb,
                                    c->beta, r->fc, &ldc, 1, 1);
        return;
    }
    dmat_t *x = path == P_SHIM ? &r->cs : &r->cn;
    if (c->uplo) {
        pdsyrk_(ul, ta, &c->n, &c->k, c->alpha, r->a.data, &one, &one,
                r->a.desc, c->beta, x->data, &one, &one, x->desc, 1, 1);
        return;
    }
    (c->cplx ? pzgemm_ : pdgemm_)(ta, tb, &c->m, &c->n, &c->k, c->alpha,
                                  r->a.data, &one, &one, r->a.desc,
                                  r->b.data, &one, &one, r->b.desc, c->beta,
                                  x->data, &one, &one, x->desc, 1, 1);
}

/* One call of a path between barriers: local seconds. */
static double time_path(gemm_run_t *r, int path)
{
    if (path != P_FLOOR)
        cs_bench_shim_set(path == P_SHIM);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    call_path(r, path);
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

static double max_ms(double t)
{
    double m = 0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return 1e3 * m;
}

/* One row of the table. */
typedef struct {
    char label[2], what[80], grid[16];
    int m, n, k, reps;
    cs_bench_tail_t t[NPATHS]; /* ms */
    double first_ms[2]; /* native's, the shim's first call */
    double gflop;       /* per call */
    double maxrel;      /* shim vs. native; -1 without the shim */
    int ok;
} gemm_row_t;

static gemm_row_t run_case(const gemm_case_t *c, const grid_t *g, int reps,
                           int have_shim)
{
    gemm_row_t row = {.label = {c->id, 0}, .m = c->m, .n = c->n,
                      .k = c->k, .reps = reps, .maxrel = -1, .ok = 1};
    snprintf(row.grid, sizeof row.grid, "%dx%d", g->nprow, g->npcol);
    if (c->uplo) {
        snprintf(row.what, sizeof row.what, "pdsyrk %c %c %dx%d blk %d %s%s",
                 c->uplo, c->ta, c->n, c->k, c->blk, row.grid,
                 c->beta[0] != 0 ? " b=1" : "");
        row.gflop = (double)c->n * (c->n + 1) * (double)c->k / 1e9;
    } else {
        snprintf(row.what, sizeof row.what, "%s %c %c %dx%dx%d blk %d %s%s",
                 c->cplx ? "pzgemm" : "pdgemm", c->ta, c->tb, c->m, c->n,
                 c->k, c->blk, row.grid, c->beta[0] != 0 ? " b=1" : "");
        row.gflop = (c->cplx ? 8.0 : 2.0) * c->m * c->n * (double)c->k / 1e9;
    }

    int nc = c->cplx ? 2 : 1;
    gemm_run_t r = {.c = c, .g = g};
    dmat_init(&r.a, g, c->ta == 'N' ? c->m : c->k,
              c->ta == 'N' ? c->k : c->m, c->blk, nc);
    if (c->uplo)
        r.b = r.a; /* not used: B is A */
    else
        dmat_init(&r.b, g, c->tb == 'N' ? c->k : c->n,
                  c->tb == 'N' ? c->n : c->k, c->blk, nc);
    dmat_init(&r.cn, g, c->m, c->n, c->blk, nc);
    dmat_init(&r.cs, g, c->m, c->n, c->blk, nc);
    dmat_fill(&r.a, g, GEN_A);
    if (!c->uplo)
        dmat_fill(&r.b, g, GEN_B);
    dmat_fill(&r.cn, g, GEN_C);
    floor_init(&r);

    /* the warm-up calls: each path's first, the first two also the
     * check */
    row.first_ms[0] = max_ms(time_path(&r, P_NATIVE));
    long bad = check_native(&r), gbad = 0;
    if (have_shim) {
        /* the shim's target as freshly written as native's (see
         * bench_gemr2d.c) */
        dmat_fill(&r.cs, g, GEN_C);
        row.first_ms[1] = max_ms(time_path(&r, P_SHIM));
        row.maxrel = shim_maxrel(&r);
    }
    (void)time_path(&r, P_FLOOR);
    MPI_Allreduce(&bad, &gbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    row.ok = gbad == 0 && (!have_shim || row.maxrel < TOL);
    if (g_rank == 0 && gbad)
        printf("FAIL case %c: native misses the reference in %ld sampled "
               "element(s)\n", c->id, gbad);
    if (g_rank == 0 && have_shim && !(row.maxrel < TOL))
        printf("FAIL case %c: shim differs from native, max relative "
               "difference %.3g (limit %.0e)\n", c->id, row.maxrel, TOL);

    /* rounds of one call per path, rotating which goes first */
    size_t nt = (size_t)NPATHS * (size_t)reps;
    double *t = cs_bench_xmalloc(nt * sizeof(double));
    double *tmax = cs_bench_xmalloc(nt * sizeof(double));
    memset(t, 0, nt * sizeof(double));
    for (int i = 0; i < reps; i++) {
        for (int j = 0; j < NPATHS; j++) {
            int p = (i + j) % NPATHS;
            if (p != P_SHIM || have_shim)
                t[(size_t)p * (size_t)reps + (size_t)i] = time_path(&r, p);
        }
    }
    cs_bench_shim_set(1);
    MPI_Allreduce(t, tmax, (int)nt, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int p = 0; p < NPATHS; p++) {
        double *v = tmax + (size_t)p * (size_t)reps;
        for (int i = 0; i < reps; i++)
            v[i] *= 1e3;
        row.t[p] = cs_bench_tail(v, reps);
    }
    free(tmax);
    free(t);
    free(r.fa);
    free(r.fb);
    free(r.fc);
    free(r.a.data);
    if (!c->uplo)
        free(r.b.data);
    free(r.cn.data);
    free(r.cs.data);
    return row;
}

static FILE *g_csv; /* rank 0's CSV file, or NULL */

/* Rank 0: append rows to path, with a header line when the file is new
 * or empty (scripts/bench_report.py --csv-gemm reads it). */
static void gemm_csv_open(const char *path)
{
    if (g_rank != 0)
        return;
    g_csv = fopen(path, "a");
    if (!g_csv)
        cs_bench_die("cannot open the --csv file");
    if (ftell(g_csv) == 0)
        fprintf(g_csv, "bench,case,description,ranks,grid,m,n,k,reps,"
                       "native_ms,native_p90_ms,native_max_ms,shim_ms,"
                       "shim_p90_ms,shim_max_ms,floor_ms,floor_p90_ms,"
                       "floor_max_ms,native_first_ms,shim_first_ms,"
                       "native_gflops,shim_gflops,floor_gflops,"
                       "native_pct_floor,shim_pct_floor,max_rel_diff,ok\n");
}

#define DESC_W 42

static void print_head(int have_shim, int reps)
{
    if (g_rank != 0)
        return;
    printf("pdgemm_/pzgemm_/pdsyrk_ benchmark, %d ranks; ms per call, each "
           "call the max over ranks; %d rounds after 1 warm-up call per path, "
           "native/shim/floor taking turns\n", g_nprocs, reps);
    if (have_shim)
        printf("mode: native vs costa-shim (costa_shim_set_enabled found; "
               "COSTA_SHIM_GEMM=%s)\n",
               getenv("COSTA_SHIM_GEMM") ? getenv("COSTA_SHIM_GEMM")
                                         : "unset");
    else
        printf("mode: NATIVE ONLY - costa_shim_set_enabled not found "
               "(shim not preloaded)\n");
    printf("floor: each rank's m*n*k/P flops in one local dgemm_/zgemm_ "
           "(largest of m, n, k cut by P), same transposes\n");
    printf("med, p90, max: median, 90th percentile, maximum; GF/s of the "
           "median; nat%%, shim%%: floor median / path median, %% (100 = "
           "at the floor)\n");
    printf("1st_nat, 1st_shim: each path's first call of the case (the "
           "shim's: a fresh shape); maxrel: max |C_shim - C_native| / "
           "max |C_native| (below %.0e)\n\n", TOL);
    printf("%-4s %-*s %5s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %7s "
           "%7s %7s %6s %6s %8s %5s\n",
           "case", DESC_W, "description", "reps", "nat_med", "nat_p90",
           "nat_max", "shim_med", "shim_p90", "shim_max", "fl_med",
           "fl_p90", "fl_max", "1st_nat", "1st_shim", "nat_GF", "shim_GF",
           "fl_GF", "nat%", "shim%", "maxrel", "check");
    fflush(stdout);
}

/* Rank 0: one row of the table, and of the CSV file if one is open. */
static void print_row(const gemm_row_t *w, int have_shim)
{
    if (g_rank != 0)
        return;
    const cs_bench_tail_t *n = &w->t[P_NATIVE], *s = &w->t[P_SHIM],
                 *f = &w->t[P_FLOOR];
    char sm[3][16] = {"-", "-", "-"}, s1[16] = "-", sgf[16] = "-",
         spc[16] = "-", mr[16] = "-";
    if (have_shim) {
        snprintf(sm[0], sizeof sm[0], "%.3f", s->med);
        snprintf(sm[1], sizeof sm[1], "%.3f", s->p90);
        snprintf(sm[2], sizeof sm[2], "%.3f", s->max);
        snprintf(s1, sizeof s1, "%.3f", w->first_ms[1]);
        snprintf(sgf, sizeof sgf, "%.2f", w->gflop / (1e-3 * s->med));
        snprintf(spc, sizeof spc, "%.0f", 100 * f->med / s->med);
        snprintf(mr, sizeof mr, "%.1e", w->maxrel);
    }
    printf("%-4s %-*s %5d %9.3f %9.3f %9.3f %9s %9s %9s %9.3f %9.3f %9.3f "
           "%9.3f %9s %7.2f %7s %7.2f %6.0f %6s %8s %5s\n",
           w->label, DESC_W, w->what, w->reps, n->med, n->p90, n->max, sm[0],
           sm[1], sm[2], f->med, f->p90, f->max, w->first_ms[0], s1,
           w->gflop / (1e-3 * n->med), sgf, w->gflop / (1e-3 * f->med),
           100 * f->med / n->med, spc, mr,
           w->ok ? (have_shim ? "ok" : "ok*") : "FAIL");
    fflush(stdout);
    if (!g_csv)
        return;
    double hs = have_shim ? 1 : 0;
    fprintf(g_csv,
            "bench_gemm,%s,\"%s\",%d,%s,%d,%d,%d,%d,%.6f,%.6f,%.6f,%.6f,"
            "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4f,%.4f,%.4f,%.2f,%.2f,"
            "%s,%d\n",
            w->label, w->what, g_nprocs, w->grid, w->m, w->n, w->k, w->reps,
            n->med, n->p90, n->max, hs * s->med, hs * s->p90, hs * s->max,
            f->med, f->p90, f->max, w->first_ms[0], hs * w->first_ms[1],
            w->gflop / (1e-3 * n->med),
            have_shim ? w->gflop / (1e-3 * s->med) : 0.0,
            w->gflop / (1e-3 * f->med), 100 * f->med / n->med,
            have_shim ? 100 * f->med / s->med : 0.0,
            have_shim ? mr : "", w->ok);
    fflush(g_csv);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_gemm [--cases abcdefghijklnopxzstuvw] [--reps N] "
               "[--scale F] [--csv FILE]\n");
}

/* A case's dimensions and blocks times scale, each at least 1. */
static gemm_case_t scaled(const gemm_case_t *c, double scale)
{
    gemm_case_t s = *c;
    int *v[4] = {&s.m, &s.n, &s.k, &s.blk};
    for (int i = 0; i < 4; i++) {
        long x = lround(*v[i] * scale);
        *v[i] = x < 1 ? 1 : (int)x;
    }
    return s;
}

/* grids[GRID_SQ]: q x q when P = q*q with q >= 2, else ctxt -1. */
static void square_grid_init(grid_t *g)
{
    int q = (int)lround(sqrt((double)g_nprocs));
    g->ctxt = -1;
    if (q < 2 || q * q != g_nprocs)
        return;
    Cblacs_get(-1, 0, &g->ctxt);
    Cblacs_gridinit(&g->ctxt, "Row", q, q);
    Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    if (g->myrow < 0)
        cs_bench_die("process not in grid");
}

int main(int argc, char **argv)
{
    const char *which = "abcdefghijklnopxzstuvw", *csv = NULL;
    int reps = 40, rc = 0;
    double scale = 1.0;

    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&g_rank, &g_nprocs);
    cs_bench_init("bench_gemm");

    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(o, "--cases") && v) {
            which = v;
            i++;
        } else if (!strcmp(o, "--reps") && v) {
            reps = (int)strtol(v, &end, 10);
            i++;
            if (*end || reps < 1)
                rc = 2;
        } else if (!strcmp(o, "--scale") && v) {
            scale = strtod(v, &end);
            i++;
            if (*end || !(scale > 0 && scale <= 10))
                rc = 2;
        } else if (!strcmp(o, "--csv") && v) {
            csv = v;
            i++;
        } else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            if (g_rank == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else {
            rc = 2;
        }
    }
    for (const char *p = which; *p && rc == 0; p++) {
        int known = 0;
        for (int k = 0; k < NCASES; k++)
            known |= cases[k].id == *p;
        if (!known)
            rc = 2;
    }
    if (rc) {
        if (g_rank == 0)
            usage(stderr);
        MPI_Finalize();
        return rc;
    }

    grid_t grids[NGRIDS_ALL];
    bench_grids_init(grids);
    square_grid_init(&grids[GRID_SQ]);

    int have_shim = cs_bench_find_shim();
    print_head(have_shim, reps);
    if (csv)
        gemm_csv_open(csv);
    for (const char *p = which; *p; p++) {
        for (int k = 0; k < NCASES; k++) {
            if (cases[k].id != *p)
                continue;
            if (grids[cases[k].grid].ctxt < 0) {
                if (g_rank == 0)
                    printf("%-4c skipped: its q x q grid needs a square "
                           "number of ranks (4, 9, ...), not %d\n", *p,
                           g_nprocs);
                continue;
            }
            gemm_case_t c = scaled(&cases[k], scale);
            gemm_row_t row = run_case(&c, &grids[c.grid], reps, have_shim);
            if (!row.ok)
                rc = 1;
            print_row(&row, have_shim);
        }
    }
    if (g_csv)
        fclose(g_csv);
    if (g_rank == 0 && !have_shim)
        printf("\nok*: native result checked against the reference only "
               "(no shim)\n");

    if (grids[GRID_SQ].ctxt >= 0)
        Cblacs_gridexit(grids[GRID_SQ].ctxt);
    bench_grids_exit(grids);
    MPI_Finalize();
    return rc;
}
