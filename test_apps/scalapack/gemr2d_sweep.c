/*
 * test_apps/scalapack/gemr2d_sweep.c - randomized differential sweep of
 * p{s,d,c,z,i}gemr2d_ / Cp{s,d,c,z,i}gemr2d in one MPI launch.
 *
 * Why: costa-shim replaces these routines and must be bit-identical to
 * ScaLAPACK for every valid input.  Every config draws (from --seed and its
 * index, identically on all ranks) a type, an entry point, A/B/gcontext grids
 * (gridinit R/C, gridmap with random permutation and LDU, grids on
 * sub-communicators, same / same-process / disjoint contexts, processes in
 * neither grid), sizes, block sizes, sources, offsets, LLD padding, garbage
 * DTYPE, NaN payload sentinels, and M or N = 0 with garbage arguments.
 * Each rank checks its local B element by element (bit patterns), that
 * nothing outside sub(B) and no padding changed, and that A is unchanged;
 * it also writes a digest line per config so runs natively and under the
 * shim can be compared exactly.
 *
 *   gemr2d_sweep --seed S --count N [--start K] [--types sdczi]
 *                [--digest FILE] [--verbose] [--slow MS]
 *
 * Output: digest lines "cfg <k> rank <r> calls <c> digest <hex64>" (to
 * FILE.<rank> with --digest, else stdout), then from rank 0 one line
 * "calls <rank> <count>" per rank (all p?gemr2d calls made, M/N = 0 ones
 * included), "calls_mn0 <rank> <count>" (the M or N = 0 calls among them)
 * and "cs_test: OK" when every rank passed.
 */
#include <mpi.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_sweep.h"

enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_ };

/* ---- globals (g_rank, g_np, g_sysctx, g_fail: cs_sweep.h) ---- */
static long g_calls, g_calls_mn0;
static int g_verbose;
static double g_slow_ms = -1; /* --slow MS: report configs slower than MS */

/* ---- element values (bit patterns) ---- */
static size_t elsize(char t)
{
    return t == 's' || t == 'i' ? 4 : t == 'd' || t == 'c' ? 8 : 16;
}

static uint32_t fbits(int gi, int gj, int k, int part, int nan)
{
    uint32_t b;
    if (nan && (gi + 2 * gj + k + part) % 7 == 0) {
        b = (((gi + gj + part) & 1) ? 0x7f800000u : 0x7fc00000u) |
            (uint32_t)(1 + gi + 256 * gj) | ((uint32_t)part << 16);
        if (gi % 3 == 0)
            b |= 0x80000000u;
        return b;
    }
    float v = (float)(1 + gi + 256 * gj + 65536 * (k % 60)) +
              (part ? 0.5f : 0.0f);
    if ((gi * 7 + gj * 3 + k) % 5 == 0)
        v = -v;
    if (part)
        v = -v;
    v = ldexpf(v, (k % 5) - 2);
    memcpy(&b, &v, 4);
    return b;
}

static uint64_t dbits(int gi, int gj, int k, int part, int nan)
{
    uint64_t b;
    if (nan && (gi + 2 * gj + k + part) % 7 == 0) {
        b = (((gi + gj + part) & 1) ? 0x7ff0000000000000ull
                                    : 0x7ff8000000000000ull) |
            (uint64_t)(1 + gi + 256 * gj) | ((uint64_t)part << 16) |
            ((uint64_t)(k & 0x3fffffff) << 17);
        if (gi % 3 == 0)
            b |= 0x8000000000000000ull;
        return b;
    }
    double v = (double)(1 + gi + 256 * gj) + 65536.0 * (k % 1000000) +
               (part ? 0.25 : 0.0);
    if ((gi * 7 + gj * 3 + k) % 5 == 0)
        v = -v;
    if (part)
        v = -v;
    v = ldexp(v, (k % 9) - 4);
    memcpy(&b, &v, 8);
    return b;
}

static void put_val(char t, unsigned char *dst, int gi, int gj, int k, int nan)
{
    uint32_t f[2];
    uint64_t d[2];
    int32_t iv;
    switch (t) {
    case 'i':
        iv = 1 + gi + 256 * gj + 65536 * (k % 15000);
        if ((gi * 7 + gj * 3 + k) % 5 == 0)
            iv = -iv;
        memcpy(dst, &iv, 4);
        break;
    case 's':
        f[0] = fbits(gi, gj, k, 0, nan);
        memcpy(dst, f, 4);
        break;
    case 'c':
        f[0] = fbits(gi, gj, k, 0, nan);
        f[1] = fbits(gi, gj, k, 1, nan);
        memcpy(dst, f, 8);
        break;
    case 'd':
        d[0] = dbits(gi, gj, k, 0, nan);
        memcpy(dst, d, 8);
        break;
    default:
        d[0] = dbits(gi, gj, k, 0, nan);
        d[1] = dbits(gi, gj, k, 1, nan);
        memcpy(dst, d, 16);
        break;
    }
}

/* which: 0 = A padding, 1 = B (untouched elements, padding, dummies). */
static void put_sentinel(char t, unsigned char *dst, int which, int k, int nan)
{
    float fs = which ? 1.25e30f : -1.5e30f;
    double ds = which ? 1.25e300 : -7.5e299;
    uint32_t fb;
    uint64_t db;
    int32_t iv = which ? 2000000001 : -2000000003;
    if (nan) {
        fb = which ? ((k & 1) ? 0x7fe5a5a5u : 0x7f85a5a5u) : 0xffa5a5a5u;
        db = which ? ((k & 1) ? 0x7ffda5a5a5a5a5a5ull : 0x7ff5a5a5a5a5a5a5ull)
                   : 0xfff5a5a5a5a5a5a5ull;
    } else {
        memcpy(&fb, &fs, 4);
        memcpy(&db, &ds, 8);
    }
    switch (t) {
    case 'i': memcpy(dst, &iv, 4); break;
    case 's': memcpy(dst, &fb, 4); break;
    case 'c': memcpy(dst, &fb, 4); memcpy(dst + 4, &fb, 4); break;
    case 'd': memcpy(dst, &db, 8); break;
    default: memcpy(dst, &db, 8); memcpy(dst + 8, &db, 8); break;
    }
}

/* ---- one distributed matrix as seen by this process ---- */
typedef struct {
    int M, N, MB, NB, RSRC, CSRC, I, J, dtype;
    int pad[MAXP];    /* LLD padding per world rank */
    int junk;         /* non-members: garbage in the non-CTXT entries */
    int dummy;        /* non-members: pass a small dummy array, not NULL */
    int desc[9];
    int locr, locc, lld;
    size_t nel;
    unsigned char *buf, *save;
} mat_t;

static void draw_mat(rng_t *r, mat_t *a, int m, int n, const grid_t *g)
{
    a->I = chance(r, 35) ? 1 : (chance(r, 85) ? rrange(r, 2, 6) : rrange(r, 7, 20));
    a->J = chance(r, 35) ? 1 : (chance(r, 85) ? rrange(r, 2, 6) : rrange(r, 7, 20));
    a->M = a->I - 1 + m + (chance(r, 50) ? 0 : rrange(r, 1, 8));
    a->N = a->J - 1 + n + (chance(r, 50) ? 0 : rrange(r, 1, 8));
    a->MB = pick_block(r, a->M);
    a->NB = pick_block(r, a->N);
    a->RSRC = rnd(r, g->P);
    a->CSRC = rnd(r, g->Q);
    int x = rnd(r, 100);
    a->dtype = x < 80 ? 1 : (x < 90 ? 777 : -5);
    for (int p = 0; p < MAXP; p++)
        a->pad[p] = chance(r, 25) ? rrange(r, 1, 3) : 0;
    a->junk = chance(r, 30);
    a->dummy = chance(r, 40);
}

/* Allocate and fill the local array; which: 0 = A, 1 = B. */
static void setup_local(const rng_t *r, mat_t *a, const grid_t *g, int which,
                        char t, int k, int nan)
{
    size_t es = elsize(t);
    int member = g->myrow >= 0;
    a->buf = a->save = NULL;
    a->nel = 0;
    a->locr = a->locc = a->lld = 0;
    a->desc[DTYPE_] = a->dtype;
    a->desc[CTXT_] = g->ctxt;
    a->desc[M_] = a->M;
    a->desc[N_] = a->N;
    a->desc[MB_] = a->MB;
    a->desc[NB_] = a->NB;
    a->desc[RSRC_] = a->RSRC;
    a->desc[CSRC_] = a->CSRC;
    if (member) {
        int myr = g->myrow, myc = g->mycol, P = g->P, Q = g->Q;
        a->locr = numroc_(&a->M, &a->MB, &myr, &a->RSRC, &P);
        a->locc = numroc_(&a->N, &a->NB, &myc, &a->CSRC, &Q);
        a->lld = a->locr + a->pad[g_rank];
        a->nel = (size_t)a->lld * (size_t)a->locc;
        a->desc[LLD_] = a->lld;
    } else {
        a->desc[LLD_] = a->locr;
        if (a->junk) { /* never read on non-members; local stream */
            rng_t lr = {r->s ^ (0x51ed2701ull * (uint64_t)(g_rank + 1))};
            for (int e = 0; e < 9; e++)
                if (e != CTXT_)
                    a->desc[e] = (int)(rng_next(&lr) & 0xffff) - 30000;
        }
        if (a->dummy)
            a->nel = 3;
    }
    if (a->nel)
        a->buf = guarded_alloc(a->nel * es);
    for (size_t e = 0; e < a->nel; e++)
        put_sentinel(t, a->buf + e * es, which, k, nan);
    if (member && which == 0) {
        for (int lj = 0; lj < a->locc; lj++) {
            int gj = ((lj / a->NB) * g->Q + (g->mycol - a->CSRC + g->Q) % g->Q)
                     * a->NB + lj % a->NB;
            for (int li = 0; li < a->locr; li++) {
                int gi = ((li / a->MB) * g->P +
                          (g->myrow - a->RSRC + g->P) % g->P) * a->MB +
                         li % a->MB;
                put_val(t, a->buf + ((size_t)lj * a->lld + li) * es, gi, gj,
                        k, nan);
            }
        }
    }
    if (a->nel) {
        a->save = xmalloc(a->nel * es);
        memcpy(a->save, a->buf, a->nel * es);
    }
}

static void free_local(mat_t *a)
{
    guarded_free(a->buf);
    free(a->save);
    a->buf = a->save = NULL;
}

/* ---- config ---- */
typedef struct {
    int k;
    char t;
    int fortran;
    int m, n;
    int zmode;      /* m or n == 0: 0 valid args, 1 garbage desc + NULL, 2 NULL */
    int nan;
    int relB;       /* 0 random, 1 same context, 2 same processes, 3 disjoint */
    int gkind;      /* -1 own grid, 0 alias A, 1 alias B */
    grid_t ga, gb, gg;
    mat_t a, b;
    int gctx;
} cfg_t;

static void describe(const cfg_t *c, char *s, size_t len)
{
    static const char *rel[] = {"random", "same-ctxt", "same-procs",
                                "disjoint"};
    int o = snprintf(s, len,
                     "cfg %d: %c %s m=%d n=%d zmode=%d nan=%d relB=%s", c->k,
                     c->t, c->fortran ? "p?gemr2d_" : "Cp?gemr2d", c->m, c->n,
                     c->zmode, c->nan, rel[c->relB]);
    const grid_t *gs[3] = {&c->ga, &c->gb, &c->gg};
    const mat_t *ms[2] = {&c->a, &c->b};
    const char *nm[3] = {"A", "B", "G"};
    for (int x = 0; x < 3 && o < (int)len; x++) {
        const grid_t *g = gs[x];
        o += snprintf(s + o, len - o, " | %s %s %dx%d ldu=%d extra=%d procs=",
                      nm[x], meth_name[g->method], g->P, g->Q, g->ldu,
                      g->nextra);
        for (int p = 0; p < g->n && o < (int)len; p++)
            o += snprintf(s + o, len - o, "%s%d", p ? "," : "", g->procs[p]);
        if (x < 2 && o < (int)len) {
            const mat_t *a = ms[x];
            o += snprintf(s + o, len - o,
                          " M=%d N=%d MB=%d NB=%d src=%d,%d I=%d J=%d dtype=%d",
                          a->M, a->N, a->MB, a->NB, a->RSRC, a->CSRC, a->I,
                          a->J, a->dtype);
        }
    }
}

static void draw_config(uint64_t seed, int k, const char *types, cfg_t *c,
                        rng_t *r)
{
    memset(c, 0, sizeof *c);
    /* hash (seed, k) into an independent state per config */
    rng_t h = {seed};
    h.s = rng_next(&h) ^ ((uint64_t)k * 0xd1b54a32d192ed03ull);
    r->s = rng_next(&h);
    c->k = k;
    c->t = types[rnd(r, (int)strlen(types))];
    c->fortran = rnd(r, 2);
    c->nan = c->t != 'i' && chance(r, 30);
    int x = rnd(r, 100);
    if (x < 8) { /* M or N = 0 */
        int y = rnd(r, 3);
        c->m = y == 1 ? rrange(r, 1, 20) : 0;
        c->n = y == 2 ? rrange(r, 1, 20) : 0;
        c->zmode = rnd(r, 3);
    } else if (x < 22) {
        c->m = rrange(r, 1, 150);
        c->n = rrange(r, 1, 150);
        if (c->m * c->n > 12000) /* keep the sweep fast */
            c->n = 12000 / c->m;
    } else {
        c->m = chance(r, 8) ? 1 : rrange(r, 1, 40);
        c->n = chance(r, 8) ? 1 : rrange(r, 1, 40);
    }
}

/* Create the grids of c (collective over the world). */
static void make_grids(cfg_t *c, rng_t *r)
{
    make_redist_grids(r, &c->ga, &c->gb, &c->gg, &c->relB, &c->gkind);
    c->gctx = c->gg.ctxt;
}

static void do_call(cfg_t *c, int *desca, int *descb, void *A, void *B,
                    int gctx)
{
    int m = c->m, n = c->n, ia = c->a.I, ja = c->a.J, ib = c->b.I,
        jb = c->b.J;
    if (c->fortran) {
        switch (c->t) {
        case 's': psgemr2d_(&m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx); break;
        case 'd': pdgemr2d_(&m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx); break;
        case 'c': pcgemr2d_(&m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx); break;
        case 'z': pzgemr2d_(&m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx); break;
        default: pigemr2d_(&m, &n, A, &ia, &ja, desca, B, &ib, &jb, descb, &gctx); break;
        }
    } else {
        switch (c->t) {
        case 's': Cpsgemr2d(m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        case 'd': Cpdgemr2d(m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        case 'c': Cpcgemr2d(m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        case 'z': Cpzgemr2d(m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        default: Cpigemr2d(m, n, A, ia, ja, desca, B, ib, jb, descb, gctx); break;
        }
    }
    g_calls++;
    if (m == 0 || n == 0)
        g_calls_mn0++;
}

/* Check local B after the call; returns the number of bad elements. */
static long check_b(const cfg_t *c)
{
    const mat_t *b = &c->b;
    const grid_t *g = &c->gb;
    size_t es = elsize(c->t);
    unsigned char exp[16];
    long bad = 0;
    if (!b->nel)
        return 0;
    if (g->myrow < 0) { /* dummy array of a non-member: untouched */
        if (memcmp(b->buf, b->save, b->nel * es)) {
            FAILF("cfg %d: dummy B array of a non-member was modified", c->k);
            bad++;
        }
        return bad;
    }
    for (int lj = 0; lj < b->locc; lj++) {
        int gj = ((lj / b->NB) * g->Q + (g->mycol - b->CSRC + g->Q) % g->Q) *
                 b->NB + lj % b->NB;
        for (int li = 0; li < b->lld; li++) {
            const unsigned char *got = b->buf + ((size_t)lj * b->lld + li) * es;
            int gi = -1;
            const char *what = "padding";
            if (li < b->locr) {
                gi = ((li / b->MB) * g->P + (g->myrow - b->RSRC + g->P) % g->P) *
                     b->MB + li % b->MB;
                int si = gi - (b->I - 1), sj = gj - (b->J - 1);
                if (si >= 0 && si < c->m && sj >= 0 && sj < c->n) {
                    put_val(c->t, exp, si + c->a.I - 1, sj + c->a.J - 1, c->k,
                            c->nan);
                    what = "sub(B)";
                } else {
                    memcpy(exp, b->save + ((size_t)lj * b->lld + li) * es, es);
                    what = "B outside sub(B)";
                }
            } else {
                memcpy(exp, b->save + ((size_t)lj * b->lld + li) * es, es);
            }
            if (memcmp(got, exp, es)) {
                if (bad < 5)
                    sweep_report_elem(c->k, what, li, lj, gi, gj, got,
                                      exp, es);
                bad++;
            }
        }
    }
    if (bad > 5)
        FAILF("cfg %d: %ld bad elements of B in all", c->k, bad);
    return bad;
}

static long check_a(const cfg_t *c)
{
    const mat_t *a = &c->a;
    size_t es = elsize(c->t);
    if (a->nel && memcmp(a->buf, a->save, a->nel * es)) {
        long bad = 0;
        for (size_t e = 0; e < a->nel; e++)
            if (memcmp(a->buf + e * es, a->save + e * es, es))
                bad++;
        FAILF("cfg %d: local A modified (%ld elements)", c->k, bad);
        return bad;
    }
    return 0;
}

static void run_config(cfg_t *c, rng_t *r, FILE *dig)
{
    char desc[4096];
    int garbage = (c->m == 0 || c->n == 0) && c->zmode != 0;
    if (!garbage)
        make_grids(c, r);
    /* matrices are drawn even without grids so the stream stays aligned */
    grid_t dummy;
    grid_none(&dummy);
    draw_mat(r, &c->a, c->m, c->n, garbage ? &dummy : &c->ga);
    draw_mat(r, &c->b, c->m, c->n, garbage ? &dummy : &c->gb);
    if (g_verbose && g_rank == 0) {
        describe(c, desc, sizeof desc);
        fprintf(stderr, "%s\n", desc);
    }
    long before = g_fail;
    if (garbage) {
        int ga[9], gb[9], gctx;
        sweep_garbage_args(r, ga, gb, &gctx);
        if (c->zmode == 1)
            do_call(c, ga, gb, NULL, NULL, gctx);
        else
            do_call(c, NULL, NULL, NULL, NULL, -1);
        c->a.nel = c->b.nel = 0;
        c->a.buf = c->b.buf = c->a.save = c->b.save = NULL;
    } else {
        setup_local(r, &c->a, &c->ga, 0, c->t, c->k, c->nan);
        setup_local(r, &c->b, &c->gb, 1, c->t, c->k, c->nan);
        do_call(c, c->a.desc, c->b.desc, c->a.buf, c->b.buf, c->gctx);
        check_a(c);
        check_b(c);
        size_t es = elsize(c->t);
        guard_check(c->a.buf, c->a.nel * es, c->k, "A");
        guard_check(c->b.buf, c->b.nel * es, c->k, "B");
    }
    size_t es = elsize(c->t);
    uint64_t h = sweep_digest(c->a.nel, c->a.buf, c->b.nel, c->b.buf, es);
    fprintf(dig, "cfg %d rank %d calls %ld digest %016" PRIx64 "\n", c->k,
            g_rank, g_calls, h);
    if (g_fail != before) {
        describe(c, desc, sizeof desc);
        fprintf(stderr, "[rank %d] failing config: %s\n", g_rank, desc);
    }
    free_local(&c->a);
    free_local(&c->b);
    if (!garbage) {
        grid_free(&c->gg);
        grid_free(&c->gb);
        grid_free(&c->ga);
    }
}

static void usage(void)
{
    if (g_rank == 0)
        fprintf(stderr, "usage: gemr2d_sweep --seed S --count N [--start K] "
                        "[--types sdczi] [--digest FILE] [--verbose] "
                        "[--slow MS]\n");
    MPI_Finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    sweep_init("gemr2d_sweep");

    sweep_opts_t o = SWEEP_OPTS_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (sweep_common_arg(argc, argv, &i, &o))
            continue;
        if (!strcmp(argv[i], "--slow") && i + 1 < argc)
            g_slow_ms = atof(argv[++i]);
        else
            usage();
    }
    if (!sweep_opts_ok(&o))
        usage();
    uint64_t seed = o.seed;
    int count = o.count, start = o.start;
    const char *types = o.types;
    g_verbose = o.verbose;

    FILE *dig = sweep_open_digest(o.digest);
    sweep_blacs_init();

    double t0 = MPI_Wtime();
    static cfg_t c;
    rng_t r;
    for (int k = start; k < start + count; k++) {
        double tc = MPI_Wtime();
        draw_config(seed, k, types, &c, &r);
        run_config(&c, &r, dig);
        tc = MPI_Wtime() - tc;
        if (g_slow_ms >= 0 && g_rank == 0 && tc * 1e3 > g_slow_ms) {
            char desc[4096];
            describe(&c, desc, sizeof desc);
            fprintf(stderr, "slow (%.1f ms): %s\n", tc * 1e3, desc);
        }
    }
    double t1 = MPI_Wtime();
    sweep_close_digest(dig);

    long mine[3] = {g_calls, g_calls_mn0, g_fail};
    long *all = xmalloc(sizeof(long) * 3 * (size_t)g_np);
    MPI_Gather(mine, 3, MPI_LONG, all, 3, MPI_LONG, 0, MPI_COMM_WORLD);
    long tot_fail = 0;
    if (g_rank == 0) {
        for (int p = 0; p < g_np; p++) {
            printf("calls %d %ld\n", p, all[3 * p]);
            printf("calls_mn0 %d %ld\n", p, all[3 * p + 1]);
            /* what the shim counts as path none */
            printf("calls_no_work %d %ld\n", p, all[3 * p + 1]);
            tot_fail += all[3 * p + 2];
        }
        fprintf(stderr, "gemr2d_sweep: %d procs, configs %d..%d, %.2f s, "
                        "%ld failed checks\n",
                g_np, start, start + count - 1, t1 - t0, tot_fail);
    }
    free(all);
    return sweep_finish(tot_fail);
}
