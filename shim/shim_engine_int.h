/*
 * shim/shim_engine_int.h - what every family needs to speak to the
 * engine (shim_engine.c): a call as an engine operation, its element
 * type, and the execution settings from the configuration.
 */
#ifndef CS_SHIM_SHIM_ENGINE_INT_H
#define CS_SHIM_SHIM_ENGINE_INT_H

#include "engine/engine.h"
#include "shim/shim.h"
#include "shim/shim_call_int.h"

struct cs_config;

/* The engine operation of a call as a plain copy: sizes, 0-based offsets,
 * element size; families add transform, trapezoid and scalars. */
cs_eng_op_t cs_shim_eng_op(const cs_shim_call_t *g);

/* Element type of the engine for a routine's type letter. */
int cs_shim_eng_type(int routine);

/* Threads, overlap and the shared send buffer's threshold of a call on
 * this thread (COSTA_SHIM_THREADS, _OVERLAP, _SHM, _SHM_MIN).  Local. */
cs_eng_exec_opts_t cs_shim_exec_opts(const struct cs_config *cfg);

/*
 * Indices of one dimension of a block-cyclic matrix (n indices, blocks of
 * nb, the first of first, starting on process src of nprocs) that
 * process p owns; src < 0 is replicated (PBLAS: every process owns all
 * n); an invalid dimension owns nothing.  Local.
 */
int64_t cs_shim_local_extent(int64_t n, int64_t nb, int64_t first, int src,
                             int nprocs, int p);

#endif /* CS_SHIM_SHIM_ENGINE_INT_H */
