/*
 * test_apps/scalapack/dlopen_plugin.c - a ScaLAPACK program packed as a
 * shared object, for test_apps/plain/dlopen_host.c: the way a Python
 * extension module brings MPI and ScaLAPACK into a process (dlopen with
 * RTLD_LOCAL, after any LD_PRELOAD), so that neither is in the global
 * scope.
 *
 * cs_plugin_main(): MPI_Init_thread, then on every rank a 100 x 100 matrix
 * redistributed with pdgemr2d_ from a 1 x P grid (16 x 16 blocks) to a
 * P x 1 grid (10 x 10 blocks) and back, 3 times; each rank checks every
 * element it owns; rank 0 prints "rank <r> of <P>: <n> elements checked,
 * <k> wrong" for every rank; MPI_Finalize.  Returns the number
 * of wrong elements over all ranks (0: success).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "cs_blacs.h"

#define CS_N 100

static double value(int i, int j)
{
    return 1000.0 * i + j + 0.5;
}

/* Local part of an N x N matrix with blocks nb on grid ctxt. */
typedef struct {
    int desc[9], locr, locc, p, q, myr, myc, nb;
    double *v;
} part_t;

static void part_init(part_t *x, int ctxt, int nb)
{
    int n = CS_N, zero = 0, info = 0;
    x->nb = nb;
    Cblacs_gridinfo(ctxt, &x->p, &x->q, &x->myr, &x->myc);
    x->locr = numroc_(&n, &nb, &x->myr, &zero, &x->p);
    x->locc = numroc_(&n, &nb, &x->myc, &zero, &x->q);
    int lld = x->locr > 1 ? x->locr : 1;
    descinit_(x->desc, &n, &n, &nb, &nb, &zero, &zero, &ctxt, &lld, &info);
    x->v = calloc((size_t)lld * (size_t)(x->locc > 0 ? x->locc : 1),
                  sizeof(double));
}

static int global_of(int l, int nb, int me, int np)
{
    return (l / nb * np + me) * nb + l % nb;
}

/* Fill with the closed form (or zeros); count wrong elements. */
static long pass(part_t *x, int fill, int zero)
{
    long bad = 0;
    for (int c = 0; c < x->locc; c++) {
        int j = global_of(c, x->nb, x->myc, x->q);
        for (int r = 0; r < x->locr; r++) {
            int i = global_of(r, x->nb, x->myr, x->p);
            double *e = &x->v[r + (size_t)c * x->desc[8]];
            if (fill) {
                *e = zero ? 0.0 : value(i, j);
            } else {
                bad += *e != value(i, j);
            }
        }
    }
    return bad;
}

int cs_plugin_main(int argc, char **argv);
int cs_plugin_main(int argc, char **argv)
{
    int provided = 0, me = 0, np = 1, n = CS_N, one = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    Cblacs_pinfo(&me, &np);
    int ga = 0, gb = 0;
    Cblacs_get(0, 0, &ga);
    Cblacs_gridinit(&ga, "R", 1, np);
    Cblacs_get(0, 0, &gb);
    Cblacs_gridinit(&gb, "R", np, 1);
    part_t a, b;
    part_init(&a, ga, 16);
    part_init(&b, gb, 10);
    pass(&a, 1, 0);
    long bad = 0, checked = 0;
    for (int k = 0; k < 3; k++) {
        pass(&b, 1, 1);
        pdgemr2d_(&n, &n, a.v, &one, &one, a.desc, b.v, &one, &one, b.desc,
                  &ga);
        bad += pass(&b, 0, 0);
        pass(&a, 1, 1);
        pdgemr2d_(&n, &n, b.v, &one, &one, b.desc, a.v, &one, &one, a.desc,
                  &ga);
        bad += pass(&a, 0, 0);
        checked += (long)b.locr * b.locc + (long)a.locr * a.locc;
    }
    long mine[2] = {checked, bad};
    long *each = malloc(2 * (size_t)np * sizeof(long));
    MPI_Gather(mine, 2, MPI_LONG, each, 2, MPI_LONG, 0, MPI_COMM_WORLD);
    for (int r = 0; me == 0 && r < np; r++) {
        printf("rank %d of %d: %ld elements checked, %ld wrong\n", r, np,
               each[2 * r], each[2 * r + 1]);
    }
    free(each);
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    free(a.v);
    free(b.v);
    Cblacs_gridexit(ga);
    Cblacs_gridexit(gb);
    MPI_Finalize();
    return all != 0;
}
