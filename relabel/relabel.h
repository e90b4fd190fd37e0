/*
 * relabel/relabel.h - communication-optimal process relabeling (COPR).
 *
 * COSTA paper, "Process Relabeling": a redistribution from layout A to
 * layout B moves vol[i][j] bytes from process i (owner in A) to the process
 * that plays position j of B (the rank that B's grid names j).  Only bytes
 * that change process cost anything (locally-free volume cost), so letting a
 * different process play each position of B can save traffic.  Choosing the
 * best relabeling is a linear assignment problem: maximise the volume that
 * stays local.
 *
 * Conventions, used by every function below:
 *   P        number of processes = number of positions, 1 <= P <= CS_RL_MAX_P.
 *   vol      P x P, row-major, vol[i * P + j] >= 0: bytes that PROCESS i
 *            holds (i is a rank of the source layout A) and that POSITION j
 *            of the target layout needs (j is the rank B's grid names).
 *            This is the matrix cs_eng_volume_matrix() produces.  Borrowed,
 *            never modified.
 *   perm     array of P ints, a permutation of [0, P): POSITION j of the
 *            target layout is played by PROCESS perm[j] (sigma in the
 *            paper).  The identity, perm[j] = j, means "no relabeling".
 *            To apply it, replace every rank r in B's grid by perm[r].
 *   kept     sum_j vol[perm[j] * P + j]: bytes that stay on their process.
 *   crossing total - kept, total = sum of all entries: bytes sent between
 *            processes.  The identity's crossing volume is total - trace.
 * The solvers maximise kept, i.e. minimise crossing.
 *
 * Module rules: pure C, no MPI, no environment, no logging, no global
 * state.  Every function is local (no communication).  Every function is
 * thread-safe: it touches only its arguments and memory it allocates, so
 * concurrent calls are fine as long as they do not write the same output.
 *
 * Determinism: cs_rl_solve_exact() and cs_rl_solve_greedy() are
 * deterministic (same input, same permutation on every machine).  The
 * swap improvement and cs_rl_solve() are deterministic too unless their
 * time budget cuts them short; processes that must agree on one relabeling
 * should pass a budget <= 0 (a fixed amount of work) or solve on one rank
 * and broadcast the permutation.
 */
#ifndef CS_RELABEL_RELABEL_H
#define CS_RELABEL_RELABEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------ status */

/*
 * Return codes.  The values equal the engine's cs_status_t codes of the
 * same meaning (CS_OK, CS_ERR_NOMEM, CS_ERR_BAD_DESC, CS_ERR_LIMIT) so a
 * caller that knows both may convert by value; relabel/ itself depends on
 * no other module.
 */
typedef enum {
    CS_RL_OK = 0,
    CS_RL_ERR_NOMEM = -1,   /* an allocation failed */
    CS_RL_ERR_INVALID = -3, /* bad argument: P out of range, NULL pointer,
                               negative volume, perm not a permutation */
    CS_RL_ERR_LIMIT = -5    /* volumes too large for exact int64
                               arithmetic (see cs_rl_solve_exact) */
} cs_rl_status_t;

/* Static string for a status code ("ok", "out of memory", ...); never
 * NULL.  Local, thread-safe. */
const char *cs_rl_status_str(cs_rl_status_t status);

/* ------------------------------------------------------------ limits */

/*
 * Largest P the module accepts: the greedy solver stores column indices
 * in 16 bits.  (A 65535 x 65535 int64 matrix is 32 GiB; real uses are far
 * below.)
 */
#define CS_RL_MAX_P 65535

/*
 * cs_rl_solve() runs the exact solver up to this P and greedy plus swap
 * improvement above.  CPU seconds of cs_rl_solve_exact() measured on the
 * reference machine (Debian 12, 2 shared cores, gcc -O3):
 *
 *   P                                  256    512   1024   2048   4096
 *   block-cyclic 64x64 -> 128x128:C  0.000  0.001  0.005  0.025  0.064
 *   block-cyclic 7x7 -> 11x13        0.001  0.005  0.017  0.107  0.375
 *   dense uniform random             0.001  0.005  0.019  0.11   0.57
 *   vol[i][j] = i * j (worst found)  0.012  0.093  0.75   7.2    52
 *
 * Volume matrices of real redistributions are easy for Jonker-Volgenant;
 * the threshold is set by the worst case found, vol[i][j] = i * j (and
 * similar products), where the row reduction heuristic gets nowhere and
 * every row needs an O(P^2) augmentation: 1024 is the largest power of
 * two that stays under 1 s there.
 */
#define CS_RL_EXACT_MAX_P 1024

/*
 * Swap passes cs_rl_solve() allows the improvement (each pass reads vol
 * once); the time budget may stop it earlier.  On the matrices above the
 * improvement converges in 1 to 3 passes.
 */
#define CS_RL_IMPROVE_MAX_PASSES 16

/* ------------------------------------------------------------ arithmetic */

/*
 * a + b and a * b in int64, saturating: on overflow (either direction) the
 * result is INT64_MAX and *sat is set to 1; otherwise *sat is untouched.
 * Byte counts summed over a whole run use them, so an overflow marks the
 * result instead of wrapping.  Local, thread-safe.
 */
static inline int64_t cs_rl_add_sat(int64_t a, int64_t b, int *sat)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) {
        *sat = 1;
        return INT64_MAX;
    }
    return r;
}

static inline int64_t cs_rl_mul_sat(int64_t a, int64_t b, int *sat)
{
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) {
        *sat = 1;
        return INT64_MAX;
    }
    return r;
}

/*
 * FNV-1a (64 bits) of n ints, each taken as its four low bytes, least
 * significant first, so the value is the same on every machine of a run.
 * seed: 0, or a previous result to continue it.  Local, thread-safe.
 */
uint64_t cs_rl_hash_ints(uint64_t seed, const int *v, int64_t n);

/*
 * FNV-1a (32 bits: basis 2166136261, prime 16777619) of the bytes of the
 * NUL-terminated string s, e.g. the report's shape ids
 * (docs/report-format.md).  Local, thread-safe.
 */
uint32_t cs_rl_hash_str32(const char *s);

/* ------------------------------------------------------------ helpers */

/*
 * Validate a volume matrix: P in [1, CS_RL_MAX_P], vol not NULL, every
 * entry >= 0.  total_p, max_p: out, may be NULL: the sum and the largest
 * entry, written only on success.
 * Returns CS_RL_OK, CS_RL_ERR_INVALID, or CS_RL_ERR_LIMIT if the total
 * overflows int64.  Local, thread-safe, O(P^2).
 */
cs_rl_status_t cs_rl_vol_check(int P, const int64_t *vol,
                               int64_t *total_p, int64_t *max_p);

/*
 * 1 if perm is a permutation of [0, P), else 0 (also for P < 1, NULL, or
 * when the scratch allocation fails).  Any P, also above CS_RL_MAX_P (the
 * sparse and Kronecker problems' relabelings).  Local, thread-safe, O(P).
 */
int cs_rl_perm_check(int P, const int *perm);

/*
 * Bytes that cross processes when position j is played by perm[j]: total
 * - sum_j vol[perm[j] * P + j].  perm == NULL means the identity.
 * Returns -1 on invalid input (P out of range, vol NULL, a negative entry,
 * perm not a permutation) or if the total overflows int64.  Local,
 * thread-safe, O(P^2).
 */
int64_t cs_rl_crossing_volume(int P, const int64_t *vol, const int *perm);

/* ------------------------------------------------------------ solvers */

/*
 * Exact solver: a permutation maximising the kept volume (equivalently
 * minimising the crossing volume), by the Jonker-Volgenant shortest
 * augmenting path algorithm on the dense cost -vol (column reduction,
 * reduction transfer, two bounded augmenting row reduction passes, then
 * Dijkstra augmentation); O(P^3) time in the worst case (see
 * CS_RL_EXACT_MAX_P for measured times), O(P) memory besides vol.  Among
 * several optimal permutations the one returned is deterministic but
 * unspecified.
 *
 * P: 1..CS_RL_MAX_P.  vol: see the conventions above.  perm_p: out, P
 * ints, written only on success.
 * Returns CS_RL_OK; CS_RL_ERR_INVALID for bad arguments or a negative
 * entry; CS_RL_ERR_LIMIT if the total overflows int64 or an entry exceeds
 * INT64_MAX / 16 (about 5.8e17 bytes; the prices of the dual problem stay
 * within a few times the largest entry); CS_RL_ERR_NOMEM.
 * Local, thread-safe.
 */
cs_rl_status_t cs_rl_solve_exact(int P, const int64_t *vol, int *perm_p);

/*
 * The COSTA paper's greedy 2-approximation: take the entries in order of
 * decreasing volume (ties: smaller process, then smaller position first)
 * and pair process i with position j whenever both are still free; pair
 * the processes and positions left over (whose entries are all zero)
 * with themselves where both are free, then in increasing order.  The
 * kept volume is at least half the optimum.  O(P + nnz) memory (2 bytes
 * per nonzero entry), O(P^2 + nnz log P) time (rows sorted one by one,
 * merged through a heap).
 *
 * improve: if > 0, then run cs_rl_improve() with at most `improve` passes
 * and no time limit on the greedy result (deterministic, never worse).
 * perm_p: out, P ints, written only on success.
 * Returns CS_RL_OK, CS_RL_ERR_INVALID, CS_RL_ERR_LIMIT (total overflows
 * int64), CS_RL_ERR_NOMEM.  Local, thread-safe.
 */
cs_rl_status_t cs_rl_solve_greedy(int P, const int64_t *vol, int improve,
                                  int *perm_p);

/*
 * Local improvement by pairwise swaps (2-opt), in place: exchange the
 * processes of two positions whenever that raises the kept volume.  A
 * pass takes the processes b in increasing order and, for each position
 * j1 with vol[b][j1] > 0 in increasing order, swaps b (at position j2)
 * with the process at j1 if that gains (first improvement); every
 * improving swap involves such an entry.  At most max_passes passes;
 * stops early after a pass without a swap, or once time_budget_s seconds
 * (if > 0) have elapsed (checked every 64 processes, so it may overrun by
 * a fraction of a pass).  Never lowers the kept volume.  O(P) memory,
 * O(P^2) sequential reads per pass.
 *
 * perm: in/out permutation (unchanged on error).  passes_p, swaps_p: out,
 * may be NULL: passes started and swaps made.
 * Returns CS_RL_OK, CS_RL_ERR_INVALID, CS_RL_ERR_LIMIT, CS_RL_ERR_NOMEM.
 * Local, thread-safe; deterministic when time_budget_s <= 0.
 */
cs_rl_status_t cs_rl_improve(int P, const int64_t *vol, int max_passes,
                             double time_budget_s, int *perm,
                             int *passes_p, int64_t *swaps_p);

/* ------------------------------------------------------------ driver */

typedef enum {
    CS_RL_METHOD_IDENTITY = 0, /* no relabeling pays off */
    CS_RL_METHOD_GREEDY = 1,   /* greedy (+ swaps), P > CS_RL_EXACT_MAX_P */
    CS_RL_METHOD_EXACT = 2     /* exact optimum */
} cs_rl_method_t;

/* What cs_rl_solve() did.  Volumes in bytes, times in seconds. */
typedef struct {
    int P;
    int method;               /* cs_rl_method_t of the returned perm */
    int64_t total;            /* sum of all entries */
    int64_t identity_volume;  /* crossing volume of the identity */
    int64_t greedy_volume;    /* crossing of the plain greedy result */
    int64_t improved_volume;  /* crossing after swaps; -1: exact was run */
    int64_t exact_volume;     /* crossing of the optimum; -1: skipped */
    int64_t volume;           /* crossing of the returned perm */
    int improve_passes;       /* swap passes run (0 if exact was run) */
    int64_t improve_swaps;    /* swaps made */
    double greedy_s;          /* plain greedy */
    double improve_s;         /* swap improvement */
    double exact_s;           /* exact solver; 0 if skipped */
    double total_s;           /* whole call */
} cs_rl_result_t;

/*
 * Choose the relabeling for a redistribution.  Always runs the greedy
 * solver (its volume is reported).  If P <= CS_RL_EXACT_MAX_P, runs the
 * exact solver (falling back to the path below if it reports
 * CS_RL_ERR_LIMIT) and returns its optimum; otherwise improves the better
 * of the greedy result and the identity by swaps (at most
 * CS_RL_IMPROVE_MAX_PASSES passes, and at most time_budget_s seconds if
 * time_budget_s > 0) and returns that.  If the identity is as good as the
 * permutation found, the identity is returned (method
 * CS_RL_METHOD_IDENTITY): relabeling never increases the crossing
 * volume and is never done without a gain.
 *
 * time_budget_s: bound on the swap improvement only; <= 0 means none
 * (deterministic).  perm_p: out, P ints.  res_p: out, may be NULL.  Both
 * are written only on success.
 * Returns CS_RL_OK, CS_RL_ERR_INVALID, CS_RL_ERR_LIMIT (total overflows
 * int64), CS_RL_ERR_NOMEM.  Local, thread-safe.
 */
cs_rl_status_t cs_rl_solve(int P, const int64_t *vol, double time_budget_s,
                           int *perm_p, cs_rl_result_t *res_p);

/* ------------------------------------------------------------ plans */

/*
 * A relabeling plan for a whole run (the shim's COSTA_SHIM_RELABEL=report,
 * docs/relabel.md): for every BLACS grid the run created, the process map
 * that minimises the bytes crossing processes over all observed
 * redistributions between different grids.
 *
 * Grids are named world-wide by (stamp, owner): a creation stamp and the
 * lowest world rank of the grid; a map lists world ranks by grid position
 * in row-major order (map[r * Q + c]).  A pair holds the bytes each
 * position of grid A sent to each position of grid B, summed over the
 * calls from A to B.  The plan numbers grids in (stamp, owner) order.
 *
 * Everything below is local and pure (no MPI, no environment, no
 * logging); functions touch only their arguments.
 */

/* One grid of a problem. */
typedef struct {
    int stamp, owner;   /* the grid's name */
    int p, q;
    char order;         /* 'R', 'C' (gridinit) or 'M' (gridmap) */
    int *map;           /* p * q world ranks as created (owned) */
} cs_rl_grid_t;

/* Position volumes from grid (sa, oa) to grid (sb, ob): a pa x pb matrix
 * or, for grids too large for one (a pair of 65,536-position grids would
 * take 32 GiB), factored terms (relabel_kron.h, cs_rl_term_pack). */
typedef struct {
    int sa, oa, sb, ob; /* the grids by name */
    int ga, gb;         /* ... and by plan number, -1 unknown */
    int pa, pb;         /* their numbers of positions */
    int64_t calls;
    int64_t *v;         /* pa x pb bytes, row-major (borrowed), or NULL */
    const int64_t *fw;  /* with v NULL: nfw words of terms (borrowed) */
    int64_t nfw;
} cs_rl_pair_t;

/* What a plan is computed from: the grids in plan order and the pairs
 * between them, with the totals the plan file reports. */
typedef struct {
    int world;          /* 1: every rank's grids and calls, 0: rank 0's */
    int nworld;         /* processes of the run; maps hold [0, nworld) */
    int ng, npairs;
    cs_rl_grid_t *g;    /* owned, room for the grids added */
    cs_rl_pair_t *pr;   /* owned */
    int64_t calls_seen; /* calls observed */
    int64_t cross_total; /* bytes they sent across processes */
    int incomplete;     /* some grid or call could not be accounted for */
    int saturated;      /* some sum overflowed (saturated at INT64_MAX) */
    int64_t *buf;       /* owned words the pairs may point into, or NULL */
    /* node-aware plans (relabel_nodes.h's cost): the node of each world
     * rank (nworld entries, owned) or NULL for none, and the weights of a
     * byte that leaves its process inside its node (w_rank) and of one
     * that leaves the node (w_node >= w_rank) */
    int *node;
    int nnodes;
    int64_t w_rank, w_node;
} cs_rl_problem_t;

/*
 * Append a grid to pb->g (the caller made room for it): stamp, owner,
 * shape, order, and its map copied from map32 or, when map32 is NULL,
 * from map64 (p * q world ranks).  Returns CS_RL_OK, or CS_RL_ERR_NOMEM
 * with pb->incomplete set and nothing added.
 */
cs_rl_status_t cs_rl_problem_add_grid(cs_rl_problem_t *pb, int stamp,
                                      int owner, int p, int q, char order,
                                      const int *map32, const int64_t *map64);

/*
 * Put the problem in plan order: grids sorted by (stamp, owner); each
 * pair given its grids' plan numbers (ga, gb) and dropped when a grid is
 * missing, has another size or is the same grid (the problem is then
 * marked incomplete); pairs sorted by (ga, gb), those of the same two
 * grids (kept on different ranks) summed into the first, saturating.
 */
void cs_rl_problem_order(cs_rl_problem_t *pb);

/* Free the grids' maps, g, pr, buf and node; zero *pb.  Pair volumes that
 * point elsewhere are not freed. */
void cs_rl_problem_free(cs_rl_problem_t *pb);

/* The plan computed for an ordered problem. */
typedef struct {
    int ng;
    int **map;          /* ng planned maps, p * q world ranks each */
    int *pos;           /* nworld ints of scratch, all -1 between calls */
    int64_t saved;      /* bytes that no longer cross processes */
    int64_t planned_bytes; /* cross_total - saved */
    int relabeled;      /* grids whose planned map differs */
    int bad_grid;       /* CS_RL_ERR_INVALID: the grid at fault */
    int64_t net_app;    /* with nodes: bytes crossing nodes with the
                         * application's maps, else -1 */
    int64_t net_plan;   /* ... with the planned maps */
} cs_rl_plan_t;

/*
 * Compute the plan of an ordered problem (cs_rl_problem_order).  In each
 * group of grids linked by pairs the first grid keeps its map; the others
 * are optimised one at a time against the current maps of the rest (with
 * pb->node, for the weighted cost of relabel_nodes.h: a process playing
 * a position gains w_rank for each byte it keeps and w_node - w_rank for
 * each byte that stays in its node)
 * (coordinate descent, at most CS_RL_PLAN_ROUNDS rounds, each step an
 * assignment solved by cs_rl_solve() with no time budget, so the result
 * is deterministic and never worse than the application's maps).  A grid
 * with a factored pair takes the Kronecker solvers instead, on its
 * largest term, the step kept only where it lowers the cost of all the
 * grid's pairs.  A step that runs out of memory, or a grid above
 * CS_RL_MAX_P positions with only dense pairs, or a term that does not
 * fit its grids, leaves that grid's map as it is and marks the problem
 * incomplete.
 * plan_p: out; release it with cs_rl_plan_free() whatever the result.
 * Returns CS_RL_OK; CS_RL_ERR_NOMEM; CS_RL_ERR_INVALID when a map holds a
 * rank outside [0, pb->nworld) (plan_p->bad_grid names the grid).
 */
#define CS_RL_PLAN_ROUNDS 8
cs_rl_status_t cs_rl_plan_solve(cs_rl_problem_t *pb, cs_rl_plan_t *plan_p);

/* Free what cs_rl_plan_solve() allocated; zero *plan. */
void cs_rl_plan_free(cs_rl_plan_t *plan);

/*
 * Bytes pair p keeps on their process when grid ga has map ma and grid gb
 * map mb.  pos: nworld ints, all -1 on entry and on return (the plan's
 * scratch).  Ranks outside [0, nworld) keep nothing.  O(pa x pb), or
 * O(pa + pb) lookups for a factored pair.
 */
int64_t cs_rl_pair_kept(const cs_rl_pair_t *p, const int *ma, const int *mb,
                        int *pos, int nworld);

/* Bytes of pair p that cross nodes (node: per world rank) when grid ga
 * has map ma and grid gb map mb.  O(pa x pb); factored, O(the pairs of
 * positions that share a node). */
int64_t cs_rl_pair_across(const cs_rl_pair_t *p, const int *ma,
                          const int *mb, const int *node, int nworld);

/* Bytes of pair p in all (saturated at INT64_MAX, *sat then set). */
int64_t cs_rl_pair_total(const cs_rl_pair_t *p, int *sat);

/* ------------------------------------------------------------ plan files */

/*
 * The plan file's text (docs/relabel.md): comment lines start with '#';
 *   costa_shim_relabel_plan <version>   first line (1 is read too: no scope)
 *   command <command line>
 *   processes <n>                      size of MPI_COMM_WORLD
 *   scope world|rank0                  whose grids and calls it covers
 *   grids <n>
 *   complete 0|1                       0: some grid or call left out
 *   bytes_app <n>, bytes_plan <n>      crossing bytes before and after
 *   nodes <n>, net_app <n>, net_plan <n>  version 3, node-aware plans:
 *                                      nodes, bytes crossing nodes before
 *                                      and after
 *   grid <k> <P>x<Q> <R|C|M> <map> -> <planned map>   k = 0, 1, ...
 *   end
 */
#define CS_RL_PLAN_MAGIC "costa_shim_relabel_plan"
#define CS_RL_PLAN_VERSION 3

/*
 * Write the plan of problem pb to f, from the first comment to "end".
 * command: the run's command line (one line).  Stream errors are left to
 * the caller (ferror, fclose).
 */
void cs_rl_plan_print(FILE *f, const cs_rl_problem_t *pb,
                      const cs_rl_plan_t *plan, const char *command);

/* One grid as a plan file lists it. */
typedef struct {
    int p, q;
    char order;         /* 'R', 'C' or 'M' */
    int *app;           /* p * q world ranks the application asks for */
    int *planned;       /* the same ranks, in the planned positions */
} cs_rl_plan_grid_t;

/* A plan file read back. */
typedef struct {
    int nprocs;         /* processes line */
    int ngrids;
    int complete;       /* 1 if the file says so (or does not say) */
    int world;          /* scope world (1) or rank0 (0; version 1) */
    cs_rl_plan_grid_t *g; /* ngrids entries (owned) */
} cs_rl_plan_file_t;

/*
 * Read a plan file from f and check it: known version, no unknown
 * keyword, at most max_grids grids, every grid line in order with ranks
 * in [0, processes) and a planned map that permutes its map, an "end"
 * line, and a scope line in version 2.  Reads up to "end".
 * plan_p: out, written only on success (release with
 * cs_rl_plan_file_free).  why: a string on entry (empty); on failure it
 * says what is wrong when it was empty ("line 3: bad 'grids' line").
 * Returns CS_RL_OK, or CS_RL_ERR_INVALID (an allocation failure included).
 */
cs_rl_status_t cs_rl_plan_parse(FILE *f, int max_grids,
                                cs_rl_plan_file_t *plan_p, char *why,
                                size_t len);

/* Free a plan read by cs_rl_plan_parse(); zero *plan. */
void cs_rl_plan_file_free(cs_rl_plan_file_t *plan);

#endif /* CS_RELABEL_RELABEL_H */
