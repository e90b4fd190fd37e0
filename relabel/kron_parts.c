/*
 * relabel/kron_parts.c - a machine's nodes as parts of A's grid
 * (kron_int.h, cs_rl_parts_t): built from the nodes, and the bound on
 * what one node can hold for a position that the node-aware swaps prune
 * with.
 *
 * RATIONALE: the node-aware gain of process k playing position j needs
 * NV[node(k)][j], the bytes all processes of k's node hold for j; a
 * nodes x P table is as large as the problem (10^9 entries at P = 2^20).
 * A node's processes sit on a few runs ("parts") of cells of A's grid
 * along one dimension: with consecutive ranks per node and a row-major
 * grid, one part per grid row the node touches.  Over a part (x, y0..y1)
 * the bytes for B's cell (u, v) are R[x][u] * (C[y0][v] + ... +
 * C[y1 - 1][v]), a lookup and a range sum of a factor column, so NV
 * costs O(parts) lookups and nothing of size nodes x P is built.
 *
 * Pure C, no MPI, no global state, deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/kron_int.h"

void cs_rl_parts_free(cs_rl_parts_t *pt)
{
    free(pt->first);
    free(pt->fix);
    free(pt->lo);
    free(pt->hi);
}

/*
 * Walk A's cells by node, in (x, y) order (horiz) or (y, x), and count
 * the runs of consecutive cells; with record set, store them.  cells:
 * scratch of r.na * c.na ints; fill: nnodes + 1 ints.
 */
static int64_t parts_walk(cs_rl_parts_t *pt, int nnodes, int horiz,
                          int *cells, int *fill, int record)
{
    const cs_rl_kx_t *kx = pt->kx;
    int nx = kx->r.na, ny = kx->c.na;
    int outer = horiz ? nx : ny, inner = horiz ? ny : nx;
    memset(fill, 0, ((size_t)nnodes + 1) * sizeof(int));
    for (int64_t c = 0; c < (int64_t)nx * ny; c++) {
        fill[pt->node[kx->cellp[c]] + 1]++;
    }
    for (int n = 0; n < nnodes; n++) {
        fill[n + 1] += fill[n];
    }
    /* a stable bucket by node of the cells in walking order */
    for (int o = 0; o < outer; o++) {
        for (int i = 0; i < inner; i++) {
            int64_t c = horiz ? (int64_t)o * ny + i : (int64_t)i * ny + o;
            cells[fill[pt->node[kx->cellp[c]]]++] = (int)c;
        }
    }
    /* fill[n] is now the end of node n's cells */
    int64_t np = 0, start = 0;
    for (int n = 0; n < nnodes; n++) {
        if (record) {
            pt->first[n] = np;
        }
        for (int64_t e = start; e < fill[n]; e++) {
            int c = cells[e];
            int f = horiz ? c / ny : c % ny, k = horiz ? c % ny : c / ny;
            int pc = e > start ? cells[e - 1] : -1;
            int pf = horiz ? pc / ny : pc % ny, pk = horiz ? pc % ny : pc / ny;
            if (pc >= 0 && pf == f && pk + 1 == k) {
                if (record) {
                    pt->hi[np - 1] = k + 1;
                }
                continue;
            }
            if (record) {
                pt->fix[np] = f;
                pt->lo[np] = k;
                pt->hi[np] = k + 1;
            }
            np++;
        }
        start = fill[n];
    }
    if (record) {
        pt->first[nnodes] = np;
    }
    return np;
}

cs_rl_status_t cs_rl_parts_build(const cs_rl_kx_t *kx,
                                 const cs_rl_machine_t *m, cs_rl_parts_t *pt)
{
    memset(pt, 0, sizeof(*pt));
    pt->kx = kx;
    pt->node = m->node;
    int64_t ncell = (int64_t)kx->r.na * kx->c.na;
    int *cells = malloc((size_t)ncell * sizeof(int));
    int *fill = malloc(((size_t)m->nnodes + 1) * sizeof(int));
    if (!cells || !fill) {
        free(cells);
        free(fill);
        return CS_RL_ERR_NOMEM;
    }
    /* the orientation with fewer parts */
    int64_t nh = parts_walk(pt, m->nnodes, 1, cells, fill, 0);
    int64_t nv = parts_walk(pt, m->nnodes, 0, cells, fill, 0);
    pt->horiz = nh <= nv;
    int64_t np = pt->horiz ? nh : nv;
    pt->first = malloc(((size_t)m->nnodes + 1) * sizeof(int64_t));
    pt->fix = malloc(((size_t)np + 1) * sizeof(int));
    pt->lo = malloc(((size_t)np + 1) * sizeof(int));
    pt->hi = malloc(((size_t)np + 1) * sizeof(int));
    cs_rl_status_t st = CS_RL_ERR_NOMEM;
    if (pt->first && pt->fix && pt->lo && pt->hi) {
        parts_walk(pt, m->nnodes, pt->horiz, cells, fill, 1);
        st = CS_RL_OK;
    }
    free(cells);
    free(fill);
    if (st != CS_RL_OK) {
        cs_rl_parts_free(pt);
    }
    return st;
}

/* Work of the windows at most (ranges x columns): beyond it the bound is
 * the column's sum. */
#define WINDOW_WORK ((int64_t)1 << 24)

static int range_cmp(const void *x, const void *y)
{
    const int *a = x, *b = y;
    if (a[0] != b[0]) {
        return a[0] < b[0] ? -1 : 1;
    }
    return (a[1] > b[1]) - (a[1] < b[1]);
}

/*
 * win[w]: the largest sum of a factor column over one part's range, per
 * column w of the factor the parts run along (C when horizontal), and
 * the most parts one node has, returned.  A node then holds at most
 * nparts * (the other factor's column maximum) * win bytes for a
 * position: the bound that lets the swaps skip a pair whose first gain
 * is already too small (the column's sum, all nodes at once, never did).
 * Parts of different nodes often share a range (one per grid row), so
 * each distinct range is summed once.  Returns -1 (no windows) when that
 * is more than WINDOW_WORK lookups or memory runs out.
 */
static int64_t nv_windows(const cs_rl_parts_t *pt, int nnodes, int64_t *win)
{
    const cs_rl_kx_t *kx = pt->kx;
    const cs_rl_fac_t *f = pt->horiz ? &kx->c : &kx->r;
    int64_t most = 0, np = pt->first[nnodes], nr = 0;
    for (int n = 0; n < nnodes; n++) {
        int64_t k = pt->first[n + 1] - pt->first[n];
        most = k > most ? k : most;
    }
    int *rg = malloc((size_t)(np > 0 ? np : 1) * 2 * sizeof(int));
    if (!rg) {
        return -1;
    }
    for (int64_t p = 0; p < np; p++) {
        rg[2 * p] = pt->lo[p];
        rg[2 * p + 1] = pt->hi[p];
    }
    qsort(rg, (size_t)np, 2 * sizeof(int), range_cmp);
    for (int64_t p = 0; p < np; p++) {
        if (nr == 0 || range_cmp(rg + 2 * (nr - 1), rg + 2 * p) != 0) {
            rg[2 * nr] = rg[2 * p];
            rg[2 * nr + 1] = rg[2 * p + 1];
            nr++;
        }
    }
    if (nr * f->nb > WINDOW_WORK) {
        free(rg);
        return -1;
    }
    for (int w = 0; w < f->nb; w++) {
        win[w] = 0;
    }
    for (int64_t q = 0; q < nr; q++) {
        for (int w = 0; w < f->nb; w++) {
            int64_t s = cs_rl_fac_range(f, w, rg[2 * q], rg[2 * q + 1]);
            win[w] = s > win[w] ? s : win[w];
        }
    }
    free(rg);
    return most;
}

cs_rl_status_t cs_rl_parts_bounds(const cs_rl_parts_t *pt,
                                  const cs_rl_machine_t *m, int64_t *bound)
{
    const cs_rl_kx_t *kx = pt->kx;
    int nw = pt->horiz ? kx->c.nb : kx->r.nb;
    int64_t *win = malloc((size_t)nw * sizeof(*win));
    if (!win) {
        return CS_RL_ERR_NOMEM;
    }
    int64_t most = nv_windows(pt, m->nnodes, win);
    int64_t dw = m->w_node - m->w_rank;
    for (int j = 0; j < kx->P; j++) {
        int u = kx->bu[j];
        if (u < 0) {
            bound[j] = 0;
            continue;
        }
        int v = kx->bv[j], sat = 0;
        int64_t col = cs_rl_kron_col_bytes(kx, j), nv = col;
        if (most >= 0) {
            /* one part's bound fits (at most the total); most of them
             * may not, and then the column's sum is the smaller */
            int64_t one = pt->horiz ? kx->r.cmax[u] * win[v]
                                    : kx->c.cmax[v] * win[u];
            nv = cs_rl_mul_sat(most, one * kx->scale, &sat);
        }
        bound[j] = m->w_rank * kx->r.cmax[u] * kx->c.cmax[v] * kx->scale +
                   dw * (nv < col ? nv : col);
    }
    free(win);
    return CS_RL_OK;
}
