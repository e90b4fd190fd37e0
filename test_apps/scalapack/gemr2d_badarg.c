/*
 * test_apps/scalapack/gemr2d_badarg.c - pdgemr2d_ with one bad or
 * inconsistent argument, on exactly 2 ranks.
 *
 * Why: what ScaLAPACK detects itself (scalapack-semantics.md 2.6) must give
 * its own message and exit status under costa-shim too; where the ranks
 * pass different descriptors ScaLAPACK copies wrongly, divides by zero or
 * aborts with a truncated message, and the shim must stop instead, naming
 * the argument, the values and the ranks; where the difference does not
 * matter (the matrix size, with sub(A) inside both) the call is served.
 *
 *   gemr2d_badarg --case K
 *
 * A is 12 x 10 on a 1 x 2 grid (MB 3, NB 2), B 12 x 10 on a 2 x 1 grid
 * (MB 2, NB 3), ICTXT = A's context; the call copies A(1:6, 1:5) to
 * B(2:7, 3:7).  Every local array sits between guard zones.  Cases:
 *   0  none (valid)
 *   ScaLAPACK's own checks (2.6):
 *   1  DESCA CTXT = -1 everywhere (no process in A)  "something wrong"
 *   2  DESCA RSRC = 5                   "Bad first processor coordinates"
 *   3  IA = 0                           "Bad submatrix"
 *   4  IB = 9 (IB - 1 + M > M_B)        "Bad submatrix"
 *   5  DESCB LLD too small on rank 1    "bad lda"
 *   6  M = -3                           (this build: "out of memory")
 *   ranks that disagree (the shim stops and names it):
 *   7  DESCA NB: 2 on rank 0, 3 on rank 1
 *   8  DESCA CTXT: B's 2 x 1 grid on rank 1
 *   9  DESCB MB: 0 on rank 1 only
 *   10 DESCA CSRC: 0 on rank 0, 1 on rank 1
 *   11 M: 6 on rank 0, 5 on rank 1
 *   a harmless difference (served):
 *   12 DESCA M: 12 on rank 0, 13 on rank 1 (sub(A) inside both)
 * Prints "case K: calling pdgemr2d_" and, when the call returns, "case K:
 * returned, sub(B) right: yes|no, rest of B and guards untouched:
 * yes|no", then cs_test: OK when both are yes.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

#define GUARD 64
#define SENTINEL -7777.0

typedef struct {
    int desc[9], locr, locc, lld, p, q, myr, myc;
    double *mem, *v; /* v = mem + GUARD */
    size_t n;
} local_t;

static int global_of(int l, int nb, int me, int np)
{
    return (l / nb * np + me) * nb + l % nb;
}

static double value(int i, int j)
{
    return 100.0 * i + j + 0.25;
}

static void alloc_local(local_t *x, int ctxt, int m, int n, int mb, int nb)
{
    int zero = 0, info = 0;
    memset(x, 0, sizeof(*x));
    Cblacs_gridinfo(ctxt, &x->p, &x->q, &x->myr, &x->myc);
    x->locr = numroc_(&m, &mb, &x->myr, &zero, &x->p);
    x->locc = numroc_(&n, &nb, &x->myc, &zero, &x->q);
    x->lld = x->locr > 1 ? x->locr : 1;
    descinit_(x->desc, &m, &n, &mb, &nb, &zero, &zero, &ctxt, &x->lld,
              &info);
    x->n = (size_t)x->lld * (size_t)(x->locc > 0 ? x->locc : 1);
    x->mem = malloc((x->n + 2 * GUARD) * sizeof(double));
    for (size_t e = 0; e < x->n + 2 * GUARD; e++) {
        x->mem[e] = SENTINEL;
    }
    x->v = x->mem + GUARD;
}

int main(int argc, char **argv)
{
    int me = 0, np = 0, kase = -1;
    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            kase = atoi(argv[++i]);
        }
    }
    Cblacs_pinfo(&me, &np);
    if (np != 2 || kase < 0 || kase > 12) {
        if (me == 0) {
            fprintf(stderr, "usage: gemr2d_badarg --case 0..12 (2 ranks)\n");
        }
        MPI_Finalize();
        return 2;
    }
    int ga = 0, gb = 0;
    Cblacs_get(0, 0, &ga);
    Cblacs_gridinit(&ga, "R", 1, 2);
    Cblacs_get(0, 0, &gb);
    Cblacs_gridinit(&gb, "R", 2, 1);
    local_t a, b;
    /* case 12: rank 1's A has 13 rows (its LLD must hold them) */
    alloc_local(&a, ga, kase == 12 && me == 1 ? 13 : 12, 10, 3, 2);
    alloc_local(&b, gb, 12, 10, 2, 3);
    for (int c = 0; c < a.locc; c++) {
        for (int r = 0; r < a.locr; r++) {
            a.v[r + (size_t)c * a.lld] =
                value(global_of(r, 3, a.myr, a.p), global_of(c, 2, a.myc, a.q));
        }
    }
    for (size_t e = 0; e < b.n; e++) {
        b.v[e] = -1.0 - (double)e;
    }
    int m = 6, n = 5, ia = 1, ja = 1, ib = 2, jb = 3;
    switch (kase) {
    case 1: a.desc[1] = -1; break;
    case 2: a.desc[6] = 5; break;
    case 3: ia = 0; break;
    case 4: ib = 9; break;
    case 5: if (me == 1) b.desc[8] = 1; break;
    case 6: m = -3; break;
    case 7: a.desc[5] = me == 0 ? 2 : 3; break;
    case 8: if (me == 1) a.desc[1] = gb; break;
    case 9: if (me == 1) b.desc[4] = 0; break;
    case 10: a.desc[7] = me; break;
    case 11: m = me == 0 ? 6 : 5; break;
    default: break;
    }
    if (me == 0) {
        printf("case %d: calling pdgemr2d_\n", kase);
        fflush(stdout);
    }
    pdgemr2d_(&m, &n, a.v, &ia, &ja, a.desc, b.v, &ib, &jb, b.desc, &ga);

    int right = 1, rest = 1;
    for (int g = 0; g < GUARD; g++) {
        rest &= b.mem[g] == SENTINEL && b.mem[GUARD + b.n + g] == SENTINEL;
        rest &= a.mem[g] == SENTINEL && a.mem[GUARD + a.n + g] == SENTINEL;
    }
    for (int c = 0; c < b.locc; c++) {
        int j = global_of(c, 3, b.myc, b.q);
        for (int r = 0; r < b.locr; r++) {
            int i = global_of(r, 2, b.myr, b.p);
            size_t e = r + (size_t)c * b.lld;
            int in = i >= ib - 1 && i < ib - 1 + m && j >= jb - 1 &&
                     j < jb - 1 + n;
            if (in) {
                right &= b.v[e] == value(i - (ib - 1) + ia - 1,
                                         j - (jb - 1) + ja - 1);
            } else {
                rest &= b.v[e] == -1.0 - (double)e;
            }
        }
    }
    int mine[2] = {right, rest}, all[2];
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (me == 0) {
        printf("case %d: returned, sub(B) right: %s, rest of B and guards "
               "untouched: %s\n",
               kase, all[0] ? "yes" : "no", all[1] ? "yes" : "no");
    }
    if (!all[0] || !all[1]) {
        cs_test_failures++;
    }
    free(a.mem);
    free(b.mem);
    Cblacs_gridexit(ga);
    Cblacs_gridexit(gb);
    int rc = 0;
    if (me == 0) {
        rc = cs_test_done();
    }
    MPI_Finalize();
    return rc;
}
