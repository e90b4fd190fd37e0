/*
 * engine/engine.c - the plans engine.h hands out: one exchange
 * (cs_eng_exch_t, plan.c), or a call cut into panels (cs_eng_panels_t,
 * panels.c); every cs_eng_plan_* function dispatches on which.
 *
 * RATIONALE: a plan and a cut plan were once one type by convention, the
 * cut plan's exchange fields unused, and the functions of plan.c,
 * panels.c and exchange.c branched on it and called each other in a
 * circle.  As two types the dependencies run one way: exchange.c executes
 * a plan of plan.c, panels.c makes and runs several of them, and only
 * this file knows both kinds.  No MPI calls but through exchange.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine/engine_int.h"

/* A handle for x or p (one of them NULL), or NULL when there is no memory
 * for it (then both are destroyed). */
static cs_eng_plan_t *plan_wrap(cs_eng_exch_t *x, cs_eng_panels_t *p)
{
    cs_eng_plan_t *plan = calloc(1, sizeof(*plan));
    if (!plan) {
        cs_eng_exch_destroy(x);
        cs_eng_panels_destroy(p);
        return NULL;
    }
    plan->exch = x;
    plan->panels = p;
    return plan;
}

cs_status_t cs_eng_plan_create(const cs_eng_layout_t *a,
                               const cs_eng_layout_t *b,
                               const cs_eng_op_t *op, int me,
                               cs_eng_plan_t **plan_p)
{
    cs_eng_exch_t *x = NULL;
    cs_status_t st = cs_eng_exch_create(a, b, op, me, &x);
    if (st != CS_OK) {
        return st;
    }
    cs_eng_plan_t *plan = plan_wrap(x, NULL);
    if (!plan) {
        return CS_ERR_NOMEM;
    }
    *plan_p = plan;
    return CS_OK;
}

cs_status_t cs_eng_plan_create_bounded(const cs_eng_layout_t *a,
                                       const cs_eng_layout_t *b,
                                       const cs_eng_op_t *op, int me,
                                       int64_t ws_max,
                                       cs_eng_plan_t **plan_p)
{
    cs_eng_panels_t *p = NULL;
    cs_status_t st = cs_eng_panels_create(a, b, op, me, ws_max, &p);
    if (st != CS_OK) {
        return st;
    }
    if (!p) {
        return cs_eng_plan_create(a, b, op, me, plan_p); /* fits uncut */
    }
    cs_eng_plan_t *plan = plan_wrap(NULL, p);
    if (!plan) {
        return CS_ERR_NOMEM;
    }
    *plan_p = plan;
    return CS_OK;
}

int cs_eng_plan_panels(const cs_eng_plan_t *plan)
{
    return plan->panels ? plan->panels->n : 1;
}

int64_t cs_eng_plan_workspace_bytes(const cs_eng_plan_t *plan)
{
    return plan->panels ? cs_eng_panels_workspace_bytes(plan->panels)
                        : cs_eng_exch_workspace_bytes(plan->exch);
}

void cs_eng_plan_volume(const cs_eng_plan_t *plan, int64_t *sent_p,
                        int64_t *recv_p, int64_t *self_p)
{
    if (plan->panels) {
        cs_eng_panels_volume(plan->panels, sent_p, recv_p, self_p);
        return;
    }
    *sent_p = plan->exch->send_bytes;
    *recv_p = plan->exch->recv_bytes;
    *self_p = plan->exch->self_bytes;
}

cs_status_t cs_eng_plan_reserve(cs_eng_plan_t *plan,
                                const cs_eng_exec_opts_t *opts)
{
    return plan->panels ? cs_eng_panels_reserve(plan->panels, opts)
                        : cs_eng_exch_reserve(plan->exch, opts);
}

int64_t cs_eng_plan_reserve_bytes(const cs_eng_plan_t *plan,
                                  const cs_eng_exec_opts_t *opts)
{
    int64_t bytes = plan->panels
                        ? cs_eng_panels_requests_need(plan->panels, opts)
                        : cs_eng_exch_requests_need(plan->exch, opts);
    /* the panels of a cut plan take turns in one workspace; a workspace
     * that grows is mapped anew (headroom, whole huge pages) and the old
     * one given back: what the shim holds changes by the difference */
    int64_t ws = cs_eng_plan_workspace_bytes(plan);
    int64_t held = (int64_t)cs_eng_workspace_size();
    if (ws > held) {
        bytes += (int64_t)cs_eng_workspace_bytes_for((size_t)ws) - held;
    }
    return bytes;
}

int64_t cs_eng_plan_heap_bytes(const cs_eng_plan_t *plan)
{
    return (int64_t)sizeof(*plan) +
           (plan->panels ? cs_eng_panels_heap_bytes(plan->panels)
                         : cs_eng_exch_heap_bytes(plan->exch));
}

cs_status_t cs_eng_plan_execute(cs_eng_plan_t *plan, const void *a_base,
                                void *b_base, MPI_Comm comm,
                                const cs_eng_exec_opts_t *opts,
                                cs_eng_stats_t *stats_p)
{
    if (plan->panels) {
        return cs_eng_panels_execute(plan->panels, a_base, b_base, comm,
                                     opts, stats_p);
    }
    return cs_eng_exch_execute(plan->exch, a_base, b_base, comm, opts,
                               stats_p);
}

int64_t cs_eng_plan_shm_bytes(const cs_eng_plan_t *plan, int64_t min_bytes)
{
    return plan->panels ? cs_eng_panels_shm_bytes(plan->panels, min_bytes)
                        : cs_eng_exch_shm_bytes(plan->exch, min_bytes);
}

void cs_eng_plan_describe(const cs_eng_plan_t *plan, char *buf, size_t len)
{
    cs_eng_summary_t d = {0};
    if (plan->panels) {
        cs_eng_panels_summary_add(plan->panels, &d);
    } else {
        cs_eng_exch_summary_add(plan->exch, &d);
    }
    snprintf(buf, len,
             "send_peers:%d send:%.2fMB send_blocks:%lld recv_peers:%d "
             "recv:%.2fMB recv_blocks:%lld local_blocks:%lld self:%.2fMB "
             "row_segs:%lld row_groups:%lld col_segs:%lld col_groups:%lld "
             "panels:%d ws:%.2fMB",
             d.send_peers, (double)d.send * 1e-6, (long long)d.sblk,
             d.recv_peers, (double)d.recv * 1e-6, (long long)d.rblk,
             (long long)d.lblk, (double)d.self * 1e-6, (long long)d.rseg,
             (long long)d.rgrp, (long long)d.cseg, (long long)d.cgrp,
             cs_eng_plan_panels(plan),
             (double)cs_eng_plan_workspace_bytes(plan) * 1e-6);
}

void cs_eng_plan_destroy(cs_eng_plan_t *plan)
{
    if (!plan) {
        return;
    }
    cs_eng_exch_destroy(plan->exch);
    cs_eng_panels_destroy(plan->panels);
    free(plan);
}
