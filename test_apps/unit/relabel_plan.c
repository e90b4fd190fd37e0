/*
 * test_apps/unit/relabel_plan.c - command-line planning tool (not a test):
 * how much process relabeling would save on a redistribution between two
 * block-cyclic layouts.  Built with the unit tests (no MPI calls; the
 * engine objects only need the MPI library to link) and wrapped by
 * scripts/costa-shim-relabel.
 *
 *   relabel_plan --m M --n N --a PxQ:MBxNB[:R|C] --b PxQ:MBxNB[:R|C]
 *                [--esize BYTES] [--budget SECONDS] [--exact] [--perm]
 *
 * Both layouts start at process coordinate (0, 0), with plain block-cyclic
 * blocks; ranks are numbered in each grid's order (R: row-major, the
 * default, C: column-major), so process r of A and process r of B are the
 * same rank.  P is the larger grid (at most CS_TOOL_MAX_P).
 *
 * Up to CS_RL_EXACT_MAX_P (or with --dense, up to CS_RL_MAX_P) the tool
 * computes the volume matrix with cs_eng_volume_matrix(), runs the greedy
 * solver, the swap improvement and the exact solver one by one and
 * prints their crossing volumes (bytes and % of the total) with wall and
 * CPU times, then runs cs_rl_solve() (what the shim would do) and prints
 * its choice.  The exact solver runs only up to CS_RL_EXACT_MAX_P unless
 * --exact forces it.
 * Above (or with --kron) it computes the volume's row and column factors
 * (cs_eng_volume_factors) and relabels with cs_rl_kron_solve(), never
 * holding the P x P matrix: O(P + blocks) time and memory; with --kron
 * up to CS_RL_EXACT_MAX_P it also runs the exact solver for comparison.
 * --perm prints "position process" lines of the chosen relabeling.
 * Exit status: 0, 1 on a solver error, 2 on bad arguments.  It never
 * prints the test sentinel.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_tool_args.h" /* layouts, options, timing */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: relabel_plan --m M --n N --a PxQ:MBxNB[:R|C] "
            "--b PxQ:MBxNB[:R|C]\n"
            "                    [--esize BYTES] [--budget SECONDS] "
            "[--exact] [--perm] [--dense|--kron]\n"
            "  M x N matrix of BYTES-byte elements (default 8) moved from "
            "layout A to B,\n"
            "  each a P x Q process grid with MB x NB blocks, ranks in row "
            "(R, default)\n"
            "  or column (C) order; --budget bounds the swap improvement "
            "(default none);\n"
            "  --exact also runs the exact solver above the threshold "
            "(P > %d);\n"
            "  above it the volume's factors are relabeled (--kron: at "
            "any P; --dense:\n"
            "  the P x P matrix, P <= %d).  P <= %d.\n",
            CS_RL_EXACT_MAX_P, CS_RL_MAX_P, CS_TOOL_MAX_P);
}

static double pct(int64_t x, int64_t total)
{
    return total > 0 ? 100.0 * (double)x / (double)total : 0.0;
}

static void print_vol(const char *what, int64_t x, int64_t total)
{
    printf("%-14s crossing %20" PRId64 " bytes  %7.3f %%", what, x,
           pct(x, total));
}

/* The P x P matrix, every solver on it (small P, or --dense). */
static int run_dense(const cs_eng_layout_t *la, const cs_eng_layout_t *lb,
                     const cs_eng_op_t *op, int P, double budget,
                     int exact_mode, int print_perm)
{
    int64_t *vol = calloc((size_t)P * (size_t)P, sizeof(int64_t));
    int *perm = malloc((size_t)P * sizeof(int));
    int *work = malloc((size_t)P * sizeof(int));
    if (vol == NULL || perm == NULL || work == NULL) {
        fprintf(stderr, "relabel_plan: out of memory (P = %d)\n", P);
        return 1;
    }
    tm_t t_vol;
    tm_start(&t_vol);
    cs_status_t est = cs_eng_volume_matrix(la, lb, op, P, vol);
    tm_stop(&t_vol);
    if (est != CS_OK) {
        fprintf(stderr, "relabel_plan: volume matrix: %s\n",
                cs_status_str(est));
        return 1;
    }
    int64_t nnz = 0;
    for (int64_t k = 0; k < (int64_t)P * P; k++) {
        nnz += vol[k] != 0;
    }

    /* each step on its own, timed */
    cs_rl_result_t r;
    int64_t total;
    cs_rl_status_t st = cs_rl_vol_check(P, vol, &total, NULL);
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_plan: %s\n", cs_rl_status_str(st));
        return 1;
    }
    printf("%-14s %s  %d x %d, %" PRId64 " nonzeros, total %" PRId64
           " bytes\n", "volume matrix", fmt_time(&t_vol), P, P, nnz, total);
    int64_t id_vol = cs_rl_crossing_volume(P, vol, NULL);
    print_vol("identity", id_vol, total);
    printf("\n");

    tm_t tm;
    tm_start(&tm);
    st = cs_rl_solve_greedy(P, vol, 0, work);
    tm_stop(&tm);
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_plan: greedy: %s\n", cs_rl_status_str(st));
        return 1;
    }
    int64_t gr_vol = cs_rl_crossing_volume(P, vol, work);
    print_vol("greedy", gr_vol, total);
    printf("  %s\n", fmt_time(&tm));

    /* as cs_rl_solve does above the threshold: improve the better of the
     * greedy result and the identity */
    if (id_vol < gr_vol) {
        for (int j = 0; j < P; j++) {
            work[j] = j;
        }
    }
    int passes = 0;
    int64_t swaps = 0;
    tm_start(&tm);
    st = cs_rl_improve(P, vol, CS_RL_IMPROVE_MAX_PASSES, budget, work, &passes,
                       &swaps);
    tm_stop(&tm);
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_plan: improve: %s\n", cs_rl_status_str(st));
        return 1;
    }
    int64_t imp_vol = cs_rl_crossing_volume(P, vol, work);
    print_vol("greedy+swaps", imp_vol, total);
    printf("  %s  %d passes, %" PRId64 " swaps\n", fmt_time(&tm), passes,
           swaps);

    if (P <= CS_RL_EXACT_MAX_P || exact_mode) {
        tm_start(&tm);
        st = cs_rl_solve_exact(P, vol, work);
        tm_stop(&tm);
        if (st != CS_RL_OK) {
            fprintf(stderr, "relabel_plan: exact: %s\n",
                    cs_rl_status_str(st));
            return 1;
        }
        int64_t ex_vol = cs_rl_crossing_volume(P, vol, work);
        print_vol("exact", ex_vol, total);
        printf("  %s\n", fmt_time(&tm));
        if (ex_vol > 0) {
            printf("%-14s greedy %.4f x, greedy+swaps %.4f x the optimal "
                   "crossing volume\n", "ratio",
                   (double)gr_vol / (double)ex_vol,
                   (double)imp_vol / (double)ex_vol);
        }
    } else {
        printf("%-14s skipped (P %d > threshold %d; --exact forces it)\n",
               "exact", P, CS_RL_EXACT_MAX_P);
    }

    /* the production path: what the shim would choose */
    tm_start(&tm);
    st = cs_rl_solve(P, vol, budget, perm, &r);
    tm_stop(&tm);
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_plan: cs_rl_solve: %s\n",
               cs_rl_status_str(st));
        return 1;
    }
    static const char *const method[] = {"identity", "greedy+swaps",
                                         "exact"};
    printf("%-14s %s, saves %" PRId64 " bytes (%.3f %% of the total); "
           "cs_rl_solve %s\n", "chosen", method[r.method],
           r.identity_volume - r.volume,
           pct(r.identity_volume - r.volume, total), fmt_time(&tm));
    if (print_perm) {
        for (int j = 0; j < P; j++) {
            printf("%d %d\n", j, perm[j]);
        }
    }
    free(work);
    free(perm);
    free(vol);
    return 0;
}

/* Names of cs_rl_kron_method_t. */
static const char *const kron_method[] = {"identity", "product", "greedy",
                                          "two-level", "identity+swaps",
                                      "plain"};

/* The volume's factors and cs_rl_kron_solve (large P, or --kron); with
 * --kron at small P the exact solver too, for comparison. */
static int run_kron(const cs_eng_layout_t *la, const cs_eng_layout_t *lb,
                    const cs_eng_op_t *op, int P, int exact_mode,
                    int print_perm)
{
    tm_t t_all, t_f, tm;
    tm_start(&t_all);
    tm_start(&t_f);
    cs_eng_factors_t f;
    memset(&f, 0, sizeof(f));
    cs_rl_kx_t *kx = NULL;
    int *perm = malloc((size_t)P * sizeof(int));
    if (!perm || tool_kron("relabel_plan", la, lb, op, P, &f, &kx) != 0) {
        cs_eng_factors_free(&f);
        free(perm);
        return 1;
    }
    tm_stop(&t_f);
    int64_t total = cs_rl_kron_total(kx);
    printf("%-14s %s  rows %dx%d: %" PRId64 " entries, columns %dx%d: %"
           PRId64 " entries; %" PRId64 " nonzeros, total %" PRId64
           " bytes\n", "factors", fmt_time(&t_f), f.rows.na, f.rows.nb,
           f.rows.n, f.cols.na, f.cols.nb, f.cols.n, cs_rl_kron_nnz(kx),
           total);
    int64_t id_vol = total - cs_rl_kron_kept(kx, NULL);
    print_vol("identity", id_vol, total);
    printf("\n");
    cs_rl_kron_info_t in;
    tm_start(&tm);
    cs_rl_status_t st = cs_rl_kron_solve(kx, perm, &in);
    tm_stop(&tm);
    if (st != CS_RL_OK) {
        fprintf(stderr, "relabel_plan: kron: %s\n", cs_rl_status_str(st));
        return 1;
    }
    int64_t kr_vol = total - in.kept;
    print_vol("kron", kr_vol, total);
    printf("  %s  %s start %" PRId64 ", %d passes, %" PRId64 " swaps\n",
           fmt_time(&tm), kron_method[in.method], total - in.start_kept,
           in.passes, in.swaps);
    tm_stop(&t_all);
    if (P <= CS_RL_EXACT_MAX_P || exact_mode) {
        int64_t *vol = calloc((size_t)P * (size_t)P, sizeof(int64_t));
        int *work = malloc((size_t)P * sizeof(int));
        if (!vol || !work ||
            cs_eng_volume_matrix(la, lb, op, P, vol) != CS_OK ||
            cs_rl_solve_exact(P, vol, work) != CS_RL_OK) {
            fprintf(stderr, "relabel_plan: exact solver failed\n");
            return 1;
        }
        int64_t ex_vol = cs_rl_crossing_volume(P, vol, work);
        print_vol("exact", ex_vol, total);
        printf("\n");
        if (ex_vol > 0) {
            printf("%-14s kron %.4f x the optimal crossing volume\n",
                   "ratio", (double)kr_vol / (double)ex_vol);
        }
        free(vol);
        free(work);
    } else {
        printf("%-14s skipped (P %d > threshold %d; --exact forces it)\n",
               "exact", P, CS_RL_EXACT_MAX_P);
    }
    printf("%-14s kron %s, saves %" PRId64 " bytes (%.3f %% of the total); "
           "factors and solver %s\n", "chosen", kron_method[in.method],
           id_vol - kr_vol, pct(id_vol - kr_vol, total), fmt_time(&t_all));
    if (print_perm) {
        for (int j = 0; j < P; j++) {
            printf("%d %d\n", j, perm[j]);
        }
    }
    cs_rl_kron_destroy(kx);
    cs_eng_factors_free(&f);
    free(perm);
    return 0;
}
int main(int argc, char **argv)
{
    int64_t m = -1, n = -1, esize = 8;
    double budget = 0.0;
    int have_a = 0, have_b = 0, exact_mode = 0, print_perm = 0, path = 0;
    grid_arg_t ga, gb;
    for (int k = 1; k < argc; k++) {
        const char *o = argv[k];
        const char *val = k + 1 < argc ? argv[k + 1] : NULL;
        int bad = 0;
        if (strcmp(o, "--help") == 0 || strcmp(o, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(o, "--exact") == 0) {
            exact_mode = 1;
        } else if (strcmp(o, "--perm") == 0) {
            print_perm = 1;
        } else if (strcmp(o, "--dense") == 0) {
            path = 1;
        } else if (strcmp(o, "--kron") == 0) {
            path = 2;
        } else if (val == NULL) {
            bad = 1;
        } else if (strcmp(o, "--m") == 0) {
            bad = parse_i64(val, 0, &m);
            k++;
        } else if (strcmp(o, "--n") == 0) {
            bad = parse_i64(val, 0, &n);
            k++;
        } else if (strcmp(o, "--esize") == 0) {
            bad = parse_i64(val, 1, &esize);
            k++;
        } else if (strcmp(o, "--budget") == 0) {
            char *end;
            budget = strtod(val, &end);
            bad = end == val || *end != '\0' || budget < 0;
            k++;
        } else if (strcmp(o, "--a") == 0) {
            bad = parse_grid(val, CS_TOOL_MAX_P, &ga);
            have_a = !bad;
            k++;
        } else if (strcmp(o, "--b") == 0) {
            bad = parse_grid(val, CS_TOOL_MAX_P, &gb);
            have_b = !bad;
            k++;
        } else {
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "relabel_plan: bad or incomplete option %s%s%s\n",
                    o, val != NULL ? " " : "", val != NULL ? val : "");
            usage(stderr);
            return 2;
        }
    }
    if (m < 0 || n < 0 || !have_a || !have_b) {
        fprintf(stderr, "relabel_plan: --m, --n, --a and --b are required\n");
        usage(stderr);
        return 2;
    }
    int pa = ga.np * ga.nq, pb = gb.np * gb.nq;
    int P = pa > pb ? pa : pb;
    if (path == 0) {
        path = P > CS_RL_EXACT_MAX_P ? 2 : 1;
    }
    if (path == 1 && P > CS_RL_MAX_P) {
        fprintf(stderr, "relabel_plan: --dense takes P <= %d\n",
                CS_RL_MAX_P);
        return 2;
    }

    cs_eng_layout_t la, lb;
    int *grida = NULL, *gridb = NULL;
    if (build_layout(&ga, m, n, &la, &grida) != 0 ||
        build_layout(&gb, m, n, &lb, &gridb) != 0) {
        fprintf(stderr, "relabel_plan: cannot build the layouts\n");
        return 2;
    }
    printf("relabel_plan: %" PRId64 " x %" PRId64 " elements of %" PRId64
           " bytes, A %dx%d:%" PRId64 "x%" PRId64 ":%c -> B %dx%d:%" PRId64
           "x%" PRId64 ":%c, P %d\n",
           m, n, esize, ga.np, ga.nq, ga.mb, ga.nb, ga.colorder ? 'C' : 'R',
           gb.np, gb.nq, gb.mb, gb.nb, gb.colorder ? 'C' : 'R', P);
    cs_eng_op_t op = {.m = m, .n = n, .esize = (size_t)esize};
    int rc = path == 2 ? run_kron(&la, &lb, &op, P, exact_mode, print_perm)
                       : run_dense(&la, &lb, &op, P, budget, exact_mode,
                                   print_perm);
    free(gridb);
    free(grida);
    return rc;
}
