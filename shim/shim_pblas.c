/*
 * shim/shim_pblas.c - serving the PBLAS transpose-add family: p?tran,
 * p?tranu, p?tranc, p?geadd and p?tradd (docs/design.md, "The transpose
 * family").
 *
 * sub(C) := beta * sub(C) + alpha * op(sub(A)), A and C on the same
 * context.  Every process of the context is in the grid, so the rank of
 * grid cell (r, c) in the context's communicator is r * Q + c and no table
 * has to be exchanged.  Arguments are checked here as PBLAS checks them;
 * any call PBLAS would reject goes to the real routine, so the user gets
 * PBLAS's own INFO, message and PB_Cabort path (including a PB_Cabort the
 * program supplies).  The decision is the sequence of shim_decide_int.h:
 * one agreement, whose identity (the digests of the arguments every
 * process must pass alike, shim_pblas_agree.c) also finds out whether the
 * processes agree: where they do not, the call stops with a message.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_call_int.h"
#include "shim/shim_decide_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_operand_int.h"
#include "shim/shim_pblas_agree_int.h"
#include "shim/shim_plan_cache_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"
#include "shim/shim_trace_int.h"

#include <mpi.h>

/* Ints of a plan cache key (plan_key()). */
#define CS_SHIM_PB_KEY 43

/*
 * 1 when PBLAS forms sub(C) through a sum with zeros, which turns -0.0
 * into +0.0 (docs/design.md, "Replicated operands").  PBLAS works on
 * one-dimensional panels of C (columns: c_col, else rows) and of A
 * (a_col), each handed to PB_Cpaxpby (PB_Cptran, PB_Cpgeadd) or scattered
 * (PB_Cptradd).  When A's panel is distributed along its length but C's is
 * not (its source there is -1, or one process), PBLAS pads what a process
 * does not compute with zeros and sums the copies (Cgsum2d): over A's
 * processes when C is replicated across the panel too, else over C's
 * processes along it; a sum over one process adds nothing.  Checked
 * against Debian's PBLAS on 1 x 2, 2 x 1, 2 x 2, 2 x 3 and 3 x 2 grids for
 * every pattern of sources -1 (960 calls of tran and geadd 'N'/'T', wide
 * and tall), and by check 38 (tradd too).
 */
static int panels_sum(int c_col, int a_col, int p, int q, const cs_shim_operand_t *xa,
                      const cs_shim_operand_t *xc)
{
    int a_dist = a_col ? xa->rsrc >= 0 && p > 1 : xa->csrc >= 0 && q > 1;
    int c_dist = c_col ? xc->rsrc >= 0 && p > 1 : xc->csrc >= 0 && q > 1;
    int c_repl = c_col ? xc->csrc < 0 || q == 1 : xc->rsrc < 0 || p == 1;
    int c_procs = c_col ? p : q;
    return a_dist && !c_dist && (c_repl || c_procs > 1);
}

/* The panels each PBLAS routine cuts: PB_Cptran (p?tran*, p?geadd 'T'/'C')
 * runs along C's rows (A's columns) when M <= N or the grid or A leaves no
 * choice; PB_Cpgeadd (p?geadd 'N') along rows of both likewise; PB_Cptradd
 * along C's columns when M >= N, A's the same way unless transposed. */
static int pblas_sums(int family, int trans, int64_t m, int64_t n, int p,
                      int q, const cs_shim_operand_t *xa, const cs_shim_operand_t *xc)
{
    if (family == CS_SHIM_FAM_TRADD) {
        return panels_sum(m >= n, trans ? m < n : m >= n, p, q, xa, xc);
    }
    if (trans) {
        int rows = m <= n || p == 1 || xa->rsrc < 0;
        return panels_sum(!rows, rows, p, q, xa, xc);
    }
    int rows = m <= n || q == 1 || xa->csrc < 0;
    return panels_sum(!rows, !rows, p, q, xa, xc);
}

/*
 * The plan cache key of a call: everything the plan is built from
 * (operands, offsets, op and its scalars' bits, grid shape).
 * RATIONALE: unlike p?gemr2d no table is exchanged here, but every input
 * of the plan is local and identical on all ranks, so the same rule holds:
 * equal inputs, equal plan.
 */
static int plan_key(const cs_shim_operand_t *xa, const cs_shim_operand_t *xc,
                    const cs_eng_op_t *op, int p, int q,
                    int key[CS_SHIM_PB_KEY])
{
    int n = 0;
    key[n++] = 0x70b1a5; /* not a p?gemr2d table (those differ in size) */
    memcpy(key + n, xa, sizeof(*xa));
    n += (int)(sizeof(*xa) / sizeof(int));
    memcpy(key + n, xc, sizeof(*xc));
    n += (int)(sizeof(*xc) / sizeof(int));
    int64_t v[] = {op->m,     op->n,        op->ia,       op->ja,
                   op->ib,    op->jb,       op->type,     op->trans,
                   op->conj,  op->axpby,    op->mask,     op->tradd,
                   op->tradd_kb, op->add_zero, p,         q};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        key[n++] = (int)v[i];
    }
    memcpy(key + n, op->alpha, 2 * sizeof(double));
    n += (int)(2 * sizeof(double) / sizeof(int));
    memcpy(key + n, op->beta, 2 * sizeof(double));
    n += (int)(2 * sizeof(double) / sizeof(int));
    return n;
}
_Static_assert(CS_SHIM_PB_KEY == 1 + 2 * sizeof(cs_shim_operand_t) / sizeof(int) +
                                      16 + 4 * sizeof(double) / sizeof(int),
               "CS_SHIM_PB_KEY is the length plan_key() writes");

/*
 * Build and reserve the plan of sub-problem (rsel, csel) of a call: the
 * copy of C in process row rsel and column csel where C is replicated.
 * RATIONALE: a replicated C must be updated in every copy, so a call
 * splits into one sub-problem per process row (column) of each replicated
 * dimension of C; a replicated A is read from the copy in the target's own
 * row (column) when C is replicated the same way, else from row (column)
 * 0.  The sub-problems are not cached (each copy has its own plan, and
 * such calls are rare).
 */
static void plan_build(const cs_shim_operand_t *xa, const cs_shim_operand_t *xc,
                       const cs_eng_op_t *op, int p, int q, int rsel,
                       int csel, int me, const cs_config_t *cfg,
                       cs_shim_job_t *j)
{
    int *grid = malloc(2 * (size_t)p * (size_t)q * sizeof(int));
    if (!grid) {
        j->st = CS_ERR_NOMEM;
        cs_shim_job_refuse(j, CS_SHIM_V_NOMEM);
        return;
    }
    cs_eng_layout_t la, lc; /* the plan keeps no pointer into them */
    cs_shim_operand_layout(xa, p, q, rsel, csel, grid, &la);
    cs_shim_operand_layout(xc, p, q, rsel, csel, grid + (size_t)p * (size_t)q, &lc);
    cs_shim_job_plan(j, &la, &lc, op, me, cfg);
    free(grid);
}

/* The plan cache key of a call, for cs_shim_mem_keep(). */
typedef struct {
    int key[CS_SHIM_PB_KEY];
    int nkey;
    int me;
} keep_ctx_t;

/* The plan cache's extra key, which only p?gemr2d's tables use. */
static const int64_t cs_pblas_no_extra[4] = {0, 0, 0, 0};

static int keep_plan(void *ctx, cs_eng_plan_t *plan)
{
    keep_ctx_t *k = ctx;
    return cs_shim_plan_cache_put(k->key, k->nkey, k->me, cs_pblas_no_extra,
                                  plan, 0, cs_shim_mem_fits);
}

static void serve(const cs_shim_call_t *g, const cs_config_t *cfg,
                  cs_shim_record_t *rec, cs_shim_trace_t *tr)
{
    const cs_shim_routine_t *rt = &cs_shim_routines[g->routine];
    const char *name = rt->lower;
    int cplx = rt->type == 'c' || rt->type == 'z';
    int arg = CS_SHIM_ARG_OK;

    /* op(A) and, for p?tradd, the trapezoid of sub(C) */
    char t = rt->family == CS_SHIM_FAM_TRAN
                 ? (rt->conj ? 'C' : 'T')
                 : (char)toupper((unsigned char)g->trans[0]);
    if (t != 'N' && t != 'T' && t != 'C') {
        arg = CS_SHIM_ARG_INVALID;
    }
    cs_eng_op_t op = cs_shim_eng_op(g);
    op.type = cs_shim_eng_type(g->routine);
    op.trans = t != 'N';
    op.conj = t == 'C' && cplx;
    op.axpby = 1;
    if (rt->family == CS_SHIM_FAM_TRADD) {
        char u = (char)toupper((unsigned char)g->uplo[0]);
        if (u != 'U' && u != 'L') {
            arg = CS_SHIM_ARG_INVALID;
        }
        /* p?tradd: the trapezoid of sub(C), LAPACK's rule from its
         * top-left corner */
        op.mask = u == 'U' ? CS_ENG_MASK_UPPER : CS_ENG_MASK_LOWER;
        op.mask_k = 0;
        op.tradd = 1;
        op.tradd_kb = cs_shim_pilaenv(g->desca[1], rt->type);
    }
    cs_shim_scalar(g->routine, g->alpha, op.alpha);
    cs_shim_scalar(g->routine, g->beta, op.beta);

    /* every caller must be in A's grid: PBLAS aborts otherwise (-702) */
    int ctxt = g->desca[1], p, q, myr, myc;
    cs_shim_gridinfo(ctxt, &p, &q, &myr, &myc);
    if (p < 1 || myr < 0 || myr >= p || myc < 0 || myc >= q) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_CTXT_NEG1;
        return;
    }
    int arows = op.trans ? g->n : g->m, acols = op.trans ? g->m : g->n;
    cs_shim_operand_t xa = {0}, xc = {0};
    if (g->m < 0 || g->n < 0) {
        arg = CS_SHIM_ARG_INVALID;
    }
    if (arg == CS_SHIM_ARG_OK) {
        arg = cs_shim_operand_check(g->desca, arows, acols, g->ia, g->ja, ctxt, p, q,
                            myr, myc, &xa);
        int argc = cs_shim_operand_check(g->descb, g->m, g->n, g->ib, g->jb, ctxt, p,
                                 q, myr, myc, &xc);
        arg = arg > argc ? arg : argc;
    }
    int a0 = op.alpha[0] == 0.0 && op.alpha[1] == 0.0;
    int a1 = op.alpha[0] == 1.0 && op.alpha[1] == 0.0;
    int b1 = op.beta[0] == 1.0 && op.beta[1] == 0.0;
    /* RATIONALE: for complex C += alpha * op(A) PBLAS rounds differently
     * depending on an internal buffering decision: either ZAXPY (inc 1,
     * which OpenBLAS evaluates as (y + ar*xr) - ai*xi, or another
     * increment, with another order for the imaginary part) or its own
     * loop (y + (ar*xr - ai*xi)).  Even alpha = 1 differs in the sign of
     * zeros ((y + 1*x) - 0*xi is +0 where y + x is -0).  Bit-identical
     * results cannot be promised without replaying that decision, so this
     * case goes to PBLAS.
     * Real data with other alphas goes there too: ?AXPY may fuse the
     * multiply-add (OpenBLAS's AVX2/AVX-512 kernels do: y + alpha x
     * rounded once), PBLAS's own loop does not, so the bits depend on the
     * same decision and on the BLAS (found by make check-full on an
     * AVX-512 machine: pstran_, seed 3302, config 987).  With alpha = 1
     * both round alike, and with alpha = -1 too (C - op(A), a common
     * call): -a is exact, so y + (-1)a rounded once or twice is y - a.
     * p?tradd always scales into a buffer and adds with ?AXPY(one), which
     * the engine reproduces (cs_eng_op_t.tradd). */
    int b0 = op.beta[0] == 0.0 && op.beta[1] == 0.0;
    int am1 = op.alpha[0] == -1.0 && op.alpha[1] == 0.0;
    if (b1 && !a0 && (cplx || !(a1 || am1)) &&
        rt->family != CS_SHIM_FAM_TRADD && arg == CS_SHIM_ARG_OK) {
        arg = CS_SHIM_ARG_UNSUPPORTED;
    }
    /* RATIONALE: where PBLAS scales complex data with ?SCAL (alpha = 0:
     * C := beta C; p?tradd: C := beta C, and alpha op(A) unless
     * conjugated), OpenBLAS's ?SCAL rounds signed zeros differently from
     * the product formula (measured: (2,0) * (-0,0) gives +0 real part);
     * those calls, all local in PBLAS anyway, go to PBLAS. */
    int tradd_scal = rt->family == CS_SHIM_FAM_TRADD &&
                     ((!b0 && !b1) || (!a0 && !a1 && !op.conj));
    if (cplx && arg == CS_SHIM_ARG_OK && ((a0 && !b0 && !b1) || tradd_scal)) {
        arg = CS_SHIM_ARG_UNSUPPORTED;
    }
    /* Replicated operands (RSRC or CSRC = -1).  RATIONALE: where PBLAS sums
     * the copies of C (pblas_sums) it adds the zero after alpha * op(A) in
     * some panels and before it in others (when it unpacks through a
     * buffer); both give the same bits only for alpha = 1, so other alphas
     * go to PBLAS.  p?tradd scales op(A) before it scatters and sums, so
     * any real alpha gives the same bits; its complex sums (the ?AXPY
     * order of cs_eng_op_t.tradd after a sum) were not checked and go to
     * PBLAS. */
    if (arg == CS_SHIM_ARG_OK &&
        (xa.rsrc < 0 || xa.csrc < 0 || xc.rsrc < 0 || xc.csrc < 0) && !a0 &&
        pblas_sums(rt->family, op.trans, g->m, g->n, p, q, &xa, &xc)) {
        op.add_zero = 1;
        if (rt->family == CS_SHIM_FAM_TRADD ? cplx : !a1) {
            arg = CS_SHIM_ARG_UNSUPPORTED;
        }
    }
    if (g->m == 0 || g->n == 0 || (a0 && b1)) {
        /* PBLAS: checks, then a quick return without communication; each
         * process decides alone, exactly as PBLAS does */
        rec->path = arg == CS_SHIM_ARG_INVALID ? CS_SHIM_PATH_FALLBACK
                                       : CS_SHIM_PATH_NONE;
        rec->reason = arg == CS_SHIM_ARG_INVALID ? CS_SHIM_REASON_BAD_DESC
                                         : CS_SHIM_REASON_NO_WORK;
        return;
    }

    MPI_Comm comm;
    double t0 = cs_shim_now();
    cs_status_t cst = cs_shim_ctxt_comm(ctxt, &comm);
    rec->t_wait = cs_shim_now() - t0; /* MPI_Comm_dup on a first call */
    if (cst != CS_OK) {
        /* the same on every process of the context */
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_MEMORY;
        return;
    }
    int me = myr * q + myc;
    cs_shim_job_t j;
    cs_shim_job_init(&j, name, comm, cfg, tr);
    keep_ctx_t kc = {.me = me};
    int split = arg == CS_SHIM_ARG_OK && ((xc.rsrc < 0 && p > 1) ||
                                  (xc.csrc < 0 && q > 1));
    if (arg != CS_SHIM_ARG_OK) {
        cs_shim_job_refuse(&j, arg == CS_SHIM_ARG_INVALID ? CS_SHIM_V_INVALID
                                                  : CS_SHIM_V_UNSUPPORTED);
    } else if (split) {
        int nr = xc.rsrc < 0 ? p : 1, nc = xc.csrc < 0 ? q : 1;
        cs_shim_job_plans(&j, nr * nc);
        for (int k = 0; k < nr * nc && j.mine.verdict < CS_SHIM_V_NOMEM;
             k++) {
            plan_build(&xa, &xc, &op, p, q, k / nc, k % nc, me, cfg, &j);
        }
    } else {
        kc.nkey = plan_key(&xa, &xc, &op, p, q, kc.key);
        cs_eng_plan_t *plan = cs_shim_plan_cache_get(kc.key, kc.nkey, me,
                                                     cs_pblas_no_extra);
        if (plan) {
            cs_shim_job_reuse(&j, plan);
        } else {
            plan_build(&xa, &xc, &op, p, q, 0, 0, me, cfg, &j);
        }
        cs_shim_job_wish_shm(&j, cfg);
    }
    /* one agreement: the worst verdict (invalid anywhere > unsupported >
     * failed > memory > engine), the shared buffer, verification, and
     * whether every process passes the same arguments (their identity) */
    int par[CS_SHIM_PB_NPAR];
    const int oa[6] = {xa.mb, xa.nb, xa.imb, xa.inb, xa.rsrc, xa.csrc};
    const int oc[6] = {xc.mb, xc.nb, xc.imb, xc.inb, xc.rsrc, xc.csrc};
    cs_shim_pblas_params(g, oa, oc, par);
    if (arg == CS_SHIM_ARG_INVALID) {
        /* PBLAS's own message for invalid input, whatever the others pass */
        cs_shim_job_identity(&j, NULL, 0, (const uint64_t[2]){0, 0});
    } else {
        cs_shim_job_identity(&j, par, CS_SHIM_PB_HASHED, NULL);
    }
    rec->t_wait += cs_shim_job_agree(&j, NULL, NULL, 0);
    if (j.all.verdict < CS_SHIM_V_INVALID && !cs_shim_job_same_identity(&j)) {
        /* every process is here: PBLAS would go wrong; invalid input
         * anywhere is left to PBLAS's own message instead */
        cs_shim_pblas_disagree(par, comm, name);
    }
    if (j.all.verdict == CS_SHIM_V_ENGINE) {
        snprintf(tr->grid_a, sizeof(tr->grid_a), "%dx%d", p, q);
        snprintf(tr->grid_b, sizeof(tr->grid_b), "%dx%d", p, q);
    }
    cs_shim_job_run(&j, split ? NULL : keep_plan, &kc, g->a, g->b, rec, tr);
}

/* The arrival barrier of a measure-only call: over A's context, unless
 * PBLAS returns without communicating (a caller outside the grid, m or n
 * is 0, alpha = 0 with beta = 1). */
static double arrive(const cs_shim_call_t *g)
{
    double alpha[2], beta[2];
    int p, q, myr, myc;
    if (g->m <= 0 || g->n <= 0) {
        return 0.0;
    }
    cs_shim_scalar(g->routine, g->alpha, alpha);
    cs_shim_scalar(g->routine, g->beta, beta);
    if (alpha[0] == 0.0 && alpha[1] == 0.0 && beta[0] == 1.0 &&
        beta[1] == 0.0) {
        return 0.0;
    }
    cs_shim_gridinfo(g->desca[1], &p, &q, &myr, &myc);
    if (p < 1 || myr < 0 || myr >= p || myc < 0 || myc >= q) {
        return 0.0;
    }
    return cs_shim_arrive_barrier(g->desca[1]);
}

void cs_shim_pblas(const cs_shim_call_t *g)
{
    cs_shim_front(g, serve, arrive);
}
