/*
 * test_apps/scalapack/threads_calls.c - redistributions called from
 * several threads of each rank at once, each thread on its own pair of
 * BLACS contexts (for the shim's check 42; 2 ranks).
 *
 *   threads_calls --threads T --calls C [--serialized]
 *
 * MPI is initialised with MPI_THREAD_MULTIPLE (or, with --serialized,
 * MPI_THREAD_SERIALIZED).  The main thread duplicates MPI_COMM_WORLD once
 * per thread and makes from each duplicate a 1 x 2 and a 2 x 1 grid; then
 * T threads each make C calls on their own grids, alternating pdgemr2d_
 * (a sub-matrix from the 1 x 2 grid to the 2 x 1 grid, sizes and offsets
 * varying with thread and call) and pdtran_ (on the 1 x 2 grid), every
 * element of each target checked against a closed form of (thread, call,
 * element), and every element outside the target sub-matrix checked
 * unchanged.  Rank 0 prints "threads T calls C wrong <n>" and cs_test: OK
 * when nothing was wrong.
 *
 * --serialized: only 2 threads, one call each, made to overlap: rank 1
 * waits 1 s before its calls, so that on rank 0 the first thread's
 * pdgemr2d_ is still waiting for rank 1 when the second thread calls
 * pdtran_ (0.3 s later).  Natively that breaks the MPI thread level; the
 * shim stops with a message naming both routines.
 *
 * Natively (BLACS is not thread-safe) the concurrent runs may crash: only
 * the shim's runs are checked.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_blacs.h"
#include "cs_test.h"

#define CS_MAX_THREADS 16

typedef struct {
    int id, calls, me, serialized;
    int ga, gb;          /* the thread's 1 x 2 and 2 x 1 grids */
    long wrong;
} thr_t;

static double value(int t, int k, int i, int j)
{
    return 1e6 * t + 1e4 * (k % 97) + 100.0 * i + j + 0.5;
}

static int global_of(int l, int nb, int me, int np)
{
    return (l / nb * np + me) * nb + l % nb;
}

typedef struct {
    int desc[9], locr, locc, lld, p, q, myr, myc, mb, nb;
    double *v;
} mat_t;

static void mat_init(mat_t *x, int ctxt, int m, int n, int mb, int nb)
{
    int zero = 0, info = 0;
    memset(x, 0, sizeof(*x));
    x->mb = mb;
    x->nb = nb;
    Cblacs_gridinfo(ctxt, &x->p, &x->q, &x->myr, &x->myc);
    x->locr = numroc_(&m, &mb, &x->myr, &zero, &x->p);
    x->locc = numroc_(&n, &nb, &x->myc, &zero, &x->q);
    x->lld = x->locr > 1 ? x->locr : 1;
    descinit_(x->desc, &m, &n, &mb, &nb, &zero, &zero, &ctxt, &x->lld,
              &info);
    x->v = malloc((size_t)x->lld * (size_t)(x->locc > 0 ? x->locc : 1) *
                  sizeof(double));
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* One call k of thread t; returns the wrong elements on this rank. */
static long one_call(thr_t *th, int k)
{
    int t = th->id, one = 1;
    int n = 40 + (t * 37 + k * 13) % 90, m = 30 + (t * 11 + k * 29) % 80;
    long bad = 0;
    mat_t a, b;
    mat_init(&a, th->ga, m + 3, n + 2, 8 + k % 5, 6 + t % 4);
    if (k % 2 == 0) {
        /* pdgemr2d_: A(3:m+2, 2:n+1) -> B(1:m, 1:n), B on the 2 x 1 grid */
        mat_init(&b, th->gb, m + 1, n + 4, 7 + t % 3, 5 + k % 4);
    } else {
        /* pdtran_: C(1:n, 1:m) := A(3:m+2, 2:n+1)^T on the 1 x 2 grid */
        mat_init(&b, th->ga, n + 1, m + 4, 5 + k % 3, 9 - t % 3);
    }
    for (int c = 0; c < a.locc; c++) {
        for (int r = 0; r < a.locr; r++) {
            a.v[r + (size_t)c * a.lld] =
                value(t, k, global_of(r, a.mb, a.myr, a.p),
                      global_of(c, a.nb, a.myc, a.q));
        }
    }
    for (int c = 0; c < b.locc; c++) {
        for (int r = 0; r < b.locr; r++) {
            b.v[r + (size_t)c * b.lld] = -1.0 - r - 1000.0 * c;
        }
    }
    int ia = 3, ja = 2;
    if (k % 2 == 0) {
        pdgemr2d_(&m, &n, a.v, &ia, &ja, a.desc, b.v, &one, &one, b.desc,
                  &th->ga);
    } else {
        double alpha = 1.0, beta = 0.0;
        pdtran_(&n, &m, &alpha, a.v, &ia, &ja, a.desc, &beta, b.v, &one,
                &one, b.desc);
    }
    int rows = k % 2 == 0 ? m : n, cols = k % 2 == 0 ? n : m;
    for (int c = 0; c < b.locc; c++) {
        int j = global_of(c, b.nb, b.myc, b.q);
        for (int r = 0; r < b.locr; r++) {
            int i = global_of(r, b.mb, b.myr, b.p);
            double got = b.v[r + (size_t)c * b.lld], want;
            if (i < rows && j < cols) {
                want = k % 2 == 0 ? value(t, k, i + 2, j + 1)
                                  : value(t, k, j + 2, i + 1);
            } else {
                want = -1.0 - r - 1000.0 * c;
            }
            bad += got != want;
        }
    }
    free(a.v);
    free(b.v);
    return bad;
}

static void *run(void *arg)
{
    thr_t *th = arg;
    if (th->serialized) {
        if (th->me == 1) {
            sleep_s(1.0);
        }
        if (th->id == 1) {
            sleep_s(0.3);
        }
        th->wrong += one_call(th, th->id);
        return NULL;
    }
    for (int k = 0; k < th->calls; k++) {
        th->wrong += one_call(th, k);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = 2, calls = 100, serialized = 0, provided = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
            calls = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--serialized")) {
            serialized = 1;
        }
    }
    int want = serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE;
    MPI_Init_thread(&argc, &argv, want, &provided);
    int me = 0, np = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (serialized) {
        nthreads = 2;
    }
    if (np != 2 || provided < want || nthreads < 1 ||
        nthreads > CS_MAX_THREADS) {
        if (me == 0) {
            fprintf(stderr, "threads_calls: needs 2 ranks, thread level %d "
                            "(got %d), 1..%d threads\n",
                    want, provided, CS_MAX_THREADS);
        }
        MPI_Finalize();
        return 2;
    }
    thr_t th[CS_MAX_THREADS];
    MPI_Comm dup[CS_MAX_THREADS];
    pthread_t tid[CS_MAX_THREADS];
    for (int t = 0; t < nthreads; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &dup[t]);
        memset(&th[t], 0, sizeof(th[t]));
        th[t].id = t;
        th[t].calls = calls;
        th[t].me = me;
        th[t].serialized = serialized;
        th[t].ga = Csys2blacs_handle(dup[t]);
        Cblacs_gridinit(&th[t].ga, "R", 1, 2);
        th[t].gb = Csys2blacs_handle(dup[t]);
        Cblacs_gridinit(&th[t].gb, "R", 2, 1);
    }
    for (int t = 0; t < nthreads; t++) {
        pthread_create(&tid[t], NULL, run, &th[t]);
    }
    long wrong = 0, all = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(tid[t], NULL);
        wrong += th[t].wrong;
    }
    MPI_Allreduce(&wrong, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0) {
        printf("threads %d calls %d wrong %ld\n", nthreads,
               serialized ? 1 : calls, all);
        if (all) {
            cs_test_failures++;
        }
    }
    for (int t = 0; t < nthreads; t++) {
        Cblacs_gridexit(th[t].ga);
        Cblacs_gridexit(th[t].gb);
        MPI_Comm_free(&dup[t]);
    }
    int rc = me == 0 ? cs_test_done() : 0;
    MPI_Finalize();
    return rc;
}
