/*
 * shim/shim_relabel.h - process relabeling inside the shim
 * (COSTA_SHIM_RELABEL, docs/relabel.md, interface.md rule 10b).
 *
 * p?gemr2d fixes where every element must end up, so a single call cannot
 * be relabeled.  What the shim can do:
 *
 *   report  For each distinct call shape (cached), the bytes that cross
 *           processes with the application's mapping and with the optimal
 *           relabeling of the target grid (cs_rl_solve on the volume
 *           matrix restricted to the target grid's processes), into the
 *           call's record.  Rank 0 also sums, per pair of BLACS grids, how
 *           many bytes each grid position sends to each position of the
 *           other grid, and at MPI_Finalize writes a relabeling plan: for
 *           every grid it saw created, the permutation of the grid's
 *           processes that minimises the bytes crossing processes in all
 *           observed redistributions between different grids (the first
 *           grid keeps its map; the others are optimised against it).
 *   apply   When the application creates a BLACS grid, create it with the
 *           process map the plan gives (shim_grids.c).  Programs address
 *           processes by grid coordinates, so results do not change.
 *
 * Two files implement it: shim_relabel.c (volumes, cache, plan file) and
 * shim_grids.c (the BLACS grid interposers and the registry of created
 * grids).  Neither does anything unless COSTA_SHIM_RELABEL is report or
 * apply.
 *
 * Grids are numbered in the order they are created over communicators
 * that contain MPI_COMM_WORLD rank 0: rank 0 writes the plan, so this is
 * its creation order.  Grids on communicators without rank 0 are neither
 * numbered nor changed.  A process outside a sub-communicator does not see
 * the grids created on it, so in apply mode a grid is matched to the plan
 * by shape, order and map (the first entry with them not matched yet), and
 * the processes creating it check that they agree before BLACS sees the
 * map.  A grid map is given as world ranks by position in row-major order:
 * map[r * Q + c] is the MPI_COMM_WORLD rank at grid position (r, c).
 *
 * Thread-safety: every function serialises on an internal mutex; BLACS
 * itself requires grids to be created from one thread at a time.
 */
#ifndef CS_SHIM_SHIM_RELABEL_H
#define CS_SHIM_SHIM_RELABEL_H

#include <stdint.h>

#include "engine/engine.h"
#include "shim/shim.h"

#include <mpi.h>

/* Largest global context (processes) for which a call's volume matrix is
 * computed: its P x P int64 matrix is 32 MiB at 2048.  Larger calls keep
 * relabel_cross/relabel_best at -1. */
#define CS_SHIM_RELABEL_MAX_NP 2048

/* Distinct call shapes cached per process (least recently used ones are
 * replaced). */
#define CS_SHIM_RELABEL_SHAPES 64

/* Grid pairs whose position volumes rank 0 accumulates for the plan. */
#define CS_SHIM_RELABEL_PAIRS 64

/* Bytes of position-volume matrices rank 0 keeps (cache plus pairs); calls
 * beyond it still get their record fields, but do not enter the plan. */
#define CS_SHIM_RELABEL_MAX_BYTES ((int64_t)256 << 20)

/* Grids numbered and recorded per process, and the positions their maps
 * may hold in all; further grids are created unchanged and the plan is
 * marked incomplete. */
#define CS_SHIM_GRIDS_MAX 256
#define CS_SHIM_GRIDS_MAX_POSITIONS (1 << 20)

/* ------------------------------------------------------------ calls */

/*
 * Record what relabeling would save on one engine call of p?gemr2d or
 * p?trmr2d: fills rec->relabel_cross (bytes crossing processes over the
 * whole call with the application's mapping) and rec->relabel_best (with
 * the optimal relabeling of B's grid over B's processes); on rank 0 also
 * counts the call for the plan.  la, lb: the call's layouts, their grids
 * in ranks of comm; op: the operation; comm: the global context's private
 * communicator; ctxt_a, ctxt_b: DESCA(CTXT_), DESCB(CTXT_) as passed here
 * (-1 or any value on non-members: only used to tell apart grids with the
 * same map).  Every rank computes the same values from the same global
 * information: local, no communication, deterministic (time budget 0).
 * The first call of a shape costs O(P^2) memory and the solver's time;
 * later calls of it a cache lookup.  Leaves the fields at -1 when the
 * context has more than CS_SHIM_RELABEL_MAX_NP processes or memory runs
 * out.
 */
void cs_shim_relabel_observe(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                             MPI_Comm comm, int ctxt_a, int ctxt_b,
                             cs_shim_record_t *rec);

/*
 * At MPI_Finalize (the MPI_COMM_SELF delete callback), before the report:
 * report mode: rank 0 computes the plan and writes it to
 * COSTA_SHIM_RELABEL_PLAN (through a temporary file and rename); apply
 * mode: rank 0 warns if the run created fewer grids than the plan lists.
 * Then frees everything of the module on every rank.  Local.
 */
void cs_shim_relabel_finalize(void);

/* ------------------------------------------------------------ plan */

/*
 * Apply mode: the map planned for a grid the application asks to create
 * with shape p x q, order ('R', 'C' or 'M' for a user map) and world-rank
 * map app_map: the first plan entry with that shape, order and map that no
 * earlier grid of this process matched.  index: the grid's number here
 * (for messages).  Reads the plan file on first use.  Returns 1 and writes
 * new_map_p (p * q world ranks, a permutation of app_map's ranks different
 * from app_map) when the plan relabels this grid; 0 when it keeps the
 * application's map (no plan, plan ignored, identity).  The first time the
 * plan cannot be read or does not match the run (other process count, a
 * grid it does not list), one warning is printed (if `speaker` is
 * nonzero) and the plan is ignored from then on.  Local.
 */
int cs_shim_relabel_planned_map(int index, int p, int q, char order,
                                const int *app_map, int speaker,
                                int *new_map_p);

/*
 * Apply mode: ignore the plan from now on (the processes creating a grid
 * disagreed on its map); proposed: 1 if cs_shim_relabel_planned_map()
 * returned 1 for that grid here (it is created unchanged after all).
 * Prints one warning if `speaker`.  Local.
 */
void cs_shim_relabel_plan_disable(const char *why, int proposed,
                                  int speaker);

/* ------------------------------------------------------------ grids */

/* One grid created by the application, as recorded by shim_grids.c. */
typedef struct {
    int index;    /* creation number (see above) */
    int p, q;
    char order;   /* 'R', 'C' (Cblacs_gridinit) or 'M' (Cblacs_gridmap) */
    int relabeled; /* 1 if created with a planned map */
    int handle;   /* context handle here, -1 if not a member */
    int live;     /* 0 after Cblacs_gridexit of the handle */
    uint64_t hash; /* of map */
    int *app_map; /* p * q world ranks the application asked for */
    int *map;     /* p * q world ranks as created */
} cs_shim_grid_t;

/* Grids numbered so far on this process (also those beyond
 * CS_SHIM_GRIDS_MAX, which are not recorded).  Local. */
int cs_shim_grids_created(void);

/* Number of recorded grids (<= CS_SHIM_GRIDS_MAX). */
int cs_shim_grids_count(void);

/* Recorded grid i (0 <= i < cs_shim_grids_count()), or NULL.  The pointer
 * stays valid until cs_shim_grids_release(). */
const cs_shim_grid_t *cs_shim_grids_get(int i);

/*
 * Number (index) of the live grid whose created map is p x q with world
 * ranks map: the one whose context handle here is `handle` if there is
 * one (two live grids may have the same map), else the most recently
 * created one; -1 if none.  Local.
 */
int cs_shim_grids_find(int p, int q, const int *map, int handle);

/* Free the registry (finalize).  Local. */
void cs_shim_grids_release(void);

/* FNV-1a hash of n ints (seed: a previous hash or 0). */
uint64_t cs_shim_relabel_hash(uint64_t seed, const int *v, int64_t n);

#endif /* CS_SHIM_SHIM_RELABEL_H */
