/*
 * test_apps/scalapack/mem_peak.c - peak resident memory of pdtran_ calls,
 * for the memory checks of costa-shim (41_memory.sh).
 *
 *   mem_peak [--n N] [--reps R]
 *
 * On a 1 x P grid (square 64 x 64 blocks) C := A^T, N x N doubles, R times
 * (default N = 2000, R = 3); every element of C is checked.  Prints, from
 * rank 0, "vmhwm_kb <max over ranks>" (the processes' peak resident memory,
 * VmHWM of /proc/self/status, after the calls), "vmrss_kb <max>",
 * "vmpeak_kb <max>" (peak virtual size, for address-space limits) and
 * "wrong <count>", then cs_test: OK when nothing was wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

static long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof(line), f)) {
        if (!strncmp(line, key, n)) {
            v = atol(line + n);
        }
    }
    if (f) {
        fclose(f);
    }
    return v;
}

int main(int argc, char **argv)
{
    int me = 0, np = 1, N = 2000, reps = 3, nb = 64, zero = 0, one = 1, info;
    MPI_Init(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--n")) {
            N = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reps")) {
            reps = atoi(argv[++i]);
        }
    }
    Cblacs_pinfo(&me, &np);
    int ctx = 0, p, q, r, c;
    Cblacs_get(0, 0, &ctx);
    Cblacs_gridinit(&ctx, "R", 1, np);
    Cblacs_gridinfo(ctx, &p, &q, &r, &c);
    int lr = numroc_(&N, &nb, &r, &zero, &p);
    int lc = numroc_(&N, &nb, &c, &zero, &q);
    int lld = lr > 1 ? lr : 1;
    int da[9], dc[9];
    descinit_(da, &N, &N, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
    descinit_(dc, &N, &N, &nb, &nb, &zero, &zero, &ctx, &lld, &info);
    size_t cnt = (size_t)lld * (size_t)(lc > 0 ? lc : 1);
    double *a = malloc(cnt * sizeof(double));
    double *cm = malloc(cnt * sizeof(double));
    for (int j = 0; j < lc; j++) {
        int gj = (j / nb * q + c) * nb + j % nb;
        for (int i = 0; i < lr; i++) {
            a[i + (size_t)j * lld] = (double)i * N + gj;
        }
    }
    double alpha = 1.0, beta = 0.0;
    for (int k = 0; k < reps; k++) {
        memset(cm, 0, cnt * sizeof(double));
        pdtran_(&N, &N, &alpha, a, &one, &one, da, &beta, cm, &one, &one, dc);
    }
    long wrong = 0;
    for (int j = 0; j < lc; j++) {
        int gj = (j / nb * q + c) * nb + j % nb;
        for (int i = 0; i < lr; i++) {
            wrong += cm[i + (size_t)j * lld] != (double)gj * N + i;
        }
    }
    long mine[4] = {status_kb("VmHWM:"), status_kb("VmRSS:"),
                    status_kb("VmPeak:"), wrong};
    long all[4];
    MPI_Reduce(mine, all, 3, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine[3], &all[3], 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("vmhwm_kb %ld\nvmrss_kb %ld\nvmpeak_kb %ld\nwrong %ld\n",
               all[0], all[1], all[2], all[3]);
        if (all[3]) {
            cs_test_failures++;
        }
    }
    free(a);
    free(cm);
    Cblacs_gridexit(ctx);
    int rc = me == 0 ? cs_test_done() : 0;
    MPI_Finalize();
    return rc;
}
