/*
 * test_apps/lib/cs_relabel_app.h - what the relabeling test programs
 * (relabel_demo.c, relabel_sub.c) share: their rank globals, an abort with
 * a message, the value of a global element and the AxB argument parser.
 * Header only (static functions): include it once per program, after
 * defining CS_RELABEL_APP_NAME (the program name for messages).
 */
#ifndef CS_RELABEL_APP_H
#define CS_RELABEL_APP_H

#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

static int g_rank, g_np;

static void die(const char *msg)
{
    fprintf(stderr, "[rank %d] %s: %s\n", g_rank, CS_RELABEL_APP_NAME, msg);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

/* The value of global element (i, j), 0-based. */
static double value(int64_t i, int64_t j)
{
    return (double)(i * 7919 + j) + 0.25 * (double)((i ^ j) & 3);
}

static void parse_pair(const char *s, int *a, int *b)
{
    if (sscanf(s, "%dx%d", a, b) != 2 || *a < 1 || *b < 1) {
        die("bad AxB argument");
    }
}

#endif /* CS_RELABEL_APP_H */
