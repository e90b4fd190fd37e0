/*
 * test_apps/bench/bench_gemr2d.c - pdgemr2d_ benchmark: native ScaLAPACK vs.
 * costa-shim in the same process, plus the memcpy floor of the machine.
 *
 * A plain ScaLAPACK program (never linked with the shim): run it with
 *   LD_PRELOAD=libcosta_shim.so mpiexec -n 2 bench_gemr2d [options]
 * If the preloaded shim exports its hook costa_shim_set_enabled(int on)
 * (returns the previous state; off = every intercepted call goes straight to
 * the real ScaLAPACK routine), each case alternates native and shim calls,
 * each call timed between barriers (max over ranks), and reports the median
 * per call of each.  Without the hook only native times are measured.
 *
 * Cases (2 ranks, doubles; from the project's issue):
 *   a  4000x4000, blocks 128 -> 128, grid 1x2 -> 1x2
 *   b  4000x4000, blocks  36 -> 128, grid 1x2 -> 1x2
 *   c  4000x4000, blocks  64 ->  64, grid 1x2 -> 2x1
 *   d  3984x3984 sub-matrix of the 4000x4000 A at (17,17) to (1,1) of a
 *      3984x3984 B, blocks 128 -> 128, grid 1x2 -> 1x2
 *   e  200x200,   blocks  36 -> 128, grid 1x2 -> 1x2
 *
 * Each case checks once that the shim's B equals native's B bit for bit
 * (memcmp of the local arrays) and native's B against the generating function.
 * The copy floor of a case is the bytes a rank must read and write (its part
 * of sub(A) + its part of sub(B), max over ranks) divided by the read+write
 * bandwidth of memcpy measured with both ranks copying at once.
 *
 * Options: --cases abcde   cases to run (default all)
 *          --reps N        timed repetitions per case (default 15; 200 for e)
 *          --demo          application mode: case b called --calls times
 *                          (default 20) with no warm-up and no toggling;
 *                          prints the loop's elapsed time and a result check
 * Exit status: 0, or 1 if any check failed; 2 on bad usage.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

/* BLACS / ScaLAPACK entry points (declared here: no ScaLAPACK C header). */
void Cblacs_pinfo(int *mypnum, int *nprocs);
void Cblacs_get(int icontxt, int what, int *val);
void Cblacs_gridinit(int *icontxt, char *order, int nprow, int npcol);
void Cblacs_gridinfo(int icontxt, int *nprow, int *npcol, int *myrow,
                     int *mycol);
void Cblacs_gridexit(int icontxt);
void Cblacs_exit(int notdone);
int numroc_(const int *n, const int *nb, const int *iproc,
            const int *isrcproc, const int *nprocs);
void descinit_(int *desc, const int *m, const int *n, const int *mb,
               const int *nb, const int *irsrc, const int *icsrc,
               const int *ictxt, const int *lld, int *info);
void pdgemr2d_(const int *m, const int *n, const double *a, const int *ia,
               const int *ja, const int *desca, double *b, const int *ib,
               const int *jb, const int *descb, const int *ictxt);

typedef int (*set_enabled_fn)(int on);

enum { GRID_1X2 = 0, GRID_2X1 = 1, NGRIDS = 2 };

typedef struct {
    char id;
    const char *what;
    int ma, na;  /* global A */
    int mb_, nb_; /* global B */
    int m, n;    /* sub-matrix */
    int ia, ja, ib, jb;
    int blka, blkb;
    int grida, gridb;
    int reps;
} bench_case_t;

static const bench_case_t cases[] = {
    {'a', "4000x4000 blk 128->128 1x2->1x2", 4000, 4000, 4000, 4000, 4000,
     4000, 1, 1, 1, 1, 128, 128, GRID_1X2, GRID_1X2, 15},
    {'b', "4000x4000 blk 36->128 1x2->1x2", 4000, 4000, 4000, 4000, 4000,
     4000, 1, 1, 1, 1, 36, 128, GRID_1X2, GRID_1X2, 15},
    {'c', "4000x4000 blk 64->64 1x2->2x1", 4000, 4000, 4000, 4000, 4000, 4000,
     1, 1, 1, 1, 64, 64, GRID_1X2, GRID_2X1, 15},
    {'d', "3984x3984 (17,17)->(1,1) blk 128 1x2", 4000, 4000, 3984, 3984,
     3984, 3984, 17, 17, 1, 1, 128, 128, GRID_1X2, GRID_1X2, 15},
    {'e', "200x200 blk 36->128 1x2->1x2", 200, 200, 200, 200, 200, 200, 1, 1,
     1, 1, 36, 128, GRID_1X2, GRID_1X2, 200},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
} grid_t;

static int g_rank, g_nprocs;
static set_enabled_fn g_set_enabled;

/* A distributed matrix on one grid: descriptor and local storage. */
typedef struct {
    int desc[9];
    int locr, locc, lld;
    double *data;
    size_t count;
} dmat_t;

static void die(const char *msg)
{
    fprintf(stderr, "bench_gemr2d[%d]: %s\n", g_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        die("out of memory");
    return p;
}

/* Generating function: unique and exact in double for indices < 2^20. */
static inline double gen(int64_t gi, int64_t gj)
{
    return (double)(gi * 1048576 + gj) + 0.25;
}

/* 0-based local index -> 0-based global index (source process 0). */
static inline int64_t l2g(int l, int blk, int p, int np)
{
    return ((int64_t)(l / blk) * np + p) * blk + l % blk;
}

static void dmat_init(dmat_t *x, const grid_t *g, int m, int n, int blk)
{
    int zero = 0, info = 0;
    x->locr = numroc_(&m, &blk, &g->myrow, &zero, &g->nprow);
    x->locc = numroc_(&n, &blk, &g->mycol, &zero, &g->npcol);
    x->lld = x->locr > 1 ? x->locr : 1;
    descinit_(x->desc, &m, &n, &blk, &blk, &zero, &zero, &g->ctxt, &x->lld,
              &info);
    if (info != 0)
        die("descinit_ failed");
    x->count = (size_t)x->lld * (size_t)x->locc;
    x->data = xmalloc(x->count * sizeof(double));
}

static void dmat_fill_gen(dmat_t *x, const grid_t *g)
{
    int blk = x->desc[4];
    for (int lj = 0; lj < x->locc; lj++) {
        int64_t gj = l2g(lj, blk, g->mycol, g->npcol);
        for (int li = 0; li < x->locr; li++)
            x->data[(size_t)lj * (size_t)x->lld + (size_t)li] =
                gen(l2g(li, blk, g->myrow, g->nprow), gj);
    }
}

static void dmat_fill(dmat_t *x, double v)
{
    for (size_t k = 0; k < x->count; k++)
        x->data[k] = v;
}

/* Local check of B = sub(A) against the generating function; B entries
 * outside sub(B) must still hold `fill`.  Returns the number of bad ones. */
static long check_gen(const dmat_t *b, const grid_t *g, const bench_case_t *c,
                      double fill)
{
    long bad = 0;
    int blk = b->desc[4];
    for (int lj = 0; lj < b->locc; lj++) {
        int64_t gj = l2g(lj, blk, g->mycol, g->npcol); /* 0-based */
        int64_t sj = gj - (c->jb - 1);
        for (int li = 0; li < b->locr; li++) {
            int64_t gi = l2g(li, blk, g->myrow, g->nprow);
            int64_t si = gi - (c->ib - 1);
            double want = fill;
            if (si >= 0 && si < c->m && sj >= 0 && sj < c->n)
                want = gen(si + c->ia - 1, sj + c->ja - 1);
            if (memcmp(&b->data[(size_t)lj * (size_t)b->lld + (size_t)li], &want,
                       sizeof want) != 0)
                bad++;
        }
    }
    return bad;
}

/* Elements of rows [i0, i0+len) (1-based i0) owned by process p. */
static int64_t owned(int i0, int len, int blk, int p, int np)
{
    int zero = 0, hi = i0 - 1 + len, lo = i0 - 1;
    return (int64_t)numroc_(&hi, &blk, &p, &zero, &np) -
           numroc_(&lo, &blk, &p, &zero, &np);
}

static int64_t local_sub_elems(const grid_t *g, int i0, int j0, int m, int n,
                               int blk)
{
    return owned(i0, m, blk, g->myrow, g->nprow) *
           owned(j0, n, blk, g->mycol, g->npcol);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int shim_set(int on)
{
    return g_set_enabled ? g_set_enabled(on) : 0;
}

static void gemr2d(const bench_case_t *c, const dmat_t *a, dmat_t *b,
                   int ctxt)
{
    pdgemr2d_(&c->m, &c->n, a->data, &c->ia, &c->ja, a->desc, b->data, &c->ib,
              &c->jb, b->desc, &ctxt);
}

/* One call timed between barriers; local seconds (reduced by the caller). */
static double timed_call(const bench_case_t *c, const dmat_t *a, dmat_t *b,
                         int ctxt)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    gemr2d(c, a, b, ctxt);
    double t = MPI_Wtime() - t0;
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* memcpy bandwidth, both ranks copying at once: 3 rounds of 5 copies, each
 * copy timed between barriers (max over ranks); best round median.
 * Returns bytes copied per second per rank. */
static double measure_memcpy(size_t bytes)
{
    enum { ROUNDS = 3, COPIES = 5 };
    char *src = xmalloc(bytes), *dst = xmalloc(bytes);
    memset(src, g_rank + 1, bytes);
    memset(dst, 0, bytes);
    memcpy(dst, src, bytes); /* warm-up */
    double best = 1e300;
    for (int r = 0; r < ROUNDS; r++) {
        double t[COPIES], tmax[COPIES];
        for (int k = 0; k < COPIES; k++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            memcpy(dst, src, bytes);
            t[k] = MPI_Wtime() - t0;
            src[k] ^= dst[bytes - 1 - (size_t)k]; /* keep the copies alive */
        }
        MPI_Allreduce(t, tmax, COPIES, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        double med = median(tmax, COPIES);
        if (med < best)
            best = med;
    }
    free(src);
    free(dst);
    return (double)bytes / best;
}

typedef struct {
    double native_ms, shim_ms, floor_ms;
    int ok; /* 1 ok, 0 FAIL */
} result_t;

static result_t run_case(const bench_case_t *c, const grid_t *grids,
                         int reps, int have_shim, double rw_bw)
{
    const grid_t *ga = &grids[c->grida], *gb = &grids[c->gridb];
    int ctxt = grids[GRID_1X2].ctxt; /* spans both grids' processes */
    const double fill = -1.0;
    dmat_t a, bn, bs;
    result_t res = {0.0, 0.0, 0.0, 1};

    dmat_init(&a, ga, c->ma, c->na, c->blka);
    dmat_init(&bn, gb, c->mb_, c->nb_, c->blkb);
    dmat_init(&bs, gb, c->mb_, c->nb_, c->blkb);
    dmat_fill_gen(&a, ga);
    dmat_fill(&bn, fill);
    dmat_fill(&bs, fill);

    /* Verification, also the first warm-up of both paths. */
    shim_set(0);
    gemr2d(c, &a, &bn, ctxt);
    long bad[2] = {check_gen(&bn, gb, c, fill), 0}, gbad[2];
    if (have_shim) {
        shim_set(1);
        gemr2d(c, &a, &bs, ctxt);
        bad[1] = memcmp(bn.data, bs.data, bn.count * sizeof(double)) != 0;
    }
    MPI_Allreduce(bad, gbad, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (gbad[0] || gbad[1]) {
        res.ok = 0;
        if (g_rank == 0) {
            if (gbad[0])
                printf("FAIL case %c: native result wrong in %ld elements\n",
                       c->id, gbad[0]);
            if (gbad[1])
                printf("FAIL case %c: shim result differs from native on "
                       "%ld rank(s)\n", c->id, gbad[1]);
        }
    }

    int warm = c->m * c->n < 1000000 ? 10 : 2;
    for (int w = 0; w < warm; w++) {
        shim_set(0);
        gemr2d(c, &a, &bn, ctxt);
        if (have_shim) {
            shim_set(1);
            gemr2d(c, &a, &bs, ctxt);
        }
    }

    double *tn = xmalloc(2 * (size_t)reps * sizeof(double));
    double *ts = tn + reps;
    double *tmax = xmalloc(2 * (size_t)reps * sizeof(double));
    for (int r = 0; r < reps; r++) {
        /* alternate which path goes first, so neither always gets the
         * caches the other left behind */
        for (int k = 0; k < 2; k++) {
            int shim_turn = (k == 0) == (r % 2 == 1);
            if (shim_turn && !have_shim)
                continue;
            shim_set(shim_turn);
            if (shim_turn)
                ts[r] = timed_call(c, &a, &bs, ctxt);
            else
                tn[r] = timed_call(c, &a, &bn, ctxt);
        }
    }
    if (!have_shim)
        memset(ts, 0, (size_t)reps * sizeof(double));
    shim_set(1);
    MPI_Allreduce(tn, tmax, 2 * reps, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    res.native_ms = 1e3 * median(tmax, reps);
    res.shim_ms = have_shim ? 1e3 * median(tmax + reps, reps) : 0.0;

    /* Copy floor: read own part of sub(A) + write own part of sub(B). */
    int64_t loc = local_sub_elems(ga, c->ia, c->ja, c->m, c->n, c->blka) +
                  local_sub_elems(gb, c->ib, c->jb, c->m, c->n, c->blkb);
    int64_t locmax = 0;
    MPI_Allreduce(&loc, &locmax, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    res.floor_ms = 1e3 * (double)locmax * (double)sizeof(double) / rw_bw;

    free(tn);
    free(tmax);
    free(a.data);
    free(bn.data);
    free(bs.data);
    return res;
}

static int run_demo(const grid_t *grids, int calls)
{
    const bench_case_t *c = &cases[1]; /* b: 36 -> 128 */
    const grid_t *ga = &grids[c->grida], *gb = &grids[c->gridb];
    int ctxt = grids[GRID_1X2].ctxt;
    dmat_t a, b;
    dmat_init(&a, ga, c->ma, c->na, c->blka);
    dmat_init(&b, gb, c->mb_, c->nb_, c->blkb);
    dmat_fill_gen(&a, ga);
    dmat_fill(&b, -1.0);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < calls; k++)
        gemr2d(c, &a, &b, ctxt);
    MPI_Barrier(MPI_COMM_WORLD);
    double el = MPI_Wtime() - t0;

    long bad = check_gen(&b, gb, c, -1.0), gbad = 0;
    MPI_Allreduce(&bad, &gbad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) {
        printf("demo: pdgemr2d_ %dx%d doubles, blocks %d -> %d, grid 1x2, "
               "%d ranks\n", c->m, c->n, c->blka, c->blkb, g_nprocs);
        printf("demo: calls:%d elapsed_s:%.6f per_call_ms:%.3f check:%s\n",
               calls, el, 1e3 * el / calls, gbad ? "FAIL" : "OK");
        fflush(stdout);
    }
    free(a.data);
    free(b.data);
    return gbad ? 1 : 0;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_gemr2d [--cases abcde] [--reps N] "
               "[--demo [--calls N]]\n");
}

int main(int argc, char **argv)
{
    const char *which = "abcde";
    int reps = 0, demo = 0, calls = 20, rc = 0;

    MPI_Init(&argc, &argv);
    Cblacs_pinfo(&g_rank, &g_nprocs);

    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(o, "--cases") && v) {
            which = v;
            i++;
        } else if (!strcmp(o, "--reps") && v) {
            reps = (int)strtol(v, &end, 10);
            i++;
            if (*end || reps < 1)
                rc = 2;
        } else if (!strcmp(o, "--calls") && v) {
            calls = (int)strtol(v, &end, 10);
            i++;
            if (*end || calls < 1)
                rc = 2;
        } else if (!strcmp(o, "--demo")) {
            demo = 1;
        } else if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
            if (g_rank == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else {
            rc = 2;
        }
    }
    for (const char *p = which; *p && rc == 0; p++)
        if (*p < 'a' || *p >= 'a' + NCASES)
            rc = 2;
    if (rc == 0 && g_nprocs != 2) {
        if (g_rank == 0)
            fprintf(stderr, "bench_gemr2d: needs exactly 2 ranks, got %d\n",
                    g_nprocs);
        rc = 2;
    }
    if (rc) {
        if (g_rank == 0)
            usage(stderr);
        MPI_Finalize();
        return rc;
    }

    grid_t grids[NGRIDS];
    char order[] = "Row";
    for (int k = 0; k < NGRIDS; k++) {
        grid_t *g = &grids[k];
        Cblacs_get(-1, 0, &g->ctxt);
        Cblacs_gridinit(&g->ctxt, order, k == GRID_1X2 ? 1 : 2,
                        k == GRID_1X2 ? 2 : 1);
        Cblacs_gridinfo(g->ctxt, &g->nprow, &g->npcol, &g->myrow, &g->mycol);
        if (g->myrow < 0)
            die("process not in grid");
    }

    if (demo) {
        rc = run_demo(grids, calls);
    } else {
        /* The hook is looked up, never linked: the program stays a plain
         * ScaLAPACK program that runs without the preload. */
        void *sym = dlsym(RTLD_DEFAULT, "costa_shim_set_enabled");
        memcpy(&g_set_enabled, &sym, sizeof sym);
        int have = g_set_enabled != NULL, all_have = 0;
        MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!all_have)
            g_set_enabled = NULL;

        size_t cbytes = (size_t)256 << 20;
        double bw = measure_memcpy(cbytes); /* copied bytes/s per rank */
        double rw_bw = 2.0 * bw;            /* read + written bytes/s */
        if (g_rank == 0) {
            printf("pdgemr2d_ benchmark, %d ranks; times: median per call, "
                   "each call max over ranks\n", g_nprocs);
            if (all_have)
                printf("mode: native vs costa-shim interleaved "
                       "(costa_shim_set_enabled found)\n");
            else
                printf("mode: NATIVE ONLY - costa_shim_set_enabled not found "
                       "(shim not preloaded); last column is floor/native\n");
            printf("memcpy: %zu MiB per rank, %d ranks at once: %.2f GB/s "
                   "copied per rank (%.2f GB/s read+write)\n",
                   cbytes >> 20, g_nprocs, bw / 1e9, rw_bw / 1e9);
            printf("floor: (own part of sub(A) read + own part of sub(B) "
                   "written, max over ranks) / read+write bandwidth\n\n");
            printf("%-4s %-38s %5s %10s %10s %8s %9s %8s %5s\n", "case",
                   "description", "reps", "native_ms", "shim_ms",
                   "shim/nat", "floor_ms", all_have ? "fl/shim" : "fl/nat",
                   "check");
            fflush(stdout);
        }
        for (const char *p = which; *p; p++) {
            const bench_case_t *c = &cases[*p - 'a'];
            int r = reps ? reps : c->reps;
            result_t res = run_case(c, grids, r, all_have, rw_bw);
            if (!res.ok)
                rc = 1;
            if (g_rank != 0)
                continue;
            char shim_s[32] = "-", ratio_s[32] = "-";
            double t = all_have ? res.shim_ms : res.native_ms;
            if (all_have) {
                snprintf(shim_s, sizeof shim_s, "%.3f", res.shim_ms);
                snprintf(ratio_s, sizeof ratio_s, "%.3f",
                         res.shim_ms / res.native_ms);
            }
            printf("%-4c %-38s %5d %10.3f %10s %8s %9.3f %8.3f %5s\n", c->id,
                   c->what, r, res.native_ms, shim_s, ratio_s, res.floor_ms,
                   t > 0 ? res.floor_ms / t : 0.0,
                   res.ok ? (all_have ? "ok" : "ok*") : "FAIL");
            fflush(stdout);
        }
        if (g_rank == 0 && !all_have)
            printf("\nok*: native result checked against the generating "
                   "function only (no shim)\n");
    }

    for (int k = NGRIDS - 1; k >= 0; k--)
        Cblacs_gridexit(grids[k].ctxt);
    Cblacs_exit(1);
    MPI_Finalize();
    return rc;
}
