/*
 * test_apps/scalapack/plan_reuse.c - repeated redistributions, as
 * applications and ScaLAPACK's eigensolvers make them: the shim reuses its
 * plan when every rank's descriptors, offsets and grid positions are the
 * same.  Each round uses fresh arrays (other pointers) and other values;
 * then the grids are freed and others created (BLACS recycles the context
 * handles) with other shapes but the same descriptors' numbers, so a plan
 * keyed by handle values would be stale.  Rounds 3 and 4 of each layout
 * give the last rank's B a larger leading dimension (only there: that
 * rank's plan changes, the other ranks' do not).  Checks every element of
 * B.  With 3 or more ranks a third part alternates two layouts of the same
 * size on a grid of all ranks but the last: the last rank's table row is
 * the same for both (it is in neither grid), so it always has a cached
 * table for its row while the members' newest one is the other layout's:
 * the shim must gather (a rank skipping alone would hang).
 * --collide (3 or more ranks) instead alternates, 8 times, a copy from a
 * 1 x np grid to a 1 x (np - 1) grid of ranks 1 .. np - 1 whose first
 * block column is on its process column 0, then 1: rank 0's row is the
 * same in both (it is outside B's grid), so from the third call on it
 * proposes the other layout's table while the others propose this one's,
 * tables that differ in B's CSRC only (and so in where rank 0 sends).
 * Check 36 runs it with every digest forced equal.
 * Run natively and under the shim; prints "cs_test: OK" on rank 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

static int check_round(int ctxa, int ctxb, int gctx, int m, int n, int mba,
                       int mbb, int round, int pad)
{
    int pa, qa, ra, ca, pb, qb, rb, cb, zero = 0, info;
    Cblacs_gridinfo(ctxa, &pa, &qa, &ra, &ca);
    Cblacs_gridinfo(ctxb, &pb, &qb, &rb, &cb);
    int lra = numroc_(&m, &mba, &ra, &zero, &pa);
    int lca = numroc_(&n, &mba, &ca, &zero, &qa);
    int lrb = numroc_(&m, &mbb, &rb, &zero, &pb);
    int lcb = numroc_(&n, &mbb, &cb, &zero, &qb);
    int llda = lra > 1 ? lra : 1, lldb = (lrb > 1 ? lrb : 1) + pad;
    int da[9], db[9];
    descinit_(da, &m, &n, &mba, &mba, &zero, &zero, &ctxa, &llda, &info);
    descinit_(db, &m, &n, &mbb, &mbb, &zero, &zero, &ctxb, &lldb, &info);
    double *a = malloc(sizeof(double) * (size_t)llda * (size_t)(lca + 1));
    double *b = malloc(sizeof(double) * (size_t)lldb * (size_t)(lcb + 1));
    /* element (i, j) of A: value from (i, j, round) */
    for (int j = 0; j < lca; j++) {
        for (int i = 0; i < lra; i++) {
            int gi = (i / mba * pa + ra) * mba + i % mba;
            int gj = (j / mba * qa + ca) * mba + j % mba;
            a[i + (size_t)j * llda] = gi * 1000.0 + gj + round * 0.5;
        }
    }
    for (size_t k = 0; k < (size_t)lldb * (size_t)lcb; k++) {
        b[k] = -1.0;
    }
    int one = 1;
    pdgemr2d_(&m, &n, a, &one, &one, da, b, &one, &one, db, &gctx);
    int bad = 0;
    for (int j = 0; j < lcb; j++) {
        for (int i = 0; i < lrb; i++) {
            int gi = (i / mbb * pb + rb) * mbb + i % mbb;
            int gj = (j / mbb * qb + cb) * mbb + j % mbb;
            bad += b[i + (size_t)j * lldb] != gi * 1000.0 + gj + round * 0.5;
        }
    }
    free(a);
    free(b);
    return bad;
}

/* One call from a 1 x (np - 1) grid with blocks mba to one with blocks mbb
 * over the first np - 1 ranks; the last rank takes part through gctx
 * only.  Returns the wrong elements of B here. */
static int check_sub(int ctx, int gctx, int m, int n, int mba, int mbb,
                     int round)
{
    int p = 0, q = 0, r = -1, c = -1, zero = 0, info, one = 1;
    int da[9] = {1, -1, m, n, mba, mba, 0, 0, 1};
    int db[9] = {1, -1, m, n, mbb, mbb, 0, 0, 1};
    double *a = NULL, *b = NULL;
    int lra = 0, lca = 0, lrb = 0, lcb = 0;
    if (ctx >= 0) {
        Cblacs_gridinfo(ctx, &p, &q, &r, &c);
    }
    if (r >= 0) {
        lra = numroc_(&m, &mba, &r, &zero, &p);
        lca = numroc_(&n, &mba, &c, &zero, &q);
        lrb = numroc_(&m, &mbb, &r, &zero, &p);
        lcb = numroc_(&n, &mbb, &c, &zero, &q);
        int llda = lra > 1 ? lra : 1, lldb = lrb > 1 ? lrb : 1;
        descinit_(da, &m, &n, &mba, &mba, &zero, &zero, &ctx, &llda, &info);
        descinit_(db, &m, &n, &mbb, &mbb, &zero, &zero, &ctx, &lldb, &info);
        a = malloc(sizeof(double) * (size_t)llda * (size_t)(lca + 1));
        b = malloc(sizeof(double) * (size_t)lldb * (size_t)(lcb + 1));
        for (int j = 0; j < lca; j++) {
            for (int i = 0; i < lra; i++) {
                int gj = (j / mba * q + c) * mba + j % mba;
                a[i + (size_t)j * llda] = i * 1000.0 + gj + round * 0.5;
            }
        }
    }
    pdgemr2d_(&m, &n, a, &one, &one, da, b, &one, &one, db, &gctx);
    int bad = 0;
    for (int j = 0; j < lcb; j++) {
        for (int i = 0; i < lrb; i++) {
            int gj = (j / mbb * q + c) * mbb + j % mbb;
            bad += b[i + (size_t)j * db[8]] != i * 1000.0 + gj + round * 0.5;
        }
    }
    free(a);
    free(b);
    return bad;
}

/* One call from the 1 x np grid ctxa (blocks 4) to the 1 x (np - 1) grid
 * ctxb of ranks 1 .. np - 1 (-1 on rank 0), blocks 5, its first block
 * column on process column csrc, over gctx.  Returns the wrong elements
 * of B here. */
static int check_shifted(int ctxa, int ctxb, int gctx, int m, int n,
                         int csrc, int round)
{
    int pa, qa, ra, ca, zero = 0, info, one = 1, mba = 4, mbb = 5;
    Cblacs_gridinfo(ctxa, &pa, &qa, &ra, &ca);
    int lra = numroc_(&m, &mba, &ra, &zero, &pa);
    int lca = numroc_(&n, &mba, &ca, &zero, &qa);
    int llda = lra > 1 ? lra : 1;
    int da[9], db[9] = {1, -1, m, n, mbb, mbb, 0, csrc, 1};
    descinit_(da, &m, &n, &mba, &mba, &zero, &zero, &ctxa, &llda, &info);
    double *a = malloc(sizeof(double) * (size_t)llda * (size_t)(lca + 1));
    double *b = NULL;
    for (int j = 0; j < lca; j++) {
        for (int i = 0; i < lra; i++) {
            int gj = (j / mba * qa + ca) * mba + j % mba;
            a[i + (size_t)j * llda] = i * 1000.0 + gj + round * 0.5;
        }
    }
    int pb = 0, qb = 0, rb = -1, cb = -1, lcb = 0;
    if (ctxb >= 0) {
        Cblacs_gridinfo(ctxb, &pb, &qb, &rb, &cb);
        lcb = numroc_(&n, &mbb, &cb, &csrc, &qb);
        descinit_(db, &m, &n, &mbb, &mbb, &zero, &csrc, &ctxb, &m, &info);
        b = malloc(sizeof(double) * (size_t)m * (size_t)(lcb + 1));
    }
    pdgemr2d_(&m, &n, a, &one, &one, da, b, &one, &one, db, &gctx);
    int bad = 0;
    for (int j = 0; b && j < lcb; j++) {
        int gj = (j / mbb * qb + (cb - csrc + qb) % qb) * mbb + j % mbb;
        for (int i = 0; i < m; i++) {
            bad += b[i + (size_t)j * m] != i * 1000.0 + gj + round * 0.5;
        }
    }
    free(a);
    free(b);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, sys;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int bad = 0, rounds = 0;
    int collide = argc > 1 && !strcmp(argv[1], "--collide");
    if (collide && np >= 3) {
        int ctxa, ctxb, gctx;
        int *map = malloc(sizeof(int) * (size_t)np);
        for (int k = 1; k < np; k++) {
            map[k - 1] = k;
        }
        Cblacs_get(-1, 0, &sys);
        ctxa = sys;
        Cblacs_gridinit(&ctxa, "R", 1, np);
        ctxb = sys;
        Cblacs_gridmap(&ctxb, map, 1, 1, np - 1); /* -1 on rank 0 */
        gctx = sys;
        Cblacs_gridinit(&gctx, "R", 1, np);
        for (int r = 0; r < 8; r++, rounds++) {
            bad += check_shifted(ctxa, ctxb, gctx, 19, 23, r % 2, r);
        }
        free(map);
    }
    /* two layouts: 1 x np -> np x 1, then np x 1 -> 1 x np */
    for (int phase = 0; !collide && phase < 2; phase++) {
        int ctxa, ctxb, gctx;
        Cblacs_get(-1, 0, &sys);
        ctxa = sys;
        Cblacs_gridinit(&ctxa, "R", phase ? np : 1, phase ? 1 : np);
        ctxb = sys;
        Cblacs_gridinit(&ctxb, "R", phase ? 1 : np, phase ? np : 1);
        gctx = sys;
        Cblacs_gridinit(&gctx, "R", 1, np);
        for (int r = 0; r < 6; r++, rounds++) {
            int pad = (r == 3 || r == 4) && me == np - 1 ? 3 : 0;
            bad += check_round(ctxa, ctxb, gctx, 37, 29, 4, 5, rounds, pad);
        }
        Cblacs_gridexit(ctxa);
        Cblacs_gridexit(ctxb);
        Cblacs_gridexit(gctx);
    }
    int sub_calls = 0;
    if (np >= 3 && !collide) {
        int ctx, gctx;
        Cblacs_get(-1, 0, &sys);
        ctx = sys;
        Cblacs_gridinit(&ctx, "R", 1, np - 1); /* -1 on the last rank */
        gctx = sys;
        Cblacs_gridinit(&gctx, "R", 1, np);
        for (int r = 0; r < 6; r++, sub_calls++) {
            bad += check_sub(ctx, gctx, 23, 31, r % 2 ? 3 : 4, r % 2 ? 7 : 5,
                             rounds + r);
        }
        if (ctx >= 0) {
            Cblacs_gridexit(ctx);
        }
        Cblacs_gridexit(gctx);
    }
    int all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("plan_reuse: %d rounds, %d wrong elements\n", rounds, all);
        printf("calls %d\n", rounds * np + sub_calls * np);
        if (all == 0) {
            printf("cs_test: OK\n");
        }
    }
    MPI_Finalize();
    return all != 0;
}
