/*
 * shim/shim_grids.c - the BLACS grid creation interposers
 * (Cblacs_gridinit, Cblacs_gridmap, blacs_gridinit_, blacs_gridmap_,
 * Cblacs_gridexit, blacs_gridexit_) for COSTA_SHIM_RELABEL: they record
 * every creation in the grid registry (shim_grid_registry.c) and, in
 * apply mode, create the grid with the planned map (shim/relabel/relabel_int.h,
 * docs/relabel.md).
 *
 * With COSTA_SHIM_RELABEL=off (the default), inside an intercepted
 * ScaLAPACK routine (its own temporary grids), or while the shim is
 * disabled, every function only forwards to the real one found with
 * dlsym(RTLD_NEXT): no MPI call, no state.  The library exports these
 * names, but an application not linked with BLACS never calls them.
 *
 * With report or apply, every process of a creation records the grid:
 * creation number here, shape, order, map in world ranks, and the stamp
 * that names it world-wide (shim_grid_registry_int.h).  The stamp comes
 * from one MPI_Allreduce on a duplicate of the system communicator,
 * collective exactly where BLACS's own MPI_Comm_create is.  In apply mode
 * the same reduction carries the map the grid's members found in the
 * plan, so the other processes of the system communicator (which BLACS
 * needs to pass the same map) learn it and all check that the members
 * agree; the grid is then created with Cblacs_gridmap and that map.  The
 * map only decides which process plays which grid position; BLACS builds
 * the grid as usual.
 *
 * RATIONALE: the real Cblacs_gridinit calls Cblacs_gridmap through the PLT,
 * i.e. back into this file: a thread-local depth makes such inner calls
 * plain forwards.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/shim_init_int.h"
#include "shim/shim_mpi_int.h"
#include "shim/shim_process_int.h"
#include "shim/relabel/relabel_int.h"
#include "shim/shim_sym_int.h"

#include <mpi.h>

static __thread int cs_grid_depth;

/* ------------------------------------------------------------ real ones */

typedef void (*c_init_fn)(int *, const char *, int, int);
typedef void (*c_map_fn)(int *, int *, int, int, int);
typedef void (*c_exit_fn)(int);
typedef void (*f_init_fn)(int *, const char *, const int *, const int *,
                          size_t);
typedef void (*f_map_fn)(int *, int *, const int *, const int *,
                         const int *);
typedef void (*f_exit_fn)(const int *);
typedef MPI_Comm (*b2s_fn)(int);

enum { R_C_INIT, R_C_MAP, R_C_EXIT, R_F_INIT, R_F_MAP, R_F_EXIT, R_B2S, R_N };
static const char *const cs_grid_names[R_N] = {
    "Cblacs_gridinit", "Cblacs_gridmap",  "Cblacs_gridexit",
    "blacs_gridinit_", "blacs_gridmap_", "blacs_gridexit_",
    "Cblacs2sys_handle"};
static _Atomic(void *) cs_grid_real[R_N];

static void *real_fn(int which)
{
    void *p = atomic_load(&cs_grid_real[which]);
    if (!p) {
        /* Cblacs2sys_handle is not ours: any definition will do */
        p = which == R_B2S ? cs_shim_sym_any(cs_grid_names[which])
                           : cs_shim_sym_next(cs_grid_names[which]);
        if (!p) {
            cs_shim_fatal("cannot find the real BLACS function %s after "
                          "the shim; is the application linked with "
                          "ScaLAPACK?",
                          cs_grid_names[which]);
        }
        atomic_store(&cs_grid_real[which], p);
    }
    return p;
}

static void real_c_init(int *ctxt, const char *order, int p, int q)
{
    void *v = real_fn(R_C_INIT);
    c_init_fn f;
    memcpy(&f, &v, sizeof(f));
    cs_grid_depth++;
    f(ctxt, order, p, q);
    cs_grid_depth--;
}

static void real_c_map(int *ctxt, int *map, int ldu, int p, int q)
{
    void *v = real_fn(R_C_MAP);
    c_map_fn f;
    memcpy(&f, &v, sizeof(f));
    cs_grid_depth++;
    f(ctxt, map, ldu, p, q);
    cs_grid_depth--;
}

static void real_f_init(int *ctxt, const char *order, const int *p,
                        const int *q, size_t len)
{
    void *v = real_fn(R_F_INIT);
    f_init_fn f;
    memcpy(&f, &v, sizeof(f));
    cs_grid_depth++;
    f(ctxt, order, p, q, len);
    cs_grid_depth--;
}

static void real_f_map(int *ctxt, int *map, const int *ldu, const int *p,
                       const int *q)
{
    void *v = real_fn(R_F_MAP);
    f_map_fn f;
    memcpy(&f, &v, sizeof(f));
    cs_grid_depth++;
    f(ctxt, map, ldu, p, q);
    cs_grid_depth--;
}

/* ------------------------------------------------------------ creation */

/* Whether this call takes part in relabeling: mode on, not inside a
 * routine of ours or a grid call of ours, MPI up.  The configuration is
 * looked at first, so the default mode makes no MPI call. */
static int relabel_active(void)
{
    if (cs_grid_depth > 0 || cs_shim_depth > 0 || !cs_shim_is_enabled()) {
        return 0;
    }
    const cs_config_t *cfg = cs_cfg_get();
    if (cfg->disable || cfg->relabel == CS_CFG_RELABEL_OFF ||
        !cs_shim_mpi_ok()) {
        return 0;
    }
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    return up && !down;
}

/* One grid creation as the application asked for it. */
typedef struct {
    int fortran;
    int *ctxt;          /* in: system context; out: the grid's handle */
    int p, q;
    char order;         /* 'R', 'C' (gridinit) or 'M' (gridmap) */
    int *usermap;       /* 'M': BLACS's usermap, position (i, j) at
                           usermap[i + j * ldu] */
    int ldu;
    /* the caller's arguments, to forward unchanged */
    const char *order_arg;
    size_t order_len;
    const int *pp, *pq, *pldu;
} creation_t;

static void forward(const creation_t *c)
{
    if (c->order == 'M') {
        if (c->fortran) {
            real_f_map(c->ctxt, c->usermap, c->pldu, c->pp, c->pq);
        } else {
            real_c_map(c->ctxt, c->usermap, c->ldu, c->p, c->q);
        }
    } else if (c->fortran) {
        real_f_init(c->ctxt, c->order_arg, c->pp, c->pq, c->order_len);
    } else {
        real_c_init(c->ctxt, c->order_arg, c->p, c->q);
    }
}

/* The system communicator behind the creation's input context. */
static MPI_Comm system_comm(const creation_t *c)
{
    if (c->fortran) {
        return MPI_Comm_f2c((MPI_Fint)*c->ctxt);
    }
    void *v = real_fn(R_B2S);
    b2s_fn f;
    memcpy(&f, &v, sizeof(f));
    return f(*c->ctxt);
}

/* MPI_Allreduce(MPI_MAX) of v[0..n) over the processes of sys, on a
 * duplicate of it (no interference with the application's traffic). */
static void sync_max(MPI_Comm sys, int *v, int n)
{
    MPI_Comm dup;
    if (MPI_Comm_dup(sys, &dup) != MPI_SUCCESS) {
        cs_shim_fatal("relabel: cannot duplicate the system communicator "
                      "of a grid creation");
    }
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT, MPI_MAX, dup);
    MPI_Comm_free(&dup);
}

/* "0 2 1 3" (the first entries of a map) into buf. */
static void map_str(const int *map, int n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && o + 16 < len; i++) {
        o += (size_t)snprintf(buf + o, len - o, "%s%d", i ? " " : "",
                              map[i]);
        if (i == 31 && n > 32) {
            snprintf(buf + o, len - o, " ...");
            break;
        }
    }
}

/* Create the grid with the planned map (world ranks by position,
 * row-major), translated into ranks of the system communicator. */
static void create_mapped(const creation_t *c, MPI_Group sysg,
                          MPI_Group worldg, const int *planned)
{
    int n = c->p * c->q;
    int *sysr = malloc((size_t)n * sizeof(int));
    int *um = malloc((size_t)n * sizeof(int));
    if (!sysr || !um) {
        cs_shim_fatal("relabel: out of memory creating a %dx%d grid", c->p,
                      c->q);
    }
    MPI_Group_translate_ranks(worldg, n, planned, sysg, sysr);
    for (int r = 0; r < c->p; r++) {
        for (int col = 0; col < c->q; col++) {
            um[r + col * c->p] = sysr[r * c->q + col];
        }
    }
    if (c->fortran) {
        real_f_map(c->ctxt, um, &c->p, &c->p, &c->q);
    } else {
        real_c_map(c->ctxt, um, c->p, c->p, c->q);
    }
    free(um);
    free(sysr);
}

/*
 * The reduction of a creation (sync_max), laid out as
 *   [S_CLOCK]           the participants' clocks: the maximum is the stamp
 *   [S_IGNORED]         1 if a member ignores the plan (apply)
 *   [S_ENTRY], [S_NEG]  plan entry, negated plan entry (apply)
 *   [S_MAP ...]         n planned world ranks, then n negated ones (apply)
 * Members put their values, the other processes INT_MIN, so the maximum is
 * the members' value, and max(x) == -max(-x) exactly when all members
 * agree.
 */
enum { S_CLOCK, S_IGNORED, S_ENTRY, S_NEG, S_MAP };

/* Apply mode: what the members of the creation found in the plan (v after
 * sync_max).  Returns the agreed entry (-1: none) and writes the map to
 * create into planned; -2 when the plan is not used for this grid. */
static int agreed_entry(const int *v, int n, int speaker, int *planned)
{
    if (v[S_IGNORED]) {
        /* a member ignores the plan: so does everyone else here, quietly
         * (that member reports why) */
        cs_shim_relabel_plan_disable(NULL, speaker);
        return -2;
    }
    int agree = v[S_ENTRY] == -v[S_NEG];
    for (int i = 0; i < n && agree; i++) {
        agree = v[S_MAP + i] == -v[S_MAP + n + i];
    }
    if (!agree) {
        cs_shim_relabel_plan_disable(
            "the processes creating a grid disagree on its planned map (is "
            "the same plan file readable on every process?)",
            speaker);
        return -2;
    }
    memcpy(planned, v + S_MAP, (size_t)n * sizeof(int));
    return v[S_ENTRY];
}

static void create(creation_t *c)
{
    if (!relabel_active()) {
        forward(c);
        return;
    }
    cs_shim_init_once();
    const cs_config_t *cfg = cs_cfg_get();
    int apply = cfg->relabel == CS_CFG_RELABEL_APPLY;
    MPI_Comm sys = system_comm(c);
    int size = 0, me = -1;
    if (sys == MPI_COMM_NULL || MPI_Comm_size(sys, &size) != MPI_SUCCESS ||
        MPI_Comm_rank(sys, &me) != MPI_SUCCESS || c->p < 1 || c->q < 1 ||
        (int64_t)c->p * c->q > size ||
        (c->order == 'M' && (!c->usermap || c->ldu < c->p))) {
        forward(c); /* BLACS reports bad input itself */
        return;
    }
    int n = c->p * c->q;
    int nv = apply ? S_MAP + 2 * n : 1;
    int *sysmap = malloc((size_t)n * sizeof(int));
    int *app = malloc((size_t)n * sizeof(int));
    int *planned = malloc((size_t)n * sizeof(int));
    int *v = malloc((size_t)nv * sizeof(int));
    if (!sysmap || !app || !planned || !v) {
        cs_shim_fatal("relabel: out of memory creating a %dx%d grid", c->p,
                      c->q);
    }
    int valid = 1, lead = size;
    for (int r = 0; r < c->p; r++) {
        for (int col = 0; col < c->q; col++) {
            int s = c->order == 'M' ? c->usermap[r + col * c->ldu]
                    : c->order == 'C' ? col * c->p + r
                                      : r * c->q + col;
            valid &= s >= 0 && s < size;
            sysmap[r * c->q + col] = s;
            lead = s < lead ? s : lead;
        }
    }
    MPI_Group sysg, worldg;
    MPI_Comm_group(sys, &sysg);
    MPI_Comm_group(MPI_COMM_WORLD, &worldg);
    if (!valid) {
        forward(c); /* bad map: BLACS's message */
        goto out;
    }
    int zero = 0, zero_in_sys = MPI_UNDEFINED;
    MPI_Group_translate_ranks(worldg, 1, &zero, sysg, &zero_in_sys);
    MPI_Group_translate_ranks(sysg, n, sysmap, worldg, app);
    int wme = cs_shim_world_rank(), member = 0, owner = app[0];
    for (int i = 0; i < n; i++) {
        member |= app[i] == wme;
        owner = app[i] < owner ? app[i] : owner;
    }
    int index = cs_shim_grids_number(&v[S_CLOCK]);

    int entry = -1, found = 0;
    if (apply) {
        int st = member ? cs_shim_relabel_planned_map(
                              index, c->p, c->q, c->order, app,
                              zero_in_sys != MPI_UNDEFINED, me == lead,
                              &entry, planned)
                        : 0;
        found = st == 1;
        v[S_IGNORED] = st < 0;
        v[S_ENTRY] = member ? (found ? entry : -1) : INT_MIN;
        v[S_NEG] = member ? -v[S_ENTRY] : INT_MIN;
        for (int i = 0; i < n; i++) {
            int w = found ? planned[i] : app[i];
            v[S_MAP + i] = member ? w : INT_MIN;
            v[S_MAP + n + i] = member ? -w : INT_MIN;
        }
    }
    sync_max(sys, v, nv);
    int stamp = v[S_CLOCK];
    cs_shim_grids_clock_past(stamp);

    int relabel = 0;
    if (apply) {
        entry = agreed_entry(v, n, me == 0, planned);
        if (entry >= -1) {
            relabel = entry >= 0 &&
                      memcmp(planned, app, (size_t)n * sizeof(int)) != 0;
            cs_shim_relabel_plan_taken(entry, relabel);
        }
        if (relabel && me == 0) {
            char a[512], b[512];
            map_str(app, n, a, sizeof(a));
            map_str(planned, n, b, sizeof(b));
            cs_log_notice("relabel: grid #%d (%dx%d, order %c) created with "
                          "the planned process map: world ranks by position "
                          "(row-major) %s instead of %s",
                          entry, c->p, c->q, c->order, b, a);
        }
    }
    if (relabel) {
        create_mapped(c, sysg, worldg, planned);
    } else {
        forward(c);
    }
    cs_shim_grid_t g = {.index = index, .stamp = stamp, .owner = owner,
                        .member = member,
                        .p = c->p, .q = c->q, .order = c->order,
                        .relabeled = relabel,
                        .handle = member ? *c->ctxt : -1,
                        .app_map = app, .map = relabel ? planned : app};
    cs_shim_grids_record(&g);
out:
    MPI_Group_free(&sysg);
    MPI_Group_free(&worldg);
    free(v);
    free(planned);
    free(app);
    free(sysmap);
}

static char order_char(const char *order)
{
    /* BLACS: 'c' or 'C' is column-major, anything else row-major */
    return order && (order[0] == 'c' || order[0] == 'C') ? 'C' : 'R';
}

/* ------------------------------------------------------------ exports */

CS_EXPORT void Cblacs_gridinit(int *ctxt, const char *order, int nprow,
                               int npcol);
CS_EXPORT void Cblacs_gridinit(int *ctxt, const char *order, int nprow,
                               int npcol)
{
    creation_t c = {.fortran = 0, .ctxt = ctxt, .p = nprow, .q = npcol,
                    .order = order_char(order), .order_arg = order};
    create(&c);
}

CS_EXPORT void Cblacs_gridmap(int *ctxt, int *usermap, int ldu, int nprow,
                              int npcol);
CS_EXPORT void Cblacs_gridmap(int *ctxt, int *usermap, int ldu, int nprow,
                              int npcol)
{
    creation_t c = {.fortran = 0, .ctxt = ctxt, .p = nprow, .q = npcol,
                    .order = 'M', .usermap = usermap, .ldu = ldu};
    create(&c);
}

CS_EXPORT void blacs_gridinit_(int *ctxt, const char *order,
                               const int *nprow, const int *npcol,
                               size_t order_len);
CS_EXPORT void blacs_gridinit_(int *ctxt, const char *order,
                               const int *nprow, const int *npcol,
                               size_t order_len)
{
    creation_t c = {.fortran = 1, .ctxt = ctxt, .p = *nprow, .q = *npcol,
                    .order = order_char(order), .order_arg = order,
                    .order_len = order_len, .pp = nprow, .pq = npcol};
    create(&c);
}

CS_EXPORT void blacs_gridmap_(int *ctxt, int *usermap, const int *ldu,
                              const int *nprow, const int *npcol);
CS_EXPORT void blacs_gridmap_(int *ctxt, int *usermap, const int *ldu,
                              const int *nprow, const int *npcol)
{
    creation_t c = {.fortran = 1, .ctxt = ctxt, .p = *nprow, .q = *npcol,
                    .order = 'M', .usermap = usermap, .ldu = *ldu,
                    .pp = nprow, .pq = npcol, .pldu = ldu};
    create(&c);
}

/* Exits only forget the handle (BLACS recycles it); no MPI. */
static int forget_active(void)
{
    if (cs_grid_depth > 0 || cs_shim_depth > 0) {
        return 0;
    }
    return cs_cfg_get()->relabel != CS_CFG_RELABEL_OFF;
}

CS_EXPORT void Cblacs_gridexit(int ctxt);
CS_EXPORT void Cblacs_gridexit(int ctxt)
{
    if (forget_active()) {
        cs_shim_grids_forget(ctxt);
    }
    void *v = real_fn(R_C_EXIT);
    c_exit_fn f;
    memcpy(&f, &v, sizeof(f));
    cs_grid_depth++;
    f(ctxt);
    cs_grid_depth--;
}

CS_EXPORT void blacs_gridexit_(const int *ctxt);
CS_EXPORT void blacs_gridexit_(const int *ctxt)
{
    if (forget_active()) {
        cs_shim_grids_forget(*ctxt);
    }
    void *v = real_fn(R_F_EXIT);
    f_exit_fn f;
    memcpy(&f, &v, sizeof(f));
    cs_grid_depth++;
    f(ctxt);
    cs_grid_depth--;
}
