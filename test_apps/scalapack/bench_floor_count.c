/*
 * test_apps/scalapack/bench_floor_count.c - checks the element counts
 * behind the benchmarks' floor (cs_bench_cross_elems, test_apps/lib/
 * cs_bench.c): how many elements of a sub-matrix a process owns whose
 * partner (same or transposed position in another sub-matrix, maybe on
 * another grid) another process owns.  `make bench` judges its 50 % target
 * on that floor, so a wrong count would misstate every table.
 *
 * The reference is counted another way: every local element of the
 * target's global matrix (local -> global index), kept when inside the
 * sub-matrix and its trapezoid, its partner's process found with
 * ScaLAPACK's INDXG2P and the rank with Cblacs_pnum (the function under
 * test uses block arithmetic and the row-major rank order).  Random
 * layouts: blocks 1..40, sizes 1..260, offsets 1..40, source and target
 * each on any grid shape of the ranks, transposed or not, masks A/L/U with
 * or without the diagonal.  Also checks that what all ranks receive equals
 * what they send.
 *
 * Usage: bench_floor_count [seed] [cases]  (defaults 1, 300); any rank
 * count.  Prints "bench_floor_count: OK (N cases)" on rank 0, or FAIL lines;
 * exit 0 or 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "cs_bench.h"
#include "cs_rng.h"

int indxg2p_(const int *indxglob, const int *nb, const int *iproc,
             const int *isrcproc, const int *nprocs);
int Cblacs_pnum(int icontxt, int prow, int pcol);

/* Reference count: own elements of t whose partner in s is elsewhere. */
static int64_t brute(int m, int n, const cs_bench_place_t *t,
                     const cs_bench_place_t *s, int tr, char uplo, int skip,
                     int me)
{
    const grid_t *tg = t->g, *sg = s->g;
    int zero = 0;
    int gm = t->i0 - 1 + m, gn = t->j0 - 1 + n; /* global extents */
    int locr = numroc_(&gm, &t->blk, &tg->myrow, &zero, &tg->nprow);
    int locc = numroc_(&gn, &t->blk, &tg->mycol, &zero, &tg->npcol);
    int64_t count = 0;
    for (int lj = 0; lj < locc; lj++) {
        int j = (int)l2g(lj, t->blk, tg->mycol, tg->npcol) - (t->j0 - 1);
        if (j < 0 || j >= n)
            continue;
        for (int li = 0; li < locr; li++) {
            int i = (int)l2g(li, t->blk, tg->myrow, tg->nprow) - (t->i0 - 1);
            if (i < 0 || i >= m)
                continue;
            if ((uplo == 'L' && i - j < skip) || (uplo == 'U' && j - i < skip))
                continue;
            int si = s->i0 + (tr ? j : i), sj = s->j0 + (tr ? i : j);
            int pr = indxg2p_(&si, &s->blk, &zero, &zero, &sg->nprow);
            int pc = indxg2p_(&sj, &s->blk, &zero, &zero, &sg->npcol);
            if (Cblacs_pnum(sg->ctxt, pr, pc) != me)
                count++;
        }
    }
    return count;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    cs_bench_init("bench_floor_count");
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    uint64_t seed = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
    int ncases = argc > 2 ? atoi(argv[2]) : 300;

    /* every grid shape p x q = np, row-major over the world's ranks */
    enum { MAXG = 16 };
    grid_t grids[MAXG];
    int ng = 0;
    for (int p = 1; p <= np && ng < MAXG; p++) {
        if (np % p)
            continue;
        grid_t *g = &grids[ng++];
        Cblacs_get(-1, 0, &g->ctxt);
        Cblacs_gridinit(&g->ctxt, "Row", p, np / p);
        Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
    }

    int bad = 0;
    for (int k = 0; k < ncases; k++) {
        rng_t r = {seed * 1000003u + (uint64_t)k}; /* same on every rank */
        int m = rrange(&r, 1, 260), n = rrange(&r, 1, 260);
        int tr = chance(&r, 50);
        char uplo = "ALU"[rnd(&r, 3)];
        int skip = chance(&r, 50);
        cs_bench_place_t t = {&grids[rnd(&r, ng)], rrange(&r, 1, 40),
                              rrange(&r, 1, 40), rrange(&r, 1, 40)};
        cs_bench_place_t s = {&grids[rnd(&r, ng)], rrange(&r, 1, 40),
                              rrange(&r, 1, 40), rrange(&r, 1, 40)};
        char suplo = !tr ? uplo : uplo == 'L' ? 'U' : uplo == 'U' ? 'L' : 'A';
        int64_t got[2] = {
            cs_bench_cross_elems(m, n, &t, &s, tr, uplo, skip),
            cs_bench_cross_elems(tr ? n : m, tr ? m : n, &s, &t, tr, suplo,
                                 skip)};
        int64_t want[2] = {brute(m, n, &t, &s, tr, uplo, skip, me),
                           brute(tr ? n : m, tr ? m : n, &s, &t, tr, suplo,
                                 skip, me)};
        int64_t sum[2];
        MPI_Allreduce(want, sum, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        int wrong = got[0] != want[0] || got[1] != want[1] || sum[0] != sum[1];
        if (wrong) {
            printf("FAIL case %d rank %d: m %d n %d tr %d uplo %c skip %d "
                   "t (%dx%d, %d, %d, blk %d) s (%dx%d, %d, %d, blk %d): "
                   "received %lld (want %lld), sent %lld (want %lld), all "
                   "received %lld, all sent %lld\n",
                   k, me, m, n, tr, uplo, skip, t.g->nprow, t.g->npcol, t.i0,
                   t.j0, t.blk, s.g->nprow, s.g->npcol, s.i0, s.j0, s.blk,
                   (long long)got[0], (long long)want[0], (long long)got[1],
                   (long long)want[1], (long long)sum[0], (long long)sum[1]);
            bad++;
        }
    }
    int allbad = 0;
    MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0 && !allbad)
        printf("bench_floor_count: OK (%d cases, %d ranks)\n", ncases, np);
    for (int g = ng - 1; g >= 0; g--)
        Cblacs_gridexit(grids[g].ctxt);
    Cblacs_exit(1);
    MPI_Finalize();
    return allbad ? 1 : 0;
}
