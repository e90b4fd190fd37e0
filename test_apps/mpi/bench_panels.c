/*
 * test_apps/mpi/bench_panels.c - what cutting a call into panels
 * (engine/panels.c, COSTA_SHIM_WORKSPACE) costs, measured in one process.
 *
 * For each case the same operation gets two plans, uncut
 * (cs_eng_plan_create_bounded with 0) and cut (CS_ENG_WS_AUTO, or the
 * bound of --ws), both reserved first; then reps rounds execute them
 * alternately (which goes first alternates too), each call between
 * barriers, max over ranks.  The two see the same machine at the same
 * time, so their ratio is meaningful where absolute times are not (the
 * CI machine's calls of this size vary by 3x from one second to the
 * next).  The results are compared with each other bit for bit.
 *
 * Cases (n x n doubles on a 1 x P grid, blocks 128 unless said):
 *   t  transpose (pdtran's data movement)
 *   g  blocks 36 -> 128 (bench_gemr2d j's layouts)
 *   c  blocks 64, 1 x P -> P x 1 (bench_gemr2d c's, grid-shape change)
 *
 * Usage: mpiexec -n 2 bench_panels [--n 8000] [--reps 20] [--cases tgc]
 *                                  [--ws BYTES]
 * Output (rank 0): per case the panels of the cut plan, its workspace and
 * the uncut one's, medians and minima of both, cut/uncut of the medians
 * and the median of the per-round ratios; "cs_test: OK" when every result
 * matched.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "cs_test.h"
#include "engine/engine.h"

static int cmp_d(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* A block-cyclic layout over the ranks of a pr x pc row-major grid. */
static void layout(cs_eng_layout_t *l, int64_t n, int64_t nb, int pr, int pc,
                   int me, const int *grid)
{
    memset(l, 0, sizeof(*l));
    cs_eng_dist_cyclic(n, nb, nb, 0, pr, &l->rows);
    cs_eng_dist_cyclic(n, nb, nb, 0, pc, &l->cols);
    l->nprow = pr;
    l->npcol = pc;
    l->grid = grid;
    int64_t lr = cs_eng_dist_local_size(&l->rows, me / pc);
    l->ld = lr > 0 ? lr : 1;
    l->order = CS_ENG_COLMAJOR;
}

static double timed(cs_eng_plan_t *plan, const double *a, double *b,
                    const cs_eng_exec_opts_t *opts)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    cs_eng_plan_execute(plan, a, b, MPI_COMM_WORLD, opts, NULL);
    double t = MPI_Wtime() - t0, tmax = 0.0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return tmax;
}

static void run_case(char id, int64_t n, int reps, int64_t ws, int me, int P)
{
    int *grid = malloc((size_t)P * sizeof(int));
    for (int i = 0; i < P; i++) {
        grid[i] = i;
    }
    cs_eng_layout_t la, lb;
    int64_t nba = id == 'g' ? 36 : id == 'c' ? 64 : 128;
    int64_t nbb = id == 'c' ? 64 : 128;
    layout(&la, n, nba, 1, P, me, grid);
    if (id == 'c') {
        layout(&lb, n, nbb, P, 1, me, grid);
    } else {
        layout(&lb, n, nbb, 1, P, me, grid);
    }
    cs_eng_op_t op = {.m = n, .n = n, .esize = sizeof(double),
                      .type = CS_ENG_T_D, .trans = id == 't'};
    size_t na = (size_t)la.ld * (size_t)cs_eng_dist_local_size(&la.cols,
                                                               me % P);
    int bc = id == 'c' ? 0 : me;
    size_t nbl = (size_t)lb.ld * (size_t)cs_eng_dist_local_size(&lb.cols, bc);
    double *a = malloc(na * sizeof(double));
    double *b[2] = {malloc(nbl * sizeof(double)),
                    malloc(nbl * sizeof(double))};
    for (size_t i = 0; i < na; i++) {
        a[i] = (double)i * 0.5 + me;
    }
    memset(b[0], 0, nbl * sizeof(double));
    memset(b[1], 0, nbl * sizeof(double));
    cs_eng_plan_t *plan[2] = {NULL, NULL};
    CS_TEST_EQ(cs_eng_plan_create_bounded(&la, &lb, &op, me, 0, &plan[0]),
               CS_OK);
    CS_TEST_EQ(cs_eng_plan_create_bounded(&la, &lb, &op, me, ws, &plan[1]),
               CS_OK);
    cs_eng_exec_opts_t opts = {.threads = 1, .overlap = 1};
    CS_TEST_EQ(cs_eng_plan_reserve(plan[0], &opts), CS_OK);
    CS_TEST_EQ(cs_eng_plan_reserve(plan[1], &opts), CS_OK);
    /* warm-up: every page of both targets and of the workspace */
    timed(plan[0], a, b[0], &opts);
    timed(plan[1], a, b[1], &opts);
    int same = memcmp(b[0], b[1], nbl * sizeof(double)) == 0, all = 0;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CS_TEST_CHECK(all, "case %c: the cut plan's result differs", id);
    double *t = malloc(3 * (size_t)reps * sizeof(double));
    for (int r = 0; r < reps; r++) {
        for (int k = 0; k < 2; k++) {
            int p = (k + r) % 2;
            t[p * reps + r] = timed(plan[p], a, b[p], &opts);
        }
        t[2 * reps + r] = t[reps + r] / t[r];
    }
    int64_t w0 = cs_eng_plan_workspace_bytes(plan[0]);
    int64_t w1 = cs_eng_plan_workspace_bytes(plan[1]), wmax[2];
    int64_t wl[2] = {w0, w1};
    MPI_Allreduce(wl, wmax, 2, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    double ratio = median(t + 2 * reps, reps);
    double m0 = median(t, reps), m1 = median(t + reps, reps);
    if (me == 0) {
        printf("%c  n %" PRId64 "  panels %d  workspace %.1f -> %.1f MiB  "
               "uncut median %.2f min %.2f ms  cut median %.2f min %.2f ms"
               "  cut/uncut %.3f (per round %.3f)\n",
               id, n, cs_eng_plan_panels(plan[1]), (double)wmax[0] / 1048576,
               (double)wmax[1] / 1048576, 1e3 * m0, 1e3 * t[0], 1e3 * m1,
               1e3 * t[reps], m1 / m0, ratio);
        fflush(stdout);
    }
    cs_eng_plan_destroy(plan[0]);
    cs_eng_plan_destroy(plan[1]);
    free(t);
    free(a);
    free(b[0]);
    free(b[1]);
    free(grid);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, P;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    int64_t n = 8000, ws = CS_ENG_WS_AUTO;
    int reps = 20;
    const char *cases = "tgc";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n")) {
            n = atoll(argv[i + 1]);
        } else if (!strcmp(argv[i], "--reps")) {
            reps = atoi(argv[i + 1]);
        } else if (!strcmp(argv[i], "--cases")) {
            cases = argv[i + 1];
        } else if (!strcmp(argv[i], "--ws")) {
            ws = atoll(argv[i + 1]);
        }
    }
    for (const char *c = cases; *c; c++) {
        run_case(*c, n, reps > 0 ? reps : 1, ws, me, P);
    }
    cs_eng_workspace_release();
    int fails = cs_test_failures, total = 0;
    MPI_Allreduce(&fails, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    cs_test_failures = me == 0 ? total : 0;
    int rc = me == 0 ? cs_test_done() : 0;
    MPI_Finalize();
    return rc;
}
