/*
 * shim/relabel/apply.c - COSTA_SHIM_RELABEL=apply: the plan in use
 * (read on first use with cs_rl_plan_parse), matching each grid creation
 * to its entry, and ignoring the plan, with one warning per run, once it
 * does not fit the run (shim/relabel/relabel_int.h, docs/relabel.md).
 *
 * The plan in use is one registry, guarded by cs_rl_plan_lock; MPI only
 * at MPI_Finalize (cs_shim_relabel_apply_finalize).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "relabel/relabel.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/shim_process_int.h"
#include "shim/relabel/relabel_int.h"

#include <mpi.h>

#define PLAN_MSG_LEN (CS_CFG_PATH_LEN + 1024)

static pthread_mutex_t cs_rl_plan_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    int state;        /* 0 unread, 1 in use, -1 ignored */
    cs_rl_plan_file_t file;
    int used[CS_SHIM_GRIDS_MAX]; /* entry matched by a grid of this run
                                    (on this process) */
    int applied;      /* grids created relabeled so far */
    int has_msg;      /* this process found why the plan does not fit */
    int warned;       /* ... and printed a warning */
    char msg[PLAN_MSG_LEN];
} cs_plan;

static void plan_free(void)
{
    cs_rl_plan_file_free(&cs_plan.file);
    memset(cs_plan.used, 0, sizeof(cs_plan.used));
}

/* Read the plan file into cs_plan.file; 0 on success, else why. */
static int plan_read(const char *path, char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "cannot read it: %s", strerror(errno));
        return -1;
    }
    cs_rl_status_t st = cs_rl_plan_parse(f, CS_SHIM_GRIDS_MAX, &cs_plan.file,
                                         why, len);
    fclose(f);
    return st == CS_RL_OK ? 0 : -1;
}

/*
 * The plan is ignored on this process from now on.  msg: the warning, or
 * NULL when this process follows another one that ignores the plan.
 * RATIONALE: every process that meets a mismatch finds it, so printing
 * wherever it is found would repeat the warning; rank 0 prints at once,
 * the others leave it to rank 0 at MPI_Finalize when that is collective
 * (cs_shim_relabel_finalize), else the speaker of the creation prints.
 */
static void plan_ignore_msg(const char *msg, int speaker)
{
    if (cs_plan.state == -1) {
        return;
    }
    cs_plan.state = -1;
    if (!msg) {
        return;
    }
    snprintf(cs_plan.msg, sizeof(cs_plan.msg), "%s", msg);
    cs_plan.has_msg = 1;
    if (cs_shim_relabel_world_rank() == 0 ||
        (speaker && !cs_shim_finalize_collective())) {
        cs_log_warn("%s", msg);
        cs_plan.warned = 1;
    }
}

static void plan_ignore(const char *why, int speaker)
{
    if (cs_plan.state == -1) {
        return;
    }
    const cs_config_t *cfg = cs_cfg_get();
    char msg[PLAN_MSG_LEN];
    if (cs_plan.applied > 0) {
        snprintf(msg, sizeof(msg),
                 "relabel: plan %s does not match this run: %s; it is "
                 "ignored from here on (the %d grid%s created relabeled so "
                 "far stay so; results are not affected)",
                 cfg->relabel_plan, why, cs_plan.applied,
                 cs_plan.applied == 1 ? "" : "s");
    } else {
        snprintf(msg, sizeof(msg),
                 "relabel: plan %s does not match this run: %s; it is "
                 "ignored and every grid is created as the application "
                 "asks",
                 cfg->relabel_plan, why);
    }
    plan_ignore_msg(msg, speaker);
}

void cs_shim_relabel_plan_disable(const char *why, int speaker)
{
    pthread_mutex_lock(&cs_rl_plan_lock);
    if (why) {
        plan_ignore(why, speaker);
    } else {
        plan_ignore_msg(NULL, speaker);
    }
    pthread_mutex_unlock(&cs_rl_plan_lock);
}

void cs_shim_relabel_plan_taken(int entry, int relabeled)
{
    pthread_mutex_lock(&cs_rl_plan_lock);
    if (cs_plan.state == 1 && entry >= 0 && entry < cs_plan.file.ngrids) {
        cs_plan.used[entry] = 1;
        cs_plan.applied += relabeled != 0;
    }
    pthread_mutex_unlock(&cs_rl_plan_lock);
}

static void describe(char *buf, size_t len, int p, int q, char order,
                     const int *map)
{
    int o = snprintf(buf, len, "%dx%d order %c, world ranks", p, q, order);
    for (int i = 0; i < p * q && o > 0 && (size_t)o + 16 < len; i++) {
        if (i == 16) {
            o += snprintf(buf + o, len - (size_t)o, " ...");
            break;
        }
        o += snprintf(buf + o, len - (size_t)o, " %d", map[i]);
    }
}

/* Read the plan on first use (state 0): 0 when it is in use, -1 when it
 * is ignored (a warning was handled if `speaker`, see plan_ignore_msg). */
static int plan_load(int speaker)
{
    if (cs_plan.state == 0) {
        const cs_config_t *cfg = cs_cfg_get();
        char why[256] = "";
        if (plan_read(cfg->relabel_plan, why, sizeof(why)) != 0) {
            char msg[PLAN_MSG_LEN];
            plan_free();
            snprintf(msg, sizeof(msg),
                     "relabel: COSTA_SHIM_RELABEL=apply, but the plan %s "
                     "cannot be used (%s); grids are created as the "
                     "application asks",
                     cfg->relabel_plan, why);
            plan_ignore_msg(msg, speaker);
            return -1;
        }
        cs_plan.state = 1;
    }
    return cs_plan.state == 1 ? 0 : -1;
}

int cs_shim_relabel_planned_map(int index, int p, int q, char order,
                                const int *app_map, int has_rank0,
                                int speaker, int *entry_p, int *planned_p)
{
    int rc = -1;
    pthread_mutex_lock(&cs_rl_plan_lock);
    if (plan_load(speaker) != 0) {
        goto out;
    }
    int nworld = cs_shim_relabel_world_size();
    char why[512], a[200];
    if (nworld != cs_plan.file.nprocs) {
        snprintf(why, sizeof(why), "it was made for %d processes, this run "
                                   "has %d",
                 cs_plan.file.nprocs, nworld);
        plan_ignore(why, speaker);
        goto out;
    }
    rc = 0;
    if (!cs_plan.file.world && !has_rank0) {
        goto out; /* rank 0's view never saw this grid */
    }
    /* the first entry of the same grid not used yet: the members of a grid
     * see every creation of its map, in the same order */
    size_t n = (size_t)p * (size_t)q;
    int k = 0;
    for (; k < cs_plan.file.ngrids; k++) {
        const cs_rl_plan_grid_t *e = &cs_plan.file.g[k];
        if (!cs_plan.used[k] && e->p == p && e->q == q &&
            e->order == order &&
            memcmp(e->app, app_map, n * sizeof(int)) == 0) {
            break;
        }
    }
    if (k == cs_plan.file.ngrids) {
        if (cs_plan.file.complete) {
            describe(a, sizeof(a), p, q, order, app_map);
            snprintf(why, sizeof(why),
                     "grid #%d (%s) is not among the %d grids it lists",
                     index, a, cs_plan.file.ngrids);
            plan_ignore(why, speaker);
            rc = -1;
        }
        goto out;
    }
    *entry_p = k;
    memcpy(planned_p, cs_plan.file.g[k].planned, n * sizeof(int));
    rc = 1;
out:
    pthread_mutex_unlock(&cs_rl_plan_lock);
    return rc;
}

/* ------------------------------------------------------------ finalize */

static void apply_finalize(int collective)
{
    int me = cs_shim_relabel_world_rank();
    char why[160];
    if (!collective) {
        /* rank 0 took part in every creation of a rank0 plan's grids, so
         * it can count them; a world plan's grids it cannot */
        int used = 0;
        for (int k = 0; k < cs_plan.file.ngrids && cs_plan.state == 1; k++) {
            used += cs_plan.used[k];
        }
        if (me == 0 && cs_plan.state == 1 && !cs_plan.file.world &&
            cs_plan.file.complete && used < cs_plan.file.ngrids) {
            snprintf(why, sizeof(why),
                     "the run created %d of the %d grids it lists", used,
                     cs_plan.file.ngrids);
            plan_ignore(why, 1);
        }
        return;
    }
    /* b[0]: minus the lowest rank that found why the plan does not fit;
     * b[1]: some rank ignores the plan; b[2 + k]: entry k matched */
    int nb = 2 + CS_SHIM_GRIDS_MAX;
    int b[2 + CS_SHIM_GRIDS_MAX];
    memset(b, 0, sizeof(b));
    b[0] = cs_plan.has_msg ? -me : INT_MIN;
    b[1] = cs_plan.state == -1;
    for (int k = 0; k < cs_plan.file.ngrids && cs_plan.state == 1; k++) {
        b[2 + k] = cs_plan.used[k];
    }
    MPI_Allreduce(MPI_IN_PLACE, b, nb, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int lowest = b[0] == INT_MIN ? -1 : -b[0];
    if (lowest > 0) {
        /* rank 0 did not find it itself, so it has not warned yet */
        char msg[PLAN_MSG_LEN];
        memset(msg, 0, sizeof(msg));
        if (me == lowest) {
            memcpy(msg, cs_plan.msg, sizeof(msg));
        }
        MPI_Bcast(msg, PLAN_MSG_LEN, MPI_CHAR, lowest, MPI_COMM_WORLD);
        msg[PLAN_MSG_LEN - 1] = '\0';
        if (me == 0 && !cs_plan.warned) {
            cs_log_warn("%s (found on world rank %d)", msg, lowest);
            cs_plan.warned = 1;
        }
    }
    if (me != 0 || b[1]) {
        return;
    }
    if (cs_plan.state == 0) { /* rank 0 created no grid: read it now */
        char ignored[256] = ""; /* plan_read writes a reason only into
                                  * an empty string */
        if (plan_read(cs_cfg_get()->relabel_plan, ignored,
                      sizeof(ignored)) != 0) {
            plan_free();
            return; /* nobody used it: nothing to say */
        }
        cs_plan.state = 1;
    }
    int used = 0;
    for (int k = 0; k < cs_plan.file.ngrids; k++) {
        used += b[2 + k] != 0;
    }
    if (cs_plan.file.complete && used < cs_plan.file.ngrids) {
        snprintf(why, sizeof(why),
                 "the run created %d of the %d grids it lists", used,
                 cs_plan.file.ngrids);
        plan_ignore(why, 1);
    }
}

void cs_shim_relabel_apply_finalize(int collective)
{
    pthread_mutex_lock(&cs_rl_plan_lock);
    apply_finalize(collective);
    pthread_mutex_unlock(&cs_rl_plan_lock);
}

void cs_shim_relabel_plan_release(void)
{
    pthread_mutex_lock(&cs_rl_plan_lock);
    plan_free();
    pthread_mutex_unlock(&cs_rl_plan_lock);
}
