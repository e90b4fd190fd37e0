/*
 * test_apps/lib/cs_sweep.h - the process state, failure reporting and BLACS
 * grid machinery shared by the randomized differential sweeps
 * (gemr2d_sweep.c, tran_sweep.c).  Header only: it calls BLACS, which only
 * the ScaLAPACK programs link.
 *
 * Grids are drawn from the config's rng_t stream; the order and number of
 * draws are part of the sweeps' contract (same seed, same configs, same
 * digests), so the draws here must not change.
 */
#ifndef CS_SWEEP_H
#define CS_SWEEP_H

#include <mpi.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_digest.h"
#include "cs_rng.h"

#define MAXP 64 /* most processes a sweep runs on */

/* ---- this process (set by sweep_init) ---- */
static int g_rank, g_np, g_sysctx;
static const char *g_prog = "sweep";
static long g_fail; /* failed checks on this rank */

/* one write per line so that the ranks' lines do not interleave */
#define FAILF(...)                                                            \
    do {                                                                      \
        char fb_[1024];                                                       \
        int fo_ = snprintf(fb_, sizeof fb_, "[rank %d] FAIL: ", g_rank);      \
        snprintf(fb_ + fo_, sizeof fb_ - (size_t)fo_, __VA_ARGS__);           \
        g_fail++;                                                             \
        fprintf(stderr, "%s\n", fb_);                                         \
    } while (0)

static inline void die(const char *msg)
{
    fprintf(stderr, "[rank %d] %s: %s\n", g_rank, g_prog, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die("out of memory");
    return p;
}

/*
 * Guard zones: CS_SWEEP_GUARD bytes of a pattern before and after a local
 * array, so that a write just outside it (which the element checks inside
 * the array cannot see) is caught by guard_check() after each call.
 */
#define CS_SWEEP_GUARD 256

static inline unsigned char *guarded_alloc(size_t n)
{
    unsigned char *p = xmalloc(n + 2 * CS_SWEEP_GUARD);
    memset(p, 0xA5, CS_SWEEP_GUARD);
    memset(p + CS_SWEEP_GUARD + n, 0x5A, CS_SWEEP_GUARD);
    return p + CS_SWEEP_GUARD;
}

static inline void guarded_free(unsigned char *q)
{
    if (q)
        free(q - CS_SWEEP_GUARD);
}

/* Guard bytes of q (n bytes, from guarded_alloc) that changed; a FAIL line
 * for config k naming the array when any did. */
static inline long guard_check(const unsigned char *q, size_t n, int k,
                               const char *what)
{
    long bad = 0;
    if (!q)
        return 0;
    for (size_t i = 0; i < CS_SWEEP_GUARD; i++) {
        bad += q[(ptrdiff_t)i - CS_SWEEP_GUARD] != 0xA5;
        bad += q[n + i] != 0x5A;
    }
    if (bad)
        FAILF("cfg %d: %ld guard bytes around local %s overwritten", k, bad,
              what);
    return bad;
}

/* After MPI_Init: rank, size (at most MAXP), program name for messages. */
static inline void sweep_init(const char *prog)
{
    g_prog = prog;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    if (g_np > MAXP)
        die("too many processes");
}

/* After the arguments: BLACS set-up (system context in g_sysctx). */
static inline void sweep_blacs_init(void)
{
    int bp, bn;
    Cblacs_pinfo(&bp, &bn);
    Cblacs_get(-1, 0, &g_sysctx);
}

/* The digest stream: FILE.<rank> with --digest FILE, else stdout. */
static inline FILE *sweep_open_digest(const char *digest)
{
    if (!digest)
        return stdout;
    char fn[4096];
    snprintf(fn, sizeof fn, "%s.%d", digest, g_rank);
    FILE *dig = fopen(fn, "w");
    if (!dig)
        die("cannot open the digest file");
    return dig;
}

static inline void sweep_close_digest(FILE *dig)
{
    if (dig != stdout)
        fclose(dig);
    else
        fflush(stdout);
}

/* Digest of a config's local A and B/C arrays (element size es). */
static inline uint64_t sweep_digest(size_t anel, const void *abuf,
                                    size_t bnel, const void *bbuf, size_t es)
{
    uint64_t h = CS_FNV_INIT;
    h = cs_fnv(h, &anel, sizeof anel);
    if (anel)
        h = cs_fnv(h, abuf, anel * es);
    h = cs_fnv(h, &bnel, sizeof bnel);
    if (bnel)
        h = cs_fnv(h, bbuf, bnel * es);
    return h;
}

/* Last words (tot_fail: the failed checks of all ranks, known on rank 0):
 * the sentinel line from rank 0, MPI_Finalize, the exit status. */
static inline int sweep_finish(long tot_fail)
{
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

/* The options every sweep takes; sweep_common_arg() consumes one of them. */
typedef struct {
    uint64_t seed;      /* --seed S (default 1) */
    int count, start;   /* --count N (required), --start K (default 0) */
    const char *types;  /* --types sdczi (default all) */
    const char *digest; /* --digest FILE (default stdout) */
    int verbose;        /* --verbose */
} sweep_opts_t;

#define SWEEP_OPTS_DEFAULT {1, -1, 0, "sdczi", NULL, 0}

/* If argv[*i] is a common option, store it, step *i past its value and
 * return 1; else return 0. */
static inline int sweep_common_arg(int argc, char **argv, int *i,
                                   sweep_opts_t *o)
{
    const char *a = argv[*i];
    int has_val = *i + 1 < argc;
    if (!strcmp(a, "--seed") && has_val)
        o->seed = strtoull(argv[++*i], NULL, 0);
    else if (!strcmp(a, "--count") && has_val)
        o->count = atoi(argv[++*i]);
    else if (!strcmp(a, "--start") && has_val)
        o->start = atoi(argv[++*i]);
    else if (!strcmp(a, "--types") && has_val)
        o->types = argv[++*i];
    else if (!strcmp(a, "--digest") && has_val)
        o->digest = argv[++*i];
    else if (!strcmp(a, "--verbose"))
        o->verbose = 1;
    else
        return 0;
    return 1;
}

/* The common options are usable: a count and types from "sdczi". */
static inline int sweep_opts_ok(const sweep_opts_t *o)
{
    return o->count >= 0 && o->types[0] &&
           strspn(o->types, "sdczi") == strlen(o->types);
}

/* A FAIL line for one element (bit patterns of got and expected). */
static inline void sweep_report_elem(int k, const char *what, int li, int lj,
                                     int gi, int gj, const unsigned char *got,
                                     const unsigned char *exp, size_t es)
{
    char hg[40], he[40];
    cs_hexbytes(hg, got, es);
    cs_hexbytes(he, exp, es);
    FAILF("cfg %d: %s local (%d,%d) global (%d,%d): got %s expected %s", k,
          what, li, lj, gi, gj, hg, he);
}

/* Garbage descriptors and gcontext for the M or N = 0 calls. */
static inline void sweep_garbage_args(rng_t *r, int ga[9], int gb[9],
                                      int *gctx)
{
    for (int e = 0; e < 9; e++) {
        ga[e] = (int)(rng_next(r) & 0x3ffff) - 100000;
        gb[e] = (int)(rng_next(r) & 0x3ffff) - 100000;
    }
    *gctx = chance(r, 50) ? -1 : (int)(rng_next(r) & 0xffff) + 1000;
}

/* ---- grids ---- */
enum { GM_INIT_R, GM_INIT_C, GM_MAP, GM_SUB_INIT_R, GM_SUB_INIT_C,
       GM_SUB_MAP, GM_ALIAS, GM_NMETH };
static const char *const meth_name[GM_NMETH] = {
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
static inline void rand_shape(rng_t *r, int n, int *P, int *Q)
{
    int div[MAXP] = {1}, nd = 0;
    for (int d = 1; d <= n; d++)
        if (n % d == 0)
            div[nd++] = d;
    *P = div[rnd(r, nd)];
    *Q = n / *P;
}

static inline int is_prefix_set(const int *s, int n)
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
static inline void grid_create(rng_t *r, grid_t *g, int method,
                               const int *set, int P, int Q)
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
    int np_, nq_, mr, mc;
    Cblacs_gridinfo(g->ctxt, &np_, &nq_, &mr, &mc);
    if (g->myrow >= 0) {
        if (np_ != P || nq_ != Q || mr != g->myrow || mc != g->mycol) {
            fprintf(stderr,
                    "[rank %d] grid %s %dx%d: gridinfo %d %d %d %d, "
                    "expected %d %d\n", g_rank, meth_name[method], P, Q, np_,
                    nq_, mr, mc, g->myrow, g->mycol);
            die("unexpected BLACS grid layout");
        }
    } else if (g->ctxt != -1) {
        fprintf(stderr, "[rank %d] non-member got handle %d\n", g_rank,
                g->ctxt);
        die("unexpected BLACS handle for non-member");
    }
}

/* dst: the same grid as src under another name (never freed) */
static inline void grid_alias(grid_t *dst, const grid_t *src)
{
    *dst = *src;
    dst->method = GM_ALIAS;
    dst->sysh = -1;
    dst->comm = MPI_COMM_NULL;
}

/* No grid at all (1x1, nobody a member): for configs with garbage args. */
static inline void grid_none(grid_t *g)
{
    memset(g, 0, sizeof *g);
    g->P = g->Q = 1;
    g->myrow = g->mycol = -1;
    g->ctxt = -1;
}

static inline void grid_free(grid_t *g)
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

static inline int pick_method(rng_t *r)
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
static inline void grid_random(rng_t *r, grid_t *g, int *set, int n,
                               int method)
{
    int P, Q;
    rand_shape(r, n, &P, &Q);
    if ((method == GM_INIT_R || method == GM_INIT_C) && !is_prefix_set(set, n))
        method = GM_MAP;
    grid_create(r, g, method, set, P, Q);
}

/* A block size for a dimension: mostly small, sometimes >= the dimension */
static inline int pick_block(rng_t *r, int dim)
{
    int x = rnd(r, 100);
    if (x < 30) return rrange(r, 1, 4);
    if (x < 60) return rrange(r, 5, 16);
    if (x < 78) return rrange(r, 17, 64);
    return (dim > 0 ? dim : 1) + rrange(r, 0, 10); /* >= the whole matrix */
}

/*
 * The three grids of a redistribution (collective over the world): ga for
 * A over a random subset; gb for B related to ga by *relB (0 random, 1 same
 * context, 2 same processes, 3 disjoint); gg, the gcontext over all
 * processes, an alias of ga or gb (*gkind 0 or 1) or its own grid (-1).
 */
static inline void make_redist_grids(rng_t *r, grid_t *ga, grid_t *gb,
                                     grid_t *gg, int *relB, int *gkind)
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
    grid_random(r, ga, seta, na, ma);

    /* B */
    int x = rnd(r, 100);
    int inA[MAXP] = {0};
    for (int p = 0; p < ga->n; p++)
        inA[ga->procs[p]] = 1;
    int comp[MAXP], nc = 0;
    for (int w = 0; w < g_np; w++)
        if (!inA[w])
            comp[nc++] = w;
    if (x < 15) {
        *relB = 1;
        grid_alias(gb, ga);
    } else if (x < 35) {
        *relB = 2;
        int setb[MAXP];
        memcpy(setb, ga->procs, sizeof(int) * ga->n);
        shuffle(r, setb, ga->n);
        grid_random(r, gb, setb, ga->n, pick_method(r));
    } else if (x < 55 && nc > 0) {
        *relB = 3;
        shuffle(r, comp, nc);
        grid_random(r, gb, comp, rrange(r, 1, nc), pick_method(r));
    } else {
        *relB = 0;
        int setb[MAXP];
        int mb = pick_method(r);
        memcpy(setb, all, sizeof(int) * g_np);
        if (mb != GM_INIT_R && mb != GM_INIT_C)
            shuffle(r, setb, g_np);
        grid_random(r, gb, setb, rrange(r, 1, g_np), mb);
    }

    /* gcontext: all world processes */
    *gkind = -1;
    if (ga->n == g_np && chance(r, 20)) {
        *gkind = 0;
        grid_alias(gg, ga);
    } else if (gb->n == g_np && chance(r, 20)) {
        *gkind = 1;
        grid_alias(gg, gb);
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
        grid_create(r, gg, mg, setg, shapes[s][0], shapes[s][1]);
    }
}

#endif /* CS_SWEEP_H */
