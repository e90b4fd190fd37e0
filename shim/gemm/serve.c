/*
 * shim/gemm/serve.c - serving p?gemm (docs/design.md, "Matrix
 * multiplication"): sub(C) := alpha op(sub(A)) op(sub(B)) + beta sub(C),
 * A, B and C on one context; and p?syrk, p?herk as the product of sub(A)
 * with itself of which one triangle of sub(C) is written.
 *
 * COSTA_SHIM_GEMM=off (the default) leaves every call to the real routine.
 * Otherwise the arguments are checked as PBLAS checks them (anything PBLAS
 * rejects goes to it, for its own message), PBLAS's quick returns and its
 * local scaling (alpha = 0 or K = 0) stay with it, and the rest follows
 * the decision sequence of shim_decide_int.h: this rank picks a path from
 * what was measured of the shape (choice.c) and, for the engine, prepares
 * the multiplication (engine/matmul: the split, three exchanges, the
 * buffers, all under COSTA_SHIM_MAX_MEMORY); one agreement carries the
 * verdict, the identity of the arguments, the split and the pick; the
 * engine runs only where every rank prepared the same.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/gemm/gemm_int.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_call_int.h"
#include "shim/shim_decide_int.h"
#include "shim/shim_engine_int.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_operand_int.h"
#include "shim/shim_process_int.h"
#include "shim/shim_real_int.h"
#include "shim/shim_trace_int.h"

#include <mpi.h>

/* Below this many flops per process the engine's three exchanges cost
 * more than PBLAS's whole call (CP2K's 293 x 293 x 96 products: 8e6 per
 * process, 0.3 ms natively on 2 ranks), so COSTA_SHIM_GEMM=on leaves
 * them to PBLAS without measuring. */
#define CS_GEMM_MIN_FLOPS 2e7

/* The pieces path is taken up to this many times the words of the best
 * other path (serve(): it hides its transfers behind the products).
 * Measured on 2 ranks against an operand read in place with 1 % fewer
 * words, % of the floor's speed: 300 x 300 x 200000 T N on 1 x 2 80-87
 * against 79-81, 1000 x 1000 x 100000 88-95 against 85-89, pzgemm 300 x
 * 300 x 50000 C N 87-92 against 85-89. */
#define CS_GEMM_PIECES_MARGIN 1.05

/* Ints of the arguments every process must pass alike (params()). */
#define CS_GEMM_NPAR 47

/* The agreement's own values: the split and the pick as value and
 * complement (equal on every rank exactly when max == ~max(~x)), then
 * the shape's record. */
enum {
    X_SPLIT = 0, /* pm, pn, pk, the operand read in place */
    X_SPLIT_NOT = 4,
    X_PICK = 8,
    X_PICK_NOT,
    X_SEEN,
    X_N = X_SEEN + CS_SHIM_GEMM_SEEN_N
};

/* What the end of the call needs (tr->done): the shape and the path. */
typedef struct {
    int64_t id[2];
    cs_shim_gemm_seen_t all;
    int engine;
    int measure;
} done_ctx_t;

static void done(void *ctx, const cs_shim_record_t *rec)
{
    const done_ctx_t *d = ctx;
    if (d->measure) {
        cs_shim_gemm_seen_add(d->id, &d->all, d->engine, rec->t - rec->t_wait);
    }
}

/* One call per thread at a time: its end-of-call context. */
static __thread done_ctx_t cs_gemm_done;

/* The arguments every process passes alike, and the grid: they identify
 * the call's shape, for the agreement and for what was measured of it
 * (choice.c: the same matrices on a 1 x 2 and a 2 x 1 grid are two
 * shapes, whose paths and times differ). */
static int params(const cs_shim_call_t *g, char uplo, char ta, char tb,
                  const double alpha[2], const double beta[2],
                  const cs_shim_operand_t *x[3], int p, int q,
                  int par[CS_GEMM_NPAR])
{
    int n = 0;
    double sc[2][2] = {{alpha[0], alpha[1]}, {beta[0], beta[1]}};
    memset(par, 0, CS_GEMM_NPAR * sizeof(int));
    par[n++] = g->routine;
    par[n++] = uplo;
    par[n++] = ta;
    par[n++] = tb;
    int v[9] = {g->m, g->n, g->k, g->ia, g->ja, g->ix, g->jx, g->ib, g->jb};
    memcpy(par + n, v, sizeof(v));
    n += 9;
    memcpy(par + n, sc, sizeof(sc));
    n += (int)(sizeof(sc) / sizeof(int));
    for (int k = 0; k < 3; k++) {
        int d[8] = {x[k]->m_,  x[k]->n_,  x[k]->mb,   x[k]->nb,
                    x[k]->imb, x[k]->inb, x[k]->rsrc, x[k]->csrc};
        memcpy(par + n, d, sizeof(d));
        n += 8;
    }
    par[n++] = p;
    par[n++] = q;
    return n;
}
_Static_assert(CS_GEMM_NPAR >= 4 + 9 + 8 + 24 + 2, "CS_GEMM_NPAR");
_Static_assert(CS_SHIM_GEMM_KEY >= CS_GEMM_NPAR + 8 + 4, "a plan's key");

/* Elements each process receives in PBLAS's algorithm, as a model: the
 * panels of op(A) along the process rows and of op(B) along the columns
 * that it does not own (the stationary-C variant). */
static double pblas_words(int64_t m, int64_t n, int64_t k, int p, int q)
{
    return (double)m * (double)k / p * (q - 1) / q +
           (double)k * (double)n / q * (p - 1) / p;
}

/* The engine's local layout of operand x of the p x q grid (row-major
 * ranks); grid holds p * q ints. */
static void layout(const cs_shim_operand_t *x, int p, int q, int *grid,
                   cs_eng_layout_t *l)
{
    cs_shim_operand_layout(x, p, q, 0, 0, grid, l);
}

/* What this rank prepared for the engine. */
typedef struct {
    cs_eng_mm_t *mm;
    void *buf;       /* this thread's kept buffer (buffer.c) */
    int64_t claimed; /* the plan's heap, claimed while the plan lives */
    int key[CS_SHIM_GEMM_KEY];
    int nkey;
    int cached; /* the plan came from this thread's cache */
} prep_t;

/* The plan back into this thread's cache (prepared and claimed), else
 * freed. */
static void prep_free(prep_t *pr)
{
    if (pr->mm && pr->claimed) {
        cs_shim_gemm_plan_keep(pr->key, pr->nkey, pr->mm, pr->claimed);
    } else {
        cs_eng_mm_destroy(pr->mm);
    }
    memset(pr, 0, sizeof(*pr));
}

/* The key of this rank's plan: the arguments every rank passes alike and
 * the grid (par), this rank's leading dimensions and place, the split and the
 * operand read in place, the settings that cut the plan. */
static int plan_key(const int *par, int npar, const cs_shim_operand_t *x[3],
                    int me, cs_eng_mm_split_t s, int inplace, int64_t ws_max,
                    int64_t chunk, int key[CS_SHIM_GEMM_KEY])
{
    int n = 0;
    memcpy(key, par, (size_t)npar * sizeof(int));
    n += npar;
    int v[] = {x[0]->lld, x[1]->lld, x[2]->lld, me,
               s.pm,      s.pn,      s.pk,      inplace};
    memcpy(key + n, v, sizeof(v));
    n += (int)(sizeof(v) / sizeof(int));
    memcpy(key + n, &ws_max, sizeof(ws_max));
    n += (int)(sizeof(ws_max) / sizeof(int));
    memcpy(key + n, &chunk, sizeof(chunk));
    n += (int)(sizeof(chunk) / sizeof(int));
    return n;
}

/* Reserve the workspaces of a plan whose heap is claimed, and the
 * buffer: this rank's verdict. */
static void reserve(cs_shim_job_t *j, prep_t *pr)
{
    for (int k = 0;
         k < cs_eng_mm_nplans(pr->mm) && j->mine.verdict == CS_SHIM_V_ENGINE;
         k++) {
        int res =
            cs_shim_mem_reserve(cs_eng_mm_plan(pr->mm, k), 1, &j->opts, &j->st);
        cs_shim_job_refuse(j, res == 0   ? CS_SHIM_V_ENGINE
                              : res == 1 ? CS_SHIM_V_MEMORY
                                         : CS_SHIM_V_NOMEM);
    }
    if (j->mine.verdict != CS_SHIM_V_ENGINE) {
        return;
    }
    int over = 0;
    pr->buf = cs_shim_gemm_buffer(cs_eng_mm_buffer_bytes(pr->mm), &over);
    if (!pr->buf) {
        j->st = CS_ERR_NOMEM;
        cs_shim_job_refuse(j, over ? CS_SHIM_V_MEMORY : CS_SHIM_V_NOMEM);
    }
}

/* Plan the multiplication and hold its memory under the cap: this rank's
 * verdict. */
static void prepare(cs_shim_job_t *j, const cs_shim_operand_t *x[3], int p,
                    int q, int me, const cs_eng_mm_op_t *op,
                    cs_eng_mm_split_t s, const int *par, int npar,
                    const cs_config_t *cfg, prep_t *pr)
{
    int64_t ws_max = cfg->workspace == CS_CFG_SIZE_WORD ? CS_ENG_WS_AUTO
                     : cfg->workspace < 0               ? 0
                                                        : cfg->workspace;
    pr->nkey =
        plan_key(par, npar, x, me, s, op->inplace | op->pieces << 8,
                 ws_max, op->chunk_bytes, pr->key);
    pr->mm = cs_shim_gemm_plan_take(pr->key, pr->nkey, &pr->claimed);
    pr->cached = pr->mm != NULL;
    if (pr->mm) {
        reserve(j, pr);
        return;
    }
    int *grid = malloc(3 * (size_t)p * (size_t)q * sizeof(int));
    if (!grid) {
        j->st = CS_ERR_NOMEM;
        cs_shim_job_refuse(j, CS_SHIM_V_NOMEM);
        return;
    }
    cs_eng_layout_t l[3];
    for (int k = 0; k < 3; k++) {
        layout(x[k], p, q, grid + (size_t)k * p * q, &l[k]);
    }
    cs_status_t st =
        cs_shim_fault(CS_CFG_FAULT_PLAN)
            ? CS_ERR_NOMEM
            : cs_eng_mm_create(&l[0], &l[1], &l[2], op, s, me, ws_max, &pr->mm);
    free(grid);
    if (st != CS_OK) {
        j->st = st;
        cs_shim_job_refuse(j, st == CS_ERR_UNSUPPORTED ? CS_SHIM_V_UNSUPPORTED
                                                       : CS_SHIM_V_NOMEM);
        return;
    }
    int64_t heap = cs_eng_mm_heap_bytes(pr->mm);
    if (cs_shim_mem_claim(heap) != 0) {
        cs_shim_job_refuse(j, CS_SHIM_V_MEMORY);
        return;
    }
    pr->claimed = heap;
    reserve(j, pr);
}

static void put_pair(int64_t *x, int at, int at_not, const int64_t *v, int n)
{
    for (int k = 0; k < n; k++) {
        x[at + k] = v[k];
        x[at_not + k] = ~v[k];
    }
}

static int same_pair(const int64_t *x, int at, int at_not, int n)
{
    for (int k = 0; k < n; k++) {
        if (x[at + k] != ~x[at_not + k]) {
            return 0;
        }
    }
    return 1;
}

/* Run the prepared multiplication; its volumes and phases into rec and the
 * trace. */
static void run(const cs_shim_call_t *g, prep_t *pr, MPI_Comm comm,
                const cs_shim_job_t *j, double words, double native_words,
                cs_shim_record_t *rec, cs_shim_trace_t *tr)
{
    const cs_shim_routine_t *rt = &cs_shim_routines[g->routine];
    cs_shim_gemm_blas_t bl = {cs_shim_gemm_blas(rt->type),
                              rt->family == CS_SHIM_FAM_SYRK
                                  ? cs_shim_gemm_blas_sym(rt->type, rt->conj)
                                  : NULL,
                              rt->type};
    cs_eng_exec_opts_t o = j->opts;
    o.peer_group = cs_shim_comm_nodes(comm);
    cs_eng_mm_stats_t st;
    cs_eng_mm_execute(pr->mm, g->a, g->x, g->b, pr->buf, comm, &o,
                      cs_shim_gemm_local, &bl, &st);
    rec->vol = st.xfer;
    rec->mm.flops = st.flops;
    rec->mm.bytes_pblas = (int64_t)(native_words * (double)rt->esize);
    rec->mm.t_in = st.t_in;
    rec->mm.t_mul = st.t_mul;
    rec->mm.t_reduce = st.t_reduce;
    rec->mm.t_out = st.t_out;
    rec->vol.bytes_recv += st.bytes_copies + st.bytes_reduce;
    rec->vol.bytes_sent += st.sent_copies + st.sent_reduce;
    char desc[96];
    cs_eng_mm_describe(pr->mm, desc, sizeof(desc));
    double t = st.t_in + st.t_mul + st.t_reduce + st.t_out;
    snprintf(tr->gemm, sizeof(tr->gemm),
             "gemm:engine %s plan:%s words:%.3g pblas_words:%.3g in:%.3fms "
             "mul:%.3fms reduce:%.3fms out:%.3fms gflops:%.2f",
             desc, pr->cached ? "cached" : "new", words, native_words,
             st.t_in * 1e3, st.t_mul * 1e3, st.t_reduce * 1e3, st.t_out * 1e3,
             t > 0 ? st.flops / t * 1e-9 : 0.0);
}

/* p?herk leaves the diagonal of sub(C) real, also where beta keeps C's
 * imaginary parts (PBLAS scales C as Hermitian): this rank's elements of
 * it. */
static void real_diagonal(const cs_shim_call_t *g, const cs_shim_operand_t *xc,
                          int p, int q, int myr, int myc)
{
    int single = cs_shim_routines[g->routine].type == 'c';
    for (int64_t d = 0; d < g->n; d++) {
        int64_t gi = g->ib - 1 + d, gj = g->jb - 1 + d;
        int64_t li =
            cs_shim_local_extent(gi, xc->mb, xc->imb, xc->rsrc, p, myr);
        int64_t lj =
            cs_shim_local_extent(gj, xc->nb, xc->inb, xc->csrc, q, myc);
        if (cs_shim_local_extent(gi + 1, xc->mb, xc->imb, xc->rsrc, p, myr) ==
                li ||
            cs_shim_local_extent(gj + 1, xc->nb, xc->inb, xc->csrc, q, myc) ==
                lj) {
            continue; /* not here */
        }
        int64_t at = li + lj * (int64_t)xc->lld;
        if (single) {
            ((float *)g->b)[2 * at + 1] = 0.0f;
        } else {
            ((double *)g->b)[2 * at + 1] = 0.0;
        }
    }
}

/* Whether sub(A)'s and sub(B)'s inner dimensions are distributed along
 * the same grid dimension and alike (block sizes, first blocks, sources,
 * offsets): then each inner index lies on the same processes in A and B,
 * and a process's inner indices are one run of its local rows (columns)
 * in both, in the same order.  Global. */
static int inner_alike(const cs_shim_call_t *g, char ta, char tb,
                       const cs_shim_operand_t *xa, const cs_shim_operand_t *xb)
{
    int a_rows = ta != 'N', b_rows = tb == 'N';
    if (a_rows != b_rows) {
        return 0;
    }
    return (a_rows ? xa->mb : xa->nb) == (a_rows ? xb->mb : xb->nb) &&
           (a_rows ? xa->imb : xa->inb) == (a_rows ? xb->imb : xb->inb) &&
           (a_rows ? xa->rsrc : xa->csrc) == (a_rows ? xb->rsrc : xb->csrc) &&
           (a_rows ? g->ia : g->ja) == (b_rows ? g->ix : g->jx);
}

/* Where this rank's inner indices of sub(A) and sub(B) already lie in
 * its local arrays (direct, matmul.h).  1 when they do on every rank:
 * the inner dimensions are alike (inner_alike) along a grid dimension of
 * all processes (the other one is 1).  Fills op's direct fields.  Global
 * but for the offsets. */
static int aligned_k(const cs_shim_call_t *g, char ta, char tb,
                     const cs_shim_operand_t *xa, const cs_shim_operand_t *xb,
                     int p, int q, int myr, int myc, cs_eng_mm_op_t *op)
{
    int a_rows = ta != 'N', b_rows = tb == 'N';
    if (!inner_alike(g, ta, tb, xa, xb) || (a_rows ? q : p) != 1) {
        return 0;
    }
    int np = a_rows ? p : q, me = a_rows ? myr : myc;
    int64_t nb = a_rows ? xa->mb : xa->nb, first = a_rows ? xa->imb : xa->inb;
    int src = a_rows ? xa->rsrc : xa->csrc;
    int64_t off = (a_rows ? g->ia : g->ja) - 1;
    int64_t lo = cs_shim_local_extent(off, nb, first, src, np, me);
    int64_t hi = cs_shim_local_extent(off + g->k, nb, first, src, np, me);
    op->direct = 1;
    op->kl = hi - lo;
    /* A: stored k x m (rows: its local rows lo.., columns ja..) or m x k
     * (rows ia.., local columns lo..); B alike */
    op->a_off = a_rows ? lo + (int64_t)(g->ja - 1) * xa->lld
                       : (g->ia - 1) + lo * (int64_t)xa->lld;
    op->b_off = b_rows ? lo + (int64_t)(g->jx - 1) * xb->lld
                       : (g->ix - 1) + lo * (int64_t)xb->lld;
    op->lda = xa->lld;
    op->ldb = xb->lld;
    return 1;
}

/* The grid processes along operand x's ('A' or 'B') outer dimension
 * (op(A)'s rows, op(B)'s columns) and along its inner one, for reading
 * it where it lies (inplace, matmul.h). */
static void inplace_grid(char x, char ta, char tb, int p, int q, int *po,
                         int *pk)
{
    int rows_outer = x == 'A' ? ta == 'N' : tb != 'N';
    *po = rows_outer ? p : q;
    *pk = rows_outer ? q : p;
}

/* Whether the slabs can be assembled from the pieces the members of each
 * grid line hold (pieces, matmul.h): A^T B, A B^T with the inner
 * dimensions alike (or each on one process row, column), the grid
 * dimension across them above 1 (else they are read where they lie:
 * aligned_k). */
static int pieces_fit(const cs_shim_call_t *g, char ta, char tb,
                      const cs_shim_operand_t *xa, const cs_shim_operand_t *xb,
                      int p, int q)
{
    int tn = ta != 'N' && tb == 'N', nt = ta == 'N' && tb != 'N';
    return ((tn && q > 1) || (nt && p > 1)) &&
           ((tn ? p : q) == 1 || inner_alike(g, ta, tb, xa, xb));
}

static void serve(const cs_shim_call_t *g, const cs_config_t *cfg,
                  cs_shim_record_t *rec, cs_shim_trace_t *tr)
{
    if (cfg->gemm == CS_CFG_GEMM_OFF) {
        rec->path = CS_SHIM_PATH_PASSTHROUGH;
        rec->reason = CS_SHIM_REASON_GEMM_OFF;
        return;
    }
    const cs_shim_routine_t *rt = &cs_shim_routines[g->routine];
    int cplx = rt->type == 'c' || rt->type == 'z';
    /* p?syrk, p?herk: B is A, op(B) = op(A)^T (^H), one triangle of C */
    int sym = rt->family == CS_SHIM_FAM_SYRK, herk = sym && rt->conj;
    char ta = (char)toupper((unsigned char)g->trans[0]);
    char uplo = sym ? (char)toupper((unsigned char)g->uplo[0]) : 0;
    char tb = !sym        ? (char)toupper((unsigned char)g->transb[0])
              : ta != 'N' ? 'N'
              : herk      ? 'C'
                          : 'T';
    int arg = CS_SHIM_ARG_OK;
    if ((ta != 'N' && ta != 'T' && ta != 'C') ||
        (tb != 'N' && tb != 'T' && tb != 'C') || g->m < 0 || g->n < 0 ||
        g->k < 0 || (sym && uplo != 'U' && uplo != 'L') ||
        (sym && cplx && ta == (herk ? 'T' : 'C'))) {
        arg = CS_SHIM_ARG_INVALID;
    }
    /* every caller must be in the grid: PBLAS stops otherwise */
    int ctxt = g->desca[1], p, q, myr, myc;
    cs_shim_gridinfo(ctxt, &p, &q, &myr, &myc);
    if (p < 1 || myr < 0 || myr >= p || myc < 0 || myc >= q) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_CTXT_NEG1;
        return;
    }
    cs_shim_operand_t xa = {0}, xb = {0}, xc = {0};
    if (arg == CS_SHIM_ARG_OK) {
        int na = ta == 'N';
        int nb = tb == 'N';
        int ra =
            cs_shim_operand_check(g->desca, na ? g->m : g->k, na ? g->k : g->m,
                                  g->ia, g->ja, ctxt, p, q, myr, myc, &xa);
        int rb = sym ? ra
                     : cs_shim_operand_check(g->descx, nb ? g->k : g->n,
                                             nb ? g->n : g->k, g->ix, g->jx,
                                             ctxt, p, q, myr, myc, &xb);
        if (sym) {
            xb = xa;
        }
        int rc = cs_shim_operand_check(g->descb, g->m, g->n, g->ib, g->jb, ctxt,
                                       p, q, myr, myc, &xc);
        arg = ra > rb ? ra : rb;
        arg = arg > rc ? arg : rc;
    }
    double alpha[2], beta[2];
    cs_shim_scalar(g->routine, g->alpha, alpha);
    cs_shim_scalar(g->routine, g->beta, beta);
    int a0 = alpha[0] == 0.0 && alpha[1] == 0.0;
    int b1 = beta[0] == 1.0 && beta[1] == 0.0;
    if (g->m == 0 || g->n == 0 || ((a0 || g->k == 0) && b1)) {
        /* PBLAS: checks, then a quick return without communication */
        int bad = arg == CS_SHIM_ARG_INVALID;
        rec->path = bad ? CS_SHIM_PATH_FALLBACK : CS_SHIM_PATH_NONE;
        rec->reason = bad ? CS_SHIM_REASON_BAD_DESC : CS_SHIM_REASON_NO_WORK;
        return;
    }
    if (arg == CS_SHIM_ARG_INVALID) {
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_BAD_DESC;
        return;
    }
    if (a0 || g->k == 0) {
        /* C := beta C, which PBLAS does locally: nothing to gain */
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_NATIVE_FASTER;
        snprintf(tr->gemm, sizeof(tr->gemm), "gemm:native(scale)");
        return;
    }
    int np = p * q, me = myr * q + myc;
    double flops = (cplx ? 8.0 : 2.0) * (double)g->m * (double)g->n *
                   (double)g->k * (sym ? 0.5 : 1.0);
    int force = cfg->gemm == CS_CFG_GEMM_FORCE;
    if (!force && flops / np < CS_GEMM_MIN_FLOPS) {
        /* decided from M, N, K and the grid, which every process passes
         * alike, as PBLAS decides its quick returns */
        rec->path = CS_SHIM_PATH_FALLBACK;
        rec->reason = CS_SHIM_REASON_NATIVE_FASTER;
        snprintf(tr->gemm, sizeof(tr->gemm), "gemm:native(small)");
        return;
    }
    if (xa.rsrc < 0 || xa.csrc < 0 || xb.rsrc < 0 || xb.csrc < 0 ||
        xc.rsrc < 0 || xc.csrc < 0 || !cs_shim_gemm_blas(rt->type) ||
        (sym && !cs_shim_gemm_blas_sym(rt->type, herk))) {
        /* replicated operands; a process without the BLAS routine */
        arg = CS_SHIM_ARG_UNSUPPORTED;
    }

    MPI_Comm comm;
    double t0 = cs_shim_now();
    cs_status_t cst = cs_shim_ctxt_comm(ctxt, &comm);
    rec->t_wait = cs_shim_now() - t0;
    if (cst != CS_OK) {
        rec->path = CS_SHIM_PATH_FALLBACK; /* agreed on every process */
        rec->reason = CS_SHIM_REASON_MEMORY;
        return;
    }
    cs_shim_job_t j;
    cs_shim_job_init(&j, rt->lower, comm, cfg, tr);
    const cs_shim_operand_t *x[3] = {&xa, &xb, &xc};
    int par[CS_GEMM_NPAR];
    int npar = params(g, uplo, ta, tb, alpha, beta, x, p, q, par);
    cs_shim_job_identity(&j, par, npar, NULL);

    /* the split (the memory left under the cap bounds its buffers) and
     * the path from what the ranks measured of the shape */
    int64_t cap = cs_shim_mem_cap();
    int64_t left = cap < 0 ? -1 : cap - cs_shim_mem_held();
    cs_eng_mm_split_t s = {1, 1, 1};
    cs_eng_mm_cost_t cost = {0};
    int64_t sv[4] = {0, 0, 0, 0};
    cs_eng_mm_op_t op = {.m = g->m,
                         .n = g->n,
                         .k = g->k,
                         .ia = g->ia - 1,
                         .ja = g->ja - 1,
                         .ib = g->ix - 1,
                         .jb = g->jx - 1,
                         .ic = g->ib - 1,
                         .jc = g->jb - 1,
                         .type = cs_shim_eng_type(g->routine),
                         .esize = rt->esize,
                         .transa = cplx || ta != 'C' ? ta : 'T',
                         .transb = cplx || tb != 'C' ? tb : 'T',
                         .chunk_bytes = cfg->test_gemm_chunk,
                         .uplo = uplo,
                         .alpha = {alpha[0], alpha[1]},
                         .beta = {beta[0], beta[1]}};
    if (arg != CS_SHIM_ARG_OK) {
        cs_shim_job_refuse(&j, CS_SHIM_V_UNSUPPORTED);
    } else if (np <= g->k && g->k <= INT32_MAX &&
               aligned_k(g, ta, tb, &xa, &xb, p, q, myr, myc, &op)) {
        /* A and B stay where they are: the partial products are summed */
        s = (cs_eng_mm_split_t){1, 1, np};
        double mn = (double)g->m * (double)g->n;
        cost.words = mn / np * (np - 1) + mn / np;
    } else {
        int fit = cs_eng_mm_split(g->m, g->n, g->k, np, rt->esize,
                                  left < 0 ? -1 : left, &s, &cost) == 0;
        cs_eng_mm_cost_t ic;
        for (int w = 0; w < 2 && !sym && np > 1; w++) {
            /* A or B read where it lies, the other brought to it */
            char ip = w ? 'B' : 'A';
            int po, pk;
            inplace_grid(ip, ta, tb, p, q, &po, &pk);
            if (po <= (w ? g->n : g->m) && pk <= g->k &&
                cs_eng_mm_inplace_cost(g->m, g->n, g->k, po, pk, ip,
                                       rt->esize, left < 0 ? -1 : left,
                                       &ic) == 0 &&
                (!fit || ic.words < cost.words)) {
                op.inplace = ip;
                s = w ? (cs_eng_mm_split_t){1, po, pk}
                      : (cs_eng_mm_split_t){po, 1, pk};
                cost = ic;
                fit = 1;
            }
        }
        /* pieces keeps the next chunk in flight while one is multiplied
         * and cuts k evenly; the others bring each chunk in before its
         * product: at words within CS_GEMM_PIECES_MARGIN pieces is the
         * faster (docs/design.md, "pieces") */
        if (pieces_fit(g, ta, tb, &xa, &xb, p, q) && np <= g->k &&
            cs_eng_mm_pieces_cost(g->m, g->n, g->k, np, ta != 'N' ? q : p,
                                  rt->esize, left < 0 ? -1 : left, &ic) == 0 &&
            (sym || !fit ||
             ic.words <= cost.words * CS_GEMM_PIECES_MARGIN)) {
            op.inplace = 0;
            op.pieces = 1;
            s = (cs_eng_mm_split_t){1, 1, np};
            cost = ic;
            fit = 1;
        }
        if (sym && !op.pieces) {
            /* one triangle needs the split 1 x 1 x P, which direct or
             * pieces gives on every grid (A is B) unless K < P */
            cs_shim_job_refuse(&j, CS_SHIM_V_UNSUPPORTED);
        } else if (!fit) {
            cs_shim_job_refuse(&j, CS_SHIM_V_MEMORY);
        }
    }
    sv[0] = s.pm;
    sv[1] = s.pn;
    sv[2] = s.pk;
    sv[3] = op.inplace | op.pieces << 8;
    double native_words = pblas_words(g->m, g->n, g->k, p, q);
    int64_t lo = g->m < g->n ? g->m : g->n, hi = g->m > g->n ? g->m : g->n;
    lo = lo < g->k ? lo : g->k;
    hi = hi > g->k ? hi : g->k;
    /* direct: A and B are not moved, each process runs the floor's own
     * local product and only C's partial sums travel, which PBLAS, whose
     * local products are the same flops, cannot undercut (measured 95-101
     * % of the floor against native's 48-70 %: bench_gemm b, i, t, u, x);
     * so no call goes to PBLAS to measure it (x, CP2K rpa_w4's shape: that
     * first call was 1.7-2.1x the engine's median) */
    int expect = op.direct ? CS_SHIM_GEMM_ENGINE_ONLY
                 : hi >= 4 * lo || cost.words < 0.8 * native_words
                     ? CS_SHIM_GEMM_ENGINE_FIRST
                     : CS_SHIM_GEMM_NATIVE_FIRST;
    cs_shim_gemm_seen_t seen;
    cs_shim_gemm_seen_get(j.mine.id, &seen);
    int64_t pick = force || cs_shim_gemm_pick(expect, &seen);

    prep_t pr = {0};
    if (pick && j.mine.verdict == CS_SHIM_V_ENGINE) {
        prepare(&j, x, p, q, me, &op, s, par, npar, cfg, &pr);
    }
    int64_t mine[X_N], all[X_N];
    put_pair(mine, X_SPLIT, X_SPLIT_NOT, sv, 4);
    put_pair(mine, X_PICK, X_PICK_NOT, &pick, 1);
    memcpy(mine + X_SEEN, &seen, sizeof(seen));
    rec->t_wait += cs_shim_job_agree(&j, mine, all, X_N);

    int same = cs_shim_job_same_identity(&j);
    if (!same) {
        cs_log_warn("%s: the processes of the grid pass different "
                    "arguments: left to PBLAS",
                    rt->lower);
    }
    int engine = same && all[X_PICK] == 1 &&
                 same_pair(all, X_PICK, X_PICK_NOT, 1) &&
                 same_pair(all, X_SPLIT, X_SPLIT_NOT, 4);
    if (!same) {
        j.all.verdict = j.all.verdict > CS_SHIM_V_INVALID ? j.all.verdict
                                                          : CS_SHIM_V_INVALID;
    } else if (!engine && j.all.verdict == CS_SHIM_V_ENGINE) {
        /* the ranks picked native, or did not pick alike */
        j.all.verdict = CS_SHIM_V_UNSUPPORTED;
    }
    cs_gemm_done = (done_ctx_t){.id = {j.mine.id[0], j.mine.id[1]},
                                .engine = j.all.verdict == CS_SHIM_V_ENGINE,
                                .measure = same && !force};
    memcpy(&cs_gemm_done.all, all + X_SEEN, sizeof(cs_gemm_done.all));
    tr->done = done;
    tr->done_ctx = &cs_gemm_done;
    int64_t vall = j.all.verdict;
    cs_shim_job_run(&j, NULL, NULL, NULL, NULL, rec, tr);
    if (vall == CS_SHIM_V_ENGINE) {
        snprintf(tr->grid_a, sizeof(tr->grid_a), "%dx%d", p, q);
        snprintf(tr->grid_b, sizeof(tr->grid_b), "%dx%d", p, q);
        run(g, &pr, comm, &j, cost.words, native_words, rec, tr);
        if (herk) {
            real_diagonal(g, &xc, p, q, myr, myc);
        }
    } else if (same && !engine && same_pair(all, X_PICK, X_PICK_NOT, 1)) {
        rec->reason = CS_SHIM_REASON_NATIVE_FASTER;
        snprintf(tr->gemm, sizeof(tr->gemm), "gemm:native(%s)",
                 cs_gemm_done.all.n_native + cs_gemm_done.all.n_engine > 0
                     ? "measured"
                     : "model");
    }
    prep_free(&pr);
}

/* The arrival barrier of a measure-only call, unless PBLAS returns without
 * communicating. */
static double arrive(const cs_shim_call_t *g)
{
    double alpha[2], beta[2];
    int p, q, myr, myc;
    if (g->m <= 0 || g->n <= 0) {
        return 0.0;
    }
    cs_shim_scalar(g->routine, g->alpha, alpha);
    cs_shim_scalar(g->routine, g->beta, beta);
    if ((g->k == 0 || (alpha[0] == 0.0 && alpha[1] == 0.0)) && beta[0] == 1.0 &&
        beta[1] == 0.0) {
        return 0.0;
    }
    cs_shim_gridinfo(g->desca[1], &p, &q, &myr, &myc);
    if (p < 1 || myr < 0 || myr >= p || myc < 0 || myc >= q) {
        return 0.0;
    }
    return cs_shim_arrive_barrier(g->desca[1]);
}

void cs_shim_gemm(const cs_shim_call_t *g)
{
    cs_shim_front(g, serve, arrive);
}
