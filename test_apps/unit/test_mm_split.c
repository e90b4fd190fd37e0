/*
 * test_apps/unit/test_mm_split.c - unit tests of the split of a
 * multiplication over P processes (cs_eng_mm_split, engine/matmul/
 * split.c), no MPI:
 * 1. one dominant dimension is split alone: k for tall-skinny products
 *    (RPA's 300 x 300 x 200000), m for flat ones, n for wide ones;
 * 2. alike dimensions on 4 or 8 processes get a 2D or 3D grid, never a
 *    one-dimensional split that receives more;
 * 3. the choice is the fewest words of every factorisation (brute force
 *    over random shapes and P), each factor at most its dimension, and
 *    within the memory given;
 * 4. a memory bound no split fits gives -1.
 * Deterministic (fixed seed; argv[1] scales the random cases).
 */
#include <stdint.h>
#include <stdlib.h>

#include "cs_test.h"
#include "engine/matmul/matmul.h"

static int split_is(int64_t m, int64_t n, int64_t k, int p, int pm, int pn,
                    int pk)
{
    cs_eng_mm_split_t s;
    if (cs_eng_mm_split(m, n, k, p, 8, -1, &s, NULL) != 0) {
        return 0;
    }
    return s.pm == pm && s.pn == pn && s.pk == pk;
}

/* The fewest words of every factorisation of p (the rule restated). */
static double best_words(int64_t m, int64_t n, int64_t k, int p, int64_t mem,
                         size_t es)
{
    double best = -1.0;
    for (int pm = 1; pm <= p; pm++) {
        for (int pn = 1; pm * pn <= p; pn++) {
            if (p % (pm * pn)) {
                continue;
            }
            int pk = p / (pm * pn);
            if (pm > m || pn > n || pk > k) {
                continue;
            }
            /* the cost model of split.c, written again */
            cs_eng_mm_cost_t c;
            double mi = (double)((m + pm - 1) / pm);
            double nj = (double)((n + pn - 1) / pn);
            double kl = (double)((k + pk - 1) / pk);
            double piece = (double)(((int64_t)nj + pk - 1) / pk);
            c.words = mi * kl + kl * nj +
                      (pk > 1 ? mi * piece * (pk - 1) : 0.0) + mi * piece;
            double slabs = mi * kl + kl * nj;
            double chunk = (double)CS_ENG_MM_CHUNK_BYTES / (double)es;
            /* the reduce-scatter's ring: two slots of 4 MiB (1/16 of
             * the chunk bytes), or of one piece when it is smaller */
            double slot = (double)(CS_ENG_MM_CHUNK_BYTES / 16) / (double)es;
            c.elems =
                (slabs < chunk ? slabs : chunk) + mi * nj +
                (pk > 1 ? 2.0 * (piece * mi < slot ? piece * mi : slot) : 0.0);
            if (mem >= 0 && c.elems * (double)es > (double)mem) {
                continue;
            }
            if (best < 0 || c.words < best) {
                best = c.words;
            }
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 1;

    /* 1. one dominant dimension */
    CS_TEST_ASSERT(split_is(300, 300, 200000, 2, 1, 1, 2));
    CS_TEST_ASSERT(split_is(300, 300, 200000, 4, 1, 1, 4));
    CS_TEST_ASSERT(split_is(20000, 300, 2000, 2, 2, 1, 1));
    CS_TEST_ASSERT(split_is(300, 20000, 2000, 2, 1, 2, 1));
    CS_TEST_ASSERT(split_is(10, 10, 10, 1, 1, 1, 1));

    /* 2. alike dimensions: no one-dimensional split */
    {
        cs_eng_mm_split_t s;
        CS_TEST_EQ(cs_eng_mm_split(2000, 2000, 2000, 4, 8, -1, &s, NULL), 0);
        CS_TEST_ASSERT(s.pm < 4 && s.pn < 4 && s.pk < 4);
        CS_TEST_EQ(cs_eng_mm_split(2000, 2000, 2000, 8, 8, -1, &s, NULL), 0);
        CS_TEST_ASSERT(s.pm == 2 && s.pn == 2 && s.pk == 2);
    }

    /* 3. brute force, random shapes, memory bounds */
    srand(4711);
    for (int t = 0; t < 2000 * scale; t++) {
        int64_t m = 1 + rand() % 3000, n = 1 + rand() % 3000;
        int64_t k = 1 + rand() % 3000;
        int p = 1 + rand() % 24;
        size_t es = (size_t)4 << (rand() % 3);
        int64_t mem = rand() % 3 ? -1 : (int64_t)(rand() % 40000000);
        cs_eng_mm_split_t s;
        cs_eng_mm_cost_t c;
        double want = best_words(m, n, k, p, mem, es);
        int rc = cs_eng_mm_split(m, n, k, p, es, mem, &s, &c);
        if (want < 0) {
            CS_TEST_EQ(rc, -1);
            continue;
        }
        CS_TEST_EQ(rc, 0);
        CS_TEST_EQ(s.pm * s.pn * s.pk, p);
        CS_TEST_ASSERT(s.pm <= m && s.pn <= n && s.pk <= k);
        CS_TEST_ASSERT(c.words == want);
        CS_TEST_ASSERT(mem < 0 || c.elems * (double)es <= (double)mem);
    }

    /* 4. nothing fits */
    {
        cs_eng_mm_split_t s;
        CS_TEST_EQ(cs_eng_mm_split(1000, 1000, 1000, 2, 8, 1000, &s, NULL), -1);
        /* no factorisation at all: P above every dimension's product */
        CS_TEST_EQ(cs_eng_mm_split(1, 1, 1, 2, 8, -1, &s, NULL), -1);
    }
    return cs_test_done();
}
