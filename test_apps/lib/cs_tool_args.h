/*
 * test_apps/lib/cs_tool_args.h - what the command-line tools built with
 * the unit tests share (relabel_plan.c, relabel_model.c): block-cyclic
 * layout arguments ("PxQ:MBxNB[:R|C]"), integer options, wall plus CPU
 * timing of one step, and the factored volume of two layouts as a
 * relabeling problem.  Header only; no MPI calls.
 */
#ifndef CS_TOOL_ARGS_H
#define CS_TOOL_ARGS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "relabel/relabel.h"
#include "relabel/relabel_kron.h"

/* Largest P the tools take (measured up to there, docs/relabel.md). */
#define CS_TOOL_MAX_P (1 << 20)

typedef struct {
    int np, nq;
    int64_t mb, nb;
    int colorder;
} grid_arg_t;

/* wall and CPU time of one step (the CPU time shows what the step costs
 * when the machine is shared) */
typedef struct {
    struct timespec w0, c0;
    double wall, cpu;
    char text[48];
} tm_t;

static inline double ts_diff(const struct timespec *a,
                             const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) +
           1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static inline void tm_start(tm_t *t)
{
    clock_gettime(CLOCK_MONOTONIC, &t->w0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t->c0);
}

static inline void tm_stop(tm_t *t)
{
    struct timespec w1, c1;
    clock_gettime(CLOCK_MONOTONIC, &w1);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    t->wall = ts_diff(&t->w0, &w1);
    t->cpu = ts_diff(&t->c0, &c1);
}

static inline const char *fmt_time(tm_t *t)
{
    snprintf(t->text, sizeof(t->text), "%8.3f s (cpu %7.3f s)", t->wall,
             t->cpu);
    return t->text;
}

static inline int parse_i64(const char *s, int64_t lo, int64_t *out_p)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || x < lo) {
        return -1;
    }
    *out_p = x;
    return 0;
}

/* "PxQ:MBxNB[:R|C]", at most maxp processes */
static inline int parse_grid(const char *s, long long maxp, grid_arg_t *g)
{
    long long p, q, mb, nb;
    int used = 0;
    if (sscanf(s, "%lldx%lld:%lldx%lld%n", &p, &q, &mb, &nb, &used) != 4 ||
        p < 1 || q < 1 || mb < 1 || nb < 1 || p * q > maxp) {
        return -1;
    }
    const char *rest = s + used;
    if (*rest == '\0' || strcmp(rest, ":R") == 0 || strcmp(rest, ":r") == 0) {
        g->colorder = 0;
    } else if (strcmp(rest, ":C") == 0 || strcmp(rest, ":c") == 0) {
        g->colorder = 1;
    } else {
        return -1;
    }
    g->np = (int)p;
    g->nq = (int)q;
    g->mb = mb;
    g->nb = nb;
    return 0;
}

static inline int build_layout(const grid_arg_t *g, int64_t m, int64_t n,
                        cs_eng_layout_t *lay, int **grid_p)
{
    int *grid = malloc((size_t)g->np * (size_t)g->nq * sizeof(int));
    if (grid == NULL) {
        return -1;
    }
    for (int r = 0; r < g->np; r++) {
        for (int c = 0; c < g->nq; c++) {
            grid[r * g->nq + c] = g->colorder ? c * g->np + r : r * g->nq + c;
        }
    }
    memset(lay, 0, sizeof(*lay));
    if (cs_eng_dist_cyclic(m, g->mb, g->mb, 0, g->np, &lay->rows) != CS_OK ||
        cs_eng_dist_cyclic(n, g->nb, g->nb, 0, g->nq, &lay->cols) != CS_OK) {
        free(grid);
        return -1;
    }
    lay->nprow = g->np;
    lay->npcol = g->nq;
    lay->grid = grid;
    lay->ld = 1;
    lay->order = CS_ENG_COLMAJOR;
    *grid_p = grid;
    return 0;
}

/*
 * The volume of op from la to lb as an indexed Kronecker problem over P
 * ranks (cs_eng_volume_factors, cs_eng_factors_ranks, cs_rl_kron_create);
 * *f_p keeps the factors the problem's arrays point into (free it after
 * the problem).  Returns 0, or -1 with a message on stderr.
 */
static inline int tool_kron(const char *tool, const cs_eng_layout_t *la,
                            const cs_eng_layout_t *lb, const cs_eng_op_t *op,
                            int P, cs_eng_factors_t *f_p, cs_rl_kx_t **kx_p)
{
    size_t na = (size_t)la->nprow * (size_t)la->npcol;
    size_t nb = (size_t)lb->nprow * (size_t)lb->npcol;
    int *proc = malloc(na * sizeof(int)), *pos = malloc(nb * sizeof(int));
    cs_status_t est = proc && pos ? cs_eng_volume_factors(la, lb, op, f_p)
                                  : CS_ERR_NOMEM;
    if (est == CS_OK) {
        est = cs_eng_factors_ranks(la, lb, f_p, P, proc, pos);
    }
    cs_rl_status_t st = CS_RL_OK;
    if (est == CS_OK) {
        const cs_eng_factor_t *r = &f_p->rows, *c = &f_p->cols;
        cs_rl_kron_t k = {P,
                          {r->na, r->nb, r->n, r->pa, r->pb, r->count},
                          {c->na, c->nb, c->n, c->pa, c->pb, c->count},
                          f_p->esize, proc, pos};
        st = cs_rl_kron_create(&k, kx_p);
    }
    free(proc);
    free(pos);
    if (est != CS_OK || st != CS_RL_OK) {
        fprintf(stderr, "%s: volume factors: %s\n", tool,
                est != CS_OK ? cs_status_str(est) : cs_rl_status_str(st));
        return -1;
    }
    return 0;
}

#endif /* CS_TOOL_ARGS_H */
