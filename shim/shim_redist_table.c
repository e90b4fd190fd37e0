/*
 * shim/shim_redist_table.c - how the table of a p?gemr2d / p?trmr2d call
 * travels between its processes (shim_redist_int.h).
 *
 * RATIONALE: every process needs every other's view of the call, and the
 * views used to travel whole: F_NINFO ints per process in one
 * MPI_Allgather, 132 bytes times P received by every process on each first
 * call (8.6 MB at P = 65536).  But in a valid call almost everything in a
 * view is the same on every process (M, N, the routine, and for each grid
 * its shape and descriptor entries, which all of its members must pass
 * alike); only where each process sits in the two grids differs.  So the
 * parts that must agree go into the call's first agreement (their maximum
 * and their negated maximum: the processes agree exactly when the two
 * meet), and only the two grid positions of each process are gathered: 8
 * bytes times P.  When the processes do not agree the views are gathered
 * whole, so that the decision can name who passed what.
 *
 * A table that every process holds from an earlier call is settled by the
 * agreement alone, without a gather.  Each process proposes the cached
 * table whose row for it equals its row now; the proposals must then be
 * the same table, and that is confirmed, not assumed: their shared parts
 * travel field by field (maximum and complement), their grid positions
 * too up to CS_SHIM_RT_EXACT_NP processes, and beyond that two independent
 * 64-bit digests of the whole (cs_shim_digest).  Processes can hold
 * different tables that match their rows (check 36 makes them), so a
 * single hash would let a collision send them down different paths.
 * Every buffer the exchange needs is allocated before the first agreement
 * (cs_shim_rt_prepare), so a process without memory says so there.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/log.h"
#include "shim/shim_agree_int.h"
#include "shim/shim_fault_int.h"
#include "shim/shim_plan_cache_int.h"
#include "shim/shim_redist_int.h"

/* The shared part of a compact table (after its K_PRIV private ints). */
enum {
    S_M = 0,
    S_N,
    S_ROUTINE,
    S_X0,
    /* per matrix */
    SX_IN = 0, /* some process is in the grid */
    SX_P, SX_Q, SX_M, SX_N, SX_MB, SX_NB, SX_RSRC, SX_CSRC, SX_I, SX_J,
    SX_STAMP,
    S_XN,
    /* per local problem (L_LLD_A, L_LLD_B, L_NULL_A, L_NULL_B): the first
     * process that has it, or -1 (the decision looks at the first process
     * with any, and which it has) */
    S_FIRST = S_X0 + 2 * S_XN,
    S_POS = S_FIRST + 4      /* 2 x np positions: R * Q + C + 1, 0 outside */
};

/* The table's part of the first agreement (MPI_MAX over int64): what
 * must agree, each as (v, -v), what is taken as a minimum as -v, as a
 * maximum as v; LLONG_MIN where a process has nothing to say.  Then the
 * proposal (its shared part, and its positions on small grids) as
 * (v, ~v) pairs. */
enum {
    R_CALL = 0, /* M, N, routine: 3 pairs */
    R_X0 = R_CALL + 6,
    /* per matrix */
    RX_IN = 0,
    RX_PAIRS,   /* P, Q, MB, NB, RSRC, CSRC, I, J: 8 pairs */
    RX_NM = RX_PAIRS + 16, /* -M_, -N_ */
    RX_STAMP = RX_NM + 2,
    R_XN,
    R_FIRST = R_X0 + 2 * R_XN, /* -(process) per local problem */
    R_N = R_FIRST + 4,
    R_PROP = R_N               /* the proposal's pairs */
};
_Static_assert(R_PROP + 2 * (S_POS + 2 * CS_SHIM_RT_EXACT_NP) <=
                   CS_SHIM_RT_EXTRA_MAX,
               "CS_SHIM_RT_EXTRA_MAX holds the table's part");

/* The descriptor entries of a row that every member must pass alike, in
 * the order of RX_PAIRS and of the shared part's SX_P.. (M_, N_ apart). */
static const int agree_x[8] = {X_P, X_Q, X_MB, X_NB, X_RSRC, X_CSRC, X_I,
                               X_J};
static const int shared_x[8] = {SX_P, SX_Q, SX_MB, SX_NB, SX_RSRC, SX_CSRC,
                                SX_I, SX_J};

/* This process's contribution to the reduction (proposal set apart). */
static void reduce_row(const int *row, int me, int64_t *r)
{
    static const int call[3] = {F_M, F_N, F_ROUTINE};
    for (int i = 0; i < 3; i++) {
        r[R_CALL + 2 * i] = row[call[i]];
        r[R_CALL + 2 * i + 1] = -(int64_t)row[call[i]];
    }
    for (int x = 0; x < 2; x++) {
        const int *f = row + F_X0 + x * F_XN;
        int64_t *rx = r + R_X0 + x * R_XN;
        int in = f[X_IN] != 0;
        rx[RX_IN] = in;
        for (int e = 0; e < 8; e++) {
            rx[RX_PAIRS + 2 * e] = in ? f[agree_x[e]] : LLONG_MIN;
            rx[RX_PAIRS + 2 * e + 1] = in ? -(int64_t)f[agree_x[e]]
                                          : LLONG_MIN;
        }
        rx[RX_NM] = in ? -(int64_t)f[X_M] : LLONG_MIN;
        rx[RX_NM + 1] = in ? -(int64_t)f[X_N] : LLONG_MIN;
        rx[RX_STAMP] = in ? f[X_STAMP] : LLONG_MIN;
    }
    for (int b = 0; b < 4; b++) {
        r[R_FIRST + b] = row[F_LOCAL] & (1 << b) ? -(int64_t)me : LLONG_MIN;
    }
}

/* 1 when the processes agree on everything the shared part keeps once. */
static int agreed(const int64_t *all)
{
    for (int i = 0; i < 3; i++) {
        if (all[R_CALL + 2 * i] != -all[R_CALL + 2 * i + 1]) {
            return 0;
        }
    }
    for (int x = 0; x < 2; x++) {
        const int64_t *rx = all + R_X0 + x * R_XN;
        for (int e = 0; rx[RX_IN] && e < 8; e++) {
            if (rx[RX_PAIRS + 2 * e] != -rx[RX_PAIRS + 2 * e + 1]) {
                return 0;
            }
        }
    }
    return 1;
}

/* The shared part's fixed fields from the reduction. */
static void shared_from(const int64_t *all, int *s)
{
    s[S_M] = (int)all[R_CALL];
    s[S_N] = (int)all[R_CALL + 2];
    s[S_ROUTINE] = (int)all[R_CALL + 4];
    for (int x = 0; x < 2; x++) {
        const int64_t *rx = all + R_X0 + x * R_XN;
        int *sx = s + S_X0 + x * S_XN;
        memset(sx, 0, S_XN * sizeof(int));
        sx[SX_STAMP] = -1;
        sx[SX_IN] = (int)rx[RX_IN];
        if (!rx[RX_IN]) {
            continue;
        }
        for (int e = 0; e < 8; e++) {
            sx[shared_x[e]] = (int)rx[RX_PAIRS + 2 * e];
        }
        sx[SX_M] = (int)-rx[RX_NM];
        sx[SX_N] = (int)-rx[RX_NM + 1];
        sx[SX_STAMP] = (int)rx[RX_STAMP];
    }
    for (int b = 0; b < 4; b++) {
        s[S_FIRST + b] =
            all[R_FIRST + b] == LLONG_MIN ? -1 : (int)-all[R_FIRST + b];
    }
}

/* This process's positions in A's and B's grids (0: outside). */
static void positions(const int *row, int pos[2])
{
    for (int x = 0; x < 2; x++) {
        const int *f = row + F_X0 + x * F_XN;
        pos[x] = f[X_IN] ? f[X_R] * f[X_Q] + f[X_C] + 1 : 0;
    }
}

cs_status_t cs_shim_rt_prepare(cs_shim_rt_t *t, const int *row, int np,
                               int me)
{
    memset(t, 0, sizeof(*t));
    t->np = np;
    t->me = me;
    t->nkey = K_PRIV + S_POS + 2 * np;
    if (cs_shim_fault(CS_CFG_FAULT_TABLE)) {
        return CS_ERR_NOMEM;
    }
    t->key = malloc((size_t)t->nkey * sizeof(int));
    t->both = malloc((size_t)np * 2 * sizeof(int));
    if (!t->key || !t->both) {
        return CS_ERR_NOMEM;
    }
    int match[K_MATCH];
    match[K_ME] = me;
    memcpy(match + K_ROW, row, F_NINFO * sizeof(int));
    const int *prev = cs_shim_plan_cache_table(match, K_MATCH, t->nkey, 0,
                                               t->digest);
    if (prev) {
        memcpy(t->key, prev, (size_t)t->nkey * sizeof(int));
        t->proposed = 1;
    } else {
        memset(t->key, 0, K_PRIV * sizeof(int));
        memcpy(t->key, match, K_MATCH * sizeof(int));
    }
    return CS_OK;
}

/* Ints of the proposal compared exactly: the shared part, and on small
 * grids the positions too. */
static int exact_ints(int np)
{
    return S_POS + (np <= CS_SHIM_RT_EXACT_NP ? 2 * np : 0);
}

int cs_shim_rt_extra(const cs_shim_rt_t *t, const int *row, int64_t *extra)
{
    reduce_row(row, t->me, extra);
    int n = exact_ints(t->np);
    for (int i = 0; i < n; i++) {
        int64_t v = t->proposed ? t->key[K_PRIV + i] : LLONG_MIN;
        extra[R_PROP + 2 * i] = v;
        extra[R_PROP + 2 * i + 1] = ~v;
    }
    return R_PROP + 2 * n;
}

int cs_shim_rt_settle(cs_shim_rt_t *t, const int64_t *all, int same_id,
                      int unsettled)
{
    int n = exact_ints(t->np);
    int same = !unsettled && same_id;
    for (int i = 0; same && i < n; i++) {
        same = all[R_PROP + 2 * i] == ~all[R_PROP + 2 * i + 1];
    }
    t->settled = same;
    if (same) {
        cs_log_debug("table settled by the agreement (every rank has it "
                     "cached)");
    }
    return same;
}

cs_status_t cs_shim_rt_gather(cs_shim_rt_t *t, const int *row,
                              const int64_t *all, MPI_Comm comm)
{
    int np = t->np;
    if (!agreed(all)) {
        /* whole rows, so that the decision can name the disagreement */
        int *tab = malloc((size_t)np * F_NINFO * sizeof(int));
        cs_status_t st = cs_shim_agree(tab ? CS_OK : CS_ERR_NOMEM, comm);
        if (st != CS_OK) {
            free(tab);
            return st;
        }
        MPI_Allgather(row, F_NINFO, MPI_INT, tab, F_NINFO, MPI_INT, comm);
        free(t->key);
        t->key = NULL;
        t->tab = tab;
        return CS_OK;
    }
    int match[K_MATCH];
    match[K_ME] = t->me;
    memcpy(match + K_ROW, row, F_NINFO * sizeof(int));
    memset(t->key, 0, K_PRIV * sizeof(int));
    memcpy(t->key, match, K_MATCH * sizeof(int));
    int *s = t->key + K_PRIV;
    shared_from(all, s);
    int pos[2];
    positions(row, pos);
    MPI_Allgather(pos, 2, MPI_INT, t->both, 2, MPI_INT, comm);
    for (int k = 0; k < np; k++) {
        s[S_POS + k] = t->both[2 * k];
        s[S_POS + np + k] = t->both[2 * k + 1];
    }
    return CS_OK;
}

/* World ranks of comm's ranks, into w (np; r: np ints of scratch). */
static void world_ranks(MPI_Comm comm, int np, int *r, int *w)
{
    MPI_Group g, gw;
    for (int k = 0; k < np; k++) {
        r[k] = k;
    }
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &gw);
    MPI_Group_translate_ranks(g, np, r, gw, w);
    MPI_Group_free(&g);
    MPI_Group_free(&gw);
}

cs_status_t cs_shim_rt_expand(cs_shim_rt_t *t, MPI_Comm comm)
{
    int np = t->np;
    if (t->tab || !t->key) {
        return t->tab ? CS_OK : CS_ERR_NOMEM;
    }
    const int *s = t->key + K_PRIV;
    int *tab = malloc((size_t)np * F_NINFO * sizeof(int));
    int *w = malloc((size_t)np * 2 * sizeof(int));
    if (!tab || !w) {
        free(tab);
        free(w);
        return CS_ERR_NOMEM;
    }
    world_ranks(comm, np, w + np, w);
    for (int k = 0; k < np; k++) {
        int *row = tab + (size_t)k * F_NINFO;
        memset(row, 0, F_NINFO * sizeof(int));
        row[F_M] = s[S_M];
        row[F_N] = s[S_N];
        row[F_ROUTINE] = s[S_ROUTINE];
        row[F_WRANK] = w[k];
        for (int b = 0; b < 4; b++) {
            row[F_LOCAL] |= k == s[S_FIRST + b] ? 1 << b : 0;
        }
        for (int x = 0; x < 2; x++) {
            const int *sx = s + S_X0 + x * S_XN;
            int *f = row + F_X0 + x * F_XN;
            int pos = s[S_POS + x * np + k];
            f[X_STAMP] = -1;
            if (!pos) {
                continue;
            }
            f[X_IN] = 1;
            for (int e = 0; e < 8; e++) {
                f[agree_x[e]] = sx[shared_x[e]];
            }
            f[X_M] = sx[SX_M];
            f[X_N] = sx[SX_N];
            f[X_R] = (pos - 1) / sx[SX_Q];
            f[X_C] = (pos - 1) % sx[SX_Q];
            f[X_STAMP] = sx[SX_STAMP];
        }
    }
    free(w);
    t->tab = tab;
    return CS_OK;
}

void cs_shim_rt_free(cs_shim_rt_t *t)
{
    free(t->key);
    free(t->both);
    free(t->tab);
    memset(t, 0, sizeof(*t));
}
