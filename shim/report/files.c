/*
 * shim/report/files.c - where the report goes: the text summary to
 * rank 0's stderr (one buffer, written whole), the files under
 * COSTA_SHIM_STATS_DIR with names that never overwrite an earlier run's.
 * Every file is first written as <name>.partial and renamed when
 * complete; an I/O error costs one warning naming the file, never the
 * job.  No MPI, no state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/log.h"
#include "shim/report/report_int.h"

#define CS_SHIM_REP_MAX_K 100000

typedef struct {
    const char *buf;
    size_t len;
} cs_shim_rep_blob_t;

static void cs_shim_rep_write_blob(FILE *f, const void *arg)
{
    const cs_shim_rep_blob_t *b = arg;
    fwrite(b->buf, 1, b->len, f);
}

/* mkdir -p; 0 on success, else one warning and -1. */
static int cs_shim_rep_mkdir_p(const char *dir)
{
    char buf[CS_CFG_PATH_LEN];
    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
        cs_log_warn("cannot create report directory %s: %s", dir,
                    strerror(ENAMETOOLONG));
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') {
            continue;
        }
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            cs_log_warn("cannot create report directory %s: %s", buf,
                        strerror(errno));
            return -1;
        }
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
        cs_log_warn("cannot create report directory %s: %s", buf,
                    strerror(errno));
        return -1;
    }
    return 0;
}

/* Write path through path.partial and rename it; one warning on error. */
static void cs_shim_rep_commit(const char *path,
                               void (*writer)(FILE *, const void *),
                               const void *arg)
{
    char tmp[CS_SHIM_REP_PATH_LEN + 16];
    int n = snprintf(tmp, sizeof(tmp), "%s.partial", path);
    if (n < 0 || n >= (int)sizeof(tmp)) {
        cs_log_warn("cannot write report %s: %s", path,
                    strerror(ENAMETOOLONG));
        return;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cs_log_warn("cannot write report %s: %s", tmp, strerror(errno));
        return;
    }
    errno = 0;
    writer(f, arg);
    int err = 0;
    if (fflush(f) != 0 || ferror(f)) {
        err = errno ? errno : EIO;
    }
    if (fclose(f) != 0 && err == 0) {
        err = errno;
    }
    if (err == 0 && rename(tmp, path) != 0) {
        err = errno;
    }
    if (err != 0) {
        cs_log_warn("cannot write report %s: %s", path, strerror(err));
        unlink(tmp);
    }
}

static int cs_shim_rep_exists(const char *path)
{
    char tmp[CS_SHIM_REP_PATH_LEN + 16];
    int n = snprintf(tmp, sizeof(tmp), "%s.partial", path);
    return access(path, F_OK) == 0 ||
           (n > 0 && n < (int)sizeof(tmp) && access(tmp, F_OK) == 0);
}

static const char *cs_shim_rep_dir(const cs_config_t *cfg)
{
    return cfg->stats_dir[0] ? cfg->stats_dir : ".";
}

/* Rank 0, collective mode: text to stderr and the files. */
void cs_shim_rep_emit_all(const cs_shim_rep_t *rep)
{
    static const char *const ext[3] = {"txt", "csv", "json"};
    static const int bit[3] = {CS_CFG_FORMAT_TXT, CS_CFG_FORMAT_CSV,
                               CS_CFG_FORMAT_JSON};
    const cs_config_t *cfg = rep->cfg;
    char *text = NULL;
    size_t tlen = 0, summary_len = 0;
    FILE *m = open_memstream(&text, &tlen);
    if (m) {
        cs_shim_rep_text_summary(m, rep);
        fflush(m);
        summary_len = tlen;
        if (cfg->stats == CS_CFG_STATS_FULL) {
            cs_shim_rep_text_per_rank(m, rep);
        }
        if (fclose(m) != 0) {
            free(text);
            text = NULL;
        }
    }
    if (!text) {
        cs_log_warn("cannot build the text report: %s", strerror(ENOMEM));
    } else {
        cs_log_text(2, text, summary_len);
    }
    if (!(cfg->stats_format & (bit[0] | bit[1] | bit[2])) ||
        cs_shim_rep_mkdir_p(cs_shim_rep_dir(cfg)) != 0) {
        free(text);
        return;
    }
    char path[3][CS_SHIM_REP_PATH_LEN];
    int k;
    for (k = 0; k < CS_SHIM_REP_MAX_K; k++) {
        int taken = 0;
        for (int i = 0; i < 3; i++) {
            int n =
                snprintf(path[i], sizeof(path[i]),
                         "%s/costa_shim.%s.%s.%dp.%d.%s", cs_shim_rep_dir(cfg),
                         rep->exe, rep->jobid, rep->nprocs, k, ext[i]);
            if (n < 0 || n >= (int)sizeof(path[i])) {
                cs_log_warn("cannot write report %s: %s", path[i],
                            strerror(ENAMETOOLONG));
                free(text);
                return;
            }
            taken |= cs_shim_rep_exists(path[i]);
        }
        if (!taken) {
            break;
        }
    }
    if (k == CS_SHIM_REP_MAX_K) {
        cs_log_warn("cannot write report in %s: %s", cs_shim_rep_dir(cfg),
                    "no free report index");
        free(text);
        return;
    }
    if ((cfg->stats_format & bit[0]) && text) {
        cs_shim_rep_blob_t b = {text, tlen};
        cs_shim_rep_commit(path[0], cs_shim_rep_write_blob, &b);
    }
    if (cfg->stats_format & bit[1]) {
        cs_shim_rep_commit(path[1], cs_shim_rep_write_csv, rep);
    }
    if (cfg->stats_format & bit[2]) {
        cs_shim_rep_commit(path[2], cs_shim_rep_write_json, rep);
    }
    free(text);
}

/* Local mode: this rank's CSV file (see report_int.h). */
void cs_shim_rep_emit_local(cs_shim_rep_t *rep, int rank)
{
    cs_shim_rep_ident(rep);
    if (cs_shim_rep_mkdir_p(cs_shim_rep_dir(rep->cfg)) != 0) {
        return;
    }
    char path[CS_SHIM_REP_PATH_LEN];
    char who[32];
    if (rank >= 0) {
        snprintf(who, sizeof(who), "r%d", rank);
    } else {
        /* MPI never came up: the pid keeps the name unique */
        snprintf(who, sizeof(who), "p%ld", (long)getpid());
    }
    int n = snprintf(path, sizeof(path), "%s/costa_shim.%s.%s.%s.csv",
                     cs_shim_rep_dir(rep->cfg), rep->exe, rep->jobid, who);
    if (n < 0 || n >= (int)sizeof(path)) {
        cs_log_warn("cannot write report %s: %s", path,
                    strerror(ENAMETOOLONG));
        return;
    }
    cs_shim_rep_commit(path, cs_shim_rep_write_csv, rep);
}
