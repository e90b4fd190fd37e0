/*
 * shim/shim_call_int.h - one normalised record per intercepted call, filled
 * by every exported spelling of every family (shim_entry.c), the front
 * door every call goes through (shim_front.c), the families serving it
 * (shim_redist.c, shim_pblas.c) and the real routine (shim_forward.c).
 */
#ifndef CS_SHIM_SHIM_CALL_INT_H
#define CS_SHIM_SHIM_CALL_INT_H

#include <stddef.h>

#include "shim/shim.h"

/*
 * Arguments of one call, normalised from either ABI.  B is the target (C
 * of the PBLAS routines); p?gemm's second operand (its B) is X.  Character arguments keep the caller's pointer
 * and hidden Fortran length so the real routine gets exactly what the
 * application passed.
 */
typedef struct {
    int routine;        /* cs_shim_routine_id_t */
    int spelling;       /* cs_shim_spelling_t */
    cs_fint m, n;
    void *a;
    cs_fint ia, ja;
    const cs_fint *desca;
    void *b;
    cs_fint ib, jb;
    const cs_fint *descb;
    cs_fint ictxt;      /* p?gemr2d, p?trmr2d */
    const void *alpha;  /* p?tran*, p?geadd, p?tradd: scalar or {re, im} */
    const void *beta;
    const char *uplo;   /* p?trmr2d, p?tradd */
    const char *diag;   /* p?trmr2d */
    const char *trans;  /* p?geadd, p?tradd; p?gemm: TRANSA */
    size_t len1, len2;  /* hidden lengths of the character arguments */
    /* p?gemm: TRANSB, K and the operand X(ix:, jx:) (PBLAS's B);
     * p?syrk, p?herk: K, and X is A again (uplo, trans: UPLO, TRANS;
     * m = n = N) */
    const char *transb;
    cs_fint k;
    void *x;
    cs_fint ix, jx;
    const cs_fint *descx;
    const cs_fint *pk, *pix, *pjx;
    const cs_fint *pm, *pn; /* the caller's pointers, for the real
                             * Fortran */
    const cs_fint *pia, *pja, *pib, *pjb, *pictxt;
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
 * functions; 0 when it could not be made, agreed on every rank).
 * Collective over ctxt. */
double cs_shim_arrive_barrier(int ctxt);

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

/* Serve a p?gemm, p?syrk or p?herk call.  Collective over A's context
 * like the real routine. */
void cs_shim_gemm(const cs_shim_call_t *g);

/* Run the real routine with the caller's arguments (ABI of the spelling
 * used if the real library has it).  Aborts with a message if absent. */
void cs_shim_call_real(const cs_shim_call_t *g);

#endif /* CS_SHIM_SHIM_CALL_INT_H */
