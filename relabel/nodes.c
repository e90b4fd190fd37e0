/*
 * relabel/nodes.c - node-aware relabeling (relabel_nodes.h): the exact
 * assignment on the weighted gains where P x P fits, the two-level
 * heuristic beyond.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/relabel_nodes.h"

static int machine_ok(const cs_rl_sparse_t *v, const cs_rl_machine_t *m)
{
    if (m->P != v->P || m->nnodes < 1 || !m->node || m->w_rank < 0 ||
        m->w_node < m->w_rank) {
        return 0;
    }
    for (int i = 0; i < m->P; i++) {
        if (m->node[i] < 0 || m->node[i] >= m->nnodes) {
            return 0;
        }
    }
    return 1;
}

/* a * b + c, or -1 on overflow (all non-negative). */
static int64_t mul_add(int64_t a, int64_t b, int64_t c)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r) || __builtin_add_overflow(r, c, &r)) {
        return -1;
    }
    return r;
}

/*
 * The optimum: G[k][j] = w_rank vol[k][j] + (w_node - w_rank)
 * NV[node(k)][j] (relabel_nodes.h) maximised by the exact solver.
 * O(P^2 + nnodes P) memory.
 */
static cs_rl_status_t exact(const cs_rl_sparse_t *v, const cs_rl_machine_t *m,
                            int *perm)
{
    int P = v->P;
    int64_t *g = calloc((size_t)P * (size_t)P, sizeof(*g));
    int64_t *nv = calloc((size_t)m->nnodes * (size_t)P, sizeof(*nv));
    if (!g || !nv) {
        free(g);
        free(nv);
        return CS_RL_ERR_NOMEM;
    }
    cs_rl_status_t st = CS_RL_OK;
    for (int64_t e = 0; e < v->nnz && st == CS_RL_OK; e++) {
        int64_t *x = &nv[(int64_t)m->node[v->src[e]] * P + v->dst[e]];
        if (__builtin_add_overflow(*x, v->bytes[e], x)) {
            st = CS_RL_ERR_LIMIT;
        }
    }
    int64_t dw = m->w_node - m->w_rank;
    for (int k = 0; k < P && st == CS_RL_OK; k++) {
        const int64_t *row = nv + (int64_t)m->node[k] * P;
        for (int j = 0; j < P; j++) {
            g[(int64_t)k * P + j] = row[j];
        }
    }
    /* g = dw * NV[node(k)] + w_rank * vol, entry by entry */
    for (int64_t i = 0; i < (int64_t)P * P && st == CS_RL_OK; i++) {
        if ((g[i] = mul_add(dw, g[i], 0)) < 0) {
            st = CS_RL_ERR_LIMIT;
        }
    }
    for (int64_t e = 0; e < v->nnz && st == CS_RL_OK; e++) {
        int64_t *x = &g[(int64_t)v->src[e] * P + v->dst[e]];
        if ((*x = mul_add(m->w_rank, v->bytes[e], *x)) < 0) {
            st = CS_RL_ERR_LIMIT;
        }
    }
    free(nv);
    if (st == CS_RL_OK) {
        st = cs_rl_solve_exact(P, g, perm);
    }
    free(g);
    return st;
}

/* One (node, position) total of the heuristic's first level. */
typedef struct {
    int64_t bytes;
    int node, pos;
} npos_t;

static int npos_by_pair(const void *x, const void *y)
{
    const npos_t *a = x, *b = y;
    if (a->node != b->node) {
        return a->node < b->node ? -1 : 1;
    }
    return (a->pos > b->pos) - (a->pos < b->pos);
}

static int npos_by_bytes(const void *x, const void *y)
{
    const npos_t *a = x, *b = y;
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1;
    }
    return npos_by_pair(x, y);
}

/*
 * First level: which node plays each position (where[j]).  Greedy on the
 * bytes each node holds for each position, in decreasing order, while the
 * node has processes left; then the rest on the node of the process that
 * plays the position now, else the first node with room.
 */
static cs_rl_status_t level_nodes(const cs_rl_sparse_t *v,
                                  const cs_rl_machine_t *m, int *where)
{
    int P = v->P;
    npos_t *np = malloc(((size_t)v->nnz + 1) * sizeof(*np));
    int *room = calloc((size_t)m->nnodes, sizeof(*room));
    if (!np || !room) {
        free(np);
        free(room);
        return CS_RL_ERR_NOMEM;
    }
    for (int64_t e = 0; e < v->nnz; e++) {
        np[e] = (npos_t){v->bytes[e], m->node[v->src[e]], v->dst[e]};
    }
    qsort(np, (size_t)v->nnz, sizeof(*np), npos_by_pair);
    int64_t n = 0;
    for (int64_t e = 0; e < v->nnz; e++) {
        if (n > 0 && np[n - 1].node == np[e].node &&
            np[n - 1].pos == np[e].pos) {
            int64_t *b = &np[n - 1].bytes;
            *b = __builtin_add_overflow(*b, np[e].bytes, b) ? INT64_MAX : *b;
            continue;
        }
        np[n++] = np[e];
    }
    qsort(np, (size_t)n, sizeof(*np), npos_by_bytes);
    for (int i = 0; i < P; i++) {
        room[m->node[i]]++;
    }
    for (int j = 0; j < P; j++) {
        where[j] = -1;
    }
    for (int64_t e = 0; e < n; e++) {
        if (where[np[e].pos] < 0 && room[np[e].node] > 0) {
            where[np[e].pos] = np[e].node;
            room[np[e].node]--;
        }
    }
    int next = 0;
    for (int j = 0; j < P; j++) {
        if (where[j] >= 0) {
            continue;
        }
        if (room[m->node[j]] > 0) {
            where[j] = m->node[j];
        } else {
            while (room[next] == 0) {
                next++;
            }
            where[j] = next;
        }
        room[where[j]]--;
    }
    free(np);
    free(room);
    return CS_RL_OK;
}

/*
 * Second level, for the s processes procs[] of node n and the s positions
 * pos[] it plays: the assignment that keeps the most bytes on their
 * process (cs_rl_solve_sparse on the node's own entries: exact up to
 * CS_RL_EXACT_MAX_P), or, when it keeps no more than playing each
 * position by its own process (where all of them are on the node), that.
 * first[i]: process i's first entry of v; at[j]: index of position j in pos and
 * of process j in procs (scratch, -1 outside this node).
 */
static cs_rl_status_t level_procs(const cs_rl_sparse_t *v,
                                  const cs_rl_machine_t *m, int n,
                                  const int64_t *first, const int *procs,
                                  const int *pos, int s, int *at, int *perm)
{
    cs_rl_sparse_t sub;
    int *lp = malloc(((size_t)s + 1) * sizeof(*lp));
    cs_rl_status_t st = lp ? cs_rl_sparse_init(&sub, s) : CS_RL_ERR_NOMEM;
    if (st != CS_RL_OK) {
        free(lp);
        return st;
    }
    for (int b = 0; b < s; b++) {
        at[pos[b]] = b;
    }
    int64_t got = 0, own = 0;
    int same = 1;
    for (int a = 0; a < s && st == CS_RL_OK; a++) {
        for (int64_t e = first[procs[a]]; e < first[procs[a] + 1]; e++) {
            int b = at[v->dst[e]];
            if (b >= 0) {
                st = cs_rl_sparse_add(&sub, a, b, v->bytes[e]);
                own += v->dst[e] == procs[a] ? v->bytes[e] : 0;
            }
        }
    }
    for (int b = 0; b < s; b++) {
        same &= m->node[pos[b]] == n;
    }
    if (st == CS_RL_OK) {
        st = cs_rl_sparse_finish(&sub);
    }
    if (st == CS_RL_OK) {
        st = cs_rl_solve_sparse(&sub, lp);
    }
    if (st == CS_RL_OK) {
        for (int64_t e = 0; e < sub.nnz; e++) {
            got += lp[sub.dst[e]] == sub.src[e] ? sub.bytes[e] : 0;
        }
        for (int b = 0; b < s; b++) {
            perm[pos[b]] = same && own >= got ? pos[b] : procs[lp[b]];
        }
    }
    for (int b = 0; b < s; b++) {
        at[pos[b]] = -1;
    }
    cs_rl_sparse_free(&sub);
    free(lp);
    return st;
}

/* The two-level heuristic (relabel_nodes.h). */
static cs_rl_status_t two_level(const cs_rl_sparse_t *v,
                                const cs_rl_machine_t *m, int *perm)
{
    int P = v->P, nn = m->nnodes;
    int *where = malloc((size_t)P * sizeof(*where));
    int64_t *first = calloc((size_t)P + 1, sizeof(*first));
    int *idx = malloc((size_t)P * sizeof(*idx));
    int *procs = malloc((size_t)P * sizeof(*procs));
    int *pos = malloc((size_t)P * sizeof(*pos));
    int *pstart = calloc((size_t)nn + 1, sizeof(*pstart));
    int *qstart = calloc((size_t)nn + 1, sizeof(*qstart));
    cs_rl_status_t st = where && first && idx && procs && pos && pstart &&
                                qstart
                            ? level_nodes(v, m, where)
                            : CS_RL_ERR_NOMEM;
    if (st == CS_RL_OK) {
        /* each process's entries (sorted by process) */
        for (int64_t e = 0; e < v->nnz; e++) {
            first[v->src[e] + 1]++;
        }
        for (int i = 0; i < P; i++) {
            first[i + 1] += first[i];
            idx[i] = -1;
        }
        /* processes and positions grouped by node, in increasing order */
        for (int i = 0; i < P; i++) {
            pstart[m->node[i] + 1]++;
            qstart[where[i] + 1]++;
        }
        for (int n = 0; n < nn; n++) {
            pstart[n + 1] += pstart[n];
            qstart[n + 1] += qstart[n];
        }
        int *pf = calloc((size_t)nn, sizeof(*pf));
        int *qf = calloc((size_t)nn, sizeof(*qf));
        if (!pf || !qf) {
            st = CS_RL_ERR_NOMEM;
        }
        for (int i = 0; st == CS_RL_OK && i < P; i++) {
            procs[pstart[m->node[i]] + pf[m->node[i]]++] = i;
            pos[qstart[where[i]] + qf[where[i]]++] = i;
        }
        free(pf);
        free(qf);
    }
    for (int n = 0; st == CS_RL_OK && n < nn; n++) {
        int s = pstart[n + 1] - pstart[n];
        st = level_procs(v, m, n, first, procs + pstart[n], pos + qstart[n],
                         s, idx, perm);
    }
    free(where);
    free(first);
    free(idx);
    free(procs);
    free(pos);
    free(pstart);
    free(qstart);
    return st;
}

cs_rl_status_t cs_rl_solve_nodes(const cs_rl_sparse_t *v,
                                 const cs_rl_machine_t *m, int exact_ok,
                                 int *perm_p, int *method_p)
{
    if (!machine_ok(v, m)) {
        return CS_RL_ERR_INVALID;
    }
    int P = v->P;
    int *perm = malloc((size_t)P * sizeof(*perm));
    if (!perm) {
        return CS_RL_ERR_NOMEM;
    }
    int method = exact_ok && P <= CS_RL_EXACT_MAX_P ? CS_RL_NODES_EXACT
                                                    : CS_RL_NODES_TWO_LEVEL;
    cs_rl_status_t st =
        method == CS_RL_NODES_EXACT ? exact(v, m, perm) : two_level(v, m, perm);
    cs_rl_split_t mine, id;
    if (st == CS_RL_OK) {
        st = cs_rl_split(v, m, perm, &mine);
    }
    if (st == CS_RL_OK && method == CS_RL_NODES_TWO_LEVEL) {
        /* the plain relabeling too: the heuristic is not always better */
        int *plain = malloc((size_t)P * sizeof(*plain));
        cs_rl_split_t sp;
        st = plain ? cs_rl_solve_sparse(v, plain) : CS_RL_ERR_NOMEM;
        if (st == CS_RL_OK) {
            st = cs_rl_split(v, m, plain, &sp);
        }
        if (st == CS_RL_OK && sp.cost < mine.cost) {
            memcpy(perm, plain, (size_t)P * sizeof(*perm));
            mine = sp;
        }
        free(plain);
    }
    if (st == CS_RL_OK) {
        st = cs_rl_split(v, m, NULL, &id);
    }
    if (st == CS_RL_OK) {
        if (mine.cost >= id.cost) {
            method = CS_RL_NODES_IDENTITY;
            for (int j = 0; j < P; j++) {
                perm[j] = j;
            }
        }
        memcpy(perm_p, perm, (size_t)P * sizeof(*perm));
        if (method_p) {
            *method_p = method;
        }
    }
    free(perm);
    return st;
}
