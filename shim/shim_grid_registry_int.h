/*
 * shim/shim_grid_registry_int.h - the registry of the BLACS grids the
 * application created (one of the project's named registries), filled by
 * the grid interposers of shim_grids.c while COSTA_SHIM_RELABEL is report
 * or apply, read by the relabeling code and by p?gemr2d (grid stamps).
 *
 * Grid identity.  Every creation of a grid is collective over its system
 * communicator (BLACS's MPI_Comm_create), and the shim adds one
 * MPI_Allreduce there that gives the grid a Lamport stamp: the maximum of
 * the participants' clocks, each of which then moves past it.  (stamp,
 * owner), the owner being the lowest world rank of the grid, names the grid
 * world-wide (the owner's stamps only grow), and sorting by it orders the
 * grids consistently with every process's own creation order; the plan
 * numbers grids in that order.  A grid map is given as world ranks by
 * position in row-major order: map[r * Q + c] is the MPI_COMM_WORLD rank
 * at grid position (r, c).
 *
 * Every function is local (no MPI) and thread-safe: the registry is
 * guarded by its own mutex.
 */
#ifndef CS_SHIM_SHIM_GRID_REGISTRY_INT_H
#define CS_SHIM_SHIM_GRID_REGISTRY_INT_H

#include <stdint.h>

/* Grids numbered and recorded per process, and the positions their maps
 * may hold in all; further grids are created unchanged and the plan is
 * marked incomplete. */
#define CS_SHIM_GRIDS_MAX 256
#define CS_SHIM_GRIDS_MAX_POSITIONS (1 << 20)

/* One grid created by the application, as recorded on every process of
 * its creation (members and the other processes of the system
 * communicator). */
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

/*
 * A creation begins: returns its creation number on this process and
 * writes this process's Lamport clock into clock_p (the creation's stamp
 * is the maximum of the participants' clocks).
 */
int cs_shim_grids_number(int *clock_p);

/* The creation got stamp `stamp`: this process's clock moves past it (to
 * stamp + 1 unless it is there already: a Lamport clock never goes back,
 * whatever order concurrent creations finish in). */
void cs_shim_grids_clock_past(int stamp);

/* Record grid *g (its maps are copied) if it is the next one numbered
 * and the registry has room; otherwise it is left out. */
void cs_shim_grids_record(const cs_shim_grid_t *g);

/* The application exits the grid of context handle `handle` (BLACS
 * recycles handles): its record is no longer live. */
void cs_shim_grids_forget(int handle);

/* Grids numbered so far on this process (also those beyond
 * CS_SHIM_GRIDS_MAX, which are not recorded). */
int cs_shim_grids_created(void);

/* Number of recorded grids (<= CS_SHIM_GRIDS_MAX). */
int cs_shim_grids_count(void);

/*
 * A copy of recorded grid i (0 <= i < cs_shim_grids_count()) in *g_p, its
 * maps copied too (the caller frees them with cs_shim_grid_free()), taken
 * under the registry's lock: it stays valid whatever other threads record,
 * forget or release.  Returns 0, or -1 with *g_p zeroed when i is out of
 * range or memory runs out.
 */
int cs_shim_grids_get(int i, cs_shim_grid_t *g_p);

/* Free the maps of a copy made by cs_shim_grids_get() and zero it. */
void cs_shim_grid_free(cs_shim_grid_t *g);

/* Stamp of the live grid whose context handle here is `handle`, -1 if
 * none is recorded (not a member, not recorded, not a grid). */
int cs_shim_grids_stamp(int handle);

/* Creation number here of the grid (stamp, owner), -1 if this process did
 * not record it. */
int cs_shim_grids_index(int stamp, int owner);

/* Free the recorded grids (finalize); numbering and clock go on. */
void cs_shim_grids_release(void);

#endif /* CS_SHIM_SHIM_GRID_REGISTRY_INT_H */
