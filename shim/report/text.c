/*
 * shim/report/text.c - the text report: mpiP-style '@---' sections
 * (header, time per rank, per routine and path with the COV, fallback
 * reasons, top shapes, top callers; per rank and routine with
 * COSTA_SHIM_STATS=full), the same on rank 0's stderr and in the .txt
 * file.  Layout: docs/report-format.md section 2.  Prints a finished report; no
 * MPI, no state.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "shim/shim.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_real_int.h"
#include "shim/report/report_int.h"
#include "shim/shim_stats_int.h"

#define CS_SHIM_REP_RULE_WIDTH 72
#define CS_SHIM_REP_TOP_SHAPES 20  /* shapes in the text; files have all */
#define CS_SHIM_REP_TOP_CALLERS 10

static void cs_shim_rep_rule(FILE *f, const char *title)
{
    int n = fprintf(f, "@--- %s ", title);
    for (; n < CS_SHIM_REP_RULE_WIDTH; n++) {
        fputc('-', f);
    }
    fputc('\n', f);
}

static void cs_shim_rep_settings(FILE *f)
{
    char var[CS_CFG_PATH_LEN + CS_SHIM_REP_NAME_LEN];
    int any = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "COSTA_SHIM_", 11) == 0) {
            snprintf(var, sizeof(var), "%s", *e);
            cs_shim_rep_printable(var);
            fprintf(f, "%s%s", any ? " " : "", var);
            any = 1;
        }
    }
    fputs(any ? " (all others default)\n" : "(all defaults)\n", f);
}

static void cs_shim_rep_gb(char *buf, size_t len, const cs_shim_row_t *r)
{
    if (r->path != CS_SHIM_PATH_ENGINE) {
        snprintf(buf, len, "n/a");
    } else {
        snprintf(buf, len, "%.3f", (double)r->bytes_sent / 1e9);
    }
}

static double cs_shim_rep_mean_ms(const cs_shim_row_t *r)
{
    return r->calls > 0 ? 1e3 * r->t_sum / (double)r->calls : 0.0;
}

static void cs_shim_rep_text_header(FILE *f, const cs_shim_rep_t *rep)
{
    const char *real = cs_shim_real_library();
    fputs("@ costa_shim report\n", f);
    fprintf(f, "@ Command        : %s\n", rep->command);
    fprintf(f, "@ Version        : costa_shim %s\n", CS_SHIM_VERSION);
    fprintf(f, "@ Real library   : %s\n",
            real && real[0] ? real : "(not resolved)");
    fprintf(f, "@ MPI            : %s\n", rep->mpi);
    fprintf(f, "@ Ranks          : %d on %d node%s, %d thread%s/rank\n",
            rep->nprocs, rep->nnodes, rep->nnodes == 1 ? "" : "s",
            rep->threads, rep->threads == 1 ? "" : "s");
    fprintf(f, "@ Start / stop   : %s / %s\n", rep->start, rep->stop);
    int64_t cap = cs_shim_mem_cap();
    char capbuf[64] = "none";
    if (cap >= 0) {
        snprintf(capbuf, sizeof(capbuf), "%.1f MB", (double)cap / 1e6);
    }
    fprintf(f, "@ Memory         : the shim held at most %.1f MB per rank "
               "(cap %s)\n",
            (double)rep->mem_peak / 1e6, capbuf);
    fputs("@ Settings       : ", f);
    cs_shim_rep_settings(f);
    if (rep->cfg->verify) {
        fprintf(f,
                "@ Verify         : %" PRId64 " calls checked, max "
                "difference %.1e\n",
                rep->verify_calls, rep->verify_maxdiff);
    }
    if (rep->partial) {
        fputs("@ Partial        : yes (a statistics table was full", f);
        if (rep->shapes && rep->shapes->dropped > 0) {
            fprintf(f, "; %" PRId64 " calls not in the shape table",
                    rep->shapes->dropped);
        }
        if (rep->callers && rep->callers->dropped > 0) {
            fprintf(f, "; %" PRId64 " calls not in the caller table",
                    rep->callers->dropped);
        }
        fputs("; the totals count every call)\n", f);
    }
}

static void cs_shim_rep_text_time(FILE *f, const cs_shim_rep_t *rep)
{
    cs_shim_rep_rank_t all = {0};
    cs_shim_rep_rule(f, "Time in intercepted routines (seconds)");
    fprintf(f, "%4s %10s %10s %10s %6s %9s %10s\n", "Rank", "AppTime",
            "ShimTime", "Wait", "Shim%", "Calls", "Fallbacks");
    for (int r = 0; r < rep->nranks; r++) {
        const cs_shim_rep_rank_t *k = &rep->ranks[r];
        fprintf(f,
                "%4d %10.3f %10.4f %10.4f %6.2f %9" PRId64 " %10" PRId64
                "\n",
                rep->rank0 + r, k->app_time, k->t_shim, k->t_wait,
                k->app_time > 0.0 ? 100.0 * k->t_shim / k->app_time : 0.0,
                k->calls, k->fallbacks);
        all.app_time += k->app_time;
        all.t_shim += k->t_shim;
        all.t_wait += k->t_wait;
        all.calls += k->calls;
        all.fallbacks += k->fallbacks;
    }
    fprintf(f,
            "%4s %10.3f %10.4f %10.4f %6.2f %9" PRId64 " %10" PRId64 "\n",
            "*", all.app_time, all.t_shim, all.t_wait,
            all.app_time > 0.0 ? 100.0 * all.t_shim / all.app_time : 0.0,
            all.calls, all.fallbacks);
}

/*
 * COV as in mpiP: the coefficient of variation, over the ranks that have
 * the row, of each rank's total time in it (load imbalance), not of the
 * single call times.
 */
/* bytes as a percentage of what the engine moved in row r (sent to other
 * ranks plus copied on the rank); "n/a" off the engine */
static void cs_shim_rep_share(char *buf, size_t len, const cs_shim_row_t *r,
                              int64_t bytes)
{
    int64_t moved = r->bytes_sent + r->bytes_self;
    if (r->path != CS_SHIM_PATH_ENGINE || moved <= 0) {
        snprintf(buf, len, "n/a");
    } else {
        snprintf(buf, len, "%.1f", 100.0 * (double)bytes / (double)moved);
    }
}

static void cs_shim_rep_text_routines(FILE *f, const cs_shim_rep_t *rep)
{
    cs_shim_rep_rule(f, "Per routine and path (all ranks)");
    fprintf(f, "%-11s %-11s %9s %10s %10s %9s %9s %6s %9s %6s %6s %6s\n",
            "Routine", "Path", "Calls", "Time(s)", "Wait(s)", "Mean(ms)",
            "Max(ms)", "COV", "Sent(GB)", "Self%", "Node%", "Net%");
    for (int t = 0; t < rep->ntext; t++) {
        const cs_shim_rep_trow_t *tr = &rep->text[t];
        const cs_shim_row_t *r = &tr->row;
        char name[32], gb[32], self[32], node[32], net[32];
        cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
        cs_shim_rep_gb(gb, sizeof(gb), r);
        cs_shim_rep_share(self, sizeof(self), r, r->bytes_self);
        cs_shim_rep_share(node, sizeof(node), r, r->bytes_node);
        cs_shim_rep_share(net, sizeof(net), r, r->bytes_net);
        double cov = 0.0;
        if (tr->n > 1 && tr->s1 > 0.0) {
            double mean = tr->s1 / tr->n;
            double var = tr->s2 / tr->n - mean * mean;
            cov = var > 0.0 ? sqrt(var) / mean : 0.0;
        }
        fprintf(f,
                "%-11s %-11s %9" PRId64 " %10.4f %10.4f %9.3f %9.3f %6.2f "
                "%9s %6s %6s %6s\n",
                name, cs_shim_path_str(r->path), r->calls, r->t_sum, r->t_wait,
                cs_shim_rep_mean_ms(r), 1e3 * r->t_max, cov, gb, self, node,
                net);
    }
}

/*
 * Where the engine rows' time went, summed over ranks: the arrival wait,
 * the engine's phases (cs_eng_stats_t) and the rest (checks, the decision
 * exchange, planning, buffers): the next bottleneck, routine by routine.
 */
static void cs_shim_rep_text_phases(FILE *f, const cs_shim_rep_t *rep)
{
    cs_shim_rep_rule(f, "Engine phases (all ranks, seconds)");
    int any = 0;
    for (int t = 0; t < rep->ntext; t++) {
        const cs_shim_row_t *r = &rep->text[t].row;
        if (r->path != CS_SHIM_PATH_ENGINE || r->calls == 0) {
            continue;
        }
        if (!any) {
            fprintf(f, "%-11s %9s %10s %10s %10s %10s %10s %10s %10s\n",
                    "Routine", "Calls", "Time(s)", "Wait(s)", "Pack(s)",
                    "Local(s)", "Unpack(s)", "Xfer(s)", "Other(s)");
            any = 1;
        }
        char name[32];
        cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
        double other = r->t_sum - r->t_wait - r->t_pack - r->t_local -
                       r->t_unpack - r->t_xfer;
        fprintf(f,
                "%-11s %9" PRId64
                " %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f\n",
                name, r->calls, r->t_sum, r->t_wait, r->t_pack, r->t_local,
                r->t_unpack, r->t_xfer, other);
    }
    if (!any) {
        fputs("(none)\n", f);
    }
}

/* p?gemm on the engine path: rate, bytes received against PBLAS's model,
 * and the phases (docs/design.md, "Matrix multiplication"). */
static void cs_shim_rep_text_gemm(FILE *f, const cs_shim_rep_t *rep)
{
    int any = 0;
    for (int t = 0; t < rep->ntext; t++) {
        const cs_shim_row_t *r = &rep->text[t].row;
        if (r->path != CS_SHIM_PATH_ENGINE || r->flops == 0) {
            continue;
        }
        if (!any) {
            cs_shim_rep_rule(f, "Matrix multiplication on the engine "
                                "(all ranks)");
            fprintf(f, "%-11s %9s %10s %8s %12s %12s %9s %9s %9s %9s\n",
                    "Routine", "Calls", "Time(s)", "GF/s", "Recv(MB)",
                    "PBLAS(MB)", "In(s)", "Mul(s)", "Reduce(s)", "Out(s)");
            any = 1;
        }
        char name[32];
        cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
        /* rate per rank: the ranks' flops over the ranks' time */
        fprintf(f,
                "%-11s %9" PRId64 " %10.4f %8.2f %12.1f %12.1f %9.4f %9.4f "
                "%9.4f %9.4f\n",
                name, r->calls, r->t_sum,
                r->t_sum > 0 ? (double)r->flops / r->t_sum * 1e-9 : 0.0,
                (double)r->bytes_recv * 1e-6, (double)r->bytes_pblas * 1e-6,
                r->t_mm_in, r->t_mul, r->t_reduce, r->t_mm_out);
    }
}

static void cs_shim_rep_text_reasons(FILE *f, const cs_shim_rep_t *rep)
{
    cs_shim_rep_rule(f, "Fallback reasons");
    if (rep->nreason == 0) {
        fputs("(none)\n", f);
        return;
    }
    fprintf(f, "%-11s %-14s %9s\n", "Routine", "Reason", "Calls");
    for (int i = 0; i < rep->nreason; i++) {
        const cs_shim_row_t *r = &rep->reasons[i];
        char name[32];
        cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
        fprintf(f, "%-11s %-14s %9" PRId64 "\n", name,
                cs_shim_reason_str(r->reason), r->calls);
    }
}

/* "64x64/2x2R"; "-" for block sizes that were not read. */
static void cs_shim_rep_blk(char *buf, size_t len, int32_t mb, int32_t nb,
                            const char *grid)
{
    if (mb == -1 || nb == -1) {
        snprintf(buf, len, "-/%s", grid);
    } else {
        snprintf(buf, len, "%" PRId32 "x%" PRId32 "/%s", mb, nb, grid);
    }
}

/* Share of the crossing bytes an optimal relabeling would save. */
static void cs_shim_rep_relabel_pct(char *buf, size_t len,
                                    const cs_shim_shape_t *s)
{
    if (s->relabel_cross > 0) {
        snprintf(buf, len, "%.1f%%",
                 100.0 * (double)(s->relabel_cross - s->relabel_best) /
                     (double)s->relabel_cross);
    } else if (s->relabel_cross == 0) {
        snprintf(buf, len, "0.0%%");
    } else {
        snprintf(buf, len, "n/a");
    }
}

/* Share of the bytes crossing nodes that the node-aware relabeling would
 * save ("n/a": one node, or not computed). */
static void cs_shim_rep_relabel_net(char *buf, size_t len,
                                    const cs_shim_shape_t *s)
{
    if (s->relabel_cross >= 0 && s->relabel_net > 0) {
        snprintf(buf, len, "%.1f%%",
                 100.0 * (double)(s->relabel_net - s->relabel_net_node) /
                     (double)s->relabel_net);
    } else if (s->relabel_cross >= 0 && s->relabel_net == 0) {
        snprintf(buf, len, "0.0%%");
    } else {
        snprintf(buf, len, "n/a");
    }
}

/* GB/s as costa_shim_report.py computes it: bytes moved (sent + copied
 * locally) per second of call time, both summed over ranks. */
static void cs_shim_rep_gbs(char *buf, size_t len, const cs_shim_row_t *r)
{
    int64_t moved = r->bytes_sent + r->bytes_self;
    if (moved <= 0 || r->t_sum <= 0.0) {
        snprintf(buf, len, "n/a");
    } else {
        snprintf(buf, len, "%.2f", (double)moved / r->t_sum / 1e9);
    }
}

/* The rule of a section of the top shapes and "(none)" when there are
 * none; returns how many shapes the section lists (the longest first). */
static int cs_shim_rep_shapes_head(FILE *f, const cs_shim_rep_t *rep,
                                   const char *title)
{
    const cs_shim_shape_tab_t *t = rep->shapes;
    cs_shim_rep_rule(f, title);
    if (!t || t->n == 0) {
        fputs("(none)\n", f);
        return 0;
    }
    return t->n < CS_SHIM_REP_TOP_SHAPES ? t->n : CS_SHIM_REP_TOP_SHAPES;
}

static void cs_shim_rep_text_shapes(FILE *f, const cs_shim_rep_t *rep)
{
    const cs_shim_shape_tab_t *t = rep->shapes;
    int top = cs_shim_rep_shapes_head(f, rep, "Top call shapes by time");
    if (top == 0) {
        return;
    }
    fprintf(f, "%10s  %-11s %-11s %-15s %-15s %9s %10s %10s %7s %6s %7s "
               "%7s\n",
            "Id", "Routine", "m x n", "A blk/grid", "B blk/grid", "Calls",
            "Time(s)", "Wait(s)", "GB/s", "Net%", "Relabel", "RelNet");
    for (int i = 0; i < top; i++) {
        const cs_shim_shape_t *s = &t->e[i];
        char name[32], mn[32], a[64], b[64], gbs[32], rl[32], net[32],
            rn[32];
        cs_shim_called_name(s->row.routine, s->row.spelling, name,
                            sizeof(name));
        snprintf(mn, sizeof(mn), "%" PRId32 "x%" PRId32, s->m, s->n);
        cs_shim_rep_blk(a, sizeof(a), s->mb_a, s->nb_a, s->grid_a);
        cs_shim_rep_blk(b, sizeof(b), s->mb_b, s->nb_b, s->grid_b);
        cs_shim_rep_gbs(gbs, sizeof(gbs), &s->row);
        cs_shim_rep_relabel_pct(rl, sizeof(rl), s);
        cs_shim_rep_share(net, sizeof(net), &s->row, s->row.bytes_net);
        cs_shim_rep_relabel_net(rn, sizeof(rn), s);
        fprintf(f,
                "%10" PRIu32 "  %-11s %-11s %-15s %-15s %9" PRId64
                " %10.4f %10.4f %7s %6s %7s %7s\n",
                s->id, name, mn, a, b, s->row.calls, s->row.t_sum,
                s->row.t_wait, gbs, net, rl, rn);
    }
    if (t->n > top) {
        fprintf(f, "(%d more shapes in the CSV and JSON files)\n",
                t->n - top);
    }
    if (t->dropped > 0) {
        fprintf(f, "(%" PRId64 " calls not counted here: the table was "
                   "full)\n",
                t->dropped);
    }
}

/*
 * The call times of the shapes above, in the same order: mean, median
 * (from the shape's histogram) and the slowest call, with its rank and
 * its number among that rank's calls of the shape, so that the trace
 * (COSTA_SHIM_VERBOSE=1) finds it.  A section of its own: the shape
 * table is wide enough already.
 */
static void cs_shim_rep_text_tails(FILE *f, const cs_shim_rep_t *rep)
{
    int top =
        cs_shim_rep_shapes_head(f, rep, "Call times of the top shapes (ms)");
    if (top == 0) {
        return;
    }
    fprintf(f, "%10s  %-11s %8s %9s %10s %9s %7s %7s %8s\n", "Id",
            "Routine", "Calls", "Mean(ms)", "Median(ms)", "Max(ms)",
            "Max/Med", "MaxRank", "MaxCall");
    for (int i = 0; i < top; i++) {
        const cs_shim_shape_t *s = &rep->shapes->e[i];
        char name[32];
        cs_shim_called_name(s->row.routine, s->row.spelling, name,
                            sizeof(name));
        double med = cs_shim_rep_shape_median(s);
        fprintf(f,
                "%10" PRIu32 "  %-11s %8" PRId64
                " %9.3f %10.3f %9.3f %7.2f %7" PRId32 " %8" PRId64 "\n",
                s->id, name, s->row.calls, cs_shim_rep_mean_ms(&s->row),
                1e3 * med, 1e3 * s->row.t_max,
                med > 0.0 ? s->row.t_max / med : 0.0, s->max_rank,
                s->max_call);
    }
}

static void cs_shim_rep_text_callers(FILE *f, const cs_shim_rep_t *rep)
{
    const cs_shim_caller_tab_t *t = rep->callers;
    cs_shim_rep_rule(f, "Callers (top 10)");
    if (!t || t->n == 0) {
        fputs("(none)\n", f);
        return;
    }
    fprintf(f, "%-30s %-11s %9s %10s\n", "Caller", "Routine", "Calls",
            "Time(s)");
    int top = t->n < CS_SHIM_REP_TOP_CALLERS ? t->n : CS_SHIM_REP_TOP_CALLERS;
    for (int i = 0; i < top; i++) {
        const cs_shim_caller_t *c = &t->e[i];
        char name[32];
        cs_shim_called_name(c->routine, c->spelling, name, sizeof(name));
        fprintf(f, "%-30s %-11s %9" PRId64 " %10.4f\n", c->caller, name,
                c->calls, c->t_sum);
    }
    if (t->n > top) {
        fprintf(f, "(%d more in the JSON file)\n", t->n - top);
    }
    if (t->dropped > 0) {
        fprintf(f, "(%" PRId64 " calls not counted here: the table was "
                   "full)\n",
                t->dropped);
    }
}

void cs_shim_rep_text_summary(FILE *f, const cs_shim_rep_t *rep)
{
    cs_shim_rep_text_header(f, rep);
    cs_shim_rep_text_time(f, rep);
    cs_shim_rep_text_routines(f, rep);
    cs_shim_rep_text_phases(f, rep);
    cs_shim_rep_text_gemm(f, rep);
    cs_shim_rep_text_reasons(f, rep);
    cs_shim_rep_text_shapes(f, rep);
    cs_shim_rep_text_tails(f, rep);
    cs_shim_rep_text_callers(f, rep);
}

/* COSTA_SHIM_STATS=full: every rank's rows (file only, not stderr). */
void cs_shim_rep_text_per_rank(FILE *f, const cs_shim_rep_t *rep)
{
    cs_shim_rep_rule(f, "Per rank and routine");
    fprintf(f, "%4s %-11s %-11s %-14s %9s %10s %10s %9s %9s %9s\n",
            "Rank", "Routine", "Path", "Reason", "Calls", "Time(s)",
            "Wait(s)", "Mean(ms)", "Max(ms)", "Sent(GB)");
    for (int r = 0; r < rep->nranks; r++) {
        for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
            const cs_shim_row_t *w = &rep->all[j];
            char name[32], gb[32];
            const char *reason = cs_shim_reason_str(w->reason);
            cs_shim_called_name(w->routine, w->spelling, name, sizeof(name));
            cs_shim_rep_gb(gb, sizeof(gb), w);
            fprintf(f,
                    "%4d %-11s %-11s %-14s %9" PRId64 " %10.4f %10.4f %9.3f "
                    "%9.3f %9s\n",
                    rep->rank0 + r, name, cs_shim_path_str(w->path),
                    reason[0] ? reason : "-", w->calls, w->t_sum, w->t_wait,
                    cs_shim_rep_mean_ms(w), 1e3 * w->t_max, gb);
        }
    }
}
