/*
 * test_apps/scalapack/report_shapes.c - calls whose processes sit outside
 * one operand's grid, both ways, for the report's shape table.
 *
 * On 2 ranks: X (n x n) on a 1 x 2 grid of all ranks in NB x NB blocks,
 * and Y on a 1 x 1 grid of rank 0 in 1 x 1 blocks (as NWChem's pdsyntrd
 * gathers a matrix onto one process).  Rank 1 is outside Y's grid and
 * passes Y's descriptor with CTXT -1 and the other entries as DESCINIT
 * would set them.  The program calls pdgemr2d_ X -> Y, then Y -> X,
 * --reps times each, and checks the round trip (X comes back unchanged);
 * rank 0 prints "calls N" (per rank) and the sentinel.  Plain ScaLAPACK: it
 * never includes the shim.
 *
 * usage: report_shapes [--n N] [--reps R]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"

enum { NB = 16 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = 60, reps = 3, me, np;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2 || n < 1 || reps < 1) {
        if (me == 0)
            fprintf(stderr, "report_shapes: 2 ranks, n >= 1, reps >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int all, one, r, c, pr, pc;
    Cblacs_get(0, 0, &all);
    Cblacs_gridinit(&all, "R", 1, 2);
    Cblacs_get(0, 0, &one);
    Cblacs_gridinit(&one, "R", 1, 1); /* rank 0 only; -1 elsewhere */
    Cblacs_gridinfo(all, &pr, &pc, &r, &c);

    int nb = NB, zero = 0, two = 2;
    int lc = numroc_(&n, &nb, &c, &zero, &two), ldx = n;
    int descx[9] = {1, all, n, n, NB, NB, 0, 0, ldx};
    int descy[9] = {1, me == 0 ? one : -1, n, n, 1, 1, 0, 0, n};
    size_t nx = (size_t)ldx * (size_t)(lc > 0 ? lc : 1);
    size_t ny = me == 0 ? (size_t)n * (size_t)n : 1;
    double *x = malloc(nx * sizeof(double)), *x0 = malloc(nx * sizeof(double));
    double *y = calloc(ny, sizeof(double));
    if (!x || !x0 || !y)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t k = 0; k < nx; k++)
        x0[k] = x[k] = (double)(me * 100000 + (int)k) + 0.5;

    int one_i = 1, bad = 0, calls = 0;
    for (int k = 0; k < reps; k++) {
        pdgemr2d_(&n, &n, x, &one_i, &one_i, descx, y, &one_i, &one_i, descy,
                  &all);
        calls++;
    }
    memset(x, 0, nx * sizeof(double));
    for (int k = 0; k < reps; k++) {
        pdgemr2d_(&n, &n, y, &one_i, &one_i, descy, x, &one_i, &one_i, descx,
                  &all);
        calls++;
    }
    for (size_t k = 0; k < (size_t)ldx * (size_t)lc; k++)
        bad += x[k] != x0[k];
    int bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("calls %d\n", calls);
        if (bad_all)
            printf("cs_test: FAILED (%d elements)\n", bad_all);
        else
            printf("cs_test: OK\n");
    }
    free(x);
    free(x0);
    free(y);
    if (me == 0)
        Cblacs_gridexit(one);
    Cblacs_gridexit(all);
    MPI_Finalize();
    return bad_all != 0;
}
