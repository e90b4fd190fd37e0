/*
 * relabel/kron_nodes.c - node-aware relabeling of a Kronecker problem
 * (relabel_kron.h): the split of a relabeling, the two-level start, the
 * swaps under the weighted cost and the solver.  What a node holds for a
 * position comes from its parts (kron_parts.c).
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

/* The split of perm (NULL: identity) with the parts built. */
static void split_of(const cs_rl_parts_t *pt, const cs_rl_machine_t *m,
                     const int *perm, cs_rl_split_t *sp)
{
    const cs_rl_kx_t *kx = pt->kx;
    int64_t kept = 0, in_node = 0;
    for (int j = 0; j < kx->P; j++) {
        int k = perm ? perm[j] : j;
        int64_t v = cs_rl_kx_vol(kx, k, j);
        kept += v;
        in_node += cs_rl_parts_vol(pt, m->node[k], j) - v;
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
    cs_rl_parts_t pt;
    cs_rl_status_t st = cs_rl_parts_build(kx, m, &pt);
    if (st == CS_RL_OK) {
        split_of(&pt, m, perm, split_p);
        cs_rl_parts_free(&pt);
    }
    return st;
}

/* ------------------------------------------------------------ two-level */

/* Node candidates per position (the nodes of its largest holders). */
#define NODE_CAND 4

/* Each position's candidate nodes, distinct, by decreasing NV (ties:
 * smaller node); -1 pads. */
static cs_rl_status_t node_candidates(const cs_rl_parts_t *pt, int *cn)
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
            int64_t w = cs_rl_parts_vol(pt, n, j);
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
static cs_rl_status_t level_nodes(const cs_rl_parts_t *pt,
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
                head[j] = cs_rl_parts_vol(pt, cn[(int64_t)j * NODE_CAND], j);
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
                head[j] = cs_rl_parts_vol(pt, c[t], j);
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
 * positions pos[] as the exact assignment on their volumes says
 * (kron_inside.c), or each position by its own process when all of them
 * are on the node and that keeps as much.  lp: s ints.
 */
static cs_rl_status_t level_procs(const cs_rl_kx_t *kx, const int *node,
                                  int n, const int *procs, const int *pos,
                                  int s, cs_rl_inside_t *w, int *lp,
                                  int *perm)
{
    int same = 1;
    int64_t own = 0, got = 0;
    if (s == 0) {
        return CS_RL_OK; /* a node without processes plays nothing */
    }
    for (int b = 0; b < s; b++) {
        same &= node[pos[b]] == n;
        own += cs_rl_kx_vol(kx, pos[b], pos[b]);
    }
    cs_rl_status_t st = cs_rl_kx_inside(kx, procs, pos, s, w, lp, &got);
    if (st != CS_RL_OK) {
        return st;
    }
    for (int b = 0; b < s; b++) {
        perm[pos[b]] = same && own >= got ? pos[b] : procs[lp[b]];
    }
    return CS_RL_OK;
}

/* The two-level relabeling (nodes of at most CS_RL_EXACT_MAX_P). */
static cs_rl_status_t two_level(const cs_rl_parts_t *pt,
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
    int *lp = malloc((size_t)smax * sizeof(*lp));
    cs_rl_inside_t w;
    cs_rl_status_t st = where && pos && qfirst && lp
                            ? cs_rl_inside_init(&w, P, smax)
                            : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        st = level_nodes(pt, nl, where);
        /* positions grouped by node, in increasing order */
        for (int j = 0; st == CS_RL_OK && j < P; j++) {
            qfirst[where[j] + 1]++;
        }
        for (int n = 0; st == CS_RL_OK && n < nl->nnodes; n++) {
            qfirst[n + 1] += qfirst[n];
        }
        for (int j = 0; st == CS_RL_OK && j < P; j++) {
            pos[qfirst[where[j]]++] = j;
        }
        for (int n = 0; n < nl->nnodes && st == CS_RL_OK; n++) {
            int s = nl->first[n + 1] - nl->first[n];
            /* qfirst[n] is now the end of node n's positions */
            st = level_procs(kx, pt->node, n, nl->members + nl->first[n],
                             pos + qfirst[n] - s, s, &w, lp, perm);
        }
        cs_rl_inside_free(&w);
    }
    free(where);
    free(pos);
    free(qfirst);
    free(lp);
    return st;
}

/* ------------------------------------------------------------ solver */

/* The node-aware objective: G[k][j] (relabel_nodes.h). */
typedef struct {
    const cs_rl_parts_t *pt;
    int64_t w_rank, dw;
} ngain_t;

/* w_rank vol[k][j] + dw NV[node(k)][j], the position's cell looked up
 * once (the swaps' inner loop). */
static int64_t node_gain(const void *ctx, int k, int j)
{
    const ngain_t *g = ctx;
    const cs_rl_kx_t *kx = g->pt->kx;
    int u = kx->bu[j], x = kx->ax[k];
    if (u < 0) {
        return 0;
    }
    int v = kx->bv[j];
    int64_t r = x < 0 ? 0 : cs_rl_fac_at(&kx->r, x, u);
    int64_t own = r ? r * cs_rl_fac_at(&kx->c, kx->ay[k], v) : 0;
    return (g->w_rank * own +
            g->dw * cs_rl_parts_elems(g->pt, g->pt->node[k], u, v)) *
           kx->scale;
}

/* Improve perm by swaps under the node-aware cost. */
static cs_rl_status_t node_swaps(const cs_rl_parts_t *pt,
                                 const cs_rl_machine_t *m, int *perm,
                                 cs_rl_kron_info_t *in)
{
    const cs_rl_kx_t *kx = pt->kx;
    int64_t *bound = malloc((size_t)kx->P * sizeof(*bound));
    cs_rl_status_t st = bound ? cs_rl_parts_bounds(pt, m, bound)
                              : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        ngain_t g = {pt, m->w_rank, m->w_node - m->w_rank};
        cs_rl_obj_t obj = {node_gain, &g, bound};
        st = cs_rl_kx_swaps(kx->P, &obj, kx->cand, CS_RL_KRON_CAND,
                            CS_RL_KRON_PASSES, perm, &in->passes,
                            &in->swaps);
    }
    free(bound);
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
    cs_rl_parts_t pt;
    cs_rl_kron_info_t in, pin = {.method = CS_RL_KRON_PLAIN};
    cs_rl_status_t st = best && two ? CS_RL_OK : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK && plain) {
        memcpy(best, plain, (size_t)P * sizeof(*best));
        pin.kept = cs_rl_kron_kept(kx, best);
    } else if (st == CS_RL_OK) {
        st = cs_rl_kron_solve(kx, best, &pin);
    }
    if (st == CS_RL_OK) {
        st = cs_rl_parts_build(kx, m, &pt);
    }
    if (st != CS_RL_OK) {
        free(best);
        free(two);
        return st;
    }
    cs_rl_split_t sp, sid, spl, stw;
    split_of(&pt, m, best, &sp);
    split_of(&pt, m, NULL, &sid);
    spl = sp;
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
        in.split_identity = sid;
        in.split_plain = spl;
        in.split = sp;
        memcpy(perm_p, best, (size_t)P * sizeof(*perm_p));
        if (info_p) {
            *info_p = in;
        }
    }
    cs_rl_node_lists_free(&nl);
    cs_rl_parts_free(&pt);
    free(best);
    free(two);
    return st;
}

int64_t cs_rl_kron_nodes_bytes(int P, int nnodes, int smax)
{
    /* Per process: best, two (8) and the parts (fix, lo, hi: 12, at most
     * one part per process) held throughout, the node lists (4), and the
     * larger phase: the two-level start (where, pos, the inside
     * assignment's loc: 12; level_nodes' cn, next, head, heap: 32) or
     * the swaps (bound, the windows, cur, at, changed, seen: 36).  Per
     * node about 32 (counts, firsts, room); the inside assignment's
     * pairs and square, 32 smax^2, and its 52 smax. */
    return 68 * (int64_t)P + 32 * ((int64_t)nnodes + 1) +
           32 * (int64_t)smax * smax + 52 * (int64_t)smax +
           ((int64_t)64 << 10);
}
