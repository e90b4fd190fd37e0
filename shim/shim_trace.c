/*
 * shim/shim_trace.c - the per-call trace line.
 *
 * Grammar (docs/report-format.md section 6): "COSTA_SHIM r:<rank>
 * seq:<n> <routine as called> <arguments> gridA:.. gridB:.. path:..
 * [reason:..] t:<ms>ms wait:<ms>ms (of t, waiting for the other ranks to
 * arrive) [send:<MB>MB recv:<MB>MB self:<MB>MB msgs:<sent>/<recv>]
 * [relabel_gain:<pct>%] [thr:<n>] [table:cached|gathered]
 * [maxdiff:<x.xe+yy>] caller:<where>".
 * Times in ms, sizes in MB (1e6 bytes), no '=' and no spaces inside
 * values.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_call_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_str_int.h"
#include "shim/shim_trace_int.h"

static atomic_long cs_shim_trace_seq;

void cs_shim_caller_str(const void *addr, char *buf, size_t len)
{
    Dl_info info;
    if (!addr || !dladdr(addr, &info)) {
        snprintf(buf, len, "?");
        return;
    }
    const char *obj = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
    obj = obj ? obj + 1 : (info.dli_fname ? info.dli_fname : "?");
    if (info.dli_sname && info.dli_saddr) {
        snprintf(buf, len, "%s+0x%lx", info.dli_sname,
                 (unsigned long)((const char *)addr -
                                 (const char *)info.dli_saddr));
    } else {
        snprintf(buf, len, "%s+0x%lx", obj,
                 (unsigned long)((const char *)addr -
                                 (const char *)info.dli_fbase));
    }
}

static void app_desc(char *buf, size_t len, size_t *pos, const char *key,
                     const cs_fint *d)
{
    int n = d[0] == 2 ? 11 : 9; /* DTYPE 2 descriptors have 11 entries */
    cs_shim_str_append(buf, len, pos, " %s:%lld", key, (long long)d[0]);
    for (int k = 1; k < n; k++) {
        cs_shim_str_append(buf, len, pos, ",%lld", (long long)d[k]);
    }
}

static void app_scalar(char *buf, size_t len, size_t *pos, const char *key,
                       int routine, const void *v)
{
    switch (cs_shim_routines[routine].type) {
    case 's':
        cs_shim_str_append(buf, len, pos, " %s:%.9g", key,
                           (double)*(const float *)v);
        break;
    case 'c':
        cs_shim_str_append(buf, len, pos, " %s:%.9g,%.9g", key,
                           (double)((const float *)v)[0],
                           (double)((const float *)v)[1]);
        break;
    case 'z':
        cs_shim_str_append(buf, len, pos, " %s:%.17g,%.17g", key,
                           ((const double *)v)[0], ((const double *)v)[1]);
        break;
    default:
        cs_shim_str_append(buf, len, pos, " %s:%.17g", key,
                           *(const double *)v);
    }
}

/* The arguments in ScaLAPACK order, as a replayable list. */
static void app_args(char *line, size_t len, size_t *pos,
                     const cs_shim_call_t *g)
{
    int fam = cs_shim_routines[g->routine].family;
    int redist = fam == CS_SHIM_FAM_GEMR2D || fam == CS_SHIM_FAM_TRMR2D;
    if (g->uplo) {
        cs_shim_str_append(line, len, pos, " uplo:%c", g->uplo[0]);
    }
    if (g->diag) {
        cs_shim_str_append(line, len, pos, " diag:%c", g->diag[0]);
    }
    if (g->trans) {
        cs_shim_str_append(line, len, pos, g->transb ? " transa:%c"
                                                      : " trans:%c",
                           g->trans[0]);
    }
    if (g->transb) {
        cs_shim_str_append(line, len, pos, " transb:%c", g->transb[0]);
    }
    cs_shim_str_append(line, len, pos, " m:%lld n:%lld", (long long)g->m,
                       (long long)g->n);
    if (fam == CS_SHIM_FAM_GEMM || fam == CS_SHIM_FAM_SYRK) {
        cs_shim_str_append(line, len, pos, " k:%lld", (long long)g->k);
    }
    if (!redist) {
        app_scalar(line, len, pos, "alpha", g->routine, g->alpha);
    }
    cs_shim_str_append(line, len, pos, " ia:%lld ja:%lld", (long long)g->ia,
                       (long long)g->ja);
    /* REDIST reads nothing when m or n is 0: neither do we */
    int read_desc = !redist || (g->m != 0 && g->n != 0);
    if (read_desc) {
        app_desc(line, len, pos, "descA", g->desca);
    }
    if (fam == CS_SHIM_FAM_GEMM) {
        cs_shim_str_append(line, len, pos, " ib:%lld jb:%lld",
                           (long long)g->ix, (long long)g->jx);
        app_desc(line, len, pos, "descB", g->descx);
    }
    if (!redist) {
        app_scalar(line, len, pos, "beta", g->routine, g->beta);
    }
    cs_shim_str_append(line, len, pos,
                       redist ? " ib:%lld jb:%lld" : " ic:%lld jc:%lld",
                       (long long)g->ib, (long long)g->jb);
    if (read_desc) {
        app_desc(line, len, pos, redist ? "descB" : "descC", g->descb);
    }
    if (redist) {
        cs_shim_str_append(line, len, pos, " ictxt:%lld",
                           (long long)g->ictxt);
    }
}

void cs_shim_trace_call(const cs_config_t *cfg, const cs_shim_record_t *rec,
                        const cs_shim_trace_t *tr)
{
    long seq = atomic_fetch_add(&cs_shim_trace_seq, 1) + 1;
    int rank = cs_shim_world_rank();
    if (cfg->verbose < 1 || !cs_cfg_rank_logs(cfg, rank)) {
        return;
    }
    const cs_shim_call_t *g = tr->args;
    char line[2048], name[32], caller[256];
    size_t pos = 0, len = sizeof(line);
    cs_shim_called_name(rec->routine, rec->spelling, name, sizeof(name));
    cs_shim_str_append(line, len, &pos, "COSTA_SHIM r:%d seq:%ld %s", rank,
                       seq, name);
    app_args(line, len, &pos, g);
    if (tr->grid_a[0]) {
        cs_shim_str_append(line, len, &pos, " gridA:%s gridB:%s", tr->grid_a,
                           tr->grid_b);
    }
    cs_shim_str_append(line, len, &pos, " path:%s",
                       cs_shim_path_str(rec->path));
    if (rec->reason != CS_SHIM_REASON_NONE) {
        cs_shim_str_append(line, len, &pos, " reason:%s",
                           cs_shim_reason_str(rec->reason));
    }
    cs_shim_str_append(line, len, &pos, " t:%.3fms wait:%.3fms", rec->t * 1e3,
                       rec->t_wait * 1e3);
    if (rec->path == CS_SHIM_PATH_ENGINE) {
        cs_shim_str_append(
            line, len, &pos,
            " send:%.2fMB recv:%.2fMB self:%.2fMB msgs:%lld/%lld",
            (double)rec->vol.bytes_sent * 1e-6,
            (double)rec->vol.bytes_recv * 1e-6,
            (double)rec->vol.bytes_self * 1e-6, (long long)rec->vol.msgs_sent,
            (long long)rec->vol.msgs_recv);
        cs_shim_str_append(
            line, len, &pos,
            " pack:%.3fms local:%.3fms unpack:%.3fms xfer:%.3fms",
            rec->vol.t_pack * 1e3, rec->vol.t_local * 1e3,
            rec->vol.t_unpack * 1e3, rec->vol.t_transfer * 1e3);
    }
    if (rec->relabel_cross >= 0) {
        cs_shim_str_append(
            line, len, &pos, " relabel_gain:%.1f%%",
            rec->relabel_cross > 0
                ? 100.0 * (double)(rec->relabel_cross - rec->relabel_best) /
                      (double)rec->relabel_cross
                : 0.0);
    }
    if (rec->path == CS_SHIM_PATH_ENGINE) {
        cs_shim_str_append(line, len, &pos, " thr:%d",
                           rec->vol.threads > 0 ? rec->vol.threads : 1);
    }
    if (tr->table) {
        cs_shim_str_append(line, len, &pos, " table:%s", tr->table);
    }
    if (tr->gemm[0]) {
        cs_shim_str_append(line, len, &pos, " %s", tr->gemm);
    }
    if (tr->verified) {
        cs_shim_str_append(line, len, &pos, " maxdiff:%.1e", tr->maxdiff);
    }
    cs_shim_caller_str(g->caller, caller, sizeof(caller));
    cs_shim_str_append(line, len, &pos, " caller:%s", caller);
    cs_log_line(cs_log_trace_fd(), line);
}
