/*
 * shim/shim_gemr2d.h - the p?gemr2d family: one normalised argument record
 * filled by every exported spelling, and the routine that serves it.
 */
#ifndef CS_SHIM_SHIM_GEMR2D_H
#define CS_SHIM_SHIM_GEMR2D_H

#include "shim/shim.h"

/* Arguments of one p?gemr2d call, normalised from either ABI. */
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
    int ictxt;
    void *caller;       /* return address in the application */
} cs_shim_gemr2d_args_t;

/*
 * Serve one call: engine, or the real routine (fallback, pass-through,
 * nested), with statistics and trace.  Collective over ictxt exactly like
 * the real routine.
 */
void cs_shim_gemr2d(const cs_shim_gemr2d_args_t *g);

#endif /* CS_SHIM_SHIM_GEMR2D_H */
