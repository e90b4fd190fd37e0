/*
 * test_apps/scalapack/relabel_demo.c - a plain ScaLAPACK program that
 * redistributes a matrix between two BLACS grids that differ by a process
 * permutation and by block size: the case process relabeling is for
 * (COSTA_SHIM_RELABEL, docs/relabel.md; make demo-relabel, check
 * 60_relabel_*).
 *
 *   relabel_demo [--n N] [--grid PxQ] [--a MBxNB] [--b MBxNB]
 *                [--order R|C|rev] [--calls K] [--fortran] [--extra]
 *
 * Grid A is Cblacs_gridinit(R) P x Q over all processes; grid B has the
 * same shape, created with gridinit in order C (default), or R, or
 * Cblacs_gridmap with the process order reversed (rev).  --fortran creates
 * both through blacs_get_ / blacs_gridinit_ / blacs_gridmap_.  --extra
 * creates a third, unused grid first (so the grid numbering differs: a
 * plan made without it does not match).  A (N x N doubles, blocks of
 * --a) holds a function of the global indices; pdgemr2d_ copies it into B
 * (blocks of --b) K times.  Like any ScaLAPACK program it addresses
 * processes only by grid coordinates, so relabeling cannot change its
 * results.
 *
 * Output (rank 0): "relabel_demo: ... elapsed_s:<max over ranks of the
 * redistribution loop> per_call_ms:... check:OK|FAIL", one line per grid B
 * position "digest <r> <c> <hex64>" (a hash of that position's local B, so
 * runs with different process maps compare equal), one line "mapB <world
 * rank by position>", and "cs_test: OK" when every element of B is right.
 */
#include <mpi.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

void blacs_get_(const int *, const int *, int *);
void blacs_gridinit_(int *, const char *, const int *, const int *, size_t);
void blacs_gridmap_(int *, int *, const int *, const int *, const int *);
void blacs_gridexit_(const int *);

#define CS_RELABEL_APP_NAME "relabel_demo"
#include "cs_relabel_app.h"

/* A grid P x Q over MPI_COMM_WORLD: how = 'R', 'C' or 'V' (reversed
 * gridmap); C or Fortran BLACS interface. */
static int make_grid(char how, int p, int q, int fortran)
{
    int ctxt, m1 = -1, zero = 0;
    if (fortran) {
        blacs_get_(&m1, &zero, &ctxt);
    } else {
        Cblacs_get(-1, 0, &ctxt);
    }
    if (how == 'V') {
        int *map = malloc((size_t)p * (size_t)q * sizeof(int));
        if (!map) {
            die("out of memory");
        }
        /* position (r, c) is world rank p*q-1 - (r*q + c) */
        for (int r = 0; r < p; r++) {
            for (int c = 0; c < q; c++) {
                map[r + c * p] = p * q - 1 - (r * q + c);
            }
        }
        if (fortran) {
            blacs_gridmap_(&ctxt, map, &p, &p, &q);
        } else {
            Cblacs_gridmap(&ctxt, map, p, p, q);
        }
        free(map);
    } else {
        char order[2] = {how, '\0'};
        if (fortran) {
            blacs_gridinit_(&ctxt, order, &p, &q, 1);
        } else {
            Cblacs_gridinit(&ctxt, order, p, q);
        }
    }
    return ctxt;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    return h;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    int n = 2000, p = 0, q = 0, mba = 64, nba = 64, mbb = 100, nbb = 100;
    int calls = 10, fortran = 0, extra = 0;
    char how = 'C';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--fortran")) {
            fortran = 1;
            continue;
        }
        if (!strcmp(a, "--extra")) {
            extra = 1;
            continue;
        }
        if (!v) {
            die("missing argument value");
        }
        i++;
        if (!strcmp(a, "--n")) {
            n = atoi(v);
        } else if (!strcmp(a, "--grid")) {
            parse_pair(v, &p, &q);
        } else if (!strcmp(a, "--a")) {
            parse_pair(v, &mba, &nba);
        } else if (!strcmp(a, "--b")) {
            parse_pair(v, &mbb, &nbb);
        } else if (!strcmp(a, "--calls")) {
            calls = atoi(v);
        } else if (!strcmp(a, "--order")) {
            how = !strcmp(v, "rev") ? 'V' : v[0];
            if (how != 'R' && how != 'C' && how != 'V') {
                die("--order must be R, C or rev");
            }
        } else {
            die("unknown option");
        }
    }
    if (p == 0) { /* the squarest grid of all processes */
        for (p = 1; (p + 1) * (p + 1) <= g_np; p++) {
        }
        while (g_np % p) {
            p--;
        }
        q = g_np / p;
    }
    if (p * q != g_np || n < 1 || calls < 1) {
        die("the grid must use every process; N and K must be positive");
    }

    if (extra) {
        int ce = make_grid('R', 1, g_np, fortran);
        (void)ce; /* created and kept, never used */
    }
    int ca = make_grid('R', p, q, fortran);
    int cb = make_grid(how, p, q, fortran);
    int pa, qa, ra, ka, pb, qb, rb, kb;
    Cblacs_gridinfo(ca, &pa, &qa, &ra, &ka);
    Cblacs_gridinfo(cb, &pb, &qb, &rb, &kb);
    if (ra < 0 || rb < 0) {
        die("not in a grid");
    }
    int zero = 0;
    int la_r = numroc_(&n, &mba, &ra, &zero, &pa);
    int la_c = numroc_(&n, &nba, &ka, &zero, &qa);
    int lb_r = numroc_(&n, &mbb, &rb, &zero, &pb);
    int lb_c = numroc_(&n, &nbb, &kb, &zero, &qb);
    int lda = la_r > 1 ? la_r : 1, ldb = lb_r > 1 ? lb_r : 1;
    int desca[9] = {1, ca, n, n, mba, nba, 0, 0, lda};
    int descb[9] = {1, cb, n, n, mbb, nbb, 0, 0, ldb};
    double *A = malloc((size_t)lda * (size_t)(la_c > 0 ? la_c : 1) *
                       sizeof(double));
    double *B = malloc((size_t)ldb * (size_t)(lb_c > 0 ? lb_c : 1) *
                       sizeof(double));
    if (!A || !B) {
        die("out of memory");
    }
    /* local (li, lj) of a block-cyclic dimension -> global index */
    for (int lj = 0; lj < la_c; lj++) {
        int64_t j = (int64_t)(lj / nba * qa + ka) * nba + lj % nba;
        for (int li = 0; li < la_r; li++) {
            int64_t i = (int64_t)(li / mba * pa + ra) * mba + li % mba;
            A[(size_t)li + (size_t)lj * (size_t)lda] = value(i, j);
        }
    }
    memset(B, 0, (size_t)ldb * (size_t)(lb_c > 0 ? lb_c : 1) *
                     sizeof(double));
    int one = 1;
    /* one warm-up call outside the timed loop */
    pdgemr2d_(&n, &n, A, &one, &one, desca, B, &one, &one, descb, &ca);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 1; k < calls; k++) {
        pdgemr2d_(&n, &n, A, &one, &one, desca, B, &one, &one, descb, &ca);
    }
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    long bad = 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int lj = 0; lj < lb_c; lj++) {
        int64_t j = (int64_t)(lj / nbb * qb + kb) * nbb + lj % nbb;
        for (int li = 0; li < lb_r; li++) {
            int64_t i = (int64_t)(li / mbb * pb + rb) * mbb + li % mbb;
            double x = B[(size_t)li + (size_t)lj * (size_t)ldb];
            bad += x != value(i, j);
            h = fnv(h, &x, sizeof(x));
        }
    }
    long badsum = 0;
    MPI_Reduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    /* digests and the map of B, by grid position */
    uint64_t mine[4] = {(uint64_t)rb, (uint64_t)kb, h, (uint64_t)g_rank};
    uint64_t *all = malloc((size_t)g_np * sizeof(mine));
    if (!all) {
        die("out of memory");
    }
    MPI_Gather(mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("relabel_demo: n:%d grid:%dx%d a:%dx%d b:%dx%d order:%s "
               "calls:%d fortran:%d elapsed_s:%.6f per_call_ms:%.3f "
               "check:%s\n",
               n, p, q, mba, nba, mbb, nbb,
               how == 'V' ? "rev" : how == 'C' ? "C" : "R", calls, fortran,
               tmax, calls > 1 ? 1e3 * tmax / (calls - 1) : 0.0,
               badsum ? "FAIL" : "OK");
        int *map = malloc((size_t)g_np * sizeof(int));
        if (!map) {
            die("out of memory");
        }
        for (int r = 0; r < p; r++) {
            for (int c = 0; c < q; c++) {
                for (int k = 0; k < g_np; k++) {
                    if (all[4 * k] == (uint64_t)r &&
                        all[4 * k + 1] == (uint64_t)c) {
                        printf("digest %d %d %016" PRIx64 "\n", r, c,
                               all[4 * k + 2]);
                        map[r * q + c] = (int)all[4 * k + 3];
                    }
                }
            }
        }
        printf("mapB");
        for (int k = 0; k < g_np; k++) {
            printf(" %d", map[k]);
        }
        printf("\n");
        free(map);
        if (badsum) {
            fprintf(stderr, "relabel_demo: %ld wrong elements of B\n",
                    badsum);
            cs_test_failures++;
        }
    }
    free(all);
    free(A);
    free(B);
    Cblacs_gridexit(cb);
    Cblacs_gridexit(ca);
    MPI_Finalize();
    return g_rank == 0 ? cs_test_done() : 0;
}
