/*
 * test_apps/scalapack/uneven_cap.c - calls whose ranks run under
 * different memory caps, for check 43 (the call's agreement).
 *
 *   uneven_cap [--n N] [--nr NR]
 *
 * On a 1 x P grid: pdtrmr2d_ ('U', 'N') NR x NR in 64 x 64 blocks to a
 * matrix whose first block column is on the next process (every block
 * moves), twice (its plan is then cached; below 4 MiB, so the shim
 * settles it with one agreement), pdtran_ N x N once (with
 * COSTA_SHIM_SHM=eager its first call may grow the shared send buffer),
 * then the same pdtrmr2d_ twice more (a cached call after the buffer
 * grew).  Every element of every target is checked against its formula
 * (the upper trapezoid copied, the rest untouched).
 * The shim's memory cap is set per rank by the check (an MPMD launch).
 * Prints "calls <total over ranks>" and "wrong <count>" from rank 0, then
 * cs_test: OK when nothing was wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

void pdtrmr2d_(const char *uplo, const char *diag, const int *m,
               const int *n, const double *a, const int *ia, const int *ja,
               const int *desca, double *b, const int *ib, const int *jb,
               const int *descb, const int *ictxt, size_t luplo,
               size_t ldiag);

typedef struct {
    int desc[9];
    int lr, lc, lld, nb, csrc;
    double *v;
} mat_t;

/* x: n x n in nb x nb blocks, its first column of blocks on process
 * column csrc. */
static void mat_init(mat_t *x, int ctx, int n, int nb, int csrc, int p,
                     int q, int r, int c)
{
    int zero = 0, info;
    x->nb = nb;
    x->csrc = csrc;
    x->lr = numroc_(&n, &nb, &r, &zero, &p);
    x->lc = numroc_(&n, &nb, &c, &csrc, &q);
    x->lld = x->lr > 1 ? x->lr : 1;
    descinit_(x->desc, &n, &n, &nb, &nb, &zero, &csrc, &ctx, &x->lld, &info);
    size_t cnt = (size_t)x->lld * (size_t)(x->lc > 0 ? x->lc : 1);
    x->v = calloc(cnt, sizeof(double));
}

/* The global column of local column j of a 1 x q grid's process c. */
static int gcol(const mat_t *x, int j, int q, int c)
{
    return (j / x->nb * q + (c - x->csrc + q) % q) * x->nb + j % x->nb;
}

/* Elements of x that differ from f(i, j) = i * n + j (transposed: j * n +
 * i; upper: f where i <= j, else 0). */
static long wrong(const mat_t *x, int n, int q, int c, int transposed,
                  int upper)
{
    long bad = 0;
    for (int j = 0; j < x->lc; j++) {
        int gj = gcol(x, j, q, c);
        for (int i = 0; i < x->lr; i++) {
            double want = transposed ? (double)gj * n + i
                                     : (double)i * n + gj;
            if (upper && i > gj) {
                want = 0.0;
            }
            bad += x->v[i + (size_t)j * x->lld] != want;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    int me = 0, np = 1, n = 1000, nr = 700, one = 1;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--n")) {
            n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--nr")) {
            nr = atoi(argv[++i]);
        }
    }
    Cblacs_pinfo(&me, &np);
    int ctx = 0, p, q, r, c;
    Cblacs_get(0, 0, &ctx);
    Cblacs_gridinit(&ctx, "R", 1, np);
    Cblacs_gridinfo(ctx, &p, &q, &r, &c);
    mat_t a, ar, b, t;
    mat_init(&a, ctx, n, 64, 0, p, q, r, c);
    mat_init(&ar, ctx, nr, 64, 0, p, q, r, c);
    mat_init(&b, ctx, nr, 64, q > 1 ? 1 : 0, p, q, r, c);
    mat_init(&t, ctx, n, 64, 0, p, q, r, c);
    for (int j = 0; j < a.lc; j++) {
        for (int i = 0; i < a.lr; i++) {
            a.v[i + (size_t)j * a.lld] = (double)i * n + gcol(&a, j, q, c);
        }
    }
    for (int j = 0; j < ar.lc; j++) {
        for (int i = 0; i < ar.lr; i++) {
            ar.v[i + (size_t)j * ar.lld] =
                (double)i * nr + gcol(&ar, j, q, c);
        }
    }
    long bad = 0, calls = 0;
    double alpha = 1.0, beta = 0.0;
    for (int round = 0; round < 2; round++) {
        for (int k = 0; k < 2; k++, calls++) {
            memset(b.v, 0, (size_t)b.lld * (size_t)b.lc * sizeof(double));
            pdtrmr2d_("U", "N", &nr, &nr, ar.v, &one, &one, ar.desc, b.v,
                      &one, &one, b.desc, &ctx, 1, 1);
            bad += wrong(&b, nr, q, c, 0, 1);
        }
        for (int k = 0; round == 0 && k < 1; k++, calls++) {
            memset(t.v, 0, (size_t)t.lld * (size_t)t.lc * sizeof(double));
            pdtran_(&n, &n, &alpha, a.v, &one, &one, a.desc, &beta, t.v, &one,
                    &one, t.desc);
            bad += wrong(&t, n, q, c, 1, 0);
        }
    }
    long mine[2] = {calls, bad}, all[2];
    MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("calls %ld\nwrong %ld\n", all[0], all[1]);
        if (all[1]) {
            cs_test_failures++;
        }
    }
    free(a.v);
    free(ar.v);
    free(b.v);
    free(t.v);
    Cblacs_gridexit(ctx);
    int rc = me == 0 ? cs_test_done() : 0;
    MPI_Finalize();
    return rc;
}
