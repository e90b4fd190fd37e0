/*
 * shim/shim_engine.c - what every family needs from the engine: the
 * operation of a call, its element type, preparing and running a plan
 * (threads, the memory cap, what to do when a rank cannot).
 */
#include <stdio.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_call_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_process_int.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <mpi.h>

cs_eng_op_t cs_shim_eng_op(const cs_shim_call_t *g)
{
    cs_eng_op_t op = {.m = g->m,
                      .n = g->n,
                      .ia = g->ia - 1,
                      .ja = g->ja - 1,
                      .ib = g->ib - 1,
                      .jb = g->jb - 1,
                      .esize = cs_shim_routines[g->routine].esize,
                      .type = CS_ENG_T_RAW};
    return op;
}

int cs_shim_eng_type(int routine)
{
    switch (cs_shim_routines[routine].type) {
    case 's':
        return CS_ENG_T_S;
    case 'd':
        return CS_ENG_T_D;
    case 'c':
        return CS_ENG_T_C;
    case 'z':
        return CS_ENG_T_Z;
    default:
        return CS_ENG_T_RAW;
    }
}

/* The engine's threshold for the shared send buffer (0: never). */
static int64_t engine_shm_min(const cs_config_t *cfg)
{
    /* RATIONALE: one buffer per process, grown by a collective over the
     * world: calls of several threads at once could neither share it nor
     * grow it in the same order on every rank */
    return cfg->shm == CS_CFG_SHM_OFF || cfg->shm_min < 0 ||
                   cs_shim_thread_multiple()
               ? 0
           : cfg->shm_min > 0                            ? cfg->shm_min
                                                         : 1;
}

static int engine_threads(const cs_config_t *cfg)
{
#ifdef _OPENMP
    if (omp_in_parallel()) {
        return 1;
    }
    if (cfg->threads > 0) {
        return cfg->threads;
    }
    /* RATIONALE: the OpenMP default, but never more threads than this
     * rank's cores: 2 ranks on 2 cores with OMP_NUM_THREADS=2 made pdtran
     * 4000 x 4000 9.3 times slower than native (the teams' threads wait
     * for each other's cores; make bench, 2026-12-02) */
    int omp = omp_get_max_threads(), cores = cs_shim_cores_per_rank();
    return omp < cores ? omp : cores;
#else
    (void)cfg;
    return 1;
#endif
}

/* Admit the call under the memory cap, then reserve; the preparation
 * result (0, 1, 2) of cs_shim_engine_prepare(). */
static int reserve(cs_eng_plan_t *plan, int cached, const cs_config_t *cfg,
                   const cs_eng_exec_opts_t *opts, cs_status_t *st_p)
{
    if (cfg->test_nomem >= 0 && cfg->test_nomem == cs_shim_world_rank()) {
        *st_p = CS_ERR_NOMEM; /* COSTA_SHIM_TEST_NOMEM */
        return 2;
    }
    if (!cs_shim_mem_admit(plan, cached, opts)) {
        return 1;
    }
    *st_p = cs_eng_plan_reserve(plan, opts);
    return *st_p == CS_OK ? 0 : 2;
}

int cs_shim_engine_prepare(const cs_eng_layout_t *la,
                           const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                           int me, const cs_config_t *cfg,
                           cs_eng_exec_opts_t *opts_p, cs_eng_plan_t **plan_p,
                           cs_status_t *st_p)
{
    cs_eng_exec_opts_t opts = {engine_threads(cfg), cfg->overlap, 0,
                               engine_shm_min(cfg), NULL};
    cs_eng_plan_t *plan = NULL;
    /* COSTA_SHIM_WORKSPACE: inf is the engine's 0 (no bound) */
    int64_t ws_max = cfg->workspace == CS_CFG_SIZE_WORD ? CS_ENG_WS_AUTO
                     : cfg->workspace < 0               ? 0
                                                        : cfg->workspace;
    double t0 = cs_shim_now();
    cs_status_t st =
        cs_eng_plan_create_bounded(la, lb, op, me, ws_max, &plan);
    double t1 = cs_shim_now();
    int local = st == CS_OK ? reserve(plan, 0, cfg, &opts, &st) : 2;
    double t2 = cs_shim_now();
    int rank = cs_shim_world_rank();
    if (st == CS_OK && cfg->verbose >= 2 && cs_cfg_rank_logs(cfg, rank)) {
        char line[600], desc[400];
        cs_eng_plan_describe(plan, desc, sizeof(desc));
        /* what a first call of a shape pays before it moves data:
         * planning, and the workspace (grown, pages touched) */
        snprintf(line, sizeof(line),
                 "COSTA_SHIM_PLAN r:%d %s plan:%.3fms reserve:%.3fms", rank,
                 desc, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
        cs_log_line(cs_log_trace_fd(), line);
    }
    *opts_p = opts;
    *plan_p = plan;
    *st_p = st;
    return local;
}

void cs_shim_engine_finish(const char *name, int local, int worst,
                           cs_status_t st, cs_eng_plan_t *const *plans, int n,
                           const void *a, void *b, MPI_Comm comm,
                           const cs_eng_exec_opts_t *opts,
                           cs_shim_record_t *rec, int keep)
{
    if (local == 2) {
        cs_log_info("%s: the engine could not prepare the call (%s): "
                    "every rank takes the real routine",
                    name, cs_status_str(st));
    }
    if (worst != 0) {
        /* over the cap or out of memory here or elsewhere: nobody runs
         * the plans, every rank takes the real routine */
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_MEMORY;
    }
    int64_t transient = 0;
    for (int k = 0; k < n && !keep; k++) {
        transient += plans[k] ? cs_eng_plan_heap_bytes(plans[k]) : 0;
    }
    cs_shim_mem_note(transient);
    /* the ranks' nodes, so that the bytes inside a node are counted */
    cs_eng_exec_opts_t o = *opts;
    o.peer_group = cs_shim_comm_nodes(comm);
    for (int k = 0; k < n; k++) {
        if (worst == 0) {
            cs_eng_stats_t v = {0};
            cs_eng_plan_execute(plans[k], a, b, comm, &o, &v);
            rec->vol.bytes_sent += v.bytes_sent;
            rec->vol.bytes_sent_near += v.bytes_sent_near;
            rec->vol.bytes_recv += v.bytes_recv;
            rec->vol.bytes_self += v.bytes_self;
            rec->vol.msgs_sent += v.msgs_sent;
            rec->vol.msgs_recv += v.msgs_recv;
            rec->vol.threads = v.threads;
            rec->vol.t_pack += v.t_pack;
            rec->vol.t_local += v.t_local;
            rec->vol.t_unpack += v.t_unpack;
            rec->vol.t_transfer += v.t_transfer;
        }
        if (!keep) {
            cs_eng_plan_destroy(plans[k]);
        }
    }
}

int cs_shim_engine_reuse(cs_eng_plan_t *plan, const cs_config_t *cfg,
                         cs_eng_exec_opts_t *opts_p, cs_status_t *st_p)
{
    cs_eng_exec_opts_t opts = {engine_threads(cfg), cfg->overlap, 0,
                               engine_shm_min(cfg), NULL};
    cs_status_t st = CS_OK;
    int local = reserve(plan, 1, cfg, &opts, &st);
    *opts_p = opts;
    *st_p = st;
    return local;
}

int cs_shim_shm_wish(const cs_eng_plan_t *plan, const cs_eng_exec_opts_t *opts,
                     const cs_config_t *cfg, MPI_Comm comm, int64_t *need_p)
{
    int64_t need =
        plan ? cs_eng_plan_shm_bytes(plan, opts->shm_min_bytes) : 0;
    *need_p = need;
    if (need <= cs_eng_shm_size() || cs_shim_thread_multiple()) {
        return 0;
    }
    /* growing is collective over the world: only in a call of all of it */
    int nc = 0, nw = 0;
    MPI_Comm_size(comm, &nc);
    MPI_Comm_size(MPI_COMM_WORLD, &nw);
    int pays = cfg->shm == CS_CFG_SHM_EAGER || cs_eng_shm_pays(need);
    int64_t cap = cs_shim_mem_cap();
    int fits = cap < 0 || cs_shim_mem_held() - cs_eng_shm_size() + need <= cap;
    return nc == nw && pays && fits ? CS_SHIM_SHM_GROW : 0;
}

int cs_shim_shm_agree(int worst, int64_t need, const char *name)
{
    int code = worst & ~CS_SHIM_SHM_GROW;
    if ((worst & CS_SHIM_SHM_GROW) && code < 3) {
        /* every rank of the world is here and does the same */
        int ok = cs_eng_shm_grow(need);
        cs_log_info("%s: shared send buffer %s: %.1f MiB", name,
                    ok ? "grown" : "not available",
                    (double)cs_eng_shm_size() / (1 << 20));
    }
    return code;
}
