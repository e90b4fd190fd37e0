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
} cs_rl_fac_t;

struct cs_rl_kx {
    int P;
    int64_t scale, total;
    cs_rl_fac_t r, c;
    int *ax, *ay;       /* per process: its A cell, -1 outside */
    int *bu, *bv;       /* per position: its B cell, -1 outside */
    int *cellp;         /* r.na * c.na: process of each A cell */
    int *cellq;         /* r.nb * c.nb: position of each B cell */
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

/* Sum of column u of a factor over A coordinates [x0, x1). */
int64_t cs_rl_fac_range(const cs_rl_fac_t *f, int u, int x0, int x1);

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

/* The candidate positions of every process: its CS_RL_KRON_CAND largest
 * entries (-1 where a row has fewer).  *cand_p: P * CS_RL_KRON_CAND ints
 * (malloc'ed). */
cs_rl_status_t cs_rl_kx_candidates(const cs_rl_kx_t *kx, int **cand_p);


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

/* 1 if machine m fits a problem over P processes (relabel_nodes.h). */
int cs_rl_machine_fits(const cs_rl_machine_t *m, int P);

#endif /* CS_RELABEL_KRON_INT_H */
