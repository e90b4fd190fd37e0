/*
 * relabel/pairing.c - what the greedy solvers share (relabel_int.h): the
 * heap of items keyed by their best free entry, and the completion of a
 * partial assignment.  Pure C, no allocation.
 */
#include "relabel/relabel_int.h"

static int before(const cs_rl_heap_t *h, int a, int b)
{
    return h->head[a] > h->head[b] || (h->head[a] == h->head[b] && a < b);
}

void cs_rl_heap_down(cs_rl_heap_t *h, int k)
{
    int x = h->heap[k];
    for (;;) {
        int c = 2 * k + 1;
        if (c >= h->n) {
            break;
        }
        if (c + 1 < h->n && before(h, h->heap[c + 1], h->heap[c])) {
            c++;
        }
        if (!before(h, h->heap[c], x)) {
            break;
        }
        h->heap[k] = h->heap[c];
        k = c;
    }
    h->heap[k] = x;
}

void cs_rl_heap_make(cs_rl_heap_t *h)
{
    for (int k = h->n / 2 - 1; k >= 0; k--) {
        cs_rl_heap_down(h, k);
    }
}

void cs_rl_heap_pop(cs_rl_heap_t *h)
{
    h->heap[0] = h->heap[--h->n];
    if (h->n > 0) {
        cs_rl_heap_down(h, 0);
    }
}

void cs_rl_fill_free(int P, int *perm, unsigned char *used)
{
    for (int j = 0; j < P; j++) {
        if (perm[j] < 0 && !used[j]) {
            perm[j] = j;
            used[j] = 1;
        }
    }
    int i = 0;
    for (int j = 0; j < P; j++) {
        if (perm[j] < 0) {
            while (used[i]) {
                i++;
            }
            perm[j] = i;
            used[i] = 1;
        }
    }
}
