/*
 * shim/shim_trace.c - the per-call trace line.
 *
 * Grammar (interface.md section 3): "COSTA_SHIM r:<rank> seq:<n> <routine
 * as called> <arguments> gridA:.. gridB:.. path:.. [reason:..] t:<ms>ms
 * [send:<MB>MB recv:<MB>MB self:<MB>MB msgs:<sent>/<recv> thr:<n>]
 * caller:<where>".  Times in ms, sizes in MB (1e6 bytes), no '=' and no
 * spaces inside values.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/log.h"
#include "shim/shim_trace.h"

static long cs_shim_trace_seq;

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

/* Append to a fixed buffer, never overflowing. */
static void app(char *buf, size_t len, size_t *pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void app(char *buf, size_t len, size_t *pos, const char *fmt, ...)
{
    if (*pos >= len) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *pos, len - *pos, fmt, ap);
    va_end(ap);
    if (k > 0) {
        *pos += (size_t)k;
    }
}

static void app_desc(char *buf, size_t len, size_t *pos, const char *key,
                     const int *d)
{
    app(buf, len, pos, " %s:%d,%d,%d,%d,%d,%d,%d,%d,%d", key, d[0], d[1],
        d[2], d[3], d[4], d[5], d[6], d[7], d[8]);
}

void cs_shim_trace_gemr2d(const cs_config_t *cfg, const cs_shim_record_t *rec,
                          const cs_shim_trace_t *tr)
{
    long seq = ++cs_shim_trace_seq;
    int rank = cs_shim_world_rank();
    if (cfg->verbose < 1 || !cs_cfg_rank_logs(cfg, rank)) {
        return;
    }
    const cs_shim_gemr2d_args_t *g = tr->args;
    char line[2048], name[32], caller[256];
    size_t pos = 0, len = sizeof(line);
    cs_shim_called_name(rec->routine, rec->spelling, name, sizeof(name));
    app(line, len, &pos, "COSTA_SHIM r:%d seq:%ld %s m:%d n:%d ia:%d ja:%d",
        rank, seq, name, g->m, g->n, g->ia, g->ja);
    /* with m or n = 0 the descriptors need not be valid: do not read */
    int read_desc = g->m != 0 && g->n != 0;
    if (read_desc) {
        app_desc(line, len, &pos, "descA", g->desca);
    }
    app(line, len, &pos, " ib:%d jb:%d", g->ib, g->jb);
    if (read_desc) {
        app_desc(line, len, &pos, "descB", g->descb);
    }
    app(line, len, &pos, " ictxt:%d", g->ictxt);
    if (tr->grid_a[0]) {
        app(line, len, &pos, " gridA:%s gridB:%s", tr->grid_a, tr->grid_b);
    }
    app(line, len, &pos, " path:%s", cs_shim_path_str(rec->path));
    if (rec->reason != CS_SHIM_REASON_NONE) {
        app(line, len, &pos, " reason:%s", cs_shim_reason_str(rec->reason));
    }
    app(line, len, &pos, " t:%.3fms", rec->t * 1e3);
    if (rec->path == CS_SHIM_PATH_ENGINE) {
        app(line, len, &pos,
            " send:%.2fMB recv:%.2fMB self:%.2fMB msgs:%lld/%lld thr:%d",
            (double)rec->vol.bytes_sent * 1e-6,
            (double)rec->vol.bytes_recv * 1e-6,
            (double)rec->vol.bytes_self * 1e-6,
            (long long)rec->vol.msgs_sent, (long long)rec->vol.msgs_recv,
            rec->vol.threads > 0 ? rec->vol.threads : 1);
    }
    cs_shim_caller_str(g->caller, caller, sizeof(caller));
    app(line, len, &pos, " caller:%s", caller);
    cs_log_line(cs_log_trace_fd(), line);
}
