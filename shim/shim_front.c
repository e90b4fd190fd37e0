/*
 * shim/shim_front.c - what every intercepted call goes through before and
 * after its family's routine: the on/off switches, the nesting guard, MPI
 * readiness, first-use set-up, the configuration's routing (routines,
 * size threshold, measure-only), COSTA_SHIM_FALLBACK=never, the real
 * routine on fallback, COSTA_SHIM_VERIFY, statistics and the trace line.
 *
 * COSTA_SHIM_VERIFY: this rank's whole local target array is copied before
 * the family's routine runs; when the call took the engine path, the real
 * routine then runs again on the copy (a modified call record whose target
 * is the copy) and the two arrays are compared element by element.  The
 * real routine is collective, so whether to verify is part of the call's
 * agreement (shim_decide_int.h): every rank verifies, or none does (a rank
 * with the variable off or without memory for its copy says no).  Only a
 * rank that compared something counts the call as verified.  Its nested
 * calls are not recorded (they belong to the check, not the application).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_call_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_init_int.h"
#include "shim/shim_mpi_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"
#include "shim/shim_stats_int.h"
#include "shim/shim_trace_int.h"

#include <mpi.h>

/* 1 while the real routine runs for a verification on this thread. */
static __thread int cs_front_verifying;

/* Below MPI_THREAD_MULTIPLE: the call in progress in this process (routine
 * * CS_SHIM_NSPELL + spelling), -1 for none. */
static atomic_int cs_front_active = -1;

/* Below MPI_THREAD_MULTIPLE a second thread must not enter while a call
 * runs: its MPI calls would break the thread level the program asked for,
 * and the two calls would share what one call may use.  Stop, naming both. */
static void enter_alone(const cs_shim_call_t *g)
{
    int mine = g->routine * CS_SHIM_NSPELL + g->spelling, other = -1;
    if (atomic_compare_exchange_strong(&cs_front_active, &other, mine)) {
        return;
    }
    char a[32], b[32];
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    cs_shim_called_name(g->routine, g->spelling, a, sizeof(a));
    cs_shim_called_name(other / CS_SHIM_NSPELL, other % CS_SHIM_NSPELL, b,
                        sizeof(b));
    cs_shim_fatal("%s called on one thread while %s runs on another; MPI "
                  "runs at thread level %s, which allows one MPI call at a "
                  "time: initialise MPI with MPI_THREAD_MULTIPLE for "
                  "concurrent calls on different contexts, or serialise them",
                  a, b,
                  level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
                  : level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED"
                                                 : "MPI_THREAD_SINGLE");
}

/* COSTA_SHIM_VERIFY: the saved local target of one call. */
typedef struct {
    void *copy;         /* NULL: this rank has no local target */
    size_t elems;
} cs_front_verify_t;

/*
 * Elements of this rank's local target array, LLD * (local columns - 1) +
 * local rows of the whole matrix B (never past the last element the
 * application must have allocated); 0 when there is nothing to save:
 * m or n is 0, the process is outside B's grid (p?gemr2d, p?trmr2d), owns
 * none of B, or B's descriptor is one the engine refuses anyway.
 */
static int64_t target_elems(const cs_shim_call_t *g)
{
    const cs_fint *d = g->descb;
    if (g->m <= 0 || g->n <= 0 || !d || !g->b || d[1] < 0) {
        return 0;
    }
    int p, q, r, c;
    cs_shim_gridinfo(d[1], &p, &q, &r, &c);
    if (p < 1 || r < 0 || r >= p || c < 0 || c >= q) {
        return 0;
    }
    int two = d[0] == 2;
    int64_t mb = d[two ? 6 : 4], nb = d[two ? 7 : 5];
    int64_t lld = d[two ? 10 : 8];
    if (d[4] < 1 || d[5] < 1 || mb < 1 || nb < 1) {
        return 0;
    }
    int64_t lr = cs_shim_local_extent(d[2], mb, d[4], d[two ? 8 : 6], p, r);
    int64_t lc = cs_shim_local_extent(d[3], nb, d[5], d[two ? 9 : 7], q, c);
    if (lr <= 0 || lc <= 0 || lld < lr) {
        return 0;
    }
    return (lc - 1) * lld + lr;
}

/* Save this rank's target; 1 when it can verify (saved, or nothing of
 * the target here), 0 without memory for the copy (the call's agreement
 * then turns verification off on every rank). */
static int verify_save(const cs_shim_call_t *g, cs_front_verify_t *v)
{
    size_t es = cs_shim_routines[g->routine].esize;
    int64_t n = target_elems(g);
    v->copy = NULL;
    v->elems = 0;
    if (n <= 0) {
        return 1;
    }
    v->copy = cs_shim_fault(CS_CFG_FAULT_VERIFY) ? NULL
                                                 : malloc((size_t)n * es);
    if (!v->copy) {
        cs_log_info("COSTA_SHIM_VERIFY: no memory for a %lld-byte copy of "
                    "the target of %s: the call is not verified",
                    (long long)n * (long long)es,
                    cs_shim_routines[g->routine].lower);
        return 0;
    }
    memcpy(v->copy, g->b, (size_t)n * es);
    v->elems = (size_t)n;
    return 1;
}

/* |x[k] - y[k]| for the routine's type (modulus for complex); 0 for equal
 * bits, infinity when the difference is not a number. */
static double elem_diff(char type, size_t es, const void *x, const void *y,
                        size_t k)
{
    const char *px = (const char *)x + k * es;
    const char *py = (const char *)y + k * es;
    if (memcmp(px, py, es) == 0) {
        return 0.0;
    }
    double d;
    if (type == 's' || type == 'c') {
        float a[2] = {0.0f, 0.0f}, b[2] = {0.0f, 0.0f};
        memcpy(a, px, es);
        memcpy(b, py, es);
        d = hypot((double)a[0] - b[0], (double)a[1] - b[1]);
    } else if (type == 'd' || type == 'z') {
        double a[2] = {0.0, 0.0}, b[2] = {0.0, 0.0};
        memcpy(a, px, es);
        memcpy(b, py, es);
        d = hypot(a[0] - b[0], a[1] - b[1]);
    } else {
        int32_t a, b;
        memcpy(&a, px, sizeof(a));
        memcpy(&b, py, sizeof(b));
        d = fabs((double)a - (double)b);
    }
    return isnan(d) ? INFINITY : d;
}

static double max_diff(int routine, const void *x, const void *y, size_t n)
{
    const cs_shim_routine_t *rt = &cs_shim_routines[routine];
    double worst = 0.0;
    if (memcmp(x, y, n * rt->esize) == 0) {
        return 0.0;
    }
    for (size_t k = 0; k < n; k++) {
        double d = elem_diff(rt->type, rt->esize, x, y, k);
        worst = d > worst ? d : worst;
    }
    return worst;
}

/* The real routine into the saved copy; returns the largest difference
 * from what the engine wrote.  Collective like the real routine. */
static double verify_run(const cs_shim_call_t *g, cs_front_verify_t *v)
{
    cs_shim_call_t h = *g;
    if (v->copy) {
        h.b = v->copy;
    }
    cs_front_verifying = 1;
    cs_shim_call_real(&h);
    cs_front_verifying = 0;
    return v->copy ? max_diff(g->routine, g->b, v->copy, v->elems) : 0.0;
}

/* The configuration's routing, else the family's routine (with the target
 * saved first when verifying). */
static void route(const cs_shim_call_t *g, const cs_config_t *cfg,
                  cs_shim_serve_fn serve, cs_shim_arrive_fn arrive,
                  cs_shim_record_t *rec, cs_shim_trace_t *tr,
                  cs_front_verify_t *v)
{
    const char *name = cs_shim_routines[g->routine].lower;
    if (cfg->fallback == CS_CFG_FALLBACK_ALWAYS) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_ALWAYS;
        rec->t_wait = arrive(g);
    } else if (!cs_cfg_routine_enabled(cfg, name)) {
        rec->path = CS_SHIM_PATH_PASSTHROUGH;
        rec->reason = CS_SHIM_REASON_ROUTINE_OFF;
    } else if (g->m > 0 && g->n > 0 &&
               (int64_t)g->m * g->n < cfg->min_elems) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_SMALL;
    } else {
        tr->verify_ready = cfg->verify && verify_save(g, v);
        serve(g, cfg, rec, tr);
    }
}

double cs_shim_arrive_barrier(int ctxt)
{
    MPI_Comm comm;
    double t0 = cs_shim_now();
    if (cs_shim_ctxt_comm(ctxt, &comm) != CS_OK) {
        return 0.0; /* agreed on every rank: the real routine just runs */
    }
    MPI_Barrier(comm);
    return cs_shim_now() - t0;
}

void cs_shim_front(const cs_shim_call_t *g, cs_shim_serve_fn serve,
                   cs_shim_arrive_fn arrive)
{
    const cs_config_t *cfg = cs_cfg_get();
    cs_shim_record_t rec = {.routine = g->routine,
                            .spelling = g->spelling,
                            .path = CS_SHIM_PATH_ENGINE,
                            .reason = CS_SHIM_REASON_NONE,
                            .relabel_cross = -1,
                            .relabel_best = -1,
                            .relabel_net = -1,
                            .relabel_net_plain = -1,
                            .relabel_net_node = -1};
    if (cfg->disable || !cs_shim_is_enabled()) {
        cs_shim_call_real(g);
        return;
    }
    if (cs_shim_depth > 0) {
        rec.path = CS_SHIM_PATH_NESTED;
        rec.reason = CS_SHIM_REASON_NESTED;
        cs_shim_call_real(g);
        if (!cs_front_verifying) {
            cs_shim_stats_record(&rec);
        }
        return;
    }
    cs_shim_trace_t tr = {.args = g};
    double t0 = cs_shim_now();
    cs_shim_depth++;
    int up = 0, down = 0;
    int mine = cs_shim_mpi_ok(); /* before any MPI call */
    if (mine) {
        MPI_Initialized(&up);
        MPI_Finalized(&down);
    } else {
        cs_shim_init_inert();
    }
    if (!mine || !up || down) {
        rec.path = mine ? CS_SHIM_PATH_FALLBACK : CS_SHIM_PATH_PASSTHROUGH;
        rec.reason = mine ? CS_SHIM_REASON_MPI_NOT_READY
                          : CS_SHIM_REASON_MPI_MISMATCH;
        cs_shim_call_real(g);
        cs_shim_depth--;
        rec.t = cs_shim_now() - t0;
        cs_shim_stats_record(&rec);
        return;
    }
    cs_shim_init_once();
    int single = !cs_shim_thread_multiple();
    if (single) {
        enter_alone(g);
    }
    cs_front_verify_t v = {NULL, 0};
    route(g, cfg, serve, arrive, &rec, &tr, &v);
    /* a product left to PBLAS because PBLAS is faster is a choice, not a
     * call the engine could not take */
    if (rec.path == CS_SHIM_PATH_FALLBACK &&
        rec.reason != CS_SHIM_REASON_NATIVE_FASTER &&
        cfg->fallback == CS_CFG_FALLBACK_NEVER) {
        cs_shim_fatal("%s: the engine did not take this call (reason %s) "
                      "and COSTA_SHIM_FALLBACK=never",
                      cs_shim_routines[g->routine].lower,
                      cs_shim_reason_str(rec.reason));
    }
    if (rec.path != CS_SHIM_PATH_ENGINE && rec.path != CS_SHIM_PATH_NONE) {
        cs_shim_call_real(g);
    }
    rec.t = cs_shim_now() - t0; /* the check below is not the call's time */
    if (tr.done) {
        tr.done(tr.done_ctx, &rec);
    }
    if (tr.verify_go && rec.path == CS_SHIM_PATH_ENGINE) {
        tr.maxdiff = verify_run(g, &v);
        tr.verified = v.copy != NULL;
    }
    free(v.copy);
    if (single) {
        atomic_store(&cs_front_active, -1);
    }
    cs_shim_depth--;
    cs_shim_stats_record_call(&rec, g, &tr);
    cs_shim_trace_call(cfg, &rec, &tr);
}
