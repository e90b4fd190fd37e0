/*
 * engine/matmul/split.c - choosing the pm x pn x pk grid of a
 * multiplication (matmul.h): the fewest words received per process
 * within the memory given.
 *
 * RATIONALE: with P processes each computing an (m/pm) x (n/pn) x (k/pk)
 * brick, a process needs its slabs of A and B, (m/pm)(k/pk) + (k/pk)(n/pn)
 * words, and returns (m/pm)(n/pn) partial results summed over pk
 * processes.  Splitting only the largest dimension is optimal when one
 * dimension dominates (k in the tall-skinny products of RPA, m in flat
 * ones); a 2D or 3D grid is where the dimensions are alike, and a larger
 * pk trades memory (copies of A and B) for fewer words, the 2.5D
 * trade-off (seed 002, "communication lower bounds").  Every candidate
 * is evaluated: P has few factorisations into three.
 */
#include "engine/matmul/matmul_int.h"

static double ceil_div(int64_t a, int64_t b)
{
    return (double)((a + b - 1) / b);
}

/* Elements of the ring the reduce-scatter's pieces pass through
 * (reduce.c), for a piece of piece elements. */
static double ring_elems(double piece, int parts, size_t esize)
{
    double es = (double)esize;
    return (double)cs_eng_mm_reduce_ring(0, (int64_t)esize,
                                         (int64_t)(piece * es), parts) /
           es;
}

/* The cost of one split (see cs_eng_mm_cost_t). */
static void cost_of(int64_t m, int64_t n, int64_t k, cs_eng_mm_split_t s,
                    size_t esize, cs_eng_mm_cost_t *c)
{
    double mi = ceil_div(m, s.pm), nj = ceil_div(n, s.pn);
    double kl = ceil_div(k, s.pk);
    double piece = ceil_div((int64_t)nj, s.pk);
    /* the slabs arrive whole: one piece by the exchange, the rest from
     * the other copies (all of it remote in the worst case) */
    c->words_in = mi * kl + kl * nj;
    c->words_reduce = s.pk > 1 ? mi * piece * (s.pk - 1) : 0.0;
    c->words_out = mi * piece;
    c->words = c->words_in + c->words_reduce + c->words_out;
    /* the slabs are held one chunk at a time (CS_ENG_MM_CHUNK_BYTES) */
    double slabs = mi * kl + kl * nj;
    double chunk = (double)CS_ENG_MM_CHUNK_BYTES / (double)esize;
    c->elems = (slabs < chunk ? slabs : chunk) + mi * nj +
               ring_elems(mi * piece, s.pk, esize);
}

int cs_eng_mm_split(int64_t m, int64_t n, int64_t k, int nranks, size_t esize,
                    int64_t mem_max, cs_eng_mm_split_t *s,
                    cs_eng_mm_cost_t *cost)
{
    int found = 0;
    cs_eng_mm_cost_t best = {0};
    cs_eng_mm_split_t pick = {1, 1, 1};
    for (int pm = 1; pm <= nranks; pm++) {
        if (nranks % pm || pm > m) {
            continue;
        }
        for (int pn = 1; pn <= nranks / pm; pn++) {
            int pk = nranks / pm / pn;
            if ((nranks / pm) % pn || pn > n || pk > k) {
                continue;
            }
            cs_eng_mm_split_t t = {pm, pn, pk};
            cs_eng_mm_cost_t c;
            cost_of(m, n, k, t, esize, &c);
            if (mem_max >= 0 && c.elems * (double)esize > (double)mem_max) {
                continue;
            }
            int copies = pm * pn, best_copies = pick.pm * pick.pn;
            if (!found || c.words < best.words ||
                (c.words == best.words && copies < best_copies)) {
                found = 1;
                best = c;
                pick = t;
            }
        }
    }
    if (!found) {
        return -1;
    }
    *s = pick;
    if (cost) {
        *cost = best;
    }
    return 0;
}

int cs_eng_mm_inplace_cost(int64_t m, int64_t n, int64_t k, int po, int pk,
                           char inplace, size_t esize, int64_t mem_max,
                           cs_eng_mm_cost_t *c)
{
    int np = po * pk;
    double rows = ceil_div(inplace == 'A' ? m : n, po);
    double other = (double)(inplace == 'A' ? n : m);
    double kl = ceil_div(k, pk), piece = ceil_div((int64_t)other, pk);
    /* the other operand's slab: what this process lacks of it when that
     * operand is spread evenly; C's rows (columns) summed over the pk
     * processes of a grid line, then this process's piece out (counted
     * as moved, the worst case) */
    c->words_in = kl * other * (np - 1) / np;
    c->words_reduce = rows * piece * (pk - 1);
    c->words_out = rows * piece;
    c->words = c->words_in + c->words_reduce + c->words_out;
    double chunk = (double)CS_ENG_MM_CHUNK_BYTES / (double)esize;
    c->elems = (kl * other < chunk ? kl * other : chunk) + rows * other +
               (pk > 1 ? ring_elems(rows * piece, pk, esize) : 0);
    return mem_max >= 0 && c->elems * (double)esize > (double)mem_max ? -1 : 0;
}

int cs_eng_mm_pieces_cost(int64_t m, int64_t n, int64_t k, int nranks,
                          int nline, size_t esize, int64_t mem_max,
                          cs_eng_mm_cost_t *c)
{
    double kl = ceil_div(k, nranks), piece = ceil_div(n, nranks);
    /* the part of both slabs from the other members of the line, as in
     * cost_of; the same sums */
    c->words_in = kl * (double)(m + n) * (nline - 1) / nline;
    c->words_reduce = (double)m * piece * (nranks - 1);
    c->words_out = (double)m * piece;
    c->words = c->words_in + c->words_reduce + c->words_out;
    double chunk = (double)CS_ENG_MM_CHUNK_BYTES / (double)esize;
    /* the slabs and this rank's packed pieces, in chunks */
    double slabs = 2.0 * kl * (double)(m + n);
    c->elems = (slabs < chunk ? slabs : chunk) + (double)m * (double)n +
               ring_elems((double)m * piece, nranks, esize);
    return mem_max >= 0 && c->elems * (double)esize > (double)mem_max ? -1 : 0;
}
