/*
 * shim/shim_redist.c - serving p?gemr2d and p?trmr2d: descriptors to
 * layouts, the collective engine-or-fallback decision, and the call of the
 * engine.
 *
 * The decision (docs/design.md, "A call, step by step"): every process of
 * the global context reports its own view (membership and coordinates in A
 * and B, A's and B's parameters, local problems) on the context's private
 * communicator (shim_redist_table.c: its shared part rides in the call's
 * first agreement, then a gather of two positions per process unless
 * every rank holds that same table from an earlier call), and every
 * process then evaluates the same deterministic rules on the same table,
 * prepares its plan and agrees once more (shim_decide_int.h), so all take
 * the same path before anything is sent.  Input ScaLAPACK rejects goes to the real routine
 * (the user sees ScaLAPACK's own message); input on which ScaLAPACK would
 * crash or corrupt memory stops with a costa-shim message instead.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_call_int.h"
#include "shim/shim_decide_int.h"
#include "shim/shim_disagree_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_plan_cache_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"
#include "shim/shim_redist_int.h"
#include "shim/relabel/relabel_int.h"
#include "shim/shim_trace_int.h"

#include <mpi.h>

/* Bytes of sub(A) from which a p?trmr2d call may grow the shared send
 * buffer (below, its second reduction would cost more than the buffer
 * saves: about 0.09 ms per MiB). */
#define CS_SHIM_TRMR_SHM_BYTES ((int64_t)4 << 20)


/* ------------------------------------------------------------ the table */

/* The table's fields: shim_redist_int.h. */

static int64_t imin(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* Elements of [lo, lo + len) owned by coordinate p of a block-cyclic
 * dimension (all arguments valid). */
static int64_t owned_in_range(int64_t n, int64_t nb, int src, int nprocs,
                              int p, int64_t lo, int64_t len)
{
    cs_eng_dist_t d;
    if (len <= 0 || cs_eng_dist_cyclic(n, nb, nb, src, nprocs, &d) != CS_OK) {
        return 0;
    }
    cs_eng_dist_t hi = d, lod = d;
    hi.n = imin(lo + len, n);
    lod.n = lo;
    return cs_eng_dist_local_size(&hi, p) - cs_eng_dist_local_size(&lod, p);
}

/* Fill this process's entries for matrix X (0 = A, 1 = B); stamp: look
 * up the grid's stamp (relabeling on). */
static void fill_matrix(int *row, int x, const cs_fint *desc, int i, int j,
                        int m, int n, const void *ptr, int stamp)
{
    int *f = row + F_X0 + x * F_XN;
    int p, q, r, c;
    cs_shim_gridinfo(desc[1], &p, &q, &r, &c);
    f[X_IN] = p >= 1 && r >= 0 && r < p && c >= 0 && c < q;
    f[X_STAMP] = -1;
    if (!f[X_IN]) {
        return;
    }
    if (stamp) {
        f[X_STAMP] = cs_shim_grids_stamp(desc[1]);
    }
    f[X_P] = p;
    f[X_Q] = q;
    f[X_R] = r;
    f[X_C] = c;
    f[X_M] = desc[2];
    f[X_N] = desc[3];
    f[X_MB] = desc[4];
    f[X_NB] = desc[5];
    f[X_RSRC] = desc[6];
    f[X_CSRC] = desc[7];
    f[X_I] = i;
    f[X_J] = j;
    int lld = desc[8];
    /* the local checks need sane parameters; others are judged globally */
    if (desc[4] < 1 || desc[5] < 1 || desc[6] < 0 || desc[6] >= p ||
        desc[7] < 0 || desc[7] >= q || desc[2] < 0 || desc[3] < 0) {
        return;
    }
    int64_t lrows = owned_in_range(desc[2], desc[4], desc[6], p, r, 0,
                                   desc[2]);
    if (lrows > lld) {
        row[F_LOCAL] |= x ? L_LLD_B : L_LLD_A;
    }
    if (!ptr && m > 0 && n > 0 &&
        owned_in_range(desc[2], desc[4], desc[6], p, r, i - 1, m) > 0 &&
        owned_in_range(desc[3], desc[5], desc[7], q, c, j - 1, n) > 0) {
        row[F_LOCAL] |= x ? L_NULL_B : L_NULL_A;
    }
}

/* Names of a matrix's table fields in messages ("DESCA(NB_)", "IA"). */
static const char *field_name(int x, int e, char *buf, size_t len)
{
    static const char *const desc[F_XN] = {
        [X_P] = "CTXT_ (its grid's rows)", [X_Q] = "CTXT_ (its grid's columns)",
        [X_M] = "M_", [X_N] = "N_", [X_MB] = "MB_", [X_NB] = "NB_",
        [X_RSRC] = "RSRC_", [X_CSRC] = "CSRC_"};
    if (e == X_I || e == X_J) {
        snprintf(buf, len, "%s%s", e == X_I ? "I" : "J", x ? "B" : "A");
    } else {
        snprintf(buf, len, "DESC%s(%s)", x ? "B" : "A",
                 desc[e] ? desc[e] : "?");
    }
    return buf;
}

/* What every process concludes from the table. */
typedef enum { D_ENGINE, D_FALLBACK, D_NOMEM, D_FATAL } decision_t;

typedef struct {
    int p, q;          /* grid shape */
    int *rank;         /* p * q ranks in the private communicator */
    const int *f;      /* parameters, from one member */
    int m, n;          /* the smallest matrix size of the members */
} grid_t;

/* Check matrix X across the table and build its rank map.  Returns
 * D_ENGINE when usable, else the decision and a message. */
static decision_t check_matrix(const int *tab, int np, int x, grid_t *gr,
                               char *msg, size_t len)
{
    const char *nm = x ? "B" : "A";
    const int *first = NULL;
    for (int k = 0; k < np && !first; k++) {
        if (tab[k * F_NINFO + F_X0 + x * F_XN + X_IN]) {
            first = tab + k * F_NINFO + F_X0 + x * F_XN;
        }
    }
    if (!first) { /* ScaLAPACK: "something wrong in the parameters" */
        snprintf(msg, len, "no process of the global context is in %s's grid",
                 nm);
        return D_FALLBACK;
    }
    gr->p = first[X_P];
    gr->q = first[X_Q];
    gr->f = first;
    if ((int64_t)gr->p * gr->q > np) {
        snprintf(msg, len,
                 "%s's grid (%dx%d) has more processes than the global "
                 "context (%d): ICTXT must contain every process of DESC%s's "
                 "grid",
                 nm, gr->p, gr->q, np, nm);
        return D_FATAL;
    }
    gr->rank = malloc((size_t)gr->p * (size_t)gr->q * sizeof(int));
    if (!gr->rank) {
        return D_NOMEM; /* this rank only: agreed as a memory fallback */
    }
    for (int k = 0; k < gr->p * gr->q; k++) {
        gr->rank[k] = -1;
    }
    int members = 0;
    for (int k = 0; k < np; k++) {
        const int *f = tab + k * F_NINFO + F_X0 + x * F_XN;
        if (!f[X_IN]) {
            continue;
        }
        /* members must agree on everything ScaLAPACK exchanges but the
         * matrix size (the stamp is ours: a member that did not record the
         * grid has -1).  RATIONALE: each process uses its own copy, so a
         * disagreement makes ScaLAPACK copy to the wrong places, divide by
         * zero or abort with a truncated message: stop and say which. */
        for (int e = X_P; e < F_XN; e++) {
            if (e == X_R || e == X_C || e == X_STAMP || e == X_M ||
                e == X_N || f[e] == first[e]) {
                continue;
            }
            char fld[64], vals[256];
            cs_shim_disagree_str(tab, np, F_NINFO, F_X0 + x * F_XN + e,
                                 F_X0 + x * F_XN + X_IN, F_WRANK, 0, vals,
                                 sizeof(vals));
            snprintf(msg, len,
                     "the processes of %s's grid disagree on %s: %s (every "
                     "process must pass the same value; ScaLAPACK would "
                     "copy wrongly or crash)",
                     nm, field_name(x, e, fld, sizeof(fld)), vals);
            return D_FATAL;
        }
        int *slot = &gr->rank[f[X_R] * gr->q + f[X_C]];
        if (*slot >= 0) {
            snprintf(msg, len,
                     "world ranks %d and %d both claim position (%d,%d) of "
                     "%s's grid: DESC%s(CTXT_) names different grids",
                     tab[*slot * F_NINFO + F_WRANK], tab[k * F_NINFO + F_WRANK],
                     f[X_R], f[X_C], nm, nm);
            return D_FATAL;
        }
        *slot = k;
        members++;
    }
    if (members != gr->p * gr->q) {
        snprintf(msg, len,
                 "ICTXT does not contain every process of DESC%s's grid "
                 "(%d of %d); ScaLAPACK would corrupt memory",
                 nm, members, gr->p * gr->q);
        return D_FATAL;
    }
    /* what ScaLAPACK reports itself: let it */
    if (first[X_RSRC] < 0 || first[X_RSRC] >= gr->p || first[X_CSRC] < 0 ||
        first[X_CSRC] >= gr->q) {
        snprintf(msg, len, "bad RSRC/CSRC in DESC%s", nm);
        return D_FALLBACK;
    }
    /* A different matrix size on some member does not matter as long as
     * sub(X) lies inside every member's matrix: the layout uses the
     * smallest (gr->m, gr->n). */
    int m = tab[F_M], n = tab[F_N];
    gr->m = first[X_M];
    gr->n = first[X_N];
    for (int k = 0; k < np; k++) {
        const int *f = tab + k * F_NINFO + F_X0 + x * F_XN;
        if (!f[X_IN]) {
            continue;
        }
        gr->m = f[X_M] < gr->m ? f[X_M] : gr->m;
        gr->n = f[X_N] < gr->n ? f[X_N] : gr->n;
        if (first[X_I] < 1 || first[X_J] < 1 ||
            (m > 0 && (int64_t)first[X_I] - 1 + m > f[X_M]) ||
            (n > 0 && (int64_t)first[X_J] - 1 + n > f[X_N])) {
            snprintf(msg, len, "sub(%s) outside the matrix", nm);
            return D_FALLBACK;
        }
    }
    /* ScaLAPACK divides by the block sizes even on a 1 x Q grid
     * [probed: MB_ = 0 on a 1x2 grid raises SIGFPE] */
    if (first[X_MB] < 1 || first[X_NB] < 1) {
        snprintf(msg, len,
                 "DESC%s(%s) = %d must be >= 1 (ScaLAPACK would divide by "
                 "zero)",
                 nm, first[X_MB] < 1 ? "MB_" : "NB_",
                 first[X_MB] < 1 ? first[X_MB] : first[X_NB]);
        return D_FATAL;
    }
    return D_ENGINE;
}

static decision_t decide(const int *tab, int np, grid_t *ga, grid_t *gb,
                         char *msg, size_t len)
{
    static const int args[3] = {F_M, F_N, F_ROUTINE};
    static const char *const arg_names[3] = {"M", "N", "the routine"};
    for (int a = 0; a < 3; a++) {
        for (int k = 1; k < np; k++) {
            if (tab[k * F_NINFO + args[a]] == tab[args[a]]) {
                continue;
            }
            char vals[256];
            cs_shim_disagree_str(tab, np, F_NINFO, args[a], -1, F_WRANK,
                                 args[a] == F_ROUTINE, vals, sizeof(vals));
            snprintf(msg, len,
                     "the processes of ICTXT disagree on %s: %s (every "
                     "process must make the same call; ScaLAPACK would "
                     "hang or copy wrongly)",
                     arg_names[a], vals);
            return D_FATAL;
        }
    }
    decision_t d = check_matrix(tab, np, 0, ga, msg, len);
    if (d == D_ENGINE) {
        d = check_matrix(tab, np, 1, gb, msg, len);
    }
    if (d != D_ENGINE) {
        return d;
    }
    for (int k = 0; k < np; k++) {
        int l = tab[k * F_NINFO + F_LOCAL];
        if (l & (L_LLD_A | L_LLD_B)) {
            snprintf(msg, len, "LLD too small on some process");
            return D_FALLBACK;
        }
        if (l & (L_NULL_A | L_NULL_B)) {
            snprintf(msg, len,
                     "%s is a NULL pointer on rank %d of the global context, "
                     "which owns part of sub(%s)",
                     (l & L_NULL_A) ? "A" : "B", k,
                     (l & L_NULL_A) ? "A" : "B");
            return D_FATAL;
        }
    }
    /* [observed: this ScaLAPACK prints "xxmr2d:out of memory" and exits
     * with status 2]: whatever it does, it does it itself */
    if (tab[F_M] < 0 || tab[F_N] < 0) {
        snprintf(msg, len, "M < 0 or N < 0");
        return D_FALLBACK;
    }
    return D_ENGINE;
}

/* ------------------------------------------------------------ engine */

static void build_layout(const grid_t *gr, int lld, cs_eng_layout_t *l)
{
    const int *f = gr->f;
    memset(l, 0, sizeof(*l));
    cs_eng_dist_cyclic(gr->m, f[X_MB], f[X_MB], f[X_RSRC], gr->p, &l->rows);
    cs_eng_dist_cyclic(gr->n, f[X_NB], f[X_NB], f[X_CSRC], gr->q, &l->cols);
    l->nprow = gr->p;
    l->npcol = gr->q;
    l->grid = gr->rank;
    l->ld = lld > 0 ? lld : 1;
    l->order = CS_ENG_COLMAJOR;
}

/* The stamp of matrix X's grid: the largest its members report (a member
 * that did not record the grid reports -1). */
static int grid_stamp(const int *tab, int np, int x)
{
    int stamp = -1;
    for (int k = 0; k < np; k++) {
        const int *f = tab + k * F_NINFO + F_X0 + x * F_XN;
        if (f[X_IN] && f[X_STAMP] > stamp) {
            stamp = f[X_STAMP];
        }
    }
    return stamp;
}

/* Describe a grid's process order for the trace: R, C or M (mapped). */
static void grid_str(const int *tab, const grid_t *gr, char *buf, size_t len)
{
    int row = 1, col = 1;
    int base = tab[gr->rank[0] * F_NINFO + F_WRANK];
    for (int r = 0; r < gr->p; r++) {
        for (int c = 0; c < gr->q; c++) {
            int w = tab[gr->rank[r * gr->q + c] * F_NINFO + F_WRANK];
            row &= w == base + r * gr->q + c;
            col &= w == base + c * gr->p + r;
        }
    }
    snprintf(buf, len, "%dx%d%c", gr->p, gr->q,
             row ? 'R' : col ? 'C' : 'M');
}

/*
 * p?trmr2d's trapezoid (ScaLAPACK's own rule, as its TRMR2D writes it, not
 * LAPACK's): with (i, j) 0-based in the m x n sub-matrix, UPLO 'U' copies
 * i <= j + max(0, m - n) - unit, anything else i >= j - max(0, n - m) +
 * unit; unit means "skip the diagonal": for 'U' every DIAG but 'N'/'n',
 * for lower only 'U'/'u'.
 */
static void trapezoid(const cs_shim_call_t *g, cs_eng_op_t *op)
{
    char u = g->uplo[0], d = g->diag[0];
    int64_t m = g->m, n = g->n;
    if (u == 'U' || u == 'u') {
        int unit = !(d == 'N' || d == 'n');
        op->mask = CS_ENG_MASK_UPPER;
        op->mask_k = (m > n ? m - n : 0) - unit;
    } else {
        int unit = d == 'U' || d == 'u';
        op->mask = CS_ENG_MASK_LOWER;
        op->mask_k = -(n > m ? n - m : 0) + unit;
    }
}

/* The plan key besides the table: leading dimensions (as the layouts get
 * them) and the trapezoid. */
typedef struct {
    cs_shim_rt_t *t;
    int64_t key[4];
} keep_ctx_t;

static int keep_plan(void *ctx, cs_eng_plan_t *plan)
{
    keep_ctx_t *k = ctx;
    return k->t->key && cs_shim_plan_cache_put(k->t->key, k->t->nkey, 0,
                                               k->key, plan, K_PRIV,
                                               cs_shim_mem_fits);
}

/* This rank's wish for the shared send buffer.  RATIONALE: a large
 * p?trmr2d (the trapezoid: packages the shared send buffer takes) may
 * grow that buffer; a plain copy is not worth its page faults. */
static void wish_shm(cs_shim_job_t *j, const cs_shim_call_t *g,
                     const cs_eng_op_t *op, const cs_config_t *cfg)
{
    int64_t bytes =
        (int64_t)g->m * g->n * (int64_t)cs_shim_routines[g->routine].esize;
    if (op->mask != CS_ENG_MASK_NONE && bytes >= CS_SHIM_TRMR_SHM_BYTES) {
        cs_shim_job_wish_shm(j, cfg);
    }
}

/*
 * The decision on the table, layouts, trace grids and relabeling
 * observation; then, when j is given, this rank's plan for the call,
 * reserved.  Returns the table's verdict (engine, invalid: ScaLAPACK's own
 * message; fatal, with msg; nomem: this rank could not rebuild the
 * table).  Local.
 */
static cs_shim_verdict_t decide_and_plan(const cs_config_t *cfg,
                                         cs_shim_rt_t *t, const keep_ctx_t *kc,
                                         const cs_eng_op_t *op,
                                         cs_shim_job_t *j, MPI_Comm comm,
                                         cs_shim_record_t *rec,
                                         cs_shim_trace_t *tr, char *msg,
                                         size_t len)
{
    grid_t ga = {0}, gb = {0};
    if (cs_shim_rt_expand(t, comm) != CS_OK) {
        return CS_SHIM_V_NOMEM;
    }
    decision_t d = decide(t->tab, t->np, &ga, &gb, msg, len);
    if (d == D_ENGINE) {
        grid_str(t->tab, &ga, tr->grid_a, sizeof(tr->grid_a));
        grid_str(t->tab, &gb, tr->grid_b, sizeof(tr->grid_b));
        if (t->key) {
            /* kept with the plan, for the trace of repeated calls */
            memcpy(t->key + K_GRID_A, tr->grid_a, sizeof(tr->grid_a));
            memcpy(t->key + K_GRID_B, tr->grid_b, sizeof(tr->grid_b));
        }
        cs_eng_layout_t la, lb;
        build_layout(&ga, (int)kc->key[0], &la);
        build_layout(&gb, (int)kc->key[1], &lb);
        if (cfg->relabel != CS_CFG_RELABEL_OFF) {
            cs_shim_relabel_observe(&la, &lb, op, comm,
                                    grid_stamp(t->tab, t->np, 0),
                                    grid_stamp(t->tab, t->np, 1), rec);
        }
        cs_eng_plan_t *plan =
            j && t->key ? cs_shim_plan_cache_get(t->key, t->nkey, 0, kc->key)
                        : NULL;
        if (plan) {
            cs_shim_job_reuse(j, plan);
        } else if (j) {
            cs_shim_job_plan(j, &la, &lb, op, t->me, cfg);
        }
    }
    free(ga.rank);
    free(gb.rank);
    return d == D_ENGINE     ? CS_SHIM_V_ENGINE
           : d == D_NOMEM    ? CS_SHIM_V_NOMEM
           : d == D_FALLBACK ? CS_SHIM_V_INVALID
                             : CS_SHIM_V_FATAL;
}

/* Classify, agree, prepare, commit, execute (shim_decide_int.h).  Fills
 * rec and trace; on a fallback the caller runs the real routine. */
static void serve(const cs_shim_call_t *g, const cs_config_t *cfg,
                  cs_shim_record_t *rec, cs_shim_trace_t *tr)
{
    const char *name = cs_shim_routines[g->routine].lower;
    if (g->m == 0 || g->n == 0) {
        /* ScaLAPACK returns at once, reading nothing: so do we */
        rec->path = CS_SHIM_PATH_NONE;
        rec->reason = CS_SHIM_REASON_NO_WORK;
        return;
    }
    int pr, pc, myr, myc;
    cs_shim_gridinfo(g->ictxt, &pr, &pc, &myr, &myc);
    if (pr < 1 || myr < 0 || myr >= pr || myc < 0 || myc >= pc) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_CTXT_NEG1;
        return;
    }
    MPI_Comm comm;
    double t0 = cs_shim_now();
    cs_status_t cst = cs_shim_ctxt_comm(g->ictxt, &comm);
    rec->t_wait = cs_shim_now() - t0; /* MPI_Comm_dup on a first call */
    if (cst != CS_OK) {
        /* the same on every process of the context */
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_MEMORY;
        return;
    }
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    int row[F_NINFO];
    memset(row, 0, sizeof(row));
    row[F_M] = g->m;
    row[F_N] = g->n;
    row[F_ROUTINE] = g->routine;
    row[F_WRANK] = cs_shim_world_rank();
    int relabel = cfg->relabel != CS_CFG_RELABEL_OFF;
    fill_matrix(row, 0, g->desca, g->ia, g->ja, g->m, g->n, g->a, relabel);
    fill_matrix(row, 1, g->descb, g->ib, g->jb, g->m, g->n, g->b, relabel);
    cs_eng_op_t op = cs_shim_eng_op(g); /* a bit-exact copy */
    if (g->uplo) {
        trapezoid(g, &op);
    }
    cs_shim_rt_t t;
    keep_ctx_t kc = {&t,
                     {g->desca[1] >= 0 && g->desca[8] > 0 ? g->desca[8] : 1,
                      g->descb[1] >= 0 && g->descb[8] > 0 ? g->descb[8] : 1,
                      op.mask, op.mask_k}};
    cs_shim_job_t j;
    cs_shim_job_init(&j, name, comm, cfg, tr);
    j.mine.relabel = relabel;

    /* prepare what a settled table needs: its cached plan, reserved */
    if (cs_shim_rt_prepare(&t, row, np, me) != CS_OK) {
        cs_shim_job_refuse(&j, CS_SHIM_V_NOMEM);
    }
    cs_eng_plan_t *plan =
        t.proposed ? cs_shim_plan_cache_get(t.key, t.nkey, 0, kc.key) : NULL;
    j.mine.unsettled = !t.proposed;
    j.mine.unprepared = plan == NULL;
    if (t.proposed) {
        cs_shim_job_identity(&j, NULL, 0, t.digest);
    }
    if (plan) {
        cs_shim_job_reuse(&j, plan);
        wish_shm(&j, g, &op, cfg);
    }

    /* the first agreement: settles a table every rank holds, else
     * carries what the gather does not need to (a fixed count for a given
     * number of processes, also where the buffers are missing) */
    int64_t mine[CS_SHIM_RT_EXTRA_MAX], all[CS_SHIM_RT_EXTRA_MAX];
    int nx = cs_shim_rt_extra(&t, row, mine);
    rec->t_wait += cs_shim_job_agree(&j, mine, all, nx);
    char msg[512] = "";
    if (cs_shim_rt_settle(&t, all, cs_shim_job_same_identity(&j),
                          (int)j.all.unsettled)) {
        /* RATIONALE: a repeated call: its table went to the engine
         * before, so it needs no gather, in O(1) whatever the number of
         * processes; where every rank holds its plan too, the one
         * agreement decided it */
        tr->table = "cached";
        memcpy(tr->grid_a, t.key + K_GRID_A, sizeof(tr->grid_a));
        memcpy(tr->grid_b, t.key + K_GRID_B, sizeof(tr->grid_b));
        if (j.all.unprepared) {
            /* some rank builds its plan (another leading dimension):
             * agree again on what every rank prepared */
            if (!plan) {
                cs_shim_job_refuse(&j, decide_and_plan(cfg, &t, &kc, &op, &j,
                                                       comm, rec, tr, msg,
                                                       sizeof(msg)));
                wish_shm(&j, g, &op, cfg);
            }
            cs_shim_job_agree(&j, NULL, NULL, 0);
        }
        if (relabel && plan && j.all.verdict == CS_SHIM_V_ENGINE) {
            decide_and_plan(cfg, &t, &kc, &op, NULL, comm, rec, tr, msg,
                            sizeof(msg));
        }
    } else {
        /* a new table (or some rank without the exchange's buffers:
         * nobody gathers): decide, prepare, and agree on what was
         * prepared */
        int nomem = j.all.verdict >= CS_SHIM_V_NOMEM;
        cs_shim_job_free(&j);
        cs_shim_job_init(&j, name, comm, cfg, tr);
        if (nomem || cs_shim_rt_gather(&t, row, all, comm) != CS_OK) {
            j.all = j.mine;
            j.all.verdict = CS_SHIM_V_NOMEM;
        } else {
            tr->table = "gathered";
            cs_shim_job_refuse(&j, decide_and_plan(cfg, &t, &kc, &op, &j,
                                                   comm, rec, tr, msg,
                                                   sizeof(msg)));
            wish_shm(&j, g, &op, cfg);
            cs_shim_job_agree(&j, NULL, NULL, 0);
        }
    }
    if (j.all.verdict == CS_SHIM_V_FATAL) {
        cs_shim_fatal("%s: %s", name,
                      msg[0] ? msg
                             : "another process found the call's arguments "
                               "inconsistent (see its message)");
    }
    if (j.all.verdict == CS_SHIM_V_INVALID) {
        cs_log_info("%s: forwarded to ScaLAPACK: %s", name, msg);
    }
    cs_shim_job_run(&j, keep_plan, &kc, g->a, g->b, rec, tr);
    cs_shim_rt_free(&t);
}

/* The arrival barrier of a measure-only call: over ICTXT, unless the
 * real routine returns at once (m or n is 0) or this process is outside
 * ICTXT's grid (it takes no part). */
static double arrive(const cs_shim_call_t *g)
{
    int pr, pc, myr, myc;
    if (g->m <= 0 || g->n <= 0) {
        return 0.0;
    }
    cs_shim_gridinfo(g->ictxt, &pr, &pc, &myr, &myc);
    if (pr < 1 || myr < 0 || myr >= pr || myc < 0 || myc >= pc) {
        return 0.0;
    }
    return cs_shim_arrive_barrier(g->ictxt);
}

void cs_shim_redist(const cs_shim_call_t *g)
{
    cs_shim_front(g, serve, arrive);
}
