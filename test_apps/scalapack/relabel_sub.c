/*
 * test_apps/scalapack/relabel_sub.c - a plain ScaLAPACK program that
 * redistributes a matrix between two BLACS grids on world ranks 1..P-1
 * only, while rank 0 stays out of those calls: process relabeling must see
 * grids and calls without rank 0 (COSTA_SHIM_RELABEL, docs/relabel.md;
 * check 62_relabel_subgrid).
 *
 *   relabel_sub [--n N] [--a MBxNB] [--b MBxNB] [--calls K]
 *               [--sys world|sub] [--world]
 *
 * Grid A is 1 x (P-1) with world ranks 1, 2, ..., P-1 by position; grid B
 * the same shape with the ranks rotated (P-1, 1, 2, ..., P-2): a process
 * permutation of A.  --sys world (default) creates both with
 * Cblacs_gridmap over the system context of MPI_COMM_WORLD (rank 0 takes
 * part in the creation and is in neither grid); --sys sub over the system
 * context of a communicator without rank 0 (Csys2blacs_handle; rank 0
 * does not see them at all), A with Cblacs_gridinit, B with
 * Cblacs_gridmap.  A (N x N doubles, blocks of --a) holds a function of
 * the global indices; ranks 1..P-1 copy it into B (blocks of --b) K times
 * with pdgemr2d_ on A's context.  --world first creates two grids over all
 * ranks, W0 (gridinit R, 2 x P/2) and W1 (the same shape in order C), and
 * every rank copies a matrix from W0 to W1 K times, so the run has grids
 * with and without rank 0.  Like any ScaLAPACK program it addresses
 * processes only by grid coordinates, so relabeling cannot change its
 * results.
 *
 * Output (rank 0): one line per position of B "digest <r> <c> <hex64>"
 * (a hash of that position's local B, so runs with other process maps
 * compare equal), "mapA ..." and "mapB ..." (world rank by position), with
 * --world also "wdigest ..." and "mapW1 ...", and "cs_test: OK" when every
 * element is right.
 */
#include <mpi.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_blacs.h"
#include "cs_test.h"

#define CS_RELABEL_APP_NAME "relabel_sub"
#include "cs_relabel_app.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 0x100000001b3ULL;
    }
    return h;
}

/* One distributed N x N matrix on a grid this process may not be in. */
typedef struct {
    int ctxt, p, q, r, c, mb, nb, lr, lc, ld;
    int desc[9];
    double *v;
} mat_t;

static void mat_init(mat_t *m, int ctxt, int n, int mb, int nb)
{
    memset(m, 0, sizeof(*m));
    m->ctxt = ctxt;
    m->p = m->q = m->r = m->c = -1;
    m->mb = mb;
    m->nb = nb;
    if (ctxt >= 0) {
        Cblacs_gridinfo(ctxt, &m->p, &m->q, &m->r, &m->c);
    }
    if (m->r < 0) {
        m->ctxt = -1;
        m->desc[1] = -1;
        return;
    }
    int zero = 0;
    m->lr = numroc_(&n, &mb, &m->r, &zero, &m->p);
    m->lc = numroc_(&n, &nb, &m->c, &zero, &m->q);
    m->ld = m->lr > 1 ? m->lr : 1;
    int d[9] = {1, ctxt, n, n, mb, nb, 0, 0, m->ld};
    memcpy(m->desc, d, sizeof(d));
    m->v = calloc((size_t)m->ld * (size_t)(m->lc > 0 ? m->lc : 1),
                  sizeof(double));
    if (!m->v) {
        die("out of memory");
    }
}

/* global index of local row/column l of a block-cyclic dimension */
static int64_t glob(int l, int nb, int coord, int nprocs)
{
    return (int64_t)(l / nb * nprocs + coord) * nb + l % nb;
}

static void mat_fill(mat_t *m)
{
    for (int lj = 0; lj < m->lc; lj++) {
        for (int li = 0; li < m->lr; li++) {
            m->v[(size_t)li + (size_t)lj * (size_t)m->ld] =
                value(glob(li, m->mb, m->r, m->p),
                      glob(lj, m->nb, m->c, m->q));
        }
    }
}

/* Check m against value(); its digest, wrong elements into *bad. */
static uint64_t mat_digest(const mat_t *m, long *bad)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int lj = 0; lj < m->lc; lj++) {
        for (int li = 0; li < m->lr; li++) {
            double x = m->v[(size_t)li + (size_t)lj * (size_t)m->ld];
            *bad += x != value(glob(li, m->mb, m->r, m->p),
                               glob(lj, m->nb, m->c, m->q));
            h = fnv(h, &x, sizeof(x));
        }
    }
    return h;
}

/* Rank 0 prints "<tag> r c hex" per position of m's grid (p x q) and
 * "<maptag> <world rank by position>"; every rank calls it. */
static void report(const char *tag, const char *maptag, const mat_t *m,
                   int p, int q)
{
    long bad = 0;
    uint64_t h = m->r >= 0 ? mat_digest(m, &bad) : 0;
    uint64_t mine[4] = {(uint64_t)(int64_t)m->r, (uint64_t)(int64_t)m->c, h,
                        (uint64_t)g_rank};
    uint64_t *all = malloc((size_t)g_np * sizeof(mine));
    long badsum = 0;
    if (!all) {
        die("out of memory");
    }
    MPI_Gather(mine, 4, MPI_UINT64_T, all, 4, MPI_UINT64_T, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(&bad, &badsum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        int *map = malloc((size_t)p * (size_t)q * sizeof(int));
        if (!map) {
            die("out of memory");
        }
        for (int i = 0; i < p * q; i++) {
            map[i] = -1;
        }
        for (int r = 0; r < p; r++) {
            for (int c = 0; c < q; c++) {
                for (int k = 0; k < g_np; k++) {
                    if (all[4 * k] == (uint64_t)r &&
                        all[4 * k + 1] == (uint64_t)c) {
                        printf("%s %d %d %016" PRIx64 "\n", tag, r, c,
                               all[4 * k + 2]);
                        map[r * q + c] = (int)all[4 * k + 3];
                    }
                }
            }
        }
        printf("%s", maptag);
        for (int i = 0; i < p * q; i++) {
            printf(" %d", map[i]);
        }
        printf("\n");
        free(map);
        if (badsum) {
            fprintf(stderr, "relabel_sub: %ld wrong elements (%s)\n", badsum,
                    tag);
            cs_test_failures++;
        }
    }
    free(all);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_np);
    int n = 600, mba = 50, nba = 50, mbb = 50, nbb = 50, calls = 4;
    int sub = 0, world = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--world")) {
            world = 1;
            continue;
        }
        if (!v) {
            die("missing argument value");
        }
        i++;
        if (!strcmp(a, "--n")) {
            n = atoi(v);
        } else if (!strcmp(a, "--a")) {
            parse_pair(v, &mba, &nba);
        } else if (!strcmp(a, "--b")) {
            parse_pair(v, &mbb, &nbb);
        } else if (!strcmp(a, "--calls")) {
            calls = atoi(v);
        } else if (!strcmp(a, "--sys")) {
            if (strcmp(v, "world") && strcmp(v, "sub")) {
                die("--sys must be world or sub");
            }
            sub = !strcmp(v, "sub");
        } else {
            die("unknown option");
        }
    }
    if (g_np < 3 || n < 1 || calls < 1 || (world && g_np % 2)) {
        die("needs 3 or more ranks (an even number with --world), N and K "
            "positive");
    }
    int one = 1, k1 = g_np - 1;

    /* ---- grids over all ranks, with rank 0 */
    mat_t w0, w1;
    if (world) {
        int c0, c1;
        Cblacs_get(-1, 0, &c0);
        Cblacs_gridinit(&c0, "R", 2, g_np / 2);
        Cblacs_get(-1, 0, &c1);
        Cblacs_gridinit(&c1, "C", 2, g_np / 2);
        mat_init(&w0, c0, n, mba, nba);
        mat_init(&w1, c1, n, mbb, nbb);
        mat_fill(&w0);
        for (int k = 0; k < calls; k++) {
            pdgemr2d_(&n, &n, w0.v, &one, &one, w0.desc, w1.v, &one, &one,
                      w1.desc, &c0);
        }
    }

    /* ---- grids on world ranks 1 .. P-1 */
    int ca = -1, cb = -1;
    int *map = malloc((size_t)k1 * sizeof(int));
    if (!map) {
        die("out of memory");
    }
    if (!sub) {
        /* every rank calls gridmap (collective over the system context);
         * rank 0 is in neither map and gets no grid */
        for (int i = 0; i < k1; i++) {
            map[i] = i + 1;
        }
        Cblacs_get(-1, 0, &ca);
        Cblacs_gridmap(&ca, map, 1, 1, k1);
        for (int i = 0; i < k1; i++) {
            map[i] = i == 0 ? k1 : i;
        }
        Cblacs_get(-1, 0, &cb);
        Cblacs_gridmap(&cb, map, 1, 1, k1);
    } else {
        MPI_Comm sc;
        MPI_Comm_split(MPI_COMM_WORLD, g_rank == 0 ? MPI_UNDEFINED : 1,
                       g_rank, &sc);
        if (g_rank > 0) { /* rank r is rank r - 1 of sc */
            ca = Csys2blacs_handle(sc);
            Cblacs_gridinit(&ca, "R", 1, k1);
            for (int i = 0; i < k1; i++) {
                map[i] = i == 0 ? k1 - 1 : i - 1;
            }
            cb = Csys2blacs_handle(sc);
            Cblacs_gridmap(&cb, map, 1, 1, k1);
        }
    }
    free(map);
    mat_t a, b;
    mat_init(&a, ca, n, mba, nba);
    mat_init(&b, cb, n, mbb, nbb);
    if (g_rank > 0) {
        if (a.r < 0 || b.r < 0) {
            die("rank > 0 not in grids A and B");
        }
        mat_fill(&a);
        for (int k = 0; k < calls; k++) {
            pdgemr2d_(&n, &n, a.v, &one, &one, a.desc, b.v, &one, &one,
                      b.desc, &a.ctxt);
        }
    } else if (a.r >= 0 || b.r >= 0) {
        die("rank 0 is in grid A or B");
    }

    report("digest", "mapB", &b, 1, k1);
    report("adigest", "mapA", &a, 1, k1); /* A unchanged, and its map */
    if (world) {
        report("wdigest", "mapW1", &w1, 2, g_np / 2);
        free(w0.v);
        free(w1.v);
        Cblacs_gridexit(w1.ctxt);
        Cblacs_gridexit(w0.ctxt);
    }
    free(a.v);
    free(b.v);
    if (g_rank > 0) {
        Cblacs_gridexit(cb);
        Cblacs_gridexit(ca);
    }
    MPI_Finalize();
    return g_rank == 0 ? cs_test_done() : 0;
}
