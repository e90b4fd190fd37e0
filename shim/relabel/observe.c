/*
 * shim/relabel/observe.c - a p?gemr2d/p?trmr2d call as the shape cache
 * sees it (relabel_int.h): the grids' world ranks, the call's keeper and
 * the key that names its shape on every process of the call.  The cache
 * (cache.c) does the rest.
 *
 * MPI: only local queries of the call's communicator (size, groups).
 */
#include <limits.h>
#include <string.h>

#include "relabel/relabel.h"
#include "shim/relabel/relabel_int.h"
#include "shim/shim.h"
#include "shim/shim_blacs_int.h"
#include "shim/shim_process_int.h"

#include <mpi.h>

static void key_dist(int64_t *f, const cs_eng_dist_t *d)
{
    f[0] = d->n;
    f[1] = d->nb;
    f[2] = d->first;
    f[3] = d->src;
    f[4] = d->nprocs;
}

/* Ranks translated to MPI_COMM_WORLD this many at a time, on the stack:
 * a call's view needs no memory that grows with its processes (the four
 * arrays of world ranks it held were 1 MB a call at P = 65,536, outside
 * COSTA_SHIM_MAX_MEMORY). */
#define OBSERVE_CHUNK 512

/*
 * The world ranks of n ranks of group g: r[0..n), or 0..n-1 when r is
 * NULL.  Their smallest returned; their hash into *h unless h is NULL,
 * chunk by chunk (every process of the call chunks alike, so all get the
 * same key).
 */
static int world_scan(MPI_Group g, MPI_Group wg, const int *r, int n,
                      uint64_t *h)
{
    int in[OBSERVE_CHUNK], out[OBSERVE_CHUNK], lo = INT_MAX;
    if (h) {
        *h = 0;
    }
    for (int i = 0; i < n; i += OBSERVE_CHUNK) {
        int k = n - i < OBSERVE_CHUNK ? n - i : OBSERVE_CHUNK;
        for (int q = 0; q < k; q++) {
            in[q] = r ? r[i + q] : i + q;
        }
        MPI_Group_translate_ranks(g, k, in, wg, out);
        for (int q = 0; q < k; q++) {
            lo = out[q] < lo ? out[q] : lo;
        }
        if (h) {
            *h = cs_rl_hash_ints(*h, out, k);
        }
    }
    return lo;
}

void cs_shim_relabel_observe(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                             MPI_Comm comm, int stamp_a, int stamp_b,
                             cs_shim_record_t *rec)
{
    int np = 0;
    MPI_Comm_size(comm, &np);
    if (np < 1 || la->rows.kind != CS_ENG_DIST_CYCLIC ||
        la->cols.kind != CS_ENG_DIST_CYCLIC ||
        lb->rows.kind != CS_ENG_DIST_CYCLIC ||
        lb->cols.kind != CS_ENG_DIST_CYCLIC) {
        return;
    }
    int pa = la->nprow * la->npcol, pb = lb->nprow * lb->npcol;
    /* the grids' ranks in MPI_COMM_WORLD: the key must not depend on which
     * communicator the call came through */
    MPI_Group g, wg;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    uint64_t hash_a, hash_b;
    int keeper_rank = world_scan(g, wg, NULL, np, NULL);
    int owner_a = world_scan(g, wg, la->grid, pa, &hash_a);
    int owner_b = world_scan(g, wg, lb->grid, pb, &hash_b);
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    /* every process of the call keeps the same key; only the keeper counts
     * the call for the plan, so each call is counted once world-wide */
    int keeper = keeper_rank == cs_shim_world_rank();

    cs_shim_relabel_call_t c;
    memset(&c, 0, sizeof(c));
    cs_shim_relabel_key_t *key = &c.key;
    key->m = op->m;
    key->n = op->n;
    key->ia = op->ia;
    key->ja = op->ja;
    key->ib = op->ib;
    key->jb = op->jb;
    key->esize = (int64_t)op->esize;
    key->trans = op->trans;
    key->mask = op->mask;
    key->mask_k = op->mask_k;
    key_dist(key->dist[0][0], &la->rows);
    key_dist(key->dist[0][1], &la->cols);
    key_dist(key->dist[1][0], &lb->rows);
    key_dist(key->dist[1][1], &lb->cols);
    key->np = np;
    key->sa = stamp_a;
    key->oa = owner_a;
    key->sb = stamp_b;
    key->ob = owner_b;
    key->keeper = keeper_rank;
    key->hash_a = (int64_t)hash_a;
    key->hash_b = (int64_t)hash_b;
    c.la = la;
    c.lb = lb;
    c.op = op;
    c.np = np;
    c.node = cs_shim_comm_nodes(comm);
    c.routine = rec->routine;
    c.keeper = keeper;
    cs_shim_relabel_cache_observe(&c, rec);
}
