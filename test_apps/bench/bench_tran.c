/*
 * test_apps/bench/bench_tran.c - benchmark of the transpose / triangular
 * redistribution / add routines the shim serves on its engine (pdtran_,
 * pztranu_, pdtrmr2d_, pdgeadd_): native ScaLAPACK vs. costa-shim in the
 * same process, plus the memcpy floor of the machine.  Same method and
 * output as bench_gemr2d.c.
 *
 * A plain ScaLAPACK program (never linked with the shim): run it with
 *   LD_PRELOAD=libcosta_shim.so mpiexec -n 2 bench_tran [options]
 * If the preloaded shim exports its hook costa_shim_set_enabled(int on)
 * (returns the previous state; off = every intercepted call goes straight to
 * the real ScaLAPACK routine), each case times native's calls, then the
 * shim's (CS_BENCH_ORDER=alternate: the two taking turns; see
 * cs_bench_time), each call between barriers (max over ranks), and reports
 * the median per call of each.  Without the hook only native times are measured.
 *
 * Cases (doubles, grid 1x2, A and C on the same grid), written for 2
 * ranks: with P ranks the grids are 1 x P and P x 1 (make bench's scaling
 * runs: 1 rank, 4 ranks), and the descriptions printed name them:
 *   a   pdtran_  4000x4000, blocks 128, alpha 1, beta 0
 *   b   pdtran_  4000x4000, blocks 128, alpha 2, beta 3
 *   c   pztranu_ 2000x2000 double complex, blocks 128, alpha (1,0),
 *       beta (0,0)
 *   d   pdtran_  3984x3984 sub-matrices at IA=JA=IC=JC=17 of 4000x4000
 *       matrices, blocks 128, alpha 1, beta 0
 *   e   pdtran_  200x200, blocks 32, alpha 1, beta 0
 *   f   pdtrmr2d_ UPLO='L' DIAG='N' 4000x4000, blocks 36 -> 128
 *       (gcontext = the 1x2 grid)
 *   g1  pdgeadd_ TRANS='N' 4000x4000, blocks 128, alpha 1, beta 1
 *   g2  pdgeadd_ TRANS='T' 4000x4000, blocks 128, alpha 1, beta 1
 *   h   case a on a 2x1 grid
 *   i   case a at 1000x1000, j: at 8000x8000 (the size chart of
 *       scripts/bench_report.py: e, i, a, j)
 *   k   case a at 4096x4096: local leading dimensions of 4096 doubles,
 *       a power of two (the transpose kernels' strips,
 *       engine/kernels/copy.c)
 *   l   case c conjugated: pztranc_
 * (sub(C) is M x N; sub(A) is N x M for the transposes, M x N otherwise.)
 *
 * Each case first runs once natively and once with the shim from identical
 * inputs and checks that the shim's local C equals native's bit for bit
 * (memcmp), and native's C against the exact expected values (the
 * generating functions give small dyadic values, so every alpha/beta sum
 * is exact).  The copy floor of a case is the bytes a rank must move: its
 * part of sub(A) read + its part of sub(C) written (+ its part of sub(C)
 * read when beta != 0; only the triangle for pdtrmr2d_), max over ranks,
 * divided by the read+write bandwidth of memcpy measured with both ranks
 * copying at once.  fl/shim = floor / shim time (1.0 = at the floor).
 *
 * The first call of each path is timed too (plan built and buffers grown
 * there: what an application's first call costs), column 1st_ms, and
 * 1st/med = first call / median.
 *
 * Options: --cases abcdefghijkl cases to run (letters; g = g1 and g2;
 *                            default all)
 *          --reps N          timed repetitions per case (default 40:
 *                            enough calls to show the slowest (issue
 *                            34); 200 for e, 30 for i, 9 for j: with
 *                            5, j's median moved by 20 % between runs)
 *          --csv FILE        also append the rows to FILE (CSV, see
 *                            cs_bench_csv_open)
 * Exit status: 0, or 1 if any check failed; 2 on bad usage.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cs_bench.h" /* grids, timing, memcpy floor, table; BLACS protos */

/* ScaLAPACK entry points not in cs_blacs.h (pdtran_, pztranu_ are).
 * Fortran CHARACTER arguments carry hidden size_t lengths at the end. */
void pdtrmr2d_(const char *uplo, const char *diag, const int *m,
               const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb,
               const int *descb, const int *ictxt, size_t luplo,
               size_t ldiag);
void pdgeadd_(const char *trans, const int *m, const int *n,
              const double *alpha, const double *a, const int *ia,
              const int *ja, const int *desca, const double *beta, double *c,
              const int *ic, const int *jc, const int *descc, size_t ltrans);

enum { K_DTRAN, K_ZTRANU, K_ZTRANC, K_DTRMR2D, K_DGEADD };

typedef struct {
    char id;           /* letter selected by --cases */
    const char *label; /* table's case column */
    const char *what;
    int kind;
    char trans, uplo, diag; /* pdgeadd_ / pdtrmr2d_ */
    int ma, na;  /* global A */
    int mc, nc;  /* global C */
    int m, n;    /* sub(C) is m x n */
    int ia, ja, ic, jc;
    int blka, blkc;
    int grid;
    double alpha[2], beta[2]; /* (re, im); im unused for real kinds */
    int reps;
} bench_case_t;

static const bench_case_t cases[] = {
    {'a', "a", "pdtran 4000x4000 blk 128 a=1 b=0 1x2", K_DTRAN, 'N', 'L',
     'N', 4000, 4000, 4000, 4000, 4000, 4000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {0, 0}, 40},
    {'b', "b", "pdtran 4000x4000 blk 128 a=2 b=3 1x2", K_DTRAN, 'N', 'L',
     'N', 4000, 4000, 4000, 4000, 4000, 4000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {2, 0}, {3, 0}, 40},
    {'c', "c", "pztranu 2000x2000 blk 128 a=1 b=0 1x2", K_ZTRANU, 'N', 'L',
     'N', 2000, 2000, 2000, 2000, 2000, 2000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {0, 0}, 40},
    {'d', "d", "pdtran 3984x3984 @(17,17) blk 128 1x2", K_DTRAN, 'N', 'L',
     'N', 4000, 4000, 4000, 4000, 3984, 3984, 17, 17, 17, 17, 128, 128,
     GRID_1X2, {1, 0}, {0, 0}, 40},
    {'e', "e", "pdtran 200x200 blk 32 a=1 b=0 1x2", K_DTRAN, 'N', 'L', 'N',
     200, 200, 200, 200, 200, 200, 1, 1, 1, 1, 32, 32, GRID_1X2, {1, 0},
     {0, 0}, 200},
    {'f', "f", "pdtrmr2d L,N 4000x4000 blk 36->128 1x2", K_DTRMR2D, 'N', 'L',
     'N', 4000, 4000, 4000, 4000, 4000, 4000, 1, 1, 1, 1, 36, 128, GRID_1X2,
     {1, 0}, {0, 0}, 40},
    {'g', "g1", "pdgeadd N 4000x4000 blk 128 a=1 b=1 1x2", K_DGEADD, 'N', 'L',
     'N', 4000, 4000, 4000, 4000, 4000, 4000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {1, 0}, 40},
    {'g', "g2", "pdgeadd T 4000x4000 blk 128 a=1 b=1 1x2", K_DGEADD, 'T', 'L',
     'N', 4000, 4000, 4000, 4000, 4000, 4000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {1, 0}, 40},
    {'h', "h", "pdtran 4000x4000 blk 128 a=1 b=0 2x1", K_DTRAN, 'N', 'L',
     'N', 4000, 4000, 4000, 4000, 4000, 4000, 1, 1, 1, 1, 128, 128, GRID_2X1,
     {1, 0}, {0, 0}, 40},
    {'i', "i", "pdtran 1000x1000 blk 128 a=1 b=0 1x2", K_DTRAN, 'N', 'L',
     'N', 1000, 1000, 1000, 1000, 1000, 1000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {0, 0}, 30},
    {'j', "j", "pdtran 8000x8000 blk 128 a=1 b=0 1x2", K_DTRAN, 'N', 'L',
     'N', 8000, 8000, 8000, 8000, 8000, 8000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {0, 0}, 9},
    {'k', "k", "pdtran 4096x4096 blk 128 a=1 b=0 1x2", K_DTRAN, 'N', 'L',
     'N', 4096, 4096, 4096, 4096, 4096, 4096, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {0, 0}, 40},
    {'l', "l", "pztranc 2000x2000 blk 128 a=1 b=0 1x2", K_ZTRANC, 'N', 'L',
     'N', 2000, 2000, 2000, 2000, 2000, 2000, 1, 1, 1, 1, 128, 128, GRID_1X2,
     {1, 0}, {0, 0}, 40},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static int g_rank, g_nprocs;

/* A distributed matrix on one grid: descriptor and local storage.  Complex
 * elements are stored as (re, im) pairs of doubles. */
typedef struct {
    int desc[9];
    int locr, locc, lld;
    int ncomp; /* doubles per element: 1 real, 2 complex */
    double *data;
    size_t count; /* doubles */
} dmat_t;

/* Generating functions, unique and exact in double for indices < 2^20:
 * A (positive) and the initial C (negative), component k (0 re, 1 im).
 * All values are multiples of 1/4 below 2^33, so 3*c + 2*a is exact. */
static inline double gen_a(int64_t gi, int64_t gj, int k)
{
    return (double)(gi * 1048576 + gj) + (k ? 0.75 : 0.25);
}

static inline double gen_c(int64_t gi, int64_t gj, int k)
{
    return -(double)(gi * 1048576 + gj) - (k ? 0.75 : 0.5);
}

static int is_complex(const bench_case_t *c)
{
    return c->kind == K_ZTRANU || c->kind == K_ZTRANC;
}

static int beta_nonzero(const bench_case_t *c)
{
    return c->kind != K_DTRMR2D && (c->beta[0] != 0.0 || c->beta[1] != 0.0);
}

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

static void dmat_fill(dmat_t *x, const grid_t *g,
                      double (*gen)(int64_t, int64_t, int))
{
    int blk = x->desc[4];
    for (int lj = 0; lj < x->locc; lj++) {
        int64_t gj = l2g(lj, blk, g->mycol, g->npcol);
        for (int li = 0; li < x->locr; li++) {
            int64_t gi = l2g(li, blk, g->myrow, g->nprow);
            size_t at = ((size_t)lj * (size_t)x->lld + (size_t)li) *
                        (size_t)x->ncomp;
            for (int k = 0; k < x->ncomp; k++)
                x->data[at + (size_t)k] = gen(gi, gj, k);
        }
    }
}

/* Is (si, sj) of an m x n sub-matrix in pdtrmr2d_'s triangle? */
static int in_tri(int64_t si, int64_t sj, char uplo, char diag)
{
    if (si == sj)
        return diag == 'N';
    return uplo == 'L' ? si > sj : si < sj;
}

/* Expected value of C's element (gi, gj) (0-based) after one call from the
 * initial C; writes ncomp doubles to want. */
static void expected(const bench_case_t *c, int64_t gi, int64_t gj,
                     double want[2])
{
    int ncomp = is_complex(c) ? 2 : 1;
    int64_t si = gi - (c->ic - 1), sj = gj - (c->jc - 1);
    double c0[2] = {gen_c(gi, gj, 0), gen_c(gi, gj, 1)};
    want[0] = c0[0];
    want[1] = c0[1];
    if (si < 0 || si >= c->m || sj < 0 || sj >= c->n)
        return;
    int tr = c->kind == K_DTRAN || c->kind == K_ZTRANU ||
             c->kind == K_ZTRANC || (c->kind == K_DGEADD && c->trans != 'N');
    int64_t ai = (c->ia - 1) + (tr ? sj : si);
    int64_t aj = (c->ja - 1) + (tr ? si : sj);
    double a0[2] = {gen_a(ai, aj, 0), gen_a(ai, aj, 1)};
    if (c->kind == K_ZTRANC) {
        a0[1] = -a0[1]; /* conjugated */
    }
    if (c->kind == K_DTRMR2D) {
        if (in_tri(si, sj, c->uplo, c->diag))
            want[0] = a0[0];
        return;
    }
    const double *al = c->alpha, *be = c->beta;
    if (ncomp == 1) {
        want[0] = be[0] * c0[0] + al[0] * a0[0];
    } else {
        want[0] = be[0] * c0[0] - be[1] * c0[1] + al[0] * a0[0] -
                  al[1] * a0[1];
        want[1] = be[0] * c0[1] + be[1] * c0[0] + al[0] * a0[1] +
                  al[1] * a0[0];
    }
}

/* Local check of native's C after one call.  Returns the number of bad
 * elements. */
static long check_expected(const dmat_t *x, const grid_t *g,
                           const bench_case_t *c)
{
    long bad = 0;
    int blk = x->desc[4];
    for (int lj = 0; lj < x->locc; lj++) {
        int64_t gj = l2g(lj, blk, g->mycol, g->npcol);
        for (int li = 0; li < x->locr; li++) {
            int64_t gi = l2g(li, blk, g->myrow, g->nprow);
            double want[2];
            expected(c, gi, gj, want);
            size_t at = ((size_t)lj * (size_t)x->lld + (size_t)li) *
                        (size_t)x->ncomp;
            if (memcmp(&x->data[at], want,
                       (size_t)x->ncomp * sizeof(double)) != 0)
                bad++;
        }
    }
    return bad;
}

/* Local elements of the pdtrmr2d_ triangle of an m x n sub-matrix at
 * (i0, j0) (1-based). */
static int64_t local_tri_elems(const grid_t *g, int i0, int j0, int m, int n,
                               int blk, char uplo, char diag)
{
    int64_t total = 0;
    int skip = diag == 'N' ? 0 : 1;
    for (int sj = 0; sj < n; sj++) {
        int gj = j0 - 1 + sj; /* 0-based */
        if ((gj / blk) % g->npcol != g->mycol)
            continue;
        int lo, hi; /* rows [lo, hi) of the sub-matrix */
        cs_bench_trap_rows(uplo, skip, sj, m, &lo, &hi);
        if (hi > lo)
            total += owned(i0 + lo, hi - lo, blk, g->myrow, g->nprow);
    }
    return total;
}

/* One call of the case's routine: C from A (and C when beta != 0). */
static void call(const bench_case_t *c, const dmat_t *a, dmat_t *x, int ctxt)
{
    static const char uplo_s[2][2] = {"L", "U"}, diag_s[2][2] = {"N", "U"},
                      trans_s[2][2] = {"N", "T"};
    const char *uplo = uplo_s[c->uplo != 'L'];
    const char *diag = diag_s[c->diag != 'N'];
    const char *trans = trans_s[c->trans != 'N'];
    switch (c->kind) {
    case K_DTRAN:
        pdtran_(&c->m, &c->n, c->alpha, a->data, &c->ia, &c->ja, a->desc,
                c->beta, x->data, &c->ic, &c->jc, x->desc);
        break;
    case K_ZTRANU:
        pztranu_(&c->m, &c->n, c->alpha, a->data, &c->ia, &c->ja, a->desc,
                 c->beta, x->data, &c->ic, &c->jc, x->desc);
        break;
    case K_ZTRANC:
        pztranc_(&c->m, &c->n, c->alpha, a->data, &c->ia, &c->ja, a->desc,
                 c->beta, x->data, &c->ic, &c->jc, x->desc);
        break;
    case K_DTRMR2D:
        pdtrmr2d_(uplo, diag, &c->m, &c->n, a->data, &c->ia, &c->ja, a->desc,
                  x->data, &c->ic, &c->jc, x->desc, &ctxt, 1, 1);
        break;
    case K_DGEADD:
        pdgeadd_(trans, &c->m, &c->n, c->alpha, a->data, &c->ia, &c->ja,
                 a->desc, c->beta, x->data, &c->ic, &c->jc, x->desc, 1);
        break;
    default:
        cs_bench_die("bad case kind");
    }
}

/* The timed call of run_case: into cn natively, into cs with the shim. */
typedef struct {
    const bench_case_t *c;
    const dmat_t *a;
    dmat_t *cn, *cs;
    int ctxt;
} call_ctx_t;

static void call_case(void *p, int shim)
{
    call_ctx_t *x = p;
    call(x->c, x->a, shim ? x->cs : x->cn, x->ctxt);
}

static cs_bench_row_t run_case(const bench_case_t *c, const grid_t *grids,
                               int reps, int have_shim, double rw_bw,
                               double mpi_bw)
{
    const grid_t *g = &grids[c->grid];
    int ctxt = g->ctxt;
    int ncomp = is_complex(c) ? 2 : 1;
    dmat_t a, cn, cs;
    cs_bench_row_t res = {.label = c->label, .what = cs_bench_desc(c->what), .size = c->m,
                          .reps = reps, .ok = 1};

    dmat_init(&a, g, c->ma, c->na, c->blka, ncomp);
    dmat_init(&cn, g, c->mc, c->nc, c->blkc, ncomp);
    dmat_init(&cs, g, c->mc, c->nc, c->blkc, ncomp);
    dmat_fill(&a, g, gen_a);
    dmat_fill(&cn, g, gen_c);
    dmat_fill(&cs, g, gen_c);

    /* Verification from identical inputs, also the first (timed) call of
     * both paths. */
    call_ctx_t cx = {c, &a, &cn, &cs, ctxt};
    cs_bench_mem_start();
    res.native_first_ms = cs_bench_time_once(call_case, &cx, 0);
    long bad_native = check_expected(&cn, g, c), bad_shim = 0;
    if (have_shim) {
        /* the shim's target as freshly written as native's (see
         * bench_gemr2d.c) */
        dmat_fill(&cs, g, gen_c);
        res.shim_first_ms = cs_bench_time_once(call_case, &cx, 1);
        bad_shim =
            memcmp(cn.data, cs.data, cn.count * sizeof(double)) != 0;
    }
    res.ok = cs_bench_verdict(c->label, bad_native, bad_shim);

    /* From here on C keeps accumulating when beta != 0 (values stay
     * finite for any sane --reps; the check above is what counts). */
    int warm = c->m * c->n < 1000000 ? 10 : 2;
    cs_bench_time(call_case, &cx, warm, reps, have_shim, &res);
    cs_bench_phases(&res);
    cs_bench_mem_end(&res);

    /* Copy floor: read own part of sub(A) + write own part of sub(C)
     * (+ read it when beta != 0); the triangle only for pdtrmr2d_. */
    int64_t rd_a, wr_c;
    if (c->kind == K_DTRMR2D) {
        rd_a = local_tri_elems(g, c->ia, c->ja, c->m, c->n, c->blka, c->uplo,
                               c->diag);
        wr_c = local_tri_elems(g, c->ic, c->jc, c->m, c->n, c->blkc, c->uplo,
                               c->diag);
    } else {
        int tr = c->kind != K_DGEADD || c->trans != 'N';
        rd_a = local_sub_elems(g, c->ia, c->ja, tr ? c->n : c->m,
                               tr ? c->m : c->n, c->blka);
        wr_c = local_sub_elems(g, c->ic, c->jc, c->m, c->n, c->blkc);
    }
    int64_t loc = rd_a + wr_c * (beta_nonzero(c) ? 2 : 1);
    int64_t locmax = 0;
    MPI_Allreduce(&loc, &locmax, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    res.floor_ms = 1e3 * (double)locmax * (double)ncomp *
                   (double)sizeof(double) / rw_bw;
    cs_bench_place_t pa = {g, c->ia, c->ja, c->blka},
                     pc = {g, c->ic, c->jc, c->blkc};
    int tr_src = c->kind != K_DTRMR2D &&
                 (c->kind != K_DGEADD || c->trans != 'N');
    res.mpi_floor_ms = cs_bench_mpi_floor_ms(
        loc, c->m, c->n, &pc, &pa, tr_src,
        c->kind == K_DTRMR2D ? c->uplo : 'A', c->diag != 'N',
        (size_t)ncomp * sizeof(double), rw_bw, mpi_bw);

    free(a.data);
    free(cn.data);
    free(cs.data);
    return res;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_tran [--cases abcdefghijkl] [--reps N] "
               "[--csv FILE]\n");
}

int main(int argc, char **argv)
{
    const char *which = "abcdefghijkl", *csv = NULL;
    int reps = 0, rc = 0;

    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&g_rank, &g_nprocs);
    cs_bench_init("bench_tran");

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

    grid_t grids[NGRIDS];
    bench_grids_init(grids);

    int all_have = cs_bench_find_shim();
    size_t cbytes = (size_t)256 << 20;
    double bw = cs_bench_memcpy_bw(cbytes); /* copied bytes/s per rank */
    double rw_bw = 2.0 * bw;                /* read + written bytes/s */
    double mpi_bw = cs_bench_mpi_bw(cbytes); /* received bytes/s */
    cs_bench_print_head("pdtran_/pztranu_/pdtrmr2d_/pdgeadd_ benchmark",
                        "copy_ms: (own part of sub(A) read + own part of "
                        "sub(C) written [+ read if beta != 0], max over "
                        "ranks) / read+write bandwidth",
                        all_have, cbytes, bw, mpi_bw, 40);
    if (csv)
        cs_bench_csv_open(csv, "bench_tran");
    /* Cases in --cases order; a letter selects every case with that id. */
    for (const char *p = which; *p; p++) {
        for (int k = 0; k < NCASES; k++) {
            const bench_case_t *c = &cases[k];
            if (c->id != *p)
                continue;
            int r = reps ? reps : c->reps;
            cs_bench_row_t res = run_case(c, grids, r, all_have, rw_bw,
                                          mpi_bw);
            if (!res.ok)
                rc = 1;
            cs_bench_print_row(&res, 40, all_have);
        }
    }
    cs_bench_csv_close();
    if (g_rank == 0 && !all_have)
        printf("\nok*: native result checked against the expected values "
               "only (no shim)\n");

    bench_grids_exit(grids);
    MPI_Finalize();
    return rc;
}
