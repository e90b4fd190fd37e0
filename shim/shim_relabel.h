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
 *           call's record.  The lowest world rank of each call's global
 *           context (its "keeper") also sums, per pair of BLACS grids, how
 *           many bytes each grid position sends to each position of the
 *           other grid.  At MPI_Finalize rank 0 gathers the grids and the
 *           pair volumes of all ranks and writes a relabeling plan: for
 *           every grid of the run, the permutation of its processes that
 *           minimises the bytes crossing processes in all observed
 *           redistributions between different grids (in each group of
 *           grids linked by calls the first keeps its map; the others
 *           are optimised against it).
 *   apply   When the application creates a BLACS grid, create it with the
 *           process map the plan gives (shim_grids.c).  Programs address
 *           processes by grid coordinates, so results do not change.
 *
 * Two files implement it: shim_relabel.c (volumes, cache, plan file) and
 * shim_grids.c (the BLACS grid interposers and the registry of created
 * grids).  Neither does anything unless COSTA_SHIM_RELABEL is report or
 * apply.
 *
 * Grid identity.  Every creation of a grid is collective over its system
 * communicator (BLACS's MPI_Comm_create), and the shim adds one
 * MPI_Allreduce there that gives the grid a Lamport stamp: the maximum of
 * the participants' clocks, each of which then moves past it.  (stamp,
 * owner), the owner being the lowest world rank of the grid, names the grid
 * world-wide (the owner's stamps only grow), and sorting by it orders the
 * grids consistently with every process's own creation order; the plan
 * numbers grids in that order.  Calls carry the stamps of A's and B's grids
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
 * before BLACS sees the map.  A grid map is given as world ranks by
 * position in row-major order: map[r * Q + c] is the MPI_COMM_WORLD rank
 * at grid position (r, c).
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

/* Grid pairs whose position volumes a process accumulates for the plan
 * (as the keeper of their calls). */
#define CS_SHIM_RELABEL_PAIRS 64

/* Bytes of position-volume matrices a process keeps (cache plus pairs);
 * calls beyond it still get their record fields, but do not enter the
 * plan.  Also the most rank 0 gathers from all ranks at MPI_Finalize
 * (grids and pairs, in rank order; what does not fit is left out and the
 * plan marked incomplete). */
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
 * the optimal relabeling of B's grid over B's processes); on the call's
 * keeper (the lowest world rank of comm) also counts the call for the
 * plan.  la, lb: the call's layouts, their grids in ranks of comm; op: the
 * operation; comm: the global context's private communicator; stamp_a,
 * stamp_b: the stamps of A's and B's grids (cs_shim_grids_stamp() on a
 * member, the same on every process of the call; -1 unknown).  Every rank
 * computes the same values from the same global information: local, no
 * communication, deterministic (time budget 0).  The first call of a
 * shape costs O(P^2) memory and the solver's time; later calls of it a
 * cache lookup.  Leaves the fields at -1 when the context has more than
 * CS_SHIM_RELABEL_MAX_NP processes or memory runs out.
 */
void cs_shim_relabel_observe(const cs_eng_layout_t *la,
                             const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                             MPI_Comm comm, int stamp_a, int stamp_b,
                             cs_shim_record_t *rec);

/*
 * At MPI_Finalize (the MPI_COMM_SELF delete callback), before the report.
 * collective = cs_shim_finalize_collective(): 1 when every rank calls this
 * (then it is collective over MPI_COMM_WORLD), 0 when only some may.
 * report mode: rank 0 gathers the grids and pair volumes of every rank
 * (collective) or uses its own (not), computes the plan and writes it to
 * COSTA_SHIM_RELABEL_PLAN (through a temporary file and rename); apply
 * mode: rank 0 prints the warning of a plan some rank ignored if it has
 * not printed one itself, and warns if the run created fewer grids than
 * the plan lists.  Then frees everything of the module on every rank.
 */
void cs_shim_relabel_finalize(int collective);

/* ------------------------------------------------------------ plan */

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

/* ------------------------------------------------------------ grids */

/* One grid created by the application, as recorded by shim_grids.c on
 * every process of its creation (members and the other processes of the
 * system communicator). */
typedef struct {
    int index;    /* creation number on this process */
    int stamp;    /* Lamport stamp of the creation (see above) */
    int owner;    /* lowest world rank of the grid */
    int member;   /* 1 if this process is in the grid */
    int p, q;
    char order;   /* 'R', 'C' (Cblacs_gridinit) or 'M' (Cblacs_gridmap) */
    int relabeled; /* 1 if created with a planned map */
    int handle;   /* context handle here, -1 if not a member */
    int live;     /* 0 after Cblacs_gridexit of the handle */
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

/* Stamp of the live grid whose context handle here is `handle`, -1 if
 * none is recorded (not a member, not recorded, not a grid).  Local. */
int cs_shim_grids_stamp(int handle);

/* Creation number here of the grid (stamp, owner), -1 if this process did
 * not record it.  Local. */
int cs_shim_grids_index(int stamp, int owner);

/* Free the registry (finalize).  Local. */
void cs_shim_grids_release(void);

/* FNV-1a hash of n ints (seed: a previous hash or 0). */
uint64_t cs_shim_relabel_hash(uint64_t seed, const int *v, int64_t n);

#endif /* CS_SHIM_SHIM_RELABEL_H */
