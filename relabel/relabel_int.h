/*
 * relabel/relabel_int.h - helpers the greedy solvers of relabel/ share
 * (greedy.c on dense matrices, sparse.c on entries, kron_solve.c and
 * kron_nodes.c on factors); pairing.c.  Nothing here leaves relabel/.
 */
#ifndef CS_RELABEL_RELABEL_INT_H
#define CS_RELABEL_RELABEL_INT_H

#include <stdint.h>

/*
 * A binary heap of items (processes or positions) keyed by head[item]:
 * larger first, ties: smaller item first.  The greedy solvers keep each
 * item keyed by its best entry that may still be free.
 */
typedef struct {
    int *heap;
    int n;
    const int64_t *head;
} cs_rl_heap_t;

/* Restore the heap order below slot k (its item may have sunk). */
void cs_rl_heap_down(cs_rl_heap_t *h, int k);

/* Order the whole heap (after filling heap[0, n)). */
void cs_rl_heap_make(cs_rl_heap_t *h);

/* Drop the top item and restore the order. */
void cs_rl_heap_pop(cs_rl_heap_t *h);

/*
 * Complete a partial assignment: perm[j] < 0 marks a free position,
 * used[k] a process that plays one.  Leftovers carry no volume: each
 * free position is played by itself where that process is free too, so
 * an unneeded relabeling stays the identity; the rest in increasing
 * order.  used is updated.
 */
void cs_rl_fill_free(int P, int *perm, unsigned char *used);

#endif /* CS_RELABEL_RELABEL_INT_H */
