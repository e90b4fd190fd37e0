/*
 * shim/report/merge.c - the report's tables from the rows of all
 * ranks: one row per full key, one per (routine as called, path) with the
 * spread of its time over the ranks (the COV), one per fallback reason;
 * and the shape and caller tables in report order.  Fixed-size tables: a
 * full one marks the report partial.  No MPI, no state.
 */
#include <stdlib.h>
#include <string.h>

#include "shim/shim.h"
#include "shim/report/report_int.h"
#include "shim/shim_stats_int.h"

static int cs_shim_rep_key_cmp(const cs_shim_row_t *a, const cs_shim_row_t *b,
                               int with_path, int with_reason)
{
    if (a->routine != b->routine) {
        return a->routine < b->routine ? -1 : 1;
    }
    if (a->spelling != b->spelling) {
        return a->spelling < b->spelling ? -1 : 1;
    }
    if (with_path && a->path != b->path) {
        return a->path < b->path ? -1 : 1;
    }
    if (with_reason && a->reason != b->reason) {
        return a->reason < b->reason ? -1 : 1;
    }
    return 0;
}

int cs_shim_rep_row_cmp(const void *a, const void *b)
{
    return cs_shim_rep_key_cmp(a, b, 1, 1);
}

static int cs_shim_rep_trow_cmp(const void *a, const void *b)
{
    const cs_shim_rep_trow_t *x = a, *y = b;
    return cs_shim_rep_key_cmp(&x->row, &y->row, 1, 0);
}

/*
 * Add src to the table rows[0..*n) under its key (path and reason taken
 * into account as asked; the others are zeroed in a new entry).  Returns
 * the index, or -1 when the table is full.
 */
static int cs_shim_rep_table_add(cs_shim_row_t *rows, int *n,
                                 const cs_shim_row_t *src, int with_path,
                                 int with_reason)
{
    int i;
    for (i = 0; i < *n; i++) {
        if (cs_shim_rep_key_cmp(&rows[i], src, with_path, with_reason) == 0) {
            break;
        }
    }
    if (i == *n) {
        if (i == CS_SHIM_REP_MAX_ROWS) {
            return -1;
        }
        memset(&rows[i], 0, sizeof(rows[i]));
        rows[i].routine = src->routine;
        rows[i].spelling = src->spelling;
        rows[i].path = with_path ? src->path : 0;
        rows[i].reason = with_reason ? src->reason : CS_SHIM_REASON_NONE;
        (*n)++;
    }
    cs_shim_row_merge(&rows[i], src);
    return i;
}

static void cs_shim_rep_trow_flush(cs_shim_rep_trow_t *t)
{
    if (t->last_rank >= 0) {
        t->s1 += t->cur;
        t->s2 += t->cur * t->cur;
        t->n++;
    }
    t->cur = 0.0;
}

/*
 * Build the merged tables from all gathered rows: merged (full key),
 * text (routine as called and path) and reasons (routine as called and
 * reason, fallback-type rows only).
 */
void cs_shim_rep_merge(cs_shim_rep_t *rep)
{
    for (int r = 0; r < rep->nranks; r++) {
        for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
            const cs_shim_row_t *row = &rep->all[j];
            if (cs_shim_rep_table_add(rep->merged, &rep->nmerged, row, 1, 1) <
                0) {
                rep->partial = 1;
            }
            if (row->reason != CS_SHIM_REASON_NONE &&
                cs_shim_rep_table_add(rep->reasons, &rep->nreason, row, 0, 1) <
                    0) {
                rep->partial = 1;
            }
            int t;
            for (t = 0; t < rep->ntext; t++) {
                if (cs_shim_rep_key_cmp(&rep->text[t].row, row, 1, 0) == 0) {
                    break;
                }
            }
            if (t == rep->ntext) {
                if (t == CS_SHIM_REP_MAX_ROWS) {
                    rep->partial = 1;
                    continue;
                }
                cs_shim_rep_trow_t *nt = &rep->text[t];
                memset(nt, 0, sizeof(*nt));
                nt->row.routine = row->routine;
                nt->row.spelling = row->spelling;
                nt->row.path = row->path;
                nt->last_rank = -1;
                rep->ntext++;
            }
            cs_shim_rep_trow_t *tr = &rep->text[t];
            if (tr->last_rank != r) {
                cs_shim_rep_trow_flush(tr);
                tr->last_rank = r;
            }
            tr->cur += row->t_sum;
            cs_shim_row_merge(&tr->row, row);
        }
    }
    for (int t = 0; t < rep->ntext; t++) {
        cs_shim_rep_trow_flush(&rep->text[t]);
    }
    qsort(rep->merged, (size_t)rep->nmerged, sizeof(rep->merged[0]),
          cs_shim_rep_row_cmp);
    qsort(rep->reasons, (size_t)rep->nreason, sizeof(rep->reasons[0]),
          cs_shim_rep_row_cmp);
    qsort(rep->text, (size_t)rep->ntext, sizeof(rep->text[0]),
          cs_shim_rep_trow_cmp);
}

/* Longest time first; ties by id, so equal runs print alike. */
static int cs_shim_rep_shape_cmp(const void *a, const void *b)
{
    const cs_shim_shape_t *x = a, *y = b;
    if (x->row.t_sum != y->row.t_sum) {
        return x->row.t_sum > y->row.t_sum ? -1 : 1;
    }
    if (x->id != y->id) {
        return x->id < y->id ? -1 : 1;
    }
    return 0;
}

static int cs_shim_rep_caller_cmp(const void *a, const void *b)
{
    const cs_shim_caller_t *x = a, *y = b;
    if (x->t_sum != y->t_sum) {
        return x->t_sum > y->t_sum ? -1 : 1;
    }
    int c = strcmp(x->caller, y->caller);
    if (c != 0) {
        return c;
    }
    return x->routine != y->routine ? (x->routine < y->routine ? -1 : 1)
                                    : x->spelling - y->spelling;
}

void cs_shim_rep_sort_tables(cs_shim_rep_t *rep)
{
    if (rep->shapes) {
        cs_shim_shape_tab_fold(rep->shapes);
        qsort(rep->shapes->e, (size_t)rep->shapes->n,
              sizeof(rep->shapes->e[0]), cs_shim_rep_shape_cmp);
        rep->partial |= rep->shapes->dropped > 0;
    }
    if (rep->callers) {
        qsort(rep->callers->e, (size_t)rep->callers->n,
              sizeof(rep->callers->e[0]), cs_shim_rep_caller_cmp);
        rep->partial |= rep->callers->dropped > 0;
    }
}
