/*
 * shim/relabel/relabel_int.h - process relabeling inside the shim
 * (COSTA_SHIM_RELABEL, docs/relabel.md).
 *
 * p?gemr2d fixes where every element must end up, so a single call cannot
 * be relabeled.  What the shim can do:
 *
 *   report  For each distinct call shape (cached), the bytes that cross
 *           processes with the application's mapping and with the optimal
 *           relabeling of the target grid (cs_rl_solve on the volume
 *           matrix restricted to the target grid's processes), into the
 *           call's record.  The lowest world rank of each call's global
 *           context (its "keeper") also sums, per pair of BLACS grids, how
 *           many bytes each grid position sends to each position of the
 *           other grid.  At MPI_Finalize rank 0 gathers the grids and the
 *           pair volumes of all ranks and writes a relabeling plan
 *           (computed and formatted by relabel/: cs_rl_plan_solve,
 *           cs_rl_plan_print).
 *   apply   When the application creates a BLACS grid, create it with the
 *           process map the plan gives (shim_grids.c).  Programs address
 *           processes by grid coordinates, so results do not change.
 *
 * The files, one job each (this room, shim/relabel/, and two of shim/):
 *   observe.c              a call's key: grids' world ranks, keeper
 *   cache.c                the cache of shapes and the pair volumes
 *   shape.c                one shape's numbers (no MPI, unit-tested)
 *   gather.c               the plan's problem at MPI_Finalize (MPI)
 *   apply.c                the plan in use in apply mode
 *   plan_file.c            the module's MPI_Finalize: plan file, checks
 *   shim/shim_grids.c      the BLACS grid creation interposers
 *   shim/shim_grid_registry.c  the grids created
 *                          (shim_grid_registry_int.h)
 * None of them does anything unless COSTA_SHIM_RELABEL is report or apply.
 *
 * Calls carry the stamps of A's and B's grids (shim_grid_registry_int.h)
 * in the table they exchange anyway, so every process of a call knows
 * both grids even when it belongs to neither.
 *
 * Scope.  When MPI_Init went through the shim on every rank
 * (cs_shim_finalize_collective()), the plan covers every grid and every
 * call of the run ("scope world"); otherwise rank 0 alone writes it from
 * what it saw: the grids created over communicators that contain it and
 * the calls whose global context contains it ("scope rank0").
 *
 * Apply matches a grid to the plan by shape, order and map (the first
 * entry with them not matched yet: the members of a grid see every
 * creation of that map, in the same order), only on the grid's members;
 * the Allreduce of the creation then hands their choice to the other
 * processes of the system communicator and checks that the members agree,
 * before BLACS sees the map.
 *
 * Thread-safety: the observed shapes and the plan in use each serialise on
 * a mutex of their own (a new shape is computed outside it); BLACS
 * itself requires grids to be created from one thread at a time.
 */
#ifndef CS_SHIM_RELABEL_RELABEL_INT_H
#define CS_SHIM_RELABEL_RELABEL_INT_H

#include <stdint.h>

#include "engine/engine.h"
#include "relabel/relabel.h"
#include "shim/relabel/shape_int.h"
#include "shim/shim.h"

#include <mpi.h>

/* Distinct call shapes cached per process (least recently used ones are
 * replaced). */
#define CS_SHIM_RELABEL_SHAPES 64

/* Grid pairs whose position volumes a process accumulates for the plan
 * (as the keeper of their calls). */
#define CS_SHIM_RELABEL_PAIRS 64

/* Bytes of position-volume matrices a process keeps (cache plus pairs);
 * calls beyond it still get their record fields, but do not enter the
 * plan.  Also the most rank 0 gathers from all ranks at MPI_Finalize
 * (grids and pairs, in rank order; what does not fit is left out and the
 * plan marked incomplete). */
#define CS_SHIM_RELABEL_MAX_BYTES ((int64_t)256 << 20)

/* MPI_COMM_WORLD rank and size asked of MPI, right also on a process that
 * never called an intercepted routine (cs_shim_world_rank() is -1 there):
 * MPI_Finalize reaches every rank.  Local. */
static inline int cs_shim_relabel_world_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

static inline int cs_shim_relabel_world_size(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

/* ------------------------------------------------------------ calls */

/*
 * Record what relabeling would save on one engine call of p?gemr2d or
 * p?trmr2d: fills rec->relabel_cross (bytes crossing processes over the
 * whole call with the application's mapping) and rec->relabel_best (with
 * the optimal relabeling of B's grid over B's processes); on the call's
 * keeper (the lowest world rank of comm) also counts the call for the
 * plan.  la, lb: the call's layouts, their grids in ranks of comm; op: the
 * operation; comm: the global context's private communicator; stamp_a,
 * stamp_b: the stamps of A's and B's grids (cs_shim_grids_stamp() on a
 * member, the same on every process of the call; -1 unknown).  Every rank
 * computes the same values from the same global information: local, no
 * communication, deterministic.  The first call of a shape costs the
 * computation of shape_int.h (O(P^2) memory on small contexts, O(P +
 * blocks) on large block-cyclic ones), claimed under the memory cap;
 * later calls of it a cache lookup.  Leaves the fields at -1 when no way
 * covers the shape (shape_int.h) or memory is refused or runs out.
 */
void cs_shim_relabel_observe(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                             MPI_Comm comm, int stamp_a, int stamp_b,
                             cs_shim_record_t *rec);

/* Everything that decides a call's volume matrix and where it is counted,
 * all int64_t so that memcmp sees no padding. */
typedef struct {
    int64_t m, n, ia, ja, ib, jb, esize, trans, mask, mask_k;
    int64_t dist[2][2][5]; /* [A|B][rows|cols]: n, nb, first, src, nprocs */
    int64_t np;
    int64_t sa, oa, sb, ob; /* grids: stamp (-1 unknown) and owner */
    int64_t keeper;         /* lowest world rank of the context */
    int64_t hash_a, hash_b; /* world-rank maps */
} cs_shim_relabel_key_t;

/* One call as the shape cache sees it (built by observe.c from the
 * call's communicator; borrowed pointers, valid for the call). */
typedef struct {
    cs_shim_relabel_key_t key;
    const cs_eng_layout_t *la, *lb; /* grids in ranks of the context */
    const cs_eng_op_t *op;
    int np;                 /* processes of the context */
    const int *node;        /* node of each rank of the context, NULL:
                             * not known */
    int routine;            /* cs_shim_routine_t, for the log */
    int keeper;             /* 1 on the call's keeper */
} cs_shim_relabel_call_t;

/*
 * The shape cache's part of cs_shim_relabel_observe (cache.c): the
 * numbers of c's shape into rec, computed on the first call of the
 * shape (shape.c, outside the cache's lock, its memory claimed under
 * COSTA_SHIM_MAX_MEMORY; a refused claim leaves rec's fields at -1,
 * counts the call as missing from the plan on the keeper and warns once
 * per process), and on the keeper the call counted for the plan.  No
 * MPI.  Local, thread-safe: threads that compute the same new shape at
 * once all get its numbers, and the cache keeps one entry.
 */
void cs_shim_relabel_cache_observe(const cs_shim_relabel_call_t *c,
                                   cs_shim_record_t *rec);

/* What this process kept for the plan, as the keeper of its calls. */
typedef struct {
    int npairs;
    const cs_rl_pair_t *pairs; /* ga = gb = -1; valid until
                                  cs_shim_relabel_observe_release() */
    int64_t calls_seen;        /* calls kept */
    int64_t cross_total;       /* their bytes crossing processes */
    int incomplete;            /* some call could not enter the plan */
    int saturated;             /* a sum saturated at INT64_MAX */
} cs_shim_relabel_seen_t;

/* Finalize: add every cached shape's pending calls to its pair, free the
 * shapes, and describe what this process kept.  Local. */
void cs_shim_relabel_observe_flush(cs_shim_relabel_seen_t *seen_p);

/* Finalize: free the shapes and the pairs.  Local. */
void cs_shim_relabel_observe_release(void);

/* ------------------------------------------------------------ report */

/*
 * Report mode at MPI_Finalize: the plan's problem (grids and pairs, not
 * yet in plan order) in *pb_p.  collective: every rank of MPI_COMM_WORLD
 * calls this (scope world: rank 0 gathers every rank's grids and pairs
 * within CS_SHIM_RELABEL_MAX_BYTES; collective over MPI_COMM_WORLD), or
 * only rank 0 does (scope rank0: its own records; local).  Flushes the
 * observed shapes.  Returns 0 on rank 0 with the problem filled (maybe
 * marked incomplete), -1 on other ranks or when rank 0 ran out of memory
 * (every rank then skips the plan).  *pb_p: zeroed on entry, free it with
 * cs_rl_problem_free() whatever the result.
 */
int cs_shim_relabel_gather(int collective, cs_rl_problem_t *pb_p);

/* ------------------------------------------------------------ apply */

/*
 * Apply mode, on a member of a grid the application asks to create with
 * shape p x q, order ('R', 'C' or 'M' for a user map) and world-rank map
 * app_map: the first plan entry with that shape, order and map that no
 * earlier grid of this process matched.  index: the grid's number here
 * (for messages); has_rank0: whether the system communicator contains
 * world rank 0 (a plan of scope rank0 lists only such grids); speaker:
 * this process may print a warning now (see cs_shim_relabel_plan_disable).
 * Reads the plan file on first use.  Returns 1 and writes entry_p and
 * planned_p (p * q world ranks, a permutation of app_map's ranks, maybe
 * app_map itself) when the plan lists the grid; 0 when the plan does not
 * cover it (scope rank0, has_rank0 == 0; or not listed in a plan with
 * complete 0); -1 when the plan is ignored on this process (unreadable,
 * another process count, a grid it does not list, or ignored before).
 * Local.
 */
int cs_shim_relabel_planned_map(int index, int p, int q, char order,
                                const int *app_map, int has_rank0,
                                int speaker, int *entry_p, int *planned_p);

/*
 * Apply mode: the processes creating a grid agreed on plan entry `entry`
 * (-1: none); relabeled: 1 if the grid is created with a map other than
 * the application's.  Marks the entry matched on this process (members and
 * the other processes of the creation).  Local.
 */
void cs_shim_relabel_plan_taken(int entry, int relabeled);

/*
 * Apply mode: ignore the plan on this process from now on.  why: what this
 * process found (the processes creating a grid disagreed on its map), or
 * NULL when it follows another process of a grid creation that ignores the
 * plan (that one reports its own reason).  The warning is printed once per
 * run: at once on world rank 0, or, when the finalize is collective, by
 * rank 0 at MPI_Finalize with the reason of the lowest rank that found
 * one; otherwise at once if `speaker`.  Local.
 */
void cs_shim_relabel_plan_disable(const char *why, int speaker);

/*
 * Apply mode at MPI_Finalize: rank 0 prints the warning of a plan some
 * rank ignored if it has not printed one itself, and warns if the run
 * created fewer grids than the plan lists.  collective: as for
 * cs_shim_relabel_finalize (then collective over MPI_COMM_WORLD).
 */
void cs_shim_relabel_apply_finalize(int collective);

/* Free the plan in use (finalize).  Local. */
void cs_shim_relabel_plan_release(void);

/* ------------------------------------------------------------ finalize */

/*
 * At MPI_Finalize (the MPI_COMM_SELF delete callback), before the report.
 * collective = cs_shim_finalize_collective(): 1 when every rank calls this
 * (then it is collective over MPI_COMM_WORLD), 0 when only some may.
 * report mode: rank 0 gathers the grids and pair volumes of every rank
 * (collective) or uses its own (not), computes the plan and writes it to
 * COSTA_SHIM_RELABEL_PLAN (through a temporary file and rename); apply
 * mode: cs_shim_relabel_apply_finalize().  Then frees everything of the
 * module on every rank.
 */
void cs_shim_relabel_finalize(int collective);

#endif /* CS_SHIM_RELABEL_RELABEL_INT_H */
