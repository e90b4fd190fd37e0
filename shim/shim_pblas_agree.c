/*
 * shim/shim_pblas_agree.c - that every process of a PBLAS call (p?tran*,
 * p?geadd, p?tradd) passes the same arguments.
 *
 * PBLAS checks each process's arguments on that process only and then
 * uses its own copy: processes that pass different block sizes, offsets,
 * sizes or scalars make it compute wrong values, hang or crash.  The shim
 * folds the arguments that must agree into a 63-bit hash that travels in
 * the call's one reduction anyway (as maximum and negated minimum); only
 * when they differ are the arguments gathered, to say which one, and the
 * call stops.  The matrix sizes M_ and N_ are not among them: PBLAS checks
 * sub(A) and sub(C) against each process's own, and the distribution does
 * not depend on them.  LLD and CTXT are local by nature.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim/shim_call_int.h"
#include "shim/shim_disagree_int.h"
#include "shim/shim_pblas_agree_int.h"
#include "shim/shim_process_int.h"

#include <mpi.h>

enum {
    P_ROUTINE = 0, P_M, P_N, P_IA, P_JA, P_IC, P_JC, P_TRANS, P_UPLO,
    P_ALPHA, P_BETA = P_ALPHA + 4, P_A = P_BETA + 4, P_C = P_A + 6,
    P_WRANK = P_C + 6
};
_Static_assert(P_WRANK + 1 == CS_SHIM_PB_NPAR, "CS_SHIM_PB_NPAR");
_Static_assert(P_WRANK == CS_SHIM_PB_HASHED, "the rank is not compared");

static const char *const cs_pb_names[] = {
    [P_ROUTINE] = "the routine", [P_M] = "M", [P_N] = "N", [P_IA] = "IA",
    [P_JA] = "JA", [P_IC] = "IC", [P_JC] = "JC", [P_TRANS] = "TRANS",
    [P_UPLO] = "UPLO"};
/* MB and NB first: with DTYPE 1 they are IMB and INB too, and the first
 * entry that differs is the one named */
static const char *const cs_pb_desc[6] = {"MB_", "NB_", "IMB_", "INB_",
                                          "RSRC_", "CSRC_"};

void cs_shim_pblas_params(const cs_shim_call_t *g, const int xa[6],
                          const int xc[6], int par_p[CS_SHIM_PB_NPAR])
{
    double alpha[2] = {0.0, 0.0}, beta[2] = {0.0, 0.0};
    size_t es = cs_shim_routines[g->routine].esize;
    memset(par_p, 0, CS_SHIM_PB_NPAR * sizeof(int));
    /* the scalars as their bits (a complex one is es bytes too) */
    memcpy(alpha, g->alpha, es);
    memcpy(beta, g->beta, es);
    par_p[P_ROUTINE] = g->routine;
    par_p[P_M] = g->m;
    par_p[P_N] = g->n;
    par_p[P_IA] = g->ia;
    par_p[P_JA] = g->ja;
    par_p[P_IC] = g->ib;
    par_p[P_JC] = g->jb;
    par_p[P_TRANS] = g->trans ? (unsigned char)g->trans[0] : 0;
    par_p[P_UPLO] = g->uplo ? (unsigned char)g->uplo[0] : 0;
    memcpy(&par_p[P_ALPHA], alpha, sizeof(alpha));
    memcpy(&par_p[P_BETA], beta, sizeof(beta));
    memcpy(&par_p[P_A], xa, 6 * sizeof(int));
    memcpy(&par_p[P_C], xc, 6 * sizeof(int));
    par_p[P_WRANK] = cs_shim_world_rank();
}

/* The name of entry e of the parameters, for the message. */
static void name_of(int e, char *buf, size_t len)
{
    if (e >= P_A && e < P_C + 6) {
        snprintf(buf, len, "DESC%s(%s)", e < P_C ? "A" : "C",
                 cs_pb_desc[(e - P_A) % 6]);
    } else if (e >= P_ALPHA && e < P_A) {
        snprintf(buf, len, "%s", e < P_BETA ? "ALPHA" : "BETA");
    } else {
        snprintf(buf, len, "%s", cs_pb_names[e] ? cs_pb_names[e] : "?");
    }
}

void cs_shim_pblas_disagree(const int par[CS_SHIM_PB_NPAR], MPI_Comm comm,
                            const char *name)
{
    int np = 1;
    MPI_Comm_size(comm, &np);
    int *tab = malloc((size_t)np * CS_SHIM_PB_NPAR * sizeof(int));
    if (!tab) {
        cs_shim_fatal("%s: the processes of the call pass different "
                      "arguments (and there is no memory to say which)",
                      name);
    }
    MPI_Allgather(par, CS_SHIM_PB_NPAR, MPI_INT, tab, CS_SHIM_PB_NPAR,
                  MPI_INT, comm);
    int e = 0;
    for (; e < P_WRANK; e++) {
        int differ = 0;
        for (int k = 1; k < np && !differ; k++) {
            differ = tab[(size_t)k * CS_SHIM_PB_NPAR + e] != tab[e];
        }
        if (differ) {
            break;
        }
    }
    char fld[32], vals[512];
    if (e == P_WRANK) {
        /* the digests differ while every argument is equal: not possible
         * for equal ints, but said plainly rather than assumed */
        snprintf(vals, sizeof(vals), "no argument differs");
        snprintf(fld, sizeof(fld), "their digests");
    } else if (e >= P_ALPHA && e < P_A) {
        /* scalars: print the values, rank by rank */
        int base = e < P_BETA ? P_ALPHA : P_BETA;
        size_t pos = 0;
        name_of(e, fld, sizeof(fld));
        vals[0] = '\0';
        char t = cs_shim_routines[par[P_ROUTINE]].type;
        for (int k = 0; k < np && k < 8 && pos + 60 < sizeof(vals); k++) {
            const int *b = &tab[(size_t)k * CS_SHIM_PB_NPAR + base];
            double re, im = 0.0;
            if (t == 's' || t == 'c') {
                float f[2];
                memcpy(f, b, sizeof(f));
                re = f[0];
                im = t == 'c' ? f[1] : 0.0;
            } else {
                double d[2];
                memcpy(d, b, sizeof(d));
                re = d[0];
                im = t == 'z' ? d[1] : 0.0;
            }
            pos += (size_t)snprintf(vals + pos, sizeof(vals) - pos,
                                    "%s%.9g on rank %d", k ? "; " : "", re,
                                    tab[(size_t)k * CS_SHIM_PB_NPAR + P_WRANK]);
            if (t == 'c' || t == 'z') {
                pos += (size_t)snprintf(vals + pos, sizeof(vals) - pos,
                                        " (imaginary %.9g)", im);
            }
        }
    } else {
        name_of(e, fld, sizeof(fld));
        cs_shim_disagree_str(tab, np, CS_SHIM_PB_NPAR, e, -1, P_WRANK,
                             e == P_ROUTINE, vals, sizeof(vals));
    }
    free(tab);
    cs_shim_fatal("%s: the processes of the grid disagree on %s: %s (every "
                  "process must pass the same value; PBLAS would compute "
                  "wrong values or hang)",
                  name, fld, vals);
}
