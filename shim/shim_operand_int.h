/*
 * shim/shim_operand_int.h - one matrix operand of a PBLAS call as the
 * families that compute (shim_pblas.c, shim_gemm.c) see it: its
 * descriptor decoded and checked as PBLAS checks it, its block-cyclic
 * engine layout, and the call's scalars (shim_operand.c).
 */
#ifndef CS_SHIM_SHIM_OPERAND_INT_H
#define CS_SHIM_SHIM_OPERAND_INT_H

#include "engine/engine.h"
#include "shim/shim.h"

/* What a family concludes about a call's arguments, worst last. */
enum {
    CS_SHIM_ARG_OK = 0,
    CS_SHIM_ARG_UNSUPPORTED = 1, /* valid; the engine does not take it */
    CS_SHIM_ARG_INVALID = 2      /* PBLAS rejects it */
};

/* One matrix operand, decoded from a DTYPE 1 or DTYPE 2 descriptor. */
typedef struct {
    int m_, n_, imb, inb, mb, nb, rsrc, csrc, lld;
} cs_shim_operand_t;

/*
 * PB_Cchkmat's checks for sub(X) = X(i:i+rows-1, j:j+cols-1) of
 * descriptor d on context ctxt (p x q grid, this process at (myr, myc)),
 * as far as needed to know whether PBLAS accepts the call; fills *x.
 * CS_SHIM_ARG_OK or CS_SHIM_ARG_INVALID.  Local.
 */
int cs_shim_operand_check(const cs_fint *d, int rows, int cols, int i, int j,
                          int ctxt, int p, int q, int myr, int myc,
                          cs_shim_operand_t *x);

/*
 * The engine layout of an operand on a p x q grid.  A replicated dimension
 * (RSRC or CSRC = -1) holds every index on every process row (column); it
 * is described as one block held by the selected row rsel (column csel).
 * grid must hold p * q ints; it is filled here (BLACS numbers its
 * communicator row-major).  Local.
 */
void cs_shim_operand_layout(const cs_shim_operand_t *x, int p, int q, int rsel,
                            int csel, int *grid, cs_eng_layout_t *l);

/* A scalar argument of routine as {re, im} in double (p?herk's are
 * real).  Local. */
void cs_shim_scalar(int routine, const void *v, double out[2]);

#endif /* CS_SHIM_SHIM_OPERAND_INT_H */
