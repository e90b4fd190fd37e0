/*
 * relabel/kron_flows.c - what each process keeps, sends and receives
 * inside and across nodes under a relabeling of a Kronecker problem
 * (relabel_kron.h, cs_rl_kron_flows), for the machine model.
 *
 * RATIONALE: what a process exchanges inside its node is a sum over the
 * node's pairs (i, k): O(s^2) lookups for a node of s processes, or
 * O(entries of its rows) walking them; whichever is smaller.  What
 * crosses nodes is the rest of each row and column sum, known from the
 * factors.  So the cost is O(P * min(s, entries per row)), never
 * O(nonzeros).
 *
 * Pure C, no MPI, no global state.
 */
#include <stdlib.h>
#include <string.h>

#include "relabel/kron_int.h"

/* One in-node byte count v from process i to process k (the player of
 * position j); hits counts the nonzero ones seen per process. */
static void add_pair(cs_rl_flow_t *fl, int32_t *hits_s, int32_t *hits_r,
                     int i, int k, int64_t v)
{
    if (v == 0) {
        return;
    }
    hits_s[i]++;
    hits_r[k]++;
    if (i == k) {
        fl[i].kept += v;
        return;
    }
    fl[i].sent_node += v;
    fl[k].recv_node += v;
    fl[i].msgs_node++;
    fl[k].msgs_node++;
}

cs_rl_status_t cs_rl_kron_flows(const cs_rl_kx_t *kx,
                                const cs_rl_machine_t *m, const int *perm,
                                cs_rl_flow_t *flow_p)
{
    int P = kx->P;
    if (!cs_rl_machine_fits(m, P) || (perm && !cs_rl_perm_check(P, perm))) {
        return CS_RL_ERR_INVALID;
    }
    cs_rl_node_lists_t nl;
    int *at = malloc((size_t)P * sizeof(*at));
    int32_t *hs = calloc((size_t)P, sizeof(*hs));
    int32_t *hr = calloc((size_t)P, sizeof(*hr));
    if (!at || !hs || !hr || cs_rl_node_lists(m, &nl) != 0) {
        free(at);
        free(hs);
        free(hr);
        return CS_RL_ERR_NOMEM;
    }
    memset(flow_p, 0, (size_t)P * sizeof(*flow_p));
    for (int j = 0; j < P; j++) {
        at[perm ? perm[j] : j] = j;
    }
    const cs_rl_fac_t *r = &kx->r, *c = &kx->c;
    for (int n = 0; n < nl.nnodes; n++) {
        const int *mem = nl.members + nl.first[n];
        int s = nl.first[n + 1] - nl.first[n];
        int64_t rows = 0;
        for (int a = 0; a < s; a++) {
            rows += cs_rl_kron_row_nnz(kx, mem[a]);
        }
        if ((int64_t)s * s <= rows) {
            for (int a = 0; a < s; a++) {
                for (int b = 0; b < s; b++) {
                    add_pair(flow_p, hs, hr, mem[a], mem[b],
                             cs_rl_kx_vol(kx, mem[a], at[mem[b]]));
                }
            }
            continue;
        }
        /* walk the node's rows: entries whose player is on the node */
        for (int a = 0; a < s; a++) {
            int i = mem[a], x = kx->ax[i], y = kx->ay[i];
            if (x < 0) {
                continue;
            }
            for (int64_t e = r->rfirst[x]; e < r->rfirst[x + 1]; e++) {
                for (int64_t f = c->rfirst[y]; f < c->rfirst[y + 1]; f++) {
                    int j = kx->cellq[(int64_t)r->rb[e] * c->nb + c->rb[f]];
                    int k = perm ? perm[j] : j;
                    if (m->node[k] == n) {
                        add_pair(flow_p, hs, hr, i, k,
                                 r->rw[e] * c->rw[f] * kx->scale);
                    }
                }
            }
        }
    }
    /* the rest of every row and column crosses nodes */
    for (int i = 0; i < P; i++) {
        cs_rl_flow_t *fl = &flow_p[i];
        fl->sent_net = cs_rl_kron_row_bytes(kx, i) - fl->kept - fl->sent_node;
        fl->recv_net = cs_rl_kron_col_bytes(kx, at[i]) - fl->kept -
                       fl->recv_node;
        fl->msgs_net = (int32_t)(cs_rl_kron_row_nnz(kx, i) - hs[i] +
                                 cs_rl_kron_col_nnz(kx, at[i]) - hr[i]);
    }
    cs_rl_node_lists_free(&nl);
    free(at);
    free(hs);
    free(hr);
    return CS_RL_OK;
}
