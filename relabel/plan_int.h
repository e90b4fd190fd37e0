/*
 * relabel/plan_int.h - a plan's pairs held as factored terms
 * (relabel_kron.h's cs_rl_term_pack): reading them (plan_pairs.c) and the
 * coordinate-descent step that relabels a grid from them with the
 * Kronecker solvers (plan_kron.c).  Nothing here leaves relabel/.
 */
#ifndef CS_RELABEL_PLAN_INT_H
#define CS_RELABEL_PLAN_INT_H

#include <stdint.h>

#include "relabel/relabel_kron.h"

/*
 * One term read from a pair's words: vol[a][b] = calls * scale *
 * r(x, u) * c(y, v), A's position a holding the operation's cell (x, y)
 * (a = x * cna + y, or with trans a = y * rna + x: A's grid is read
 * transposed), B's position b = u * cnb + v.  Entries sorted by (pa, pb),
 * views into the words.
 */
typedef struct {
    int64_t calls, scale;
    int trans;
    int rna, rnb, cna, cnb;
    int64_t rn, cn;
    const int64_t *rpa, *rpb, *rw, *cpa, *cpb, *cw;
} cs_rl_term_t;

/* Read the term at w (n words left) into *t: its length in words, or -1
 * when the words are malformed (sizes, entries out of range or unsorted,
 * weights or counts not positive). */
int64_t cs_rl_term_parse(const int64_t *w, int64_t n, cs_rl_term_t *t);

/* The term of pair p at word *o into *t, *o moved past it: 1, or 0 at
 * the end of the words (or at words that do not read). */
int cs_rl_term_next(const cs_rl_pair_t *p, int64_t *o, cs_rl_term_t *t);

/* A term's bytes in all (saturated, *sat then set). */
int64_t cs_rl_term_bytes(const cs_rl_term_t *t, int *sat);

/* 1 when every term of pair p reads and fits the pair's sizes. */
int cs_rl_terms_ok(const cs_rl_pair_t *p);

/*
 * One coordinate-descent step of cs_rl_plan_solve for grid g (n
 * positions) when one of its pairs is factored: the Kronecker solver
 * (node-aware with pb->node) on g's largest term against the current map
 * of the other grid, kept only when it lowers the cost over all of g's
 * pairs.  cur: every grid's current map; pos: nworld ints, -1 on entry
 * and on return.  Returns 1 if cur[g] changed; marks pb incomplete when
 * memory ran out or a term does not fit.
 */
int cs_rl_plan_kron_step(cs_rl_problem_t *pb, int g, int **cur, int *pos);

#endif /* CS_RELABEL_PLAN_INT_H */
