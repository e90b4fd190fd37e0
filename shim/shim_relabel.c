/*
 * shim/shim_relabel.c - COSTA_SHIM_RELABEL: what relabeling would save per
 * call shape, the plan computed from all observed redistributions, and
 * reading the plan back for apply mode (shim_relabel.h, docs/relabel.md).
 *
 * Every rank computes the per-call numbers itself from the global layouts
 * (no communication; the solver runs with time budget 0, so every rank
 * gets the same permutation).  Only the keeper of a call (the lowest world
 * rank of its global context) keeps the position volumes of its grid pair;
 * the other ranks keep only the cache of (shape -> two numbers).  At
 * MPI_Finalize rank 0 gathers every rank's grids and pairs (two gathers:
 * sizes, then the accepted bytes) and writes the plan.  Memory is bounded
 * by the constants in shim_relabel.h, on every rank and on rank 0.
 *
 * RATIONALE, plan: relabeling grid g changes only the bytes of
 * redistributions between g and another grid (a redistribution from a grid
 * to itself moves exactly the same bytes under any relabeling of that
 * grid).  With all other grids fixed, the best map of g is a linear
 * assignment: W[i][j] = bytes process i would keep if it played position j
 * of g, summed over g's pairs.  The first grid of each group of grids
 * linked by calls is fixed; the others are optimised one by one, in plan
 * order, for a few rounds of coordinate descent (each step never increases
 * the total, with the exact solver up to CS_RL_EXACT_MAX_P positions).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/log.h"
#include "relabel/relabel.h"
#include "shim/shim_relabel.h"

#define CS_SHIM_RELABEL_ROUNDS 8
#define PLAN_MAGIC "costa_shim_relabel_plan"
#define PLAN_VERSION 2 /* 1 (no scope line: rank 0's view) is read too */
#define PLAN_MSG_LEN (CS_CFG_PATH_LEN + 1024)

static pthread_mutex_t cs_rl_lock = PTHREAD_MUTEX_INITIALIZER;

uint64_t cs_shim_relabel_hash(uint64_t seed, const int *v, int64_t n)
{
    uint64_t h = seed ^ 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i++) {
        uint32_t x = (uint32_t)v[i];
        for (int b = 0; b < 4; b++) {
            h ^= (x >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ULL;
        }
    }
    return h;
}

/* a + b, saturating at INT64_MAX (sets *sat) */
static int64_t add_sat(int64_t a, int64_t b, int *sat)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *sat = 1;
        return INT64_MAX;
    }
    return r;
}

static int64_t mul_sat(int64_t a, int64_t b, int *sat)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *sat = 1;
        return INT64_MAX;
    }
    return r;
}

/* MPI_COMM_WORLD rank and size, also on a process that never called an
 * intercepted routine (finalize). */
static int world_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static int world_size(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* ------------------------------------------------------------ state */

/* Everything that decides a call's volume matrix and where it is counted,
 * all int64_t so that memcmp sees no padding. */
typedef struct {
    int64_t m, n, ia, ja, ib, jb, esize, trans, mask, mask_k;
    int64_t dist[2][2][5]; /* [A|B][rows|cols]: n, nb, first, src, nprocs */
    int64_t np;
    int64_t sa, oa, sb, ob; /* grids: stamp (-1 unknown) and owner */
    int64_t keeper;         /* lowest world rank of the context */
    int64_t hash_a, hash_b; /* world-rank maps */
} shape_key_t;

typedef struct {
    int used;
    int id;             /* shape number for the log */
    uint64_t last_use;
    shape_key_t key;
    int64_t cross, best;
    int pa, pb;         /* positions of A's and B's grids */
    int64_t *posmat;    /* keeper: pa x pb bytes, position to position */
    int64_t calls;      /* calls not yet added to the pair */
} shape_t;

/* Position volumes of the calls from grid (sa, oa) to grid (sb, ob) this
 * process kept. */
typedef struct {
    int sa, oa, sb, ob, pa, pb;
    int64_t calls;
    int64_t *v;         /* pa x pb */
} pair_t;

static shape_t cs_shapes[CS_SHIM_RELABEL_SHAPES];
static int cs_shape_ids;
static uint64_t cs_use_clock;
static pair_t cs_pairs[CS_SHIM_RELABEL_PAIRS];
static int cs_npairs;
static int64_t cs_kept_bytes;   /* bytes of posmat and pair matrices */

/* totals over the calls this process kept */
static int64_t cs_calls_seen;
static int64_t cs_cross_total;  /* with the application's maps */
static int cs_incomplete;       /* some call could not enter the plan */
static int cs_saturated;

/* ------------------------------------------------------------ pairs */

static pair_t *pair_get(const shape_key_t *k, int pa, int pb)
{
    for (int i = 0; i < cs_npairs; i++) {
        pair_t *p = &cs_pairs[i];
        if (p->sa == k->sa && p->oa == k->oa && p->sb == k->sb &&
            p->ob == k->ob) {
            return p->pa == pa && p->pb == pb ? p : NULL;
        }
    }
    int64_t bytes = (int64_t)pa * pb * (int64_t)sizeof(int64_t);
    if (cs_npairs == CS_SHIM_RELABEL_PAIRS ||
        cs_kept_bytes + bytes > CS_SHIM_RELABEL_MAX_BYTES) {
        return NULL;
    }
    int64_t *v = calloc((size_t)pa * (size_t)pb, sizeof(int64_t));
    if (!v) {
        return NULL;
    }
    cs_kept_bytes += bytes;
    pair_t *p = &cs_pairs[cs_npairs++];
    *p = (pair_t){(int)k->sa, (int)k->oa, (int)k->sb, (int)k->ob, pa, pb, 0,
                  v};
    return p;
}

/* Add the shape's pending calls to its grid pair. */
static void shape_flush(shape_t *s)
{
    if (!s->posmat || s->calls == 0) {
        return;
    }
    pair_t *p = pair_get(&s->key, s->pa, s->pb);
    if (!p) {
        cs_incomplete = 1;
    } else {
        int64_t n = (int64_t)s->pa * s->pb;
        for (int64_t k = 0; k < n; k++) {
            p->v[k] = add_sat(p->v[k], mul_sat(s->calls, s->posmat[k],
                                               &cs_saturated),
                              &cs_saturated);
        }
        p->calls += s->calls;
    }
    s->calls = 0;
}

static void shape_free(shape_t *s)
{
    shape_flush(s);
    if (s->posmat) {
        cs_kept_bytes -= (int64_t)s->pa * s->pb * (int64_t)sizeof(int64_t);
        free(s->posmat);
    }
    memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------ calls */

static void key_dist(int64_t *f, const cs_eng_dist_t *d)
{
    f[0] = d->n;
    f[1] = d->nb;
    f[2] = d->first;
    f[3] = d->src;
    f[4] = d->nprocs;
}

/* The volumes of a new shape: crossing with the application's mapping,
 * and with the best relabeling of B's grid over B's processes.  Returns
 * the np x np matrix (caller frees) or NULL. */
static int64_t *shape_compute(shape_t *s, const cs_eng_layout_t *la,
                              const cs_eng_layout_t *lb,
                              const cs_eng_op_t *op, int np)
{
    int64_t *vol = calloc((size_t)np * (size_t)np, sizeof(int64_t));
    int pb = lb->nprow * lb->npcol;
    int64_t *w = malloc((size_t)pb * (size_t)pb * sizeof(int64_t));
    int *perm = malloc((size_t)pb * sizeof(int));
    if (!vol || !w || !perm ||
        cs_eng_volume_matrix(la, lb, op, np, vol) != CS_OK) {
        goto err;
    }
    int64_t total = 0, trace = 0;
    int sat = 0;
    for (int64_t k = 0; k < (int64_t)np * np; k++) {
        total = add_sat(total, vol[k], &sat);
    }
    for (int i = 0; i < np; i++) {
        trace += vol[(int64_t)i * np + i];
    }
    /* process i of B's set is the one at B's position i now, so the
     * identity permutation is the application's mapping */
    for (int i = 0; i < pb; i++) {
        for (int j = 0; j < pb; j++) {
            w[(int64_t)i * pb + j] =
                vol[(int64_t)lb->grid[i] * np + lb->grid[j]];
        }
    }
    cs_rl_result_t res;
    if (sat || cs_rl_solve(pb, w, 0.0, perm, &res) != CS_RL_OK) {
        goto err;
    }
    int64_t kept = 0;
    for (int j = 0; j < pb; j++) {
        kept += w[(int64_t)perm[j] * pb + j];
    }
    s->cross = total - trace;
    s->best = total - (kept > trace ? kept : trace);
    free(perm);
    free(w);
    return vol;
err:
    free(perm);
    free(w);
    free(vol);
    return NULL;
}

/* "grid #3 2x2/64x64": the number is the grid's creation number on this
 * process, left out when this process did not take part in creating it */
static void grid_label(char *buf, size_t len, int64_t stamp, int64_t owner,
                       const cs_eng_layout_t *l)
{
    int g = stamp >= 0 ? cs_shim_grids_index((int)stamp, (int)owner) : -1;
    if (g >= 0) {
        snprintf(buf, len, "grid #%d %dx%d/%" PRId64 "x%" PRId64, g, l->nprow,
                 l->npcol, l->rows.nb, l->cols.nb);
    } else {
        snprintf(buf, len, "%dx%d/%" PRId64 "x%" PRId64, l->nprow, l->npcol,
                 l->rows.nb, l->cols.nb);
    }
}

/* 1 if the key's call enters the plan: both grids known and different */
static int key_planned(const shape_key_t *k)
{
    return k->sa >= 0 && k->sb >= 0 && (k->sa != k->sb || k->oa != k->ob);
}

static shape_t *shape_new(const shape_key_t *key, const cs_eng_layout_t *la,
                          const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                          int np, int routine, int keeper)
{
    shape_t *s = NULL;
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES && !s; i++) {
        if (!cs_shapes[i].used) {
            s = &cs_shapes[i];
        }
    }
    if (!s) { /* replace the least recently used */
        s = &cs_shapes[0];
        for (int i = 1; i < CS_SHIM_RELABEL_SHAPES; i++) {
            if (cs_shapes[i].last_use < s->last_use) {
                s = &cs_shapes[i];
            }
        }
        shape_free(s);
    }
    int64_t *vol = shape_compute(s, la, lb, op, np);
    if (!vol) {
        return NULL;
    }
    s->used = 1;
    s->id = ++cs_shape_ids;
    s->key = *key;
    s->pa = la->nprow * la->npcol;
    s->pb = lb->nprow * lb->npcol;
    int64_t bytes = (int64_t)s->pa * s->pb * (int64_t)sizeof(int64_t);
    if (keeper && key_planned(key)) {
        if (cs_kept_bytes + bytes <= CS_SHIM_RELABEL_MAX_BYTES) {
            s->posmat = malloc((size_t)bytes);
        }
        if (s->posmat) {
            cs_kept_bytes += bytes;
            for (int a = 0; a < s->pa; a++) {
                for (int b = 0; b < s->pb; b++) {
                    s->posmat[(int64_t)a * s->pb + b] =
                        vol[(int64_t)la->grid[a] * np + lb->grid[b]];
                }
            }
        } else {
            cs_incomplete = 1;
        }
    }
    free(vol);
    if (keeper && cs_log_threshold >= CS_LOG_INFO) {
        char ga[96], gb[96];
        grid_label(ga, sizeof(ga), key->sa, key->oa, la);
        grid_label(gb, sizeof(gb), key->sb, key->ob, lb);
        double gain = s->cross > 0 ? 100.0 * (double)(s->cross - s->best) /
                                         (double)s->cross
                                   : 0.0;
        cs_log_info("relabel: shape %d %s %" PRId64 "x%" PRId64
                    " A %s -> B %s: %.3f MB cross processes, %.3f MB with "
                    "B's grid relabeled (gain %.1f%%)",
                    s->id, cs_shim_routines[routine].lower, op->m, op->n, ga,
                    gb, 1e-6 * (double)s->cross, 1e-6 * (double)s->best,
                    gain);
    }
    return s;
}

void cs_shim_relabel_observe(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                             MPI_Comm comm, int stamp_a, int stamp_b,
                             cs_shim_record_t *rec)
{
    int np = 0;
    MPI_Comm_size(comm, &np);
    if (np < 1 || np > CS_SHIM_RELABEL_MAX_NP ||
        la->rows.kind != CS_ENG_DIST_CYCLIC ||
        la->cols.kind != CS_ENG_DIST_CYCLIC ||
        lb->rows.kind != CS_ENG_DIST_CYCLIC ||
        lb->cols.kind != CS_ENG_DIST_CYCLIC) {
        return;
    }
    int pa = la->nprow * la->npcol, pb = lb->nprow * lb->npcol;
    int *ranks = malloc((size_t)np * sizeof(int));
    int *world = malloc((size_t)np * sizeof(int));
    int *wa = malloc((size_t)pa * sizeof(int));
    int *wb = malloc((size_t)pb * sizeof(int));
    if (!ranks || !world || !wa || !wb) {
        goto out;
    }
    /* the grids' ranks in MPI_COMM_WORLD: the key must not depend on which
     * communicator the call came through */
    MPI_Group g, wg;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (int i = 0; i < np; i++) {
        ranks[i] = i;
    }
    MPI_Group_translate_ranks(g, np, ranks, wg, world);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    int keeper_rank = world[0];
    for (int i = 1; i < np; i++) {
        keeper_rank = world[i] < keeper_rank ? world[i] : keeper_rank;
    }
    int owner_a = INT_MAX, owner_b = INT_MAX;
    for (int i = 0; i < pa; i++) {
        wa[i] = world[la->grid[i]];
        owner_a = wa[i] < owner_a ? wa[i] : owner_a;
    }
    for (int i = 0; i < pb; i++) {
        wb[i] = world[lb->grid[i]];
        owner_b = wb[i] < owner_b ? wb[i] : owner_b;
    }
    /* every process of the call keeps the same key; only the keeper counts
     * the call for the plan, so each call is counted once world-wide */
    int keeper = keeper_rank == cs_shim_world_rank();

    shape_key_t key;
    memset(&key, 0, sizeof(key));
    key.m = op->m;
    key.n = op->n;
    key.ia = op->ia;
    key.ja = op->ja;
    key.ib = op->ib;
    key.jb = op->jb;
    key.esize = (int64_t)op->esize;
    key.trans = op->trans;
    key.mask = op->mask;
    key.mask_k = op->mask_k;
    key_dist(key.dist[0][0], &la->rows);
    key_dist(key.dist[0][1], &la->cols);
    key_dist(key.dist[1][0], &lb->rows);
    key_dist(key.dist[1][1], &lb->cols);
    key.np = np;
    key.sa = stamp_a;
    key.oa = owner_a;
    key.sb = stamp_b;
    key.ob = owner_b;
    key.keeper = keeper_rank;
    key.hash_a = (int64_t)cs_shim_relabel_hash(0, wa, pa);
    key.hash_b = (int64_t)cs_shim_relabel_hash(0, wb, pb);

    pthread_mutex_lock(&cs_rl_lock);
    shape_t *s = NULL;
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES && !s; i++) {
        if (cs_shapes[i].used &&
            memcmp(&cs_shapes[i].key, &key, sizeof(key)) == 0) {
            s = &cs_shapes[i];
        }
    }
    if (!s) {
        s = shape_new(&key, la, lb, op, np, rec->routine, keeper);
    }
    if (s) {
        s->last_use = ++cs_use_clock;
        rec->relabel_cross = s->cross;
        rec->relabel_best = s->best;
        if (keeper) {
            cs_calls_seen++;
            cs_cross_total = add_sat(cs_cross_total, s->cross, &cs_saturated);
            if (s->posmat) {
                s->calls++;
            } else if (key.sa != key.sb || key.oa != key.ob) {
                /* a grid the registry does not know, or no memory: the
                 * plan cannot account for this call if it relabels the
                 * other grid */
                cs_incomplete |= key.sa >= 0 || key.sb >= 0;
            }
        }
    } else if (keeper) {
        cs_incomplete = 1;
    }
    pthread_mutex_unlock(&cs_rl_lock);
out:
    free(wb);
    free(wa);
    free(world);
    free(ranks);
}

/* ------------------------------------------------------------ planning */

/* The problem rank 0 solves: the grids in plan order and the position
 * volumes between them, from its own records (scope rank0) or from every
 * rank (scope world). */
typedef struct {
    int stamp, owner, p, q;
    char order;
    int *map;            /* p * q world ranks as created (owned) */
} pgrid_t;

typedef struct {
    int sa, oa, sb, ob;  /* the grids by name */
    int ga, gb;          /* ... and by plan number, -1 unknown */
    int pa, pb;
    int64_t calls;
    int64_t *v;          /* pa x pb (not owned) */
} ppair_t;

typedef struct {
    int world;           /* 1: scope world, 0: scope rank0 */
    int nworld;
    int ng, npairs;
    pgrid_t *g;
    ppair_t *pr;
    int64_t calls_seen, cross_total;
    int incomplete, saturated;
    int64_t *buf;        /* gathered words the pairs point into (owned) */
} problem_t;

static void problem_free(problem_t *pb)
{
    for (int i = 0; i < pb->ng && pb->g; i++) {
        free(pb->g[i].map);
    }
    free(pb->g);
    free(pb->pr);
    free(pb->buf);
    memset(pb, 0, sizeof(*pb));
}

static int grid_cmp(const void *x, const void *y)
{
    const pgrid_t *a = x, *b = y;
    if (a->stamp != b->stamp) {
        return a->stamp < b->stamp ? -1 : 1;
    }
    return (a->owner > b->owner) - (a->owner < b->owner);
}

static int pair_cmp(const void *x, const void *y)
{
    const ppair_t *a = x, *b = y;
    if (a->ga != b->ga) {
        return a->ga < b->ga ? -1 : 1;
    }
    return (a->gb > b->gb) - (a->gb < b->gb);
}

static int grid_number(const problem_t *pb, int stamp, int owner, int n)
{
    pgrid_t k = {.stamp = stamp, .owner = owner};
    const pgrid_t *g = bsearch(&k, pb->g, (size_t)pb->ng, sizeof(pgrid_t),
                               grid_cmp);
    return g && g->p * g->q == n ? (int)(g - pb->g) : -1;
}

/* Plan order (stamp, owner), pairs by plan number, pairs of the same two
 * grids (kept on different ranks) added up. */
static void problem_order(problem_t *pb)
{
    qsort(pb->g, (size_t)pb->ng, sizeof(pgrid_t), grid_cmp);
    for (int i = 1; i < pb->ng; i++) {
        if (grid_cmp(&pb->g[i - 1], &pb->g[i]) == 0) {
            pb->incomplete = 1; /* cannot happen: stamps are unique */
        }
    }
    int n = 0;
    for (int k = 0; k < pb->npairs; k++) {
        ppair_t *p = &pb->pr[k];
        p->ga = grid_number(pb, p->sa, p->oa, p->pa);
        p->gb = grid_number(pb, p->sb, p->ob, p->pb);
        if (p->ga < 0 || p->gb < 0 || p->ga == p->gb) {
            pb->incomplete = 1; /* a grid nobody recorded */
            continue;
        }
        pb->pr[n++] = *p;
    }
    pb->npairs = n;
    qsort(pb->pr, (size_t)n, sizeof(ppair_t), pair_cmp);
    n = 0;
    for (int k = 0; k < pb->npairs; k++) {
        ppair_t *p = &pb->pr[k], *last = n > 0 ? &pb->pr[n - 1] : NULL;
        if (last && last->ga == p->ga && last->gb == p->gb) {
            for (int64_t e = 0; e < (int64_t)p->pa * p->pb; e++) {
                last->v[e] = add_sat(last->v[e], p->v[e], &pb->saturated);
            }
            last->calls += p->calls;
        } else {
            pb->pr[n++] = *p;
        }
    }
    pb->npairs = n;
}

/* Bytes kept on their process by a pair with maps ma (of ga) and mb. */
static int64_t pair_kept(const ppair_t *p, const int *ma, const int *mb,
                         int *pos, int nworld)
{
    for (int j = 0; j < p->pb; j++) {
        if (mb[j] >= 0 && mb[j] < nworld) {
            pos[mb[j]] = j;
        }
    }
    int64_t kept = 0;
    for (int i = 0; i < p->pa; i++) {
        int j = ma[i] >= 0 && ma[i] < nworld ? pos[ma[i]] : -1;
        if (j >= 0) {
            kept += p->v[(int64_t)i * p->pb + j];
        }
    }
    for (int j = 0; j < p->pb; j++) {
        if (mb[j] >= 0 && mb[j] < nworld) {
            pos[mb[j]] = -1;
        }
    }
    return kept;
}

/* One coordinate-descent step: the best map of grid g against the
 * current maps of the others.  Returns 1 if cur[g] changed. */
static int optimise_grid(problem_t *pb, int g, int **cur, int *pos)
{
    int n = pb->g[g].p * pb->g[g].q;
    int involved = 0;
    for (int k = 0; k < pb->npairs; k++) {
        involved |= pb->pr[k].ga == g || pb->pr[k].gb == g;
    }
    if (!involved || n > CS_RL_MAX_P) {
        return 0;
    }
    int64_t *w = calloc((size_t)n * (size_t)n, sizeof(int64_t));
    int *perm = malloc((size_t)n * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    int changed = 0;
    if (!w || !perm || !next) {
        pb->incomplete = 1;
        goto out;
    }
    /* pos[world rank] = index of the process in g's current map */
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = i;
    }
    for (int k = 0; k < pb->npairs; k++) {
        const ppair_t *p = &pb->pr[k];
        if (p->gb == g) { /* other -> g: V[ph][j] */
            for (int ph = 0; ph < p->pa; ph++) {
                int i = pos[cur[p->ga][ph]];
                if (i < 0) {
                    continue;
                }
                for (int j = 0; j < n; j++) {
                    w[(int64_t)i * n + j] += p->v[(int64_t)ph * p->pb + j];
                }
            }
        } else if (p->ga == g) { /* g -> other: V[j][ph] */
            for (int ph = 0; ph < p->pb; ph++) {
                int i = pos[cur[p->gb][ph]];
                if (i < 0) {
                    continue;
                }
                for (int j = 0; j < n; j++) {
                    w[(int64_t)i * n + j] += p->v[(int64_t)j * p->pb + ph];
                }
            }
        }
    }
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = -1;
    }
    if (cs_rl_solve(n, w, 0.0, perm, NULL) != CS_RL_OK) {
        pb->incomplete = 1;
        goto out;
    }
    for (int j = 0; j < n; j++) {
        next[j] = cur[g][perm[j]];
        changed |= next[j] != cur[g][j];
    }
    if (changed) {
        memcpy(cur[g], next, (size_t)n * sizeof(int));
    }
out:
    free(next);
    free(perm);
    free(w);
    return changed;
}

static void print_map(FILE *f, const int *map, int n)
{
    for (int i = 0; i < n; i++) {
        fprintf(f, " %d", map[i]);
    }
}

/* Union-find: the smallest grid number linked to g (root[] is kept so
 * that root[g] <= g). */
static int find_root(int *root, int g)
{
    while (root[g] != g) {
        root[g] = root[root[g]];
        g = root[g];
    }
    return g;
}

/* Rank 0, report mode: solve the problem and write the plan. */
static void plan_write(const cs_config_t *cfg, problem_t *pb)
{
    int ng = pb->ng, nworld = pb->nworld;
    int **cur = calloc((size_t)(ng > 0 ? ng : 1), sizeof(int *));
    int *pos = malloc((size_t)nworld * sizeof(int));
    int *root = malloc((size_t)(ng > 0 ? ng : 1) * sizeof(int));
    if (!cur || !pos || !root) {
        cs_log_warn("relabel: out of memory computing the plan; none "
                    "written");
        goto out;
    }
    for (int i = 0; i < nworld; i++) {
        pos[i] = -1;
    }
    for (int g = 0; g < ng; g++) {
        const pgrid_t *gr = &pb->g[g];
        int n = gr->p * gr->q;
        cur[g] = malloc((size_t)n * sizeof(int));
        if (!cur[g]) {
            cs_log_warn("relabel: out of memory computing the plan; none "
                        "written");
            goto out;
        }
        memcpy(cur[g], gr->map, (size_t)n * sizeof(int));
        for (int i = 0; i < n; i++) {
            if (gr->map[i] < 0 || gr->map[i] >= nworld) {
                cs_log_warn("relabel: grid #%d has a rank outside "
                            "MPI_COMM_WORLD; no plan written",
                            g);
                goto out;
            }
        }
    }
    /* the first grid of each group of grids linked by redistributions
     * keeps its map: the others are optimised against it (a group on
     * other processes than grid 0 has nothing to be optimised against) */
    for (int g = 0; g < ng; g++) {
        root[g] = g;
    }
    for (int k = 0; k < pb->npairs; k++) {
        int a = find_root(root, pb->pr[k].ga);
        int b = find_root(root, pb->pr[k].gb);
        root[a > b ? a : b] = a < b ? a : b;
    }
    for (int round = 0; round < CS_SHIM_RELABEL_ROUNDS; round++) {
        int changed = 0;
        for (int g = 0; g < ng; g++) {
            if (find_root(root, g) != g) {
                changed |= optimise_grid(pb, g, cur, pos);
            }
        }
        if (!changed) {
            break;
        }
    }
    int64_t saved = 0;
    for (int k = 0; k < pb->npairs; k++) {
        const ppair_t *p = &pb->pr[k];
        int64_t before = pair_kept(p, pb->g[p->ga].map, pb->g[p->gb].map,
                                   pos, nworld);
        int64_t after = pair_kept(p, cur[p->ga], cur[p->gb], pos, nworld);
        saved += after - before;
    }
    int64_t planned_bytes = pb->cross_total - saved;
    int relabeled = 0;
    for (int g = 0; g < ng; g++) {
        const pgrid_t *gr = &pb->g[g];
        relabeled += memcmp(cur[g], gr->map,
                            (size_t)(gr->p * gr->q) * sizeof(int)) != 0;
    }

    char tmp[CS_CFG_PATH_LEN + 32];
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", cfg->relabel_plan,
             (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cs_log_warn("relabel: cannot write the plan %s: %s", tmp,
                    strerror(errno));
        goto out;
    }
    char cmd[512] = "";
    FILE *cl = fopen("/proc/self/cmdline", "r");
    if (cl) {
        size_t len = fread(cmd, 1, sizeof(cmd) - 1, cl);
        fclose(cl);
        cmd[len] = '\0';
        for (size_t i = 0; i + 1 < len; i++) {
            if (cmd[i] == '\0' || cmd[i] == '\n') {
                cmd[i] = ' ';
            }
        }
    }
    int complete = !pb->incomplete && !pb->saturated;
    fprintf(f, "# costa-shim relabeling plan (format: docs/relabel.md),\n"
               "# written by COSTA_SHIM_RELABEL=report; use it with\n"
               "# COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN=<this "
               "file>\n");
    fprintf(f, "%s %d\n", PLAN_MAGIC, PLAN_VERSION);
    fprintf(f, "command %s\n", cmd);
    fprintf(f, "processes %d\n", nworld);
    fprintf(f, "# world: the grids and calls of all ranks; rank0: only "
               "those rank 0 took part in\n");
    fprintf(f, "scope %s\n", pb->world ? "world" : "rank0");
    fprintf(f, "grids %d\n", ng);
    fprintf(f, "complete %d\n", complete);
    fprintf(f, "# bytes crossing processes in the %" PRId64
               " observed p?gemr2d/p?trmr2d calls\n",
            pb->calls_seen);
    fprintf(f, "bytes_app %" PRId64 "\n", pb->cross_total);
    fprintf(f, "bytes_plan %" PRId64 "\n", planned_bytes);
    for (int k = 0; k < pb->npairs; k++) {
        const ppair_t *p = &pb->pr[k];
        int64_t tot = 0;
        for (int64_t e = 0; e < (int64_t)p->pa * p->pb; e++) {
            tot += p->v[e];
        }
        fprintf(f,
                "# pair #%d -> #%d: %" PRId64 " calls, %" PRId64
                " bytes, crossing %" PRId64 " with the application's maps, "
                "%" PRId64 " planned\n",
                p->ga, p->gb, p->calls, tot,
                tot - pair_kept(p, pb->g[p->ga].map, pb->g[p->gb].map, pos,
                                nworld),
                tot - pair_kept(p, cur[p->ga], cur[p->gb], pos, nworld));
    }
    fprintf(f, "# grid <number> <P>x<Q> <order R|C|M> <world rank by "
               "position, row-major> -> <planned>\n");
    for (int g = 0; g < ng; g++) {
        const pgrid_t *gr = &pb->g[g];
        fprintf(f, "grid %d %dx%d %c", g, gr->p, gr->q, gr->order);
        print_map(f, gr->map, gr->p * gr->q);
        fputs(" ->", f);
        print_map(f, cur[g], gr->p * gr->q);
        fputc('\n', f);
    }
    fputs("end\n", f);
    if (fclose(f) != 0 || rename(tmp, cfg->relabel_plan) != 0) {
        cs_log_warn("relabel: cannot write the plan %s: %s",
                    cfg->relabel_plan, strerror(errno));
        remove(tmp);
        goto out;
    }
    char line[CS_CFG_PATH_LEN + 512];
    double pct = pb->cross_total > 0 ? 100.0 * (double)saved /
                                           (double)pb->cross_total
                                     : 0.0;
    snprintf(line, sizeof(line),
             "costa-shim[0]: relabel: plan written to %s: %d grid%s, %d "
             "relabeled; bytes crossing processes in the observed "
             "redistributions %" PRId64 " -> %" PRId64 " (-%.1f%%)%s%s",
             cfg->relabel_plan, ng, ng == 1 ? "" : "s", relabeled,
             pb->cross_total, planned_bytes, pct,
             complete ? "" : " (incomplete: see docs/relabel.md)",
             pb->world ? "" : " (rank 0's view only: MPI_Init did not go "
                              "through the shim)");
    cs_log_line(2, line);
out:
    if (cur) {
        for (int g = 0; g < ng; g++) {
            free(cur[g]);
        }
    }
    free(cur);
    free(pos);
    free(root);
}

/* Flush every shape's pending calls into its pair and free the shapes. */
static void shapes_release(void)
{
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (cs_shapes[i].used) {
            shape_free(&cs_shapes[i]);
        }
    }
}

/* Add a grid to the problem (its map is copied from map32 or map64). */
static int problem_add_grid(problem_t *pb, int stamp, int owner, int p,
                            int q, char order, const int *map32,
                            const int64_t *map64)
{
    pgrid_t *g = &pb->g[pb->ng];
    int n = p * q;
    g->map = malloc((size_t)n * sizeof(int));
    if (!g->map) {
        pb->incomplete = 1;
        return -1;
    }
    for (int i = 0; i < n; i++) {
        g->map[i] = map32 ? map32[i] : (int)map64[i];
    }
    g->stamp = stamp;
    g->owner = owner;
    g->p = p;
    g->q = q;
    g->order = order;
    pb->ng++;
    return 0;
}

/* Scope rank0: rank 0's own grids (those it took part in creating) and
 * pairs (the calls it kept: those whose context contains it).  Local. */
static int problem_local(problem_t *pb)
{
    int ng = cs_shim_grids_count();
    pb->nworld = world_size();
    pb->g = calloc((size_t)(ng > 0 ? ng : 1), sizeof(pgrid_t));
    pb->pr = calloc((size_t)(cs_npairs > 0 ? cs_npairs : 1),
                    sizeof(ppair_t));
    if (!pb->g || !pb->pr) {
        return -1;
    }
    for (int i = 0; i < ng; i++) {
        const cs_shim_grid_t *r = cs_shim_grids_get(i);
        if (problem_add_grid(pb, r->stamp, r->owner, r->p, r->q, r->order,
                             r->map, NULL) != 0) {
            return -1;
        }
    }
    for (int k = 0; k < cs_npairs; k++) {
        const pair_t *p = &cs_pairs[k];
        pb->pr[k] = (ppair_t){p->sa, p->oa, p->sb, p->ob, -1, -1,
                              p->pa, p->pb, p->calls, p->v};
    }
    pb->npairs = cs_npairs;
    pb->calls_seen = cs_calls_seen;
    pb->cross_total = cs_cross_total;
    pb->incomplete = cs_incomplete || cs_shim_grids_created() != ng;
    pb->saturated = cs_saturated;
    return 0;
}

/* The words this process sends rank 0 (scope world): the grids it owns,
 *   stamp p q order map[p*q]
 * then the pairs it kept,
 *   sa oa sb ob pa pb calls v[pa*pb]
 * all int64_t.  Header fields, gathered first: */
enum { H_CALLS, H_CROSS, H_FLAGS, H_WGRIDS, H_WPAIRS, H_N };
enum { FL_INCOMPLETE = 1, FL_SATURATED = 2 };

static int64_t *pack(int me, int64_t *wg_p, int64_t *wp_p)
{
    int64_t wg = 0, wp = 0;
    int ng = cs_shim_grids_count();
    for (int i = 0; i < ng; i++) {
        const cs_shim_grid_t *r = cs_shim_grids_get(i);
        if (r->member && r->owner == me) {
            wg += 4 + (int64_t)r->p * r->q;
        }
    }
    for (int k = 0; k < cs_npairs; k++) {
        wp += 7 + (int64_t)cs_pairs[k].pa * cs_pairs[k].pb;
    }
    int64_t *b = malloc((size_t)(wg + wp > 0 ? wg + wp : 1) *
                        sizeof(int64_t));
    if (!b) {
        *wg_p = *wp_p = 0;
        return NULL;
    }
    int64_t o = 0;
    for (int i = 0; i < ng; i++) {
        const cs_shim_grid_t *r = cs_shim_grids_get(i);
        if (!r->member || r->owner != me) {
            continue;
        }
        b[o++] = r->stamp;
        b[o++] = r->p;
        b[o++] = r->q;
        b[o++] = r->order;
        for (int j = 0; j < r->p * r->q; j++) {
            b[o++] = r->map[j];
        }
    }
    for (int k = 0; k < cs_npairs; k++) {
        const pair_t *p = &cs_pairs[k];
        int64_t h[7] = {p->sa, p->oa, p->sb, p->ob, p->pa, p->pb, p->calls};
        memcpy(b + o, h, sizeof(h));
        o += 7;
        memcpy(b + o, p->v, (size_t)p->pa * (size_t)p->pb * sizeof(int64_t));
        o += (int64_t)p->pa * p->pb;
    }
    *wg_p = wg;
    *wp_p = wp;
    return b;
}

/* Rank 0: read the words of `owner` (grids if what & 1, then pairs if
 * what & 2) into the problem.  Returns -1 on malformed input. */
static int unpack(problem_t *pb, int owner, const int64_t *h, int what,
                  int64_t *b)
{
    int64_t o = 0, end = 0;
    if (what & 1) {
        end = h[H_WGRIDS];
        while (o + 4 <= end) {
            int64_t p = b[o + 1], q = b[o + 2], n = p * q;
            if (p < 1 || q < 1 || n > pb->nworld || o + 4 + n > end) {
                return -1;
            }
            if (problem_add_grid(pb, (int)b[o], owner, (int)p, (int)q,
                                 (char)b[o + 3], NULL, b + o + 4) != 0) {
                return -1;
            }
            o += 4 + n;
        }
        if (o != end) {
            return -1;
        }
    }
    if (what & 2) {
        end = o + h[H_WPAIRS];
        while (o + 7 <= end) {
            int64_t pa = b[o + 4], pbn = b[o + 5];
            if (pa < 1 || pbn < 1 || pa > pb->nworld || pbn > pb->nworld ||
                o + 7 + pa * pbn > end) {
                return -1;
            }
            pb->pr[pb->npairs++] =
                (ppair_t){(int)b[o], (int)b[o + 1], (int)b[o + 2],
                          (int)b[o + 3], -1, -1, (int)pa, (int)pbn,
                          b[o + 6], b + o + 7};
            o += 7 + pa * pbn;
        }
        if (o != end) {
            return -1;
        }
    }
    return 0;
}

/* Scope world: gather every rank's grids and pairs to rank 0.  Collective
 * over MPI_COMM_WORLD; returns 0 on rank 0 with the problem filled (maybe
 * marked incomplete), -1 elsewhere or when rank 0 ran out of memory (all
 * ranks then skip the plan together). */
static int problem_world(problem_t *pb)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int me = world_rank(), np = world_size(), ok = 1, what = 0;
    int64_t wg = 0, wp = 0;
    int64_t *mine = pack(me, &wg, &wp);
    int64_t h[H_N] = {cs_calls_seen, cs_cross_total,
                      (cs_incomplete || !mine ||
                       cs_shim_grids_created() != cs_shim_grids_count()
                           ? FL_INCOMPLETE
                           : 0) |
                          (cs_saturated ? FL_SATURATED : 0),
                      wg, wp};
    int64_t *hs = NULL;
    int *acc = NULL, *counts = NULL, *displs = NULL;
    if (me == 0) {
        hs = malloc((size_t)np * H_N * sizeof(int64_t));
        acc = malloc((size_t)np * sizeof(int));
        counts = malloc((size_t)np * sizeof(int));
        displs = malloc((size_t)np * sizeof(int));
        ok = hs && acc && counts && displs;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok) {
        goto out;
    }
    MPI_Gather(h, H_N, MPI_INT64_T, hs, H_N, MPI_INT64_T, 0, comm);
    if (me == 0) {
        /* accept, in rank order, the grids first (without them no pair
         * can be placed), then the pairs, within the byte budget */
        int64_t budget = CS_SHIM_RELABEL_MAX_BYTES / (int64_t)sizeof(int64_t);
        int64_t total = 0, ngrids = 0, npairs = 0;
        for (int r = 0; r < np; r++) {
            const int64_t *hr = hs + (int64_t)r * H_N;
            acc[r] = 0;
            if (total + hr[H_WGRIDS] <= budget) {
                acc[r] |= 1;
                total += hr[H_WGRIDS];
                ngrids += hr[H_WGRIDS] / 5 + 1;
            } else {
                pb->incomplete = 1;
            }
        }
        for (int r = 0; r < np; r++) {
            const int64_t *hr = hs + (int64_t)r * H_N;
            if (total + hr[H_WPAIRS] <= budget) {
                acc[r] |= 2;
                total += hr[H_WPAIRS];
                npairs += hr[H_WPAIRS] / 8 + 1;
            } else {
                pb->incomplete = 1;
            }
        }
        pb->buf = malloc((size_t)(total > 0 ? total : 1) * sizeof(int64_t));
        pb->g = calloc((size_t)ngrids, sizeof(pgrid_t));
        pb->pr = calloc((size_t)npairs, sizeof(ppair_t));
        if (!pb->buf || !pb->g || !pb->pr) {
            for (int r = 0; r < np; r++) {
                acc[r] = 0;
            }
            pb->incomplete = 1;
        }
        int64_t o = 0;
        for (int r = 0; r < np; r++) {
            const int64_t *hr = hs + (int64_t)r * H_N;
            counts[r] = (int)((acc[r] & 1 ? hr[H_WGRIDS] : 0) +
                              (acc[r] & 2 ? hr[H_WPAIRS] : 0));
            displs[r] = (int)o;
            o += counts[r];
        }
    }
    MPI_Scatter(acc, 1, MPI_INT, &what, 1, MPI_INT, 0, comm);
    int64_t *send = mine ? mine + (what & 1 ? 0 : wg) : NULL;
    int nsend = (int)((what & 1 ? wg : 0) + (what & 2 ? wp : 0));
    MPI_Gatherv(send, nsend, MPI_INT64_T, pb->buf, counts, displs,
                MPI_INT64_T, 0, comm);
    if (me != 0) {
        ok = 0;
        goto out;
    }
    pb->world = 1;
    pb->nworld = np;
    for (int r = 0; r < np; r++) {
        const int64_t *hr = hs + (int64_t)r * H_N;
        pb->calls_seen += hr[H_CALLS];
        pb->cross_total = add_sat(pb->cross_total, hr[H_CROSS],
                                  &pb->saturated);
        pb->incomplete |= (hr[H_FLAGS] & FL_INCOMPLETE) != 0;
        pb->saturated |= (hr[H_FLAGS] & FL_SATURATED) != 0;
        if (acc[r] && unpack(pb, r, hr, acc[r], pb->buf + displs[r]) != 0) {
            cs_log_warn("relabel: rank %d sent a malformed plan part; its "
                        "grids and volumes are left out",
                        r);
            pb->incomplete = 1;
        }
    }
out:
    free(displs);
    free(counts);
    free(acc);
    free(hs);
    free(mine);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ plan file */

typedef struct {
    int p, q;
    char order;
    int used;         /* matched by a grid of this run (on this process) */
    int *app;
    int *planned;
} plan_grid_t;

static struct {
    int state;        /* 0 unread, 1 in use, -1 ignored */
    int nprocs;
    int ngrids;
    int complete;
    int world;        /* scope world (1) or rank0 (0) */
    int applied;      /* grids created relabeled so far */
    plan_grid_t *g;
    int has_msg;      /* this process found why the plan does not fit */
    int warned;       /* ... and printed a warning */
    char msg[PLAN_MSG_LEN];
} cs_plan;

static void plan_free(void)
{
    for (int i = 0; i < cs_plan.ngrids && cs_plan.g; i++) {
        free(cs_plan.g[i].app);
        free(cs_plan.g[i].planned);
    }
    free(cs_plan.g);
    cs_plan.g = NULL;
    cs_plan.ngrids = 0;
}

/* Next integer of *s (strtol with checks); 0 on success. */
static int next_int(char **s, long lo, long hi, int *out_p)
{
    char *end;
    errno = 0;
    long v = strtol(*s, &end, 10);
    if (end == *s || errno != 0 || v < lo || v > hi ||
        (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n' &&
         *end != 'x')) {
        return -1;
    }
    *s = end;
    *out_p = (int)v;
    return 0;
}

/* 1 if b is a permutation of a (n ranks in [0, nprocs)). */
static int same_set(const int *a, const int *b, int n, int nprocs)
{
    int *cnt = calloc((size_t)nprocs, sizeof(int));
    if (!cnt) {
        return 0;
    }
    int ok = 1;
    for (int i = 0; i < n; i++) {
        cnt[a[i]]++;
        ok &= cnt[a[i]] == 1;
    }
    for (int i = 0; i < n && ok; i++) {
        ok &= --cnt[b[i]] == 0;
    }
    free(cnt);
    return ok;
}

/* Parse one "grid k PxQ O map... -> planned..." line into the table. */
static int parse_grid(char *s, int k, char *why, size_t len)
{
    int idx, p, q;
    while (*s == ' ') {
        s++;
    }
    if (next_int(&s, 0, INT32_MAX, &idx) || idx != k) {
        snprintf(why, len, "grid lines out of order (expected grid %d)", k);
        return -1;
    }
    while (*s == ' ') {
        s++;
    }
    if (next_int(&s, 1, INT32_MAX, &p) || *s != 'x') {
        snprintf(why, len, "grid %d: bad shape", k);
        return -1;
    }
    s++;
    if (next_int(&s, 1, INT32_MAX, &q) || (int64_t)p * q > cs_plan.nprocs) {
        snprintf(why, len, "grid %d: bad shape", k);
        return -1;
    }
    while (*s == ' ') {
        s++;
    }
    char order = *s;
    if ((order != 'R' && order != 'C' && order != 'M') || s[1] != ' ') {
        snprintf(why, len, "grid %d: bad order", k);
        return -1;
    }
    s += 2;
    int n = p * q;
    plan_grid_t *g = &cs_plan.g[k];
    g->app = malloc((size_t)n * sizeof(int));
    g->planned = malloc((size_t)n * sizeof(int));
    if (!g->app || !g->planned) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    g->p = p;
    g->q = q;
    g->order = order;
    for (int half = 0; half < 2; half++) {
        int *m = half ? g->planned : g->app;
        for (int i = 0; i < n; i++) {
            while (*s == ' ') {
                s++;
            }
            if (next_int(&s, 0, cs_plan.nprocs - 1, &m[i])) {
                snprintf(why, len, "grid %d: bad or missing rank", k);
                return -1;
            }
        }
        while (*s == ' ') {
            s++;
        }
        if (!half && strncmp(s, "->", 2) != 0) {
            snprintf(why, len, "grid %d: '->' expected after %d ranks", k, n);
            return -1;
        }
        s += half ? 0 : 2;
    }
    while (*s == ' ' || *s == '\n' || *s == '\r') {
        s++;
    }
    if (*s != '\0') {
        snprintf(why, len, "grid %d: extra text after the planned map", k);
        return -1;
    }
    if (!same_set(g->app, g->planned, n, cs_plan.nprocs)) {
        snprintf(why, len,
                 "grid %d: the planned map is not a permutation of the "
                 "grid's processes",
                 k);
        return -1;
    }
    return 0;
}

/* Read the plan file; 0 on success, else why. */
static int plan_read(const char *path, char *why, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(why, len, "cannot read it: %s", strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, magic = 0, seen_end = 0, next_grid = 0, rc = 0;
    int scope = 0;
    cs_plan.nprocs = cs_plan.ngrids = -1;
    cs_plan.complete = 1;
    cs_plan.world = 0; /* version 1: rank 0's view */
    while (!seen_end && getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = line;
        while (*s == ' ' || *s == '\t') {
            s++;
        }
        if (*s == '#' || *s == '\n' || *s == '\0') {
            continue;
        }
        char word[32];
        int used = 0;
        if (sscanf(s, "%31s%n", word, &used) != 1) {
            continue;
        }
        char *rest = s + used;
        int v = 0;
        long long big = 0;
        if (!magic) {
            if (strcmp(word, PLAN_MAGIC) != 0 ||
                sscanf(rest, "%d", &v) != 1 || v < 1 || v > PLAN_VERSION) {
                snprintf(why, len, "not a version 1 or %d plan (line %d)",
                         PLAN_VERSION, lineno);
                rc = -1;
                break;
            }
            magic = v;
        } else if (strcmp(word, "scope") == 0 && magic >= 2) {
            char sc[16] = "";
            if (sscanf(rest, "%15s", sc) != 1 ||
                (strcmp(sc, "world") != 0 && strcmp(sc, "rank0") != 0)) {
                rc = -1;
            } else {
                cs_plan.world = strcmp(sc, "world") == 0;
                scope = 1;
            }
        } else if (strcmp(word, "processes") == 0) {
            if (sscanf(rest, "%d", &cs_plan.nprocs) != 1 ||
                cs_plan.nprocs < 1) {
                rc = -1;
            }
        } else if (strcmp(word, "grids") == 0) {
            if (sscanf(rest, "%d", &v) != 1 || v < 0 ||
                v > CS_SHIM_GRIDS_MAX || cs_plan.g) {
                rc = -1;
            } else {
                cs_plan.g = calloc((size_t)(v > 0 ? v : 1),
                                   sizeof(plan_grid_t));
                cs_plan.ngrids = v;
                rc = cs_plan.g ? 0 : -1;
            }
        } else if (strcmp(word, "complete") == 0) {
            rc = sscanf(rest, "%d", &cs_plan.complete) == 1 ? 0 : -1;
        } else if (strcmp(word, "grid") == 0) {
            if (!cs_plan.g || cs_plan.nprocs < 1 ||
                next_grid >= cs_plan.ngrids) {
                snprintf(why, len, "line %d: unexpected grid line", lineno);
                rc = -1;
                break;
            }
            if (parse_grid(rest, next_grid, why, len) != 0) {
                rc = -1;
                break;
            }
            next_grid++;
        } else if (strcmp(word, "end") == 0) {
            seen_end = 1;
        } else if (strcmp(word, "bytes_app") == 0 ||
                   strcmp(word, "bytes_plan") == 0) {
            rc = sscanf(rest, "%lld", &big) == 1 ? 0 : -1;
        } else if (strcmp(word, "command") != 0) {
            snprintf(why, len, "line %d: unknown keyword '%s'", lineno, word);
            rc = -1;
            break;
        }
        if (rc != 0) {
            if (!why[0]) {
                snprintf(why, len, "line %d: bad '%s' line", lineno, word);
            }
            break;
        }
    }
    free(line);
    fclose(f);
    if (rc == 0 && (!magic || !seen_end || cs_plan.ngrids < 0 ||
                    next_grid != cs_plan.ngrids)) {
        snprintf(why, len, "incomplete file (no 'end' line or missing "
                           "grid lines)");
        rc = -1;
    }
    if (rc == 0 && magic >= 2 && !scope) {
        snprintf(why, len, "no 'scope world|rank0' line");
        rc = -1;
    }
    return rc;
}


/*
 * The plan is ignored on this process from now on.  msg: the warning, or
 * NULL when this process follows another one that ignores the plan.
 * RATIONALE: every process that meets a mismatch finds it, so printing
 * wherever it is found would repeat the warning; rank 0 prints at once,
 * the others leave it to rank 0 at MPI_Finalize when that is collective
 * (cs_shim_relabel_finalize), else the speaker of the creation prints.
 */
static void plan_ignore_msg(const char *msg, int speaker)
{
    if (cs_plan.state == -1) {
        return;
    }
    cs_plan.state = -1;
    if (!msg) {
        return;
    }
    snprintf(cs_plan.msg, sizeof(cs_plan.msg), "%s", msg);
    cs_plan.has_msg = 1;
    if (world_rank() == 0 || (speaker && !cs_shim_finalize_collective())) {
        cs_log_warn("%s", msg);
        cs_plan.warned = 1;
    }
}

static void plan_ignore(const char *why, int speaker)
{
    if (cs_plan.state == -1) {
        return;
    }
    const cs_config_t *cfg = cs_cfg_get();
    char msg[PLAN_MSG_LEN];
    if (cs_plan.applied > 0) {
        snprintf(msg, sizeof(msg),
                 "relabel: plan %s does not match this run: %s; it is "
                 "ignored from here on (the %d grid%s created relabeled so "
                 "far stay so; results are not affected)",
                 cfg->relabel_plan, why, cs_plan.applied,
                 cs_plan.applied == 1 ? "" : "s");
    } else {
        snprintf(msg, sizeof(msg),
                 "relabel: plan %s does not match this run: %s; it is "
                 "ignored and every grid is created as the application "
                 "asks",
                 cfg->relabel_plan, why);
    }
    plan_ignore_msg(msg, speaker);
}

void cs_shim_relabel_plan_disable(const char *why, int speaker)
{
    pthread_mutex_lock(&cs_rl_lock);
    if (why) {
        plan_ignore(why, speaker);
    } else {
        plan_ignore_msg(NULL, speaker);
    }
    pthread_mutex_unlock(&cs_rl_lock);
}

void cs_shim_relabel_plan_taken(int entry, int relabeled)
{
    pthread_mutex_lock(&cs_rl_lock);
    if (cs_plan.state == 1 && entry >= 0 && entry < cs_plan.ngrids) {
        cs_plan.g[entry].used = 1;
        cs_plan.applied += relabeled != 0;
    }
    pthread_mutex_unlock(&cs_rl_lock);
}

static void describe(char *buf, size_t len, int p, int q, char order,
                     const int *map)
{
    int o = snprintf(buf, len, "%dx%d order %c, world ranks", p, q, order);
    for (int i = 0; i < p * q && o > 0 && (size_t)o + 16 < len; i++) {
        if (i == 16) {
            o += snprintf(buf + o, len - (size_t)o, " ...");
            break;
        }
        o += snprintf(buf + o, len - (size_t)o, " %d", map[i]);
    }
}

/* Read the plan on first use (state 0): 0 when it is in use, -1 when it
 * is ignored (a warning was handled if `speaker`, see plan_ignore_msg). */
static int plan_load(int speaker)
{
    if (cs_plan.state == 0) {
        const cs_config_t *cfg = cs_cfg_get();
        char why[256] = "";
        if (plan_read(cfg->relabel_plan, why, sizeof(why)) != 0) {
            char msg[PLAN_MSG_LEN];
            plan_free();
            snprintf(msg, sizeof(msg),
                     "relabel: COSTA_SHIM_RELABEL=apply, but the plan %s "
                     "cannot be used (%s); grids are created as the "
                     "application asks",
                     cfg->relabel_plan, why);
            plan_ignore_msg(msg, speaker);
            return -1;
        }
        cs_plan.state = 1;
    }
    return cs_plan.state == 1 ? 0 : -1;
}

int cs_shim_relabel_planned_map(int index, int p, int q, char order,
                                const int *app_map, int has_rank0,
                                int speaker, int *entry_p, int *planned_p)
{
    int rc = -1;
    pthread_mutex_lock(&cs_rl_lock);
    if (plan_load(speaker) != 0) {
        goto out;
    }
    int nworld = world_size();
    char why[512], a[200];
    if (nworld != cs_plan.nprocs) {
        snprintf(why, sizeof(why), "it was made for %d processes, this run "
                                   "has %d",
                 cs_plan.nprocs, nworld);
        plan_ignore(why, speaker);
        goto out;
    }
    rc = 0;
    if (!cs_plan.world && !has_rank0) {
        goto out; /* rank 0's view never saw this grid */
    }
    /* the first entry of the same grid not used yet: the members of a grid
     * see every creation of its map, in the same order */
    size_t n = (size_t)p * (size_t)q;
    int k = 0;
    for (; k < cs_plan.ngrids; k++) {
        plan_grid_t *e = &cs_plan.g[k];
        if (!e->used && e->p == p && e->q == q && e->order == order &&
            memcmp(e->app, app_map, n * sizeof(int)) == 0) {
            break;
        }
    }
    if (k == cs_plan.ngrids) {
        if (cs_plan.complete) {
            describe(a, sizeof(a), p, q, order, app_map);
            snprintf(why, sizeof(why),
                     "grid #%d (%s) is not among the %d grids it lists",
                     index, a, cs_plan.ngrids);
            plan_ignore(why, speaker);
            rc = -1;
        }
        goto out;
    }
    *entry_p = k;
    memcpy(planned_p, cs_plan.g[k].planned, n * sizeof(int));
    rc = 1;
out:
    pthread_mutex_unlock(&cs_rl_lock);
    return rc;
}

/* ------------------------------------------------------------ finalize */

/* Apply mode at MPI_Finalize (see cs_shim_relabel_finalize). */
static void apply_finalize(int collective)
{
    int me = world_rank();
    char why[160];
    if (!collective) {
        /* rank 0 took part in every creation of a rank0 plan's grids, so
         * it can count them; a world plan's grids it cannot */
        int used = 0;
        for (int k = 0; k < cs_plan.ngrids && cs_plan.state == 1; k++) {
            used += cs_plan.g[k].used;
        }
        if (me == 0 && cs_plan.state == 1 && !cs_plan.world &&
            cs_plan.complete && used < cs_plan.ngrids) {
            snprintf(why, sizeof(why),
                     "the run created %d of the %d grids it lists", used,
                     cs_plan.ngrids);
            plan_ignore(why, 1);
        }
        return;
    }
    /* b[0]: minus the lowest rank that found why the plan does not fit;
     * b[1]: some rank ignores the plan; b[2 + k]: entry k matched */
    int nb = 2 + CS_SHIM_GRIDS_MAX;
    int b[2 + CS_SHIM_GRIDS_MAX];
    memset(b, 0, sizeof(b));
    b[0] = cs_plan.has_msg ? -me : INT_MIN;
    b[1] = cs_plan.state == -1;
    for (int k = 0; k < cs_plan.ngrids && cs_plan.state == 1; k++) {
        b[2 + k] = cs_plan.g[k].used;
    }
    MPI_Allreduce(MPI_IN_PLACE, b, nb, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int lowest = b[0] == INT_MIN ? -1 : -b[0];
    if (lowest > 0) {
        /* rank 0 did not find it itself, so it has not warned yet */
        char msg[PLAN_MSG_LEN];
        memset(msg, 0, sizeof(msg));
        if (me == lowest) {
            memcpy(msg, cs_plan.msg, sizeof(msg));
        }
        MPI_Bcast(msg, PLAN_MSG_LEN, MPI_CHAR, lowest, MPI_COMM_WORLD);
        msg[PLAN_MSG_LEN - 1] = '\0';
        if (me == 0 && !cs_plan.warned) {
            cs_log_warn("%s (found on world rank %d)", msg, lowest);
            cs_plan.warned = 1;
        }
    }
    if (me != 0 || b[1]) {
        return;
    }
    if (cs_plan.state == 0) { /* rank 0 created no grid: read it now */
        char ignored[256];
        if (plan_read(cs_cfg_get()->relabel_plan, ignored,
                      sizeof(ignored)) != 0) {
            plan_free();
            return; /* nobody used it: nothing to say */
        }
        cs_plan.state = 1;
    }
    int used = 0;
    for (int k = 0; k < cs_plan.ngrids; k++) {
        used += b[2 + k] != 0;
    }
    if (cs_plan.complete && used < cs_plan.ngrids) {
        snprintf(why, sizeof(why),
                 "the run created %d of the %d grids it lists", used,
                 cs_plan.ngrids);
        plan_ignore(why, 1);
    }
}

/* Report mode at MPI_Finalize: the plan. */
static void report_finalize(const cs_config_t *cfg, int collective)
{
    int me = world_rank();
    problem_t pb;
    memset(&pb, 0, sizeof(pb));
    shapes_release();
    int rc = -1;
    if (collective) {
        rc = problem_world(&pb);
    } else if (me == 0) {
        rc = problem_local(&pb);
    }
    if (rc == 0) {
        problem_order(&pb);
        plan_write(cfg, &pb);
    } else if (me == 0) {
        cs_log_warn("relabel: out of memory gathering the plan; none "
                    "written");
    }
    problem_free(&pb);
}

void cs_shim_relabel_finalize(int collective)
{
    const cs_config_t *cfg = cs_cfg_get();
    if (cfg->relabel == CS_CFG_RELABEL_OFF) {
        return;
    }
    pthread_mutex_lock(&cs_rl_lock);
    if (cfg->relabel == CS_CFG_RELABEL_REPORT) {
        report_finalize(cfg, collective);
    } else {
        apply_finalize(collective);
    }
    shapes_release();
    for (int k = 0; k < cs_npairs; k++) {
        free(cs_pairs[k].v);
    }
    memset(cs_pairs, 0, sizeof(cs_pairs));
    cs_npairs = 0;
    cs_kept_bytes = 0;
    plan_free();
    pthread_mutex_unlock(&cs_rl_lock);
    cs_shim_grids_release();
}
