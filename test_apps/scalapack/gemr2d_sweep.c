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

/* ---- BLACS / ScaLAPACK prototypes (no headers are installed) ---- */
void Cblacs_pinfo(int *, int *);
void Cblacs_get(int, int, int *);
void Cblacs_gridinit(int *, const char *, int, int);
void Cblacs_gridmap(int *, int *, int, int, int);
void Cblacs_gridinfo(int, int *, int *, int *, int *);
void Cblacs_gridexit(int);
int Csys2blacs_handle(MPI_Comm);
void Cfree_blacs_system_handle(int);
int numroc_(int *, int *, int *, int *, int *);

void psgemr2d_(int *, int *, float *, int *, int *, int *, float *, int *,
               int *, int *, int *);
void pdgemr2d_(int *, int *, double *, int *, int *, int *, double *, int *,
               int *, int *, int *);
void pcgemr2d_(int *, int *, float *, int *, int *, int *, float *, int *,
               int *, int *, int *);
void pzgemr2d_(int *, int *, double *, int *, int *, int *, double *, int *,
               int *, int *, int *);
void pigemr2d_(int *, int *, int *, int *, int *, int *, int *, int *, int *,
               int *, int *);
void Cpsgemr2d(int, int, float *, int, int, int *, float *, int, int, int *,
               int);
void Cpdgemr2d(int, int, double *, int, int, int *, double *, int, int, int *,
               int);
void Cpcgemr2d(int, int, float *, int, int, int *, float *, int, int, int *,
               int);
void Cpzgemr2d(int, int, double *, int, int, int *, double *, int, int, int *,
               int);
void Cpigemr2d(int, int, int *, int, int, int *, int *, int, int, int *, int);

#define MAXP 64
enum { DTYPE_, CTXT_, M_, N_, MB_, NB_, RSRC_, CSRC_, LLD_ };

/* ---- PRNG: splitmix64, one stream per config ---- */
typedef struct { uint64_t s; } rng_t;

static uint64_t rng_next(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int rnd(rng_t *r, int n) /* 0..n-1 */
{
    return n <= 1 ? 0 : (int)(rng_next(r) % (uint64_t)n);
}
static int rrange(rng_t *r, int lo, int hi) { return lo + rnd(r, hi - lo + 1); }
static int chance(rng_t *r, int pct) { return rnd(r, 100) < pct; }
static void shuffle(rng_t *r, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(r, i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* ---- globals ---- */
static int g_rank, g_np, g_sysctx;
static long g_fail;          /* failed checks on this rank */
static long g_calls, g_calls_mn0;
static int g_verbose;
static double g_slow_ms = -1; /* --slow MS: report configs slower than MS */

/* one write per line so that the ranks' lines do not interleave */
#define FAILF(...)                                                            \
    do {                                                                      \
        char fb_[1024];                                                       \
        int fo_ = snprintf(fb_, sizeof fb_, "[rank %d] FAIL: ", g_rank);      \
        snprintf(fb_ + fo_, sizeof fb_ - (size_t)fo_, __VA_ARGS__);           \
        g_fail++;                                                             \
        fprintf(stderr, "%s\n", fb_);                                         \
    } while (0)

static void die(const char *msg)
{
    fprintf(stderr, "[rank %d] gemr2d_sweep: %s\n", g_rank, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* ---- grids ---- */
enum { GM_INIT_R, GM_INIT_C, GM_MAP, GM_SUB_INIT_R, GM_SUB_INIT_C,
       GM_SUB_MAP, GM_ALIAS, GM_NMETH };
static const char *meth_name[GM_NMETH] = {
    "init-R", "init-C", "map", "sub-init-R", "sub-init-C", "sub-map", "alias"};

typedef struct {
    int method, P, Q, n, ldu;
    int procs[MAXP];   /* procs[i*Q+j] = world rank at grid position (i,j) */
    int nextra;        /* sub-communicator members that are not in the grid */
    int ctxt;          /* this process's handle, -1 if not a member */
    int myrow, mycol;  /* expected coordinates, -1 if not a member */
    int sysh;          /* Csys2blacs_handle to free, or -1 */
    MPI_Comm comm;     /* sub-communicator to free, or MPI_COMM_NULL */
} grid_t;

/* Random shape P x Q with P*Q == n. */
static void rand_shape(rng_t *r, int n, int *P, int *Q)
{
    int div[MAXP] = {1}, nd = 0;
    for (int d = 1; d <= n; d++)
        if (n % d == 0)
            div[nd++] = d;
    *P = div[rnd(r, nd)];
    *Q = n / *P;
}

static int is_prefix_set(const int *s, int n)
{
    int seen[MAXP] = {0};
    for (int i = 0; i < n; i++) {
        if (s[i] >= n)
            return 0;
        seen[s[i]] = 1;
    }
    for (int i = 0; i < n; i++)
        if (!seen[i])
            return 0;
    return 1;
}

/*
 * Build a P x Q grid over the n = P*Q world ranks set[] (random order) with
 * the given method.  GM_INIT_* over the world system context can only use
 * ranks 0..n-1; the caller passes such a set.  Collective over the world
 * (every rank runs the same code with the same arguments).
 */
static void grid_create(rng_t *r, grid_t *g, int method, const int *set,
                        int P, int Q)
{
    int n = P * Q;
    memset(g, 0, sizeof *g);
    g->method = method;
    g->P = P;
    g->Q = Q;
    g->n = n;
    g->ctxt = -1;
    g->myrow = g->mycol = -1;
    g->sysh = -1;
    g->comm = MPI_COMM_NULL;
    g->ldu = P;

    int usermap[MAXP * 4];
    if (method == GM_INIT_R || method == GM_INIT_C) {
        for (int k = 0; k < n; k++) { /* world rank k */
            int i = method == GM_INIT_R ? k / Q : k % P;
            int j = method == GM_INIT_R ? k % Q : k / P;
            g->procs[i * Q + j] = k;
        }
        int ctxt = g_sysctx;
        Cblacs_gridinit(&ctxt, method == GM_INIT_R ? "R" : "C", P, Q);
        g->ctxt = ctxt;
    } else if (method == GM_MAP) {
        g->ldu = P + (chance(r, 30) ? rrange(r, 1, 2) : 0);
        for (int k = 0; k < g->ldu * Q; k++)
            usermap[k] = -77; /* unused rows of the map */
        for (int i = 0; i < P; i++)
            for (int j = 0; j < Q; j++) {
                g->procs[i * Q + j] = set[i * Q + j];
                usermap[i + j * g->ldu] = set[i * Q + j];
            }
        int ctxt = g_sysctx;
        Cblacs_gridmap(&ctxt, usermap, g->ldu, P, Q);
        g->ctxt = ctxt;
    } else { /* sub-communicator: set[] first (ranks 0..n-1), then extras */
        int key[MAXP], insub[MAXP] = {0};
        for (int k = 0; k < n; k++) {
            key[set[k]] = k;
            insub[set[k]] = 1;
        }
        int outside[MAXP], no = 0;
        for (int w = 0; w < g_np; w++)
            if (!insub[w])
                outside[no++] = w;
        shuffle(r, outside, no);
        g->nextra = no ? rnd(r, no + 1) : 0;
        for (int e = 0; e < g->nextra; e++) {
            key[outside[e]] = n + e;
            insub[outside[e]] = 1;
        }
        /* sub rank s -> grid position */
        int pos_of[MAXP];
        if (method == GM_SUB_INIT_R || method == GM_SUB_INIT_C) {
            for (int s = 0; s < n; s++) {
                int i = method == GM_SUB_INIT_R ? s / Q : s % P;
                int j = method == GM_SUB_INIT_R ? s % Q : s / P;
                pos_of[s] = i * Q + j;
            }
        } else {
            for (int s = 0; s < n; s++)
                pos_of[s] = s;
            shuffle(r, pos_of, n);
            g->ldu = P + (chance(r, 30) ? 1 : 0);
            for (int k = 0; k < g->ldu * Q; k++)
                usermap[k] = -77;
            for (int s = 0; s < n; s++) {
                int i = pos_of[s] / Q, j = pos_of[s] % Q;
                usermap[i + j * g->ldu] = s;
            }
        }
        for (int s = 0; s < n; s++)
            g->procs[pos_of[s]] = set[s];
        MPI_Comm_split(MPI_COMM_WORLD, insub[g_rank] ? 0 : MPI_UNDEFINED,
                       insub[g_rank] ? key[g_rank] : 0, &g->comm);
        if (g->comm != MPI_COMM_NULL) {
            g->sysh = Csys2blacs_handle(g->comm);
            int ctxt = g->sysh;
            if (method == GM_SUB_MAP)
                Cblacs_gridmap(&ctxt, usermap, g->ldu, P, Q);
            else
                Cblacs_gridinit(&ctxt, method == GM_SUB_INIT_R ? "R" : "C",
                                P, Q);
            g->ctxt = ctxt;
        }
    }
    for (int p = 0; p < n; p++)
        if (g->procs[p] == g_rank) {
            g->myrow = p / Q;
            g->mycol = p % Q;
        }
    /* sanity of the test itself: BLACS put us where we expect */
    int np, nq, mr, mc;
    Cblacs_gridinfo(g->ctxt, &np, &nq, &mr, &mc);
    if (g->myrow >= 0) {
        if (np != P || nq != Q || mr != g->myrow || mc != g->mycol) {
            fprintf(stderr,
                    "[rank %d] grid %s %dx%d: gridinfo %d %d %d %d, "
                    "expected %d %d\n", g_rank, meth_name[method], P, Q, np,
                    nq, mr, mc, g->myrow, g->mycol);
            die("unexpected BLACS grid layout");
        }
    } else if (g->ctxt != -1) {
        fprintf(stderr, "[rank %d] non-member got handle %d\n", g_rank,
                g->ctxt);
        die("unexpected BLACS handle for non-member");
    }
}

static void grid_alias(grid_t *dst, const grid_t *src)
{
    *dst = *src;
    dst->method = GM_ALIAS;
    dst->sysh = -1;
    dst->comm = MPI_COMM_NULL;
}

static void grid_free(grid_t *g)
{
    if (g->method == GM_ALIAS)
        return;
    if (g->ctxt >= 0)
        Cblacs_gridexit(g->ctxt);
    if (g->sysh >= 0)
        Cfree_blacs_system_handle(g->sysh);
    if (g->comm != MPI_COMM_NULL)
        MPI_Comm_free(&g->comm);
}

static int pick_method(rng_t *r)
{
    int x = rnd(r, 100);
    if (x < 20) return GM_INIT_R;
    if (x < 35) return GM_INIT_C;
    if (x < 65) return GM_MAP;
    if (x < 75) return GM_SUB_INIT_R;
    if (x < 85) return GM_SUB_INIT_C;
    return GM_SUB_MAP;
}

/* Build a grid over the set (n ranks); INIT_* over the world needs 0..n-1. */
static void grid_random(rng_t *r, grid_t *g, int *set, int n, int method)
{
    int P, Q;
    rand_shape(r, n, &P, &Q);
    if ((method == GM_INIT_R || method == GM_INIT_C) && !is_prefix_set(set, n))
        method = GM_MAP;
    grid_create(r, g, method, set, P, Q);
}

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

static int pick_block(rng_t *r, int dim)
{
    int x = rnd(r, 100);
    if (x < 30) return rrange(r, 1, 4);
    if (x < 60) return rrange(r, 5, 16);
    if (x < 78) return rrange(r, 17, 64);
    return (dim > 0 ? dim : 1) + rrange(r, 0, 10); /* >= the whole matrix */
}

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
    if (a->nel) {
        a->buf = malloc(a->nel * es);
        if (!a->buf)
            die("out of memory");
    }
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
        a->save = malloc(a->nel * es);
        if (!a->save)
            die("out of memory");
        memcpy(a->save, a->buf, a->nel * es);
    }
}

static void free_local(mat_t *a)
{
    free(a->buf);
    free(a->save);
    a->buf = a->save = NULL;
}

/* ---- digest: FNV-1a 64 ---- */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void hexbytes(char *out, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", p[n - 1 - i]); /* little endian word */
    if (n == 0)
        out[0] = 0;
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
    int all[MAXP];
    for (int w = 0; w < g_np; w++)
        all[w] = w;

    /* A */
    int na = rrange(r, 1, g_np);
    int seta[MAXP];
    int ma = pick_method(r);
    memcpy(seta, all, sizeof(int) * g_np);
    if (ma != GM_INIT_R && ma != GM_INIT_C)
        shuffle(r, seta, g_np);
    grid_random(r, &c->ga, seta, na, ma);

    /* B */
    int x = rnd(r, 100);
    int inA[MAXP] = {0};
    for (int p = 0; p < c->ga.n; p++)
        inA[c->ga.procs[p]] = 1;
    int comp[MAXP], nc = 0;
    for (int w = 0; w < g_np; w++)
        if (!inA[w])
            comp[nc++] = w;
    if (x < 15) {
        c->relB = 1;
        grid_alias(&c->gb, &c->ga);
    } else if (x < 35) {
        c->relB = 2;
        int setb[MAXP];
        memcpy(setb, c->ga.procs, sizeof(int) * c->ga.n);
        shuffle(r, setb, c->ga.n);
        grid_random(r, &c->gb, setb, c->ga.n, pick_method(r));
    } else if (x < 55 && nc > 0) {
        c->relB = 3;
        shuffle(r, comp, nc);
        grid_random(r, &c->gb, comp, rrange(r, 1, nc), pick_method(r));
    } else {
        c->relB = 0;
        int setb[MAXP];
        int mb = pick_method(r);
        memcpy(setb, all, sizeof(int) * g_np);
        if (mb != GM_INIT_R && mb != GM_INIT_C)
            shuffle(r, setb, g_np);
        grid_random(r, &c->gb, setb, rrange(r, 1, g_np), mb);
    }

    /* gcontext: all world processes */
    c->gkind = -1;
    if (c->ga.n == g_np && chance(r, 20)) {
        c->gkind = 0;
        grid_alias(&c->gg, &c->ga);
    } else if (c->gb.n == g_np && chance(r, 20)) {
        c->gkind = 1;
        grid_alias(&c->gg, &c->gb);
    } else {
        int shapes[4][2], ns = 0;
        shapes[ns][0] = 1; shapes[ns][1] = g_np; ns++;
        shapes[ns][0] = g_np; shapes[ns][1] = 1; ns++;
        if (g_np % 2 == 0 && g_np > 2) {
            shapes[ns][0] = 2; shapes[ns][1] = g_np / 2; ns++;
        }
        if (g_np % 3 == 0 && g_np > 3) {
            shapes[ns][0] = 3; shapes[ns][1] = g_np / 3; ns++;
        }
        int s = rnd(r, ns);
        int setg[MAXP];
        memcpy(setg, all, sizeof(int) * g_np);
        int y = rnd(r, 100), mg;
        if (y < 30) mg = GM_INIT_R;
        else if (y < 50) mg = GM_INIT_C;
        else if (y < 80) mg = GM_MAP;
        else mg = y < 87 ? GM_SUB_INIT_R : (y < 93 ? GM_SUB_INIT_C : GM_SUB_MAP);
        if (mg != GM_INIT_R && mg != GM_INIT_C)
            shuffle(r, setg, g_np);
        grid_create(r, &c->gg, mg, setg, shapes[s][0], shapes[s][1]);
    }
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

static void report_elem(const cfg_t *c, const char *what, int li, int lj,
                        int gi, int gj, const unsigned char *got,
                        const unsigned char *exp, size_t es)
{
    char hg[40], he[40];
    hexbytes(hg, got, es);
    hexbytes(he, exp, es);
    FAILF("cfg %d: %s local (%d,%d) global (%d,%d): got %s expected %s",
          c->k, what, li, lj, gi, gj, hg, he);
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
                    report_elem(c, what, li, lj, gi, gj, got, exp, es);
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
    memset(&dummy, 0, sizeof dummy);
    dummy.P = dummy.Q = 1;
    dummy.myrow = dummy.mycol = -1;
    dummy.ctxt = -1;
    draw_mat(r, &c->a, c->m, c->n, garbage ? &dummy : &c->ga);
    draw_mat(r, &c->b, c->m, c->n, garbage ? &dummy : &c->gb);
    if (g_verbose && g_rank == 0) {
        describe(c, desc, sizeof desc);
        fprintf(stderr, "%s\n", desc);
    }
    long before = g_fail;
    if (garbage) {
        int ga[9], gb[9];
        for (int e = 0; e < 9; e++) {
            ga[e] = (int)(rng_next(r) & 0x3ffff) - 100000;
            gb[e] = (int)(rng_next(r) & 0x3ffff) - 100000;
        }
        int gctx = chance(r, 50) ? -1 : (int)(rng_next(r) & 0xffff) + 1000;
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
    }
    size_t es = elsize(c->t);
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv(h, &c->a.nel, sizeof c->a.nel);
    if (c->a.nel)
        h = fnv(h, c->a.buf, c->a.nel * es);
    h = fnv(h, &c->b.nel, sizeof c->b.nel);
    if (c->b.nel)
        h = fnv(h, c->b.buf, c->b.nel * es);
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
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    if (g_np > MAXP)
        die("too many processes");

    uint64_t seed = 1;
    int count = -1, start = 0;
    const char *types = "sdczi", *digest = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--start") && i + 1 < argc)
            start = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--types") && i + 1 < argc)
            types = argv[++i];
        else if (!strcmp(argv[i], "--digest") && i + 1 < argc)
            digest = argv[++i];
        else if (!strcmp(argv[i], "--verbose"))
            g_verbose = 1;
        else if (!strcmp(argv[i], "--slow") && i + 1 < argc)
            g_slow_ms = atof(argv[++i]);
        else
            usage();
    }
    if (count < 0 || !types[0] || strspn(types, "sdczi") != strlen(types))
        usage();

    FILE *dig = stdout;
    if (digest) {
        char fn[4096];
        snprintf(fn, sizeof fn, "%s.%d", digest, g_rank);
        dig = fopen(fn, "w");
        if (!dig)
            die("cannot open the digest file");
    }

    int bp, bn;
    Cblacs_pinfo(&bp, &bn);
    Cblacs_get(-1, 0, &g_sysctx);

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
    if (dig != stdout)
        fclose(dig);
    else
        fflush(stdout);

    long mine[3] = {g_calls, g_calls_mn0, g_fail};
    long *all = malloc(sizeof(long) * 3 * (size_t)g_np);
    if (!all)
        die("out of memory");
    MPI_Gather(mine, 3, MPI_LONG, all, 3, MPI_LONG, 0, MPI_COMM_WORLD);
    long tot_fail = 0;
    if (g_rank == 0) {
        for (int p = 0; p < g_np; p++) {
            printf("calls %d %ld\n", p, all[3 * p]);
            printf("calls_mn0 %d %ld\n", p, all[3 * p + 1]);
            tot_fail += all[3 * p + 2];
        }
        fprintf(stderr, "gemr2d_sweep: %d procs, configs %d..%d, %.2f s, "
                        "%ld failed checks\n",
                g_np, start, start + count - 1, t1 - t0, tot_fail);
    }
    free(all);
    MPI_Bcast(&tot_fail, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        if (tot_fail == 0)
            printf("cs_test: OK\n");
        else
            printf("cs_test: FAILED (%ld checks)\n", tot_fail);
        fflush(stdout);
    }
    MPI_Finalize();
    return tot_fail ? 1 : 0;
}
