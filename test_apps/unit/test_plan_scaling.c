/*
 * test_apps/unit/test_plan_scaling.c - the cost of cs_eng_plan_create() on
 * simulated grids of up to 4096 ranks (no MPI, nothing executed).
 *
 * What "as designed" means (engine/engine.h, docs/design.md): a plan is
 * built from the per-dimension overlay of the two layouts, so building it
 * walks the blocks of both layouts along each dimension, O(Nr + Nc) with
 * Nr, Nc the global block counts along rows and columns: O(sqrt(global
 * blocks)) on square grids, never O(Nr x Nc), and reads the grid tables,
 * O(P) ints, without allocating per rank.  What the plan keeps afterwards
 * (it lives in the shim's plan cache) is only what this rank uses: the
 * overlay groups with its own A or B coordinate, the (row group, column
 * group) blocks of its packages and local copies, and its peers; that is
 * O(local blocks + peers), independent of P and of the global block count.
 *
 * Weak scaling: four cases (other block sizes on the same grid, a g x g to
 * g/2 x 2g reshape, a transposed copy, a shifted sub-matrix with a first
 * block and a column-major rank order), each on g x g grids for g = 8, 16,
 * 32, 64 (P = 64 .. 4096), the matrix growing with g so that every rank
 * holds the same local part (1024 x 1024 elements of A, 2048 x 1024 in the
 * transposed case; blocks 32..256, so 16 to 1024 local blocks).
 * Plans are built for five sample ranks per grid, not for all P (that would
 * be O(P) plans).  Checked, deterministically (no clock is ever compared):
 *  1. every sampled plan against a brute-force element walk of each
 *     dimension (independent of the engine's overlay): bytes per send and
 *     receive peer, self bytes, peer counts; the blocks of its packages and
 *     local copies, exactly (row groups x column groups of its A cell and
 *     of its B cell); the overlay segments and groups it keeps, exactly
 *     those with its own A or B coordinate;
 *  2. a sender's and a receiver's plan agree on the layout of the package
 *     between them (a few pairs per sample);
 *  3. heap bytes kept by a plan (counted by the malloc wrapper below, after
 *     create, before destroy) stay below a bound linear in those local
 *     counts: KEEP_SEG per kept segment, KEEP_BLK per block, KEEP_PEER per
 *     peer, plus KEEP_FIXED; destroy frees all of them;
 *  4. the peak heap bytes during create stay below PEAK_BLK per block of
 *     both layouts along each dimension (Nr + Nc) plus what the plan keeps;
 *  5. weak scaling from P = 64 to P = 4096 (global blocks x64, blocks per
 *     dimension x8): the largest plan kept per case varies by less than
 *     KEEP_RATIO, and the largest peak grows by less than PEAK_SLACK x the
 *     growth of the blocks per dimension.
 * A plan that walked or stored all global blocks, or kept the whole
 * overlay (O(Nr + Nc)) rather than its own part, fails 1, 3 and 5 (before
 * cs_eng_overlay_restrict() a plan kept 100 kB at P = 64, 783 kB at 4096).
 * Printed per case and P: gblocks (blocks of A plus blocks of B inside the
 * operation), dblk (Nr + Nc of both), keep_B and peak_B (largest over the
 * sampled ranks), cpu_us (mean CPU time per plan, information only).
 *
 * cs_heap_count.h replaces malloc/calloc/realloc/free in this program
 * and counts malloc_usable_size() only between mem_start() and
 * mem_stop(), so the counts are exact and the same on every run.
 *
 * Usage: test_plan_scaling            the checks, ends with "cs_test: OK"
 *        test_plan_scaling --bench    plan-build time and memory for
 *                                     P = 256 .. 65536 (make bench),
 *                                     no checks
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cs_heap_count.h" /* replaces malloc & co.: heap bytes counted */
#include "cs_plan_match.h"
#include "cs_test.h"
#include "engine/engine_int.h"

enum {
    LOCAL_EXT = 1024, /* elements of A per rank along each dimension */
    NSAMPLE = 5,      /* sampled ranks per grid */
    NCASE = 4,
    NGRID = 4
};

static const int grid_g[NGRID] = {8, 16, 32, 64};

/* Bounds of checks 3-5 (bytes; see the header). */
#define KEEP_SEG 256
#define KEEP_BLK 48
#define KEEP_PEER 96
#define KEEP_FIXED 8192
#define PEAK_BLK 512
#define KEEP_RATIO 2.0
#define PEAK_SLACK 1.5

/* CPU time of this (single-threaded) process: plan creation is pure
 * computation, and other jobs on a shared machine do not inflate it. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ brute force */

/* One dimension of the operation, element by element: the A and B block
 * and owner coordinate of every index of the operated range.  Written from
 * the block-cyclic definition, not with the engine's layout functions. */
typedef struct {
    int64_t len;
    int npa, npb;
    int64_t *blka, *blkb;
    int *pa, *pb;
    int64_t nblka, nblkb; /* distinct blocks inside the range */
} bdim_t;

static void bdim_walk(const cs_eng_dist_t *d, int64_t off, int64_t len,
                      int64_t *blk, int *p, int64_t *nblk_p)
{
    int64_t nblk = 0;
    for (int64_t i = 0; i < len; i++) {
        int64_t x = off + i;
        int64_t k = x < d->first ? 0 : 1 + (x - d->first) / d->nb;
        blk[i] = k;
        p[i] = (int)((d->src + k) % d->nprocs);
        nblk += i == 0 || blk[i] != blk[i - 1];
    }
    *nblk_p = nblk;
}

static void bdim_init(bdim_t *b, const cs_eng_dist_t *da, int64_t oa,
                      const cs_eng_dist_t *db, int64_t ob, int64_t len)
{
    b->len = len;
    b->npa = da->nprocs;
    b->npb = db->nprocs;
    b->blka = malloc((size_t)len * sizeof(int64_t));
    b->blkb = malloc((size_t)len * sizeof(int64_t));
    b->pa = malloc((size_t)len * sizeof(int));
    b->pb = malloc((size_t)len * sizeof(int));
    CS_TEST_ASSERT(b->blka && b->blkb && b->pa && b->pb);
    bdim_walk(da, oa, len, b->blka, b->pa, &b->nblka);
    bdim_walk(db, ob, len, b->blkb, b->pb, &b->nblkb);
}

static void bdim_free(bdim_t *b)
{
    free(b->blka);
    free(b->blkb);
    free(b->pa);
    free(b->pb);
}

/* What one rank with A coordinate mya and B coordinate myb should see
 * along this dimension. */
typedef struct {
    int64_t segs;   /* segments with pa == mya or pb == myb */
    int64_t groups; /* distinct (pa, pb) among them */
    int64_t gpa;    /* ... with pa == mya */
    int64_t gpb;    /* ... with pb == myb */
} bcount_t;

/* cnt[pa * npb + pb]: elements going from A coordinate pa to B
 * coordinate pb (the caller zeroes it). */
static void bdim_count(const bdim_t *b, int mya, int myb, bcount_t *c,
                       int64_t *cnt)
{
    unsigned char *seen = calloc((size_t)b->npa * (size_t)b->npb, 1);
    CS_TEST_ASSERT(seen);
    memset(c, 0, sizeof(*c));
    for (int64_t i = 0; i < b->len; i++) {
        int pa = b->pa[i], pb = b->pb[i];
        cnt[pa * b->npb + pb]++;
        int mine = pa == mya || pb == myb;
        int new_seg = i == 0 || b->blka[i] != b->blka[i - 1] ||
                      b->blkb[i] != b->blkb[i - 1];
        if (!mine || !new_seg) {
            continue;
        }
        c->segs++;
        unsigned char *s = &seen[pa * b->npb + pb];
        if (!*s) {
            *s = 1;
            c->groups++;
            c->gpa += pa == mya;
            c->gpb += pb == myb;
        }
    }
    free(seen);
}

/* ------------------------------------------------------------ cases */

typedef struct {
    const char *name;
    cs_eng_layout_t a, b;
    int *grid_a, *grid_b;
    cs_eng_op_t op;
    int P;
    bdim_t rows, cols;  /* target rows (A rows or columns) and columns */
    int64_t gblocks;    /* blocks of A plus blocks of B in the operation */
    int64_t dblocks;    /* the same per dimension: Nr + Nc */
} setup_t;

static int *grid_table(int nprow, int npcol, int colmajor)
{
    int *g = malloc((size_t)nprow * (size_t)npcol * sizeof(int));
    CS_TEST_ASSERT(g);
    for (int r = 0; r < nprow; r++) {
        for (int c = 0; c < npcol; c++) {
            g[r * npcol + c] = colmajor ? c * nprow + r : r * npcol + c;
        }
    }
    return g;
}

static void layout_set(cs_eng_layout_t *l, int64_t m, int64_t n, int64_t mb,
                       int64_t nb, int64_t first, int src, int nprow,
                       int npcol, const int *grid)
{
    memset(l, 0, sizeof(*l));
    CS_TEST_EQ(cs_eng_dist_cyclic(m, mb, first ? first : mb, src, nprow,
                                  &l->rows),
               CS_OK);
    CS_TEST_EQ(cs_eng_dist_cyclic(n, nb, first ? first : nb, src, npcol,
                                  &l->cols),
               CS_OK);
    l->nprow = nprow;
    l->npcol = npcol;
    l->grid = grid;
    l->ld = 1;
    l->order = CS_ENG_COLMAJOR;
}

/* Case c on a g x g grid of A; every rank holds LOCAL_EXT^2 elements of A
 * (and about as many of B), whatever g. */
static void setup_init(setup_t *s, int c, int g)
{
    memset(s, 0, sizeof(*s));
    int64_t e = LOCAL_EXT, n = (int64_t)g * e;
    cs_eng_op_t op = {.m = n, .n = n, .esize = 8, .type = CS_ENG_T_D};
    s->P = g * g;
    s->grid_a = grid_table(g, g, 0);
    switch (c) {
    case 0:
        s->name = "nb 32 -> nb 96";
        s->grid_b = grid_table(g, g, 0);
        layout_set(&s->a, n, n, 32, 32, 0, 0, g, g, s->grid_a);
        layout_set(&s->b, n, n, 96, 96, 0, 0, g, g, s->grid_b);
        break;
    case 1:
        s->name = "gxg nb 128 -> g/2x2g 64x32";
        s->grid_b = grid_table(g / 2, 2 * g, 0);
        layout_set(&s->a, n, n, 128, 128, 0, 0, g, g, s->grid_a);
        layout_set(&s->b, n, n, 64, 32, 0, 0, g / 2, 2 * g, s->grid_b);
        break;
    case 2:
        /* B := A^T with A 2n x n */
        s->name = "transposed nb 256 -> nb 64";
        s->grid_b = grid_table(g, g, 0);
        op.n = 2 * n;
        op.trans = 1;
        layout_set(&s->a, 2 * n, n, 256, 256, 0, 0, g, g, s->grid_a);
        layout_set(&s->b, n, 2 * n, 64, 64, 0, 0, g, g, s->grid_b);
        break;
    default:
        /* sub(A) from (7, 7), B with a first block of 40 from coordinate
         * 1 and its ranks in column-major order */
        s->name = "shifted nb 64 -> 64/40 colmajor";
        s->grid_b = grid_table(g, g, 1);
        op.m = op.n = n - 7;
        op.ia = op.ja = 7;
        layout_set(&s->a, n, n, 64, 64, 0, 0, g, g, s->grid_a);
        layout_set(&s->b, n, n, 64, 64, 40, 1, g, g, s->grid_b);
        break;
    }
    s->op = op;
    const cs_eng_dist_t *ar = op.trans ? &s->a.cols : &s->a.rows;
    const cs_eng_dist_t *ac = op.trans ? &s->a.rows : &s->a.cols;
    bdim_init(&s->rows, ar, op.trans ? op.ja : op.ia, &s->b.rows, op.ib,
              op.m);
    bdim_init(&s->cols, ac, op.trans ? op.ia : op.ja, &s->b.cols, op.jb,
              op.n);
    s->gblocks = s->rows.nblka * s->cols.nblka +
                 s->rows.nblkb * s->cols.nblkb;
    s->dblocks = s->rows.nblka + s->rows.nblkb + s->cols.nblka +
                 s->cols.nblkb;
}

static void setup_free(setup_t *s)
{
    free(s->grid_a);
    free(s->grid_b);
    bdim_free(&s->rows);
    bdim_free(&s->cols);
}

/* Grid cell (*r_p, *c_p) of rank me in a layout (each rank owns one). */
static void cell_of(const cs_eng_layout_t *l, int me, int *r_p, int *c_p)
{
    for (int i = 0; i < l->nprow * l->npcol; i++) {
        if (l->grid[i] == me) {
            *r_p = i / l->npcol;
            *c_p = i % l->npcol;
            return;
        }
    }
    CS_TEST_ASSERT(!"rank without a cell");
}

static int sample_rank(int P, int k)
{
    static const int num[NSAMPLE] = {0, 1, 3, 5, 10};
    static const int den[NSAMPLE] = {1, 1, 7, 11, 11};
    return k == 1 ? P - 1 : (int)((int64_t)P * num[k] / den[k]);
}

/* ------------------------------------------------------------ plans */

typedef struct {
    int64_t keep, peak; /* heap bytes kept by the plan, peak during create */
    double sec;         /* creation time (informational) */
} cost_t;

static cs_eng_plan_t *plan_build(const setup_t *s, int me, cost_t *c)
{
    cs_eng_plan_t *plan = NULL;
    mem_start();
    double t0 = now();
    /* as the shim builds plans: under the default workspace bound, whose
     * global estimate of the busiest rank is O(P log groups) */
    cs_status_t st = cs_eng_plan_create_bounded(&s->a, &s->b, &s->op, me,
                                                CS_ENG_WS_AUTO, &plan);
    c->sec = now() - t0;
    mem_stop();
    CS_TEST_EQ(st, CS_OK);
    c->keep = mem_live;
    c->peak = mem_peak;
    return plan;
}

/* Destroy a plan; returns the heap bytes that frees. */
static int64_t plan_free(cs_eng_plan_t *plan)
{
    mem_start();
    cs_eng_plan_destroy(plan);
    mem_stop();
    return -mem_live;
}

static int64_t combos_of(const cs_eng_peer_t *peer, int npeer)
{
    int64_t n = 0;
    for (int p = 0; p < npeer; p++) {
        n += peer[p].count;
    }
    return n;
}

/* The one exchange of a plan: these plans fit the default bound uncut. */
static const cs_eng_exch_t *exch_of(const cs_eng_plan_t *plan)
{
    CS_TEST_ASSERT(plan->exch && !plan->panels);
    return plan->exch;
}

/* Check 2: the package from ps's rank to rank `to` has the same blocks,
 * in the same order, at the same offsets, in both plans. */
static void check_package(const setup_t *s, const cs_eng_exch_t *ps,
                          int k)
{
    const cs_eng_peer_t *pe = &ps->send[k];
    cost_t c;
    cs_eng_plan_t *pdp = plan_build(s, pe->peer, &c);
    const cs_eng_exch_t *pd = exch_of(pdp);
    const cs_eng_peer_t *pr = NULL;
    for (int q = 0; q < pd->nrecv; q++) {
        if (pd->recv[q].peer == ps->me) {
            pr = &pd->recv[q];
        }
    }
    CS_TEST_CHECK(pr && pr->count == pe->count && pr->bytes == pe->bytes,
                  "%s P %d: package %d -> %d", s->name, s->P, ps->me,
                  pe->peer);
    for (int64_t i = 0; pr && pr->count == pe->count && i < pe->count;
         i++) {
        const cs_eng_combo_t *x = &ps->send_combo[pe->first + i];
        const cs_eng_combo_t *y = &pd->recv_combo[pr->first + i];
        CS_TEST_CHECK(cs_same_package_block(ps, x, pd, y),
                      "%s P %d: package %d -> %d block %" PRId64, s->name,
                      s->P, ps->me, pe->peer, i);
    }
    plan_free(pdp);
}

/* Check 1 and 3 for the plan of rank me; returns the plan. */
static cs_eng_plan_t *check_plan(const setup_t *s, int me, cost_t *c)
{
    cs_eng_plan_t *plan = plan_build(s, me, c);
    const cs_eng_exch_t *x = exch_of(plan);
    const cs_eng_op_t *op = &s->op;
    int ra, ca, rb, cb;
    cell_of(&s->a, me, &ra, &ca);
    cell_of(&s->b, me, &rb, &cb);
    int tr = op->trans ? ca : ra, tc = op->trans ? ra : ca;
    const bdim_t *R = &s->rows, *C = &s->cols;
    int64_t *rcnt = calloc((size_t)R->npa * (size_t)R->npb, sizeof(int64_t));
    int64_t *ccnt = calloc((size_t)C->npa * (size_t)C->npb, sizeof(int64_t));
    int64_t *send = calloc((size_t)s->P, sizeof(int64_t));
    int64_t *recv = calloc((size_t)s->P, sizeof(int64_t));
    CS_TEST_ASSERT(rcnt && ccnt && send && recv);
    bcount_t br, bc;
    bdim_count(R, tr, rb, &br, rcnt);
    bdim_count(C, tc, cb, &bc, ccnt);

    /* expected bytes to every B cell from my A cell, and from every A
     * cell to my B cell */
    int64_t es = (int64_t)op->esize;
    for (int i = 0; i < s->b.nprow; i++) {
        for (int j = 0; j < s->b.npcol; j++) {
            send[s->b.grid[i * s->b.npcol + j]] +=
                rcnt[tr * R->npb + i] * ccnt[tc * C->npb + j] * es;
        }
    }
    for (int i = 0; i < s->a.nprow; i++) {
        for (int j = 0; j < s->a.npcol; j++) {
            int ti = op->trans ? j : i, tj = op->trans ? i : j;
            recv[s->a.grid[i * s->a.npcol + j]] +=
                rcnt[ti * R->npb + rb] * ccnt[tj * C->npb + cb] * es;
        }
    }
    int nsend = 0, nrecv = 0;
    for (int q = 0; q < s->P; q++) {
        nsend += q != me && send[q] > 0;
        nrecv += q != me && recv[q] > 0;
    }
    int64_t sent, rcvd, self;
    cs_eng_plan_volume(plan, &sent, &rcvd, &self);
    CS_TEST_CHECK(x->nsend == nsend && x->nrecv == nrecv &&
                      self == send[me] && self == recv[me],
                  "%s P %d me %d: peers %d/%d self %" PRId64
                  ", want %d/%d %" PRId64,
                  s->name, s->P, me, x->nsend, x->nrecv, self, nsend,
                  nrecv, send[me]);
    for (int k = 0; k < x->nsend; k++) {
        const cs_eng_peer_t *p = &x->send[k];
        CS_TEST_CHECK(p->peer != me && p->bytes == send[p->peer],
                      "%s P %d me %d: %" PRId64 " bytes to %d, want %" PRId64,
                      s->name, s->P, me, p->bytes, p->peer, send[p->peer]);
    }
    for (int k = 0; k < x->nrecv; k++) {
        const cs_eng_peer_t *p = &x->recv[k];
        CS_TEST_CHECK(p->peer != me && p->bytes == recv[p->peer],
                      "%s P %d me %d: %" PRId64
                      " bytes from %d, want %" PRId64,
                      s->name, s->P, me, p->bytes, p->peer, recv[p->peer]);
    }

    /* the blocks of its packages and copies, and the overlay it keeps */
    int64_t sblk = combos_of(x->send, x->nsend);
    int64_t rblk = combos_of(x->recv, x->nrecv);
    CS_TEST_CHECK(sblk + x->nlocal == br.gpa * bc.gpa &&
                      rblk + x->nlocal == br.gpb * bc.gpb,
                  "%s P %d me %d: blocks %" PRId64 "+%" PRId64 "/%" PRId64
                  "+%" PRId64 ", want %" PRId64 "/%" PRId64,
                  s->name, s->P, me, sblk, x->nlocal, rblk, x->nlocal,
                  br.gpa * bc.gpa, br.gpb * bc.gpb);
    CS_TEST_CHECK(x->rows.nseg == br.segs &&
                      x->rows.ngroup == br.groups &&
                      x->cols.nseg == bc.segs &&
                      x->cols.ngroup == bc.groups,
                  "%s P %d me %d: overlay kept %" PRId64 "/%" PRId64
                  " x %" PRId64 "/%" PRId64 " segments/groups, want %" PRId64
                  "/%" PRId64 " x %" PRId64 "/%" PRId64,
                  s->name, s->P, me, x->rows.nseg, x->rows.ngroup,
                  x->cols.nseg, x->cols.ngroup, br.segs, br.groups,
                  bc.segs, bc.groups);

    /* check 3: kept bytes linear in the local counts (brute force) */
    int64_t blocks = br.gpa * bc.gpa + br.gpb * bc.gpb;
    int64_t bound = KEEP_SEG * (br.segs + bc.segs) + KEEP_BLK * blocks +
                    KEEP_PEER * (nsend + nrecv) + KEEP_FIXED;
    CS_TEST_CHECK(c->keep <= bound,
                  "%s P %d me %d: plan keeps %" PRId64 " bytes > %" PRId64
                  " (segs %" PRId64 ", blocks %" PRId64 ", peers %d)",
                  s->name, s->P, me, c->keep, bound, br.segs + bc.segs,
                  blocks, nsend + nrecv);
    /* check 4: the peak during create, O(Nr + Nc) */
    CS_TEST_CHECK(c->peak <= PEAK_BLK * s->dblocks + c->keep + KEEP_FIXED,
                  "%s P %d me %d: peak %" PRId64 " bytes > %d x %" PRId64
                  " blocks per dimension + %" PRId64,
                  s->name, s->P, me, c->peak, PEAK_BLK, s->dblocks, c->keep);
    free(rcnt);
    free(ccnt);
    free(send);
    free(recv);
    return plan;
}

/* ------------------------------------------------------------ main */

typedef struct {
    const char *name;
    int64_t keep, peak; /* largest over the samples */
    double sec;         /* mean */
    int64_t gblocks, dblocks;
} row_t;

static void run_checks(void)
{
    row_t tab[NCASE][NGRID];
    int64_t nplans = 0;
    printf("%-32s %5s %9s %6s %9s %9s %9s\n", "case", "P", "gblocks",
           "dblk", "keep_B", "peak_B", "cpu_us");
    for (int c = 0; c < NCASE; c++) {
        for (int gi = 0; gi < NGRID; gi++) {
            setup_t s;
            setup_init(&s, c, grid_g[gi]);
            row_t *t = &tab[c][gi];
            memset(t, 0, sizeof(*t));
            t->name = s.name;
            t->gblocks = s.gblocks;
            t->dblocks = s.dblocks;
            for (int k = 0; k < NSAMPLE; k++) {
                cost_t cost;
                int me = sample_rank(s.P, k);
                cs_eng_plan_t *plan = check_plan(&s, me, &cost);
                nplans++;
                if (gi == NGRID - 1 && k == 0) {
                    char line[512];
                    cs_eng_plan_describe(plan, line, sizeof(line));
                    printf("  P %d rank %d: %s\n", s.P, me, line);
                }
                /* check 2 on the first and last package */
                const cs_eng_exch_t *x = exch_of(plan);
                if (x->nsend > 0) {
                    check_package(&s, x, 0);
                    nplans++;
                }
                if (x->nsend > 1) {
                    check_package(&s, x, x->nsend - 1);
                    nplans++;
                }
                int64_t freed = plan_free(plan);
                CS_TEST_CHECK(freed == cost.keep,
                              "%s P %d me %d: destroy frees %" PRId64
                              " of %" PRId64 " bytes",
                              s.name, s.P, me, freed, cost.keep);
                t->keep = cost.keep > t->keep ? cost.keep : t->keep;
                t->peak = cost.peak > t->peak ? cost.peak : t->peak;
                t->sec += cost.sec / NSAMPLE;
            }
            printf("%-32s %5d %9" PRId64 " %6" PRId64 " %9" PRId64
                   " %9" PRId64 " %9.1f\n",
                   s.name, s.P, t->gblocks, t->dblocks, t->keep, t->peak,
                   t->sec * 1e6);
            setup_free(&s);
        }
        /* check 5: weak scaling (the setup must grow the global block
         * count about with P, x64) */
        const row_t *lo = &tab[c][0], *hi = &tab[c][NGRID - 1];
        CS_TEST_ASSERT(hi->gblocks >= 32 * lo->gblocks);
        int64_t kmin = INT64_MAX, kmax = 0;
        for (int gi = 0; gi < NGRID; gi++) {
            kmin = tab[c][gi].keep < kmin ? tab[c][gi].keep : kmin;
            kmax = tab[c][gi].keep > kmax ? tab[c][gi].keep : kmax;
        }
        CS_TEST_CHECK((double)kmax <= KEEP_RATIO * (double)kmin,
                      "%s: plan keeps %" PRId64 " .. %" PRId64
                      " bytes over P %d .. %d (want within x%.1f)",
                      lo->name, kmin, kmax,
                      grid_g[0] * grid_g[0],
                      grid_g[NGRID - 1] * grid_g[NGRID - 1], KEEP_RATIO);
        double dgrow = (double)hi->dblocks / (double)lo->dblocks;
        CS_TEST_CHECK((double)hi->peak <= PEAK_SLACK * dgrow *
                                              (double)lo->peak,
                      "%s: peak %" PRId64 " -> %" PRId64
                      " bytes while blocks per dimension grow x%.1f",
                      lo->name, lo->peak, hi->peak, dgrow);
    }
    printf("plans built %" PRId64 "\n", nplans);
}

/* make bench: time and memory per plan, the mean over the sample ranks of
 * enough repetitions to last about 0.2 s per grid. */
static void run_bench(void)
{
    printf("# plan creation on simulated grids (no MPI); local part %d^2 "
           "elements of A per rank\n",
           LOCAL_EXT);
    printf("%-32s %5s %9s %6s %9s %9s %9s\n", "case", "P", "gblocks",
           "dblk", "keep_B", "peak_B", "cpu_us");
    /* P = 256 .. 65536 (the checks stop at 4096) */
    static const int bench_g[] = {16, 32, 64, 128, 256};
    for (int c = 0; c < NCASE; c++) {
        for (size_t gi = 0; gi < sizeof(bench_g) / sizeof(bench_g[0]);
             gi++) {
            setup_t s;
            setup_init(&s, c, bench_g[gi]);
            int64_t keep = 0, peak = 0, n = 0;
            double t = 0;
            while (t < 0.2) {
                for (int k = 0; k < NSAMPLE; k++) {
                    cost_t cost;
                    plan_free(plan_build(&s, sample_rank(s.P, k), &cost));
                    keep = cost.keep > keep ? cost.keep : keep;
                    peak = cost.peak > peak ? cost.peak : peak;
                    t += cost.sec;
                    n++;
                }
            }
            printf("%-32s %5d %9" PRId64 " %6" PRId64 " %9" PRId64
                   " %9" PRId64 " %9.1f\n",
                   s.name, s.P, s.gblocks, s.dblocks, keep, peak,
                   t / (double)n * 1e6);
            setup_free(&s);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench") == 0) {
        run_bench();
        return 0;
    }
    run_checks();
    return cs_test_done();
}
