/*
 * shim/shim_redist_int.h - the table of a p?gemr2d / p?trmr2d call, shared
 * by shim_redist.c (the decision and the engine) and shim_redist_table.c
 * (how the table travels).
 *
 * Every process of the global context has a row: its view of the call
 * (the arguments, its membership and coordinates in A's and B's grids,
 * its local problems).  Every process needs every row, to decide alike
 * and to build the layouts.  Most of a row is the same on every process
 * of a valid call, so it travels as a compact table (cs_shim_rt_t.key):
 * the parts that must agree, reduced once, and each process's grid
 * positions, gathered; the full table is rebuilt from it locally.
 */
#ifndef CS_SHIM_SHIM_REDIST_INT_H
#define CS_SHIM_SHIM_REDIST_INT_H

#include <stdint.h>

#include "shim/shim.h"
#include "shim/shim_trace_int.h"

#include <mpi.h>

/* One process's row.  Matrix X is A (0) or B (1); its fields start at
 * F_X0 + X * F_XN. */
enum {
    F_M = 0,
    F_N,
    F_ROUTINE,
    F_LOCAL,    /* bits of local problems, below */
    F_WRANK,    /* rank in MPI_COMM_WORLD, for the trace's grid order */
    F_X0,
    /* per matrix */
    X_IN = 0, X_P, X_Q, X_R, X_C, X_M, X_N, X_MB, X_NB, X_RSRC, X_CSRC, X_I,
    X_J,
    X_STAMP,    /* COSTA_SHIM_RELABEL: the grid's stamp here, else -1 */
    F_XN,
    F_NINFO = F_X0 + 2 * F_XN
};

enum {
    L_LLD_A = 1,  /* LLD below the local rows of the whole matrix */
    L_LLD_B = 2,
    L_NULL_A = 4, /* NULL array on a process owning part of sub(A) */
    L_NULL_B = 8
};

/* The private part of a compact table: this process's rank and row (what
 * a cached table must match) and, kept with the cached plan, the trace's
 * grid strings. */
enum {
    K_GRID_INTS = sizeof(((cs_shim_trace_t *)0)->grid_a) / sizeof(int),
    K_ME = 0,
    K_ROW = 1,
    K_GRID_A = K_ROW + F_NINFO,
    K_GRID_B = K_GRID_A + K_GRID_INTS,
    K_PRIV = K_GRID_B + K_GRID_INTS, /* ints not hashed */
    K_MATCH = K_GRID_A               /* ints matched */
};

/* The table of one call, from its preparation to its agreement. */
typedef struct {
    int np, me;
    int *key;      /* compact table: K_PRIV private ints, then the shared
                    * ones (the same on every process) */
    int nkey;
    int proposed;  /* key holds a cached table this process proposes */
    int settled;   /* every process proposed this very table */
    uint64_t digest[2]; /* of the proposal's shared part */
    int *both;     /* 2 x np gathered grid positions */
    int *tab;      /* np * F_NINFO rows, once cs_shim_rt_expand() ran */
} cs_shim_rt_t;

/*
 * Before the call's first agreement (local): this process's row and the
 * buffers the exchange needs (allocated now, so that a process without
 * memory says so in the agreement instead of failing inside a collective;
 * COSTA_SHIM_TEST_FAULT's `table` step fails them), and the cached table
 * it proposes, if any (t->proposed; its digests in t->digest).  Returns
 * CS_OK or CS_ERR_NOMEM.
 */
cs_status_t cs_shim_rt_prepare(cs_shim_rt_t *t, const int *row, int np,
                               int me);

/* The int64 the table adds to the first agreement, into extra (at most
 * CS_SHIM_RT_EXTRA_MAX); returns how many.  Local. */
#define CS_SHIM_RT_EXTRA_MAX 512
int cs_shim_rt_extra(const cs_shim_rt_t *t, const int *row, int64_t *extra);

/*
 * After the first agreement (all: its extra part; same_id: the vote's
 * identity agreed; unsettled: some process proposed nothing): 1 when every
 * process proposed the same cached table, which then is the call's table
 * (t->settled).  The proposals are compared exactly (their shared parts
 * field by field, the grid positions too up to CS_SHIM_RT_EXACT_NP
 * processes) and by the two digests.  Local: a function of the reduced
 * values alone, the same on every process.
 */
#define CS_SHIM_RT_EXACT_NP 16
int cs_shim_rt_settle(cs_shim_rt_t *t, const int64_t *all, int same_id,
                      int unsettled);

/*
 * An unsettled table: gather what the reduction could not carry, each
 * process's two grid positions or, when the processes disagree (their
 * rows whole, so that the decision can name who passed what; a process
 * without memory for them fails the call on every process: returns
 * CS_ERR_NOMEM everywhere).  Collective over comm.
 */
cs_status_t cs_shim_rt_gather(cs_shim_rt_t *t, const int *row,
                              const int64_t *all, MPI_Comm comm);

/* t->tab: every process's row, rebuilt from the compact table (a no-op
 * when already there).  Local; CS_ERR_NOMEM without memory. */
cs_status_t cs_shim_rt_expand(cs_shim_rt_t *t, MPI_Comm comm);

/* Free what the functions above allocated. */
void cs_shim_rt_free(cs_shim_rt_t *t);

#endif /* CS_SHIM_SHIM_REDIST_INT_H */
