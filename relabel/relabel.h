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

#include <stdint.h>

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
 * when the scratch allocation fails).  Local, thread-safe, O(P).
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

#endif /* CS_RELABEL_RELABEL_H */
