/*
 * shim/shim_engine_int.h - the shim's side of an engine call (shim_engine.c):
 * preparing and reserving a plan under the memory cap, running it or
 * turning the call into a fallback on every rank, the shared send
 * buffer in the call's collective decision, a call as an engine
 * operation.
 */
#ifndef CS_SHIM_SHIM_ENGINE_INT_H
#define CS_SHIM_SHIM_ENGINE_INT_H

#include <stdint.h>

#include "engine/engine.h"
#include "shim/shim.h"
#include "shim/shim_call_int.h"

#include <mpi.h>

struct cs_config;

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
 * Like cs_shim_engine_prepare() for a plan that already exists (from the
 * cache): threads and overlap into *opts_p, buffers reserved, memory cap.
 */
int cs_shim_engine_reuse(cs_eng_plan_t *plan, const struct cs_config *cfg,
                         cs_eng_exec_opts_t *opts_p, cs_status_t *st_p);

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

/* The engine operation of a call as a plain copy: sizes, 0-based offsets,
 * element size; families add transform, trapezoid and scalars. */
cs_eng_op_t cs_shim_eng_op(const cs_shim_call_t *g);

/* Element type of the engine for a routine's type letter. */
int cs_shim_eng_type(int routine);

#endif /* CS_SHIM_SHIM_ENGINE_INT_H */
