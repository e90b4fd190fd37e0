/*
 * relabel/relabel_nodes.h - relabeling for machines of several nodes, and
 * volume matrices too large to hold as P x P.
 *
 * The COSTA paper counts every byte that leaves its process alike.  On a
 * cluster a byte that stays inside its node (shared memory) is several
 * times cheaper than one that crosses the network, so the relabeling that
 * minimises bytes leaving ranks may still send most of them across nodes
 * (the master-worker model of ../shared/seeds/001 weighs links of
 * different cost the same way).  Here a byte costs 0 when it stays on its
 * process, w_rank when it leaves the process but stays in its node, w_node
 * when it leaves the node.  With the other layout fixed, the best
 * relabeling of the target is still a linear assignment: process k
 * playing position j gains
 *     G[k][j] = w_rank * vol[k][j] + (w_node - w_rank) * NV[node(k)][j],
 * NV[n][j] being the bytes the processes of node n hold for position j,
 * and the cost of a relabeling is w_node * total - sum_j G[perm[j]][j].
 * So the exact solver of relabel.h finds the optimum on G where P x P
 * fits (up to CS_RL_EXACT_MAX_P); beyond, a two-level heuristic assigns
 * positions to nodes first (greedy on NV, within each node's number of
 * processes) and then, inside each node, positions to its processes
 * (exactly, on the node's own small matrix).
 *
 * Conventions as in relabel.h: process i holds, position j needs; perm[j]
 * is the process playing position j.  Pure C, no MPI, no global state;
 * every function is local, thread-safe and deterministic.
 */
#ifndef CS_RELABEL_RELABEL_NODES_H
#define CS_RELABEL_RELABEL_NODES_H

#include <stdint.h>

#include "relabel/relabel.h"

/* ------------------------------------------------------------ sparse */

/* Largest P of a sparse matrix (its solvers store no index in 16 bits; a
 * node's own matrix must still fit CS_RL_MAX_P). */
#define CS_RL_SPARSE_MAX_P (1 << 24)

/*
 * A volume matrix as its nonzero entries: bytes[e] from process src[e] to
 * position dst[e].  After cs_rl_sparse_finish(): sorted by (src, dst), one
 * entry per pair, bytes > 0.  Owns its arrays.
 */
typedef struct {
    int P;
    int64_t nnz, cap;
    int *src, *dst;
    int64_t *bytes;
} cs_rl_sparse_t;

/* An empty matrix over P processes (1..CS_RL_SPARSE_MAX_P).  Returns CS_RL_OK or
 * CS_RL_ERR_INVALID.  Local. */
cs_rl_status_t cs_rl_sparse_init(cs_rl_sparse_t *v, int P);

/* Append an entry (bytes >= 0; zero entries are dropped); pairs may repeat
 * until cs_rl_sparse_finish() adds them up.  Returns CS_RL_OK,
 * CS_RL_ERR_INVALID (index out of range, negative bytes) or
 * CS_RL_ERR_NOMEM.  Local. */
cs_rl_status_t cs_rl_sparse_add(cs_rl_sparse_t *v, int src, int dst,
                                int64_t bytes);

/* Sort and merge repeated pairs.  Returns CS_RL_OK or CS_RL_ERR_LIMIT (a
 * sum overflows int64).  Local. */
cs_rl_status_t cs_rl_sparse_finish(cs_rl_sparse_t *v);

/* The nonzero entries of a dense P x P matrix (relabel.h's vol). */
cs_rl_status_t cs_rl_sparse_from_dense(int P, const int64_t *vol,
                                       cs_rl_sparse_t *v);

void cs_rl_sparse_free(cs_rl_sparse_t *v);

/* ------------------------------------------------------------ machine */

/* Which node each process runs on, and what a byte costs by how far it
 * goes (weights per byte, 0 <= w_rank <= w_node). */
typedef struct {
    int P;
    int nnodes;
    const int *node;    /* P entries in [0, nnodes), borrowed */
    int64_t w_rank;     /* leaves its process, stays in its node */
    int64_t w_node;     /* leaves its node */
} cs_rl_machine_t;

/* Where the bytes go under a relabeling, and what they cost. */
typedef struct {
    int64_t kept;       /* stay on their process */
    int64_t in_node;    /* leave the process, stay in its node */
    int64_t across;     /* leave the node */
    int64_t cost;       /* w_rank * in_node + w_node * across, saturated at
                         * INT64_MAX */
} cs_rl_split_t;

/* The split of relabeling perm (NULL: the identity) of matrix v (finished)
 * on machine m.  Returns CS_RL_OK or CS_RL_ERR_INVALID (P differ, a node
 * out of range, perm not a permutation).  O(P + nnz).  Local. */
cs_rl_status_t cs_rl_split(const cs_rl_sparse_t *v, const cs_rl_machine_t *m,
                           const int *perm, cs_rl_split_t *split_p);

/* What one process keeps, sends and receives under a relabeling, for a
 * machine model (the bytes of the position it plays that it holds
 * itself are kept). */
typedef struct {
    int64_t kept;
    int64_t sent_node, recv_node; /* with other processes of its node */
    int64_t sent_net, recv_net;   /* with processes of other nodes */
    int32_t msgs_node, msgs_net;  /* messages (nonzero entries) sent plus
                                   * received */
} cs_rl_flow_t;

/* flow_p[k] for every process k under perm (NULL: the identity) of
 * matrix v (finished) on machine m.  Returns CS_RL_OK or
 * CS_RL_ERR_INVALID (as cs_rl_split).  O(P + nnz).  Local. */
cs_rl_status_t cs_rl_sparse_flows(const cs_rl_sparse_t *v,
                                  const cs_rl_machine_t *m, const int *perm,
                                  cs_rl_flow_t *flow_p);

/* ------------------------------------------------------------ solvers */

/*
 * Plain relabeling (every byte that leaves a process alike) of a finished
 * sparse matrix, for any P: the exact solver on the dense matrix up to
 * CS_RL_EXACT_MAX_P, else the paper's greedy on the entries (in order of
 * decreasing bytes, ties by process then position; leftovers on
 * themselves where free, then in increasing order), O(nnz log nnz) time
 * and O(P + nnz) memory.  The identity when it is as good.  perm_p: P
 * ints, written on success.  Local.
 */
cs_rl_status_t cs_rl_solve_sparse(const cs_rl_sparse_t *v, int *perm_p);

typedef enum {
    CS_RL_NODES_IDENTITY = 0, /* nothing better than the identity found */
    CS_RL_NODES_EXACT = 1,    /* optimum of the weighted cost */
    CS_RL_NODES_TWO_LEVEL = 2 /* positions to nodes, then to processes */
} cs_rl_nodes_method_t;

/*
 * Node-aware relabeling: a permutation minimising the cost of the split
 * on machine m; exact (the assignment on G above) when P <=
 * CS_RL_EXACT_MAX_P and exact_ok, else the better of the two-level
 * heuristic and the plain relabeling (cs_rl_solve_sparse) in cost, O(nnz
 * log nnz + nnodes * (processes per node)^3) time, O(P + nnz) memory.
 * Never worse than the identity (returned when it is as good).  method_p: out,
 * may be NULL.  Returns CS_RL_OK, CS_RL_ERR_INVALID, CS_RL_ERR_LIMIT
 * (weighted gains overflow), CS_RL_ERR_NOMEM.  Local.
 */
cs_rl_status_t cs_rl_solve_nodes(const cs_rl_sparse_t *v,
                                 const cs_rl_machine_t *m, int exact_ok,
                                 int *perm_p, int *method_p);

#endif /* CS_RELABEL_RELABEL_NODES_H */
