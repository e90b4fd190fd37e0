/*
 * shim/shim_decide.c - the decision sequence shared by every routine
 * family (shim_decide_int.h): the job of one call, its local preparation,
 * the one agreement, and the commit and execution that follow from the
 * agreed vote alone.
 *
 * Invariant: after cs_shim_job_agree() nothing depends on what only this
 * rank knows, except what it does with its own memory.  Every branch that
 * leads to a collective (growing the shared buffer, running the plans,
 * verifying) is taken on the reduced vote.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim_decide_int.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_digest_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_process_int.h"

#include <mpi.h>

/* Most int64 one agreement carries besides the vote (p?gemr2d's table:
 * its fields and, on small grids, every position). */
#define CS_SHIM_AGREE_MAX 1024

/* ------------------------------------------------------------ identity */

void cs_shim_job_identity(cs_shim_job_t *j, const int *v, int64_t n,
                          const uint64_t *d)
{
    uint64_t mine[2];
    if (!d) {
        cs_shim_digest(v, n, mine);
        d = mine;
    }
    for (int k = 0; k < 2; k++) {
        j->mine.id[k] = (int64_t)d[k];
        j->mine.id_not[k] = ~(int64_t)d[k];
    }
}

int cs_shim_job_same_identity(const cs_shim_job_t *j)
{
    return j->all.id[0] == ~j->all.id_not[0] &&
           j->all.id[1] == ~j->all.id_not[1];
}

/* ------------------------------------------------------------ job */

void cs_shim_job_init(cs_shim_job_t *j, const char *name, MPI_Comm comm,
                      const cs_config_t *cfg, const cs_shim_trace_t *tr)
{
    memset(j, 0, sizeof(*j));
    j->name = name;
    j->comm = comm;
    j->opts = cs_shim_exec_opts(cfg);
    j->plans = &j->one;
    j->st = CS_OK;
    j->mine.verdict = CS_SHIM_V_ENGINE;
    j->mine.no_verify = !tr->verify_ready;
}

void cs_shim_job_refuse(cs_shim_job_t *j, cs_shim_verdict_t v)
{
    if (j->mine.verdict < v) {
        j->mine.verdict = v;
    }
}

int cs_shim_job_plans(cs_shim_job_t *j, int n)
{
    if (n <= 1) {
        return 1;
    }
    cs_eng_plan_t **p = calloc((size_t)n, sizeof(*p));
    if (!p) {
        j->st = CS_ERR_NOMEM;
        cs_shim_job_refuse(j, CS_SHIM_V_NOMEM);
        return 0;
    }
    j->plans = p;
    return 1;
}

/* The verdict of a reservation (cs_shim_mem_reserve()'s result). */
static void reserved(cs_shim_job_t *j, int res)
{
    cs_shim_job_refuse(j, res == 0   ? CS_SHIM_V_ENGINE
                          : res == 1 ? CS_SHIM_V_MEMORY
                                     : CS_SHIM_V_NOMEM);
}

void cs_shim_job_plan(cs_shim_job_t *j, const cs_eng_layout_t *la,
                      const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                      int me, const cs_config_t *cfg)
{
    cs_eng_plan_t *plan = NULL;
    /* COSTA_SHIM_WORKSPACE: inf is the engine's 0 (no bound) */
    int64_t ws_max = cfg->workspace == CS_CFG_SIZE_WORD ? CS_ENG_WS_AUTO
                     : cfg->workspace < 0               ? 0
                                                        : cfg->workspace;
    double t0 = cs_shim_now();
    cs_status_t st = cs_shim_fault(CS_CFG_FAULT_PLAN)
                         ? CS_ERR_NOMEM
                         : cs_eng_plan_create_bounded(la, lb, op, me, ws_max,
                                                      &plan);
    double t1 = cs_shim_now();
    if (st != CS_OK) {
        j->st = st;
        cs_shim_job_refuse(j, CS_SHIM_V_NOMEM);
        return;
    }
    j->plans[j->nplans++] = plan;
    reserved(j, cs_shim_mem_reserve(plan, 0, &j->opts, &j->st));
    double t2 = cs_shim_now();
    int rank = cs_shim_world_rank();
    if (j->st == CS_OK && cfg->verbose >= 2 && cs_cfg_rank_logs(cfg, rank)) {
        char line[600], desc[400];
        cs_eng_plan_describe(plan, desc, sizeof(desc));
        /* what a first call of a shape pays before it moves data:
         * planning, and the workspace (grown, pages touched) */
        snprintf(line, sizeof(line),
                 "COSTA_SHIM_PLAN r:%d %s plan:%.3fms reserve:%.3fms", rank,
                 desc, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        cs_log_line(cs_log_trace_fd(), line);
    }
}

void cs_shim_job_reuse(cs_shim_job_t *j, cs_eng_plan_t *plan)
{
    j->plans[0] = plan;
    j->nplans = 1;
    j->cached = 1;
    reserved(j, cs_shim_mem_reserve(plan, 1, &j->opts, &j->st));
}

void cs_shim_job_wish_shm(cs_shim_job_t *j, const cs_config_t *cfg)
{
    if (j->mine.verdict != CS_SHIM_V_ENGINE || j->nplans != 1) {
        return;
    }
    int64_t need = cs_eng_plan_shm_bytes(j->plans[0], j->opts.shm_min_bytes);
    int64_t size = cs_eng_shm_size();
    j->shm_need = need;
    j->mine.shm_wish = need > size && (cfg->shm == CS_CFG_SHM_EAGER ||
                                       cs_eng_shm_pays(need));
    /* growing is collective over the world: only in a call of all of it,
     * one call at a time; and every rank grows to its own need, so each
     * must hold that under its own cap */
    int nc = 0, nw = 0;
    MPI_Comm_size(j->comm, &nc);
    MPI_Comm_size(MPI_COMM_WORLD, &nw);
    j->mine.shm_veto = nc != nw || cs_shim_thread_multiple() ||
                       !cs_shim_mem_fits(cs_eng_shm_grow_size(need) - size);
}

double cs_shim_job_agree(cs_shim_job_t *j, const int64_t *extra,
                         int64_t *extra_all, int n)
{
    int64_t mine[CS_SHIM_VOTE_N + CS_SHIM_AGREE_MAX];
    int64_t all[CS_SHIM_VOTE_N + CS_SHIM_AGREE_MAX];
    if (n < 0 || n > CS_SHIM_AGREE_MAX) {
        cs_shim_fatal("%s: an agreement of %d values (at most %d)", j->name,
                      n, CS_SHIM_AGREE_MAX);
    }
    memcpy(mine, &j->mine, sizeof(j->mine));
    if (n > 0) {
        memcpy(mine + CS_SHIM_VOTE_N, extra, (size_t)n * sizeof(int64_t));
    }
    double t0 = cs_shim_now();
    MPI_Allreduce(mine, all, CS_SHIM_VOTE_N + n, MPI_INT64_T, MPI_MAX,
                  j->comm);
    double t = cs_shim_now() - t0;
    memcpy(&j->all, all, sizeof(j->all));
    if (n > 0) {
        memcpy(extra_all, all + CS_SHIM_VOTE_N, (size_t)n * sizeof(int64_t));
    }
    return t;
}

/* ------------------------------------------------------------ commit */

static int reason_of(int64_t verdict)
{
    switch (verdict) {
    case CS_SHIM_V_MEMORY:
    case CS_SHIM_V_NOMEM:
        return CS_SHIM_REASON_MEMORY;
    case CS_SHIM_V_UNSUPPORTED:
        return CS_SHIM_REASON_UNSUPPORTED;
    default:
        return CS_SHIM_REASON_BAD_DESC;
    }
}

void cs_shim_job_free(cs_shim_job_t *j)
{
    for (int k = j->cached ? 1 : 0; k < j->nplans; k++) {
        cs_eng_plan_destroy(j->plans[k]);
    }
    if (j->plans != &j->one) {
        free(j->plans);
    }
    j->plans = &j->one;
    j->nplans = 0;
}

static void add_stats(cs_shim_record_t *rec, const cs_eng_stats_t *v)
{
    rec->vol.bytes_sent += v->bytes_sent;
    rec->vol.bytes_sent_near += v->bytes_sent_near;
    rec->vol.bytes_recv += v->bytes_recv;
    rec->vol.bytes_self += v->bytes_self;
    rec->vol.msgs_sent += v->msgs_sent;
    rec->vol.msgs_recv += v->msgs_recv;
    rec->vol.threads = v->threads;
    rec->vol.t_pack += v->t_pack;
    rec->vol.t_local += v->t_local;
    rec->vol.t_unpack += v->t_unpack;
    rec->vol.t_transfer += v->t_transfer;
}

void cs_shim_job_run(cs_shim_job_t *j, cs_shim_keep_fn keep, void *ctx,
                     const void *a, void *b, cs_shim_record_t *rec,
                     cs_shim_trace_t *tr)
{
    if (j->mine.verdict == CS_SHIM_V_NOMEM) {
        cs_log_info("%s: the engine could not prepare the call here (%s): "
                    "every rank takes the real routine",
                    j->name, cs_status_str(j->st));
    }
    if (j->all.verdict != CS_SHIM_V_ENGINE) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = reason_of(j->all.verdict);
        cs_shim_job_free(j);
        return;
    }
    if (j->all.shm_wish && !j->all.shm_veto) {
        /* every rank of the world is here and none vetoed */
        int ok = cs_eng_shm_grow(j->shm_need,
                                 cs_shim_fault(CS_CFG_FAULT_WINDOW));
        cs_log_info("%s: shared send buffer %s: %.1f MiB", j->name,
                    ok ? "grown" : "not available",
                    (double)cs_eng_shm_size() / (1 << 20));
    }
    int kept = j->cached;
    if (!kept && keep && j->nplans == 1) {
        kept = cs_shim_mem_keep(keep, ctx, j->plans[0]);
    }
    int64_t transient = 0;
    for (int k = kept ? 1 : 0; k < j->nplans; k++) {
        transient += cs_eng_plan_heap_bytes(j->plans[k]);
    }
    cs_shim_mem_note(transient);
    /* the ranks' nodes, so that the bytes inside a node are counted */
    cs_eng_exec_opts_t o = j->opts;
    o.peer_group = cs_shim_comm_nodes(j->comm);
    for (int k = 0; k < j->nplans; k++) {
        cs_eng_stats_t v = {0};
        cs_eng_plan_execute(j->plans[k], a, b, j->comm, &o, &v);
        add_stats(rec, &v);
    }
    tr->verify_go = !j->all.no_verify;
    j->cached = kept;
    cs_shim_job_free(j);
}
