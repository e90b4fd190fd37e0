/*
 * shim/gemm/gemm_int.h - p?gemm through the engine (docs/design.md,
 * "Matrix multiplication"): the application's BLAS (blas.c) and the
 * choice between the engine and the real routine per call shape
 * (choice.c); the call itself is served by serve.c.
 */
#ifndef CS_SHIM_GEMM_GEMM_INT_H
#define CS_SHIM_GEMM_GEMM_INT_H

#include <stdint.h>

#include "engine/matmul/matmul.h"

/* The application's ?gemm_ for type 's', 'd', 'c' or 'z' (found once, by
 * name, in the process); NULL when the process has none.  Thread-safe. */
void *cs_shim_gemm_blas(char type);

/* The application's ?syrk_ (herk = 0) or ?herk_ (c and z); NULL when
 * the process has none.  Thread-safe. */
void *cs_shim_gemm_blas_sym(char type, int herk);

/* The local product of the engine (cs_eng_gemm_fn) through the
 * application's ?gemm_ (fn), or its ?syrk_ or ?herk_ (sym) for one
 * triangle: ctx is a cs_shim_gemm_blas_t. */
typedef struct {
    void *fn, *sym;
    char type;
} cs_shim_gemm_blas_t;
void cs_shim_gemm_local(void *ctx, char uplo, char ta, char tb, int64_t m,
                        int64_t n, int64_t k, const void *a, int64_t lda,
                        const void *b, int64_t ldb, int accumulate, void *c,
                        int64_t ldc);

/* ------------------------------------------------------------ buffer */

/* This thread's buffer of at least bytes, kept between calls and claimed
 * under COSTA_SHIM_MAX_MEMORY while kept (buffer.c); NULL when it would
 * go above the cap (*over_cap = 1) or the allocation failed. */
void *cs_shim_gemm_buffer(int64_t bytes, int *over_cap);

/* Give this thread's buffer back (a larger call, finalize). */
void cs_shim_gemm_buffer_release(void);

/* ------------------------------------------------------------ plans */

/* Most ints of a plan's key (serve.c builds it). */
#define CS_SHIM_GEMM_KEY 64

/* This thread's kept plan of key, taken out of the cache (NULL: none);
 * *claimed is the heap claimed for it, which goes with it (plans.c). */
cs_eng_mm_t *cs_shim_gemm_plan_take(const int *key, int nkey,
                                    int64_t *claimed);

/* Keep mm (its heap claimed bytes) for key, dropping this thread's oldest
 * plan when all places are taken. */
void cs_shim_gemm_plan_keep(const int *key, int nkey, cs_eng_mm_t *mm,
                            int64_t claimed);

/* Drop this thread's plans (finalize). */
void cs_shim_gemm_plans_release(void);

/* ------------------------------------------------------------ choice */

/* What the ranks know of a call shape: calls and the fastest time (ns,
 * the slowest rank's) on each path.  Reduced with MPI_MAX in the call's
 * agreement, so that every rank decides from the same numbers. */
typedef struct {
    int64_t n_engine, t_engine;
    int64_t n_native, t_native;
} cs_shim_gemm_seen_t;

#define CS_SHIM_GEMM_SEEN_N 4

/* This rank's record of the shape with identity id (zeros: none).
 * Thread-safe. */
void cs_shim_gemm_seen_get(const int64_t id[2], cs_shim_gemm_seen_t *s);

/* Add one call of the shape on a path (engine 1, native 0) that took t
 * seconds here, after the agreed record all.  Thread-safe. */
void cs_shim_gemm_seen_add(const int64_t id[2], const cs_shim_gemm_seen_t *all,
                           int engine, double t);

/* What the model expects of a call (cs_shim_gemm_pick). */
enum {
    CS_SHIM_GEMM_NATIVE_FIRST, /* PBLAS may be the faster: measure it first */
    CS_SHIM_GEMM_ENGINE_FIRST, /* the engine is expected the faster */
    CS_SHIM_GEMM_ENGINE_ONLY   /* the engine cannot be the slower */
};

/*
 * The path of a call from what the model expects (expect, above) and what
 * was measured (agreed): the model's path first, then the other one, the
 * engine twice (its first call maps its buffer), later calls the faster;
 * CS_SHIM_GEMM_ENGINE_ONLY: always the engine.  1: engine.  Global (the
 * same inputs on every rank).
 */
int cs_shim_gemm_pick(int expect, const cs_shim_gemm_seen_t *all);

#endif /* CS_SHIM_GEMM_GEMM_INT_H */
