/*
 * test_apps/scalapack/repl_zeros.c - the signs of zeros in a replicated C.
 *
 * Where PBLAS forms a replicated sub(C) by summing the copies with zeros,
 * -0.0 becomes +0.0; elsewhere it stays.  This program calls pdtran,
 * pdgeadd ('N' and 'T'), pztranc, pzgeadd ('N') and pdtradd ('L' 'N', 'U'
 * 'T') with alpha = 1, beta = 0 and 2 (p?tradd also alpha = -1.5, beta =
 * 2), sources full of -0.0 (and some ordinary values), on every
 * pattern of RSRC/CSRC = -1 for A and C, on the grids the ranks allow
 * (2 ranks: 2 x 1 and 1 x 2; 4: 2 x 2 and 1 x 4; 6: 2 x 3 and 3 x 2), M < N and
 * M > N.  Rank 0 prints one digest line per call (every rank's whole
 * local C, so elements outside sub(C) count too) and "calls N"; the check
 * compares a native run with a run under the shim.  Plain ScaLAPACK: it
 * never includes the shim.
 *
 * usage: repl_zeros
 */
#include <complex.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_digest.h"

void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
void pdtran_(int *, int *, double *, double *, int *, int *, int *, double *,
             double *, int *, int *, int *);
void pztranc_(int *, int *, double *, double *, int *, int *, int *,
              double *, double *, int *, int *, int *);
void pdgeadd_(const char *, int *, int *, double *, double *, int *, int *,
              int *, double *, double *, int *, int *, int *, size_t);
void pzgeadd_(const char *, int *, int *, double *, double *, int *, int *,
              int *, double *, double *, int *, int *, int *, size_t);
void pdtradd_(const char *, const char *, int *, int *, double *, double *,
              int *, int *, int *, double *, double *, int *, int *, int *,
              size_t, size_t);

enum {
    K_DTRAN,
    K_DGEADD_N,
    K_DGEADD_T,
    K_DTRADD_LN,
    K_DTRADD_UT,
    K_ZTRANC,
    K_ZGEADD_N,
    NKIND
};
enum { NB = 2, OFF = 2 }; /* block size; sub-matrices start at (2, 2) */

/* local extent of n indices in blocks of NB from src over np (src -1:
 * replicated, every index) */
static int extent(int n, int src, int np, int p)
{
    if (src < 0)
        return n;
    int nblk = (n + NB - 1) / NB, cnt = 0;
    for (int b = (p - src + np) % np; b < nblk; b += np)
        cnt += b == nblk - 1 ? n - b * NB : NB;
    return cnt;
}

/* global index of local index l */
static int global(int l, int src, int np, int p)
{
    if (src < 0)
        return l;
    int d = (p - src + np) % np;
    return (l / NB * np + d) * NB + l % NB;
}

/* A's value at a global position: mostly -0.0, some ordinary values */
static double aval(int i, int j, int part)
{
    return (i * 7 + j * 3 + part) % 5 == 0 ? 0.5 * (i + 1) - j : -0.0;
}

/* C's value before the call: -0.0, +0.0 and ordinary values */
static double cval(int i, int j, int part)
{
    int k = (i * 5 + j + part) % 3;
    return k == 0 ? -0.0 : k == 1 ? 0.0 : 0.25 * (i - j);
}

typedef struct {
    int rows, cols, rsrc, csrc, lr, lc, ld;
    int desc[9];
} mat_t;

static void mat_init(mat_t *x, int ctxt, int rows, int cols, int rsrc,
                     int csrc, int P, int Q, int myr, int myc)
{
    x->rows = rows;
    x->cols = cols;
    x->rsrc = rsrc;
    x->csrc = csrc;
    x->lr = extent(rows, rsrc, P, myr);
    x->lc = extent(cols, csrc, Q, myc);
    x->ld = x->lr > 1 ? x->lr : 1;
    int d[9] = {1, ctxt, rows, cols, NB, NB, rsrc, csrc, x->ld};
    memcpy(x->desc, d, sizeof(d));
}

/* fill a local array (cplx: interleaved pairs) from value function f */
static double *mat_fill(const mat_t *x, int cplx, int P, int Q, int myr,
                        int myc, double (*f)(int, int, int))
{
    size_t es = cplx ? 2 : 1, n = (size_t)x->ld * (size_t)(x->lc ? x->lc : 1);
    double *v = malloc(n * es * sizeof(double));
    if (!v)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t k = 0; k < n * es; k++)
        v[k] = 1.0 / 3.0; /* padding rows beyond lr */
    for (int j = 0; j < x->lc; j++) {
        int gj = global(j, x->csrc, Q, myc);
        for (int i = 0; i < x->lr; i++) {
            int gi = global(i, x->rsrc, P, myr);
            size_t o = ((size_t)j * (size_t)x->ld + (size_t)i) * es;
            v[o] = f(gi, gj, 0);
            if (cplx)
                v[o + 1] = f(gi, gj, 1);
        }
    }
    return v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int grids[2][2] = {{2, 1}, {1, 2}};
    if (np == 4) {
        int g[2][2] = {{2, 2}, {1, 4}};
        memcpy(grids, g, sizeof(g));
    } else if (np == 6) {
        int g[2][2] = {{2, 3}, {3, 2}};
        memcpy(grids, g, sizeof(g));
    } else if (np != 2) {
        if (rank == 0)
            fprintf(stderr, "repl_zeros: needs 2, 4 or 6 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    static const int shapes[2][2] = {{9, 13}, {13, 9}};
    static const double betas[2] = {0.0, 2.0};
    long calls = 0, idx = 0;
    uint64_t *all = malloc((size_t)np * sizeof(uint64_t));
    for (int gi = 0; gi < 2; gi++) {
        int P = grids[gi][0], Q = grids[gi][1], ctxt, p, q, myr, myc;
        Cblacs_get(0, 0, &ctxt);
        Cblacs_gridinit(&ctxt, "R", P, Q);
        Cblacs_gridinfo(ctxt, &p, &q, &myr, &myc);
        for (int kind = 0; kind < NKIND; kind++)
            for (int s = 0; s < 2; s++)
                for (int pat = 0; pat < 16; pat++)
                    for (int bi = 0; bi < (kind == K_DTRADD_LN ||
                                                   kind == K_DTRADD_UT
                                               ? 3
                                               : 2);
                         bi++, idx++) {
                        int m = shapes[s][0], n = shapes[s][1];
                        int cplx = kind >= K_ZTRANC;
                        int tr = kind != K_DGEADD_N && kind != K_ZGEADD_N &&
                                 kind != K_DTRADD_LN;
                        /* a source -1 or the last process row/column */
                        int ars = pat & 1 ? -1 : P - 1;
                        int acs = pat & 2 ? -1 : Q - 1;
                        int crs = pat & 4 ? -1 : P - 1;
                        int ccs = pat & 8 ? -1 : Q - 1;
                        mat_t a, c;
                        mat_init(&a, ctxt, (tr ? n : m) + OFF,
                                 (tr ? m : n) + OFF, ars, acs, P, Q, myr,
                                 myc);
                        mat_init(&c, ctxt, m + OFF + 1, n + OFF + 2, crs,
                                 ccs, P, Q, myr, myc);
                        double *A = mat_fill(&a, cplx, P, Q, myr, myc, aval);
                        double *C = mat_fill(&c, cplx, P, Q, myr, myc, cval);
                        /* p?tradd also with alpha -1.5 (and beta 2) */
                        double al[2] = {bi == 2 ? -1.5 : 1.0, 0.0};
                        double be[2] = {betas[bi == 2 ? 1 : bi], 0.0};
                        int i1 = OFF + 1, j1 = OFF + 1;
                        switch (kind) {
                        case K_DTRAN:
                            pdtran_(&m, &n, al, A, &i1, &j1, a.desc, be, C,
                                    &i1, &j1, c.desc);
                            break;
                        case K_DGEADD_N:
                        case K_DGEADD_T:
                            pdgeadd_(tr ? "T" : "N", &m, &n, al, A, &i1, &j1,
                                     a.desc, be, C, &i1, &j1, c.desc, 1);
                            break;
                        case K_DTRADD_LN:
                        case K_DTRADD_UT:
                            pdtradd_(tr ? "U" : "L", tr ? "T" : "N", &m, &n,
                                     al, A, &i1, &j1, a.desc, be, C, &i1,
                                     &j1, c.desc, 1, 1);
                            break;
                        case K_ZTRANC:
                            pztranc_(&m, &n, al, A, &i1, &j1, a.desc, be, C,
                                     &i1, &j1, c.desc);
                            break;
                        default:
                            pzgeadd_("N", &m, &n, al, A, &i1, &j1, a.desc,
                                     be, C, &i1, &j1, c.desc, 1);
                            break;
                        }
                        calls++;
                        size_t bytes = (size_t)c.ld * (size_t)c.lc *
                                       (cplx ? 16 : 8);
                        uint64_t h = cs_fnv(CS_FNV_INIT, C, bytes);
                        MPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                                   0, MPI_COMM_WORLD);
                        if (rank == 0) {
                            printf("case %ld grid %dx%d kind %d m %d n %d "
                                   "src A %d,%d C %d,%d alpha %g beta %g:",
                                   idx, P, Q, kind, m, n, ars, acs, crs, ccs,
                                   al[0], be[0]);
                            for (int r = 0; r < np; r++)
                                printf(" %016llx", (unsigned long long)all[r]);
                            printf("\n");
                        }
                        free(A);
                        free(C);
                    }
        Cblacs_gridexit(ctxt);
    }
    if (rank == 0)
        printf("calls %ld\n", calls);
    free(all);
    MPI_Finalize();
    return 0;
}
