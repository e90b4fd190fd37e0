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

/* The table of one call as cs_shim_rt_exchange() leaves it. */
typedef struct {
    int *key;      /* compact table: K_PRIV private ints, then the shared
                    * ones (the same on every process) */
    int nkey;
    int agreed;    /* every process proposed this table from its cache
                    * (no gather was needed) */
    int settle;    /* some process may have to allocate for the call */
    int *tab;      /* np * F_NINFO rows, once cs_shim_rt_expand() ran */
} cs_shim_rt_t;

/*
 * Exchange the table of a call whose own row is `row` (this process's
 * rank me of np in comm).  One MPI_Allreduce of a few dozen integers
 * carries what must agree (and, when every process holds the same table
 * from an earlier call, settles it); then, unless the table was settled,
 * one MPI_Allgather of each process's two grid positions, or, when the
 * processes disagree, of every row (t->tab set: the decision names the
 * disagreement).  key: the plan's key besides the table (cache lookup);
 * test_nomem: this process pretends it may allocate.  Collective over
 * comm.  Returns the seconds spent in the first reduction (the arrival
 * wait).  Fatal on out of memory.
 */
double cs_shim_rt_exchange(const int *row, int np, int me, MPI_Comm comm,
                           const int64_t key[4], int test_nomem,
                           cs_shim_rt_t *t);

/* t->tab: every process's row, rebuilt from the compact table (a no-op
 * when already there).  Local; fatal on out of memory. */
void cs_shim_rt_expand(cs_shim_rt_t *t, int np, MPI_Comm comm);

/* Free what cs_shim_rt_exchange() and cs_shim_rt_expand() allocated. */
void cs_shim_rt_free(cs_shim_rt_t *t);

#endif /* CS_SHIM_SHIM_REDIST_INT_H */
