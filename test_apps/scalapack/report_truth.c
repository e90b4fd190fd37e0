/*
 * test_apps/scalapack/report_truth.c - a plain ScaLAPACK program whose
 * call counts and byte volumes are known in closed form, for the checks of
 * costa-shim's report (52_report_*.sh).  Exactly 2 ranks.
 *
 * Why: a report that counts wrongly (a shape row too many, bytes counted
 * twice, a call missing from a table) still "looks" right; these runs
 * make every number predictable.
 *
 * Default mode: A is N x N (N = 100) on a 1x2 grid with 32x32 blocks, B
 * the same matrix on a 2x1 grid with 16x16 blocks; the program calls
 *   pdgemr2d_  --reps R times (default 3)  from copy_fortran()
 *   Cpdgemr2d  once                        from copy_c()
 *   pdgemr2d_  once with m = n = 4          from copy_small()
 * all with ictxt = A's context, checks B against A after each, and prints
 * "calls pdgemr2d_ <R + 1>" and "calls Cpdgemr2d 1".  Volumes per call
 * (elements): rank r keeps colsA(r) * rowsB(r), sends colsA(r) *
 * rowsB(1 - r), where colsA = numroc(N, 32, r, 0, 2) and rowsB =
 * numroc(N, 16, r, 0, 2).
 *
 * --shapes K: K calls of pdgemr2d_ copying A(1:k, 1) to B(1:k, 1) for
 * k = 1..K (K distinct call shapes), A K x 2 on the 1x2 grid (32x32
 * blocks), B on the 2x1 grid (16x16 blocks); then B(1:K, 1) is checked.
 *
 * --skew-ms S: a known load imbalance.  R times (--reps): rank 1 sleeps S
 * milliseconds, then both call pdgemr2d_ (A to B as above); rank 1 sleeps
 * S ms again, then both call pdtran_ (C := A^T, C on A's grid).  So rank
 * 0 waits about S ms for rank 1 at the start of every call, rank 1 not at
 * all; B and C are checked.  Prints "calls pdgemr2d_ R", "calls pdtran_
 * R" and "skew_ms S".
 *
 * Prints "cs_test: OK" last on success.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_blacs.h"
#include "cs_test.h"


/* One distributed matrix of this rank. */
typedef struct {
    int desc[9];
    int locr, locc;
    double *v;
    int ctxt, myr, myc, p, q, mb;
} dmat_t;

static void dmat_init(dmat_t *x, int ctxt, int m, int n, int mb)
{
    int zero = 0, info = 0;
    memset(x, 0, sizeof(*x));
    x->ctxt = ctxt;
    x->mb = mb;
    Cblacs_gridinfo(ctxt, &x->p, &x->q, &x->myr, &x->myc);
    x->locr = numroc_(&m, &mb, &x->myr, &zero, &x->p);
    x->locc = numroc_(&n, &mb, &x->myc, &zero, &x->q);
    int lld = x->locr > 1 ? x->locr : 1;
    descinit_(x->desc, &m, &n, &mb, &mb, &zero, &zero, &ctxt, &lld, &info);
    CS_TEST_EQ(info, 0);
    size_t cnt = (size_t)lld * (size_t)(x->locc > 0 ? x->locc : 1);
    x->v = calloc(cnt, sizeof(double));
    CS_TEST_ASSERT(x->v);
}

/* Global index (0-based) of local index l in a block-cyclic dimension. */
static int global_of(int l, int nb, int me, int np)
{
    return (l / nb * np + me) * nb + l % nb;
}

static double value(int i, int j)
{
    return 1000.0 * i + j + 1.0;
}

static void fill(dmat_t *x, int zero)
{
    for (int c = 0; c < x->locc; c++) {
        int j = global_of(c, x->mb, x->myc, x->q);
        for (int r = 0; r < x->locr; r++) {
            int i = global_of(r, x->mb, x->myr, x->p);
            x->v[r + (size_t)c * x->desc[8]] = zero ? 0.0 : value(i, j);
        }
    }
}

/* B(0:m-1, 0:n-1) must hold A's values and the rest of B zeros. */
static void check(const dmat_t *b, int m, int n, const char *what)
{
    for (int c = 0; c < b->locc; c++) {
        int j = global_of(c, b->mb, b->myc, b->q);
        for (int r = 0; r < b->locr; r++) {
            int i = global_of(r, b->mb, b->myr, b->p);
            double want = i < m && j < n ? value(i, j) : 0.0;
            double got = b->v[r + (size_t)c * b->desc[8]];
            CS_TEST_CHECK(got == want, "%s: B(%d,%d) = %g, expected %g",
                          what, i, j, got, want);
        }
    }
}

/* The three call sites (separate functions: separate callers). */
static __attribute__((noinline)) void copy_fortran(int m, int n, dmat_t *a,
                                                   dmat_t *b, int ctxt)
{
    int one = 1;
    pdgemr2d_(&m, &n, a->v, &one, &one, a->desc, b->v, &one, &one, b->desc,
              &ctxt);
}

static __attribute__((noinline)) void copy_c(int m, int n, dmat_t *a,
                                             dmat_t *b, int ctxt)
{
    Cpdgemr2d(m, n, a->v, 1, 1, a->desc, b->v, 1, 1, b->desc, ctxt);
}

static __attribute__((noinline)) void copy_small(dmat_t *a, dmat_t *b,
                                                 int ctxt)
{
    int four = 4, one = 1;
    pdgemr2d_(&four, &four, a->v, &one, &one, a->desc, b->v, &one, &one,
              b->desc, &ctxt);
}

static void run_truth(int ga, int gb, int reps, int me)
{
    const int n = 100;
    dmat_t a, b;
    dmat_init(&a, ga, n, n, 32);
    dmat_init(&b, gb, n, n, 16);
    fill(&a, 0);
    for (int k = 0; k < reps; k++) {
        fill(&b, 1);
        copy_fortran(n, n, &a, &b, ga);
        check(&b, n, n, "pdgemr2d_");
    }
    fill(&b, 1);
    copy_c(n, n, &a, &b, ga);
    check(&b, n, n, "Cpdgemr2d");
    fill(&b, 1);
    copy_small(&a, &b, ga);
    check(&b, 4, 4, "pdgemr2d_ 4x4");
    if (me == 0) {
        printf("calls pdgemr2d_ %d\ncalls Cpdgemr2d 1\n", reps + 1);
    }
    free(a.v);
    free(b.v);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void run_skew(int ga, int gb, int reps, int skew, int me)
{
    const int n = 100, one = 1;
    const double alpha = 1.0, beta = 0.0;
    dmat_t a, b, c;
    dmat_init(&a, ga, n, n, 32);
    dmat_init(&b, gb, n, n, 16);
    dmat_init(&c, ga, n, n, 32);
    fill(&a, 0);
    for (int k = 0; k < reps; k++) {
        fill(&b, 1);
        if (me == 1) {
            sleep_ms(skew);
        }
        copy_fortran(n, n, &a, &b, ga);
        check(&b, n, n, "pdgemr2d_ (skewed)");
        if (me == 1) {
            sleep_ms(skew);
        }
        pdtran_(&n, &n, &alpha, a.v, &one, &one, a.desc, &beta, c.v, &one,
                &one, c.desc);
        for (int lc = 0; lc < c.locc; lc++) {
            int j = global_of(lc, c.mb, c.myc, c.q);
            for (int lr = 0; lr < c.locr; lr++) {
                int i = global_of(lr, c.mb, c.myr, c.p);
                double got = c.v[lr + (size_t)lc * c.desc[8]];
                CS_TEST_CHECK(got == value(j, i),
                              "pdtran_: C(%d,%d) = %g, expected %g", i, j,
                              got, value(j, i));
            }
        }
    }
    if (me == 0) {
        printf("calls pdgemr2d_ %d\ncalls pdtran_ %d\nskew_ms %d\n", reps,
               reps, skew);
    }
    free(a.v);
    free(b.v);
    free(c.v);
}

static void run_shapes(int ga, int gb, int count, int me)
{
    dmat_t a, b;
    dmat_init(&a, ga, count, 2, 32);
    dmat_init(&b, gb, count, 2, 16);
    fill(&a, 0);
    fill(&b, 1);
    for (int k = 1; k <= count; k++) {
        copy_fortran(k, 1, &a, &b, ga);
    }
    check(&b, count, 1, "shapes");
    if (me == 0) {
        printf("calls pdgemr2d_ %d\n", count);
    }
    free(a.v);
    free(b.v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int reps = 3, shapes = 0, skew = -1, me = 0, np = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--shapes") && i + 1 < argc) {
            shapes = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--skew-ms") && i + 1 < argc) {
            skew = atoi(argv[++i]);
        } else {
            fprintf(stderr, "usage: report_truth [--reps R] [--shapes K] "
                            "[--skew-ms S]\n");
            return 2;
        }
    }
    Cblacs_pinfo(&me, &np);
    if (np != 2) {
        fprintf(stderr, "report_truth: needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int ga = 0, gb = 0;
    Cblacs_get(0, 0, &ga);
    Cblacs_gridinit(&ga, "R", 1, 2);
    Cblacs_get(0, 0, &gb);
    Cblacs_gridinit(&gb, "R", 2, 1);
    if (skew >= 0) {
        run_skew(ga, gb, reps, skew, me);
    } else if (shapes > 0) {
        run_shapes(ga, gb, shapes, me);
    } else {
        run_truth(ga, gb, reps, me);
    }
    Cblacs_gridexit(ga);
    Cblacs_gridexit(gb);
    int bad = cs_test_failures, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    cs_test_failures = any;
    int rc = 1;
    if (me == 0) {
        rc = cs_test_done();
    } else {
        rc = any ? 1 : 0;
    }
    MPI_Finalize();
    return rc;
}
