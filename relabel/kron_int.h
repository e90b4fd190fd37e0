/*
 * relabel/kron_int.h - the indexed Kronecker problem shared by kron.c
 * (index, lookups, split, flows), kron_solve.c (plain solver, swaps) and
 * kron_nodes.c (node-aware solver).  Nothing here leaves relabel/.
 */
#ifndef CS_RELABEL_KRON_INT_H
#define CS_RELABEL_KRON_INT_H

#include "relabel/relabel_int.h"
#include "relabel/relabel_kron.h"

/* Factor tables with at most this many cells are also held dense. */
#define CS_RL_KRON_DENSE_CELLS ((int64_t)1 << 21)

/*
 * One factor, indexed both ways.  By row (A's coordinate x): entries
 * [rfirst[x], rfirst[x + 1]) of rb/rw sorted by B coordinate, and the
 * same entries by decreasing weight in sb/sw (ties: smaller coordinate
 * first).  By column (B's coordinate u): [cfirst[u], cfirst[u + 1]) of
 * ca/cw sorted by A coordinate with cpre[e] the sum of cw before e
 * (range sums), and by decreasing weight in sa/sc.
 */
typedef struct {
    int na, nb;
    int64_t n;
    int64_t *rfirst, *cfirst;     /* na + 1, nb + 1 */
    int *rb, *sb, *ca, *sa;       /* n each */
    int64_t *rw, *sw, *cw, *sc;   /* n each */
    int64_t *cpre;                /* n + 1 */
    int64_t *rsum, *csum;         /* na, nb */
    int64_t *cmax;                /* nb: largest entry of each column */
    int64_t *dense;               /* na * nb, or NULL */
    int64_t *dpre;                /* with dense: (na + 1) * nb, dpre[x *
                                   * nb + u] the sum of column u over A
                                   * coordinates below x (O(1) ranges) */
} cs_rl_fac_t;

struct cs_rl_kx {
    int P;
    int64_t scale, total;
    cs_rl_fac_t r, c;
    int *ax, *ay;       /* per process: its A cell, -1 outside */
    int *bu, *bv;       /* per position: its B cell, -1 outside */
    int *cellp;         /* r.na * c.na: process of each A cell */
    int *cellq;         /* r.nb * c.nb: position of each B cell */
    int *cand;          /* P * CS_RL_KRON_CAND: each process's largest
                         * entries (positions, -1 where a row has fewer),
                         * the candidates of every solver's greedy and
                         * swaps, found once */
};

/* Entry (x, u) of a factor, 0 if absent. */
static inline int64_t cs_rl_fac_at(const cs_rl_fac_t *f, int x, int u)
{
    if (f->dense) {
        return f->dense[(int64_t)x * f->nb + u];
    }
    int64_t lo = f->rfirst[x], hi = f->rfirst[x + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (f->rb[mid] < u) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < f->rfirst[x + 1] && f->rb[lo] == u ? f->rw[lo] : 0;
}

/* Sum of column u of a factor over A coordinates [x0, x1), sparse. */
int64_t cs_rl_fac_range_sparse(const cs_rl_fac_t *f, int u, int x0, int x1);

/* Sum of column u of a factor over A coordinates [x0, x1): the node-aware
 * gain reads one per part of a node, so the dense way is O(1). */
static inline int64_t cs_rl_fac_range(const cs_rl_fac_t *f, int u, int x0,
                                      int x1)
{
    if (f->dpre) {
        return f->dpre[(int64_t)x1 * f->nb + u] -
               f->dpre[(int64_t)x0 * f->nb + u];
    }
    return cs_rl_fac_range_sparse(f, u, x0, x1);
}

/* vol[i][j]. */
static inline int64_t cs_rl_kx_vol(const cs_rl_kx_t *kx, int i, int j)
{
    int x = kx->ax[i], u = kx->bu[j];
    if (x < 0 || u < 0) {
        return 0;
    }
    int64_t r = cs_rl_fac_at(&kx->r, x, u);
    return r ? r * cs_rl_fac_at(&kx->c, kx->ay[i], kx->bv[j]) * kx->scale
             : 0;
}

/*
 * The k (<= cap) largest entries of row k of the matrix (by_col 0: the
 * positions process k sends most to) or of its column k (by_col 1: the
 * processes holding most for position k), largest first, ties: smaller
 * index first, into out[]; their count returned.  scratch: room for
 * cs_rl_kx_top_scratch(cap) entries.
 */
typedef struct {
    int64_t w;
    int j;
} cs_rl_cand_t;
int cs_rl_kx_top_scratch(int cap);
int cs_rl_kx_top(const cs_rl_kx_t *kx, int k, int by_col, int cap,
                 cs_rl_cand_t *scratch, int *out);

/* ------------------------------------------------------------ search */

/*
 * The objective a local search maximises: gain(ctx, k, j) of process k
 * playing position j (plain: vol[k][j]; node-aware: relabel_nodes.h's
 * G), and an upper bound of gain(., j) over all processes.
 */
typedef struct {
    int64_t (*gain)(const void *ctx, int k, int j);
    const void *ctx;
    const int64_t *bound;   /* P: bound[j] >= gain(k, j) for every k */
} cs_rl_obj_t;

/*
 * Pairwise swaps (relabel.h's cs_rl_improve, on an implicit matrix):
 * process b may take each position of cand[b * ncand ...] (-1: none)
 * from the process there, whenever that raises the sum of gains.  At
 * most max_passes passes; perm in/out.  Deterministic.
 */
cs_rl_status_t cs_rl_kx_swaps(int P, const cs_rl_obj_t *obj,
                              const int *cand, int ncand, int max_passes,
                              int *perm, int *passes_p, int64_t *swaps_p);



/* ------------------------------------------------------------ nodes */

/* The processes of each node, in increasing order: members[first[n],
 * first[n + 1]).  Built by cs_rl_node_lists (0, or -1: no memory). */
typedef struct {
    int nnodes;
    int *first;     /* nnodes + 1 */
    int *members;   /* P */
} cs_rl_node_lists_t;

int cs_rl_node_lists(const cs_rl_machine_t *m, cs_rl_node_lists_t *nl);
void cs_rl_node_lists_free(cs_rl_node_lists_t *nl);

/*
 * The exact assignment inside one node (kron_inside.c): procs[0..s) play
 * the positions pos[0..s) so that the most bytes stay on their process;
 * lp[b] = a means procs[a] plays pos[b]; *got_p the bytes kept.  Solved
 * component by component of the nonzero volumes.  Scratch w from
 * cs_rl_inside_init for nodes of up to smax processes over P positions:
 * 4 P + 32 smax^2 + 48 smax + 8 bytes.
 */
typedef struct {
    int smax;
    int *loc;                /* P: a position's index in the node, -1 */
    int *ea, *eb;            /* smax^2: the nonzero pairs (a, b) */
    int64_t *ew;             /* smax^2: their bytes */
    int64_t *eo;             /* smax^2: pairs by component */
    int *ints;               /* 12 smax + 2 */
    int64_t *vol;            /* smax^2: one component's square */
} cs_rl_inside_t;

cs_rl_status_t cs_rl_inside_init(cs_rl_inside_t *w, int P, int smax);
void cs_rl_inside_free(cs_rl_inside_t *w);
cs_rl_status_t cs_rl_kx_inside(const cs_rl_kx_t *kx, const int *procs,
                               const int *pos, int s, cs_rl_inside_t *w,
                               int *lp, int64_t *got_p);

/* 1 if machine m fits a problem over P processes (relabel_nodes.h). */
int cs_rl_machine_fits(const cs_rl_machine_t *m, int P);

/* ------------------------------------------------------------ parts */

/*
 * The parts of every node (kron_parts.c): part p of node n (first[n] <=
 * p < first[n + 1]) is the cells (fix[p], lo[p] .. hi[p] - 1) of A's grid
 * (op-row coordinate fixed, horiz) or (lo .. hi - 1, fix) (column
 * coordinate fixed).  Built for machine m (its node array borrowed) in
 * the orientation with fewer parts; at most one part per process.
 */
typedef struct {
    const cs_rl_kx_t *kx;
    const int *node;
    int horiz;
    int64_t *first;
    int *fix, *lo, *hi;
} cs_rl_parts_t;

cs_rl_status_t cs_rl_parts_build(const cs_rl_kx_t *kx,
                                 const cs_rl_machine_t *m, cs_rl_parts_t *pt);
void cs_rl_parts_free(cs_rl_parts_t *pt);

/* NV[n][(u, v)] in elements: what the processes of node n hold for B's
 * cell (u, v); O(parts of n) lookups (inline: the swaps' inner loop). */
static inline int64_t cs_rl_parts_elems(const cs_rl_parts_t *pt, int n,
                                        int u, int v)
{
    const cs_rl_kx_t *kx = pt->kx;
    int64_t s = 0;
    for (int64_t p = pt->first[n]; p < pt->first[n + 1]; p++) {
        if (pt->horiz) {
            int64_t w = cs_rl_fac_at(&kx->r, pt->fix[p], u);
            s += w ? w * cs_rl_fac_range(&kx->c, v, pt->lo[p], pt->hi[p])
                   : 0;
        } else {
            int64_t w = cs_rl_fac_at(&kx->c, pt->fix[p], v);
            s += w ? w * cs_rl_fac_range(&kx->r, u, pt->lo[p], pt->hi[p])
                   : 0;
        }
    }
    return s;
}

/* NV[n][j]: bytes the processes of node n hold for position j. */
static inline int64_t cs_rl_parts_vol(const cs_rl_parts_t *pt, int n, int j)
{
    const cs_rl_kx_t *kx = pt->kx;
    int u = kx->bu[j];
    return u < 0 ? 0 : cs_rl_parts_elems(pt, n, u, kx->bv[j]) * kx->scale;
}

/* bound[j] (P entries) >= the node-aware gain w_rank vol[k][j] + (w_node
 * - w_rank) NV[node(k)][j] of every process k at position j: the largest
 * entry of the column, and at most the column's sum for the node, less
 * where one part of the widest node cannot hold that much. */
cs_rl_status_t cs_rl_parts_bounds(const cs_rl_parts_t *pt,
                                  const cs_rl_machine_t *m, int64_t *bound);

#endif /* CS_RELABEL_KRON_INT_H */
