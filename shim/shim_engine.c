/*
 * shim/shim_engine.c - what every family needs to speak to the engine:
 * the operation of a call, its element type, the execution settings
 * (threads, overlap, the shared send buffer's threshold).
 */
#include "config/config.h"
#include "shim/shim.h"
#include "shim/shim_call_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_process_int.h"

#ifdef _OPENMP
#include <omp.h>
#endif


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

cs_eng_exec_opts_t cs_shim_exec_opts(const cs_config_t *cfg)
{
    cs_eng_exec_opts_t opts = {engine_threads(cfg), cfg->overlap, 0,
                               engine_shm_min(cfg), NULL};
    return opts;
}

int64_t cs_shim_local_extent(int64_t n, int64_t nb, int64_t first, int src,
                             int nprocs, int p)
{
    cs_eng_dist_t d;
    if (src < 0) {
        return n;
    }
    if (n <= 0 || cs_eng_dist_cyclic(n, nb, first, src, nprocs, &d) != CS_OK) {
        return 0;
    }
    return cs_eng_dist_local_size(&d, p);
}
