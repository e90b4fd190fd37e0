/*
 * relabel/kron_nodes.c - node-aware relabeling of a Kronecker problem
 * (relabel_kron.h): the bytes a node holds for a position, the split of
 * a relabeling, the two-level start and the solver.
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

int cs_rl_machine_fits(const cs_rl_machine_t *m, int P)
{
    if (m->P != P || m->nnodes < 1 || !m->node || m->w_rank < 0 ||
        m->w_node < m->w_rank) {
        return 0;
    }
    for (int i = 0; i < P; i++) {
        if (m->node[i] < 0 || m->node[i] >= m->nnodes) {
            return 0;
        }
    }
    return 1;
}

void cs_rl_node_lists_free(cs_rl_node_lists_t *nl)
{
    free(nl->first);
    free(nl->members);
    memset(nl, 0, sizeof(*nl));
}

int cs_rl_node_lists(const cs_rl_machine_t *m, cs_rl_node_lists_t *nl)
{
    nl->nnodes = m->nnodes;
    nl->first = calloc((size_t)m->nnodes + 1, sizeof(int));
    nl->members = malloc((size_t)m->P * sizeof(int));
    int *fill = calloc((size_t)m->nnodes, sizeof(int));
    if (!nl->first || !nl->members || !fill) {
        free(fill);
        cs_rl_node_lists_free(nl);
        return -1;
    }
    for (int i = 0; i < m->P; i++) {
        nl->first[m->node[i] + 1]++;
    }
    for (int n = 0; n < m->nnodes; n++) {
        nl->first[n + 1] += nl->first[n];
    }
    for (int i = 0; i < m->P; i++) {
        nl->members[nl->first[m->node[i]] + fill[m->node[i]]++] = i;
    }
    free(fill);
    return 0;
}

/* ------------------------------------------------------------ parts */

/* The parts of every node: part p of node n (first[n] <= p <
 * first[n + 1]) is the cells (fix[p], lo[p] .. hi[p] - 1) of A's grid
 * (op-row coordinate fixed, horiz) or (lo .. hi - 1, fix) (column
 * coordinate fixed). */
typedef struct {
    const cs_rl_kx_t *kx;
    const int *node;
    int horiz;
    int64_t *first;
    int *fix, *lo, *hi;
} parts_t;

static void parts_free(parts_t *pt)
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
static int64_t parts_walk(parts_t *pt, int nnodes, int horiz, int *cells,
                          int *fill, int record)
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

static cs_rl_status_t parts_build(const cs_rl_kx_t *kx,
                                  const cs_rl_machine_t *m, parts_t *pt)
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
        parts_free(pt);
    }
    return st;
}

/* NV[n][j]: bytes the processes of node n hold for position j. */
static int64_t node_vol(const parts_t *pt, int n, int j)
{
    const cs_rl_kx_t *kx = pt->kx;
    int u = kx->bu[j], v = kx->bv[j];
    if (u < 0) {
        return 0;
    }
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
    return s * kx->scale;
}

/* The split of perm (NULL: identity) with the parts built. */
static void split_of(const parts_t *pt, const cs_rl_machine_t *m,
                     const int *perm, cs_rl_split_t *sp)
{
    const cs_rl_kx_t *kx = pt->kx;
    int64_t kept = 0, in_node = 0;
    for (int j = 0; j < kx->P; j++) {
        int k = perm ? perm[j] : j;
        int64_t v = cs_rl_kx_vol(kx, k, j);
        kept += v;
        in_node += node_vol(pt, m->node[k], j) - v;
    }
    int sat = 0;
    sp->kept = kept;
    sp->in_node = in_node;
    sp->across = kx->total - kept - in_node;
    sp->cost = cs_rl_add_sat(cs_rl_mul_sat(m->w_rank, in_node, &sat),
                             cs_rl_mul_sat(m->w_node, sp->across, &sat),
                             &sat);
}

cs_rl_status_t cs_rl_kron_split(const cs_rl_kx_t *kx,
                                const cs_rl_machine_t *m, const int *perm,
                                cs_rl_split_t *split_p)
{
    if (!cs_rl_machine_fits(m, kx->P) ||
        (perm && !cs_rl_perm_check(kx->P, perm))) {
        return CS_RL_ERR_INVALID;
    }
    parts_t pt;
    cs_rl_status_t st = parts_build(kx, m, &pt);
    if (st == CS_RL_OK) {
        split_of(&pt, m, perm, split_p);
        parts_free(&pt);
    }
    return st;
}

/* ------------------------------------------------------------ two-level */

/* Node candidates per position (the nodes of its largest holders). */
#define NODE_CAND 4

/* Each position's candidate nodes, distinct, by decreasing NV (ties:
 * smaller node); -1 pads. */
static cs_rl_status_t node_candidates(const parts_t *pt, int *cn)
{
    const cs_rl_kx_t *kx = pt->kx;
    int K = CS_RL_KRON_CAND;
    cs_rl_cand_t *s = malloc((size_t)cs_rl_kx_top_scratch(K) * sizeof(*s));
    if (!s) {
        return CS_RL_ERR_NOMEM;
    }
    for (int j = 0; j < kx->P; j++) {
        int top[CS_RL_KRON_CAND];
        int64_t val[NODE_CAND];
        int *c = cn + (int64_t)j * NODE_CAND, nc = 0;
        int nt = cs_rl_kx_top(kx, j, 1, K, s, top);
        for (int t = 0; t < nt && nc < NODE_CAND; t++) {
            int n = pt->node[top[t]], dup = 0;
            for (int q = 0; q < nc; q++) {
                dup |= c[q] == n;
            }
            if (dup) {
                continue;
            }
            int64_t w = node_vol(pt, n, j);
            int q = nc++;
            while (q > 0 && (val[q - 1] < w || (val[q - 1] == w &&
                                                c[q - 1] > n))) {
                c[q] = c[q - 1];
                val[q] = val[q - 1];
                q--;
            }
            c[q] = n;
            val[q] = w;
        }
        for (int q = nc; q < NODE_CAND; q++) {
            c[q] = -1;
        }
    }
    free(s);
    return CS_RL_OK;
}

/*
 * First level: which node plays each position (where[j]): greedy on the
 * bytes a candidate node holds for it, in decreasing order, while the
 * node has processes left; then the rest on the node of the process that
 * plays the position now, else the first node with room (nodes.c's
 * level_nodes, on candidates).
 */
static cs_rl_status_t level_nodes(const parts_t *pt,
                                  const cs_rl_node_lists_t *nl, int *where)
{
    int P = pt->kx->P;
    int *cn = malloc((size_t)P * NODE_CAND * sizeof(*cn));
    int *next = calloc((size_t)P, sizeof(*next));
    int64_t *head = malloc((size_t)P * sizeof(*head));
    int *room = malloc((size_t)nl->nnodes * sizeof(*room));
    cs_rl_heap_t h = {malloc((size_t)P * sizeof(int)), 0, head};
    cs_rl_status_t st = cn && next && head && room && h.heap
                            ? node_candidates(pt, cn)
                            : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        for (int n = 0; n < nl->nnodes; n++) {
            room[n] = nl->first[n + 1] - nl->first[n];
        }
        for (int j = 0; j < P; j++) {
            where[j] = -1;
            if (cn[(int64_t)j * NODE_CAND] >= 0) {
                head[j] = node_vol(pt, cn[(int64_t)j * NODE_CAND], j);
                h.heap[h.n++] = j;
            }
        }
        cs_rl_heap_make(&h);
        while (h.n > 0) {
            int j = h.heap[0];
            const int *c = cn + (int64_t)j * NODE_CAND;
            if (room[c[next[j]]] > 0) {
                where[j] = c[next[j]];
                room[where[j]]--;
                cs_rl_heap_pop(&h);
                continue;
            }
            int t = next[j] + 1;
            while (t < NODE_CAND && c[t] >= 0 && room[c[t]] == 0) {
                t++;
            }
            if (t < NODE_CAND && c[t] >= 0) {
                next[j] = t;
                head[j] = node_vol(pt, c[t], j);
                cs_rl_heap_down(&h, 0);
            } else {
                cs_rl_heap_pop(&h);
            }
        }
        int free_n = 0;
        for (int j = 0; j < P; j++) {
            if (where[j] >= 0) {
                continue;
            }
            if (room[pt->node[j]] > 0) {
                where[j] = pt->node[j];
            } else {
                while (room[free_n] == 0) {
                    free_n++;
                }
                where[j] = free_n;
            }
            room[where[j]]--;
        }
    }
    free(cn);
    free(next);
    free(head);
    free(room);
    free(h.heap);
    return st;
}

/*
 * Second level, node by node: its s processes procs[] play its s
 * positions pos[] as the exact assignment on their s x s volumes says,
 * or each position by its own process when all of them are on the node
 * and that keeps as much.  vol: s * s scratch, lp: s ints.
 */
static cs_rl_status_t level_procs(const cs_rl_kx_t *kx, const int *node,
                                  int n, const int *procs, const int *pos,
                                  int s, int64_t *vol, int *lp, int *perm)
{
    int same = 1;
    int64_t own = 0, got = 0;
    if (s == 0) {
        return CS_RL_OK; /* a node without processes plays nothing */
    }
    for (int a = 0; a < s; a++) {
        for (int b = 0; b < s; b++) {
            vol[(int64_t)a * s + b] = cs_rl_kx_vol(kx, procs[a], pos[b]);
        }
        same &= node[pos[a]] == n;
        own += cs_rl_kx_vol(kx, pos[a], pos[a]);
    }
    cs_rl_status_t st = cs_rl_solve_exact(s, vol, lp);
    if (st != CS_RL_OK) {
        return st;
    }
    for (int b = 0; b < s; b++) {
        got += vol[(int64_t)lp[b] * s + b];
    }
    for (int b = 0; b < s; b++) {
        perm[pos[b]] = same && own >= got ? pos[b] : procs[lp[b]];
    }
    return CS_RL_OK;
}

/* The two-level relabeling (nodes of at most CS_RL_EXACT_MAX_P). */
static cs_rl_status_t two_level(const parts_t *pt,
                                const cs_rl_node_lists_t *nl, int *perm)
{
    const cs_rl_kx_t *kx = pt->kx;
    int P = kx->P, smax = 0;
    for (int n = 0; n < nl->nnodes; n++) {
        int s = nl->first[n + 1] - nl->first[n];
        smax = s > smax ? s : smax;
    }
    int *where = malloc((size_t)P * sizeof(*where));
    int *pos = malloc((size_t)P * sizeof(*pos));
    int *qfirst = calloc((size_t)nl->nnodes + 1, sizeof(*qfirst));
    int64_t *vol = malloc((size_t)smax * (size_t)smax * sizeof(*vol));
    int *lp = malloc((size_t)smax * sizeof(*lp));
    cs_rl_status_t st = where && pos && qfirst && vol && lp
                            ? level_nodes(pt, nl, where)
                            : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        /* positions grouped by node, in increasing order */
        for (int j = 0; j < P; j++) {
            qfirst[where[j] + 1]++;
        }
        for (int n = 0; n < nl->nnodes; n++) {
            qfirst[n + 1] += qfirst[n];
        }
        for (int j = 0; j < P; j++) {
            pos[qfirst[where[j]]++] = j;
        }
        for (int n = 0; n < nl->nnodes && st == CS_RL_OK; n++) {
            int s = nl->first[n + 1] - nl->first[n];
            /* qfirst[n] is now the end of node n's positions */
            st = level_procs(kx, pt->node, n, nl->members + nl->first[n],
                             pos + qfirst[n] - s, s, vol, lp, perm);
        }
    }
    free(where);
    free(pos);
    free(qfirst);
    free(vol);
    free(lp);
    return st;
}

/* ------------------------------------------------------------ solver */

/* The node-aware objective: G[k][j] (relabel_nodes.h). */
typedef struct {
    const parts_t *pt;
    int64_t w_rank, dw;
} ngain_t;

static int64_t node_gain(const void *ctx, int k, int j)
{
    const ngain_t *g = ctx;
    return g->w_rank * cs_rl_kx_vol(g->pt->kx, k, j) +
           g->dw * node_vol(g->pt, g->pt->node[k], j);
}

/* Improve perm by swaps under the node-aware cost; bound[j] >= G[.][j]:
 * w_rank times the column's largest entry plus dw times its sum. */
static cs_rl_status_t node_swaps(const parts_t *pt, const cs_rl_machine_t *m,
                                 int *perm, cs_rl_kron_info_t *in)
{
    const cs_rl_kx_t *kx = pt->kx;
    int P = kx->P;
    int64_t *bound = malloc((size_t)P * sizeof(*bound));
    int *cand = NULL;
    cs_rl_status_t st = bound ? cs_rl_kx_candidates(kx, &cand)
                              : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        ngain_t g = {pt, m->w_rank, m->w_node - m->w_rank};
        for (int j = 0; j < P; j++) {
            int u = kx->bu[j];
            bound[j] = u < 0 ? 0
                             : g.w_rank * kx->r.cmax[u] *
                                       kx->c.cmax[kx->bv[j]] * kx->scale +
                                   g.dw * cs_rl_kron_col_bytes(kx, j);
        }
        cs_rl_obj_t obj = {node_gain, &g, bound};
        st = cs_rl_kx_swaps(P, &obj, cand, CS_RL_KRON_CAND,
                            CS_RL_KRON_PASSES, perm, &in->passes,
                            &in->swaps);
    }
    free(bound);
    free(cand);
    return st;
}

cs_rl_status_t cs_rl_kron_solve_nodes(const cs_rl_kx_t *kx,
                                      const cs_rl_machine_t *m,
                                      const int *plain, int *perm_p,
                                      cs_rl_kron_info_t *info_p)
{
    int P = kx->P;
    int64_t top;
    if (!cs_rl_machine_fits(m, P) ||
        (plain && !cs_rl_perm_check(P, plain))) {
        return CS_RL_ERR_INVALID;
    }
    if (__builtin_mul_overflow(m->w_node, kx->total, &top)) {
        return CS_RL_ERR_LIMIT;
    }
    int *best = malloc((size_t)P * sizeof(*best));
    int *two = malloc((size_t)P * sizeof(*two));
    cs_rl_node_lists_t nl;
    memset(&nl, 0, sizeof(nl));
    parts_t pt;
    cs_rl_kron_info_t in, pin = {.method = CS_RL_KRON_PLAIN};
    cs_rl_status_t st = best && two ? CS_RL_OK : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK && plain) {
        memcpy(best, plain, (size_t)P * sizeof(*best));
        pin.kept = cs_rl_kron_kept(kx, best);
    } else if (st == CS_RL_OK) {
        st = cs_rl_kron_solve(kx, best, &pin);
    }
    if (st == CS_RL_OK) {
        st = parts_build(kx, m, &pt);
    }
    if (st != CS_RL_OK) {
        free(best);
        free(two);
        return st;
    }
    cs_rl_split_t sp, sid, stw;
    split_of(&pt, m, best, &sp);
    split_of(&pt, m, NULL, &sid);
    in = pin;
    in.start_cost = sp.cost;
    in.passes = 0;
    in.swaps = 0;
    if (m->nnodes > 1 && m->w_node > m->w_rank) {
        /* the two-level start where nodes are small enough */
        int smax = 0;
        st = cs_rl_node_lists(m, &nl) == 0 ? CS_RL_OK : CS_RL_ERR_NOMEM;
        for (int n = 0; st == CS_RL_OK && n < nl.nnodes; n++) {
            int s = nl.first[n + 1] - nl.first[n];
            smax = s > smax ? s : smax;
        }
        if (st == CS_RL_OK && smax <= CS_RL_EXACT_MAX_P) {
            st = two_level(&pt, &nl, two);
            if (st == CS_RL_OK) {
                split_of(&pt, m, two, &stw);
                if (stw.cost < in.start_cost) {
                    memcpy(best, two, (size_t)P * sizeof(*best));
                    in.start_cost = stw.cost;
                    in.method = CS_RL_KRON_TWO_LEVEL;
                }
            }
        }
        if (st == CS_RL_OK) {
            st = node_swaps(&pt, m, best, &in);
        }
        if (st == CS_RL_OK) {
            split_of(&pt, m, best, &sp);
        }
    }
    if (st == CS_RL_OK) {
        if (sp.cost >= sid.cost) {
            for (int j = 0; j < P; j++) {
                best[j] = j;
            }
            sp = sid;
            in.method = CS_RL_KRON_IDENTITY;
        }
        in.cost = sp.cost;
        in.kept = sp.kept;
        memcpy(perm_p, best, (size_t)P * sizeof(*perm_p));
        if (info_p) {
            *info_p = in;
        }
    }
    cs_rl_node_lists_free(&nl);
    parts_free(&pt);
    free(best);
    free(two);
    return st;
}
