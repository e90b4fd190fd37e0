/*
 * shim/shim_decide_int.h - the one decision sequence every routine family
 * follows (shim_decide.c): classify, agree, prepare, commit, execute.
 *
 * 1. Classify (the family, local): what this rank sees of the call and
 *    why it would decline it, without communicating.
 * 2. Prepare (local): build or find the plans, reserve their memory under
 *    COSTA_SHIM_MAX_MEMORY, look at the shared send buffer; every step
 *    that can fail locally fails here, before anything is sent, and turns
 *    into this rank's verdict.
 * 3. Agree: one MPI_Allreduce(MPI_MAX) of a cs_shim_vote_t (and whatever
 *    the family appends: p?gemr2d's table) over the call's communicator.
 *    The vote carries every rank's verdict and wishes: the memory cap,
 *    memory obtained, the shared buffer wanted and whether each rank may
 *    hold it, the identity of a cached table or of the arguments,
 *    relabeling and verification.  Everything after it is a function of
 *    the reduced vote, so every rank takes the same path.
 * 4. Commit and execute (cs_shim_job_run): the shared buffer grown where
 *    every rank agreed, the plan handed to the cache, the plans run or the
 *    call turned into the same fallback on every rank.
 *
 * A rank that could not prepare makes every rank take the same other
 * path: no collective is ever called by a subset of the ranks that must
 * call it, and no branch of the sequence "cannot happen".
 */
#ifndef CS_SHIM_SHIM_DECIDE_INT_H
#define CS_SHIM_SHIM_DECIDE_INT_H

#include <stdint.h>

#include "engine/engine.h"
#include "shim/shim.h"
#include "shim/shim_memory_int.h"
#include "shim/shim_trace_int.h"

#include <mpi.h>

struct cs_config;

/* What one rank concludes about a call, worst last: the agreement takes
 * the worst of all ranks. */
typedef enum {
    CS_SHIM_V_ENGINE = 0,  /* prepared: the engine can run it */
    CS_SHIM_V_MEMORY,      /* above COSTA_SHIM_MAX_MEMORY, nothing allocated */
    CS_SHIM_V_NOMEM,       /* preparing failed (out of memory, engine limit) */
    CS_SHIM_V_UNSUPPORTED, /* valid input the engine does not take */
    CS_SHIM_V_INVALID,     /* input the real routine rejects itself */
    CS_SHIM_V_FATAL        /* input the real routine would crash or hang
                            * on: the job stops with a costa-shim message */
} cs_shim_verdict_t;

/*
 * One rank's vote.  Every field is reduced with MPI_MAX, so each says
 * "some rank ..." after the agreement: a boolean is 1 when some rank set
 * it, a verdict is the worst.  The identity (two independent 64-bit
 * digests of what must be the same on every rank) travels as id and its
 * complement id_not: after the reduction the ranks agree exactly when
 * id[k] == ~id_not[k] (the maximum meets the minimum).
 */
typedef struct {
    int64_t verdict;    /* cs_shim_verdict_t */
    int64_t unsettled;  /* no earlier agreement (cached table) to propose */
    int64_t unprepared; /* this rank must still prepare (no cached plan):
                         * the verdict is not final, a second agreement
                         * follows */
    int64_t shm_wish;   /* this rank's plan would use a larger shared send
                         * buffer, and it pays */
    int64_t shm_veto;   /* this rank may not grow the buffer now: above
                         * its cap, threads, or the call lacks some rank
                         * of MPI_COMM_WORLD */
    int64_t relabel;    /* this rank observes the call for relabeling */
    int64_t no_verify;  /* this rank does not verify (off, or no copy) */
    int64_t id[2];
    int64_t id_not[2];
} cs_shim_vote_t;

#define CS_SHIM_VOTE_N ((int)(sizeof(cs_shim_vote_t) / sizeof(int64_t)))
_Static_assert(sizeof(cs_shim_vote_t) == 11 * sizeof(int64_t),
               "cs_shim_vote_t is reduced as an array of int64_t");

/* The call being decided: what this rank prepared, and the votes. */
typedef struct {
    const char *name;          /* the routine, for messages */
    MPI_Comm comm;             /* the call's private communicator */
    cs_eng_exec_opts_t opts;
    int nplans;
    cs_eng_plan_t **plans;     /* nplans; &one when there is one */
    cs_eng_plan_t *one;
    int cached;                /* plans[0] is the plan cache's */
    cs_status_t st;            /* why preparing failed, if it did */
    int64_t shm_need;          /* shared send buffer the plan would use */
    cs_shim_vote_t mine;
    cs_shim_vote_t all;        /* after cs_shim_job_agree() */
} cs_shim_job_t;

/*
 * Start the decision of one call on comm: the vote says engine, settled,
 * no wishes; verification as the front prepared it (tr->verify_ready).
 * Local.
 */
void cs_shim_job_init(cs_shim_job_t *j, const char *name, MPI_Comm comm,
                      const struct cs_config *cfg, const cs_shim_trace_t *tr);

/* Make this rank's verdict at least v.  Local. */
void cs_shim_job_refuse(cs_shim_job_t *j, cs_shim_verdict_t v);

/*
 * The identity the ranks must share: two independent 64-bit digests of n
 * ints (or the digests given, d != NULL).  Local.
 */
void cs_shim_job_identity(cs_shim_job_t *j, const int *v, int64_t n,
                          const uint64_t *d);

/*
 * Build the plan of op (bounded by COSTA_SHIM_WORKSPACE), then reserve
 * its memory under the cap: this rank's verdict (engine, memory, nomem).
 * Appends the plan to the job's plans (room made by cs_shim_job_plans()
 * when there are several; the job owns it).  Local.
 */
void cs_shim_job_plan(cs_shim_job_t *j, const cs_eng_layout_t *la,
                      const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                      int me, const struct cs_config *cfg);

/* A plan from the plan cache (the cache keeps owning it): reserve its
 * memory under the cap.  Local. */
void cs_shim_job_reuse(cs_shim_job_t *j, cs_eng_plan_t *plan);

/* Room for n plans (before cs_shim_job_plan() is called n times); 0 out
 * of memory (the verdict says so).  Local. */
int cs_shim_job_plans(cs_shim_job_t *j, int n);

/*
 * This rank's wish for the shared send buffer (plans prepared, verdict
 * engine): shm_wish when its first plan would use a larger buffer and it
 * pays (or COSTA_SHIM_SHM=eager), shm_veto when it may not grow it now.
 * Local.
 */
void cs_shim_job_wish_shm(cs_shim_job_t *j, const struct cs_config *cfg);

/*
 * The agreement: one MPI_Allreduce(MPI_MAX) over j->comm of the vote and
 * n int64 of the family's own (extra, reduced into extra_all; both may
 * be NULL when n is 0).  Collective over j->comm.  Returns the seconds it
 * took (on a call's first reduction, the wait for the last rank).
 */
double cs_shim_job_agree(cs_shim_job_t *j, const int64_t *extra,
                         int64_t *extra_all, int n);

/* After the agreement: every rank proposed the same identity.  Local. */
int cs_shim_job_same_identity(const cs_shim_job_t *j);

/*
 * Commit and execute after the agreement (verdict below fatal): with the
 * verdict engine, grow the shared send buffer when some rank wished and
 * none vetoed (collective over MPI_COMM_WORLD, which the vetoes ensure is
 * the call's communicator), hand a new single plan to keep (may be NULL),
 * run the plans one after the other (path engine, volumes in rec) and say
 * whether to verify (tr->verify_go); otherwise turn the call into the
 * same fallback on every rank (reason from the verdict).  Frees what the
 * job holds.  Collective over j->comm when the plans run.
 */
void cs_shim_job_run(cs_shim_job_t *j, cs_shim_keep_fn keep, void *ctx,
                     const void *a, void *b, cs_shim_record_t *rec,
                     cs_shim_trace_t *tr);

/* Free what the job holds without running it (a path that stops before
 * the agreement).  Local. */
void cs_shim_job_free(cs_shim_job_t *j);

#endif /* CS_SHIM_SHIM_DECIDE_INT_H */
