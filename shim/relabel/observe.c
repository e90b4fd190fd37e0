/*
 * shim/relabel/observe.c - what relabeling would save on each call
 * shape, and the position volumes of grid pairs the plan is computed from
 * (shim/relabel/relabel_int.h, docs/relabel.md).
 *
 * Every rank computes the per-call numbers itself from the global layouts
 * (no communication; the solver runs with time budget 0, so every rank
 * gets the same permutation).  Only the keeper of a call (the lowest world
 * rank of its global context) keeps the position volumes of its grid pair;
 * the other ranks keep only the cache of (shape -> two numbers).  Memory
 * is bounded by the constants in relabel_int.h.  The cache and the
 * pairs are one registry, guarded by cs_rl_observe_lock.
 */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/log.h"
#include "config/config.h"
#include "relabel/relabel.h"
#include "relabel/relabel_nodes.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_grid_registry_int.h"
#include "shim/shim_process_int.h"
#include "shim/relabel/relabel_int.h"

#include <mpi.h>

static pthread_mutex_t cs_rl_observe_lock = PTHREAD_MUTEX_INITIALIZER;

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
    int64_t net, net_plain, net_node; /* across nodes, -1: one node */
    int pa, pb;         /* positions of A's and B's grids */
    int64_t *posmat;    /* keeper: pa x pb bytes, position to position */
    int64_t calls;      /* calls not yet added to the pair */
} shape_t;

static shape_t cs_shapes[CS_SHIM_RELABEL_SHAPES];
static int cs_shape_ids;
static uint64_t cs_use_clock;

/* Position volumes of the calls from grid (sa, oa) to grid (sb, ob) this
 * process kept (their plan numbers ga, gb stay -1 here). */
static cs_rl_pair_t cs_pairs[CS_SHIM_RELABEL_PAIRS];
static int cs_npairs;
static int64_t cs_kept_bytes;   /* bytes of posmat and pair matrices */

/* totals over the calls this process kept */
static int64_t cs_calls_seen;
static int64_t cs_cross_total;  /* with the application's maps */
static int cs_incomplete;       /* some call could not enter the plan */
static int cs_saturated;

/* ------------------------------------------------------------ pairs */

static cs_rl_pair_t *pair_get(const shape_key_t *k, int pa, int pb)
{
    for (int i = 0; i < cs_npairs; i++) {
        cs_rl_pair_t *p = &cs_pairs[i];
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
    cs_rl_pair_t *p = &cs_pairs[cs_npairs++];
    *p = (cs_rl_pair_t){.sa = (int)k->sa, .oa = (int)k->oa,
                        .sb = (int)k->sb, .ob = (int)k->ob,
                        .ga = -1, .gb = -1, .pa = pa, .pb = pb,
                        .calls = 0, .v = v};
    return p;
}

/* Add the shape's pending calls to its grid pair. */
static void shape_flush(shape_t *s)
{
    if (!s->posmat || s->calls == 0) {
        return;
    }
    cs_rl_pair_t *p = pair_get(&s->key, s->pa, s->pb);
    if (!p) {
        cs_incomplete = 1;
    } else {
        int64_t n = (int64_t)s->pa * s->pb;
        for (int64_t k = 0; k < n; k++) {
            p->v[k] = cs_rl_add_sat(p->v[k],
                                    cs_rl_mul_sat(s->calls, s->posmat[k],
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

/* Bytes of vol (np x np, comm ranks) that cross nodes (node: per comm
 * rank) when B's position b is played by B's process perm[b] (NULL: the
 * application's mapping). */
static int64_t across(const int64_t *vol, int np, const cs_eng_layout_t *lb,
                      const int *node, const int *perm)
{
    int pb = lb->nprow * lb->npcol, sat = 0;
    int64_t x = 0;
    for (int b = 0; b < pb; b++) {
        int d = lb->grid[perm ? perm[b] : b], col = lb->grid[b];
        for (int i = 0; i < np; i++) {
            if (node[i] != node[d]) {
                x = cs_rl_add_sat(x, vol[(int64_t)i * np + col], &sat);
            }
        }
    }
    return x;
}

/*
 * With ranks on several nodes: the bytes crossing nodes with the
 * application's mapping, the plain relabeling perm and the node-aware one
 * (relabel_nodes.h, exact up to CS_RL_EXACT_MAX_P, over w, the bytes B's
 * processes hold for B's positions, weights of COSTA_SHIM_RELABEL_COST_*)
 * into s; left at -1 otherwise.  RATIONALE: bytes held by processes
 * outside B's grid count in the three numbers but not in the node-aware
 * choice, which like the plain one permutes B's processes only.
 */
static void shape_nodes(shape_t *s, const int64_t *vol, int np,
                        const cs_eng_layout_t *lb, const int64_t *w,
                        const int *perm, const int *node)
{
    int pb = lb->nprow * lb->npcol, nn = 0;
    s->net = s->net_plain = s->net_node = -1;
    int *bnode = malloc((size_t)pb * sizeof(*bnode));
    int *first = malloc((size_t)np * sizeof(*first));
    int *pn = malloc((size_t)pb * sizeof(*pn));
    cs_rl_sparse_t sw;
    if (!node || !bnode || !first || !pn ||
        cs_rl_sparse_from_dense(pb, w, &sw) != CS_RL_OK) {
        goto out;
    }
    for (int i = 0; i < np; i++) {
        first[i] = -1;
    }
    for (int b = 0; b < pb; b++) { /* B's processes' nodes, renumbered */
        int n = node[lb->grid[b]];
        if (first[n] < 0) {
            first[n] = nn++;
        }
        bnode[b] = first[n];
    }
    int more = nn > 1;
    for (int i = 0; i < np && !more; i++) {
        more = node[i] != node[0];
    }
    const cs_config_t *cfg = cs_cfg_get();
    int64_t wr = cfg->relabel_cost_rank, wn = cfg->relabel_cost_node;
    cs_rl_machine_t m = {pb, nn, bnode, wr, wn > wr ? wn : wr};
    if (more && cs_rl_sparse_finish(&sw) == CS_RL_OK &&
        cs_rl_solve_nodes(&sw, &m, 1, pn, NULL) == CS_RL_OK) {
        s->net = across(vol, np, lb, node, NULL);
        s->net_plain = across(vol, np, lb, node, perm);
        s->net_node = across(vol, np, lb, node, pn);
    }
    cs_rl_sparse_free(&sw);
out:
    free(pn);
    free(first);
    free(bnode);
}

/* The volumes of a new shape: crossing with the application's mapping,
 * and with the best relabeling of B's grid over B's processes (and, on
 * several nodes, shape_nodes).  Returns the np x np matrix (caller frees)
 * or NULL. */
static int64_t *shape_compute(shape_t *s, const cs_eng_layout_t *la,
                              const cs_eng_layout_t *lb,
                              const cs_eng_op_t *op, int np, const int *node)
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
        total = cs_rl_add_sat(total, vol[k], &sat);
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
    shape_nodes(s, vol, np, lb, w, perm, node);
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
                          int np, int routine, int keeper, const int *node)
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
    int64_t *vol = shape_compute(s, la, lb, op, np, node);
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
    if (keeper && cs_log_level() >= CS_LOG_INFO) {
        char ga[96], gb[96];
        grid_label(ga, sizeof(ga), key->sa, key->oa, la);
        grid_label(gb, sizeof(gb), key->sb, key->ob, lb);
        double gain = s->cross > 0 ? 100.0 * (double)(s->cross - s->best) /
                                         (double)s->cross
                                   : 0.0;
        char nodes[160] = "";
        if (s->net >= 0) {
            snprintf(nodes, sizeof(nodes),
                     "; %.3f MB cross nodes, %.3f MB relabeled, %.3f MB "
                     "relabeled node-aware",
                     1e-6 * (double)s->net, 1e-6 * (double)s->net_plain,
                     1e-6 * (double)s->net_node);
        }
        cs_log_info("relabel: shape %d %s %" PRId64 "x%" PRId64
                    " A %s -> B %s: %.3f MB cross processes, %.3f MB with "
                    "B's grid relabeled (gain %.1f%%)%s",
                    s->id, cs_shim_routines[routine].lower, op->m, op->n, ga,
                    gb, 1e-6 * (double)s->cross, 1e-6 * (double)s->best,
                    gain, nodes);
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
    key.hash_a = (int64_t)cs_rl_hash_ints(0, wa, pa);
    key.hash_b = (int64_t)cs_rl_hash_ints(0, wb, pb);

    pthread_mutex_lock(&cs_rl_observe_lock);
    shape_t *s = NULL;
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES && !s; i++) {
        if (cs_shapes[i].used &&
            memcmp(&cs_shapes[i].key, &key, sizeof(key)) == 0) {
            s = &cs_shapes[i];
        }
    }
    if (!s) {
        s = shape_new(&key, la, lb, op, np, rec->routine, keeper,
                      cs_shim_comm_nodes(comm));
    }
    if (s) {
        s->last_use = ++cs_use_clock;
        rec->relabel_cross = s->cross;
        rec->relabel_best = s->best;
        rec->relabel_net = s->net;
        rec->relabel_net_plain = s->net_plain;
        rec->relabel_net_node = s->net_node;
        if (keeper) {
            cs_calls_seen++;
            cs_cross_total =
                cs_rl_add_sat(cs_cross_total, s->cross, &cs_saturated);
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
    pthread_mutex_unlock(&cs_rl_observe_lock);
out:
    free(wb);
    free(wa);
    free(world);
    free(ranks);
}

/* ------------------------------------------------------------ finalize */

/* Flush every shape's pending calls into its pair and free the shapes. */
static void shapes_release(void)
{
    for (int i = 0; i < CS_SHIM_RELABEL_SHAPES; i++) {
        if (cs_shapes[i].used) {
            shape_free(&cs_shapes[i]);
        }
    }
}

void cs_shim_relabel_observe_flush(cs_shim_relabel_seen_t *seen_p)
{
    pthread_mutex_lock(&cs_rl_observe_lock);
    shapes_release();
    seen_p->npairs = cs_npairs;
    seen_p->pairs = cs_pairs;
    seen_p->calls_seen = cs_calls_seen;
    seen_p->cross_total = cs_cross_total;
    seen_p->incomplete = cs_incomplete;
    seen_p->saturated = cs_saturated;
    pthread_mutex_unlock(&cs_rl_observe_lock);
}

void cs_shim_relabel_observe_release(void)
{
    pthread_mutex_lock(&cs_rl_observe_lock);
    shapes_release();
    for (int k = 0; k < cs_npairs; k++) {
        free(cs_pairs[k].v);
    }
    memset(cs_pairs, 0, sizeof(cs_pairs));
    cs_npairs = 0;
    cs_kept_bytes = 0;
    pthread_mutex_unlock(&cs_rl_observe_lock);
}
