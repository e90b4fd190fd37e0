/*
 * relabel/relabel_kron.h - relabeling of volumes that are Kronecker
 * products, at any P.
 *
 * Between two block-cyclic layouts (engine.h, cs_eng_volume_factors) the
 * bytes from A's grid cell (x, y) to B's grid cell (u, v) are
 *     vol = R[x][u] * C[y][v] * scale,
 * R counting the rows that A's coordinate x holds and B's coordinate u
 * needs, C the columns alike.  R and C are small (grid rows x grid rows,
 * grid columns x grid columns) while the P x P matrix has up to 10^8
 * nonzeros at P = 65,536, so the solvers here never build it: every
 * entry they look at is a product of two factor entries.
 *
 * The problem is relabel.h's (perm[j]: the process playing position j;
 * maximise the bytes kept) and relabel_nodes.h's node-aware cost, with
 * processes and positions given by the grids: proc[x * c.na + y] is the
 * process at A's cell (x, y), pos[u * c.nb + v] the position of B's cell
 * (u, v).  Processes outside A's grid hold nothing, positions outside
 * B's grid need nothing.
 *
 * RATIONALE: when A's and B's grids have the same shape, a product
 * relabeling (B's grid row u played by A's grid row sr[u], its column v
 * by A's column sc[v]) keeps (sum_u R[sr[u]][u]) * (sum_v C[sc[v]][v]),
 * so the best product relabeling is two independent assignments on R and
 * C: exact, and the optimum in most cases met (docs/relabel.md gives the
 * ratio to the exact solver over a sweep).  Where the shapes differ, a
 * greedy on each process's largest entries starts instead; both end with
 * pairwise swaps evaluated on the factors.
 *
 * Conventions as relabel.h; pure C, no MPI, no global state; every
 * function is local, thread-safe (distinct outputs) and deterministic.
 */
#ifndef CS_RELABEL_RELABEL_KRON_H
#define CS_RELABEL_RELABEL_KRON_H

#include <stdint.h>

#include "relabel/relabel_nodes.h"

/* Largest P of a Kronecker problem (the tools are measured up to 2^20). */
#define CS_RL_KRON_MAX_P (1 << 24)

/*
 * One factor as its nonzero entries: w[k] > 0 at (pa[k], pb[k]), sorted
 * by (pa, pb), each pair once, pa in [0, na), pb in [0, nb).  Arrays
 * borrowed (cs_eng_factor_t has this form).
 */
typedef struct {
    int na, nb;
    int64_t n;
    const int *pa, *pb;
    const int64_t *w;
} cs_rl_factor_t;

/* A Kronecker problem: vol[proc[x * c.na + y]][pos[u * c.nb + v]] =
 * r(x, u) * c(y, v) * scale; proc and pos name distinct processes and
 * positions in [0, P).  Arrays borrowed for the call that takes it. */
typedef struct {
    int P;
    cs_rl_factor_t r, c;
    int64_t scale;      /* bytes per element, >= 1 */
    const int *proc;    /* r.na * c.na */
    const int *pos;     /* r.nb * c.nb */
} cs_rl_kron_t;

/* A checked and indexed problem (owns copies of what it needs). */
typedef struct cs_rl_kx cs_rl_kx_t;

/*
 * Check problem k and index it: lookups, sorted rows and columns of the
 * factors, every process's CS_RL_KRON_CAND largest entries (the solvers'
 * candidates).  O(P + factor entries + cells) memory (the factor tables
 * are also held dense, with their column prefix sums, where they have at
 * most 2^21 cells), O(P * CS_RL_KRON_CAND * log + entries log) time.
 * Returns CS_RL_OK, CS_RL_ERR_INVALID (a bad size, an unsorted or
 * repeated entry, w <= 0, proc or pos not distinct in [0, P)),
 * CS_RL_ERR_LIMIT (the total overflows int64), CS_RL_ERR_NOMEM.
 * *kx_p written on success; free it with cs_rl_kron_destroy().
 */
cs_rl_status_t cs_rl_kron_create(const cs_rl_kron_t *k, cs_rl_kx_t **kx_p);

/* Free an indexed problem (NULL is fine). */
void cs_rl_kron_destroy(cs_rl_kx_t *kx);

/* P, the total bytes, and the nonzero entries of the P x P matrix (the
 * product of the factors' entry counts). */
int cs_rl_kron_P(const cs_rl_kx_t *kx);
int64_t cs_rl_kron_total(const cs_rl_kx_t *kx);
int64_t cs_rl_kron_nnz(const cs_rl_kx_t *kx);

/* vol[i][j], O(1) or O(log entries of a factor row).  i, j in [0, P). */
int64_t cs_rl_kron_vol(const cs_rl_kx_t *kx, int i, int j);

/* Bytes kept under perm (NULL: the identity); -1 if perm is not a
 * permutation.  O(P). */
int64_t cs_rl_kron_kept(const cs_rl_kx_t *kx, const int *perm);

/* Bytes process i sends in all (row sum) and position j receives in all
 * (column sum), and how many nonzero entries row i and column j have. */
int64_t cs_rl_kron_row_bytes(const cs_rl_kx_t *kx, int i);
int64_t cs_rl_kron_col_bytes(const cs_rl_kx_t *kx, int j);
int64_t cs_rl_kron_row_nnz(const cs_rl_kx_t *kx, int i);
int64_t cs_rl_kron_col_nnz(const cs_rl_kx_t *kx, int j);

/*
 * The whole matrix, for small P and tests: add every nonzero entry to
 * the sparse matrix v (initialised over P processes; the caller
 * finishes it).  O(nnz) time.  Returns what cs_rl_sparse_add returns.
 */
cs_rl_status_t cs_rl_kron_sparse(const cs_rl_kx_t *kx, cs_rl_sparse_t *v);

/* ------------------------------------------------------------ plain */

typedef enum {
    CS_RL_KRON_IDENTITY = 0, /* nothing better than the identity found */
    CS_RL_KRON_PRODUCT = 1,  /* product relabeling (+ swaps) */
    CS_RL_KRON_GREEDY = 2,   /* greedy on the largest entries (+ swaps) */
    CS_RL_KRON_TWO_LEVEL = 3, /* node-aware: positions to nodes, then to
                               * processes (+ swaps) */
    CS_RL_KRON_SWAPS = 4,     /* the identity improved by swaps */
    CS_RL_KRON_PLAIN = 5      /* node-aware: the plain relabeling the
                               * caller gave (+ swaps) */
} cs_rl_kron_method_t;

/* What a solver did.  Volumes in bytes (kept), costs as relabel_nodes.h. */
typedef struct {
    int method;             /* cs_rl_kron_method_t of the result */
    int64_t start_kept;     /* kept by the start the swaps improved */
    int64_t kept;           /* kept by the result */
    int64_t start_cost;     /* node-aware: cost of that start, else 0 */
    int64_t cost;           /* node-aware: cost of the result, else 0 */
    int passes;             /* swap passes */
    int64_t swaps;          /* swaps made */
    /* node-aware: where the bytes go (cs_rl_kron_split) under the
     * identity, the plain relabeling and the result, as the solver
     * computed them anyway (each costs O(P x parts)) */
    cs_rl_split_t split_identity, split_plain, split;
} cs_rl_kron_info_t;

/* Candidate positions per process the greedy and the swaps look at:
 * each process's largest entries. */
#define CS_RL_KRON_CAND 8

/* Swap passes at most (a pass is O(P * CS_RL_KRON_CAND) lookups). */
#define CS_RL_KRON_PASSES 8

/*
 * Plain relabeling (bytes kept on their process, relabel.h): the better
 * start of the product relabeling (same grid shapes; each factor's
 * assignment exact up to CS_RL_EXACT_MAX_P coordinates, the sparse
 * greedy above) and the greedy on every process's CS_RL_KRON_CAND
 * largest entries, improved by pairwise swaps over those entries; the
 * identity when it keeps as much.  O(P * CS_RL_KRON_CAND * log P +
 * factor assignments) time, O(P * CS_RL_KRON_CAND) memory.
 * perm_p: P ints, written on success; info_p may be NULL.  Returns
 * CS_RL_OK, CS_RL_ERR_NOMEM.  Local, deterministic.
 */
cs_rl_status_t cs_rl_kron_solve(const cs_rl_kx_t *kx, int *perm_p,
                                cs_rl_kron_info_t *info_p);

/* ------------------------------------------------------------ nodes */

/*
 * Where the bytes go under perm (NULL: the identity) on machine m
 * (relabel_nodes.h): kept, inside nodes, across nodes and the weighted
 * cost, as cs_rl_split() computes them from the whole matrix.
 * O(P x parts of a node), a part being a run of a node's processes
 * along one grid dimension.  Returns CS_RL_OK, CS_RL_ERR_INVALID (m does
 * not fit, perm not a permutation), CS_RL_ERR_NOMEM.
 */
cs_rl_status_t cs_rl_kron_split(const cs_rl_kx_t *kx,
                                const cs_rl_machine_t *m, const int *perm,
                                cs_rl_split_t *split_p);

/*
 * Node-aware relabeling (relabel_nodes.h's cost): the best in cost of
 * the identity, the plain relabeling and a two-level one (each position
 * to a node holding much of its data, greedy within the nodes' sizes;
 * then inside each node the exact assignment, nodes of at most
 * CS_RL_EXACT_MAX_P processes), improved by swaps under the weighted
 * cost.  Never costs more than the identity or the plain relabeling.
 * info_p also gets the three splits (identity, plain, result).
 * plain: cs_rl_kron_solve()'s result if the caller has it (P ints,
 * borrowed), else NULL to compute it here.  perm_p: P ints, written on
 * success; info_p may be NULL.  Returns CS_RL_OK, CS_RL_ERR_INVALID (m
 * does not fit, plain not a permutation), CS_RL_ERR_LIMIT (weighted
 * costs overflow), CS_RL_ERR_NOMEM.  Local, deterministic.
 */
cs_rl_status_t cs_rl_kron_solve_nodes(const cs_rl_kx_t *kx,
                                      const cs_rl_machine_t *m,
                                      const int *plain, int *perm_p,
                                      cs_rl_kron_info_t *info_p);

/*
 * What every process keeps, sends and receives under perm (NULL: the
 * identity) on machine m: cs_rl_sparse_flows() of the whole matrix, in
 * O(P x min(processes per node, entries per row)) lookups.  Returns
 * CS_RL_OK, CS_RL_ERR_INVALID, CS_RL_ERR_NOMEM.
 */
cs_rl_status_t cs_rl_kron_flows(const cs_rl_kx_t *kx,
                                const cs_rl_machine_t *m, const int *perm,
                                cs_rl_flow_t *flow_p);

/* ------------------------------------------------------------ plans */

/*
 * A pair of a relabeling plan (relabel.h, cs_rl_pair_t.fw) too large for
 * its position matrix holds its calls' volumes as terms, each the
 * factors of one call shape, as int64 words (gathered as they are):
 *   calls scale trans rna rnb rn cna cnb cn
 *   r.pa[rn] r.pb[rn] r.w[rn] c.pa[cn] c.pb[cn] c.w[cn]
 * the factors as in cs_rl_kron_t, over the grids' cells: A's position
 * of the operation's cell (x, y) is x * cna + y (trans: A's grid is read
 * transposed, y * rna + x), B's position of (u, v) is u * cnb + v.
 * cs_rl_term_words: the words of one term; cs_rl_term_pack writes it at
 * w (entries as cs_rl_kron_t's: sorted, positive).
 */
int64_t cs_rl_term_words(const cs_rl_factor_t *r, const cs_rl_factor_t *c);
void cs_rl_term_pack(int64_t *w, int64_t calls, int64_t scale, int trans,
                     const cs_rl_factor_t *r, const cs_rl_factor_t *c);

/* ------------------------------------------------------------ memory */

/*
 * Heap bytes the functions above hold at most, for a caller that claims
 * them before it calls (the shim counts them under COSTA_SHIM_MAX_MEMORY).
 * cs_rl_kron_bytes: cs_rl_kron_create's indexed problem (and its
 * creation) for factors of r_na x r_nb and c_na x c_nb coordinates with
 * at most entries nonzero entries in all.  On top of it:
 * cs_rl_kron_solve_bytes, cs_rl_kron_solve; cs_rl_kron_nodes_bytes,
 * cs_rl_kron_solve_nodes given the plain relabeling, on nnodes nodes of at
 * most smax processes (without it, add cs_rl_kron_solve_bytes).  Counted
 * from the allocations (kron.c, kron_solve.c, kron_nodes.c), checked
 * under a counting heap by test_apps/unit/test_relabel_shape.c.
 */
int64_t cs_rl_kron_bytes(int P, int r_na, int r_nb, int c_na, int c_nb,
                         int64_t entries);
int64_t cs_rl_kron_solve_bytes(int P, int64_t entries);
int64_t cs_rl_kron_nodes_bytes(int P, int nnodes, int smax);

#endif /* CS_RELABEL_RELABEL_KRON_H */
