/*
 * shim/shim_relabel.c - COSTA_SHIM_RELABEL: what relabeling would save per
 * call shape, the plan computed from all observed redistributions, and
 * reading the plan back for apply mode (shim_relabel.h, docs/relabel.md).
 *
 * Every rank computes the per-call numbers itself from the global layouts
 * (no communication; the solver runs with time budget 0, so every rank
 * gets the same permutation).  Only MPI_COMM_WORLD rank 0 keeps the
 * position volumes of grid pairs and writes the plan; the other ranks keep
 * only the cache of (shape -> two numbers).  Memory is bounded by the
 * constants in shim_relabel.h.
 *
 * RATIONALE, plan: relabeling grid g changes only the bytes of
 * redistributions between g and another grid (a redistribution from a grid
 * to itself moves exactly the same bytes under any relabeling of that
 * grid).  With all other grids fixed, the best map of g is a linear
 * assignment: W[i][j] = bytes process i would keep if it played position j
 * of g, summed over g's pairs.  The first grid is fixed; the others are
 * optimised one by one, in creation order, for a few rounds of coordinate
 * descent (each step never increases the total, with the exact solver up to
 * CS_RL_EXACT_MAX_P positions).
 */
#include <errno.h>
#include <inttypes.h>
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
#define PLAN_VERSION 1

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

/* ------------------------------------------------------------ state */

/* Everything that decides a call's volume matrix, all int64_t so that
 * memcmp sees no padding. */
typedef struct {
    int64_t m, n, ia, ja, ib, jb, esize, trans, mask, mask_k;
    int64_t dist[2][2][5]; /* [A|B][rows|cols]: n, nb, first, src, nprocs */
    int64_t np;
    int64_t ga, gb;        /* grid numbers (rank 0 only), -1 unknown */
    int64_t hash_a, hash_b; /* world-rank maps */
} shape_key_t;

typedef struct {
    int used;
    int id;             /* shape number for the log */
    uint64_t last_use;
    shape_key_t key;
    int64_t cross, best;
    int pa, pb;         /* positions of A's and B's grids */
    int64_t *posmat;    /* rank 0: pa x pb bytes, position to position */
    int64_t calls;      /* calls not yet added to the pair */
} shape_t;

typedef struct {
    int ga, gb, pa, pb;
    int64_t calls;
    int64_t *v;         /* pa x pb */
} pair_t;

static shape_t cs_shapes[CS_SHIM_RELABEL_SHAPES];
static int cs_shape_ids;
static uint64_t cs_use_clock;
static pair_t cs_pairs[CS_SHIM_RELABEL_PAIRS];
static int cs_npairs;
static int64_t cs_kept_bytes;   /* rank 0: bytes of posmat and pair matrices */

/* rank 0's totals over all observed calls */
static int64_t cs_calls_seen;
static int64_t cs_cross_total;  /* with the application's maps */
static int cs_incomplete;       /* some call could not enter the plan */
static int cs_saturated;

/* ------------------------------------------------------------ pairs */

static pair_t *pair_get(int ga, int gb, int pa, int pb)
{
    for (int i = 0; i < cs_npairs; i++) {
        pair_t *p = &cs_pairs[i];
        if (p->ga == ga && p->gb == gb) {
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
    *p = (pair_t){ga, gb, pa, pb, 0, v};
    return p;
}

/* Add the shape's pending calls to its grid pair. */
static void shape_flush(shape_t *s)
{
    if (!s->posmat || s->calls == 0) {
        return;
    }
    pair_t *p = pair_get((int)s->key.ga, (int)s->key.gb, s->pa, s->pb);
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

static void grid_label(char *buf, size_t len, int g, const cs_eng_layout_t *l)
{
    if (g >= 0) {
        snprintf(buf, len, "grid #%d %dx%d/%" PRId64 "x%" PRId64, g, l->nprow,
                 l->npcol, l->rows.nb, l->cols.nb);
    } else {
        snprintf(buf, len, "%dx%d/%" PRId64 "x%" PRId64, l->nprow, l->npcol,
                 l->rows.nb, l->cols.nb);
    }
}

static shape_t *shape_new(const shape_key_t *key, const cs_eng_layout_t *la,
                          const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                          int np, int routine, int rank0)
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
    if (rank0 && key->ga >= 0 && key->gb >= 0 && key->ga != key->gb) {
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
    if (rank0 && cs_log_threshold >= CS_LOG_INFO) {
        char ga[96], gb[96];
        grid_label(ga, sizeof(ga), (int)key->ga, la);
        grid_label(gb, sizeof(gb), (int)key->gb, lb);
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
                             MPI_Comm comm, int ctxt_a, int ctxt_b,
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
    int rank0 = cs_shim_world_rank() == 0;
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
    for (int i = 0; i < pa; i++) {
        wa[i] = world[la->grid[i]];
    }
    for (int i = 0; i < pb; i++) {
        wb[i] = world[lb->grid[i]];
    }

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
    key.ga = rank0 ? cs_shim_grids_find(la->nprow, la->npcol, wa, ctxt_a)
                   : -1;
    key.gb = rank0 ? cs_shim_grids_find(lb->nprow, lb->npcol, wb, ctxt_b)
                   : -1;
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
        s = shape_new(&key, la, lb, op, np, rec->routine, rank0);
    }
    if (s) {
        s->last_use = ++cs_use_clock;
        rec->relabel_cross = s->cross;
        rec->relabel_best = s->best;
        if (rank0) {
            cs_calls_seen++;
            cs_cross_total = add_sat(cs_cross_total, s->cross, &cs_saturated);
            if (s->posmat) {
                s->calls++;
            } else if (key.ga != key.gb) {
                /* a grid the registry does not know, or no memory: the
                 * plan cannot account for this call if it relabels the
                 * other grid */
                cs_incomplete |= key.ga >= 0 || key.gb >= 0;
            }
        }
    } else if (rank0) {
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

/* Bytes kept on their process by a pair with maps ma (of ga) and mb. */
static int64_t pair_kept(const pair_t *p, const int *ma, const int *mb,
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
static int optimise_grid(int g, const cs_shim_grid_t *gr, int **cur,
                         int *pos)
{
    int n = gr->p * gr->q;
    int involved = 0;
    for (int k = 0; k < cs_npairs; k++) {
        involved |= cs_pairs[k].ga == g || cs_pairs[k].gb == g;
    }
    if (!involved || n > CS_RL_MAX_P) {
        return 0;
    }
    int64_t *w = calloc((size_t)n * (size_t)n, sizeof(int64_t));
    int *perm = malloc((size_t)n * sizeof(int));
    int *next = malloc((size_t)n * sizeof(int));
    int changed = 0;
    if (!w || !perm || !next) {
        cs_incomplete = 1;
        goto out;
    }
    /* pos[world rank] = index of the process in g's current map */
    for (int i = 0; i < n; i++) {
        pos[cur[g][i]] = i;
    }
    for (int k = 0; k < cs_npairs; k++) {
        const pair_t *p = &cs_pairs[k];
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
        cs_incomplete = 1;
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

/* Rank 0, report mode: compute and write the plan. */
static void plan_write(const cs_config_t *cfg)
{
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        shape_flush(&cs_shapes[i]);
    }
    int ng = cs_shim_grids_count();
    int nworld = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nworld);
    int **cur = calloc((size_t)(ng > 0 ? ng : 1), sizeof(int *));
    int *pos = malloc((size_t)nworld * sizeof(int));
    if (!cur || !pos) {
        cs_log_warn("relabel: out of memory computing the plan; none "
                    "written");
        goto out;
    }
    for (int i = 0; i < nworld; i++) {
        pos[i] = -1;
    }
    for (int g = 0; g < ng; g++) {
        const cs_shim_grid_t *gr = cs_shim_grids_get(g);
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
    /* grid 0 keeps its map: the others are optimised against it */
    for (int round = 0; round < CS_SHIM_RELABEL_ROUNDS; round++) {
        int changed = 0;
        for (int g = 1; g < ng; g++) {
            changed |= optimise_grid(g, cs_shim_grids_get(g), cur, pos);
        }
        if (!changed) {
            break;
        }
    }
    int64_t saved = 0;
    for (int k = 0; k < cs_npairs; k++) {
        const pair_t *p = &cs_pairs[k];
        const cs_shim_grid_t *a = cs_shim_grids_get(p->ga);
        const cs_shim_grid_t *b = cs_shim_grids_get(p->gb);
        int64_t before = pair_kept(p, a->map, b->map, pos, nworld);
        int64_t after = pair_kept(p, cur[p->ga], cur[p->gb], pos, nworld);
        saved += after - before;
    }
    int64_t planned_bytes = cs_cross_total - saved;
    int relabeled = 0;
    for (int g = 0; g < ng; g++) {
        const cs_shim_grid_t *gr = cs_shim_grids_get(g);
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
    int complete = !cs_incomplete && !cs_saturated &&
                   cs_shim_grids_created() == ng;
    fprintf(f, "# costa-shim relabeling plan (format: docs/relabel.md),\n"
               "# written by COSTA_SHIM_RELABEL=report; use it with\n"
               "# COSTA_SHIM_RELABEL=apply COSTA_SHIM_RELABEL_PLAN=<this "
               "file>\n");
    fprintf(f, "%s %d\n", PLAN_MAGIC, PLAN_VERSION);
    fprintf(f, "command %s\n", cmd);
    fprintf(f, "processes %d\n", nworld);
    fprintf(f, "grids %d\n", ng);
    fprintf(f, "complete %d\n", complete);
    fprintf(f, "# bytes crossing processes in the %" PRId64
               " observed p?gemr2d/p?trmr2d calls\n",
            cs_calls_seen);
    fprintf(f, "bytes_app %" PRId64 "\n", cs_cross_total);
    fprintf(f, "bytes_plan %" PRId64 "\n", planned_bytes);
    for (int k = 0; k < cs_npairs; k++) {
        const pair_t *p = &cs_pairs[k];
        const cs_shim_grid_t *a = cs_shim_grids_get(p->ga);
        const cs_shim_grid_t *b = cs_shim_grids_get(p->gb);
        int64_t tot = 0;
        for (int64_t e = 0; e < (int64_t)p->pa * p->pb; e++) {
            tot += p->v[e];
        }
        fprintf(f,
                "# pair #%d -> #%d: %" PRId64 " calls, %" PRId64
                " bytes, crossing %" PRId64 " with the application's maps, "
                "%" PRId64 " planned\n",
                p->ga, p->gb, p->calls, tot,
                tot - pair_kept(p, a->map, b->map, pos, nworld),
                tot - pair_kept(p, cur[p->ga], cur[p->gb], pos, nworld));
    }
    fprintf(f, "# grid <number> <P>x<Q> <order R|C|M> <world rank by "
               "position, row-major> -> <planned>\n");
    for (int g = 0; g < ng; g++) {
        const cs_shim_grid_t *gr = cs_shim_grids_get(g);
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
    double pct = cs_cross_total > 0 ? 100.0 * (double)saved /
                                          (double)cs_cross_total
                                    : 0.0;
    snprintf(line, sizeof(line),
             "costa-shim[0]: relabel: plan written to %s: %d grid%s, %d "
             "relabeled; bytes crossing processes in the observed "
             "redistributions %" PRId64 " -> %" PRId64 " (-%.1f%%)%s",
             cfg->relabel_plan, ng, ng == 1 ? "" : "s", relabeled,
             cs_cross_total, planned_bytes, pct,
             complete ? "" : " (incomplete: see docs/relabel.md)");
    cs_log_line(2, line);
out:
    if (cur) {
        for (int g = 0; g < ng; g++) {
            free(cur[g]);
        }
    }
    free(cur);
    free(pos);
}

/* ------------------------------------------------------------ plan file */

typedef struct {
    int p, q;
    char order;
    int used;         /* matched by a grid of this run */
    int *app;
    int *planned;
} plan_grid_t;

static struct {
    int state;        /* 0 unread, 1 in use, -1 ignored */
    int nprocs;
    int ngrids;
    int complete;
    int applied;      /* grids created relabeled so far */
    int nused;        /* entries matched so far */
    plan_grid_t *g;
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
    cs_plan.nprocs = cs_plan.ngrids = -1;
    cs_plan.complete = 1;
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
                sscanf(rest, "%d", &v) != 1 || v != PLAN_VERSION) {
                snprintf(why, len, "not a version %d plan (line %d)",
                         PLAN_VERSION, lineno);
                rc = -1;
                break;
            }
            magic = 1;
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
    return rc;
}

static void plan_ignore(const char *why, int speaker)
{
    if (cs_plan.state == -1) {
        return;
    }
    cs_plan.state = -1;
    if (speaker) {
        const cs_config_t *cfg = cs_cfg_get();
        if (cs_plan.applied > 0) {
            cs_log_warn("relabel: plan %s does not match this run: %s; it is "
                        "ignored from here on (the %d grid%s created "
                        "relabeled so far stay so; results are not "
                        "affected)",
                        cfg->relabel_plan, why, cs_plan.applied,
                        cs_plan.applied == 1 ? "" : "s");
        } else {
            cs_log_warn("relabel: plan %s does not match this run: %s; it is "
                        "ignored and every grid is created as the "
                        "application asks",
                        cfg->relabel_plan, why);
        }
    }
}

void cs_shim_relabel_plan_disable(const char *why, int proposed,
                                  int speaker)
{
    pthread_mutex_lock(&cs_rl_lock);
    cs_plan.applied -= proposed != 0;
    plan_ignore(why, speaker);
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

int cs_shim_relabel_planned_map(int index, int p, int q, char order,
                                const int *app_map, int speaker,
                                int *new_map_p)
{
    const cs_config_t *cfg = cs_cfg_get();
    int relabel = 0;
    pthread_mutex_lock(&cs_rl_lock);
    if (cs_plan.state == 0) {
        char why[256] = "";
        if (plan_read(cfg->relabel_plan, why, sizeof(why)) != 0) {
            plan_free();
            cs_plan.state = -1;
            if (speaker) {
                cs_log_warn("relabel: COSTA_SHIM_RELABEL=apply, but the plan "
                            "%s cannot be used (%s); grids are created as "
                            "the application asks",
                            cfg->relabel_plan, why);
            }
            goto out;
        }
        cs_plan.state = 1;
    }
    if (cs_plan.state != 1) {
        goto out;
    }
    int nworld = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &nworld);
    char why[512], a[200];
    if (nworld != cs_plan.nprocs) {
        snprintf(why, sizeof(why), "it was made for %d processes, this run "
                                   "has %d",
                 cs_plan.nprocs, nworld);
        plan_ignore(why, speaker);
        goto out;
    }
    /* the first entry of the same grid not used yet: processes outside a
     * sub-communicator do not see the grids created on it, so the
     * number alone does not identify a grid on every process */
    size_t n = (size_t)p * (size_t)q;
    plan_grid_t *g = NULL;
    for (int k = 0; k < cs_plan.ngrids && !g; k++) {
        plan_grid_t *e = &cs_plan.g[k];
        if (!e->used && e->p == p && e->q == q && e->order == order &&
            memcmp(e->app, app_map, n * sizeof(int)) == 0) {
            g = e;
        }
    }
    if (!g) {
        if (cs_plan.complete) {
            describe(a, sizeof(a), p, q, order, app_map);
            snprintf(why, sizeof(why),
                     "grid #%d (%s) is not among the %d grids it lists",
                     index, a, cs_plan.ngrids);
            plan_ignore(why, speaker);
        }
        goto out;
    }
    g->used = 1;
    cs_plan.nused++;
    if (memcmp(g->planned, app_map, n * sizeof(int)) != 0) {
        memcpy(new_map_p, g->planned, n * sizeof(int));
        relabel = 1;
        cs_plan.applied++;
    }
out:
    pthread_mutex_unlock(&cs_rl_lock);
    return relabel;
}

/* ------------------------------------------------------------ finalize */

void cs_shim_relabel_finalize(void)
{
    const cs_config_t *cfg = cs_cfg_get();
    if (cfg->relabel == CS_CFG_RELABEL_OFF) {
        return;
    }
    pthread_mutex_lock(&cs_rl_lock);
    int rank0 = cs_shim_world_rank() == 0;
    if (rank0 && cfg->relabel == CS_CFG_RELABEL_REPORT) {
        plan_write(cfg);
    }
    if (rank0 && cfg->relabel == CS_CFG_RELABEL_APPLY && cs_plan.state == 1 &&
        cs_plan.complete && cs_plan.nused < cs_plan.ngrids) {
        char why[160];
        snprintf(why, sizeof(why),
                 "the run created %d of the %d grids it lists",
                 cs_plan.nused, cs_plan.ngrids);
        plan_ignore(why, 1);
    }
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (cs_shapes[i].used) {
            shape_free(&cs_shapes[i]);
        }
    }
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
