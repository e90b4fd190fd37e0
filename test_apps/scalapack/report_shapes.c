/*
 * test_apps/scalapack/report_shapes.c - calls whose processes sit outside
 * one operand's grid, for the report's shape table, on any number of
 * ranks P >= 1 with the same call shapes whatever P.
 *
 * Every matrix lives on a 1 x 1 grid g[k] of rank k (Cblacs_gridmap), so
 * the shapes (m, n, blocks, grids "1x1") do not depend on P; which rank
 * knows which operand does (as NWChem's pdsyntrd gathers a matrix onto one
 * process).  The global context is a 1 x P grid of all ranks.  --reps R
 * times each, all ranks calling pdgemr2d_:
 *
 *   S1 (n x n, 16 x 16 blocks -> 1 x 1 blocks)
 *     g[P-1] -> g[P-1]     rank P-1 knows both operands' blocks
 *     g[0]   -> g[1 % P]   rank 0 knows only A's, rank 1 only B's
 *   S2 (n x n2, 1 x 1 blocks -> 16 x 16 blocks), the other way round
 *     (n2 = n - 7 unless --n2 says otherwise)
 *     g[P-1] -> g[P-1]
 *     g[1 % P] -> g[0]     rank 1 knows only A's, rank 0 only B's
 *
 * On 1 rank every call is seen whole; on 3 and 4 ranks the ranks that
 * know one operand each are reduced first in MPI's tree (binomial: 1 into
 * 0), the one that knows both joins later.  The report must show the same
 * two shapes for every P, with P times the calls of one rank.  A process
 * outside a grid passes that matrix's descriptor with CTXT -1 and the
 * other entries as DESCINIT would set them.  The target's owner checks
 * every element after each call; rank 0 prints "calls N" (per rank) and
 * the sentinel.  Plain ScaLAPACK: it never includes the shim.  With
 * --n2 N the two shapes have the same m and n, so a rank outside both
 * grids of a call cannot tell which shape it saw.
 *
 * usage: report_shapes [--n N] [--n2 N2] [--reps R]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"

enum { NB = 16, MAXP = 64 };

static double value(int i, int j, int salt)
{
    return (double)(salt * 1000003 + i * 1009 + j) + 0.25;
}

/*
 * One pdgemr2d_ call of an m x n matrix from the grid of rank `from`
 * (blocks bs) to the grid of rank `to` (blocks bd); ctx[k]: the context of
 * g[k] on its member, -1 elsewhere.  Returns the number of wrong elements
 * the target's owner found.
 */
static int call(int m, int n, int from, int bs, int to, int bd,
                const int *ctx, int all, int me, int salt)
{
    int one = 1;
    int desca[9] = {1, ctx[from], m, n, bs, bs, 0, 0, m};
    int descb[9] = {1, ctx[to], m, n, bd, bd, 0, 0, m};
    size_t na = me == from ? (size_t)m * (size_t)n : 1;
    size_t nb = me == to ? (size_t)m * (size_t)n : 1;
    double *a = calloc(na, sizeof(double)), *b = calloc(nb, sizeof(double));
    if (!a || !b)
        MPI_Abort(MPI_COMM_WORLD, 2);
    if (me == from)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                a[i + (size_t)j * (size_t)m] = value(i, j, salt);
    pdgemr2d_(&m, &n, a, &one, &one, desca, b, &one, &one, descb, &all);
    int bad = 0;
    if (me == to)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                bad += b[i + (size_t)j * (size_t)m] != value(i, j, salt);
    free(a);
    free(b);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = 60, n2 = -1, reps = 3, me, np;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--n2"))
            n2 = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (n2 < 0)
        n2 = n - 7;
    if (np > MAXP || n < 8 || n2 < 1 || reps < 1) {
        if (me == 0)
            fprintf(stderr, "report_shapes: at most %d ranks, n >= 8, "
                            "n2 >= 1, reps >= 1\n", MAXP);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int all, ctx[MAXP];
    Cblacs_get(0, 0, &all);
    Cblacs_gridinit(&all, "R", 1, np);
    for (int k = 0; k < np; k++) {
        int map = k;
        Cblacs_get(0, 0, &ctx[k]);
        Cblacs_gridmap(&ctx[k], &map, 1, 1, 1); /* -1 outside */
    }

    int last = np - 1, second = 1 % np, bad = 0, calls = 0;
    for (int k = 0; k < reps; k++) {
        bad += call(n, n, last, NB, last, 1, ctx, all, me, 4 * k);
        bad += call(n, n, 0, NB, second, 1, ctx, all, me, 4 * k + 1);
        bad += call(n, n2, last, 1, last, NB, ctx, all, me, 4 * k + 2);
        bad += call(n, n2, second, 1, 0, NB, ctx, all, me, 4 * k + 3);
        calls += 4;
    }
    int bad_all = 0;
    MPI_Allreduce(&bad, &bad_all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("calls %d\n", calls);
        if (bad_all)
            printf("cs_test: FAILED (%d elements)\n", bad_all);
        else
            printf("cs_test: OK\n");
    }
    Cblacs_gridexit(ctx[me]);
    Cblacs_gridexit(all);
    MPI_Finalize();
    return bad_all != 0;
}
