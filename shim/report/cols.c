/*
 * shim/report/cols.c - the values of a statistics row that the CSV
 * and JSON files both print: the counter and timer columns, generated
 * from the X-macro lists of shim_stats_int.h so the CSV, the JSON and the
 * trace cannot drift apart, and a shape row's median, histogram, path and
 * reason.  No MPI, no state.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "shim/shim.h"
#include "shim/report/report_int.h"
#include "shim/shim_stats_int.h"

/* The counter and timer columns of a row, generated from the X-macro lists
 * so the CSV, JSON and the trace cannot drift apart. */
typedef struct {
    const char *name;
    size_t off;
    int is_int;
} cs_shim_rep_col_t;

static const cs_shim_rep_col_t cs_shim_rep_cols[] = {
#define CS_SHIM_COUNTER(field, name)                                          \
    {name, offsetof(cs_shim_row_t, field), 1},
    CS_SHIM_COUNTERS
#undef CS_SHIM_COUNTER
#define CS_SHIM_TIMER(field, name) {name, offsetof(cs_shim_row_t, field), 0},
    CS_SHIM_TIMERS
#undef CS_SHIM_TIMER
};

#define CS_SHIM_REP_NCOLS                                                     \
    ((int)(sizeof(cs_shim_rep_cols) / sizeof(cs_shim_rep_cols[0])))

/*
 * Output order of the columns (docs/report-format.md section 3): calls first, then the
 * timers, then the other counters.  Returns the pass in which column c is
 * printed.
 */
static int cs_shim_rep_col_pass(const cs_shim_rep_col_t *c)
{
    if (c->off == offsetof(cs_shim_row_t, calls)) {
        return 0;
    }
    return c->is_int ? 2 : 1;
}

/* Print the value of column c of row r; JSON has no inf/nan. */
static void cs_shim_rep_col_print(FILE *f, const cs_shim_row_t *r,
                                  const cs_shim_rep_col_t *c, int json)
{
    const char *p = (const char *)r + c->off;
    if (c->is_int) {
        int64_t v;
        memcpy(&v, p, sizeof(v));
        fprintf(f, "%" PRId64, v);
    } else {
        double v;
        memcpy(&v, p, sizeof(v));
        if (json && !isfinite(v)) {
            fputs("null", f);
        } else {
            fprintf(f, "%.9g", v);
        }
    }
}

void cs_shim_rep_cols_print(FILE *f, const cs_shim_row_t *r, int json)
{
    for (int pass = 0; pass < 3; pass++) {
        for (int c = 0; c < CS_SHIM_REP_NCOLS; c++) {
            if (cs_shim_rep_col_pass(&cs_shim_rep_cols[c]) != pass) {
                continue;
            }
            if (!r) {
                fprintf(f, ",%s", cs_shim_rep_cols[c].name);
                continue;
            }
            if (json) {
                fprintf(f, ", \"%s\": ", cs_shim_rep_cols[c].name);
            } else {
                fputc(',', f);
            }
            cs_shim_rep_col_print(f, r, &cs_shim_rep_cols[c], json);
        }
    }
}

double cs_shim_rep_shape_median(const cs_shim_shape_t *s)
{
    return cs_shim_hist_quantile(&s->hist, 0.5, s->row.t_min, s->row.t_max);
}

void cs_shim_rep_hist_print(FILE *f, const cs_shim_shape_t *s, int json)
{
    int any = 0;
    fputs(json ? "[" : "", f);
    for (int k = 0; k < CS_SHIM_HIST_BINS; k++) {
        if (s->hist.n[k] == 0) {
            continue;
        }
        fprintf(f, json ? "%s[%d, %" PRIu32 "]" : "%s%d:%" PRIu32,
                any ? (json ? ", " : " ") : "", k, s->hist.n[k]);
        any = 1;
    }
    fputs(json ? "]" : "", f);
}

const char *cs_shim_rep_shape_path(const cs_shim_shape_t *s)
{
    return s->mixed ? "mixed" : cs_shim_path_str(s->row.path);
}

const char *cs_shim_rep_shape_reason(const cs_shim_shape_t *s)
{
    return s->mixed ? "" : cs_shim_reason_str(s->row.reason);
}
