/*
 * shim/shim_call.h - one normalised record per intercepted call, filled by
 * every exported spelling of every family, and the routines serving them.
 */
#ifndef CS_SHIM_SHIM_CALL_H
#define CS_SHIM_SHIM_CALL_H

#include "shim/shim.h"

/*
 * Arguments of one call, normalised from either ABI.  B is the target (C
 * of the PBLAS routines).  Character arguments keep the caller's pointer
 * and hidden Fortran length so the real routine gets exactly what the
 * application passed.
 */
typedef struct {
    int routine;        /* cs_shim_routine_id_t */
    int spelling;       /* cs_shim_spelling_t */
    int m, n;
    void *a;
    int ia, ja;
    const int *desca;
    void *b;
    int ib, jb;
    const int *descb;
    int ictxt;          /* p?gemr2d, p?trmr2d */
    const void *alpha;  /* p?tran*, p?geadd, p?tradd: scalar or {re, im} */
    const void *beta;
    const char *uplo;   /* p?trmr2d, p?tradd */
    const char *diag;   /* p?trmr2d */
    const char *trans;  /* p?geadd, p?tradd */
    size_t len1, len2;  /* hidden lengths of the character arguments */
    const int *pm, *pn; /* the caller's pointers, for the real Fortran */
    const int *pia, *pja, *pib, *pjb, *pictxt;
    void *caller;       /* return address in the application */
} cs_shim_call_t;

struct cs_config;
struct cs_shim_trace;

/*
 * A family's part of a call: decide and run the engine, or set rec->path
 * to a fallback path with its reason (the front door then runs the real
 * routine).  Called with the nesting depth raised, MPI ready.
 */
typedef void (*cs_shim_serve_fn)(const cs_shim_call_t *g,
                                 const struct cs_config *cfg,
                                 cs_shim_record_t *rec,
                                 struct cs_shim_trace *tr);

/*
 * A family's arrival barrier for COSTA_SHIM_FALLBACK=always, so that even
 * a measure-only run separates the time the ranks wait for each other
 * from the real routine's own: an MPI_Barrier over the processes the call
 * is collective over (the context's communicator), skipped where the real
 * routine returns without communicating (m or n is 0, a caller outside
 * the grid, PBLAS's quick returns).  Returns the seconds waited.
 * Collective like the routine.
 */
typedef double (*cs_shim_arrive_fn)(const cs_shim_call_t *g);

/* Seconds in MPI_Barrier over ctxt's private communicator (for arrive
 * functions).  Collective over ctxt. */
double cs_shim_arrive_barrier(int ctxt, const char *name);

/* Everything around a family's serve function: switches, nesting guard,
 * MPI readiness, configuration routing, fallback, statistics, trace. */
void cs_shim_front(const cs_shim_call_t *g, cs_shim_serve_fn serve,
                   cs_shim_arrive_fn arrive);

/* Serve a p?gemr2d or p?trmr2d call (REDIST semantics).  Collective over
 * ictxt exactly like the real routine. */
void cs_shim_redist(const cs_shim_call_t *g);

/* Serve a p?tran, p?tranu, p?tranc, p?geadd or p?tradd call (PBLAS
 * semantics).  Collective over A's context like the real routine. */
void cs_shim_pblas(const cs_shim_call_t *g);

/* Run the real routine with the caller's arguments (ABI of the spelling
 * used if the real library has it).  Aborts with a message if absent. */
void cs_shim_call_real(const cs_shim_call_t *g);

/*
 * Build and reserve the engine plan of op on this rank (threads and
 * overlap from cfg into *opts_p).  Returns 0 when ready, 1 when the call
 * would take the shim above COSTA_SHIM_MAX_MEMORY (nothing was reserved),
 * 2 when the engine failed, out of memory included (*st_p says why).
 * Local: the caller agrees on the worst value across ranks.
 */
int cs_shim_engine_prepare(const cs_eng_layout_t *la,
                           const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                           int me, const struct cs_config *cfg,
                           cs_eng_exec_opts_t *opts_p, cs_eng_plan_t **plan_p,
                           cs_status_t *st_p);

/*
 * Given this rank's and the worst preparation result, run the n plans of
 * the call one after the other (path engine, their volumes added up in
 * rec) or, when any rank could not prepare (over the cap, out of memory,
 * another engine failure), turn the call into a `memory` fallback on
 * every rank.  Destroys the plans unless keep.  Collective over comm when
 * the plans run.
 */
void cs_shim_engine_finish(const char *name, int local, int worst,
                           cs_status_t st, cs_eng_plan_t *const *plans, int n,
                           const void *a, void *b, MPI_Comm comm,
                           const cs_eng_exec_opts_t *opts,
                           cs_shim_record_t *rec, int keep);

/* 1 when the shim may hold `add` bytes more than it holds now under a
 * memory budget (cs_shim_mem_fits). */
typedef int (*cs_shim_fits_fn)(int64_t add);

/*
 * Plan cache (shim_plan_cache.c).  get: the cached plan built from exactly
 * this exchanged table (n ints), rank and extra key, or NULL; the cache
 * keeps owning it.  put: hand a plan over to the cache (returns 0 if it
 * was not taken: the caller still owns it); the plan and the copy of the
 * table must fit the budget `fits` (cs_shim_mem_fits), least recently
 * used plans are evicted to make room.  clear: free all (finalize).
 * Local; one thread at a time.
 */
cs_eng_plan_t *cs_shim_plan_cache_get(const int *tab, int n, int me,
                                      const int64_t extra[4]);
int cs_shim_plan_cache_put(const int *tab, int n, int me,
                           const int64_t extra[4], cs_eng_plan_t *plan,
                           cs_shim_fits_fn fits);
void cs_shim_plan_cache_clear(void);

/* Heap bytes the cached plans and their tables hold.  Local. */
int64_t cs_shim_plan_cache_bytes(void);

/* Free the least recently used cached plan other than keep; 0 when there
 * is none.  Local. */
int cs_shim_plan_cache_evict(const cs_eng_plan_t *keep);

/*
 * The memory budget (shim_memory.c).  cap: COSTA_SHIM_MAX_MEMORY in bytes,
 * auto resolved (a quarter of the node's memory over its ranks), -1 for
 * none.  held: what the shim holds (workspace, cached plans, shared send
 * buffer).  admit: whether the call of plan (cached: already in the plan
 * cache) may reserve its memory without the shim going above the cap,
 * after making room (the workspace released when larger than this call
 * needs, cached plans evicted, least recently used first); nothing of the
 * call is allocated.  Local.
 */
int64_t cs_shim_mem_cap(void);
int64_t cs_shim_mem_held(void);

/* cap < 0 or held + add <= cap: the shim may hold add bytes more now
 * (the plan cache's budget, cs_shim_fits_fn). */
int cs_shim_mem_fits(int64_t add);
int cs_shim_mem_admit(cs_eng_plan_t *plan, int cached,
                      const cs_eng_exec_opts_t *opts);

/* Record what the shim holds now plus transient bytes (plans about to be
 * freed) for the peak; the peak so far.  Local. */
void cs_shim_mem_note(int64_t transient);
int64_t cs_shim_mem_peak(void);

/*
 * The most recently used cached table (n ints, rows of nrow ints) whose
 * row `me` equals row, or NULL; *hash_p gets its cs_rl_hash_ints
 * (computed once, when the table was cached).  Lets p?gemr2d skip its
 * table exchange when every rank holds the same cached table (see
 * shim_redist.c).  The pointer is valid until the next put or clear.
 * Local.
 */
const int *cs_shim_plan_cache_table(const int *row, int nrow, int n, int me,
                                    uint64_t *hash_p);

/*
 * Like cs_shim_engine_prepare() for a plan that already exists (from the
 * cache): threads and overlap into *opts_p, buffers reserved, memory cap.
 */
int cs_shim_engine_reuse(cs_eng_plan_t *plan, const struct cs_config *cfg,
                         cs_eng_exec_opts_t *opts_p, cs_status_t *st_p);

/*
 * For a message about ranks that disagree: "9 on rank 1; 8 on ranks 0, 2",
 * each distinct value of entry off in the np rows of tab (stride ints
 * each; only rows whose entry in is nonzero when in >= 0) with the world
 * ranks (entry wrank of each row) that pass it, a few of each; routines:
 * the values are routine ids, written as names.  Local.
 */
void cs_shim_disagree_str(const int *tab, int np, int stride, int off, int in,
                          int wrank, int routines, char *buf, size_t len);

/*
 * What the processes of a PBLAS call must pass alike (shim_pblas_agree.c):
 * routine, M, N, offsets, TRANS, UPLO, the scalars' bits, and of DESCA and
 * DESCC the blocking and source entries (xa, xc: MB, NB, IMB, INB, RSRC,
 * CSRC, decoded from either DTYPE), plus this rank in MPI_COMM_WORLD (not
 * hashed).  cs_shim_pblas_hash: a 63-bit hash of them, equal on every
 * process exactly when they agree (up to collisions).  Local.
 * cs_shim_pblas_disagree: they did not: gathers them over comm, names the
 * first that differs with each rank's value, stops the job.  Collective
 * over comm; never returns.
 */
#define CS_SHIM_PB_NPAR 30
void cs_shim_pblas_params(const cs_shim_call_t *g, const int xa[6],
                          const int xc[6], int par_p[CS_SHIM_PB_NPAR]);
int64_t cs_shim_pblas_hash(const int par[CS_SHIM_PB_NPAR]);
void cs_shim_pblas_disagree(const int par[CS_SHIM_PB_NPAR], MPI_Comm comm,
                            const char *name) __attribute__((noreturn));

/* The engine operation of a call as a plain copy: sizes, 0-based offsets,
 * element size; families add transform, trapezoid and scalars. */
/*
 * The shared send buffer (engine/shm.c) in a call's collective decision:
 * cs_shim_shm_wish() gives the bit (CS_SHIM_SHM_GROW) to OR into this
 * rank's code before the call's MPI_Allreduce(MPI_MAX), set when its plan
 * (NULL: none) wants a larger buffer that pays off and this call has every
 * process of MPI_COMM_WORLD; cs_shim_shm_agree() then grows the buffer on
 * every rank when any asked and no rank refused the call (reduced code
 * below 3), and returns the reduced code without the bit.  Collective when
 * the bit is set.
 */
#define CS_SHIM_SHM_GROW 16
int cs_shim_shm_wish(const cs_eng_plan_t *plan, const cs_eng_exec_opts_t *opts,
                     const struct cs_config *cfg, MPI_Comm comm,
                     int64_t *need_p);
int cs_shim_shm_agree(int worst, int64_t need, const char *name);

cs_eng_op_t cs_shim_eng_op(const cs_shim_call_t *g);

/* Element type of the engine for a routine's type letter. */
int cs_shim_eng_type(int routine);

#endif /* CS_SHIM_SHIM_CALL_H */
