/*
 * shim/report/csv.c - the CSV file of the report: one row per
 * statistics row (merged over all ranks as rank -1, then each rank's)
 * and per call shape, columns as docs/report-format.md lists them.
 * Prints a finished report; no MPI, no state.
 */
#include <inttypes.h>
#include <stdio.h>

#include "shim/shim.h"
#include "shim/report/report_int.h"
#include "shim/shim_stats_int.h"

static void cs_shim_rep_csv_row(FILE *f, int rank, const cs_shim_row_t *r)
{
    char name[32];
    cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
    /* the nine shape columns stay empty in routine-level rows */
    fprintf(f, "%d,%s,%s,%s,,,,,,,,,", rank, name, cs_shim_path_str(r->path),
            cs_shim_reason_str(r->reason));
    cs_shim_rep_cols_print(f, r, 0);
    /* the relabeling and the call-time columns are not tracked per
     * routine row */
    fputs(",,,,,,,,\n", f);
}

/* A block size, empty when it was not read. */
static void cs_shim_rep_csv_blk(FILE *f, int32_t v)
{
    fputc(',', f);
    if (v != -1) {
        fprintf(f, "%" PRId32, v);
    }
}

static void cs_shim_rep_csv_shape(FILE *f, int rank, const cs_shim_shape_t *s)
{
    char name[32];
    cs_shim_called_name(s->row.routine, s->row.spelling, name, sizeof(name));
    fprintf(f, "%d,%s,%s,%s,%" PRIu32 ",%" PRId32 ",%" PRId32, rank, name,
            cs_shim_rep_shape_path(s), cs_shim_rep_shape_reason(s), s->id,
            s->m, s->n);
    cs_shim_rep_csv_blk(f, s->mb_a);
    cs_shim_rep_csv_blk(f, s->nb_a);
    fprintf(f, ",%s", s->grid_a);
    cs_shim_rep_csv_blk(f, s->mb_b);
    cs_shim_rep_csv_blk(f, s->nb_b);
    fprintf(f, ",%s", s->grid_b);
    cs_shim_rep_cols_print(f, &s->row, 0);
    fputc(',', f);
    if (s->relabel_cross >= 0) {
        fprintf(f, "%" PRId64, s->relabel_cross - s->relabel_best);
    }
    const int64_t net[3] = {s->relabel_net, s->relabel_net_plain,
                            s->relabel_net_node};
    for (int k = 0; k < 3; k++) {
        fputc(',', f);
        if (s->relabel_cross >= 0 && s->relabel_net >= 0) {
            fprintf(f, "%" PRId64, net[k]);
        }
    }
    fprintf(f, ",%.9g,%" PRId64 ",%" PRId32 ",",
            cs_shim_rep_shape_median(s), s->max_call, s->max_rank);
    cs_shim_rep_hist_print(f, s, 0);
    fputc('\n', f);
}

void cs_shim_rep_write_csv(FILE *f, const void *arg)
{
    const cs_shim_rep_t *rep = arg;
    fputs("# costa_shim_csv_version: 1\n", f);
    fprintf(f, "# command: %s\n", rep->command);
    fprintf(f, "# nprocs: %d\n", rep->nprocs);
    fprintf(f, "# partial: %d\n", rep->partial);
    if (rep->shapes) {
        fprintf(f, "# shapes_dropped_calls: %" PRId64 "\n",
                rep->shapes->dropped);
    }
    fputs("rank,routine,path,reason,shape_id,m,n,mbA,nbA,gridA,mbB,nbB,gridB",
          f);
    cs_shim_rep_cols_print(f, NULL, 0);
    fputs(",relabel_gain_bytes,relabel_net_bytes,relabel_net_plain_bytes,"
          "relabel_net_node_bytes,t_median_s,max_call,max_rank,t_hist\n",
          f);
    if (rep->collective) {
        for (int i = 0; i < rep->nmerged; i++) {
            cs_shim_rep_csv_row(f, -1, &rep->merged[i]);
        }
    }
    for (int r = 0; r < rep->nranks; r++) {
        for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
            cs_shim_rep_csv_row(f, rep->rank0 + r, &rep->all[j]);
        }
    }
    /* shape rows: merged (rank -1) or this rank's own */
    for (int i = 0; rep->shapes && i < rep->shapes->n; i++) {
        cs_shim_rep_csv_shape(f, rep->collective ? -1 : rep->rank0,
                              &rep->shapes->e[i]);
    }
}
