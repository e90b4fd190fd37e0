/*
 * shim/relabel/plan_file.c - COSTA_SHIM_RELABEL at MPI_Finalize: in report
 * mode the relabeling plan (its problem gathered by gather.c, computed and
 * formatted by relabel/) written to COSTA_SHIM_RELABEL_PLAN through a
 * temporary file and a rename, with one line on rank 0's stderr; in apply
 * mode the last checks of the plan in use; then every part of the module
 * freed (relabel_int.h, docs/relabel.md).
 * No state of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/log.h"
#include "relabel/relabel.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/relabel/relabel_int.h"

#include <mpi.h>

/* The command line from /proc/self/cmdline, arguments joined by spaces,
 * cut to fit (the plan's "command" line). */
static void read_command(char *cmd, size_t len)
{
    cmd[0] = '\0';
    FILE *cl = fopen("/proc/self/cmdline", "r");
    if (cl) {
        size_t n = fread(cmd, 1, len - 1, cl);
        fclose(cl);
        cmd[n] = '\0';
        for (size_t i = 0; i + 1 < n; i++) {
            if (cmd[i] == '\0' || cmd[i] == '\n') {
                cmd[i] = ' ';
            }
        }
    }
}

/* Rank 0, report mode: write the plan of the ordered problem pb. */
static void plan_write(const cs_config_t *cfg, cs_rl_problem_t *pb,
                       const cs_rl_plan_t *plan)
{
    char tmp[CS_CFG_PATH_LEN + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", cfg->relabel_plan,
             (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cs_log_warn("relabel: cannot write the plan %s: %s", tmp,
                    strerror(errno));
        return;
    }
    char cmd[512];
    read_command(cmd, sizeof(cmd));
    cs_rl_plan_print(f, pb, plan, cmd);
    if (fclose(f) != 0 || rename(tmp, cfg->relabel_plan) != 0) {
        cs_log_warn("relabel: cannot write the plan %s: %s",
                    cfg->relabel_plan, strerror(errno));
        remove(tmp);
        return;
    }
    int complete = !pb->incomplete && !pb->saturated;
    int ng = pb->ng;
    char nodes[128] = "";
    if (pb->node) {
        snprintf(nodes, sizeof(nodes),
                 ", crossing %d nodes %" PRId64 " -> %" PRId64
                 " (weights %" PRId64 "/%" PRId64 ")",
                 pb->nnodes, plan->net_app, plan->net_plan, pb->w_rank,
                 pb->w_node);
    }
    double pct = pb->cross_total > 0 ? 100.0 * (double)plan->saved /
                                           (double)pb->cross_total
                                     : 0.0;
    cs_log_notice("relabel: plan written to %s: %d grid%s, %d relabeled; "
                  "bytes crossing processes in the observed redistributions "
                  "%" PRId64 " -> %" PRId64 " (-%.1f%%)%s%s%s",
                  cfg->relabel_plan, ng, ng == 1 ? "" : "s",
                  plan->relabeled, pb->cross_total, plan->planned_bytes, pct,
                  nodes, complete ? "" : " (incomplete: see docs/relabel.md)",
                  pb->world ? "" : " (rank 0's view only: MPI_Init did not "
                                   "go through the shim)");
}

/* Rank 0, report mode: compute the plan of the ordered problem and write
 * it; a plan that cannot be computed is not written (one warning). */
static void plan_make(const cs_config_t *cfg, cs_rl_problem_t *pb)
{
    cs_rl_plan_t plan;
    cs_rl_status_t st = cs_rl_plan_solve(pb, &plan);
    if (st == CS_RL_ERR_INVALID) {
        cs_log_warn("relabel: grid #%d has a rank outside "
                    "MPI_COMM_WORLD; no plan written",
                    plan.bad_grid);
    } else if (st != CS_RL_OK) {
        cs_log_warn("relabel: out of memory computing the plan; none "
                    "written");
    } else {
        plan_write(cfg, pb, &plan);
    }
    cs_rl_plan_free(&plan);
}

/* Report mode at MPI_Finalize: the plan. */
static void report_finalize(const cs_config_t *cfg, int collective)
{
    int me = cs_shim_relabel_world_rank();
    cs_rl_problem_t pb;
    int rc = cs_shim_relabel_gather(collective, &pb);
    if (rc == 0) {
        cs_rl_problem_order(&pb);
        plan_make(cfg, &pb);
    } else if (me == 0) {
        cs_log_warn("relabel: out of memory gathering the plan; none "
                    "written");
    }
    cs_rl_problem_free(&pb);
}

void cs_shim_relabel_finalize(int collective)
{
    const cs_config_t *cfg = cs_cfg_get();
    if (cfg->relabel == CS_CFG_RELABEL_OFF) {
        return;
    }
    if (cfg->relabel == CS_CFG_RELABEL_REPORT) {
        report_finalize(cfg, collective);
    } else {
        cs_shim_relabel_apply_finalize(collective);
    }
    cs_shim_relabel_observe_release();
    cs_shim_relabel_plan_release();
    cs_shim_grids_release();
}
