/*
 * shim/report/json.c - the JSON file of the report (schema 1,
 * docs/report-format.md): meta, the COSTA_SHIM_* environment, routines,
 * shapes, callers and ranks.  Strings are escaped and kept valid UTF-8;
 * JSON has no inf or nan, so those become null.  Prints a finished
 * report; no MPI, no state.
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

/* A JSON string: quotes, backslashes and control characters escaped,
 * bytes that are not UTF-8 replaced by U+FFFD. */
static void cs_shim_rep_json_str(FILE *f, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p) {
        if (*p == '"' || *p == '\\') {
            fputc('\\', f);
            fputc(*p++, f);
        } else if (*p == '\n') {
            fputs("\\n", f);
            p++;
        } else if (*p == '\t') {
            fputs("\\t", f);
            p++;
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p++);
        } else if (*p < 0x80) {
            fputc(*p++, f);
        } else {
            int n = cs_shim_rep_utf8_len(p);
            if (n == 0) {
                fputs("\\ufffd", f);
                p++;
            } else {
                fwrite(p, 1, (size_t)n, f);
                p += n;
            }
        }
    }
    fputc('"', f);
}

/* Members of a routine row, without braces. */
static void cs_shim_rep_json_row(FILE *f, const cs_shim_row_t *r)
{
    char name[32];
    cs_shim_called_name(r->routine, r->spelling, name, sizeof(name));
    fputs("\"routine\": ", f);
    cs_shim_rep_json_str(f, name);
    fprintf(f, ", \"path\": \"%s\", \"reason\": \"%s\"",
            cs_shim_path_str(r->path), cs_shim_reason_str(r->reason));
    cs_shim_rep_cols_print(f, r, 1);
}

/* , "key": value-or-null */
static void cs_shim_rep_json_opt(FILE *f, const char *key, int64_t v,
                                 int known)
{
    if (known) {
        fprintf(f, ", \"%s\": %" PRId64, key, v);
    } else {
        fprintf(f, ", \"%s\": null", key);
    }
}

/* Members of a shape row, without braces. */
static void cs_shim_rep_json_shape(FILE *f, const cs_shim_shape_t *s)
{
    char name[32];
    cs_shim_called_name(s->row.routine, s->row.spelling, name, sizeof(name));
    fprintf(f, "\"shape_id\": %" PRIu32 ", \"routine\": ", s->id);
    cs_shim_rep_json_str(f, name);
    fprintf(f, ", \"path\": \"%s\", \"reason\": \"%s\"",
            cs_shim_rep_shape_path(s), cs_shim_rep_shape_reason(s));
    fprintf(f, ", \"m\": %" PRId32 ", \"n\": %" PRId32, s->m, s->n);
    cs_shim_rep_json_opt(f, "mbA", s->mb_a, s->mb_a != -1);
    cs_shim_rep_json_opt(f, "nbA", s->nb_a, s->nb_a != -1);
    fputs(", \"gridA\": ", f);
    cs_shim_rep_json_str(f, s->grid_a);
    cs_shim_rep_json_opt(f, "mbB", s->mb_b, s->mb_b != -1);
    cs_shim_rep_json_opt(f, "nbB", s->nb_b, s->nb_b != -1);
    fputs(", \"gridB\": ", f);
    cs_shim_rep_json_str(f, s->grid_b);
    cs_shim_rep_cols_print(f, &s->row, 1);
    int rl = s->relabel_cross >= 0;
    cs_shim_rep_json_opt(f, "relabel_cross_bytes", s->relabel_cross, rl);
    cs_shim_rep_json_opt(f, "relabel_best_bytes", s->relabel_best, rl);
    cs_shim_rep_json_opt(f, "relabel_gain_bytes",
                         s->relabel_cross - s->relabel_best, rl);
    int rn = rl && s->relabel_net >= 0;
    cs_shim_rep_json_opt(f, "relabel_net_bytes", s->relabel_net, rn);
    cs_shim_rep_json_opt(f, "relabel_net_plain_bytes", s->relabel_net_plain,
                         rn);
    cs_shim_rep_json_opt(f, "relabel_net_node_bytes", s->relabel_net_node,
                         rn);
    fprintf(f, ", \"t_median_s\": %.9g, \"max_call\": %" PRId64
               ", \"max_rank\": %" PRId32 ", \"t_hist\": ",
            cs_shim_rep_shape_median(s), s->max_call, s->max_rank);
    cs_shim_rep_hist_print(f, s, 1);
}

static void cs_shim_rep_json_shapes(FILE *f, const cs_shim_rep_t *rep)
{
    const cs_shim_shape_tab_t *t = rep->shapes;
    int n = t ? t->n : 0;
    fputs("  \"shapes\": [", f);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        cs_shim_rep_json_shape(f, &t->e[i]);
        fputc('}', f);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void cs_shim_rep_json_callers(FILE *f, const cs_shim_rep_t *rep)
{
    const cs_shim_caller_tab_t *t = rep->callers;
    int n = t ? t->n : 0;
    fputs("  \"callers\": [", f);
    for (int i = 0; i < n; i++) {
        const cs_shim_caller_t *c = &t->e[i];
        char name[32];
        cs_shim_called_name(c->routine, c->spelling, name, sizeof(name));
        fputs(i ? ",\n    {\"caller\": " : "\n    {\"caller\": ", f);
        cs_shim_rep_json_str(f, c->caller);
        fputs(", \"routine\": ", f);
        cs_shim_rep_json_str(f, name);
        fprintf(f, ", \"calls\": %" PRId64 ", \"t_sum_s\": %.9g}", c->calls,
                c->t_sum);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void cs_shim_rep_json_meta(FILE *f, const cs_shim_rep_t *rep)
{
    static const char *const stats[] = {"off", "summary", "full", "local"};
    const char *real = cs_shim_real_library();
    int st = (int)rep->cfg->stats;
    fputs("  \"meta\": {\n    \"command\": ", f);
    cs_shim_rep_json_str(f, rep->command);
    fputs(",\n    \"exe\": ", f);
    cs_shim_rep_json_str(f, rep->exe);
    fputs(",\n    \"jobid\": ", f);
    cs_shim_rep_json_str(f, rep->jobid);
    fputs(",\n    \"version\": ", f);
    cs_shim_rep_json_str(f, CS_SHIM_VERSION);
    fprintf(f, ",\n    \"nprocs\": %d,\n    \"nodes\": %d", rep->nprocs,
            rep->nnodes);
    fprintf(f, ",\n    \"threads_per_rank\": %d,\n    \"mpi\": ",
            rep->threads);
    cs_shim_rep_json_str(f, rep->mpi);
    fputs(",\n    \"real_library\": ", f);
    cs_shim_rep_json_str(f, real ? real : "");
    fputs(",\n    \"start\": ", f);
    cs_shim_rep_json_str(f, rep->start);
    fputs(",\n    \"stop\": ", f);
    cs_shim_rep_json_str(f, rep->stop);
    fprintf(f, ",\n    \"stats\": \"%s\"",
            st >= 0 && st < 4 ? stats[st] : "?");
    fprintf(f, ",\n    \"partial\": %s", rep->partial ? "true" : "false");
    fprintf(f, ",\n    \"mem_peak_bytes\": %" PRId64, rep->mem_peak);
    if (cs_shim_mem_cap() >= 0) {
        fprintf(f, ",\n    \"mem_cap_bytes\": %" PRId64, cs_shim_mem_cap());
    } else {
        fputs(",\n    \"mem_cap_bytes\": null", f);
    }
    fprintf(f,
            ",\n    \"shapes_dropped_calls\": %" PRId64
            ",\n    \"callers_dropped_calls\": %" PRId64,
            rep->shapes ? rep->shapes->dropped : 0,
            rep->callers ? rep->callers->dropped : 0);
    if (rep->cfg->verify) {
        fprintf(f, ",\n    \"verify\": {\"calls\": %" PRId64 ", ",
                rep->verify_calls);
        if (isfinite(rep->verify_maxdiff)) {
            fprintf(f, "\"max_diff\": %.9g}", rep->verify_maxdiff);
        } else {
            fputs("\"max_diff\": null}", f);
        }
    } else {
        fputs(",\n    \"verify\": null", f);
    }
    fputs("\n  },\n", f);
}

static void cs_shim_rep_json_env(FILE *f)
{
    int any = 0;
    fputs("  \"env\": {", f);
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (strncmp(*e, "COSTA_SHIM_", 11) != 0 || !eq) {
            continue;
        }
        char name[CS_SHIM_REP_NAME_LEN];
        size_t n = (size_t)(eq - *e);
        n = n < sizeof(name) - 1 ? n : sizeof(name) - 1;
        memcpy(name, *e, n);
        name[n] = '\0';
        fputs(any ? ",\n    " : "\n    ", f);
        cs_shim_rep_json_str(f, name);
        fputs(": ", f);
        cs_shim_rep_json_str(f, eq + 1);
        any = 1;
    }
    fputs(any ? "\n  },\n" : "},\n", f);
}

void cs_shim_rep_write_json(FILE *f, const void *arg)
{
    const cs_shim_rep_t *rep = arg;
    int full = rep->cfg->stats == CS_CFG_STATS_FULL;
    fputs("{\n  \"schema_version\": 1,\n", f);
    cs_shim_rep_json_meta(f, rep);
    cs_shim_rep_json_env(f);
    fputs("  \"routines\": [", f);
    for (int i = 0; i < rep->nmerged; i++) {
        fputs(i ? ",\n    {" : "\n    {", f);
        cs_shim_rep_json_row(f, &rep->merged[i]);
        fputc('}', f);
    }
    fputs(rep->nmerged ? "\n  ],\n" : "],\n", f);
    cs_shim_rep_json_shapes(f, rep);
    cs_shim_rep_json_callers(f, rep);
    fputs("  \"ranks\": [", f);
    for (int r = 0; r < rep->nranks; r++) {
        const cs_shim_rep_rank_t *k = &rep->ranks[r];
        fprintf(f,
                "%s{\"rank\": %d, \"app_time_s\": %.9g, "
                "\"shim_time_s\": %.9g, \"wait_time_s\": %.9g, "
                "\"calls\": %" PRId64 ", \"fallbacks\": %" PRId64
                ", \"partial\": %s, \"mem_peak_bytes\": %" PRId64,
                r ? ",\n    " : "\n    ", rep->rank0 + r, k->app_time,
                k->t_shim, k->t_wait, k->calls, k->fallbacks,
                k->partial ? "true" : "false", k->mem_peak);
        if (k->mem_cap >= 0) {
            fprintf(f, ", \"mem_cap_bytes\": %" PRId64, k->mem_cap);
        } else {
            fputs(", \"mem_cap_bytes\": null", f);
        }
        if (full) {
            fputs(", \"routines\": [", f);
            for (int j = rep->first[r]; j < rep->first[r + 1]; j++) {
                fputs(j > rep->first[r] ? ", {" : "{", f);
                cs_shim_rep_json_row(f, &rep->all[j]);
                fputc('}', f);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs(rep->nranks ? "\n  ]\n}\n" : "]\n}\n", f);
}
