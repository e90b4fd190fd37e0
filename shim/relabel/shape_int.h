/*
 * shim/relabel/shape_int.h - the relabeling numbers of one call shape
 * (shape.c): what crosses processes with the application's mapping and
 * with B's grid relabeled, and on several nodes what crosses nodes.
 *
 * Two ways to the same numbers:
 *   dense  the P x P volume matrix (cs_eng_volume_matrix) and relabel.h's
 *          solvers: exact up to CS_RL_EXACT_MAX_P positions, any layout
 *          and operation, P^2 memory (CS_SHIM_RELABEL_MAX_NP at most);
 *   kron   the volume's row and column factors (cs_eng_volume_factors)
 *          and relabel_kron.h's solvers: block-cyclic layouts, unmasked
 *          operations, grids that name each rank once and A's ranks
 *          among B's; O(P + blocks) memory at any P.
 * The dense way is taken where it is exact, so small calls keep the
 * numbers they always had; the factored one above.
 *
 * The memory a shape takes is claimed before anything is allocated,
 * through the caller's claim function (the shim's memory cap in
 * observe.c, a counter in the unit tests): an upper bound of what the
 * computation holds at once.
 *
 * No MPI, no global state, no configuration read: the unit programs link
 * this file.  Thread-safe (distinct outputs), deterministic: every rank
 * of a call gets the same numbers.
 */
#ifndef CS_SHIM_RELABEL_SHAPE_INT_H
#define CS_SHIM_RELABEL_SHAPE_INT_H

#include <stdint.h>

#include "engine/engine.h"

/* Largest context (processes) of the dense way: its P x P int64 matrix
 * is 32 MiB at 2048. */
#define CS_SHIM_RELABEL_MAX_NP 2048

/* One call shape: the inputs of cs_shim_rl_shape_eval. */
typedef struct {
    const cs_eng_layout_t *la, *lb; /* both CS_ENG_DIST_CYCLIC; grids in
                                     * ranks of [0, np) */
    const cs_eng_op_t *op;
    int np;                 /* processes of the call's context */
    const int *node;        /* the node of each rank, in [0, np); NULL:
                             * not known */
    int64_t w_rank, w_node; /* COSTA_SHIM_RELABEL_COST_RANK, _NODE */
    int64_t posmat_max;     /* > 0: also the position volumes (posmat)
                             * when they take at most this many bytes */
    int keep_term;          /* 1: without posmat, the shape's factors as
                             * a plan term (term) */
    int force;              /* 0: the shim's choice; CS_SHIM_RL_DENSE or
                             * _KRON: that way only (tests) */
} cs_shim_rl_shape_in_t;

/* How the numbers were computed (and cs_shim_rl_shape_in_t.force). */
typedef enum {
    CS_SHIM_RL_NONE = 0,  /* not computed */
    CS_SHIM_RL_DENSE = 1,
    CS_SHIM_RL_KRON = 2
} cs_shim_rl_path_t;

/* A shape's numbers (bytes over the whole call). */
typedef struct {
    int path;               /* cs_shim_rl_path_t */
    int64_t cross;          /* cross processes, the application's maps */
    int64_t best;           /* the same with B's grid relabeled over B's
                             * processes (plain relabeling) */
    int64_t net, net_plain, net_node; /* cross nodes: application's,
                                       * plain, node-aware relabeling;
                                       * -1 when all ranks share a node
                                       * or nodes are not known */
    int64_t *posmat;        /* pa x pb bytes from A's position a to B's
                             * position b (grid order), or NULL; the
                             * caller frees it */
    int64_t *term;          /* keep_term: nterm words of one plan term
                             * (relabel_kron.h, calls 0), or NULL (a
                             * masked copy has no factors); the caller
                             * frees it */
    int64_t nterm;
} cs_shim_rl_shape_t;

/*
 * Claim bytes > 0 before allocating them (0: granted, else refused) or
 * give back -bytes after freeing them (result ignored).  ctx: the
 * caller's.
 */
typedef int (*cs_shim_rl_claim_fn)(void *ctx, int64_t bytes);

/*
 * The numbers of one shape into *out_p: the dense way where it is exact
 * (B's grid of at most CS_RL_EXACT_MAX_P positions on a context of at
 * most CS_SHIM_RELABEL_MAX_NP processes), else the factored way, else
 * the dense way up to CS_SHIM_RELABEL_MAX_NP processes.  Each way first
 * claims its bound through claim(ctx, bytes) and gives it back before
 * returning.  Returns CS_OK (out_p written), CS_ERR_LIMIT (a claim was
 * refused: nothing computed), CS_ERR_UNSUPPORTED (no way covers the
 * shape: a large context whose layouts have no factors), CS_ERR_NOMEM or
 * CS_ERR_BAD_DESC (the engine's or the solvers' failure).  Local,
 * thread-safe, deterministic.
 */
cs_status_t cs_shim_rl_shape_eval(const cs_shim_rl_shape_in_t *in,
                                  cs_shim_rl_claim_fn claim, void *ctx,
                                  cs_shim_rl_shape_t *out_p);

#endif /* CS_SHIM_RELABEL_SHAPE_INT_H */
