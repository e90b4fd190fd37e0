/*
 * shim/shim_front.c - what every intercepted call goes through before and
 * after its family's routine: the on/off switches, the nesting guard, MPI
 * readiness, first-use set-up, the configuration's routing (routines,
 * size threshold, measure-only), COSTA_SHIM_FALLBACK=never, the real
 * routine on fallback, statistics and the trace line.
 */
#include "config/config.h"
#include "shim/shim_call.h"
#include "shim/shim_trace.h"

void cs_shim_front(const cs_shim_call_t *g, cs_shim_serve_fn serve)
{
    const cs_config_t *cfg = cs_cfg_get();
    cs_shim_record_t rec = {g->routine, g->spelling, CS_SHIM_PATH_ENGINE,
                            CS_SHIM_REASON_NONE, 0.0, {0}, -1, -1};
    if (cfg->disable || !cs_shim_enabled) {
        cs_shim_call_real(g);
        return;
    }
    if (cs_shim_depth > 0) {
        rec.path = CS_SHIM_PATH_NESTED;
        rec.reason = CS_SHIM_REASON_NESTED;
        cs_shim_call_real(g);
        cs_shim_stats_record(&rec);
        return;
    }
    cs_shim_trace_t tr = {.args = g};
    double t0 = cs_shim_now();
    cs_shim_depth++;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down) {
        rec.path = CS_SHIM_PATH_FALLBACK;
        rec.reason = CS_SHIM_REASON_MPI_NOT_READY;
        cs_shim_call_real(g);
        cs_shim_depth--;
        rec.t = cs_shim_now() - t0;
        cs_shim_stats_record(&rec);
        return;
    }
    cs_shim_init_once();
    const char *name = cs_shim_routines[g->routine].lower;
    if (cfg->fallback == CS_CFG_FALLBACK_ALWAYS) {
        rec.path = CS_SHIM_PATH_FALLBACK;
        rec.reason = CS_SHIM_REASON_ALWAYS;
    } else if (!cs_cfg_routine_enabled(cfg, name)) {
        rec.path = CS_SHIM_PATH_PASSTHROUGH;
        rec.reason = CS_SHIM_REASON_ROUTINE_OFF;
    } else if (g->m > 0 && g->n > 0 &&
               (int64_t)g->m * g->n < cfg->min_elems) {
        rec.path = CS_SHIM_PATH_FALLBACK;
        rec.reason = CS_SHIM_REASON_SMALL;
    } else {
        serve(g, cfg, &rec, &tr);
    }
    if (rec.path == CS_SHIM_PATH_FALLBACK &&
        cfg->fallback == CS_CFG_FALLBACK_NEVER) {
        cs_shim_fatal("%s: the engine did not take this call (reason %s) "
                      "and COSTA_SHIM_FALLBACK=never",
                      name, cs_shim_reason_str(rec.reason));
    }
    if (rec.path != CS_SHIM_PATH_ENGINE) {
        cs_shim_call_real(g);
    }
    cs_shim_depth--;
    rec.t = cs_shim_now() - t0;
    cs_shim_stats_record(&rec);
    cs_shim_trace_call(cfg, &rec, &tr);
}
