/*
 * test_apps/scalapack/tran_badarg.c - pdtran_ with one invalid argument.
 *
 * Why: ScaLAPACK's PBLAS check their arguments on every process
 * (PB_Cchkmat), print "PBLAS ERROR ..." lines through PB_Cwarn and abort
 * through PB_Cabort -> Cblacs_abort -> MPI_Abort(INFO) (scalapack-semantics.md
 * 3.4-3.5).  Under costa-shim the same invalid call must give the same
 * messages and the same exit status.  The check script runs each case
 * natively and under the shim and compares.
 *
 *   tran_badarg --case K
 *
 * Grid 1 x np (np <= 3) or 2 x np/2 (np even, > 3), row major.  A is 10 x 12
 * (MB 2, NB 3), C is 12 x 10 (MB 3, NB 2); the call is
 * sub(C)(1:4, 1:5) := 2 * sub(A)(1:5, 1:4)' + 1 * sub(C) with the case's
 * single change:
 *   0  none (valid call; prints "returned" and cs_test: OK)
 *   1  IA = 7 (IA-1+N = 11 > M_A = 10)          expected INFO -5
 *   2  DESCC CTXT = a second context over the same processes   -1202
 *   3  DESCC NB = 0                                             -1206
 *   4  DESCC LLD = 1 on the last rank only (it owns rows)       -1211 there
 *   5  DESCA DTYPE = 3                                          -701
 *   6  M = -1                                                   -1
 *   7  N = -1                                                   -2
 *   8  JA = 0                                                   -6
 *   9  DESCA RSRC = P (outside the grid)                        -709
 *   10 DESCA CSRC = -2                                          -710
 *   11 DESCC M_ = 0 (sub(C) has rows)                           -1203
 *   12 JC = 8 (JC-1+M = 11 > N_C = 10)                          -11
 *   13 DESCA MB = 0                                             -705
 * ranks that disagree (PBLAS would compute wrong values or hang; under the
 * shim the call stops, naming the argument and the values):
 *   14 DESCA NB: 3 on rank 0, 4 elsewhere
 *   15 IA: 1 on rank 0, 2 elsewhere
 *   16 ALPHA: 2 on rank 0, 3 elsewhere
 *   17 M: 4 on rank 0, 3 elsewhere
 *   18 DESCC CSRC: 0 on rank 0, 1 elsewhere (needs 2 or more columns)
 * a harmless difference (served):
 *   19 DESCA M_: 10 on rank 0, 11 elsewhere (sub(A) inside both), with
 *      ALPHA = 1 (alpha 2 with beta 1 the shim leaves to PBLAS)
 * Prints "case K: calling pdtran_" before the call and, if the call returns,
 * "case K: returned, C untouched outside sub(C): yes|no" and, for cases 0
 * and 19, "case K: sub(C) sum <bits>" (a digest of every element).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"


int main(int argc, char **argv)
{
    int rank, np, kase = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--case") && i + 1 < argc)
            kase = atoi(argv[++i]);
    if (kase < 0 || kase > 19) {
        if (rank == 0)
            fprintf(stderr, "usage: tran_badarg --case 0..19\n");
        MPI_Finalize();
        return 2;
    }
    int bp, bn, ctxt, ctxt2, P, Q, pr, pc, myrow, mycol, izero = 0;
    Cblacs_pinfo(&bp, &bn);
    P = (np % 2 == 0 && np > 3) ? 2 : 1;
    Q = np / P;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", P, Q);
    Cblacs_get(-1, 0, &ctxt2);
    Cblacs_gridinit(&ctxt2, "R", P, Q); /* same processes, other handle */
    Cblacs_gridinfo(ctxt, &pr, &pc, &myrow, &mycol);

    /* case 19: the other ranks' A has 11 rows (their LLD holds them) */
    int MA = kase == 19 && rank > 0 ? 11 : 10, NA = 12, MBA = 2, NBA = 3;
    int MC = 12, NC = 10, MBC = 3, NBC = 2;
    int ra = numroc_(&MA, &MBA, &myrow, &izero, &P);
    int ca = numroc_(&NA, &NBA, &mycol, &izero, &Q);
    int rc = numroc_(&MC, &MBC, &myrow, &izero, &P);
    int cc = numroc_(&NC, &NBC, &mycol, &izero, &Q);
    int lda = ra > 1 ? ra : 1, ldc = rc > 1 ? rc : 1;
    int desca[9] = {1, ctxt, MA, NA, MBA, NBA, 0, 0, lda};
    int descc[9] = {1, ctxt, MC, NC, MBC, NBC, 0, 0, ldc};
    size_t na = (size_t)lda * (size_t)(ca > 0 ? ca : 1);
    size_t nc = (size_t)ldc * (size_t)(cc > 0 ? cc : 1);
    double *A = malloc(na * sizeof(double)), *C = malloc(nc * sizeof(double));
    double *C0 = malloc(nc * sizeof(double));
    if (!A || !C || !C0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t e = 0; e < na; e++)
        A[e] = 1.0 + (double)e + 100.0 * rank;
    for (size_t e = 0; e < nc; e++)
        C[e] = C0[e] = -1.0 - (double)e - 100.0 * rank;

    int m = 4, n = 5, ia = 1, ja = 1, ic = 1, jc = 1;
    double alpha = 2, beta = 1;
    switch (kase) {
    case 1: ia = 7; break;
    case 2: descc[1] = ctxt2; break;
    case 3: descc[5] = 0; break;
    case 4:
        if (rank == np - 1)
            descc[8] = 1; /* the last rank owns more than one row of C */
        break;
    case 5: desca[0] = 3; break;
    case 6: m = -1; break;
    case 7: n = -1; break;
    case 8: ja = 0; break;
    case 9: desca[6] = P; break;
    case 10: desca[7] = -2; break;
    case 11: descc[2] = 0; break;
    case 12: jc = 8; break;
    case 13: desca[4] = 0; break;
    case 14: desca[5] = rank == 0 ? 3 : 4; break;
    case 15: ia = rank == 0 ? 1 : 2; break;
    case 16: alpha = rank == 0 ? 2 : 3; break;
    case 17: m = rank == 0 ? 4 : 3; break;
    case 18: descc[7] = rank == 0 ? 0 : 1; break;
    case 19: alpha = 1; break; /* alpha 2, beta 1 goes to PBLAS anyway */
    default: break;
    }
    if (rank == 0) {
        printf("case %d: calling pdtran_\n", kase);
        fflush(stdout);
    }
    pdtran_(&m, &n, &alpha, A, &ia, &ja, desca, &beta, C, &ic, &jc, descc);

    /* only a valid call gets here (or one that PBLAS does not detect) */
    int ok = 1;
    for (int lj = 0; lj < cc; lj++) {
        int gj = ((lj / NBC) * Q + mycol) * NBC + lj % NBC;
        for (int li = 0; li < rc; li++) {
            int gi = ((li / MBC) * P + myrow) * MBC + li % MBC;
            size_t e = (size_t)lj * ldc + li;
            if ((gi >= m || gj >= n) && C[e] != C0[e])
                ok = 0;
        }
    }
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("case %d: returned, C untouched outside sub(C): %s\n", kase,
               all_ok ? "yes" : "no");
        fflush(stdout);
    }
    if (!all_ok)
        cs_test_failures++;
    if (kase == 0 || kase == 19) {
        /* every element of C, in global order, as bits: equal natively and
         * under the shim */
        unsigned long long h = 0, all_h = 0;
        for (int lj = 0; lj < cc; lj++)
            for (int li = 0; li < rc; li++) {
                unsigned long long b;
                memcpy(&b, &C[(size_t)lj * ldc + li], sizeof(b));
                h += b * (unsigned long long)(1 + li + 97 * lj + 9973 * rank);
            }
        MPI_Allreduce(&h, &all_h, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM,
                      MPI_COMM_WORLD);
        if (rank == 0)
            printf("case %d: sub(C) sum %016llx\n", kase, all_h);
    }
    free(A);
    free(C);
    free(C0);
    Cblacs_gridexit(ctxt2);
    Cblacs_gridexit(ctxt);
    int ret = 0;
    if (rank == 0)
        ret = cs_test_done();
    MPI_Finalize();
    return ret;
}
