/*
 * test_apps/scalapack/tran_badarg_abort.c - invalid PBLAS calls with a
 * program-supplied PB_Cabort that records INFO and returns.
 *
 * Why: libscalapack calls PB_Cabort through the PLT, so a program may
 * define its own; the PBLAS testers (?pb1tst..?pb3tst) do exactly this
 * (record the error, return), after which the routine returns without
 * touching C (scalapack-semantics.md 3.5).  costa-shim must keep that
 * contract: same recorded INFO and routine name, C untouched, no abort.
 *
 *   tran_badarg_abort
 *
 * Grid 1 x np (np <= 3) or 2 x np/2.  Each case makes every rank detect
 * the same error (no rank-local errors: a returning PB_Cabort on one rank
 * only would leave the others waiting in communication).  Rank 0 prints per
 * case "case <name>: info <rank0 INFO> rout <ROUT> aborts <total PB_Cabort
 * calls> ranks-agree <yes|no> C untouched <yes|no>", then a valid pdtran_
 * call and its check, and "cs_test: OK".  PB_Cwarn is not replaced: its
 * "PBLAS ERROR" lines go to stderr as usual.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

void pdgeadd_(char *, int *, int *, double *, double *, int *, int *, int *,
              double *, double *, int *, int *, int *, size_t);
void pdtradd_(char *, char *, int *, int *, double *, double *, int *, int *,
              int *, double *, double *, int *, int *, int *, size_t, size_t);

/* ---- the program's own PB_Cabort (overrides the library's) ---- */
static int ab_count, ab_info, ab_ctxt;
static char ab_rout[32];

void PB_Cabort(int ictxt, const char *rout, int info)
{
    ab_count++;
    ab_info = info;
    ab_ctxt = ictxt;
    snprintf(ab_rout, sizeof ab_rout, "%s", rout ? rout : "(null)");
}

static int g_rank, g_np, g_P, g_Q, g_myrow, g_mycol;

enum { R_TRAN, R_ZTRANC, R_GEADD, R_TRADD };

typedef struct {
    const char *name;
    int routine;
    int m, ia, dtype_a, nb_c, ctxt2, ldc0, trans_bad, uplo_bad;
} kase_t;

static const kase_t kases[] = {
    /* name               routine   m   ia dtA nbC ctx2 ldc0 trX uplX */
    {"ia_out_of_bounds", R_TRAN,    4,  7,  1,  2,  0,   0,   0,  0},
    {"descc_other_ctxt", R_TRAN,    4,  1,  1,  2,  1,   0,   0,  0},
    {"descc_nb_zero",    R_TRAN,    4,  1,  1,  0,  0,   0,   0,  0},
    {"desca_dtype_3",    R_TRAN,    4,  1,  3,  2,  0,   0,   0,  0},
    {"m_negative",       R_TRAN,   -1,  1,  1,  2,  0,   0,   0,  0},
    {"m_zero_lldc_zero", R_TRAN,    0,  1,  1,  2,  0,   1,   0,  0},
    {"ztranc_ia",        R_ZTRANC,  4,  9,  1,  2,  0,   0,   0,  0},
    {"geadd_trans_x",    R_GEADD,   4,  1,  1,  2,  0,   0,   1,  0},
    {"tradd_uplo_x",     R_TRADD,   4,  1,  1,  2,  0,   0,   0,  1},
};
#define NKASE ((int)(sizeof kases / sizeof kases[0]))

/* Runs one case; returns 1 if everything is as expected on all ranks. */
static int run(const kase_t *k, int ctxt, int ctxt2, int *info_out)
{
    int izero = 0;
    int MA = 10, NA = 12, MBA = 2, NBA = 3;
    int MC = 12, NC = 10, MBC = 3, NBC = 2;
    int ra = numroc_(&MA, &MBA, &g_myrow, &izero, &g_P);
    int ca = numroc_(&NA, &NBA, &g_mycol, &izero, &g_Q);
    int rc = numroc_(&MC, &MBC, &g_myrow, &izero, &g_P);
    int cc = numroc_(&NC, &NBC, &g_mycol, &izero, &g_Q);
    int lda = ra > 1 ? ra : 1, ldc = rc > 1 ? rc : 1;
    int desca[9] = {k->dtype_a, ctxt, MA, NA, MBA, NBA, 0, 0, lda};
    int descc[9] = {1, k->ctxt2 ? ctxt2 : ctxt, MC, NC, MBC, k->nb_c, 0, 0,
                    k->ldc0 ? 0 : ldc};
    int cplx = k->routine == R_ZTRANC ? 2 : 1;
    size_t na = (size_t)lda * (size_t)(ca > 0 ? ca : 1) * (size_t)cplx;
    size_t nc = (size_t)ldc * (size_t)(cc > 0 ? cc : 1) * (size_t)cplx;
    double *A = malloc(na * sizeof(double)), *C = malloc(nc * sizeof(double));
    double *C0 = malloc(nc * sizeof(double));
    if (!A || !C || !C0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t e = 0; e < na; e++)
        A[e] = 1.0 + (double)e;
    for (size_t e = 0; e < nc; e++)
        C[e] = C0[e] = -0.5 - (double)e;
    int m = k->m, n = 5, ia = k->ia, ja = 1, ic = 1, jc = 1;
    double alpha[2] = {2, 0.5}, beta[2] = {0, 0};
    char tr[2] = {k->trans_bad ? 'X' : 'T', 0};
    char up[2] = {k->uplo_bad ? 'X' : 'U', 0};

    ab_count = 0;
    ab_info = 0;
    ab_rout[0] = 0;
    switch (k->routine) {
    case R_TRAN:
        pdtran_(&m, &n, alpha, A, &ia, &ja, desca, beta, C, &ic, &jc, descc);
        break;
    case R_ZTRANC:
        pztranc_(&m, &n, alpha, A, &ia, &ja, desca, beta, C, &ic, &jc, descc);
        break;
    case R_GEADD:
        pdgeadd_(tr, &m, &n, alpha, A, &ia, &ja, desca, beta, C, &ic, &jc,
                 descc, 1);
        break;
    default:
        pdtradd_(up, tr, &m, &n, alpha, A, &ia, &ja, desca, beta, C, &ic, &jc,
                 descc, 1, 1);
        break;
    }
    int untouched = !memcmp(C, C0, nc * sizeof(double));
    free(A);
    free(C);
    free(C0);

    /* agreement: every rank recorded the same INFO once */
    int mine[3] = {ab_info, -ab_info, ab_count};
    int mx[3];
    MPI_Allreduce(mine, mx, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int agree = mx[0] == ab_info && -mx[1] == ab_info && mx[2] == 1;
    int tot_count = 0, all_untouched = 0, all_agree = 0;
    MPI_Allreduce(&ab_count, &tot_count, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&untouched, &all_untouched, 1, MPI_INT, MPI_MIN,
                  MPI_COMM_WORLD);
    MPI_Allreduce(&agree, &all_agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("case %s: info %d rout %s aborts %d ranks-agree %s "
               "C untouched %s\n", k->name, ab_info, ab_rout, tot_count,
               all_agree ? "yes" : "no", all_untouched ? "yes" : "no");
        fflush(stdout);
    }
    *info_out = ab_info;
    return all_untouched && all_agree && tot_count == g_np && ab_info != 0;
}

/* A valid pdtran_ after the errors: C(1:4,1:5) = A(1:5,1:4)' exactly. */
static int valid_call(int ctxt)
{
    int izero = 0, M = 8, MB = 2;
    int r = numroc_(&M, &MB, &g_myrow, &izero, &g_P);
    int c = numroc_(&M, &MB, &g_mycol, &izero, &g_Q);
    int ld = r > 1 ? r : 1;
    int desc[9] = {1, ctxt, M, M, MB, MB, 0, 0, ld};
    size_t nel = (size_t)ld * (size_t)(c > 0 ? c : 1);
    double *A = malloc(nel * sizeof(double)), *C = malloc(nel * sizeof(double));
    if (!A || !C)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (int lj = 0; lj < c; lj++)
        for (int li = 0; li < r; li++) {
            int gi = ((li / MB) * g_P + g_myrow) * MB + li % MB;
            int gj = ((lj / MB) * g_Q + g_mycol) * MB + lj % MB;
            A[(size_t)lj * ld + li] = 1 + gi + 100 * gj;
            C[(size_t)lj * ld + li] = -1;
        }
    int m = 4, n = 5, one = 1;
    double alpha = 1, beta = 0;
    ab_count = 0;
    pdtran_(&m, &n, &alpha, A, &one, &one, desc, &beta, C, &one, &one, desc);
    int ok = ab_count == 0;
    for (int lj = 0; lj < c; lj++)
        for (int li = 0; li < r; li++) {
            int gi = ((li / MB) * g_P + g_myrow) * MB + li % MB;
            int gj = ((lj / MB) * g_Q + g_mycol) * MB + lj % MB;
            double exp = gi < m && gj < n ? 1 + gj + 100 * gi : -1;
            if (C[(size_t)lj * ld + li] != exp)
                ok = 0;
        }
    free(A);
    free(C);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("valid pdtran_ after the errors: %s\n", all ? "ok" : "WRONG");
        fflush(stdout);
    }
    return all;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    (void)argv;
    if (argc > 1) {
        if (g_rank == 0)
            fprintf(stderr, "usage: tran_badarg_abort\n");
        MPI_Finalize();
        return 2;
    }
    int bp, bn, ctxt, ctxt2, pr, pc;
    Cblacs_pinfo(&bp, &bn);
    g_P = (g_np % 2 == 0 && g_np > 3) ? 2 : 1;
    g_Q = g_np / g_P;
    Cblacs_get(-1, 0, &ctxt);
    Cblacs_gridinit(&ctxt, "R", g_P, g_Q);
    Cblacs_get(-1, 0, &ctxt2);
    Cblacs_gridinit(&ctxt2, "R", g_P, g_Q);
    Cblacs_gridinfo(ctxt, &pr, &pc, &g_myrow, &g_mycol);

    /* expected INFO per case (scalapack-semantics.md 3.4) */
    static const int expect[NKASE] = {-5, -1202, -1206, -701, -1, -1211,
                                      -5, -1, -1};
    for (int i = 0; i < NKASE; i++) {
        int info = 0;
        int ok = run(&kases[i], ctxt, ctxt2, &info);
        CS_TEST_CHECK(ok, "case %s: PB_Cabort contract broken",
                      kases[i].name);
        CS_TEST_CHECK(info == expect[i], "case %s: INFO %d, expected %d",
                      kases[i].name, info, expect[i]);
    }
    CS_TEST_CHECK(valid_call(ctxt), "valid call after the errors");
    Cblacs_gridexit(ctxt2);
    Cblacs_gridexit(ctxt);
    int tot = 0;
    MPI_Allreduce(&cs_test_failures, &tot, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    int ret = 0;
    if (g_rank == 0) {
        cs_test_failures = tot;
        ret = cs_test_done();
    }
    MPI_Finalize();
    return ret;
}
