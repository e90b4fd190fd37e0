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
#include "relabel/relabel_kron.h"
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
 * sort key, runs of every side, group; 315 measured on the case of
 * issue 33). */
#define SHAPE_OVERLAY_SEG_BYTES 384

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

/* ------------------------------------------------------------ kron */

/* Words of the plan term of factors f (relabel_kron.h), at most: 16 for
 * the header and 3 per entry, entries at most the segments. */
static int64_t term_bytes(const cs_shim_rl_shape_in_t *in)
{
    return in->keep_term ? 8 * (16 + 3 * shape_segments(in)) : 0;
}

/* The plan term of factors f (words with calls 0) into s->term. */
static cs_status_t term_of(const cs_eng_factors_t *f, cs_shim_rl_shape_t *s)
{
    cs_rl_factor_t r = {f->rows.na, f->rows.nb, f->rows.n, f->rows.pa,
                        f->rows.pb, f->rows.count};
    cs_rl_factor_t c = {f->cols.na, f->cols.nb, f->cols.n, f->cols.pa,
                        f->cols.pb, f->cols.count};
    int64_t n = cs_rl_term_words(&r, &c);
    s->term = malloc((size_t)n * sizeof(int64_t));
    if (!s->term) {
        return CS_ERR_NOMEM;
    }
    cs_rl_term_pack(s->term, 0, f->esize, f->trans, &r, &c);
    s->nterm = n;
    return CS_OK;
}

/*
 * The factored way first builds the factors through the engine's
 * overlays (freed before the rest), then holds the factors, its index
 * vectors and the problem indexed by relabel_kron.h (per process of B,
 * per factor entry, the factor tables also dense where they are small),
 * and on top of that the plain solver's vectors.  The claim is the
 * larger of the two phases; the solver's share is handed on to the
 * node-aware step (kron_nodes_extra).
 */
static int64_t kron_solve_bytes(const cs_shim_rl_shape_in_t *in)
{
    int pb = in->lb->nprow * in->lb->npcol;
    return cs_rl_kron_solve_bytes(pb, shape_segments(in));
}

static int64_t kron_bytes(const cs_shim_rl_shape_in_t *in)
{
    int64_t np = in->np, seg = shape_segments(in);
    int64_t pa = (int64_t)in->la->nprow * in->la->npcol;
    int pb = in->lb->nprow * in->lb->npcol;
    /* factor tables: A's coordinates by B's, per dimension */
    int tr = in->op->trans != 0;
    int ar = tr ? in->la->npcol : in->la->nprow;
    int ac = tr ? in->la->nprow : in->la->npcol;
    int br = in->lb->nprow, bc = in->lb->npcol;
    /* the factors (16 per entry, entries <= segments), proc, pos, bidx,
     * perm, and relabel's indexed problem */
    int64_t held = 16 * seg + 4 * (pa + pb + np + pb) + term_bytes(in) +
                   cs_rl_kron_bytes(pb, ar, br, ac, bc, seg);
    int64_t overlays = SHAPE_OVERLAY_SEG_BYTES * seg;
    int64_t solve = kron_solve_bytes(in);
    int64_t b = held + solve > overlays ? held + solve : overlays;
    return b + posmat_bytes(in) + SHAPE_SLACK;
}

/* What the node-aware step needs beyond the plain solver's share of the
 * claim (free again by then): its vectors (nodes of B's processes, the
 * permutation, one int per rank) and relabel's node-aware solver. */
static int64_t kron_nodes_extra(const cs_shim_rl_shape_in_t *in, int64_t nn,
                                int64_t smax)
{
    int pb = in->lb->nprow * in->lb->npcol;
    int64_t need = 8 * (int64_t)pb + 4 * (int64_t)in->np +
                   cs_rl_kron_nodes_bytes(pb, (int)nn, (int)smax) +
                   SHAPE_SLACK;
    int64_t have = kron_solve_bytes(in);
    return need > have ? need - have : 0;
}

/* The factored problem over B's processes: pos[c] = c (B's cell c is
 * position c, played by process c now) and proc[c] = the position of A
 * cell c's rank in B; bidx (np ints, out) the position of each rank, -1
 * outside B.  Returns -1 when a grid names a rank twice or one of A's
 * ranks is not among B's (a relabeling of B's processes could not keep
 * its bytes: the dense way counts those shapes). */
static int kron_index(const cs_shim_rl_shape_in_t *in,
                      const cs_eng_factors_t *f, int *proc, int *pos,
                      int *bidx)
{
    int pa = f->rows.na * f->cols.na, pb = f->rows.nb * f->cols.nb;
    if (cs_eng_factors_ranks(in->la, in->lb, f, in->np, proc, pos) !=
        CS_OK) {
        return -1;
    }
    for (int i = 0; i < in->np; i++) {
        bidx[i] = -1;
    }
    for (int c = 0; c < pb; c++) {
        bidx[pos[c]] = c;
        pos[c] = c;
    }
    for (int c = 0; c < pa; c++) {
        if ((proc[c] = bidx[proc[c]]) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Nodes of B's processes renumbered from 0 (bnode: pb ints), the largest
 * node's processes into *smax_p; returns the number of nodes. */
static int kron_bnodes(const cs_shim_rl_shape_in_t *in, int *bnode,
                       int *first, int *smax_p)
{
    const cs_eng_layout_t *lb = in->lb;
    int pb = lb->nprow * lb->npcol, nn = 0, smax = 0;
    for (int i = 0; i < in->np; i++) {
        first[i] = -1;
    }
    for (int b = 0; b < pb; b++) {
        int n = in->node[lb->grid[b]];
        if (first[n] < 0) {
            first[n] = nn++;
        }
        bnode[b] = first[n];
    }
    for (int i = 0; i < in->np; i++) { /* first[] becomes the counts */
        first[i] = 0;
    }
    for (int b = 0; b < pb; b++) {
        int k = ++first[bnode[b]];
        smax = k > smax ? k : smax;
    }
    *smax_p = smax;
    return nn;
}

/* On several nodes: what crosses them under the application's mapping,
 * the plain relabeling perm and the node-aware one, into s. */
static cs_status_t kron_nodes(const cs_shim_rl_shape_in_t *in,
                              const cs_rl_kx_t *kx, const int *perm,
                              cs_shim_rl_claim_fn claim, void *ctx,
                              cs_shim_rl_shape_t *s)
{
    int pb = cs_rl_kron_P(kx), smax = 0;
    int *bnode = malloc((size_t)pb * sizeof(*bnode));
    int *first = malloc((size_t)in->np * sizeof(*first));
    int *pn = malloc((size_t)pb * sizeof(*pn));
    cs_status_t st = CS_ERR_NOMEM;
    int64_t extra = 0;
    if (!bnode || !first || !pn) {
        goto out;
    }
    int nn = kron_bnodes(in, bnode, first, &smax);
    free(first);
    first = NULL;
    if (nn == 1) { /* B's processes share a node; A's are among them */
        s->net = s->net_plain = s->net_node = 0;
        st = CS_OK;
        goto out;
    }
    extra = kron_nodes_extra(in, nn, smax);
    if (extra > 0 && claim(ctx, extra) != 0) {
        extra = 0;
        st = CS_ERR_LIMIT;
        goto out;
    }
    int64_t wr = in->w_rank, wn = in->w_node;
    cs_rl_machine_t m = {pb, nn, bnode, wr, wn > wr ? wn : wr};
    cs_rl_kron_info_t info;
    if (cs_rl_kron_solve_nodes(kx, &m, perm, pn, &info) == CS_RL_OK) {
        s->net = info.split_identity.across;
        s->net_plain = info.split_plain.across;
        s->net_node = info.split.across;
    }
    st = CS_OK; /* as the dense way: a failed solver leaves them -1 */
out:
    if (extra > 0) {
        claim(ctx, -extra);
    }
    free(pn);
    free(first);
    free(bnode);
    return st;
}

/* The position volumes, A's positions by B's, from the factors. */
static int64_t *kron_posmat(const cs_shim_rl_shape_in_t *in,
                            const cs_rl_kx_t *kx, const int *bidx)
{
    const cs_eng_layout_t *la = in->la;
    int pa = la->nprow * la->npcol, pb = cs_rl_kron_P(kx);
    int64_t *p = malloc((size_t)pa * (size_t)pb * sizeof(*p));
    for (int a = 0; p && a < pa; a++) {
        int i = bidx[la->grid[a]];
        for (int b = 0; b < pb; b++) {
            p[(int64_t)a * pb + b] = cs_rl_kron_vol(kx, i, b);
        }
    }
    return p;
}

/* The factored way, after its claim: CS_ERR_UNSUPPORTED when the shape
 * has no usable factors. */
static cs_status_t kron_run(const cs_shim_rl_shape_in_t *in,
                            cs_shim_rl_claim_fn claim, void *ctx,
                            cs_shim_rl_shape_t *s)
{
    const cs_eng_layout_t *la = in->la, *lb = in->lb;
    int pa = la->nprow * la->npcol, pb = lb->nprow * lb->npcol;
    cs_eng_factors_t f;
    cs_status_t st = cs_eng_volume_factors(la, lb, in->op, &f);
    if (st != CS_OK) {
        return st;
    }
    int *proc = malloc((size_t)pa * sizeof(int));
    int *pos = malloc((size_t)pb * sizeof(int));
    int *bidx = malloc((size_t)in->np * sizeof(int));
    int *perm = malloc((size_t)pb * sizeof(int));
    cs_rl_kx_t *kx = NULL;
    st = CS_ERR_NOMEM;
    if (!proc || !pos || !bidx || !perm) {
        goto out;
    }
    st = CS_ERR_UNSUPPORTED;
    if (kron_index(in, &f, proc, pos, bidx) != 0) {
        goto out;
    }
    cs_rl_kron_t k = {
        .P = pb,
        .r = {f.rows.na, f.rows.nb, f.rows.n, f.rows.pa, f.rows.pb,
              f.rows.count},
        .c = {f.cols.na, f.cols.nb, f.cols.n, f.cols.pa, f.cols.pb,
              f.cols.count},
        .scale = f.esize,
        .proc = proc,
        .pos = pos};
    cs_rl_status_t rs = cs_rl_kron_create(&k, &kx);
    if (rs != CS_RL_OK) { /* LIMIT: a total beyond int64 */
        st = rs == CS_RL_ERR_NOMEM ? CS_ERR_NOMEM : CS_ERR_UNSUPPORTED;
        goto out;
    }
    free(proc);
    free(pos);
    proc = pos = NULL;
    st = CS_ERR_NOMEM;
    if (cs_rl_kron_solve(kx, perm, NULL) != CS_RL_OK) {
        goto out;
    }
    int64_t total = cs_rl_kron_total(kx), trace = cs_rl_kron_kept(kx, NULL);
    int64_t kept = cs_rl_kron_kept(kx, perm);
    s->cross = total - trace;
    s->best = total - (kept > trace ? kept : trace);
    s->net = s->net_plain = s->net_node = -1;
    st = CS_OK;
    if (nodes_differ(in)) {
        st = kron_nodes(in, kx, perm, claim, ctx, s);
    }
    if (st == CS_OK) {
        s->posmat = posmat_bytes(in) > 0 ? kron_posmat(in, kx, bidx) : NULL;
        s->path = CS_SHIM_RL_KRON;
        if (in->keep_term && !s->posmat) {
            term_of(&f, s); /* without it the plan leaves the calls out */
        }
    }
out:
    cs_rl_kron_destroy(kx);
    free(perm);
    free(bidx);
    free(pos);
    free(proc);
    cs_eng_factors_free(&f);
    return st;
}

static cs_status_t kron_eval(const cs_shim_rl_shape_in_t *in,
                             cs_shim_rl_claim_fn claim, void *ctx,
                             cs_shim_rl_shape_t *s)
{
    int64_t pb = (int64_t)in->lb->nprow * in->lb->npcol;
    if (in->op->mask != CS_ENG_MASK_NONE || pb > CS_RL_KRON_MAX_P) {
        return CS_ERR_UNSUPPORTED;
    }
    int64_t bytes = kron_bytes(in);
    if (claim(ctx, bytes) != 0) {
        return CS_ERR_LIMIT;
    }
    cs_status_t st = kron_run(in, claim, ctx, s);
    claim(ctx, -bytes);
    return st;
}

/* ------------------------------------------------------------ eval */

static cs_status_t dense_claimed(const cs_shim_rl_shape_in_t *in,
                                 cs_shim_rl_claim_fn claim, void *ctx,
                                 cs_shim_rl_shape_t *s)
{
    if (in->np > CS_SHIM_RELABEL_MAX_NP) {
        return CS_ERR_UNSUPPORTED;
    }
    int64_t bytes = dense_bytes(in, nodes_differ(in));
    if (claim(ctx, bytes) != 0) {
        return CS_ERR_LIMIT;
    }
    cs_status_t st = dense_eval(in, s);
    claim(ctx, -bytes);
    return st;
}

/* The shape's factors as one plan term into s, for a keeper whose
 * position matrix is not kept (too large, or refused) where the way
 * taken had no factors of its own (the dense one): the engine's overlays
 * and the words claimed meanwhile.  A shape without factors (a masked
 * copy) gets none. */
static cs_status_t shape_term(const cs_shim_rl_shape_in_t *in,
                              cs_shim_rl_claim_fn claim, void *ctx,
                              cs_shim_rl_shape_t *s)
{
    int64_t bytes = SHAPE_OVERLAY_SEG_BYTES * shape_segments(in) +
                    term_bytes(in) + SHAPE_SLACK;
    if (in->op->mask != CS_ENG_MASK_NONE) {
        return CS_OK;
    }
    if (claim(ctx, bytes) != 0) {
        return CS_ERR_LIMIT;
    }
    cs_eng_factors_t f;
    cs_status_t st = cs_eng_volume_factors(in->la, in->lb, in->op, &f);
    if (st == CS_OK) {
        st = term_of(&f, s);
        cs_eng_factors_free(&f);
    }
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
    if (in->np < 1) {
        return CS_ERR_UNSUPPORTED;
    }
    /* the dense way where its solver is exact (the numbers small calls
     * always had), else the factors, else the dense way's greedy */
    int exact = pb <= CS_RL_EXACT_MAX_P && in->np <= CS_SHIM_RELABEL_MAX_NP;
    int way = in->force ? in->force
                        : exact ? CS_SHIM_RL_DENSE : CS_SHIM_RL_KRON;
    cs_status_t st = way == CS_SHIM_RL_DENSE
                         ? dense_claimed(in, claim, ctx, &s)
                         : kron_eval(in, claim, ctx, &s);
    if (st == CS_ERR_UNSUPPORTED && !in->force && way == CS_SHIM_RL_KRON) {
        memset(&s, 0, sizeof(s));
        s.net = s.net_plain = s.net_node = -1;
        st = dense_claimed(in, claim, ctx, &s);
    }
    if (st == CS_OK && in->keep_term && !s.posmat && !s.term) {
        /* without it the plan leaves these calls out (the cache says
         * so); the numbers stand either way */
        shape_term(in, claim, ctx, &s);
    }
    if (st == CS_OK) {
        *out_p = s;
    }
    return st;
}
