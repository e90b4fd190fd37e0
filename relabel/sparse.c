/*
 * relabel/sparse.c - volume matrices as lists of entries, where they go on
 * a machine of nodes, and plain relabeling at any P (relabel_nodes.h).
 *
 * RATIONALE: a redistribution between block-cyclic layouts sends from each
 * process to a few others, so its P x P matrix is mostly zeros; at P =
 * 65536 it would take 32 GiB while its entries take megabytes.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/relabel_int.h"
#include "relabel/relabel_nodes.h"

cs_rl_status_t cs_rl_sparse_init(cs_rl_sparse_t *v, int P)
{
    memset(v, 0, sizeof(*v));
    if (P < 1 || P > CS_RL_SPARSE_MAX_P) {
        return CS_RL_ERR_INVALID;
    }
    v->P = P;
    return CS_RL_OK;
}

void cs_rl_sparse_free(cs_rl_sparse_t *v)
{
    free(v->src);
    free(v->dst);
    free(v->bytes);
    memset(v, 0, sizeof(*v));
}

cs_rl_status_t cs_rl_sparse_add(cs_rl_sparse_t *v, int src, int dst,
                                int64_t bytes)
{
    if (src < 0 || src >= v->P || dst < 0 || dst >= v->P || bytes < 0) {
        return CS_RL_ERR_INVALID;
    }
    if (bytes == 0) {
        return CS_RL_OK;
    }
    if (v->nnz == v->cap) {
        int64_t cap = v->cap ? 2 * v->cap : 1024;
        int *s = realloc(v->src, (size_t)cap * sizeof(*s));
        if (s) {
            v->src = s;
        }
        int *d = realloc(v->dst, (size_t)cap * sizeof(*d));
        if (d) {
            v->dst = d;
        }
        int64_t *b = realloc(v->bytes, (size_t)cap * sizeof(*b));
        if (b) {
            v->bytes = b;
        }
        if (!s || !d || !b) {
            return CS_RL_ERR_NOMEM;
        }
        v->cap = cap;
    }
    v->src[v->nnz] = src;
    v->dst[v->nnz] = dst;
    v->bytes[v->nnz] = bytes;
    v->nnz++;
    return CS_RL_OK;
}

/* One entry as sorted (qsort has no context: the keys travel along). */
typedef struct {
    int64_t bytes;
    int src, dst;
} entry_t;

static int by_pair(const void *x, const void *y)
{
    const entry_t *a = x, *b = y;
    if (a->src != b->src) {
        return a->src < b->src ? -1 : 1;
    }
    return (a->dst > b->dst) - (a->dst < b->dst);
}

/* Decreasing bytes, ties by (src, dst). */
static int by_bytes(const void *x, const void *y)
{
    const entry_t *a = x, *b = y;
    if (a->bytes != b->bytes) {
        return a->bytes > b->bytes ? -1 : 1;
    }
    return by_pair(x, y);
}

/* The entries of v sorted by cmp; NULL without memory. */
static entry_t *sorted(const cs_rl_sparse_t *v,
                       int (*cmp)(const void *, const void *))
{
    entry_t *e = malloc(((size_t)v->nnz + 1) * sizeof(*e));
    if (!e) {
        return NULL;
    }
    for (int64_t k = 0; k < v->nnz; k++) {
        e[k] = (entry_t){v->bytes[k], v->src[k], v->dst[k]};
    }
    qsort(e, (size_t)v->nnz, sizeof(*e), cmp);
    return e;
}

cs_rl_status_t cs_rl_sparse_finish(cs_rl_sparse_t *v)
{
    entry_t *e = sorted(v, by_pair);
    if (!e) {
        return CS_RL_ERR_NOMEM;
    }
    int64_t n = 0;
    cs_rl_status_t st = CS_RL_OK;
    for (int64_t k = 0; k < v->nnz; k++) {
        if (n > 0 && v->src[n - 1] == e[k].src &&
            v->dst[n - 1] == e[k].dst) {
            if (__builtin_add_overflow(v->bytes[n - 1], e[k].bytes,
                                       &v->bytes[n - 1])) {
                st = CS_RL_ERR_LIMIT;
            }
            continue;
        }
        v->src[n] = e[k].src;
        v->dst[n] = e[k].dst;
        v->bytes[n] = e[k].bytes;
        n++;
    }
    free(e);
    v->nnz = n;
    return st;
}

cs_rl_status_t cs_rl_sparse_from_dense(int P, const int64_t *vol,
                                       cs_rl_sparse_t *v)
{
    cs_rl_status_t st = cs_rl_sparse_init(v, P);
    for (int i = 0; st == CS_RL_OK && i < P; i++) {
        for (int j = 0; st == CS_RL_OK && j < P; j++) {
            st = cs_rl_sparse_add(v, i, j, vol[(int64_t)i * P + j]);
        }
    }
    if (st != CS_RL_OK) {
        cs_rl_sparse_free(v);
    }
    return st;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static int64_t sat_mul(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

cs_rl_status_t cs_rl_split(const cs_rl_sparse_t *v, const cs_rl_machine_t *m,
                           const int *perm, cs_rl_split_t *split_p)
{
    if (m->P != v->P || m->nnodes < 1 || !m->node ||
        (perm && !cs_rl_perm_check(v->P, perm))) {
        return CS_RL_ERR_INVALID;
    }
    for (int i = 0; i < m->P; i++) {
        if (m->node[i] < 0 || m->node[i] >= m->nnodes) {
            return CS_RL_ERR_INVALID;
        }
    }
    cs_rl_split_t s = {0, 0, 0, 0};
    for (int64_t e = 0; e < v->nnz; e++) {
        int k = perm ? perm[v->dst[e]] : v->dst[e];
        int i = v->src[e];
        int64_t *to = k == i                         ? &s.kept
                      : m->node[k] == m->node[i] ? &s.in_node
                                                     : &s.across;
        *to = sat_add(*to, v->bytes[e]);
    }
    s.cost = sat_add(sat_mul(m->w_rank, s.in_node),
                     sat_mul(m->w_node, s.across));
    *split_p = s;
    return CS_RL_OK;
}

cs_rl_status_t cs_rl_sparse_flows(const cs_rl_sparse_t *v,
                                  const cs_rl_machine_t *m, const int *perm,
                                  cs_rl_flow_t *flow_p)
{
    cs_rl_split_t check;
    cs_rl_status_t st = cs_rl_split(v, m, perm, &check);
    if (st != CS_RL_OK) {
        return st;
    }
    cs_rl_flow_t *fl = flow_p;
    memset(fl, 0, (size_t)v->P * sizeof(*fl));
    for (int64_t e = 0; e < v->nnz; e++) {
        int i = v->src[e], k = perm ? perm[v->dst[e]] : v->dst[e];
        int64_t b = v->bytes[e];
        if (k == i) {
            fl[i].kept += b;
        } else if (m->node[k] == m->node[i]) {
            fl[i].sent_node += b;
            fl[k].recv_node += b;
            fl[i].msgs_node++;
            fl[k].msgs_node++;
        } else {
            fl[i].sent_net += b;
            fl[k].recv_net += b;
            fl[i].msgs_net++;
            fl[k].msgs_net++;
        }
    }
    return CS_RL_OK;
}

/* Bytes kept on their process by perm (NULL: identity). */
static int64_t kept(const cs_rl_sparse_t *v, const int *perm)
{
    int64_t k = 0;
    for (int64_t e = 0; e < v->nnz; e++) {
        if ((perm ? perm[v->dst[e]] : v->dst[e]) == v->src[e]) {
            k = sat_add(k, v->bytes[e]);
        }
    }
    return k;
}

/* The paper's greedy on the entries (relabel_nodes.h). */
static cs_rl_status_t greedy(const cs_rl_sparse_t *v, int *perm)
{
    int P = v->P;
    entry_t *idx = sorted(v, by_bytes);
    unsigned char *used = calloc((size_t)P, 1);
    if (!idx || !used) {
        free(idx);
        free(used);
        return CS_RL_ERR_NOMEM;
    }
    for (int j = 0; j < P; j++) {
        perm[j] = -1;
    }
    for (int64_t k = 0; k < v->nnz; k++) {
        int i = idx[k].src, j = idx[k].dst;
        if (perm[j] < 0 && !used[i]) {
            perm[j] = i;
            used[i] = 1;
        }
    }
    cs_rl_fill_free(P, perm, used);
    free(idx);
    free(used);
    return CS_RL_OK;
}

cs_rl_status_t cs_rl_solve_sparse(const cs_rl_sparse_t *v, int *perm_p)
{
    int P = v->P;
    int *perm = malloc((size_t)P * sizeof(*perm));
    if (!perm) {
        return CS_RL_ERR_NOMEM;
    }
    cs_rl_status_t st;
    if (P <= CS_RL_EXACT_MAX_P) {
        int64_t *vol = calloc((size_t)P * (size_t)P, sizeof(*vol));
        if (!vol) {
            free(perm);
            return CS_RL_ERR_NOMEM;
        }
        for (int64_t e = 0; e < v->nnz; e++) {
            vol[(int64_t)v->src[e] * P + v->dst[e]] += v->bytes[e];
        }
        st = cs_rl_solve(P, vol, 0.0, perm, NULL);
        free(vol);
    } else {
        st = greedy(v, perm);
        if (st == CS_RL_OK && kept(v, perm) <= kept(v, NULL)) {
            for (int j = 0; j < P; j++) {
                perm[j] = j;
            }
        }
    }
    if (st == CS_RL_OK) {
        memcpy(perm_p, perm, (size_t)P * sizeof(*perm));
    }
    free(perm);
    return st;
}
