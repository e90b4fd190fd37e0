/*
 * shim/relabel/shape.c - the relabeling numbers of one call shape, the
 * dense way or the factored one (shape_int.h).
 *
 * No MPI, no global state, no configuration: inputs are plain values, so
 * the unit programs run exactly what the shim runs.
 *
 * Conventions of both ways: B's processes are numbered by B's positions
 * (process i is the one at B's position i now), so the identity is the
 * application's mapping and a relabeling permutes B's processes only.
 * Bytes held by processes outside B's grid count as crossing in every
 * number but cannot be kept by any relabeling of B.
 *
 * Memory bounds.  Each way claims, before allocating, an upper bound of
 * what it holds at once: the sizes below follow the allocations of the
 * engine's overlays and of the solvers, with room to spare, and the unit
 * test test_relabel_shape checks them against a counting allocator on
 * every way and on nodes (a change of the solvers' memory that outgrows
 * them fails there, not in production).
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/relabel.h"
#include "relabel/relabel_nodes.h"
#include "shim/relabel/shape_int.h"

/* ------------------------------------------------------------ bounds */

/* Overlay segments of one dimension of length len between A's dist da
 * and B's db: blocks of both inside the range, partial ends included. */
static int64_t dim_segments(const cs_eng_dist_t *da, const cs_eng_dist_t *db,
                            int64_t len)
{
    int64_t na = da->nb > 0 ? da->nb : 1, nb = db->nb > 0 ? db->nb : 1;
    return len / na + len / nb + 6;
}

/* Segments of both dimensions' overlays of the shape. */
static int64_t shape_segments(const cs_shim_rl_shape_in_t *in)
{
    const cs_eng_layout_t *la = in->la, *lb = in->lb;
    int tr = in->op->trans != 0;
    return dim_segments(tr ? &la->cols : &la->rows, &lb->rows, in->op->m) +
           dim_segments(tr ? &la->rows : &la->cols, &lb->cols, in->op->n);
}

/* Bytes the engine's two overlays take per segment at most (segment,
 * sort key, runs of every side, group). */
#define SHAPE_OVERLAY_SEG_BYTES 512

/* Fixed slack of every bound: small arrays, allocator rounding. */
#define SHAPE_SLACK ((int64_t)64 << 10)

/* Whether the shape's nodes differ among the context's ranks. */
static int nodes_differ(const cs_shim_rl_shape_in_t *in)
{
    for (int i = 1; in->node && i < in->np; i++) {
        if (in->node[i] != in->node[0]) {
            return 1;
        }
    }
    return 0;
}

/* Position volumes wanted and small enough: their bytes, else 0. */
static int64_t posmat_bytes(const cs_shim_rl_shape_in_t *in)
{
    int64_t pa = (int64_t)in->la->nprow * in->la->npcol;
    int64_t pb = (int64_t)in->lb->nprow * in->lb->npcol;
    int64_t b = pa * pb * (int64_t)sizeof(int64_t);
    return in->posmat_max > 0 && b <= in->posmat_max ? b : 0;
}

/* ------------------------------------------------------------ dense */

/*
 * The dense way holds the np x np volume, the pb x pb volume among B's
 * processes and the solver's vectors; on several nodes also that volume
 * as a sparse matrix (grown by doubling, then sorted) and the node-aware
 * solver's gains (pb x pb) and node sums (nodes x pb).
 */
static int64_t dense_bytes(const cs_shim_rl_shape_in_t *in, int differ)
{
    int64_t np = in->np;
    int64_t pb = (int64_t)in->lb->nprow * in->lb->npcol;
    int64_t b = SHAPE_OVERLAY_SEG_BYTES * shape_segments(in) + 8 * np * np +
                8 * pb * pb + 4 * pb * pb + 64 * (np + pb);
    if (differ) {
        b += 72 * pb * pb + 8 * pb * pb + 32 * (np + pb);
    }
    return b + posmat_bytes(in) + SHAPE_SLACK;
}

/* Bytes of vol (np x np, ranks) that cross nodes when B's position b is
 * played by B's process perm[b] (NULL: the application's mapping). */
static int64_t dense_across(const int64_t *vol, int np,
                            const cs_eng_layout_t *lb, const int *node,
                            const int *perm)
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
 * processes hold for B's positions).  RATIONALE: bytes held by processes
 * outside B's grid count in the three numbers but not in the node-aware
 * choice, which like the plain one permutes B's processes only.
 */
static void dense_nodes(const cs_shim_rl_shape_in_t *in, const int64_t *vol,
                        const int64_t *w, const int *perm,
                        cs_shim_rl_shape_t *s)
{
    const cs_eng_layout_t *lb = in->lb;
    const int *node = in->node;
    int np = in->np, pb = lb->nprow * lb->npcol, nn = 0;
    int *bnode = malloc((size_t)pb * sizeof(*bnode));
    int *first = malloc((size_t)np * sizeof(*first));
    int *pn = malloc((size_t)pb * sizeof(*pn));
    cs_rl_sparse_t sw;
    memset(&sw, 0, sizeof(sw));
    if (!bnode || !first || !pn ||
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
    int64_t wr = in->w_rank, wn = in->w_node;
    cs_rl_machine_t m = {pb, nn, bnode, wr, wn > wr ? wn : wr};
    if (cs_rl_sparse_finish(&sw) == CS_RL_OK &&
        cs_rl_solve_nodes(&sw, &m, 1, pn, NULL) == CS_RL_OK) {
        s->net = dense_across(vol, np, lb, node, NULL);
        s->net_plain = dense_across(vol, np, lb, node, perm);
        s->net_node = dense_across(vol, np, lb, node, pn);
    }
out:
    cs_rl_sparse_free(&sw);
    free(pn);
    free(first);
    free(bnode);
}

/* The position volumes, A's positions by B's, from the np x np volume. */
static int64_t *dense_posmat(const cs_shim_rl_shape_in_t *in,
                             const int64_t *vol)
{
    const cs_eng_layout_t *la = in->la, *lb = in->lb;
    int pa = la->nprow * la->npcol, pb = lb->nprow * lb->npcol;
    int64_t *p = malloc((size_t)pa * (size_t)pb * sizeof(*p));
    for (int a = 0; p && a < pa; a++) {
        for (int b = 0; b < pb; b++) {
            p[(int64_t)a * pb + b] =
                vol[(int64_t)la->grid[a] * in->np + lb->grid[b]];
        }
    }
    return p;
}

static cs_status_t dense_eval(const cs_shim_rl_shape_in_t *in,
                              cs_shim_rl_shape_t *s)
{
    const cs_eng_layout_t *lb = in->lb;
    int np = in->np, pb = lb->nprow * lb->npcol;
    int64_t *vol = calloc((size_t)np * (size_t)np, sizeof(int64_t));
    int64_t *w = malloc((size_t)pb * (size_t)pb * sizeof(int64_t));
    int *perm = malloc((size_t)pb * sizeof(int));
    cs_status_t st = CS_ERR_NOMEM;
    if (!vol || !w || !perm) {
        goto out;
    }
    st = cs_eng_volume_matrix(in->la, lb, in->op, np, vol);
    if (st != CS_OK) {
        goto out;
    }
    int64_t total = 0, trace = 0;
    int sat = 0;
    for (int64_t k = 0; k < (int64_t)np * np; k++) {
        total = cs_rl_add_sat(total, vol[k], &sat);
    }
    for (int i = 0; i < np; i++) {
        trace += vol[(int64_t)i * np + i];
    }
    for (int i = 0; i < pb; i++) {
        for (int j = 0; j < pb; j++) {
            w[(int64_t)i * pb + j] =
                vol[(int64_t)lb->grid[i] * np + lb->grid[j]];
        }
    }
    /* a total beyond int64: no way can count it */
    cs_rl_result_t res;
    st = sat ? CS_ERR_UNSUPPORTED : CS_ERR_NOMEM;
    if (sat || cs_rl_solve(pb, w, 0.0, perm, &res) != CS_RL_OK) {
        goto out;
    }
    int64_t kept = 0;
    for (int j = 0; j < pb; j++) {
        kept += w[(int64_t)perm[j] * pb + j];
    }
    s->cross = total - trace;
    s->best = total - (kept > trace ? kept : trace);
    s->net = s->net_plain = s->net_node = -1;
    if (nodes_differ(in)) {
        dense_nodes(in, vol, w, perm, s);
    }
    s->posmat = posmat_bytes(in) > 0 ? dense_posmat(in, vol) : NULL;
    s->path = CS_SHIM_RL_DENSE;
    st = CS_OK;
out:
    free(perm);
    free(w);
    free(vol);
    return st;
}

/* ------------------------------------------------------------ eval */

/* Claim bytes, run the way, give them back. */
static cs_status_t claimed(cs_status_t (*way)(const cs_shim_rl_shape_in_t *,
                                              cs_shim_rl_shape_t *),
                           const cs_shim_rl_shape_in_t *in, int64_t bytes,
                           cs_shim_rl_claim_fn claim, void *ctx,
                           cs_shim_rl_shape_t *s)
{
    if (claim(ctx, bytes) != 0) {
        return CS_ERR_LIMIT;
    }
    s->claimed = bytes;
    cs_status_t st = way(in, s);
    claim(ctx, -bytes);
    return st;
}

cs_status_t cs_shim_rl_shape_eval(const cs_shim_rl_shape_in_t *in,
                                  cs_shim_rl_claim_fn claim, void *ctx,
                                  cs_shim_rl_shape_t *out_p)
{
    cs_shim_rl_shape_t s;
    memset(&s, 0, sizeof(s));
    s.net = s.net_plain = s.net_node = -1;
    int pb = in->lb->nprow * in->lb->npcol;
    if (in->np < 1 || in->np > CS_SHIM_RELABEL_MAX_NP) {
        return CS_ERR_UNSUPPORTED;
    }
    (void)pb;
    cs_status_t st = claimed(dense_eval, in, dense_bytes(in, nodes_differ(in)),
                             claim, ctx, &s);
    if (st == CS_OK) {
        *out_p = s;
    }
    return st;
}
